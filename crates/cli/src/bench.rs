//! `folio bench`: runs workloads, prints tables, writes CSV and JSON lines;
//! `folio bench pgbench`: PostgreSQL 15's pgbench against `folio serve` and
//! PostgreSQL side by side (`folio_bench::pgbench`).

use anyhow::{Context, bail};
use clap::{Args, Subcommand};
use folio_bench::pgbench::{self, Harness, PgWorkload, PgbenchConfig, Transport};
use folio_bench::{BenchConfig, Check, Progress, Row, Workload};
use indicatif::{ProgressBar, ProgressStyle};
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};
use std::time::Duration;

#[derive(Debug, Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct BenchArgs {
    #[command(subcommand)]
    command: Option<BenchCommand>,
    /// The workload to run (see --list); the quick suite when omitted.
    workload: Option<String>,
    /// List the workloads and exit.
    #[arg(long)]
    list: bool,
    /// Small sizes and short measurements.
    #[arg(long)]
    quick: bool,
    /// Print one JSON object per measured row instead of tables.
    #[arg(long)]
    json: bool,
    /// Thread counts, e.g. 1,2,8,32.
    #[arg(long, value_delimiter = ',')]
    threads: Option<Vec<usize>>,
    /// Measurement time per point, e.g. 2s or 500ms.
    #[arg(long, value_parser = humantime::parse_duration)]
    duration: Option<Duration>,
    /// Multiplies the workload's data size.
    #[arg(long)]
    scale: Option<f64>,
    /// Measure only with checksums on or off.
    #[arg(long, value_parser = parse_on_off)]
    checksums: Option<bool>,
    /// Buffer pool size, e.g. 64MiB.
    #[arg(long, value_parser = parse_bytes)]
    pool_size: Option<u64>,
    /// Directory for database files (default: a temporary directory, removed afterwards).
    #[arg(long)]
    data_dir: Option<PathBuf>,
    /// Only these cases, e.g. tpcb,select-only (workloads that split by case: txn).
    #[arg(long, value_delimiter = ',')]
    cases: Option<Vec<String>>,
    /// Directory for CSV and JSON-lines results.
    #[arg(long, default_value = "results")]
    results_dir: PathBuf,
}

#[derive(Debug, Subcommand)]
enum BenchCommand {
    /// PostgreSQL 15's pgbench and psql against `folio serve` and a
    /// temporary PostgreSQL 15 cluster, side by side (issue 17): the seeds'
    /// commands, interleaved, same settings. Needs PostgreSQL 15 (installed
    /// with apt-get when missing and run as root); not in the quick suite.
    Pgbench(PgbenchArgs),
}

#[derive(Debug, Args)]
pub struct PgbenchArgs {
    /// List the workloads and exit.
    #[arg(long)]
    list: bool,
    /// Small sizes and short runs (a few minutes), keeping the client
    /// counts the targets name.
    #[arg(long)]
    quick: bool,
    /// Workloads to run, e.g. tpcb,seed004 (default: seed000, select-only,
    /// tpcb, seed004, seed001).
    #[arg(long, value_delimiter = ',')]
    workloads: Option<Vec<String>>,
    /// Client counts of the throughput workloads, e.g. 1,2,8.
    #[arg(long, value_delimiter = ',')]
    clients: Option<Vec<usize>>,
    /// Time per pgbench run (pgbench -T, whole seconds), e.g. 10s.
    #[arg(long, value_parser = humantime::parse_duration)]
    duration: Option<Duration>,
    /// pgbench scale of select-only and tpcb.
    #[arg(long)]
    scale: Option<u32>,
    /// How pgbench and psql reach both servers: `unix` (each server's
    /// Unix-domain socket, as the seeds' commands connect, giving no
    /// host) or `tcp` (127.0.0.1).
    #[arg(long, default_value = "unix", value_parser = parse_transport)]
    transport: Transport,
    /// Print one JSON object per measured row instead of tables.
    #[arg(long)]
    json: bool,
    /// Directory for CSV, JSON lines, summary.csv and report.html.
    #[arg(long, default_value = "results/pgbench")]
    results_dir: PathBuf,
}

pub(crate) fn parse_on_off(text: &str) -> Result<bool, String> {
    match text {
        "on" | "true" => Ok(true),
        "off" | "false" => Ok(false),
        _ => Err(format!("expected on or off, got {text:?}")),
    }
}

fn parse_transport(text: &str) -> Result<Transport, String> {
    match text {
        "unix" => Ok(Transport::Unix),
        "tcp" => Ok(Transport::Tcp),
        _ => Err(format!("expected unix or tcp, got {text:?}")),
    }
}

fn parse_bytes(text: &str) -> Result<u64, String> {
    let bytes = parse_size::parse_size(text).map_err(|e| format!("{text:?}: {e}"))?;
    if bytes < 1 << 20 {
        return Err(format!("{text:?} is below the 1 MiB minimum"));
    }
    Ok(bytes)
}

/// Progress on stderr as a bar, one phase at a time.
struct Bar {
    bar: Mutex<Option<ProgressBar>>,
    hidden: bool,
}

impl Progress for Bar {
    fn phase(&self, label: &str, total: u64) {
        let mut slot = self.bar.lock().expect("progress lock");
        if let Some(old) = slot.take() {
            old.finish_and_clear();
        }
        let bar = if self.hidden {
            ProgressBar::hidden()
        } else {
            ProgressBar::new(total)
        };
        bar.set_style(
            ProgressStyle::with_template("{prefix:>24} [{bar:30}] {pos}/{len} {msg} ({elapsed})")
                .expect("progress template")
                .progress_chars("=> "),
        );
        bar.set_prefix(label.to_string());
        *slot = Some(bar);
    }

    fn step(&self, message: &str) {
        if let Some(bar) = self.bar.lock().expect("progress lock").as_ref() {
            bar.set_message(message.to_string());
            bar.inc(1);
        }
    }
}

impl Bar {
    fn finish(&self) {
        if let Some(bar) = self.bar.lock().expect("progress lock").take() {
            bar.finish_and_clear();
        }
    }
}

pub fn run(args: BenchArgs) -> anyhow::Result<()> {
    if let Some(BenchCommand::Pgbench(args)) = args.command {
        return run_pgbench(args);
    }
    if args.list {
        for workload in folio_bench::workloads() {
            println!("{:<12} {}", workload.name(), workload.about());
        }
        println!(
            "{:<12} PostgreSQL 15's pgbench against folio serve and PostgreSQL (folio bench pgbench --list)",
            "pgbench"
        );
        return Ok(());
    }
    let selected: Vec<&dyn Workload> = match &args.workload {
        Some(name) => match folio_bench::workload(name) {
            Some(workload) => vec![workload],
            None => {
                let known: Vec<&str> = folio_bench::workloads().iter().map(|w| w.name()).collect();
                bail!("unknown workload {name:?}; known: {}", known.join(", "))
            }
        },
        None => folio_bench::workloads(),
    };
    let temp_dir;
    let data_dir = match &args.data_dir {
        Some(dir) => dir.clone(),
        None => {
            temp_dir = tempfile::Builder::new()
                .prefix("folio-bench-")
                .tempdir()
                .context("creating a temporary data directory")?;
            temp_dir.path().to_path_buf()
        }
    };
    let mut config = BenchConfig::new(data_dir);
    config.quick = args.quick || args.workload.is_none();
    config.threads = args.threads.clone();
    config.duration = args.duration;
    config.scale = args.scale;
    config.checksums = args.checksums;
    config.pool_size_bytes = args.pool_size;
    config.cases = args.cases.clone();
    let progress = Bar {
        bar: Mutex::new(None),
        hidden: args.json,
    };
    let mut all_rows: Vec<Row> = Vec::new();
    let mut all_checks: Vec<Check> = Vec::new();
    for workload in selected {
        let rows: Vec<Row> = workload
            .run(&config, &progress)
            .with_context(|| format!("benchmark {} failed", workload.name()))?;
        progress.finish();
        let checks = workload.checks(&rows);
        folio_bench::write_results(&args.results_dir, workload.name(), &rows, &checks)?;
        print_rows(workload.name(), &rows, &checks, args.json);
        collect(&mut all_rows, &mut all_checks, rows, checks);
    }
    finish(
        &args.results_dir,
        "targets (DESIGN.md §4)",
        &all_rows,
        &all_checks,
        args.json,
    )
}

/// Adds one workload's rows and checks to the run's; checks index rows
/// within their workload, so they are shifted into the combined list the
/// HTML report is drawn from.
fn collect(
    all_rows: &mut Vec<Row>,
    all_checks: &mut Vec<Check>,
    rows: Vec<Row>,
    checks: Vec<Check>,
) {
    let offset = all_rows.len();
    all_checks.extend(checks.into_iter().map(|mut c| {
        c.rows.iter_mut().for_each(|r| *r += offset);
        c
    }));
    all_rows.extend(rows);
}

/// Prints one workload's rows: a table, or JSON lines.
fn print_rows(name: &str, rows: &[Row], checks: &[Check], json: bool) {
    if json {
        for line in folio_bench::json_lines(rows, checks) {
            println!("{line}");
        }
    } else {
        println!("\n== {name} ==\n{}", folio_bench::render_table(rows));
    }
}

/// Writes report.html and prints the targets with pass/fail.
fn finish(
    results_dir: &Path,
    heading: &str,
    rows: &[Row],
    checks: &[Check],
    json: bool,
) -> anyhow::Result<()> {
    let report_path = results_dir.join("report.html");
    std::fs::write(&report_path, folio_bench::render_html(rows, checks))
        .with_context(|| format!("writing {}", report_path.display()))?;
    if !json {
        println!("== {heading} ==\n{}", folio_bench::render_summary(checks));
        let failed = checks.iter().filter(|c| !c.pass).count();
        println!(
            "{} of {} targets met; results (CSV, JSON lines, report.html) in {}",
            checks.len() - failed,
            checks.len(),
            results_dir.display()
        );
    }
    Ok(())
}

/// `folio bench pgbench`: every selected workload on both servers; the
/// servers and their directories are gone when this returns, also after
/// an error or Ctrl-C (which ends the run at the next wait).
fn run_pgbench(args: PgbenchArgs) -> anyhow::Result<()> {
    if args.list {
        for workload in pgbench::workloads() {
            println!("{:<12} {}", workload.name(), workload.about());
        }
        return Ok(());
    }
    let selected: Vec<&dyn PgWorkload> = match &args.workloads {
        Some(names) => names
            .iter()
            .map(|name| pgbench::workload(name))
            .collect::<Result<_, _>>()?,
        None => pgbench::workloads(),
    };
    // The first SIGINT/SIGTERM sets the flag: the run stops at its next
    // wait and the guards stop the servers and remove their directories.
    // A second one exits at once (registered first, so it sees the flag
    // only once the first has set it).
    let interrupted = Arc::new(AtomicBool::new(false));
    for signal in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        signal_hook::flag::register_conditional_shutdown(signal, 1, interrupted.clone())
            .context("installing the signal handlers")?;
        signal_hook::flag::register(signal, interrupted.clone())
            .context("installing the signal handlers")?;
    }
    let exe = std::env::current_exe().context("finding the folio executable")?;
    let mut config = PgbenchConfig::new(exe);
    config.quick = args.quick;
    config.clients = args.clients.clone();
    config.duration = args.duration;
    config.scale = args.scale;
    config.transport = args.transport;
    config.interrupted = interrupted;
    let harness = Harness::new(config)?;
    std::fs::create_dir_all(&args.results_dir)
        .with_context(|| format!("creating {}", args.results_dir.display()))?;
    // This run's targets only (the in-process suite appends to its own).
    let summary = args.results_dir.join("summary.csv");
    if summary.exists() {
        std::fs::remove_file(&summary)
            .with_context(|| format!("removing {}", summary.display()))?;
    }
    let progress = Bar {
        bar: Mutex::new(None),
        hidden: args.json,
    };
    let mut all_rows: Vec<Row> = Vec::new();
    let mut all_checks: Vec<Check> = Vec::new();
    for workload in selected {
        let outcome = harness.run(workload, &progress);
        progress.finish();
        let (rows, checks) =
            outcome.with_context(|| format!("pgbench workload {} failed", workload.name()))?;
        folio_bench::write_results(&args.results_dir, workload.name(), &rows, &checks)?;
        print_rows(workload.name(), &rows, &checks, args.json);
        collect(&mut all_rows, &mut all_checks, rows, checks);
    }
    finish(
        &args.results_dir,
        "targets (issue 17)",
        &all_rows,
        &all_checks,
        args.json,
    )
}
