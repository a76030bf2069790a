//! What everyday DDL keeps in the catalog survives closing and reopening
//! the database, and COPY meets generated columns as PostgreSQL 15's does
//! (the slt files cannot send COPY data). Expected values and SQLSTATEs
//! are PostgreSQL 15's.

use folio_sql::Session;

mod common;
use common::{fails, ok, rows};

// Proves a generated column's expression is stored in the catalog: after
// a reopen, new and updated rows still get its value and the catalog
// views still show it; a dropped expression stays dropped. (PostgreSQL
// prints the cast's operand in parentheses, `((a)::text || '!'::text)`:
// folio's deparse does not.)
#[test]
fn generated_columns_survive_a_reopen() {
    let (_dir, path, db) = common::fresh();
    let mut s = Session::new(db.clone());
    ok(
        &mut s,
        "create table g (a int, b int generated always as (a * 2) stored, c int)",
    );
    ok(&mut s, "insert into g (a) values (1)");
    ok(
        &mut s,
        "alter table g add column d text generated always as (a::text || '!') stored",
    );
    ok(
        &mut s,
        "alter table g add column e int generated always as (a + 1) stored",
    );
    ok(&mut s, "alter table g alter column e drop expression");
    drop(s);
    let db = common::reopen(db, &path);
    let mut s = Session::new(db.clone());
    ok(&mut s, "insert into g (a, e) values (5, 0)");
    ok(&mut s, "update g set a = 3 where a = 1");
    assert_eq!(
        rows(&mut s, "select * from g order by a"),
        ["3 6 NULL 3! 2", "5 10 NULL 5! 0"]
    );
    assert_eq!(fails(&mut s, "update g set b = 1").code, "428C9");
    assert_eq!(
        rows(
            &mut s,
            "select attname, attgenerated from pg_attribute \
             where attrelid = 'g'::regclass and attnum > 0 order by attnum"
        ),
        ["a ", "b s", "c ", "d s", "e "]
    );
    assert_eq!(
        rows(
            &mut s,
            "select generation_expression from information_schema.columns \
             where table_name = 'g' and is_generated = 'ALWAYS' order by ordinal_position"
        ),
        ["(a * 2)", "(a::text || '!'::text)"]
    );
}

// Proves COPY FROM leaves generated columns out when it names no columns
// and computes them, refuses to name one (42P10), and COPY TO leaves them
// out too, as PostgreSQL 15's COPY.
#[test]
fn copy_computes_generated_columns() {
    let (_dir, _, db) = common::fresh();
    let mut s = Session::new(db);
    ok(
        &mut s,
        "create table g (a int, b int generated always as (a * 2) stored, c text)",
    );
    ok(&mut s, "copy g from stdin");
    s.copy_data(b"1\tx\n2\t\\N\n").unwrap();
    assert_eq!(s.copy_done().unwrap().tag(), "COPY 2");
    ok(&mut s, "copy g (a) from stdin");
    s.copy_data(b"3\n").unwrap();
    assert_eq!(s.copy_done().unwrap().tag(), "COPY 1");
    assert_eq!(
        rows(&mut s, "select * from g order by a"),
        ["1 2 x", "2 4 NULL", "3 6 NULL"]
    );
    let e = fails(&mut s, "copy g (a, b) from stdin");
    assert_eq!(
        (e.code, e.message.as_str()),
        ("42P10", "column \"b\" is a generated column")
    );
    assert_eq!(fails(&mut s, "copy g (b) to stdout").code, "42P10");
}

// Proves comments are kept in the catalog: after a reopen every kind is
// still read by obj_description and col_description; a REINDEX keeps an
// index's; a dropped column's and a dropped table's are gone.
#[test]
fn comments_survive_a_reopen() {
    let (_dir, path, db) = common::fresh();
    let mut s = Session::new(db.clone());
    ok(
        &mut s,
        "create table t (a int primary key, b int constraint b_pos check (b > 0), c int)",
    );
    ok(&mut s, "create index t_b on t (b)");
    ok(&mut s, "create view v as select a from t");
    ok(&mut s, "create sequence s");
    for sql in [
        "comment on table t is 'table'",
        "comment on column t.b is 'column b'",
        "comment on column t.c is 'column c'",
        "comment on index t_b is 'index'",
        "comment on view v is 'view'",
        "comment on sequence s is 'sequence'",
        "comment on constraint b_pos on t is 'check'",
        "comment on constraint t_pkey on t is 'key'",
    ] {
        ok(&mut s, sql);
    }
    ok(&mut s, "reindex table t");
    ok(&mut s, "alter table t drop column c");
    drop(s);
    let db = common::reopen(db, &path);
    let mut s = Session::new(db.clone());
    assert_eq!(
        rows(
            &mut s,
            "select obj_description('t'::regclass, 'pg_class'), col_description('t'::regclass, 2), \
             obj_description('t_b'::regclass, 'pg_class'), obj_description('v'::regclass, 'pg_class'), \
             obj_description('s'::regclass, 'pg_class')"
        ),
        ["table column b index view sequence"]
    );
    assert_eq!(
        rows(
            &mut s,
            "select conname, obj_description(oid, 'pg_constraint') from pg_constraint \
             where conrelid = 't'::regclass order by conname"
        ),
        ["b_pos check", "t_pkey key"]
    );
    // (Besides initdb's comments on built-in objects, oids below 16384.)
    let user_comments = "select count(*) from pg_description where objoid >= 16384";
    assert_eq!(rows(&mut s, user_comments), ["7"]);
    ok(&mut s, "drop view v");
    ok(&mut s, "drop table t");
    assert_eq!(rows(&mut s, user_comments), ["1"]);
}

// Proves a foreign key's DEFERRABLE / INITIALLY DEFERRED is kept in the
// catalog: after a reopen pg_constraint still shows it (a NOT VALID one
// too) and the key still waits for COMMIT; a pipeline's Sync commits, so
// it runs the checks there (23503, nothing kept), as PostgreSQL.
#[test]
fn deferrable_keys_survive_a_reopen() {
    let (_dir, path, db) = common::fresh();
    let mut s = Session::new(db.clone());
    ok(&mut s, "create table p (id int primary key)");
    ok(&mut s, "create table c (a int, b int, d int)");
    ok(
        &mut s,
        "alter table c add constraint ca foreign key (a) references p deferrable initially deferred",
    );
    ok(
        &mut s,
        "alter table c add constraint cb foreign key (b) references p deferrable not valid",
    );
    ok(
        &mut s,
        "alter table c add constraint cd foreign key (d) references p",
    );
    drop(s);
    let db = common::reopen(db, &path);
    let mut s = Session::new(db.clone());
    assert_eq!(
        rows(
            &mut s,
            "select conname, condeferrable, condeferred, convalidated from pg_constraint \
             where conrelid = 'c'::regclass order by 1"
        ),
        ["ca t t t", "cb t f f", "cd f f t"]
    );
    ok(&mut s, "begin");
    ok(&mut s, "insert into c values (1, null, null)");
    ok(&mut s, "insert into p values (1)");
    ok(&mut s, "commit");
    assert_eq!(
        fails(&mut s, "insert into c values (2, null, null)").code,
        "23503"
    );
    // The extended protocol: the insert runs in the pipeline's implicit
    // block, whose Sync is its COMMIT.
    s.parse("", "insert into c values (3, null, null)").unwrap();
    s.begin_pipeline("").unwrap();
    s.execute_prepared("", &[]).unwrap();
    assert_eq!(s.end_pipeline().unwrap_err().code, "23503");
    assert_eq!(rows(&mut s, "select a from c order by a"), ["1"]);
}

// Proves COPY in a block defers a deferred key's checks to COMMIT as any
// statement does (a child copied before its parent commits; a dangling
// one fails the COMMIT with 23503), as PostgreSQL 15's.
#[test]
fn copy_in_a_block_defers_deferred_keys() {
    let (_dir, _, db) = common::fresh();
    let mut s = Session::new(db);
    ok(&mut s, "create table p (id int primary key)");
    ok(
        &mut s,
        "create table c (id int, pid int references p deferrable initially deferred)",
    );
    ok(&mut s, "begin");
    ok(&mut s, "copy c from stdin");
    s.copy_data(b"1\t5\n").unwrap();
    assert_eq!(s.copy_done().unwrap().tag(), "COPY 1");
    ok(&mut s, "insert into p values (5)");
    ok(&mut s, "commit");
    ok(&mut s, "begin");
    ok(&mut s, "copy c from stdin");
    s.copy_data(b"2\t6\n").unwrap();
    assert_eq!(s.copy_done().unwrap().tag(), "COPY 1");
    assert_eq!(fails(&mut s, "commit").code, "23503");
    assert_eq!(rows(&mut s, "select id from c"), ["1"]);
}

// Proves DROP SEQUENCE's dependencies on the column defaults naming it
// are PostgreSQL's: 2BP01 with each default in the DETAIL and the CASCADE
// hint, an identity column's sequence refused with its own hint even with
// CASCADE, and CASCADE dropping the defaults (named in its NOTICE); and
// that ALTER SEQUENCE ... OWNED BY survives a reopen (the sequence goes
// with the table dropped after it).
#[test]
fn sequence_dependencies_and_owners() {
    let (_dir, path, db) = common::fresh();
    let mut s = Session::new(db.clone());
    ok(&mut s, "create sequence s");
    ok(
        &mut s,
        "create table t (a int default nextval('s'), b int default nextval('public.s'::regclass))",
    );
    ok(
        &mut s,
        "create table v (id int generated always as identity)",
    );
    let e = fails(&mut s, "drop sequence s");
    assert_eq!(
        (
            e.code,
            e.message.as_str(),
            e.detail.as_deref(),
            e.hint.as_deref()
        ),
        (
            "2BP01",
            "cannot drop sequence s because other objects depend on it",
            Some(
                "default value for column a of table t depends on sequence s\n\
                 default value for column b of table t depends on sequence s"
            ),
            Some("Use DROP ... CASCADE to drop the dependent objects too."),
        )
    );
    let e = fails(&mut s, "drop sequence v_id_seq cascade");
    assert_eq!(
        (e.code, e.message.as_str(), e.hint.as_deref()),
        (
            "2BP01",
            "cannot drop sequence v_id_seq because column id of table v requires it",
            Some("You can drop column id of table v instead."),
        )
    );
    ok(&mut s, "drop sequence s cascade");
    let notices: Vec<String> = s.take_notices().iter().map(|n| n.to_string()).collect();
    assert_eq!(
        notices,
        ["NOTICE:  drop cascades to 2 other objects\n\
          DETAIL:  drop cascades to default value for column a of table t\n\
          drop cascades to default value for column b of table t"]
    );
    ok(&mut s, "insert into t default values");
    assert_eq!(rows(&mut s, "select a, b from t"), ["NULL NULL"]);
    ok(&mut s, "create sequence o");
    ok(&mut s, "alter sequence o owned by t.b");
    drop(s);
    let db = common::reopen(db, &path);
    let mut s = Session::new(db);
    assert_eq!(
        rows(&mut s, "select pg_get_serial_sequence('t', 'b')"),
        ["public.o"]
    );
    ok(&mut s, "drop table t");
    assert_eq!(
        rows(&mut s, "select count(*) from pg_class where relname = 'o'"),
        ["0"]
    );
}

// Proves the 428C9 errors of a GENERATED ALWAYS identity column carry
// PostgreSQL 15's DETAIL and HINT (which the slt files do not compare),
// that `OVERRIDING SYSTEM VALUE` lifts the INSERT's, and that an identity
// change in a list of ALTER TABLE actions fails with its own SQLSTATE and
// takes the list's earlier actions with it.
#[test]
fn identity_values_and_overriding() {
    let (_dir, _path, db) = common::fresh();
    let mut s = Session::new(db);
    ok(
        &mut s,
        "create table t (id int generated always as identity, v text)",
    );
    let always = "Column \"id\" is an identity column defined as GENERATED ALWAYS.";
    let e = fails(&mut s, "insert into t values (1, 'x')");
    assert_eq!(
        (e.code, e.message.as_str()),
        (
            "428C9",
            "cannot insert a non-DEFAULT value into column \"id\""
        )
    );
    assert_eq!(e.detail.as_deref(), Some(always));
    assert_eq!(
        e.hint.as_deref(),
        Some("Use OVERRIDING SYSTEM VALUE to override.")
    );
    let e = fails(&mut s, "update t set id = 2");
    assert_eq!(
        (e.code, e.message.as_str()),
        ("428C9", "column \"id\" can only be updated to DEFAULT")
    );
    assert_eq!((e.detail.as_deref(), e.hint), (Some(always), None));
    ok(
        &mut s,
        "insert into t overriding system value values (7, 'x')",
    );
    ok(
        &mut s,
        "insert into t overriding user value values (7, 'y')",
    );
    assert_eq!(
        rows(&mut s, "select id, v from t order by v"),
        ["7 x", "1 y"]
    );
    let e = fails(
        &mut s,
        "alter table t add column z int, alter column v drop identity",
    );
    assert_eq!(e.code, "55000");
    assert_eq!(fails(&mut s, "select z from t").code, "42703");
    let e = fails(&mut s, "alter table t alter column id drop identity,");
    assert_eq!(e.code, "42601");
}

// Proves an index's included columns are kept in the catalog across a
// clean reopen and a crash (the catalog row is redone from the WAL like
// any row): pg_get_indexdef and pg_index still show them, the key alone
// is unique, and dropping an included column still drops the index.
#[test]
fn included_columns_survive_a_restart() {
    fn check(s: &mut Session) {
        assert_eq!(
            rows(
                s,
                "select pg_get_indexdef(indexrelid), indnatts, indnkeyatts, indkey from pg_index \
                 where indrelid = 'cov'::regclass order by indexrelid"
            ),
            [
                "CREATE UNIQUE INDEX cov_c1_c3_c4_key ON public.cov USING btree (c1) INCLUDE (c3, c4) 3 1 1 3 4",
                "CREATE INDEX cov_i ON public.cov USING btree (c2) INCLUDE (c3) 2 1 2 3",
            ]
        );
        assert_eq!(
            fails(s, "insert into cov values (1, 0, 99, null)").code,
            "23505"
        );
    }
    let (_dir, path, db) = common::fresh();
    let mut s = Session::new(db.clone());
    ok(
        &mut s,
        "create table cov (c1 int, c2 int, c3 int, c4 box, unique (c1) include (c3, c4))",
    );
    ok(&mut s, "create index cov_i on cov (c2) include (c3)");
    ok(&mut s, "insert into cov values (1, 2, 3, box('1,1,2,2'))");
    drop(s);
    let db = common::reopen(db, &path);
    let mut s = Session::new(db.clone());
    check(&mut s);
    drop(s);

    let dir = folio_io::SimDir::new(folio_io::SimConfig::seeded(77));
    let options = || folio_db::Options {
        pool_size_bytes: 4 << 20,
        ..folio_db::Options::default()
    };
    let storage = folio_db::Storage::single(dir.clone());
    let db = std::sync::Arc::new(folio_db::Database::create_in(storage, options()).unwrap());
    let mut s = Session::new(db.clone());
    ok(
        &mut s,
        "create table cov (c1 int, c2 int, c3 int, c4 box, unique (c1) include (c3, c4))",
    );
    ok(&mut s, "create index cov_i on cov (c2) include (c3)");
    ok(&mut s, "insert into cov values (1, 2, 3, box('1,1,2,2'))");
    let after = dir.crash();
    std::mem::forget(s);
    let db = std::sync::Arc::new(
        folio_db::Database::open_in(folio_db::Storage::single(after), options()).unwrap(),
    );
    let mut s = Session::new(db.clone());
    check(&mut s);
    ok(&mut s, "alter table cov drop column c3");
    assert_eq!(
        rows(
            &mut s,
            "select count(*) from pg_index where indrelid = 'cov'::regclass"
        ),
        ["0"]
    );
}
