//! Decoding one record from its bytes. Every length is checked before it is
//! used, so arbitrary input yields an error, never a panic (proptest in
//! `tests/decode.rs`).

use crate::record::{
    BLOCK_HAS_IMAGE, BLOCK_HEADER_SIZE, MAX_BLOCKS, MAX_RECORD_BYTES, RECORD_HEADER_SIZE, RmgrId,
    get_u32, get_u64, off, record_crc,
};
use folio_page::{Lsn, PAGE_SIZE, Page, PageId};

/// Why a byte string is not a valid record.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DecodeError {
    #[error("record shorter than its header ({len} bytes)")]
    TooShort { len: usize },
    #[error("record length {total_len} out of range")]
    BadLength { total_len: u32 },
    #[error("record length {total_len} does not match the {available} bytes given")]
    LengthMismatch { total_len: u32, available: usize },
    #[error("record CRC mismatch: stored {stored:#010x}, computed {computed:#010x}")]
    BadCrc { stored: u32, computed: u32 },
    #[error("record layout invalid: {what}")]
    BadLayout { what: &'static str },
}

/// One registered page of a decoded record, borrowing the record's bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BlockView<'a> {
    pub page_id: PageId,
    /// The full-page image, when the record carries one.
    pub image: Option<&'a Page>,
    /// Per-page data registered with the block.
    pub data: &'a [u8],
}

/// A decoded record borrowing its bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordView<'a> {
    pub prev_lsn: Lsn,
    pub rmgr: RmgrId,
    pub rtype: u8,
    pub blocks: Vec<BlockView<'a>>,
    pub data: &'a [u8],
}

/// Reads the `total_len` field of a record header, if at least 4 bytes are given.
pub fn peek_total_len(bytes: &[u8]) -> Option<u32> {
    (bytes.len() >= 4).then(|| get_u32(bytes, off::TOTAL_LEN))
}

/// Whether `total_len` can be the length of a record.
pub fn plausible_total_len(total_len: u32) -> bool {
    (RECORD_HEADER_SIZE..=MAX_RECORD_BYTES).contains(&(total_len as usize))
}

/// Decodes the record that is exactly `bytes` (no padding), checking the
/// length, the CRC and the layout.
pub fn decode_record(bytes: &[u8]) -> Result<RecordView<'_>, DecodeError> {
    verify(bytes)?;
    let mut blocks = Vec::new();
    let head = decode_layout(bytes, |page_id, image, data| {
        blocks.push(BlockView {
            page_id,
            image,
            data,
        })
    })?;
    Ok(RecordView {
        prev_lsn: head.prev_lsn,
        rmgr: head.rmgr,
        rtype: head.rtype,
        blocks,
        data: head.data,
    })
}

/// Decodes `bytes` (one whole record, as [`decode_record`]) into `record`,
/// reusing its allocations: replay decodes millions of records into a few
/// recycled ones instead of allocating each. On error `record` holds
/// garbage.
pub fn decode_record_into(
    bytes: &[u8],
    record: &mut Record,
    lsn: Lsn,
    end_lsn: Lsn,
) -> Result<(), DecodeError> {
    verify(bytes)?;
    let mut used = 0;
    let blocks = &mut record.blocks;
    let head = decode_layout(bytes, |page_id, image, data| {
        if let Some(block) = blocks.get_mut(used) {
            block.page_id = page_id;
            block.data.clear();
            block.data.extend_from_slice(data);
            match (image, &mut block.image) {
                (Some(image), Some(kept)) => kept.copy_from_slice(image),
                (image, kept) => *kept = image.map(|p| Box::new(*p)),
            }
        } else {
            blocks.push(Block {
                page_id,
                image: image.map(|p| Box::new(*p)),
                data: data.to_vec(),
            });
        }
        used += 1;
    })?;
    record.blocks.truncate(used);
    record.lsn = lsn;
    record.end_lsn = end_lsn;
    record.prev_lsn = head.prev_lsn;
    record.rmgr = head.rmgr;
    record.rtype = head.rtype;
    record.data.clear();
    record.data.extend_from_slice(head.data);
    record.total_len = bytes.len() as u32;
    Ok(())
}

/// Checks the length fields and the CRC of a whole record.
fn verify(bytes: &[u8]) -> Result<(), DecodeError> {
    if bytes.len() < RECORD_HEADER_SIZE {
        return Err(DecodeError::TooShort { len: bytes.len() });
    }
    let total_len = get_u32(bytes, off::TOTAL_LEN);
    if !plausible_total_len(total_len) {
        return Err(DecodeError::BadLength { total_len });
    }
    if total_len as usize != bytes.len() {
        return Err(DecodeError::LengthMismatch {
            total_len,
            available: bytes.len(),
        });
    }
    let header: &[u8; RECORD_HEADER_SIZE] = bytes[..RECORD_HEADER_SIZE]
        .try_into()
        .map_err(|_| DecodeError::TooShort { len: bytes.len() })?;
    let stored = get_u32(bytes, off::CRC);
    let computed = record_crc(crc32c::crc32c(&bytes[RECORD_HEADER_SIZE..]), header);
    if stored != computed {
        return Err(DecodeError::BadCrc { stored, computed });
    }
    Ok(())
}

/// The record header's fields and main data, as [`decode_layout`] finds them.
struct Head<'a> {
    prev_lsn: Lsn,
    rmgr: RmgrId,
    rtype: u8,
    data: &'a [u8],
}

/// Splits a CRC-verified record into blocks (handed to `on_block` in order:
/// page id, image, data) and main data.
fn decode_layout<'a>(
    bytes: &'a [u8],
    mut on_block: impl FnMut(PageId, Option<&'a Page>, &'a [u8]),
) -> Result<Head<'a>, DecodeError> {
    let bad = |what| DecodeError::BadLayout { what };
    if bytes[off::FLAGS] != 0 {
        return Err(bad("reserved record flags set"));
    }
    let block_count = bytes[off::BLOCK_COUNT] as usize;
    if block_count > MAX_BLOCKS {
        return Err(bad("too many blocks"));
    }
    let main_len = get_u32(bytes, off::MAIN_LEN) as usize;
    let headers_end = RECORD_HEADER_SIZE + block_count * BLOCK_HEADER_SIZE;
    if headers_end > bytes.len() {
        return Err(bad("block headers past the end"));
    }
    let mut payload_at = headers_end;
    for i in 0..block_count {
        let h = &bytes[RECORD_HEADER_SIZE + i * BLOCK_HEADER_SIZE..][..BLOCK_HEADER_SIZE];
        let flags = h[off::B_FLAGS];
        if flags & !BLOCK_HAS_IMAGE != 0 || h[9..12] != [0, 0, 0] {
            return Err(bad("reserved block flags set"));
        }
        let page_id = PageId(get_u64(h, off::B_PAGE_ID));
        let data_len = get_u32(h, off::B_DATA_LEN) as usize;
        let image = if flags & BLOCK_HAS_IMAGE != 0 {
            let end = payload_at
                .checked_add(PAGE_SIZE)
                .filter(|&e| e <= bytes.len());
            let end = end.ok_or(bad("page image past the end"))?;
            let image: &Page = bytes[payload_at..end]
                .try_into()
                .map_err(|_| bad("page image"))?;
            payload_at = end;
            Some(image)
        } else {
            None
        };
        let end = payload_at
            .checked_add(data_len)
            .filter(|&e| e <= bytes.len());
        let end = end.ok_or(bad("block data past the end"))?;
        on_block(page_id, image, &bytes[payload_at..end]);
        payload_at = end;
    }
    if payload_at.checked_add(main_len) != Some(bytes.len()) {
        return Err(bad("main data length does not match the record length"));
    }
    Ok(Head {
        prev_lsn: Lsn(get_u64(bytes, off::PREV)),
        rmgr: RmgrId(bytes[off::RMGR]),
        rtype: bytes[off::RTYPE],
        data: &bytes[payload_at..],
    })
}

/// One registered page of an owned [`Record`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Block {
    pub page_id: PageId,
    pub image: Option<Box<Page>>,
    pub data: Vec<u8>,
}

/// A decoded record as the reader yields it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Record {
    /// Where the record starts.
    pub lsn: Lsn,
    /// The first byte after the record (and its padding): the LSN a page
    /// changed by this record carries, and what `flush_to` is given.
    pub end_lsn: Lsn,
    pub prev_lsn: Lsn,
    pub rmgr: RmgrId,
    pub rtype: u8,
    pub blocks: Vec<Block>,
    pub data: Vec<u8>,
    /// Bytes of the record (unpadded), for statistics.
    pub total_len: u32,
}

impl Record {
    /// A record with no blocks and no data, to decode into
    /// ([`decode_record_into`], `WalReader::next_record_into`).
    pub fn empty() -> Record {
        Record {
            lsn: Lsn(0),
            end_lsn: Lsn(0),
            prev_lsn: Lsn(0),
            rmgr: RmgrId(0),
            rtype: 0,
            blocks: Vec::new(),
            data: Vec::new(),
            total_len: 0,
        }
    }
}

impl RecordView<'_> {
    /// Copies the view into an owned record located at `lsn..end_lsn`.
    pub fn to_record(&self, lsn: Lsn, end_lsn: Lsn, total_len: u32) -> Record {
        Record {
            lsn,
            end_lsn,
            prev_lsn: self.prev_lsn,
            rmgr: self.rmgr,
            rtype: self.rtype,
            blocks: self
                .blocks
                .iter()
                .map(|b| Block {
                    page_id: b.page_id,
                    image: b.image.map(|p| Box::new(*p)),
                    data: b.data.to_vec(),
                })
                .collect(),
            data: self.data.to_vec(),
            total_len,
        }
    }
}
