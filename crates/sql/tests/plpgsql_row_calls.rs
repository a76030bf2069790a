//! Calls of PL/pgSQL functions per row (`plpgsql/row_calls.rs`): what the
//! slt file cannot show (notices, a reopen). Expected values are
//! PostgreSQL 15's.

use folio_sql::Session;

mod common;
use common::{ok, rows};

fn notices(s: &mut Session) -> Vec<String> {
    s.take_notices().into_iter().map(|n| n.message).collect()
}

// Proves each per-row call's notices reach the client once per row, in
// order, and that a body calling per row sees them between its own.
#[test]
fn notices_of_per_row_calls_in_order() {
    let (_dir, _, db) = common::fresh();
    let mut s = Session::new(db);
    ok(&mut s, "create table t (id int)");
    ok(&mut s, "insert into t values (1), (2)");
    ok(
        &mut s,
        "create function say(a int) returns int language plpgsql as \
         $$ begin raise notice 'say %', a; return a; end $$",
    );
    notices(&mut s);
    assert_eq!(
        rows(&mut s, "select id, say(id) from t order by id"),
        ["1 1", "2 2"]
    );
    assert_eq!(notices(&mut s), ["say 1", "say 2"]);
    assert_eq!(
        rows(
            &mut s,
            "select say(id) from t where say(id + 10) > 0 order by id"
        ),
        ["1", "2"]
    );
    assert_eq!(notices(&mut s), ["say 11", "say 12", "say 1", "say 2"]);
    ok(
        &mut s,
        "do $$ begin raise notice 'before'; perform say(id) from t; \
         raise notice 'after'; end $$",
    );
    assert_eq!(notices(&mut s), ["before", "say 1", "say 2", "after"]);
    ok(&mut s, "update t set id = say(id) + 10");
    assert_eq!(notices(&mut s), ["say 1", "say 2"]);
}

// Proves a view and a column default that call a PL/pgSQL function keep
// calling it per row after the database is closed and reopened.
#[test]
fn views_and_defaults_calling_one_survive_a_reopen() {
    let (_dir, path, db) = common::fresh();
    let mut s = Session::new(db.clone());
    ok(&mut s, "create sequence s");
    ok(
        &mut s,
        "create function code(p text) returns text language plpgsql as \
         $$ begin return p || nextval('s'); end $$",
    );
    ok(&mut s, "create table t (id int, c text default code('c'))");
    ok(&mut s, "create view v as select id, code(c) as cc from t");
    drop(s);
    let db = common::reopen(db, &path);
    let mut s = Session::new(db.clone());
    ok(&mut s, "insert into t (id) values (1), (2)");
    ok(&mut s, "insert into t (id) select id + 10 from t");
    assert_eq!(
        rows(&mut s, "select id, c from t order by id"),
        ["1 c1", "2 c2", "11 c3", "12 c4"]
    );
    assert_eq!(
        rows(&mut s, "select id, cc from v order by id"),
        ["1 c15", "2 c26", "11 c37", "12 c48"]
    );
}
