//! The SQL session end to end on a database in a temporary directory:
//! what `pgbench -i` sends (its DDL and its rows), queries, the
//! transaction block, and errors with PostgreSQL 15's SQLSTATEs and
//! messages (written here as PostgreSQL 15 gives them).

mod common;

use folio_db::{Database, Options};
use folio_row::Value;
use folio_sql::{Column, Output, Session, SqlError, TxStatus, text_output};
use std::sync::Arc;

fn session() -> (tempfile::TempDir, Session) {
    let dir = tempfile::tempdir().unwrap();
    let db = Database::create(dir.path().join("db"), Options::default()).unwrap();
    (dir, Session::new(Arc::new(db)))
}

/// Runs `sql`, which must succeed; the outputs.
fn ok(s: &mut Session, sql: &str) -> Vec<Output> {
    let (out, err) = s.simple_query(sql);
    assert!(err.is_none(), "{sql}: {err:?}");
    out
}

/// Runs `sql`, which must fail; the error.
fn fails(s: &mut Session, sql: &str) -> SqlError {
    s.simple_query(sql)
        .1
        .unwrap_or_else(|| panic!("{sql} succeeded"))
}

/// The rows of a one-query `sql`, as PostgreSQL's text output.
fn rows(s: &mut Session, sql: &str) -> Vec<Vec<Option<String>>> {
    match ok(s, sql).pop() {
        Some(Output::Rows { rows, .. }) => rows
            .iter()
            .map(|r| r.iter().map(text_output).collect())
            .collect(),
        other => panic!("{sql}: {other:?}"),
    }
}

/// The notices raised since the last call, as psql prints them.
fn notices(s: &mut Session) -> Vec<String> {
    s.take_notices().iter().map(ToString::to_string).collect()
}

/// The same with their SQLSTATEs.
fn codes(s: &mut Session) -> Vec<(String, &'static str)> {
    s.take_notices()
        .iter()
        .map(|n| (n.to_string(), n.code))
        .collect()
}

fn text(values: &[&str]) -> Vec<Option<String>> {
    values.iter().map(|v| Some(v.to_string())).collect()
}

// Proves PostgreSQL 15's `pgbench -i -s 1` statements up to the accounts'
// COPY (captured with log_statement = all) run with PostgreSQL's tags and
// notices, and the rows they write read back as PostgreSQL prints them.
#[test]
fn pgbench_init_statements() {
    let (_dir, mut s) = session();
    let out = ok(
        &mut s,
        "drop table if exists pgbench_accounts, pgbench_branches, pgbench_history, pgbench_tellers",
    );
    assert_eq!(out[0].tag(), "DROP TABLE");
    assert_eq!(
        notices(&mut s),
        [
            "NOTICE:  table \"pgbench_accounts\" does not exist, skipping",
            "NOTICE:  table \"pgbench_branches\" does not exist, skipping",
            "NOTICE:  table \"pgbench_history\" does not exist, skipping",
            "NOTICE:  table \"pgbench_tellers\" does not exist, skipping",
        ]
    );
    for create in [
        "create table pgbench_history(tid int,bid int,aid    int,delta int,mtime timestamp,filler char(22))",
        "create table pgbench_tellers(tid int not null,bid int,tbalance int,filler char(84)) with (fillfactor=100)",
        "create table pgbench_accounts(aid    int not null,bid int,abalance int,filler char(84)) with (fillfactor=100)",
        "create table pgbench_branches(bid int not null,bbalance int,filler char(88)) with (fillfactor=100)",
    ] {
        assert_eq!(ok(&mut s, create)[0].tag(), "CREATE TABLE");
    }
    assert_eq!(ok(&mut s, "begin")[0].tag(), "BEGIN");
    assert_eq!(s.status(), TxStatus::InBlock);
    assert_eq!(
        ok(
            &mut s,
            "truncate table pgbench_accounts, pgbench_branches, pgbench_history, pgbench_tellers"
        )[0]
        .tag(),
        "TRUNCATE TABLE"
    );
    assert_eq!(
        ok(
            &mut s,
            "insert into pgbench_branches(bid,bbalance) values(1,0)"
        )[0]
        .tag(),
        "INSERT 0 1"
    );
    for tid in 1..=10 {
        ok(
            &mut s,
            &format!("insert into pgbench_tellers(tid,bid,tbalance) values ({tid},1,0)"),
        );
    }
    assert_eq!(ok(&mut s, "commit")[0].tag(), "COMMIT");
    assert_eq!(s.status(), TxStatus::Idle);
    for alter in [
        "alter table pgbench_branches add primary key (bid)",
        "alter table pgbench_tellers add primary key (tid)",
        "alter table pgbench_accounts add primary key (aid)",
    ] {
        assert_eq!(ok(&mut s, alter)[0].tag(), "ALTER TABLE");
    }

    assert_eq!(
        rows(&mut s, "select count(*) from pgbench_branches"),
        [text(&["1"])]
    );
    assert_eq!(
        rows(&mut s, "select count(*) from pgbench_tellers"),
        [text(&["10"])]
    );
    assert_eq!(
        rows(
            &mut s,
            "SELECT tid, bid, tbalance FROM pgbench_tellers WHERE tid = 7"
        ),
        [text(&["7", "1", "0"])]
    );
    assert_eq!(
        rows(&mut s, "select * from pgbench_branches"),
        [vec![Some("1".into()), Some("0".into()), None]]
    );
    // A char(n) value is blank-padded to n.
    ok(
        &mut s,
        "insert into pgbench_history(tid, filler) values (1, 'ab')",
    );
    let padded = format!("ab{}", " ".repeat(20));
    assert_eq!(
        rows(&mut s, "select filler from pgbench_history where tid = 1"),
        [text(&[&padded])]
    );
    // The primary keys hold; a second one, or one over a nullable column,
    // is refused.
    let e = fails(
        &mut s,
        "insert into pgbench_tellers (tid, bid) values (7, 2)",
    );
    assert_eq!(e.code, "23505", "{e}");
    let e = fails(&mut s, "alter table pgbench_tellers add primary key (tid)");
    assert_eq!(
        (e.code, e.message.as_str()),
        (
            "42P16",
            "multiple primary keys for table \"pgbench_tellers\" are not allowed"
        )
    );
    // A key over a column declared without NOT NULL makes it NOT NULL
    // (PostgreSQL's rule), so a NULL there is refused afterwards.
    ok(&mut s, "alter table pgbench_history add primary key (tid)");
    let e = fails(&mut s, "insert into pgbench_history (tid) values (null)");
    assert_eq!(e.code, "23502", "{e}");
    // TRUNCATE empties a table at commit, and not if rolled back.
    ok(&mut s, "begin; truncate pgbench_tellers");
    assert_eq!(
        rows(&mut s, "select count(*) from pgbench_tellers"),
        [text(&["0"])]
    );
    ok(&mut s, "rollback");
    assert_eq!(
        rows(&mut s, "select count(*) from pgbench_tellers"),
        [text(&["10"])]
    );
    ok(&mut s, "truncate pgbench_tellers");
    assert_eq!(
        rows(&mut s, "select count(*) from pgbench_tellers"),
        [text(&["0"])]
    );
    ok(
        &mut s,
        "insert into pgbench_tellers (tid, bid) values (7, 2)",
    );
    ok(&mut s, "drop table pgbench_history");
    assert!(s.take_notices().is_empty());
    assert_eq!(fails(&mut s, "select * from pgbench_history").code, "42P01");
}

// Proves the transaction block as PostgreSQL runs it: writes visible to
// the block itself, an error fails the block (25P02 for what follows,
// ROLLBACK as COMMIT's tag) and undoes its writes; ROLLBACK undoes a
// healthy block's; warnings for COMMIT outside a block and BEGIN inside.
#[test]
fn transaction_blocks() {
    let (_dir, mut s) = session();
    ok(&mut s, "create table t (k int not null, v text)");
    ok(&mut s, "begin");
    ok(&mut s, "insert into t values (1, 'one')");
    assert_eq!(
        rows(&mut s, "select v from t where k = 1"),
        [text(&["one"])]
    );
    ok(&mut s, "begin");
    assert_eq!(
        codes(&mut s),
        [(
            "WARNING:  there is already a transaction in progress".into(),
            "25001"
        )]
    );
    let e = fails(&mut s, "insert into nosuch values (1)");
    assert_eq!(
        (e.code, e.message.as_str()),
        ("42P01", "relation \"nosuch\" does not exist")
    );
    assert_eq!(s.status(), TxStatus::Failed);
    // Everything but COMMIT and ROLLBACK is refused now, BEGIN too
    // (PostgreSQL 15: 25P02 for BEGIN in an aborted block).
    assert_eq!(fails(&mut s, "begin").code, "25P02");
    let e = fails(&mut s, "select count(*) from t");
    assert_eq!(e.code, "25P02");
    assert_eq!(
        e.message,
        "current transaction is aborted, commands ignored until end of transaction block"
    );
    assert_eq!(ok(&mut s, "commit")[0].tag(), "ROLLBACK");
    assert_eq!(s.status(), TxStatus::Idle);
    assert_eq!(rows(&mut s, "select count(*) from t"), [text(&["0"])]);

    ok(
        &mut s,
        "BEGIN ISOLATION LEVEL REPEATABLE READ; insert into t values (2, 'two')",
    );
    assert_eq!(ok(&mut s, "rollback")[0].tag(), "ROLLBACK");
    assert_eq!(rows(&mut s, "select count(*) from t"), [text(&["0"])]);
    ok(
        &mut s,
        "start transaction; insert into t values (3, 'three'); end",
    );
    assert_eq!(rows(&mut s, "select k, v from t"), [text(&["3", "three"])]);
    ok(&mut s, "commit");
    assert_eq!(
        codes(&mut s),
        [(
            "WARNING:  there is no transaction in progress".into(),
            "25P01"
        )]
    );
    ok(&mut s, "begin isolation level serializable");
    assert_eq!(
        rows(&mut s, "show transaction_isolation"),
        [text(&["serializable"])]
    );
    ok(&mut s, "commit");
    assert_eq!(s.status(), TxStatus::Idle);
    // START TRANSACTION answers with its own tag, as PostgreSQL's, with a
    // DEFERRABLE mode in its list too.
    assert_eq!(
        ok(&mut s, "start transaction")[0].tag(),
        "START TRANSACTION"
    );
    ok(&mut s, "commit");
    let out = ok(&mut s, "start transaction read only, deferrable");
    assert_eq!(out[0].tag(), "START TRANSACTION");
    assert_eq!(ok(&mut s, "begin")[0].tag(), "BEGIN");
    ok(&mut s, "commit");
}

// Proves bad input is an error with PostgreSQL's SQLSTATE and the session
// carries on: syntax, unknown relations and columns, values that do not
// fit their columns, NOT NULL, and statements outside the subset.
#[test]
fn errors_carry_postgresql_sqlstates() {
    let (_dir, mut s) = session();
    ok(
        &mut s,
        "create table t (k int not null, c char(4), b bool, n numeric(6,2))",
    );
    assert_eq!(fails(&mut s, "selec 1").code, "42601");
    assert_eq!(fails(&mut s, "create table t (x int)").code, "42P07");
    let e = fails(&mut s, "select nosuch from t");
    assert_eq!(
        (e.code, e.message.as_str()),
        ("42703", "column \"nosuch\" does not exist")
    );
    assert_eq!(
        fails(&mut s, "insert into t (k) values (3000000000)").code,
        "22003"
    );
    assert_eq!(
        fails(&mut s, "insert into t (k) values ('x')").code,
        "22P02"
    );
    let e = fails(&mut s, "insert into t (k, c) values (1, 'abcde')");
    assert_eq!(
        (e.code, e.message.as_str()),
        ("22001", "value too long for type character(4)")
    );
    assert_eq!(
        fails(&mut s, "insert into t (c) values ('a')").code,
        "23502"
    );
    assert_eq!(
        fails(&mut s, "insert into t (k, nosuch) values (1, 2)").code,
        "42703"
    );
    assert_eq!(
        fails(&mut s, "insert into t (k) values (1, 2)").code,
        "42601"
    );
    assert_eq!(
        fails(
            &mut s,
            "with recursive r(n) as (select 1 union all select n from r order by 1) select * from r"
        )
        .code,
        "0A000"
    );
    assert_eq!(
        fails(&mut s, "create table u (x int references t match partial)").code,
        "0A000"
    );
    assert_eq!(
        fails(&mut s, "create table u (x int) with (fillfactor=9)").code,
        "22023"
    );
    ok(
        &mut s,
        "insert into t values (-5, 'ab', 'yes', 12.5), (7, null, false, '-1')",
    );
    assert_eq!(
        rows(&mut s, "select k, c, b, n from t where b = 't'"),
        [text(&["-5", "ab  ", "t", "12.50"])]
    );
    assert_eq!(
        rows(&mut s, "select n, c from t where k = 7"),
        [vec![Some("-1.00".into()), None]]
    );
    assert_eq!(
        rows(
            &mut s,
            "select 1, -2147483648, 'x', true, null, 9223372036854775808"
        ),
        [vec![
            Some("1".into()),
            Some("-2147483648".into()),
            Some("x".into()),
            Some("t".into()),
            None,
            Some("9223372036854775808".into()),
        ]]
    );
    let Some(Output::Rows { columns, .. }) = ok(&mut s, "select count(*) as n from t").pop() else {
        panic!()
    };
    assert_eq!(
        columns,
        [Column {
            name: "n".into(),
            type_oid: 20
        }]
    );
    let e = fails(&mut s, "insert into t (k, n) values (1, 12345.6)");
    assert_eq!(
        (e.code, e.message.as_str()),
        ("22003", "numeric field overflow")
    );
    assert_eq!(s.status(), TxStatus::Idle);
    let Some(Output::Rows { rows: r, .. }) =
        ok(&mut s, "select * from t where k = 7 and b = false").pop()
    else {
        panic!()
    };
    assert_eq!(r.len(), 1);
    assert_eq!(r[0][0], Value::Int4(7));
}

// Proves `COPY ... FROM STDIN` as pgbench -i uses it (text format, data in
// pieces that split lines anywhere, `\.` ending it, empty fields being
// empty strings and `\N` NULL), inside a block and on its own; that bad
// data ends the COPY with PostgreSQL's SQLSTATE and undoes its rows; and
// `VACUUM [ANALYZE]` / `ANALYZE` with their block rule (25001).
#[test]
fn copy_from_stdin_and_vacuum() {
    let (_dir, mut s) = session();
    ok(
        &mut s,
        "create table pgbench_accounts(aid int not null,bid int,abalance int,filler char(84)) with (fillfactor=100)",
    );
    ok(&mut s, "begin");
    let out = ok(&mut s, "copy pgbench_accounts from stdin with (freeze on)");
    assert_eq!(out, [Output::CopyIn { columns: 4 }]);
    assert!(s.copy_pending());
    let mut data = String::new();
    for aid in 1..=1000 {
        data.push_str(&format!("{aid}\t1\t0\t\n"));
    }
    data.push_str("\\.\n");
    for piece in data.as_bytes().chunks(37) {
        s.copy_data(piece).unwrap();
    }
    assert_eq!(s.copy_done().unwrap().tag(), "COPY 1000");
    assert_eq!(s.status(), TxStatus::InBlock);
    ok(&mut s, "commit");
    assert_eq!(
        rows(&mut s, "select count(*) from pgbench_accounts"),
        [text(&["1000"])]
    );
    assert_eq!(
        rows(
            &mut s,
            "select aid, abalance, filler from pgbench_accounts where aid = 500"
        ),
        [text(&["500", "0", &" ".repeat(84)])]
    );

    // On its own: committed at the end; `\N` is NULL, escapes resolved.
    ok(&mut s, "copy pgbench_accounts (aid, filler) from stdin");
    s.copy_data(b"2001\tx\\ty\n2002\t\\N").unwrap();
    assert_eq!(s.copy_done().unwrap().tag(), "COPY 2");
    let padded = format!("x\ty{}", " ".repeat(81));
    assert_eq!(
        rows(
            &mut s,
            "select filler from pgbench_accounts where aid = 2001"
        ),
        [text(&[&padded])]
    );
    assert_eq!(
        rows(
            &mut s,
            "select bid, filler from pgbench_accounts where aid = 2002"
        ),
        [vec![None, None]]
    );

    // Bad data: the COPY ends, its rows are undone.
    ok(&mut s, "copy pgbench_accounts from stdin");
    let e = s
        .copy_data(b"3001\t1\t0\t\n3002\tnot a number\t0\t\n")
        .unwrap_err();
    assert_eq!(e.code, "22P02");
    assert!(!s.copy_pending());
    ok(&mut s, "copy pgbench_accounts from stdin");
    assert_eq!(
        s.copy_data(b"3003\t1\t0\t\textra\n").unwrap_err().code,
        "22P04"
    );
    ok(&mut s, "copy pgbench_accounts from stdin");
    s.copy_data(b"3004\t1\t0\t\n").unwrap();
    assert_eq!(s.copy_fail("interrupted").code, "57014");
    assert_eq!(
        rows(&mut s, "select count(*) from pgbench_accounts"),
        [text(&["1002"])]
    );
    assert_eq!(fails(&mut s, "copy nosuch from stdin").code, "42P01");

    for statement in [
        "vacuum analyze pgbench_accounts",
        "vacuum pgbench_accounts",
        "analyze pgbench_accounts",
        "vacuum",
    ] {
        let tag = ok(&mut s, statement)[0].tag().to_string();
        assert!(
            statement.to_uppercase().starts_with(&tag),
            "{statement}: {tag}"
        );
    }
    ok(&mut s, "begin");
    assert_eq!(fails(&mut s, "vacuum pgbench_accounts").code, "25001");
    ok(&mut s, "rollback");
    ok(&mut s, "begin; analyze pgbench_accounts; commit");
    assert_eq!(fails(&mut s, "vacuum nosuch").code, "42P01");
}

// Proves what a pgbench run sends: UPDATE with an expression over the
// row (through the primary key's index), the point SELECT, INSERT with
// CURRENT_TIMESTAMP, END; READ COMMITTED's re-check of a row another
// session updated meanwhile (both increments kept, as PostgreSQL), and
// REPEATABLE READ's 40001.
#[test]
fn pgbench_run_statements() {
    let (_dir, _, db) = common::fresh();
    let mut s = Session::new(db.clone());
    ok(
        &mut s,
        "create table pgbench_accounts(aid int not null,bid int,abalance int,filler char(84))",
    );
    ok(
        &mut s,
        "create table pgbench_history(tid int,bid int,aid int,delta int,mtime timestamp,filler char(22))",
    );
    ok(
        &mut s,
        "insert into pgbench_accounts(aid, bid, abalance) values (1, 1, 0), (2, 1, 0)",
    );
    ok(&mut s, "alter table pgbench_accounts add primary key (aid)");
    let out = ok(
        &mut s,
        "BEGIN; UPDATE pgbench_accounts SET abalance = abalance + 4034 WHERE aid = 2; \
         SELECT abalance FROM pgbench_accounts WHERE aid = 2; \
         INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES (1, 1, 2, 4034, CURRENT_TIMESTAMP); END;",
    );
    let tags: Vec<&str> = out.iter().map(Output::tag).collect();
    assert_eq!(
        tags,
        ["BEGIN", "UPDATE 1", "SELECT 1", "INSERT 0 1", "COMMIT"]
    );
    assert_eq!(
        rows(
            &mut s,
            "select abalance from pgbench_accounts where aid = 2"
        ),
        [text(&["4034"])]
    );
    let mtime = rows(&mut s, "select mtime from pgbench_history where aid = 2");
    let mtime = mtime[0][0].clone().unwrap();
    assert!(mtime.len() >= 19 && mtime.as_bytes()[4] == b'-', "{mtime}");
    assert_eq!(
        ok(
            &mut s,
            "update pgbench_accounts set abalance = 1 where aid = 99"
        )[0]
        .tag(),
        "UPDATE 0"
    );
    assert_eq!(
        fails(
            &mut s,
            "update pgbench_accounts set abalance = abalance + 2147483647 where aid = 2"
        )
        .code,
        "22003"
    );

    // READ COMMITTED: the second updater waits, then re-checks the newest
    // version and adds to it.
    let mut other = Session::new(db.clone());
    ok(
        &mut s,
        "begin; update pgbench_accounts set abalance = abalance + 10 where aid = 1",
    );
    std::thread::scope(|scope| {
        let waiter = scope.spawn(|| {
            ok(
                &mut other,
                "update pgbench_accounts set abalance = abalance + 5 where aid = 1",
            )
        });
        std::thread::sleep(std::time::Duration::from_millis(50));
        ok(&mut s, "commit");
        assert_eq!(waiter.join().unwrap()[0].tag(), "UPDATE 1");
    });
    assert_eq!(
        rows(
            &mut s,
            "select abalance from pgbench_accounts where aid = 1"
        ),
        [text(&["15"])]
    );
    // REPEATABLE READ: the second updater of a row fails with 40001.
    ok(
        &mut s,
        "begin isolation level repeatable read; select count(*) from pgbench_accounts",
    );
    ok(
        &mut other,
        "update pgbench_accounts set abalance = 0 where aid = 1",
    );
    let e = fails(
        &mut s,
        "update pgbench_accounts set abalance = abalance + 1 where aid = 1",
    );
    assert_eq!(e.code, "40001", "{e}");
    assert!(e.is_retryable());
    ok(&mut s, "rollback");
}

// Proves SET / SHOW / RESET: `synchronous_commit = off` makes the
// session's commits asynchronous (they still commit), SHOW prints values
// as PostgreSQL 15 does, unknown names are 42704, values folio cannot
// honour 0A000, and SET LOCAL is refused rather than run as SET.
#[test]
fn settings() {
    let (_dir, mut s) = session();
    assert_eq!(rows(&mut s, "show synchronous_commit"), [text(&["on"])]);
    assert_eq!(ok(&mut s, "set synchronous_commit = off")[0].tag(), "SET");
    assert_eq!(rows(&mut s, "SHOW synchronous_commit"), [text(&["off"])]);
    ok(&mut s, "create table t (k int); insert into t values (1)");
    assert_eq!(rows(&mut s, "select count(*) from t"), [text(&["1"])]);
    assert_eq!(ok(&mut s, "reset synchronous_commit")[0].tag(), "RESET");
    assert_eq!(rows(&mut s, "show synchronous_commit"), [text(&["on"])]);
    ok(
        &mut s,
        "SET application_name TO 'pgbench'; set TimeZone = 'UTC'; set datestyle = iso, mdy",
    );
    assert_eq!(rows(&mut s, "show application_name"), [text(&["pgbench"])]);
    assert_eq!(rows(&mut s, "show DateStyle"), [text(&["ISO, MDY"])]);
    assert_eq!(fails(&mut s, "show nosuch").code, "42704");
    assert_eq!(fails(&mut s, "set nosuch = 1").code, "42704");
    assert_eq!(fails(&mut s, "set timezone = 'Nowhere/Land'").code, "22023");
    // SET LOCAL outside a block: PostgreSQL's warning, nothing changed.
    ok(&mut s, "set local synchronous_commit = off");
    assert_eq!(
        codes(&mut s),
        [(
            "WARNING:  SET LOCAL can only be used in transaction blocks".to_string(),
            "25P01"
        )]
    );
    assert_eq!(rows(&mut s, "show synchronous_commit"), [text(&["on"])]);
    ok(&mut s, "reset all");
    assert_eq!(rows(&mut s, "show application_name"), [text(&[""])]);
}

// Proves a prepared query or row change is planned once and runs its kept
// plan with each execution's parameters, and is planned again when DDL
// (another session's, or its own) changes a table it uses.
#[test]
fn prepared_statements_keep_their_plans() {
    let (_dir, mut s) = session();
    ok(&mut s, "create table t (aid int primary key, abalance int)");
    ok(&mut s, "insert into t values (1, 10), (2, 20), (3, 30)");
    let mut other = Session::new(s.database().clone());
    assert_eq!(
        s.prepare("get", "select abalance from t where aid = $1")
            .unwrap(),
        1
    );
    assert_eq!(
        s.prepare(
            "add",
            "update t set abalance = abalance + $1 where aid = $2"
        )
        .unwrap(),
        2
    );
    let value = |s: &mut Session, aid: &str| match s
        .execute_prepared("get", &[Some(aid.into())])
        .unwrap()
    {
        Output::Rows { rows, .. } => rows.first().map(|r| text_output(&r[0]).unwrap()),
        other => panic!("{other:?}"),
    };
    assert_eq!(value(&mut s, "1").as_deref(), Some("10"));
    assert_eq!(value(&mut s, "3").as_deref(), Some("30"));
    assert_eq!(value(&mut s, "4"), None);
    let out = s
        .execute_prepared("add", &[Some("-5".into()), Some("2".into())])
        .unwrap();
    assert_eq!(out.tag(), "UPDATE 1");
    s.execute_prepared("add", &[Some("7".into()), Some("2".into())])
        .unwrap();
    assert_eq!(value(&mut s, "2").as_deref(), Some("22"));
    assert_eq!(s.plans_made(), 2, "one plan per statement");
    // A parameter takes its column's type: PostgreSQL's error for bad input.
    let e = s
        .execute_prepared("get", &[Some("1.5".into())])
        .unwrap_err();
    assert_eq!(e.code, "22P02");
    assert_eq!(s.plans_made(), 2);
    // Another session's DDL on the table: planned again, still right.
    ok(&mut other, "create index on t (abalance)");
    assert_eq!(value(&mut s, "2").as_deref(), Some("22"));
    assert_eq!(s.plans_made(), 3);
    // Its own DDL: the table dropped and made again with other rows.
    ok(&mut s, "drop table t");
    ok(&mut s, "create table t (aid int primary key, abalance int)");
    ok(&mut s, "insert into t values (2, 99)");
    assert_eq!(value(&mut s, "2").as_deref(), Some("99"));
    assert_eq!(s.plans_made(), 4);
}

// Proves simple-protocol texts that differ only in integer literals run
// by their shape's generic plan (pgbench -M simple's statements are not
// planned per execution) with each text's own values, and that the plan
// is made again after a setting change or DDL; texts whose literals are
// read as themselves (ORDER BY's position, a bare SET value) keep their
// own planning and meaning.
#[test]
fn shapes_run_by_generic_plans() {
    let (_dir, mut s) = session();
    ok(
        &mut s,
        "create table t (aid int primary key, abalance int, b int)",
    );
    ok(
        &mut s,
        "insert into t values (1, 10, 1), (2, 20, 2), (3, 30, 3)",
    );
    let texts = [
        (1, "5"),
        (2, "-7"),
        (1, "3000000000"),
        (3, "-2147483648"),
        (2, "6"),
        (3, "-1"),
    ];
    for (aid, delta) in texts {
        let sql = format!("update t set abalance = abalance + {delta} where aid = {aid}");
        match delta.parse::<i64>().unwrap() {
            d if i32::try_from(d).is_ok() => assert_eq!(ok(&mut s, &sql)[0].tag(), "UPDATE 1"),
            _ => assert_eq!(fails(&mut s, &sql).code, "22003", "{sql}"),
        }
    }
    assert_eq!(
        rows(&mut s, "select aid, abalance from t order by aid"),
        [
            text(&["1", "15"]),
            text(&["2", "19"]),
            text(&["3", "-2147483619"])
        ]
    );
    // The first text of each shape (`+ 5`, `+ -7`) is planned, the edge
    // -2147483648 too (an int4, though 2147483648 is an int8).
    let runs = s.generic_runs();
    assert_eq!(runs, 3);
    for aid in 1..=3 {
        let want = [None, Some("15"), Some("19"), Some("-2147483619")][aid];
        let got = rows(&mut s, &format!("select abalance from t where aid = {aid}"));
        assert_eq!(got.first().map(|r| r[0].as_deref()), Some(want));
    }
    assert_eq!(
        s.generic_runs(),
        runs + 2,
        "the first text of a shape plans it"
    );
    // ORDER BY 2 is a position: not a generic plan's constant.
    assert_eq!(
        rows(&mut s, "select aid, b from t order by 2 desc"),
        rows(&mut s, "select aid, b from t order by 2 desc")
    );
    assert_eq!(
        rows(&mut s, "select aid from t order by 1 desc")[0],
        text(&["3"])
    );
    assert_eq!(
        rows(&mut s, "select aid from t order by 1 desc")[0],
        text(&["3"])
    );
    let before = s.generic_runs();
    ok(&mut s, "update t set b = 4 where aid = 1");
    ok(&mut s, "update t set b = 5 where aid = 1");
    assert_eq!(s.generic_runs(), before, "a bare SET value is folded");
    // A setting or DDL since the plan was made: planned again, still right.
    ok(&mut s, "set enable_indexscan = off");
    let got = rows(&mut s, "select abalance from t where aid = 2");
    assert_eq!(got, [text(&["19"])]);
    ok(&mut s, "alter table t add column c int default 7");
    assert_eq!(
        rows(&mut s, "select c from t where aid = 3"),
        [text(&["7"])]
    );
    assert_eq!(
        rows(&mut s, "select abalance from t where aid = 1"),
        [text(&["15"])]
    );
}

// Proves a kept plan is made again when another session's ANALYZE
// replaces the statistics of a table it uses (PostgreSQL's plan cache
// drops it on the invalidation ANALYZE sends), and not for an ANALYZE of
// a table it does not use: before ANALYZE the planner guesses `b = 1`'s
// rows, after it knows half the table matches.
#[test]
fn kept_plans_are_made_again_after_analyze() {
    let (_dir, _, db) = common::fresh();
    let mut s = Session::new(db.clone());
    let mut other = Session::new(db.clone());
    ok(&mut s, "create table t (a int, b int)");
    ok(&mut s, "create table u (a int)");
    ok(
        &mut s,
        "insert into t select g, g % 2 from generate_series(1, 2000) g",
    );
    assert_eq!(s.prepare("p", "select a from t where b = $1").unwrap(), 1);
    let run = |s: &mut Session| match s.execute_prepared("p", &[Some("1".into())]).unwrap() {
        Output::Rows { rows, .. } => rows.len(),
        other => panic!("{other:?}"),
    };
    let estimate = |s: &mut Session| {
        let plan = rows(s, "explain execute p(1)");
        let top = plan[0][0].clone().unwrap();
        top.split("rows=")
            .nth(1)
            .unwrap()
            .split(' ')
            .next()
            .unwrap()
            .to_string()
    };
    assert_eq!(run(&mut s), 1000);
    assert_eq!(run(&mut s), 1000);
    assert_eq!(s.plans_made(), 1);
    let guessed = estimate(&mut s);
    ok(&mut other, "analyze u");
    assert_eq!(run(&mut s), 1000);
    assert_eq!(s.plans_made(), 1, "u is not in the plan");
    ok(&mut other, "analyze t");
    assert_eq!(run(&mut s), 1000);
    assert_eq!(s.plans_made(), 2, "t's statistics changed");
    assert_eq!(run(&mut s), 1000);
    assert_eq!(s.plans_made(), 2);
    assert_ne!(guessed, "1000");
    assert_eq!(estimate(&mut s), "1000");
}

// Proves a prepared statement with a data-modifying CTE keeps one plan
// whose parts take each execution's parameters (each CTE run once per
// execution, its RETURNING rows the rest's input), and is planned again
// when DDL changes a table any part uses.
#[test]
fn prepared_data_modifying_ctes_keep_their_plans() {
    let (_dir, mut s) = session();
    ok(&mut s, "create table queue (id int primary key, job text)");
    ok(&mut s, "create table done (id int, job text)");
    ok(
        &mut s,
        "insert into queue values (1, 'a'), (2, 'b'), (3, 'c')",
    );
    let sql = "with d as (delete from queue where id <= $1 returning *) \
               insert into done select id * $2, job from d returning id";
    assert_eq!(s.prepare("move", sql).unwrap(), 2);
    let moved = |s: &mut Session, upto: &str| match s
        .execute_prepared("move", &[Some(upto.into()), Some("10".into())])
        .unwrap()
    {
        Output::Rows { rows, tag, .. } => {
            let ids: Vec<String> = rows.iter().map(|r| text_output(&r[0]).unwrap()).collect();
            (ids, tag)
        }
        other => panic!("{other:?}"),
    };
    assert_eq!(
        moved(&mut s, "1"),
        (vec!["10".to_string()], "INSERT 0 1".to_string())
    );
    assert_eq!(moved(&mut s, "1"), (vec![], "INSERT 0 0".to_string()));
    assert_eq!(s.plans_made(), 1);
    ok(&mut s, "create index on done (job)");
    let (mut ids, _) = moved(&mut s, "3");
    ids.sort();
    assert_eq!(ids, ["20", "30"]);
    assert_eq!(s.plans_made(), 2);
    assert_eq!(
        rows(
            &mut s,
            "select count(*) from queue union all select count(*) from done"
        ),
        [text(&["0"]), text(&["3"])]
    );
}

// Proves COPY ... TO STDOUT writes PostgreSQL 15's text format (checked
// against it on the same rows): tab-separated, \N for NULL, backslash,
// tab, newline and carriage return escaped; a column list; the tag.
// Proves COPY's batches (rows inserted a thousand or 64 KB at a time)
// keep every constraint: a primary key, a foreign key and a CHECK are
// enforced across batches and inside one, a violation in a later batch
// undoes the whole COPY, and large values split the batches by size.
#[test]
fn copy_batches_keep_constraints() {
    let (_dir, mut s) = session();
    ok(&mut s, "create table parent(id int primary key)");
    ok(&mut s, "insert into parent values (1), (2)");
    ok(
        &mut s,
        "create table child(id int primary key, parent int references parent, n int check (n >= 0), note text)",
    );
    let copy = |s: &mut Session, lines: &[String]| {
        ok(s, "copy child from stdin");
        let mut data = lines.concat();
        data.push_str("\\.\n");
        s.copy_data(data.as_bytes()).and_then(|()| s.copy_done())
    };
    let line = |id: usize, parent: usize, n: i64| format!("{id}\t{parent}\t{n}\t\\N\n");
    let good: Vec<String> = (1..=2500).map(|i| line(i, 1 + i % 2, 0)).collect();
    let mut dup = good.clone();
    dup[2200] = line(17, 1, 0);
    assert_eq!(copy(&mut s, &dup).unwrap_err().code, "23505");
    let mut orphan = good.clone();
    orphan[1500] = line(1501, 3, 0);
    assert_eq!(copy(&mut s, &orphan).unwrap_err().code, "23503");
    let mut negative = good.clone();
    negative[2499] = line(2500, 1, -1);
    assert_eq!(copy(&mut s, &negative).unwrap_err().code, "23514");
    assert_eq!(rows(&mut s, "select count(*) from child"), [text(&["0"])]);
    assert_eq!(copy(&mut s, &good).unwrap().tag(), "COPY 2500");
    // Large values: 100 rows of 3,000 bytes, several batches by size.
    let big: Vec<String> = (3001..=3100)
        .map(|i| format!("{i}\t1\t{i}\t{}\n", "x".repeat(3000)))
        .collect();
    assert_eq!(copy(&mut s, &big).unwrap().tag(), "COPY 100");
    assert_eq!(
        rows(
            &mut s,
            "select count(*), sum(length(note)), count(distinct parent) from child"
        ),
        [text(&["2600", "300000", "2"])]
    );
    assert_eq!(
        rows(&mut s, "select parent from child where id = 2222"),
        [text(&["1"])]
    );
    assert_eq!(
        fails(&mut s, "insert into child values (3050, 1, 0)").code,
        "23505"
    );
}

#[test]
fn copy_to_stdout() {
    let (_dir, mut s) = session();
    ok(&mut s, "create table c (id int, t text, n numeric)");
    ok(
        &mut s,
        "insert into c values (1, 'plain', 1.50), (2, E'tab\\there', null), (3, E'back\\\\slash\\nnew', -2)",
    );
    let out = ok(&mut s, "copy c to stdout").pop().unwrap();
    let Output::CopyOut {
        columns,
        lines,
        tag,
    } = out
    else {
        panic!("{out:?}")
    };
    assert_eq!((columns, tag.as_str()), (3, "COPY 3"));
    let mut text: Vec<String> = lines
        .iter()
        .map(|l| String::from_utf8(l.clone()).unwrap())
        .collect();
    text.sort();
    assert_eq!(
        text,
        [
            "1\tplain\t1.50\n",
            "2\ttab\\there\t\\N\n",
            "3\tback\\\\slash\\nnew\t-2\n"
        ]
    );
    let out = ok(
        &mut s,
        "copy c (t, id) to stdout with (delimiter ',', null 'NULL')",
    )
    .pop()
    .unwrap();
    let Output::CopyOut { lines, .. } = out else {
        panic!("{out:?}")
    };
    assert!(lines.iter().any(|l| l == b"plain,1\n"));
    // A tab is escaped whatever the delimiter, as PostgreSQL's.
    assert!(lines.iter().any(|l| l == b"tab\\there,2\n"));
}

// Proves numeric infinities cross COPY both ways in PostgreSQL's text
// (`inf` and any case in, `Infinity` / `-Infinity` out), and that a
// numeric(p, s) column refuses one with PostgreSQL 15's 22003 and DETAIL.
#[test]
fn copy_numeric_infinities() {
    let (_dir, mut s) = session();
    ok(
        &mut s,
        "create table ni (id int, n numeric, m numeric(10, 2))",
    );
    ok(&mut s, "copy ni (id, n) from stdin");
    s.copy_data(b"1\tinf\n2\t-INFINITY\n3\tNaN\n4\t+Infinity\n")
        .unwrap();
    assert_eq!(s.copy_done().unwrap().tag(), "COPY 4");
    assert_eq!(
        copy_lines(
            &mut s,
            "copy (select id, n from ni order by n, id) to stdout"
        ),
        [
            "2\t-Infinity\n",
            "1\tInfinity\n",
            "4\tInfinity\n",
            "3\tNaN\n"
        ]
    );
    ok(&mut s, "copy ni (id, m) from stdin");
    let e = s.copy_data(b"5\t-inf\n").unwrap_err();
    assert_eq!(
        (e.code, e.message.as_str()),
        ("22003", "numeric field overflow")
    );
    assert_eq!(
        e.detail.as_deref(),
        Some("A field with precision 10, scale 2 cannot hold an infinite value.")
    );
}

// Proves `COPY (INSERT | UPDATE | DELETE ... RETURNING) TO STDOUT`
// copies the rows the change returns, as PostgreSQL 15's copydml.sql
// shows, with its 0A000 for a change without RETURNING (nothing runs),
// and that the change is the statement's: a failed block keeps none.
#[test]
fn copy_of_a_change_copies_its_returned_rows() {
    let (_dir, mut s) = session();
    ok(&mut s, "create table cd (id serial, t text)");
    ok(&mut s, "insert into cd (t) values ('a'), ('b')");
    assert_eq!(
        copy_lines(
            &mut s,
            "copy (insert into cd (t) values ('f') returning id) to stdout"
        ),
        ["3\n"]
    );
    assert_eq!(
        copy_lines(
            &mut s,
            "copy (update cd set t = 'g' where t = 'f' returning id, t) to stdout (format csv, header)"
        ),
        ["id,t\n", "3,g\n"]
    );
    assert_eq!(
        copy_lines(
            &mut s,
            "copy (delete from cd where t = 'g' returning id) to stdout"
        ),
        ["3\n"]
    );
    for sql in [
        "copy (insert into cd default values) to stdout",
        "copy (update cd set t = 'g') to stdout",
        "copy (delete from cd) to stdout",
    ] {
        let e = fails(&mut s, sql);
        assert_eq!(
            (e.code, e.message.as_str()),
            ("0A000", "COPY query must have a RETURNING clause"),
            "{sql}"
        );
    }
    ok(&mut s, "begin");
    assert_eq!(
        copy_lines(&mut s, "copy (delete from cd returning t) to stdout").len(),
        2
    );
    ok(&mut s, "rollback");
    assert_eq!(
        rows(&mut s, "select t from cd order by id"),
        [[Some("a".to_string())], [Some("b".to_string())]]
    );
}

/// The lines of a `COPY ... TO STDOUT`, as text.
fn copy_lines(s: &mut Session, sql: &str) -> Vec<String> {
    match ok(s, sql).pop() {
        Some(Output::CopyOut { lines, .. }) => lines
            .into_iter()
            .map(|l| String::from_utf8(l).unwrap())
            .collect(),
        other => panic!("{sql}: {other:?}"),
    }
}

// Proves COPY's CSV format reads and writes as PostgreSQL 15's (the same
// statements and data through psql on both gave the same output): quoted
// newlines and delimiters arriving split across pieces, "" against NULL,
// HEADER and HEADER MATCH, FORCE_NOT_NULL / FORCE_NULL / FORCE_QUOTE,
// the older `CSV HEADER` spelling, and COPY (query) TO STDOUT.
#[test]
fn copy_csv_in_and_out() {
    let (_dir, mut s) = session();
    ok(&mut s, "create table d (a int, b text, c text)");
    ok(&mut s, "copy d from stdin (format csv)");
    for piece in [
        &b"1,\"mul"[..],
        b"ti\nline\",x\n2,,\"\"\n3,\"say \"\"hi",
        b"\"\"\",\\N\n",
    ] {
        s.copy_data(piece).unwrap();
    }
    assert_eq!(s.copy_done().unwrap().tag(), "COPY 3");
    ok(
        &mut s,
        "copy d from stdin (format csv, header match, force_not_null (b), force_null (c))",
    );
    s.copy_data(b"a,b,c\n4,,\"\"\n").unwrap();
    assert_eq!(s.copy_done().unwrap().tag(), "COPY 1");
    ok(&mut s, "copy d from stdin (format csv, header match)");
    assert_eq!(s.copy_data(b"a,x,c\n").unwrap_err().code, "22P04");
    ok(&mut s, "copy d from stdin csv");
    s.copy_data(b"5,\"open\n").unwrap();
    assert_eq!(s.copy_done().unwrap_err().code, "22P04");
    assert_eq!(
        rows(
            &mut s,
            "select a, b is null, b, c is null, c from d order by a"
        ),
        [
            ["1", "f", "multi\nline", "f", "x"].map(Some),
            [Some("2"), Some("t"), None, Some("f"), Some("")],
            ["3", "f", "say \"hi\"", "f", "\\N"].map(Some),
            [Some("4"), Some("f"), Some(""), Some("t"), None],
        ]
        .map(|r| r.map(|v| v.map(str::to_string)).to_vec())
    );
    assert_eq!(
        copy_lines(
            &mut s,
            "copy (select a, b, c from d order by a) to stdout csv header force quote c"
        ),
        [
            "a,b,c\n",
            "1,\"multi\nline\",\"x\"\n",
            "2,,\"\"\n",
            "3,\"say \"\"hi\"\"\",\"\\N\"\n",
            "4,\"\",\n",
        ]
    );
    assert_eq!(
        copy_lines(
            &mut s,
            "copy (select b from d where a = 2) to stdout (format text, header)"
        ),
        ["b\n", "\\N\n"]
    );
    assert_eq!(fails(&mut s, "copy d to stdout (quote '\"')").code, "0A000");
    assert_eq!(
        fails(&mut s, "copy d to stdout (format csv, header match)").code,
        "0A000"
    );
    assert_eq!(
        fails(
            &mut s,
            "copy d to stdout (format csv, force_quote (nosuch))"
        )
        .code,
        "42P10"
    );
}

// Proves a SET inside a transaction block takes effect at once and is
// undone when the block rolls back or fails, kept when it commits, as
// PostgreSQL 15 does (compared on the same statements).
#[test]
fn set_in_a_block_is_undone_by_its_rollback() {
    let (_dir, mut s) = session();
    let show = |s: &mut Session| rows(s, "show application_name")[0][0].clone();
    ok(&mut s, "begin");
    ok(&mut s, "set application_name = 'inside'");
    assert_eq!(show(&mut s).as_deref(), Some("inside"));
    ok(&mut s, "rollback");
    assert_eq!(show(&mut s).as_deref(), Some(""));
    ok(&mut s, "begin; set application_name = 'kept'; commit");
    assert_eq!(show(&mut s).as_deref(), Some("kept"));
    ok(&mut s, "begin; set application_name = 'lost'");
    fails(&mut s, "select 1 / 0");
    ok(&mut s, "commit");
    assert_eq!(show(&mut s).as_deref(), Some("kept"));
    // Outside a block a SET simply stays.
    ok(&mut s, "set application_name = 'plain'");
    assert_eq!(show(&mut s).as_deref(), Some("plain"));
}

// Proves ALTER ROLE / ALTER USER ... PASSWORD keeps a SCRAM-SHA-256
// verifier of the password (never the password), keeps a given verifier
// as it is (psql's \password sends one), removes it with NULL, survives
// reopening the database, and refuses unknown roles as PostgreSQL does.
#[test]
fn role_passwords_are_scram_verifiers() {
    use folio_sql::roles::{self, Verifier};
    let (_dir, path, db) = common::fresh();
    let mut s = Session::new(db.clone());
    assert_eq!(roles::password(&db, "postgres").unwrap(), None);
    ok(&mut s, "alter user postgres with password 'pencil'");
    let made = roles::password(&db, "postgres").unwrap().unwrap();
    assert_eq!(made, Verifier::new("pencil", &made.salt, roles::ITERATIONS));
    let given = Verifier::new("other", b"0123456789abcdef", 4096);
    ok(
        &mut s,
        &format!("alter role postgres password '{}'", given.text()),
    );
    assert_eq!(
        roles::password(&db, "postgres").unwrap(),
        Some(given.clone())
    );
    assert_eq!(
        fails(&mut s, "alter role nobody password 'x'").code,
        "42704"
    );
    drop(s);
    let db = common::reopen(db, &path);
    assert_eq!(roles::password(&db, "postgres").unwrap(), Some(given));
    let mut s = Session::new(db.clone());
    ok(&mut s, "alter role postgres password null");
    assert_eq!(roles::password(&db, "postgres").unwrap(), None);
}

// Proves COPY with a column list fills the other columns with their
// defaults and checks each row against the table's CHECK constraints and
// foreign keys (23514, 23503 with PostgreSQL's DETAIL), as PostgreSQL 15
// does; and that errors carry PostgreSQL's DETAIL and HINT.
#[test]
fn copy_fills_defaults_and_checks_constraints() {
    let (_dir, mut s) = session();
    ok(&mut s, "create table p (id int primary key)");
    ok(&mut s, "insert into p values (1)");
    ok(
        &mut s,
        "create table c (id int, pid int references p, n int default 40 + 2 check (n > 0), t text default 'd')",
    );
    ok(&mut s, "copy c (id, pid) from stdin");
    s.copy_data(b"1\t1\n2\t\\N\n\\.\n").unwrap();
    assert_eq!(s.copy_done().unwrap().tag(), "COPY 2");
    assert_eq!(
        rows(&mut s, "select id, pid, n, t from c order by id"),
        [
            vec![
                Some("1".into()),
                Some("1".into()),
                Some("42".into()),
                Some("d".into())
            ],
            vec![Some("2".into()), None, Some("42".into()), Some("d".into())],
        ]
    );
    ok(&mut s, "copy c (id, pid) from stdin");
    // The batch is inserted at `\.`: the error comes with the data.
    let e = s.copy_data(b"3\t5\n\\.\n").unwrap_err();
    assert_eq!(e.code, "23503");
    assert_eq!(
        e.message,
        "insert or update on table \"c\" violates foreign key constraint \"c_pid_fkey\""
    );
    assert_eq!(
        e.detail.as_deref(),
        Some("Key (pid)=(5) is not present in table \"p\".")
    );
    ok(&mut s, "copy c (id, n) from stdin");
    let e = s.copy_data(b"4\t-1\n\\.\n").unwrap_err();
    assert_eq!(e.code, "23514");
    assert_eq!(
        e.detail.as_deref(),
        Some("Failing row contains (4, null, -1, d).")
    );
    let e = fails(&mut s, "drop table p");
    assert_eq!(e.code, "2BP01");
    assert_eq!(
        e.detail.as_deref(),
        Some("constraint c_pid_fkey on table c depends on table p")
    );
    assert_eq!(
        e.hint.as_deref(),
        Some("Use DROP ... CASCADE to drop the dependent objects too.")
    );
    ok(&mut s, "create table c2 (pid int references p)");
    let e = fails(&mut s, "drop table p");
    assert_eq!(
        e.detail.as_deref(),
        Some(
            "constraint c_pid_fkey on table c depends on table p\n\
             constraint c2_pid_fkey on table c2 depends on table p"
        )
    );
    let e = fails(&mut s, "delete from p");
    assert_eq!(
        e.detail.as_deref(),
        Some("Key (id)=(1) is still referenced from table \"c\".")
    );
}

// Proves the referenced row's lock closes both races with a concurrent
// delete of the parent (README "Constraints"): a delete waits for the
// transaction that inserted a referencing row and then fails (23503);
// an insert waits for the transaction that deleted the parent and then
// fails when it commits (40001 under REPEATABLE READ), or succeeds when
// it rolls back.
#[test]
fn foreign_keys_and_a_concurrent_parent_delete() {
    let (_dir, _, db) = common::fresh();
    let mut s = Session::new(db.clone());
    let mut other = Session::new(db.clone());
    ok(&mut s, "create table p (id int primary key)");
    ok(&mut s, "create table c (pid int references p)");
    for isolation in ["read committed", "repeatable read"] {
        ok(
            &mut s,
            "delete from c; delete from p; insert into p values (1)",
        );
        // The child first: the delete waits, then sees the committed child.
        ok(
            &mut s,
            &format!("begin isolation level {isolation}; insert into c values (1)"),
        );
        std::thread::scope(|scope| {
            let deleter = scope.spawn(|| {
                other.simple_query(&format!(
                    "begin isolation level {isolation}; delete from p where id = 1"
                ))
            });
            std::thread::sleep(std::time::Duration::from_millis(100));
            ok(&mut s, "commit");
            let (_, e) = deleter.join().unwrap();
            assert_eq!(e.map(|e| e.code), Some("23503"), "{isolation}");
        });
        ok(&mut other, "rollback");
        // The delete first: the insert waits; it fails if the delete
        // commits (REPEATABLE READ: 40001, its snapshot saw the row, as
        // PostgreSQL's), succeeds if it rolls back.
        ok(&mut s, "delete from c");
        let gone = match isolation {
            "read committed" => "23503",
            _ => "40001",
        };
        for (end, expect) in [("rollback", None), ("commit", Some(gone))] {
            ok(&mut other, "begin; delete from p where id = 1");
            std::thread::scope(|scope| {
                let inserter = scope.spawn(|| {
                    s.simple_query(&format!(
                        "begin isolation level {isolation}; insert into c values (1)"
                    ))
                });
                std::thread::sleep(std::time::Duration::from_millis(100));
                ok(&mut other, end);
                let (_, e) = inserter.join().unwrap();
                assert_eq!(e.map(|e| e.code), expect, "{isolation} {end}");
            });
            ok(&mut s, "rollback");
        }
    }
}

// Proves a transaction that updated the referenced row itself (after
// waiting for another updater of it) still finds it for its referencing
// insert: pgbench's TPC-B with foreign keys, two clients on one branch.
#[test]
fn referencing_insert_after_updating_the_parent_under_contention() {
    let (_dir, _, db) = common::fresh();
    let mut s = Session::new(db.clone());
    ok(&mut s, "create table b (bid int primary key, bal int)");
    ok(&mut s, "create table h (bid int references b, delta int)");
    ok(&mut s, "insert into b values (1, 0)");
    std::thread::scope(|scope| {
        for _ in 0..2 {
            let db = db.clone();
            scope.spawn(move || {
                let mut s = Session::new(db);
                for i in 0..200 {
                    ok(
                        &mut s,
                        &format!(
                            "begin; update b set bal = bal + {i} where bid = 1; \
                             insert into h values (1, {i}); end"
                        ),
                    );
                }
            });
        }
    });
    assert_eq!(rows(&mut s, "select count(*) from h"), [text(&["400"])]);
}

// Proves COPY FROM STDIN fills a serial column it leaves out from the
// column's sequence, and that currval and lastval are per session while
// the values are shared.
#[test]
fn sequences_in_copy_and_across_sessions() {
    let (_dir, _, db) = common::fresh();
    let mut s = Session::new(db.clone());
    ok(&mut s, "create table c (id serial, v text)");
    ok(&mut s, "copy c (v) from stdin");
    s.copy_data(b"a\nb\n\\.\n").unwrap();
    assert_eq!(s.copy_done().unwrap().tag(), "COPY 2");
    assert_eq!(
        rows(&mut s, "select id, v from c order by id"),
        [text(&["1", "a"]), text(&["2", "b"])]
    );
    let mut other = Session::new(db);
    let e = fails(&mut other, "select currval('c_id_seq')");
    assert_eq!(e.code, "55000");
    assert_eq!(fails(&mut other, "select lastval()").code, "55000");
    assert_eq!(
        rows(&mut other, "select nextval('c_id_seq')"),
        [text(&["3"])]
    );
    assert_eq!(rows(&mut s, "select lastval()"), [text(&["2"])]);
    // A name computed at run time is looked up as `::regclass` does.
    let e = fails(&mut s, "select nextval(v) from c");
    assert_eq!(
        (e.code, e.message.as_str()),
        ("42P01", "relation \"a\" does not exist")
    );
}

// Proves INSERT ... ON CONFLICT DO NOTHING as PostgreSQL 15 runs it when
// the existing key was committed by a transaction the snapshot does not
// see (checked against PostgreSQL 15 here): READ COMMITTED skips the row;
// REPEATABLE READ and SERIALIZABLE fail with 40001 (skipping would act on
// a row they cannot read), with a target and without one; a key the
// snapshot sees (committed before it, or the transaction's own) is
// skipped at every level.
#[test]
fn on_conflict_do_nothing_meets_a_key_the_snapshot_cannot_see() {
    let (_dir, _, db) = common::fresh();
    let mut s = Session::new(db.clone());
    let mut other = Session::new(db);
    ok(&mut s, "create table u (k int primary key, v int)");
    for (isolation, invisible) in [
        ("read committed", None),
        ("repeatable read", Some("40001")),
        ("serializable", Some("40001")),
    ] {
        for target in ["(k)", ""] {
            ok(&mut s, "delete from u");
            ok(
                &mut s,
                &format!("begin isolation level {isolation}; select count(*) from u"),
            );
            ok(&mut other, "insert into u values (1, 1)");
            let sql = format!("insert into u values (1, 2) on conflict {target} do nothing");
            let (out, e) = s.simple_query(&sql);
            assert_eq!(e.as_ref().map(|e| e.code), invisible, "{isolation} {sql}");
            if let Some(e) = e {
                assert_eq!(
                    e.message, "could not serialize access due to concurrent update",
                    "{isolation}"
                );
            } else {
                assert!(matches!(out.last(), Some(Output::Command { tag }) if tag == "INSERT 0 0"));
            }
            ok(&mut s, "rollback");
            // Committed before the snapshot, and the transaction's own.
            ok(
                &mut s,
                &format!("begin isolation level {isolation}; select count(*) from u"),
            );
            ok(&mut s, &sql);
            ok(&mut s, "insert into u values (2, 2)");
            ok(
                &mut s,
                &format!("insert into u values (2, 3) on conflict {target} do nothing"),
            );
            assert_eq!(
                rows(&mut s, "select k, v from u order by k"),
                vec![text(&["1", "1"]), text(&["2", "2"])],
                "{isolation}"
            );
            ok(&mut s, "rollback");
        }
    }
}

// Proves an upsert inferring an expression index (`on conflict
// (lower(email))`) meets a key another session committed after the
// statement's snapshot as PostgreSQL 15 does (checked against it here):
// READ COMMITTED's DO UPDATE updates that row and DO NOTHING skips it;
// REPEATABLE READ fails with 40001 on both; and a partial unique index
// inferred with its predicate (`on conflict (k) where active`) does the
// same for a row in it, while a row outside it is inserted.
#[test]
fn upserts_on_an_expression_index_meet_a_key_committed_meanwhile() {
    let (_dir, _, db) = common::fresh();
    let mut s = Session::new(db.clone());
    let mut other = Session::new(db);
    ok(&mut s, "create table m (id int, email text, n int)");
    ok(&mut s, "create unique index m_email on m (lower(email))");
    ok(&mut s, "create table p (k int, active bool, n int)");
    ok(&mut s, "create unique index p_k on p (k) where active");
    for (isolation, invisible) in [("read committed", None), ("repeatable read", Some("40001"))] {
        for action in ["do update set n = m.n + excluded.n", "do nothing"] {
            ok(&mut s, "delete from m");
            ok(
                &mut s,
                &format!("begin isolation level {isolation}; select count(*) from m"),
            );
            ok(&mut other, "insert into m values (1, 'Ann@Example.com', 1)");
            let sql = format!(
                "insert into m values (2, 'ann@example.COM', 10) on conflict (lower(email)) {action}"
            );
            let (_, e) = s.simple_query(&sql);
            assert_eq!(e.map(|e| e.code), invisible, "{isolation} {sql}");
            // (COMMIT of a failed block rolls it back.)
            ok(&mut s, "commit");
            let want = match (invisible, action.starts_with("do update")) {
                (None, true) => "11",
                _ => "1",
            };
            assert_eq!(
                rows(&mut s, "select id, email, n from m"),
                [text(&["1", "Ann@Example.com", want])],
                "{isolation} {sql}"
            );
        }
        ok(&mut s, "delete from p");
        ok(
            &mut s,
            &format!("begin isolation level {isolation}; select count(*) from p"),
        );
        ok(&mut other, "insert into p values (1, true, 1)");
        let upsert = "on conflict (k) where active do update set n = p.n + excluded.n";
        let (_, e) = s.simple_query(&format!("insert into p values (1, true, 10) {upsert}"));
        assert_eq!(e.map(|e| e.code), invisible, "{isolation}");
        if invisible.is_none() {
            ok(
                &mut s,
                &format!("insert into p values (1, false, 100) {upsert}"),
            );
        }
        ok(&mut s, "commit");
        let want = match invisible {
            None => vec![text(&["1", "t", "11"]), text(&["1", "f", "100"])],
            Some(_) => vec![text(&["1", "t", "1"])],
        };
        assert_eq!(
            rows(&mut s, "select k, active, n from p order by n"),
            want,
            "{isolation}"
        );
    }
}

// Proves a unique violation reports what PostgreSQL 15's does (compared
// through psql here): the key in DETAIL as the row gave it (`1.50`, where
// the index keeps `1.5`; a composite key's columns in index order), the
// table and the constraint (ErrorResponse fields `t` and `n`); and that
// ON CONFLICT with a target handles only its target's violations: a
// duplicate in another unique index is the error.
#[test]
fn unique_violations_name_their_key_table_and_constraint() {
    let (_dir, mut s) = session();
    ok(
        &mut s,
        "create table d (k int primary key, v text unique, n numeric unique)",
    );
    ok(
        &mut s,
        "create table d2 (a int, b text, primary key (b, a))",
    );
    ok(&mut s, "insert into d values (1, 'a b', 1.50)");
    ok(&mut s, "insert into d2 values (1, 'q')");
    for (sql, constraint, detail) in [
        (
            "insert into d values (1, 'z', 2)",
            "d_pkey",
            "Key (k)=(1) already exists.",
        ),
        (
            "insert into d values (2, 'a b', 2)",
            "d_v_key",
            "Key (v)=(a b) already exists.",
        ),
        (
            "insert into d values (2, 'y', 1.50)",
            "d_n_key",
            "Key (n)=(1.50) already exists.",
        ),
        (
            "insert into d values (2, 'y', 2), (1, 'x', 3)",
            "d_pkey",
            "Key (k)=(1) already exists.",
        ),
        (
            "insert into d2 values (1, 'q')",
            "d2_pkey",
            "Key (b, a)=(q, 1) already exists.",
        ),
        (
            "insert into d values (2, 'a b', 2) on conflict (k) do nothing",
            "d_v_key",
            "Key (v)=(a b) already exists.",
        ),
    ] {
        let e = fails(&mut s, sql);
        assert_eq!(e.code, "23505", "{sql}");
        assert_eq!(
            e.message,
            format!("duplicate key value violates unique constraint \"{constraint}\""),
            "{sql}"
        );
        assert_eq!(e.detail.as_deref(), Some(detail), "{sql}");
        assert_eq!(e.constraint(), Some(constraint), "{sql}");
        let table = if constraint.starts_with("d2") {
            "d2"
        } else {
            "d"
        };
        assert_eq!(e.table(), Some(table), "{sql}");
    }
    ok(&mut s, "update d set k = 2 where k = 1");
    ok(&mut s, "insert into d values (3, 'c', 3)");
    let e = fails(&mut s, "update d set v = 'c' where k = 2");
    assert_eq!(e.detail.as_deref(), Some("Key (v)=(c) already exists."));
    // The target's own violation is handled; so is any without a target.
    ok(
        &mut s,
        "insert into d values (2, 'y', 9) on conflict (k) do nothing",
    );
    ok(
        &mut s,
        "insert into d values (9, 'c', 9) on conflict do nothing",
    );
    assert_eq!(rows(&mut s, "select count(*) from d"), vec![text(&["2"])]);
}

// Proves NOT NULL, CHECK and foreign key violations carry what
// PostgreSQL 15's do (compared through psql here): the failing row in a
// NOT NULL violation's DETAIL, and the table with the column (field `c`)
// or the constraint (field `n`) each is about.
#[test]
fn constraint_violations_name_their_table_column_and_constraint() {
    let (_dir, mut s) = session();
    ok(
        &mut s,
        "create table c1 (id int primary key, n int not null, q int check (q > 0), t char(3))",
    );
    ok(&mut s, "create table c2 (id int references c1, x int)");
    let e = fails(&mut s, "insert into c1 values (1, null, 1, 'a')");
    assert_eq!(e.code, "23502");
    assert_eq!(
        e.detail.as_deref(),
        Some("Failing row contains (1, null, 1, a  ).")
    );
    assert_eq!(
        (e.table(), e.column(), e.constraint()),
        (Some("c1"), Some("n"), None)
    );
    let e = fails(&mut s, "insert into c1 values (1, 1, -5, 'a')");
    assert_eq!(e.code, "23514");
    assert_eq!(
        e.detail.as_deref(),
        Some("Failing row contains (1, 1, -5, a  ).")
    );
    assert_eq!(
        (e.table(), e.constraint()),
        (Some("c1"), Some("c1_q_check"))
    );
    let e = fails(&mut s, "insert into c2 values (7, 1)");
    assert_eq!(e.code, "23503");
    assert_eq!(
        (e.table(), e.constraint()),
        (Some("c2"), Some("c2_id_fkey"))
    );
    ok(&mut s, "insert into c1 values (1, 1, 1, 'a')");
    ok(&mut s, "insert into c2 values (1, 1)");
    let e = fails(&mut s, "delete from c1 where id = 1");
    assert_eq!(e.code, "23503");
    assert_eq!(
        (e.table(), e.constraint()),
        (Some("c2"), Some("c2_id_fkey"))
    );
    let e = fails(&mut s, "update c1 set n = null where id = 1");
    assert_eq!(
        e.detail.as_deref(),
        Some("Failing row contains (1, null, 1, a  ).")
    );
}

// Proves a unique index (or primary key) that the rows already there
// break is refused as PostgreSQL 15 refuses it (compared through psql
// here): `could not create unique index`, the shared key in DETAIL, the
// table and the index named.
#[test]
fn a_unique_index_over_duplicates_names_the_duplicated_key() {
    let (_dir, mut s) = session();
    ok(&mut s, "create table ui (k int, v text)");
    ok(&mut s, "insert into ui values (1, 'a'), (2, 'a'), (3, 'b')");
    for (sql, index) in [
        ("create unique index ui_v on ui (v)", "ui_v"),
        ("alter table ui add primary key (v)", "ui_pkey"),
    ] {
        let e = fails(&mut s, sql);
        assert_eq!(e.code, "23505", "{sql}");
        assert_eq!(
            e.message,
            format!("could not create unique index \"{index}\"")
        );
        assert_eq!(
            e.detail.as_deref(),
            Some("Key (v)=(a) is duplicated."),
            "{sql}"
        );
        assert_eq!(
            (e.table(), e.constraint()),
            (Some("ui"), Some(index)),
            "{sql}"
        );
    }
    ok(&mut s, "create unique index ui_k on ui (k)");
}

// Proves numeric errors as PostgreSQL 15 gives them (compared through
// psql here): a value too large for `numeric(6,2)` is 22003 with the
// DETAIL naming the bound, and text that is no number names the type
// without its modifier.
#[test]
fn numeric_errors_name_the_bound_and_the_type() {
    let (_dir, mut s) = session();
    ok(&mut s, "create table n (a numeric(6,2), b numeric(2,2))");
    let e = fails(&mut s, "insert into n (a) values (12345.678)");
    assert_eq!(
        (e.code, e.message.as_str()),
        ("22003", "numeric field overflow")
    );
    assert_eq!(
        e.detail.as_deref(),
        Some("A field with precision 6, scale 2 must round to an absolute value less than 10^4.")
    );
    let e = fails(&mut s, "insert into n (b) values (1)");
    assert_eq!(
        e.detail.as_deref(),
        Some("A field with precision 2, scale 2 must round to an absolute value less than 1.")
    );
    let e = fails(&mut s, "insert into n (a) values ('abc')");
    assert_eq!(
        (e.code, e.message.as_str()),
        ("22P02", "invalid input syntax for type numeric: \"abc\"")
    );
}

// Proves result columns of scalar subqueries are named as PostgreSQL 15
// names them (compared through psql here): after the subquery's one
// column (its alias, its column, its function), through a cast, and
// `?column?` where that is unnamed. Before, every one was `?column?`.
#[test]
fn scalar_subqueries_name_their_result_columns() {
    let (_dir, mut s) = session();
    ok(&mut s, "create table sq (a int, \"B\" int)");
    ok(&mut s, "insert into sq values (1, 2)");
    let sql = "select (select a from sq), (select a as x from sq), (select \"B\" from sq), \
               (select a + 1 from sq), (select count(*) from sq)::text, \
               (select 1 union select 2 order by 1 limit 1), (select max(a) from sq) + 1, \
               coalesce((select a from sq), 0)";
    let Some(Output::Rows { columns, .. }) = ok(&mut s, sql).pop() else {
        panic!("{sql}: no rows");
    };
    let names: Vec<&str> = columns.iter().map(|c: &Column| c.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "a", "x", "B", "?column?", "count", "?column?", "?column?", "coalesce"
        ]
    );
    // A VALUES subquery's column is `column1`, also under a WITH
    // (with.sql's `(with cte(foo) as (values(f1)) values((select foo
    // from cte)))`; before, `?column?`).
    let sql = "select (values (1)), (with c as (select 1) values ((select 2)))";
    let Some(Output::Rows { columns, .. }) = ok(&mut s, sql).pop() else {
        panic!("{sql}: no rows");
    };
    let names: Vec<&str> = columns.iter().map(|c: &Column| c.name.as_str()).collect();
    assert_eq!(names, ["column1", "column1"]);
}

// Proves TRUNCATE ... CASCADE says which tables it added, in PostgreSQL
// 15's words and order (round after round of referencing tables).
#[test]
fn truncate_cascade_names_the_tables_it_adds() {
    let (_dir, mut s) = session();
    ok(&mut s, "create table tp (id int primary key)");
    ok(
        &mut s,
        "create table tc (id int primary key, p int references tp)",
    );
    ok(&mut s, "create table tg (c int references tc)");
    ok(&mut s, "truncate tp cascade");
    assert_eq!(
        notices(&mut s),
        [
            "NOTICE:  truncate cascades to table \"tc\"",
            "NOTICE:  truncate cascades to table \"tg\""
        ]
    );
}

// Proves a column outside GROUP BY is named with its table and pointed
// at as PostgreSQL 15 does (compared through psql here): `"t.c"`, at the
// first reference, bare or qualified, in the select list, HAVING or
// ORDER BY.
#[test]
fn ungrouped_columns_are_named_with_their_table_and_position() {
    let (_dir, mut s) = session();
    ok(&mut s, "create table s1 (id int, v int)");
    for (sql, column, position) in [
        ("select id, count(*) from s1 group by v", "s1.id", 8),
        ("select s1.id, count(*) from s1 group by v", "s1.id", 8),
        ("select x.id from s1 x group by v", "x.id", 8),
        ("select v from s1 group by v having id > 1", "s1.id", 36),
        ("select v from s1 group by v order by id", "s1.id", 38),
    ] {
        let e = fails(&mut s, sql);
        assert_eq!(e.code, "42803", "{sql}");
        assert_eq!(
            e.message,
            format!(
                "column \"{column}\" must appear in the GROUP BY clause or be used in an aggregate function"
            ),
            "{sql}"
        );
        assert_eq!(e.position, Some(position), "{sql}");
    }
}

// Proves a set operation's or VALUES list's input of another type
// category is pointed at as PostgreSQL 15 points (compared through psql):
// the input, on its line; and that a text answered from a kept shape
// (`shape.rs`), whose nodes carry the shape's locations, points nowhere
// rather than at the wrong place.
#[test]
fn set_operation_type_errors_point_at_the_input() {
    let (_dir, mut s) = session();
    ok(&mut s, "create table ut (t text, i int)");
    for (sql, message, position) in [
        (
            "select t from ut union select i from ut",
            "UNION types text and integer cannot be matched",
            31,
        ),
        (
            "select t from ut except select (i) from ut",
            "EXCEPT types text and integer cannot be matched",
            33,
        ),
        (
            "select 1 union select 2\n  union select\n    'a'::text",
            "UNION types integer and text cannot be matched",
            44,
        ),
        (
            "select 1 union (select 2 union select 'a'::text)",
            "UNION types integer and text cannot be matched",
            39,
        ),
        (
            "values (1), ('a'::text)",
            "VALUES types integer and text cannot be matched",
            14,
        ),
    ] {
        let e = fails(&mut s, sql);
        assert_eq!((e.code, e.message.as_str()), ("42804", message), "{sql}");
        assert_eq!(e.position, Some(position), "{sql}");
    }
    let first = fails(&mut s, "select t, 1 from ut union select i, 2 from ut");
    assert_eq!(first.position, Some(34));
    let kept = fails(&mut s, "select t, 10 from ut union select i, 20 from ut");
    assert_eq!((kept.code, kept.position), ("42804", None));
    assert_eq!(s.parses_saved(), 1);
}

// A value of each type pg_proc and pg_operator name, as SQL.
fn sample(ty: &str) -> &'static str {
    match ty {
        "boolean" => "true",
        "bytea" => "'\\x01'::bytea",
        "bigint" => "2::bigint",
        "smallint" => "2::smallint",
        "integer" => "2",
        "real" => "2::real",
        "double precision" => "2::float8",
        "numeric" => "2::numeric",
        "text" => "'2'::text",
        "character" => "'2'::char(1)",
        "character varying" => "'2'::varchar",
        "date" => "'2020-01-02'::date",
        "timestamp without time zone" => "'2020-01-02'::timestamp",
        "timestamp with time zone" => "'2020-01-02'::timestamptz",
        "time without time zone" => "'12:34:56'::time",
        "time with time zone" => "'12:34:56+02'::timetz",
        "interval" => "'1 day'::interval",
        "uuid" => "'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid",
        "\"any\"" => "2",
        "oid" => "10::oid",
        "json" => "'[2]'::json",
        "jsonb" => "'[2]'::jsonb",
        "text[]" => "array['2']",
        other => panic!("no sample value of {other}"),
    }
}

// Proves every pg_proc row is a signature folio takes: each function is
// called with a value of each argument type (an aggregate over one row,
// a window function over the whole result) and `pg_typeof` of the call
// is the row's result type.
#[test]
fn pg_proc_rows_are_folio_signatures() {
    let (_dir, mut s) = session();
    let signatures = rows(
        &mut s,
        "select proname, prokind, pg_get_function_arguments(oid), \
         pg_get_function_result(oid) from pg_proc",
    );
    assert!(signatures.len() > 150);
    for row in signatures {
        let [Some(name), Some(kind), Some(arguments), Some(result)] = &row[..] else {
            panic!("a pg_proc row with a NULL: {row:?}");
        };
        let args: Vec<String> = arguments
            .split(", ")
            .filter(|a| !a.is_empty())
            .enumerate()
            .map(|(n, ty)| match (name.as_str(), n, ty) {
                // A pattern, its flags, escape and positions: empty, 1.
                (f, _, "text") if f.starts_with("regexp_") || f.ends_with("_escape") => {
                    "''::text".to_string()
                }
                (f, _, "integer") if f.starts_with("regexp_") => "1".to_string(),
                // A text argument that names a field, a unit or a format.
                (_, _, "text") => match name.as_str() {
                    // A time has no day.
                    "date_part" | "extract" if arguments.contains("time with") => {
                        "'hour'".to_string()
                    }
                    "date_part" | "extract" | "date_trunc" => "'day'".to_string(),
                    "to_date" | "to_timestamp" => "'2020'".to_string(),
                    "to_char" => "'YYYY'".to_string(),
                    "current_setting" => "'search_path'".to_string(),
                    "to_number" => "'9'".to_string(),
                    "pg_has_role" => "'member'".to_string(),
                    _ => "'2'::text".to_string(),
                },
                (_, _, ty) => sample(ty).to_string(),
            })
            .collect();
        let call = match (name.as_str(), args.is_empty()) {
            ("count", true) => "count(*)".to_string(),
            _ => format!("{name}({})", args.join(", ")),
        };
        let call = match kind.as_str() {
            "w" => format!("{call} over ()"),
            _ => call,
        };
        let got = rows(&mut s, &format!("select pg_typeof({call})::text"));
        assert_eq!(got, vec![vec![Some(result.clone())]], "{call}");
    }
}

// Proves every pg_operator row is an operator folio has: it is applied to
// a value of each operand type and `pg_typeof` of the result is the row's
// result type.
#[test]
fn pg_operator_rows_are_folio_operators() {
    let (_dir, mut s) = session();
    let operators = rows(
        &mut s,
        "select oprname, oprkind, format_type(oprleft, null), format_type(oprright, null), \
         format_type(oprresult, null) from pg_operator",
    );
    assert!(operators.len() > 250);
    for row in operators {
        let [Some(name), Some(kind), left, Some(right), Some(result)] = &row[..] else {
            panic!("a pg_operator row with a NULL: {row:?}");
        };
        let expr = match (kind.as_str(), left) {
            ("l", _) => format!("{name} {}", sample(right)),
            (_, Some(left)) => format!("{} {name} {}", sample(left), sample(right)),
            _ => panic!("an infix operator without a left type: {row:?}"),
        };
        let got = rows(&mut s, &format!("select pg_typeof({expr})::text"));
        assert_eq!(got, vec![vec![Some(result.clone())]], "{expr}");
    }
}

// Proves an aggregate, window or other function call that no form of the
// function fits is 42883 with PostgreSQL 15's message, hint and position
// (compared through psql), and one that several forms fit equally is
// 42725 with its own hint.
#[test]
fn calls_without_a_fitting_form_name_their_argument_types_and_hint() {
    let (_dir, mut s) = session();
    ok(&mut s, "create table ht (t text, i int)");
    let no_function = "No function matches the given name and argument types. \
                       You might need to add explicit type casts.";
    let not_unique =
        "Could not choose a best candidate function. You might need to add explicit type casts.";
    for (sql, code, message, hint, position) in [
        (
            "select variance(t) from ht",
            "42883",
            "function variance(text) does not exist",
            no_function,
            8,
        ),
        (
            "select i, max(i, 2) from ht group by i",
            "42883",
            "function max(integer, integer) does not exist",
            no_function,
            11,
        ),
        (
            "select sum(*) from ht",
            "42883",
            "function sum() does not exist",
            no_function,
            8,
        ),
        (
            "select row_number(i) over () from ht",
            "42883",
            "function row_number(integer) does not exist",
            no_function,
            8,
        ),
        (
            "select sum('1') from ht",
            "42725",
            "function sum(unknown) is not unique",
            not_unique,
            8,
        ),
        (
            "select 1, gcd(1::int2, '2')",
            "42725",
            "function gcd(smallint, unknown) is not unique",
            not_unique,
            11,
        ),
    ] {
        let e = fails(&mut s, sql);
        assert_eq!((e.code, e.message.as_str()), (code, message), "{sql}");
        assert_eq!(e.hint.as_deref(), Some(hint), "{sql}");
        assert_eq!(e.position, Some(position), "{sql}");
    }
    ok(&mut s, "insert into ht values ('a', 1)");
    let e = fails(
        &mut s,
        "select date '2024-01-01' + date '2024-01-02' from ht",
    );
    assert_eq!(
        e.hint.as_deref(),
        Some(
            "No operator matches the given name and argument types. \
             You might need to add explicit type casts."
        )
    );
}

// Proves errors the planner raises about a clause point where PostgreSQL
// 15 points (compared through psql): the DISTINCT ON expression the ORDER
// BY does not lead with, FILTER's argument, a frame's bound, its offset.
#[test]
fn clause_errors_point_at_the_expression() {
    let (_dir, mut s) = session();
    ok(&mut s, "create table t (a int, b int)");
    for (sql, code, position) in [
        ("select distinct on (a) a, b from t order by b", "42P10", 21),
        (
            "select distinct on (a, b) a, b from t order by a, 1+1, b",
            "42P10",
            24,
        ),
        ("select count(*) filter (where 1) from t", "42804", 31),
        ("select sum(a) over (rows 1 following) from t", "42P20", 26),
        (
            "select sum(a) over (rows between current row and 2 preceding) from t",
            "42P20",
            50,
        ),
        (
            "select sum(a) over (rows between a preceding and current row) from t",
            "42P10",
            34,
        ),
        (
            "select sum(a) over (order by a::text range between 1 preceding and current row) from t",
            "0A000",
            52,
        ),
        (
            "select sum(a) over (rows between true preceding and current row) from t",
            "42804",
            34,
        ),
    ] {
        let e = fails(&mut s, sql);
        assert_eq!((e.code, e.position), (code, Some(position)), "{sql}");
    }
}

// Proves statement_timeout cancels a long statement (a query, a PL/pgSQL
// loop) and a wait for a row lock with PostgreSQL's 57014 "canceling statement due to statement
// timeout", that the session carries on (the next statement is not
// canceled), that a block it fails is aborted (25P02 until ROLLBACK),
// and that SET LOCAL's timeout ends with its block.
#[test]
fn statement_timeout_cancels_long_statements_and_lock_waits() {
    let (_dir, _, db) = common::fresh();
    let mut s = Session::new(db.clone());
    let mut other = Session::new(db.clone());
    let long = "select count(*) from generate_series(1, 2000000000)";
    ok(&mut s, "set statement_timeout = '100ms'");
    let e = fails(&mut s, long);
    assert_eq!(
        (e.code, e.message.as_str()),
        ("57014", "canceling statement due to statement timeout")
    );
    assert_eq!(rows(&mut s, "select 1"), vec![text(&["1"])]);
    // A PL/pgSQL loop that would not end, with and without RETURN NEXT.
    ok(
        &mut s,
        "create function spin() returns int language plpgsql as \
         $$ begin loop end loop; end $$",
    );
    ok(
        &mut s,
        "create function rows_of(n int) returns setof int language plpgsql as \
         $$ begin for i in 1..n loop return next i; end loop; end $$",
    );
    assert_eq!(fails(&mut s, "select spin()").code, "57014");
    assert_eq!(
        fails(&mut s, "select count(*) from rows_of(2147483647)").code,
        "57014"
    );
    assert_eq!(rows(&mut s, "select 1"), vec![text(&["1"])]);

    // A wait for another transaction's row lock.
    ok(&mut s, "create table t (id int primary key, v int)");
    ok(&mut s, "insert into t values (1, 0)");
    ok(&mut other, "begin");
    ok(&mut other, "update t set v = 1 where id = 1");
    ok(&mut s, "begin");
    let e = fails(&mut s, "update t set v = 2 where id = 1");
    assert_eq!(e.message, "canceling statement due to statement timeout");
    assert_eq!(fails(&mut s, "select 1").code, "25P02");
    ok(&mut s, "rollback");
    ok(&mut other, "commit");

    // SET LOCAL: only until the block ends.
    ok(&mut s, "reset statement_timeout");
    ok(&mut s, "begin");
    ok(&mut s, "set local statement_timeout = '100ms'");
    assert_eq!(fails(&mut s, long).code, "57014");
    ok(&mut s, "rollback");
    assert_eq!(rows(&mut s, "show statement_timeout"), vec![text(&["0"])]);
    assert_eq!(rows(&mut s, "select v from t"), vec![text(&["1"])]);
}

// Proves UPDATE ... FROM and DELETE ... USING re-check the WHERE on the
// newest version of a target row another transaction changed (READ
// COMMITTED, as PostgreSQL's EvalPlanQual), joined to the other item's
// row it met: the outcome is the same whether the change waited for the
// other transaction's commit or started after it.
#[test]
fn update_from_rechecks_a_concurrently_updated_row() {
    let (_dir, _, db) = common::fresh();
    let mut s = Session::new(db.clone());
    let mut other = Session::new(db.clone());
    ok(&mut s, "create table t (id int primary key, v int)");
    ok(&mut s, "create table d (id int, k int)");
    ok(&mut s, "insert into d values (1, 1), (2, 2)");
    let cases = [
        (
            "update t set v = t.v + d.k from d where t.id = d.id and t.v < 25 returning t.id, t.v",
            vec![text(&["1", "21"])],
            vec![text(&["1", "21"]), text(&["2", "30"])],
        ),
        (
            "delete from t using d where t.id = d.id and t.v < 25 returning t.id, d.k",
            vec![text(&["1", "1"])],
            vec![text(&["2", "30"])],
        ),
    ];
    for (change, returned, left) in cases {
        ok(
            &mut s,
            "delete from t; insert into t values (1, 10), (2, 10)",
        );
        ok(
            &mut s,
            "begin; update t set v = 20 where id = 1; update t set v = 30 where id = 2",
        );
        std::thread::scope(|scope| {
            let changer = scope.spawn(|| {
                let (mut out, e) = other.simple_query(change);
                assert!(e.is_none(), "{change}: {e:?}");
                match out.pop() {
                    Some(Output::Rows { rows, .. }) => rows
                        .iter()
                        .map(|r| r.iter().map(text_output).collect::<Vec<_>>())
                        .collect::<Vec<_>>(),
                    other => panic!("{change}: {other:?}"),
                }
            });
            std::thread::sleep(std::time::Duration::from_millis(100));
            ok(&mut s, "commit");
            assert_eq!(changer.join().unwrap(), returned, "{change}");
        });
        assert_eq!(rows(&mut s, "select id, v from t order by id"), left);
    }
}

// Proves an expression index and a partial unique index keep their
// definitions, entries and checks across reopening the database, and that
// the planner uses them afterwards (their expressions are compiled again
// from the catalog's text).
#[test]
fn expression_and_partial_indexes_survive_reopening() {
    let (_dir, path, db) = common::fresh();
    let mut s = Session::new(db.clone());
    ok(
        &mut s,
        "create table u (id int primary key, email text, gone bool)",
    );
    ok(
        &mut s,
        "create unique index u_email on u (lower(email)) where not gone",
    );
    ok(
        &mut s,
        "insert into u values (1, 'A@x', false), (2, 'a@X', true)",
    );
    assert_eq!(
        fails(&mut s, "insert into u values (3, 'a@x', false)").code,
        "23505"
    );
    drop(s);
    let db = common::reopen(db, &path);
    let mut s = Session::new(db.clone());
    let e = fails(&mut s, "insert into u values (3, 'a@x', false)");
    assert_eq!(e.code, "23505");
    assert_eq!(
        e.detail.as_deref(),
        Some("Key (lower(email))=(a@x) already exists.")
    );
    ok(&mut s, "insert into u values (3, 'a@x', true)");
    ok(&mut s, "set enable_seqscan = off");
    let plan = rows(
        &mut s,
        "explain (costs off) select id from u where lower(email) = 'a@x' and not gone",
    );
    assert_eq!(
        plan,
        vec![
            vec![Some("Index Scan using u_email on u".to_string())],
            vec![Some(
                "  Index Cond: (lower(email) = 'a@x'::text)".to_string()
            )],
        ]
    );
    assert_eq!(
        rows(
            &mut s,
            "select id from u where lower(email) = 'a@x' and not gone"
        ),
        vec![vec![Some("1".to_string())]]
    );
    assert_eq!(
        rows(
            &mut s,
            "select indexdef from pg_indexes where indexname = 'u_email'"
        ),
        vec![vec![Some(
            "CREATE UNIQUE INDEX u_email ON public.u USING btree (lower(email)) WHERE (NOT gone)"
                .to_string()
        )]]
    );
}

// Proves COPY FROM follows `session_replication_role` as statements do:
// in `replica` a row whose key has no parent goes in (PostgreSQL's RI
// triggers do not fire there); back in `origin` it is 23503.
#[test]
fn copy_in_replica_mode_skips_foreign_keys() {
    let (_dir, mut s) = session();
    ok(&mut s, "create table p (id int primary key)");
    ok(&mut s, "create table c (id int, pid int references p)");
    ok(&mut s, "set session_replication_role = replica");
    ok(&mut s, "copy c from stdin");
    s.copy_data(b"1\t7\n\\.\n").unwrap();
    assert_eq!(s.copy_done().unwrap().tag(), "COPY 1");
    ok(&mut s, "reset session_replication_role");
    ok(&mut s, "copy c from stdin");
    let e = s.copy_data(b"2\t8\n\\.\n").unwrap_err();
    assert_eq!(e.code, "23503");
    assert_eq!(
        rows(&mut s, "select id, pid from c"),
        [vec![Some("1".into()), Some("7".into())]]
    );
}

#[test]
fn copy_keeps_its_triggers_session_settings() {
    // A trigger's `set_config(..., false)` during COPY FROM lasts past
    // the COPY, as a statement's: seen by the COPY's later rows (also in
    // a later CopyData message), undone when the COPY fails or its block
    // rolls back (PostgreSQL 15 gives 3, 3, 8, 3 here).
    let (_dir, mut s) = session();
    ok(&mut s, "create table t (id int)");
    ok(
        &mut s,
        "create function f() returns trigger language plpgsql as $$ begin \
         perform set_config('my.n', (coalesce(nullif(current_setting('my.n', true), ''), '0')::int \
         + new.id)::text, false); return new; end $$",
    );
    ok(
        &mut s,
        "create trigger tr before insert on t for each row execute function f()",
    );
    let n = |s: &mut Session| rows(s, "show my.n")[0][0].clone().unwrap();
    ok(&mut s, "copy t from stdin");
    s.copy_data(b"1\n").unwrap();
    s.copy_data(b"2\n\\.\n").unwrap();
    assert_eq!(s.copy_done().unwrap().tag(), "COPY 2");
    assert_eq!(n(&mut s), "3");
    ok(&mut s, "copy t from stdin");
    let e = s.copy_data(b"10\nx\n\\.\n").unwrap_err();
    assert_eq!(e.code, "22P02");
    assert_eq!(n(&mut s), "3");
    ok(&mut s, "begin");
    ok(&mut s, "copy t from stdin");
    s.copy_data(b"5\n\\.\n").unwrap();
    assert_eq!(s.copy_done().unwrap().tag(), "COPY 1");
    assert_eq!(n(&mut s), "8");
    ok(&mut s, "rollback");
    assert_eq!(n(&mut s), "3");
}

// Proves COPY FROM STDIN refuses a field holding a NUL, raw or made by
// an escape (`\000`, `\x00`), in text and CSV formats, with PostgreSQL
// 15's 22021 `invalid byte sequence for encoding "UTF8": 0x00`, and bad
// UTF-8 with the bytes PostgreSQL names; the COPY's rows are undone.
#[test]
fn copy_refuses_a_nul_in_text() {
    let (_dir, mut s) = session();
    ok(&mut s, "create table nul (k int, v text)");
    let message = "invalid byte sequence for encoding \"UTF8\": 0x00";
    for (sql, data) in [
        ("copy nul from stdin", &b"1\tok\n2\ta\\000b\n"[..]),
        ("copy nul from stdin", b"1\ta\\x00b\n"),
        ("copy nul from stdin", b"1\ta\0b\n"),
        ("copy nul from stdin csv", b"1,a\0b\n"),
    ] {
        ok(&mut s, sql);
        let e = s.copy_data(data).and_then(|()| s.copy_done().map(|_| ()));
        let e = e.unwrap_err();
        assert_eq!((e.code, e.message.as_str()), ("22021", message), "{data:?}");
    }
    ok(&mut s, "copy nul from stdin");
    let e = s.copy_data(b"1\ta\xc3(\n").unwrap_err();
    assert_eq!(
        e.message,
        "invalid byte sequence for encoding \"UTF8\": 0xc3 0x28"
    );
    assert_eq!(rows(&mut s, "select count(*) from nul"), [text(&["0"])]);
    ok(&mut s, "copy nul from stdin");
    s.copy_data(b"1\ta\\001b\n").unwrap();
    assert_eq!(s.copy_done().unwrap().tag(), "COPY 1");
}

// Proves the calls written in SQL's own syntax name their result
// columns after the function PostgreSQL 15 calls (compared through psql
// here): `trim(...)` is `btrim`, `ltrim` or `rtrim`, `substr(...)` is
// `substr`, and so on; before, each was `?column?`. Also the reserved
// words `current_schema` and `current_role`, which were "column does
// not exist".
#[test]
fn sql_syntax_calls_name_their_result_columns() {
    let (_dir, mut s) = session();
    let sql = "select trim(' a '), trim(leading 'x' from 'xa'), trim(trailing 'x' from 'ax'), \
               overlay('abc' placing 'x' from 2), ceiling(1.2), ceil(1.2), floor(1.2), \
               substring('hello' from 2 for 1), substr('hello', 2), position('l' in 'hello'), \
               current_schema, current_role, |/ 4";
    let Some(Output::Rows { columns, rows, .. }) = ok(&mut s, sql).pop() else {
        panic!("{sql}: no rows");
    };
    let names: Vec<&str> = columns.iter().map(|c: &Column| c.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "btrim",
            "ltrim",
            "rtrim",
            "overlay",
            "ceiling",
            "ceil",
            "floor",
            "substring",
            "substr",
            "position",
            "current_schema",
            "current_role",
            "?column?"
        ]
    );
    assert_eq!(rows[0][10], Value::Text("public".into()));
    assert_eq!(rows[0][11], Value::Text("postgres".into()));
}

// Proves `client_min_messages` decides which notices reach the client,
// as in PostgreSQL 15 (pg_dump's preamble sets it to `warning`): a
// NOTICE is dropped under `warning` and sent again after RESET.
#[test]
fn client_min_messages_drops_the_notices_below_it() {
    let (_dir, mut s) = session();
    ok(&mut s, "set client_min_messages = warning");
    ok(&mut s, "drop table if exists nosuch");
    assert_eq!(s.take_notices(), []);
    ok(&mut s, "reset client_min_messages");
    ok(&mut s, "drop table if exists nosuch");
    let notices = s.take_notices();
    assert_eq!(notices.len(), 1);
    assert_eq!(
        notices[0].message,
        "table \"nosuch\" does not exist, skipping"
    );
}

// Proves the server's settings are shown as the database runs with them
// (`folio serve --shared-buffers`, `--no-data-checksums`, ...), under
// PostgreSQL's names and forms, and that a session cannot change them
// (PostgreSQL 15's 55P02 messages for `postmaster` and `internal`
// settings).
#[test]
fn the_server_settings_are_the_databases_own() {
    let dir = tempfile::tempdir().unwrap();
    let options = Options {
        pool_size_bytes: 32 << 20,
        checksums: false,
        checkpoint_interval: std::time::Duration::from_secs(90),
        ..Options::default()
    };
    let db = Database::create(dir.path().join("db"), options).unwrap();
    let mut s = Session::new(Arc::new(db));
    let show = |s: &mut Session, name: &str| {
        let Some(Output::Rows { rows, .. }) = ok(s, &format!("show {name}")).pop() else {
            panic!("show {name}: no rows");
        };
        rows[0][0].clone()
    };
    assert_eq!(show(&mut s, "shared_buffers"), Value::Text("32MB".into()));
    assert_eq!(show(&mut s, "data_checksums"), Value::Text("off".into()));
    assert_eq!(
        show(&mut s, "checkpoint_timeout"),
        Value::Text("90s".into())
    );
    assert_eq!(show(&mut s, "block_size"), Value::Text("8192".into()));
    let e = fails(&mut s, "set shared_buffers = '1GB'");
    assert_eq!(
        (e.code, e.message.as_str()),
        (
            "55P02",
            "parameter \"shared_buffers\" cannot be changed without restarting the server"
        )
    );
    let e = fails(&mut s, "set data_checksums = on");
    assert_eq!(
        (e.code, e.message.as_str()),
        ("55P02", "parameter \"data_checksums\" cannot be changed")
    );
    let Some(Output::Rows { rows, .. }) = ok(
        &mut s,
        "select setting, unit from pg_settings where name = 'shared_buffers'",
    )
    .pop() else {
        panic!("pg_settings: no rows");
    };
    assert_eq!(
        rows[0],
        [Value::Text("4096".into()), Value::Text("8kB".into())]
    );
}
