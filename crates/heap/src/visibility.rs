//! Which tuple versions a transaction sees, and what a writer must do
//! about a version it wants to change: the heap's one owner of both rules.

use crate::tuple::{Tid, TupleHeader, XMAX_GROUP, XMAX_SHARED};
use folio_txn::{Csn, Fate, Isolation, Outcome, Transaction, TxnError, TxnManager, Xid};

/// Whether `txn`'s current snapshot sees the version whose header is `h`:
/// inserted by `txn` itself or by a transaction committed at or before
/// the snapshot, and not deleted that way.
pub fn visible(txn: &Transaction, h: &TupleHeader) -> Result<bool, TxnError> {
    Ok(sight(txn, h, false)? == Sight::Visible)
}

/// What a snapshot makes of a version ([`sight`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sight {
    /// The snapshot sees it ([`visible`]).
    Visible,
    /// The snapshot sees its inserter's work and its deleter's: deleted
    /// before the snapshot. Its HOT successor's inserter is that deleter,
    /// so the snapshot sees that inserter too.
    Deleted,
    /// The snapshot misses its inserter's work.
    Unseen,
}

/// [`visible`], saying also why a version is not. A SERIALIZABLE
/// transaction also reports each writer whose work on the version its
/// snapshot misses (an inserter it does not see, a deleter of a version
/// it sees), neither its own nor aborted: serializable snapshot
/// isolation's conflicts out ([`seen_or_missed`]).
///
/// `inserter_seen`: the caller knows the snapshot sees `h.xmin` (a HOT
/// chain member's inserter is the previous member's deleter, seen when
/// that member was `Sight::Deleted`), and its fate lookup is skipped. That
/// changes nothing: within one snapshot the same xid gets the same
/// answer, and a writer the snapshot sees is never reported.
pub fn sight(txn: &Transaction, h: &TupleHeader, inserter_seen: bool) -> Result<Sight, TxnError> {
    let serializable = txn.is_serializable();
    let sees = |xid| match serializable {
        true => seen_or_missed(txn, xid),
        false => txn.sees(xid),
    };
    if !inserter_seen && !sees(h.xmin)? {
        return Ok(Sight::Unseen);
    }
    match h.deleter() {
        Some(deleter) if sees(deleter)? => Ok(Sight::Deleted),
        _ => Ok(Sight::Visible),
    }
}

/// [`Transaction::sees`] for a SERIALIZABLE transaction, from one fate
/// lookup: when the work of `xid` is not seen and `xid` did not abort, it
/// is reported as a write the transaction missed.
fn seen_or_missed(txn: &Transaction, xid: Xid) -> Result<bool, TxnError> {
    if txn.is_mine(xid) {
        return Ok(!txn.hides(xid));
    }
    let fate = txn.manager().fate(xid)?;
    if txn.snapshot().sees(fate) {
        return Ok(true);
    }
    if fate != Fate::Aborted {
        txn.missed_write(xid)?;
    }
    Ok(false)
}

/// Whether the version `h` is dead to every snapshot there is or will be:
/// its inserter aborted, or its deleter (not a mere locker) committed at
/// or below `horizon` (`TxnManager::horizon`). Pruning removes such
/// versions; an index entry whose every version is one may go.
pub fn dead_to_all(mgr: &TxnManager, h: &TupleHeader, horizon: Csn) -> Result<bool, TxnError> {
    Ok(prune_verdict(mgr, h, horizon, horizon)? == Verdict::Dead)
}

/// What pruning knows of a version ([`prune_verdict`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// Dead to every snapshot there is or will be ([`dead_to_all`]).
    Dead,
    /// Deleted by a transaction that is running or committed above the
    /// horizon: dead, if ever, only once the horizon reaches this CSN (at
    /// most its deleter's commit CSN; the page's prune hint, `hint.rs`).
    NotBefore(Csn),
    /// Not deleted, or its deleter aborted: no deleter will make it dead.
    Live,
}

/// [`dead_to_all`] with, for a version not dead yet, when it may be:
/// `completed` is the latest complete commit, loaded before this call
/// (`TxnManager::snapshot`), so a deleter whose fate is still in progress
/// commits, if ever, above it (folio-txn: `completed` passes a CSN only
/// after that commit's fate is stored).
pub fn prune_verdict(
    mgr: &TxnManager,
    h: &TupleHeader,
    horizon: Csn,
    completed: Csn,
) -> Result<Verdict, TxnError> {
    if mgr.fate(h.xmin)? == Fate::Aborted {
        return Ok(Verdict::Dead);
    }
    let Some(deleter) = h.deleter() else {
        return Ok(Verdict::Live);
    };
    Ok(match mgr.fate(deleter)? {
        Fate::Committed(csn) if csn <= horizon => Verdict::Dead,
        Fate::Committed(csn) => Verdict::NotBefore(csn),
        Fate::Aborted => Verdict::Live,
        Fate::InProgress | Fate::SubOf(_) => Verdict::NotBefore(Csn(completed.0 + 1)),
    })
}

/// What a writer may do with a version it wants to delete, update or lock.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WriteCheck {
    /// No live deleter: set xmax.
    Proceed,
    /// Another transaction that is still running deleted or updated it:
    /// wait for it, then check again.
    Wait(Xid),
    /// Deleted by this transaction itself, or by a transaction whose
    /// deletion the snapshot sees: nothing to change.
    Gone,
    /// READ COMMITTED: a transaction that committed after the snapshot
    /// updated it; the newest version is reached from `Tid` (re-check the
    /// statement's condition on it, PostgreSQL's EvalPlanQual).
    Moved(Tid),
    /// Deleted or updated by a trigger of the statement writing now
    /// ([`Transaction::changed_by_triggers`]): not the statement's to
    /// change (PostgreSQL's 27000).
    ChangedByTriggers,
}

/// Decides what a writer in `txn` may do with the version `h`.
/// REPEATABLE READ fails with a serialization failure when a transaction
/// that committed after its snapshot deleted or updated the version
/// (first updater wins).
pub fn check_write(txn: &Transaction, h: &TupleHeader) -> Result<WriteCheck, TxnError> {
    if h.xmax == Xid::INVALID {
        return Ok(WriteCheck::Proceed);
    }
    if h.lock_only() {
        // A row lock: wait for a running locker; an ended one (or our
        // own lock) is no obstacle. A share group: wait for its running
        // members other than us.
        if h.flags & XMAX_GROUP != 0 {
            let members = txn.manager().share_group_members(h.xmax)?;
            return Ok(match members.into_iter().find(|&m| !txn.is_mine(m)) {
                Some(member) => WriteCheck::Wait(member),
                None => WriteCheck::Proceed,
            });
        }
        if txn.is_mine(h.xmax) {
            return Ok(WriteCheck::Proceed);
        }
        return Ok(match txn.manager().outcome(h.xmax)? {
            Outcome::Running => WriteCheck::Wait(h.xmax),
            _ => WriteCheck::Proceed,
        });
    }
    if txn.is_mine(h.xmax) {
        // Changed by the statement itself (a row an UPDATE's join meets
        // twice: ignored, as PostgreSQL's), or by an earlier one.
        return Ok(match txn.changed_by_triggers(h.xmax) {
            true => WriteCheck::ChangedByTriggers,
            false => WriteCheck::Gone,
        });
    }
    match txn.manager().outcome(h.xmax)? {
        Outcome::Running => Ok(WriteCheck::Wait(h.xmax)),
        Outcome::Aborted => Ok(WriteCheck::Proceed),
        Outcome::Committed(csn) if csn <= txn.snapshot().0 => Ok(WriteCheck::Gone),
        Outcome::Committed(_) => match (txn.isolation(), h.next) {
            (Isolation::ReadCommitted, Some(next)) => Ok(WriteCheck::Moved(next)),
            (Isolation::ReadCommitted, None) => Ok(WriteCheck::Gone),
            _ => Err(TxnError::SerializationFailure),
        },
    }
}

/// What a transaction that wants a share lock (`FOR SHARE`) on a version
/// may do ([`check_share`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ShareCheck {
    /// Nothing running locks or changed it: lock it alone (shared).
    LockAlone,
    /// This transaction holds a lock on it already (shared or exclusive),
    /// or has just joined the share group that holds it.
    Held,
    /// Share-locked by `Xid`, another running transaction: make a group of
    /// the two.
    Group(Xid),
    /// What an exclusive writer would do: wait for an exclusive locker or
    /// a deleter, or the row is gone or moved (or, at REPEATABLE READ, a
    /// serialization failure, returned as the error).
    Write(WriteCheck),
}

/// Decides what `txn` (writing as `me`) may do to share-lock the version
/// `h`. Joining a live share group happens here (under the caller's page
/// latch, so a writer that latches the page next sees the new member).
pub fn check_share(txn: &Transaction, h: &TupleHeader, me: Xid) -> Result<ShareCheck, TxnError> {
    if h.xmax == Xid::INVALID {
        return Ok(ShareCheck::LockAlone);
    }
    if !h.lock_only() {
        return Ok(match check_write(txn, h)? {
            WriteCheck::Proceed => ShareCheck::LockAlone,
            other => ShareCheck::Write(other),
        });
    }
    if h.flags & XMAX_GROUP != 0 {
        return Ok(if txn.manager().join_share_group(h.xmax, me)? {
            ShareCheck::Held
        } else {
            ShareCheck::LockAlone
        });
    }
    if txn.is_mine(h.xmax) {
        return Ok(ShareCheck::Held);
    }
    if !matches!(txn.manager().outcome(h.xmax)?, Outcome::Running) {
        return Ok(ShareCheck::LockAlone);
    }
    Ok(if h.flags & XMAX_SHARED != 0 {
        ShareCheck::Group(h.xmax)
    } else {
        ShareCheck::Write(WriteCheck::Wait(h.xmax))
    })
}

/// Whether a writer in `txn` may change a version inserted by `xmin`:
/// one its snapshot sees, or (READ COMMITTED, following an update chain)
/// one whose inserter committed since. Its own versions it may always
/// write, even those its reads hide now (`Transaction::as_of_command`: a
/// refused insert's version deleted again, a row inserted and then
/// updated within one statement).
pub fn may_write(txn: &Transaction, xmin: Xid) -> Result<bool, TxnError> {
    if txn.is_mine(xmin) || txn.sees(xmin)? {
        return Ok(true);
    }
    Ok(txn.isolation() == Isolation::ReadCommitted
        && matches!(txn.manager().outcome(xmin)?, Outcome::Committed(_)))
}
