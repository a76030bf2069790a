//! Parameters of prepared statements: `$1`, `$2`, ... counted, and bound
//! by replacing each with its value as a quoted literal (text format), so
//! it takes the type of the column or value it meets, as PostgreSQL's
//! parameters of unknown type do; NULL for a NULL parameter.
//!
//! A parameter given a type (`PREPARE p(int) AS ...`, or a Parse
//! message's type oids) is written `$n:oid:typmod` ([`declare`], the one
//! owner of that spelling): it is bound as a value of that type wherever
//! it stands (`scalar::bind`'s `Typed`), as PostgreSQL's declared
//! parameters are, so `(VALUES ($1))` makes an `integer` column.

use crate::error::SqlError;
use sqlparser::ast::{
    Expr, Statement, Value, ValueWithSpan, visit_expressions, visit_expressions_mut,
};
use sqlparser::tokenizer::Span;
use std::ops::ControlFlow;

/// The highest parameter number: a Bind message counts its values in 16
/// bits. A `$n` past it is no parameter (42P02 where it is bound; the
/// statement's parameter lists are never sized by it).
pub const MAX_PARAMETER: usize = u16::MAX as usize;

/// A placeholder's text read as a parameter: its number `n` (from 1, at
/// most [`MAX_PARAMETER`]) and its declared type's oid and modifier, if it
/// was given one (`$n:oid:typmod`); `None` if it is not a parameter.
pub fn parameter(placeholder: &str) -> Option<(usize, Option<(u32, i32)>)> {
    let rest = placeholder.strip_prefix('$')?;
    let (n, declared) = match rest.split_once(':') {
        None => (rest, None),
        Some((n, declared)) => {
            let (oid, typmod) = declared.split_once(':')?;
            (n, Some((oid.parse().ok()?, typmod.parse().ok()?)))
        }
    };
    let n = n.parse().ok().filter(|&n| n <= MAX_PARAMETER)?;
    Some((n, declared))
}

/// The number of the parameter `$n` an expression is, if it is one.
fn number(expr: &Expr) -> Option<usize> {
    match expr {
        Expr::Value(ValueWithSpan {
            value: Value::Placeholder(p),
            ..
        }) => parameter(p).map(|(n, _)| n),
        _ => None,
    }
}

/// Gives the statement's parameters their declared types: `types[n - 1]`
/// (an oid and modifier; oid 0: none, the parameter's type is inferred)
/// for `$n`.
pub fn declare(statement: &mut Statement, types: &[(u32, i32)]) {
    let _ = visit_expressions_mut(statement, |expr| {
        if let Some(n) = number(expr).filter(|&n| n >= 1)
            && let Some(&(oid, typmod)) = types.get(n - 1)
            && oid != 0
        {
            *expr = Expr::Value(ValueWithSpan {
                value: Value::Placeholder(format!("${n}:{oid}:{typmod}")),
                span: Span::empty(),
            });
        }
        ControlFlow::<()>::Continue(())
    });
}

/// How many parameters a statement takes (its highest `$n`).
pub fn count(statement: &Statement) -> usize {
    numbered(statement).highest()
}

/// The parameters a statement names: `named[n - 1]` for `$n`, up to
/// its highest.
pub struct Numbered {
    pub named: Vec<bool>,
}

impl Numbered {
    /// Its highest `$n` (0: none).
    pub fn highest(&self) -> usize {
        self.named.len()
    }

    /// Whether it names `$n`.
    pub fn names(&self, n: usize) -> bool {
        self.named.get(n - 1).copied().unwrap_or(false)
    }
}

/// The parameters `statement` names.
pub fn numbered(statement: &Statement) -> Numbered {
    let mut named: Vec<bool> = Vec::new();
    let _ = visit_expressions(statement, |expr| {
        if let Some(n) = number(expr).filter(|&n| n >= 1) {
            if named.len() < n {
                named.resize(n, false);
            }
            named[n - 1] = true;
        }
        ControlFlow::<()>::Continue(())
    });
    Numbered { named }
}

/// PostgreSQL's 42P18 for parameter `$n`, whose type nothing gives.
pub fn indeterminate(n: usize) -> SqlError {
    SqlError::new(
        "42P18",
        format!("could not determine data type of parameter ${n}"),
    )
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
