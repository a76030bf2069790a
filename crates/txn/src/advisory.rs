//! Advisory locks (PostgreSQL's `pg_advisory_lock` family): locks on
//! numbers an application chooses, held by a *session* either until it
//! unlocks them or ends (session scope), or until its transaction ends
//! (transaction scope).
//!
//! Their holders are sessions, not transactions, so they cannot live in
//! the row and table locks' scheme (a lock is its running holder xid,
//! released by the holder's end; `live.rs`): a session lock outlives
//! every transaction of its session. They get this small table of their
//! own, one per database (`TxnManager::advisory`), under one mutex: they
//! are taken a few times per migration or job, not per row.
//!
//! **Holds.** A key's holds are `(owner, mode, session count, transaction
//! count)`: a session takes a lock as often as it likes (each take
//! counted, each `pg_advisory_unlock` gives one back), and its session
//! and transaction takes of one key are counted apart, as PostgreSQL's.
//! An owner never conflicts with itself. `Exclusive` conflicts with every
//! other owner's hold, `Shared` with other owners' `Exclusive` ones.
//!
//! **Waits.** A blocked taker sleeps on the table's condition variable,
//! woken by every release; it records what it waits for, so a waiter
//! that has waited `deadlock_timeout` looks for a cycle of advisory waits
//! through itself and fails with 40P01 if it finds one (its transaction's
//! other waits, on rows and tables, are not in that graph: a cycle through
//! both kinds is broken only by `lock_timeout` or a cancel). `lock_timeout`
//! fails it with 55P03, and a cancel (its session's `Interrupt`, which
//! wakes this condition variable) with 57014. Unlike PostgreSQL there is no
//! queue: a lock is granted to whichever compatible taker runs first, so a
//! stream of shared takers can hold off an exclusive one.
//!
//! **Ends.** A transaction gives back its owner's transaction-scope locks
//! when it ends (`Transaction`'s drop: commit, rollback or an abandoned
//! transaction alike); a dropped owner (its session ended, a client's
//! disconnect included) gives back everything. Locks taken in a savepoint
//! rolled back to are kept until the transaction ends (PostgreSQL releases
//! them). Nothing here survives a crash, and nothing needs to.

use crate::error::TxnError;
use crate::interrupt::Interrupt;
use crate::manager::TxnConfig;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// An advisory lock's key, in PostgreSQL's two spaces: one `bigint`, or
/// two `integer`s (which never meet the `bigint` keys).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AdvisoryKey {
    Big(i64),
    Pair(i32, i32),
}

impl AdvisoryKey {
    /// PostgreSQL's `pg_locks` columns for it: `(classid, objid,
    /// objsubid)` (a `bigint` split into its high and low 32 bits, with
    /// `objsubid` 1; a pair as it is, with `objsubid` 2).
    pub fn pg_locks_ids(self) -> (u32, u32, i16) {
        match self {
            AdvisoryKey::Big(key) => ((key as u64 >> 32) as u32, key as u64 as u32, 1),
            AdvisoryKey::Pair(a, b) => (a as u32, b as u32, 2),
        }
    }
}

/// An advisory lock's mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AdvisoryMode {
    Exclusive,
    Shared,
}

impl AdvisoryMode {
    pub fn conflicts(self, other: AdvisoryMode) -> bool {
        self == AdvisoryMode::Exclusive || other == AdvisoryMode::Exclusive
    }

    /// PostgreSQL's name of the lock mode (`pg_locks.mode`, warnings).
    pub fn name(self) -> &'static str {
        match self {
            AdvisoryMode::Exclusive => "ExclusiveLock",
            AdvisoryMode::Shared => "ShareLock",
        }
    }
}

/// How long an advisory lock is held.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AdvisoryScope {
    /// Until unlocked or the session ends.
    Session,
    /// Until the transaction ends.
    Transaction,
}

/// One owner's hold on a key in one mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Hold {
    owner: u64,
    mode: AdvisoryMode,
    session: u32,
    transaction: u32,
}

/// One advisory lock as `pg_locks` lists it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AdvisoryLockRow {
    pub key: AdvisoryKey,
    pub mode: AdvisoryMode,
    pub granted: bool,
    /// The owner's number (`AdvisoryOwner::id`).
    pub owner: u64,
}

#[derive(Debug, Default)]
struct State {
    holds: HashMap<AdvisoryKey, Vec<Hold>>,
    /// What each blocked owner waits for.
    waiting: HashMap<u64, (AdvisoryKey, AdvisoryMode)>,
}

impl State {
    /// The owners whose holds on `key` keep `owner` from taking `mode`.
    fn blockers(&self, key: AdvisoryKey, mode: AdvisoryMode, owner: u64) -> Vec<u64> {
        self.holds.get(&key).map_or_else(Vec::new, |holds| {
            holds
                .iter()
                .filter(|h| h.owner != owner && h.mode.conflicts(mode))
                .map(|h| h.owner)
                .collect()
        })
    }

    /// Whether the waits of the owners `from` block lead back to `me`.
    fn leads_to(&self, from: Vec<u64>, me: u64) -> bool {
        let mut seen: Vec<u64> = Vec::new();
        let mut stack = from;
        while let Some(owner) = stack.pop() {
            if owner == me {
                return true;
            }
            if seen.contains(&owner) {
                continue;
            }
            seen.push(owner);
            if let Some(&(key, mode)) = self.waiting.get(&owner) {
                stack.extend(self.blockers(key, mode, owner));
            }
        }
        false
    }

    /// Gives back one take (or, with `all`, every take) of `owner` in
    /// `scope`; returns whether it held one.
    fn release(
        &mut self,
        owner: u64,
        only: Option<(AdvisoryKey, AdvisoryMode)>,
        scope: AdvisoryScope,
        all: bool,
    ) -> bool {
        let mut released = false;
        self.holds.retain(|&key, holds| {
            for hold in holds.iter_mut() {
                if hold.owner != owner || only.is_some_and(|(k, m)| (k, m) != (key, hold.mode)) {
                    continue;
                }
                let count = match scope {
                    AdvisoryScope::Session => &mut hold.session,
                    AdvisoryScope::Transaction => &mut hold.transaction,
                };
                if *count > 0 {
                    released = true;
                    *count = if all { 0 } else { *count - 1 };
                }
            }
            holds.retain(|h| h.session + h.transaction > 0);
            !holds.is_empty()
        });
        released
    }
}

/// The advisory locks of one database.
#[derive(Debug)]
pub struct AdvisoryLocks {
    state: Mutex<State>,
    /// Notified at every release, and by a cancel of a waiter.
    released: Condvar,
    next_owner: AtomicU64,
    config: TxnConfig,
    /// Where a deadlock found here is counted (`pg_stat_database`).
    stats: Arc<crate::stat_store::StatStore>,
}

impl AdvisoryLocks {
    pub(crate) fn new(
        config: TxnConfig,
        stats: Arc<crate::stat_store::StatStore>,
    ) -> AdvisoryLocks {
        AdvisoryLocks {
            state: Mutex::new(State::default()),
            released: Condvar::new(),
            next_owner: AtomicU64::new(1),
            config,
            stats,
        }
    }

    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Wakes every waiter to look at its cancel flag (under the mutex its
    /// condition is read under, so none misses it).
    pub(crate) fn wake_waiters(&self) {
        let _state = self.state();
        self.released.notify_all();
    }

    /// Every lock held or waited for, for `pg_locks`.
    pub fn rows(&self) -> Vec<AdvisoryLockRow> {
        let state = self.state();
        let mut rows: Vec<AdvisoryLockRow> = state
            .holds
            .iter()
            .flat_map(|(&key, holds)| {
                holds.iter().map(move |h| AdvisoryLockRow {
                    key,
                    mode: h.mode,
                    granted: true,
                    owner: h.owner,
                })
            })
            .chain(
                state
                    .waiting
                    .iter()
                    .map(|(&owner, &(key, mode))| AdvisoryLockRow {
                        key,
                        mode,
                        granted: false,
                        owner,
                    }),
            )
            .collect();
        rows.sort_by_key(|r| (r.owner, !r.granted));
        rows
    }

    /// A new owner (one per session) that `interrupt` cancels the waits
    /// of.
    pub fn owner(self: &Arc<Self>, interrupt: Arc<Interrupt>) -> Arc<AdvisoryOwner> {
        Arc::new(AdvisoryOwner {
            id: self.next_owner.fetch_add(1, Ordering::Relaxed),
            locks: self.clone(),
            interrupt,
            transaction_takes: AtomicBool::new(false),
        })
    }
}

/// One session's side of the advisory locks: what it takes and gives
/// back.
#[derive(Debug)]
pub struct AdvisoryOwner {
    id: u64,
    locks: Arc<AdvisoryLocks>,
    interrupt: Arc<Interrupt>,
    /// Whether it may hold a transaction-scope take: set by such a take,
    /// cleared when its transaction ends, so the end of a transaction
    /// that took none (nearly all) leaves the table's mutex alone. Only
    /// its session's thread of the moment reads and writes it.
    transaction_takes: AtomicBool,
}

impl AdvisoryOwner {
    /// Its number, unique in the database's run.
    pub fn id(&self) -> u64 {
        self.id
    }

    /// Takes `key` in `mode` for `scope`: at once if no other owner holds
    /// it in a conflicting mode, else (with `wait`) after they give it
    /// back. Returns whether it was taken (always, with `wait`). Fails
    /// with a deadlock (40P01), `lock_timeout` (55P03) or a cancel (57014).
    pub fn lock(
        &self,
        key: AdvisoryKey,
        mode: AdvisoryMode,
        scope: AdvisoryScope,
        wait: bool,
    ) -> Result<bool, TxnError> {
        let locks = &*self.locks;
        let mut state = locks.state();
        if !state.blockers(key, mode, self.id).is_empty() {
            if !wait {
                return Ok(false);
            }
            self.interrupt.waiting_on_advisory(Some(self.locks.clone()));
            // The holder may be a session idle between its client's
            // messages: the host frees this thread's place first.
            let (after, waited) = folio_io::blocking::region(|| self.wait(state, key, mode));
            state = after;
            state.waiting.remove(&self.id);
            self.interrupt.waiting_on_advisory(None);
            waited?;
        }
        let holds = state.holds.entry(key).or_default();
        let hold = match holds
            .iter_mut()
            .find(|h| h.owner == self.id && h.mode == mode)
        {
            Some(hold) => hold,
            None => {
                holds.push(Hold {
                    owner: self.id,
                    mode,
                    session: 0,
                    transaction: 0,
                });
                holds.last_mut().expect("pushed")
            }
        };
        match scope {
            AdvisoryScope::Session => hold.session += 1,
            AdvisoryScope::Transaction => {
                hold.transaction += 1;
                self.transaction_takes.store(true, Ordering::Relaxed);
            }
        }
        Ok(true)
    }

    /// Sleeps (with the table's mutex given up) until `key` can be taken
    /// in `mode`, or the wait fails.
    fn wait<'a>(
        &'a self,
        mut state: MutexGuard<'a, State>,
        key: AdvisoryKey,
        mode: AdvisoryMode,
    ) -> (MutexGuard<'a, State>, Result<(), TxnError>) {
        let locks = &*self.locks;
        let config = locks.config;
        let start = Instant::now();
        let mut deadlock_checked = false;
        state.waiting.insert(self.id, (key, mode));
        loop {
            if self.interrupt.is_set_strict() {
                return (state, Err(TxnError::Canceled));
            }
            let blockers = state.blockers(key, mode, self.id);
            if blockers.is_empty() {
                return (state, Ok(()));
            }
            let waited = start.elapsed();
            if !deadlock_checked && waited >= config.deadlock_timeout {
                deadlock_checked = true;
                if state.leads_to(blockers, self.id) {
                    locks.stats.count_deadlock();
                    return (state, Err(TxnError::AdvisoryDeadlock));
                }
            }
            if let Some(limit) = config.lock_timeout
                && waited >= limit
            {
                let waited_ms = waited.as_millis() as u64;
                return (state, Err(TxnError::AdvisoryLockTimeout { waited_ms }));
            }
            let mut next = Duration::from_secs(1);
            if !deadlock_checked {
                next = next.min(config.deadlock_timeout.saturating_sub(waited));
            }
            if let Some(limit) = config.lock_timeout {
                next = next.min(limit.saturating_sub(waited));
            }
            state = match locks.released.wait_timeout(state, next) {
                Ok((guard, _)) => guard,
                Err(poisoned) => poisoned.into_inner().0,
            };
        }
    }

    /// Gives back one session-scope take of `key` in `mode`; false if it
    /// held none (PostgreSQL warns: "you don't own a lock of type ...").
    pub fn unlock(&self, key: AdvisoryKey, mode: AdvisoryMode) -> bool {
        let released =
            self.locks
                .state()
                .release(self.id, Some((key, mode)), AdvisoryScope::Session, false);
        if released {
            self.locks.released.notify_all();
        }
        released
    }

    /// Gives back every session-scope take (`pg_advisory_unlock_all`).
    pub fn unlock_all(&self) {
        self.release_all(AdvisoryScope::Session);
    }

    /// Whether its transaction holds transaction-scope locks (`None`:
    /// none), and if so whether one of them is on an object it also
    /// holds at session scope (`PREPARE TRANSACTION`'s checks).
    pub fn transaction_holds(&self) -> Option<bool> {
        if !self.transaction_takes.load(Ordering::Relaxed) {
            return None;
        }
        let state = self.locks.state();
        let mine = (state.holds.values().flatten()).filter(|h| h.owner == self.id);
        let mut any = false;
        for hold in mine {
            if hold.transaction > 0 {
                any = true;
            }
        }
        let both = (state.holds.values()).any(|holds| {
            let mine = || holds.iter().filter(|h| h.owner == self.id);
            mine().any(|h| h.transaction > 0) && mine().any(|h| h.session > 0)
        });
        any.then_some(both)
    }

    /// Gives back every transaction-scope take (its transaction ended).
    pub fn end_transaction(&self) {
        if self.transaction_takes.swap(false, Ordering::Relaxed) {
            self.release_all(AdvisoryScope::Transaction);
        }
    }

    fn release_all(&self, scope: AdvisoryScope) {
        if self.locks.state().release(self.id, None, scope, true) {
            self.locks.released.notify_all();
        }
    }
}

impl Drop for AdvisoryOwner {
    /// The session ended: everything it holds is given back.
    fn drop(&mut self) {
        self.release_all(AdvisoryScope::Session);
        self.release_all(AdvisoryScope::Transaction);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn owners() -> (Arc<AdvisoryOwner>, Arc<AdvisoryOwner>) {
        let locks = Arc::new(AdvisoryLocks::new(TxnConfig::default(), Arc::default()));
        let a = locks.owner(Arc::new(Interrupt::new()));
        let b = locks.owner(Arc::new(Interrupt::new()));
        (a, b)
    }

    const K: AdvisoryKey = AdvisoryKey::Big(42);
    const X: AdvisoryMode = AdvisoryMode::Exclusive;
    const S: AdvisoryMode = AdvisoryMode::Shared;

    fn try_lock(o: &AdvisoryOwner, mode: AdvisoryMode, scope: AdvisoryScope) -> bool {
        o.lock(K, mode, scope, false).unwrap()
    }

    // Proves session takes are counted: another owner gets the key only
    // once every take is given back, and a give-back of nothing is false.
    #[test]
    fn session_takes_are_counted() {
        let (a, b) = owners();
        assert!(try_lock(&a, X, AdvisoryScope::Session));
        assert!(try_lock(&a, X, AdvisoryScope::Session));
        assert!(!try_lock(&b, X, AdvisoryScope::Session));
        assert!(a.unlock(K, X));
        assert!(!try_lock(&b, S, AdvisoryScope::Session));
        assert!(a.unlock(K, X));
        assert!(!a.unlock(K, X));
        assert!(!a.unlock(K, S));
        assert!(try_lock(&b, X, AdvisoryScope::Session));
    }

    // Proves shared takes admit each other and hold off exclusive ones,
    // and an owner never conflicts with itself.
    #[test]
    fn shared_takes_share() {
        let (a, b) = owners();
        assert!(try_lock(&a, S, AdvisoryScope::Session));
        assert!(try_lock(&b, S, AdvisoryScope::Session));
        assert!(!try_lock(&b, X, AdvisoryScope::Session));
        assert!(a.unlock(K, S));
        assert!(try_lock(&b, X, AdvisoryScope::Session));
        assert!(!try_lock(&a, S, AdvisoryScope::Session));
    }

    // Proves a transaction's end gives back only transaction takes, which
    // unlock cannot give back, each transaction's (a later one's after an
    // end), and an owner's drop gives back everything.
    #[test]
    fn ends_give_back_their_scope() {
        let (a, b) = owners();
        assert!(try_lock(&a, X, AdvisoryScope::Transaction));
        assert!(!a.unlock(K, X));
        assert!(!try_lock(&b, X, AdvisoryScope::Session));
        a.end_transaction();
        assert!(try_lock(&b, X, AdvisoryScope::Session));
        assert!(try_lock(&b, X, AdvisoryScope::Transaction));
        b.end_transaction();
        assert!(!try_lock(&a, X, AdvisoryScope::Session));
        assert_eq!(b.locks.rows().len(), 1);
        drop(b);
        assert!(try_lock(&a, X, AdvisoryScope::Session));
        assert!(try_lock(&a, S, AdvisoryScope::Transaction));
        assert_eq!(a.locks.rows().len(), 2);
        a.end_transaction();
        assert_eq!(a.locks.rows().len(), 1);
    }

    // Proves the key split pg_locks shows, as PostgreSQL's.
    #[test]
    fn pg_locks_ids_split_the_key() {
        assert_eq!(AdvisoryKey::Big(-1).pg_locks_ids(), (u32::MAX, u32::MAX, 1));
        assert_eq!(AdvisoryKey::Big(1 << 32 | 7).pg_locks_ids(), (1, 7, 1));
        assert_eq!(AdvisoryKey::Pair(1, 2).pg_locks_ids(), (1, 2, 2));
    }
}
