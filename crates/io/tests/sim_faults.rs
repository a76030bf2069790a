//! Planned faults on the simulated device: EIO and ENOSPC on exactly the
//! chosen operation, the failed-sync rule, the capacity limit, misdirected
//! and bit-flipped writes, and direct corruption of stored bits.

use folio_io::{Dir, Fault, FaultPlan, File, OpKind, OpenOptions, SimConfig, SimDir};
use rustix::io::Errno;
use std::io::{self, ErrorKind};
use std::sync::Arc;

fn sim_with(plan: FaultPlan) -> Arc<SimDir> {
    SimDir::new(SimConfig { seed: 42, plan })
}

fn errno(result: io::Result<()>) -> Option<Errno> {
    result
        .err()
        .and_then(|e| e.raw_os_error())
        .map(Errno::from_raw_os_error)
}

fn read(file: &dyn File, offset: u64, len: usize) -> Vec<u8> {
    let mut buf = vec![0u8; len];
    file.read_at(&mut buf, offset).unwrap();
    buf
}

/// Issues three operations of `kind` on a fresh setup and returns their
/// results, plus the directory for inspecting effects.
fn three_ops(kind: OpKind, plan: FaultPlan) -> (Vec<Option<Errno>>, Arc<SimDir>) {
    let dir = sim_with(plan);
    // Setup operations are of other kinds than the one under test, or
    // accounted for by starting the counts below.
    let setup = dir.open("f", OpenOptions::CREATE).unwrap();
    for name in ["r0", "r1", "r2"] {
        dir.open(name, OpenOptions::CREATE).unwrap();
    }
    let mut results = Vec::new();
    for i in 0..3u8 {
        let result = match kind {
            OpKind::Read => setup.read_at(&mut [0u8; 8], 0),
            OpKind::Write => setup.write_at(&[i + 1; 8], u64::from(i) * 8),
            OpKind::Sync => setup.sync(),
            OpKind::SetLen => setup.set_len(100 + u64::from(i)),
            OpKind::Open => dir.open(&format!("o{i}"), OpenOptions::CREATE).map(drop),
            OpKind::Remove => dir.remove(&format!("r{i}")),
            OpKind::Rename => dir.rename(&format!("r{i}"), &format!("n{i}")),
            OpKind::SyncDir => dir.sync_dir(),
        };
        results.push(errno(result));
    }
    (results, dir)
}

// Proves, for every operation kind, that a planned EIO or ENOSPC fails the
// chosen operation (the second of its kind) and no other, with the real errno.
#[test]
fn injected_errors_hit_only_the_chosen_operation() {
    for kind in OpKind::ALL {
        // `Open` has four setup opens before the three under test.
        let nth = if kind == OpKind::Open { 5 } else { 1 };
        for (fault, expected) in [(Fault::Eio, Errno::IO), (Fault::Enospc, Errno::NOSPC)] {
            let (results, dir) = three_ops(kind, FaultPlan::new().with(nth, kind, fault.clone()));
            assert_eq!(results, [None, Some(expected), None], "{kind:?} {fault:?}");
            dir.check_invariants();
        }
    }
}

// Proves a failed operation has no effect: the failed write, set_len, open,
// remove and rename leave data and names as they were.
#[test]
fn failed_operations_have_no_effect() {
    let (_, dir) = three_ops(
        OpKind::Write,
        FaultPlan::new().with(1, OpKind::Write, Fault::Eio),
    );
    let file = dir.open("f", OpenOptions::EXISTING).unwrap();
    assert_eq!(read(&*file, 0, 24), [[1u8; 8], [0u8; 8], [3u8; 8]].concat());
    let (_, dir) = three_ops(
        OpKind::SetLen,
        FaultPlan::new().with(2, OpKind::SetLen, Fault::Enospc),
    );
    assert_eq!(
        dir.open("f", OpenOptions::EXISTING).unwrap().len().unwrap(),
        101
    );
    let (_, dir) = three_ops(
        OpKind::Open,
        FaultPlan::new().with(4, OpKind::Open, Fault::Eio),
    );
    assert_eq!(dir.list().unwrap(), ["f", "o1", "o2", "r0", "r1", "r2"]);
    let (_, dir) = three_ops(
        OpKind::Remove,
        FaultPlan::new().with(0, OpKind::Remove, Fault::Eio),
    );
    assert_eq!(dir.list().unwrap(), ["f", "r0"]);
    let (_, dir) = three_ops(
        OpKind::Rename,
        FaultPlan::new().with(2, OpKind::Rename, Fault::Eio),
    );
    assert_eq!(dir.list().unwrap(), ["f", "n0", "n1", "r2"]);
}

// Proves a failed sync drops the file's unsynced writes (reads see the
// durable image again, and a crash cannot bring them back), while later
// writes and syncs work.
#[test]
fn failed_sync_drops_unsynced_writes() {
    let dir = sim_with(FaultPlan::new().with(1, OpKind::Sync, Fault::Eio));
    let file = dir.open("f", OpenOptions::CREATE).unwrap();
    dir.sync_dir().unwrap();
    file.write_at(b"durable", 0).unwrap();
    file.sync().unwrap();
    file.write_at(b"DROPPED and longer", 0).unwrap();
    assert_eq!(errno(file.sync()), Some(Errno::IO));
    assert_eq!(read(&*file, 0, 7), b"durable");
    assert_eq!(file.len().unwrap(), 7);
    file.write_at(b"-after", 7).unwrap();
    file.sync().unwrap();
    assert_eq!(dir.crash().read_durable("f").unwrap(), b"durable-after");
}

// Proves a failed sync_dir forgets the unsynced directory operations: names
// revert to their durable state.
#[test]
fn failed_sync_dir_forgets_unsynced_names() {
    let dir = sim_with(FaultPlan::new().with(1, OpKind::SyncDir, Fault::Eio));
    dir.open("kept", OpenOptions::CREATE).unwrap();
    dir.sync_dir().unwrap();
    dir.open("new", OpenOptions::CREATE).unwrap();
    dir.rename("kept", "moved").unwrap();
    assert_eq!(errno(dir.sync_dir()), Some(Errno::IO));
    assert_eq!(dir.list().unwrap(), ["kept"]);
    dir.check_invariants();
}

// Proves the capacity limit: growth past it fails with ENOSPC (kind
// StorageFull) and no effect, overwrites and shrinking still work, removing a
// file frees its bytes, and raising the limit lets the write succeed.
#[test]
fn capacity_limit_then_success_after_raising_it() {
    let dir = sim_with(FaultPlan::new());
    dir.set_capacity_bytes(Some(8192));
    let a = dir.open("a", OpenOptions::CREATE).unwrap();
    a.write_at(&[1u8; 8192], 0).unwrap();
    let err = a.write_at(&[2u8; 10], 8190).unwrap_err();
    assert_eq!(err.raw_os_error(), Some(Errno::NOSPC.raw_os_error()));
    assert_eq!(err.kind(), ErrorKind::StorageFull);
    assert_eq!(a.len().unwrap(), 8192);
    assert_eq!(read(&*a, 8190, 2), [1, 1], "failed write left a trace");
    assert_eq!(errno(a.set_len(8193)), Some(Errno::NOSPC));
    a.write_at(&[3u8; 8192], 0).unwrap();
    a.set_len(4096).unwrap();
    let b = dir.open("b", OpenOptions::CREATE).unwrap();
    b.write_at(&[4u8; 4096], 0).unwrap();
    assert_eq!(errno(b.write_at(&[4u8; 1], 4096)), Some(Errno::NOSPC));
    drop(a);
    dir.remove("a").unwrap();
    assert_eq!(dir.stored_bytes(), 4096);
    b.write_at(&[5u8; 4096], 4096).unwrap();
    assert_eq!(errno(b.write_at(&[6u8; 1], 8192)), Some(Errno::NOSPC));
    dir.set_capacity_bytes(Some(1 << 20));
    b.write_at(&[6u8; 1], 8192).unwrap();
    dir.set_capacity_bytes(None);
    b.write_at(&[7u8; 1 << 20], 8193).unwrap();
}

// Proves a misdirected write reports success, stores its data at the
// shifted offset and leaves the intended location untouched (durably).
#[test]
fn misdirected_write_lands_elsewhere() {
    let dir =
        sim_with(FaultPlan::new().with(1, OpKind::Write, Fault::Misdirect { delta_bytes: 8192 }));
    let file = dir.open("f", OpenOptions::CREATE).unwrap();
    file.write_at(&[0xAA; 16384], 0).unwrap();
    file.write_at(&[0xBB; 8192], 0).unwrap();
    file.sync().unwrap();
    let image = dir.read_durable("f").unwrap();
    assert!(
        image[..8192].iter().all(|&b| b == 0xAA),
        "intended page was written"
    );
    assert!(
        image[8192..].iter().all(|&b| b == 0xBB),
        "misdirected data missing"
    );
}

// Proves a bit-flipping write stores its data with exactly one bit changed
// and reads return the corrupt bytes.
#[test]
fn flipped_write_is_stored_corrupt() {
    let dir = sim_with(FaultPlan::new().with(0, OpKind::Write, Fault::FlipBit));
    let file = dir.open("f", OpenOptions::CREATE).unwrap();
    let data: Vec<u8> = (0..8192u32).map(|i| (i % 199) as u8).collect();
    file.write_at(&data, 0).unwrap();
    file.sync().unwrap();
    let image = dir.read_durable("f").unwrap();
    let flipped: u32 = image
        .iter()
        .zip(&data)
        .map(|(a, b)| (a ^ b).count_ones())
        .sum();
    assert_eq!(flipped, 1);
    assert_eq!(read(&*file, 0, 8192), image);
}

// Proves a bit-flipping read returns one flipped bit while storage is intact.
#[test]
fn flipped_read_leaves_storage_intact() {
    let dir = sim_with(FaultPlan::new().with(0, OpKind::Read, Fault::FlipBit));
    let file = dir.open("f", OpenOptions::CREATE).unwrap();
    file.write_at(&[0u8; 4096], 0).unwrap();
    let once = read(&*file, 0, 4096);
    assert_eq!(once.iter().map(|b| b.count_ones()).sum::<u32>(), 1);
    assert_eq!(read(&*file, 0, 4096), vec![0u8; 4096]);
}

// Proves corrupt_bit flips exactly the named bit of the durable image, that
// reads see it, and that bad targets are errors, not panics.
#[test]
fn corrupt_bit_flips_the_stored_bit() {
    let dir = sim_with(FaultPlan::new());
    let file = dir.open("f", OpenOptions::CREATE).unwrap();
    file.write_at(&[0u8; 8192], 0).unwrap();
    file.sync().unwrap();
    dir.corrupt_bit("f", 100 * 8 + 3).unwrap();
    let image = dir.read_durable("f").unwrap();
    assert_eq!(image[100], 0b1000);
    assert_eq!(image.iter().map(|b| b.count_ones()).sum::<u32>(), 1);
    assert_eq!(read(&*file, 100, 1), [0b1000]);
    // An unsynced write over the byte hides the flip from reads only.
    file.write_at(&[0u8; 1], 100).unwrap();
    dir.corrupt_bit("f", 100 * 8).unwrap();
    assert_eq!(read(&*file, 100, 1), [0]);
    assert_eq!(dir.read_durable("f").unwrap()[100], 0b1001);
    assert_eq!(
        dir.corrupt_bit("f", 8192 * 8).unwrap_err().kind(),
        ErrorKind::InvalidInput
    );
    assert_eq!(
        dir.corrupt_bit("nope", 0).unwrap_err().kind(),
        ErrorKind::NotFound
    );
    assert_eq!(
        dir.read_durable("nope").unwrap_err().kind(),
        ErrorKind::NotFound
    );
    dir.check_invariants();
}

// Proves the flipped bit is chosen by the seed: the same seed flips the
// same bit, and some other seed flips a different one.
#[test]
fn flipped_bit_reproduces_from_seed() {
    let flipped_image = |seed| {
        let dir = SimDir::new(SimConfig {
            seed,
            plan: FaultPlan::new().with(0, OpKind::Write, Fault::FlipBit),
        });
        let file = dir.open("f", OpenOptions::CREATE).unwrap();
        file.write_at(&[0u8; 8192], 0).unwrap();
        read(&*file, 0, 8192)
    };
    assert_eq!(flipped_image(5), flipped_image(5));
    assert!((6..16).any(|seed| flipped_image(seed) != flipped_image(5)));
}

// Proves faults can be planned at run time against the per-kind counters.
#[test]
fn faults_added_at_run_time_use_per_kind_counts() {
    let dir = sim_with(FaultPlan::new());
    let file = dir.open("f", OpenOptions::CREATE).unwrap();
    file.write_at(b"a", 0).unwrap();
    file.sync().unwrap();
    assert_eq!(dir.ops_of_kind(OpKind::Sync), 1);
    assert_eq!(dir.op_count(), 3);
    dir.add_fault(dir.ops_of_kind(OpKind::Sync), OpKind::Sync, Fault::Enospc);
    assert_eq!(errno(file.sync()), Some(Errno::NOSPC));
    file.sync().unwrap();
}

// Proves a malformed plan (a data corruption on a sync) is refused loudly.
#[test]
#[should_panic(expected = "cannot apply to Sync")]
fn corruption_on_a_non_data_operation_is_refused() {
    sim_with(FaultPlan::new().with(0, OpKind::Sync, Fault::FlipBit));
}

// Proves writes past the simulated size limit fail with EFBIG instead of
// exhausting memory.
#[test]
fn writes_past_the_size_limit_fail_with_efbig() {
    let dir = sim_with(FaultPlan::new());
    let file = dir.open("f", OpenOptions::CREATE).unwrap();
    assert_eq!(
        errno(file.write_at(b"x", folio_io::SIM_MAX_FILE_BYTES)),
        Some(Errno::FBIG)
    );
    assert_eq!(errno(file.write_at(b"x", u64::MAX)), Some(Errno::FBIG));
    let err = file.set_len(u64::MAX).unwrap_err();
    assert_eq!(err.raw_os_error(), Some(Errno::FBIG.raw_os_error()));
    assert_eq!(err.kind(), ErrorKind::FileTooLarge);
    assert!(file.is_empty().unwrap());
}

// Proves `set_full_at_op`: operations before the chosen one grow files
// freely; from it on, growth fails with ENOSPC while overwrites, shrinking
// and renames still succeed; `allocate` is growth (the simulated device's
// fallocate); and a crash's successor stays full.
#[test]
fn the_disk_fills_at_the_chosen_operation() {
    let dir = sim_with(FaultPlan::new());
    let a = dir.open("a", OpenOptions::CREATE).unwrap(); // op 0
    a.write_at(&[1u8; 4096], 0).unwrap(); // op 1
    dir.set_full_at_op(dir.op_count() + 1);
    a.write_at(&[2u8; 4096], 4096).unwrap(); // still room
    assert_eq!(errno(a.write_at(&[3u8; 1], 8192)), Some(Errno::NOSPC));
    assert_eq!(errno(a.allocate(16384)), Some(Errno::NOSPC));
    assert_eq!(a.len().unwrap(), 8192, "a failed allocate has no effect");
    a.allocate(4096)
        .expect("allocating what is there needs nothing");
    a.write_at(&[4u8; 8192], 0)
        .expect("overwrites need no space");
    a.sync().unwrap();
    dir.open("t", OpenOptions::CREATE).unwrap();
    dir.rename("t", "u").expect("a rename needs no space");
    dir.sync_dir().unwrap();
    a.set_len(4096).unwrap();
    a.allocate(8192).expect("shrinking freed room for this");
    a.sync().unwrap();
    drop(a);
    let after = dir.crash();
    let a = after.open("a", OpenOptions::EXISTING).unwrap();
    assert_eq!(a.len().unwrap(), 8192);
    assert_eq!(errno(a.write_at(&[5u8; 1], 8192)), Some(Errno::NOSPC));
}
