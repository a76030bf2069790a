//! `folio bench btree`: the B+tree (issue 3; seeds 000 and 004).
//!
//! - `lookup` / `lookup-btreemap`: 1M keys (8-byte big-endian, 100-byte
//!   values), cached, random point lookups on folio's tree and on
//!   `std::collections::BTreeMap` in the same run. Targets: folio >= 0.75x
//!   BTreeMap at 1 thread; 2 threads >= 1.8x 1 thread.
//! - `index-probe` (seed 000): a non-unique tree on (bid, aid) over 100k
//!   rows, all bid = 1, probing bid = 0 (finds nothing), 1-128 threads,
//!   checksums on and off. Targets: on/off >= 0.99, no state-word RMW,
//!   128 threads >= 0.95x 2 threads.
//! - `scan-forward` / `scan-backward` (seed 004): full scans of 100k and 1M
//!   keys. Targets: equal pages per scan; backward time <= 1.05x forward.

use crate::harness::{Measured, PAIRED_REPEATS, median, median_sample, paired_ratio_of, run_for};
use crate::pool_file::fresh_pool;
use crate::targets::{cached_read_checks, on_off, ops};
use crate::{BenchConfig, BenchError, Check, Progress, Row, Workload};
use folio_btree::{AccessCounters, BtreeError, Direction, MultiTree, Tree};
use folio_buffer::{BufferPool, PoolStats};
use rand::rngs::SmallRng;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use std::collections::BTreeMap;
use std::ops::Bound;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

const NAME: &str = "btree";
pub(crate) const VALUE_BYTES: usize = 100;
/// The same data in `std::collections::BTreeMap`.
type Model = BTreeMap<[u8; 8], [u8; VALUE_BYTES]>;
/// Repetitions per point; the median is reported.
const REPEATS: usize = 3;

/// The B+tree workload.
#[derive(Debug)]
pub struct BtreeWorkload;

impl Workload for BtreeWorkload {
    fn name(&self) -> &'static str {
        NAME
    }

    fn about(&self) -> &'static str {
        "B+tree: point lookups vs BTreeMap, index probes at 1-128 threads (seed 000), forward vs backward scans (seed 004)"
    }

    fn run(&self, config: &BenchConfig, progress: &dyn Progress) -> Result<Vec<Row>, BenchError> {
        let pool_size_bytes = config.pool_size_bytes.unwrap_or(1 << 30);
        let checksums = config.checksums.unwrap_or(true);
        let keys = config.scaled(1_000_000);
        progress.phase("btree: loading", 1);
        let pool = fresh_pool(config, "bench-btree-lookup.db", pool_size_bytes, checksums)?;
        let (tree, map) = load(&pool, keys)?;
        progress.step(&format!("{keys} keys loaded"));
        let mut rows = lookup(config, progress, &tree, &map, checksums)?;
        drop(map);
        rows.extend(index_probe(config, progress)?);
        let small_keys = config.scaled(100_000);
        let small_pool = fresh_pool(config, "bench-btree-scan.db", pool_size_bytes, checksums)?;
        let (small, small_map) = load(&small_pool, small_keys)?;
        drop(small_map);
        rows.extend(scans(config, progress, &small, small_keys, checksums)?);
        rows.extend(scans(config, progress, &tree, keys, checksums)?);
        Ok(rows)
    }

    fn checks(&self, rows: &[Row]) -> Vec<Check> {
        let mut checks = lookup_checks(rows);
        checks.extend(cached_read_checks(NAME, "index-probe", rows));
        checks.extend(scan_checks(rows));
        checks
    }
}

pub(crate) fn tree_error(error: BtreeError) -> BenchError {
    match error {
        BtreeError::Buffer(e) => BenchError::Buffer(e),
        other => BenchError::Config(format!("B+tree: {other}")),
    }
}

fn value_of(key: u64) -> [u8; VALUE_BYTES] {
    let mut value = [0u8; VALUE_BYTES];
    value[..8].copy_from_slice(&key.to_le_bytes());
    value
}

/// Loads keys `0..count` (8-byte big-endian) in a seeded random order into a
/// new tree and into a `BTreeMap`.
fn load(pool: &Arc<BufferPool>, count: u64) -> Result<(Tree, Model), BenchError> {
    let tree = Tree::create(pool.clone()).map_err(tree_error)?;
    let mut order: Vec<u64> = (0..count).collect();
    order.shuffle(&mut SmallRng::seed_from_u64(0xB7EE));
    let mut map = BTreeMap::new();
    for &k in &order {
        tree.insert(&k.to_be_bytes(), &value_of(k))
            .map_err(tree_error)?;
        map.insert(k.to_be_bytes(), value_of(k));
    }
    Ok((tree, map))
}

/// Per-operation rates of the counters that moved during a measurement.
fn per_op(row: Row, before: PoolStats, after: PoolStats, measured: Measured, pages: u64) -> Row {
    let ops = measured.ops.max(1) as f64;
    let delta = |a: u64, b: u64| (b - a) as f64 / ops;
    row.with("ops_per_sec", measured.ops_per_sec())
        .with("pages_per_op", pages as f64 / ops)
        .with("state_rmw_per_op", delta(before.state_rmw, after.state_rmw))
        .with(
            "restarts_per_op",
            delta(before.optimistic_restarts, after.optimistic_restarts),
        )
        .with("misses_per_op", delta(before.misses, after.misses))
}

/// Runs `op` (returning false on a wrong answer) on `threads` threads and
/// sums the pages the tree accessed. A wrong answer fails the benchmark.
pub(crate) fn measure<F>(
    threads: usize,
    duration: Duration,
    op: F,
) -> Result<(Measured, u64), BenchError>
where
    F: Fn(&mut SmallRng) -> Result<bool, BtreeError> + Sync,
{
    let pages = AtomicU64::new(0);
    let failure = std::sync::Mutex::new(None);
    let measured = run_for(threads, duration, |index, stop| {
        let mut rng = SmallRng::seed_from_u64(0x5eed_0000 + index as u64);
        let before = AccessCounters::current();
        let mut ops = 0u64;
        while !stop.is_set() {
            match op(&mut rng) {
                Ok(true) => ops += 1,
                Ok(false) => {
                    failure
                        .lock()
                        .expect("failure lock")
                        .get_or_insert(BenchError::Config("wrong answer".into()));
                    break;
                }
                Err(e) => {
                    failure
                        .lock()
                        .expect("failure lock")
                        .get_or_insert(tree_error(e));
                    break;
                }
            }
        }
        pages.fetch_add(
            AccessCounters::current().since(&before).pages,
            Ordering::Relaxed,
        );
        ops
    });
    match failure.into_inner().expect("failure lock") {
        Some(error) => Err(error),
        None => Ok((measured, pages.into_inner())),
    }
}

fn lookup(
    config: &BenchConfig,
    progress: &dyn Progress,
    tree: &Tree,
    map: &Model,
    checksums: bool,
) -> Result<Vec<Row>, BenchError> {
    let threads = config.threads_or(&[1, 2]);
    let duration = config.duration_or(Duration::from_millis(500), Duration::from_secs(3));
    let keys = map.len() as u64;
    let pool = tree.pool();
    progress.phase("btree lookup", (threads.len() * REPEATS) as u64);
    let mut rows = Vec::new();
    for &thread_count in &threads {
        let mut folio = Vec::new();
        let mut std_map = Vec::new();
        for repeat in 0..REPEATS {
            // Alternate which engine goes first (see `alternating`).
            for engine in crate::harness::alternating(2, repeat) {
                if engine == 0 {
                    let before = pool.stats();
                    let (measured, pages) = measure(thread_count, duration, |rng| {
                        let k = rng.gen_range(0..keys);
                        let mut value = Vec::with_capacity(VALUE_BYTES);
                        Ok(tree.get_into(&k.to_be_bytes(), &mut value)?
                            && value[..8] == k.to_le_bytes())
                    })?;
                    folio.push((measured, before, pool.stats(), pages));
                } else {
                    let (measured, _) = measure(thread_count, duration, |rng| {
                        let k = rng.gen_range(0..keys);
                        let mut value = Vec::with_capacity(VALUE_BYTES);
                        if let Some(v) = map.get(&k.to_be_bytes()) {
                            value.extend_from_slice(v);
                        }
                        Ok(value.len() == VALUE_BYTES && value[..8] == k.to_le_bytes())
                    })?;
                    std_map.push(measured);
                }
            }
            progress.step(&format!("{thread_count} threads"));
        }
        let (measured, before, after, pages) = *median_sample(&folio, |s| s.0.ops_per_sec());
        let row = Row::new(NAME, "lookup", thread_count)
            .with("checksums", checksums)
            .with("keys", keys);
        rows.push(per_op(row, before, after, measured, pages));
        let middle = median(std_map.iter().map(Measured::ops_per_sec).collect());
        rows.push(
            Row::new(NAME, "lookup-btreemap", thread_count)
                .with("checksums", checksums)
                .with("keys", keys)
                .with("ops_per_sec", middle)
                .with("pages_per_op", 0.0)
                .with("state_rmw_per_op", 0.0),
        );
    }
    Ok(rows)
}

fn index_probe(config: &BenchConfig, progress: &dyn Progress) -> Result<Vec<Row>, BenchError> {
    let threads = config.threads_or(&[1, 2, 8, 32, 128]);
    let settings = config.checksum_settings();
    // Six short pairs rather than three long ones (about the same time): the
    // on/off ratio is the median of the pairs' ratios.
    let duration = config.duration_or(Duration::from_millis(150), Duration::from_millis(1000));
    let rows_count = config.scaled(100_000);
    let mut trees = Vec::new();
    for &checksums in &settings {
        let name = format!("bench-btree-probe-checksums-{}.db", on_off(checksums));
        let pool = fresh_pool(config, &name, 256 << 20, checksums)?;
        let tree = MultiTree::create(pool.clone()).map_err(tree_error)?;
        for aid in 0..rows_count {
            tree.insert(&1u64.to_be_bytes(), aid, b"")
                .map_err(tree_error)?;
        }
        pool.flush_all()?;
        trees.push((checksums, pool, tree));
    }
    progress.phase(
        "btree index-probe",
        (threads.len() * settings.len() * PAIRED_REPEATS) as u64,
    );
    let mut rows = Vec::new();
    for &thread_count in &threads {
        let mut samples = vec![Vec::new(); trees.len()];
        for repeat in 0..PAIRED_REPEATS {
            // Alternate which setting goes first, so that neither always
            // measures right after the threads of the previous point.
            for index in crate::harness::alternating(trees.len(), repeat) {
                let (checksums, pool, tree) = &trees[index];
                let before = pool.stats();
                let (measured, pages) = measure(thread_count, duration, |_| {
                    let mut scan = tree.scan_key(&0u64.to_be_bytes(), Direction::Forward);
                    Ok(scan.next_entry()?.is_none())
                })?;
                samples[index].push((measured, before, pool.stats(), pages));
                progress.step(&format!(
                    "{thread_count} threads, checksums {}",
                    on_off(*checksums)
                ));
            }
        }
        for (index, (checksums, _, _)) in trees.iter().enumerate() {
            let rate = |s: &(Measured, PoolStats, PoolStats, u64)| s.0.ops_per_sec();
            let (measured, before, after, pages) = *median_sample(&samples[index], rate);
            let mut row = Row::new(NAME, "index-probe", thread_count)
                .with("checksums", *checksums)
                .with("rows", rows_count);
            if *checksums && samples.len() == 2 {
                let paired = paired_ratio_of(&samples[index], &samples[1 - index], rate);
                row = row.with("on_off_paired", paired);
            }
            rows.push(per_op(row, before, after, measured, pages));
        }
    }
    Ok(rows)
}

/// Full scans forward and backward, alternated so drift affects both alike.
fn scans(
    config: &BenchConfig,
    progress: &dyn Progress,
    tree: &Tree,
    keys: u64,
    checksums: bool,
) -> Result<Vec<Row>, BenchError> {
    let duration = config.duration_or(Duration::from_millis(400), Duration::from_secs(3));
    progress.phase(&format!("btree scans of {keys} keys"), (2 * REPEATS) as u64);
    let pool = tree.pool();
    let mut samples = [Vec::new(), Vec::new()];
    for _ in 0..REPEATS {
        for (index, direction) in [Direction::Forward, Direction::Backward]
            .into_iter()
            .enumerate()
        {
            let before = pool.stats();
            let (measured, pages) = measure(1, duration, |_| {
                let mut scan = tree.scan(Bound::Unbounded, Bound::Unbounded, direction);
                let mut n = 0u64;
                while scan.next_entry()?.is_some() {
                    n += 1;
                }
                Ok(n == keys)
            })?;
            samples[index].push((measured, before, pool.stats(), pages));
            progress.step(&format!("{direction:?}"));
        }
    }
    let mut rows = Vec::new();
    for (index, case) in ["scan-forward", "scan-backward"].into_iter().enumerate() {
        let (measured, before, after, pages) =
            *median_sample(&samples[index], |s| s.0.ops_per_sec());
        let row = Row::new(NAME, case, 1)
            .with("checksums", checksums)
            .with("keys", keys);
        let row = per_op(row, before, after, measured, pages);
        let keys_per_sec = row.number("ops_per_sec").unwrap_or(0.0) * keys as f64;
        rows.push(row.with("keys_per_sec", keys_per_sec));
    }
    Ok(rows)
}

fn find<'r>(rows: &'r [Row], case: &str, threads: usize) -> Option<(usize, &'r Row)> {
    rows.iter()
        .enumerate()
        .find(|(_, r)| r.case == case && r.threads == threads)
}

fn lookup_checks(rows: &[Row]) -> Vec<Check> {
    let mut checks = Vec::new();
    if let (Some((i, folio)), Some((j, std_map))) =
        (find(rows, "lookup", 1), find(rows, "lookup-btreemap", 1))
    {
        let measure = "lookup folio / BTreeMap, 1 thread".to_string();
        checks.push(Check::at_least(
            NAME,
            measure,
            ops(folio) / ops(std_map),
            0.75,
            vec![i, j],
        ));
    }
    if let (Some((i, one)), Some((j, two))) = (find(rows, "lookup", 1), find(rows, "lookup", 2)) {
        let measure = "lookup 2 threads / 1 thread".to_string();
        checks.push(Check::at_least(
            NAME,
            measure,
            ops(two) / ops(one),
            1.8,
            vec![j, i],
        ));
    }
    checks
}

fn scan_checks(rows: &[Row]) -> Vec<Check> {
    let mut checks = Vec::new();
    let forward: Vec<(usize, &Row)> = rows
        .iter()
        .enumerate()
        .filter(|(_, r)| r.case == "scan-forward")
        .collect();
    for (i, f) in forward {
        let keys = f.number("keys");
        let Some((j, b)) = rows
            .iter()
            .enumerate()
            .find(|(_, r)| r.case == "scan-backward" && r.number("keys") == keys)
        else {
            continue;
        };
        let keys = keys.unwrap_or(0.0);
        let pages = |r: &Row| r.number("pages_per_op").unwrap_or(f64::NAN);
        let measure = format!("scan {keys} keys: backward - forward pages per scan");
        checks.push(Check::at_most(
            NAME,
            measure,
            (pages(b) - pages(f)).abs(),
            0.0,
            vec![i, j],
        ));
        let measure = format!("scan {keys} keys: backward time / forward time");
        checks.push(Check::at_most(
            NAME,
            measure,
            ops(f) / ops(b),
            1.05,
            vec![i, j],
        ));
    }
    checks
}
