//! Segment files: names, creation, recycling, removal, the size limits.
//!
//! Segment `s` is the file `wal-{s:016x}` and holds LSNs
//! `[s * segment_size, (s + 1) * segment_size)`. Life cycle:
//!
//! ```text
//!   (absent) --create: wal-tmp, fill/extend, fsync, rename, fsync dir--> ready
//!   ready --writer enters it--> current --writer moves on--> full
//!   full --release_before + remove_old_segments-->
//!        recycle: rename to the next future name, fsync dir  --> ready (stale bytes)
//!        remove:  unlink, fsync dir                          --> (absent)
//! ```
//!
//! When the writer enters segment `s` it also prepares `s + 1` (best effort)
//! so the space for the next segment is claimed before it is needed: inline,
//! or by the preparer thread (`prepare.rs`) when
//! `WalConfig::prepare_in_background` is on. A failure there surfaces as an
//! error only for the write that actually needs `s + 1`. All state is under
//! one mutex.
//!
//! Disk space is claimed at *reservation* too: an ordinary record may end
//! only inside segment files that exist, and never in the last
//! [`CHECKPOINT_RESERVE_BYTES`] of them, which the checkpoint record alone
//! may use. An inserter that needs more makes the next segment exist first
//! ([`Segments::make_room`]); on a full disk that fails the insert, the
//! operation that asked for space. So the writer never needs a segment that
//! is not there, and a checkpoint — hence `close`, and the end-of-recovery
//! checkpoint of the next open — always finds room for its record.
//!
//! The hard limit is enforced at *reservation* (see `insert.rs`) and at
//! latch-free admission points (`Wal::throttle`), not here: after every
//! change of the segment set this module publishes, as atomics, how far the
//! log may grow for each [`Tier`], such that creating every segment up to
//! there keeps the files on disk within the limit. A caller beyond its
//! bound waits on `space_released` (with this mutex) for a removal or
//! recycling to raise it. Records already reserved therefore always fit, and
//! the writer never waits for the limit: creating a segment a reserved
//! record needs never exceeds it (asserted).

use crate::config::{Recycle, WalConfig};
use crate::error::WalError;
use crate::policy::{CostModel, CostSnapshot, SegmentKind};
use crate::prepare::AheadRequests;
use folio_io::{Dir, File, OpenOptions};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

const SEGMENT_PREFIX: &str = "wal-";
const SEGMENT_TMP: &str = "wal-tmp";
const ZERO_CHUNK_BYTES: usize = 256 << 10;

/// The file name of segment `segno`.
pub fn segment_file_name(segno: u64) -> String {
    format!("{SEGMENT_PREFIX}{segno:016x}")
}

/// The segment number of a file name, if it is a segment's.
pub fn parse_segment_file_name(name: &str) -> Option<u64> {
    let hex = name.strip_prefix(SEGMENT_PREFIX)?;
    if hex.len() != 16 {
        return None;
    }
    u64::from_str_radix(hex, 16).ok()
}

/// Checks a segment file's length: segments are created at full size, so
/// one shorter than `segment_size_bytes` is damage (`ShortSegment`), never
/// an end of the WAL. The one owner of that rule: the reader, opening and
/// the offline checks all call it.
pub fn check_segment_len(
    name: &str,
    len_bytes: u64,
    segment_size_bytes: u64,
) -> Result<(), WalError> {
    if len_bytes < segment_size_bytes {
        return Err(WalError::ShortSegment {
            file: name.to_string(),
            len_bytes,
            expected_bytes: segment_size_bytes,
        });
    }
    Ok(())
}

/// Every segment file of `dir` shorter than `segment_size_bytes`, as
/// `ShortSegment` errors, in segment order (lengths from `File::len`,
/// nothing read or written).
pub fn short_segment_files(
    dir: &dyn Dir,
    segment_size_bytes: u64,
) -> Result<Vec<WalError>, WalError> {
    let names = dir
        .list()
        .map_err(|e| WalError::io("listing", "WAL directory", e))?;
    let mut short = Vec::new();
    for name in names {
        if parse_segment_file_name(&name).is_none() {
            continue;
        }
        let len = dir
            .open(&name, OpenOptions::EXISTING)
            .and_then(|file| file.len())
            .map_err(|e| WalError::io("sizing", name.clone(), e))?;
        if let Err(e) = check_segment_len(&name, len, segment_size_bytes) {
            short.push(e);
        }
    }
    Ok(short)
}

/// Makes every segment file in `dir` and their names durable (fsync each
/// file, then the directory), as they are now.
/// Crash recovery calls it before replaying: after the process died, the
/// operating system may still hold WAL it wrote but never synced, and
/// replay must not write back a page whose change only such WAL records
/// (a power failure later could lose the records and keep the page).
/// PostgreSQL syncs its data directory before recovery for the same reason.
/// Returns the number of files synced.
pub fn sync_segment_files(dir: &dyn Dir) -> Result<usize, WalError> {
    let names = dir
        .list()
        .map_err(|e| WalError::io("listing", "WAL directory", e))?;
    let mut synced = 0;
    for name in names {
        if parse_segment_file_name(&name).is_none() {
            continue;
        }
        dir.open(&name, OpenOptions::EXISTING)
            .and_then(|file| file.sync())
            .map_err(|e| WalError::io("syncing", name.clone(), e))?;
        synced += 1;
    }
    // Names too: the process may have died between a rename and the
    // directory fsync that makes it durable.
    dir.sync_dir()
        .map_err(|e| WalError::io("syncing", "WAL directory", e))?;
    Ok(synced)
}

/// Bytes at the very top of the hard limit that only privileged inserts
/// (the checkpoint record, 32 bytes) may use, so a checkpoint can always log
/// its record, even many times over.
pub const CHECKPOINT_RESERVE_BYTES: u64 = crate::wal_page::WAL_PAGE_SIZE as u64;

/// The headroom of a hard limit of `limit_segs` segments, in segments: a
/// quarter of it, at least one. Admission (`Wal::throttle`) stops before it;
/// operations already admitted may use it for their records (except the
/// checkpoint reserve).
pub fn headroom_segments(limit_segs: u64) -> u64 {
    (limit_segs / 4).max(1)
}

/// Who is asking for WAL space, from the lowest bound to the highest.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Tier {
    /// A latch-free admission point (`Wal::throttle`, before a commit
    /// record): waits while the log reaches into the headroom.
    Admission,
    /// An ordinary record, whose inserter may hold page latches: may use the
    /// headroom except the checkpoint reserve.
    Ordinary,
    /// The checkpoint record: may use everything up to the limit.
    Privileged,
}

/// Called when the WAL wants a checkpoint (volume past `max_wal_size`, or
/// writers blocked by the hard limit). Must not block on the WAL's writer.
pub type CheckpointRequest = Arc<dyn Fn() + Send + Sync>;

/// What one call of `remove_old_segments` did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RemovedSegments {
    pub recycled: u64,
    pub removed: u64,
}

#[derive(Debug, Default)]
struct SegState {
    /// Segment numbers that have a file.
    existing: BTreeSet<u64>,
    /// Segments below this number may be retired.
    release_segno: u64,
    /// The segment the writer is in (or, before it entered one, the one
    /// holding the end of the WAL found at open). Every segment below it
    /// exists unless it was retired; those from it on may still need
    /// creating.
    write_segno: u64,
    /// Kind of every ready (not yet entered) segment and the preparation
    /// cost already spent on it.
    prepared: BTreeMap<u64, (SegmentKind, u64)>,
    model: CostModel,
}

/// Counters kept by the segment manager.
#[derive(Debug, Default)]
pub(crate) struct SegCounters {
    pub created: AtomicU64,
    pub recycled: AtomicU64,
    pub removed: AtomicU64,
    pub throttled: AtomicU64,
    pub checkpoint_requests: AtomicU64,
    /// Segments the preparer thread created.
    pub prepared_in_background: AtomicU64,
}

/// The segment manager.
pub(crate) struct Segments {
    dir: Arc<dyn Dir>,
    segment_size_bytes: u64,
    recycle: Recycle,
    min_wal_size_bytes: u64,
    max_wal_size_bytes: u64,
    init_zero: bool,
    hard_limit_bytes: Option<u64>,
    hard_limit_wait: Duration,
    /// Per [`Tier`], in its order: the LSN records may end at (or below);
    /// `u64::MAX` without a limit. Changed only under `state`.
    limit_lsn: [AtomicU64; 3],
    /// The first LSN of the first segment, from the writer's on, that has
    /// no file: WAL up to here needs no new disk space (see
    /// [`Segments::space_lsn`]). Changed only under `state`.
    disk_wall_lsn: AtomicU64,
    state: Mutex<SegState>,
    space_released: Condvar,
    hook: Mutex<Option<CheckpointRequest>>,
    /// Requests to the preparer thread, when segments are prepared in the
    /// background (`WalConfig::prepare_in_background`).
    ahead: Option<AheadRequests>,
    pub counters: SegCounters,
}

impl fmt::Debug for Segments {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Segments")
            .field("segment_size_bytes", &self.segment_size_bytes)
            .field("recycle", &self.recycle)
            .finish_non_exhaustive()
    }
}

/// A segment file opened for writing, with its cost bookkeeping.
#[derive(Debug, Clone)]
pub(crate) struct OpenSegment {
    pub segno: u64,
    pub file: Arc<dyn File>,
    /// `None` for a segment found on disk at open (its history is unknown).
    pub kind: Option<SegmentKind>,
    /// Nanoseconds spent on this segment so far (preparation, writes, syncs).
    pub cost_ns: u64,
}

impl Segments {
    /// Lists the segment files in `dir`, checks their lengths and removes a
    /// leftover temporary file. `end_segno` is the segment holding the end
    /// of the WAL (where writing continues). A short segment is damage
    /// (`ShortSegment`), unless `truncate_at_corruption` accepted the loss:
    /// then it is extended to full size again (zeros, which read as the end
    /// of the WAL or as pages before the redo point), so the log continues
    /// and the next open finds nothing short.
    pub fn open(
        dir: Arc<dyn Dir>,
        segment_size_bytes: u64,
        config: &WalConfig,
        end_segno: u64,
    ) -> Result<Segments, WalError> {
        let names = dir
            .list()
            .map_err(|e| WalError::io("listing", "WAL directory", e))?;
        let mut existing = BTreeSet::new();
        for name in &names {
            if name == SEGMENT_TMP {
                dir.remove(name)
                    .map_err(|e| WalError::io("removing", name.clone(), e))?;
            } else if let Some(segno) = parse_segment_file_name(name) {
                let file = dir
                    .open(name, OpenOptions::EXISTING)
                    .map_err(|e| WalError::io("opening", name.clone(), e))?;
                let len = file
                    .len()
                    .map_err(|e| WalError::io("sizing", name.clone(), e))?;
                if let Err(short) = check_segment_len(name, len, segment_size_bytes) {
                    if !config.truncate_at_corruption {
                        return Err(short);
                    }
                    file.allocate(segment_size_bytes)
                        .and_then(|()| file.sync())
                        .map_err(|e| WalError::io("restoring the length of", name.clone(), e))?;
                }
                existing.insert(segno);
            }
        }
        let segments = Segments {
            dir,
            segment_size_bytes,
            recycle: config.recycle,
            min_wal_size_bytes: config.min_wal_size_bytes,
            max_wal_size_bytes: config.max_wal_size_bytes,
            init_zero: config.init_zero,
            hard_limit_bytes: config.hard_limit_bytes,
            hard_limit_wait: Duration::from_millis(config.hard_limit_wait_ms),
            limit_lsn: [const { AtomicU64::new(u64::MAX) }; 3],
            disk_wall_lsn: AtomicU64::new(0),
            state: Mutex::new(SegState {
                existing,
                write_segno: end_segno,
                ..SegState::default()
            }),
            space_released: Condvar::new(),
            hook: Mutex::new(None),
            ahead: config.prepare_in_background.then(AheadRequests::default),
            counters: SegCounters::default(),
        };
        segments.publish_limits(&segments.lock());
        Ok(segments)
    }

    /// Recomputes the insert bounds of the hard limit from the segment set;
    /// called, with `state` locked, after every change to it.
    ///
    /// With `free` = limit segments minus segments on disk, the log can grow
    /// into the segments that exist from `write_segno` on and into `free`
    /// missing ones; the first missing segment beyond those, `wall`, must
    /// never be needed. Privileged records may end anywhere before `wall`;
    /// ordinary ones must leave [`CHECKPOINT_RESERVE_BYTES`] before it;
    /// admission stops [`headroom_segments`] before it. Recycling
    /// (a missing future segment appears, an old one goes) and removal
    /// (`free` grows) only move `wall` up; creating a segment below `wall`
    /// leaves it where it is.
    fn publish_limits(&self, st: &SegState) {
        // The disk wall: bounded by the number of existing segments.
        let mut disk_wall = st.write_segno;
        while st.existing.contains(&disk_wall) {
            disk_wall += 1;
        }
        self.disk_wall_lsn
            .store(disk_wall * self.segment_size_bytes, Ordering::Release);
        let Some(limit) = self.hard_limit_bytes else {
            return;
        };
        let limit_segs = limit / self.segment_size_bytes;
        let mut free = limit_segs.saturating_sub(st.existing.len() as u64);
        let mut wall = st.write_segno;
        // Bounded: each step either passes an existing segment or uses one
        // of `free` (at most `limit_segs`) missing ones.
        loop {
            if !st.existing.contains(&wall) {
                if free == 0 {
                    break;
                }
                free -= 1;
            }
            wall += 1;
        }
        let seg = self.segment_size_bytes;
        let privileged = wall * seg;
        let ordinary = privileged.saturating_sub(CHECKPOINT_RESERVE_BYTES);
        let admission = wall.saturating_sub(headroom_segments(limit_segs)) * seg;
        for (tier, lsn) in [
            (Tier::Admission, admission),
            (Tier::Ordinary, ordinary),
            (Tier::Privileged, privileged),
        ] {
            self.limit_lsn[tier as usize].store(lsn, Ordering::Release);
        }
    }

    /// How far (end LSN, inclusive) WAL may reach for `tier` under the hard
    /// limit right now; `u64::MAX` without a limit.
    pub fn limit_lsn(&self, tier: Tier) -> u64 {
        self.limit_lsn[tier as usize].load(Ordering::Acquire)
    }

    /// How far (end LSN, inclusive) WAL of `tier` may reach without new
    /// disk space: the segment files that exist from the writer's on, less
    /// the checkpoint reserve for ordinary records. Admission is not bounded
    /// by space (it is a hard-limit notion).
    pub fn space_lsn(&self, tier: Tier) -> u64 {
        let wall = self.disk_wall_lsn.load(Ordering::Acquire);
        match tier {
            Tier::Privileged => wall,
            Tier::Ordinary | Tier::Admission => wall.saturating_sub(CHECKPOINT_RESERVE_BYTES),
        }
    }

    /// Called (holding no WAL lock) by an inserter of `tier` whose record
    /// would end at `end_lsn`, beyond [`Segments::space_lsn`]: creates the
    /// missing segments up to the one it needs, so the space is claimed by
    /// the operation that asked for it. On a full disk it fails with
    /// `NoSpace` naming the segment and its size, and asks for a checkpoint
    /// (retiring old segments frees or recycles their space for the retry).
    /// Creates nothing beyond the hard limit: the caller looks again and
    /// waits for the limit as usual.
    pub fn make_room(&self, end_lsn: u64, tier: Tier) -> Result<(), WalError> {
        let mut st = self.lock();
        // Bounded: each pass creates one segment or returns; reserved WAL
        // lies within the WAL buffers ahead of the writer, so few are needed.
        while self.space_lsn(tier) < end_lsn && self.limit_lsn(tier) >= end_lsn {
            let segno = self.disk_wall_lsn.load(Ordering::Acquire) / self.segment_size_bytes;
            st = match self.create(st, segno, false) {
                Ok(st) => st,
                // Within the hard limit's bound, creating the first missing
                // segment always fits it (see `publish_limits`).
                Err(e @ WalError::WalFull { .. }) => return Err(e),
                Err(e) => {
                    self.request_checkpoint();
                    return Err(e.needing(self.segment_size_bytes));
                }
            };
        }
        Ok(())
    }

    /// Now, on the clock that segment costs are measured by (the
    /// directory's `cost_clock_ns`: real time on files, operations counted
    /// on the simulated device, so that `wal_recycle = auto` decides the
    /// same way in every run of a seed).
    pub fn cost_clock_ns(&self) -> u64 {
        self.dir.cost_clock_ns()
    }

    /// The cost since `started` (a `cost_clock_ns` reading).
    pub fn cost_since(&self, started: u64) -> u64 {
        self.cost_clock_ns().saturating_sub(started)
    }

    /// When an insert throttled by the hard limit must give up.
    pub fn hard_limit_deadline(&self) -> Instant {
        Instant::now() + self.hard_limit_wait
    }

    /// The hard limit, for the `WalFull` error.
    pub fn hard_limit_bytes(&self) -> u64 {
        self.hard_limit_bytes.unwrap_or(u64::MAX)
    }

    /// Called (holding no WAL lock) by a caller of `tier` that needs WAL up
    /// to `end_lsn`, beyond its bound: asks for a checkpoint, then waits
    /// until the bound reaches `end_lsn`, for at most `slice`, or until
    /// `deadline`. The caller looks again either way (the insert position
    /// may have moved meanwhile).
    pub fn wait_for_space(&self, end_lsn: u64, tier: Tier, deadline: Instant, slice: Duration) {
        self.counters.throttled.fetch_add(1, Ordering::Relaxed);
        self.request_checkpoint();
        let mut st = self.lock();
        let until = deadline.min(Instant::now() + slice);
        loop {
            // The bounds change only under `state`, and we check them under
            // it, so a notification cannot be missed.
            let now = Instant::now();
            if self.limit_lsn(tier) >= end_lsn || now >= until {
                return;
            }
            st = self
                .space_released
                .wait_timeout(st, until - now)
                .unwrap_or_else(|p| p.into_inner())
                .0;
        }
    }

    fn lock(&self) -> MutexGuard<'_, SegState> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Bytes of segment files on disk.
    pub fn disk_bytes(&self) -> u64 {
        self.lock().existing.len() as u64 * self.segment_size_bytes
    }

    pub fn set_checkpoint_request(&self, hook: Option<CheckpointRequest>) {
        *self.hook.lock().unwrap_or_else(|p| p.into_inner()) = hook;
    }

    fn request_checkpoint(&self) {
        let hook = self.hook.lock().unwrap_or_else(|p| p.into_inner()).clone();
        if let Some(hook) = hook {
            self.counters
                .checkpoint_requests
                .fetch_add(1, Ordering::Relaxed);
            hook();
        }
    }

    pub fn cost_snapshot(&self) -> CostSnapshot {
        self.lock().model.snapshot()
    }

    /// Adds a finished segment's total cost to the model.
    pub fn segment_done(&self, seg: &OpenSegment) {
        if let Some(kind) = seg.kind {
            self.lock().model.record(kind, seg.cost_ns);
        }
    }

    /// Opens segment `segno` for the writer, creating it if needed (which
    /// may wait for the hard limit), then prepares `segno + 1` ahead.
    pub fn enter(&self, segno: u64) -> Result<OpenSegment, WalError> {
        let mut st = self.lock();
        if !st.existing.contains(&segno) {
            st = self.create(st, segno, true)?;
        }
        st.write_segno = st.write_segno.max(segno);
        self.publish_limits(&st);
        let (kind, prep_ns) = match st.prepared.remove(&segno) {
            Some((kind, ns)) => (Some(kind), ns),
            None => (None, 0),
        };
        let name = segment_file_name(segno);
        let file = self
            .dir
            .open(&name, OpenOptions::EXISTING)
            .map_err(|e| WalError::io("opening", name.clone(), e))?;
        let retained = (segno + 1).saturating_sub(st.release_segno) * self.segment_size_bytes;
        // Best effort: a failure to prepare ahead is reported by the write
        // that needs the segment, not by this one.
        if !st.existing.contains(&(segno + 1)) {
            match &self.ahead {
                Some(ahead) => ahead.post(segno + 1),
                None => {
                    st = match self.create(st, segno + 1, false) {
                        Ok(st) => st,
                        Err(_) => self.lock(),
                    }
                }
            }
        }
        drop(st);
        if retained > self.max_wal_size_bytes {
            self.request_checkpoint();
        }
        Ok(OpenSegment {
            segno,
            file,
            kind,
            cost_ns: prep_ns,
        })
    }

    /// Where the preparer thread takes its requests (`None`: segments are
    /// prepared inline).
    pub fn ahead(&self) -> Option<&AheadRequests> {
        self.ahead.as_ref()
    }

    /// The preparer thread's step: creates segment `segno` unless it exists
    /// or the writer has passed it (best effort, as inline preparation).
    pub fn prepare(&self, segno: u64) {
        let st = self.lock();
        if st.existing.contains(&segno) || segno < st.write_segno {
            return;
        }
        if self.create(st, segno, false).is_ok() {
            self.counters
                .prepared_in_background
                .fetch_add(1, Ordering::Relaxed);
        }
    }

    /// Creates segment `segno` through a temporary file, never beyond the
    /// hard limit. `needed` means reserved records lie in it (the writer is
    /// entering it); the reservation bounds guarantee such a segment fits,
    /// so exceeding the limit then is a bug (asserted in debug builds, an
    /// error otherwise). Preparing ahead (`needed` false) beyond the limit
    /// is simply refused.
    fn create<'a>(
        &'a self,
        mut st: MutexGuard<'a, SegState>,
        segno: u64,
        needed: bool,
    ) -> Result<MutexGuard<'a, SegState>, WalError> {
        if let Some(limit) = self.hard_limit_bytes
            && (st.existing.len() as u64 + 1) * self.segment_size_bytes > limit
        {
            debug_assert!(
                !needed,
                "segment {segno} holds reserved WAL but does not fit the hard limit"
            );
            return Err(WalError::WalFull { limit_bytes: limit });
        }
        let started = self.cost_clock_ns();
        self.create_file(segno)?;
        st.existing.insert(segno);
        st.prepared
            .insert(segno, (SegmentKind::Created, self.cost_since(started)));
        self.counters.created.fetch_add(1, Ordering::Relaxed);
        self.publish_limits(&st);
        Ok(st)
    }

    /// The I/O of creating a segment; on failure the temporary file is
    /// removed (best effort) and no segment exists.
    fn create_file(&self, segno: u64) -> Result<(), WalError> {
        let name = segment_file_name(segno);
        let result = (|| {
            let tmp = format!("{SEGMENT_TMP} (to become {name})");
            let io = |op, e| WalError::io(op, tmp.clone(), e);
            if self
                .dir
                .exists(SEGMENT_TMP)
                .map_err(|e| io("checking", e))?
            {
                self.dir
                    .remove(SEGMENT_TMP)
                    .map_err(|e| io("removing", e))?;
            }
            let file = self
                .dir
                .open(SEGMENT_TMP, OpenOptions::CREATE_NEW)
                .map_err(|e| io("creating", e))?;
            if self.init_zero {
                let zeros = vec![0u8; ZERO_CHUNK_BYTES];
                let mut at = 0u64;
                while at < self.segment_size_bytes {
                    let n = (self.segment_size_bytes - at).min(ZERO_CHUNK_BYTES as u64) as usize;
                    file.write_at(&zeros[..n], at)
                        .map_err(|e| io("zero-filling", e))?;
                    at += n as u64;
                }
            } else {
                // Allocated, not sparse: writing into the segment later must
                // not need space (folio-io `File::allocate`).
                file.allocate(self.segment_size_bytes)
                    .map_err(|e| io("allocating", e))?;
            }
            file.sync().map_err(|e| io("syncing", e))?;
            self.dir
                .rename(SEGMENT_TMP, &name)
                .map_err(|e| WalError::io("renaming to", name.clone(), e))?;
            self.sync_dir()
        })();
        if result.is_err() {
            let _ = self.dir.remove(SEGMENT_TMP);
        }
        result
    }

    fn sync_dir(&self) -> Result<(), WalError> {
        self.dir
            .sync_dir()
            .map_err(|e| WalError::io("syncing", "WAL directory", e))
    }

    /// Marks segments wholly below `lsn` as no longer needed (the
    /// checkpointer passes its redo point). Never moves backwards.
    pub fn release_before(&self, lsn: u64) {
        let mut st = self.lock();
        // The segment holding the byte just below `lsn` stays.
        let segno = lsn.saturating_sub(1) / self.segment_size_bytes;
        st.release_segno = st.release_segno.max(segno);
        drop(st);
        // Nothing is freed until `remove_old_segments`, but waiters look again.
        self.space_released.notify_all();
    }

    /// Retires released segments below `current_segno` (the segment the
    /// writer is in): recycles or unlinks each per the policy, with a
    /// directory fsync after each rename or unlink. Raises the hard limit's
    /// bounds and wakes throttled callers, also when an I/O error stops it
    /// partway (what it did retire stays retired).
    pub fn remove_old_segments(&self, current_segno: u64) -> Result<RemovedSegments, WalError> {
        let mut st = self.lock();
        let mut report = RemovedSegments::default();
        let result = self.retire_locked(&mut st, current_segno, &mut report);
        self.publish_limits(&st);
        drop(st);
        if report.removed > 0 || report.recycled > 0 {
            self.space_released.notify_all();
        }
        result.map(|()| report)
    }

    fn retire_locked(
        &self,
        st: &mut SegState,
        current_segno: u64,
        report: &mut RemovedSegments,
    ) -> Result<(), WalError> {
        let upto = st.release_segno.min(current_segno);
        let old: Vec<u64> = st.existing.range(..upto).copied().collect();
        for segno in old {
            let disk_bytes = st.existing.len() as u64 * self.segment_size_bytes;
            let recycle = match self.recycle {
                Recycle::Off => false,
                _ if disk_bytes <= self.min_wal_size_bytes => true,
                _ if disk_bytes > self.max_wal_size_bytes => false,
                Recycle::On => true,
                Recycle::Auto => st.model.prefer_recycle(),
            };
            let name = segment_file_name(segno);
            if recycle {
                // The first name past both the newest file and the segment
                // the writer is in (which may not exist yet, if a writer is
                // waiting for it).
                let last = st.existing.last().copied().unwrap_or(segno);
                let target = (last + 1).max(current_segno);
                let started = self.cost_clock_ns();
                let target_name = segment_file_name(target);
                self.dir
                    .rename(&name, &target_name)
                    .map_err(|e| WalError::io("recycling", name.clone(), e))?;
                st.existing.remove(&segno);
                st.existing.insert(target);
                self.sync_dir()?;
                st.prepared
                    .insert(target, (SegmentKind::Recycled, self.cost_since(started)));
                self.counters.recycled.fetch_add(1, Ordering::Relaxed);
                report.recycled += 1;
            } else {
                self.dir
                    .remove(&name)
                    .map_err(|e| WalError::io("removing", name.clone(), e))?;
                st.existing.remove(&segno);
                st.prepared.remove(&segno);
                self.sync_dir()?;
                self.counters.removed.fetch_add(1, Ordering::Relaxed);
                report.removed += 1;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Proves the hard-limit bounds: the admission, ordinary and privileged
    // tiers stop at the headroom, the checkpoint reserve and the limit;
    // preparing ahead never creates a file beyond the limit and moves no
    // bound; retiring a released segment (recycled or unlinked) raises every
    // bound by one segment; and without a limit nothing is bounded.
    #[test]
    fn hard_limit_bounds_follow_the_segment_set() {
        use folio_io::{SimConfig, SimDir};
        let seg = 4 * 8192u64;
        let config = |recycle| WalConfig {
            segment_size_bytes: seg,
            recycle,
            min_wal_size_bytes: 0,
            hard_limit_bytes: Some(4 * seg),
            ..WalConfig::default()
        };
        for recycle in [Recycle::On, Recycle::Off] {
            let dir: Arc<dyn Dir> = SimDir::new(SimConfig::seeded(7));
            let segs = Segments::open(dir, seg, &config(recycle), 0).unwrap();
            let bounds = |s: &Segments| {
                [Tier::Admission, Tier::Ordinary, Tier::Privileged].map(|t| s.limit_lsn(t))
            };
            let reserve = CHECKPOINT_RESERVE_BYTES;
            assert_eq!(bounds(&segs), [3 * seg, 4 * seg - reserve, 4 * seg]);
            for segno in 0..4 {
                segs.enter(segno).unwrap();
                assert!(segs.disk_bytes() <= 4 * seg);
                assert_eq!(bounds(&segs), [3 * seg, 4 * seg - reserve, 4 * seg]);
            }
            // Segment 4 would exceed the limit: preparing it was refused.
            assert_eq!(segs.disk_bytes(), 4 * seg);
            segs.release_before(2 * seg + 1);
            let report = segs.remove_old_segments(3).unwrap();
            assert_eq!(report.recycled + report.removed, 2, "{recycle:?}");
            assert_eq!(bounds(&segs), [5 * seg, 6 * seg - reserve, 6 * seg]);
            segs.enter(4).unwrap();
            assert!(segs.disk_bytes() <= 4 * seg);
        }
        let dir: Arc<dyn Dir> = SimDir::new(SimConfig::seeded(8));
        let unlimited = WalConfig {
            hard_limit_bytes: None,
            ..config(Recycle::On)
        };
        let segs = Segments::open(dir, seg, &unlimited, 0).unwrap();
        assert_eq!(segs.limit_lsn(Tier::Admission), u64::MAX);
    }

    // Proves segment names sort in LSN order and parse back.
    #[test]
    fn segment_names() {
        assert_eq!(segment_file_name(0x1f), "wal-000000000000001f");
        assert_eq!(parse_segment_file_name("wal-000000000000001f"), Some(0x1f));
        assert_eq!(parse_segment_file_name("wal-tmp"), None);
        assert_eq!(parse_segment_file_name("wal.meta"), None);
        assert!(segment_file_name(9) < segment_file_name(10));
    }
}
