//! The transaction manager: hands out xids and CSNs, decides what became
//! of a transaction (the one owner of that rule, [`TxnManager::fate`]),
//! and keeps the running writers.
//!
//! **Counters across crashes.** Neither the xid counter nor the CSN
//! counter is logged per use. Each has a reservation limit kept in the CSN
//! log's directory (a logged B+tree entry); a counter about to hand out a
//! value at or past its limit first logs a limit [`RESERVE_STEP`] higher.
//! The reservation's record precedes, in the WAL, every record that
//! carries a value under it, so after any crash every xid and CSN ever
//! used is below the recovered limits. A run starts both counters at the
//! limits:
//!
//! - `next_xid = xid limit`, and that xid is the run's first (`run_start`);
//! - `completed = csn limit - 1`: every transaction that committed before
//!   has a CSN below the limit, so every snapshot of the new run sees all
//!   of them.
//!
//! **Transactions a crash interrupted** are aborted by rule, with no pass
//! over the log: an xid below `run_start` whose fate is still "in
//! progress" never committed (its commit record would have set the fate on
//! replay), so it is aborted. The same holds in a run for an xid in
//! progress in the log that is no longer in the live table (its abort
//! could not be logged): [`TxnManager::outcome`].

use crate::clock::{CommitClock, Snapshot};
use crate::csn_log::{CsnLog, Limits};
use crate::error::TxnError;
use crate::fate::Fate;
use crate::ids::{Csn, Xid};
use crate::live::{Ended, LiveEntry, LiveTable};
use crate::slots::SnapshotSlots;
use crate::transaction::{Durability, Isolation, Transaction};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Manager ids are never reused, so a cached fate can only match the
/// live manager that resolved it.
static NEXT_MANAGER_ID: AtomicU64 = AtomicU64::new(1);

/// How far one reservation moves a counter's limit.
pub const RESERVE_STEP: u64 = 1 << 16;

/// Waits and timeouts (PostgreSQL's names and defaults).
#[derive(Debug, Clone, Copy)]
pub struct TxnConfig {
    /// How long a waiter sleeps before it looks for a deadlock (1 s).
    pub deadlock_timeout: Duration,
    /// How long a waiter waits at most (`None`: for ever, the default).
    pub lock_timeout: Option<Duration>,
    /// `max_prepared_transactions`: how many transactions may be
    /// prepared at once (0, PostgreSQL's default, disables `PREPARE
    /// TRANSACTION`).
    pub max_prepared: usize,
}

impl Default for TxnConfig {
    fn default() -> Self {
        TxnConfig {
            deadlock_timeout: Duration::from_secs(1),
            lock_timeout: None,
            max_prepared: 0,
        }
    }
}

/// What a writer needs to know about a transaction whose version it met.
#[derive(Debug, Clone)]
pub enum Outcome {
    /// Still running: wait for it with [`Transaction::wait_for`].
    Running,
    Committed(Csn),
    Aborted,
}

/// The transaction manager of one database.
#[derive(Debug)]
pub struct TxnManager {
    log: CsnLog,
    clock: CommitClock,
    next_xid: AtomicU64,
    xid_limit: AtomicU64,
    csn_limit: AtomicU64,
    /// Serialises reservations (rare: once per `RESERVE_STEP` values).
    reserving: Mutex<()>,
    run_start: Xid,
    /// This manager's id (`fate_cache.rs`).
    id: u64,
    pub(crate) live: LiveTable,
    pub(crate) slots: SnapshotSlots,
    pub(crate) config: TxnConfig,
    /// Members of share-lock groups (`share_groups.rs`).
    pub(crate) share_groups: crate::share_groups::ShareGroups,
    /// Table locks (`relation_locks.rs`).
    pub(crate) relation_locks: crate::relation_locks::RelationLocks,
    /// SERIALIZABLE's transactions and SIREAD locks (`serializable.rs`).
    pub(crate) serializable: crate::serializable::Serializable,
    /// Advisory locks (`advisory.rs`).
    advisory: Arc<crate::advisory::AdvisoryLocks>,
    /// The live sessions (`backends.rs`).
    backends: Arc<crate::backends::Backends>,
    /// The tables' and indexes' statistics (`stat_store.rs`).
    stats: Arc<crate::stat_store::StatStore>,
    /// Prepared transactions (`prepared.rs`).
    pub(crate) prepared: crate::prepared::Registry,
    /// The catalog's own tables and indexes, sorted: SERIALIZABLE takes
    /// no SIREAD lock on them (`set_system_relations`).
    system_relations: std::sync::OnceLock<Vec<u64>>,
}

impl TxnManager {
    /// The manager over `log`, continuing after its recovered limits.
    pub fn open(log: CsnLog, config: TxnConfig) -> Result<Arc<TxnManager>, TxnError> {
        let limits = log.limits()?.unwrap_or(Limits {
            xid: Xid::FIRST_NORMAL,
            csn: Csn(1),
        });
        let stats = Arc::<crate::stat_store::StatStore>::default();
        let mgr = Arc::new(TxnManager {
            log,
            clock: CommitClock::new(Csn(limits.csn.0 - 1)),
            next_xid: AtomicU64::new(limits.xid.0),
            xid_limit: AtomicU64::new(limits.xid.0),
            csn_limit: AtomicU64::new(limits.csn.0),
            reserving: Mutex::new(()),
            run_start: limits.xid,
            id: NEXT_MANAGER_ID.fetch_add(1, Ordering::Relaxed),
            live: LiveTable::new(),
            slots: SnapshotSlots::new(),
            config,
            share_groups: Default::default(),
            relation_locks: Default::default(),
            serializable: Default::default(),
            advisory: Arc::new(crate::advisory::AdvisoryLocks::new(config, stats.clone())),
            backends: Arc::default(),
            stats,
            prepared: Default::default(),
            system_relations: std::sync::OnceLock::new(),
        });
        mgr.restore_prepared()?;
        Ok(mgr)
    }

    /// Restores the prepared transactions a restart found in the
    /// directory (README "Two-phase commit"): each whose xid is still in
    /// progress runs again, with its table locks; the state of one that
    /// ended (its commit or abort logged, the removal of its state not)
    /// is removed.
    fn restore_prepared(&self) -> Result<(), TxnError> {
        use crate::prepared::{PreparedTxn, State};
        let mut recovered = Vec::new();
        for (xid, bytes) in self.log.prepared()? {
            if self.log.fate(xid)? != Some(Fate::InProgress) {
                self.log.remove_prepared(xid)?;
                continue;
            }
            let Some(state) = State::decode(xid, &bytes) else {
                return Err(TxnError::corrupt(
                    folio_page::PageId(0),
                    format!("the prepared state of {xid} does not decode"),
                ));
            };
            let entry = self.live.start(xid);
            for &(oid, mode) in &state.table_locks {
                // (They were held together before: none conflicts.)
                let _ = self.relation_locks.try_acquire(self, oid, mode, xid);
            }
            let serializable =
                (state.serializable).then(|| self.serializable.restore_prepared(xid));
            recovered.push(xid);
            self.prepared.lock().insert(
                state.info.gid.clone(),
                Some(PreparedTxn {
                    info: state.info,
                    entry,
                    serializable,
                    stats: None,
                }),
            );
        }
        recovered.sort();
        let _ = self.prepared.recovered.set(recovered);
        Ok(())
    }

    /// Names the catalog's own tables and indexes (their ids), once, when
    /// the database opens: SERIALIZABLE neither takes nor checks SIREAD
    /// locks on them, as PostgreSQL takes none on its system catalogs
    /// (`PredicateLockingNeededForRelation`). A catalog change is still
    /// ordered by its table locks and its rows' first-updater-wins; what
    /// SSI would add are conflicts between DDL and reads of the catalog,
    /// which PostgreSQL does not report either.
    pub fn set_system_relations(&self, mut ids: Vec<u64>) {
        ids.sort_unstable();
        let _ = self.system_relations.set(ids);
    }

    /// Whether `relation` is one of [`TxnManager::set_system_relations`].
    pub(crate) fn is_system_relation(&self, relation: u64) -> bool {
        (self.system_relations.get()).is_some_and(|ids| ids.binary_search(&relation).is_ok())
    }

    /// The prepared transactions, by xid (`pg_prepared_xacts`).
    pub fn prepared_transactions(&self) -> Vec<crate::prepared::PreparedInfo> {
        self.prepared.list()
    }

    /// `COMMIT PREPARED gid` (`commit`) or `ROLLBACK PREPARED gid`, from
    /// any session: the commit record with its CSN, flushed (as any
    /// synchronous commit), or the abort record, flushed too; then the
    /// transaction leaves the live table (its waiters wake, its table
    /// locks are gone) and its stored state is removed. 42704 for a gid
    /// no prepared transaction has.
    pub fn finish_prepared(self: &Arc<Self>, gid: &str, commit: bool) -> Result<(), TxnError> {
        let taken = {
            let mut map = self.prepared.lock();
            // (`None`: being prepared by its session, not there yet.)
            match map.get(gid) {
                Some(Some(_)) => map.remove(gid).flatten(),
                _ => None,
            }
        };
        let Some(p) = taken else {
            return Err(crate::prepared::unknown_gid(gid));
        };
        let xid = p.entry.xid;
        let ended = match commit {
            true => crate::transaction::commit_entry(
                self,
                &p.entry,
                p.serializable,
                crate::transaction::Durability::Sync,
            )
            .0
            // (Flushed even where the WAL commits asynchronously, as
            // PostgreSQL's COMMIT PREPARED.)
            .and_then(|_| Ok(self.log.wal().flush_all()?)),
            false => {
                let logged = self.log.set_fate(xid, Fate::Aborted);
                self.finish(&p.entry, Ended::Aborted);
                logged.and_then(|end| Ok(self.log.wal().flush_to(end)?))
            }
        };
        // A crash before this record leaves the state with an ended xid:
        // removed at the next open.
        let removed = self.log.remove_prepared(xid);
        if let Some(stats) = p.stats {
            stats.end(commit && ended.is_ok());
        }
        if let Some(id) = p.serializable {
            self.serializable.end(id, self.clock.completed());
        }
        ended?;
        removed
    }

    /// The database's advisory locks (`advisory.rs`).
    pub fn advisory(&self) -> &Arc<crate::advisory::AdvisoryLocks> {
        &self.advisory
    }

    /// Every table lock a running transaction holds: `(table oid, holder,
    /// mode)` (`pg_locks`).
    pub fn table_locks(&self) -> Vec<(u64, Xid, crate::relation_locks::LockMode)> {
        self.relation_locks.held(self)
    }

    /// The database's live sessions (`backends.rs`).
    pub fn backends(&self) -> &Arc<crate::backends::Backends> {
        &self.backends
    }

    /// The tables' and indexes' cumulative statistics (`stat_store.rs`).
    pub fn stats(&self) -> &Arc<crate::stat_store::StatStore> {
        &self.stats
    }

    /// Starts a transaction.
    pub fn begin(
        self: &Arc<Self>,
        isolation: Isolation,
        durability: Durability,
    ) -> Result<Transaction, TxnError> {
        Transaction::new(self.clone(), isolation, durability)
    }

    /// How many serializable transactions (running, or committed and
    /// still concurrent with a running one) and SIREAD locks are
    /// remembered.
    pub fn serializable_remembered(&self) -> (usize, usize) {
        self.serializable.remembered()
    }

    /// The oldest snapshot a running transaction may still read with: a
    /// version whose deleter committed at or below it is dead to every
    /// snapshot now and later (pruning and vacuum may remove it).
    pub fn horizon(&self) -> Csn {
        self.slots.horizon(&self.clock)
    }

    /// The oldest snapshot a running transaction *began* with (at most
    /// [`TxnManager::horizon`]): every transaction still running started
    /// after every commit at or below it, so nothing it read can predate
    /// such a commit. The catalog gives back a dropped relation's pages
    /// only once the drop's commit is at or below it.
    pub fn start_horizon(&self) -> Csn {
        self.slots.start_horizon(&self.clock)
    }

    /// A snapshot: one load.
    pub fn snapshot(&self) -> Snapshot {
        self.clock.snapshot()
    }

    /// The first xid of this run: an xid below it still "in progress" in
    /// the log was interrupted by a crash.
    pub fn run_start(&self) -> Xid {
        self.run_start
    }

    /// The fate of `xid` for visibility: committed with its CSN, aborted,
    /// or in progress. "In progress" may also be an abort that could not
    /// be logged; both hide a version, so readers need not tell them apart
    /// (writers ask [`TxnManager::outcome`]). A subtransaction's fate is
    /// its parent's unless it was rolled back. An optimistic read of the
    /// CSN log (two for a subtransaction): writes nothing shared.
    pub fn fate(&self, xid: Xid) -> Result<Fate, TxnError> {
        if let Some(fate) = crate::fate_cache::get(self.id, xid) {
            return Ok(fate);
        }
        let fate = self.resolve(xid)?.1;
        if matches!(fate, Fate::Committed(_) | Fate::Aborted) {
            crate::fate_cache::put(self.id, xid, fate);
        }
        Ok(fate)
    }

    /// The top-level transaction whose fate decides `xid`'s, and that fate.
    fn resolve(&self, xid: Xid) -> Result<(Xid, Fate), TxnError> {
        match self.own_fate(xid)? {
            Fate::SubOf(parent) => match self.own_fate(parent)? {
                Fate::SubOf(_) => Err(TxnError::corrupt(
                    folio_page::PageId(0),
                    format!("{xid} is a subtransaction of {parent}, itself a subtransaction"),
                )),
                fate => Ok((parent, fate)),
            },
            fate => Ok((xid, fate)),
        }
    }

    /// What the CSN log says of `xid` itself, with the run-start rule.
    fn own_fate(&self, xid: Xid) -> Result<Fate, TxnError> {
        if xid == Xid::BOOTSTRAP {
            return Ok(Fate::Committed(Csn::ZERO));
        }
        Ok(match self.log.fate(xid)? {
            // Its page never existed, so it never ended: interrupted.
            None => Fate::Aborted,
            Some(Fate::InProgress) if xid < self.run_start && !self.prepared.is_recovered(xid) => {
                Fate::Aborted
            }
            Some(fate) => fate,
        })
    }

    /// The top-level transaction to wait for when `xid`'s version is in
    /// the way (itself, or its parent for a subtransaction).
    pub fn top_of(&self, xid: Xid) -> Result<Xid, TxnError> {
        Ok(self.resolve(xid)?.0)
    }

    /// What a writer needs to know of `xid`: running (wait for its top
    /// level, [`TxnManager::top_of`]), committed or aborted.
    pub fn outcome(&self, xid: Xid) -> Result<Outcome, TxnError> {
        let (top, fate) = self.resolve(xid)?;
        match fate {
            // Committed in the log but not yet visible to new snapshots
            // (it is between its fate and its publication): still running
            // for writers, who wait for it to leave the live table, so a
            // snapshot taken after the wait sees it (PostgreSQL checks
            // its ProcArray before its clog for the same reason).
            Fate::Committed(csn)
                if csn > self.clock.completed() && self.live.get(top).is_some() =>
            {
                Ok(Outcome::Running)
            }
            Fate::Committed(csn) => Ok(Outcome::Committed(csn)),
            Fate::InProgress if self.live.get(top).is_some() => Ok(Outcome::Running),
            Fate::InProgress => {
                // Gone from the table: it ended after our first look. Its
                // fate was stored before it left, so a second look sees it
                // unless its abort could not be logged.
                Ok(match self.fate(xid)? {
                    Fate::Committed(csn) => Outcome::Committed(csn),
                    _ => Outcome::Aborted,
                })
            }
            _ => Ok(Outcome::Aborted),
        }
    }

    /// Running writers now.
    pub fn running(&self) -> usize {
        self.live.len()
    }

    /// The top-level xids of the writers running now (a moment's view:
    /// each shard is read under its own lock), for PostgreSQL-style
    /// snapshots (folio-sql `xid_functions.rs`).
    pub fn running_xids(&self) -> Vec<Xid> {
        self.live.xids()
    }

    /// The next xid to be handed out: no transaction has one at or past
    /// it yet.
    pub fn next_unassigned_xid(&self) -> Xid {
        Xid(self.next_xid.load(Ordering::Acquire))
    }

    /// The CSN log.
    pub fn log(&self) -> &CsnLog {
        &self.log
    }

    /// A new top-level xid, entered in the live table.
    pub(crate) fn assign_xid(&self) -> Result<Arc<LiveEntry>, TxnError> {
        let xid = self.next_xid()?;
        Ok(self.live.start(xid))
    }

    /// A new subtransaction xid of `parent`, its parent logged (SUBXACT).
    pub(crate) fn assign_sub_xid(&self, parent: Xid) -> Result<Xid, TxnError> {
        let xid = self.next_xid()?;
        self.log.set_fate(xid, Fate::SubOf(parent))?;
        Ok(xid)
    }

    /// A fresh id for a share group: an xid no transaction ever gets.
    pub(crate) fn next_group_id(&self) -> Result<Xid, TxnError> {
        self.next_xid()
    }

    /// The next xid, its reservation logged and its log page in place.
    fn next_xid(&self) -> Result<Xid, TxnError> {
        let xid = Xid(self.next_xid.fetch_add(1, Ordering::Relaxed));
        if xid.0 >= self.xid_limit.load(Ordering::Acquire) {
            self.reserve(Some(xid), None)?;
        }
        self.log.ensure_page_for(xid)?;
        Ok(xid)
    }

    pub(crate) fn clock(&self) -> &CommitClock {
        &self.clock
    }

    /// Makes sure `csn` is below the logged CSN limit.
    pub(crate) fn reserve_csn(&self, csn: Csn) -> Result<(), TxnError> {
        if csn.0 >= self.csn_limit.load(Ordering::Acquire) {
            self.reserve(None, Some(csn))?;
        }
        Ok(())
    }

    /// Logs limits above `xid` and `csn` where they are not already.
    fn reserve(&self, xid: Option<Xid>, csn: Option<Csn>) -> Result<(), TxnError> {
        let _one = self.reserving.lock().unwrap_or_else(|p| p.into_inner());
        let mut limits = Limits {
            xid: Xid(self.xid_limit.load(Ordering::Acquire)),
            csn: Csn(self.csn_limit.load(Ordering::Acquire)),
        };
        let mut changed = false;
        if let Some(xid) = xid.filter(|x| x.0 >= limits.xid.0) {
            limits.xid = Xid(xid.0 + RESERVE_STEP);
            changed = true;
        }
        if let Some(csn) = csn.filter(|c| c.0 >= limits.csn.0) {
            limits.csn = Csn(csn.0 + RESERVE_STEP);
            changed = true;
        }
        if changed {
            self.log.set_limits(limits)?;
            self.xid_limit.store(limits.xid.0, Ordering::Release);
            self.csn_limit.store(limits.csn.0, Ordering::Release);
        }
        Ok(())
    }

    pub(crate) fn finish(&self, entry: &LiveEntry, how: Ended) {
        self.live.finish(entry, how);
    }
}
