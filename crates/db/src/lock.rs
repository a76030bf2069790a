//! The lock file: one process at a time opens a database directory.
//!
//! `LOCK` in the database directory is held with `flock(LOCK_EX | LOCK_NB)`
//! for as long as the [`crate::Database`] lives. The lock belongs to the
//! open file description, so a second open — from another process or from
//! this one — fails at once with `DbError::Locked`, and a crashed process
//! releases it automatically (no stale lock files to clean up).

use crate::DbError;
use std::path::{Path, PathBuf};

/// The lock file's name in the database directory.
pub const LOCK_FILE: &str = "LOCK";

/// A held lock; released when dropped (the file is closed).
#[derive(Debug)]
pub(crate) struct DirLock {
    _file: std::fs::File,
}

impl DirLock {
    pub(crate) fn acquire(dir: &Path) -> Result<DirLock, DbError> {
        let lock = dir.join(LOCK_FILE);
        let file = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .read(true)
            .write(true)
            .open(&lock)
            .map_err(|source| DbError::Io {
                op: "opening",
                path: lock.display().to_string(),
                source,
            })?;
        match rustix::fs::flock(&file, rustix::fs::FlockOperation::NonBlockingLockExclusive) {
            Ok(()) => Ok(DirLock { _file: file }),
            Err(rustix::io::Errno::WOULDBLOCK) => Err(DbError::Locked {
                path: PathBuf::from(dir),
                lock,
            }),
            Err(e) => Err(DbError::Io {
                op: "locking",
                path: lock.display().to_string(),
                source: e.into(),
            }),
        }
    }
}
