//! Insert throughput of a logged tree against an unlogged one, side by side
//! in one run (single thread, data cached, no commits: the cost of building
//! and inserting the records only).
//!
//! `cargo run --release -p folio-btree --example wal_insert_rate [keys]`

use folio_btree::Tree;
use folio_buffer::{BufferPool, PoolConfig};
use folio_io::{Dir, FsDir, OpenOptions};
use folio_wal::{Recycle, Wal, WalConfig};
use rand::{SeedableRng, seq::SliceRandom};
use std::sync::Arc;
use std::time::Instant;

struct Run {
    name: &'static str,
    inserts_per_sec: f64,
    wal_bytes_per_insert: f64,
    records: u64,
}

fn run(name: &'static str, keys: &[u64], logged: bool, checkpoint_every: Option<usize>) -> Run {
    let tmp = tempfile::tempdir().expect("temporary directory");
    let dir: Arc<dyn Dir> = Arc::new(FsDir::open(tmp.path()).expect("directory"));
    let file = dir.open("db", OpenOptions::CREATE_NEW).expect("data file");
    let config = PoolConfig {
        pool_size_bytes: 1 << 30,
        max_database_bytes: 4 << 30,
        ..PoolConfig::default()
    };
    let pool = BufferPool::create(file, config).expect("pool");
    let wal_config = WalConfig {
        recycle: Recycle::Off,
        init_zero: false,
        max_wal_size_bytes: 64 << 30,
        ..WalConfig::default()
    };
    let wal = Arc::new(Wal::open(dir.clone(), wal_config).expect("wal"));
    let tree = Tree::create_logged(pool.clone(), logged.then(|| wal.clone())).expect("tree");
    let value = [7u8; 100];
    let start = Instant::now();
    for (i, &k) in keys.iter().enumerate() {
        if checkpoint_every.is_some_and(|every| i % every == 0) {
            wal.set_redo_lsn(wal.insert_lsn());
        }
        tree.insert(&k.to_be_bytes(), &value).expect("insert");
    }
    let secs = start.elapsed().as_secs_f64();
    let stats = wal.stats();
    Run {
        name,
        inserts_per_sec: keys.len() as f64 / secs,
        wal_bytes_per_insert: stats.bytes as f64 / keys.len() as f64,
        records: stats.records,
    }
}

fn main() {
    let n: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(500_000);
    let mut keys: Vec<u64> = (0..n as u64).collect();
    keys.shuffle(&mut rand_chacha::ChaCha8Rng::seed_from_u64(1));
    let runs = [
        run("unlogged", &keys, false, None),
        run("logged", &keys, true, None),
        run("logged, redo point every 50k", &keys, true, Some(50_000)),
    ];
    let base = runs[0].inserts_per_sec;
    println!("{n} random 8-byte keys, 100-byte values, one thread");
    println!(
        "{:<30} {:>12} {:>8} {:>12} {:>10}",
        "tree", "inserts/s", "ratio", "WAL B/insert", "records"
    );
    for r in &runs {
        println!(
            "{:<30} {:>12.0} {:>8.2} {:>12.1} {:>10}",
            r.name,
            r.inserts_per_sec,
            r.inserts_per_sec / base,
            r.wal_bytes_per_insert,
            r.records
        );
    }
}
