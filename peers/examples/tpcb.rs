//! pgbench's TPC-B-like transaction in-process, folio beside SQLite, in one
//! run (DESIGN §4: "tpcb transactions in-process, scale 10: 8 threads /
//! 1 thread >= 4x; vs SQLite (WAL, synchronous=FULL) at 8 threads >= 3x").
//!
//! ```text
//! CARGO_TARGET_DIR=target/peers cargo run --release --manifest-path peers/Cargo.toml \
//!     --example tpcb -- [--scale 10] [--seconds 5] [--threads 1,8] [--dir DIR]
//! ```
//!
//! folio runs `folio_bench::txn::Schema::tpcb` (the `folio bench txn`
//! transaction: heap tables, unique indexes, READ COMMITTED, synchronous
//! commit). SQLite runs the same statements as pgbench's script on tables
//! with integer primary keys, `journal_mode = WAL`, `synchronous = FULL`,
//! one connection per thread, `BEGIN IMMEDIATE` (SQLite has one writer at a
//! time; a deferred transaction that upgrades would fail with SQLITE_BUSY
//! instead of waiting) and a 10 s busy timeout. Both load the same scale
//! (1 branch, 10 tellers, 100,000 accounts per unit), both check pgbench's
//! balance rule after the run, and the thread counts alternate between the
//! engines.

use anyhow::{Context, Result, bail};
use folio_bench::txn::Schema;
use folio_db::{Database, Options};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rusqlite::{Connection, params};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

struct Args {
    scale: u64,
    seconds: u64,
    threads: Vec<usize>,
    dir: PathBuf,
}

fn parse() -> Result<Args> {
    let mut args = Args {
        scale: 10,
        seconds: 5,
        threads: vec![1, 8],
        dir: std::env::temp_dir().join("folio-peers-tpcb"),
    };
    let mut it = std::env::args().skip(1);
    while let Some(a) = it.next() {
        let mut v = || it.next().context("a value is missing");
        match a.as_str() {
            "--scale" => args.scale = v()?.parse()?,
            "--seconds" => args.seconds = v()?.parse()?,
            "--threads" => {
                args.threads = v()?
                    .split(',')
                    .map(|t| t.parse())
                    .collect::<Result<_, _>>()?
            }
            "--dir" => args.dir = PathBuf::from(v()?),
            other => bail!("unknown argument {other}"),
        }
    }
    Ok(args)
}

/// Runs `body` on `threads` threads for `duration`; returns transactions per second.
fn timed(
    threads: usize,
    duration: Duration,
    body: impl Fn(usize, &AtomicBool) -> Result<u64> + Sync,
) -> Result<f64> {
    let stop = AtomicBool::new(false);
    let done = AtomicU64::new(0);
    let start = Instant::now();
    std::thread::scope(|s| -> Result<()> {
        let handles: Vec<_> = (0..threads)
            .map(|i| {
                let (body, stop, done) = (&body, &stop, &done);
                s.spawn(move || -> Result<()> {
                    done.fetch_add(body(i, stop)?, Ordering::Relaxed);
                    Ok(())
                })
            })
            .collect();
        std::thread::sleep(duration);
        stop.store(true, Ordering::Relaxed);
        for h in handles {
            h.join().expect("thread")?;
        }
        Ok(())
    })?;
    Ok(done.load(Ordering::Relaxed) as f64 / start.elapsed().as_secs_f64())
}

fn sqlite_connect(path: &Path) -> Result<Connection> {
    let c = Connection::open(path)?;
    c.busy_timeout(Duration::from_secs(10))?;
    c.execute_batch(
        "PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL; PRAGMA cache_size = -262144;",
    )?;
    Ok(c)
}

fn sqlite_load(path: &Path, scale: u64) -> Result<()> {
    let mut c = sqlite_connect(path)?;
    c.execute_batch(
        "CREATE TABLE branches (bid INTEGER PRIMARY KEY, bbalance INTEGER, filler CHAR(88));
         CREATE TABLE tellers (tid INTEGER PRIMARY KEY, bid INTEGER, tbalance INTEGER, filler CHAR(84));
         CREATE TABLE accounts (aid INTEGER PRIMARY KEY, bid INTEGER, abalance INTEGER, filler CHAR(84));
         CREATE TABLE history (tid INTEGER, bid INTEGER, aid INTEGER, delta INTEGER, mtime INTEGER, filler CHAR(22));",
    )?;
    let t = c.transaction()?;
    for bid in 0..scale {
        t.execute(
            "INSERT INTO branches VALUES (?1, 0, '')",
            params![bid as i64],
        )?;
    }
    for tid in 0..scale * 10 {
        t.execute(
            "INSERT INTO tellers VALUES (?1, ?2, 0, '')",
            params![tid as i64, (tid / 10) as i64],
        )?;
    }
    {
        let mut insert = t.prepare("INSERT INTO accounts VALUES (?1, ?2, 0, ?3)")?;
        let filler = " ".repeat(84);
        for aid in 0..scale * 100_000 {
            insert.execute(params![aid as i64, (aid / 100_000) as i64, filler])?;
        }
    }
    t.commit()?;
    Ok(())
}

fn sqlite_tpcb(c: &mut Connection, scale: u64, rng: &mut ChaCha8Rng) -> Result<()> {
    let aid = rng.gen_range(0..scale * 100_000) as i64;
    let tid = rng.gen_range(0..scale * 10) as i64;
    let bid = rng.gen_range(0..scale) as i64;
    let delta: i64 = rng.gen_range(-5000..=5000);
    let t = c.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
    t.prepare_cached("UPDATE accounts SET abalance = abalance + ?1 WHERE aid = ?2")?
        .execute(params![delta, aid])?;
    let _: i64 = t
        .prepare_cached("SELECT abalance FROM accounts WHERE aid = ?1")?
        .query_row(params![aid], |r| r.get(0))?;
    t.prepare_cached("UPDATE tellers SET tbalance = tbalance + ?1 WHERE tid = ?2")?
        .execute(params![delta, tid])?;
    t.prepare_cached("UPDATE branches SET bbalance = bbalance + ?1 WHERE bid = ?2")?
        .execute(params![delta, bid])?;
    t.prepare_cached("INSERT INTO history VALUES (?1, ?2, ?3, ?4, 0, '')")?
        .execute(params![tid, bid, aid, delta])?;
    t.commit()?;
    Ok(())
}

fn sqlite_check(path: &Path) -> Result<()> {
    let c = sqlite_connect(path)?;
    let sum = |sql: &str| -> Result<i64> {
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
        bail!("sqlite balances disagree: {sums:?}");
    }
    Ok(())
}

fn main() -> Result<()> {
    let args = parse()?;
    if args.dir.exists() {
        std::fs::remove_dir_all(&args.dir)?;
    }
    std::fs::create_dir_all(&args.dir)?;
    let duration = Duration::from_secs(args.seconds);
    eprintln!("loading scale {} into folio and SQLite ...", args.scale);
    let db = Database::create(
        args.dir.join("folio"),
        Options {
            pool_size_bytes: 512 << 20,
            ..Options::default()
        },
    )?;
    let schema = Schema::load(&db, args.scale as f64)?;
    db.checkpoint()?;
    let sqlite_path = args.dir.join("tpcb.sqlite");
    sqlite_load(&sqlite_path, args.scale)?;
    println!("threads  folio tx/s  sqlite tx/s  folio/sqlite");
    let mut rows = Vec::new();
    for &threads in &args.threads {
        let folio = timed(threads, duration, |i, stop| {
            let mut rng = ChaCha8Rng::seed_from_u64(i as u64);
            let mut n = 0;
            while !stop.load(Ordering::Relaxed) {
                schema.tpcb(&db, &mut rng)?;
                n += 1;
            }
            Ok(n)
        })?;
        let sqlite = timed(threads, duration, |i, stop| {
            let mut c = sqlite_connect(&sqlite_path)?;
            let mut rng = ChaCha8Rng::seed_from_u64(i as u64);
            let mut n = 0;
            while !stop.load(Ordering::Relaxed) {
                sqlite_tpcb(&mut c, args.scale, &mut rng)?;
                n += 1;
            }
            Ok(n)
        })?;
        println!(
            "{threads:>7}  {folio:>10.0}  {sqlite:>11.0}  {:>12.2}",
            folio / sqlite
        );
        rows.push((threads, folio, sqlite));
    }
    schema
        .check_balances(&db)
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    sqlite_check(&sqlite_path)?;
    if let (Some(first), Some(last)) = (rows.first(), rows.last()) {
        println!(
            "{} / {} threads: folio {:.2}x, sqlite {:.2}x",
            last.0,
            first.0,
            last.1 / first.1,
            last.2 / first.2
        );
    }
    drop(schema);
    db.close()?;
    std::fs::remove_dir_all(&args.dir)?;
    Ok(())
}
