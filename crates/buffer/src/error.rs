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
    Io {
        page_id: PageId,
        source: std::io::Error,
    },
    #[error(transparent)]
    Checksum(#[from] ChecksumError),
    #[error("{page_id} is beyond the reserved address space ({max_pages} pages)")]
    OutOfRange { page_id: PageId, max_pages: u64 },
    #[error("database file is not a folio database: {reason}")]
    BadMeta { reason: String },
    #[error("WAL flush before writing {page_id} failed: {source}")]
    WalFlush {
        page_id: PageId,
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    #[error("buffer pool exhausted: every frame is latched")]
    PoolExhausted,
    /// Syncing the database file failed. The pool is now poisoned.
    #[error("sync of the database file failed (pool poisoned, recover from the WAL): {source}")]
    Sync { source: std::io::Error },
    /// An earlier sync failed; the pool refuses every further write (DESIGN §5).
    #[error("buffer pool poisoned by an earlier failed sync; no further writes")]
    Poisoned,
    /// The pool was sealed for a stop ([`crate::BufferPool::seal`]): its
    /// pages are being written out and may change no more.
    #[error("the database is shutting down: no further changes")]
    Sealed,
    /// `create` was given a file that already has contents.
    #[error("cannot create a database in a non-empty file ({len_bytes} bytes)")]
    FileNotEmpty { len_bytes: u64 },
    /// The free list holds a link that cannot be right.
    #[error("corrupt free list at {page_id}: {reason}")]
    CorruptFreeList { page_id: PageId, reason: String },
    /// The [`crate::MetaLogger`] failed to log an allocation-state change;
    /// the change was undone.
    #[error("logging a page-allocation change failed (change undone): {source}")]
    MetaLog {
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// A paced flush (checkpoint) found a dirty page latched for longer
    /// than it may wait.
    #[error("checkpoint write of {page_id} gave up: the page stayed latched for {waited_ms} ms")]
    FlushTimeout { page_id: PageId, waited_ms: u64 },
    /// The device is full: growing the data file for a new page failed.
    /// Nothing changed; retry once space is freed.
    #[error(
        "no space left on the device for the data file {file}: growing it beyond {len_bytes} bytes needs {needed_bytes} more bytes; free space on its filesystem, then retry ({source})"
    )]
    NoSpace {
        file: String,
        len_bytes: u64,
        needed_bytes: u64,
        source: std::io::Error,
    },
    /// The data file is shorter than its meta page says it must be: it was
    /// truncated or damaged, and the missing pages are lost data.
    #[error(
        "the data file {file} is damaged: it is {len_bytes} bytes long, but its meta page counts {page_count} pages, which need {expected_bytes} bytes; restore the database from a backup"
    )]
    FileTooShort {
        file: String,
        len_bytes: u64,
        expected_bytes: u64,
        page_count: u64,
    },
    /// A page to be written back lies beyond the data file's reserved
    /// length: the file is shorter than the pages in use (damage), since
    /// allocation always grows it first.
    #[error(
        "{page_id} lies beyond the end of the data file {file} ({len_bytes} bytes): the file is shorter than the pages in use (damaged or truncated)"
    )]
    BeyondFile {
        file: String,
        page_id: PageId,
        len_bytes: u64,
    },
    /// A [`crate::PoolConfig`] that cannot work.
    #[error("bad pool configuration: {reason}")]
    Config { reason: String },
    /// A caller passed an argument outside the API's domain.
    #[error("invalid argument: {reason}")]
    InvalidArgument { reason: String },
}
