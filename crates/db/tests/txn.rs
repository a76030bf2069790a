//! Transactions through the database (folio-txn over the buffer pool and
//! the WAL): commit and rollback as snapshots see them, commits surviving
//! reopen and crashes with their CSNs, transactions a crash interrupted
//! aborted, waits, deadlocks and timeouts.

mod common;

use common::*;
use folio_db::{Database, Durability, Isolation, Options, Storage};
use folio_io::{SimConfig, SimDir};
use folio_txn::{Csn, Ended, Fate, Outcome, TxnError, XIDS_PER_PAGE, Xid};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::sync::Arc;
use std::time::Duration;

const RR: Isolation = Isolation::RepeatableRead;
const SYNC: Durability = Durability::Sync;

// Proves a commit is invisible to snapshots taken before it and visible to
// every one after, a rollback is never visible, a transaction sees its own
// xid, and a read-only transaction gets no xid and commits without a CSN.
#[test]
fn snapshots_see_commits_before_them_and_never_rollbacks() {
    let dir = SimDir::new(SimConfig::seeded(1));
    let db = Database::create_in(Storage::single(dir), small_options()).unwrap();
    let mut writer = db.begin(RR, SYNC).unwrap();
    let x = writer.xid().unwrap();
    assert!(writer.sees(x).unwrap(), "its own work");
    let before = db.begin(RR, SYNC).unwrap();
    assert!(!before.sees(x).unwrap());
    let csn = writer.commit().unwrap().expect("a writer gets a CSN");
    assert!(!before.sees(x).unwrap(), "a commit after the snapshot");
    let after = db.begin(RR, SYNC).unwrap();
    assert!(after.sees(x).unwrap());
    assert_eq!(db.txns().fate(x).unwrap(), Fate::Committed(csn));

    let mut loser = db.begin(RR, SYNC).unwrap();
    let y = loser.xid().unwrap();
    assert!(y > x);
    loser.rollback().unwrap();
    assert_eq!(db.txns().fate(y).unwrap(), Fate::Aborted);
    assert!(!db.begin(RR, SYNC).unwrap().sees(y).unwrap());

    let reader = db.begin(RR, SYNC).unwrap();
    assert_eq!(reader.existing_xid(), None);
    assert_eq!(reader.commit().unwrap(), None, "read-only: no CSN");
    assert_eq!(db.txns().running(), 0);

    drop((before, after));
}

// Proves READ COMMITTED takes a new snapshot per statement and REPEATABLE
// READ keeps its first.
#[test]
fn read_committed_sees_commits_at_the_next_statement() {
    let dir = SimDir::new(SimConfig::seeded(2));
    let db = Database::create_in(Storage::single(dir), small_options()).unwrap();
    let mut rc = db.begin(Isolation::ReadCommitted, SYNC).unwrap();
    let mut rr = db.begin(RR, SYNC).unwrap();
    let mut w = db.begin(RR, SYNC).unwrap();
    let x = w.xid().unwrap();
    w.commit().unwrap();
    assert!(!rc.sees(x).unwrap() && !rr.sees(x).unwrap());
    rc.next_statement();
    rr.next_statement();
    assert!(
        rc.sees(x).unwrap(),
        "read committed: new statement, new snapshot"
    );
    assert!(!rr.sees(x).unwrap(), "repeatable read: the first snapshot");
}

// Proves, across 3 log pages, a checkpoint and a reopen after a crash (no
// shutdown checkpoint): every commit keeps its CSN and is visible to the
// new run's snapshots, every rollback stays aborted, the transactions
// running at the crash are aborted, asynchronous commits made durable by
// the background flusher survive, and the new run's xids and CSNs continue
// above the old ones.
#[test]
fn a_reopen_keeps_commits_and_aborts_what_was_running() {
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("db");
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    let mut expected: Vec<(Xid, Fate)> = Vec::new();
    let mut running = Vec::new();
    {
        let db = Database::create(&path, small_options()).unwrap();
        for i in 0..(XIDS_PER_PAGE * 2 + 100) {
            let mut t = db.begin(RR, SYNC).unwrap();
            let x = t.xid().unwrap();
            match rng.gen_range(0..10) {
                0..=6 => {
                    let csn = t.commit().unwrap().unwrap();
                    expected.push((x, Fate::Committed(csn)));
                }
                7 | 8 => {
                    t.rollback().unwrap();
                    expected.push((x, Fate::Aborted));
                }
                _ => running.push((x, t)),
            }
            if i == XIDS_PER_PAGE {
                db.checkpoint().unwrap();
            }
        }
        let mut late = db.begin(RR, Durability::Async).unwrap();
        let x = late.xid().unwrap();
        let csn = late.commit().unwrap().unwrap();
        expected.push((x, Fate::Committed(csn)));
        std::thread::sleep(Duration::from_millis(3 * folio_wal::DEFAULT_ASYNC_FLUSH_MS));
        // A crash: the running transactions never end, nothing is closed.
        for (x, t) in running.drain(..) {
            expected.push((x, Fate::Aborted));
            std::mem::forget(t);
        }
        drop(db);
    }
    let db = Database::open(&path, small_options()).unwrap();
    let txns = db.txns();
    let snapshot = txns.snapshot();
    let max_csn = expected
        .iter()
        .filter_map(|(_, f)| match f {
            Fate::Committed(c) => Some(*c),
            _ => None,
        })
        .max()
        .unwrap();
    assert!(snapshot.0 >= max_csn);
    for (x, fate) in &expected {
        assert_eq!(txns.fate(*x).unwrap(), *fate, "{x}");
    }
    let max_xid = expected.iter().map(|(x, _)| *x).max().unwrap();
    let mut next = db.begin(RR, SYNC).unwrap();
    assert!(next.xid().unwrap() > max_xid);
    assert!(next.commit().unwrap().unwrap() > max_csn);
    db.close().unwrap();
}

// Proves the commit instant with real pages: while 4 threads commit 300
// transactions each through the CSN log, every snapshot a reader takes
// sees, by the CSN log's fates, exactly the commits with a CSN at or below
// it (a prefix of the commit order), and every commit is visible once all
// have returned.
#[test]
fn concurrent_commits_are_seen_as_a_prefix_of_the_commit_order() {
    let dir = SimDir::new(SimConfig::seeded(4));
    let db = Arc::new(
        Database::create_in(
            Storage::single(dir),
            Options {
                pool_size_bytes: 4 << 20,
                ..small_options()
            },
        )
        .unwrap(),
    );
    let done = Arc::new(std::sync::Mutex::new(Vec::<(Xid, Csn)>::new()));
    let threads: Vec<_> = (0..4)
        .map(|_| {
            let (db, done) = (db.clone(), done.clone());
            std::thread::spawn(move || {
                for _ in 0..300 {
                    let mut t = db.begin(RR, Durability::Async).unwrap();
                    let x = t.xid().unwrap();
                    let csn = t.commit().unwrap().unwrap();
                    done.lock().unwrap().push((x, csn));
                }
            })
        })
        .collect();
    let mut checks = 0;
    while threads.iter().any(|t| !t.is_finished()) || checks < 3 {
        let snapshot = db.txns().snapshot();
        let committed: Vec<(Xid, Csn)> = done.lock().unwrap().clone();
        for (x, csn) in committed {
            let seen = snapshot.sees(db.txns().fate(x).unwrap());
            assert_eq!(seen, csn <= snapshot.0, "{x} {csn} under {snapshot:?}");
        }
        checks += 1;
    }
    for t in threads {
        t.join().unwrap();
    }
    let all = done.lock().unwrap().clone();
    let mut csns: Vec<Csn> = all.iter().map(|(_, c)| *c).collect();
    csns.sort();
    csns.dedup();
    assert_eq!(csns.len(), 1200, "every commit has its own CSN");
    let last = db.txns().snapshot();
    assert!(
        all.iter()
            .all(|(x, _)| last.sees(db.txns().fate(*x).unwrap()))
    );
}

// Proves a waiter sleeps until the transaction it waits for ends and
// learns how it ended (committed, then aborted), and that waiting for a
// transaction that ended already returns at once.
#[test]
fn a_waiter_wakes_when_the_holder_ends() {
    let dir = SimDir::new(SimConfig::seeded(5));
    let db = Arc::new(Database::create_in(Storage::single(dir), small_options()).unwrap());
    for (commit, how) in [(true, Ended::Committed), (false, Ended::Aborted)] {
        let mut holder = db.begin(RR, SYNC).unwrap();
        let h = holder.xid().unwrap();
        let db2 = db.clone();
        let waiter = std::thread::spawn(move || {
            let mut w = db2.begin(RR, SYNC).unwrap();
            w.wait_for(h).unwrap()
        });
        std::thread::sleep(Duration::from_millis(50));
        assert!(
            !waiter.is_finished(),
            "the waiter sleeps while the holder runs"
        );
        if commit {
            holder.commit().unwrap();
        } else {
            holder.rollback().unwrap();
        }
        assert_eq!(waiter.join().unwrap(), how);
        let mut late = db.begin(RR, SYNC).unwrap();
        assert_eq!(late.wait_for(h).unwrap(), how, "ended already");
    }
}

// Proves two transactions that wait for each other are found deadlocked
// after `deadlock_timeout`: one fails with 40P01 and, once it rolls back,
// the other's wait ends; and a wait longer than `lock_timeout` fails with
// 55P03.
#[test]
fn deadlocks_and_lock_timeouts_fail_the_waiter() {
    let dir = SimDir::new(SimConfig::seeded(6));
    let db = Arc::new(
        Database::create_in(
            Storage::single(dir),
            Options {
                deadlock_timeout: Duration::from_millis(30),
                ..small_options()
            },
        )
        .unwrap(),
    );
    let mut a = db.begin(RR, SYNC).unwrap();
    let mut b = db.begin(RR, SYNC).unwrap();
    let (xa, xb) = (a.xid().unwrap(), b.xid().unwrap());
    // Each side rolls back if it is the victim, as a client would.
    let b_waits = std::thread::spawn(move || {
        let r = b.wait_for(xa);
        if r.is_err() {
            b.rollback().unwrap();
        }
        r
    });
    std::thread::sleep(Duration::from_millis(10));
    let a_result = a.wait_for(xb);
    if a_result.is_err() {
        a.rollback().unwrap();
    }
    let b_result = b_waits.join().unwrap();
    let victims: Vec<&TxnError> = [&a_result, &b_result]
        .into_iter()
        .filter_map(|r| r.as_ref().err())
        .collect();
    assert!(!victims.is_empty(), "a deadlock must be found");
    for e in &victims {
        assert!(matches!(e, TxnError::Deadlock { .. }), "{e}");
        assert_eq!(e.sqlstate(), Some("40P01"));
    }
    if victims.len() == 1 {
        let survivor = a_result.as_ref().ok().or(b_result.as_ref().ok());
        assert_eq!(
            survivor,
            Some(&Ended::Aborted),
            "the other goes on once the victim is gone"
        );
    }

    let db = Database::create_in(
        Storage::single(SimDir::new(SimConfig::seeded(7))),
        Options {
            lock_timeout: Some(Duration::from_millis(40)),
            ..small_options()
        },
    )
    .unwrap();
    let mut holder = db.begin(RR, SYNC).unwrap();
    let h = holder.xid().unwrap();
    let mut waiter = db.begin(RR, SYNC).unwrap();
    let e = waiter.wait_for(h).unwrap_err();
    assert_eq!(e.sqlstate(), Some("55P03"), "{e}");
    holder.commit().unwrap();
}

// Proves a cancel wakes a transaction asleep on another's end at once
// (not at the next poll of its wait: the wait is an hour long here) and
// fails it with 57014, and a set flag fails `check_interrupt`; a cleared
// flag lets the same transaction wait and see the holder commit.
#[test]
fn a_cancel_wakes_a_waiter_with_57014() {
    let db = Database::create_in(
        Storage::single(SimDir::new(SimConfig::seeded(8))),
        Options {
            deadlock_timeout: Duration::from_secs(3600),
            ..small_options()
        },
    )
    .unwrap();
    let db = Arc::new(db);
    let mut holder = db.begin(RR, SYNC).unwrap();
    let h = holder.xid().unwrap();
    let interrupt = Arc::new(folio_txn::Interrupt::new());
    let flag = interrupt.clone();
    let db2 = db.clone();
    let waiter = std::thread::spawn(move || {
        let mut waiter = db2.begin(RR, SYNC).unwrap();
        waiter.set_interrupt(flag.clone());
        let started = std::time::Instant::now();
        let canceled = waiter.wait_for(h).unwrap_err();
        let waited = started.elapsed();
        assert!(waiter.check_interrupt().is_err());
        flag.clear();
        assert!(waiter.check_interrupt().is_ok());
        (canceled, waited, waiter)
    });
    std::thread::sleep(Duration::from_millis(50));
    interrupt.cancel();
    let (e, waited, mut waiter) = waiter.join().unwrap();
    assert_eq!(e.sqlstate(), Some("57014"), "{e}");
    assert_eq!(e.to_string(), "canceling statement due to user request");
    assert!(
        waited < Duration::from_millis(900),
        "woken, not at the wait's next one-second poll: {waited:?}"
    );
    holder.commit().unwrap();
    assert_eq!(waiter.wait_for(h).unwrap(), Ended::Committed);
}

/// One step of the crash workload.
#[derive(Clone, Copy, Debug)]
enum Step {
    Commit(Durability),
    Rollback,
    LeaveRunning,
    Checkpoint,
}

fn steps(seed: u64, count: usize) -> Vec<Step> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    (0..count)
        .map(|_| match rng.gen_range(0..20) {
            0..=11 => Step::Commit(SYNC),
            12 | 13 => Step::Commit(Durability::Async),
            14..=16 => Step::Rollback,
            17 | 18 => Step::LeaveRunning,
            _ => Step::Checkpoint,
        })
        .collect()
}

/// Runs the workload on a device that crashes after `crash_at` operations,
/// recovers, and checks every transaction's fate. Returns whether the
/// workload completed before the crash point.
fn txn_crash_case(seed: u64, crash_at: u64, steps: &[Step]) -> bool {
    let case = format!("seed {seed}, crash at op {crash_at}");
    let dir = SimDir::new(SimConfig::seeded(seed));
    dir.set_crash_after_ops(crash_at);
    // (xid, what it must be after recovery: Some(fate), or None if the
    // step failed and either outcome is allowed, never "in progress").
    let mut checks: Vec<(Xid, Option<Fate>)> = Vec::new();
    let mut created = false;
    let mut left_running = Vec::new();
    if let Ok(db) = Database::create_in(Storage::single(dir.clone()), small_options()) {
        created = true;
        for step in steps {
            if let Step::Checkpoint = step {
                let _ = db.checkpoint();
                continue;
            }
            let Ok(mut t) = db.begin(RR, SYNC) else { break };
            let Ok(x) = t.xid() else { break };
            match step {
                Step::Commit(SYNC) => match t.commit() {
                    Ok(Some(csn)) => checks.push((x, Some(Fate::Committed(csn)))),
                    _ => checks.push((x, None)),
                },
                Step::Commit(_) => {
                    // Asynchronous: acknowledged but not durable; either
                    // outcome after a crash.
                    let _ = t.commit();
                    checks.push((x, None));
                }
                Step::Rollback => {
                    let _ = t.rollback();
                    checks.push((x, Some(Fate::Aborted)));
                }
                _ => {
                    checks.push((x, Some(Fate::Aborted)));
                    left_running.push(t);
                }
            }
        }
    }
    let completed = dir.op_count() <= crash_at;
    left_running.into_iter().for_each(std::mem::forget);
    let after = dir.crash();
    let db = match Database::open_in(Storage::single(after.clone()), small_options()) {
        Ok(db) => db,
        Err(e) => {
            assert!(!created, "{case}: create succeeded but open fails: {e}");
            return completed;
        }
    };
    let txns = db.txns();
    let snapshot = txns.snapshot();
    for (x, want) in &checks {
        let fate = txns.fate(*x).unwrap();
        match want {
            Some(Fate::Committed(csn)) => {
                assert_eq!(fate, Fate::Committed(*csn), "{case}: acknowledged {x}");
                assert!(snapshot.sees(fate), "{case}: {x} visible after recovery");
            }
            _ => {
                // Aborted, or (unknown) either: never still running. An
                // xid that left nothing durable, not even the reservation
                // that covered it, may be handed out again: nothing on
                // disk carries it.
                let outcome = txns.outcome(*x).unwrap();
                match (want, outcome) {
                    (_, Outcome::Running) => panic!("{case}: {x} left running"),
                    (Some(_), Outcome::Committed(_)) => panic!("{case}: rolled back {x} committed"),
                    _ => {}
                }
            }
        }
    }
    let max = checks
        .iter()
        .filter(|(_, want)| want.is_some_and(|f| f != Fate::Aborted))
        .map(|(x, _)| *x)
        .max()
        .unwrap_or(Xid(0));
    let mut t = db.begin(RR, SYNC).unwrap();
    assert!(t.xid().unwrap() > max, "{case}: xids continue");
    t.commit().unwrap();
    db.verify().unwrap();
    db.check_invariants().unwrap();
    completed
}

// Proves the transaction manager's durability contract at every I/O
// operation of a seeded workload (sync and async commits, rollbacks,
// transactions left running, checkpoints) with a 10-page pool, so CSN-log
// pages are evicted, written, torn and lost by the crash: after recovery
// every acknowledged synchronous commit is committed with its CSN and
// visible, every rollback and every transaction running at the crash is
// aborted, nothing is left running, and new xids continue above every
// acknowledged commit's. Size: `FOLIO_TXN_CRASH_STEPS` steps (default 120).
#[test]
fn crash_at_every_io_operation_keeps_every_acknowledged_commit() {
    let steps = steps(2024, env_or("FOLIO_TXN_CRASH_STEPS", 120));
    let points = sweep_crash_points(|crash_at| txn_crash_case(2024, crash_at, &steps));
    eprintln!("{points} crash points, {} steps", steps.len());
}
