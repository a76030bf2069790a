//! What the tests that drive `folio serve` through tokio-postgres share:
//! a server on a new database, and a connected client.
#![allow(dead_code)]

use folio_db::{Database, Options};
use folio_server::{Execution, Server, ServerConfig};
use std::sync::Arc;

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
