//! `INSERT ... VALUES` and `UPDATE`.

use crate::access;
use crate::error::SqlError;
use crate::expr::{self, Scope};
use crate::names;
use crate::output::Output;
use crate::types;
use folio_db::{Database, Transaction, Write};
use folio_row::Value;
use sqlparser::ast::{
    Assignment, AssignmentTarget, Expr, Insert, SetExpr, TableObject, TableWithJoins,
};

/// `INSERT INTO name [(columns)] VALUES (...), ...`: each row's values
/// are coerced to their columns' types (quoted literals take the
/// column's type), missing columns are NULL, and the relation inserts the
/// row and its index entries (folio-catalog). Tag `INSERT 0 n`.
pub fn insert(
    db: &Database,
    txn: &mut Transaction,
    insert: &Insert,
    now: i64,
) -> Result<Output, SqlError> {
    let TableObject::TableName(table) = &insert.table else {
        return Err(SqlError::unsupported("INSERT into a table function"));
    };
    if insert.on.is_some() || insert.returning.is_some() || insert.or.is_some() {
        return Err(SqlError::unsupported(
            "INSERT with ON CONFLICT or RETURNING",
        ));
    }
    let name = names::relation(table)?;
    let relation = access::relation(db, txn, &name)?;
    let width = relation.def.columns.len();
    let targets: Vec<usize> = if insert.columns.is_empty() {
        (0..width).collect()
    } else {
        insert
            .columns
            .iter()
            .map(|c| {
                let column = names::ident(c);
                relation.def.column(&column).ok_or_else(|| {
                    SqlError::new(
                        "42703",
                        format!("column \"{column}\" of relation \"{name}\" does not exist"),
                    )
                })
            })
            .collect::<Result<_, _>>()?
    };
    let Some(source) = &insert.source else {
        return Err(SqlError::unsupported("INSERT ... DEFAULT VALUES"));
    };
    let SetExpr::Values(values) = source.body.as_ref() else {
        return Err(SqlError::unsupported("INSERT ... SELECT"));
    };
    let mut count = 0u64;
    for row in &values.rows {
        if row.len() > targets.len() {
            return Err(SqlError::syntax(
                "INSERT has more expressions than target columns",
            ));
        }
        if row.len() < targets.len() {
            return Err(SqlError::syntax(
                "INSERT has more target columns than expressions",
            ));
        }
        let mut out = vec![Value::Null; width];
        for (&column, expr) in targets.iter().zip(row) {
            let value = expr::eval(expr, &Scope::constant(now))?;
            out[column] = types::coerce(value, relation.types[column])?;
        }
        relation.insert(txn, out)?;
        count += 1;
    }
    Ok(Output::command(format!("INSERT 0 {count}")))
}

/// `UPDATE name SET column = expression, ... [WHERE column = constant AND
/// ...]`: each selected row (found as `access.rs` finds them) gets the
/// assignments evaluated over its values. A row another transaction
/// changed meanwhile is followed to its newest version, which is updated
/// if it still satisfies the WHERE clause (READ COMMITTED's re-check, as
/// PostgreSQL's EvalPlanQual); REPEATABLE READ gets 40001 from the heap.
/// Tag `UPDATE n`.
pub fn update(
    db: &Database,
    txn: &mut Transaction,
    table: &TableWithJoins,
    assignments: &[Assignment],
    selection: Option<&Expr>,
    now: i64,
) -> Result<Output, SqlError> {
    let (name, relation) = access::table(db, txn, table)?;
    let mut targets = Vec::with_capacity(assignments.len());
    for assignment in assignments {
        let AssignmentTarget::ColumnName(column) = &assignment.target else {
            return Err(SqlError::unsupported("UPDATE of a column tuple"));
        };
        let column = names::relation(column)?;
        let c = relation.def.column(&column).ok_or_else(|| {
            SqlError::new(
                "42703",
                format!("column \"{column}\" of relation \"{name}\" does not exist"),
            )
        })?;
        targets.push((c, &assignment.value));
    }
    let terms = access::terms(&relation, selection)?;
    let names: Vec<String> = relation
        .def
        .columns
        .iter()
        .map(|c| c.name.clone())
        .collect();
    let mut updated = 0u64;
    for (mut tid, mut old) in access::rows(txn, &relation, &terms)? {
        loop {
            let columns: Vec<(String, Value)> =
                names.iter().cloned().zip(old.iter().cloned()).collect();
            let scope = Scope {
                columns: &columns,
                now,
            };
            let mut new = old.clone();
            for &(c, value) in &targets {
                new[c] = types::coerce(expr::eval(value, &scope)?, relation.types[c])?;
            }
            match relation.update(txn, tid, &old, new)? {
                Write::Done(_) | Write::Hot(_) => {
                    updated += 1;
                    break;
                }
                Write::Gone => break,
                Write::Moved(next) => {
                    let newest = relation
                        .table
                        .newest(txn, next)
                        .map_err(folio_catalog::CatalogError::from)?;
                    let Some((newest, bytes)) = newest else {
                        break;
                    };
                    let values = relation.decode(txn, &bytes)?;
                    if !access::matches(&values, &terms) {
                        break;
                    }
                    (tid, old) = (newest, values);
                }
            }
        }
    }
    Ok(Output::command(format!("UPDATE {updated}")))
}
