//! The WAL record format and its encoding.
//!
//! A record is a byte string that starts 8-byte aligned in the log and may
//! span WAL pages and segments (the page headers are not part of the record;
//! see `wal_page.rs`). All integers are little-endian.
//!
//! Fixed header, [`RECORD_HEADER_SIZE`] = 24 bytes:
//!
//! | offset | size | field           | meaning                                                  |
//! |-------:|-----:|-----------------|----------------------------------------------------------|
//! | 0      | 4    | `total_len`     | bytes of the whole record (header + blocks + data), unpadded |
//! | 4      | 4    | `crc`           | CRC-32C, see below                                       |
//! | 8      | 8    | `prev_lsn`      | start LSN of the previous record (back-link); 0 for none |
//! | 16     | 1    | `rmgr`          | resource manager id ([`RmgrId`])                          |
//! | 17     | 1    | `rtype`         | record type, meaning defined by the resource manager     |
//! | 18     | 1    | `block_count`   | registered pages, at most [`MAX_BLOCKS`]                  |
//! | 19     | 1    | `flags`         | reserved, must be 0                                      |
//! | 20     | 4    | `main_data_len` | bytes of main data at the end of the record              |
//!
//! Then `block_count` block headers, [`BLOCK_HEADER_SIZE`] = 16 bytes each:
//!
//! | offset | size | field        | meaning                                          |
//! |-------:|-----:|--------------|--------------------------------------------------|
//! | 0      | 8    | `page_id`    | the registered page                              |
//! | 8      | 1    | `flags`      | bit 0 [`BLOCK_HAS_IMAGE`]: an 8192-byte full-page image follows |
//! | 9      | 3    | reserved     | must be 0                                        |
//! | 12     | 4    | `data_len`   | bytes of per-page data                           |
//!
//! Then, for each block in order, its image (if flagged, `PAGE_SIZE` bytes)
//! followed by its data; then the main data. `total_len` must equal the sum
//! exactly: a decoder accepts nothing else.
//!
//! CRC: CRC-32C over bytes `[24, total_len)` (blocks and data), continued
//! over bytes `[0, 4)` and `[8, 24)` (everything but the CRC field). The body
//! is checksummed first so the body CRC can be computed before the insert
//! position (and so `prev_lsn`) is known, as in PostgreSQL.

use folio_page::PAGE_SIZE;

/// Bytes of the fixed record header.
pub const RECORD_HEADER_SIZE: usize = 24;
/// Bytes of one block header.
pub const BLOCK_HEADER_SIZE: usize = 16;
/// Most pages one record can register (PostgreSQL's XLR_MAX_BLOCK_ID is 32 too).
pub const MAX_BLOCKS: usize = 32;
/// Largest record accepted by the builder and the decoder. Bounds the memory
/// a reader allocates for a corrupt length field.
pub const MAX_RECORD_BYTES: usize = 4 << 20;
/// Records start at multiples of this many bytes.
pub const RECORD_ALIGN: usize = 8;
/// Block flag: a full-page image of [`PAGE_SIZE`] bytes follows the header.
pub const BLOCK_HAS_IMAGE: u8 = 0x01;

const _: () = assert!(RECORD_HEADER_SIZE.is_multiple_of(RECORD_ALIGN));
const _: () = assert!(BLOCK_HEADER_SIZE.is_multiple_of(RECORD_ALIGN));
const _: () =
    assert!(RECORD_HEADER_SIZE + MAX_BLOCKS * (BLOCK_HEADER_SIZE + PAGE_SIZE) < MAX_RECORD_BYTES);
const _: () = assert!(MAX_RECORD_BYTES <= u32::MAX as usize);
const _: () = assert!(MAX_BLOCKS <= u8::MAX as usize);

/// Byte offsets inside the fixed header.
pub(crate) mod off {
    pub const TOTAL_LEN: usize = 0;
    pub const CRC: usize = 4;
    pub const PREV: usize = 8;
    pub const RMGR: usize = 16;
    pub const RTYPE: usize = 17;
    pub const BLOCK_COUNT: usize = 18;
    pub const FLAGS: usize = 19;
    pub const MAIN_LEN: usize = 20;
    // Inside a block header.
    pub const B_PAGE_ID: usize = 0;
    pub const B_FLAGS: usize = 8;
    pub const B_DATA_LEN: usize = 12;
}

/// A resource manager: the subsystem that owns a record type and its redo.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct RmgrId(pub u8);

impl RmgrId {
    /// The WAL's own records (no redo action; e.g. test and padding records).
    pub const XLOG: RmgrId = RmgrId(0);
    /// Transaction control: commit records (what makes changes durable) and checkpoints.
    pub const XACT: RmgrId = RmgrId(1);
    /// Page allocation: the meta page's high-water mark and the free list (buffer crate).
    pub const PAGE_ALLOC: RmgrId = RmgrId(2);
    /// The B+tree (btree crate).
    pub const BTREE: RmgrId = RmgrId(3);
    /// The transaction manager: CSN-log pages, commits and aborts (txn crate).
    pub const TXN: RmgrId = RmgrId(4);
    /// Heap tables: tuple versions (heap crate).
    pub const HEAP: RmgrId = RmgrId(5);
}

/// Rounds `len` up to the record alignment.
pub const fn align_record(len: u64) -> u64 {
    (len + RECORD_ALIGN as u64 - 1) & !(RECORD_ALIGN as u64 - 1)
}

/// Reads a little-endian u32 at `at`; the caller has checked the bounds.
pub(crate) fn get_u32(bytes: &[u8], at: usize) -> u32 {
    let mut b = [0u8; 4];
    b.copy_from_slice(&bytes[at..at + 4]);
    u32::from_le_bytes(b)
}

/// Reads a little-endian u64 at `at`; the caller has checked the bounds.
pub(crate) fn get_u64(bytes: &[u8], at: usize) -> u64 {
    let mut b = [0u8; 8];
    b.copy_from_slice(&bytes[at..at + 8]);
    u64::from_le_bytes(b)
}

/// Recomputes the CRC of the record that is exactly `bytes` (its header
/// and body, after a field was patched), as `seal_header` does for a WAL
/// page: for tools and fuzzers that build records byte by byte. Shorter
/// than a header: nothing to seal.
pub fn seal_record(bytes: &mut [u8]) {
    let Some((header, body)) = bytes.split_first_chunk_mut::<RECORD_HEADER_SIZE>() else {
        return;
    };
    let crc = record_crc(crc32c::crc32c(body), header);
    header[off::CRC..off::CRC + 4].copy_from_slice(&crc.to_le_bytes());
}

/// The CRC of a record: `body_crc` is CRC-32C of bytes `[24, total_len)`,
/// `header` the fixed header (its CRC field is skipped).
pub(crate) fn record_crc(body_crc: u32, header: &[u8; RECORD_HEADER_SIZE]) -> u32 {
    let crc = crc32c::crc32c_append(body_crc, &header[..off::CRC]);
    crc32c::crc32c_append(crc, &header[off::PREV..])
}
