//! Splits. A node is split with its parent and itself latched exclusively
//! (parent first), the new right sibling freshly allocated and the old right
//! sibling latched last to fix its left link: every latch is taken top-down
//! and left-to-right, and all are taken before the first byte changes, so an
//! error (allocation, I/O) leaves the tree untouched. A full parent is split
//! first (recursively) and the split starts over. The root never moves: a
//! root split moves its contents into two new children.

use crate::node::{self, FENCE_RESERVE, SLOT_SIZE, Target};
use crate::node_mut::{self, SplitPlan};
use crate::{BtreeError, Tree, counters};
use folio_buffer::ExclusiveGuard;
use folio_page::PageId;

impl Tree {
    /// Makes room for `need` bytes in the node at `level` covering `key`,
    /// splitting it unless a concurrent split already did.
    pub(crate) fn split(&self, key: &[u8], level: u8, need: usize) -> Result<(), BtreeError> {
        let mut attempt = 0;
        loop {
            let descent = self.descend(Target::Key(key), level)?;
            let Some((parent, pos)) = descent.parent else {
                let Ok(mut root) = descent.node.upgrade() else {
                    counters::restart(&mut attempt);
                    continue;
                };
                self.check_node(&root)?;
                if node::free_bytes(&root) >= need + FENCE_RESERVE || node::count(&*root) < 2 {
                    return Ok(());
                }
                return self.split_root(&mut root);
            };
            let Ok(mut parent) = parent.upgrade() else {
                counters::restart(&mut attempt);
                continue;
            };
            let Ok(mut child) = descent.node.upgrade() else {
                counters::restart(&mut attempt);
                continue;
            };
            self.check_node(&parent)?;
            self.check_node(&child)?;
            if node::free_bytes(&child) >= need + FENCE_RESERVE || node::count(&*child) < 2 {
                return Ok(());
            }
            let plan = node_mut::split_plan(&child);
            if !node_mut::fits(&parent, plan.separator.len(), 8) {
                drop(child);
                drop(parent);
                self.split(key, level + 1, SLOT_SIZE + plan.separator.len() + 8)?;
                continue;
            }
            return self.split_child(&mut parent, pos, &mut child, &plan);
        }
    }

    pub(crate) fn check_node(&self, guard: &ExclusiveGuard<'_>) -> Result<(), BtreeError> {
        let page_id = guard.page_id();
        node::check(guard, self.root, page_id).map_err(|r| BtreeError::corrupt(page_id, r))
    }

    /// The structural change "split a non-root node": `child` (at position
    /// `pos` of `parent`) keeps the left half, a new page takes the right
    /// half, the separator goes into `parent`, and the sibling links become
    /// `child <-> new <-> old right`.
    fn split_child(
        &self,
        parent: &mut ExclusiveGuard<'_>,
        pos: usize,
        child: &mut ExclusiveGuard<'_>,
        plan: &SplitPlan,
    ) -> Result<(), BtreeError> {
        let child_id = child.page_id();
        let mut new = self.pool.allocate()?;
        counters::page();
        let new_id = new.page_id();
        let right_id = node::right(&**child);
        let mut right = None;
        if right_id != 0 {
            let guard = match self.pool.exclusive(PageId(right_id)) {
                Ok(guard) => guard,
                Err(e) => {
                    self.pool.free(new)?;
                    return Err(e.into());
                }
            };
            counters::page();
            let level = node::level(&**child);
            if !node::is_node_of(&guard, self.root, level) || node::left(&*guard) != child_id.0 {
                self.pool.free(new)?;
                return Err(BtreeError::corrupt(
                    PageId(right_id),
                    format!("right sibling of {child_id} does not link back"),
                ));
            }
            right = Some(guard);
        }
        let source = Box::new(**child);
        node_mut::split_into(&source, plan, (child, child_id), (&mut new, new_id));
        if let Some(right) = right.as_mut() {
            node_mut::set_left(right, new_id.0);
        }
        node_mut::insert_at(parent, pos, &plan.separator, &new_id.0.to_le_bytes())
            .expect("the parent's room was checked before the split");
        Ok(())
    }

    /// The structural change "new root": the root's contents move into two
    /// new pages and the root becomes an inner node one level higher with
    /// those two as children. The root page id stays the same.
    fn split_root(&self, root: &mut ExclusiveGuard<'_>) -> Result<(), BtreeError> {
        let mut left = self.pool.allocate()?;
        let mut right = match self.pool.allocate() {
            Ok(guard) => guard,
            Err(e) => {
                self.pool.free(left)?;
                return Err(e.into());
            }
        };
        counters::page();
        counters::page();
        let (left_id, right_id) = (left.page_id(), right.page_id());
        let source = Box::new(**root);
        let plan = node_mut::split_plan(&source);
        let level = node::level(&*source);
        assert!(level < u8::MAX, "tree height limit");
        node_mut::split_into(&source, &plan, (&mut left, left_id), (&mut right, right_id));
        node_mut::init(root, level + 1, self.root, None, None);
        node_mut::set_leftmost(root, left_id.0);
        node_mut::insert_at(root, 0, &plan.separator, &right_id.0.to_le_bytes())
            .expect("an empty root holds one separator");
        Ok(())
    }
}
