//! The pages of dropped tables and indexes come back (folio-catalog
//! README, "Giving back the pages of dropped relations"): the data file
//! stays bounded over repeated create/fill/drop cycles, with and without
//! restarts; a transaction that began before a drop still reads the table
//! and its pages come back only after it ends; a rolled-back drop keeps
//! the table whole and frees nothing; a crash at every I/O operation of a
//! drop-and-reuse workload loses no acknowledged table or row and leaves
//! the database verifying, with no page both free and in use.

mod common;

use common::*;
use folio_db::{ColumnDef, Database, Durability, Isolation, Options, Storage};
use folio_io::{SimConfig, SimDir};
use folio_row::{SqlType, Value};
use std::collections::BTreeMap;

const RC: Isolation = Isolation::ReadCommitted;
const RR: Isolation = Isolation::RepeatableRead;
const SYNC: Durability = Durability::Sync;

fn columns() -> Vec<ColumnDef> {
    vec![
        ColumnDef {
            local: true,
            collation: None,
            name: "id".into(),
            type_oid: SqlType::Int4.oid(),
            typmod: SqlType::Int4.typmod(),
            not_null: true,
        },
        ColumnDef {
            local: true,
            collation: None,
            name: "body".into(),
            type_oid: SqlType::Text.oid(),
            typmod: SqlType::Text.typmod(),
            not_null: false,
        },
    ]
}

fn row(id: i32, len: usize) -> Vec<Value> {
    let c = (b'a' + (id % 26) as u8) as char;
    vec![Value::Int4(id), Value::Text(c.to_string().repeat(len))]
}

fn options(pool_pages: u64) -> Options {
    Options {
        pool_size_bytes: pool_pages * 8192,
        ..small_options()
    }
}

/// Creates table `name` with a unique index on `id` and `rows` rows of
/// `len`-byte text, in one committed transaction.
/// A new database on a simulated directory seeded with `seed`, with a
/// 64-page pool.
fn fresh_db(seed: u64) -> Database {
    Database::create_in(
        Storage::single(SimDir::new(SimConfig::seeded(seed))),
        options(64),
    )
    .unwrap()
}

fn create_filled(db: &Database, name: &str, rows: i32, len: usize) {
    let cat = db.catalog();
    let mut t = db.begin(RC, SYNC).unwrap();
    cat.create_table(&mut t, name, &columns()).unwrap();
    cat.create_index(&mut t, name, &format!("{name}_pkey"), &["id"], true)
        .unwrap();
    let rel = cat.relation(&t, name).unwrap().unwrap();
    for id in 0..rows {
        rel.insert(&mut t, row(id, len)).unwrap();
    }
    t.commit().unwrap();
}

fn drop_committed(db: &Database, name: &str) {
    let mut t = db.begin(RC, SYNC).unwrap();
    db.catalog().drop_table(&mut t, name).unwrap();
    t.commit().unwrap();
}

/// The rows of `name` as a fresh transaction sees them, each also found
/// through the index.
fn rows_of(db: &Database, name: &str) -> Option<BTreeMap<i32, String>> {
    let t = db.begin(RC, SYNC).unwrap();
    let rel = db.catalog().relation(&t, name).unwrap()?;
    let mut out = BTreeMap::new();
    for (_, values) in rel.scan(&t).unwrap() {
        let hits = rel.lookup(&t, 0, &values[..1]).unwrap();
        assert_eq!(hits.len(), 1, "{name}: {:?} not in its index", values[0]);
        match (&values[0], &values[1]) {
            (Value::Int4(id), Value::Text(s)) => out.insert(*id, s.clone()),
            other => panic!("{other:?}"),
        };
    }
    Some(out)
}

fn data_file_bytes(dir: &SimDir) -> u64 {
    use folio_io::{Dir, OpenOptions};
    dir.open("data", OpenOptions::EXISTING)
        .unwrap()
        .len()
        .unwrap()
}

/// Runs 20 create/fill/drop cycles (restarting after each drop when
/// `restart`); returns the high-water mark (pages) after each cycle.
fn cycles(restart: bool) -> (Vec<u64>, u64, std::sync::Arc<SimDir>) {
    let dir = SimDir::new(SimConfig::seeded(7));
    let mut db = Database::create_in(Storage::single(dir.clone()), options(256)).unwrap();
    let mut marks = Vec::new();
    for _ in 0..20 {
        create_filled(&db, "t", 2000, 100);
        drop_committed(&db, "t");
        if restart {
            db.close().unwrap();
            db = Database::open_in(Storage::single(dir.clone()), options(256)).unwrap();
        }
        marks.push(db.pool().page_count().unwrap());
    }
    // The last drop comes back too.
    let stats = db.catalog().reclaim(db.txns()).unwrap();
    assert_eq!(stats.relations_freed, 2, "{stats:?}");
    eprintln!("one drop gave back {} pages", stats.pages_freed);
    assert_eq!(db.catalog().pending_drops().unwrap(), 0);
    db.verify().unwrap();
    db.check_invariants().unwrap();
    let free = db.pool().free_page_count().unwrap();
    db.close().unwrap();
    (marks, free, dir)
}

// Proves that repeated create/fill/drop cycles keep the data file's
// high-water mark at one table's size plus a small bound (the catalog's
// dead rows, the list of drops), and that the pages of the last drop end
// on the free list.
#[test]
fn the_data_file_stays_bounded_over_create_fill_drop_cycles() {
    let (marks, free, dir) = cycles(false);
    let one_table = marks[0];
    eprintln!(
        "high-water mark by cycle: {marks:?}; free at the end: {free}; data file {} bytes",
        data_file_bytes(&dir)
    );
    assert!(
        *marks.last().unwrap() <= one_table + 16,
        "the file grew: {marks:?}"
    );
    assert!(
        free * 2 >= one_table,
        "the last table's pages are free: {free}"
    );
}

// Proves the same across restarts: the list of drops and the free list are
// persistent, so a drop committed before a clean restart is reclaimed after
// it and its pages reused.
#[test]
fn the_data_file_stays_bounded_across_restarts() {
    let (marks, _, dir) = cycles(true);
    eprintln!(
        "high-water mark by cycle (restarts): {marks:?}; data file {} bytes",
        data_file_bytes(&dir)
    );
    // Each run's first xid starts a new CSN-log page (a run begins its
    // xids at the logged reservation limit, 65,536 past the last run's:
    // folio-txn README "Counters across crashes"; the log is not truncated
    // yet): one page per restart, whatever is dropped.
    for pair in marks.windows(2) {
        assert!(pair[1] <= pair[0] + 1, "the file grew: {marks:?}");
    }
    assert!(
        *marks.last().unwrap() <= marks[0] + 16 + marks.len() as u64,
        "the file grew: {marks:?}"
    );
}

// Proves a REPEATABLE READ transaction and a READ COMMITTED one that opened
// the table, both begun before the drop committed, still read every row
// (through the heap and the index) after the drop, while reclaims free
// nothing and new tables do not take its pages; its pages come back only
// once both have ended.
#[test]
fn transactions_begun_before_a_drop_read_the_table_until_they_end() {
    let db = fresh_db(3);
    let cat = db.catalog();
    create_filled(&db, "t", 500, 100);
    let expected = rows_of(&db, "t").unwrap();
    let rr = db.begin(RR, SYNC).unwrap();
    let rr_rel = cat.relation(&rr, "t").unwrap().unwrap();
    let mut rc = db.begin(RC, SYNC).unwrap();
    let rc_rel = cat.relation(&rc, "t").unwrap().unwrap();
    drop_committed(&db, "t");
    assert!(rows_of(&db, "t").is_none(), "dropped for new transactions");

    let stats = cat.reclaim(db.txns()).unwrap();
    assert_eq!((stats.waiting, stats.pages_freed), (2, 0), "{stats:?}");
    // Allocations meanwhile cannot take the table's pages.
    create_filled(&db, "u", 500, 100);
    rc.next_statement();
    for (txn, rel) in [(&rr, &rr_rel), (&rc, &rc_rel)] {
        let rows = rel.scan(txn).unwrap();
        assert_eq!(rows.len(), expected.len());
        for (_, values) in rows {
            assert_eq!(rel.lookup(txn, 0, &values[..1]).unwrap().len(), 1);
        }
    }
    rr.commit().unwrap();
    let stats = cat.reclaim(db.txns()).unwrap();
    assert_eq!(
        (stats.waiting, stats.pages_freed),
        (2, 0),
        "the READ COMMITTED transaction began before the drop: {stats:?}"
    );
    drop(rc_rel);
    rc.commit().unwrap();
    let free_before = db.pool().free_page_count().unwrap();
    let stats = cat.reclaim(db.txns()).unwrap();
    assert_eq!(stats.relations_freed, 2, "{stats:?}");
    assert!(stats.pages_freed > 10, "{stats:?}");
    // (Emptied leaves of the list of drops may go to the free list too.)
    assert!(db.pool().free_page_count().unwrap() >= free_before + stats.pages_freed);
    assert_eq!(rows_of(&db, "u").unwrap().len(), 500);
    db.verify().unwrap();
}

// Proves a rolled-back drop, and a drop in a rolled-back savepoint of a
// transaction that commits, keep the table and its index whole and free
// nothing (their records are forgotten); and that a drop in a released
// savepoint of a committed transaction does free the pages.
#[test]
fn a_rolled_back_drop_keeps_the_table_whole() {
    let db = fresh_db(4);
    let cat = db.catalog();
    create_filled(&db, "t", 500, 100);
    let expected = rows_of(&db, "t").unwrap();

    let mut t = db.begin(RC, SYNC).unwrap();
    cat.drop_table(&mut t, "t").unwrap();
    t.rollback().unwrap();
    let free = db.pool().free_page_count().unwrap();
    let stats = cat.reclaim(db.txns()).unwrap();
    assert_eq!((stats.forgotten, stats.pages_freed), (2, 0), "{stats:?}");

    let mut t = db.begin(RC, SYNC).unwrap();
    t.savepoint("s").unwrap();
    cat.drop_table(&mut t, "t").unwrap();
    t.rollback_to("s").unwrap();
    t.commit().unwrap();
    let stats = cat.reclaim(db.txns()).unwrap();
    assert_eq!((stats.forgotten, stats.pages_freed), (2, 0), "{stats:?}");
    assert_eq!(db.pool().free_page_count().unwrap(), free);
    assert_eq!(rows_of(&db, "t").unwrap(), expected);
    // New pages do not come from the table.
    create_filled(&db, "u", 300, 100);
    assert_eq!(rows_of(&db, "t").unwrap(), expected);
    db.verify().unwrap();

    let mut t = db.begin(RC, SYNC).unwrap();
    t.savepoint("s").unwrap();
    cat.drop_index(&mut t, "t_pkey").unwrap();
    t.release("s").unwrap();
    t.commit().unwrap();
    let stats = cat.reclaim(db.txns()).unwrap();
    assert_eq!(stats.relations_freed, 1, "{stats:?}");
    assert!(stats.pages_freed > 0);
    let t = db.begin(RC, SYNC).unwrap();
    let rel = cat.relation(&t, "t").unwrap().unwrap();
    assert!(rel.indexes.is_empty());
    assert_eq!(rel.scan(&t).unwrap().len(), expected.len());
    drop(t);
    db.verify().unwrap();
}

// Proves the pages of a rolled-back create come back: a table and its
// index created and filled in a transaction that rolls back, a table created
// in a rolled-back savepoint (freed only once its transaction has ended,
// which may still hold it), and a unique index whose build failed on a
// duplicate; and that a committed create's record is forgotten, its table
// untouched.
#[test]
fn a_rolled_back_create_gives_its_pages_back() {
    let db = fresh_db(5);
    let cat = db.catalog();
    create_filled(&db, "kept", 200, 100);
    let kept = rows_of(&db, "kept").unwrap();
    let stats = cat.reclaim(db.txns()).unwrap();
    assert_eq!((stats.created, stats.pages_freed), (2, 0), "{stats:?}");

    // A whole transaction rolled back.
    let mut t = db.begin(RC, SYNC).unwrap();
    cat.create_table(&mut t, "gone", &columns()).unwrap();
    cat.create_index(&mut t, "gone", "gone_pkey", &["id"], true)
        .unwrap();
    let rel = cat.relation(&t, "gone").unwrap().unwrap();
    for id in 0..500 {
        rel.insert(&mut t, row(id, 100)).unwrap();
    }
    drop(rel);
    t.rollback().unwrap();
    let high = db.pool().page_count().unwrap();
    let free = db.pool().free_page_count().unwrap();
    let stats = cat.reclaim(db.txns()).unwrap();
    assert_eq!(stats.relations_freed, 2, "{stats:?}");
    assert!(stats.pages_freed > 10, "{stats:?}");
    assert!(db.pool().free_page_count().unwrap() >= free + stats.pages_freed);
    assert_eq!(cat.pending_drops().unwrap(), 0);
    // The next table reuses them: the file does not grow.
    create_filled(&db, "next", 500, 100);
    assert!(db.pool().page_count().unwrap() <= high + 2, "the file grew");

    // A savepoint rolled back inside a transaction that goes on.
    let mut t = db.begin(RC, SYNC).unwrap();
    t.savepoint("s").unwrap();
    cat.create_table(&mut t, "inner", &columns()).unwrap();
    let rel = cat.relation(&t, "inner").unwrap().unwrap();
    for id in 0..300 {
        rel.insert(&mut t, row(id, 100)).unwrap();
    }
    drop(rel);
    t.rollback_to("s").unwrap();
    let stats = cat.reclaim(db.txns()).unwrap();
    assert_eq!(
        (stats.waiting, stats.pages_freed),
        (1, 0),
        "its transaction still runs: {stats:?}"
    );
    t.commit().unwrap();
    let stats = cat.reclaim(db.txns()).unwrap();
    assert_eq!(stats.relations_freed, 1, "{stats:?}");
    assert!(stats.pages_freed > 5, "{stats:?}");

    // A unique index whose build met a duplicate (23505).
    let mut t = db.begin(RC, SYNC).unwrap();
    let rel = cat.relation(&t, "kept").unwrap().unwrap();
    // Its body repeats row 25's.
    rel.insert(&mut t, row(207, 100)).unwrap();
    drop(rel);
    assert!(
        cat.create_index(&mut t, "kept", "kept_body", &["body"], true)
            .is_err()
    );
    t.rollback().unwrap();
    let stats = cat.reclaim(db.txns()).unwrap();
    assert_eq!(stats.relations_freed, 1, "{stats:?}");
    assert!(stats.pages_freed >= 1, "{stats:?}");

    assert_eq!(rows_of(&db, "kept").unwrap(), kept);
    assert_eq!(rows_of(&db, "next").unwrap().len(), 500);
    assert!(rows_of(&db, "gone").is_none() && rows_of(&db, "inner").is_none());
    db.verify().unwrap();
    db.check_invariants().unwrap();
}

/// One crash case of the drop-and-reuse workload: tables `t0..` created
/// and filled, each dropped once the next exists, reclaims on the way
/// (every create reclaims), checkpoints now and then, a 10-page pool.
/// Returns whether the workload completed before the crash.
fn crash_case(seed: u64, crash_at: u64, rounds: usize) -> bool {
    let label = format!("seed {seed}, crash at op {crash_at}");
    let dir = SimDir::new(SimConfig::seeded(seed));
    dir.set_crash_after_ops(crash_at);
    // Tables acknowledged alive (name -> rows), and the change in flight.
    let mut acked: BTreeMap<String, i32> = BTreeMap::new();
    let mut in_flight: Option<BTreeMap<String, i32>> = None;
    let mut created = false;
    'run: {
        let Ok(db) = Database::create_in(Storage::single(dir.clone()), small_options()) else {
            break 'run;
        };
        created = true;
        let cat = db.catalog();
        for round in 0..rounds {
            let name = format!("t{round}");
            let rows = 30 + 10 * round as i32;
            let mut next = acked.clone();
            next.insert(name.clone(), rows);
            let Ok(mut t) = db.begin(RC, SYNC) else {
                break 'run;
            };
            let made = cat
                .create_table(&mut t, &name, &columns())
                .and_then(|_| {
                    cat.create_index(&mut t, &name, &format!("{name}_pkey"), &["id"], true)
                })
                .and_then(|_| {
                    let rel = cat.relation(&t, &name)?.expect("created");
                    (0..rows).try_for_each(|id| rel.insert(&mut t, row(id, 300)).map(|_| ()))
                });
            if made.is_err() {
                break 'run;
            }
            match t.commit() {
                Ok(_) => acked = next,
                Err(_) => {
                    in_flight = Some(next);
                    break 'run;
                }
            }
            if round > 0 {
                let old = format!("t{}", round - 1);
                let mut next = acked.clone();
                next.remove(&old);
                let Ok(mut t) = db.begin(RC, SYNC) else {
                    break 'run;
                };
                if cat.drop_table(&mut t, &old).is_err() {
                    break 'run;
                }
                match t.commit() {
                    Ok(_) => acked = next,
                    Err(_) => {
                        in_flight = Some(next);
                        break 'run;
                    }
                }
            }
            if round % 2 == 1 && db.checkpoint().is_err() {
                break 'run;
            }
            if round % 3 == 2 && cat.reclaim(db.txns()).is_err() {
                break 'run;
            }
        }
    }
    let (completed, db) = crash_and_reopen(&dir, crash_at, created, &label);
    let Some(db) = db else {
        return completed;
    };
    let check = |db: &Database, what: &str| {
        let t = db.begin(RC, SYNC).unwrap();
        let mut found: BTreeMap<String, i32> = BTreeMap::new();
        for def in db.catalog().tables(&t).unwrap() {
            if def.name.starts_with('t') {
                let rows = rows_of(db, &def.name).unwrap();
                for (id, body) in &rows {
                    assert_eq!(
                        body,
                        &match &row(*id, 300)[1] {
                            Value::Text(s) => s.clone(),
                            _ => unreachable!(),
                        },
                        "{label} {what}"
                    );
                }
                found.insert(def.name, rows.len() as i32);
            }
        }
        drop(t);
        assert!(
            found == acked || in_flight.as_ref() == Some(&found),
            "{label} {what}: found {found:?}, acknowledged {acked:?}"
        );
        db.verify().unwrap();
        db.check_invariants().unwrap();
    };
    check(&db, "after recovery");
    // What the crash left on the list is reclaimed; then new allocations
    // (which take free pages first) must not overwrite any live table.
    db.catalog().reclaim(db.txns()).unwrap();
    assert_eq!(db.catalog().pending_drops().unwrap(), 0, "{label}");
    create_filled(&db, "z", 60, 300);
    check(&db, "after a reclaim and new allocations");
    completed
}

// Proves the module's crash claim at every I/O operation of the workload.
#[test]
fn a_crash_at_every_io_operation_of_drops_and_reuse_loses_nothing() {
    let rounds = env_or("FOLIO_RECLAIM_CRASH_ROUNDS", 4);
    let points = sweep_crash_points(|crash_at| crash_case(41, crash_at, rounds));
    eprintln!("{points} crash points, {rounds} rounds");
}

// Proves an autovacuum pass gives back the pages of a committed drop
// before it vacuums, and a vacuum of a relation read before its table was
// dropped skips it instead of touching freed pages.
#[test]
fn autovacuum_reclaims_and_vacuum_skips_a_dropped_table() {
    use folio_catalog::{AutovacuumConfig, autovacuum_pass, vacuum};
    let db = fresh_db(5);
    create_filled(&db, "t", 300, 100);
    let rel = {
        let t = db.begin(RC, SYNC).unwrap();
        db.catalog().relation(&t, "t").unwrap().unwrap()
    };
    drop_committed(&db, "t");
    let pass = autovacuum_pass(db.catalog(), db.txns(), &AutovacuumConfig::default()).unwrap();
    assert!(pass.pages_reclaimed > 0, "{pass:?}");
    assert_eq!(vacuum(db.catalog(), &rel, db.txns()).unwrap(), None);
    db.verify().unwrap();
}
