//! Deletion. The entry is removed under the leaf's exclusive latch alone.
//! A leaf left empty is then unlinked and freed if it has a left sibling
//! under the same parent: with the parent, the left sibling, the leaf and
//! its right sibling latched (top-down, left-to-right), the left sibling
//! takes over the leaf's key range (its high fence becomes the leaf's) and
//! links, the parent loses the leaf's separator, and the page is freed.
//! Empty leaves that are a parent's leftmost child stay (see README).

use crate::node::{self, MAX_KEY_LEN, Target};
use crate::{BtreeError, Tree, counters, node_mut};
use folio_buffer::ExclusiveGuard;
use folio_page::PageId;

impl Tree {
    /// Deletes `key`; returns true if it was present.
    pub fn delete(&self, key: &[u8]) -> Result<bool, BtreeError> {
        if key.len() > MAX_KEY_LEN {
            return Ok(false);
        }
        let mut attempt = 0;
        loop {
            let leaf = self.descend(Target::Key(key), 0)?.node;
            let Ok(mut leaf) = leaf.upgrade() else {
                counters::restart(&mut attempt);
                continue;
            };
            self.check_node(&leaf)?;
            let (index, found) = node::lower_bound(&*leaf, key);
            if !found {
                return Ok(false);
            }
            node_mut::remove_at(&mut leaf, index);
            let now_empty = node::count(&*leaf) == 0 && leaf.page_id() != self.root;
            drop(leaf);
            if now_empty {
                self.unlink_empty_leaf(key)?;
            }
            return Ok(true);
        }
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
        self.check_node(&parent)?;
        let left_id = PageId(node::child_at(&*parent, pos - 1));
        let mut left = self.pool.exclusive(left_id)?;
        counters::page();
        let Ok(leaf) = descent.node.upgrade() else {
            return Ok(());
        };
        if node::count(&*leaf) != 0 {
            return Ok(());
        }
        self.check_node(&left)?;
        self.check_node(&leaf)?;
        if node::right(&*left) != leaf.page_id().0 {
            return Err(BtreeError::corrupt(
                left_id,
                format!("right link does not point to {}", leaf.page_id()),
            ));
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

    /// The structural change "unlink and free an empty leaf".
    fn unlink_leaf(
        &self,
        parent: &mut ExclusiveGuard<'_>,
        pos: usize,
        left: &mut ExclusiveGuard<'_>,
        mut leaf: ExclusiveGuard<'_>,
        right: Option<&mut ExclusiveGuard<'_>>,
    ) -> Result<(), BtreeError> {
        assert_eq!(node::count(&*leaf), 0, "only empty leaves are unlinked");
        node_mut::set_high_fence(left, node::high_fence(&leaf));
        node_mut::set_right(left, node::right(&*leaf));
        if let Some(right) = right {
            node_mut::set_left(right, left.page_id().0);
        }
        node_mut::remove_at(parent, pos - 1);
        node_mut::clear(&mut leaf);
        self.pool.free(leaf)?;
        Ok(())
    }
}
