//! A range of a table's primary keys, read from either end: a
//! double-ended iterator over two B+tree scans that stop where they meet.
//!
//! - Each end is a scan of the primary-key index in its direction; the
//!   scans copy one leaf at a time and hold no latch between calls, so a
//!   range can stay open while the transaction writes.
//! - **Meeting.** Each end remembers the last entry `(key, tid)` it
//!   visited; an end stops at an entry the other end has reached. Entries
//!   are unique, so every entry is visited by at most one end.
//! - **Each key once.** A primary key has one version a snapshot sees,
//!   but this transaction's own update of a row ahead of the scan adds a
//!   second entry for its key (a new version); a key already yielded by
//!   either end is skipped. A row whose key this transaction changes to one
//!   ahead of the scan is met again there (PostgreSQL's command ids would
//!   hide it; folio has none yet).
//! - **Snapshot.** The steps read in the transaction's snapshot, which
//!   stays fixed while the range is open (`Transaction::statement`).

use crate::error::Result;
use crate::row::Row;
use crate::table::Table;
use folio_btree::{Direction, MultiScan};
use folio_catalog::RelationIndex;
use std::cmp::Ordering;
use std::ops::Bound;

/// One end of a range.
#[derive(Debug)]
struct End<'a> {
    scan: Option<MultiScan<'a>>,
    /// The last entry this end visited.
    at: Option<(Vec<u8>, u64)>,
    /// The last key this end yielded.
    yielded: Option<Vec<u8>>,
}

impl End<'_> {
    fn new() -> Self {
        End {
            scan: None,
            at: None,
            yielded: None,
        }
    }
}

/// Rows of a [`Table`] in primary-key order: an `Iterator` and a
/// `DoubleEndedIterator` (`.rev()`, `next_back`). Each item is a
/// `Result`: a failed step ends the range.
#[derive(Debug)]
pub struct Range<'a> {
    table: &'a Table<'a>,
    index: Option<&'a RelationIndex>,
    lower: Bound<Vec<u8>>,
    upper: Bound<Vec<u8>>,
    front: End<'a>,
    back: End<'a>,
    done: bool,
}

impl<'a> Range<'a> {
    pub(crate) fn new(
        table: &'a Table<'a>,
        index: &'a RelationIndex,
        lower: Bound<Vec<u8>>,
        upper: Bound<Vec<u8>>,
    ) -> Range<'a> {
        table.transaction().range_opened();
        Range {
            table,
            index: Some(index),
            lower,
            upper,
            front: End::new(),
            back: End::new(),
            done: false,
        }
    }

    /// A range with nothing in it.
    pub(crate) fn empty(table: &'a Table<'a>) -> Range<'a> {
        table.transaction().range_opened();
        Range {
            table,
            index: None,
            lower: Bound::Unbounded,
            upper: Bound::Unbounded,
            front: End::new(),
            back: End::new(),
            done: true,
        }
    }

    /// The next row from one end.
    fn step(&mut self, direction: Direction) -> Option<Result<Row>> {
        if self.done {
            return None;
        }
        let out = self.advance(direction);
        if !matches!(out, Some(Ok(_))) {
            self.done = true;
        }
        out
    }

    fn advance(&mut self, direction: Direction) -> Option<Result<Row>> {
        let index = self.index?;
        let (this, other) = match direction {
            Direction::Forward => (&mut self.front, &self.back),
            Direction::Backward => (&mut self.back, &self.front),
        };
        let (lower, upper) = (&self.lower, &self.upper);
        let scan = this.scan.get_or_insert_with(|| {
            index.index.tree().scan(
                lower.as_ref().map(Vec::as_slice),
                upper.as_ref().map(Vec::as_slice),
                direction,
            )
        });
        loop {
            let (key, tid) = match scan.next_entry() {
                Ok(Some((key, tid, _))) => (key, tid),
                Ok(None) => return None,
                Err(e) => return Some(Err(e.into())),
            };
            // Stop where the other end has been.
            if let Some((other_key, other_tid)) = &other.at {
                let order = (key.as_slice(), tid).cmp(&(other_key.as_slice(), *other_tid));
                let met = match direction {
                    Direction::Forward => order != Ordering::Less,
                    Direction::Backward => order != Ordering::Greater,
                };
                if met {
                    return None;
                }
            }
            let seen = this.yielded.as_ref() == Some(&key) || other.yielded.as_ref() == Some(&key);
            this.at = Some((key.clone(), tid));
            if seen {
                continue;
            }
            let table = self.table;
            let tid = folio_heap::Tid::from_word(tid);
            match table
                .transaction()
                .range_step(|txn| table.visible(txn, tid))
            {
                Ok(Some(row)) => {
                    this.yielded = Some(key);
                    return Some(Ok(row));
                }
                Ok(None) => continue,
                Err(e) => return Some(Err(e)),
            }
        }
    }
}

impl Iterator for Range<'_> {
    type Item = Result<Row>;

    fn next(&mut self) -> Option<Result<Row>> {
        self.step(Direction::Forward)
    }
}

impl DoubleEndedIterator for Range<'_> {
    fn next_back(&mut self) -> Option<Result<Row>> {
        self.step(Direction::Backward)
    }
}

impl Drop for Range<'_> {
    fn drop(&mut self) {
        self.table.transaction().range_closed();
    }
}
