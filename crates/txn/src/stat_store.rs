//! The database's cumulative table and index statistics (PostgreSQL's
//! shared statistics of relations, which `pg_stat_user_tables` and
//! `pg_stat_user_indexes` show): one [`StatEntry`] per relation oid,
//! added to by the sessions' publications (`stat_counts.rs`) and set by
//! VACUUM and ANALYZE.
//!
//! The store is written a few times a second per session at most (a
//! session publishes its pending counts at a transaction's end no more
//! than once a second, at its end, and when it reads the statistics), so
//! one mutex over a map serves it; readers take a copy of an entry.
//!
//! Rules (PostgreSQL 15's): a publication adds its event counts; a
//! TRUNCATE committed since the last publication first sets the live and
//! dead row counts and the inserts since the last vacuum to 0; the live
//! and dead counts never go below 0. VACUUM sets the live and dead counts
//! to what it found, zeroes the inserts since vacuum and stamps its time;
//! ANALYZE sets the live count (its estimate: exact for a table it reads
//! whole), zeroes the changes since analyze and stamps its time. `pg_stat_reset()` forgets every
//! entry (all counts 0, no times), a dropped relation's entry goes when
//! its drop commits. Nothing is kept across a restart (PostgreSQL keeps
//! them across a clean shutdown).

use crate::stat_counts::Pending;
use std::sync::{Arc, Mutex, MutexGuard};

/// Maps keyed by a relation's oid (a fixed seed: oids are the
/// database's own numbers, not an attacker's).
pub type OidMap<V> = std::collections::HashMap<u64, V, foldhash::fast::FixedState>;

/// One relation's cumulative statistics (a table's, or an index's scan
/// counts). Times are microseconds since 2000-01-01 UTC.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct StatEntry {
    /// Scans begun: sequential scans of a table, scans of an index.
    pub scans: u64,
    /// Rows sequential scans returned; index entries index scans returned.
    pub returned: u64,
    /// Table rows index scans fetched (an index's count).
    pub fetched: u64,
    pub inserted: u64,
    pub updated: u64,
    pub hot_updated: u64,
    pub deleted: u64,
    /// Estimated live and dead rows.
    pub live: i64,
    pub dead: i64,
    /// Rows changed (committed) since the last ANALYZE.
    pub mod_since_analyze: i64,
    /// Rows inserted since the last VACUUM.
    pub ins_since_vacuum: i64,
    pub last_vacuum: Option<i64>,
    pub last_autovacuum: Option<i64>,
    pub last_analyze: Option<i64>,
    pub vacuum_count: u64,
    pub autovacuum_count: u64,
    pub analyze_count: u64,
}

/// The database's own counts (`pg_stat_database`), beside its relations'.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DatabaseCounts {
    /// Transactions of SQL sessions committed and rolled back.
    pub commits: u64,
    pub rollbacks: u64,
    /// Deadlocks found (the transactions they ended).
    pub deadlocks: u64,
    /// Sessions begun.
    pub sessions: u64,
    /// Its relations' counts, summed as they are published (kept when a
    /// relation is dropped): rows and index entries scans returned, rows
    /// index scans fetched, rows inserted, updated and deleted.
    pub returned: u64,
    pub fetched: u64,
    pub inserted: u64,
    pub updated: u64,
    pub deleted: u64,
    /// Pages the buffer pool found resident and read from the file
    /// since the last reset (filled when read: [`StatStore::database_counts`]).
    pub blocks_hit: u64,
    pub blocks_read: u64,
    /// Pages read whose checksum did not match since the database opened
    /// (`None` with checksums off), and when the last was (microseconds
    /// since the Unix epoch).
    pub checksum_failures: Option<u64>,
    pub last_checksum_failure: Option<u64>,
    /// When `pg_stat_reset()` last ran (microseconds since 2000-01-01
    /// UTC; `None`: not since the database opened).
    pub reset_at: Option<i64>,
    /// The pool's hits and reads at the last reset.
    blocks_at_reset: (u64, u64),
}

/// The statistics of one database and its relations (`TxnManager::stats`).
#[derive(Debug, Default)]
pub struct StatStore {
    entries: Mutex<OidMap<StatEntry>>,
    database: Mutex<DatabaseCounts>,
    /// The database's buffer pool, whose page counts are the database's
    /// block counts (set once the database opens it).
    pool: std::sync::OnceLock<Arc<folio_buffer::BufferPool>>,
}

impl StatStore {
    fn entries(&self) -> MutexGuard<'_, OidMap<StatEntry>> {
        self.entries.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Relation `oid`'s statistics (`None`: nothing counted since it was
    /// made or the statistics were reset: all zero).
    pub fn get(&self, oid: u64) -> Option<StatEntry> {
        self.entries().get(&oid).copied()
    }

    fn database(&self) -> MutexGuard<'_, DatabaseCounts> {
        self.database.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Counts the database's blocks from `pool`'s (the first pool set
    /// stays).
    pub fn watch_pool(&self, pool: Arc<folio_buffer::BufferPool>) {
        let _ = self.pool.set(pool);
    }

    /// The pool's hits and reads now.
    fn blocks_now(&self) -> (u64, u64) {
        self.pool.get().map_or((0, 0), |pool| {
            let stats = pool.stats();
            (stats.hits, stats.misses)
        })
    }

    /// The database's own counts.
    pub fn database_counts(&self) -> DatabaseCounts {
        let mut counts = *self.database();
        let (hits, reads) = self.blocks_now();
        counts.blocks_hit = hits.saturating_sub(counts.blocks_at_reset.0);
        counts.blocks_read = reads.saturating_sub(counts.blocks_at_reset.1);
        if let Some(pool) = self.pool.get().filter(|p| p.checksums()) {
            let (failures, last) = pool.checksum_failures();
            (counts.checksum_failures, counts.last_checksum_failure) = (Some(failures), last);
        }
        counts
    }

    /// A deadlock was found.
    pub fn count_deadlock(&self) {
        self.database().deadlocks += 1;
    }

    /// A session began.
    pub fn count_session(&self) {
        self.database().sessions += 1;
    }

    /// Adds a session's pending transaction ends (emptied).
    pub(crate) fn publish_ends(&self, commits: &mut u64, rollbacks: &mut u64) {
        if *commits + *rollbacks > 0 {
            let mut database = self.database();
            database.commits += std::mem::take(commits);
            database.rollbacks += std::mem::take(rollbacks);
        }
    }

    /// Every relation's statistics, by oid.
    pub fn all(&self) -> OidMap<StatEntry> {
        self.entries().clone()
    }

    /// Adds a session's pending counts (emptied) and forgets the relations
    /// whose drop committed (`dropped`, emptied).
    pub(crate) fn publish(&self, pending: &mut OidMap<Pending>, dropped: &mut Vec<u64>) {
        let mut entries = self.entries();
        let mut database = self.database();
        for (oid, p) in pending.drain() {
            database.returned += p.counts.returned;
            database.fetched += p.counts.fetched;
            database.inserted += p.counts.inserted;
            database.updated += p.counts.updated;
            database.deleted += p.counts.deleted;
            let e = entries.entry(oid).or_default();
            e.scans += p.counts.scans;
            e.returned += p.counts.returned;
            e.fetched += p.counts.fetched;
            e.inserted += p.counts.inserted;
            e.updated += p.counts.updated;
            e.hot_updated += p.counts.hot_updated;
            e.deleted += p.counts.deleted;
            if p.truncated {
                e.live = 0;
                e.dead = 0;
                e.ins_since_vacuum = 0;
            }
            e.live = (e.live + p.live_delta).max(0);
            e.dead = (e.dead + p.dead_delta).max(0);
            e.mod_since_analyze += p.changed as i64;
            e.ins_since_vacuum += p.counts.inserted as i64;
        }
        for oid in dropped.drain(..) {
            entries.remove(&oid);
        }
    }

    /// VACUUM of table `oid` (by autovacuum if `auto`) found `live` rows
    /// and `dead` ones it could not remove yet, at `now`.
    pub fn report_vacuum(&self, oid: u64, live: u64, dead: u64, auto: bool, now: i64) {
        let mut entries = self.entries();
        let e = entries.entry(oid).or_default();
        e.live = live as i64;
        e.dead = dead as i64;
        e.ins_since_vacuum = 0;
        if auto {
            e.last_autovacuum = Some(now);
            e.autovacuum_count += 1;
        } else {
            e.last_vacuum = Some(now);
            e.vacuum_count += 1;
        }
    }

    /// ANALYZE of table `oid` found `live` rows, at `now` (folio's
    /// ANALYZE does not count dead versions: the dead rows stay as
    /// counted).
    pub fn report_analyze(&self, oid: u64, live: u64, now: i64) {
        let mut entries = self.entries();
        let e = entries.entry(oid).or_default();
        e.live = live as i64;
        e.mod_since_analyze = 0;
        e.last_analyze = Some(now);
        e.analyze_count += 1;
    }

    /// `pg_stat_reset()` at `now`: every relation's statistics and the
    /// database's counts back to zero (checksum failures stay, as
    /// PostgreSQL's do).
    pub fn reset(&self, now: i64) {
        self.entries().clear();
        *self.database() = DatabaseCounts {
            reset_at: Some(now),
            blocks_at_reset: self.blocks_now(),
            ..DatabaseCounts::default()
        };
    }

    /// `pg_stat_reset_single_table_counters(oid)`.
    pub fn reset_one(&self, oid: u64) {
        self.entries().remove(&oid);
    }
}
