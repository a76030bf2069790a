//! Scan symmetry (seed 004): forward and backward scans of the same range
//! access the same pages, point-probe lists cost the same in either order,
//! and a stale left link met by a backward scan is repaired.

mod common;

use folio_btree::{AccessCounters, Direction, MultiTree, Tree};
use std::ops::Bound;

fn build(n: u64, spacing: u64) -> (tempfile::TempDir, Tree) {
    let (dir, pool) = common::pool(1024, true);
    let tree = Tree::create(pool).unwrap();
    for i in 0..n {
        tree.insert(&common::key(i * spacing), &[i as u8; 100])
            .unwrap();
    }
    (dir, tree)
}

fn drain(
    tree: &Tree,
    lower: Bound<&[u8]>,
    upper: Bound<&[u8]>,
    direction: Direction,
) -> (Vec<u64>, u64) {
    let mut scan = tree.scan(lower, upper, direction);
    let mut keys = Vec::new();
    while let Some((key, _)) = scan.next_entry().unwrap() {
        keys.push(u64::from_be_bytes(key.try_into().unwrap()));
    }
    (keys, scan.pages_accessed())
}

#[test]
fn forward_and_backward_full_scans_access_the_same_pages() {
    // Proves a full scan touches each leaf once plus one descent in either
    // direction (pages = height - 1 + leaves), forward and backward equal,
    // and the same for a bounded range.
    let (_dir, tree) = build(20_000, 1);
    let report = tree.verify().unwrap();
    let (forward, forward_pages) = drain(
        &tree,
        Bound::Unbounded,
        Bound::Unbounded,
        Direction::Forward,
    );
    let (mut backward, backward_pages) = drain(
        &tree,
        Bound::Unbounded,
        Bound::Unbounded,
        Direction::Backward,
    );
    backward.reverse();
    assert_eq!(forward, (0..20_000).collect::<Vec<_>>());
    assert_eq!(backward, forward);
    assert_eq!(forward_pages, backward_pages);
    assert_eq!(
        forward_pages,
        u64::from(report.height) - 1 + report.leaf_pages
    );

    let (lo, hi) = (common::key(3_333), common::key(12_345));
    let (f, fp) = drain(
        &tree,
        Bound::Included(&lo),
        Bound::Excluded(&hi),
        Direction::Forward,
    );
    let (b, bp) = drain(
        &tree,
        Bound::Included(&lo),
        Bound::Excluded(&hi),
        Direction::Backward,
    );
    assert_eq!(f.len(), 12_345 - 3_333);
    assert_eq!(b.len(), f.len());
    assert_eq!(fp, bp);
}

#[test]
fn in_list_probes_cost_the_same_in_both_orders() {
    // Proves an IN-list of point probes (each its own bounded scan, as in
    // seed 004's `aid in (...) order by aid asc/desc`) accesses as many pages
    // ascending as descending, for a unique and a non-unique tree.
    let (_dir, tree) = build(20_000, 1);
    let probes = [1u64, 500, 1000, 1500, 2000, 3000];
    let run = |order: &[u64], direction: Direction| -> u64 {
        order
            .iter()
            .map(|&k| {
                let key = common::key(k);
                let (keys, pages) = drain(
                    &tree,
                    Bound::Included(&key),
                    Bound::Included(&key),
                    direction,
                );
                assert_eq!(keys, vec![k]);
                pages
            })
            .sum()
    };
    let mut descending = probes;
    descending.reverse();
    let asc = run(&probes, Direction::Forward);
    let desc = run(&descending, Direction::Backward);
    assert_eq!(asc, desc);
    assert_eq!(
        asc,
        probes.len() as u64 * u64::from(tree.verify().unwrap().height)
    );

    let multi = MultiTree::create(tree.pool().clone()).unwrap();
    for aid in 0..5_000u64 {
        multi
            .insert(&common::key(aid % 7), aid, &[0u8; 50])
            .unwrap();
    }
    let pages = |bid: u64, direction: Direction| {
        let before = AccessCounters::current();
        let n = multi.scan_key(&common::key(bid), direction).count();
        (n, AccessCounters::current().since(&before).pages)
    };
    for bid in 0..8 {
        let (nf, pf) = pages(bid, Direction::Forward);
        let (nb, pb) = pages(bid, Direction::Backward);
        assert_eq!((nf, pf), (nb, pb), "bid {bid} {:?}", (nf, pf, nb, pb));
    }
}

#[test]
fn backward_scan_repairs_a_stale_left_link() {
    // Proves the Lehman-Yao repair in the backward direction: leaves to the
    // left of a backward scan split after the scan read its first leaf; the
    // scan notices the stale left link (the sibling's high fence is below its
    // boundary), moves right, and still returns every original key once, in
    // order.
    let (_dir, tree) = build(4_000, 100);
    let mut scan = tree.scan(Bound::Unbounded, Bound::Unbounded, Direction::Backward);
    let mut keys = vec![u64::from_be_bytes(
        scan.next_entry().unwrap().unwrap().0.try_into().unwrap(),
    )];
    for i in 0..3_999u64 {
        for d in 1..4 {
            tree.insert(&common::key(i * 100 + d * 25), &[1u8; 100])
                .unwrap();
        }
    }
    while let Some((key, _)) = scan.next_entry().unwrap() {
        keys.push(u64::from_be_bytes(key.try_into().unwrap()));
    }
    assert!(
        scan.counters().stale_links > 0,
        "a split left sibling was met: {:?}",
        scan.counters()
    );
    assert!(keys.windows(2).all(|w| w[0] > w[1]), "strictly descending");
    let original: Vec<u64> = keys.iter().copied().filter(|k| k % 100 == 0).collect();
    assert_eq!(
        original,
        (0..4_000).rev().map(|i| i * 100).collect::<Vec<_>>()
    );
    tree.verify().unwrap();
}

#[test]
fn scans_survive_freed_siblings() {
    // Proves a scan whose next sibling was emptied and freed after it copied
    // the link re-descends and still returns every key that existed for the
    // whole scan, in order, in both directions.
    for direction in [Direction::Forward, Direction::Backward] {
        let (_dir, tree) = build(6_000, 1);
        let mut scan = tree.scan(Bound::Unbounded, Bound::Unbounded, direction);
        let first = u64::from_be_bytes(scan.next_entry().unwrap().unwrap().0.try_into().unwrap());
        let keep = |k: u64| !(5..5_995).contains(&k);
        for k in 0..6_000 {
            if !keep(k) && k != first {
                assert!(tree.delete(&common::key(k)).unwrap());
            }
        }
        let mut keys = vec![first];
        while let Some((key, _)) = scan.next_entry().unwrap() {
            keys.push(u64::from_be_bytes(key.try_into().unwrap()));
        }
        assert!(
            scan.counters().stale_links > 0,
            "{direction:?}: {:?}",
            scan.counters()
        );
        if direction == Direction::Backward {
            keys.reverse();
        }
        assert!(
            keys.windows(2).all(|w| w[0] < w[1]),
            "{direction:?} ordered, no duplicates"
        );
        let kept: Vec<u64> = keys.iter().copied().filter(|&k| keep(k)).collect();
        assert_eq!(
            kept,
            (0..6_000).filter(|&k| keep(k)).collect::<Vec<_>>(),
            "{direction:?}"
        );
        tree.verify().unwrap();
    }
}
