//! Deletion. The entry is removed under the leaf's exclusive latch alone.
//! A leaf left empty is then unlinked and freed if it has a left sibling
//! under the same parent: with the parent, the left sibling, the leaf and
//! its right sibling latched (top-down, left-to-right), the left sibling
//! takes over the leaf's key range (its high fence becomes the leaf's) and
//! links, the parent loses the leaf's separator, and the page is freed.
//! Empty leaves that are a parent's leftmost child stay (see README).
//! The removal is one `DELETE` record; the unlink one `UNLINK` record
//! registering parent, left sibling, leaf and right sibling; the free is
//! logged by the pool.

use crate::logging::{self, After};
use crate::node::{self, MAX_KEY_LEN, Target};
use crate::wal_records::{self, UnlinkMain};
use crate::{BtreeError, Tree, apply, counters, node_mut};
use folio_buffer::ExclusiveGuard;
use folio_page::PageId;

impl Tree {
    /// Deletes `key`; returns true if it was present.
    pub fn delete(&self, key: &[u8]) -> Result<bool, BtreeError> {
        if key.len() > MAX_KEY_LEN {
            return Ok(false);
        }
        self.throttle()?;
        let mut attempt = 0;
        loop {
            let leaf = self.descend(Target::Key(key), 0)?.node;
            let Ok(mut leaf) = leaf.upgrade() else {
                self.restart_change(&mut attempt)?;
                continue;
            };
            self.check_node(&leaf, 0)?;
            if !self.remove_from_leaf(&mut leaf, key)? {
                return Ok(false);
            }
            let now_empty = node::count(&*leaf) == 0 && leaf.page_id() != self.root;
            drop(leaf);
            if now_empty {
                self.unlink_empty_leaf(key)?;
            }
            return Ok(true);
        }
    }

    /// Removes `key` from the latched, checked leaf if it is there (one
    /// `DELETE` record); returns whether it was.
    pub(crate) fn remove_from_leaf(
        &self,
        leaf: &mut ExclusiveGuard<'_>,
        key: &[u8],
    ) -> Result<bool, BtreeError> {
        let (index, found) = node::lower_bound(&**leaf, key);
        if !found {
            return Ok(false);
        }
        let page_id = leaf.page_id();
        apply::check_remove(leaf, index, key).map_err(|r| BtreeError::corrupt(page_id, r))?;
        let header = wal_records::encode_entry_header(index, key.len());
        logging::change_leaf(
            self.wal.as_deref(),
            leaf,
            wal_records::DELETE,
            &[&header, key],
            false,
            |page| apply::remove_checked(page, index),
        )?;
        Ok(true)
    }

    /// Best effort: gives up (leaving a legal empty leaf) if anything changed
    /// since the leaf was found empty.
    fn unlink_empty_leaf(&self, key: &[u8]) -> Result<(), BtreeError> {
        let descent = self.descend(Target::Key(key), 0)?;
        let Some((parent, pos)) = descent.parent else {
            return Ok(());
        };
        if pos == 0 {
            return Ok(());
        }
        let Ok(mut parent) = parent.upgrade() else {
            return Ok(());
        };
        self.check_node(&parent, 1)?;
        let left_id = node::checked_child(&parent, pos - 1)
            .map_err(|r| BtreeError::corrupt(parent.page_id(), r))?;
        let left_id = PageId(left_id);
        let mut left = self.pool.exclusive(left_id)?;
        counters::page();
        let Ok(leaf) = descent.node.upgrade() else {
            return Ok(());
        };
        if node::count(&*leaf) != 0 {
            return Ok(());
        }
        self.check_node(&left, 0)?;
        self.check_node(&leaf, 0)?;
        if node::right(&*left) != leaf.page_id().0 {
            return Err(BtreeError::corrupt(
                left_id,
                format!("right link does not point to {}", leaf.page_id()),
            ));
        }
        let high_len = node::high_fence(&leaf).map_or(0, <[u8]>::len);
        if !node_mut::high_fence_fits(&left, high_len) {
            // The left sibling cannot take the leaf's high fence (long keys,
            // README "Limits"): the empty leaf stays, as a leftmost child's does.
            return Ok(());
        }
        let right_id = node::right(&*leaf);
        let mut right = None;
        if right_id != 0 {
            let guard = self.pool.exclusive(PageId(right_id))?;
            counters::page();
            if node::left(&*guard) != leaf.page_id().0 {
                return Err(BtreeError::corrupt(
                    PageId(right_id),
                    "left link does not point back",
                ));
            }
            right = Some(guard);
        }
        self.unlink_leaf(&mut parent, pos, &mut left, leaf, right.as_mut())
    }

    /// The structural change "unlink and free an empty leaf" (record
    /// `UNLINK`, then the pool's own record for the free).
    fn unlink_leaf(
        &self,
        parent: &mut ExclusiveGuard<'_>,
        pos: usize,
        left: &mut ExclusiveGuard<'_>,
        mut leaf: ExclusiveGuard<'_>,
        right: Option<&mut ExclusiveGuard<'_>>,
    ) -> Result<(), BtreeError> {
        let (left_id, leaf_id) = (left.page_id(), leaf.page_id());
        let high = node::high_fence(&leaf).map(<[u8]>::to_vec);
        let right_link = node::right(&*leaf);
        let corrupt = |page_id| move |reason| BtreeError::corrupt(page_id, reason);
        let mut parent_after = After::copy_of(parent, false);
        apply::remove_child(&mut parent_after.page, pos, left_id, leaf_id)
            .map_err(corrupt(parent.page_id()))?;
        let mut left_after = After::copy_of(left, false);
        apply::absorb_right(&mut left_after.page, leaf_id, high.as_deref(), right_link)
            .map_err(corrupt(left_id))?;
        let mut leaf_after = After::copy_of(&leaf, false);
        apply::clear_leaf(&mut leaf_after.page).map_err(corrupt(leaf_id))?;
        let right_after = match &right {
            Some(right) => {
                let mut after = After::copy_of(right, false);
                apply::relink_left(&mut after.page, leaf_id, left_id)
                    .map_err(corrupt(right.page_id()))?;
                Some(after)
            }
            None => None,
        };
        let main = UnlinkMain {
            pos,
            high: high.as_deref(),
        }
        .encode();
        let mut pages = vec![&parent_after, &left_after, &leaf_after];
        pages.extend(right_after.as_ref());
        let lsn = logging::log_structural(self.wal.as_deref(), wal_records::UNLINK, &pages, &main)?;
        parent_after.install(parent, lsn);
        left_after.install(left, lsn);
        leaf_after.install(&mut leaf, lsn);
        if let (Some(right), Some(after)) = (right, &right_after) {
            after.install(right, lsn);
        }
        self.pool.free(leaf)?;
        Ok(())
    }
}
