//! Roles and grants (`roles.rs`, `privileges.rs`) across a restart, and
//! their one deliberate difference from PostgreSQL: they are not undone
//! by a rolled-back block. Enforcement as another role: `slt/roles.slt`
//! (through SET ROLE) and folio-server `tests/roles.rs` (over the wire).

use folio_sql::Session;

mod common;
use common::{fails, ok, rows};

// Proves roles, their attributes and passwords, table owners and ACLs
// survive closing and opening the database, and that the session of a
// created role is refused (42501) and allowed as before the restart.
#[test]
fn roles_and_grants_survive_a_restart_and_ignore_rollback() {
    let (_dir, path, db) = common::fresh();
    {
        let mut s = Session::new(db.clone());
        ok(&mut s, "create role app login password 'pencil' createdb");
        ok(&mut s, "create role reader nologin");
        ok(&mut s, "create table t (a int)");
        ok(&mut s, "insert into t values (1)");
        ok(&mut s, "grant select on t to app");
        ok(&mut s, "grant create on schema public to app");
        // Not transactional: a rolled-back block keeps what it did.
        ok(&mut s, "begin");
        ok(&mut s, "create role ghost");
        ok(&mut s, "grant insert on t to app");
        ok(&mut s, "rollback");
        ok(&mut s, "set role app");
        ok(&mut s, "create table mine (x int)");
    }
    let db = common::reopen(db, &path);
    let mut s = Session::new(db.clone());
    assert_eq!(
        rows(
            &mut s,
            "select rolname, rolcanlogin, rolcreatedb from pg_roles \
             where rolname !~ '^pg_' order by 1"
        ),
        ["app t t", "ghost f f", "postgres t t", "reader f f"]
    );
    assert!(folio_sql::roles::password(&db, "app").unwrap().is_some());
    assert_eq!(
        rows(
            &mut s,
            "select relname, relowner::regrole, relacl from pg_class \
             where relname in ('t', 'mine') order by 1"
        ),
        [
            "mine app NULL",
            "t postgres {postgres=arwdDxt/postgres,app=ar/postgres}"
        ]
    );
    let mut app = Session::new(db.clone());
    app.set_user("app").unwrap();
    assert_eq!(rows(&mut app, "select a from t"), ["1"]);
    ok(&mut app, "insert into t values (2)");
    assert_eq!(fails(&mut app, "delete from t").code, "42501");
    assert_eq!(
        fails(&mut app, "drop table t").message,
        "must be owner of table t"
    );
    ok(&mut app, "drop table mine");
    let e = Session::new(db.clone()).set_user("reader").unwrap_err();
    assert_eq!(
        (e.code, e.message.as_str()),
        ("28000", "role \"reader\" is not permitted to log in")
    );
}

// Proves a SET ROLE in a block that rolls back (by ROLLBACK, or by an
// error in a one-statement block's message) is undone as PostgreSQL
// undoes it, and one in a committed block stays.
#[test]
fn set_role_is_undone_by_a_rolled_back_block() {
    let (_dir, _path, db) = common::fresh();
    let mut s = Session::new(db.clone());
    ok(&mut s, "create role r1");
    ok(&mut s, "create table t (a int)");
    ok(&mut s, "begin");
    ok(&mut s, "set role r1");
    assert_eq!(rows(&mut s, "select current_user"), ["r1"]);
    assert_eq!(fails(&mut s, "select * from t").code, "42501");
    ok(&mut s, "rollback");
    assert_eq!(rows(&mut s, "select current_user"), ["postgres"]);
    ok(&mut s, "begin");
    ok(&mut s, "set role r1");
    ok(&mut s, "rollback");
    assert_eq!(rows(&mut s, "select current_user"), ["postgres"]);
    assert_eq!(fails(&mut s, "set role r1; select 1/0").code, "22012");
    assert_eq!(rows(&mut s, "select current_user"), ["postgres"]);
    ok(&mut s, "begin");
    ok(&mut s, "set role r1");
    ok(&mut s, "commit");
    assert_eq!(rows(&mut s, "select current_user"), ["r1"]);
    ok(&mut s, "reset role");
    ok(&mut s, "drop role r1");
}
