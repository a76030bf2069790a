//! Domains across transactions and restarts (README "Domains"): the
//! catalog keeps a domain's base type, NOT NULL, DEFAULT and CHECKs
//! durably, and a table's domain columns are enforced after reopening.

mod common;

use common::{code, ok, rows};
use folio_sql::Session;

// Proves a domain (its CHECK, NOT NULL and DEFAULT), a CHECK added by
// ALTER DOMAIN and a table's column of it survive closing and reopening
// the database and are still enforced, while a rolled-back CREATE DOMAIN
// and ADD CONSTRAINT leave nothing; and that DROP DOMAIN after the
// restart still sees the column.
#[test]
fn domains_survive_restart() {
    let (_dir, path, db) = common::fresh();
    let mut s = Session::new(db.clone());
    ok(
        &mut s,
        "create domain posint as int not null default 5 check (value > 0)",
    );
    ok(
        &mut s,
        "alter domain posint add constraint small check (value < 100)",
    );
    ok(&mut s, "create table t (id int primary key, p posint)");
    ok(&mut s, "insert into t values (1, 7)");
    ok(&mut s, "begin");
    ok(&mut s, "create domain gone as text");
    ok(
        &mut s,
        "alter domain posint add constraint never check (value <> 3)",
    );
    ok(&mut s, "rollback");
    drop(s);
    let db = common::reopen(db, &path);
    let mut s = Session::new(db.clone());
    assert_eq!(code(&mut s, "insert into t values (2, 0)"), "23514");
    assert_eq!(code(&mut s, "insert into t values (2, 100)"), "23514");
    assert_eq!(code(&mut s, "insert into t values (2, null)"), "23502");
    ok(&mut s, "insert into t (id) values (2)");
    ok(&mut s, "insert into t values (3, 3)");
    assert_eq!(rows(&mut s, "select p from t order by id"), ["7", "5", "3"]);
    assert_eq!(
        rows(
            &mut s,
            "select conname from pg_constraint where contypid = 'posint'::regtype order by 1"
        ),
        ["posint_check", "small"]
    );
    assert_eq!(code(&mut s, "select 'x'::gone"), "42704");
    assert_eq!(code(&mut s, "drop domain posint"), "2BP01");
    ok(&mut s, "drop table t");
    ok(&mut s, "drop domain posint");
}

// Proves DROP of a domain others are made over is PostgreSQL's 2BP01
// with its DETAIL (each dependent, depth first, with what it depends
// on), and that CASCADE names the same objects in its NOTICE and drops
// the domains over it and their columns.
#[test]
fn dropping_a_domain_under_others() {
    let (_dir, _path, db) = common::fresh();
    let mut s = Session::new(db);
    ok(&mut s, "create domain d1 as int not null check (value > 0)");
    ok(&mut s, "create domain d2 as d1 check (value < 100)");
    ok(&mut s, "create domain d3 as d2");
    ok(&mut s, "create table t (a d2, b d3, c int)");
    let e = common::fails(&mut s, "drop domain d1");
    assert_eq!(e.code, "2BP01");
    assert_eq!(
        e.message,
        "cannot drop type d1 because other objects depend on it"
    );
    assert_eq!(
        e.detail.as_deref(),
        Some(
            "type d2 depends on type d1\n\
             type d3 depends on type d2\n\
             column b of table t depends on type d3\n\
             column a of table t depends on type d2"
        )
    );
    ok(&mut s, "drop domain d1 cascade");
    let notices: Vec<String> = s.take_notices().iter().map(|n| n.to_string()).collect();
    assert_eq!(
        notices,
        ["NOTICE:  drop cascades to 4 other objects\n\
          DETAIL:  drop cascades to type d2\n\
          drop cascades to type d3\n\
          drop cascades to column b of table t\n\
          drop cascades to column a of table t"]
    );
    assert_eq!(
        rows(&mut s, "select count(*) from pg_type where typtype = 'd'"),
        ["0"]
    );
    assert_eq!(rows(&mut s, "select c from t"), Vec::<String>::new());
}

// Proves CREATE DOMAIN over a domain share-locks the parent, as CREATE
// TABLE does its columns' domains: a DROP DOMAIN of the parent waits for
// the creating transaction and, once that committed, sees the new domain
// depend on it (before, the DROP went on at once and left the new domain
// over a dropped parent).
#[test]
fn creating_a_domain_over_another_locks_it() {
    let (_dir, _path, db) = common::fresh();
    let mut a = Session::new(db.clone());
    let mut b = Session::new(db);
    ok(&mut a, "create domain d1 as int");
    ok(&mut b, "begin");
    ok(&mut b, "create domain d2 as d1");
    let a_waits = a.interrupt();
    let dropper = std::thread::spawn(move || {
        let e = code(&mut a, "drop domain d1");
        (a, e)
    });
    common::until_waiting(&a_waits);
    ok(&mut b, "commit");
    let (mut a, e) = dropper.join().unwrap();
    assert_eq!(e, "2BP01");
    ok(&mut a, "create table t (x d2)");
    ok(&mut a, "insert into t values (1)");
    assert_eq!(rows(&mut a, "select x from t"), ["1"]);
}
