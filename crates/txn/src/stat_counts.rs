//! What the executor counts of tables and indexes, as PostgreSQL counts
//! it: plain integers in the session (its pending counts) and, for row
//! changes, in the transaction until it ends; published to the
//! database's store (`stat_store.rs`) from the session.
//!
//! **Counting.** Scans (a sequential scan of a table and the rows it
//! returned, an index scan and the entries it returned and rows it
//! fetched) and HOT updates are counted whatever becomes of the
//! transaction. Inserts, updates and deletes are counted per open level
//! (the transaction, each savepoint), because what they do to the live
//! and dead row estimates depends on how the level ends:
//!
//! - a level committed (a savepoint released) adds its counts to the
//!   enclosing level's; the transaction committed adds them to the event
//!   counts, `inserted - deleted` to the live rows, `updated + deleted` to
//!   the dead ones, and all three to the changes since ANALYZE;
//! - a level rolled back adds its counts to the event counts too, and
//!   `inserted + updated` to the dead rows (the versions it made are dead;
//!   the rows it deleted stay live).
//!
//! TRUNCATE zeroes the level's counts (kept aside: a rollback brings them
//! back); the transaction committed then restarts the table's live and
//! dead rows from 0, here and in the store.
//!
//! **Publishing.** A transaction's end folds its counts into the
//! session's ([`SessionStats`], held by its entry among the live sessions:
//! `backends.rs`). They are published to the store when the last
//! publication is a second old or more, when forced
//! (`pg_stat_force_next_flush()`), when the session ends, and whenever a
//! session reads the statistics: it publishes every live session's
//! pending counts first (`Backends::publish_stats`). So a reader sees
//! every transaction that ended before its read (PostgreSQL: up to a
//! second later, `PGSTAT_MIN_INTERVAL`, or about a second after its
//! session went idle), and the hot path costs an uncontended lock and a
//! hash-map update per relation counted, one more lock and a clock read
//! at the transaction's end, and one publication a second.

use crate::stat_store::{OidMap, StatStore};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// Publications of one session are at least this far apart, unless forced.
pub const PUBLISH_INTERVAL: Duration = Duration::from_secs(1);

/// Event counts of one relation.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Counts {
    pub(crate) scans: u64,
    pub(crate) returned: u64,
    pub(crate) fetched: u64,
    pub(crate) inserted: u64,
    pub(crate) updated: u64,
    pub(crate) hot_updated: u64,
    pub(crate) deleted: u64,
}

/// Counts of one relation not yet published: events, and the changes
/// of the live and dead rows that ended transactions made.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Pending {
    pub(crate) counts: Counts,
    pub(crate) live_delta: i64,
    pub(crate) dead_delta: i64,
    /// Rows changed by committed transactions.
    pub(crate) changed: u64,
    /// A committed TRUNCATE: the store's live and dead rows restart at 0.
    pub(crate) truncated: bool,
}

impl Pending {
    /// A level that changed rows `c` ended, committed or not.
    fn end_level(&mut self, c: &Changes, committed: bool) {
        let (ins, upd, del) = c.kept(committed);
        self.counts.inserted += ins;
        self.counts.updated += upd;
        self.counts.deleted += del;
        if committed {
            if c.truncated.is_some() {
                self.live_delta = 0;
                self.dead_delta = 0;
                self.truncated = true;
            }
            self.live_delta += ins as i64 - del as i64;
            self.dead_delta += (upd + del) as i64;
            self.changed += ins + upd + del;
        } else {
            self.dead_delta += (ins + upd) as i64;
        }
    }
}

/// Row changes of one table at one level (transaction or savepoint).
#[derive(Debug, Clone, Copy, Default)]
struct Changes {
    inserted: u64,
    updated: u64,
    deleted: u64,
    /// A TRUNCATE at this level: the counts before it.
    truncated: Option<[u64; 3]>,
}

impl Changes {
    /// The counts to keep when the level ends: a rolled-back TRUNCATE
    /// brings back what it zeroed (the larger of before and after).
    fn kept(&self, committed: bool) -> (u64, u64, u64) {
        match (self.truncated, committed) {
            (Some([i, u, d]), false) => (
                self.inserted.max(i),
                self.updated.max(u),
                self.deleted.max(d),
            ),
            _ => (self.inserted, self.updated, self.deleted),
        }
    }

    fn truncate(&mut self) {
        if self.truncated.is_none() {
            self.truncated = Some([self.inserted, self.updated, self.deleted]);
        }
        self.inserted = 0;
        self.updated = 0;
        self.deleted = 0;
    }

    /// A committed inner level's changes `inner` join this one's.
    fn absorb(&mut self, inner: &Changes) {
        if inner.truncated.is_some() {
            self.truncate();
            self.inserted = inner.inserted;
            self.updated = inner.updated;
            self.deleted = inner.deleted;
        } else {
            self.inserted += inner.inserted;
            self.updated += inner.updated;
            self.deleted += inner.deleted;
        }
    }
}

/// One transaction's counts (in `Transaction`). Scans and HOT updates
/// go straight to the session's pending counts (an uncontended lock: only
/// the session takes it), so a reading transaction allocates nothing.
#[derive(Debug)]
pub(crate) struct TxnStats {
    session: Arc<SessionStats>,
    /// Row changes of the transaction's own level.
    top: OidMap<Changes>,
    /// Row changes per open savepoint, innermost last.
    savepoints: Vec<OidMap<Changes>>,
    /// Relations whose drop this transaction made.
    dropped: Vec<u64>,
}

impl TxnStats {
    pub(crate) fn new(session: Arc<SessionStats>) -> TxnStats {
        TxnStats {
            session,
            top: OidMap::default(),
            savepoints: Vec::new(),
            dropped: Vec::new(),
        }
    }

    pub(crate) fn seq_scan(&self, table: u64, rows: u64) {
        let mut pending = self.session.pending();
        let c = &mut pending.relations.entry(table).or_default().counts;
        c.scans += 1;
        c.returned += rows;
    }

    pub(crate) fn index_scan(&self, index: u64, scans: u64, returned: u64, fetched: u64) {
        let mut pending = self.session.pending();
        let c = &mut pending.relations.entry(index).or_default().counts;
        c.scans += scans;
        c.returned += returned;
        c.fetched += fetched;
    }

    fn level(&mut self, table: u64) -> &mut Changes {
        let level = self.savepoints.last_mut().unwrap_or(&mut self.top);
        level.entry(table).or_default()
    }

    pub(crate) fn inserted(&mut self, table: u64, rows: u64) {
        self.level(table).inserted += rows;
    }

    pub(crate) fn updated(&mut self, table: u64, hot: bool) {
        self.level(table).updated += 1;
        if hot {
            let mut pending = self.session.pending();
            pending
                .relations
                .entry(table)
                .or_default()
                .counts
                .hot_updated += 1;
        }
    }

    pub(crate) fn deleted(&mut self, table: u64) {
        self.level(table).deleted += 1;
    }

    pub(crate) fn truncated(&mut self, table: u64) {
        self.level(table).truncate();
    }

    pub(crate) fn dropped(&mut self, oid: u64) {
        self.dropped.push(oid);
    }

    /// A savepoint opens a level.
    pub(crate) fn savepoint(&mut self) {
        self.savepoints.push(OidMap::default());
    }

    /// The savepoints past the first `depth` are released into the
    /// level enclosing them.
    pub(crate) fn release_to(&mut self, depth: usize) {
        while self.savepoints.len() > depth {
            let inner = self.savepoints.pop().expect("counted above");
            let outer = self.savepoints.last_mut().unwrap_or(&mut self.top);
            for (oid, c) in &inner {
                outer.entry(*oid).or_default().absorb(c);
            }
        }
    }

    /// The savepoints past the first `depth` roll back; the one at `depth`
    /// (0-based) stays open, its level empty.
    pub(crate) fn roll_back_past(&mut self, depth: usize) {
        let mut pending = self.session.pending();
        for level in self.savepoints.drain(depth..) {
            for (oid, c) in &level {
                pending
                    .relations
                    .entry(*oid)
                    .or_default()
                    .end_level(c, false);
            }
        }
        self.savepoints.push(OidMap::default());
    }

    /// The transaction ended: its counts join the session's, which are
    /// published if it is time.
    pub(crate) fn end(mut self, committed: bool) {
        if committed {
            // Savepoints still open are part of what commits.
            self.release_to(0);
        }
        let mut pending = self.session.pending();
        match committed {
            true => pending.commits += 1,
            false => pending.rollbacks += 1,
        }
        for level in std::iter::once(&self.top).chain(&self.savepoints) {
            for (oid, c) in level {
                pending
                    .relations
                    .entry(*oid)
                    .or_default()
                    .end_level(c, committed);
            }
        }
        if committed {
            for oid in &self.dropped {
                pending.relations.remove(oid);
            }
            pending.dropped.append(&mut self.dropped);
        }
        if pending.relations.is_empty() && pending.dropped.is_empty() {
            return;
        }
        let due = pending
            .last_publish
            .is_none_or(|at| at.elapsed() >= PUBLISH_INTERVAL);
        if pending.force || due {
            self.session.publish_locked(&mut pending);
        }
    }
}

/// A session's counts not yet published (shared with its running
/// transaction, which adds to them at its end; nobody else locks them).
#[derive(Debug)]
pub struct SessionStats {
    store: Arc<StatStore>,
    pending: Mutex<SessionPending>,
}

#[derive(Debug, Default)]
struct SessionPending {
    relations: OidMap<Pending>,
    dropped: Vec<u64>,
    /// Transactions ended since the last publication.
    commits: u64,
    rollbacks: u64,
    last_publish: Option<Instant>,
    /// `pg_stat_force_next_flush()`: the next transaction end publishes.
    force: bool,
}

impl SessionStats {
    /// A session's counts, published to `store`.
    pub fn new(store: Arc<StatStore>) -> Arc<SessionStats> {
        Arc::new(SessionStats {
            store,
            pending: Mutex::default(),
        })
    }

    fn pending(&self) -> MutexGuard<'_, SessionPending> {
        self.pending.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn publish_locked(&self, pending: &mut SessionPending) {
        let SessionPending {
            relations,
            dropped,
            commits,
            rollbacks,
            ..
        } = pending;
        self.store.publish(relations, dropped);
        self.store.publish_ends(commits, rollbacks);
        pending.last_publish = Some(Instant::now());
        pending.force = false;
    }

    /// Publishes now (the session reads the statistics, or ends).
    pub fn publish(&self) {
        let mut pending = self.pending();
        let ended = pending.commits + pending.rollbacks > 0;
        if ended || !pending.relations.is_empty() || !pending.dropped.is_empty() {
            self.publish_locked(&mut pending);
        }
    }

    /// `pg_stat_force_next_flush()`: what is pending is published now,
    /// and the running transaction's counts at its end.
    pub fn force_next(&self) {
        let mut pending = self.pending();
        self.publish_locked(&mut pending);
        pending.force = true;
    }

    /// The store it publishes to.
    pub fn store(&self) -> &Arc<StatStore> {
        &self.store
    }
}

impl Drop for SessionStats {
    fn drop(&mut self) {
        self.publish();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn txn(session: &Arc<SessionStats>) -> TxnStats {
        TxnStats::new(session.clone())
    }

    /// The live and dead rows follow PostgreSQL's rules for commits,
    /// rollbacks, savepoints and TRUNCATE.
    #[test]
    fn live_and_dead_rows_follow_the_transaction() {
        let store = Arc::new(StatStore::default());
        let session = SessionStats::new(store.clone());
        let mut t = txn(&session);
        t.inserted(1, 3);
        t.updated(1, true);
        t.deleted(1);
        t.end(true);
        session.publish();
        let e = store.get(1).unwrap();
        assert_eq!(
            (e.inserted, e.updated, e.hot_updated, e.deleted),
            (3, 1, 1, 1)
        );
        assert_eq!((e.live, e.dead, e.mod_since_analyze), (2, 2, 5));

        // Rolled back: the inserts count, their rows are dead.
        let mut t = txn(&session);
        t.inserted(1, 2);
        t.deleted(1);
        t.end(false);
        session.publish();
        let e = store.get(1).unwrap();
        assert_eq!((e.inserted, e.deleted, e.live, e.dead), (5, 2, 2, 4));

        // A savepoint rolled back, one released.
        let mut t = txn(&session);
        t.savepoint();
        t.inserted(1, 4);
        t.roll_back_past(0);
        t.inserted(1, 1);
        t.release_to(0);
        t.end(true);
        session.publish();
        let e = store.get(1).unwrap();
        assert_eq!((e.inserted, e.live, e.dead), (10, 3, 8));

        // TRUNCATE committed: live and dead restart from 0.
        let mut t = txn(&session);
        t.inserted(1, 7);
        t.truncated(1);
        t.inserted(1, 2);
        t.end(true);
        session.publish();
        let e = store.get(1).unwrap();
        assert_eq!((e.inserted, e.live, e.dead), (12, 2, 0));

        // TRUNCATE rolled back: what it zeroed counts again.
        let mut t = txn(&session);
        t.inserted(1, 5);
        t.truncated(1);
        t.end(false);
        session.publish();
        let e = store.get(1).unwrap();
        assert_eq!((e.inserted, e.live, e.dead), (17, 2, 5));

        let mut t = txn(&session);
        t.dropped(1);
        t.end(true);
        session.publish();
        assert_eq!(store.get(1), None);
    }

    /// Counts reach the store at once the first time, then not before a
    /// second has passed unless forced or asked for.
    #[test]
    fn publications_are_spaced() {
        let store = Arc::new(StatStore::default());
        let session = SessionStats::new(store.clone());
        let t = txn(&session);
        t.seq_scan(7, 10);
        t.end(true);
        assert_eq!(store.get(7).map(|e| e.scans), Some(1));
        let t = txn(&session);
        t.seq_scan(7, 10);
        t.end(true);
        assert_eq!(store.get(7).map(|e| e.scans), Some(1));
        session.force_next();
        let t = txn(&session);
        t.index_scan(8, 1, 1, 1);
        t.end(false);
        assert_eq!(store.get(7).map(|e| (e.scans, e.returned)), Some((2, 20)));
        assert_eq!(store.get(8).map(|e| e.fetched), Some(1));
        drop(session);
        assert_eq!(store.all().len(), 2);
    }
}
