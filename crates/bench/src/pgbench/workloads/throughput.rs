//! tps against clients on both engines: `seed000`, `select-only`, `tpcb`.
//!
//! A server of each engine at each checksum setting is started fresh and
//! loaded with `pgbench -i -s SCALE` (plus the workload's statements), all
//! before the first run; then at each client count every server runs
//! `pgbench -T` in turn, the order reversing from one client count to the
//! next, so that the runs a target compares are close in time.

use super::{
    EngineKind, Harness, PgWorkload, PgbenchError, Settings, engine_row, find, peak, ratio_at,
    recorded, statement, tps,
};
use crate::pgbench::Engine;
use crate::pgbench::client::{Length, PgbenchRun, Script};
use crate::{Check, Progress, Row};

/// The transaction script of a throughput workload.
#[derive(Debug)]
enum ScriptSpec {
    TpcbLike,
    SelectOnly,
    /// A custom script, written to `file` in the scratch directory.
    Custom {
        file: &'static str,
        text: &'static str,
    },
}

/// A throughput workload: what `pgbench` runs, at which sizes.
#[derive(Debug)]
pub struct Throughput {
    name: &'static str,
    about: &'static str,
    /// pgbench scale (quick, full).
    scale: (u32, u32),
    /// Whether `--scale` applies (seed 000's is the seed's scale 1).
    scalable: bool,
    /// `shared_buffers` in MB (quick, full).
    shared_buffers_mb: (u64, u64),
    checksums: &'static [bool],
    /// Client counts (quick, full).
    clients: (&'static [usize], &'static [usize]),
    /// Statements run with psql after `pgbench -i`.
    setup: &'static [&'static str],
    script: ScriptSpec,
    /// `-M`.
    mode: Option<&'static str>,
    /// `-j` = clients, as seed 000 runs it (`-c $c -j $c`); else
    /// `-j` = min(clients, CPUs).
    job_per_client: bool,
    checks: fn(&'static str, &[Row]) -> Vec<Check>,
}

/// Seed 000: `select count(*) from pgbench_accounts where bid = 0` through
/// the index on `bid`, prepared, at scale 1, checksums on and off.
pub static SEED000: Throughput = Throughput {
    name: "seed000",
    about: "seed 000: the bid = 0 probe through an index on bid, -M prepared, checksums on/off",
    scale: (1, 1),
    scalable: false,
    shared_buffers_mb: (128, 128),
    checksums: &[true, false],
    clients: (&[1, 2, 128], &[1, 2, 4, 32, 128]),
    setup: &["create index on pgbench_accounts (bid)"],
    script: ScriptSpec::Custom {
        file: "seed000-select.sql",
        text: "select count(*) from pgbench_accounts where bid = 0\n",
    },
    mode: Some("prepared"),
    job_per_client: true,
    checks: seed000_checks,
};

/// Seed 002: `pgbench -S` with the data ~12x `shared_buffers` (scale 100
/// with 128MB; quick: scale 10 with 16MB, ~10x).
pub static SELECT_ONLY: Throughput = Throughput {
    name: "select-only",
    about: "seed 002: pgbench -S with data ~12x shared_buffers (scale 100, 128MB), 1-256 clients",
    scale: (10, 100),
    scalable: true,
    shared_buffers_mb: (16, 128),
    checksums: &[true],
    clients: (&[2, 8, 256], &[1, 2, 4, 8, 32, 128, 256]),
    setup: &[],
    script: ScriptSpec::SelectOnly,
    mode: None,
    job_per_client: false,
    checks: select_only_checks,
};

/// pgbench's default TPC-B-like script at scale 10 with durable commits.
pub static TPCB: Throughput = Throughput {
    name: "tpcb",
    about: "pgbench's TPC-B-like script, scale 10, synchronous_commit = on",
    scale: (10, 10),
    scalable: true,
    shared_buffers_mb: (128, 128),
    checksums: &[true],
    clients: (&[2, 8], &[1, 2, 8, 32]),
    setup: &[],
    script: ScriptSpec::TpcbLike,
    mode: None,
    job_per_client: false,
    checks: tpcb_checks,
};

impl Throughput {
    /// Starts a server of `kind` and loads it: `pgbench -i`, then the
    /// workload's statements.
    fn prepare(
        &self,
        harness: &Harness,
        kind: EngineKind,
        settings: &Settings,
        scale: u32,
    ) -> Result<Box<dyn Engine>, PgbenchError> {
        let engine = harness.start(kind, settings)?;
        harness.pgbench_init(engine.endpoint(), scale)?;
        for sql in self.setup {
            statement(harness, engine.endpoint(), sql)?;
        }
        Ok(engine)
    }

    fn script(&self, harness: &Harness) -> Result<Script, PgbenchError> {
        Ok(match self.script {
            ScriptSpec::TpcbLike => Script::TpcbLike,
            ScriptSpec::SelectOnly => Script::SelectOnly,
            ScriptSpec::Custom { file, text } => {
                let path = harness.scratch().join(file);
                std::fs::write(&path, text)
                    .map_err(PgbenchError::io(format!("writing {}", path.display())))?;
                Script::File(path)
            }
        })
    }

    fn jobs(&self, clients: usize) -> usize {
        if self.job_per_client {
            clients
        } else {
            let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
            clients.min(cpus).max(1)
        }
    }
}

impl PgWorkload for Throughput {
    fn name(&self) -> &'static str {
        self.name
    }

    fn about(&self) -> &'static str {
        self.about
    }

    fn run(&self, harness: &Harness, progress: &dyn Progress) -> Result<Vec<Row>, PgbenchError> {
        let config = harness.config();
        let (quick_scale, full_scale) = self.scale;
        let scale = match config.scale {
            Some(scale) if self.scalable => scale,
            _ if config.quick => quick_scale,
            _ => full_scale,
        };
        let (quick_mb, full_mb) = self.shared_buffers_mb;
        let shared_buffers_bytes = if config.quick { quick_mb } else { full_mb } << 20;
        let clients = config.clients_or(self.clients.0, self.clients.1);
        let seconds = config.duration_s(3, 10);
        let script = self.script(harness)?;
        let mut rows = Vec::new();
        // Every server (each engine at each checksum setting) is started
        // and loaded first, so the runs that a target compares (folio with
        // checksums on and off, folio and PostgreSQL) follow each other in
        // time at each client count rather than minutes apart.
        let mut engines = Vec::new();
        progress.phase(
            self.name,
            (self.checksums.len() * 2 * (1 + clients.len())) as u64,
        );
        for &checksums in self.checksums {
            let settings = Settings::new(shared_buffers_bytes, checksums);
            for kind in EngineKind::BOTH {
                progress.step(&format!(
                    "{}, checksums {}: pgbench -i -s {scale}",
                    kind.name(),
                    on_off(checksums)
                ));
                let engine = recorded(self.prepare(harness, kind, &settings, scale))?;
                engines.push((kind, settings, engine));
            }
        }
        for (index, &clients) in clients.iter().enumerate() {
            // The order reverses from one client count to the next.
            let mut order: Vec<usize> = (0..engines.len()).collect();
            if index % 2 == 1 {
                order.reverse();
            }
            for slot in order {
                let (kind, settings, engine) = &mut engines[slot];
                progress.step(&format!(
                    "{} {clients} clients, checksums {}",
                    kind.name(),
                    on_off(settings.checksums)
                ));
                let row = engine_row(self.name, self.name, clients, *kind, settings, Some(scale));
                let run = PgbenchRun {
                    script: script.clone(),
                    clients,
                    jobs: self.jobs(clients),
                    length: Length::Seconds(seconds),
                    mode: self.mode,
                    no_vacuum: matches!(self.script, ScriptSpec::Custom { .. }),
                    defines: Vec::new(),
                };
                rows.push(match engine {
                    Err(message) => row.with("error", message.clone()),
                    Ok(engine) => match recorded(harness.pgbench(engine.endpoint(), &run))? {
                        Ok(measured) => row.with("tps", measured.tps),
                        Err(message) => row.with("error", with_exit(message, engine.as_mut())),
                    },
                });
            }
        }
        // `engines` drops here: every server stopped, directories gone.
        drop(engines);
        rows.sort_by_key(|r| {
            (
                !r.flag("checksums").unwrap_or(false),
                r.threads,
                r.text("engine").map(str::to_string),
            )
        });
        Ok(rows)
    }

    fn checks(&self, rows: &[Row]) -> Vec<Check> {
        (self.checks)(self.name, rows)
    }
}

/// A failed run's message, with how the server ended if it is gone.
fn with_exit(message: String, engine: &mut dyn Engine) -> String {
    match engine.gone() {
        Some(gone) => format!("{message} ({gone})"),
        None => message,
    }
}

fn on_off(on: bool) -> &'static str {
    if on { "on" } else { "off" }
}

/// Seed 000's targets, per checksum setting: folio >= 1.5x PostgreSQL at
/// 2 clients and >= 3x at 128; folio at 128 clients >= 0.95x its peak;
/// folio's checksums on / off >= 0.99 at every client count.
fn seed000_checks(workload: &'static str, rows: &[Row]) -> Vec<Check> {
    let mut checks = Vec::new();
    for checksums in [true, false] {
        let keep = move |r: &Row| r.flag("checksums") == Some(checksums);
        let label = format!(", checksums {}", on_off(checksums));
        checks.extend(ratio_at(workload, rows, 2, 1.5, &label, &keep));
        checks.extend(ratio_at(workload, rows, 128, 3.0, &label, &keep));
        if let (Some((i128, r128)), Some((ipeak, best))) = (
            find(rows, EngineKind::Folio, 128, &keep),
            peak(rows, EngineKind::Folio, &keep),
        ) {
            checks.push(Check::at_least(
                workload,
                format!("folio 128 clients / its peak{label}"),
                tps(r128) / best,
                0.95,
                vec![i128, ipeak],
            ));
        }
    }
    let on = |r: &Row| r.flag("checksums") == Some(true);
    let off = |r: &Row| r.flag("checksums") == Some(false);
    for (ion, row) in rows.iter().enumerate() {
        if row.text("engine") != Some("folio") || !on(row) {
            continue;
        }
        if let Some((ioff, off_row)) = find(rows, EngineKind::Folio, row.threads, &off) {
            checks.push(Check::at_least(
                workload,
                format!("folio checksums on / off, {} clients", row.threads),
                tps(row) / tps(off_row),
                0.99,
                vec![ion, ioff],
            ));
        }
    }
    checks
}

/// Seed 002's targets: folio's peak >= 1.5x PostgreSQL's; folio at the
/// most clients >= 0.9x its own peak.
fn select_only_checks(workload: &'static str, rows: &[Row]) -> Vec<Check> {
    let all = |_: &Row| true;
    let mut checks = Vec::new();
    if let (Some((fi, folio)), Some((pi, postgres))) = (
        peak(rows, EngineKind::Folio, &all),
        peak(rows, EngineKind::Postgres, &all),
    ) {
        checks.push(Check::at_least(
            workload,
            "folio peak / postgres peak tps".into(),
            folio / postgres,
            1.5,
            vec![fi, pi],
        ));
    }
    let most = rows.iter().map(|r| r.threads).max();
    let fewest = rows.iter().map(|r| r.threads).min();
    if let (Some(most), true) = (most, most > fewest)
        && let (Some((im, row)), Some((ip, best))) = (
            find(rows, EngineKind::Folio, most, &all),
            peak(rows, EngineKind::Folio, &all),
        )
    {
        checks.push(Check::at_least(
            workload,
            format!("folio {most} clients / its peak"),
            tps(row) / best,
            0.9,
            vec![im, ip],
        ));
    }
    checks
}

/// folio >= 1.5x PostgreSQL at 8 clients, durable commits.
fn tpcb_checks(workload: &'static str, rows: &[Row]) -> Vec<Check> {
    ratio_at(workload, rows, 8, 1.5, "", &|_| true)
        .into_iter()
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn point(engine: EngineKind, clients: usize, checksums: bool, tps: f64) -> Row {
        let settings = Settings::new(128 << 20, checksums);
        engine_row("seed000", "seed000", clients, engine, &settings, Some(1)).with("tps", tps)
    }

    // Proves seed 000's targets are judged per checksum setting on the
    // right rows: the ratios to PostgreSQL at 2 and 128 clients, folio's
    // 128 clients against its peak, and on/off at each client count.
    #[test]
    fn seed000_targets() {
        let mut rows = Vec::new();
        for checksums in [true, false] {
            for (clients, folio, postgres) in [(2, 160.0, 100.0), (128, 150.0, 40.0)] {
                rows.push(point(EngineKind::Folio, clients, checksums, folio));
                rows.push(point(EngineKind::Postgres, clients, checksums, postgres));
            }
        }
        let checks = seed000_checks("seed000", &rows);
        let by = |measure: &str| {
            checks
                .iter()
                .find(|c| c.measure == measure)
                .unwrap_or_else(|| panic!("no check {measure:?} in {checks:#?}"))
        };
        let two = by("folio / postgres tps, 2 clients, checksums on");
        assert!(two.pass && (two.measured - 1.6).abs() < 1e-9);
        assert_eq!(two.rows, vec![0, 1]);
        assert!(by("folio / postgres tps, 128 clients, checksums off").pass);
        let peak = by("folio 128 clients / its peak, checksums on");
        assert!(!peak.pass, "150 / 160 < 0.95");
        assert_eq!(peak.rows, vec![2, 0]);
        assert!(by("folio checksums on / off, 2 clients").pass);
        assert_eq!(checks.len(), 8);
    }

    // Proves select-only judges peaks, and the most clients against the
    // peak only when more than one client count was measured.
    #[test]
    fn select_only_targets() {
        let rows = vec![
            point(EngineKind::Folio, 2, true, 100.0),
            point(EngineKind::Folio, 256, true, 95.0),
            point(EngineKind::Postgres, 2, true, 60.0),
            point(EngineKind::Postgres, 256, true, 20.0),
        ];
        let checks = select_only_checks("select-only", &rows);
        assert_eq!(checks.len(), 2);
        assert!(checks[0].pass && (checks[0].measured - 100.0 / 60.0).abs() < 1e-9);
        assert_eq!(checks[1].measure, "folio 256 clients / its peak");
        assert!(checks[1].pass);
        assert_eq!(select_only_checks("select-only", &rows[..1]).len(), 0);
        assert_eq!(tpcb_checks("tpcb", &rows).len(), 0, "no 8-client points");
    }
}
