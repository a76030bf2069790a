//! Statements that are planned once and run per execution (queries and
//! row changes), the unit a prepared statement keeps: [`plan`], then
//! [`Plan::run`] with the execution's parameters while [`Plan::is_current`]
//! (no DDL changed a relation it uses).

use crate::context::Ctx;
use crate::dml::{self, Change};
use crate::error::SqlError;
use crate::output::Output;
use crate::query::{self, Planned};
use crate::scalar::Env;
use folio_catalog::Relation;
use folio_db::Transaction;
use sqlparser::ast::Statement;
use std::sync::Arc;

/// A planned statement.
pub enum Plan {
    Query(Box<Planned>),
    Change(Box<Change>),
}

/// Whether `statement` is planned (a query or a row change): the one
/// owner of that rule for prepared statements too.
pub fn plannable(statement: &Statement) -> bool {
    matches!(
        statement,
        Statement::Query(_)
            | Statement::Insert(_)
            | Statement::Update { .. }
            | Statement::Delete(_)
    )
}

/// The plan of `statement`, if it is a query or a row change (`None`:
/// another statement, run directly).
pub fn plan(
    cx: &Ctx<'_>,
    txn: &Transaction,
    statement: &Statement,
) -> Result<Option<Plan>, SqlError> {
    Ok(Some(match statement {
        Statement::Query(q) => Plan::Query(Box::new(query::plan_query(cx, txn, q)?)),
        Statement::Insert(insert) => Plan::Change(Box::new(dml::plan_insert(cx, txn, insert)?)),
        Statement::Update {
            table,
            assignments,
            from: None,
            selection,
            returning,
            or: None,
            limit: None,
        } => Plan::Change(Box::new(dml::plan_update(
            cx,
            txn,
            table,
            assignments,
            selection.as_ref(),
            returning.as_deref(),
        )?)),
        Statement::Delete(delete) => Plan::Change(Box::new(dml::plan_delete(cx, txn, delete)?)),
        _ => return Ok(None),
    }))
}

impl Plan {
    /// Runs the plan.
    pub fn run(&self, txn: &mut Transaction, env: &Env<'_>) -> Result<Output, SqlError> {
        match self {
            Plan::Query(planned) => planned.output(txn, env),
            Plan::Change(change) => change.run(txn, env),
        }
    }

    /// Whether every relation it uses is still current for `txn`.
    pub fn is_current(&self, txn: &Transaction) -> Result<bool, SqlError> {
        let relations: Vec<&Arc<Relation>> = match self {
            Plan::Query(planned) => planned.relations(),
            Plan::Change(change) => change.relations(),
        };
        for relation in relations {
            if !relation.is_current(txn)? {
                return Ok(false);
            }
        }
        Ok(true)
    }
}

impl Plan {
    /// The types of its `count` parameters, as PostgreSQL infers them
    /// from what each meets (a column, a typed value, an insert's target
    /// column); `text` where nothing tells (PostgreSQL: `unknown`, sent
    /// as text).
    pub fn param_types(&self, count: usize) -> Vec<folio_row::SqlType> {
        let mut types = vec![None; count];
        match self {
            Plan::Query(planned) => planned.param_types(&mut types),
            Plan::Change(change) => change.param_types(&mut types),
        }
        types
            .into_iter()
            .map(|t| t.unwrap_or(folio_row::SqlType::Text))
            .collect()
    }

    /// The result columns it returns (`None`: it returns no rows).
    pub fn columns(&self) -> Option<Vec<crate::output::Column>> {
        match self {
            Plan::Query(planned) => Some(planned.columns.clone()),
            Plan::Change(change) => change.returning_columns(),
        }
    }
}
