//! `folio bench select-only` (seed 002): random point lookups of 8-byte keys
//! with 100-byte values in a B+tree whose data is several times the buffer
//! pool, so lookups keep faulting leaves in and evicting others, at 1 to 400
//! threads — pgbench `-S` at scale 100 with 128 MB of shared buffers, the
//! workload whose throughput PostgreSQL lost past ~100 connections while
//! eviction held two buffer-mapping partition locks.

use crate::btree::{VALUE_BYTES, measure, tree_error};
use crate::harness::{Measured, SWEEP_ROUNDS, median_sample};
use crate::pool_file::fresh_pool;
use crate::targets::oversubscription_check;
use crate::{BenchConfig, BenchError, Check, Progress, Row, Workload};
use folio_btree::Tree;
use folio_buffer::PoolStats;
use folio_page::PAGE_SIZE;
use rand::Rng;
use std::time::Duration;

const NAME: &str = "select-only";
/// Keys per MiB of pool: with ~110 bytes per entry in half- to full leaves,
/// this puts the tree at roughly 16x the pool (measured: 512 MB of tree
/// for a 32 MiB pool, 122 MB for 8 MiB).
const KEYS_PER_POOL_MIB: u64 = 60_000;

/// The seed-002 workload.
#[derive(Debug)]
pub struct SelectOnlyWorkload;

impl Workload for SelectOnlyWorkload {
    fn name(&self) -> &'static str {
        NAME
    }

    fn about(&self) -> &'static str {
        "random B+tree lookups with data ~16x the pool at 1-400 threads (seed 002, pgbench -S)"
    }

    fn run(&self, config: &BenchConfig, progress: &dyn Progress) -> Result<Vec<Row>, BenchError> {
        let threads = config.threads_or(&[1, 2, 8, 32, 128, 400]);
        let duration = config.duration_or(Duration::from_millis(300), Duration::from_secs(2));
        let pool_size_bytes =
            config
                .pool_size_bytes
                .unwrap_or(if config.quick { 8 << 20 } else { 32 << 20 });
        let checksums = config.checksums.unwrap_or(true);
        let keys = config.scaled(KEYS_PER_POOL_MIB * (pool_size_bytes >> 20));
        progress.phase("select-only: loading", 1);
        let pool = fresh_pool(config, "bench-select-only.db", pool_size_bytes, checksums)?;
        let tree = Tree::create(pool.clone()).map_err(tree_error)?;
        let mut value = [0u8; VALUE_BYTES];
        for key in 0..keys {
            value[..8].copy_from_slice(&key.to_le_bytes());
            tree.insert(&key.to_be_bytes(), &value)
                .map_err(tree_error)?;
        }
        pool.flush_all()?;
        let data_bytes = pool.page_count()? * PAGE_SIZE as u64;
        progress.step(&format!("{keys} keys loaded"));
        progress.phase("select-only", (threads.len() * SWEEP_ROUNDS) as u64);
        // Rounds over all thread counts (see `SWEEP_ROUNDS`); rows are the
        // median round.
        let mut samples = vec![Vec::new(); threads.len()];
        for round in 0..SWEEP_ROUNDS {
            for (i, &thread_count) in threads.iter().enumerate() {
                let before = pool.stats();
                let (measured, pages) = measure(thread_count, duration, |rng| {
                    let key = rng.gen_range(0..keys);
                    let mut found = Vec::with_capacity(VALUE_BYTES);
                    Ok(tree.get_into(&key.to_be_bytes(), &mut found)?
                        && found[..8] == key.to_le_bytes())
                })?;
                samples[i].push((measured, before, pool.stats(), pages));
                progress.step(&format!("round {}: {thread_count} threads", round + 1));
            }
        }
        let mut rows = Vec::new();
        for (i, &thread_count) in threads.iter().enumerate() {
            let (measured, before, after, pages) =
                *median_sample(&samples[i], |s| s.0.ops_per_sec());
            let row = Row::new(NAME, "select-only", thread_count)
                .with("checksums", checksums)
                .with("pool_size_bytes", pool_size_bytes)
                .with("data_bytes", data_bytes);
            rows.push(per_op(row, before, after, measured, pages));
        }
        Ok(rows)
    }

    fn checks(&self, rows: &[Row]) -> Vec<Check> {
        oversubscription_check(NAME, "select-only", rows, 0.90)
    }
}

fn per_op(row: Row, before: PoolStats, after: PoolStats, measured: Measured, pages: u64) -> Row {
    let ops = measured.ops.max(1) as f64;
    let delta = |a: u64, b: u64| (b - a) as f64 / ops;
    row.with("ops_per_sec", measured.ops_per_sec())
        .with("pages_per_op", pages as f64 / ops)
        .with("misses_per_op", delta(before.misses, after.misses))
        .with("state_rmw_per_op", delta(before.state_rmw, after.state_rmw))
        .with(
            "restarts_per_op",
            delta(before.optimistic_restarts, after.optimistic_restarts),
        )
}
