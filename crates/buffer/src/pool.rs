//! The buffer pool: its configuration, construction (the frame and state
//! regions), the hooks the layers above install, counters and
//! `check_invariants`. The rest of the protocol lives with its concern:
//! latch acquisition in `latch.rs`, frames and fault-in in `fault.rs`,
//! eviction and write-back in `eviction.rs`, the meta page and free list in
//! `meta.rs`, data-file space in `extent.rs`, the guards in `guards.rs`.

use crate::counters::{Counter, CounterRegistry};
use crate::guards::ExclusiveGuard;
use crate::region::Region;
use crate::resident::ResidentSet;
use crate::state::{self, UNLOCKED};
use crate::{BufferError, meta};
use folio_io::{File, Mailbox};
use folio_page::{Lsn, PAGE_SIZE, PageId};
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, Mutex, RwLock};

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
    /// Back the frames with transparent huge pages (fewer TLB misses on
    /// cached workloads; README "Huge pages").
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
    /// Times the extender thread grew the data file ahead of allocation
    /// (`extent.rs`).
    pub extended_ahead: u64,
}

/// Smallest pool: room for a B+tree descent's latched pages plus an eviction batch.
pub const MIN_POOL_PAGES: u64 = 8;

/// Pages whose state words share one 64-byte cache line: pages
/// `4k..4k + 4` (a page's slot is its state word and its frame number).
/// Threads that latch pages of one line contend for it even
/// when the pages differ (false sharing); work split across threads by
/// page (recovery's apply partitions) keeps such pages together.
pub const PAGES_PER_STATE_LINE: u64 = 64 / (2 * std::mem::size_of::<AtomicU64>()) as u64;

/// The buffer pool of one database file.
pub struct BufferPool {
    pub(crate) file: Arc<dyn File>,
    /// The `pool_pages` frames: frame `f` is `frames.base() + f * PAGE_SIZE`.
    pub(crate) frames: Region,
    /// Page `p`'s slot, two `AtomicU64`s at index `2p` of this region: its
    /// state word, then the number of the frame it occupies (meaningful
    /// while the page is not Evicted).
    pub(crate) states: Region,
    pub(crate) max_pages: u64,
    /// Frames the pool has (`pool_size_bytes / PAGE_SIZE`).
    pub(crate) pool_pages: u64,
    /// Frames no page occupies: a fault pops one (evicting when the list
    /// is empty), an eviction pushes its batch back.
    free_frames: Mutex<Vec<u64>>,
    pub(crate) resident: ResidentSet,
    pub(crate) clock_hand: AtomicU64,
    /// Set by the first fault that found every frame taken (`is_evicting`).
    pub(crate) evicting: AtomicBool,
    /// Eviction rounds running now, and the most allowed at once.
    pub(crate) evictors: AtomicU32,
    pub(crate) max_evictors: u32,
    pub(crate) batch_pages: usize,
    pub(crate) checksums: bool,
    /// Whether the frames were advised to use transparent huge pages.
    pub(crate) huge_pages: bool,
    /// Pages the data file holds, grown ahead of allocation (`extent.rs`).
    pub(crate) reserved_pages: AtomicU64,
    /// Serialises growing the data file (allocation and the extender).
    pub(crate) growth: Mutex<()>,
    /// Requests to the extender thread (`extent.rs`): the reserved page
    /// count seen when room ran low; taken only while `extender_running`.
    pub(crate) extend_requests: Mailbox<u64>,
    pub(crate) extender_running: AtomicBool,
    /// Set when a sync failed: no further writes (DESIGN §5).
    pub(crate) poisoned: AtomicBool,
    /// Set by [`BufferPool::seal`]: no further exclusive latches.
    pub(crate) sealed: AtomicBool,
    pub(crate) wal: RwLock<Option<Arc<dyn WalFlusher>>>,
    /// Logs allocation-state changes (`meta_log.rs`); `None` = unlogged.
    pub(crate) meta_logger: RwLock<Option<Arc<dyn MetaLogger>>>,
    pub(crate) counters: CounterRegistry,
    /// Pages read whose checksum did not match, and when the last one was
    /// found (microseconds since the Unix epoch; 0: never). Rare, so a
    /// shared atomic (`checksum_failures`).
    pub(crate) checksum_failures: AtomicU64,
    pub(crate) last_checksum_failure: AtomicU64,
}

impl std::fmt::Debug for BufferPool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BufferPool")
            .field("file", &self.file)
            .field("max_pages", &self.max_pages)
            .field("pool_pages", &self.pool_pages)
            .field("used_pages", &self.used_pages())
            .field("checksums", &self.checksums)
            .field("poisoned", &self.poisoned.load(Relaxed))
            .finish_non_exhaustive()
    }
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
        let frames = Region::reserve((pool_pages * page_bytes) as usize).map_err(region_error)?;
        let states = Region::reserve(max_pages as usize * 2 * size_of::<AtomicU64>())
            .map_err(region_error)?;
        let huge_pages =
            config.huge_pages && frames.advise_huge((pool_pages * page_bytes) as usize) > 0;
        let file_bytes = file.len().map_err(|source| BufferError::Io {
            page_id: PageId(0),
            source,
        })?;
        Ok(BufferPool {
            reserved_pages: AtomicU64::new(file_bytes / page_bytes),
            growth: Mutex::new(()),
            extend_requests: Mailbox::default(),
            extender_running: AtomicBool::new(false),
            file,
            frames,
            states,
            max_pages,
            pool_pages,
            free_frames: Mutex::new((0..pool_pages).rev().collect()),
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
            checksum_failures: AtomicU64::new(0),
            last_checksum_failure: AtomicU64::new(0),
            huge_pages,
            poisoned: AtomicBool::new(false),
            sealed: AtomicBool::new(false),
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

    /// Whether this database has checksums on.
    pub fn checksums(&self) -> bool {
        self.checksums
    }

    /// Frames this pool may occupy.
    pub fn pool_pages(&self) -> u64 {
        self.pool_pages
    }

    /// Frames occupied by resident or incoming pages (`pool_pages` less the
    /// free list).
    fn used_pages(&self) -> u64 {
        let free = self.free_frames().len() as u64;
        self.pool_pages.saturating_sub(free)
    }

    /// The free-frame list, locked (a panic while it was held left it
    /// whole: every change to it is one push, pop or extend).
    pub(crate) fn free_frames(&self) -> std::sync::MutexGuard<'_, Vec<u64>> {
        self.free_frames.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Gives up the pool's dirty pages: nothing is written from now on, not
    /// even when the pool is dropped (it refuses writes as a poisoned pool
    /// does). For a recovering open that is refused after replay began: a
    /// refused open must change nothing on disk, and replay's changes come
    /// from durable WAL, which the next open replays again.
    pub fn abandon(&self) {
        self.poisoned.store(true, Relaxed);
    }

    /// Refuses every exclusive latch from now on (`Sealed`), so a
    /// [`BufferPool::flush_all`] after it writes a final image of every
    /// page: a change that holds its latches already completes, one that
    /// has yet to take them fails before it changes anything. For a pool
    /// no WAL covers (folio-db's unlogged relations), whose file is only
    /// whole as written at a stop.
    pub fn seal(&self) {
        self.sealed.store(true, Relaxed);
    }

    /// `Sealed` once [`BufferPool::seal`] has run: for a change that
    /// retries after a failed optimistic upgrade (which a sealed pool
    /// always refuses), so it fails instead of retrying forever.
    pub fn check_unsealed(&self) -> Result<(), BufferError> {
        match self.sealed.load(Relaxed) {
            true => Err(BufferError::Sealed),
            false => Ok(()),
        }
    }

    /// Whether a failed sync has poisoned the pool (no further writes).
    pub fn is_poisoned(&self) -> bool {
        self.poisoned.load(Relaxed)
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

    /// How many page reads found a checksum that did not match since the
    /// pool opened, and when the last one did (microseconds since the Unix
    /// epoch): PostgreSQL's `pg_stat_database.checksum_failures` and
    /// `checksum_last_failure`.
    pub fn checksum_failures(&self) -> (u64, Option<u64>) {
        let count = self.checksum_failures.load(Relaxed);
        let last = self.last_checksum_failure.load(Relaxed);
        (count, (count > 0).then_some(last))
    }

    /// Counts a checksum failure found now.
    pub(crate) fn note_checksum_failure(&self) {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_micros() as u64);
        self.last_checksum_failure.store(now, Relaxed);
        self.checksum_failures.fetch_add(1, Relaxed);
    }

    /// The calling thread's counters alone (`EXPLAIN (BUFFERS)` of one
    /// session's statement: the difference before and after).
    pub fn thread_stats(&self) -> PoolStats {
        self.counters.this_thread()
    }

    /// Checks the pool's structural invariants; call it when no other thread
    /// is using the pool. Returns a description of the first violation.
    pub fn check_invariants(&self) -> Result<(), String> {
        // A free list longer than the pool holds a frame twice or out of
        // range, which the frame census below reports.
        let used = self.used_pages();
        let resident = self.resident.count();
        if resident != used {
            return Err(format!(
                "{resident} resident pages but {used} frames reserved"
            ));
        }
        // Every frame is either free or occupied by exactly one resident page.
        let mut owner = vec![None; self.pool_pages as usize];
        for &frame in self.free_frames().iter() {
            let Some(slot) = owner.get_mut(frame as usize) else {
                return Err(format!("free frame {frame} is out of range"));
            };
            if slot.replace(u64::MAX).is_some() {
                return Err(format!("frame {frame} is free twice"));
            }
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
            let frame = self.frame_number(page).load(Relaxed);
            match owner.get_mut(frame as usize).map(|slot| slot.replace(page)) {
                None => return Err(format!("page {page} has frame {frame}, out of range")),
                Some(Some(u64::MAX)) => {
                    return Err(format!(
                        "page {page}'s frame {frame} is also on the free list"
                    ));
                }
                Some(Some(other)) => {
                    return Err(format!(
                        "page {page}'s frame {frame} is also page {other}'s"
                    ));
                }
                Some(None) => {}
            }
        }
        if let Some(frame) = owner.iter().position(Option::is_none) {
            return Err(format!("frame {frame} is neither free nor occupied"));
        }
        Ok(())
    }

    // ---- internals -------------------------------------------------------

    #[inline(always)]
    pub(crate) fn count(&self, counter: Counter, n: u64) {
        self.counters.add(counter, n);
    }

    pub(crate) fn check_writable(&self) -> Result<(), BufferError> {
        if self.poisoned.load(Relaxed) {
            Err(BufferError::Poisoned)
        } else {
            Ok(())
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
