//! Prepared transactions (two-phase commit; the design is the README's
//! "Two-phase commit"): what one keeps between `PREPARE TRANSACTION` and
//! `COMMIT PREPARED` / `ROLLBACK PREPARED`, in memory (the registry, by
//! gid) and on disk (its [`State`] in the CSN log's directory, so a
//! restart finds it again).

use crate::error::TxnError;
use crate::ids::Xid;
use crate::live::LiveEntry;
use crate::relation_locks::LockMode;
use crate::serializable::SxId;
use crate::stat_counts::TxnStats;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};

/// What `pg_prepared_xacts` shows of a prepared transaction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PreparedInfo {
    /// The global transaction identifier `PREPARE TRANSACTION` gave it.
    pub gid: String,
    /// Its top-level xid (every prepared transaction has one).
    pub xid: Xid,
    /// When it was prepared: microseconds since the Unix epoch.
    pub prepared_at_us: i64,
    /// The role that prepared it.
    pub owner: String,
    /// The database it ran in.
    pub database: String,
}

/// What a prepared transaction keeps on disk: enough to restore it after
/// a restart (its row changes and row locks are in the tuples already).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct State {
    pub(crate) info: PreparedInfo,
    /// It ran at SERIALIZABLE.
    pub(crate) serializable: bool,
    /// The table locks it holds: `(oid, mode)`.
    pub(crate) table_locks: Vec<(u64, LockMode)>,
}

const FORMAT: u8 = 1;

fn put_text(out: &mut Vec<u8>, text: &str) {
    out.extend_from_slice(&(text.len() as u32).to_le_bytes());
    out.extend_from_slice(text.as_bytes());
}

impl State {
    pub(crate) fn encode(&self) -> Vec<u8> {
        let mut out = vec![FORMAT, u8::from(self.serializable)];
        out.extend_from_slice(&self.info.prepared_at_us.to_le_bytes());
        put_text(&mut out, &self.info.gid);
        put_text(&mut out, &self.info.owner);
        put_text(&mut out, &self.info.database);
        out.extend_from_slice(&(self.table_locks.len() as u32).to_le_bytes());
        for &(oid, mode) in &self.table_locks {
            out.extend_from_slice(&oid.to_le_bytes());
            out.push(mode as u8);
        }
        out
    }

    /// The state stored for `xid`; `None` if the bytes are not one.
    pub(crate) fn decode(xid: Xid, bytes: &[u8]) -> Option<State> {
        let mut at = 0usize;
        let mut take = |n: usize| -> Option<&[u8]> {
            let out = bytes.get(at..at + n)?;
            at += n;
            Some(out)
        };
        let head = take(2)?;
        if head[0] != FORMAT {
            return None;
        }
        let serializable = head[1] != 0;
        let prepared_at_us = i64::from_le_bytes(take(8)?.try_into().ok()?);
        let mut text = || -> Option<String> {
            let len = u32::from_le_bytes(take(4)?.try_into().ok()?) as usize;
            String::from_utf8(take(len)?.to_vec()).ok()
        };
        let (gid, owner, database) = (text()?, text()?, text()?);
        let count = u32::from_le_bytes(take(4)?.try_into().ok()?) as usize;
        let mut table_locks = Vec::with_capacity(count.min(1024));
        for _ in 0..count {
            let oid = u64::from_le_bytes(take(8)?.try_into().ok()?);
            let mode = *LockMode::ALL.get(usize::from(take(1)?[0]))?;
            table_locks.push((oid, mode));
        }
        Some(State {
            info: PreparedInfo {
                gid,
                xid,
                prepared_at_us,
                owner,
                database,
            },
            serializable,
            table_locks,
        })
    }
}

/// A prepared transaction in memory: its entry in the live table (so it
/// stays running for snapshots, waits and table locks), its SERIALIZABLE
/// registration and its statistics.
#[derive(Debug)]
pub(crate) struct PreparedTxn {
    pub(crate) info: PreparedInfo,
    pub(crate) entry: Arc<LiveEntry>,
    pub(crate) serializable: Option<SxId>,
    pub(crate) stats: Option<TxnStats>,
}

/// The prepared transactions of one database, by gid; `None` holds the
/// gid of one being prepared (its state not yet durable).
#[derive(Debug, Default)]
pub(crate) struct Registry {
    by_gid: Mutex<HashMap<String, Option<PreparedTxn>>>,
    /// Xids of the prepared transactions restored at open (below the
    /// run's first xid): running, not aborted by the run-start rule.
    /// Fixed once the manager is open.
    pub(crate) recovered: std::sync::OnceLock<Vec<Xid>>,
}

impl Registry {
    pub(crate) fn lock(&self) -> MutexGuard<'_, HashMap<String, Option<PreparedTxn>>> {
        self.by_gid.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Whether `xid` is a prepared transaction restored at open.
    pub(crate) fn is_recovered(&self, xid: Xid) -> bool {
        self.recovered
            .get()
            .is_some_and(|xids| xids.binary_search(&xid).is_ok())
    }

    /// What `pg_prepared_xacts` lists, by xid.
    pub(crate) fn list(&self) -> Vec<PreparedInfo> {
        let mut out: Vec<PreparedInfo> = (self.lock().values().flatten())
            .map(|p| p.info.clone())
            .collect();
        out.sort_by_key(|p| p.xid);
        out
    }
}

/// PostgreSQL's errors of two-phase commit.
pub(crate) fn duplicate_gid(gid: &str) -> TxnError {
    TxnError::Prepared {
        sqlstate: "42710",
        message: format!("transaction identifier \"{gid}\" is already in use"),
        hint: None,
    }
}

pub(crate) fn unknown_gid(gid: &str) -> TxnError {
    TxnError::Prepared {
        sqlstate: "42704",
        message: format!("prepared transaction with identifier \"{gid}\" does not exist"),
        hint: None,
    }
}

pub(crate) fn too_many(max: usize) -> TxnError {
    match max {
        0 => TxnError::Prepared {
            sqlstate: "55000",
            message: "prepared transactions are disabled".into(),
            hint: Some("Set max_prepared_transactions to a nonzero value.".into()),
        },
        _ => TxnError::Prepared {
            sqlstate: "53200",
            message: "maximum number of prepared transactions reached".into(),
            hint: Some(format!(
                "Increase max_prepared_transactions (currently {max})."
            )),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Proves a state reads back as it was written, and a damaged one is
    // refused.
    #[test]
    fn states_read_back() {
        let state = State {
            info: PreparedInfo {
                gid: "foo".into(),
                xid: Xid(77),
                prepared_at_us: -5,
                owner: "postgres".into(),
                database: "db".into(),
            },
            serializable: true,
            table_locks: vec![(16384, LockMode::AccessExclusive), (3, LockMode::RowShare)],
        };
        let bytes = state.encode();
        assert_eq!(State::decode(Xid(77), &bytes), Some(state));
        assert_eq!(State::decode(Xid(77), &bytes[..bytes.len() - 1]), None);
    }
}
