//! Replay rate of cached WAL (`case = "replay-cached"`): 100-row
//! transactions into a tree with two secondary (non-unique) trees on the
//! simulated device (all in memory), a crash, then `folio_recovery::recover`
//! timed alone with 1 and 2 apply threads, prefetch off and on (prefetch
//! costs only its bookkeeping here: every page is in memory).
//!
//! `cargo run --release -p folio-db --example replay_rate [transactions]`;
//! `REPLAY_THREADS=n` runs only that thread count (for profiling), with
//! `REPLAY_IO=n` as its io concurrency (default 0); `REPLAY_RUNS=n` replays
//! n times (default 3) and reports the best; `REPLAY_PIN=0` leaves thread
//! placement to the scheduler. Replay runs on a thread named `replay`.

use folio_db::{Database, Options, Storage, redo_registry};
use folio_io::{Dir, OpenOptions, SimConfig, SimDir};
use folio_recovery::{ControlData, RecoveryOptions, recover};
use std::sync::Arc;
use std::time::Duration;

fn build(transactions: u64) -> Arc<SimDir> {
    let dir = SimDir::new(SimConfig::seeded(1));
    let options = Options {
        pool_size_bytes: 1 << 30,
        checkpoint_interval: Duration::from_secs(3600),
        checkpoint_wal_bytes: 1 << 40,
        background_io: false,
        ..Options::default()
    };
    let db = Database::create_in(Storage::single(dir.clone()), options).expect("create");
    let primary = db.create_tree("rows").expect("tree");
    let by_a = db.create_multi_tree("by_a").expect("tree");
    let by_b = db.create_multi_tree("by_b").expect("tree");
    db.commit().expect("commit");
    let value = [7u8; 100];
    for t in 0..transactions {
        for r in 0..100u64 {
            let id = t * 100 + r;
            primary.insert(&id.to_be_bytes(), &value).expect("insert");
            by_a.insert(&(id % 1000).to_be_bytes(), id, b"")
                .expect("insert");
            by_b.insert(&(id.wrapping_mul(2654435761) % 5000).to_be_bytes(), id, b"")
                .expect("insert");
        }
        db.commit().expect("commit");
    }
    let after = dir.crash();
    drop((primary, by_a, by_b, db));
    after
}

fn main() {
    let transactions: u64 = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(1000);
    {
        let dir = build(transactions);
        let control = ControlData::load(dir.as_ref()).expect("control");
        let started = std::time::Instant::now();
        let mut reader =
            folio_wal::WalReader::open(dir.clone(), folio_wal::ReaderOptions::default())
                .expect("reader");
        reader.seek(control.redo_lsn).expect("seek");
        let mut records = 0u64;
        while reader.next_record().expect("read").is_some() {
            records += 1;
        }
        let secs = started.elapsed().as_secs_f64();
        println!(
            "decode only (the reading thread's share): {records} records, {:.0} records/s",
            records as f64 / secs
        );
    }
    println!("| apply threads | io concurrency | records | records/s | MB/s |");
    println!("|---:|---:|---:|---:|---:|");
    let configs: Vec<(usize, usize)> = match std::env::var("REPLAY_THREADS") {
        Ok(t) => vec![(
            t.parse().expect("REPLAY_THREADS"),
            std::env::var("REPLAY_IO").map_or(0, |io| io.parse().expect("REPLAY_IO")),
        )],
        Err(_) => vec![(1, 0), (2, 0), (1, 16), (2, 16)],
    };
    // Best of several runs: the machine is shared, single runs are noisy.
    let runs: usize = std::env::var("REPLAY_RUNS").map_or(3, |r| r.parse().expect("REPLAY_RUNS"));
    for (threads, io) in configs {
        // Each run replays the same WAL into a fresh copy of the crashed
        // data file, and drops its pool (as `folio bench recovery` does):
        // its memory is reused by the next run's pool.
        let dir = build(transactions);
        let control = ControlData::load(dir.as_ref()).expect("control");
        let data_image = dir.read_durable(folio_db::DATA_FILE).expect("data");
        let mut best: Option<folio_recovery::RecoveryStats> = None;
        for run in 0..runs {
            let scratch = SimDir::new(SimConfig::seeded(run as u64 + 2));
            let file = scratch
                .open(folio_db::DATA_FILE, OpenOptions::CREATE_NEW)
                .expect("data");
            file.write_at(&data_image, 0).expect("copy");
            file.sync().expect("copy");
            let pool = folio_buffer::BufferPool::open_for_recovery(
                file,
                folio_buffer::PoolConfig {
                    pool_size_bytes: 1 << 30,
                    ..folio_buffer::PoolConfig::default()
                },
                control.checksums,
            )
            .expect("pool");
            let pin_threads = std::env::var("REPLAY_PIN").as_deref() != Ok("0");
            // On a thread of its own, named, so that a profile can tell
            // replay from building the WAL (`perf report --comm replay`).
            let stats = std::thread::scope(|scope| {
                std::thread::Builder::new()
                    .name("replay".into())
                    .spawn_scoped(scope, || {
                        recover(
                            &pool,
                            dir.clone(),
                            control.redo_lsn,
                            &redo_registry(),
                            &RecoveryOptions {
                                io_concurrency: io,
                                threads,
                                pin_threads,
                                ..RecoveryOptions::default()
                            },
                        )
                        .expect("recover")
                    })
                    .expect("spawn")
                    .join()
                    .expect("replay thread")
            });
            drop(pool);
            if best.as_ref().is_none_or(|b| b.elapsed > stats.elapsed) {
                best = Some(stats);
            }
        }
        let stats = best.expect("three runs");
        println!(
            "| {threads} | {io} | {} | {:.0} | {:.1} |",
            stats.records,
            stats.records_per_sec(),
            stats.mb_per_sec()
        );
    }
}
