//! `COPY table FROM STDIN` in text format: rows arrive as data in pieces
//! of any size (the protocol's CopyData messages), are cut into lines,
//! fields and values as PostgreSQL's text format reads them, and are
//! inserted as each line completes, so memory holds one line.

use crate::access;
use crate::context::Ctx;
use crate::error::SqlError;
use crate::output::Output;
use crate::parse::Copy;
use crate::types;
use folio_catalog::Relation;
use folio_db::Transaction;
use folio_row::Value;
use std::sync::Arc;

/// A COPY in progress.
pub struct CopyIn {
    relation: Arc<Relation>,
    /// The column each field goes to.
    targets: Vec<usize>,
    delimiter: u8,
    null: String,
    /// The bytes of the line not yet complete.
    partial: Vec<u8>,
    rows: u64,
    /// `\.` was read: the rest is ignored.
    ended: bool,
}

impl CopyIn {
    /// Starts `copy` in `txn`: the table and its columns resolved.
    pub fn start(cx: &Ctx<'_>, txn: &Transaction, copy: &Copy) -> Result<CopyIn, SqlError> {
        let relation = access::relation(cx, txn, &copy.table)?;
        let targets = access::copy_columns(&relation, &copy.table, &copy.columns)?;
        Ok(CopyIn {
            relation,
            targets,
            delimiter: copy.delimiter,
            null: copy.null.clone(),
            partial: Vec::new(),
            rows: 0,
            ended: false,
        })
    }

    /// The number of columns each line carries.
    pub fn width(&self) -> usize {
        self.targets.len()
    }

    /// Takes the next piece of data; every line it completes is inserted.
    pub fn data(&mut self, txn: &mut Transaction, mut data: &[u8]) -> Result<(), SqlError> {
        while !self.ended {
            let Some(end) = data.iter().position(|&b| b == b'\n') else {
                self.partial.extend_from_slice(data);
                return Ok(());
            };
            let line = if self.partial.is_empty() {
                self.line(txn, &data[..end])
            } else {
                let mut whole = std::mem::take(&mut self.partial);
                whole.extend_from_slice(&data[..end]);
                self.line(txn, &whole)
            };
            line?;
            crate::interrupt::every(txn, self.rows)?;
            data = &data[end + 1..];
        }
        Ok(())
    }

    /// The end of the data: a last line without a newline counts. Returns
    /// the rows inserted.
    pub fn finish(mut self, txn: &mut Transaction) -> Result<u64, SqlError> {
        if !self.ended && !self.partial.is_empty() {
            let last = std::mem::take(&mut self.partial);
            self.line(txn, &last)?;
        }
        Ok(self.rows)
    }

    fn line(&mut self, txn: &mut Transaction, line: &[u8]) -> Result<(), SqlError> {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if line == b"\\." {
            self.ended = true;
            return Ok(());
        }
        let line = std::str::from_utf8(line)
            .map_err(|_| SqlError::new("22021", "invalid byte sequence for encoding \"UTF8\""))?;
        let fields: Vec<&str> = line.split(self.delimiter as char).collect();
        let bad = |message: String| SqlError::new("22P04", message);
        if fields.len() > self.targets.len() {
            return Err(bad("extra data after last expected column".into()));
        }
        if fields.len() < self.targets.len() {
            let missing = &self.relation.def.columns[self.targets[fields.len()]].name;
            return Err(bad(format!("missing data for column \"{missing}\"")));
        }
        let mut row = vec![Value::Null; self.relation.def.columns.len()];
        for (&column, field) in self.targets.iter().zip(fields) {
            if field != self.null {
                let text = unescape(field)?;
                row[column] = types::coerce(Value::Text(text), self.relation.types[column])?;
            }
        }
        self.relation.insert(txn, row)?;
        self.rows += 1;
        Ok(())
    }
}

/// A field of the text format with its backslash escapes resolved: `\b`
/// `\f` `\n` `\r` `\t` `\v`, `\` and 1-3 octal digits, `\x` and 1-2 hex
/// digits; any other escaped character stands for itself.
fn unescape(field: &str) -> Result<String, SqlError> {
    if !field.contains('\\') {
        return Ok(field.to_string());
    }
    let bytes = field.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] != b'\\' || i + 1 == bytes.len() {
            out.push(bytes[i]);
            i += 1;
            continue;
        }
        let c = bytes[i + 1];
        i += 2;
        let digits = |i: &mut usize, max: usize, radix: u32| {
            let start = *i;
            while *i < bytes.len() && *i - start < max && (bytes[*i] as char).is_digit(radix) {
                *i += 1;
            }
            u32::from_str_radix(std::str::from_utf8(&bytes[start..*i]).unwrap_or("0"), radix)
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
            b'x' if i < bytes.len() && bytes[i].is_ascii_hexdigit() => digits(&mut i, 2, 16),
            other => other,
        });
    }
    String::from_utf8(out)
        .map_err(|_| SqlError::new("22021", "invalid byte sequence for encoding \"UTF8\""))
}

/// `COPY table [(columns)] TO STDOUT` in text format: every row `txn`
/// sees, each field escaped as PostgreSQL's COPY text format (backslash,
/// `\b \f \n \r \t \v`, the delimiter), NULL as the NULL string.
pub fn copy_out(cx: &Ctx<'_>, txn: &Transaction, copy: &Copy) -> Result<Output, SqlError> {
    let relation = access::relation(cx, txn, &copy.table)?;
    let columns = access::copy_columns(&relation, &copy.table, &copy.columns)?;
    let mut lines = Vec::new();
    for (_, row) in relation.scan(txn)? {
        let mut line = Vec::new();
        for (i, &c) in columns.iter().enumerate() {
            if i > 0 {
                line.push(copy.delimiter);
            }
            match types::text_output(&row[c])? {
                None => line.extend_from_slice(copy.null.as_bytes()),
                Some(text) => {
                    for b in text.bytes() {
                        match b {
                            b'\\' => line.extend_from_slice(b"\\\\"),
                            b'\n' => line.extend_from_slice(b"\\n"),
                            b'\r' => line.extend_from_slice(b"\\r"),
                            b'\t' => line.extend_from_slice(b"\\t"),
                            0x08 => line.extend_from_slice(b"\\b"),
                            0x0b => line.extend_from_slice(b"\\v"),
                            0x0c => line.extend_from_slice(b"\\f"),
                            b if b == copy.delimiter => {
                                line.push(b'\\');
                                line.push(b);
                            }
                            b => line.push(b),
                        }
                    }
                }
            }
        }
        line.push(b'\n');
        lines.push(line);
    }
    let tag = format!("COPY {}", lines.len());
    Ok(Output::CopyOut {
        columns: columns.len(),
        lines,
        tag,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    // Proves the text format's escapes read as PostgreSQL reads them.
    #[test]
    fn escapes() {
        assert_eq!(unescape("plain").unwrap(), "plain");
        assert_eq!(unescape("a\\tb\\nc\\\\d").unwrap(), "a\tb\nc\\d");
        assert_eq!(unescape("\\101\\x42\\q").unwrap(), "ABq");
    }
}
