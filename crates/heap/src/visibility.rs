//! Which tuple versions a transaction sees, and what a writer must do
//! about a version it wants to change: the heap's one owner of both rules.

use crate::tuple::{Tid, TupleHeader};
use folio_txn::{Csn, Fate, Isolation, Outcome, Transaction, TxnError, TxnManager, Xid};

/// Whether `txn`'s current snapshot sees the version whose header is `h`:
/// inserted by `txn` itself or by a transaction committed at or before
/// the snapshot, and not deleted that way.
pub fn visible(txn: &Transaction, h: &TupleHeader) -> Result<bool, TxnError> {
    if !txn.sees(h.xmin)? {
        return Ok(false);
    }
    match h.deleter() {
        None => Ok(true),
        Some(deleter) => Ok(!txn.sees(deleter)?),
    }
}

/// Whether the version `h` is dead to every snapshot there is or will be:
/// its inserter aborted, or its deleter (not a mere locker) committed at
/// or below `horizon` (`TxnManager::horizon`). Pruning removes such
/// versions; an index entry whose every version is one may go.
pub fn dead_to_all(mgr: &TxnManager, h: &TupleHeader, horizon: Csn) -> Result<bool, TxnError> {
    if mgr.fate(h.xmin)? == Fate::Aborted {
        return Ok(true);
    }
    Ok(match h.deleter() {
        Some(deleter) => matches!(mgr.fate(deleter)?, Fate::Committed(csn) if csn <= horizon),
        None => false,
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
        // own lock) is no obstacle.
        if txn.is_mine(h.xmax) {
            return Ok(WriteCheck::Proceed);
        }
        return Ok(match txn.manager().outcome(h.xmax)? {
            Outcome::Running => WriteCheck::Wait(h.xmax),
            _ => WriteCheck::Proceed,
        });
    }
    if txn.is_mine(h.xmax) {
        return Ok(WriteCheck::Gone);
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

/// Whether a writer in `txn` may change a version inserted by `xmin`:
/// one its snapshot sees, or (READ COMMITTED, following an update chain)
/// one whose inserter committed since.
pub fn may_write(txn: &Transaction, xmin: Xid) -> Result<bool, TxnError> {
    if txn.sees(xmin)? {
        return Ok(true);
    }
    Ok(txn.isolation() == Isolation::ReadCommitted
        && matches!(txn.manager().outcome(xmin)?, Outcome::Committed(_)))
}
