//! The planner's statistics of a table, gathered by `ANALYZE` as
//! PostgreSQL's `ANALYZE` gathers them (pg_statistic's main kinds), and the
//! selectivities they give.
//!
//! - **Sample**: up to [`SAMPLE_ROWS`] rows (PostgreSQL's 300 × its default
//!   statistics target of 100): as many pages chosen at random, then a
//!   reservoir of the rows visible on them. The row count is the rows per
//!   sampled page times the pages.
//! - **Per column**: the fraction of NULLs; the number of distinct values
//!   (the sample's count when every value repeats, else the Haas-Stokes
//!   estimator PostgreSQL uses, `n·d / (n − f1 + f1·n/N)`; a column whose
//!   values look unique scales with the table); the most common values and
//!   their frequencies (values seen more than once and more often than
//!   1.25 times the average, at most [`MAX_MCV`]); a histogram of the
//!   other values ([`HISTOGRAM_BOUNDS`] bounds with equal counts between);
//!   the correlation of value order with physical order; the average
//!   width of a value as PostgreSQL stores it (`stawidth`).
//!
//! Kept in memory per table (`Catalog::statistics`), replaced by each
//! ANALYZE ([`Catalog::analyze`]), and in the data directory's
//! `table_statistics` across restarts (`statistics_file.rs`), as
//! PostgreSQL keeps them in pg_statistic.

use crate::CatalogError;
use crate::relation::Relation;
use folio_row::{SqlType, Value};
use folio_txn::Transaction;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use std::cmp::Ordering;
use std::sync::atomic::{AtomicU64, Ordering as AtomicOrdering};
use std::sync::{Arc, Mutex};

/// Rows sampled.
pub const SAMPLE_ROWS: usize = 30_000;
/// Most common values kept per column.
pub const MAX_MCV: usize = 100;
/// Histogram bounds per column.
pub const HISTOGRAM_BOUNDS: usize = 101;

/// PostgreSQL's selectivity of an inequality it knows nothing about.
pub const DEFAULT_RANGE_SELECTIVITY: f64 = 1.0 / 3.0;

/// A table's statistics.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct TableStats {
    /// Heap pages.
    pub pages: u64,
    /// Estimated visible rows.
    pub rows: f64,
    /// Each column's type when it was analyzed.
    pub types: Vec<SqlType>,
    /// Per column, in column order.
    pub columns: Vec<ColumnStats>,
}

/// One column's statistics.
#[derive(Debug, Clone, PartialEq)]
pub struct ColumnStats {
    pub null_frac: f64,
    /// Estimated distinct non-null values in the table.
    pub n_distinct: f64,
    /// The most common values and the fraction of all rows each is.
    pub mcv: Vec<(Value, f64)>,
    /// Bounds of the other non-null values, in order.
    pub histogram: Vec<Value>,
    /// Of value order against physical order, -1 to 1.
    pub correlation: f64,
    /// The average bytes of a non-NULL value as PostgreSQL keeps it
    /// (pg_statistic's `stawidth`: folio-row's `stored_size`, a type's
    /// `type_avg_width` where that does not size it; 0 when every value
    /// sampled is NULL), the planner's `width=`.
    pub avg_width: u32,
}

/// The statistics slot of a table (in memory, per oid), with the count of
/// the times they were replaced: a plan made with older statistics is
/// made again (folio-sql `Plan::is_current`), as PostgreSQL's plan cache
/// drops a plan when ANALYZE invalidates its relation.
#[derive(Debug, Default)]
pub struct StatsSlot {
    stats: Mutex<Option<Arc<TableStats>>>,
    version: AtomicU64,
}

impl StatsSlot {
    pub fn get(&self) -> Option<Arc<TableStats>> {
        self.stats.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    pub fn set(&self, stats: TableStats) {
        *self.stats.lock().unwrap_or_else(|p| p.into_inner()) = Some(Arc::new(stats));
        self.version.fetch_add(1, AtomicOrdering::Release);
    }

    /// How many times the statistics were replaced.
    pub fn version(&self) -> u64 {
        self.version.load(AtomicOrdering::Acquire)
    }
}

/// Gathers `relation`'s statistics as `txn` sees its rows and keeps them
/// in its slot (`Catalog::analyze` also keeps them on disk).
pub(crate) fn analyze(
    relation: &Relation,
    txn: &Transaction,
) -> Result<Arc<TableStats>, CatalogError> {
    let (raw, pages, estimated) = sample(relation, txn)?;
    let rows = raw
        .iter()
        .map(|r| relation.decode(txn, r))
        .collect::<Result<Vec<_>, _>>()?;
    let columns = (0..relation.types.len())
        .map(|c| column_stats(&rows, c, relation.types[c], estimated))
        .collect();
    let stats = TableStats {
        pages,
        rows: estimated,
        types: relation.types.clone(),
        columns,
    };
    relation.statistics_slot().set(stats);
    Ok(relation.statistics_slot().get().expect("just set"))
}

/// Up to [`SAMPLE_ROWS`] rows in physical order, the table's pages, and
/// its estimated row count.
#[allow(clippy::type_complexity)]
fn sample(
    relation: &Relation,
    txn: &Transaction,
) -> Result<(Vec<Vec<u8>>, u64, f64), CatalogError> {
    let pages = relation.table.page_ids()?;
    // Seeded by the table: the same data gives the same statistics.
    let mut rng = SmallRng::seed_from_u64(relation.def.oid);
    let chosen: Vec<_> = if pages.len() <= SAMPLE_ROWS {
        pages.clone()
    } else {
        let mut picked = rand::seq::index::sample(&mut rng, pages.len(), SAMPLE_ROWS).into_vec();
        picked.sort_unstable();
        picked.into_iter().map(|i| pages[i]).collect()
    };
    let mut seen = 0usize;
    let mut reservoir: Vec<(usize, Vec<u8>)> = Vec::new();
    let mut page_rows = Vec::new();
    for &page in &chosen {
        page_rows.clear();
        relation.table.page_rows(txn, page, &mut page_rows)?;
        for (_, row) in page_rows.drain(..) {
            if reservoir.len() < SAMPLE_ROWS {
                reservoir.push((seen, row));
            } else {
                let j = rng.gen_range(0..=seen);
                if j < SAMPLE_ROWS {
                    reservoir[j] = (seen, row);
                }
            }
            seen += 1;
        }
    }
    // Physical order, for the correlation.
    reservoir.sort_unstable_by_key(|(i, _)| *i);
    let estimated = if chosen.is_empty() {
        0.0
    } else {
        seen as f64 / chosen.len() as f64 * pages.len() as f64
    };
    Ok((
        reservoir.into_iter().map(|(_, r)| r).collect(),
        pages.len() as u64,
        estimated,
    ))
}

fn order(a: &Value, b: &Value) -> Ordering {
    a.sql_cmp(b).unwrap_or(Ordering::Equal)
}

/// Column `c`'s statistics from the sampled `rows`, in physical order, of
/// a table of `total` rows.
fn column_stats(rows: &[Vec<Value>], c: usize, ty: SqlType, total: f64) -> ColumnStats {
    let sampled = rows.len();
    // Values with their physical position.
    let mut values: Vec<(usize, &Value)> = rows
        .iter()
        .enumerate()
        .filter_map(|(i, r)| r.get(c).filter(|v| **v != Value::Null).map(|v| (i, v)))
        .collect();
    let nonnull = values.len();
    let null_frac = if sampled == 0 {
        0.0
    } else {
        (sampled - nonnull) as f64 / sampled as f64
    };
    if nonnull == 0 {
        return ColumnStats {
            null_frac,
            n_distinct: 0.0,
            mcv: Vec::new(),
            histogram: Vec::new(),
            correlation: 0.0,
            avg_width: 0,
        };
    }
    // PostgreSQL's stawidth: the mean, truncated.
    let avg_width = {
        let bytes: usize = (values.iter())
            .map(|(_, v)| {
                folio_row::stored_size(v, true).unwrap_or(folio_row::type_avg_width(ty) as usize)
            })
            .sum();
        (bytes / values.len()) as u32
    };
    values.sort_by(|a, b| order(a.1, b.1));
    // Runs of equal values: (first index in `values`, count).
    let mut runs: Vec<(usize, usize)> = Vec::new();
    for i in 0..nonnull {
        match runs.last_mut() {
            Some((start, count)) if order(values[*start].1, values[i].1) == Ordering::Equal => {
                *count += 1
            }
            _ => runs.push((i, 1)),
        }
    }
    let d = runs.len() as f64;
    let f1 = runs.iter().filter(|(_, n)| *n == 1).count() as f64;
    let n = nonnull as f64;
    let table_nonnull = (total * (1.0 - null_frac)).max(n);
    let n_distinct = if f1 == 0.0 {
        // Every value repeats: the sample has seen them all.
        d
    } else if f1 == d && n >= table_nonnull {
        d
    } else {
        let estimate = n * d / (n - f1 + f1 * n / table_nonnull);
        estimate.clamp(d, table_nonnull)
    };
    // The most common values: seen more than once and more often than
    // 1.25 × the average (every one of them when the sample saw all).
    let average = n / d;
    let mut common: Vec<(usize, usize)> = runs
        .iter()
        .copied()
        .filter(|(_, count)| *count > 1 && (f1 == 0.0 || *count as f64 > 1.25 * average))
        .collect();
    common.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    common.truncate(MAX_MCV);
    let mcv: Vec<(Value, f64)> = common
        .iter()
        .map(|&(start, count)| (values[start].1.clone(), count as f64 / sampled as f64))
        .collect();
    // The histogram of the rest.
    let rest: Vec<&Value> = runs
        .iter()
        .filter(|(start, _)| !common.iter().any(|(s, _)| s == start))
        .flat_map(|&(start, count)| (start..start + count).map(|i| values[i].1))
        .collect();
    let histogram = if rest.len() < 2 {
        Vec::new()
    } else {
        let bounds = HISTOGRAM_BOUNDS.min(rest.len());
        let mut h: Vec<Value> = (0..bounds)
            .map(|b| rest[b * (rest.len() - 1) / (bounds - 1)].clone())
            .collect();
        h.dedup_by(|a, b| order(a, b) == Ordering::Equal);
        h
    };
    ColumnStats {
        null_frac,
        n_distinct,
        mcv,
        histogram,
        correlation: correlation(&values),
        avg_width,
    }
}

/// Pearson's correlation of the values' sorted ranks with their physical
/// positions (`values` sorted by value).
fn correlation(values: &[(usize, &Value)]) -> f64 {
    let n = values.len() as f64;
    if n < 2.0 {
        return 0.0;
    }
    let mut positions: Vec<usize> = values.iter().map(|(p, _)| *p).collect();
    positions.sort_unstable();
    // The physical rank of each value, in value order.
    let physical: Vec<f64> = values
        .iter()
        .map(|(p, _)| positions.binary_search(p).unwrap_or(0) as f64)
        .collect();
    let mean = (n - 1.0) / 2.0;
    let (mut sxy, mut sxx) = (0.0, 0.0);
    for (rank, y) in physical.iter().enumerate() {
        let x = rank as f64 - mean;
        sxy += x * (y - mean);
        sxx += x * x;
    }
    if sxx == 0.0 { 0.0 } else { sxy / sxx }
}

impl ColumnStats {
    /// The fraction of rows where the column equals `value` (`None`: a
    /// value not known when planning, such as a parameter).
    pub fn eq_selectivity(&self, value: Option<&Value>) -> f64 {
        let mcv_total: f64 = self.mcv.iter().map(|(_, f)| f).sum();
        let others = (self.n_distinct - self.mcv.len() as f64).max(1.0);
        let other = ((1.0 - mcv_total - self.null_frac) / others).clamp(0.0, 1.0);
        match value {
            None => ((1.0 - self.null_frac) / self.n_distinct.max(1.0)).clamp(0.0, 1.0),
            Some(Value::Null) => 0.0,
            Some(v) => self
                .mcv
                .iter()
                .find(|(m, _)| order(m, v) == Ordering::Equal)
                .map_or(other, |(_, f)| *f),
        }
    }

    /// The fraction of rows where the column is below `value` (or at
    /// most, with `inclusive`): MCVs counted exactly, the histogram
    /// interpolated within the bucket holding `value`.
    pub fn below_selectivity(&self, value: &Value, inclusive: bool) -> f64 {
        let below = |m: &Value| match order(m, value) {
            Ordering::Less => true,
            Ordering::Equal => inclusive,
            Ordering::Greater => false,
        };
        let mcv_total: f64 = self.mcv.iter().map(|(_, f)| f).sum();
        let mcv_below: f64 = self
            .mcv
            .iter()
            .filter(|(m, _)| below(m))
            .map(|(_, f)| f)
            .sum();
        let rest = (1.0 - mcv_total - self.null_frac).max(0.0);
        let h = &self.histogram;
        let fraction = if h.len() < 2 {
            DEFAULT_RANGE_SELECTIVITY
        } else {
            let buckets = (h.len() - 1) as f64;
            match h.iter().position(|b| order(b, value) == Ordering::Greater) {
                Some(0) => 0.0,
                None => 1.0,
                Some(i) => {
                    let within = interpolate(&h[i - 1], &h[i], value);
                    ((i - 1) as f64 + within) / buckets
                }
            }
        };
        (mcv_below + rest * fraction).clamp(0.0, 1.0)
    }
}

/// Where `value` lies between `low` and `high`, 0 to 1 (numbers by
/// value; other types halfway).
fn interpolate(low: &Value, high: &Value, value: &Value) -> f64 {
    let number = |v: &Value| match v {
        Value::Int2(x) => Some(f64::from(*x)),
        Value::Int4(x) => Some(f64::from(*x)),
        Value::Int8(x) => Some(*x as f64),
        Value::Float4(x) => Some(f64::from(*x)),
        Value::Float8(x) => Some(*x),
        Value::Date(x) => Some(f64::from(*x)),
        Value::Timestamp(x) | Value::TimestampTz(x) | Value::Time(x) => Some(*x as f64),
        Value::TimeTz(t) => Some(t.utc() as f64),
        Value::Interval(i) => Some(i.span() as f64),
        _ => None,
    };
    match (number(low), number(high), number(value)) {
        (Some(l), Some(h), Some(v)) if h > l => ((v - l) / (h - l)).clamp(0.0, 1.0),
        _ => 0.5,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows(values: impl IntoIterator<Item = Value>) -> Vec<Vec<Value>> {
        values.into_iter().map(|v| vec![v]).collect()
    }

    // Proves the statistics of known distributions: a unique ordered
    // column (distinct = rows, correlation 1, no MCVs), a column of five
    // values (all five MCVs at 20%), NULLs counted, and the selectivities
    // they give.
    #[test]
    fn distributions_give_their_statistics() {
        let unique = column_stats(&rows((0..1000).map(Value::Int4)), 0, SqlType::Int4, 1000.0);
        assert_eq!(unique.n_distinct, 1000.0);
        assert_eq!(unique.avg_width, 4);
        assert!(unique.mcv.is_empty());
        assert!((unique.correlation - 1.0).abs() < 1e-9);
        assert!((unique.eq_selectivity(Some(&Value::Int4(5))) - 0.001).abs() < 1e-6);
        let below = unique.below_selectivity(&Value::Int4(250), false);
        assert!((below - 0.25).abs() < 0.01, "{below}");

        let five = column_stats(
            &rows((0..1000).map(|i| Value::Int4(i % 5))),
            0,
            SqlType::Int4,
            1000.0,
        );
        assert_eq!(five.n_distinct, 5.0);
        assert_eq!(five.mcv.len(), 5);
        assert!((five.eq_selectivity(Some(&Value::Int4(3))) - 0.2).abs() < 1e-9);
        assert!(five.eq_selectivity(Some(&Value::Int4(7))) < 0.01);

        let nulls = column_stats(
            &rows((0..100).map(|i| if i < 25 { Value::Null } else { Value::Int8(i) })),
            0,
            SqlType::Int8,
            100.0,
        );
        assert!((nulls.null_frac - 0.25).abs() < 1e-9);
        // Of the non-NULL values, as PostgreSQL's stawidth.
        assert_eq!(nulls.avg_width, 8);
        // Texts as stored: 'x1'..'x9' and 'x10'..'x99', a 1-byte header.
        let texts = column_stats(
            &rows((1..100).map(|i| Value::Text(format!("x{i}")))),
            0,
            SqlType::Text,
            99.0,
        );
        assert_eq!(texts.avg_width, (9 * 3 + 90 * 4) / 99);
        assert_eq!(nulls.n_distinct, 75.0);
    }
}
