//! What a statement returns, and the transaction status a client sees.

use folio_row::Value;

/// A result column: its name and PostgreSQL type oid.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Column {
    pub name: String,
    pub type_oid: u32,
}

/// The result of one statement.
#[derive(Debug, Clone, PartialEq)]
pub enum Output {
    /// A command and its tag (`CREATE TABLE`, `INSERT 0 3`, `BEGIN`, ...).
    Command { tag: String },
    /// Rows, their columns, and the tag (`SELECT n`).
    Rows {
        columns: Vec<Column>,
        rows: Vec<Vec<Value>>,
        tag: String,
        /// The session's text style (`TimeZone`, `IntervalStyle`,
        /// `extra_float_digits`) when the statement ended, which its
        /// values are written in: set by the session after each
        /// statement of a query message (`Session::run_statements`;
        /// `None` until then), as a later `SET` of the same message must
        /// not change them.
        style: Option<folio_row::TextStyle>,
    },
    /// `COPY ... FROM STDIN` waits for its data, in text format with
    /// `columns` fields per line: [`crate::Session::copy_data`], then
    /// [`crate::Session::copy_done`] or [`crate::Session::copy_fail`].
    CopyIn { columns: usize },
    /// `COPY ... TO STDOUT`: the rows in text format, one line each
    /// (ending with a newline), `columns` fields, and the tag `COPY n`.
    CopyOut {
        columns: usize,
        lines: Vec<Vec<u8>>,
        tag: String,
    },
}

impl Output {
    pub(crate) fn command(tag: impl Into<String>) -> Output {
        Output::Command { tag: tag.into() }
    }

    /// The command tag.
    pub fn tag(&self) -> &str {
        match self {
            Output::Command { tag } | Output::Rows { tag, .. } | Output::CopyOut { tag, .. } => tag,
            Output::CopyIn { .. } => "",
        }
    }
}

/// The transaction status of a session (the protocol's ReadyForQuery
/// byte): idle, in a transaction block, in a failed block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TxStatus {
    Idle,
    InBlock,
    Failed,
}

impl TxStatus {
    /// The status byte: `I`, `T` or `E`.
    pub fn byte(self) -> u8 {
        match self {
            TxStatus::Idle => b'I',
            TxStatus::InBlock => b'T',
            TxStatus::Failed => b'E',
        }
    }
}

/// A notice or warning raised by a statement (PostgreSQL's
/// NoticeResponse): its severity, SQLSTATE, message and DETAIL. Displayed
/// as psql prints it: `NOTICE:  table "t" does not exist, skipping`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Notice {
    pub severity: &'static str,
    pub code: &'static str,
    pub message: String,
    pub detail: Option<String>,
    pub hint: Option<String>,
}

impl Notice {
    pub(crate) fn info(message: String) -> Notice {
        Notice {
            severity: "NOTICE",
            code: "00000",
            message,
            detail: None,
            hint: None,
        }
    }

    pub(crate) fn warning(code: &'static str, message: &str) -> Notice {
        Notice {
            severity: "WARNING",
            code,
            message: message.to_string(),
            detail: None,
            hint: None,
        }
    }

    /// PostgreSQL's warning for a command that does nothing outside a
    /// transaction block (SET LOCAL, SET TRANSACTION, SET CONSTRAINTS).
    pub(crate) fn outside_block(command: &str) -> Notice {
        Notice::warning(
            "25P01",
            &format!("{command} can only be used in transaction blocks"),
        )
    }

    /// What a DROP ... CASCADE dropped besides what it named, as
    /// PostgreSQL reports it: one object in the message (`drop cascades to
    /// constraint k on table t`), more counted there and listed in the
    /// DETAIL, a line each. None for none.
    pub(crate) fn cascaded(objects: &[String]) -> Option<Notice> {
        let lines = || objects.iter().map(|o| format!("drop cascades to {o}"));
        match objects {
            [] => None,
            [_] => Some(Notice::info(lines().collect())),
            _ => Some(Notice {
                detail: Some(lines().collect::<Vec<_>>().join("\n")),
                ..Notice::info(format!("drop cascades to {} other objects", objects.len()))
            }),
        }
    }
}

impl std::fmt::Display for Notice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:  {}", self.severity, self.message)?;
        if let Some(detail) = &self.detail {
            write!(f, "\nDETAIL:  {detail}")?;
        }
        match &self.hint {
            Some(hint) => write!(f, "\nHINT:  {hint}"),
            None => Ok(()),
        }
    }
}
