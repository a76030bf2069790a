//! Errors of recovery and checkpoints.

use crate::control::ControlError;
use folio_buffer::BufferError;
use folio_page::{Lsn, PageId};
use folio_wal::{RedoError, WalError};

/// Everything recovery and the checkpointer can fail with.
#[derive(Debug, thiserror::Error)]
pub enum RecoveryError {
    #[error(transparent)]
    Control(#[from] ControlError),
    /// A damaged WAL record is followed by valid, later-durable WAL: stopping
    /// there would silently drop acknowledged commits, so recovery refuses.
    #[error(
        "recovery refused: corrupt WAL record at {lsn} is followed by valid WAL \
         (durable up to {durable_upto}): {detail}. To discard the WAL from {lsn} on \
         and start anyway (losing the commits in it), run \
         `folio verify DIR --truncate-at-corruption` (or open with truncate_at_corruption); \
         it reports what it discards"
    )]
    CorruptWal {
        lsn: Lsn,
        durable_upto: Lsn,
        detail: String,
    },
    #[error(transparent)]
    Wal(WalError),
    #[error(transparent)]
    Buffer(#[from] BufferError),
    /// A block could not be redone.
    #[error("redo of {rmgr} record at {lsn} failed on {page_id}: {source}")]
    Redo {
        lsn: Lsn,
        page_id: PageId,
        rmgr: &'static str,
        source: RedoError,
    },
    /// A record registers pages for a resource manager with no redo.
    #[error("no redo registered for resource manager {rmgr} (record at {lsn})")]
    NoRedo { lsn: Lsn, rmgr: u8 },
    /// The redo start point from the control file is not in the WAL.
    #[error("the checkpoint's redo point {lsn} is not in the WAL: {detail}")]
    MissingRedoPoint { lsn: Lsn, detail: String },
    #[error("could not start a recovery or checkpointer thread: {0}")]
    Thread(std::io::Error),
    #[error("a recovery apply thread panicked")]
    ApplyPanicked,
    #[error("the recovery helper thread panicked")]
    HelperPanicked,
}

impl From<WalError> for RecoveryError {
    fn from(e: WalError) -> Self {
        match e {
            WalError::CorruptMidLog {
                lsn,
                durable_upto,
                detail,
            } => RecoveryError::CorruptWal {
                lsn,
                durable_upto,
                detail,
            },
            other => RecoveryError::Wal(other),
        }
    }
}
