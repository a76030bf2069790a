//! What the tests that drive `folio serve` through tokio-postgres share:
//! a server on a new database, and a connected client.
#![allow(dead_code)]

use folio_db::{Database, Options};
use folio_server::{Execution, Server, ServerConfig};
use std::error::Error;
use std::sync::Arc;
use tokio_postgres::types::{FromSql, IsNull, ToSql, Type, to_sql_checked};

/// A new database in a temporary directory (kept while the directory
/// lives) served with `config`.
pub fn start(config: &ServerConfig) -> (tempfile::TempDir, std::io::Result<Server>) {
    let dir = tempfile::tempdir().unwrap();
    let db = Database::create(dir.path().join("db"), Options::default()).unwrap();
    let server = Server::start(Arc::new(db), config);
    (dir, server)
}

/// A server on loopback whose first `own_threads` connections get
/// threads of their own, the others the pool's 2 workers.
pub fn pool_server(own_threads: usize) -> (tempfile::TempDir, Server) {
    let (dir, server) = start(&ServerConfig {
        listen: "127.0.0.1:0".parse().unwrap(),
        max_connections: 8,
        execution: Execution::Pool {
            workers: 2,
            own_threads: Some(own_threads),
        },
        ..ServerConfig::default()
    });
    (dir, server.unwrap())
}

/// A client of the server at `host` (an address, or a socket directory)
/// and `port`, as user and database `postgres`; its connection runs as a
/// task of the test's runtime.
pub async fn connect(host: &str, port: u16) -> tokio_postgres::Client {
    connect_config(&format!(
        "host={host} port={port} user=postgres dbname=postgres"
    ))
    .await
}

/// A client of the server `config` (a libpq-style connection string)
/// names; its connection runs as a task of the test's runtime.
pub async fn connect_config(config: &str) -> tokio_postgres::Client {
    let (client, connection) = tokio_postgres::connect(config, tokio_postgres::NoTls)
        .await
        .unwrap();
    tokio::spawn(async move {
        let _ = connection.await;
    });
    client
}

/// A client of `server` over TCP.
pub async fn connect_tcp(server: &Server) -> tokio_postgres::Client {
    let addr = server.addr();
    connect(&addr.ip().to_string(), addr.port()).await
}

/// A value's binary form as the server sent it, or as a parameter is
/// sent, of any type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Raw(pub Vec<u8>);

impl<'a> FromSql<'a> for Raw {
    fn from_sql(_: &Type, raw: &'a [u8]) -> Result<Raw, Box<dyn Error + Sync + Send>> {
        Ok(Raw(raw.to_vec()))
    }

    fn accepts(_: &Type) -> bool {
        true
    }
}

impl ToSql for Raw {
    fn to_sql(
        &self,
        _: &Type,
        out: &mut tokio_postgres::types::private::BytesMut,
    ) -> Result<IsNull, Box<dyn Error + Sync + Send>> {
        out.extend_from_slice(&self.0);
        Ok(IsNull::No)
    }

    fn accepts(_: &Type) -> bool {
        true
    }

    to_sql_checked!();
}

/// The bytes a hex string spells.
pub fn hex(text: &str) -> Vec<u8> {
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&text[i..i + 2], 16).unwrap())
        .collect()
}

/// Asserts that each `select LITERAL` comes back typed with the oid and
/// carrying the binary bytes (hex) PostgreSQL's send function gives for
/// the same value.
pub async fn assert_binary_results(client: &tokio_postgres::Client, cases: &[(&str, u32, &str)]) {
    for &(literal, oid, bytes) in cases {
        let row = client
            .query_one(&format!("select {literal}"), &[])
            .await
            .unwrap();
        assert_eq!(row.columns()[0].type_().oid(), oid, "{literal}");
        assert_eq!(row.get::<_, Raw>(0), Raw(hex(bytes)), "{literal}");
    }
}
