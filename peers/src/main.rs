//! `folio-peers`: folio next to redb, LMDB (heed), SQLite (rusqlite) and
//! fjall on the same keys in the same run. See docs/PEERS.md.
//!
//! ```text
//! cargo run --release --manifest-path peers/Cargo.toml -- [--quick] [--keys N] [--json]
//!     [--engines folio,redb,lmdb,sqlite,fjall] [--data-dir DIR] [--results-dir DIR]
//! ```

mod data;
mod engines;
mod report;
mod run;

use anyhow::{Context, Result, bail};
use engines::{KvEngine, fjall::Fjall, folio::Folio, lmdb, redb::Redb, sqlite::Sqlite};
use report::{Measurement, Report};
use run::Settings;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Every engine, in the order they run (folio first: the baseline).
const ENGINES: [&str; 5] = ["folio", "redb", "lmdb", "sqlite", "fjall"];

#[derive(Debug)]
struct Args {
    settings: Settings,
    engines: Vec<String>,
    json: bool,
    data_dir: Option<PathBuf>,
    results_dir: PathBuf,
}

const USAGE: &str = "usage: folio-peers [--quick] [--keys N] [--json] [--engines a,b,..] \
[--data-dir DIR] [--results-dir DIR]";

fn parse_args(args: impl IntoIterator<Item = String>) -> Result<Args> {
    let mut quick = false;
    let mut keys = None;
    let mut json = false;
    let mut engines: Vec<String> = ENGINES.iter().map(|e| e.to_string()).collect();
    let mut data_dir = None;
    let mut results_dir = PathBuf::from("results");
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        let mut value = |name: &str| {
            args.next()
                .with_context(|| format!("{name} needs a value\n{USAGE}"))
        };
        match arg.as_str() {
            "--quick" => quick = true,
            "--json" => json = true,
            "--keys" => {
                let n: u64 = value("--keys")?.parse().context("--keys: not a number")?;
                if n == 0 || n >= data::COMMIT_KEY_BASE {
                    bail!("--keys must be between 1 and {}", data::COMMIT_KEY_BASE - 1);
                }
                keys = Some(n);
            }
            "--engines" => {
                engines = value("--engines")?
                    .split(',')
                    .map(|e| e.trim().to_lowercase())
                    .collect();
                for engine in &engines {
                    if !ENGINES.contains(&engine.as_str()) {
                        bail!("unknown engine {engine:?}; known: {}", ENGINES.join(", "));
                    }
                }
            }
            "--data-dir" => data_dir = Some(PathBuf::from(value("--data-dir")?)),
            "--results-dir" => results_dir = PathBuf::from(value("--results-dir")?),
            "-h" | "--help" => {
                println!("{USAGE}");
                std::process::exit(0);
            }
            other => bail!("unknown argument {other:?}\n{USAGE}"),
        }
    }
    let settings = if quick {
        Settings {
            keys: keys.unwrap_or(100_000),
            read_threads: vec![1, 2, 8],
            commit_threads: vec![1, 8],
            warmup: Duration::from_millis(200),
            duration: Duration::from_millis(1000),
            scan_duration: Duration::from_millis(500),
            seed: 5,
        }
    } else {
        Settings {
            keys: keys.unwrap_or(1_000_000),
            read_threads: vec![1, 2, 8],
            commit_threads: vec![1, 8],
            warmup: Duration::from_millis(500),
            duration: Duration::from_secs(3),
            scan_duration: Duration::from_secs(2),
            seed: 5,
        }
    };
    Ok(Args {
        settings,
        engines,
        json,
        data_dir,
        results_dir,
    })
}

/// Runs one engine in a fresh directory under `data_dir` (or the system's
/// temporary directory), removed afterwards.
fn run_one(
    name: &str,
    settings: &Settings,
    data_dir: Option<&Path>,
    out: &mut Vec<Measurement>,
) -> Result<()> {
    let prefix = format!("folio-peers-{name}-");
    let mut builder = tempfile::Builder::new();
    builder.prefix(&prefix);
    let dir = match data_dir {
        Some(parent) => builder.tempdir_in(parent),
        None => builder.tempdir(),
    }
    .context("creating the engine's directory")?;
    eprintln!("[{name}] in {}", dir.path().display());
    fn go<E: KvEngine>(engine: E, settings: &Settings, out: &mut Vec<Measurement>) -> Result<()> {
        run::run_engine(&engine, settings, out)
    }
    match name {
        "folio" => go(Folio::open(dir.path())?, settings, out),
        "redb" => go(Redb::open(dir.path())?, settings, out),
        "lmdb" => {
            let env = lmdb::LmdbEnv::open(dir.path(), settings.keys)?;
            go(lmdb::Lmdb::new(&env)?, settings, out)
        }
        "sqlite" => go(Sqlite::open(dir.path())?, settings, out),
        "fjall" => go(Fjall::open(dir.path())?, settings, out),
        other => bail!("unknown engine {other:?}"),
    }
}

fn main() -> Result<()> {
    let args = parse_args(std::env::args().skip(1))?;
    let mut measurements = Vec::new();
    for name in &args.engines {
        run_one(
            name,
            &args.settings,
            args.data_dir.as_deref(),
            &mut measurements,
        )
        .with_context(|| format!("engine {name}"))?;
    }
    let report = Report::new(args.settings.keys, measurements);
    if args.json {
        for line in report.json_lines() {
            println!("{line}");
        }
    } else {
        print!("{}", report.table());
    }
    report.write(&args.results_dir)?;
    eprintln!(
        "results in {}/peers.csv and peers.jsonl",
        args.results_dir.display()
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(list: &[&str]) -> Result<Args> {
        parse_args(list.iter().map(|s| s.to_string()))
    }

    #[test]
    fn arguments_parse_and_bad_ones_are_refused() {
        // Proves the defaults (1M keys, every engine), --quick, --keys and
        // --engines, and that unknown engines, arguments and zero keys fail.
        let full = args(&[]).unwrap();
        assert_eq!(full.settings.keys, 1_000_000);
        assert_eq!(full.engines, ENGINES);
        assert!(!full.json);
        let quick = args(&["--quick", "--json", "--engines", "redb,folio"]).unwrap();
        assert_eq!(quick.settings.keys, 100_000);
        assert!(quick.json);
        assert_eq!(quick.engines, ["redb", "folio"]);
        assert_eq!(args(&["--keys", "5000"]).unwrap().settings.keys, 5000);
        assert!(args(&["--engines", "rocksdb"]).is_err());
        assert!(args(&["--keys", "0"]).is_err());
        assert!(args(&["--keys"]).is_err());
        assert!(args(&["--fast"]).is_err());
    }

    #[test]
    fn every_engine_runs_end_to_end_on_small_data() {
        // Proves each adapter (folio through folio-db, with its WAL) loads,
        // reads, scans both ways and makes durable commits with every value
        // checked, and that the report gives every row a figure and a ratio
        // to folio, commit rows included.
        let settings = Settings {
            keys: 3_000,
            read_threads: vec![1, 2],
            commit_threads: vec![1, 2],
            warmup: Duration::from_millis(5),
            duration: Duration::from_millis(30),
            scan_duration: Duration::from_millis(5),
            seed: 7,
        };
        let parent = tempfile::tempdir().unwrap();
        let mut out = Vec::new();
        for name in ENGINES {
            run_one(name, &settings, Some(parent.path()), &mut out).unwrap();
        }
        assert_eq!(out.len(), ENGINES.len() * 7);
        let report = Report::new(settings.keys, out);
        let folio = |case: &str, threads: usize| {
            report
                .rows
                .iter()
                .find(|(m, _)| m.engine == "folio" && m.case == case && m.threads == threads)
                .and_then(|(m, _)| m.ops_per_sec)
        };
        for (m, ratio) in &report.rows {
            assert!(m.ops_per_sec.is_some_and(|v| v >= 0.0), "{m:?}");
            // A ratio wherever folio has a figure (a 30 ms window on a
            // starved machine may count zero operations: no ratio then).
            let base = folio(m.case, m.threads);
            assert_eq!(ratio.is_some(), base.is_some_and(|b| b > 0.0), "{m:?}");
            assert_eq!(m.note.is_some(), m.case == "commit", "{m:?}");
        }
        assert!(
            report
                .scaling("commit")
                .is_some_and(|line| line.contains("folio"))
        );
        // Each engine's directory was removed after its run.
        assert_eq!(std::fs::read_dir(parent.path()).unwrap().count(), 0);
    }
}
