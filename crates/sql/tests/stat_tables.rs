//! The cumulative statistics of tables between sessions (folio-txn
//! `stat_counts.rs`): what another session's transactions did is seen by
//! a reader once they ended — published by the reader if their session
//! has not yet — and not before; a session's counts outlive it; autovacuum
//! stamps `last_autovacuum`. (`tests/slt/stat_tables.slt` checks the
//! counts against PostgreSQL's in one session.)

use folio_db::Database;
use folio_sql::Session;
use std::sync::Arc;

mod common;
use common::{ok, rows};

fn database() -> (tempfile::TempDir, Arc<Database>) {
    let (dir, _, db) = common::fresh();
    (dir, db)
}

const COUNTS: &str = "select n_tup_ins, n_tup_del, n_live_tup, n_dead_tup, seq_scan \
                      from pg_stat_user_tables where relname = 't'";

// Proves a reader sees every transaction of another session that ended
// before its read (however recently that session published), none that
// is still running, and the counts of a session that ended.
#[test]
fn readers_see_the_transactions_that_ended() {
    let (_dir, db) = database();
    let mut a = Session::new(db.clone());
    let mut b = Session::new(db.clone());
    ok(&mut a, "create table t (x int)");
    ok(&mut a, "insert into t values (1), (2), (3)");
    // Within a second of the last: its session has not published it.
    ok(&mut a, "insert into t values (4), (5)");
    ok(&mut a, "select * from t");
    assert_eq!(rows(&mut b, COUNTS), ["5 0 5 0 1"]);

    // A running transaction's row changes wait for its end; its scans
    // count at once.
    ok(&mut a, "begin");
    ok(&mut a, "delete from t where x = 1");
    assert_eq!(rows(&mut b, COUNTS), ["5 0 5 0 2"]);
    ok(&mut a, "rollback");
    assert_eq!(rows(&mut b, COUNTS), ["5 1 5 0 2"]);

    ok(&mut a, "begin");
    ok(&mut a, "insert into t values (6)");
    ok(&mut a, "commit");
    drop(a);
    assert_eq!(rows(&mut b, COUNTS), ["6 1 6 0 2"]);
}

// Proves autovacuum's pass stamps last_autovacuum and its count (not
// VACUUM's) and sets the live and dead rows from what it found.
#[test]
fn autovacuum_is_counted_as_autovacuum() {
    let (_dir, db) = database();
    let mut s = Session::new(db.clone());
    ok(&mut s, "create table t (x int)");
    ok(
        &mut s,
        "insert into t select g from generate_series(1, 200) g",
    );
    ok(&mut s, "delete from t where x <= 100");
    let config = folio_catalog::AutovacuumConfig::default();
    let pass = folio_catalog::autovacuum_pass(db.catalog(), db.txns(), &config).unwrap();
    assert!(pass.vacuumed >= 1, "{pass:?}");
    assert_eq!(
        rows(
            &mut s,
            "select n_live_tup, n_dead_tup, last_vacuum, last_autovacuum is not null, \
             vacuum_count, autovacuum_count, n_ins_since_vacuum \
             from pg_stat_user_tables where relname = 't'"
        ),
        ["100 0 NULL t 0 1 0"]
    );
}
