//! A tree over a sealed pool (folio-buffer `BufferPool::seal`, how
//! folio-db stops its unlogged relations' pool): every change fails with
//! `Sealed` instead of retrying its refused latch upgrade forever, and
//! reads go on seeing every entry.

mod common;

use common::{key, pool};
use folio_btree::{BtreeError, Tree};
use folio_buffer::BufferError;

fn sealed(result: Result<impl std::fmt::Debug, BtreeError>) -> bool {
    matches!(result, Err(BtreeError::Buffer(BufferError::Sealed)))
}

// Proves the module's claim: an insert, an upsert of an existing key and a
// delete on a sealed pool each return `Sealed` (the test would hang if one
// spun), and the entries written before the seal all read back.
#[test]
fn changes_on_a_sealed_pool_fail_and_reads_go_on() {
    let (_dir, pool) = pool(256, true);
    let tree = Tree::create(pool.clone()).unwrap();
    for n in 0..2_000u64 {
        tree.insert(&key(n), &[1u8; 40]).unwrap();
    }
    pool.seal();
    assert!(sealed(tree.insert(&key(5_000), b"new")));
    assert!(sealed(tree.upsert(&key(7), b"changed")));
    assert!(sealed(tree.delete(&key(8))));
    for n in 0..2_000u64 {
        assert_eq!(tree.get(&key(n)).unwrap().as_deref(), Some(&[1u8; 40][..]));
    }
    assert_eq!(tree.get(&key(5_000)).unwrap(), None);
}
