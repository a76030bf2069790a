//! INSTEAD OF row triggers on views (README "Triggers"): an INSERT,
//! UPDATE or DELETE naming a view that has an INSTEAD OF trigger of its
//! event runs the trigger for each row instead of changing one. (Views
//! are otherwise read-only in folio: `access.rs`.)
//!
//! The rows come from a query planned as any other: an INSERT's source;
//! for an UPDATE `SELECT v.*, <SET values> FROM v [, FROM items] [WHERE
//! ...]`, for a DELETE `SELECT v.* FROM v [, USING items] [WHERE ...]`.
//! The view's row is OLD, an UPDATE's NEW is OLD with the SET values, an
//! INSERT's NEW the source row in the listed columns (NULL in the rest).
//! Each row goes through the triggers as BEFORE ROW triggers go
//! (`Triggers::before`: name order, each sees what the last returned,
//! NULL skips the row); a row not skipped counts, and RETURNING is
//! evaluated over what the triggers returned (a DELETE's: OLD), as in
//! PostgreSQL.

use crate::context::Ctx;
use crate::dml::{Returning, finish, project, returning};
use crate::error::SqlError;
use crate::from::{Scope, ScopeTable};
use crate::names;
use crate::output::Output;
use crate::query::{self, Planned};
use crate::scalar::Env;
use crate::triggers::{Event, Triggers};
use crate::types;
use folio_catalog::{TRIGGER_INSTEAD, ViewDef};
use folio_db::Transaction;
use folio_row::{SqlType, Value};
use sqlparser::ast::{
    AssignmentTarget, FromTable, Statement, TableFactor, TableObject, TableWithJoins,
};
use std::sync::Arc;

/// A row change of a view, run by its INSTEAD OF triggers.
pub struct Instead {
    view: ViewDef,
    types: Vec<SqlType>,
    event: Event,
    /// The rows (`None`: INSERT ... DEFAULT VALUES, one row of NULLs).
    rows: Option<Box<Planned>>,
    /// An INSERT's: the view column of each source column; an UPDATE's:
    /// the view column of each SET value (after the view's columns).
    targets: Vec<usize>,
    returning: Returning,
    /// The check options of the views above it (each with its view)
    /// that the rows the triggers return must meet (`updatable_views.rs`).
    checks: Vec<(String, crate::scalar::Scalar)>,
}

/// Whether any INSTEAD OF trigger is in scope: the one test a row change
/// makes before its target is looked up as a view.
pub fn any() -> bool {
    (crate::triggers::in_scope().iter()).any(|t| t.kind & TRIGGER_INSTEAD != 0)
}

/// `statement` (an INSERT, UPDATE or DELETE) planned as a change of a
/// view with INSTEAD OF triggers of its event, if it names one.
pub fn plan(
    cx: &Ctx<'_>,
    txn: &Transaction,
    statement: &Statement,
) -> Result<Option<Instead>, SqlError> {
    let (table, event) = match statement {
        Statement::Insert(insert) => match &insert.table {
            TableObject::TableName(name) => (names::relation(name)?, Event::Insert),
            _ => return Ok(None),
        },
        Statement::Update { table, .. } => (target_name(table)?, Event::Update),
        Statement::Delete(delete) => match &delete.from {
            FromTable::WithFromKeyword(from) | FromTable::WithoutKeyword(from) => match &from[..] {
                [one] => (target_name(one)?, Event::Delete),
                _ => return Ok(None),
            },
        },
        _ => return Ok(None),
    };
    let table = crate::temp_tables::resolve_name(cx, txn, &table)?;
    let Some(view) = cx.db.catalog().view(txn, &table)? else {
        return Ok(None);
    };
    let view = view.def;
    if view.materialized || !crate::triggers::fires_instead(view.oid, event) {
        return Ok(None);
    }
    let types = (view.columns.iter())
        .map(|c| {
            crate::user_types::of_oid(c.type_oid, c.typmod).ok_or_else(|| {
                SqlError::new(
                    "42704",
                    format!("type with oid {} does not exist", c.type_oid),
                )
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    let privilege = match event {
        Event::Insert => crate::privileges::INSERT,
        Event::Update => crate::privileges::UPDATE,
        _ => crate::privileges::DELETE,
    };
    crate::privileges::note(cx, view.oid, &table, "view", privilege);
    let bare = folio_catalog::unqualified(&table).to_string();
    let column = |name: &str| {
        (view.columns.iter())
            .position(|c| c.name == name)
            .ok_or_else(|| {
                SqlError::new(
                    "42703",
                    format!("column \"{name}\" of relation \"{bare}\" does not exist"),
                )
            })
    };
    let (rows, targets, qualifier, items) = match statement {
        Statement::Insert(insert) => {
            if insert.on.is_some() {
                return Err(SqlError::unsupported("ON CONFLICT on a view"));
            }
            // The view's column defaults fill what the statement leaves
            // out or gives DEFAULT (`view_defaults.rs`).
            let mut filled = insert.clone();
            let mut listed: Vec<String> = match insert.columns.is_empty() {
                true => {
                    let given = crate::view_defaults::source_width(cx, txn, insert)?;
                    (view.columns.iter().take(given))
                        .map(|c| c.name.clone())
                        .collect()
                }
                false => insert.columns.iter().map(names::ident).collect(),
            };
            crate::view_defaults::fill_insert(&view, &mut filled, &mut listed, true)?;
            let targets: Vec<usize> = (listed.iter())
                .map(|c| column(c))
                .collect::<Result<_, _>>()?;
            let rows = match filled.source.as_deref() {
                None => None,
                Some(source) => {
                    let planned = query::plan_query(cx, txn, source)?;
                    if planned.columns.len() > targets.len() {
                        return Err(SqlError::syntax(
                            "INSERT has more expressions than target columns",
                        ));
                    }
                    Some(Box::new(planned))
                }
            };
            let qualifier = match &insert.table_alias {
                Some(alias) => names::ident(alias),
                None => bare.clone(),
            };
            (rows, targets, qualifier, insert.returning.as_deref())
        }
        Statement::Update {
            table,
            assignments,
            from,
            selection,
            returning,
            ..
        } => {
            let mut targets = Vec::new();
            let mut values = Vec::new();
            for a in assignments {
                let AssignmentTarget::ColumnName(name) = &a.target else {
                    return Err(SqlError::unsupported("UPDATE of a column tuple"));
                };
                let at = column(&names::relation(name)?)?;
                targets.push(at);
                // DEFAULT: the view column's default, else NULL.
                match crate::view_defaults::of_assignment(&view, at, &a.value)? {
                    Some(value) => values.push(format!(", {value}")),
                    None => values.push(format!(", {}", a.value)),
                }
            }
            let others = match from {
                Some(sqlparser::ast::UpdateTableFromKind::AfterSet(items)) => items.as_slice(),
                _ => &[],
            };
            let (text, qualifier) = rows_query(table, &values.concat(), others, selection)?;
            let rows = plan_text(cx, txn, &text)?;
            (Some(rows), targets, qualifier, returning.as_deref())
        }
        Statement::Delete(delete) => {
            let (FromTable::WithFromKeyword(from) | FromTable::WithoutKeyword(from)) = &delete.from;
            let others = delete.using.as_deref().unwrap_or_default();
            let (text, qualifier) = rows_query(&from[0], "", others, &delete.selection)?;
            let rows = plan_text(cx, txn, &text)?;
            (
                Some(rows),
                Vec::new(),
                qualifier,
                delete.returning.as_deref(),
            )
        }
        _ => unreachable!("matched above"),
    };
    let scope = Scope::of(vec![ScopeTable {
        qualifier,
        names: view.columns.iter().map(|c| c.name.clone()).collect(),
        types: types.clone(),
        offset: 0,
        system: 0,
        domains: Vec::new(),
        collations: Vec::new(),
        row_type: None,
        uses: None,
    }]);
    let returning = returning(&scope, items)?;
    Ok(Some(Instead {
        view,
        types,
        event,
        rows,
        targets,
        returning,
        checks: Vec::new(),
    }))
}

/// The name of the one table an UPDATE or DELETE names.
fn target_name(table: &TableWithJoins) -> Result<String, SqlError> {
    match &table.relation {
        TableFactor::Table { name, .. } if table.joins.is_empty() => names::relation(name),
        _ => Ok(String::new()),
    }
}

/// The text of the query giving an UPDATE's or DELETE's rows: the view's
/// columns, then `values` (`, expr` each), over the view and `others`;
/// and the name the view's columns are qualified with.
fn rows_query(
    table: &TableWithJoins,
    values: &str,
    others: &[TableWithJoins],
    selection: &Option<sqlparser::ast::Expr>,
) -> Result<(String, String), SqlError> {
    let TableFactor::Table { name, alias, .. } = &table.relation else {
        return Err(SqlError::unsupported("this target of a row change"));
    };
    let (qualifier_sql, qualifier) = match alias {
        Some(alias) => (alias.name.to_string(), names::ident(&alias.name)),
        None => (name.to_string(), names::relation(name)?),
    };
    let mut text = format!("SELECT {qualifier_sql}.*{values} FROM {table}");
    for other in others {
        text.push_str(&format!(", {other}"));
    }
    if let Some(selection) = selection {
        text.push_str(&format!(" WHERE {selection}"));
    }
    let qualifier = folio_catalog::unqualified(&qualifier).to_string();
    Ok((text, qualifier))
}

fn plan_text(cx: &Ctx<'_>, txn: &Transaction, text: &str) -> Result<Box<Planned>, SqlError> {
    let mut parsed = crate::parse::statements(text)?;
    match parsed.pop() {
        Some(crate::parse::Parsed::Sql(statement)) if parsed.is_empty() => match *statement {
            Statement::Query(q) => Ok(Box::new(query::plan_query(cx, txn, &q)?)),
            _ => Err(SqlError::syntax(format!("syntax error in \"{text}\""))),
        },
        _ => Err(SqlError::syntax(format!("syntax error in \"{text}\""))),
    }
}

impl Instead {
    /// Runs the view's INSTEAD OF triggers for each row: tag `INSERT 0
    /// n`, `UPDATE n` or `DELETE n` counting the rows no trigger skipped,
    /// with the RETURNING rows if any.
    pub fn run(
        &self,
        cx: &Ctx<'_>,
        txn: &mut Transaction,
        env: &Env<'_>,
    ) -> Result<Output, SqlError> {
        let columns = self.columns();
        let triggers =
            Triggers::of_target(self.view.oid, &self.view.name, columns, self.event, &[])?
                .ok_or_else(|| {
                    SqlError::new(
                        "0A000",
                        format!("cannot change rows of view \"{}\"", self.view.name),
                    )
                })?;
        // The view's statement triggers fire around the row ones, as
        // PostgreSQL's.
        triggers.start_statement(cx, txn)?;
        let rows = match &self.rows {
            Some(planned) => query::run(txn, planned, env)?.0,
            None => vec![Vec::new()],
        };
        let width = self.types.len();
        let mut out = Vec::new();
        let mut count = 0u64;
        for row in rows {
            let (old, new) = match self.event {
                Event::Insert => {
                    let mut new = vec![Value::Null; width];
                    for (&c, value) in self.targets.iter().zip(row) {
                        new[c] = types::assign(value, self.types[c])?;
                    }
                    (None, Some(new))
                }
                Event::Update => {
                    let old = row[..width].to_vec();
                    let mut new = old.clone();
                    for (i, &c) in self.targets.iter().enumerate() {
                        new[c] = types::assign(row[width + i].clone(), self.types[c])?;
                    }
                    (Some(old), Some(new))
                }
                _ => (Some(row[..width].to_vec()), None),
            };
            let Some(done) = triggers.before(cx, txn, old.as_deref(), new)? else {
                continue;
            };
            if self.event != Event::Delete {
                self.check(&done, env)?;
            }
            count += 1;
            if let Some((items, _, _)) = &self.returning {
                out.push(project(items, &done, env)?);
            }
        }
        triggers.after_statement(cx, txn)?;
        let tag = match self.event {
            Event::Insert => format!("INSERT 0 {count}"),
            Event::Update => format!("UPDATE {count}"),
            _ => format!("DELETE {count}"),
        };
        finish(&self.returning, out, tag)
    }

    /// The view's columns: what [`Instead::add_view_checks`]' conditions
    /// are bound over.
    pub fn columns(&self) -> Vec<(String, SqlType)> {
        (self.view.columns.iter())
            .zip(&self.types)
            .map(|(c, t)| (c.name.clone(), *t))
            .collect()
    }

    /// Adds check options of the views above the view.
    pub fn add_view_checks(&mut self, checks: Vec<(String, crate::scalar::Scalar)>) {
        self.checks.extend(checks);
    }

    /// PostgreSQL's 44000 unless `row` (as the triggers returned it)
    /// meets every check option.
    fn check(&self, row: &[Value], env: &Env<'_>) -> Result<(), SqlError> {
        for (view, condition) in &self.checks {
            if condition.eval(row, env)? != Value::Bool(true) {
                return Err(SqlError::new(
                    "44000",
                    format!("new row violates check option for view \"{view}\""),
                )
                .with_detail(format!(
                    "Failing row contains ({}).",
                    crate::constraints::row_text(row)?
                )));
            }
        }
        Ok(())
    }

    /// Its parameters' types, as its rows' query infers them.
    pub fn param_types(&self, types: &mut [Option<SqlType>]) {
        if let Some(planned) = &self.rows {
            planned.param_types(types);
        }
    }

    /// The RETURNING columns, if any.
    pub fn returning_columns(&self) -> Option<Vec<crate::output::Column>> {
        self.returning.as_ref().map(|(_, c, _)| c.clone())
    }

    /// The names and types of the rows its RETURNING gives.
    pub fn returning_shape(&self) -> Option<(Vec<String>, Vec<SqlType>)> {
        (self.returning.as_ref())
            .map(|(_, c, t)| (c.iter().map(|c| c.name.clone()).collect(), t.clone()))
    }

    /// The relations its rows' query reads.
    pub fn relations(&self) -> Vec<&Arc<folio_catalog::Relation>> {
        self.rows
            .as_ref()
            .map(|p| p.relations())
            .unwrap_or_default()
    }
}
