//! Multi-threaded stress with a small pool (eviction active): writers insert
//! and delete while scanners run in both directions. Every scan must return
//! keys in order, without duplicates, and with every key that existed for
//! the whole scan; at the end `verify()` passes and the tree holds exactly
//! what the writers' own models say.

mod common;

use folio_btree::{Direction, Tree};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::BTreeSet;
use std::ops::Bound;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// Keys `k % 4 == 0` are inserted first and never deleted ("stable").
const STABLE: u64 = 4;

/// The keys and values of one run: `keys` keys made by `key` (ordered as
/// their numbers, which `number` reads back), values of up to
/// `max_value` bytes, `writer_ops` operations per writer.
struct Shape {
    keys: u64,
    writer_ops: usize,
    key: fn(u64) -> Vec<u8>,
    number: fn(&[u8]) -> u64,
    max_value: usize,
}

fn value(rng: &mut ChaCha8Rng, k: u64, max: usize) -> Vec<u8> {
    let mut v = k.to_le_bytes().to_vec();
    v.resize(rng.gen_range(8..=max), 0xAB);
    v
}

#[test]
fn writers_and_bidirectional_scanners() {
    // Proves concurrent inserts, deletes (with leaf frees), splits and
    // eviction never make a scan return keys out of order, twice, or without
    // a key that was present throughout, in either direction; and that the
    // final tree verifies and matches the writers' models exactly.
    stress(&Shape {
        keys: 16_000,
        writer_ops: 30_000,
        key: |k| common::key(k).to_vec(),
        number: |key| u64::from_be_bytes(key.try_into().unwrap()),
        max_value: 240,
    });
}

#[test]
fn writers_and_bidirectional_scanners_with_maximal_keys() {
    // The same with keys of the maximal length (2,688 bytes, differing in
    // their last 8): nodes of two or three entries that give up their low
    // fences, maximal separators, skipped unlinks, and backward scans that
    // re-descend past dropped low fences while writers split and free.
    const MAX: usize = folio_btree::MAX_KEY_LEN;
    stress(&Shape {
        keys: 1_600,
        writer_ops: 3_000,
        key: |k| {
            let mut key = vec![b'K'; MAX - 8];
            key.extend_from_slice(&k.to_be_bytes());
            key
        },
        number: |key| u64::from_be_bytes(key[MAX - 8..].try_into().unwrap()),
        max_value: folio_btree::MAX_ENTRY_LEN - MAX,
    });
}

fn stress(shape: &Shape) {
    let Shape {
        keys,
        writer_ops,
        key,
        number,
        max_value,
    } = *shape;
    let (_dir, pool) = common::pool(64, true);
    let tree = Tree::create(pool.clone()).unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    for k in (0..keys).step_by(STABLE as usize) {
        tree.insert(&key(k), &value(&mut rng, k, max_value))
            .unwrap();
    }
    let writers_done = AtomicBool::new(false);
    let scans = AtomicU64::new(0);
    let models: Vec<BTreeSet<u64>> = std::thread::scope(|s| {
        let scanners: Vec<_> = [Direction::Forward, Direction::Backward]
            .into_iter()
            .enumerate()
            .map(|(i, direction)| {
                let (tree, writers_done, scans) = (&tree, &writers_done, &scans);
                s.spawn(move || {
                    let mut rng = ChaCha8Rng::seed_from_u64(100 + i as u64);
                    while !writers_done.load(Ordering::Relaxed) {
                        let full = rng.gen_ratio(1, 8);
                        let lo = if full { 0 } else { rng.gen_range(0..keys) };
                        let hi = if full {
                            keys
                        } else {
                            (lo + rng.gen_range(1..3_000)).min(keys)
                        };
                        let (lo_key, hi_key) = (key(lo), key(hi));
                        let mut scan = tree.scan(
                            Bound::Included(&lo_key),
                            Bound::Excluded(&hi_key),
                            direction,
                        );
                        let mut seen = Vec::new();
                        while let Some((key, value)) = scan.next_entry().unwrap() {
                            let k = number(key);
                            assert_eq!(value[..8], k.to_le_bytes(), "value belongs to its key");
                            seen.push(k);
                        }
                        if direction == Direction::Backward {
                            seen.reverse();
                        }
                        assert!(
                            seen.windows(2).all(|w| w[0] < w[1]),
                            "{direction:?} scan out of order or duplicated"
                        );
                        let stable: Vec<u64> =
                            seen.iter().copied().filter(|k| k % STABLE == 0).collect();
                        let want: Vec<u64> = (lo..hi).filter(|k| k % STABLE == 0).collect();
                        assert_eq!(
                            stable, want,
                            "{direction:?} scan [{lo}, {hi}) missed a stable key"
                        );
                        scans.fetch_add(1, Ordering::Relaxed);
                    }
                })
            })
            .collect();
        let writers: Vec<_> = (1..STABLE)
            .map(|residue| {
                let tree = &tree;
                s.spawn(move || {
                    let mut rng = ChaCha8Rng::seed_from_u64(residue);
                    let mut model = BTreeSet::new();
                    for _ in 0..writer_ops {
                        let k = rng.gen_range(0..keys / STABLE) * STABLE + residue;
                        let key = key(k);
                        if rng.gen_ratio(3, 5) {
                            let v = value(&mut rng, k, max_value);
                            tree.upsert(&key, &v).unwrap();
                            model.insert(k);
                        } else {
                            assert_eq!(tree.delete(&key).unwrap(), model.remove(&k));
                        }
                        if rng.gen_ratio(1, 4) {
                            let got = tree.get(&key).unwrap();
                            assert_eq!(got.is_some(), model.contains(&k));
                        }
                    }
                    model
                })
            })
            .collect();
        let models = writers.into_iter().map(|w| w.join().unwrap()).collect();
        writers_done.store(true, Ordering::Relaxed);
        for scanner in scanners {
            scanner.join().unwrap();
        }
        models
    });
    assert!(scans.load(Ordering::Relaxed) > 4, "scanners ran");
    let report = tree.verify().unwrap();
    let mut want: BTreeSet<u64> = (0..keys).step_by(STABLE as usize).collect();
    for model in models {
        want.extend(model);
    }
    assert_eq!(report.entries, want.len() as u64);
    let got: Vec<u64> = tree
        .scan(Bound::Unbounded, Bound::Unbounded, Direction::Forward)
        .map(|r| number(&r.unwrap().0))
        .collect();
    assert_eq!(got, want.into_iter().collect::<Vec<_>>());
    assert!(
        pool.stats().evictions > 0,
        "the pool evicted pages during the run"
    );
}
