//! The row form of UPDATE's SET: `SET (a, b) = (x, y)`, `SET (a, b) =
//! ROW(x, y)` and `SET (a, b) = (SELECT x, y FROM ...)`, correlated or
//! not. Each is rewritten into one `column = value` per column before
//! planning ([`expand`], called by `statement.rs` for every UPDATE), so
//! the rest of the planner (views, triggers, correlated subqueries,
//! `dml::bind_assignments`) sees only the plain form; also ON CONFLICT
//! DO UPDATE's SET items ([`expand_update`], `conflict.rs`).
//!
//! In `ROW(x, v.*)`, `v.*` stands for the columns of the FROM item `v`
//! when its alias lists them (`(VALUES ...) AS v(i, j)`); another `v.*`
//! is 0A000. `(v.*)` is not a row: PostgreSQL's 0A000.
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
    Assignment, AssignmentTarget, Distinct, Expr, FunctionArg, FunctionArgExpr, FunctionArguments,
    GroupByExpr, ObjectName, OrderByKind, Query, SelectItem, SetExpr, Statement, TableFactor,
    TableWithJoins, UpdateTableFromKind,
};

/// `statement` with its row-form SET items taken apart, if it is an
/// UPDATE that has one (`None`: nothing to rewrite).
pub fn expand(statement: &Statement) -> Result<Option<Statement>, SqlError> {
    let Statement::Update {
        assignments, from, ..
    } = statement
    else {
        return Ok(None);
    };
    let from = match from {
        Some(UpdateTableFromKind::AfterSet(from) | UpdateTableFromKind::BeforeSet(from)) => {
            from.as_slice()
        }
        None => &[],
    };
    let Some(expanded) = expand_items(assignments, from)? else {
        return Ok(None);
    };
    let mut statement = statement.clone();
    if let Statement::Update { assignments, .. } = &mut statement {
        *assignments = expanded;
    }
    Ok(Some(statement))
}

/// SET items (an UPDATE's, or ON CONFLICT DO UPDATE's, `conflict.rs`)
/// with each row-form item taken apart, if one is (`None`: none is).
pub fn expand_update(assignments: &[Assignment]) -> Result<Option<Vec<Assignment>>, SqlError> {
    expand_items(assignments, &[])
}

/// [`expand_update`] with the FROM items `from`, whose `v.*` a `ROW(v.*)`
/// may name.
fn expand_items(
    assignments: &[Assignment],
    from: &[TableWithJoins],
) -> Result<Option<Vec<Assignment>>, SqlError> {
    if !(assignments.iter()).any(|a| matches!(a.target, AssignmentTarget::Tuple(_))) {
        return Ok(None);
    }
    let mut expanded = Vec::new();
    for a in assignments {
        match &a.target {
            AssignmentTarget::ColumnName(_) => expanded.push(a.clone()),
            AssignmentTarget::Tuple(columns) => {
                let values = values(&a.value, columns.len(), from)?;
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
    Ok(Some(expanded))
}

/// The columns `v.*` stands for, when `v` is a FROM item of `from` whose
/// alias lists its columns (`(VALUES ...) AS v(i, j)`).
fn star_of(name: &ObjectName, from: &[TableWithJoins]) -> Option<Vec<Expr>> {
    let [part] = name.0.as_slice() else {
        return None;
    };
    let qualifier = part.as_ident()?;
    let factors = from
        .iter()
        .flat_map(|t| std::iter::once(&t.relation).chain(t.joins.iter().map(|j| &j.relation)));
    let alias = factors
        .filter_map(|f| match f {
            TableFactor::Derived { alias, .. }
            | TableFactor::Table { alias, .. }
            | TableFactor::Function { alias, .. }
            | TableFactor::UNNEST { alias, .. } => alias.as_ref(),
            _ => None,
        })
        .find(|a| crate::names::ident(&a.name) == crate::names::ident(qualifier))?;
    if alias.columns.is_empty() {
        return None;
    }
    Some(
        (alias.columns.iter())
            .map(|c| Expr::CompoundIdentifier(vec![alias.name.clone(), c.name.clone()]))
            .collect(),
    )
}

fn mismatch() -> SqlError {
    SqlError::syntax("number of columns does not match number of values")
}

/// The `count` values a row-form SET item's source gives, one per column
/// (`from`: the UPDATE's other FROM items, whose `v.*` in `ROW(v.*)`
/// stands for their columns).
fn values(source: &Expr, count: usize, from: &[TableWithJoins]) -> Result<Vec<Expr>, SqlError> {
    let items = match source {
        // `(x)` is one value; `(v.*)` is no row (PostgreSQL's 42601 below).
        Expr::Nested(inner) if !matches!(inner.as_ref(), Expr::QualifiedWildcard(..)) => {
            return values(inner, count, from);
        }
        Expr::Subquery(query) => return subquery_values(query, count),
        Expr::Tuple(items) => items.clone(),
        Expr::Function(f)
            if f.name.to_string().eq_ignore_ascii_case("row")
                && let FunctionArguments::List(list) = &f.args =>
        {
            let mut items = Vec::new();
            for arg in &list.args {
                match arg {
                    FunctionArg::Unnamed(FunctionArgExpr::Expr(e)) => items.push(e.clone()),
                    FunctionArg::Unnamed(FunctionArgExpr::QualifiedWildcard(name))
                        if let Some(columns) = star_of(name, from) =>
                    {
                        items.extend(columns)
                    }
                    _ => {
                        return Err(SqlError::unsupported(
                            "this ROW() in a multiple-column UPDATE",
                        ));
                    }
                }
            }
            items
        }
        // `(a) = (1)`: one column, one value.
        other if count == 1 => vec![other.clone()],
        // (PostgreSQL's code for it: 0A000.)
        _ => {
            return Err(SqlError::new(
                "0A000",
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
