//! The database's error type.

use folio_btree::BtreeError;
use folio_buffer::BufferError;
use folio_recovery::{ControlError, RecoveryError};
use folio_wal::WalError;
use std::path::PathBuf;

/// Everything a [`crate::Database`] call can fail with.
#[derive(Debug, thiserror::Error)]
pub enum DbError {
    #[error("I/O error while {op} {path}: {source}")]
    Io {
        op: &'static str,
        path: String,
        source: std::io::Error,
    },
    /// Another process (or another handle in this one) has the database open.
    #[error("database at {path} is in use by another process (lock file {lock} is held)")]
    Locked { path: PathBuf, lock: PathBuf },
    /// `create` found a database (or other files) already there.
    #[error("cannot create a database in {path}: it already holds {what}")]
    AlreadyExists { path: String, what: String },
    /// A failed fsync (WAL or data file) poisoned the engine: no further
    /// writes until the database is reopened, which recovers from the WAL.
    #[error("database refuses writes after a failed fsync ({what}); reopen it to recover")]
    Poisoned { what: &'static str },
    /// A file or directory of the database is damaged or missing.
    #[error("{path} is damaged: {detail}")]
    Damaged { path: String, detail: String },
    /// The WAL directory belongs to another database.
    #[error(
        "WAL system id {wal:#x} does not match the control file's {control:#x}: wrong WAL directory"
    )]
    WalMismatch { wal: u64, control: u64 },
    #[error(transparent)]
    Control(#[from] ControlError),
    #[error(transparent)]
    Recovery(#[from] RecoveryError),
    #[error(transparent)]
    Wal(WalError),
    #[error(transparent)]
    Buffer(#[from] BufferError),
    #[error(transparent)]
    Btree(#[from] BtreeError),
    #[error(transparent)]
    Txn(#[from] folio_txn::TxnError),
    #[error(transparent)]
    Heap(#[from] folio_heap::HeapError),
    #[error(transparent)]
    Catalog(#[from] folio_catalog::CatalogError),
}

impl From<WalError> for DbError {
    fn from(e: WalError) -> Self {
        match e {
            WalError::Poisoned => DbError::Poisoned { what: "WAL" },
            corrupt @ WalError::CorruptMidLog { .. } => DbError::Recovery(corrupt.into()),
            other => DbError::Wal(other),
        }
    }
}

impl DbError {
    /// The SQLSTATE PostgreSQL reports for the same condition, if any:
    /// the cause's for transaction, heap and catalog errors; 53100 for a
    /// full disk; 58030 for I/O failures and a poisoned engine; XX001 for
    /// damage.
    pub fn sqlstate(&self) -> Option<&'static str> {
        if self.is_no_space() {
            return Some("53100");
        }
        match self {
            DbError::Txn(e) => e.sqlstate(),
            DbError::Heap(e) => e.sqlstate(),
            DbError::Catalog(e) => e.sqlstate(),
            DbError::Io { .. } | DbError::Poisoned { .. } => Some("58030"),
            DbError::Damaged { .. } | DbError::WalMismatch { .. } => Some("XX001"),
            DbError::Locked { .. } => Some("55006"),
            DbError::AlreadyExists { .. } => Some("42P04"),
            _ => None,
        }
    }

    /// True for a full disk anywhere in the cause chain (WAL segment or data
    /// file): the operation failed and nothing was lost; retry once space is
    /// freed.
    pub fn is_no_space(&self) -> bool {
        let mut cause: Option<&(dyn std::error::Error + 'static)> = Some(self);
        while let Some(e) = cause {
            if let Some(io) = e.downcast_ref::<std::io::Error>()
                && (io.raw_os_error() == Some(28) || io.kind() == std::io::ErrorKind::StorageFull)
            {
                return true;
            }
            cause = e.source();
        }
        false
    }
}
