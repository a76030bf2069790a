//! `WITH RECURSIVE name [(columns)] AS (base UNION [ALL] step) query`:
//! PostgreSQL's recursive union. (A CTE of a `WITH RECURSIVE` that does
//! not name itself is inlined as any other: `cte.rs`.)
//!
//! **Planning.** The query's recursive CTEs are in scope (`Ctx::
//! recursive`) while it is planned. A FROM item naming one
//! ([`reference`]) plans it there: its base term first, which gives the
//! columns' types (and names, unless the CTE lists them); then its step
//! term, in which the name means the *work table* (a FROM item naming it
//! while its step is planned is [`Source::WorkTable`]). The reference is
//! a subquery in FROM whose source is [`Source::Recursive`]; each
//! reference plans its own, as inlined CTEs are.
//!
//! **Running** ([`run`]). The base term's rows are the first work table
//! and the first rows of the result; then, until a step produces no rows,
//! the step runs over the work table and its rows become the next work
//! table and are added to the result. Without ALL, rows already produced
//! (NULLs equal) are dropped from each step's output, so a cycle ends. A
//! step that never ends ends at a CancelRequest (57014), as PostgreSQL's.

use crate::aggregate::KeySet;
use crate::context::Ctx;
use crate::error::SqlError;
use crate::from::{ScopeTable, Source};
use crate::names;
use crate::query::{self, Planned};
use crate::scalar::Env;
use folio_db::Transaction;
use folio_row::{SqlType, Value};
use sqlparser::ast::{Query, SetExpr, SetOperator, SetQuantifier, TableAlias};
use std::cell::RefCell;
use std::sync::{Arc, Mutex};

/// The rows a recursive union's step reads: the previous step's (or the
/// base term's) output.
#[derive(Debug, Clone, Default)]
pub struct WorkTable(Arc<Mutex<Vec<Vec<Value>>>>);

impl WorkTable {
    /// Its rows now.
    pub fn rows(&self) -> Vec<Vec<Value>> {
        self.0.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    pub(crate) fn set(&self, rows: Vec<Vec<Value>>) {
        *self.0.lock().unwrap_or_else(|p| p.into_inner()) = rows;
    }
}

/// A work table and its columns' names and types.
type Working = (WorkTable, Vec<String>, Vec<SqlType>);

/// A recursive CTE in scope.
#[derive(Debug)]
pub struct Cte {
    name: String,
    /// The CTE's column list (empty: the base term's names).
    columns: Vec<String>,
    base: Query,
    step: Query,
    all: bool,
    /// While its step is planned: the work table and its columns.
    planning: RefCell<Option<Working>>,
    /// Its SEARCH / CYCLE clauses (`search_cycle.rs`).
    clauses: Option<crate::search_cycle::Clauses>,
}

impl Cte {
    /// The CTE `name (columns) AS (query)` of a `WITH RECURSIVE`, if it
    /// names itself (else it is an ordinary one: `None`). 42P19 when it
    /// is not `base UNION [ALL] step` with the name in the step only.
    pub fn of(
        name: &str,
        alias: &TableAlias,
        query: &Query,
        clauses: Option<crate::search_cycle::Clauses>,
    ) -> Result<Option<Cte>, SqlError> {
        if !crate::recursive_form::names(query, name) {
            return Ok(None);
        }
        let malformed = || {
            SqlError::new(
                "42P19",
                format!(
                    "recursive query \"{name}\" does not have the form non-recursive-term UNION [ALL] recursive-term"
                ),
            )
        };
        let SetExpr::SetOperation {
            op: SetOperator::Union,
            set_quantifier,
            left,
            right,
        } = query.body.as_ref()
        else {
            return Err(malformed());
        };
        // PostgreSQL's messages for what cannot decorate the union.
        let not_implemented = |what: &str| {
            SqlError::new(
                "0A000",
                format!("{what} in a recursive query is not implemented"),
            )
        };
        if query.order_by.is_some() {
            return Err(not_implemented("ORDER BY"));
        }
        match &query.limit_clause {
            Some(sqlparser::ast::LimitClause::LimitOffset {
                offset: Some(_), ..
            }) => return Err(not_implemented("OFFSET")),
            Some(_) => return Err(not_implemented("LIMIT")),
            None if query.fetch.is_some() => return Err(not_implemented("LIMIT")),
            None => {}
        }
        if !query.locks.is_empty() {
            return Err(not_implemented("FOR UPDATE/SHARE"));
        }
        // The query's own WITH is given to both terms; a reference to
        // the query inside it is PostgreSQL's 42P19 (a subquery).
        if let Some(with) = &query.with
            && (with.cte_tables.iter()).any(|c| crate::recursive_form::names(&*c.query, name))
        {
            return Err(SqlError::new(
                "42P19",
                format!(
                    "recursive reference to query \"{name}\" must not appear within a subquery"
                ),
            ));
        }
        let all = match set_quantifier {
            SetQuantifier::All => true,
            SetQuantifier::Distinct | SetQuantifier::None => false,
            other => return Err(SqlError::unsupported(format!("UNION {other}"))),
        };
        let term = |body: &SetExpr| Query {
            body: Box::new(body.clone()),
            order_by: None,
            limit_clause: None,
            ..query.clone()
        };
        let (base, step) = (term(left), term(right));
        if crate::recursive_form::names(&base, name) {
            return Err(SqlError::new(
                "42P19",
                format!(
                    "recursive reference to query \"{name}\" must not appear within its non-recursive term"
                ),
            ));
        }
        crate::recursive_form::check_step(&step, name)?;
        if clauses.is_some() {
            crate::search_cycle_rewrite::check_terms(left, right)?;
        }
        Ok(Some(Cte {
            name: name.to_string(),
            columns: alias
                .columns
                .iter()
                .map(|c| names::ident(&c.name))
                .collect(),
            base,
            step,
            all,
            planning: RefCell::new(None),
            clauses,
        }))
    }

    /// Its name.
    pub fn name(&self) -> &str {
        &self.name
    }
}

/// A recursive union's source and what a FROM item naming it reads: its
/// columns' names and types.
struct Union {
    source: Source,
    names: Vec<String>,
    types: Vec<SqlType>,
}

/// What a FROM item naming a recursive CTE reads.
pub enum Reference {
    /// The work table, while the CTE's step is planned.
    WorkTable { label: String, table: WorkTable },
    /// The CTE, planned: a subquery in FROM.
    Union {
        label: String,
        planned: Box<Planned>,
    },
}

/// The FROM item `name [alias]` if it names a recursive CTE in scope:
/// the work table while that CTE's step is planned, else the CTE planned
/// as a subquery in FROM (see the module's "Planning").
pub fn reference(
    cx: &Ctx<'_>,
    txn: &Transaction,
    name: &str,
    alias: Option<&TableAlias>,
    offset: usize,
) -> Result<Option<(Reference, ScopeTable)>, SqlError> {
    // (Not borrowed while planning: the CTE's terms may have a WITH
    // RECURSIVE of their own.)
    let found = cx
        .recursive
        .borrow()
        .iter()
        .rev()
        .find(|c| c.name == name)
        .cloned();
    let Some(cte) = found else {
        return Ok(None);
    };
    let working = cte.planning.borrow().clone();
    if let Some((table, names, types)) = working {
        let (label, scope) = work_table_scope(name, alias, names, types, offset);
        return Ok(Some((Reference::WorkTable { label, table }, scope)));
    }
    let union = plan(cx, txn, &cte)?;
    let qualifier = qualifier(name, alias);
    let scope = ScopeTable {
        system: 0,
        domains: Vec::new(),
        collations: Vec::new(),
        row_type: None,
        uses: None,
        qualifier: qualifier.clone(),
        names: renamed(union.names.clone(), alias),
        types: union.types.clone(),
        offset,
    };
    let planned = query::over_source(union.source, name, union.names, union.types);
    Ok(Some((
        Reference::Union {
            label: qualifier,
            planned: Box::new(planned),
        },
        scope,
    )))
}

/// The name a FROM item `name [alias]` is qualified by.
fn qualifier(name: &str, alias: Option<&TableAlias>) -> String {
    alias.map_or_else(|| name.to_string(), |a| names::ident(&a.name))
}

/// `names` with the alias's column names over the first ones.
fn renamed(mut names: Vec<String>, alias: Option<&TableAlias>) -> Vec<String> {
    for (column, renamed) in names
        .iter_mut()
        .zip(alias.map_or(&[][..], |a| a.columns.as_slice()))
    {
        *column = names::ident(&renamed.name);
    }
    names
}

/// The label (EXPLAIN's `name alias`) and the columns in scope of a FROM
/// item `name [alias]` that reads a work table with columns `names` of
/// `types`: a recursive CTE's, or a data-modifying CTE's RETURNING rows.
pub fn work_table_scope(
    name: &str,
    alias: Option<&TableAlias>,
    names: Vec<String>,
    types: Vec<SqlType>,
    offset: usize,
) -> (String, ScopeTable) {
    let qualifier = qualifier(name, alias);
    let label = match alias {
        Some(_) => format!("{name} {qualifier}"),
        None => name.to_string(),
    };
    let scope = ScopeTable {
        system: 0,
        domains: Vec::new(),
        collations: Vec::new(),
        row_type: None,
        uses: None,
        qualifier,
        names: renamed(names, alias),
        types,
        offset,
    };
    (label, scope)
}

/// Plans the recursive CTE `cte` nobody names, for its errors (as
/// PostgreSQL analyzes it; it is never run).
pub fn analyze(cx: &Ctx<'_>, txn: &Transaction, cte: &Cte) -> Result<(), SqlError> {
    plan(cx, txn, cte).map(|_| ())
}

/// Plans a recursive CTE: its base term, then its step over the work
/// table.
fn plan(cx: &Ctx<'_>, txn: &Transaction, cte: &Cte) -> Result<Union, SqlError> {
    let base = query::plan_query(cx, txn, &cte.base)?;
    let mut names: Vec<String> = base.columns.iter().map(|c| c.name.clone()).collect();
    if cte.columns.len() > names.len() {
        return Err(SqlError::new(
            "42P10",
            format!(
                "WITH query \"{}\" has {} columns available but {} columns specified",
                cte.name,
                names.len(),
                cte.columns.len()
            ),
        ));
    }
    names[..cte.columns.len()].clone_from_slice(&cte.columns);
    // SEARCH / CYCLE: the terms rewritten (`search_cycle_rewrite.rs`).
    let (base, step) = match &cte.clauses {
        None => (base, std::borrow::Cow::Borrowed(&cte.step)),
        Some(clauses) => {
            use crate::search_cycle_rewrite as rewrite;
            rewrite::check(clauses, &names)?;
            let mark = match &clauses.cycle {
                Some(cycle) => {
                    let values = query::plan_query(cx, txn, &rewrite::mark_values(cycle)?)?;
                    Some(rewrite::mark_type(cycle, &values.types)?)
                }
                None => None,
            };
            let (base, step) =
                rewrite::rewrite(clauses, &cte.name, &names, mark, &cte.base, &cte.step)?;
            let base = query::plan_query(cx, txn, &base)?;
            names = base.columns.iter().map(|c| c.name.clone()).collect();
            (base, std::borrow::Cow::Owned(step))
        }
    };
    let table = WorkTable::default();
    *cte.planning.borrow_mut() = Some((table.clone(), names.clone(), base.types.clone()));
    let step = query::plan_query(cx, txn, &step);
    *cte.planning.borrow_mut() = None;
    let mut step = step?;
    // With a LIMIT above, the step needs no more rows than are missing
    // (an endless recursive query inside it ends there: `run`).
    let budget = crate::counts::Budget::default();
    step.push_stop(crate::counts::Stop::Budget(budget.clone()), false);
    if step.columns.len() != names.len() {
        return Err(SqlError::syntax(
            "each UNION query must have the same number of columns",
        ));
    }
    check_types(&cte.name, &base.types, &step.types)?;
    if !cte.all {
        check_hashable(&base.types)?;
    }
    Ok(Union {
        types: base.types.clone(),
        source: Source::Recursive {
            all: cte.all,
            base: Box::new(base),
            step: Box::new(step),
            table,
            limit: None,
            budget,
        },
        names,
    })
}

/// PostgreSQL's 42804 when a column's type over both terms (their
/// common type, `set_types::common`) is not the base term's own, which
/// the union's rows have (a step's `numeric(10,0)` under a base's
/// integer or `numeric(3,0)`).
fn check_types(name: &str, base: &[SqlType], step: &[SqlType]) -> Result<(), SqlError> {
    use crate::set_types::{Input, common};
    for (i, (&own, &other)) in base.iter().zip(step).enumerate() {
        let overall = common(
            "UNION",
            &[Input::typed(own, None), Input::typed(other, None)],
        )?
        .ty;
        if overall != own {
            return Err(SqlError::new(
                "42804",
                format!(
                    "recursive query \"{name}\" column {} has type {} in non-recursive term but type {} overall",
                    i + 1,
                    own.name(),
                    overall.name()
                ),
            )
            .with_hint("Cast the output of the non-recursive term to the correct type."));
        }
    }
    Ok(())
}

/// PostgreSQL's 0A000 for a recursive UNION (not ALL) over a column
/// whose type has no hash operator class there (money, bit, varbit,
/// tsvector, tsquery, or an array of one): PostgreSQL finds each new
/// row's duplicates by hashing and cannot run such a union. folio
/// compares values and could, but a query PostgreSQL refuses is refused
/// here too.
fn check_hashable(types: &[SqlType]) -> Result<(), SqlError> {
    fn hashable(ty: SqlType) -> bool {
        match ty {
            SqlType::Money
            | SqlType::Bit(_)
            | SqlType::VarBit(_)
            | SqlType::TsVector
            | SqlType::TsQuery => false,
            SqlType::Array(element) => hashable(*element),
            _ => true,
        }
    }
    match types.iter().all(|&ty| hashable(ty)) {
        true => Ok(()),
        false => Err(
            SqlError::new("0A000", "could not implement recursive UNION")
                .with_detail("All column datatypes must be hashable."),
        ),
    }
}

/// Runs a recursive union (see the module's "Running"), stopping once it
/// has `limit` rows, if given (a query that reads no more of them:
/// `query.rs`; PostgreSQL's union stops when its reader does). With ALL
/// and a limit, each run of the step is told the rows still missing
/// (`budget`, which the step's plan may stop at), so a step that is
/// itself an endless recursive query gives no more than those, as
/// PostgreSQL's lazy union reads no more of it.
pub fn run(
    txn: &mut Transaction,
    env: &Env<'_>,
    (all, limit, budget): (bool, Option<usize>, &crate::counts::Budget),
    (base, step): (&Planned, &Planned),
    table: &WorkTable,
) -> Result<Vec<Vec<Value>>, SqlError> {
    let mut seen = KeySet::default();
    let mut keep = |rows: Vec<Vec<Value>>| -> Vec<Vec<Value>> {
        match all {
            true => rows,
            false => rows
                .into_iter()
                .filter(|row| seen.insert(crate::aggregate::group_hash(row)))
                .collect(),
        }
    };
    let enough = |rows: &Vec<Vec<Value>>| limit.is_some_and(|n| rows.len() >= n);
    let mut out = keep(query::run(txn, base, env)?.0);
    let mut working = out.clone();
    while !working.is_empty() && !enough(&out) {
        txn.check_interrupt()?;
        table.set(std::mem::take(&mut working));
        budget.set(limit.filter(|_| all).map(|n| n - out.len()));
        working = keep(query::run(txn, step, env)?.0);
        out.extend(working.iter().cloned());
    }
    table.set(Vec::new());
    if let Some(n) = limit {
        out.truncate(n);
    }
    Ok(out)
}
