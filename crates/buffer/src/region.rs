//! Anonymous virtual memory: the frames (frame `f` at `base + f *
//! PAGE_SIZE`) and the page slots (state word and frame number per page).
//! Both are reserved with `MAP_NORESERVE` and are zero until first touched,
//! so slots for a 64 GiB database cost address space, not memory.

use std::ffi::c_void;
use std::io;
use std::ptr::NonNull;

use rustix::mm::{Advice, MapFlags, ProtFlags};

/// One private anonymous mapping, unmapped on drop.
pub(crate) struct Region {
    base: NonNull<u8>,
    len_bytes: usize,
}

// SAFETY: the region is plain memory; all concurrent access to it goes
// through the latch protocol (frames) or atomics (slots).
unsafe impl Send for Region {}
// SAFETY: as above.
unsafe impl Sync for Region {}

impl Region {
    /// Reserves `len_bytes` (> 0) of zeroed, lazily backed memory, starting
    /// on a [`HUGE_PAGE`] boundary (so a prefix of it can be backed by
    /// transparent huge pages: [`Region::advise_huge`]).
    pub(crate) fn reserve(len_bytes: usize) -> io::Result<Region> {
        assert!(len_bytes > 0);
        let len_bytes = len_bytes
            .checked_next_multiple_of(OS_PAGE)
            .ok_or_else(|| io::Error::other("region too large"))?;
        let padded = len_bytes
            .checked_add(HUGE_PAGE)
            .ok_or_else(|| io::Error::other("region too large"))?;
        // SAFETY: a fresh anonymous mapping at an address the kernel chooses
        // aliases no existing Rust object.
        let raw = unsafe {
            rustix::mm::mmap_anonymous(
                std::ptr::null_mut(),
                padded,
                ProtFlags::READ | ProtFlags::WRITE,
                MapFlags::PRIVATE | MapFlags::NORESERVE,
            )
        }?
        .cast::<u8>();
        // Unmap the padding around a huge-page-aligned start. mmap returns
        // page-aligned memory and every length here is a page multiple, so
        // both trimmed ranges are whole pages.
        let head = raw.align_offset(HUGE_PAGE);
        let tail = padded - head - len_bytes;
        // SAFETY: both ranges lie inside the fresh mapping, outside the part
        // kept, and nothing refers to them.
        unsafe {
            if head > 0 {
                rustix::mm::munmap(raw.cast::<c_void>(), head)?;
            }
            if tail > 0 {
                rustix::mm::munmap(raw.add(head + len_bytes).cast::<c_void>(), tail)?;
            }
        }
        // SAFETY: head < padded, so the pointer stays inside the mapping.
        let base = NonNull::new(unsafe { raw.add(head) })
            .ok_or_else(|| io::Error::other("mmap returned null"))?;
        Ok(Region { base, len_bytes })
    }

    /// Asks the kernel to back `[0, len_bytes)` with transparent huge pages
    /// (`MADV_HUGEPAGE`). `len_bytes` is rounded down to whole huge pages;
    /// returns the bytes advised (0 when the kernel has no transparent huge
    /// pages).
    pub(crate) fn advise_huge(&self, len_bytes: usize) -> usize {
        let len = len_bytes.min(self.len_bytes) / HUGE_PAGE * HUGE_PAGE;
        if len == 0 {
            return 0;
        }
        // SAFETY: the range lies inside this mapping and is huge-page
        // aligned; the advice changes how memory is backed, never its
        // contents.
        let result = unsafe {
            rustix::mm::madvise(self.base().cast::<c_void>(), len, Advice::LinuxHugepage)
        };
        if result.is_ok() { len } else { 0 }
    }

    #[inline(always)]
    pub(crate) fn base(&self) -> *mut u8 {
        self.base.as_ptr()
    }
}

/// The x86-64 (and common aarch64) transparent huge page size.
pub(crate) const HUGE_PAGE: usize = 2 << 20;
/// The smallest page size Linux maps (mmap lengths are rounded to it).
const OS_PAGE: usize = 4096;

impl Drop for Region {
    fn drop(&mut self) {
        // SAFETY: base/len describe exactly the mapping created in `reserve`,
        // and no reference into it outlives the pool that owns the region.
        let result = unsafe { rustix::mm::munmap(self.base().cast::<c_void>(), self.len_bytes) };
        debug_assert!(result.is_ok(), "munmap: {result:?}");
    }
}

impl std::fmt::Debug for Region {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Region({:p}, {} bytes)", self.base, self.len_bytes)
    }
}
