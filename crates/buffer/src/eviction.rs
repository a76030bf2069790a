//! Eviction (clock sweep in batches) and write-back of dirty pages.
//!
//! A faulting thread that finds every frame reserved runs one eviction
//! round; many threads may run rounds at once. Eviction only ever *tries*
//! latches (one CAS each) and never waits on one, so it cannot deadlock
//! with latch holders. A dirty page is written while its shared latch is
//! held: that keeps writers out between the copy and the end of the write,
//! so two writes of the same page can never land out of order (a stale
//! image overwriting a newer one).

use crate::counters::Counter;
use crate::latch::Backoff;
use crate::state::{self, EVICTED, MARKED, UNLOCKED};
use crate::{BufferError, BufferPool};
use folio_page::{Lsn, PAGE_SIZE, Page, PageId};
use std::sync::atomic::Ordering::Relaxed;

/// Resident-set slots a sweeper claims from the clock hand at a time (at
/// most a quarter of the set, so a tiny pool's round does not sweep it
/// twice in one claim).
const CLOCK_CHUNK: u64 = 32;
/// Consecutive eviction rounds that found no evictable page at all (every
/// resident page latched, or dirty in a poisoned pool), each followed by a
/// backoff, before a fault gives up with `PoolExhausted`. Rounds that lose
/// the race for candidates to other evictors do not count.
const MAX_IDLE_ROUNDS: u32 = 1_000;

/// What one eviction round achieved.
struct Round {
    evicted: u64,
    /// Pages seen that eviction could work on (Unlocked, or Marked and
    /// writable): zero means every frame is pinned by latches.
    candidates: u64,
}

/// How a written page's shared latch is released (`write_batch`).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum AfterWrite {
    /// Clean and unlocked.
    Release,
    /// Evicted, when the writer is its only holder (an eviction round).
    Evict,
    /// Clean and Marked again, when the writer is its only holder: the
    /// clock evicts it cheaply when it arrives (`cleaner.rs`).
    KeepMarked,
}

/// A dirty page whose shared latch the writer holds, with the private copy
/// that will be checksummed and written. Dropping it without
/// [`BufferPool::finish_write`] would leak the latch, so every path ends in
/// `finish_write` or `release`.
pub(crate) struct Latched {
    page: u64,
    data: Box<Page>,
}

impl BufferPool {
    /// Reserves a free frame for a page being faulted in, evicting if there
    /// is none, and returns its number.
    pub(crate) fn reserve_frame(&self) -> Result<u64, BufferError> {
        let mut idle_rounds = 0;
        let mut backoff = Backoff::default();
        loop {
            let free = self.free_frames().pop();
            if let Some(frame) = free {
                return Ok(frame);
            }
            if !self.evicting.load(Relaxed) {
                self.evicting.store(true, Relaxed);
            }
            // At most `max_evictors` rounds at once: one round frees a batch
            // for everyone, and more rounds than CPUs only latch more
            // candidates and collide (README "Resident set and eviction").
            if self.evictors.fetch_add(1, Relaxed) >= self.max_evictors {
                self.evictors.fetch_sub(1, Relaxed);
                backoff.snooze();
                continue;
            }
            let round = self.evict_round();
            self.evictors.fetch_sub(1, Relaxed);
            let round = round?;
            if round.candidates == 0 {
                idle_rounds += 1;
                if idle_rounds > MAX_IDLE_ROUNDS {
                    return Err(BufferError::PoolExhausted);
                }
            } else {
                idle_rounds = 0;
            }
            if round.evicted == 0 {
                backoff.snooze();
            }
        }
    }

    /// One clock round: sweeps the resident set from the clock hand until
    /// `batch_pages` candidates are found (or two full turns). Unlocked →
    /// Marked; a Marked clean page is try-locked exclusive and evicted; a
    /// Marked dirty page is try-locked shared and copied. The dirty batch is
    /// then written (one WAL flush first) and each page evicted if its
    /// shared latch can be upgraded.
    fn evict_round(&self) -> Result<Round, BufferError> {
        let target = self.batch_pages as u64;
        let mut evicted = 0u64;
        let mut candidates = 0u64;
        let mut dirty: Vec<Latched> = Vec::new();
        let turns = 2 * self.resident.capacity();
        let mut scanned = 0u64;
        // Clean pages are latched exclusively as they are found and evicted
        // together, so their frames go back under one lock of the free list.
        let mut clean: Vec<u64> = Vec::new();
        let chunk = CLOCK_CHUNK.min(self.resident.capacity() / 4).max(1);
        // Every slot of a claimed chunk is examined, even past the target:
        // the hand has moved beyond the chunk, so slots a round skipped would
        // wait a whole turn, and a page that kept landing there escaped the
        // clock (found with `keep_resident`'s test: an unused page outlived
        // three turns of a 64-frame pool).
        while ((clean.len() + dirty.len()) as u64) < target && scanned < turns {
            let start = self.clock_hand.fetch_add(chunk, Relaxed);
            for index in start..start + chunk {
                scanned += 1;
                let Some(page) = self.resident.get(index) else {
                    continue;
                };
                let word = self.state_word(page);
                let seen = state::load(word);
                match seen.state() {
                    UNLOCKED => {
                        candidates += 1;
                        self.count(Counter::StateRmw, 1);
                        let _ = state::try_transition(word, seen, seen.mark().expect("unlocked"));
                    }
                    MARKED if !seen.is_dirty() => {
                        candidates += 1;
                        self.count(Counter::StateRmw, 1);
                        let locked = seen.lock_exclusive().expect("marked");
                        if state::try_transition(word, seen, locked).is_ok() {
                            clean.push(page);
                        }
                    }
                    MARKED if !self.is_poisoned() => {
                        candidates += 1;
                        self.count(Counter::StateRmw, 1);
                        let shared = seen.lock_shared().expect("marked");
                        if state::try_transition(word, seen, shared).is_ok() {
                            dirty.push(self.latched_copy(page));
                        }
                    }
                    _ => {}
                }
            }
        }
        self.evict_locked_batch(&clean);
        evicted += clean.len() as u64;
        if !dirty.is_empty() {
            evicted += self.write_batch(&mut dirty, AfterWrite::Evict)?;
        }
        Ok(Round {
            evicted,
            candidates,
        })
    }

    /// Evicts `pages`, each exclusively latched by the caller: out of the
    /// resident set, frames back on the free list, then each is set Evicted
    /// with a bumped version. A stale optimistic reader may then read
    /// another page's bytes in a reused frame; its validation fails (the
    /// word is Exclusive, Evicted or has a newer version).
    fn evict_locked_batch(&self, pages: &[u64]) {
        if pages.is_empty() {
            return;
        }
        for &page in pages {
            self.resident.remove(page);
        }
        let frames: Vec<u64> = pages
            .iter()
            .map(|&page| self.frame_number(page).load(Relaxed))
            .collect();
        for &page in pages {
            state::unlock_exclusive(self.state_word(page), EVICTED, false);
        }
        self.release_frames(&frames);
        self.count(Counter::Evictions, pages.len() as u64);
    }

    /// Puts `frames` (no page occupies them any more) back on the free list.
    pub(crate) fn release_frames(&self, frames: &[u64]) {
        self.free_frames().extend_from_slice(frames);
    }

    /// Copies `page`, whose shared latch the caller holds.
    pub(crate) fn latched_copy(&self, page: u64) -> Latched {
        let mut data = Box::new([0u8; PAGE_SIZE]);
        // SAFETY: the shared latch excludes writers, and the frame of a page
        // < max_pages lies inside the region.
        data.copy_from_slice(unsafe { &*self.frame(page).cast::<Page>() });
        Latched { page, data }
    }

    /// Writes a batch of latched pages and releases every latch, whatever
    /// happens. The WAL rule first: one flush up to the largest page LSN of
    /// the batch. Pages written are marked clean and released as `after`
    /// says. Returns the pages evicted.
    pub(crate) fn write_batch(
        &self,
        batch: &mut Vec<Latched>,
        after: AfterWrite,
    ) -> Result<u64, BufferError> {
        let result = self.write_copies(batch);
        // Pages this thread upgraded to exclusive: evicted together, as a
        // clean batch is.
        let mut evictable = Vec::new();
        for latched in batch.drain(..) {
            if result.is_ok() {
                if self.finish_write(latched.page, after) {
                    evictable.push(latched.page);
                }
            } else {
                self.count(Counter::StateRmw, 1);
                state::unlock_shared(self.state_word(latched.page));
            }
        }
        self.evict_locked_batch(&evictable);
        result.map(|()| evictable.len() as u64)
    }

    fn write_copies(&self, batch: &mut [Latched]) -> Result<(), BufferError> {
        self.check_writable()?;
        let newest = batch
            .iter()
            .map(|c| (folio_page::header_lsn(&c.data), c.page))
            .max();
        let flusher = self.wal.read().unwrap_or_else(|e| e.into_inner()).clone();
        let newest = newest.filter(|&(lsn, _)| lsn > Lsn(0));
        if let (Some(flusher), Some((lsn, page))) = (flusher, newest) {
            flusher
                .flush_to(lsn)
                .map_err(|source| BufferError::WalFlush {
                    page_id: PageId(page),
                    source,
                })?;
        }
        for latched in batch.iter_mut() {
            let page_id = PageId(latched.page);
            self.check_reserved(page_id)?;
            if self.checksums {
                folio_page::set_checksum(&mut latched.data, page_id);
            }
            self.file
                .write_at(&latched.data[..], latched.page * PAGE_SIZE as u64)
                .map_err(|source| BufferError::Io { page_id, source })?;
            self.count(Counter::Writes, 1);
        }
        Ok(())
    }

    /// After the write of `page` (shared-latched by us, so unchanged since
    /// the copy), one CAS when we are the only holder: with
    /// `AfterWrite::Evict`, to exclusive and clean (returns true: the caller
    /// now holds the exclusive latch and evicts the page); with
    /// `AfterWrite::KeepMarked`, to Marked and clean (`cleaner.rs`).
    /// Otherwise clear the dirty flag and release the shared latch.
    fn finish_write(&self, page: u64, after: AfterWrite) -> bool {
        let word = self.state_word(page);
        loop {
            let seen = state::load(word);
            let sole = match after {
                AfterWrite::Evict => seen.upgrade_clean(),
                AfterWrite::KeepMarked => seen.release_marked_clean(),
                AfterWrite::Release => None,
            };
            if let Some(next) = sole {
                self.count(Counter::StateRmw, 1);
                if state::try_transition(word, seen, next).is_ok() {
                    return after == AfterWrite::Evict;
                }
                continue;
            }
            let Some(clean) = seen.cleaned() else { break };
            self.count(Counter::StateRmw, 1);
            if state::try_transition(word, seen, clean).is_ok() {
                break;
            }
        }
        self.count(Counter::StateRmw, 1);
        state::unlock_shared(word);
        false
    }

    /// `flush_all`: writes every dirty resident page (WAL rule first, in
    /// batches), then syncs. A failed sync poisons the pool. Waits for a
    /// page's writer only while holding no latch (the batch is written and
    /// released first), so it cannot join a latch cycle.
    pub(crate) fn write_back_all(&self) -> Result<(), BufferError> {
        self.check_writable()?;
        let mut batch = Vec::new();
        for index in 0..self.resident.capacity() {
            let Some(page) = self.resident.get(index) else {
                continue;
            };
            let word = self.state_word(page);
            let mut backoff = Backoff::default();
            loop {
                let seen = state::load(word);
                if !seen.is_dirty() || seen.state() == EVICTED {
                    break;
                }
                if let Some(shared) = seen.lock_shared() {
                    self.count(Counter::StateRmw, 1);
                    if state::try_transition(word, seen, shared).is_ok() {
                        batch.push(self.latched_copy(page));
                        break;
                    }
                    continue;
                }
                if !batch.is_empty() {
                    self.write_batch(&mut batch, AfterWrite::Release)?;
                }
                self.count(Counter::LatchWaits, 1);
                backoff.snooze();
            }
            if batch.len() >= self.batch_pages {
                self.write_batch(&mut batch, AfterWrite::Release)?;
            }
        }
        if !batch.is_empty() {
            self.write_batch(&mut batch, AfterWrite::Release)?;
        }
        if let Err(source) = self.file.sync() {
            // Never retried: after a failed fsync the kernel may have dropped
            // the dirty data, so nothing written since the last good sync can
            // be trusted to be on disk (DESIGN §5).
            self.poisoned.store(true, Relaxed);
            return Err(BufferError::Sync { source });
        }
        Ok(())
    }
}
