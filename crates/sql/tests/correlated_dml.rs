//! Correlated subqueries in UPDATE and DELETE between sessions (README
//! "Subqueries in UPDATE and DELETE"): under READ COMMITTED, a target row
//! another transaction changed while the statement waited is re-checked
//! on its newest version, the subqueries run again with that version's
//! values but still reading the statement's snapshot of the other
//! tables, as PostgreSQL's EvalPlanQual. The expected rows are
//! PostgreSQL 15's (two psql sessions, the same statements).

use folio_sql::Session;

mod common;
use common::{ok, rows, until_waiting};

/// Two sessions on a fresh database with `ct (id, x)` = (1, 10), (2,
/// 20), (3, 30) and `cu (id, y)` = (1, 100), (2, 200), (3, 300).
fn sessions() -> (tempfile::TempDir, Session, Session) {
    let (dir, _, db) = common::fresh();
    let mut a = Session::new(db.clone());
    let b = Session::new(db);
    ok(&mut a, "create table ct (id int primary key, x int)");
    ok(&mut a, "create table cu (id int, y int)");
    ok(&mut a, "insert into ct values (1, 10), (2, 20), (3, 30)");
    ok(&mut a, "insert into cu values (1, 100), (2, 200), (3, 300)");
    (dir, a, b)
}

// Proves the UPDATE waiting for rows 1 and 2 re-checks their newest
// versions: row 1 (x now 150) no longer passes the EXISTS, which reads
// the statement's snapshot of `cu` (y = 100, not the 1000 the other
// transaction committed); row 2 (x now 50) passes and gets 50 + 200.
#[test]
fn an_update_rechecks_the_newest_version_with_its_snapshot() {
    let (_dir, mut a, mut b) = sessions();
    ok(&mut a, "begin");
    ok(&mut a, "update ct set x = 150 where id = 1");
    ok(&mut a, "update ct set x = 50 where id = 2");
    ok(&mut a, "update cu set y = 1000");
    let b_waits = b.interrupt();
    let updater = std::thread::spawn(move || {
        let changed = rows(
            &mut b,
            "update ct set x = x + (select y from cu where cu.id = ct.id) \
             where exists (select 1 from cu where cu.id = ct.id and cu.y > ct.x) \
             returning id, x",
        );
        (b, changed)
    });
    until_waiting(&b_waits);
    ok(&mut a, "commit");
    let (mut b, changed) = updater.join().unwrap();
    assert_eq!(changed, ["2 250", "3 330"]);
    assert_eq!(
        rows(&mut b, "select id, x from ct order by id"),
        ["1 150", "2 250", "3 330"]
    );
}

// Proves the same for DELETE: row 1, changed to x = 150 while the DELETE
// waited, is re-checked and kept; row 2's subquery reads the statement's
// snapshot of `cu` (y = 200), not the 0 committed since.
#[test]
fn a_delete_rechecks_the_newest_version_with_its_snapshot() {
    let (_dir, mut a, mut b) = sessions();
    ok(&mut a, "begin");
    ok(&mut a, "update ct set x = 150 where id = 1");
    ok(&mut a, "update cu set y = 0 where id = 2");
    let b_waits = b.interrupt();
    let deleter = std::thread::spawn(move || {
        let deleted = rows(
            &mut b,
            "delete from ct where exists \
             (select 1 from cu where cu.id = ct.id and cu.y > ct.x) returning id, x",
        );
        (b, deleted)
    });
    until_waiting(&b_waits);
    ok(&mut a, "commit");
    let (mut b, deleted) = deleter.join().unwrap();
    assert_eq!(deleted, ["2 20", "3 30"]);
    assert_eq!(rows(&mut b, "select id, x from ct order by id"), ["1 150"]);
}

// Proves the statement's own writes stay hidden from its subqueries in
// an open transaction block, while what earlier statements of the block
// wrote is seen, and that the block goes on normally after (a later
// statement sees the rows written).
#[test]
fn earlier_statements_are_seen_the_statements_own_writes_are_not() {
    let (_dir, mut a, _b) = sessions();
    ok(&mut a, "begin");
    ok(&mut a, "update ct set x = 100 where id = 3");
    ok(&mut a, "savepoint s");
    ok(
        &mut a,
        "update ct set x = (select count(*) from ct c2 where c2.x < ct.x)",
    );
    assert_eq!(
        rows(&mut a, "select id, x from ct order by id"),
        ["1 0", "2 1", "3 2"]
    );
    ok(&mut a, "rollback to savepoint s");
    assert_eq!(
        rows(&mut a, "select id, x from ct order by id"),
        ["1 10", "2 20", "3 100"]
    );
    ok(&mut a, "commit");
}
