//! Locks between sessions (`locks.rs`): `SELECT ... FOR UPDATE SKIP
//! LOCKED` and `NOWAIT` as job queues use them, and advisory locks as
//! migration tools use them — waits that end when the holder gives the
//! lock back, cancels, deadlocks and sessions that end. Expected messages
//! and SQLSTATEs are PostgreSQL 15's.

use folio_db::Database;
use folio_sql::Session;
use folio_txn::AdvisoryKey;
use std::sync::Arc;
use std::time::Duration;

mod common;
use common::{fails, ok, rows};

fn database() -> (tempfile::TempDir, Arc<Database>) {
    let (dir, _, db) = common::fresh();
    (dir, db)
}

/// Waits until some session waits for advisory lock `key` (a bounded
/// poll of the lock table: the point is the order of events, not time).
fn until_waiting(db: &Database, key: AdvisoryKey) {
    for _ in 0..10_000 {
        if (db.txns().advisory().rows())
            .iter()
            .any(|r| r.key == key && !r.granted)
        {
            return;
        }
        std::thread::sleep(Duration::from_millis(1));
    }
    panic!("nobody waits for {key:?}");
}

// Proves the queue pattern: two workers in open transactions each take a
// different job with `FOR UPDATE SKIP LOCKED` and LIMIT 1, a third finds
// the rest, and NOWAIT on a taken job fails with 55P03; once a worker
// commits its job done, its row is free again.
#[test]
fn workers_take_different_jobs_with_skip_locked() {
    let (_dir, db) = database();
    let mut a = Session::new(db.clone());
    let mut b = Session::new(db.clone());
    let mut c = Session::new(db.clone());
    ok(&mut a, "create table jobs (id int primary key, done bool)");
    ok(
        &mut a,
        "insert into jobs select g, false from generate_series(1, 3) g",
    );
    let take = "select id from jobs where done = false order by id limit 1 for update skip locked";
    ok(&mut a, "begin");
    ok(&mut b, "begin");
    assert_eq!(rows(&mut a, take), ["1"]);
    assert_eq!(rows(&mut b, take), ["2"]);
    assert_eq!(
        rows(
            &mut c,
            "select id from jobs order by id for update skip locked"
        ),
        ["3"]
    );
    let e = fails(&mut c, "select id from jobs where id = 1 for update nowait");
    assert_eq!(
        (e.code, e.message.as_str()),
        ("55P03", "could not obtain lock on row in relation \"jobs\"")
    );
    ok(&mut a, "update jobs set done = true where id = 1");
    ok(&mut a, "commit");
    assert_eq!(rows(&mut c, take), ["3"]);
    assert_eq!(
        rows(&mut c, "select id from jobs where id = 1 for update nowait"),
        ["1"]
    );
    ok(&mut b, "rollback");
    assert_eq!(rows(&mut c, take), ["2"]);
}

// Proves a blocked pg_advisory_lock waits until the holder unlocks (then
// holds the lock itself), and that the lock is re-entrant: a holder that
// took it twice must unlock twice.
#[test]
fn advisory_lock_waits_for_its_holder() {
    let (_dir, db) = database();
    let mut a = Session::new(db.clone());
    let mut b = Session::new(db.clone());
    ok(&mut a, "select pg_advisory_lock(123)");
    ok(&mut a, "select pg_advisory_lock(123)");
    let waiter = std::thread::spawn(move || {
        ok(&mut b, "select pg_advisory_lock(123)");
        b
    });
    until_waiting(&db, AdvisoryKey::Big(123));
    assert_eq!(rows(&mut a, "select pg_advisory_unlock(123)"), ["t"]);
    // Still held once: the waiter still waits.
    until_waiting(&db, AdvisoryKey::Big(123));
    assert_eq!(rows(&mut a, "select pg_advisory_unlock(123)"), ["t"]);
    let mut b = waiter.join().unwrap();
    assert_eq!(rows(&mut a, "select pg_try_advisory_lock(123)"), ["f"]);
    assert_eq!(rows(&mut b, "select pg_advisory_unlock(123)"), ["t"]);
    assert_eq!(rows(&mut b, "select pg_advisory_unlock(123)"), ["f"]);
    let warnings: Vec<(String, String)> = (b.take_notices().iter())
        .map(|n| (n.severity.to_string(), n.message.clone()))
        .collect();
    assert_eq!(
        warnings,
        [(
            "WARNING".to_string(),
            "you don't own a lock of type ExclusiveLock".to_string()
        )]
    );
    assert_eq!(rows(&mut a, "select pg_try_advisory_lock(123)"), ["t"]);
}

// Proves a transaction's advisory lock is waited for until its transaction
// commits, and that a session's locks are given back when it ends (a
// client's disconnect drops the session).
#[test]
fn advisory_locks_end_with_their_transaction_and_session() {
    let (_dir, db) = database();
    let mut a = Session::new(db.clone());
    let mut b = Session::new(db.clone());
    ok(&mut a, "begin");
    ok(&mut a, "select pg_advisory_xact_lock(5)");
    let waiter = std::thread::spawn(move || {
        ok(&mut b, "select pg_advisory_lock(5)");
        b
    });
    until_waiting(&db, AdvisoryKey::Big(5));
    ok(&mut a, "commit");
    let b = waiter.join().unwrap();
    assert_eq!(rows(&mut a, "select pg_try_advisory_lock(5)"), ["f"]);
    drop(b);
    assert_eq!(rows(&mut a, "select pg_try_advisory_lock(5)"), ["t"]);
}

// Proves a cancel (the server's CancelRequest) ends a wait for an advisory
// lock with 57014, and the session goes on.
#[test]
fn a_blocked_advisory_lock_is_canceled() {
    let (_dir, db) = database();
    let mut a = Session::new(db.clone());
    let mut b = Session::new(db.clone());
    let cancel = b.interrupt();
    ok(&mut a, "select pg_advisory_lock(1, 2)");
    let waiter = std::thread::spawn(move || {
        let e = fails(&mut b, "select pg_advisory_lock(1, 2)");
        (b, e)
    });
    until_waiting(&db, AdvisoryKey::Pair(1, 2));
    cancel.cancel();
    let (mut b, e) = waiter.join().unwrap();
    assert_eq!(
        (e.code, e.message.as_str()),
        ("57014", "canceling statement due to user request")
    );
    b.interrupt().clear();
    assert_eq!(rows(&mut b, "select pg_try_advisory_lock(1, 2)"), ["f"]);
    assert_eq!(rows(&mut b, "select pg_try_advisory_lock(2, 1)"), ["t"]);
}

// Proves two sessions that each wait for the advisory lock the other
// holds are a deadlock: exactly one fails with 40P01 (after
// deadlock_timeout), and once it gives its locks back the other gets its
// lock.
#[test]
fn crossed_advisory_locks_are_a_deadlock() {
    let (_dir, db) = database();
    let mut a = Session::new(db.clone());
    let mut b = Session::new(db.clone());
    ok(&mut a, "select pg_advisory_lock(1)");
    ok(&mut b, "select pg_advisory_lock(2)");
    let worker = |mut s: Session, key: i64| {
        std::thread::spawn(move || {
            let (_, err) = s.simple_query(&format!("select pg_advisory_lock({key})"));
            let code = err.map(|e| e.code);
            if code.is_some() {
                ok(&mut s, "select pg_advisory_unlock_all()");
            }
            (s, code)
        })
    };
    let a = worker(a, 2);
    let b = worker(b, 1);
    let (_a, a_code) = a.join().unwrap();
    let (_b, b_code) = b.join().unwrap();
    let mut codes = [a_code, b_code];
    codes.sort();
    assert_eq!(codes, [None, Some("40P01")]);
    // pg_stat_database counts it.
    let mut c = Session::new(db.clone());
    let deadlocks = "select deadlocks from pg_stat_database";
    assert_eq!(rows(&mut c, deadlocks), ["1"]);
}

// Proves `LOCK TABLE ... IN EXCLUSIVE MODE` keeps writers and locking
// readers of the table waiting until its transaction ends, that NOWAIT
// fails where it would wait (55P03, PostgreSQL's message), and that plain
// reads go on (they take no lock in folio; README of folio-txn).
#[test]
fn lock_table_keeps_writers_out_until_its_transaction_ends() {
    let (_dir, db) = database();
    let mut a = Session::new(db.clone());
    let mut b = Session::new(db.clone());
    ok(&mut a, "create table t (k int)");
    ok(&mut a, "insert into t values (1)");
    ok(&mut a, "begin");
    ok(&mut a, "lock table t in exclusive mode");
    ok(&mut b, "begin");
    let e = fails(&mut b, "lock table t in row share mode nowait");
    assert_eq!(
        (e.code, e.message.as_str()),
        ("55P03", "could not obtain lock on relation \"t\"")
    );
    ok(&mut b, "rollback");
    assert_eq!(rows(&mut b, "select count(*) from t"), ["1"]);
    let b_interrupt = b.interrupt();
    let writer = std::thread::spawn(move || {
        ok(&mut b, "insert into t values (2)");
        b
    });
    common::until_waiting(&b_interrupt);
    assert_eq!(rows(&mut a, "select count(*) from t"), ["1"]);
    ok(&mut a, "insert into t values (3)");
    ok(&mut a, "commit");
    let mut b = writer.join().unwrap();
    assert_eq!(rows(&mut b, "select count(*) from t"), ["3"]);
    // A locking read waits as a write does.
    ok(&mut a, "begin");
    ok(&mut a, "lock table t in exclusive mode");
    let b_interrupt = b.interrupt();
    let reader = std::thread::spawn(move || {
        let found = rows(&mut b, "select k from t where k = 2 for update");
        (b, found)
    });
    common::until_waiting(&b_interrupt);
    ok(&mut a, "rollback");
    let (_b, found) = reader.join().unwrap();
    assert_eq!(found, ["2"]);
}

// Proves `LOCK TABLE ... IN ACCESS SHARE MODE` keeps a table from being
// dropped under its transaction: the DROP waits for it to end.
#[test]
fn an_access_share_lock_keeps_drop_table_waiting() {
    let (_dir, db) = database();
    let mut a = Session::new(db.clone());
    let mut b = Session::new(db.clone());
    ok(&mut a, "create table t (k int)");
    ok(&mut a, "begin read only");
    ok(&mut a, "lock table t in access share mode");
    let b_interrupt = b.interrupt();
    let dropper = std::thread::spawn(move || {
        ok(&mut b, "drop table t");
        b
    });
    common::until_waiting(&b_interrupt);
    assert_eq!(rows(&mut a, "select count(*) from t"), ["0"]);
    ok(&mut a, "commit");
    let mut b = dropper.join().unwrap();
    assert_eq!(common::code(&mut b, "select * from t"), "42P01");
}

// Proves two transactions that each hold SHARE and then both ask for
// EXCLUSIVE are a deadlock (40P01) that ends one of them (both, when
// their detectors look at the same instant: folio-txn README "Row locks
// and waits"), and that no lock outlives them.
#[test]
fn crossed_lock_table_upgrades_are_a_deadlock() {
    let (_dir, db) = database();
    let mut a = Session::new(db.clone());
    let mut b = Session::new(db.clone());
    ok(&mut a, "create table t (k int)");
    for s in [&mut a, &mut b] {
        ok(s, "begin");
        ok(s, "lock table t in share mode");
    }
    let worker = |mut s: Session| {
        std::thread::spawn(move || {
            let (_, err) = s.simple_query("lock table t in exclusive mode");
            let code = err.map(|e| e.code);
            ok(&mut s, "rollback");
            code
        })
    };
    let a = worker(a);
    let b = worker(b);
    let codes = [a.join().unwrap(), b.join().unwrap()];
    assert!(codes.contains(&Some("40P01")), "{codes:?}");
    assert!(
        codes.iter().all(|c| matches!(c, None | Some("40P01"))),
        "{codes:?}"
    );
    let mut c = Session::new(db.clone());
    ok(&mut c, "begin");
    ok(&mut c, "lock table t in access exclusive mode nowait");
    ok(&mut c, "commit");
}
