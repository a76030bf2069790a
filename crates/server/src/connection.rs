//! One client connection's protocol after its startup: the messages a
//! batch holds, run in order against the connection's session, answered
//! into one buffer. Synchronous and independent of how bytes move: the
//! I/O (`wire.rs`) hands it each batch of complete messages it read.
//! A dropped connection drops the session, whose open transaction rolls
//! back.

use crate::portal::{Portal, Portals, data_rows};
use crate::protocol::{self, Frame, Out, ProtocolError};
use folio_db::Database;
use folio_sql::{
    Column, Output, Session, SqlError, TxStatus, binary_input, client_text, text_output,
};
use folio_txn::{CancelCause, Interrupt};
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::sync::{Arc, Mutex, MutexGuard};

pub use folio_sql::SERVER_VERSION;

/// What the I/O does after a batch.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Ran {
    /// Send the buffered responses now (a Query ended, a Sync or Flush
    /// came, or a COPY waits for its data).
    pub flush: bool,
    /// Send them and close (Terminate, or a protocol violation).
    pub close: bool,
}

/// The session and the protocol state around it.
pub struct Connection {
    session: Session,
    /// Written by the session's waker (a terminate or a notification for
    /// it): the I/O waits on it besides the client's socket.
    wake: Arc<OwnedFd>,
    /// The client's socket while its own thread blocks reading it without
    /// a poll ([`Connection::read_blocking`]): a terminate shuts its
    /// reading side, so that the read returns.
    blocking_reader: Arc<Mutex<Option<OwnedFd>>>,
    /// The session's cancel flag.
    interrupt: Arc<Interrupt>,
    portals: Portals,
    /// After an error, messages of the extended protocol are skipped until
    /// its Sync.
    skipping: bool,
    /// A COPY FROM STDIN of a Query waits for its data: the Query's
    /// outputs after it, and its error if a later statement failed.
    copying: Option<(std::vec::IntoIter<Output>, Option<SqlError>)>,
    /// Responses wait here until a Query ends, or a Sync or Flush of the
    /// extended protocol comes (as PostgreSQL buffers them).
    pub out: Out,
    /// The values of [`REPORTED`] the client was last told.
    reported: [String; REPORTED.len()],
    /// The session's settings generation when they were last compared.
    reported_at: u64,
    /// Where the answers of the message being run begin in `out`: a
    /// panic drops what it had written ([`Connection::run_contained`]).
    answering_from: usize,
}

/// The settings a session can change that PostgreSQL reports to the
/// client (its `GUC_REPORT` ones), as the client spells them: their
/// values at startup, then a ParameterStatus before the ReadyForQuery
/// after a change ([`Connection::report_changes`]).
pub const REPORTED: [&str; 4] = ["application_name", "DateStyle", "IntervalStyle", "TimeZone"];

impl Connection {
    /// A connection after a successful startup, its session registered
    /// as process `pid`.
    pub fn new(db: Arc<Database>, pid: u32) -> std::io::Result<Connection> {
        let session = Session::with_pid(db, Some(pid));
        let flags = rustix::event::EventfdFlags::CLOEXEC | rustix::event::EventfdFlags::NONBLOCK;
        let wake = Arc::new(rustix::event::eventfd(0, flags)?);
        let written = wake.clone();
        let blocking_reader = Arc::new(Mutex::new(None::<OwnedFd>));
        let reader = blocking_reader.clone();
        let interrupt = session.interrupt();
        session.backend().set_waker(Arc::new(move || {
            // A full counter (never, in practice) still wakes the reader.
            let _ = rustix::io::write(&*written, &1u64.to_ne_bytes());
            if interrupt.is_terminated()
                && let Some(socket) = &*lock(&reader)
            {
                let _ = rustix::net::shutdown(socket, rustix::net::Shutdown::Read);
            }
        }));
        Ok(Connection {
            wake,
            blocking_reader,
            interrupt: session.interrupt(),
            session,
            portals: Portals::default(),
            skipping: false,
            copying: None,
            out: Out::default(),
            reported: Default::default(),
            reported_at: 0,
            answering_from: 0,
        })
    }

    /// What the session's waker writes: readable when something came for
    /// it ([`Connection::attend`]).
    pub fn wake_fd(&self) -> BorrowedFd<'_> {
        self.wake.as_fd()
    }

    /// Lends it a clone of the client's socket while its I/O, on a thread
    /// of its own, may wait with plain blocking reads (`None` when it
    /// goes to the pool): a terminate then shuts the socket's reading
    /// side, so that a blocked read returns (0) and [`Connection::attend`]
    /// closes the connection with its FATAL.
    pub fn lend_socket(&self, socket: Option<OwnedFd>) {
        *lock(&self.blocking_reader) = socket;
    }

    /// Whether something but a terminate may come for it while idle (a
    /// notification: it listens on a channel), so that its I/O must wait
    /// on [`Connection::wake_fd`] too. Otherwise a plain blocking read of
    /// a lent socket saves a system call per request.
    pub fn needs_waker(&self) -> bool {
        self.session.backend().listening()
    }

    /// Empties the wake-up counter (after a poll saw it readable).
    pub fn drain_wake(&self) {
        let mut counter = [0u8; 8];
        let _ = rustix::io::read(&*self.wake, &mut counter);
    }

    /// Puts the startup's answers in the buffer, with the first
    /// ReadyForQuery.
    pub fn greet(&mut self, startup: Out) {
        self.out = startup;
        self.reported = REPORTED.map(|name| self.reported_value(name));
        self.reported_at = self.session.settings_generation();
        self.ready();
    }

    /// Setting `name` of [`REPORTED`] as the session has it now.
    pub fn reported_value(&self, name: &str) -> String {
        self.session
            .show_setting(&name.to_ascii_lowercase())
            .unwrap_or_default()
    }

    /// A ParameterStatus for each setting of [`REPORTED`] that changed
    /// since the client was last told, as PostgreSQL sends them before
    /// ReadyForQuery.
    fn report_changes(&mut self) {
        let generation = self.session.settings_generation();
        if generation == self.reported_at {
            return;
        }
        self.reported_at = generation;
        for (name, told) in REPORTED.iter().zip(0..) {
            let value = self.reported_value(name);
            if value != self.reported[told] {
                self.out.parameter_status(name, &value);
                self.reported[told] = value;
            }
        }
    }

    /// The connection's session.
    pub fn session(&self) -> &Session {
        &self.session
    }

    /// The connection's session, to change.
    pub fn session_mut(&mut self) -> &mut Session {
        &mut self.session
    }

    /// The session's cancel flag (a CancelRequest sets it).
    pub fn interrupt(&self) -> Arc<Interrupt> {
        self.interrupt.clone()
    }

    /// [`Connection::run`], with a panic while a message runs (a bug:
    /// no input should cause one) kept to this connection, as PostgreSQL
    /// keeps a failed backend's damage from its clients: what the message
    /// had written is dropped, the client gets FATAL XX000 with the
    /// panic's text, and the connection closes; its session, dropped with
    /// it, rolls its transaction back. The server's other sessions go on,
    /// and a pool worker that ran it keeps serving (an unwinding worker
    /// would leave its connection marked as running for ever and the pool
    /// a worker short). The panic's message and place are also on the
    /// server's standard error (Rust's panic hook).
    pub fn run_contained(&mut self, batch: &[u8]) -> Result<Ran, ProtocolError> {
        self.contained(|conn| conn.run(batch))
    }

    fn contained(
        &mut self,
        run: impl FnOnce(&mut Connection) -> Result<Ran, ProtocolError>,
    ) -> Result<Ran, ProtocolError> {
        let ran = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| run(self)));
        ran.unwrap_or_else(|panic| {
            let what = (panic.downcast_ref::<&str>().copied())
                .or_else(|| panic.downcast_ref::<String>().map(String::as_str))
                .unwrap_or("a panic");
            self.out.buf.truncate(self.answering_from);
            fatal(&mut self.out, "XX000", &format!("internal error: {what}"));
            Ok(Ran {
                flush: true,
                close: true,
            })
        })
    }

    /// Runs the complete messages `batch` holds (checked by the I/O's
    /// framing), stopping at a Terminate or a protocol violation.
    pub fn run(&mut self, mut batch: &[u8]) -> Result<Ran, ProtocolError> {
        let mut ran = Ran::default();
        while !batch.is_empty() {
            let Frame::Complete(len) = protocol::message_frame(batch)? else {
                return Err(ProtocolError::Malformed("a batch ends inside a message"));
            };
            let (kind, body) = protocol::message(&batch[..len]);
            batch = &batch[len..];
            self.answering_from = self.out.buf.len();
            let step = if self.copying.is_some() {
                self.copy_message(kind, body)?
            } else {
                self.message(kind, body)?
            };
            ran.flush |= step.flush;
            // A terminate that came while the message ran: the statement
            // (if it noticed) failed with FATAL 57P01; else it is sent now.
            if self.session.terminated() {
                if !self.out.sent_fatal() {
                    fatal(&mut self.out, "57P01", CancelCause::Terminate.message());
                }
                return Ok(Ran {
                    flush: true,
                    close: true,
                });
            }
            if step.close {
                ran.close = true;
                break;
            }
        }
        Ok(ran)
    }

    /// One message outside COPY.
    fn message(&mut self, kind: u8, body: &[u8]) -> Result<Ran, ProtocolError> {
        let flush = Ran {
            flush: true,
            close: false,
        };
        // A cancel is for the statement running when it comes: one that
        // came while the session was idle is forgotten (as PostgreSQL).
        self.interrupt.clear();
        match kind {
            b'Q' => {
                let (sql, _) = protocol::cstring(body)?;
                if sql.trim().is_empty() {
                    self.out.empty_query_response();
                    self.ready();
                    return Ok(flush);
                }
                // Its statements run in the unnamed portal.
                self.portals.close("");
                let (outputs, failed) = self.session.simple_query(sql);
                self.forget_portals();
                notices(&mut self.session, &mut self.out);
                self.outputs(outputs.into_iter(), failed);
                return Ok(flush);
            }
            b'X' => {
                return Ok(Ran {
                    flush: true,
                    close: true,
                });
            }
            // CopyData, CopyDone, CopyFail after a COPY ended in error:
            // ignored, as the protocol says.
            b'd' | b'c' | b'f' => {}
            b'S' => {
                self.skipping = false;
                if let Err(e) = self.session.end_pipeline() {
                    error(&mut self.out, &e);
                }
                self.forget_portals();
                self.ready();
                return Ok(flush);
            }
            b'H' => return Ok(flush),
            b'P' | b'B' | b'E' | b'D' | b'C' if self.skipping => {}
            b'P' | b'B' | b'E' | b'D' | b'C' => {
                if let Err(e) = extended(
                    kind,
                    body,
                    &mut self.session,
                    &mut self.portals,
                    &mut self.out,
                )? {
                    self.skipping = true;
                    self.session.fail_block();
                    error(&mut self.out, &e);
                }
                if kind == b'E' {
                    self.forget_portals();
                }
            }
            other => {
                fatal(
                    &mut self.out,
                    "08P01",
                    &format!("invalid frontend message type {other}"),
                );
                return Ok(Ran {
                    flush: true,
                    close: true,
                });
            }
        }
        Ok(Ran::default())
    }

    /// Drops the portals a ROLLBACK TO undid, and every portal if the
    /// session is outside any block: their transaction ended (a Sync ended the pipeline's, a COMMIT or
    /// ROLLBACK a block's, a Query its own), as PostgreSQL drops a
    /// transaction's portals at its end.
    fn forget_portals(&mut self) {
        if let Some(savepoint) = self.session.take_rolled_back() {
            self.portals.rolled_back_to(savepoint);
        }
        if self.session.status() == TxStatus::Idle {
            self.portals.clear();
        }
    }

    /// A Query's outputs from the next on: each statement's results, up to
    /// a COPY FROM STDIN (which then waits for its data), then the error
    /// if one failed and ReadyForQuery.
    fn outputs(&mut self, mut outputs: std::vec::IntoIter<Output>, failed: Option<SqlError>) {
        while let Some(output) = outputs.next() {
            let out = &mut self.out;
            match output {
                Output::Command { tag } => out.command_complete(&tag),
                Output::Rows {
                    columns,
                    rows,
                    tag,
                    style,
                } => {
                    describe(out, &columns, &[]);
                    let style = style.unwrap_or_else(|| self.session.text_style());
                    if let Err(e) = data_rows(out, &columns, &rows, &[], &style) {
                        error(out, &e);
                        self.ready();
                        return;
                    }
                    out.command_complete(&tag);
                }
                Output::CopyIn { columns } => {
                    out.copy_in_response(columns);
                    self.copying = Some((outputs, failed));
                    return;
                }
                Output::CopyOut {
                    columns,
                    lines,
                    tag,
                } => {
                    out.copy_out(columns, &lines);
                    out.command_complete(&tag);
                }
            }
        }
        if let Some(e) = failed {
            error(&mut self.out, &e);
        }
        self.ready();
    }

    /// ReadyForQuery, after the notifications that came for the session
    /// if it is idle outside a block (as PostgreSQL delivers them); none
    /// once the session is terminated (its FATAL closes the connection).
    fn ready(&mut self) {
        if self.session.terminated() {
            return;
        }
        self.deliver_notifications();
        self.report_changes();
        self.out.ready_for_query(self.session.status().byte());
    }

    /// The notifications waiting for the session as NotificationResponses,
    /// if it is idle outside a block.
    fn deliver_notifications(&mut self) {
        if self.session.status() != folio_sql::TxStatus::Idle || self.copying.is_some() {
            return;
        }
        for n in self.session.backend().take_notifications() {
            self.out
                .notification_response(n.pid, &n.channel, &n.payload);
        }
    }

    /// Between requests, when its waker ran: a terminated session gets
    /// PostgreSQL's FATAL 57P01 and closes; an idle one gets the
    /// notifications that came for it. Cheap when nothing came (one
    /// atomic load).
    pub fn attend(&mut self) -> Ran {
        if !self.session.backend().take_attention() {
            return Ran::default();
        }
        if self.session.terminated() {
            fatal(&mut self.out, "57P01", CancelCause::Terminate.message());
            return Ran {
                flush: true,
                close: true,
            };
        }
        self.deliver_notifications();
        Ran {
            flush: !self.out.buf.is_empty(),
            close: false,
        }
    }

    /// The COPY sub-protocol: CopyData until CopyDone or CopyFail; then the
    /// rest of its Query.
    fn copy_message(&mut self, kind: u8, body: &[u8]) -> Result<Ran, ProtocolError> {
        let out = &mut self.out;
        match kind {
            b'd' => match self.session.copy_data(body) {
                Ok(()) => return Ok(Ran::default()),
                Err(e) => error(out, &e),
            },
            b'c' => {
                match self.session.copy_done() {
                    Ok(done) => out.command_complete(done.tag()),
                    Err(e) => error(out, &e),
                }
                notices(&mut self.session, out);
            }
            b'f' => {
                let (message, _) = protocol::cstring(body)?;
                let e = self.session.copy_fail(message);
                error(out, &e);
            }
            // Flush and Sync are ignored during COPY.
            b'H' | b'S' => return Ok(Ran::default()),
            _ => {
                let e = self
                    .session
                    .copy_fail("unexpected message type during COPY");
                error(out, &SqlError::new("08P01", e.message));
            }
        }
        let (rest, failed) = self.copying.take().expect("in COPY");
        self.outputs(rest, failed);
        Ok(Ran {
            flush: true,
            close: false,
        })
    }
}

/// A FATAL error; the connection then closes.
pub fn fatal(out: &mut Out, code: &str, message: &str) {
    out.error_or_notice(b'E', "FATAL", code, message);
}

fn error(out: &mut Out, e: &SqlError) {
    let position = e.sent_position().map(|p| p.to_string());
    // Every table lives in schema `public`.
    let schema = e.table().map(|_| "public");
    let optional: Vec<(u8, &str)> = [
        (b'D', e.detail.as_deref()),
        (b'H', e.hint.as_deref()),
        (b'P', position.as_deref()),
        (b's', schema),
        (b't', e.table()),
        (b'c', e.column()),
        (b'n', e.constraint()),
    ]
    .into_iter()
    .filter_map(|(field, value)| value.map(|v| (field, v)))
    .collect();
    // `pg_terminate_backend` ends the session, not only its statement.
    let severity = if e.code == "57P01" { "FATAL" } else { "ERROR" };
    out.error_fields(b'E', severity, e.code, &e.message, &optional);
}

/// The session's notices as NoticeResponses.
fn notices(session: &mut Session, out: &mut Out) {
    for notice in session.take_notices() {
        let optional: Vec<(u8, &str)> = [(b'D', &notice.detail), (b'H', &notice.hint)]
            .into_iter()
            .filter_map(|(field, value)| value.as_deref().map(|v| (field, v)))
            .collect();
        out.error_fields(
            b'N',
            notice.severity,
            notice.code,
            &notice.message,
            &optional,
        );
    }
}

/// RowDescription of result columns in the given formats (none: text).
fn describe(out: &mut Out, columns: &[Column], formats: &[u16]) {
    let described = columns.iter().map(|c| (c.name.as_str(), c.type_oid));
    out.row_description(described, formats);
}

/// A Bind's parameters as text (PostgreSQL's unknown-typed literals): a
/// binary one decoded by its inferred type (`Session::describe_prepared`).
fn text_parameters(
    session: &mut Session,
    bind: &protocol::Bind,
) -> Result<Vec<Option<String>>, SqlError> {
    let binary =
        (0..bind.parameters.len()).any(|i| protocol::format_of(&bind.parameter_formats, i) == 1);
    let types = if binary {
        session.describe_prepared(&bind.statement)?.0
    } else {
        Vec::new()
    };
    bind.parameters
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let Some(bytes) = p else { return Ok(None) };
            if protocol::format_of(&bind.parameter_formats, i) == 1 {
                let ty = types.get(i).copied().unwrap_or(folio_row::SqlType::Text);
                Ok(text_output(&binary_input(bytes, ty)?))
            } else {
                client_text(bytes.clone()).map(Some)
            }
        })
        .collect()
}

/// One message of the extended protocol. `Ok(Err(e))`: an SQL error (the
/// rest up to Sync is skipped); `Err`: the connection must close.
fn extended(
    kind: u8,
    body: &[u8],
    session: &mut Session,
    portals: &mut Portals,
    out: &mut Out,
) -> Result<Result<(), SqlError>, ProtocolError> {
    match kind {
        b'P' => {
            let (name, rest) = protocol::cstring(body)?;
            let (sql, rest) = protocol::cstring(rest)?;
            let types = protocol::parse_types(rest)?;
            match session.parse_typed(name, sql, &types) {
                Ok(_) => out.parse_complete(),
                Err(e) => return Ok(Err(e)),
            }
        }
        b'B' => {
            let bind = protocol::bind(body)?;
            match session.parameter_count(&bind.statement) {
                Ok(count) if count != bind.parameters.len() => {
                    return Ok(Err(SqlError::new(
                        "08P01",
                        format!(
                            "bind message supplies {} parameters, but prepared statement \"{}\" requires {count}",
                            bind.parameters.len(),
                            bind.statement
                        ),
                    )));
                }
                Ok(_) => {}
                Err(e) => return Ok(Err(e)),
            }
            let parameters = match text_parameters(session, &bind) {
                Ok(parameters) => parameters,
                Err(e) => return Ok(Err(e)),
            };
            let mark = session.portal_mark();
            let portal = Portal::new(bind.statement, parameters, bind.result_formats, mark);
            if let Err(e) = portals.bind(bind.portal, portal) {
                return Ok(Err(e));
            }
            out.bind_complete();
        }
        b'D' => {
            let (what, name) = protocol::target(body)?;
            if what == b'S' {
                // Its kept plan (made at Parse, again after DDL) knows its
                // parameters' types and its rows.
                let (types, columns) = match session.describe_prepared(name) {
                    Ok(described) => described,
                    Err(e) => return Ok(Err(e)),
                };
                let oids: Vec<u32> = types.iter().map(|t| t.oid()).collect();
                out.parameter_description(&oids);
                match columns {
                    Some(columns) => describe(out, &columns, &[]),
                    None => out.no_data(),
                }
                return Ok(Ok(()));
            }
            let portal = match portals.get_mut(name) {
                Ok(portal) => portal,
                Err(e) => return Ok(Err(e)),
            };
            // A query's or row change's portal is described by its plan's
            // columns, without running (its effects wait for Execute).
            if portal.result.is_none() {
                match session.portal_columns(&portal.statement) {
                    Ok(Some(Some(columns))) => {
                        describe(out, &columns, &portal.result_formats);
                        return Ok(Ok(()));
                    }
                    Ok(Some(None)) => {
                        out.no_data();
                        return Ok(Ok(()));
                    }
                    Ok(None) => {}
                    Err(e) => return Ok(Err(e)),
                }
            }
            // Another statement runs to tell its rows; a portal that ran
            // is described by its kept result (rows not in a failed
            // block, as PostgreSQL).
            if portal.result.is_none() {
                match run(session, portal) {
                    Ok(result) => portal.result = Some(result),
                    Err(e) => return Ok(Err(e)),
                }
            } else if session.status() == TxStatus::Failed
                && matches!(portal.result, Some(Output::Rows { .. }))
            {
                return Ok(Err(SqlError::in_failed_block()));
            }
            match &portal.result {
                Some(Output::Rows { columns, .. }) => {
                    describe(out, columns, &portal.result_formats)
                }
                _ => out.no_data(),
            }
        }
        b'E' => {
            let (name, rest) = protocol::cstring(body)?;
            let max_rows = protocol::max_rows(rest)?;
            let portal = match portals.get_mut(name) {
                Ok(portal) => portal,
                Err(e) => return Ok(Err(e)),
            };
            if !portal.runnable() {
                return Ok(Err(SqlError::new(
                    "55000",
                    format!("portal \"{name}\" cannot be run"),
                )));
            }
            if portal.result.is_none() {
                match run(session, portal) {
                    Ok(result) => portal.result = Some(result),
                    Err(e) => return Ok(Err(e)),
                }
            } else if session.status() == TxStatus::Failed {
                // Continuing a portal is a statement of the failed block.
                return Ok(Err(SqlError::in_failed_block()));
            }
            notices(session, out);
            if let Err(e) = portal.send(out, max_rows, &session.text_style()) {
                return Ok(Err(e));
            }
        }
        b'C' => {
            let (what, name) = protocol::target(body)?;
            if what == b'S' {
                session.close_prepared(name);
            } else {
                portals.close(name);
            }
            out.close_complete();
        }
        _ => unreachable!("only extended-protocol messages come here"),
    }
    Ok(Ok(()))
}

/// Runs a bound portal's statement (opening the pipeline's implicit
/// block outside one).
fn run(session: &mut Session, portal: &Portal) -> Result<Output, SqlError> {
    session.execute_in_pipeline(&portal.statement, &portal.parameters)
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn connection() -> (tempfile::TempDir, Connection) {
        let dir = tempfile::tempdir().unwrap();
        let db = Database::create(dir.path().join("db"), Default::default()).unwrap();
        (dir, Connection::new(Arc::new(db), 1).unwrap())
    }

    // Proves a panic while a message runs ends only that connection: the
    // answers of earlier messages stay, the panicking one's are dropped,
    // FATAL XX000 with the panic's text follows, and the connection
    // closes.
    #[test]
    fn a_panic_is_a_fatal_error_of_its_connection() {
        let (_dir, mut conn) = connection();
        let ran = conn.contained(|c| {
            c.out.buf.extend_from_slice(b"earlier");
            c.answering_from = c.out.buf.len();
            c.out.buf.extend_from_slice(b"half a DataRow");
            panic!("index {} out of range", 7)
        });
        let ran = ran.unwrap();
        assert!(ran.close && ran.flush);
        assert!(conn.out.sent_fatal());
        let (earlier, error) = conn.out.buf.split_at(7);
        assert_eq!(earlier, b"earlier");
        assert_eq!(error[0], b'E');
        let text = String::from_utf8_lossy(error);
        assert!(text.contains("SFATAL"), "{text}");
        assert!(text.contains("CXX000"), "{text}");
        assert!(
            text.contains("Minternal error: index 7 out of range"),
            "{text}"
        );
    }
}
