//! The one error type of the SQL layer: a SQLSTATE and PostgreSQL's
//! message.

use folio_catalog::CatalogError;
use folio_db::DbError;
use folio_row::RowError;
use folio_txn::TxnError;
use sqlparser::tokenizer::Location;

/// A statement failed: `code` is the SQLSTATE a client sees, `message`
/// the text (PostgreSQL's wording where folio follows its behaviour), with
/// PostgreSQL's DETAIL and HINT where it gives them, and the position in
/// the query text it points at (psql prints it as `LINE 1: ...` and a
/// caret).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct SqlError {
    pub code: &'static str,
    pub message: String,
    pub detail: Option<String>,
    pub hint: Option<String>,
    /// 1-based, in characters of the text the client sent (PostgreSQL's
    /// ErrorResponse field `P`); 0: none, and none to be looked for
    /// ([`SqlError::unplaced`]).
    pub position: Option<usize>,
    /// Where in the statement it points, as the planner knows it: a
    /// node's token location in the text the statement was parsed from,
    /// made a `position` by `position::locate` with that text (and
    /// dropped where the statement came from another text: a kept shape,
    /// `shape.rs`). Boxed, as `subject`.
    pub location: Option<Box<Location>>,
    /// The table, column and constraint the error is about (fields `t`,
    /// `c` and `n`, which drivers read to tell one constraint from
    /// another); set for constraint violations. Boxed: errors travel in
    /// every `Result` of the layer, and most have none.
    pub subject: Option<Box<Subject>>,
}

/// The table an error is about, and its column or constraint.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Subject {
    pub table: String,
    pub column: Option<String>,
    pub constraint: Option<String>,
    /// The failing row's values' texts (`null` for NULL), in the
    /// table's columns' order, of an error whose DETAIL prints the row
    /// (`failing_row.rs` shows it as the role may see it).
    pub row: Option<Vec<String>>,
}

impl SqlError {
    pub fn new(code: &'static str, message: impl Into<String>) -> SqlError {
        SqlError {
            code,
            message: message.into(),
            detail: None,
            hint: None,
            position: None,
            location: None,
            subject: None,
        }
    }

    /// PostgreSQL's 42601 for an option given twice (or with its
    /// opposite) in one statement's option list; it points at the second.
    pub fn conflicting_options() -> SqlError {
        SqlError::new("42601", "conflicting or redundant options")
    }

    /// The constraint the error is about, if it names one.
    pub fn constraint(&self) -> Option<&str> {
        self.subject.as_ref()?.constraint.as_deref()
    }

    /// The column the error is about, if it names one.
    pub fn column(&self) -> Option<&str> {
        self.subject.as_ref()?.column.as_deref()
    }

    /// The error about `constraint` of `table` (a violation of it).
    pub fn with_constraint(mut self, table: &str, constraint: &str) -> SqlError {
        self.subject = Some(Box::new(Subject {
            table: table.to_string(),
            column: None,
            constraint: Some(constraint.to_string()),
            row: None,
        }));
        self
    }

    /// The failing row its DETAIL prints (set after the subject:
    /// [`Subject::row`]).
    pub fn with_failing_row(mut self, values: Vec<String>) -> SqlError {
        if let Some(subject) = self.subject.as_mut() {
            subject.row = Some(values);
        }
        self
    }

    /// The table the error is about, if it names one.
    pub fn table(&self) -> Option<&str> {
        self.subject.as_ref().map(|s| s.table.as_str())
    }

    /// The error with PostgreSQL's DETAIL line.
    pub fn with_detail(mut self, detail: impl Into<String>) -> SqlError {
        self.detail = Some(detail.into());
        self
    }

    /// The error with PostgreSQL's HINT line.
    pub fn with_hint(mut self, hint: impl Into<String>) -> SqlError {
        self.hint = Some(hint.into());
        self
    }

    /// The error pointing at character `position` (1-based) of the query
    /// text.
    pub fn at(mut self, position: usize) -> SqlError {
        self.position = Some(position);
        self
    }

    /// The error pointing at the node that starts at `location` (a
    /// span's start; none for a node without one).
    pub fn near(mut self, location: Option<Location>) -> SqlError {
        self.location = location.filter(|l| l.line > 0).map(Box::new);
        self
    }

    /// The error with no position, where PostgreSQL gives none although
    /// its message quotes a literal of the query (a function's error
    /// about its argument's text, as `to_date`'s).
    pub fn unplaced(mut self) -> SqlError {
        self.position = Some(0);
        self
    }

    /// The position to send: `None` for an unplaced error.
    pub fn sent_position(&self) -> Option<usize> {
        self.position.filter(|&p| p > 0)
    }

    /// 0A000: outside the supported subset (the session carries on).
    pub fn unsupported(what: impl std::fmt::Display) -> SqlError {
        SqlError::new("0A000", format!("{what} is not supported"))
    }

    /// 42601: the text is not SQL the parser accepts.
    pub fn syntax(message: impl Into<String>) -> SqlError {
        SqlError::new("42601", message)
    }

    /// 25P02: a statement in a failed transaction block.
    pub fn in_failed_block() -> SqlError {
        SqlError::new(
            "25P02",
            "current transaction is aborted, commands ignored until end of transaction block",
        )
    }

    /// 25001: a command PostgreSQL runs outside a transaction block only,
    /// run in one (`VACUUM`, `CREATE INDEX CONCURRENTLY`, ...).
    pub fn inside_block(command: &str) -> SqlError {
        SqlError::new(
            "25001",
            format!("{command} cannot run inside a transaction block"),
        )
    }

    /// A command PostgreSQL runs in a transaction block only, run outside
    /// one (`code`: 25P01, or 25001 for LOCK).
    pub fn outside_block(code: &'static str, command: &str) -> SqlError {
        SqlError::new(
            code,
            format!("{command} can only be used in transaction blocks"),
        )
    }

    /// 42P01: no such relation.
    pub fn undefined_table(name: &str) -> SqlError {
        SqlError::new("42P01", format!("relation \"{name}\" does not exist"))
    }

    /// 42703: no such column.
    pub fn undefined_column(name: &str) -> SqlError {
        SqlError::new("42703", format!("column \"{name}\" does not exist"))
    }

    /// Whether a client may retry the transaction (40001, 40P01).
    pub fn is_retryable(&self) -> bool {
        matches!(self.code, "40001" | "40P01")
    }
}

/// Errors below the SQL layer keep their SQLSTATE (XX000 when they carry
/// none: an internal error).
macro_rules! from_layer {
    ($($ty:ty),*) => {$(
        impl From<$ty> for SqlError {
            fn from(e: $ty) -> SqlError {
                SqlError::new(e.sqlstate().unwrap_or("XX000"), e.to_string())
            }
        }
    )*};
}
from_layer!(DbError);

/// An error of a layer below that carries PostgreSQL's DETAIL and HINT,
/// where it gives them.
fn described(
    code: Option<&'static str>,
    message: String,
    detail: Option<String>,
    hint: Option<&str>,
) -> SqlError {
    SqlError {
        detail,
        hint: hint.map(str::to_string),
        ..SqlError::new(code.unwrap_or("XX000"), message)
    }
}

impl From<TxnError> for SqlError {
    fn from(e: TxnError) -> SqlError {
        described(e.sqlstate(), e.to_string(), e.detail(), e.hint())
    }
}

/// Catalog errors also name the table, column or constraint they are
/// about.
impl From<CatalogError> for SqlError {
    fn from(e: CatalogError) -> SqlError {
        let subject = e.table().map(|table| {
            Box::new(Subject {
                table: table.to_string(),
                column: e.column().map(str::to_string),
                constraint: e.constraint().map(str::to_string),
                row: e.failing_row().map(<[String]>::to_vec),
            })
        });
        SqlError {
            subject,
            ..described(e.sqlstate(), e.to_string(), e.detail(), e.hint().as_deref())
        }
    }
}

impl From<RowError> for SqlError {
    fn from(e: RowError) -> SqlError {
        described(Some(e.sqlstate()), e.to_string(), e.detail(), None)
    }
}
