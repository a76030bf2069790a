//! Insert and upsert: the leaf is found by an optimistic descent and
//! upgraded to an exclusive latch; only that page is latched unless it is
//! full, in which case `split.rs` makes room and the insert starts over.
//! Each change is one small physiological record (`INSERT` / `UPDATE`:
//! slot, key, value).

use crate::node::{self, SLOT_SIZE, Target};
use crate::tree::check_entry;
use crate::{BtreeError, Tree, apply, logging, node_mut, wal_records};
use folio_buffer::ExclusiveGuard;

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
        self.throttle()?;
        let mut attempt = 0;
        loop {
            let leaf = self.descend(Target::Key(key), 0)?.node;
            let Ok(mut leaf) = leaf.upgrade() else {
                self.restart_change(&mut attempt)?;
                continue;
            };
            self.check_node(&leaf, 0)?;
            let (index, found) = node::lower_bound(&*leaf, key);
            let done = match (found, mode) {
                (true, Put::Insert) => return Err(BtreeError::KeyExists),
                (true, Put::Upsert) => self.update_leaf(&mut leaf, index, key, value)?,
                (false, _) => self.insert_into_leaf(&mut leaf, index, key, value)?,
            };
            if done {
                return Ok(found);
            }
            drop(leaf);
            self.split(key, 0, SLOT_SIZE + key.len() + value.len())?;
        }
    }
}

impl Tree {
    /// The change "insert into leaf" (record `INSERT`): false if the leaf
    /// has no room and must be split first.
    fn insert_into_leaf(
        &self,
        leaf: &mut ExclusiveGuard<'_>,
        index: usize,
        key: &[u8],
        value: &[u8],
    ) -> Result<bool, BtreeError> {
        if !node_mut::fits(leaf, key.len(), value.len()) {
            return Ok(false);
        }
        let page_id = leaf.page_id();
        apply::check_insert(leaf, index, key, value)
            .map_err(|r| BtreeError::corrupt(page_id, r))?;
        let header = wal_records::encode_entry_header(index, key.len());
        logging::change_leaf(
            self.wal.as_deref(),
            leaf,
            wal_records::INSERT,
            &[&header, key, value],
            node_mut::insert_compacts(leaf, key.len() + value.len()),
            |page| apply::insert_checked(page, index, key, value),
        )?;
        Ok(true)
    }

    /// The change "replace a value" (record `UPDATE`): false if the leaf
    /// has no room for the new value and must be split first.
    fn update_leaf(
        &self,
        leaf: &mut ExclusiveGuard<'_>,
        index: usize,
        key: &[u8],
        value: &[u8],
    ) -> Result<bool, BtreeError> {
        if !node_mut::replace_fits(leaf, index, value.len()) {
            return Ok(false);
        }
        let page_id = leaf.page_id();
        apply::check_replace(leaf, index, key, value)
            .map_err(|r| BtreeError::corrupt(page_id, r))?;
        let header = wal_records::encode_entry_header(index, key.len());
        // A new length re-inserts the entry, which may compact.
        let resized = node::slot(&**leaf, index).value_len != value.len();
        logging::change_leaf(
            self.wal.as_deref(),
            leaf,
            wal_records::UPDATE,
            &[&header, key, value],
            resized,
            |page| apply::replace_checked(page, index, value),
        )?;
        Ok(true)
    }
}
