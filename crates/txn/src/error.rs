//! What the transaction manager reports.

use crate::ids::Xid;
use folio_page::PageId;

/// A transaction-manager failure. The SQL layer maps the variants that
/// PostgreSQL names to its SQLSTATE (`sqlstate`).
#[derive(Debug, thiserror::Error)]
pub enum TxnError {
    #[error(transparent)]
    Buffer(#[from] folio_buffer::BufferError),
    #[error(transparent)]
    Wal(#[from] folio_wal::WalError),
    #[error(transparent)]
    Btree(#[from] folio_btree::BtreeError),
    /// A CSN-log page or directory entry is not what its format says.
    #[error("the CSN log is corrupt at page {page}: {reason}")]
    Corrupt { page: PageId, reason: String },
    /// This transaction waited for another that waits, directly or through
    /// others, for it; it was chosen to fail so the others can go on.
    #[error("deadlock detected: {me} waited for {holder}, which waits for {me}")]
    Deadlock { me: Xid, holder: Xid },
    /// A wait for another transaction outlasted the lock timeout.
    #[error("canceling statement due to lock timeout: {me} waited {waited_ms} ms for {holder}")]
    LockTimeout {
        me: Xid,
        holder: Xid,
        waited_ms: u64,
    },
    /// A wait for an advisory lock closed a cycle of advisory waits.
    #[error("deadlock detected")]
    AdvisoryDeadlock,
    /// A wait for an advisory lock outlasted the lock timeout.
    #[error("canceling statement due to lock timeout")]
    AdvisoryLockTimeout { waited_ms: u64 },
    /// `NOWAIT`: what was asked for is held by a running transaction (the
    /// SQL layer names the relation, as PostgreSQL does).
    #[error("could not obtain lock: {me} would wait for {holder}")]
    LockNotAvailable { me: Xid, holder: Xid },
    /// The statement's cancel flag was set (a CancelRequest).
    #[error("canceling statement due to user request")]
    Canceled,
    /// The statement's memory grew past its limit (folio-memory; the SQL
    /// layer's DETAIL names the setting).
    #[error("out of memory")]
    OutOfMemory,
    /// Snapshot isolation refused a write (the row changed after the
    /// snapshot).
    #[error("could not serialize access due to concurrent update")]
    SerializationFailure,
    /// A row version a statement is to update, delete or lock (for its
    /// BEFORE ROW triggers) was changed by one of the statement's triggers
    /// (`Transaction::changed_by_triggers`; PostgreSQL's 27000).
    #[error(
        "tuple to be {} was already modified by an operation triggered by the current command",
        if *deleting { "deleted" } else { "updated" }
    )]
    ChangedByTriggers { deleting: bool },
    /// SERIALIZABLE refused the transaction: it is part of a dangerous
    /// structure of read/write dependencies (`serializable.rs`).
    #[error("could not serialize access due to read/write dependencies among transactions")]
    SerializationConflict(crate::serializable::Reason),
    /// A write in a transaction declared READ ONLY (the SQL layer names
    /// the command, as PostgreSQL does).
    #[error("cannot execute a write in a read-only transaction")]
    ReadOnly,
    /// An isolation level or feature this build does not provide.
    #[error("{0}")]
    NotSupported(String),
    /// `ROLLBACK TO` or `RELEASE` of a savepoint that is not open.
    #[error("savepoint \"{0}\" does not exist")]
    NoSavepoint(String),
    /// Every snapshot slot is taken.
    #[error("too many transactions at once (at most {0})")]
    TooManyTransactions(usize),
    /// The transaction ended already (committed or rolled back).
    #[error("the transaction has ended")]
    Ended,
    /// Two-phase commit refused (`prepared.rs`): a gid in use or unknown,
    /// `max_prepared_transactions` reached, or what cannot be prepared,
    /// with PostgreSQL's SQLSTATE, message and hint.
    #[error("{message}")]
    Prepared {
        sqlstate: &'static str,
        message: String,
        hint: Option<String>,
    },
    /// The in-memory directory of CSN-log pages is full (a limit of this
    /// build, 17 billion transaction ids per run; the format has none).
    #[error("transaction ids exhausted for this process: {0} (restart the database)")]
    XidSpaceExhausted(Xid),
}

impl TxnError {
    /// The SQLSTATE PostgreSQL reports for the same condition, if any.
    pub fn sqlstate(&self) -> Option<&'static str> {
        match self {
            TxnError::Deadlock { .. } | TxnError::AdvisoryDeadlock => Some("40P01"),
            TxnError::LockTimeout { .. }
            | TxnError::LockNotAvailable { .. }
            | TxnError::AdvisoryLockTimeout { .. } => Some("55P03"),
            TxnError::Canceled => Some("57014"),
            TxnError::OutOfMemory => Some("53200"),
            TxnError::SerializationFailure | TxnError::SerializationConflict(_) => Some("40001"),
            TxnError::ChangedByTriggers { .. } => Some("27000"),
            TxnError::NotSupported(_) => Some("0A000"),
            TxnError::Ended => Some("25000"),
            TxnError::ReadOnly => Some("25006"),
            TxnError::NoSavepoint(_) => Some("3B001"),
            TxnError::TooManyTransactions(_) => Some("53300"),
            TxnError::Prepared { sqlstate, .. } => Some(sqlstate),
            _ => None,
        }
    }

    /// PostgreSQL's DETAIL for the condition, where it gives one.
    pub fn detail(&self) -> Option<String> {
        match self {
            TxnError::SerializationConflict(reason) => {
                Some(format!("Reason code: {}", reason.detail()))
            }
            _ => None,
        }
    }

    /// PostgreSQL's HINT for the condition, where it gives one.
    pub fn hint(&self) -> Option<&str> {
        match self {
            TxnError::Prepared { hint, .. } => hint.as_deref(),
            TxnError::SerializationConflict(_) => Some("The transaction might succeed if retried."),
            TxnError::ChangedByTriggers { .. } => Some(
                "Consider using an AFTER trigger instead of a BEFORE trigger to propagate changes to other rows.",
            ),
            _ => None,
        }
    }

    pub(crate) fn corrupt(page: PageId, reason: impl Into<String>) -> TxnError {
        TxnError::Corrupt {
            page,
            reason: reason.into(),
        }
    }
}
