//! Schemas across restarts and sessions (folio-catalog README "Schemas"):
//! a schema and the relations made in it are catalog rows like any, so
//! they survive closing and reopening the database; a rolled-back CREATE
//! SCHEMA leaves nothing; a kept plan follows the session's search_path.

mod common;

use common::{fails, ok, reopen, rows};
use folio_sql::Session;

// Proves schemas, qualified tables (with their index, serial sequence,
// view) and a table of the same name in public survive a reopen, with
// the same rows and namespaces, and that a schema rolled back before the
// restart does not come back; then that DROP SCHEMA ... CASCADE after
// the restart finds everything that was in it.
#[test]
fn schemas_and_their_relations_survive_a_reopen() {
    let (_dir, path, db) = common::fresh();
    let mut s = Session::new(db.clone());
    ok(&mut s, "create schema app");
    ok(
        &mut s,
        "create table app.users (id serial primary key, name text)",
    );
    ok(&mut s, "create index users_name on app.users (name)");
    ok(
        &mut s,
        "create view app.names as select name from app.users",
    );
    ok(&mut s, "create table users (x int)");
    ok(&mut s, "insert into app.users (name) values ('a'), ('b')");
    ok(&mut s, "insert into users values (7)");
    ok(&mut s, "begin");
    ok(&mut s, "create schema gone");
    ok(&mut s, "create table gone.t (a int)");
    ok(&mut s, "rollback");
    drop(s);

    let db = reopen(db, &path);
    let mut s = Session::new(db.clone());
    assert_eq!(
        rows(&mut s, "select nspname from pg_namespace order by 1"),
        ["app", "pg_catalog", "public"]
    );
    assert_eq!(
        rows(&mut s, "select id, name from app.users order by id"),
        ["1 a", "2 b"]
    );
    assert_eq!(rows(&mut s, "select * from users"), ["7"]);
    ok(&mut s, "insert into app.users (name) values ('c')");
    ok(&mut s, "set search_path = app, public");
    assert_eq!(
        rows(&mut s, "select name from users order by id"),
        ["a", "b", "c"]
    );
    assert_eq!(
        rows(&mut s, "select * from names order by 1"),
        ["a", "b", "c"]
    );
    assert_eq!(
        rows(
            &mut s,
            "select relname from pg_class where relnamespace = 'app'::regnamespace order by 1"
        ),
        ["names", "users", "users_id_seq", "users_name", "users_pkey"]
    );
    assert_eq!(fails(&mut s, "select * from gone.t").code, "42P01");
    assert_eq!(fails(&mut s, "create table gone.t (a int)").code, "3F000");
    ok(&mut s, "drop schema app cascade");
    assert_eq!(
        rows(
            &mut s,
            "select count(*) from pg_class where relname like 'users%'"
        ),
        ["1"]
    );
    drop(s);

    let db = reopen(db, &path);
    let mut s = Session::new(db);
    assert_eq!(
        rows(&mut s, "select nspname from pg_namespace order by 1"),
        ["pg_catalog", "public"]
    );
    assert_eq!(rows(&mut s, "select * from users"), ["7"]);
}

// Proves a prepared statement's kept plan is made again when the
// session's search_path changes (names resolve at plan time), and that a
// second session, whose path is its own, is not affected.
#[test]
fn a_kept_plan_follows_the_search_path() {
    let (_dir, _, db) = common::fresh();
    let mut s = Session::new(db.clone());
    ok(&mut s, "create schema app");
    ok(&mut s, "create table t (v text)");
    ok(&mut s, "create table app.t (v text)");
    ok(&mut s, "insert into t values ('public')");
    ok(&mut s, "insert into app.t values ('app')");
    ok(&mut s, "prepare p as select v from t");
    assert_eq!(rows(&mut s, "execute p"), ["public"]);
    ok(&mut s, "set search_path = app, public");
    assert_eq!(rows(&mut s, "execute p"), ["app"]);
    let mut other = Session::new(db);
    assert_eq!(rows(&mut other, "select v from t"), ["public"]);
    ok(&mut s, "begin");
    ok(&mut s, "set local search_path = public");
    assert_eq!(rows(&mut s, "execute p"), ["public"]);
    ok(&mut s, "commit");
    assert_eq!(rows(&mut s, "execute p"), ["app"]);
    ok(&mut s, "reset search_path");
    assert_eq!(rows(&mut s, "execute p"), ["public"]);
}
