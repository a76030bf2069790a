//! Which rows a `WHERE` clause of `column = constant` terms selects, and
//! how they are found: through an index whose every column has a term
//! (unique ones first: a primary-key lookup), else by a sequential scan.
//! The one owner of the access-path choice until the planner exists.

use crate::error::SqlError;
use crate::expr;
use crate::names;
use crate::types;
use folio_catalog::Relation;
use folio_db::{Database, Tid, Transaction};
use folio_row::Value;
use sqlparser::ast::{BinaryOperator, Expr, TableFactor, TableWithJoins};
use std::cmp::Ordering;

/// The relation `name` as `txn` sees it, or 42P01.
pub fn relation(db: &Database, txn: &Transaction, name: &str) -> Result<Relation, SqlError> {
    db.catalog()
        .relation(txn, name)?
        .ok_or_else(|| SqlError::undefined_table(name))
}

/// The one plain table a statement reads or changes (`FROM t`, `UPDATE
/// t`), its name and relation; aliases, table functions and joins are
/// 0A000 until the planner has them.
pub fn table(
    db: &Database,
    txn: &Transaction,
    from: &TableWithJoins,
) -> Result<(String, Relation), SqlError> {
    let TableFactor::Table {
        name,
        alias: None,
        args: None,
        ..
    } = &from.relation
    else {
        return Err(SqlError::unsupported(format!(
            "the table {}",
            from.relation
        )));
    };
    if !from.joins.is_empty() {
        return Err(SqlError::unsupported("joins"));
    }
    let name = names::relation(name)?;
    let relation = relation(db, txn, &name)?;
    Ok((name, relation))
}

/// `column = value` terms joined by AND (values coerced to the column).
pub type Terms = Vec<(usize, Value)>;

/// The terms of a WHERE clause (none: every row).
pub fn terms(relation: &Relation, selection: Option<&Expr>) -> Result<Terms, SqlError> {
    match selection {
        Some(expr) => equalities(relation, expr),
        None => Ok(Vec::new()),
    }
}

fn equalities(relation: &Relation, expr: &Expr) -> Result<Terms, SqlError> {
    match expr {
        Expr::Nested(inner) => equalities(relation, inner),
        Expr::BinaryOp {
            left,
            op: BinaryOperator::And,
            right,
        } => {
            let mut terms = equalities(relation, left)?;
            terms.extend(equalities(relation, right)?);
            Ok(terms)
        }
        Expr::BinaryOp {
            left,
            op: BinaryOperator::Eq,
            right,
        } => {
            let (id, constant) = match (left.as_ref(), right.as_ref()) {
                (Expr::Identifier(id), other) | (other, Expr::Identifier(id)) => (id, other),
                _ => return Err(SqlError::unsupported(format!("the condition {expr}"))),
            };
            let c = column_of(relation, &names::ident(id))?;
            let value = types::coerce(expr::constant(constant)?, relation.types[c])?;
            Ok(vec![(c, value)])
        }
        other => Err(SqlError::unsupported(format!("the condition {other}"))),
    }
}

/// The position of column `name`, or 42703.
pub fn column_of(relation: &Relation, name: &str) -> Result<usize, SqlError> {
    relation
        .def
        .column(name)
        .ok_or_else(|| SqlError::undefined_column(name))
}

/// Whether `row` satisfies every term (NULL never equals anything).
pub fn matches(row: &[Value], terms: &Terms) -> bool {
    terms
        .iter()
        .all(|(c, v)| row[*c].sql_cmp(v) == Some(Ordering::Equal))
}

/// The rows `txn` sees that satisfy `terms`, with their tuple ids.
pub fn rows(
    txn: &Transaction,
    relation: &Relation,
    terms: &Terms,
) -> Result<Vec<(Tid, Vec<Value>)>, SqlError> {
    let term = |c: u16| terms.iter().find(|(tc, _)| *tc == usize::from(c));
    let index = relation
        .indexes
        .iter()
        .enumerate()
        .filter(|(_, ri)| ri.def.columns.iter().all(|&c| term(c).is_some()))
        .max_by_key(|(_, ri)| ri.def.unique);
    let found = match index {
        Some((i, ri)) => {
            let key: Vec<Value> = ri
                .def
                .columns
                .iter()
                .filter_map(|&c| term(c).map(|(_, v)| v.clone()))
                .collect();
            relation.lookup(txn, i, &key)?
        }
        None => relation.scan(txn)?,
    };
    Ok(found
        .into_iter()
        .filter(|(_, row)| matches(row, terms))
        .collect())
}
