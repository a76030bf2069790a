//! The full-page-image rule and the insert that depends on it.
//!
//! A page changed for the first time since the latest checkpoint's redo
//! point is logged with its full image (torn-page protection, PostgreSQL's
//! full-page writes): `needs_image(page_lsn)` is `page_lsn <= redo`. This
//! is the one place the rule is decided; every structure that logs (the
//! B+tree, the buffer pool's allocation changes through folio-db, and the
//! heap and commit log next) asks an [`ImageRule`].
//!
//! The decision is made against the redo point as it is when the record is
//! built. A checkpoint may move the redo point before the record is
//! reserved; a record whose decisions predate the move would then lack an
//! image the new checkpoint relies on. So a rule stamps the records it
//! builds with the redo point it decided against, `Wal::insert` refuses
//! such a record if the point has moved (`RedoPointMoved`, under the
//! reservation lock that `begin_checkpoint` takes too), and
//! [`Wal::log_with_images`] builds it again against the new point.
//!
//! Bound. A retry happens only when a checkpoint *began* between an
//! attempt's decision and its reservation, and one attempt — building one
//! record — takes microseconds, while checkpoints are serialised and each
//! one writes and fsyncs the data file and the control file (milliseconds
//! at least). Two moves during one record are already implausible; after
//! [`MAX_IMAGE_ATTEMPTS`] the insert fails with `RedoPointUnstable` instead
//! of looping (test `image_decisions_retry_a_bounded_number_of_times`).

use crate::{Inserted, RecordBuilder, RmgrId, Wal, WalError};
use folio_page::Lsn;
use std::cell::Cell;

/// Attempts `Wal::log_with_images` makes before it gives up.
pub const MAX_IMAGE_ATTEMPTS: u32 = 8;

/// Whether a page whose LSN is `page_lsn` must be logged with its image
/// when the redo point is `redo`.
fn image_needed(page_lsn: Lsn, redo: Lsn) -> bool {
    page_lsn <= redo
}

/// The full-page-image rule as of one redo point, for building one record.
#[derive(Debug)]
pub struct ImageRule<'w> {
    wal: &'w Wal,
    redo: Lsn,
    /// Set when the insert was refused because the redo point moved.
    moved: Cell<bool>,
}

impl ImageRule<'_> {
    /// Whether a page whose header LSN (before this change) is `page_lsn`
    /// must be registered with its full image.
    pub fn needs_image(&self, page_lsn: Lsn) -> bool {
        image_needed(page_lsn, self.redo)
    }

    /// A builder for a record whose images follow this rule.
    pub fn record<'a>(&self, rmgr: RmgrId, rtype: u8) -> RecordBuilder<'a> {
        let mut record = RecordBuilder::new(rmgr, rtype);
        record.set_redo_lsn_seen(self.redo);
        record
    }

    /// Inserts a record built by [`ImageRule::record`] (`Wal::insert`). A
    /// refusal because the redo point moved is remembered, so that
    /// `log_with_images` tries again.
    pub fn insert(&self, record: &RecordBuilder<'_>) -> Result<Inserted, WalError> {
        let result = self.wal.insert(record);
        if matches!(result, Err(WalError::RedoPointMoved)) {
            self.moved.set(true);
        }
        result
    }
}

impl Wal {
    /// Logs one record whose full-page images depend on the redo point:
    /// `log` builds it with `rule.record(..)`, deciding each page's image
    /// with `rule.needs_image(..)`, and inserts it with `rule.insert(..)`.
    /// If a checkpoint moved the redo point in between, `log` runs again
    /// with a fresh rule: at most [`MAX_IMAGE_ATTEMPTS`] times, then
    /// `RedoPointUnstable`. Any other error of `log` is returned at once.
    pub fn log_with_images<T, E: From<WalError>>(
        &self,
        mut log: impl FnMut(&ImageRule<'_>) -> Result<T, E>,
    ) -> Result<T, E> {
        for _ in 0..MAX_IMAGE_ATTEMPTS {
            let rule = ImageRule {
                wal: self,
                redo: self.redo_lsn(),
                moved: Cell::new(false),
            };
            match log(&rule) {
                Err(_) if rule.moved.get() => continue,
                done => return done,
            }
        }
        Err(WalError::RedoPointUnstable {
            attempts: MAX_IMAGE_ATTEMPTS,
        }
        .into())
    }

    /// Whether a change to a page whose header LSN is `page_lsn` must
    /// register a full-page image, against the redo point now (the rule of
    /// [`ImageRule::needs_image`], for callers that do not insert the
    /// record through `log_with_images`, such as tests).
    pub fn needs_page_image(&self, page_lsn: Lsn) -> bool {
        image_needed(page_lsn, self.redo_lsn())
    }
}
