//! Indexes on heap tables: scans that check heap visibility, and unique
//! indexes correct under MVCC (PostgreSQL's rules).

mod common;

use common::*;
use folio_btree::Direction;
use folio_db::{Database, Durability, Index, Isolation, Options, Storage, Table, Write};
use folio_heap::HeapError;
use folio_io::{SimConfig, SimDir};
use std::ops::Bound;
use std::sync::Arc;
use std::time::Duration;

const RR: Isolation = Isolation::RepeatableRead;
const SYNC: Durability = Durability::Sync;

fn db(seed: u64) -> Arc<Database> {
    let options = Options {
        background_io: false,
        ..small_options()
    };
    Arc::new(
        Database::create_in(
            Storage::single(SimDir::new(SimConfig::seeded(seed))),
            options,
        )
        .unwrap(),
    )
}

fn keys(rows: &[(folio_db::Tid, Vec<u8>)]) -> Vec<Vec<u8>> {
    rows.iter().map(|(_, r)| r.clone()).collect()
}

// Proves an index scan returns only the versions the snapshot sees —
// not another transaction's uncommitted insert, not a deleted row, the
// updated row once (its new version, through the entry the update added)
// — forward and backward in key order.
#[test]
fn index_scans_check_heap_visibility() {
    let db = db(1);
    let table = db.create_table("t").unwrap();
    let index = db.create_index("t_k", false).unwrap();
    let insert = |t: &mut folio_db::Transaction, k: &str| {
        let tid = table.insert(t, k.as_bytes()).unwrap();
        index.insert(t, &table, k.as_bytes(), tid).unwrap();
        tid
    };
    let mut t = db.begin(RR, SYNC).unwrap();
    let tids: Vec<_> = ["a", "b", "c", "d"]
        .iter()
        .map(|k| insert(&mut t, k))
        .collect();
    t.commit().unwrap();
    let mut w = db.begin(RR, SYNC).unwrap();
    insert(&mut w, "e");
    assert_eq!(table.delete(&mut w, tids[1]).unwrap(), Write::Done(None));
    let Write::Done(Some(new)) = table.update(&mut w, tids[2], b"c2", true).unwrap() else {
        panic!("update")
    };
    index.insert(&mut w, &table, b"c2", new).unwrap();
    let before = db.begin(RR, SYNC).unwrap();
    w.commit().unwrap();
    let all = |txn: &folio_db::Transaction, direction| {
        keys(
            &index
                .scan(txn, &table, Bound::Unbounded, Bound::Unbounded, direction)
                .unwrap(),
        )
    };
    let v = |s: &[&str]| s.iter().map(|k| k.as_bytes().to_vec()).collect::<Vec<_>>();
    assert_eq!(all(&before, Direction::Forward), v(&["a", "b", "c", "d"]));
    let after = db.begin(RR, SYNC).unwrap();
    assert_eq!(all(&after, Direction::Forward), v(&["a", "c2", "d", "e"]));
    assert_eq!(all(&after, Direction::Backward), v(&["e", "d", "c2", "a"]));
    assert_eq!(
        keys(&index.get(&after, &table, b"b").unwrap()),
        Vec::<Vec<u8>>::new()
    );
}

/// Inserts `key` into the table and its unique index.
fn insert_unique(
    table: &Table,
    index: &Index,
    t: &mut folio_db::Transaction,
    key: &[u8],
) -> Result<folio_db::Tid, HeapError> {
    let tid = table.insert(t, key)?;
    index.insert(t, table, key, tid)?;
    Ok(tid)
}

// Proves a unique index refuses a second live row with the same key
// (23505, PostgreSQL's message), accepts the key again once the row is
// deleted and committed, lets a transaction update a row keeping its key,
// and makes a concurrent inserter of the same key wait for the first:
// then it fails if the first committed and succeeds if it rolled back.
#[test]
fn unique_indexes_refuse_duplicates_and_wait_for_running_inserters() {
    let db = db(2);
    let table = Arc::new(db.create_table("t").unwrap());
    let index = Arc::new(db.create_index("t_pkey", true).unwrap());
    let mut t = db.begin(RR, SYNC).unwrap();
    let k = insert_unique(&table, &index, &mut t, b"k").unwrap();
    let e = insert_unique(&table, &index, &mut t, b"k").unwrap_err();
    assert_eq!(e.sqlstate(), Some("23505"));
    assert_eq!(
        e.to_string(),
        "duplicate key value violates unique constraint \"t_pkey\""
    );
    let Write::Done(Some(k2)) = table.update(&mut t, k, b"k", true).unwrap() else {
        panic!("update")
    };
    index.insert(&mut t, &table, b"k", k2).unwrap();
    t.commit().unwrap();

    let mut d = db.begin(RR, SYNC).unwrap();
    assert_eq!(table.delete(&mut d, k2).unwrap(), Write::Done(None));
    d.commit().unwrap();
    let mut again = db.begin(RR, SYNC).unwrap();
    insert_unique(&table, &index, &mut again, b"k").unwrap();
    again.commit().unwrap();

    for (first_commits, key) in [(true, b"x"), (false, b"y")] {
        let mut first = db.begin(RR, SYNC).unwrap();
        insert_unique(&table, &index, &mut first, key).unwrap();
        let (table2, index2, db2) = (table.clone(), index.clone(), db.clone());
        let second = std::thread::spawn(move || {
            let mut t = db2.begin(RR, SYNC).unwrap();
            let r = insert_unique(&table2, &index2, &mut t, key);
            if r.is_ok() {
                t.commit().unwrap();
            }
            r.map(|_| ())
        });
        std::thread::sleep(Duration::from_millis(50));
        assert!(!second.is_finished(), "the second inserter waits");
        if first_commits {
            first.commit().unwrap();
            let e = second.join().unwrap().unwrap_err();
            assert_eq!(e.sqlstate(), Some("23505"));
        } else {
            first.rollback().unwrap();
            second.join().unwrap().unwrap();
        }
    }
    let now = db.begin(RR, SYNC).unwrap();
    assert_eq!(index.get(&now, &table, b"x").unwrap().len(), 1);
    assert_eq!(index.get(&now, &table, b"y").unwrap().len(), 1);
    assert_eq!(index.get(&now, &table, b"k").unwrap().len(), 1);
}

/// Table `t` with `rows` rows and index `t_k` on them, each row then
/// updated `rounds` times with a changed key (so each update adds an
/// index entry and leaves a dead version behind); the rows' newest tids.
fn with_dead_versions(db: &Database, rows: u32, rounds: u32) -> (Table, Index, Vec<folio_db::Tid>) {
    let table = db.create_table("t").unwrap();
    let index = db.create_index("t_k", false).unwrap();
    let mut t = db.begin(RR, SYNC).unwrap();
    let mut tids = Vec::new();
    for k in 0..rows {
        let row = [k.to_be_bytes(), 0u32.to_be_bytes()].concat();
        let tid = table.insert(&mut t, &row).unwrap();
        index.insert(&mut t, &table, &row, tid).unwrap();
        tids.push(tid);
    }
    t.commit().unwrap();
    for round in 1..=rounds {
        let mut t = db.begin(RR, SYNC).unwrap();
        for (k, tid) in tids.iter_mut().enumerate() {
            let row = [(k as u32).to_be_bytes(), round.to_be_bytes()].concat();
            let Write::Done(Some(new)) = table.update(&mut t, *tid, &row, true).unwrap() else {
                panic!("an indexed update is never HOT")
            };
            index.insert(&mut t, &table, &row, new).unwrap();
            *tid = new;
        }
        t.commit().unwrap();
    }
    (table, index, tids)
}

// Proves vacuum removes what pruning cannot: after 20 rounds of updates
// that change the indexed key (each adds an index entry and leaves the
// old version's line pointer Dead once pruned), vacuum removes exactly
// the dead versions' index entries and frees their line pointers, every
// live row is still found through the index, the index then holds one
// entry per row, and later inserts reuse the freed line pointers instead
// of growing the table.
#[test]
fn vacuum_removes_dead_index_entries_and_frees_line_pointers() {
    let db = db(3);
    let (table, index, _) = with_dead_versions(&db, 50, 20);
    let entries = || {
        index
            .tree()
            .count(Bound::Unbounded, Bound::Unbounded)
            .unwrap()
    };
    assert_eq!(entries(), 50 * 21);
    let stats = table.vacuum(db.txns(), &[&index]).unwrap();
    assert_eq!(stats.index_entries_removed, 50 * 20, "{stats:?}");
    assert_eq!(stats.freed_line_pointers, stats.dead_line_pointers);
    assert_eq!(entries(), 50);
    let now = db.begin(RR, SYNC).unwrap();
    let rows = index
        .scan(
            &now,
            &table,
            Bound::Unbounded,
            Bound::Unbounded,
            Direction::Forward,
        )
        .unwrap();
    assert_eq!(rows.len(), 50);
    assert!(rows.iter().all(|(_, r)| r[4..] == 20u32.to_be_bytes()));
    drop(now);
    let pages = table.page_ids().unwrap().len();
    let mut t = db.begin(RR, SYNC).unwrap();
    for k in 100..200u32 {
        table.insert(&mut t, &k.to_be_bytes()).unwrap();
    }
    t.commit().unwrap();
    assert_eq!(table.page_ids().unwrap().len(), pages, "freed space reused");
    let again = table.vacuum(db.txns(), &[&index]).unwrap();
    assert_eq!(again.index_entries_removed, 0, "{again:?}");
}

// Proves two vacuums of one table at once (a VACUUM beside autovacuum)
// cannot free a line pointer twice: they take turns, so the dead versions'
// index entries are removed once between them, every line pointer one
// found Dead is freed once, and every live row is still found through the
// index. (Before they took turns, the second one's step 3 could meet an
// item the first had freed and truncated away: "item N out of range";
// or, reused by an insert meanwhile, free a live row.)
#[test]
fn concurrent_vacuums_of_one_table_take_turns() {
    for seed in 0..4u64 {
        let db = db(40 + seed);
        let (table, index, _) = with_dead_versions(&db, 200, 5);
        let barrier = std::sync::Barrier::new(2);
        let stats: Vec<_> = std::thread::scope(|s| {
            let vacuum = || {
                barrier.wait();
                table.vacuum(db.txns(), &[&index]).unwrap()
            };
            let a = s.spawn(vacuum);
            let b = s.spawn(vacuum);
            vec![a.join().unwrap(), b.join().unwrap()]
        });
        let removed: u64 = stats.iter().map(|s| s.index_entries_removed).sum();
        let freed: u64 = stats.iter().map(|s| s.freed_line_pointers).sum();
        assert_eq!(removed, 200 * 5, "{stats:?}");
        assert_eq!(freed, 200 * 5, "{stats:?}");
        let now = db.begin(RR, SYNC).unwrap();
        let rows = index
            .scan(
                &now,
                &table,
                Bound::Unbounded,
                Bound::Unbounded,
                Direction::Forward,
            )
            .unwrap();
        assert_eq!(rows.len(), 200);
        assert!(rows.iter().all(|(_, r)| r[4..] == 5u32.to_be_bytes()));
    }
}

// Proves killed entries: an index read that finds an entry leading only
// to versions dead to every snapshot removes it (point probes and range
// scans alike), never while a snapshot that may see a version is open,
// without changing any result; vacuum and the index/heap check agree
// afterwards.
#[test]
fn readers_remove_entries_that_lead_to_nothing_any_snapshot_sees() {
    let db = db(8);
    let table = db.create_table("t").unwrap();
    let index = db.create_index("t_k", false).unwrap();
    let mut t = db.begin(RR, SYNC).unwrap();
    let mut same_key = Vec::new();
    for _ in 0..30 {
        let tid = table.insert(&mut t, b"dup").unwrap();
        index.insert(&mut t, &table, b"dup", tid).unwrap();
        same_key.push(tid);
    }
    let mut spread = Vec::new();
    for k in 0..400u32 {
        let key = format!("key-{k:05}-{}", "x".repeat(40));
        let tid = table.insert(&mut t, key.as_bytes()).unwrap();
        index.insert(&mut t, &table, key.as_bytes(), tid).unwrap();
        spread.push(tid);
    }
    t.commit().unwrap();
    let entries = || {
        index
            .tree()
            .count(Bound::Unbounded, Bound::Unbounded)
            .unwrap()
    };
    assert_eq!(entries(), 430);

    let old = db.begin(RR, SYNC).unwrap();
    let mut d = db.begin(RR, SYNC).unwrap();
    for tid in same_key[..20].iter().chain(spread.iter().step_by(2)) {
        assert_eq!(table.delete(&mut d, *tid).unwrap(), Write::Done(None));
    }
    d.commit().unwrap();
    // `old` may still see the deleted versions: nothing goes.
    let now = db.begin(RR, SYNC).unwrap();
    assert_eq!(index.get(&now, &table, b"dup").unwrap().len(), 10);
    assert_eq!(index.get(&old, &table, b"dup").unwrap().len(), 30);
    assert_eq!(index.killed(), 0);
    assert_eq!(entries(), 430);
    old.commit().unwrap();
    now.commit().unwrap();

    // Now they are dead to all: a probe removes the key's 20, a scan the
    // 200 spread over several leaves; results are unchanged.
    let r = db.begin(RR, SYNC).unwrap();
    assert_eq!(index.get(&r, &table, b"dup").unwrap().len(), 10);
    assert_eq!(index.killed(), 20);
    let (rows, pages) = index
        .scan_counted(
            &r,
            &table,
            Bound::Included(b"key-".as_slice()),
            Bound::Unbounded,
            Direction::Forward,
            None,
        )
        .unwrap();
    assert_eq!(rows.len(), 200);
    assert!(pages.index > 3, "the scan crossed leaves: {pages:?}");
    assert_eq!(index.killed(), 220);
    assert_eq!(entries(), 210);
    // A second scan follows only the live entries.
    let (again, pages) = index
        .scan_counted(
            &r,
            &table,
            Bound::Included(b"key-".as_slice()),
            Bound::Unbounded,
            Direction::Backward,
            None,
        )
        .unwrap();
    assert_eq!(again.len(), 200);
    assert_eq!(pages.heap, 200);
    r.commit().unwrap();

    // Vacuum finds the killed entries gone and frees the line pointers.
    let stats = table.vacuum(db.txns(), &[&index]).unwrap();
    assert_eq!(stats.index_entries_removed, 0, "{stats:?}");
    assert_eq!(stats.freed_line_pointers, 220, "{stats:?}");
    db.check_invariants().unwrap();
}

// Proves seed 004's target through the heap: a forward and a backward
// index scan of the same range (1,000 of 5,000 rows, the index built in
// key order) return the same rows in opposite orders and access the same
// number of pages, index pages and heap pages alike.
#[test]
fn forward_and_backward_index_scans_access_the_same_pages() {
    // A pool that holds the scanned pages: with the 10 pages of
    // `small_options`, an index page evicted by the heap pages the scan
    // reads makes the scan start again from the root (folio-btree's
    // restarts), which counts pages that say nothing about direction
    // (and whose number moved when the catalog gained trees).
    let options = Options {
        background_io: false,
        pool_size_bytes: 256 * 8192,
        ..small_options()
    };
    let db = Arc::new(
        Database::create_in(Storage::single(SimDir::new(SimConfig::seeded(4))), options).unwrap(),
    );
    let table = db.create_table("t").unwrap();
    let index = db.create_index("t_k", false).unwrap();
    let mut t = db.begin(RR, SYNC).unwrap();
    for k in 0..5000u32 {
        let tid = table
            .insert(&mut t, &[k.to_be_bytes().as_slice(), &[7u8; 60]].concat())
            .unwrap();
        index.insert(&mut t, &table, &k.to_be_bytes(), tid).unwrap();
    }
    t.commit().unwrap();
    let t = db.begin(RR, SYNC).unwrap();
    let (lo, hi) = (2000u32.to_be_bytes(), 2999u32.to_be_bytes());
    let range = |direction| {
        index
            .scan_counted(
                &t,
                &table,
                Bound::Included(&lo[..]),
                Bound::Included(&hi[..]),
                direction,
                None,
            )
            .unwrap()
    };
    let (forward, fp) = range(Direction::Forward);
    let (mut backward, bp) = range(Direction::Backward);
    backward.reverse();
    assert_eq!(forward.len(), 1000);
    assert_eq!(forward, backward);
    assert_eq!(fp, bp, "forward {fp:?}, backward {bp:?}");
    assert_eq!(fp.heap, 1000);
}

// Proves index-only counting with the visibility map: after vacuum every
// page is all-visible and a range is counted from the index alone (no heap
// page read); a change to a page clears its bit, so an uncommitted insert
// and an update are checked on the heap and counted right for each
// snapshot; the next vacuum makes the pages all-visible again, and an
// index-only scan returns the keys themselves, backward, from the index.
#[test]
fn index_only_counts_read_no_heap_on_all_visible_pages() {
    let db = db(5);
    let table = db.create_table("t").unwrap();
    let index = db.create_index("t_k", false).unwrap();
    let mut t = db.begin(RR, SYNC).unwrap();
    let mut tids = Vec::new();
    for k in 0..1000u32 {
        let tid = table
            .insert(&mut t, &[k.to_be_bytes().as_slice(), &[1u8; 40]].concat())
            .unwrap();
        index
            .insert(&mut t, &table, &(k % 10).to_be_bytes(), tid)
            .unwrap();
        tids.push(tid);
    }
    t.commit().unwrap();
    let stats = table.vacuum(db.txns(), &[&index]).unwrap();
    assert_eq!(stats.all_visible_pages, stats.pages, "{stats:?}");
    let three = 3u32.to_be_bytes();
    let count = |t: &folio_db::Transaction| {
        index
            .count_visible(
                t,
                &table,
                Bound::Included(&three[..]),
                Bound::Included(&three[..]),
            )
            .unwrap()
    };
    let reader = db.begin(RR, SYNC).unwrap();
    let (n, pages) = count(&reader);
    assert_eq!((n, pages.heap), (100, 0), "index-only");

    let mut w = db.begin(RR, SYNC).unwrap();
    let tid = table.insert(&mut w, b"new row").unwrap();
    index.insert(&mut w, &table, &three, tid).unwrap();
    let Write::Done(Some(moved)) = table.update(&mut w, tids[3], b"updated", true).unwrap() else {
        panic!("update")
    };
    index.insert(&mut w, &table, &three, moved).unwrap();
    let (n, pages) = count(&reader);
    assert_eq!(n, 100, "the reader's snapshot: neither change");
    assert!(pages.heap > 0, "changed pages are read from the heap");
    assert_eq!(
        count(&w).0,
        101,
        "the writer sees its insert, and its update once"
    );
    w.commit().unwrap();
    drop(reader);
    let after = db.begin(RR, SYNC).unwrap();
    assert_eq!(count(&after).0, 101);
    drop(after);
    table.vacuum(db.txns(), &[&index]).unwrap();
    let (n, pages) = count(&db.begin(RR, SYNC).unwrap());
    assert_eq!((n, pages.heap), (101, 0));

    // The keys themselves, backward, without the heap.
    let (two, four) = (2u32.to_be_bytes(), 4u32.to_be_bytes());
    let mut keys = Vec::new();
    let pages = index
        .only_scan(
            &db.begin(RR, SYNC).unwrap(),
            &table,
            Bound::Included(&two[..]),
            Bound::Included(&four[..]),
            Direction::Backward,
            |k| keys.push(u32::from_be_bytes(k.try_into().unwrap())),
        )
        .unwrap();
    assert_eq!(pages.heap, 0);
    let expected: Vec<u32> = [(4, 100), (3, 101), (2, 100)]
        .iter()
        .flat_map(|&(k, n)| std::iter::repeat_n(k, n))
        .collect();
    assert_eq!(keys, expected);
}

// Proves an index-only lookup of one key (`only_get`, read in place from
// its leaf) finds what an index-only scan of `[key, key]` finds, for
// snapshots before, during and after a writer's insert and update, with
// no heap read on all-visible pages; for a key with no entries; and for a
// key whose entries fill several leaves (the lookup then scans).
#[test]
fn index_only_lookups_agree_with_index_only_scans() {
    let db = db(6);
    let table = db.create_table("t").unwrap();
    let index = db.create_index("t_k", false).unwrap();
    let mut t = db.begin(RR, SYNC).unwrap();
    let mut tids = Vec::new();
    for k in 0..3000u32 {
        // Keys 0-9 take 100 each of the first 1,000 rows, and key 7 also
        // every later row: 2,100 entries, over several leaves.
        let key = if k < 1000 && k % 10 != 7 { k % 10 } else { 7 };
        let tid = table
            .insert(&mut t, &[k.to_be_bytes().as_slice(), &[1u8; 40]].concat())
            .unwrap();
        index
            .insert(&mut t, &table, &key.to_be_bytes(), tid)
            .unwrap();
        tids.push(tid);
    }
    t.commit().unwrap();
    table.vacuum(db.txns(), &[&index]).unwrap();
    let both = |t: &folio_db::Transaction, key: u32| {
        let key = key.to_be_bytes();
        let mut looked = 0u64;
        let by_get = index.only_get(t, &table, &key, |k| {
            assert_eq!(k, key);
            looked += 1;
        });
        let (scanned, by_scan) = index
            .count_visible(
                t,
                &table,
                Bound::Included(&key[..]),
                Bound::Included(&key[..]),
            )
            .unwrap();
        let by_get = by_get.unwrap();
        assert_eq!(looked, scanned, "key {key:?}");
        (looked, by_get.heap, by_scan.heap)
    };
    let reader = db.begin(RR, SYNC).unwrap();
    assert_eq!(both(&reader, 3), (100, 0, 0), "all-visible: no heap read");
    assert_eq!(both(&reader, 11).0, 0, "no entries");
    let many = 3000 - 900;
    assert_eq!(both(&reader, 7).0, many, "entries over several leaves");

    let mut w = db.begin(RR, SYNC).unwrap();
    let three = 3u32.to_be_bytes();
    let tid = table.insert(&mut w, b"new row").unwrap();
    index.insert(&mut w, &table, &three, tid).unwrap();
    let Write::Done(Some(moved)) = table.update(&mut w, tids[3], b"updated", true).unwrap() else {
        panic!("update")
    };
    index.insert(&mut w, &table, &three, moved).unwrap();
    let (n, get_heap, _) = both(&reader, 3);
    assert_eq!(n, 100, "the reader's snapshot: neither change");
    assert!(get_heap > 0, "changed pages are read from the heap");
    assert_eq!(
        both(&w, 3).0,
        101,
        "the writer: its insert, its update once"
    );
    w.commit().unwrap();
    drop(reader);
    assert_eq!(both(&db.begin(RR, SYNC).unwrap(), 3).0, 101);
}
