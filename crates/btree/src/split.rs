//! Splits. A node is split with its parent and itself latched exclusively
//! (parent first), the new right sibling freshly allocated and the old right
//! sibling latched last to fix its left link: every latch is taken top-down
//! and left-to-right, and all are taken before the first byte changes, so an
//! error (allocation, I/O) leaves the tree untouched. A full parent is split
//! first (recursively) and the split starts over. The root never moves: a
//! root split moves its contents into two new children. Each split is one
//! record (`SPLIT` or `ROOT_SPLIT`) registering every page it changes, so
//! recovery never sees half a split.

use crate::logging::{self, After};
use crate::node::{self, SLOT_SIZE, Target};
use crate::node_mut::{self, SplitPlan};
use crate::wal_records::{self, RootSplitMain, SplitMain};
use crate::{BtreeError, Tree, apply, counters};
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
                    self.restart_change(&mut attempt)?;
                    continue;
                };
                self.check_node(&root, level)?;
                if node_mut::takes(&root, need) || node::count(&*root) < 2 {
                    return Ok(());
                }
                return self.split_root(&mut root, key);
            };
            let Ok(mut parent) = parent.upgrade() else {
                self.restart_change(&mut attempt)?;
                continue;
            };
            let Ok(mut child) = descent.node.upgrade() else {
                self.restart_change(&mut attempt)?;
                continue;
            };
            self.check_node(&parent, level + 1)?;
            self.check_node(&child, level)?;
            if node_mut::takes(&child, need) || node::count(&*child) < 2 {
                return Ok(());
            }
            let plan = node_mut::split_plan_for(&child, key)
                .map_err(|r| BtreeError::corrupt(child.page_id(), r))?;
            if !node_mut::fits(&parent, plan.separator.len(), 8) {
                drop(child);
                drop(parent);
                self.split(key, level + 1, SLOT_SIZE + plan.separator.len() + 8)?;
                continue;
            }
            return self.split_child(&mut parent, pos, &mut child, &plan);
        }
    }

    /// The O(1) header check of a latched node of this tree at `level`,
    /// before it is modified (`node::check_header`; the modification checks
    /// the slots it reads).
    pub(crate) fn check_node(
        &self,
        guard: &ExclusiveGuard<'_>,
        level: u8,
    ) -> Result<(), BtreeError> {
        let page_id = guard.page_id();
        node::check_header(guard, self.root, level).map_err(|r| BtreeError::corrupt(page_id, r))
    }

    /// The structural change "split a non-root node" (record `SPLIT`):
    /// `child` (at position `pos` of `parent`) keeps the left half, a new
    /// page takes the right half, the separator goes into `parent`, and the
    /// sibling links become `child <-> new <-> old right`.
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
        let level = node::level(&**child);
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
            if !node::is_node_of(&guard, self.root, level) || node::left(&*guard) != child_id.0 {
                self.pool.free(new)?;
                return Err(BtreeError::corrupt(
                    PageId(right_id),
                    format!("right sibling of {child_id} does not link back"),
                ));
            }
            right = Some(guard);
        }
        // Every page's new content on private copies, then the record: if
        // either fails, no page has changed and the new page(s) go back.
        let afters = (|| {
            let corrupt = |page_id| move |reason| BtreeError::corrupt(page_id, reason);
            let sep = plan.separator.as_slice();
            let mut left_after = After::copy_of(child, false);
            let links = (node::left(&**child), new_id.0);
            apply::build_left(&mut left_after.page, child, plan.at, sep, links)
                .map_err(corrupt(child_id))?;
            let mut new_after = After::copy_of(&new, true);
            let links = (child_id.0, right_id);
            apply::build_right(&mut new_after.page, child, plan.at, sep, links)
                .map_err(corrupt(child_id))?;
            let mut parent_after = After::copy_of(parent, false);
            apply::insert_separator(&mut parent_after.page, pos, sep, child_id, new_id)
                .map_err(corrupt(parent.page_id()))?;
            let right_after = match &right {
                Some(right) => {
                    let mut after = After::copy_of(right, false);
                    apply::relink_left(&mut after.page, child_id, new_id)
                        .map_err(corrupt(PageId(right_id)))?;
                    Some(after)
                }
                None => None,
            };
            let main = SplitMain {
                level,
                at: plan.at,
                pos,
                separator: sep,
            }
            .encode();
            let mut pages = vec![&left_after, &new_after, &parent_after];
            pages.extend(right_after.as_ref());
            let lsn =
                logging::log_structural(self.wal.as_deref(), wal_records::SPLIT, &pages, &main)?;
            Ok::<_, BtreeError>((left_after, new_after, parent_after, right_after, lsn))
        })();
        let (left_after, new_after, parent_after, right_after, lsn) = match afters {
            Ok(afters) => afters,
            Err(e) => {
                drop(right);
                self.pool.free(new)?;
                return Err(e);
            }
        };
        left_after.install(child, lsn);
        new_after.install(&mut new, lsn);
        parent_after.install(parent, lsn);
        if let (Some(right), Some(after)) = (right.as_mut(), &right_after) {
            after.install(right, lsn);
        }
        Ok(())
    }

    /// The structural change "new root" (record `ROOT_SPLIT`): the root's
    /// contents move into two new pages and the root becomes an inner node
    /// one level higher with those two as children. The root page id stays
    /// the same.
    fn split_root(&self, root: &mut ExclusiveGuard<'_>, key: &[u8]) -> Result<(), BtreeError> {
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
        // Every page's new content on private copies, then the record: if
        // either fails, no page has changed and the new page(s) go back.
        let afters = (|| {
            let (left_id, right_id) = (left.page_id(), right.page_id());
            let corrupt = |reason| BtreeError::corrupt(self.root, reason);
            let plan = node_mut::split_plan_for(root, key).map_err(corrupt)?;
            let level = node::level(&**root);
            let sep = plan.separator.as_slice();
            let mut left_after = After::copy_of(&left, true);
            apply::build_left(&mut left_after.page, root, plan.at, sep, (0, right_id.0))
                .map_err(corrupt)?;
            let mut right_after = After::copy_of(&right, true);
            apply::build_right(&mut right_after.page, root, plan.at, sep, (left_id.0, 0))
                .map_err(corrupt)?;
            let mut root_after = After::copy_of(root, false);
            apply::grow_root(
                &mut root_after.page,
                self.root,
                level,
                sep,
                (left_id, right_id),
            )
            .map_err(corrupt)?;
            let main = RootSplitMain {
                level,
                separator: sep,
            }
            .encode();
            let pages = [&root_after, &left_after, &right_after];
            let lsn = logging::log_structural(
                self.wal.as_deref(),
                wal_records::ROOT_SPLIT,
                &pages,
                &main,
            )?;
            Ok::<_, BtreeError>((root_after, left_after, right_after, lsn))
        })();
        let (root_after, left_after, right_after, lsn) = match afters {
            Ok(afters) => afters,
            Err(e) => {
                self.pool.free(right)?;
                self.pool.free(left)?;
                return Err(e);
            }
        };
        root_after.install(root, lsn);
        left_after.install(&mut left, lsn);
        right_after.install(&mut right, lsn);
        Ok(())
    }
}
