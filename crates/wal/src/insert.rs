//! Concurrent insertion: reservation, the WAL buffer ring, parallel copies.
//!
//! Protocol (see README "Insertion"):
//! 1. The inserter takes its insertion slot (one of [`INSERT_SLOTS`], chosen
//!    per thread) and lays the record out (body CRC computed outside any lock).
//! 2. Reservation, the only serial step: under the tiny `reserve` mutex it
//!    reads the insert position, checks the ring has room for the record
//!    (`end <= page_floor(written_upto) + ring_bytes`), publishes its start
//!    LSN in its slot, advances the position and swaps the back-link. If the
//!    ring is full it releases the mutex, writes out completed WAL, retries.
//!    If the record would end beyond its tier's bound under the hard WAL
//!    limit (see `segment.rs`), it releases the mutex *and its slot*, asks
//!    for a checkpoint, waits for space (bounded by `hard_limit_wait_ms`,
//!    then `WalFull`) and starts over. The checkpoint record (privileged)
//!    may use the last `CHECKPOINT_RESERVE_BYTES`, which ordinary records
//!    leave free.
//! 3. Outside any lock it finishes the header (back-link, CRC) and copies
//!    the pieces into the ring, initialising pages it enters (in page
//!    order, under `init_lock`) and marking continuation pages.
//! 4. It clears its slot (Release): the writer may now read those bytes.
//!
//! Because room is checked at reservation, an inserter never waits for I/O
//! after reserving: a reservation can never fail halfway and leave a hole.

use crate::builder::{Assembled, RecordBuilder};
use crate::error::WalError;
use crate::record::{MAX_RECORD_BYTES, align_record};
use crate::segment::Tier;
use crate::wal_page::{
    PAGE_FLAG_CONT, WAL_PAGE_HEADER_SIZE, WAL_PAGE_PAYLOAD, WAL_PAGE_SIZE, WalPageHeader,
    bytepos_to_end_lsn, bytepos_to_lsn, off,
};
use crate::{Shared, lock};
use folio_page::Lsn;
use std::cell::UnsafeCell;
use std::fmt;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

// A record's padding ends on the page its last byte is on (`copy_record`).
const _: () = assert!(WAL_PAGE_PAYLOAD.is_multiple_of(crate::record::RECORD_ALIGN));

/// How long a throttled inserter waits before asking for a checkpoint
/// again (a checkpoint that completed without freeing a segment, e.g. one
/// whose redo point lies in the oldest retained segment, needs a successor).
pub(crate) const THROTTLE_SLICE: Duration = Duration::from_millis(20);

/// Number of insertion slots (PostgreSQL has 8 WAL insertion locks).
pub const INSERT_SLOTS: usize = 16;
/// `inserting_at` of a slot with no insertion in progress.
pub(crate) const IDLE: u64 = u64::MAX;

/// Where an inserted record lies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Inserted {
    /// The record's first byte.
    pub start_lsn: Lsn,
    /// The first byte after it: the LSN for page headers and `flush_to`.
    pub end_lsn: Lsn,
}

/// One insertion slot: whoever holds `lock` may insert; `inserting_at` is
/// the start LSN of its insertion in progress, or [`IDLE`].
#[derive(Debug)]
pub(crate) struct InsertSlot {
    pub lock: Mutex<()>,
    pub inserting_at: AtomicU64,
}

impl InsertSlot {
    pub fn new() -> InsertSlot {
        InsertSlot {
            lock: Mutex::new(()),
            inserting_at: AtomicU64::new(IDLE),
        }
    }
}

/// The serial part of insertion.
#[derive(Debug)]
pub(crate) struct ReserveState {
    /// Next free usable byte position.
    pub cur_bytepos: u64,
    /// Start LSN of the last reserved record.
    pub prev_lsn: Lsn,
}

/// The WAL buffers: `pages` slots of one WAL page; WAL page `p` lives in
/// slot `p % pages`. Bytes are written by many threads at once, each into
/// ranges it owns by reservation, so the storage is `UnsafeCell`.
pub(crate) struct Ring {
    bytes: Box<[UnsafeCell<u8>]>,
    pages: u64,
}

// SAFETY: the ring hands out no references; every access goes through the
// unsafe methods below, whose callers guarantee (by the reservation and
// page-initialisation protocol) that no two threads access the same byte
// concurrently unless both only read.
unsafe impl Sync for Ring {}

impl fmt::Debug for Ring {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Ring")
            .field("pages", &self.pages)
            .finish_non_exhaustive()
    }
}

impl Ring {
    pub fn new(pages: usize) -> Ring {
        let bytes = (0..pages * WAL_PAGE_SIZE)
            .map(|_| UnsafeCell::new(0u8))
            .collect();
        Ring {
            bytes,
            pages: pages as u64,
        }
    }

    pub fn pages(&self) -> u64 {
        self.pages
    }

    /// Bytes the ring holds.
    pub fn size_bytes(&self) -> u64 {
        self.pages * WAL_PAGE_SIZE as u64
    }

    fn ptr(&self, page: u64, offset: usize, len: usize) -> *mut u8 {
        assert!(offset + len <= WAL_PAGE_SIZE);
        let at = (page % self.pages) as usize * WAL_PAGE_SIZE + offset;
        UnsafeCell::raw_get(self.bytes[at..at + len].as_ptr())
    }

    /// Copies `data` into WAL page `page` at `offset`.
    ///
    /// # Safety
    /// The caller owns `[offset, offset + data.len())` of that page: no other
    /// thread reads or writes those bytes until the caller publishes them.
    pub unsafe fn write(&self, page: u64, offset: usize, data: &[u8]) {
        let dst = self.ptr(page, offset, data.len());
        // SAFETY: in bounds (checked by `ptr`), exclusive per the contract,
        // and `data` cannot overlap the ring (it is borrowed immutably while
        // the ring's bytes are only reachable through UnsafeCell).
        unsafe { std::ptr::copy_nonoverlapping(data.as_ptr(), dst, data.len()) };
    }

    /// Copies bytes of WAL page `page` at `offset` into `out`.
    ///
    /// # Safety
    /// No thread writes those bytes concurrently (they were published to the
    /// caller with a Release/Acquire pair).
    pub unsafe fn read(&self, page: u64, offset: usize, out: &mut [u8]) {
        let src = self.ptr(page, offset, out.len());
        // SAFETY: in bounds (checked by `ptr`); no concurrent writer per the
        // contract; `out` is a distinct exclusive buffer.
        unsafe { std::ptr::copy_nonoverlapping(src as *const u8, out.as_mut_ptr(), out.len()) };
    }
}

/// Round-robin slot assignment per thread.
fn my_slot() -> usize {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    thread_local! {
        static SLOT: usize = NEXT.fetch_add(1, Ordering::Relaxed) % INSERT_SLOTS;
    }
    SLOT.with(|s| *s)
}

impl Shared {
    /// Largest record (unpadded) the ring can take.
    pub(crate) fn max_record_bytes(&self) -> usize {
        let ring_room = (self.ring.pages() as usize - 2) * WAL_PAGE_PAYLOAD;
        ring_room.min(MAX_RECORD_BYTES)
    }

    /// Inserts a record; see the module comment for the protocol.
    pub(crate) fn insert(
        &self,
        builder: &RecordBuilder<'_>,
        tier: Tier,
    ) -> Result<Inserted, WalError> {
        debug_assert!(tier != Tier::Admission, "admission is not an insert");
        self.check_poisoned()?;
        if builder.total_len() > self.max_record_bytes() {
            return Err(WalError::RecordTooLarge {
                bytes: builder.total_len(),
                max_bytes: self.max_record_bytes(),
            });
        }
        let mut rec = builder.assemble();
        let size = align_record(rec.total_len as u64);
        let slot = &self.slots[my_slot()];
        let mut throttled_until: Option<Instant> = None;
        let mut slot_guard = lock(&slot.lock);
        let (start_pos, prev) = loop {
            let mut r = lock(&self.reserve);
            // The redo point only moves under this lock (`begin_checkpoint`),
            // so a record whose image decisions match it here is reserved
            // before or after the checkpoint's start consistently.
            if let Some(seen) = builder.redo_lsn_seen()
                && self.redo_lsn.load(Ordering::Acquire) != seen.0
            {
                return Err(WalError::RedoPointMoved);
            }
            let start = r.cur_bytepos;
            let end_lsn = bytepos_to_end_lsn(start + size);
            if end_lsn.0 > self.segments.limit_lsn(tier) {
                drop(r);
                // Waiting holds no lock: not `reserve`, and not our slot,
                // which a privileged inserter of the same slot may need.
                drop(slot_guard);
                self.check_poisoned()?;
                let deadline =
                    *throttled_until.get_or_insert_with(|| self.segments.hard_limit_deadline());
                if Instant::now() >= deadline {
                    return Err(WalError::WalFull {
                        limit_bytes: self.segments.hard_limit_bytes(),
                    });
                }
                self.segments
                    .wait_for_space(end_lsn.0, tier, deadline, THROTTLE_SLICE);
                slot_guard = lock(&slot.lock);
                continue;
            }
            if end_lsn.0 > self.segments.space_lsn(tier) {
                drop(r);
                drop(slot_guard);
                self.check_poisoned()?;
                self.segments.make_room(end_lsn.0, tier)?;
                slot_guard = lock(&slot.lock);
                continue;
            }
            let written = self.written_upto.load(Ordering::Acquire);
            let room_upto = written - written % WAL_PAGE_SIZE as u64 + self.ring.size_bytes();
            if end_lsn.0 <= room_upto {
                // SeqCst pairs with the writer's reads in `wait_for_insertions`;
                // the mutex makes the slot visible before the new position.
                slot.inserting_at
                    .store(bytepos_to_lsn(start).0, Ordering::SeqCst);
                r.cur_bytepos = start + size;
                let prev = std::mem::replace(&mut r.prev_lsn, bytepos_to_lsn(start));
                break (start, prev);
            }
            let target = bytepos_to_end_lsn(r.cur_bytepos);
            drop(r);
            self.counters
                .ring_full_waits
                .fetch_add(1, Ordering::Relaxed);
            // We hold no reservation, so writing out cannot wait on us.
            self.write_out(target)?;
        };
        rec.finish(prev);
        self.copy_record(start_pos, &rec);
        slot.inserting_at.store(IDLE, Ordering::Release);
        drop(slot_guard);
        self.counters.records.fetch_add(1, Ordering::Relaxed);
        self.counters.bytes.fetch_add(size, Ordering::Relaxed);
        Ok(Inserted {
            start_lsn: bytepos_to_lsn(start_pos),
            end_lsn: bytepos_to_end_lsn(start_pos + size),
        })
    }

    /// The latch-free admission point of the hard limit (InnoDB's
    /// `log_free_check`): while the WAL reaches into the headroom, asks for a
    /// checkpoint and waits for space, up to `hard_limit_wait_ms`, then
    /// `WalFull`. Callers hold no page latch, so the checkpoint never waits
    /// for them.
    pub(crate) fn throttle(&self) -> Result<(), WalError> {
        let mut throttled_until: Option<Instant> = None;
        loop {
            self.check_poisoned()?;
            let end = self.reserved_end().0;
            if end <= self.segments.limit_lsn(Tier::Admission) {
                return Ok(());
            }
            let deadline =
                *throttled_until.get_or_insert_with(|| self.segments.hard_limit_deadline());
            if Instant::now() >= deadline {
                return Err(WalError::WalFull {
                    limit_bytes: self.segments.hard_limit_bytes(),
                });
            }
            self.segments
                .wait_for_space(end, Tier::Admission, deadline, THROTTLE_SLICE);
        }
    }

    /// Copies a reserved record into the ring, page by page.
    fn copy_record(&self, start_pos: u64, rec: &Assembled<'_>) {
        let payload = WAL_PAGE_PAYLOAD as u64;
        let mut pos = start_pos;
        let mut remaining = rec.total_len as u64;
        let mut page = u64::MAX;
        let pieces = [&rec.header[..], &rec.block_headers[..]];
        for piece in pieces.into_iter().chain(rec.pieces.iter().copied()) {
            let mut piece = piece;
            while !piece.is_empty() {
                let this_page = pos / payload;
                let in_page = (pos % payload) as usize;
                if this_page != page {
                    page = this_page;
                    self.ensure_initialized(page);
                    if pos != start_pos {
                        assert_eq!(in_page, 0);
                        self.mark_continuation(page, remaining);
                    }
                }
                let n = piece.len().min(WAL_PAGE_PAYLOAD - in_page);
                // SAFETY: bytes [pos, pos + n) lie inside this insertion's
                // reservation, so no other inserter touches them; the writer
                // reads them only after our slot is cleared (Release), and
                // the page slot was initialised for `page` (Acquire in
                // `ensure_initialized`) and is not recycled before it is
                // written out, which needs our slot cleared.
                unsafe {
                    self.ring
                        .write(page, WAL_PAGE_HEADER_SIZE + in_page, &piece[..n])
                };
                piece = &piece[n..];
                pos += n as u64;
                remaining -= n as u64;
            }
        }
        assert_eq!(remaining, 0);
        // The padding to the next record's start, zeroed here rather than
        // with the whole page when it is set up (`ensure_initialized`).
        // Record starts are 8-byte aligned in usable bytes and a page's
        // payload is a multiple of 8 (asserted at the top), so the padding
        // never crosses a page.
        let padding = (align_record(rec.total_len as u64) - rec.total_len as u64) as usize;
        if padding > 0 {
            let in_page = (pos % payload) as usize;
            debug_assert!(in_page + padding <= WAL_PAGE_PAYLOAD);
            // SAFETY: as for the record's bytes: the padding is inside this
            // insertion's reservation, on the page written last.
            unsafe {
                self.ring
                    .write(page, WAL_PAGE_HEADER_SIZE + in_page, &[0u8; 8][..padding])
            };
        }
    }

    /// Sets the CONT flag and remaining length in the header of `page`,
    /// which the record being copied enters at its first usable byte.
    fn mark_continuation(&self, page: u64, remaining: u64) {
        let mut h = [0u8; 2 + 4];
        h[..2].copy_from_slice(&PAGE_FLAG_CONT.to_le_bytes());
        h[2..].copy_from_slice(&(remaining as u32).to_le_bytes());
        // SAFETY: the flags and cont_len fields of a page are written only by
        // the one insertion that spans into the page, after initialisation;
        // the writer reads them after that insertion's slot is cleared.
        unsafe {
            self.ring.write(page, off::FLAGS, &h[..2]);
            self.ring.write(page, off::CONT_LEN, &h[2..]);
        }
    }

    /// Makes sure WAL pages up to and including `page` have been set up in
    /// the ring (zeroed, header written), in page order.
    pub(crate) fn ensure_initialized(&self, page: u64) {
        if self.initialized_upto.load(Ordering::Acquire) > page {
            return;
        }
        let _g = lock(&self.init_lock);
        loop {
            let next = self.initialized_upto.load(Ordering::Acquire);
            if next > page {
                return;
            }
            let written = self.written_upto.load(Ordering::Acquire) / WAL_PAGE_SIZE as u64;
            // The reservation check guarantees the slot's old page is written.
            assert!(
                next < written + self.ring.pages(),
                "WAL ring slot for page {next} still holds an unwritten page"
            );
            // The header, written in the ring's slot. The rest of the slot
            // is left as the page before left it: every byte of it that is
            // written out (below the flush target) is first written by the
            // record that reserved it or as that record's padding
            // (`copy_record`), and the writer zeroes what lies past the
            // target (`Staging`). Zeroing the page here was ~8k
            // instructions per WAL page under callgrind (session 54).
            let mut header = [0u8; WAL_PAGE_HEADER_SIZE];
            WalPageHeader {
                flags: 0,
                page_addr: Lsn(next * WAL_PAGE_SIZE as u64),
                system_id: self.meta.system_id,
                synced_upto: Lsn(0),
                cont_len: 0,
                generation: self.meta.generation,
                timeline: self.meta.timeline,
            }
            .write_to(&mut header);
            // SAFETY: no inserter uses page `next` before `initialized_upto`
            // passes it (we hold init_lock and publish below), and the writer
            // is done with the slot's previous page (assert above).
            unsafe {
                self.ring.write(next, 0, &header);
            }
            self.initialized_upto.store(next + 1, Ordering::Release);
        }
    }
}
