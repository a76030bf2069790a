//! `folio serve` driven by a real Rust driver, `tokio-postgres`: its
//! extended protocol with binary parameters and results, statements
//! described (parameter types inferred, result columns), prepared
//! statements reused, transactions, errors with SQLSTATEs, the simple
//! query protocol.

mod common;

use common::connect_tcp as connect;
use folio_db::{Database, Options};
use folio_server::{Server, ServerConfig};
use std::sync::Arc;

/// The first connection on a thread of its own, the others on the pool's
/// workers.
fn server() -> (tempfile::TempDir, Server) {
    common::pool_server(1)
}

// Proves a standard Rust driver works against folio: typed parameters in
// binary (int4, int8, text, bool, float8, numeric as text), binary result
// decoding into Rust types, a prepared statement run many times, a
// transaction rolled back, and SQLSTATEs on errors.
#[tokio::test(flavor = "current_thread")]
async fn tokio_postgres_runs_against_folio() {
    let (_dir, server) = server();
    let client = connect(&server).await;
    client
        .batch_execute(
            "create table acct (id int primary key, owner text not null, balance bigint, \
             active bool, rate float8)",
        )
        .await
        .unwrap();
    let insert = client
        .prepare("insert into acct values ($1, $2, $3, $4, $5)")
        .await
        .unwrap();
    assert_eq!(
        insert.params(),
        &[
            tokio_postgres::types::Type::INT4,
            tokio_postgres::types::Type::TEXT,
            tokio_postgres::types::Type::INT8,
            tokio_postgres::types::Type::BOOL,
            tokio_postgres::types::Type::FLOAT8,
        ]
    );
    for id in 1..=20i32 {
        let n = client
            .execute(
                &insert,
                &[
                    &id,
                    &format!("owner {id}"),
                    &(i64::from(id) * 100),
                    &(id % 2 == 0),
                    &(f64::from(id) / 4.0),
                ],
            )
            .await
            .unwrap();
        assert_eq!(n, 1);
    }
    let get = client
        .prepare("select owner, balance, active, rate from acct where id = $1")
        .await
        .unwrap();
    assert_eq!(get.columns().len(), 4);
    let row = client.query_one(&get, &[&7i32]).await.unwrap();
    assert_eq!(row.get::<_, String>(0), "owner 7");
    assert_eq!(row.get::<_, i64>(1), 700);
    assert!(!row.get::<_, bool>(2));
    assert_eq!(row.get::<_, f64>(3), 1.75);
    // Aggregates and ranges with binary results.
    let row = client
        .query_one(
            "select count(*), sum(balance) from acct where id between $1 and $2",
            &[&5i32, &9i32],
        )
        .await
        .unwrap();
    assert_eq!(row.get::<_, i64>(0), 5);
    // sum(int8) is numeric: read as text through the simple protocol.
    let sum = client
        .simple_query("select sum(balance) from acct where id between 5 and 9")
        .await
        .unwrap();
    let text = sum.iter().find_map(|m| match m {
        tokio_postgres::SimpleQueryMessage::Row(r) => r.get(0).map(str::to_string),
        _ => None,
    });
    assert_eq!(text.as_deref(), Some("3500"));
    // A transaction rolled back leaves nothing.
    client.batch_execute("begin").await.unwrap();
    client
        .execute(
            "update acct set balance = balance + $1 where id = $2",
            &[&1000i64, &1i32],
        )
        .await
        .unwrap();
    client.batch_execute("rollback").await.unwrap();
    let row = client.query_one(&get, &[&1i32]).await.unwrap();
    assert_eq!(row.get::<_, i64>(1), 100);
    // Errors carry PostgreSQL's SQLSTATEs; the connection goes on.
    let e = client
        .execute(&insert, &[&1i32, &"dup", &0i64, &true, &0.0f64])
        .await
        .unwrap_err();
    assert_eq!(
        e.code(),
        Some(&tokio_postgres::error::SqlState::UNIQUE_VIOLATION)
    );
    // ... with the key, the schema, the table and the constraint as
    // PostgreSQL gives them (fields D, s, t, n), which drivers read.
    let db = e.as_db_error().expect("an ErrorResponse");
    assert_eq!(db.detail(), Some("Key (id)=(1) already exists."));
    assert_eq!(
        (db.schema(), db.table(), db.constraint()),
        (Some("public"), Some("acct"), Some("acct_pkey"))
    );
    let e = client
        .query("select nosuch from acct", &[])
        .await
        .unwrap_err();
    assert_eq!(
        e.code(),
        Some(&tokio_postgres::error::SqlState::UNDEFINED_COLUMN)
    );
    // ... and PostgreSQL's position of what they point at (psql's caret):
    // the missing column, the token a syntax error stopped at.
    use tokio_postgres::error::ErrorPosition;
    let position = |e: &tokio_postgres::Error| e.as_db_error().and_then(|d| d.position().cloned());
    assert_eq!(position(&e), Some(ErrorPosition::Original(8)));
    let e = client
        .batch_execute("select 1;\nselect 2 frm acct")
        .await
        .unwrap_err();
    assert_eq!(
        e.as_db_error().map(|d| d.message()),
        Some("syntax error at or near \"acct\"")
    );
    assert_eq!(position(&e), Some(ErrorPosition::Original(24)));
    let rows = client
        .query(
            "select id from acct where active order by id desc limit 3",
            &[],
        )
        .await
        .unwrap();
    let ids: Vec<i32> = rows.iter().map(|r| r.get(0)).collect();
    assert_eq!(ids, [20, 18, 16]);
    // Arrays in PostgreSQL's binary format, NULL elements included.
    let row = client
        .query_one(
            "select array(select id from acct where id <= 3 order by id), \
             array['a', null, 'b c'], array[]::int8[]",
            &[],
        )
        .await
        .unwrap();
    assert_eq!(row.get::<_, Vec<i32>>(0), [1, 2, 3]);
    assert_eq!(
        row.get::<_, Vec<Option<String>>>(1),
        [Some("a".to_string()), None, Some("b c".to_string())]
    );
    assert_eq!(row.get::<_, Vec<i64>>(2), Vec::<i64>::new());
    server.stop();
}

// Proves `--auth scram-sha-256`: a driver that knows the password set by
// ALTER ROLE gets in through SCRAM-SHA-256 (tokio-postgres checks the
// server's signature too); a wrong password, and a role without one, get
// PostgreSQL's 28P01.
#[tokio::test(flavor = "current_thread")]
async fn scram_sha_256_admits_the_password_only() {
    let dir = tempfile::tempdir().unwrap();
    let db = Arc::new(Database::create(dir.path().join("db"), Options::default()).unwrap());
    let config = ServerConfig {
        listen: "127.0.0.1:0".parse().unwrap(),
        max_connections: 8,
        auth: folio_server::Auth::ScramSha256,
        ..ServerConfig::default()
    };
    let server = Server::start(db.clone(), &config).unwrap();
    let addr = server.addr();
    let attempt = |password: &str| {
        format!(
            "host={} port={} user=postgres dbname=postgres password={password}",
            addr.ip(),
            addr.port()
        )
    };
    let refused = |e: tokio_postgres::Error| e.code().map(|c| c.code().to_string());
    // No password set yet: refused like a wrong one.
    let e = tokio_postgres::connect(&attempt("pencil"), tokio_postgres::NoTls)
        .await
        .err()
        .expect("refused");
    assert_eq!(refused(e).as_deref(), Some("28P01"));
    let mut session = folio_sql::Session::new(db.clone());
    let (_, error) = session.simple_query("alter role postgres password 'pencil'");
    assert!(error.is_none(), "{error:?}");
    let (client, connection) = tokio_postgres::connect(&attempt("pencil"), tokio_postgres::NoTls)
        .await
        .unwrap();
    tokio::spawn(async move {
        let _ = connection.await;
    });
    let row = client.query_one("select 1 + 1", &[]).await.unwrap();
    assert_eq!(row.get::<_, i32>(0), 2);
    let e = tokio_postgres::connect(&attempt("wrong"), tokio_postgres::NoTls)
        .await
        .err()
        .expect("refused");
    assert_eq!(refused(e).as_deref(), Some("28P01"));
}

// Proves the startup packet's settings reach the session, as PostgreSQL
// applies them: `options` with `-c name=value` (what PGOPTIONS sends) and
// a parameter such as application_name; a bad value ends the connection
// with PostgreSQL's error, and a setting folio does not model is ignored.
#[tokio::test(flavor = "current_thread")]
async fn startup_options_and_parameters_are_settings() {
    let (_dir, server) = server();
    let addr = server.addr();
    let connect = |extra: &str| {
        let config = format!(
            "host={} port={} user=postgres dbname=postgres {extra}",
            addr.ip(),
            addr.port()
        );
        async move { tokio_postgres::connect(&config, tokio_postgres::NoTls).await }
    };
    let (client, connection) = connect(
        "options='-c synchronous_commit=off --enable-seqscan=off -c geqo=off' application_name=probe",
    )
    .await
    .unwrap();
    tokio::spawn(async move {
        let _ = connection.await;
    });
    for (name, want) in [
        ("synchronous_commit", "off"),
        ("enable_seqscan", "off"),
        ("application_name", "probe"),
    ] {
        let row = client
            .query_one(&format!("show {name}"), &[])
            .await
            .unwrap();
        assert_eq!(row.get::<_, String>(0), want, "{name}");
    }
    // RESET goes back to the startup value, as PostgreSQL's does.
    client
        .batch_execute("set synchronous_commit = on; set enable_seqscan = on; reset all")
        .await
        .unwrap();
    let row = client
        .query_one("show synchronous_commit", &[])
        .await
        .unwrap();
    assert_eq!(row.get::<_, String>(0), "off", "after RESET ALL");
    client
        .batch_execute("set enable_seqscan = on; reset enable_seqscan")
        .await
        .unwrap();
    let row = client.query_one("show enable_seqscan", &[]).await.unwrap();
    assert_eq!(row.get::<_, String>(0), "off", "after RESET");
    let e = connect("options='-c synchronous_commit=maybe'")
        .await
        .err()
        .expect("a bad value ends the startup");
    assert_eq!(e.code().map(|c| c.code()), Some("22023"), "{e}");
    let e = connect("options='-x'").await.err().expect("not a setting");
    assert_eq!(e.code().map(|c| c.code()), Some("42601"), "{e}");
}

// Proves SERIALIZABLE refuses write skew between two connections as
// PostgreSQL does: both check that someone stays on call and each takes
// a different doctor off; the first commit wins, the second fails with
// 40001, PostgreSQL's message, "Reason code" detail and retry hint, and a
// retry sees the first's change and keeps a doctor on call.
#[tokio::test(flavor = "current_thread")]
async fn serializable_refuses_write_skew_between_connections() {
    let (_dir, server) = server();
    let c1 = connect(&server).await;
    let c2 = connect(&server).await;
    c1.batch_execute(
        "create table doctors (name text primary key, on_call bool not null); \
         insert into doctors values ('alice', true), ('bob', true)",
    )
    .await
    .unwrap();
    let on_call = "select count(*) from doctors where on_call";
    for c in [&c1, &c2] {
        c.batch_execute("begin isolation level serializable")
            .await
            .unwrap();
        let n: i64 = c.query_one(on_call, &[]).await.unwrap().get(0);
        assert_eq!(n, 2);
    }
    c1.batch_execute("update doctors set on_call = false where name = 'alice'")
        .await
        .unwrap();
    c2.batch_execute("update doctors set on_call = false where name = 'bob'")
        .await
        .unwrap();
    c1.batch_execute("commit").await.unwrap();
    let e = c2.batch_execute("commit").await.unwrap_err();
    let db = e.as_db_error().expect("an ErrorResponse");
    assert_eq!(
        *db.code(),
        tokio_postgres::error::SqlState::T_R_SERIALIZATION_FAILURE
    );
    assert_eq!(
        db.message(),
        "could not serialize access due to read/write dependencies among transactions"
    );
    assert!(
        db.detail()
            .unwrap()
            .starts_with("Reason code: Canceled on identification as a pivot")
    );
    assert_eq!(db.hint(), Some("The transaction might succeed if retried."));
    // The retry sees alice off call and leaves bob on.
    c2.batch_execute("begin isolation level serializable")
        .await
        .unwrap();
    let n: i64 = c2.query_one(on_call, &[]).await.unwrap().get(0);
    assert_eq!(n, 1);
    c2.batch_execute("commit").await.unwrap();
}
