//! Temporary relations: the names that mark them, and their drop.
//!
//! A temporary table is an ordinary catalog table (same `folio.class`,
//! `folio.attribute` and `folio.constraint` rows, same heap and index
//! storage, WAL-logged like any) whose name is qualified by its session's
//! temporary namespace: `pg_temp_N.name`, the name SQL writes for it.
//! Its indexes and sequences carry the same prefix, so two sessions'
//! `t_pkey` do not collide in the unique name index. The SQL layer owns
//! which session has which `N` and how a bare name finds its own
//! temporary table first (folio-sql `temp_tables.rs`); the catalog owns
//! the form of the name and the drop of a namespace's tables, at a
//! session's end ([`Catalog::drop_temp_tables`] with its number) and when
//! a database opens (every namespace: what a crash or a killed session
//! left).

use crate::catalog::Catalog;
use crate::defs::{KIND_SEQUENCE, KIND_TABLE, KIND_VIEW};
use crate::error::CatalogError;
use folio_txn::Transaction;

/// The schema prefix of temporary namespaces (PostgreSQL's).
const PREFIX: &str = "pg_temp_";

/// The catalog name of relation `name` in temporary namespace `namespace`.
pub fn temp_name(namespace: u32, name: &str) -> String {
    format!("{PREFIX}{namespace}.{name}")
}

/// The namespace name `pg_temp_N` of number `namespace`.
pub fn temp_schema(namespace: u32) -> String {
    format!("{PREFIX}{namespace}")
}

/// The number `N` of a schema name `pg_temp_N` (`None` for any other).
pub fn temp_schema_number(schema: &str) -> Option<u32> {
    let digits = schema.strip_prefix(PREFIX)?;
    // Canonical digits only: `pg_temp_01` is no temporary namespace.
    if digits.is_empty() || (digits.len() > 1 && digits.starts_with('0')) {
        return None;
    }
    if !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

/// The namespace number and the bare name of a catalog name made by
/// [`temp_name`]; `None` for a permanent relation's name.
pub fn split_temp_name(stored: &str) -> Option<(u32, &str)> {
    let (schema, name) = stored.split_once('.')?;
    Some((temp_schema_number(schema)?, name))
}

/// The name a relation is shown by: its bare name, without its schema's
/// prefix (a temporary namespace's or a user schema's: `schemas.rs`).
pub fn unqualified(stored: &str) -> &str {
    crate::schemas::split_schema(stored).1
}

impl Catalog {
    /// A temporary namespace number no session holds (the lowest, from 1,
    /// as PostgreSQL's backend ids): the caller's until
    /// [`Catalog::release_temp_namespace`]. Leftovers in it are the
    /// caller's to drop.
    pub fn claim_temp_namespace(&self) -> u32 {
        let mut held = self.temp_namespaces.lock().expect("not poisoned");
        let n = (1..).find(|n| !held.contains(n)).expect("a free number");
        held.insert(n);
        n
    }

    /// Namespace `n` is free again (its tables dropped, or left to be).
    pub fn release_temp_namespace(&self, n: u32) {
        self.temp_namespaces
            .lock()
            .expect("not poisoned")
            .remove(&n);
    }

    /// Drops every temporary view, table and sequence of namespace
    /// `namespace` (`None`: of every namespace), the tables with their
    /// indexes and owned sequences, in `txn`; the number dropped. Views go first (they
    /// read the tables), a view another temporary view reads after it, a
    /// table another temporary table's foreign key references after it,
    /// and an inheritance parent or partitioned table after its children.
    pub fn drop_temp_tables(
        &self,
        txn: &mut Transaction,
        namespace: Option<u32>,
    ) -> Result<usize, CatalogError> {
        let views = self.drop_temp_views(txn, namespace)?;
        let mut left: Vec<String> = self
            .class_rows(txn)?
            .into_iter()
            .filter(|(_, c)| c.kind == KIND_TABLE)
            .filter_map(|(_, c)| {
                let (n, _) = split_temp_name(&c.name)?;
                namespace.is_none_or(|want| want == n).then_some(c.name)
            })
            .collect();
        let total = left.len();
        // Each round drops the tables no other temporary table references
        // and no table inherits from (a permanent one can do neither: the
        // SQL layer refuses it); a cycle of keys stops the rounds at
        // `total`, an error.
        for _ in 0..=total {
            if left.is_empty() {
                break;
            }
            let mut kept = Vec::new();
            for name in std::mem::take(&mut left) {
                let Some(table) = self.table(txn, &name)? else {
                    continue;
                };
                let referenced = table
                    .referenced_by
                    .iter()
                    .any(|fk| fk.table_oid != table.oid && split_temp_name(&fk.table).is_some());
                // A parent goes after its children and partitions (each
                // names it; dropped first, it would leave them naming a
                // missing table).
                let parent = !table.children.is_empty() || !table.partitions.is_empty();
                if referenced || parent {
                    kept.push(name);
                } else {
                    self.drop_table(txn, &name)?;
                }
            }
            left = kept;
            // The next round reads the catalog with this round's drops.
            txn.next_statement();
        }
        if let Some(name) = left.first() {
            return Err(CatalogError::Corrupt(format!(
                "temporary table \"{name}\" could not be dropped"
            )));
        }
        // The sequences left: those no table owned.
        let sequences: Vec<String> = self
            .class_rows(txn)?
            .into_iter()
            .filter(|(_, c)| c.kind == KIND_SEQUENCE)
            .filter_map(|(_, c)| {
                let (n, _) = split_temp_name(&c.name)?;
                namespace.is_none_or(|want| want == n).then_some(c.name)
            })
            .collect();
        for name in &sequences {
            self.drop_sequence(txn, name)?;
        }
        Ok(views + total + sequences.len())
    }

    /// The views of [`Catalog::drop_temp_tables`], readers first: each
    /// round drops the views no other view reads (a permanent view cannot
    /// read a temporary relation: the SQL layer refuses it).
    fn drop_temp_views(
        &self,
        txn: &mut Transaction,
        namespace: Option<u32>,
    ) -> Result<usize, CatalogError> {
        let mut left: Vec<(String, u64)> = self
            .class_rows(txn)?
            .into_iter()
            .filter(|(_, c)| c.kind == KIND_VIEW)
            .filter_map(|(_, c)| {
                let (n, _) = split_temp_name(&c.name)?;
                namespace
                    .is_none_or(|want| want == n)
                    .then_some((c.name, c.oid))
            })
            .collect();
        let total = left.len();
        for _ in 0..=total {
            if left.is_empty() {
                break;
            }
            let readers = self.readers(txn)?;
            let (read, free): (Vec<_>, Vec<_>) = std::mem::take(&mut left)
                .into_iter()
                .partition(|(_, oid)| readers.iter().any(|r| r.depends_on.contains(oid)));
            for (name, _) in free {
                self.drop_view(txn, &name)?;
            }
            left = read;
            txn.next_statement();
        }
        match left.first() {
            None => Ok(total),
            Some((name, _)) => Err(CatalogError::Corrupt(format!(
                "temporary view \"{name}\" could not be dropped"
            ))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn temp_names_round_trip_and_plain_names_are_not_temp() {
        let stored = temp_name(3, "t.x");
        assert_eq!(stored, "pg_temp_3.t.x");
        assert_eq!(split_temp_name(&stored), Some((3, "t.x")));
        assert_eq!(unqualified(&stored), "t.x");
        assert_eq!(split_temp_name("t"), None);
        assert_eq!(split_temp_name("pg_temp_.t"), None);
        assert_eq!(split_temp_name("pg_temp_03.t"), None);
        assert_eq!(split_temp_name("pg_temp_x.t"), None);
        assert_eq!(unqualified("public_t"), "public_t");
        assert_eq!(temp_schema_number("pg_temp_0"), Some(0));
    }
}
