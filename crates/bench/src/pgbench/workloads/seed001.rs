//! Seed 001: crash recovery after an `insert ... select` workload on a
//! table with two indexes. The seed's standby replayed `insert into tid
//! select nextval('s1'), g, 'some garbage text' from generate_series(1,100)
//! g` (16 clients) at a few hundred thousand records a second, bound by
//! the buffer mapping's hash lookups.
//!
//! On each engine in turn: a fresh server, the seed's table (without its
//! hash partitions) and its index on `j`, a `checkpoint`, then the same
//! number of transactions of the insert (4 clients, `-t` per client),
//! then `kill -9` of every server process, `sync` (the OS writes back what
//! the server had written: recovery is not timed racing the kernel's
//! writeback), a restart on the same directory, and the time from the
//! restart to the first connection that answers `select 1`
//! (`recovery_s`). After it, the table must hold every committed row.
//!
//! Ids are unique without a sequence: each client counts its
//! transactions in a pgbench variable (`-D n=0`, `\set n :n + 1`; a
//! client's variables live across its transactions) and a transaction's
//! 100 rows take ids `client_id * 10^9 + n * 100 + g`, `g` in 1..100.
//!
//! WAL replayed (`wal_bytes`, `records`) is each engine's own count, from
//! the last checkpoint's redo point to the end: PostgreSQL's from
//! `pg_waldump --stats` started at `pg_controldata`'s REDO location (read
//! after the kill, before the restart); folio's from the line `folio
//! serve` prints after its recovery. Records are not the same unit on both
//! engines, so time is the measure judged.

use super::{
    EngineKind, Harness, PgWorkload, PgbenchError, Settings, engine_row, recorded, statement,
};
use crate::pgbench::Recovery;
use crate::pgbench::client::{Length, Measured, PgbenchRun, Script};
use crate::{Check, Progress, Row};

const NAME: &str = "seed001";

/// The seed's table and second index, then the checkpoint the recovery
/// starts from.
const SETUP: [&str; 3] = [
    "create table tid (id bigint primary key, j bigint not null, blah text not null)",
    "create index j_tid on tid (j)",
    "checkpoint",
];

/// The transaction: 100 rows with ids unique per client and transaction.
const SCRIPT: &str = "\\set n :n + 1
\\set base :client_id * 1000000000 + :n * 100
insert into tid select :base + g, g, 'some garbage text' from generate_series(1, 100) g;
";

const CLIENTS: usize = 4;
const JOBS: usize = 2;
const ROWS_PER_TRANSACTION: u64 = 100;

/// The seed-001 workload.
#[derive(Debug)]
pub struct Seed001;

impl Seed001 {
    /// One engine's run: the inserts' tps, then the crash and recovery.
    fn measure(
        harness: &Harness,
        kind: EngineKind,
        settings: &Settings,
        run: &PgbenchRun,
        progress: &dyn Progress,
    ) -> Result<(Measured, Recovery), PgbenchError> {
        let mut engine = harness.start(kind, settings)?;
        for sql in SETUP {
            statement(harness, engine.endpoint(), sql)?;
        }
        progress.step(&format!("{}: inserts", kind.name()));
        let measured = harness.pgbench(engine.endpoint(), run)?;
        progress.step(&format!("{}: kill -9 and restart", kind.name()));
        engine.kill9()?;
        // What the killed server wrote is in the OS's page cache; written
        // back now, so the recovery timed next does not also pay for the
        // writeback of the workload's own writes (which its final
        // checkpoint's fsyncs would otherwise wait for).
        rustix::fs::sync();
        let recovery = engine.restart(harness)?;
        let committed = measured.transactions * ROWS_PER_TRANSACTION;
        let count = statement(harness, engine.endpoint(), "select count(*) from tid")?;
        if count.trim() != committed.to_string() {
            return Err(PgbenchError::Command(format!(
                "after recovery tid holds {} rows; {committed} were committed",
                count.trim()
            )));
        }
        Ok((measured, recovery))
    }
}

impl PgWorkload for Seed001 {
    fn name(&self) -> &'static str {
        NAME
    }

    fn about(&self) -> &'static str {
        "seed 001: 100-row insert ... select on a table with two indexes, kill -9, time to recover"
    }

    fn run(&self, harness: &Harness, progress: &dyn Progress) -> Result<Vec<Row>, PgbenchError> {
        let config = harness.config();
        let per_client: u64 = if config.quick { 250 } else { 2500 };
        let settings = Settings::new(128 << 20, true);
        let script = harness.scratch().join("seed001-insert.sql");
        std::fs::write(&script, SCRIPT)
            .map_err(PgbenchError::io(format!("writing {}", script.display())))?;
        let run = PgbenchRun {
            script: Script::File(script),
            clients: CLIENTS,
            jobs: JOBS,
            length: Length::TransactionsPerClient(per_client),
            mode: None,
            no_vacuum: true,
            defines: vec![("n".into(), "0".into())],
        };
        progress.phase(NAME, 4);
        let mut rows = Vec::new();
        for kind in EngineKind::BOTH {
            let row = engine_row(NAME, NAME, CLIENTS, kind, &settings, None)
                .with("transactions", per_client * CLIENTS as u64);
            rows.push(
                match recorded(Self::measure(harness, kind, &settings, &run, progress))? {
                    Ok((measured, recovery)) => row
                        .with("tps", measured.tps)
                        .with("recovery_s", recovery.recovery_s)
                        .with("wal_bytes", recovery.wal_bytes)
                        .with("records", recovery.records),
                    Err(message) => row.with("error", message),
                },
            );
        }
        Ok(rows)
    }

    /// folio's recovery time <= 0.5x PostgreSQL's.
    fn checks(&self, rows: &[Row]) -> Vec<Check> {
        let of = |kind: EngineKind| {
            rows.iter()
                .enumerate()
                .find(|(_, r)| r.text("engine") == Some(kind.name()))
                .map(|(i, r)| (i, r.number("recovery_s").unwrap_or(f64::NAN)))
        };
        match (of(EngineKind::Folio), of(EngineKind::Postgres)) {
            (Some((fi, folio)), Some((pi, postgres))) => vec![Check::at_most(
                NAME,
                "folio / postgres recovery_s after kill -9".into(),
                folio / postgres,
                0.5,
                vec![fi, pi],
            )],
            _ => Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Proves the target is folio's recovery time over PostgreSQL's, and a
    // folio that could not run fails it.
    #[test]
    fn recovery_ratio() {
        let settings = Settings::new(128 << 20, true);
        let row = |kind, recovery_s: Option<f64>| {
            let row = engine_row(NAME, NAME, CLIENTS, kind, &settings, None);
            match recovery_s {
                Some(s) => row.with("recovery_s", s),
                None => row.with("error", "ERROR: 0A000: CHECKPOINT is not supported"),
            }
        };
        let rows = vec![
            row(EngineKind::Folio, Some(0.1)),
            row(EngineKind::Postgres, Some(0.4)),
        ];
        let checks = Seed001.checks(&rows);
        assert_eq!(checks.len(), 1);
        assert!(checks[0].pass && (checks[0].measured - 0.25).abs() < 1e-9);
        let failed = vec![
            row(EngineKind::Folio, None),
            row(EngineKind::Postgres, Some(0.4)),
        ];
        assert!(!Seed001.checks(&failed)[0].pass);
        assert!(SCRIPT.contains(":client_id * 1000000000 + :n * 100"));
    }
}
