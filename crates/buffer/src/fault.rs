//! Frames and memory: a page's frame is arithmetic (`base + p * 8192`,
//! README "Virtual-memory translation"); a miss takes the page's exclusive
//! latch, reserves a frame (evicting if the pool is full, `eviction.rs`),
//! reads the page into it and verifies its checksum, or zero-fills it for a
//! new page (`Fill`); the huge-page phase of the first frames ends here
//! (README "Huge pages"); and the hints that bring pages or frames closer
//! before they are needed (`prefetch_frame`, `prefetch`).

use crate::counters::Counter;
use crate::state::{self, EVICTED, Word};
use crate::{BufferError, BufferPool};
use folio_page::{PAGE_SIZE, Page, PageId};
use std::sync::atomic::AtomicU64;
use std::sync::atomic::Ordering::Relaxed;

/// How a fault-in fills the frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Fill {
    /// Read the page from the file and verify it.
    Read,
    /// A page being allocated past the high-water mark: zeros, no read (a
    /// stale, possibly torn page left there by a crash is never read).
    Zero,
}

impl BufferPool {
    /// Hints the CPU to start loading the first `len_bytes` of `page_id`'s
    /// frame and its state word into the cache (prefetch instructions: no
    /// fault, no shared write, nothing happens for a page out of range or
    /// not resident). A descent calls it as soon as it knows the child, so
    /// the child's header, slot array and state word arrive together rather
    /// than one dependent miss after another.
    #[inline(always)]
    pub fn prefetch_frame(&self, page_id: PageId, len_bytes: usize) {
        if page_id.0 >= self.max_pages {
            return;
        }
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
            const LINE: usize = 64;
            let frame = self.frame(page_id.0).cast_const().cast::<i8>();
            let state = (self.state_word(page_id.0) as *const AtomicU64).cast::<i8>();
            // SAFETY: prefetches never fault or write; the addresses lie in
            // this pool's mappings (frame offsets below PAGE_SIZE).
            unsafe {
                _mm_prefetch::<_MM_HINT_T0>(state);
                let mut at = 0;
                while at < len_bytes.min(PAGE_SIZE) {
                    _mm_prefetch::<_MM_HINT_T0>(frame.add(at));
                    at += LINE;
                }
            }
        }
    }

    /// Whether `page_id` occupies a frame now (a hint: it may be evicted or
    /// faulted in the next moment). False for pages out of range.
    pub fn is_resident(&self, page_id: PageId) -> bool {
        self.state(page_id)
            .is_ok_and(|word| state::load(word).state() != EVICTED)
    }

    /// Asks the OS to read `page_id` ahead (posix_fadvise WILLNEED) unless it
    /// is resident. Returns whether advice was issued. A hint only: nothing
    /// is latched or reserved, and the read that follows verifies as usual.
    pub fn prefetch(&self, page_id: PageId) -> Result<bool, BufferError> {
        self.state(page_id)?;
        if self.is_resident(page_id) {
            return Ok(false);
        }
        let page_bytes = PAGE_SIZE as u64;
        self.file
            .advise_willneed(page_id.0 * page_bytes, page_bytes)
            .map_err(|source| BufferError::Io { page_id, source })?;
        Ok(true)
    }

    /// The frame of page `page` (< max_pages).
    #[inline(always)]
    pub(crate) fn frame(&self, page: u64) -> *mut u8 {
        debug_assert!(page < self.max_pages);
        // SAFETY: page < max_pages, so the offset lies inside the frames
        // region of max_pages * PAGE_SIZE bytes.
        unsafe { self.frames.base().add(page as usize * PAGE_SIZE) }
    }

    /// Tries to take the exclusive latch of the evicted page (`seen`) and
    /// bring it in. `Ok(None)`: another thread changed the word first (the
    /// caller re-reads it). `Ok(Some(word))`: the page is resident and the
    /// caller holds its exclusive latch (`word` is the locked word). On
    /// error the page is Evicted again and holds no frame.
    pub(crate) fn try_fault(
        &self,
        page_id: PageId,
        seen: Word,
        fill: Fill,
    ) -> Result<Option<Word>, BufferError> {
        let word = self.state_word(page_id.0);
        let locked = seen.lock_exclusive().expect("evicted page can be locked");
        self.count(Counter::StateRmw, 1);
        if state::try_transition(word, seen, locked).is_err() {
            return Ok(None);
        }
        self.count(Counter::Misses, 1);
        match self.load_frame(page_id, fill) {
            Ok(()) => Ok(Some(locked)),
            Err(error) => {
                state::unlock_exclusive(word, EVICTED, false);
                Err(error)
            }
        }
    }

    /// Whether the frames of the first pages are still backed by huge pages
    /// (README "Huge pages").
    pub fn huge_pages_active(&self) -> bool {
        self.huge_active.load(Relaxed)
    }

    /// Ends the huge-page phase (README "Huge pages"), once: no new huge
    /// pages in the prefix, and the memory behind every prefix frame that
    /// holds no page is released, so from here on the pool's memory is its
    /// resident frames again. Each such frame is latched (Evicted →
    /// exclusive, one CAS; a page being faulted in is not Evicted and is
    /// skipped) while it is discarded.
    pub(crate) fn leave_huge_pages(&self) {
        if !self.huge_active.swap(false, Relaxed) {
            return;
        }
        self.frames
            .advise_huge((self.huge_prefix_pages * PAGE_SIZE as u64) as usize, false);
        const CHUNK: usize = 4096;
        let mut locked = Vec::with_capacity(CHUNK);
        let mut page = 0;
        while page < self.huge_prefix_pages {
            locked.clear();
            while page < self.huge_prefix_pages && locked.len() < CHUNK {
                let word = self.state_word(page);
                let seen = state::load(word);
                if seen.state() == EVICTED
                    && let Some(latched) = seen.lock_exclusive()
                {
                    self.count(Counter::StateRmw, 1);
                    if state::try_transition(word, seen, latched).is_ok() {
                        locked.push(page);
                    }
                }
                page += 1;
            }
            let offsets: Vec<usize> = locked.iter().map(|&p| p as usize * PAGE_SIZE).collect();
            self.frames.discard_many(&offsets, PAGE_SIZE);
            for &p in &locked {
                state::unlock_exclusive(self.state_word(p), EVICTED, false);
            }
        }
    }

    /// Reserves a frame for `page_id` (exclusively latched, Evicted before)
    /// and fills it. On error nothing stays reserved or resident.
    fn load_frame(&self, page_id: PageId, fill: Fill) -> Result<(), BufferError> {
        if page_id.0 >= self.huge_prefix_pages && self.huge_active.load(Relaxed) {
            self.leave_huge_pages();
        }
        self.reserve_frame()?;
        let frame = self.frame(page_id.0);
        let result = match fill {
            Fill::Zero => {
                // SAFETY: we hold the exclusive latch; the frame is inside the
                // region (page_id < max_pages was checked by `state`).
                unsafe { frame.write_bytes(0, PAGE_SIZE) };
                Ok(())
            }
            Fill::Read => {
                // SAFETY: we hold the exclusive latch, so no other thread
                // writes the frame; stale optimistic readers may read it
                // concurrently with volatile loads and will fail validation
                // (see README, "racy copies").
                let page = unsafe { &mut *frame.cast::<Page>() };
                let offset_bytes = page_id.0 * PAGE_SIZE as u64;
                match self.file.read_at(page, offset_bytes) {
                    Err(source) => Err(BufferError::Io { page_id, source }),
                    Ok(()) if self.checksums => {
                        folio_page::verify_checksum(page, page_id).map_err(BufferError::from)
                    }
                    Ok(()) => Ok(()),
                }
            }
        };
        match result {
            Ok(()) => {
                self.resident.insert(page_id.0);
                Ok(())
            }
            Err(error) => {
                self.frames
                    .discard(page_id.0 as usize * PAGE_SIZE, PAGE_SIZE);
                self.used_pages.fetch_sub(1, Relaxed);
                Err(error)
            }
        }
    }
}
