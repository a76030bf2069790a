//! Readers that remove dead index entries, writers that make them, and
//! autovacuum that frees their line pointers for reuse, all at once: the
//! race the leaf-stamp rule (folio-btree `kill.rs`) must win. Whatever the
//! interleaving, afterwards every row is found once by its key and once
//! through the secondary index, and the heap and both indexes agree both
//! ways (`Database::verify`).
//!
//! Size: `FOLIO_CONCURRENCY_ROUNDS` updates per writer (default 300).

use folio::{Database, Isolation, Options, Schema, Type};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

const ROWS: i64 = 64;
const GROUPS: i32 = 4;

fn rounds() -> usize {
    std::env::var("FOLIO_CONCURRENCY_ROUNDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(300)
}

/// A tiny deterministic generator per thread (the interleaving is the
/// scheduler's; the invariants hold for every one).
fn next(seed: &mut u64) -> u64 {
    *seed ^= *seed << 13;
    *seed ^= *seed >> 7;
    *seed ^= *seed << 17;
    *seed
}

// Proves the module's claim.
#[test]
fn kills_updates_and_autovacuum_keep_heap_and_indexes_in_agreement() {
    let dir = tempfile::tempdir().unwrap();
    let options = Options::builder()
        .shared_buffers(8 << 20)
        .autovacuum(true)
        .autovacuum_naptime(Duration::from_millis(10))
        .deadlock_timeout(Duration::from_millis(20))
        .build()
        .unwrap();
    let db = Arc::new(Database::create(dir.path().join("db"), &options).unwrap());
    db.transact(Isolation::ReadCommitted, |tx| {
        let t = tx.create_table(
            &Schema::new("items")
                .column("id", Type::Int8)
                .column_not_null("grp", Type::Int4)
                .column("v", Type::Int8)
                .primary_key(&["id"])
                .index("items_grp", &["grp"]),
        )?;
        for id in 0..ROWS {
            t.insert((id, (id % GROUPS as i64) as i32, 0i64))?;
        }
        Ok(())
    })
    .unwrap();

    let stop = Arc::new(AtomicBool::new(false));
    let writers: Vec<_> = (0..2u64)
        .map(|w| {
            let db = db.clone();
            std::thread::spawn(move || {
                let mut seed = 0x9E37_79B9 + w;
                for _ in 0..rounds() {
                    let id = (next(&mut seed) % ROWS as u64) as i64;
                    let grp = (next(&mut seed) % GROUPS as u64) as i32;
                    let hot = next(&mut seed).is_multiple_of(2);
                    db.transact(Isolation::ReadCommitted, |tx| {
                        let t = tx.table("items")?;
                        // Locked before it is read: READ COMMITTED's
                        // read-modify-write would lose updates otherwise.
                        let row = t.get_for_update(id)?.expect("every id stays");
                        let (old_grp, v): (i32, i64) = (row.get("grp")?, row.get("v")?);
                        // A new group changes an indexed column: a new
                        // version and new entries; the old ones die.
                        let grp = if hot { old_grp } else { grp };
                        t.update(id, (id, grp, v + 1))?;
                        Ok(())
                    })
                    .unwrap();
                }
            })
        })
        .collect();
    let reader = {
        let (db, stop) = (db.clone(), stop.clone());
        std::thread::spawn(move || {
            let mut reads = 0u64;
            while !stop.load(Ordering::Relaxed) {
                let tx = db.begin(Isolation::RepeatableRead).unwrap();
                let t = tx.table("items").unwrap();
                // Probes and scans of the secondary index (which kill),
                // and of the primary key.
                let mut seen = 0;
                for g in 0..GROUPS {
                    seen += t.get_by("items_grp", g).unwrap().len() as i64;
                }
                assert_eq!(seen, ROWS, "every row once through the index");
                let ids: Vec<(i64, i32)> = t
                    .iter()
                    .unwrap()
                    .map(|r| {
                        let r = r.unwrap();
                        (r.get("id").unwrap(), r.get("grp").unwrap())
                    })
                    .collect();
                assert_eq!(ids.len() as i64, ROWS, "each row once by its key: {ids:?}");
                assert_eq!(t.len().unwrap() as i64, ROWS, "counted on the primary key");
                drop(t);
                tx.commit().unwrap();
                reads += 1;
            }
            reads
        })
    };
    for w in writers {
        w.join().unwrap();
    }
    stop.store(true, Ordering::Relaxed);
    let reads = reader.join().unwrap();
    assert!(reads > 0);

    let tx = db.begin(Isolation::RepeatableRead).unwrap();
    let t = tx.table("items").unwrap();
    let total: i64 = t
        .iter()
        .unwrap()
        .map(|r| r.unwrap().get::<i64>("v").unwrap())
        .sum();
    assert_eq!(total, 2 * rounds() as i64, "every update counted once");
    let mut by_index = 0;
    for g in 0..GROUPS {
        by_index += t.get_by("items_grp", g).unwrap().len() as i64;
    }
    assert_eq!(by_index, ROWS);
    drop(t);
    tx.commit().unwrap();
    db.verify().unwrap();
}
