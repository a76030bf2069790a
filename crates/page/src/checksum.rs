//! CRC-32C page checksums, seeded with the page id.
//!
//! Definition (the README gives the rationale):
//!
//! ```text
//! checksum(page, id) = crc32c( id.to_le_bytes()      // 8 bytes: the seed
//!                           || page[0..8]            // lsn
//!                           || [0, 0, 0, 0]          // the checksum field, taken as zero
//!                           || page[12..8192] )      // rest of the page
//! ```
//!
//! computed with the `crc32c` crate (SSE 4.2 / ARMv8 CRC instructions when the
//! CPU has them) in four appends, so the page is never copied.
//!
//! An all-zero page verifies whatever its id: it is a page that was never
//! written (a hole in the file, or a file extended but not yet filled), as in
//! PostgreSQL's `PageIsNew` rule. Callers must treat it as uninitialised, not
//! as a valid page with content. Any single-bit flip of a written page is
//! still detected, because a written page has many bits set.

use crate::layout::{CHECKSUM_OFFSET, header_checksum, is_zero_page};
use crate::{Page, PageId};

/// A page failed verification.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("checksum mismatch on {page_id}: stored {stored:#010x}, computed {computed:#010x}")]
pub struct ChecksumError {
    pub page_id: PageId,
    pub stored: u32,
    pub computed: u32,
}

/// CRC-32C over the page with the checksum field taken as zero, seeded with the page id.
pub fn page_checksum(page: &Page, page_id: PageId) -> u32 {
    const ZERO_FIELD: [u8; 4] = [0; 4];
    let crc = crc32c::crc32c(&page_id.0.to_le_bytes());
    let crc = crc32c::crc32c_append(crc, &page[..CHECKSUM_OFFSET]);
    let crc = crc32c::crc32c_append(crc, &ZERO_FIELD);
    crc32c::crc32c_append(crc, &page[CHECKSUM_OFFSET + ZERO_FIELD.len()..])
}

/// Stores the checksum in the header. Call it last, just before the page is
/// written: any later change to the page invalidates it.
pub fn set_checksum(page: &mut Page, page_id: PageId) {
    let checksum = page_checksum(page, page_id);
    page[CHECKSUM_OFFSET..CHECKSUM_OFFSET + 4].copy_from_slice(&checksum.to_le_bytes());
}

/// Verifies the stored checksum. An all-zero page (never written) verifies.
pub fn verify_checksum(page: &Page, page_id: PageId) -> Result<(), ChecksumError> {
    let stored = header_checksum(page);
    let computed = page_checksum(page, page_id);
    // The zero-page test runs only on a mismatch: it would cost a second pass
    // over every page read, and a written page never needs it.
    if stored == computed || is_zero_page(page) {
        Ok(())
    } else {
        Err(ChecksumError {
            page_id,
            stored,
            computed,
        })
    }
}
