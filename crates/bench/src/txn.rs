//! `folio bench txn`: transactions over heap tables in-process (DESIGN §4,
//! "tpcb transactions in-process" and "read-only transaction, one key").
//!
//! - `tpcb`: pgbench's TPC-B-like transaction on four heap tables with
//!   unique indexes on their ids (branches, tellers, accounts at 1, 10 and
//!   100,000 rows per scale unit; history): update an account's balance,
//!   read it, update a teller's and a branch's, insert a history row,
//!   commit synchronously (READ COMMITTED, as pgbench runs). Updates are
//!   HOT (no indexed column changes) and prune their pages as they go.
//!   Target: 8 threads / 1 thread >= 4 (group commit shares the fsyncs;
//!   at scale 1 every transaction updates the one branch row, so they
//!   also queue on its row lock as in PostgreSQL).
//! - `read-only`: a transaction that looks one account up by its index
//!   and commits, at 2 and 128 threads. It writes nothing shared: the
//!   rows report page-state RMWs per transaction (target 0) and the
//!   128 / 2 thread throughput ratio (target >= 0.95). Each transaction
//!   also claims a snapshot slot (one CAS on a line its thread owns in
//!   practice: folio-txn `slots.rs`); that one is by construction, not counted
//!   here, since a shared counter of it would itself be a shared write.
//!
//! After the run, the balances of accounts, tellers and branches must each
//! sum to the history's deltas (pgbench's consistency rule); a lost or
//! doubled update fails the benchmark.
//!
//! Real files in the configured data directory: fsync is part of the cost.

use crate::harness::{Measured, run_for};
use crate::{BenchConfig, BenchError, Check, Progress, Row, Workload};
use folio_db::{Database, DbError, Durability, Index, Isolation, Options, Table, Write};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::sync::Mutex;
use std::time::Duration;

const NAME: &str = "txn";
/// Bytes per row, about pgbench's (ids, balance, filler).
const ROW_BYTES: usize = 100;
/// Rows per load transaction.
const LOAD_BATCH: u64 = 10_000;

/// The transaction workload.
#[derive(Debug)]
pub struct TxnWorkload;

/// One pgbench-like table: the heap and its unique index on the id.
struct BenchTable {
    table: Table,
    index: Index,
}

/// The four tables of pgbench's schema, loaded (`Schema::load`), on which
/// `Schema::tpcb` runs one transaction (also used by `peers/examples/tpcb.rs`
/// to run the same transactions beside SQLite's).
pub struct Schema {
    accounts: BenchTable,
    tellers: BenchTable,
    branches: BenchTable,
    history: Table,
    branches_count: u64,
    tellers_count: u64,
    accounts_count: u64,
}

fn key(id: u64) -> [u8; 8] {
    id.to_be_bytes()
}

/// A row: id, parent id, balance, filler.
fn row(id: u64, parent: u64, balance: i64) -> [u8; ROW_BYTES] {
    let mut row = [b' '; ROW_BYTES];
    row[..8].copy_from_slice(&id.to_le_bytes());
    row[8..16].copy_from_slice(&parent.to_le_bytes());
    row[16..24].copy_from_slice(&balance.to_le_bytes());
    row
}

fn balance(row: &[u8]) -> i64 {
    i64::from_le_bytes(row[16..24].try_into().expect("a bench row"))
}

impl Workload for TxnWorkload {
    fn name(&self) -> &'static str {
        NAME
    }

    fn about(&self) -> &'static str {
        "transactions on heap tables: pgbench tpcb-like in-process at 1/8 threads; read-only one-key transactions at 2/128 threads"
    }

    fn run(&self, config: &BenchConfig, progress: &dyn Progress) -> Result<Vec<Row>, BenchError> {
        // pgbench's scale: 1 branch, 10 tellers, 100,000 accounts per unit
        // (fractions allowed, for tiny test runs).
        let scale = config.scale.unwrap_or(1.0) * if config.quick { 1.0 } else { 10.0 };
        let duration = config.duration_or(Duration::from_secs(1), Duration::from_secs(5));
        let path = config.data_dir.join("bench-txn");
        if path.exists() {
            std::fs::remove_dir_all(&path).map_err(|source| BenchError::Io {
                what: path.display().to_string(),
                source,
            })?;
        }
        let options = Options {
            pool_size_bytes: config.pool_size_bytes.unwrap_or(512 << 20),
            checksums: config.checksums.unwrap_or(true),
            ..Options::default()
        };
        progress.phase(&format!("txn: loading scale {scale}"), 1);
        let db = Database::create(&path, options)?;
        let schema = load(&db, scale)?;
        db.checkpoint()?;
        progress.step(&format!("{} accounts loaded", schema.accounts_count));
        let tpcb_threads = config.threads_or(&[1, 8]);
        let read_threads = config.threads_or(&[2, 128]);
        progress.phase("txn", (tpcb_threads.len() + read_threads.len()) as u64);
        let mut rows = Vec::new();
        for &threads in &tpcb_threads {
            let wal_before = db.wal().stats();
            let measured = measure(threads, duration, |index, stop| {
                let mut rng = ChaCha8Rng::seed_from_u64(index as u64);
                let mut done = 0;
                while !stop.is_set() {
                    tpcb(&db, &schema, &mut rng)?;
                    done += 1;
                }
                Ok(done)
            })?;
            let wal_after = db.wal().stats();
            let fsyncs = wal_after.fsyncs - wal_before.fsyncs;
            rows.push(
                Row::new(NAME, "tpcb", threads)
                    .with("scale", scale)
                    .with("ops_per_sec", measured.ops_per_sec())
                    .with("txns_per_fsync", measured.ops as f64 / fsyncs.max(1) as f64)
                    .with(
                        "table_pages",
                        schema
                            .accounts
                            .table
                            .page_ids()
                            .map_err(DbError::from)?
                            .len() as f64,
                    ),
            );
            progress.step(&format!("tpcb, {threads} threads"));
        }
        for &threads in &read_threads {
            let before = db.pool().stats();
            let measured = measure(threads, duration, |index, stop| {
                let mut rng = ChaCha8Rng::seed_from_u64(1000 + index as u64);
                let mut done = 0;
                while !stop.is_set() {
                    read_one(&db, &schema, &mut rng)?;
                    done += 1;
                }
                Ok(done)
            })?;
            let after = db.pool().stats();
            let txns = measured.ops.max(1) as f64;
            rows.push(
                Row::new(NAME, "read-only", threads)
                    .with("ops_per_sec", measured.ops_per_sec())
                    .with(
                        "state_rmw_per_txn",
                        (after.state_rmw - before.state_rmw) as f64 / txns,
                    )
                    .with(
                        "misses_per_txn",
                        (after.misses - before.misses) as f64 / txns,
                    )
                    .with("slot_cas_per_txn", 1.0),
            );
            progress.step(&format!("read-only, {threads} threads"));
        }
        check_balances(&db, &schema)?;
        drop(schema);
        db.close()?;
        std::fs::remove_dir_all(&path).map_err(|source| BenchError::Io {
            what: path.display().to_string(),
            source,
        })?;
        Ok(rows)
    }

    fn checks(&self, rows: &[Row]) -> Vec<Check> {
        let find = |case: &str, threads: usize| {
            rows.iter()
                .enumerate()
                .find(|(_, r)| r.case == case && r.threads == threads)
        };
        let mut checks = Vec::new();
        // DESIGN's target is at scale 10 (the quick run's scale 1 has one
        // branch row, which every transaction updates: they queue on it).
        let at_scale = |r: &Row| r.number("scale").is_some_and(|s| s >= 10.0);
        if let (Some((i8, r8)), Some((i1, r1))) = (find("tpcb", 8), find("tpcb", 1))
            && at_scale(r8)
            && at_scale(r1)
        {
            let ratio = crate::targets::ops(r8) / crate::targets::ops(r1);
            checks.push(Check::at_least(
                NAME,
                "tpcb 8 threads / 1 thread".into(),
                ratio,
                4.0,
                vec![i8, i1],
            ));
        }
        if let (Some((ih, rh)), Some((il, rl))) = (find("read-only", 128), find("read-only", 2)) {
            let ratio = crate::targets::ops(rh) / crate::targets::ops(rl);
            checks.push(Check::at_least(
                NAME,
                "read-only txn 128 threads / 2 threads".into(),
                ratio,
                0.95,
                vec![ih, il],
            ));
            let rmw = rh.number("state_rmw_per_txn").unwrap_or(f64::MAX);
            checks.push(Check::at_most(
                NAME,
                "read-only txn page-state RMW per txn, 128 threads".into(),
                rmw,
                0.0,
                vec![ih],
            ));
        }
        checks
    }
}

/// Runs `body` on `threads` threads for `duration`; the first error fails
/// the benchmark (never a number).
fn measure(
    threads: usize,
    duration: Duration,
    body: impl Fn(usize, &crate::harness::StopFlag) -> Result<u64, DbError> + Sync,
) -> Result<Measured, BenchError> {
    let failure = Mutex::new(None);
    let measured = run_for(threads, duration, |index, stop| match body(index, stop) {
        Ok(done) => done,
        Err(e) => {
            failure.lock().expect("failure lock").get_or_insert(e);
            0
        }
    });
    match failure.into_inner().expect("failure lock") {
        Some(e) => Err(e.into()),
        None => Ok(measured),
    }
}

impl Schema {
    /// Creates and fills the schema at `scale` (pgbench -i).
    pub fn load(db: &Database, scale: f64) -> Result<Schema, DbError> {
        load(db, scale)
    }

    /// One tpcb-like transaction (synchronous commit, READ COMMITTED).
    pub fn tpcb(&self, db: &Database, rng: &mut ChaCha8Rng) -> Result<(), DbError> {
        tpcb(db, self, rng)
    }

    /// pgbench's balance check: accounts, tellers, branches and history
    /// sums agree.
    pub fn check_balances(&self, db: &Database) -> Result<(), BenchError> {
        check_balances(db, self)
    }
}

impl std::fmt::Debug for Schema {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Schema")
            .field("accounts", &self.accounts_count)
            .finish_non_exhaustive()
    }
}

/// Creates and fills the schema at `scale` (pgbench -i).
fn load(db: &Database, scale: f64) -> Result<Schema, DbError> {
    let count = |per_unit: f64| ((scale * per_unit).round() as u64).max(1);
    let table = |name: &str| -> Result<BenchTable, DbError> {
        Ok(BenchTable {
            table: db.create_table(name)?,
            index: db.create_index(&format!("{name}_pkey"), true)?,
        })
    };
    let schema = Schema {
        accounts: table("accounts")?,
        tellers: table("tellers")?,
        branches: table("branches")?,
        history: db.create_table("history")?,
        branches_count: count(1.0),
        tellers_count: count(10.0),
        accounts_count: count(100_000.0),
    };
    let fill = |t: &BenchTable, count: u64, per_parent: u64| -> Result<(), DbError> {
        let mut first = 0;
        while first < count {
            let mut txn = db.begin(Isolation::ReadCommitted, Durability::Async)?;
            for id in first..(first + LOAD_BATCH).min(count) {
                let tid = t.table.insert(&mut txn, &row(id, id / per_parent, 0))?;
                t.index.insert(&mut txn, &t.table, &key(id), tid)?;
            }
            txn.commit()?;
            first += LOAD_BATCH;
        }
        Ok(())
    };
    let per_branch = |n: u64| n.div_ceil(schema.branches_count);
    fill(&schema.branches, schema.branches_count, 1)?;
    fill(
        &schema.tellers,
        schema.tellers_count,
        per_branch(schema.tellers_count),
    )?;
    fill(
        &schema.accounts,
        schema.accounts_count,
        per_branch(schema.accounts_count),
    )?;
    db.wal().flush_all()?;
    Ok(schema)
}

/// `UPDATE t SET balance = balance + delta WHERE id = $id`, READ
/// COMMITTED: a version updated meanwhile by a transaction that committed
/// is followed to its newest version and updated there (EvalPlanQual).
/// Returns the new balance.
fn add_to_balance(
    txn: &mut folio_db::Transaction,
    t: &BenchTable,
    id: u64,
    delta: i64,
) -> Result<i64, DbError> {
    let found = t.index.get(txn, &t.table, &key(id))?;
    let Some((mut at, mut current)) = found.into_iter().next() else {
        return Err(DbError::Damaged {
            path: "bench".into(),
            detail: format!("row {id} is missing"),
        });
    };
    loop {
        let new_balance = balance(&current) + delta;
        let new_row = row(
            id,
            u64::from_le_bytes(current[8..16].try_into().expect("8")),
            new_balance,
        );
        match t.table.update(txn, at, &new_row, false)? {
            Write::Hot(_) => return Ok(new_balance),
            Write::Done(Some(new)) => {
                t.index.insert(txn, &t.table, &key(id), new)?;
                return Ok(new_balance);
            }
            Write::Moved(next) => match t.table.newest(txn, next)? {
                Some(newest) => (at, current) = newest,
                None => {
                    return Err(DbError::Damaged {
                        path: "bench".into(),
                        detail: format!("row {id} was deleted"),
                    });
                }
            },
            Write::Gone | Write::Done(None) => {
                return Err(DbError::Damaged {
                    path: "bench".into(),
                    detail: format!("row {id} vanished"),
                });
            }
        }
    }
}

/// One tpcb-like transaction.
fn tpcb(db: &Database, s: &Schema, rng: &mut ChaCha8Rng) -> Result<(), DbError> {
    let aid = rng.gen_range(0..s.accounts_count);
    let tid = rng.gen_range(0..s.tellers_count);
    let bid = rng.gen_range(0..s.branches_count);
    let delta = rng.gen_range(-5000..=5000);
    let mut txn = db.begin(Isolation::ReadCommitted, Durability::Sync)?;
    add_to_balance(&mut txn, &s.accounts, aid, delta)?;
    txn.next_statement();
    let seen = s.accounts.index.get(&txn, &s.accounts.table, &key(aid))?;
    std::hint::black_box(seen.first().map(|(_, r)| balance(r)));
    txn.next_statement();
    add_to_balance(&mut txn, &s.tellers, tid, delta)?;
    txn.next_statement();
    add_to_balance(&mut txn, &s.branches, bid, delta)?;
    txn.next_statement();
    let mut history = row(aid, bid, delta);
    history[24..32].copy_from_slice(&tid.to_le_bytes());
    s.history.insert(&mut txn, &history)?;
    txn.commit()?;
    Ok(())
}

/// One read-only transaction: an account looked up by its index.
fn read_one(db: &Database, s: &Schema, rng: &mut ChaCha8Rng) -> Result<(), DbError> {
    let aid = rng.gen_range(0..s.accounts_count);
    let txn = db.begin(Isolation::ReadCommitted, Durability::Sync)?;
    let found = s.accounts.index.get(&txn, &s.accounts.table, &key(aid))?;
    std::hint::black_box(found.first().map(|(_, r)| balance(r)));
    txn.commit()?;
    Ok(())
}

/// pgbench's consistency rule after the run: the balances of accounts,
/// tellers and branches each sum to the sum of the history's deltas (one
/// REPEATABLE READ snapshot). A lost or doubled update fails the run.
fn check_balances(db: &Database, s: &Schema) -> Result<(), BenchError> {
    let txn = db.begin(Isolation::RepeatableRead, Durability::Sync)?;
    let sum = |t: &Table| -> Result<i64, DbError> {
        Ok(t.scan(&txn)?.iter().map(|(_, row)| balance(row)).sum())
    };
    let sums = [
        sum(&s.accounts.table)?,
        sum(&s.tellers.table)?,
        sum(&s.branches.table)?,
        sum(&s.history)?,
    ];
    txn.commit().map_err(DbError::from)?;
    if sums.iter().any(|&x| x != sums[0]) {
        return Err(BenchError::Failed(format!(
            "tpcb balances disagree: accounts {}, tellers {}, branches {}, history {}",
            sums[0], sums[1], sums[2], sums[3]
        )));
    }
    Ok(())
}
