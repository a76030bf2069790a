//! One adapter per engine behind [`KvEngine`]. Each adapter owns a fresh
//! directory, loads the same keys and answers the same operations; the
//! runner (`run.rs`) is generic over the trait, so the measured loops are
//! monomorphised per engine and no engine pays for dynamic dispatch.

pub mod fjall;
pub mod folio;
pub mod lmdb;
pub mod redb;
pub mod sqlite;

use crate::data::ScanCheck;
use anyhow::Result;

/// Cache each engine may use, where it has a setting for it: every engine
/// holds the whole data set in memory, so reads measure the engine, not the disk.
pub const CACHE_BYTES: u64 = 1 << 30;

/// What a commit of [`KvEngine::commit_one`] guarantees when it returns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Durability {
    /// Durable: the engine syncs to stable storage before the commit returns.
    /// The text names the setting and the sync call.
    Synced(&'static str),
    /// The engine has no durable single-key commit; commit rows are reported
    /// as unavailable and `commit_one` is never called. The text says why.
    /// (Every adapter here has one now; the runner keeps the case, tested
    /// with a model engine, so an engine without one is never timed.)
    #[cfg_attr(
        not(test),
        expect(dead_code, reason = "every current adapter commits durably")
    )]
    Unavailable(&'static str),
}

/// The key-value subset every engine is measured on.
///
/// Readers and writers are per-thread sessions: a read-only transaction (or
/// connection) that a thread opens once and reuses for every lookup, and
/// whatever a thread needs to commit on its own (SQLite: its own connection).
pub trait KvEngine: Sync {
    /// A thread's read session.
    type Reader<'a>
    where
        Self: 'a;
    /// A thread's write session.
    type Writer<'a>
    where
        Self: 'a;

    /// The engine's name in tables and files.
    fn name(&self) -> &'static str;

    /// The durability a commit gets (and whether there is one).
    fn durability(&self) -> Durability;

    /// Loads keys `0..keys` (see `data.rs`) in key order, and makes them
    /// durable before returning. `progress` is called with the keys loaded
    /// so far, now and then.
    fn bulk_load(&self, keys: u64, progress: &mut dyn FnMut(u64)) -> Result<()>;

    /// Opens a read session for the calling thread.
    fn reader(&self) -> Result<Self::Reader<'_>>;

    /// Looks `key` up; on a hit copies the value into `value` and returns true.
    fn get<'a>(
        &'a self,
        reader: &mut Self::Reader<'a>,
        key: &[u8],
        value: &mut Vec<u8>,
    ) -> Result<bool>;

    /// Visits every entry in ascending key order.
    fn scan_forward(&self, check: &mut ScanCheck) -> Result<()>;

    /// Visits every entry in descending key order.
    fn scan_backward(&self, check: &mut ScanCheck) -> Result<()>;

    /// Opens a write session for the calling thread.
    fn writer(&self) -> Result<Self::Writer<'_>>;

    /// Inserts one key in its own transaction, durable on return (see
    /// [`KvEngine::durability`]). Called only when that is `Synced`.
    fn commit_one<'a>(
        &'a self,
        writer: &mut Self::Writer<'a>,
        key: &[u8],
        value: &[u8],
    ) -> Result<()>;

    /// What the engine can tell about its commits since the previous call
    /// (folio: WAL fsyncs and commits per fsync), printed to stderr after
    /// each commit measurement; `None` if nothing.
    fn commit_stats(&self) -> Option<String> {
        None
    }
}

/// Calls `progress` every `1/16` of `keys` (and at the end): cheap enough to
/// call once per key from a bulk load.
#[derive(Debug)]
pub struct Every {
    step: u64,
}

impl Every {
    pub fn new(keys: u64) -> Every {
        Every {
            step: (keys / 16).max(1),
        }
    }

    #[inline]
    pub fn tick(&self, done: u64, progress: &mut dyn FnMut(u64)) {
        if done.is_multiple_of(self.step) {
            progress(done);
        }
    }
}
