//! The relations a statement names: the one owner of 42P01 (no such
//! table), of the plain-table rule for FROM/UPDATE/DELETE, and of 42703
//! for a column of a table. (Which rows are read, and how: `plan.rs`.)

use crate::error::SqlError;
use crate::names;
use folio_catalog::Relation;
use folio_db::{Database, Transaction};
use sqlparser::ast::{TableFactor, TableWithJoins};

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

/// The position of column `name`, or 42703.
pub fn column_of(relation: &Relation, name: &str) -> Result<usize, SqlError> {
    relation
        .def
        .column(name)
        .ok_or_else(|| SqlError::undefined_column(name))
}
