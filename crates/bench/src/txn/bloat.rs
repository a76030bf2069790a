//! `folio bench txn`, case `bloat`: 1M tpcb-like transactions at scale 1
//! (the quick run does 20,000; `--scale` multiplies both the data and the
//! count) on 8 threads, then the pages of the accounts heap and of its primary-key
//! index before and after. Updates that change no indexed column stay on
//! their page (HOT) and pruning frees the versions no snapshot can see,
//! so the heap should not grow. Target: accounts heap <= 1.2 x its
//! initial size (`heap_growth`). Commits are asynchronous here: the case
//! measures space, not commit latency.

use super::schema::Schema;
use super::{fresh_db, remove_dir};
use crate::{BenchConfig, BenchError, Check, Progress, Row};
use folio_db::Durability;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

const THREADS: usize = 8;
/// Target: accounts heap pages after / before.
const TARGET: f64 = 1.2;

pub(super) fn run(
    config: &BenchConfig,
    progress: &dyn Progress,
    workload: &'static str,
) -> Result<Vec<Row>, BenchError> {
    let scale = config.scale.unwrap_or(1.0);
    let transactions = config.scaled(if config.quick { 20_000 } else { 1_000_000 });
    let options = super::db_options(config, 256 << 20);
    progress.phase(&format!("txn bloat: loading scale {scale}"), 1);
    let (db, path) = fresh_db(config, "bench-txn-bloat", options)?;
    let schema = Schema::load(&db, scale)?;
    progress.step("loaded");
    let heap_before = schema.accounts_heap_pages()? as f64;
    let index_before = schema.accounts_index_pages()? as f64;
    progress.phase(
        &format!("txn bloat: {transactions} tpcb transactions"),
        transactions.div_ceil(10_000),
    );
    let next = AtomicU64::new(0);
    let failure = Mutex::new(None);
    let start = Instant::now();
    std::thread::scope(|scope| {
        for thread in 0..THREADS {
            let (db, schema, next, failure) = (&db, &schema, &next, &failure);
            scope.spawn(move || {
                let mut rng = ChaCha8Rng::seed_from_u64(7000 + thread as u64);
                loop {
                    let n = next.fetch_add(1, Ordering::Relaxed);
                    if n >= transactions {
                        return;
                    }
                    if let Err(e) = schema.tpcb_with(db, &mut rng, Durability::Async) {
                        failure.lock().expect("failure lock").get_or_insert(e);
                        next.store(transactions, Ordering::Relaxed);
                        return;
                    }
                    if (n + 1) % 10_000 == 0 {
                        progress.step(&format!("{} transactions", n + 1));
                    }
                }
            });
        }
    });
    if let Some(e) = failure.into_inner().expect("failure lock") {
        return Err(e.into());
    }
    let elapsed = start.elapsed();
    db.wal().flush_all()?;
    schema.check_balances(&db)?;
    let heap_after = schema.accounts_heap_pages()? as f64;
    let index_after = schema.accounts_index_pages()? as f64;
    let row = Row::new(workload, "bloat", THREADS)
        .with("scale", scale)
        .with("transactions", transactions)
        .with("ops_per_sec", transactions as f64 / elapsed.as_secs_f64())
        .with("heap_pages_before", heap_before)
        .with("heap_pages_after", heap_after)
        .with("index_pages_before", index_before)
        .with("index_pages_after", index_after)
        .with("heap_growth", heap_after / heap_before.max(1.0));
    drop(schema);
    db.close()?;
    remove_dir(&path)?;
    Ok(vec![row])
}

/// `heap_growth` <= [`TARGET`].
pub(super) fn checks(workload: &'static str, rows: &[Row]) -> Vec<Check> {
    rows.iter()
        .enumerate()
        .filter(|(_, r)| r.case == "bloat")
        .map(|(index, row)| {
            Check::at_most(
                workload,
                "bloat: accounts heap pages after / before".into(),
                row.number("heap_growth").unwrap_or(f64::NAN),
                TARGET,
                vec![index],
            )
        })
        .collect()
}
