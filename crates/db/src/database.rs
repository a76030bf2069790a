//! `Database`: the data file, the WAL, the control file, recovery, the
//! checkpointer and the root map of logged trees, wired together.

use crate::adapters::{PageAllocRedo, WalMetaLogger, WalPageFlusher};
use crate::lock::DirLock;
use crate::{DbError, Options};
use folio_btree::{BtreeRedo, KeyForm, MultiTree, RootMap, Tree, TreeKind, VerifyReport};
use folio_buffer::{BufferPool, Extender};
use folio_catalog::{
    Autovacuum, CATALOG_TREE_NAMES, Catalog, CatalogTrees, UNLOGGED_SEQUENCES_TREE,
};
use folio_heap::{HeapRedo, Index, Table};
use folio_io::{Dir, FsDir, OpenOptions};
use folio_page::Lsn;
use folio_recovery::{
    CheckpointKind, CheckpointStats, Checkpointer, ControlData, DbState, RecoveryStats,
    RedoRegistry, insert_commit, recover,
};
use folio_txn::{CsnLog, Durability, Isolation, Transaction, TxnManager, TxnRedo};
use folio_wal::{Wal, WalMeta};
use std::path::Path;
use std::sync::Arc;

/// The root-map name of the CSN log's directory tree (folio-txn).
pub const CSN_LOG_TREE: &str = "folio.csnlog";

/// The data file's name in the database directory.
pub const DATA_FILE: &str = "data";
/// The WAL's subdirectory of a database directory on a real filesystem.
pub const WAL_DIR: &str = "wal";
/// The file of unlogged relations' pages in the data directory (README
/// "Unlogged relations"): no WAL covers it.
pub const UNLOGGED_FILE: &str = "unlogged";
/// Present only while [`UNLOGGED_FILE`] is whole: made by a clean close
/// after the file is written and synced, removed (durably) by the open
/// that finds it, before anything can write the file again. An open that
/// does not find it creates the file afresh and empties every unlogged
/// relation.
pub const UNLOGGED_CLEAN: &str = "unlogged.clean";

/// Where a database lives: the directory of the data and control files and
/// the WAL's directory (they may be the same directory: file names do not
/// collide).
#[derive(Debug, Clone)]
pub struct Storage {
    pub data: Arc<dyn Dir>,
    pub wal: Arc<dyn Dir>,
}

impl Storage {
    /// Everything in one directory (what the crash tests use with `SimDir`).
    pub fn single(dir: Arc<dyn Dir>) -> Storage {
        Storage {
            data: dir.clone(),
            wal: dir,
        }
    }

    /// The bytes of every file of the database: the data directory's
    /// and the WAL directory's (once when they are one). A file removed
    /// while they are counted (a recycled WAL segment) counts nothing.
    pub fn files_bytes(&self) -> std::io::Result<u64> {
        let mut dirs = vec![&self.data];
        if !Arc::ptr_eq(&self.data, &self.wal) {
            dirs.push(&self.wal);
        }
        let mut sum = 0u64;
        for dir in dirs {
            for name in dir.list()? {
                match dir.open(&name, OpenOptions::EXISTING) {
                    Ok(file) => sum = sum.saturating_add(file.len()?),
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                    Err(e) => return Err(e),
                }
            }
        }
        Ok(sum)
    }
}

/// An open database. Tree operations are visible at once and WAL-logged;
/// they are durable once a [`Database::commit`] that follows them returns.
#[derive(Debug)]
pub struct Database {
    // Field order is drop order: stop autovacuum and the checkpointer
    // before the rest.
    autovacuum: Option<Autovacuum>,
    checkpointer: Checkpointer,
    /// The data file's extender (`Options::background_io`).
    _extender: Option<Extender>,
    roots: RootMap,
    txns: Arc<TxnManager>,
    catalog: Arc<Catalog>,
    pool: Arc<BufferPool>,
    /// The pool of unlogged relations (`UNLOGGED_FILE`).
    unlogged: Arc<BufferPool>,
    /// Whether `unlogged` was created afresh by this open (its relations
    /// must be emptied: [`Database::reset_unlogged`]).
    unlogged_fresh: bool,
    wal: Arc<Wal>,
    storage: Storage,
    recovery: Option<RecoveryStats>,
    /// The options it was opened with (`checksums` as the files have it).
    options: Options,
    _lock: Option<DirLock>,
}

fn io_error(op: &'static str, path: &Path) -> impl FnOnce(std::io::Error) -> DbError {
    let path = path.display().to_string();
    move |source| DbError::Io { op, path, source }
}

/// One named check of [`Database::verify_tables`] and its outcome.
pub type NamedCheck = (String, Result<VerifyReport, DbError>);

/// The registry of every resource manager's redo.
pub fn redo_registry() -> RedoRegistry {
    let mut registry = RedoRegistry::with_builtin();
    registry.register(Arc::new(PageAllocRedo));
    registry.register(Arc::new(BtreeRedo));
    registry.register(Arc::new(TxnRedo));
    registry.register(Arc::new(HeapRedo));
    registry
}

impl Database {
    /// Creates a database in directory `path` (created if missing; it must
    /// not hold a database): `path/data`, `path/control`, `path/wal/`.
    pub fn create(path: impl AsRef<Path>, options: Options) -> Result<Database, DbError> {
        let (storage, lock) = fs_storage(path.as_ref(), |p| FsDir::open(p))?;
        let mut db = Database::create_in(storage, options)?;
        db._lock = Some(lock);
        Ok(db)
    }

    /// Opens the database in directory `path`, recovering from the WAL.
    /// Fails with `Locked` if another process has it open.
    pub fn open(path: impl AsRef<Path>, options: Options) -> Result<Database, DbError> {
        let path = path.as_ref();
        if !path.join(folio_recovery::CONTROL_FILE).exists() {
            return Err(folio_recovery::ControlError::Missing(path.display().to_string()).into());
        }
        let (storage, lock) = fs_storage(path, |p| FsDir::open_existing(p))?;
        let mut db = Database::open_in(storage, options)?;
        db._lock = Some(lock);
        Ok(db)
    }

    /// Creates a database on `storage` (no lock file: the caller owns the
    /// directories).
    pub fn create_in(storage: Storage, options: Options) -> Result<Database, DbError> {
        let data = &storage.data;
        for name in [folio_recovery::CONTROL_FILE, DATA_FILE] {
            if data
                .exists(name)
                .map_err(io_error("looking at", Path::new(name)))?
            {
                return Err(DbError::AlreadyExists {
                    path: data.location(),
                    what: format!("a `{name}` file"),
                });
            }
        }
        let file = data
            .open(DATA_FILE, OpenOptions::CREATE_NEW)
            .map_err(io_error("creating", Path::new(DATA_FILE)))?;
        let pool = BufferPool::create(file, options.pool_config())?;
        data.sync_dir()
            .map_err(io_error("syncing the directory of", Path::new(DATA_FILE)))?;
        let wal = Arc::new(Wal::open(storage.wal.clone(), options.wal_config())?);
        let control = ControlData {
            state: DbState::InProduction,
            checkpoint_lsn: Lsn(0),
            redo_lsn: Lsn(0),
            wal_system_id: wal_meta(storage.wal.as_ref())?.system_id,
            checkpoint_count: 0,
            checkpoint_time_ms: 0,
            checksums: pool.checksums(),
        };
        Database::assemble(storage, options, pool, wal, control, None)
    }

    /// Opens the database on `storage`: reads the control file, opens the
    /// pool, replays the WAL from the redo point to its end (a torn tail
    /// ends it, mid-log corruption refuses), opens the WAL to continue where
    /// replay found its end (reading it once, not twice), checkpoints, and
    /// starts the checkpointer.
    ///
    /// Everything that can refuse the open is checked before anything is
    /// written: the control file, the WAL's identity and segment lengths
    /// (a short segment is damage; `truncate_at_corruption` accepts the
    /// loss), the data file's length against its meta page.
    pub fn open_in(storage: Storage, options: Options) -> Result<Database, DbError> {
        let control = ControlData::load(storage.data.as_ref())?;
        let wal_meta = wal_meta(storage.wal.as_ref())?;
        if wal_meta.system_id != control.wal_system_id {
            return Err(DbError::WalMismatch {
                wal: wal_meta.system_id,
                control: control.wal_system_id,
            });
        }
        let short =
            folio_wal::short_segment_files(storage.wal.as_ref(), wal_meta.segment_size_bytes)?;
        if let Some(first) = short.into_iter().next()
            && !options.truncate_at_corruption
        {
            return Err(first.into());
        }
        let file = storage
            .data
            .open(DATA_FILE, OpenOptions::EXISTING)
            .map_err(io_error("opening", Path::new(DATA_FILE)))?;
        // Page 0 may be torn by the crash: recovery restores it from its
        // full-page image, so it is checked only afterwards.
        let pool = BufferPool::open_for_recovery(file, options.pool_config(), control.checksums)?;
        // After a crash the WAL files may hold records the dead process
        // wrote but never synced (the operating system still has them).
        // Replay writes back pages those records changed, so they are made
        // durable first; then no WAL flusher is needed during replay: every
        // record replayed is durable, which is all the WAL rule asks of a
        // page written back meanwhile.
        if control.state != DbState::ShutDown {
            folio_wal::sync_segment_files(storage.wal.as_ref())?;
        }
        let replayed = recover(
            &pool,
            storage.wal.clone(),
            control.redo_lsn,
            &redo_registry(),
            &options.recovery_options(),
        )
        .map_err(DbError::from)
        .and_then(|stats| Ok(pool.verify_meta().map(|()| stats)?));
        let stats = match replayed {
            Ok(stats) => stats,
            Err(refused) => {
                // A refused open changes nothing: what replay changed in
                // the pool is dropped, not written (the next open redoes
                // it from the WAL, which is durable).
                pool.abandon();
                return Err(refused);
            }
        };
        let wal = match stats.wal_end {
            Some(end) => Wal::open_at_end(storage.wal.clone(), options.wal_config(), end)?,
            None => Wal::open(storage.wal.clone(), options.wal_config())?,
        };
        let wal = Arc::new(wal);
        wal.set_redo_lsn(control.redo_lsn);
        let db = Database::assemble(storage, options, pool, wal, control, Some(stats))?;
        db.drop_leftover_temp_tables()?;
        db.reset_unlogged()?;
        Ok(db)
    }

    /// After an open that found the unlogged file not whole (a crash, or a
    /// stop without [`Database::close`]): gives every unlogged relation new
    /// empty storage in the fresh file (folio-catalog `persistence.rs`),
    /// as PostgreSQL resets unlogged relations at the end of recovery. A
    /// transaction is written only when there are some.
    fn reset_unlogged(&self) -> Result<(), DbError> {
        if !self.unlogged_fresh {
            return Ok(());
        }
        let mut txn = self.begin(Isolation::ReadCommitted, Durability::Sync)?;
        match self.catalog.reset_unlogged(&mut txn)? {
            0 => txn.rollback()?,
            _ => {
                txn.commit()?;
            }
        }
        Ok(())
    }

    /// Drops the temporary tables a crash or a killed session left: no
    /// session of this open owns them (folio-catalog `temp.rs`), as
    /// PostgreSQL empties its temporary namespaces. One scan of
    /// `folio.class`; a transaction is written only when there are some.
    fn drop_leftover_temp_tables(&self) -> Result<(), DbError> {
        let mut txn = self.begin(Isolation::ReadCommitted, Durability::Sync)?;
        match self.catalog.drop_temp_tables(&mut txn, None)? {
            0 => txn.rollback()?,
            _ => {
                txn.commit()?;
            }
        }
        Ok(())
    }

    /// The common tail of create and open: logging hooks, a checkpoint (the
    /// first one, or the end-of-recovery one, in the background after a
    /// replay), the root map, the checkpointer.
    fn assemble(
        storage: Storage,
        options: Options,
        pool: Arc<BufferPool>,
        wal: Arc<Wal>,
        control: ControlData,
        recovery: Option<RecoveryStats>,
    ) -> Result<Database, DbError> {
        pool.set_wal_flusher(Arc::new(WalPageFlusher(wal.clone())));
        pool.set_meta_logger(Some(Arc::new(WalMetaLogger(wal.clone()))));
        let checkpointer = Checkpointer::new(
            pool.clone(),
            wal.clone(),
            storage.data.clone(),
            control,
            options.checkpoint_config(),
        );
        let roots = RootMap::open_logged(&pool, Some(wal.clone()))?;
        let directory = match roots.open_tree(CSN_LOG_TREE)? {
            Some(tree) => tree,
            None => roots.create_tree(CSN_LOG_TREE)?,
        };
        let txns = TxnManager::open(
            CsnLog::open(pool.clone(), wal.clone(), directory),
            options.txn_config(),
        )?;
        txns.stats().watch_pool(pool.clone());
        let (unlogged, unlogged_fresh) = open_unlogged(&storage, &options, pool.checksums())?;
        let catalog = Arc::new(open_catalog(&roots, &pool, &wal, &unlogged)?);
        txns.set_system_relations(catalog.system_relation_ids());
        // After a crash replay, the end-of-recovery checkpoint runs in the
        // background (requested at once, as PostgreSQL's fast promotion
        // does) so that sessions need not wait for it: until it completes,
        // the database is as after any crash since its last checkpoint,
        // whose redo point and WAL stay (README "End of recovery").
        let replayed = recovery
            .as_ref()
            .is_some_and(|r| r.records > 0 && r.discarded.is_none());
        if replayed && options.background_io {
            checkpointer.start()?;
            checkpointer.request();
        } else {
            checkpointer.checkpoint(CheckpointKind::Immediate)?;
            if options.background_io {
                checkpointer.start()?;
            }
        }
        let extender = match options.background_io {
            true => Some(pool.start_extender().map_err(|source| DbError::Io {
                op: "starting",
                path: "the data file's extender thread".into(),
                source,
            })?),
            false => None,
        };
        // Autovacuum's counts, ANALYZE's statistics and the all-visible
        // bits from before the restart (the bits only if the WAL ends where
        // they were saved), kept there from now on (a file that cannot be
        // read is as none).
        let wal_end = recovery.as_ref().map(|r| r.end_lsn);
        let _ = catalog.keep_hints_in(storage.data.clone(), wal_end);
        let autovacuum = match options.autovacuum {
            true => Some(
                Autovacuum::start(catalog.clone(), txns.clone(), options.autovacuum_config())
                    .map_err(|source| DbError::Io {
                        op: "starting",
                        path: "the autovacuum thread".into(),
                        source,
                    })?,
            ),
            false => None,
        };
        let options = Options {
            checksums: pool.checksums(),
            ..options
        };
        Ok(Database {
            options,
            autovacuum,
            checkpointer,
            _extender: extender,
            roots,
            txns,
            catalog,
            pool,
            unlogged,
            unlogged_fresh,
            wal,
            storage,
            recovery,
            _lock: None,
        })
    }

    /// The options it was opened with, `checksums` as its files have them
    /// (what `SHOW shared_buffers` and the other server settings report).
    pub fn options(&self) -> &Options {
        &self.options
    }

    /// The root map of named trees (logged).
    pub fn roots(&self) -> &RootMap {
        &self.roots
    }

    /// Creates a unique-key tree named `name`.
    pub fn create_tree(&self, name: &str) -> Result<Tree, DbError> {
        self.check_writable()?;
        Ok(self.roots.create_tree(name)?)
    }

    /// Opens the unique-key tree named `name`.
    pub fn open_tree(&self, name: &str) -> Result<Option<Tree>, DbError> {
        Ok(self.roots.open_tree(name)?)
    }

    /// Creates a non-unique tree named `name`.
    pub fn create_multi_tree(&self, name: &str) -> Result<MultiTree, DbError> {
        self.check_writable()?;
        Ok(self.roots.create_multi_tree(name)?)
    }

    /// Opens the non-unique tree named `name`.
    pub fn open_multi_tree(&self, name: &str) -> Result<Option<MultiTree>, DbError> {
        Ok(self.roots.open_multi_tree(name)?)
    }

    /// The catalog: tables, columns and indexes, changed transactionally.
    pub fn catalog(&self) -> &Arc<Catalog> {
        &self.catalog
    }

    /// The autovacuum thread, if `Options::autovacuum` started one.
    pub fn autovacuum(&self) -> Option<&Autovacuum> {
        self.autovacuum.as_ref()
    }

    /// The transaction manager.
    pub fn txns(&self) -> &Arc<TxnManager> {
        &self.txns
    }

    /// Starts a transaction.
    pub fn begin(
        &self,
        isolation: Isolation,
        durability: Durability,
    ) -> Result<Transaction, DbError> {
        Ok(self.txns.begin(isolation, durability)?)
    }

    /// Creates a heap table named `name` (its page list is the tree
    /// `heap.NAME` in the root map). Not transactional yet: the catalog
    /// that makes DDL transactional is the next step.
    pub fn create_table(&self, name: &str) -> Result<Table, DbError> {
        self.check_writable()?;
        let pages = self.roots.create_tree(&table_tree(name))?;
        Ok(Table::open(self.pool.clone(), self.wal.clone(), pages))
    }

    /// Opens the heap table named `name`.
    pub fn open_table(&self, name: &str) -> Result<Option<Table>, DbError> {
        Ok(self
            .roots
            .open_tree(&table_tree(name))?
            .map(|pages| Table::open(self.pool.clone(), self.wal.clone(), pages)))
    }

    /// Creates an index named `name` (tree `index.NAME` in the root map).
    /// Its entries are the caller's to maintain (`Index::insert` after each
    /// table insert or update) until the catalog does it; `unique` is not
    /// stored yet either: pass the same value to `open_index`.
    pub fn create_index(&self, name: &str, unique: bool) -> Result<Index, DbError> {
        self.create_index_with(name, unique, KeyForm::Escaped)
    }

    /// [`Database::create_index`] whose keys are in `form`
    /// (`KeyForm::PrefixFree`: the caller promises no key is a proper
    /// prefix of another, e.g. fixed-length keys; shorter entries).
    pub fn create_index_with(
        &self,
        name: &str,
        unique: bool,
        form: KeyForm,
    ) -> Result<Index, DbError> {
        self.check_writable()?;
        let tree = self
            .roots
            .create_multi_tree_with(&format!("index.{name}"), form)?;
        Ok(Index::open(name, tree, unique))
    }

    /// Opens the index named `name`.
    pub fn open_index(&self, name: &str, unique: bool) -> Result<Option<Index>, DbError> {
        Ok(self
            .roots
            .open_multi_tree(&format!("index.{name}"))?
            .map(|tree| Index::open(name, tree, unique)))
    }

    /// The commit point: inserts a commit record and (with
    /// `synchronous_commit`) waits until it is durable, sharing one fsync
    /// with every committer waiting at that moment. Every tree operation
    /// that returned before this call is durable when it returns. Returns
    /// the commit record's end LSN.
    pub fn commit(&self) -> Result<Lsn, DbError> {
        self.check_writable()?;
        let inserted = insert_commit(&self.wal)?;
        self.wal.commit(inserted.end_lsn)?;
        Ok(inserted.end_lsn)
    }

    /// Runs a checkpoint now (writes are not spread).
    pub fn checkpoint(&self) -> Result<CheckpointStats, DbError> {
        self.check_writable()?;
        Ok(self.checkpointer.checkpoint(CheckpointKind::Immediate)?)
    }

    /// Shuts down cleanly: stops the checkpointer, runs a shutdown
    /// checkpoint (every page written, control file "shut down") and makes
    /// the WAL durable.
    pub fn close(mut self) -> Result<(), DbError> {
        if let Some(autovacuum) = self.autovacuum.as_mut() {
            autovacuum.stop();
        }
        self.checkpointer.stop();
        self.check_writable()?;
        self.checkpointer.checkpoint(CheckpointKind::Shutdown)?;
        self.wal.flush_all()?;
        self.save_maps();
        self.seal_unlogged()
    }

    /// At a stop: seals the unlogged relations' pool (no change to them
    /// from now on: folio-buffer `BufferPool::seal`), writes and syncs
    /// every page of it, then marks the file whole ([`UNLOGGED_CLEAN`])
    /// so the next open keeps it. [`Database::close`] calls it; a server
    /// that stops with sessions still running calls it last, just before
    /// it exits (a session that then tries to change an unlogged relation
    /// fails with folio-buffer's `Sealed`).
    pub fn seal_unlogged(&self) -> Result<(), DbError> {
        self.unlogged.seal();
        self.unlogged.flush_all()?;
        let data = &self.storage.data;
        let marker = Path::new(UNLOGGED_CLEAN);
        let file = (data.open(UNLOGGED_CLEAN, OpenOptions::CREATE))
            .map_err(io_error("creating", marker))?;
        file.sync().map_err(io_error("syncing", marker))?;
        data.sync_dir()
            .map_err(io_error("syncing the directory of", marker))?;
        Ok(())
    }

    /// At a stop, after the last checkpoint: keeps every open table's
    /// all-visible bits and pages with room in the data directory for the
    /// next open, which loads them only if its WAL still ends where it ends
    /// now (folio-catalog `table_maps_file.rs`), so index-only scans after
    /// a clean restart skip the heap, and inserts fill the pages vacuum
    /// freed, as before it. `false` when nothing was kept (a change ran
    /// meanwhile, or the file could not be written: the next open then
    /// starts with empty maps, as after a crash).
    pub fn save_maps(&self) -> bool {
        self.wal.flush_all().is_ok() && self.catalog.save_maps().unwrap_or(false)
    }

    /// What recovery did when this handle opened the database (`None` after
    /// `create`).
    pub fn recovery_stats(&self) -> Option<&RecoveryStats> {
        self.recovery.as_ref()
    }

    /// The control file as last written.
    pub fn control(&self) -> ControlData {
        self.checkpointer.control()
    }

    /// The error of the latest failed background checkpoint, if any.
    pub fn checkpoint_error(&self) -> Option<String> {
        self.checkpointer.last_error()
    }

    /// Checks every tree in the root map (and the root map itself), then
    /// every table ([`Database::verify_tables`]); the first failure is the
    /// error.
    pub fn verify(&self) -> Result<Vec<(String, VerifyReport)>, DbError> {
        let mut reports = vec![("(root map)".to_string(), self.roots.tree().verify()?)];
        for entry in self.roots.list()? {
            let report = match entry.kind {
                TreeKind::Unique => Tree::open(self.pool.clone(), entry.root)?.verify()?,
                TreeKind::NonUnique | TreeKind::NonUniquePrefixFree => {
                    MultiTree::open(self.pool.clone(), entry.root)?.verify()?
                }
            };
            reports.push((entry.name, report));
        }
        for (name, result) in self.verify_tables()? {
            reports.push((name, result?));
        }
        Ok(reports)
    }

    /// Checks the TOAST heap and every table of the catalog: its page list,
    /// its heap pages, its index trees, and that heap and indexes agree in
    /// both directions (amcheck's `heapallindexed`: folio-catalog
    /// `amcheck.rs`). Continues past a failed check: one result per check,
    /// named.
    pub fn verify_tables(&self) -> Result<Vec<NamedCheck>, DbError> {
        let txn = self.begin(Isolation::ReadCommitted, Durability::Sync)?;
        let heap_report = |table: &Table| -> Result<VerifyReport, DbError> {
            let (pages, versions) = table.verify_pages()?;
            Ok(VerifyReport {
                height: 1,
                inner_pages: 0,
                leaf_pages: pages,
                entries: versions,
                ..VerifyReport::default()
            })
        };
        let mut out = vec![(
            "(toast heap)".to_string(),
            heap_report(self.catalog.toast_table()),
        )];
        for def in self.catalog.tables(&txn)? {
            let relation = match self.catalog.open_relation(def.clone()) {
                Ok(relation) => relation,
                Err(e) => {
                    out.push((format!("table {}", def.name), Err(e.into())));
                    continue;
                }
            };
            let table = &relation.table;
            out.push((
                format!("table {} (page list)", def.name),
                table.page_list().verify().map_err(DbError::from),
            ));
            out.push((format!("table {} (heap)", def.name), heap_report(table)));
            for index in &def.indexes {
                let tree = (self.catalog.index_tree(index).map_err(DbError::from))
                    .and_then(|tree| tree.verify().map_err(DbError::from));
                out.push((format!("index {}", index.name), tree));
            }
            let agree = relation.check_indexes(&txn).map(|check| VerifyReport {
                height: 1,
                inner_pages: 0,
                leaf_pages: 0,
                entries: check.entries,
                ..VerifyReport::default()
            });
            out.push((
                format!("table {} (rows in every index)", def.name),
                agree.map_err(DbError::from),
            ));
        }
        txn.commit()?;
        Ok(out)
    }

    /// Checks the buffer pool's and the WAL's invariants (their
    /// `check_invariants`); call it when no other thread uses the database
    /// and background checkpoints are off. Returns the first violation.
    pub fn check_invariants(&self) -> Result<(), String> {
        self.pool
            .check_invariants()
            .map_err(|e| format!("buffer pool: {e}"))?;
        self.wal.check_invariants().map_err(|e| format!("WAL: {e}"))
    }

    /// True after a failed fsync: writes are refused until reopened.
    pub fn is_poisoned(&self) -> bool {
        self.pool.is_poisoned() || self.wal.is_poisoned()
    }

    pub fn pool(&self) -> &Arc<BufferPool> {
        &self.pool
    }

    /// The pool of unlogged relations ([`UNLOGGED_FILE`]).
    pub fn unlogged_pool(&self) -> &Arc<BufferPool> {
        &self.unlogged
    }

    pub fn wal(&self) -> &Arc<Wal> {
        &self.wal
    }

    pub fn storage(&self) -> &Storage {
        &self.storage
    }

    fn check_writable(&self) -> Result<(), DbError> {
        if self.wal.is_poisoned() {
            return Err(DbError::Poisoned { what: "WAL" });
        }
        if self.pool.is_poisoned() {
            return Err(DbError::Poisoned { what: "data file" });
        }
        Ok(())
    }
}

/// The catalog over its trees in the root map (created with the database,
/// or when a database made before the catalog existed is opened).
fn open_catalog(
    roots: &RootMap,
    pool: &Arc<BufferPool>,
    wal: &Arc<Wal>,
    unlogged: &Arc<BufferPool>,
) -> Result<Catalog, DbError> {
    let unique = |name: &str| -> Result<folio_btree::Tree, DbError> {
        Ok(match roots.open_tree(name)? {
            Some(tree) => tree,
            None => roots.create_tree(name)?,
        })
    };
    let multi = |name: &str| -> Result<MultiTree, DbError> {
        Ok(match roots.open_multi_tree(name)? {
            Some(tree) => tree,
            None => roots.create_multi_tree(name)?,
        })
    };
    let [
        classes,
        class_names,
        attributes,
        attribute_tables,
        oids,
        toast,
        toast_values,
        constraints,
        constraint_tables,
        dropped,
        descriptions,
        description_relations,
    ] = CATALOG_TREE_NAMES;
    let trees = CatalogTrees {
        classes: unique(classes)?,
        class_names: multi(class_names)?,
        attributes: unique(attributes)?,
        attribute_tables: multi(attribute_tables)?,
        oids: unique(oids)?,
        toast: unique(toast)?,
        toast_values: multi(toast_values)?,
        constraints: unique(constraints)?,
        constraint_tables: multi(constraint_tables)?,
        dropped: unique(dropped)?,
        descriptions: unique(descriptions)?,
        description_relations: multi(description_relations)?,
        unlogged_sequences: unlogged_sequences(unlogged)?,
    };
    Ok(Catalog::open(
        pool.clone(),
        wal.clone(),
        unlogged.clone(),
        trees,
    ))
}

/// The tree of unlogged sequences' values, in the unlogged pool's own
/// (unlogged) root map: found in a file kept whole by a clean stop,
/// created in a new one.
fn unlogged_sequences(unlogged: &Arc<BufferPool>) -> Result<Tree, DbError> {
    let roots = RootMap::open(unlogged)?;
    Ok(match roots.open_tree(UNLOGGED_SEQUENCES_TREE)? {
        Some(tree) => tree,
        None => roots.create_tree(UNLOGGED_SEQUENCES_TREE)?,
    })
}

/// The pool of unlogged relations over [`UNLOGGED_FILE`]: the file as it
/// is if [`UNLOGGED_CLEAN`] says it is whole (the mark removed durably
/// first), else a new empty file (then `true`: its relations must be
/// emptied). The pool has no WAL: nothing in it is logged.
fn open_unlogged(
    storage: &Storage,
    options: &Options,
    checksums: bool,
) -> Result<(Arc<BufferPool>, bool), DbError> {
    let data = &storage.data;
    let (name, marker) = (Path::new(UNLOGGED_FILE), Path::new(UNLOGGED_CLEAN));
    let exists =
        |what: &str, path: &Path| (data.exists(what)).map_err(io_error("looking at", path));
    let (marked, found) = (
        exists(UNLOGGED_CLEAN, marker)?,
        exists(UNLOGGED_FILE, name)?,
    );
    let whole = marked && found;
    let config = folio_buffer::PoolConfig {
        checksums,
        ..options.pool_config()
    };
    let pool = if whole {
        let file =
            (data.open(UNLOGGED_FILE, OpenOptions::EXISTING)).map_err(io_error("opening", name))?;
        BufferPool::open(file, config)?
    } else {
        if found {
            data.remove(UNLOGGED_FILE)
                .map_err(io_error("removing", name))?;
        }
        let file = (data.open(UNLOGGED_FILE, OpenOptions::CREATE_NEW))
            .map_err(io_error("creating", name))?;
        BufferPool::create(file, config)?
    };
    if marked {
        data.remove(UNLOGGED_CLEAN)
            .map_err(io_error("removing", marker))?;
    }
    data.sync_dir()
        .map_err(io_error("syncing the directory of", name))?;
    Ok((pool, !whole))
}

/// The root-map name of table `name`'s page list.
fn table_tree(name: &str) -> String {
    format!("heap.{name}")
}

/// The directory `path` locked, with its `wal/`, both opened by `open_dir`
/// (`FsDir::open` creates them when missing; `FsDir::open_existing`, for
/// opening a database, creates nothing).
fn fs_storage(
    path: &Path,
    open_dir: fn(&Path) -> std::io::Result<FsDir>,
) -> Result<(Storage, DirLock), DbError> {
    let data = open_dir(path).map_err(io_error("opening", path))?;
    let lock = DirLock::acquire(path)?;
    let wal_path = path.join(WAL_DIR);
    let wal = open_dir(&wal_path).map_err(|source| {
        if source.kind() == std::io::ErrorKind::NotFound {
            DbError::Damaged {
                path: wal_path.display().to_string(),
                detail: "the WAL directory is missing, and without it the database cannot be recovered; restore it from a backup".into(),
            }
        } else {
            io_error("opening", &wal_path)(source)
        }
    })?;
    Ok((
        Storage {
            data: Arc::new(data),
            wal: Arc::new(wal),
        },
        lock,
    ))
}

fn wal_meta(dir: &dyn Dir) -> Result<WalMeta, DbError> {
    Ok(WalMeta::load(dir)?
        .ok_or_else(|| folio_wal::WalError::BadMeta("wal.meta missing".into()))?)
}
