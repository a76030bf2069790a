//! Database options (PostgreSQL's GUC names in the comments).

use folio_wal::{Recycle, WalConfig};
use std::time::Duration;

/// Settings of a [`crate::Database`]. `checksums` and `wal_segment_size_bytes`
/// take effect only at creation (they are recorded in the files).
#[derive(Debug, Clone)]
pub struct Options {
    /// Memory for cached pages (`shared_buffers`).
    pub pool_size_bytes: u64,
    /// Largest database the pool can address (virtual reservation).
    pub max_database_bytes: u64,
    /// Data checksums (`initdb --data-checksums`); creation only.
    pub checksums: bool,
    /// `synchronous_commit`: `commit` returns after the commit record is
    /// durable (group commit). Off: `commit` returns at once and the WAL is
    /// flushed every `async_flush_interval_ms` (the loss window).
    pub synchronous_commit: bool,
    pub async_flush_interval_ms: u64,
    /// WAL segment size; creation only.
    pub wal_segment_size_bytes: u64,
    /// WAL buffers, in 8 KiB pages (`wal_buffers`).
    pub wal_buffer_pages: usize,
    /// `wal_recycle` = on | off | auto.
    pub wal_recycle: Recycle,
    /// `wal_init_zero`.
    pub wal_init_zero: bool,
    /// `min_wal_size` / `max_wal_size` (past it a checkpoint is requested).
    pub min_wal_size_bytes: u64,
    pub max_wal_size_bytes: u64,
    /// Optional hard limit on WAL on disk: writers wait (up to
    /// `wal_hard_limit_wait_ms`) for a checkpoint to free space, then fail.
    pub wal_hard_limit_bytes: Option<u64>,
    pub wal_hard_limit_wait_ms: u64,
    /// `checkpoint_timeout`.
    pub checkpoint_interval: Duration,
    /// A checkpoint after this much WAL since the last one (at most half of
    /// `wal_hard_limit_bytes` when that is set).
    pub checkpoint_wal_bytes: u64,
    /// `checkpoint_completion_target`.
    pub checkpoint_completion_target: f64,
    /// Run the background I/O threads: the checkpointer (timed, volume and
    /// WAL-requested checkpoints), the WAL's segment preparer (the next
    /// segment is created while the current one fills) and the data file's
    /// extender (the file grows by its next extent before an allocation
    /// needs it). Off: checkpoints
    /// happen only in `checkpoint()`, at open and at `close()`, and the
    /// WAL's writer creates segments itself — the crash tests use this so
    /// that one thread drives the simulated device and every case replays
    /// from its seed.
    pub background_io: bool,
    /// `recovery_prefetch` depth (`maintenance_io_concurrency`); 0 = off.
    pub recovery_io_concurrency: usize,
    /// Threads that apply the WAL during recovery (1 = the reading thread
    /// applies everything; N: the reading thread and N - 1 apply threads,
    /// pages partitioned between them). Default: the CPUs this process may
    /// use, at most [`DEFAULT_RECOVERY_THREADS_MAX`].
    pub recovery_threads: usize,
    /// Let recovery place its threads on CPUs (folio-recovery README
    /// "Thread placement"); the opening thread's affinity is restored
    /// when recovery ends.
    pub recovery_pin_threads: bool,
    /// `autovacuum`: vacuum tables in the background when their dead
    /// versions pass the threshold (folio-catalog `autovacuum.rs`).
    pub autovacuum: bool,
    /// `autovacuum_naptime`: time between autovacuum passes.
    pub autovacuum_naptime: Duration,
    /// `deadlock_timeout`: how long a transaction waits for another before
    /// it looks for a deadlock (1 s).
    pub deadlock_timeout: Duration,
    /// `lock_timeout`: how long a transaction waits for another at most
    /// (`None`, the default: for ever).
    pub lock_timeout: Option<Duration>,
    /// `max_prepared_transactions`: how many transactions may be prepared
    /// for two-phase commit at once; 0 (PostgreSQL's default) disables
    /// `PREPARE TRANSACTION` (folio-txn README "Two-phase commit").
    pub max_prepared_transactions: usize,
    /// The documented override: open even when a corrupt WAL record is
    /// followed by valid WAL, discarding everything from the corruption on.
    pub truncate_at_corruption: bool,
}

/// The most recovery threads the default asks for. Two is what was measured:
/// on the 2-CPU machine of `folio bench recovery`, 2 threads replayed
/// 1.7-1.8x as fast as 1 with the pages cached, 1.2-1.3x with a small pool
/// (OS cache warm) and 1.0-1.3x cold. More threads work but were not
/// measured on more CPUs; set `recovery_threads` to use them.
pub const DEFAULT_RECOVERY_THREADS_MAX: usize = 2;

/// The default of `Options::recovery_threads`: the CPUs this process may
/// use (its affinity, `available_parallelism`), at most
/// `DEFAULT_RECOVERY_THREADS_MAX`; 1 when that cannot be told.
pub fn default_recovery_threads() -> usize {
    std::thread::available_parallelism()
        .map_or(1, |cpus| cpus.get())
        .clamp(1, DEFAULT_RECOVERY_THREADS_MAX)
}

impl Default for Options {
    fn default() -> Self {
        let wal = WalConfig::default();
        Options {
            pool_size_bytes: 64 << 20,
            max_database_bytes: 64 << 30,
            checksums: true,
            synchronous_commit: true,
            async_flush_interval_ms: 200,
            wal_segment_size_bytes: wal.segment_size_bytes,
            wal_buffer_pages: wal.buffer_pages,
            wal_recycle: wal.recycle,
            wal_init_zero: wal.init_zero,
            min_wal_size_bytes: wal.min_wal_size_bytes,
            max_wal_size_bytes: wal.max_wal_size_bytes,
            wal_hard_limit_bytes: None,
            wal_hard_limit_wait_ms: wal.hard_limit_wait_ms,
            checkpoint_interval: Duration::from_secs(300),
            checkpoint_wal_bytes: wal.max_wal_size_bytes / 2,
            checkpoint_completion_target: 0.9,
            background_io: true,
            recovery_io_concurrency: 32,
            recovery_threads: default_recovery_threads(),
            recovery_pin_threads: true,
            autovacuum: true,
            autovacuum_naptime: Duration::from_secs(1),
            deadlock_timeout: Duration::from_secs(1),
            lock_timeout: None,
            max_prepared_transactions: 0,
            truncate_at_corruption: false,
        }
    }
}

impl Options {
    pub(crate) fn wal_config(&self) -> WalConfig {
        WalConfig {
            segment_size_bytes: self.wal_segment_size_bytes,
            buffer_pages: self.wal_buffer_pages,
            commit_mode: if self.synchronous_commit {
                folio_wal::CommitMode::Sync
            } else {
                folio_wal::CommitMode::Async {
                    flush_interval_ms: self.async_flush_interval_ms,
                }
            },
            recycle: self.wal_recycle,
            min_wal_size_bytes: self.min_wal_size_bytes,
            max_wal_size_bytes: self.max_wal_size_bytes,
            init_zero: self.wal_init_zero,
            hard_limit_bytes: self.wal_hard_limit_bytes,
            hard_limit_wait_ms: self.wal_hard_limit_wait_ms,
            truncate_at_corruption: self.truncate_at_corruption,
            prepare_in_background: self.background_io,
        }
    }

    pub(crate) fn pool_config(&self) -> folio_buffer::PoolConfig {
        folio_buffer::PoolConfig {
            pool_size_bytes: self.pool_size_bytes,
            max_database_bytes: self.max_database_bytes,
            checksums: self.checksums,
            ..folio_buffer::PoolConfig::default()
        }
    }

    pub(crate) fn autovacuum_config(&self) -> folio_catalog::AutovacuumConfig {
        folio_catalog::AutovacuumConfig {
            naptime: self.autovacuum_naptime,
            ..Default::default()
        }
    }

    pub(crate) fn txn_config(&self) -> folio_txn::TxnConfig {
        folio_txn::TxnConfig {
            deadlock_timeout: self.deadlock_timeout,
            lock_timeout: self.lock_timeout,
            max_prepared: self.max_prepared_transactions,
        }
    }

    pub(crate) fn checkpoint_config(&self) -> folio_recovery::CheckpointConfig {
        // With a hard WAL limit, checkpoint at least every half limit, so a
        // checkpoint can free segments before writers reach it.
        let wal_bytes = match self.wal_hard_limit_bytes {
            Some(limit) => self.checkpoint_wal_bytes.min(limit / 2),
            None => self.checkpoint_wal_bytes,
        };
        folio_recovery::CheckpointConfig {
            interval: self.checkpoint_interval,
            wal_bytes,
            completion_target: self.checkpoint_completion_target,
            ..folio_recovery::CheckpointConfig::default()
        }
    }

    pub(crate) fn recovery_options(&self) -> folio_recovery::RecoveryOptions {
        folio_recovery::RecoveryOptions {
            io_concurrency: self.recovery_io_concurrency,
            threads: self.recovery_threads,
            pin_threads: self.recovery_pin_threads,
            truncate_at_corruption: self.truncate_at_corruption,
            ..folio_recovery::RecoveryOptions::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recovery_threads_default_to_the_usable_cpus_up_to_the_cap() {
        let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
        let threads = Options::default().recovery_threads;
        assert_eq!(threads, cpus.min(DEFAULT_RECOVERY_THREADS_MAX));
        assert!((1..=DEFAULT_RECOVERY_THREADS_MAX).contains(&threads));
    }
}
