//! Two-phase commit through the database (folio-txn README "Two-phase
//! commit"): prepared transactions outlive a crash with their changes
//! still invisible and their row and table locks still held, and are
//! committed or rolled back after it; gids, the limit.

mod common;

use common::*;
use folio_db::{Database, Durability, Isolation, Options, Table, Write};
use folio_heap::HeapError;
use folio_txn::{LockMode, Outcome, TxnError, WaitPolicy};

const RC: Isolation = Isolation::ReadCommitted;
const SYNC: Durability = Durability::Sync;
/// A table oid the transactions lock (the lock table takes any number).
const LOCKED: u64 = 4242;

fn options() -> Options {
    Options {
        max_prepared_transactions: 2,
        ..small_options()
    }
}

fn sorted_rows(db: &Database, table: &Table) -> Vec<Vec<u8>> {
    let txn = db.begin(RC, SYNC).unwrap();
    let mut rows: Vec<Vec<u8>> = (table.scan(&txn).unwrap().into_iter())
        .map(|(_, r)| r)
        .collect();
    rows.sort();
    rows
}

fn sqlstate(e: &TxnError) -> &'static str {
    e.sqlstate().unwrap_or("none")
}

// Proves a prepared transaction survives a crash: after the reopen it is
// listed with its gid, owner and database, its inserts, its update and
// its subtransaction's insert are still invisible, the row it updated is
// still locked (NOWAIT fails) and so is the table it locked, and its xid
// is running; COMMIT PREPARED then shows all of it and frees the locks,
// ROLLBACK PREPARED of the other hides its insert for good, a finished
// gid is unknown (42704), and a second reopen finds nothing prepared and
// the same rows.
#[test]
fn prepared_transactions_survive_a_crash_and_finish_after_it() {
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("db");
    let v = |s: &str| s.as_bytes().to_vec();
    let (base, xa) = {
        let db = Database::create(&path, options()).unwrap();
        let table = db.create_table("t").unwrap();
        let mut setup = db.begin(RC, SYNC).unwrap();
        let base = table.insert(&mut setup, b"base").unwrap();
        setup.commit().unwrap();

        let mut a = db.begin(RC, SYNC).unwrap();
        table.insert(&mut a, b"a").unwrap();
        a.savepoint("s").unwrap();
        table.insert(&mut a, b"a-sub").unwrap();
        assert!(matches!(
            table.update(&mut a, base, b"base2", true).unwrap(),
            Write::Done(_) | Write::Hot(_)
        ));
        a.lock_table(LOCKED, LockMode::AccessExclusive).unwrap();
        let xa = a.existing_xid().unwrap();
        a.prepare("ga", "alice", "db").unwrap();

        let mut b = db.begin(RC, SYNC).unwrap();
        table.insert(&mut b, b"b").unwrap();
        b.prepare("gb", "bob", "db").unwrap();

        let mut c = db.begin(RC, SYNC).unwrap();
        table.insert(&mut c, b"c").unwrap();
        let e = c.prepare("ga", "carol", "db").unwrap_err();
        assert_eq!(sqlstate(&e), "42710", "{e}");
        assert_eq!(
            e.to_string(),
            "transaction identifier \"ga\" is already in use"
        );
        let e = db
            .begin(RC, SYNC)
            .unwrap()
            .prepare("gc", "carol", "db")
            .unwrap_err();
        assert_eq!(sqlstate(&e), "53200", "{e}");

        assert_eq!(sorted_rows(&db, &table), vec![v("base")]);
        // A crash: nothing closed.
        drop(table);
        drop(db);
        (base, xa)
    };
    let db = Database::open(&path, options()).unwrap();
    let table = db.open_table("t").unwrap().unwrap();
    let listed = db.txns().prepared_transactions();
    let gids: Vec<(&str, &str)> = (listed.iter())
        .map(|p| (p.gid.as_str(), p.owner.as_str()))
        .collect();
    assert_eq!(gids, vec![("ga", "alice"), ("gb", "bob")]);
    assert_eq!(listed[0].xid, xa);
    assert!(listed[0].prepared_at_us > 0 && listed[0].database == "db");
    assert!(matches!(db.txns().outcome(xa).unwrap(), Outcome::Running));
    assert_eq!(sorted_rows(&db, &table), vec![v("base")], "still invisible");

    let mut w = db.begin(RC, SYNC).unwrap();
    match table.lock_with(&mut w, base, WaitPolicy::NoWait) {
        Err(HeapError::Txn(TxnError::LockNotAvailable { holder, .. })) => assert_eq!(holder, xa),
        other => panic!("the row is still locked: {other:?}"),
    }
    let mut w = db.begin(RC, SYNC).unwrap();
    let e = (w.lock_table_explicitly(LOCKED, LockMode::AccessShare, true)).unwrap_err();
    assert_eq!(sqlstate(&e), "55P03", "the table lock is held: {e}");

    db.txns().finish_prepared("ga", true).unwrap();
    assert_eq!(
        sorted_rows(&db, &table),
        vec![v("a"), v("a-sub"), v("base2")]
    );
    let mut w = db.begin(RC, SYNC).unwrap();
    assert!(
        w.lock_table_explicitly(LOCKED, LockMode::AccessExclusive, true)
            .unwrap()
    );
    w.commit().unwrap();
    db.txns().finish_prepared("gb", false).unwrap();
    let e = db.txns().finish_prepared("ga", true).unwrap_err();
    assert_eq!(sqlstate(&e), "42704", "{e}");
    assert!(db.txns().prepared_transactions().is_empty());
    let expected = vec![v("a"), v("a-sub"), v("base2")];
    assert_eq!(sorted_rows(&db, &table), expected);
    drop(table);
    drop(db);

    let db = Database::open(&path, options()).unwrap();
    let table = db.open_table("t").unwrap().unwrap();
    assert!(db.txns().prepared_transactions().is_empty());
    assert_eq!(sorted_rows(&db, &table), expected);
    drop(table);
    db.close().unwrap();
}

// Proves a transaction prepared before a checkpoint and a clean close is
// found again (its state is in pages, not only in the WAL since the
// checkpoint), and that 0 prepared transactions allowed refuses PREPARE
// with PostgreSQL's 55000.
#[test]
fn prepared_state_outlives_checkpoints_and_zero_disables_it() {
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("db");
    {
        let db = Database::create(&path, options()).unwrap();
        let table = db.create_table("t").unwrap();
        let mut a = db.begin(RC, SYNC).unwrap();
        table.insert(&mut a, b"a").unwrap();
        a.prepare("kept", "alice", "db").unwrap();
        db.checkpoint().unwrap();
        drop(table);
        db.close().unwrap();
    }
    let db = Database::open(&path, small_options()).unwrap();
    let table = db.open_table("t").unwrap().unwrap();
    assert_eq!(db.txns().prepared_transactions().len(), 1);
    assert!(sorted_rows(&db, &table).is_empty());
    let e = (db.begin(RC, SYNC).unwrap().prepare("new", "alice", "db")).unwrap_err();
    assert_eq!(sqlstate(&e), "55000", "{e}");
    assert_eq!(e.to_string(), "prepared transactions are disabled");
    db.txns().finish_prepared("kept", true).unwrap();
    assert_eq!(sorted_rows(&db, &table), vec![b"a".to_vec()]);
    drop(table);
    db.close().unwrap();
}
