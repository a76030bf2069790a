//! What a simulated power failure keeps and loses: synced data always
//! survives; unsynced writes are lost, kept or torn at 512-byte sectors,
//! possibly out of order; unsynced directory operations survive as a prefix;
//! the crash point stops a workload mid-way; one seed gives one outcome; and
//! a killed process (not machine) loses nothing until the power fails.

use folio_io::{
    Dir, Fault, FaultPlan, File, OpKind, OpenOptions, SECTOR_SIZE_BYTES, SimConfig, SimDir,
};
use rustix::io::Errno;
use std::collections::BTreeMap;
use std::sync::Arc;

const SEEDS: u64 = 200;

fn sim(seed: u64) -> Arc<SimDir> {
    SimDir::new(SimConfig::seeded(seed))
}

/// Every file of a crashed-and-recovered directory with its full contents.
fn snapshot(dir: &SimDir) -> BTreeMap<String, Vec<u8>> {
    let names = dir.list().unwrap();
    names
        .into_iter()
        .map(|name| (name.clone(), dir.read_durable(&name).unwrap()))
        .collect()
}

fn is_eio(err: &std::io::Error) -> bool {
    err.raw_os_error() == Some(Errno::IO.raw_os_error())
}

/// A file `name` holding `data`, synced and with its name synced.
fn durable_file(dir: &SimDir, name: &str, data: &[u8]) -> Arc<dyn File> {
    let file = dir.open(name, OpenOptions::CREATE).unwrap();
    file.write_at(data, 0).unwrap();
    file.sync().unwrap();
    dir.sync_dir().unwrap();
    file
}

// Proves synced data and synced names survive every crash, whatever the
// seed, including repeated crashes and unsynced activity around them.
#[test]
fn synced_data_survives_every_crash() {
    let synced: Vec<u8> = (0..16384u32).map(|i| (i % 253) as u8).collect();
    for seed in 0..SEEDS {
        let dir = sim(seed);
        let file = durable_file(&dir, "f", &synced);
        file.write_at(&[0xEE; 8192], 16384).unwrap();
        file.set_len(40000).unwrap();
        dir.open("unsynced-name", OpenOptions::CREATE)
            .unwrap()
            .write_at(b"x", 0)
            .unwrap();
        let after = dir.crash();
        after.check_invariants();
        let image = after.read_durable("f").unwrap();
        assert_eq!(
            image[..16384],
            synced[..],
            "seed {seed}: synced bytes changed"
        );
        let again = after.crash();
        assert_eq!(
            again.read_durable("f").unwrap(),
            image,
            "seed {seed}: a quiet crash changed data"
        );
    }
}

// Proves unsynced writes are at risk: across seeds some are lost and some
// survive (the device does not simply keep or drop everything).
#[test]
fn unsynced_writes_may_be_lost_or_kept() {
    let (mut lost, mut kept) = (0, 0);
    for seed in 0..SEEDS {
        let dir = sim(seed);
        let file = durable_file(&dir, "f", &[1u8; 512]);
        file.write_at(&[2u8; 512], 0).unwrap();
        match dir.crash().read_durable("f").unwrap()[..] {
            [1, ..] => lost += 1,
            [2, ..] => kept += 1,
            _ => panic!("seed {seed}: a one-sector write became something else"),
        }
    }
    assert!(lost > 0 && kept > 0, "lost {lost}, kept {kept}");
}

// Proves a killed process loses nothing: the next process reads every byte
// and name as the dead one left them, synced or not, and the dead process's
// handles fail; while what it had not synced is still at risk: a power
// failure after the kill loses it on some seeds and keeps it on others.
#[test]
fn a_killed_process_loses_nothing_until_the_power_fails() {
    let (mut lost, mut kept) = (0, 0);
    for seed in 0..SEEDS {
        let dir = sim(seed);
        let file = durable_file(&dir, "f", &[1u8; 512]);
        file.write_at(&[2u8; 512], 0).unwrap();
        dir.open("unsynced-name", OpenOptions::CREATE)
            .unwrap()
            .write_at(b"x", 0)
            .unwrap();
        let next = dir.kill();
        next.check_invariants();
        let mut buf = [0u8; 512];
        assert!(file.read_at(&mut buf, 0).is_err_and(|e| is_eio(&e)));
        let reopened = next.open("f", OpenOptions::EXISTING).unwrap();
        reopened.read_at(&mut buf, 0).unwrap();
        assert_eq!(buf, [2u8; 512], "seed {seed}: the unsynced write is there");
        assert_eq!(next.list().unwrap(), ["f", "unsynced-name"]);
        match next.crash().read_durable("f").unwrap()[..] {
            [1, ..] => lost += 1,
            [2, ..] => kept += 1,
            _ => panic!("seed {seed}: a one-sector write became something else"),
        }
    }
    assert!(lost > 0 && kept > 0, "lost {lost}, kept {kept}");
}

// Proves a torn write changes whole 512-byte sectors only: within each
// sector the bytes the write covered are all old or all new, bytes outside
// the write never change, and some seeds do tear (mix old and new sectors).
#[test]
fn tears_fall_on_sector_boundaries() {
    let (start, len) = (1000u64, 20000usize);
    let end = start + len as u64;
    let mut torn_seeds = 0;
    for seed in 0..SEEDS {
        let dir = sim(seed);
        let file = durable_file(&dir, "f", &[0x11; 65536]);
        file.write_at(&vec![0x22; len], start).unwrap();
        let image = dir.crash().read_durable("f").unwrap();
        assert_eq!(image.len(), 65536);
        let (mut new_sectors, mut old_sectors) = (0, 0);
        for (sector, bytes) in image.chunks(SECTOR_SIZE_BYTES as usize).enumerate() {
            let lo = sector as u64 * SECTOR_SIZE_BYTES;
            let covered_lo = start.clamp(lo, lo + SECTOR_SIZE_BYTES) - lo;
            let covered_hi = end.clamp(lo, lo + SECTOR_SIZE_BYTES) - lo;
            let (before, rest) = bytes.split_at(covered_lo as usize);
            let (covered, after) = rest.split_at((covered_hi - covered_lo) as usize);
            assert!(
                before.iter().chain(after).all(|&b| b == 0x11),
                "seed {seed}: byte outside write changed"
            );
            if covered.is_empty() {
                continue;
            }
            match (
                covered.iter().all(|&b| b == 0x11),
                covered.iter().all(|&b| b == 0x22),
            ) {
                (true, false) => old_sectors += 1,
                (false, true) => new_sectors += 1,
                _ => panic!("seed {seed}: sector {sector} torn inside"),
            }
        }
        if new_sectors > 0 && old_sectors > 0 {
            torn_seeds += 1;
        }
    }
    assert!(torn_seeds > 0, "no seed tore the write");
}

// Proves the device reorders: for some seed a later unsynced write survives
// while an earlier one is lost.
#[test]
fn later_write_can_survive_an_earlier_lost_one() {
    let reordered = (0..SEEDS).find(|&seed| {
        let dir = sim(seed);
        let file = durable_file(&dir, "f", &[0u8; 8192]);
        file.write_at(&[1u8; 512], 0).unwrap();
        file.write_at(&[2u8; 512], 4096).unwrap();
        let image = dir.crash().read_durable("f").unwrap();
        image[0] == 0 && image[4096] == 2
    });
    assert!(reordered.is_some(), "no seed reordered two writes");
}

// Proves unsynced directory operations survive as a prefix of their log:
// every post-crash namespace is one of the prefix states, and over the seeds
// every prefix state occurs.
#[test]
fn directory_operations_survive_as_a_prefix() {
    // Names after each prefix of: create a, create b, rename a -> c, remove b.
    let prefixes: [&[&str]; 5] = [
        &["base"],
        &["a", "base"],
        &["a", "b", "base"],
        &["b", "base", "c"],
        &["base", "c"],
    ];
    let mut seen = [false; 5];
    for seed in 0..SEEDS {
        let dir = sim(seed);
        durable_file(&dir, "base", b"base");
        for name in ["a", "b"] {
            let file = dir.open(name, OpenOptions::CREATE_NEW).unwrap();
            file.write_at(name.as_bytes(), 0).unwrap();
            file.sync().unwrap();
        }
        dir.rename("a", "c").unwrap();
        dir.remove("b").unwrap();
        let after = dir.crash();
        let names = after.list().unwrap();
        let index = prefixes.iter().position(|p| names == *p);
        let index = index.unwrap_or_else(|| panic!("seed {seed}: {names:?} is no prefix state"));
        seen[index] = true;
        if index == 3 {
            assert_eq!(
                after.read_durable("c").unwrap(),
                b"a",
                "renamed file keeps its data"
            );
        }
    }
    assert_eq!(seen, [true; 5], "some prefix never occurred");
}

// Proves sync_dir makes creations, renames and removals durable for every seed.
#[test]
fn sync_dir_makes_names_durable() {
    for seed in 0..SEEDS {
        let dir = sim(seed);
        durable_file(&dir, "tmp", b"control");
        durable_file(&dir, "gone", b"old");
        dir.rename("tmp", "control").unwrap();
        dir.remove("gone").unwrap();
        dir.sync_dir().unwrap();
        let after = dir.crash();
        assert_eq!(after.list().unwrap(), ["control"], "seed {seed}");
        assert_eq!(after.read_durable("control").unwrap(), b"control");
    }
}

// Proves a crashed directory and every handle opened through it fail all
// later operations with EIO, while the successor works normally.
#[test]
fn crashed_directory_and_its_handles_fail() {
    let dir = sim(1);
    let file = durable_file(&dir, "f", b"data");
    let after = dir.crash();
    assert!(is_eio(&file.write_at(b"late", 0).unwrap_err()));
    assert!(is_eio(&file.read_at(&mut [0u8; 4], 0).unwrap_err()));
    assert!(is_eio(&file.len().unwrap_err()));
    assert!(is_eio(&dir.open("f", OpenOptions::EXISTING).unwrap_err()));
    assert!(is_eio(&dir.list().unwrap_err()));
    drop(file);
    let mut buf = [0u8; 4];
    after
        .open("f", OpenOptions::EXISTING)
        .unwrap()
        .read_at(&mut buf, 0)
        .unwrap();
    assert_eq!(&buf, b"data");
}

/// A workload mixing data, syncs, directory operations and planned
/// corruptions; returns the post-crash image.
fn faulty_workload(seed: u64) -> BTreeMap<String, Vec<u8>> {
    let plan = FaultPlan::new()
        .with(3, OpKind::Write, Fault::FlipBit)
        .with(5, OpKind::Write, Fault::Misdirect { delta_bytes: 1536 });
    let dir = SimDir::new(SimConfig { seed, plan });
    let a = dir.open("a", OpenOptions::CREATE).unwrap();
    let b = dir.open("b", OpenOptions::CREATE).unwrap();
    for i in 0..12u64 {
        let data: Vec<u8> = (0..3000).map(|j| (i * 31 + j) as u8).collect();
        a.write_at(&data, i * 1700).unwrap();
        b.write_at(&data[..700], i * 900 + 13).unwrap();
        if i % 4 == 3 {
            a.sync().unwrap();
        }
        if i == 6 {
            dir.sync_dir().unwrap();
            dir.open("c", OpenOptions::CREATE)
                .unwrap()
                .write_at(&data, 100)
                .unwrap();
            dir.rename("b", "d").unwrap();
        }
    }
    let first = dir.crash();
    first
        .open("a", OpenOptions::EXISTING)
        .unwrap()
        .write_at(&[0xCC; 2000], 300)
        .unwrap();
    snapshot(&first.crash())
}

// Proves every crash and fault outcome reproduces from the seed: the same
// seed and operations give byte-identical post-crash images, and different
// seeds give different images for some pair.
#[test]
fn every_outcome_reproduces_from_its_seed() {
    let images: Vec<_> = (0..8).map(faulty_workload).collect();
    for (seed, image) in images.iter().enumerate() {
        assert_eq!(
            &faulty_workload(seed as u64),
            image,
            "seed {seed} did not replay"
        );
    }
    assert!(
        images.windows(2).any(|pair| pair[0] != pair[1]),
        "seeds made no difference"
    );
}

// Proves the crash point: operation n and all later ones fail with EIO and
// leave no trace (for every seed), earlier ones take effect, queries fail
// once the point is hit, and op_count counts the failed operations too.
#[test]
fn crash_point_stops_the_workload() {
    for seed in 0..SEEDS / 4 {
        let dir = sim(seed);
        dir.set_crash_after_ops(3);
        let file = dir.open("f", OpenOptions::CREATE).unwrap(); // op 0
        file.write_at(b"first", 0).unwrap(); // op 1
        file.sync().unwrap(); // op 2
        assert_eq!(file.len().unwrap(), 5, "queries work before the point");
        assert!(is_eio(&file.write_at(b"SECOND", 0).unwrap_err())); // op 3
        assert!(is_eio(&file.sync().unwrap_err())); // op 4
        assert!(is_eio(&dir.sync_dir().unwrap_err())); // op 5
        assert!(is_eio(&file.len().unwrap_err()));
        assert!(is_eio(&dir.exists("f").unwrap_err()));
        assert_eq!(dir.op_count(), 6);
        let after = dir.crash();
        // The name "f" was never synced, so it may or may not survive; if it
        // does, it holds the synced write and never the failed one.
        if let Ok(image) = after.read_durable("f") {
            assert_eq!(image, b"first", "seed {seed}");
        }
    }
}

// Proves the crash-test pattern: raising the crash point until the workload
// completes, every acknowledged (synced, name-synced) write survives the
// crash at every point.
#[test]
fn acknowledged_writes_survive_every_crash_point() {
    let mut completed_at = None;
    for n in 0..100 {
        let dir = sim(n);
        dir.set_crash_after_ops(n);
        let mut acknowledged = Vec::new();
        let workload = |acknowledged: &mut Vec<u64>| -> std::io::Result<()> {
            let file = dir.open("log", OpenOptions::CREATE)?;
            dir.sync_dir()?;
            for record in 0..6u64 {
                file.write_at(&record.to_le_bytes(), record * 8)?;
                file.sync()?;
                acknowledged.push(record);
            }
            Ok(())
        };
        let result = workload(&mut acknowledged);
        let image = dir.crash().read_durable("log").unwrap_or_default();
        for &record in &acknowledged {
            let at = (record * 8) as usize;
            assert_eq!(
                image.get(at..at + 8),
                Some(&record.to_le_bytes()[..]),
                "crash point {n}"
            );
        }
        if dir.op_count() <= n {
            assert!(result.is_ok());
            completed_at = Some(n);
            break;
        }
        assert!(is_eio(&result.unwrap_err()), "crash point {n}: wrong error");
    }
    assert_eq!(
        completed_at,
        Some(14),
        "open + sync_dir + 6 x (write, sync)"
    );
}
