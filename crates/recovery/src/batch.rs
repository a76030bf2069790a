//! Records packed for an apply thread: one contiguous buffer per batch.
//!
//! The reading thread decodes every record into a few recycled `Record`s
//! that never leave it. A record for an apply thread is copied — block
//! headers, block data and main data, not full-page images (the reading
//! thread restores every image itself: `driver::partition_blocks`) — into
//! the partition's batch, one entry after the other. The apply thread
//! unpacks each entry into its own recycled `Record`. The only memory both
//! threads touch is the batch, read and written front to back.
//!
//! **Why a packed batch.** When whole `Record`s travelled, each carried
//! three separate heap buffers (block table, block data, main data). Every
//! read of one by the apply thread was a dependent cache miss served from
//! the other core, and every reuse of one by the reading thread (recycling)
//! had to take lines back from the other core's cache first.
//!
//! **Why the writer prefetches for ownership.** A batch's memory comes back
//! to the reading thread after the apply thread read it, so each store into
//! it must first take the line back from the other core. How long that takes
//! depends on where the host runs the two vCPUs: on this VM (AMD EPYC) a
//! ping-pong between two threads measured 50 ns round trips in some minutes
//! and 400 ns in others, and streaming stores into lines the other core had
//! read went from 2 ns to 9 ns a line. [`Batch::push`] therefore asks for
//! the lines `PREFETCH_AHEAD` bytes past the end of the batch with
//! `prefetchw` before it writes, so those requests overlap instead of
//! stalling the stores one by one. (Non-temporal stores avoid the requests
//! altogether but send the batch through memory: measured, they lost 8 % when
//! the vCPUs were close and gained as much as `prefetchw` when far.)
//!
//! Entry layout (little-endian): the header, one block header per block,
//! then each block's data, then the main data.
//!
//! | offset | size | header field |
//! |---:|---:|---|
//! | 0 | 8 | lsn |
//! | 8 | 8 | end_lsn |
//! | 16 | 8 | prev_lsn |
//! | 24 | 4 | total_len |
//! | 28 | 4 | main data length |
//! | 32 | 4 | blocks to apply (bit i: block i) |
//! | 36 | 1 | rmgr |
//! | 37 | 1 | rtype |
//! | 38 | 1 | block count |
//! | 39 | 1 | zero |
//! | 40 | 4 | bytes of the whole entry |
//!
//! Block header (16 bytes): page id (8), data length (4), zero (4).

use folio_page::{Lsn, PageId};
use folio_wal::{Block, MAX_BLOCKS, Record, RmgrId};

const HEADER: usize = 44;
const BLOCK: usize = 16;
/// How far past the end of the batch `push` asks for lines (about four
/// entries of the seed-001 WAL; 1 and 2 KiB measured the same).
const PREFETCH_AHEAD: usize = 512;
/// A cache line.
const LINE: usize = 64;

const _: () = assert!(MAX_BLOCKS <= 32);

/// Records for one apply thread, in LSN order.
#[derive(Debug, Default)]
pub(crate) struct Batch {
    bytes: Vec<u8>,
    records: usize,
}

impl Batch {
    pub(crate) fn with_capacity(bytes: usize) -> Batch {
        Batch {
            bytes: Vec::with_capacity(bytes),
            records: 0,
        }
    }

    /// Entries in the batch.
    pub(crate) fn records(&self) -> usize {
        self.records
    }

    pub(crate) fn byte_len(&self) -> usize {
        self.bytes.len()
    }

    /// Empties the batch, keeping its memory.
    pub(crate) fn clear(&mut self) {
        self.bytes.clear();
        self.records = 0;
    }

    /// Appends `record`; the receiving thread applies the blocks in `apply`
    /// (bit i: block i), none of which may have a full-page image.
    pub(crate) fn push(&mut self, record: &Record, apply: u32) {
        let blocks = &record.blocks;
        debug_assert!(
            (0..blocks.len()).all(|i| apply & (1 << i) == 0 || blocks[i].image.is_none()),
            "images are restored by the reading thread"
        );
        let data: usize = blocks.iter().map(|b| b.data.len()).sum();
        let len = HEADER + blocks.len() * BLOCK + data + record.data.len();
        self.make_room(len);
        let block_count = u8::try_from(blocks.len()).expect("MAX_BLOCKS fits a byte");
        let mut header = [0u8; HEADER];
        header[0..8].copy_from_slice(&record.lsn.0.to_le_bytes());
        header[8..16].copy_from_slice(&record.end_lsn.0.to_le_bytes());
        header[16..24].copy_from_slice(&record.prev_lsn.0.to_le_bytes());
        header[24..28].copy_from_slice(&record.total_len.to_le_bytes());
        header[28..32].copy_from_slice(&(record.data.len() as u32).to_le_bytes());
        header[32..36].copy_from_slice(&apply.to_le_bytes());
        header[36] = record.rmgr.0;
        header[37] = record.rtype;
        header[38] = block_count;
        header[40..44].copy_from_slice(&(len as u32).to_le_bytes());
        let out = &mut self.bytes;
        out.extend_from_slice(&header);
        for block in blocks {
            let mut head = [0u8; BLOCK];
            head[0..8].copy_from_slice(&block.page_id.0.to_le_bytes());
            head[8..12].copy_from_slice(&(block.data.len() as u32).to_le_bytes());
            out.extend_from_slice(&head);
        }
        for block in blocks {
            out.extend_from_slice(&block.data);
        }
        out.extend_from_slice(&record.data);
        self.records += 1;
    }

    /// Reserves `len` more bytes and asks for the lines between the old
    /// and the new prefetch frontier (`PREFETCH_AHEAD` past the end): the
    /// earlier ones were asked for by earlier entries.
    fn make_room(&mut self, len: usize) {
        self.bytes.reserve(len + PREFETCH_AHEAD);
        let base = self.bytes.as_ptr();
        let end = self.bytes.len();
        let mut at = end + PREFETCH_AHEAD;
        while at < end + len + PREFETCH_AHEAD {
            prefetch_for_write(base.wrapping_add(at));
            at += LINE;
        }
    }

    /// The entries in the order they were pushed.
    pub(crate) fn entries(&self) -> Entries<'_> {
        Entries { rest: &self.bytes }
    }
}

/// Asks for the cache line holding `at` in a state that allows writing
/// (`prefetchw`): a hint that never faults, whatever the address.
#[inline(always)]
fn prefetch_for_write(at: *const u8) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch reads and writes nothing and never faults.
    unsafe {
        std::arch::asm!("prefetchw [{0}]", in(reg) at, options(nostack, preserves_flags, readonly));
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = at;
}

/// Iterator over a batch's entries.
pub(crate) struct Entries<'a> {
    rest: &'a [u8],
}

impl<'a> Iterator for Entries<'a> {
    type Item = Entry<'a>;

    fn next(&mut self) -> Option<Entry<'a>> {
        if self.rest.is_empty() {
            return None;
        }
        let (bytes, rest) = self.rest.split_at(u32_at(self.rest, 40) as usize);
        self.rest = rest;
        Some(Entry { bytes })
    }
}

/// One packed record.
pub(crate) struct Entry<'a> {
    bytes: &'a [u8],
}

impl<'a> Entry<'a> {
    /// The blocks to apply (bit i: block i).
    pub(crate) fn apply(&self) -> u32 {
        u32_at(self.bytes, 32)
    }

    /// Unpacks the entry into `record` (its allocations reused); every
    /// `Block::image` is `None`.
    pub(crate) fn unpack_into(&self, record: &mut Record) {
        let bytes = self.bytes;
        let block_count = usize::from(bytes[38]);
        record.lsn = Lsn(u64_at(bytes, 0));
        record.end_lsn = Lsn(u64_at(bytes, 8));
        record.prev_lsn = Lsn(u64_at(bytes, 16));
        record.total_len = u32_at(bytes, 24);
        record.rmgr = RmgrId(bytes[36]);
        record.rtype = bytes[37];
        record.blocks.truncate(block_count);
        let mut at = HEADER + block_count * BLOCK;
        for i in 0..block_count {
            let head = &bytes[HEADER + i * BLOCK..][..BLOCK];
            let page_id = PageId(u64_at(head, 0));
            let data_len = u32_at(head, 8) as usize;
            let data = &bytes[at..at + data_len];
            at += data_len;
            match record.blocks.get_mut(i) {
                Some(block) => {
                    block.page_id = page_id;
                    block.image = None;
                    block.data.clear();
                    block.data.extend_from_slice(data);
                }
                None => record.blocks.push(Block {
                    page_id,
                    image: None,
                    data: data.to_vec(),
                }),
            }
        }
        record.data.clear();
        record.data.extend_from_slice(&bytes[at..]);
    }
}

fn u32_at(bytes: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(bytes[at..at + 4].try_into().expect("4 bytes"))
}

fn u64_at(bytes: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(bytes[at..at + 8].try_into().expect("8 bytes"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use folio_page::PAGE_SIZE;

    fn record(lsn: u64, blocks: &[(u64, bool, &[u8])], data: &[u8]) -> Record {
        Record {
            lsn: Lsn(lsn),
            end_lsn: Lsn(lsn + 100),
            prev_lsn: Lsn(lsn.saturating_sub(50)),
            rmgr: RmgrId(7),
            rtype: 3,
            blocks: blocks
                .iter()
                .map(|&(page, image, data)| Block {
                    page_id: PageId(page),
                    image: image.then(|| Box::new([page as u8; PAGE_SIZE])),
                    data: data.to_vec(),
                })
                .collect(),
            data: data.to_vec(),
            total_len: 99,
        }
    }

    // Proves a batch gives back every record as pushed (fields, block
    // data, main data, in order) with the blocks to apply, leaves images
    // behind, and that unpacking into a recycled record with more blocks
    // leaves nothing of the old one.
    #[test]
    fn entries_unpack_to_the_records_pushed() {
        let records = [
            record(1000, &[(5, false, b"leaf insert")], b""),
            record(
                2000,
                &[(6, true, b""), (7, false, b"xy"), (9, true, b"z")],
                b"main",
            ),
            record(3000, &[], b"commit"),
            record(
                4000,
                &[(8, false, &[3u8; 16][..]), (10, false, &[4u8; 33][..])],
                &[5u8; 32],
            ),
        ];
        let applies = [0b1, 0b010, 0, 0b11];
        let mut batch = Batch::with_capacity(64);
        for (r, &apply) in records.iter().zip(&applies) {
            batch.push(r, apply);
        }
        assert_eq!(batch.records(), 4);
        let old: &[u8] = b"old";
        let mut local = record(1, &[(1, true, old); 5], b"old main");
        let mut n = 0;
        for ((entry, original), &apply) in batch.entries().zip(&records).zip(&applies) {
            assert_eq!(entry.apply(), apply);
            entry.unpack_into(&mut local);
            let mut expected = original.clone();
            for block in &mut expected.blocks {
                block.image = None;
            }
            assert_eq!(local, expected);
            n += 1;
        }
        assert_eq!(n, 4);
        batch.clear();
        assert_eq!((batch.records(), batch.byte_len()), (0, 0));
        assert!(batch.entries().next().is_none());
    }
}
