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
//! so the space for the next segment is claimed before it is needed; a
//! failure there is remembered, and surfaces as an error only for the write
//! that actually needs `s + 1`. All state is under one mutex; the condition
//! variable wakes writers throttled by the hard limit when space is released.

use crate::config::{Recycle, WalConfig};
use crate::error::WalError;
use crate::policy::{CostModel, CostSnapshot, SegmentKind};
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
    state: Mutex<SegState>,
    space_released: Condvar,
    hook: Mutex<Option<CheckpointRequest>>,
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
    /// Lists the segment files in `dir` and removes a leftover temporary file.
    pub fn open(
        dir: Arc<dyn Dir>,
        segment_size_bytes: u64,
        config: &WalConfig,
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
                existing.insert(segno);
            }
        }
        Ok(Segments {
            dir,
            segment_size_bytes,
            recycle: config.recycle,
            min_wal_size_bytes: config.min_wal_size_bytes,
            max_wal_size_bytes: config.max_wal_size_bytes,
            init_zero: config.init_zero,
            hard_limit_bytes: config.hard_limit_bytes,
            hard_limit_wait: Duration::from_millis(config.hard_limit_wait_ms),
            state: Mutex::new(SegState {
                existing,
                ..SegState::default()
            }),
            space_released: Condvar::new(),
            hook: Mutex::new(None),
            counters: SegCounters::default(),
        })
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
            st = match self.create(st, segno + 1, false) {
                Ok(st) => st,
                Err(_) => self.lock(),
            };
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

    /// Creates segment `segno` through a temporary file. With `blocking`, a
    /// hard-limit excess asks for a checkpoint and waits for space; without
    /// it, fails at once.
    fn create<'a>(
        &'a self,
        mut st: MutexGuard<'a, SegState>,
        segno: u64,
        blocking: bool,
    ) -> Result<MutexGuard<'a, SegState>, WalError> {
        if let Some(limit) = self.hard_limit_bytes {
            let deadline = Instant::now() + self.hard_limit_wait;
            let mut asked = false;
            while (st.existing.len() as u64 + 1) * self.segment_size_bytes > limit {
                // A recycled segment may have been renamed into place meanwhile.
                if st.existing.contains(&segno) {
                    return Ok(st);
                }
                let now = Instant::now();
                if !blocking || now >= deadline {
                    return Err(WalError::WalFull { limit_bytes: limit });
                }
                if !asked {
                    asked = true;
                    self.counters.throttled.fetch_add(1, Ordering::Relaxed);
                    drop(st);
                    self.request_checkpoint();
                    st = self.lock();
                    continue;
                }
                st = self
                    .space_released
                    .wait_timeout(st, deadline - now)
                    .unwrap_or_else(|p| p.into_inner())
                    .0;
            }
            if st.existing.contains(&segno) {
                return Ok(st);
            }
        }
        let started = Instant::now();
        self.create_file(segno)?;
        st.existing.insert(segno);
        st.prepared
            .insert(segno, (SegmentKind::Created, elapsed_ns(started)));
        self.counters.created.fetch_add(1, Ordering::Relaxed);
        Ok(st)
    }

    /// The I/O of creating a segment; on failure the temporary file is
    /// removed (best effort) and no segment exists.
    fn create_file(&self, segno: u64) -> Result<(), WalError> {
        let result = (|| {
            let io = |op, e| WalError::io(op, SEGMENT_TMP, e);
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
                file.set_len(self.segment_size_bytes)
                    .map_err(|e| io("extending", e))?;
            }
            file.sync().map_err(|e| io("syncing", e))?;
            let name = segment_file_name(segno);
            self.dir
                .rename(SEGMENT_TMP, &name)
                .map_err(|e| WalError::io("renaming to", name, e))?;
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
    }

    /// Retires released segments below `current_segno` (the segment the
    /// writer is in): recycles or unlinks each per the policy, with a
    /// directory fsync after each rename or unlink.
    pub fn remove_old_segments(&self, current_segno: u64) -> Result<RemovedSegments, WalError> {
        let mut st = self.lock();
        let upto = st.release_segno.min(current_segno);
        let old: Vec<u64> = st.existing.range(..upto).copied().collect();
        let mut report = RemovedSegments::default();
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
                let started = Instant::now();
                let target_name = segment_file_name(target);
                self.dir
                    .rename(&name, &target_name)
                    .map_err(|e| WalError::io("recycling", name.clone(), e))?;
                st.existing.remove(&segno);
                st.existing.insert(target);
                self.sync_dir()?;
                st.prepared
                    .insert(target, (SegmentKind::Recycled, elapsed_ns(started)));
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
        drop(st);
        if report.removed > 0 || report.recycled > 0 {
            self.space_released.notify_all();
        }
        Ok(report)
    }
}

pub(crate) fn elapsed_ns(since: Instant) -> u64 {
    u64::try_from(since.elapsed().as_nanos()).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

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
