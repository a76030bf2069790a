//! `verify()`: walks the whole tree level by level under shared latches and
//! checks every structural invariant (README "Invariants"). Meant for a
//! quiescent tree (tests, `folio verify`); concurrent writers can make it
//! report a transient inconsistency between two levels.

use crate::node::{self, MAGIC};
use crate::{BtreeError, Tree};
use folio_page::{PAGE_SIZE, Page, PageId};
use std::collections::HashSet;

/// What [`Tree::verify`] found in a sound tree.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct VerifyReport {
    /// Levels, counting the leaves (a lone root leaf is height 1).
    pub height: u32,
    pub inner_pages: u64,
    pub leaf_pages: u64,
    pub entries: u64,
    /// Nodes (not the first of their level) that gave up their low fence
    /// for room: only nodes of keys near the limit (README "Fences").
    pub without_low_fence: u64,
}

/// One node expected on a level: its id and the fences its parent implies.
struct Expected {
    page_id: PageId,
    low: Option<Vec<u8>>,
    high: Option<Vec<u8>>,
}

impl Tree {
    /// Checks key order within every node, fences against the parent's
    /// separators (so every key lies in its node's range), levels, sibling
    /// links in both directions (each level's chain is exactly its parents'
    /// children in order), and that no page is reachable twice.
    pub fn verify(&self) -> Result<VerifyReport, BtreeError> {
        let mut report = VerifyReport::default();
        let mut seen = HashSet::new();
        let mut page: Box<Page> = Box::new([0u8; PAGE_SIZE]);
        let mut level_nodes = vec![Expected {
            page_id: self.root,
            low: None,
            high: None,
        }];
        let mut level = None;
        while !level_nodes.is_empty() {
            let mut children = Vec::new();
            for (i, expected) in level_nodes.iter().enumerate() {
                let id = expected.page_id;
                let fail =
                    |reason: String| Err(BtreeError::corrupt(id, format!("verify: {reason}")));
                if !seen.insert(id) {
                    return fail("page reachable twice".into());
                }
                page.copy_from_slice(&*self.pool.shared(id)?);
                if node::magic(&*page) != MAGIC {
                    return fail("not a node".into());
                }
                node::check(&page, self.root, id)
                    .and_then(|()| node::check_heads(&page))
                    .map_err(|r| BtreeError::corrupt(id, r))?;
                let this_level = node::level(&*page);
                match level {
                    None => {
                        level = Some(this_level);
                        report.height = u32::from(this_level) + 1;
                    }
                    Some(l) if l != this_level => {
                        return fail(format!("level {this_level}, expected {l}"));
                    }
                    Some(_) => {}
                }
                // A low fence may have been dropped for room (README "Fences").
                let low_ok = match node::low_fence(&page) {
                    Some(low) => Some(low) == expected.low.as_deref(),
                    None => {
                        report.without_low_fence += u64::from(expected.low.is_some());
                        true
                    }
                };
                if !low_ok || node::high_fence(&page) != expected.high.as_deref() {
                    return fail("fences differ from the parent's separators".into());
                }
                let want_left = if i == 0 {
                    0
                } else {
                    level_nodes[i - 1].page_id.0
                };
                let want_right = level_nodes.get(i + 1).map_or(0, |n| n.page_id.0);
                if node::left(&*page) != want_left || node::right(&*page) != want_right {
                    return fail(format!(
                        "sibling links {}/{} expected {want_left}/{want_right}",
                        node::left(&*page),
                        node::right(&*page)
                    ));
                }
                let count = node::count(&*page);
                for k in 0..count {
                    let key = node::key_at(&page, k);
                    if k > 0 && node::key_at(&page, k - 1) >= key {
                        return fail(format!("keys out of order at slot {k}"));
                    }
                    if expected.low.as_deref().is_some_and(|low| key < low)
                        || expected.high.as_deref().is_some_and(|high| key >= high)
                    {
                        return fail(format!("key at slot {k} outside the node's fences"));
                    }
                }
                if this_level == 0 {
                    report.leaf_pages += 1;
                    report.entries += count as u64;
                    continue;
                }
                report.inner_pages += 1;
                let mut low = expected.low.clone();
                for pos in 0..=count {
                    let high = if pos < count {
                        Some(node::key_at(&page, pos).to_vec())
                    } else {
                        expected.high.clone()
                    };
                    let child = node::child_at(&*page, pos);
                    if child == 0 {
                        return fail(format!("null child at position {pos}"));
                    }
                    children.push(Expected {
                        page_id: PageId(child),
                        low,
                        high: high.clone(),
                    });
                    low = high;
                }
            }
            if let Some(l) = level {
                if l == 0 && !children.is_empty() {
                    return Err(BtreeError::corrupt(
                        self.root,
                        "verify: leaves with children",
                    ));
                }
                level = l.checked_sub(1);
                if level.is_none() && !children.is_empty() {
                    return Err(BtreeError::corrupt(
                        self.root,
                        "verify: children below level 0",
                    ));
                }
            }
            level_nodes = children;
        }
        Ok(report)
    }
}
