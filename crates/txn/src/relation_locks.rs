//! Table locks (PostgreSQL's relation locks): what keeps DDL, row
//! changes and `LOCK TABLE` on one table from running into each other.
//!
//! PostgreSQL's eight modes and its conflict table:
//!
//! | mode | taken by | conflicts with |
//! |---|---|---|
//! | `AccessShare` | `LOCK TABLE ... IN ACCESS SHARE MODE` | `AccessExclusive` |
//! | `RowShare` | `SELECT ... FOR UPDATE / SHARE` | `Exclusive`, `AccessExclusive` |
//! | `RowExclusive` | inserts, updates, deletes of rows | `Share`, `ShareRowExclusive`, `Exclusive`, `AccessExclusive` |
//! | `ShareUpdateExclusive` | `LOCK TABLE` | itself, `Share`, `ShareRowExclusive`, `Exclusive`, `AccessExclusive` |
//! | `Share` | `CREATE INDEX` | `RowExclusive`, `ShareUpdateExclusive`, `ShareRowExclusive`, `Exclusive`, `AccessExclusive` |
//! | `ShareRowExclusive` | `LOCK TABLE` | every mode but `AccessShare`, `RowShare` |
//! | `Exclusive` | `LOCK TABLE` | every mode but `AccessShare` |
//! | `AccessExclusive` | `DROP TABLE`, `ALTER TABLE`, `LOCK TABLE` (its default) | every mode |
//!
//! So `CREATE INDEX` waits for the running writers of its table and
//! writers wait for it: an index never misses a row a concurrent writer
//! added while it was built. **Plain readers take no lock** (PostgreSQL
//! takes `AccessShare` for every read): a reader of a table being dropped
//! keeps reading its storage, which a drop does not free (folio-catalog),
//! and a reader is never blocked by `ACCESS EXCLUSIVE`, which in
//! PostgreSQL blocks it. Only `LOCK TABLE ... IN ACCESS SHARE MODE` takes
//! `AccessShare`, so a transaction can keep a table from being dropped or
//! altered under it.
//!
//! **Held until the transaction ends, released by ending.** A lock is an
//! entry `(holder xid, mode)` under the table's oid; only holders that are
//! still running count (the live table says which), so ending a
//! transaction releases its locks with no further step, and entries of
//! ended holders are dropped when the table's entry is next looked at. A
//! waiter waits **on the holder** (`Transaction::wait_for`), like a row
//! lock's waiter: the same deadlock detection (40P01) and `lock_timeout`
//! (55P03). A transaction keeps the locks it holds in a small list, so
//! only its first lock of a mode on a table touches this shared table. Locks of a
//! savepoint rolled back to stay until the transaction ends (PostgreSQL
//! releases them; keeping them is only more cautious). Nothing here
//! survives a crash, and nothing needs to: recovery aborts every holder.

use crate::ids::Xid;
use crate::manager::TxnManager;
use std::collections::HashMap;
use std::sync::Mutex;

/// A table lock's mode, weakest first (PostgreSQL's order).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LockMode {
    AccessShare,
    RowShare,
    RowExclusive,
    ShareUpdateExclusive,
    Share,
    ShareRowExclusive,
    Exclusive,
    AccessExclusive,
}

impl LockMode {
    /// The modes, weakest first.
    pub const ALL: [LockMode; 8] = [
        LockMode::AccessShare,
        LockMode::RowShare,
        LockMode::RowExclusive,
        LockMode::ShareUpdateExclusive,
        LockMode::Share,
        LockMode::ShareRowExclusive,
        LockMode::Exclusive,
        LockMode::AccessExclusive,
    ];

    /// The modes this one conflicts with, one bit each (bit `m as u8`):
    /// PostgreSQL's conflict table, the one owner of it.
    fn conflict_bits(self) -> u8 {
        use LockMode::*;
        let bits = |modes: &[LockMode]| modes.iter().fold(0u8, |b, &m| b | 1 << m as u8);
        match self {
            AccessShare => bits(&[AccessExclusive]),
            RowShare => bits(&[Exclusive, AccessExclusive]),
            RowExclusive => bits(&[Share, ShareRowExclusive, Exclusive, AccessExclusive]),
            ShareUpdateExclusive => bits(&[
                ShareUpdateExclusive,
                Share,
                ShareRowExclusive,
                Exclusive,
                AccessExclusive,
            ]),
            Share => bits(&[
                RowExclusive,
                ShareUpdateExclusive,
                ShareRowExclusive,
                Exclusive,
                AccessExclusive,
            ]),
            ShareRowExclusive => !bits(&[AccessShare, RowShare]),
            Exclusive => !bits(&[AccessShare]),
            AccessExclusive => !0,
        }
    }

    /// Whether a holder of `self` keeps another transaction from taking
    /// `other` (the table is symmetric).
    pub fn conflicts(self, other: LockMode) -> bool {
        self.conflict_bits() & 1 << other as u8 != 0
    }

    /// Whether holding `self` makes asking for `wanted` a no-op: the same
    /// mode, or `AccessExclusive`, which nobody else can hold beside.
    /// (Any mode whose conflicts include `wanted`'s would do; this stays
    /// narrow so `pg_locks` lists what PostgreSQL's does, and a row
    /// change after a `LOCK TABLE` still takes its own lock and its
    /// check, folio-catalog `Relation::lock_for_writes`.)
    pub(crate) fn covers(self, wanted: LockMode) -> bool {
        self == wanted || self == LockMode::AccessExclusive
    }

    /// PostgreSQL's name of the mode in `pg_locks` (`AccessShareLock`).
    pub fn lock_name(self) -> &'static str {
        use LockMode::*;
        match self {
            AccessShare => "AccessShareLock",
            RowShare => "RowShareLock",
            RowExclusive => "RowExclusiveLock",
            ShareUpdateExclusive => "ShareUpdateExclusiveLock",
            Share => "ShareLock",
            ShareRowExclusive => "ShareRowExclusiveLock",
            Exclusive => "ExclusiveLock",
            AccessExclusive => "AccessExclusiveLock",
        }
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

    /// Every lock held by a running transaction: `(table oid, holder,
    /// mode)`, by oid (`pg_locks`).
    pub(crate) fn held(&self, mgr: &TxnManager) -> Vec<(u64, Xid, LockMode)> {
        let mut out = Vec::new();
        for shard in self.shards.iter() {
            let shard = shard.lock().unwrap_or_else(|p| p.into_inner());
            for (&oid, holders) in shard.iter() {
                out.extend(
                    (holders.iter())
                        .filter(|&&(x, _)| mgr.live.get(x).is_some())
                        .map(|&(x, mode)| (oid, x, mode)),
                );
            }
        }
        out.sort_by_key(|&(oid, x, mode)| (oid, x.0, mode as u8));
        out
    }
}

#[cfg(test)]
mod tests {
    use super::LockMode::{self, *};

    #[test]
    fn the_conflict_table_is_postgresqls_and_symmetric() {
        // PostgreSQL 15's table, row by row: the modes each conflicts with.
        let expected: [(LockMode, &[LockMode]); 8] = [
            (AccessShare, &[AccessExclusive]),
            (RowShare, &[Exclusive, AccessExclusive]),
            (
                RowExclusive,
                &[Share, ShareRowExclusive, Exclusive, AccessExclusive],
            ),
            (
                ShareUpdateExclusive,
                &[
                    ShareUpdateExclusive,
                    Share,
                    ShareRowExclusive,
                    Exclusive,
                    AccessExclusive,
                ],
            ),
            (
                Share,
                &[
                    RowExclusive,
                    ShareUpdateExclusive,
                    ShareRowExclusive,
                    Exclusive,
                    AccessExclusive,
                ],
            ),
            (
                ShareRowExclusive,
                &[
                    RowExclusive,
                    ShareUpdateExclusive,
                    Share,
                    ShareRowExclusive,
                    Exclusive,
                    AccessExclusive,
                ],
            ),
            (
                Exclusive,
                &[
                    RowShare,
                    RowExclusive,
                    ShareUpdateExclusive,
                    Share,
                    ShareRowExclusive,
                    Exclusive,
                    AccessExclusive,
                ],
            ),
            (AccessExclusive, &LockMode::ALL),
        ];
        for (mode, conflicting) in expected {
            for other in LockMode::ALL {
                assert_eq!(
                    mode.conflicts(other),
                    conflicting.contains(&other),
                    "{mode:?} / {other:?}"
                );
                assert_eq!(mode.conflicts(other), other.conflicts(mode));
            }
        }
    }
}
