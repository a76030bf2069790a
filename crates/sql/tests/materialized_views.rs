//! Materialized views (`matviews.rs`) across sessions, a reopen and a
//! crash: what the slt files cannot show. Expected values and SQLSTATEs
//! are PostgreSQL 15's.

use folio_db::{Database, Options, Storage};
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

/// A table `t` of three rows and, over it, `mv` (filled, with a unique
/// index) and `empty` (made `WITH NO DATA`).
fn setup(s: &mut Session) {
    ok(s, "create table t (a int primary key, b text)");
    ok(s, "insert into t values (1, 'x'), (2, 'y'), (3, 'z')");
    ok(
        s,
        "create materialized view mv as select a, b from t where a > 1",
    );
    ok(s, "create unique index mv_a on mv (a)");
    ok(
        s,
        "create materialized view empty (n) as select count(*) from t with no data",
    );
}

// Proves a materialized view's definition, rows, index, populated state
// and renames are in the catalog: after closing and reopening the
// database it reads, refuses changes and refreshes as before.
#[test]
fn materialized_views_survive_a_reopen() {
    let (_dir, path, db) = common::fresh();
    let mut s = Session::new(db.clone());
    setup(&mut s);
    ok(
        &mut s,
        "alter materialized view mv rename column b to label",
    );
    drop(s);
    let db = common::reopen(db, &path);
    let mut s = Session::new(db.clone());
    assert_eq!(rows(&mut s, "select * from mv order by a"), ["2 y", "3 z"]);
    assert_eq!(
        rows(
            &mut s,
            "select matviewname, hasindexes, ispopulated from pg_matviews order by 1"
        ),
        ["empty f f", "mv t t"]
    );
    assert_eq!(fails(&mut s, "select * from empty").code, "55000");
    assert_eq!(
        fails(&mut s, "insert into mv values (9, 'q')").code,
        "42809"
    );
    ok(&mut s, "insert into t values (4, 'w')");
    ok(&mut s, "refresh materialized view concurrently mv");
    ok(&mut s, "refresh materialized view empty");
    assert_eq!(rows(&mut s, "select n from empty"), ["4"]);
    assert_eq!(rows(&mut s, "select label from mv where a = 4"), ["w"]);
    assert_eq!(
        rows(
            &mut s,
            "select relkind from pg_class where relname in ('mv', 'empty')"
        ),
        ["m", "m"]
    );
    assert_eq!(fails(&mut s, "drop table t").code, "2BP01");
}

// Proves a refresh is one transaction's change: another session reads
// the old rows until it commits, and a rolled-back refresh (with or
// without data) leaves them.
#[test]
fn other_sessions_read_the_old_rows_until_the_refresh_commits() {
    let (_dir, _, db) = common::fresh();
    let mut a = Session::new(db.clone());
    let mut b = Session::new(db.clone());
    setup(&mut a);
    ok(&mut a, "delete from t where a = 3");
    ok(&mut a, "begin");
    ok(&mut a, "refresh materialized view mv");
    assert_eq!(rows(&mut a, "select a from mv"), ["2"]);
    assert_eq!(rows(&mut b, "select a from mv order by a"), ["2", "3"]);
    ok(&mut a, "commit");
    assert_eq!(rows(&mut b, "select a from mv"), ["2"]);
    for refresh in [
        "refresh materialized view mv with no data",
        "refresh materialized view empty",
    ] {
        ok(&mut a, "begin");
        ok(&mut a, refresh);
        ok(&mut a, "rollback");
    }
    assert_eq!(rows(&mut b, "select a from mv"), ["2"]);
    assert_eq!(fails(&mut b, "select * from empty").code, "55000");
}

// Proves a materialized view recovers as any table: after a crash the
// committed refresh's rows are there and the refresh that was running
// left nothing.
#[test]
fn a_crash_keeps_the_committed_refresh_and_not_the_running_one() {
    let dir = SimDir::new(SimConfig::seeded(29));
    let db = Arc::new(Database::create_in(Storage::single(dir.clone()), small()).unwrap());
    let mut s = Session::new(db.clone());
    setup(&mut s);
    ok(&mut s, "insert into t values (4, 'w')");
    ok(&mut s, "refresh materialized view mv");
    ok(&mut s, "refresh materialized view empty");
    ok(&mut s, "insert into t values (5, 'v')");
    ok(&mut s, "begin");
    ok(&mut s, "refresh materialized view mv");
    ok(&mut s, "refresh materialized view empty with no data");
    // The process dies with the refresh running.
    let after = dir.crash();
    std::mem::forget(s);
    let db = Arc::new(Database::open_in(Storage::single(after), small()).unwrap());
    let mut s = Session::new(db.clone());
    assert_eq!(rows(&mut s, "select a from mv order by a"), ["2", "3", "4"]);
    assert_eq!(rows(&mut s, "select n from empty"), ["4"]);
    ok(&mut s, "refresh materialized view mv");
    assert_eq!(
        rows(&mut s, "select a from mv order by a"),
        ["2", "3", "4", "5"]
    );
}
