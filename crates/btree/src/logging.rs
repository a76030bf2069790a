//! The do path's side of WAL logging (README "Logging protocol").
//!
//! Every change happens with all its pages latched exclusively. A leaf
//! change (insert, update, delete) is checked first, then logged, then
//! applied in place; a structural change is computed on private copies of
//! its pages first, then logged, then installed. Either way the record is
//! in the WAL before any page changes and the page LSNs are stamped before
//! the latches are released, and a failed WAL insert (full disk, poisoned
//! log) leaves every page exactly as it was.

use crate::BtreeError;
use folio_buffer::ExclusiveGuard;
use folio_page::{Lsn, Page, PageId, header_lsn, set_header_lsn};
use folio_wal::{RmgrId, Wal};

/// Logs and applies one change to a single leaf. The caller has checked
/// the change (`apply::check_*`); `data` is the block data (omitted when
/// the record carries the page's image instead). `apply` is all-or-nothing
/// and, after the check, cannot fail when applied in place, unless
/// `on_copy`: then it may still find the page corrupt (a compaction reads
/// every entry), so it is applied to a private copy before the record is
/// built and the copy is installed after. Either way a record reaches the
/// WAL only for a change that has succeeded or cannot fail.
pub(crate) fn change_leaf(
    wal: Option<&Wal>,
    leaf: &mut ExclusiveGuard<'_>,
    rtype: u8,
    data: &[&[u8]],
    on_copy: bool,
    apply: impl Fn(&mut Page) -> Result<(), String>,
) -> Result<(), BtreeError> {
    let page_id = leaf.page_id();
    let corrupt = |reason| BtreeError::corrupt(page_id, reason);
    let Some(wal) = wal else {
        // All-or-nothing: an error leaves the leaf unchanged.
        return apply(leaf).map_err(corrupt);
    };
    let applied_copy = || -> Result<Box<Page>, BtreeError> {
        let mut copy = Box::new(**leaf);
        apply(&mut copy).map_err(corrupt)?;
        Ok(copy)
    };
    let mut after = if on_copy { Some(applied_copy()?) } else { None };
    let old_lsn = header_lsn(leaf);
    // The image decision follows the WAL's rule (`ImageRule`); if a
    // checkpoint moves the redo point before the record is reserved, the
    // WAL has it decided again.
    let end = wal.log_with_images(|rule| -> Result<Lsn, BtreeError> {
        let image = rule.needs_image(old_lsn);
        if image && after.is_none() {
            after = Some(applied_copy()?);
        }
        let mut record = rule.record(RmgrId::BTREE, rtype);
        let block = record.register_page(page_id, after.as_deref().filter(|_| image))?;
        if !image {
            for piece in data {
                record.register_page_data(block, piece)?;
            }
        }
        Ok(rule.insert(&record)?.end_lsn)
    })?;
    match after {
        Some(copy) => leaf.copy_from_slice(&copy[..]),
        // Checked by the caller: cannot fail unless the page changed under
        // our exclusive latch.
        None => apply(leaf).map_err(corrupt)?,
    }
    set_header_lsn(leaf, end);
    Ok(())
}

/// One page of a structural change: its content after the change,
/// computed on a private copy before anything is logged.
#[derive(Debug)]
pub(crate) struct After {
    pub page_id: PageId,
    /// The page's LSN before the change (full-page-image rule).
    pub old_lsn: Lsn,
    pub page: Box<Page>,
    /// Allocated for this change: always logged with its image, so redo
    /// never reads it (README "Full-page images").
    pub fresh: bool,
}

impl After {
    /// A copy of `guard` to change.
    pub(crate) fn copy_of(guard: &ExclusiveGuard<'_>, fresh: bool) -> After {
        After {
            page_id: guard.page_id(),
            old_lsn: header_lsn(guard),
            page: Box::new(**guard),
            fresh,
        }
    }

    /// Copies the new content into the latched page and stamps its LSN.
    pub(crate) fn install(&self, guard: &mut ExclusiveGuard<'_>, lsn: Option<Lsn>) {
        assert_eq!(
            guard.page_id(),
            self.page_id,
            "installing into the wrong page"
        );
        guard.copy_from_slice(&self.page[..]);
        if let Some(lsn) = lsn {
            set_header_lsn(guard, lsn);
        }
    }
}

/// Inserts one record of type `rtype` registering `pages` in order (each
/// with its image when fresh or when the full-page-image rule asks for one;
/// structural records have no block data) and `main` as main data. Returns
/// the LSN to stamp on every page, or `None` for an unlogged tree.
pub(crate) fn log_structural(
    wal: Option<&Wal>,
    rtype: u8,
    pages: &[&After],
    main: &[u8],
) -> Result<Option<Lsn>, BtreeError> {
    let Some(wal) = wal else {
        return Ok(None);
    };
    wal.log_with_images(|rule| -> Result<Option<Lsn>, BtreeError> {
        let mut record = rule.record(RmgrId::BTREE, rtype);
        for after in pages {
            let image = after.fresh || rule.needs_image(after.old_lsn);
            record.register_page(after.page_id, image.then_some(&*after.page))?;
        }
        record.register_data(main)?;
        Ok(Some(rule.insert(&record)?.end_lsn))
    })
}
