//! One client connection: startup, then simple queries (with the COPY
//! sub-protocol) until the client terminates or the connection drops.
//! Blocking I/O on the connection's own thread; its session runs there
//! too (README "Shape": the session may block on locks and fsyncs).
//! A dropped connection drops the session, whose open transaction rolls
//! back.

use crate::protocol::{
    self, CANCEL_REQUEST, GSS_REQUEST, Out, PROTOCOL_3, ProtocolError, SSL_REQUEST,
};
use folio_db::Database;
use folio_row::Value;
use folio_sql::{Column, Output, Session, SqlError, binary_input, binary_output, text_output};
use std::collections::HashMap;
use std::io::{BufReader, Write};
use std::net::TcpStream;
use std::sync::Arc;

pub use folio_sql::SERVER_VERSION;

/// Serves one connection. `admit` says whether a connection slot was
/// free (else the client gets PostgreSQL's 53300 after its startup).
pub fn serve(
    stream: TcpStream,
    db: Arc<Database>,
    admit: bool,
    pid: u32,
) -> Result<(), ProtocolError> {
    stream.set_nodelay(true)?;
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut writer = stream;
    let parameters = loop {
        let (code, body) = protocol::read_startup(&mut reader)?;
        match code {
            // No TLS, no GSS encryption: the client continues in the clear.
            SSL_REQUEST | GSS_REQUEST => writer.write_all(b"N")?,
            CANCEL_REQUEST => return Ok(()),
            PROTOCOL_3 => break protocol::startup_parameters(&body)?,
            other => {
                return fatal(
                    &mut writer,
                    "0A000",
                    &format!(
                        "unsupported frontend protocol {}.{}: server supports 3.0",
                        other >> 16,
                        other & 0xFFFF
                    ),
                );
            }
        }
    };
    if !admit {
        return fatal(&mut writer, "53300", "sorry, too many clients already");
    }
    let get = |name: &str| {
        parameters
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    };
    let user = get("user").unwrap_or("");
    if user != "postgres" {
        return fatal(
            &mut writer,
            "28000",
            &format!("role \"{user}\" does not exist"),
        );
    }
    let database = get("database").unwrap_or(user);
    if database != "postgres" {
        return fatal(
            &mut writer,
            "3D000",
            &format!("database \"{database}\" does not exist"),
        );
    }
    let mut out = Out::default();
    out.authentication_ok();
    for (name, value) in [
        ("server_version", SERVER_VERSION),
        ("server_encoding", "UTF8"),
        ("client_encoding", "UTF8"),
        ("DateStyle", "ISO, MDY"),
        ("TimeZone", "UTC"),
        ("integer_datetimes", "on"),
        ("standard_conforming_strings", "on"),
        ("application_name", get("application_name").unwrap_or("")),
    ] {
        out.parameter_status(name, value);
    }
    out.backend_key_data(pid, 0);
    let mut session = Session::new(db);
    out.ready_for_query(session.status().byte());
    writer.write_all(&out.buf)?;
    // After an error, messages of the extended protocol are skipped until
    // its Sync.
    let mut skipping = false;
    let mut portals: HashMap<String, Portal> = HashMap::new();
    // Responses wait here until a Query ends, or a Sync or Flush of the
    // extended protocol comes (as PostgreSQL buffers them).
    let mut out = Out::default();
    loop {
        let (kind, body) = match protocol::read_message(&mut reader) {
            Ok(message) => message,
            // The client went away: the session (and its transaction) ends.
            Err(ProtocolError::Io(e)) if e.kind() == std::io::ErrorKind::UnexpectedEof => {
                return Ok(());
            }
            Err(e) => return Err(e),
        };
        match kind {
            b'Q' => {
                let (sql, _) = protocol::cstring(&body)?;
                simple_query(&mut session, sql, &mut out, &mut reader, &mut writer)?;
                out.ready_for_query(session.status().byte());
            }
            b'X' => return Ok(()),
            // CopyData, CopyDone, CopyFail after a COPY ended in error:
            // ignored, as the protocol says.
            b'd' | b'c' | b'f' => {}
            b'S' => {
                skipping = false;
                out.ready_for_query(session.status().byte());
            }
            b'H' => {}
            b'P' | b'B' | b'E' | b'D' | b'C' if skipping => {}
            b'P' | b'B' | b'E' | b'D' | b'C' => {
                if let Err(e) = extended(kind, &body, &mut session, &mut portals, &mut out)? {
                    skipping = true;
                    error(&mut out, &e);
                }
            }
            other => {
                return fatal(
                    &mut writer,
                    "08P01",
                    &format!("invalid frontend message type {other}"),
                );
            }
        }
        if matches!(kind, b'Q' | b'S' | b'H') {
            writer.write_all(&out.buf)?;
            out.buf.clear();
        }
    }
}

/// Sends a FATAL error; the connection then closes.
fn fatal(writer: &mut TcpStream, code: &str, message: &str) -> Result<(), ProtocolError> {
    let mut out = Out::default();
    out.error_or_notice(b'E', "FATAL", code, message);
    writer.write_all(&out.buf)?;
    Ok(())
}

fn error(out: &mut Out, e: &SqlError) {
    out.error_fields(
        b'E',
        "ERROR",
        e.code,
        &e.message,
        e.detail.as_deref(),
        e.hint.as_deref(),
    );
}

/// A Query message: each statement's notices and results, an error for
/// the first that fails. A `COPY ... FROM STDIN` reads its data here.
fn simple_query(
    session: &mut Session,
    sql: &str,
    out: &mut Out,
    reader: &mut BufReader<TcpStream>,
    writer: &mut TcpStream,
) -> Result<(), ProtocolError> {
    if sql.trim().is_empty() {
        out.empty_query_response();
        return Ok(());
    }
    let (outputs, failed) = session.simple_query(sql);
    notices(session, out);
    for output in outputs {
        match output {
            Output::Command { tag } => out.command_complete(&tag),
            Output::Rows { columns, rows, tag } => {
                describe(out, &columns, &[]);
                if let Err(e) = send_rows(out, &rows, &[], &tag) {
                    error(out, &e);
                    return Ok(());
                }
            }
            Output::CopyIn { columns } => {
                out.copy_in_response(columns);
                writer.write_all(&std::mem::take(&mut out.buf))?;
                copy_in(session, out, reader)?;
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
        error(out, &e);
    }
    Ok(())
}

/// The COPY sub-protocol: CopyData until CopyDone or CopyFail.
fn copy_in(
    session: &mut Session,
    out: &mut Out,
    reader: &mut BufReader<TcpStream>,
) -> Result<(), ProtocolError> {
    loop {
        let (kind, body) = protocol::read_message(reader)?;
        match kind {
            b'd' => {
                if let Err(e) = session.copy_data(&body) {
                    error(out, &e);
                    return Ok(());
                }
            }
            b'c' => {
                match session.copy_done() {
                    Ok(done) => out.command_complete(done.tag()),
                    Err(e) => error(out, &e),
                }
                notices(session, out);
                return Ok(());
            }
            b'f' => {
                let (message, _) = protocol::cstring(&body)?;
                let e = session.copy_fail(message);
                error(out, &e);
                return Ok(());
            }
            // Flush and Sync are ignored during COPY.
            b'H' | b'S' => {}
            _ => {
                let e = session.copy_fail("unexpected message type during COPY");
                error(out, &SqlError::new("08P01", e.message));
                return Ok(());
            }
        }
    }
}

/// The session's notices as NoticeResponses.
fn notices(session: &mut Session, out: &mut Out) {
    for notice in session.take_notices() {
        out.error_or_notice(b'N', notice.severity, notice.code, &notice.message);
    }
}

/// RowDescription of result columns in the given formats (none: text).
fn describe(out: &mut Out, columns: &[Column], formats: &[u16]) {
    let described: Vec<(String, u32)> = columns
        .iter()
        .map(|c| (c.name.clone(), c.type_oid))
        .collect();
    out.row_description(&described, formats);
}

/// DataRows in PostgreSQL's text or binary formats (per column, as
/// `formats` says), then CommandComplete; a value without an output form
/// stops it with that error.
fn send_rows(
    out: &mut Out,
    rows: &[Vec<Value>],
    formats: &[u16],
    tag: &str,
) -> Result<(), SqlError> {
    for row in rows {
        let encoded = row
            .iter()
            .enumerate()
            .map(|(i, v)| match protocol::format_of(formats, i) {
                1 => binary_output(v),
                _ => text_output(v).map(|t| t.map(String::into_bytes)),
            })
            .collect::<Result<Vec<_>, _>>()?;
        out.data_row(&encoded);
    }
    out.command_complete(tag);
    Ok(())
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
                text_output(&binary_input(bytes, ty)?)
            } else {
                String::from_utf8(bytes.clone()).map(Some).map_err(|_| {
                    SqlError::new("22021", "invalid byte sequence for encoding \"UTF8\"")
                })
            }
        })
        .collect()
}

/// A bound portal: its statement and parameters, and its result once run
/// (a Describe of the portal runs it, to describe its rows; the Execute
/// that follows sends them).
struct Portal {
    statement: String,
    parameters: Vec<Option<String>>,
    result_formats: Vec<u16>,
    result: Option<Output>,
}

/// One message of the extended protocol. `Ok(Err(e))`: an SQL error (the
/// rest up to Sync is skipped); `Err`: the connection must close.
fn extended(
    kind: u8,
    body: &[u8],
    session: &mut Session,
    portals: &mut HashMap<String, Portal>,
    out: &mut Out,
) -> Result<Result<(), SqlError>, ProtocolError> {
    let no_portal =
        |name: &str| SqlError::new("34000", format!("portal \"{name}\" does not exist"));
    match kind {
        b'P' => {
            let (name, rest) = protocol::cstring(body)?;
            let (sql, _) = protocol::cstring(rest)?;
            match session.prepare(name, sql) {
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
            portals.insert(
                bind.portal,
                Portal {
                    statement: bind.statement,
                    parameters,
                    result_formats: bind.result_formats,
                    result: None,
                },
            );
            out.bind_complete();
        }
        b'D' => {
            let (what, name) = protocol::target(body)?;
            if what == b'S' {
                // Planned (and the plan kept) to know its parameters'
                // types and its rows.
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
            let Some(portal) = portals.get_mut(name) else {
                return Ok(Err(no_portal(name)));
            };
            let result = match session.execute_prepared(&portal.statement, &portal.parameters) {
                Ok(result) => result,
                Err(e) => return Ok(Err(e)),
            };
            match &result {
                Output::Rows { columns, .. } => describe(out, columns, &portal.result_formats),
                _ => out.no_data(),
            }
            portal.result = Some(result);
        }
        b'E' => {
            let (name, _) = protocol::cstring(body)?;
            let Some(portal) = portals.get_mut(name) else {
                return Ok(Err(no_portal(name)));
            };
            let result = match portal.result.take() {
                Some(result) => result,
                None => match session.execute_prepared(&portal.statement, &portal.parameters) {
                    Ok(result) => result,
                    Err(e) => return Ok(Err(e)),
                },
            };
            notices(session, out);
            match result {
                Output::Rows { rows, tag, .. } => {
                    if let Err(e) = send_rows(out, &rows, &portal.result_formats, &tag) {
                        return Ok(Err(e));
                    }
                }
                Output::Command { tag } => out.command_complete(&tag),
                Output::CopyIn { .. } | Output::CopyOut { .. } => {
                    return Ok(Err(SqlError::unsupported("COPY in the extended protocol")));
                }
            }
        }
        b'C' => {
            let (what, name) = protocol::target(body)?;
            if what == b'S' {
                session.close_prepared(name);
            } else {
                portals.remove(name);
            }
            out.close_complete();
        }
        _ => unreachable!("only extended-protocol messages come here"),
    }
    Ok(Ok(()))
}
