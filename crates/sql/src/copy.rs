//! `COPY table FROM STDIN` and `COPY table | (query) TO STDOUT` in text
//! or CSV format (`copy_format`): rows arrive as data in pieces of any
//! size (the protocol's CopyData messages), are cut into records, fields
//! and values, and are inserted a batch at a time (`BATCH_ROWS` rows, a
//! heap record per page: PostgreSQL's COPY buffers rows the same way), so
//! memory holds one batch. Into a table with INSERT triggers
//! (`triggers.rs`) the BEFORE STATEMENT ones fire as it starts, each row
//! of a batch goes through the BEFORE ROW ones and is written alone (the
//! next row's triggers see it), and the AFTER ones fire as it ends.

use crate::access;
use crate::constraints::Constraints;
use crate::context::Ctx;
use crate::copy_format::Header;
use crate::copy_records::{Records, Texts};
use crate::deferred::Pending;
use crate::error::SqlError;
use crate::output::Output;
use crate::parse::Copy;
use crate::query;
use crate::scalar::Env;
use crate::triggers::{Event, Triggers};
use crate::types;
use folio_catalog::Relation;
use folio_db::Transaction;
use folio_row::Value;
use sqlparser::ast::Statement;
use std::sync::Arc;

/// A COPY inserts its rows together up to this many, or once their
/// records reach [`BATCH_BYTES`] (PostgreSQL's COPY buffers up to 1,000
/// rows or 64 KB per table), so a batch of large values stays small.
const BATCH_ROWS: usize = 1000;
const BATCH_BYTES: usize = 64 << 10;

/// A COPY FROM in progress: into a table, or into a view with an
/// INSTEAD OF INSERT trigger (`copy_view.rs`).
pub enum CopyIn {
    Table(Box<TableCopy>),
    View(Box<crate::copy_view::ViewCopy>),
}

impl CopyIn {
    /// Starts `copy` in `txn`: the relation and its columns resolved.
    pub fn start(cx: &Ctx<'_>, txn: &mut Transaction, copy: &Copy) -> Result<CopyIn, SqlError> {
        let table = crate::temp_tables::resolve_name(cx, txn, &copy.table)?;
        if let Some(view) = crate::copy_view::ViewCopy::start(cx, txn, &table, copy)? {
            return Ok(CopyIn::View(Box::new(view)));
        }
        Ok(CopyIn::Table(Box::new(TableCopy::start(cx, txn, copy)?)))
    }

    /// Whether triggers fire (the data then needs the statement's scope:
    /// `object_scope.rs`).
    pub fn has_triggers(&self) -> bool {
        match self {
            CopyIn::Table(t) => t.has_triggers(),
            CopyIn::View(_) => true,
        }
    }

    /// The number of columns each line carries.
    pub fn width(&self) -> usize {
        match self {
            CopyIn::Table(t) => t.width(),
            CopyIn::View(v) => v.width(),
        }
    }

    /// Takes the next piece of data ([`TableCopy::data`]).
    pub fn data(
        &mut self,
        cx: &Ctx<'_>,
        txn: &mut Transaction,
        pending: Option<&Pending>,
        data: &[u8],
    ) -> Result<(), SqlError> {
        match self {
            CopyIn::Table(t) => t.data(cx, txn, pending, data),
            CopyIn::View(v) => v.data(cx, txn, data),
        }
    }

    /// The end of the data; the rows inserted.
    pub fn finish(
        self,
        cx: &Ctx<'_>,
        txn: &mut Transaction,
        pending: Option<&Pending>,
    ) -> Result<u64, SqlError> {
        match self {
            CopyIn::Table(t) => t.finish(cx, txn, pending),
            CopyIn::View(v) => v.finish(cx, txn),
        }
    }
}

/// A COPY into a table in progress: the data's rows (`copy_records.rs`)
/// and where they go.
pub struct TableCopy {
    records: Records,
    into: TableRows,
}

/// The rows of a COPY into a table, as they are inserted.
struct TableRows {
    relation: Arc<Relation>,
    /// Its defaults (for the columns not copied) and constraints.
    constraints: Constraints,
    /// `CURRENT_TIMESTAMP` of the transaction (for defaults).
    now: i64,
    /// The column each field goes to.
    targets: Vec<usize>,
    rows: u64,
    /// Rows read and checked for arity, not yet inserted, and the bytes of
    /// their records.
    batch: Vec<Vec<Value>>,
    batch_bytes: usize,
    /// The sequences the defaults call (`serial` columns left out).
    sequences: Option<crate::sequences::Calls>,
    /// The table's INSERT triggers, if it has any.
    triggers: Option<Triggers>,
}

/// Which way a COPY moves rows: `FROM` a client into the table (`In`)
/// or `TO` a client out of it (`Out`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Direction {
    In,
    Out,
}

/// The table `table` (`written` as the statement names it) that a COPY
/// reads or fills: the one owner of which relations COPY takes. A view
/// or materialized view is PostgreSQL's 42809 (`cannot copy to view
/// "v"`, `cannot copy from view "v"`, with its HINT); a view with an
/// INSTEAD OF INSERT trigger is `copy_view.rs`'s, asked first.
fn copied_table(
    cx: &Ctx<'_>,
    txn: &Transaction,
    table: &str,
    written: &str,
    direction: Direction,
) -> Result<Arc<Relation>, SqlError> {
    let refuse = |kind: &str| {
        let e = match direction {
            Direction::In => SqlError::new("42809", format!("cannot copy to {kind} \"{written}\"")),
            Direction::Out => {
                SqlError::new("42809", format!("cannot copy from {kind} \"{written}\""))
                    .with_hint("Try the COPY (SELECT ...) TO variant.")
            }
        };
        match (direction, kind) {
            (Direction::In, "view") => {
                e.with_hint("To enable copying to a view, provide an INSTEAD OF INSERT trigger.")
            }
            _ => e,
        }
    };
    let relation = match access::relation(cx, txn, table) {
        Ok(relation) => relation,
        Err(e) => match cx.db.catalog().view(txn, table)? {
            Some(_) => return Err(refuse("view")),
            None => return Err(e),
        },
    };
    if relation.def.matview.is_some() {
        return Err(refuse("materialized view"));
    }
    Ok(relation)
}

impl TableCopy {
    /// Starts `copy` in `txn`: the table and its columns resolved.
    fn start(cx: &Ctx<'_>, txn: &mut Transaction, copy: &Copy) -> Result<TableCopy, SqlError> {
        let table = crate::temp_tables::resolve_name(cx, txn, &copy.table)?;
        let relation = copied_table(cx, txn, &table, &copy.table, Direction::In)?;
        // INSERT on the columns copied (column privileges may grant it).
        let targets = access::copy_columns(&relation, &table, &copy.columns)?;
        let inserted = crate::privileges::INSERT;
        let uses = crate::privileges::note_columns(cx, &relation.def, &table, "table", inserted);
        targets.iter().for_each(|&c| uses.record(c));
        crate::privileges::check_all(cx, &cx.needs.take())?;
        let names = (targets.iter())
            .map(|&c| relation.def.columns[c].name.clone())
            .collect();
        let constraints = Constraints::bind(cx, txn, &relation)?;
        let sequences = match constraints.sequences().is_empty() {
            true => None,
            false => Some(crate::sequences::Calls::resolve(
                cx,
                txn,
                constraints.sequences(),
            )?),
        };
        let triggers = Triggers::start(cx, txn, &relation, Event::Insert, &[])?;
        Ok(TableCopy {
            records: Records::new(&copy.format, names)?,
            into: TableRows {
                sequences,
                triggers,
                relation,
                constraints,
                now: cx.now(),
                targets,
                rows: 0,
                batch: Vec::with_capacity(BATCH_ROWS),
                batch_bytes: 0,
            },
        })
    }

    /// Whether the table's triggers fire (its data then needs the
    /// statement's scope: `object_scope.rs`).
    pub fn has_triggers(&self) -> bool {
        self.into.triggers.is_some()
    }

    /// The number of columns each line carries.
    pub fn width(&self) -> usize {
        self.records.width()
    }

    /// Takes the next piece of data; every record it completes is
    /// inserted. `pending`: the block's deferred foreign key checks (none:
    /// the COPY is its own transaction, and its rows are checked as they
    /// come).
    pub fn data(
        &mut self,
        cx: &Ctx<'_>,
        txn: &mut Transaction,
        pending: Option<&Pending>,
        data: &[u8],
    ) -> Result<(), SqlError> {
        let into = &mut self.into;
        let ended = self.records.data(data, |texts, bytes| {
            into.row(cx, txn, pending, texts, bytes)?;
            crate::interrupt::every(txn, into.rows)
        })?;
        // At `\.` the last batch goes in (its errors come with the data).
        match ended {
            true => into.insert_batch(cx, txn, pending),
            false => Ok(()),
        }
    }

    /// The end of the data: a last record without a newline counts.
    /// Returns the rows inserted.
    pub fn finish(
        mut self,
        cx: &Ctx<'_>,
        txn: &mut Transaction,
        pending: Option<&Pending>,
    ) -> Result<u64, SqlError> {
        let into = &mut self.into;
        (self.records).finish(|texts, bytes| into.row(cx, txn, pending, texts, bytes))?;
        into.insert_batch(cx, txn, pending)?;
        if let Some(triggers) = &into.triggers {
            triggers.end_statement(cx, txn)?;
        }
        Ok(into.rows)
    }
}

impl TableRows {
    /// One record's values: the row with the table's defaults for the
    /// columns not copied, added to the batch.
    fn row(
        &mut self,
        cx: &Ctx<'_>,
        txn: &mut Transaction,
        pending: Option<&Pending>,
        texts: Texts,
        bytes: usize,
    ) -> Result<(), SqlError> {
        let env = self.env();
        let mut row = self
            .constraints
            .default_row(&self.relation, &self.targets, &env)?;
        for (&column, text) in self.targets.iter().zip(texts) {
            if let Some(text) = text {
                row[column] = types::coerce(Value::Text(text), self.relation.types[column])?;
            }
        }
        self.batch.push(row);
        self.batch_bytes += bytes;
        self.rows += 1;
        if self.batch.len() == BATCH_ROWS || self.batch_bytes >= BATCH_BYTES {
            self.insert_batch(cx, txn, pending)?;
        }
        Ok(())
    }

    /// What the rows' defaults and checks are evaluated in: the
    /// transaction's `CURRENT_TIMESTAMP` and the sequences they call.
    fn env(&self) -> Env<'_> {
        Env {
            sequences: self.sequences.as_ref(),
            ..Env::at(self.now)
        }
    }

    /// Inserts the rows of the batch; their foreign keys are checked at
    /// once (a COPY's rows are not kept until it ends), but for those a
    /// block defers (`pending`).
    /// With row triggers each row is written alone, after its BEFORE
    /// triggers (a row they skip is not counted), and queued for its
    /// AFTER ones.
    fn insert_batch(
        &mut self,
        cx: &Ctx<'_>,
        txn: &mut Transaction,
        pending: Option<&Pending>,
    ) -> Result<(), SqlError> {
        if self.batch.is_empty() {
            return Ok(());
        }
        let rows = std::mem::replace(&mut self.batch, Vec::with_capacity(BATCH_ROWS));
        self.batch_bytes = 0;
        let env = self.env();
        let mut skipped = 0;
        self.constraints.start_statement();
        match self.triggers.as_ref().filter(|t| t.has_row_triggers()) {
            None => {
                self.constraints
                    .insert_many(txn, &self.relation, rows, &env)?;
            }
            Some(triggers) => {
                for row in rows {
                    let Some(row) = triggers.before(cx, txn, None, Some(row))? else {
                        skipped += 1;
                        continue;
                    };
                    self.constraints
                        .insert(txn, &self.relation, row.clone(), &env)?;
                    triggers.after(cx, txn, None, Some(&row))?;
                }
            }
        }
        self.constraints
            .end_statement(pending, txn, &self.relation)?;
        self.rows -= skipped;
        Ok(())
    }
}

/// `COPY table [(columns)] TO STDOUT` or `COPY (query) TO STDOUT`: every
/// row `txn` sees (or the query returns), each field written in the
/// format, NULL as the NULL string; the column names first with `HEADER`.
pub fn copy_out(
    cx: &Ctx<'_>,
    txn: &mut Transaction,
    notices: &mut Vec<crate::output::Notice>,
    copy: &Copy,
) -> Result<Output, SqlError> {
    // The query's relations through the search path (`temp_tables.rs`),
    // as any statement's.
    let resolved = match copy.query.as_deref() {
        Some(statement) => crate::temp_tables::resolve_names(cx, txn, statement)?,
        None => None,
    };
    let (names, rows) = match resolved.as_ref().or(copy.query.as_deref()) {
        Some(Statement::Query(q)) => {
            let planned = query::plan_query(cx, txn, q)?;
            crate::privileges::check_all(cx, &cx.needs.take())?;
            let (rows, _) = query::run(txn, &planned, &Env::of(cx))?;
            let names: Vec<String> = planned.columns.iter().map(|c| c.name.clone()).collect();
            (names, rows)
        }
        // An INSERT, UPDATE or DELETE with RETURNING (`parse::copy`
        // takes no other): it runs as the statement alone would, and
        // its returned rows are copied.
        Some(change) => match crate::session::run(cx, txn, notices, change)? {
            Output::Rows { columns, rows, .. } => {
                (columns.into_iter().map(|c| c.name).collect(), rows)
            }
            _ => unreachable!("a change with RETURNING returns rows"),
        },
        None => {
            let table = crate::temp_tables::resolve_name(cx, txn, &copy.table)?;
            let relation = copied_table(cx, txn, &table, &copy.table, Direction::Out)?;
            // SELECT on the columns copied (column privileges may grant
            // it).
            let columns = access::copy_columns(&relation, &table, &copy.columns)?;
            let read = crate::privileges::SELECT;
            let uses = crate::privileges::note_columns(cx, &relation.def, &table, "table", read);
            columns.iter().for_each(|&c| uses.record(c));
            crate::privileges::check_all(cx, &cx.needs.take())?;
            let names: Vec<String> = columns
                .iter()
                .map(|&c| relation.def.columns[c].name.clone())
                .collect();
            // Under row-level security the table is read as the query
            // `SELECT columns FROM ONLY t`, whose scan takes its policies
            // (COPY reads no inheritance children).
            let secured = crate::row_security::Command::Select;
            if crate::row_security::using(cx, relation.def.oid, &relation.def.name, secured)?
                .is_some()
            {
                let quote = |n: &str| format!("\"{}\"", n.replace('"', "\"\""));
                let text = format!(
                    "SELECT {} FROM ONLY {}",
                    names
                        .iter()
                        .map(|n| quote(n))
                        .collect::<Vec<_>>()
                        .join(", "),
                    relation
                        .def
                        .name
                        .split('.')
                        .map(quote)
                        .collect::<Vec<_>>()
                        .join(".")
                );
                let query = crate::views::parse_text(&table, &text)?;
                let planned = query::plan_query(cx, txn, &query)?;
                crate::privileges::check_all(cx, &cx.needs.take())?;
                let (rows, _) = query::run(txn, &planned, &Env::of(cx))?;
                (names, rows)
            } else {
                let rows = relation
                    .scan(txn)?
                    .into_iter()
                    .map(|(_, row)| columns.iter().map(|&c| row[c].clone()).collect())
                    .collect();
                (names, rows)
            }
        }
    };
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    let format = &copy.format;
    let force_quote = format.force_quote.resolve("FORCE_QUOTE", &names)?;
    let only = names.len() == 1;
    let record = |texts: &mut dyn Iterator<Item = Option<String>>, quote: &[bool]| {
        let mut line = Vec::new();
        for (i, text) in texts.enumerate() {
            if i > 0 {
                line.push(format.delimiter);
            }
            format.write_field(&mut line, text.as_deref(), quote[i], only);
        }
        line.push(b'\n');
        line
    };
    let mut lines = Vec::with_capacity(rows.len() + 1);
    if format.header == Header::Present {
        let no_force = vec![false; names.len()];
        lines.push(record(
            &mut names.iter().map(|n| Some(n.to_string())),
            &no_force,
        ));
    }
    for row in &rows {
        let texts: Vec<_> = row.iter().map(types::text_output).collect();
        lines.push(record(&mut texts.into_iter(), &force_quote));
    }
    let tag = format!("COPY {}", rows.len());
    Ok(Output::CopyOut {
        columns: names.len(),
        lines,
        tag,
    })
}
