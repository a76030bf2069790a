//! `VACUUM FULL` and `CLUSTER` (folio-catalog `rewrite.rs`) across
//! sessions, rollbacks, a reopen and a crash: what the slt file cannot
//! show. Expected values and SQLSTATEs are PostgreSQL 15's.

use folio_db::{Database, Durability, Isolation, Options, Storage};
use folio_io::{SimConfig, SimDir};
use folio_sql::Session;
use std::sync::Arc;

mod common;
use common::{fails, ok, rows};

/// Options for a database in memory (`SimDir`).
fn small() -> Options {
    Options {
        pool_size_bytes: 4 << 20,
        ..Options::default()
    }
}

/// A table `t` of 1,000 rows, 900 of them deleted and vacuumed, with a
/// primary key and an index on `v`.
fn setup(s: &mut Session) {
    ok(s, "create table t (id int primary key, v text)");
    ok(
        s,
        "insert into t select g, 'v' || (g % 13) from generate_series(1, 1000) g",
    );
    ok(s, "create index t_v on t (v)");
    ok(s, "delete from t where id % 10 <> 0");
    ok(s, "vacuum t");
}

/// What `t` holds, read by a sequential scan and through both indexes.
fn contents(s: &mut Session) -> Vec<String> {
    let mut out = rows(s, "select count(*), sum(id) from t");
    ok(s, "set enable_seqscan = off");
    out.extend(rows(
        s,
        "select count(*) from t where id between 100 and 500",
    ));
    out.extend(rows(s, "select id from t where v = 'v3' order by id"));
    ok(s, "reset enable_seqscan");
    out
}

/// The out-of-line chunks a snapshot taken now sees.
fn toast_chunks(db: &Database) -> usize {
    let txn = db
        .begin(Isolation::ReadCommitted, Durability::Sync)
        .unwrap();
    db.catalog().toast_table().scan(&txn).unwrap().len()
}

/// Every table and index of `db` verifies (heap and indexes agree).
fn verified(db: &Database) {
    for (name, result) in db.verify_tables().unwrap() {
        result.unwrap_or_else(|e| panic!("{name}: {e}"));
    }
}

// Proves a rewrite that rolls back (a CLUSTER in a block, a savepoint
// rolled back to around one) leaves the old table, rows and indexes, and
// that its new storage goes back to the free list, while a committed
// VACUUM FULL's old storage does; the table verifies throughout.
#[test]
fn a_rolled_back_rewrite_keeps_the_old_table_and_frees_the_new_pages() {
    let (_dir, _, db) = common::fresh();
    let mut s = Session::new(db.clone());
    setup(&mut s);
    let before = contents(&mut s);
    let size = rows(&mut s, "select pg_relation_size('t')");
    ok(&mut s, "begin");
    ok(&mut s, "cluster t using t_v");
    assert_eq!(contents(&mut s), before);
    ok(&mut s, "rollback");
    assert_eq!(contents(&mut s), before);
    assert_eq!(rows(&mut s, "select pg_relation_size('t')"), size);
    let reclaimed = db.catalog().reclaim(db.txns()).unwrap();
    // The new heap and its two new indexes; nothing of the old table.
    assert_eq!(reclaimed.relations_freed, 3, "{reclaimed:?}");
    assert!(reclaimed.pages_freed > 0);
    assert_eq!(db.catalog().pending_drops().unwrap(), 0);
    verified(&db);

    ok(&mut s, "begin");
    ok(&mut s, "savepoint a");
    ok(&mut s, "cluster t using t_pkey");
    ok(&mut s, "rollback to savepoint a");
    ok(&mut s, "commit");
    assert_eq!(
        rows(
            &mut s,
            "select count(*) from pg_index where indrelid = 't'::regclass and indisclustered"
        ),
        ["0"]
    );
    assert_eq!(db.catalog().reclaim(db.txns()).unwrap().relations_freed, 3);

    ok(&mut s, "vacuum full t");
    assert_eq!(contents(&mut s), before);
    // VACUUM FULL gave the old storage back as it ended.
    assert_eq!(db.catalog().pending_drops().unwrap(), 0);
    let smaller = rows(
        &mut s,
        &format!("select pg_relation_size('t') * 5 < {}", size[0]),
    );
    assert_eq!(smaller, ["t"]);
    verified(&db);
}

// Proves a REPEATABLE READ transaction whose snapshot was taken before a
// rewrite committed keeps reading the old rows through a sequential scan
// and the indexes (folio's readers take no table lock, so the rewrite
// does not wait for it, and the old storage stays until it ends), is
// refused a write (40001: it would write the old storage), and that the
// old storage comes back once it ended.
#[test]
fn an_older_snapshot_reads_the_old_storage_until_it_ends() {
    let (_dir, _, db) = common::fresh();
    let mut a = Session::new(db.clone());
    let mut b = Session::new(db.clone());
    setup(&mut a);
    ok(&mut b, "begin isolation level repeatable read");
    let before = contents(&mut b);
    ok(&mut a, "delete from t where id > 500");
    ok(&mut a, "vacuum full t");
    ok(&mut a, "cluster t using t_v");
    let after = contents(&mut a);
    assert_ne!(after, before);
    assert_eq!(contents(&mut b), before);
    assert!(db.catalog().pending_drops().unwrap() > 0);
    assert_eq!(
        fails(&mut b, "insert into t values (2001, 'x')").code,
        "40001"
    );
    ok(&mut b, "rollback");
    assert_eq!(contents(&mut b), after);
    db.catalog().reclaim(db.txns()).unwrap();
    assert_eq!(db.catalog().pending_drops().unwrap(), 0);
    ok(&mut b, "insert into t values (2001, 'v3')");
    assert_eq!(
        rows(&mut a, "select count(*) from t where v = 'v3'"),
        rows(&mut b, "select count(*) from t where v = 'v3'")
    );
    verified(&db);
}

// Proves a rewrite is in the catalog and on disk: after a clean reopen
// the rewritten table reads the same through its heap and indexes, and
// its clustered index is remembered.
#[test]
fn a_rewritten_table_survives_a_reopen() {
    let (_dir, path, db) = common::fresh();
    let mut s = Session::new(db.clone());
    setup(&mut s);
    let before = contents(&mut s);
    ok(&mut s, "vacuum full t");
    ok(&mut s, "cluster t using t_v");
    drop(s);
    let db = common::reopen(db, &path);
    let mut s = Session::new(db.clone());
    assert_eq!(contents(&mut s), before);
    ok(&mut s, "cluster t");
    assert_eq!(contents(&mut s), before);
    verified(&db);
}

// Proves a crash keeps a committed rewrite and forgets a running one:
// the committed VACUUM FULL's table reads whole, the CLUSTER that was
// running in a block left the table as before it, and the storage that
// CLUSTER made comes back to the free list.
#[test]
fn a_crash_keeps_the_committed_rewrite_and_not_the_running_one() {
    let dir = SimDir::new(SimConfig::seeded(35));
    let db = Arc::new(Database::create_in(Storage::single(dir.clone()), small()).unwrap());
    let mut s = Session::new(db.clone());
    setup(&mut s);
    ok(&mut s, "vacuum full t");
    let committed = contents(&mut s);
    ok(&mut s, "begin");
    ok(&mut s, "delete from t where id < 500");
    ok(&mut s, "cluster t using t_v");
    // The process dies with the CLUSTER running.
    let after = dir.crash();
    std::mem::forget(s);
    let db = Arc::new(Database::open_in(Storage::single(after), small()).unwrap());
    let mut s = Session::new(db.clone());
    assert_eq!(contents(&mut s), committed);
    assert_eq!(
        rows(
            &mut s,
            "select count(*) from pg_index where indrelid = 't'::regclass and indisclustered"
        ),
        ["0"]
    );
    let reclaimed = db.catalog().reclaim(db.txns()).unwrap();
    assert_eq!(reclaimed.relations_freed, 3, "{reclaimed:?}");
    verified(&db);
    ok(&mut s, "cluster t using t_pkey");
    assert_eq!(contents(&mut s), committed);
    verified(&db);
}

// Proves TRUNCATE (new empty storage, `Refill::Empty`) empties the table
// and its indexes for later snapshots, while a REPEATABLE READ
// transaction that began before it committed still reads every row
// (folio's TRUNCATE stays MVCC-safe: PostgreSQL's would show it an empty
// table); that the table's out-of-line values go with its rows; and that
// the old storage comes back once the older transaction ended.
#[test]
fn truncate_gives_new_storage_and_older_snapshots_keep_the_rows() {
    let (_dir, _, db) = common::fresh();
    let mut a = Session::new(db.clone());
    let mut b = Session::new(db.clone());
    setup(&mut a);
    ok(&mut a, "create table d (id int, doc text)");
    ok(&mut a, "insert into d values (1, repeat('x', 100000))");
    ok(&mut b, "begin isolation level repeatable read");
    let before = contents(&mut b);
    assert!(toast_chunks(&db) > 0);
    assert_eq!(rows(&mut b, "select length(doc) from d"), ["100000"]);
    ok(&mut a, "truncate t, d");
    assert_eq!(toast_chunks(&db), 0);
    assert_eq!(contents(&mut a), ["0 NULL", "0"]);
    assert_eq!(contents(&mut b), before);
    assert_eq!(rows(&mut b, "select length(doc) from d"), ["100000"]);
    ok(&mut b, "commit");
    db.catalog().reclaim(db.txns()).unwrap();
    assert_eq!(db.catalog().pending_drops().unwrap(), 0);
    ok(&mut a, "insert into t values (1, 'v3')");
    assert_eq!(contents(&mut a), ["1 1", "0", "1"]);
    verified(&db);
}
