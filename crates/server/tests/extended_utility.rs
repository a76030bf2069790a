//! Utility statements through the extended protocol (Parse, Bind,
//! Execute: what tokio-postgres's `execute`, JDBC and most drivers send)
//! run as through a simple query, as PostgreSQL runs them: RESET, SET,
//! SHOW, VACUUM, ANALYZE, CHECKPOINT, COMMENT, ALTER SEQUENCE, REINDEX,
//! CLUSTER, materialized views, SET CONSTRAINTS, DISCARD ALL, COPY TO
//! STDOUT.

mod common;

use futures_util::TryStreamExt;

/// The SHOW of setting `name`, through the extended protocol.
async fn show(client: &tokio_postgres::Client, name: &str) -> String {
    let row = client
        .query_one(&format!("show {name}"), &[])
        .await
        .unwrap();
    row.get(0)
}

// Proves RESET name, RESET ALL, SET, SHOW and SHOW ALL work through
// Parse/Bind/Execute (RESET was 0A000 there), in a block and outside
// one, and that a reset setting goes back to the session's default.
#[tokio::test(flavor = "current_thread")]
async fn settings_statements_run_through_the_extended_protocol() {
    let (_dir, server) = common::pool_server(1);
    let client = common::connect_tcp(&server).await;
    client
        .execute("set statement_timeout = '5s'", &[])
        .await
        .unwrap();
    assert_eq!(show(&client, "statement_timeout").await, "5s");
    client
        .execute("reset statement_timeout", &[])
        .await
        .unwrap();
    assert_eq!(show(&client, "statement_timeout").await, "0");
    client
        .execute("set application_name = 'probe'", &[])
        .await
        .unwrap();
    client.execute("set app.user_id = '7'", &[]).await.unwrap();
    client.execute("reset all", &[]).await.unwrap();
    assert_eq!(show(&client, "application_name").await, "");
    assert_eq!(show(&client, "app.user_id").await, "");
    // In a block: the RESET is undone with it.
    client
        .execute("set statement_timeout = '5s'", &[])
        .await
        .unwrap();
    client.execute("begin", &[]).await.unwrap();
    client
        .execute("reset statement_timeout", &[])
        .await
        .unwrap();
    assert_eq!(show(&client, "statement_timeout").await, "0");
    client.execute("rollback", &[]).await.unwrap();
    assert_eq!(show(&client, "statement_timeout").await, "5s");
    let e = client
        .execute("reset no_such_setting", &[])
        .await
        .unwrap_err();
    assert_eq!(e.code().map(|c| c.code()), Some("42704"), "{e}");
    // SHOW ALL: name, setting as SHOW prints it, description (the
    // server's max_connections among them).
    let rows = client.query("show all", &[]).await.unwrap();
    let columns: Vec<&str> = rows[0].columns().iter().map(|c| c.name()).collect();
    assert_eq!(columns, ["name", "setting", "description"]);
    let row = |name: &str| {
        let row = rows.iter().find(|r| r.get::<_, String>(0) == name).unwrap();
        (row.get::<_, String>(1), row.get::<_, String>(2))
    };
    assert_eq!(
        row("statement_timeout"),
        (
            "5s".to_string(),
            "Sets the maximum allowed duration of any statement.".to_string()
        )
    );
    assert_eq!(row("max_connections").0, "8");
}

// Proves the other utility statements folio parses itself run through
// the extended protocol: each returns its command tag's row count 0 and
// does what it does through a simple query; VACUUM and CLUSTER of every
// table (which refuse a block) run alone when they open a pipeline, and
// are 25001 inside a block; COPY TO STDOUT streams its rows; COPY FROM
// STDIN is refused with 0A000 at Parse.
#[tokio::test(flavor = "current_thread")]
async fn utility_statements_run_through_the_extended_protocol() {
    let (_dir, server) = common::pool_server(1);
    let client = common::connect_tcp(&server).await;
    client
        .batch_execute(
            "create table t (id int primary key, v text); \
             insert into t values (1, 'a'), (2, 'b'); \
             create sequence s",
        )
        .await
        .unwrap();
    for statement in [
        "vacuum t",
        "vacuum",
        "analyze t",
        "vacuum full t",
        "checkpoint",
        "comment on table t is 'the table'",
        "alter sequence s restart with 10",
        "reindex table t",
        "cluster t using t_pkey",
        "cluster",
        "create materialized view m as select id from t",
        "refresh materialized view m",
        "alter materialized view m rename to m2",
        "discard all",
    ] {
        client
            .execute(statement, &[])
            .await
            .unwrap_or_else(|e| panic!("{statement}: {e}"));
    }
    let row = client
        .query_one("select obj_description('t'::regclass, 'pg_class')", &[])
        .await
        .unwrap();
    assert_eq!(row.get::<_, String>(0), "the table");
    let row = client.query_one("select nextval('s')", &[]).await.unwrap();
    assert_eq!(row.get::<_, i64>(0), 10);
    let row = client
        .query_one("select count(*) from m2", &[])
        .await
        .unwrap();
    assert_eq!(row.get::<_, i64>(0), 2);

    client.execute("begin", &[]).await.unwrap();
    client
        .execute("set constraints all deferred", &[])
        .await
        .unwrap();
    let e = client.execute("vacuum t", &[]).await.unwrap_err();
    assert_eq!(e.code().map(|c| c.code()), Some("25001"), "{e}");
    client.execute("rollback", &[]).await.unwrap();

    let lines: Vec<bytes::Bytes> = client
        .copy_out("copy t to stdout")
        .await
        .unwrap()
        .try_collect()
        .await
        .unwrap();
    assert_eq!(
        lines,
        [&b"1\ta\n"[..], b"2\tb\n"].map(bytes::Bytes::from_static)
    );
    let e = client
        .copy_in::<_, bytes::Bytes>("copy t from stdin")
        .await
        .err()
        .expect("COPY FROM STDIN is refused");
    assert_eq!(e.code().map(|c| c.code()), Some("0A000"), "{e}");
    // The connection goes on.
    let row = client
        .query_one("select count(*) from t", &[])
        .await
        .unwrap();
    assert_eq!(row.get::<_, i64>(0), 2);
}

// Proves CALL runs through the extended protocol as PostgreSQL runs it:
// Describe types its `$n` arguments by the procedure's arguments in
// their places and reports the OUT / INOUT columns, whose row Execute
// returns; a CALL without them returns no rows.
#[tokio::test(flavor = "current_thread")]
async fn call_runs_through_the_extended_protocol() {
    let (_dir, server) = common::pool_server(1);
    let client = common::connect_tcp(&server).await;
    client
        .batch_execute(
            "create procedure p(a int, inout b text) language plpgsql \
             as $$ begin b := b || a; end $$; \
             create table call_log (v int); \
             create procedure q(v int) language sql as $$ insert into call_log values (v) $$",
        )
        .await
        .unwrap();
    let row = client
        .query_one("call p($1, $2)", &[&7i32, &"x"])
        .await
        .unwrap();
    assert_eq!(row.columns().len(), 1);
    assert_eq!(row.get::<_, String>("b"), "x7");
    assert_eq!(client.execute("call q($1)", &[&5i32]).await.unwrap(), 0);
    let v: i32 = client
        .query_one("select v from call_log", &[])
        .await
        .unwrap()
        .get(0);
    assert_eq!(v, 5);
}
