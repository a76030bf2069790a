//! WAL pages: the header every 8 KiB page of a segment starts with, and the
//! arithmetic between LSNs and "usable byte positions".
//!
//! An LSN is a byte offset in the log, page headers included (segment `s`
//! holds LSNs `[s * segment_size, (s + 1) * segment_size)`). Insertion
//! reserves space in *usable bytes* (page headers excluded), so reserving is
//! one addition; [`bytepos_to_lsn`] converts.
//!
//! Page header, [`WAL_PAGE_HEADER_SIZE`] = 48 bytes, little-endian:
//!
//! | offset | size | field         | meaning                                                      |
//! |-------:|-----:|---------------|--------------------------------------------------------------|
//! | 0      | 4    | `magic`       | [`WAL_PAGE_MAGIC`]                                           |
//! | 4      | 2    | `version`     | [`WAL_PAGE_VERSION`]                                         |
//! | 6      | 2    | `flags`       | bit 0 [`PAGE_FLAG_CONT`]: the page starts inside a record    |
//! | 8      | 8    | `page_addr`   | LSN of this page's first byte: its own address               |
//! | 16     | 8    | `system_id`   | random id of this WAL, from `wal.meta`                       |
//! | 24     | 8    | `synced_upto` | LSN below which the log was durable when this page was written |
//! | 32     | 4    | `cont_len`    | bytes of the continued record still to come (0 without CONT) |
//! | 36     | 4    | `generation`  | open count of the WAL when this page was written             |
//! | 40     | 4    | `timeline`    | timeline id (1; reserved for point-in-time recovery)         |
//! | 44     | 4    | `header_crc`  | CRC-32C of bytes `[0, 44)`                                   |
//!
//! A page is *valid at address A* when magic, version, system id and
//! timeline match, `page_addr == A` and the CRC holds. Stale bytes of a
//! recycled segment carry an older address, a zeroed page has no magic:
//! both read as the end of the WAL.

use crate::record::{RECORD_ALIGN, get_u32, get_u64};
use folio_page::Lsn;

/// Bytes of a WAL page.
pub const WAL_PAGE_SIZE: usize = 8192;
/// Bytes of a WAL page header.
pub const WAL_PAGE_HEADER_SIZE: usize = 48;
/// Usable (record) bytes per WAL page.
pub const WAL_PAGE_PAYLOAD: usize = WAL_PAGE_SIZE - WAL_PAGE_HEADER_SIZE;
/// "FWAL" little-endian.
pub const WAL_PAGE_MAGIC: u32 = u32::from_le_bytes(*b"FWAL");
/// Page format version.
pub const WAL_PAGE_VERSION: u16 = 1;
/// Page flag: the page starts with the continuation of a record.
pub const PAGE_FLAG_CONT: u16 = 0x0001;
/// The only timeline so far.
pub const TIMELINE: u32 = 1;

// Records are aligned in usable-byte space; a payload that is a multiple of
// the alignment keeps LSNs aligned too and keeps padding inside one page, and
// guarantees a record's 8-byte length+CRC prefix never spans pages.
const _: () = assert!(WAL_PAGE_PAYLOAD.is_multiple_of(RECORD_ALIGN));
const _: () = assert!(WAL_PAGE_HEADER_SIZE.is_multiple_of(RECORD_ALIGN));
const _: () = assert!(WAL_PAGE_HEADER_SIZE <= 512, "header must lie in one sector");

pub(crate) mod off {
    pub const MAGIC: usize = 0;
    pub const VERSION: usize = 4;
    pub const FLAGS: usize = 6;
    pub const PAGE_ADDR: usize = 8;
    pub const SYSTEM_ID: usize = 16;
    pub const SYNCED_UPTO: usize = 24;
    pub const CONT_LEN: usize = 32;
    pub const GENERATION: usize = 36;
    pub const TIMELINE: usize = 40;
    pub const CRC: usize = 44;
}

/// A decoded page header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WalPageHeader {
    pub flags: u16,
    pub page_addr: Lsn,
    pub system_id: u64,
    pub synced_upto: Lsn,
    pub cont_len: u32,
    pub generation: u32,
    pub timeline: u32,
}

impl WalPageHeader {
    /// Writes the header into the first bytes of `page`, with its CRC.
    pub fn write_to(&self, page: &mut [u8]) {
        let h = &mut page[..WAL_PAGE_HEADER_SIZE];
        h[off::MAGIC..off::MAGIC + 4].copy_from_slice(&WAL_PAGE_MAGIC.to_le_bytes());
        h[off::VERSION..off::VERSION + 2].copy_from_slice(&WAL_PAGE_VERSION.to_le_bytes());
        h[off::FLAGS..off::FLAGS + 2].copy_from_slice(&self.flags.to_le_bytes());
        h[off::PAGE_ADDR..off::PAGE_ADDR + 8].copy_from_slice(&self.page_addr.0.to_le_bytes());
        h[off::SYSTEM_ID..off::SYSTEM_ID + 8].copy_from_slice(&self.system_id.to_le_bytes());
        h[off::SYNCED_UPTO..off::SYNCED_UPTO + 8]
            .copy_from_slice(&self.synced_upto.0.to_le_bytes());
        h[off::CONT_LEN..off::CONT_LEN + 4].copy_from_slice(&self.cont_len.to_le_bytes());
        h[off::GENERATION..off::GENERATION + 4].copy_from_slice(&self.generation.to_le_bytes());
        h[off::TIMELINE..off::TIMELINE + 4].copy_from_slice(&self.timeline.to_le_bytes());
        seal_header(page);
    }

    /// Parses and checks the header of `page` (at least the header's bytes):
    /// `None` unless magic, version and CRC hold.
    pub fn parse(page: &[u8]) -> Option<WalPageHeader> {
        if page.len() < WAL_PAGE_HEADER_SIZE {
            return None;
        }
        let h = &page[..WAL_PAGE_HEADER_SIZE];
        if get_u32(h, off::MAGIC) != WAL_PAGE_MAGIC
            || u16::from_le_bytes([h[off::VERSION], h[off::VERSION + 1]]) != WAL_PAGE_VERSION
            || get_u32(h, off::CRC) != crc32c::crc32c(&h[..off::CRC])
        {
            return None;
        }
        Some(WalPageHeader {
            flags: u16::from_le_bytes([h[off::FLAGS], h[off::FLAGS + 1]]),
            page_addr: Lsn(get_u64(h, off::PAGE_ADDR)),
            system_id: get_u64(h, off::SYSTEM_ID),
            synced_upto: Lsn(get_u64(h, off::SYNCED_UPTO)),
            cont_len: get_u32(h, off::CONT_LEN),
            generation: get_u32(h, off::GENERATION),
            timeline: get_u32(h, off::TIMELINE),
        })
    }
}

/// Recomputes the header CRC of `page` (after a field was patched).
pub fn seal_header(page: &mut [u8]) {
    let crc = crc32c::crc32c(&page[..off::CRC]);
    page[off::CRC..off::CRC + 4].copy_from_slice(&crc.to_le_bytes());
}

/// Patches `synced_upto` and reseals (the writer does this in its private
/// copy of a page just before writing it).
pub fn set_synced_upto(page: &mut [u8], synced_upto: Lsn) {
    page[off::SYNCED_UPTO..off::SYNCED_UPTO + 8].copy_from_slice(&synced_upto.0.to_le_bytes());
    seal_header(page);
}

/// The LSN of usable byte `pos` when a record *starts* there.
pub const fn bytepos_to_lsn(pos: u64) -> Lsn {
    let page = pos / WAL_PAGE_PAYLOAD as u64;
    let in_page = pos % WAL_PAGE_PAYLOAD as u64;
    Lsn(page * WAL_PAGE_SIZE as u64 + WAL_PAGE_HEADER_SIZE as u64 + in_page)
}

/// The LSN of usable byte `pos` when something *ends* there: a position at
/// a page's payload boundary maps to the next page's first byte, not past
/// its header.
pub const fn bytepos_to_end_lsn(pos: u64) -> Lsn {
    let page = pos / WAL_PAGE_PAYLOAD as u64;
    let in_page = pos % WAL_PAGE_PAYLOAD as u64;
    if in_page == 0 && pos != 0 {
        Lsn(page * WAL_PAGE_SIZE as u64)
    } else {
        Lsn(page * WAL_PAGE_SIZE as u64 + WAL_PAGE_HEADER_SIZE as u64 + in_page)
    }
}

/// Inverse of [`bytepos_to_lsn`] / [`bytepos_to_end_lsn`]. An LSN inside a
/// page header maps to the page's first usable byte.
pub const fn lsn_to_bytepos(lsn: Lsn) -> u64 {
    let page = lsn.0 / WAL_PAGE_SIZE as u64;
    let in_page = lsn.0 % WAL_PAGE_SIZE as u64;
    let usable = in_page.saturating_sub(WAL_PAGE_HEADER_SIZE as u64);
    page * WAL_PAGE_PAYLOAD as u64 + usable
}

#[cfg(test)]
mod tests {
    use super::*;

    // Proves the LSN/byte-position conversions are inverse and handle page
    // boundaries the way the reader expects.
    #[test]
    fn bytepos_lsn_round_trip() {
        let p = WAL_PAGE_PAYLOAD as u64;
        assert_eq!(bytepos_to_lsn(0), Lsn(WAL_PAGE_HEADER_SIZE as u64));
        assert_eq!(bytepos_to_end_lsn(p), Lsn(WAL_PAGE_SIZE as u64));
        assert_eq!(
            bytepos_to_lsn(p),
            Lsn((WAL_PAGE_SIZE + WAL_PAGE_HEADER_SIZE) as u64)
        );
        for pos in [0, 8, p - 8, p, p + 8, 5 * p, 5 * p + 16] {
            assert_eq!(lsn_to_bytepos(bytepos_to_lsn(pos)), pos);
            assert_eq!(lsn_to_bytepos(bytepos_to_end_lsn(pos)), pos);
        }
    }

    // Proves a header round-trips and that any changed byte makes it invalid.
    #[test]
    fn header_round_trip_and_crc() {
        let h = WalPageHeader {
            flags: PAGE_FLAG_CONT,
            page_addr: Lsn(3 * WAL_PAGE_SIZE as u64),
            system_id: 77,
            synced_upto: Lsn(100),
            cont_len: 9,
            generation: 2,
            timeline: TIMELINE,
        };
        let mut page = vec![0u8; WAL_PAGE_SIZE];
        h.write_to(&mut page);
        assert_eq!(WalPageHeader::parse(&page), Some(h));
        for i in 0..WAL_PAGE_HEADER_SIZE {
            let mut bad = page.clone();
            bad[i] ^= 0x10;
            assert_eq!(WalPageHeader::parse(&bad), None, "byte {i}");
        }
        assert_eq!(WalPageHeader::parse(&[0u8; WAL_PAGE_SIZE]), None);
    }
}
