//! WAL logging and redo of the B+tree: a random workload on a logged tree,
//! replayed record by record with a driver that mimics recovery (FPI
//! restore, page-LSN check, `BtreeRedo::redo_block`, LSN stamp), rebuilds
//! every page byte for byte — from an empty data file, and from a data file
//! caught mid-run with pages at mixed LSNs; replaying again changes
//! nothing; a failing WAL leaves the tree untouched.

mod common;

use common::wal::{Db, Replayed, assert_same_pages, bare_pool, replay};
use folio_btree::{BtreeError, BtreeRedo, Tree};
use folio_io::{Dir, Fault, FsDir, OpKind, SimConfig, SimDir};
use folio_wal::{PageRedo, Record, RecordBuilder, RmgrId, Wal, WalError};
use rand::{Rng, SeedableRng};
use std::collections::{BTreeMap, HashMap};
use std::ops::Bound;
use std::sync::Arc;

/// Keys of five lengths (40 to 240 bytes, long shared prefixes, so
/// separators are long and inner nodes split early), and one in 13 of the
/// maximal length (so nodes give up their low fences for room).
fn key(n: u64) -> Vec<u8> {
    let len = match n % 13 {
        0 => folio_btree::MAX_KEY_LEN - 8,
        _ => 40 + (n % 5) as usize * 50,
    };
    let mut k = vec![b'k'; len];
    k.extend_from_slice(&n.to_be_bytes());
    k
}

fn value(n: u64, version: u64) -> Vec<u8> {
    let len = ((n ^ version).wrapping_mul(0x9E37_79B9) % 150) as usize;
    let len = len.min(folio_btree::MAX_ENTRY_LEN - key(n).len());
    vec![(n.wrapping_add(version)) as u8; len]
}

/// The contents of `tree`, by a forward scan.
fn contents(tree: &Tree) -> BTreeMap<Vec<u8>, Vec<u8>> {
    tree.scan(
        Bound::Unbounded,
        Bound::Unbounded,
        folio_btree::Direction::Forward,
    )
    .map(|r| r.unwrap())
    .collect()
}

/// Runs a seeded workload of inserts, upserts (changing value sizes),
/// deletes and range deletes (which empty and unlink leaves) on a logged
/// tree. With `checkpoints`, two redo points are set on the way (so
/// existing pages get full-page images again). `hook` runs before every op.
fn workload(
    db: &Db,
    seed: u64,
    ops: usize,
    checkpoints: bool,
    mut hook: impl FnMut(usize, &Db),
) -> (Tree, BTreeMap<Vec<u8>, Vec<u8>>) {
    let tree = Tree::create_logged(db.pool.clone(), Some(db.wal.clone())).unwrap();
    let mut model = BTreeMap::new();
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    for op in 0..ops {
        hook(op, db);
        if checkpoints && (op == ops / 3 || op == 2 * ops / 3) {
            db.wal.set_redo_lsn(db.wal.insert_lsn());
        }
        let n = rng.gen_range(0..4_000u64);
        let (k, v) = (key(n), value(n, op as u64));
        match rng.gen_range(0..1_000) {
            0..550 => match tree.insert(&k, &v) {
                Ok(()) => assert!(model.insert(k, v).is_none()),
                Err(BtreeError::KeyExists) => assert!(model.contains_key(&k)),
                Err(e) => panic!("{e}"),
            },
            550..750 => {
                let replaced = tree.upsert(&k, &v).unwrap();
                assert_eq!(replaced, model.insert(k, v).is_some());
            }
            750..995 => assert_eq!(tree.delete(&k).unwrap(), model.remove(&k).is_some()),
            _ => {
                let doomed: Vec<_> = model.range(k..).take(40).map(|(k, _)| k.clone()).collect();
                for k in doomed {
                    assert!(tree.delete(&k).unwrap());
                    model.remove(&k);
                }
            }
        }
    }
    (tree, model)
}

/// How many records of each B+tree type (by name) and inner splits.
fn census(records: &[Record]) -> HashMap<String, usize> {
    let mut out = HashMap::new();
    for r in records.iter().filter(|r| r.rmgr == RmgrId::BTREE) {
        *out.entry(BtreeRedo.type_name(r.rtype).to_string())
            .or_default() += 1;
        let text = BtreeRedo.describe(r);
        if text.starts_with("SPLIT") && !text.contains("level 0") {
            *out.entry("inner SPLIT".to_string()).or_default() += 1;
        }
        if text.starts_with("ROOT_SPLIT") && !text.contains("level 0") {
            *out.entry("inner ROOT_SPLIT".to_string()).or_default() += 1;
        }
    }
    out
}

#[test]
fn replay_from_an_empty_file_rebuilds_every_page() {
    // Proves that replaying every record of a workload (leaf inserts,
    // updates, deletes, leaf and inner splits, root splits, unlinks, and
    // the pool's allocation records) onto a pool over an empty data file
    // reproduces every page byte for byte (checksum field aside), that the
    // replayed tree verifies and holds exactly the model, and that
    // replaying the same WAL again leaves every page unchanged.
    let db = Db::create(48);
    let (tree, model) = workload(&db, 11, 6_000, true, |_, _| {});
    let report = tree.verify().unwrap();
    assert!(report.height >= 3, "{report:?}");
    assert!(report.without_low_fence > 0, "{report:?}");
    assert_eq!(contents(&tree), model);
    let records = db.records();
    let census = census(&records);
    for name in [
        "CREATE",
        "INSERT",
        "UPDATE",
        "DELETE",
        "SPLIT",
        "ROOT_SPLIT",
        "UNLINK",
        "inner SPLIT",
        "inner ROOT_SPLIT",
    ] {
        assert!(
            census.get(name).is_some_and(|&n| n > 0),
            "no {name}: {census:?}"
        );
    }

    let fresh = bare_pool(&db.dir, "replayed", 4_096, true);
    let first = replay(&fresh, &records);
    assert!(first.images > 0 && first.redone > 0, "{first:?}");
    assert_same_pages(&db.pool, &fresh);
    let replayed = Tree::open(fresh.clone(), tree.root()).unwrap();
    assert_eq!(replayed.verify().unwrap(), report);
    assert_eq!(contents(&replayed), model);

    let second = replay(&fresh, &records);
    assert_eq!(second.images, first.images, "images are restored again");
    assert_same_pages(&db.pool, &fresh);
}

#[test]
fn replay_from_a_redo_point_skips_pages_already_newer() {
    // Proves the page-LSN check and that redo applies to exactly the page
    // state it was logged against: with no full-page images after creation
    // (no redo point is set), a "checkpoint" (redo point R, every page
    // written) followed by more work and a copy of the data file taken
    // later (pages at mixed LSNs, written by eviction under the WAL rule,
    // meta page stale), replaying the records from R onto the copy skips
    // the blocks its pages already contain and ends byte-identical to the
    // original; replaying them once more changes nothing.
    let db = Db::create(24);
    let mut redo_point = None;
    let hook = |op: usize, db: &Db| {
        if op == 2_000 {
            redo_point = Some(db.wal.insert_lsn());
            db.pool.flush_all().unwrap();
        }
        if op == 3_000 {
            std::fs::copy(db.tmp.path().join("db"), db.tmp.path().join("copy")).unwrap();
        }
    };
    let (tree, model) = workload(&db, 12, 4_000, false, hook);
    let redo_point = redo_point.unwrap();
    let records: Vec<Record> = db
        .records()
        .into_iter()
        .filter(|r| r.lsn >= redo_point)
        .collect();
    let dir: Arc<dyn Dir> = Arc::new(FsDir::open(db.tmp.path()).unwrap());
    let copy = bare_pool(&dir, "copy", 4_096, false);
    let first: Replayed = replay(&copy, &records);
    assert!(first.skipped > 0 && first.redone > 0, "{first:?}");
    assert_same_pages(&db.pool, &copy);
    let replayed = Tree::open(copy.clone(), tree.root()).unwrap();
    replayed.verify().unwrap();
    assert_eq!(contents(&replayed), model);
    let second = replay(&copy, &records);
    assert!(second.skipped > first.skipped, "{second:?}");
    assert_same_pages(&db.pool, &copy);
}

#[test]
fn concurrent_writers_replay_to_the_same_pages() {
    // Proves the record order matches the page change order under
    // concurrency (records are inserted while the pages are latched): four
    // threads inserting and deleting interleaved keys through splits and
    // unlinks produce a WAL whose replay onto an empty file is
    // byte-identical to the original pages.
    let db = Db::create(64);
    let tree = Tree::create_logged(db.pool.clone(), Some(db.wal.clone())).unwrap();
    std::thread::scope(|s| {
        for t in 0..4u64 {
            let tree = &tree;
            s.spawn(move || {
                for i in 0..800u64 {
                    let n = i * 4 + t;
                    tree.insert(&key(n), &value(n, t)).unwrap();
                    if i % 3 == 2 {
                        assert!(tree.delete(&key(n - 8)).unwrap());
                    }
                }
            });
        }
    });
    let report = tree.verify().unwrap();
    let records = db.records();
    let fresh = bare_pool(&db.dir, "replayed", 4_096, true);
    replay(&fresh, &records);
    assert_same_pages(&db.pool, &fresh);
    let replayed = Tree::open(fresh.clone(), tree.root()).unwrap();
    assert_eq!(replayed.verify().unwrap(), report);
    assert_eq!(contents(&replayed), contents(&tree));
}

#[test]
fn a_logged_root_map_and_its_trees_replay_from_an_empty_file() {
    // Proves the roots is covered: a logged roots, a unique and a
    // non-unique tree created through it and filled, replayed with the
    // pool's allocation records onto an empty file, is found again by
    // `RootMap::open` (meta root slot), lists both trees, and both hold
    // their entries; every page is byte-identical.
    let db = Db::create(64);
    let roots = folio_btree::RootMap::open_logged(&db.pool, Some(db.wal.clone())).unwrap();
    let accounts = roots.create_tree("accounts").unwrap();
    let by_branch = roots.create_multi_tree("accounts_bid").unwrap();
    assert!(accounts.wal().is_some() && by_branch.tree().wal().is_some());
    for aid in 0..3_000u64 {
        accounts.insert(&aid.to_be_bytes(), &[7u8; 100]).unwrap();
        by_branch
            .insert(&(aid % 7).to_be_bytes(), aid, b"")
            .unwrap();
    }
    let records = db.records();
    let fresh = bare_pool(&db.dir, "replayed", 4_096, true);
    replay(&fresh, &records);
    assert_same_pages(&db.pool, &fresh);
    let replayed = folio_btree::RootMap::open(&fresh).unwrap();
    assert_eq!(replayed.list().unwrap(), roots.list().unwrap());
    let accounts2 = replayed.open_tree("accounts").unwrap().unwrap();
    assert_eq!(contents(&accounts2), contents(&accounts));
    let by_branch2 = replayed.open_multi_tree("accounts_bid").unwrap().unwrap();
    assert_eq!(
        by_branch2
            .count(Bound::Unbounded, Bound::Unbounded)
            .unwrap(),
        3_000
    );
    by_branch2.tree().verify().unwrap();
}

#[test]
fn unlogged_and_logged_trees_hold_the_same_entries() {
    // Proves a tree without a WAL behaves as before (same results and
    // contents for the same operations) and writes no record.
    let db = Db::create(64);
    let before = db.wal.stats().records;
    let unlogged = Tree::create(db.pool.clone()).unwrap();
    let logged = Tree::create_logged(db.pool.clone(), Some(db.wal.clone())).unwrap();
    assert!(unlogged.wal().is_none() && logged.wal().is_some());
    let allocation_records = db.wal.stats().records - before;
    for n in 0..2_000u64 {
        for tree in [&unlogged, &logged] {
            tree.insert(&key(n), &value(n, 0)).unwrap();
            if n % 3 == 0 {
                assert!(tree.delete(&key(n / 2)).unwrap() || n / 2 % 3 == 0 || n / 2 > n);
            }
        }
    }
    assert_eq!(contents(&unlogged), contents(&logged));
    assert_eq!(unlogged.verify().unwrap(), logged.verify().unwrap());
    let btree_records = db
        .records()
        .iter()
        .filter(|r| r.rmgr == RmgrId::BTREE)
        .count();
    assert!(allocation_records >= 2);
    // Every logged change is one record; the unlogged tree added none:
    // 2000 inserts plus the deletes, plus splits and the CREATE.
    assert!(btree_records > 2_000, "{btree_records}");
    let again = db
        .records()
        .iter()
        .filter(|r| r.rmgr == RmgrId::BTREE)
        .count();
    assert_eq!(btree_records, again);
}

#[test]
fn a_failing_wal_leaves_the_tree_unchanged() {
    // Proves the logging order: when the WAL refuses a record (poisoned by
    // a failed fsync), a leaf insert, an insert needing a full-page image,
    // an update, a delete and a split all fail with the WAL's error, the
    // tree verifies with its old contents, and a split's new page goes back
    // to the free list.
    let sim = SimDir::new(SimConfig::seeded(5));
    let dir: Arc<dyn Dir> = sim.clone();
    let pool = bare_pool(&dir, "db", 64, true);
    let wal = Arc::new(Wal::open(dir.clone(), common::wal::wal_config()).unwrap());
    let tree = Tree::create_logged(pool.clone(), Some(wal.clone())).unwrap();
    // An unlogged twin on its own pool takes the same operations first, to
    // find the insert that needs a split.
    let twin = Tree::create(bare_pool(&dir, "twin", 64, true)).unwrap();
    let mut model = BTreeMap::new();
    let mut n = 0u64;
    let mut split_key = None;
    while split_key.is_none() {
        let (k, v) = (
            key(n),
            vec![1u8; 400.min(folio_btree::MAX_ENTRY_LEN - key(n).len())],
        );
        let leaves = twin.verify().unwrap().leaf_pages;
        twin.insert(&k, &v).unwrap();
        if twin.verify().unwrap().leaf_pages > leaves && leaves > 1 {
            split_key = Some(k);
        } else {
            tree.insert(&k, &v).unwrap();
            model.insert(k, v);
        }
        n += 1;
    }
    // The first failing fsync of a segment poisons the WAL (a failing
    // fsync of a segment being created is an ordinary error instead).
    wal.flush_all().unwrap();
    for _ in 0..8 {
        if wal.is_poisoned() {
            break;
        }
        sim.add_fault(sim.ops_of_kind(OpKind::Sync), OpKind::Sync, Fault::Eio);
        let mut filler = RecordBuilder::new(RmgrId::XLOG, 0);
        filler.register_data(b"filler").unwrap();
        wal.insert(&filler).unwrap();
        let _ = wal.flush_all();
    }
    assert!(wal.is_poisoned());
    let free_before = pool.free_page_count().unwrap();
    let poisoned = |r: Result<(), BtreeError>| {
        assert!(
            matches!(r, Err(BtreeError::Wal(WalError::Poisoned))),
            "{r:?}"
        )
    };
    poisoned(tree.insert(&split_key.unwrap(), &[1u8; 400]));
    assert_eq!(
        pool.free_page_count().unwrap(),
        free_before + 1,
        "new page freed"
    );
    poisoned(tree.insert(b"a", b"v"));
    let (some, _) = model.iter().next().unwrap();
    poisoned(tree.upsert(some, b"other").map(|_| ()));
    poisoned(tree.delete(some).map(|_| ()));
    wal.set_redo_lsn(folio_page::Lsn(u64::MAX));
    poisoned(tree.insert(b"a", b"v"));
    tree.verify().unwrap();
    assert_eq!(contents(&tree), model);
}

mod garbage {
    //! Redo on malformed records and unrelated pages returns errors, never panics.
    use super::*;
    use folio_page::{PAGE_SIZE, Page, PageId};
    use folio_wal::Block;
    use proptest::prelude::*;
    use rand::Rng;

    /// A leaf and an inner page as the tree writes them (taken from a real
    /// tree), plus a zero page and a random page.
    fn pages() -> Vec<Box<Page>> {
        let db = Db::create(64);
        let tree = Tree::create_logged(db.pool.clone(), None).unwrap();
        for n in 0..400u64 {
            tree.insert(&key(n), &value(n, 1)).unwrap();
        }
        let root = common::wal::page_image(&db.pool, tree.root());
        let leaf = common::wal::page_image(&db.pool, PageId(tree.root().0 + 1));
        let mut random = Box::new([0u8; PAGE_SIZE]);
        rand_chacha::ChaCha8Rng::seed_from_u64(3).fill(&mut random[..]);
        vec![root, leaf, Box::new([0u8; PAGE_SIZE]), random]
    }

    /// A B+tree record with `blocks` and main `data` (LSNs fixed).
    fn btree_record(rtype: u8, blocks: Vec<Block>, data: Vec<u8>) -> Record {
        Record {
            lsn: folio_page::Lsn(100),
            end_lsn: folio_page::Lsn(200),
            prev_lsn: folio_page::Lsn(0),
            rmgr: RmgrId::BTREE,
            rtype,
            blocks,
            data,
            total_len: 0,
        }
    }

    /// One block per page id in `ids`, each carrying `data`.
    fn blocks_for(ids: &[u64], data: &[u8]) -> Vec<Block> {
        ids.iter()
            .map(|&id| Block {
                page_id: PageId(id),
                image: None,
                data: data.to_vec(),
            })
            .collect()
    }

    fn block() -> impl Strategy<Value = Block> {
        (1u64..8, prop::collection::vec(any::<u8>(), 0..40)).prop_map(|(id, data)| Block {
            page_id: PageId(id),
            image: None,
            data,
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 3_000, ..ProptestConfig::default() })]

        #[test]
        fn redo_of_garbage_is_an_error_not_a_panic(
            rtype in 0u8..10,
            blocks in prop::collection::vec(block(), 0..6),
            data in prop::collection::vec(any::<u8>(), 0..40),
            which in 0usize..4,
            block in 0usize..6,
        ) {
            // Proves redo_block and describe are total: arbitrary record
            // types, block counts, block data and main data applied to a
            // leaf, an inner node, a zero page or random bytes yield Ok or
            // an error, never a panic or out-of-bounds access.
            thread_local!(static PAGES: Vec<Box<Page>> = pages());
            let record = btree_record(rtype, blocks, data);
            let _ = BtreeRedo.describe(&record);
            let mut page = PAGES.with(|p| p[which].clone());
            let _ = BtreeRedo.redo_block(&record, block, &mut page);
        }
    }

    fn u16le(v: usize) -> [u8; 2] {
        (v as u16).to_le_bytes()
    }

    /// Well-formed payloads of every record type with arbitrary field
    /// values (slots, split points, positions, levels, keys of up to 600
    /// bytes, values of up to 2000), encoded as the README's tables say.
    fn structured() -> impl Strategy<Value = (u8, Vec<u8>, Vec<u8>)> {
        let bytes = |max| prop::collection::vec(prop_oneof![Just(b'k'), any::<u8>()], 0..max);
        (
            1u8..8,
            0usize..300,
            0usize..300,
            0u8..3,
            bytes(600),
            bytes(2_000),
            any::<bool>(),
        )
            .prop_map(|(rtype, a, b, level, key, value, flag)| {
                let mut block = Vec::new();
                let mut main = Vec::new();
                match rtype {
                    2..=4 => {
                        block.extend_from_slice(&u16le(a));
                        block.extend_from_slice(&u16le(key.len()));
                        block.extend_from_slice(&key);
                        if rtype != 4 {
                            block.extend_from_slice(&value);
                        }
                    }
                    5 => {
                        main.push(level);
                        main.extend_from_slice(&u16le(a));
                        main.extend_from_slice(&u16le(b));
                        main.extend_from_slice(&u16le(key.len()));
                        main.extend_from_slice(&key);
                    }
                    6 => {
                        main.push(level);
                        main.extend_from_slice(&u16le(key.len()));
                        main.extend_from_slice(&key);
                    }
                    _ => {
                        main.extend_from_slice(&u16le(a));
                        main.push(u8::from(flag));
                        let high: &[u8] = if flag { &key } else { &[] };
                        main.extend_from_slice(&u16le(high.len()));
                        main.extend_from_slice(high);
                    }
                }
                (rtype, block, main)
            })
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 2_000, ..ProptestConfig::default() })]

        #[test]
        fn structured_garbage_is_checked_not_trusted(
            (rtype, block_data, main) in structured(),
            ids in prop::collection::vec(0u64..5, 1..5),
            which in 0usize..4,
            block in 0usize..4,
        ) {
            // Proves the checks inside redo: records that decode but whose
            // slots, keys, split points, positions, levels, fences and page
            // ids are arbitrary, applied to real leaf and inner pages (and
            // to zero and random pages), return Ok or an error without
            // panicking.
            thread_local!(static PAGES: Vec<Box<Page>> = pages());
            let record = btree_record(rtype, blocks_for(&ids, &block_data), main);
            let _ = BtreeRedo.describe(&record);
            let mut page = PAGES.with(|p| p[which].clone());
            let _ = BtreeRedo.redo_block(&record, block, &mut page);
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 2_000, ..ProptestConfig::default() })]

        #[test]
        fn redo_on_corrupted_real_pages_fails_cleanly(
            (rtype, block_data, main) in structured(),
            ids in prop::collection::vec(0u64..5, 1..5),
            which in 0usize..2,
            block in 0usize..4,
            corruptions in prop::collection::vec(
                (0usize..PAGE_SIZE, any::<u8>(), any::<bool>()),
                1..6,
            ),
        ) {
            // Proves redo on torn or corrupt nodes (a real leaf or inner
            // page with bytes of its header, slot array or heap
            // overwritten) returns Ok or an error naming the page, never
            // panics, and leaves the page unchanged when it fails.
            thread_local!(static PAGES: Vec<Box<Page>> = pages());
            let mut page = PAGES.with(|p| p[which].clone());
            for (at, byte, near_front) in corruptions {
                // Half of the corruptions hit the node header and the slot array.
                let at = if near_front { 24 + at % 1024 } else { at };
                page[at] = byte;
            }
            let record = btree_record(rtype, blocks_for(&ids, &block_data), main);
            let before = page.clone();
            if let Err(e) = BtreeRedo.redo_block(&record, block, &mut page) {
                prop_assert!(page == before, "failed redo changed the page: {}", e.reason);
                let page = ids.get(block).map_or("no page".to_string(), |&id| PageId(id).to_string());
                let named = format!("({page})");
                prop_assert!(e.reason.contains(&named), "{} does not name {}", e.reason, named);
            }
        }
    }

    #[test]
    fn mutated_real_records_never_panic() {
        // Proves redo is total on near-valid input: every record of a real
        // workload, with one byte of its block or main data changed or its
        // data truncated, applied to each sample page, returns Ok or an
        // error without panicking; unchanged records on the wrong page type
        // are rejected.
        let db = Db::create(48);
        let _ = workload(&db, 13, 1_500, true, |_, _| {});
        let records: Vec<Record> = db
            .records()
            .into_iter()
            .filter(|r| r.rmgr == RmgrId::BTREE)
            .collect();
        let samples = pages();
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(9);
        let mut errors = 0;
        for record in &records {
            for (b, _) in record.blocks.iter().enumerate() {
                for sample in &samples {
                    let mut mutated = record.clone();
                    match rng.gen_range(0..3) {
                        0 if !mutated.data.is_empty() => {
                            let i = rng.gen_range(0..mutated.data.len());
                            mutated.data[i] ^= 1 << rng.gen_range(0..8);
                        }
                        1 if !mutated.blocks[b].data.is_empty() => {
                            let d = &mut mutated.blocks[b].data;
                            let i = rng.gen_range(0..d.len());
                            d[i] = rng.r#gen();
                        }
                        _ => {
                            let d = &mut mutated.blocks[b].data;
                            d.truncate(d.len() / 2);
                            mutated.data.truncate(mutated.data.len() / 2);
                        }
                    }
                    let mut page = sample.clone();
                    errors += usize::from(BtreeRedo.redo_block(&mutated, b, &mut page).is_err());
                }
            }
        }
        assert!(
            errors > records.len(),
            "most mutations are caught: {errors}"
        );
    }
}

// Proves the leaf-stamp rule (`kill.rs`): entries read under a stamp are
// removed only while the leaf's LSN is the stamp's; any change of the leaf
// in between (an insert, a delete, a re-insert of the same entry) makes the
// removal a no-op; an unlogged tree never removes this way; and the
// removals replay like deletes.
#[test]
fn entries_are_removed_by_stamp_only_from_an_unchanged_leaf() {
    let db = Db::create(256);
    let tree =
        folio_btree::MultiTree::create_logged(db.pool.clone(), Some(db.wal.clone())).unwrap();
    for tid in 0..20u64 {
        tree.insert(b"k", tid, b"").unwrap();
    }
    // A key after them, so a probe of "k" knows it has them all.
    tree.insert(b"z", 0, b"").unwrap();
    let stamp_of = |tree: &folio_btree::MultiTree| {
        let mut tids = Vec::new();
        let stamp = tree
            .probe_stamped(b"k", &mut tids)
            .unwrap()
            .expect("one leaf");
        let k: &[u8] = b"k";
        assert_eq!(
            tids.len() as u64,
            tree.count(Bound::Included(k), Bound::Included(k)).unwrap()
        );
        stamp
    };
    let doomed: Vec<(Vec<u8>, u64)> = (0..5).map(|tid| (b"k".to_vec(), tid)).collect();

    // Unchanged: removed.
    let stamp = stamp_of(&tree);
    assert_eq!(tree.delete_if_unchanged(stamp, &doomed).unwrap(), 5);
    assert_eq!(tree.count(Bound::Unbounded, Bound::Unbounded).unwrap(), 16);
    // The same stamp again: the leaf changed (by the removal itself).
    assert_eq!(tree.delete_if_unchanged(stamp, &doomed).unwrap(), 0);

    // A delete and a re-insert of the very entry in between: refused, and
    // the re-inserted entry stays.
    let stamp = stamp_of(&tree);
    assert!(tree.delete(b"k", 7).unwrap());
    tree.insert(b"k", 7, b"").unwrap();
    let again = [(b"k".to_vec(), 7u64)];
    assert_eq!(tree.delete_if_unchanged(stamp, &again).unwrap(), 0);
    let mut tids = Vec::new();
    assert!(tree.probe(b"k", &mut tids).unwrap());
    assert!(tids.contains(&7));

    // A scan's batch carries the same stamp as a probe of that leaf.
    let mut scan = tree.scan_key(b"k", folio_btree::Direction::Forward);
    scan.next_entry().unwrap().unwrap();
    assert_eq!(scan.batch_stamp(), Some(stamp_of(&tree)));
    drop(scan);

    // An unlogged tree keeps no LSN: nothing is removed.
    let unlogged = folio_btree::MultiTree::create_logged(db.pool.clone(), None).unwrap();
    unlogged.insert(b"k", 1, b"").unwrap();
    unlogged.insert(b"z", 1, b"").unwrap();
    let stamp = stamp_of(&unlogged);
    assert_eq!(
        unlogged
            .delete_if_unchanged(stamp, &[(b"k".to_vec(), 1)])
            .unwrap(),
        0
    );

    // Replayed onto an empty file, the logged tree's pages come out the same.
    let records = db.records();
    let replayed = bare_pool(&db.dir, "replayed", 256, true);
    replay(&replayed, &records);
    let (original, copy) = (
        common::wal::page_image(&db.pool, tree.tree().root()),
        common::wal::page_image(&replayed, tree.tree().root()),
    );
    assert_eq!(original[24..], copy[24..]);
}
