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

const KEYS: u64 = 16_000;
/// Keys `k % 4 == 0` are inserted first and never deleted ("stable").
const STABLE: u64 = 4;
const WRITER_OPS: usize = 30_000;

fn value(rng: &mut ChaCha8Rng, k: u64) -> Vec<u8> {
    let mut v = k.to_le_bytes().to_vec();
    v.resize(rng.gen_range(8..240), 0xAB);
    v
}

#[test]
fn writers_and_bidirectional_scanners() {
    // Proves concurrent inserts, deletes (with leaf frees), splits and
    // eviction never make a scan return keys out of order, twice, or without
    // a key that was present throughout, in either direction; and that the
    // final tree verifies and matches the writers' models exactly.
    let (_dir, pool) = common::pool(64, true);
    let tree = Tree::create(pool.clone()).unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    for k in (0..KEYS).step_by(STABLE as usize) {
        tree.insert(&common::key(k), &value(&mut rng, k)).unwrap();
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
                        let lo = if full { 0 } else { rng.gen_range(0..KEYS) };
                        let hi = if full {
                            KEYS
                        } else {
                            (lo + rng.gen_range(1..3_000)).min(KEYS)
                        };
                        let (lo_key, hi_key) = (common::key(lo), common::key(hi));
                        let mut scan = tree.scan(
                            Bound::Included(&lo_key),
                            Bound::Excluded(&hi_key),
                            direction,
                        );
                        let mut seen = Vec::new();
                        while let Some((key, value)) = scan.next_entry().unwrap() {
                            let k = u64::from_be_bytes(key.try_into().unwrap());
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
                    for _ in 0..WRITER_OPS {
                        let k = rng.gen_range(0..KEYS / STABLE) * STABLE + residue;
                        let key = common::key(k);
                        if rng.gen_ratio(3, 5) {
                            let v = value(&mut rng, k);
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
    let mut want: BTreeSet<u64> = (0..KEYS).step_by(STABLE as usize).collect();
    for model in models {
        want.extend(model);
    }
    assert_eq!(report.entries, want.len() as u64);
    let got: Vec<u64> = tree
        .scan(Bound::Unbounded, Bound::Unbounded, Direction::Forward)
        .map(|r| u64::from_be_bytes(r.unwrap().0.try_into().unwrap()))
        .collect();
    assert_eq!(got, want.into_iter().collect::<Vec<_>>());
    assert!(
        pool.stats().evictions > 0,
        "the pool evicted pages during the run"
    );
}
