//! `EXPLAIN [ANALYZE] INSERT | UPDATE | DELETE`: PostgreSQL's
//! ModifyTable node (`Insert on t`, `Update on t`, `Delete on t`) over the
//! plan that finds or makes the rows, in `explain.rs`'s layout.
//!
//! The statement is planned as it is when it runs (`statement::plan`):
//! the scan under an UPDATE or DELETE is the plan the change runs, the
//! child of an INSERT is its VALUES (`Result` for one row, `Values Scan`
//! for several) or its query's plan. Without ANALYZE nothing runs. With
//! ANALYZE the plan runs by [`Plan::run`], the statement's own path (its
//! changes stay, unless the transaction rolls back), while the context
//! holds a [`ChangeCounts`] where that path notes what it found: the rows
//! an UPDATE's or DELETE's scan found and what the scan did, the rows an
//! INSERT's query produced, the rows ON CONFLICT met a conflict for.
//!
//! Estimates, as PostgreSQL 15's `create_modifytable_path`: the node's
//! costs are its child's; its rows and width are 0 without RETURNING, its
//! child's with it. The child hands on what PostgreSQL's subplan hands on:
//! an UPDATE's new values of the SET columns and the row's `ctid` (6
//! bytes), a DELETE's `ctid`, an INSERT's whole new row.

use crate::change_rows::{FindCounts, Rows};
use crate::conflict::Conflict;
use crate::context::Ctx;
use crate::dml::{self, Change};
use crate::error::SqlError;
use crate::estimate::{self as est, Estimate};
use crate::explain::{self, Actual, Node, Options, Planning};
use crate::output::{Notice, Output};
use crate::plan::Access;
use crate::query::{Planned, RunCounts};
use crate::scalar::{Env, Scalar};
use folio_catalog::Relation;
use folio_db::Transaction;
use sqlparser::ast::{FromTable, Statement, TableFactor, TableWithJoins};
use std::time::Instant;

/// The width of a row's `ctid`, which an UPDATE's or DELETE's subplan
/// hands on (PostgreSQL's `SizeOfItemPointerData`, 6 bytes).
const CTID_WIDTH: u32 = 6;

/// What a row change run under EXPLAIN ANALYZE found, noted by the
/// change's own path (`dml.rs`, `change_rows.rs`, `conflict.rs`) while
/// [`Ctx::change_counts`] holds one. Each entry is keyed by the address of
/// the plan part it is about (a statement a trigger runs notes its own
/// parts, which EXPLAIN does not look up).
#[derive(Debug, Default)]
pub struct ChangeCounts {
    /// An UPDATE's or DELETE's rows (`Rows`): how many were found, and
    /// what finding them did.
    found: Vec<(usize, u64, FindCounts)>,
    /// An INSERT's query (`Planned`): its rows and what producing them did.
    queried: Vec<(usize, u64, RunCounts)>,
    /// An ON CONFLICT clause (`Conflict`): the rows that met a conflict.
    conflicts: Vec<(usize, u64)>,
    /// The trigger functions run, by table oid and trigger name: their
    /// calls and time.
    triggers: Vec<(u64, String, u64, std::time::Duration)>,
}

/// Whether an EXPLAIN ANALYZE of a row change is counting.
pub fn counting(cx: &Ctx<'_>) -> bool {
    cx.change_counts.borrow().is_some()
}

/// Notes (under EXPLAIN ANALYZE) a call of table `table`'s trigger
/// `name` that took `elapsed`.
pub fn note_trigger(cx: &Ctx<'_>, table: u64, name: &str, elapsed: std::time::Duration) {
    if let Some(c) = cx.change_counts.borrow_mut().as_mut() {
        match (c.triggers.iter_mut()).find(|(t, n, _, _)| *t == table && n == name) {
            Some((_, _, calls, time)) => {
                *calls += 1;
                *time += elapsed;
            }
            None => c.triggers.push((table, name.to_string(), 1, elapsed)),
        }
    }
}

fn address<T>(part: &T) -> usize {
    part as *const T as usize
}

/// Notes (under EXPLAIN ANALYZE) that `rows` found `count` rows.
pub fn note_found(cx: &Ctx<'_>, rows: &Rows, count: usize, counts: FindCounts) {
    if let Some(c) = cx.change_counts.borrow_mut().as_mut() {
        c.found.push((address(rows), count as u64, counts));
    }
}

/// Notes (under EXPLAIN ANALYZE) that an INSERT's query `planned` gave
/// `count` rows.
pub fn note_queried(cx: &Ctx<'_>, planned: &Planned, count: usize, counts: &RunCounts) {
    if let Some(c) = cx.change_counts.borrow_mut().as_mut() {
        c.queried
            .push((address(planned), count as u64, counts.clone()));
    }
}

/// Notes (under EXPLAIN ANALYZE) that a row met a conflict of `conflict`.
pub fn note_conflict(cx: &Ctx<'_>, conflict: &Conflict) {
    if let Some(c) = cx.change_counts.borrow_mut().as_mut() {
        let at = address(conflict);
        match c.conflicts.iter_mut().find(|(a, _)| *a == at) {
            Some((_, n)) => *n += 1,
            None => c.conflicts.push((at, 1)),
        }
    }
}

/// What the EXPLAIN ANALYZE run did: the counts, the rows returned, the
/// pages and the time.
struct Ran {
    counts: ChangeCounts,
    returned: u64,
    hit: u64,
    read: u64,
    elapsed: std::time::Duration,
}

/// Runs EXPLAIN of `statement` (an INSERT, UPDATE or DELETE).
pub fn explain(
    cx: &Ctx<'_>,
    txn: &mut Transaction,
    notices: &mut Vec<Notice>,
    options: Options,
    statement: &Statement,
) -> Result<Output, SqlError> {
    let pool = cx.db.pool();
    let before_plan = pool.thread_stats();
    let started = Instant::now();
    let verb = match statement {
        Statement::Insert(_) => "INSERT",
        Statement::Update { .. } => "UPDATE",
        _ => "DELETE",
    };
    let Some(plan) = crate::statement::plan(cx, txn, statement)? else {
        return Err(SqlError::unsupported(format!("EXPLAIN of this {verb}")));
    };
    if let Some(error) = plan.folded() {
        return Err(error.clone());
    }
    let after_plan = pool.thread_stats();
    let planning = Planning {
        elapsed: started.elapsed(),
        hit: after_plan.hits - before_plan.hits,
        read: after_plan.misses - before_plan.misses,
    };
    let env = Env::at(cx.now());
    show(
        cx,
        txn,
        notices,
        options,
        (&plan, planning),
        (label(statement), &env),
    )
}

/// `EXPLAIN [ANALYZE] [(options)] EXECUTE name(values)` of a prepared
/// row change: its kept `plan`, run with `env`'s parameters.
pub fn explain_kept(
    cx: &Ctx<'_>,
    txn: &mut Transaction,
    notices: &mut Vec<Notice>,
    (analyze, options): (bool, Option<&[sqlparser::ast::UtilityOption]>),
    plan: &crate::statement::Plan,
    env: &Env<'_>,
) -> Result<Output, SqlError> {
    let options = explain::parse_options(analyze, options.unwrap_or(&[]))?;
    let planning = Planning {
        elapsed: std::time::Duration::ZERO,
        hit: 0,
        read: 0,
    };
    show(cx, txn, notices, options, (plan, planning), (None, env))
}

/// The lines of `plan`'s change (its target named `alias` in the
/// statement, if it has one), run first with ANALYZE.
fn show(
    cx: &Ctx<'_>,
    txn: &mut Transaction,
    notices: &mut Vec<Notice>,
    options: Options,
    (plan, planning): (&crate::statement::Plan, Planning),
    (alias, env): (Option<String>, &Env<'_>),
) -> Result<Output, SqlError> {
    let verb = plan.change().map_or("", |c| match c {
        Change::Insert { .. } => "INSERT",
        Change::Update { .. } => "UPDATE",
        Change::Delete { .. } => "DELETE",
        Change::Merge(_) => "MERGE",
        Change::Parts(_) => "UPDATE or DELETE",
    });
    let change = match plan.change() {
        Some(Change::Parts(_)) => {
            return Err(SqlError::unsupported(format!(
                "EXPLAIN of {verb} of a partitioned table"
            )));
        }
        Some(change @ (Change::Insert { .. } | Change::Update { .. } | Change::Delete { .. })) => {
            change
        }
        // An updatable view with INSTEAD OF triggers or rules, a MERGE,
        // data-modifying CTEs.
        _ => return Err(SqlError::unsupported(format!("EXPLAIN of this {verb}"))),
    };
    let ran = match options.analyze {
        false => None,
        true => Some(run(cx, txn, notices, plan, env)?),
    };
    let mut node = change_node(change, alias, ran.as_ref())?;
    node.start(env);
    let mut lines = Vec::new();
    let buffer_line = ran
        .as_ref()
        .filter(|_| options.buffers)
        .and_then(|r| explain::buffers(r.hit, r.read));
    let timing = (ran.as_ref())
        .filter(|_| options.timing)
        .map(|r| explain::millis(r.elapsed));
    node.render(
        None,
        options.costs,
        timing,
        buffer_line.as_deref(),
        &mut lines,
    );
    let triggers = match &ran {
        Some(ran) => trigger_lines(&ran.counts, change.target().def.oid, options.timing),
        None => Vec::new(),
    };
    let executed = ran.map(|r| r.elapsed);
    explain::summarize(options, &planning, (&triggers, executed), &mut lines);
    Ok(explain::plan_output(lines))
}

/// PostgreSQL's `Trigger name: [time=T ]calls=N` of each trigger of
/// table `table` that ran, by name.
fn trigger_lines(counts: &ChangeCounts, table: u64, timing: bool) -> Vec<String> {
    let mut ran: Vec<_> = (counts.triggers.iter())
        .filter(|(t, _, _, _)| *t == table)
        .collect();
    ran.sort_by(|a, b| a.1.cmp(&b.1));
    ran.into_iter()
        .map(|(_, name, calls, time)| match timing {
            true => format!(
                "Trigger {name}: time={:.3} calls={calls}",
                explain::millis(*time)
            ),
            false => format!("Trigger {name}: calls={calls}"),
        })
        .collect()
}

/// Runs `plan` as the statement runs (`Plan::run`), noting what it found.
fn run(
    cx: &Ctx<'_>,
    txn: &mut Transaction,
    notices: &mut Vec<Notice>,
    plan: &crate::statement::Plan,
    env: &Env<'_>,
) -> Result<Ran, SqlError> {
    let pool = cx.db.pool();
    let before = pool.thread_stats();
    let started = Instant::now();
    *cx.change_counts.borrow_mut() = Some(ChangeCounts::default());
    let output = plan.run(cx, txn, env);
    notices.extend(cx.raised.take());
    let counts = cx.change_counts.borrow_mut().take().unwrap_or_default();
    let returned = match output? {
        Output::Rows { rows, .. } => rows.len() as u64,
        _ => 0,
    };
    let after = pool.thread_stats();
    Ok(Ran {
        counts,
        returned,
        hit: after.hits - before.hits,
        read: after.misses - before.misses,
        elapsed: started.elapsed(),
    })
}

/// The target's alias in `statement`, if it has one.
fn label(statement: &Statement) -> Option<String> {
    let of_table = |t: &TableWithJoins| match &t.relation {
        TableFactor::Table { alias, .. } => alias.as_ref().map(|a| crate::names::ident(&a.name)),
        _ => None,
    };
    match statement {
        Statement::Insert(insert) => insert.table_alias.as_ref().map(crate::names::ident),
        Statement::Update { table, .. } => of_table(table),
        Statement::Delete(delete) => match &delete.from {
            FromTable::WithFromKeyword(from) | FromTable::WithoutKeyword(from) => {
                from.first().and_then(of_table)
            }
        },
        _ => None,
    }
}

/// The ModifyTable node of `change` and its child.
fn change_node(
    change: &Change,
    alias: Option<String>,
    ran: Option<&Ran>,
) -> Result<Node, SqlError> {
    let relation = change.target();
    let name = folio_catalog::unqualified(&relation.def.name).to_string();
    let label = match &alias {
        Some(a) if *a != name => format!("{name} {a}"),
        _ => name.clone(),
    };
    let (verb, child, returning, mut details) = match change {
        Change::Update {
            assignments,
            rows,
            returning,
            ..
        } => {
            let width = CTID_WIDTH
                + est::sum(assignments.iter().map(|(c, value)| match value {
                    Scalar::Column(from) if matches!(rows, Rows::Scan { .. }) => {
                        f64::from(est::column_width(relation, *from))
                    }
                    _ => f64::from(est::type_width(relation.types[*c])),
                })) as u32;
            let mut needed = Vec::new();
            assignments.iter().for_each(|(_, s)| s.columns(&mut needed));
            needed.sort_unstable();
            needed.dedup();
            let child = rows_node(relation, (rows, &needed), &label, width, ran)?;
            ("Update", child, returning.is_some(), Vec::new())
        }
        Change::Delete {
            rows, returning, ..
        } => {
            let child = rows_node(relation, (rows, &[]), &label, CTID_WIDTH, ran)?;
            ("Delete", child, returning.is_some(), Vec::new())
        }
        Change::Insert {
            source,
            returning,
            on_conflict,
            ..
        } => {
            let child = source_node(relation, source, ran);
            let mut details = Vec::new();
            if let Some(conflict) = on_conflict {
                details = conflict.explain_lines(relation, &label);
                if let Some(ran) = ran {
                    let met = (ran.counts.conflicts.iter())
                        .find(|(at, _)| *at == address(conflict))
                        .map_or(0, |(_, n)| *n);
                    let offered = child.rows.unwrap_or(0);
                    details.push(format!("Tuples Inserted: {}", offered.saturating_sub(met)));
                    details.push(format!("Conflicting Tuples: {met}"));
                }
            }
            ("Insert", child, returning.is_some(), details)
        }
        _ => unreachable!("change_node of a MERGE or a partitioned table's change"),
    };
    let estimate = Estimate {
        startup: child.estimate.startup,
        total: child.estimate.total,
        rows: if returning { child.estimate.rows } else { 0.0 },
        width: if returning { child.estimate.width } else { 0 },
    };
    let mut node = Node::new(
        format!("{verb} on {label}"),
        estimate,
        ran.map(|r| r.returned),
    );
    node.details.append(&mut details);
    node.children.push(child);
    Ok(node)
}

/// The node that finds an UPDATE's or DELETE's rows, handing on rows of
/// `width` bytes.
fn rows_node(
    relation: &Relation,
    (rows, needed): (&Rows, &[usize]),
    label: &str,
    width: u32,
    ran: Option<&Ran>,
) -> Result<Node, SqlError> {
    let noted = ran.and_then(|r| {
        (r.counts.found.iter())
            .find(|(at, _, _)| *at == address(rows))
            .map(|(_, n, counts)| (*n, counts))
    });
    let scan = match rows {
        Rows::Scan { scan, .. } => scan,
        Rows::Current { .. } => {
            return Err(SqlError::unsupported("EXPLAIN of WHERE CURRENT OF"));
        }
        Rows::Joined(_) => return Ok(joined_node(rows, needed, ran.map(|_| noted))),
    };
    let found = ran.map(|_| match noted {
        Some((n, FindCounts::Scan(scanned))) => (n, Some(*scanned)),
        Some((n, FindCounts::Joined(_))) => (n, None),
        None => (0, None),
    });
    let index = match &scan.access {
        Access::Seq => None,
        Access::Index { index, only, .. } => Some((*index, *only)),
    };
    let estimate = est::table_scan(relation, index, &scan.index_cond, &scan.filter, width);
    let own: Vec<String> = (relation.def.columns.iter())
        .map(|c| c.name.clone())
        .collect();
    Ok(explain::scan_node(
        label,
        relation,
        scan,
        &own,
        (estimate, found.map(|(n, _)| n)),
        found.and_then(|(_, counts)| counts),
    ))
}

/// The join of an UPDATE's FROM items or a DELETE's USING items with
/// the target (`explain.rs`'s nodes of a FROM clause); `needed`: the
/// joined row's columns read above it. `noted`: with ANALYZE, what
/// finding the rows did.
fn joined_node(rows: &Rows, needed: &[usize], noted: Option<Option<(u64, &FindCounts)>>) -> Node {
    let (source, scope) = rows.joined().expect("a change's rows found by a join");
    let actual = noted.map(|noted| {
        let (found, nodes) = match noted {
            Some((n, FindCounts::Joined(nodes))) => (n, nodes.clone()),
            _ => (0, Default::default()),
        };
        Actual {
            rows: found,
            scanned: found,
            groups: 0,
            nodes,
            hit: 0,
            read: 0,
            elapsed: std::time::Duration::ZERO,
        }
    });
    explain::source_node(source, scope, (0, needed), actual.as_ref())
}

/// The node that makes an INSERT's rows: a `Result` for one VALUES row
/// (or DEFAULT VALUES), a `Values Scan` for several, else its query's plan.
fn source_node(relation: &Relation, source: &dml::Source, ran: Option<&Ran>) -> Node {
    // The new row's columns, each its type's width (PostgreSQL's subplan
    // hands on the whole row, its values coerced to the columns' types).
    let width = est::sum(
        relation
            .types
            .iter()
            .map(|t| f64::from(est::type_width(*t))),
    ) as u32;
    match source {
        dml::Source::Values(rows) if rows.len() <= 1 => Node::new(
            "Result",
            est::result(&[], width),
            ran.map(|_| rows.len() as u64),
        ),
        dml::Source::Values(rows) => {
            let n = rows.len() as f64;
            // `cost_valuesscan`: an operator and a tuple per row.
            let estimate = Estimate {
                startup: 0.0,
                total: n * (est::CPU_OPERATOR_COST + est::CPU_TUPLE_COST),
                rows: n,
                width,
            };
            Node::new(
                "Values Scan on \"*VALUES*\"",
                estimate,
                ran.map(|_| rows.len() as u64),
            )
        }
        dml::Source::Query(planned) => {
            let actual = ran.map(|r| {
                let (rows, counts) = (r.counts.queried.iter())
                    .find(|(at, _, _)| *at == address(&**planned))
                    .map_or((0, RunCounts::default()), |(_, n, c)| (*n, c.clone()));
                Actual {
                    rows,
                    scanned: counts.scanned,
                    groups: counts.groups,
                    nodes: counts.source,
                    hit: 0,
                    read: 0,
                    elapsed: std::time::Duration::ZERO,
                }
            });
            explain::planned_node(planned, actual.as_ref())
        }
    }
}
