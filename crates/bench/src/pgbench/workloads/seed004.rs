//! Seed 004: forward and backward index scans counted in buffer hits.
//! PostgreSQL's backward scan re-locked the page it had just read to follow
//! its left link: on pgbench scale 1, `order by aid desc` cost 2188 hits
//! against 1915 for `order by aid` (and 30 against 24 for the seed's
//! IN-list). On a fresh `pgbench -i -s 1`, each engine runs each
//! `explain (analyze, buffers, costs off, timing off)` twice and reports
//! the second, warm run's shared hits of the top plan node.

use super::{
    Endpoint, EngineKind, Harness, PgWorkload, PgbenchError, Settings, engine_row, recorded,
    statement,
};
use crate::pgbench::parse::{self, Buffers};
use crate::{Check, Progress, Row};

const NAME: &str = "seed004";

/// The seed's queries: (case, direction, statement).
const QUERIES: [(&str, &str, &str); 4] = [
    (
        "full-scan",
        "forward",
        "explain (analyze, buffers, costs off, timing off) \
         select abalance from pgbench_accounts order by aid",
    ),
    (
        "full-scan",
        "backward",
        "explain (analyze, buffers, costs off, timing off) \
         select abalance from pgbench_accounts order by aid desc",
    ),
    (
        "in-list",
        "forward",
        "explain (analyze, buffers, costs off, timing off) \
         select abalance from pgbench_accounts where aid in (1, 500, 1000, 1500, 2000, 3000) order by aid asc",
    ),
    (
        "in-list",
        "backward",
        "explain (analyze, buffers, costs off, timing off) \
         select abalance from pgbench_accounts where aid in (1, 500, 1000, 1500, 2000, 3000) order by aid desc",
    ),
];

const SCALE: u32 = 1;

/// The seed-004 workload.
#[derive(Debug)]
pub struct Seed004;

impl Seed004 {
    /// The second run's buffers of the top node of `sql`.
    fn warm_buffers(harness: &Harness, to: &Endpoint, sql: &str) -> Result<Buffers, PgbenchError> {
        statement(harness, to, sql)?;
        let explain = statement(harness, to, sql)?;
        parse::top_node_buffers(&explain).map_err(PgbenchError::Command)
    }
}

impl PgWorkload for Seed004 {
    fn name(&self) -> &'static str {
        NAME
    }

    fn about(&self) -> &'static str {
        "seed 004: shared hits of forward and backward index scans, explain (analyze, buffers)"
    }

    fn run(&self, harness: &Harness, progress: &dyn Progress) -> Result<Vec<Row>, PgbenchError> {
        let settings = Settings::new(128 << 20, true);
        progress.phase(NAME, (2 * (1 + QUERIES.len())) as u64);
        let mut rows = Vec::new();
        for kind in EngineKind::BOTH {
            progress.step(&format!("{}: pgbench -i -s {SCALE}", kind.name()));
            let engine = recorded(harness.start(kind, &settings).and_then(|engine| {
                harness.pgbench_init(engine.endpoint(), SCALE)?;
                Ok(engine)
            }))?;
            for (case, direction, sql) in QUERIES {
                progress.step(&format!("{} {case} {direction}", kind.name()));
                let row = engine_row(NAME, case, 1, kind, &settings, Some(SCALE))
                    .with("direction", direction);
                let buffers = match &engine {
                    Ok(engine) => recorded(Self::warm_buffers(harness, engine.endpoint(), sql))?,
                    Err(message) => Err(message.clone()),
                };
                rows.push(match buffers {
                    Ok(b) => row.with("shared_hit", b.hit).with("shared_read", b.read),
                    Err(message) => row.with("error", message),
                });
            }
        }
        Ok(rows)
    }

    /// folio's backward scans hit as many pages as its forward scans.
    fn checks(&self, rows: &[Row]) -> Vec<Check> {
        let hits = |case: &str, direction: &str| {
            rows.iter().enumerate().find(|(_, r)| {
                r.case == case
                    && r.text("engine") == Some("folio")
                    && r.text("direction") == Some(direction)
            })
        };
        let mut checks = Vec::new();
        for case in ["full-scan", "in-list"] {
            if let (Some((fi, forward)), Some((bi, backward))) =
                (hits(case, "forward"), hits(case, "backward"))
            {
                let count = |r: &Row| r.number("shared_hit").unwrap_or(f64::NAN);
                checks.push(Check::equal(
                    NAME,
                    format!("folio backward shared hits, {case} (= forward)"),
                    count(backward),
                    count(forward),
                    vec![fi, bi],
                ));
            }
        }
        checks
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Proves the target compares folio's backward hits with its forward
    // hits per case, and fails when a scan could not be measured.
    #[test]
    fn backward_equals_forward() {
        let settings = Settings::new(128 << 20, true);
        let row = |case: &str, engine, direction: &str, hits: Option<u64>| {
            let row = engine_row(NAME, case, 1, engine, &settings, Some(SCALE))
                .with("direction", direction);
            match hits {
                Some(hits) => row.with("shared_hit", hits),
                None => row.with("error", "ERROR: 0A000: EXPLAIN is not supported"),
            }
        };
        let rows = vec![
            row("full-scan", EngineKind::Folio, "forward", Some(1915)),
            row("full-scan", EngineKind::Folio, "backward", Some(1915)),
            row("in-list", EngineKind::Folio, "forward", Some(24)),
            row("in-list", EngineKind::Folio, "backward", None),
            row("full-scan", EngineKind::Postgres, "forward", Some(1915)),
            row("full-scan", EngineKind::Postgres, "backward", Some(2188)),
        ];
        let checks = Seed004.checks(&rows);
        assert_eq!(checks.len(), 2);
        assert!(checks[0].pass);
        assert_eq!(checks[0].bound, "= 1915");
        assert_eq!(checks[0].rows, vec![0, 1]);
        assert!(!checks[1].pass);
        assert!(
            QUERIES
                .iter()
                .all(|q| q.2.starts_with("explain (analyze, buffers"))
        );
    }
}
