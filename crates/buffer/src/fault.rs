//! Frames: a page's frame is the one its slot names (README "Translation:
//! a slot per page, a fixed set of frames"); a miss takes the page's
//! exclusive latch, reserves a free frame (evicting if there is none,
//! `eviction.rs`), reads the page into it and verifies its checksum, or
//! zero-fills it for a new page (`Fill`); and the hints that bring pages or
//! frames closer before they are needed (`prefetch_frame`, `prefetch`).

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

    /// The frame of page `page` (< max_pages): the frame its slot names.
    /// Stable while the caller holds a latch on the page; an optimistic
    /// reader may get the frame of an earlier or later residency, whose bytes
    /// its validation rejects. Always inside the frame region: frame
    /// numbers are below `pool_pages`, and a slot never written holds 0.
    #[inline(always)]
    pub(crate) fn frame(&self, page: u64) -> *mut u8 {
        self.frame_at(self.frame_number(page).load(Relaxed))
    }

    /// The address of frame `frame` (< pool_pages).
    #[inline(always)]
    fn frame_at(&self, frame: u64) -> *mut u8 {
        debug_assert!(frame < self.pool_pages);
        // SAFETY: frame < pool_pages, so the offset lies inside the frames
        // region of pool_pages * PAGE_SIZE bytes.
        unsafe { self.frames.base().add(frame as usize * PAGE_SIZE) }
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

    /// Whether the frames are backed by transparent huge pages (README
    /// "Huge pages": requested and granted).
    pub fn huge_pages_active(&self) -> bool {
        self.huge_pages
    }

    /// Reserves a frame for `page_id` (exclusively latched, Evicted before),
    /// records it in the page's slot and fills it. On error the frame is
    /// free again and nothing stays resident.
    fn load_frame(&self, page_id: PageId, fill: Fill) -> Result<(), BufferError> {
        let frame_number = self.reserve_frame()?;
        self.frame_number(page_id.0).store(frame_number, Relaxed);
        let frame = self.frame_at(frame_number);
        let result = match fill {
            Fill::Zero => {
                // SAFETY: we hold the exclusive latch and the frame was free,
                // so no other thread writes it; it lies inside the region.
                unsafe { frame.write_bytes(0, PAGE_SIZE) };
                Ok(())
            }
            Fill::Read => {
                // SAFETY: we hold the exclusive latch and the frame was free,
                // so no other thread writes it; stale optimistic readers may
                // read it concurrently with volatile loads and will fail
                // validation (see README, "racy copies").
                let page = unsafe { &mut *frame.cast::<Page>() };
                let offset_bytes = page_id.0 * PAGE_SIZE as u64;
                match self.file.read_at(page, offset_bytes) {
                    Err(source) => Err(BufferError::Io { page_id, source }),
                    Ok(()) if self.checksums => {
                        folio_page::verify_checksum(page, page_id).map_err(|e| {
                            self.note_checksum_failure();
                            BufferError::from(e)
                        })
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
                self.release_frames(&[frame_number]);
                Err(error)
            }
        }
    }
}
