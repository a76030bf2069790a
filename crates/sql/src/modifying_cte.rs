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
//! **Here.** The statement runs in one command
//! (`Transaction::begin_command`), and every part reads as of its start
//! (`Transaction::as_of_command`), so no part sees another's changes (nor
//! its own) in the tables: folio's stand-in for the one command id.
//! PostgreSQL runs a CTE when a reader first asks it for a row and
//! finishes the ones nobody read after the main statement; here the CTEs
//! some part names run first, in the order written (each one's RETURNING
//! rows kept whole, a work table as a recursive CTE's, for the parts
//! after it that name it), then the main statement, then the CTEs nobody
//! names. Where two parts change one row, the later one meets a version
//! the earlier one replaced: an UPDATE or DELETE skips it (folio-heap's
//! `WriteCheck::Gone`, PostgreSQL's "updated by the current command"), an
//! `ON CONFLICT DO UPDATE` skips it too, and one meeting a row another
//! part inserted is 21000 (`conflict.rs`); a second insert of one key is
//! 23505. Which part comes first can still differ from PostgreSQL's
//! interleaving where a main statement reads a CTE part way (its
//! documentation calls the order unpredictable). Constraint checks
//! (`constraints.rs` `in_statement_view`) and triggers read every write,
//! as PostgreSQL's later command ids do.
//!
//! **Rules.** A data-modifying CTE's statement rewritten by rules must
//! come out as exactly one statement (PostgreSQL's rewriter puts it back
//! into the WITH): an unconditional single-action DO INSTEAD rule, whose
//! action's RETURNING gives the CTE's rows. Anything else is 0A000
//! (`rules.rs` `check_in_with`); so is a main statement whose rule action
//! is `INSERT ... SELECT`, or that rules turn into several statements.

use crate::context::Ctx;
use crate::error::SqlError;
use crate::from::ScopeTable;
use crate::names;
use crate::output::Output;
use crate::recursive::{self, WorkTable};
use crate::scalar::Env;
use crate::statement::{self, Plan};
use folio_db::Transaction;
use folio_row::{SqlType, Value};
use sqlparser::ast::{Query, SetExpr, Statement, TableAlias};
use std::rc::Rc;

/// What the statement being planned is to a statement with
/// data-modifying CTEs, for the rules its target fires (`rules.rs`, the
/// module's "Rules").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Part {
    /// A data-modifying CTE's statement.
    InWith,
    /// The statement after the CTEs.
    Main,
}

thread_local! {
    /// The [`Part`] being planned, until the rules of its target take it
    /// ([`take_part`]).
    static PART: std::cell::Cell<Option<Part>> = const { std::cell::Cell::new(None) };
}

/// The [`Part`] the statement whose rules are applied now is, if it is
/// one; taken, so the statements planned inside it are none.
pub fn take_part() -> Option<Part> {
    PART.with(|p| p.take())
}

/// Plans `statement` as `part`.
fn plan_part(
    cx: &Ctx<'_>,
    txn: &Transaction,
    statement: &Statement,
    part: Part,
) -> Result<Option<Plan>, SqlError> {
    let kept = PART.with(|p| p.replace(Some(part)));
    let planned = statement::plan(cx, txn, statement);
    PART.with(|p| p.set(kept));
    planned
}

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
    /// Set when a part of the statement names it ([`reference`]).
    named: std::cell::Cell<bool>,
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
            named: Default::default(),
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
            named: Default::default(),
        })
    }
}

/// A planned statement with data-modifying CTEs: the changes of the CTEs
/// some part names, each with the work table its RETURNING rows fill, then
/// the rest, then the changes of the CTEs nobody names (the module's
/// "Here").
pub struct Changes {
    pub first: Vec<(WorkTable, Plan)>,
    pub then: Plan,
    pub last: Vec<Plan>,
}

impl Changes {
    /// Runs the parts in order in one command, each reading as of its
    /// start (the module's "Here"); the main statement's output (`then`)
    /// is the statement's.
    pub fn run(
        &self,
        cx: &Ctx<'_>,
        txn: &mut Transaction,
        env: &Env<'_>,
    ) -> Result<Output, SqlError> {
        let command = txn.begin_command()?;
        let out = txn.as_of_command(Some(command), |txn| {
            for (table, plan) in &self.first {
                if let Output::Rows { rows, .. } = plan.run(cx, txn, env)? {
                    table.set(rows);
                }
            }
            let out = self.then.run(cx, txn, env)?;
            for plan in &self.last {
                plan.run(cx, txn, env)?;
            }
            Ok(out)
        });
        txn.end_command(command);
        out
    }

    /// Its parts' plans, in the order they run.
    pub fn plans(&self) -> impl Iterator<Item = &Plan> {
        self.first
            .iter()
            .map(|(_, p)| p)
            .chain(std::iter::once(&self.then))
            .chain(self.last.iter())
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
    planned
}

fn plan_in_scope(cx: &Ctx<'_>, txn: &Transaction, query: &Query) -> Result<Changes, SqlError> {
    let with = query.with.as_ref().expect("checked by has_any");
    let items = match with.recursive {
        true => crate::recursive_form::dependency_order(with.cte_tables.clone())?,
        false => with.cte_tables.clone(),
    };
    let mut parts = Vec::new();
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
        let plan = plan_part(cx, txn, &Statement::Query(Box::new(change)), Part::InWith)?
            .expect("a row change is planned");
        let name = names::ident(&cte.alias.name);
        let shape = plan.returning_shape();
        let returning = shape.is_some();
        let (mut columns, types) = shape.unwrap_or_default();
        crate::from::rename_columns(&format!("WITH query \"{name}\""), &cte.alias, &mut columns)?;
        let table = WorkTable::default();
        let produced = Rc::new(Produced {
            name,
            table: table.clone(),
            returning,
            names: columns,
            types,
            named: Default::default(),
        });
        cx.produced.borrow_mut().push(produced.clone());
        parts.push((produced, table, plan));
    }
    let rest = Query {
        with: (!kept.is_empty()).then(|| sqlparser::ast::With {
            cte_tables: kept,
            ..with.clone()
        }),
        ..query.clone()
    };
    let then = plan_part(cx, txn, &Statement::Query(Box::new(rest)), Part::Main)?
        .expect("a query or a row change is planned");
    let (named, unnamed): (Vec<_>, Vec<_>) = parts.into_iter().partition(|(p, ..)| p.named.get());
    Ok(Changes {
        first: named.into_iter().map(|(_, t, plan)| (t, plan)).collect(),
        then,
        last: unnamed.into_iter().map(|(.., plan)| plan).collect(),
    })
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
    produced.named.set(true);
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
