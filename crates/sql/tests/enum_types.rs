//! Enum types across transactions and restarts (README "Enum types"):
//! the catalog keeps a type, its labels' sort orders and their names
//! durably; stored values and index keys stay in the declared order when
//! labels are added between others.

mod common;

use common::{code, ok, rows};
use folio_sql::Session;

// Proves an enum type, labels added BEFORE/AFTER others, a renamed
// label, and rows and an index of the type survive closing and reopening
// the database, in the declared order (an index scan, a sort and
// pg_enum agree), while a rolled-back CREATE TYPE and ADD VALUE leave
// nothing; and that DROP TYPE after the restart still sees the column.
#[test]
fn enum_types_survive_restart_in_declared_order() {
    let (_dir, path, db) = common::fresh();
    let mut s = Session::new(db.clone());
    ok(&mut s, "create type mood as enum ('sad', 'ok', 'happy')");
    ok(&mut s, "create table t (id int primary key, m mood)");
    ok(&mut s, "create index t_m on t (m)");
    ok(
        &mut s,
        "insert into t values (1, 'happy'), (2, 'sad'), (3, 'ok')",
    );
    ok(&mut s, "alter type mood add value 'meh' before 'ok'");
    ok(&mut s, "alter type mood add value 'great' after 'happy'");
    ok(&mut s, "alter type mood add value 'glum' after 'sad'");
    ok(
        &mut s,
        "insert into t values (4, 'meh'), (5, 'great'), (6, 'glum')",
    );
    ok(&mut s, "alter type mood rename value 'ok' to 'fine'");
    ok(&mut s, "begin");
    ok(&mut s, "create type gone as enum ('x')");
    ok(&mut s, "alter type mood add value 'never'");
    ok(&mut s, "rollback");
    drop(s);
    let db = common::reopen(db, &path);
    let mut s = Session::new(db.clone());
    let order = ["sad", "glum", "meh", "fine", "happy", "great"];
    assert_eq!(rows(&mut s, "select m from t order by m"), order);
    // Through the index (the planner takes it for the range and order).
    assert_eq!(
        rows(&mut s, "select m from t where m >= 'sad' order by m"),
        order
    );
    assert_eq!(
        rows(
            &mut s,
            "select id from t where m > 'meh' and m < 'great' order by m"
        ),
        ["3", "1"]
    );
    assert_eq!(
        rows(
            &mut s,
            "select e.enumlabel from pg_enum e join pg_type t on t.oid = e.enumtypid \
             where t.typname = 'mood' order by e.enumsortorder"
        ),
        order
    );
    assert_eq!(
        rows(&mut s, "select enumsortorder::text from pg_enum order by 1"),
        ["1", "1.25", "1.5", "2", "3", "4"]
    );
    assert_eq!(code(&mut s, "select 'never'::mood"), "22P02");
    assert_eq!(code(&mut s, "select 'x'::gone"), "42704");
    assert_eq!(code(&mut s, "drop type mood"), "2BP01");
    ok(&mut s, "drop table t");
    ok(&mut s, "drop type mood");
    assert!(rows(&mut s, "select typname from pg_type where typtype = 'e'").is_empty());
}
