//! folio: a WAL-logged B+tree of `folio-db` (buffer pool, WAL, checkpoints).
//!
//! Settings: `Options::default()` except a pool of [`CACHE_BYTES`], so the
//! whole tree stays cached: page checksums on, `synchronous_commit = on`,
//! the background checkpointer running (timed and WAL-volume checkpoints, as
//! in production). One tree, `kv`, created through the logged catalog.
//!
//! - **Bulk load**: the keys are inserted one by one in key order (folio has
//!   no bulk-load path: every insert, split and full-page image is logged),
//!   then one `Database::commit` (the WAL is fdatasynced: the load is
//!   durable), then one immediate `Database::checkpoint` (every dirty page
//!   written to the data file and fdatasynced, the control file replaced).
//!   The checkpoint is counted because every peer's timed load ends with
//!   the data in its data files (redb and LMDB write their pages at commit,
//!   fjall writes sorted tables, SQLite's commit runs its WAL auto-checkpoint
//!   into the database file), so neither a replay of the whole load nor a
//!   deferred write of every page is left to the next open.
//! - **Reads**: a read session is nothing; lookups (`Tree::get_into`) and
//!   scans (`Scan::next_entry`, no allocation per entry) are optimistic and
//!   need no transaction.
//! - **Commit**: `commit_one` is one `Tree::insert` plus one
//!   `Database::commit`, which returns once the commit record is durable:
//!   group commit, one `fdatasync` of the WAL serves every committer waiting
//!   at that moment.

use super::{CACHE_BYTES, Durability, Every, KvEngine};
use crate::data::{self, ScanCheck};
use anyhow::{Context, Result, ensure};
use folio_btree::{Direction, Tree};
use folio_db::{Database, Options};
use folio_wal::WalStats;
use std::ops::Bound;
use std::path::Path;
use std::sync::Mutex;
use std::time::Instant;

/// The name of the tree in folio's catalog.
const TREE_NAME: &str = "kv";

#[derive(Debug)]
pub struct Folio {
    // Field order is drop order: the tree handle before the database.
    tree: Tree,
    db: Database,
    /// The WAL's counters at the previous `commit_stats` call.
    wal_before: Mutex<WalStats>,
}

impl Folio {
    /// Creates a database in `dir` (a fresh directory) with one empty tree.
    pub fn open(dir: &Path) -> Result<Folio> {
        let options = Options {
            pool_size_bytes: CACHE_BYTES,
            ..Options::default()
        };
        ensure!(
            options.synchronous_commit,
            "folio: commits must be synchronous"
        );
        let db = Database::create(dir, options).context("folio: create database")?;
        let tree = db.create_tree(TREE_NAME).context("folio: create tree")?;
        let wal_before = Mutex::new(db.wal().stats());
        Ok(Folio {
            tree,
            db,
            wal_before,
        })
    }

    fn scan(&self, direction: Direction, check: &mut ScanCheck) -> Result<()> {
        let mut scan = self
            .tree
            .scan(Bound::Unbounded, Bound::Unbounded, direction);
        while let Some((k, v)) = scan.next_entry()? {
            check.visit(k, v)?;
        }
        Ok(())
    }
}

impl KvEngine for Folio {
    type Reader<'a> = ();
    type Writer<'a> = ();

    fn name(&self) -> &'static str {
        "folio"
    }

    fn durability(&self) -> Durability {
        Durability::Synced(
            "synchronous_commit = on: the WAL is fdatasynced through the commit record before \
             Database::commit returns (group commit)",
        )
    }

    fn bulk_load(&self, keys: u64, progress: &mut dyn FnMut(u64)) -> Result<()> {
        let every = Every::new(keys);
        let started = Instant::now();
        for i in 0..keys {
            self.tree.insert(&data::key(i), &data::value(i))?;
            every.tick(i + 1, progress);
        }
        let inserted = Instant::now();
        let commit_lsn = self.db.commit().context("folio: commit the load")?;
        let committed = Instant::now();
        let checkpoint = self.db.checkpoint().context("folio: checkpoint the load")?;
        let done = Instant::now();
        eprintln!(
            "[folio] bulk load: inserts {:.2} s, commit {:.3} s (WAL to {}), checkpoint {:.2} s \
             ({} pages written)",
            (inserted - started).as_secs_f64(),
            (committed - inserted).as_secs_f64(),
            commit_lsn.0,
            (done - committed).as_secs_f64(),
            checkpoint.pages_written,
        );
        Ok(())
    }

    fn reader(&self) -> Result<()> {
        Ok(())
    }

    fn get<'a>(
        &'a self,
        _reader: &mut Self::Reader<'a>,
        key: &[u8],
        value: &mut Vec<u8>,
    ) -> Result<bool> {
        Ok(self.tree.get_into(key, value)?)
    }

    fn scan_forward(&self, check: &mut ScanCheck) -> Result<()> {
        self.scan(Direction::Forward, check)
    }

    fn scan_backward(&self, check: &mut ScanCheck) -> Result<()> {
        self.scan(Direction::Backward, check)
    }

    fn writer(&self) -> Result<()> {
        Ok(())
    }

    fn commit_one<'a>(
        &'a self,
        _writer: &mut Self::Writer<'a>,
        key: &[u8],
        value: &[u8],
    ) -> Result<()> {
        self.tree.insert(key, value)?;
        self.db.commit()?;
        Ok(())
    }

    /// Records (one insert and one commit record per commit), flush requests
    /// (committers that found their commit not yet durable), those served by
    /// another committer's fsync, and WAL fsyncs, since the previous call.
    fn commit_stats(&self) -> Option<String> {
        let now = self.db.wal().stats();
        let mut before = self.wal_before.lock().ok()?;
        // The counters are monotonic; saturate anyway rather than panic.
        let records = now.records.saturating_sub(before.records);
        let fsyncs = now.fsyncs.saturating_sub(before.fsyncs);
        let requests = now.flush_requests.saturating_sub(before.flush_requests);
        let shared = now.flushes_shared.saturating_sub(before.flushes_shared);
        *before = now;
        Some(format!(
            "WAL records {records}, flush requests {requests} ({shared} served by another's \
             fsync), fsyncs {fsyncs} ({:.1} records per fsync)",
            records as f64 / fsyncs.max(1) as f64
        ))
    }
}
