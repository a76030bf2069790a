//! `Tree::pages` lists every page of a tree exactly once: after inserts
//! that make a tree of height 3 and deletes that unlink (free) leaves, the
//! pages listed are exactly the tree's nodes as `verify` counts them, none
//! of them is on the free list, and once they are freed every later
//! allocation reuses them before the file grows.

mod common;

use common::{key, pool};
use folio_btree::Tree;
use std::collections::BTreeSet;

// Proves the module's claim on one seeded-free, deterministic workload.
#[test]
fn pages_lists_every_node_once_and_freed_pages_are_reused() {
    let (_dir, pool) = pool(4096, true);
    let tree = Tree::create(pool.clone()).unwrap();
    let value = [7u8; 200];
    for n in 0..20_000u64 {
        tree.insert(&key(n), &value).unwrap();
    }
    // Emptied leaves are unlinked and go to the pool's free list.
    for n in 5_000..9_000u64 {
        tree.delete(&key(n)).unwrap();
    }
    let report = tree.verify().unwrap();
    assert_eq!(report.height, 3);
    assert!(pool.free_page_count().unwrap() > 0);
    let mut listed = BTreeSet::new();
    let count = tree
        .pages(|id| {
            assert!(listed.insert(id), "{id:?} listed twice");
            Ok(())
        })
        .unwrap();
    assert_eq!(count, report.inner_pages + report.leaf_pages);
    assert_eq!(listed.len() as u64, count);
    assert!(listed.contains(&tree.root()));

    let high_water = pool.page_count().unwrap();
    let free_before = pool.free_page_count().unwrap();
    for id in &listed {
        pool.free(pool.exclusive(*id).unwrap()).unwrap();
    }
    assert_eq!(pool.free_page_count().unwrap(), free_before + count);
    // A new tree of the same size fits in the freed pages.
    let again = Tree::create(pool.clone()).unwrap();
    for n in 0..20_000u64 {
        again.insert(&key(n), &value).unwrap();
    }
    assert_eq!(pool.page_count().unwrap(), high_water);
    again.verify().unwrap();
}
