//! The one error type of the embedded API, with PostgreSQL's SQLSTATE of
//! each condition ([`Error::code`]).

use folio_catalog::CatalogError;
use folio_db::DbError;
use folio_heap::HeapError;
use folio_row::RowError;
use folio_txn::TxnError;

/// Everything a call of this crate can fail with. Each variant carries
/// PostgreSQL's message; [`Error::code`] is its SQLSTATE.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// 40001: REPEATABLE READ found a row changed after its snapshot.
    /// Retry the whole transaction ([`crate::Database::transact`] does).
    #[error("{0}")]
    SerializationFailure(String),
    /// 40P01: this transaction was chosen to break a deadlock. Retry it.
    #[error("{0}")]
    Deadlock(String),
    /// 55P03: a wait for another transaction outlasted `lock_timeout`.
    #[error("{0}")]
    LockTimeout(String),
    /// 23505: a unique index (the primary key, or a unique secondary
    /// index) already holds the key.
    #[error("{0}")]
    UniqueViolation(String),
    /// 23502: NULL in a NOT NULL column (every primary-key column is one).
    #[error("{0}")]
    NotNullViolation(String),
    /// 42P01: no such table or index.
    #[error("{0}")]
    UndefinedTable(String),
    /// 42P07: a table or index of that name exists.
    #[error("{0}")]
    DuplicateTable(String),
    /// 42703: no such column.
    #[error("{0}")]
    UndefinedColumn(String),
    /// 25P02: an earlier call failed in a way that may have left part of
    /// its work done, so the transaction can only be rolled back (or
    /// rolled back to a savepoint), as in PostgreSQL.
    #[error(
        "current transaction is aborted, commands ignored until end of transaction block (after: {0})"
    )]
    InFailedTransaction(String),
    /// A value, key, name or setting that is not acceptable: a type
    /// mismatch (42804), a value out of range (22003), text too long
    /// (22001), an index key too long (54000), a bad setting (22023)...
    #[error("{message}")]
    InvalidInput { code: &'static str, message: String },
    /// 53100: the disk is full. Nothing was lost; retry once space is free.
    #[error("{0}")]
    DiskFull(String),
    /// XX001 / XX002: a damaged page or an index that disagrees with its
    /// table.
    #[error("{message}")]
    Corrupt { code: &'static str, message: String },
    /// 0A000: not supported by this build.
    #[error("{0}")]
    NotSupported(String),
    /// Anything else: I/O failures and a poisoned engine (58030; reopen
    /// the database to recover), or an internal error (XX000).
    #[error("{message}")]
    Internal {
        code: &'static str,
        message: String,
        #[source]
        source: Option<Box<dyn std::error::Error + Send + Sync>>,
    },
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// PostgreSQL's SQLSTATE for the condition.
    pub fn code(&self) -> &'static str {
        match self {
            Error::SerializationFailure(_) => "40001",
            Error::Deadlock(_) => "40P01",
            Error::LockTimeout(_) => "55P03",
            Error::UniqueViolation(_) => "23505",
            Error::NotNullViolation(_) => "23502",
            Error::UndefinedTable(_) => "42P01",
            Error::DuplicateTable(_) => "42P07",
            Error::UndefinedColumn(_) => "42703",
            Error::InFailedTransaction(_) => "25P02",
            Error::DiskFull(_) => "53100",
            Error::NotSupported(_) => "0A000",
            Error::InvalidInput { code, .. }
            | Error::Corrupt { code, .. }
            | Error::Internal { code, .. } => code,
        }
    }

    /// Whether running the transaction again may succeed: a serialization
    /// failure or a deadlock (what [`crate::Database::transact`] retries).
    pub fn is_retryable(&self) -> bool {
        matches!(self, Error::SerializationFailure(_) | Error::Deadlock(_))
    }

    pub(crate) fn invalid(code: &'static str, message: impl Into<String>) -> Error {
        Error::InvalidInput {
            code,
            message: message.into(),
        }
    }

    /// The one mapping from a lower layer's error to a variant, by its
    /// SQLSTATE.
    fn classify(
        code: Option<&'static str>,
        error: Box<dyn std::error::Error + Send + Sync>,
    ) -> Error {
        let message = error.to_string();
        match code {
            Some("40001") => Error::SerializationFailure(message),
            Some("40P01") => Error::Deadlock(message),
            Some("55P03") => Error::LockTimeout(message),
            Some("23505") => Error::UniqueViolation(message),
            Some("23502") => Error::NotNullViolation(message),
            Some("42P01") => Error::UndefinedTable(message),
            Some("42P07") => Error::DuplicateTable(message),
            Some("42703") => Error::UndefinedColumn(message),
            Some("53100") => Error::DiskFull(message),
            Some("0A000") => Error::NotSupported(message),
            Some(code @ ("XX001" | "XX002")) => Error::Corrupt { code, message },
            Some(code) if is_input_class(code) => Error::InvalidInput { code, message },
            code => Error::Internal {
                code: code.unwrap_or("XX000"),
                message,
                source: Some(error),
            },
        }
    }
}

/// SQLSTATE classes of bad input: data exceptions (22), syntax and
/// access rule violations (42), program limits (54), savepoints (3B),
/// invalid transaction state (25), and the other integrity constraints
/// (23).
fn is_input_class(code: &str) -> bool {
    ["22", "42", "54", "3B", "25", "23"]
        .iter()
        .any(|class| code.starts_with(class))
}

impl From<DbError> for Error {
    fn from(e: DbError) -> Error {
        Error::classify(e.sqlstate(), Box::new(e))
    }
}

impl From<CatalogError> for Error {
    fn from(e: CatalogError) -> Error {
        Error::from(DbError::from(e))
    }
}

impl From<HeapError> for Error {
    fn from(e: HeapError) -> Error {
        Error::from(DbError::from(e))
    }
}

impl From<TxnError> for Error {
    fn from(e: TxnError) -> Error {
        Error::from(DbError::from(e))
    }
}

impl From<folio_btree::BtreeError> for Error {
    fn from(e: folio_btree::BtreeError) -> Error {
        Error::from(DbError::from(e))
    }
}

impl From<RowError> for Error {
    fn from(e: RowError) -> Error {
        Error::classify(Some(e.sqlstate()), Box::new(e))
    }
}
