//! ALTER VIEW (`view_options.rs`, `view_renames.rs`) across a reopen:
//! what the slt files cannot show. Expected values are PostgreSQL 15's.

use folio_sql::Session;

mod common;
use common::{code, ok, rows};

// Proves ALTER VIEW's changes are kept in the catalog: after a reopen a
// renamed column, a renamed view, its new schema, its options and its
// owner are still what they were set to, and the view over it still
// reads through the new names.
#[test]
fn alter_view_survives_a_reopen() {
    let (_dir, path, db) = common::fresh();
    let mut s = Session::new(db.clone());
    ok(&mut s, "create table t (id int primary key, x int, y int)");
    ok(&mut s, "insert into t values (1, 10, 100), (2, 20, 200)");
    ok(&mut s, "create view v as select id, x, y * 2 as yy from t");
    ok(
        &mut s,
        "create view w as select v.id, yy from v where x > 15",
    );
    ok(&mut s, "alter view v rename column x to xx");
    ok(&mut s, "alter table t rename column y to why");
    ok(&mut s, "alter view v rename to v2");
    ok(&mut s, "create schema s");
    ok(&mut s, "alter view v2 set schema s");
    ok(
        &mut s,
        "alter view s.v2 set (security_barrier, check_option = local)",
    );
    ok(&mut s, "create role alice");
    ok(&mut s, "alter view s.v2 owner to alice");
    // (The view reads t with alice's privileges.)
    ok(&mut s, "grant select on t to alice");
    drop(s);
    let db = common::reopen(db, &path);
    let mut s = Session::new(db.clone());
    assert_eq!(rows(&mut s, "select * from w"), ["2 400"]);
    assert_eq!(
        rows(&mut s, "select id, xx, yy from s.v2 order by id"),
        ["1 10 200", "2 20 400"]
    );
    assert_eq!(
        rows(
            &mut s,
            "select relname, reloptions, pg_get_userbyid(relowner) from pg_class where relname = 'v2'"
        ),
        ["v2 {security_barrier=true,check_option=local} alice"]
    );
    assert_eq!(
        rows(&mut s, "select pg_get_viewdef('w'::regclass)"),
        [" SELECT v2.id,\n    v2.yy\n   FROM s.v2\n  WHERE (v2.xx > 15);"]
    );
    // The check option set by ALTER is the view's.
    assert_eq!(
        rows(
            &mut s,
            "select check_option from information_schema.views where table_name = 'v2'"
        ),
        ["LOCAL"]
    );
    // A view that is not automatically updatable takes none.
    ok(&mut s, "create view g as select count(*) from t");
    assert_eq!(
        code(&mut s, "alter view g set (check_option = local)"),
        "0A000"
    );
    ok(
        &mut s,
        "alter view s.v2 reset (check_option, security_barrier)",
    );
    drop(s);
    let db = common::reopen(db, &path);
    let mut s = Session::new(db);
    assert_eq!(
        rows(
            &mut s,
            "select reloptions is null from pg_class where relname = 'v2'"
        ),
        ["t"]
    );
}
