//! A row trigger's `WHEN` condition (README "Triggers"): PostgreSQL's
//! rules for what it may read, checked by CREATE TRIGGER; the text
//! stored in `pg_trigger` (and printed back by `pg_get_triggerdef`); the
//! form it runs in, through the trigger interpreter's `old` / `new`
//! records (`triggers.rs` binds it once per statement).
//!
//! The interpreter's records have fields, not system columns or a
//! whole-row value, so the runnable form writes `old.*` / `new.*` as
//! the `ROW(...)` of the record's fields (compared field by field, as
//! two rows are) and `old.tableoid` / `new.tableoid` as the table's oid
//! (the row is the trigger's table's).

use crate::error::SqlError;
use crate::names;
use folio_catalog::{TRIGGER_BEFORE, TRIGGER_DELETE, TRIGGER_INSERT, TRIGGER_ROW};
use sqlparser::ast::{Expr, Ident, ObjectName, ObjectNamePart};
use std::ops::ControlFlow;

/// The record (`old` or `new`) a reference in a condition reads, and the
/// column (`None` for the whole row, `old.*`).
fn reference(e: &Expr) -> Option<(String, Option<String>)> {
    let record = |id: &Ident| Some(names::ident(id)).filter(|r| r == "old" || r == "new");
    match e {
        Expr::CompoundIdentifier(ids) if ids.len() == 2 => {
            Some((record(&ids[0])?, Some(names::ident(&ids[1]))))
        }
        Expr::QualifiedWildcard(ObjectName(parts), _) if parts.len() == 1 => {
            Some((record(parts[0].as_ident()?)?, None))
        }
        _ => None,
    }
}

/// PostgreSQL's rules for `WHEN`, the first reference that breaks one
/// failing: a statement trigger's may read neither OLD nor NEW, an INSERT
/// trigger's not OLD, a DELETE trigger's not NEW (42P17); a BEFORE
/// trigger's not NEW's system columns (0A000: they are not set yet).
pub fn check(condition: &Expr, kind: u16) -> Result<(), SqlError> {
    let mut error = None;
    let _ = sqlparser::ast::visit_expressions(condition, |e| {
        let Some((record, column)) = reference(e) else {
            return ControlFlow::Continue(());
        };
        let system = column
            .as_deref()
            .is_some_and(crate::system_columns::reserved);
        error = if kind & TRIGGER_ROW == 0 {
            Some((
                "42P17",
                "statement trigger's WHEN condition cannot reference column values",
            ))
        } else if record == "old" && kind & TRIGGER_INSERT != 0 {
            Some((
                "42P17",
                "INSERT trigger's WHEN condition cannot reference OLD values",
            ))
        } else if record == "new" && kind & TRIGGER_DELETE != 0 {
            Some((
                "42P17",
                "DELETE trigger's WHEN condition cannot reference NEW values",
            ))
        } else if record == "new" && kind & TRIGGER_BEFORE != 0 && system {
            Some((
                "0A000",
                "BEFORE trigger's WHEN condition cannot reference NEW system columns",
            ))
        } else {
            None
        };
        match error {
            Some(_) => ControlFlow::Break(()),
            None => ControlFlow::Continue(()),
        }
    });
    match error {
        Some((code, message)) => Err(SqlError::new(code, message)),
        None => Ok(()),
    }
}

/// A `WHEN` condition as stored: without the parentheses around it,
/// its unquoted names lower case (as PostgreSQL prints them back).
pub fn text(condition: &Expr) -> String {
    let mut condition = condition.clone();
    while let Expr::Nested(inner) = condition {
        condition = *inner;
    }
    let _ = sqlparser::ast::visit_expressions_mut(&mut condition, |e| {
        let ids: Vec<&mut Ident> = match e {
            Expr::Identifier(id) => vec![id],
            Expr::CompoundIdentifier(ids) => ids.iter_mut().collect(),
            Expr::QualifiedWildcard(ObjectName(parts), _) => (parts.iter_mut())
                .filter_map(|p| match p {
                    ObjectNamePart::Identifier(id) => Some(id),
                    _ => None,
                })
                .collect(),
            _ => Vec::new(),
        };
        for id in ids {
            if id.quote_style.is_none() {
                id.value = id.value.to_lowercase();
            }
        }
        ControlFlow::<()>::Continue(())
    });
    condition.to_string()
}

/// The stored condition `text` as the interpreter runs it on a row of
/// table `table_oid` with `columns` (see the module comment).
pub fn runnable(text: &str, columns: &[String], table_oid: u64) -> Result<String, SqlError> {
    let mut condition = crate::parse::expression(text)?;
    let mut failed = None;
    let _ = sqlparser::ast::visit_expressions_mut(&mut condition, |e| {
        let replacement = match reference(e) {
            Some((record, None)) => {
                let fields: Vec<String> = (columns.iter())
                    .map(|c| format!("{record}.{}", Ident::with_quote('"', c)))
                    .collect();
                format!("ROW({})", fields.join(", "))
            }
            Some((_, Some(column))) if column == "tableoid" => format!("{table_oid}::oid"),
            _ => return ControlFlow::Continue(()),
        };
        match crate::parse::expression(&replacement) {
            Ok(expr) => *e = expr,
            Err(error) => failed = Some(error),
        }
        ControlFlow::<()>::Continue(())
    });
    match failed {
        Some(error) => Err(error),
        None => Ok(condition.to_string()),
    }
}

/// Whether the stored condition `text` reads `column` of OLD or NEW (a
/// trigger that does depends on the column: DROP COLUMN refuses it).
pub fn reads_column(text: &str, column: &str) -> bool {
    let Ok(condition) = crate::parse::expression(text) else {
        return false;
    };
    let mut reads = false;
    let _ = sqlparser::ast::visit_expressions(&condition, |e| {
        if let Some((_, Some(c))) = reference(e) {
            reads |= c == column;
        }
        ControlFlow::<()>::Continue(())
    });
    reads
}
