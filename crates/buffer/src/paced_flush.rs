//! The checkpoint's write-back: every page dirty when it starts is written,
//! spread over time by a pacing callback, and the file synced.
//!
//! Unlike `flush_all`, this never waits for a latch. A checkpoint runs while
//! other threads hold exclusive latches and may be waiting for WAL space that
//! only the checkpoint can free (the hard WAL limit), so waiting for one of
//! their pages could deadlock. Pages are only *tried* (one CAS for the shared
//! latch); a page held exclusively is skipped and revisited after the others,
//! with a growing sleep, until `max_wait` has passed (then `FlushTimeout`).
//!
//! Which pages: a snapshot, taken at the start, of resident pages that are
//! dirty or exclusively latched (a holder may be dirtying it with a change
//! logged before the checkpoint's redo point). A page evicted meanwhile was
//! written by its evictor; a page found clean was written by someone else.

use crate::counters::Counter;
use crate::eviction::{AfterWrite, Latched};
use crate::state::{self, EVICTED, EXCLUSIVE};
use crate::{BufferError, BufferPool};
use folio_page::PageId;
use std::sync::atomic::Ordering::Relaxed;
use std::time::{Duration, Instant};

/// Progress of a paced flush, given to the pacing callback after each batch.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FlushProgress {
    /// Pages in the snapshot (dirty or latched when the flush started).
    pub pages_total: u64,
    /// Pages of the snapshot done so far (written, or found clean/evicted).
    pub pages_done: u64,
}

/// What a paced flush did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FlushReport {
    pub pages_total: u64,
    /// Pages this flush wrote.
    pub pages_written: u64,
    /// Times a page was found latched exclusively and put off.
    pub pages_skipped: u64,
}

/// First and largest sleep between passes over skipped pages.
const FIRST_REVISIT_SLEEP: Duration = Duration::from_micros(200);
const MAX_REVISIT_SLEEP: Duration = Duration::from_millis(20);

impl BufferPool {
    /// Writes every page dirty at the start (the WAL rule first, in
    /// batches), calling `pace` after each batch (it may sleep to spread the
    /// writes), then syncs the file. Only tries latches (see the module
    /// comment). A failed sync poisons the pool, as in `flush_all`.
    pub fn flush_dirty_paced(
        &self,
        pace: &mut dyn FnMut(FlushProgress),
        max_wait: Duration,
    ) -> Result<FlushReport, BufferError> {
        self.check_writable()?;
        let mut pending: Vec<u64> = (0..self.resident.capacity())
            .filter_map(|index| self.resident.get(index))
            .filter(|&page| {
                let seen = state::load(self.state_word(page));
                seen.is_dirty() || seen.state() == EXCLUSIVE
            })
            .collect();
        pending.sort_unstable();
        let mut report = FlushReport {
            pages_total: pending.len() as u64,
            ..FlushReport::default()
        };
        let started = Instant::now();
        let mut sleep = FIRST_REVISIT_SLEEP;
        let mut batch: Vec<Latched> = Vec::new();
        let mut done = 0u64;
        while !pending.is_empty() {
            let mut skipped = Vec::new();
            for &page in &pending {
                match self.try_latch_dirty(page) {
                    Some(Some(latched)) => batch.push(latched),
                    Some(None) => {}
                    None => {
                        skipped.push(page);
                        continue;
                    }
                }
                done += 1;
                if batch.len() >= self.batch_pages {
                    report.pages_written += batch.len() as u64;
                    self.write_batch(&mut batch, AfterWrite::Release)?;
                    pace(FlushProgress {
                        pages_total: report.pages_total,
                        pages_done: done,
                    });
                }
            }
            if !batch.is_empty() {
                report.pages_written += batch.len() as u64;
                self.write_batch(&mut batch, AfterWrite::Release)?;
                pace(FlushProgress {
                    pages_total: report.pages_total,
                    pages_done: done,
                });
            }
            report.pages_skipped += skipped.len() as u64;
            if let Some(&page) = skipped.first()
                && started.elapsed() > max_wait
            {
                return Err(BufferError::FlushTimeout {
                    page_id: PageId(page),
                    waited_ms: started.elapsed().as_millis() as u64,
                });
            }
            if !skipped.is_empty() {
                std::thread::sleep(sleep);
                sleep = (sleep * 2).min(MAX_REVISIT_SLEEP);
            }
            pending = skipped;
        }
        if let Err(source) = self.file.sync() {
            // Never retried (DESIGN §5): see `write_back_all`.
            self.poisoned.store(true, Relaxed);
            return Err(BufferError::Sync { source });
        }
        Ok(report)
    }

    /// One try at `page`: `Some(Some(copy))` shared-latched and copied (it
    /// is dirty); `Some(None)` nothing to write (clean or evicted);
    /// `None` latched exclusively by someone else, come back later.
    fn try_latch_dirty(&self, page: u64) -> Option<Option<Latched>> {
        let word = self.state_word(page);
        loop {
            let seen = state::load(word);
            if seen.state() == EVICTED || (!seen.is_dirty() && seen.state() != EXCLUSIVE) {
                return Some(None);
            }
            let shared = seen.lock_shared()?;
            self.count(Counter::StateRmw, 1);
            if state::try_transition(word, seen, shared).is_ok() {
                if state::load(word).is_dirty() {
                    return Some(Some(self.latched_copy(page)));
                }
                self.count(Counter::StateRmw, 1);
                state::unlock_shared(word);
                return Some(None);
            }
        }
    }
}
