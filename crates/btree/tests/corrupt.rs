//! Corrupt nodes met by the public API: a leaf whose header fails the O(1)
//! check every modification runs (`node::check_header`) is a
//! `BtreeError::Corrupt` naming that leaf, never a panic, and the failed
//! change leaves the page as it was; `verify()` reports the same page. A
//! corrupt slot the change does not touch is caught by `verify()`.

mod common;

use common::key;
use folio_btree::{BtreeError, Tree};
use folio_page::{PAGE_SIZE, Page, PageId};

// Node header fields (the offset table at the top of `node.rs`).
const OFF_LEVEL: usize = 26;
const OFF_FLAGS: usize = 27;
const OFF_COUNT: usize = 28;
const OFF_HEAP_START: usize = 30;
const OFF_DEAD: usize = 32;
const OFF_HIGH_OFF: usize = 38;
const OFF_TREE: usize = 48;
const SLOTS_START: usize = 80;

fn put_u16(page: &mut Page, at: usize, value: u16) {
    page[at..at + 2].copy_from_slice(&value.to_le_bytes());
}

fn get_u16(page: &Page, at: usize) -> u16 {
    u16::from_le_bytes([page[at], page[at + 1]])
}

/// A named way to break a page.
type Corruption = (&'static str, fn(&mut Page));

/// Header corruptions the O(1) check rejects, by name.
fn header_corruptions() -> Vec<Corruption> {
    vec![
        ("slot count beyond the page", |p| put_u16(p, OFF_COUNT, 600)),
        ("heap start inside the slot array", |p| {
            put_u16(p, OFF_HEAP_START, SLOTS_START as u16 + 16)
        }),
        ("heap start past the page", |p| {
            put_u16(p, OFF_HEAP_START, PAGE_SIZE as u16 + 1)
        }),
        ("unknown flag", |p| p[OFF_FLAGS] |= 0x80),
        ("high fence outside the heap", |p| {
            p[OFF_FLAGS] |= 2;
            put_u16(p, OFF_HIGH_OFF, SLOTS_START as u16);
        }),
        ("dead bytes beyond the heap", |p| {
            put_u16(p, OFF_DEAD, PAGE_SIZE as u16)
        }),
        ("another tree", |p| p[OFF_TREE] ^= 0x40),
        ("another level", |p| p[OFF_LEVEL] = 3),
    ]
}

/// A two-level tree and one of its leaves (the first page allocated after
/// the root: the left half of the root split) with a key in it.
fn tree() -> (tempfile::TempDir, Tree, PageId) {
    let (dir, pool) = common::pool(256, false);
    let tree = Tree::create(pool).unwrap();
    for n in 0..2_000 {
        tree.insert(&key(n), &[7u8; 40]).unwrap();
    }
    assert_eq!(tree.verify().unwrap().height, 2);
    let leaf = PageId(tree.root().0 + 1);
    (dir, tree, leaf)
}

/// A key just after `k` (and before the next 8-byte key).
fn after(k: [u8; 8]) -> Vec<u8> {
    [k.as_slice(), &[0]].concat()
}

fn image(tree: &Tree, id: PageId) -> Box<Page> {
    Box::new(*tree.pool().shared(id).unwrap())
}

fn assert_names(result: Result<impl std::fmt::Debug, BtreeError>, page: PageId, what: &str) {
    match result {
        Err(BtreeError::Corrupt { page_id, .. }) if page_id == page => {}
        other => panic!("{what}: expected Corrupt naming {page}, got {other:?}"),
    }
}

#[test]
fn a_leaf_failing_the_header_check_is_an_error_naming_it() {
    // Proves: for each header corruption, insert, upsert and delete of a
    // key in the leaf return Corrupt naming the leaf (not its parent, not
    // a panic), leave the page's bytes unchanged, and verify() names it.
    for (name, corrupt) in header_corruptions() {
        let (_dir, tree, leaf) = tree();
        corrupt(&mut tree.pool().exclusive(leaf).unwrap());
        let before = image(&tree, leaf);
        let what = |op: &str| format!("{name}: {op}");
        if name == "another level" {
            // The descent meets a leaf at the wrong level and names it.
            assert_names(tree.get(&key(0)), leaf, &what("get"));
        }
        assert_names(tree.insert(&key(0), b"new"), leaf, &what("insert"));
        assert_names(tree.insert(&after(key(0)), b"new"), leaf, &what("insert"));
        assert_names(tree.upsert(&key(3), b"other"), leaf, &what("upsert"));
        assert_names(tree.delete(&key(5)), leaf, &what("delete"));
        assert!(image(&tree, leaf) == before, "{name}: the page changed");
        assert_names(tree.verify(), leaf, &what("verify"));
    }
}

#[test]
fn a_corrupt_slot_is_an_error_where_it_is_read() {
    // Proves a slot pointing outside the heap (which the O(1) header check
    // does not read) is an error naming the leaf when a change reads it
    // (a delete of that slot's key; an insert next to it), leaves the page
    // unchanged, and is reported by verify().
    let (_dir, tree, leaf) = tree();
    let victim = 4;
    let (victim_key, count) = {
        let mut page = tree.pool().exclusive(leaf).unwrap();
        let at = SLOTS_START + victim * 16;
        let (off, len) = (get_u16(&page, at + 8), get_u16(&page, at + 10));
        let key: [u8; 8] = page[off as usize..(off + len) as usize].try_into().unwrap();
        put_u16(&mut page, at + 8, SLOTS_START as u16);
        (key, get_u16(&page, OFF_COUNT))
    };
    assert!(count > 10);
    let before = image(&tree, leaf);
    assert_names(tree.delete(&victim_key), leaf, "delete of the slot");
    assert_names(tree.upsert(&victim_key, b"x"), leaf, "update of the slot");
    assert_names(
        tree.insert(&after(victim_key), b"x"),
        leaf,
        "insert after the slot",
    );
    assert!(image(&tree, leaf) == before, "the page changed");
    assert_names(tree.verify(), leaf, "verify");
}
