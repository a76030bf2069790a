//! Bank transfers with the embedded API: a table of accounts, threads
//! moving money between them at REPEATABLE READ with `transact` retrying
//! serialization failures, and a check that no money appeared or vanished.
//!
//! `cargo run --release -p folio --example bank -- [DIR] [THREADS] [TRANSFERS]`
//! (DIR empty or absent: a temporary directory).

use folio::{Database, Isolation, Options, Schema, Type};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

const ACCOUNTS: i64 = 100;
const OPENING: i64 = 1_000;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let temp = tempfile::tempdir()?;
    let dir = match args.next() {
        Some(dir) if !dir.is_empty() => dir.into(),
        _ => temp.path().join("bank"),
    };
    let threads: usize = args.next().map_or(Ok(4), |a| a.parse())?;
    let transfers: usize = args.next().map_or(Ok(2_000), |a| a.parse())?;

    let options = Options::builder().shared_buffers(64 << 20).build()?;
    let db = Arc::new(Database::open_or_create(&dir, &options)?);
    db.transact(Isolation::ReadCommitted, |tx| {
        if tx.table_names()?.iter().any(|t| t == "accounts") {
            tx.drop_table("accounts")?;
        }
        let accounts = tx.create_table(
            &Schema::new("accounts")
                .column("id", Type::Int8)
                .column_not_null("owner", Type::Text)
                .column("balance", Type::Int8)
                .primary_key(&["id"]),
        )?;
        for id in 0..ACCOUNTS {
            accounts.insert((id, format!("owner {id}"), OPENING))?;
        }
        Ok(())
    })?;

    let retries = Arc::new(AtomicU64::new(0));
    let started = Instant::now();
    let workers: Vec<_> = (0..threads)
        .map(|worker| {
            let (db, retries) = (db.clone(), retries.clone());
            std::thread::spawn(move || -> folio::Result<()> {
                let mut seed = worker as u64 * 0x9E37_79B9_7F4A_7C15 + 1;
                let mut next = move |n: i64| {
                    seed ^= seed << 13;
                    seed ^= seed >> 7;
                    seed ^= seed << 17;
                    (seed % n as u64) as i64
                };
                for _ in 0..transfers / threads {
                    let (from, to, amount) = (next(ACCOUNTS), next(ACCOUNTS), next(100) + 1);
                    if from == to {
                        continue;
                    }
                    let mut attempts = 0;
                    db.transact(Isolation::RepeatableRead, |tx| {
                        attempts += 1;
                        let accounts = tx.table("accounts")?;
                        let a = accounts.get(from)?.expect("account");
                        let b = accounts.get(to)?.expect("account");
                        let (a_balance, b_balance): (i64, i64) =
                            (a.get("balance")?, b.get("balance")?);
                        accounts
                            .update(from, (from, a.get::<String>("owner")?, a_balance - amount))?;
                        accounts.update(to, (to, b.get::<String>("owner")?, b_balance + amount))?;
                        Ok(())
                    })?;
                    retries.fetch_add(attempts - 1, Ordering::Relaxed);
                }
                Ok(())
            })
        })
        .collect();
    for w in workers {
        w.join().expect("worker")?;
    }
    let elapsed = started.elapsed();

    let tx = db.begin(Isolation::RepeatableRead)?;
    let accounts = tx.table("accounts")?;
    let mut total = 0i64;
    for row in accounts.iter()? {
        total += row?.get::<i64>("balance")?;
    }
    println!(
        "{} transfers on {threads} threads in {:.2?} ({:.0}/s), {} retried after a serialization failure; \
         {} accounts hold {total} (opening total {})",
        transfers / threads * threads,
        elapsed,
        (transfers / threads * threads) as f64 / elapsed.as_secs_f64(),
        retries.load(Ordering::Relaxed),
        accounts.len()?,
        ACCOUNTS * OPENING
    );
    assert_eq!(total, ACCOUNTS * OPENING, "money appeared or vanished");
    drop(accounts);
    tx.commit()?;
    db.verify()?;
    Arc::try_unwrap(db).map_err(|_| "still shared")?.close()?;
    Ok(())
}
