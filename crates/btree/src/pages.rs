//! The pages of a tree, for giving them back once the tree is dropped
//! (folio-catalog `reclaim.rs`): every node, found level by level from the
//! root, each level walked along its right links from its leftmost node
//! (invariant 4: a level's right-link chain holds exactly its nodes).
//! Meant for a tree nobody uses any more; a node that is not one of this
//! tree's at the expected level, a link outside the file or a page met
//! twice is an error naming the page, never a panic or an endless walk.

use crate::node;
use crate::{BtreeError, Tree};
use folio_page::{PAGE_SIZE, Page, PageId};
use std::collections::HashSet;

impl Tree {
    /// Calls `each` with every page of the tree (the root first, then the
    /// levels below, each left to right) and returns how many there were.
    pub fn pages(
        &self,
        mut each: impl FnMut(PageId) -> Result<(), BtreeError>,
    ) -> Result<u64, BtreeError> {
        let limit = self.pool.page_count()?;
        let mut seen = HashSet::new();
        let mut page: Box<Page> = Box::new([0u8; PAGE_SIZE]);
        let mut first = self.root;
        let mut level: Option<u8> = None;
        loop {
            let mut id = first;
            let mut below = None;
            loop {
                let fail = |reason: String| BtreeError::corrupt(id, format!("pages: {reason}"));
                if id.0 == 0 || id.0 >= limit {
                    return Err(fail(format!("link outside the file ({limit} pages)")));
                }
                if !seen.insert(id) {
                    return Err(fail("page reached twice".into()));
                }
                page.copy_from_slice(&*self.pool.shared(id)?);
                let this_level = *level.get_or_insert(node::level(&*page));
                node::check_header(&page, self.root, this_level).map_err(&fail)?;
                if below.is_none() && this_level > 0 {
                    below = Some(PageId(node::leftmost(&*page)));
                }
                each(id)?;
                match node::right(&*page) {
                    0 => break,
                    right => id = PageId(right),
                }
            }
            match (level, below) {
                (Some(l), Some(next)) if l > 0 => {
                    first = next;
                    level = Some(l - 1);
                }
                _ => return Ok(seen.len() as u64),
            }
        }
    }
}
