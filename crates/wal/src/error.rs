//! The WAL's error type.

use folio_page::Lsn;
use std::io;

/// Everything the WAL can fail with.
#[derive(Debug, thiserror::Error)]
pub enum WalError {
    /// A checkpoint moved the redo point after the record's full-page-image
    /// decisions were made (`RecordBuilder::set_redo_lsn_seen`); nothing was
    /// inserted. Decide the images again and retry.
    #[error("the redo point moved while the record was built; rebuild it")]
    RedoPointMoved,
    /// `Wal::log_with_images` gave up: a checkpoint moved the redo point
    /// during every one of its attempts (module `images`: not expected).
    #[error(
        "a record's full-page images were decided {attempts} times, and each time a checkpoint moved the redo point before it was inserted"
    )]
    RedoPointUnstable { attempts: u32 },
    /// The device is full (ENOSPC) while creating or writing a segment. The
    /// operation failed; the WAL's state is intact and the operation can be
    /// retried once space is freed.
    #[error(
        "no space left on the device for the WAL while {op} {file}{}: free space on the WAL's filesystem, then retry",
        needed_bytes.map(|n| format!(" ({n} bytes needed)")).unwrap_or_default()
    )]
    NoSpace {
        op: &'static str,
        file: String,
        /// Bytes the operation asked for, when known.
        needed_bytes: Option<u64>,
        source: io::Error,
    },
    /// Any other I/O error.
    #[error("WAL I/O error while {op} {file}: {source}")]
    Io {
        op: &'static str,
        file: String,
        source: io::Error,
    },
    /// An fsync (or a write) failed earlier: the WAL refuses every further
    /// write until it is reopened (and recovered). Never retried, because
    /// Linux may have dropped the dirty pages that failed to write.
    #[error("WAL is poisoned by an earlier failed sync; reopen it to recover")]
    Poisoned,
    /// A damaged record is followed by WAL that was written after the damaged
    /// record had been made durable: this is not a torn tail, and stopping
    /// here would silently discard acknowledged commits.
    #[error(
        "corrupt WAL record at {lsn} followed by valid WAL (durable up to {durable_upto}): {detail}. To discard the WAL from {lsn} on and start anyway, run `folio verify DIR --truncate-at-corruption` (or open with truncate_at_corruption); it reports what it discards"
    )]
    CorruptMidLog {
        lsn: Lsn,
        durable_upto: Lsn,
        detail: String,
    },
    /// A segment file is shorter than the segment size. Segments are
    /// created at full size (through a temporary file and a rename), so a
    /// short one is damage — a truncated file — never an end of the WAL.
    #[error(
        "WAL segment {file} is damaged: it is {len_bytes} bytes long, but every segment is {expected_bytes} bytes (the file was truncated, and the WAL in the missing bytes is lost). To discard the WAL from the damage on and start anyway, run `folio verify DIR --truncate-at-corruption` (or open with truncate_at_corruption); it reports what it discards"
    )]
    ShortSegment {
        file: String,
        len_bytes: u64,
        expected_bytes: u64,
    },
    /// `flush_to` was asked for an LSN past everything inserted: the
    /// caller's LSN (e.g. a page LSN) does not come from this WAL.
    #[error("flush requested to {lsn}, past the end of the WAL at {end}")]
    FlushBeyondEnd { lsn: Lsn, end: Lsn },
    /// The hard WAL size limit is reached and no space was released in time.
    #[error(
        "WAL hard size limit of {limit_bytes} bytes reached; waiting for a checkpoint timed out"
    )]
    WalFull { limit_bytes: u64 },
    #[error("record of {bytes} bytes exceeds the maximum of {max_bytes}")]
    RecordTooLarge { bytes: usize, max_bytes: usize },
    #[error("a record registers at most {max} pages")]
    TooManyBlocks { max: usize },
    #[error("block {block} was not registered")]
    UnknownBlock { block: u8 },
    /// `wal.meta` is missing, damaged or from another format.
    #[error("WAL metadata file wal.meta is invalid: {0}")]
    BadMeta(String),
    #[error("invalid WAL configuration: {0}")]
    Config(String),
    /// The LSN is outside the retained WAL or is not a record start.
    #[error("cannot read WAL at {lsn}: {detail}")]
    BadStart { lsn: Lsn, detail: String },
}

impl WalError {
    /// Builds `NoSpace` for ENOSPC and `Io` for everything else.
    pub(crate) fn io(op: &'static str, file: impl Into<String>, source: io::Error) -> WalError {
        let file = file.into();
        if is_enospc(&source) {
            WalError::NoSpace {
                op,
                file,
                needed_bytes: None,
                source,
            }
        } else {
            WalError::Io { op, file, source }
        }
    }

    /// `self`, with the bytes asked for when it is `NoSpace`.
    pub(crate) fn needing(self, bytes: u64) -> WalError {
        match self {
            WalError::NoSpace {
                op, file, source, ..
            } => WalError::NoSpace {
                op,
                file,
                needed_bytes: Some(bytes),
                source,
            },
            other => other,
        }
    }

    /// True for the out-of-space error.
    pub fn is_no_space(&self) -> bool {
        matches!(self, WalError::NoSpace { .. })
    }
}

/// True when `e` is ENOSPC (both devices report it the same way).
pub(crate) fn is_enospc(e: &io::Error) -> bool {
    e.raw_os_error() == Some(28) || e.kind() == io::ErrorKind::StorageFull
}
