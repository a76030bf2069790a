//! A crash at every I/O operation of a workload through the whole
//! transactional stack: DDL (tables, a unique and a non-unique index),
//! rows through relations (inserts, HOT and indexed updates, deletes, a
//! value stored out of line), rollbacks, checkpoints and a vacuum, on a
//! 10-page pool. After recovery: the committed tables exist with their
//! indexes, hold exactly the acknowledged commits' rows (or those plus
//! the one transaction whose commit was in flight), every row is found
//! through each of its indexes, and the database verifies.
//!
//! Size: `FOLIO_CATALOG_CRASH_TXNS` transactions (default 12).

mod common;

use common::*;
use folio_db::{ColumnDef, Database, Durability, Isolation, Storage, Write};
use folio_io::{SimConfig, SimDir};
use folio_row::{SqlType, Value};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::BTreeMap;

const RC: Isolation = Isolation::ReadCommitted;
const SYNC: Durability = Durability::Sync;

type Model = BTreeMap<i32, (i32, String)>;

fn columns() -> Vec<ColumnDef> {
    let col = |name: &str, ty: SqlType, not_null: bool| ColumnDef {
        local: true,
        collation: None,
        name: name.into(),
        type_oid: ty.oid(),
        typmod: ty.typmod(),
        not_null,
    };
    vec![
        col("id", SqlType::Int4, true),
        col("grp", SqlType::Int4, false),
        col("body", SqlType::Text, false),
    ]
}

fn body(rng: &mut ChaCha8Rng) -> String {
    // Now and then a value longer than a row may hold: stored out of line.
    let len = if rng.gen_bool(0.1) {
        5000
    } else {
        rng.gen_range(1..200)
    };
    let c = (b'a' + rng.gen_range(0..26)) as char;
    c.to_string().repeat(len)
}

/// One case; returns whether the workload completed before the crash.
fn case(seed: u64, crash_at: u64, txns: usize) -> bool {
    let label = format!("seed {seed}, crash at op {crash_at}");
    let dir = SimDir::new(SimConfig::seeded(seed));
    dir.set_crash_after_ops(crash_at);
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut acked: Option<Model> = None; // None: the table's DDL not acknowledged
    let mut in_flight: Option<Option<Model>> = None;
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
        let ddl = cat
            .create_table(&mut t, "t", &columns())
            .and_then(|_| cat.create_index(&mut t, "t", "t_pkey", &["id"], true))
            .and_then(|_| cat.create_index(&mut t, "t", "t_grp", &["grp"], false));
        if ddl.is_err() {
            break 'run;
        }
        match t.commit() {
            Ok(_) => acked = Some(Model::new()),
            Err(_) => {
                in_flight = Some(Some(Model::new()));
                break 'run;
            }
        }
        for n in 0..txns {
            if n % 11 == 10 && db.checkpoint().is_err() {
                break 'run;
            }
            if n % 13 == 12 {
                let Ok(t) = db.begin(RC, SYNC) else {
                    break 'run;
                };
                let Ok(Some(rel)) = cat.relation(&t, "t") else {
                    break 'run;
                };
                drop(t);
                let indexes: Vec<_> = rel.indexes.iter().map(|i| &i.index).collect();
                if rel.table.vacuum(db.txns(), &indexes).is_err() {
                    break 'run;
                }
            }
            let Ok(mut t) = db.begin(RC, SYNC) else {
                break 'run;
            };
            let Ok(Some(rel)) = cat.relation(&t, "t") else {
                break 'run;
            };
            let mut model = acked.clone().expect("created");
            for _ in 0..rng.gen_range(1..=3) {
                let id = rng.gen_range(0..12);
                let grp = rng.gen_range(0..3);
                let text = body(&mut rng);
                let found = match rel.lookup(&t, 0, &[Value::Int4(id)]) {
                    Ok(f) => f,
                    Err(_) => break 'run,
                };
                let result = match found.into_iter().next() {
                    None => rel
                        .insert(
                            &mut t,
                            vec![Value::Int4(id), Value::Int4(grp), Value::Text(text.clone())],
                        )
                        .map(|_| {
                            model.insert(id, (grp, text));
                        }),
                    Some((tid, _)) if rng.gen_bool(0.25) => rel.delete(&mut t, tid).map(|w| {
                        assert_eq!(w, Write::Done(None), "{label}");
                        model.remove(&id);
                    }),
                    Some((tid, old)) => {
                        // Half the updates keep the group (HOT when they fit).
                        let grp = if rng.gen_bool(0.5) { model[&id].0 } else { grp };
                        rel.update(
                            &mut t,
                            tid,
                            &old,
                            vec![Value::Int4(id), Value::Int4(grp), Value::Text(text.clone())],
                        )
                        .map(|_| {
                            model.insert(id, (grp, text));
                        })
                    }
                };
                if result.is_err() {
                    break 'run;
                }
            }
            if rng.gen_bool(0.2) {
                if t.rollback().is_err() {
                    break 'run;
                }
                continue;
            }
            match t.commit() {
                Ok(_) => acked = Some(model),
                Err(_) => {
                    in_flight = Some(Some(model));
                    break 'run;
                }
            }
        }
    }
    let (completed, db) = crash_and_reopen(&dir, crash_at, created, &label);
    let Some(db) = db else {
        return completed;
    };
    let t = db.begin(RC, SYNC).unwrap();
    let found: Option<Model> = db.catalog().relation(&t, "t").unwrap().map(|rel| {
        let rows = rel.scan(&t).unwrap();
        for (_, values) in &rows {
            // Every row is found through each index.
            for (i, col) in [(0, 0), (1, 1)] {
                let hits = rel.lookup(&t, i, &[values[col].clone()]).unwrap();
                assert!(
                    hits.iter().any(|(_, v)| v == values),
                    "{label}: {values:?} not in index {i}"
                );
            }
        }
        rows.into_iter()
            .map(|(_, v)| match (&v[0], &v[1], &v[2]) {
                (Value::Int4(id), Value::Int4(grp), Value::Text(s)) => (*id, (*grp, s.clone())),
                other => panic!("{label}: {other:?}"),
            })
            .collect()
    });
    assert!(
        found == acked || in_flight.as_ref() == Some(&found),
        "{label}: recovered {:?} rows, acknowledged {:?}",
        found.as_ref().map(|m| m.len()),
        acked.as_ref().map(|m| m.len())
    );
    drop(t);
    db.verify().unwrap();
    db.check_invariants().unwrap();
    completed
}

// Proves the module's claim at every I/O operation of the workload.
#[test]
fn crash_at_every_io_operation_keeps_ddl_rows_and_indexes_whole() {
    let txns = env_or("FOLIO_CATALOG_CRASH_TXNS", 12);
    let points = sweep_crash_points(|crash_at| case(31, crash_at, txns));
    eprintln!("{points} crash points, {txns} transactions");
}
