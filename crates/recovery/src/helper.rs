//! Recovery's helper thread (`folio-helper`): the work that replay hands
//! off to the second CPU.
//!
//! - **Readahead advice** (prefetch on): for each page the lookahead sends,
//!   `BufferPool::prefetch` (posix_fadvise WILLNEED), which allocates
//!   page-cache pages and submits the read. A failed hint is ignored: apply
//!   reads the page anyway.
//! - **Cleaning ahead of the clock** (`RecoveryOptions::background_writer`):
//!   once the pool evicts, `BufferPool::clean_ahead` writes the dirty pages
//!   the clock reaches next, so the replaying thread's evictions find them
//!   clean (PostgreSQL runs its background writer during recovery for the
//!   same reason).
//!
//! One thread does both, hints first and at most `CLEAN_STEP` page writes
//! between two looks at the hint queue. As two threads, the advisor's
//! polling took the second CPU from the writer and both preempted the
//! replaying thread (quick seed-001 WAL, depth 128: 0.78-0.93M records/s
//! with two threads, 0.99-1.20M with one).
//!
//! Idle, the thread polls (yielding) for `SPIN_BEFORE_SLEEP` after its
//! last work while hints can come, because a hint sent to a sleeping thread
//! costs the replaying thread a futex wake-up (~9 % of its time with one
//! hint per send); then it sleeps in short steps (parked while there is no
//! hint queue, so that setting `stop` and unparking it ends it at once). It
//! ends when the hint queue closes or `stop` is set.

use crate::driver::SPIN_BEFORE_SLEEP;
use folio_buffer::{BufferError, BufferPool, CleanCursor};
use folio_page::PageId;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError, TryRecvError};
use std::time::{Duration, Instant};

/// Page writes between two looks at the hint queue.
const CLEAN_STEP: u64 = 8;
/// A sleep while the pool evicts but nothing ahead of the clock is dirty.
const IDLE_SLEEP: Duration = Duration::from_micros(100);
/// A sleep while the pool has never evicted (a pool that holds every page
/// never does).
const NOT_EVICTING_SLEEP: Duration = Duration::from_millis(1);

/// What the helper does; `hints` is `Some` when prefetch is on.
pub(crate) struct Helper<'a> {
    pub pool: &'a BufferPool,
    pub hints: Option<Receiver<Vec<u64>>>,
    pub clean: bool,
    pub stop: &'a AtomicBool,
}

impl Helper<'_> {
    /// Runs until the hint queue closes or `stop` is set. Returns the first
    /// write error of cleaning (the page stays dirty; eviction writes it or
    /// reports the same failure).
    pub(crate) fn run(self) -> Result<(), BufferError> {
        let mut cursor = CleanCursor::default();
        let mut idle_since: Option<Instant> = None;
        loop {
            let mut worked = match self.advise_pending() {
                Some(advised) => advised,
                None => return Ok(()), // the queue closed: replay is done
            };
            if self.stop.load(Ordering::Acquire) {
                return Ok(());
            }
            // `clean_ahead` writes nothing before the pool first evicts.
            if self.clean && self.pool.clean_ahead(&mut cursor, CLEAN_STEP)? > 0 {
                worked = true;
            }
            if worked {
                idle_since = None;
                continue;
            }
            let since = *idle_since.get_or_insert_with(Instant::now);
            if !self.idle(since.elapsed()) {
                return Ok(());
            }
        }
    }

    /// Advises every queued hint; `None` once the queue has closed.
    fn advise_pending(&self) -> Option<bool> {
        let Some(hints) = &self.hints else {
            return Some(false);
        };
        let mut advised = false;
        loop {
            match hints.try_recv() {
                Ok(batch) => {
                    self.advise(batch);
                    advised = true;
                }
                Err(TryRecvError::Empty) => return Some(advised),
                Err(TryRecvError::Disconnected) => return None,
            }
        }
    }

    fn advise(&self, batch: Vec<u64>) {
        for page in batch {
            let _ = self.pool.prefetch(PageId(page));
        }
    }

    /// One idle step, `idle` after the last work; false once the hint queue
    /// has closed or replay has stopped the helper.
    fn idle(&self, idle: Duration) -> bool {
        let sleep = if self.clean && self.pool.is_evicting() {
            IDLE_SLEEP
        } else {
            NOT_EVICTING_SLEEP
        };
        match &self.hints {
            Some(_) if idle < SPIN_BEFORE_SLEEP => {
                std::thread::yield_now();
                true
            }
            Some(hints) => match hints.recv_timeout(sleep) {
                Ok(batch) => {
                    self.advise(batch);
                    true
                }
                Err(RecvTimeoutError::Timeout) => true,
                Err(RecvTimeoutError::Disconnected) => false,
            },
            // Parked, not asleep: stopping unparks it at once (driver.rs,
            // `StopOnDrop`); a sleep made every replay wait up to 1 ms for
            // its helper to notice the end.
            None => {
                std::thread::park_timeout(sleep);
                !self.stop.load(Ordering::Acquire)
            }
        }
    }
}
