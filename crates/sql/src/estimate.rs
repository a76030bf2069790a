//! What each plan node is estimated to cost and yield, as PostgreSQL's
//! EXPLAIN prints it (`cost=STARTUP..TOTAL rows=N width=W`), by
//! PostgreSQL 15's formulas (`costsize.c`, `selfuncs.c`,
//! `plancat.c`) in its units and with its default cost settings. The
//! access paths' costs and the selectivities are `cost.rs`'s (which
//! `plan.rs` also asks); this file builds the rest on them, one function
//! per node kind, each from its inputs' estimates. `explain.rs` calls
//! them as it builds its nodes and only formats the result.
//!
//! - **A table's size** (`estimate_rel_size`): its pages now, and rows at
//!   the density ANALYZE saw; never analyzed, at least 10 pages and as
//!   many rows as fit by the row's width (`8168 / (width + 28)` a page).
//! - **Rows**: a scan's rows times its conditions' selectivity; a join's
//!   the product times each equality's `1 / max(distinct)` (`eqjoinsel`
//!   without the MCV matching); groups the product of the keys' distinct
//!   counts (200 each without statistics), at most the input's rows;
//!   all rounded and at least 1 (`clamp_row_est`).
//! - **Width**: the columns a node hands on, each its ANALYZE average
//!   (`stawidth`) or its type's (`get_typavgwidth`; folio-row
//!   `datum_width.rs`).
//! - **Cost**: an expression costs `cpu_operator_cost` per operator or
//!   function call in it (`cost_qual_eval`; an IN list half an operator
//!   per item); each node adds PostgreSQL's per-row charges (see each
//!   function).
//!
//! Differences: folio's heap pages are not PostgreSQL's (another row
//! layout), so the costs that read pages differ by the page counts; an
//! index's size is guessed (folio keeps no index statistics); hash
//! aggregates and hash joins are assumed to fit in memory (no batches).

use crate::cost;
use crate::from::Source;
use crate::query::{Planned, Shape};
use crate::scalar::{Cmp, Scalar};
use folio_catalog::{Relation, TableStats};
use folio_row::{SqlType, type_avg_width};

pub use cost::{CPU_OPERATOR_COST, CPU_TUPLE_COST};

/// A node's estimate.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Estimate {
    /// Cost before the first row.
    pub startup: f64,
    /// Cost of all rows.
    pub total: f64,
    pub rows: f64,
    /// Average bytes of a row handed on.
    pub width: u32,
}

/// PostgreSQL's page bytes less its page header (`BLCKSZ -
/// SizeOfPageHeaderData`).
const USABLE_PAGE_BYTES: u32 = 8192 - 24;
/// A heap row's header and line pointer (`MAXALIGN(SizeofHeapTupleHeader)
/// + sizeof(ItemIdData)`).
const ROW_OVERHEAD_BYTES: u32 = 24 + 4;
/// The pages PostgreSQL assumes a never-analyzed table has at least.
const UNANALYZED_MIN_PAGES: f64 = 10.0;
/// Distinct values assumed without statistics (`DEFAULT_NUM_DISTINCT`).
const DEFAULT_NUM_DISTINCT: f64 = 200.0;
/// `work_mem`'s default, the sort's memory.
const WORK_MEM_BYTES: f64 = 4.0 * 1024.0 * 1024.0;
/// A page.
const PAGE_BYTES: f64 = 8192.0;
/// Runs a sort merges at once with 4 MB (`tuplesort_merge_order`).
const MERGE_ORDER: f64 = 15.0;
/// An Append's charge per row, as a share of `cpu_tuple_cost`.
const APPEND_CPU_COST_MULTIPLIER: f64 = 0.5;
/// The passes PostgreSQL assumes a recursive union's step makes.
const RECURSIVE_STEPS: f64 = 10.0;

/// PostgreSQL's `clamp_row_est`: rounded, at least 1.
pub fn clamp_rows(rows: f64) -> f64 {
    if rows <= 1.0 { 1.0 } else { rows.round() }
}

/// A table's pages and rows as the planner sees them now
/// (`estimate_rel_size`), with `width` the bytes of its whole row.
pub fn table_size(relation: &Relation) -> (f64, f64) {
    let pages = relation.table.page_ids().map_or(0, |p| p.len()) as f64;
    table_size_of(pages, relation.statistics().as_deref(), row_width(relation))
}

/// [`table_size`] of a table of `pages` pages now, `stats` from its last
/// ANALYZE, rows of `width` bytes.
pub fn table_size_of(pages: f64, stats: Option<&TableStats>, width: u32) -> (f64, f64) {
    let (pages, density) = match stats {
        Some(s) if s.pages > 0 => (pages, s.rows / s.pages as f64),
        // Analyzed empty: the row width's density on the pages it has.
        Some(_) => (pages, rows_per_page(width)),
        None => (pages.max(UNANALYZED_MIN_PAGES), rows_per_page(width)),
    };
    (pages, (density * pages).round())
}

/// Rows of `width` bytes a page holds (an integer, as PostgreSQL divides).
fn rows_per_page(width: u32) -> f64 {
    f64::from(USABLE_PAGE_BYTES / (width + ROW_OVERHEAD_BYTES))
}

/// The bytes of a table's whole row.
fn row_width(relation: &Relation) -> u32 {
    (0..relation.types.len())
        .map(|c| column_width(relation, c))
        .sum()
}

/// Column `c`'s average width: ANALYZE's, else its type's.
pub fn column_width(relation: &Relation, c: usize) -> u32 {
    let analyzed = relation.statistics().and_then(|s| {
        (s.types.get(c) == relation.types.get(c))
            .then(|| s.columns.get(c).map(|s| s.avg_width))
            .flatten()
    });
    analyzed.unwrap_or_else(|| relation.types.get(c).map_or(0, |t| type_avg_width(*t)))
}

/// A value of `ty`'s width without statistics.
pub fn type_width(ty: SqlType) -> u32 {
    type_avg_width(ty)
}

/// The cost of evaluating `s` once (`cost_qual_eval`): an operator or a
/// function call costs `cpu_operator_cost`, an IN list half of that per
/// item; columns, constants, AND/OR/NOT, CASE and IS NULL nothing.
pub fn expression_cost(s: &Scalar) -> f64 {
    let own = match s {
        Scalar::Compare(..)
        | Scalar::Arith(..)
        | Scalar::Negate(_)
        | Scalar::Like { .. }
        | Scalar::Func(..)
        | Scalar::Call(_) => CPU_OPERATOR_COST,
        Scalar::InList { list, .. } => CPU_OPERATOR_COST * 0.5 * list.len() as f64,
        // A constant's cast is folded when planned.
        Scalar::Cast(e, _) if !matches!(**e, Scalar::Const(_)) => CPU_OPERATOR_COST,
        _ => 0.0,
    };
    own + sum(s.children().into_iter().map(expression_cost))
}

/// The cost of conditions, per row.
pub fn quals_cost(quals: &[Scalar]) -> f64 {
    sum(quals.iter().map(expression_cost))
}

/// A sum of costs or rows, 0 (not Rust's -0, which prints `-0.00`) when
/// empty.
pub fn sum(values: impl Iterator<Item = f64>) -> f64 {
    values.fold(0.0, |a, b| a + b)
}

/// A table's scan: sequential (`cost_seqscan`) or by an index
/// (`cost_index`), with `index_cond` answered by the index and `filter`
/// checked on each row found; handing on rows of `width` bytes.
pub fn table_scan(
    relation: &Relation,
    index: Option<(usize, bool)>,
    index_cond: &[Scalar],
    filter: &[Scalar],
    width: u32,
) -> Estimate {
    let (pages, tuples) = table_size(relation);
    let stats = relation.statistics();
    let sel = |quals: &[Scalar]| -> f64 {
        quals
            .iter()
            .map(|q| match &stats {
                _ if tuples >= 1.0 && unique_equality(relation, q) => 1.0 / tuples,
                Some(s) => cost::selectivity(s, q),
                None => cost::default_selectivity(q),
            })
            .product()
    };
    let rows = clamp_rows(tuples * sel(index_cond) * sel(filter));
    let path = match index {
        None => cost::seq_scan_cost(pages, tuples, quals_cost(index_cond) + quals_cost(filter)),
        Some((index, only)) => {
            let leading = relation.indexes[index]
                .def
                .columns
                .first()
                .map_or(0, |&k| usize::from(k));
            let correlation = stats
                .as_ref()
                .map_or(0.0, |s| cost::correlation(s, leading));
            cost::index_scan_cost(
                cost::TableSize {
                    pages,
                    tuples,
                    entries: held_rows(relation, tuples),
                },
                sel(index_cond),
                correlation,
                (quals_cost(index_cond), quals_cost(filter)),
                only,
            )
        }
    };
    Estimate {
        startup: path.startup,
        total: path.total,
        rows,
        width,
    }
}

/// The rows `relation` holds now, as its index's entries: the planner's
/// `tuples` (ANALYZE's density on the pages now), but for a
/// never-analyzed table its pages now at the row width's density,
/// without the 10-page minimum.
fn held_rows(relation: &Relation, tuples: f64) -> f64 {
    match relation.statistics() {
        Some(_) => tuples,
        None => {
            let pages = relation.table.page_ids().map_or(0, |p| p.len()) as f64;
            pages * rows_per_page(row_width(relation))
        }
    }
}

/// Whether `q` is `column = value` (a constant other than NULL, or a
/// parameter) of a column a unique index holds alone, for every row:
/// PostgreSQL's `var_eq_const` / `var_eq_non_const` then take one row
/// (`1 / tuples`), statistics or not.
fn unique_equality(relation: &Relation, q: &Scalar) -> bool {
    let Scalar::Compare(crate::scalar::Cmp::Eq, a, b) = q else {
        return false;
    };
    let (c, value) = match (a.as_ref(), b.as_ref()) {
        (Scalar::Column(c), v) | (v, Scalar::Column(c)) => (*c, v.through_string_cast()),
        _ => return false,
    };
    let known = match value {
        Scalar::Const(v) => !matches!(v, folio_row::Value::Null),
        Scalar::Param(_) | Scalar::Outer(..) => true,
        v => v.parameter_type().is_some(),
    };
    known
        && relation.indexes.iter().any(|ri| {
            let def = &ri.def;
            def.unique
                && def.is_plain()
                && def.columns.len() == 1
                && usize::from(def.columns[0]) == c
        })
}

/// Rows produced by something whose rows PostgreSQL cannot see (a
/// sequence's one row, a system relation, a work table), then `filter`.
pub fn opaque_scan(rows: f64, filter: &[Scalar], width: u32) -> Estimate {
    let rows_out = clamp_rows(rows * default_selectivity(filter));
    Estimate {
        startup: 0.0,
        total: rows * (CPU_TUPLE_COST + quals_cost(filter)),
        rows: rows_out,
        width,
    }
}

/// PostgreSQL's selectivity of conditions it has no statistics for.
pub fn default_selectivity(filter: &[Scalar]) -> f64 {
    filter.iter().map(cost::default_selectivity).product()
}

/// A function in FROM returning `rows` rows (`cost_functionscan`): the
/// call once, then `cpu_tuple_cost` and `filter` per row.
pub fn function_scan(call_cost: f64, rows: f64, filter: &[Scalar], width: u32) -> Estimate {
    Estimate {
        startup: call_cost,
        total: call_cost + rows * (CPU_TUPLE_COST + quals_cost(filter)),
        rows: clamp_rows(rows * default_selectivity(filter)),
        width,
    }
}

/// A scan of a subquery's or a CTE's rows (`cost_subqueryscan`,
/// `cost_ctescan`): `cpu_tuple_cost` and `filter` per row on top of
/// `input`.
pub fn subquery_scan(input: Estimate, filter: &[Scalar], width: u32) -> Estimate {
    Estimate {
        startup: input.startup,
        total: input.total + input.rows * (CPU_TUPLE_COST + quals_cost(filter)),
        rows: clamp_rows(input.rows * default_selectivity(filter)),
        width,
    }
}

/// A CTE scan (`cost_ctescan`): its rows read from the CTE's store; the
/// CTE itself is a subplan, costed apart.
pub fn cte_scan(cte: Estimate, filter: &[Scalar], width: u32) -> Estimate {
    Estimate {
        startup: 0.0,
        total: cte.rows * (CPU_TUPLE_COST + quals_cost(filter)),
        rows: clamp_rows(cte.rows * default_selectivity(filter)),
        width,
    }
}

/// `Result` without FROM: one row, `cpu_tuple_cost`, and a one-time
/// filter's cost.
pub fn result(filter: &[Scalar], width: u32) -> Estimate {
    let filter_cost = quals_cost(filter);
    Estimate {
        startup: filter_cost,
        total: filter_cost + CPU_TUPLE_COST,
        rows: 1.0,
        width,
    }
}

/// Conditions checked on `input`'s rows by the node itself (a filter
/// above the scans): their cost per row, their default selectivity.
pub fn filtered(input: Estimate, filter: &[Scalar]) -> Estimate {
    Estimate {
        total: input.total + input.rows * quals_cost(filter),
        rows: clamp_rows(input.rows * default_selectivity(filter)),
        ..input
    }
}

/// An Append of `children` (`cost_append`): the first's startup, their
/// totals and rows summed, half a `cpu_tuple_cost` per row.
pub fn append(children: &[Estimate], width: u32) -> Estimate {
    let rows = sum(children.iter().map(|c| c.rows));
    let total = sum(children.iter().map(|c| c.total));
    Estimate {
        startup: children.first().map_or(0.0, |c| c.startup),
        total: total + CPU_TUPLE_COST * APPEND_CPU_COST_MULTIPLIER * rows,
        rows,
        width,
    }
}

/// A recursive union (`cost_recursive_union`): the base once and the
/// step ten times, `cpu_tuple_cost` per row.
pub fn recursive_union(base: Estimate, step: Estimate) -> Estimate {
    let rows = base.rows + RECURSIVE_STEPS * step.rows;
    Estimate {
        startup: base.startup,
        total: base.total + RECURSIVE_STEPS * step.total + CPU_TUPLE_COST * rows,
        rows,
        width: base.width.max(step.width),
    }
}

/// A Sort of `input` (`cost_sort`): `2 × cpu_operator_cost × N ×
/// log2(N)` comparisons before the first row (a bounded heap of `limit`
/// rows: `log2(2 × limit)`), an external merge's page I/O when the rows
/// pass `work_mem`, then `cpu_operator_cost` per row.
pub fn sort(input: Estimate, limit: Option<f64>) -> Estimate {
    let tuples = input.rows.max(2.0);
    let comparison = 2.0 * CPU_OPERATOR_COST;
    let input_bytes = byte_size(tuples, input.width);
    let output = limit.filter(|&l| l < tuples);
    let output_bytes = output.map_or(input_bytes, |l| byte_size(l, input.width));
    let mut startup = 0.0;
    if output_bytes > WORK_MEM_BYTES {
        let pages = (input_bytes / PAGE_BYTES).ceil();
        let runs = input_bytes / WORK_MEM_BYTES;
        let log_runs = match runs > MERGE_ORDER {
            true => (runs.ln() / MERGE_ORDER.ln()).ceil(),
            false => 1.0,
        };
        let accesses = 2.0 * pages * log_runs;
        startup += comparison * tuples * tuples.log2();
        startup += accesses * (cost::SEQ_PAGE_COST * 0.75 + cost::RANDOM_PAGE_COST * 0.25);
    } else if let Some(l) = output.filter(|&l| tuples > 2.0 * l || input_bytes > WORK_MEM_BYTES) {
        startup += comparison * tuples * (2.0 * l).log2();
    } else {
        startup += comparison * tuples * tuples.log2();
    }
    let startup = input.total + startup;
    Estimate {
        startup,
        total: startup + CPU_OPERATOR_COST * tuples,
        rows: input.rows,
        width: input.width,
    }
}

/// Bytes of `rows` rows of `width` in memory (`relation_byte_size`).
fn byte_size(rows: f64, width: u32) -> f64 {
    let align = |n: u32| n.div_ceil(8) * 8;
    rows * f64::from(align(width) + align(23))
}

/// A Limit over `input` (`adjust_limit_rows_costs`): the offset's share
/// of the input's run cost before the first row, the count's share in
/// all.
pub fn limit(input: Estimate, offset: f64, count: Option<f64>) -> Estimate {
    let run = input.total - input.startup;
    let mut out = input;
    if offset > 0.0 {
        let skipped = offset.min(out.rows);
        if input.rows > 0.0 {
            out.startup += run * skipped / input.rows;
        }
        out.rows = (out.rows - skipped).max(1.0);
    }
    if let Some(count) = count {
        let taken = count.min(out.rows);
        if input.rows > 0.0 {
            out.total = out.startup + run * taken / input.rows;
        }
        out.rows = taken.max(1.0);
    } else if offset > 0.0 {
        out.total = input.total;
    }
    out
}

/// An aggregate's calls' costs per input row and per group (the
/// transition and final functions, `get_agg_clause_costs`).
#[derive(Debug, Clone, Copy, Default)]
pub struct CallCosts {
    pub per_row: f64,
    pub per_group: f64,
}

/// How an Aggregate groups.
#[derive(Debug, Clone, Copy)]
pub enum Grouped {
    /// No GROUP BY: one row.
    Plain,
    /// A hash table of `groups` groups by `keys` keys.
    Hashed { keys: usize, groups: f64 },
}

/// An Aggregate over `input` (`cost_agg`): every input row through the
/// calls (and, hashed, `keys` hash operators) before the first group;
/// then each group's final calls and `cpu_tuple_cost`; `having` per
/// group.
pub fn aggregate(
    input: Estimate,
    grouped: Grouped,
    calls: CallCosts,
    having: Option<&Scalar>,
    width: u32,
) -> Estimate {
    let (keys, groups) = match grouped {
        Grouped::Plain => (0, 1.0),
        Grouped::Hashed { keys, groups } => (keys, groups),
    };
    let mut startup = input.total + calls.per_row * input.rows;
    startup += CPU_OPERATOR_COST * keys as f64 * input.rows;
    let mut total = match grouped {
        Grouped::Plain => startup + calls.per_group + CPU_TUPLE_COST,
        Grouped::Hashed { .. } => startup + (calls.per_group + CPU_TUPLE_COST) * groups,
    };
    if matches!(grouped, Grouped::Plain) {
        startup += calls.per_group;
    }
    let mut rows = groups;
    if let Some(h) = having {
        total += expression_cost(h) * groups;
        rows = clamp_rows(groups * cost::default_selectivity(h));
    }
    Estimate {
        startup,
        total,
        rows,
        width,
    }
}

/// Groups among `input_rows` rows whose keys have `distinct` values each
/// (`estimate_num_groups`): their product, at most the rows.
pub fn groups(distinct: &[f64], input_rows: f64) -> f64 {
    let product: f64 = distinct.iter().product();
    clamp_rows(product.min(input_rows))
}

/// A column's distinct values (`get_variable_numdistinct`): ANALYZE's
/// (a negative count a fraction of the rows), else 200 or the table's
/// rows when fewer, 2 for a boolean.
pub fn distinct_values(stats: Option<&TableStats>, c: usize, ty: SqlType, rows: f64) -> f64 {
    match stats.and_then(|s| s.columns.get(c)) {
        Some(col) if col.n_distinct > 0.0 => col.n_distinct,
        Some(col) if col.n_distinct < 0.0 => (-col.n_distinct * rows).max(1.0),
        _ if ty == SqlType::Bool => 2.0,
        _ => DEFAULT_NUM_DISTINCT.min(rows.max(1.0)),
    }
}

/// A WindowAgg over `input` (`cost_windowagg`): per row each call and
/// each partition and order key's comparison, and `cpu_tuple_cost`.
pub fn window_agg(input: Estimate, calls: f64, keys: usize, width: u32) -> Estimate {
    let per_row = calls + CPU_OPERATOR_COST * keys as f64 + CPU_TUPLE_COST;
    Estimate {
        startup: input.startup,
        total: input.total + per_row * input.rows,
        rows: input.rows,
        width,
    }
}

/// A Unique over sorted `input` (`create_upper_unique_path`): a
/// comparison per row and key; `groups` rows.
pub fn unique(input: Estimate, keys: usize, groups: f64) -> Estimate {
    Estimate {
        startup: input.startup,
        total: input.total + CPU_OPERATOR_COST * input.rows * keys as f64,
        rows: groups,
        width: input.width,
    }
}

/// A hashed INTERSECT or EXCEPT over `input` (`create_setop_path`): a
/// comparison per row and column; `rows` rows.
pub fn set_op(input: Estimate, columns: usize, rows: f64) -> Estimate {
    Estimate {
        startup: input.startup,
        total: input.total + CPU_OPERATOR_COST * input.rows * columns as f64,
        rows,
        width: input.width,
    }
}

/// LockRows over `input` (`create_lockrows_path`): `cpu_tuple_cost` per
/// row.
pub fn lock_rows(input: Estimate) -> Estimate {
    Estimate {
        total: input.total + CPU_TUPLE_COST * input.rows,
        ..input
    }
}

/// The selectivity of `left = right` between two joined inputs whose
/// columns have `left_distinct` and `right_distinct` values and NULL
/// fractions (`eqjoinsel_inner` without the MCV lists): the non-NULL
/// share over the larger distinct count.
pub fn equijoin_selectivity(left: (f64, f64), right: (f64, f64)) -> f64 {
    let ((nd1, null1), (nd2, null2)) = (left, right);
    (1.0 - null1) * (1.0 - null2) / nd1.max(nd2).max(1.0)
}

/// A join's rows (`calc_joinrel_size_estimate`): the product times the
/// selectivity; a LEFT join at least its left rows, a RIGHT its right's,
/// a FULL both.
pub fn join_rows(kind: crate::from::JoinKind, outer: f64, inner: f64, selectivity: f64) -> f64 {
    use crate::from::JoinKind;
    let inner_rows = outer * inner * selectivity;
    clamp_rows(match kind {
        JoinKind::Inner => inner_rows,
        JoinKind::Left => inner_rows.max(outer),
        JoinKind::Right => inner_rows.max(inner),
        JoinKind::Full => inner_rows.max(outer).max(inner),
    })
}

/// A Nested Loop (`cost_nestloop`): the outer once, the inner once per
/// outer row (rescanned at its full cost), and per pair
/// `cpu_tuple_cost` and the join's conditions.
pub fn nested_loop(
    outer: Estimate,
    inner: Estimate,
    quals: f64,
    rows: f64,
    width: u32,
) -> Estimate {
    let inner_run = inner.total - inner.startup;
    let startup = outer.startup + inner.startup;
    let outer_rows = outer.rows;
    let mut run = outer.total - outer.startup;
    if outer_rows > 1.0 {
        run += (outer_rows - 1.0) * inner.startup;
    }
    run += inner_run * outer_rows;
    run += (CPU_TUPLE_COST + quals) * outer_rows * inner.rows;
    Estimate {
        startup,
        total: startup + run,
        rows,
        width,
    }
}

/// The Hash node over a hash join's inner input: its cost is its input's,
/// all before the first row.
pub fn hash(inner: Estimate) -> Estimate {
    Estimate {
        startup: inner.total,
        ..inner
    }
}

/// A Hash Join (`cost_hashjoin`, in memory): the inner hashed before the
/// first row (`keys` hash operators and `cpu_tuple_cost` a row), each
/// outer row hashed and probed against half a bucket of `bucket_rows`
/// rows, then per row joined `cpu_tuple_cost` and the join's other
/// conditions (`quals`).
pub fn hash_join(
    outer: Estimate,
    inner: Estimate,
    keys: usize,
    bucket_rows: f64,
    quals: f64,
    rows: f64,
    width: u32,
) -> Estimate {
    let keys = keys as f64;
    let startup =
        outer.startup + inner.total + (CPU_OPERATOR_COST * keys + CPU_TUPLE_COST) * inner.rows;
    let mut run = outer.total - outer.startup;
    run += CPU_OPERATOR_COST * keys * outer.rows;
    run += CPU_OPERATOR_COST * keys * outer.rows * clamp_rows(bucket_rows) * 0.5;
    run += (CPU_TUPLE_COST + quals) * rows;
    Estimate {
        startup,
        total: startup + run,
        rows,
        width,
    }
}

/// The rows of a hash join's bucket (`estimate_hash_bucketsize` times the
/// inner rows): the inner rows over the smaller of the key's distinct
/// values and the buckets (a power of 2 of at least the rows, 1024 at
/// least); a tenth of them without statistics.
pub fn bucket_rows(inner_rows: f64, distinct: Option<f64>) -> f64 {
    let buckets = inner_rows.max(1024.0).log2().ceil().exp2();
    let fraction = match distinct {
        Some(d) => 1.0 / d.min(buckets).max(1.0),
        None => (1.0 / buckets).max(0.1),
    };
    inner_rows * fraction
}

/// Whether a condition is `column = column` (an equijoin's clause).
pub fn equality_columns(s: &Scalar) -> Option<(usize, usize)> {
    match s {
        Scalar::Compare(Cmp::Eq, a, b) => match (a.as_ref(), b.as_ref()) {
            (Scalar::Column(x), Scalar::Column(y)) => Some((*x, *y)),
            _ => None,
        },
        _ => None,
    }
}

/// The columns of a planned query's source row that its nodes above the
/// source read (PostgreSQL's target list of the scans and joins): its
/// result's or its grouping's expressions, windows, sorts and late
/// conditions.
pub fn needed_columns(planned: &Planned) -> Vec<usize> {
    let mut out = Vec::new();
    match &planned.shape {
        Shape::Project(items) => items.iter().for_each(|s| s.columns(&mut out)),
        Shape::Aggregate { grouping, .. } => {
            grouping.keys.iter().for_each(|s| s.columns(&mut out));
            grouping.calls.iter().for_each(|c| c.columns(&mut out));
        }
    }
    if matches!(planned.shape, Shape::Project(_)) {
        (planned.windows.scalars().into_iter()).for_each(|s| s.columns(&mut out));
    }
    planned.filter.iter().for_each(|s| s.columns(&mut out));
    out.extend(planned.sort.iter().map(|k| k.column));
    out.retain(|&c| c < planned.scope.width());
    out.sort_unstable();
    out.dedup();
    out
}

/// Where scope column `c` comes from: the table of `source` (placed at
/// `offset`) that holds it, and its place in that table's row.
pub fn column_table(source: &Source, offset: usize, c: usize) -> Option<(&Relation, usize)> {
    match source {
        Source::Table { relation, .. } => {
            (c >= offset && c < offset + relation.types.len()).then(|| (&**relation, c - offset))
        }
        Source::Join {
            left,
            right,
            right_offset,
            ..
        } => match c >= *right_offset {
            true => column_table(right, *right_offset, c),
            false => column_table(left, offset, c),
        },
        _ => None,
    }
}

/// The width of the columns of `needed` in `offset..offset + span` of a
/// source's row: a table's column its average, another its type's.
pub fn span_width(
    source: &Source,
    types: &[SqlType],
    (offset, span): (usize, usize),
    needed: &[usize],
) -> u32 {
    (needed.iter())
        .filter(|&&c| c >= offset && c < offset + span)
        .map(|&c| match column_table(source, offset, c) {
            Some((relation, k)) => column_width(relation, k),
            None => types.get(c).map_or(0, |t| type_width(*t)),
        })
        .sum()
}

/// The distinct values and NULL fraction of scope column `c` of a
/// source whose rows number `rows` (`None` when it is no table's column
/// or the table has no statistics: PostgreSQL's defaults apply).
pub fn column_distinct(
    (source, offset): (&Source, usize),
    c: usize,
    rows: f64,
) -> (Option<f64>, f64) {
    let Some((relation, k)) = column_table(source, offset, c) else {
        return (None, 0.0);
    };
    let Some(stats) = relation.statistics() else {
        return (None, 0.0);
    };
    let ty = relation.types.get(k).copied().unwrap_or(SqlType::Text);
    let (_, tuples) = table_size(relation);
    let d = distinct_values(Some(&stats), k, ty, tuples).min(rows.max(1.0));
    (Some(d), stats.columns.get(k).map_or(0.0, |s| s.null_frac))
}

/// The width of a planned query's result rows: a result column that is
/// a source column its average, another its type's.
pub fn output_width(planned: &Planned) -> u32 {
    let types = planned.scope.types();
    let items: &[Scalar] = match &planned.shape {
        Shape::Project(items) => items,
        Shape::Aggregate { .. } => &[],
    };
    (planned.types.iter().enumerate())
        .map(|(i, ty)| match items.get(i) {
            // (A window call's value is a column past the source's.)
            Some(Scalar::Column(c)) if *c < types.len() => {
                span_width(&planned.source, &types, (0, usize::MAX), &[*c])
            }
            _ => type_width(*ty),
        })
        .sum()
}

/// Groups of a planned query's rows by `keys` (expressions over its
/// source row), `rows` of them (`estimate_num_groups`): each key that is
/// a table's column its distinct values (200 without statistics, at most
/// the table's rows), reduced when conditions keep `rows` of the table's
/// `tuples` (`d × (1 − ((tuples − rows) / tuples)^(tuples / d))`);
/// another key 200; their product, at most the rows.
pub fn key_groups(planned: &Planned, keys: &[&Scalar], rows: f64) -> f64 {
    let distinct: Vec<f64> = keys
        .iter()
        .map(|k| {
            let Scalar::Column(c) = k else {
                return DEFAULT_NUM_DISTINCT.min(rows);
            };
            let Some((relation, column)) = column_table(&planned.source, 0, *c) else {
                return DEFAULT_NUM_DISTINCT.min(rows);
            };
            let (_, tuples) = table_size(relation);
            let stats = relation.statistics();
            let ty = relation.types.get(column).copied().unwrap_or(SqlType::Text);
            let d = distinct_values(stats.as_deref(), column, ty, tuples);
            clamp_rows(reduced_distinct(d, tuples, rows))
        })
        .collect();
    groups(&distinct, rows)
}

/// `distinct` values of a table of `tuples` rows among `rows` of them.
fn reduced_distinct(distinct: f64, tuples: f64, rows: f64) -> f64 {
    match distinct > 0.0 && rows < tuples {
        true => distinct * (1.0 - ((tuples - rows) / tuples).powf(tuples / distinct)),
        false => distinct,
    }
}

/// The aggregate calls' costs (`get_agg_clause_costs`): per row a
/// transition function and its arguments; per group a final function
/// for those with one (averages, variances, `sum` of `bigint` or
/// `numeric`, string and array and JSON aggregates).
pub fn call_costs(calls: &[crate::aggregate::Call]) -> CallCosts {
    use crate::aggregate::Kind;
    let mut costs = CallCosts::default();
    for call in calls {
        if call.kind == Kind::Grouping {
            continue;
        }
        costs.per_row += CPU_OPERATOR_COST;
        for a in call.arg.iter().chain(call.delimiter.iter()) {
            costs.per_row += expression_cost(a);
        }
        let finishes = match call.kind {
            Kind::Sum => matches!(call.ty, SqlType::Numeric(_)),
            Kind::CountStar
            | Kind::Count
            | Kind::Min
            | Kind::Max
            | Kind::BoolAnd
            | Kind::BoolOr
            | Kind::Grouping => false,
            _ => true,
        };
        if finishes {
            costs.per_group += CPU_OPERATOR_COST;
        }
    }
    costs
}

/// The selectivity of a join's conditions between `left` (at `offset`,
/// `left_rows` rows) and `right` (`right_rows`), over the join's row: an
/// equality of a column of each side [`equijoin_selectivity`] (a side
/// without statistics 200 distinct values, at most its rows), another
/// condition PostgreSQL's default.
pub fn join_selectivity(
    (join, offset): (&Source, usize),
    conditions: &[Scalar],
    left_rows: f64,
    right_rows: f64,
) -> f64 {
    let side = |c: usize, rows: f64| match column_distinct((join, offset), c, rows) {
        (Some(d), nulls) => (d, nulls),
        (None, nulls) => (DEFAULT_NUM_DISTINCT.min(rows.max(1.0)), nulls),
    };
    (conditions.iter())
        .map(|q| match equality_columns(q) {
            Some((a, b)) => {
                let split = match join {
                    Source::Join { right_offset, .. } => *right_offset,
                    _ => usize::MAX,
                };
                let (l, r) = if a < split { (a, b) } else { (b, a) };
                equijoin_selectivity(side(l, left_rows), side(r, right_rows))
            }
            None => cost::default_selectivity(q),
        })
        .product()
}

/// The rows a set-returning function in FROM is estimated to return
/// (its `prorows`, or its planner support function's count):
/// `generate_series` of integer constants their count, `unnest` of an
/// array constant its length, `regexp_matches` and
/// `pg_listening_channels` 10, the JSON functions 100, others 1000.
pub fn function_rows(scan: &crate::table_functions::FunctionScan) -> f64 {
    use crate::table_functions::TableFunc;
    use folio_row::Value;
    let int = |s: &Scalar| match s.through_string_cast() {
        Scalar::Const(Value::Int4(n)) => Some(f64::from(*n)),
        Scalar::Const(Value::Int8(n)) => Some(*n as f64),
        _ => None,
    };
    let rows = match (&scan.func, scan.args.as_slice()) {
        (TableFunc::Series(_), [a, b]) => match (int(a), int(b)) {
            (Some(a), Some(b)) => (b - a + 1.0).max(0.0),
            _ => 1000.0,
        },
        (TableFunc::Series(_), [a, b, step]) => match (int(a), int(b), int(step)) {
            (Some(a), Some(b), Some(s)) if s != 0.0 => ((b - a) / s + 1.0).floor().max(0.0),
            _ => 1000.0,
        },
        (TableFunc::Unnest(_), [Scalar::Const(Value::Array(items))]) => items.len() as f64,
        (TableFunc::Unnest(_), [Scalar::Cast(e, _)]) => match e.as_ref() {
            Scalar::Const(Value::Array(items)) => items.len() as f64,
            _ => 100.0,
        },
        (TableFunc::Unnest(_), _) => 100.0,
        (TableFunc::RegexMatches | TableFunc::ListeningChannels, _) => 10.0,
        (TableFunc::Json(_) | TableFunc::Record(_), _) => 100.0,
        _ => 1000.0,
    };
    let also = scan.also.iter().map(function_rows).fold(rows, f64::max);
    clamp_rows(also)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn e(startup: f64, total: f64, rows: f64, width: u32) -> Estimate {
        Estimate {
            startup,
            total,
            rows,
            width,
        }
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 0.005
    }

    // A never-analyzed table of 2 int columns: 10 pages of 226 rows
    // (PostgreSQL 15: `Seq Scan on t (cost=0.00..32.60 rows=2260
    // width=8)`).
    #[test]
    fn unanalyzed_table_size() {
        assert_eq!(table_size_of(0.0, None, 8), (10.0, 2260.0));
        assert_eq!(table_size_of(44.0, None, 8), (44.0, 9944.0));
        let scan = cost::seq_scan_cost(10.0, 2260.0, 0.0);
        assert!(close(scan.total, 32.60));
    }

    // `limit 10` over `Seq Scan (cost=0.00..1443.00 rows=100000)`:
    // PostgreSQL 15 prints `Limit (cost=0.00..0.14 rows=10)`; `offset
    // 100 limit 10`: `(cost=1.44..1.59 rows=10)`.
    #[test]
    fn limit_takes_its_share() {
        let scan = e(0.0, 1443.0, 100000.0, 4);
        let l = limit(scan, 0.0, Some(10.0));
        assert!(close(l.startup, 0.0) && close(l.total, 0.1443) && l.rows == 10.0);
        let l = limit(scan, 100.0, Some(10.0));
        assert!(close(l.startup, 1.443) && close(l.total, 1.587) && l.rows == 10.0);
    }

    // `order by a` over 100000 rows of width 4: PostgreSQL 15 prints
    // `Sort (cost=9747.82..9997.82 rows=100000 width=4)` over a scan of
    // total 1443.00; with `limit 10` the bounded heap's
    // `(cost=3603.96..3853.96)` (PostgreSQL 15 over a scan of 1541.00:
    // 3701.96).
    #[test]
    fn sort_formula() {
        let scan = e(0.0, 1443.0, 100000.0, 4);
        let s = sort(scan, None);
        assert!(close(s.startup, 9747.82), "{s:?}");
        assert!(close(s.total, 9997.82));
        let s = sort(scan, Some(10.0));
        assert!(close(s.startup, 3603.96), "{s:?}");
    }

    // `count(*)` over 2260 rows costing 32.60: `Aggregate
    // (cost=38.25..38.26 rows=1 width=8)`.
    #[test]
    fn plain_aggregate() {
        let scan = e(0.0, 32.60, 2260.0, 0);
        let calls = CallCosts {
            per_row: CPU_OPERATOR_COST,
            per_group: 0.0,
        };
        let a = aggregate(scan, Grouped::Plain, calls, None, 8);
        assert!(close(a.startup, 38.25) && close(a.total, 38.26), "{a:?}");
    }

    // Costs of expressions: one operator each, an IN list half one per
    // item.
    #[test]
    fn expression_costs() {
        let a = Box::new(Scalar::Column(0));
        let one = Box::new(Scalar::Const(folio_row::Value::Int4(1)));
        let eq = Scalar::Compare(Cmp::Eq, a.clone(), one.clone());
        assert!(close(expression_cost(&eq), 0.0025));
        let both = Scalar::And(Box::new(eq.clone()), Box::new(eq));
        assert!(close(expression_cost(&both), 0.005));
        let list = Scalar::InList {
            expr: a,
            list: vec![Scalar::Const(folio_row::Value::Int4(1)); 4],
            negated: false,
        };
        assert!(close(expression_cost(&list), 0.005));
    }
}
