//! SQL cursors (`DECLARE`, `FETCH`, `MOVE`, `CLOSE`, `pg_cursors`): a
//! session's named result sets read a few rows at a time. Design:
//! README "Cursors".
//!
//! - A cursor holds its query's rows, made when it is declared in the
//!   DECLARE's transaction and snapshot (`Session::declare`); FETCH and
//!   MOVE read them from its [`Position`] (`position.rs`, PostgreSQL's
//!   rules).
//! - Its life follows the transaction (one owner: [`Cursors`]'s
//!   `end_transaction`, `rollback_to`, `release`): it ends with the
//!   transaction that declared it unless WITH HOLD and committed; ROLLBACK
//!   TO a savepoint closes those declared since; DISCARD ALL closes all.
//! - The session's cursors are reachable from a running statement through
//!   this thread's [`Scope`] (`pg_cursors`' rows, PL/pgSQL's OPEN / FETCH /
//!   MOVE / CLOSE: one store for both, so each reaches the other's).

pub mod current_of;
pub mod parse;
pub mod position;

use crate::error::SqlError;
use crate::output::{Column, Output};
use current_of::RowIds;
use folio_catalog::Relation;
use folio_db::Tid;
use folio_row::Value;
use position::{Direction, Position};
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, MutexGuard};

/// How a cursor was declared.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Options {
    /// `SCROLL` (else NO SCROLL), or the default PostgreSQL's plan allows
    /// (`parse::scrolls_by_default`).
    pub scroll: bool,
    /// `WITH HOLD`.
    pub hold: bool,
    /// `BINARY`.
    pub binary: bool,
}

/// One open cursor.
#[derive(Debug)]
struct Cursor {
    columns: Vec<Column>,
    rows: Vec<Vec<Value>>,
    position: Position,
    options: Options,
    /// The text of the query message that declared it (`pg_cursors`).
    statement: String,
    /// When it was declared, microseconds since 2000-01-01 UTC.
    created_us: i64,
    /// The savepoints open when it was declared (ROLLBACK TO one of them
    /// or an earlier one closes it); `None`: declared in an earlier
    /// transaction (WITH HOLD, committed).
    depth: Option<usize>,
    /// How many cursors the session opened before it: a PL/pgSQL block
    /// whose error is caught closes those opened since it began
    /// ([`Cursors::close_opened_since`]).
    serial: u64,
    /// Where its rows were read (`WHERE CURRENT OF`: `current_of.rs`).
    row_ids: RowIds,
}

/// A session's open cursors by name. Shared with the statement's
/// [`Scope`]; locked only for a lookup or an update, never while a query
/// runs.
#[derive(Debug, Default, Clone)]
pub struct Cursors {
    state: Arc<Mutex<State>>,
}

#[derive(Debug, Default)]
struct State {
    open: BTreeMap<String, Cursor>,
    /// Cursors opened so far (each one's `serial`).
    opened: u64,
    /// The last `<unnamed portal n>` given (PostgreSQL's
    /// `unnamed_portal_count`: per session, never reset).
    unnamed: u64,
}

/// A cursor about to be opened: its query's result and how it was
/// declared.
pub struct Declared {
    pub name: String,
    pub columns: Vec<Column>,
    pub rows: Vec<Vec<Value>>,
    pub options: Options,
    pub statement: String,
    pub created_us: i64,
    /// Where each row was read, if the query is a simple scan of a table
    /// (`current_of.rs`; else no tables).
    pub row_ids: RowIds,
}

/// What one FETCH or MOVE step gave: the cursor's columns, the rows
/// read (none for MOVE), and the count its tag shows.
pub struct Stepped {
    pub columns: Vec<Column>,
    pub rows: Vec<Vec<Value>>,
    pub count: u64,
}

impl Cursors {
    fn lock_state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn lock(&self) -> impl std::ops::DerefMut<Target = BTreeMap<String, Cursor>> + '_ {
        struct Open<'a>(MutexGuard<'a, State>);
        impl std::ops::Deref for Open<'_> {
            type Target = BTreeMap<String, Cursor>;
            fn deref(&self) -> &Self::Target {
                &self.0.open
            }
        }
        impl std::ops::DerefMut for Open<'_> {
            fn deref_mut(&mut self) -> &mut Self::Target {
                &mut self.0.open
            }
        }
        Open(self.lock_state())
    }

    /// Opens `declared`; `depth`: the savepoints open in its
    /// transaction (`None`: it already committed). 42P03 if the name is
    /// taken.
    pub fn open(&self, declared: Declared, depth: Option<usize>) -> Result<(), SqlError> {
        let mut state = self.lock_state();
        if state.open.contains_key(&declared.name) {
            return Err(SqlError::new(
                "42P03",
                format!("cursor \"{}\" already exists", declared.name),
            ));
        }
        let position = Position::new(declared.rows.len(), declared.options.scroll);
        let serial = state.opened;
        state.opened += 1;
        state.open.insert(
            declared.name,
            Cursor {
                columns: declared.columns,
                rows: declared.rows,
                position,
                options: declared.options,
                statement: declared.statement,
                created_us: declared.created_us,
                depth,
                serial,
                row_ids: declared.row_ids,
            },
        );
        Ok(())
    }

    /// Whether a cursor named `name` is open.
    pub fn is_open(&self, name: &str) -> bool {
        self.lock().contains_key(name)
    }

    /// A name for a cursor a PL/pgSQL OPEN gives none:
    /// `<unnamed portal n>`, the session's next `n` whose name is free,
    /// as PostgreSQL's `CreateNewPortal`.
    pub fn unnamed(&self) -> String {
        let mut state = self.lock_state();
        loop {
            state.unnamed += 1;
            let name = format!("<unnamed portal {}>", state.unnamed);
            if !state.open.contains_key(&name) {
                return name;
            }
        }
    }

    /// A PL/pgSQL FOR over a query or EXECUTE begins: PostgreSQL reads
    /// its rows through a portal it names as [`Cursors::unnamed`] does, so
    /// the number is taken here too (the next OPEN's name counts on).
    pub fn skip_unnamed(&self) {
        self.unnamed();
    }

    /// How many cursors the session opened so far (a mark for
    /// [`Cursors::close_opened_since`]).
    pub fn opened(&self) -> u64 {
        self.lock_state().opened
    }

    /// A PL/pgSQL block's error was caught (its subtransaction rolled
    /// back): the cursors opened since `mark` close, as PostgreSQL drops
    /// the portals of an aborted subtransaction.
    pub fn close_opened_since(&self, mark: u64) {
        self.lock().retain(|_, c| c.serial < mark);
    }

    /// FETCH (or with `moving`, MOVE) `direction` from cursor `name`: its
    /// rows and `FETCH n` (`MOVE n`).
    pub fn fetch(
        &self,
        name: &str,
        direction: Direction,
        moving: bool,
    ) -> Result<Output, SqlError> {
        let Stepped {
            columns,
            rows,
            count,
        } = self.step(name, direction, moving)?;
        if moving {
            return Ok(Output::command(format!("MOVE {count}")));
        }
        Ok(Output::Rows {
            columns,
            rows,
            tag: format!("FETCH {count}"),
            style: None,
        })
    }

    /// One FETCH or MOVE (`moving`) step of cursor `name`: its columns,
    /// the rows read (none for MOVE) and the count the tag shows (PL/pgSQL
    /// sets FOUND from it).
    pub fn step(
        &self,
        name: &str,
        direction: Direction,
        moving: bool,
    ) -> Result<Stepped, SqlError> {
        let mut open = self.lock();
        let cursor = open.get_mut(name).ok_or_else(|| missing(name))?;
        let (read, count) = cursor.position.fetch(direction, moving)?;
        let rows = read.into_iter().map(|i| cursor.rows[i].clone()).collect();
        Ok(Stepped {
            columns: cursor.columns.clone(),
            rows,
            count,
        })
    }

    /// `WHERE CURRENT OF name` in a change of `table`: the tuple id of
    /// the row the cursor stands on, `None` if that row is another
    /// table's (an inheritance sibling's). PostgreSQL's `execCurrentOf`
    /// errors, in its order: 34000 for no such cursor; 24000 for one
    /// held from an earlier transaction, one that does not scan `table`
    /// simply (or, with FOR UPDATE / SHARE, does not lock it), and one
    /// not on a row.
    pub fn current_row(&self, name: &str, table: &Relation) -> Result<Option<Tid>, SqlError> {
        let open = self.lock();
        let cursor = open.get(name).ok_or_else(|| missing(name))?;
        let invalid = |what: &str| SqlError::new("24000", format!("cursor \"{name}\" {what}"));
        if cursor.depth.is_none() {
            return Err(invalid("is held from a previous transaction"));
        }
        let ids = &cursor.row_ids;
        let oid = table.def.oid;
        let table = folio_catalog::unqualified(&table.def.name);
        let mut items = (ids.items.iter().enumerate()).filter(|(_, tables)| tables.contains(&oid));
        let item = match (items.next(), items.next()) {
            (Some((item, _)), None) => item,
            (Some(_), Some(_)) => {
                return Err(invalid(&format!(
                    "has multiple FOR UPDATE/SHARE references to table \"{table}\""
                )));
            }
            (None, _) => {
                return Err(invalid(&match ids.locked {
                    true => {
                        format!("does not have a FOR UPDATE/SHARE reference to table \"{table}\"")
                    }
                    false => format!("is not a simply updatable scan of table \"{table}\""),
                }));
            }
        };
        let Some(row) = cursor.position.current() else {
            return Err(invalid("is not positioned on a row"));
        };
        let (read_in, tid) = ids.rows[row][item];
        Ok((read_in == oid).then_some(tid))
    }

    /// The columns a FETCH from cursor `name` returns (`None`: no such
    /// cursor; a Describe then says no rows, as PostgreSQL's).
    pub fn columns(&self, name: &str) -> Option<Vec<Column>> {
        self.lock().get(name).map(|c| c.columns.clone())
    }

    /// `CLOSE name` (`None`: `CLOSE ALL`); 34000 for an unknown name.
    pub fn close(&self, name: Option<&str>) -> Result<(), SqlError> {
        let mut open = self.lock();
        match name {
            None => open.clear(),
            Some(name) => {
                open.remove(name).ok_or_else(|| missing(name))?;
            }
        }
        Ok(())
    }

    /// The transaction ended: committed, its WITH HOLD cursors stay (their
    /// rows are held already) and the others close; rolled back, every
    /// cursor it declared closes. Cursors of earlier transactions stay
    /// (a rollback does not move them back).
    pub fn end_transaction(&self, committed: bool) {
        let mut open = self.lock();
        if open.is_empty() {
            return;
        }
        open.retain(|_, c| c.depth.is_none() || (committed && c.options.hold));
        for cursor in open.values_mut() {
            cursor.depth = None;
        }
    }

    /// ROLLBACK TO the savepoint that `depth` savepoints were open at
    /// (it included): the cursors declared since close.
    pub fn rollback_to(&self, depth: usize) {
        self.lock().retain(|_, c| c.depth.is_none_or(|d| d < depth));
    }

    /// RELEASE of the savepoint that leaves `depth` open: the cursors
    /// declared since belong to the savepoint around it.
    pub fn release(&self, depth: usize) {
        for cursor in self.lock().values_mut() {
            if let Some(d) = &mut cursor.depth {
                *d = (*d).min(depth);
            }
        }
    }

    /// `pg_cursors`' rows, by name.
    fn rows(&self) -> Vec<Vec<Value>> {
        self.lock()
            .iter()
            .map(|(name, c)| {
                vec![
                    Value::Text(name.clone()),
                    Value::Text(c.statement.clone()),
                    Value::Bool(c.options.hold),
                    Value::Bool(c.options.binary),
                    Value::Bool(c.options.scroll),
                    Value::TimestampTz(c.created_us),
                ]
            })
            .collect()
    }
}

/// PostgreSQL's 34000 for a cursor that is not open.
pub fn missing(name: &str) -> SqlError {
    SqlError::new("34000", format!("cursor \"{name}\" does not exist"))
}

/// `pg_cursors`' columns.
pub const COLUMNS: &[(&str, folio_row::SqlType)] = &[
    ("name", folio_row::SqlType::Text),
    ("statement", folio_row::SqlType::Text),
    ("is_holdable", folio_row::SqlType::Bool),
    ("is_binary", folio_row::SqlType::Bool),
    ("is_scrollable", folio_row::SqlType::Bool),
    ("creation_time", folio_row::SqlType::TimestampTz(None)),
];

/// The store a running statement reaches: the session's cursors, and the
/// savepoints open in its transaction (what a cursor a PL/pgSQL OPEN
/// makes records as its `depth`; 0 for a statement outside a block,
/// whose transaction ends with it).
#[derive(Debug, Clone)]
pub struct InScope {
    pub cursors: Cursors,
    pub depth: usize,
}

thread_local! {
    static CURRENT: RefCell<Option<InScope>> = const { RefCell::new(None) };
}

/// The session's cursors in this thread's scope while one of its
/// statements runs; the scope before comes back when it is dropped.
pub struct Scope {
    _installed: crate::thread_scope::Installed<Option<InScope>>,
}

impl Scope {
    /// `depth`: the savepoints open in the statement's transaction.
    pub fn enter(cursors: &Cursors, depth: usize) -> Scope {
        let scope = InScope {
            cursors: cursors.clone(),
            depth,
        };
        Scope {
            _installed: crate::thread_scope::install(&CURRENT, Some(scope)),
        }
    }
}

/// The running statement's session's cursors (`None` outside a
/// session's statement).
pub fn current() -> Option<InScope> {
    CURRENT.with(|c| c.borrow().clone())
}

/// `pg_cursors`' rows: the running statement's session's cursors (none
/// outside a session's statement).
pub fn pg_cursors_rows() -> Vec<Vec<Value>> {
    current().map(|s| s.cursors.rows()).unwrap_or_default()
}
