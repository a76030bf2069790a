//! A correlated `EXISTS`, `NOT EXISTS`, `x IN` or `x NOT IN` subquery
//! run once and hashed, instead of once per outer row (PostgreSQL's
//! "hashed SubPlan"; its planner pulls such sublinks up into semi and
//! anti joins, folio keeps them where they are and makes each test a
//! hash probe).
//!
//! **The rule** ([`plan`], its one owner). A subquery qualifies when its
//! only correlation is through top-level AND-ed conjuncts of its WHERE
//! of the form `inner = outer` (either order): `outer` reads the outer
//! query's values (`$outer` markers) and no column of the subquery,
//! `inner` reads no outer value, the two sides' types are ones a hash
//! compares as `=` does (`from::hash_comparable`, the hash join's rule:
//! one type, two integers, text and varchar; never `char(n)`). Nothing
//! else in the subquery may read an outer value, and it must be a plain
//! SELECT: no WITH, set operation, GROUP BY, HAVING, window, DISTINCT
//! ON, LIMIT / OFFSET / FETCH, FOR UPDATE; no call in its select list
//! (an aggregate, a window or a set-returning function would change
//! which rows there are); and every call elsewhere a built-in that is
//! not volatile (pg_proc's `provolatile`, `system_proc::volatility`), so
//! running it once gives what running it per row would.
//!
//! **What runs.** The subquery without those conjuncts (so
//! uncorrelated), its select list the sublink's tested column (for IN)
//! and then the inner keys, runs at the first probe, once per run of the
//! query that holds it. Each row whose keys are all non-NULL goes into a
//! table by the keys' bytes (`from::hash_of`, the hash join's: integers
//! widened, numerics normalised, float `-0` meeting `0` and NaN meeting
//! NaN, as `=` does). An outer row's probe evaluates the outer keys and
//! gets its bucket: exactly the rows the per-row subquery would have
//! returned (a NULL key matches nothing, as `NULL = x` is not true).
//! EXISTS tests the bucket for a row, IN compares with the bucket's
//! values as it compares with the subquery's, so NOT IN's NULL rules
//! hold unchanged (a NULL among the bucket's values makes a miss NULL).
//!
//! **When it is used** (`subquery::Runner`): the first probes run the
//! per-row plan, whose work is counted (`SourceCounts::handled`: rows
//! its nodes handed on or filtered out); once that work reaches what the
//! hashed run would read ([`Hashed::build_rows`], the tables' estimated
//! rows), the table is built and every later probe uses it. So a
//! per-row plan that scans (no index on the correlated column) hashes
//! from the second probe, and one that probes an index hashes only after
//! as many probes as the table has rows, never doing more than about
//! twice the work of the better choice made in hindsight (the
//! ski-rental rule; PostgreSQL chooses by its cost estimates instead,
//! knowing how many outer rows to expect).
//!
//! **Where it is used**: only by a query run once
//! per execution of its statement (its environment has no outer values:
//! not itself a correlated subquery or a LATERAL item, which run per
//! outer row and keep the per-row plan, whose index probes cost less
//! than a scan per run), and not in UPDATE or DELETE (whose runner is
//! made per changed row, `dml.rs`).

use crate::context::Ctx;
use crate::error::SqlError;
use crate::from::{Scope, Source};
use crate::names;
use crate::query::{Planned, plan_query, run};
use crate::scalar::{self, Env, OUTER_MARK, Scalar};
use folio_db::Transaction;
use folio_row::Value;
use sqlparser::ast::{
    BinaryOperator, Distinct, Expr, GroupByExpr, Query, Select, SelectItem, SetExpr, TableFactor,
    Visit, Visitor,
};
use std::ops::ControlFlow::{self, Break, Continue};

/// Which sublink a subquery is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sublink {
    /// `[NOT] EXISTS (...)`: only whether a row exists matters.
    Exists,
    /// `x [NOT] IN (...)`: the rows' one column is compared with `x`.
    In,
}

/// A correlated subquery's hashed form.
pub struct Hashed {
    /// The subquery without its correlated equalities: each row its
    /// first `width` columns (the sublink's tested column), then the
    /// inner keys.
    plan: Planned,
    width: usize,
    /// The outer keys, over the subquery's outer values
    /// ([`Scalar::Outer`]), in the order of the inner keys.
    outer_keys: Vec<Scalar>,
}

/// The hashed rows of a [`Hashed`] subquery: each key's rows (for
/// EXISTS one empty row).
pub struct Table(crate::aggregate::KeyMap<Vec<Vec<Value>>>);

/// The hashed form of correlated subquery `q` (its outer names already
/// `$outer` markers) used as `sublink`, or `None` if it does not qualify
/// (see the module's rule). The one owner of that rule.
pub fn plan(cx: &Ctx<'_>, txn: &Transaction, q: &Query, sublink: Sublink) -> Option<Hashed> {
    let select = plain_select(q)?;
    let tested: Vec<Expr> = match sublink {
        Sublink::Exists => Vec::new(),
        Sublink::In => match select.projection.as_slice() {
            [SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. }] => {
                vec![e.clone()]
            }
            _ => return None,
        },
    };
    let conjuncts = select
        .selection
        .as_ref()
        .map(crate::pushdown::conjuncts)
        .unwrap_or_default();
    let mut inner_keys = Vec::new();
    let mut outer_sides = Vec::new();
    let mut rest = Vec::new();
    for c in conjuncts {
        match key_pair(c) {
            Some((inner, outer)) => {
                inner_keys.push(inner.clone());
                outer_sides.push(outer.clone());
            }
            None => rest.push(c.clone()),
        }
    }
    if inner_keys.is_empty() {
        return None;
    }
    let mut uncorrelated = q.clone();
    uncorrelated.order_by = None;
    let SetExpr::Select(s) = uncorrelated.body.as_mut() else {
        return None;
    };
    let width = tested.len();
    s.projection = (tested.into_iter().chain(inner_keys))
        .map(SelectItem::UnnamedExpr)
        .collect();
    s.selection = rest.into_iter().reduce(|a, b| Expr::BinaryOp {
        left: Box::new(a),
        op: BinaryOperator::And,
        right: Box::new(b),
    });
    if reads_outer(&uncorrelated)
        || !stable_calls(&uncorrelated)
        || !outer_sides.iter().all(stable_calls)
    {
        return None;
    }
    let plan = plan_query(cx, txn, &uncorrelated).ok()?;
    let none = Scope::default();
    let outer_keys = (outer_sides.iter())
        .map(|e| scalar::bind(e, &none).ok())
        .collect::<Option<Vec<Scalar>>>()?;
    let comparable = (outer_keys.iter().zip(&plan.types[width..]))
        .all(|(o, &i)| crate::from::hash_comparable(i, o.ty_in(&none)));
    comparable.then_some(Hashed {
        plan,
        width,
        outer_keys,
    })
}

/// `q`'s SELECT if `q` is a plain one whose rows are those its FROM and
/// WHERE find: no WITH, set operation, GROUP BY, HAVING, window,
/// DISTINCT ON, LIMIT / OFFSET / FETCH, FOR UPDATE, and no call in its
/// select list (an aggregate, window or set-returning function changes
/// which rows exist). Which conjuncts of its WHERE hold, and where they
/// are tested, is then all that decides its rows.
pub fn plain_select(q: &Query) -> Option<&Select> {
    if q.with.is_some()
        || q.limit_clause.is_some()
        || q.fetch.is_some()
        || !q.locks.is_empty()
        || q.for_clause.is_some()
    {
        return None;
    }
    let SetExpr::Select(select) = q.body.as_ref() else {
        return None;
    };
    let grouped = match &select.group_by {
        GroupByExpr::Expressions(keys, modifiers) => !keys.is_empty() || !modifiers.is_empty(),
        GroupByExpr::All(_) => true,
    };
    let plain = !grouped
        && select.having.is_none()
        && select.named_window.is_empty()
        && select.qualify.is_none()
        && select.into.is_none()
        && select.top.is_none()
        && !matches!(select.distinct, Some(Distinct::On(_)))
        && !select.projection.iter().any(calls);
    plain.then_some(&**select)
}

impl Hashed {
    /// Runs the subquery once, its rows hashed by their inner keys.
    pub fn build(&self, txn: &mut Transaction, env: &Env<'_>) -> Result<Table, SqlError> {
        let env = Env {
            subqueries: &[],
            correlated: None,
            outer: &[],
            ..*env
        };
        let (rows, _) = run(txn, &self.plan, &env)?;
        let keys: Vec<Scalar> = (self.width..self.plan.types.len())
            .map(Scalar::Column)
            .collect();
        let mut table: crate::aggregate::KeyMap<Vec<Vec<Value>>> = Default::default();
        for (i, mut row) in rows.into_iter().enumerate() {
            crate::interrupt::every(txn, i as u64 + 1)?;
            let Some(key) = crate::from::hash_of(&keys, &row, &env)? else {
                continue;
            };
            row.truncate(self.width);
            let bucket = table.entry(key).or_default();
            // EXISTS needs one row a key; IN compares with every value.
            if self.width > 0 || bucket.is_empty() {
                bucket.push(row);
            }
        }
        Ok(Table(table))
    }

    /// The rows building the table reads, as estimated: a table's rows
    /// (`estimate::table_size`, as EXPLAIN has them), both inputs of a
    /// join, a subquery's source; 1,000 for any other source (EXPLAIN's
    /// guess for a system relation).
    pub fn build_rows(&self) -> u64 {
        fn rows(s: &Source) -> f64 {
            match s {
                Source::One => 1.0,
                Source::Table { relation, .. } => crate::estimate::table_size(relation).1,
                Source::Join { left, right, .. } => rows(left) + rows(right),
                Source::Derived { planned, .. } => rows(&planned.source),
                _ => 1000.0,
            }
        }
        rows(&self.plan.source) as u64
    }

    /// The rows the subquery gives for outer values `outer` (the
    /// bucket of their keys; none when a key is NULL).
    pub fn probe(
        &self,
        table: &Table,
        outer: &[Value],
        env: &Env<'_>,
    ) -> Result<Vec<Vec<Value>>, SqlError> {
        let env = Env { outer, ..*env };
        let key = crate::from::hash_of(&self.outer_keys, &[], &env)?;
        Ok(key
            .and_then(|k| table.0.get(&k))
            .cloned()
            .unwrap_or_default())
    }
}

/// `inner = outer` (either order, through parentheses): the inner side
/// (no outer value) and the outer side (outer values, no column of the
/// subquery, no subquery).
fn key_pair(e: &Expr) -> Option<(&Expr, &Expr)> {
    let Expr::BinaryOp {
        left,
        op: BinaryOperator::Eq,
        right,
    } = strip(e)
    else {
        return None;
    };
    let outer_only = |e: &Expr| reads_outer(e) && !reads_names(e);
    let (l, r) = (strip(left), strip(right));
    let pair = if outer_only(r) && !reads_outer(l) {
        (l, r)
    } else if outer_only(l) && !reads_outer(r) {
        (r, l)
    } else {
        return None;
    };
    // A row comparison is not one key.
    (!is_row(pair.0) && !is_row(pair.1)).then_some(pair)
}

fn is_row(e: &Expr) -> bool {
    match e {
        Expr::Tuple(_) => true,
        Expr::Function(f) => names::function(&f.name) == "row",
        _ => false,
    }
}

fn strip(mut e: &Expr) -> &Expr {
    while let Expr::Nested(inner) = e {
        e = inner;
    }
    e
}

/// Whether `node` holds an `$outer` marker.
fn reads_outer<V: Visit>(node: &V) -> bool {
    struct Find;
    impl Visitor for Find {
        type Break = ();
        fn pre_visit_expr(&mut self, e: &Expr) -> ControlFlow<()> {
            match e {
                Expr::Value(v)
                    if matches!(&v.value,
                    sqlparser::ast::Value::Placeholder(p) if p.starts_with(OUTER_MARK)) =>
                {
                    Break(())
                }
                _ => Continue(()),
            }
        }
    }
    node.visit(&mut Find).is_break()
}

/// Whether `e` names a column or holds a subquery.
fn reads_names(e: &Expr) -> bool {
    struct Find;
    impl Visitor for Find {
        type Break = ();
        fn pre_visit_query(&mut self, _: &Query) -> ControlFlow<()> {
            Break(())
        }
        fn pre_visit_expr(&mut self, e: &Expr) -> ControlFlow<()> {
            match e {
                Expr::Identifier(_) | Expr::CompoundIdentifier(_) => Break(()),
                _ => Continue(()),
            }
        }
    }
    e.visit(&mut Find).is_break()
}

/// Whether a select-list item makes any call.
fn calls(item: &SelectItem) -> bool {
    let (SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. }) = item else {
        return false;
    };
    struct Find;
    impl Visitor for Find {
        type Break = ();
        fn pre_visit_expr(&mut self, e: &Expr) -> ControlFlow<()> {
            match e {
                Expr::Function(_) => Break(()),
                _ => Continue(()),
            }
        }
    }
    e.visit(&mut Find).is_break()
}

/// Whether every call in `node` (and every function in its FROM) is a
/// built-in pg_proc lists as immutable or stable for all its
/// signatures.
pub fn stable_calls<V: Visit>(node: &V) -> bool {
    fn stable(name: &str) -> bool {
        // Expressions the parser reads as calls, which pg_proc does not
        // list.
        const EXPRESSIONS: &[&str] = &["coalesce", "nullif", "greatest", "least", "row"];
        EXPRESSIONS.contains(&name)
            || matches!(crate::system_proc::volatility(name, &[]), Some('i' | 's'))
    }
    struct Find;
    impl Visitor for Find {
        type Break = ();
        fn pre_visit_expr(&mut self, e: &Expr) -> ControlFlow<()> {
            match e {
                Expr::Function(f) if !stable(&names::function(&f.name)) => Break(()),
                _ => Continue(()),
            }
        }
        fn pre_visit_table_factor(&mut self, t: &TableFactor) -> ControlFlow<()> {
            match t {
                TableFactor::Table {
                    name,
                    args: Some(_),
                    ..
                } if !stable(&names::function(name)) => Break(()),
                _ => Continue(()),
            }
        }
    }
    !node.visit(&mut Find).is_break()
}
