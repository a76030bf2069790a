//! Failure behaviour on the simulated device: torn tails, mid-log
//! corruption, ENOSPC, fsync EIO, and a crash at every operation.

mod common;

use common::*;
use folio_io::{Dir, Fault, OpKind, SimConfig, SimDir};
use folio_page::Lsn;
use folio_wal::{
    Inserted, ReaderOptions, RecordBuilder, Recycle, WAL_PAGE_SIZE, Wal, WalConfig, WalError,
    WalReader, WalStats, segment_file_name,
};
use std::sync::Arc;

fn insert_seq(wal: &Wal, writer: u64, range: std::ops::Range<u64>) -> Vec<Inserted> {
    range
        .map(|seq| with_record(writer, seq, |b| wal.insert(b).unwrap()))
        .collect()
}

/// Flips one bit of the durable image at WAL position `lsn`.
fn corrupt_at(sim: &SimDir, config: &WalConfig, lsn: Lsn) {
    let seg = config.segment_size_bytes;
    let name = segment_file_name(lsn.0 / seg);
    sim.corrupt_bit(&name, (lsn.0 % seg) * 8 + 3).unwrap();
}

// Proves a torn tail (unsynced writes lost, torn or reordered by a crash)
// ends the WAL cleanly: every flushed record survives, what follows is a
// prefix of the unflushed ones, and the log continues after reopening.
#[test]
fn torn_tail_ends_cleanly() {
    for seed in 0..40 {
        let sim = SimDir::new(SimConfig::seeded(seed));
        let wal = Wal::open(sim.clone(), small_config()).unwrap();
        insert_seq(&wal, 1, 0..30);
        wal.flush_all().unwrap();
        insert_seq(&wal, 1, 30..60);
        wal.write_all().unwrap();
        drop(wal);
        let dir: Arc<dyn Dir> = sim.crash();
        let wal = Wal::open(dir.clone(), small_config()).unwrap();
        let found = wal.open_info().records_scanned;
        eprintln!("seed {seed}: {found} records survive");
        assert!((30..=60).contains(&found), "seed {seed}: {found} records");
        insert_seq(&wal, 2, 0..10);
        wal.flush_all().unwrap();
        drop(wal);
        let recs = read_all(dir);
        assert_eq!(recs.len() as u64, found + 10, "seed {seed}");
        for (i, r) in recs.iter().enumerate() {
            let want = if (i as u64) < found {
                (1, i as u64)
            } else {
                (2, i as u64 - found)
            };
            assert_eq!(parse_payload(r), want, "seed {seed}");
        }
    }
}

// Proves a CRC-bad last record with nothing valid after it is a torn tail:
// the WAL ends just before it, without an error.
#[test]
fn bad_last_record_is_a_torn_tail() {
    let sim = SimDir::new(SimConfig::seeded(3));
    let config = small_config();
    let wal = Wal::open(sim.clone(), config.clone()).unwrap();
    insert_seq(&wal, 1, 0..20);
    wal.flush_all().unwrap();
    let last = insert_seq(&wal, 1, 20..21)[0];
    wal.flush_all().unwrap();
    drop(wal);
    corrupt_at(&sim, &config, Lsn(last.start_lsn.0 + 30));
    let recs = read_all(sim.clone());
    assert_eq!(recs.len(), 20);
    let wal = Wal::open(sim, config).unwrap();
    assert_eq!(wal.open_info().end_lsn, recs[19].end_lsn);
}

// Proves a corrupt record followed by valid, durable WAL is reported as
// CorruptMidLog naming the record, both by the reader and by Wal::open;
// and that the documented override truncates there instead.
#[test]
fn mid_log_corruption_is_an_error_with_override() {
    let sim = SimDir::new(SimConfig::seeded(4));
    let config = small_config();
    let wal = Wal::open(sim.clone(), config.clone()).unwrap();
    let first = insert_seq(&wal, 1, 0..40);
    wal.flush_all().unwrap();
    let second = insert_seq(&wal, 1, 40..80);
    wal.flush_all().unwrap();
    drop(wal);
    let victim = first[25].start_lsn;
    corrupt_at(&sim, &config, Lsn(victim.0 + 12));

    let mut reader = WalReader::open(sim.clone(), ReaderOptions::default()).unwrap();
    let mut n = 0;
    let err = loop {
        match reader.next_record() {
            Ok(Some(_)) => n += 1,
            Ok(None) => panic!("corruption read as the end of the WAL"),
            Err(e) => break e,
        }
    };
    assert_eq!(n, 25);
    match err {
        WalError::CorruptMidLog { lsn, .. } => assert_eq!(lsn, victim),
        other => panic!("unexpected {other}"),
    }
    assert!(matches!(
        Wal::open(sim.clone(), config.clone()),
        Err(WalError::CorruptMidLog { lsn, .. }) if lsn == victim
    ));

    let options = ReaderOptions {
        truncate_at_corruption: true,
    };
    let reader = WalReader::open(sim.clone(), options).unwrap();
    let recs: Vec<_> = reader.collect::<Result<_, _>>().unwrap();
    assert_eq!(recs.len(), 25);
    let wal = Wal::open(
        sim.clone(),
        WalConfig {
            truncate_at_corruption: true,
            ..config.clone()
        },
    )
    .unwrap();
    assert_eq!(wal.open_info().end_lsn, first[24].end_lsn);
    // The override reports what it discarded: every record that starts on
    // a page after the damaged record's page (those on its own page after
    // it cannot be located), up to the last one.
    let all: Vec<Inserted> = first.iter().chain(&second).copied().collect();
    let page = |lsn: Lsn| lsn.0 / WAL_PAGE_SIZE as u64;
    let after: Vec<usize> = (0..all.len())
        .filter(|&seq| page(all[seq].start_lsn) > page(victim))
        .collect();
    let discarded = wal.discarded().expect("a discard report");
    assert_eq!(discarded.from_lsn, victim);
    assert_eq!(discarded.records, after.len() as u64);
    let of_type_1 = after.iter().filter(|&&seq| seq % 4 == 1).count() as u64;
    assert_eq!(discarded.records_of(TEST_RMGR, 1), of_type_1);
    assert_eq!(discarded.bytes, all.last().unwrap().end_lsn.0 - victim.0);
    assert!(discarded.short_segments.is_empty());
    // After the override the log continues from there; the discarded
    // records' pages are stale (older generation) and a normal open later
    // neither reads them nor mistakes them for mid-log corruption.
    insert_seq(&wal, 2, 0..5);
    wal.flush_all().unwrap();
    drop(wal);
    let wal = Wal::open(sim.clone(), config).unwrap();
    assert_eq!(wal.open_info().records_scanned, 30);
    drop(wal);
    let recs = read_all(sim);
    assert_eq!(recs.last().map(parse_payload), Some((2, 4)));
}

// Proves WAL space is claimed by the insert that needs it: on a full disk
// the ordinary insert whose record needs a new segment fails with NoSpace
// naming the segment and its size; the WAL is not poisoned; everything
// inserted before flushes (the writer never needs a missing segment); a
// checkpoint record still fits, many times over, and flushes; once space
// returns the log continues with nothing lost.
#[test]
fn enospc_at_segment_creation_fails_the_insert_then_recovery() {
    let sim = SimDir::new(SimConfig::seeded(5));
    let config = WalConfig {
        init_zero: true,
        ..small_config()
    };
    let wal = Wal::open(sim.clone(), config.clone()).unwrap();
    insert_seq(&wal, 1, 0..5);
    wal.flush_all().unwrap();
    sim.set_capacity_bytes(Some(sim.stored_bytes()));
    let mut seq = 5;
    let err = loop {
        match with_record(1, seq, |b| wal.insert(b)) {
            Ok(at) => wal.flush_to(at.end_lsn).expect("an inserted record fits"),
            Err(e) => break e,
        }
        seq += 1;
        assert!(seq < 500, "never ran out of space");
    };
    assert!(err.is_no_space(), "{err}");
    let message = err.to_string();
    assert!(
        message.contains("wal-")
            && message.contains(&format!("{} bytes needed", config.segment_size_bytes)),
        "{message}"
    );
    assert!(!wal.is_poisoned());
    wal.flush_all()
        .expect("everything inserted fits in existing segments");
    // The checkpoint reserve: records the size of a checkpoint record still
    // fit and flush, many times over.
    for _ in 0..50 {
        let mut checkpoint_like = RecordBuilder::new(TEST_RMGR, 0);
        checkpoint_like.register_data(&[0u8; 8]).unwrap();
        let at = wal.insert_privileged(&checkpoint_like).unwrap();
        wal.flush_to(at.end_lsn).unwrap();
    }
    assert!(
        with_record(1, seq, |b| wal.insert(b))
            .unwrap_err()
            .is_no_space()
    );
    sim.set_capacity_bytes(None);
    let at = insert_seq(&wal, 1, seq..seq + 20);
    wal.flush_to(at.last().unwrap().end_lsn).unwrap();
    drop(wal);
    let dir: Arc<dyn Dir> = sim.crash();
    let recs: Vec<_> = read_all(dir)
        .iter()
        .filter(|r| r.data.len() >= 16)
        .map(parse_payload)
        .collect();
    assert_eq!(recs.len() as u64, seq + 20);
    for (i, r) in recs.iter().enumerate() {
        assert_eq!(*r, (1, i as u64));
    }
}

// Proves ENOSPC during a WAL write (mid-segment) fails the flush, leaves the
// WAL usable, and a retry writes everything.
#[test]
fn enospc_mid_write_then_retry() {
    let sim = SimDir::new(SimConfig::seeded(6));
    let wal = Wal::open(sim.clone(), small_config()).unwrap();
    insert_seq(&wal, 1, 0..10);
    wal.flush_all().unwrap();
    insert_seq(&wal, 1, 10..20);
    sim.add_fault(sim.ops_of_kind(OpKind::Write), OpKind::Write, Fault::Enospc);
    let err = wal.flush_all().unwrap_err();
    assert!(err.is_no_space(), "{err}");
    assert!(!wal.is_poisoned());
    insert_seq(&wal, 1, 20..30);
    wal.flush_all().unwrap();
    drop(wal);
    let recs = read_all(sim.crash());
    assert_eq!(recs.len(), 30);
}

// Proves a failed fsync is never retried: the WAL is poisoned and refuses
// inserts and flushes; reopening (after a crash) recovers every record that
// was acknowledged before the failure.
#[test]
fn fsync_eio_poisons_until_reopen() {
    let sim = SimDir::new(SimConfig::seeded(7));
    let wal = Wal::open(sim.clone(), small_config()).unwrap();
    let acked = insert_seq(&wal, 1, 0..15);
    wal.commit(acked.last().unwrap().end_lsn).unwrap();
    let pending = insert_seq(&wal, 1, 15..20);
    sim.add_fault(sim.ops_of_kind(OpKind::Sync), OpKind::Sync, Fault::Eio);
    let err = wal.commit(pending.last().unwrap().end_lsn).unwrap_err();
    assert!(matches!(err, WalError::Io { .. }), "{err}");
    assert!(wal.is_poisoned());
    assert!(matches!(
        with_record(1, 20, |b| wal.insert(b)),
        Err(WalError::Poisoned)
    ));
    assert!(matches!(wal.flush_all(), Err(WalError::Poisoned)));
    assert!(matches!(
        wal.commit(pending.last().unwrap().end_lsn),
        Err(WalError::Poisoned)
    ));
    drop(wal);
    let dir: Arc<dyn Dir> = sim.crash();
    let wal = Wal::open(dir.clone(), small_config()).unwrap();
    assert!(!wal.is_poisoned());
    assert!(wal.open_info().records_scanned >= 15);
    drop(wal);
    let recs = read_all(dir);
    for (i, r) in recs.iter().enumerate() {
        assert_eq!(parse_payload(r), (1, i as u64));
    }
}

/// One thread's workload: commits, page images, segment switches, recycling
/// and removal. Returns the records inserted (in order) and how many of
/// them were acknowledged as durable, stopping at the first error.
///
/// With `Recycle::Auto` the workload is five times as long, so that the
/// cost model explores the dearer kind (it does every 16th decision at
/// most): a run that completes both recycles and unlinks segments. Also
/// returns the WAL's counters at the end.
fn crash_workload(dir: Arc<dyn Dir>, config: &WalConfig) -> (u64, u64, WalStats) {
    let Ok(wal) = Wal::open(dir, config.clone()) else {
        return (0, 0, WalStats::default());
    };
    let records = if config.recycle == Recycle::Auto {
        360
    } else {
        72
    };
    let (inserted, acked) = run_crash_workload(&wal, records);
    (inserted, acked, wal.stats())
}

fn run_crash_workload(wal: &Wal, records: u64) -> (u64, u64) {
    let mut acked = 0;
    let mut inserted = 0;
    for seq in 0..records {
        let Ok(at) = with_record(1, seq, |b| wal.insert(b)) else {
            break;
        };
        inserted = seq + 1;
        if seq % 2 == 1 {
            if wal.commit(at.end_lsn).is_err() {
                break;
            }
            acked = seq + 1;
        }
        if seq % 12 == 11 {
            wal.release_before(at.start_lsn);
            if wal.remove_old_segments().is_err() {
                break;
            }
        }
    }
    (inserted, acked)
}

// Proves crash safety: the workload crashed at every I/O operation in turn
// (lost, torn and reordered unsynced writes, per seed) never loses an
// acknowledged commit, recovers a prefix of the inserted records in order,
// and the recovered log accepts and keeps new records.
#[test]
fn crash_at_every_operation_keeps_acknowledged_commits() {
    // `Auto` decides by measured cost, which the simulated device measures
    // in operations, so its runs replay from their seeds too.
    for recycle in [Recycle::On, Recycle::Off, Recycle::Auto] {
        crash_at_every_operation(WalConfig {
            recycle,
            segment_size_bytes: 4 * 8192,
            ..small_config()
        });
    }
}

fn crash_at_every_operation(config: WalConfig) {
    let mut n = 0u64;
    loop {
        let sim = SimDir::new(SimConfig::seeded(1000 + n));
        sim.set_crash_after_ops(n);
        let (inserted, acked, stats) = crash_workload(sim.clone(), &config);
        let completed = sim.op_count() <= n;
        let dir: Arc<dyn Dir> = sim.crash();
        let ctx = format!(
            "{:?}: crash after op {n} (seed {}): inserted {inserted}, acked {acked}",
            config.recycle,
            1000 + n
        );
        let wal = Wal::open(dir.clone(), config.clone()).unwrap_or_else(|e| panic!("{ctx}: {e}"));
        let found = wal.open_info().records_scanned;
        let more = insert_seq(&wal, 2, 0..3);
        wal.flush_to(more[2].end_lsn)
            .unwrap_or_else(|e| panic!("{ctx}: {e}"));
        drop(wal);
        let recs = read_all(dir);
        assert_eq!(recs.len() as u64, found + 3, "{ctx}");
        let old: Vec<(u64, u64)> = recs[..found as usize].iter().map(parse_payload).collect();
        // Segments may have been retired: the surviving records are a
        // contiguous run ending at or after the last acknowledged one.
        if let Some(&(_, first)) = old.first() {
            let want: Vec<(u64, u64)> = (first..first + found).map(|s| (1, s)).collect();
            assert_eq!(old, want, "{ctx}");
        }
        let last = old.last().map(|&(_, s)| s + 1).unwrap_or(0);
        assert!(
            last >= acked,
            "{ctx}: lost acknowledged commits (recovered up to {last})"
        );
        assert!(last <= inserted.max(acked), "{ctx}");
        if completed {
            eprintln!("workload completed after {n} crash points");
            assert!(n > 100, "workload too small to be meaningful");
            if config.recycle == Recycle::Auto {
                assert!(
                    stats.segments_recycled > 0 && stats.segments_removed > 0,
                    "auto never chose both ways: {stats:?}"
                );
            }
            break;
        }
        n += 1;
    }
}

// Proves the reader and Wal::open never panic on damaged segments: random
// byte ranges of a valid WAL overwritten with seeded garbage yield records,
// a clean end, or an error.
#[test]
fn garbage_in_segments_never_panics() {
    use rand::{Rng, SeedableRng};
    let config = small_config();
    for seed in 0..60u64 {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        let sim = SimDir::new(SimConfig::seeded(seed));
        let wal = Wal::open(sim.clone(), config.clone()).unwrap();
        insert_seq(&wal, 1, 0..40);
        wal.flush_all().unwrap();
        drop(wal);
        let segs: Vec<String> = sim
            .list()
            .unwrap()
            .into_iter()
            .filter(|n| n.starts_with("wal-0"))
            .collect();
        for _ in 0..rng.gen_range(1..4) {
            let name = &segs[rng.gen_range(0..segs.len())];
            let file = sim.open(name, folio_io::OpenOptions::EXISTING).unwrap();
            let len = file.len().unwrap();
            let at = rng.gen_range(0..len);
            let n = rng.gen_range(1..=600u64).min(len - at) as usize;
            let garbage: Vec<u8> = (0..n).map(|_| rng.r#gen()).collect();
            file.write_at(&garbage, at).unwrap();
            file.sync().unwrap();
        }
        let reader = WalReader::open(sim.clone(), ReaderOptions::default()).unwrap();
        let read = reader.take_while(|r| r.is_ok()).count();
        assert!(read <= 40, "seed {seed}");
        let _ = Wal::open(
            sim,
            WalConfig {
                truncate_at_corruption: true,
                ..config.clone()
            },
        );
    }
}

// Proves a WAL segment cut to any shorter length — zero included, the last
// segment or one in the middle — is damage, never an end of the WAL: the
// reader and `Wal::open` refuse with `ShortSegment` naming the file and
// both lengths, and change nothing on disk; the override opens, reports the
// short segment, the bytes missing and the whole records found after the
// damage, restores the segment's length so the next ordinary open works,
// and keeps every record before the damage.
#[test]
fn a_short_segment_is_damage_never_an_end() {
    let config = small_config();
    let seg = config.segment_size_bytes;
    for (victim_seg, cut) in [
        (3u64, 0u64),
        (3, 100),
        (3, 8192 * 3 + 17),
        (1, 8192 * 2),
        (1, 0),
    ] {
        let sim = SimDir::new(SimConfig::seeded(victim_seg * 1000 + cut));
        let wal = Wal::open(sim.clone(), config.clone()).unwrap();
        let all = insert_seq(&wal, 1, 0..150);
        wal.flush_all().unwrap();
        drop(wal);
        let name = segment_file_name(victim_seg);
        assert!(
            all.last().unwrap().end_lsn.0 > (victim_seg + 1) * seg,
            "the records reach past segment {victim_seg}"
        );
        let file = sim.open(&name, folio_io::OpenOptions::EXISTING).unwrap();
        file.set_len(cut).unwrap();
        file.sync().unwrap();
        drop(file);
        let before = dir_image(sim.as_ref());
        let refused = Wal::open(sim.clone(), config.clone()).unwrap_err();
        match &refused {
            WalError::ShortSegment {
                file,
                len_bytes,
                expected_bytes,
            } => assert_eq!((file, *len_bytes, *expected_bytes), (&name, cut, seg)),
            other => panic!("cut {name} to {cut}: {other}"),
        }
        let message = refused.to_string();
        assert!(message.contains("--truncate-at-corruption"), "{message}");
        assert_eq!(
            dir_image(sim.as_ref()),
            before,
            "a refused open changed the WAL"
        );
        let read: Result<Vec<_>, _> = WalReader::open(sim.clone(), ReaderOptions::default())
            .unwrap()
            .collect();
        assert!(matches!(read, Err(WalError::ShortSegment { .. })));

        let lenient = WalConfig {
            truncate_at_corruption: true,
            ..config.clone()
        };
        let wal = Wal::open(sim.clone(), lenient).unwrap();
        let end = wal.open_info().end_lsn;
        let kept = all.iter().filter(|r| r.end_lsn <= end).count();
        let cut_lsn = victim_seg * seg + cut;
        assert!(end.0 <= cut_lsn, "the WAL ends at or before the cut");
        let discarded = wal.discarded().expect("a discard report");
        assert_eq!(discarded.short_segments, vec![(name.clone(), cut)]);
        assert_eq!(discarded.missing_bytes, seg - cut);
        let page = |lsn: Lsn| lsn.0 / WAL_PAGE_SIZE as u64;
        let countable = all
            .iter()
            .filter(|r| page(r.start_lsn) > page(end) && r.start_lsn.0 >= (victim_seg + 1) * seg)
            .count() as u64;
        assert_eq!(discarded.records, countable, "cut {name} to {cut}");
        drop(wal);
        let wal = Wal::open(sim.clone(), config.clone()).expect("the override repaired the length");
        assert_eq!(wal.open_info().records_scanned, kept as u64);
    }
}
