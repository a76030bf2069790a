//! `SELECT`. For now: constants without `FROM`, and one table's rows
//! selected by `column = constant` conjunctions (`access.rs`: an index
//! lookup when an index covers them, else a sequential scan), returning
//! columns, `*` or `count(*)` (README "Status").

use crate::access;
use crate::error::SqlError;
use crate::expr;
use crate::names;
use crate::output::{Column, Output};
use folio_catalog::Relation;
use folio_db::{Database, Transaction};
use folio_row::{SqlType, Value};
use sqlparser::ast::{
    Expr, FunctionArg, FunctionArgExpr, FunctionArguments, GroupByExpr, Query, Select, SelectItem,
    SetExpr,
};

/// Runs a query.
pub fn select(db: &Database, txn: &mut Transaction, query: &Query) -> Result<Output, SqlError> {
    if query.with.is_some()
        || query.order_by.is_some()
        || query.limit_clause.is_some()
        || query.fetch.is_some()
        || !query.locks.is_empty()
    {
        return Err(SqlError::unsupported(
            "WITH, ORDER BY, LIMIT, FETCH or FOR UPDATE/SHARE",
        ));
    }
    let SetExpr::Select(select) = query.body.as_ref() else {
        return Err(SqlError::unsupported(format!("the query {}", query.body)));
    };
    check_plain(select)?;
    match select.from.as_slice() {
        [] => constants(select),
        [from] => {
            let (_, relation) = access::table(db, txn, from)?;
            scan(txn, &relation, select)
        }
        _ => Err(SqlError::unsupported("joins")),
    }
}

/// Refuses the clauses not supported yet.
fn check_plain(select: &Select) -> Result<(), SqlError> {
    let grouped =
        !matches!(&select.group_by, GroupByExpr::Expressions(e, m) if e.is_empty() && m.is_empty());
    if select.distinct.is_some() || grouped || select.having.is_some() || select.into.is_some() {
        return Err(SqlError::unsupported("DISTINCT, GROUP BY, HAVING or INTO"));
    }
    Ok(())
}

/// `SELECT constant, ...`: one row; unnamed columns are `?column?`.
fn constants(select: &Select) -> Result<Output, SqlError> {
    let mut columns = Vec::new();
    let mut row = Vec::new();
    for item in &select.projection {
        let (expr, name) = match item {
            SelectItem::UnnamedExpr(expr) => (expr, "?column?".to_string()),
            SelectItem::ExprWithAlias { expr, alias } => (expr, names::ident(alias)),
            other => return Err(SqlError::unsupported(format!("{other} without FROM"))),
        };
        let value = expr::constant(expr)?;
        columns.push(Column {
            name,
            type_oid: value_type_oid(&value),
        });
        row.push(value);
    }
    Ok(Output::Rows {
        columns,
        rows: vec![row],
        tag: "SELECT 1".into(),
    })
}

/// The type oid of a constant (an untyped quoted literal or NULL is
/// `text`, as PostgreSQL resolves `unknown` in a select list).
fn value_type_oid(value: &Value) -> u32 {
    let ty = match value {
        Value::Int2(_) => SqlType::Int2,
        Value::Int4(_) => SqlType::Int4,
        Value::Int8(_) => SqlType::Int8,
        Value::Float4(_) => SqlType::Float4,
        Value::Float8(_) => SqlType::Float8,
        Value::Numeric(_) => SqlType::Numeric(None),
        Value::Bytea(_) => SqlType::Bytea,
        Value::Bool(_) => SqlType::Bool,
        Value::Date(_) => SqlType::Date,
        Value::Timestamp(_) => SqlType::Timestamp,
        Value::TimestampTz(_) => SqlType::TimestampTz,
        Value::Uuid(_) => SqlType::Uuid,
        Value::Text(_) | Value::Null => SqlType::Text,
    };
    ty.oid()
}

/// What a select list asks of each row.
enum Projection {
    Columns(Vec<usize>),
    Count,
}

/// The rows of `relation` the WHERE clause selects (`access.rs`).
fn scan(txn: &Transaction, relation: &Relation, select: &Select) -> Result<Output, SqlError> {
    let terms = access::terms(relation, select.selection.as_ref())?;
    let (projection, columns) = projection(relation, &select.projection)?;
    let mut rows = Vec::new();
    let mut count = 0i64;
    for (_, row) in access::rows(txn, relation, &terms)? {
        count += 1;
        if let Projection::Columns(cols) = &projection {
            rows.push(cols.iter().map(|&c| row[c].clone()).collect());
        }
    }
    if let Projection::Count = projection {
        rows = vec![vec![Value::Int8(count)]];
    }
    let tag = format!("SELECT {}", rows.len());
    Ok(Output::Rows { columns, rows, tag })
}

/// The select list over `relation`: columns and `*`, or `count(*)` alone.
fn projection(
    relation: &Relation,
    items: &[SelectItem],
) -> Result<(Projection, Vec<Column>), SqlError> {
    let column = |c: usize, name: String| Column {
        name,
        type_oid: relation.types[c].oid(),
    };
    if let [item] = items
        && let Some(name) = count_star(item)
    {
        let columns = vec![Column {
            name,
            type_oid: SqlType::Int8.oid(),
        }];
        return Ok((Projection::Count, columns));
    }
    let mut picked = Vec::new();
    let mut columns = Vec::new();
    for item in items {
        match item {
            SelectItem::Wildcard(_) => {
                for (c, def) in relation.def.columns.iter().enumerate() {
                    picked.push(c);
                    columns.push(column(c, def.name.clone()));
                }
            }
            SelectItem::UnnamedExpr(Expr::Identifier(id)) => {
                let c = access::column_of(relation, &names::ident(id))?;
                picked.push(c);
                columns.push(column(c, names::ident(id)));
            }
            SelectItem::ExprWithAlias {
                expr: Expr::Identifier(id),
                alias,
            } => {
                let c = access::column_of(relation, &names::ident(id))?;
                picked.push(c);
                columns.push(column(c, names::ident(alias)));
            }
            other => return Err(SqlError::unsupported(format!("the select item {other}"))),
        }
    }
    Ok((Projection::Columns(picked), columns))
}

/// `count(*)` (its output name: `count`, or the alias).
fn count_star(item: &SelectItem) -> Option<String> {
    let (expr, name) = match item {
        SelectItem::UnnamedExpr(expr) => (expr, "count".to_string()),
        SelectItem::ExprWithAlias { expr, alias } => (expr, names::ident(alias)),
        _ => return None,
    };
    let Expr::Function(f) = expr else { return None };
    let is_count = f.name.0.len() == 1 && f.name.to_string().eq_ignore_ascii_case("count");
    let star = matches!(&f.args, FunctionArguments::List(list)
        if matches!(list.args.as_slice(), [FunctionArg::Unnamed(FunctionArgExpr::Wildcard)]));
    (is_count && star && f.filter.is_none() && f.over.is_none()).then_some(name)
}
