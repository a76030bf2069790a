//! Giving a table new storage: `VACUUM FULL`, `CLUSTER`, `TRUNCATE` and
//! `ALTER TABLE ... SET LOGGED | UNLOGGED` (design, crash argument and
//! what other sessions see: this crate's README, "Rewriting a table" and
//! "Unlogged relations"). [`Catalog::rewrite_table`] is the one owner of
//! it; the clustered-index mark (`CLUSTER ... USING`, `ALTER
//! TABLE ... CLUSTER ON`, `SET WITHOUT CLUSTER`) is kept here too.
//!
//! Under the table's DDL lock and `ACCESS EXCLUSIVE`, in one savepoint
//! of the caller's transaction: a new page list (recorded as created, so
//! a rollback or a crash gives it back), the rows a snapshot taken now
//! sees copied into it (in an index's order for `CLUSTER`, none for
//! `TRUNCATE`) as versions of the caller's transaction, the table's
//! `folio.class` row pointed at it, the old page list recorded as
//! dropped, and each index given a new tree filled from the new rows
//! (its class row pointed at it, the old tree recorded as dropped). The
//! old storage stays whole for every snapshot that still sees the old
//! class row, and goes back to the free list once none can (`reclaim.rs`).

use crate::catalog::Catalog;
use crate::defs::{ClassRow, IndexDef, KIND_INDEX, KIND_TABLE, TableDef};
use crate::error::CatalogError;
use crate::persistence::Persistence;
use crate::toast::TOAST_OID;
use folio_txn::{LockMode, Transaction};

/// Which rows a table's new storage gets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refill<'a> {
    /// Every row, in the heap's order (`VACUUM FULL`).
    Rows,
    /// Every row, in the order of the named index of the table
    /// (`CLUSTER`).
    Ordered(&'a str),
    /// Every row, in the order of the table's clustered index (`CLUSTER`
    /// without an index; 42704 when it has none).
    Clustered,
    /// None (`TRUNCATE`).
    Empty,
}

/// Rows copied to the new heap per insert (each page's share one WAL
/// record: folio-heap `Table::insert_many`).
const COPY_BATCH_ROWS: usize = 512;

impl Catalog {
    /// Gives table (or materialized view) `name` new storage holding the
    /// rows `refill` asks for, in `txn`: the one rewrite of a table.
    /// Returns how many rows the new storage holds.
    pub fn rewrite_table(
        &self,
        txn: &mut Transaction,
        name: &str,
        refill: Refill<'_>,
    ) -> Result<u64, CatalogError> {
        self.rewrite(txn, name, refill, None)
    }

    /// `ALTER TABLE name SET LOGGED | SET UNLOGGED`: table `name` gets
    /// new storage of `persistence` holding its rows, its indexes with it
    /// (the rewrite of [`Catalog::rewrite_table`]; PostgreSQL rewrites
    /// too). Nothing is done for a table that has it already or for a
    /// partitioned table (which has no rows; PostgreSQL 15 keeps its mark
    /// too). A foreign key may not end up from a permanent table to an
    /// unlogged one ([`crate::persistence::check_change`]). Returns
    /// whether the table was rewritten.
    pub fn set_persistence(
        &self,
        txn: &mut Transaction,
        name: &str,
        persistence: Persistence,
    ) -> Result<bool, CatalogError> {
        let table = self.lock_table(txn, name)?;
        self.lock_for_ddl(txn, table.oid, LockMode::AccessExclusive)?;
        if Persistence::of(table.root) == persistence || table.partition_key().is_some() {
            return Ok(false);
        }
        self.check_change(txn, &table, persistence)?;
        self.rewrite(txn, name, Refill::Rows, Some(persistence))?;
        // Its sequences (serial, identity, OWNED BY) follow it, as
        // PostgreSQL 15's.
        for sequence in self.sequences(txn)? {
            if sequence.owner.map(|(oid, _)| oid) == Some(table.oid) {
                self.set_sequence_persistence(txn, &sequence.name, persistence)?;
            }
        }
        Ok(true)
    }

    /// [`Catalog::rewrite_table`] into storage of `persistence` (`None`:
    /// the table's own).
    fn rewrite(
        &self,
        txn: &mut Transaction,
        name: &str,
        refill: Refill<'_>,
        persistence: Option<Persistence>,
    ) -> Result<u64, CatalogError> {
        self.reclaim(txn.manager())?;
        let locked = self.lock_table(txn, name)?;
        self.lock_for_ddl(txn, locked.oid, LockMode::AccessExclusive)?;
        // Every committed row, whatever the caller's snapshot (REPEATABLE
        // READ's may be older than the last writer): writers are locked
        // out, so this is every row any later snapshot can see.
        txn.with_latest_snapshot(|txn| {
            let missing = || CatalogError::NoSuchRelation(name.to_string());
            let table = self.table(txn, name)?.ok_or_else(missing)?;
            let rows = match refill {
                Refill::Empty => Vec::new(),
                Refill::Rows => self.heap_rows(txn, &table)?,
                Refill::Ordered(index) => {
                    let position = cluster_index(&table, index)?;
                    self.rows_in_order(txn, &table, position)?
                }
                Refill::Clustered => {
                    let position = (table.indexes.iter().position(|i| i.clustered))
                        .ok_or_else(|| CatalogError::NoClusteredIndex(table.name.clone()))?;
                    self.rows_in_order(txn, &table, position)?
                }
            };
            let persistence = persistence.unwrap_or(Persistence::of(table.root));
            let root = self.create_pages(persistence)?;
            let renewed = TableDef {
                root,
                ..table.clone()
            };
            // The storages' own number in `folio.dropped` (PostgreSQL's
            // relfilenode): the table keeps its oid.
            let number = self.next_oid()?;
            self.in_savepoint(txn, |txn| {
                self.note_created(txn, number, KIND_TABLE, renewed.root)?;
                let heap = self.open_table(&renewed)?;
                for batch in rows.chunks(COPY_BATCH_ROWS) {
                    heap.insert_many(txn, batch)?;
                }
                self.repoint(txn, &table.name, table.oid, |class| {
                    class.root = renewed.root;
                })?;
                self.note_storage_dropped(txn, number, KIND_TABLE, table.root)?;
                for index in &table.indexes {
                    self.renew_index(txn, &renewed, index)?;
                }
                if refill == Refill::Empty {
                    // No row refers to its out-of-line values any more:
                    // they go as the rows' deleters would delete them
                    // (`toast.rs`), and its counts restart.
                    let chunks = self.toast.delete_table(txn, table.oid)?;
                    self.activity(TOAST_OID)
                        .dead
                        .fetch_add(chunks, std::sync::atomic::Ordering::Relaxed);
                    txn.count_truncate(table.oid);
                }
                Ok(())
            })?;
            Ok(rows.len() as u64)
        })
    }

    /// Marks index `index` (`None`: none) as table `table_name`'s
    /// clustered index, the one a later `CLUSTER` without an index uses;
    /// every other index of the table loses the mark (PostgreSQL's
    /// `indisclustered`). The index must suit `CLUSTER`
    /// ([`Catalog::rewrite_table`]'s errors).
    pub fn set_clustered_index(
        &self,
        txn: &mut Transaction,
        table_name: &str,
        index: Option<&str>,
    ) -> Result<(), CatalogError> {
        let table = self.lock_table(txn, table_name)?;
        self.lock_for_ddl(txn, table.oid, LockMode::AccessExclusive)?;
        if let Some(index) = index {
            cluster_index(&table, index)?;
        }
        self.in_savepoint(txn, |txn| {
            for i in &table.indexes {
                let clustered = index == Some(i.name.as_str());
                if i.clustered != clustered {
                    self.repoint(txn, &i.name, i.oid, |class| class.clustered = clustered)?;
                }
            }
            Ok(())
        })
    }

    /// `ALTER TABLE table_name ADD {UNIQUE | PRIMARY KEY} USING INDEX
    /// index`: the existing unique index `index` becomes the table's
    /// UNIQUE constraint or primary key ([`IndexDef::constraint`],
    /// [`IndexDef::primary`]), deferrable as given. The SQL layer checks
    /// first that the index may (folio-sql `key_from_index.rs`), makes a
    /// primary key's columns NOT NULL and renames the index.
    pub fn make_index_constraint(
        &self,
        txn: &mut Transaction,
        table_name: &str,
        index: &str,
        primary: bool,
        deferrable: crate::defs::Deferrable,
    ) -> Result<(), CatalogError> {
        let table = self.lock_table(txn, table_name)?;
        self.lock_for_ddl(txn, table.oid, LockMode::AccessExclusive)?;
        if primary && table.primary_key().is_some() {
            return Err(CatalogError::MultiplePrimaryKeys(table_name.to_string()));
        }
        let def = (table.indexes.iter().find(|i| i.name == index)).ok_or_else(|| {
            CatalogError::NoIndexForTable {
                index: index.to_string(),
                table: table.name.clone(),
            }
        })?;
        self.repoint(txn, &def.name, def.oid, |class| {
            class.constraint = true;
            class.primary = primary;
            class.deferrable = deferrable;
        })
    }

    /// The rows of `table` a snapshot of `txn` sees, as stored.
    fn heap_rows(&self, txn: &Transaction, table: &TableDef) -> Result<Vec<Vec<u8>>, CatalogError> {
        let mut rows = Vec::new();
        self.open_table(table)?.visit_rows(txn, |_, row| {
            rows.push(row.to_vec());
            Ok::<_, CatalogError>(true)
        })?;
        Ok(rows)
    }

    /// [`Catalog::heap_rows`] sorted by their keys in the table's index
    /// at `position` (rows of equal keys in the heap's order). The rows
    /// are sorted in memory (PostgreSQL's CLUSTER sorts on disk past
    /// `maintenance_work_mem`).
    fn rows_in_order(
        &self,
        txn: &Transaction,
        table: &TableDef,
        position: usize,
    ) -> Result<Vec<Vec<u8>>, CatalogError> {
        let relation = self.open_relation(table.clone())?;
        let index = &relation.indexes[position];
        let columns: Vec<usize> = (index.def.columns.iter())
            .map(|&c| usize::from(c))
            .collect();
        // Only the key's columns are decoded (an expression may read any).
        let reads = relation.reads(index.def.is_plain().then_some(&columns[..]));
        let mut keyed = Vec::new();
        relation.table.visit_rows(txn, |_, row| {
            let values = relation.decode_read(txn, row, &reads)?;
            // A partial index is refused (`cluster_index`): every row has
            // a key.
            let key = index.key(&values)?.unwrap_or_default();
            keyed.push((key, row.to_vec()));
            Ok::<_, CatalogError>(true)
        })?;
        keyed.sort_by(|a, b| a.0.cmp(&b.0));
        Ok(keyed.into_iter().map(|(_, row)| row).collect())
    }

    /// Gives `index` of `table` (the table's new definition) a new tree
    /// filled from the table's rows a snapshot of `txn` sees, its class
    /// row pointed at it and its old tree recorded as dropped: the index
    /// keeps its oid, name and marks (REINDEX gives it a new oid).
    fn renew_index(
        &self,
        txn: &mut Transaction,
        table: &TableDef,
        index: &IndexDef,
    ) -> Result<(), CatalogError> {
        // An index has its table's persistence.
        let (_, root) = self.create_index_tree(Persistence::of(table.root))?;
        let number = self.next_oid()?;
        self.note_created(txn, number, KIND_INDEX, root)?;
        self.repoint(txn, &index.name, index.oid, |class| {
            class.root = root;
            class.prefix_free = true;
        })?;
        self.note_storage_dropped(txn, number, KIND_INDEX, index.root)?;
        let renewed = IndexDef {
            root,
            prefix_free: true,
            ..index.clone()
        };
        let mut relation = self.open_relation(TableDef {
            indexes: vec![renewed],
            ..table.clone()
        })?;
        relation.indexes.truncate(1);
        relation.build_index(txn, 0, self.index_build_memory())
    }

    /// Updates the `folio.class` row of relation `name` (oid `oid`, its
    /// table locked by the caller) by `change`.
    pub(crate) fn repoint(
        &self,
        txn: &mut Transaction,
        name: &str,
        oid: u64,
        change: impl FnOnce(&mut ClassRow),
    ) -> Result<(), CatalogError> {
        let (tid, mut class) = self
            .class(txn, name)?
            .filter(|(_, c)| c.oid == oid)
            .ok_or_else(|| CatalogError::NoSuchRelation(name.to_string()))?;
        change(&mut class);
        self.update_class(txn, tid, &class)
    }
}

/// The position among `table`'s indexes of index `name`, if `CLUSTER`
/// may order the table by it: PostgreSQL's errors otherwise (42704 none
/// of that name on the table, 0A000 a partial one; the SQL layer tells
/// another table's index, 42809, from none). The one owner of that rule.
fn cluster_index(table: &TableDef, name: &str) -> Result<usize, CatalogError> {
    let position = (table.indexes.iter().position(|i| i.name == name)).ok_or_else(|| {
        CatalogError::NoIndexForTable {
            index: name.to_string(),
            table: table.name.clone(),
        }
    })?;
    if table.indexes[position].exprs.predicate.is_some() {
        return Err(CatalogError::PartialCluster(name.to_string()));
    }
    Ok(position)
}
