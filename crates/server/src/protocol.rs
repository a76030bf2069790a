//! The PostgreSQL protocol 3.0's messages: reading the frontend's from a
//! stream (checked lengths, never more than a limit) and encoding the
//! backend's into a buffer.
//!
//! A frontend message is a type byte, a 4-byte big-endian length that
//! counts itself, and the body; the startup packet has no type byte.

use std::io;

/// The largest message accepted (PostgreSQL's limit for most messages is
/// 1 GiB; a COPY data row larger than this is refused too).
pub const MAX_MESSAGE: usize = 1 << 30;

/// The protocol version 3.0 and the special startup codes.
pub const PROTOCOL_3: u32 = 196_608;
pub const SSL_REQUEST: u32 = 80_877_103;
pub const GSS_REQUEST: u32 = 80_877_104;
pub const CANCEL_REQUEST: u32 = 80_877_102;

/// Why a connection must close.
#[derive(Debug, thiserror::Error)]
pub enum ProtocolError {
    #[error(transparent)]
    Io(#[from] io::Error),
    #[error("invalid message length {0}")]
    Length(usize),
    #[error("malformed message: {0}")]
    Malformed(&'static str),
}

/// The length of the frame whose 4-byte big-endian length (counting
/// itself) starts `buf`, once those four bytes are in; lengths below 4 or
/// above [`MAX_MESSAGE`] are refused before any body is read.
fn frame_length(buf: &[u8]) -> Result<Option<usize>, ProtocolError> {
    let Some(len) = buf.get(..4) else {
        return Ok(None);
    };
    let len = u32::from_be_bytes([len[0], len[1], len[2], len[3]]) as usize;
    if !(4..=MAX_MESSAGE).contains(&len) {
        return Err(ProtocolError::Length(len));
    }
    Ok(Some(len))
}

/// A frame at the start of `buf`: how many bytes it takes, or, while it is
/// not all in, at least how many it will (`Err`: a bad length).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Frame {
    Complete(usize),
    Partial { needed: usize },
}

/// The startup packet (no type byte) at the start of `buf`.
pub fn startup_frame(buf: &[u8]) -> Result<Frame, ProtocolError> {
    Ok(match frame_length(buf)? {
        Some(len) if buf.len() >= len => Frame::Complete(len),
        Some(len) => Frame::Partial { needed: len },
        None => Frame::Partial { needed: 4 },
    })
}

/// A typed frontend message at the start of `buf`.
pub fn message_frame(buf: &[u8]) -> Result<Frame, ProtocolError> {
    let Some(rest) = buf.get(1..) else {
        return Ok(Frame::Partial { needed: 5 });
    };
    Ok(match frame_length(rest)? {
        Some(len) if rest.len() >= len => Frame::Complete(len + 1),
        Some(len) => Frame::Partial { needed: len + 1 },
        None => Frame::Partial { needed: 5 },
    })
}

/// A complete startup packet's code (protocol version or a request) and
/// the rest.
pub fn startup(frame: &[u8]) -> Result<(u32, &[u8]), ProtocolError> {
    let body = &frame[4..];
    if body.len() < 4 {
        return Err(ProtocolError::Malformed("startup packet too short"));
    }
    let code = u32::from_be_bytes([body[0], body[1], body[2], body[3]]);
    Ok((code, &body[4..]))
}

/// A complete typed message's type byte and body.
pub fn message(frame: &[u8]) -> (u8, &[u8]) {
    (frame[0], &frame[5..])
}

/// A CancelRequest's process id and secret key.
/// A SASLInitialResponse: the mechanism and the client's first message.
pub fn sasl_initial_response(body: &[u8]) -> Result<(&str, &[u8]), ProtocolError> {
    let (mechanism, rest) = cstring(body)?;
    let bad = || ProtocolError::Malformed("SASLInitialResponse");
    let len = rest.get(..4).ok_or_else(bad)?;
    let len = i32::from_be_bytes(len.try_into().map_err(|_| bad())?);
    let data = &rest[4..];
    if len < 0 || len as usize != data.len() {
        return Err(bad());
    }
    Ok((mechanism, data))
}

pub fn cancel_request(body: &[u8]) -> Result<(u32, u32), ProtocolError> {
    let mut at = Reader { bytes: body };
    Ok((at.u32()?, at.u32()?))
}

/// The settings in a startup packet's `options` parameter, as the
/// postgres command line takes them: `-c name=value`, `-cname=value` or
/// `--name=value`, separated by spaces (a backslash keeps the next
/// character, a space included). `Err`: the argument that is not one.
pub fn startup_options(options: &str) -> Result<Vec<(String, String)>, String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut chars = options.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => word.extend(chars.next()),
            c if c.is_ascii_whitespace() => {
                if !word.is_empty() {
                    words.push(std::mem::take(&mut word));
                }
            }
            c => word.push(c),
        }
    }
    if !word.is_empty() {
        words.push(word);
    }
    let mut out = Vec::new();
    let mut words = words.into_iter();
    while let Some(word) = words.next() {
        let setting = if word == "-c" {
            words.next().ok_or_else(|| word.clone())?
        } else if let Some(rest) = word.strip_prefix("--").or_else(|| word.strip_prefix("-c")) {
            rest.to_string()
        } else {
            return Err(word);
        };
        let (name, value) = setting.split_once('=').ok_or_else(|| setting.clone())?;
        out.push((name.replace('-', "_"), value.to_string()));
    }
    Ok(out)
}

/// The `name\0value\0 ... \0` parameters of a startup packet.
pub fn startup_parameters(body: &[u8]) -> Result<Vec<(String, String)>, ProtocolError> {
    let mut strings = body.split(|&b| b == 0);
    let mut out = Vec::new();
    loop {
        let name = strings
            .next()
            .ok_or(ProtocolError::Malformed("startup parameters"))?;
        if name.is_empty() {
            return Ok(out);
        }
        let value = strings
            .next()
            .ok_or(ProtocolError::Malformed("startup parameters"))?;
        let text = |b: &[u8]| {
            String::from_utf8(b.to_vec())
                .map_err(|_| ProtocolError::Malformed("startup parameter encoding"))
        };
        out.push((text(name)?, text(value)?));
    }
}

/// A NUL-terminated string at the start of `body`, and the rest.
pub fn cstring(body: &[u8]) -> Result<(&str, &[u8]), ProtocolError> {
    let end = body
        .iter()
        .position(|&b| b == 0)
        .ok_or(ProtocolError::Malformed("string without terminator"))?;
    let text = std::str::from_utf8(&body[..end])
        .map_err(|_| ProtocolError::Malformed("string encoding"))?;
    Ok((text, &body[end + 1..]))
}

/// An Execute's row limit, after its portal name (0: all rows; so is a
/// negative one, as in PostgreSQL).
pub fn max_rows(rest: &[u8]) -> Result<u32, ProtocolError> {
    let bytes: [u8; 4] = rest
        .get(..4)
        .and_then(|b| b.try_into().ok())
        .ok_or(ProtocolError::Malformed("an Execute without its row limit"))?;
    Ok(i32::from_be_bytes(bytes).max(0) as u32)
}

/// The target of a Describe or Close: `S` (statement) or `P` (portal),
/// and its name.
pub fn target(body: &[u8]) -> Result<(u8, &str), ProtocolError> {
    let (&what, rest) = body.split_first().ok_or(ProtocolError::Malformed(
        "describe or close without a target",
    ))?;
    let (name, _) = cstring(rest)?;
    Ok((what, name))
}

/// The parameter type oids after a Parse's statement text (0: not
/// given, inferred; an absent list: none given).
pub fn parse_types(rest: &[u8]) -> Result<Vec<u32>, ProtocolError> {
    if rest.is_empty() {
        return Ok(Vec::new());
    }
    let mut at = Reader { bytes: rest };
    let count = at.u16()?;
    (0..count).map(|_| at.u32()).collect()
}

/// A Bind message: portal, statement, parameters (raw bytes, `None`:
/// NULL) with their format codes, and the results' format codes (0 text,
/// 1 binary; none: all text; one: for every column).
pub struct Bind {
    pub portal: String,
    pub statement: String,
    pub parameters: Vec<Option<Vec<u8>>>,
    pub parameter_formats: Vec<u16>,
    pub result_formats: Vec<u16>,
}

/// The format code of item `i` of `n` under PostgreSQL's rule (no codes:
/// text; one: for all; else one each).
pub fn format_of(codes: &[u16], i: usize) -> u16 {
    match codes {
        [] => 0,
        [one] => *one,
        many => many.get(i).copied().unwrap_or(0),
    }
}

/// Reads a Bind body.
pub fn bind(body: &[u8]) -> Result<Bind, ProtocolError> {
    let (portal, rest) = cstring(body)?;
    let (statement, rest) = cstring(rest)?;
    let mut at = Reader { bytes: rest };
    let formats = at.u16()?;
    let parameter_formats = (0..formats)
        .map(|_| at.u16())
        .collect::<Result<Vec<_>, _>>()?;
    let count = at.u16()?;
    let mut parameters = Vec::with_capacity(usize::from(count));
    for _ in 0..count {
        let len = at.u32()? as i32;
        parameters.push(if len < 0 {
            None
        } else {
            Some(at.take(len as usize)?.to_vec())
        });
    }
    let results = at.u16()?;
    let result_formats = (0..results)
        .map(|_| at.u16())
        .collect::<Result<Vec<_>, _>>()?;
    if parameter_formats
        .iter()
        .chain(&result_formats)
        .any(|f| *f > 1)
    {
        return Err(ProtocolError::Malformed("format code"));
    }
    Ok(Bind {
        portal: portal.to_string(),
        statement: statement.to_string(),
        parameters,
        parameter_formats,
        result_formats,
    })
}

/// Big-endian fields of a message body, checked against its end.
struct Reader<'a> {
    bytes: &'a [u8],
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], ProtocolError> {
        if self.bytes.len() < n {
            return Err(ProtocolError::Malformed("message cut short"));
        }
        let (head, tail) = self.bytes.split_at(n);
        self.bytes = tail;
        Ok(head)
    }

    fn u16(&mut self) -> Result<u16, ProtocolError> {
        let b = self.take(2)?;
        Ok(u16::from_be_bytes([b[0], b[1]]))
    }

    fn u32(&mut self) -> Result<u32, ProtocolError> {
        let b = self.take(4)?;
        Ok(u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
    }
}

/// Backend messages, appended to a buffer sent in one write.
#[derive(Debug, Default)]
pub struct Out {
    pub buf: Vec<u8>,
    /// A FATAL error was put in: the connection closes after it.
    fatal: bool,
}

impl Out {
    /// Whether a FATAL error was put in.
    pub fn sent_fatal(&self) -> bool {
        self.fatal
    }

    /// A message of type `kind` whose body `body` writes.
    fn message(&mut self, kind: u8, body: impl FnOnce(&mut Vec<u8>)) {
        self.buf.push(kind);
        let at = self.buf.len();
        self.buf.extend_from_slice(&[0; 4]);
        body(&mut self.buf);
        let len = (self.buf.len() - at) as u32;
        self.buf[at..at + 4].copy_from_slice(&len.to_be_bytes());
    }

    pub fn authentication_ok(&mut self) {
        self.message(b'R', |b| b.extend_from_slice(&0u32.to_be_bytes()));
    }

    /// AuthenticationSASL offering `mechanism`.
    pub fn authentication_sasl(&mut self, mechanism: &str) {
        self.message(b'R', |b| {
            b.extend_from_slice(&10u32.to_be_bytes());
            put_cstring(b, mechanism);
            b.push(0);
        });
    }

    /// AuthenticationSASLContinue (`last`: AuthenticationSASLFinal) with
    /// the mechanism's `data`.
    pub fn authentication_sasl_data(&mut self, data: &[u8], last: bool) {
        let code: u32 = if last { 12 } else { 11 };
        self.message(b'R', |b| {
            b.extend_from_slice(&code.to_be_bytes());
            b.extend_from_slice(data);
        });
    }

    pub fn parameter_status(&mut self, name: &str, value: &str) {
        self.message(b'S', |b| {
            put_cstring(b, name);
            put_cstring(b, value);
        });
    }

    pub fn backend_key_data(&mut self, pid: u32, key: u32) {
        self.message(b'K', |b| {
            b.extend_from_slice(&pid.to_be_bytes());
            b.extend_from_slice(&key.to_be_bytes());
        });
    }

    pub fn ready_for_query(&mut self, status: u8) {
        self.message(b'Z', |b| b.push(status));
    }

    /// NotificationResponse: a `NOTIFY` on a channel the session listens
    /// on, from session `pid`.
    pub fn notification_response(&mut self, pid: u32, channel: &str, payload: &str) {
        self.message(b'A', |b| {
            b.extend_from_slice(&pid.to_be_bytes());
            put_cstring(b, channel);
            put_cstring(b, payload);
        });
    }

    /// RowDescription: (name, type oid) per column, with the result
    /// format codes (none: text).
    /// RowDescription of columns given as (name, type oid).
    pub fn row_description<'a>(
        &mut self,
        columns: impl ExactSizeIterator<Item = (&'a str, u32)>,
        formats: &[u16],
    ) {
        self.message(b'T', |b| {
            b.extend_from_slice(&(columns.len() as u16).to_be_bytes());
            for (i, (name, oid)) in columns.enumerate() {
                put_cstring(b, name);
                let mut field = [0u8; 18];
                // Table oid and column number 0 (bytes 0..6), then:
                field[6..10].copy_from_slice(&oid.to_be_bytes());
                field[10..12].copy_from_slice(&(-1i16).to_be_bytes()); // type size
                field[12..16].copy_from_slice(&(-1i32).to_be_bytes()); // type modifier
                field[16..18].copy_from_slice(&format_of(formats, i).to_be_bytes());
                b.extend_from_slice(&field);
            }
        });
    }

    /// DataRow of `count` values, the `i`th encoded by `value(i)` (`None`:
    /// NULL) straight into the message; the first error leaves no message.
    pub fn data_row<E>(
        &mut self,
        count: usize,
        mut value: impl FnMut(usize) -> Result<Option<Vec<u8>>, E>,
    ) -> Result<(), E> {
        let start = self.buf.len();
        let mut failed = Ok(());
        self.message(b'D', |b| {
            b.extend_from_slice(&(count as u16).to_be_bytes());
            for i in 0..count {
                match value(i) {
                    Ok(Some(bytes)) => {
                        b.extend_from_slice(&(bytes.len() as u32).to_be_bytes());
                        b.extend_from_slice(&bytes);
                    }
                    Ok(None) => b.extend_from_slice(&(-1i32).to_be_bytes()),
                    Err(e) => {
                        failed = Err(e);
                        return;
                    }
                }
            }
        });
        if failed.is_err() {
            self.buf.truncate(start);
        }
        failed
    }

    pub fn command_complete(&mut self, tag: &str) {
        self.message(b'C', |b| put_cstring(b, tag));
    }

    /// PortalSuspended: an Execute's row limit was reached.
    pub fn portal_suspended(&mut self) {
        self.message(b's', |_| {});
    }

    pub fn parse_complete(&mut self) {
        self.message(b'1', |_| {});
    }

    pub fn bind_complete(&mut self) {
        self.message(b'2', |_| {});
    }

    pub fn close_complete(&mut self) {
        self.message(b'3', |_| {});
    }

    pub fn no_data(&mut self) {
        self.message(b'n', |_| {});
    }

    /// ParameterDescription: `count` parameters of unspecified type (0:
    /// they take the type of what they meet).
    /// ParameterDescription: each parameter's type oid.
    pub fn parameter_description(&mut self, oids: &[u32]) {
        self.message(b't', |b| {
            b.extend_from_slice(&(oids.len() as u16).to_be_bytes());
            for oid in oids {
                b.extend_from_slice(&oid.to_be_bytes());
            }
        });
    }

    pub fn empty_query_response(&mut self) {
        self.message(b'I', |_| {});
    }

    /// CopyInResponse: text format, `columns` text columns.
    pub fn copy_in_response(&mut self, columns: usize) {
        self.message(b'G', |b| {
            b.push(0);
            b.extend_from_slice(&(columns as u16).to_be_bytes());
            for _ in 0..columns {
                b.extend_from_slice(&0u16.to_be_bytes());
            }
        });
    }

    /// CopyOutResponse (text format, `columns` columns), a CopyData per
    /// line, CopyDone.
    pub fn copy_out(&mut self, columns: usize, lines: &[Vec<u8>]) {
        self.message(b'H', |b| {
            b.push(0);
            b.extend_from_slice(&(columns as u16).to_be_bytes());
            for _ in 0..columns {
                b.extend_from_slice(&0u16.to_be_bytes());
            }
        });
        for line in lines {
            self.message(b'd', |b| b.extend_from_slice(line));
        }
        self.message(b'c', |_| {});
    }

    /// ErrorResponse (`E`) or NoticeResponse (`N`): severity, SQLSTATE,
    /// message.
    pub fn error_or_notice(&mut self, kind: u8, severity: &str, code: &str, message: &str) {
        self.error_fields(kind, severity, code, message, &[]);
    }

    /// An ErrorResponse or NoticeResponse with optional fields after the
    /// message, each a field code and its value: PostgreSQL's DETAIL
    /// (`D`), HINT (`H`) and position (`P`).
    pub fn error_fields(
        &mut self,
        kind: u8,
        severity: &str,
        code: &str,
        message: &str,
        optional: &[(u8, &str)],
    ) {
        self.fatal |= severity == "FATAL";
        self.message(kind, |b| {
            for (field, value) in [
                (b'S', severity),
                (b'V', severity),
                (b'C', code),
                (b'M', message),
            ]
            .into_iter()
            .chain(optional.iter().copied())
            {
                b.push(field);
                put_cstring(b, value);
            }
            b.push(0);
        });
    }
}

/// A protocol string: its bytes and a NUL. A NUL inside `s` would end
/// the field early and shift every field after it (a client then reads
/// the message wrongly), so `s` is cut there, as PostgreSQL's C strings
/// end at their first NUL.
fn put_cstring(b: &mut Vec<u8>, s: &str) {
    // A byte search: `str::split` costs ~150 instructions a call, and
    // every message with a name or tag (two a point query) comes here.
    let bytes = s.as_bytes();
    let end = bytes.iter().position(|&c| c == 0).unwrap_or(bytes.len());
    b.extend_from_slice(&bytes[..end]);
    b.push(0);
}

#[cfg(test)]
mod tests {
    use super::*;

    // Proves lengths below 4 or over the limit are refused before any
    // body is read, a frame is complete only with all its bytes, and
    // startup parameters parse.
    #[test]
    fn startup_options_are_command_line_settings() {
        let got = startup_options(r" -c a=1  -cb=two --enable-x=off -c app=x\ y ").unwrap();
        let want = [
            ("a", "1"),
            ("b", "two"),
            ("enable_x", "off"),
            ("app", "x y"),
        ];
        let want: Vec<(String, String)> = want
            .iter()
            .map(|(n, v)| (n.to_string(), v.to_string()))
            .collect();
        assert_eq!(got, want);
        assert_eq!(startup_options("-c"), Err("-c".to_string()));
        assert_eq!(startup_options("-c noequals"), Err("noequals".to_string()));
        assert_eq!(startup_options("-d 3"), Err("-d".to_string()));
    }

    // Proves a NUL inside an error's message cannot break the message's
    // fields: the message is cut there and the fields after it stay whole.
    #[test]
    fn an_error_field_never_holds_a_nul() {
        let mut out = Out::default();
        out.error_fields(b'E', "ERROR", "22P02", "bad \0input", &[(b'D', "detail")]);
        let (kind, body) = message(&out.buf);
        assert_eq!(kind, b'E');
        assert_eq!(body, &b"SERROR\0VERROR\0C22P02\0Mbad \0Ddetail\0\0"[..]);
    }

    #[test]
    fn framing_is_checked() {
        assert!(matches!(
            message_frame(b"Q\x00\x00\x00\x03"),
            Err(ProtocolError::Length(3))
        ));
        assert!(matches!(
            message_frame(b"Q\x7f\xff\xff\xff"),
            Err(ProtocolError::Length(_))
        ));
        assert_eq!(
            message_frame(b"Q\x00\x00\x00\x09ab").unwrap(),
            Frame::Partial { needed: 10 }
        );
        assert_eq!(
            message_frame(b"Q\x00").unwrap(),
            Frame::Partial { needed: 5 }
        );
        let frame = b"Q\x00\x00\x00\x06a\x00Q";
        assert_eq!(message_frame(frame).unwrap(), Frame::Complete(7));
        assert_eq!(message(&frame[..7]), (b'Q', &b"a\x00"[..]));
        let packet = b"\x00\x00\x00\x10\x04\xd2\x16\x2e\x00\x00\x00\x07\x00\x00\x00\x09";
        assert_eq!(startup_frame(packet).unwrap(), Frame::Complete(16));
        let (code, body) = startup(packet).unwrap();
        assert_eq!(code, CANCEL_REQUEST);
        assert_eq!(cancel_request(body).unwrap(), (7, 9));
        assert!(cancel_request(&body[..6]).is_err());
        assert!(startup(b"\x00\x00\x00\x06ab").is_err());
        let params = startup_parameters(b"user\x00bob\x00database\x00postgres\x00\x00").unwrap();
        assert_eq!(
            params,
            [
                ("user".into(), "bob".into()),
                ("database".into(), "postgres".into())
            ]
        );
        assert!(startup_parameters(b"user\x00bob").is_err());
    }
}
