//! The recovery driver, checkpoints and the end-of-WAL rules, on the
//! simulated device.

mod replay_support;

use folio_io::{Dir, SimConfig, SimDir};
use folio_page::{HEADER_SIZE, Lsn, PAGE_SIZE, PageId};
use folio_recovery::{
    CONTROL_FILE, CheckpointConfig, CheckpointKind, Checkpointer, ControlData, ControlError,
    DbState, RecoveryError, RecoveryOptions, RecoveryStats, insert_commit, recover,
};
use replay_support::*;
use std::sync::Arc;

fn options(io_concurrency: usize, threads: usize) -> RecoveryOptions {
    RecoveryOptions {
        io_concurrency,
        threads,
        ..RecoveryOptions::default()
    }
}

fn initial_control() -> ControlData {
    ControlData {
        state: DbState::InProduction,
        checkpoint_lsn: Lsn(0),
        redo_lsn: Lsn(0),
        wal_system_id: 0,
        checkpoint_count: 0,
        checkpoint_time_ms: 0,
        checksums: true,
    }
}

/// A checkpointer for `e` with the default configuration, starting from
/// [`initial_control`].
fn checkpointer(e: &Engine, dir: &Arc<SimDir>) -> Checkpointer {
    Checkpointer::new(
        e.pool.clone(),
        e.wal.clone(),
        dir.clone(),
        initial_control(),
        CheckpointConfig::default(),
    )
}

/// Runs the seeded workload, makes the WAL durable, crashes (the data file
/// keeps whatever the crash leaves of its unsynced writes) and recovers.
fn crash_and_recover(seed: u64, frames: u64, opts: &RecoveryOptions) -> (RecoveryStats, Model) {
    let dir = SimDir::new(SimConfig::seeded(seed));
    let e = create(&dir, frames);
    let model = workload(&e, seed, 24, 300);
    let commit = insert_commit(&e.wal).unwrap();
    e.wal.commit(commit.end_lsn).unwrap();
    let after = dir.crash();
    drop(e);
    let (pool, _wal) = open_for_recovery(&after, frames);
    let stats = recover(&pool, after.clone(), Lsn(0), &registry(), opts).unwrap();
    pool.verify_meta().unwrap();
    check_model(&pool, &model);
    pool.check_invariants().unwrap();
    assert_eq!(pool.page_count().unwrap(), 25, "allocation replayed");
    (stats, model)
}

#[test]
fn replay_restores_every_committed_change_with_any_threads_and_prefetch() {
    // Proves replay from the WAL alone (evicted pages partly written, then a
    // crash) rebuilds every page exactly, single-threaded and partitioned
    // over 3 apply threads, with prefetch off and on, with the background
    // writer cleaning the 12-frame pool and without it (then it writes
    // nothing); and that the counters add up (every block is applied,
    // restored from an image, or skipped).
    for (io, threads, background_writer) in [
        (0, 1, true),
        (8, 1, true),
        (0, 3, true),
        (16, 3, true),
        (0, 1, false),
        (16, 3, false),
    ] {
        let opts = RecoveryOptions {
            background_writer,
            ..options(io, threads)
        };
        let (stats, _) = crash_and_recover(7, 12, &opts);
        if !background_writer {
            assert_eq!(stats.pages_cleaned, 0, "{stats}");
        }
        assert_eq!(stats.threads, threads);
        assert!(stats.records >= 300, "{stats}");
        assert!(
            stats.fpis_applied >= 24,
            "first change of each page: {stats}"
        );
        assert_eq!(
            stats.blocks_applied + stats.fpis_applied + stats.blocks_skipped,
            300 + stats.records - 301,
            "one block per write, one or two per allocation: {stats}"
        );
        if io == 0 {
            assert_eq!(stats.prefetches_issued, 0);
        }
    }
}

#[test]
fn an_image_restored_ahead_of_older_queued_records_replays_exactly() {
    // Proves parallel apply rebuilds every page exactly when pages carry
    // several full-page images (the redo point moved every 40 writes, no
    // checkpoint written, so replay starts before all of them) and many
    // records each. The reading thread restores each image at once, while
    // older records of its page still wait in an apply thread's batch;
    // those must be skipped by the page LSN. In-order replay (1 thread)
    // skips nothing; parallel replay skips (the scenario happened), and
    // every block is applied, restored or skipped.
    let spaced = |i: u64| 1 + 8 * i; // one page per latch-word line
    for threads in [1, 2, 3] {
        let dir = SimDir::new(SimConfig::seeded(11));
        let e = create(&dir, 128);
        let mut model = Model::new();
        for _ in 0..spaced(7) {
            e.pool.allocate().unwrap();
        }
        let pages: Vec<u64> = (0..8).map(spaced).collect();
        for &page in &pages {
            model.insert(page, vec![0; PAGE_SIZE - HEADER_SIZE]);
        }
        for round in 0..600u64 {
            if round % 40 == 0 {
                e.wal.begin_checkpoint();
            }
            let page = pages[(round * 5 % 8) as usize];
            let at = HEADER_SIZE + (round as usize * 13) % 4000;
            let bytes = [(round % 251) as u8; 9];
            logged_write(&e, PageId(page), at, &bytes);
            let body = model.get_mut(&page).unwrap();
            body[at - HEADER_SIZE..][..bytes.len()].copy_from_slice(&bytes);
        }
        let commit = insert_commit(&e.wal).unwrap();
        e.wal.commit(commit.end_lsn).unwrap();
        let after = dir.crash();
        drop(e);
        let (pool, _wal) = open_for_recovery(&after, 128);
        let opts = options(0, threads);
        let stats = recover(&pool, after.clone(), Lsn(0), &registry(), &opts).unwrap();
        check_model(&pool, &model);
        assert!(
            stats.fpis_applied >= 15 * 8,
            "an image per page per move: {stats}"
        );
        if threads == 1 {
            assert_eq!(stats.blocks_skipped, 0, "{stats}");
        } else {
            assert!(stats.blocks_skipped > 0, "{stats}");
        }
        assert_eq!(
            stats.blocks_applied + stats.fpis_applied + stats.blocks_skipped,
            stats.records - 1,
            "one block per record but the commit: {stats}"
        );
    }
}

/// The CPUs the calling thread may run on.
fn allowed_cpus() -> Vec<usize> {
    use rustix::thread::{CpuSet, sched_getaffinity};
    let set = sched_getaffinity(None).unwrap();
    (0..CpuSet::MAX_CPU)
        .filter(|&cpu| set.is_set(cpu))
        .collect()
}

#[test]
fn thread_placement_is_reported_and_the_callers_affinity_restored() {
    // Proves recovery places its threads only when asked and when there is
    // more than one CPU to place them on, says so in its statistics, and
    // gives the calling thread its own affinity back; replay is exact
    // either way (checked by `crash_and_recover`).
    let before = allowed_cpus();
    for pin_threads in [false, true] {
        let opts = RecoveryOptions {
            pin_threads,
            ..options(8, 3)
        };
        let (stats, _) = crash_and_recover(11, 12, &opts);
        assert_eq!(
            stats.threads_placed,
            pin_threads && before.len() > 1,
            "{stats}"
        );
        assert_eq!(allowed_cpus(), before, "pin_threads {pin_threads}");
    }
}

#[test]
fn prefetch_is_issued_for_pages_not_in_the_pool() {
    // Proves the lookahead prefetches blocks whose pages are not resident
    // (small pool, data larger than it), counts prefetches that were still
    // needed when their record was applied, and bounds nothing else. The
    // window is a few records: with the whole WAL in it, every page would
    // count as brought in by its first record's image.
    let opts = RecoveryOptions {
        readahead_bytes: 2 << 10,
        ..options(16, 1)
    };
    let (stats, _) = crash_and_recover(3, 8, &opts);
    assert!(stats.prefetches_issued > 0, "{stats}");
    assert!(stats.prefetches_useful > 0, "{stats}");
    assert!(stats.prefetches_useful <= stats.prefetches_issued);
}

#[test]
fn no_prefetch_for_pages_an_earlier_record_brings_in() {
    // Proves the lookahead issues no read for a page that a record ahead of
    // it in the queue restores from a full-page image: replay from the start
    // of the WAL, where every page's first record carries its image, into a
    // pool that holds every page, prefetches nothing, although no page is
    // resident when the records after the image are decoded.
    let (stats, _) = crash_and_recover(3, 64, &options(16, 1));
    assert!(stats.fpis_applied >= 24, "{stats}");
    assert_eq!(stats.prefetches_issued, 0, "{stats}");
}

#[test]
fn recovery_is_idempotent_and_skips_by_page_lsn() {
    // Proves replay is idempotent (a second recovery over a recovered and
    // flushed data file yields the same pages) and that the page-LSN check
    // skips every block already on its page: replaying only records without
    // full-page images over newer pages applies nothing.
    let dir = SimDir::new(SimConfig::seeded(11));
    let e = create(&dir, 64);
    let mut model = workload(&e, 11, 10, 100);
    let later = e.wal.insert_lsn();
    for i in 0..50u64 {
        let page = 1 + i % 10;
        logged_write(&e, PageId(page), 300, &i.to_le_bytes());
        model.get_mut(&page).unwrap()[300 - 24..300 - 24 + 8].copy_from_slice(&i.to_le_bytes());
    }
    e.wal.flush_all().unwrap();
    let after = dir.crash();
    drop(e);
    let (pool, wal) = open_for_recovery(&after, 64);
    recover(&pool, after.clone(), Lsn(0), &registry(), &options(4, 1)).unwrap();
    pool.flush_all().unwrap();
    drop((pool, wal));
    let (pool, wal) = open_for_recovery(&after, 64);
    let again = recover(&pool, after.clone(), Lsn(0), &registry(), &options(4, 2)).unwrap();
    check_model(&pool, &model);
    pool.flush_all().unwrap();
    drop((pool, wal));
    let (pool, _wal) = open_for_recovery(&after, 64);
    let tail = recover(&pool, after.clone(), later, &registry(), &options(4, 2)).unwrap();
    assert_eq!((tail.records, tail.blocks_skipped), (50, 50), "{tail}");
    assert_eq!(
        tail.blocks_applied + tail.fpis_applied,
        0,
        "{tail} / {again}"
    );
    check_model(&pool, &model);
}

#[test]
fn torn_data_page_is_restored_from_its_full_page_image() {
    // Proves a data page damaged on disk (bits flipped, as a torn write
    // leaves it) is rebuilt from the full-page image its first change after
    // the checkpoint logged, without ever being read: the recovered page is
    // exact and verifies.
    let dir = SimDir::new(SimConfig::seeded(5));
    let e = create(&dir, 64);
    let ckpt = checkpointer(&e, &dir);
    let mut model = workload(&e, 5, 6, 40);
    ckpt.checkpoint(CheckpointKind::Immediate).unwrap();
    logged_write(&e, PageId(3), 100, b"after the checkpoint");
    model.get_mut(&3).unwrap()[100 - 24..100 - 24 + 20].copy_from_slice(b"after the checkpoint");
    e.pool.flush_all().unwrap(); // page 3 on disk, WAL flushed by the WAL rule
    drop(ckpt);
    let after = dir.crash();
    drop(e);
    for bit in [
        3 * PAGE_SIZE as u64 * 8 + 900 * 8,
        3 * PAGE_SIZE as u64 * 8 + 7000 * 8,
    ] {
        after.corrupt_bit(DATA_FILE, bit).unwrap();
    }
    let control = ControlData::load(after.as_ref()).unwrap();
    let (pool, _wal) = open_for_recovery(&after, 64);
    assert!(
        pool.shared(PageId(3)).is_err(),
        "the page is damaged on disk"
    );
    let stats = recover(
        &pool,
        after.clone(),
        control.redo_lsn,
        &registry(),
        &options(4, 1),
    )
    .unwrap();
    assert!(stats.fpis_applied >= 1, "{stats}");
    check_model(&pool, &model);
    pool.flush_all().unwrap();
    let mut page = [0u8; PAGE_SIZE];
    page.copy_from_slice(&after.read_durable(DATA_FILE).unwrap()[3 * PAGE_SIZE..4 * PAGE_SIZE]);
    folio_page::verify_checksum(&page, PageId(3)).unwrap();
}

#[test]
fn checkpoint_moves_the_redo_point_and_releases_wal() {
    // Proves a checkpoint writes the dirty pages, logs its record, replaces
    // the control file with the new redo point, and that recovery from that
    // point replays only the later records yet rebuilds everything; old
    // segments are released and removed.
    let dir = SimDir::new(SimConfig::seeded(9));
    let e = create(&dir, 64);
    let ckpt = checkpointer(&e, &dir);
    let mut model = workload(&e, 9, 16, 2_000);
    let first = ckpt.checkpoint(CheckpointKind::Immediate).unwrap();
    assert!(first.pages_written >= 16);
    let more = workload(&e, 10, 4, 50);
    model.extend(more);
    let second = ckpt.checkpoint(CheckpointKind::Spread).unwrap();
    assert!(second.redo_lsn > first.redo_lsn);
    assert!(
        first.segments_recycled
            + first.segments_removed
            + second.segments_recycled
            + second.segments_removed
            > 0,
        "WAL before the redo point was released"
    );
    let tail = workload(&e, 12, 2, 30);
    model.extend(tail);
    let commit = insert_commit(&e.wal).unwrap();
    e.wal.commit(commit.end_lsn).unwrap();
    drop(ckpt);
    let after = dir.crash();
    drop(e);
    let control = ControlData::load(after.as_ref()).unwrap();
    assert_eq!(control.redo_lsn, second.redo_lsn);
    assert_eq!(control.checkpoint_count, 2);
    let (pool, _wal) = open_for_recovery(&after, 64);
    let stats = recover(
        &pool,
        after.clone(),
        control.redo_lsn,
        &registry(),
        &options(8, 2),
    )
    .unwrap();
    assert!(stats.records < 100, "only the tail is replayed: {stats}");
    check_model(&pool, &model);
}

#[test]
fn corrupt_record_mid_log_refuses_and_the_override_truncates() {
    // Proves a damaged record followed by durable WAL stops recovery with an
    // error naming its LSN (and the override), and that with
    // truncate_at_corruption recovery ends there instead.
    let dir = SimDir::new(SimConfig::seeded(13));
    let e = create(&dir, 64);
    workload(&e, 13, 4, 20);
    let victim = logged_write(&e, PageId(2), 500, &[0xAB; 40]);
    e.wal.flush_all().unwrap();
    workload(&e, 14, 2, 40);
    e.wal.flush_all().unwrap();
    let after = dir.crash();
    drop(e);
    // Flip a bit inside the victim record's data (just before its end).
    let segment = folio_wal::segment_file_name(0);
    after.corrupt_bit(&segment, (victim.0 - 20) * 8).unwrap();
    let file = after
        .open(DATA_FILE, folio_io::OpenOptions::EXISTING)
        .unwrap();
    let pool = folio_buffer::BufferPool::open(file, pool_config(64)).unwrap();
    let err = recover(&pool, after.clone(), Lsn(0), &registry(), &options(0, 1)).unwrap_err();
    let RecoveryError::CorruptWal { lsn, .. } = &err else {
        panic!("{err}");
    };
    assert!(*lsn < victim);
    assert!(err.to_string().contains("truncate_at_corruption"), "{err}");
    let truncated = RecoveryOptions {
        truncate_at_corruption: true,
        ..options(0, 1)
    };
    let stats = recover(&pool, after.clone(), Lsn(0), &registry(), &truncated).unwrap();
    assert!(stats.end_lsn < victim);
}

#[test]
fn damaged_control_file_is_a_clear_error() {
    // Proves a control file with a flipped bit is refused with "damaged",
    // and a directory without one is "missing".
    let dir = SimDir::new(SimConfig::seeded(2));
    initial_control().store(dir.as_ref()).unwrap();
    dir.corrupt_bit(CONTROL_FILE, 8 * 20 + 1).unwrap();
    let err = ControlData::load(dir.as_ref()).unwrap_err();
    assert!(matches!(err, ControlError::Damaged { .. }), "{err}");
    assert!(err.to_string().contains("damaged"));
    dir.remove(CONTROL_FILE).unwrap();
    assert!(matches!(
        ControlData::load(dir.as_ref()),
        Err(ControlError::Missing(_))
    ));
    let _ = Arc::clone(&dir);
}
