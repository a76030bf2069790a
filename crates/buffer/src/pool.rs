//! The buffer pool: configuration, the frame and state regions, latch
//! acquisition and fault-in. Eviction and write-back are in `eviction.rs`,
//! the meta page and free list in `meta.rs`, the guards in `guards.rs`.

use crate::counters::{Counter, CounterRegistry};
use crate::guards::{ExclusiveGuard, OptimisticGuard, SharedGuard};
use crate::region::Region;
use crate::resident::ResidentSet;
use crate::state::{self, EVICTED, EXCLUSIVE, UNLOCKED, Word};
use crate::{BufferError, meta};
use folio_io::File;
use folio_page::{Lsn, PAGE_SIZE, Page, PageId};
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, RwLock};

use crate::meta_log::MetaLogger;

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
    /// Back the frames of the first `pool_size_bytes` of the database with
    /// transparent huge pages while the database fits in the pool (fewer
    /// TLB misses on cached workloads); huge pages are given up at the first
    /// eviction or the first page beyond that prefix (README "Huge pages").
    pub huge_pages: bool,
}

impl Default for PoolConfig {
    fn default() -> Self {
        PoolConfig {
            pool_size_bytes: 64 << 20,
            max_database_bytes: 64 << 30,
            checksums: true,
            eviction_batch_pages: 64,
            huge_pages: true,
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
    /// Pages written ahead of the clock by `clean_ahead` (also in `writes`).
    pub cleaned: u64,
}

/// Smallest pool: room for a B+tree descent's latched pages plus an eviction batch.
pub const MIN_POOL_PAGES: u64 = 8;

/// Pages whose state words share one 64-byte cache line: pages
/// `8k..8k + 8`. Threads that latch pages of one line contend for it even
/// when the pages differ (false sharing); work split across threads by
/// page (recovery's apply partitions) keeps such pages together.
pub const PAGES_PER_STATE_LINE: u64 = 64 / std::mem::size_of::<AtomicU64>() as u64;

/// The buffer pool of one database file.
pub struct BufferPool {
    pub(crate) file: Arc<dyn File>,
    /// Page `p`'s frame is `frames.base() + p * PAGE_SIZE`.
    pub(crate) frames: Region,
    /// Page `p`'s state word is the `p`-th `AtomicU64` of this region.
    states: Region,
    pub(crate) max_pages: u64,
    /// Frames the pool may occupy (`pool_size_bytes / PAGE_SIZE`).
    pub(crate) pool_pages: u64,
    /// Frames reserved by resident or incoming pages; never above `pool_pages`.
    pub(crate) used_pages: AtomicU64,
    pub(crate) resident: ResidentSet,
    pub(crate) clock_hand: AtomicU64,
    /// Set by the first fault that found every frame taken (`is_evicting`).
    pub(crate) evicting: AtomicBool,
    /// Eviction rounds running now, and the most allowed at once.
    pub(crate) evictors: AtomicU32,
    pub(crate) max_evictors: u32,
    pub(crate) batch_pages: usize,
    pub(crate) checksums: bool,
    /// Pages whose frames were advised to use huge pages (0: none).
    huge_prefix_pages: u64,
    /// Whether the pool is still in its huge-page phase.
    huge_active: AtomicBool,
    /// Pages the data file holds, grown ahead of allocation (`extent.rs`).
    pub(crate) reserved_pages: AtomicU64,
    /// Set when a sync failed: no further writes (DESIGN §5).
    pub(crate) poisoned: AtomicBool,
    pub(crate) wal: RwLock<Option<Arc<dyn WalFlusher>>>,
    /// Logs allocation-state changes (`meta_log.rs`); `None` = unlogged.
    meta_logger: RwLock<Option<Arc<dyn MetaLogger>>>,
    pub(crate) counters: CounterRegistry,
}

impl std::fmt::Debug for BufferPool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BufferPool")
            .field("file", &self.file)
            .field("max_pages", &self.max_pages)
            .field("pool_pages", &self.pool_pages)
            .field("used_pages", &self.used_pages.load(Relaxed))
            .field("checksums", &self.checksums)
            .field("poisoned", &self.poisoned.load(Relaxed))
            .finish_non_exhaustive()
    }
}

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
    /// Creates a new database in the empty `file`.
    pub fn create(file: Arc<dyn File>, config: PoolConfig) -> Result<Arc<BufferPool>, BufferError> {
        let len_bytes = file.len().map_err(|source| BufferError::Io {
            page_id: PageId(0),
            source,
        })?;
        if len_bytes != 0 {
            return Err(BufferError::FileNotEmpty { len_bytes });
        }
        let pool = Arc::new(BufferPool::new(file, &config, config.checksums)?);
        pool.reserve_pages(1)?;
        meta::initialise(&pool)?;
        pool.flush_all()?;
        Ok(pool)
    }

    /// Opens the database in `file`.
    pub fn open(file: Arc<dyn File>, config: PoolConfig) -> Result<Arc<BufferPool>, BufferError> {
        let checksums = meta::validate_file(file.as_ref())?;
        Ok(Arc::new(BufferPool::new(file, &config, checksums)?))
    }

    /// Opens the database in `file` for crash recovery: page 0 is not read
    /// (it may be torn; its first change after the redo point carries a
    /// full-page image that recovery restores), so the checksum setting
    /// comes from the caller (the control file). Call
    /// [`BufferPool::verify_meta`] once recovery is done.
    pub fn open_for_recovery(
        file: Arc<dyn File>,
        config: PoolConfig,
        checksums: bool,
    ) -> Result<Arc<BufferPool>, BufferError> {
        meta::check_file_before_recovery(file.as_ref(), checksums)?;
        Ok(Arc::new(BufferPool::new(file, &config, checksums)?))
    }

    /// Checks the meta page through the pool (checksum, magic, version,
    /// page size, and that its checksum flag matches this pool's).
    pub fn verify_meta(&self) -> Result<(), BufferError> {
        meta::verify_resident(self)
    }

    fn new(
        file: Arc<dyn File>,
        config: &PoolConfig,
        checksums: bool,
    ) -> Result<BufferPool, BufferError> {
        let page_bytes = PAGE_SIZE as u64;
        let max_pages = config.max_database_bytes / page_bytes;
        let pool_pages = config.pool_size_bytes / page_bytes;
        if pool_pages < MIN_POOL_PAGES {
            return Err(BufferError::Config {
                reason: format!("pool_size_bytes must hold at least {MIN_POOL_PAGES} pages"),
            });
        }
        if max_pages < 2 || usize::try_from(config.max_database_bytes).is_err() {
            return Err(BufferError::Config {
                reason: "max_database_bytes must hold at least 2 pages and fit the address space"
                    .into(),
            });
        }
        let region_error = |source| BufferError::Config {
            reason: format!("cannot reserve the virtual region: {source}"),
        };
        let frames = Region::reserve((max_pages * page_bytes) as usize).map_err(region_error)?;
        let states =
            Region::reserve(max_pages as usize * size_of::<AtomicU64>()).map_err(region_error)?;
        let huge_prefix_pages = if config.huge_pages {
            frames.advise_huge((pool_pages.min(max_pages) * page_bytes) as usize, true) as u64
                / page_bytes
        } else {
            0
        };
        let file_bytes = file.len().map_err(|source| BufferError::Io {
            page_id: PageId(0),
            source,
        })?;
        Ok(BufferPool {
            reserved_pages: AtomicU64::new(file_bytes / page_bytes),
            file,
            frames,
            states,
            max_pages,
            pool_pages,
            used_pages: AtomicU64::new(0),
            resident: ResidentSet::new(pool_pages),
            clock_hand: AtomicU64::new(0),
            evicting: AtomicBool::new(false),
            evictors: AtomicU32::new(0),
            max_evictors: std::thread::available_parallelism()
                .map_or(1, |n| n.get())
                .min(64) as u32,
            batch_pages: config
                .eviction_batch_pages
                .clamp(1, pool_pages as usize / 2),
            checksums,
            huge_prefix_pages,
            huge_active: AtomicBool::new(huge_prefix_pages > 0),
            poisoned: AtomicBool::new(false),
            wal: RwLock::new(None),
            meta_logger: RwLock::new(None),
            counters: CounterRegistry::new(),
        })
    }

    /// Installs the WAL flusher consulted before dirty pages are written.
    pub fn set_wal_flusher(&self, flusher: Arc<dyn WalFlusher>) {
        *self.wal.write().unwrap_or_else(|e| e.into_inner()) = Some(flusher);
    }

    /// Installs (or, with `None`, removes) the logger of allocation-state
    /// changes: from then on `allocate`, `free` and `set_meta_root` are
    /// WAL-logged (see `meta_log.rs`).
    pub fn set_meta_logger(&self, logger: Option<Arc<dyn MetaLogger>>) {
        *self.meta_logger.write().unwrap_or_else(|e| e.into_inner()) = logger;
    }

    pub(crate) fn meta_logger(&self) -> Option<Arc<dyn MetaLogger>> {
        self.meta_logger
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

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

    /// Whether this database has checksums on.
    pub fn checksums(&self) -> bool {
        self.checksums
    }

    /// Frames this pool may occupy.
    pub fn pool_pages(&self) -> u64 {
        self.pool_pages
    }

    /// Gives up the pool's dirty pages: nothing is written from now on, not
    /// even when the pool is dropped (it refuses writes as a poisoned pool
    /// does). For a recovering open that is refused after replay began: a
    /// refused open must change nothing on disk, and replay's changes come
    /// from durable WAL, which the next open replays again.
    pub fn abandon(&self) {
        self.poisoned.store(true, Relaxed);
    }

    /// Whether a failed sync has poisoned the pool (no further writes).
    pub fn is_poisoned(&self) -> bool {
        self.poisoned.load(Relaxed)
    }

    /// Starts an optimistic read; faults the page in on a miss and waits out an
    /// exclusive holder. Writes no shared memory when the page is cached.
    #[inline]
    pub fn optimistic(&self, page_id: PageId) -> Result<OptimisticGuard<'_>, BufferError> {
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
                        self.count_hit(faulted);
                        return Ok(OptimisticGuard::new(self, page_id, start));
                    }
                }
                _ => {
                    self.count_hit(faulted);
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

    /// Allocates a page (from the free list, else by extending the file),
    /// zeroed and exclusively latched.
    pub fn allocate(&self) -> Result<ExclusiveGuard<'_>, BufferError> {
        meta::allocate(self)
    }

    /// Returns a page to the persistent free list.
    pub fn free(&self, guard: ExclusiveGuard<'_>) -> Result<(), BufferError> {
        meta::free(self, guard)
    }

    /// A root pointer stored in the meta page for upper layers (slot < 8).
    pub fn meta_root(&self, slot: usize) -> Result<Option<PageId>, BufferError> {
        meta::root(self, slot)
    }

    /// Sets a root pointer in the meta page.
    pub fn set_meta_root(&self, slot: usize, page_id: Option<PageId>) -> Result<(), BufferError> {
        meta::set_root(self, slot, page_id)
    }

    /// Pages in the database (the high-water mark recorded in the meta page).
    pub fn page_count(&self) -> Result<u64, BufferError> {
        meta::page_count(self)
    }

    /// Pages on the persistent free list (from the meta page).
    pub fn free_page_count(&self) -> Result<u64, BufferError> {
        meta::free_count(self)
    }

    /// Writes every dirty page and syncs the file. Do not call it while
    /// holding an exclusive latch: it waits for writers to leave each dirty
    /// page so it can copy a consistent image.
    pub fn flush_all(&self) -> Result<(), BufferError> {
        self.write_back_all()
    }

    /// Current counters.
    pub fn stats(&self) -> PoolStats {
        self.counters.sum()
    }

    /// Checks the pool's structural invariants; call it when no other thread
    /// is using the pool. Returns a description of the first violation.
    pub fn check_invariants(&self) -> Result<(), String> {
        let used = self.used_pages.load(Relaxed);
        if used > self.pool_pages {
            return Err(format!("{used} frames used, pool has {}", self.pool_pages));
        }
        let resident = self.resident.count();
        if resident != used {
            return Err(format!(
                "{resident} resident pages but {used} frames reserved"
            ));
        }
        for index in 0..self.resident.capacity() {
            let Some(page) = self.resident.get(index) else {
                continue;
            };
            let seen = state::load(self.state_word(page));
            if !matches!(seen.state(), UNLOCKED | state::MARKED) {
                return Err(format!(
                    "resident page {page} is in latch state {}",
                    seen.state()
                ));
            }
        }
        Ok(())
    }

    // ---- internals -------------------------------------------------------

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

    /// The state word of page `page` (< max_pages).
    #[inline(always)]
    pub(crate) fn state_word(&self, page: u64) -> &AtomicU64 {
        assert!(page < self.max_pages);
        // SAFETY: the states region holds `max_pages` zero-initialised
        // AtomicU64s (all-zero is a valid AtomicU64), suitably aligned (mmap
        // is page-aligned), living as long as `self`.
        unsafe { &*self.states.base().cast::<AtomicU64>().add(page as usize) }
    }

    /// The frame of page `page` (< max_pages).
    #[inline(always)]
    pub(crate) fn frame(&self, page: u64) -> *mut u8 {
        debug_assert!(page < self.max_pages);
        // SAFETY: page < max_pages, so the offset lies inside the frames
        // region of max_pages * PAGE_SIZE bytes.
        unsafe { self.frames.base().add(page as usize * PAGE_SIZE) }
    }

    #[inline(always)]
    pub(crate) fn count(&self, counter: Counter, n: u64) {
        self.counters.add(counter, n);
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

    pub(crate) fn check_writable(&self) -> Result<(), BufferError> {
        if self.poisoned.load(Relaxed) {
            Err(BufferError::Poisoned)
        } else {
            Ok(())
        }
    }

    /// Tries to take the exclusive latch of the evicted page (`seen`) and
    /// bring it in. `Ok(None)`: another thread changed the word first (the
    /// caller re-reads it). `Ok(Some(word))`: the page is resident and the
    /// caller holds its exclusive latch (`word` is the locked word). On
    /// error the page is Evicted again and holds no frame.
    fn try_fault(
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

impl Drop for BufferPool {
    /// Best-effort write-back of dirty pages (errors are ignored: only an
    /// explicit [`BufferPool::flush_all`] reports them), then the regions
    /// are unmapped. A poisoned pool writes nothing.
    fn drop(&mut self) {
        if !self.is_poisoned() {
            let _ = self.write_back_all();
        }
    }
}
