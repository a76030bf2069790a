//! The server over real TCP with a minimal protocol-3.0 client written
//! here (the CI machine need not have psql): startup and its refusals,
//! simple queries with rows, errors and notices, the transaction-status
//! byte, COPY FROM STDIN, `max_connections`, and a client that vanishes
//! in a transaction, malformed or oversized messages closing only their
//! connection; each under both executions (a thread per connection, the
//! pool's workers); and a client slow to read holding no worker.
//! (PostgreSQL 15's own `pgbench -i` and `psql` were run
//! against `folio serve` by hand: README "Status".)

use folio_db::{Database, Options};
use folio_server::{Execution, Server, ServerConfig};

/// Every connection on the pool's 2 workers (none on a thread of its own).
const POOL: Execution = Execution::Pool {
    workers: 2,
    own_threads: Some(0),
};
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::Arc;

fn server(max_connections: usize, execution: Execution) -> (tempfile::TempDir, Server) {
    let dir = tempfile::tempdir().unwrap();
    let db = Database::create(dir.path().join("db"), Options::default()).unwrap();
    let config = ServerConfig {
        listen: SocketAddr::from(([127, 0, 0, 1], 0)),
        max_connections,
        execution,
        ..ServerConfig::default()
    };
    (dir, Server::start(Arc::new(db), &config).unwrap())
}

/// A backend message: type and body.
type Message = (u8, Vec<u8>);

struct Client {
    stream: TcpStream,
}

impl Client {
    fn raw(addr: SocketAddr) -> Client {
        let stream = TcpStream::connect(addr).unwrap();
        // A server that never answers fails the test instead of hanging it.
        let patience = std::time::Duration::from_secs(30);
        stream.set_read_timeout(Some(patience)).unwrap();
        Client { stream }
    }

    /// Connects as `user` and reads up to the first ReadyForQuery (or the
    /// error that ends the startup).
    fn connect_as(addr: SocketAddr, user: &str) -> (Client, Vec<Message>) {
        let mut client = Client::raw(addr);
        let mut body = 196_608u32.to_be_bytes().to_vec();
        for s in ["user", user, "database", "postgres", ""] {
            body.extend_from_slice(s.as_bytes());
            body.push(0);
        }
        client.send_untyped(&body);
        let messages = client.until_ready();
        (client, messages)
    }

    fn connect(addr: SocketAddr) -> Client {
        let (client, messages) = Client::connect_as(addr, "postgres");
        assert_eq!(messages.last().map(|m| m.0), Some(b'Z'), "{messages:?}");
        client
    }

    fn send_untyped(&mut self, body: &[u8]) {
        let len = (body.len() + 4) as u32;
        self.stream.write_all(&len.to_be_bytes()).unwrap();
        self.stream.write_all(body).unwrap();
    }

    fn send(&mut self, kind: u8, body: &[u8]) {
        self.stream.write_all(&[kind]).unwrap();
        self.send_untyped(body);
    }

    fn read(&mut self) -> Option<Message> {
        let mut head = [0u8; 5];
        self.stream.read_exact(&mut head).ok()?;
        let len = u32::from_be_bytes([head[1], head[2], head[3], head[4]]) as usize;
        let mut body = vec![0u8; len - 4];
        self.stream.read_exact(&mut body).ok()?;
        Some((head[0], body))
    }

    /// Messages up to and including ReadyForQuery, or up to a FATAL
    /// error and the end of the connection.
    fn until_ready(&mut self) -> Vec<Message> {
        let mut out = Vec::new();
        while let Some(m) = self.read() {
            let done = m.0 == b'Z';
            out.push(m);
            if done {
                break;
            }
        }
        out
    }

    fn query(&mut self, sql: &str) -> Vec<Message> {
        self.send_query(sql);
        self.until_ready()
    }

    fn send_query(&mut self, sql: &str) {
        let mut body = sql.as_bytes().to_vec();
        body.push(0);
        self.send(b'Q', &body);
    }

    /// Sends a COPY statement and reads its CopyInResponse.
    fn copy(&mut self, sql: &str) {
        self.send_query(sql);
        let response = self.read().unwrap();
        assert_eq!(picture(&[response]), ["G"]);
    }
}

/// An ErrorResponse or NoticeResponse field.
fn field(body: &[u8], code: u8) -> String {
    let mut at = 0;
    while at < body.len() && body[at] != 0 {
        let end = at + 1 + body[at + 1..].iter().position(|&b| b == 0).unwrap();
        if body[at] == code {
            return String::from_utf8(body[at + 1..end].to_vec()).unwrap();
        }
        at = end + 1;
    }
    panic!("no field {}", code as char)
}

/// A short picture of a message list: `C:TAG`, `D:v|NULL`, `E:code`,
/// `N:message`, `Z:status`, or the type letter.
fn picture(messages: &[Message]) -> Vec<String> {
    messages
        .iter()
        .map(|(kind, body)| match kind {
            b'C' => format!("C:{}", String::from_utf8_lossy(&body[..body.len() - 1])),
            b'E' => format!("E:{}", field(body, b'C')),
            b'N' => format!("N:{}", field(body, b'M')),
            b'Z' => format!("Z:{}", body[0] as char),
            b'D' => {
                let n = u16::from_be_bytes([body[0], body[1]]) as usize;
                let mut at = 2;
                let mut values = Vec::new();
                for _ in 0..n {
                    let len = i32::from_be_bytes(body[at..at + 4].try_into().unwrap());
                    at += 4;
                    if len < 0 {
                        values.push("NULL".to_string());
                    } else {
                        values.push(String::from_utf8_lossy(&body[at..at + len as usize]).into());
                        at += len as usize;
                    }
                }
                format!("D:{}", values.join("|"))
            }
            other => (*other as char).to_string(),
        })
        .collect()
}

// Proves the startup exchange: SSL declined with `N`, the parameter
// statuses drivers read (server_version as PostgreSQL 15's), an unknown
// role refused with 28000; and simple queries with their rows, notices,
// errors (the session carries on) and status bytes.
#[test]
fn startup_and_simple_queries() {
    startup_and_simple_queries_in(Execution::Thread);
    startup_and_simple_queries_in(POOL);
}

fn startup_and_simple_queries_in(execution: Execution) {
    let (_dir, server) = server(10, execution);
    let mut probe = Client::raw(server.addr());
    probe.send_untyped(&80_877_103u32.to_be_bytes());
    let mut answer = [0u8; 1];
    probe.stream.read_exact(&mut answer).unwrap();
    assert_eq!(&answer, b"N");

    let (_, messages) = Client::connect_as(server.addr(), "alice");
    assert_eq!(picture(&messages), ["E:28000"]);
    let (mut c, messages) = Client::connect_as(server.addr(), "postgres");
    let statuses: Vec<String> = messages
        .iter()
        .filter(|m| m.0 == b'S')
        .map(|m| String::from_utf8_lossy(&m.1).replace('\0', "="))
        .collect();
    assert!(
        statuses
            .iter()
            .any(|s| s.starts_with("server_version=15.0 (folio")),
        "{statuses:?}"
    );
    assert!(
        statuses.contains(&"integer_datetimes=on=".to_string()),
        "{statuses:?}"
    );
    assert_eq!(messages[0].0, b'R');
    assert_eq!(picture(&messages[messages.len() - 1..]), ["Z:I"]);

    let out = c.query(
        "drop table if exists t; create table t (k int not null, v text); \
         insert into t values (1, 'a'), (2, null); select k, v from t where k = 2",
    );
    assert_eq!(
        picture(&out),
        [
            "N:table \"t\" does not exist, skipping",
            "C:DROP TABLE",
            "C:CREATE TABLE",
            "C:INSERT 0 2",
            "T",
            "D:2|NULL",
            "C:SELECT 1",
            "Z:I"
        ]
    );
    assert_eq!(
        picture(&c.query("select * from nosuch")),
        ["E:42P01", "Z:I"]
    );
    assert_eq!(picture(&c.query("   ")), ["I", "Z:I"]);
    assert_eq!(picture(&c.query("begin")), ["C:BEGIN", "Z:T"]);
    assert_eq!(
        picture(&c.query("insert into t values (3, 'c')")),
        ["C:INSERT 0 1", "Z:T"]
    );
    assert_eq!(picture(&c.query("selec")), ["E:42601", "Z:E"]);
    assert_eq!(picture(&c.query("select 1")), ["E:25P02", "Z:E"]);
    assert_eq!(picture(&c.query("commit")), ["C:ROLLBACK", "Z:I"]);
    assert_eq!(
        picture(&c.query("select count(*) from t")),
        ["T", "D:2", "C:SELECT 1", "Z:I"]
    );
    // A Parse of two statements is refused; the rest up to Sync is
    // skipped, then all is well.
    c.send(b'P', b"\0select 1; select 2\0\0\0");
    c.send(b'S', b"");
    assert_eq!(picture(&c.until_ready()), ["E:42601", "Z:I"]);
    c.send(b'X', b"");
}

// Proves COPY FROM STDIN over the protocol (CopyInResponse, data in
// pieces, CopyDone; bad data ends it with 22P02 and undoes its rows, later
// CopyData ignored), max_connections' 53300, and that a client vanishing
// inside a transaction block leaves nothing behind.
#[test]
fn copy_connections_and_disconnects() {
    copy_connections_and_disconnects_in(Execution::Thread);
    copy_connections_and_disconnects_in(POOL);
}

fn copy_connections_and_disconnects_in(execution: Execution) {
    let (_dir, server) = server(2, execution);
    let mut c = Client::connect(server.addr());
    c.query("create table t (k int not null, v text)");
    c.copy("copy t from stdin");
    c.send(b'd', b"1\tone\n2\t");
    c.send(b'd', b"two\n\\.\n");
    c.send(b'c', b"");
    assert_eq!(picture(&c.until_ready()), ["C:COPY 2", "Z:I"]);
    c.copy("copy t from stdin");
    c.send(b'd', b"3\tthree\nx\tbad\n");
    assert_eq!(picture(&c.until_ready()), ["E:22P02", "Z:I"]);
    c.send(b'd', b"4\tignored\n");
    c.send(b'c', b"");
    assert_eq!(
        picture(&c.query("select count(*) from t")),
        ["T", "D:2", "C:SELECT 1", "Z:I"]
    );

    // Two connections are open (the one above and this one); a third is refused.
    let mut d = Client::connect(server.addr());
    let (_, refused) = Client::connect_as(server.addr(), "postgres");
    assert_eq!(picture(&refused), ["E:53300"]);
    assert_eq!(
        picture(&d.query("begin; insert into t values (9, 'nine')")),
        ["C:BEGIN", "C:INSERT 0 1", "Z:T"]
    );
    drop(d);
    // The vanished client's transaction rolled back (its slot is free
    // again once its thread ends).
    let mut tries = 0;
    let mut e = loop {
        let (client, messages) = Client::connect_as(server.addr(), "postgres");
        if messages.last().map(|m| m.0) == Some(b'Z') {
            break client;
        }
        tries += 1;
        assert!(tries < 200, "the slot was never freed");
        std::thread::sleep(std::time::Duration::from_millis(10));
    };
    assert_eq!(
        picture(&e.query("select count(*) from t")),
        ["T", "D:2", "C:SELECT 1", "Z:I"]
    );
}

/// A Parse, Bind, Describe or Execute message body.
fn parse_msg(name: &str, sql: &str) -> Vec<u8> {
    let mut b = Vec::new();
    for s in [name, sql] {
        b.extend_from_slice(s.as_bytes());
        b.push(0);
    }
    b.extend_from_slice(&0u16.to_be_bytes());
    b
}

fn bind_msg(portal: &str, statement: &str, params: &[Option<&str>]) -> Vec<u8> {
    let mut b = Vec::new();
    for s in [portal, statement] {
        b.extend_from_slice(s.as_bytes());
        b.push(0);
    }
    b.extend_from_slice(&0u16.to_be_bytes());
    b.extend_from_slice(&(params.len() as u16).to_be_bytes());
    for p in params {
        match p {
            Some(v) => {
                b.extend_from_slice(&(v.len() as u32).to_be_bytes());
                b.extend_from_slice(v.as_bytes());
            }
            None => b.extend_from_slice(&(-1i32).to_be_bytes()),
        }
    }
    b.extend_from_slice(&0u16.to_be_bytes());
    b
}

fn named(kind: u8, name: &str) -> Vec<u8> {
    let mut b = vec![kind];
    b.extend_from_slice(name.as_bytes());
    b.push(0);
    b
}

// Proves the extended protocol as pgbench -M extended/prepared uses it:
// Parse with `$n` parameters, Describe of the statement (its parameter
// count) and of the portal (its rows), Bind with text parameters that take
// their column's type, Execute, Sync; a named statement run twice; an
// error skips to Sync and the connection carries on; binary parameters.
#[test]
fn extended_protocol() {
    extended_protocol_in(Execution::Thread);
    extended_protocol_in(POOL);
}

fn extended_protocol_in(execution: Execution) {
    let (_dir, server) = server(4, execution);
    let mut c = Client::connect(server.addr());
    c.query("create table t (k int not null, v text); insert into t values (1, 'one'), (2, 'two')");
    c.query("alter table t add primary key (k)");
    c.send(b'P', &parse_msg("", "select v from t where k = $1"));
    c.send(b'D', &named(b'S', ""));
    c.send(b'B', &bind_msg("", "", &[Some("2")]));
    c.send(b'D', &named(b'P', ""));
    c.send(b'E', &[0, 0, 0, 0, 0]);
    c.send(b'S', b"");
    // Described: its parameter's type and its row (planned at Describe).
    assert_eq!(
        picture(&c.until_ready()),
        ["1", "t", "T", "2", "T", "D:two", "C:SELECT 1", "Z:I"]
    );
    c.send(b'P', &parse_msg("up", "update t set v = $2 where k = $1"));
    c.send(b'S', b"");
    assert_eq!(picture(&c.until_ready()), ["1", "Z:I"]);
    for (k, v) in [("1", "uno"), ("2", "dos")] {
        c.send(b'B', &bind_msg("", "up", &[Some(k), Some(v)]));
        c.send(b'E', &[0, 0, 0, 0, 0]);
        c.send(b'S', b"");
        assert_eq!(picture(&c.until_ready()), ["2", "C:UPDATE 1", "Z:I"]);
    }
    assert_eq!(
        picture(&c.query("select k, v from t where k = 1")),
        ["T", "D:1|uno", "C:SELECT 1", "Z:I"]
    );
    // An unknown statement: the error, then everything up to Sync skipped.
    c.send(b'B', &bind_msg("", "nosuch", &[]));
    c.send(b'E', &[0, 0, 0, 0, 0]);
    c.send(b'S', b"");
    assert_eq!(picture(&c.until_ready()), ["E:26000", "Z:I"]);
    // Too few parameters: PostgreSQL's 08P01 at Bind.
    c.send(b'B', &bind_msg("", "up", &[Some("1")]));
    c.send(b'S', b"");
    assert_eq!(picture(&c.until_ready()), ["E:08P01", "Z:I"]);
    // Binary parameters, decoded by their inferred types ($1 int4, $2 text).
    let mut b = b"\0up\0\0\x01\0\x01\0\x02".to_vec();
    b.extend_from_slice(&4u32.to_be_bytes());
    b.extend_from_slice(&2i32.to_be_bytes());
    b.extend_from_slice(&3u32.to_be_bytes());
    b.extend_from_slice(b"two");
    b.extend_from_slice(&0u16.to_be_bytes());
    c.send(b'B', &b);
    c.send(b'E', &[0, 0, 0, 0, 0]);
    c.send(b'S', b"");
    assert_eq!(picture(&c.until_ready()), ["2", "C:UPDATE 1", "Z:I"]);
    c.send(b'C', &named(b'S', "up"));
    c.send(b'S', b"");
    assert_eq!(picture(&c.until_ready()), ["3", "Z:I"]);
}

// Proves a statement's result columns are fixed at Parse, as
// PostgreSQL's are (compared with PostgreSQL 15): a statement parsed but
// never described or run is refused (0A000) once DDL changed what it
// returns, another over columns still there runs; a Parse naming a
// missing table is its error, and the statement is not kept.
#[test]
fn a_parsed_statement_keeps_its_result_columns() {
    let (_dir, server) = server(4, POOL);
    let mut c = Client::connect(server.addr());
    c.query("create table r (a int, b int, c text); insert into r values (1, 2, 'x')");
    c.send(b'P', &parse_msg("star", "select * from r"));
    c.send(b'P', &parse_msg("ac", "select a, c from r"));
    c.send(b'S', b"");
    assert_eq!(picture(&c.until_ready()), ["1", "1", "Z:I"]);
    c.query("alter table r drop column b");
    for (statement, answer) in [("star", "E:0A000"), ("ac", "D:1|x")] {
        c.send(b'B', &bind_msg("", statement, &[]));
        c.send(b'E', &[0, 0, 0, 0, 0]);
        c.send(b'S', b"");
        let got = picture(&c.until_ready());
        assert!(got.contains(&answer.to_string()), "{statement}: {got:?}");
    }
    c.send(b'P', &parse_msg("gone", "select * from nosuch"));
    c.send(b'S', b"");
    assert_eq!(picture(&c.until_ready()), ["E:42P01", "Z:I"]);
    c.send(b'B', &bind_msg("", "gone", &[]));
    c.send(b'S', b"");
    assert_eq!(picture(&c.until_ready()), ["E:26000", "Z:I"]);
}

// Proves the messages up to a Sync run as one transaction, as in
// PostgreSQL: two Executes commit together at Sync; an error in the third
// of a pipeline rolls back the two before it, and the rest up to Sync is
// skipped; a Bind error after an Execute rolls that back too; and a BEGIN
// opens an ordinary block that outlives the Sync.
#[test]
fn a_pipeline_is_one_transaction() {
    a_pipeline_is_one_transaction_in(Execution::Thread);
    a_pipeline_is_one_transaction_in(POOL);
}

fn a_pipeline_is_one_transaction_in(execution: Execution) {
    let (_dir, server) = server(4, execution);
    let mut c = Client::connect(server.addr());
    c.query("create table p (k int primary key)");
    c.send(b'P', &parse_msg("ins", "insert into p values ($1)"));
    let execute = |c: &mut Client, k: &str| {
        c.send(b'B', &bind_msg("", "ins", &[Some(k)]));
        c.send(b'E', &[0, 0, 0, 0, 0]);
    };
    execute(&mut c, "1");
    execute(&mut c, "2");
    c.send(b'S', b"");
    assert_eq!(
        picture(&c.until_ready()),
        ["1", "2", "C:INSERT 0 1", "2", "C:INSERT 0 1", "Z:I"]
    );
    execute(&mut c, "3");
    execute(&mut c, "4");
    execute(&mut c, "1");
    execute(&mut c, "5");
    c.send(b'S', b"");
    assert_eq!(
        picture(&c.until_ready()),
        [
            "2",
            "C:INSERT 0 1",
            "2",
            "C:INSERT 0 1",
            "2",
            "E:23505",
            "Z:I"
        ]
    );
    execute(&mut c, "6");
    c.send(b'B', &bind_msg("", "ins", &[]));
    c.send(b'E', &[0, 0, 0, 0, 0]);
    c.send(b'S', b"");
    assert_eq!(
        picture(&c.until_ready()),
        ["2", "C:INSERT 0 1", "E:08P01", "Z:I"]
    );
    assert_eq!(
        picture(&c.query("select k from p order by k")),
        ["T", "D:1", "D:2", "C:SELECT 2", "Z:I"]
    );
    // BEGIN in a pipeline: an ordinary block, open after the Sync.
    c.send(b'P', &parse_msg("begin", "begin"));
    c.send(b'B', &bind_msg("", "begin", &[]));
    c.send(b'E', &[0, 0, 0, 0, 0]);
    execute(&mut c, "7");
    c.send(b'S', b"");
    assert_eq!(
        picture(&c.until_ready()),
        ["1", "2", "C:BEGIN", "2", "C:INSERT 0 1", "Z:T"]
    );
    assert_eq!(picture(&c.query("rollback")), ["C:ROLLBACK", "Z:I"]);
    assert_eq!(
        picture(&c.query("select count(*) from p")),
        ["T", "D:2", "C:SELECT 1", "Z:I"]
    );
}

// Proves a message with a length below 4, one over 1 GiB, one whose
// contents are malformed (a Query without its terminator) and an unknown
// message type each close only the connection that sent them: the server
// keeps serving another connection, opened before, and new ones.
#[test]
fn bad_messages_close_only_their_connection() {
    bad_messages_in(Execution::Thread);
    bad_messages_in(POOL);
}

fn bad_messages_in(execution: Execution) {
    let (_dir, server) = server(8, execution);
    let mut bystander = Client::connect(server.addr());
    let bad: [&[u8]; 4] = [
        b"Q\x00\x00\x00\x03",
        b"Q\x7f\xff\xff\xff",
        b"Q\x00\x00\x00\x08abcd",
        b"?\x00\x00\x00\x04",
    ];
    for bytes in bad {
        let mut client = Client::connect(server.addr());
        client.stream.write_all(bytes).unwrap();
        // Anything the server sends (a FATAL for the unknown type), then
        // the end of the stream.
        let mut rest = Vec::new();
        client.stream.read_to_end(&mut rest).unwrap();
        let answers = bystander.query("select 1");
        assert_eq!(picture(&answers)[..2], ["T", "D:1"], "{:?}", bytes);
    }
    let mut late = Client::connect(server.addr());
    assert_eq!(picture(&late.query("select 2"))[..2], ["T", "D:2"]);
}

// Proves a client that does not read its answers holds no worker: with
// one worker, a query whose ~20 MB of rows fill the socket waits (its
// worker handed to another thread) while a second client is served; then
// the first reads every row.
#[test]
fn a_client_slow_to_read_holds_no_worker() {
    let one = Execution::Pool {
        workers: 1,
        own_threads: Some(0),
    };
    let (_dir, server) = server(4, one);
    let mut slow = Client::connect(server.addr());
    slow.send_query("select g, g, g, g, g, g from generate_series(100001, 500000) as g");
    std::thread::sleep(std::time::Duration::from_millis(300));
    let mut other = Client::connect(server.addr());
    assert_eq!(
        picture(&other.query("select 1")),
        ["T", "D:1", "C:SELECT 1", "Z:I"]
    );
    let answers = slow.until_ready();
    let rows = answers.iter().filter(|m| m.0 == b'D').count();
    assert_eq!(rows, 400_000);
    assert_eq!(
        picture(&answers[answers.len() - 2..]),
        ["C:SELECT 400000", "Z:I"]
    );
}

// Proves the settings PostgreSQL reports (`TimeZone`, `DateStyle`,
// `IntervalStyle`, `application_name`) come at startup and again, as a ParameterStatus
// before ReadyForQuery, only when a statement changed them: a SET, a
// RESET, a rolled back block's SET undone; not a SET to the same value.
#[test]
fn parameter_status_after_set() {
    let (_dir, server) = server(10, POOL);
    let (mut c, messages) = Client::connect_as(server.addr(), "postgres");
    let statuses = |messages: &[Message]| -> Vec<String> {
        messages
            .iter()
            .filter(|m| m.0 == b'S')
            .map(|m| String::from_utf8_lossy(&m.1).replace('\0', "="))
            .collect()
    };
    assert!(statuses(&messages).contains(&"TimeZone=UTC=".to_string()));
    assert!(statuses(&messages).contains(&"DateStyle=ISO, MDY=".to_string()));
    assert!(statuses(&messages).contains(&"IntervalStyle=postgres=".to_string()));
    let out = c.query("set datestyle = dmy");
    assert_eq!(statuses(&out), ["DateStyle=ISO, DMY="]);
    // The rows of a message are written in the style in force when their
    // statement ended: the first SELECT's interval in `postgres`.
    let out =
        c.query("select interval '1 day'; set intervalstyle = iso_8601; select interval '1 day'");
    assert_eq!(
        picture(&out),
        [
            "T",
            "D:1 day",
            "C:SELECT 1",
            "C:SET",
            "T",
            "D:P1D",
            "C:SELECT 1",
            "S",
            "Z:I"
        ]
    );
    assert_eq!(statuses(&out), ["IntervalStyle=iso_8601="]);
    let out = c.query("set time zone 'america/new_york'");
    assert_eq!(picture(&out), ["C:SET", "S", "Z:I"]);
    assert_eq!(statuses(&out), ["TimeZone=America/New_York="]);
    assert_eq!(
        picture(&c.query("set timezone = 'America/New_York'")),
        ["C:SET", "Z:I"]
    );
    let out = c.query("begin; set time zone 'Asia/Tokyo'; rollback");
    assert_eq!(statuses(&out), Vec::<String>::new());
    let out = c.query("begin; set time zone 'Asia/Tokyo'");
    assert_eq!(statuses(&out), ["TimeZone=Asia/Tokyo="]);
    let out = c.query("rollback");
    assert_eq!(statuses(&out), ["TimeZone=America/New_York="]);
    let out = c.query("set application_name = 'app'; reset timezone");
    assert_eq!(statuses(&out), ["application_name=app=", "TimeZone=UTC="]);
}

/// An Execute of `portal` sending at most `max_rows` rows (0: all).
fn execute_msg(portal: &str, max_rows: u32) -> Vec<u8> {
    let mut b = portal.as_bytes().to_vec();
    b.push(0);
    b.extend_from_slice(&max_rows.to_be_bytes());
    b
}

// Proves an Execute's row limit as PostgreSQL 15 answers it (each
// sequence of messages compared with PostgreSQL's): PortalSuspended after
// exactly `max_rows` rows (even when none remain), the next Execute goes
// on, CommandComplete counts the rows of the Execute that completes, and
// later ones send `SELECT 0`; a Describe of a suspended portal; a named
// portal bound twice (42P03); the unnamed portal replaced by a Bind; a
// command portal run twice (55000); RETURNING and SHOW fetched in parts;
// Close; and a portal gone when its transaction ends (34000): at Sync
// outside a block, at COMMIT inside the pipeline; the unnamed one also
// after a Query; continuing a portal in a failed block is 25P02.
// Proves a Describe of a query's or row change's portal describes it
// from its plan without running it, as PostgreSQL: an INSERT portal
// described and closed inserts nothing; a query portal described first
// then sends all its rows at Execute.
#[test]
fn describing_a_portal_does_not_run_it() {
    let (_dir, server) = server(4, POOL);
    let mut c = Client::connect(server.addr());
    c.query("create table d (k int)");
    let mut run = |messages: &[(u8, Vec<u8>)]| {
        for (kind, body) in messages {
            c.send(*kind, body);
        }
        c.send(b'S', b"");
        picture(&c.until_ready())
    };
    let steps = [
        (b'P', parse_msg("ins", "insert into d values (1)")),
        (b'B', bind_msg("p", "ins", &[])),
        (b'D', named(b'P', "p")),
        (b'C', named(b'P', "p")),
    ];
    assert_eq!(run(&steps), ["1", "2", "n", "3", "Z:I"]);
    let steps = [
        (
            b'P',
            parse_msg("ret", "insert into d values (2) returning k"),
        ),
        (b'B', bind_msg("", "ret", &[])),
        (b'D', named(b'P', "")),
        (b'P', parse_msg("", "select count(*) from d")),
        (b'B', bind_msg("", "", &[])),
        (b'D', named(b'P', "")),
        (b'E', execute_msg("", 0)),
    ];
    assert_eq!(
        run(&steps),
        ["1", "2", "T", "1", "2", "T", "D:0", "C:SELECT 1", "Z:I"]
    );
}

#[test]
fn execute_row_limit_and_portal_suspended() {
    let (_dir, server) = server(4, POOL);
    let mut c = Client::connect(server.addr());
    c.query("create table ten (k int); insert into ten select generate_series(1, 10)");
    let run = |c: &mut Client, messages: &[(u8, Vec<u8>)]| {
        for (kind, body) in messages {
            c.send(*kind, body);
        }
        c.send(b'S', b"");
        picture(&c.until_ready())
    };
    let bind = |portal: &str, statement: &str| (b'B', bind_msg(portal, statement, &[]));
    let execute = |portal: &str, max_rows: u32| (b'E', execute_msg(portal, max_rows));
    let ten = (b'P', parse_msg("", "select k from ten order by k"));
    let four = (
        b'P',
        parse_msg("", "select k from ten where k <= 4 order by k"),
    );
    c.query("begin");
    let mut steps = vec![ten.clone(), bind("p", "")];
    steps.extend((0..5).map(|_| execute("p", 3)));
    assert_eq!(
        run(&mut c, &steps),
        [
            "1",
            "2",
            "D:1",
            "D:2",
            "D:3",
            "s",
            "D:4",
            "D:5",
            "D:6",
            "s",
            "D:7",
            "D:8",
            "D:9",
            "s",
            "D:10",
            "C:SELECT 1",
            "C:SELECT 0",
            "Z:T"
        ]
    );
    let steps = [
        four.clone(),
        bind("q", ""),
        execute("q", 2),
        (b'D', named(b'P', "q")),
        execute("q", 2),
        execute("q", 2),
    ];
    assert_eq!(
        run(&mut c, &steps),
        [
            "1",
            "2",
            "D:1",
            "D:2",
            "s",
            "T",
            "D:3",
            "D:4",
            "s",
            "C:SELECT 0",
            "Z:T"
        ]
    );
    assert_eq!(run(&mut c, &[bind("q", "")]), ["E:42P03", "Z:E"]);
    // Continuing or describing a portal in a failed block: 25P02.
    assert_eq!(run(&mut c, &[execute("p", 1)]), ["E:25P02", "Z:E"]);
    assert_eq!(run(&mut c, &[(b'D', named(b'P', "p"))]), ["E:25P02", "Z:E"]);
    c.query("rollback");
    // Outside a block: the portal lives up to the Sync.
    let steps = [four.clone(), bind("", ""), execute("", 3), execute("", 3)];
    assert_eq!(
        run(&mut c, &steps),
        [
            "1",
            "2",
            "D:1",
            "D:2",
            "D:3",
            "s",
            "D:4",
            "C:SELECT 1",
            "Z:I"
        ]
    );
    let steps = [four.clone(), bind("r", ""), execute("r", 2)];
    assert_eq!(run(&mut c, &steps), ["1", "2", "D:1", "D:2", "s", "Z:I"]);
    assert_eq!(run(&mut c, &[execute("r", 2)]), ["E:34000", "Z:I"]);
    // A Bind replaces a suspended unnamed portal.
    c.query("begin");
    let steps = [
        four.clone(),
        bind("", ""),
        execute("", 2),
        bind("", ""),
        execute("", 0),
    ];
    assert_eq!(
        run(&mut c, &steps),
        [
            "1",
            "2",
            "D:1",
            "D:2",
            "s",
            "2",
            "D:1",
            "D:2",
            "D:3",
            "D:4",
            "C:SELECT 4",
            "Z:T"
        ]
    );
    // A command runs once.
    let steps = [
        (b'P', parse_msg("mk", "create table made (a int)")),
        bind("", "mk"),
        execute("", 0),
        execute("", 0),
    ];
    assert_eq!(
        run(&mut c, &steps),
        ["1", "2", "C:CREATE TABLE", "E:55000", "Z:E"]
    );
    c.query("rollback");
    // RETURNING and SHOW in parts; Close.
    c.query("begin");
    let steps = [
        (
            b'P',
            parse_msg(
                "",
                "insert into ten select generate_series(11, 15) returning k",
            ),
        ),
        bind("", ""),
        execute("", 2),
        execute("", 2),
        execute("", 2),
        execute("", 2),
    ];
    assert_eq!(
        run(&mut c, &steps),
        [
            "1",
            "2",
            "D:11",
            "D:12",
            "s",
            "D:13",
            "D:14",
            "s",
            "D:15",
            "C:INSERT 0 1",
            "C:INSERT 0 0",
            "Z:T"
        ]
    );
    let steps = [
        (b'P', parse_msg("", "show datestyle")),
        bind("", ""),
        execute("", 1),
        execute("", 1),
    ];
    assert_eq!(
        run(&mut c, &steps),
        ["1", "2", "D:ISO, MDY", "s", "C:SHOW", "Z:T"]
    );
    let steps = [
        four.clone(),
        bind("z", ""),
        execute("z", 2),
        (b'C', named(b'P', "z")),
        execute("z", 2),
    ];
    assert_eq!(
        run(&mut c, &steps),
        ["1", "2", "D:1", "D:2", "s", "3", "E:34000", "Z:E"]
    );
    c.query("rollback");
    // COMMIT inside the pipeline ends the portals of its block.
    c.query("begin");
    let steps = [
        four.clone(),
        bind("y", ""),
        execute("y", 1),
        (b'P', parse_msg("cm", "commit")),
        bind("", "cm"),
        execute("", 0),
        execute("y", 1),
    ];
    assert_eq!(
        run(&mut c, &steps),
        ["1", "2", "D:1", "s", "1", "2", "C:COMMIT", "E:34000", "Z:I"]
    );
    // A Query drops the unnamed portal, even in a block.
    c.query("begin");
    let steps = [four, bind("", ""), execute("", 1)];
    assert_eq!(run(&mut c, &steps), ["1", "2", "D:1", "s", "Z:T"]);
    c.query("select 1");
    assert_eq!(run(&mut c, &[execute("", 1)]), ["E:34000", "Z:E"]);
    c.query("rollback");
}
