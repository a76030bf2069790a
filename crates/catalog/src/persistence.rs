//! Unlogged relations (`CREATE UNLOGGED TABLE`, PostgreSQL's
//! `relpersistence = 'u'`): where a relation's storage lives, and the
//! reset of every unlogged relation after a crash (design and crash
//! argument: this crate's README, "Unlogged relations").
//!
//! An unlogged table and its indexes live in a buffer pool of their own
//! over a file of its own (folio-db `UNLOGGED_FILE`), with no WAL: no
//! record is written for their pages or their allocations. The catalog
//! rows naming them are ordinary logged rows. A stored root (a class
//! row's `root`, a `folio.dropped` entry's) says which pool it is in by
//! one bit, [`UNLOGGED_ROOT`]: [`Persistence::of`] is the one rule, and
//! [`Catalog::pool_of`] / [`Catalog::wal_of`] the one place a root's pool
//! and WAL are chosen. A table's indexes share its persistence.
//!
//! After a crash the unlogged file is not trusted (its pages were written
//! without the WAL rule and may be torn or stale): the database creates
//! it afresh and [`Catalog::reset_unlogged`] gives every unlogged relation
//! new empty storage there, as PostgreSQL copies each unlogged relation's
//! init fork over its main fork at the end of recovery.

use crate::catalog::Catalog;
use crate::defs::{ConstraintKind, IndexDef, KIND_INDEX, KIND_TABLE, TableDef};
use crate::error::CatalogError;
use folio_btree::{KeyForm, MultiTree, Tree};
use folio_buffer::BufferPool;
use folio_page::PageId;
use folio_txn::Transaction;
use folio_wal::Wal;
use std::sync::Arc;

/// The bit of a stored root that places it in the unlogged pool (page ids
/// of a pool stay far below it: `max_database_bytes` bounds them).
pub const UNLOGGED_ROOT: u64 = 1 << 62;

/// Whether a relation's changes are logged.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Persistence {
    /// Logged, kept through a crash.
    Permanent,
    /// Not logged; emptied by a crash, kept through a clean restart.
    Unlogged,
}

impl Persistence {
    /// The persistence of the relation whose stored root is `root`.
    pub fn of(root: PageId) -> Persistence {
        match root.0 & UNLOGGED_ROOT {
            0 => Persistence::Permanent,
            _ => Persistence::Unlogged,
        }
    }

    /// PostgreSQL's `relpersistence` letter (`t`, temporary, is a name's
    /// business: folio-sql `temp_tables.rs`).
    pub fn code(self) -> char {
        match self {
            Persistence::Permanent => 'p',
            Persistence::Unlogged => 'u',
        }
    }

    /// The stored form of a root its pool calls `native`.
    pub fn stored(self, native: PageId) -> PageId {
        match self {
            Persistence::Permanent => native,
            Persistence::Unlogged => PageId(native.0 | UNLOGGED_ROOT),
        }
    }
}

/// The page id a stored root has in its own pool.
pub fn native(root: PageId) -> PageId {
    PageId(root.0 & !UNLOGGED_ROOT)
}

impl Catalog {
    /// The pool of relations of `persistence`.
    pub(crate) fn pool_for(&self, persistence: Persistence) -> &Arc<BufferPool> {
        match persistence {
            Persistence::Permanent => &self.pool,
            Persistence::Unlogged => &self.unlogged_pool,
        }
    }

    /// Where changes of relations of `persistence` are logged (`None`:
    /// nowhere).
    pub(crate) fn wal_for(&self, persistence: Persistence) -> Option<Arc<Wal>> {
        match persistence {
            Persistence::Permanent => Some(self.wal.clone()),
            Persistence::Unlogged => None,
        }
    }

    /// The pool of the relation whose stored root is `root`.
    pub(crate) fn pool_of(&self, root: PageId) -> &Arc<BufferPool> {
        self.pool_for(Persistence::of(root))
    }

    /// Where changes of the relation whose stored root is `root` are
    /// logged.
    pub(crate) fn wal_of(&self, root: PageId) -> Option<Arc<Wal>> {
        self.wal_for(Persistence::of(root))
    }

    /// A new, empty page list (a table's storage) of `persistence`; its
    /// stored root.
    pub(crate) fn create_pages(&self, persistence: Persistence) -> Result<PageId, CatalogError> {
        let pool = self.pool_for(persistence).clone();
        let tree = Tree::create_logged(pool, self.wal_for(persistence))?;
        Ok(persistence.stored(tree.root()))
    }

    /// The page list whose stored root is `root`.
    pub(crate) fn open_pages(&self, root: PageId) -> Result<Tree, CatalogError> {
        let pool = self.pool_of(root).clone();
        Ok(Tree::open_logged(pool, native(root), self.wal_of(root))?)
    }

    /// A new, empty index tree (prefix-free keys) of `persistence`: the
    /// tree and its stored root.
    pub(crate) fn create_index_tree(
        &self,
        persistence: Persistence,
    ) -> Result<(MultiTree, PageId), CatalogError> {
        let pool = self.pool_for(persistence).clone();
        let tree = MultiTree::create_with(pool, self.wal_for(persistence), KeyForm::PrefixFree)?;
        let root = persistence.stored(tree.root());
        Ok((tree, root))
    }

    /// The tree of index `def`.
    pub fn index_tree(&self, def: &IndexDef) -> Result<MultiTree, CatalogError> {
        let form = match def.prefix_free {
            true => KeyForm::PrefixFree,
            false => KeyForm::Escaped,
        };
        let pool = self.pool_of(def.root).clone();
        Ok(MultiTree::open_with(
            pool,
            native(def.root),
            self.wal_of(def.root),
            form,
        )?)
    }

    /// The rule for foreign keys: a permanent table's may not reference
    /// an unlogged table (its rows could outlive a crash that empties the
    /// referenced one). Temporary tables are the SQL layer's (folio-sql
    /// `temp_tables.rs`).
    pub(crate) fn check_reference(
        referencing: &TableDef,
        referenced: &TableDef,
    ) -> Result<(), CatalogError> {
        match (
            Persistence::of(referencing.root),
            Persistence::of(referenced.root),
        ) {
            (Persistence::Permanent, Persistence::Unlogged) => {
                Err(CatalogError::PermanentReferencesUnlogged)
            }
            _ => Ok(()),
        }
    }

    /// Whether `table` may become `persistence` under
    /// [`Catalog::check_reference`]: a table turning permanent may not
    /// reference an unlogged one, a table turning unlogged may not be
    /// referenced by a permanent one (its own keys to itself aside), as
    /// PostgreSQL's `ATPrepChangePersistence`.
    pub(crate) fn check_change(
        &self,
        txn: &Transaction,
        table: &TableDef,
        persistence: Persistence,
    ) -> Result<(), CatalogError> {
        let changed = TableDef {
            root: persistence.stored(native(table.root)),
            ..table.clone()
        };
        let keys = match persistence {
            Persistence::Permanent => &table.constraints,
            Persistence::Unlogged => &table.referenced_by,
        };
        for key in keys {
            let ConstraintKind::ForeignKey(fk) = &key.kind else {
                continue;
            };
            // The table at the key's other end.
            let (other, other_oid) = match persistence {
                Persistence::Permanent => (&fk.ref_table, fk.ref_table_oid),
                Persistence::Unlogged => (&key.table, key.table_oid),
            };
            if other_oid == table.oid {
                continue;
            }
            let Some(other_def) = self.table(txn, other)? else {
                continue;
            };
            let refused = match persistence {
                Persistence::Permanent => Self::check_reference(&changed, &other_def),
                Persistence::Unlogged => Self::check_reference(&other_def, &changed),
            };
            if refused.is_err() {
                return Err(CatalogError::PersistenceReference {
                    table: table.name.clone(),
                    other: other_def.name,
                    logged: persistence == Persistence::Permanent,
                });
            }
        }
        Ok(())
    }

    /// After a crash, with the unlogged pool created afresh: forgets every
    /// `folio.dropped` record of unlogged storage (its pages went with the
    /// old file), then gives every unlogged table and index new empty
    /// storage in `txn`, and drops the out-of-line values of those tables'
    /// rows (as `TRUNCATE`). Repeating it is harmless: a crash before
    /// `txn` commits leaves a file the next open creates afresh again.
    /// Returns the relations reset.
    pub fn reset_unlogged(&self, txn: &mut Transaction) -> Result<usize, CatalogError> {
        self.forget_unlogged_drops()?;
        let mut reset = 0;
        for (_, class) in self.class_rows(txn)? {
            if Persistence::of(class.root) != Persistence::Unlogged {
                continue;
            }
            let old = class.root;
            let root = match class.kind {
                KIND_TABLE => self.create_pages(Persistence::Unlogged)?,
                KIND_INDEX => self.create_index_tree(Persistence::Unlogged)?.1,
                _ => continue,
            };
            self.repoint(txn, &class.name, class.oid, |row| {
                row.root = root;
                if class.kind == KIND_INDEX {
                    row.prefix_free = true;
                }
            })?;
            if class.kind == KIND_TABLE {
                self.toast.delete_table(txn, class.oid)?;
            }
            self.forget_table(class.oid, old);
            reset += 1;
        }
        Ok(reset)
    }
}
