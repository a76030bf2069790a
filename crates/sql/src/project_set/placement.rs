//! Where PostgreSQL refuses a set-returning call, its error (the
//! module doc of `project_set.rs` lists them): the checks of a SELECT
//! ([`check_placement`]) and of the clauses of DDL and DML that take no
//! call ([`refuse`]).

use super::{call_args, is_srf_call};
use crate::error::SqlError;
use crate::names;
use sqlparser::ast::{
    BinaryOperator, Expr, OrderByExpr, Query, Select, SelectItem, Spanned, UnaryOperator, Visit,
    Visitor,
};
use std::ops::ControlFlow;

/// PostgreSQL's HINT for a set-returning call inside an expression that
/// evaluates its arguments conditionally or once per group.
const LATERAL_HINT: &str =
    "You might be able to move the set-returning function into a LATERAL FROM item.";

/// A set-returning call found in an expression: where it is (for the
/// error's position).
struct Found {
    at: sqlparser::tokenizer::Location,
}

/// The first set-returning call in `e` outside its subqueries (whose
/// calls are theirs).
fn first_srf(e: &Expr) -> Option<Found> {
    struct Find(usize, Option<Found>);
    impl Visitor for Find {
        type Break = ();
        fn pre_visit_query(&mut self, _: &Query) -> ControlFlow<()> {
            self.0 += 1;
            ControlFlow::Continue(())
        }
        fn post_visit_query(&mut self, _: &Query) -> ControlFlow<()> {
            self.0 -= 1;
            ControlFlow::Continue(())
        }
        fn pre_visit_expr(&mut self, e: &Expr) -> ControlFlow<()> {
            match e {
                Expr::Function(f) if self.0 == 0 && is_srf_call(f) => {
                    self.1 = Some(Found {
                        at: f.name.span().start,
                    });
                    ControlFlow::Break(())
                }
                _ => ControlFlow::Continue(()),
            }
        }
    }
    let mut find = Find(0, None);
    let _ = e.visit(&mut find);
    find.1
}

/// PostgreSQL's 0A000 for a set-returning call in `clause`, pointing at
/// the call.
fn not_allowed(f: Found, clause: &str) -> SqlError {
    SqlError::new(
        "0A000",
        format!("set-returning functions are not allowed in {clause}"),
    )
    .near(Some(f.at))
}

/// PostgreSQL's 0A000 if `e` holds a set-returning call: `where` names
/// the clause that refuses one ("DEFAULT expressions", "UPDATE", ...).
pub(crate) fn refuse(e: &Expr, clause: &str) -> Result<(), SqlError> {
    match first_srf(e) {
        Some(f) => Err(not_allowed(f, clause)),
        None => Ok(()),
    }
}

/// PostgreSQL's errors for the set-returning calls of `select` (and of
/// its ORDER BY) where it refuses them (see the module's doc).
pub(crate) fn check_placement(select: &Select, order_by: &[OrderByExpr]) -> Result<(), SqlError> {
    let clauses = [
        (select.selection.as_ref(), "WHERE"),
        (select.having.as_ref(), "HAVING"),
    ];
    for (e, clause) in clauses {
        if let Some(f) = e.and_then(first_srf) {
            return Err(not_allowed(f, clause));
        }
    }
    for twj in &select.from {
        for join in &twj.joins {
            use sqlparser::ast::{JoinConstraint, JoinOperator as J};
            let (J::Join(c)
            | J::Inner(c)
            | J::Left(c)
            | J::LeftOuter(c)
            | J::Right(c)
            | J::RightOuter(c)
            | J::FullOuter(c)) = &join.join_operator
            else {
                continue;
            };
            if let JoinConstraint::On(e) = c
                && let Some(f) = first_srf(e)
            {
                return Err(not_allowed(f, "JOIN conditions"));
            }
        }
    }
    let items = select.projection.iter().filter_map(|item| match item {
        SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. } => Some(e),
        _ => None,
    });
    for e in items.chain(order_by.iter().map(|o| &o.expr)) {
        check_nesting(e)?;
    }
    Ok(())
}

/// PostgreSQL's error for a set-returning call under an expression that
/// cannot hold one, the outermost such expression's.
fn check_nesting(e: &Expr) -> Result<(), SqlError> {
    let mut error = None;
    let _ = sqlparser::ast::visit_expressions(e, |x| {
        if let Some(e) = refused(x) {
            error = Some(e);
            return ControlFlow::Break(());
        }
        ControlFlow::Continue(())
    });
    error.map_or(Ok(()), Err)
}

/// The error for `e` if it is an expression that refuses a set-returning
/// call among its operands and has one.
fn refused(e: &Expr) -> Option<SqlError> {
    let in_any = |exprs: &mut dyn Iterator<Item = &Expr>| exprs.filter_map(first_srf).next();
    let hinted = |f: Found, message: String| {
        Some(
            SqlError::new("0A000", message)
                .with_hint(LATERAL_HINT)
                .near(Some(f.at)),
        )
    };
    match e {
        Expr::Case {
            operand,
            conditions,
            else_result,
            ..
        } => {
            let mut parts = operand
                .iter()
                .map(|b| &**b)
                .chain(conditions.iter().flat_map(|w| [&w.condition, &w.result]))
                .chain(else_result.iter().map(|b| &**b));
            let f = in_any(&mut parts)?;
            hinted(f, "set-returning functions are not allowed in CASE".into())
        }
        // (PostgreSQL's check, which comes first.)
        Expr::Function(call) if is_srf_call(call) && call.filter.is_some() => Some(
            SqlError::new(
                "42809",
                format!(
                    "FILTER specified, but {} is not an aggregate function",
                    names::function(&call.name)
                ),
            )
            .near(Some(call.name.span().start)),
        ),
        Expr::Function(call) => {
            let name = names::function(&call.name);
            let mut args = call_args(call);
            if call.over.is_some() {
                let f = in_any(&mut args)?;
                return hinted(
                    f,
                    "window function calls cannot contain set-returning function calls".into(),
                );
            }
            if crate::aggregate::is_aggregate(call) {
                if let Some(f) = call.filter.as_deref().and_then(first_srf) {
                    return Some(not_allowed(f, "FILTER"));
                }
                let f = in_any(&mut args)?;
                return hinted(
                    f,
                    "aggregate function calls cannot contain set-returning function calls".into(),
                );
            }
            if name == "coalesce" {
                let f = in_any(&mut args)?;
                return hinted(
                    f,
                    "set-returning functions are not allowed in COALESCE".into(),
                );
            }
            None
        }
        // (PostgreSQL checks an operand's type first: only a boolean
        // one, as a comparison's, is refused for its set here; another
        // gets the binder's 42804 for its type.)
        Expr::BinaryOp {
            left,
            op: op @ (BinaryOperator::And | BinaryOperator::Or),
            right,
        } => {
            let word = if *op == BinaryOperator::And {
                "AND"
            } else {
                "OR"
            };
            let f = [left, right]
                .into_iter()
                .filter(|e| is_boolean(e))
                .find_map(|e| first_srf(e))?;
            Some(must_not_return_a_set(f, word))
        }
        Expr::UnaryOp {
            op: UnaryOperator::Not,
            expr,
        } if is_boolean(expr) => Some(must_not_return_a_set(first_srf(expr)?, "NOT")),
        // (PostgreSQL reads `a BETWEEN b AND c` as `a >= b AND a <= c`.)
        // (Pointing at the BETWEEN, as PostgreSQL's.)
        Expr::Between {
            expr, low, high, ..
        } => {
            first_srf(expr)
                .or_else(|| first_srf(low))
                .or_else(|| first_srf(high))?;
            let at = Found { at: e.span().start };
            Some(must_not_return_a_set(at, "AND"))
        }
        _ => None,
    }
}

/// Whether `e` is evidently boolean: a comparison, a test, a boolean
/// operator.
fn is_boolean(e: &Expr) -> bool {
    match e {
        Expr::Nested(inner) => is_boolean(inner),
        Expr::BinaryOp { op, .. } => matches!(
            op,
            BinaryOperator::Eq
                | BinaryOperator::NotEq
                | BinaryOperator::Lt
                | BinaryOperator::LtEq
                | BinaryOperator::Gt
                | BinaryOperator::GtEq
                | BinaryOperator::And
                | BinaryOperator::Or
        ),
        Expr::UnaryOp {
            op: UnaryOperator::Not,
            ..
        } => true,
        Expr::IsNull(_)
        | Expr::IsNotNull(_)
        | Expr::IsTrue(_)
        | Expr::IsFalse(_)
        | Expr::IsNotTrue(_)
        | Expr::IsNotFalse(_)
        | Expr::IsDistinctFrom(..)
        | Expr::IsNotDistinctFrom(..)
        | Expr::InList { .. }
        | Expr::Between { .. }
        | Expr::Like { .. }
        | Expr::ILike { .. } => true,
        _ => false,
    }
}

/// PostgreSQL's 42804 for a set-returning operand of a boolean operator.
fn must_not_return_a_set(f: Found, word: &str) -> SqlError {
    SqlError::new("42804", format!("argument of {word} must not return a set")).near(Some(f.at))
}
