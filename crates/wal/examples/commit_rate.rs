//! Durable commit rate on real files, 1/2/8/32 threads: each operation
//! inserts one small record and commits it (group commit). Prints commits/s
//! and commits per fsync. Usage: `cargo run --release -p folio-wal --example
//! commit_rate [dir] [seconds_per_case]` (dir defaults to a temp dir).
//! A measurement aid; the project's benchmark command lives in folio-bench.

use folio_io::{Dir, FsDir};
use folio_wal::{RecordBuilder, RmgrId, Wal, WalConfig};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let tmp = tempfile::tempdir()?;
    let base = args
        .get(1)
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| tmp.path().into());
    let secs: f64 = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(2.0);
    println!(
        "{:>7} {:>12} {:>16}",
        "threads", "commits/s", "commits/fsync"
    );
    for threads in [1u64, 2, 8, 32] {
        let path = base.join(format!("commit-{threads}"));
        let _ = std::fs::remove_dir_all(&path);
        let dir: Arc<dyn Dir> = Arc::new(FsDir::open(&path)?);
        let wal = Arc::new(Wal::open(dir, WalConfig::default())?);
        let stop = Arc::new(AtomicBool::new(false));
        let commits = Arc::new(AtomicU64::new(0));
        let fsyncs_before = wal.stats().fsyncs;
        let started = Instant::now();
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                let (wal, stop, commits) = (wal.clone(), stop.clone(), commits.clone());
                std::thread::spawn(move || {
                    let value = [t as u8; 100];
                    while !stop.load(Ordering::Relaxed) {
                        let mut b = RecordBuilder::new(RmgrId(1), 0);
                        b.register_data(&value).expect("small record");
                        let at = wal.insert(&b).expect("insert");
                        wal.commit(at.end_lsn).expect("commit");
                        commits.fetch_add(1, Ordering::Relaxed);
                    }
                })
            })
            .collect();
        std::thread::sleep(Duration::from_secs_f64(secs));
        stop.store(true, Ordering::Relaxed);
        for h in handles {
            h.join().map_err(|_| "worker panicked")?;
        }
        let elapsed = started.elapsed().as_secs_f64();
        let n = commits.load(Ordering::Relaxed);
        let fsyncs = wal.stats().fsyncs - fsyncs_before;
        println!(
            "{threads:>7} {:>12.0} {:>16.2}",
            n as f64 / elapsed,
            n as f64 / fsyncs.max(1) as f64
        );
        drop(wal);
        let _ = std::fs::remove_dir_all(&path);
    }
    Ok(())
}
