//! Whether `folio.class` changed since a snapshot: the class-writes mark.
//!
//! Lists the catalog reads from every class row (enum types, extensions,
//! SQL functions: `object_lists.rs`) are kept by a session and used again
//! while no class row changed. Unlike a table's DDL (`currency.rs`), the
//! writers of class rows are not serialised by one lock: two sessions may
//! create functions at once. So the mark keeps every writer until it is
//! known to have ended, and the highest commit number of those that
//! committed.
//!
//! Every write to `folio.class` goes through [`ClassTable`], which notes
//! the writer before the row is written, so a writer is noted before its
//! rows can be seen. A list read with snapshot `S` by a transaction that
//! wrote no class row is the list a later snapshot `T >= S` reads unless a
//! noted writer committed after `S`: rows change only by commits, and a
//! commit after `T` is invisible to `T` (counting it is a needless reread,
//! never a missed one). A reader that wrote class rows itself sees its own
//! uncommitted rows: its lists are never kept.
//!
//! The check is two atomic loads while no writer is unsettled; a writer
//! is settled (its outcome read, then forgotten) by the first check after
//! it ended.

use crate::error::CatalogError;
use folio_heap::{HeapError, Table, Tid, Write};
use folio_txn::{Csn, Outcome, Transaction, Xid};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

/// The writers of class rows and the last commit among them.
#[derive(Debug, Default)]
pub(crate) struct ClassWrites {
    /// Top-level xids of writers not yet known to have ended.
    writers: Mutex<Vec<Xid>>,
    /// `writers.len()`, read without the lock.
    unsettled: AtomicUsize,
    /// The highest CSN of a noted writer known to have committed.
    csn: AtomicU64,
}

impl ClassWrites {
    /// Records that `xid` (a top-level xid) writes a class row.
    fn note(&self, xid: Xid) {
        let mut writers = self.writers.lock().unwrap_or_else(|e| e.into_inner());
        if !writers.contains(&xid) {
            writers.push(xid);
            self.unsettled.store(writers.len(), Ordering::Release);
        }
    }

    /// Whether lists read with `snapshot` are stale for `txn`: a noted
    /// writer committed after `snapshot`, or `txn` wrote class rows itself.
    /// `txn`'s snapshot must not be older than `snapshot`.
    pub(crate) fn changed_since(
        &self,
        txn: &Transaction,
        snapshot: Csn,
    ) -> Result<bool, CatalogError> {
        if self.unsettled.load(Ordering::Acquire) > 0 && self.settle(txn)? {
            return Ok(true);
        }
        Ok(self.csn.load(Ordering::Acquire) > snapshot.0)
    }

    /// Whether `txn` wrote class rows (its lists hold its own uncommitted
    /// changes: never kept).
    pub(crate) fn written_by(&self, txn: &Transaction) -> bool {
        self.unsettled.load(Ordering::Acquire) > 0
            && txn.existing_xid().is_some_and(|me| {
                let writers = self.writers.lock().unwrap_or_else(|e| e.into_inner());
                writers.contains(&me)
            })
    }

    /// Forgets the writers that ended, folding the committed ones' CSNs
    /// into the mark (before they are forgotten, so a reader that finds
    /// none unsettled sees their CSN). True if `txn` is a writer.
    fn settle(&self, txn: &Transaction) -> Result<bool, CatalogError> {
        let me = txn.existing_xid();
        let mut writers = self.writers.lock().unwrap_or_else(|e| e.into_inner());
        let mut mine = false;
        let mut kept = Vec::with_capacity(writers.len());
        for &xid in writers.iter() {
            match txn.manager().outcome(xid)? {
                Outcome::Committed(csn) => {
                    self.csn.fetch_max(csn.0, Ordering::AcqRel);
                }
                Outcome::Aborted => {}
                Outcome::Running => {
                    mine |= Some(xid) == me;
                    kept.push(xid);
                }
            }
        }
        *writers = kept;
        self.unsettled.store(writers.len(), Ordering::Release);
        Ok(mine)
    }
}

/// `folio.class`, whose writes are noted in its [`ClassWrites`] mark;
/// reads go to the table itself.
#[derive(Debug)]
pub(crate) struct ClassTable {
    table: Table,
    pub(crate) writes: ClassWrites,
}

impl ClassTable {
    pub(crate) fn new(table: Table) -> ClassTable {
        ClassTable {
            table,
            writes: ClassWrites::default(),
        }
    }

    /// Notes `txn` as a writer (assigning its xid: it is about to write).
    fn note(&self, txn: &mut Transaction) -> Result<(), HeapError> {
        txn.xid()?;
        if let Some(top) = txn.existing_xid() {
            self.writes.note(top);
        }
        Ok(())
    }

    pub(crate) fn insert(&self, txn: &mut Transaction, row: &[u8]) -> Result<Tid, HeapError> {
        self.note(txn)?;
        self.table.insert(txn, row)
    }

    pub(crate) fn update(
        &self,
        txn: &mut Transaction,
        tid: Tid,
        row: &[u8],
        indexed_changed: bool,
    ) -> Result<Write, HeapError> {
        self.note(txn)?;
        self.table.update(txn, tid, row, indexed_changed)
    }

    pub(crate) fn delete(&self, txn: &mut Transaction, tid: Tid) -> Result<Write, HeapError> {
        self.note(txn)?;
        self.table.delete(txn, tid)
    }
}

impl std::ops::Deref for ClassTable {
    type Target = Table;

    /// Reads, locks and maintenance (which change no row's contents).
    fn deref(&self) -> &Table {
        &self.table
    }
}
