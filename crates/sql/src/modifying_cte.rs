//! Data-modifying CTEs: `WITH d AS (DELETE ... RETURNING *), ... query`,
//! where a CTE is an INSERT, UPDATE or DELETE.
//!
//! **PostgreSQL's rules.** Each data-modifying CTE runs exactly once,
//! whether or not anything names it, and to the end; the statement's
//! other parts see its RETURNING rows through its name, and none of its
//! changes in the tables themselves: every part of the statement reads
//! the snapshot the statement started with (PostgreSQL hides a
//! statement's own writes from it by command ids).
//!
//! **Here.** folio-txn has no command ids, so a part of the statement that
//! read a table a data-modifying CTE changes would see the change. The
//! statement is therefore refused (0A000) when any other part of it reads
//! or changes a table one of its data-modifying CTEs changes (the
//! relations each part's plan uses, views expanded, the tables foreign
//! keys check included); what remains, the usual case (`WITH moved AS
//! (DELETE FROM queue ... RETURNING *) INSERT INTO done SELECT * FROM
//! moved`), gives PostgreSQL's results, since no part can observe the
//! order the parts run in. They run in the order written, the CTEs
//! first, each CTE's RETURNING rows kept whole (a work table, as a
//! recursive CTE's) for the parts after it that name it.

use crate::context::Ctx;
use crate::error::SqlError;
use crate::from::ScopeTable;
use crate::names;
use crate::recursive::{self, WorkTable};
use crate::statement::{self, Plan};
use folio_db::Transaction;
use folio_row::{SqlType, Value};
use sqlparser::ast::{Query, SetExpr, Statement, TableAlias};
use std::rc::Rc;

/// A data-modifying CTE in scope while the parts after it are planned:
/// its name, and the columns of its RETURNING rows.
#[derive(Debug)]
pub struct Produced {
    name: String,
    table: WorkTable,
    /// Without RETURNING, it has no rows to name.
    returning: bool,
    names: Vec<String>,
    types: Vec<SqlType>,
}

impl Produced {
    /// `rows` (of `columns`) under `name` for the statements run while it
    /// is in `Ctx::produced`: a trigger's transition table
    /// (`triggers.rs`).
    pub fn transition(
        name: &str,
        rows: Vec<Vec<Value>>,
        columns: &[(String, SqlType)],
    ) -> Produced {
        let table = WorkTable::default();
        table.set(rows);
        Produced {
            name: name.to_string(),
            table,
            returning: true,
            names: columns.iter().map(|(n, _)| n.clone()).collect(),
            types: columns.iter().map(|(_, t)| *t).collect(),
        }
    }
}

impl Produced {
    /// The CTE `name (alias's columns)` computed once (`cte.rs`), whose
    /// references are renamed to `marker`, planned as `planned`: the rows
    /// its query level's run fills `table` with. 42P10 for more column
    /// names than it has columns.
    pub fn computed(
        marker: &str,
        name: &str,
        alias: &TableAlias,
        planned: &crate::query::Planned,
        table: &WorkTable,
    ) -> Result<Produced, SqlError> {
        let mut names: Vec<String> = planned.columns.iter().map(|c| c.name.clone()).collect();
        crate::from::rename_columns(&format!("WITH query \"{name}\""), alias, &mut names)?;
        Ok(Produced {
            name: marker.to_string(),
            table: table.clone(),
            returning: true,
            names,
            types: planned.types.clone(),
        })
    }
}

/// A planned statement with data-modifying CTEs: the CTEs' changes, each
/// with the work table its RETURNING rows fill, then the rest.
pub struct Changes {
    pub first: Vec<(WorkTable, Plan)>,
    pub then: Plan,
}

impl Changes {
    /// Its parts' plans, in the order they run.
    pub fn plans(&self) -> impl Iterator<Item = &Plan> {
        self.first
            .iter()
            .map(|(_, p)| p)
            .chain(std::iter::once(&self.then))
    }
}

/// Whether `query`'s WITH has a data-modifying CTE.
pub fn has_any(query: &Query) -> bool {
    query
        .with
        .as_ref()
        .is_some_and(|w| w.cte_tables.iter().any(|c| is_change(&c.query)))
}

fn is_change(query: &Query) -> bool {
    matches!(
        query.body.as_ref(),
        SetExpr::Insert(_) | SetExpr::Update(_) | SetExpr::Delete(_) | SetExpr::Merge(_)
    )
}

/// Plans `query`, whose WITH has data-modifying CTEs (see the module's
/// "Here").
pub fn plan(cx: &Ctx<'_>, txn: &Transaction, query: &Query) -> Result<Changes, SqlError> {
    let with = query.with.as_ref().expect("checked by has_any");
    if with.recursive {
        // (Its items are then taken in the order they name each other:
        // `plan_in_scope`.)
        for cte in with.cte_tables.iter().filter(|c| is_change(&c.query)) {
            let name = names::ident(&cte.alias.name);
            if crate::recursive_form::names(&*cte.query, &name) {
                return Err(SqlError::new(
                    "42P19",
                    format!(
                        "recursive query \"{name}\" must not contain data-modifying statements"
                    ),
                ));
            }
        }
    }
    let depth = cx.produced.borrow().len();
    let planned = plan_in_scope(cx, txn, query);
    cx.produced.borrow_mut().truncate(depth);
    let changes = planned?;
    check_apart(&changes)?;
    Ok(changes)
}

fn plan_in_scope(cx: &Ctx<'_>, txn: &Transaction, query: &Query) -> Result<Changes, SqlError> {
    let with = query.with.as_ref().expect("checked by has_any");
    let items = match with.recursive {
        true => crate::recursive_form::dependency_order(with.cte_tables.clone())?,
        false => with.cte_tables.clone(),
    };
    let mut first = Vec::new();
    let mut kept = Vec::new();
    for cte in &items {
        if !is_change(&cte.query) {
            kept.push(cte.clone());
            continue;
        }
        if matches!(cte.query.body.as_ref(), SetExpr::Merge(_)) {
            return Err(SqlError::unsupported("MERGE in WITH"));
        }
        if cte.materialized.is_some() || cte.from.is_some() {
            return Err(SqlError::unsupported(format!(
                "the common table expression {cte}"
            )));
        }
        // The change sees the CTEs written before it.
        let own = cte.query.with.iter().flat_map(|w| w.cte_tables.iter());
        let change = Query {
            with: Some(sqlparser::ast::With {
                cte_tables: kept.iter().chain(own).cloned().collect(),
                ..with.clone()
            }),
            ..cte.query.as_ref().clone()
        };
        let plan = statement::plan(cx, txn, &Statement::Query(Box::new(change)))?
            .expect("a row change is planned");
        let name = names::ident(&cte.alias.name);
        let shape = plan.returning_shape();
        let returning = shape.is_some();
        let (mut columns, types) = shape.unwrap_or_default();
        crate::from::rename_columns(&format!("WITH query \"{name}\""), &cte.alias, &mut columns)?;
        let table = WorkTable::default();
        cx.produced.borrow_mut().push(Rc::new(Produced {
            name,
            table: table.clone(),
            returning,
            names: columns,
            types,
        }));
        first.push((table, plan));
    }
    let rest = Query {
        with: (!kept.is_empty()).then(|| sqlparser::ast::With {
            cte_tables: kept,
            ..with.clone()
        }),
        ..query.clone()
    };
    let then = statement::plan(cx, txn, &Statement::Query(Box::new(rest)))?
        .expect("a query or a row change is planned");
    Ok(Changes { first, then })
}

/// 0A000 when a part of the statement uses a table one of its
/// data-modifying CTEs changes (the module's "Here").
fn check_apart(changes: &Changes) -> Result<(), SqlError> {
    let plans: Vec<&Plan> = changes.plans().collect();
    for (i, (_, plan)) in changes.first.iter().enumerate() {
        let Some(target) = plan.target() else {
            continue;
        };
        let overlaps = plans.iter().enumerate().any(|(j, other)| {
            j != i
                && other
                    .relations()
                    .iter()
                    .any(|r| r.def.oid == target.def.oid)
        });
        if overlaps {
            return Err(SqlError::unsupported(format!(
                "a statement whose other parts read or change table \"{}\", which a data-modifying WITH query changes (folio cannot yet hide a statement's own changes from it)",
                target.def.name
            )));
        }
    }
    Ok(())
}

/// The FROM item `name [alias]` if it names a data-modifying CTE in
/// scope: its label, work table and columns.
pub fn reference(
    cx: &Ctx<'_>,
    name: &str,
    alias: Option<&TableAlias>,
    offset: usize,
) -> Result<Option<(String, WorkTable, ScopeTable)>, SqlError> {
    let found = cx
        .produced
        .borrow()
        .iter()
        .rev()
        .find(|p| p.name == name)
        .cloned();
    let Some(produced) = found else {
        return Ok(None);
    };
    if !produced.returning {
        return Err(SqlError::new(
            "0A000",
            format!("WITH query \"{name}\" does not have a RETURNING clause"),
        ));
    }
    let (label, scope) = recursive::work_table_scope(
        name,
        alias,
        produced.names.clone(),
        produced.types.clone(),
        offset,
    );
    Ok(Some((label, produced.table.clone(), scope)))
}
