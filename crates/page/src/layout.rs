//! The page header. (folio-page helper: replace this with the real layout and
//! the offset/size/meaning table.)

use crate::Lsn;

/// Bytes in a page.
pub const PAGE_SIZE: usize = 8192;
/// Bytes in the page header.
pub const HEADER_SIZE: usize = 24;

/// A page's bytes.
pub type Page = [u8; PAGE_SIZE];

/// What a page holds; stored in the header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum PageType {
    /// Never initialised (all zeros).
    Zero = 0,
    /// The database's meta page (page 0).
    Meta = 1,
    /// On the free list.
    Free = 2,
    /// B+tree leaf.
    BtreeLeaf = 3,
    /// B+tree inner node.
    BtreeInner = 4,
    /// Raw test/benchmark payload.
    Raw = 5,
}

/// Initialises `page` as an empty slotted page of `page_type` with a special
/// area of `special_size` bytes at the end.
pub fn init_page(page: &mut Page, page_type: PageType, special_size: usize) {
    let _ = (page, page_type, special_size);
    todo!("folio-page helper")
}

/// The page LSN.
pub fn header_lsn(page: &Page) -> Lsn {
    let _ = page;
    todo!("folio-page helper")
}

/// Sets the page LSN.
pub fn set_header_lsn(page: &mut Page, lsn: Lsn) {
    let _ = (page, lsn);
    todo!("folio-page helper")
}

/// True if every byte is zero (a page that was never written).
pub fn is_zero_page(page: &Page) -> bool {
    let _ = page;
    todo!("folio-page helper")
}
