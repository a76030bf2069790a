//! Latch acquisition on a page's state word (README "Latch protocol"):
//! optimistic (no shared write on a cached page), shared, exclusive, and
//! recovery's exclusive latch; waiting with a bounded spin, then yielding.
//! A latch request on an evicted page faults it in first (`fault.rs`); the
//! word's encoding and one-step transitions are `state.rs`'s.

use crate::counters::Counter;
use crate::fault::Fill;
use crate::guards::{ExclusiveGuard, OptimisticGuard, SharedGuard};
use crate::state::{self, EVICTED, EXCLUSIVE, UNLOCKED};
use crate::{BufferError, BufferPool};
use folio_page::PageId;
use std::sync::atomic::AtomicU64;

/// Spin briefly, then yield: the pool runs with hundreds of threads on a
/// few cores, where spinning only steals the holder's time slice.
#[derive(Debug, Default)]
pub(crate) struct Backoff {
    step: u32,
}

impl Backoff {
    pub(crate) fn snooze(&mut self) {
        if self.step < 4 {
            for _ in 0..(1u32 << self.step) {
                std::hint::spin_loop();
            }
        } else {
            std::thread::yield_now();
        }
        self.step = self.step.saturating_add(1);
    }
}

impl BufferPool {
    /// Whether `page_id` is resident; if it is and the clock has marked it,
    /// gives it its second chance now (Marked → Unlocked, as a reader
    /// does). Recovery calls this for every page of the records it decodes
    /// ahead, so the clock does not evict a page about to be redone (which
    /// would cost a read that no prefetch was issued for). No shared write
    /// unless the page is marked.
    pub fn keep_resident(&self, page_id: PageId) -> bool {
        let Ok(word) = self.state(page_id) else {
            return false;
        };
        let seen = state::load(word);
        if let Some(unmarked) = seen.unmark() {
            self.count(Counter::StateRmw, 1);
            // A failed CAS means someone else changed the word: a reader
            // unmarked it, or the clock latched it; either way nothing to do.
            let _ = state::try_transition(word, seen, unmarked);
        }
        seen.state() != EVICTED
    }

    /// Exclusive latch for recovery. With `overwrite` (the caller is about to
    /// replace the whole page, e.g. from a full-page image) a page that is
    /// not resident is not read: its frame starts zeroed, so a torn page on
    /// disk is never read or checksummed. Pages past the high-water mark are
    /// latched like any other (they read as zeros).
    pub fn exclusive_for_redo(
        &self,
        page_id: PageId,
        overwrite: bool,
    ) -> Result<ExclusiveGuard<'_>, BufferError> {
        self.check_writable()?;
        self.exclusive_with(page_id, if overwrite { Fill::Zero } else { Fill::Read })
    }

    /// Starts an optimistic read; faults the page in on a miss and waits out an
    /// exclusive holder. Writes no shared memory when the page is cached.
    #[inline]
    pub fn optimistic(&self, page_id: PageId) -> Result<OptimisticGuard<'_>, BufferError> {
        self.optimistic_counted::<true>(page_id)
    }

    /// [`BufferPool::optimistic`] without counting the access as a hit (a
    /// miss, which reads the file, still counts): for the engine's own
    /// bookkeeping pages (the commit-status
    /// log), which PostgreSQL keeps outside shared buffers, so that the
    /// per-thread hits (`EXPLAIN (BUFFERS)`) count relation pages only.
    #[inline]
    pub fn optimistic_uncounted(
        &self,
        page_id: PageId,
    ) -> Result<OptimisticGuard<'_>, BufferError> {
        self.optimistic_counted::<false>(page_id)
    }

    #[inline(always)]
    fn optimistic_counted<const COUNT: bool>(
        &self,
        page_id: PageId,
    ) -> Result<OptimisticGuard<'_>, BufferError> {
        let word = self.state(page_id)?;
        let mut backoff = Backoff::default();
        let mut faulted = false;
        loop {
            let seen = state::load(word);
            match seen.state() {
                EXCLUSIVE => self.wait(&mut backoff),
                EVICTED => {
                    if let Some(locked) = self.try_fault(page_id, seen, Fill::Read)? {
                        let start = state::unlock_exclusive(word, UNLOCKED, locked.is_dirty());
                        return Ok(OptimisticGuard::new(self, page_id, start));
                    }
                    faulted = true;
                }
                state::MARKED => {
                    // A reader that finds the clock's mark clears it (the
                    // page's second chance, as in vmcache): one RMW per page
                    // per clock pass, never on a page the clock left alone.
                    let start = seen.unmark().expect("marked");
                    self.count(Counter::StateRmw, 1);
                    if state::try_transition(word, seen, start).is_ok() {
                        if COUNT {
                            self.count_hit(faulted);
                        }
                        return Ok(OptimisticGuard::new(self, page_id, start));
                    }
                }
                _ => {
                    if COUNT {
                        self.count_hit(faulted);
                    }
                    return Ok(OptimisticGuard::new(self, page_id, seen));
                }
            }
        }
    }

    /// Takes a shared latch.
    pub fn shared(&self, page_id: PageId) -> Result<SharedGuard<'_>, BufferError> {
        let word = self.state(page_id)?;
        let mut backoff = Backoff::default();
        let mut faulted = false;
        loop {
            let seen = state::load(word);
            if seen.state() == EVICTED {
                if let Some(locked) = self.try_fault(page_id, seen, Fill::Read)? {
                    // Downgrade: we are the only holder.
                    state::unlock_exclusive(word, UNLOCKED + 1, locked.is_dirty());
                    return Ok(SharedGuard::new(self, page_id));
                }
                faulted = true;
                continue;
            }
            match seen.lock_shared() {
                Some(new) => {
                    self.count(Counter::StateRmw, 1);
                    if state::try_transition(word, seen, new).is_ok() {
                        self.count_hit(faulted);
                        return Ok(SharedGuard::new(self, page_id));
                    }
                }
                None => self.wait(&mut backoff),
            }
        }
    }

    /// Takes an exclusive latch.
    pub fn exclusive(&self, page_id: PageId) -> Result<ExclusiveGuard<'_>, BufferError> {
        self.check_writable()?;
        self.exclusive_with(page_id, Fill::Read)
    }

    pub(crate) fn exclusive_with(
        &self,
        page_id: PageId,
        fill: Fill,
    ) -> Result<ExclusiveGuard<'_>, BufferError> {
        if self.sealed.load(std::sync::atomic::Ordering::Relaxed) {
            return Err(BufferError::Sealed);
        }
        let word = self.state(page_id)?;
        let mut backoff = Backoff::default();
        let mut faulted = false;
        loop {
            let seen = state::load(word);
            if seen.state() == EVICTED {
                if self.try_fault(page_id, seen, fill)?.is_some() {
                    return Ok(ExclusiveGuard::new(self, page_id));
                }
                faulted = true;
                continue;
            }
            match seen.lock_exclusive() {
                Some(new) => {
                    self.count(Counter::StateRmw, 1);
                    if state::try_transition(word, seen, new).is_ok() {
                        self.count_hit(faulted);
                        return Ok(ExclusiveGuard::new(self, page_id));
                    }
                }
                None => self.wait(&mut backoff),
            }
        }
    }

    /// The state word of `page_id`, or `OutOfRange`.
    #[inline(always)]
    pub(crate) fn state(&self, page_id: PageId) -> Result<&AtomicU64, BufferError> {
        if page_id.0 >= self.max_pages {
            return Err(BufferError::OutOfRange {
                page_id,
                max_pages: self.max_pages,
            });
        }
        Ok(self.state_word(page_id.0))
    }

    /// The state word of page `page` (< max_pages): the first word of its slot.
    #[inline(always)]
    pub(crate) fn state_word(&self, page: u64) -> &AtomicU64 {
        self.slot_word(page, 0)
    }

    /// The number of the frame page `page` (< max_pages) occupies: the
    /// second word of its slot. Written by the thread that faults the page
    /// in, under its exclusive latch and before the Release store that ends
    /// it; so a reader that saw a readable state word (Acquire) reads the
    /// frame number of that residency or of a later one, and a later one
    /// means the version changed and the read fails validation.
    #[inline(always)]
    pub(crate) fn frame_number(&self, page: u64) -> &AtomicU64 {
        self.slot_word(page, 1)
    }

    #[inline(always)]
    fn slot_word(&self, page: u64, word: usize) -> &AtomicU64 {
        assert!(page < self.max_pages);
        // SAFETY: the states region holds `2 * max_pages` zero-initialised
        // AtomicU64s (all-zero is a valid AtomicU64), suitably aligned (mmap
        // is page-aligned), living as long as `self`; word < 2.
        unsafe {
            &*self
                .states
                .base()
                .cast::<AtomicU64>()
                .add(2 * page as usize + word)
        }
    }

    #[inline(always)]
    fn count_hit(&self, faulted: bool) {
        if !faulted {
            self.count(Counter::Hits, 1);
        }
    }

    fn wait(&self, backoff: &mut Backoff) {
        self.count(Counter::LatchWaits, 1);
        backoff.snooze();
    }
}
