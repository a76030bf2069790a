//! Bank transfers under a crash at every I/O operation (the bank
//! test): accounts in a table with a primary key; transfers run two at a
//! time, interleaved step by step (debit one, debit the other, credit
//! one, credit the other), committed or rolled back in a seeded order,
//! with checkpoints and a vacuum on the way, on a 10-page pool whose
//! evictions write pages mid-transaction. The simulated crash loses, tears
//! and reorders unsynced writes. After recovery:
//! - the sum of the balances is what it was (no transfer half applied);
//! - the balances are exactly those of the acknowledged commits, or those
//!   plus the one commit in flight at the crash: nothing of a rolled-back
//!   or unacknowledged transaction is visible, nothing acknowledged lost;
//! - every row is found through the primary key, and the database
//!   (pages, trees, heaps, tables against their indexes) verifies.
//!
//! Size: `FOLIO_BANK_CRASH_TRANSFERS` transfers (default 40) per seed,
//! `FOLIO_BANK_CRASH_SEEDS` seeds (default 1).

mod common;

use common::*;
use folio_db::{ColumnDef, Database, Durability, Isolation, Storage, Transaction, Write};
use folio_io::{SimConfig, SimDir};
use folio_row::{SqlType, Value};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::BTreeMap;

const RC: Isolation = Isolation::ReadCommitted;
const SYNC: Durability = Durability::Sync;
const ACCOUNTS: i32 = 8;
const OPENING: i64 = 1_000;

type Balances = BTreeMap<i32, i64>;

fn columns() -> Vec<ColumnDef> {
    [
        ("id", SqlType::Int4, true),
        ("balance", SqlType::Int8, true),
    ]
    .into_iter()
    .map(|(name, ty, not_null)| ColumnDef {
        local: true,
        collation: None,
        name: name.into(),
        type_oid: ty.oid(),
        typmod: ty.typmod(),
        not_null,
    })
    .collect()
}

/// Adds `delta` to account `id` in `t` (the caller's transactions never
/// write the same row at once, so this never waits).
fn add(db: &Database, t: &mut Transaction, id: i32, delta: i64) -> Result<(), String> {
    t.next_statement();
    let rel = db
        .catalog()
        .relation(t, "accounts")
        .map_err(|e| e.to_string())?
        .ok_or("no table")?;
    let (tid, old) = rel
        .lookup(t, 0, &[Value::Int4(id)])
        .map_err(|e| e.to_string())?
        .into_iter()
        .next()
        .ok_or("no row")?;
    let Value::Int8(balance) = old[1] else {
        return Err(format!("balance {:?}", old[1]));
    };
    let new = vec![Value::Int4(id), Value::Int8(balance + delta)];
    match rel.update(t, tid, &old, new).map_err(|e| e.to_string())? {
        Write::Done(_) | Write::Hot(_) => Ok(()),
        other => Err(format!("update of {id}: {other:?}")),
    }
}

/// One transfer: its accounts and amount, applied to a model.
#[derive(Debug, Clone, Copy)]
struct Transfer {
    from: i32,
    to: i32,
    amount: i64,
}

impl Transfer {
    fn apply(self, balances: &mut Balances) {
        *balances.get_mut(&self.from).expect("account") -= self.amount;
        *balances.get_mut(&self.to).expect("account") += self.amount;
    }
}

/// Two transfers on four distinct accounts.
fn pair(rng: &mut ChaCha8Rng) -> [Transfer; 2] {
    let mut ids: Vec<i32> = (0..ACCOUNTS).collect();
    for i in 0..4 {
        let j = rng.gen_range(i..ids.len());
        ids.swap(i, j);
    }
    [0, 2].map(|at| Transfer {
        from: ids[at],
        to: ids[at + 1],
        amount: rng.gen_range(1..=300),
    })
}

fn case(seed: u64, crash_at: u64, transfers: usize) -> bool {
    let label = format!("seed {seed}, crash at op {crash_at}");
    let dir = SimDir::new(SimConfig::seeded(seed));
    dir.set_crash_after_ops(crash_at);
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut acked: Option<Balances> = None;
    let mut in_flight: Option<Balances> = None;
    let mut created = false;
    'run: {
        let Ok(db) = Database::create_in(Storage::single(dir.clone()), small_options()) else {
            break 'run;
        };
        created = true;
        let cat = db.catalog();
        let Ok(mut t) = db.begin(RC, SYNC) else {
            break 'run;
        };
        let opening: Balances = (0..ACCOUNTS).map(|id| (id, OPENING)).collect();
        let setup = cat
            .create_table(&mut t, "accounts", &columns())
            .and_then(|_| cat.create_index(&mut t, "accounts", "accounts_pkey", &["id"], true))
            .and_then(|_| cat.relation(&t, "accounts"))
            .and_then(|rel| {
                let rel = rel.expect("created");
                for id in 0..ACCOUNTS {
                    rel.insert(&mut t, vec![Value::Int4(id), Value::Int8(OPENING)])?;
                }
                Ok(())
            });
        if setup.is_err() {
            break 'run;
        }
        match t.commit() {
            Ok(_) => acked = Some(opening),
            Err(_) => {
                in_flight = Some(opening);
                break 'run;
            }
        }
        for round in 0..transfers.div_ceil(2) {
            if round % 4 == 3 && db.checkpoint().is_err() {
                break 'run;
            }
            if round % 5 == 4 {
                let Ok(t) = db.begin(RC, SYNC) else {
                    break 'run;
                };
                let Ok(Some(rel)) = cat.relation(&t, "accounts") else {
                    break 'run;
                };
                drop(t);
                let indexes: Vec<_> = rel.indexes.iter().map(|i| &i.index).collect();
                if rel.table.vacuum(db.txns(), &indexes).is_err() {
                    break 'run;
                }
            }
            let transfers = pair(&mut rng);
            let mut txns = Vec::new();
            for _ in 0..2 {
                match db.begin(RC, SYNC) {
                    Ok(t) => txns.push(t),
                    Err(_) => break 'run,
                }
            }
            // Interleaved: both debits, then both credits.
            for (i, tr) in transfers.iter().enumerate() {
                if add(&db, &mut txns[i], tr.from, -tr.amount).is_err() {
                    break 'run;
                }
            }
            for (i, tr) in transfers.iter().enumerate() {
                if add(&db, &mut txns[i], tr.to, tr.amount).is_err() {
                    break 'run;
                }
            }
            // Ended in a seeded order, each committed or rolled back.
            let order = if rng.gen_bool(0.5) { [0, 1] } else { [1, 0] };
            let mut txns: Vec<Option<Transaction>> = txns.into_iter().map(Some).collect();
            for i in order {
                let t = txns[i].take().expect("once");
                if rng.gen_bool(0.25) {
                    if t.rollback().is_err() {
                        break 'run;
                    }
                    continue;
                }
                let mut next = acked.clone().expect("set up");
                transfers[i].apply(&mut next);
                match t.commit() {
                    Ok(_) => acked = Some(next),
                    Err(_) => {
                        in_flight = Some(next);
                        break 'run;
                    }
                }
            }
        }
    }
    let (completed, db) = crash_and_reopen(&dir, crash_at, created, &label);
    let Some(db) = db else {
        return completed;
    };
    let t = db.begin(RC, SYNC).unwrap();
    let found: Option<Balances> = db.catalog().relation(&t, "accounts").unwrap().map(|rel| {
        rel.scan(&t)
            .unwrap()
            .into_iter()
            .map(|(_, v)| {
                let hits = rel.lookup(&t, 0, &[v[0].clone()]).unwrap();
                assert_eq!(hits.len(), 1, "{label}: {v:?} by its key");
                match (&v[0], &v[1]) {
                    (Value::Int4(id), Value::Int8(balance)) => (*id, *balance),
                    other => panic!("{label}: {other:?}"),
                }
            })
            .collect()
    });
    if let Some(balances) = &found
        && !balances.is_empty()
    {
        assert_eq!(
            balances.values().sum::<i64>(),
            ACCOUNTS as i64 * OPENING,
            "{label}: money appeared or vanished: {balances:?}"
        );
    }
    assert!(
        found == acked || (in_flight.is_some() && found == in_flight),
        "{label}: recovered {found:?}, acknowledged {acked:?}, in flight {in_flight:?}"
    );
    drop(t);
    db.verify().unwrap();
    db.check_invariants().unwrap();
    completed
}

// Proves the module's claims at every I/O operation of the workload.
#[test]
fn bank_transfers_survive_a_crash_at_every_io_operation() {
    let transfers = env_or("FOLIO_BANK_CRASH_TRANSFERS", 40);
    let seeds = env_or("FOLIO_BANK_CRASH_SEEDS", 1) as u64;
    for seed in 0..seeds {
        let points = sweep_crash_points(|crash_at| case(41 + seed, crash_at, transfers));
        eprintln!(
            "seed {}: {points} crash points, {transfers} transfers",
            41 + seed
        );
    }
}
