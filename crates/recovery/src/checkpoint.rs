//! Checkpoints: by time and by WAL volume, with the page writes spread over
//! the interval.
//!
//! A checkpoint (PostgreSQL's `CreateCheckPoint`, simplified):
//!
//! 1. redo point R = the WAL's insert position, taken and published under
//!    the WAL's reservation lock (`wal.begin_checkpoint()`): from now on the
//!    first change of each page logs a full-page image, and a record whose
//!    image decisions predate R is refused and rebuilt
//!    (`WalError::RedoPointMoved`);
//! 2. write every page dirty at that moment (`flush_dirty_paced`: only tries
//!    latches, revisits busy pages, paced to finish within
//!    `completion_target` of the interval unless someone is waiting), then
//!    fsync the data file — every change logged before R is now on disk;
//! 3. insert a checkpoint record naming R and flush the WAL to its end;
//! 4. replace the control file (redo = R, checkpoint = the record);
//! 5. `wal.release_before(R)` and `remove_old_segments()`: WAL before R is
//!    no longer needed by recovery.
//!
//! A crash before step 4 completes leaves the previous control file, whose
//! older redo point is still covered by the retained WAL. One checkpoint
//! runs at a time (the control-file mutex serialises them).

use crate::control::{ControlData, DbState};
use crate::error::RecoveryError;
use crate::xact::insert_checkpoint;
use folio_buffer::{BufferPool, FlushProgress};
use folio_io::Dir;
use folio_page::Lsn;
use folio_wal::Wal;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, Weak};
use std::thread::JoinHandle;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// When and how checkpoints run.
#[derive(Debug, Clone)]
pub struct CheckpointConfig {
    /// A checkpoint at least this often (`checkpoint_timeout`) while WAL is
    /// being written.
    pub interval: Duration,
    /// A checkpoint once this much WAL was written since the last redo point.
    pub wal_bytes: u64,
    /// Fraction of `interval` over which a timed checkpoint spreads its page
    /// writes (`checkpoint_completion_target`).
    pub completion_target: f64,
    /// How long a checkpoint keeps revisiting a page that stays latched.
    pub max_latch_wait: Duration,
}

impl Default for CheckpointConfig {
    fn default() -> Self {
        CheckpointConfig {
            interval: Duration::from_secs(300),
            wal_bytes: 1 << 30,
            completion_target: 0.9,
            max_latch_wait: Duration::from_secs(60),
        }
    }
}

/// How a checkpoint paces itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CheckpointKind {
    /// Spread writes over `completion_target * interval` (background, timed).
    Spread,
    /// As fast as possible (explicit, WAL volume, hard limit).
    Immediate,
    /// As fast as possible and mark the control file "shut down".
    Shutdown,
}

/// What a checkpoint did.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CheckpointStats {
    pub redo_lsn: Lsn,
    pub checkpoint_lsn: Lsn,
    pub pages_written: u64,
    /// Times a page was found latched and revisited later.
    pub pages_skipped: u64,
    pub segments_recycled: u64,
    pub segments_removed: u64,
    pub elapsed: Duration,
}

#[derive(Debug, Default)]
struct Wake {
    requested: bool,
    stop: bool,
}

#[derive(Debug)]
struct Shared {
    pool: Arc<BufferPool>,
    wal: Arc<Wal>,
    dir: Arc<dyn Dir>,
    config: CheckpointConfig,
    /// The current control file contents; held for a whole checkpoint.
    control: Mutex<ControlData>,
    wake: Mutex<Wake>,
    wake_cv: Condvar,
    /// Someone waits for the checkpoint (WAL hard limit, shutdown): stop
    /// pacing and finish quickly.
    hurry: AtomicBool,
    completed: AtomicU64,
    last_error: Mutex<Option<String>>,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// Runs checkpoints on request and in a background thread.
#[derive(Debug)]
pub struct Checkpointer {
    shared: Arc<Shared>,
    thread: Mutex<Option<JoinHandle<()>>>,
}

/// How often the background thread looks at the WAL volume.
const POLL: Duration = Duration::from_millis(50);

impl Checkpointer {
    /// A checkpointer for `pool` and `wal` that keeps the control file in
    /// `dir`, starting from `control` (what is on disk, or what the first
    /// checkpoint should write). No thread runs until [`Checkpointer::start`].
    pub fn new(
        pool: Arc<BufferPool>,
        wal: Arc<Wal>,
        dir: Arc<dyn Dir>,
        control: ControlData,
        config: CheckpointConfig,
    ) -> Checkpointer {
        Checkpointer {
            shared: Arc::new(Shared {
                pool,
                wal,
                dir,
                config,
                control: Mutex::new(control),
                wake: Mutex::new(Wake::default()),
                wake_cv: Condvar::new(),
                hurry: AtomicBool::new(false),
                completed: AtomicU64::new(0),
                last_error: Mutex::new(None),
            }),
            thread: Mutex::new(None),
        }
    }

    /// Starts the background thread and hooks it to the WAL's checkpoint
    /// request (WAL volume past `max_wal_size`, writers at the hard limit).
    pub fn start(&self) -> Result<(), RecoveryError> {
        let mut thread = lock(&self.thread);
        if thread.is_some() {
            return Ok(());
        }
        let shared = self.shared.clone();
        *thread = Some(
            std::thread::Builder::new()
                .name("folio-checkpointer".into())
                .spawn(move || background(&shared))
                .map_err(RecoveryError::Thread)?,
        );
        let weak: Weak<Shared> = Arc::downgrade(&self.shared);
        self.shared
            .wal
            .set_checkpoint_request(Some(Arc::new(move || {
                if let Some(shared) = weak.upgrade() {
                    request(&shared);
                }
            })));
        Ok(())
    }

    /// Asks the background thread for a checkpoint as soon as possible.
    pub fn request(&self) {
        request(&self.shared);
    }

    /// Runs a checkpoint now in the calling thread.
    pub fn checkpoint(&self, kind: CheckpointKind) -> Result<CheckpointStats, RecoveryError> {
        if kind != CheckpointKind::Spread {
            self.shared.hurry.store(true, Ordering::SeqCst);
        }
        let result = run_checkpoint(&self.shared, kind);
        if kind != CheckpointKind::Spread {
            self.shared.hurry.store(false, Ordering::SeqCst);
        }
        result
    }

    /// Stops the background thread (waits for a running checkpoint) and
    /// unhooks the WAL.
    pub fn stop(&self) {
        self.shared.wal.set_checkpoint_request(None);
        lock(&self.shared.wake).stop = true;
        self.shared.hurry.store(true, Ordering::SeqCst);
        self.shared.wake_cv.notify_all();
        if let Some(thread) = lock(&self.thread).take() {
            let _ = thread.join();
        }
        self.shared.hurry.store(false, Ordering::SeqCst);
    }

    /// The control file as last written (or given to `new`).
    pub fn control(&self) -> ControlData {
        *lock(&self.shared.control)
    }

    /// Checkpoints completed by this checkpointer.
    pub fn completed(&self) -> u64 {
        self.shared.completed.load(Ordering::Relaxed)
    }

    /// The error of the latest failed background checkpoint, if any.
    pub fn last_error(&self) -> Option<String> {
        lock(&self.shared.last_error).clone()
    }
}

impl Drop for Checkpointer {
    fn drop(&mut self) {
        self.stop();
    }
}

fn request(shared: &Shared) {
    shared.hurry.store(true, Ordering::SeqCst);
    lock(&shared.wake).requested = true;
    shared.wake_cv.notify_all();
}

fn background(shared: &Shared) {
    let mut last = Instant::now();
    let mut last_end = shared.wal.insert_lsn();
    loop {
        let requested = {
            let mut wake = lock(&shared.wake);
            if !wake.stop && !wake.requested {
                wake = shared
                    .wake_cv
                    .wait_timeout(wake, POLL)
                    .unwrap_or_else(|p| p.into_inner())
                    .0;
            }
            if wake.stop {
                return;
            }
            std::mem::take(&mut wake.requested)
        };
        if shared.pool.is_poisoned() || shared.wal.is_poisoned() {
            return; // nothing can be written until a restart recovers
        }
        let insert = shared.wal.insert_lsn();
        let redo = lock(&shared.control).redo_lsn;
        let by_volume = insert.0.saturating_sub(redo.0) >= shared.config.wal_bytes;
        let by_time = last.elapsed() >= shared.config.interval && insert != last_end;
        if !(requested || by_volume || by_time) {
            continue;
        }
        let kind = if requested || by_volume {
            CheckpointKind::Immediate
        } else {
            CheckpointKind::Spread
        };
        match run_checkpoint(shared, kind) {
            Ok(_) => *lock(&shared.last_error) = None,
            Err(e) => *lock(&shared.last_error) = Some(e.to_string()),
        }
        shared.hurry.store(false, Ordering::SeqCst);
        last = Instant::now();
        last_end = shared.wal.insert_lsn();
    }
}

fn run_checkpoint(shared: &Shared, kind: CheckpointKind) -> Result<CheckpointStats, RecoveryError> {
    let mut control = lock(&shared.control);
    let started = Instant::now();
    let wal = &shared.wal;
    let redo = wal.begin_checkpoint();
    let spread_over = match kind {
        CheckpointKind::Spread => shared
            .config
            .interval
            .mul_f64(shared.config.completion_target.clamp(0.0, 1.0)),
        _ => Duration::ZERO,
    };
    let mut pace = |progress: FlushProgress| {
        if spread_over.is_zero() || progress.pages_total == 0 {
            return;
        }
        let share = progress.pages_done as f64 / progress.pages_total as f64;
        let due = spread_over.mul_f64(share);
        let elapsed = started.elapsed();
        if elapsed < due && !shared.hurry.load(Ordering::Relaxed) {
            std::thread::sleep((due - elapsed).min(Duration::from_millis(100)));
        }
    };
    let report = shared
        .pool
        .flush_dirty_paced(&mut pace, shared.config.max_latch_wait)?;
    let inserted = insert_checkpoint(wal, redo)?;
    wal.flush_to(inserted.end_lsn)?;
    let new = ControlData {
        state: if kind == CheckpointKind::Shutdown {
            DbState::ShutDown
        } else {
            DbState::InProduction
        },
        checkpoint_lsn: inserted.start_lsn,
        redo_lsn: redo,
        checkpoint_count: control.checkpoint_count + 1,
        checkpoint_time_ms: SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_millis() as u64),
        ..*control
    };
    new.store(shared.dir.as_ref())?;
    *control = new;
    wal.release_before(redo);
    let removed = wal.remove_old_segments()?;
    shared.completed.fetch_add(1, Ordering::Relaxed);
    Ok(CheckpointStats {
        redo_lsn: redo,
        checkpoint_lsn: inserted.start_lsn,
        pages_written: report.pages_written,
        pages_skipped: report.pages_skipped,
        segments_recycled: removed.recycled,
        segments_removed: removed.removed,
        elapsed: started.elapsed(),
    })
}
