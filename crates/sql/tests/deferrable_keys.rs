//! Deferrable PRIMARY KEY and UNIQUE constraints between sessions
//! (README "Deferred constraints"): two transactions that write the same
//! key never both commit it, whichever order they write and commit in;
//! and the constraint's mode survives a restart. Expected messages and
//! SQLSTATEs are PostgreSQL 15's.

use folio_db::Database;
use folio_sql::Session;
use std::sync::Arc;

mod common;
use common::{fails, ok, reopen, rows, until_waiting};

fn database() -> (tempfile::TempDir, Arc<Database>) {
    let (dir, _, db) = common::fresh();
    (dir, db)
}

fn duplicate(e: &folio_sql::SqlError, constraint: &str, key: &str) {
    assert_eq!(
        (e.code, e.message.as_str(), e.detail.as_deref()),
        (
            "23505",
            format!("duplicate key value violates unique constraint \"{constraint}\"").as_str(),
            Some(format!("Key (id)=({key}) already exists.").as_str())
        )
    );
}

// Proves the second writer of a key, whose insert was taken while the
// first's transaction ran, is the one that fails: at its COMMIT if the
// first committed already, or, committing first, after waiting for the
// first to end (then it fails if the first committed, and commits if the
// first rolled back). Either way the key is committed once.
#[test]
fn the_later_writer_of_a_key_fails_at_commit() {
    let (_dir, db) = database();
    let mut a = Session::new(db.clone());
    let mut b = Session::new(db.clone());
    ok(
        &mut a,
        "create table k (id int primary key deferrable initially deferred, who text)",
    );
    // The first commits first: the second's COMMIT sees it.
    ok(&mut a, "begin");
    ok(&mut a, "insert into k values (1, 'a')");
    ok(&mut b, "begin");
    ok(&mut b, "insert into k values (1, 'b')");
    ok(&mut a, "commit");
    duplicate(&fails(&mut b, "commit"), "k_pkey", "1");
    assert_eq!(rows(&mut a, "select id, who from k"), ["1 a"]);

    // The second commits first: it waits for the first, which commits.
    ok(&mut a, "begin");
    ok(&mut a, "insert into k values (2, 'a')");
    ok(&mut b, "begin");
    ok(&mut b, "insert into k values (2, 'b')");
    let b_waits = b.interrupt();
    let committer = std::thread::spawn(move || {
        let e = fails(&mut b, "commit");
        (b, e)
    });
    until_waiting(&b_waits);
    ok(&mut a, "commit");
    let (mut b, e) = committer.join().unwrap();
    duplicate(&e, "k_pkey", "2");

    // ... and when the first rolls back, the second commits.
    ok(&mut a, "begin");
    ok(&mut a, "insert into k values (3, 'a')");
    ok(&mut b, "begin");
    ok(&mut b, "insert into k values (3, 'b')");
    let committer = std::thread::spawn(move || {
        ok(&mut b, "commit");
        b
    });
    until_waiting(&b_waits);
    ok(&mut a, "rollback");
    let mut b = committer.join().unwrap();
    assert_eq!(
        rows(&mut b, "select id, who from k order by id"),
        ["1 a", "2 a", "3 b"]
    );
}

// Proves a deferrable key checked when the statement ends (INITIALLY
// IMMEDIATE) waits there for a running writer of the key, as
// PostgreSQL's, and fails once that one commits.
#[test]
fn a_statement_waits_for_a_running_writer_of_its_key() {
    let (_dir, db) = database();
    let mut a = Session::new(db.clone());
    let mut b = Session::new(db.clone());
    ok(
        &mut a,
        "create table k (id int primary key deferrable, who text)",
    );
    ok(&mut a, "begin");
    ok(&mut a, "insert into k values (1, 'a')");
    let b_waits = b.interrupt();
    let writer = std::thread::spawn(move || {
        let e = fails(&mut b, "insert into k values (1, 'b')");
        (b, e)
    });
    until_waiting(&b_waits);
    ok(&mut a, "commit");
    let (_b, e) = writer.join().unwrap();
    duplicate(&e, "k_pkey", "1");
    assert_eq!(rows(&mut a, "select id, who from k"), ["1 a"]);
}

// Proves the mode of a deferrable key is kept across a restart: the
// catalog shows it, and it still defers.
#[test]
fn a_deferrable_key_survives_a_restart() {
    let (_dir, path, db) = common::fresh();
    let mut s = Session::new(db.clone());
    ok(
        &mut s,
        "create table k (id int primary key deferrable initially deferred, v int unique deferrable)",
    );
    drop(s);
    let db = reopen(db, &path);
    let mut s = Session::new(db);
    assert_eq!(
        rows(
            &mut s,
            "select conname, condeferrable, condeferred, pg_get_constraintdef(oid) from pg_constraint where conrelid = 'k'::regclass order by conname"
        ),
        [
            "k_pkey t t PRIMARY KEY (id) DEFERRABLE INITIALLY DEFERRED",
            "k_v_key t f UNIQUE (v) DEFERRABLE"
        ]
    );
    ok(&mut s, "begin");
    ok(&mut s, "insert into k values (1, 1), (1, 2)");
    ok(&mut s, "update k set id = 2 where v = 2");
    ok(&mut s, "commit");
    assert_eq!(
        rows(&mut s, "select id, v from k order by id"),
        ["1 1", "2 2"]
    );
}
