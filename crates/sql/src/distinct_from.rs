//! `a IS [NOT] DISTINCT FROM b`: equality that treats NULL as a value.
//! Two NULLs are not distinct, a NULL and a value are, and two values are
//! distinct when `a <> b`; never NULL. Bound as the `CASE` that says so,
//! so the comparison's operand types are resolved as `=`'s are (each
//! operand may be evaluated twice: a volatile one, `random()`, is called
//! again where PostgreSQL calls it once).
//!
//! sqlparser reads the right operand as a whole expression, so `a IS
//! DISTINCT FROM b AND c` comes out as `a IS DISTINCT FROM (b AND c)`;
//! PostgreSQL's `IS` binds tighter than `AND` and `OR`, and [`regroup`]
//! puts each parsed statement's nodes right.

use sqlparser::ast::helpers::attached_token::AttachedToken;
use sqlparser::ast::{
    BinaryOperator, CaseWhen, Expr, FunctionArg, FunctionArgExpr, FunctionArguments, Value,
    VisitMut, visit_expressions_mut,
};
use std::ops::ControlFlow;

/// `node` with each `IS [NOT] DISTINCT FROM` whose right operand sqlparser
/// read as an `AND` / `OR` chain regrouped: `(a IS DISTINCT FROM b) AND c`.
pub fn regroup<V: VisitMut>(node: &mut V) {
    let _ = visit_expressions_mut(node, |e| {
        if let Expr::IsDistinctFrom(_, right) | Expr::IsNotDistinctFrom(_, right) = e
            && is_and_or(right)
        {
            let taken = std::mem::replace(e, Expr::Value(Value::Null.into()));
            *e = regrouped(taken);
        }
        ControlFlow::<()>::Continue(())
    });
}

fn is_and_or(e: &Expr) -> bool {
    matches!(
        e,
        Expr::BinaryOp {
            op: BinaryOperator::And | BinaryOperator::Or,
            ..
        }
    )
}

/// `a IS [NOT] DISTINCT FROM (b AND c)` as `(a IS ... b) AND c`, down the
/// chain's left side.
fn regrouped(e: Expr) -> Expr {
    let (a, right, distinct) = match e {
        Expr::IsDistinctFrom(a, right) => (a, right, true),
        Expr::IsNotDistinctFrom(a, right) => (a, right, false),
        other => return other,
    };
    let node = |a, b| match distinct {
        true => Expr::IsDistinctFrom(a, b),
        false => Expr::IsNotDistinctFrom(a, b),
    };
    match *right {
        Expr::BinaryOp { left, op, right }
            if matches!(op, BinaryOperator::And | BinaryOperator::Or) =>
        {
            Expr::BinaryOp {
                left: Box::new(regrouped(node(a, left))),
                op,
                right,
            }
        }
        other => node(a, Box::new(other)),
    }
}

/// The `CASE` that `a IS DISTINCT FROM b` (`distinct`) or `a IS NOT
/// DISTINCT FROM b` is. Two row constructors of as many fields compare
/// field by field, as PostgreSQL's: distinct when a pair of fields is
/// (`ROW(1, NULL) IS DISTINCT FROM ROW(1, NULL)` is false, where their
/// `<>` is NULL).
pub fn as_case(a: &Expr, b: &Expr, distinct: bool) -> Expr {
    if let (Some(a_fields), Some(b_fields)) = (row_fields(a), row_fields(b))
        && a_fields.len() == b_fields.len()
        && !a_fields.is_empty()
    {
        let op = if distinct {
            BinaryOperator::Or
        } else {
            BinaryOperator::And
        };
        let pairs = a_fields.iter().zip(&b_fields);
        let mut each = pairs.map(|(x, y)| as_case(x, y, distinct));
        let first = each.next().expect("a field, checked above");
        return each.fold(first, |left, right| Expr::BinaryOp {
            left: Box::new(left),
            op: op.clone(),
            right: Box::new(right),
        });
    }
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

/// The fields of a row constructor, `ROW(a, b)` or `(a, b)` (none for a
/// `ROW(t.*)`, whose fields are its table's).
fn row_fields(e: &Expr) -> Option<Vec<Expr>> {
    match e {
        Expr::Nested(inner) => row_fields(inner),
        Expr::Tuple(items) => Some(items.clone()),
        Expr::Function(f) if f.name.to_string().eq_ignore_ascii_case("row") => match &f.args {
            FunctionArguments::List(list) => (list.args.iter())
                .map(|arg| match arg {
                    FunctionArg::Unnamed(FunctionArgExpr::Expr(e)) => Some(e.clone()),
                    _ => None,
                })
                .collect(),
            _ => None,
        },
        _ => None,
    }
}
