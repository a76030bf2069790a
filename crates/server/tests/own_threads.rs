//! The pool's threads of their own (`pool.rs` `Pool::crowded`): a
//! connection keeps a thread of its own only while the workers serve no
//! other connection; once they do, it moves to them between requests and
//! goes on there, so that every connection is served alike. Its own file:
//! the test counts this process's connection threads by name.

mod common;

use common::connect_tcp as connect;
use folio_server::Server;
use std::time::Duration;

/// The first connection on a thread of its own, the others on the pool's
/// workers.
fn server() -> (tempfile::TempDir, Server) {
    common::pool_server(1)
}

/// Threads of this process serving a connection of their own.
fn own_threads() -> usize {
    std::fs::read_dir("/proc/self/task")
        .unwrap()
        .filter_map(|task| std::fs::read_to_string(task.ok()?.path().join("comm")).ok())
        .filter(|name| name.starts_with("folio-conn"))
        .count()
}

/// Waits (at most 30 s) until `own_threads()` is `n`.
async fn until_own_threads(n: usize) {
    for _ in 0..3000 {
        if own_threads() == n {
            return;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(own_threads(), n, "connection threads");
}

async fn one(client: &tokio_postgres::Client, sql: &str) -> i64 {
    client.query_one(sql, &[]).await.unwrap().get(0)
}

#[tokio::test(flavor = "current_thread")]
async fn a_connection_on_its_own_thread_moves_to_the_workers_when_they_serve_others() {
    let (_dir, server) = server();
    let a = connect(&server).await;
    a.batch_execute("create table t (k int8 primary key); insert into t values (1), (2)")
        .await
        .unwrap();
    until_own_threads(1).await;
    // b is served by the workers (one own thread at most): a moves to them
    // after its next request, in the middle of its transaction.
    a.batch_execute("begin; insert into t values (3)")
        .await
        .unwrap();
    let b = connect(&server).await;
    assert_eq!(one(&b, "select count(*) from t").await, 2);
    assert_eq!(one(&a, "select count(*) from t").await, 3);
    until_own_threads(0).await;
    // Its session came along: the transaction is still open.
    a.batch_execute("insert into t values (4); commit")
        .await
        .unwrap();
    assert_eq!(one(&b, "select count(*) from t").await, 4);
    // While the workers serve connections, a new one goes to them too.
    let c = connect(&server).await;
    assert_eq!(one(&c, "select count(*) from t").await, 4);
    assert_eq!(own_threads(), 0);
    // Once the workers serve none, a new connection has its own thread
    // again.
    drop((a, b, c));
    tokio::time::sleep(Duration::from_millis(100)).await;
    let mut d = None;
    for _ in 0..300 {
        let client = connect(&server).await;
        assert_eq!(one(&client, "select count(*) from t").await, 4);
        if own_threads() == 1 {
            d = Some(client);
            break;
        }
        // The workers had not yet seen the others' ends.
        drop(client);
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert!(d.is_some(), "no connection got a thread of its own again");
}
