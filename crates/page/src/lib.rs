//! folio's 8 KiB page: identifiers, the page header, the CRC-32C checksum and
//! the line-pointer page the heap stores items in. Pure functions over byte
//! arrays; no I/O, no latches. The byte layouts are documented in
//! `layout.rs` (header), `line_pointer.rs` (line pointers) and the crate
//! README.

mod checksum;
mod ids;
mod layout;
mod line_pointer;

pub use checksum::{ChecksumError, page_checksum, set_checksum, verify_checksum};
pub use ids::{Lsn, PageId};
pub use layout::{
    CHECKSUM_OFFSET, FLAGS_OFFSET, HEADER_SIZE, LAYOUT_VERSION, LAYOUT_VERSION_OFFSET,
    LOWER_OFFSET, LSN_OFFSET, PAGE_SIZE, PAGE_TYPE_OFFSET, Page, PageType, RESERVED_OFFSET,
    SPECIAL_ALIGN, SPECIAL_OFFSET, UPPER_OFFSET, header_checksum, header_flags,
    header_layout_version, header_lower, header_lsn, header_page_type, header_special,
    header_upper, init_page, is_zero_page, set_header_flags, set_header_lsn,
};
pub use line_pointer::{
    FLAG_HAS_FREE_LINES, ItemId, LINE_POINTER_SIZE, LineBounds, LinePointerPage,
    LinePointerPageMut, LineState, LpError, MAX_LINE_POINTERS,
};
