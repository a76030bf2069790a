//! The DETAIL `Failing row contains (...)` of a NOT NULL or CHECK
//! violation shows a role only what it may read (`failing_row.rs`), as
//! PostgreSQL 15's does (the expected texts are PostgreSQL's), and an
//! UPDATE of a partitioned table asks the table's privileges alone.

use folio_sql::Session;

mod common;
use common::{fails, ok};

/// The DETAIL of the error `sql` raises in `s`.
fn detail(s: &mut Session, sql: &str) -> Option<String> {
    fails(s, sql).detail
}

// Proves a role without SELECT on the table sees the columns it may
// SELECT or wrote, named; nothing when there are none; the whole row
// with SELECT on the table, or as a superuser.
#[test]
fn a_failing_row_shows_what_the_role_may_read() {
    let (_dir, _path, db) = common::fresh();
    let mut admin = Session::new(db.clone());
    ok(&mut admin, "create role u login");
    ok(
        &mut admin,
        "create table s (a text, b text not null check (b <> 'zz'), secret text)",
    );
    ok(
        &mut admin,
        "insert into s values ('aaa', 'bbb', 'the body')",
    );
    ok(
        &mut admin,
        "grant select (a, b), update (a, b), insert (a, b) on s to u",
    );
    let mut u = Session::new(db.clone());
    u.set_user("u").unwrap();
    assert_eq!(
        detail(&mut u, "update s set b = null").as_deref(),
        Some("Failing row contains (a, b) = (aaa, null).")
    );
    assert_eq!(
        detail(&mut u, "update s set b = 'zz'").as_deref(),
        Some("Failing row contains (a, b) = (aaa, zz).")
    );
    assert_eq!(
        detail(&mut u, "insert into s (a, b) values ('x', null)").as_deref(),
        Some("Failing row contains (a, b) = (x, null).")
    );
    ok(&mut admin, "grant update (secret) on s to u");
    ok(&mut admin, "revoke select (a, b) on s from u");
    assert_eq!(
        detail(&mut u, "update s set b = null").as_deref(),
        Some("Failing row contains (b) = (null).")
    );
    assert_eq!(
        detail(&mut u, "update s set secret = 'x', b = null").as_deref(),
        Some("Failing row contains (b, secret) = (null, x).")
    );
    ok(&mut admin, "revoke all on s from u");
    ok(&mut admin, "grant update (a) on s to u");
    ok(&mut admin, "alter table s add check (a <> 'q')");
    assert_eq!(
        detail(&mut u, "update s set a = 'q'").as_deref(),
        Some("Failing row contains (a) = (q).")
    );
    ok(&mut admin, "grant select on s to u");
    assert_eq!(
        detail(&mut u, "update s set a = 'q'").as_deref(),
        Some("Failing row contains (q, bbb, the body).")
    );
    assert_eq!(
        detail(&mut admin, "update s set b = null").as_deref(),
        Some("Failing row contains (aaa, null, the body).")
    );
    // Under row-level security, nothing.
    ok(&mut admin, "grant update (b) on s to u");
    ok(&mut admin, "alter table s enable row level security");
    ok(&mut admin, "create policy p on s using (true)");
    assert_eq!(detail(&mut u, "update s set b = null"), None);
}

// Proves an UPDATE of a partitioned table by a role with column
// privileges on it runs (PostgreSQL asks the table named alone) and its
// failing rows show the columns the role may read, never the others.
#[test]
fn a_partitioned_table_asks_its_own_privileges() {
    let (_dir, _path, db) = common::fresh();
    let mut admin = Session::new(db.clone());
    ok(&mut admin, "create role u login");
    ok(
        &mut admin,
        "create table e (a text, b text not null, c text, secret1 text, secret2 text) \
         partition by list (a)",
    );
    ok(
        &mut admin,
        "create table e_1 (secret2 text, c text, a text, b text not null, secret1 text)",
    );
    ok(
        &mut admin,
        "alter table e attach partition e_1 for values in ('aaa')",
    );
    ok(
        &mut admin,
        "create table e_2 partition of e for values in ('aaaa')",
    );
    ok(
        &mut admin,
        "grant select (a, b, c), update (a, b, c) on e to u",
    );
    ok(
        &mut admin,
        "insert into e_1 (a, b, c, secret1, secret2) values ('aaa', 'bbb', 'ccc', 'the body', 'is in the attic')",
    );
    let mut u = Session::new(db.clone());
    u.set_user("u").unwrap();
    ok(&mut u, "update e set c = 'x'");
    ok(&mut u, "update e set c = 'ccc' where a = 'aaa'");
    // (PostgreSQL prints the partitioned table's order: (a, b, c).)
    assert_eq!(
        detail(&mut u, "update e set b = null").as_deref(),
        Some("Failing row contains (c, a, b) = (ccc, aaa, null).")
    );
    assert_eq!(
        detail(&mut u, "update e set a = 'aaaa', b = null").as_deref(),
        Some("Failing row contains (a, b, c) = (aaaa, null, ccc).")
    );
    assert_eq!(fails(&mut u, "delete from e").code, "42501");
}
