//! A connection's bytes on the async runtime: the startup (SSL and GSS
//! requests declined, CancelRequest, authentication, parameter statuses,
//! BackendKeyData), then batches: every complete message read so far goes
//! to the connection's protocol (`connection.rs`) at once, and its
//! answers go out in one write when a message asked for a flush.
//!
//! Where the batches run is the server's [`Execution`]: on a thread of the
//! connection's own that also reads and writes with blocking calls
//! ([`on_thread`]), or on the workers of the pool (`pool.rs`), which use
//! the same [`Inbox`].
//!
//! [`Execution`]: crate::Execution

use crate::connection::{self, Connection, SERVER_VERSION};
use crate::protocol::{self, CANCEL_REQUEST, Frame, GSS_REQUEST, Out, PROTOCOL_3, ProtocolError};
use crate::protocol::{MAX_MESSAGE, SSL_REQUEST};
use crate::scram;
use crate::server::{Auth, Shared};
use crate::stream::{Accepted, Stream};
use rustix::event::{PollFd, PollFlags};
use std::io;
use std::os::fd::AsFd;
use std::sync::Arc;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// Bytes read and not yet consumed: `buf[at..]`.
#[derive(Debug, Default)]
pub(crate) struct Inbox {
    buf: Vec<u8>,
    at: usize,
}

/// What [`Inbox::serve`] did.
pub(crate) enum Batch {
    /// Ran a batch; the connection goes on.
    Ran,
    /// Ran a batch that ended the session (Terminate).
    Close,
    /// Nothing complete to run: the first incomplete message needs this
    /// many bytes.
    Needs(usize),
}

/// How much a read asks for at least.
pub(crate) const READ_CHUNK_BYTES: usize = 16 << 10;

impl Inbox {
    pub(crate) fn unread(&self) -> &[u8] {
        &self.buf[self.at..]
    }

    pub(crate) fn consume(&mut self, n: usize) {
        self.at += n;
        if self.at == self.buf.len() {
            self.buf.clear();
            self.at = 0;
        }
    }

    /// Reads more, room for at least `needed` unread bytes made first (a
    /// frame's stated length is trusted only a chunk at a time); `false`
    /// at the end of the stream.
    async fn fill(&mut self, stream: &mut impl Accepted, needed: usize) -> io::Result<bool> {
        self.make_room(needed);
        self.buf.reserve(READ_CHUNK_BYTES);
        Ok(stream.read_buf(&mut self.buf).await? > 0)
    }

    /// Drops the consumed bytes and reserves room for `needed` unread ones,
    /// at most a megabyte more at a time (a frame's stated length is not
    /// trusted further than that before its bytes come).
    fn make_room(&mut self, needed: usize) {
        if self.at > 0 {
            self.buf.drain(..self.at);
            self.at = 0;
        }
        self.buf
            .reserve(needed.saturating_sub(self.buf.len()).min(1 << 20));
    }

    /// One read from a blocking or non-blocking `stream` through `chunk`,
    /// room for at least `needed` unread bytes made first: the bytes read
    /// (0 at the end of the stream).
    pub(crate) fn read_from(
        &mut self,
        stream: &mut impl io::Read,
        needed: usize,
        chunk: &mut [u8],
    ) -> io::Result<usize> {
        self.make_room(needed);
        let read = stream.read(chunk)?;
        self.buf.extend_from_slice(&chunk[..read]);
        Ok(read)
    }

    /// Runs every complete message read so far on `conn` in one batch and
    /// hands its answers to `send` when a message asked for a flush: the
    /// one batch step of both executions (a connection's own thread and
    /// the pool's workers).
    pub(crate) fn serve(
        &mut self,
        conn: &mut Connection,
        send: &mut dyn FnMut(&[u8]) -> io::Result<()>,
    ) -> Result<Batch, ProtocolError> {
        let (end, needed) = self.complete()?;
        if end == 0 {
            // Between requests: a terminate or notifications that came.
            let attended = conn.attend();
            if attended.flush && !conn.out.buf.is_empty() {
                send(&conn.out.buf)?;
                conn.out.buf.clear();
            }
            if attended.close {
                return Ok(Batch::Close);
            }
            return Ok(Batch::Needs(needed));
        }
        let ran = conn.run_contained(&self.unread()[..end]);
        self.consume(end);
        let ran = ran?;
        if ran.flush && !conn.out.buf.is_empty() {
            send(&conn.out.buf)?;
            conn.out.buf.clear();
        }
        Ok(if ran.close { Batch::Close } else { Batch::Ran })
    }

    /// The longest prefix of complete messages, or what the first
    /// incomplete one needs.
    fn complete(&self) -> Result<(usize, usize), ProtocolError> {
        let unread = self.unread();
        let mut end = 0;
        loop {
            match protocol::message_frame(&unread[end..])? {
                Frame::Complete(len) => end += len,
                Frame::Partial { needed } => return Ok((end, needed)),
            }
        }
    }
}

fn eof(e: &ProtocolError) -> bool {
    matches!(e, ProtocolError::Io(e) if matches!(
        e.kind(),
        io::ErrorKind::UnexpectedEof | io::ErrorKind::ConnectionReset | io::ErrorKind::BrokenPipe
    ))
}

/// A started connection: its stream (out of the accept thread's runtime,
/// still non-blocking), what was read past the startup, and its session.
pub struct Started {
    stream: Stream,
    inbox: Inbox,
    conn: Connection,
}

impl Started {
    /// Its stream, what was read past the startup, and its connection.
    pub(crate) fn into_parts(self) -> (Stream, Inbox, Connection) {
        (self.stream, self.inbox, self.conn)
    }
}

/// How a connection ended: its error, unless it just closed.
pub fn report(pid: u32, result: Result<(), ProtocolError>) {
    if let Err(e) = result
        && !eof(&e)
    {
        eprintln!("folio: connection {pid}: {e}");
    }
}

/// The startup of a connection (on the accept thread's runtime, so a
/// CancelRequest is served even while every worker runs a statement).
/// `admit` says whether a connection slot was free (else the client gets
/// PostgreSQL's 53300 after its startup). `None`: the connection ended
/// (a CancelRequest, a refusal, the client gone).
pub(crate) async fn startup(
    mut stream: impl Accepted,
    shared: &Arc<Shared>,
    admit: bool,
    pid: u32,
) -> Result<Option<Started>, ProtocolError> {
    stream.prepare()?;
    let mut inbox = Inbox::default();
    let parameters = loop {
        let len = loop {
            match protocol::startup_frame(inbox.unread())? {
                Frame::Complete(len) => break len,
                Frame::Partial { needed } => {
                    if !inbox.fill(&mut stream, needed).await? {
                        return Ok(None);
                    }
                }
            }
        };
        let (code, body) = protocol::startup(&inbox.unread()[..len])?;
        match code {
            // No TLS, no GSS encryption: the client continues in the clear.
            SSL_REQUEST | GSS_REQUEST => stream.write_all(b"N").await?,
            CANCEL_REQUEST => {
                let (target, key) = protocol::cancel_request(body)?;
                shared.cancel(target, key);
                return Ok(None);
            }
            PROTOCOL_3 => {
                let parameters = protocol::startup_parameters(body)?;
                inbox.consume(len);
                break parameters;
            }
            other => {
                let message = format!(
                    "unsupported frontend protocol {}.{}: server supports 3.0",
                    other >> 16,
                    other & 0xFFFF
                );
                return fatal(&mut stream, "0A000", &message).await;
            }
        }
        inbox.consume(len);
    };
    if !admit {
        return fatal(&mut stream, "53300", "sorry, too many clients already").await;
    }
    let get = |name: &str| {
        parameters
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    };
    let user = get("user").unwrap_or("");
    match folio_sql::roles::get(&shared.db, user) {
        Ok(Some(_)) => {}
        Ok(None) => {
            let message = format!("role \"{user}\" does not exist");
            return fatal(&mut stream, "28000", &message).await;
        }
        Err(e) => return fatal(&mut stream, e.code, &e.message).await,
    }
    let database = get("database").unwrap_or(user);
    if database != "postgres" {
        let message = format!("database \"{database}\" does not exist");
        return fatal(&mut stream, "3D000", &message).await;
    }
    if shared.auth == Auth::ScramSha256
        && !authenticate(&mut stream, &mut inbox, shared, user).await?
    {
        return Ok(None);
    }
    let mut conn = Connection::new(shared.db.clone(), pid)?;
    let max_connections = u32::try_from(shared.max_connections).unwrap_or(u32::MAX);
    conn.session_mut().set_max_connections(max_connections);
    if let Some(kb) = shared.statement_memory_limit_kb {
        conn.session_mut().set_statement_memory_limit_kb(kb);
    }
    // (After authentication, as PostgreSQL: a NOLOGIN role's 28000.)
    if let Err(e) = conn.session_mut().set_user(user) {
        return fatal(&mut stream, e.code, &e.message).await;
    }
    let (client, server) = (stream.peer(), stream.local());
    conn.session().backend().update(|a| {
        a.user = user.to_string();
        a.database = database.to_string();
        a.has_client = true;
        a.client = client;
        a.server = server;
    });
    if let Err(e) = startup_settings(&mut conn, &parameters) {
        return fatal(&mut stream, e.code, &e.message).await;
    }
    let application_name = conn
        .session()
        .show_setting("application_name")
        .unwrap_or_default();
    conn.session()
        .backend()
        .update(|a| a.application_name = application_name.clone());
    let mut out = Out::default();
    out.authentication_ok();
    for (name, value) in [
        ("server_version", SERVER_VERSION),
        ("server_encoding", "UTF8"),
        ("client_encoding", "UTF8"),
        ("integer_datetimes", "on"),
        ("standard_conforming_strings", "on"),
    ] {
        out.parameter_status(name, value);
    }
    for name in crate::connection::REPORTED {
        out.parameter_status(name, &conn.reported_value(name));
    }
    let key = shared.cancel_key(pid, conn.interrupt());
    out.backend_key_data(pid, key);
    conn.greet(out);
    stream.write_all(&conn.out.buf).await?;
    conn.out.buf.clear();
    Ok(Some(Started {
        stream: stream.into_stream()?,
        inbox,
        conn,
    }))
}

/// Applies the startup packet's settings to the new session: every
/// parameter but `user`, `database` and `replication`, and the `-c
/// name=value` settings in `options`, as PostgreSQL does.
fn startup_settings(
    conn: &mut Connection,
    parameters: &[(String, String)],
) -> Result<(), folio_sql::SqlError> {
    for (name, value) in parameters {
        match name.as_str() {
            "user" | "database" | "replication" => {}
            "options" => {
                let settings = protocol::startup_options(value).map_err(|arg| {
                    folio_sql::SqlError::new(
                        "42601",
                        format!("invalid command-line argument for server process: {arg}"),
                    )
                })?;
                for (name, value) in settings {
                    conn.session_mut().set_at_startup(&name, &value)?;
                }
            }
            _ => conn.session_mut().set_at_startup(name, value)?,
        }
    }
    Ok(())
}

/// The next whole message of the startup phase: its type and body
/// (`None`: the client went away).
async fn next_message(
    stream: &mut impl Accepted,
    inbox: &mut Inbox,
) -> Result<Option<(u8, Vec<u8>)>, ProtocolError> {
    loop {
        match protocol::message_frame(inbox.unread())? {
            Frame::Complete(len) => {
                let (kind, body) = protocol::message(&inbox.unread()[..len]);
                let message = (kind, body.to_vec());
                inbox.consume(len);
                return Ok(Some(message));
            }
            Frame::Partial { needed } => {
                if !inbox.fill(stream, needed).await? {
                    return Ok(None);
                }
            }
        }
    }
}

/// SCRAM-SHA-256 authentication of `user` (`scram.rs`): `false` when it
/// failed (the FATAL error sent) or the client went away.
async fn authenticate(
    stream: &mut impl Accepted,
    inbox: &mut Inbox,
    shared: &Arc<Shared>,
    user: &str,
) -> Result<bool, ProtocolError> {
    let verifier = match folio_sql::roles::password(&shared.db, user) {
        Ok(v) => v,
        Err(e) => {
            fatal(stream, e.code, &e.message).await?;
            return Ok(false);
        }
    };
    let mut out = Out::default();
    out.authentication_sasl(scram::MECHANISM);
    stream.write_all(&out.buf).await?;
    let failed = |e: scram::AuthError| (e.code, e.message);
    let Some((b'p', body)) = next_message(stream, inbox).await? else {
        return Ok(false);
    };
    let (mechanism, first) = protocol::sasl_initial_response(&body)?;
    if mechanism != scram::MECHANISM {
        let message = format!("{mechanism}: not an offered SASL mechanism");
        fatal(stream, "28000", &message).await?;
        return Ok(false);
    }
    let (exchange, server_first) = match scram::Exchange::start(user, verifier, first) {
        Ok(started) => started,
        Err(e) => {
            let (code, message) = failed(e);
            fatal(stream, code, &message).await?;
            return Ok(false);
        }
    };
    let mut out = Out::default();
    out.authentication_sasl_data(&server_first, false);
    stream.write_all(&out.buf).await?;
    let Some((b'p', last)) = next_message(stream, inbox).await? else {
        return Ok(false);
    };
    match exchange.finish(&last) {
        Ok(server_final) => {
            let mut out = Out::default();
            out.authentication_sasl_data(&server_final, true);
            stream.write_all(&out.buf).await?;
            Ok(true)
        }
        Err(e) => {
            let (code, message) = failed(e);
            fatal(stream, code, &message).await?;
            Ok(false)
        }
    }
}

/// Batches run on the connection's own thread, which also does its I/O
/// with blocking calls, while `stay` says so before each read: otherwise
/// the connection is handed back, between requests, to go to the pool.
/// `None` when it ended.
pub(crate) fn on_thread(
    started: Started,
    stay: &dyn Fn() -> bool,
) -> Result<Option<Started>, ProtocolError> {
    use std::io::Write;
    let Started {
        mut stream,
        mut inbox,
        mut conn,
    } = started;
    stream.set_nonblocking(false)?;
    conn.lend_socket(Some(stream.as_fd().try_clone_to_owned()?));
    let mut chunk = vec![0u8; READ_CHUNK_BYTES];
    loop {
        match inbox.serve(&mut conn, &mut |answers| stream.write_all(answers))? {
            Batch::Ran => {}
            Batch::Close => return Ok(None),
            Batch::Needs(_) if !stay() => {
                conn.lend_socket(None);
                return Ok(Some(Started {
                    stream,
                    inbox,
                    conn,
                }));
            }
            Batch::Needs(needed) if !conn.needs_waker() => {
                // A terminate shuts the socket's reading side: the read
                // returns 0 and the next turn closes with its FATAL.
                if inbox.read_from(&mut stream, needed, &mut chunk)? == 0
                    && !conn.session().terminated()
                {
                    return Ok(None);
                }
            }
            Batch::Needs(needed) => {
                // Wait for the client or the session's waker.
                let (client, woken) = {
                    let wake = conn.wake_fd();
                    let mut fds = [
                        PollFd::new(&stream, PollFlags::IN),
                        PollFd::new(&wake, PollFlags::IN),
                    ];
                    match rustix::event::poll(&mut fds, None) {
                        Ok(_) => {}
                        Err(rustix::io::Errno::INTR) => continue,
                        Err(e) => return Err(io::Error::from(e).into()),
                    }
                    (!fds[0].revents().is_empty(), !fds[1].revents().is_empty())
                };
                if woken {
                    conn.drain_wake();
                }
                if client && inbox.read_from(&mut stream, needed, &mut chunk)? == 0 {
                    return Ok(None);
                }
            }
        }
    }
}

/// Sends a FATAL error; the connection then closes.
async fn fatal(
    stream: &mut impl Accepted,
    code: &str,
    message: &str,
) -> Result<Option<Started>, ProtocolError> {
    let mut out = Out::default();
    connection::fatal(&mut out, code, message);
    stream.write_all(&out.buf).await?;
    Ok(None)
}

const _: () = assert!(READ_CHUNK_BYTES < MAX_MESSAGE);
