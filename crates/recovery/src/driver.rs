//! The recovery driver: replays the WAL from the checkpoint's redo point.
//!
//! Generic work done here for every resource manager (the redo contract of
//! `folio_wal::PageRedo`): for each registered block of each record,
//!
//! 1. latch the page exclusively for redo (`exclusive_for_redo`; a block
//!    with a full-page image does not read the page at all);
//! 2. a full-page image is restored unconditionally (as PostgreSQL does: the
//!    page on disk may be torn, and every later change of the page follows
//!    in the WAL);
//! 3. otherwise the page-LSN check: apply only if the page's LSN is older
//!    than the record's end (else the change is already on the page);
//! 4. `redo_block`, then page LSN = record end; the page is dirty.
//!
//! Parallel apply: blocks are partitioned by page id over `threads` apply
//! threads (the reading thread applies partition 0 itself); each partition
//! receives its blocks in LSN order through a bounded channel of packed
//! batches (`batch.rs`), so every page sees its changes in log order —
//! except full-page images, which the reading thread restores at once
//! (`partition_blocks` says why that is the same). Different pages may be
//! at different points of the log meanwhile; nobody reads the database
//! until replay is complete.

use crate::batch::Batch;
use crate::error::RecoveryError;
use crate::helper::Helper;
use crate::lookahead::{Decoded, Lookahead};
use crate::placement::Placement;
use crate::registry::RedoRegistry;
use folio_buffer::{BufferPool, PAGES_PER_STATE_LINE};
use folio_io::Dir;
use folio_page::Lsn;
use folio_wal::{Discarded, ReaderOptions, Record, WalEnd, WalReader};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, Sender, SyncSender, TryRecvError, channel, sync_channel};
use std::time::{Duration, Instant};

/// Settings of one recovery.
#[derive(Debug, Clone)]
pub struct RecoveryOptions {
    /// `recovery_io_concurrency`: prefetches outstanding at most; 0 turns
    /// prefetching (and decoding ahead) off.
    pub io_concurrency: usize,
    /// Apply threads; 1 applies in the reading thread.
    pub threads: usize,
    /// Record bytes decoded ahead of apply at most.
    pub readahead_bytes: usize,
    /// Run the background writer (`helper.rs`): another thread writes the
    /// dirty pages the clock will evict next, once the pool evicts.
    pub background_writer: bool,
    /// The documented override: a corrupt record followed by valid WAL ends
    /// replay there instead of refusing to start (the records after it are
    /// lost).
    pub truncate_at_corruption: bool,
    /// Place replay's threads on CPUs (`placement.rs`): the reading thread
    /// (the caller's) on the allowed CPU with the fewest device interrupts,
    /// apply threads on the others, the helper off the replaying threads'
    /// CPUs where it can. The caller's affinity is restored at the end.
    pub pin_threads: bool,
}

impl Default for RecoveryOptions {
    fn default() -> Self {
        RecoveryOptions {
            io_concurrency: 32,
            threads: 1,
            readahead_bytes: 256 << 10,
            background_writer: true,
            truncate_at_corruption: false,
            pin_threads: true,
        }
    }
}

/// What a recovery did.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RecoveryStats {
    pub start_lsn: Lsn,
    /// The end of the WAL replayed.
    pub end_lsn: Lsn,
    pub records: u64,
    /// Record bytes replayed (unpadded).
    pub bytes: u64,
    /// Blocks redone by their resource manager.
    pub blocks_applied: u64,
    /// Blocks restored from a full-page image.
    pub fpis_applied: u64,
    /// Blocks skipped by the page-LSN check (already on the page).
    pub blocks_skipped: u64,
    pub prefetches_issued: u64,
    /// Prefetched pages still not in the pool when their record was
    /// dispatched: the read that followed could use the readahead.
    pub prefetches_useful: u64,
    /// Pages the background writer wrote ahead of the clock.
    pub pages_cleaned: u64,
    pub threads: usize,
    /// Whether replay's threads were placed on CPUs (`pin_threads`, and the
    /// caller may run on two or more CPUs, and the kernel allowed it).
    pub threads_placed: bool,
    pub elapsed: Duration,
    /// Where the WAL ends (replay reads it to its end): `Wal::open_at_end`
    /// continues the log there without reading it again.
    pub wal_end: Option<WalEnd>,
    /// What `truncate_at_corruption` discarded, when replay met damage
    /// (a corrupt record followed by valid WAL, or a short segment) and
    /// ended there instead of refusing.
    pub discarded: Option<Discarded>,
}

impl RecoveryStats {
    pub fn records_per_sec(&self) -> f64 {
        self.records as f64 / self.elapsed.as_secs_f64().max(1e-9)
    }

    pub fn mb_per_sec(&self) -> f64 {
        self.bytes as f64 / 1e6 / self.elapsed.as_secs_f64().max(1e-9)
    }

    fn add_apply(&mut self, other: &ApplyStats) {
        self.blocks_applied += other.applied;
        self.fpis_applied += other.fpis;
        self.blocks_skipped += other.skipped;
    }
}

impl std::fmt::Display for RecoveryStats {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "recovery {}..{}: {} records ({:.0}/s, {:.1} MB/s) in {:.3} s on {} thread(s){}; \
             blocks applied {}, full-page images {}, skipped by LSN {}; \
             prefetches issued {}, useful {}; pages written ahead of the clock {}",
            self.start_lsn,
            self.end_lsn,
            self.records,
            self.records_per_sec(),
            self.mb_per_sec(),
            self.elapsed.as_secs_f64(),
            self.threads,
            if self.threads_placed {
                " placed on CPUs"
            } else {
                ""
            },
            self.blocks_applied,
            self.fpis_applied,
            self.blocks_skipped,
            self.prefetches_issued,
            self.prefetches_useful,
            self.pages_cleaned
        )
    }
}

#[derive(Debug, Default, Clone, Copy)]
struct ApplyStats {
    applied: u64,
    fpis: u64,
    skipped: u64,
}

/// Records sent to an apply thread per message at most.
const DISPATCH_BATCH: usize = 512;
/// Bytes of a batch after which it is sent anyway (records with full-page
/// images are 8 KiB each).
const BATCH_BYTES: usize = 256 << 10;
/// Messages queued per apply thread at most.
const CHANNEL_DEPTH: usize = 8;

/// Replays the WAL in `wal_dir` from `from` (a record start: the redo point
/// of the latest checkpoint) to its end, into `pool`. A torn tail ends the
/// WAL cleanly; mid-log corruption is `CorruptWal` unless the options say
/// otherwise.
pub fn recover(
    pool: &Arc<BufferPool>,
    wal_dir: Arc<dyn Dir>,
    from: Lsn,
    registry: &RedoRegistry,
    options: &RecoveryOptions,
) -> Result<RecoveryStats, RecoveryError> {
    let started = Instant::now();
    let mut reader = WalReader::open(
        wal_dir,
        ReaderOptions {
            truncate_at_corruption: options.truncate_at_corruption,
        },
    )?;
    reader
        .seek(from)
        .map_err(|e| RecoveryError::MissingRedoPoint {
            lsn: from,
            detail: e.to_string(),
        })?;
    let threads = options.threads.max(1);
    let mut stats = RecoveryStats {
        start_lsn: from,
        threads,
        ..RecoveryStats::default()
    };
    let cleaned_before = pool.stats().cleaned;
    let stop_helper = AtomicBool::new(false);
    // Pinned from here to the end of replay; dropped (the caller's affinity
    // restored) after every thread of the scope has ended.
    let placement = if options.pin_threads {
        Placement::pin_reader(threads - 1)
    } else {
        None
    };
    let placement = placement.as_ref();
    stats.threads_placed = placement.is_some();
    let lookahead = std::thread::scope(|scope| -> Result<Lookahead<'_>, RecoveryError> {
        // The helper thread (helper.rs) gives the readahead advice when
        // prefetch is on and cleans ahead of the clock when the background
        // writer is; it ends when the hint queue closes or replay stops it,
        // however replay ends.
        let prefetch = options.io_concurrency > 0;
        let (hints_tx, hints_rx) = if prefetch {
            let (tx, rx) = channel();
            (Some(tx), Some(rx))
        } else {
            (None, None)
        };
        let helper = if prefetch || options.background_writer {
            let helper = Helper {
                pool,
                hints: hints_rx,
                clean: options.background_writer,
                stop: &stop_helper,
            };
            let handle = std::thread::Builder::new()
                .name("folio-helper".into())
                .spawn_scoped(scope, move || {
                    if let Some(placement) = placement {
                        placement.pin_helper();
                    }
                    helper.run()
                })
                .map_err(RecoveryError::Thread)?;
            Some(handle)
        } else {
            None
        };
        let _stop_helper = StopOnDrop {
            flag: &stop_helper,
            helper: helper.as_ref().map(|h| h.thread().clone()),
        };
        let mut lookahead = Lookahead::new(
            reader,
            pool,
            options.io_concurrency,
            options.readahead_bytes,
            hints_tx,
        );
        if threads == 1 {
            let mut apply = ApplyStats::default();
            while let Some(decoded) = lookahead.next()? {
                count_record(pool, decoded, &mut stats);
                check_rmgr(registry, &decoded.record)?;
                for block in 0..decoded.record.blocks.len() {
                    apply_block(pool, registry, &decoded.record, block, &mut apply)?;
                }
            }
            stats.add_apply(&apply);
        } else {
            replay_parallel(
                pool,
                registry,
                &mut lookahead,
                threads,
                placement,
                &mut stats,
            )?;
        }
        lookahead.close_hints();
        drop(_stop_helper);
        if let Some(helper) = helper {
            helper.join().map_err(|_| RecoveryError::HelperPanicked)??;
        }
        Ok(lookahead)
    })?;
    stats.prefetches_issued = lookahead.prefetches_issued;
    stats.pages_cleaned = pool.stats().cleaned - cleaned_before;
    stats.end_lsn = lookahead.reader().end_lsn();
    stats.wal_end = lookahead.reader().wal_end();
    stats.discarded = lookahead.reader().discarded().cloned();
    stats.elapsed = started.elapsed();
    Ok(stats)
}

/// Sets its flag when dropped, and wakes the helper thread if it sleeps
/// (it parks between its idle steps), so replay never waits out its sleep
/// before returning.
struct StopOnDrop<'a> {
    flag: &'a AtomicBool,
    helper: Option<std::thread::Thread>,
}

impl Drop for StopOnDrop<'_> {
    fn drop(&mut self) {
        self.flag.store(true, Ordering::Release);
        if let Some(helper) = &self.helper {
            helper.unpark();
        }
    }
}

fn count_record(pool: &BufferPool, decoded: &Decoded, stats: &mut RecoveryStats) {
    stats.records += 1;
    stats.bytes += u64::from(decoded.record.total_len);
    for index in block_bits(decoded.prefetched) {
        if !pool.is_resident(decoded.record.blocks[index].page_id) {
            stats.prefetches_useful += 1;
        }
    }
}

/// The blocks set in a block mask (bit i: block i), lowest first.
pub(crate) fn block_bits(mut mask: u32) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        (mask != 0).then(|| {
            let index = mask.trailing_zeros() as usize;
            mask &= mask - 1;
            index
        })
    })
}

/// A record with pages needs a registered resource manager; one without
/// pages (e.g. the WAL's own records) has nothing to redo.
fn check_rmgr(registry: &RedoRegistry, record: &Record) -> Result<(), RecoveryError> {
    if !record.blocks.is_empty() && registry.get(record.rmgr).is_none() {
        return Err(RecoveryError::NoRedo {
            lsn: record.lsn,
            rmgr: record.rmgr.0,
        });
    }
    Ok(())
}

/// Steps 1-4 of the module comment for block `index` of `record`.
fn apply_block(
    pool: &BufferPool,
    registry: &RedoRegistry,
    record: &Record,
    index: usize,
    stats: &mut ApplyStats,
) -> Result<(), RecoveryError> {
    let block = &record.blocks[index];
    let mut page = pool.exclusive_for_redo(block.page_id, block.image.is_some())?;
    if let Some(image) = &block.image {
        page.copy_from_slice(&image[..]);
        folio_page::set_header_lsn(&mut page, record.end_lsn);
        stats.fpis += 1;
        return Ok(());
    }
    if folio_page::header_lsn(&page) >= record.end_lsn {
        stats.skipped += 1;
        return Ok(());
    }
    let redo = registry.get(record.rmgr).ok_or(RecoveryError::NoRedo {
        lsn: record.lsn,
        rmgr: record.rmgr.0,
    })?;
    redo.redo_block(record, index, &mut page)
        .map_err(|source| RecoveryError::Redo {
            lsn: record.lsn,
            page_id: block.page_id,
            rmgr: redo.name(),
            source,
        })?;
    folio_page::set_header_lsn(&mut page, record.end_lsn);
    stats.applied += 1;
    Ok(())
}

/// The partition of a page: 0 is the reading thread, 1..threads the apply
/// threads. The reading thread also decodes and dispatches, so it gets one
/// share of the pages and every apply thread `APPLY_SHARES`; a
/// multiplicative hash spreads strided page ids evenly.
///
/// Pages whose latch words share a cache line (`PAGES_PER_STATE_LINE`
/// consecutive ids) go to one partition: split by page, every line held
/// words of both threads' pages, and each latch taken moved the line
/// between the cores (perf, 2 threads, seed-001 WAL: the apply thread's
/// `exclusive_with` 297 → 256 samples, its whole apply 2,246 → 2,127,
/// against 2,051 for the same blocks on one thread).
fn partition(page: u64, threads: usize) -> usize {
    let shares = APPLY_SHARES * (threads as u64 - 1) + 1;
    // The hash's high 32 bits scaled to [0, shares) by a multiply and a
    // shift: a `%` by the run-time share count was an integer division per
    // block, ~10 % of the reading thread's dispatch loop.
    let line = page / PAGES_PER_STATE_LINE;
    let hash = line.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 32;
    let share = (hash * shares) >> 32;
    share.div_ceil(APPLY_SHARES) as usize
}

/// Sets `masks[p]` to the blocks of `record` that thread `p` applies (bit
/// i: block i), for the `masks.len()` threads of replay: a block with a
/// full-page image goes to the reading thread (0), every other block to its
/// page's partition.
///
/// The reading thread restores images as it dispatches, in log order, ahead
/// of earlier records of the same page still queued for an apply thread.
/// Those find the page's LSN at the image's record and are skipped (step 3
/// of the module comment), which is what applying them in order and then
/// the image would have left. Later records of the page are queued after
/// the image is in place. This way no image travels to another core: it is
/// copied once, from the decoded record into the frame.
fn partition_blocks(record: &Record, masks: &mut [u32]) {
    masks.fill(0);
    for (index, block) in record.blocks.iter().enumerate() {
        let thread = if block.image.is_some() {
            0
        } else {
            partition(block.page_id.0, masks.len())
        };
        masks[thread] |= 1 << index;
    }
}

/// Shares of the pages per apply thread, against one for the reading
/// thread, which also decodes, dispatches, packs batches and restores every
/// full-page image. Chosen by sweeping it on the seed-001 WAL
/// (`replay_rate 4000`, 2 threads, best of 3 per process, five or six
/// alternating processes): 3 → 7.3-8.4M, 4 → 7.4-8.4M, 5 → 8.9-9.3M in
/// most runs, 6 → 8.3-8.6M, 8 → 8.4-8.7M, 12 → 7.6-8.0M records/s. With 12
/// the apply thread was busy all the time and the reading thread 81 %.
/// (It was 12 while the reading thread moved whole records through return
/// values, 4 before that when a redone insert cost twice as much.)
const APPLY_SHARES: u64 = 5;

/// Parallel replay: partition 0 is applied by the reading thread itself
/// (so `threads` threads in all), the others by spawned apply threads, each
/// from batches of packed records (`batch.rs`).
fn replay_parallel(
    pool: &Arc<BufferPool>,
    registry: &RedoRegistry,
    lookahead: &mut Lookahead<'_>,
    threads: usize,
    placement: Option<&Placement>,
    stats: &mut RecoveryStats,
) -> Result<(), RecoveryError> {
    std::thread::scope(|scope| {
        let mut senders: Vec<SyncSender<Batch>> = Vec::with_capacity(threads - 1);
        let mut handles = Vec::with_capacity(threads - 1);
        // Applied batches come back to be filled again: their memory stays
        // with the two threads that use it.
        let (done_tx, done_rx) = channel::<Batch>();
        for i in 1..threads {
            let (tx, rx) = sync_channel::<Batch>(CHANNEL_DEPTH);
            let done = done_tx.clone();
            let handle = std::thread::Builder::new()
                .name(format!("folio-redo-{i}"))
                .spawn_scoped(scope, move || {
                    if let Some(placement) = placement {
                        placement.pin_apply(i);
                    }
                    apply_worker(pool, registry, rx, done)
                })
                .map_err(RecoveryError::Thread)?;
            senders.push(tx);
            handles.push(handle);
        }
        let mut batches: Vec<Batch> = (1..threads)
            .map(|_| Batch::with_capacity(BATCH_BYTES))
            .collect();
        // Blocks of the current record by partition (bit i: block i).
        let mut masks = vec![0u32; threads];
        let mut own = ApplyStats::default();
        let mut dispatch_error = None;
        let mut worker_gone = false;
        'records: loop {
            let decoded = match lookahead.next() {
                Ok(Some(decoded)) => decoded,
                Ok(None) => break,
                Err(e) => {
                    dispatch_error = Some(e);
                    break;
                }
            };
            count_record(pool, decoded, stats);
            if let Err(e) = check_rmgr(registry, &decoded.record) {
                dispatch_error = Some(e);
                break;
            }
            let record = &decoded.record;
            partition_blocks(record, &mut masks);
            for index in block_bits(masks[0]) {
                if let Err(e) = apply_block(pool, registry, record, index, &mut own) {
                    dispatch_error = Some(e);
                    break 'records;
                }
            }
            for part in 1..threads {
                if masks[part] == 0 {
                    continue;
                }
                let batch = &mut batches[part - 1];
                batch.push(record, masks[part]);
                if batch.records() < DISPATCH_BATCH && batch.byte_len() < BATCH_BYTES {
                    continue;
                }
                let empty = match done_rx.try_recv() {
                    Ok(mut applied) => {
                        applied.clear();
                        applied
                    }
                    Err(_) => Batch::with_capacity(BATCH_BYTES),
                };
                let ready = std::mem::replace(batch, empty);
                if senders[part - 1].send(ready).is_err() {
                    worker_gone = true; // it stopped on an error
                    break 'records;
                }
            }
        }
        stats.add_apply(&own);
        if !worker_gone && dispatch_error.is_none() {
            for (sender, batch) in senders.iter().zip(batches) {
                if batch.records() > 0 && sender.send(batch).is_err() {
                    break;
                }
            }
        }
        drop(senders);
        drop(done_tx);
        // Free what comes back until every worker has finished.
        for applied in done_rx {
            drop(applied);
        }
        let mut worker_error = None;
        for handle in handles {
            match handle.join() {
                Ok(Ok(apply)) => stats.add_apply(&apply),
                Ok(Err(e)) => worker_error = worker_error.or(Some(e)),
                Err(_) => worker_error = worker_error.or(Some(RecoveryError::ApplyPanicked)),
            }
        }
        match worker_error.or(dispatch_error) {
            Some(e) => Err(e),
            None => Ok(()),
        }
    })
}

/// How long an idle apply thread polls its channel before it sleeps (and
/// the helper thread its hint queue, helper.rs).
pub(crate) const SPIN_BEFORE_SLEEP: Duration = Duration::from_millis(2);

/// The next batch, `None` once the reader is done. Polls (yielding the CPU
/// to anything else runnable) for up to `SPIN_BEFORE_SLEEP` before it
/// blocks: a batch sent to a sleeping receiver costs the reading thread a
/// futex wake-up (an inter-processor interrupt on a VM); measured, the
/// reading thread's CPU time per replay fell by ~8 % (with 2 threads both
/// are busy ~95 % of a replay: neither may waste CPU).
fn receive<T>(rx: &Receiver<T>) -> Option<T> {
    let started = Instant::now();
    loop {
        match rx.try_recv() {
            Ok(item) => return Some(item),
            Err(TryRecvError::Disconnected) => return None,
            Err(TryRecvError::Empty) if started.elapsed() < SPIN_BEFORE_SLEEP => {
                std::thread::yield_now();
            }
            Err(TryRecvError::Empty) => return rx.recv().ok(),
        }
    }
}

fn apply_worker(
    pool: &BufferPool,
    registry: &RedoRegistry,
    rx: Receiver<Batch>,
    done: Sender<Batch>,
) -> Result<ApplyStats, RecoveryError> {
    let mut stats = ApplyStats::default();
    // Every entry is unpacked into this one record, which stays in this
    // thread's cache.
    let mut record = Record::empty();
    while let Some(batch) = receive(&rx) {
        for entry in batch.entries() {
            entry.unpack_into(&mut record);
            for index in block_bits(entry.apply()) {
                apply_block(pool, registry, &record, index, &mut stats)?;
            }
        }
        // The reader frees it; if it is gone, dropping here is fine too.
        let _ = done.send(batch);
    }
    Ok(stats)
}

#[cfg(test)]
mod tests {
    use super::*;
    use folio_page::PageId;
    use folio_wal::{Block, RmgrId};

    fn record(pages: &[u64]) -> Record {
        record_with_images(pages, &[])
    }

    fn record_with_images(pages: &[u64], images: &[usize]) -> Record {
        Record {
            lsn: Lsn(0),
            end_lsn: Lsn(64),
            prev_lsn: Lsn(0),
            rmgr: RmgrId(0),
            rtype: 0,
            blocks: pages
                .iter()
                .enumerate()
                .map(|(i, &p)| Block {
                    page_id: PageId(p),
                    image: images
                        .contains(&i)
                        .then(|| Box::new([0u8; folio_page::PAGE_SIZE])),
                    data: Vec::new(),
                })
                .collect(),
            data: Vec::new(),
            total_len: 64,
        }
    }

    #[test]
    fn partitions_share_pages_as_designed_and_images_go_to_the_reader() {
        // Proves the page partitioning gives the reading thread one share
        // and each apply thread APPLY_SHARES of consecutive page ids (within
        // 2 %), keeps pages whose latch words share a cache line together,
        // that every partition index is in range, and that each block of a
        // record is marked in exactly its page's partition, except blocks
        // with an image, which the reading thread (0) restores.
        for threads in [2usize, 3, 4] {
            let pages = 100_000u64;
            let mut counts = vec![0u64; threads];
            for page in 0..pages {
                counts[partition(page, threads)] += 1;
            }
            let shares = (APPLY_SHARES * (threads as u64 - 1) + 1) as f64;
            let reader = counts[0] as f64 / pages as f64;
            assert!(
                (reader - 1.0 / shares).abs() < 0.02,
                "{threads}: {counts:?}"
            );
            for &count in &counts[1..] {
                let share = count as f64 / pages as f64;
                assert!((share - APPLY_SHARES as f64 / shares).abs() < 0.02);
            }
            for page in 0..pages {
                let first = page - page % PAGES_PER_STATE_LINE;
                assert_eq!(partition(page, threads), partition(first, threads));
            }
        }
        let threads = 2;
        let (a, b) = (0..)
            .map(|p| (p, p + 1))
            .find(|&(p, q)| partition(p, threads) != partition(q, threads))
            .expect("two neighbours in different partitions");
        let (pa, pb) = (partition(a, threads), partition(b, threads));
        let mut masks = vec![u32::MAX; threads];
        partition_blocks(&record(&[a, b, a]), &mut masks);
        assert_eq!((masks[pa], masks[pb]), (0b101, 0b010));
        // With 2 threads one of the neighbours is the reading thread's.
        let (reader_page, apply_page) = if pa == 0 { (a, b) } else { (b, a) };
        let images = record_with_images(&[reader_page, apply_page, apply_page], &[1]);
        partition_blocks(&images, &mut masks);
        assert_eq!((masks[0], masks[1]), (0b011, 0b100));
        assert_eq!(block_bits(0b1010_0001).collect::<Vec<_>>(), vec![0, 5, 7]);
        partition_blocks(&record(&[]), &mut masks);
        assert_eq!(masks, vec![0; threads]);
    }
}
