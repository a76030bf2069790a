//! The redo contract between the recovery driver and each structure.
//!
//! Redo is physiological and per page: a record registers every page it
//! changes, and each registered block can be applied to its page alone, given
//! the record. That is what lets recovery partition records by page and apply
//! them on several threads. The driver (folio-recovery) owns everything
//! generic: reading records, restoring full-page images, the page-LSN check
//! (a block is applied only to a page whose LSN is older than the record's
//! end), setting the page LSN afterwards, and marking the page dirty. A
//! structure implements only [`PageRedo::redo_block`], beside its own code
//! (B+tree redo beside the B+tree).

use crate::{Record, RmgrId};
use folio_page::Page;

/// A block could not be redone: the record or the page is not what the
/// structure expects. Recovery stops with this error (naming the LSN and page).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("redo failed: {reason}")]
pub struct RedoError {
    pub reason: String,
}

impl RedoError {
    pub fn new(reason: impl Into<String>) -> RedoError {
        RedoError {
            reason: reason.into(),
        }
    }
}

/// One resource manager's redo and description of its records.
pub trait PageRedo: Send + Sync {
    /// The resource manager whose records this handles.
    fn rmgr(&self) -> RmgrId;
    /// Its name, for `folio waldump`.
    fn name(&self) -> &'static str;
    /// Applies block `block` of `record` to `page`. Called only for blocks
    /// without a full-page image and only when the page's LSN is older than
    /// `record.end_lsn`; the driver sets the page LSN afterwards.
    fn redo_block(&self, record: &Record, block: usize, page: &mut Page) -> Result<(), RedoError>;
    /// The name of record type `rtype`, for `folio waldump` statistics.
    fn type_name(&self, rtype: u8) -> &'static str;
    /// One line describing the record, for `folio waldump`.
    fn describe(&self, record: &Record) -> String;
}
