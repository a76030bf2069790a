//! Row triggers (`triggers.rs`) across a reopen: what the slt file
//! cannot show. Expected values are PostgreSQL 15's.

use folio_sql::Session;

mod common;
use common::{fails, ok, rows};

// Proves a trigger is in the catalog: after closing and reopening the
// database it still fires with its arguments, is listed in pg_trigger,
// and a dropped one no longer fires.
#[test]
fn triggers_survive_a_reopen() {
    let (_dir, path, db) = common::fresh();
    let mut s = Session::new(db.clone());
    ok(&mut s, "create table t (id int, note text)");
    ok(
        &mut s,
        "create function stamp() returns trigger language plpgsql as \
         $$ begin new.note := tg_argv[0] || ':' || tg_op; return new; end $$",
    );
    ok(
        &mut s,
        "create trigger t_stamp before insert or update on t for each row \
         execute function stamp('kept')",
    );
    drop(s);
    let db = common::reopen(db, &path);
    let mut s = Session::new(db.clone());
    ok(&mut s, "insert into t (id) values (1)");
    assert_eq!(rows(&mut s, "select id, note from t"), ["1 kept:INSERT"]);
    assert_eq!(
        rows(&mut s, "select tgname, tgtype, tgnargs from pg_trigger"),
        ["t_stamp 23 1"]
    );
    assert_eq!(fails(&mut s, "select stamp()").code, "0A000");
    ok(&mut s, "drop trigger t_stamp on t");
    ok(&mut s, "update t set note = 'plain'");
    assert_eq!(rows(&mut s, "select note from t"), ["plain"]);
}

// Proves ALTER TABLE ... ENABLE / DISABLE TRIGGER is kept in the catalog:
// after a reopen a disabled trigger still does not fire and shows `D`,
// one enabled ALWAYS shows `A` and fires, as in PostgreSQL 15; and a
// trigger's transition table names are kept.
#[test]
fn enabled_state_survives_a_reopen() {
    let (_dir, path, db) = common::fresh();
    let mut s = Session::new(db.clone());
    ok(&mut s, "create table t (id int, note text)");
    ok(
        &mut s,
        "create function stamp() returns trigger language plpgsql as \
         $$ begin new.note := tg_name; return new; end $$",
    );
    ok(
        &mut s,
        "create trigger a before insert on t for each row execute function stamp()",
    );
    ok(
        &mut s,
        "create trigger b before insert on t for each row execute function stamp()",
    );
    ok(
        &mut s,
        "alter table t disable trigger b, enable always trigger a",
    );
    ok(
        &mut s,
        "create trigger c after update on t referencing old table as o new table as n \
         for each statement execute function stamp()",
    );
    drop(s);
    let db = common::reopen(db, &path);
    let mut s = Session::new(db.clone());
    assert_eq!(
        rows(
            &mut s,
            "select tgname, tgenabled, tgoldtable, tgnewtable from pg_trigger order by 1"
        ),
        ["a A NULL NULL", "b D NULL NULL", "c O o n"]
    );
    ok(&mut s, "insert into t (id) values (1)");
    assert_eq!(rows(&mut s, "select note from t"), ["a"]);
    ok(&mut s, "alter table t disable trigger all");
    ok(&mut s, "insert into t (id) values (2)");
    assert_eq!(rows(&mut s, "select note from t where id = 2"), ["NULL"]);
}

// Proves the SQLSTATEs of the trigger statements are PostgreSQL 15's (the
// slt files compare messages only).
#[test]
fn trigger_statement_sqlstates() {
    let (_dir, _, db) = common::fresh();
    let mut s = Session::new(db);
    ok(&mut s, "create table t (id int)");
    ok(&mut s, "create view v as select * from t");
    ok(
        &mut s,
        "create function f() returns trigger language plpgsql as $$ begin return new; end $$",
    );
    ok(
        &mut s,
        "create trigger tr after insert on t for each row execute function f()",
    );
    assert_eq!(
        fails(&mut s, "alter table t disable trigger nosuch").code,
        "42704"
    );
    assert_eq!(
        fails(&mut s, "alter table v disable trigger all").code,
        "42809"
    );
    let e = fails(&mut s, "drop function f()");
    assert_eq!(e.code, "2BP01");
    assert_eq!(
        e.detail.as_deref(),
        Some("trigger tr on table t depends on function f()")
    );
    assert_eq!(
        fails(
            &mut s,
            "create trigger x before truncate on t for each row execute function f()"
        )
        .code,
        "0A000"
    );
    assert_eq!(
        fails(
            &mut s,
            "create trigger x after insert on t for each statement when (new.id > 0) \
             execute function f()"
        )
        .code,
        "42P17"
    );
    for (sql, code) in [
        (
            "create trigger x instead of insert on v for each statement execute function f()",
            "0A000",
        ),
        (
            "create trigger x instead of insert on t for each row execute function f()",
            "42809",
        ),
        (
            "create trigger x before update on t referencing new table as n \
             for each statement execute function f()",
            "42P17",
        ),
        (
            "create trigger x after insert or update on t referencing new table as n \
             for each statement execute function f()",
            "0A000",
        ),
        (
            "create trigger x after update on t referencing new table as n new table as m \
             for each row execute function f()",
            "42P17",
        ),
    ] {
        assert_eq!(fails(&mut s, sql).code, code, "{sql}");
    }
    ok(&mut s, "drop function f() cascade");
    let notices = s.take_notices();
    assert_eq!(
        notices.iter().map(|n| n.to_string()).collect::<Vec<_>>(),
        ["NOTICE:  drop cascades to trigger tr on table t"]
    );
}

// Proves COPY FROM fires a table's INSERT triggers as PostgreSQL 15 does:
// BEFORE STATEMENT first, BEFORE ROW per row (changing it, or skipping it:
// not counted), each row written before the next one's triggers, then the
// AFTER ROW triggers in row order and AFTER STATEMENT last.
#[test]
fn copy_from_fires_insert_triggers() {
    let (_dir, _, db) = common::fresh();
    let mut s = Session::new(db);
    ok(&mut s, "create table c (id int primary key, v text)");
    ok(&mut s, "create table clog (n serial, what text)");
    ok(
        &mut s,
        "create function cb() returns trigger language plpgsql as $$ begin
           if new.id < 0 then return null; end if;
           new.v := upper(new.v) || (select count(*) from c);
           insert into clog (what) values (tg_name || ' ' || tg_level || ' ' || coalesce(new.id::text, '-'));
           return new;
         end $$",
    );
    ok(
        &mut s,
        "create function ca() returns trigger language plpgsql as $$ begin
           insert into clog (what) select tg_name || ' ' || tg_level || ' '
             || coalesce(new.id::text, '-') || ' ' || count(*) from c;
           return null;
         end $$",
    );
    for (name, what) in [
        (
            "c1",
            "before insert on c for each row execute function cb()",
        ),
        ("c2", "after insert on c for each row execute function ca()"),
        (
            "c3",
            "before insert on c for each statement execute function ca()",
        ),
        (
            "c4",
            "after insert on c for each statement execute function ca()",
        ),
    ] {
        ok(&mut s, &format!("create trigger {name} {what}"));
    }
    ok(&mut s, "copy c from stdin");
    s.copy_data(b"1\ta\n-2\tskip\n3\tc\n").unwrap();
    assert_eq!(s.copy_done().unwrap().tag(), "COPY 2");
    assert_eq!(
        rows(&mut s, "select * from c order by id"),
        ["1 A0", "3 C1"]
    );
    assert_eq!(
        rows(&mut s, "select what from clog order by n"),
        [
            "c3 STATEMENT - 0",
            "c1 ROW 1",
            "c1 ROW 3",
            "c2 ROW 1 2",
            "c2 ROW 3 2",
            "c4 STATEMENT - 2"
        ]
    );
    // A trigger's error ends the COPY: its rows are undone.
    ok(
        &mut s,
        "create or replace function cb() returns trigger language plpgsql as \
         $$ begin raise exception 'no %', new.id; end $$",
    );
    ok(&mut s, "copy c from stdin");
    let e = s
        .copy_data(b"7\tx\n")
        .and_then(|()| s.copy_done().map(|_| ()));
    assert_eq!(e.unwrap_err().message, "no 7");
    assert_eq!(rows(&mut s, "select count(*) from c"), ["2"]);
    // Disabled, they do not fire: the rows go in batches as before.
    ok(&mut s, "alter table c disable trigger user");
    ok(&mut s, "copy c from stdin");
    s.copy_data(b"8\th\n").unwrap();
    assert_eq!(s.copy_done().unwrap().tag(), "COPY 1");
    assert_eq!(rows(&mut s, "select v from c where id = 8"), ["h"]);
}

// Proves the errors for a row a statement's own BEFORE triggers changed
// carry PostgreSQL 15's SQLSTATE, message and HINT (the slt file
// `triggers_later_commands.slt` cannot show hints): 27000 for an UPDATE,
// a DELETE, a MERGE and the lock before a row's triggers, 21000 for ON
// CONFLICT DO UPDATE. (Each trigger changes the table with another event
// than its own, so it does not fire itself.)
#[test]
fn rows_changed_by_before_triggers_are_refused_with_a_hint() {
    let (_dir, _path, db) = common::fresh();
    let mut s = Session::new(db);
    ok(&mut s, "create table t (id int primary key, v int)");
    ok(&mut s, "create table src (id int)");
    ok(&mut s, "insert into src values (1)");
    ok(
        &mut s,
        "create function upd1() returns trigger language plpgsql as $$ begin \
         update t set v = v + 1 where id = 1; return null; end $$",
    );
    ok(
        &mut s,
        "create function del1() returns trigger language plpgsql as $$ begin \
         delete from t where id = 1; return null; end $$",
    );
    ok(
        &mut s,
        "create function touch_next() returns trigger language plpgsql as $$ begin \
         update t set v = v + 1 where id = old.id + 1; return old; end $$",
    );
    let after = "Consider using an AFTER trigger instead of a BEFORE trigger to propagate \
                 changes to other rows.";
    let refused = |verb: &str| {
        format!(
            "tuple to be {verb} was already modified by an operation triggered by the current command"
        )
    };
    let cases = [
        (
            "before update",
            "del1",
            "update t set v = 0",
            refused("updated"),
        ),
        ("before delete", "upd1", "delete from t", refused("deleted")),
        (
            "before update",
            "del1",
            "merge into t using src on t.id = src.id when matched then update set v = 0",
            refused("updated or deleted"),
        ),
    ];
    for (event, function, statement, message) in cases {
        ok(&mut s, "delete from t");
        ok(&mut s, "insert into t values (1, 10), (2, 20)");
        ok(
            &mut s,
            &format!(
                "create trigger bs {event} on t for each statement execute function {function}()"
            ),
        );
        let e = fails(&mut s, statement);
        assert_eq!(
            (e.code, e.message.as_str()),
            ("27000", message.as_str()),
            "{statement}"
        );
        assert_eq!(e.hint.as_deref(), Some(after), "{statement}");
        ok(&mut s, "drop trigger bs on t");
    }
    // The lock before the next row's BEFORE ROW triggers (PostgreSQL's
    // GetTupleForTrigger says "updated" for a DELETE too).
    ok(
        &mut s,
        "create trigger br before delete on t for each row execute function touch_next()",
    );
    let e = fails(&mut s, "delete from t where id in (1, 2)");
    assert_eq!(
        (e.code, e.message.as_str()),
        ("27000", refused("updated").as_str())
    );
    assert_eq!(e.hint.as_deref(), Some(after));
    ok(&mut s, "drop trigger br on t");
    // ON CONFLICT DO UPDATE meeting a row a BEFORE STATEMENT trigger
    // updated.
    ok(
        &mut s,
        "create trigger bs before insert on t for each statement execute function upd1()",
    );
    let e = fails(
        &mut s,
        "insert into t values (1, 0) on conflict (id) do update set v = excluded.v",
    );
    assert_eq!(
        (e.code, e.message.as_str()),
        (
            "21000",
            "ON CONFLICT DO UPDATE command cannot affect row a second time"
        )
    );
    assert_eq!(
        e.hint.as_deref(),
        Some(
            "Ensure that no rows proposed for insertion within the same command have \
             duplicate constrained values."
        )
    );
}
