//! folio's write-ahead log core: the record format and builder, concurrent
//! insertion into WAL buffers, group commit, segment files with their
//! recycling policy, and a reader that finds the end of the WAL.
//!
//! The design document is this crate's `README.md`. Files by concept:
//! `record.rs` (format), `decode.rs`, `builder.rs`, `wal_page.rs` (page
//! header, LSN arithmetic), `insert.rs` (reservation, buffers), `flush.rs`
//! (writer, group commit), `segment.rs` + `policy.rs` (files, recycling),
//! `reader.rs`, `meta.rs` (`wal.meta`).

mod builder;
mod config;
mod decode;
mod error;
mod flush;
mod images;
mod insert;
mod invariants;
mod meta;
mod policy;
mod prepare;
mod reader;
mod record;
mod redo;
mod segment;
mod wal_page;

pub use builder::{BlockId, RecordBuilder};
pub use config::{
    CommitMode, DEFAULT_ASYNC_FLUSH_MS, DEFAULT_SEGMENT_SIZE_BYTES, Recycle, WalConfig,
};
pub use decode::{
    Block, BlockView, DecodeError, Record, RecordView, decode_record, decode_record_into,
};
pub use error::WalError;
pub use images::{ImageRule, MAX_IMAGE_ATTEMPTS};
pub use insert::{INSERT_SLOTS, Inserted};
pub use meta::{META_FILE, WalMeta};
pub use policy::{CostSnapshot, SegmentKind};
pub use reader::{Discarded, ReaderOptions, WalEnd, WalReader};
pub use record::{
    BLOCK_HAS_IMAGE, BLOCK_HEADER_SIZE, MAX_BLOCKS, MAX_RECORD_BYTES, RECORD_HEADER_SIZE, RmgrId,
    seal_record,
};
pub use redo::{PageRedo, RedoError};
pub use segment::{
    CHECKPOINT_RESERVE_BYTES, CheckpointRequest, RemovedSegments, check_segment_len,
    headroom_segments, segment_file_name, short_segment_files, sync_segment_files,
};
pub use wal_page::{
    WAL_PAGE_HEADER_SIZE, WAL_PAGE_PAYLOAD, WAL_PAGE_SIZE, WalPageHeader, seal_header,
};

use flush::{FlushLeader, WriterState};
use folio_io::{Dir, OpenOptions};
use folio_page::Lsn;
use insert::{InsertSlot, ReserveState, Ring};
use segment::{Segments, Tier};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::Duration;
use wal_page::{bytepos_to_end_lsn, lsn_to_bytepos};

/// Locks a mutex, ignoring poisoning (a panicking holder leaves plain data
/// behind; the WAL's own poisoning is the `poisoned` flag).
pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// Counters, all monotonic.
#[derive(Debug, Default)]
pub(crate) struct Counters {
    pub records: AtomicU64,
    pub bytes: AtomicU64,
    pub writes: AtomicU64,
    pub fsyncs: AtomicU64,
    pub flush_requests: AtomicU64,
    pub flushes_shared: AtomicU64,
    pub ring_full_waits: AtomicU64,
}

/// A snapshot of the WAL's counters.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct WalStats {
    pub records: u64,
    /// Bytes reserved for records (padded).
    pub bytes: u64,
    /// `write_at` calls on segments.
    pub writes: u64,
    /// fdatasync calls on segments.
    pub fsyncs: u64,
    /// `flush_to` calls that found their LSN not yet durable.
    pub flush_requests: u64,
    /// Of those, the ones served by another committer's fsync.
    pub flushes_shared: u64,
    /// Times an inserter found the buffer ring full and wrote out first.
    pub ring_full_waits: u64,
    pub segments_created: u64,
    /// Of those, the ones the preparer thread created.
    pub segments_prepared_in_background: u64,
    pub segments_recycled: u64,
    pub segments_removed: u64,
    /// Times the hard limit made an inserter wait (one per wait slice).
    pub hard_limit_waits: u64,
    pub checkpoint_requests: u64,
    pub costs: CostSnapshot,
}

/// State shared by every handle and the background flusher.
#[derive(Debug)]
pub(crate) struct Shared {
    meta: WalMeta,
    ring: Ring,
    reserve: Mutex<ReserveState>,
    slots: Box<[InsertSlot]>,
    init_lock: Mutex<()>,
    /// WAL pages below this index are set up in the ring.
    initialized_upto: AtomicU64,
    /// Every byte below this LSN has been written to a segment file.
    written_upto: AtomicU64,
    /// Every byte below this LSN is durable. Always a record boundary.
    synced_upto: AtomicU64,
    writer: Mutex<WriterState>,
    /// Whether a committer leads a flush (write + sync), and who waits
    /// for it on `flush_done`.
    flush_leader: Mutex<FlushLeader>,
    flush_done: Condvar,
    /// Committers inside `flush_to` that found their LSN not yet durable.
    committers_waiting: AtomicU64,
    /// Committers that have entered `flush_to`'s waiting path, ever.
    commit_arrivals: AtomicU64,
    /// `commit_arrivals` when the latest flush leader chose its target:
    /// arrivals since then are not covered by any flush yet.
    arrivals_at_target: AtomicU64,
    /// `committers_waiting` when the latest leader chose its target: how
    /// many committers take part in group commit now.
    committers_at_target: AtomicU64,
    /// Leaders left that skip gathering, after one whose wait ran out
    /// (`flush.rs` `gather`; only leaders touch it).
    gather_skips: AtomicU64,
    /// How long the latest flush's syncs took, in nanoseconds.
    last_sync_ns: AtomicU64,
    poisoned: AtomicBool,
    /// Redo point of the latest checkpoint (full-page image rule).
    redo_lsn: AtomicU64,
    segments: Segments,
    counters: Counters,
}

impl Shared {
    pub(crate) fn check_poisoned(&self) -> Result<(), WalError> {
        if self.poisoned.load(Ordering::SeqCst) {
            Err(WalError::Poisoned)
        } else {
            Ok(())
        }
    }
}

#[derive(Debug)]
struct Flusher {
    stop: Arc<(Mutex<bool>, Condvar)>,
    thread: Option<JoinHandle<()>>,
}

/// What opening found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OpenInfo {
    /// Whether the WAL was created by this open.
    pub created: bool,
    /// The end of the valid WAL found (where insertion continues).
    pub end_lsn: Lsn,
    /// Start of the last valid record, if any.
    pub last_record_lsn: Option<Lsn>,
    /// Records read while finding the end: by this open, or (for
    /// [`Wal::open_at_end`]) by the reader that found it.
    pub records_scanned: u64,
}

/// The write-ahead log. Cheap to share behind an `Arc`; every method takes
/// `&self` and is safe to call from many threads.
#[derive(Debug)]
pub struct Wal {
    shared: Arc<Shared>,
    dir: Arc<dyn Dir>,
    config: WalConfig,
    info: OpenInfo,
    /// What `truncate_at_corruption` discarded when this open read the log.
    discarded: Option<Discarded>,
    /// The background flusher: started at open in `Async` mode, or by the
    /// first [`Wal::commit_async`] in `Sync` mode.
    flusher: Mutex<Option<Flusher>>,
    /// Whether `flusher` is running: the asynchronous commit's check, one
    /// load (no lock on the commit path once it runs).
    flusher_running: AtomicBool,
    /// The segment preparer, when `prepare_in_background` is on.
    _preparer: Option<prepare::Preparer>,
}

impl Wal {
    /// Opens the WAL in `dir`, creating it when `dir` holds none. Finds the
    /// end of the valid WAL by reading from the oldest segment (a torn tail
    /// ends it; mid-log corruption fails unless
    /// `config.truncate_at_corruption`), bumps the generation in `wal.meta`,
    /// and continues after the last valid record.
    pub fn open(dir: Arc<dyn Dir>, config: WalConfig) -> Result<Wal, WalError> {
        Wal::open_with_end(dir, config, None)
    }

    /// As [`Wal::open`], but continues after `end`, where a [`WalReader`]
    /// over this directory stopped after reading the log to its end (crash
    /// recovery reads it from the redo point), instead of reading the whole
    /// log again from its oldest segment. Records before the reader's start
    /// are then not checked. A directory without a WAL is an error.
    pub fn open_at_end(dir: Arc<dyn Dir>, config: WalConfig, end: WalEnd) -> Result<Wal, WalError> {
        Wal::open_with_end(dir, config, Some(end))
    }

    fn open_with_end(
        dir: Arc<dyn Dir>,
        config: WalConfig,
        found: Option<WalEnd>,
    ) -> Result<Wal, WalError> {
        config.validate()?;
        let (mut meta, created) = match (WalMeta::load(dir.as_ref())?, found) {
            (Some(meta), _) => (meta, false),
            (None, None) => (WalMeta::new(config.segment_size_bytes), true),
            (None, Some(_)) => {
                return Err(WalError::BadMeta(
                    "wal.meta not found, although the WAL was read to its end".into(),
                ));
            }
        };
        let mut discarded = None;
        let found = match found {
            Some(found) => found,
            None if created => WalEnd {
                end_lsn: Lsn(0),
                last_record_lsn: None,
                records: 0,
            },
            None => {
                let mut reader = WalReader::open(
                    dir.clone(),
                    ReaderOptions {
                        truncate_at_corruption: config.truncate_at_corruption,
                    },
                )?;
                while reader.next_record()?.is_some() {}
                discarded = reader.discarded().cloned();
                reader.wal_end().expect("read to the end")
            }
        };
        let (end, last_start, records_scanned) =
            (found.end_lsn, found.last_record_lsn, found.records);
        // Segment lengths are checked before anything is written, so a
        // refused open changes nothing.
        let segments = Segments::open(
            dir.clone(),
            meta.segment_size_bytes,
            &config,
            end.0 / meta.segment_size_bytes,
        )?;
        meta.generation = meta
            .generation
            .checked_add(1)
            .ok_or_else(|| WalError::BadMeta("generation counter exhausted".into()))?;
        meta.store(dir.as_ref())?;
        // `end` is a record end, or a page's first byte for an empty page.
        let end_pos = lsn_to_bytepos(end);
        let page_bytes = WAL_PAGE_SIZE as u64;
        let tail_page = end.0 / page_bytes;
        let shared = Shared {
            meta,
            ring: Ring::new(config.buffer_pages),
            reserve: Mutex::new(ReserveState {
                cur_bytepos: end_pos,
                prev_lsn: last_start.unwrap_or(Lsn(0)),
            }),
            slots: (0..INSERT_SLOTS).map(|_| InsertSlot::new()).collect(),
            init_lock: Mutex::new(()),
            initialized_upto: AtomicU64::new(tail_page),
            written_upto: AtomicU64::new(end.0),
            synced_upto: AtomicU64::new(end.0),
            writer: Mutex::new(WriterState::default()),
            flush_leader: Mutex::new(FlushLeader::default()),
            flush_done: Condvar::new(),
            committers_waiting: AtomicU64::new(0),
            commit_arrivals: AtomicU64::new(0),
            arrivals_at_target: AtomicU64::new(0),
            committers_at_target: AtomicU64::new(0),
            gather_skips: AtomicU64::new(0),
            last_sync_ns: AtomicU64::new(0),
            poisoned: AtomicBool::new(false),
            redo_lsn: AtomicU64::new(0),
            segments,
            counters: Counters::default(),
        };
        if end.0 % page_bytes != 0 {
            shared.load_tail_page(dir.as_ref(), end)?;
        }
        let shared = Arc::new(shared);
        let flusher = match config.commit_mode {
            CommitMode::Sync => None,
            CommitMode::Async { flush_interval_ms } => Some(spawn_flusher(
                shared.clone(),
                Duration::from_millis(flush_interval_ms),
            )?),
        };
        let preparer = if config.prepare_in_background {
            Some(prepare::Preparer::spawn(shared.clone())?)
        } else {
            None
        };
        let info = OpenInfo {
            created,
            end_lsn: end,
            last_record_lsn: last_start,
            records_scanned,
        };
        Ok(Wal {
            shared,
            dir,
            config,
            info,
            discarded,
            flusher_running: AtomicBool::new(flusher.is_some()),
            flusher: Mutex::new(flusher),
            _preparer: preparer,
        })
    }

    /// What [`Wal::open`] found.
    pub fn open_info(&self) -> OpenInfo {
        self.info
    }

    /// What `truncate_at_corruption` discarded when [`Wal::open`] read the
    /// log (damage it accepted), if anything.
    pub fn discarded(&self) -> Option<&Discarded> {
        self.discarded.as_ref()
    }

    /// The configuration in force.
    pub fn config(&self) -> &WalConfig {
        &self.config
    }

    /// The directory the WAL lives in.
    pub fn dir(&self) -> &Arc<dyn Dir> {
        &self.dir
    }

    /// Segment size of this WAL (fixed at creation).
    pub fn segment_size_bytes(&self) -> u64 {
        self.shared.meta.segment_size_bytes
    }

    /// Inserts a record (XLogInsert). The record is in the WAL buffers when
    /// this returns; it is durable after `flush_to(end_lsn)` / `commit`.
    ///
    /// With a hard limit, the record may use the headroom (README "Hard
    /// limit") but not the last [`CHECKPOINT_RESERVE_BYTES`]: a record that
    /// would end there asks for a checkpoint and waits for space, up to
    /// `hard_limit_wait_ms`, then fails with `WalError::WalFull`. Writers
    /// should be stopped before that, at [`Wal::throttle`].
    pub fn insert(&self, record: &RecordBuilder<'_>) -> Result<Inserted, WalError> {
        self.shared.insert(record, Tier::Ordinary)
    }

    /// Inserts a record that may use the whole hard limit: the checkpoint
    /// record, which must get in for the checkpoint to free space while
    /// writers are throttled. It waits and fails like [`Wal::insert`] only
    /// if the checkpoint reserve itself is used up. Use it for nothing else.
    pub fn insert_privileged(&self, record: &RecordBuilder<'_>) -> Result<Inserted, WalError> {
        self.shared.insert(record, Tier::Privileged)
    }

    /// The hard limit's admission point, for callers holding no page latch
    /// (before an operation or a commit record; InnoDB's `log_free_check`):
    /// while the WAL reaches into the headroom ([`headroom_segments`] below
    /// the limit), asks for a checkpoint and waits for it to free space, up
    /// to `hard_limit_wait_ms`, then fails with `WalError::WalFull`.
    /// Returns at once without a hard limit. Writers are throttled here
    /// rather than in [`Wal::insert`], whose callers may hold latches the
    /// checkpoint needs.
    pub fn throttle(&self) -> Result<(), WalError> {
        self.shared.throttle()
    }

    /// Makes every record ending at or below `lsn` durable (group commit).
    /// The buffer manager calls this before writing a page (the WAL rule).
    pub fn flush_to(&self, lsn: Lsn) -> Result<(), WalError> {
        self.shared.flush_to(lsn)
    }

    /// The commit point: in `Sync` mode waits for `flush_to(lsn)`; in
    /// `Async` mode returns at once (the background flusher makes it durable
    /// within its interval).
    pub fn commit(&self, lsn: Lsn) -> Result<(), WalError> {
        match self.config.commit_mode {
            CommitMode::Sync => self.shared.flush_to(lsn),
            CommitMode::Async { .. } => self.shared.check_poisoned(),
        }
    }

    /// Whether [`Wal::commit`] waits for the record to be durable (the
    /// `Sync` commit mode).
    pub fn commit_waits(&self) -> bool {
        matches!(self.config.commit_mode, CommitMode::Sync)
    }

    /// An asynchronous commit point whatever the configured mode (one
    /// transaction's `synchronous_commit = off`): returns at once; the
    /// background flusher, started here if it is not running, makes the
    /// record durable within its interval (the configured one in `Async`
    /// mode, else [`DEFAULT_ASYNC_FLUSH_MS`]). A crash may lose it; it never
    /// corrupts anything.
    pub fn commit_async(&self, _lsn: Lsn) -> Result<(), WalError> {
        self.shared.check_poisoned()?;
        if self.flusher_running.load(Ordering::Acquire) {
            return Ok(());
        }
        let mut flusher = lock(&self.flusher);
        if flusher.is_none() {
            let interval = match self.config.commit_mode {
                CommitMode::Async { flush_interval_ms } => flush_interval_ms,
                CommitMode::Sync => DEFAULT_ASYNC_FLUSH_MS,
            };
            *flusher = Some(spawn_flusher(
                self.shared.clone(),
                Duration::from_millis(interval),
            )?);
            self.flusher_running.store(true, Ordering::Release);
        }
        Ok(())
    }

    /// Writes and syncs everything inserted so far.
    pub fn flush_all(&self) -> Result<(), WalError> {
        self.shared.flush_all()
    }

    /// Writes (without syncing) everything inserted so far, as a background
    /// writer would; makes nothing durable.
    pub fn write_all(&self) -> Result<(), WalError> {
        self.shared.write_out(self.shared.reserved_end())
    }

    /// The end of all WAL reserved so far (where the next record goes).
    pub fn insert_lsn(&self) -> Lsn {
        self.shared.reserved_end()
    }

    /// Everything below this LSN has been written to segment files.
    pub fn written_lsn(&self) -> Lsn {
        Lsn(self.shared.written_upto.load(Ordering::Acquire))
    }

    /// Everything below this LSN is durable.
    pub fn synced_lsn(&self) -> Lsn {
        Lsn(self.shared.synced_upto.load(Ordering::Acquire))
    }

    /// True after a failed fsync (or non-ENOSPC write error): every write
    /// fails until the WAL is reopened.
    pub fn is_poisoned(&self) -> bool {
        self.shared.poisoned.load(Ordering::SeqCst)
    }

    /// The checkpointer's redo point: segments wholly below `lsn` are no
    /// longer needed for recovery. Clamped to the durable end.
    pub fn release_before(&self, lsn: Lsn) {
        let lsn = lsn.min(self.synced_lsn());
        self.shared.segments.release_before(lsn.0);
    }

    /// Retires released segments (recycle or unlink, per the policy), wakes
    /// writers waiting on the hard limit.
    pub fn remove_old_segments(&self) -> Result<RemovedSegments, WalError> {
        let current = self.written_lsn().0 / self.shared.meta.segment_size_bytes;
        self.shared.segments.remove_old_segments(current)
    }

    /// Installs the hook the WAL calls to ask for a checkpoint (WAL volume
    /// beyond `max_wal_size_bytes`, or writers blocked by the hard limit).
    /// The hook must not wait for the WAL's writer; typically it wakes the
    /// checkpointer thread.
    pub fn set_checkpoint_request(&self, hook: Option<CheckpointRequest>) {
        self.shared.segments.set_checkpoint_request(hook);
    }

    /// Starts a checkpoint: the redo point becomes the current insert
    /// position, read and set under the reservation lock so that no record
    /// can be reserved after it while having made its full-page-image
    /// decisions against the old one (such a record gets
    /// `WalError::RedoPointMoved` and is rebuilt). Returns the redo point.
    pub fn begin_checkpoint(&self) -> Lsn {
        let reserve = lock(&self.shared.reserve);
        let redo = bytepos_to_end_lsn(reserve.cur_bytepos);
        self.shared.redo_lsn.fetch_max(redo.0, Ordering::AcqRel);
        redo
    }

    /// Sets the redo point (recovery uses it to continue from the redo
    /// point of the checkpoint it recovered from). A running checkpointer
    /// uses [`Wal::begin_checkpoint`] instead.
    pub fn set_redo_lsn(&self, lsn: Lsn) {
        let _reserve = lock(&self.shared.reserve);
        self.shared.redo_lsn.fetch_max(lsn.0, Ordering::AcqRel);
    }

    /// The redo point of the latest checkpoint (0 before any).
    pub fn redo_lsn(&self) -> Lsn {
        Lsn(self.shared.redo_lsn.load(Ordering::Acquire))
    }

    /// Bytes of segment files on disk.
    pub fn disk_bytes(&self) -> u64 {
        self.shared.segments.disk_bytes()
    }

    /// A reader over this WAL's directory (sees segment files present now).
    pub fn reader(&self, options: ReaderOptions) -> Result<WalReader, WalError> {
        WalReader::open(self.dir.clone(), options)
    }

    pub fn stats(&self) -> WalStats {
        let c = &self.shared.counters;
        let s = &self.shared.segments.counters;
        let r = |a: &AtomicU64| a.load(Ordering::Relaxed);
        WalStats {
            records: r(&c.records),
            bytes: r(&c.bytes),
            writes: r(&c.writes),
            fsyncs: r(&c.fsyncs),
            flush_requests: r(&c.flush_requests),
            flushes_shared: r(&c.flushes_shared),
            ring_full_waits: r(&c.ring_full_waits),
            segments_created: r(&s.created),
            segments_prepared_in_background: r(&s.prepared_in_background),
            segments_recycled: r(&s.recycled),
            segments_removed: r(&s.removed),
            hard_limit_waits: r(&s.throttled),
            checkpoint_requests: r(&s.checkpoint_requests),
            costs: self.shared.segments.cost_snapshot(),
        }
    }
}

impl Drop for Wal {
    fn drop(&mut self) {
        let flusher = self.flusher.get_mut().unwrap_or_else(|p| p.into_inner());
        if let Some(mut f) = flusher.take() {
            *lock(&f.stop.0) = true;
            f.stop.1.notify_all();
            if let Some(t) = f.thread.take() {
                let _ = t.join();
            }
        }
    }
}

impl Shared {
    /// Puts the valid prefix `[page start, end)` of the tail page back into
    /// the ring, restamped with this open's generation, so the next write of
    /// that page rewrites the same bytes followed by new records.
    fn load_tail_page(&self, dir: &dyn Dir, end: Lsn) -> Result<(), WalError> {
        let page_bytes = WAL_PAGE_SIZE as u64;
        let index = end.0 / page_bytes;
        let seg_bytes = self.meta.segment_size_bytes;
        let segno = index * page_bytes / seg_bytes;
        let name = segment_file_name(segno);
        let file = dir
            .open(&name, OpenOptions::EXISTING)
            .map_err(|e| WalError::io("opening", name.clone(), e))?;
        let mut page = vec![0u8; WAL_PAGE_SIZE];
        let valid = (end.0 - index * page_bytes) as usize;
        file.read_at(&mut page[..valid], index * page_bytes % seg_bytes)
            .map_err(|e| WalError::io("reading", name, e))?;
        let mut header = WalPageHeader::parse(&page).ok_or_else(|| WalError::BadStart {
            lsn: end,
            detail: "tail page header invalid".into(),
        })?;
        header.generation = self.meta.generation;
        header.write_to(&mut page);
        // SAFETY: called from `open` before the ring is shared with any
        // other thread.
        unsafe { self.ring.write(index, 0, &page) };
        self.initialized_upto.store(index + 1, Ordering::Release);
        Ok(())
    }
}

fn spawn_flusher(shared: Arc<Shared>, interval: Duration) -> Result<Flusher, WalError> {
    let stop = Arc::new((Mutex::new(false), Condvar::new()));
    let stop2 = stop.clone();
    let thread = std::thread::Builder::new()
        .name("folio-wal-flusher".into())
        .spawn(move || {
            let (m, cv) = &*stop2;
            let mut stopped = lock(m);
            loop {
                stopped = cv
                    .wait_timeout(stopped, interval)
                    .unwrap_or_else(|p| p.into_inner())
                    .0;
                if *stopped || shared.poisoned.load(Ordering::SeqCst) {
                    break;
                }
                drop(stopped);
                // ENOSPC: retried next tick; poisoning: the loop ends above.
                let _ = shared.flush_all();
                stopped = lock(m);
            }
        })
        .map_err(|e| WalError::io("spawning", "WAL flusher thread", e))?;
    Ok(Flusher {
        stop,
        thread: Some(thread),
    })
}
