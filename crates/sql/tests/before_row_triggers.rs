//! BEFORE ROW triggers of an UPDATE or DELETE meeting a row another
//! transaction changed (README "Triggers"): under READ COMMITTED the row
//! is locked before its triggers fire, so a row changed concurrently is
//! followed to its newest version first and its triggers fire once, on
//! the version written, or not at all when that version no longer
//! qualifies. The expected rows are PostgreSQL 15's (two psql sessions,
//! the same statements).

use folio_sql::Session;

mod common;
use common::{ok, rows, until_waiting};

/// Two sessions on a fresh database with `rt (k, v)` = (1, 1), (2, 2),
/// whose BEFORE UPDATE and BEFORE DELETE row triggers log the row they
/// fire for into `fired (event, k, v)` (`v`: the old row's).
fn sessions() -> (tempfile::TempDir, Session, Session) {
    let (dir, _, db) = common::fresh();
    let mut a = Session::new(db.clone());
    let b = Session::new(db);
    ok(&mut a, "create table rt (k int primary key, v int)");
    ok(&mut a, "insert into rt values (1, 1), (2, 2)");
    ok(&mut a, "create table fired (event text, k int, v int)");
    ok(
        &mut a,
        "create function rt_log() returns trigger language plpgsql as $$ begin \
         insert into fired values (tg_op, old.k, old.v); \
         if tg_op = 'DELETE' then return old; end if; return new; end $$",
    );
    ok(
        &mut a,
        "create trigger rt_before before update or delete on rt \
         for each row execute function rt_log()",
    );
    (dir, a, b)
}

// Proves an UPDATE waiting for row 1 fires its BEFORE trigger once for
// it, on the newest version (v = 10), not first on the version its scan
// found (v = 1) and then again.
#[test]
fn an_update_fires_before_triggers_once_on_the_newest_version() {
    let (_dir, mut a, mut b) = sessions();
    ok(&mut a, "begin");
    ok(&mut a, "update rt set v = 10 where k = 1");
    let b_waits = b.interrupt();
    let updater = std::thread::spawn(move || {
        let changed = rows(&mut b, "update rt set v = v + 1 returning k, v");
        (b, changed)
    });
    until_waiting(&b_waits);
    ok(&mut a, "commit");
    let (mut b, mut changed) = updater.join().unwrap();
    changed.sort();
    assert_eq!(changed, ["1 11", "2 3"]);
    assert_eq!(
        rows(&mut b, "select event, k, v from fired order by k, v"),
        ["UPDATE 1 1", "UPDATE 1 10", "UPDATE 2 2"]
    );
}

// Proves a DELETE whose row's newest version no longer qualifies fires
// no BEFORE trigger for it (PostgreSQL: `DELETE 1`, one trigger call),
// and one that still qualifies fires once, on the newest version.
#[test]
fn a_delete_fires_before_triggers_only_for_rows_it_deletes() {
    let (_dir, mut a, mut b) = sessions();
    ok(&mut a, "begin");
    ok(&mut a, "update rt set v = 10 where k = 1");
    let b_waits = b.interrupt();
    let deleter = std::thread::spawn(move || {
        let deleted = rows(&mut b, "delete from rt where v < 5 returning k, v");
        (b, deleted)
    });
    until_waiting(&b_waits);
    ok(&mut a, "commit");
    let (mut b, deleted) = deleter.join().unwrap();
    assert_eq!(deleted, ["2 2"]);
    assert_eq!(
        rows(&mut b, "select event, k, v from fired order by event, k"),
        ["DELETE 2 2", "UPDATE 1 1"]
    );
    ok(&mut b, "delete from fired");
    ok(&mut a, "begin");
    ok(&mut a, "update rt set v = 20 where k = 1");
    let b_waits = b.interrupt();
    let deleter = std::thread::spawn(move || {
        let deleted = rows(&mut b, "delete from rt returning k, v");
        (b, deleted)
    });
    until_waiting(&b_waits);
    ok(&mut a, "commit");
    let (mut b, deleted) = deleter.join().unwrap();
    assert_eq!(deleted, ["1 20"]);
    assert_eq!(
        rows(&mut b, "select event, k, v from fired order by event, k"),
        ["DELETE 1 20", "UPDATE 1 10"]
    );
}
