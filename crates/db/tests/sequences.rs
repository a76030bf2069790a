//! Sequence values (folio-catalog `sequences.rs`): not transactional,
//! durable before they are handed out, never handed out twice — across a
//! clean restart, across a crash at every I/O operation, and between
//! threads calling `nextval` at once.

mod common;

use common::*;
use folio_db::{
    Database, Durability, Isolation, LOG_AHEAD, Options, Persistence, SequenceDef, SequenceRequest,
    Storage,
};
use folio_io::{SimConfig, SimDir};
use std::collections::BTreeSet;
use std::sync::Arc;

const RC: Isolation = Isolation::ReadCommitted;
const SYNC: Durability = Durability::Sync;

/// Creates sequence `name` with default options, committed.
fn create(db: &Database, name: &str) -> Result<SequenceDef, folio_db::DbError> {
    let mut t = db.begin(RC, SYNC)?;
    let options = SequenceRequest::default().settle(None)?;
    let def =
        db.catalog()
            .create_sequence(&mut t, name, options, None, None, Persistence::Permanent)?;
    t.commit()?;
    Ok(def)
}

/// Sequence `name` as a new transaction sees it.
fn find(db: &Database, name: &str) -> Option<SequenceDef> {
    let t = db.begin(RC, SYNC).unwrap();
    db.catalog().sequence(&t, name).unwrap()
}

// Proves values continue after a clean close and reopen (with at most
// the log-ahead's gap), setval's value too, and a rolled-back creation
// leaves no sequence.
#[test]
fn values_survive_reopen() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("db");
    let db = Database::create(&path, Options::default()).unwrap();
    let s = create(&db, "s").unwrap();
    let first: Vec<i64> = (0..5)
        .map(|_| db.catalog().next_value(&s).unwrap())
        .collect();
    assert_eq!(first, [1, 2, 3, 4, 5]);
    let u = create(&db, "u").unwrap();
    db.catalog().set_sequence(&u, 1000, false).unwrap();
    let mut t = db.begin(RC, SYNC).unwrap();
    let options = SequenceRequest::default().settle(None).unwrap();
    db.catalog()
        .create_sequence(
            &mut t,
            "rolled_back",
            options,
            None,
            None,
            Persistence::Permanent,
        )
        .unwrap();
    t.rollback().unwrap();
    db.close().unwrap();

    let db = Database::open(&path, Options::default()).unwrap();
    let s = find(&db, "s").expect("committed sequence");
    let next = db.catalog().next_value(&s).unwrap();
    assert!(next > 5 && next <= 5 + i64::from(LOG_AHEAD), "{next}");
    let u = find(&db, "u").expect("committed sequence");
    assert_eq!(db.catalog().next_value(&u).unwrap(), 1000);
    assert!(find(&db, "rolled_back").is_none());
    db.close().unwrap();
}

/// One crash case: a sequence created, then values handed out (with a
/// setval in the middle); after the crash and recovery, the next value
/// is beyond every value handed out. Returns whether the workload
/// completed before the crash.
fn case(seed: u64, crash_at: u64) -> bool {
    let label = format!("seed {seed}, crash at op {crash_at}");
    let dir = SimDir::new(SimConfig::seeded(seed));
    dir.set_crash_after_ops(crash_at);
    let mut handed: Vec<i64> = Vec::new();
    let mut created = false;
    let mut acked = false;
    'run: {
        let Ok(db) = Database::create_in(Storage::single(dir.clone()), small_options()) else {
            break 'run;
        };
        created = true;
        let Ok(s) = create(&db, "s") else {
            break 'run;
        };
        acked = true;
        for n in 0..80 {
            if n == 50 {
                if db.catalog().set_sequence(&s, 200, true).is_err() {
                    break 'run;
                }
                handed.push(200);
            }
            match db.catalog().next_value(&s) {
                Ok(v) => handed.push(v),
                Err(_) => break 'run,
            }
        }
    }
    let (completed, db) = crash_and_reopen(&dir, crash_at, created, &label);
    let Some(db) = db else {
        return completed;
    };
    match find(&db, "s") {
        Some(s) => {
            let next = db.catalog().next_value(&s).unwrap();
            let max = handed.iter().copied().max().unwrap_or(0);
            assert!(next > max, "{label}: {next} after {max} was handed out");
        }
        None => assert!(!acked, "{label}: the committed sequence is gone"),
    }
    db.verify().unwrap();
    completed
}

// Proves no value is handed out twice whatever I/O operation the crash
// interrupts.
#[test]
fn crash_at_every_io_operation_never_repeats_a_value() {
    let points = sweep_crash_points(|crash_at| case(7, crash_at));
    eprintln!("{points} crash points");
}

// Proves concurrent nextval from several threads gives distinct values,
// all of them (no rollbacks: no gaps either).
#[test]
fn concurrent_nextval_gives_distinct_values() {
    const THREADS: usize = 4;
    const EACH: usize = 500;
    let dir = tempfile::tempdir().unwrap();
    let db = Arc::new(Database::create(dir.path().join("db"), Options::default()).unwrap());
    let s = Arc::new(create(&db, "s").unwrap());
    let handles: Vec<_> = (0..THREADS)
        .map(|_| {
            let (db, s) = (db.clone(), s.clone());
            std::thread::spawn(move || {
                (0..EACH)
                    .map(|_| db.catalog().next_value(&s).unwrap())
                    .collect::<Vec<i64>>()
            })
        })
        .collect();
    let mut all = BTreeSet::new();
    for h in handles {
        for v in h.join().unwrap() {
            assert!(all.insert(v), "{v} handed out twice");
        }
    }
    let expected: BTreeSet<i64> = (1..=(THREADS * EACH) as i64).collect();
    assert_eq!(all, expected);
}

// Proves a restart is transactional (folio-catalog sequences.rs,
// "Transactional restarts"): the restarting transaction sees the restarted
// value at once; another transaction goes on with the old value until it
// commits; a rollback leaves the old value going on; a committed restart
// survives a reopen, and a second restart after a rolled-back one starts
// afresh.
#[test]
fn a_restart_is_transactional() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("db");
    let db = Database::create(&path, Options::default()).unwrap();
    let s = create(&db, "s").unwrap();
    for _ in 0..3 {
        db.catalog().next_value(&s).unwrap();
    }
    // Rolled back: the other transaction's value goes on throughout.
    let mut t = db.begin(RC, SYNC).unwrap();
    let restarted = db.catalog().restart_sequence(&mut t, "s", None).unwrap();
    assert_eq!(restarted.generation, 1);
    let own = db.catalog().sequence(&t, "s").unwrap().unwrap();
    assert_eq!(db.catalog().next_value(&own).unwrap(), 1);
    assert_eq!(db.catalog().next_value(&own).unwrap(), 2);
    let other = find(&db, "s").unwrap();
    assert_eq!(other.generation, 0);
    assert_eq!(db.catalog().next_value(&other).unwrap(), 4);
    t.rollback().unwrap();
    let after = find(&db, "s").unwrap();
    assert_eq!(db.catalog().next_value(&after).unwrap(), 5);

    // Committed: the new generation from the start value given.
    let mut t = db.begin(RC, SYNC).unwrap();
    db.catalog()
        .restart_sequence(&mut t, "s", Some(100))
        .unwrap();
    assert_eq!(
        db.catalog().next_value(&find(&db, "s").unwrap()).unwrap(),
        6
    );
    t.commit().unwrap();
    let s = find(&db, "s").unwrap();
    assert_eq!(s.generation, 1);
    assert_eq!(db.catalog().next_value(&s).unwrap(), 100);
    assert_eq!(db.catalog().next_value(&s).unwrap(), 101);
    // Out of bounds: refused, nothing changed.
    let mut t = db.begin(RC, SYNC).unwrap();
    assert!(db.catalog().restart_sequence(&mut t, "s", Some(0)).is_err());
    t.rollback().unwrap();
    db.close().unwrap();

    let db = Database::open(&path, Options::default()).unwrap();
    let s = find(&db, "s").unwrap();
    assert_eq!(s.generation, 1);
    let next = db.catalog().next_value(&s).unwrap();
    assert!(next > 101 && next <= 101 + i64::from(LOG_AHEAD), "{next}");
    db.close().unwrap();
}
