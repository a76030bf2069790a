//! `pg_stat_database` (`stat_database.rs`): the database's transactions,
//! row counts, block counts and sessions, counted across sessions and
//! zeroed by `pg_stat_reset()`. (`tests/slt/stat_database.slt` runs the
//! same reads against PostgreSQL; the deadlock count is checked in
//! `tests/locks.rs`.)

use folio_sql::Session;

mod common;
use common::{fails, ok, rows};

const COUNTS: &str = "select xact_commit, xact_rollback, tup_inserted, tup_updated, \
                      tup_deleted, numbackends, sessions from pg_stat_database";

// Proves every SQL transaction that ended is counted once, committed or
// rolled back (a failed statement's too), with the rows its statements
// changed; a dropped table's counts stay; pg_stat_reset() starts them
// again and stamps stats_reset.
#[test]
fn transactions_and_rows_are_counted_until_a_reset() {
    let (_dir, _, db) = common::fresh();
    let mut a = Session::new(db.clone());
    let mut b = Session::new(db.clone());
    assert_eq!(
        rows(
            &mut b,
            "select stats_reset is null, datname from pg_stat_database"
        ),
        ["t postgres"]
    );
    ok(&mut b, "select pg_stat_reset()");
    ok(&mut a, "create table t (x int primary key)");
    ok(
        &mut a,
        "insert into t select g from generate_series(1, 10) g",
    );
    ok(&mut a, "begin");
    ok(&mut a, "update t set x = x + 100 where x <= 3");
    ok(&mut a, "delete from t where x = 10");
    ok(&mut a, "commit");
    ok(&mut a, "begin");
    ok(&mut a, "insert into t values (50)");
    ok(&mut a, "rollback");
    fails(&mut a, "insert into t values (4)");
    // b's reset, a's three commits, a rollback and a failure; the
    // reading statement's own transaction has not ended. The failed
    // insert counts (its row was written before the key check), as
    // PostgreSQL's.
    assert_eq!(rows(&mut b, COUNTS), ["4 2 12 3 1 2 0"]);
    ok(&mut a, "drop table t");
    drop(a);
    assert_eq!(rows(&mut b, COUNTS), ["6 2 12 3 1 1 0"]);
    assert_eq!(
        rows(
            &mut b,
            "select stats_reset is not null, blks_hit > 0, checksum_failures, \
             conflicts, session_time is null from pg_stat_database"
        ),
        ["t t 0 0 t"]
    );
    let mut c = Session::new(db.clone());
    ok(&mut c, "select pg_stat_reset()");
    // (The reset's own transaction ended after it.)
    assert_eq!(rows(&mut c, COUNTS), ["1 0 0 0 0 2 0"]);
    let _d = Session::new(db.clone());
    assert_eq!(rows(&mut c, COUNTS), ["2 0 0 0 0 3 1"]);
}
