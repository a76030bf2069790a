//! Removing entries a reader found dead, without a second look at their
//! targets: the leaf-stamp rule.
//!
//! An index scan reads a leaf's entries (a copy, or in place under an
//! optimistic read) and then follows each to the heap. If every version an
//! entry leads to is dead to every snapshot, the entry can go (PostgreSQL
//! marks it `LP_DEAD` in `_bt_killitems`). The danger is reuse: between the
//! read and the removal, vacuum may remove the entry itself, free the
//! version's tuple id, and a new row may take that tuple id with the same
//! key, so the entry found then is a live one.
//!
//! The rule: a reader records the leaf's page id and LSN in the same read
//! that gave it the entries (a [`LeafStamp`]; the LSN is in the bytes it
//! reads anyway, so this costs nothing and happens on every read: the
//! seed-000 lesson is that PostgreSQL's `BufferGetLSNAtomic` took a
//! spinlock per page read with checksums on; here the LSN is a plain load
//! of the copied header). The removal ([`Tree::delete_if_unchanged`])
//! latches the leaf exclusively and removes the entries only if the LSN is
//! still the stamp's. Every change of a logged leaf (an insert, a delete by
//! vacuum, a split, a free) sets its LSN, so an unchanged LSN means the
//! entries there are the very entries the reader saw. An unlogged tree
//! keeps no LSN and removes nothing this way.
//!
//! The removal is a logged `DELETE` per entry (redone like any delete): a
//! removed entry needs no flag bit, no reader skips anything, and nothing
//! is written to a page without the WAL (folio has no hint bits). An empty
//! leaf stays (legal); the next delete or split deals with it.

use crate::multi::MultiTree;
use crate::node;
use crate::node::NodeSource;
use crate::{BtreeError, Tree};
use folio_page::{LSN_OFFSET, Lsn, PageId, header_lsn};

/// The leaf some entries were read from, and its LSN at that read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LeafStamp {
    pub page: PageId,
    pub lsn: Lsn,
}

impl Tree {
    /// Removes `keys` from the leaf of `stamp` if the leaf has not changed
    /// since the stamp was taken (the module's rule); returns how many it
    /// removed (0 when the leaf changed, or for an unlogged tree).
    pub fn delete_if_unchanged(
        &self,
        stamp: LeafStamp,
        keys: &[Vec<u8>],
    ) -> Result<usize, BtreeError> {
        if self.wal.is_none() || keys.is_empty() {
            return Ok(0);
        }
        let mut leaf = self.pool.exclusive(stamp.page)?;
        if !node::is_node_of(&leaf, self.root, 0) || header_lsn(&leaf) != stamp.lsn {
            return Ok(0);
        }
        self.check_node(&leaf, 0)?;
        let mut removed = 0;
        for key in keys {
            if self.remove_from_leaf(&mut leaf, key)? {
                removed += 1;
            }
        }
        Ok(removed)
    }
}

impl Tree {
    /// Whether the leaf of `stamp` is unchanged since the stamp was taken
    /// (its LSN is the stamp's): then every entry read with the stamp is
    /// still in it, and nothing it led to was freed. Always false for an
    /// unlogged tree (no LSN to compare).
    pub fn stamp_holds(&self, stamp: LeafStamp) -> Result<bool, BtreeError> {
        if self.wal.is_none() {
            return Ok(false);
        }
        loop {
            let guard = self.pool.optimistic(stamp.page)?;
            let lsn = Lsn(guard.u64_at(LSN_OFFSET));
            if guard.validate().is_ok() {
                return Ok(lsn == stamp.lsn);
            }
        }
    }
}

impl MultiTree {
    /// Removes the entries `(key, tid)` from the leaf of `stamp` if it is
    /// unchanged since the stamp ([`Tree::delete_if_unchanged`]).
    pub fn delete_if_unchanged(
        &self,
        stamp: LeafStamp,
        entries: &[(Vec<u8>, u64)],
    ) -> Result<usize, BtreeError> {
        let keys = entries
            .iter()
            .map(|(key, tid)| self.form().encode(key, *tid))
            .collect::<Result<Vec<_>, _>>()?;
        self.tree().delete_if_unchanged(stamp, &keys)
    }
}
