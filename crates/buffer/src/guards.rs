//! RAII latch guards and the racy copies of optimistic reads.

use crate::counters::Counter;
use crate::state::{self, Word};
use crate::{BufferPool, Restart};
use folio_page::{PAGE_SIZE, Page, PageId};
use std::ptr;

/// Copies `out.len()` bytes of page memory starting at `src` (inside one
/// frame) with volatile loads: 8-byte loads on the aligned middle, single
/// bytes at the ends. Never creates a reference to the frame.
///
/// # Safety
/// `src..src + out.len()` lies inside the frame region.
#[inline]
pub(crate) unsafe fn racy_copy(src: *const u8, out: &mut [u8]) {
    let len = out.len();
    let head = src.align_offset(8).min(len);
    let words = (len - head) / 8;
    for (i, byte) in out[..head].iter_mut().enumerate() {
        // SAFETY: i < head <= len: inside the range the caller vouches for.
        *byte = unsafe { ptr::read_volatile(src.add(i)) };
    }
    for w in 0..words {
        let at = head + w * 8;
        // SAFETY: at + 8 <= len and src + at is 8-aligned by the choice of head.
        let value = unsafe { ptr::read_volatile(src.add(at).cast::<u64>()) };
        out[at..at + 8].copy_from_slice(&value.to_ne_bytes());
    }
    let tail = head + words * 8;
    for (i, byte) in out.iter_mut().enumerate().skip(tail) {
        // SAFETY: i < len.
        *byte = unsafe { ptr::read_volatile(src.add(i)) };
    }
}

/// `bytes` zero-extended to 8 bytes.
#[inline(always)]
fn pad<const N: usize>(bytes: [u8; N]) -> [u8; 8] {
    let mut out = [0u8; 8];
    out[..N].copy_from_slice(&bytes);
    out
}

/// An optimistic read of one page: remembers the version it saw. Reads are
/// racy copies (volatile) that must be validated before they are trusted.
#[derive(Debug)]
pub struct OptimisticGuard<'a> {
    pool: &'a BufferPool,
    page_id: PageId,
    frame: *const u8,
    start: Word,
}

impl<'a> OptimisticGuard<'a> {
    #[inline(always)]
    pub(crate) fn new(pool: &'a BufferPool, page_id: PageId, start: Word) -> Self {
        debug_assert!(start.is_readable());
        OptimisticGuard {
            pool,
            page_id,
            frame: pool.frame(page_id.0),
            start,
        }
    }

    pub fn page_id(&self) -> PageId {
        self.page_id
    }

    /// Racy copy of `out.len()` bytes at `offset`; bytes outside the page read as zero.
    #[inline]
    pub fn read_bytes(&self, offset: usize, out: &mut [u8]) {
        let inside = PAGE_SIZE.saturating_sub(offset).min(out.len());
        let (copied, zeroed) = out.split_at_mut(inside);
        if !copied.is_empty() {
            // SAFETY: offset + inside <= PAGE_SIZE, so the range lies in this
            // page's frame.
            unsafe { racy_copy(self.frame.add(offset), copied) };
        }
        zeroed.fill(0);
    }

    #[inline(always)]
    fn read_array<const N: usize>(&self, offset: usize) -> [u8; N] {
        if offset <= PAGE_SIZE - N {
            // SAFETY: offset + N <= PAGE_SIZE: inside the frame; [u8; N] has
            // alignment 1, so the volatile load needs no alignment.
            unsafe { ptr::read_volatile(self.frame.add(offset).cast::<[u8; N]>()) }
        } else {
            let mut out = [0u8; N];
            self.read_bytes(offset, &mut out);
            out
        }
    }

    /// The aligned 8-byte word of the frame at `at` (a multiple of 8 below
    /// `PAGE_SIZE`), as a little-endian value: one volatile load.
    #[inline(always)]
    fn word_at(&self, at: usize) -> u64 {
        debug_assert!(at.is_multiple_of(8) && at < PAGE_SIZE);
        // SAFETY: at + 8 <= PAGE_SIZE, so the load lies in this page's frame;
        // frames are page aligned, so an 8-aligned offset is an aligned u64.
        // Racy by design: see `racy_copy`.
        u64::from_le(unsafe { ptr::read_volatile(self.frame.add(at).cast::<u64>()) })
    }

    /// Racy little-endian loads; out-of-page offsets read as zero.
    ///
    /// A value inside one aligned word is one volatile word load and a
    /// shift; one that straddles two words is two loads. (A volatile load of
    /// a byte array compiles to one load per byte, which made these the
    /// most executed instructions of a descent.)
    #[inline(always)]
    pub fn read_u16(&self, offset: usize) -> u16 {
        self.read_small::<2>(offset) as u16
    }

    #[inline(always)]
    pub fn read_u32(&self, offset: usize) -> u32 {
        self.read_small::<4>(offset) as u32
    }

    #[inline(always)]
    pub fn read_u64(&self, offset: usize) -> u64 {
        self.read_small::<8>(offset)
    }

    /// The `N`-byte little-endian value at `offset` (N <= 8), zero-extended.
    #[inline(always)]
    fn read_small<const N: usize>(&self, offset: usize) -> u64 {
        const { assert!(N >= 1 && N <= 8) };
        if offset > PAGE_SIZE - N {
            return u64::from_le_bytes(pad(self.read_array::<N>(offset)));
        }
        let at = offset & !7;
        let shift = (offset - at) * 8;
        let low = self.word_at(at) >> shift;
        let value = if shift + N * 8 <= 64 {
            low
        } else {
            // Straddles two words; the second exists because offset + N <=
            // PAGE_SIZE and PAGE_SIZE is a multiple of 8.
            low | (self.word_at(at + 8) << (64 - shift))
        };
        if N == 8 {
            value
        } else {
            value & ((1u64 << (N * 8)) - 1)
        }
    }

    /// Racy copy of the whole page.
    pub fn read_page(&self, out: &mut Page) {
        self.read_bytes(0, out);
    }

    /// Racy copy of the whole page, last word first. A backward scan visits
    /// leaves in descending order, which after a load in key order is
    /// descending address order; copying each page from its end keeps the
    /// loads one descending stream the hardware prefetcher follows, where an
    /// ascending copy restarts the stream 8 KiB lower at every page
    /// (measured: an ascending-per-page walk of key-ordered leaves ran at
    /// 0.31x the forward rate, a descending copy at ~0.94x).
    pub fn read_page_descending(&self, out: &mut Page) {
        const WORD: usize = 8;
        const _: () = assert!(PAGE_SIZE.is_multiple_of(WORD));
        debug_assert!(
            self.frame.align_offset(WORD) == 0,
            "frames are page aligned"
        );
        for at in (0..PAGE_SIZE).step_by(WORD).rev() {
            // SAFETY: at + 8 <= PAGE_SIZE, so the load lies in this page's
            // frame, which is page aligned (region base + page * PAGE_SIZE),
            // so the u64 load is aligned. Racy by design: see `racy_copy`.
            let value = unsafe { ptr::read_volatile(self.frame.add(at).cast::<u64>()) };
            out[at..at + WORD].copy_from_slice(&value.to_ne_bytes());
        }
    }

    /// Ok if no writer has touched the page since the guard was taken.
    #[inline(always)]
    pub fn validate(&self) -> Result<(), Restart> {
        if state::validate(self.pool.state_word(self.page_id.0), self.start) {
            Ok(())
        } else {
            self.pool.count(Counter::OptimisticRestarts, 1);
            Err(Restart)
        }
    }

    /// Turns the optimistic read into an exclusive latch if the version is
    /// unchanged. Waits out shared holders of the same version; a writer or
    /// evictor in between means `Restart`.
    pub fn upgrade(self) -> Result<ExclusiveGuard<'a>, Restart> {
        let pool = self.pool;
        // A sealed pool takes no exclusive latch (`BufferPool::seal`).
        if pool.sealed.load(std::sync::atomic::Ordering::Relaxed) {
            return Err(Restart);
        }
        let word = pool.state_word(self.page_id.0);
        let mut backoff = crate::latch::Backoff::default();
        loop {
            let seen = state::load(word);
            if seen.version() != self.start.version() || !seen.is_readable() {
                pool.count(Counter::OptimisticRestarts, 1);
                return Err(Restart);
            }
            match seen.lock_exclusive() {
                Some(new) => {
                    pool.count(Counter::StateRmw, 1);
                    if state::try_transition(word, seen, new).is_ok() {
                        return Ok(ExclusiveGuard::new(pool, self.page_id));
                    }
                }
                None => {
                    pool.count(Counter::LatchWaits, 1);
                    backoff.snooze();
                }
            }
        }
    }
}

/// A shared latch: the page cannot change while it is held.
#[derive(Debug)]
pub struct SharedGuard<'a> {
    pool: &'a BufferPool,
    page_id: PageId,
    frame: *const u8,
}

impl<'a> SharedGuard<'a> {
    pub(crate) fn new(pool: &'a BufferPool, page_id: PageId) -> Self {
        SharedGuard {
            pool,
            page_id,
            frame: pool.frame(page_id.0),
        }
    }

    pub fn page_id(&self) -> PageId {
        self.page_id
    }
}

impl std::ops::Deref for SharedGuard<'_> {
    type Target = Page;
    #[inline(always)]
    fn deref(&self) -> &Page {
        // SAFETY: the shared latch excludes writers for the guard's lifetime,
        // and the frame lies inside the region. (Stale optimistic readers
        // only read.)
        unsafe { &*self.frame.cast::<Page>() }
    }
}

impl Drop for SharedGuard<'_> {
    fn drop(&mut self) {
        self.pool.count(Counter::StateRmw, 1);
        state::unlock_shared(self.pool.state_word(self.page_id.0));
    }
}

/// An exclusive latch. Mutable access marks the page dirty; dropping the
/// guard bumps the version (invalidating optimistic readers) and unlocks.
#[derive(Debug)]
pub struct ExclusiveGuard<'a> {
    pool: &'a BufferPool,
    page_id: PageId,
    frame: *mut u8,
    modified: bool,
}

impl<'a> ExclusiveGuard<'a> {
    pub(crate) fn new(pool: &'a BufferPool, page_id: PageId) -> Self {
        ExclusiveGuard {
            pool,
            page_id,
            frame: pool.frame(page_id.0),
            modified: false,
        }
    }

    pub fn page_id(&self) -> PageId {
        self.page_id
    }
}

impl std::ops::Deref for ExclusiveGuard<'_> {
    type Target = Page;
    #[inline(always)]
    fn deref(&self) -> &Page {
        // SAFETY: the exclusive latch makes this guard the only writer; the
        // frame lies inside the region.
        unsafe { &*self.frame.cast::<Page>() }
    }
}

impl std::ops::DerefMut for ExclusiveGuard<'_> {
    #[inline(always)]
    fn deref_mut(&mut self) -> &mut Page {
        self.modified = true;
        // SAFETY: the exclusive latch excludes every other latch holder for
        // the guard's lifetime, and `&mut self` excludes other borrows of the
        // guard. Concurrent optimistic readers use volatile loads and discard
        // what they read when validation sees the bumped version (README,
        // "racy copies").
        unsafe { &mut *self.frame.cast::<Page>() }
    }
}

impl Drop for ExclusiveGuard<'_> {
    fn drop(&mut self) {
        let word = self.pool.state_word(self.page_id.0);
        let dirty = self.modified || state::load(word).is_dirty();
        state::unlock_exclusive(word, state::UNLOCKED, dirty);
    }
}
