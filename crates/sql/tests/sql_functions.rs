//! SQL functions (`sql_functions.rs`) across a reopen and across
//! sessions: what the slt file cannot show. Expected values are
//! PostgreSQL 15's.

use folio_sql::Session;

mod common;
use common::{fails, ok, rows};

// Proves a function's definition (signature, body, volatility,
// strictness) is in the catalog: after closing and reopening the database
// it is called, listed in pg_proc and dropped as before.
#[test]
fn functions_survive_a_reopen() {
    let (_dir, path, db) = common::fresh();
    let mut s = Session::new(db.clone());
    ok(&mut s, "create table t (id int, name text)");
    ok(&mut s, "insert into t values (1, 'one'), (2, 'two')");
    ok(
        &mut s,
        "create function add2(a int, b int) returns int language sql immutable strict \
         as 'select a + b'",
    );
    ok(
        &mut s,
        "create function name_of(id int) returns text language sql stable \
         as $$select name from t where t.id = name_of.id$$",
    );
    drop(s);
    let db = common::reopen(db, &path);
    let mut s = Session::new(db.clone());
    assert_eq!(
        rows(
            &mut s,
            "select add2(40, 2), add2(null, 1) is null, name_of(2)"
        ),
        ["42 t two"]
    );
    assert_eq!(
        rows(
            &mut s,
            "select proname, provolatile, proisstrict, prosrc from pg_proc \
             where prolang = 14 order by proname"
        ),
        [
            "add2 i t select a + b",
            "name_of s f select name from t where t.id = name_of.id"
        ]
    );
    ok(&mut s, "drop function add2(int, int)");
    assert_eq!(fails(&mut s, "select add2(1, 2)").code, "42883");
}

// Proves a set-returning PL/pgSQL function's result (SETOF, RETURNS
// TABLE's columns, SETOF table's) is in the catalog: after a reopen its
// calls return the same rows and columns, and CREATE OR REPLACE may not
// change the columns (42P13, PostgreSQL's message).
#[test]
fn set_returning_functions_survive_a_reopen() {
    let (_dir, path, db) = common::fresh();
    let mut s = Session::new(db.clone());
    ok(&mut s, "create table t (id int, name text)");
    ok(&mut s, "insert into t values (1, 'one'), (2, 'two')");
    ok(
        &mut s,
        "create function s(n int) returns setof int language plpgsql \
         as $$begin for i in 1..n loop return next i; end loop; end$$",
    );
    ok(
        &mut s,
        "create function tt(n int) returns table (a int, b text) language plpgsql \
         as $$begin a := n; b := 'b' || n; return next; end$$",
    );
    ok(
        &mut s,
        "create function st() returns setof t language plpgsql \
         as $$begin return query select * from t order by id; end$$",
    );
    drop(s);
    let db = common::reopen(db, &path);
    let mut s = Session::new(db.clone());
    assert_eq!(rows(&mut s, "select * from s(3)"), ["1", "2", "3"]);
    assert_eq!(rows(&mut s, "select b, a from tt(7)"), ["b7 7"]);
    assert_eq!(rows(&mut s, "select name from st() where id = 2"), ["two"]);
    assert_eq!(
        rows(
            &mut s,
            "select proname, proretset from pg_proc where proretset order by 1"
        ),
        ["s t", "st t", "tt t"]
    );
    let e = fails(
        &mut s,
        "create or replace function tt(n int) returns table (a int, c text) \
         language plpgsql as $$begin return next; end$$",
    );
    assert_eq!(e.code, "42P13");
}

// Proves a function made by one session is seen by another once
// committed, and that a session's prepared plan follows a CREATE OR
// REPLACE committed by another.
#[test]
fn other_sessions_see_committed_definitions() {
    let (_dir, _, db) = common::fresh();
    let mut a = Session::new(db.clone());
    let mut b = Session::new(db.clone());
    ok(&mut a, "begin");
    ok(
        &mut a,
        "create function f(x int) returns int language sql as 'select x * 2'",
    );
    assert_eq!(fails(&mut b, "select f(1)").code, "42883");
    ok(&mut a, "commit");
    assert_eq!(rows(&mut b, "select f(21)"), ["42"]);
    ok(&mut b, "prepare p as select f(10)");
    assert_eq!(rows(&mut b, "execute p"), ["20"]);
    ok(
        &mut a,
        "create or replace function f(x int) returns int language sql as 'select x * 3'",
    );
    assert_eq!(rows(&mut b, "execute p"), ["30"]);
}
