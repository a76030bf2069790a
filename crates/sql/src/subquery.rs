//! Subqueries in expressions: `(SELECT ...)`, `EXISTS (...)`, `e IN
//! (SELECT ...)` in a SELECT's list, WHERE and HAVING.
//!
//! Each is replaced by a marker (`scalar.rs`: `$subquery:N:OID`,
//! `$exists:N`, `$in:N`) and planned on its own into a [`Subplan`].
//!
//! - **Uncorrelated** subqueries run once per execution, before the outer
//!   query's rows (`Env::subqueries`).
//! - **Correlated** ones name columns of the outer query's FROM. Those
//!   names (the ones that do not resolve in the subquery's own FROM but
//!   do in the outer one; an inner name shadows an outer one, as in SQL)
//!   become `$outer:K:OID` markers, bound as [`Scalar::Outer`], wherever
//!   the subquery has them: its select list, FROM (function arguments,
//!   derived tables, join conditions), WHERE, GROUP BY, HAVING, ORDER BY
//!   (save a bare name of its own output column) and LIMIT/OFFSET (a
//!   count evaluated per run, `counts.rs`). The plan
//!   records which outer column each `K` is. The subquery then runs once
//!   per outer row, with those values (`Env::outer`), through the
//!   [`Runner`] the outer query's run lends its expressions. It is the
//!   same plan each time, so an outer value compared with an indexed
//!   column is an index probe, as a parameter is.
//!
//! A correlated subquery is evaluated where the outer query holds whole
//! rows of its FROM: its WHERE conjuncts that read one stay out of the
//! scans and joins (`outer_conjuncts`) and run after them; the select
//! list of a query without aggregates. In the select list or HAVING of an
//! aggregate query it runs once per group, over the aggregate row: each
//! outer column it reads must be a group key, whose place in that row it
//! reads instead ([`over_groups`]; else 42803, as PostgreSQL's `subquery
//! uses ungrouped column`).
//!
//! A subquery that is a set operation (`select o.x union all select 5`)
//! is read as the derived table it is under `SELECT *`; inside any
//! query, a set operation's arms are queries of their own, each with its
//! FROM (`arms_as_queries`), and its ORDER BY names its output only.
//!
//! A name two or more queries out (`where x = (select ... where exists
//! (select ... where u.y > t1.x))`, `t1` the outermost query's) is made
//! a marker when the query that has it plans its subquery: the rewrite
//! looks into the queries nested in the subquery too, past the names
//! their own FROM items have. Each marker in a query's text numbers one
//! of that query's outer values; when a subquery holding such markers
//! becomes correlated itself, they are renumbered as its own, each read
//! from the holding query's ([`OuterValue::Enclosing`]); an uncorrelated
//! one runs with the holding query's outer values as they are.
//!
//! In an UPDATE or DELETE the correlated subqueries run the same way,
//! once per row the change finds, with the transaction the change lends
//! between its writes ([`Runner::as_of`]; `dml.rs`).

use crate::context::Ctx;
use crate::error::SqlError;
use crate::from::{self, Scope};
use crate::hashed_subplan::{self, Hashed, Sublink};
use crate::names;
use crate::query::{Planned, plan_query, run};
use crate::scalar::{
    self, ARRAY_MARK, Columns, Correlated, EXISTS_MARK, Env, IN_MARK, OUTER_MARK, SUBQUERY_MARK,
    Scalar,
};
use crate::sublink_gates;
use folio_db::{Command, Transaction};
use folio_row::Value;
use sqlparser::ast::{
    BinaryOperator, Expr, FunctionArguments, Ident, Query, Select, SelectItem, SetExpr,
    TableFactor, UnaryOperator, Visit, VisitMut, Visitor, VisitorMut,
};
use std::cell::{Cell, OnceCell, RefCell};
use std::ops::ControlFlow::{self, Break, Continue};

/// A subquery's plan and the outer values it reads.
pub struct Subplan {
    pub plan: Planned,
    /// Where each [`Scalar::Outer`] `K` comes from; empty for an
    /// uncorrelated subquery.
    pub outer: Vec<OuterValue>,
    /// In the select list or HAVING of an aggregate query: its outer row
    /// is the aggregate row ([`over_groups`] maps `outer` into it).
    pub over_groups: bool,
    /// A correlated EXISTS or IN subquery that may run once, hashed
    /// (`hashed_subplan.rs`), where the [`Runner`] allows it.
    pub hashed: Option<Hashed>,
    /// Not a sublink but a CTE computed once (`cte.rs`): the table its
    /// rows fill for the FROM items that read it.
    pub fills: Option<crate::recursive::WorkTable>,
}

/// Where a correlated subquery's outer value comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OuterValue {
    /// A column of the row of the query that holds the subquery.
    Column(usize),
    /// That query's own outer value `K`: a name two or more queries out
    /// (the holding query is itself a correlated subquery of the query
    /// that has the name).
    Enclosing(usize),
    /// The holding query's aggregate call `J`, taken out of the subquery
    /// (`outer_aggregates.rs`): a column of its aggregate row, which
    /// [`over_groups`] makes it.
    Aggregate(usize),
}

impl Subplan {
    /// The CTE planned as `plan`, computed once per run of the query
    /// level that defines it into `table`.
    pub fn filling(plan: Planned, table: crate::recursive::WorkTable) -> Subplan {
        Subplan {
            plan,
            outer: Vec::new(),
            over_groups: false,
            hashed: None,
            fills: Some(table),
        }
    }

    pub fn is_correlated(&self) -> bool {
        !self.outer.is_empty()
    }

    /// The columns of the holding query's row it reads.
    pub fn outer_columns(&self) -> impl Iterator<Item = usize> + '_ {
        columns_of(&self.outer)
    }
}

/// Runs what a query level runs once per execution before its rows: the
/// CTEs it computes once, in order, each filling its table (a later one
/// may read an earlier one's rows), then its uncorrelated subqueries.
/// The results by subplan, for `Env::subqueries` (empty for a CTE and a
/// correlated subquery).
pub fn run_uncorrelated(
    txn: &mut Transaction,
    subplans: &[Subplan],
    env: &Env<'_>,
) -> Result<Vec<Vec<Vec<Value>>>, SqlError> {
    for s in subplans {
        if let Some(table) = &s.fills {
            table.set(run(txn, &s.plan, env)?.0);
        }
    }
    (subplans.iter())
        .map(|s| match s.is_correlated() || s.fills.is_some() {
            true => Ok(Vec::new()),
            false => Ok(run(txn, &s.plan, env)?.0),
        })
        .collect()
}

/// The columns of the holding query's row among `outer`.
pub fn columns_of(outer: &[OuterValue]) -> impl Iterator<Item = usize> + '_ {
    outer.iter().filter_map(|o| match o {
        OuterValue::Column(c) => Some(*c),
        OuterValue::Enclosing(_) | OuterValue::Aggregate(_) => None,
    })
}

/// The values of `outer` for the holding query's `row`, run in `env`
/// (whose own outer values the [`OuterValue::Enclosing`] ones read).
pub fn outer_values(outer: &[OuterValue], row: &[Value], env: &Env<'_>) -> Vec<Value> {
    (outer.iter())
        .map(|o| match o {
            OuterValue::Column(c) => row.get(*c),
            OuterValue::Enclosing(k) => env.outer.get(*k),
            // (Made a column by `over_groups` when planned.)
            OuterValue::Aggregate(_) => None,
        })
        .map(|v| v.cloned().unwrap_or(Value::Null))
        .collect()
}

/// Replaces each subquery in `select`'s list, WHERE and HAVING by a
/// marker and plans it; `scope`: the select's FROM, which a correlated
/// subquery reads. In a query with aggregates (`grouped`), those of the
/// list and HAVING read the aggregate row ([`Subplan::over_groups`]).
/// Numbered from `first`.
pub fn extract_select(
    cx: &Ctx<'_>,
    txn: &Transaction,
    select: &mut Select,
    scope: &Scope,
    grouped: bool,
    first: usize,
) -> Result<Vec<Subplan>, SqlError> {
    let mut late: Vec<&mut Expr> = select
        .projection
        .iter_mut()
        .filter_map(|item| match item {
            SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. } => Some(e),
            _ => None,
        })
        .collect();
    late.extend(select.having.as_mut());
    let mut plans = extract(cx, txn, late, scope, first)?;
    for plan in &mut plans {
        plan.over_groups = grouped;
    }
    let next = first + plans.len();
    plans.extend(extract(
        cx,
        txn,
        select.selection.as_mut().into_iter().collect(),
        scope,
        next,
    )?);
    Ok(plans)
}

/// Replaces each subquery in `exprs` by a marker and plans it, numbering
/// them from `first`; `scope`: the row the expressions read, which a
/// correlated subquery reads too.
pub fn extract(
    cx: &Ctx<'_>,
    txn: &Transaction,
    exprs: Vec<&mut Expr>,
    scope: &Scope,
    first: usize,
) -> Result<Vec<Subplan>, SqlError> {
    let mut extract = Extract {
        cx,
        txn,
        scope,
        first,
        plans: Vec::new(),
        error: None,
    };
    for e in exprs {
        if e.visit(&mut extract).is_break() {
            break;
        }
    }
    match extract.error {
        Some(e) => Err(e),
        None => Ok(extract.plans),
    }
}

struct Extract<'a, 'b> {
    cx: &'a Ctx<'b>,
    txn: &'a Transaction,
    scope: &'a Scope,
    /// The number of the first subquery found.
    first: usize,
    plans: Vec<Subplan>,
    error: Option<SqlError>,
}

impl Extract<'_, '_> {
    /// Plans `q` (used as `sublink`, if one that may be hashed); its
    /// number, or `None` after an error.
    fn plan(
        &mut self,
        q: &Query,
        one_column: Option<&str>,
        sublink: Option<Sublink>,
    ) -> Option<usize> {
        let sub = match plan_sublink(self.cx, self.txn, q, self.scope, sublink) {
            Ok(sub) => sub,
            Err(e) => {
                self.error = Some(e);
                return None;
            }
        };
        if let Some(message) = one_column
            && sub.plan.columns.len() != 1
        {
            self.error = Some(SqlError::syntax(message));
            return None;
        }
        self.plans.push(sub);
        Some(self.first + self.plans.len() - 1)
    }
}

/// Plans subquery `q` of a query whose row is `scope`: on its own, or,
/// when it names columns it does not have (42703, 42P01), as a correlated
/// subquery reading them from `scope`'s row. Also a LATERAL subquery in
/// FROM (`from.rs`), whose `scope` is the FROM items before it.
pub fn plan_subquery(
    cx: &Ctx<'_>,
    txn: &Transaction,
    q: &Query,
    scope: &Scope,
) -> Result<Subplan, SqlError> {
    plan_sublink(cx, txn, q, scope, None)
}

/// [`plan_subquery`] of a subquery used as `sublink`: a correlated one
/// also gets its hashed form if it qualifies (`hashed_subplan::plan`).
fn plan_sublink(
    cx: &Ctx<'_>,
    txn: &Transaction,
    q: &Query,
    scope: &Scope,
    sublink: Option<Sublink>,
) -> Result<Subplan, SqlError> {
    // One that holds a call of the outer query reads it as an outer value.
    if crate::outer_aggregates::has_marker(q) {
        return correlated(cx, txn, q, scope, sublink)?.ok_or_else(|| {
            SqlError::unsupported(
                "an outer query's aggregate in a subquery's HAVING, ORDER BY or set operation",
            )
        });
    }
    match plan_query(cx, txn, q) {
        Ok(plan) => Ok(Subplan {
            plan,
            outer: Vec::new(),
            over_groups: false,
            hashed: None,
            fills: None,
        }),
        Err(e) if matches!(e.code, "42703" | "42P01") => {
            correlated(cx, txn, q, scope, sublink).and_then(|found| found.ok_or(e))
        }
        Err(e) => Err(e),
    }
}

/// `q` planned with its references to the outer scope as outer values,
/// or `None` if it has none. A name in a query nested in `q` that neither
/// that query's FROM items nor `q`'s have, but `scope` has, is one too
/// (read two or more queries out: that query reads it through `q`'s outer
/// values, [`OuterValue::Enclosing`]).
fn correlated(
    cx: &Ctx<'_>,
    txn: &Transaction,
    q: &Query,
    scope: &Scope,
    sublink: Option<Sublink>,
) -> Result<Option<Subplan>, SqlError> {
    // (A CTE's query is found in the body where it is named; the items
    // of a VALUES list with a WITH, as a derived table's. A LATERAL
    // `(VALUES (outer.x))` stays refused: run per row of a join it can
    // be far slower than PostgreSQL's plan for it: join.sql's `tenk1 a,
    // tenk1 b join lateral (values(a.unique1)) ss(x) on b.unique2 = ss.x`
    // would join 10^8 pairs where PostgreSQL hashes.)
    crate::outer_aggregates::refuse_unlifted(cx, txn, q, scope)?;
    let with = q.with.is_some();
    let mut q = crate::cte::inlined_whole(q)?;
    if with && matches!(q.body.as_ref(), SetExpr::Values(_)) {
        let mut wrapped = crate::parse::query("SELECT * FROM (SELECT 1) AS \"*VALUES*\"")?;
        if let SetExpr::Select(select) = wrapped.body.as_mut()
            && let TableFactor::Derived { subquery, .. } = &mut select.from[0].relation
        {
            **subquery = q;
        }
        q = wrapped;
    }
    // A set operation (`select o.x union all select 5`) is read as the
    // derived table it is under `SELECT *`: its arms see the outer query
    // as a derived table's query does.
    if matches!(q.body.as_ref(), SetExpr::SetOperation { .. }) {
        let mut wrapped = crate::parse::query("SELECT * FROM (SELECT 1) AS \"*SELECT*\"")?;
        if let SetExpr::Select(select) = wrapped.body.as_mut()
            && let TableFactor::Derived { subquery, .. } = &mut select.from[0].relation
        {
            **subquery = q;
        }
        q = wrapped;
    }
    // The markers already in `q` are the outer values of the query that
    // holds it (it is a correlated subquery itself): `q` reads them
    // through its own.
    let mut enclosing = Renumber::default();
    let _ = VisitMut::visit(&mut q, &mut enclosing);
    let SetExpr::Select(select) = q.body.as_mut() else {
        return Ok(None);
    };
    // A function's arguments in FROM (`generate_series(0, o.n)`,
    // `unnest(o.tags)`) and a derived table's query see no FROM item of
    // `q`: each column they name and do not have is the outer query's.
    let none = Scope::default();
    let mut in_from = OuterRefs {
        cx,
        txn,
        inner: &none,
        outer: scope,
        columns: enclosing.columns,
        nested: Vec::new(),
        set_aside: Vec::new(),
        set_orders: Vec::new(),
        found: false,
        caller_depth: 1,
    };
    let mut first = true;
    for item in &mut select.from {
        let factors = std::iter::once(&mut item.relation)
            .chain(item.joins.iter_mut().map(|j| &mut j.relation));
        for factor in factors {
            let before = std::mem::replace(&mut first, false);
            match factor {
                TableFactor::Table {
                    args: Some(args), ..
                } => {
                    let _ = args.visit(&mut in_from);
                }
                TableFactor::UNNEST { array_exprs, .. } => {
                    let _ = array_exprs.visit(&mut in_from);
                }
                // So does a TABLESAMPLE's percentage and seed.
                TableFactor::Table {
                    sample: Some(sample),
                    ..
                } => {
                    let _ = sample.visit(&mut in_from);
                }
                // A derived table (not LATERAL) sees no sibling FROM
                // item either: a name its query's own FROM does not have
                // is the outer query's (PostgreSQL's outer reference).
                TableFactor::Derived {
                    lateral: false,
                    subquery,
                    ..
                } => {
                    let _ = subquery.visit(&mut in_from);
                }
                // A LATERAL one first in FROM has no item before it to
                // read either (a SQL function's call whose argument reads
                // the outer query: `sql_functions.rs` marks it the
                // caller's).
                TableFactor::Derived {
                    lateral: true,
                    subquery,
                    ..
                } if before => {
                    let _ = subquery.visit(&mut in_from);
                }
                _ => {}
            }
        }
    }
    let inner = match select.from.as_slice() {
        [] => Scope::default(),
        items => {
            let system = crate::system_columns::mentioned(&*select);
            from::resolve(cx, txn, items, None, system)?.scope
        }
    };
    let mut refs = OuterRefs {
        inner: &inner,
        columns: in_from.columns,
        found: in_from.found,
        caller_depth: 0,
        ..in_from
    };
    for item in &mut select.projection {
        refs.name_outer_item(item);
        if let SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. } = item {
            let _ = e.visit(&mut refs);
        }
    }
    if let Some(e) = &mut select.selection {
        let _ = e.visit(&mut refs);
    }
    if let Some(e) = &mut select.having {
        let _ = e.visit(&mut refs);
    }
    if let sqlparser::ast::GroupByExpr::Expressions(keys, _) = &mut select.group_by {
        let _ = keys.visit(&mut refs);
    }
    // (A join's ON condition; USING names no expression.)
    for join in select.from.iter_mut().flat_map(|item| &mut item.joins) {
        let _ = VisitMut::visit(&mut join.join_operator, &mut refs);
    }
    // ORDER BY reads the outer query too (`order by f1 <-> point(x, x)`),
    // save where a bare name is one of the subquery's own output columns.
    let outputs = output_names(&select.projection);
    if let Some(order) = &mut q.order_by
        && let sqlparser::ast::OrderByKind::Expressions(keys) = &mut order.kind
    {
        for key in keys {
            let output = match &key.expr {
                Expr::Identifier(name) => outputs.contains(&names::ident(name)),
                _ => false,
            };
            if !output {
                let _ = VisitMut::visit(&mut key.expr, &mut refs);
            }
        }
    }
    let _ = VisitMut::visit(&mut q.limit_clause, &mut refs);
    let _ = VisitMut::visit(&mut q.fetch, &mut refs);
    if !refs.found {
        return Ok(None);
    }
    if crate::outer_aggregates::has_marker(&q) {
        return Err(SqlError::unsupported(
            "an outer query's aggregate in this clause of a subquery",
        ));
    }
    let outer = refs.columns;
    let plan = plan_query(cx, txn, &q)?;
    let hashed = sublink.and_then(|sublink| hashed_subplan::plan(cx, txn, &q, sublink));
    Ok(Some(Subplan {
        plan,
        outer,
        over_groups: false,
        hashed,
        fills: None,
    }))
}

/// The names of a select list's columns that ORDER BY may name.
fn output_names(projection: &[SelectItem]) -> Vec<String> {
    (projection.iter())
        .filter_map(|item| match item {
            SelectItem::ExprWithAlias { alias, .. } => Some(names::ident(alias)),
            SelectItem::UnnamedExpr(e) => Some(crate::query::column_name(e)),
            _ => None,
        })
        .collect()
}

/// Makes the correlated subqueries that run over an aggregate row
/// ([`Subplan::over_groups`]) read their outer values there: each outer
/// column must be a group key that is that column (`keys`, over the
/// source row `scope`), whose place in the aggregate row it takes. Else
/// 42803, naming the column as PostgreSQL does.
pub fn over_groups(
    subplans: &mut [Subplan],
    keys: &[Scalar],
    scope: &Scope,
) -> Result<(), SqlError> {
    for sub in subplans.iter_mut() {
        for value in &mut sub.outer {
            if let OuterValue::Aggregate(j) = value {
                // (Only a subquery of the select list or HAVING has one:
                // `outer_aggregates::lift` refuses the others.)
                if !sub.over_groups {
                    return Err(SqlError::unsupported(
                        "an outer query's aggregate in this subquery",
                    ));
                }
                *value = OuterValue::Column(keys.len() + *j);
                continue;
            }
            let OuterValue::Column(column) = value else {
                continue;
            };
            if !sub.over_groups {
                continue;
            }
            let Some(key) = keys.iter().position(|k| *k == Scalar::Column(*column)) else {
                let name = &scope.names()[*column];
                let name = match scope.qualifier_of(*column) {
                    Some(table) => format!("{table}.{name}"),
                    None => name.clone(),
                };
                return Err(SqlError::new(
                    "42803",
                    format!("subquery uses ungrouped column \"{name}\" from outer query"),
                ));
            };
            *value = OuterValue::Column(key);
        }
    }
    Ok(())
}

impl Extract<'_, '_> {
    /// `ARRAY(SELECT ...)`'s marker: subquery `q`'s one column (else
    /// `one_column`, the error) as an array of its type.
    fn array_of_rows(&mut self, q: &Query, one_column: &str) -> Option<Expr> {
        let n = self.plan(q, Some(one_column), None)?;
        let ty = self.plans[n - self.first].plan.types[0];
        // Of arrays: one more dimension, the same type (array_agg's).
        let Some(array) = ty.array_of().or(ty.element().map(|_| ty)) else {
            self.error = Some(SqlError::unsupported(format!(
                "arrays of type {}",
                ty.name()
            )));
            return None;
        };
        Some(marker(format!("{ARRAY_MARK}{n}:{}", array.oid())))
    }

    /// `x op ANY (SELECT ...)` or `x op ALL (SELECT ...)` with an `op`
    /// other than IN's: the comparison with the subquery's one column
    /// as an array (`ARRAY(SELECT ...)`), whose ANY / ALL has the same
    /// answer, NULLs included (true or false when some value decides,
    /// else NULL if any comparison was NULL), as PostgreSQL's subplan.
    fn any_all_of_rows(&mut self, expr: &Expr) -> Option<Expr> {
        let mut replaced = expr.clone();
        let (Expr::AnyOp { right, .. } | Expr::AllOp { right, .. }) = &mut replaced else {
            unreachable!("an ANY or ALL")
        };
        let Expr::Subquery(q) = right.as_ref() else {
            unreachable!("of a subquery")
        };
        **right = self.array_of_rows(q, "subquery has too many columns")?;
        Some(replaced)
    }
}

fn marker(text: String) -> Expr {
    Expr::Value(sqlparser::ast::Value::Placeholder(text).into())
}

impl VisitorMut for Extract<'_, '_> {
    type Break = ();

    fn pre_visit_expr(&mut self, expr: &mut Expr) -> ControlFlow<()> {
        let replaced = match expr {
            Expr::Subquery(q) => {
                let Some(n) = self.plan(q, Some("subquery must return only one column"), None)
                else {
                    return Break(());
                };
                let oid = self.plans[n - self.first].plan.columns[0].type_oid;
                marker(format!("{SUBQUERY_MARK}{n}:{oid}"))
            }
            // `ARRAY(SELECT ...)`: its one column's values as an array.
            Expr::Function(f)
                if names::function(&f.name) == "array"
                    && matches!(f.args, FunctionArguments::Subquery(_)) =>
            {
                let FunctionArguments::Subquery(q) = &f.args else {
                    unreachable!("matched above")
                };
                match self.array_of_rows(q, "subquery must return only one column") {
                    Some(array) => array,
                    None => return Break(()),
                }
            }
            Expr::Exists { subquery, negated } => {
                if let Some((gate, rest)) = sublink_gates::split(self.cx, self.txn, subquery) {
                    let exists = Expr::Exists {
                        subquery: Box::new(rest),
                        negated: false,
                    };
                    *expr = sublink_gates::gated(gate, exists, *negated);
                    return Continue(());
                }
                let Some(n) = self.plan(subquery, None, Some(Sublink::Exists)) else {
                    return Break(());
                };
                let exists = marker(format!("{EXISTS_MARK}{n}"));
                if *negated {
                    Expr::UnaryOp {
                        op: UnaryOperator::Not,
                        expr: Box::new(exists),
                    }
                } else {
                    exists
                }
            }
            // `x = ANY (SELECT ...)` is `x IN (SELECT ...)`, `x <> ALL
            // (SELECT ...)` is `x NOT IN (...)`; another comparison compares
            // with the subquery's values as an array (`any_all_of_rows`).
            Expr::AnyOp { right, .. } | Expr::AllOp { right, .. }
                if matches!(right.as_ref(), Expr::Subquery(_)) =>
            {
                let (left, negated, q) = match &*expr {
                    Expr::AnyOp {
                        left,
                        compare_op: BinaryOperator::Eq,
                        right,
                        ..
                    } => (left.clone(), false, right.clone()),
                    Expr::AllOp {
                        left,
                        compare_op: BinaryOperator::NotEq,
                        right,
                    } => (left.clone(), true, right.clone()),
                    _ => match self.any_all_of_rows(expr) {
                        Some(replaced) => {
                            *expr = replaced;
                            return Continue(());
                        }
                        None => return Break(()),
                    },
                };
                let Expr::Subquery(q) = q.as_ref() else {
                    unreachable!("matched above")
                };
                let Some(n) =
                    self.plan(q, Some("subquery has too many columns"), Some(Sublink::In))
                else {
                    return Break(());
                };
                Expr::InList {
                    expr: left,
                    list: vec![marker(format!("{IN_MARK}{n}"))],
                    negated,
                }
            }
            Expr::InSubquery {
                expr: e,
                subquery,
                negated,
            } => {
                if let Some((gate, rest)) = sublink_gates::split(self.cx, self.txn, subquery) {
                    let in_rest = Expr::InSubquery {
                        expr: e.clone(),
                        subquery: Box::new(rest),
                        negated: false,
                    };
                    *expr = sublink_gates::gated(gate, in_rest, *negated);
                    return Continue(());
                }
                let Some(n) = self.plan(
                    subquery,
                    Some("subquery has too many columns"),
                    Some(Sublink::In),
                ) else {
                    return Break(());
                };
                Expr::InList {
                    expr: e.clone(),
                    list: vec![marker(format!("{IN_MARK}{n}"))],
                    negated: *negated,
                }
            }
            _ => return Continue(()),
        };
        *expr = replaced;
        Continue(())
    }
}

/// Rewrites a subquery's names of outer columns into `$outer:K:OID`
/// markers, also in the queries nested in it whose own FROM items (`nested`) do
/// not have the name.
struct OuterRefs<'a, 'b> {
    cx: &'a Ctx<'b>,
    txn: &'a Transaction,
    inner: &'a Scope,
    outer: &'a Scope,
    /// Where each marker `K` reads its value.
    columns: Vec<OuterValue>,
    /// The FROM items of each nested query being visited, innermost last
    /// (`None`: items whose names cannot be known, so any name is
    /// theirs).
    nested: Vec<Option<Scope>>,
    /// While a derived table is visited: the FROM items of the query
    /// that holds it, which it does not see.
    set_aside: Vec<Option<Scope>>,
    /// The ORDER BY of each set operation being visited, set aside: it
    /// names the operation's output columns only.
    set_orders: Vec<Option<sqlparser::ast::OrderBy>>,
    /// Whether a name of the outer query was found.
    found: bool,
    /// How many queries deep a SQL function's argument marked as the
    /// caller's (`sql_functions::CALLER`) may be: 0 for `q`'s own
    /// expressions, 1 in a derived table in `q`'s FROM (a SQL function's
    /// body numbered `WITH ORDINALITY`, `ordinality.rs`).
    caller_depth: usize,
}

/// The scope of the names `q`'s expressions see first: its FROM items
/// (`None` when they cannot be known: a set operation, a FROM that does
/// not resolve).
pub fn scope_of(cx: &Ctx<'_>, txn: &Transaction, q: &Query) -> Option<Scope> {
    let select = match q.body.as_ref() {
        SetExpr::Select(select) => select,
        // A VALUES list has no FROM: every name in it is outer.
        SetExpr::Values(_) => return Some(Scope::default()),
        _ => return None,
    };
    if select.from.is_empty() {
        return Some(Scope::default());
    }
    let system = crate::system_columns::mentioned(&**select);
    from::resolve(cx, txn, &select.from, None, system)
        .ok()
        .map(|f| f.scope)
}

impl OuterRefs<'_, '_> {
    /// Names each unaliased select item of `q` that is an outer column's
    /// name ([`Self::name_outer_item`]).
    fn name_outer_items(&self, q: &mut Query) {
        if let SetExpr::Select(select) = q.body.as_mut() {
            select
                .projection
                .iter_mut()
                .for_each(|i| self.name_outer_item(i));
        }
    }

    /// Names `item` by the column it reads if it is an unaliased outer
    /// column's name (`SELECT r1, * FROM ...` names its first column
    /// `r1`, as PostgreSQL's), before the name becomes a marker.
    fn name_outer_item(&self, item: &mut SelectItem) {
        let SelectItem::UnnamedExpr(expr) = item else {
            return;
        };
        let caller = match self.nested.len() <= self.caller_depth {
            true => crate::sql_functions::caller_reference(expr),
            false => None,
        };
        let outer = match (&*expr, caller) {
            (_, Some(original)) => scalar::bind(&original, self.outer).is_ok(),
            (Expr::Identifier(_) | Expr::CompoundIdentifier(_), None) => {
                !self.shadowed(expr) && scalar::bind(expr, self.outer).is_ok()
            }
            _ => false,
        };
        if outer {
            let alias = Ident::with_quote('"', crate::query::column_name(expr));
            *item = SelectItem::ExprWithAlias {
                expr: expr.clone(),
                alias,
            };
        }
    }

    /// Whether a query between the name `expr` and the outer query has
    /// it (or may have it).
    fn shadowed(&self, expr: &Expr) -> bool {
        (self.nested.iter()).any(|s| s.as_ref().is_none_or(|s| scalar::bind(expr, s).is_ok()))
            || scalar::bind(expr, self.inner).is_ok()
    }
}

impl VisitorMut for OuterRefs<'_, '_> {
    type Break = ();

    fn pre_visit_query(&mut self, q: &mut Query) -> ControlFlow<()> {
        // A set operation's arms are queries of their own, each with its
        // own FROM; the operation itself has none.
        if matches!(q.body.as_ref(), SetExpr::SetOperation { .. }) {
            arms_as_queries(&mut q.body);
            self.nested.push(Some(Scope::default()));
            self.set_orders.push(q.order_by.take());
            return Continue(());
        }
        let scope = scope_of(self.cx, self.txn, q);
        self.nested.push(scope);
        self.name_outer_items(q);
        Continue(())
    }

    fn post_visit_query(&mut self, q: &mut Query) -> ControlFlow<()> {
        self.nested.pop();
        if matches!(q.body.as_ref(), SetExpr::SetOperation { .. }) {
            q.order_by = self.set_orders.pop().expect("set aside when entered");
        }
        Continue(())
    }

    fn pre_visit_table_factor(&mut self, factor: &mut TableFactor) -> ControlFlow<()> {
        // A derived table (not LATERAL) sees no FROM item of the query
        // that holds it (which may not even resolve, when the derived
        // table reads outer names).
        if let (TableFactor::Derived { lateral: false, .. }, Some(top)) =
            (factor, self.nested.last_mut())
        {
            let holder = top.replace(Scope::default());
            self.set_aside.push(holder);
        }
        Continue(())
    }

    fn post_visit_table_factor(&mut self, factor: &mut TableFactor) -> ControlFlow<()> {
        if let (TableFactor::Derived { lateral: false, .. }, Some(top)) =
            (factor, self.nested.last_mut())
        {
            *top = self.set_aside.pop().expect("set aside when entered");
        }
        Continue(())
    }

    fn pre_visit_expr(&mut self, expr: &mut Expr) -> ControlFlow<()> {
        if let Some((j, oid)) = crate::outer_aggregates::marker_number(expr) {
            let k = slot(&mut self.columns, OuterValue::Aggregate(j));
            *expr = marker(format!("{OUTER_MARK}{k}:{oid}"));
            self.found = true;
            return Continue(());
        }
        if !matches!(expr, Expr::Identifier(_) | Expr::CompoundIdentifier(_)) {
            return Continue(());
        }
        // A SQL function's argument placed in its body reads the
        // caller's row only (`sql_functions.rs`: placed only at the body's
        // own level, which the caller's query holds).
        let caller = match self.nested.len() <= self.caller_depth {
            true => crate::sql_functions::caller_reference(expr),
            false => None,
        };
        if let Some(original) = &caller {
            *expr = original.clone();
        } else if self.shadowed(expr) {
            return Continue(());
        }
        if let Ok(Scalar::Column(c)) = scalar::bind(expr, self.outer) {
            let k = slot(&mut self.columns, OuterValue::Column(c));
            let oid = self.outer.type_at(c).oid();
            *expr = marker(format!("{OUTER_MARK}{k}:{oid}"));
            self.found = true;
        }
        Continue(())
    }
}

/// Makes each plain SELECT among the arms of set operation `body` a
/// query of its own (`(SELECT ...)`, planned the same), so that a
/// visitor meets it as a query with its FROM.
fn arms_as_queries(body: &mut SetExpr) {
    let SetExpr::SetOperation { left, right, .. } = body else {
        return;
    };
    for arm in [left, right] {
        match arm.as_mut() {
            SetExpr::SetOperation { .. } => arms_as_queries(arm),
            SetExpr::Select(_) => {
                let mut query = crate::parse::query("SELECT 1").expect("a query");
                std::mem::swap(query.body.as_mut(), arm.as_mut());
                **arm = SetExpr::Query(Box::new(query));
            }
            _ => {}
        }
    }
}

/// The marker number of `value` among `columns`, added if new.
fn slot(columns: &mut Vec<OuterValue>, value: OuterValue) -> usize {
    match columns.iter().position(|&o| o == value) {
        Some(k) => k,
        None => {
            columns.push(value);
            columns.len() - 1
        }
    }
}

/// Renumbers the `$outer:K:OID` markers of a subquery about to become
/// correlated: each reads the holding query's outer value `K` through
/// the subquery's own ([`OuterValue::Enclosing`]).
#[derive(Default)]
struct Renumber {
    columns: Vec<OuterValue>,
}

impl VisitorMut for Renumber {
    type Break = ();

    fn pre_visit_expr(&mut self, expr: &mut Expr) -> ControlFlow<()> {
        let Expr::Value(v) = expr else {
            return Continue(());
        };
        let sqlparser::ast::Value::Placeholder(p) = &v.value else {
            return Continue(());
        };
        let Some((k, oid)) = p
            .strip_prefix(OUTER_MARK)
            .and_then(|rest| rest.split_once(':'))
        else {
            return Continue(());
        };
        let (Ok(k), oid) = (k.parse::<usize>(), oid.to_string()) else {
            return Continue(());
        };
        let k = slot(&mut self.columns, OuterValue::Enclosing(k));
        *expr = marker(format!("{OUTER_MARK}{k}:{oid}"));
        Continue(())
    }
}

/// Whether `expr` holds the marker of a correlated subquery.
fn reads_correlated(expr: &Expr, subplans: &[Subplan]) -> bool {
    struct Find<'a>(&'a [Subplan]);
    impl Visitor for Find<'_> {
        type Break = ();
        fn pre_visit_expr(&mut self, expr: &Expr) -> ControlFlow<()> {
            if let Expr::Value(v) = expr
                && let sqlparser::ast::Value::Placeholder(p) = &v.value
            {
                let n = [SUBQUERY_MARK, EXISTS_MARK, IN_MARK, ARRAY_MARK]
                    .iter()
                    .find_map(|mark| p.strip_prefix(mark))
                    .and_then(|rest| rest.split(':').next()?.parse::<usize>().ok());
                if n.and_then(|n| self.0.get(n))
                    .is_some_and(Subplan::is_correlated)
                {
                    return Break(());
                }
            }
            Continue(())
        }
    }
    expr.visit(&mut Find(subplans)).is_break()
}

/// `where`'s conjuncts split: those without a correlated subquery or a
/// call of a PL/pgSQL function (for the scans and joins, AND-ed again),
/// and those with one (run after them, over whole rows).
pub fn outer_conjuncts(where_: &Expr, subplans: &[Subplan]) -> (Option<Expr>, Vec<Expr>) {
    let all: Vec<Expr> = crate::pushdown::conjuncts(where_)
        .into_iter()
        .cloned()
        .collect();
    let (late, early): (Vec<Expr>, Vec<Expr>) = all
        .into_iter()
        .partition(|e| reads_correlated(e, subplans) || crate::plpgsql::row_calls::any_in(e));
    let early = early.into_iter().reduce(|a, b| Expr::BinaryOp {
        left: Box::new(a),
        op: BinaryOperator::And,
        right: Box::new(b),
    });
    (early, late)
}

/// Runs a query's correlated subqueries for its rows, with the
/// transaction the query's run holds (lent while its scans are done).
pub struct Runner<'a> {
    txn: RefCell<&'a mut Transaction>,
    subplans: &'a [Subplan],
    env: Env<'a>,
    /// In an UPDATE or DELETE: the statement's command, whose writes the
    /// subqueries do not see (`dml.rs`).
    command: Option<Command>,
    /// Whether subqueries with a hashed form run hashed: in a query run
    /// once per execution (no outer values of its own; not an UPDATE's
    /// or DELETE's, whose runner is made per row). `hashed_subplan.rs`.
    hashing: bool,
    /// Each subquery's hashed rows, once made.
    tables: Vec<OnceCell<hashed_subplan::Table>>,
    /// Each subquery's work run per row so far (`hashed_subplan.rs`:
    /// the table is made once it reaches what building it reads).
    work: Vec<Cell<u64>>,
    /// Each subquery's [`Hashed::build_rows`], once asked.
    build_rows: Vec<OnceCell<u64>>,
}

impl<'a> Runner<'a> {
    pub fn new(txn: &'a mut Transaction, subplans: &'a [Subplan], env: &Env<'a>) -> Runner<'a> {
        Runner {
            txn: RefCell::new(txn),
            subplans,
            env: *env,
            command: None,
            hashing: env.outer.is_empty(),
            tables: subplans.iter().map(|_| OnceCell::new()).collect(),
            work: subplans.iter().map(|_| Cell::new(0)).collect(),
            build_rows: subplans.iter().map(|_| OnceCell::new()).collect(),
        }
    }

    /// A runner for a row change's subqueries, which read as of the
    /// start of `command` (`Transaction::as_of_command`): they do not see
    /// the rows the statement has changed already, as PostgreSQL's
    /// subqueries read with the statement's command id.
    pub fn as_of(
        txn: &'a mut Transaction,
        subplans: &'a [Subplan],
        env: &Env<'a>,
        command: Command,
    ) -> Runner<'a> {
        Runner {
            command: Some(command),
            hashing: false,
            ..Runner::new(txn, subplans, env)
        }
    }
}

impl Runner<'_> {
    /// Subquery `n`'s rows for `outer` from its hashed rows, which are
    /// made at the first probe.
    fn probe(
        &self,
        n: usize,
        hashed: &Hashed,
        txn: &mut Transaction,
        outer: &[Value],
    ) -> Result<Vec<Vec<Value>>, SqlError> {
        let cell = &self.tables[n];
        if cell.get().is_none() {
            // Made at most once per run of the query holding the subquery.
            let table = hashed.build(txn, &self.env)?;
            let _ = cell.set(table);
        }
        let table = cell.get().expect("made above");
        hashed.probe(table, outer, &self.env)
    }

    /// 57014 if the session was canceled (the transaction it holds).
    pub fn check_interrupt(&self) -> Result<(), SqlError> {
        match self.txn.try_borrow() {
            Ok(txn) => Ok(txn.check_interrupt()?),
            Err(_) => Ok(()),
        }
    }
}

impl std::fmt::Debug for Runner<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Runner({} subplans)", self.subplans.len())
    }
}

impl Correlated for Runner<'_> {
    fn rows(&self, n: usize, row: &[Value]) -> Option<Result<Vec<Vec<Value>>, SqlError>> {
        let sub = self.subplans.get(n).filter(|s| s.is_correlated())?;
        let outer = outer_values(&sub.outer, row, &self.env);
        let Ok(mut txn) = self.txn.try_borrow_mut() else {
            return Some(Err(SqlError::new(
                "XX000",
                "a correlated subquery ran inside another's run",
            )));
        };
        let hashed = sub.hashed.as_ref().filter(|_| self.hashing);
        if let Some(hashed) = hashed
            && (self.tables[n].get().is_some()
                || self.work[n].get() >= *self.build_rows[n].get_or_init(|| hashed.build_rows()))
        {
            return Some(self.probe(n, hashed, &mut txn, &outer));
        }
        let env = Env {
            subqueries: &[],
            correlated: None,
            outer: &outer,
            ..self.env
        };
        let rows = match self.command {
            None => run(&mut txn, &sub.plan, &env),
            Some(command) => txn.as_of_command(Some(command), |txn| run(txn, &sub.plan, &env)),
        };
        Some(rows.map(|(rows, counts)| {
            if hashed.is_some() {
                let handled = counts.source.handled().max(1);
                self.work[n].set(self.work[n].get().saturating_add(handled));
            }
            rows
        }))
    }

    fn call(
        &self,
        call: &crate::plpgsql::row_calls::RowCall,
        args: Vec<Value>,
    ) -> Result<Value, SqlError> {
        let cx = (self.env.cx).ok_or_else(|| crate::plpgsql::row_calls::not_here(&call.def))?;
        let mut txn = (self.txn.try_borrow_mut()).map_err(|_| crate::plpgsql::row_calls::busy())?;
        crate::plpgsql::row_calls::call(cx, &mut txn, call, args)
    }
}
