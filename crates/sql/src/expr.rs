//! Expressions. For now: constants (literals, signs, parentheses) and
//! column references compared with constants (README "Status").

use crate::error::SqlError;
use crate::types;
use folio_row::Value;
use sqlparser::ast::{Expr, UnaryOperator};

/// The value of a constant expression.
pub fn constant(expr: &Expr) -> Result<Value, SqlError> {
    match expr {
        Expr::Value(v) => types::literal(&v.value),
        Expr::Nested(inner) => constant(inner),
        Expr::UnaryOp {
            op: UnaryOperator::Minus,
            expr,
        } => types::negate(constant(expr)?),
        Expr::UnaryOp {
            op: UnaryOperator::Plus,
            expr,
        } => constant(expr),
        other => Err(SqlError::unsupported(format!("the expression {other}"))),
    }
}
