//! Temporary tables across sessions (`temp_tables.rs`): each session sees
//! only its own, which shadow permanent tables of their names; they are
//! dropped when their session ends, and what a crash left is dropped when
//! the database opens again. Expected messages and SQLSTATEs are
//! PostgreSQL 15's.

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

/// The catalog names of every table the database holds.
fn catalog_tables(db: &Database) -> Vec<String> {
    let txn = db
        .begin(
            folio_db::Isolation::ReadCommitted,
            folio_db::Durability::Sync,
        )
        .unwrap();
    let names = db
        .catalog()
        .tables(&txn)
        .unwrap()
        .into_iter()
        .map(|t| t.name)
        .collect();
    txn.rollback().unwrap();
    names
}

/// The temporary relations `pg_class` lists, with their namespaces.
const TEMP_CLASSES: &str = "select c.relname, n.nspname from pg_class c \
     join pg_namespace n on n.oid = c.relnamespace \
     where c.relpersistence = 't' order by 1, 2";

// Proves a temporary table's row type is its session's alone: another
// session cannot name it (42704), the own session's temporary type
// shadows a permanent table's of the same name, and another session's
// same-named temporary table has its own type.
#[test]
fn temporary_row_types_are_their_sessions_alone() {
    let (_dir, _, db) = common::fresh();
    let mut a = Session::new(db.clone());
    let mut b = Session::new(db.clone());
    ok(&mut a, "create temp table pair (x int, y text)");
    assert_eq!(rows(&mut a, "select ('(1,a)'::pair).y"), ["a"]);
    let e = fails(&mut b, "select '(1,a)'::pair");
    assert_eq!(
        (e.code, e.message.as_str()),
        ("42704", "type \"pair\" does not exist")
    );
    ok(&mut b, "create table pair (p int, q int, r int)");
    assert_eq!(rows(&mut b, "select ('(1,2,3)'::pair).r"), ["3"]);
    // The own temporary table's type comes first, as its table does.
    assert_eq!(rows(&mut a, "select ('(1,a)'::pair).y"), ["a"]);
    ok(&mut b, "create temp table pair (z bool)");
    assert_eq!(rows(&mut b, "select ('(t)'::pair).z"), ["t"]);
    assert_eq!(rows(&mut a, "select ('(2,b)'::pair).x"), ["2"]);
}

// Proves a temporary table is its session's alone: another session does
// not see it (42P01) and makes its own of the same name; each shadows the
// permanent table of the name for its session, `pg_temp.name` and
// `public.name` choose, and `pg_class` places each in its session's
// namespace with only the own one visible.
#[test]
fn each_session_sees_only_its_own_temporary_tables() {
    let (_dir, _, db) = common::fresh();
    let mut a = Session::new(db.clone());
    let mut b = Session::new(db.clone());
    ok(&mut a, "create table t (x int primary key)");
    ok(&mut a, "insert into t values (1)");
    ok(&mut a, "create temp table t (x int primary key, y text)");
    ok(&mut a, "insert into t values (2, 'a')");
    ok(&mut a, "create temporary table only_a (z int)");
    ok(&mut a, "create temp table if not exists t (x int)");
    let notices: Vec<String> = a.take_notices().iter().map(|n| n.message.clone()).collect();
    assert_eq!(notices, ["relation \"t\" already exists, skipping"]);
    assert_eq!(rows(&mut a, "select x from t"), ["2"]);
    assert_eq!(rows(&mut a, "select x from public.t"), ["1"]);
    assert_eq!(rows(&mut a, "select x from pg_temp.t"), ["2"]);
    // The other session: the permanent table, and no `only_a`.
    assert_eq!(rows(&mut b, "select x from t"), ["1"]);
    let e = fails(&mut b, "select * from only_a");
    assert_eq!(
        (e.code, e.message.as_str()),
        ("42P01", "relation \"only_a\" does not exist")
    );
    ok(&mut b, "create temp table t (x int primary key, y text)");
    ok(&mut b, "insert into t values (3, 'b'), (2, 'b')");
    assert_eq!(
        rows(&mut b, "select x, y from t order by x"),
        ["2 b", "3 b"]
    );
    assert_eq!(rows(&mut a, "select x, y from t"), ["2 a"]);
    let e = fails(&mut b, "select * from pg_temp_1.t");
    assert_eq!(
        (e.code, e.message.as_str()),
        ("0A000", "cannot access temporary tables of other sessions")
    );
    // Each session's namespace; both in pg_class, one visible.
    assert_eq!(
        rows(&mut a, TEMP_CLASSES),
        [
            "only_a pg_temp_1",
            "t pg_temp_1",
            "t pg_temp_2",
            "t_pkey pg_temp_1",
            "t_pkey pg_temp_2"
        ]
    );
    assert_eq!(
        rows(
            &mut b,
            "select n.nspname from pg_class c join pg_namespace n on n.oid = c.relnamespace \
             where c.relname = 't' and pg_table_is_visible(c.oid)"
        ),
        ["pg_temp_2"]
    );
    // A duplicate names the constraint as PostgreSQL does.
    let e = fails(&mut a, "insert into t values (2, 'again')");
    assert_eq!(
        (e.code, e.message.as_str()),
        (
            "23505",
            "duplicate key value violates unique constraint \"t_pkey\""
        )
    );
}

// Proves a session's temporary tables, with their indexes and sequences,
// are dropped when it ends, also with a transaction open or after an error
// (as a disconnect mid-block), and that its namespace's number is given to
// the next session that needs one, empty.
#[test]
fn temporary_tables_are_dropped_when_their_session_ends() {
    let (_dir, _, db) = common::fresh();
    let mut a = Session::new(db.clone());
    ok(&mut a, "create table kept (x int)");
    ok(
        &mut a,
        "create temp table p (id serial primary key, v text)",
    );
    ok(&mut a, "create temp table c (id int references p(id))");
    ok(&mut a, "create index on p (v)");
    ok(&mut a, "insert into p (v) values ('one'), ('two')");
    ok(&mut a, "insert into c values (1)");
    ok(&mut a, "begin");
    ok(&mut a, "insert into p (v) values ('uncommitted')");
    drop(a);
    assert_eq!(catalog_tables(&db), ["kept"]);
    let mut b = Session::new(db.clone());
    assert_eq!(rows(&mut b, TEMP_CLASSES), Vec::<String>::new());
    assert_eq!(fails(&mut b, "select * from p").code, "42P01");
    // The next namespace is number 1 again, and holds nothing of `a`'s.
    ok(&mut b, "create temp table q (x int)");
    assert_eq!(rows(&mut b, TEMP_CLASSES), ["q pg_temp_1"]);
    ok(&mut b, "begin");
    let _ = fails(&mut b, "select * from missing");
    drop(b);
    assert_eq!(catalog_tables(&db), ["kept"]);
}

// Proves temporary inheritance parents are dropped after their children when their session ends, so nothing is left naming
// a dropped table and the next session may make temporary tables (before,
// the parent went first and every later CREATE TEMP TABLE failed, "the
// catalog is corrupt").
#[test]
fn temporary_parents_are_dropped_after_their_children() {
    let (_dir, _, db) = common::fresh();
    let mut a = Session::new(db.clone());
    ok(&mut a, "create temp table parent (id int, val text)");
    ok(&mut a, "create temp table child1 () inherits (parent)");
    ok(&mut a, "create temp table child2 () inherits (parent)");
    ok(&mut a, "create temp table grandchild () inherits (child1)");
    drop(a);
    assert_eq!(catalog_tables(&db), Vec::<String>::new());
    let mut b = Session::new(db.clone());
    ok(&mut b, "create temp table q (x int)");
    assert_eq!(rows(&mut b, TEMP_CLASSES), ["q pg_temp_1"]);
}

// Proves nothing of a temporary table survives a crash: a session's
// committed temporary tables, never dropped because the process died
// (its session never ended), are gone when the database opens again;
// the permanent table committed beside them stays.
#[test]
fn a_crash_leaves_no_temporary_table_after_the_reopen() {
    let dir = SimDir::new(SimConfig::seeded(17));
    let db = Arc::new(Database::create_in(Storage::single(dir.clone()), small()).unwrap());
    let mut s = Session::new(db.clone());
    ok(&mut s, "create table kept (x int primary key)");
    ok(&mut s, "insert into kept values (1)");
    ok(
        &mut s,
        "create temp table gone (x int primary key, y serial)",
    );
    ok(&mut s, "insert into gone values (1), (2)");
    ok(&mut s, "create temp table gone_too as select * from kept");
    assert_eq!(catalog_tables(&db).len(), 3);
    // The process dies: the session never ends, the database never
    // closes; the reopen sees the directory as the crash left it.
    let after = dir.crash();
    std::mem::forget(s);
    let db = Arc::new(Database::open_in(Storage::single(after), small()).unwrap());
    assert_eq!(catalog_tables(&db), ["kept"]);
    let mut s = Session::new(db.clone());
    assert_eq!(rows(&mut s, "select x from kept"), ["1"]);
    assert_eq!(fails(&mut s, "select * from gone").code, "42P01");
    ok(&mut s, "create temp table gone (x int)");
    assert_eq!(rows(&mut s, "select count(*) from gone"), ["0"]);
}

// Proves temporary views go with their session: a view of a temporary
// table and a view of that view (dropped readers first) are gone when
// the session ends, another session never saw them, and what a crash
// left is gone after the reopen, the permanent view beside them kept.
#[test]
fn temporary_views_are_dropped_with_their_session_and_after_a_crash() {
    let dir = SimDir::new(SimConfig::seeded(23));
    let db = Arc::new(Database::create_in(Storage::single(dir.clone()), small()).unwrap());
    let views = "select viewname from pg_views where schemaname not in ('pg_catalog', 'information_schema') order by 1";
    let mut a = Session::new(db.clone());
    ok(&mut a, "create table kept (x int)");
    ok(&mut a, "insert into kept values (1)");
    ok(&mut a, "create view kept_v as select x from kept");
    ok(&mut a, "create temp table t (y int)");
    ok(&mut a, "create temp view tv as select y from t");
    ok(&mut a, "create temp view tv2 as select y + 1 as z from tv");
    ok(&mut a, "create view pg_temp.kv as select x from kept");
    assert_eq!(rows(&mut a, views), ["kept_v", "kv", "tv", "tv2"]);
    let mut b = Session::new(db.clone());
    assert_eq!(fails(&mut b, "select * from tv").code, "42P01");
    drop(a);
    assert_eq!(rows(&mut b, views), ["kept_v"]);
    ok(&mut b, "create temp view tv as select 2 as y");
    assert_eq!(rows(&mut b, "select y from tv"), ["2"]);
    // The process dies with `b`'s temporary view committed.
    let after = dir.crash();
    std::mem::forget(b);
    let db = Arc::new(Database::open_in(Storage::single(after), small()).unwrap());
    let mut c = Session::new(db.clone());
    assert_eq!(rows(&mut c, views), ["kept_v"]);
    assert_eq!(rows(&mut c, "select x from kept_v"), ["1"]);
    assert_eq!(fails(&mut c, "select * from tv").code, "42P01");
}
