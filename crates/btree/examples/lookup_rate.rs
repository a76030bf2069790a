//! Single-threaded point-lookup rate of a cached tree against
//! `std::collections::BTreeMap` on the same keys, for profiling the lookup
//! path (`perf record`, `valgrind --tool=callgrind`). The benchmark of
//! record is `folio bench btree`.
//!
//! `cargo run --release -p folio-btree --example lookup_rate [KEYS] [LOOKUPS]`

use folio_btree::Tree;
use folio_buffer::{BufferPool, PoolConfig};
use folio_io::{Dir, FsDir, OpenOptions};
use rand::rngs::SmallRng;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use std::collections::BTreeMap;
use std::time::Instant;

fn main() {
    let mut args = std::env::args().skip(1);
    let keys: u64 = args.next().map_or(1_000_000, |a| a.parse().expect("KEYS"));
    let lookups: u64 = args
        .next()
        .map_or(2_000_000, |a| a.parse().expect("LOOKUPS"));
    let tmp = tempfile::tempdir().expect("tempdir");
    let dir = FsDir::open(tmp.path()).expect("dir");
    let file = dir
        .open("lookup.db", OpenOptions::CREATE_NEW)
        .expect("file");
    let config = PoolConfig {
        pool_size_bytes: 1 << 30,
        ..PoolConfig::default()
    };
    let pool = BufferPool::create(file, config).expect("pool");
    let tree = Tree::create(pool).expect("tree");
    let mut map = BTreeMap::new();
    let mut order: Vec<u64> = (0..keys).collect();
    order.shuffle(&mut SmallRng::seed_from_u64(1));
    let mut value = [0u8; 100];
    for &k in &order {
        value[..8].copy_from_slice(&k.to_le_bytes());
        tree.insert(&k.to_be_bytes(), &value).expect("insert");
        map.insert(k.to_be_bytes(), value);
    }
    let mut out = Vec::with_capacity(100);
    let mut rng = SmallRng::seed_from_u64(2);
    let start = Instant::now();
    for _ in 0..lookups {
        let k: u64 = rng.gen_range(0..keys);
        assert!(tree.get_into(&k.to_be_bytes(), &mut out).expect("get"));
    }
    let folio = lookups as f64 / start.elapsed().as_secs_f64();
    let mut rng = SmallRng::seed_from_u64(2);
    let start = Instant::now();
    for _ in 0..lookups {
        let k: u64 = rng.gen_range(0..keys);
        out.clear();
        out.extend_from_slice(map.get(&k.to_be_bytes()).expect("present"));
    }
    let std_map = lookups as f64 / start.elapsed().as_secs_f64();
    println!(
        "folio {folio:.0} lookups/s, BTreeMap {std_map:.0} lookups/s, ratio {:.3}",
        folio / std_map
    );
}
