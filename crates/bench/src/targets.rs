//! DESIGN.md §4 targets that several workloads share.

use crate::{Check, Row};

/// "on" or "off".
pub fn on_off(on: bool) -> &'static str {
    if on { "on" } else { "off" }
}

/// A row's throughput (0 when absent).
pub fn ops(row: &Row) -> f64 {
    row.number("ops_per_sec").unwrap_or(0.0)
}

/// The rows of `case`, with their indices among `rows`.
fn rows_of<'a>(rows: &'a [Row], case: &str) -> Vec<(usize, &'a Row)> {
    rows.iter()
        .enumerate()
        .filter(|(_, r)| r.case == case)
        .collect()
}

/// Seed 000's targets for a cached read-only `case` measured with checksums
/// on and off: no atomic RMW on page state words in any row; checksums
/// on/off throughput >= 0.99 at every thread count; 128 threads >= 0.95 x 2
/// threads for each setting.
pub fn cached_read_checks(workload: &'static str, case: &str, rows: &[Row]) -> Vec<Check> {
    let measured = rows_of(rows, case);
    let find = |threads: usize, checksums: bool| {
        measured
            .iter()
            .find(|(_, r)| r.threads == threads && r.flag("checksums") == Some(checksums))
            .copied()
    };
    let mut checks = Vec::new();
    for &(index, row) in &measured {
        let on = row.flag("checksums") == Some(true);
        let rmw = row.number("state_rmw_per_op").unwrap_or(f64::NAN);
        let measure = format!(
            "{case} state-word RMW per op, {} threads, checksums {}",
            row.threads,
            on_off(on)
        );
        checks.push(Check::at_most(workload, measure, rmw, 0.0, vec![index]));
        if on && let Some((off_index, off)) = find(row.threads, false) {
            let measure = format!("{case} checksums on/off, {} threads", row.threads);
            // The median of back-to-back pairs when the workload measured
            // pairs (harness::paired_median_ratio), else the rows' ratio.
            let ratio = row
                .number("on_off_paired")
                .unwrap_or_else(|| ops(row) / ops(off));
            checks.push(Check::at_least(
                workload,
                measure,
                ratio,
                0.99,
                vec![index, off_index],
            ));
        }
    }
    for checksums in [true, false] {
        if let (Some((i128, r128)), Some((i2, r2))) = (find(128, checksums), find(2, checksums)) {
            let measure = format!(
                "{case} 128 threads / 2 threads, checksums {}",
                on_off(checksums)
            );
            let ratio = ops(r128) / ops(r2);
            checks.push(Check::at_least(
                workload,
                measure,
                ratio,
                0.95,
                vec![i128, i2],
            ));
        }
    }
    checks
}

/// Seed 002's target for `case`: throughput at the most threads measured
/// >= `minimum` x the best thread count.
pub fn oversubscription_check(
    workload: &'static str,
    case: &str,
    rows: &[Row],
    minimum: f64,
) -> Vec<Check> {
    let measured = rows_of(rows, case);
    let best = measured.iter().map(|(_, r)| ops(r)).fold(0.0, f64::max);
    match measured.iter().max_by_key(|(_, r)| r.threads) {
        Some(&(index, row)) if measured.len() > 1 && best > 0.0 => {
            let measure = format!("{case} {} threads / best thread count", row.threads);
            vec![Check::at_least(
                workload,
                measure,
                ops(row) / best,
                minimum,
                vec![index],
            )]
        }
        _ => Vec::new(),
    }
}
