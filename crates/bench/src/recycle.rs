//! `folio bench recycle` (seed 003): WAL-heavy inserts with `wal_recycle` on,
//! off and auto, on loop-mounted ext4, xfs and btrfs.
//!
//! PostgreSQL recycles retired WAL segments by renaming them to future names.
//! That saves creating (and zero-filling) a file on ext4/xfs (+20% at the
//! largest scale in the seed's tests), but on copy-on-write filesystems, or
//! once the old segment has left the OS cache, writes into it cost more
//! (1100 vs 1600 tps on ZFS in the seed). folio's `Recycle::Auto` measures
//! both kinds of segment as the log runs and picks the cheaper; the target
//! is that auto comes within 5% of the better fixed setting on every
//! filesystem.
//!
//! Each point: a fresh WAL directory on the mounted filesystem, small
//! segments and a small `max_wal_size`, and a checkpointer thread that
//! releases everything durable and retires old segments every few
//! milliseconds, so segments are retired (recycled or unlinked) many times.
//! A warm-up writes some segments first (so recycled ones exist and auto
//! has sampled both kinds), the OS cache is dropped (the recycled segments
//! are then cold, as in the seed: "an old WAL file that has fallen out of
//! the filesystem cache"), then the inserters run for the measured time.
//! The settings run in rotated order in each round; each setting's median
//! round is reported with the spread of its rounds, and the target is
//! judged on the median of the per-round ratios auto / the better fixed
//! setting (by median): the settings of one round ran back to back, so the
//! pairing cancels the drift of a shared machine between rounds. Auto's
//! rows also say which kind it prefers and how often the preference changed.

use crate::harness::{Measured, median_sample, run_for};
use crate::loopfs::{FsKind, LoopMount, drop_caches};
use crate::{BenchConfig, BenchError, Check, Progress, Row, Workload};
use folio_io::{Dir, FsDir};
use folio_page::{PAGE_SIZE, Page, PageId};
use folio_wal::{RecordBuilder, Recycle, RmgrId, SegmentKind, Wal, WalConfig, WalStats};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

const NAME: &str = "recycle";
const CASE: &str = "wal-heavy";
/// The benchmark's resource manager id (records are never replayed).
const BENCH_RMGR: RmgrId = RmgrId(201);
/// Bytes of the tuple each insert logs.
const TUPLE_BYTES: usize = 128;
/// Every this many inserts carries a full-page image (the first change of a
/// page after a checkpoint), which is what makes real WAL heavy.
const IMAGE_EVERY: u64 = 4;
/// Each thread commits (durably) after this many inserts.
const COMMIT_EVERY: u64 = 32;
/// How often the checkpointer releases and retires segments.
const CHECKPOINT_INTERVAL: Duration = Duration::from_millis(5);
/// `max_wal_size`, in segments.
const MAX_WAL_SEGMENTS: u64 = 8;
/// The target: auto / best of on and off.
const AUTO_MIN_RATIO: f64 = 0.95;

const MODES: [(&str, Recycle); 3] = [
    ("on", Recycle::On),
    ("off", Recycle::Off),
    ("auto", Recycle::Auto),
];

/// The WAL recycling workload.
#[derive(Debug)]
pub struct RecycleWorkload;

/// Sizes of one run, by `--quick`.
#[derive(Debug, Clone, Copy)]
struct Plan {
    segment_size_bytes: u64,
    warmup_segments: u64,
    image_bytes: u64,
    rounds: usize,
    duration: Duration,
}

impl Plan {
    fn new(config: &BenchConfig) -> Plan {
        let (segment_size_bytes, warmup_segments, image_bytes, rounds) = if config.quick {
            (4 << 20, config.scaled(12), 1 << 30, 5)
        } else {
            (16 << 20, config.scaled(24), 4 << 30, 5)
        };
        Plan {
            segment_size_bytes,
            warmup_segments,
            image_bytes,
            rounds,
            duration: config.duration_or(Duration::from_secs(1), Duration::from_secs(5)),
        }
    }
}

impl Workload for RecycleWorkload {
    fn name(&self) -> &'static str {
        NAME
    }

    fn about(&self) -> &'static str {
        "WAL-heavy inserts with wal_recycle on/off/auto on loop-mounted ext4, xfs, btrfs (seed 003)"
    }

    fn run(&self, config: &BenchConfig, progress: &dyn Progress) -> Result<Vec<Row>, BenchError> {
        let plan = Plan::new(config);
        let threads = config.threads_or(&[4]);
        let steps = FsKind::ALL.len() * threads.len() * plan.rounds * MODES.len();
        progress.phase("recycle", steps as u64);
        let mut rows = Vec::new();
        for fs in FsKind::ALL {
            let mount = match LoopMount::create(&config.data_dir, fs, plan.image_bytes) {
                Ok(mount) => mount,
                Err(skip) => {
                    eprintln!("folio bench recycle: skipping {fs}: {skip}; no rows for {fs}");
                    continue;
                }
            };
            for &thread_count in &threads {
                rows.extend(measure_filesystem(&mount, plan, thread_count, progress)?);
            }
        }
        Ok(rows)
    }

    fn checks(&self, rows: &[Row]) -> Vec<Check> {
        let mut checks = Vec::new();
        for (auto_index, auto) in rows
            .iter()
            .enumerate()
            .filter(|(_, r)| text(r, "wal_recycle") == "auto")
        {
            let peer = |mode: &str| {
                rows.iter().enumerate().find(|(_, r)| {
                    r.threads == auto.threads
                        && text(r, "filesystem") == text(auto, "filesystem")
                        && text(r, "wal_recycle") == mode
                })
            };
            if let (Some((on_index, on)), Some((off_index, off))) = (peer("on"), peer("off")) {
                // The paired median when the run has it (module comment),
                // else the ratio of the medians.
                let ratio = auto
                    .number("auto_vs_best_paired")
                    .unwrap_or_else(|| ops(auto) / ops(on).max(ops(off)));
                let measure = format!(
                    "recycle auto / best of on,off, {}, {} threads",
                    text(auto, "filesystem"),
                    auto.threads
                );
                let rows = vec![auto_index, on_index, off_index];
                checks.push(Check::at_least(NAME, measure, ratio, AUTO_MIN_RATIO, rows));
            }
        }
        checks
    }
}

/// Measures every recycle setting on one mounted filesystem: `plan.rounds`
/// rounds, settings rotated each round (so drift in the shared machine's
/// speed affects all alike), the median round reported with the spread
/// `(max - min) / median` of its rounds.
fn measure_filesystem(
    mount: &LoopMount,
    plan: Plan,
    threads: usize,
    progress: &dyn Progress,
) -> Result<Vec<Row>, BenchError> {
    let mut samples: Vec<Vec<Sample>> = MODES.iter().map(|_| Vec::new()).collect();
    for round in 0..plan.rounds {
        for offset in 0..MODES.len() {
            let index = (round + offset) % MODES.len();
            let (mode_name, mode) = MODES[index];
            let path = mount.path().join(format!("wal-{mode_name}"));
            samples[index].push(measure_once(&path, mode, plan, threads)?);
            progress.step(&format!(
                "{} recycle {mode_name}, {threads} threads",
                mount.fs()
            ));
        }
    }
    let rate = |index: usize, round: usize| samples[index][round].measured.ops_per_sec();
    let median_rate = |index: usize| {
        let mut rates: Vec<f64> = (0..plan.rounds).map(|r| rate(index, r)).collect();
        rates.sort_by(f64::total_cmp);
        rates[rates.len() / 2]
    };
    // Auto against the better fixed setting (by median), round by round:
    // the three settings of a round ran back to back, so a paired ratio
    // cancels the shared machine's drift between rounds.
    let best = if median_rate(0) >= median_rate(1) {
        0
    } else {
        1
    };
    let mut paired: Vec<f64> = (0..plan.rounds)
        .map(|r| rate(2, r) / rate(best, r))
        .collect();
    paired.sort_by(f64::total_cmp);
    let mut rows = Vec::new();
    for (index, (mode_name, _)) in MODES.iter().enumerate() {
        let rates: Vec<f64> = samples[index]
            .iter()
            .map(|s| s.measured.ops_per_sec())
            .collect();
        let sample = median_sample(&samples[index], |s| s.measured.ops_per_sec());
        let middle = sample.measured.ops_per_sec();
        let low = rates.iter().copied().fold(f64::INFINITY, f64::min);
        let high = rates.iter().copied().fold(0.0, f64::max);
        let mut row = sample
            .row(mount.fs(), mode_name, threads, plan)
            .with("rounds", plan.rounds)
            .with("spread", (high - low) / middle);
        if *mode_name == "auto" {
            row = row
                .with("best_fixed", MODES[best].0)
                .with("auto_vs_best_paired", paired[paired.len() / 2])
                .with("auto_vs_best_low", paired[0])
                .with("auto_vs_best_high", paired[paired.len() - 1]);
        }
        rows.push(row);
    }
    Ok(rows)
}

/// One measured run and the WAL counters that moved during it.
#[derive(Debug)]
struct Sample {
    measured: Measured,
    before: WalStats,
    after: WalStats,
    caches_dropped: bool,
}

impl Sample {
    fn row(&self, fs: FsKind, mode_name: &str, threads: usize, plan: Plan) -> Row {
        let seconds = self.measured.elapsed.as_secs_f64();
        let (before, after) = (&self.before, &self.after);
        let bytes = after.bytes - before.bytes;
        Row::new(NAME, CASE, threads)
            .with("filesystem", fs.name())
            .with("wal_recycle", mode_name)
            .with("ops_per_sec", self.measured.ops_per_sec())
            .with("mb_per_sec", bytes as f64 / seconds / (1u64 << 20) as f64)
            .with("segment_mib", plan.segment_size_bytes >> 20)
            .with(
                "segments_created",
                after.segments_created - before.segments_created,
            )
            .with(
                "segments_recycled",
                after.segments_recycled - before.segments_recycled,
            )
            .with(
                "segments_removed",
                after.segments_removed - before.segments_removed,
            )
            .with("recycled_segment_ms", after.costs.recycled_mean_ns / 1e6)
            .with("created_segment_ms", after.costs.created_mean_ns / 1e6)
            .with(
                "prefers",
                match after.costs.preferred {
                    Some(SegmentKind::Recycled) => "recycle",
                    Some(SegmentKind::Created) => "create",
                    None => "-",
                },
            )
            .with("preference_switches", after.costs.switches)
            .with("cold_cache", self.caches_dropped)
    }
}

/// A fresh WAL in `path` with `mode`, warmed up, then measured.
fn measure_once(
    path: &Path,
    mode: Recycle,
    plan: Plan,
    threads: usize,
) -> Result<Sample, BenchError> {
    let io_error = |source| BenchError::Io {
        what: path.display().to_string(),
        source,
    };
    if path.exists() {
        std::fs::remove_dir_all(path).map_err(io_error)?;
    }
    let dir: Arc<dyn Dir> = Arc::new(FsDir::open(path).map_err(io_error)?);
    let wal_config = WalConfig {
        segment_size_bytes: plan.segment_size_bytes,
        recycle: mode,
        // Let the setting alone decide (no forced recycling below a minimum).
        min_wal_size_bytes: 0,
        max_wal_size_bytes: MAX_WAL_SEGMENTS * plan.segment_size_bytes,
        ..WalConfig::default()
    };
    let wal = Wal::open(dir, wal_config)?;
    let image: Box<Page> = Box::new([0x5a; PAGE_SIZE]);
    let failure = Mutex::new(None);
    let fail = |error: BenchError| {
        failure.lock().expect("failure lock").get_or_insert(error);
    };
    let checkpointer_stop = AtomicBool::new(false);
    let outcome = std::thread::scope(|scope| {
        scope.spawn(|| {
            while !checkpointer_stop.load(Ordering::Relaxed) {
                std::thread::sleep(CHECKPOINT_INTERVAL);
                if let Err(error) = checkpoint(&wal) {
                    fail(error);
                    break;
                }
            }
        });
        let outcome =
            warm_up(&wal, &image, plan.warmup_segments * plan.segment_size_bytes).map(|()| {
                let caches_dropped = drop_caches();
                let before = wal.stats();
                let measured = run_for(threads, plan.duration, |index, stop| {
                    let mut ops = 0u64;
                    while !stop.is_set() {
                        if let Err(error) = insert(&wal, &image, index as u64, ops) {
                            fail(error);
                            break;
                        }
                        ops += 1;
                    }
                    ops
                });
                Sample {
                    measured,
                    before,
                    after: wal.stats(),
                    caches_dropped,
                }
            });
        checkpointer_stop.store(true, Ordering::Relaxed);
        outcome
    });
    if let Some(error) = failure.into_inner().expect("failure lock") {
        return Err(error);
    }
    let sample = outcome?;
    wal.flush_all()?;
    drop(wal);
    std::fs::remove_dir_all(path).map_err(io_error)?;
    Ok(sample)
}

/// What a checkpointer does for the WAL: everything durable is no longer
/// needed, and released segments are recycled or removed per the policy.
fn checkpoint(wal: &Wal) -> Result<(), BenchError> {
    wal.release_before(wal.synced_lsn());
    wal.remove_old_segments()?;
    Ok(())
}

/// Writes `bytes` of WAL on one thread, durably.
fn warm_up(wal: &Wal, image: &Page, bytes: u64) -> Result<(), BenchError> {
    let start = wal.stats().bytes;
    let mut seq = 0u64;
    while wal.stats().bytes - start < bytes {
        insert(wal, image, u64::MAX, seq)?;
        seq += 1;
    }
    wal.flush_all()?;
    Ok(())
}

/// Insert number `seq` of thread `thread`: a tuple logged against a page,
/// every [`IMAGE_EVERY`]th with the page's full image; every
/// [`COMMIT_EVERY`]th insert commits durably.
fn insert(wal: &Wal, image: &Page, thread: u64, seq: u64) -> Result<(), BenchError> {
    let tuple = [seq as u8; TUPLE_BYTES];
    let mut builder = RecordBuilder::new(BENCH_RMGR, 0);
    let page = PageId(thread.wrapping_mul(1 << 32).wrapping_add(seq / IMAGE_EVERY));
    let block = builder.register_page(page, seq.is_multiple_of(IMAGE_EVERY).then_some(image))?;
    builder.register_page_data(block, &tuple)?;
    let inserted = wal.insert(&builder)?;
    if (seq + 1).is_multiple_of(COMMIT_EVERY) {
        wal.commit(inserted.end_lsn)?;
    }
    Ok(())
}

fn text<'a>(row: &'a Row, key: &str) -> &'a str {
    row.values.get(key).and_then(|v| v.as_str()).unwrap_or("")
}

fn ops(row: &Row) -> f64 {
    row.number("ops_per_sec").unwrap_or(0.0)
}
