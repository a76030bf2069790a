//! `a IS [NOT] DISTINCT FROM b`: equality that treats NULL as a value.
//! Two NULLs are not distinct, a NULL and a value are, and two values are
//! distinct when `a <> b`; never NULL. Bound as the `CASE` that says so,
//! so the comparison's operand types are resolved as `=`'s are (each
//! operand may be evaluated twice: a volatile one, `random()`, is called
//! again where PostgreSQL calls it once).

use sqlparser::ast::helpers::attached_token::AttachedToken;
use sqlparser::ast::{BinaryOperator, CaseWhen, Expr, Value};

/// The `CASE` that `a IS DISTINCT FROM b` (`distinct`) or `a IS NOT
/// DISTINCT FROM b` is.
pub fn as_case(a: &Expr, b: &Expr, distinct: bool) -> Expr {
    let nested = |e: &Expr| Box::new(Expr::Nested(Box::new(e.clone())));
    let b_null = if distinct {
        Expr::IsNotNull(nested(b))
    } else {
        Expr::IsNull(nested(b))
    };
    let op = if distinct {
        BinaryOperator::NotEq
    } else {
        BinaryOperator::Eq
    };
    Expr::Case {
        case_token: AttachedToken::empty(),
        end_token: AttachedToken::empty(),
        operand: None,
        conditions: vec![
            CaseWhen {
                condition: Expr::IsNull(nested(a)),
                result: b_null,
            },
            CaseWhen {
                condition: Expr::IsNull(nested(b)),
                result: Expr::Value(Value::Boolean(distinct).into()),
            },
        ],
        else_result: Some(Box::new(Expr::BinaryOp {
            left: nested(a),
            op,
            right: nested(b),
        })),
    }
}
