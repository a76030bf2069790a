//! What an access path to a table costs, from the table's statistics
//! (`ANALYZE`, folio-catalog `statistics.rs`), in PostgreSQL's units and
//! by PostgreSQL's formulas (`costsize.c`: `cost_seqscan`, `cost_index`
//! with the correlation interpolating between random and sequential heap
//! reads), with its default cost settings. `plan.rs` asks it whether an
//! index scan is worth more than reading the table.
//!
//! Selectivities: `column = constant` from the most common values or the
//! remaining values' share; `column = $n` (or an outer value) as
//! 1/distinct; ranges from the histogram; `IN` as the sum of its
//! equalities; `IS NULL` from the NULL fraction; AND as a product, OR as a
//! union, NOT as the rest; anything else PostgreSQL's defaults (0.005 for
//! an equality, 1/3 for an inequality, 0.5 otherwise).

use crate::scalar::{Cmp, Scalar};
use folio_catalog::{DEFAULT_RANGE_SELECTIVITY, TableStats};

pub const SEQ_PAGE_COST: f64 = 1.0;
pub const RANDOM_PAGE_COST: f64 = 4.0;
pub const CPU_TUPLE_COST: f64 = 0.01;
const CPU_INDEX_TUPLE_COST: f64 = 0.005;
pub const CPU_OPERATOR_COST: f64 = 0.0025;
/// PostgreSQL's selectivity of an equality it knows nothing about.
const DEFAULT_EQ_SELECTIVITY: f64 = 0.005;
/// Index entries per leaf page, for an index's size (folio keeps no
/// index statistics): about 150 entries of 40 bytes in a 70% full page.
const ENTRIES_PER_INDEX_PAGE: f64 = 150.0;
/// Entries per page of PostgreSQL's B-tree on one integer column, for
/// the tree's height (its descent's cost).
const BTREE_FANOUT: f64 = 367.0;

/// A path's cost before its first row and for all its rows.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PathCost {
    pub startup: f64,
    pub total: f64,
}

/// A table's pages and rows.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TableSize {
    pub pages: f64,
    pub tuples: f64,
    /// The rows the table holds now, whose index entries make the
    /// tree's height (`tuples` but for a never-analyzed table, whose
    /// `tuples` assume at least 10 pages while its index may be a single
    /// leaf, PostgreSQL's height 0).
    pub entries: f64,
}

/// The fraction of the table's rows that satisfy `conjunct`.
pub fn selectivity(stats: &TableStats, conjunct: &Scalar) -> f64 {
    let column = |c: usize| stats.columns.get(c);
    let known = |v: &Scalar| match v.through_string_cast() {
        Scalar::Const(v) => Some(Some(v.clone())),
        Scalar::Param(_) | Scalar::Outer(..) => Some(None),
        v if v.parameter_type().is_some() => Some(None),
        _ => None,
    };
    let s = match conjunct {
        Scalar::Compare(cmp, a, b) => {
            let (c, cmp, v) = match (a.as_ref(), b.as_ref()) {
                (Scalar::Column(c), v) => (*c, *cmp, v),
                (v, Scalar::Column(c)) => (*c, cmp.flipped(), v),
                _ => return default_cmp_selectivity(*cmp),
            };
            let (Some(stats), Some(value)) = (column(c), known(v)) else {
                return default_cmp_selectivity(cmp);
            };
            match (cmp, value) {
                (Cmp::Eq, value) => stats.eq_selectivity(value.as_ref()),
                (Cmp::Ne, value) => 1.0 - stats.eq_selectivity(value.as_ref()) - stats.null_frac,
                (_, None) => DEFAULT_RANGE_SELECTIVITY,
                (Cmp::Lt, Some(v)) => stats.below_selectivity(&v, false),
                (Cmp::Le, Some(v)) => stats.below_selectivity(&v, true),
                (Cmp::Gt, Some(v)) => 1.0 - stats.below_selectivity(&v, true) - stats.null_frac,
                (Cmp::Ge, Some(v)) => 1.0 - stats.below_selectivity(&v, false) - stats.null_frac,
            }
        }
        Scalar::InList {
            expr,
            list,
            negated,
        } => {
            let one = |item: &Scalar| {
                selectivity(
                    stats,
                    &Scalar::Compare(Cmp::Eq, expr.clone(), Box::new(item.clone())),
                )
            };
            let any = list.iter().map(one).sum::<f64>().min(1.0);
            if *negated { 1.0 - any } else { any }
        }
        Scalar::IsNull(e, negated) => match e.as_ref() {
            Scalar::Column(c) => match column(*c) {
                Some(s) if *negated => 1.0 - s.null_frac,
                Some(s) => s.null_frac,
                None => DEFAULT_EQ_SELECTIVITY,
            },
            _ => DEFAULT_EQ_SELECTIVITY,
        },
        Scalar::And(a, b) => selectivity(stats, a) * selectivity(stats, b),
        Scalar::Or(a, b) => {
            let (x, y) = (selectivity(stats, a), selectivity(stats, b));
            x + y - x * y
        }
        Scalar::Not(e) => 1.0 - selectivity(stats, e),
        _ => 0.5,
    };
    s.clamp(0.0, 1.0)
}

/// PostgreSQL's selectivity of a condition without statistics.
pub fn default_selectivity(conjunct: &Scalar) -> f64 {
    selectivity(&TableStats::default(), conjunct)
}

fn default_cmp_selectivity(cmp: Cmp) -> f64 {
    match cmp {
        Cmp::Eq => DEFAULT_EQ_SELECTIVITY,
        Cmp::Ne => 1.0 - DEFAULT_EQ_SELECTIVITY,
        _ => DEFAULT_RANGE_SELECTIVITY,
    }
}

/// Reading every page and checking `quals` conditions on every row.
pub fn seq_scan(stats: &TableStats, quals: usize) -> f64 {
    seq_scan_cost(
        stats.pages as f64,
        stats.rows,
        CPU_OPERATOR_COST * quals as f64,
    )
    .total
}

/// A sequential scan (`cost_seqscan`): every page read in order, and per
/// row `cpu_tuple_cost` and its conditions (`qual_cost` per row).
pub fn seq_scan_cost(pages: f64, tuples: f64, qual_cost: f64) -> PathCost {
    PathCost {
        startup: 0.0,
        total: pages * SEQ_PAGE_COST + tuples * (CPU_TUPLE_COST + qual_cost),
    }
}

/// An index scan whose conditions select `selectivity` of the rows, on a
/// column of `correlation` with the heap order, checking `quals`
/// conditions per row; `only`: index-only (the heap read for few pages).
pub fn index_scan(
    stats: &TableStats,
    selectivity: f64,
    correlation: f64,
    quals: usize,
    only: bool,
) -> f64 {
    let size = TableSize {
        pages: stats.pages as f64,
        tuples: stats.rows,
        entries: stats.rows,
    };
    let quals = CPU_OPERATOR_COST * quals as f64;
    index_scan_cost(size, selectivity, correlation, (quals, 0.0), only).total
}

/// A B-tree index scan (`cost_index` with `btcostestimate`): the descent
/// (a comparison per level of a binary search and 50 operators per page
/// of the tree's height) before the first row; the index pages of the
/// entries the conditions select (`selectivity`) at random, each entry's
/// `cpu_index_tuple_cost` and index conditions (`quals.0` per entry);
/// the heap pages fetched, interpolated by the correlation's square
/// between random and sequential reads; per row `cpu_tuple_cost` and the
/// other conditions (`quals.1`). `only`: index-only (most pages
/// all-visible after a vacuum).
pub fn index_scan_cost(
    size: TableSize,
    selectivity: f64,
    correlation: f64,
    quals: (f64, f64),
    only: bool,
) -> PathCost {
    let rows = size.tuples.max(1.0);
    let pages = size.pages.max(1.0);
    let tuples = (selectivity * rows).round().max(1.0);
    let height = match size.entries / BTREE_FANOUT {
        leaves if leaves <= 1.0 => 0.0,
        leaves => (leaves.ln() / BTREE_FANOUT.ln()).ceil(),
    };
    let descent =
        rows.log2().ceil() * CPU_OPERATOR_COST + (height + 1.0) * 50.0 * CPU_OPERATOR_COST;
    let index_pages = (tuples / ENTRIES_PER_INDEX_PAGE).ceil().max(1.0);
    let index = index_pages * RANDOM_PAGE_COST + tuples * (CPU_INDEX_TUPLE_COST + quals.0);
    // Heap pages fetched (Mackert and Lohman, as PostgreSQL's
    // index_pages_fetched for a table that fits in the cache).
    let fetched = match 2.0 * pages * tuples / (2.0 * pages + tuples) {
        f if f >= pages => pages,
        f => f.ceil(),
    };
    let max_io = fetched * RANDOM_PAGE_COST;
    let min_io = RANDOM_PAGE_COST + ((selectivity * pages).ceil() - 1.0).max(0.0) * SEQ_PAGE_COST;
    let c2 = correlation * correlation;
    let mut heap = max_io + c2 * (min_io - max_io);
    if only {
        heap *= 0.1;
    }
    PathCost {
        startup: descent,
        total: descent + index + heap + tuples * (CPU_TUPLE_COST + quals.1),
    }
}

/// The correlation of column `c` (0 when unknown).
pub fn correlation(stats: &TableStats, c: usize) -> f64 {
    stats.columns.get(c).map_or(0.0, |s| s.correlation)
}
