//! WAL logging of the allocation state (meta page and free list) through a
//! hook, so the buffer crate never depends on the WAL crate, and the pure
//! redo of those records (rmgr `PAGE_ALLOC` in folio-wal's numbering).
//!
//! Protocol (the PostgreSQL critical-section rule): `allocate`, `free` and
//! `set_meta_root` hold the meta page (and, for `free`, the freed page)
//! exclusively, remember each page's LSN, change the pages, then call
//! [`MetaLogger::log`] with the changed pages; the logger inserts one record
//! and returns its end LSN, which is stamped on every changed page before
//! the latches are released. If the logger fails (WAL full, poisoned), the
//! pages are restored from copies taken before the change and the error
//! reaches the caller: nothing unlogged is ever visible.
//!
//! Record payloads. Block 0 is always the meta page; its data is a snapshot
//! of the allocation fields *after* the change, so its redo is one overwrite
//! (idempotent, independent of the page's previous contents):
//!
//! | offset | size | field      | meaning                                  |
//! |-------:|-----:|------------|------------------------------------------|
//! |      0 |    8 | page_count | high-water mark after the change         |
//! |      8 |    8 | free_head  | first free page after the change, 0 none |
//! |     16 |    8 | free_count | pages on the free list after the change  |
//! |     24 |   64 | roots      | the 8 root slots after the change        |
//!
//! `FREE` records register the freed page as block 1 with 8 bytes of data:
//! its `next` link (u64). Redo re-initialises the page as a free page.
//!
//! The page handed out by `allocate` is not registered: it comes back zeroed
//! (LSN 0), so the caller's first logged change of it always carries a
//! full-page image. A crash between the allocation record and that change
//! leaks the page (it is neither on the free list nor used): documented, not
//! corruption.

use crate::meta::{FREE_MAGIC, FREE_MAGIC_AT, FREE_NEXT_AT, FREE_SIZE, MAGIC_AT, META_MAGIC};
use folio_page::{Lsn, PAGE_SIZE, Page, PageId, PageType};

/// `allocate` extended the file: `page_count` grew by one.
pub const ALLOC_EXTEND: u8 = 1;
/// `allocate` popped the free list.
pub const ALLOC_POP: u8 = 2;
/// `free` pushed a page on the free list (block 1: the freed page).
pub const ALLOC_FREE: u8 = 3;
/// `set_meta_root` changed a root slot.
pub const ALLOC_SET_ROOT: u8 = 4;

/// Bytes of the meta snapshot carried by block 0.
pub const META_SNAPSHOT_SIZE: usize = 88;
/// Bytes of the freed page's data (block 1 of `ALLOC_FREE`).
pub const FREE_DATA_SIZE: usize = 8;

/// Offset in the meta page of the first snapshotted field (`page_count`);
/// the snapshot is the contiguous range `[SNAPSHOT_AT, SNAPSHOT_AT + 88)`.
const SNAPSHOT_AT: usize = crate::meta::PAGE_COUNT_AT;
const _: () = assert!(SNAPSHOT_AT + META_SNAPSHOT_SIZE == crate::meta::ROOTS_AT + 64);
const _: () = assert!(SNAPSHOT_AT + META_SNAPSHOT_SIZE <= PAGE_SIZE);

/// One page changed by an allocation-state change, as the logger sees it.
#[derive(Debug, Clone, Copy)]
pub struct MetaPageChange<'a> {
    pub page_id: PageId,
    /// The page after the change (for a full-page image).
    pub page: &'a Page,
    /// The page's LSN before the change (for the full-page-image rule).
    pub old_lsn: Lsn,
    /// The block's redo data (layouts in the module documentation).
    pub data: &'a [u8],
}

/// Logs allocation-state changes. Installed with
/// [`crate::BufferPool::set_meta_logger`]; without one the pool is unlogged.
///
/// Called while the changed pages are exclusively latched. It must insert
/// one record of resource manager `PAGE_ALLOC` and type `rtype` registering
/// `pages` in order (each with its data, and a full-page image when the WAL
/// asks for one) and return the record's end LSN. It must not take page
/// latches; it may wait for WAL buffer space but must give up with an error
/// rather than wait for a checkpoint indefinitely.
pub trait MetaLogger: Send + Sync + std::fmt::Debug {
    fn log(
        &self,
        rtype: u8,
        pages: &[MetaPageChange<'_>],
    ) -> Result<Lsn, Box<dyn std::error::Error + Send + Sync>>;
}

/// A `PAGE_ALLOC` block could not be redone.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("page-allocation redo of record type {rtype}, block {block}: {reason}")]
pub struct AllocRedoError {
    pub rtype: u8,
    pub block: usize,
    pub reason: &'static str,
}

/// The snapshot of the allocation fields of a meta page (block 0's data).
pub(crate) fn meta_snapshot(meta: &Page) -> [u8; META_SNAPSHOT_SIZE] {
    let mut out = [0u8; META_SNAPSHOT_SIZE];
    out.copy_from_slice(&meta[SNAPSHOT_AT..SNAPSHOT_AT + META_SNAPSHOT_SIZE]);
    out
}

/// Redo of block `block` of a `PAGE_ALLOC` record of type `rtype` with block
/// data `data` on `page` (the driver does the page-LSN check and stamps the
/// LSN). Pure: depends only on its arguments.
pub fn redo_alloc_block(
    rtype: u8,
    block: usize,
    data: &[u8],
    page: &mut Page,
) -> Result<(), AllocRedoError> {
    let fail = |reason| AllocRedoError {
        rtype,
        block,
        reason,
    };
    if !matches!(
        rtype,
        ALLOC_EXTEND | ALLOC_POP | ALLOC_FREE | ALLOC_SET_ROOT
    ) {
        return Err(fail("unknown record type"));
    }
    match block {
        0 => {
            if data.len() != META_SNAPSHOT_SIZE {
                return Err(fail("meta snapshot has the wrong size"));
            }
            if page[MAGIC_AT..MAGIC_AT + 8] != META_MAGIC {
                return Err(fail("block 0 is not a meta page"));
            }
            page[SNAPSHOT_AT..SNAPSHOT_AT + META_SNAPSHOT_SIZE].copy_from_slice(data);
            Ok(())
        }
        1 if rtype == ALLOC_FREE => {
            let next: [u8; FREE_DATA_SIZE] = data
                .try_into()
                .map_err(|_| fail("free data has the wrong size"))?;
            init_free_page(page, u64::from_le_bytes(next));
            Ok(())
        }
        _ => Err(fail("no such block for this record type")),
    }
}

/// Formats `page` as a free page whose list successor is `next`.
pub(crate) fn init_free_page(page: &mut Page, next: u64) {
    folio_page::init_page(page, PageType::Free, FREE_SIZE);
    page[FREE_NEXT_AT..FREE_NEXT_AT + 8].copy_from_slice(&next.to_le_bytes());
    page[FREE_MAGIC_AT..FREE_MAGIC_AT + 8].copy_from_slice(&FREE_MAGIC);
}

/// The name of a `PAGE_ALLOC` record type, for `folio waldump`.
pub fn alloc_type_name(rtype: u8) -> &'static str {
    match rtype {
        ALLOC_EXTEND => "EXTEND",
        ALLOC_POP => "POP",
        ALLOC_FREE => "FREE",
        ALLOC_SET_ROOT => "SET_ROOT",
        _ => "UNKNOWN",
    }
}

/// One line describing a `PAGE_ALLOC` record from its block 0 data (the meta
/// snapshot) and, for `FREE`, the freed page, for `folio waldump`.
pub fn describe_alloc(rtype: u8, meta_data: &[u8], freed: Option<PageId>) -> String {
    let field = |i: usize| {
        meta_data
            .get(i * 8..i * 8 + 8)
            .and_then(|b| b.try_into().ok())
            .map(u64::from_le_bytes)
    };
    let (Some(count), Some(head), Some(free)) = (field(0), field(1), field(2)) else {
        return format!("{} (malformed meta snapshot)", alloc_type_name(rtype));
    };
    let freed = freed.map(|p| format!(" freed {p}")).unwrap_or_default();
    format!(
        "{}{freed}: page_count {count} free_head {head} free_count {free}",
        alloc_type_name(rtype)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    // Proves the redo functions are pure and reject what they cannot apply:
    // a snapshot overwrites exactly the allocation fields of a meta page, a
    // free block formats a free page, and wrong sizes, a non-meta page or an
    // unknown type are errors, never panics.
    #[test]
    fn redo_applies_snapshot_and_rejects_bad_input() {
        let mut meta = [0u8; PAGE_SIZE];
        meta[MAGIC_AT..MAGIC_AT + 8].copy_from_slice(&META_MAGIC);
        let mut snapshot = [0u8; META_SNAPSHOT_SIZE];
        snapshot[..8].copy_from_slice(&7u64.to_le_bytes());
        snapshot[8..16].copy_from_slice(&3u64.to_le_bytes());
        let before = meta;
        redo_alloc_block(ALLOC_POP, 0, &snapshot, &mut meta).unwrap();
        assert_eq!(meta_snapshot(&meta), snapshot);
        assert_eq!(meta[..SNAPSHOT_AT], before[..SNAPSHOT_AT]);
        let mut page = [0u8; PAGE_SIZE];
        redo_alloc_block(ALLOC_FREE, 1, &9u64.to_le_bytes(), &mut page).unwrap();
        assert_eq!(page[FREE_MAGIC_AT..FREE_MAGIC_AT + 8], FREE_MAGIC);
        assert_eq!(page[FREE_NEXT_AT], 9);
        let mut zero = [0u8; PAGE_SIZE];
        assert!(redo_alloc_block(ALLOC_POP, 0, &snapshot, &mut zero).is_err());
        assert!(redo_alloc_block(ALLOC_POP, 0, &snapshot[..8], &mut meta).is_err());
        assert!(redo_alloc_block(ALLOC_POP, 1, &[0; 8], &mut page).is_err());
        assert!(redo_alloc_block(99, 0, &snapshot, &mut meta).is_err());
        assert!(redo_alloc_block(ALLOC_FREE, 1, &[1, 2], &mut page).is_err());
        assert!(describe_alloc(ALLOC_FREE, &snapshot, Some(PageId(4))).contains("freed"));
        assert!(describe_alloc(ALLOC_FREE, &[1], None).contains("malformed"));
    }
}
