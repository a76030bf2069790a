//! `folio bench buffer`: the buffer manager alone (seeds 000 and 002).
//!
//! - `hot-read` (seed 000): optimistic reads of a few cached pages, one of
//!   them read by every operation like a B-tree root, checksums on and off.
//!   PostgreSQL pins every page with a CAS on a shared word; folio's readers
//!   must write no shared memory at all, so `state_rmw_per_op` must be 0 and
//!   128 threads must keep the throughput of 2.
//! - `evict-read` (seed 002): random reads over data 10x the pool, so nearly
//!   every read faults a page in and evicts another, at up to 400 threads.

use crate::harness::{
    Measured, PAIRED_REPEATS, SWEEP_ROUNDS, median_sample, paired_ratio_of, run_for,
};
use crate::pool_file::fresh_pool;
use crate::targets::{cached_read_checks, on_off, oversubscription_check};
use crate::{BenchConfig, BenchError, Check, Progress, Row, Workload};
use folio_buffer::{BufferPool, PoolStats};
use folio_page::{PAGE_SIZE, PageId};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use std::time::Duration;

const NAME: &str = "buffer";
/// Pages read by `hot-read` besides the root.
const HOT_PAGES: u64 = 63;
/// Where each page stores its own id (checked by every read).
const ID_OFFSET: usize = 64;

/// The buffer-manager workload.
#[derive(Debug)]
pub struct BufferWorkload;

impl Workload for BufferWorkload {
    fn name(&self) -> &'static str {
        NAME
    }

    fn about(&self) -> &'static str {
        "buffer manager: hot optimistic reads (seed 000) and eviction-bound reads at up to 400 threads (seed 002)"
    }

    fn run(&self, config: &BenchConfig, progress: &dyn Progress) -> Result<Vec<Row>, BenchError> {
        let mut rows = hot_read(config, progress)?;
        rows.extend(evict_read(config, progress)?);
        Ok(rows)
    }

    fn checks(&self, rows: &[Row]) -> Vec<Check> {
        let mut checks = cached_read_checks(NAME, "hot-read", rows);
        checks.extend(oversubscription_check(NAME, "evict-read", rows, 0.90));
        checks
    }
}

/// Allocates `count` pages, each holding its own id at [`ID_OFFSET`], and
/// writes them out so they are clean.
fn fill_pages(pool: &BufferPool, count: u64) -> Result<Vec<PageId>, BenchError> {
    let mut ids = Vec::with_capacity(count as usize);
    for _ in 0..count {
        let mut guard = pool.allocate()?;
        let id = guard.page_id();
        folio_page::init_page(&mut guard, folio_page::PageType::Raw, 0);
        guard[ID_OFFSET..ID_OFFSET + 8].copy_from_slice(&id.0.to_le_bytes());
        ids.push(id);
    }
    pool.flush_all()?;
    Ok(ids)
}

/// One optimistic read of `page_id`: returns the id stored in the page once
/// the read validates, retrying on restarts.
#[inline]
fn read_page_id(pool: &BufferPool, page_id: PageId) -> Result<u64, BenchError> {
    loop {
        let guard = pool.optimistic(page_id)?;
        let stored = guard.read_u64(ID_OFFSET);
        if guard.validate().is_ok() {
            return Ok(stored);
        }
    }
}

/// Per-operation rates of the counters that moved during a measurement.
fn per_op(row: Row, before: PoolStats, after: PoolStats, measured: Measured) -> Row {
    let ops = measured.ops.max(1) as f64;
    let delta = |a: u64, b: u64| (b - a) as f64 / ops;
    row.with("ops_per_sec", measured.ops_per_sec())
        .with("state_rmw_per_op", delta(before.state_rmw, after.state_rmw))
        .with(
            "restarts_per_op",
            delta(before.optimistic_restarts, after.optimistic_restarts),
        )
        .with("misses_per_op", delta(before.misses, after.misses))
        .with(
            "latch_waits_per_op",
            delta(before.latch_waits, after.latch_waits),
        )
}

/// Reads pages from `ids` at random on `threads` threads for `duration`,
/// reading `root` first in every operation when given. A page whose stored
/// id is wrong is a failed benchmark, not a number.
fn measure_reads(
    pool: &BufferPool,
    root: Option<PageId>,
    ids: &[PageId],
    threads: usize,
    duration: Duration,
) -> Result<Measured, BenchError> {
    let failure = std::sync::Mutex::new(None);
    let measured = run_for(threads, duration, |index, stop| {
        let mut rng = SmallRng::seed_from_u64(0x5eed_0000 + index as u64);
        let mut ops = 0u64;
        let mut check = || -> Result<(), BenchError> {
            if let Some(root) = root {
                let stored = read_page_id(pool, root)?;
                if stored != root.0 {
                    return Err(BenchError::Config(format!("{root} holds id {stored}")));
                }
            }
            let page = ids[rng.gen_range(0..ids.len())];
            let stored = read_page_id(pool, page)?;
            if stored != page.0 {
                return Err(BenchError::Config(format!("{page} holds id {stored}")));
            }
            Ok(())
        };
        while !stop.is_set() {
            if let Err(error) = check() {
                failure.lock().expect("failure lock").get_or_insert(error);
                break;
            }
            ops += 1;
        }
        ops
    });
    match failure.into_inner().expect("failure lock") {
        Some(error) => Err(error),
        None => Ok(measured),
    }
}

fn hot_read(config: &BenchConfig, progress: &dyn Progress) -> Result<Vec<Row>, BenchError> {
    let threads = config.threads_or(&[1, 2, 8, 32, 128]);
    let settings = config.checksum_settings();
    // Six short pairs rather than three long ones (about the same time):
    // the on/off ratio is the median of the pairs' ratios.
    let duration = config.duration_or(Duration::from_millis(150), Duration::from_millis(1000));
    let pool_size_bytes = config.pool_size_bytes.unwrap_or(64 << 20);
    let mut pools = Vec::new();
    for &checksums in &settings {
        let name = format!(
            "bench-hot-read-checksums-{}.db",
            if checksums { "on" } else { "off" }
        );
        let pool = fresh_pool(config, &name, pool_size_bytes, checksums)?;
        let ids = fill_pages(&pool, HOT_PAGES + 1)?;
        pools.push((checksums, pool, ids));
    }
    progress.phase(
        "buffer hot-read",
        (threads.len() * settings.len() * PAIRED_REPEATS) as u64,
    );
    let mut rows = Vec::new();
    for &thread_count in &threads {
        // Alternate the settings within each repetition so drift in the
        // machine's speed affects both alike.
        let mut samples = vec![Vec::new(); pools.len()];
        for repeat in 0..PAIRED_REPEATS {
            for index in crate::harness::alternating(pools.len(), repeat) {
                let (checksums, pool, ids) = &pools[index];
                let before = pool.stats();
                let measured =
                    measure_reads(pool, Some(ids[0]), &ids[1..], thread_count, duration)?;
                samples[index].push((measured, before, pool.stats()));
                progress.step(&format!(
                    "{thread_count} threads, checksums {}",
                    on_off(*checksums)
                ));
            }
        }
        for (index, (checksums, _, _)) in pools.iter().enumerate() {
            let rate = |s: &(Measured, PoolStats, PoolStats)| s.0.ops_per_sec();
            let (measured, before, after) = *median_sample(&samples[index], rate);
            let mut row = Row::new(NAME, "hot-read", thread_count).with("checksums", *checksums);
            if *checksums && samples.len() == 2 {
                let paired = paired_ratio_of(&samples[index], &samples[1 - index], rate);
                row = row.with("on_off_paired", paired);
            }
            rows.push(per_op(row, before, after, measured));
        }
    }
    Ok(rows)
}

fn evict_read(config: &BenchConfig, progress: &dyn Progress) -> Result<Vec<Row>, BenchError> {
    let threads = config.threads_or(&[1, 2, 8, 32, 128, 400]);
    let duration = config.duration_or(Duration::from_millis(300), Duration::from_secs(2));
    let pool_size_bytes =
        config
            .pool_size_bytes
            .unwrap_or(if config.quick { 16 << 20 } else { 64 << 20 });
    let checksums = config.checksums.unwrap_or(true);
    let data_pages = config.scaled(10 * pool_size_bytes / PAGE_SIZE as u64);
    progress.phase("buffer evict-read: loading", 1);
    let pool = fresh_pool(config, "bench-evict-read.db", pool_size_bytes, checksums)?;
    let ids = fill_pages(&pool, data_pages)?;
    progress.step(&format!("{data_pages} pages loaded"));
    progress.phase("buffer evict-read", (threads.len() * SWEEP_ROUNDS) as u64);
    // Rounds over all thread counts, so that a slow spell of the shared
    // machine hits one round of every point rather than every round of one.
    let mut samples = vec![Vec::new(); threads.len()];
    for round in 0..SWEEP_ROUNDS {
        for (i, &thread_count) in threads.iter().enumerate() {
            let before = pool.stats();
            let measured = measure_reads(&pool, None, &ids, thread_count, duration)?;
            samples[i].push((measured, before, pool.stats()));
            progress.step(&format!("round {}: {thread_count} threads", round + 1));
        }
    }
    let mut rows = Vec::new();
    for (i, &thread_count) in threads.iter().enumerate() {
        let (measured, before, after) = *median_sample(&samples[i], |s| s.0.ops_per_sec());
        let row = Row::new(NAME, "evict-read", thread_count)
            .with("checksums", checksums)
            .with("pool_size_bytes", pool_size_bytes)
            .with("data_bytes", data_pages * PAGE_SIZE as u64);
        rows.push(per_op(row, before, after, measured));
    }
    Ok(rows)
}
