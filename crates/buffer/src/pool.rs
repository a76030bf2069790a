//! Public API of the buffer pool. (folio-buffer helper: implement; split into
//! files by concept: state word, virtual region, resident set, eviction, free
//! list, guards, counters.)

use crate::{BufferError, Restart};
use folio_io::File;
use folio_page::{Lsn, Page, PageId};
use std::sync::Arc;

/// Called before a dirty page is written so the WAL is durable up to the
/// page's LSN (the WAL rule). The buffer crate does not depend on the WAL.
pub trait WalFlusher: Send + Sync + std::fmt::Debug {
    fn flush_to(&self, lsn: Lsn) -> Result<(), Box<dyn std::error::Error + Send + Sync>>;
}

/// Configuration of a pool.
#[derive(Debug, Clone)]
pub struct PoolConfig {
    /// Physical memory for cached pages; eviction keeps usage below it.
    pub pool_size_bytes: u64,
    /// Size of the reserved virtual region: the largest database this pool can address.
    pub max_database_bytes: u64,
    /// Whether pages carry checksums. Used when creating a database; an
    /// existing database keeps the choice recorded in its meta page.
    pub checksums: bool,
    /// Pages evicted per eviction round.
    pub eviction_batch_pages: usize,
}

impl Default for PoolConfig {
    fn default() -> Self {
        PoolConfig {
            pool_size_bytes: 64 << 20,
            max_database_bytes: 64 << 30,
            checksums: true,
            eviction_batch_pages: 64,
        }
    }
}

/// Counters, summed over threads.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PoolStats {
    pub hits: u64,
    pub misses: u64,
    pub writes: u64,
    pub evictions: u64,
    pub optimistic_restarts: u64,
    pub latch_waits: u64,
    /// Atomic read-modify-write operations (CAS, fetch_add, swap) on page state words.
    pub state_rmw: u64,
}

/// The buffer pool of one database file.
#[derive(Debug)]
pub struct BufferPool {
    _private: (),
}

impl BufferPool {
    /// Creates a new database in the empty `file`.
    pub fn create(file: Arc<dyn File>, config: PoolConfig) -> Result<Arc<BufferPool>, BufferError> {
        let _ = (file, config);
        todo!("folio-buffer helper")
    }
    /// Opens the database in `file`.
    pub fn open(file: Arc<dyn File>, config: PoolConfig) -> Result<Arc<BufferPool>, BufferError> {
        let _ = (file, config);
        todo!("folio-buffer helper")
    }
    /// Installs the WAL flusher consulted before dirty pages are written.
    pub fn set_wal_flusher(&self, flusher: Arc<dyn WalFlusher>) {
        let _ = flusher;
        todo!("folio-buffer helper")
    }
    /// Whether this database has checksums on.
    pub fn checksums(&self) -> bool {
        todo!("folio-buffer helper")
    }
    /// Starts an optimistic read; faults the page in on a miss and waits out an
    /// exclusive holder. Writes no shared memory when the page is cached.
    pub fn optimistic(&self, page_id: PageId) -> Result<OptimisticGuard<'_>, BufferError> {
        let _ = page_id;
        todo!("folio-buffer helper")
    }
    /// Takes a shared latch.
    pub fn shared(&self, page_id: PageId) -> Result<SharedGuard<'_>, BufferError> {
        let _ = page_id;
        todo!("folio-buffer helper")
    }
    /// Takes an exclusive latch.
    pub fn exclusive(&self, page_id: PageId) -> Result<ExclusiveGuard<'_>, BufferError> {
        let _ = page_id;
        todo!("folio-buffer helper")
    }
    /// Allocates a page (from the free list, else by extending the file),
    /// zeroed and exclusively latched.
    pub fn allocate(&self) -> Result<ExclusiveGuard<'_>, BufferError> {
        todo!("folio-buffer helper")
    }
    /// Returns a page to the persistent free list.
    pub fn free(&self, guard: ExclusiveGuard<'_>) -> Result<(), BufferError> {
        let _ = guard;
        todo!("folio-buffer helper")
    }
    /// A root pointer stored in the meta page for upper layers (slot < 8).
    pub fn meta_root(&self, slot: usize) -> Result<Option<PageId>, BufferError> {
        let _ = slot;
        todo!("folio-buffer helper")
    }
    /// Sets a root pointer in the meta page.
    pub fn set_meta_root(&self, slot: usize, page_id: Option<PageId>) -> Result<(), BufferError> {
        let _ = (slot, page_id);
        todo!("folio-buffer helper")
    }
    /// Writes every dirty page and syncs the file.
    pub fn flush_all(&self) -> Result<(), BufferError> {
        todo!("folio-buffer helper")
    }
    /// Current counters.
    pub fn stats(&self) -> PoolStats {
        todo!("folio-buffer helper")
    }
}

/// An optimistic read of one page: remembers the version it saw. Reads are
/// racy copies (volatile) that must be validated before they are trusted.
#[derive(Debug)]
pub struct OptimisticGuard<'a> {
    _pool: &'a BufferPool,
}

impl<'a> OptimisticGuard<'a> {
    pub fn page_id(&self) -> PageId {
        todo!("folio-buffer helper")
    }
    /// Racy copy of `out.len()` bytes at `offset`; bytes outside the page read as zero.
    pub fn read_bytes(&self, offset: usize, out: &mut [u8]) {
        let _ = (offset, out);
        todo!("folio-buffer helper")
    }
    /// Racy little-endian loads; out-of-page offsets read as zero.
    pub fn read_u16(&self, offset: usize) -> u16 {
        let _ = offset;
        todo!("folio-buffer helper")
    }
    pub fn read_u32(&self, offset: usize) -> u32 {
        let _ = offset;
        todo!("folio-buffer helper")
    }
    pub fn read_u64(&self, offset: usize) -> u64 {
        let _ = offset;
        todo!("folio-buffer helper")
    }
    /// Ok if no writer has touched the page since the guard was taken.
    pub fn validate(&self) -> Result<(), Restart> {
        todo!("folio-buffer helper")
    }
    /// Turns the optimistic read into an exclusive latch if the version is unchanged.
    pub fn upgrade(self) -> Result<ExclusiveGuard<'a>, Restart> {
        todo!("folio-buffer helper")
    }
}

/// A shared latch: the page cannot change while it is held.
#[derive(Debug)]
pub struct SharedGuard<'a> {
    _pool: &'a BufferPool,
}

impl std::ops::Deref for SharedGuard<'_> {
    type Target = Page;
    fn deref(&self) -> &Page {
        todo!("folio-buffer helper")
    }
}

/// An exclusive latch. Mutable access marks the page dirty; dropping the
/// guard bumps the version (invalidating optimistic readers) and unlocks.
#[derive(Debug)]
pub struct ExclusiveGuard<'a> {
    _pool: &'a BufferPool,
}

impl ExclusiveGuard<'_> {
    pub fn page_id(&self) -> PageId {
        todo!("folio-buffer helper")
    }
}

impl std::ops::Deref for ExclusiveGuard<'_> {
    type Target = Page;
    fn deref(&self) -> &Page {
        todo!("folio-buffer helper")
    }
}

impl std::ops::DerefMut for ExclusiveGuard<'_> {
    fn deref_mut(&mut self) -> &mut Page {
        todo!("folio-buffer helper")
    }
}
