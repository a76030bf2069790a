//! The simulated device: a seeded, deterministic in-memory directory that can
//! crash (dropping, tearing or reordering unsynced writes), flip bits,
//! misdirect writes and fail chosen operations with EIO or ENOSPC.

use crate::{Dir, File, OpenOptions};
use std::io;
use std::sync::Arc;

/// Kinds of operation a [`Fault`] can target.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OpKind {
    Read,
    Write,
    Sync,
    SetLen,
    Open,
    Remove,
    Rename,
    SyncDir,
}

/// A fault to inject.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Fault {
    /// Fail the operation with EIO.
    Eio,
    /// Fail the operation with ENOSPC.
    Enospc,
    /// (Write) flip one bit of the written data, chosen by the seed.
    FlipBit,
    /// (Write) write the data at another offset (the offset plus `delta_bytes`).
    Misdirect { delta_bytes: i64 },
}

/// Which operations fail how: the n-th operation (counting every operation
/// on the directory and its files from 0) of the given kind gets the fault.
#[derive(Clone, Debug, Default)]
pub struct FaultPlan {
    pub faults: Vec<(u64, OpKind, Fault)>,
}

/// Configuration of a simulated directory.
#[derive(Clone, Debug)]
pub struct SimConfig {
    /// Seed for every random choice (crash outcomes, torn boundaries, bit positions).
    pub seed: u64,
    /// Planned faults.
    pub plan: FaultPlan,
}

/// A simulated directory.
#[derive(Debug)]
pub struct SimDir {
    _private: (),
}

impl SimDir {
    pub fn new(config: SimConfig) -> Arc<SimDir> {
        let _ = config;
        todo!("folio-io helper")
    }
}

impl Dir for SimDir {
    fn open(&self, name: &str, options: OpenOptions) -> io::Result<Arc<dyn File>> {
        let _ = (name, options);
        todo!("folio-io helper")
    }
    fn remove(&self, name: &str) -> io::Result<()> {
        let _ = name;
        todo!("folio-io helper")
    }
    fn rename(&self, from: &str, to: &str) -> io::Result<()> {
        let _ = (from, to);
        todo!("folio-io helper")
    }
    fn exists(&self, name: &str) -> io::Result<bool> {
        let _ = name;
        todo!("folio-io helper")
    }
    fn list(&self) -> io::Result<Vec<String>> {
        todo!("folio-io helper")
    }
    fn sync_dir(&self) -> io::Result<()> {
        todo!("folio-io helper")
    }
}
