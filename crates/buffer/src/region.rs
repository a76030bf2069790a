//! Anonymous virtual memory: the frame region (page `p` at `base + p *
//! PAGE_SIZE`) and the state-word array. Both are reserved with
//! `MAP_NORESERVE` and are zero until first touched, so reserving a 64 GiB
//! database costs address space, not memory.

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
// through the latch protocol (frames) or atomics (state words).
unsafe impl Send for Region {}
// SAFETY: as above.
unsafe impl Sync for Region {}

impl Region {
    /// Reserves `len_bytes` (> 0) of zeroed, lazily backed memory.
    pub(crate) fn reserve(len_bytes: usize) -> io::Result<Region> {
        assert!(len_bytes > 0);
        // SAFETY: a fresh anonymous mapping at an address the kernel chooses
        // aliases no existing Rust object.
        let base = unsafe {
            rustix::mm::mmap_anonymous(
                std::ptr::null_mut(),
                len_bytes,
                ProtFlags::READ | ProtFlags::WRITE,
                MapFlags::PRIVATE | MapFlags::NORESERVE,
            )
        }?;
        let base = NonNull::new(base.cast::<u8>())
            .ok_or_else(|| io::Error::other("mmap returned null"))?;
        Ok(Region { base, len_bytes })
    }

    #[inline(always)]
    pub(crate) fn base(&self) -> *mut u8 {
        self.base.as_ptr()
    }

    /// Releases the physical memory behind `[offset, offset + len)`; later
    /// reads of it see zeros (`MADV_DONTNEED` on a private anonymous mapping).
    /// The caller holds the exclusive latch of every page in the range;
    /// concurrent optimistic readers may read zeros, which their validation
    /// rejects.
    pub(crate) fn discard(&self, offset_bytes: usize, len_bytes: usize) {
        assert!(
            offset_bytes
                .checked_add(len_bytes)
                .is_some_and(|end| end <= self.len_bytes)
        );
        // SAFETY: the range lies inside this mapping (asserted) and is
        // page-aligned (frames are PAGE_SIZE multiples); DONTNEED on private
        // anonymous memory only zero-fills it, which the latch holder allows.
        let result = unsafe {
            rustix::mm::madvise(
                self.base().add(offset_bytes).cast::<c_void>(),
                len_bytes,
                Advice::LinuxDontNeed,
            )
        };
        // madvise(DONTNEED) on a valid, aligned, mapped range cannot fail; if
        // it did, the frame would keep its old bytes, which is still safe.
        debug_assert!(result.is_ok(), "madvise: {result:?}");
    }
}

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
