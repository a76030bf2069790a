//! `folio bench txn`, case `index-probe`: seed 000's query through a
//! table's index. pgbench's schema at scale 1 plus a non-unique index on
//! the accounts' branch id (`create index on pgbench_accounts (bid)`), and
//! `select count(*) from pgbench_accounts where bid = 0` as a read-only
//! transaction: a probe of the index for a branch id no row has (pgbench's
//! branch ids start at 1; here at 0, so the probe asks for one past the
//! last), which finds nothing. 1-128 threads, checksums on and off, in
//! alternated back-to-back pairs. Targets (as the bare tree's probe in
//! `folio bench btree`): on/off >= 0.99 at every thread count, 0 RMW on
//! page state words per probe, 128 threads >= 0.95 x 2 threads.

use super::schema::{self, Schema};
use super::{fresh_db, measure, remove_dir};
use crate::harness::{Measured, PAIRED_REPEATS, alternating, median_sample, paired_ratio_of};
use crate::targets::on_off;
use crate::{BenchConfig, BenchError, Progress, Row};
use folio_buffer::PoolStats;
use folio_db::{Database, DbError, Durability, Index, Isolation, Options};
use std::time::Duration;

/// One setting's database, its schema and the index on bid.
struct Setup {
    checksums: bool,
    db: Database,
    schema: Schema,
    bid_index: Index,
    path: std::path::PathBuf,
}

/// Loads scale 1 and builds the index on the accounts' branch ids.
fn setup(config: &BenchConfig, checksums: bool) -> Result<Setup, BenchError> {
    let options = Options {
        pool_size_bytes: 128 << 20,
        checksums,
        ..Options::default()
    };
    let name = format!("bench-txn-probe-checksums-{}", on_off(checksums));
    let (db, path) = fresh_db(config, &name, options)?;
    let schema = Schema::load(&db, config.scale.unwrap_or(1.0))?;
    let bid_index = db.create_index("accounts_bid", false)?;
    let accounts = &schema.accounts.table;
    let mut txn = db.begin(Isolation::ReadCommitted, Durability::Async)?;
    for (tid, row) in accounts.scan(&txn).map_err(DbError::from)? {
        let bid = schema::parent(&row);
        bid_index
            .insert(&mut txn, accounts, &schema::key(bid), tid)
            .map_err(DbError::from)?;
    }
    txn.commit().map_err(DbError::from)?;
    db.checkpoint()?;
    Ok(Setup {
        checksums,
        db,
        schema,
        bid_index,
        path,
    })
}

/// The probe, as a read-only transaction; a row found is a wrong answer.
fn probe(setup: &Setup, missing_bid: u64) -> Result<(), DbError> {
    let txn = setup.db.begin(Isolation::ReadCommitted, Durability::Sync)?;
    let found = setup.bid_index.get(
        &txn,
        &setup.schema.accounts.table,
        &schema::key(missing_bid),
    )?;
    txn.commit()?;
    if !found.is_empty() {
        return Err(DbError::Damaged {
            path: "bench".into(),
            detail: format!("{} rows with bid {missing_bid}", found.len()),
        });
    }
    Ok(())
}

type Sample = (Measured, PoolStats, PoolStats);

pub(super) fn run(
    config: &BenchConfig,
    progress: &dyn Progress,
    workload: &'static str,
) -> Result<Vec<Row>, BenchError> {
    let threads = config.threads_or(&[1, 2, 8, 32, 128]);
    let settings = config.checksum_settings();
    let duration = config.duration_or(Duration::from_millis(150), Duration::from_millis(1000));
    progress.phase("txn index-probe: loading", settings.len() as u64);
    let mut setups = Vec::new();
    for &checksums in &settings {
        setups.push(setup(config, checksums)?);
        progress.step(&format!("checksums {}", on_off(checksums)));
    }
    progress.phase(
        "txn index-probe",
        (threads.len() * setups.len() * PAIRED_REPEATS) as u64,
    );
    let mut rows = Vec::new();
    for &thread_count in &threads {
        let mut samples: Vec<Vec<Sample>> = vec![Vec::new(); setups.len()];
        for repeat in 0..PAIRED_REPEATS {
            for index in alternating(setups.len(), repeat) {
                let setup = &setups[index];
                let missing_bid = setup.schema.branches_count();
                let before = setup.db.pool().stats();
                let measured = measure(thread_count, duration, |_, stop| {
                    let mut done = 0;
                    while !stop.is_set() {
                        probe(setup, missing_bid)?;
                        done += 1;
                    }
                    Ok(done)
                })?;
                samples[index].push((measured, before, setup.db.pool().stats()));
                progress.step(&format!(
                    "{thread_count} threads, checksums {}",
                    on_off(setup.checksums)
                ));
            }
        }
        for (index, setup) in setups.iter().enumerate() {
            let rate = |s: &Sample| s.0.ops_per_sec();
            let (measured, before, after) = *median_sample(&samples[index], rate);
            let ops = measured.ops.max(1) as f64;
            let rmw = (after.state_rmw - before.state_rmw) as f64 / ops;
            let mut row = Row::new(workload, "index-probe", thread_count)
                .with("scale", config.scale.unwrap_or(1.0))
                .with("checksums", setup.checksums)
                .with("ops_per_sec", measured.ops_per_sec())
                .with("shared_rmw_per_op", rmw)
                .with("state_rmw_per_op", rmw)
                .with("misses_per_op", (after.misses - before.misses) as f64 / ops);
            if setup.checksums && samples.len() == 2 {
                row = row.with(
                    "on_off_paired",
                    paired_ratio_of(&samples[index], &samples[1 - index], rate),
                );
            }
            rows.push(row);
        }
    }
    for setup in setups {
        drop(setup.schema);
        drop(setup.bid_index);
        setup.db.close()?;
        remove_dir(&setup.path)?;
    }
    Ok(rows)
}
