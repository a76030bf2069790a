//! Row triggers (`triggers.rs`) across a reopen: what the slt file
//! cannot show. Expected values are PostgreSQL 15's.

use folio_db::{Database, Options};
use folio_sql::Session;
use std::sync::Arc;

mod common;
use common::{fails, ok, rows};

// Proves a trigger is in the catalog: after closing and reopening the
// database it still fires with its arguments, is listed in pg_trigger,
// and a dropped one no longer fires.
#[test]
fn triggers_survive_a_reopen() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("db");
    let db = Arc::new(Database::create(&path, Options::default()).unwrap());
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
