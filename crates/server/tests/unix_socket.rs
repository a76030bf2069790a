//! Local connections over a Unix-domain socket, as PostgreSQL's
//! `unix_socket_directories` serves them: `DIR/.s.PGSQL.PORT` beside the
//! TCP port, found by a driver given the directory as its host; the file
//! removed at stop, a stale one replaced, a live one refused.

mod common;

use common::connect;
use folio_db::{Database, Options};
use folio_server::{Execution, Server, ServerConfig};
use std::path::Path;
use std::sync::{Arc, Mutex};

/// The file's tests run one at a time: the second reserves a free TCP port
/// by binding port 0 and releasing it, and a server the first starts on
/// port 0 meanwhile could be handed that same port.
static SERIAL: Mutex<()> = Mutex::new(());

fn server(sockets: &Path, execution: Execution) -> (tempfile::TempDir, std::io::Result<Server>) {
    common::start(&ServerConfig {
        listen: "127.0.0.1:0".parse().unwrap(),
        unix_socket_directories: vec![sockets.into()],
        max_connections: 8,
        execution,
        ..ServerConfig::default()
    })
}

async fn count(client: &tokio_postgres::Client) -> i64 {
    client
        .query_one("select count(*) from t", &[])
        .await
        .unwrap()
        .get(0)
}

#[test]
fn clients_connect_through_the_unix_socket_beside_tcp() {
    let _serial = SERIAL
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(connect_through_both());
}

async fn connect_through_both() {
    let sockets = tempfile::tempdir().unwrap();
    for execution in [Execution::Thread, Execution::default()] {
        let (_dir, server) = server(sockets.path(), execution);
        let server = server.unwrap();
        let port = server.addr().port();
        let file = sockets.path().join(format!(".s.PGSQL.{port}"));
        assert_eq!(server.unix_sockets(), vec![file.clone()]);
        let local = connect(sockets.path().to_str().unwrap(), port).await;
        local
            .batch_execute("create table t (k int); insert into t values (1), (2)")
            .await
            .unwrap();
        // The same database over TCP.
        let tcp = connect("127.0.0.1", port).await;
        assert_eq!(count(&tcp).await, 2);
        assert_eq!(count(&local).await, 2);
        drop((local, tcp));
        server.stop();
        assert!(!file.exists(), "the socket file outlived the server");
    }
}

#[test]
fn a_stale_socket_file_is_replaced_and_a_live_one_refused() {
    let _serial = SERIAL
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    let sockets = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let db = Arc::new(Database::create(dir.path().join("db"), Options::default()).unwrap());
    // A free TCP port, and another process's live socket at its name.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let file = sockets.path().join(format!(".s.PGSQL.{port}"));
    let live = std::os::unix::net::UnixListener::bind(&file).unwrap();
    let config = ServerConfig {
        listen: format!("127.0.0.1:{port}").parse().unwrap(),
        unix_socket_directories: vec![sockets.path().into()],
        ..ServerConfig::default()
    };
    let refused = Server::start(db.clone(), &config).unwrap_err();
    assert_eq!(refused.kind(), std::io::ErrorKind::AddrInUse, "{refused}");
    assert!(file.exists(), "a refused start removed a live socket");
    // Its listener gone (a crash), the file stays behind, stale.
    drop(live);
    assert!(file.exists());
    let server = Server::start(db, &config).unwrap();
    assert_eq!(server.unix_sockets(), vec![file.clone()]);
    assert!(std::os::unix::net::UnixStream::connect(&file).is_ok());
    server.stop();
    assert!(!file.exists(), "the socket file outlived the server");
}
