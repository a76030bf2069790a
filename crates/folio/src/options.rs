//! Settings of a database, built and checked by [`OptionsBuilder`]
//! (PostgreSQL's setting names in the method docs).

use crate::error::{Error, Result};
use std::time::Duration;

/// What a database runs with. Made by [`Options::builder`] (every setting
/// checked) or [`Options::default`].
#[derive(Debug, Clone, Default)]
pub struct Options {
    pub(crate) inner: folio_db::Options,
}

/// When the WAL reuses finished segments (`wal_recycle`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WalRecycle {
    /// Rename finished segments for reuse (PostgreSQL's default).
    On,
    /// Delete finished segments and create new ones (copy-on-write
    /// filesystems: seed 003).
    Off,
    /// Decide from the filesystem (folio's default).
    Auto,
}

impl Options {
    /// A builder starting from the defaults.
    pub fn builder() -> OptionsBuilder {
        OptionsBuilder {
            inner: folio_db::Options::default(),
            error: None,
        }
    }
}

/// Builds [`Options`]; [`OptionsBuilder::build`] checks every setting
/// against PostgreSQL's limits where it has one.
#[derive(Debug, Clone)]
pub struct OptionsBuilder {
    inner: folio_db::Options,
    /// The first bad setting (reported by `build`).
    error: Option<String>,
}

const MIB: u64 = 1 << 20;

impl OptionsBuilder {
    fn check(&mut self, ok: bool, message: impl FnOnce() -> String) {
        if !ok && self.error.is_none() {
            self.error = Some(message());
        }
    }

    /// `shared_buffers`: memory for cached pages (default 64 MiB; at
    /// least 1 MiB).
    pub fn shared_buffers(mut self, bytes: u64) -> Self {
        self.check(bytes >= MIB, || {
            format!("shared_buffers = {bytes} is below the minimum of 1 MiB")
        });
        self.inner.pool_size_bytes = bytes;
        self
    }

    /// The largest database the pool can address (default 64 GiB).
    pub fn max_database_size(mut self, bytes: u64) -> Self {
        self.inner.max_database_bytes = bytes;
        self
    }

    /// `data_checksums` (default on); takes effect when the database is
    /// created.
    pub fn checksums(mut self, on: bool) -> Self {
        self.inner.checksums = on;
        self
    }

    /// `synchronous_commit` (default on). Off: commits return at once and
    /// the WAL is flushed every `wal_writer_delay`; a crash may lose the
    /// latest commits, never corrupt anything.
    pub fn synchronous_commit(mut self, on: bool) -> Self {
        self.inner.synchronous_commit = on;
        self
    }

    /// `wal_writer_delay`: the flush interval (the loss window) with
    /// `synchronous_commit` off (default 200 ms; 1 ms to 10 s).
    pub fn wal_writer_delay(mut self, delay: Duration) -> Self {
        self.check(
            (Duration::from_millis(1)..=Duration::from_secs(10)).contains(&delay),
            || format!("wal_writer_delay = {delay:?} is outside 1 ms ..= 10 s"),
        );
        self.inner.async_flush_interval_ms = delay.as_millis() as u64;
        self
    }

    /// `wal_segment_size` (default 16 MiB; a power of two from 1 MiB to
    /// 1 GiB); takes effect when the database is created.
    pub fn wal_segment_size(mut self, bytes: u64) -> Self {
        self.check(
            bytes.is_power_of_two() && (MIB..=1 << 30).contains(&bytes),
            || format!("wal_segment_size = {bytes} is not a power of two from 1 MiB to 1 GiB"),
        );
        self.inner.wal_segment_size_bytes = bytes;
        self
    }

    /// `wal_recycle` (default [`WalRecycle::Auto`]).
    pub fn wal_recycle(mut self, recycle: WalRecycle) -> Self {
        self.inner.wal_recycle = match recycle {
            WalRecycle::On => folio_wal::Recycle::On,
            WalRecycle::Off => folio_wal::Recycle::Off,
            WalRecycle::Auto => folio_wal::Recycle::Auto,
        };
        self
    }

    /// `wal_init_zero` (default on).
    pub fn wal_init_zero(mut self, on: bool) -> Self {
        self.inner.wal_init_zero = on;
        self
    }

    /// `min_wal_size`: finished segments kept for reuse.
    pub fn min_wal_size(mut self, bytes: u64) -> Self {
        self.inner.min_wal_size_bytes = bytes;
        self
    }

    /// `max_wal_size`: past it, a checkpoint is requested (at least two
    /// segments, and not below `min_wal_size`).
    pub fn max_wal_size(mut self, bytes: u64) -> Self {
        self.inner.max_wal_size_bytes = bytes;
        self.inner.checkpoint_wal_bytes = bytes / 2;
        self
    }

    /// `checkpoint_timeout` (default 5 min; 30 s to 1 day).
    pub fn checkpoint_timeout(mut self, interval: Duration) -> Self {
        self.check(
            (Duration::from_secs(30)..=Duration::from_secs(86_400)).contains(&interval),
            || format!("checkpoint_timeout = {interval:?} is outside 30 s ..= 1 day"),
        );
        self.inner.checkpoint_interval = interval;
        self
    }

    /// `autovacuum` (default on).
    pub fn autovacuum(mut self, on: bool) -> Self {
        self.inner.autovacuum = on;
        self
    }

    /// `autovacuum_naptime` (default 1 s; at least 10 ms).
    pub fn autovacuum_naptime(mut self, naptime: Duration) -> Self {
        self.check(naptime >= Duration::from_millis(10), || {
            format!("autovacuum_naptime = {naptime:?} is below 10 ms")
        });
        self.inner.autovacuum_naptime = naptime;
        self
    }

    /// `deadlock_timeout`: how long a waiter waits before it looks for a
    /// deadlock (default 1 s; at least 1 ms).
    pub fn deadlock_timeout(mut self, timeout: Duration) -> Self {
        self.check(timeout >= Duration::from_millis(1), || {
            format!("deadlock_timeout = {timeout:?} is below 1 ms")
        });
        self.inner.deadlock_timeout = timeout;
        self
    }

    /// `lock_timeout`: the longest wait for another transaction (default
    /// none: for ever).
    pub fn lock_timeout(mut self, timeout: Option<Duration>) -> Self {
        self.inner.lock_timeout = timeout;
        self
    }

    /// `recovery_prefetch` depth (`maintenance_io_concurrency`; default
    /// 32, 0 = off).
    pub fn recovery_prefetch(mut self, depth: usize) -> Self {
        self.inner.recovery_io_concurrency = depth;
        self
    }

    /// Threads that apply the WAL during recovery (default: the usable
    /// CPUs, at most 2; at least 1).
    pub fn recovery_threads(mut self, threads: usize) -> Self {
        self.check(threads >= 1, || {
            "recovery_threads must be at least 1".into()
        });
        self.inner.recovery_threads = threads;
        self
    }

    /// Checks the settings together and returns them: 22023 (PostgreSQL's
    /// "invalid parameter value") naming the first bad one.
    pub fn build(mut self) -> Result<Options> {
        let o = &self.inner;
        let (min, max, segment) = (
            o.min_wal_size_bytes,
            o.max_wal_size_bytes,
            o.wal_segment_size_bytes,
        );
        let (pool, database) = (o.pool_size_bytes, o.max_database_bytes);
        self.check(max >= 2 * segment, || {
            format!("max_wal_size = {max} must be at least two WAL segments ({segment} bytes each)")
        });
        self.check(min <= max, || {
            format!("min_wal_size = {min} must not exceed max_wal_size = {max}")
        });
        self.check(pool <= database, || {
            format!("shared_buffers = {pool} exceeds the largest database size {database}")
        });
        match self.error {
            Some(message) => Err(Error::invalid("22023", message)),
            None => Ok(Options { inner: self.inner }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_builder_refuses_bad_settings_naming_them() {
        assert!(Options::builder().build().is_ok());
        let e = Options::builder()
            .shared_buffers(1000)
            .wal_segment_size(3 << 20)
            .build()
            .unwrap_err();
        assert_eq!(e.code(), "22023");
        assert!(e.to_string().contains("shared_buffers"), "{e}");
        let e = Options::builder()
            .wal_segment_size(64 << 20)
            .max_wal_size(64 << 20)
            .build()
            .unwrap_err();
        assert!(e.to_string().contains("two WAL segments"), "{e}");
        let e = Options::builder()
            .checkpoint_timeout(Duration::from_secs(1))
            .build()
            .unwrap_err();
        assert!(e.to_string().contains("checkpoint_timeout"), "{e}");
        let o = Options::builder()
            .shared_buffers(8 << 20)
            .synchronous_commit(false)
            .build()
            .unwrap();
        assert_eq!(o.inner.pool_size_bytes, 8 << 20);
        assert!(!o.inner.synchronous_commit);
    }
}
