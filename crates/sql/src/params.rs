//! Parameters of prepared statements: `$1`, `$2`, ... counted, and bound
//! by replacing each with its value as a quoted literal (text format), so
//! it takes the type of the column or value it meets, as PostgreSQL's
//! parameters of unknown type do; NULL for a NULL parameter.

use crate::error::SqlError;
use sqlparser::ast::{
    Expr, Statement, Value, ValueWithSpan, visit_expressions, visit_expressions_mut,
};
use sqlparser::tokenizer::Span;
use std::ops::ControlFlow;

/// The number of the parameter `$n` an expression is, if it is one.
fn number(expr: &Expr) -> Option<usize> {
    match expr {
        Expr::Value(ValueWithSpan {
            value: Value::Placeholder(p),
            ..
        }) => p.strip_prefix('$')?.parse().ok(),
        _ => None,
    }
}

/// How many parameters a statement takes (its highest `$n`).
pub fn count(statement: &Statement) -> usize {
    let mut highest = 0;
    let _ = visit_expressions(statement, |expr| {
        if let Some(n) = number(expr) {
            highest = highest.max(n);
        }
        ControlFlow::<()>::Continue(())
    });
    highest
}

/// The statement with its parameters replaced by `values`.
pub fn bind(statement: &Statement, values: &[Option<String>]) -> Result<Statement, SqlError> {
    let wanted = count(statement);
    if values.len() != wanted {
        return Err(SqlError::new(
            "08P01",
            format!(
                "bind message supplies {} parameters, but prepared statement requires {wanted}",
                values.len()
            ),
        ));
    }
    let mut bound = statement.clone();
    let _ = visit_expressions_mut(&mut bound, |expr| {
        if let Some(n) = number(expr).filter(|n| (1..=values.len()).contains(n)) {
            let value = match &values[n - 1] {
                Some(text) => Value::SingleQuotedString(text.clone()),
                None => Value::Null,
            };
            *expr = Expr::Value(ValueWithSpan {
                value,
                span: Span::empty(),
            });
        }
        ControlFlow::<()>::Continue(())
    });
    Ok(bound)
}
