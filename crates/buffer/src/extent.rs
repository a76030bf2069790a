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
//! With the extender thread ([`BufferPool::start_extender`], started by
//! folio-db with its other background threads) step 3 usually happens
//! ahead: when allocation passes the middle of the last extent, the thread
//! grows the file by the next one, so the allocating thread does not pay
//! the fsync. Growth is serialised by the `growth` mutex, not by the meta
//! latch, so allocations go on while the thread syncs.
//!
//! Invariant: every page below the meta page's `page_count` lies below
//! `reserved_pages`, which is at most the file's length in pages. Write-back
//! checks it (a page beyond the file is damage or a bug, never a reason to
//! grow the file), and so does opening a database (`meta.rs`).

use crate::counters::Counter;
use crate::{BufferError, BufferPool};
use folio_page::{PAGE_SIZE, PageId};
use std::sync::Arc;
use std::sync::atomic::Ordering::{Acquire, Relaxed, Release};
use std::thread::JoinHandle;

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
    /// caller serialises allocation (it holds the meta page's exclusive
    /// latch); growth itself is serialised with the extender by `growth`.
    /// A failed fsync poisons the pool, as every failed data-file sync does.
    pub(crate) fn reserve_pages(&self, pages: u64) -> Result<(), BufferError> {
        let reserved = self.reserved_pages();
        if pages <= reserved {
            self.ask_extender(pages, reserved);
            return Ok(());
        }
        let _growth = self.growth.lock().unwrap_or_else(|p| p.into_inner());
        // The extender may have grown the file while this waited.
        let reserved = self.reserved_pages();
        if pages <= reserved {
            return Ok(());
        }
        self.check_writable()?;
        let wanted = (reserved + extent_pages(reserved))
            .max(pages)
            .min(self.max_pages);
        if pages > wanted {
            return Err(BufferError::OutOfRange {
                page_id: PageId(pages - 1),
                max_pages: self.max_pages,
            });
        }
        match self.grow_to(wanted) {
            Err(Growth::NoSpace(_)) if wanted > pages => {
                // Not a whole extent free: take just what this needs.
                self.grow_to(pages)
            }
            other => other,
        }
        .map_err(|failure| match failure {
            Growth::NoSpace(source) => self.no_space(reserved, pages, source),
            Growth::Sync(error) => error,
        })
    }

    /// Allocates the file to `pages` pages and fsyncs the new length, then
    /// publishes it. The caller holds `growth`.
    fn grow_to(&self, pages: u64) -> Result<(), Growth> {
        self.file
            .allocate(pages * PAGE_SIZE as u64)
            .map_err(Growth::NoSpace)?;
        if let Err(source) = self.file.sync() {
            self.poisoned.store(true, Release);
            return Err(Growth::Sync(BufferError::Sync { source }));
        }
        self.reserved_pages.store(pages, Release);
        Ok(())
    }

    /// With the extender running, asks it to grow the file when
    /// allocation (at `pages`) passes the middle of the last extent, so
    /// the next extent is there before an allocation needs it. Pages are
    /// allocated one at a time, so this posts once per extent.
    fn ask_extender(&self, pages: u64, reserved: u64) {
        if self.extender_running.load(Relaxed) && reserved - pages == extent_pages(reserved) / 2 {
            self.extend_requests.post(reserved);
        }
    }

    /// Starts the extender: a thread that grows the data file by an extent
    /// when allocation passes the middle of the last one, so that an
    /// allocation rarely pays the fallocate and fsync (~17 ms each during
    /// `pgbench -i -s 10`, 27 of them in the inserting thread). Nothing
    /// waits for it: an allocation past the file grows it as before (after
    /// the extender's growth under way, if any, by `growth`), and a failed
    /// growth here is left to the allocation that needs the space, which
    /// reports it. Stopped (and joined) when the returned handle drops.
    pub fn start_extender(self: &Arc<Self>) -> std::io::Result<Extender> {
        let pool = self.clone();
        self.extender_running.store(true, Relaxed);
        let thread = std::thread::Builder::new()
            .name("folio-extender".into())
            .spawn(move || {
                while let Some(seen) = pool.extend_requests.take() {
                    pool.extend_ahead(seen);
                }
            });
        match thread {
            Ok(thread) => Ok(Extender {
                pool: self.clone(),
                thread: Some(thread),
            }),
            Err(error) => {
                self.extender_running.store(false, Relaxed);
                Err(error)
            }
        }
    }

    /// The extender's step: grows the file by one extent past `seen`
    /// unless it grew since (best effort; never past `max_pages`).
    fn extend_ahead(&self, seen: u64) {
        let _growth = self.growth.lock().unwrap_or_else(|p| p.into_inner());
        let reserved = self.reserved_pages();
        if reserved > seen || self.check_writable().is_err() {
            return;
        }
        let wanted = (reserved + extent_pages(reserved)).min(self.max_pages);
        if wanted > reserved && self.grow_to(wanted).is_ok() {
            self.count(Counter::ExtendedAhead, 1);
        }
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

/// Why growing the file failed.
enum Growth {
    /// `allocate` failed (no space, or another I/O error before the sync).
    NoSpace(std::io::Error),
    /// The fsync failed: the pool is poisoned.
    Sync(BufferError),
}

/// The extender thread's handle ([`BufferPool::start_extender`]).
#[derive(Debug)]
pub struct Extender {
    pool: Arc<BufferPool>,
    thread: Option<JoinHandle<()>>,
}

impl Drop for Extender {
    fn drop(&mut self) {
        self.pool.extender_running.store(false, Relaxed);
        self.pool.extend_requests.close();
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
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
