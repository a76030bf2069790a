//! `EXPLAIN [ANALYZE] [(option [value], ...)] query` in PostgreSQL's text
//! layout: one row per line under the column `QUERY PLAN`, nodes
//! (`Aggregate`, `Limit`, `Sort`, `Seq Scan`, `Index [Only] Scan
//! [Backward]`) with their conditions and, with ANALYZE, `(actual
//! rows=N loops=1)` and what each did; with BUFFERS, `Buffers: shared
//! hit=N read=M`: the pages this session's statement latched in the
//! buffer pool (hits) and read from the file (misses), counted by the
//! pool per thread. folio has no cost model: `COSTS` (on by default, as
//! in PostgreSQL) prints nothing, and times are printed only with
//! `TIMING`/`SUMMARY` as PostgreSQL does.

use crate::context::Ctx;
use crate::error::SqlError;
use crate::names;
use crate::output::{Column, Output};
use crate::plan::{Access, ScanPlan, SortKey};
use crate::query::{self, Planned, Shape, Source};
use crate::scalar::{Env, Scalar};
use crate::types;
use folio_db::Transaction;
use folio_row::{SqlType, Value};
use sqlparser::ast::{Expr, Statement, UtilityOption};
use std::time::Instant;

/// EXPLAIN's options.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Options {
    analyze: bool,
    buffers: bool,
    timing: bool,
    summary: bool,
}

/// Runs EXPLAIN of `statement` (a query).
pub fn explain(
    cx: &Ctx<'_>,
    txn: &mut Transaction,
    analyze: bool,
    options: Option<&[UtilityOption]>,
    statement: &Statement,
) -> Result<Output, SqlError> {
    let options = parse_options(analyze, options.unwrap_or(&[]))?;
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
    let planned = query::plan_query(cx, txn, q)?;
    let planning = started.elapsed();
    let before_run = pool.thread_stats();
    let mut lines = Vec::new();
    let mut actual = None;
    if options.analyze {
        let started = Instant::now();
        let (rows, counts) = query::run(txn, &planned, &Env::at(cx.now))?;
        let after = pool.thread_stats();
        actual = Some(Actual {
            rows: rows.len() as u64,
            scanned: counts.scanned,
            groups: counts.groups,
            removed: counts.scan.removed_by_filter,
            heap_fetches: counts.scan.heap_fetches,
            hit: after.hits - before_run.hits,
            read: after.misses - before_run.misses,
            elapsed: started.elapsed(),
        });
    }
    describe(&planned, options, actual.as_ref(), &mut lines);
    // PostgreSQL prints the planning's buffers with BUFFERS whether or not
    // the summary is on, and only when there were some.
    let planned_pages = (
        before_run.hits - before_plan.hits,
        before_run.misses - before_plan.misses,
    );
    if options.buffers
        && let Some(b) = buffers(planned_pages.0, planned_pages.1)
    {
        lines.push("Planning:".into());
        lines.push(format!("  {b}"));
    }
    if options.summary {
        lines.push(format!("Planning Time: {:.3} ms", millis(planning)));
        if let Some(a) = &actual {
            lines.push(format!("Execution Time: {:.3} ms", millis(a.elapsed)));
        }
    }
    Ok(Output::Rows {
        columns: vec![Column {
            name: "QUERY PLAN".into(),
            type_oid: SqlType::Text.oid(),
        }],
        tag: "EXPLAIN".into(),
        rows: lines.into_iter().map(|l| vec![Value::Text(l)]).collect(),
    })
}

fn millis(d: std::time::Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// What running the query did.
struct Actual {
    /// Rows returned.
    rows: u64,
    /// Rows the source produced.
    scanned: u64,
    /// Aggregate rows.
    groups: u64,
    removed: u64,
    heap_fetches: u64,
    hit: u64,
    read: u64,
    elapsed: std::time::Duration,
}

fn parse_options(analyze: bool, list: &[UtilityOption]) -> Result<Options, SqlError> {
    let mut options = Options {
        analyze,
        buffers: false,
        timing: true,
        summary: false,
    };
    let mut summary = None;
    for option in list {
        let name = names::ident(&option.name);
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
            // Accepted; folio prints neither costs nor the rest.
            "costs" | "verbose" | "settings" | "wal" => {}
            "format" => {
                return Err(SqlError::unsupported("EXPLAIN (FORMAT ...)"));
            }
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

fn bool_word(name: &str, word: &str) -> Result<bool, SqlError> {
    types::parse_bool(word)
        .ok_or_else(|| SqlError::new("22023", format!("{name} requires a Boolean value")))
}

/// `Buffers: shared hit=N read=M`, without the zero parts; `None` when
/// both are zero (PostgreSQL prints no line then).
fn buffers(hit: u64, read: u64) -> Option<String> {
    let mut parts = Vec::new();
    if hit > 0 {
        parts.push(format!("hit={hit}"));
    }
    if read > 0 {
        parts.push(format!("read={read}"));
    }
    (!parts.is_empty()).then(|| format!("Buffers: shared {}", parts.join(" ")))
}

/// One plan node as lines.
struct Node {
    title: String,
    details: Vec<String>,
    rows: Option<u64>,
}

/// The plan's nodes, outermost first, rendered with PostgreSQL's
/// indentation (`->  ` for a child, details 2 spaces past it).
fn describe(planned: &Planned, options: Options, actual: Option<&Actual>, lines: &mut Vec<String>) {
    let mut nodes: Vec<Node> = Vec::new();
    let analyzed = |n: u64| actual.map(|_| n);
    let produced = actual.map_or(0, |a| a.scanned);
    if planned.limit.is_some() || planned.offset > 0 {
        nodes.push(Node {
            title: "Limit".into(),
            details: Vec::new(),
            rows: analyzed(actual.map_or(0, |a| a.rows)),
        });
    }
    if let Shape::Aggregate {
        grouping, order, ..
    } = &planned.shape
    {
        let source_names = source_columns(&planned.source);
        let aggregate_names: Vec<String> = grouping
            .keys
            .iter()
            .map(|k| deparse(k, &source_names, &[]))
            .chain(grouping.calls.iter().map(|c| call_text(c, &source_names)))
            .collect();
        let groups = actual.map_or(0, |a| a.groups);
        if !order.is_empty() {
            let keys: Vec<String> = order
                .iter()
                .map(|k| sort_key(&aggregate_names, k))
                .collect();
            nodes.push(Node {
                title: "Sort".into(),
                details: sort_details(&keys, actual.is_some()),
                rows: analyzed(groups),
            });
        }
        let (title, mut details) = if grouping.keys.is_empty() {
            ("Aggregate", Vec::new())
        } else {
            let keys = aggregate_names[..grouping.keys.len()].join(", ");
            ("HashAggregate", vec![format!("Group Key: {keys}")])
        };
        if let Some(h) = &grouping.having {
            details.push(format!("Filter: {}", deparse(h, &aggregate_names, &[])));
        }
        nodes.push(Node {
            title: title.into(),
            details,
            rows: analyzed(groups),
        });
    }
    match &planned.source {
        Source::One => nodes.push(Node {
            title: "Result".into(),
            details: Vec::new(),
            rows: analyzed(1),
        }),
        Source::Series { .. } => nodes.push(Node {
            title: "Function Scan on generate_series".into(),
            details: Vec::new(),
            rows: analyzed(produced),
        }),
        Source::Table {
            name,
            relation,
            plan,
        } => {
            let column_names: Vec<String> = relation
                .def
                .columns
                .iter()
                .map(|c| c.name.clone())
                .collect();
            if !plan.sort.is_empty() {
                let keys: Vec<String> = plan
                    .sort
                    .iter()
                    .map(|k| sort_key(&column_names, k))
                    .collect();
                nodes.push(Node {
                    title: "Sort".into(),
                    details: sort_details(&keys, actual.is_some()),
                    rows: analyzed(produced),
                });
            }
            nodes.push(scan_node(name, relation, plan, &column_names, actual));
        }
    }
    let buffer_line = actual
        .filter(|_| options.buffers)
        .and_then(|a| buffers(a.hit, a.read));
    for (depth, node) in nodes.iter().enumerate() {
        let (head, detail_indent) = if depth == 0 {
            (String::new(), "  ".to_string())
        } else {
            let arrow = " ".repeat(6 * (depth - 1) + 2);
            (format!("{arrow}->  "), " ".repeat(6 * depth + 2))
        };
        let mut title = format!("{head}{}", node.title);
        if let Some(rows) = node.rows {
            // The nodes run one after the other to completion: each is
            // given the statement's time.
            let time = match actual {
                Some(a) if options.timing => format!("time=0.000..{:.3} ", millis(a.elapsed)),
                _ => String::new(),
            };
            title.push_str(&format!(" (actual {time}rows={rows} loops=1)"));
        }
        lines.push(title);
        for d in &node.details {
            lines.push(format!("{detail_indent}{d}"));
        }
        // Every node's buffers include its children's: the scan's pages.
        if let Some(b) = &buffer_line {
            lines.push(format!("{detail_indent}{b}"));
        }
    }
}

fn scan_node(
    table: &str,
    relation: &folio_catalog::Relation,
    plan: &ScanPlan,
    columns: &[String],
    actual: Option<&Actual>,
) -> Node {
    let rows = actual.map(|a| a.scanned);
    let mut details = Vec::new();
    let title = match &plan.access {
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
                    conjunction(&plan.index_cond, columns, relation)
                ));
            }
            format!(
                "{kind}{backward} using {} on {table}",
                relation.indexes[*index].def.name
            )
        }
    };
    if !plan.filter.is_empty() {
        details.push(format!(
            "Filter: {}",
            conjunction(&plan.filter, columns, relation)
        ));
        if let Some(a) = actual {
            details.push(format!("Rows Removed by Filter: {}", a.removed));
        }
    }
    if let (Access::Index { only: true, .. }, Some(a)) = (&plan.access, actual) {
        details.push(format!("Heap Fetches: {}", a.heap_fetches));
    }
    Node {
        title,
        details,
        rows,
    }
}

/// A Sort node's details.
fn sort_details(keys: &[String], analyzed: bool) -> Vec<String> {
    let mut details = vec![format!("Sort Key: {}", keys.join(", "))];
    if analyzed {
        details.push("Sort Method: quicksort  Memory: 25kB".into());
    }
    details
}

/// The names of the source's columns.
fn source_columns(source: &Source) -> Vec<String> {
    match source {
        Source::One => Vec::new(),
        Source::Series { .. } => vec!["generate_series".into()],
        Source::Table { relation, .. } => relation
            .def
            .columns
            .iter()
            .map(|c| c.name.clone())
            .collect(),
    }
}

/// An aggregate call as PostgreSQL prints it (`count(*)`, `sum(x)`).
fn call_text(call: &crate::aggregate::Call, columns: &[String]) -> String {
    use crate::aggregate::Kind;
    let name = match call.kind {
        Kind::CountStar => return "count(*)".into(),
        Kind::Count => "count",
        Kind::Sum => "sum",
        Kind::Avg => "avg",
        Kind::Min => "min",
        Kind::Max => "max",
    };
    let arg = call
        .arg
        .as_ref()
        .map_or(String::new(), |a| deparse(a, columns, &[]));
    format!("{name}({arg})")
}

fn sort_key(columns: &[String], key: &SortKey) -> String {
    let mut text = columns[key.column].clone();
    if key.descending {
        text.push_str(" DESC");
    }
    if key.nulls_first != key.descending {
        text.push_str(if key.nulls_first {
            " NULLS FIRST"
        } else {
            " NULLS LAST"
        });
    }
    text
}

/// Conditions joined by AND, each in parentheses, as PostgreSQL prints
/// them.
fn conjunction(list: &[Scalar], columns: &[String], relation: &folio_catalog::Relation) -> String {
    let parts: Vec<String> = list
        .iter()
        .map(|s| deparse(s, columns, &relation.types))
        .collect();
    match parts.as_slice() {
        [one] => one.clone(),
        many => format!("({})", many.join(" AND ")),
    }
}

/// PostgreSQL's text of an expression (its ruleutils layout for the
/// forms folio has).
fn deparse(s: &Scalar, columns: &[String], types: &[SqlType]) -> String {
    let d = |e: &Scalar| deparse(e, columns, types);
    match s {
        Scalar::Column(c) => columns[*c].clone(),
        Scalar::Const(v) => constant(v),
        Scalar::Now => "CURRENT_TIMESTAMP".into(),
        Scalar::Param(n) => format!("${}", n + 1),
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
                .map(|i| match i {
                    Scalar::Const(v) => types::text_output(v)
                        .ok()
                        .flatten()
                        .unwrap_or_else(|| "NULL".into()),
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

/// A constant as PostgreSQL prints it in a plan (ruleutils'
/// `get_const_expr`): a non-negative integer bare, a numeric bare when it
/// reads back as one (a point or an exponent), booleans as words, the
/// rest quoted with their type.
fn constant(v: &Value) -> String {
    let text = types::text_output(v).ok().flatten();
    match (v, text) {
        (_, None) => "NULL".into(),
        (Value::Int4(x), Some(t)) if *x >= 0 => t,
        (Value::Bool(b), _) => b.to_string(),
        (Value::Numeric(_), Some(t))
            if t.starts_with(|c: char| c.is_ascii_digit()) && t.contains(['.', 'e', 'E']) =>
        {
            t
        }
        (other, Some(t)) => format!(
            "'{}'::{}",
            t.replace('\'', "''"),
            type_name(crate::scalar::value_type(other))
        ),
    }
}

/// PostgreSQL's name of a type in a plan's casts.
fn type_name(ty: SqlType) -> &'static str {
    match ty {
        SqlType::Int2 => "smallint",
        SqlType::Int4 => "integer",
        SqlType::Int8 => "bigint",
        SqlType::Float4 => "real",
        SqlType::Float8 => "double precision",
        SqlType::Numeric(_) => "numeric",
        SqlType::Text => "text",
        SqlType::Varchar(_) => "character varying",
        SqlType::Char(_) => "bpchar",
        SqlType::Bytea => "bytea",
        SqlType::Bool => "boolean",
        SqlType::Date => "date",
        SqlType::Timestamp => "timestamp without time zone",
        SqlType::TimestampTz => "timestamp with time zone",
        SqlType::Uuid => "uuid",
    }
}
