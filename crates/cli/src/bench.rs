//! `folio bench`: runs workloads, prints tables, writes CSV and JSON lines.

use anyhow::{Context, bail};
use clap::Args;
use folio_bench::{BenchConfig, Check, Progress, Row, Workload};
use indicatif::{ProgressBar, ProgressStyle};
use std::path::PathBuf;
use std::sync::Mutex;
use std::time::Duration;

#[derive(Debug, Args)]
pub struct BenchArgs {
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

fn parse_on_off(text: &str) -> Result<bool, String> {
    match text {
        "on" | "true" => Ok(true),
        "off" | "false" => Ok(false),
        _ => Err(format!("expected on or off, got {text:?}")),
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
    if args.list {
        for workload in folio_bench::workloads() {
            println!("{:<12} {}", workload.name(), workload.about());
        }
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
        if args.json {
            for line in folio_bench::json_lines(&rows, &checks) {
                println!("{line}");
            }
        } else {
            println!(
                "\n== {} ==\n{}",
                workload.name(),
                folio_bench::render_table(&rows)
            );
        }
        // Checks index rows within their workload; shift them into the
        // combined list the HTML report is drawn from.
        let offset = all_rows.len();
        all_checks.extend(checks.into_iter().map(|mut c| {
            c.rows.iter_mut().for_each(|r| *r += offset);
            c
        }));
        all_rows.extend(rows);
    }
    let report_path = args.results_dir.join("report.html");
    std::fs::write(
        &report_path,
        folio_bench::render_html(&all_rows, &all_checks),
    )
    .with_context(|| format!("writing {}", report_path.display()))?;
    if !args.json {
        println!(
            "== targets (DESIGN.md §4) ==\n{}",
            folio_bench::render_summary(&all_checks)
        );
        let failed = all_checks.iter().filter(|c| !c.pass).count();
        println!(
            "{} of {} targets met; results (CSV, JSON lines, report.html) in {}",
            all_checks.len() - failed,
            all_checks.len(),
            args.results_dir.display()
        );
    }
    Ok(())
}
