//! Aggregates of an outer query's columns (PostgreSQL's outer-level
//! aggregates): the one owner of which query level an aggregate call
//! belongs to.
//!
//! An aggregate call belongs to the innermost query level of the columns
//! its arguments read (its argument list, its ORDER BY, its FILTER; an
//! ordered-set aggregate's WITHIN GROUP, not its direct arguments); a
//! call that reads no column belongs to the level it is written in. So
//! in `select (select count(o.x)) from o` the count is the outer query's:
//! the outer query is grouped by it (one row, 3), as if `count(o.x)` stood
//! in its own select list, and the subquery reads the count as an outer
//! value. Columns read by a query nested in the arguments whose own FROM
//! has them do not count (`max((select i.a from i where i.k = o.k))` is
//! the outer query's); an aggregate nested in the arguments counts as
//! its own level, and one of the same level as the call is 42803
//! `aggregate function calls cannot be nested`.
//!
//! [`lift`] runs when a SELECT is planned, before its subqueries are
//! (`query.rs`): each call inside a subquery of its select list or HAVING
//! that belongs to it is taken out and replaced by the marker
//! `$agg:J:OID` (the select's lifted call `J`, of type OID). The select
//! binds its lifted calls first, so call `J` is the aggregate row's
//! column `keys + J` (`aggregate::Binder::lift`). The subquery, once
//! correlated, reads the marker as an outer value
//! (`subquery::OuterValue::Aggregate`) from the aggregate row. A call of
//! this level inside a subquery of WHERE or GROUP BY is 42803, as
//! PostgreSQL's.
//!
//! What folio cannot tell it refuses (0A000), never guessing a level: a
//! column whose name a query between might have (a FROM item folio cannot
//! resolve on its own: a CTE's, a LATERAL one's reading outer columns),
//! when the answer would change the level; also PostgreSQL's 0A000 for
//! an outer-level call that reads a CTE of a level below it. A marker
//! left where the subquery's outer values are not looked for (its HAVING,
//! ORDER BY, a JOIN's ON) is 0A000 when it is bound (`scalar.rs`). A
//! subquery planned where nothing lifts (a LATERAL one in FROM, an
//! UPDATE's SET) refuses a call of the query around it with 42803
//! ([`refuse_unlifted`]), as PostgreSQL does (its message names the
//! clause; folio's does not).

use crate::aggregate::{self, Binder};
use crate::context::Ctx;
use crate::error::SqlError;
use crate::from::Scope;
use crate::scalar::{self, AGG_MARK, OUTER_MARK, Scalar};
use crate::subquery::{self, Subplan, scope_of};
use folio_db::Transaction;
use sqlparser::ast::{
    Expr, Function, FunctionArg, FunctionArgExpr, FunctionArgumentClause, FunctionArguments, Ident,
    Query, Select, SelectItem, TableFactor, Visit, VisitMut, Visitor, VisitorMut,
};
use std::ops::ControlFlow::{self, Break, Continue};

/// Whether call `f` belongs to a query level by its arguments' columns,
/// and is lifted to it: an aggregate's, and GROUPING's (PostgreSQL's
/// rule for both).
fn lifts(f: &Function) -> bool {
    aggregate::is_aggregate(f) || aggregate::is_grouping(f)
}

/// The aggregate calls a select computes for its subqueries.
#[derive(Default)]
pub struct Lifted {
    /// Each lifted call `J`, over the select's FROM row; its subqueries
    /// are markers of `subplans`.
    pub calls: Vec<Expr>,
    /// The subqueries in the calls' arguments, numbered from 0: they run
    /// per row of the select's FROM, before grouping.
    pub subplans: Vec<Subplan>,
}

/// Whether a subquery in `expr` calls an aggregate that may be a call of
/// the query holding `expr` (a query with one is grouped: no ORDER BY or
/// WHERE may be pushed into its FROM as into a plain projection's). Told
/// without the queries' FROM items resolved, so it errs toward yes: only
/// a call whose every column is qualified by a FROM item of a subquery
/// around it (`sum(t2.y)`), or that reads none (`count(*)`), is surely a
/// subquery's own.
pub fn in_subqueries(expr: &Expr) -> bool {
    /// The FROM items' names of each subquery entered.
    struct Find(Vec<Vec<String>>);
    impl Visitor for Find {
        type Break = ();
        fn pre_visit_query(&mut self, q: &Query) -> ControlFlow<()> {
            let mut names = Vec::new();
            if let sqlparser::ast::SetExpr::Select(select) = q.body.as_ref() {
                for item in &select.from {
                    let factors = std::iter::once(&item.relation)
                        .chain(item.joins.iter().map(|j| &j.relation));
                    names.extend(factors.filter_map(factor_name));
                }
            }
            self.0.push(names);
            Continue(())
        }
        fn post_visit_query(&mut self, _: &Query) -> ControlFlow<()> {
            self.0.pop();
            Continue(())
        }
        fn pre_visit_expr(&mut self, e: &Expr) -> ControlFlow<()> {
            match e {
                Expr::Function(f) if !self.0.is_empty() && lifts(f) => match self.surely_inner(f) {
                    true => Continue(()),
                    false => Break(()),
                },
                _ => Continue(()),
            }
        }
    }
    impl Find {
        fn surely_inner(&self, f: &Function) -> bool {
            let (aggregated, _) = parts(f);
            // (`count(t.*)`: a whole row, whoever's.)
            if let FunctionArguments::List(list) = &f.args
                && (list.args.iter()).any(|a| {
                    matches!(
                        a,
                        FunctionArg::Unnamed(FunctionArgExpr::QualifiedWildcard(_))
                    )
                })
            {
                return false;
            }
            let mut names = Names(Vec::new(), false);
            for e in aggregated {
                let _ = e.visit(&mut names);
            }
            !names.1
                && names
                    .0
                    .iter()
                    .all(|q| self.0.iter().any(|frame| frame.contains(q)))
        }
    }
    /// The qualifiers of the names read; whether one is unqualified or
    /// an outer value.
    struct Names(Vec<String>, bool);
    impl Visitor for Names {
        type Break = ();
        fn pre_visit_expr(&mut self, e: &Expr) -> ControlFlow<()> {
            match e {
                Expr::CompoundIdentifier(parts) if parts.len() >= 2 => {
                    self.0.push(crate::names::ident(&parts[parts.len() - 2]));
                }
                Expr::Identifier(_) => self.1 = true,
                Expr::Value(v) if matches!(&v.value, sqlparser::ast::Value::Placeholder(p) if p.starts_with(OUTER_MARK)) =>
                {
                    self.1 = true;
                }
                _ => {}
            }
            Continue(())
        }
    }
    expr.visit(&mut Find(Vec::new())).is_break()
}

/// The name a FROM item's columns are qualified by, when plain to see.
fn factor_name(factor: &TableFactor) -> Option<String> {
    match factor {
        TableFactor::Table { alias: Some(a), .. } | TableFactor::Derived { alias: Some(a), .. } => {
            Some(crate::names::ident(&a.name))
        }
        TableFactor::Table {
            name, alias: None, ..
        } => crate::names::parts(name).and_then(|p| p.last().cloned()),
        _ => None,
    }
}

/// Whether `v` holds a lifted call's marker.
pub fn has_marker<V: Visit>(v: &V) -> bool {
    struct Find;
    impl Visitor for Find {
        type Break = ();
        fn pre_visit_expr(&mut self, e: &Expr) -> ControlFlow<()> {
            match marker_number(e) {
                Some(_) => Break(()),
                None => Continue(()),
            }
        }
    }
    v.visit(&mut Find).is_break()
}

/// The `J` and OID of a `$agg:J:OID` marker.
pub fn marker_number(e: &Expr) -> Option<(usize, u32)> {
    let Expr::Value(v) = e else {
        return None;
    };
    let sqlparser::ast::Value::Placeholder(p) = &v.value else {
        return None;
    };
    let (j, oid) = p.strip_prefix(AGG_MARK)?.split_once(':')?;
    Some((j.parse().ok()?, oid.parse().ok()?))
}

fn marker(j: usize, oid: u32) -> Expr {
    Expr::Value(sqlparser::ast::Value::Placeholder(format!("{AGG_MARK}{j}:{oid}")).into())
}

/// Takes out of `select`'s subqueries the aggregate calls that belong to
/// `select` (whose FROM row is `scope`), replacing each by its marker;
/// 42803 for one in a subquery of WHERE or GROUP BY, or for calls nested
/// in one another at one level.
pub fn lift(
    cx: &Ctx<'_>,
    txn: &Transaction,
    select: &mut Select,
    scope: &Scope,
) -> Result<Lifted, SqlError> {
    let mut clauses: Vec<(Clause, &mut Expr)> = Vec::new();
    for item in &mut select.projection {
        if let SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. } = item {
            clauses.push((Clause::Allowed, e));
        }
    }
    clauses.extend(select.having.as_mut().map(|e| (Clause::Allowed, e)));
    clauses.extend(select.selection.as_mut().map(|e| (Clause::Where, e)));
    if let sqlparser::ast::GroupByExpr::Expressions(keys, _) = &mut select.group_by {
        clauses.extend(keys.iter_mut().map(|e| (Clause::GroupBy, e)));
    }
    if !clauses.iter().any(|(_, e)| in_subqueries(e)) {
        return Ok(Lifted::default());
    }
    let mut pass = Lift::new(cx, txn, scope);
    for (clause, e) in clauses.iter_mut() {
        pass.clause = *clause;
        if e.visit(&mut pass).is_break() {
            break;
        }
    }
    if let Some(e) = pass.error {
        return Err(e);
    }
    let mut calls = pass.calls;
    if calls.is_empty() {
        return Ok(Lifted::default());
    }
    // The calls' own subqueries run per row of the FROM, as the
    // arguments are evaluated.
    let subplans = subquery::extract(cx, txn, calls.iter_mut().collect(), scope, 0)?;
    let binder = Binder::new(scope, &[])?;
    let mut oids = Vec::with_capacity(calls.len());
    for call in &calls {
        // GROUPING is an int4 (its arguments are checked against the
        // keys when the select binds it).
        if matches!(call, Expr::Function(f) if aggregate::is_grouping(f)) {
            oids.push(folio_row::SqlType::Int4.oid());
            continue;
        }
        let ty = match scalar::bind(call, &binder)? {
            Scalar::Column(c) => scalar::Columns::type_at(&binder, c),
            _ => return Err(SqlError::new("XX000", "a lifted aggregate is not a call")),
        };
        oids.push(ty.oid());
    }
    let mut typed = Typed(&oids);
    for (_, e) in clauses.iter_mut() {
        let _ = e.visit(&mut typed);
    }
    Ok(Lifted { calls, subplans })
}

/// Gives each marker `$agg:J:0` its call's type.
struct Typed<'a>(&'a [u32]);

impl VisitorMut for Typed<'_> {
    type Break = ();
    fn pre_visit_expr(&mut self, e: &mut Expr) -> ControlFlow<()> {
        if let Some((j, 0)) = marker_number(e)
            && let Some(&oid) = self.0.get(j)
        {
            *e = marker(j, oid);
        }
        Continue(())
    }
}

/// The clause of the lifting select a subquery is in.
#[derive(Clone, Copy, PartialEq)]
enum Clause {
    /// The select list or HAVING: its aggregates are allowed there.
    Allowed,
    Where,
    GroupBy,
}

/// The query levels a name may be read at: the lifting select's (level
/// 0), then each query nested in it around the name (level 1, 2, ...).
struct Levels<'a, 'b> {
    cx: &'a Ctx<'b>,
    txn: &'a Transaction,
    own: &'a Scope,
    /// The nested queries entered, outermost first (level `i + 1`).
    frames: Vec<Frame>,
}

#[derive(Clone)]
struct Frame {
    /// Its FROM items' names (`None`: not known, so any name may be one).
    scope: Option<Scope>,
    /// The names of the CTEs its WITH defines.
    ctes: Vec<String>,
}

impl Frame {
    fn of(cx: &Ctx<'_>, txn: &Transaction, q: &Query) -> Frame {
        let ctes = (q.with.iter())
            .flat_map(|w| &w.cte_tables)
            .map(|c| crate::names::ident(&c.alias.name))
            .collect();
        // Only a query with a call to lift in it needs its names.
        let scope = match (has_call(q), &q.with) {
            (false, _) => Some(Scope::default()),
            (true, None) => scope_of(cx, txn, q),
            // Its FROM may name its CTEs.
            (true, Some(_)) => {
                (crate::cte::inlined_whole(q).ok()).and_then(|inlined| scope_of(cx, txn, &inlined))
            }
        };
        Frame { scope, ctes }
    }
}

/// Whether `q` makes a call that is lifted to its level ([`lifts`]).
fn has_call(q: &Query) -> bool {
    struct Find;
    impl Visitor for Find {
        type Break = ();
        fn pre_visit_expr(&mut self, e: &Expr) -> ControlFlow<()> {
            match e {
                Expr::Function(f) if lifts(f) => Break(()),
                _ => Continue(()),
            }
        }
    }
    q.visit(&mut Find).is_break()
}

/// The level a name is read at, as assumed (a FROM folio cannot resolve
/// taken to have it, as `subquery.rs` takes it) and as it would be
/// otherwise; `None` when it is no column anywhere (its error comes when
/// it is bound). A level past the call's own is inside the call's own
/// subqueries; -1 is a query outside the lifting select.
fn level_of_name(
    expr: &Expr,
    local: &[Option<Scope>],
    frames: &[Frame],
    own: &Scope,
) -> Option<(isize, isize)> {
    let below = frames.len() as isize + 1;
    let candidates = (local.iter().rev().map(|s| (below, s.as_ref())))
        .chain((frames.iter().enumerate().rev()).map(|(i, f)| (i as isize + 1, f.scope.as_ref())))
        .chain(std::iter::once((0, Some(own))));
    let mut unknown = None;
    for (level, scope) in candidates {
        match scope {
            None => {
                unknown.get_or_insert(level);
            }
            Some(s) if scalar::bind(expr, s).is_ok() => {
                return Some((unknown.unwrap_or(level), level));
            }
            Some(_) => {}
        }
    }
    unknown.map(|u| (u, u))
}

/// The level the call `f` belongs to, written at level `depth` (the
/// frames of `levels` around it), or its error.
fn call_level(levels: &Levels<'_, '_>, f: &Function) -> Result<isize, SqlError> {
    let depth = levels.frames.len() as isize;
    let mut reach = Reach::new(levels);
    let (aggregated, direct) = parts(f);
    for e in &aggregated {
        let _ = e.visit(&mut reach);
    }
    if let FunctionArguments::List(list) = &f.args
        && f.within_group.is_empty()
    {
        for arg in &list.args {
            if let FunctionArg::Unnamed(FunctionArgExpr::QualifiedWildcard(name)) = arg
                && let Some(table) = name.0.last().and_then(|p| p.as_ident())
            {
                reach.name(&Expr::Identifier(table.clone()));
            }
        }
    }
    if let Some(e) = reach.error.take() {
        return Err(e);
    }
    let level_by = |vars: Option<isize>| match (vars, reach.aggs) {
        (None, None) => depth,
        (v, a) => v.max(a).unwrap_or(depth),
    };
    let level = level_by(reach.assumed);
    if level != level_by(reach.otherwise) {
        if let Some(cte) = &reach.nested_cte {
            return Err(nested_cte(cte));
        }
        return Err(SqlError::unsupported(
            "an aggregate call whose columns' query level folio cannot tell",
        ));
    }
    if reach.aggs == Some(level) {
        return Err(SqlError::new(
            "42803",
            "aggregate function calls cannot be nested",
        ));
    }
    if level == 0
        && depth > 0
        && let Some(cte) = &reach.nested_cte
    {
        return Err(nested_cte(cte));
    }
    if level < depth && !direct.is_empty() {
        let mut lower = Reach::new(levels);
        for e in &direct {
            let _ = e.visit(&mut lower);
        }
        if lower.assumed.is_some_and(|v| v > level) {
            return Err(SqlError::new(
                "42803",
                "outer-level aggregate cannot contain a lower-level variable in its direct arguments",
            ));
        }
    }
    Ok(level)
}

/// PostgreSQL's refusal of an outer-level call that reads `cte`, a CTE
/// of a level below the call's.
fn nested_cte(cte: &str) -> SqlError {
    SqlError::new("0A000", "outer-level aggregate cannot use a nested CTE").with_detail(format!(
        "CTE \"{cte}\" is below the aggregate's semantic level."
    ))
}

/// A call's parts that decide its level, and an ordered-set call's direct
/// arguments.
fn parts(f: &Function) -> (Vec<&Expr>, Vec<&Expr>) {
    let mut list_args = Vec::new();
    let mut order = Vec::new();
    if let FunctionArguments::List(list) = &f.args {
        for arg in &list.args {
            let (FunctionArg::Unnamed(a) | FunctionArg::Named { arg: a, .. }) = arg else {
                continue;
            };
            if let FunctionArgExpr::Expr(e) = a {
                list_args.push(e);
            }
        }
        for clause in &list.clauses {
            if let FunctionArgumentClause::OrderBy(items) = clause {
                order.extend(items.iter().map(|o| &o.expr));
            }
        }
    }
    let filter = f.filter.as_deref();
    if f.within_group.is_empty() {
        let mut aggregated = list_args;
        aggregated.extend(order);
        aggregated.extend(filter);
        (aggregated, Vec::new())
    } else {
        let mut aggregated: Vec<&Expr> = f.within_group.iter().map(|o| &o.expr).collect();
        aggregated.extend(filter);
        (aggregated, list_args)
    }
}

/// Walks a call's arguments for the levels of the columns and the
/// aggregate calls in them.
struct Reach<'l, 'a, 'b> {
    levels: &'l Levels<'a, 'b>,
    /// The queries nested in the arguments entered, innermost last.
    local: Vec<Option<Scope>>,
    set_aside: Vec<Option<Scope>>,
    /// The innermost level of a column at or outside the call's, as
    /// assumed and as it would be otherwise ([`level_of_name`]).
    assumed: Option<isize>,
    otherwise: Option<isize>,
    /// The innermost level of an aggregate call nested in the arguments.
    aggs: Option<isize>,
    /// A CTE of a level between the lifting select and the call, read in
    /// the arguments.
    nested_cte: Option<String>,
    /// A nested aggregate call being passed over (its arguments are its
    /// own).
    skip: Option<*const Expr>,
    error: Option<SqlError>,
}

impl<'l, 'a, 'b> Reach<'l, 'a, 'b> {
    fn new(levels: &'l Levels<'a, 'b>) -> Self {
        Reach {
            levels,
            local: Vec::new(),
            set_aside: Vec::new(),
            assumed: None,
            otherwise: None,
            aggs: None,
            nested_cte: None,
            skip: None,
            error: None,
        }
    }

    fn depth(&self) -> isize {
        self.levels.frames.len() as isize
    }

    fn name(&mut self, e: &Expr) {
        // A SQL function's argument is a value of the caller's row, as
        // PostgreSQL's parameter: no column of any level here.
        if crate::sql_functions::caller_reference(e).is_some() {
            return;
        }
        let l = &self.levels;
        let Some((assumed, otherwise)) = level_of_name(e, &self.local, &l.frames, l.own) else {
            return;
        };
        let depth = self.depth();
        if assumed <= depth {
            self.assumed = self.assumed.max(Some(assumed));
        }
        if otherwise <= depth {
            self.otherwise = self.otherwise.max(Some(otherwise));
        }
    }

    fn innermost(&mut self, level: isize) {
        self.assumed = self.assumed.max(Some(level));
        self.otherwise = self.otherwise.max(Some(level));
    }
}

impl Visitor for Reach<'_, '_, '_> {
    type Break = ();

    fn pre_visit_query(&mut self, q: &Query) -> ControlFlow<()> {
        if self.skip.is_none() {
            let l = self.levels;
            let frame = Frame::of(l.cx, l.txn, q);
            self.local.push(frame.scope);
        }
        Continue(())
    }

    fn post_visit_query(&mut self, _: &Query) -> ControlFlow<()> {
        if self.skip.is_none() {
            self.local.pop();
        }
        Continue(())
    }

    fn pre_visit_table_factor(&mut self, factor: &TableFactor) -> ControlFlow<()> {
        if self.skip.is_some() {
            return Continue(());
        }
        match factor {
            TableFactor::Derived { lateral: false, .. } => {
                if let Some(top) = self.local.last_mut() {
                    let holder = top.replace(Scope::default());
                    self.set_aside.push(holder);
                }
            }
            TableFactor::Table { name, .. } if name.0.len() == 1 => {
                if let Some([table]) = crate::names::parts(name).as_deref()
                    && (self.levels.frames.iter()).any(|f| f.ctes.contains(table))
                {
                    self.nested_cte.get_or_insert(table.clone());
                }
            }
            _ => {}
        }
        Continue(())
    }

    fn post_visit_table_factor(&mut self, factor: &TableFactor) -> ControlFlow<()> {
        if self.skip.is_none()
            && let (TableFactor::Derived { lateral: false, .. }, Some(top)) =
                (factor, self.local.last_mut())
        {
            *top = self.set_aside.pop().expect("set aside when entered");
        }
        Continue(())
    }

    fn pre_visit_expr(&mut self, e: &Expr) -> ControlFlow<()> {
        if self.skip.is_some() {
            return Continue(());
        }
        match e {
            Expr::Identifier(_) | Expr::CompoundIdentifier(_) => self.name(e),
            Expr::Value(v) if matches!(&v.value, sqlparser::ast::Value::Placeholder(p) if p.starts_with(OUTER_MARK)) =>
            {
                self.innermost(-1);
            }
            Expr::Function(f) if aggregate::is_aggregate(f) => {
                // Its level among the levels around it here.
                let mut frames = self.levels.frames.clone();
                frames.extend(self.local.iter().map(|scope| Frame {
                    scope: scope.clone(),
                    ctes: Vec::new(),
                }));
                let inner = Levels {
                    frames,
                    ..*self.levels
                };
                match call_level(&inner, f) {
                    Ok(level) if level <= self.depth() => self.aggs = self.aggs.max(Some(level)),
                    Ok(_) => {}
                    Err(err) => {
                        self.error = Some(err);
                        return Break(());
                    }
                }
                self.skip = Some(e as *const Expr);
            }
            _ => {}
        }
        Continue(())
    }

    fn post_visit_expr(&mut self, e: &Expr) -> ControlFlow<()> {
        if self.skip == Some(e as *const Expr) {
            self.skip = None;
        }
        Continue(())
    }
}

/// The pass over a select's clauses that lifts its calls.
struct Lift<'a, 'b> {
    levels: Levels<'a, 'b>,
    set_aside: Vec<Option<Scope>>,
    clause: Clause,
    calls: Vec<Expr>,
    error: Option<SqlError>,
}

impl<'a, 'b> Lift<'a, 'b> {
    /// A pass over the subqueries of the query level whose FROM is `own`.
    fn new(cx: &'a Ctx<'b>, txn: &'a Transaction, own: &'a Scope) -> Self {
        Lift {
            levels: Levels {
                cx,
                txn,
                own,
                frames: Vec::new(),
            },
            set_aside: Vec::new(),
            clause: Clause::Allowed,
            calls: Vec::new(),
            error: None,
        }
    }

    /// Names each unaliased select item of `q` that is a call of the
    /// lifting select by the call, as it would be named before it becomes
    /// a marker.
    fn name_lifted_items(&mut self, q: &mut Query) {
        let sqlparser::ast::SetExpr::Select(select) = q.body.as_mut() else {
            return;
        };
        for item in &mut select.projection {
            let SelectItem::UnnamedExpr(e) = item else {
                continue;
            };
            let mut inner = &*e;
            while let Expr::Nested(n) = inner {
                inner = n;
            }
            let Expr::Function(f) = inner else {
                continue;
            };
            if lifts(f) && call_level(&self.levels, f).is_ok_and(|l| l == 0) {
                let alias = Ident::with_quote('"', crate::query::column_name(e));
                *item = SelectItem::ExprWithAlias {
                    expr: e.clone(),
                    alias,
                };
            }
        }
    }
}

impl VisitorMut for Lift<'_, '_> {
    type Break = ();

    fn pre_visit_query(&mut self, q: &mut Query) -> ControlFlow<()> {
        let frame = Frame::of(self.levels.cx, self.levels.txn, q);
        self.levels.frames.push(frame);
        self.name_lifted_items(q);
        Continue(())
    }

    fn post_visit_query(&mut self, _: &mut Query) -> ControlFlow<()> {
        self.levels.frames.pop();
        Continue(())
    }

    fn pre_visit_table_factor(&mut self, factor: &mut TableFactor) -> ControlFlow<()> {
        // A derived table (not LATERAL) sees no FROM item of the query
        // that holds it.
        if let (TableFactor::Derived { lateral: false, .. }, Some(top)) =
            (factor, self.levels.frames.last_mut())
        {
            let holder = top.scope.replace(Scope::default());
            self.set_aside.push(holder);
        }
        Continue(())
    }

    fn post_visit_table_factor(&mut self, factor: &mut TableFactor) -> ControlFlow<()> {
        if let (TableFactor::Derived { lateral: false, .. }, Some(top)) =
            (factor, self.levels.frames.last_mut())
        {
            top.scope = self.set_aside.pop().expect("set aside when entered");
        }
        Continue(())
    }

    fn pre_visit_expr(&mut self, expr: &mut Expr) -> ControlFlow<()> {
        let Expr::Function(f) = &*expr else {
            return Continue(());
        };
        if !lifts(f) {
            return Continue(());
        }
        let level = match call_level(&self.levels, f) {
            Ok(level) => level,
            Err(e) => {
                self.error = Some(e);
                return Break(());
            }
        };
        if level != 0 || self.levels.frames.is_empty() {
            return Continue(());
        }
        let clause = match self.clause {
            Clause::Allowed => None,
            Clause::Where => Some("WHERE"),
            Clause::GroupBy => Some("GROUP BY"),
        };
        if let Some(clause) = clause {
            let what = match aggregate::is_grouping(f) {
                true => "grouping operations",
                false => "aggregate functions",
            };
            self.error = Some(SqlError::new(
                "42803",
                format!("{what} are not allowed in {clause}"),
            ));
            return Break(());
        }
        self.calls.push(expr.clone());
        *expr = marker(self.calls.len() - 1, 0);
        Continue(())
    }
}

/// 42803 if subquery `q` of a query whose FROM row is `scope` calls an
/// aggregate of that query's: one the query has not lifted, as a SELECT
/// does its select list's and HAVING's, is in a clause where it may not
/// aggregate (a LATERAL subquery in FROM, an UPDATE's SET, a DELETE's
/// WHERE: PostgreSQL's "aggregate functions are not allowed in ...").
pub fn refuse_unlifted(
    cx: &Ctx<'_>,
    txn: &Transaction,
    q: &Query,
    scope: &Scope,
) -> Result<(), SqlError> {
    if !has_call(q) {
        return Ok(());
    }
    let mut pass = Lift::new(cx, txn, scope);
    let _ = VisitMut::visit(&mut q.clone(), &mut pass);
    if let Some(e) = pass.error {
        return Err(e);
    }
    match pass.calls.is_empty() {
        true => Ok(()),
        false => Err(SqlError::new(
            "42803",
            "aggregate functions are not allowed in this clause of the outer query",
        )),
    }
}
