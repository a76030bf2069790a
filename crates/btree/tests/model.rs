//! Model-based tests: random operations on a tree and on a `BTreeMap`, with
//! scans in both directions under every kind of bound, must agree; the tree
//! must verify after every run.

mod common;

use folio_btree::{BtreeError, Direction, KeyForm, MultiTree, Tree};
use proptest::prelude::*;
use std::collections::BTreeMap;
use std::ops::{Bound, RangeBounds};

#[derive(Debug, Clone)]
enum Op {
    Insert(Vec<u8>, usize),
    Upsert(Vec<u8>, usize),
    Delete(Vec<u8>),
    Get(Vec<u8>),
    Scan(Bound<Vec<u8>>, Bound<Vec<u8>>, Direction),
    Prefix(Vec<u8>, Direction),
    Count(Bound<Vec<u8>>, Bound<Vec<u8>>),
}

/// Keys from a small alphabet with shared prefixes and lengths around the
/// 8-byte key head, so heads tie and full comparisons run.
fn key() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        prop::collection::vec(
            prop_oneof![Just(0u8), Just(1u8), Just(b'a'), Just(0xFFu8)],
            0..12
        ),
        (0u64..3000).prop_map(|n| n.to_be_bytes().to_vec()),
        (0u64..400, 0usize..40).prop_map(|(n, pad)| {
            let mut k = b"prefix/".to_vec();
            k.extend_from_slice(&n.to_be_bytes());
            k.extend(std::iter::repeat_n(b'x', pad));
            k
        }),
    ]
}

fn bound() -> impl Strategy<Value = Bound<Vec<u8>>> {
    prop_oneof![
        key().prop_map(Bound::Included),
        key().prop_map(Bound::Excluded),
        Just(Bound::Unbounded),
    ]
}

fn direction() -> impl Strategy<Value = Direction> {
    prop_oneof![Just(Direction::Forward), Just(Direction::Backward)]
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        6 => (key(), 0usize..600).prop_map(|(k, n)| Op::Insert(k, n)),
        2 => (key(), 0usize..600).prop_map(|(k, n)| Op::Upsert(k, n)),
        3 => key().prop_map(Op::Delete),
        1 => key().prop_map(Op::Get),
        1 => (bound(), bound(), direction()).prop_map(|(l, u, d)| Op::Scan(l, u, d)),
        1 => (prop::collection::vec(prop_oneof![Just(0u8), Just(b'a'), Just(b'p')], 0..3), direction())
            .prop_map(|(p, d)| Op::Prefix(p, d)),
        1 => (bound(), bound()).prop_map(|(l, u)| Op::Count(l, u)),
    ]
}

/// A value of `n` bytes (at most what the entry limit leaves beside `k`).
fn value(k: &[u8], n: usize) -> Vec<u8> {
    let n = n.min(folio_btree::MAX_ENTRY_LEN - k.len());
    let mut v = k.to_vec();
    v.resize(n, (n % 251) as u8);
    v
}

/// Keys up to [`folio_btree::MAX_KEY_LEN`]: most share long runs of bytes
/// and differ near their end, so separators and fences are as long as the
/// keys and nodes hold two or three entries; some are short.
fn long_key() -> impl Strategy<Value = Vec<u8>> {
    const MAX: usize = folio_btree::MAX_KEY_LEN;
    prop_oneof![
        4 => (0u16..150).prop_map(|n| {
            let mut k = vec![b'M'; MAX - 2];
            k.extend_from_slice(&n.to_be_bytes());
            k
        }),
        3 => (0u16..60, 0usize..MAX - 2).prop_map(|(n, len)| {
            let mut k = vec![b'L'; len];
            k.extend_from_slice(&n.to_be_bytes());
            k
        }),
        1 => key(),
    ]
}

fn long_bound() -> impl Strategy<Value = Bound<Vec<u8>>> {
    prop_oneof![
        long_key().prop_map(Bound::Included),
        long_key().prop_map(Bound::Excluded),
        Just(Bound::Unbounded),
    ]
}

fn long_op() -> impl Strategy<Value = Op> {
    prop_oneof![
        6 => (long_key(), 0usize..3000).prop_map(|(k, n)| Op::Insert(k, n)),
        2 => (long_key(), 0usize..3000).prop_map(|(k, n)| Op::Upsert(k, n)),
        3 => long_key().prop_map(Op::Delete),
        1 => long_key().prop_map(Op::Get),
        2 => (long_bound(), long_bound(), direction()).prop_map(|(l, u, d)| Op::Scan(l, u, d)),
        1 => (prop_oneof![Just(b"M".to_vec()), Just(b"LL".to_vec())], direction())
            .prop_map(|(p, d)| Op::Prefix(p, d)),
        1 => (long_bound(), long_bound()).prop_map(|(l, u)| Op::Count(l, u)),
    ]
}

fn as_ref(b: &Bound<Vec<u8>>) -> Bound<&[u8]> {
    b.as_ref().map(Vec::as_slice)
}

/// BTreeMap::range panics on inverted or equal-excluded ranges; a tree
/// returns nothing for them.
fn model_range(
    model: &BTreeMap<Vec<u8>, Vec<u8>>,
    l: &Bound<Vec<u8>>,
    u: &Bound<Vec<u8>>,
) -> Vec<(Vec<u8>, Vec<u8>)> {
    model
        .iter()
        .filter(|(k, _)| {
            let above = match l {
                Bound::Included(s) => *k >= s,
                Bound::Excluded(s) => *k > s,
                Bound::Unbounded => true,
            };
            let below = match u {
                Bound::Included(e) => *k <= e,
                Bound::Excluded(e) => *k < e,
                Bound::Unbounded => true,
            };
            above && below
        })
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect()
}

fn run(tree: &Tree, ops: &[Op]) {
    let mut model = BTreeMap::new();
    for op in ops {
        match op {
            Op::Insert(k, n) => {
                let v = value(k, *n);
                match tree.insert(k, &v) {
                    Ok(()) => assert!(
                        model.insert(k.clone(), v).is_none(),
                        "inserted a present key"
                    ),
                    Err(BtreeError::KeyExists) => assert!(model.contains_key(k)),
                    Err(e) => panic!("insert: {e}"),
                }
            }
            Op::Upsert(k, n) => {
                let v = value(k, *n);
                let replaced = tree.upsert(k, &v).unwrap();
                assert_eq!(replaced, model.insert(k.clone(), v).is_some());
            }
            Op::Delete(k) => assert_eq!(tree.delete(k).unwrap(), model.remove(k).is_some()),
            Op::Get(k) => assert_eq!(tree.get(k).unwrap().as_ref(), model.get(k)),
            Op::Scan(l, u, d) => {
                let got: Vec<_> = tree
                    .scan(as_ref(l), as_ref(u), *d)
                    .map(Result::unwrap)
                    .collect();
                let mut want = model_range(&model, l, u);
                if *d == Direction::Backward {
                    want.reverse();
                }
                assert_eq!(got, want, "scan {l:?}..{u:?} {d:?}");
            }
            Op::Prefix(p, d) => {
                let got: Vec<_> = tree.scan_prefix(p, *d).map(|r| r.unwrap().0).collect();
                let mut want: Vec<_> = model.keys().filter(|k| k.starts_with(p)).cloned().collect();
                if *d == Direction::Backward {
                    want.reverse();
                }
                assert_eq!(got, want, "prefix {p:?} {d:?}");
            }
            Op::Count(l, u) => {
                assert_eq!(
                    tree.count(as_ref(l), as_ref(u)).unwrap(),
                    model_range(&model, l, u).len() as u64
                );
            }
        }
    }
    let report = tree.verify().unwrap();
    assert_eq!(report.entries, model.len() as u64);
    let all: Vec<_> = tree
        .scan(Bound::Unbounded, Bound::Unbounded, Direction::Forward)
        .map(Result::unwrap)
        .collect();
    assert_eq!(all, model.into_iter().collect::<Vec<_>>());
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn tree_matches_btreemap(ops in prop::collection::vec(op(), 1..1500)) {
        // Proves get/insert/upsert/delete, range scans in both directions with
        // included/excluded/unbounded bounds, prefix scans and counts agree
        // with BTreeMap through splits, root splits and leaf frees, with a
        // 48-frame pool so pages are evicted and read back; verify() passes.
        let (_dir, pool) = common::pool(48, true);
        let tree = Tree::create(pool).unwrap();
        run(&tree, &ops);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, ..ProptestConfig::default() })]

    #[test]
    fn long_keys_match_btreemap(ops in prop::collection::vec(long_op(), 1..400)) {
        // Proves keys and entries up to the limits (2,688 and 2,696 bytes:
        // a node holds its high fence and two of them) work like short ones:
        // nodes give up their low fences for room, splits with maximal
        // separators, unlinks that do not fit are skipped, and scans in both
        // directions (re-descending past dropped low fences) agree with
        // BTreeMap; verify() passes.
        let (_dir, pool) = common::pool(64, true);
        let tree = Tree::create(pool).unwrap();
        run(&tree, &ops);
    }
}

#[test]
fn maximal_keys_build_and_scan_both_ways() {
    // Proves a tree of 600 keys of the maximal length (differing only in
    // their last bytes: maximal separators and fences) builds several
    // levels whose nodes give up their low fences, and that range scans in
    // both directions (a backward one re-descends past each dropped low
    // fence) return exactly the model's keys, before and after deleting
    // most of them.
    use rand::{SeedableRng, seq::SliceRandom};
    const MAX: usize = folio_btree::MAX_KEY_LEN;
    let key = |n: u32| {
        let mut k = vec![b'K'; MAX - 4];
        k.extend_from_slice(&n.to_be_bytes());
        k
    };
    let (_dir, pool) = common::pool(128, true);
    let tree = Tree::create(pool).unwrap();
    let mut ns: Vec<u32> = (0..600).collect();
    ns.shuffle(&mut rand_chacha::ChaCha8Rng::seed_from_u64(11));
    let value = vec![3u8; folio_btree::MAX_ENTRY_LEN - MAX];
    let mut model = BTreeMap::new();
    for &n in &ns {
        tree.insert(&key(n), &value).unwrap();
        model.insert(key(n), value.clone());
    }
    let check = |model: &BTreeMap<Vec<u8>, Vec<u8>>| {
        let report = tree.verify().unwrap();
        assert_eq!(report.entries, model.len() as u64);
        for (lo, hi) in [(0u32, 600u32), (17, 18), (100, 377), (598, 1000)] {
            let (l, u) = (Bound::Included(key(lo)), Bound::Excluded(key(hi)));
            let want = model_range(model, &l, &u);
            for direction in [Direction::Forward, Direction::Backward] {
                let mut got: Vec<_> = tree
                    .scan(as_ref(&l), as_ref(&u), direction)
                    .map(Result::unwrap)
                    .collect();
                if direction == Direction::Backward {
                    got.reverse();
                }
                assert!(got == want, "{lo}..{hi} {direction:?}");
            }
        }
        report
    };
    let report = check(&model);
    assert!(report.height >= 3, "{report:?}");
    assert!(report.without_low_fence > 0, "{report:?}");
    for &n in &ns {
        if n % 5 != 0 {
            assert!(tree.delete(&key(n)).unwrap());
            model.remove(&key(n));
        }
    }
    check(&model);
}

#[test]
fn bulk_insert_delete_verify() {
    // Proves a tree of 30k keys inserted in a seeded random order builds
    // several levels, survives deleting every key above 15k (freeing the
    // emptied leaves) and all but every 7th below, and matches the model in
    // both scan directions afterwards.
    use rand::{SeedableRng, seq::SliceRandom};
    let (_dir, pool) = common::pool(256, true);
    let tree = Tree::create(pool).unwrap();
    let mut keys: Vec<u64> = (0..30_000).collect();
    keys.shuffle(&mut rand_chacha::ChaCha8Rng::seed_from_u64(7));
    for &k in &keys {
        tree.insert(&common::key(k), &[k as u8; 100]).unwrap();
    }
    let report = tree.verify().unwrap();
    assert_eq!(report.entries, 30_000);
    assert!(report.height >= 3, "{report:?}");
    for &k in &keys {
        if k >= 15_000 || k % 7 != 0 {
            assert!(tree.delete(&common::key(k)).unwrap());
        }
    }
    let after = tree.verify().unwrap();
    assert!(
        after.leaf_pages < report.leaf_pages * 6 / 10,
        "empty leaves were freed: {report:?} -> {after:?}"
    );
    let want: Vec<u64> = (0..15_000).filter(|k| k % 7 == 0).collect();
    let forward: Vec<u64> = tree
        .scan(Bound::Unbounded, Bound::Unbounded, Direction::Forward)
        .map(|r| u64::from_be_bytes(r.unwrap().0.try_into().unwrap()))
        .collect();
    assert_eq!(forward, want);
    let mut backward: Vec<u64> = tree
        .scan(Bound::Unbounded, Bound::Unbounded, Direction::Backward)
        .map(|r| u64::from_be_bytes(r.unwrap().0.try_into().unwrap()))
        .collect();
    backward.reverse();
    assert_eq!(backward, want);
    assert_eq!(tree.get(&common::key(7)).unwrap(), Some(vec![7u8; 100]));
    assert_eq!(tree.get(&common::key(8)).unwrap(), None);
}

#[test]
fn limits_are_errors() {
    // Proves oversized keys and entries get clear errors and change nothing.
    let (_dir, pool) = common::pool(16, true);
    let tree = Tree::create(pool).unwrap();
    let big_key = vec![1u8; folio_btree::MAX_KEY_LEN + 1];
    assert!(matches!(
        tree.insert(&big_key, b""),
        Err(BtreeError::KeyTooLarge { .. })
    ));
    let big_value = vec![1u8; folio_btree::MAX_ENTRY_LEN];
    assert!(matches!(
        tree.insert(b"k", &big_value),
        Err(BtreeError::EntryTooLarge { .. })
    ));
    let max_key = vec![7u8; folio_btree::MAX_KEY_LEN];
    let max_value = vec![9u8; folio_btree::MAX_ENTRY_LEN - folio_btree::MAX_KEY_LEN];
    tree.insert(&max_key, &max_value).unwrap();
    assert_eq!(tree.get(&max_key).unwrap(), Some(max_value));
    assert_eq!(tree.verify().unwrap().entries, 1);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 16, ..ProptestConfig::default() })]

    #[test]
    fn multi_tree_matches_model(
        ops in prop::collection::vec((0u8..3, prop::collection::vec(prop_oneof![Just(0u8), Just(1u8), Just(b'k')], 0..4), 0u64..50), 1..600),
        lo in prop::collection::vec(prop_oneof![Just(0u8), Just(1u8), Just(b'k')], 0..3),
        hi in prop::collection::vec(prop_oneof![Just(0u8), Just(1u8), Just(b'k')], 0..3),
        dir in direction(),
    ) {
        // Proves a non-unique tree keeps (key, tid) entries in key-then-tid
        // order: exact-key probes (`scan_key`, and `probe` whenever it
        // answers), key-range scans with every bound kind in
        // both directions and prefix scans match a BTreeMap of pairs.
        let (_dir, pool) = common::pool(32, false);
        let tree = MultiTree::create(pool).unwrap();
        let mut model = BTreeMap::new();
        for (kind, k, tid) in &ops {
            match kind {
                0 | 1 => {
                    let inserted = tree.upsert(k, *tid, &tid.to_le_bytes()).unwrap();
                    prop_assert_eq!(inserted, model.insert((k.clone(), *tid), tid.to_le_bytes().to_vec()).is_some());
                }
                _ => prop_assert_eq!(tree.delete(k, *tid).unwrap(), model.remove(&(k.clone(), *tid)).is_some()),
            }
        }
        tree.verify().unwrap();
        let bounds = [
            (Bound::Included(lo.as_slice()), Bound::Included(hi.as_slice())),
            (Bound::Excluded(lo.as_slice()), Bound::Excluded(hi.as_slice())),
            (Bound::Included(lo.as_slice()), Bound::Unbounded),
            (Bound::Unbounded, Bound::Excluded(hi.as_slice())),
        ];
        for (l, u) in bounds {
            let got: Vec<_> = tree.scan(l, u, dir).map(Result::unwrap).collect();
            let mut want: Vec<_> = model
                .iter()
                .filter(|((k, _), _)| (l, u).contains(k.as_slice()))
                .map(|((k, t), v)| (k.clone(), *t, v.clone()))
                .collect();
            if dir == Direction::Backward { want.reverse(); }
            prop_assert_eq!(&got, &want, "{:?} {:?}", l, u);
            prop_assert_eq!(tree.count(l, u).unwrap(), want.len() as u64);
        }
        for probed in [&lo, &hi] {
            let mut tids = Vec::new();
            if tree.probe(probed, &mut tids).unwrap() {
                let want: Vec<u64> = model.keys().filter(|(k, _)| k == probed).map(|(_, t)| *t).collect();
                prop_assert_eq!(&tids, &want, "probe of {:?}", probed);
            }
        }
        let got: Vec<_> = tree.scan_key(&lo, dir).map(|r| r.unwrap().1).collect();
        let mut want: Vec<u64> = model.keys().filter(|(k, _)| *k == lo).map(|(_, t)| *t).collect();
        if dir == Direction::Backward { want.reverse(); }
        prop_assert_eq!(got, want);
        let got: Vec<_> = tree.scan_prefix(&lo, dir).map(|r| { let (k, t, _) = r.unwrap(); (k, t) }).collect();
        let mut want: Vec<_> = model.keys().filter(|(k, _)| k.starts_with(&lo)).cloned().collect();
        if dir == Direction::Backward { want.reverse(); }
        prop_assert_eq!(got, want);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 16, ..ProptestConfig::default() })]

    #[test]
    fn prefix_free_multi_tree_matches_model(
        ops in prop::collection::vec((0u8..3, prop::collection::vec(prop_oneof![Just(0u8), Just(1u8), Just(0xFFu8), Just(b'k')], 3), 0u64..50), 1..600),
        lo in prop::collection::vec(prop_oneof![Just(0u8), Just(1u8), Just(0xFFu8), Just(b'k')], 3),
        hi in prop::collection::vec(prop_oneof![Just(0u8), Just(1u8), Just(0xFFu8), Just(b'k')], 3),
        prefix_len in 0usize..3,
        dir in direction(),
    ) {
        // Proves a tree of prefix-free keys (here: 3 bytes each, zero and
        // 0xFF bytes included) stored unescaped keeps (key, tid) entries
        // in key-then-tid order: every bound kind with keys as bounds, in
        // both directions, exact-key probes and scans, and prefix scans
        // match a BTreeMap of pairs; its entries are the key and the tid.
        let (_dir, pool) = common::pool(32, false);
        let tree = MultiTree::create_with(pool, None, KeyForm::PrefixFree).unwrap();
        let mut model = BTreeMap::new();
        for (kind, k, tid) in &ops {
            match kind {
                0 | 1 => {
                    let inserted = tree.upsert(k, *tid, &tid.to_le_bytes()).unwrap();
                    prop_assert_eq!(inserted, model.insert((k.clone(), *tid), tid.to_le_bytes().to_vec()).is_some());
                }
                _ => prop_assert_eq!(tree.delete(k, *tid).unwrap(), model.remove(&(k.clone(), *tid)).is_some()),
            }
        }
        tree.verify().unwrap();
        if let Some(((k, _), _)) = model.iter().next() {
            let mut first = tree.tree().scan(Bound::Unbounded, Bound::Unbounded, dir_forward());
            let (encoded, _) = first.next().unwrap().unwrap();
            prop_assert_eq!(encoded.len(), k.len() + 8, "key and tid, unescaped");
        }
        let bounds = [
            (Bound::Included(lo.as_slice()), Bound::Included(hi.as_slice())),
            (Bound::Excluded(lo.as_slice()), Bound::Excluded(hi.as_slice())),
            (Bound::Included(lo.as_slice()), Bound::Unbounded),
            (Bound::Excluded(lo.as_slice()), Bound::Unbounded),
            (Bound::Unbounded, Bound::Excluded(hi.as_slice())),
            (Bound::Unbounded, Bound::Included(hi.as_slice())),
        ];
        for (l, u) in bounds {
            let got: Vec<_> = tree.scan(l, u, dir).map(Result::unwrap).collect();
            let mut want: Vec<_> = model
                .iter()
                .filter(|((k, _), _)| (l, u).contains(k.as_slice()))
                .map(|((k, t), v)| (k.clone(), *t, v.clone()))
                .collect();
            if dir == Direction::Backward { want.reverse(); }
            prop_assert_eq!(&got, &want, "{:?} {:?}", l, u);
        }
        for probed in [&lo, &hi] {
            let mut tids = Vec::new();
            let want: Vec<u64> = model.keys().filter(|(k, _)| k == probed).map(|(_, t)| *t).collect();
            if tree.probe(probed, &mut tids).unwrap() {
                prop_assert_eq!(&tids, &want, "probe of {:?}", probed);
            }
            let got: Vec<_> = tree.scan_key(probed, Direction::Forward).map(|r| r.unwrap().1).collect();
            prop_assert_eq!(got, want);
        }
        let prefix = &lo[..prefix_len];
        let got: Vec<_> = tree.scan_prefix(prefix, dir).map(|r| { let (k, t, _) = r.unwrap(); (k, t) }).collect();
        let mut want: Vec<_> = model.keys().filter(|(k, _)| k.starts_with(prefix)).cloned().collect();
        if dir == Direction::Backward { want.reverse(); }
        prop_assert_eq!(got, want);
    }
}

fn dir_forward() -> Direction {
    Direction::Forward
}

// Proves the key limits of both forms: 1,339 bytes escaped, 2,680
// prefix-free (the tree's 2,688 less the tid), and a longer key is a clear
// error.
#[test]
fn multi_tree_key_limits_by_form() {
    let (_dir, pool) = common::pool(32, false);
    let escaped = MultiTree::create(pool.clone()).unwrap();
    let free = MultiTree::create_with(pool, None, KeyForm::PrefixFree).unwrap();
    assert_eq!(escaped.max_key_len(), 1339);
    assert_eq!(free.max_key_len(), 2680);
    free.insert(&[0u8; 2680], 1, b"").unwrap();
    free.insert(&[0u8; 2680], 2, &[9u8; 8]).unwrap();
    assert!(matches!(
        free.insert(&[0u8; 2681], 1, b""),
        Err(BtreeError::KeyTooLarge {
            len: 2681,
            max: 2680
        })
    ));
    escaped.insert(&[0u8; 1339], 1, b"").unwrap();
    assert!(matches!(
        escaped.insert(&[0u8; 1340], 1, b""),
        Err(BtreeError::KeyTooLarge {
            len: 1340,
            max: 1339
        })
    ));
    free.verify().unwrap();
    escaped.verify().unwrap();
}

// Proves `probe` answers from one leaf when a key's entries lie in it
// (every tid, in order) and declines when they may span leaves, where
// `scan_key` still finds them all.
#[test]
fn probe_reads_one_leaf_or_declines() {
    let (_dir, pool) = common::pool(64, false);
    let tree = MultiTree::create(pool).unwrap();
    for tid in 0..3u64 {
        tree.insert(b"few", tid, b"").unwrap();
    }
    for tid in 0..2000u64 {
        tree.insert(b"many", tid, &[0u8; 40]).unwrap();
    }
    let mut tids = Vec::new();
    assert!(tree.probe(b"few", &mut tids).unwrap());
    assert_eq!(tids, vec![0, 1, 2]);
    assert!(tree.probe(b"none", &mut tids).unwrap() || tids.is_empty());
    assert!(
        !tree.probe(b"many", &mut tids).unwrap(),
        "2,000 entries span leaves"
    );
    assert_eq!(tree.scan_key(b"many", Direction::Forward).count(), 2000);
}

// Proves a probe whose key sorts after every entry of its leaf still
// answers from that leaf when no later leaf can hold the key: the last
// leaf (an ascending load's unique check), or a leaf whose high fence lies
// above every key with the probed key's bytes. A key present at a leaf's
// end is still found whole.
#[test]
fn probe_past_a_leafs_last_entry_answers_without_a_scan() {
    let (_dir, pool) = common::pool(64, false);
    let tree = MultiTree::create(pool).unwrap();
    let key = |n: u64| n.to_be_bytes();
    for n in 0..3000u64 {
        tree.insert(&key(n), n, b"").unwrap();
    }
    assert!(
        tree.verify().unwrap().leaf_pages > 2,
        "the keys span leaves"
    );
    let mut tids = Vec::new();
    assert!(tree.probe(&key(3000), &mut tids).unwrap());
    assert!(tids.is_empty());
    for n in 0..3000u64 {
        let answered = tree.probe(&key(n), &mut tids).unwrap();
        assert!(answered, "key {n}: one entry in one leaf, never a scan");
        assert_eq!(tids, vec![n]);
    }
}
