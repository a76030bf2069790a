//! `REINDEX INDEX name` / `REINDEX TABLE name`: each index dropped and
//! built again from the table's rows by the one build of every index
//! (`Catalog::build_index_over`, as CREATE INDEX and a column type
//! change build them), under its name, columns, order and kind, in the
//! caller's transaction. The old tree's pages come back once the
//! transaction commits and its older readers end (`reclaim.rs`); the new
//! one's if it rolls back.
//!
//! Locks: the table's DDL lock and `ACCESS EXCLUSIVE` (PostgreSQL takes
//! `SHARE` on the table and `ACCESS EXCLUSIVE` on the index: its readers
//! of the table through other paths go on; folio's wait). Deviation: the
//! rebuilt index has a new oid (PostgreSQL keeps the oid and gives the
//! index a new file); its comment and clustered mark move with it.

use crate::catalog::{Catalog, IndexKind};
use crate::defs::IndexDef;
use crate::descriptions::Described;
use crate::error::CatalogError;
use folio_txn::{LockMode, Transaction};

impl Catalog {
    /// Rebuilds the indexes of table `table_name` (only index `only`, if
    /// given: 42704 if the table has no index of that name). Returns the
    /// rebuilt indexes' names, in the table's order.
    pub fn reindex(
        &self,
        txn: &mut Transaction,
        table_name: &str,
        only: Option<&str>,
    ) -> Result<Vec<String>, CatalogError> {
        self.reclaim(txn.manager())?;
        let table = self.lock_table(txn, table_name)?;
        self.lock_for_ddl(txn, table.oid, LockMode::AccessExclusive)?;
        txn.with_latest_snapshot(|txn| {
            let missing = || CatalogError::NoSuchRelation(table_name.to_string());
            let table = self.table(txn, table_name)?.ok_or_else(missing)?;
            let chosen: Vec<IndexDef> = (table.indexes.iter())
                .filter(|i| only.is_none_or(|name| i.name == name))
                .cloned()
                .collect();
            if let Some(name) = only
                && chosen.is_empty()
            {
                return Err(CatalogError::NoSuchIndex(name.to_string()));
            }
            let comments: Vec<_> = (self.descriptions(txn)?.into_iter())
                .filter(|d| chosen.iter().any(|i| i.oid == d.relation))
                .collect();
            self.in_savepoint(txn, |txn| {
                for index in &chosen {
                    self.delete_index_class(txn, &index.name, index.oid, index.root)?;
                    let rebuilt = self.build_index_over(
                        txn,
                        &table,
                        &index.name,
                        crate::catalog::IndexKeys::of(index),
                        IndexKind::of(index),
                    )?;
                    // The table's clustered index stays it (`indisclustered`).
                    if index.clustered {
                        self.repoint(txn, &rebuilt.name, rebuilt.oid, |class| {
                            class.clustered = true
                        })?;
                    }
                    for comment in comments.iter().filter(|d| d.relation == index.oid) {
                        let on = match comment.on {
                            // A key constraint's comment is on the index's oid.
                            Described::Constraint(_) => Described::Constraint(rebuilt.oid),
                            other => other,
                        };
                        self.put_description(txn, rebuilt.oid, on, &comment.text)?;
                    }
                }
                Ok(())
            })?;
            Ok(chosen.into_iter().map(|i| i.name).collect())
        })
    }
}
