//! Writing completed WAL to segments, and group commit.
//!
//! One writer at a time holds the `writer` mutex (PostgreSQL's
//! WALWriteLock). `write_out(target)` waits until every insertion that
//! started below `target` has finished copying, then copies the ring's pages
//! into a private staging buffer (so it never reads bytes an inserter may be
//! writing), stamps each page header with the current `synced_upto`, and
//! writes whole pages (the tail page zero-padded) to the segment files.
//!
//! Group commit: `flush_to(lsn)` returns at once if `synced_upto >= lsn`.
//! Otherwise, if another committer is leading a flush, it waits on the
//! `flush_done` condition variable and looks again (that fsync may have
//! covered it). Else it becomes the leader and flushes *everything reserved
//! so far* — the records of every committer waiting at that moment — and one
//! fdatasync per dirty segment serves them all. When it finishes it wakes
//! every waiter at once, so covered committers return together and go on
//! inserting while the next leader syncs.
//!
//! Failures: ENOSPC from a write leaves `written_upto` at the last complete
//! write and returns `NoSpace`: the bytes stay in the ring and are written
//! by the next flush. Any other write error and every sync error poison the
//! WAL: a failed fsync is never retried (the kernel may have dropped the
//! dirty pages), so all further writes fail until the WAL is reopened.

use crate::error::{WalError, is_enospc};
use crate::insert::IDLE;
use crate::segment::{OpenSegment, segment_file_name};
use crate::wal_page::{WAL_PAGE_HEADER_SIZE, WAL_PAGE_SIZE, bytepos_to_end_lsn, set_synced_upto};
use crate::{Shared, lock};
use folio_page::Lsn;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

/// The longest a flush leader waits for committers to gather (`gather`).
const GATHER_MAX: Duration = Duration::from_micros(500);
/// Fewest committers taking part for which the leader gathers at all. Two
/// committers alternate by themselves (1.85 commits per fsync), and waiting
/// for the other one's wake-up cost every flush: 2 threads 17.0k against
/// 19.2k commits/s (mean of 5 runs each), 3 threads equal (25.1k / 25.2k).
const GATHER_MIN_COMMITTERS: u64 = 3;

/// Flush leaders that do not gather after one whose wait ran out.
const GATHER_SKIPS_AFTER_MISS: u64 = 16;

/// Most pages copied and written in one write call.
const WRITE_BATCH_PAGES: usize = 64;

/// Group commit's leadership: whether a committer leads a flush, and how
/// many wait for it to end. The end wakes them only if some wait (a
/// condition variable's notify is a system call even with no one to
/// wake, and most flushes of a few committers have no one waiting).
#[derive(Debug, Default)]
pub(crate) struct FlushLeader {
    leading: bool,
    waiting: u32,
}

/// State owned by whoever holds the writer mutex.
#[derive(Debug, Default)]
pub(crate) struct WriterState {
    /// The segment being written.
    pub current: Option<OpenSegment>,
    /// Segments written since their last sync (may include `current`'s file).
    pub dirty: Vec<OpenSegment>,
    staging: Staging,
}

/// The writer's private buffer of pages to write: each page's valid bytes
/// copied from the ring, the rest of the last page zero. It is not zeroed
/// whole before each batch (that memset was ~17k instructions a commit):
/// it remembers how far its bytes may be non-zero and zeroes only what of
/// that the next batch's valid bytes do not overwrite.
#[derive(Debug, Default)]
struct Staging {
    bytes: Vec<u8>,
    /// `bytes[dirty_len..]` are all zero.
    dirty_len: usize,
}

impl Staging {
    /// `pages` pages to fill, of which the first `valid_len` bytes will be
    /// overwritten (every page whole but the last) and the rest are zero.
    fn batch(&mut self, pages: usize, valid_len: usize) -> &mut [u8] {
        let len = pages * WAL_PAGE_SIZE;
        assert!(
            valid_len <= len && valid_len > (pages - 1) * WAL_PAGE_SIZE,
            "a batch's valid bytes end in its last page"
        );
        // Grown bytes are zero; shrunk ones are gone.
        self.bytes.resize(len, 0);
        let stale_end = self.dirty_len.min(len);
        if valid_len < stale_end {
            self.bytes[valid_len..stale_end].fill(0);
        }
        // The caller also stamps every page's header.
        let last_header_end = (pages - 1) * WAL_PAGE_SIZE + WAL_PAGE_HEADER_SIZE;
        self.dirty_len = valid_len.max(last_header_end);
        &mut self.bytes
    }
}

impl Shared {
    /// The end of all space reserved so far.
    pub(crate) fn reserved_end(&self) -> Lsn {
        bytepos_to_end_lsn(lock(&self.reserve).cur_bytepos)
    }

    /// Waits until every insertion that started below `target` has copied
    /// its bytes. Inserters never block after reserving, so this is short.
    fn wait_for_insertions(&self, target: Lsn) {
        for slot in self.slots.iter() {
            let mut spins = 0u32;
            loop {
                let at = slot.inserting_at.load(Ordering::SeqCst);
                if at == IDLE || at >= target.0 {
                    break;
                }
                spins += 1;
                if spins < 64 {
                    std::hint::spin_loop();
                } else {
                    std::thread::yield_now();
                }
            }
        }
    }

    /// Writes (without syncing) all WAL below `target` (at most the
    /// reserved end).
    pub(crate) fn write_out(&self, target: Lsn) -> Result<(), WalError> {
        self.check_poisoned()?;
        self.wait_for_insertions(target);
        let mut w = lock(&self.writer);
        self.write_locked(&mut w, target)
    }

    fn poison(&self) {
        self.poisoned.store(true, Ordering::SeqCst);
    }

    /// The write part, writer mutex held; insertions below `target` done.
    fn write_locked(&self, w: &mut WriterState, target: Lsn) -> Result<(), WalError> {
        self.check_poisoned()?;
        let synced = Lsn(self.synced_upto.load(Ordering::Acquire));
        let mut written = self.written_upto.load(Ordering::Acquire);
        let mut staging = std::mem::take(&mut w.staging);
        let result = self.write_pages(w, &mut staging, &mut written, target, synced);
        w.staging = staging;
        result
    }

    fn write_pages(
        &self,
        w: &mut WriterState,
        staging: &mut Staging,
        written: &mut u64,
        target: Lsn,
        synced: Lsn,
    ) -> Result<(), WalError> {
        let page_bytes = WAL_PAGE_SIZE as u64;
        let seg_bytes = self.meta.segment_size_bytes;
        while *written < target.0 {
            // A batch: whole pages from the one holding `written`, within one
            // segment, up to the page holding `target - 1`.
            let first_page = *written / page_bytes;
            let last_page = (target.0 - 1) / page_bytes;
            let segno = first_page * page_bytes / seg_bytes;
            let seg_last_page = (segno + 1) * seg_bytes / page_bytes - 1;
            let end_page = last_page
                .min(seg_last_page)
                .min(first_page + WRITE_BATCH_PAGES as u64 - 1);
            let pages = (end_page - first_page + 1) as usize;
            let batch_end = ((end_page + 1) * page_bytes).min(target.0);
            let staging = staging.batch(pages, (batch_end - first_page * page_bytes) as usize);
            for (i, page) in (first_page..=end_page).enumerate() {
                let page_start = page * page_bytes;
                let valid = (target.0 - page_start).min(page_bytes) as usize;
                let dst = &mut staging[i * WAL_PAGE_SIZE..(i + 1) * WAL_PAGE_SIZE];
                // SAFETY: every insertion below `target` has cleared its slot
                // (Release, seen by our SeqCst loads), so bytes below `target`
                // have no writer; the slot still holds `page` because pages
                // at or after `written` are never recycled (reservation check).
                unsafe { self.ring.read(page, 0, &mut dst[..valid]) };
                set_synced_upto(dst, synced);
            }
            let seg = self.segment_for_write(w, segno)?;
            let offset = first_page * page_bytes - segno * seg_bytes;
            let started = self.segments.cost_clock_ns();
            let result = seg.file.write_at(staging, offset);
            seg.cost_ns += self.segments.cost_since(started);
            let seg_copy = seg.clone();
            if let Err(e) = result {
                if !is_enospc(&e) {
                    self.poison();
                }
                return Err(WalError::io("writing", segment_file_name(segno), e));
            }
            self.counters.writes.fetch_add(1, Ordering::Relaxed);
            if !w.dirty.iter().any(|d| d.segno == segno) {
                w.dirty.push(seg_copy);
            }
            *written = batch_end;
            self.written_upto.store(*written, Ordering::Release);
        }
        Ok(())
    }

    /// The writer's open segment `segno`, entering it (and finishing the
    /// previous one's cost sample) when the writer moves on.
    fn segment_for_write<'w>(
        &self,
        w: &'w mut WriterState,
        segno: u64,
    ) -> Result<&'w mut OpenSegment, WalError> {
        if w.current.as_ref().map(|c| c.segno) != Some(segno) {
            let entered = self.segments.enter(segno)?;
            if let Some(old) = w.current.replace(entered) {
                // Its sync cost accrues to the copy in `dirty`; fold it in
                // when that sync happens. Here the write cost is complete.
                if let Some(d) = w.dirty.iter_mut().find(|d| d.segno == old.segno) {
                    d.cost_ns = old.cost_ns;
                    d.kind = old.kind;
                } else {
                    self.segments.segment_done(&old);
                }
            }
        }
        w.current
            .as_mut()
            .ok_or(WalError::Config("no current segment".into()))
    }

    /// Makes every WAL byte below `lsn` durable (group commit).
    pub(crate) fn flush_to(&self, lsn: Lsn) -> Result<(), WalError> {
        if self.synced_upto.load(Ordering::Acquire) >= lsn.0 {
            return Ok(());
        }
        self.check_poisoned()?;
        let end = self.reserved_end();
        if lsn > end {
            return Err(WalError::FlushBeyondEnd { lsn, end });
        }
        self.counters.flush_requests.fetch_add(1, Ordering::Relaxed);
        self.committers_waiting.fetch_add(1, Ordering::SeqCst);
        self.commit_arrivals.fetch_add(1, Ordering::SeqCst);
        // Waiting for a flush, or leading one (an fsync, and the gather
        // before it that waits for other committers): the host gets to
        // free this thread's place first (folio-io's `blocking`).
        let result = folio_io::blocking::region(|| self.wait_or_lead(lsn));
        self.committers_waiting.fetch_sub(1, Ordering::SeqCst);
        result
    }

    fn wait_or_lead(&self, lsn: Lsn) -> Result<(), WalError> {
        let mut leader = lock(&self.flush_leader);
        loop {
            if self.synced_upto.load(Ordering::Acquire) >= lsn.0 {
                self.counters.flushes_shared.fetch_add(1, Ordering::Relaxed);
                return Ok(());
            }
            self.check_poisoned()?;
            if !leader.leading {
                break;
            }
            // A flush is under way: wait for it, then look again (it may
            // have covered us).
            leader.waiting += 1;
            leader = self
                .flush_done
                .wait(leader)
                .unwrap_or_else(|p| p.into_inner());
            leader.waiting -= 1;
        }
        leader.leading = true;
        drop(leader);
        let result = self.lead_flush();
        let mut leader = lock(&self.flush_leader);
        leader.leading = false;
        let waiting = leader.waiting > 0;
        drop(leader);
        if waiting {
            self.flush_done.notify_all();
        }
        result
    }

    /// Before it chooses what to flush, the leader lets committers gather,
    /// yielding the CPU meanwhile, until as many have arrived since the
    /// previous leader chose its target as took part in group commit then
    /// (committers inside `flush_to`, including those that flush was about
    /// to release), or for at most half the previous sync's time
    /// (`GATHER_MAX` at most; PostgreSQL's `commit_delay` advice).
    ///
    /// Without it, committers settled into two cohorts: the one a flush
    /// released was still inserting its next records when a member of the
    /// other, which had arrived during that flush, led the next one, so
    /// each fsync served about half of them (8 threads: 5.0 commits per
    /// fsync). With fewer than `GATHER_MIN_COMMITTERS` taking part the
    /// leader does not wait.
    ///
    /// A wait that runs out before they arrive (committers a client's
    /// round trip away, as in `folio serve`, where the yielding cost 15% of
    /// tpcb's throughput) turns the next `GATHER_SKIPS_AFTER_MISS` waits
    /// off; then the leaders try again.
    fn gather(&self) {
        std::thread::yield_now();
        let expected = self.committers_at_target.load(Ordering::Relaxed);
        if expected < GATHER_MIN_COMMITTERS {
            return;
        }
        let skips = self.gather_skips.load(Ordering::Relaxed);
        if skips > 0 {
            self.gather_skips.store(skips - 1, Ordering::Relaxed);
            return;
        }
        let since = self.arrivals_at_target.load(Ordering::Relaxed);
        let budget =
            Duration::from_nanos(self.last_sync_ns.load(Ordering::Relaxed) / 2).min(GATHER_MAX);
        let started = Instant::now();
        loop {
            if self.commit_arrivals.load(Ordering::SeqCst) - since >= expected {
                return;
            }
            if started.elapsed() >= budget {
                self.gather_skips
                    .store(GATHER_SKIPS_AFTER_MISS, Ordering::Relaxed);
                return;
            }
            std::thread::yield_now();
        }
    }

    /// The flush leader's work: write and sync everything reserved by now,
    /// which includes the records of every committer waiting behind us.
    fn lead_flush(&self) -> Result<(), WalError> {
        self.gather();
        let mut w = lock(&self.writer);
        self.committers_at_target.store(
            self.committers_waiting.load(Ordering::SeqCst),
            Ordering::Relaxed,
        );
        // Arrivals counted before the reservation's end is read inserted
        // their records before it: this flush covers them.
        self.arrivals_at_target.store(
            self.commit_arrivals.load(Ordering::SeqCst),
            Ordering::Relaxed,
        );
        let target = self.reserved_end();
        self.wait_for_insertions(target);
        self.write_locked(&mut w, target)?;
        let started = Instant::now();
        self.sync_locked(&mut w)?;
        self.last_sync_ns
            .store(elapsed_ns(started), Ordering::Relaxed);
        self.synced_upto.fetch_max(target.0, Ordering::AcqRel);
        Ok(())
    }

    /// fdatasyncs every dirty segment; a failure poisons the WAL.
    fn sync_locked(&self, w: &mut WriterState) -> Result<(), WalError> {
        let current = w.current.as_ref().map(|c| c.segno);
        for mut seg in std::mem::take(&mut w.dirty) {
            let started = self.segments.cost_clock_ns();
            let result = seg.file.sync();
            let ns = self.segments.cost_since(started);
            self.counters.fsyncs.fetch_add(1, Ordering::Relaxed);
            if let Err(e) = result {
                self.poison();
                return Err(WalError::io("syncing", segment_file_name(seg.segno), e));
            }
            if Some(seg.segno) == current {
                if let Some(c) = w.current.as_mut() {
                    c.cost_ns += ns;
                }
            } else {
                seg.cost_ns += ns;
                self.segments.segment_done(&seg);
            }
        }
        Ok(())
    }

    /// Flushes everything inserted so far.
    pub(crate) fn flush_all(&self) -> Result<(), WalError> {
        self.flush_to(self.reserved_end())
    }
}

/// Nanoseconds since `since`, real time (the last fsync's duration, which
/// group commit's gathering uses; segment costs use the directory's cost
/// clock instead).
fn elapsed_ns(since: Instant) -> u64 {
    u64::try_from(since.elapsed().as_nanos()).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    // Proves a staging batch holds exactly what a buffer zeroed whole
    // before the batch would (the bytes the writer wrote before), after
    // any sequence of larger and smaller batches: every byte past the
    // valid ones and the page headers is zero.
    #[test]
    fn a_batch_is_byte_identical_to_a_zeroed_one() {
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        let mut staging = Staging::default();
        for round in 0..500 {
            let pages = rng.gen_range(1..=4);
            let valid = rng.gen_range((pages - 1) * WAL_PAGE_SIZE + 1..=pages * WAL_PAGE_SIZE);
            let fill = rng.gen_range(1..=u8::MAX);
            let mut want = vec![0u8; pages * WAL_PAGE_SIZE];
            for buf in [staging.batch(pages, valid), &mut want[..]] {
                buf[..valid].fill(fill);
                for page in buf.chunks_mut(WAL_PAGE_SIZE) {
                    page[..WAL_PAGE_HEADER_SIZE].fill(fill);
                }
            }
            assert!(
                staging.bytes == want,
                "round {round}: {pages} pages, {valid} valid"
            );
        }
    }
}
