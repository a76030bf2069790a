//! The table of running writers: who is running, who waits for whom, and
//! where a waiter sleeps until the transaction it waits for ends.
//!
//! Only transactions with an xid (writers) enter it, at their first write,
//! and leave it when they end, after their fate is in the CSN log and
//! published. Readers never touch it: for visibility "in progress" and
//! "aborted" both hide a version, so a reader needs the CSN log alone. A
//! writer that meets a version another writer holds looks the holder up
//! here and sleeps on its entry (no spinning, no lock table of rows).

use crate::ids::Xid;
use crate::interrupt::Interrupt;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};

/// How a transaction that was waited for ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ended {
    Committed,
    Aborted,
}

/// What a transaction does when what it wants is held by another that
/// is still running (`Transaction::wait_with`): PostgreSQL's lock wait
/// policies, which `SELECT ... FOR UPDATE` chooses with `NOWAIT` and
/// `SKIP LOCKED`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WaitPolicy {
    /// Sleep until the holder ends (deadlock detection, `lock_timeout`,
    /// cancel).
    Block,
    /// Fail at once (`TxnError::LockNotAvailable`, 55P03).
    NoWait,
    /// Give up at once without an error: the caller passes over it.
    SkipLocked,
}

/// One running writer.
#[derive(Debug)]
pub(crate) struct LiveEntry {
    pub(crate) xid: Xid,
    ended: Mutex<End>,
    wake: Condvar,
    /// The xid this transaction waits for now (0: none): an edge of the
    /// wait-for graph that deadlock detection walks.
    pub(crate) waiting_for: AtomicU64,
}

/// How a writer ended (`None` while it runs), and how many sleep on its
/// entry: its end wakes them only if some do (a condition variable's
/// notify is a system call even with no one to wake, and nearly every
/// writer ends unwaited for).
#[derive(Debug, Default)]
struct End {
    how: Option<Ended>,
    sleepers: u32,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl LiveEntry {
    /// Sleeps until it ends, `timeout` passes or `interrupt` is set;
    /// returns how it ended.
    pub(crate) fn wait(
        &self,
        timeout: std::time::Duration,
        interrupt: Option<&Interrupt>,
    ) -> Option<Ended> {
        let mut guard = lock(&self.ended);
        guard.sleepers += 1;
        let canceled = || interrupt.is_some_and(Interrupt::is_set_strict);
        let (mut guard, _) = self
            .wake
            .wait_timeout_while(guard, timeout, |end| end.how.is_none() && !canceled())
            .unwrap_or_else(|p| p.into_inner());
        guard.sleepers -= 1;
        guard.how
    }

    /// Wakes its waiters to look at their cancel flags (under the mutex
    /// their condition is read under, so none misses it).
    pub(crate) fn wake_waiters(&self) {
        let end = lock(&self.ended);
        if end.sleepers > 0 {
            self.wake.notify_all();
        }
    }
}

const SHARDS: usize = 64;

/// One shard: running writers whose xid falls in it.
type Shard = Mutex<HashMap<u64, Arc<LiveEntry>>>;

/// Running writers by xid, in shards so writers rarely share a lock.
#[derive(Debug)]
pub(crate) struct LiveTable {
    shards: Box<[Shard]>,
}

impl LiveTable {
    pub(crate) fn new() -> LiveTable {
        LiveTable {
            shards: (0..SHARDS).map(|_| Mutex::new(HashMap::new())).collect(),
        }
    }

    fn shard(&self, xid: Xid) -> &Shard {
        &self.shards[(xid.0 as usize) % SHARDS]
    }

    /// Enters a new writer.
    pub(crate) fn start(&self, xid: Xid) -> Arc<LiveEntry> {
        let entry = Arc::new(LiveEntry {
            xid,
            ended: Mutex::new(End::default()),
            wake: Condvar::new(),
            waiting_for: AtomicU64::new(0),
        });
        lock(self.shard(xid)).insert(xid.0, entry.clone());
        entry
    }

    /// The xids running now.
    pub(crate) fn xids(&self) -> Vec<Xid> {
        let mut out = Vec::new();
        for shard in self.shards.iter() {
            out.extend(lock(shard).keys().map(|x| Xid(*x)));
        }
        out
    }

    /// The entry of `xid` if it is running.
    pub(crate) fn get(&self, xid: Xid) -> Option<Arc<LiveEntry>> {
        lock(self.shard(xid)).get(&xid.0).cloned()
    }

    /// Records how `entry` ended, wakes its waiters and removes it.
    pub(crate) fn finish(&self, entry: &LiveEntry, how: Ended) {
        let mut end = lock(&entry.ended);
        end.how = Some(how);
        let sleepers = end.sleepers > 0;
        drop(end);
        if sleepers {
            entry.wake.notify_all();
        }
        lock(self.shard(entry.xid)).remove(&entry.xid.0);
    }

    /// Whether following wait-for edges from `holder` leads back to `me`.
    pub(crate) fn leads_to(&self, holder: Xid, me: Xid) -> bool {
        let mut at = holder;
        // A cycle not through `me` would loop forever; the bound is the
        // number of running writers, which the walk cannot exceed without
        // repeating one.
        let bound = self.shards.iter().map(|s| lock(s).len()).sum::<usize>() + 1;
        for _ in 0..bound {
            let Some(entry) = self.get(at) else {
                return false;
            };
            match entry.waiting_for.load(Ordering::Acquire) {
                0 => return false,
                next if next == me.0 => return true,
                next => at = Xid(next),
            }
        }
        false
    }

    /// Running writers now.
    pub(crate) fn len(&self) -> usize {
        self.shards.iter().map(|s| lock(s).len()).sum()
    }
}
