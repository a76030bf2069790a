//! The live sessions seen and signalled from another session, against
//! `folio serve` through tokio-postgres, on both executions (a thread per
//! connection, the pool's workers): `pg_stat_activity`, `pg_locks` and
//! `pg_blocking_pids`, `pg_cancel_backend`, `pg_terminate_backend`, and
//! LISTEN/NOTIFY delivered to an idle listener.

mod common;

use folio_server::{Execution, Server, ServerConfig};
use std::io::{Read, Write};
use std::time::{Duration, Instant};
use tokio_postgres::{AsyncMessage, Client, NoTls, Notification, SimpleQueryMessage};

const BOTH: [Execution; 2] = [
    Execution::Thread,
    Execution::Pool {
        workers: 2,
        own_threads: Some(0),
    },
];

fn server(execution: Execution) -> (tempfile::TempDir, Server) {
    let (dir, server) = common::start(&ServerConfig {
        listen: "127.0.0.1:0".parse().unwrap(),
        max_connections: 8,
        execution,
        ..ServerConfig::default()
    });
    (dir, server.unwrap())
}

/// The first column of the first row of `sql`'s result (`None`: NULL).
async fn value(client: &Client, sql: &str) -> Option<String> {
    let messages = client.simple_query(sql).await.unwrap();
    messages.iter().find_map(|m| match m {
        SimpleQueryMessage::Row(row) => Some(row.get(0).map(str::to_string)),
        _ => None,
    })?
}

async fn pid(client: &Client) -> String {
    value(client, "select pg_backend_pid()").await.unwrap()
}

/// Waits (up to a minute, checking every 10 ms) until `sql` gives `want`.
async fn until(client: &Client, sql: &str, want: &str) {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let got = value(client, sql).await;
        if got.as_deref() == Some(want) {
            return;
        }
        assert!(Instant::now() < deadline, "{sql}: {got:?}, never {want}");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

fn sqlstate(e: &tokio_postgres::Error) -> String {
    e.code().map(|c| c.code().to_string()).unwrap_or_default()
}

// Proves the pid of a connection's BackendKeyData (what a CancelRequest
// names) is its session's `pg_backend_pid()`, by the raw protocol.
#[test]
fn backend_pid_is_the_backend_key_data_pid() {
    let (_dir, server) = server(Execution::Thread);
    let mut stream = std::net::TcpStream::connect(server.addr()).unwrap();
    let mut startup = Vec::new();
    startup.extend_from_slice(&196_608u32.to_be_bytes());
    for s in ["user", "postgres", "database", "postgres", ""] {
        startup.extend_from_slice(s.as_bytes());
        startup.push(0);
    }
    let mut packet = ((startup.len() + 4) as u32).to_be_bytes().to_vec();
    packet.extend_from_slice(&startup);
    stream.write_all(&packet).unwrap();
    let next = |stream: &mut std::net::TcpStream| {
        let mut head = [0u8; 5];
        stream.read_exact(&mut head).unwrap();
        let len = u32::from_be_bytes([head[1], head[2], head[3], head[4]]) as usize;
        let mut body = vec![0u8; len - 4];
        stream.read_exact(&mut body).unwrap();
        (head[0], body)
    };
    let mut key_pid = None;
    loop {
        match next(&mut stream) {
            (b'K', body) => {
                key_pid = Some(u32::from_be_bytes([body[0], body[1], body[2], body[3]]))
            }
            (b'Z', _) => break,
            _ => {}
        }
    }
    let query = b"select pg_backend_pid()\0";
    let mut packet = vec![b'Q'];
    packet.extend_from_slice(&((query.len() + 4) as u32).to_be_bytes());
    packet.extend_from_slice(query);
    stream.write_all(&packet).unwrap();
    let shown = loop {
        if let (b'D', body) = next(&mut stream) {
            let len = u32::from_be_bytes([body[2], body[3], body[4], body[5]]) as usize;
            break String::from_utf8(body[6..6 + len].to_vec()).unwrap();
        }
    };
    assert_eq!(Some(shown), key_pid.map(|p| p.to_string()));
}

// Proves another session's row of pg_stat_activity follows it: idle, idle
// in transaction with its last query, idle in transaction (aborted), and
// active waiting on an advisory lock (wait_event `advisory`), with its
// client address and application_name; and pg_locks shows that wait not
// granted beside the holder's granted lock, pg_blocking_pids names the
// holder, and pg_cancel_backend ends the wait with 57014.
#[tokio::test(flavor = "current_thread")]
async fn pg_stat_activity_and_pg_locks_follow_other_sessions() {
    for execution in BOTH {
        let (_dir, server) = server(execution);
        let watcher = common::connect_tcp(&server).await;
        let other = common::connect_tcp(&server).await;
        let other_pid = pid(&other).await;
        let row =
            |column: &str| format!("select {column} from pg_stat_activity where pid = {other_pid}");
        assert_eq!(value(&watcher, &row("state")).await.unwrap(), "idle");
        assert_eq!(
            value(&watcher, &row("client_addr")).await.unwrap(),
            "127.0.0.1"
        );
        other
            .batch_execute("set application_name = 'other'")
            .await
            .unwrap();
        other.batch_execute("begin").await.unwrap();
        other.simple_query("select 42").await.unwrap();
        let shown = row("state || ' / ' || query || ' / ' || \
             case when xact_start is null then 'none' else 'set' end");
        assert_eq!(
            value(&watcher, &shown).await.unwrap(),
            "idle in transaction / select 42 / set"
        );
        other.simple_query("select 1/0").await.unwrap_err();
        assert_eq!(
            value(&watcher, &row("state")).await.unwrap(),
            "idle in transaction (aborted)"
        );
        other.batch_execute("rollback").await.unwrap();
        assert_eq!(value(&watcher, &row("state")).await.unwrap(), "idle");
        assert_eq!(value(&watcher, &row("xact_start")).await, None);
        assert_eq!(
            value(&watcher, &row("application_name")).await.unwrap(),
            "other"
        );

        let watcher_pid = pid(&watcher).await;
        watcher
            .batch_execute("select pg_advisory_lock(5)")
            .await
            .unwrap();
        let waiting = tokio::spawn(async move {
            let result = other.simple_query("select pg_advisory_lock(5)").await;
            (other, result)
        });
        until(&watcher, &row("wait_event"), "advisory").await;
        assert_eq!(
            value(
                &watcher,
                &row("state || ' / ' || wait_event_type || ' / ' || query")
            )
            .await
            .unwrap(),
            "active / Lock / select pg_advisory_lock(5)"
        );
        let locks = "select string_agg(pid::text || ':' || mode || ':' || granted::text, ',' \
                     order by granted) from pg_locks where locktype = 'advisory' and objid = 5";
        assert_eq!(
            value(&watcher, locks).await.unwrap(),
            format!("{other_pid}:ExclusiveLock:false,{watcher_pid}:ExclusiveLock:true")
        );
        assert_eq!(
            value(&watcher, &format!("select pg_blocking_pids({other_pid})"))
                .await
                .unwrap(),
            format!("{{{watcher_pid}}}")
        );
        assert_eq!(
            value(&watcher, &format!("select pg_cancel_backend({other_pid})"))
                .await
                .unwrap(),
            "t"
        );
        let (other, result) = waiting.await.unwrap();
        let e = result.unwrap_err();
        assert_eq!(sqlstate(&e), "57014");
        assert_eq!(
            e.as_db_error().unwrap().message(),
            "canceling statement due to user request"
        );
        // The session goes on.
        assert_eq!(value(&other, "select 1").await.unwrap(), "1");
        assert_eq!(
            value(&watcher, &format!("select pg_blocking_pids({other_pid})"))
                .await
                .unwrap(),
            "{}"
        );
    }
}

// Proves pg_terminate_backend ends another session: one asleep in
// pg_sleep gets FATAL 57P01 "terminating connection due to administrator
// command", and one idle in a transaction that holds a row lock is closed
// at once, its transaction rolled back (the row is free and unchanged);
// with a timeout the call returns true once the session is gone, and the
// session leaves pg_stat_activity.
#[tokio::test(flavor = "current_thread")]
async fn pg_terminate_backend_ends_sessions_and_their_transactions() {
    for execution in BOTH {
        let (_dir, server) = server(execution);
        let admin = common::connect_tcp(&server).await;
        admin
            .batch_execute(
                "create table t (k int primary key, v int); insert into t values (1, 10)",
            )
            .await
            .unwrap();

        let sleeper = common::connect_tcp(&server).await;
        let sleeper_pid = pid(&sleeper).await;
        let sleeping =
            tokio::spawn(async move { sleeper.simple_query("select pg_sleep(600)").await });
        let state = format!("select wait_event from pg_stat_activity where pid = {sleeper_pid}");
        until(&admin, &state, "PgSleep").await;
        let terminate = format!("select pg_terminate_backend({sleeper_pid}, 60000)");
        assert_eq!(value(&admin, &terminate).await.unwrap(), "t");
        let e = sleeping.await.unwrap().unwrap_err();
        assert_eq!(sqlstate(&e), "57P01");
        let db = e.as_db_error().unwrap();
        assert_eq!(db.severity(), "FATAL");
        assert_eq!(
            db.message(),
            "terminating connection due to administrator command"
        );

        let holder = common::connect_tcp(&server).await;
        let holder_pid = pid(&holder).await;
        holder
            .batch_execute("begin; update t set v = 20 where k = 1")
            .await
            .unwrap();
        let terminate = format!("select pg_terminate_backend({holder_pid}, 60000)");
        assert_eq!(value(&admin, &terminate).await.unwrap(), "t");
        let gone = format!(
            "select count(*) from pg_stat_activity where pid in ({sleeper_pid}, {holder_pid})"
        );
        assert_eq!(value(&admin, &gone).await.unwrap(), "0");
        // Its update rolled back, and its row lock is free.
        assert_eq!(value(&admin, "select v from t").await.unwrap(), "10");
        admin
            .batch_execute("update t set v = 30 where k = 1")
            .await
            .unwrap();
        assert!(holder.simple_query("select 1").await.is_err());
    }
}

/// A client whose notifications come on a channel.
async fn listener(server: &Server) -> (Client, tokio::sync::mpsc::UnboundedReceiver<Notification>) {
    let addr = server.addr();
    let config = format!(
        "host={} port={} user=postgres dbname=postgres",
        addr.ip(),
        addr.port()
    );
    let (client, mut connection) = tokio_postgres::connect(&config, NoTls).await.unwrap();
    let (sent, received) = tokio::sync::mpsc::unbounded_channel();
    tokio::spawn(async move {
        while let Some(message) = std::future::poll_fn(|cx| connection.poll_message(cx)).await {
            match message {
                Ok(AsyncMessage::Notification(n)) => {
                    let _ = sent.send(n);
                }
                Ok(_) => {}
                Err(_) => break,
            }
        }
    });
    (client, received)
}

// Proves NOTIFY reaches an idle listener at the notifier's commit, in the
// order sent, an identical notification in one transaction folded into
// one, with the notifier's pid; a rolled-back transaction's notifications
// and a channel listened to in a rolled-back transaction deliver nothing;
// UNLISTEN stops delivery; and a session's own notifications come to it
// before its ReadyForQuery.
#[tokio::test(flavor = "current_thread")]
async fn notify_reaches_idle_listeners_at_commit() {
    for execution in BOTH {
        let (_dir, server) = server(execution);
        let (listening, mut inbox) = listener(&server).await;
        listening.batch_execute("listen ch").await.unwrap();
        listening
            .batch_execute("begin; listen other; rollback")
            .await
            .unwrap();
        assert_eq!(
            value(
                &listening,
                "select string_agg(c, ',') from pg_listening_channels() c"
            )
            .await
            .unwrap(),
            "ch"
        );
        let notifier = common::connect_tcp(&server).await;
        let notifier_pid = pid(&notifier).await;
        notifier.batch_execute("notify ch, 'a'").await.unwrap();
        notifier
            .batch_execute(
                "begin; notify ch, 'b'; notify ch, 'c'; notify ch, 'b'; \
                 select pg_notify('ch', 'd'); notify other, 'x'; commit",
            )
            .await
            .unwrap();
        notifier
            .batch_execute("begin; notify ch, 'rolled back'; rollback")
            .await
            .unwrap();
        notifier.batch_execute("notify ch, 'end'").await.unwrap();
        let mut got = Vec::new();
        while got.last().map(String::as_str) != Some("end") {
            let n = inbox.recv().await.unwrap();
            assert_eq!(n.channel(), "ch");
            assert_eq!(n.process_id().to_string(), notifier_pid);
            got.push(n.payload().to_string());
        }
        assert_eq!(got, ["a", "b", "c", "d", "end"]);

        listening
            .batch_execute("unlisten ch; listen own")
            .await
            .unwrap();
        notifier
            .batch_execute("notify ch, 'unheard'")
            .await
            .unwrap();
        listening.batch_execute("notify own, 'self'").await.unwrap();
        let n = inbox.recv().await.unwrap();
        assert_eq!((n.channel(), n.payload()), ("own", "self"));
        assert_eq!(n.process_id().to_string(), pid(&listening).await);
    }
}
