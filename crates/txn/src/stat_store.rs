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
use std::sync::{Mutex, MutexGuard};

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

/// The statistics of one database's relations (`TxnManager::stats`).
#[derive(Debug, Default)]
pub struct StatStore {
    entries: Mutex<OidMap<StatEntry>>,
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

    /// Every relation's statistics, by oid.
    pub fn all(&self) -> OidMap<StatEntry> {
        self.entries().clone()
    }

    /// Adds a session's pending counts (emptied) and forgets the relations
    /// whose drop committed (`dropped`, emptied).
    pub(crate) fn publish(&self, pending: &mut OidMap<Pending>, dropped: &mut Vec<u64>) {
        let mut entries = self.entries();
        for (oid, p) in pending.drain() {
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

    /// `pg_stat_reset()`: every relation's statistics back to zero.
    pub fn reset(&self) {
        self.entries().clear();
    }

    /// `pg_stat_reset_single_table_counters(oid)`.
    pub fn reset_one(&self, oid: u64) {
        self.entries().remove(&oid);
    }
}
