//! The page header: the first 24 bytes of every 8 KiB page.
//!
//! All fields are little-endian.
//!
//! | offset | size | field            | meaning                                                        |
//! |-------:|-----:|------------------|----------------------------------------------------------------|
//! |      0 |    8 | `lsn`            | LSN of the last WAL record that changed the page               |
//! |      8 |    4 | `checksum`       | CRC-32C of the page (field taken as 0), seeded with the page id |
//! |     12 |    2 | `flags`          | opaque bits owned by the layer that uses the page              |
//! |     14 |    1 | `page_type`      | [`PageType`]                                                   |
//! |     15 |    1 | `layout_version` | [`LAYOUT_VERSION`] (= 1)                                       |
//! |     16 |    2 | `lower`          | end of the slot array (first free byte after it)               |
//! |     18 |    2 | `upper`          | start of the item data (first used byte of the item area)      |
//! |     20 |    2 | `special`        | start of the special area (runs to the end of the page)        |
//! |     22 |    2 | `reserved`       | always 0                                                       |
//!
//! After the header: the slot array (growing up to `lower`), free space,
//! the items (growing down from `special` to `upper`) and the special area;
//! see `line_pointer.rs` for that part. An all-zero page is a page that was never
//! written ([`PageType::Zero`]).

use crate::Lsn;

/// Bytes in a page.
pub const PAGE_SIZE: usize = 8192;
/// Bytes in the page header.
pub const HEADER_SIZE: usize = 24;
/// The header layout this code writes and reads (`layout_version` field).
pub const LAYOUT_VERSION: u8 = 1;
/// The special area's size is rounded up to a multiple of this.
pub const SPECIAL_ALIGN: usize = 8;

/// Byte offset of the `lsn` field (u64).
pub const LSN_OFFSET: usize = 0;
/// Byte offset of the `checksum` field (u32).
pub const CHECKSUM_OFFSET: usize = 8;
/// Byte offset of the `flags` field (u16).
pub const FLAGS_OFFSET: usize = 12;
/// Byte offset of the `page_type` field (u8).
pub const PAGE_TYPE_OFFSET: usize = 14;
/// Byte offset of the `layout_version` field (u8).
pub const LAYOUT_VERSION_OFFSET: usize = 15;
/// Byte offset of the `lower` field (u16).
pub const LOWER_OFFSET: usize = 16;
/// Byte offset of the `upper` field (u16).
pub const UPPER_OFFSET: usize = 18;
/// Byte offset of the `special` field (u16).
pub const SPECIAL_OFFSET: usize = 20;
/// Byte offset of the `reserved` field (u16).
pub const RESERVED_OFFSET: usize = 22;

// The table above, pinned: each field starts where the previous one ends and
// the last one ends at HEADER_SIZE.
const _: () = assert!(LSN_OFFSET == 0);
const _: () = assert!(CHECKSUM_OFFSET == LSN_OFFSET + size_of::<u64>());
const _: () = assert!(FLAGS_OFFSET == CHECKSUM_OFFSET + size_of::<u32>());
const _: () = assert!(PAGE_TYPE_OFFSET == FLAGS_OFFSET + size_of::<u16>());
const _: () = assert!(LAYOUT_VERSION_OFFSET == PAGE_TYPE_OFFSET + size_of::<u8>());
const _: () = assert!(LOWER_OFFSET == LAYOUT_VERSION_OFFSET + size_of::<u8>());
const _: () = assert!(UPPER_OFFSET == LOWER_OFFSET + size_of::<u16>());
const _: () = assert!(SPECIAL_OFFSET == UPPER_OFFSET + size_of::<u16>());
const _: () = assert!(RESERVED_OFFSET == SPECIAL_OFFSET + size_of::<u16>());
const _: () = assert!(HEADER_SIZE == RESERVED_OFFSET + size_of::<u16>());
// Every in-page offset fits the u16 header fields, including PAGE_SIZE itself
// (an empty special area starts at PAGE_SIZE).
const _: () = assert!(PAGE_SIZE <= u16::MAX as usize);
const _: () =
    assert!(PAGE_SIZE.is_multiple_of(SPECIAL_ALIGN) && HEADER_SIZE.is_multiple_of(SPECIAL_ALIGN));

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
    /// A page of the transaction manager's CSN log (folio-txn).
    CsnLog = 6,
    /// A heap page: tuple versions on a line-pointer page (folio-heap).
    Heap = 7,
}

impl PageType {
    /// Decodes a stored `page_type` byte; `None` for a value no page type uses.
    pub const fn from_u8(value: u8) -> Option<PageType> {
        match value {
            0 => Some(PageType::Zero),
            1 => Some(PageType::Meta),
            2 => Some(PageType::Free),
            3 => Some(PageType::BtreeLeaf),
            4 => Some(PageType::BtreeInner),
            5 => Some(PageType::Raw),
            6 => Some(PageType::CsnLog),
            7 => Some(PageType::Heap),
            _ => None,
        }
    }
}

/// Initialises `page` as an empty page of `page_type` with a special
/// area of `special_size` bytes (rounded up to [`SPECIAL_ALIGN`]) at the end.
///
/// Every byte of the page is rewritten: the header gets `lower = HEADER_SIZE`,
/// `upper = special = PAGE_SIZE - special_size`, LSN, checksum and flags 0,
/// and the rest of the page (free space and special area) is zeroed.
///
/// # Panics
/// If `page_type` is [`PageType::Zero`] (reserved for never-written pages) or
/// the special area leaves no room for the header. Both are caller bugs with
/// constant arguments, never data from disk.
pub fn init_page(page: &mut Page, page_type: PageType, special_size: usize) {
    assert!(
        page_type != PageType::Zero,
        "init_page: PageType::Zero marks never-written pages"
    );
    let special_size = special_size.next_multiple_of(SPECIAL_ALIGN);
    assert!(
        special_size <= PAGE_SIZE - HEADER_SIZE,
        "init_page: special area of {special_size} bytes leaves no room for the header"
    );
    let special = PAGE_SIZE - special_size;

    page.fill(0);
    page[PAGE_TYPE_OFFSET] = page_type as u8;
    page[LAYOUT_VERSION_OFFSET] = LAYOUT_VERSION;
    write_u16(page, LOWER_OFFSET, HEADER_SIZE);
    write_u16(page, UPPER_OFFSET, special);
    write_u16(page, SPECIAL_OFFSET, special);
}

/// The page LSN.
pub fn header_lsn(page: &Page) -> Lsn {
    Lsn(u64::from_le_bytes(field(page, LSN_OFFSET)))
}

/// Sets the page LSN.
pub fn set_header_lsn(page: &mut Page, lsn: Lsn) {
    page[LSN_OFFSET..LSN_OFFSET + 8].copy_from_slice(&lsn.0.to_le_bytes());
}

/// The stored checksum field (not verified; see `verify_checksum`).
pub fn header_checksum(page: &Page) -> u32 {
    u32::from_le_bytes(field(page, CHECKSUM_OFFSET))
}

/// The `flags` field: bits owned by the layer that uses the page.
pub fn header_flags(page: &Page) -> u16 {
    u16::from_le_bytes(field(page, FLAGS_OFFSET))
}

/// Sets the `flags` field.
pub fn set_header_flags(page: &mut Page, flags: u16) {
    page[FLAGS_OFFSET..FLAGS_OFFSET + 2].copy_from_slice(&flags.to_le_bytes());
}

/// The page type, or `None` if the stored byte is not a known type (corrupt).
pub fn header_page_type(page: &Page) -> Option<PageType> {
    PageType::from_u8(page[PAGE_TYPE_OFFSET])
}

/// The stored `layout_version` byte ([`LAYOUT_VERSION`] on every initialised page).
pub fn header_layout_version(page: &Page) -> u8 {
    page[LAYOUT_VERSION_OFFSET]
}

/// The `lower` field: end of the line-pointer array. Unvalidated; `LinePointerPage::new` validates.
pub fn header_lower(page: &Page) -> usize {
    read_u16(page, LOWER_OFFSET)
}

/// The `upper` field: start of the item data. Unvalidated; `LinePointerPage::new` validates.
pub fn header_upper(page: &Page) -> usize {
    read_u16(page, UPPER_OFFSET)
}

/// The `special` field: start of the special area. Unvalidated; `LinePointerPage::new` validates.
pub fn header_special(page: &Page) -> usize {
    read_u16(page, SPECIAL_OFFSET)
}

/// True if every byte is zero (a page that was never written).
pub fn is_zero_page(page: &Page) -> bool {
    // OR-folding fixed-size chunks lets the compiler vectorise the scan; the
    // early exit per chunk keeps a non-zero page (the common case) cheap.
    page.chunks_exact(64)
        .all(|chunk| chunk.iter().fold(0u8, |acc, &b| acc | b) == 0)
}

/// The `N` bytes of the field at `offset` (a header constant, always in bounds).
fn field<const N: usize>(page: &Page, offset: usize) -> [u8; N] {
    let mut bytes = [0u8; N];
    bytes.copy_from_slice(&page[offset..offset + N]);
    bytes
}

/// Reads a little-endian u16 at `offset` as a usize.
pub(crate) fn read_u16(page: &Page, offset: usize) -> usize {
    usize::from(u16::from_le_bytes(field(page, offset)))
}

/// Writes `value` as a little-endian u16 at `offset`.
///
/// # Panics
/// If `value` does not fit in a u16: callers only store in-page offsets and
/// lengths, which always fit (`PAGE_SIZE <= u16::MAX`), so this is a bug.
pub(crate) fn write_u16(page: &mut Page, offset: usize, value: usize) {
    let value = u16::try_from(value).expect("in-page offsets and lengths fit in u16");
    page[offset..offset + 2].copy_from_slice(&value.to_le_bytes());
}

#[cfg(test)]
mod tests {
    use super::*;

    // Proves init_page writes the documented header values at the documented
    // offsets, rounds the special area up to 8 and zeroes the rest.
    #[test]
    fn init_page_writes_the_documented_header() {
        let mut page = [0xAAu8; PAGE_SIZE];
        init_page(&mut page, PageType::BtreeLeaf, 13);

        let special = PAGE_SIZE - 16;
        assert_eq!(header_lsn(&page), Lsn(0));
        assert_eq!(header_checksum(&page), 0);
        assert_eq!(header_flags(&page), 0);
        assert_eq!(header_page_type(&page), Some(PageType::BtreeLeaf));
        assert_eq!(header_layout_version(&page), LAYOUT_VERSION);
        assert_eq!(header_lower(&page), HEADER_SIZE);
        assert_eq!(header_upper(&page), special);
        assert_eq!(header_special(&page), special);
        assert_eq!(read_u16(&page, RESERVED_OFFSET), 0);
        // Raw bytes, so a change to the accessors cannot hide a layout change.
        assert_eq!(page[14], 3);
        assert_eq!(page[15], 1);
        assert_eq!(&page[16..22], &[24, 0, 0xF0, 0x1F, 0xF0, 0x1F]);
        assert!(page[HEADER_SIZE..].iter().all(|&b| b == 0));
    }

    // Proves the header setters are little-endian and touch only their field.
    #[test]
    fn header_setters_are_little_endian_and_local() {
        let mut page = [0u8; PAGE_SIZE];
        init_page(&mut page, PageType::Raw, 0);
        let before = page;
        set_header_lsn(&mut page, Lsn(0x0102_0304_0506_0708));
        set_header_flags(&mut page, 0xBEEF);
        assert_eq!(&page[0..8], &[8, 7, 6, 5, 4, 3, 2, 1]);
        assert_eq!(&page[12..14], &[0xEF, 0xBE]);
        assert_eq!(page[8..12], before[8..12]);
        assert_eq!(page[14..], before[14..]);
        assert_eq!(header_lsn(&page), Lsn(0x0102_0304_0506_0708));
        assert_eq!(header_flags(&page), 0xBEEF);
    }

    // Proves from_u8 inverts `as u8` for every type and rejects every other byte.
    #[test]
    fn page_type_round_trips() {
        let all = [
            PageType::Zero,
            PageType::Meta,
            PageType::Free,
            PageType::BtreeLeaf,
            PageType::BtreeInner,
            PageType::Raw,
            PageType::CsnLog,
            PageType::Heap,
        ];
        for t in all {
            assert_eq!(PageType::from_u8(t as u8), Some(t));
        }
        for byte in all.len() as u8..=u8::MAX {
            assert_eq!(PageType::from_u8(byte), None);
        }
    }

    // Proves is_zero_page sees a single non-zero byte anywhere in the page.
    #[test]
    fn is_zero_page_sees_any_byte() {
        let mut page = [0u8; PAGE_SIZE];
        assert!(is_zero_page(&page));
        for i in [0, 1, 63, 64, 4095, PAGE_SIZE - 1] {
            page[i] = 0x80;
            assert!(!is_zero_page(&page), "byte {i}");
            page[i] = 0;
        }
    }

    // Proves the largest special area is accepted and leaves an empty item area.
    #[test]
    fn init_page_accepts_largest_special_area() {
        let mut page = [0u8; PAGE_SIZE];
        init_page(&mut page, PageType::Meta, PAGE_SIZE - HEADER_SIZE);
        assert_eq!(header_special(&page), HEADER_SIZE);
        assert_eq!(header_upper(&page), HEADER_SIZE);
    }

    // Proves an oversized special area is refused as the caller bug it is.
    #[test]
    #[should_panic(expected = "no room for the header")]
    fn init_page_rejects_oversized_special_area() {
        let mut page = [0u8; PAGE_SIZE];
        init_page(&mut page, PageType::Raw, PAGE_SIZE - HEADER_SIZE + 1);
    }
}
