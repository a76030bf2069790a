//! `EXPLAIN [ANALYZE] [(option [value], ...)] query` in PostgreSQL's text
//! layout: one row per line under the column `QUERY PLAN`, nodes
//! (`Aggregate`, `Limit`, `Sort`, `Seq Scan`, `Index [Only] Scan
//! [Backward]`) with their conditions and, with ANALYZE, `(actual
//! rows=N loops=1)` and what each did; with BUFFERS, `Buffers: shared
//! hit=N read=M`: the pages this session's statement latched in the
//! buffer pool (hits) and read from the file (misses), counted by the
//! pool per thread. With `COSTS` (on by default, as in PostgreSQL) each
//! node's title is followed by the planner's estimate, `  (cost=S..T
//! rows=N width=W)`, before ANALYZE's `(actual ...)`; the estimates are
//! `estimate.rs`'s (PostgreSQL's formulas), this file only prints them.
//! `COSTS OFF` prints none. Times are printed only with
//! `TIMING`/`SUMMARY` as PostgreSQL does.

use crate::aggregate::Grouping;
use crate::array_functions::ArrayFunc;
use crate::catalog_functions::CatalogFunc;
use crate::context::Ctx;
use crate::error::SqlError;
use crate::estimate::{self as est, Estimate};
use crate::from::{Method, Scope, SetKind, Source};
use crate::functions::Func;
use crate::names;
use crate::output::{Column, Output};
use crate::plan::{Access, ScanPlan, SortKey};
use crate::query::{self, Planned, Shape};
use crate::scalar::{Env, Scalar};
use crate::types;
use crate::window::{WindowCall, WindowFunc, Windows};
use folio_db::Transaction;
use folio_row::{SqlType, Value};
use sqlparser::ast::{Expr, Statement, UtilityOption};
use std::time::Instant;

/// EXPLAIN's options.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Options {
    pub analyze: bool,
    pub buffers: bool,
    pub timing: bool,
    pub summary: bool,
    pub costs: bool,
}

/// Runs EXPLAIN of `statement`: a query, or a row change
/// (`explain_change.rs`), whose ANALYZE leaves `notices`.
pub fn explain(
    cx: &Ctx<'_>,
    txn: &mut Transaction,
    notices: &mut Vec<crate::output::Notice>,
    analyze: bool,
    options: Option<&[UtilityOption]>,
    statement: &Statement,
) -> Result<Output, SqlError> {
    let options = parse_options(analyze, options.unwrap_or(&[]))?;
    if let Statement::Insert(_) | Statement::Update { .. } | Statement::Delete(_) = statement {
        return crate::explain_change::explain(cx, txn, notices, options, statement);
    }
    let Statement::Query(q) = statement else {
        return Err(SqlError::unsupported(format!(
            "EXPLAIN of {}",
            statement
                .to_string()
                .split_whitespace()
                .next()
                .unwrap_or("")
        )));
    };
    let pool = cx.db.pool();
    let before_plan = pool.thread_stats();
    let started = Instant::now();
    let outer = crate::fold::begin();
    // SQL functions' calls expanded, as the query runs (`statement::plan`).
    let mut expanded = q.clone();
    let planned = crate::sql_functions::expand_query(cx, txn, &mut expanded)
        .and_then(|()| query::plan_query(cx, txn, &expanded));
    if let Some(error) = crate::fold::end(outer) {
        return Err(error);
    }
    let planned = planned?;
    let after_plan = pool.thread_stats();
    let planning = Planning {
        elapsed: started.elapsed(),
        hit: after_plan.hits - before_plan.hits,
        read: after_plan.misses - before_plan.misses,
    };
    show(cx, txn, options, &planned, &Env::of(cx), planning)
}

/// `EXPLAIN [ANALYZE] [(options)] EXECUTE name(values)`: the prepared
/// statement's kept plan (`planned`, a query), as the executor starts it
/// with `env`'s parameters (an Append pruned by them shows what is left,
/// README "Partitioned tables").
pub fn explain_kept(
    cx: &Ctx<'_>,
    txn: &mut Transaction,
    analyze: bool,
    options: Option<&[UtilityOption]>,
    planned: &Planned,
    env: &Env<'_>,
) -> Result<Output, SqlError> {
    let options = parse_options(analyze, options.unwrap_or(&[]))?;
    let planning = Planning {
        elapsed: std::time::Duration::ZERO,
        hit: 0,
        read: 0,
    };
    show(cx, txn, options, planned, env, planning)
}

/// What planning took: its time and the pages it latched (hit) and read.
pub(crate) struct Planning {
    pub elapsed: std::time::Duration,
    pub hit: u64,
    pub read: u64,
}

/// The lines of `planned`'s plan, run first with ANALYZE.
fn show(
    cx: &Ctx<'_>,
    txn: &mut Transaction,
    options: Options,
    planned: &Planned,
    env: &Env<'_>,
    planning: Planning,
) -> Result<Output, SqlError> {
    let pool = cx.db.pool();
    let before_run = pool.thread_stats();
    let mut lines = Vec::new();
    let mut actual = None;
    if options.analyze {
        let started = Instant::now();
        let (rows, counts) = query::run(txn, planned, env)?;
        let after = pool.thread_stats();
        actual = Some(Actual {
            rows: rows.len() as u64,
            scanned: counts.scanned,
            groups: counts.groups,
            nodes: counts.source,
            hit: after.hits - before_run.hits,
            read: after.misses - before_run.misses,
            elapsed: started.elapsed(),
        });
    }
    describe(planned, options, actual.as_ref(), env, &mut lines);
    let executed = actual.as_ref().map(|a| a.elapsed);
    summarize(options, &planning, (&[], executed), &mut lines);
    Ok(plan_output(lines))
}

/// The lines after the plan: the planning's buffers, with SUMMARY the
/// planning's time, the `triggers` lines (a row change's, with
/// ANALYZE), and with SUMMARY the execution's time (`executed`, with
/// ANALYZE), in PostgreSQL's order.
pub(crate) fn summarize(
    options: Options,
    planning: &Planning,
    (triggers, executed): (&[String], Option<std::time::Duration>),
    lines: &mut Vec<String>,
) {
    // PostgreSQL prints the planning's buffers with BUFFERS whether or not
    // the summary is on, and only when there were some.
    if options.buffers
        && let Some(b) = buffers(planning.hit, planning.read)
    {
        lines.push("Planning:".into());
        lines.push(format!("  {b}"));
    }
    if options.summary {
        lines.push(format!("Planning Time: {:.3} ms", millis(planning.elapsed)));
    }
    lines.extend(triggers.iter().cloned());
    if options.summary
        && let Some(elapsed) = executed
    {
        lines.push(format!("Execution Time: {:.3} ms", millis(elapsed)));
    }
}

/// EXPLAIN's result: one `QUERY PLAN` row per line.
pub(crate) fn plan_output(lines: Vec<String>) -> Output {
    Output::Rows {
        columns: vec![Column {
            name: "QUERY PLAN".into(),
            type_oid: SqlType::Text.oid(),
        }],
        tag: "EXPLAIN".into(),
        style: None,
        rows: lines.into_iter().map(|l| vec![Value::Text(l)]).collect(),
    }
}

pub(crate) fn millis(d: std::time::Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// What running the query did.
pub(crate) struct Actual {
    /// Rows returned.
    pub rows: u64,
    /// Rows the source produced.
    pub scanned: u64,
    /// Aggregate rows.
    pub groups: u64,
    /// Rows and scan counts per source node.
    pub nodes: crate::from::SourceCounts,
    pub hit: u64,
    pub read: u64,
    pub elapsed: std::time::Duration,
}

pub(crate) fn parse_options(analyze: bool, list: &[UtilityOption]) -> Result<Options, SqlError> {
    let mut options = Options {
        analyze,
        buffers: false,
        timing: true,
        summary: false,
        costs: true,
    };
    let mut summary = None;
    for option in list {
        let name = names::ident(&option.name);
        if name == "format" {
            format(option)?;
            continue;
        }
        let on = match &option.arg {
            None => true,
            Some(Expr::Value(v)) => match &v.value {
                sqlparser::ast::Value::Boolean(b) => *b,
                sqlparser::ast::Value::Number(n, _) => n != "0",
                sqlparser::ast::Value::SingleQuotedString(s) => bool_word(&name, s)?,
                other => bool_word(&name, &other.to_string())?,
            },
            Some(Expr::Identifier(id)) => bool_word(&name, &id.value)?,
            Some(other) => bool_word(&name, &other.to_string())?,
        };
        match name.as_str() {
            "analyze" => options.analyze = on,
            "buffers" => options.buffers = on,
            "timing" => options.timing = on,
            "summary" => summary = Some(on),
            "costs" => options.costs = on,
            // Accepted; folio prints none of them.
            "verbose" | "settings" | "wal" => {}
            _ => {
                return Err(SqlError::new(
                    "42601",
                    format!("unrecognized EXPLAIN option \"{name}\""),
                ));
            }
        }
    }
    // PostgreSQL: SUMMARY defaults to on with ANALYZE.
    options.summary = summary.unwrap_or(options.analyze);
    Ok(options)
}

/// `FORMAT text` (folio's only format; given again, the last one
/// counts, as PostgreSQL's); JSON, XML and YAML are 0A000, another word
/// 22023 at the option, as PostgreSQL's.
fn format(option: &UtilityOption) -> Result<(), SqlError> {
    let value = match &option.arg {
        Some(Expr::Identifier(id)) => id.value.to_ascii_lowercase(),
        Some(Expr::Value(v)) => match &v.value {
            sqlparser::ast::Value::SingleQuotedString(s) => s.to_ascii_lowercase(),
            other => other.to_string(),
        },
        Some(other) => other.to_string(),
        None => String::new(),
    };
    match value.as_str() {
        "text" => Ok(()),
        "json" | "xml" | "yaml" => Err(SqlError::unsupported("EXPLAIN (FORMAT ...)")),
        _ => Err(SqlError::new(
            "22023",
            format!("unrecognized value for EXPLAIN option \"format\": \"{value}\""),
        )
        .near(Some(option.name.span.start))),
    }
}

fn bool_word(name: &str, word: &str) -> Result<bool, SqlError> {
    types::parse_bool(word)
        .ok_or_else(|| SqlError::new("22023", format!("{name} requires a Boolean value")))
}

/// `Buffers: shared hit=N read=M`, without the zero parts; `None` when
/// both are zero (PostgreSQL prints no line then).
pub(crate) fn buffers(hit: u64, read: u64) -> Option<String> {
    let mut parts = Vec::new();
    if hit > 0 {
        parts.push(format!("hit={hit}"));
    }
    if read > 0 {
        parts.push(format!("read={read}"));
    }
    (!parts.is_empty()).then(|| format!("Buffers: shared {}", parts.join(" ")))
}

/// One plan node: its title, details, actual rows, children, and
/// subplans (PostgreSQL's `CTE name`), each under its label.
pub(crate) struct Node {
    pub title: String,
    pub details: Vec<String>,
    /// The planner's estimate (`estimate.rs`), printed with COSTS.
    pub estimate: Estimate,
    pub rows: Option<u64>,
    pub children: Vec<Node>,
    subplans: Vec<(String, Node)>,
    /// An Append whose children an execution's start prunes (README
    /// "Partitioned tables", run-time pruning), and the partitioned
    /// table's name in the query: [`Node::start`].
    at_start: Option<(crate::partitions::run_time::AtStart, String)>,
    /// The children that pruning removed (shown after the buffers, as
    /// PostgreSQL's `Subplans Removed: N`).
    removed: usize,
}

impl Node {
    pub fn new(title: impl Into<String>, estimate: Estimate, rows: Option<u64>) -> Node {
        Node {
            title: title.into(),
            details: Vec::new(),
            estimate,
            rows,
            children: Vec::new(),
            subplans: Vec::new(),
            at_start: None,
            removed: 0,
        }
    }

    /// The tree as the executor starts it with `env`'s parameters, as
    /// PostgreSQL's EXPLAIN shows it: an Append pruned at the start keeps
    /// the children run, says `Subplans Removed: N`, and names the
    /// partitions `name_1`, `name_2`, ... by their places among those
    /// kept (the name alone where it is the partition's).
    pub fn start(&mut self, env: &Env<'_>) {
        if let Some((at_start, qualifier)) = self.at_start.take() {
            let kept = at_start.branches(env);
            let removed = self.children.len() - kept.len();
            let mut children = std::mem::take(&mut self.children);
            for (place, &n) in kept.iter().enumerate() {
                let mut child =
                    std::mem::replace(&mut children[n], Node::new("", NO_ESTIMATE, None));
                let part = folio_catalog::unqualified(at_start.part_name(n));
                let label = |alias: String| match alias == part {
                    true => format!(" on {part}"),
                    false => format!(" on {part} {alias}"),
                };
                let planned = label(format!("{qualifier}_{}", n + 1));
                if let Some(scan) = child.title.strip_suffix(&planned) {
                    child.title = format!("{scan}{}", label(format!("{qualifier}_{}", place + 1)));
                }
                self.children.push(child);
            }
            self.removed = removed;
        }
        for child in &mut self.children {
            child.start(env);
        }
        for (_, subplan) in &mut self.subplans {
            subplan.start(env);
        }
    }

    /// The node and its children as lines, with PostgreSQL's indentation
    /// (`->  ` for a child, details 2 spaces past it); `buffers` goes on
    /// every node of the chain from the top down to the first with
    /// several children (a node's count includes its children's; folio
    /// counts per statement).
    /// `pad`: the spaces before its `->  ` (`None` for the top node).
    pub fn render(
        &self,
        pad: Option<usize>,
        costs: bool,
        timing: Option<f64>,
        buffers: Option<&str>,
        lines: &mut Vec<String>,
    ) {
        let (head, width) = match pad {
            None => (String::new(), 2),
            Some(p) => (format!("{}->  ", " ".repeat(p)), p + 6),
        };
        let indent = " ".repeat(width);
        let mut title = format!("{head}{}", self.title);
        if costs {
            let e = &self.estimate;
            title.push_str(&format!(
                "  (cost={:.2}..{:.2} rows={:.0} width={})",
                e.startup, e.total, e.rows, e.width
            ));
        }
        if let Some(rows) = self.rows {
            // The nodes run to completion one after the other: each is
            // given the statement's time.
            let time = timing.map_or(String::new(), |ms| format!("time=0.000..{ms:.3} "));
            title.push_str(&format!(" (actual {time}rows={rows} loops=1)"));
        }
        lines.push(title);
        for d in &self.details {
            lines.push(format!("{indent}{d}"));
        }
        if let Some(b) = buffers {
            lines.push(format!("{indent}{b}"));
        }
        if self.removed > 0 {
            lines.push(format!("{indent}Subplans Removed: {}", self.removed));
        }
        let below = buffers.filter(|_| self.children.len() == 1);
        for (label, subplan) in &self.subplans {
            lines.push(format!("{indent}{label}"));
            subplan.render(Some(width + 2), costs, timing, None, lines);
        }
        for child in &self.children {
            child.render(Some(width), costs, timing, below, lines);
        }
    }
}

/// A node whose estimate is set after it is made.
const NO_ESTIMATE: Estimate = Estimate {
    startup: 0.0,
    total: 0.0,
    rows: 0.0,
    width: 0,
};

/// The plan as lines.
fn describe(
    planned: &Planned,
    options: Options,
    actual: Option<&Actual>,
    env: &Env<'_>,
    lines: &mut Vec<String>,
) {
    let mut node = planned_node(planned, actual);
    node.start(env);
    let buffer_line = actual
        .filter(|_| options.buffers)
        .and_then(|a| buffers(a.hit, a.read));
    let timing = actual.filter(|_| options.timing).map(|a| millis(a.elapsed));
    node.render(None, options.costs, timing, buffer_line.as_deref(), lines);
}

/// A planned query's node tree.
pub(crate) fn planned_node(planned: &Planned, actual: Option<&Actual>) -> Node {
    let analyzed = |n: u64| actual.map(|_| n);
    let names = planned.scope.display_names();
    let types = planned.scope.types();
    let needed = est::needed_columns(planned);
    let output_width = est::output_width(planned);
    let mut node = source_node(&planned.source, &planned.scope, (0, &needed), actual);
    // A LIMIT's rows (with its OFFSET's) bound a sort right under it.
    let bound = planned
        .limit
        .map(|l| l.saturating_add(planned.offset) as f64);
    let whole = !planned.windows.is_empty()
        || planned.distinct != crate::query::Distinct::No
        || !planned.post_sort.is_empty();
    match &planned.source {
        Source::One => node.estimate = est::result(&planned.filter, output_width),
        _ => node.estimate = est::filtered(node.estimate, &planned.filter),
    }
    if !planned.filter.is_empty() {
        // Without FROM the WHERE is tested once; with one it holds the
        // conditions on correlated subqueries, tested per row.
        let label = match planned.source {
            Source::One => "One-Time Filter",
            _ => "Filter",
        };
        let text = conjunction(&planned.filter, &names, &types);
        node.details.push(format!(
            "{label}: {}",
            per_row_subplans(text, &planned.subplans)
        ));
    }
    if !planned.sort.is_empty() {
        let keys: Vec<String> = planned.sort.iter().map(|k| sort_key(&names, k)).collect();
        let source_bound = match (&planned.shape, whole) {
            (Shape::Project(_), false) => bound,
            _ => None,
        };
        let estimate = est::sort(node.estimate, source_bound);
        let mut sort = Node::new("Sort", estimate, analyzed(actual.map_or(0, |a| a.scanned)));
        sort.details = sort_details(&keys);
        sort.children.push(node);
        node = sort;
    }
    if let Shape::Aggregate {
        grouping, order, ..
    } = &planned.shape
    {
        let aggregate_names = aggregate_names(grouping, &names, &types);
        let groups = analyzed(actual.map_or(0, |a| a.groups));
        let (title, mut details) = if grouping.has_sets() {
            set_keys(grouping, &aggregate_names)
        } else if grouping.keys.is_empty() {
            ("Aggregate", Vec::new())
        } else {
            let keys = aggregate_names[..grouping.keys.len()].join(", ");
            ("HashAggregate", vec![format!("Group Key: {keys}")])
        };
        if let Some(h) = &grouping.having {
            details.push(format!("Filter: {}", deparse(h, &aggregate_names, &[])));
        }
        let grouped = match grouping.keys.is_empty() {
            true => est::Grouped::Plain,
            false => {
                let keys: Vec<&Scalar> = grouping.keys.iter().collect();
                est::Grouped::Hashed {
                    keys: keys.len(),
                    groups: est::key_groups(planned, &keys, node.estimate.rows),
                }
            }
        };
        let estimate = est::aggregate(
            node.estimate,
            grouped,
            est::call_costs(&grouping.calls),
            grouping.having.as_ref(),
            output_width,
        );
        let mut aggregate = Node::new(title, estimate, groups);
        aggregate.details = details;
        aggregate.children.push(node);
        node = aggregate;
        if !order.is_empty() {
            let plain = aggregate_plain(grouping);
            let texts: Vec<String> = aggregate_names
                .iter()
                .zip(&plain)
                .map(|(name, plain)| key_text(name.clone(), *plain))
                .collect();
            let keys: Vec<String> = order.iter().map(|k| sort_key(&texts, k)).collect();
            // Under a Limit the sort hands on only the groups it takes.
            let handed = match crate::query::first_groups(planned) {
                Some(n) => actual.map_or(0, |a| a.groups.min(n as u64)),
                None => actual.map_or(0, |a| a.groups),
            };
            let estimate = est::sort(
                node.estimate,
                crate::query::first_groups(planned).map(|n| n as f64),
            );
            let mut sort = Node::new("Sort", estimate, analyzed(handed));
            sort.details = sort_details(&keys);
            sort.children.push(node);
            node = sort;
        }
    }
    // The rows before the select list: the source's, or the aggregate
    // rows; then the window calls' values.
    // Which of them are plain columns (a sort key that is not prints in
    // parentheses, as PostgreSQL prints a key its input computes).
    let (items, mut item_names, mut item_types, mut plain): (&[Scalar], _, _, Vec<bool>) =
        match &planned.shape {
            Shape::Project(items) => (items, names.clone(), types.clone(), vec![true; names.len()]),
            Shape::Aggregate {
                grouping, output, ..
            } => (
                output,
                aggregate_names(grouping, &names, &types),
                Vec::new(),
                aggregate_plain(grouping),
            ),
        };
    if !planned.windows.is_empty() {
        let input = match planned.shape {
            Shape::Project(_) => actual.map_or(0, |a| a.scanned),
            Shape::Aggregate { .. } => actual.map_or(0, |a| a.groups),
        };
        node = window_nodes(
            node,
            &planned.windows,
            (&item_names, &item_types, &plain),
            analyzed(input),
            output_width,
        );
        let calls: Vec<String> = planned
            .windows
            .calls
            .iter()
            .map(|c| window_call_text(c, &item_names, &item_types))
            .collect();
        item_names.extend(calls);
        plain.resize(item_names.len(), false);
        if !item_types.is_empty() {
            item_types.extend(planned.windows.calls.iter().map(|c| c.ty));
        }
    }
    if !planned.post_sort.is_empty() {
        // A sort of expressions over the result rows: each key as the
        // expression it sorts by.
        let texts: Vec<String> = items
            .iter()
            .map(|s| key_text(deparse(s, &item_names, &item_types), is_plain(s, &plain)))
            .collect();
        let keys: Vec<String> = planned
            .post_sort
            .iter()
            .map(|k| sort_key(&texts, k))
            .collect();
        let post_bound = bound.filter(|_| planned.distinct == crate::query::Distinct::No);
        let estimate = est::sort(node.estimate, post_bound);
        let mut sort = Node::new("Sort", estimate, analyzed(actual.map_or(0, |a| a.rows)));
        sort.details = sort_details(&keys);
        sort.children.push(node);
        node = sort;
    }
    if planned.distinct != crate::query::Distinct::No {
        let keys: Vec<&Scalar> = match (&planned.distinct, &planned.shape) {
            (crate::query::Distinct::On(on), Shape::Project(items)) => {
                on.iter().filter_map(|&i| items.get(i)).collect()
            }
            (_, Shape::Project(items)) => items.iter().collect(),
            _ => Vec::new(),
        };
        let count = match &planned.distinct {
            crate::query::Distinct::On(on) => on.len(),
            _ => planned.types.len(),
        };
        let groups = match keys.len() == count {
            true => est::key_groups(planned, &keys, node.estimate.rows),
            false => est::clamp_rows(node.estimate.rows * 0.1),
        };
        let estimate = est::unique(node.estimate, count, groups);
        let mut unique = Node::new("Unique", estimate, analyzed(actual.map_or(0, |a| a.rows)));
        unique.children.push(node);
        node = unique;
    }
    // (Counts with a parameter: a Limit whose count is unknown here.)
    if planned.limit.is_some() || planned.offset > 0 || planned.at_run.is_some() {
        let estimate = est::limit(
            node.estimate,
            planned.offset as f64,
            planned.limit.map(|l| l as f64),
        );
        let mut limit = Node::new("Limit", estimate, analyzed(actual.map_or(0, |a| a.rows)));
        limit.children.push(node);
        node = limit;
    }
    node
}

/// The node of a source (recursively for joins); `offset`: where its
/// columns start in the query's row.
/// `needed`: the columns of the query's row read above it (for its
/// estimated width).
pub(crate) fn source_node(
    source: &Source,
    scope: &Scope,
    (offset, needed): (usize, &[usize]),
    actual: Option<&Actual>,
) -> Node {
    let rows = |s: &Source| actual.map(|a| a.nodes.of(s).map_or(0, |n| n.0));
    let names = scope.display_names();
    let types = scope.types();
    // A leaf's filter reads the leaf's own row (`from.rs` rebases it):
    // the scope's table at `offset`. PostgreSQL names its columns bare,
    // but a subquery scan's qualified.
    let leaf = scope
        .tables
        .iter()
        .filter(|t| t.offset == offset)
        .max_by_key(|t| t.names.len());
    let (own, own_types) = leaf.map_or((&[][..], &[][..]), |t| (&t.names[..], &t.types[..]));
    let qualified = &names[offset..offset + own.len()];
    // The width of what it hands on: the needed columns of its own.
    let width = est::span_width(source, &types, (offset, own.len()), needed);
    match source {
        // (Its estimate is the query's: `planned_node`.)
        Source::One => Node::new("Result", NO_ESTIMATE, actual.map(|_| 1)),
        Source::Derived {
            label,
            planned,
            filter,
            ..
        } => {
            // A recursive CTE's scan shows the CTE as a subplan under it,
            // as PostgreSQL's.
            // A partitioned table's partitions (`from.rs`
            // `partitioned_base`): their Append alone.
            if label.is_empty() {
                let mut node = planned_node(planned, None);
                node.estimate = est::filtered(node.estimate, filter);
                push_filter(&mut node, filter, qualified, own_types);
                return node;
            }
            let cte = matches!(planned.source, Source::Recursive { .. });
            let title = match cte {
                true => format!("CTE Scan on {label}"),
                false => format!("Subquery Scan on {label}"),
            };
            let inner = planned_node(planned, None);
            let estimate = match cte {
                true => est::cte_scan(inner.estimate, filter, width),
                false => est::subquery_scan(inner.estimate, filter, width),
            };
            let mut node = Node::new(title, estimate, rows(source));
            push_filter(&mut node, filter, qualified, own_types);
            match cte {
                true => {
                    let name = &planned.scope.tables[0].qualifier;
                    node.subplans.push((format!("CTE {name}"), inner));
                }
                false => node.children.push(inner),
            }
            node
        }
        Source::Append {
            branches,
            at_start,
            qualifier,
        } => {
            // Counted as a UNION ALL's: the operation's rows, not each
            // branch's.
            let children: Vec<Node> = branches.iter().map(|b| planned_node(b, None)).collect();
            let estimates: Vec<Estimate> = children.iter().map(|c| c.estimate).collect();
            let mut append = Node::new("Append", est::append(&estimates, width), rows(source));
            append.children = children;
            append.at_start = Some(((**at_start).clone(), qualifier.clone()));
            append
        }
        Source::Leaves { label, scans } => {
            // (A MERGE's target, which EXPLAIN does not reach: 0A000.)
            let children: Vec<Node> = (scans.iter())
                .map(|(relation, plan, _)| {
                    let leaf = folio_catalog::unqualified(&relation.def.name);
                    let estimate = est::table_scan(relation, None, &[], &plan.filter, width);
                    Node::new(format!("Seq Scan on {leaf} {label}"), estimate, None)
                })
                .collect();
            let estimates: Vec<Estimate> = children.iter().map(|c| c.estimate).collect();
            let mut append = Node::new("Append", est::append(&estimates, width), rows(source));
            append.children = children;
            append
        }
        Source::Recursive { base, step, .. } => {
            let (base, step) = (planned_node(base, None), planned_node(step, None));
            let estimate = est::recursive_union(base.estimate, step.estimate);
            let mut union = Node::new("Recursive Union", estimate, None);
            union.children.push(base);
            union.children.push(step);
            union
        }
        Source::Sequence { label, filter, .. } => {
            // A sequence's relation is one page of one row.
            let mut estimate = est::opaque_scan(1.0, filter, width);
            estimate.total += crate::cost::SEQ_PAGE_COST;
            let mut node = Node::new(format!("Seq Scan on {label}"), estimate, rows(source));
            push_filter(&mut node, filter, own, own_types);
            node
        }
        Source::WorkTable { label, filter, .. } => {
            // PostgreSQL's guess at a work table: 10 rows of the base's
            // (folio's plan keeps no estimate of the base: 10).
            let estimate = est::opaque_scan(10.0, filter, width);
            let mut node = Node::new(format!("WorkTable Scan on {label}"), estimate, rows(source));
            push_filter(&mut node, filter, own, own_types);
            node
        }
        Source::SetOp {
            op,
            all,
            left,
            right,
            ..
        } => {
            // The inputs' nodes carry no actual counts (folio counts the
            // operation's rows, not each input's).
            let union_all = *op == SetKind::Union && *all;
            let mut append = Node::new(
                "Append",
                NO_ESTIMATE,
                if union_all { rows(source) } else { None },
            );
            let mut sides = Vec::new();
            for side in [left, right] {
                let child = planned_node(side, None);
                sides.push(child.estimate);
                // Nested UNION ALLs are one Append, as PostgreSQL's.
                let nested = matches!(
                    &side.source,
                    Source::SetOp {
                        op: SetKind::Union,
                        all: true,
                        ..
                    }
                );
                match nested && union_all && child.title == "Append" {
                    true => append.children.extend(child.children),
                    false => append.children.push(child),
                }
            }
            let estimates: Vec<Estimate> = append.children.iter().map(|c| c.estimate).collect();
            let width = sides.first().map_or(0, |e| e.width);
            append.estimate = est::append(&estimates, width);
            let columns = names.len();
            if union_all {
                append
            } else if *op != SetKind::Union {
                // PostgreSQL's node for a hashed INTERSECT / EXCEPT.
                let word = if *op == SetKind::Intersect {
                    "Intersect"
                } else {
                    "Except"
                };
                let all = if *all { " All" } else { "" };
                // EXCEPT keeps at most the left's rows, INTERSECT the
                // smaller side's.
                let kept = match *op == SetKind::Intersect {
                    true => sides[0].rows.min(sides[1].rows),
                    false => sides[0].rows,
                };
                let estimate = est::set_op(append.estimate, columns, kept);
                let mut set_op =
                    Node::new(format!("HashSetOp {word}{all}"), estimate, rows(source));
                set_op.children.push(append);
                set_op
            } else {
                let grouped = est::Grouped::Hashed {
                    keys: columns,
                    groups: append.estimate.rows,
                };
                let calls = est::CallCosts::default();
                let estimate = est::aggregate(append.estimate, grouped, calls, None, width);
                let mut unique = Node::new("HashAggregate", estimate, rows(source));
                unique
                    .details
                    .push(format!("Group Key: {}", names.join(", ")));
                unique.children.push(append);
                unique
            }
        }
        Source::System { label, filter, .. } => {
            // PostgreSQL reads its catalogs' real sizes; folio makes the
            // rows at each execution: 1000 assumed.
            let estimate = est::opaque_scan(1000.0, filter, width);
            let mut node = Node::new(format!("Seq Scan on {label}"), estimate, rows(source));
            push_filter(&mut node, filter, own, own_types);
            node
        }
        Source::Function { scan, filter, .. } => {
            let call_cost: f64 =
                est::sum(scan.args.iter().map(est::expression_cost)) + est::CPU_OPERATOR_COST;
            let estimate = est::function_scan(call_cost, est::function_rows(scan), filter, width);
            // A select list's set-returning calls in a query without
            // FROM (`project_set.rs`): PostgreSQL's ProjectSet over its
            // one-row Result.
            if leaf.is_some_and(|t| crate::project_set::is_label(&t.qualifier)) && filter.is_empty()
            {
                let mut node = Node::new("ProjectSet", estimate, rows(source));
                let one = est::result(&[], 0);
                node.children
                    .push(Node::new("Result", one, actual.map(|_| 1)));
                return node;
            }
            // `on f alias`, the alias when it differs (PostgreSQL's
            // ExplainTargetRel).
            let name = scan.name();
            let title = match leaf.map(|t| t.qualifier.as_str()) {
                Some(alias) if alias != name => format!("Function Scan on {name} {alias}"),
                _ => format!("Function Scan on {name}"),
            };
            let mut node = Node::new(title, estimate, rows(source));
            push_filter(&mut node, filter, own, own_types);
            node
        }
        Source::Table {
            label,
            relation,
            plan,
            lock,
            ..
        } => {
            // A scan's conditions name its columns unqualified (PostgreSQL
            // qualifies them only with VERBOSE).
            let own: Vec<String> = relation
                .def
                .columns
                .iter()
                .map(|c| c.name.clone())
                .collect();
            let counts = actual.and_then(|a| a.nodes.of(source));
            let index = match &plan.access {
                Access::Seq => None,
                Access::Index { index, only, .. } => Some((*index, *only)),
            };
            let estimate = est::table_scan(relation, index, &plan.index_cond, &plan.filter, width);
            let scan = scan_node(
                label,
                relation,
                plan,
                &own,
                (estimate, rows(source)),
                counts.map(|c| c.1),
            );
            match lock {
                None => scan,
                Some(_) => {
                    let estimate = est::lock_rows(scan.estimate);
                    let mut node = Node::new("LockRows", estimate, rows(source));
                    node.children.push(scan);
                    node
                }
            }
        }
        Source::Join {
            kind,
            left,
            right,
            method,
            condition,
            filter,
            right_offset,
            right_width,
            ..
        } => {
            // The sides hand on what is read above and what the join
            // reads itself; the join's conditions as one list over its
            // row (hash keys as equalities).
            let mut conditions: Vec<Scalar> = condition.clone();
            if let Method::Hash {
                left_keys,
                right_keys,
            } = method
            {
                for (l, r) in left_keys.iter().zip(right_keys) {
                    let r = r.map_columns(&|c| c + *right_offset);
                    conditions.push(Scalar::Compare(
                        crate::scalar::Cmp::Eq,
                        Box::new(l.clone()),
                        Box::new(r),
                    ));
                }
            }
            let mut below = needed.to_vec();
            conditions
                .iter()
                .chain(filter)
                .for_each(|s| s.columns(&mut below));
            below.sort_unstable();
            below.dedup();
            let span = right_offset + right_width - offset;
            let width = est::span_width(source, &types, (offset, span), needed);
            let left_node = source_node(left, scope, (offset, &below), actual);
            let right_input = source_node(right, scope, (*right_offset, &below), actual);
            let (outer, inner) = (left_node.estimate, right_input.estimate);
            let selectivity =
                est::join_selectivity((source, offset), &conditions, outer.rows, inner.rows);
            let joined = est::join_rows(*kind, outer.rows, inner.rows, selectivity);
            let rows_out = est::clamp_rows(joined * est::default_selectivity(filter));
            let left_kind = kind.explain_word();
            let (title, right_node, estimate) = match method {
                Method::Hash { right_keys, .. } => {
                    let mut hash = Node::new("Hash", est::hash(inner), rows(right));
                    hash.children.push(right_input);
                    let distinct = match right_keys.as_slice() {
                        [Scalar::Column(c)] => {
                            est::column_distinct(
                                (right, *right_offset),
                                c + right_offset,
                                inner.rows,
                            )
                            .0
                        }
                        _ => None,
                    };
                    let quals = est::quals_cost(condition) + est::quals_cost(filter);
                    let estimate = est::hash_join(
                        outer,
                        inner,
                        right_keys.len(),
                        est::bucket_rows(inner.rows, distinct),
                        quals,
                        rows_out,
                        width,
                    );
                    (format!("Hash{left_kind} Join"), hash, estimate)
                }
                Method::NestedLoop => {
                    let quals = est::quals_cost(condition) + est::quals_cost(filter);
                    let estimate = est::nested_loop(outer, inner, quals, rows_out, width);
                    (
                        format!("Nested Loop{left_kind} Join")
                            .replace("Nested Loop Join", "Nested Loop"),
                        right_input,
                        estimate,
                    )
                }
            };
            let mut node = Node::new(title, estimate, rows(source));
            if let Method::Hash {
                left_keys,
                right_keys,
            } = method
            {
                // The right keys are over the right table's own row.
                let offset = *right_offset;
                let pairs: Vec<String> = left_keys
                    .iter()
                    .zip(right_keys)
                    .map(|(l, r)| {
                        let r = r.map_columns(&|c| c + offset);
                        format!(
                            "({} = {})",
                            deparse(l, &names, &types),
                            deparse(&r, &names, &types)
                        )
                    })
                    .collect();
                node.details.push(format!(
                    "Hash Cond: {}",
                    if pairs.len() == 1 {
                        pairs[0].clone()
                    } else {
                        format!("({})", pairs.join(" AND "))
                    }
                ));
            }
            if !condition.is_empty() {
                node.details.push(format!(
                    "Join Filter: {}",
                    conjunction(condition, &names, &types)
                ));
            }
            push_filter(&mut node, filter, &names, &types);
            node.children.push(left_node);
            // A select list's set-returning calls joined to the rows they
            // repeat (`project_set.rs`): PostgreSQL's ProjectSet over them.
            match &**right {
                Source::Derived { label, .. }
                    if crate::project_set::is_label(label)
                        && condition.is_empty()
                        && filter.is_empty() =>
                {
                    node.title = "ProjectSet".into();
                }
                _ => node.children.push(right_node),
            }
            node
        }
    }
}

/// A node's identity in the run's counts.
pub(crate) fn scan_node(
    table: &str,
    relation: &folio_catalog::Relation,
    plan: &ScanPlan,
    columns: &[String],
    (estimate, rows): (Estimate, Option<u64>),
    counts: Option<crate::scan::ScanCounts>,
) -> Node {
    let mut details = Vec::new();
    let title = match &plan.access {
        Access::Seq if let Some(sample) = &plan.sample => {
            let mut sampling = format!(
                "Sampling: {} ({})",
                sample.method.name(),
                conjunction(
                    std::slice::from_ref(&sample.percent),
                    columns,
                    &relation.types
                )
            );
            if let Some(seed) = &sample.repeatable {
                let seed = conjunction(std::slice::from_ref(seed), columns, &relation.types);
                sampling.push_str(&format!(" REPEATABLE ({seed})"));
            }
            details.push(sampling);
            format!("Sample Scan on {table}")
        }
        Access::Seq => format!("Seq Scan on {table}"),
        Access::Index {
            index,
            direction,
            only,
            ..
        } => {
            let kind = if *only {
                "Index Only Scan"
            } else {
                "Index Scan"
            };
            let backward = if *direction == folio_btree::Direction::Backward {
                " Backward"
            } else {
                ""
            };
            if !plan.index_cond.is_empty() {
                details.push(format!(
                    "Index Cond: {}",
                    conjunction(&plan.index_cond, columns, &relation.types)
                ));
            }
            format!(
                "{kind}{backward} using {} on {table}",
                folio_catalog::unqualified(&relation.indexes[*index].def.name)
            )
        }
    };
    if !plan.filter.is_empty() {
        details.push(format!(
            "Filter: {}",
            conjunction(&plan.filter, columns, &relation.types)
        ));
        // (PostgreSQL's text format leaves out a zero.)
        if let Some(c) = counts.filter(|c| c.removed_by_filter > 0) {
            details.push(format!("Rows Removed by Filter: {}", c.removed_by_filter));
        }
    }
    if let (Access::Index { only: true, .. }, Some(c)) = (&plan.access, counts) {
        details.push(format!("Heap Fetches: {}", c.heap_fetches));
    }
    let mut node = Node::new(title, estimate, rows);
    node.details = details;
    node
}

/// A Sort node's details: its keys. (PostgreSQL's ANALYZE adds `Sort
/// Method: ... Memory: NkB`; folio measures neither, so prints neither.)
fn sort_details(keys: &[String]) -> Vec<String> {
    vec![format!("Sort Key: {}", keys.join(", "))]
}

/// An aggregate call as PostgreSQL prints it (`count(*)`, `sum(x)`).
fn call_text(call: &crate::aggregate::Call, columns: &[String]) -> String {
    use crate::aggregate::Kind;
    if call.kind == Kind::CountStar {
        return "count(*)".into();
    }
    let mut args: Vec<String> = call
        .arg
        .iter()
        .chain(call.delimiter.iter())
        .map(|a| deparse(a, columns, &[]))
        .collect();
    if call.distinct && !args.is_empty() {
        args[0] = format!("DISTINCT {}", args[0]);
    }
    format!("{}({})", call.kind.name(), args.join(", "))
}

fn sort_key(columns: &[String], key: &SortKey) -> String {
    directed(columns[key.column].clone(), key.descending, key.nulls_first)
}

/// A sort key's text with its direction, as PostgreSQL prints it (NULLS
/// only when not the direction's default).
fn directed(mut text: String, descending: bool, nulls_first: bool) -> String {
    if descending {
        text.push_str(" DESC");
    }
    if nulls_first != descending {
        text.push_str(if nulls_first {
            " NULLS FIRST"
        } else {
            " NULLS LAST"
        });
    }
    text
}

/// The nodes of a query's windows over `node` (rows named `names`): per
/// window in the order they run, a Sort unless the rows are already in
/// its order, and a WindowAgg.
fn window_nodes(
    mut node: Node,
    windows: &Windows,
    (names, types, plain): (&[String], &[SqlType], &[bool]),
    rows: Option<u64>,
    output_width: u32,
) -> Node {
    let mut sorted: Vec<String> = Vec::new();
    for (w, window) in windows.windows.iter().enumerate() {
        let keys: Vec<String> = window
            .sort()
            .into_iter()
            .map(|(e, descending, nulls_first)| {
                let text = key_text(deparse(e, names, types), is_plain(e, plain));
                directed(text, descending, nulls_first)
            })
            .collect();
        if !sorted.starts_with(&keys) {
            let mut sort = Node::new("Sort", est::sort(node.estimate, None), rows);
            sort.details = sort_details(&keys);
            sort.children.push(node);
            node = sort;
            sorted = keys;
        }
        let calls = (windows.calls.iter())
            .filter(|c| c.window == w)
            .map(|c| est::CPU_OPERATOR_COST + est::sum(c.args.iter().map(est::expression_cost)));
        let calls = est::sum(calls);
        let estimate = est::window_agg(node.estimate, calls, window.keys(), output_width);
        let mut aggregate = Node::new("WindowAgg", estimate, rows);
        aggregate.children.push(node);
        node = aggregate;
    }
    node
}

/// A sort key's text: in parentheses unless a plain column.
fn key_text(text: String, plain: bool) -> String {
    match plain {
        true => text,
        false => format!("({text})"),
    }
}

/// Whether an expression is a plain column of a row whose columns are
/// `plain` or not.
fn is_plain(e: &Scalar, plain: &[bool]) -> bool {
    matches!(e, Scalar::Column(c) if plain.get(*c) == Some(&true))
}

/// Which of an aggregate row's columns are plain: group keys that are
/// columns.
fn aggregate_plain(grouping: &Grouping) -> Vec<bool> {
    grouping
        .keys
        .iter()
        .map(|k| matches!(k, Scalar::Column(_)))
        .chain(grouping.calls.iter().map(|_| false))
        .collect()
}

/// A window call as PostgreSQL 15 prints it (`rank() OVER (?)`).
fn window_call_text(call: &WindowCall, names: &[String], types: &[SqlType]) -> String {
    let function = match &call.func {
        WindowFunc::Aggregate(aggregate) => call_text(aggregate, names),
        WindowFunc::Window(kind) => {
            let args: Vec<String> = call.args.iter().map(|a| deparse(a, names, types)).collect();
            format!("{}({})", kind.name(), args.join(", "))
        }
    };
    format!("{function} OVER (?)")
}

/// The names of a grouped query's aggregate row: its group keys, then its
/// aggregate calls (and GROUPING marks).
fn aggregate_names(grouping: &Grouping, names: &[String], types: &[SqlType]) -> Vec<String> {
    let keys: Vec<String> = (grouping.keys.iter())
        .map(|k| deparse(k, names, types))
        .collect();
    let calls = grouping
        .calls
        .iter()
        .enumerate()
        .map(|(i, c)| match c.kind {
            crate::aggregate::Kind::Grouping => {
                let args: Vec<&str> = (grouping.marks[i].iter())
                    .map(|&k| keys[k].as_str())
                    .collect();
                format!("GROUPING({})", args.join(", "))
            }
            _ => call_text(c, names),
        });
    keys.iter().cloned().chain(calls).collect()
}

/// A grouping by sets as PostgreSQL 15 shows its hashed form: a `Hash
/// Key` line per set that has keys, then a `Group Key: ()` per empty set
/// (`MixedAggregate` when there are both kinds).
fn set_keys(grouping: &Grouping, aggregate_names: &[String]) -> (&'static str, Vec<String>) {
    let hashed: Vec<String> = (grouping.sets.iter())
        .filter(|set| !set.is_empty())
        .map(|set| {
            let keys: Vec<&str> = set.iter().map(|&k| aggregate_names[k].as_str()).collect();
            format!("Hash Key: {}", keys.join(", "))
        })
        .collect();
    let empty = grouping.sets.iter().filter(|set| set.is_empty()).count();
    let title = match (hashed.is_empty(), empty) {
        (false, 0) => "HashAggregate",
        (false, _) => "MixedAggregate",
        (true, _) => "Aggregate",
    };
    let mut details = hashed;
    details.extend(std::iter::repeat_n("Group Key: ()".to_string(), empty));
    (title, details)
}

/// A node's `Filter:` line, if it has conditions (over a row named
/// `columns`).
fn push_filter(node: &mut Node, filter: &[Scalar], columns: &[String], types: &[SqlType]) {
    if !filter.is_empty() {
        node.details
            .push(format!("Filter: {}", conjunction(filter, columns, types)));
    }
}

/// `text` with each correlated subquery that has no hashed form
/// (`hashed_subplan.rs`) named `(SubPlan N)`, as it runs per outer row:
/// [`deparse`], which does not see the subqueries, names every EXISTS
/// and IN `(hashed SubPlan N)`.
fn per_row_subplans(mut text: String, subplans: &[crate::subquery::Subplan]) -> String {
    for (n, sub) in subplans.iter().enumerate() {
        if sub.is_correlated() && sub.hashed.is_none() {
            let hashed = format!("(hashed SubPlan {})", n + 1);
            text = text.replace(&hashed, &format!("(SubPlan {})", n + 1));
        }
    }
    text
}

/// Conditions joined by AND, each in parentheses, as PostgreSQL prints
/// them.
pub(crate) fn conjunction(list: &[Scalar], columns: &[String], types: &[SqlType]) -> String {
    let parts: Vec<String> = list.iter().map(|s| deparse(s, columns, types)).collect();
    match parts.as_slice() {
        [one] => one.clone(),
        many => format!("({})", many.join(" AND ")),
    }
}

/// PostgreSQL's text of an expression (its ruleutils layout for the
/// forms folio has).
pub(crate) fn deparse(s: &Scalar, columns: &[String], types: &[SqlType]) -> String {
    let d = |e: &Scalar| deparse(e, columns, types);
    match s {
        Scalar::Column(c) => columns[*c].clone(),
        Scalar::Const(v) => constant(v),
        Scalar::Now => "CURRENT_TIMESTAMP".into(),
        Scalar::Param(n) => format!("${}", n + 1),
        Scalar::Subquery(n, _) => format!("$subquery{}", n + 1),
        Scalar::ArraySubquery(n, _) => format!("(SubPlan {})", n + 1),
        // PostgreSQL prints the outer column's name, which the subquery's
        // plan does not keep.
        Scalar::Outer(k, _) => format!("$outer{}", k + 1),
        Scalar::Exists(n) => format!("(hashed SubPlan {})", n + 1),
        // PostgreSQL 15 does not print the tested expression.
        Scalar::InSubquery { index, negated, .. } => match negated {
            true => format!("(NOT (hashed SubPlan {}))", index + 1),
            false => format!("(hashed SubPlan {})", index + 1),
        },
        Scalar::Case {
            operand,
            branches,
            otherwise,
        } => {
            let mut text = "CASE".to_string();
            if let Some(o) = operand {
                text.push_str(&format!(" {}", d(o)));
            }
            for (w, t) in branches {
                text.push_str(&format!(" WHEN {} THEN {}", d(w), d(t)));
            }
            if let Some(e) = otherwise {
                text.push_str(&format!(" ELSE {}", d(e)));
            }
            text + " END"
        }
        // An array constant keeps its cast (`bind`), and so does a string
        // constant cast to a string type: each prints as one labelled
        // constant, as PostgreSQL folds it.
        Scalar::Cast(e, ty)
            if (ty.element().is_some()
                || matches!(ty, SqlType::Text | SqlType::Varchar(_) | SqlType::Char(_)))
                && matches!(**e, Scalar::Const(_)) =>
        {
            let Scalar::Const(v) = e.as_ref() else {
                unreachable!("matched above")
            };
            crate::deparse::constant(v, *ty)
        }
        Scalar::Cast(e, ty) => format!("({})::{}", d(e), type_name(*ty)),
        Scalar::Domain(e, domain) => format!("({})::{}", d(e), domain.name),
        Scalar::Like {
            expr,
            pattern,
            negated,
            insensitive,
            regex,
        } => {
            let op = match (regex, negated, insensitive) {
                (false, false, false) => "~~",
                (false, true, false) => "!~~",
                (false, false, true) => "~~*",
                (false, true, true) => "!~~*",
                (true, false, false) => "~",
                (true, true, false) => "!~",
                (true, false, true) => "~*",
                (true, true, true) => "!~*",
            };
            format!("({} {op} {})", d(expr), d(pattern))
        }
        Scalar::Func(Func::Array(f), args) => {
            let a: Vec<String> = args.iter().map(d).collect();
            match (f, a.as_slice()) {
                (ArrayFunc::Construct | ArrayFunc::Nest, _) => format!("ARRAY[{}]", a.join(", ")),
                (ArrayFunc::Subscript(s), [array, bounds @ ..]) => {
                    let mut bounds = bounds.iter();
                    let mut bound = |written: bool| match written {
                        true => bounds.next().map_or("", String::as_str),
                        false => "",
                    };
                    let mut out = subscripted(&args[0], array);
                    for d in 0..s.count {
                        if s.slice {
                            let l = bound(s.lower & (1 << d) != 0);
                            let u = bound(s.upper & (1 << d) != 0);
                            out.push_str(&format!("[{l}:{u}]"));
                        } else {
                            out.push_str(&format!("[{}]", bound(true)));
                        }
                    }
                    out
                }
                (ArrayFunc::Cat(_), [x, y]) => format!("({x} || {y})"),
                (ArrayFunc::Contains, [x, y]) => format!("({x} @> {y})"),
                (ArrayFunc::ContainedBy, [x, y]) => format!("({x} <@ {y})"),
                (ArrayFunc::Overlaps, [x, y]) => format!("({x} && {y})"),
                (ArrayFunc::Compare { cmp, all }, [x, array]) => format!(
                    "({x} {} {} ({array}))",
                    cmp.symbol(),
                    if *all { "ALL" } else { "ANY" }
                ),
                _ => format!("{}({})", f.name().unwrap_or("?"), a.join(", ")),
            }
        }
        Scalar::Func(Func::Catalog(CatalogFunc::Reg(kind)), args) => {
            let a: Vec<String> = args.iter().map(d).collect();
            format!("({})::{}", a.join(", "), kind.name())
        }
        Scalar::Func(Func::Geo(f), args) if f.symbol().is_some() => match args.as_slice() {
            [a] => format!("({} {})", f.name, d(a)),
            [a, b] => format!("({} {} {})", d(a), f.name, d(b)),
            _ => format!("{}(...)", f.name),
        },
        Scalar::Func(Func::Net(f), args) if f.symbol().is_some() => match args.as_slice() {
            [a] => format!("({} {})", f.symbol().unwrap_or("?"), d(a)),
            [a, b] => format!("({} {} {})", d(a), f.symbol().unwrap_or("?"), d(b)),
            _ => format!("{}(...)", f.symbol().unwrap_or("?")),
        },
        Scalar::Func(Func::Multirange(f), args) if f.symbol().is_some() && args.len() == 2 => {
            format!(
                "({} {} {})",
                d(&args[0]),
                f.symbol().unwrap_or("?"),
                d(&args[1])
            )
        }
        Scalar::Func(Func::Range(f), args) if f.symbol().is_some() && args.len() == 2 => {
            format!(
                "({} {} {})",
                d(&args[0]),
                f.symbol().unwrap_or("?"),
                d(&args[1])
            )
        }
        Scalar::Func(Func::Json(f), args) if f.symbol().is_some() && args.len() == 2 => {
            format!(
                "({} {} {})",
                d(&args[0]),
                f.symbol().unwrap_or("?"),
                d(&args[1])
            )
        }
        Scalar::Call(call) => {
            let a: Vec<String> = call.args.iter().map(d).collect();
            format!("{}({})", call.name(), a.join(", "))
        }
        Scalar::Func(Func::Row(f), args) => {
            crate::row_values::deparse(*f, &args.iter().map(d).collect::<Vec<_>>())
        }
        Scalar::Func(f, args) => {
            let a: Vec<String> = args.iter().map(d).collect();
            match (f, args.as_slice()) {
                (Func::Coalesce | Func::Nullif | Func::Greatest | Func::Least, _) => format!(
                    "{}({})",
                    f.name().unwrap_or("?").to_uppercase(),
                    a.join(", ")
                ),
                (Func::CharToText, [_]) => format!("({})::text", a[0]),
                (Func::InternalCharToInt4, [_]) => format!("({})::integer", a[0]),
                (Func::Extract, [Scalar::Const(Value::Text(field)), _]) => {
                    format!("EXTRACT({field} FROM {})", a[1])
                }
                // The sequence's name is a regclass argument in PostgreSQL.
                (
                    Func::Nextval | Func::Currval | Func::Setval,
                    [Scalar::Const(Value::Text(name)), rest @ ..],
                ) => {
                    let mut a = vec![format!("'{}'::regclass", name.replace('\'', "''"))];
                    a.extend(rest.iter().map(d));
                    format!("{}({})", function_name(*f), a.join(", "))
                }
                _ => format!("{}({})", function_name(*f), a.join(", ")),
            }
        }
        Scalar::Typed(e, _) => d(e),
        Scalar::Negate(e) => format!("(- {})", d(e)),
        Scalar::Arith(op, a, b) => format!("({} {op} {})", d(a), d(b)),
        Scalar::Compare(cmp, a, b) => format!("({} {} {})", d(a), cmp.symbol(), d(b)),
        Scalar::And(a, b) => format!("({} AND {})", d(a), d(b)),
        Scalar::Or(a, b) => format!("({} OR {})", d(a), d(b)),
        Scalar::Not(e) => format!("(NOT {})", d(e)),
        Scalar::IsNull(e, false) => format!("({} IS NULL)", d(e)),
        Scalar::IsNull(e, true) => format!("({} IS NOT NULL)", d(e)),
        Scalar::InList {
            expr,
            list,
            negated,
        } => {
            let ty = match expr.as_ref() {
                Scalar::Column(c) => types.get(*c).copied().unwrap_or(SqlType::Text),
                Scalar::Const(v) => crate::scalar::value_type(v),
                _ => SqlType::Text,
            };
            let items: Vec<String> = list
                .iter()
                .map(|i| match i.through_string_cast() {
                    Scalar::Const(v) => types::text_output(v).unwrap_or_else(|| "NULL".into()),
                    other => d(other),
                })
                .collect();
            let (op, any) = if *negated {
                ("<>", "ALL")
            } else {
                ("=", "ANY")
            };
            format!(
                "({} {op} {any} ('{{{}}}'::{}[]))",
                d(expr),
                items.join(","),
                type_name(ty)
            )
        }
    }
}

/// A function's name in a call as PostgreSQL prints it: quoted when it
/// is a keyword (its `quote_identifier`: `"left"`, `"substring"`).
fn function_name(f: Func) -> String {
    crate::names::written(f.name().unwrap_or("?")).to_string()
}

/// A constant as PostgreSQL prints it in a plan, labelled with its own
/// type (`deparse::constant`).
fn constant(v: &Value) -> String {
    crate::deparse::constant(v, crate::scalar::value_type(v))
}

/// PostgreSQL's name of a type in a plan's casts (and in type errors):
/// its `format_type` name where that differs from `pg_type.typname`
/// (SQL's names for the standard types, arrays as `t[]`), else the
/// typname (`types::typname`, the one list of every type's name).
pub(crate) fn type_name(ty: SqlType) -> std::borrow::Cow<'static, str> {
    std::borrow::Cow::Borrowed(match ty {
        SqlType::Int2 => "smallint",
        SqlType::Int4 => "integer",
        SqlType::Int8 => "bigint",
        SqlType::Float4 => "real",
        SqlType::Float8 => "double precision",
        SqlType::Varchar(_) => "character varying",
        SqlType::Bool => "boolean",
        SqlType::Timestamp(_) => "timestamp without time zone",
        SqlType::TimestampTz(_) => "timestamp with time zone",
        SqlType::Time(_) | SqlType::TimeTz(_) => return ty.name().into(),
        SqlType::Array(element) => return format!("{}[]", type_name(*element)).into(),
        SqlType::InternalChar => "\"char\"",
        SqlType::VarBit(_) => "bit varying",
        _ => return crate::types::typname(ty),
    })
}

/// The array `array` (deparsed as `text`) as a subscript follows it: a
/// column as it stands, another expression in parentheses (PostgreSQL's
/// ruleutils).
fn subscripted(array: &Scalar, text: &str) -> String {
    match array {
        Scalar::Column(_) | Scalar::Outer(..) => text.to_string(),
        _ => format!("({text})"),
    }
}
