//! COPY's two text formats, `text` and `csv`, as PostgreSQL 15 reads and
//! writes them: the options that shape a format (checked as PostgreSQL
//! checks them), where a record ends, how a record is cut into fields, and
//! how a value is written.
//!
//! - **text**: one record per line; fields split at the delimiter; a
//!   backslash escapes the next character (`\t`, `\n`, octal, hex, the
//!   delimiter itself); a field whose raw text is the NULL string (`\N`)
//!   is NULL.
//! - **csv**: fields split at the delimiter outside quotes; a quoted field
//!   may hold delimiters and newlines, a quote inside it is written
//!   doubled (or after the escape character); an unquoted field equal to
//!   the NULL string (empty by default) is NULL, a quoted one is not
//!   (`FORCE_NOT_NULL` and `FORCE_NULL` change that per column).

use crate::error::SqlError;

/// Text or CSV.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Text,
    Csv,
}

/// The first line of the data: absent, column names, or (COPY FROM only)
/// column names that must match the columns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Header {
    Absent,
    Present,
    Match,
}

/// Columns named by `FORCE_QUOTE`, `FORCE_NOT_NULL` or `FORCE_NULL`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum Forced {
    #[default]
    None,
    /// `*`: every column.
    All,
    Columns(Vec<String>),
}

impl Forced {
    /// Which of `columns` (by name) are forced; a name not among them is
    /// an error, as PostgreSQL's.
    pub fn resolve(&self, option: &str, columns: &[&str]) -> Result<Vec<bool>, SqlError> {
        match self {
            Forced::None => Ok(vec![false; columns.len()]),
            Forced::All => Ok(vec![true; columns.len()]),
            Forced::Columns(names) => {
                let mut forced = vec![false; columns.len()];
                for name in names {
                    let Some(i) = columns.iter().position(|c| c == name) else {
                        return Err(SqlError::new(
                            "42P10",
                            format!("{option} column \"{name}\" not referenced by COPY"),
                        ));
                    };
                    forced[i] = true;
                }
                Ok(forced)
            }
        }
    }
}

/// A COPY's format and its options.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Format {
    pub kind: Kind,
    pub delimiter: u8,
    pub null: String,
    pub header: Header,
    pub quote: u8,
    pub escape: u8,
    pub force_quote: Forced,
    pub force_not_null: Forced,
    pub force_null: Forced,
}

/// The options as written, before defaults: each may be given once.
#[derive(Debug, Default)]
pub struct Options {
    pub kind: Option<Kind>,
    pub delimiter: Option<String>,
    pub null: Option<String>,
    pub header: Option<Header>,
    pub quote: Option<String>,
    pub escape: Option<String>,
    pub force_quote: Option<Forced>,
    pub force_not_null: Option<Forced>,
    pub force_null: Option<Forced>,
    /// `FREEZE`: nothing to do (folio never freezes), but given once.
    pub freeze: Option<bool>,
    /// `ENCODING`: UTF-8, the only one accepted, given once.
    pub encoding: Option<()>,
}

/// Sets an option given once; a second time is PostgreSQL's 42601, at
/// `position` (the second option's, when known).
pub fn once<T>(slot: &mut Option<T>, value: T, position: Option<usize>) -> Result<(), SqlError> {
    if slot.is_some() {
        let error = SqlError::conflicting_options();
        return Err(match position {
            Some(p) => error.at(p),
            None => error,
        });
    }
    *slot = Some(value);
    Ok(())
}

impl Options {
    /// The format, defaults filled in, checked as PostgreSQL 15's
    /// `ProcessCopyOptions` checks it (`to`: COPY TO).
    pub fn format(self, to: bool) -> Result<Format, SqlError> {
        let kind = self.kind.unwrap_or(Kind::Text);
        let csv = kind == Kind::Csv;
        let unsupported = |m: &str| Err(SqlError::new("0A000", m.to_string()));
        let invalid = |m: String| Err(SqlError::new("22023", m));
        let delimiter = match self.delimiter.as_deref() {
            None => {
                if csv {
                    b','
                } else {
                    b'\t'
                }
            }
            Some(d) if d.len() == 1 => d.as_bytes()[0],
            Some(_) => return unsupported("COPY delimiter must be a single one-byte character"),
        };
        if delimiter == b'\n' || delimiter == b'\r' {
            return invalid("COPY delimiter cannot be newline or carriage return".into());
        }
        let null = self
            .null
            .unwrap_or_else(|| if csv { String::new() } else { "\\N".into() });
        if null.contains(['\n', '\r']) {
            return invalid(
                "COPY null representation cannot use newline or carriage return".into(),
            );
        }
        if !csv && b"\\.abcdefghijklmnopqrstuvwxyz0123456789".contains(&delimiter) {
            return invalid(format!(
                "COPY delimiter cannot be \"{}\"",
                delimiter as char
            ));
        }
        if self.header == Some(Header::Match) && to {
            return unsupported("cannot use \"match\" with HEADER in COPY TO");
        }
        let single = |what: &str, value: Option<String>, default: u8| match value.as_deref() {
            None => Ok(default),
            Some(v) if v.len() == 1 => Ok(v.as_bytes()[0]),
            Some(_) => Err(SqlError::new(
                "0A000",
                format!("COPY {what} must be a single one-byte character"),
            )),
        };
        if !csv {
            for (given, what) in [
                (self.quote.is_some(), "quote"),
                (self.escape.is_some(), "escape"),
                (self.force_quote.is_some(), "force quote"),
                (self.force_not_null.is_some(), "force not null"),
                (self.force_null.is_some(), "force null"),
            ] {
                if given {
                    return unsupported(&format!("COPY {what} available only in CSV mode"));
                }
            }
        }
        let quote = single("quote", self.quote, b'"')?;
        let escape = single("escape", self.escape, quote)?;
        if csv && delimiter == quote {
            return invalid("COPY delimiter and quote must be different".into());
        }
        if self.force_quote.is_some() && !to {
            return unsupported("COPY force quote only available using COPY TO");
        }
        if self.force_not_null.is_some() && to {
            return unsupported("COPY force not null only available using COPY FROM");
        }
        if self.force_null.is_some() && to {
            return unsupported("COPY force null only available using COPY FROM");
        }
        if null.as_bytes().contains(&delimiter) {
            return invalid("COPY delimiter must not appear in the NULL specification".into());
        }
        if csv && null.as_bytes().contains(&quote) {
            return invalid("CSV quote character must not appear in the NULL specification".into());
        }
        Ok(Format {
            kind,
            delimiter,
            null,
            header: self.header.unwrap_or(Header::Absent),
            quote,
            escape,
            force_quote: self.force_quote.unwrap_or_default(),
            force_not_null: self.force_not_null.unwrap_or_default(),
            force_null: self.force_null.unwrap_or_default(),
        })
    }
}

/// Where records end in data arriving in pieces: CSV's quoted fields may
/// hold newlines, so the scan keeps whether it is inside quotes across
/// pieces.
#[derive(Debug, Default)]
pub struct RecordScan {
    in_quote: bool,
    /// The previous byte was the escape character inside quotes (CSV with
    /// an escape other than the quote).
    escaped: bool,
}

impl RecordScan {
    /// The offset of the newline that ends the current record in `data`
    /// (the record's earlier bytes were scanned before), or `None` if
    /// `data` ends inside it.
    pub fn record_end(&mut self, format: &Format, data: &[u8]) -> Option<usize> {
        if format.kind == Kind::Text {
            return data.iter().position(|&b| b == b'\n');
        }
        for (i, &b) in data.iter().enumerate() {
            if self.escaped {
                self.escaped = false;
            } else if self.in_quote && b == format.escape && format.escape != format.quote {
                self.escaped = true;
            } else if b == format.quote {
                self.in_quote = !self.in_quote;
            } else if b == b'\n' && !self.in_quote {
                return Some(i);
            }
        }
        None
    }

    /// Whether the data ended inside a quoted field.
    pub fn in_quote(&self) -> bool {
        self.in_quote
    }
}

/// One field as read: its text, and whether any of it was quoted (CSV).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Field {
    /// `None`: the raw text was the NULL string (unquoted, in CSV).
    pub text: Option<String>,
    pub quoted: bool,
}

impl Format {
    /// The fields of one record (without its line end).
    pub fn fields(&self, record: &[u8]) -> Result<Vec<Field>, SqlError> {
        match self.kind {
            Kind::Text => self.text_fields(record),
            Kind::Csv => self.csv_fields(record),
        }
    }

    fn text_fields(&self, record: &[u8]) -> Result<Vec<Field>, SqlError> {
        let mut fields = Vec::new();
        let mut start = 0;
        let mut i = 0;
        loop {
            // A field ends at an unescaped delimiter or the record's end.
            while i < record.len() && record[i] != self.delimiter {
                i += if record[i] == b'\\' { 2 } else { 1 };
            }
            let end = i.min(record.len());
            let raw = &record[start..end];
            let text = if raw == self.null.as_bytes() {
                None
            } else {
                Some(crate::text_bytes::text(unescape(raw))?)
            };
            fields.push(Field {
                text,
                quoted: false,
            });
            if end == record.len() {
                return Ok(fields);
            }
            i = end + 1;
            start = i;
        }
    }

    fn csv_fields(&self, record: &[u8]) -> Result<Vec<Field>, SqlError> {
        let mut fields = Vec::new();
        let mut i = 0;
        loop {
            let start = i;
            let mut value = Vec::new();
            let mut quoted = false;
            let mut in_quote = false;
            while i < record.len() {
                let b = record[i];
                if in_quote {
                    if b == self.escape
                        && i + 1 < record.len()
                        && (record[i + 1] == self.quote || record[i + 1] == self.escape)
                        && (self.escape != self.quote || record[i + 1] == self.quote)
                    {
                        value.push(record[i + 1]);
                        i += 2;
                        continue;
                    }
                    if b == self.quote {
                        in_quote = false;
                    } else {
                        value.push(b);
                    }
                } else if b == self.delimiter {
                    break;
                } else if b == self.quote {
                    in_quote = true;
                    quoted = true;
                } else {
                    value.push(b);
                }
                i += 1;
            }
            if in_quote {
                return Err(SqlError::new("22P04", "unterminated CSV quoted field"));
            }
            let raw = &record[start..i];
            let text = if !quoted && raw == self.null.as_bytes() {
                None
            } else {
                Some(crate::text_bytes::text(value)?)
            };
            fields.push(Field { text, quoted });
            if i == record.len() {
                return Ok(fields);
            }
            i += 1;
        }
    }

    /// Appends `text` (`None`: NULL) as a field; `force_quote` quotes it
    /// in CSV even where it need not be; `only` says it is the record's
    /// only field (CSV then quotes `\.`, which would read as the end).
    pub fn write_field(
        &self,
        out: &mut Vec<u8>,
        text: Option<&str>,
        force_quote: bool,
        only: bool,
    ) {
        let Some(text) = text else {
            out.extend_from_slice(self.null.as_bytes());
            return;
        };
        match self.kind {
            Kind::Text => self.write_text(out, text),
            Kind::Csv => self.write_csv(out, text, force_quote, only),
        }
    }

    fn write_text(&self, out: &mut Vec<u8>, text: &str) {
        for b in text.bytes() {
            match b {
                b'\\' => out.extend_from_slice(b"\\\\"),
                b'\n' => out.extend_from_slice(b"\\n"),
                b'\r' => out.extend_from_slice(b"\\r"),
                b'\t' => out.extend_from_slice(b"\\t"),
                0x08 => out.extend_from_slice(b"\\b"),
                0x0b => out.extend_from_slice(b"\\v"),
                0x0c => out.extend_from_slice(b"\\f"),
                b if b == self.delimiter => {
                    out.push(b'\\');
                    out.push(b);
                }
                b => out.push(b),
            }
        }
    }

    fn write_csv(&self, out: &mut Vec<u8>, text: &str, force_quote: bool, only: bool) {
        let bytes = text.as_bytes();
        let quote = force_quote
            || bytes == self.null.as_bytes()
            || (only && bytes == b"\\.")
            || bytes
                .iter()
                .any(|&b| b == self.delimiter || b == self.quote || b == b'\n' || b == b'\r');
        if !quote {
            out.extend_from_slice(bytes);
            return;
        }
        out.push(self.quote);
        for &b in bytes {
            if b == self.quote || b == self.escape {
                out.push(self.escape);
            }
            out.push(b);
        }
        out.push(self.quote);
    }
}

/// A text-format field with its backslash escapes resolved: `\b` `\f`
/// `\n` `\r` `\t` `\v`, `\` and 1-3 octal digits, `\x` and 1-2 hex
/// digits; any other escaped character stands for itself.
fn unescape(field: &[u8]) -> Vec<u8> {
    if !field.contains(&b'\\') {
        return field.to_vec();
    }
    let mut out = Vec::with_capacity(field.len());
    let mut i = 0;
    while i < field.len() {
        if field[i] != b'\\' || i + 1 == field.len() {
            out.push(field[i]);
            i += 1;
            continue;
        }
        let c = field[i + 1];
        i += 2;
        let digits = |i: &mut usize, max: usize, radix: u32| {
            let start = *i;
            while *i < field.len() && *i - start < max && (field[*i] as char).is_digit(radix) {
                *i += 1;
            }
            u32::from_str_radix(std::str::from_utf8(&field[start..*i]).unwrap_or("0"), radix)
                .unwrap_or(0) as u8
        };
        out.push(match c {
            b'b' => 8,
            b'f' => 12,
            b'n' => b'\n',
            b'r' => b'\r',
            b't' => b'\t',
            b'v' => 11,
            b'0'..=b'7' => {
                i -= 1;
                digits(&mut i, 3, 8)
            }
            b'x' if i < field.len() && field[i].is_ascii_hexdigit() => digits(&mut i, 2, 16),
            other => other,
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text() -> Format {
        Options::default().format(false).unwrap()
    }

    fn csv() -> Format {
        Options {
            kind: Some(Kind::Csv),
            ..Options::default()
        }
        .format(false)
        .unwrap()
    }

    fn texts(fields: Vec<Field>) -> Vec<Option<String>> {
        fields.into_iter().map(|f| f.text).collect()
    }

    // Proves the text format's escapes and NULLs read as PostgreSQL reads
    // them, an escaped delimiter staying inside its field.
    #[test]
    fn text_fields_and_escapes() {
        assert_eq!(unescape(b"a\\tb\\nc\\\\d"), b"a\tb\nc\\d");
        assert_eq!(unescape(b"\\101\\x42\\q"), b"ABq");
        let f = text();
        assert_eq!(
            texts(f.fields(b"1\t\\N\tx\\\ty").unwrap()),
            vec![Some("1".into()), None, Some("x\ty".into())]
        );
        let mut out = Vec::new();
        f.write_field(&mut out, Some("a\tb\\"), false, false);
        assert_eq!(out, b"a\\tb\\\\");
    }

    // Proves CSV's quoting reads and writes as PostgreSQL's: quoted
    // delimiters, doubled quotes, the empty string against NULL.
    #[test]
    fn csv_fields_and_quoting() {
        let f = csv();
        assert_eq!(
            texts(f.fields(b"1,,\"\",\"a,\"\"b\"\"\"").unwrap()),
            vec![
                Some("1".into()),
                None,
                Some(String::new()),
                Some("a,\"b\"".into())
            ]
        );
        assert!(f.fields(b"\"open").is_err());
        let mut out = Vec::new();
        for (i, v) in [Some("plain"), Some(""), None, Some("a\"b,c")]
            .into_iter()
            .enumerate()
        {
            if i > 0 {
                out.push(b',');
            }
            f.write_field(&mut out, v, false, false);
        }
        assert_eq!(out, b"plain,\"\",,\"a\"\"b,c\"");
        let mut scan = RecordScan::default();
        assert_eq!(scan.record_end(&f, b"1,\"a\nb\"\n2"), Some(7));
    }

    // Proves the options are checked as PostgreSQL checks them.
    #[test]
    fn bad_options_are_errors() {
        let bad = |o: Options, to: bool| o.format(to).unwrap_err().code;
        assert_eq!(
            bad(
                Options {
                    quote: Some("'".into()),
                    ..Options::default()
                },
                false
            ),
            "0A000"
        );
        assert_eq!(
            bad(
                Options {
                    kind: Some(Kind::Csv),
                    delimiter: Some("\"".into()),
                    ..Options::default()
                },
                false
            ),
            "22023"
        );
        let mut twice = None;
        once(&mut twice, 1, None).unwrap();
        let error = once(&mut twice, 2, Some(7)).unwrap_err();
        assert_eq!((error.code, error.position), ("42601", Some(7)));
    }
}
