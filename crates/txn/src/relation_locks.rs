//! Table locks (PostgreSQL's relation locks, for the modes folio needs):
//! what keeps DDL and DML on one table from running into each other.
//!
//! | mode | taken by | conflicts with |
//! |---|---|---|
//! | `RowExclusive` | inserts, updates, deletes of rows | `Share`, `AccessExclusive` |
//! | `Share` | `CREATE INDEX` | `RowExclusive`, `AccessExclusive` |
//! | `AccessExclusive` | `DROP TABLE`, `ALTER TABLE ... RENAME` | every mode |
//!
//! So `CREATE INDEX` waits for the running writers of its table and
//! writers wait for it: an index never misses a row a concurrent writer
//! added while it was built. Readers take no lock (PostgreSQL's
//! `AccessShare`): a reader of a table being dropped keeps reading its
//! storage, which a drop does not free (folio-catalog).
//!
//! **Held until the transaction ends, released by ending.** A lock is an
//! entry `(holder xid, mode)` under the table's oid; only holders that are
//! still running count (the live table says which), so ending a
//! transaction releases its locks with no further step, and entries of
//! ended holders are dropped when the table's entry is next looked at. A
//! waiter waits **on the holder** (`Transaction::wait_for`), like a row
//! lock's waiter: the same deadlock detection (40P01) and `lock_timeout`
//! (55P03). A transaction keeps the locks it holds in a small list, so
//! only its first write to a table touches this shared table. Locks of a
//! savepoint rolled back to stay until the transaction ends (PostgreSQL
//! releases them; keeping them is only more cautious). Nothing here
//! survives a crash, and nothing needs to: recovery aborts every holder.

use crate::ids::Xid;
use crate::manager::TxnManager;
use std::collections::HashMap;
use std::sync::Mutex;

/// A table lock's mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LockMode {
    RowExclusive,
    Share,
    AccessExclusive,
}

impl LockMode {
    fn conflicts(self, other: LockMode) -> bool {
        use LockMode::*;
        !matches!((self, other), (RowExclusive, RowExclusive) | (Share, Share))
    }

    /// Whether holding `self` makes asking for `wanted` a no-op.
    pub(crate) fn covers(self, wanted: LockMode) -> bool {
        self == wanted || self == LockMode::AccessExclusive
    }
}

const SHARDS: usize = 16;

/// The holders of each locked table, by oid.
type Shard = HashMap<u64, Vec<(Xid, LockMode)>>;

/// The table locks of one database.
#[derive(Debug)]
pub(crate) struct RelationLocks {
    shards: Box<[Mutex<Shard>]>,
}

impl Default for RelationLocks {
    fn default() -> Self {
        RelationLocks {
            shards: (0..SHARDS).map(|_| Mutex::new(HashMap::new())).collect(),
        }
    }
}

impl RelationLocks {
    /// Takes `mode` on `oid` for `me` unless a running holder conflicts:
    /// `None` when taken, else the holder to wait for.
    pub(crate) fn try_acquire(
        &self,
        mgr: &TxnManager,
        oid: u64,
        mode: LockMode,
        me: Xid,
    ) -> Option<Xid> {
        let mut shard = self.shards[oid as usize % SHARDS]
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        let holders = shard.entry(oid).or_default();
        holders.retain(|&(x, _)| x == me || mgr.live.get(x).is_some());
        if let Some(&(holder, _)) = holders
            .iter()
            .find(|&&(x, held)| x != me && held.conflicts(mode))
        {
            return Some(holder);
        }
        holders.push((me, mode));
        None
    }
}
