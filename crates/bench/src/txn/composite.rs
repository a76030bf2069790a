//! `folio bench txn`, cases `lookup-composite` and
//! `lookup-composite-btreemap`: point lookups of the keys indexes really
//! have, on the bare index tree, beside `std::collections::BTreeMap`.
//!
//! 1M keys of 40 bytes: an 8-byte prefix taking one of 8 values (as a
//! leading key column of low cardinality), then 32 random bytes; 8-byte
//! values. One thread looks keys up, uniformly and Zipf(0.99)-skewed over a
//! shuffled ranking (so the hot keys are spread over the tree), on folio's
//! tree and on a `BTreeMap` holding the same pairs, alternated, the median
//! of three repetitions each. Target: folio >= 0.75 x BTreeMap for both
//! distributions. Keys that share their first 8 bytes tie on an 8-byte
//! key head read from the key's start; the tree's heads are taken after
//! the common prefix of a node's fences (folio-btree README, "Key heads").

use crate::btree::{measure, tree_error};
use crate::harness::{Measured, alternating, median};
use crate::pool_file::fresh_pool;
use crate::{BenchConfig, BenchError, Check, Progress, Row};
use folio_btree::Tree;
use rand::rngs::SmallRng;
use rand::seq::SliceRandom;
use rand::{Rng, RngCore, SeedableRng};
use rand_distr::{Distribution, Zipf};
use std::collections::BTreeMap;
use std::time::Duration;

/// Bytes per key.
pub const KEY_BYTES: usize = 40;
/// Distinct values of the 8-byte prefix.
const PREFIXES: u64 = 8;
/// Zipf exponent of the skewed distribution.
const ZIPF_S: f64 = 0.99;
/// Repetitions per point; the median is reported.
const REPEATS: usize = 3;
/// folio / BTreeMap target for both distributions.
const TARGET: f64 = 0.75;

type Key = [u8; KEY_BYTES];

/// The keys, in a seeded random order (the order is also the Zipf ranking).
fn keys(count: u64) -> Vec<Key> {
    let mut rng = SmallRng::seed_from_u64(0xC0_4B05);
    let mut keys: Vec<Key> = (0..count)
        .map(|_| {
            let mut key = [0u8; KEY_BYTES];
            let prefix = rng.gen_range(0..PREFIXES) * 0x0101_0101_0101_0101;
            key[..8].copy_from_slice(&prefix.to_be_bytes());
            rng.fill_bytes(&mut key[8..]);
            key
        })
        .collect();
    keys.sort_unstable();
    keys.dedup();
    keys.shuffle(&mut rng);
    keys
}

/// Which key a lookup asks for.
#[derive(Clone, Copy)]
enum Pick {
    Uniform,
    Zipf(Zipf<f64>),
}

impl Pick {
    fn name(&self) -> &'static str {
        match self {
            Pick::Uniform => "uniform",
            Pick::Zipf(_) => "zipf",
        }
    }

    #[inline]
    fn index(&self, rng: &mut SmallRng, count: usize) -> usize {
        match self {
            Pick::Uniform => rng.gen_range(0..count),
            // Zipf samples ranks 1..=count.
            Pick::Zipf(z) => (z.sample(rng) as usize - 1).min(count - 1),
        }
    }
}

/// Loads the keys into a fresh tree and a `BTreeMap` (value: the key's
/// position) and measures both distributions on both.
pub fn lookup_composite(
    config: &BenchConfig,
    progress: &dyn Progress,
    workload: &'static str,
) -> Result<Vec<Row>, BenchError> {
    let count = config.scaled(1_000_000);
    let checksums = config.checksums.unwrap_or(true);
    progress.phase("txn: loading composite keys", 1);
    let keys = keys(count);
    let pool = fresh_pool(config, "bench-txn-composite.db", 1 << 30, checksums)?;
    let tree = Tree::create(pool).map_err(tree_error)?;
    let mut map = BTreeMap::new();
    for (position, key) in keys.iter().enumerate() {
        let value = (position as u64).to_le_bytes();
        tree.insert(key, &value).map_err(tree_error)?;
        map.insert(*key, value);
    }
    progress.step(&format!("{} keys loaded", keys.len()));
    let duration = config.duration_or(Duration::from_millis(500), Duration::from_secs(2));
    let zipf = Zipf::new(keys.len() as u64, ZIPF_S)
        .map_err(|e| BenchError::Config(format!("zipf: {e}")))?;
    let picks = [Pick::Uniform, Pick::Zipf(zipf)];
    progress.phase("txn lookup-composite", (picks.len() * REPEATS) as u64);
    let n = keys.len();
    let mut rows = Vec::new();
    for pick in picks {
        let mut folio: Vec<Measured> = Vec::new();
        let mut std_map: Vec<Measured> = Vec::new();
        for repeat in 0..REPEATS {
            for engine in alternating(2, repeat) {
                if engine == 0 {
                    let (measured, _) = measure(1, duration, |rng| {
                        let i = pick.index(rng, n);
                        let mut value = Vec::with_capacity(8);
                        Ok(tree.get_into(&keys[i], &mut value)?
                            && value[..] == (i as u64).to_le_bytes())
                    })?;
                    folio.push(measured);
                } else {
                    let (measured, _) = measure(1, duration, |rng| {
                        let i = pick.index(rng, n);
                        let mut value = Vec::with_capacity(8);
                        if let Some(v) = map.get(&keys[i]) {
                            value.extend_from_slice(v);
                        }
                        Ok(value[..] == (i as u64).to_le_bytes())
                    })?;
                    std_map.push(measured);
                }
            }
            progress.step(pick.name());
        }
        for (case, samples) in [
            ("lookup-composite", &folio),
            ("lookup-composite-btreemap", &std_map),
        ] {
            let rate = median(samples.iter().map(Measured::ops_per_sec).collect());
            rows.push(
                Row::new(workload, case, 1)
                    .with("distribution", pick.name())
                    .with("keys", n as u64)
                    .with("key_bytes", KEY_BYTES as u64)
                    .with("checksums", checksums)
                    .with("ops_per_sec", rate),
            );
        }
    }
    Ok(rows)
}

/// folio / BTreeMap >= [`TARGET`] for each distribution measured.
pub fn checks(workload: &'static str, rows: &[Row]) -> Vec<Check> {
    let find = |case: &str, distribution: &str| {
        rows.iter()
            .enumerate()
            .find(|(_, r)| r.case == case && r.text("distribution") == Some(distribution))
    };
    let mut checks = Vec::new();
    for distribution in ["uniform", "zipf"] {
        if let (Some((i, folio)), Some((j, std_map))) = (
            find("lookup-composite", distribution),
            find("lookup-composite-btreemap", distribution),
        ) {
            let ratio = crate::targets::ops(folio) / crate::targets::ops(std_map);
            checks.push(Check::at_least(
                workload,
                format!("lookup-composite folio / BTreeMap, {distribution}"),
                ratio,
                TARGET,
                vec![i, j],
            ));
        }
    }
    checks
}
