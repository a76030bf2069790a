use folio_buffer::BufferError;
use folio_page::PageId;

/// Errors of the B+tree.
#[derive(Debug, thiserror::Error)]
pub enum BtreeError {
    #[error(transparent)]
    Buffer(#[from] BufferError),
    /// The WAL refused the change's record (full, poisoned, I/O error);
    /// the tree is unchanged.
    #[error(transparent)]
    Wal(#[from] folio_wal::WalError),
    #[error("key of {len} bytes exceeds the limit of {max} bytes")]
    KeyTooLarge { len: usize, max: usize },
    #[error(
        "entry of {len} bytes (key + value) exceeds the limit of {max} bytes; overflow pages do not exist yet"
    )]
    EntryTooLarge { len: usize, max: usize },
    #[error("key already exists")]
    KeyExists,
    /// A bottom-up build was given a key not greater than the one before.
    #[error("a bottom-up build's keys must ascend")]
    NotAscending,
    /// A bottom-up build was started on a tree that has entries.
    #[error("a bottom-up build needs an empty tree")]
    NotEmpty,
    #[error("{page_id} is corrupt: {reason}")]
    Corrupt { page_id: PageId, reason: String },
    #[error("a tree named {name:?} already exists")]
    TreeExists { name: String },
    #[error("root-map entry for {name:?} is malformed")]
    BadRootEntry { name: String },
    #[error("tree {name:?} is {actual} but was opened as {expected}")]
    WrongKind {
        name: String,
        expected: &'static str,
        actual: &'static str,
    },
}

impl BtreeError {
    pub(crate) fn corrupt(page_id: PageId, reason: impl Into<String>) -> BtreeError {
        BtreeError::Corrupt {
            page_id,
            reason: reason.into(),
        }
    }
}
