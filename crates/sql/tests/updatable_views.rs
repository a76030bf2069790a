//! Updatable views (`updatable_views.rs`) across a reopen, and the
//! SQLSTATEs, DETAILs and HINTs the slt files cannot show. Expected
//! values are PostgreSQL 15's.

use folio_sql::Session;

mod common;
use common::{fails, ok, rows};

// Proves a view's check option is kept in its catalog row: after closing
// and reopening the database it is still judged (CASCADED through the
// view below, LOCAL only its own), shown by information_schema, and a
// CREATE OR REPLACE without it clears it.
#[test]
fn check_options_survive_a_reopen() {
    let (_dir, path, db) = common::fresh();
    let mut s = Session::new(db.clone());
    ok(&mut s, "create table t (a int primary key, b int)");
    ok(&mut s, "create view low as select a, b from t where b < 10");
    ok(
        &mut s,
        "create view pos as select a, b from low where a > 0 with check option",
    );
    ok(
        &mut s,
        "create view pos_local with (check_option = local) as select a, b from low where a > 0",
    );
    drop(s);
    let db = common::reopen(db, &path);
    let mut s = Session::new(db.clone());
    ok(&mut s, "insert into pos values (1, 1)");
    let e = fails(&mut s, "insert into pos values (-1, 1)");
    assert_eq!(e.code, "44000");
    assert_eq!(e.message, "new row violates check option for view \"pos\"");
    assert_eq!(e.detail.as_deref(), Some("Failing row contains (-1, 1)."));
    let e = fails(&mut s, "insert into pos values (2, 20)");
    assert_eq!(e.message, "new row violates check option for view \"low\"");
    ok(&mut s, "insert into pos_local values (3, 30)");
    assert_eq!(fails(&mut s, "update pos_local set a = -a").code, "44000");
    assert_eq!(
        rows(
            &mut s,
            "select table_name, check_option from information_schema.views order by 1"
        ),
        ["low NONE", "pos CASCADED", "pos_local LOCAL"]
    );
    ok(
        &mut s,
        "create or replace view pos as select a, b from low where a > 0",
    );
    drop(s);
    let db = common::reopen(db, &path);
    let mut s = Session::new(db);
    ok(&mut s, "insert into pos values (-4, 4)");
    assert_eq!(
        rows(&mut s, "select a, b from t order by a"),
        ["-4 4", "1 1", "3 30"]
    );
}

// Proves a view column's default is kept in the view's catalog row with
// its check option: after a reopen an INSERT through the view still takes
// it before the base column's, a rolled-back DROP DEFAULT leaves it, and
// a committed one (then another reopen) is gone.
#[test]
fn view_defaults_survive_a_reopen() {
    let (_dir, path, db) = common::fresh();
    let mut s = Session::new(db.clone());
    ok(
        &mut s,
        "create table t (a int, b text default 'base', c int)",
    );
    ok(
        &mut s,
        "create view v as select a, b, c from t where a > 0 with check option",
    );
    ok(&mut s, "alter view v alter column b set default 'view'");
    ok(&mut s, "alter table v alter c set default 40 + 2");
    drop(s);
    let db = common::reopen(db, &path);
    let mut s = Session::new(db.clone());
    ok(&mut s, "insert into v (a) values (1)");
    assert_eq!(fails(&mut s, "insert into v (a) values (-1)").code, "44000");
    ok(&mut s, "begin");
    ok(&mut s, "alter view v alter column b drop default");
    ok(&mut s, "rollback");
    ok(&mut s, "insert into v values (2, default)");
    ok(&mut s, "alter view v alter column b drop default");
    drop(s);
    let db = common::reopen(db, &path);
    let mut s = Session::new(db);
    ok(&mut s, "insert into v (a) values (3)");
    assert_eq!(
        rows(&mut s, "select a, b, c from t order by a"),
        ["1 view 42", "2 view 42", "3 base 42"]
    );
}

// Proves COPY and TRUNCATE of a view are PostgreSQL's 42809 errors with
// its HINTs.
#[test]
fn copy_and_truncate_of_a_view() {
    let (_dir, _, db) = common::fresh();
    let mut s = Session::new(db);
    ok(&mut s, "create table t (a int)");
    ok(&mut s, "create view v as select a from t");
    let e = fails(&mut s, "copy v to stdout");
    assert_eq!(e.code, "42809");
    assert_eq!(
        e.hint.as_deref(),
        Some("Try the COPY (SELECT ...) TO variant.")
    );
    let e = fails(&mut s, "copy v from stdin");
    assert_eq!(e.code, "42809");
    assert_eq!(
        e.hint.as_deref(),
        Some("To enable copying to a view, provide an INSTEAD OF INSERT trigger.")
    );
    let e = fails(&mut s, "truncate v");
    assert_eq!(
        (e.code, e.message.as_str()),
        ("42809", "\"v\" is not a table")
    );
}

// Proves the errors of a view that is not updatable and of a read-only
// column carry PostgreSQL's SQLSTATE, DETAIL and HINT.
#[test]
fn refusals_are_postgresql_errors() {
    let (_dir, _, db) = common::fresh();
    let mut s = Session::new(db);
    ok(&mut s, "create table t (a int, b int)");
    ok(&mut s, "create view agg as select count(*) as n from t");
    ok(&mut s, "create view calc as select a, b + 1 as b1 from t");
    let e = fails(&mut s, "delete from agg");
    assert_eq!(e.code, "55000");
    assert_eq!(e.message, "cannot delete from view \"agg\"");
    assert_eq!(
        e.detail.as_deref(),
        Some("Views that return aggregate functions are not automatically updatable.")
    );
    assert_eq!(
        e.hint.as_deref(),
        Some(
            "To enable deleting from the view, provide an INSTEAD OF DELETE trigger or an unconditional ON DELETE DO INSTEAD rule."
        )
    );
    let e = fails(&mut s, "update calc set b1 = 2");
    assert_eq!(e.code, "0A000");
    assert_eq!(e.message, "cannot update column \"b1\" of view \"calc\"");
    assert_eq!(
        e.detail.as_deref(),
        Some("View columns that are not columns of their base relation are not updatable.")
    );
    let e = fails(
        &mut s,
        "create view bad as select distinct a from t with check option",
    );
    assert_eq!(e.code, "0A000");
    assert_eq!(
        e.hint.as_deref(),
        Some("Views containing DISTINCT are not automatically updatable.")
    );
}

// Proves COPY FROM into a view with an INSTEAD OF INSERT trigger runs the
// trigger per row, as PostgreSQL 15's: NULL fields, and a column not
// copied takes the view's default (results from PostgreSQL 15).
#[test]
fn copy_into_a_view_runs_its_instead_of_trigger() {
    let (_dir, _, db) = common::fresh();
    let mut s = Session::new(db);
    ok(&mut s, "create table t (id int primary key, note text)");
    ok(&mut s, "create view v as select id, note from t");
    ok(
        &mut s,
        "create function v_insert() returns trigger language plpgsql as \
         $$ begin insert into t values (new.id * 10, coalesce(new.note, 'none')); return new; end $$",
    );
    ok(
        &mut s,
        "create trigger v_ins instead of insert on v for each row execute function v_insert()",
    );
    ok(&mut s, "alter view v alter column note set default 'dflt'");
    ok(&mut s, "copy v from stdin");
    s.copy_data(b"1\ta\n2\t\\N\n").unwrap();
    assert_eq!(s.copy_done().unwrap().tag(), "COPY 2");
    ok(&mut s, "copy v (id) from stdin");
    s.copy_data(b"3\n").unwrap();
    assert_eq!(s.copy_done().unwrap().tag(), "COPY 1");
    assert_eq!(
        rows(&mut s, "select * from t order by id"),
        ["10 a", "20 none", "30 dflt"]
    );
}
