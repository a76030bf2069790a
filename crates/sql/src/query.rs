//! `SELECT`: the FROM clause and WHERE (`from.rs`: tables, joins, access
//! paths), the select list, aggregates (`aggregate.rs`), `ORDER BY`
//! columns (the index order when a single table's plan yields it, else a
//! sort), `LIMIT` and `OFFSET`. Planned once into a [`Planned`] that
//! runs, or that EXPLAIN describes (`explain.rs`).

use crate::access;
use crate::aggregate::{self, Binder, Grouping};
use crate::context::Ctx;
use crate::counts::Stop;
use crate::error::SqlError;
use crate::from::{self, LockStrength, RowLock, Scope, SetKind, Source, SourceCounts};
use crate::names;
use crate::output::{Column, Output};
use crate::plan::SortKey;
use crate::scalar::{self, Columns, Env, Scalar, compare};
use crate::scan;
use crate::set_types;
use crate::subquery::{self, Subplan};
use crate::top_n::TopN;
use crate::window::{self, WindowBinder, Windows};
use folio_catalog::Relation;
use folio_db::Transaction;
use folio_row::{SqlType, Value};
use folio_txn::WaitPolicy;
use sqlparser::ast::{
    Expr, GroupByExpr, OrderByKind, Query, Select, SelectItem, SelectItemQualifiedWildcardKind,
    SetExpr, SetOperator, SetQuantifier,
};
use std::cmp::Ordering;
use std::ops::ControlFlow;
use std::ops::Range;
use std::sync::Arc;

impl Columns for Relation {
    fn resolve(&self, name: &str) -> Result<(usize, SqlType), SqlError> {
        let c = access::column_of(self, name)?;
        Ok((c, self.types[c]))
    }

    fn type_at(&self, position: usize) -> SqlType {
        self.types[position]
    }

    fn qualifier_of(&self, _position: usize) -> Option<String> {
        Some(self.def.name.clone())
    }

    fn column_name(&self, position: usize) -> Option<String> {
        self.def.columns.get(position).map(|c| c.name.clone())
    }

    fn collation_at(&self, position: usize) -> Option<u32> {
        self.def.columns.get(position)?.collation
    }

    fn domain_at(&self, position: usize) -> Option<String> {
        let column = self.def.columns.get(position)?;
        crate::domains::column_domain(&self.def, column.type_oid)
    }

    fn whole_row(&self, name: &str) -> Option<Result<Vec<usize>, SqlError>> {
        (name == self.def.name).then(|| Ok((0..self.types.len()).collect()))
    }

    fn whole_row_type(&self, name: &str) -> Option<&'static folio_row::CompositeType> {
        (name == self.def.name)
            .then(|| crate::user_types::row_type_of(self.def.oid))
            .flatten()
    }
}

/// What the select list makes of the source's rows.
pub enum Shape {
    /// Each row's select-list values.
    Project(Vec<Scalar>),
    /// Aggregate rows (`aggregate.rs`), sorted by `order` (over the
    /// aggregate row), then the select list over them.
    Aggregate {
        grouping: Grouping,
        output: Vec<Scalar>,
        order: Vec<SortKey>,
    },
}

/// A planned query.
pub struct Planned {
    pub source: Source,
    /// The names in the query's row.
    pub scope: Scope,
    /// A WHERE clause without FROM.
    pub filter: Vec<Scalar>,
    /// The ORDER BY left to sort over the source's rows (not yielded by
    /// an access path; empty for an aggregate query, which sorts its
    /// aggregate rows).
    pub sort: Vec<SortKey>,
    /// ORDER BY's keys over the source's rows, whether an access path
    /// yields that order or `sort` makes it: what WITH TIES compares.
    pub order: Vec<SortKey>,
    pub shape: Shape,
    pub columns: Vec<Column>,
    /// The result columns' types.
    pub types: Vec<SqlType>,
    /// `SELECT DISTINCT [ON (...)]`: repeated result rows dropped.
    pub distinct: Distinct,
    /// An ORDER BY of expressions, done over the result rows (keys on
    /// result columns, or on extra columns after them that are dropped
    /// after the sort: PostgreSQL's resjunk columns).
    pub post_sort: Vec<SortKey>,
    /// Subqueries in expressions (`subquery.rs`): the uncorrelated run
    /// once per execution before the rows (their results:
    /// `Env::subqueries`), the correlated once per row.
    pub subplans: Vec<Subplan>,
    /// Window calls (`window.rs`), over the rows before the select list
    /// (the source's, or the aggregate rows): their values are columns
    /// after those rows' own.
    pub windows: Windows,
    /// LIMIT and OFFSET as planned (`counts.rs`): none and 0 when
    /// `at_run` gives them.
    pub limit: Option<u64>,
    pub offset: u64,
    /// Counts with a parameter, evaluated each run (`counts.rs`).
    pub at_run: Option<Box<crate::counts::AtRun>>,
    /// `FETCH FIRST n ROWS WITH TIES`: the LIMIT also takes the rows
    /// after its last that sort equal to it (in ORDER BY's keys).
    pub ties: bool,
    /// Whether its expressions call PL/pgSQL functions
    /// (`plpgsql/row_calls.rs`): run over whole rows, as with correlated
    /// subqueries.
    pub row_calls: bool,
}

/// What running a planned query did, for EXPLAIN ANALYZE.
#[derive(Debug, Clone, Default)]
pub struct RunCounts {
    /// Rows the source produced (after its filter).
    pub scanned: u64,
    /// Aggregate rows (after HAVING).
    pub groups: u64,
    pub source: SourceCounts,
}

impl Planned {
    /// A LIMIT (with its OFFSET) into what is read alone, if nothing after
    /// it filters, sorts, groups, removes repeats or locks (the lock is
    /// set once planned, so `locking` says it; a row skipped or gone must
    /// not use up the LIMIT): a table's scan with no order of its own, a
    /// function in FROM with no filter of its own, a recursive CTE. The
    /// one owner of that rule, for counts known when planning and for
    /// those known when the plan runs (`counts.rs`).
    pub fn push_stop(&mut self, stop: Stop, locking: bool) {
        let alone = !locking
            && self.filter.is_empty()
            && self.sort.is_empty()
            && self.post_sort.is_empty()
            && self.distinct == Distinct::No
            && self.windows.is_empty()
            && matches!(self.shape, Shape::Project(_));
        if !alone {
            return;
        }
        match &mut self.source {
            Source::Table { plan, .. } if plan.sort.is_empty() => plan.limit = Some(stop),
            Source::Function { filter, limit, .. } if filter.is_empty() => *limit = Some(stop),
            Source::Derived {
                planned, filter, ..
            } if filter.is_empty() => {
                if let Source::Recursive { limit, .. } = &mut planned.source {
                    *limit = Some(stop);
                }
            }
            _ => {}
        }
    }
}

/// Runs a query.
impl Planned {
    /// Whether its rows must be whole before its expressions are
    /// evaluated: they run correlated subqueries or PL/pgSQL functions,
    /// with the transaction its run lends.
    pub fn per_row(&self) -> bool {
        self.row_calls || self.subplans.iter().any(Subplan::is_correlated)
    }

    /// Runs it: the rows as a result.
    pub fn output(&self, txn: &mut Transaction, env: &Env<'_>) -> Result<Output, SqlError> {
        let rows = match self.one_row() {
            Some(items) => vec![
                (items.iter())
                    .map(|s| s.eval(&[], env))
                    .collect::<Result<_, _>>()?,
            ],
            None => run(txn, self, env)?.0,
        };
        let tag = match rows.len() {
            1 => "SELECT 1".to_string(),
            n => format!("SELECT {n}"),
        };
        Ok(Output::Rows {
            columns: self.columns.clone(),
            rows,
            tag,
            style: None,
        })
    }

    /// The select list of a query that is its expressions alone (no
    /// FROM, WHERE, subquery, window, PL/pgSQL call, DISTINCT or LIMIT):
    /// its one row is the list evaluated once, without the machinery of
    /// [`run`] (a PL/pgSQL body's `x := a + 1`, `IF a > 0`, `RETURN ...`
    /// is such a query at every call).
    pub fn one_row(&self) -> Option<&[Scalar]> {
        match &self.shape {
            Shape::Project(items)
                if matches!(self.source, Source::One)
                    && self.filter.is_empty()
                    && self.sort.is_empty()
                    && self.post_sort.is_empty()
                    && self.subplans.is_empty()
                    && self.windows.is_empty()
                    && !self.row_calls
                    && self.distinct == Distinct::No
                    && self.limit.is_none()
                    && self.offset == 0 =>
            {
                Some(items)
            }
            _ => None,
        }
    }

    /// The relations it reads.
    pub fn relations(&self) -> Vec<&Arc<Relation>> {
        let mut out = Vec::new();
        self.each_leaf(&mut |leaf| out.extend(leaf.relations()));
        out
    }

    /// Calls `f` on each leaf source of its source and its subqueries'
    /// (`Source::each_leaf`).
    pub fn each_leaf<'a>(&'a self, f: &mut dyn FnMut(&'a Source)) {
        self.source.each_leaf(f);
        for sub in &self.subplans {
            sub.plan.each_leaf(f);
        }
    }

    /// Notes the types its parameters take (`Plan::param_types`).
    pub fn param_types(&self, types: &mut [Option<SqlType>]) {
        let row = self.scope.types();
        self.source.param_types(types);
        if let Some(at_run) = &self.at_run {
            at_run.param_types(types);
        }
        for s in &self.filter {
            s.param_types(&row, types);
        }
        match &self.shape {
            Shape::Project(items) => {
                let mut row = row.clone();
                row.extend(self.windows.calls.iter().map(|c| c.ty));
                items.iter().for_each(|s| s.param_types(&row, types));
                let source = self.scope.types();
                self.windows
                    .scalars()
                    .into_iter()
                    .for_each(|s| s.param_types(&source, types));
            }
            Shape::Aggregate {
                grouping, output, ..
            } => {
                for s in grouping
                    .keys
                    .iter()
                    .chain(grouping.calls.iter().filter_map(|c| c.arg.as_ref()))
                {
                    s.param_types(&row, types);
                }
                let _ = output;
            }
        }
        for sub in &self.subplans {
            sub.plan.param_types(types);
        }
    }
}

/// Plans a query.
pub fn plan_query(cx: &Ctx<'_>, txn: &Transaction, query: &Query) -> Result<Planned, SqlError> {
    crate::stack::check()?;
    plan_level(cx, txn, query)
}

/// [`plan_query`] of one query level (nested levels come back through
/// `plan_query`, which guards the stack: `stack.rs`).
fn plan_level(cx: &Ctx<'_>, txn: &Transaction, query: &Query) -> Result<Planned, SqlError> {
    if query.with.is_some() {
        let inlined = crate::cte::inline(query)?;
        if inlined.recursive.is_empty() && inlined.materialized.is_empty() {
            return plan_query(cx, txn, &inlined.query);
        }
        // The recursive and computed CTEs are in scope while the query is
        // planned.
        let (depth, produced) = (cx.recursive.borrow().len(), cx.produced.borrow().len());
        let planned = plan_with(cx, txn, inlined);
        cx.recursive.borrow_mut().truncate(depth);
        cx.produced.borrow_mut().truncate(produced);
        return planned;
    }
    let lock = row_lock(&query.locks)?;
    let counts = crate::counts::of(query.limit_clause.as_ref(), query.fetch.as_ref())?;
    let (limit, offset) = (counts.limit, counts.offset);
    let order_by: &[sqlparser::ast::OrderByExpr] = match &query.order_by {
        None => &[],
        Some(o) => match &o.kind {
            OrderByKind::Expressions(list) if o.interpolate.is_none() => list,
            _ => return Err(SqlError::unsupported(format!("ORDER BY {o}"))),
        },
    };
    let ties = query.fetch.as_ref().is_some_and(|f| f.with_ties);
    if ties {
        ties_allowed(order_by, lock.as_ref().map(|(_, wait, _)| *wait))?;
    }
    // WITH TIES: planned without its LIMIT (nothing may stop at the
    // count), which the end of the run applies (`run`).
    // (Refused before the rewrite of `project_set.rs` hides them.)
    if let (Some((strength, ..)), SetExpr::Select(select)) = (&lock, query.body.as_ref())
        && let Some(what) = unlockable(select)
    {
        return Err(SqlError::new(
            "0A000",
            format!("FOR {} is not allowed with {what}", strength.word()),
        ));
    }
    if let (Some((strength, ..)), SetExpr::Select(select)) = (&lock, query.body.as_ref())
        && crate::project_set::in_select_list(select)
    {
        return Err(SqlError::new(
            "0A000",
            format!(
                "FOR {} is not allowed with set-returning functions in the target list",
                strength.word()
            ),
        ));
    }
    let mut planned = plan_body(
        cx,
        txn,
        &query.body,
        order_by,
        if ties { None } else { limit },
        offset,
        lock.is_some(),
    )?;
    if ties {
        if planned.distinct != Distinct::No && planned.post_sort.is_empty() {
            return Err(SqlError::unsupported("FETCH ... WITH TIES with DISTINCT"));
        }
        planned.limit = limit;
        planned.ties = true;
    }
    // (With ties, the rows past the count are found only once all are.)
    if let Some(at_run) = counts.at_run.as_ref().filter(|_| !ties) {
        planned.push_stop(Stop::AtRun(at_run.clone()), lock.is_some());
    }
    planned.at_run = counts.at_run;
    if let Some((strength, wait, of)) = lock {
        // Every strength needs UPDATE on some column of the tables it
        // locks, as PostgreSQL's.
        for t in &planned.scope.tables {
            if let Some(uses) = &t.uses
                && (of.is_empty() || of.contains(&t.qualifier))
            {
                crate::privileges::note_also(cx, uses, crate::privileges::UPDATE);
            }
        }
        let word = strength.word();
        let refuse =
            |what: &str| SqlError::new("0A000", format!("FOR {word} is not allowed with {what}"));
        if matches!(planned.shape, Shape::Aggregate { .. }) {
            return Err(refuse("aggregate functions"));
        }
        if !planned.windows.is_empty() {
            return Err(refuse("window functions"));
        }
        if planned.distinct != Distinct::No {
            return Err(refuse("DISTINCT clause"));
        }
        // PostgreSQL locks the rows above the sort and below the LIMIT:
        // in the query's order, only as many as the LIMIT takes (rows
        // skipped or gone do not count). Anything in between that drops
        // or reorders rows makes every row locked first.
        let in_order = planned.filter.is_empty()
            && planned.post_sort.is_empty()
            && planned.windows.is_empty()
            && !planned.per_row();
        let needed = match (planned.limit, &planned.at_run) {
            // (Ties past the count are found only once the rows are.)
            (Some(n), _) if in_order && !planned.ties => {
                crate::counts::rows_needed(Some(n), planned.offset).map(Stop::After)
            }
            (None, Some(at_run)) if in_order && !planned.ties => Some(Stop::AtRun(at_run.clone())),
            _ => None,
        };
        let order = match in_order {
            true => planned.sort.clone(),
            false => Vec::new(),
        };
        let not_in_from = |missing: &String| {
            SqlError::new(
                "42P01",
                format!("relation \"{missing}\" in FOR {word} clause not found in FROM clause"),
            )
        };
        // The lock of scans that lock rows before anything above them
        // (a parent's branches, a join's items): in no order, every row.
        let unordered = RowLock {
            strength,
            wait,
            order: Vec::new(),
            needed: None,
        };
        // The name the table goes by in FROM: its alias, if any.
        let name = planned.scope.tables.first().map(|t| t.qualifier.clone());
        match &mut planned.source {
            Source::Table { lock: slot, .. } => {
                if let Some(missing) = of.iter().find(|&of| Some(of) != name.as_ref()) {
                    return Err(not_in_from(missing));
                }
                *slot = Some(RowLock {
                    strength,
                    wait,
                    order,
                    needed,
                });
            }
            Source::SetOp { .. } => return Err(refuse("UNION/INTERSECT/EXCEPT")),
            // An inheritance parent's or partitioned table's scans
            // (`from.rs` `partitions_base`, unlabelled): each branch's
            // rows locked as it finds them.
            Source::Derived {
                label,
                planned: inner,
                ..
            } if label.is_empty() => {
                if let Some(missing) = of.iter().find(|&of| Some(of) != name.as_ref()) {
                    return Err(not_in_from(missing));
                }
                if !lock_branches(inner, &unordered) {
                    return Err(SqlError::unsupported(format!(
                        "FOR {word} of a table whose scans are not tables"
                    )));
                }
            }
            Source::Join { .. } => {
                let tables = &planned.scope.tables;
                if let Some(missing) = of
                    .iter()
                    .find(|&of| !tables.iter().any(|t| t.qualifier == *of))
                {
                    return Err(not_in_from(missing));
                }
                let at = JoinLock {
                    scope: &planned.scope,
                    of: &of,
                    lock: &unordered,
                    word,
                };
                at.put(&mut planned.source, 0, false)?;
            }
            _ => {
                return Err(SqlError::unsupported(format!(
                    "FOR {word} of other than one table (joins, subqueries, functions)"
                )));
            }
        }
    }
    Ok(planned)
}

/// FOR UPDATE / SHARE over a join: the scans of the FROM items it names
/// (`of`; empty: all) lock each row they find, before the join (so rows
/// that join nothing are locked too, where PostgreSQL locks the joined
/// rows only).
struct JoinLock<'a> {
    scope: &'a Scope,
    of: &'a [String],
    lock: &'a RowLock,
    word: &'static str,
}

impl JoinLock<'_> {
    /// Locks the named items under `source`, whose first column is at
    /// `offset` of the joined row; `nullable`: an outer join may
    /// NULL-extend it (PostgreSQL's 0A000 for a lock there).
    fn put(&self, source: &mut Source, offset: usize, nullable: bool) -> Result<(), SqlError> {
        if let Source::Join {
            kind,
            left,
            right,
            right_offset,
            ..
        } = source
        {
            let right_offset = *right_offset;
            self.put(left, offset, nullable || kind.keeps_right())?;
            return self.put(right, right_offset, nullable || kind.keeps_left());
        }
        let Some(table) = self.scope.tables.iter().find(|t| t.offset == offset) else {
            return Err(SqlError::unsupported(format!(
                "FOR {} of this join",
                self.word
            )));
        };
        if !self.of.is_empty() && !self.of.contains(&table.qualifier) {
            return Ok(());
        }
        if nullable {
            return Err(SqlError::new(
                "0A000",
                format!(
                    "FOR {} cannot be applied to the nullable side of an outer join",
                    self.word
                ),
            ));
        }
        let locked = match source {
            Source::Table { lock: slot, .. } => {
                *slot = Some(self.lock.clone());
                true
            }
            Source::Derived {
                label,
                planned: inner,
                ..
            } if label.is_empty() => lock_branches(inner, self.lock),
            _ => false,
        };
        if !locked {
            return Err(SqlError::unsupported(format!(
                "FOR {} of other than a table in a join (subqueries, functions)",
                self.word
            )));
        }
        Ok(())
    }
}

/// Puts `lock` on every table scan of `planned`, an inheritance parent's
/// or partitioned table's branches (the UNION ALL, or run-time pruned
/// Append, of one scan each); false if one is no table scan.
fn lock_branches(planned: &mut Planned, lock: &RowLock) -> bool {
    match &mut planned.source {
        Source::Table { lock: slot, .. } => {
            *slot = Some(lock.clone());
            true
        }
        Source::SetOp {
            left, right, all, ..
        } if *all => lock_branches(left, lock) && lock_branches(right, lock),
        Source::Append { branches, .. } => branches.iter_mut().all(|b| lock_branches(b, lock)),
        Source::Derived {
            label,
            planned: inner,
            ..
        } if label.is_empty() => lock_branches(inner, lock),
        _ => false,
    }
}

/// Plans a query level whose WITH has recursive or computed CTEs
/// (`cte.rs`): the recursive ones put in scope, each computed one planned
/// in turn and put in scope as the rows its run fills (a subplan of the
/// level, run before its other subqueries: `subquery::run_uncorrelated`),
/// the CTEs nobody names planned for their errors only (the recursive
/// ones last: they may name the others), then the query.
/// The caller takes the CTEs out of scope again.
fn plan_with(
    cx: &Ctx<'_>,
    txn: &Transaction,
    inlined: crate::cte::Inlined,
) -> Result<Planned, SqlError> {
    let mut unnamed = Vec::new();
    for (cte, named) in inlined.recursive {
        let cte = std::rc::Rc::new(cte);
        if !named {
            unnamed.push(cte.clone());
        }
        cx.recursive.borrow_mut().push(cte);
    }
    let mut fills = Vec::new();
    for cte in inlined.materialized {
        let planned = plan_query(cx, txn, &cte.query)?;
        let table = crate::recursive::WorkTable::default();
        let produced = crate::modifying_cte::Produced::computed(
            &cte.marker,
            &cte.name,
            &cte.alias,
            &planned,
            &table,
        )?;
        if !cte.named {
            continue;
        }
        cx.produced.borrow_mut().push(std::rc::Rc::new(produced));
        fills.push(Subplan::filling(planned, table));
    }
    for cte in &unnamed {
        crate::recursive::analyze(cx, txn, cte)?;
    }
    let mut planned = plan_query(cx, txn, &inlined.query)?;
    planned.subplans.extend(fills);
    Ok(planned)
}

/// A query's locking clauses (`FOR UPDATE [OF t, ...] [NOWAIT | SKIP
/// LOCKED]`, ...) as one: the strongest strength and the strictest wait
/// policy any clause asks for (NOWAIT over SKIP LOCKED over waiting, as
/// PostgreSQL combines clauses on one table), and the tables they name
/// (empty: every table).
fn row_lock(
    clauses: &[sqlparser::ast::LockClause],
) -> Result<Option<(LockStrength, WaitPolicy, Vec<String>)>, SqlError> {
    use sqlparser::ast::{LockType, NonBlock};
    let mut combined: Option<(LockStrength, WaitPolicy, Vec<String>)> = None;
    let mut every_table = false;
    for clause in clauses {
        let strength = match clause.lock_type {
            LockType::Update => LockStrength::Update,
            LockType::Share => LockStrength::Share,
        };
        let wait = match clause.nonblock {
            None => WaitPolicy::Block,
            Some(NonBlock::Nowait) => WaitPolicy::NoWait,
            Some(NonBlock::SkipLocked) => WaitPolicy::SkipLocked,
        };
        let mut of = Vec::new();
        match &clause.of {
            None => every_table = true,
            Some(name) => match name.0.as_slice() {
                [part] if let Some(ident) = part.as_ident() => of.push(crate::names::ident(ident)),
                _ => {
                    return Err(SqlError::new(
                        "42601",
                        format!(
                            "FOR {} must specify unqualified relation names",
                            strength.word()
                        ),
                    ));
                }
            },
        }
        combined = Some(match combined {
            None => (strength, wait, of),
            Some((s, w, mut names)) => {
                names.extend(of);
                (stronger(s, strength), stricter(w, wait), names)
            }
        });
    }
    if every_table && let Some((_, _, names)) = &mut combined {
        names.clear();
    }
    Ok(combined)
}

fn stronger(a: LockStrength, b: LockStrength) -> LockStrength {
    match (a, b) {
        (LockStrength::Share, LockStrength::Share) => LockStrength::Share,
        _ => LockStrength::Update,
    }
}

fn stricter(a: WaitPolicy, b: WaitPolicy) -> WaitPolicy {
    let rank = |w: WaitPolicy| match w {
        WaitPolicy::Block => 0,
        WaitPolicy::SkipLocked => 1,
        WaitPolicy::NoWait => 2,
    };
    if rank(a) >= rank(b) { a } else { b }
}

/// Plans a query body (a SELECT, a set operation of bodies, or a
/// parenthesised query) with the ORDER BY and LIMIT around it.
fn plan_body(
    cx: &Ctx<'_>,
    txn: &Transaction,
    body: &SetExpr,
    order_by: &[sqlparser::ast::OrderByExpr],
    limit: Option<u64>,
    offset: u64,
    locking: bool,
) -> Result<Planned, SqlError> {
    match body {
        SetExpr::Select(select) => plan_select(cx, txn, select, order_by, limit, offset, locking),
        SetExpr::Query(q) if order_by.is_empty() && limit.is_none() && offset == 0 => {
            plan_query(cx, txn, q)
        }
        SetExpr::SetOperation { .. } => {
            let (source, names, columns) = plan_set_operation(cx, txn, body)?;
            let types = columns.iter().map(|c| c.ty).collect();
            set_result(source, names, types, order_by, limit, offset)
        }
        SetExpr::Values(values) => plan_values(cx, txn, values, order_by, limit, offset),
        other => Err(SqlError::unsupported(format!("the query {other}"))),
    }
}

/// A query returning `source`'s rows as they are: columns `names` of
/// `types`, known in the query as the table `qualifier` (a set
/// operation's result; a recursive union's).
pub fn over_source(
    source: Source,
    qualifier: &str,
    names: Vec<String>,
    types: Vec<SqlType>,
) -> Planned {
    let width = names.len();
    let columns = names
        .iter()
        .zip(&types)
        .map(|(name, ty)| Column {
            name: name.clone(),
            type_oid: ty.oid(),
        })
        .collect();
    Planned {
        columns,
        types: types.clone(),
        source,
        scope: Scope::of(vec![from::ScopeTable {
            system: 0,
            domains: Vec::new(),
            collations: Vec::new(),
            row_type: None,
            uses: None,
            qualifier: qualifier.into(),
            names,
            types,
            offset: 0,
        }]),
        filter: Vec::new(),
        sort: Vec::new(),
        order: Vec::new(),
        shape: Shape::Project((0..width).map(Scalar::Column).collect()),
        distinct: Distinct::No,
        post_sort: Vec::new(),
        subplans: Vec::new(),
        windows: Windows::default(),
        limit: None,
        offset: 0,
        at_run: None,
        ties: false,
        row_calls: false,
    }
}

/// `left UNION | INTERSECT | EXCEPT [ALL] right` (`body`): its rows'
/// source, its columns' names (the left query's) and what each column
/// gives a set operation above it (`set_types.rs`: its type, common to
/// both inputs).
fn plan_set_operation(
    cx: &Ctx<'_>,
    txn: &Transaction,
    body: &SetExpr,
) -> Result<(Source, Vec<String>, Vec<set_types::Input>), SqlError> {
    let SetExpr::SetOperation {
        op,
        set_quantifier,
        left,
        right,
    } = body
    else {
        unreachable!("a set operation");
    };
    let op = match op {
        SetOperator::Union => SetKind::Union,
        SetOperator::Intersect => SetKind::Intersect,
        SetOperator::Except => SetKind::Except,
        other => return Err(SqlError::unsupported(format!("the set operation {other}"))),
    };
    let all = match set_quantifier {
        SetQuantifier::All => true,
        SetQuantifier::Distinct | SetQuantifier::None => false,
        other => {
            return Err(SqlError::unsupported(format!("{} {other}", op.word())));
        }
    };
    let (left, left_inputs) = plan_set_input(cx, txn, left)?;
    let (right, right_inputs) = plan_set_input(cx, txn, right)?;
    if left.columns.len() != right.columns.len() {
        return Err(SqlError::syntax(format!(
            "each {} query must have the same number of columns",
            op.word()
        )));
    }
    let columns = (left_inputs.into_iter().zip(right_inputs))
        .map(|(l, r)| set_types::common(op.word(), &[l, r]))
        .collect::<Result<Vec<_>, _>>()?;
    let names = left.columns.iter().map(|c| c.name.clone()).collect();
    let source = Source::SetOp {
        op,
        all,
        left: Box::new(left),
        right: Box::new(right),
        types: columns.iter().map(|c| c.ty).collect(),
    };
    Ok((source, names, columns))
}

/// One input of a set operation planned, with what it gives each result
/// column.
fn plan_set_input(
    cx: &Ctx<'_>,
    txn: &Transaction,
    body: &SetExpr,
) -> Result<(Planned, Vec<set_types::Input>), SqlError> {
    if let SetExpr::SetOperation { .. } = body {
        let (source, names, columns) = plan_set_operation(cx, txn, body)?;
        let types = columns.iter().map(|c| c.ty).collect();
        return Ok((over_source(source, "*SELECT*", names, types), columns));
    }
    let planned = plan_body(cx, txn, body, &[], None, 0, false)?;
    let inputs = set_types::inputs(body, &planned.types);
    Ok((planned, inputs))
}

/// A set operation's or VALUES list's result (`source`, of columns
/// `names` of `types`) with the ORDER BY and LIMIT around it.
fn set_result(
    source: Source,
    names: Vec<String>,
    types: Vec<SqlType>,
    order_by: &[sqlparser::ast::OrderByExpr],
    limit: Option<u64>,
    offset: u64,
) -> Result<Planned, SqlError> {
    let mut planned = over_source(source, "*SELECT*", names, types);
    planned.sort = order_by
        .iter()
        .map(|o| output_sort_key(&planned.scope, o))
        .collect::<Result<Vec<_>, _>>()?;
    planned.order = planned.sort.clone();
    planned.limit = limit;
    planned.offset = offset;
    Ok(planned)
}

/// `VALUES (...), (...)`: each row planned as a one-row SELECT of columns
/// `column1`, `column2`, ... (PostgreSQL's names), the rows' common types
/// resolved over all of them at once (`set_types::common`, as
/// PostgreSQL's VALUES), and their `UNION ALL` built as a balanced tree so
/// a long list stays shallow.
/// PostgreSQL's 42601 for a VALUES list whose rows differ in width.
pub fn same_widths(values: &sqlparser::ast::Values) -> Result<(), SqlError> {
    let width = values.rows.first().map_or(0, Vec::len);
    if values.rows.iter().any(|r| r.len() != width) {
        return Err(SqlError::syntax("VALUES lists must all be the same length"));
    }
    Ok(())
}

fn plan_values(
    cx: &Ctx<'_>,
    txn: &Transaction,
    values: &sqlparser::ast::Values,
    order_by: &[sqlparser::ast::OrderByExpr],
    limit: Option<u64>,
    offset: u64,
) -> Result<Planned, SqlError> {
    for e in values.rows.iter().flatten() {
        crate::project_set::refuse(e, "VALUES")?;
    }
    same_widths(values)?;
    let width = values.rows.first().map_or(0, Vec::len);
    if values.rows.is_empty() {
        return Err(SqlError::syntax("VALUES needs at least one row"));
    }
    let template = match sqlparser::parser::Parser::parse_sql(
        &sqlparser::dialect::PostgreSqlDialect {},
        "SELECT 1",
    ) {
        Ok(mut statements) => match statements.pop() {
            Some(sqlparser::ast::Statement::Query(q)) => match *q.body {
                SetExpr::Select(select) => select,
                _ => unreachable!("SELECT 1 is a select"),
            },
            _ => unreachable!("SELECT 1 is a query"),
        },
        Err(e) => return Err(SqlError::syntax(e.to_string())),
    };
    let names: Vec<String> = (1..=width).map(|i| format!("column{i}")).collect();
    let mut selects = values.rows.iter().map(|row| {
        let mut select = template.clone();
        select.projection = (row.iter().zip(&names))
            .map(|(e, name)| SelectItem::ExprWithAlias {
                expr: e.clone(),
                alias: sqlparser::ast::Ident::new(name),
            })
            .collect();
        SetExpr::Select(select)
    });
    if values.rows.len() == 1 {
        let one = selects.next().expect("one row");
        return plan_body(cx, txn, &one, order_by, limit, offset, false);
    }
    let rows = selects
        .map(|select| plan_body(cx, txn, &select, &[], None, 0, false))
        .collect::<Result<Vec<_>, _>>()?;
    let types = (0..width)
        .map(|c| {
            let inputs: Vec<set_types::Input> = (values.rows.iter().zip(&rows))
                .map(|(row, planned)| set_types::Input::of(&row[c], planned.types[c]))
                .collect();
            set_types::common("VALUES", &inputs).map(|input| input.ty)
        })
        .collect::<Result<Vec<SqlType>, _>>()?;
    fn union(mut rows: Vec<Planned>, names: &[String], types: &[SqlType]) -> Planned {
        if rows.len() == 1 {
            return rows.pop().expect("one row");
        }
        let right = rows.split_off(rows.len() / 2);
        let source = Source::SetOp {
            op: SetKind::Union,
            all: true,
            left: Box::new(union(rows, names, types)),
            right: Box::new(union(right, names, types)),
            types: types.to_vec(),
        };
        over_source(source, "*SELECT*", names.to_vec(), types.to_vec())
    }
    let tree = union(rows, &names, &types);
    set_result(tree.source, names, types, order_by, limit, offset)
}

/// An ORDER BY item of a set operation: an output column's name or
/// position.
fn output_sort_key(scope: &Scope, o: &sqlparser::ast::OrderByExpr) -> Result<SortKey, SqlError> {
    let column = match &o.expr {
        Expr::Value(v) => match &v.value {
            sqlparser::ast::Value::Number(n, _) => n
                .parse::<usize>()
                .ok()
                .filter(|p| (1..=scope.width()).contains(p))
                .map(|p| p - 1)
                .ok_or_else(|| {
                    SqlError::new(
                        "42P10",
                        format!("ORDER BY position {n} is not in select list"),
                    )
                })?,
            _ => return Err(SqlError::unsupported(format!("ORDER BY {}", o.expr))),
        },
        Expr::Identifier(id) => scope.resolve(&names::ident(id))?.0,
        other => {
            return Err(SqlError::unsupported(format!(
                "ORDER BY {other} of a UNION (only result columns)"
            )));
        }
    };
    crate::geometry_functions::check_ordering(scope.types()[column])?;
    Ok(SortKey::of(column, &o.options))
}

/// The FROM item `name [(args)] [AS alias]` (a table, or a function when
/// `args` is some), with none of sqlparser's other options.
pub(crate) fn table_factor(
    name: sqlparser::ast::ObjectName,
    alias: Option<sqlparser::ast::TableAlias>,
    args: Option<Vec<sqlparser::ast::FunctionArg>>,
) -> sqlparser::ast::TableFactor {
    sqlparser::ast::TableFactor::Table {
        name,
        alias,
        args: args.map(|args| sqlparser::ast::TableFunctionArgs {
            args,
            settings: None,
        }),
        with_hints: Vec::new(),
        version: None,
        with_ordinality: false,
        partitions: Vec::new(),
        json_path: None,
        sample: None,
        index_hints: Vec::new(),
    }
}

/// Plans a SELECT.
fn plan_select(
    cx: &Ctx<'_>,
    txn: &Transaction,
    select: &Select,
    order_by: &[sqlparser::ast::OrderByExpr],
    limit: Option<u64>,
    offset: u64,
    locking: bool,
) -> Result<Planned, SqlError> {
    // The select list's set-returning calls run as FROM items
    // (`project_set.rs`).
    crate::project_set::check_placement(select, order_by)?;
    if let Some((rewritten, order_by)) = crate::project_set::rewrite(select, order_by)? {
        return plan_select(cx, txn, &rewritten, &order_by, limit, offset, locking);
    }
    if let Some(lifted) = crate::plpgsql::row_calls::lift_join_calls(select) {
        return plan_select(cx, txn, &lifted, order_by, limit, offset, locking);
    }
    check_plain(select)?;
    let from = match select.from.as_slice() {
        [] => None,
        items => {
            // A lone subquery in FROM may take the WHERE, and the ORDER BY
            // and LIMIT of a plain projection (`pushdown.rs`).
            // (An aggregate in a subquery may be this query's, grouping it.)
            let plain = !locking
                && select.distinct.is_none()
                && !is_grouped(select)
                && !select.projection.iter().any(|item| match item {
                    SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. } => {
                        crate::aggregate::contains_call(e, |f| f.over.is_some())
                            || crate::outer_aggregates::in_subqueries(e)
                    }
                    _ => false,
                });
            let order = match limit {
                Some(n) if plain && !order_by.is_empty() => Some((
                    order_by,
                    n.saturating_add(offset),
                    select.projection.as_slice(),
                )),
                _ => None,
            };
            let outer = crate::pushdown::Outer {
                barrier: false,
                selection: select.selection.as_ref(),
                order,
            };
            let system = crate::system_columns::mentioned(select)
                || order_by
                    .iter()
                    .any(|o| crate::system_columns::mentioned(&o.expr));
            Some(from::resolve(cx, txn, items, Some(outer), system)?)
        }
    };
    let scope = from.as_ref().map(|f| f.scope.clone()).unwrap_or_default();
    // Subqueries in expressions become markers bound to their plans.
    let mut select = select.clone();
    if let (Some(from), Some(selection)) = (&from, &select.selection)
        && !from.pushed.is_empty()
    {
        select.selection = crate::pushdown::remaining(selection, &from.pushed);
    }
    // `(expr).*`: its fields (`field_stars.rs`).
    crate::field_stars::expand(&mut select.projection, &scope)?;
    name_subquery_items(&mut select.projection);
    // The aggregate calls of its subqueries that are this query's
    // (`outer_aggregates.rs`): computed here, they group it.
    let lifted = crate::outer_aggregates::lift(cx, txn, &mut select, &scope)?;
    let grouped = is_grouped(&select) || !lifted.calls.is_empty();
    if is_grouped(&select)
        && let Some(expanded) = crate::functional_grouping::expand_stars(&select, &scope)?
    {
        select = expanded;
    }
    let mut subplans = lifted.subplans;
    let first = subplans.len();
    subplans.extend(subquery::extract_select(
        cx,
        txn,
        &mut select,
        &scope,
        grouped,
        first,
    )?);
    let correlated: Vec<usize> = subplans.iter().flat_map(Subplan::outer_columns).collect();
    let row_calls = crate::plpgsql::row_calls::any_in(&select)
        || order_by
            .iter()
            .any(|o| crate::plpgsql::row_calls::any_in(&o.expr));
    let select = &select;
    // DISTINCT ON sorts the result rows by its ORDER BY, which its
    // expressions lead, and keeps the first row of each run of equal ones.
    let on_order;
    let (order_by, on) = match &select.distinct {
        Some(sqlparser::ast::Distinct::On(on)) => {
            let leading;
            (on_order, leading) = distinct_on_order(on, order_by, &select.projection)?;
            (&on_order[..], Some(leading))
        }
        _ => (order_by, None),
    };
    let shaped = shape(
        &scope,
        scope.width(),
        select,
        order_by,
        on.is_some(),
        &lifted.calls,
    );
    // A column that depends on a grouped primary key
    // (`functional_grouping.rs`): grouped by too.
    let extended;
    let (select, shaped) = match shaped {
        Err(e) if e.code == "42803" => {
            extended = crate::functional_grouping::extend(cx, txn, select, &scope)?;
            match &extended {
                Some(x) => (
                    x,
                    shape(
                        &scope,
                        scope.width(),
                        x,
                        order_by,
                        on.is_some(),
                        &lifted.calls,
                    ),
                ),
                None => (select, Err(e)),
            }
        }
        shaped => (select, shaped),
    };
    let (shape, columns, order, post_sort, windows) = shaped?;
    let distinct = match (&select.distinct, on) {
        (None, _) => Distinct::No,
        (Some(sqlparser::ast::Distinct::Distinct), _) => Distinct::All,
        (_, Some(leading)) => {
            let mut keys: Vec<usize> = Vec::new();
            for k in &post_sort[..leading] {
                if !keys.contains(&k.column) {
                    keys.push(k.column);
                }
            }
            Distinct::On(keys)
        }
        (Some(other), None) => return Err(SqlError::unsupported(format!("{other}"))),
    };
    if distinct == Distinct::All && post_sort.iter().any(|k| k.column >= columns.len()) {
        return Err(SqlError::new(
            "42P10",
            "for SELECT DISTINCT, ORDER BY expressions must appear in select list",
        ));
    }
    let types: Vec<SqlType> = match &shape {
        Shape::Project(items) => {
            let mut row = scope.types();
            row.extend(windows.calls.iter().map(|c| c.ty));
            items.iter().map(|s| s.ty(&row)).collect()
        }
        Shape::Aggregate { output, .. } => columns
            .iter()
            .zip(output)
            .map(|(c, _)| crate::user_types::of_oid(c.type_oid, -1).unwrap_or(SqlType::Text))
            .collect(),
    };
    if distinct == Distinct::All {
        for ty in types.iter().take(columns.len()) {
            crate::geometry_functions::check_equality(*ty)?;
        }
    }
    // The columns the query reads: a single table's scan decodes only
    // them, and an index-only scan is possible when its key holds them.
    let mut reads: Vec<usize> = Vec::new();
    if let Some(selection) = &select.selection {
        let bound = scalar::bind(selection, &scope)?;
        scalar::require_bool(&bound, &scope, "WHERE", selection)?;
        bound.columns(&mut reads);
    }
    match &shape {
        Shape::Project(items) => {
            items.iter().for_each(|s| s.columns(&mut reads));
            windows
                .scalars()
                .into_iter()
                .for_each(|s| s.columns(&mut reads));
            // (Not the window calls' own columns, past the source's.)
            reads.retain(|&c| c < scope.width());
        }
        Shape::Aggregate { grouping, .. } => {
            grouping.keys.iter().for_each(|s| s.columns(&mut reads));
            grouping.calls.iter().for_each(|c| c.columns(&mut reads));
        }
    }
    reads.extend(order.iter().map(|k| k.column));
    reads.extend(correlated);
    if let Shape::Aggregate { grouping, .. } = &shape {
        subquery::over_groups(&mut subplans, &grouping.keys, &scope)?;
    }
    let order_keys = order.clone();
    let (source, filter, sort) = match from {
        Some(from) => {
            // A locking scan reads whole rows (index-only scans have no
            // tuple ids to lock).
            let reads = (!locking).then_some(reads);
            // Conditions with a correlated subquery run over whole rows,
            // after the scans and joins.
            let (early, late) = match &select.selection {
                Some(e) => subquery::outer_conjuncts(e, &subplans),
                None => (None, Vec::new()),
            };
            let (source, sort) = from.plan(cx, early.as_ref(), reads, order)?;
            let filter = late
                .iter()
                .map(|e| scalar::bind(e, &scope))
                .collect::<Result<_, _>>()?;
            (source, filter, sort)
        }
        None => {
            let filter = match &select.selection {
                Some(e) => scalar::bind(e, &scope)?.conjuncts(),
                None => Vec::new(),
            };
            (Source::One, filter, Vec::new())
        }
    };
    let mut planned = Planned {
        source,
        scope,
        filter,
        sort,
        order: order_keys,
        shape,
        columns,
        types,
        distinct,
        post_sort,
        subplans,
        windows,
        limit,
        offset,
        at_run: None,
        ties: false,
        row_calls,
    };
    if let Some(n) = crate::counts::rows_needed(limit, offset) {
        planned.push_stop(Stop::After(n), locking);
    }
    Ok(planned)
}

/// Runs a planned query: its rows, and what the scan did.
pub fn run(
    txn: &mut Transaction,
    planned: &Planned,
    env: &Env<'_>,
) -> Result<(Vec<Vec<Value>>, RunCounts), SqlError> {
    crate::stack::check()?;
    run_level(txn, planned, env)
}

/// [`run`] of one query level (nested levels come back through `run`,
/// which guards the stack: `stack.rs`).
fn run_level(
    txn: &mut Transaction,
    planned: &Planned,
    env: &Env<'_>,
) -> Result<(Vec<Vec<Value>>, RunCounts), SqlError> {
    let mut counts = RunCounts::default();
    let (limit_n, offset_n) = match &planned.at_run {
        Some(at_run) => at_run.values(env)?,
        None => (planned.limit, planned.offset),
    };
    let results = subquery::run_uncorrelated(txn, &planned.subplans, env)?;
    let with_results = Env {
        subqueries: &results,
        ..*env
    };
    let env = if results.is_empty() {
        env
    } else {
        &with_results
    };
    // An aggregate over its source alone takes the rows as the source
    // reads them (a table's are never held).
    let mut grouped = None;
    let mut rows = match &planned.shape {
        Shape::Aggregate { grouping, .. }
            if planned.filter.is_empty() && planned.sort.is_empty() && !planned.per_row() =>
        {
            let mut groups = grouping.start();
            counts.scanned =
                (planned.source).visit(txn, env, &mut counts.source, |row| groups.add(row, env))?;
            grouped = Some(groups.finish(env)?);
            Vec::new()
        }
        // A projection alone (without repeats, or whole) takes them as
        // read too: only the result rows are held.
        Shape::Project(items)
            if planned.filter.is_empty()
                && planned.sort.is_empty()
                && planned.post_sort.is_empty()
                && planned.windows.is_empty()
                && !planned.per_row()
                && match planned.distinct {
                    Distinct::All => true,
                    Distinct::No => limit_n.is_none() && offset_n == 0,
                    Distinct::On(_) => false,
                } =>
        {
            let mut repeats = Repeats::default();
            let mut out = Vec::new();
            counts.scanned = planned.source.visit(txn, env, &mut counts.source, |row| {
                let projected: Vec<Value> = (items.iter())
                    .map(|s| s.eval(row, env))
                    .collect::<Result<_, _>>()?;
                if planned.distinct == Distinct::No || repeats.first(&projected) {
                    out.push(projected);
                }
                Ok(())
            })?;
            let offset = crate::counts::as_rows(offset_n);
            out.drain(..offset.min(out.len()));
            if let Some(limit) = limit_n {
                out.truncate(crate::counts::as_rows(limit));
            }
            return Ok((out, counts));
        }
        // ORDER BY with a LIMIT over the source alone keeps only the
        // first rows in that order as they are read (`top_n.rs`).
        Shape::Project(_)
            if planned.filter.is_empty()
                && !planned.sort.is_empty()
                && planned.post_sort.is_empty()
                && planned.windows.is_empty()
                && planned.distinct == Distinct::No
                && !planned.per_row()
                && !planned.ties
                && let Some(limit) = limit_n =>
        {
            let n = crate::counts::rows_needed(Some(limit), offset_n).unwrap_or(usize::MAX);
            let mut first = TopN::new(&planned.sort, n);
            (planned.source).visit(txn, env, &mut counts.source, |row| first.offer(row))?;
            first.finish()?
        }
        _ => planned.source.rows(txn, env, &mut counts.source)?,
    };
    // From here on the rows are whole: correlated subqueries may run.
    let runner = subquery::Runner::new(txn, &planned.subplans, env);
    let with_runner = Env {
        correlated: Some(&runner),
        ..*env
    };
    let env = if planned.per_row() { &with_runner } else { env };
    if !planned.filter.is_empty() {
        let mut kept = Vec::with_capacity(rows.len());
        for row in rows {
            if scan::accepts(&planned.filter, &row, env)? {
                kept.push(row);
            }
        }
        rows = kept;
    }
    runner.check_interrupt()?;
    sort(&mut rows, &planned.sort)?;
    let items = match &planned.shape {
        Shape::Project(items) => {
            counts.scanned = rows.len() as u64;
            items
        }
        Shape::Aggregate {
            grouping,
            output,
            order,
        } => {
            runner.check_interrupt()?;
            rows = match grouped {
                Some(rows) => rows,
                None => {
                    counts.scanned = rows.len() as u64;
                    grouping.run(&rows, env)?
                }
            };
            counts.groups = rows.len() as u64;
            match first_groups(planned) {
                // Only the first groups in ORDER BY's order are returned:
                // kept as the groups stream past (`top_n.rs`).
                Some(n) if !order.is_empty() => {
                    let mut first = TopN::new(order, n);
                    for row in &rows {
                        first.offer(row)?;
                    }
                    rows = first.finish()?;
                }
                _ => sort(&mut rows, order)?,
            }
            output
        }
    };
    if !planned.windows.is_empty() {
        runner.check_interrupt()?;
        planned.windows.run(&mut rows, env)?;
    }
    let offset = crate::counts::as_rows(offset_n);
    // The rows' ORDER BY keys where the LIMIT is applied (for its ties).
    let keys = match &planned.shape {
        _ if !planned.post_sort.is_empty() => &planned.post_sort,
        Shape::Aggregate { order, .. } => order,
        Shape::Project(_) => &planned.order,
    };
    let limit = |rows: &mut Vec<Vec<Value>>| -> Result<(), SqlError> {
        rows.drain(..offset.min(rows.len()));
        if let Some(limit) = limit_n {
            let limit = crate::counts::as_rows(limit);
            let kept = match planned.ties {
                true => with_ties(rows, keys, limit)?,
                false => limit,
            };
            rows.truncate(kept);
        }
        Ok(())
    };
    let after = planned.distinct != Distinct::No || !planned.post_sort.is_empty();
    if !after {
        // Only the rows returned are projected.
        limit(&mut rows)?;
    }
    if !projects_whole(items, &rows) {
        rows = rows
            .iter()
            .map(|row| items.iter().map(|s| s.eval(row, env)).collect())
            .collect::<Result<_, _>>()?;
    }
    if !planned.post_sort.is_empty() {
        sort(&mut rows, &planned.post_sort)?;
    }
    match &planned.distinct {
        Distinct::No => {}
        Distinct::All => rows = distinct(rows, None),
        Distinct::On(keys) => rows = distinct(rows, Some(keys)),
    }
    if after {
        // (Before the ORDER BY's own columns go: the ties compare them.)
        limit(&mut rows)?;
    }
    let width = planned.columns.len();
    for row in &mut rows {
        row.truncate(width);
    }
    Ok((rows, counts))
}

/// Whether projecting `rows` by `items` gives them back as they are: each
/// item the column at its own place, as many as each row has (`select
/// count(*) from t`'s one aggregate row), so the projection is skipped.
fn projects_whole(items: &[Scalar], rows: &[Vec<Value>]) -> bool {
    let whole = |(i, item): (usize, &Scalar)| matches!(item, Scalar::Column(c) if *c == i);
    items.iter().enumerate().all(whole) && rows.iter().all(|row| row.len() == items.len())
}

/// How many of `rows` (sorted by `keys`) `FETCH FIRST limit ROWS WITH
/// TIES` returns: the first `limit` and those after them that sort equal
/// to the last.
fn with_ties(rows: &[Vec<Value>], keys: &[SortKey], limit: usize) -> Result<usize, SqlError> {
    if limit == 0 || limit >= rows.len() {
        return Ok(limit.min(rows.len()));
    }
    let last = &rows[limit - 1];
    let mut failed = None;
    let ties = (rows[limit..].iter())
        .take_while(|row| row_order(keys, last, row, &mut failed) == Ordering::Equal)
        .count();
    match failed {
        Some(e) => Err(e),
        None => Ok(limit + ties),
    }
}

/// How many of a grouping query's aggregate rows, in ORDER BY's order,
/// its result can need (`OFFSET` + `LIMIT`): `None` without a LIMIT, or
/// when window functions, DISTINCT or a sort of the result rows read them
/// all. The sort over the groups hands on no more (EXPLAIN counts that).
pub fn first_groups(planned: &Planned) -> Option<usize> {
    let limit = planned.limit.filter(|_| !planned.ties)?;
    let whole = !planned.windows.is_empty()
        || planned.distinct != Distinct::No
        || !planned.post_sort.is_empty();
    match (&planned.shape, whole) {
        (Shape::Aggregate { .. }, false) => {
            crate::counts::rows_needed(Some(limit), planned.offset).or(Some(usize::MAX))
        }
        _ => None,
    }
}

/// Which repeated result rows a query drops.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Distinct {
    No,
    /// `DISTINCT`: rows equal in every column.
    All,
    /// `DISTINCT ON (...)`: rows equal in these columns of the result row
    /// (extra columns past the result's when not selected).
    On(Vec<usize>),
}

/// The rows without repeats, judged on `keys`' columns (all: `None`),
/// the first of equal rows kept, so a sorted input stays sorted; NULLs
/// are equal here, as DISTINCT treats them.
pub fn distinct(rows: Vec<Vec<Value>>, keys: Option<&[usize]>) -> Vec<Vec<Value>> {
    let mut repeats = Repeats::default();
    rows.into_iter()
        .filter(|row| match keys {
            None => repeats.first(row),
            Some(keys) => repeats.first(&keys.iter().map(|&c| row[c].clone()).collect::<Vec<_>>()),
        })
        .collect()
}

/// The values seen so far, to tell a first from a repeat as DISTINCT
/// does (NULLs equal; numerics and intervals by value: the grouping's
/// bytes, `group_hash`).
#[derive(Default)]
pub struct Repeats(crate::aggregate::KeySet);

impl Repeats {
    /// Whether `values` are seen for the first time (they are now).
    pub fn first(&mut self, values: &[Value]) -> bool {
        self.0.insert(crate::aggregate::group_hash(values))
    }
}

/// The ORDER BY a `DISTINCT ON (on)` query sorts by: its ORDER BY, whose
/// leading items must be `on`'s expressions (42P10 otherwise), then those
/// of `on` it lacks, ascending (PostgreSQL's rule); and how many of its
/// items lead with `on`'s expressions (the row's DISTINCT ON keys). An
/// item is compared as the select-list expression it names (`ORDER BY 1`,
/// an alias).
fn distinct_on_order(
    on: &[Expr],
    order_by: &[sqlparser::ast::OrderByExpr],
    projection: &[SelectItem],
) -> Result<(Vec<sqlparser::ast::OrderByExpr>, usize), SqlError> {
    let named = |e: &Expr| -> Expr {
        let item = match e {
            Expr::Value(v) => match &v.value {
                sqlparser::ast::Value::Number(n, _) => n
                    .parse::<usize>()
                    .ok()
                    .and_then(|p| projection.get(p.wrapping_sub(1))),
                _ => None,
            },
            Expr::Identifier(id) => projection.iter().find(|i| {
                matches!(i, SelectItem::ExprWithAlias { alias, .. }
                    if names::ident(alias) == names::ident(id))
            }),
            _ => None,
        };
        match item {
            Some(SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. }) => {
                e.clone()
            }
            _ => e.clone(),
        }
    };
    let on_named: Vec<Expr> = on.iter().map(named).collect();
    let mut covered = vec![false; on.len()];
    let mut other_before = false;
    let mut leading = 0;
    // The DISTINCT ON expression PostgreSQL points at: the first an ORDER
    // BY item matches after one it does not, else the first no item
    // matches.
    let mut late = None;
    for o in order_by {
        match on_named.iter().position(|e| *e == named(&o.expr)) {
            Some(i) if !other_before => {
                covered[i] = true;
                leading += 1;
            }
            Some(i) if !covered[i] => late = late.or(Some(i)),
            Some(_) => {}
            None => other_before = true,
        }
    }
    if other_before && let Some(i) = late.or_else(|| covered.iter().position(|c| !c)) {
        let at = sqlparser::ast::Spanned::span(&on[i]).start;
        return Err(SqlError::new(
            "42P10",
            "SELECT DISTINCT ON expressions must match initial ORDER BY expressions",
        )
        .near(Some(at)));
    }
    let mut order = order_by.to_vec();
    let missing: Vec<&Expr> = (on.iter().zip(&covered))
        .filter(|(_, c)| !**c)
        .map(|(e, _)| e)
        .collect();
    leading += missing.len();
    // (Appended after an ORDER BY made only of `on`'s expressions.)
    order.extend(missing.into_iter().map(|e| sqlparser::ast::OrderByExpr {
        expr: e.clone(),
        options: sqlparser::ast::OrderByOptions {
            asc: None,
            nulls_first: None,
        },
        with_fill: None,
    }));
    Ok((order, leading))
}

/// Sorts rows by the keys (a stable sort: equal rows keep scan order).
pub fn sort(rows: &mut [Vec<Value>], keys: &[SortKey]) -> Result<(), SqlError> {
    if keys.is_empty() {
        return Ok(());
    }
    let mut failed = None;
    rows.sort_by(|a, b| row_order(keys, a, b, &mut failed));
    match failed {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// How row `a` sorts against row `b` under ORDER BY `keys`: the one
/// owner of the order of rows. A comparison that fails (values no order
/// relates) counts as equal and leaves its error in `failed`.
pub fn row_order(
    keys: &[SortKey],
    a: &[Value],
    b: &[Value],
    failed: &mut Option<SqlError>,
) -> Ordering {
    for key in keys {
        let (x, y) = (&a[key.column], &b[key.column]);
        let order = match (matches!(x, Value::Null), matches!(y, Value::Null)) {
            (true, true) => Ordering::Equal,
            (true, false) if key.nulls_first => Ordering::Less,
            (true, false) => Ordering::Greater,
            (false, true) if key.nulls_first => Ordering::Greater,
            (false, true) => Ordering::Less,
            (false, false) => {
                let order = compare(x, y).unwrap_or_else(|e| {
                    failed.get_or_insert(e);
                    None
                });
                let order = order.unwrap_or(Ordering::Equal);
                if key.descending {
                    order.reverse()
                } else {
                    order
                }
            }
        };
        if order.is_ne() {
            return order;
        }
    }
    Ordering::Equal
}

/// What a result column is: a select item, or the source column a `*`
/// spells out there.
#[derive(Clone, Copy)]
enum ResultColumn<'a> {
    Item(&'a SelectItem),
    Column(usize),
}

/// The result columns' names and bound expressions, which a bare name in
/// ORDER BY reads (`Named::output`).
#[derive(Clone, Copy)]
struct Named<'a> {
    names: &'a [Column],
    bound: &'a [Scalar],
}

impl Named<'_> {
    /// The result column an ORDER BY item names, if it is a bare name
    /// (parenthesized or not) that a result column has: PostgreSQL's
    /// rule, an output column's name before an input column's (README
    /// "ORDER BY and GROUP BY names"). Two result columns of that name
    /// are 42702 `ORDER BY "x" is ambiguous` unless they are the same
    /// expression. `None`: no result column has the name, or the item is
    /// not a bare name (it reads input columns).
    fn output(&self, item: &Expr) -> Result<Option<usize>, SqlError> {
        let id = match item {
            Expr::Identifier(id) => id,
            Expr::Nested(inner) => return self.output(inner),
            _ => return Ok(None),
        };
        let name = names::ident(id);
        let mut matching = (self.names.iter().enumerate())
            .filter(|(_, c)| c.name == name)
            .map(|(i, _)| i);
        let Some(first) = matching.next() else {
            return Ok(None);
        };
        for other in matching {
            if self.bound.get(other) != self.bound.get(first) {
                return Err(
                    SqlError::new("42702", format!("ORDER BY \"{name}\" is ambiguous"))
                        .near(Some(id.span.start)),
                );
            }
        }
        Ok(Some(first))
    }
}

/// The select list one entry per result column, `*` spelled out over a
/// source: what ORDER BY positions count
/// (`SELECT * ... ORDER BY 2`).
fn outputs<'a, C: ColumnNames + ?Sized>(
    columns: &C,
    items: &'a [SelectItem],
) -> Result<Vec<ResultColumn<'a>>, SqlError> {
    let mut out = Vec::with_capacity(items.len());
    for item in items {
        match star_columns(columns, item) {
            Some(star) => out.extend(star?.into_iter().map(ResultColumn::Column)),
            None => out.push(ResultColumn::Item(item)),
        }
    }
    Ok(out)
}

/// An ORDER BY item: an output column's name or position (`ORDER BY
/// 1`), else a column of the table, each naming a table column.
/// `named`: the result columns' names and bound expressions.
fn sort_key<C: Columns + ?Sized>(
    relation: &C,
    items: &[ResultColumn<'_>],
    named: Named<'_>,
    o: &sqlparser::ast::OrderByExpr,
) -> Result<SortKey, SqlError> {
    if o.with_fill.is_some() {
        return Err(SqlError::unsupported("WITH FILL"));
    }
    let by_item = |item: &ResultColumn<'_>| match item {
        ResultColumn::Item(
            SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. },
        ) => Some(Ok(e.clone())),
        ResultColumn::Column(c) => Some(Err(*c)),
        ResultColumn::Item(_) => None,
    };
    // An expression to bind, or the source column a `*` put there.
    let expr = match &o.expr {
        Expr::Value(v) => match &v.value {
            sqlparser::ast::Value::Number(n, _) => {
                let position: usize = n.parse().unwrap_or(0);
                items
                    .get(position.wrapping_sub(1))
                    .and_then(by_item)
                    .ok_or_else(|| {
                        SqlError::new(
                            "42P10",
                            format!("ORDER BY position {n} is not in select list"),
                        )
                    })?
            }
            _ => Ok(o.expr.clone()),
        },
        other => match named.output(other)? {
            Some(position) => items
                .get(position)
                .and_then(by_item)
                .unwrap_or_else(|| Ok(other.clone())),
            None => Ok(other.clone()),
        },
    };
    let bound = match expr {
        Ok(expr) => scalar::bind(&expr, relation)?,
        Err(column) => Scalar::Column(column),
    };
    let Scalar::Column(column) = bound else {
        return Err(SqlError::unsupported(format!(
            "ORDER BY {} (only columns)",
            o.expr
        )));
    };
    crate::geometry_functions::check_ordering(bound.ty_in(relation))?;
    Ok(SortKey::of(column, &o.options))
}

/// 42601 unless `FETCH ... WITH TIES` has an ORDER BY (`order_by`) and
/// no `SKIP LOCKED` (`wait`: the locking clause's), as PostgreSQL.
fn ties_allowed(
    order_by: &[sqlparser::ast::OrderByExpr],
    wait: Option<WaitPolicy>,
) -> Result<(), SqlError> {
    if order_by.is_empty() {
        return Err(SqlError::syntax(
            "WITH TIES cannot be specified without ORDER BY clause",
        ));
    }
    if wait == Some(WaitPolicy::SkipLocked) {
        return Err(SqlError::syntax(
            "SKIP LOCKED and WITH TIES options cannot be used together",
        ));
    }
    Ok(())
}

/// Refuses the clauses not supported yet.
fn check_plain(select: &Select) -> Result<(), SqlError> {
    if select.into.is_some() {
        return Err(SqlError::unsupported("SELECT INTO"));
    }
    match &select.group_by {
        GroupByExpr::Expressions(_, modifiers) if modifiers.is_empty() => Ok(()),
        other => Err(SqlError::unsupported(format!("{other}"))),
    }
}

/// The GROUP BY expressions.
pub(crate) fn group_keys(select: &Select) -> &[Expr] {
    match &select.group_by {
        GroupByExpr::Expressions(keys, _) => keys,
        GroupByExpr::All(_) => &[],
    }
}

/// The GROUP BY keys and grouping sets (`grouping_sets.rs`), a number
/// `n` standing for the select list's `n`th expression (as PostgreSQL
/// reads `GROUP BY 1, 2`), else 42P10; a name that is no column of
/// `source` but a select item's alias standing for its expression (as
/// PostgreSQL reads `SELECT a + 1 AS k ... GROUP BY k`: an input column
/// wins over an output name).
fn group_by<C: Columns + ?Sized>(
    select: &Select,
    source: &C,
) -> Result<crate::grouping_sets::Expanded, SqlError> {
    crate::grouping_sets::expand(group_keys(select), |key| {
        if let Expr::Identifier(id) = key
            && source.resolve(&names::ident(id)).is_err()
        {
            let name = names::ident(id);
            let mut aliased = select.projection.iter().filter_map(|item| match item {
                SelectItem::ExprWithAlias { expr, alias } if names::ident(alias) == name => {
                    Some(expr)
                }
                _ => None,
            });
            if let Some(e) = aliased.next() {
                if aliased.any(|other| other != e) {
                    return Err(SqlError::new(
                        "42702",
                        format!("GROUP BY \"{name}\" is ambiguous"),
                    )
                    .near(Some(id.span.start)));
                }
                return Ok(e.clone());
            }
        }
        let Expr::Value(v) = key else {
            return Ok(key.clone());
        };
        let sqlparser::ast::Value::Number(text, _) = &v.value else {
            return Ok(key.clone());
        };
        let item = text
            .parse::<usize>()
            .ok()
            .and_then(|n| n.checked_sub(1))
            .and_then(|n| select.projection.get(n));
        match item {
            Some(SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. }) => {
                Ok(e.clone())
            }
            _ => Err(SqlError::new(
                "42P10",
                format!("GROUP BY position {text} is not in select list"),
            )),
        }
    })
}

/// Whether the query aggregates: GROUP BY, HAVING, or an aggregate call
/// (or a `GROUPING(...)`, then refused for want of keys) in the select
/// list.
pub(crate) fn is_grouped(select: &Select) -> bool {
    !group_keys(select).is_empty()
        || select.having.is_some()
        || select.projection.iter().any(|item| match item {
            SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. } => {
                aggregate::contains_aggregate(e)
                    || aggregate::contains_call(e, aggregate::is_grouping)
            }
            _ => false,
        })
}

/// The select list, grouping, window calls and ORDER BY over a source of
/// `width` columns:
/// the shape, the result columns, the ORDER BY over the source's rows
/// (for the plan: empty when the query aggregates, whose ORDER BY sorts
/// aggregate rows, or has window calls, whose ORDER BY sorts the result
/// rows after them), the ORDER BY over the result rows, and the windows.
/// With `over_results` the ORDER BY is always over the result rows
/// (DISTINCT ON reads its keys there). `lifted`: the aggregate calls the
/// query computes for its subqueries (`outer_aggregates.rs`), which group
/// it.
#[allow(clippy::type_complexity)]
fn shape<C: Columns + ColumnNames + ?Sized>(
    source: &C,
    width: usize,
    select: &Select,
    order_by: &[sqlparser::ast::OrderByExpr],
    over_results: bool,
    lifted: &[Expr],
) -> Result<(Shape, Vec<Column>, Vec<SortKey>, Vec<SortKey>, Windows), SqlError> {
    window::check_definitions(&select.named_window)?;
    let windowed = select.projection.iter().any(|item| match item {
        SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. } => {
            window::contains_window(e)
        }
        _ => false,
    }) || order_by.iter().any(|o| window::contains_window(&o.expr));
    if !is_grouped(select) && lifted.is_empty() {
        if windowed {
            let binder = WindowBinder::new(source, &select.named_window);
            let (mut items, columns) = projection(&binder, &select.projection)?;
            let outputs = outputs(&binder, &select.projection)?;
            let post = post_sort_keys(&binder, &outputs, &columns, order_by, &mut items)?;
            let windows = binder.finish();
            Windows::place(&mut items, width);
            return Ok((Shape::Project(items), columns, Vec::new(), post, windows));
        }
        let (mut items, columns) = projection(source, &select.projection)?;
        let outputs = outputs(source, &select.projection)?;
        let named = Named {
            names: &columns,
            bound: &items,
        };
        let order = match over_results {
            true => Err(SqlError::unsupported("an ORDER BY over the result rows")),
            false => (order_by.iter())
                .map(|o| sort_key(source, &outputs, named, o))
                .collect::<Result<Vec<_>, _>>(),
        };
        return match order {
            Ok(order) => Ok((
                Shape::Project(items),
                columns,
                order,
                Vec::new(),
                Windows::default(),
            )),
            Err(e) if e.code == "0A000" => {
                let post = post_sort_keys(source, &outputs, &columns, order_by, &mut items)?;
                Ok((
                    Shape::Project(items),
                    columns,
                    Vec::new(),
                    post,
                    Windows::default(),
                ))
            }
            Err(e) => Err(e),
        };
    }
    if select.projection.iter().any(|i| {
        matches!(
            i,
            SelectItem::Wildcard(_) | SelectItem::QualifiedWildcard(..)
        )
    }) {
        return Err(SqlError::unsupported("* in an aggregate query"));
    }
    let expanded = group_by(select, source)?;
    for key in &expanded.keys {
        if let Ok(bound) = scalar::bind(key, source) {
            crate::geometry_functions::check_equality(bound.ty_in(source))?;
        }
    }
    let mut binder = Binder::new(source, &expanded.keys)?;
    binder.lift(lifted)?;
    let having = match &select.having {
        Some(h) => {
            let bound = scalar::bind(h, &binder)?;
            scalar::require_bool(&bound, &binder, "HAVING", h)?;
            Some(bound)
        }
        None => None,
    };
    let (output, columns, order, post, windows) = if windowed {
        let over = WindowBinder::new(&binder, &select.named_window);
        let (mut output, columns) = projection(&over, &select.projection)?;
        let outputs = outputs(&over, &select.projection)?;
        let post = post_sort_keys(&over, &outputs, &columns, order_by, &mut output)?;
        (output, columns, Vec::new(), post, over.finish())
    } else {
        let (mut output, columns) = projection(&binder, &select.projection)?;
        // No `*` here (refused above).
        let outputs = outputs(&binder, &select.projection)?;
        let named = Named {
            names: &columns,
            bound: &output,
        };
        let order = match over_results {
            true => Err(SqlError::unsupported("an ORDER BY over the result rows")),
            false => (order_by.iter())
                .map(|o| sort_key(&binder, &outputs, named, o))
                .collect::<Result<Vec<_>, _>>(),
        };
        let (order, post) = match order {
            Ok(order) => (order, Vec::new()),
            Err(e) if e.code == "0A000" => (
                Vec::new(),
                post_sort_keys(&binder, &outputs, &columns, order_by, &mut output)?,
            ),
            Err(e) => return Err(e),
        };
        (output, columns, order, post, Windows::default())
    };
    let grouping = binder.finish(having, expanded.sets)?;
    let mut output = output;
    Windows::place(&mut output, grouping.keys.len() + grouping.calls.len());
    Ok((
        Shape::Aggregate {
            grouping,
            output,
            order,
        },
        columns,
        Vec::new(),
        post,
        windows,
    ))
}

/// ORDER BY keys over the result rows: a position or an output name
/// names a result column; another expression is the same result column
/// when the select list has it, else an extra column added to `items`
/// (dropped after the sort).
fn post_sort_keys<C: Columns + ?Sized>(
    columns: &C,
    select_items: &[ResultColumn<'_>],
    names: &[Column],
    order_by: &[sqlparser::ast::OrderByExpr],
    items: &mut Vec<Scalar>,
) -> Result<Vec<SortKey>, SqlError> {
    fn item_expr<'a>(i: &ResultColumn<'a>) -> Option<&'a Expr> {
        match i {
            ResultColumn::Item(
                SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. },
            ) => Some(e),
            _ => None,
        }
    }
    let mut keys = Vec::with_capacity(order_by.len());
    for o in order_by {
        let position = match &o.expr {
            Expr::Value(v) => match &v.value {
                sqlparser::ast::Value::Number(n, _) => {
                    let p = n
                        .parse::<usize>()
                        .ok()
                        .filter(|p| (1..=select_items.len()).contains(p));
                    Some(p.map(|p| p - 1).ok_or_else(|| {
                        SqlError::new(
                            "42P10",
                            format!("ORDER BY position {n} is not in select list"),
                        )
                    })?)
                }
                _ => None,
            },
            other => (Named {
                names,
                bound: &items[..names.len().min(items.len())],
            })
            .output(other)?,
        };
        let position = position.or_else(|| {
            select_items
                .iter()
                .position(|i| item_expr(i) == Some(&o.expr))
        });
        let column = match position {
            Some(p) => p,
            None => {
                items.push(scalar::bind(&o.expr, columns)?);
                items.len() - 1
            }
        };
        crate::geometry_functions::check_ordering(items[column].ty_in(columns))?;
        keys.push(SortKey::of(column, &o.options));
    }
    Ok(keys)
}

/// The select list over `columns`: expressions and `*`; the result
/// columns (an expression without alias is named after its column or
/// function, else `?column?`, as PostgreSQL names it).
pub fn projection<C: Columns + ColumnNames + ?Sized>(
    columns: &C,
    items: &[SelectItem],
) -> Result<(Vec<Scalar>, Vec<Column>), SqlError> {
    let mut bound = Vec::new();
    let mut out = Vec::new();
    let names = columns.names();
    for item in items {
        if let Some(range) = star_columns(columns, item) {
            for c in range? {
                bound.push(Scalar::Column(c));
                out.push(Column {
                    name: names[c].clone(),
                    type_oid: columns.type_at(c).oid(),
                });
            }
            continue;
        }
        let (expr, alias) = match item {
            SelectItem::UnnamedExpr(expr) => (expr, None),
            SelectItem::ExprWithAlias { expr, alias } => (expr, Some(names::ident(alias))),
            other => return Err(SqlError::unsupported(format!("the select item {other}"))),
        };
        let scalar = scalar::bind(expr, columns)?;
        let ty = scalar.ty_in(columns);
        let name = alias.unwrap_or_else(|| column_name(expr));
        out.push(Column {
            name,
            type_oid: ty.oid(),
        });
        bound.push(scalar);
    }
    Ok((bound, out))
}

/// Gives each unaliased select item that holds a subquery the name
/// [`column_name`] finds for it now, before the subquery becomes a marker
/// (`subquery::extract_select`) that no longer knows its column's name.
pub(crate) fn name_subquery_items(items: &mut [SelectItem]) {
    for item in items {
        let SelectItem::UnnamedExpr(expr) = item else {
            continue;
        };
        let holds_subquery = sqlparser::ast::visit_expressions(&*expr, |e| match e {
            Expr::Subquery(_) => ControlFlow::Break(()),
            _ => ControlFlow::Continue(()),
        })
        .is_break();
        if holds_subquery {
            let alias = sqlparser::ast::Ident::with_quote('"', column_name(expr));
            *item = SelectItem::ExprWithAlias {
                expr: expr.clone(),
                alias,
            };
        }
    }
}

/// Whether [`column_name`] names `expr` by something of its own (a
/// column, a function, `array`, ...) rather than by a type or `case`, or
/// not at all: PostgreSQL's `FigureColname` strength 2.
fn names_itself(expr: &Expr) -> bool {
    match expr {
        Expr::Case { else_result, .. } => else_result.as_deref().is_some_and(names_itself),
        Expr::Interval(_) | Expr::TypedString(_) => false,
        Expr::Nested(inner)
        | Expr::Cast { expr: inner, .. }
        | Expr::Collate { expr: inner, .. } => names_itself(inner),
        _ => column_name(expr) != "?column?",
    }
}

/// `expr` without the parentheses around it.
fn unnested(mut expr: &Expr) -> &Expr {
    while let Expr::Nested(inner) = expr {
        expr = inner;
    }
    expr
}

/// Whether `e` is named only by a type (PostgreSQL's weak name, which a
/// cast of it replaces): a typed literal, an interval, or a cast of
/// something so named or unnamed (`'1'::int`, but not `a::regclass`).
fn named_by_type(e: &Expr) -> bool {
    match unnested(e) {
        Expr::TypedString(_) | Expr::Interval(_) => true,
        Expr::Cast { expr, .. } => column_name(expr) == "?column?" || named_by_type(expr),
        _ => false,
    }
}

/// The name of an unaliased result column, as PostgreSQL's
/// `FigureColname` makes it: a column's or function's name, `case`,
/// `exists`, `array`, `timezone` (`AT TIME ZONE`), the function an SQL
/// syntax calls (`substring`, `btrim`, ...), a cast's operand's name or else its type's, a
/// subscript's array's name, `?column?`.
pub(crate) fn column_name(expr: &Expr) -> String {
    const UNNAMED: &str = "?column?";
    match expr {
        Expr::Identifier(id) => names::ident(id),
        Expr::CompoundIdentifier(parts) => parts.last().map(names::ident).unwrap_or_default(),
        Expr::Function(f) => f
            .name
            .0
            .last()
            .map(|p| p.to_string().to_lowercase())
            .unwrap_or_default(),
        Expr::Extract { .. } => "extract".into(),
        // The SQL-syntax calls: PostgreSQL's functions' names.
        Expr::Ceil { .. } => "ceil".into(),
        Expr::Floor { .. } => "floor".into(),
        Expr::Position { .. } => "position".into(),
        Expr::Substring { shorthand, .. } => if *shorthand { "substr" } else { "substring" }.into(),
        Expr::Overlay { .. } => "overlay".into(),
        Expr::Trim { trim_where, .. } => match trim_where {
            Some(sqlparser::ast::TrimWhereField::Leading) => "ltrim",
            Some(sqlparser::ast::TrimWhereField::Trailing) => "rtrim",
            _ => "btrim",
        }
        .into(),
        // `ts AT TIME ZONE z`: PostgreSQL's call of `timezone(z, ts)`.
        Expr::AtTimeZone { .. } => "timezone".into(),
        // `(a, b) OVERLAPS (c, d)`: PostgreSQL's call of `overlaps(...)`.
        Expr::BinaryOp {
            op: sqlparser::ast::BinaryOperator::Overlaps,
            ..
        } => "overlaps".into(),
        // A CASE is named by its ELSE result when that has a name of its
        // own (PostgreSQL: `ELSE f(x)` names the column `f`), else `case`.
        Expr::Case { else_result, .. } => match else_result.as_deref() {
            Some(e) if names_itself(e) => column_name(e),
            _ => "case".into(),
        },
        // `e COLLATE c`: as `e` (PostgreSQL's CollateClause).
        Expr::Nested(inner) | Expr::Collate { expr: inner, .. } => column_name(inner),
        Expr::Value(v) => match &v.value {
            sqlparser::ast::Value::Placeholder(p) if p.starts_with(scalar::EXISTS_MARK) => {
                "exists".into()
            }
            sqlparser::ast::Value::Placeholder(p) if p.starts_with(scalar::ARRAY_MARK) => {
                "array".into()
            }
            _ => UNNAMED.into(),
        },
        Expr::Array(_) => "array".into(),
        // `(a, b)`: a row constructor, as `ROW(a, b)`.
        Expr::Tuple(_) => "row".into(),
        // `(r).field`, `(r).f1.f2`: the last field's name.
        Expr::CompoundFieldAccess { access_chain, .. }
            if matches!(
                access_chain.last(),
                Some(sqlparser::ast::AccessExpr::Dot(Expr::Identifier(_)))
            ) =>
        {
            match access_chain.last() {
                Some(sqlparser::ast::AccessExpr::Dot(Expr::Identifier(id))) => names::ident(id),
                _ => UNNAMED.into(),
            }
        }
        // `a[i]`: the array's name.
        Expr::CompoundFieldAccess { root, .. } => column_name(root),
        // A cast names its column by its inner expression's name, unless
        // that is only a type's (PostgreSQL: `'1'::int::text` and
        // `('1'::int)::text` are `text`).
        Expr::Cast {
            expr, data_type, ..
        } => match column_name(expr) {
            name if name != UNNAMED && !named_by_type(expr) => name,
            _ => match crate::reg_types::kind_of(data_type) {
                Some(reg) => reg.name().into(),
                // A domain names it, not its base type.
                None if let Some(d) = crate::domains::of_type(data_type) => d.name.clone(),
                // `x::d[]` of a domain `d` too.
                None if let Some(d) = crate::domains::of_array_type(data_type) => d.name.clone(),
                // `x::text[]` is named by the type written, `text`.
                None => crate::types::column_type(data_type).map_or_else(
                    |_| UNNAMED.into(),
                    |ty| match (data_type, ty.element()) {
                        (sqlparser::ast::DataType::Array(_), Some(element)) => {
                            crate::types::typname(element).into()
                        }
                        _ => crate::types::typname(ty).into(),
                    },
                ),
            },
        },
        Expr::Interval(_) => "interval".into(),
        Expr::TypedString(typed) => crate::types::column_type(&typed.data_type)
            .map_or_else(|_| UNNAMED.into(), |ty| crate::types::typname(ty).into()),
        // A scalar subquery: the name of its one column (of its first
        // SELECT, for a set operation; a VALUES list's is `column1`).
        Expr::Subquery(query) => {
            let mut body = &*query.body;
            loop {
                match body {
                    SetExpr::Query(inner) => body = &inner.body,
                    SetExpr::SetOperation { left, .. } => body = left,
                    _ => break,
                }
            }
            match body {
                SetExpr::Select(select) => match select.projection.first() {
                    Some(SelectItem::ExprWithAlias { alias, .. }) => names::ident(alias),
                    Some(SelectItem::UnnamedExpr(expr)) => column_name(expr),
                    _ => UNNAMED.into(),
                },
                SetExpr::Values(_) => "column1".into(),
                _ => UNNAMED.into(),
            }
        }
        _ => UNNAMED.into(),
    }
}

/// The names of a source's columns, in order.
pub trait ColumnNames {
    fn names(&self) -> Vec<String>;
    /// The positions `*` stands for; by default every column in order.
    fn star(&self) -> Vec<usize> {
        (0..self.names().len()).collect()
    }
    /// The positions of the columns of the FROM item called `qualifier`
    /// (`t.*`); by default every column, of the one table there is.
    fn qualified_columns(&self, qualifier: &str) -> Result<Range<usize>, SqlError> {
        let _ = qualifier;
        Ok(0..self.names().len())
    }
    /// Records that the query reads the column at `position` (a star's
    /// columns: column privileges, `from::Scope::record`); by default
    /// nothing.
    fn record(&self, position: usize) {
        let _ = position;
    }
}

impl ColumnNames for Relation {
    fn names(&self) -> Vec<String> {
        self.def.columns.iter().map(|c| c.name.clone()).collect()
    }
}

impl<C: Columns + ColumnNames + ?Sized> ColumnNames for Binder<'_, C> {
    fn names(&self) -> Vec<String> {
        Vec::new()
    }
}

impl ColumnNames for Scope {
    fn names(&self) -> Vec<String> {
        Scope::names(self)
    }

    fn star(&self) -> Vec<usize> {
        Scope::star(self)
    }

    fn record(&self, position: usize) {
        Scope::record(self, position)
    }

    fn qualified_columns(&self, qualifier: &str) -> Result<Range<usize>, SqlError> {
        self.tables
            .iter()
            .find(|t| t.qualifier == qualifier)
            // (Its system columns, when named, are no part of `t.*`.)
            .map(|t| t.visible())
            .ok_or_else(|| {
                SqlError::new(
                    "42P01",
                    format!("missing FROM-clause entry for table \"{qualifier}\""),
                )
            })
    }
}

/// The source columns a `*` or `t.*` select item stands for, or `None` for
/// another item: the one owner of what a star expands to.
pub(crate) fn star_columns<C: ColumnNames + ?Sized>(
    columns: &C,
    item: &SelectItem,
) -> Option<Result<Vec<usize>, SqlError>> {
    let star: Result<Vec<usize>, SqlError> = match item {
        SelectItem::Wildcard(_) => Ok(columns.star()),
        SelectItem::QualifiedWildcard(SelectItemQualifiedWildcardKind::ObjectName(name), _) => {
            names::relation(name).and_then(|q| Ok(columns.qualified_columns(&q)?.collect()))
        }
        _ => return None,
    };
    if let Ok(star) = &star {
        star.iter().for_each(|&c| columns.record(c));
    }
    Some(star)
}

impl ColumnNames for [(String, SqlType)] {
    fn names(&self) -> Vec<String> {
        self.iter().map(|(n, _)| n.clone()).collect()
    }
}

/// A query of `body` alone: no WITH, ORDER BY, LIMIT or locking clause
/// (what a rewrite wraps in a derived table or plans by itself).
pub(crate) fn bare_query(body: sqlparser::ast::SetExpr) -> sqlparser::ast::Query {
    sqlparser::ast::Query {
        with: None,
        body: Box::new(body),
        order_by: None,
        limit_clause: None,
        fetch: None,
        locks: Vec::new(),
        for_clause: None,
        settings: None,
        format_clause: None,
        pipe_operators: Vec::new(),
    }
}

/// The clause of `select` that keeps a locking clause (`FOR UPDATE`, ...)
/// from naming its rows' table rows, in PostgreSQL's order of checks
/// (aggregates and windows are found once planned).
fn unlockable(select: &sqlparser::ast::Select) -> Option<&'static str> {
    if select.distinct.is_some() {
        return Some("DISTINCT clause");
    }
    let grouped = match &select.group_by {
        sqlparser::ast::GroupByExpr::All(_) => true,
        sqlparser::ast::GroupByExpr::Expressions(exprs, _) => !exprs.is_empty(),
    };
    if grouped {
        return Some("GROUP BY clause");
    }
    select.having.is_some().then_some("HAVING clause")
}
