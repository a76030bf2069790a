//! Anonymous virtual memory: the frame region (page `p` at `base + p *
//! PAGE_SIZE`) and the state-word array. Both are reserved with
//! `MAP_NORESERVE` and are zero until first touched, so reserving a 64 GiB
//! database costs address space, not memory.

use std::ffi::c_void;
use std::io;
use std::ptr::NonNull;

use rustix::fd::{AsRawFd, OwnedFd};
use rustix::mm::{Advice, MapFlags, ProtFlags};
use rustix::process::PidfdFlags;

/// One private anonymous mapping, unmapped on drop.
pub(crate) struct Region {
    base: NonNull<u8>,
    len_bytes: usize,
    /// A pidfd of this process for `process_madvise`, when the kernel has it.
    self_pidfd: Option<OwnedFd>,
}

// SAFETY: the region is plain memory; all concurrent access to it goes
// through the latch protocol (frames) or atomics (state words).
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
        let self_pidfd =
            rustix::process::pidfd_open(rustix::process::getpid(), PidfdFlags::empty()).ok();
        Ok(Region {
            base,
            len_bytes,
            self_pidfd,
        })
    }

    /// Asks the kernel to back `[0, len_bytes)` with transparent huge pages
    /// (`MADV_HUGEPAGE`; `on = false`: `MADV_NOHUGEPAGE`, which stops new
    /// huge pages there but does not split existing ones). `len_bytes` is
    /// rounded down to whole huge pages; returns the bytes advised (0 when
    /// the kernel has no transparent huge pages).
    pub(crate) fn advise_huge(&self, len_bytes: usize, on: bool) -> usize {
        let len = len_bytes.min(self.len_bytes) / HUGE_PAGE * HUGE_PAGE;
        if len == 0 {
            return 0;
        }
        let advice = if on {
            Advice::LinuxHugepage
        } else {
            Advice::LinuxNoHugepage
        };
        // SAFETY: the range lies inside this mapping and is huge-page
        // aligned; the advice changes how memory is backed, never its
        // contents.
        let result = unsafe { rustix::mm::madvise(self.base().cast::<c_void>(), len, advice) };
        if result.is_ok() { len } else { 0 }
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

impl Region {
    /// Releases the physical memory of `len_bytes` at each of `offsets` (as
    /// [`Region::discard`], same caller obligations) with one
    /// `process_madvise(2)` call: the kernel then flushes the other CPUs'
    /// TLBs once for the whole batch instead of once per page (Linux 6.16+
    /// batches `MADV_DONTNEED` flushes for vectors). Each of those flushes is
    /// an inter-processor interrupt, which made every eviction cost a
    /// shootdown as soon as two threads ran. Falls back to one `madvise` per
    /// range where the call is unavailable.
    pub(crate) fn discard_many(&self, offsets: &[usize], len_bytes: usize) {
        for &offset in offsets {
            assert!(
                offset
                    .checked_add(len_bytes)
                    .is_some_and(|end| end <= self.len_bytes)
            );
        }
        if let Some(pidfd) = &self.self_pidfd {
            let mut done = 0;
            while done < offsets.len() {
                let chunk = &offsets[done..offsets.len().min(done + IOV_BATCH)];
                let iovecs: Vec<libc::iovec> = chunk
                    .iter()
                    .map(|&offset| libc::iovec {
                        // SAFETY: in bounds (asserted above).
                        iov_base: unsafe { self.base().add(offset) }.cast::<c_void>(),
                        iov_len: len_bytes,
                    })
                    .collect();
                // SAFETY: every range lies inside this mapping (asserted) and
                // is page aligned; DONTNEED only zero-fills private anonymous
                // memory, which the latch holders allow (see `discard`). The
                // iovec array outlives the call.
                let result = unsafe {
                    libc::syscall(
                        libc::SYS_process_madvise,
                        pidfd.as_raw_fd(),
                        iovecs.as_ptr(),
                        iovecs.len(),
                        libc::MADV_DONTNEED,
                        0,
                    )
                };
                let whole = (chunk.len() * len_bytes) as libc::c_long;
                if result != whole {
                    // Unsupported (or partial): finish this chunk range by range.
                    for &offset in chunk {
                        self.discard(offset, len_bytes);
                    }
                }
                done += chunk.len();
            }
        } else {
            for &offset in offsets {
                self.discard(offset, len_bytes);
            }
        }
    }
}

/// The x86-64 (and common aarch64) transparent huge page size.
pub(crate) const HUGE_PAGE: usize = 2 << 20;
/// The smallest page size Linux maps (mmap lengths are rounded to it).
const OS_PAGE: usize = 4096;

/// Ranges per `process_madvise` call (the kernel's UIO_MAXIOV is 1024).
const IOV_BATCH: usize = 512;

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
