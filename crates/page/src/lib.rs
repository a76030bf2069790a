//! folio's 8 KiB page: identifiers, the page header, the CRC-32C checksum and
//! the slotted item layout. Pure functions over byte arrays; no I/O, no
//! latches. The byte layout is documented in `layout.rs`.

mod checksum;
mod ids;
mod layout;
mod slotted;

pub use checksum::{ChecksumError, page_checksum, set_checksum, verify_checksum};
pub use ids::{Lsn, PageId};
pub use layout::{
    HEADER_SIZE, PAGE_SIZE, PageType, Page, header_lsn, init_page, is_zero_page, set_header_lsn,
};
pub use slotted::{SlotError, SlottedPage, SlottedPageMut};
