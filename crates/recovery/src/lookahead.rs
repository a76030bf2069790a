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
//!
//! The queue is a ring of slots reused in place ([`Ring`]): a record is
//! decoded into the slot after the last (its allocations reused), handed
//! out by reference, and its slot freed at the next call. No record is
//! ever moved: records are ~100 bytes, and moving them through return
//! values and in and out of a queue cost the reading thread ~15 % in
//! store-forwarding stalls (prefetch off) and ~8 % more with prefetch on.

use crate::driver::block_bits;
use crate::error::RecoveryError;
use folio_buffer::BufferPool;
use folio_wal::{Record, WalReader};
use std::collections::HashSet;
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
    queue: Ring,
    /// Whether the queue's first record was handed out (its slot is freed
    /// by the next call).
    handed: bool,
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
    pub prefetches_issued: u64,
}

/// Decoded records in LSN order, in slots reused in place.
#[derive(Default)]
struct Ring {
    slots: Vec<Decoded>,
    head: usize,
    len: usize,
}

impl Ring {
    fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The free slot after the last record, for decoding into; the ring
    /// grows by one slot when all are taken.
    fn tail_mut(&mut self) -> &mut Decoded {
        if self.len == self.slots.len() {
            self.slots.rotate_left(self.head);
            self.head = 0;
            self.slots.push(Decoded {
                record: Record::empty(),
                prefetched: 0,
                arranged: 0,
            });
        }
        let at = (self.head + self.len) % self.slots.len();
        &mut self.slots[at]
    }

    /// Makes the tail slot the last record.
    fn push_tail(&mut self) {
        debug_assert!(self.len < self.slots.len());
        self.len += 1;
    }

    /// The last record (the ring is not empty).
    fn last_mut(&mut self) -> &mut Decoded {
        let at = (self.head + self.len - 1) % self.slots.len();
        &mut self.slots[at]
    }

    fn front(&self) -> Option<&Decoded> {
        (self.len > 0).then(|| &self.slots[self.head])
    }

    /// Frees the first record's slot.
    fn pop_front(&mut self) {
        debug_assert!(self.len > 0);
        self.head = (self.head + 1) % self.slots.len();
        self.len -= 1;
    }
}

/// The smallest decode-ahead window (record bytes): about 50 records of the
/// seed-001 WAL.
const MIN_WINDOW: usize = 16 << 10;

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
            queue: Ring::default(),
            handed: false,
            queued_bytes: 0,
            inflight: 0,
            arranged: HashSet::new(),
            hints: hints.map(|tx| (tx, Vec::new())),
            eof: false,
            prefetches_issued: 0,
        }
    }

    /// The reader (for its end LSN once replay is done).
    pub fn reader(&self) -> &WalReader {
        &self.reader
    }

    /// Decodes the next record into the queue's tail slot; false at the
    /// end of the WAL.
    fn decode(&mut self) -> Result<bool, RecoveryError> {
        let slot = self.queue.tail_mut();
        if !self.reader.next_record_into(&mut slot.record)? {
            return Ok(false);
        }
        slot.prefetched = 0;
        slot.arranged = 0;
        self.queue.push_tail();
        Ok(true)
    }

    /// The next record in LSN order, `None` at the end of the WAL. The
    /// record is valid until the next call, which frees its slot.
    pub fn next(&mut self) -> Result<Option<&Decoded>, RecoveryError> {
        if std::mem::take(&mut self.handed) {
            self.queue.pop_front();
        }
        if self.io_concurrency == 0 {
            // Nothing is decoded ahead: decode and hand out.
            if !self.decode()? {
                return Ok(None);
            }
        } else {
            self.fill()?;
            let Some(decoded) = self.queue.front() else {
                return Ok(None);
            };
            self.queued_bytes -= decoded.record.total_len as usize;
            for index in block_bits(decoded.arranged) {
                self.arranged
                    .remove(&decoded.record.blocks[index].page_id.0);
            }
            self.inflight -= decoded.prefetched.count_ones() as usize;
        }
        self.handed = true;
        Ok(self.queue.front())
    }

    fn fill(&mut self) -> Result<(), RecoveryError> {
        while !self.eof && (self.queue.is_empty() || self.room_ahead()) {
            if !self.decode()? {
                self.eof = true;
                break;
            }
            let decoded = self.queue.last_mut();
            let mut prefetched = 0u32;
            let mut arranged = 0u32;
            for (index, block) in decoded.record.blocks.iter().enumerate() {
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
                // Asked first: most blocks end here, without a lookup in
                // `arranged` (a hash per block was ~4 % of the replaying
                // thread).
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
            decoded.prefetched = prefetched;
            decoded.arranged = arranged;
            let total_len = decoded.record.total_len as usize;
            self.adapt_window(prefetched != 0, total_len);
            self.queued_bytes += total_len;
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

    /// Whether decoding further ahead is allowed now (only asked by
    /// `fill`, which runs with prefetch on).
    fn room_ahead(&self) -> bool {
        self.queued_bytes < self.window && self.inflight < self.io_concurrency
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use folio_page::Lsn;

    fn push(ring: &mut Ring, lsn: u64) {
        ring.tail_mut().record.lsn = Lsn(lsn);
        ring.push_tail();
    }

    // Proves the ring hands records out in the order they were pushed
    // while it wraps around and while it grows with its head in the middle
    // of the slots, and that a freed slot is reused (its record is the one
    // decoded into it before: allocations kept).
    #[test]
    fn ring_keeps_lsn_order_across_wraps_and_growth() {
        let mut ring = Ring::default();
        assert!(ring.front().is_none());
        // Full with the head in the middle, then one more: the ring grows.
        for lsn in [0, 1, 2] {
            push(&mut ring, lsn);
        }
        ring.pop_front();
        push(&mut ring, 3); // wraps into the freed first slot
        assert_eq!((ring.head, ring.slots.len()), (1, 3));
        push(&mut ring, 4); // full: grows
        assert_eq!(ring.slots.len(), 4);
        for lsn in 1..=4 {
            assert_eq!(ring.front().unwrap().record.lsn, Lsn(lsn));
            ring.pop_front();
        }
        let (mut next_in, mut next_out) = (5u64, 5u64);
        // Grow to 3 slots, then cycle with 1-3 records queued, then grow
        // again with the head mid-ring.
        for queued in [3usize, 1, 2, 3, 2, 5, 1, 7] {
            while (next_in - next_out) < queued as u64 {
                push(&mut ring, next_in);
                next_in += 1;
            }
            while next_out < next_in {
                assert_eq!(ring.front().unwrap().record.lsn, Lsn(next_out));
                ring.pop_front();
                next_out += 1;
                if next_out % 2 == 0 {
                    break;
                }
            }
        }
        while next_out < next_in {
            assert_eq!(ring.front().unwrap().record.lsn, Lsn(next_out));
            ring.pop_front();
            next_out += 1;
        }
        assert!(ring.is_empty());
        assert!(ring.slots.len() <= 8, "slots reused: {}", ring.slots.len());
        push(&mut ring, 99);
        assert_eq!(ring.last_mut().record.lsn, Lsn(99));
    }
}
