//! CancelRequest against `folio serve`: tokio-postgres's
//! `cancel_token().cancel_query` ends the running statement with 57014,
//! whether it is computing (a long join) or asleep on a row lock another
//! connection holds; a request with a wrong key is ignored. Both
//! executions (a thread per connection, the pool's workers); and on the
//! pool, sessions asleep on row locks never starve the session they wait
//! for of a worker.

use folio_db::{Database, Options};
use folio_server::{Execution, Server, ServerConfig};
use std::io::Write;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio_postgres::{Client, NoTls};

/// Every connection on the pool's 2 workers (none on a thread of its own).
const POOL: Execution = Execution::Pool {
    workers: 2,
    own_threads: Some(0),
};

const BOTH: [Execution; 2] = [Execution::Thread, POOL];

fn server(execution: Execution) -> (tempfile::TempDir, Server) {
    let dir = tempfile::tempdir().unwrap();
    let db = Database::create(dir.path().join("db"), Options::default()).unwrap();
    let config = ServerConfig {
        listen: "127.0.0.1:0".parse().unwrap(),
        max_connections: 8,
        execution,
        ..ServerConfig::default()
    };
    (dir, Server::start(Arc::new(db), &config).unwrap())
}

async fn connect(server: &Server) -> Client {
    let addr = server.addr();
    let config = format!(
        "host={} port={} user=postgres dbname=postgres",
        addr.ip(),
        addr.port()
    );
    let (client, connection) = tokio_postgres::connect(&config, NoTls).await.unwrap();
    tokio::spawn(async move {
        let _ = connection.await;
    });
    client
}

/// CancelRequests for processes 1 to 16, each with key 7 (a session's key
/// is random: wrong for all of them but with odds of 2^-28).
fn cancel_with_wrong_keys(server: &Server) {
    for pid in 1u32..=16 {
        let mut stream = std::net::TcpStream::connect(server.addr()).unwrap();
        let mut packet = 16u32.to_be_bytes().to_vec();
        packet.extend_from_slice(&80_877_102u32.to_be_bytes());
        packet.extend_from_slice(&pid.to_be_bytes());
        packet.extend_from_slice(&7u32.to_be_bytes());
        stream.write_all(&packet).unwrap();
    }
}

fn sqlstate(e: &tokio_postgres::Error) -> String {
    e.code().map(|c| c.code().to_string()).unwrap_or_default()
}

// Proves a statement that computes for seconds (a nested-loop join of two
// 20,000-row series that matches nothing) ends with 57014 "canceling
// statement due to user request" soon after the cancel, that a wrong key
// did not stop it, and that the session then runs statements as before.
#[tokio::test(flavor = "current_thread")]
async fn a_cancel_ends_a_long_statement() {
    for execution in BOTH {
        long_statement(execution).await;
    }
}

async fn long_statement(execution: Execution) {
    let (_dir, server) = server(execution);
    let client = connect(&server).await;
    let token = client.cancel_token();
    let started = Instant::now();
    let long = tokio::spawn(async move {
        let result = client
            .simple_query(
                "select count(*) from generate_series(1, 20000) a, \
                 generate_series(1, 20000) b where a.a > b.b + 100000",
            )
            .await;
        (result, client)
    });
    tokio::time::sleep(Duration::from_millis(300)).await;
    cancel_with_wrong_keys(&server);
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert!(!long.is_finished(), "a wrong key must not cancel");
    let canceled_at = Instant::now();
    token.cancel_query(NoTls).await.unwrap();
    let (result, client) = long.await.unwrap();
    let e = result.unwrap_err();
    assert_eq!(sqlstate(&e), "57014", "{e:?}");
    let db_error = e.as_db_error().unwrap();
    assert_eq!(
        db_error.message(),
        "canceling statement due to user request"
    );
    assert!(
        canceled_at.elapsed() < Duration::from_secs(2),
        "ended {:?} after the cancel ({:?} in all)",
        canceled_at.elapsed(),
        started.elapsed()
    );
    let row = client.query_one("select 1 + 1", &[]).await.unwrap();
    assert_eq!(row.get::<_, i32>(0), 2);
}

// Proves a long statement holds no worker: with one worker, a second
// client is served while a seconds-long join runs (the monitor gives the
// join's worker place to another thread), and the join then ends.
#[tokio::test(flavor = "current_thread")]
async fn a_long_statement_holds_no_worker() {
    let one = Execution::Pool {
        workers: 1,
        own_threads: Some(0),
    };
    let (_dir, server) = server(one);
    let client = connect(&server).await;
    let token = client.cancel_token();
    let long = tokio::spawn(async move {
        client
            .simple_query(
                "select count(*) from generate_series(1, 20000) a, \
                 generate_series(1, 20000) b where a.a > b.b + 100000",
            )
            .await
            .map(|_| ())
    });
    tokio::time::sleep(Duration::from_millis(300)).await;
    let other = connect(&server).await;
    let row = tokio::time::timeout(
        Duration::from_secs(10),
        other.query_one("select 1 + 1", &[]),
    )
    .await
    .expect("served while the join runs")
    .unwrap();
    assert_eq!(row.get::<_, i32>(0), 2);
    assert!(!long.is_finished(), "the join still runs");
    token.cancel_query(NoTls).await.unwrap();
    let e = long.await.unwrap().unwrap_err();
    assert_eq!(sqlstate(&e), "57014", "{e:?}");
}

// Proves a statement asleep on a row lock held by another connection's
// open transaction ends with 57014 when canceled (the holder still holds
// it), the canceled session then works, and the holder commits its
// change.
#[tokio::test(flavor = "current_thread")]
async fn a_cancel_ends_a_lock_wait() {
    for execution in BOTH {
        lock_wait(execution).await;
    }
}

async fn lock_wait(execution: Execution) {
    let (_dir, server) = server(execution);
    let holder = connect(&server).await;
    // (Two messages: in one, BEGIN would take the CREATE into its block,
    // as PostgreSQL's implicit block does.)
    holder
        .batch_execute("create table t (id int primary key, v int); insert into t values (1, 0)")
        .await
        .unwrap();
    holder
        .batch_execute("begin; update t set v = 1 where id = 1")
        .await
        .unwrap();
    let waiter = connect(&server).await;
    let token = waiter.cancel_token();
    let wait = tokio::spawn(async move {
        let result = waiter.simple_query("update t set v = 2 where id = 1").await;
        (result, waiter)
    });
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(!wait.is_finished(), "it waits for the holder");
    token.cancel_query(NoTls).await.unwrap();
    let (result, waiter) = tokio::time::timeout(Duration::from_secs(5), wait)
        .await
        .expect("the cancel wakes the waiter")
        .unwrap();
    let e = result.unwrap_err();
    assert_eq!(sqlstate(&e), "57014", "{e:?}");
    holder.batch_execute("commit").await.unwrap();
    let rows = waiter
        .query("select v from t where id = 1", &[])
        .await
        .unwrap();
    assert_eq!(rows[0].get::<_, i32>(0), 1);
}

// Proves the pool cannot deadlock on its workers: with 2 workers, 3
// sessions asleep on a row lock (each wait first frees its
// worker) leave the holder's session a worker to run its COMMIT, after
// which all 3 updates finish.
#[tokio::test(flavor = "current_thread")]
async fn waiters_never_hold_every_worker() {
    let (_dir, server) = server(POOL);
    let holder = connect(&server).await;
    // (Two messages: in one, BEGIN would take the CREATE into its block,
    // as PostgreSQL's implicit block does.)
    holder
        .batch_execute("create table t (id int primary key, v int); insert into t values (1, 0)")
        .await
        .unwrap();
    holder
        .batch_execute("begin; update t set v = v + 1 where id = 1")
        .await
        .unwrap();
    let mut waits = Vec::new();
    for _ in 0..3 {
        let waiter = connect(&server).await;
        waits.push(tokio::spawn(async move {
            waiter
                .simple_query("update t set v = v + 1 where id = 1")
                .await
                .map(|_| ())
        }));
    }
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(waits.iter().all(|w| !w.is_finished()), "they wait");
    tokio::time::timeout(Duration::from_secs(10), holder.batch_execute("commit"))
        .await
        .expect("the holder's COMMIT runs while 3 sessions wait on 2 workers")
        .unwrap();
    for wait in waits {
        tokio::time::timeout(Duration::from_secs(10), wait)
            .await
            .expect("each waiter goes on after the commit")
            .unwrap()
            .unwrap();
    }
    let rows = holder
        .query("select v from t where id = 1", &[])
        .await
        .unwrap();
    assert_eq!(rows[0].get::<_, i32>(0), 4);
}
