//! Bottom-up builds (`Tree::builder`): a tree built from ascending entries
//! holds exactly them, verifies, scans the same both ways, fills its
//! leaves as the ascending split does, takes inserts and deletes after;
//! keys up to the size limit build (nodes give up low fences, carry
//! entries on); keys out of order, a non-empty tree and an oversized entry
//! are errors that leave the tree empty and its pages free; a logged build
//! replays from an empty file to the same pages.

mod common;

use common::wal::{Db, assert_same_pages, bare_pool, replay};
use folio_btree::{BtreeError, Direction, MAX_KEY_LEN, Tree};
use std::collections::BTreeMap;
use std::ops::Bound;

fn contents(tree: &Tree, direction: Direction) -> Vec<(Vec<u8>, Vec<u8>)> {
    tree.scan(Bound::Unbounded, Bound::Unbounded, direction)
        .map(|r| r.unwrap())
        .collect()
}

/// `n` entries: 8-byte big-endian keys behind a shared 12-byte prefix,
/// with one in `long_every` padded to near the key limit (0: none).
fn entries(n: u64, long_every: u64) -> BTreeMap<Vec<u8>, Vec<u8>> {
    (0..n)
        .map(|i| {
            let mut k = b"index/prefix".to_vec();
            k.extend_from_slice(&i.to_be_bytes());
            if long_every != 0 && i % long_every == 7 {
                k.resize(MAX_KEY_LEN - 8, b'z');
            }
            let v = vec![i as u8; (i % 9) as usize];
            (k, v)
        })
        .collect()
}

fn build(tree: &Tree, model: &BTreeMap<Vec<u8>, Vec<u8>>) -> folio_btree::BuildStats {
    let mut builder = tree.builder().unwrap();
    for (k, v) in model {
        builder.push(k.clone(), v.clone()).unwrap();
    }
    builder.finish().unwrap()
}

fn check(tree: &Tree, model: &BTreeMap<Vec<u8>, Vec<u8>>) -> folio_btree::VerifyReport {
    let report = tree.verify().unwrap();
    let forward = contents(tree, Direction::Forward);
    let want: Vec<_> = model.clone().into_iter().collect();
    assert_eq!(forward, want);
    let mut backward = contents(tree, Direction::Backward);
    backward.reverse();
    assert_eq!(backward, want);
    for (k, v) in model.iter().step_by(97) {
        assert_eq!(tree.get(k).unwrap().as_ref(), Some(v));
    }
    report
}

// Proves a build of 60,000 entries: every entry found by scans both ways
// and by lookups, the tree verifies with several levels, the leaves are
// filled as the ascending split fills them (about 90%), and the tree takes
// inserts (between built keys, splitting built leaves) and deletes after.
#[test]
fn a_built_tree_holds_its_entries_and_takes_changes() {
    let (_dir, pool) = common::pool(4_096, true);
    let tree = Tree::create(pool.clone()).unwrap();
    let mut model = entries(60_000, 0);
    let stats = build(&tree, &model);
    assert_eq!(stats.entries, 60_000);
    assert!(stats.height >= 2, "{stats:?}");
    let report = check(&tree, &model);
    // Each entry takes 16 + 20 + (0..9) bytes: about 8112 * 0.9 / 40 per leaf.
    let per_leaf = 60_000 / report.leaf_pages.max(1);
    assert!(per_leaf >= 160, "{per_leaf} entries per leaf: {report:?}");

    let inserted = Tree::create(pool.clone()).unwrap();
    for (k, v) in &model {
        inserted.insert(k, v).unwrap();
    }
    let by_inserts = inserted.verify().unwrap();
    // As dense as ascending inserts (their split keeps 90% too).
    assert!(
        report.leaf_pages * 100 <= by_inserts.leaf_pages * 101,
        "built {report:?}, inserted {by_inserts:?}"
    );

    for i in (0..60_000u64).step_by(5) {
        let mut k = b"index/prefix".to_vec();
        k.extend_from_slice(&i.to_be_bytes());
        k.push(1);
        tree.insert(&k, b"new").unwrap();
        model.insert(k, b"new".to_vec());
    }
    let doomed: Vec<Vec<u8>> = model.keys().step_by(3).cloned().collect();
    for k in doomed {
        assert!(tree.delete(&k).unwrap());
        model.remove(&k);
    }
    check(&tree, &model);
}

// Proves keys near the size limit build: one in 5 entries has a key of
// MAX_KEY_LEN - 8 bytes, so closed nodes give up low fences and carry
// entries on to the next node; the tree verifies and holds every entry.
// Also the small cases: no entries, one entry, one leaf.
#[test]
fn long_keys_and_small_trees_build() {
    let (_dir, pool) = common::pool(4_096, true);
    for (n, long_every) in [(3_000, 5), (0, 0), (1, 0), (100, 0), (40, 2)] {
        let tree = Tree::create(pool.clone()).unwrap();
        let model = entries(n, long_every);
        let stats = build(&tree, &model);
        assert_eq!(stats.entries, n);
        check(&tree, &model);
    }
}

// Proves the errors: a key not above the one before (NotAscending), a
// build into a tree with entries (NotEmpty), an oversized entry; after a
// failed build the tree is still empty, takes a new build, and the pages
// the failed one allocated are back on the free list.
#[test]
fn a_failed_build_leaves_the_tree_empty_and_frees_its_pages() {
    let (_dir, pool) = common::pool(4_096, true);
    let tree = Tree::create(pool.clone()).unwrap();
    let model = entries(20_000, 0);
    let free = pool.free_page_count().unwrap();
    let mut builder = tree.builder().unwrap();
    for (k, v) in &model {
        builder.push(k.clone(), v.clone()).unwrap();
    }
    let first = model.keys().next().unwrap().clone();
    assert!(matches!(
        builder.push(first, Vec::new()),
        Err(BtreeError::NotAscending)
    ));
    assert!(
        pool.free_page_count().unwrap() > free,
        "its pages came back"
    );
    assert!(contents(&tree, Direction::Forward).is_empty());
    tree.verify().unwrap();

    let mut builder = tree.builder().unwrap();
    assert!(matches!(
        builder.push(vec![1; MAX_KEY_LEN + 1], Vec::new()),
        Err(BtreeError::KeyTooLarge { .. })
    ));
    build(&tree, &model);
    check(&tree, &model);
    assert!(matches!(tree.builder(), Err(BtreeError::NotEmpty)));
}

// Proves a logged build replays: every record (the nodes' BUILD images,
// the root's last, the pool's allocations) replayed onto an empty file
// gives the same pages byte for byte, and the replayed tree holds the
// entries.
#[test]
fn a_logged_build_replays_from_an_empty_file() {
    let db = Db::create(4_096);
    let tree = Tree::create_logged(db.pool.clone(), Some(db.wal.clone())).unwrap();
    let model = entries(30_000, 11);
    build(&tree, &model);
    let report = check(&tree, &model);
    let records = db.records();
    let fresh = bare_pool(&db.dir, "replayed", 4_096, true);
    let replayed = replay(&fresh, &records);
    assert!(replayed.images > 0, "{replayed:?}");
    assert_same_pages(&db.pool, &fresh);
    let again = Tree::open(fresh.clone(), tree.root()).unwrap();
    assert_eq!(again.verify().unwrap(), report);
    assert_eq!(
        contents(&again, Direction::Forward),
        model.into_iter().collect::<Vec<_>>()
    );
}
