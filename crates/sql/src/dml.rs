//! `INSERT ... VALUES | SELECT`, `UPDATE` and `DELETE`, with `RETURNING`.
//! Rows to change are found by the table's plan (`plan.rs`); a row another
//! transaction changed meanwhile is followed to its newest version, which
//! is changed if it still satisfies the WHERE clause (READ COMMITTED's
//! re-check, as PostgreSQL's EvalPlanQual); REPEATABLE READ gets 40001
//! from the heap.

use crate::access;
use crate::context::Ctx;
use crate::error::SqlError;
use crate::names;
use crate::output::Output;
use crate::plan::{self, Request};
use crate::query;
use crate::scalar::{self, Scalar};
use crate::scan;
use crate::settings::Settings;
use crate::types;
use folio_catalog::Relation;
use folio_db::{Tid, Transaction, Write};
use folio_row::Value;
use sqlparser::ast::{
    Assignment, AssignmentTarget, Delete, Expr, FromTable, Insert, SelectItem, SetExpr,
    TableObject, TableWithJoins,
};

/// `INSERT INTO name [(columns)] VALUES (...), ... | query [RETURNING
/// ...]`: each row's values are coerced to their columns' types (quoted
/// literals take the column's type), missing columns are NULL, and the
/// relation inserts the row and its index entries (folio-catalog). A
/// query's rows are all read before the first is inserted. Tag `INSERT 0
/// n`.
pub fn insert(cx: &Ctx<'_>, txn: &mut Transaction, insert: &Insert) -> Result<Output, SqlError> {
    let now = cx.now;
    let TableObject::TableName(table) = &insert.table else {
        return Err(SqlError::unsupported("INSERT into a table function"));
    };
    if insert.on.is_some() || insert.or.is_some() {
        return Err(SqlError::unsupported("INSERT with ON CONFLICT"));
    }
    let name = names::relation(table)?;
    let relation = access::relation(cx, txn, &name)?;
    let width = relation.def.columns.len();
    // Without a column list, the values fill the first columns (the
    // rest are NULL, as PostgreSQL's defaults without DEFAULT clauses).
    let listed = !insert.columns.is_empty();
    let targets: Vec<usize> = if !listed {
        (0..width).collect()
    } else {
        insert
            .columns
            .iter()
            .map(|c| column_of(&relation, &name, &names::ident(c)))
            .collect::<Result<_, _>>()?
    };
    let Some(source) = &insert.source else {
        return Err(SqlError::unsupported("INSERT ... DEFAULT VALUES"));
    };
    let rows: Vec<Vec<Value>> = match source.body.as_ref() {
        SetExpr::Values(values) => values
            .rows
            .iter()
            .map(|row| {
                row.iter()
                    .map(|e| {
                        scalar::bind(e, &[] as &[(String, folio_row::SqlType)])?.eval(&[], now)
                    })
                    .collect::<Result<Vec<_>, _>>()
            })
            .collect::<Result<_, _>>()?,
        _ => {
            let planned = query::plan_query(cx, txn, source)?;
            query::run(txn, &planned, now)?.0
        }
    };
    let returning = returning(&relation, insert.returning.as_deref())?;
    let mut out = Vec::new();
    let mut count = 0u64;
    for row in rows {
        if row.len() > targets.len() {
            return Err(SqlError::syntax(
                "INSERT has more expressions than target columns",
            ));
        }
        if row.len() < targets.len() && listed {
            return Err(SqlError::syntax(
                "INSERT has more target columns than expressions",
            ));
        }
        let mut values = vec![Value::Null; width];
        // (Without a list, `zip` stops at the row's end.)
        for (&column, value) in targets.iter().zip(row) {
            values[column] = types::coerce(value, relation.types[column])?;
        }
        if let Some((items, _)) = &returning {
            out.push(project(items, &values, now)?);
        }
        relation.insert(txn, values)?;
        count += 1;
    }
    finish(returning, out, format!("INSERT 0 {count}"))
}

/// `UPDATE name SET column = expression, ... [WHERE ...] [RETURNING
/// ...]`: each selected row gets the assignments evaluated over its
/// values. Tag `UPDATE n`.
pub fn update(
    cx: &Ctx<'_>,
    txn: &mut Transaction,
    table: &TableWithJoins,
    assignments: &[Assignment],
    selection: Option<&Expr>,
    returning_items: Option<&[SelectItem]>,
) -> Result<Output, SqlError> {
    let now = cx.now;
    let (name, relation) = access::table(cx, txn, table)?;
    let mut targets = Vec::with_capacity(assignments.len());
    for assignment in assignments {
        let AssignmentTarget::ColumnName(column) = &assignment.target else {
            return Err(SqlError::unsupported("UPDATE of a column tuple"));
        };
        let c = column_of(&relation, &name, &names::relation(column)?)?;
        targets.push((c, scalar::bind(&assignment.value, &*relation)?));
    }
    let returning = returning(&relation, returning_items)?;
    let mut out = Vec::new();
    let mut updated = 0u64;
    let (filter, found) = selected(txn, cx.settings, &relation, selection, now)?;
    for (mut tid, mut old) in found {
        loop {
            let mut new = old.clone();
            for (c, value) in &targets {
                new[*c] = types::coerce(value.eval(&old, now)?, relation.types[*c])?;
            }
            let projected = match &returning {
                Some((items, _)) => Some(project(items, &new, now)?),
                None => None,
            };
            match relation.update(txn, tid, &old, new)? {
                Write::Done(_) | Write::Hot(_) => {
                    updated += 1;
                    out.extend(projected);
                    break;
                }
                Write::Gone => break,
                Write::Moved(next) => match recheck(txn, &relation, &filter, next, now)? {
                    Some(newest) => (tid, old) = newest,
                    None => break,
                },
            }
        }
    }
    finish(returning, out, format!("UPDATE {updated}"))
}

/// `DELETE FROM name [WHERE ...] [RETURNING ...]`. Tag `DELETE n`.
pub fn delete(cx: &Ctx<'_>, txn: &mut Transaction, delete: &Delete) -> Result<Output, SqlError> {
    let now = cx.now;
    let from = match &delete.from {
        FromTable::WithFromKeyword(from) | FromTable::WithoutKeyword(from) => from,
    };
    if !delete.tables.is_empty()
        || delete.using.is_some()
        || !delete.order_by.is_empty()
        || delete.limit.is_some()
    {
        return Err(SqlError::unsupported(
            "DELETE with USING, ORDER BY or LIMIT",
        ));
    }
    let [from] = from.as_slice() else {
        return Err(SqlError::unsupported("DELETE from several tables"));
    };
    let (_, relation) = access::table(cx, txn, from)?;
    let returning = returning(&relation, delete.returning.as_deref())?;
    let mut out = Vec::new();
    let mut deleted = 0u64;
    let (filter, found) = selected(txn, cx.settings, &relation, delete.selection.as_ref(), now)?;
    for (mut tid, mut row) in found {
        loop {
            match relation.delete(txn, tid)? {
                Write::Done(_) | Write::Hot(_) => {
                    deleted += 1;
                    if let Some((items, _)) = &returning {
                        out.push(project(items, &row, now)?);
                    }
                    break;
                }
                Write::Gone => break,
                Write::Moved(next) => match recheck(txn, &relation, &filter, next, now)? {
                    Some(newest) => (tid, row) = newest,
                    None => break,
                },
            }
        }
    }
    finish(returning, out, format!("DELETE {deleted}"))
}

/// The rows a WHERE clause selects for a change, found by the table's
/// plan, and the clause's conjuncts (for the re-check).
#[allow(clippy::type_complexity)]
fn selected(
    txn: &Transaction,
    settings: &Settings,
    relation: &Relation,
    selection: Option<&Expr>,
    now: i64,
) -> Result<(Vec<Scalar>, Vec<(Tid, Vec<Value>)>), SqlError> {
    let filter = match selection {
        Some(e) => scalar::bind(e, relation)?.conjuncts(),
        None => Vec::new(),
    };
    let plan = plan::plan(Request {
        relation,
        filter: filter.clone(),
        order: Vec::new(),
        reads: None,
        settings,
    })?;
    let (found, _) = scan::run(txn, relation, &plan, now)?;
    let rows = found
        .into_iter()
        .map(|(tid, row)| (tid.expect("a plan reading every column has tuple ids"), row))
        .collect();
    Ok((filter, rows))
}

/// READ COMMITTED's re-check: the newest version of a row changed since
/// the snapshot, if it still satisfies the WHERE clause.
fn recheck(
    txn: &Transaction,
    relation: &Relation,
    filter: &[Scalar],
    next: Tid,
    now: i64,
) -> Result<Option<(Tid, Vec<Value>)>, SqlError> {
    let newest = relation
        .table
        .newest(txn, next)
        .map_err(folio_catalog::CatalogError::from)?;
    let Some((newest, bytes)) = newest else {
        return Ok(None);
    };
    let values = relation.decode(txn, &bytes)?;
    Ok(scan::accepts(filter, &values, now)?.then_some((newest, values)))
}

/// The position of column `column` of `table`, or PostgreSQL's 42703.
fn column_of(relation: &Relation, table: &str, column: &str) -> Result<usize, SqlError> {
    relation.def.column(column).ok_or_else(|| {
        SqlError::new(
            "42703",
            format!("column \"{column}\" of relation \"{table}\" does not exist"),
        )
    })
}

/// A RETURNING list bound over the table.
type Returning = Option<(Vec<Scalar>, Vec<crate::output::Column>)>;

fn returning(relation: &Relation, items: Option<&[SelectItem]>) -> Result<Returning, SqlError> {
    let Some(items) = items else {
        return Ok(None);
    };
    Ok(Some(query::projection(relation, items)?))
}

fn project(items: &[Scalar], row: &[Value], now: i64) -> Result<Vec<Value>, SqlError> {
    items.iter().map(|s| s.eval(row, now)).collect()
}

/// The statement's output: its tag, with the RETURNING rows if any.
fn finish(returning: Returning, rows: Vec<Vec<Value>>, tag: String) -> Result<Output, SqlError> {
    Ok(match returning {
        Some((_, columns)) => Output::Rows { columns, rows, tag },
        None => Output::Command { tag },
    })
}
