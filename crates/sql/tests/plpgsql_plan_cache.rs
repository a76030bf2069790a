//! The plan cache of PL/pgSQL bodies (`plpgsql/plan_cache.rs`): what the
//! slt file cannot show (plans kept across calls, another session's DDL
//! and CREATE OR REPLACE reaching a session that kept the plans).
//! Expected values are PostgreSQL 15's.

use folio_db::Database;
use folio_sql::Session;
use std::sync::Arc;

mod common;
use common::{code, ok, rows};

fn database() -> (tempfile::TempDir, Arc<Database>) {
    let (dir, _, db) = common::fresh();
    (dir, db)
}

// Proves a function's statements are planned once for many calls (per
// row, and over several statements), and again after DDL of the session.
#[test]
fn statements_are_planned_once_per_session() {
    let (_dir, db) = database();
    let mut s = Session::new(db);
    ok(&mut s, "create table t (id int primary key, v int)");
    ok(
        &mut s,
        "insert into t select i, i from generate_series(1, 50) i",
    );
    ok(
        &mut s,
        "create function f(x int) returns int language plpgsql as $$ \
         declare n int; begin select v into n from t where id = x; \
         if n > 25 then return n + 1; end if; return n; end $$",
    );
    let before = s.plpgsql_plans_made();
    assert_eq!(
        rows(&mut s, "select sum(f(i)) from generate_series(1, 50) i"),
        ["1300"]
    );
    assert_eq!(rows(&mut s, "select f(30)"), ["31"]);
    // The query, the IF condition and the two RETURN expressions.
    assert_eq!(s.plpgsql_plans_made() - before, 4);
    ok(&mut s, "create index t_v on t (v)");
    assert_eq!(rows(&mut s, "select f(3)"), ["3"]);
    // DDL of the session: each statement f(3) runs is planned again (the
    // query, the IF condition, `return n`).
    assert_eq!(s.plpgsql_plans_made() - before, 7);
}

// Proves a session that kept a function's plans runs the new body after
// another session's CREATE OR REPLACE, and plans again after another
// session's ALTER TABLE changed a table the plan reads.
#[test]
fn another_sessions_ddl_reaches_kept_plans() {
    let (_dir, db) = database();
    let mut a = Session::new(db.clone());
    let mut b = Session::new(db);
    ok(&mut a, "create table t (id int, v int)");
    ok(&mut a, "insert into t values (1, 10), (2, 20)");
    ok(
        &mut a,
        "create function f(x int) returns int language plpgsql as $$ \
         declare n int; begin select v into n from t where id = x; return n; end $$",
    );
    ok(
        &mut a,
        "create function g() returns int language plpgsql as $$ \
         declare r record; begin select * into r from t where id = 1; return r.v; end $$",
    );
    assert_eq!(rows(&mut a, "select f(1), f(2), g()"), ["10 20 10"]);
    ok(
        &mut b,
        "create or replace function f(x int) returns int language plpgsql as $$ \
         begin return x * 100; end $$",
    );
    assert_eq!(rows(&mut a, "select f(1), f(2)"), ["100 200"]);
    ok(&mut b, "alter table t rename column v to v0");
    ok(&mut b, "alter table t add column v int default 42");
    assert_eq!(rows(&mut a, "select g()"), ["42"]);
    ok(&mut b, "drop function f(int)");
    assert_eq!(code(&mut a, "select f(1)"), "42883");
}
