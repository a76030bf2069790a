//! The row form of UPDATE's SET: `SET (a, b) = (x, y)`, `SET (a, b) =
//! ROW(x, y)` and `SET (a, b) = (SELECT x, y FROM ...)`, correlated or
//! not. Each is rewritten into one `column = value` per column before
//! planning ([`expand`], called by `statement.rs` for every UPDATE), so
//! the rest of the planner (views, triggers, correlated subqueries,
//! `dml::bind_assignments`) sees only the plain form.
//!
//! A sub-SELECT becomes one scalar subquery per column, each with that
//! column's item of its select list: the same rows and errors (21000 for
//! more than one row, NULLs for none) since the query is the same but for
//! its list. It is run once per column (PostgreSQL runs it once per row):
//! only a volatile function in it can tell. A query whose list cannot be
//! taken apart that way (`*`, DISTINCT, a set operation, ORDER BY a
//! position) is 0A000.

use crate::error::SqlError;
use sqlparser::ast::{
    Assignment, AssignmentTarget, Distinct, Expr, GroupByExpr, OrderByKind, Query, SelectItem,
    SetExpr, Statement,
};

/// `statement` with its row-form SET items taken apart, if it is an
/// UPDATE that has one (`None`: nothing to rewrite).
pub fn expand(statement: &Statement) -> Result<Option<Statement>, SqlError> {
    let Statement::Update { assignments, .. } = statement else {
        return Ok(None);
    };
    if !(assignments.iter()).any(|a| matches!(a.target, AssignmentTarget::Tuple(_))) {
        return Ok(None);
    }
    let mut expanded = Vec::new();
    for a in assignments {
        match &a.target {
            AssignmentTarget::ColumnName(_) => expanded.push(a.clone()),
            AssignmentTarget::Tuple(columns) => {
                let values = values(&a.value, columns.len())?;
                expanded.extend(
                    columns
                        .iter()
                        .zip(values)
                        .map(|(column, value)| Assignment {
                            target: AssignmentTarget::ColumnName(column.clone()),
                            value,
                        }),
                );
            }
        }
    }
    let mut statement = statement.clone();
    if let Statement::Update { assignments, .. } = &mut statement {
        *assignments = expanded;
    }
    Ok(Some(statement))
}

fn mismatch() -> SqlError {
    SqlError::syntax("number of columns does not match number of values")
}

/// The `count` values a row-form SET item's source gives, one per column.
fn values(source: &Expr, count: usize) -> Result<Vec<Expr>, SqlError> {
    let items = match source {
        Expr::Nested(inner) => return values(inner, count),
        Expr::Subquery(query) => return subquery_values(query, count),
        Expr::Tuple(items) => items.clone(),
        Expr::Function(f)
            if f.name.to_string().eq_ignore_ascii_case("row")
                && let sqlparser::ast::FunctionArguments::List(list) = &f.args =>
        {
            (list.args.iter())
                .map(|arg| match arg {
                    sqlparser::ast::FunctionArg::Unnamed(
                        sqlparser::ast::FunctionArgExpr::Expr(e),
                    ) => Ok(e.clone()),
                    _ => Err(SqlError::unsupported(
                        "this ROW() in a multiple-column UPDATE",
                    )),
                })
                .collect::<Result<_, _>>()?
        }
        // `(a) = (1)`: one column, one value.
        other if count == 1 => vec![other.clone()],
        _ => {
            return Err(SqlError::syntax(
                "source for a multiple-column UPDATE item must be a sub-SELECT or ROW() expression",
            ));
        }
    };
    if items.len() != count {
        return Err(mismatch());
    }
    Ok(items)
}

/// A sub-SELECT's `count` columns, each as a scalar subquery of its own.
fn subquery_values(query: &Query, count: usize) -> Result<Vec<Expr>, SqlError> {
    let unsupported = || SqlError::unsupported("this sub-SELECT in a multiple-column UPDATE");
    let SetExpr::Select(select) = query.body.as_ref() else {
        return Err(unsupported());
    };
    let positional = query.order_by.as_ref().is_some_and(|o| match &o.kind {
        OrderByKind::Expressions(items) => (items.iter()).any(|i| {
            matches!(&i.expr, Expr::Value(v) if matches!(v.value, sqlparser::ast::Value::Number(..)))
        }),
        OrderByKind::All(_) => true,
    });
    let grouped_by_position = match &select.group_by {
        GroupByExpr::Expressions(items, _) => (items.iter()).any(
            |e| matches!(e, Expr::Value(v) if matches!(v.value, sqlparser::ast::Value::Number(..))),
        ),
        GroupByExpr::All(_) => true,
    };
    let plain = (select.projection.iter()).all(|i| {
        matches!(
            i,
            SelectItem::UnnamedExpr(_) | SelectItem::ExprWithAlias { .. }
        )
    });
    if !plain
        || positional
        || grouped_by_position
        || matches!(select.distinct, Some(Distinct::Distinct | Distinct::On(_)))
    {
        return Err(unsupported());
    }
    if select.projection.len() != count {
        return Err(mismatch());
    }
    Ok((0..count)
        .map(|k| {
            let mut one = query.clone();
            if let SetExpr::Select(select) = one.body.as_mut() {
                select.projection = vec![select.projection[k].clone()];
            }
            Expr::Subquery(Box::new(one))
        })
        .collect())
}
