//! PL/pgSQL's cursor statements: OPEN, FETCH, MOVE, CLOSE and FOR over a
//! bound cursor (README "PL/pgSQL", cursors).
//!
//! A cursor variable is a `refcursor` whose value names a cursor of the
//! session's one store (`cursors::Cursors`, reached through
//! `cursors::current()`), the store SQL's DECLARE / FETCH use: so
//! `pg_cursors` lists what a body opened, a caller's SQL FETCH reads a
//! cursor a function returned, and a body FETCHes a cursor SQL declared.
//! The place among the rows and every direction's rules are
//! `cursors/position.rs`'s (the store's `step`).

use super::{Flow, Kind, Runner};
use crate::cursors::current_of::{self, RowIds};
use crate::cursors::position::{ALL, Direction};
use crate::cursors::{Declared, InScope, Options, Stepped};
use crate::error::SqlError;
use crate::output::Output;
use crate::parse::Parsed;
use crate::plpgsql::parse::{CursorDecl, Into, OpenSource, Sql, Step, Stmt, sql_statement};
use folio_row::{SqlType, Value};
use sqlparser::ast::Statement;

/// The store the running statement reaches (0A000 where none is in
/// scope: a trigger fired by COPY).
fn store() -> Result<InScope, SqlError> {
    crate::cursors::current().ok_or_else(|| SqlError::unsupported("cursors outside a statement"))
}

/// Whether a cursor over `statement` scrolls: `scroll` if given, else
/// what PostgreSQL's plan would allow (`cursors::parse::default_scroll`).
fn scrolls(scroll: Option<bool>, statement: Option<&Statement>) -> bool {
    scroll.unwrap_or_else(|| match statement {
        Some(Statement::Query(query)) => crate::cursors::parse::default_scroll(query),
        _ => false,
    })
}

impl Runner<'_, '_> {
    /// The `refcursor` variable `name` (its index, aliases followed).
    fn cursor_var(&self, name: &str) -> Result<usize, SqlError> {
        let Some(mut at) = self.var_index(&[name.to_string()]) else {
            return Err(SqlError::syntax(format!(
                "\"{name}\" is not a known variable"
            )));
        };
        while let Kind::Alias(target) = self.vars[at].kind {
            at = target;
        }
        match self.vars[at].kind {
            Kind::Scalar(SqlType::Refcursor) => Ok(at),
            _ => Err(SqlError::new(
                "42804",
                format!("variable \"{name}\" must be of type cursor or refcursor"),
            )),
        }
    }

    /// The cursor's name a cursor variable holds (22004 when NULL).
    fn portal_of(&self, at: usize, variable: &str) -> Result<String, SqlError> {
        match &self.vars[at].value {
            Value::Null => Err(SqlError::new(
                "22004",
                format!("cursor variable \"{variable}\" is null"),
            )),
            value => Ok(crate::types::text_output(value).unwrap_or_default()),
        }
    }

    /// `OPEN cursor ...`: the query runs now (its rows held by the store,
    /// as a DECLARE's), in a cursor named by the variable's value, or
    /// `<unnamed portal n>` when it is NULL (the variable then holds that
    /// name). A name already open is 42P03, before the query runs, as
    /// PostgreSQL's.
    pub(super) fn open_cursor(
        &mut self,
        cursor: &str,
        source: &OpenSource,
    ) -> Result<(), SqlError> {
        let at = self.cursor_var(cursor)?;
        let store = store()?;
        let named = match &self.vars[at].value {
            Value::Null => None,
            value => crate::types::text_output(value),
        };
        if let Some(name) = &named
            && store.cursors.is_open(name)
        {
            return Err(SqlError::new(
                "42P03",
                format!("cursor \"{name}\" already in use"),
            ));
        }
        let (output, text, scroll, row_ids) = match source {
            OpenSource::Bound(args) => {
                let Some(decl) = self.vars[at].bound.clone() else {
                    return Err(SqlError::syntax(format!(
                        "cursor \"{cursor}\" is not bound to a query"
                    )));
                };
                let (output, row_ids) = self.run_bound(&decl, args)?;
                let scroll = scrolls(decl.scroll, sql_statement(&decl.query));
                (output, decl.query.text.clone(), scroll, row_ids)
            }
            OpenSource::Query { scroll, query } => {
                let (output, row_ids) = self.run_cursor_query(query)?;
                let scroll = scrolls(*scroll, sql_statement(query));
                (output, query.text.clone(), scroll, row_ids)
            }
            OpenSource::Execute {
                scroll,
                command,
                using,
            } => {
                let (output, text, _) = self.execute_text(command, using)?;
                let parsed = crate::parse::statements(&text)?;
                let statement = match parsed.first() {
                    Some(crate::parse::Parsed::Sql(s)) => Some(&**s),
                    _ => None,
                };
                let scroll = scrolls(*scroll, statement);
                (output, text, scroll, RowIds::default())
            }
        };
        let Output::Rows { columns, rows, .. } = output else {
            // The tag's words without its counts (`CREATE TABLE`, `INSERT`).
            let tag = output.tag();
            let words = tag.split(' ').filter(|w| w.parse::<u64>().is_err());
            let command = words.collect::<Vec<_>>().join(" ");
            return Err(SqlError::new(
                "42P11",
                format!("cannot open {command} query as cursor"),
            ));
        };
        let name = named.unwrap_or_else(|| store.cursors.unnamed());
        let declared = Declared {
            name: name.clone(),
            columns,
            rows,
            options: Options {
                scroll,
                hold: false,
                binary: false,
            },
            statement: text,
            created_us: self.cx.now(),
            row_ids,
        };
        store.cursors.open(declared, Some(store.depth))?;
        self.vars[at].value = Value::Text(name);
        Ok(())
    }

    /// A cursor's query run as DECLARE's is (`cursors/current_of.rs`):
    /// a simple scan of a table, or one locking tables, with its rows'
    /// ids, so `WHERE CURRENT OF` changes the row the cursor stands on.
    /// The rows are given without them, with where each was read. Such a
    /// query is bound and planned at each OPEN (its kept plan is the
    /// piece's own, without the ids).
    fn run_cursor_query(&mut self, sql: &Sql) -> Result<(Output, RowIds), SqlError> {
        let query = match &*sql.parsed {
            Parsed::Sql(statement) => match &**statement {
                Statement::Query(query) => Some(query),
                _ => None,
            },
            _ => None,
        };
        let Some(query) = query else {
            return Ok((self.run_sql(sql)?, RowIds::default()));
        };
        let locked = !query.locks.is_empty();
        let Some((with_ids, items)) = current_of::with_row_ids(self.cx, self.txn, query)? else {
            let row_ids = RowIds {
                locked,
                ..Default::default()
            };
            return Ok((self.run_sql(sql)?, row_ids));
        };
        let piece = Sql {
            text: sql.text.clone(),
            parsed: Box::new(Parsed::Sql(Box::new(Statement::Query(Box::new(with_ids))))),
            id: sql.id,
        };
        let cached = self.cached.take();
        let output = self.run_sql(&piece);
        self.cached = cached;
        let Output::Rows {
            mut columns,
            mut rows,
            tag,
            style,
        } = output?
        else {
            unreachable!("a query returns rows")
        };
        let row_ids = current_of::take_row_ids(&mut rows, &mut columns, &items, locked)?;
        let output = Output::Rows {
            columns,
            rows,
            tag,
            style,
        };
        Ok((output, row_ids))
    }

    /// A bound cursor's query run with its arguments: each a variable
    /// of its declared type while the query runs.
    fn run_bound(&mut self, decl: &CursorDecl, args: &[Sql]) -> Result<(Output, RowIds), SqlError> {
        let mut values = Vec::with_capacity(args.len());
        for arg in args {
            values.push(self.eval(arg)?);
        }
        let depth = self.vars.len();
        let result = (|| {
            for ((name, ty), (value, from)) in decl.args.iter().zip(values) {
                let ty = self.sql_type(ty)?;
                self.declare(name, None, ty, Value::Null);
                let at = self.vars.len() - 1;
                self.assign_at(at, value, from)?;
            }
            self.run_cursor_query(&decl.query)
        })();
        self.vars.truncate(depth);
        result
    }

    /// A FETCH or MOVE step's direction, its count evaluated.
    fn direction(&mut self, step: &Step) -> Result<Direction, SqlError> {
        let (count, make): (&Sql, fn(i64) -> Direction) = match step {
            Step::Fixed(direction) => return Ok(*direction),
            Step::Absolute(n) => (n, Direction::Absolute),
            Step::Relative(n) => (n, Direction::Relative),
            Step::Forward(n) => (n, Direction::Forward),
            Step::Backward(n) => (n, Direction::Backward),
        };
        match crate::types::explicit_cast(self.eval(count)?.0, SqlType::Int4)? {
            Value::Int4(n) => Ok(make(i64::from(n))),
            _ => Err(SqlError::new(
                "22004",
                "relative or absolute cursor position is null",
            )),
        }
    }

    /// `FETCH ... INTO` (`into`) or `MOVE` (none): FOUND is whether a
    /// row was read (moved over).
    pub(super) fn fetch_cursor(
        &mut self,
        cursor: &str,
        step: &Step,
        into: Option<&Into>,
    ) -> Result<(), SqlError> {
        let at = self.cursor_var(cursor)?;
        let name = self.portal_of(at, cursor)?;
        let direction = self.direction(step)?;
        let Stepped {
            columns,
            rows,
            count,
        } = store()?.cursors.step(&name, direction, into.is_none())?;
        self.row_count = count;
        let found = match into {
            Some(into) => {
                let output = Output::Rows {
                    columns,
                    rows,
                    tag: String::new(),
                    style: None,
                };
                self.into(into, output, false, super::Rows::Fetch)?
            }
            None => count > 0,
        };
        self.set_found(found);
        Ok(())
    }

    /// `CLOSE cursor`: 34000 if its cursor is not open.
    pub(super) fn close_cursor(&mut self, cursor: &str) -> Result<(), SqlError> {
        let at = self.cursor_var(cursor)?;
        let name = self.portal_of(at, cursor)?;
        store()?.cursors.close(Some(&name))
    }

    /// `FOR var IN cursor [(args)] LOOP`: the bound cursor opened (as
    /// OPEN, 42P03 if it is open), its rows read into `var`, a record of
    /// the loop, and the cursor closed however the loop ends. A variable
    /// that was NULL is NULL again after, as PostgreSQL's.
    pub(super) fn cursor_loop(
        &mut self,
        var: &str,
        cursor: &str,
        args: &[Sql],
        label: &Option<String>,
        body: &[Stmt],
        ends: &dyn Fn(Flow) -> Option<Flow>,
    ) -> Result<Flow, SqlError> {
        let at = self.cursor_var(cursor)?;
        let was_null = self.vars[at].value == Value::Null;
        self.open_cursor(cursor, &OpenSource::Bound(args.to_vec()))?;
        let name = self.portal_of(at, cursor)?;
        let store = store()?;
        // One row at a time, so the cursor stands on the row the body
        // sees (`WHERE CURRENT OF c`), as PostgreSQL's loop reads it; all
        // at once in a body that may COMMIT, which ends the cursor
        // (PostgreSQL then holds the rows read so far).
        let count = match self.nonatomic {
            true => ALL,
            false => 1,
        };
        let step = || store.cursors.step(&name, Direction::Forward(count), false);
        let result = step().and_then(|Stepped { columns, rows, .. }| {
            self.declare_record(var, Vec::new(), Value::Null);
            let record = self.vars.len() - 1;
            self.vars[record].kind = Kind::Record(None);
            self.vars[record].label = label.clone();
            let mut first = rows.into_iter();
            let mut next = || match first.next() {
                Some(row) => Ok(Some(row)),
                None if count == ALL => Ok(None),
                None => step().map(|s| s.rows.into_iter().next()),
            };
            self.rows_loop_from(var, &columns, &mut next, body, ends)
        });
        // (A body that closed it leaves nothing to close.)
        let _ = store.cursors.close(Some(&name));
        if was_null {
            self.vars[at].value = Value::Null;
        }
        result
    }
}
