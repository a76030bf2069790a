//! Column defaults, CHECK constraints and foreign keys, stored as
//! `folio.constraint` rows (`defs.rs`) and changed by transactions like
//! every catalog row.
//!
//! - **Where a row is found.** `folio.constraint_table` indexes each row
//!   by its table's oid and, for a foreign key, also by the referenced
//!   table's oid: one lookup gives a table's own constraints and the
//!   foreign keys that reference it (`TableDef::constraints`,
//!   `TableDef::referenced_by`).
//! - **Locks.** Adding or dropping a constraint takes the table's DDL lock
//!   and `ACCESS EXCLUSIVE` on it; a foreign key also takes the referenced
//!   table's DDL lock and `SHARE` on it (its writers wait, so the rows the
//!   caller validates against cannot change meanwhile), and marks both
//!   tables changed (`currency.rs`), so writers of either read them again
//!   and learn of the key.
//! - **What the catalog checks**: names (42710 taken), the referenced
//!   columns (a unique index over exactly them, 42830; the primary key when
//!   none are named, 42704 if there is none), matching arity (42830) and
//!   comparable types (42804). It does not evaluate expressions nor check
//!   rows: the SQL layer validates existing rows after adding a CHECK or a
//!   foreign key, in the same transaction (folio-sql `constraints.rs`).

use crate::catalog::Catalog;
use crate::defs::{
    ClassRow, ConstraintDef, ConstraintKind, Deferrable, ForeignKey, IndexDef, TableDef,
};
use crate::error::CatalogError;
use folio_heap::Tid;
use folio_row::SqlType;
use folio_txn::{LockMode, Transaction};

/// What `add_foreign_key` is asked for, by column names.
#[derive(Debug, Clone)]
pub struct ForeignKeyRequest<'a> {
    pub name: &'a str,
    pub columns: &'a [String],
    pub ref_table: &'a str,
    /// `None`: the referenced table's primary key.
    pub ref_columns: Option<&'a [String]>,
    pub on_delete: crate::defs::RefAction,
    pub on_update: crate::defs::RefAction,
    pub deferrable: Deferrable,
    /// `MATCH FULL` (else `MATCH SIMPLE`).
    pub match_full: bool,
    /// `ON DELETE SET NULL / SET DEFAULT (columns)`: some of `columns`
    /// (empty: all). The caller has checked they are key columns.
    pub set_columns: &'a [String],
}

impl Catalog {
    /// Adds a column default or a CHECK constraint to table `table_name`
    /// (the caller has bound the expression against the table and, for a
    /// CHECK on a table with rows, validates them).
    pub fn add_constraint(
        &self,
        txn: &mut Transaction,
        table_name: &str,
        name: &str,
        kind: ConstraintKind,
    ) -> Result<ConstraintDef, CatalogError> {
        assert!(
            !matches!(kind, ConstraintKind::ForeignKey(_)),
            "foreign keys are added by add_foreign_key"
        );
        let table = self.lock_table(txn, table_name)?;
        self.lock_for_ddl(txn, table.oid, LockMode::AccessExclusive)?;
        self.insert_constraint(txn, &table, name, kind, Deferrable::No)
    }

    /// Makes table `table_name` a partition of table `parent_oid` with
    /// bound `bound` (PostgreSQL's text), or, `parent_oid` `None`, records
    /// its partition key (`Partition::Key`); a partition locks its parent
    /// too, whose writers then read it again and learn of the partition.
    pub fn add_partition(
        &self,
        txn: &mut Transaction,
        table_name: &str,
        partition: crate::defs::Partition,
    ) -> Result<ConstraintDef, CatalogError> {
        let table = self.lock_table(txn, table_name)?;
        self.lock_for_ddl(txn, table.oid, LockMode::AccessExclusive)?;
        if let crate::defs::Partition::Of { parent_oid, .. } = &partition {
            self.lock_for_ddl(txn, *parent_oid, LockMode::AccessExclusive)?;
        }
        let kind = ConstraintKind::Partition(partition);
        self.insert_constraint(txn, &table, "", kind, Deferrable::No)
    }

    /// Table `table_name` becomes an inheritance child of table
    /// `parent_oid`, `seqno` its place among its parents (folio-sql README
    /// "Table inheritance"); both are locked, so their readers plan again.
    pub fn add_inheritance(
        &self,
        txn: &mut Transaction,
        table_name: &str,
        parent_oid: u64,
        seqno: u16,
    ) -> Result<ConstraintDef, CatalogError> {
        let table = self.lock_table(txn, table_name)?;
        self.lock_for_ddl(txn, table.oid, LockMode::AccessExclusive)?;
        self.lock_for_ddl(txn, parent_oid, LockMode::AccessExclusive)?;
        let kind = ConstraintKind::Partition(crate::defs::Partition::Inherits {
            parent_oid,
            parent: String::new(),
            seqno,
        });
        self.insert_constraint(txn, &table, "", kind, Deferrable::No)
    }

    /// Table `table_name` stops inheriting from table `parent_oid`
    /// (`ALTER TABLE ... NO INHERIT`); false if it did not.
    pub fn remove_inheritance(
        &self,
        txn: &mut Transaction,
        table_name: &str,
        parent_oid: u64,
    ) -> Result<bool, CatalogError> {
        let table = self.lock_table(txn, table_name)?;
        self.lock_for_ddl(txn, table.oid, LockMode::AccessExclusive)?;
        let mut removed = false;
        for (tid, c) in self.constraint_rows(txn, table.oid)? {
            if c.table_oid == table.oid
                && let ConstraintKind::Partition(crate::defs::Partition::Inherits {
                    parent_oid: p,
                    ..
                }) = c.kind
                && p == parent_oid
            {
                self.lock_for_ddl(txn, parent_oid, LockMode::AccessExclusive)?;
                self.in_savepoint(txn, |txn| {
                    self.constraints.delete(txn, tid)?;
                    Ok(())
                })?;
                removed = true;
            }
        }
        Ok(removed)
    }

    /// Table `table_name` stops being a partition (`DETACH PARTITION`).
    pub fn remove_partition(
        &self,
        txn: &mut Transaction,
        table_name: &str,
    ) -> Result<(), CatalogError> {
        let table = self.lock_table(txn, table_name)?;
        self.lock_for_ddl(txn, table.oid, LockMode::AccessExclusive)?;
        for (tid, c) in self.constraint_rows(txn, table.oid)? {
            if c.table_oid == table.oid
                && let ConstraintKind::Partition(crate::defs::Partition::Of { parent_oid, .. }) =
                    c.kind
            {
                self.lock_for_ddl(txn, parent_oid, LockMode::AccessExclusive)?;
                self.in_savepoint(txn, |txn| {
                    self.constraints.delete(txn, tid)?;
                    Ok(())
                })?;
            }
        }
        Ok(())
    }

    /// `FOREIGN KEY (columns) REFERENCES ref_table [(ref_columns)]` on
    /// table `table_name`. The caller validates the rows already there.
    pub fn add_foreign_key(
        &self,
        txn: &mut Transaction,
        table_name: &str,
        request: &ForeignKeyRequest<'_>,
    ) -> Result<ConstraintDef, CatalogError> {
        let table = self.lock_table(txn, table_name)?;
        self.lock_for_ddl(txn, table.oid, LockMode::AccessExclusive)?;
        let parent = if request.ref_table == table_name {
            table.clone()
        } else {
            let parent = self.lock_table(txn, request.ref_table)?;
            if parent.matview.is_some() {
                return Err(CatalogError::ReferencedNotATable(parent.name));
            }
            self.lock_for_ddl(txn, parent.oid, LockMode::Share)?;
            parent
        };
        Self::check_reference(&table, &parent)?;
        let position = |def: &TableDef, column: &String| {
            def.column(column)
                .map(|p| p as u16)
                .ok_or_else(|| CatalogError::NoSuchColumn {
                    table: def.name.clone(),
                    column: column.clone(),
                })
        };
        let columns = request
            .columns
            .iter()
            .map(|c| position(&table, c))
            .collect::<Result<Vec<u16>, _>>()?;
        let ref_columns = match request.ref_columns {
            Some(names) => {
                let positions = names
                    .iter()
                    .map(|c| position(&parent, c))
                    .collect::<Result<Vec<u16>, _>>()?;
                if positions.len() != columns.len() {
                    return Err(CatalogError::KeyArity);
                }
                if !parent.indexes.iter().any(|i| i.serves_key(&positions)) {
                    // One that would but for `DEFERRABLE` has PostgreSQL's
                    // own error.
                    let deferrable = (parent.indexes.iter()).any(|i| {
                        i.deferrable.is_deferrable()
                            && IndexDef {
                                deferrable: Deferrable::No,
                                ..i.clone()
                            }
                            .serves_key(&positions)
                    });
                    return Err(match deferrable {
                        true => CatalogError::DeferrableReferenced {
                            primary: false,
                            table: parent.name.clone(),
                        },
                        false => CatalogError::NoMatchingUnique(parent.name.clone()),
                    });
                }
                positions
            }
            None => {
                let key = parent
                    .primary_key()
                    .ok_or_else(|| CatalogError::NoPrimaryKey(parent.name.clone()))?;
                if key.deferrable.is_deferrable() {
                    return Err(CatalogError::DeferrableReferenced {
                        primary: true,
                        table: parent.name.clone(),
                    });
                }
                if key.columns.len() != columns.len() {
                    return Err(CatalogError::KeyArity);
                }
                key.columns.clone()
            }
        };
        check_key_types(request.name, &table, &columns, &parent, &ref_columns)?;
        let set_columns = (request.set_columns.iter())
            .map(|c| position(&table, c))
            .collect::<Result<Vec<u16>, _>>()?;
        let kind = ConstraintKind::ForeignKey(ForeignKey {
            columns,
            ref_table_oid: parent.oid,
            ref_table: parent.name.clone(),
            ref_columns,
            on_delete: request.on_delete,
            on_update: request.on_update,
            match_full: request.match_full,
            set_columns,
        });
        self.insert_constraint(txn, &table, request.name, kind, request.deferrable)
    }

    /// `ALTER TABLE table_name ALTER COLUMN column SET DEFAULT expr` (or,
    /// with `None`, `DROP DEFAULT`): the column's default row replaced.
    pub fn set_default(
        &self,
        txn: &mut Transaction,
        table_name: &str,
        column: &str,
        expr: Option<String>,
    ) -> Result<(), CatalogError> {
        let table = self.lock_table(txn, table_name)?;
        self.lock_for_ddl(txn, table.oid, LockMode::AccessExclusive)?;
        let position = column_position(&table, table_name, column)?;
        let old: Vec<Tid> = self
            .constraint_rows(txn, table.oid)?
            .into_iter()
            .filter(|(_, c)| {
                c.table_oid == table.oid
                    && matches!(c.kind, ConstraintKind::Default { column, .. } if column == position)
            })
            .map(|(tid, _)| tid)
            .collect();
        self.in_savepoint(txn, |txn| {
            for tid in old {
                self.constraints.delete(txn, tid)?;
            }
            Ok(())
        })?;
        if let Some(expr) = expr {
            let kind = ConstraintKind::Default {
                column: position,
                expr,
            };
            self.insert_constraint(txn, &table, "", kind, Deferrable::No)?;
        }
        Ok(())
    }

    /// `ALTER TABLE table_name RENAME CONSTRAINT old TO new`: a CHECK or
    /// FOREIGN KEY constraint's row renamed, or a PRIMARY KEY or UNIQUE
    /// constraint's index (which it is in folio, as PostgreSQL renames a
    /// key constraint's index with it: 42P07 if a relation has the name).
    /// 42710 if another constraint of the table has the name, 42704 if
    /// none has the old one.
    /// Marks CHECK or foreign key `name` of table `table_name` validated
    /// or not (`ADD ... NOT VALID`, `VALIDATE CONSTRAINT`; the caller
    /// checks the rows), under the table's DDL lock. 42704 if the table
    /// has no such constraint.
    pub fn set_constraint_validated(
        &self,
        txn: &mut Transaction,
        table_name: &str,
        name: &str,
        validated: bool,
    ) -> Result<(), CatalogError> {
        self.change_constraint(txn, table_name, name, |def| def.validated = validated)
    }

    /// Marks CHECK `name` of table `table_name` declared by the table
    /// (`local`) or only inherited (PostgreSQL's `conislocal`; folio-sql
    /// README "Table inheritance"), under the table's DDL lock. 42704 if
    /// the table has no such constraint.
    pub fn set_constraint_local(
        &self,
        txn: &mut Transaction,
        table_name: &str,
        name: &str,
        local: bool,
    ) -> Result<(), CatalogError> {
        self.change_constraint(txn, table_name, name, |def| def.local = local)
    }

    /// Marks CHECK `name` of table `table_name` `NO INHERIT` (PostgreSQL's
    /// `connoinherit`: children do not receive it), under the table's DDL
    /// lock. 42704 if the table has no such constraint.
    pub fn set_constraint_no_inherit(
        &self,
        txn: &mut Transaction,
        table_name: &str,
        name: &str,
        no_inherit: bool,
    ) -> Result<(), CatalogError> {
        self.change_constraint(txn, table_name, name, |def| def.no_inherit = no_inherit)
    }

    /// Constraint `name` of table `table_name` passed through `change`
    /// and saved where it changed, under the table's DDL lock.
    fn change_constraint(
        &self,
        txn: &mut Transaction,
        table_name: &str,
        name: &str,
        change: impl FnOnce(&mut ConstraintDef),
    ) -> Result<(), CatalogError> {
        let table = self.lock_table(txn, table_name)?;
        self.lock_for_ddl(txn, table.oid, LockMode::AccessExclusive)?;
        let (tid, mut def) = (self.constraint_rows(txn, table.oid)?.into_iter())
            .find(|(_, c)| c.table_oid == table.oid && !c.name.is_empty() && c.name == name)
            .ok_or_else(|| CatalogError::NoSuchConstraint {
                table: table_name.to_string(),
                name: name.to_string(),
            })?;
        let before = def.clone();
        change(&mut def);
        if def == before {
            return Ok(());
        }
        self.update_constraint(txn, tid, &def)
    }

    pub fn rename_constraint(
        &self,
        txn: &mut Transaction,
        table_name: &str,
        old: &str,
        new: &str,
    ) -> Result<(), CatalogError> {
        crate::catalog::check_name(new)?;
        let table = self.lock_table(txn, table_name)?;
        self.lock_for_ddl(txn, table.oid, LockMode::AccessExclusive)?;
        let bare = |name: &str| crate::temp::unqualified(name).to_string();
        let keys = || table.indexes.iter().filter(|i| i.constraint);
        let taken = table
            .constraints
            .iter()
            .any(|c| !c.name.is_empty() && c.name == new)
            || keys().any(|i| bare(&i.name) == new);
        let found = table
            .constraints
            .iter()
            .any(|c| !c.name.is_empty() && c.name == old)
            || keys().any(|i| bare(&i.name) == old);
        if !found {
            return Err(CatalogError::NoSuchConstraint {
                table: table_name.to_string(),
                name: old.to_string(),
            });
        }
        if taken {
            return Err(CatalogError::ConstraintExists {
                table: crate::temp::unqualified(table_name).to_string(),
                name: new.to_string(),
            });
        }
        if let Some(index) = keys().find(|i| bare(&i.name) == old) {
            // The index is named in the table's namespace.
            let renamed = crate::schemas::in_schema_of(&index.name, new);
            return self.rename(txn, &index.name, &renamed);
        }
        let (tid, mut def) = (self.constraint_rows(txn, table.oid)?.into_iter())
            .find(|(_, c)| c.table_oid == table.oid && c.name == old)
            .ok_or_else(|| CatalogError::NoSuchConstraint {
                table: table_name.to_string(),
                name: old.to_string(),
            })?;
        def.name = new.to_string();
        self.update_constraint(txn, tid, &def)
    }

    /// `ALTER TABLE table_name ALTER CONSTRAINT name [NOT] DEFERRABLE
    /// [INITIALLY ...]`: foreign key `name` of the table becomes
    /// `deferrable` (a durable change of its row). Returns whether the
    /// constraint exists and is a foreign key: `Ok(false)` for another
    /// kind (a CHECK, a key, ...), which the caller reports as
    /// PostgreSQL's 42809; 42704 for no constraint of that name.
    pub fn alter_foreign_key_deferrable(
        &self,
        txn: &mut Transaction,
        table_name: &str,
        name: &str,
        deferrable: Deferrable,
    ) -> Result<bool, CatalogError> {
        let table = self.lock_table(txn, table_name)?;
        self.lock_for_ddl(txn, table.oid, LockMode::AccessExclusive)?;
        let bare = |name: &str| crate::temp::unqualified(name).to_string();
        let found = (self.constraint_rows(txn, table.oid)?.into_iter())
            .find(|(_, c)| c.table_oid == table.oid && !c.name.is_empty() && c.name == name);
        let Some((tid, mut def)) = found else {
            let key = (table.indexes.iter()).any(|i| i.constraint && bare(&i.name) == name);
            return match key {
                true => Ok(false),
                false => Err(CatalogError::NoSuchConstraint {
                    table: table_name.to_string(),
                    name: name.to_string(),
                }),
            };
        };
        if !matches!(def.kind, ConstraintKind::ForeignKey(_)) {
            return Ok(false);
        }
        def.deferrable = deferrable;
        self.update_constraint(txn, tid, &def)?;
        Ok(true)
    }

    /// `ALTER TABLE table_name ALTER COLUMN column DROP EXPRESSION`: the
    /// column's generation expression goes, its stored values stay (it
    /// becomes an ordinary column). Whether it had one (the caller reports
    /// PostgreSQL's error or notice when not).
    pub fn drop_expression(
        &self,
        txn: &mut Transaction,
        table_name: &str,
        column: &str,
    ) -> Result<bool, CatalogError> {
        let table = self.lock_table(txn, table_name)?;
        self.lock_for_ddl(txn, table.oid, LockMode::AccessExclusive)?;
        let position = column_position(&table, table_name, column)?;
        let found: Vec<Tid> = (self.constraint_rows(txn, table.oid)?.into_iter())
            .filter(|(_, c)| {
                c.table_oid == table.oid
                    && matches!(c.kind, ConstraintKind::Generated { column, .. } if column == position)
            })
            .map(|(tid, _)| tid)
            .collect();
        self.in_savepoint(txn, |txn| {
            for &tid in &found {
                self.constraints.delete(txn, tid)?;
            }
            Ok(())
        })?;
        Ok(!found.is_empty())
    }

    /// `ALTER TABLE table_name DROP CONSTRAINT name` (also what `DROP
    /// TABLE ... CASCADE` does to the foreign keys that reference a dropped
    /// table). A foreign key's referenced table is locked and marked too.
    /// A primary key or UNIQUE constraint is the table's unique index of
    /// that name, dropped by `drop_index`; a unique index made by `CREATE
    /// UNIQUE INDEX` is dropped the same way (PostgreSQL refuses, knowing
    /// it made no constraint; folio does not record which made it).
    pub fn drop_constraint(
        &self,
        txn: &mut Transaction,
        table_name: &str,
        name: &str,
    ) -> Result<(), CatalogError> {
        let table = self.lock_table(txn, table_name)?;
        self.lock_for_ddl(txn, table.oid, LockMode::AccessExclusive)?;
        let missing = || CatalogError::NoSuchConstraint {
            table: table_name.to_string(),
            name: name.to_string(),
        };
        let Some((tid, def)) = self
            .constraint_rows(txn, table.oid)?
            .into_iter()
            .find(|(_, c)| c.table_oid == table.oid && !c.name.is_empty() && c.name == name)
        else {
            // A primary key or UNIQUE constraint is its unique index (no
            // constraint row): dropping the constraint drops the index, as
            // PostgreSQL's does (refused while a foreign key needs it).
            if !table.indexes.iter().any(|i| i.constraint && i.name == name) {
                return Err(missing());
            }
            return match self.remove_index(txn, name, true) {
                Err(CatalogError::IndexNeeded {
                    index,
                    constraint,
                    table,
                    ..
                }) => Err(CatalogError::IndexNeeded {
                    index,
                    as_constraint_of: Some(table_name.to_string()),
                    constraint,
                    table,
                }),
                other => other,
            };
        };
        if let Some(parent) = def.references()
            && parent != table.oid
        {
            self.lock_for_ddl(txn, parent, LockMode::Share)?;
        }
        self.in_savepoint(txn, |txn| {
            self.drop_descriptions(txn, table.oid, |d| {
                d == crate::Described::Constraint(def.oid)
            })?;
            self.constraints.delete(txn, tid)?;
            Ok(())
        })
    }

    /// Replaces the `folio.constraint` row at `tid` (its table locked by
    /// the caller) by `def`, its index entries renewed when the new
    /// version left the page.
    pub(crate) fn update_constraint(
        &self,
        txn: &mut Transaction,
        tid: Tid,
        def: &ConstraintDef,
    ) -> Result<(), CatalogError> {
        self.in_savepoint(txn, |txn| {
            match self.constraints.update(txn, tid, &def.encode(), false)? {
                folio_heap::Write::Hot(_) | folio_heap::Write::Done(None) => Ok(()),
                folio_heap::Write::Done(Some(new_tid)) => {
                    let mut oids = vec![def.table_oid];
                    oids.extend(def.indexed_under().filter(|&r| r != def.table_oid));
                    for oid in oids {
                        self.constraint_tables.insert(
                            txn,
                            &self.constraints,
                            &oid.to_be_bytes(),
                            new_tid,
                        )?;
                    }
                    Ok(())
                }
                other => Err(crate::catalog::corrupt(format!(
                    "constraint \"{}\": its locked catalog row could not be updated ({other:?})",
                    def.name
                ))),
            }
        })
    }

    /// Inserts a `folio.constraint` row for `table` (locked by the caller),
    /// indexed by its oid and the referenced table's.
    fn insert_constraint(
        &self,
        txn: &mut Transaction,
        table: &TableDef,
        name: &str,
        kind: ConstraintKind,
        deferrable: Deferrable,
    ) -> Result<ConstraintDef, CatalogError> {
        crate::catalog::check_name(name)?;
        let named = !name.is_empty();
        // (A key constraint's index carries its name.)
        let key_named =
            |i: &crate::IndexDef| i.constraint && crate::temp::unqualified(&i.name) == name;
        if named
            && (table.constraints.iter().any(|c| c.name == name)
                || table.indexes.iter().any(key_named))
        {
            return Err(CatalogError::ConstraintExists {
                table: crate::temp::unqualified(&table.name).to_string(),
                name: name.to_string(),
            });
        }
        let def = ConstraintDef {
            local: true,
            no_inherit: false,
            oid: self.next_oid()?,
            name: name.to_string(),
            table_oid: table.oid,
            table: table.name.clone(),
            kind,
            validated: true,
            deferrable,
        };
        self.in_savepoint(txn, |txn| {
            let tid = self.constraints.insert(txn, &def.encode())?;
            let mut oids = vec![def.table_oid];
            oids.extend(def.indexed_under().filter(|&r| r != def.table_oid));
            for oid in oids {
                self.constraint_tables
                    .insert(txn, &self.constraints, &oid.to_be_bytes(), tid)?;
            }
            Ok(())
        })?;
        Ok(def)
    }

    /// The `folio.constraint` rows `txn` sees that name table `oid`, as
    /// its own or as the referenced table.
    pub(crate) fn constraint_rows(
        &self,
        txn: &Transaction,
        oid: u64,
    ) -> Result<Vec<(Tid, ConstraintDef)>, CatalogError> {
        self.constraint_tables
            .get(txn, &self.constraints, &oid.to_be_bytes())?
            .into_iter()
            .map(|(tid, bytes)| {
                let def = ConstraintDef::decode(&bytes).map_err(CatalogError::Corrupt)?;
                Ok((tid, def))
            })
            .collect()
    }

    /// Table `oid`'s own constraints and the foreign keys referencing it,
    /// in creation order, with the tables' names filled in from `classes`.
    pub(crate) fn constraints_of(
        &self,
        txn: &Transaction,
        oid: u64,
        classes: &[(Tid, ClassRow)],
    ) -> Result<ConstraintsOf, CatalogError> {
        let name_of = |oid: u64| {
            classes
                .iter()
                .find(|(_, c)| c.has_heap() && c.oid == oid)
                .map(|(_, c)| c.name.clone())
                .ok_or_else(|| {
                    CatalogError::Corrupt(format!("a constraint names missing table {oid}"))
                })
        };
        let mut rows: Vec<ConstraintDef> = self
            .constraint_rows(txn, oid)?
            .into_iter()
            .map(|(_, c)| c)
            .collect();
        rows.sort_by_key(|c| c.oid);
        let (mut own, mut referencing) = (Vec::new(), Vec::new());
        let (mut partitions, mut children) = (Vec::new(), Vec::new());
        for mut c in rows {
            if c.table_oid != oid {
                match c.kind {
                    ConstraintKind::Partition(crate::defs::Partition::Of { .. }) => {
                        partitions.push((c.table_oid, name_of(c.table_oid)?));
                        continue;
                    }
                    ConstraintKind::Partition(crate::defs::Partition::Inherits { .. }) => {
                        children.push((c.table_oid, name_of(c.table_oid)?));
                        continue;
                    }
                    _ => {}
                }
            }
            c.table = name_of(c.table_oid)?;
            if let ConstraintKind::ForeignKey(fk) = &mut c.kind {
                fk.ref_table = name_of(fk.ref_table_oid)?;
            }
            if let ConstraintKind::Partition(
                crate::defs::Partition::Of {
                    parent_oid, parent, ..
                }
                | crate::defs::Partition::Inherits {
                    parent_oid, parent, ..
                },
            ) = &mut c.kind
            {
                *parent = name_of(*parent_oid)?;
            }
            if c.references() == Some(oid) {
                referencing.push(c.clone());
            }
            if c.table_oid == oid {
                own.push(c);
            }
        }
        Ok(ConstraintsOf {
            own,
            referencing,
            partitions,
            children,
        })
    }
}

/// A table's own constraints, the foreign keys that reference it, its
/// partitions and its inheritance children (oid, name).
pub(crate) struct ConstraintsOf {
    pub own: Vec<ConstraintDef>,
    pub referencing: Vec<ConstraintDef>,
    pub partitions: Vec<(u64, String)>,
    pub children: Vec<(u64, String)>,
}

/// Foreign key `name` over `columns` of `table` may reference
/// `ref_columns` of `parent`: each pair of columns [`comparable`], 42804
/// with PostgreSQL's DETAIL otherwise (adding the key, and changing the
/// type of a column of one: `alter_type.rs`).
pub(crate) fn check_key_types(
    name: &str,
    table: &TableDef,
    columns: &[u16],
    parent: &TableDef,
    ref_columns: &[u16],
) -> Result<(), CatalogError> {
    for (&c, &r) in columns.iter().zip(ref_columns) {
        let (child, referenced) = (
            &table.columns[usize::from(c)],
            &parent.columns[usize::from(r)],
        );
        // A domain's column compares as its base type.
        let (a, b) = (
            table.column_type(usize::from(c)),
            parent.column_type(usize::from(r)),
        );
        if !comparable(a, b) {
            let name_of =
                |t: Option<SqlType>| t.map_or_else(|| "unknown".to_string(), SqlType::name);
            return Err(CatalogError::IncompatibleKeys {
                name: name.to_string(),
                detail: format!(
                    "Key columns \"{}\" and \"{}\" are of incompatible types: {} and {}.",
                    child.name,
                    referenced.name,
                    name_of(a),
                    name_of(b)
                ),
            });
        }
    }
    Ok(())
}

/// Whether a foreign key column of type `a` may reference one of type `b`
/// (PostgreSQL asks for an equality operator of the unique index's
/// operator family taking `a`, or an implicit cast from `a` to `b`: the
/// integer types among themselves, the character types among themselves,
/// the floats among themselves, an integer referencing a numeric or a
/// float, a numeric referencing a float; else the same type. A numeric
/// may not reference an integer).
fn comparable(a: Option<SqlType>, b: Option<SqlType>) -> bool {
    let (Some(a), Some(b)) = (a, b) else {
        return false;
    };
    let family = |t: SqlType| match t {
        SqlType::Int2 | SqlType::Int4 | SqlType::Int8 => 1,
        SqlType::Text | SqlType::Varchar(_) | SqlType::Char(_) => 2,
        SqlType::Float4 | SqlType::Float8 => 3,
        SqlType::Numeric(_) => 4,
        _ => 0,
    };
    let widens = matches!((family(a), family(b)), (1, 3 | 4) | (4, 3));
    a.oid() == b.oid() || (family(a) != 0 && family(a) == family(b)) || widens
}

/// The position of `column` of `table` (called `table_name`), or 42703.
fn column_position(table: &TableDef, table_name: &str, column: &str) -> Result<u16, CatalogError> {
    table
        .column(column)
        .map(|p| p as u16)
        .ok_or_else(|| CatalogError::NoSuchColumn {
            table: table_name.to_string(),
            column: column.to_string(),
        })
}
