//! Roles over the wire (tokio-postgres): a created role connects, is
//! refused what it was not granted (42501), and the grant lets the same
//! statement, prepared before it, run; NOLOGIN and SCRAM.

mod common;

use folio_db::{Database, Options};
use folio_server::{Server, ServerConfig};
use std::sync::Arc;

/// A client of `server` as `user` (with `password`, if any).
async fn connect_as(
    server: &Server,
    user: &str,
    password: Option<&str>,
) -> Result<tokio_postgres::Client, tokio_postgres::Error> {
    let addr = server.addr();
    let mut config = format!(
        "host={} port={} user={user} dbname=postgres",
        addr.ip(),
        addr.port()
    );
    if let Some(p) = password {
        config.push_str(&format!(" password={p}"));
    }
    let (client, connection) = tokio_postgres::connect(&config, tokio_postgres::NoTls).await?;
    tokio::spawn(async move {
        let _ = connection.await;
    });
    Ok(client)
}

fn code(e: &tokio_postgres::Error) -> Option<String> {
    e.code().map(|c| c.code().to_string())
}

fn message(e: &tokio_postgres::Error) -> String {
    e.as_db_error()
        .map(|d| d.message().to_string())
        .unwrap_or_default()
}

// Proves a created LOGIN role connects, sees `current_user` as itself,
// gets 42501 for what it lacks (a statement prepared then too), and
// that a GRANT made meanwhile by the superuser lets the same prepared
// statement run; a REVOKE refuses it again; DROP TABLE by it is "must be
// owner"; a NOLOGIN role is refused at startup (28000).
#[tokio::test(flavor = "current_thread")]
async fn a_created_role_is_refused_until_granted() {
    let (_dir, server) = common::start(&ServerConfig {
        listen: "127.0.0.1:0".parse().unwrap(),
        max_connections: 8,
        ..ServerConfig::default()
    });
    let server = server.unwrap();
    let admin = common::connect_tcp(&server).await;
    admin
        .batch_execute(
            "create role app login; create role locked nologin; \
             create table t (id int primary key, v text); insert into t values (1, 'one')",
        )
        .await
        .unwrap();
    let app = connect_as(&server, "app", None).await.unwrap();
    let who = app
        .query_one("select current_user, session_user", &[])
        .await
        .unwrap();
    assert_eq!(
        (who.get::<_, String>(0), who.get::<_, String>(1)),
        ("app".into(), "app".into())
    );

    let select = app.prepare("select v from t where id = $1").await.unwrap();
    let e = app.query(&select, &[&1i32]).await.unwrap_err();
    assert_eq!(code(&e).as_deref(), Some("42501"));
    assert_eq!(message(&e), "permission denied for table t");
    let e = app
        .execute("insert into t values (2, 'two')", &[])
        .await
        .unwrap_err();
    assert_eq!(code(&e).as_deref(), Some("42501"));

    admin
        .batch_execute("grant select, insert on t to app")
        .await
        .unwrap();
    let rows = app.query(&select, &[&1i32]).await.unwrap();
    assert_eq!(rows[0].get::<_, String>(0), "one");
    app.execute("insert into t values (2, 'two')", &[])
        .await
        .unwrap();
    let e = app.execute("delete from t", &[]).await.unwrap_err();
    assert_eq!(code(&e).as_deref(), Some("42501"));
    let e = app.batch_execute("drop table t").await.unwrap_err();
    assert_eq!(message(&e), "must be owner of table t");

    admin
        .batch_execute("revoke select on t from app")
        .await
        .unwrap();
    let e = app.query(&select, &[&1i32]).await.unwrap_err();
    assert_eq!(code(&e).as_deref(), Some("42501"));

    let Err(e) = connect_as(&server, "locked", None).await else {
        panic!("admitted");
    };
    assert_eq!(code(&e).as_deref(), Some("28000"));
    assert_eq!(message(&e), "role \"locked\" is not permitted to log in");
    let Err(e) = connect_as(&server, "nobody", None).await else {
        panic!("admitted");
    };
    assert_eq!(code(&e).as_deref(), Some("28000"));
}

// Proves a created role with a password connects under
// `--auth scram-sha-256` with that password only.
#[tokio::test(flavor = "current_thread")]
async fn a_created_role_authenticates_with_scram() {
    let dir = tempfile::tempdir().unwrap();
    let db = Arc::new(Database::create(dir.path().join("db"), Options::default()).unwrap());
    let mut session = folio_sql::Session::new(db.clone());
    let (_, error) = session.simple_query("create user app password 'pencil'");
    assert!(error.is_none(), "{error:?}");
    let server = Server::start(
        db,
        &ServerConfig {
            listen: "127.0.0.1:0".parse().unwrap(),
            max_connections: 8,
            auth: folio_server::Auth::ScramSha256,
            ..ServerConfig::default()
        },
    )
    .unwrap();
    let app = connect_as(&server, "app", Some("pencil")).await.unwrap();
    let row = app.query_one("select current_user", &[]).await.unwrap();
    assert_eq!(row.get::<_, String>(0), "app");
    let Err(e) = connect_as(&server, "app", Some("wrong")).await else {
        panic!("admitted");
    };
    assert_eq!(code(&e).as_deref(), Some("28P01"));
}
