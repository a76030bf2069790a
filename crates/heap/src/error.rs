//! What heap operations report.

use crate::tuple::Tid;
use folio_page::PageId;

#[derive(Debug, thiserror::Error)]
pub enum HeapError {
    #[error(transparent)]
    Buffer(#[from] folio_buffer::BufferError),
    #[error(transparent)]
    Wal(#[from] folio_wal::WalError),
    #[error(transparent)]
    Btree(#[from] folio_btree::BtreeError),
    #[error(transparent)]
    Txn(#[from] folio_txn::TxnError),
    #[error("heap page {page} is corrupt: {reason}")]
    Corrupt { page: PageId, reason: String },
    /// A row longer than a heap page holds (out-of-line storage of large
    /// values is not built yet).
    #[error("a row of {len} bytes exceeds the largest a heap page holds ({max} bytes)")]
    RowTooLarge { len: usize, max: usize },
    /// A unique index already holds the key for a live row (`key`, as
    /// encoded in the index).
    #[error("duplicate key value violates unique constraint \"{index}\"")]
    UniqueViolation { index: String, key: Vec<u8> },
    /// The tuple id names no tuple version this transaction may change.
    #[error("no row version at {0}")]
    NotFound(Tid),
}

impl HeapError {
    pub(crate) fn corrupt(page: PageId, reason: impl Into<String>) -> HeapError {
        HeapError::Corrupt {
            page,
            reason: reason.into(),
        }
    }

    /// The SQLSTATE PostgreSQL reports for the same condition, if any.
    pub fn sqlstate(&self) -> Option<&'static str> {
        match self {
            HeapError::Txn(e) => e.sqlstate(),
            HeapError::RowTooLarge { .. } => Some("54000"),
            HeapError::UniqueViolation { .. } => Some("23505"),
            HeapError::Corrupt { .. } => Some("XX001"),
            _ => None,
        }
    }
}
