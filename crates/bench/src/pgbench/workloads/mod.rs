//! The workloads of `folio bench pgbench` (issue 17 §6) and what they
//! share: the row of one engine's point, failures kept as row values, and
//! finding rows again when judging the targets.
//!
//! - `throughput.rs`: `seed000`, `select-only` and `tpcb`, tps against
//!   clients on both engines, interleaved;
//! - `seed004.rs`: buffer hits of forward and backward index scans;
//! - `seed001.rs`: recovery time after `kill -9` of a server that ran an
//!   insert workload.

mod seed001;
mod seed004;
mod throughput;

use super::{Endpoint, EngineKind, Harness, PgbenchError, Settings};
use crate::{Check, Progress, Row};

/// A workload of `folio bench pgbench`.
pub trait PgWorkload: Sync {
    /// The name `--workloads` takes and rows carry.
    fn name(&self) -> &'static str;
    /// One line: what it runs and which seed it reproduces.
    fn about(&self) -> &'static str;
    /// Runs it on both engines; an engine's failure is in its rows.
    fn run(&self, harness: &Harness, progress: &dyn Progress) -> Result<Vec<Row>, PgbenchError>;
    /// The targets, judged over the rows.
    fn checks(&self, rows: &[Row]) -> Vec<Check>;
}

/// Every workload, in the order a run takes them.
pub fn workloads() -> Vec<&'static dyn PgWorkload> {
    vec![
        &throughput::SEED000,
        &throughput::SELECT_ONLY,
        &throughput::TPCB,
        &seed004::Seed004,
        &seed001::Seed001,
    ]
}

/// The workload called `name`.
pub fn workload(name: &str) -> Result<&'static dyn PgWorkload, PgbenchError> {
    workloads()
        .into_iter()
        .find(|w| w.name() == name)
        .ok_or_else(|| PgbenchError::UnknownWorkload(name.to_string()))
}

/// A step's failure as the message a row carries; an interrupt stays an
/// error and ends the run.
fn recorded<T>(result: Result<T, PgbenchError>) -> Result<Result<T, String>, PgbenchError> {
    match result {
        Err(PgbenchError::Interrupted) => Err(PgbenchError::Interrupted),
        Err(e) => Ok(Err(e.to_string())),
        Ok(value) => Ok(Ok(value)),
    }
}

/// A statement run with psql, its failure naming the statement.
fn statement(harness: &Harness, to: &Endpoint, sql: &str) -> Result<String, PgbenchError> {
    harness.psql(to, sql).map_err(|e| match e {
        PgbenchError::Command(message) => PgbenchError::Command(format!("{sql}: {message}")),
        other => other,
    })
}

/// The row of one engine's point: engine, clients and the settings (the
/// pgbench scale where pgbench's tables are used).
fn engine_row(
    workload: &'static str,
    case: &str,
    clients: usize,
    kind: EngineKind,
    settings: &Settings,
    scale: Option<u32>,
) -> Row {
    let row = settings.describe(Row::clients(workload, case, clients).with("engine", kind.name()));
    match scale {
        Some(scale) => row.with("scale", scale),
        None => row,
    }
}

/// A row's tps; NaN for a point that failed, so a target over it fails.
fn tps(row: &Row) -> f64 {
    row.number("tps").unwrap_or(f64::NAN)
}

/// Index and row of `engine`'s row at `clients` among those `keep` keeps.
fn find<'a>(
    rows: &'a [Row],
    engine: EngineKind,
    clients: usize,
    keep: &dyn Fn(&Row) -> bool,
) -> Option<(usize, &'a Row)> {
    rows.iter()
        .enumerate()
        .find(|(_, r)| r.threads == clients && is_engine(r, engine) && keep(r))
}

fn is_engine(row: &Row, engine: EngineKind) -> bool {
    row.text("engine") == Some(engine.name())
}

/// Index and tps of `engine`'s best point among those `keep` keeps; a
/// failed point counts only if none was measured.
fn peak(rows: &[Row], engine: EngineKind, keep: &dyn Fn(&Row) -> bool) -> Option<(usize, f64)> {
    let points: Vec<(usize, f64)> = rows
        .iter()
        .enumerate()
        .filter(|(_, r)| is_engine(r, engine) && keep(r))
        .map(|(i, r)| (i, tps(r)))
        .collect();
    points
        .iter()
        .copied()
        .filter(|p| !p.1.is_nan())
        .max_by(|a, b| a.1.total_cmp(&b.1))
        .or_else(|| points.first().copied())
}

/// "folio / postgres tps at N clients" >= `minimum`, when both points
/// were planned.
fn ratio_at(
    workload: &'static str,
    rows: &[Row],
    clients: usize,
    minimum: f64,
    label: &str,
    keep: &dyn Fn(&Row) -> bool,
) -> Option<Check> {
    let (fi, folio) = find(rows, EngineKind::Folio, clients, keep)?;
    let (pi, postgres) = find(rows, EngineKind::Postgres, clients, keep)?;
    Some(Check::at_least(
        workload,
        format!("folio / postgres tps, {clients} clients{label}"),
        tps(folio) / tps(postgres),
        minimum,
        vec![fi, pi],
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn point(engine: EngineKind, clients: usize, tps: Option<f64>) -> Row {
        let row = engine_row(
            "t",
            "t",
            clients,
            engine,
            &Settings::new(1 << 27, true),
            Some(1),
        );
        match tps {
            Some(tps) => row.with("tps", tps),
            None => row.with("error", "ERROR: no"),
        }
    }

    // Proves the peak is the best measured point, a failed point is taken
    // only when nothing was measured, and a ratio over a failed point is
    // a failed target rather than a pass or a missing one.
    #[test]
    fn peaks_and_ratios_over_failures() {
        let all = |_: &Row| true;
        let rows = vec![
            point(EngineKind::Folio, 2, Some(10.0)),
            point(EngineKind::Folio, 8, Some(30.0)),
            point(EngineKind::Folio, 32, None),
            point(EngineKind::Postgres, 2, None),
            point(EngineKind::Postgres, 8, None),
        ];
        assert_eq!(peak(&rows, EngineKind::Folio, &all), Some((1, 30.0)));
        let (index, value) = peak(&rows, EngineKind::Postgres, &all).unwrap();
        assert_eq!(index, 3);
        assert!(value.is_nan());
        let check = ratio_at("t", &rows, 8, 1.5, "", &all).unwrap();
        assert!(!check.pass);
        assert_eq!(check.rows, vec![1, 4]);
        assert!(ratio_at("t", &rows, 32, 1.5, "", &all).is_none());
        assert_eq!(rows[0].values["shared_buffers"], "128MB");
        assert_eq!(rows[0].values["engine"], "folio");
    }

    // Proves the workloads are found by the names the issue gives them.
    #[test]
    fn workload_names() {
        let names: Vec<&str> = workloads().iter().map(|w| w.name()).collect();
        assert_eq!(
            names,
            ["seed000", "select-only", "tpcb", "seed004", "seed001"]
        );
        assert!(workload("tpcb").is_ok());
        assert!(matches!(
            workload("tpcc"),
            Err(PgbenchError::UnknownWorkload(_))
        ));
    }
}
