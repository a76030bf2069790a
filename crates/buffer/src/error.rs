use folio_page::{ChecksumError, PageId};

/// An optimistic read was invalidated by a concurrent writer (or eviction):
/// discard everything read under the guard and restart.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("optimistic read invalidated; restart")]
pub struct Restart;

/// Errors of the buffer manager.
#[derive(Debug, thiserror::Error)]
pub enum BufferError {
    #[error("I/O error on {page_id}: {source}")]
    Io { page_id: PageId, source: std::io::Error },
    #[error(transparent)]
    Checksum(#[from] ChecksumError),
    #[error("{page_id} is beyond the reserved address space ({max_pages} pages)")]
    OutOfRange { page_id: PageId, max_pages: u64 },
    #[error("database file is not a folio database: {reason}")]
    BadMeta { reason: String },
    #[error("WAL flush before writing {page_id} failed: {source}")]
    WalFlush { page_id: PageId, source: Box<dyn std::error::Error + Send + Sync> },
    #[error("buffer pool exhausted: every frame is latched")]
    PoolExhausted,
}
