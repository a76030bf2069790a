//! Heap tables under MVCC through the database: what each snapshot sees
//! of inserts, deletes and updates; write conflicts at READ COMMITTED and
//! REPEATABLE READ; updates across pages; and a crash at every I/O
//! operation of a transactional workload.

mod common;

use common::*;
use folio_db::{Database, Durability, Isolation, Storage, Table, Tid, Write};
use folio_heap::HeapError;
use folio_io::{SimConfig, SimDir};
use folio_txn::TxnError;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

const RR: Isolation = Isolation::RepeatableRead;
const RC: Isolation = Isolation::ReadCommitted;
const SYNC: Durability = Durability::Sync;

fn sim_db(seed: u64) -> Database {
    Database::create_in(
        Storage::single(SimDir::new(SimConfig::seeded(seed))),
        small_options(),
    )
    .unwrap()
}

fn rows(table: &Table, txn: &folio_db::Transaction) -> Vec<Vec<u8>> {
    table
        .scan(txn)
        .unwrap()
        .into_iter()
        .map(|(_, r)| r)
        .collect()
}

// Proves an insert is visible to its own transaction at once, to others
// only in snapshots taken after its commit, and never after a rollback;
// a delete and an update are seen the same way, an old snapshot keeps
// reading the version it saw, and fetch by tuple id agrees with scans.
#[test]
fn snapshots_see_inserts_deletes_and_updates_at_commit() {
    let db = sim_db(1);
    let table = db.create_table("t").unwrap();
    let mut w = db.begin(RR, SYNC).unwrap();
    let a = table.insert(&mut w, b"a").unwrap();
    assert_eq!(rows(&table, &w), vec![b"a".to_vec()], "its own insert");
    let before = db.begin(RR, SYNC).unwrap();
    assert!(rows(&table, &before).is_empty());
    w.commit().unwrap();
    assert!(
        rows(&table, &before).is_empty(),
        "snapshot before the commit"
    );
    let after = db.begin(RR, SYNC).unwrap();
    assert_eq!(table.fetch(&after, a).unwrap(), Some(b"a".to_vec()));

    let mut loser = db.begin(RR, SYNC).unwrap();
    table.insert(&mut loser, b"lost").unwrap();
    loser.rollback().unwrap();

    let mut u = db.begin(RR, SYNC).unwrap();
    let Write::Done(Some(a2)) = table.update(&mut u, a, b"a2", true).unwrap() else {
        panic!("update")
    };
    assert_eq!(rows(&table, &u), vec![b"a2".to_vec()], "own update");
    u.commit().unwrap();
    assert_eq!(
        rows(&table, &after),
        vec![b"a".to_vec()],
        "old snapshot, old version"
    );
    let now = db.begin(RR, SYNC).unwrap();
    assert_eq!(rows(&table, &now), vec![b"a2".to_vec()]);
    assert_eq!(
        table.fetch(&now, a).unwrap(),
        None,
        "old version is dead to new snapshots"
    );
    assert_eq!(
        table.header(a).unwrap().unwrap().next,
        Some(a2),
        "the version chain"
    );

    let mut d = db.begin(RR, SYNC).unwrap();
    assert_eq!(table.delete(&mut d, a2).unwrap(), Write::Done(None));
    assert_eq!(
        table.delete(&mut d, a2).unwrap(),
        Write::Gone,
        "deleted by itself"
    );
    d.commit().unwrap();
    assert_eq!(rows(&table, &now), vec![b"a2".to_vec()]);
    assert!(rows(&table, &db.begin(RR, SYNC).unwrap()).is_empty());
}

// Proves a sequential scan that takes an all-visible page's versions
// without checking each (the visibility map's bit, read with the page's
// copy) sees what each snapshot sees: after vacuum marks the pages, an
// insert, an update and a delete clear their page's bit, so a snapshot
// older than them, the writer's own and a newer one each get their rows,
// and a vacuum after them marks the pages again with the same rows seen.
#[test]
fn scans_of_all_visible_pages_see_each_snapshots_rows() {
    let db = sim_db(7);
    let table = db.create_table("t").unwrap();
    let mut w = db.begin(RR, SYNC).unwrap();
    let tids: Vec<Tid> = (0..600u32)
        .map(|k| table.insert(&mut w, &encode_row(k, &[1u8; 40])).unwrap())
        .collect();
    w.commit().unwrap();
    let stats = table.vacuum(db.txns(), &[]).unwrap();
    assert!(stats.pages > 1, "{stats:?}");
    assert_eq!(stats.all_visible_pages, stats.pages, "{stats:?}");
    let all: Vec<Vec<u8>> = (0..600u32).map(|k| encode_row(k, &[1u8; 40])).collect();
    let old = db.begin(RR, SYNC).unwrap();
    assert_eq!(rows(&table, &old), all);

    let mut w = db.begin(RR, SYNC).unwrap();
    let last = *tids.last().unwrap();
    table.insert(&mut w, &encode_row(600, b"new")).unwrap();
    let Write::Done(_) = table
        .update(&mut w, tids[0], &encode_row(0, b"u"), true)
        .unwrap()
    else {
        panic!("update")
    };
    assert_eq!(table.delete(&mut w, last).unwrap(), Write::Done(None));
    let mut mine = all.clone();
    mine[0] = encode_row(0, b"u");
    mine.pop();
    mine.push(encode_row(600, b"new"));
    let sorted = |mut v: Vec<Vec<u8>>| {
        v.sort();
        v
    };
    assert_eq!(sorted(rows(&table, &w)), sorted(mine.clone()), "its own");
    assert_eq!(rows(&table, &old), all, "a snapshot before the writer");
    w.commit().unwrap();
    assert_eq!(rows(&table, &old), all, "still, after its commit");
    let new = db.begin(RR, SYNC).unwrap();
    assert_eq!(sorted(rows(&table, &new)), sorted(mine.clone()));
    drop((old, new));
    let stats = table.vacuum(db.txns(), &[]).unwrap();
    assert_eq!(stats.all_visible_pages, stats.pages, "{stats:?}");
    let now = db.begin(RR, SYNC).unwrap();
    assert_eq!(sorted(rows(&table, &now)), sorted(mine));
}

/// Starts `second` updating `tid` while `first` holds it, then ends
/// `first` (commit or rollback) and returns what `second` got.
fn conflict(
    db: &Arc<Database>,
    table: &Arc<Table>,
    tid: Tid,
    isolation: Isolation,
    first_commits: bool,
) -> (Result<Write, HeapError>, Tid) {
    let mut first = db.begin(RR, SYNC).unwrap();
    let second = db.begin(isolation, SYNC).unwrap();
    let Write::Done(Some(new)) = table.update(&mut first, tid, b"first", true).unwrap() else {
        panic!("first update")
    };
    let (table2, mut second) = (table.clone(), second);
    let waiter = std::thread::spawn(move || {
        let r = table2.update(&mut second, tid, b"second", true);
        if r.is_ok() {
            second.commit().unwrap();
        }
        r
    });
    std::thread::sleep(Duration::from_millis(50));
    assert!(
        !waiter.is_finished(),
        "the second updater waits for the first"
    );
    if first_commits {
        first.commit().unwrap();
    } else {
        first.rollback().unwrap();
    }
    (waiter.join().unwrap(), new)
}

// Proves a second updater waits for the first; then under REPEATABLE READ
// it fails with 40001 if the first committed, under READ COMMITTED it is
// sent to the newest version (and can update that), and under either it
// goes on if the first rolled back.
#[test]
fn write_conflicts_wait_then_follow_the_isolation_level() {
    let db = Arc::new(sim_db(2));
    let table = Arc::new(db.create_table("t").unwrap());
    let mut setup = db.begin(RR, SYNC).unwrap();
    let row = table.insert(&mut setup, b"row").unwrap();
    setup.commit().unwrap();

    let (r, newer) = conflict(&db, &table, row, RR, true);
    let e = r.unwrap_err();
    assert_eq!(e.sqlstate(), Some("40001"), "{e}");
    assert!(matches!(e, HeapError::Txn(TxnError::SerializationFailure)));

    let (r, newest) = conflict(&db, &table, newer, RC, true);
    assert_eq!(
        r.unwrap(),
        Write::Moved(newest),
        "read committed: to the newest"
    );
    let mut rc = db.begin(RC, SYNC).unwrap();
    assert!(matches!(
        table.update(&mut rc, newest, b"rc", true).unwrap(),
        Write::Done(Some(_))
    ));
    rc.commit().unwrap();

    let current = table.scan(&db.begin(RR, SYNC).unwrap()).unwrap()[0].0;
    let (r, _) = conflict(&db, &table, current, RR, false);
    assert!(
        matches!(r.unwrap(), Write::Done(Some(_))),
        "the first rolled back"
    );
    let finally = rows(&table, &db.begin(RR, SYNC).unwrap());
    assert_eq!(finally, vec![b"second".to_vec()]);
}

// Proves updates whose new version does not fit on the old page move it
// to another page, and every row keeps exactly one visible version.
#[test]
fn updates_move_versions_to_other_pages_when_full() {
    let db = sim_db(3);
    let table = db.create_table("t").unwrap();
    let mut t = db.begin(RR, SYNC).unwrap();
    let mut tids: Vec<Tid> = (0..20u8)
        .map(|i| table.insert(&mut t, &[i; 700]).unwrap())
        .collect();
    t.commit().unwrap();
    for round in 1..4u8 {
        let mut t = db.begin(RR, SYNC).unwrap();
        for (i, tid) in tids.iter_mut().enumerate() {
            let Write::Done(Some(new)) = table
                .update(&mut t, *tid, &[i as u8 + round; 700], true)
                .unwrap()
            else {
                panic!("update")
            };
            *tid = new;
        }
        t.commit().unwrap();
    }
    let pages: std::collections::BTreeSet<_> = tids.iter().map(|t| t.page).collect();
    assert!(table.page_ids().unwrap().len() > 2 && pages.len() > 1);
    let mut seen = rows(&table, &db.begin(RR, SYNC).unwrap());
    seen.sort();
    let mut want: Vec<Vec<u8>> = (0..20u8).map(|i| vec![i + 3; 700]).collect();
    want.sort();
    assert_eq!(seen, want);
    let too_big = vec![0u8; 9000];
    let mut t = db.begin(RR, SYNC).unwrap();
    let e = table.insert(&mut t, &too_big).unwrap_err();
    assert!(matches!(e, HeapError::RowTooLarge { .. }), "{e}");
}

// Proves a multi-row insert (`Table::insert_many`, COPY's path) puts its
// rows in order on as few pages as fit them, that others see them at
// commit only and never after a rollback, and that replay after a crash
// (the pages lost, a record per page redone) gives back exactly the
// committed ones.
#[test]
fn a_multi_row_insert_fills_pages_in_order_and_replays() {
    let dir = SimDir::new(SimConfig::seeded(5));
    let db = Database::create_in(Storage::single(dir.clone()), small_options()).unwrap();
    let table = db.create_table("t").unwrap();
    let loaded: Vec<Vec<u8>> = (0..500u32)
        .map(|k| encode_row(k, &[k as u8; 100]))
        .collect();
    let mut t = db.begin(RR, SYNC).unwrap();
    let tids = table.insert_many(&mut t, &loaded).unwrap();
    assert_eq!(tids.len(), loaded.len());
    assert!(
        tids.windows(2)
            .all(|w| (w[0].page, w[0].item) < (w[1].page, w[1].item))
    );
    let pages: std::collections::BTreeSet<_> = tids.iter().map(|t| t.page).collect();
    // 500 rows of ~140 bytes with their headers and line pointers: 9
    // pages when each is filled before the next is taken.
    assert_eq!(pages.len(), 9, "{pages:?}");
    let other = db.begin(RR, SYNC).unwrap();
    assert!(rows(&table, &other).is_empty());
    assert_eq!(rows(&table, &t), loaded);
    t.commit().unwrap();
    drop(other);
    let mut lost = db.begin(RR, SYNC).unwrap();
    table.insert_many(&mut lost, &loaded[..50]).unwrap();
    lost.rollback().unwrap();
    assert_eq!(rows(&table, &db.begin(RR, SYNC).unwrap()), loaded);
    drop(table);
    drop(db);
    let db = Database::open_in(Storage::single(dir.crash()), small_options()).unwrap();
    let table = db.open_table("t").unwrap().unwrap();
    assert_eq!(rows(&table, &db.begin(RR, SYNC).unwrap()), loaded);
    db.verify().unwrap();
    db.check_invariants().unwrap();
}

type Model = BTreeMap<u32, Vec<u8>>;

fn decode_row(row: &[u8]) -> (u32, Vec<u8>) {
    (
        u32::from_be_bytes(row[..4].try_into().unwrap()),
        row[4..].to_vec(),
    )
}

fn encode_row(key: u32, value: &[u8]) -> Vec<u8> {
    let mut row = key.to_be_bytes().to_vec();
    row.extend_from_slice(value);
    row
}

/// One crash case: a seeded sequence of transactions (1-4 inserts,
/// updates (HOT when the page has room, pruning it first) or deletes each, some with a savepoint rolled back to, then a
/// synchronous commit or a rollback, a checkpoint now and then) until the device crashes at `crash_at`; then
/// recovery, and the table must hold exactly the acknowledged commits'
/// rows (plus, possibly, the one transaction whose commit was in flight).
fn heap_crash_case(seed: u64, crash_at: u64, txns: usize) -> bool {
    let case = format!("seed {seed}, crash at op {crash_at}");
    let dir = SimDir::new(SimConfig::seeded(seed));
    dir.set_crash_after_ops(crash_at);
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut acked = Model::new();
    let mut in_flight: Option<Model> = None;
    let mut created = false;
    'run: {
        let Ok(db) = Database::create_in(Storage::single(dir.clone()), small_options()) else {
            break 'run;
        };
        let Ok(table) = db.create_table("t") else {
            break 'run;
        };
        created = true;
        let mut tids: BTreeMap<u32, Tid> = BTreeMap::new();
        for n in 0..txns {
            if n % 17 == 16 && db.checkpoint().is_err() {
                break 'run;
            }
            let Ok(mut t) = db.begin(RR, SYNC) else {
                break 'run;
            };
            let mut model = acked.clone();
            let mut new_tids = tids.clone();
            // Sometimes a savepoint after the first operation, rolled back
            // to at the end half of those times.
            let mut savepoint: Option<(Model, BTreeMap<u32, Tid>)> = None;
            let with_savepoint = rng.gen_bool(0.3);
            for op in 0..rng.gen_range(1..=4) {
                if op == 1 && with_savepoint {
                    if t.savepoint("s").is_err() {
                        break 'run;
                    }
                    savepoint = Some((model.clone(), new_tids.clone()));
                }
                let key = rng.gen_range(0..30u32);
                let value = vec![rng.r#gen::<u8>(); rng.gen_range(10..600)];
                let result = match new_tids.get(&key).copied() {
                    // Sometimes the absent keys from `key` on, up to 4, in
                    // one multi-row insert (a record per page).
                    None if rng.gen_bool(0.3) => {
                        let keys: Vec<u32> = (key..30)
                            .filter(|k| !new_tids.contains_key(k))
                            .take(4)
                            .collect();
                        let rows: Vec<Vec<u8>> =
                            keys.iter().map(|&k| encode_row(k, &value)).collect();
                        table.insert_many(&mut t, &rows).map(|got| {
                            assert_eq!(got.len(), keys.len(), "{case}");
                            for (&k, tid) in keys.iter().zip(got) {
                                new_tids.insert(k, tid);
                                model.insert(k, value.clone());
                            }
                        })
                    }
                    None => table.insert(&mut t, &encode_row(key, &value)).map(|tid| {
                        new_tids.insert(key, tid);
                        model.insert(key, value);
                    }),
                    Some(tid) if rng.gen_bool(0.3) => table.delete(&mut t, tid).map(|w| {
                        assert_eq!(w, Write::Done(None), "{case}");
                        new_tids.remove(&key);
                        model.remove(&key);
                    }),
                    // No index: HOT whenever the page has room (pruned first).
                    Some(tid) => table
                        .update(&mut t, tid, &encode_row(key, &value), false)
                        .map(|w| {
                            let (Write::Done(Some(new)) | Write::Hot(new)) = w else {
                                panic!("{case}: {w:?}")
                            };
                            new_tids.insert(key, new);
                            model.insert(key, value);
                        }),
                };
                if result.is_err() {
                    break 'run;
                }
            }
            if let Some((saved_model, saved_tids)) = savepoint
                && rng.gen_bool(0.5)
            {
                if t.rollback_to("s").is_err() {
                    break 'run;
                }
                model = saved_model;
                new_tids = saved_tids;
            }
            if rng.gen_bool(0.2) {
                if t.rollback().is_err() {
                    break 'run;
                }
                continue;
            }
            match t.commit() {
                Ok(_) => {
                    acked = model;
                    tids = new_tids;
                }
                Err(_) => {
                    in_flight = Some(model);
                    break 'run;
                }
            }
        }
    }
    let completed = dir.op_count() <= crash_at;
    let after = dir.crash();
    let db = match Database::open_in(Storage::single(after.clone()), small_options()) {
        Ok(db) => db,
        Err(e) => {
            assert!(!created, "{case}: create succeeded but open fails: {e}");
            return completed;
        }
    };
    let Some(table) = db.open_table("t").unwrap() else {
        assert!(acked.is_empty(), "{case}: the table is missing");
        return completed;
    };
    let t = db.begin(RR, SYNC).unwrap();
    let found: Model = table
        .scan(&t)
        .unwrap()
        .iter()
        .map(|(_, row)| decode_row(row))
        .collect();
    assert!(
        found == acked || in_flight.as_ref() == Some(&found),
        "{case}: recovered rows are not the acknowledged commits' ({} rows, want {})",
        found.len(),
        acked.len()
    );
    drop(t);
    db.verify().unwrap();
    db.check_invariants().unwrap();
    completed
}

// Proves, at every I/O operation of the workload of `heap_crash_case`
// with a 10-page pool (heap, CSN-log and page-list pages are evicted,
// written, torn and lost), that recovery leaves exactly the rows of the
// acknowledged commits: committed transactions whole, rolled-back and
// interrupted ones invisible. Size: `FOLIO_HEAP_CRASH_TXNS` transactions
// (default 80).
#[test]
fn crash_at_every_io_operation_leaves_exactly_the_committed_rows() {
    let txns = env_or("FOLIO_HEAP_CRASH_TXNS", 80);
    let points = sweep_crash_points(|crash_at| heap_crash_case(77, crash_at, txns));
    eprintln!("{points} crash points, {txns} transactions");
}

fn sorted_rows(table: &Table, txn: &folio_db::Transaction) -> Vec<Vec<u8>> {
    let mut rows = rows(table, txn);
    rows.sort();
    rows
}

// Proves savepoints: ROLLBACK TO undoes exactly the writes since the
// savepoint (inserts and a delete), keeps the savepoint open for more
// writes, RELEASE keeps the writes, a released savepoint no longer exists
// (3B001), other transactions see the committed result only, and after a
// reopen the committed subtransactions' rows are there and the rolled-back
// ones are not (a parent that never committed takes its subtransactions
// with it).
#[test]
fn savepoints_roll_back_and_release_nested_writes() {
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("db");
    let v = |s: &str| s.as_bytes().to_vec();
    {
        let db = Database::create(&path, small_options()).unwrap();
        let table = db.create_table("t").unwrap();
        let mut t = db.begin(RR, SYNC).unwrap();
        let a = table.insert(&mut t, b"a").unwrap();
        t.savepoint("s1").unwrap();
        table.insert(&mut t, b"b").unwrap();
        t.savepoint("s2").unwrap();
        table.insert(&mut t, b"c").unwrap();
        assert_eq!(table.delete(&mut t, a).unwrap(), Write::Done(None));
        assert_eq!(sorted_rows(&table, &t), vec![v("b"), v("c")]);
        t.rollback_to("s2").unwrap();
        assert_eq!(
            sorted_rows(&table, &t),
            vec![v("a"), v("b")],
            "c and the delete undone"
        );
        table.insert(&mut t, b"d").unwrap();
        t.release("s1").unwrap();
        let e = t.rollback_to("s1").unwrap_err();
        assert_eq!(e.sqlstate(), Some("3B001"), "{e}");
        assert_eq!(sorted_rows(&table, &t), vec![v("a"), v("b"), v("d")]);
        assert!(
            rows(&table, &db.begin(RR, SYNC).unwrap()).is_empty(),
            "not committed yet"
        );
        t.commit().unwrap();
        let seen = sorted_rows(&table, &db.begin(RR, SYNC).unwrap());
        assert_eq!(seen, vec![v("a"), v("b"), v("d")]);

        // A parent that never commits: its released subtransaction's rows
        // must vanish with it after the crash.
        let mut lost = db.begin(RR, SYNC).unwrap();
        lost.savepoint("x").unwrap();
        table.insert(&mut lost, b"lost").unwrap();
        lost.release("x").unwrap();
        db.wal().flush_all().unwrap();
        std::mem::forget(lost);
        drop(table);
        drop(db);
    }
    let db = Database::open(&path, small_options()).unwrap();
    let table = db.open_table("t").unwrap().unwrap();
    let seen = sorted_rows(&table, &db.begin(RR, SYNC).unwrap());
    assert_eq!(seen, vec![v("a"), v("b"), v("d")]);
    db.close().unwrap();
}

// Proves row locks (`FOR UPDATE`): a locked row stays visible to everyone,
// its locker may lock it again and update it, another writer waits for
// the locker and then goes on (also under REPEATABLE READ: a lock that
// ended changed nothing), and a lock taken in a savepoint that is rolled
// back is released at once.
#[test]
fn row_locks_make_writers_wait_and_change_nothing() {
    let db = Arc::new(sim_db(8));
    let table = Arc::new(db.create_table("t").unwrap());
    let mut setup = db.begin(RR, SYNC).unwrap();
    let row = table.insert(&mut setup, b"row").unwrap();
    setup.commit().unwrap();

    let mut locker = db.begin(RR, SYNC).unwrap();
    let other = db.begin(RR, SYNC).unwrap();
    assert_eq!(table.lock(&mut locker, row).unwrap(), Write::Done(None));
    assert_eq!(
        table.lock(&mut locker, row).unwrap(),
        Write::Done(None),
        "again"
    );
    assert_eq!(
        rows(&table, &other),
        vec![b"row".to_vec()],
        "a lock hides nothing"
    );
    let table2 = table.clone();
    let mut other = other;
    let waiter = std::thread::spawn(move || {
        let r = table2.update(&mut other, row, b"other", true).unwrap();
        other.commit().unwrap();
        r
    });
    std::thread::sleep(Duration::from_millis(50));
    assert!(!waiter.is_finished(), "the writer waits for the locker");
    locker.commit().unwrap();
    assert!(matches!(waiter.join().unwrap(), Write::Done(Some(_))));

    let current = table.scan(&db.begin(RR, SYNC).unwrap()).unwrap()[0].0;
    let mut own = db.begin(RR, SYNC).unwrap();
    table.lock(&mut own, current).unwrap();
    assert!(matches!(
        table.update(&mut own, current, b"own", true).unwrap(),
        Write::Done(Some(_))
    ));
    own.commit().unwrap();

    let current = table.scan(&db.begin(RR, SYNC).unwrap()).unwrap()[0].0;
    let mut sp = db.begin(RR, SYNC).unwrap();
    sp.savepoint("s").unwrap();
    table.lock(&mut sp, current).unwrap();
    sp.rollback_to("s").unwrap();
    let mut free = db.begin(RR, SYNC).unwrap();
    assert!(
        matches!(
            table.update(&mut free, current, b"free", true).unwrap(),
            Write::Done(Some(_))
        ),
        "no wait: the savepoint's lock is gone"
    );
    free.commit().unwrap();
    drop(sp);
}

// Proves share locks (`FOR SHARE`): two transactions share-lock one row at
// once without waiting (the second makes a share group), a third joins;
// a writer waits until every share locker ended; a share locker waits for
// an exclusive locker; a share locker that updates waits for the others
// (and two that both try deadlock, one failing with 40P01); a group whose
// members ended locks nothing.
#[test]
fn share_locks_admit_share_lockers_and_hold_off_writers() {
    let db = Arc::new(sim_db(9));
    let table = Arc::new(db.create_table("t").unwrap());
    let mut setup = db.begin(RC, SYNC).unwrap();
    let row = table.insert(&mut setup, b"row").unwrap();
    setup.commit().unwrap();

    let mut a = db.begin(RC, SYNC).unwrap();
    let mut b = db.begin(RC, SYNC).unwrap();
    let mut c = db.begin(RC, SYNC).unwrap();
    assert_eq!(table.lock_shared(&mut a, row).unwrap(), Write::Done(None));
    assert_eq!(
        table.lock_shared(&mut b, row).unwrap(),
        Write::Done(None),
        "no wait"
    );
    assert_eq!(
        table.lock_shared(&mut c, row).unwrap(),
        Write::Done(None),
        "joins"
    );
    assert_eq!(
        table.lock_shared(&mut a, row).unwrap(),
        Write::Done(None),
        "again"
    );

    let writer = {
        let (db, table) = (db.clone(), table.clone());
        std::thread::spawn(move || {
            let mut w = db.begin(RC, SYNC).unwrap();
            let r = table.update(&mut w, row, b"written", true).unwrap();
            w.commit().unwrap();
            r
        })
    };
    std::thread::sleep(Duration::from_millis(50));
    a.commit().unwrap();
    b.rollback().unwrap();
    std::thread::sleep(Duration::from_millis(50));
    assert!(
        !writer.is_finished(),
        "the writer waits for the last share locker"
    );
    c.commit().unwrap();
    let Write::Done(Some(row)) = writer.join().unwrap() else {
        panic!("the writer updates once every share locker ended")
    };

    // A share locker waits for an exclusive locker.
    let mut x = db.begin(RC, SYNC).unwrap();
    assert_eq!(table.lock(&mut x, row).unwrap(), Write::Done(None));
    let sharer = {
        let (db, table) = (db.clone(), table.clone());
        std::thread::spawn(move || {
            let mut s = db.begin(RC, SYNC).unwrap();
            let r = table.lock_shared(&mut s, row).unwrap();
            s.commit().unwrap();
            r
        })
    };
    std::thread::sleep(Duration::from_millis(50));
    assert!(!sharer.is_finished(), "FOR SHARE waits for FOR UPDATE");
    x.commit().unwrap();
    assert_eq!(sharer.join().unwrap(), Write::Done(None));

    // Two share lockers that both update: one waits for the other, which
    // then waits for the first: a deadlock, one victim.
    let mut p = db.begin(RC, SYNC).unwrap();
    let mut q = db.begin(RC, SYNC).unwrap();
    table.lock_shared(&mut p, row).unwrap();
    table.lock_shared(&mut q, row).unwrap();
    let other = {
        let table = table.clone();
        std::thread::spawn(move || {
            let r = table.update(&mut q, row, b"q", true);
            match r {
                Ok(_) => q.commit().map(|_| ()).map_err(|e| e.to_string()),
                Err(e) => Err(e.to_string()),
            }
        })
    };
    std::thread::sleep(Duration::from_millis(50));
    let mine = table.update(&mut p, row, b"p", true);
    let (mine_ok, other_result) = match mine {
        Ok(_) => {
            p.commit().unwrap();
            (true, other.join().unwrap())
        }
        Err(e) => {
            assert!(e.to_string().contains("deadlock"), "{e}");
            p.rollback().unwrap();
            (false, other.join().unwrap())
        }
    };
    assert!(
        mine_ok != other_result.is_ok(),
        "exactly one of the two updates wins: {mine_ok} {other_result:?}"
    );
    if let Err(e) = &other_result {
        assert!(e.contains("deadlock"), "{e}");
    }

    // Every member ended: the group locks nothing.
    let current = table.scan(&db.begin(RC, SYNC).unwrap()).unwrap()[0].0;
    let mut r1 = db.begin(RC, SYNC).unwrap();
    let mut r2 = db.begin(RC, SYNC).unwrap();
    table.lock_shared(&mut r1, current).unwrap();
    table.lock_shared(&mut r2, current).unwrap();
    r1.commit().unwrap();
    r2.commit().unwrap();
    let mut free = db.begin(RC, SYNC).unwrap();
    assert!(matches!(
        table.update(&mut free, current, b"free", true).unwrap(),
        Write::Done(Some(_))
    ));
    free.commit().unwrap();
}

// Proves HOT updates and pruning keep an update-heavy table from growing:
// 2,000 updates of 10 rows that change no indexed column are all HOT and
// stay on one page (pruning what no snapshot needs each time the page
// fills), the index keeps one entry per row, and index probes find the
// newest version through the HOT chain; while an old snapshot is open,
// the versions it sees are kept (it still reads them), and once it ends
// they are pruned.
#[test]
fn hot_updates_and_pruning_keep_the_table_from_growing() {
    let db = sim_db(9);
    let table = db.create_table("t").unwrap();
    let index = db.create_index("t_k", true).unwrap();
    let mut t = db.begin(RR, SYNC).unwrap();
    let mut tids = Vec::new();
    for k in 0..10u8 {
        let tid = table.insert(&mut t, &[k, 0]).unwrap();
        index.insert(&mut t, &table, &[k], tid).unwrap();
        tids.push(tid);
    }
    t.commit().unwrap();
    let old = db.begin(RR, SYNC).unwrap();
    let update_all = |round: u8, tids: &mut Vec<Tid>| {
        let mut t = db.begin(RR, SYNC).unwrap();
        for (k, tid) in tids.iter_mut().enumerate() {
            match table
                .update(&mut t, *tid, &[k as u8, round], false)
                .unwrap()
            {
                Write::Hot(new) => *tid = new,
                w => panic!("round {round}: not HOT: {w:?}"),
            }
        }
        t.commit().unwrap();
    };
    for round in 1..=10u8 {
        update_all(round, &mut tids);
    }
    // The old snapshot pins the first versions: still readable.
    let first = index.get(&old, &table, &[3]).unwrap();
    assert_eq!(first.len(), 1);
    assert_eq!(first[0].1, vec![3, 0]);
    drop(old);
    for round in 11..=200u8 {
        update_all(round, &mut tids);
    }
    let now = db.begin(RR, SYNC).unwrap();
    for k in 0..10u8 {
        let found = index.get(&now, &table, &[k]).unwrap();
        assert_eq!(found.len(), 1, "key {k}");
        assert_eq!(found[0].1, vec![k, 200]);
    }
    assert_eq!(
        index
            .tree()
            .count(std::ops::Bound::Unbounded, std::ops::Bound::Unbounded)
            .unwrap(),
        10,
        "HOT: no new index entries"
    );
    assert_eq!(
        table.page_ids().unwrap().len(),
        1,
        "one page for 2,000 updates"
    );
}

// Proves the prune hint (folio-heap `hint.rs`): on a full page whose one
// deleted version is not yet dead (an older snapshot still sees it),
// the first write that needs room plans a prune, frees nothing and
// records when the version may die; later writes that need room do not
// plan again while that snapshot lives (an update of another row on the
// page keeps the hint); once it ends, the next write prunes the page. A
// page with nothing deleted is never planned. Replay after a crash gives
// back each page byte for byte (the checksum field aside, filled in when
// a page is written).
#[test]
fn the_prune_hint_skips_pages_with_nothing_dead_yet_and_replays() {
    let dir = SimDir::new(SimConfig::seeded(11));
    let db = Database::create_in(Storage::single(dir.clone()), small_options()).unwrap();
    let table = db.create_table("t").unwrap();
    let mut t = db.begin(RR, SYNC).unwrap();
    // 11 rows of 700 bytes fill a page (a 12th does not fit).
    let mut tids: Vec<Tid> = (0..22u8)
        .map(|i| table.insert(&mut t, &[i; 700]).unwrap())
        .collect();
    t.commit().unwrap();
    let (full, other) = (tids[0].page, tids[11].page);
    assert_ne!(full, other);
    assert_eq!(table.prune_plans(), 0, "nothing deleted: never planned");
    let old = db.begin(RR, SYNC).unwrap();
    let mut t = db.begin(RR, SYNC).unwrap();
    assert_eq!(table.delete(&mut t, tids[0]).unwrap(), Write::Done(None));
    t.commit().unwrap();
    let update = |tid: &mut Tid, byte: u8| {
        let mut t = db.begin(RR, SYNC).unwrap();
        let (Write::Done(Some(new)) | Write::Hot(new)) =
            table.update(&mut t, *tid, &[byte; 700], true).unwrap()
        else {
            panic!("update")
        };
        t.commit().unwrap();
        *tid = new;
    };
    update(&mut tids[1], 101);
    assert_eq!(table.prune_plans(), 1, "planned once, freed nothing");
    assert_ne!(tids[1].page, full);
    update(&mut tids[2], 102);
    update(&mut tids[3], 103);
    assert_eq!(table.prune_plans(), 1, "the hint is above the horizon");
    assert!(table.header(tids[0]).unwrap().is_some(), "still there");
    drop(old);
    update(&mut tids[4], 104);
    assert_eq!(table.prune_plans(), 2, "the horizon passed the hint");
    assert_eq!(tids[4].page, full, "the prune made room");
    assert!(table.header(tids[0]).unwrap().is_none(), "pruned");
    let mut want: Vec<Vec<u8>> = (0..22u8)
        .skip(1)
        .map(|i| vec![if (1..=4).contains(&i) { 100 + i } else { i }; 700])
        .collect();
    want.sort();
    assert_eq!(sorted_rows(&table, &db.begin(RR, SYNC).unwrap()), want);
    let pages: Vec<_> = table.page_ids().unwrap();
    let image = |db: &Database, id| {
        let mut page = *db.pool().shared(id).unwrap();
        page[8..12].fill(0);
        page
    };
    let before: Vec<_> = pages.iter().map(|&id| image(&db, id)).collect();
    drop(table);
    drop(db);
    let db = Database::open_in(Storage::single(dir.crash()), small_options()).unwrap();
    let table = db.open_table("t").unwrap().unwrap();
    assert_eq!(sorted_rows(&table, &db.begin(RR, SYNC).unwrap()), want);
    for (id, page) in pages.iter().zip(&before) {
        assert!(image(&db, *id) == *page, "page {id:?} replayed differently");
    }
    db.verify().unwrap();
}
