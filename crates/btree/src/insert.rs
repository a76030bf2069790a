//! Insert and upsert: the leaf is found by an optimistic descent and
//! upgraded to an exclusive latch; only that page is latched unless it is
//! full, in which case `split.rs` makes room and the insert starts over.

use crate::node::{self, SLOT_SIZE, Target};
use crate::tree::check_entry;
use crate::{BtreeError, Tree, counters, node_mut};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Put {
    Insert,
    Upsert,
}

impl Tree {
    /// Inserts a new entry; [`BtreeError::KeyExists`] if `key` is present.
    pub fn insert(&self, key: &[u8], value: &[u8]) -> Result<(), BtreeError> {
        self.put(key, value, Put::Insert).map(|_| ())
    }

    /// Inserts or replaces; returns true if an existing value was replaced.
    pub fn upsert(&self, key: &[u8], value: &[u8]) -> Result<bool, BtreeError> {
        self.put(key, value, Put::Upsert)
    }

    fn put(&self, key: &[u8], value: &[u8], mode: Put) -> Result<bool, BtreeError> {
        check_entry(key, value)?;
        let mut attempt = 0;
        loop {
            let leaf = self.descend(Target::Key(key), 0)?.node;
            let Ok(mut leaf) = leaf.upgrade() else {
                counters::restart(&mut attempt);
                continue;
            };
            let page_id = leaf.page_id();
            node::check(&leaf, self.root, page_id).map_err(|r| BtreeError::corrupt(page_id, r))?;
            let (index, found) = node::lower_bound(&*leaf, key);
            let done = match (found, mode) {
                (true, Put::Insert) => return Err(BtreeError::KeyExists),
                (true, Put::Upsert) => insert_into_leaf(&mut leaf, index, key, value, true),
                (false, _) => insert_into_leaf(&mut leaf, index, key, value, false),
            };
            if done {
                return Ok(found);
            }
            drop(leaf);
            self.split(key, 0, SLOT_SIZE + key.len() + value.len())?;
        }
    }
}

/// The structural change "insert into leaf" (or replace a value): false if
/// the leaf has no room and must be split first.
fn insert_into_leaf(
    leaf: &mut folio_page::Page,
    index: usize,
    key: &[u8],
    value: &[u8],
    replace: bool,
) -> bool {
    if replace {
        node_mut::replace_value(leaf, index, value).is_ok()
    } else {
        node_mut::insert_at(leaf, index, key, value).is_ok()
    }
}
