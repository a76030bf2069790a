//! Whether a relation a writer opened is still current: the DDL marks.
//!
//! A relation (its columns and indexes) is read from the catalog with a
//! snapshot. Writers take the table's `ROW EXCLUSIVE` lock at their first
//! write (folio-txn `relation_locks.rs`), and DDL that changes a table
//! (`CREATE INDEX`, `DROP TABLE`, `RENAME`) holds a conflicting lock to its
//! end, so once a writer holds the lock no other transaction's DDL on the
//! table can run. But the writer may have opened the relation *before* it
//! got the lock — before a DDL committed, or while one was running and its
//! change invisible. Such a relation is stale: its index list may miss an
//! index, whose entries the writer would then not make.
//!
//! Each table has a mark: the xid of the last DDL that locked it, and the
//! highest commit number of a DDL on it known to have committed. When a
//! writer newly takes the lock, the relation is stale if a DDL committed
//! after the snapshot the relation was read with; the writer gets 40001
//! and opens the relation again (the retry helpers do). The check is two
//! atomic loads, and a fate lookup only when a DDL ever ran on the table.
//! A relation opened after its own transaction's DDL is the caller's to
//! reopen (the embedded API forgets its relations at every DDL).

use crate::error::CatalogError;
use folio_txn::{Csn, Outcome, TxnManager, Xid};
use std::sync::atomic::{AtomicU64, Ordering};

/// The DDL mark of one table.
#[derive(Debug, Default)]
pub struct DdlMark {
    /// The last DDL's xid (0: none yet in this run).
    xid: AtomicU64,
    /// The highest CSN of a DDL known to have committed.
    csn: AtomicU64,
}

impl DdlMark {
    /// Records that `xid` runs DDL on the table (it holds the table lock).
    /// The previous DDL ended before (the locks serialise them): if it
    /// committed, its CSN is kept.
    pub(crate) fn note(&self, mgr: &TxnManager, xid: Xid) -> Result<(), CatalogError> {
        let previous = Xid(self.xid.swap(xid.0, Ordering::AcqRel));
        if previous != Xid::INVALID
            && previous != xid
            && let Outcome::Committed(csn) = mgr.outcome(previous)?
        {
            self.csn.fetch_max(csn.0, Ordering::AcqRel);
        }
        Ok(())
    }

    /// Whether a DDL on the table committed after a relation was read
    /// with `snapshot` by transaction `reader` (whose own DDL it saw). A
    /// reader's own DDL followed by another (even one rolled back) counts
    /// as a change: a needless reopen, never a missed one.
    pub(crate) fn changed_since(
        &self,
        mgr: &TxnManager,
        snapshot: Csn,
        reader: Option<Xid>,
    ) -> Result<bool, CatalogError> {
        if self.csn.load(Ordering::Acquire) > snapshot.0 {
            return Ok(true);
        }
        let last = Xid(self.xid.load(Ordering::Acquire));
        if last == Xid::INVALID || Some(last) == reader {
            return Ok(false);
        }
        Ok(matches!(mgr.outcome(last)?, Outcome::Committed(csn) if csn > snapshot))
    }
}

/// DDL marks by table oid.
pub(crate) type DdlMarks = crate::per_table::PerTable<DdlMark>;
