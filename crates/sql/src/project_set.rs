//! Where a select list's set-returning functions run: PostgreSQL's
//! ProjectSet, as a rewrite of the SELECT before it is planned.
//!
//! PostgreSQL evaluates the set-returning calls (SRFs) of a select list
//! (and of its ORDER BY) after FROM, WHERE, GROUP BY, HAVING and the window
//! functions, and before DISTINCT, ORDER BY and LIMIT: each input row is
//! repeated once for each row the calls give, the calls of one level
//! running side by side (as many rows as the longest gives, the others'
//! values NULL past their end; none when every call gives none). A call
//! inside another's arguments (`generate_series(1, generate_series(1,
//! 3))`) runs in a ProjectSet below: a call's level is one more than the
//! deepest level among the calls in its arguments.
//!
//! folio has no ProjectSet node; the rewrite makes the same rows out of
//! FROM items that already run calls side by side (`ROWS FROM`,
//! `table_functions.rs`):
//!
//! 1. A query that groups, aggregates or has window calls is split first.
//!    The calls PostgreSQL runs before grouping and windows, those of
//!    GROUP BY (a position or output name there standing for its select
//!    list expression) and of the windows' PARTITION BY and ORDER BY (in
//!    OVER or a WINDOW clause),
//!    become FROM items as in 2., after the FROM's; a select list
//!    expression's call equal to one of GROUP BY's reads its column
//!    ([`before_grouping`]). Then FROM, WHERE, GROUP BY, HAVING and the
//!    windows become a derived table `"$grouped"` whose columns are the
//!    pieces of the select list (and ORDER BY, DISTINCT ON) that read the
//!    input: each largest subexpression with no set-returning call that
//!    reads a column, calls an aggregate or a window function, or holds a
//!    subquery (constants stay in place, so an untyped literal still
//!    takes its type from the call it is an argument of). The query over
//!    it keeps the select list with those pieces read from `"$grouped"`,
//!    DISTINCT, ORDER BY (a name or position of an output column as
//!    written, another expression translated as the select list is) and
//!    LIMIT ([`split_grouping`]). It is now a query without grouping, and
//!    2. goes on with it.
//! 2. In a query without grouping or windows, each call (innermost
//!    first) becomes a read of a column of a FROM item `"$srfL"` (`L` its
//!    level): `ROWS FROM (call, ...) AS "$srfL"("$1", ...)`, joined
//!    LATERAL after the FROM's items (or the FROM itself, level 1 of a
//!    query without one), so each row of the FROM is repeated once per
//!    row of its calls, and a call can read the columns of the levels
//!    below ([`lateralize`]). An item so rewritten keeps its name (an
//!    alias of PostgreSQL's name for it, `query::column_name`). A call in
//!    ORDER BY or DISTINCT ON runs beside the select list's (PostgreSQL's
//!    resjunk column), an equal one in the select list standing for it.
//!
//! A single-row `VALUES` of an INSERT is a select list here, as in PostgreSQL ([`values_as_select`]).
//! A function of several columns (`json_each`, `unnest(tsvector)`) gives
//! them as one record value, as PostgreSQL's (`FunctionScan::packed`, asked
//! for by the FROM items made here); one returning `record` is not a
//! select list's call (`scalar.rs` refuses it as PostgreSQL does).
//!
//! The `"$srfL"` items are hidden from `*` (`from.rs`) and EXPLAIN shows
//! each as a `ProjectSet` over what it joins, or over a `Result` without
//! FROM (`explain.rs`). Unlike PostgreSQL's EXPLAIN: a `"$grouped"`
//! query shows as a Subquery Scan under it, sort keys name the columns
//! (`$srf1.$1`) rather than the calls, and there is no `Result` above a
//! ProjectSet whose items compute over the calls.
//!
//! Where PostgreSQL refuses a set-returning call, its error
//! (`project_set/placement.rs`: [`check_placement`] for a SELECT,
//! [`refuse`] for DDL and DML): in WHERE, JOIN
//! conditions, HAVING, FILTER, LIMIT, OFFSET, a VALUES of several rows,
//! UPDATE's SET, RETURNING, a DEFAULT, a CHECK, an index or generation
//! expression (0A000); in an aggregate's or a window function's
//! arguments, CASE or COALESCE (0A000 with a HINT); under AND, OR, NOT or
//! BETWEEN (42804).

use crate::error::SqlError;
use crate::names;
use sqlparser::ast::{
    Distinct, Expr, Function, FunctionArg, FunctionArgExpr, FunctionArguments, GroupByExpr, Ident,
    NamedWindowExpr, ObjectName, OrderByExpr, Query, Select, SelectItem, SetExpr, TableAlias,
    TableAliasColumnDef, TableFactor, TableWithJoins, VisitMut, VisitorMut, WindowSpec,
};
use std::ops::ControlFlow;

mod placement;

pub(crate) use placement::{check_placement, refuse};

/// The qualifier prefix of the FROM items the calls become (`"$srf1"`,
/// `"$srf2"`, ...: no name a user writes unquoted).
const LABEL: &str = "$srf";

/// The derived table of a grouped query's pieces (step 1).
const GROUPED: &str = "$grouped";

/// Whether `qualifier` is a FROM item the rewrite made of a select list's
/// calls.
pub(crate) fn is_label(qualifier: &str) -> bool {
    qualifier
        .strip_prefix(LABEL)
        .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

/// Whether `f` is a call of a set-returning function that a select list
/// may hold: one of one column (one returning records needs FROM's
/// column definition list, and one of several columns, as `json_each`,
/// gives PostgreSQL's composite values, which folio has not: `scalar.rs`
/// refuses both).
fn is_srf_call(f: &Function) -> bool {
    let name = names::function(&f.name);
    if crate::sql_select_sets::is_call(f) {
        return true;
    }
    f.over.is_none()
        && crate::table_functions::is_table_function(&f.name)
        && crate::json_records::RecordFunc::of(&name).is_none()
}

/// Whether `e` holds a set-returning call of this query level.
pub(crate) fn contains_srf(e: &Expr) -> bool {
    crate::aggregate::contains_call(e, is_srf_call)
}

/// Whether the select list holds a set-returning call (pushdown keeps
/// out of such a query: its rows are not the FROM's).
pub(crate) fn in_select_list(select: &Select) -> bool {
    select.projection.iter().any(|item| match item {
        SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. } => contains_srf(e),
        _ => false,
    })
}

/// An INSERT's source `VALUES (row)` whose row has set-returning calls as
/// `SELECT row`, as PostgreSQL reads a single row (its calls then run as
/// a select list's); 0A000 for such a call in a VALUES of several rows.
/// `None`: the source as it is.
pub(crate) fn values_as_select(source: &Query) -> Result<Option<Query>, SqlError> {
    let SetExpr::Values(values) = source.body.as_ref() else {
        return Ok(None);
    };
    let [row] = values.rows.as_slice() else {
        for e in values.rows.iter().flatten() {
            refuse(e, "VALUES")?;
        }
        return Ok(None);
    };
    if !row.iter().any(contains_srf) {
        return Ok(None);
    }
    Ok(row_as_select(source))
}

/// A one-row `VALUES (row)` query as `SELECT row` (its ORDER BY, LIMIT
/// and WITH kept); `None` for any other query.
pub(crate) fn row_as_select(source: &Query) -> Option<Query> {
    let SetExpr::Values(values) = source.body.as_ref() else {
        return None;
    };
    let [row] = values.rows.as_slice() else {
        return None;
    };
    let mut select = match sqlparser::parser::Parser::parse_sql(
        &sqlparser::dialect::PostgreSqlDialect {},
        "SELECT 1",
    )
    .ok()
    .and_then(|mut statements| statements.pop())
    {
        Some(sqlparser::ast::Statement::Query(q)) => match *q.body {
            SetExpr::Select(select) => select,
            _ => return None,
        },
        _ => return None,
    };
    select.projection = row.iter().cloned().map(SelectItem::UnnamedExpr).collect();
    let mut query = source.clone();
    query.body = Box::new(SetExpr::Select(select));
    Some(query)
}

/// A call's argument expressions.
fn call_args(f: &Function) -> Box<dyn Iterator<Item = &Expr> + '_> {
    match &f.args {
        FunctionArguments::List(list) => Box::new(list.args.iter().filter_map(|a| match a {
            FunctionArg::Unnamed(FunctionArgExpr::Expr(e))
            | FunctionArg::Named {
                arg: FunctionArgExpr::Expr(e),
                ..
            }
            | FunctionArg::ExprNamed {
                arg: FunctionArgExpr::Expr(e),
                ..
            } => Some(e),
            _ => None,
        })),
        _ => Box::new(std::iter::empty()),
    }
}

/// `select` (with its ORDER BY) rewritten so that its set-returning
/// calls run as FROM items (see the module's doc); `None` when it has
/// none.
pub(crate) fn rewrite(
    select: &Select,
    order_by: &[OrderByExpr],
) -> Result<Option<(Select, Vec<OrderByExpr>)>, SqlError> {
    let in_order = order_by.iter().any(|o| contains_srf(&o.expr));
    let in_groups = crate::query::group_keys(select).iter().any(contains_srf);
    let in_distinct =
        matches!(&select.distinct, Some(Distinct::On(on)) if on.iter().any(contains_srf));
    let in_windows = select.named_window.iter().any(|w| match &w.1 {
        NamedWindowExpr::WindowSpec(spec) => spec
            .partition_by
            .iter()
            .chain(spec.order_by.iter().map(|o| &o.expr))
            .any(contains_srf),
        NamedWindowExpr::NamedWindow(_) => false,
    });
    if !in_select_list(select) && !in_order && !in_groups && !in_distinct && !in_windows {
        return Ok(None);
    }
    let windowed = select.projection.iter().any(|item| match item {
        SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. } => {
            crate::window::contains_window(e)
        }
        _ => false,
    }) || order_by
        .iter()
        .any(|o| crate::window::contains_window(&o.expr));
    let (mut select, mut order_by) = match crate::query::is_grouped(select) || windowed {
        true => {
            let mut select = select.clone();
            let mut order_by = order_by.to_vec();
            before_grouping(&mut select, &mut order_by);
            split_grouping(&select, &order_by)?
        }
        false => (select.clone(), order_by.to_vec()),
    };
    lateralize(&mut select, &mut order_by);
    Ok(Some((select, order_by)))
}

/// The calls a grouped or windowed query runs before grouping and
/// windows: those of GROUP BY (a position or output name there standing
/// for its select list expression) and of the windows' PARTITION BY and
/// ORDER BY, as FROM items after the FROM's; a select list or ORDER BY
/// expression's call equal to one of GROUP BY's reads its column.
fn before_grouping(select: &mut Select, order_by: &mut [OrderByExpr]) {
    let mut levels = Levels::default();
    let projection = select.projection.clone();
    if let GroupByExpr::Expressions(keys, _) = &mut select.group_by {
        for key in keys.iter_mut() {
            let item = match key {
                Expr::Value(v) => match &v.value {
                    sqlparser::ast::Value::Number(n, _) => n
                        .parse::<usize>()
                        .ok()
                        .and_then(|p| p.checked_sub(1))
                        .and_then(|p| projection.get(p)),
                    _ => None,
                },
                // (An output name standing for a call: a column of the
                // FROM by that name would win, in PostgreSQL.)
                Expr::Identifier(id) => projection.iter().find(|item| {
                    matches!(item, SelectItem::ExprWithAlias { expr, alias }
                        if contains_srf(expr) && names::ident(alias) == names::ident(id))
                }),
                _ => None,
            };
            if let Some(SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. }) =
                item
            {
                *key = e.clone();
            }
            if contains_srf(key) {
                *key = levels.replace(key, Mode::Reuse);
            }
        }
    }
    for item in &mut select.projection {
        if let SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. } = item {
            let named = crate::query::column_name(e);
            windows_first(e, &mut levels);
            let replaced = levels.replace(e, Mode::Only);
            if replaced != *e {
                *item = SelectItem::ExprWithAlias {
                    expr: replaced,
                    alias: match item {
                        SelectItem::ExprWithAlias { alias, .. } => alias.clone(),
                        _ => Ident::with_quote('"', named),
                    },
                };
            }
        }
    }
    for o in order_by.iter_mut() {
        windows_first(&mut o.expr, &mut levels);
        o.expr = levels.replace(&o.expr, Mode::Only);
    }
    for w in &mut select.named_window {
        if let NamedWindowExpr::WindowSpec(spec) = &mut w.1 {
            window_first(spec, &mut levels);
        }
    }
    levels.into_from(&mut select.from);
}

/// The calls in window `spec`'s PARTITION BY and ORDER BY added to
/// `levels`, each replaced by the read of its column.
fn window_first(spec: &mut WindowSpec, levels: &mut Levels) {
    for p in &mut spec.partition_by {
        *p = levels.replace(p, Mode::Reuse);
    }
    for o in &mut spec.order_by {
        o.expr = levels.replace(&o.expr, Mode::Reuse);
    }
}

/// The calls in the PARTITION BY and ORDER BY of `e`'s window calls
/// added to `levels`, each replaced by the read of its column.
fn windows_first(e: &mut Expr, levels: &mut Levels) {
    struct Windows<'a>(&'a mut Levels, usize);
    impl VisitorMut for Windows<'_> {
        type Break = ();
        fn pre_visit_query(&mut self, _: &mut Query) -> ControlFlow<()> {
            self.1 += 1;
            ControlFlow::Continue(())
        }
        fn post_visit_query(&mut self, _: &mut Query) -> ControlFlow<()> {
            self.1 -= 1;
            ControlFlow::Continue(())
        }
        fn pre_visit_expr(&mut self, e: &mut Expr) -> ControlFlow<()> {
            if self.1 == 0
                && let Expr::Function(f) = e
                && let Some(sqlparser::ast::WindowType::WindowSpec(spec)) = &mut f.over
            {
                window_first(spec, self.0);
            }
            ControlFlow::Continue(())
        }
    }
    let _ = VisitMut::visit(e, &mut Windows(levels, 0));
}

/// The name an output column of `item` has: its alias, or PostgreSQL's
/// name for its expression.
fn output_name(item: &SelectItem) -> Option<String> {
    match item {
        SelectItem::UnnamedExpr(e) => Some(crate::query::column_name(e)),
        SelectItem::ExprWithAlias { alias, .. } => Some(names::ident(alias)),
        _ => None,
    }
}

/// Step 1 of the module's doc: a grouped or windowed query as a query
/// without grouping over the derived table of its pieces.
fn split_grouping(
    select: &Select,
    order_by: &[OrderByExpr],
) -> Result<(Select, Vec<OrderByExpr>), SqlError> {
    let mut pieces = Pieces::default();
    let mut outer_items = Vec::with_capacity(select.projection.len());
    for item in &select.projection {
        let (expr, alias) = match item {
            SelectItem::UnnamedExpr(e) => (e, None),
            SelectItem::ExprWithAlias { expr, alias } => (expr, Some(alias.clone())),
            _ => {
                return Err(SqlError::unsupported(
                    "* beside a set-returning function in a grouped or windowed query",
                ));
            }
        };
        let alias =
            alias.unwrap_or_else(|| Ident::with_quote('"', crate::query::column_name(expr)));
        outer_items.push(SelectItem::ExprWithAlias {
            expr: pieces.translate(expr),
            alias,
        });
    }
    let outputs: Vec<Option<String>> = select.projection.iter().map(output_name).collect();
    let mut outer_order = Vec::with_capacity(order_by.len());
    for o in order_by {
        let expr = match &o.expr {
            Expr::Value(v) if matches!(v.value, sqlparser::ast::Value::Number(..)) => {
                o.expr.clone()
            }
            Expr::Identifier(id) if outputs.contains(&Some(names::ident(id))) => o.expr.clone(),
            e => match select.projection.iter().position(|item| {
                matches!(item, SelectItem::UnnamedExpr(x) | SelectItem::ExprWithAlias { expr: x, .. } if x == e)
            }) {
                Some(at) => Expr::value(sqlparser::ast::Value::Number((at + 1).to_string(), false)),
                None => pieces.translate(e),
            },
        };
        outer_order.push(OrderByExpr { expr, ..o.clone() });
    }
    let distinct = match &select.distinct {
        Some(Distinct::On(on)) => Some(Distinct::On(
            on.iter().map(|e| pieces.translate(e)).collect(),
        )),
        other => other.clone(),
    };
    let mut inner = select.clone();
    inner.distinct = None;
    // GROUP BY's positions are the select list's, which the inner query
    // no longer has (`before_grouping` put its expressions in their
    // place, and those of output names standing for calls).
    inner.projection = pieces.columns;
    // An output name GROUP BY may use stays an (unread) column of the
    // inner query.
    for item in &select.projection {
        if let SelectItem::ExprWithAlias { expr, alias } = item
            && !contains_srf(expr)
            && crate::query::group_keys(select).iter().any(
                |k| matches!(k, Expr::Identifier(id) if names::ident(id) == names::ident(alias)),
            )
        {
            inner.projection.push(item.clone());
        }
    }
    if inner.projection.is_empty() {
        // (A select list of constants and calls: the groups' rows.)
        inner.projection.push(SelectItem::UnnamedExpr(Expr::value(
            sqlparser::ast::Value::Number("1".into(), false),
        )));
    }
    let derived = TableFactor::Derived {
        lateral: false,
        subquery: Box::new(crate::query::bare_query(SetExpr::Select(Box::new(inner)))),
        alias: Some(TableAlias {
            name: Ident::new(GROUPED),
            columns: Vec::new(),
        }),
    };
    let mut outer = select.clone();
    outer.distinct = distinct;
    outer.projection = outer_items;
    outer.from = vec![TableWithJoins {
        relation: derived,
        joins: Vec::new(),
    }];
    outer.selection = None;
    outer.group_by = GroupByExpr::Expressions(Vec::new(), Vec::new());
    outer.having = None;
    outer.named_window = Vec::new();
    outer.qualify = None;
    Ok((outer, outer_order))
}

/// The pieces of a grouped query's expressions that read its input, as
/// the columns of its derived table (step 1).
#[derive(Default)]
struct Pieces {
    /// `piece AS "$pN"`, in order.
    columns: Vec<SelectItem>,
    exprs: Vec<Expr>,
}

impl Pieces {
    /// `e` with each largest subexpression without a set-returning call
    /// that reads the input replaced by its column of `"$grouped"`.
    fn translate(&mut self, e: &Expr) -> Expr {
        struct Replace<'a>(&'a mut Pieces, usize);
        impl VisitorMut for Replace<'_> {
            type Break = ();
            fn pre_visit_query(&mut self, _: &mut Query) -> ControlFlow<()> {
                self.1 += 1;
                ControlFlow::Continue(())
            }
            fn post_visit_query(&mut self, _: &mut Query) -> ControlFlow<()> {
                self.1 -= 1;
                ControlFlow::Continue(())
            }
            fn pre_visit_expr(&mut self, e: &mut Expr) -> ControlFlow<()> {
                if self.1 == 0 && !contains_srf(e) && reads_input(e) {
                    *e = self.0.column_of(e);
                }
                ControlFlow::Continue(())
            }
        }
        let mut e = e.clone();
        let _ = VisitMut::visit(&mut e, &mut Replace(self, 0));
        e
    }

    /// The read of piece `e`'s column, which it adds if new.
    fn column_of(&mut self, e: &Expr) -> Expr {
        let at = match self.exprs.iter().position(|x| x == e) {
            Some(at) => at,
            None => {
                self.exprs.push(e.clone());
                let alias = Ident::with_quote('"', format!("$p{}", self.exprs.len()));
                self.columns.push(SelectItem::ExprWithAlias {
                    expr: e.clone(),
                    alias,
                });
                self.exprs.len() - 1
            }
        };
        Expr::CompoundIdentifier(vec![
            Ident::with_quote('"', GROUPED),
            Ident::with_quote('"', format!("$p{}", at + 1)),
        ])
    }
}

/// Whether `e` reads a grouped query's input: a column, an aggregate or
/// window call, a subquery.
fn reads_input(e: &Expr) -> bool {
    sqlparser::ast::visit_expressions(e, |x| match x {
        Expr::Identifier(_)
        | Expr::CompoundIdentifier(_)
        | Expr::Subquery(_)
        | Expr::Exists { .. }
        | Expr::InSubquery { .. } => ControlFlow::Break(()),
        Expr::Function(f) if crate::aggregate::is_aggregate(f) || f.over.is_some() => {
            ControlFlow::Break(())
        }
        _ => ControlFlow::Continue(()),
    })
    .is_break()
}

/// Step 2 of the module's doc: the set-returning calls of a query
/// without grouping or windows as `ROWS FROM` items, one per level.
fn lateralize(select: &mut Select, order_by: &mut [OrderByExpr]) {
    let mut levels = Levels::default();
    let originals: Vec<Option<Expr>> = (select.projection.iter())
        .map(|item| match item {
            SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. } => {
                Some(e.clone())
            }
            _ => None,
        })
        .collect();
    for item in &mut select.projection {
        let (expr, alias) = match item {
            SelectItem::UnnamedExpr(e) if contains_srf(e) => (
                e.clone(),
                Ident::with_quote('"', crate::query::column_name(e)),
            ),
            SelectItem::ExprWithAlias { expr, alias } if contains_srf(expr) => {
                (expr.clone(), alias.clone())
            }
            _ => continue,
        };
        *item = SelectItem::ExprWithAlias {
            expr: levels.replace(&expr, Mode::Add),
            alias,
        };
    }
    if let Some(Distinct::On(on)) = &mut select.distinct {
        for e in on.iter_mut().filter(|e| contains_srf(e)) {
            *e = levels.replace(e, Mode::Reuse);
        }
    }
    for o in order_by.iter_mut() {
        if !contains_srf(&o.expr) {
            continue;
        }
        o.expr = match originals.iter().position(|e| e.as_ref() == Some(&o.expr)) {
            Some(at) => Expr::value(sqlparser::ast::Value::Number((at + 1).to_string(), false)),
            None => levels.replace(&o.expr, Mode::Reuse),
        };
    }
    levels.into_from(&mut select.from);
}

/// The set-returning calls of a query level by their level (from 1).
#[derive(Default)]
struct Levels {
    calls: Vec<Vec<Function>>,
}

/// How [`Levels::replace`] treats a call.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// Adds it (a select list's: each call runs).
    Add,
    /// Reads an equal call's column if there is one, else adds it.
    Reuse,
    /// Reads an equal call's column if there is one, else leaves it.
    Only,
}

impl Levels {
    /// `e` with each set-returning call (innermost first) replaced by the
    /// read of its column, the call added to its level as `mode` says.
    fn replace(&mut self, e: &Expr, mode: Mode) -> Expr {
        struct Replace<'a>(&'a mut Levels, usize, Mode);
        impl VisitorMut for Replace<'_> {
            type Break = ();
            fn pre_visit_query(&mut self, _: &mut Query) -> ControlFlow<()> {
                self.1 += 1;
                ControlFlow::Continue(())
            }
            fn post_visit_query(&mut self, _: &mut Query) -> ControlFlow<()> {
                self.1 -= 1;
                ControlFlow::Continue(())
            }
            fn post_visit_expr(&mut self, e: &mut Expr) -> ControlFlow<()> {
                if self.1 == 0
                    && let Expr::Function(f) = e
                    && is_srf_call(f)
                    && let Some(read) = self.0.add(f.clone(), self.2)
                {
                    *e = read;
                }
                ControlFlow::Continue(())
            }
        }
        let mut e = e.clone();
        let _ = VisitMut::visit(&mut e, &mut Replace(self, 0, mode));
        e
    }

    /// The read of call `f`'s column, `f` (whose inner calls are reads of
    /// the levels below already) added to its level as `mode` says.
    fn add(&mut self, f: Function, mode: Mode) -> Option<Expr> {
        let below = call_args(&f).filter_map(level_read).max().unwrap_or(0);
        let level = below + 1;
        let known =
            (self.calls.get(level - 1)).and_then(|calls| calls.iter().position(|c| *c == f));
        let k = match (known, mode) {
            (Some(k), Mode::Reuse | Mode::Only) => k,
            (None, Mode::Only) => return None,
            _ => {
                if self.calls.len() < level {
                    self.calls.resize_with(level, Vec::new);
                }
                self.calls[level - 1].push(f);
                self.calls[level - 1].len() - 1
            }
        };
        Some(Expr::CompoundIdentifier(vec![
            Ident::new(format!("{LABEL}{level}")),
            Ident::new(format!("${}", k + 1)),
        ]))
    }

    /// The calls as FROM items after `from`'s, one a level: `ROWS FROM
    /// (calls) AS "$srfL"("$1", ...)`, LATERAL (the FROM itself for level
    /// 1 of a query without one).
    fn into_from(self, from: &mut Vec<TableWithJoins>) {
        for (n, calls) in self.calls.into_iter().enumerate() {
            let label = Ident::new(format!("{LABEL}{}", n + 1));
            let columns = (1..=calls.len())
                .map(|k| TableAliasColumnDef {
                    name: Ident::new(format!("${k}")),
                    data_type: None,
                })
                .collect();
            let args = calls
                .into_iter()
                .map(|f| FunctionArg::Unnamed(FunctionArgExpr::Expr(Expr::Function(f))))
                .collect();
            let name = ObjectName::from(vec![Ident::new(crate::table_functions::ROWS_FROM)]);
            let alias = Some(TableAlias {
                name: label,
                columns,
            });
            let relation = match from.is_empty() {
                true => crate::query::table_factor(name, alias, Some(args)),
                false => TableFactor::Function {
                    lateral: true,
                    name,
                    args,
                    alias,
                },
            };
            from.push(TableWithJoins {
                relation,
                joins: Vec::new(),
            });
        }
    }
}

/// The deepest level of a call read within `e` (0: none).
fn level_read(e: &Expr) -> Option<usize> {
    let mut deepest = None;
    let _ = sqlparser::ast::visit_expressions(e, |x| {
        if let Expr::CompoundIdentifier(parts) = x
            && let [qualifier, _] = parts.as_slice()
            && is_label(&qualifier.value)
            && let Ok(n) = qualifier.value[LABEL.len()..].parse::<usize>()
        {
            deepest = deepest.max(Some(n));
        }
        ControlFlow::<()>::Continue(())
    });
    deepest
}
