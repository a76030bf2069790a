//! Decoding ahead of replay and prefetching the pages it will touch.
//!
//! The reader decodes records into a queue bounded by `readahead_bytes`
//! (record bytes) and by `io_concurrency` outstanding prefetches. For each
//! decoded block it decides whether its page needs a read of its own:
//! not if a record ahead of it in the queue brings the page in (restores
//! it from a full-page image, or has a prefetch outstanding for it: the
//! `arranged` set), nor if the block carries an image itself, nor if the
//! page is resident, in which case `BufferPool::keep_resident` gives it the
//! clock's second chance so it is still there when the record is applied.
//! Otherwise it asks for `BufferPool::prefetch` (posix_fadvise WILLNEED). The
//! advice itself is given by recovery's helper thread (`helper.rs`), fed in
//! batches: each call allocates page-cache pages and submits a read, CPU
//! work the replaying thread no longer does itself (README "Known limits":
//! on this VM prefetch does not pay either way). A
//! prefetch counts as outstanding until the record that caused it is
//! handed to apply. With `io_concurrency = 0` nothing is prefetched and
//! records are handed out as they are decoded.

use crate::error::RecoveryError;
use folio_buffer::BufferPool;
use folio_wal::{Record, WalReader};
use std::collections::{HashSet, VecDeque};
use std::sync::mpsc::Sender;

/// A decoded record, which of its blocks were prefetched (bit i: block i),
/// and which of its pages it entered in `Lookahead::arranged`.
#[derive(Debug)]
pub(crate) struct Decoded {
    pub record: Record,
    pub prefetched: u32,
    arranged: u32,
}

const _: () = assert!(folio_wal::MAX_BLOCKS <= u32::BITS as usize);

pub(crate) struct Lookahead<'a> {
    reader: WalReader,
    pool: &'a BufferPool,
    io_concurrency: usize,
    readahead_bytes: usize,
    /// How far ahead decoding goes now (record bytes): `readahead_bytes`
    /// while prefetches are being issued, shrinking towards `MIN_WINDOW`
    /// while none are (see `fill`).
    window: usize,
    /// Record bytes decoded since the last prefetch was issued.
    quiet_bytes: usize,
    queue: VecDeque<Decoded>,
    queued_bytes: usize,
    /// Prefetches issued for queued records.
    inflight: usize,
    /// Pages that records in the queue will find in the pool without a read
    /// of their own: a prefetch is outstanding for them, or a queued record
    /// restores them from a full-page image (a page a split has just
    /// allocated, or the first change after the checkpoint). Later records
    /// touching them issue nothing.
    arranged: HashSet<u64>,
    /// The helper thread's hint queue and the pages not yet sent to it.
    hints: Option<(Sender<Vec<u64>>, Vec<u64>)>,
    eof: bool,
    /// Applied records whose allocations the next decodes reuse.
    spare: Vec<Record>,
    /// The record `next` handed out last; it stays here, so that handing it
    /// out moves nothing (a record is ~100 bytes: moving it through return
    /// values was ~15 % of the reading thread, in store-forwarding stalls).
    current: Decoded,
    pub prefetches_issued: u64,
}

/// The smallest decode-ahead window (record bytes): about 50 records of the
/// seed-001 WAL.
const MIN_WINDOW: usize = 16 << 10;

/// Applied records kept for reuse at most (the decode-ahead queue's worth:
/// parallel apply copies records into batches, so none stay in flight).
const MAX_SPARE: usize = 8192;

impl<'a> Lookahead<'a> {
    pub fn new(
        reader: WalReader,
        pool: &'a BufferPool,
        io_concurrency: usize,
        readahead_bytes: usize,
        hints: Option<Sender<Vec<u64>>>,
    ) -> Lookahead<'a> {
        Lookahead {
            reader,
            pool,
            io_concurrency,
            readahead_bytes,
            window: readahead_bytes.min(MIN_WINDOW),
            quiet_bytes: 0,
            queue: VecDeque::new(),
            queued_bytes: 0,
            inflight: 0,
            arranged: HashSet::new(),
            hints: hints.map(|tx| (tx, Vec::new())),
            eof: false,
            spare: Vec::new(),
            current: Decoded {
                record: Record::empty(),
                prefetched: 0,
                arranged: 0,
            },
            prefetches_issued: 0,
        }
    }

    /// The reader (for its end LSN once replay is done).
    pub fn reader(&self) -> &WalReader {
        &self.reader
    }

    /// Keeps an applied record: the next decode reuses its allocations
    /// instead of allocating (measured on the seed-001 WAL: allocation and
    /// freeing were a third of the reading thread's time in parallel
    /// replay).
    fn recycle(&mut self, record: Record) {
        if self.spare.len() < MAX_SPARE {
            self.spare.push(record);
        }
    }

    /// Decodes the next record into a recycled one; `None` at the end.
    fn decode(&mut self) -> Result<Option<Record>, RecoveryError> {
        let mut record = self.spare.pop().unwrap_or_else(Record::empty);
        if self.reader.next_record_into(&mut record)? {
            Ok(Some(record))
        } else {
            self.spare.push(record);
            Ok(None)
        }
    }

    /// The next record in LSN order, `None` at the end of the WAL. The
    /// record is valid until the next call, which reuses it.
    pub fn next(&mut self) -> Result<Option<&Decoded>, RecoveryError> {
        if self.io_concurrency == 0 {
            // Nothing is decoded ahead: decode in place.
            return Ok(self
                .reader
                .next_record_into(&mut self.current.record)?
                .then_some(&self.current));
        }
        self.fill()?;
        let Some(decoded) = self.queue.pop_front() else {
            return Ok(None);
        };
        let done = std::mem::replace(&mut self.current, decoded);
        self.recycle(done.record);
        let decoded = &self.current;
        self.queued_bytes -= decoded.record.total_len as usize;
        let mut bits = decoded.arranged;
        while bits != 0 {
            let index = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            self.arranged
                .remove(&decoded.record.blocks[index].page_id.0);
        }
        self.inflight -= decoded.prefetched.count_ones() as usize;
        Ok(Some(&self.current))
    }

    fn fill(&mut self) -> Result<(), RecoveryError> {
        while !self.eof && (self.queue.is_empty() || self.room_ahead()) {
            let Some(record) = self.decode()? else {
                self.eof = true;
                break;
            };
            let mut prefetched = 0u32;
            let mut arranged = 0u32;
            if self.io_concurrency > 0 {
                for (index, block) in record.blocks.iter().enumerate() {
                    let page = block.page_id;
                    if block.image.is_some() {
                        // Unless an earlier queued record brings it in
                        // already (that record's entry stays).
                        if self.arranged.insert(page.0) {
                            arranged |= 1 << index;
                        }
                        continue;
                    }
                    // A resident page about to be redone keeps its frame.
                    // Asked first: most blocks end here, without a lookup
                    // in `arranged` (a hash per block was ~4 % of the
                    // replaying thread).
                    if self.pool.keep_resident(page)
                        || self.arranged.contains(&page.0)
                        || self.inflight >= self.io_concurrency
                    {
                        continue;
                    }
                    // `recover` starts the helper whenever prefetch is on.
                    let Some((_, batch)) = &mut self.hints else {
                        break;
                    };
                    batch.push(page.0);
                    self.prefetches_issued += 1;
                    self.arranged.insert(page.0);
                    arranged |= 1 << index;
                    prefetched |= 1 << index;
                    self.inflight += 1;
                }
            }
            self.adapt_window(prefetched != 0, record.total_len as usize);
            self.queued_bytes += record.total_len as usize;
            self.queue.push_back(Decoded {
                record,
                prefetched,
                arranged,
            });
        }
        if let Some((tx, batch)) = &mut self.hints
            && !batch.is_empty()
        {
            // A closed queue means the helper is gone: replay goes on
            // without the hints.
            let _ = tx.send(std::mem::take(batch));
        }
        Ok(())
    }

    /// Closes the helper thread's hint queue.
    pub fn close_hints(&mut self) {
        self.hints = None;
    }

    /// Decoding far ahead pays only while there is I/O to start early:
    /// with every page in the pool, a 256 KiB window cost cached replay
    /// ~12 % (records and their data go cold in the queue) against a 16 KiB
    /// one. The window opens fully as soon as a prefetch is issued and
    /// halves after each full window's worth of records that needed none.
    fn adapt_window(&mut self, prefetched: bool, record_bytes: usize) {
        if prefetched {
            self.window = self.readahead_bytes;
            self.quiet_bytes = 0;
            return;
        }
        self.quiet_bytes += record_bytes;
        if self.quiet_bytes >= self.readahead_bytes {
            self.quiet_bytes = 0;
            self.window = (self.window / 2).max(self.readahead_bytes.min(MIN_WINDOW));
        }
    }

    /// Whether decoding further ahead is allowed now.
    fn room_ahead(&self) -> bool {
        self.io_concurrency > 0
            && self.queued_bytes < self.window
            && self.inflight < self.io_concurrency
    }
}
