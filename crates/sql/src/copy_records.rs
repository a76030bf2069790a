//! The rows of `COPY ... FROM STDIN` data, which arrives in pieces of any
//! size (the protocol's CopyData messages): the one owner of cutting the
//! data into records (`copy_format::RecordScan`), of the end marker `\.`
//! (the rest is ignored), of the header line (skipped, or with
//! `HEADER MATCH` checked against the columns' names as PostgreSQL 15
//! checks it), of each record's width, and of `FORCE_NOT_NULL` /
//! `FORCE_NULL`. A table's COPY (`copy.rs`) and a view's
//! (`copy_view.rs`) take the rows it hands them: one text or NULL per
//! copied column.

use crate::copy_format::{Field, Format, Header, RecordScan};
use crate::error::SqlError;

/// One record's values, by copied column: its text, or NULL.
pub type Texts = Vec<Option<String>>;

/// The rows of a COPY FROM's data, read so far.
pub struct Records {
    format: Format,
    /// The copied columns' names, in the data's order.
    columns: Vec<String>,
    /// Per column: an unquoted NULL string reads as that text
    /// (`FORCE_NOT_NULL`); a quoted one reads as NULL (`FORCE_NULL`).
    force_not_null: Vec<bool>,
    force_null: Vec<bool>,
    /// The header line is still to come.
    header: bool,
    scan: RecordScan,
    /// The bytes of the record not yet complete.
    partial: Vec<u8>,
    /// `\.` was read.
    ended: bool,
}

impl Records {
    /// The reader of `format`'s data for the copied `columns`.
    pub fn new(format: &Format, columns: Vec<String>) -> Result<Records, SqlError> {
        let names: Vec<&str> = columns.iter().map(String::as_str).collect();
        Ok(Records {
            force_not_null: format.force_not_null.resolve("FORCE_NOT_NULL", &names)?,
            force_null: format.force_null.resolve("FORCE_NULL", &names)?,
            header: format.header != Header::Absent,
            format: format.clone(),
            columns,
            scan: RecordScan::default(),
            partial: Vec::new(),
            ended: false,
        })
    }

    /// The number of columns each record carries.
    pub fn width(&self) -> usize {
        self.columns.len()
    }

    /// Reads the next piece of data: `row` takes each record it completes
    /// (its values and its length in bytes); an incomplete last record is
    /// kept for the next piece. Returns whether the data has ended (`\.`
    /// read: the rows so far are all there are).
    pub fn data(
        &mut self,
        mut data: &[u8],
        mut row: impl FnMut(Texts, usize) -> Result<(), SqlError>,
    ) -> Result<bool, SqlError> {
        while !self.ended {
            let Some(end) = self.scan.record_end(&self.format, data) else {
                self.partial.extend_from_slice(data);
                return Ok(false);
            };
            if self.partial.is_empty() {
                self.record(&data[..end], &mut row)?;
            } else {
                let mut whole = std::mem::take(&mut self.partial);
                whole.extend_from_slice(&data[..end]);
                self.record(&whole, &mut row)?;
            }
            data = &data[end + 1..];
        }
        Ok(true)
    }

    /// The end of the data: a last record without a newline counts; one
    /// inside a quoted field is an error.
    pub fn finish(
        &mut self,
        mut row: impl FnMut(Texts, usize) -> Result<(), SqlError>,
    ) -> Result<(), SqlError> {
        if self.ended {
            return Ok(());
        }
        if self.scan.in_quote() {
            return Err(SqlError::new("22P04", "unterminated CSV quoted field"));
        }
        let last = std::mem::take(&mut self.partial);
        match last.is_empty() {
            true => Ok(()),
            false => self.record(&last, &mut row),
        }
    }

    /// One record (without its newline).
    fn record(
        &mut self,
        line: &[u8],
        row: &mut impl FnMut(Texts, usize) -> Result<(), SqlError>,
    ) -> Result<(), SqlError> {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if line == b"\\." {
            self.ended = true;
            return Ok(());
        }
        let fields = self.format.fields(line)?;
        if self.header {
            self.header = false;
            return self.check_header(&fields);
        }
        let bad = |message: String| SqlError::new("22P04", message);
        if fields.len() > self.columns.len() {
            return Err(bad("extra data after last expected column".into()));
        }
        if fields.len() < self.columns.len() {
            let missing = &self.columns[fields.len()];
            return Err(bad(format!("missing data for column \"{missing}\"")));
        }
        let texts = (fields.into_iter().enumerate())
            .map(|(i, field)| match field.text {
                None if self.force_not_null[i] => Some(self.format.null.clone()),
                Some(text) if field.quoted && self.force_null[i] && text == self.format.null => {
                    None
                }
                text => text,
            })
            .collect();
        row(texts, line.len())
    }

    /// The header line: skipped, or with `HEADER MATCH` checked against
    /// the columns' names.
    fn check_header(&self, fields: &[Field]) -> Result<(), SqlError> {
        if self.format.header != Header::Match {
            return Ok(());
        }
        let bad = |message: String| SqlError::new("22P04", message);
        if fields.len() != self.columns.len() {
            return Err(bad(format!(
                "wrong number of fields in header line: got {}, expected {}",
                fields.len(),
                self.columns.len()
            )));
        }
        for (i, (expected, field)) in self.columns.iter().zip(fields).enumerate() {
            match &field.text {
                None => {
                    return Err(bad(format!(
                        "column name mismatch in header line field {}: got null value (\"{}\"), expected \"{expected}\"",
                        i + 1,
                        self.format.null
                    )));
                }
                Some(got) if got != expected => {
                    return Err(bad(format!(
                        "column name mismatch in header line field {}: got \"{got}\", expected \"{expected}\"",
                        i + 1
                    )));
                }
                Some(_) => {}
            }
        }
        Ok(())
    }
}
