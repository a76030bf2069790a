//! `ALTER TABLE ... ALTER COLUMN ... TYPE`: the columns' `folio.attribute`
//! rows updated to their new types (each keeps its slot and position),
//! every row version written again with the values the SQL layer
//! converted, and the indexes over the columns built again under their
//! names; or, for changes no stored value notices, the attribute rows
//! alone. Design: the README's "Changing a column's type".

use crate::catalog::{Catalog, IndexKind, attribute_named};
use crate::constraints::check_key_types;
use crate::defs::{ConstraintDef, ConstraintKind, IndexDef, TableDef};
use crate::error::CatalogError;
use folio_heap::Tid;
use folio_row::{SqlType, Value};
use folio_txn::{LockMode, Transaction};

/// A column's new type ([`Catalog::alter_column_types`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewType {
    pub column: String,
    pub type_oid: u32,
    pub typmod: i32,
}

/// Whether an index or foreign key over the columns `columns` uses one
/// of the `changed` positions.
fn over(columns: &[u16], changed: &[u16]) -> bool {
    columns.iter().any(|c| changed.contains(c))
}

impl Catalog {
    /// Takes table `table_name`'s DDL lock and `ACCESS EXCLUSIVE` (a type
    /// change holds them before the SQL layer reads the rows it
    /// converts: no row can come, go or change until the transaction
    /// ends). 42P01 if there is no such table.
    pub fn lock_for_rewrite(
        &self,
        txn: &mut Transaction,
        table_name: &str,
    ) -> Result<(), CatalogError> {
        let table = self.lock_table(txn, table_name)?;
        self.lock_for_ddl(txn, table.oid, LockMode::AccessExclusive)
    }

    /// `ALTER TABLE table_name ALTER COLUMN column TYPE ...` for each of
    /// `changes` (one statement's, all at once), under the locks of
    /// [`Catalog::lock_for_rewrite`]: `rows` is every row version a
    /// snapshot taken after those locks sees, with its new values (by
    /// position; converted by the caller, fitted and checked for NOT NULL
    /// here). The indexes over a changed column are built again (23505
    /// if a unique one meets a duplicate now); a foreign key over one, on
    /// either side, must stay comparable (42804). The caller re-checks
    /// CHECK constraints and foreign keys, and converts defaults.
    pub fn alter_column_types(
        &self,
        txn: &mut Transaction,
        table_name: &str,
        changes: &[NewType],
        rows: Vec<(Tid, Vec<Value>)>,
    ) -> Result<(), CatalogError> {
        self.lock_for_rewrite(txn, table_name)?;
        // The catalog as the rows were read: after the locks.
        txn.with_latest_snapshot(|txn| self.alter_locked(txn, table_name, changes, Some(rows)))
    }

    /// [`Catalog::alter_column_types`] of changes no stored value notices:
    /// each is binary-coercible (folio-row's `SqlType::binary_coercible`:
    /// a varchar made longer, or text; a numeric of more precision), so
    /// every row version and index key reads the same under the new
    /// types. Only the attribute rows change: no row is written, the
    /// indexes stay (PostgreSQL's ALTER COLUMN TYPE without a rewrite).
    /// A foreign key over a changed column must stay comparable (42804);
    /// the caller re-checks CHECK constraints and foreign keys. Corrupt
    /// (an internal error) for a change that is not binary-coercible.
    pub fn relabel_column_types(
        &self,
        txn: &mut Transaction,
        table_name: &str,
        changes: &[NewType],
    ) -> Result<(), CatalogError> {
        self.lock_for_rewrite(txn, table_name)?;
        txn.with_latest_snapshot(|txn| self.alter_locked(txn, table_name, changes, None))
    }

    /// [`Catalog::alter_column_types`] once the table is locked; `rows`
    /// `None`: [`Catalog::relabel_column_types`].
    fn alter_locked(
        &self,
        txn: &mut Transaction,
        table_name: &str,
        changes: &[NewType],
        rows: Option<Vec<(Tid, Vec<Value>)>>,
    ) -> Result<(), CatalogError> {
        let missing = || CatalogError::NoSuchRelation(table_name.to_string());
        let table = self.table(txn, table_name)?.ok_or_else(missing)?;
        self.alter_row_type(txn, table_name, table.oid, false)?;
        let attributes = self.attribute_rows(txn, table.oid)?;
        let mut updated = Vec::with_capacity(changes.len());
        let mut changed = Vec::with_capacity(changes.len());
        let mut after = table.clone();
        for change in changes {
            let (tid, mut row) = attribute_named(attributes.clone(), table_name, &change.column)?;
            let position = after.column(&change.column).ok_or_else(|| {
                CatalogError::Corrupt(format!(
                    "column \"{}\" of \"{table_name}\" has an attribute row and no position",
                    change.column
                ))
            })?;
            if rows.is_none() {
                let (old, new) = (
                    SqlType::from_oid(row.column.type_oid, row.column.typmod),
                    SqlType::from_oid(change.type_oid, change.typmod),
                );
                if !old
                    .zip(new)
                    .is_some_and(|(old, new)| old.binary_coercible(new))
                {
                    return Err(CatalogError::Corrupt(format!(
                        "column \"{}\" of \"{table_name}\" relabelled from type {} ({}) to {} ({}), which changes its stored values",
                        change.column,
                        row.column.type_oid,
                        row.column.typmod,
                        change.type_oid,
                        change.typmod
                    )));
                }
            }
            row.column.type_oid = change.type_oid;
            row.column.typmod = change.typmod;
            after.columns[position] = row.column.clone();
            updated.push((tid, row));
            changed.push(position as u16);
        }
        // Foreign keys over a changed column, either side: still
        // comparable, and the other table read again by its writers.
        let mut keys: Vec<&ConstraintDef> = Vec::new();
        for key in table.constraints.iter().chain(&table.referenced_by) {
            if !keys.iter().any(|k| k.oid == key.oid) {
                keys.push(key);
            }
        }
        for key in keys {
            let ConstraintKind::ForeignKey(fk) = &key.kind else {
                continue;
            };
            let own = key.table_oid == table.oid && over(&fk.columns, &changed);
            let referenced = fk.ref_table_oid == table.oid && over(&fk.ref_columns, &changed);
            if !own && !referenced {
                continue;
            }
            let other_name = match key.table_oid == table.oid {
                true => &fk.ref_table,
                false => &key.table,
            };
            let other = match other_name == table_name {
                true => after.clone(),
                false => {
                    let other = self.lock_table(txn, other_name)?;
                    self.lock_for_ddl(txn, other.oid, LockMode::Share)?;
                    other
                }
            };
            let (child, parent): (&TableDef, &TableDef) = match key.table_oid == table.oid {
                true => (
                    &after,
                    if fk.ref_table_oid == table.oid {
                        &after
                    } else {
                        &other
                    },
                ),
                false => (&other, &after),
            };
            check_key_types(&key.name, child, &fk.columns, parent, &fk.ref_columns)?;
        }
        let Some(rows) = rows else {
            // Relabelled: the stored rows and keys read the same.
            self.in_savepoint(txn, |txn| {
                for (tid, row) in &updated {
                    self.update_attribute(txn, *tid, row, table_name)?;
                }
                Ok(())
            })?;
            self.forget_statistics(table.oid);
            return Ok(());
        };
        let rebuilt: Vec<IndexDef> = (table.indexes.iter())
            .filter(|i| {
                over(&i.columns, &changed)
                    || over(&i.exprs.reads, &changed)
                    || over(&i.exprs.include, &changed)
            })
            .cloned()
            .collect();
        if let Some(index) = rebuilt.iter().find(|i| !i.is_plain()) {
            return Err(CatalogError::Row(folio_row::RowError::Unsupported(
                format!(
                    "changing the type of a column that the expressions or predicate of index \"{}\" read is not supported",
                    index.name
                ),
            )));
        }
        self.in_savepoint(txn, |txn| {
            for (tid, row) in &updated {
                self.update_attribute(txn, *tid, row, table_name)?;
            }
            // The indexes over the columns go (their trees come back once
            // this commits: `reclaim.rs`) ...
            for index in &rebuilt {
                self.delete_index_class(txn, &index.name, index.oid, index.root)?;
            }
            // ... every row is written again under the new types, its old
            // version read as written, under the old ones ...
            let now = self.table(txn, table_name)?.ok_or_else(missing)?;
            let before = self.open_relation(table.clone())?;
            let relation = self.open_relation(now.clone())?;
            for (tid, values) in rows {
                relation.rewrite(txn, tid, &before, values)?;
            }
            // ... and the indexes come again, under their names, from the
            // new versions.
            for index in &rebuilt {
                self.build_index_over(
                    txn,
                    &now,
                    &index.name,
                    crate::catalog::IndexKeys::of(index),
                    IndexKind::of(index),
                )?;
            }
            Ok(())
        })?;
        // Kept by position, of values of the old types.
        self.forget_statistics(table.oid);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Proves an index or key is over a change exactly when one of its
    // columns changed.
    #[test]
    fn indexes_over_a_changed_column() {
        assert!(over(&[2, 0], &[0]));
        assert!(!over(&[1, 2], &[0, 3]));
        assert!(!over(&[], &[0]));
    }
}
