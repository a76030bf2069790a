//! Building a record, in the spirit of PostgreSQL's XLogBeginInsert /
//! XLogRegisterBuffer / XLogRegisterBufData / XLogRegisterData / XLogInsert:
//!
//! ```text
//! let mut b = RecordBuilder::new(RmgrId(3), INSERT_LEAF);
//! let blk = b.register_page(page_id, needs_image.then_some(&page))?;
//! b.register_page_data(blk, &tuple)?;
//! b.register_data(&offset.to_le_bytes())?;
//! let at = wal.insert(&b)?; // at.end_lsn goes into the page header
//! ```
//!
//! The builder borrows the registered bytes; [`crate::Wal::insert`] copies
//! them straight into the WAL buffers, piece by piece.

use crate::error::WalError;
use crate::record::{
    BLOCK_HAS_IMAGE, BLOCK_HEADER_SIZE, MAX_BLOCKS, MAX_RECORD_BYTES, RECORD_HEADER_SIZE, RmgrId,
    off, record_crc,
};
use folio_page::{Lsn, PAGE_SIZE, Page, PageId};

/// Index of a page registered in a [`RecordBuilder`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BlockId(pub u8);

#[derive(Debug)]
struct BlockSpec<'a> {
    page_id: PageId,
    image: Option<&'a Page>,
    data: Vec<&'a [u8]>,
    data_len: usize,
}

/// Accumulates one record's pages and data.
#[derive(Debug)]
pub struct RecordBuilder<'a> {
    rmgr: RmgrId,
    rtype: u8,
    blocks: Vec<BlockSpec<'a>>,
    main: Vec<&'a [u8]>,
    main_len: usize,
    total_len: usize,
    /// The redo point the caller's full-page-image decisions were made
    /// against; insertion refuses the record if it has moved since.
    redo_lsn_seen: Option<Lsn>,
}

/// A record ready to copy: its header bytes (without prev/CRC yet) and the
/// borrowed pieces that follow them, in log order.
#[derive(Debug)]
pub(crate) struct Assembled<'a> {
    pub header: [u8; RECORD_HEADER_SIZE],
    pub block_headers: Vec<u8>,
    pub pieces: Vec<&'a [u8]>,
    pub total_len: usize,
    /// CRC-32C of everything after the fixed header.
    pub body_crc: u32,
}

impl Assembled<'_> {
    /// Fills in the back-link and the CRC once the position is known.
    pub fn finish(&mut self, prev: Lsn) {
        self.header[off::PREV..off::PREV + 8].copy_from_slice(&prev.0.to_le_bytes());
        let crc = record_crc(self.body_crc, &self.header);
        self.header[off::CRC..off::CRC + 4].copy_from_slice(&crc.to_le_bytes());
    }
}

impl<'a> RecordBuilder<'a> {
    /// Begins a record of type `rtype` owned by `rmgr` (XLogBeginInsert).
    pub fn new(rmgr: RmgrId, rtype: u8) -> Self {
        RecordBuilder {
            rmgr,
            rtype,
            blocks: Vec::new(),
            main: Vec::new(),
            main_len: 0,
            total_len: RECORD_HEADER_SIZE,
            redo_lsn_seen: None,
        }
    }

    /// Records that the full-page-image decisions for this record's pages
    /// were made against redo point `redo_lsn` (see `Wal::redo_lsn`). If a
    /// checkpoint moves the redo point before the record is reserved,
    /// `Wal::insert` fails with `WalError::RedoPointMoved` and the caller
    /// decides again (PostgreSQL rechecks `RedoRecPtr` in XLogInsertRecord).
    pub fn set_redo_lsn_seen(&mut self, redo_lsn: Lsn) {
        self.redo_lsn_seen = Some(redo_lsn);
    }

    /// The redo point given to [`RecordBuilder::set_redo_lsn_seen`].
    pub fn redo_lsn_seen(&self) -> Option<Lsn> {
        self.redo_lsn_seen
    }

    fn grow(&mut self, bytes: usize) -> Result<(), WalError> {
        let total = self.total_len.saturating_add(bytes);
        if total > MAX_RECORD_BYTES {
            return Err(WalError::RecordTooLarge {
                bytes: total,
                max_bytes: MAX_RECORD_BYTES,
            });
        }
        self.total_len = total;
        Ok(())
    }

    /// Registers a page the record changes, with its full-page image when
    /// this is the page's first change since the last checkpoint
    /// (XLogRegisterBuffer).
    pub fn register_page(
        &mut self,
        page_id: PageId,
        image: Option<&'a Page>,
    ) -> Result<BlockId, WalError> {
        if self.blocks.len() >= MAX_BLOCKS {
            return Err(WalError::TooManyBlocks { max: MAX_BLOCKS });
        }
        self.grow(BLOCK_HEADER_SIZE + if image.is_some() { PAGE_SIZE } else { 0 })?;
        self.blocks.push(BlockSpec {
            page_id,
            image,
            data: Vec::new(),
            data_len: 0,
        });
        Ok(BlockId((self.blocks.len() - 1) as u8))
    }

    /// Appends data that belongs to a registered page (XLogRegisterBufData).
    pub fn register_page_data(&mut self, block: BlockId, data: &'a [u8]) -> Result<(), WalError> {
        let index = block.0 as usize;
        if index >= self.blocks.len() {
            return Err(WalError::UnknownBlock { block: block.0 });
        }
        self.grow(data.len())?;
        let spec = &mut self.blocks[index];
        spec.data.push(data);
        spec.data_len += data.len();
        Ok(())
    }

    /// Appends main data (XLogRegisterData).
    pub fn register_data(&mut self, data: &'a [u8]) -> Result<(), WalError> {
        self.grow(data.len())?;
        self.main.push(data);
        self.main_len += data.len();
        Ok(())
    }

    /// Bytes of the record (unpadded) as built so far.
    pub fn total_len(&self) -> usize {
        self.total_len
    }

    /// Lays the record out: header fields, block headers, pieces, body CRC.
    pub(crate) fn assemble(&self) -> Assembled<'a> {
        assert!(self.total_len <= MAX_RECORD_BYTES);
        let mut header = [0u8; RECORD_HEADER_SIZE];
        header[off::TOTAL_LEN..off::TOTAL_LEN + 4]
            .copy_from_slice(&(self.total_len as u32).to_le_bytes());
        header[off::RMGR] = self.rmgr.0;
        header[off::RTYPE] = self.rtype;
        header[off::BLOCK_COUNT] = self.blocks.len() as u8;
        header[off::MAIN_LEN..off::MAIN_LEN + 4]
            .copy_from_slice(&(self.main_len as u32).to_le_bytes());
        let mut block_headers = Vec::with_capacity(self.blocks.len() * BLOCK_HEADER_SIZE);
        for b in &self.blocks {
            let mut h = [0u8; BLOCK_HEADER_SIZE];
            h[off::B_PAGE_ID..off::B_PAGE_ID + 8].copy_from_slice(&b.page_id.0.to_le_bytes());
            h[off::B_FLAGS] = if b.image.is_some() {
                BLOCK_HAS_IMAGE
            } else {
                0
            };
            h[off::B_DATA_LEN..off::B_DATA_LEN + 4]
                .copy_from_slice(&(b.data_len as u32).to_le_bytes());
            block_headers.extend_from_slice(&h);
        }
        let mut pieces: Vec<&'a [u8]> = Vec::new();
        for b in &self.blocks {
            if let Some(image) = b.image {
                pieces.push(&image[..]);
            }
            pieces.extend(b.data.iter().copied());
        }
        pieces.extend(self.main.iter().copied());
        let mut body_crc = crc32c::crc32c(&block_headers);
        for p in &pieces {
            body_crc = crc32c::crc32c_append(body_crc, p);
        }
        let total_len = RECORD_HEADER_SIZE
            + block_headers.len()
            + pieces.iter().map(|p| p.len()).sum::<usize>();
        assert_eq!(total_len, self.total_len, "builder length bookkeeping");
        Assembled {
            header,
            block_headers,
            pieces,
            total_len,
            body_crc,
        }
    }

    /// Encodes the record into one contiguous byte vector with the given
    /// back-link (used by tests and tools; insertion copies piecewise).
    pub fn encode(&self, prev: Lsn) -> Vec<u8> {
        let mut a = self.assemble();
        a.finish(prev);
        let mut out = Vec::with_capacity(a.total_len);
        out.extend_from_slice(&a.header);
        out.extend_from_slice(&a.block_headers);
        for p in &a.pieces {
            out.extend_from_slice(p);
        }
        out
    }
}
