//! Space for the data file, reserved ahead of page allocation.
//!
//! A full disk must fail the operation that asked for space — the page
//! allocation — and never a later write-back, checkpoint, `close` or
//! recovering open (DESIGN §5). So the file is grown *when a page past its
//! end is allocated*, not when the page is first written:
//!
//! 1. `allocate` extending the high-water mark to `n` pages calls
//!    [`BufferPool::reserve_pages`]`(n)` with the meta page latched;
//! 2. if the file already holds `n` pages, nothing happens (one load);
//! 3. else it grows by an extent ([`extent_pages`]: an eighth of the file,
//!    between 1 MiB and 64 MiB) with `File::allocate` (fallocate: real
//!    blocks, so writing the pages later needs no space on ext4 or xfs), or,
//!    when that much is not free, by exactly what is needed; then fsyncs,
//!    so the new length is durable *before* the WAL record of the
//!    allocation can be. A crash therefore never leaves the WAL allocating a
//!    page that the file does not hold, and recovery writes only inside the
//!    file;
//! 4. on ENOSPC the allocation fails with `NoSpace` (bytes needed, file
//!    length) and changes nothing.
//!
//! Invariant: every page below the meta page's `page_count` lies below
//! `reserved_pages`, which is at most the file's length in pages. Write-back
//! checks it (a page beyond the file is damage or a bug, never a reason to
//! grow the file), and so does opening a database (`meta.rs`).

use crate::{BufferError, BufferPool};
use folio_page::{PAGE_SIZE, PageId};
use std::sync::atomic::Ordering::{Acquire, Release};

/// Smallest growth step: 1 MiB.
pub const MIN_EXTENT_PAGES: u64 = (1 << 20) / PAGE_SIZE as u64;
/// Largest growth step: 64 MiB.
pub const MAX_EXTENT_PAGES: u64 = (64 << 20) / PAGE_SIZE as u64;

/// Pages to grow a file of `file_pages` pages by: an eighth of it, within
/// [`MIN_EXTENT_PAGES`]..=[`MAX_EXTENT_PAGES`]. Growing geometrically keeps
/// the number of fsyncs a bulk load pays logarithmic while small, then one
/// per 64 MiB.
pub fn extent_pages(file_pages: u64) -> u64 {
    (file_pages / 8).clamp(MIN_EXTENT_PAGES, MAX_EXTENT_PAGES)
}

impl BufferPool {
    /// Pages the data file holds (reserved), as last grown or found at open.
    pub fn reserved_pages(&self) -> u64 {
        self.reserved_pages.load(Acquire)
    }

    /// Makes the data file hold at least `pages` pages, growing it by an
    /// extent (fallback: exactly `pages`) and fsyncing the new length. The
    /// caller serialises growth (it holds the meta page's exclusive latch).
    /// A failed fsync poisons the pool, as every failed data-file sync does.
    pub(crate) fn reserve_pages(&self, pages: u64) -> Result<(), BufferError> {
        let reserved = self.reserved_pages();
        if pages <= reserved {
            return Ok(());
        }
        self.check_writable()?;
        let page_bytes = PAGE_SIZE as u64;
        let wanted = (reserved + extent_pages(reserved))
            .max(pages)
            .min(self.max_pages);
        if pages > wanted {
            return Err(BufferError::OutOfRange {
                page_id: PageId(pages - 1),
                max_pages: self.max_pages,
            });
        }
        let grown = match self.file.allocate(wanted * page_bytes) {
            Ok(()) => wanted,
            Err(_) if wanted > pages => {
                // Not a whole extent free: take just what this needs.
                self.file
                    .allocate(pages * page_bytes)
                    .map_err(|source| self.no_space(reserved, pages, source))?;
                pages
            }
            Err(source) => return Err(self.no_space(reserved, pages, source)),
        };
        if let Err(source) = self.file.sync() {
            self.poisoned.store(true, Release);
            return Err(BufferError::Sync { source });
        }
        self.reserved_pages.store(grown, Release);
        Ok(())
    }

    fn no_space(&self, reserved: u64, pages: u64, source: std::io::Error) -> BufferError {
        let page_bytes = PAGE_SIZE as u64;
        BufferError::NoSpace {
            file: self.file.location(),
            len_bytes: reserved * page_bytes,
            needed_bytes: (pages - reserved) * page_bytes,
            source,
        }
    }

    /// Checks that `page_id` lies inside the data file before it is
    /// written back (the invariant above).
    pub(crate) fn check_reserved(&self, page_id: PageId) -> Result<(), BufferError> {
        let reserved = self.reserved_pages();
        if page_id.0 >= reserved {
            return Err(BufferError::BeyondFile {
                file: self.file.location(),
                page_id,
                len_bytes: reserved * PAGE_SIZE as u64,
            });
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Proves the extent rule: 1 MiB while small, an eighth of the file in
    // between, never more than 64 MiB.
    #[test]
    fn extents_grow_geometrically_within_bounds() {
        assert_eq!(extent_pages(0), MIN_EXTENT_PAGES);
        assert_eq!(extent_pages(8 * MIN_EXTENT_PAGES), MIN_EXTENT_PAGES);
        assert_eq!(extent_pages(16 * MIN_EXTENT_PAGES), 2 * MIN_EXTENT_PAGES);
        assert_eq!(extent_pages(u64::MAX / 2), MAX_EXTENT_PAGES);
    }
}
