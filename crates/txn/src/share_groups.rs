//! Groups of transactions that share a row lock (`SELECT ... FOR SHARE`
//! by more than one transaction at once; PostgreSQL's MultiXact, kept in
//! memory).
//!
//! A row's `xmax` holds one xid. A row share-locked by two or more
//! transactions holds instead a *group id*: an xid taken from the same
//! counter ([`TxnManager::new_share_group`]), so it is unique for ever and
//! never names a transaction (its fate stays "in progress" outside the live
//! table, which reads as aborted). The members are kept here, in memory
//! only: a row lock does not outlive its transaction, and a crash aborts
//! every transaction, so after a restart a group id found in a row has no
//! members and locks nothing. Joining a group that has a running member
//! changes only this table (no page write, no WAL); a group whose members
//! all ended is forgotten when next looked at, and the whole table is swept
//! of such groups when it grows past [`SWEEP_AT`].

use crate::error::TxnError;
use crate::ids::Xid;
use crate::manager::{Outcome, TxnManager};
use std::collections::HashMap;
use std::sync::Mutex;

/// Groups held before a sweep removes those whose members all ended.
pub const SWEEP_AT: usize = 4096;

/// The members of every live share group.
#[derive(Debug, Default)]
pub(crate) struct ShareGroups {
    groups: Mutex<HashMap<Xid, Vec<Xid>>>,
}

impl ShareGroups {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<Xid, Vec<Xid>>> {
        self.groups.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// Whether `xid` is still running.
fn running(mgr: &TxnManager, xid: Xid) -> Result<bool, TxnError> {
    Ok(matches!(mgr.outcome(xid)?, Outcome::Running))
}

impl TxnManager {
    /// A new share group of `members` (the row's current share locker and
    /// the one joining it); its id goes into the row's `xmax`.
    pub fn new_share_group(&self, members: [Xid; 2]) -> Result<Xid, TxnError> {
        let id = self.next_group_id()?;
        let mut groups = self.share_groups.lock();
        if groups.len() >= SWEEP_AT {
            let mut ended = Vec::new();
            for (&group, members) in groups.iter() {
                if !members.iter().try_fold(false, |any, &m| {
                    Ok::<bool, TxnError>(any || running(self, m)?)
                })? {
                    ended.push(group);
                }
            }
            for group in ended {
                groups.remove(&group);
            }
        }
        groups.insert(id, members.to_vec());
        Ok(id)
    }

    /// Adds `member` to `group` if the group still has a running member
    /// (then the row stays locked by the group, now with `member`);
    /// false if the group is gone (the caller locks the row anew).
    pub fn join_share_group(&self, group: Xid, member: Xid) -> Result<bool, TxnError> {
        let mut groups = self.share_groups.lock();
        let Some(members) = groups.get_mut(&group) else {
            return Ok(false);
        };
        members.retain(|&m| running(self, m).unwrap_or(true));
        if members.is_empty() {
            groups.remove(&group);
            return Ok(false);
        }
        if !members.contains(&member) {
            members.push(member);
        }
        Ok(true)
    }

    /// The members of `group` still running (empty for a group that ended
    /// or was made before a restart).
    pub fn share_group_members(&self, group: Xid) -> Result<Vec<Xid>, TxnError> {
        let groups = self.share_groups.lock();
        let Some(members) = groups.get(&group) else {
            return Ok(Vec::new());
        };
        let mut out = Vec::new();
        for &m in members {
            if running(self, m)? {
                out.push(m);
            }
        }
        Ok(out)
    }
}
