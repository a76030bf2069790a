//! `folio bench txn`, case `tpcb-sqlite`: the same tpcb-like transaction on
//! SQLite (its bundled build, through rusqlite), in the same run as
//! folio's, on the same scale: tables with integer primary keys,
//! `journal_mode = WAL`, `synchronous = FULL` (durable commits, as folio's),
//! a 256 MiB page cache, one connection per thread, `BEGIN IMMEDIATE`
//! (SQLite has one writer at a time; a deferred transaction that upgrades
//! would fail with SQLITE_BUSY instead of waiting) and a 10 s busy timeout.
//! The statements are pgbench's script. After the runs, pgbench's balance
//! rule must hold here too. Target (DESIGN §4): folio >= 3 x SQLite at 8
//! threads.

use crate::BenchError;
use crate::harness::{Measured, StopFlag};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rusqlite::{Connection, TransactionBehavior, params};
use std::path::Path;
use std::time::Duration;

/// Opens a connection with the benchmark's settings.
fn connect(path: &Path) -> Result<Connection, BenchError> {
    let c = Connection::open(path)?;
    c.busy_timeout(Duration::from_secs(10))?;
    c.execute_batch(
        "PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL; PRAGMA cache_size = -262144;",
    )?;
    Ok(c)
}

/// pgbench's schema at `scale` in a new database at `path`.
pub(super) fn load(path: &Path, scale: f64) -> Result<SqliteTpcb, BenchError> {
    let count = |per_unit: f64| ((scale * per_unit).round() as u64).max(1);
    let (branches, tellers, accounts) = (count(1.0), count(10.0), count(100_000.0));
    let mut c = connect(path)?;
    c.execute_batch(
        "CREATE TABLE branches (bid INTEGER PRIMARY KEY, bbalance INTEGER, filler CHAR(88));
         CREATE TABLE tellers (tid INTEGER PRIMARY KEY, bid INTEGER, tbalance INTEGER, filler CHAR(84));
         CREATE TABLE accounts (aid INTEGER PRIMARY KEY, bid INTEGER, abalance INTEGER, filler CHAR(84));
         CREATE TABLE history (tid INTEGER, bid INTEGER, aid INTEGER, delta INTEGER, mtime INTEGER, filler CHAR(22));",
    )?;
    let t = c.transaction()?;
    let per_branch = |n: u64| n.div_ceil(branches);
    for bid in 0..branches {
        t.execute(
            "INSERT INTO branches VALUES (?1, 0, '')",
            params![bid as i64],
        )?;
    }
    for tid in 0..tellers {
        t.execute(
            "INSERT INTO tellers VALUES (?1, ?2, 0, '')",
            params![tid as i64, (tid / per_branch(tellers)) as i64],
        )?;
    }
    {
        let mut insert = t.prepare("INSERT INTO accounts VALUES (?1, ?2, 0, ?3)")?;
        let filler = " ".repeat(84);
        for aid in 0..accounts {
            insert.execute(params![
                aid as i64,
                (aid / per_branch(accounts)) as i64,
                filler
            ])?;
        }
    }
    t.commit()?;
    Ok(SqliteTpcb {
        path: path.to_path_buf(),
        branches,
        tellers,
        accounts,
    })
}

/// A loaded SQLite database of pgbench's schema.
#[derive(Debug)]
pub(super) struct SqliteTpcb {
    path: std::path::PathBuf,
    branches: u64,
    tellers: u64,
    accounts: u64,
}

impl SqliteTpcb {
    /// Runs the tpcb-like transaction on `threads` connections for
    /// `duration`; the first error fails the benchmark.
    pub(super) fn measure(
        &self,
        threads: usize,
        duration: Duration,
    ) -> Result<Measured, BenchError> {
        super::measure(threads, duration, |index, stop| self.run(index, stop))
    }

    fn run(&self, index: usize, stop: &StopFlag) -> Result<u64, BenchError> {
        let mut c = connect(&self.path)?;
        let mut rng = ChaCha8Rng::seed_from_u64(index as u64);
        let mut done = 0;
        while !stop.is_set() {
            self.tpcb(&mut c, &mut rng)?;
            done += 1;
        }
        Ok(done)
    }

    /// pgbench's tpcb-like script.
    fn tpcb(&self, c: &mut Connection, rng: &mut ChaCha8Rng) -> Result<(), BenchError> {
        let aid = rng.gen_range(0..self.accounts) as i64;
        let tid = rng.gen_range(0..self.tellers) as i64;
        let bid = rng.gen_range(0..self.branches) as i64;
        let delta: i64 = rng.gen_range(-5000..=5000);
        let t = c.transaction_with_behavior(TransactionBehavior::Immediate)?;
        t.prepare_cached("UPDATE accounts SET abalance = abalance + ?1 WHERE aid = ?2")?
            .execute(params![delta, aid])?;
        let balance: i64 = t
            .prepare_cached("SELECT abalance FROM accounts WHERE aid = ?1")?
            .query_row(params![aid], |r| r.get(0))?;
        std::hint::black_box(balance);
        t.prepare_cached("UPDATE tellers SET tbalance = tbalance + ?1 WHERE tid = ?2")?
            .execute(params![delta, tid])?;
        t.prepare_cached("UPDATE branches SET bbalance = bbalance + ?1 WHERE bid = ?2")?
            .execute(params![delta, bid])?;
        t.prepare_cached("INSERT INTO history VALUES (?1, ?2, ?3, ?4, 0, '')")?
            .execute(params![tid, bid, aid, delta])?;
        t.commit()?;
        Ok(())
    }

    /// pgbench's balance rule: accounts, tellers, branches and history
    /// deltas sum alike.
    pub(super) fn check_balances(&self) -> Result<(), BenchError> {
        let c = connect(&self.path)?;
        let sum = |sql: &str| -> Result<i64, BenchError> {
            Ok(c.query_row(sql, [], |r| r.get::<_, Option<i64>>(0))?
                .unwrap_or(0))
        };
        let sums = [
            sum("SELECT sum(abalance) FROM accounts")?,
            sum("SELECT sum(tbalance) FROM tellers")?,
            sum("SELECT sum(bbalance) FROM branches")?,
            sum("SELECT sum(delta) FROM history")?,
        ];
        if sums.iter().any(|&s| s != sums[0]) {
            return Err(BenchError::Failed(format!(
                "SQLite tpcb balances disagree: {sums:?}"
            )));
        }
        Ok(())
    }
}
