//! Range scans in both directions.
//!
//! A scan copies one leaf at a time (under an optimistic read, validated)
//! into a private page, takes the entries in range into a batch, and
//! remembers the sibling link in its direction together with the *boundary*:
//! the fence it has covered up to (the high fence going forward, the low
//! fence going backward). It then steps to that sibling without touching
//! the page it just read, in either direction, so both directions access the
//! same pages.
//!
//! The sibling is trusted only if it still borders the boundary:
//! - forward, a live leaf of this tree with `low <= boundary < high`;
//! - backward, a live leaf with `low < boundary <= high`. If instead its high
//!   fence is below the boundary, the left sibling split after the link was
//!   copied and the keys just below the boundary moved right: the scan moves
//!   right along right links until it reaches the page that borders the
//!   boundary (Lehman-Yao's move-right, here repairing a stale left link).
//!
//! Anything else (the sibling was freed or reused) re-descends from the root
//! to the leaf covering the boundary (forward) or the key just below it
//! (backward). Entries are taken only on the unscanned side of the boundary,
//! so a scan returns keys in order, never twice, and never misses a key
//! present for its whole duration: each page it copies was a consistent
//! image covering the next stretch of key space at the moment of the copy.

use crate::counters::{self, AccessCounters};
use crate::kill::LeafStamp;
use crate::node::{self, Target};
use crate::page_buffer::PageBuffer;
use crate::{BtreeError, Tree};
use folio_page::{Page, PageId, header_lsn};
use std::ops::Bound;

/// Most right-moves a backward step makes before re-descending instead.
const MAX_MOVE_RIGHT: u32 = 64;

/// A `(key, value)` pair borrowed from a scan's batch.
pub type Entry<'a> = (&'a [u8], &'a [u8]);

/// Scan direction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    Forward,
    Backward,
}

#[derive(Debug)]
enum Step {
    Start,
    Next {
        page_id: PageId,
        boundary: Vec<u8>,
    },
    /// Backward from a leaf whose low fence was dropped (README "Fences"):
    /// re-descend to the leaf holding the keys below `boundary` (`None`:
    /// the rightmost leaf), learning its low bound on the way.
    Descend {
        boundary: Option<Vec<u8>>,
    },
    Done,
}

/// A range scan; see the module documentation for the protocol. Yields
/// `(key, value)` pairs as an [`Iterator`] or, without allocating per entry,
/// through [`Scan::next_entry`].
#[derive(Debug)]
pub struct Scan<'t> {
    tree: &'t Tree,
    direction: Direction,
    lower: Bound<Vec<u8>>,
    upper: Bound<Vec<u8>>,
    page: PageBuffer,
    /// Key and value bytes of the current batch.
    bytes: Vec<u8>,
    /// (offset in `bytes`, key length, value length), in key order.
    entries: Vec<(usize, usize, usize)>,
    /// Entries of the batch already returned.
    taken: usize,
    step: Step,
    count_only: bool,
    counted: u64,
    counters: AccessCounters,
    /// The leaf the current batch was copied from, and its LSN then.
    stamp: Option<LeafStamp>,
}

impl Tree {
    /// Scans the keys within the bounds in `direction`.
    pub fn scan(&self, lower: Bound<&[u8]>, upper: Bound<&[u8]>, direction: Direction) -> Scan<'_> {
        Scan {
            tree: self,
            direction,
            lower: lower.map(<[u8]>::to_vec),
            upper: upper.map(<[u8]>::to_vec),
            page: PageBuffer::take(),
            bytes: Vec::new(),
            entries: Vec::new(),
            taken: 0,
            step: Step::Start,
            count_only: false,
            counted: 0,
            counters: AccessCounters::default(),
            stamp: None,
        }
    }

    /// Scans the keys that start with `prefix`.
    pub fn scan_prefix(&self, prefix: &[u8], direction: Direction) -> Scan<'_> {
        let end = prefix_successor(prefix);
        let upper = match &end {
            Some(end) => Bound::Excluded(end.as_slice()),
            None => Bound::Unbounded,
        };
        self.scan(Bound::Included(prefix), upper, direction)
    }

    /// Counts the keys within the bounds (visiting the leaves, copying no entries).
    pub fn count(&self, lower: Bound<&[u8]>, upper: Bound<&[u8]>) -> Result<u64, BtreeError> {
        let mut scan = self.scan(lower, upper, Direction::Forward);
        scan.count_only = true;
        while !matches!(scan.step, Step::Done) {
            scan.fill()?;
        }
        Ok(scan.counted)
    }
}

/// The smallest byte string greater than every string starting with
/// `prefix`, or `None` if there is none (empty or all `0xFF`).
pub fn prefix_successor(prefix: &[u8]) -> Option<Vec<u8>> {
    let mut end = prefix.to_vec();
    while let Some(last) = end.pop() {
        if last < 0xFF {
            end.push(last + 1);
            return Some(end);
        }
    }
    None
}

impl Scan<'_> {
    /// The next entry, borrowed from the scan's batch.
    pub fn next_entry(&mut self) -> Result<Option<Entry<'_>>, BtreeError> {
        if self.taken == self.entries.len() {
            self.entries.clear();
            self.bytes.clear();
            self.taken = 0;
            if let Err(e) = self.fill() {
                self.step = Step::Done;
                return Err(e);
            }
            if self.entries.is_empty() {
                return Ok(None);
            }
        }
        let index = match self.direction {
            Direction::Forward => self.taken,
            Direction::Backward => self.entries.len() - 1 - self.taken,
        };
        self.taken += 1;
        let (offset, key_len, value_len) = self.entries[index];
        let key = &self.bytes[offset..offset + key_len];
        let value = &self.bytes[offset + key_len..offset + key_len + value_len];
        Ok(Some((key, value)))
    }

    /// The leaf the current batch (the entry last returned) was copied
    /// from, and its LSN in that copy: the stamp for removing entries found
    /// dead (`kill.rs`).
    pub fn batch_stamp(&self) -> Option<LeafStamp> {
        self.stamp
    }

    /// Pages this scan has accessed so far (descents, leaves, repairs).
    pub fn pages_accessed(&self) -> u64 {
        self.counters.pages
    }

    /// All of this scan's counters (pages, restarts, stale links repaired).
    pub fn counters(&self) -> AccessCounters {
        self.counters
    }

    /// Loads batches until one is non-empty or the scan is done.
    fn fill(&mut self) -> Result<(), BtreeError> {
        let before = AccessCounters::current();
        let result = self.fill_batch();
        let spent = AccessCounters::current().since(&before);
        self.counters.pages += spent.pages;
        self.counters.restarts += spent.restarts;
        self.counters.stale_links += spent.stale_links;
        result
    }

    fn fill_batch(&mut self) -> Result<(), BtreeError> {
        loop {
            match std::mem::replace(&mut self.step, Step::Done) {
                Step::Done => return Ok(()),
                Step::Start => self.load_start()?,
                Step::Next { page_id, boundary } => self.load_next(page_id, boundary)?,
                Step::Descend { boundary } => self.load_descending(boundary)?,
            }
            if !self.entries.is_empty() {
                return Ok(());
            }
        }
    }

    fn load_start(&mut self) -> Result<(), BtreeError> {
        let (lower, upper) = (self.lower.clone(), self.upper.clone());
        let target = match self.direction {
            Direction::Forward => match &lower {
                Bound::Included(k) | Bound::Excluded(k) => Target::Key(k),
                Bound::Unbounded => Target::Key(&[]),
            },
            Direction::Backward => match &upper {
                Bound::Included(k) => Target::Key(k),
                Bound::Excluded(k) => Target::Before(k),
                Bound::Unbounded => Target::Rightmost,
            },
        };
        let page_id = copy_leaf(self.tree, target, &mut self.page)?;
        self.consume(page_id, None, None)
    }

    fn load_descending(&mut self, boundary: Option<Vec<u8>>) -> Result<(), BtreeError> {
        let target = match &boundary {
            Some(b) => Target::Before(b),
            None => Target::Rightmost,
        };
        let (page_id, low) = copy_leaf_with_low(self.tree, target, &mut self.page)?;
        self.consume(page_id, boundary, low)
    }

    fn load_next(&mut self, page_id: PageId, boundary: Vec<u8>) -> Result<(), BtreeError> {
        let tree = self.tree;
        let mut page_id = page_id;
        let mut moves = 0;
        let mut attempt = 0;
        loop {
            let guard = tree.pool.optimistic(page_id)?;
            counters::page();
            // Copy in the direction of travel (see `read_page_descending`).
            match self.direction {
                Direction::Forward => guard.read_page(&mut self.page),
                Direction::Backward => guard.read_page_descending(&mut self.page),
            }
            if guard.validate().is_err() {
                counters::restart(&mut attempt);
                continue;
            }
            let page = &*self.page;
            if node::is_node_of(page, tree.root, 0) {
                node::check(page, tree.root, page_id)
                    .map_err(|r| BtreeError::corrupt(page_id, r))?;
                let b = boundary.as_slice();
                let low = node::low_fence(page);
                let high = node::high_fence(page);
                // Forward, the low fence proves the page still follows the
                // boundary: one that dropped it is re-descended to. Backward,
                // the high fence alone bounds what is taken (keys below the
                // boundary of a page reaching up to it); a page without a low
                // fence then re-descends for its low bound (`consume`).
                let borders = match self.direction {
                    Direction::Forward => low.is_some_and(|l| l <= b) && high.is_none_or(|h| b < h),
                    Direction::Backward => low.is_none_or(|l| l < b) && high.is_none_or(|h| h >= b),
                };
                if borders {
                    return self.consume(page_id, Some(boundary), None);
                }
                let split_left = self.direction == Direction::Backward
                    && high.is_some_and(|h| h < b)
                    && node::right(page) != 0;
                if split_left && moves < MAX_MOVE_RIGHT {
                    counters::stale_link();
                    moves += 1;
                    page_id = PageId(node::right(page));
                    continue;
                }
            }
            counters::stale_link();
            let target = match self.direction {
                Direction::Forward => Target::Key(&boundary),
                Direction::Backward => Target::Before(&boundary),
            };
            let page_id = copy_leaf(tree, target, &mut self.page)?;
            return self.consume(page_id, Some(boundary), None);
        }
    }

    /// Takes the in-range entries of the copied leaf (checked by `node::check`
    /// when it was copied) on the unscanned side of `boundary` and decides
    /// the next step. `path_low` is the leaf's low bound as a descent that
    /// just reached it routed there (`copy_leaf_with_low`), standing in for
    /// a dropped low fence.
    fn consume(
        &mut self,
        page_id: PageId,
        boundary: Option<Vec<u8>>,
        path_low: Option<Vec<u8>>,
    ) -> Result<(), BtreeError> {
        let page = &*self.page;
        self.stamp = Some(LeafStamp {
            page: page_id,
            lsn: header_lsn(page),
        });
        let count = node::count(page);
        let mut start = match &self.lower {
            Bound::Included(k) => node::lower_bound(page, k).0,
            Bound::Excluded(k) => node::upper_bound(page, k),
            Bound::Unbounded => 0,
        };
        let mut end = match &self.upper {
            Bound::Included(k) => node::upper_bound(page, k),
            Bound::Excluded(k) => node::lower_bound(page, k).0,
            Bound::Unbounded => count,
        };
        if let Some(b) = &boundary {
            match self.direction {
                Direction::Forward => start = start.max(node::lower_bound(page, b).0),
                Direction::Backward => end = end.min(node::lower_bound(page, b).0),
            }
        }
        if self.count_only {
            self.counted += end.saturating_sub(start) as u64;
        } else {
            for i in start..end {
                let key = node::key_at(page, i);
                let value = node::value_at(page, i);
                self.entries
                    .push((self.bytes.len(), key.len(), value.len()));
                self.bytes.extend_from_slice(key);
                self.bytes.extend_from_slice(value);
            }
        }
        self.step = match self.direction {
            Direction::Forward => match node::high_fence(page) {
                Some(high) if upper_admits(&self.upper, high) => Step::Next {
                    page_id: sibling(node::right(page), page_id, "right")?,
                    boundary: high.to_vec(),
                },
                _ => Step::Done,
            },
            Direction::Backward => {
                let low = node::low_fence(page).map(<[u8]>::to_vec).or(path_low);
                match low {
                    Some(low) if lower_admits(&self.lower, &low) => Step::Next {
                        page_id: sibling(node::left(page), page_id, "left")?,
                        boundary: low,
                    },
                    Some(_) => Step::Done,
                    // The leftmost leaf: nothing lies below it.
                    None if node::left(page) == 0 => Step::Done,
                    None => {
                        // A dropped low fence: everything below the lowest key
                        // taken (or the boundary) is still to come.
                        let below = match (count > 0).then(|| node::key_at(page, 0)) {
                            Some(first) => match &boundary {
                                Some(b) if b.as_slice() < first => Some(b.clone()),
                                _ => Some(first.to_vec()),
                            },
                            None => boundary.or_else(|| match &self.upper {
                                Bound::Included(k) | Bound::Excluded(k) => Some(k.clone()),
                                Bound::Unbounded => None,
                            }),
                        };
                        match below {
                            Some(b) if !lower_admits(&self.lower, &b) => Step::Done,
                            below => Step::Descend { boundary: below },
                        }
                    }
                }
            }
        };
        Ok(())
    }
}

impl Iterator for Scan<'_> {
    type Item = Result<(Vec<u8>, Vec<u8>), BtreeError>;

    fn next(&mut self) -> Option<Self::Item> {
        match self.next_entry() {
            Ok(Some((key, value))) => Some(Ok((key.to_vec(), value.to_vec()))),
            Ok(None) => None,
            Err(e) => Some(Err(e)),
        }
    }
}

fn sibling(link: u64, page_id: PageId, side: &str) -> Result<PageId, BtreeError> {
    if link == 0 {
        return Err(BtreeError::corrupt(
            page_id,
            format!("fence present but no {side} link"),
        ));
    }
    Ok(PageId(link))
}

/// Whether keys at or above the high fence `high` can still be in range.
fn upper_admits(upper: &Bound<Vec<u8>>, high: &[u8]) -> bool {
    match upper {
        Bound::Included(e) => high <= e.as_slice(),
        Bound::Excluded(e) => high < e.as_slice(),
        Bound::Unbounded => true,
    }
}

/// Whether keys below the low fence `low` can still be in range.
fn lower_admits(lower: &Bound<Vec<u8>>, low: &[u8]) -> bool {
    match lower {
        Bound::Included(s) | Bound::Excluded(s) => low > s.as_slice(),
        Bound::Unbounded => true,
    }
}

/// [`copy_leaf`] that also returns the leaf's low bound as the inner nodes
/// on the way route to it: the separator left of the child taken, or the
/// bound the parent had (`None`: minus infinity, the leftmost leaf). Each
/// inner node is copied and validated, and validated again once the
/// child's version is taken (as in `Tree::descend`), so the bound and the
/// leaf's copy belong together. Used only past a dropped low fence.
fn copy_leaf_with_low(
    tree: &Tree,
    target: Target<'_>,
    page: &mut Page,
) -> Result<(PageId, Option<Vec<u8>>), BtreeError> {
    let mut attempt = 0;
    'restart: loop {
        let mut low: Option<Vec<u8>> = None;
        let mut node = tree.pool.optimistic(tree.root)?;
        counters::page();
        let mut expected_level = None;
        loop {
            node.read_bytes(0, &mut page[..]);
            if node.validate().is_err() {
                counters::restart(&mut attempt);
                continue 'restart;
            }
            let page_id = node.page_id();
            let level = node::level(&*page);
            if expected_level.is_some_and(|l| l != level) {
                return Err(BtreeError::corrupt(
                    page_id,
                    format!("level {level}, expected {expected_level:?}"),
                ));
            }
            node::check(page, tree.root, page_id).map_err(|r| BtreeError::corrupt(page_id, r))?;
            if level == 0 {
                return Ok((page_id, low));
            }
            let pos = node::child_pos(&*page, target);
            if pos > 0 {
                low = Some(node::key_at(page, pos - 1).to_vec());
            }
            let child = node::child_at(&*page, pos);
            if child == 0 || child == tree.root.0 {
                return Err(BtreeError::corrupt(
                    page_id,
                    format!("bad child pointer {child}"),
                ));
            }
            let child_guard = tree.pool.optimistic(PageId(child))?;
            counters::page();
            if node.validate().is_err() {
                counters::restart(&mut attempt);
                continue 'restart;
            }
            node = child_guard;
            expected_level = Some(level - 1);
        }
    }
}

/// Descends to the leaf for `target` and copies it under a validated
/// optimistic read; restarts until the copy is consistent. The copy is then
/// checked in full (`node::check`), since a scan reads all its slots.
pub(crate) fn copy_leaf(
    tree: &Tree,
    target: Target<'_>,
    page: &mut Page,
) -> Result<PageId, BtreeError> {
    let mut attempt = 0;
    loop {
        let leaf = tree.descend(target, 0)?.node;
        leaf.read_bytes(0, &mut page[..]);
        if leaf.validate().is_ok() {
            let page_id = leaf.page_id();
            node::check(page, tree.root, page_id).map_err(|r| BtreeError::corrupt(page_id, r))?;
            return Ok(page_id);
        }
        counters::restart(&mut attempt);
    }
}

impl Scan<'_> {
    pub(crate) fn tree_root(&self) -> PageId {
        self.tree.root
    }
}
