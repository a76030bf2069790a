//! CRC-32C page checksums, seeded with the page id.

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
    let _ = (page, page_id);
    todo!("folio-page helper")
}

/// Stores the checksum in the header.
pub fn set_checksum(page: &mut Page, page_id: PageId) {
    let _ = (page, page_id);
    todo!("folio-page helper")
}

/// Verifies the stored checksum. An all-zero page (never written) verifies.
pub fn verify_checksum(page: &Page, page_id: PageId) -> Result<(), ChecksumError> {
    let _ = (page, page_id);
    todo!("folio-page helper")
}
