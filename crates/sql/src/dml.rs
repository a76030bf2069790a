//! `INSERT ... VALUES`.

use crate::error::SqlError;
use crate::expr;
use crate::names;
use crate::output::Output;
use crate::types;
use folio_db::{Database, Transaction};
use folio_row::Value;
use sqlparser::ast::{Insert, SetExpr, TableObject};

/// `INSERT INTO name [(columns)] VALUES (...), ...`: each row's values
/// are coerced to their columns' types (quoted literals take the
/// column's type), missing columns are NULL, and the relation inserts the
/// row and its index entries (folio-catalog). Tag `INSERT 0 n`.
pub fn insert(db: &Database, txn: &mut Transaction, insert: &Insert) -> Result<Output, SqlError> {
    let TableObject::TableName(table) = &insert.table else {
        return Err(SqlError::unsupported("INSERT into a table function"));
    };
    if insert.on.is_some() || insert.returning.is_some() || insert.or.is_some() {
        return Err(SqlError::unsupported(
            "INSERT with ON CONFLICT or RETURNING",
        ));
    }
    let name = names::relation(table)?;
    let relation = db
        .catalog()
        .relation(txn, &name)?
        .ok_or_else(|| SqlError::undefined_table(&name))?;
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
            out[column] = types::coerce(expr::constant(expr)?, relation.types[column])?;
        }
        relation.insert(txn, out)?;
        count += 1;
    }
    Ok(Output::command(format!("INSERT 0 {count}")))
}
