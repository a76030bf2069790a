//! `folio bench wal`: durable commits through the WAL (DESIGN.md §4, "durable
//! single-key commits").
//!
//! - `commit`: every operation inserts one small record (~100 bytes of
//!   data) and commits it. With `commit_mode = "sync"` the commit waits until
//!   the record is durable; group commit lets one fdatasync serve every
//!   committer waiting at that moment, so 8 threads must commit at least 4x
//!   as fast as 1 (redb, LMDB, SQLite and fjall stay near 1x here). With
//!   `commit_mode = "async"` the commit returns at once and a background
//!   flusher syncs every few milliseconds: the insertion path's own rate.
//!
//! Real files in the configured data directory: the cost of fsync is the
//! point. Each point opens a fresh WAL, warms it up (the first segment and
//! the one prepared ahead are created before timing starts), measures, and
//! removes it.

use crate::harness::{Measured, median_sample, run_for};
use crate::{BenchConfig, BenchError, Check, Progress, Row, Workload};
use folio_io::{Dir, FsDir};
use folio_wal::{CommitMode, RecordBuilder, RmgrId, Wal, WalConfig, WalStats};
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

const NAME: &str = "wal";
/// Bytes of data in each record (plus the 24-byte record header).
const RECORD_DATA_BYTES: usize = 100;
/// The benchmark's resource manager id (records are never replayed).
const BENCH_RMGR: RmgrId = RmgrId(200);
/// Background flush interval in `async` mode.
const ASYNC_FLUSH_INTERVAL_MS: u64 = 10;

/// The WAL commit workload.
#[derive(Debug)]
pub struct WalWorkload;

impl Workload for WalWorkload {
    fn name(&self) -> &'static str {
        NAME
    }

    fn about(&self) -> &'static str {
        "WAL: small record + durable commit per operation, group commit at 1-32 threads; async commit"
    }

    fn run(&self, config: &BenchConfig, progress: &dyn Progress) -> Result<Vec<Row>, BenchError> {
        let threads = config.threads_or(&[1, 2, 8, 32]);
        let repeats = if config.quick { 1 } else { 3 };
        let modes = [
            ("sync", CommitMode::Sync),
            (
                "async",
                CommitMode::Async {
                    flush_interval_ms: ASYNC_FLUSH_INTERVAL_MS,
                },
            ),
        ];
        progress.phase("wal commit", (threads.len() * modes.len() * repeats) as u64);
        let mut rows = Vec::new();
        for &(mode_name, mode) in &modes {
            let duration = match mode {
                CommitMode::Sync => {
                    config.duration_or(Duration::from_secs(1), Duration::from_secs(3))
                }
                CommitMode::Async { .. } => {
                    config.duration_or(Duration::from_millis(500), Duration::from_secs(2))
                }
            };
            for &thread_count in &threads {
                let mut samples = Vec::with_capacity(repeats);
                for _ in 0..repeats {
                    samples.push(measure_commits(config, mode, thread_count, duration)?);
                    progress.step(&format!("{mode_name} commit, {thread_count} threads"));
                }
                let sample = median_sample(&samples, |s| s.measured.ops_per_sec());
                rows.push(sample.row(mode_name, thread_count));
            }
        }
        Ok(rows)
    }

    fn checks(&self, rows: &[Row]) -> Vec<Check> {
        let find = |threads: usize| {
            rows.iter().enumerate().find(|(_, r)| {
                r.case == "commit"
                    && r.threads == threads
                    && r.values.get("commit_mode").and_then(|v| v.as_str()) == Some("sync")
            })
        };
        match (find(8), find(1)) {
            (Some((i8, r8)), Some((i1, r1))) => {
                let ratio = ops(r8) / ops(r1);
                let measure = "durable commits 8 threads / 1 thread".to_string();
                vec![Check::at_least(NAME, measure, ratio, 4.0, vec![i8, i1])]
            }
            _ => Vec::new(),
        }
    }
}

/// One measured point and the WAL counters that moved during it.
#[derive(Debug)]
struct Sample {
    measured: Measured,
    before: WalStats,
    after: WalStats,
}

impl Sample {
    fn row(&self, mode_name: &str, threads: usize) -> Row {
        let commits = self.measured.ops as f64;
        let fsyncs = self.after.fsyncs - self.before.fsyncs;
        let requests = self.after.flush_requests - self.before.flush_requests;
        let shared = self.after.flushes_shared - self.before.flushes_shared;
        Row::new(NAME, "commit", threads)
            .with("commit_mode", mode_name)
            .with("ops_per_sec", self.measured.ops_per_sec())
            .with("commits_per_fsync", commits / fsyncs.max(1) as f64)
            .with(
                "fsyncs_per_sec",
                fsyncs as f64 / self.measured.elapsed.as_secs_f64(),
            )
            .with(
                "shared_flush_fraction",
                shared as f64 / requests.max(1) as f64,
            )
    }
}

/// Opens a fresh WAL in `path` (removing any left from an earlier run).
fn open_fresh(path: &Path, mode: CommitMode) -> Result<Arc<Wal>, BenchError> {
    let io_error = |source| BenchError::Io {
        what: path.display().to_string(),
        source,
    };
    if path.exists() {
        std::fs::remove_dir_all(path).map_err(io_error)?;
    }
    let dir: Arc<dyn Dir> = Arc::new(FsDir::open(path).map_err(io_error)?);
    let config = WalConfig {
        commit_mode: mode,
        ..WalConfig::default()
    };
    Ok(Arc::new(Wal::open(dir, config)?))
}

/// Inserts one record carrying `data` and commits it (per the WAL's mode).
#[inline]
fn insert_and_commit(wal: &Wal, data: &[u8]) -> Result<(), BenchError> {
    let mut builder = RecordBuilder::new(BENCH_RMGR, 0);
    builder.register_data(data)?;
    let inserted = wal.insert(&builder)?;
    wal.commit(inserted.end_lsn)?;
    Ok(())
}

/// Runs `threads` committers for `duration` on a fresh WAL. An error in any
/// thread fails the benchmark (never a number).
fn measure_commits(
    config: &BenchConfig,
    mode: CommitMode,
    threads: usize,
    duration: Duration,
) -> Result<Sample, BenchError> {
    let path = config.data_dir.join(format!("bench-wal-commit-{threads}"));
    let wal = open_fresh(&path, mode)?;
    // Warm up: enters the first segment and prepares the next one, so the
    // measurement does not include creating the WAL's first files.
    insert_and_commit(&wal, &[0u8; RECORD_DATA_BYTES])?;
    wal.flush_all()?;
    let failure = Mutex::new(None);
    let before = wal.stats();
    let measured = run_for(threads, duration, |index, stop| {
        let data = [index as u8; RECORD_DATA_BYTES];
        let mut ops = 0u64;
        while !stop.is_set() {
            if let Err(error) = insert_and_commit(&wal, &data) {
                failure.lock().expect("failure lock").get_or_insert(error);
                break;
            }
            ops += 1;
        }
        ops
    });
    let after = wal.stats();
    if let Some(error) = failure.into_inner().expect("failure lock") {
        return Err(error);
    }
    wal.flush_all()?;
    drop(wal);
    std::fs::remove_dir_all(&path).map_err(|source| BenchError::Io {
        what: path.display().to_string(),
        source,
    })?;
    Ok(Sample {
        measured,
        before,
        after,
    })
}

fn ops(row: &Row) -> f64 {
    row.number("ops_per_sec").unwrap_or(0.0)
}
