//! Crash simulation: a mixed insert/update/delete workload with commits and
//! checkpoints on the simulated device, crashed at every I/O operation in
//! turn (until the workload completes), with unsynced writes lost, torn and
//! reordered by the crash. After recovery: every acknowledged commit is
//! present (the state is a prefix of the operations that includes all of
//! them) and every tree verifies. Each case is (seed, crash point) and
//! replays exactly from it. The first crash may also be the death of the
//! process alone (`SimDir::kill`), followed by a power failure during
//! recovery.
//!
//! Size: `FOLIO_CRASH_OPS` operations (default 400, about 500 crash points)
//! and `FOLIO_CRASH_SEEDS` seeds (default 2) — e.g.
//! `FOLIO_CRASH_OPS=1500 FOLIO_CRASH_SEEDS=12` for a long run (~30,000
//! cases, 3 minutes).

mod common;

use common::*;
use folio_db::{Database, Storage};
use folio_io::{SimConfig, SimDir};

/// How the workload's run ends at its crash point.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum First {
    /// A power failure: unsynced writes are lost, kept or torn.
    PowerFailure,
    /// The process dies (`SimDir::kill`): the operating system keeps every
    /// write, synced or not, until a later power failure.
    ProcessKilled,
}

/// Runs one case; returns whether the workload completed before the crash
/// point. With `recovery_crash_at`, the first open after the crash is
/// itself crashed (a power failure) at that operation (if it gets that far)
/// and the checks run on the open after the second crash.
fn crash_case(
    seed: u64,
    first: First,
    crash_at: u64,
    recovery_crash_at: Option<u64>,
    ops: &[Op],
) -> bool {
    let case = format!(
        "seed {seed} {first:?} at op {crash_at}, then a power failure at {recovery_crash_at:?}"
    );
    let dir = SimDir::new(SimConfig::seeded(seed));
    dir.set_crash_after_ops(crash_at);
    let mut created = false;
    let mut trees_made = false;
    let (mut done, mut acked) = (0, 0);
    if let Ok(db) = Database::create_in(Storage::single(dir.clone()), small_options()) {
        created = true;
        if let Ok(trees) = create_trees(&db) {
            trees_made = true;
            (done, acked, _) = run(&db, &trees, ops);
        }
    }
    let completed = dir.op_count() <= crash_at;
    if completed {
        assert_eq!(
            (done, acked),
            (ops.len(), ops.len()),
            "{case}: the workload ran"
        );
    }
    let mut after = match first {
        First::PowerFailure => dir.crash(),
        First::ProcessKilled => dir.kill(),
    };
    if let Some(second) = recovery_crash_at {
        after.set_crash_after_ops(second);
        let interrupted = Database::open_in(Storage::single(after.clone()), small_options());
        drop(interrupted);
        after = after.crash();
    }
    let db = match Database::open_in(Storage::single(after.clone()), small_options()) {
        Ok(db) => db,
        Err(e) => {
            assert!(!created, "{case}: create succeeded but open fails: {e}");
            return completed;
        }
    };
    if let (Some(unique), Some(multi)) = (
        db.open_tree("unique").unwrap(),
        db.open_multi_tree("multi").unwrap(),
    ) {
        let found = read_state(&Trees { unique, multi });
        assert!(
            matching_prefix(ops, acked, done, &found).is_some(),
            "{case}: recovered state is not a prefix including the {acked} acknowledged ops \
             ({done} done)"
        );
    } else {
        assert!(!trees_made, "{case}: committed trees are missing");
    }
    if let Err(e) = db.verify() {
        panic!("{case}: {e}");
    }
    if let Err(e) = db.check_invariants() {
        panic!("{case}: {e}");
    }
    after.check_invariants();
    completed
}

#[test]
fn crash_at_every_io_operation_loses_no_acknowledged_commit() {
    // Proves the durability contract at every crash point of the workload
    // (see the module comment), over the seeds asked for.
    let count = env_or("FOLIO_CRASH_OPS", 400);
    let seeds = env_or("FOLIO_CRASH_SEEDS", 2) as u64;
    for seed in 0..seeds {
        let ops = ops(1000 + seed, count);
        let mut crash_at = 0;
        while !crash_case(1000 + seed, First::PowerFailure, crash_at, None, &ops) {
            crash_at += 1;
            assert!(crash_at < 1_000_000, "workload never completes");
        }
        eprintln!(
            "seed {seed}: {crash_at} crash points, {} operations",
            ops.len()
        );
    }
}

#[test]
fn a_crash_during_recovery_is_recovered_by_the_next_open() {
    // Proves recovery is restartable: a crash at (a sample of) the workload's
    // crash points followed by a second crash at every operation of the
    // recovering open (replay, its page writes, the end-of-recovery
    // checkpoint, the control file) still recovers every acknowledged commit
    // with every tree verifying.
    let ops = ops(77, env_or("FOLIO_CRASH_OPS", 400) / 2);
    crashes_during_recovery(77, First::PowerFailure, 0, 37, &ops);
}

#[test]
fn a_power_failure_during_recovery_after_a_process_crash_loses_nothing_acknowledged() {
    // Proves the WAL that recovery replays is made durable before anything
    // depends on it: the process dies at every operation of the workload
    // from the fifth, leaving WAL the operating system holds but nobody synced;
    // recovery replays it and writes pages back; the power fails at every
    // third operation of that recovering open; and the next open still recovers
    // every acknowledged commit, a prefix of the operations, with every tree
    // verifying. Without the sync of the WAL before replay this failed (kill
    // at operation 36, power failure at operation 24 of the recovering open:
    // a page written back during replay was torn, and the WAL records with
    // its image had never been synced, so the power failure lost them).
    let ops = ops(91, env_or("FOLIO_CRASH_OPS", 400) / 2);
    crashes_during_recovery(91, First::ProcessKilled, 5, 1, &ops);
}

/// `first` at the workload's operations `start`, `start + step`, ... until
/// the workload completes, each followed by a power failure at every third
/// operation of the recovering open (which issues about 60-100 operations
/// here), then the checks of `crash_case`.
fn crashes_during_recovery(seed: u64, first: First, start: u64, step: u64, ops: &[Op]) {
    let mut crash_at = start;
    loop {
        let mut completed = false;
        for second in (0..120).step_by(3) {
            completed = crash_case(seed, first, crash_at, Some(second), ops);
        }
        if completed {
            break;
        }
        crash_at += step;
    }
}
