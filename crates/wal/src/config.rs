//! Configuration of a WAL: segment size (fixed at creation), buffers, commit
//! mode, segment policy and the end-of-WAL override.

use crate::error::WalError;
use crate::wal_page::WAL_PAGE_SIZE;

/// Default segment size: 16 MiB, as in PostgreSQL.
pub const DEFAULT_SEGMENT_SIZE_BYTES: u64 = 16 << 20;

/// What to do with a segment that is no longer needed (`wal_recycle`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Recycle {
    /// Rename it to a future segment name (saves creating a file; on
    /// copy-on-write filesystems it turns writes into read-modify-write).
    On,
    /// Unlink it; new segments are created fresh.
    Off,
    /// Measure both as the log runs and pick the cheaper (see `policy.rs`).
    Auto,
}

/// The background flusher's interval for asynchronous commits in `Sync`
/// mode (`Wal::commit_async`): PostgreSQL's `wal_writer_delay` default.
pub const DEFAULT_ASYNC_FLUSH_MS: u64 = 200;

/// When a commit returns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CommitMode {
    /// `commit` returns after the record is durable (group commit).
    Sync,
    /// `commit` returns at once; a background flusher makes everything
    /// durable every `flush_interval_ms`, which bounds the loss window
    /// (like `synchronous_commit = off`).
    Async { flush_interval_ms: u64 },
}

/// Configuration of a [`crate::Wal`].
#[derive(Clone, Debug)]
pub struct WalConfig {
    /// Segment size, used only when the WAL is created (then kept in `wal.meta`).
    /// A multiple of the 8 KiB WAL page, at least two pages.
    pub segment_size_bytes: u64,
    /// WAL buffer ring size in 8 KiB pages. A record larger than the ring
    /// minus two pages is rejected.
    pub buffer_pages: usize,
    pub commit_mode: CommitMode,
    /// `wal_recycle`.
    pub recycle: Recycle,
    /// Below this much WAL on disk, old segments are always recycled (unless
    /// `recycle` is `Off`).
    pub min_wal_size_bytes: u64,
    /// Soft limit: past it old segments are unlinked rather than recycled and
    /// the checkpoint hook is asked to run.
    pub max_wal_size_bytes: u64,
    /// `wal_init_zero`: new segments are filled with zeros (blocks really
    /// allocated, so later writes cannot hit ENOSPC on non-COW filesystems)
    /// instead of being extended sparsely.
    pub init_zero: bool,
    /// Optional hard limit on segment bytes on disk, never exceeded. It is
    /// enforced when space is reserved, never in the writer (README "Hard
    /// limit"): at the admission point `Wal::throttle` (called where no page
    /// latch is held, e.g. before a commit record) writers stop while the
    /// WAL reaches into the headroom (`headroom_segments`: a quarter of the
    /// limit, at least one segment), ask for a checkpoint and wait; records
    /// of operations already admitted may use the headroom except the last
    /// `CHECKPOINT_RESERVE_BYTES`, which only the checkpoint record
    /// (`Wal::insert_privileged`) may use, so the checkpoint that frees space
    /// always gets in. At least two segments.
    pub hard_limit_bytes: Option<u64>,
    /// How long a throttled `throttle` or insert waits for a checkpoint to
    /// free space before failing with `WalError::WalFull`.
    pub hard_limit_wait_ms: u64,
    /// The documented override for mid-log corruption: when true, a corrupt
    /// record followed by valid WAL ends the log there (later records are
    /// discarded) instead of failing with `WalError::CorruptMidLog`.
    pub truncate_at_corruption: bool,
    /// Create the next segment on a background thread while the writer
    /// fills the current one (`prepare.rs`), instead of in the writer when
    /// it enters a segment. Off by default, so that a test on the simulated
    /// device does all its I/O in one thread; folio-db turns it on with its
    /// other background threads.
    pub prepare_in_background: bool,
}

impl Default for WalConfig {
    fn default() -> Self {
        WalConfig {
            segment_size_bytes: DEFAULT_SEGMENT_SIZE_BYTES,
            buffer_pages: 1024,
            commit_mode: CommitMode::Sync,
            recycle: Recycle::Auto,
            min_wal_size_bytes: 4 * DEFAULT_SEGMENT_SIZE_BYTES,
            max_wal_size_bytes: 64 * DEFAULT_SEGMENT_SIZE_BYTES,
            init_zero: true,
            hard_limit_bytes: None,
            hard_limit_wait_ms: 10_000,
            truncate_at_corruption: false,
            prepare_in_background: false,
        }
    }
}

impl WalConfig {
    /// Rejects settings the WAL cannot run with.
    pub fn validate(&self) -> Result<(), WalError> {
        let page = WAL_PAGE_SIZE as u64;
        if !self.segment_size_bytes.is_multiple_of(page) || self.segment_size_bytes < 2 * page {
            return Err(WalError::Config(format!(
                "segment_size_bytes {} must be a multiple of {page} and at least two pages",
                self.segment_size_bytes
            )));
        }
        if self.buffer_pages < 4 {
            return Err(WalError::Config("buffer_pages must be at least 4".into()));
        }
        if let CommitMode::Async {
            flush_interval_ms: 0,
        } = self.commit_mode
        {
            return Err(WalError::Config(
                "async flush_interval_ms must be > 0".into(),
            ));
        }
        if let Some(limit) = self.hard_limit_bytes
            && limit < 2 * self.segment_size_bytes
        {
            return Err(WalError::Config(
                "hard_limit_bytes must allow at least two segments".into(),
            ));
        }
        Ok(())
    }
}
