//! Failure behaviour (DESIGN §5) on the simulated device: a full disk fails
//! the operation and the database continues once space returns, losing
//! nothing; a failed fsync (WAL or data file) refuses every further write
//! until the database is reopened, which recovers.

mod common;

use common::*;
use folio_db::{Database, DbError, Options, Storage};
use folio_io::{Fault, OpKind, SimConfig, SimDir};
use std::sync::Arc;

/// No evictions (a big pool): the data file is written only by checkpoints,
/// so the WAL is what meets the full disk.
fn roomy() -> Options {
    Options {
        pool_size_bytes: 8 << 20,
        ..small_options()
    }
}

/// Runs every operation, retrying one that failed for lack of space after
/// `free_space` is called. Returns (acknowledged prefix, space errors seen,
/// of which from the WAL).
fn run_through_space_errors(
    db: &Database,
    trees: &Trees,
    ops: &[Op],
    free_space: &dyn Fn(),
) -> (usize, u32, u32) {
    let mut acked = 0;
    let mut errors = 0;
    let mut wal_errors = 0;
    let mut i = 0;
    while i < ops.len() {
        let (done, new_acked, err) = run(db, trees, &ops[i..]);
        if new_acked > 0 {
            acked = i + new_acked;
        }
        i += done;
        if let Some(e) = err {
            assert!(e.is_no_space(), "op {i}: expected ENOSPC, got {e}");
            if e.to_string().contains("WAL") {
                wal_errors += 1;
            }
            assert!(!db.is_poisoned(), "ENOSPC must not poison");
            errors += 1;
            assert!(errors < 50, "space never came back");
            free_space();
        }
    }
    (acked, errors, wal_errors)
}

fn recover_and_check(after: Arc<SimDir>, ops: &[Op], acked: usize) {
    let db = Database::open_in(Storage::single(after), small_options()).unwrap();
    let found = read_state(&open_trees(&db));
    let prefix = matching_prefix(ops, acked, ops.len(), &found);
    assert_eq!(prefix, Some(ops.len()), "every operation is there");
    db.verify().unwrap();
    db.check_invariants().unwrap();
}

#[test]
fn enospc_creating_a_segment_fails_the_operation_and_nothing_is_lost() {
    // Proves a capacity limit reached when the WAL needs a new segment makes
    // the affected call fail with a no-space error (the engine is not
    // poisoned), and that after space returns every operation, retried, is
    // durable: a crash afterwards recovers all of them.
    let dir = SimDir::new(SimConfig::seeded(31));
    let db = Database::create_in(Storage::single(dir.clone()), roomy()).unwrap();
    let trees = create_trees(&db).unwrap();
    // No checkpoints: the WAL only grows, segment after segment.
    let mut ops = ops(31, 500);
    ops.retain(|op| !matches!(op, Op::Checkpoint));
    dir.set_capacity_bytes(Some(dir.stored_bytes() + (96 << 10)));
    let freer = dir.clone();
    let (acked, errors, wal_errors) =
        run_through_space_errors(&db, &trees, &ops, &|| freer.set_capacity_bytes(None));
    assert!(errors >= 1 && wal_errors >= 1, "the WAL hit the limit");
    assert_eq!(acked, ops.len());
    let after = dir.crash();
    drop((trees, db));
    recover_and_check(after, &ops, acked);
}

#[test]
fn enospc_during_a_wal_write_fails_the_commit_and_the_retry_succeeds() {
    // Proves an ENOSPC injected into a WAL write reaches the committer as a
    // no-space error, leaves the database writable, and the next commit
    // makes everything durable.
    let dir = SimDir::new(SimConfig::seeded(32));
    let db = Database::create_in(Storage::single(dir.clone()), roomy()).unwrap();
    let trees = create_trees(&db).unwrap();
    let ops = ops(32, 200);
    let injector = dir.clone();
    let mut injected = 0;
    let (_, errors, _) = run_through_space_errors(&db, &trees, &ops, &|| {});
    assert_eq!(errors, 0);
    // Now inject during the commits of a second batch.
    let more = ops_tail();
    for (i, op) in more.iter().enumerate() {
        if matches!(op, Op::Commit) && injected < 3 {
            injector.add_fault(
                injector.ops_of_kind(OpKind::Write),
                OpKind::Write,
                Fault::Enospc,
            );
            injected += 1;
            let err = db.commit().unwrap_err();
            assert!(err.is_no_space(), "{err}");
        }
        let (_, _, err) = run(&db, &trees, &more[i..=i]);
        assert!(err.is_none(), "{err:?}");
    }
    assert_eq!(injected, 3);
    let after = dir.crash();
    drop((trees, db));
    let mut all = ops.clone();
    all.extend(more.iter().cloned());
    recover_and_check(after, &all, all.len());
}

/// More operations (same key space, another seed), ending in a commit.
fn ops_tail() -> Vec<Op> {
    let mut tail = ops(99, 60);
    tail.retain(|op| !matches!(op, Op::Checkpoint));
    assert!(matches!(tail.last(), Some(Op::Commit)));
    tail
}

#[test]
fn failed_wal_fsync_refuses_writes_until_reopen_recovers() {
    // Proves a WAL fsync failing with EIO fails that commit, poisons the
    // database (every later commit and tree change is refused with a clear
    // error, never retried), and that reopening recovers every commit
    // acknowledged before the failure.
    let dir = SimDir::new(SimConfig::seeded(33));
    let db = Database::create_in(Storage::single(dir.clone()), roomy()).unwrap();
    let trees = create_trees(&db).unwrap();
    let ops = ops(33, 150);
    let (done, acked, err) = run(&db, &trees, &ops);
    assert!(err.is_none() && done == ops.len());
    trees.unique.upsert(b"lost?", b"maybe").unwrap();
    dir.add_fault(dir.ops_of_kind(OpKind::Sync), OpKind::Sync, Fault::Eio);
    let err = db.commit().unwrap_err();
    assert!(db.is_poisoned(), "{err}");
    let again = db.commit().unwrap_err();
    assert!(
        matches!(again, DbError::Poisoned { what: "WAL" }),
        "{again}"
    );
    assert!(again.to_string().contains("reopen it to recover"));
    assert!(
        trees.unique.upsert(b"k", b"v").is_err(),
        "tree changes refused"
    );
    drop((trees, db));
    // Restart on the same device (no crash needed: the failed sync already
    // dropped what it covered).
    recover_and_check(dir, &ops, acked);
}

#[test]
fn failed_data_fsync_in_a_checkpoint_poisons_and_reopen_recovers() {
    // Proves a data-file fsync failing during a checkpoint fails it, refuses
    // further writes (data file poisoned), and a restart recovers from the
    // WAL every acknowledged commit.
    let dir = SimDir::new(SimConfig::seeded(34));
    let db = Database::create_in(Storage::single(dir.clone()), roomy()).unwrap();
    let trees = create_trees(&db).unwrap();
    let ops = ops(34, 150);
    let (_, acked, err) = run(&db, &trees, &ops);
    assert!(err.is_none());
    // The checkpoint writes pages (WAL already durable), then syncs the data
    // file: that sync fails.
    dir.add_fault(dir.ops_of_kind(OpKind::Sync), OpKind::Sync, Fault::Eio);
    assert!(db.checkpoint().is_err());
    assert!(matches!(
        db.commit(),
        Err(DbError::Poisoned { what: "data file" })
    ));
    let after = dir.crash();
    drop((trees, db));
    recover_and_check(after, &ops, acked);
}

#[test]
fn hard_wal_limit_throttles_writers_and_checkpoints_free_space() {
    // Proves the hard WAL size limit with the background checkpointer: a
    // write-heavy workload writing several times the limit in WAL completes
    // without a WalFull error: no soft limit asks for checkpoints, so
    // (unless the checkpointer's 50 ms volume poll catches up) writers reach
    // the limit and are throttled at their commits, and each checkpoint this
    // requests gets WAL space for its own record and page flushes and frees
    // segments. The WAL on disk never exceeds the limit, and everything
    // committed survives a crash.
    let dir = SimDir::new(SimConfig::seeded(35));
    let options = Options {
        max_wal_size_bytes: 1 << 30,
        checkpoint_wal_bytes: 1 << 30, // clamped to half the hard limit
        wal_hard_limit_bytes: Some(640 << 10),
        wal_hard_limit_wait_ms: 20_000,
        background_io: true,
        ..roomy()
    };
    let db = Database::create_in(Storage::single(dir.clone()), options.clone()).unwrap();
    let trees = create_trees(&db).unwrap();
    // Enough operations that the WAL written is always several times the
    // limit, however checkpoint timing varies the full-page images.
    let mut ops = ops(35, 5000);
    ops.retain(|op| !matches!(op, Op::Checkpoint));
    let mut peak = 0;
    for chunk in ops.chunks(50) {
        let (done, _, err) = run(&db, &trees, chunk);
        assert!(err.is_none() && done == chunk.len(), "{err:?}");
        peak = peak.max(db.wal().disk_bytes());
    }
    assert!(peak <= 640 << 10, "WAL on disk {peak} bytes");
    let stats = db.wal().stats();
    assert!(stats.bytes > 3 * (640 << 10), "the limit was exercised");
    assert!(
        db.control().checkpoint_count >= 3,
        "checkpoints freed space"
    );
    assert!(
        db.checkpoint_error().is_none(),
        "{:?}",
        db.checkpoint_error()
    );
    let after = dir.crash();
    drop((trees, db));
    recover_and_check(after, &ops, ops.len());
}

#[test]
fn a_crash_before_the_end_of_recovery_checkpoint_loses_nothing() {
    // Proves the end-of-recovery checkpoint may run in the background:
    // after a process crash, a reopen with background checkpoints replays
    // and accepts new commits at once (its checkpoint only requested); a
    // power failure soon after them (a few commits: typically before that
    // checkpoint ends; a few hundred: after), recovers every operation of
    // both lives.
    for seed in 36..40 {
        for later in [0, 3, 300] {
            end_of_recovery_case(seed, later);
        }
    }
}

fn end_of_recovery_case(seed: u64, later: usize) {
    let dir = SimDir::new(SimConfig::seeded(seed));
    let db = Database::create_in(Storage::single(dir.clone()), roomy()).unwrap();
    let trees = create_trees(&db).unwrap();
    let mut ops = ops(seed, 600);
    ops.retain(|op| !matches!(op, Op::Checkpoint));
    // The first life's operations after its last commit are lost with it:
    // the second life starts after the last acknowledged one.
    let (done, acked, err) = run(&db, &trees, &ops[..300]);
    assert!(err.is_none() && done == 300 && acked > 0, "{err:?}");
    let after = dir.kill();
    drop((trees, db));
    let background = Options {
        background_io: true,
        ..roomy()
    };
    let db = Database::open_in(Storage::single(after.clone()), background).unwrap();
    assert!(db.recovery_stats().is_some_and(|r| r.records > 0));
    let trees = open_trees(&db);
    let second = &ops[acked..(acked + later).min(ops.len())];
    let (done, acked_second, err) = run(&db, &trees, second);
    assert!(err.is_none() && done == second.len(), "{err:?}");
    let again = after.crash();
    drop((trees, db));
    let ops = &ops[..acked + done];
    let db = Database::open_in(Storage::single(again), small_options()).unwrap();
    let found = read_state(&open_trees(&db));
    assert!(
        matching_prefix(ops, acked + acked_second, ops.len(), &found).is_some(),
        "seed {seed}, {later} later: not a prefix with every acknowledged operation"
    );
    db.verify().unwrap();
    db.check_invariants().unwrap();
}
