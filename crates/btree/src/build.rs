//! Bottom-up builds of an empty tree from entries in ascending key order
//! (README "Bulk builds"): what an index build over a table's rows uses
//! instead of one insert (descent, unique probe, record) per entry.
//!
//! Each level keeps the node it is filling as a list of entries. A leaf
//! takes entries until the next would pass [`ASCENDING_LEAF_KEEP`] percent
//! of the node's space (an inner node [`ASCENDING_INNER_KEEP`]: the fill
//! the ascending split leaves, PostgreSQL's fillfactors); then the node is
//! closed — its separator is the suffix-truncated first key of the next
//! node (inner: that node's first key, which moves up), its high fence and
//! the next node's low fence — written, and the separator with the next
//! node's page goes up a level. A node is assembled with the same
//! node-local functions the do path uses (`node_mut::init`, `insert_at`),
//! and logged as one `BUILD` record carrying its image, so redo only
//! restores images. The last node of each level gets no high fence; the
//! single node left at the top is written into the root page, which never
//! moves, and its own page goes back. A closed node whose entries and
//! fences pass the page (keys near the size limit) gives up its low fence,
//! then moves its last entries on to the next node.
//!
//! The nodes built are reachable only once the root is written, last: an
//! error frees every page allocated so far; a crash before the root's
//! record is durable leaks them (the creating transaction's rollback frees
//! what the root reaches: folio-catalog `reclaim.rs`), as a crash during
//! PostgreSQL's index build leaves its file behind.

use crate::logging::{self, After};
use crate::node::{self, SLOT_SIZE, SLOTS_START};
use crate::node_mut::{self, ASCENDING_INNER_KEEP, ASCENDING_LEAF_KEEP};
use crate::tree::check_entry;
use crate::{BtreeError, Tree, wal_records};
use folio_buffer::ExclusiveGuard;
use folio_page::{PAGE_SIZE, Page, PageId, header_lsn};

/// Bytes a node's slots, entries and fences share.
const NODE_SPACE: usize = PAGE_SIZE - SLOTS_START;

/// What a build made.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct BuildStats {
    pub entries: u64,
    /// Nodes written, the root included.
    pub nodes: u64,
    /// Levels above the leaves.
    pub height: u8,
}

/// The node a level is filling.
struct Level<'t> {
    level: u8,
    /// Its page, allocated when the node before it closed (the first node
    /// of a level gets one at its own close; the top's never does).
    page: Option<ExclusiveGuard<'t>>,
    /// The page of the node before it (0: none).
    left: u64,
    low: Option<Vec<u8>>,
    /// Inner nodes: the leftmost child.
    leftmost: u64,
    entries: Vec<(Vec<u8>, Vec<u8>)>,
    /// Slot and entry bytes of `entries`.
    bytes: usize,
}

impl Level<'_> {
    fn new(level: u8) -> Self {
        Level {
            level,
            page: None,
            left: 0,
            low: None,
            leftmost: 0,
            entries: Vec::new(),
            bytes: 0,
        }
    }

    fn push(&mut self, key: Vec<u8>, value: Vec<u8>) {
        self.bytes += SLOT_SIZE + key.len() + value.len();
        self.entries.push((key, value));
    }
}

/// A bottom-up build in progress ([`Tree::builder`]); [`Builder::finish`]
/// writes what is pending and the root.
pub struct Builder<'t> {
    tree: &'t Tree,
    /// Level 0's entries always end with the last key pushed (a close
    /// carries it on to the next node): the order check reads it there.
    levels: Vec<Level<'t>>,
    /// Every page allocated (freed again on an error).
    allocated: Vec<PageId>,
    stats: BuildStats,
}

impl std::fmt::Debug for Builder<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Builder")
            .field("root", &self.tree.root)
            .field("levels", &self.levels.len())
            .field("stats", &self.stats)
            .finish()
    }
}

/// The separator between a leaf ending in `last_left` and one starting at
/// `first_right`: the shortest prefix of `first_right` greater than
/// `last_left` (suffix truncation; the split's rule too).
pub(crate) fn leaf_separator(last_left: &[u8], first_right: &[u8]) -> Vec<u8> {
    let common = last_left
        .iter()
        .zip(first_right)
        .take_while(|(a, b)| a == b)
        .count();
    first_right[..(common + 1).min(first_right.len())].to_vec()
}

impl Tree {
    /// Starts a bottom-up build of this tree, which must be empty (a root
    /// leaf without entries) and used by nobody else until the build ends.
    pub fn builder(&self) -> Result<Builder<'_>, BtreeError> {
        let root = self.pool.shared(self.root)?;
        if !node::is_node_of(&root, self.root, node::level(&*root)) {
            return Err(BtreeError::corrupt(self.root, "not the root of its tree"));
        }
        if node::level(&*root) != 0 || node::count(&*root) != 0 {
            return Err(BtreeError::NotEmpty);
        }
        drop(root);
        Ok(Builder {
            tree: self,
            levels: vec![Level::new(0)],
            allocated: Vec::new(),
            stats: BuildStats::default(),
        })
    }
}

impl<'t> Builder<'t> {
    /// Adds an entry; its key must be greater than the last one's.
    pub fn push(&mut self, key: Vec<u8>, value: Vec<u8>) -> Result<(), BtreeError> {
        check_entry(&key, &value)?;
        if self.levels[0]
            .entries
            .last()
            .is_some_and(|(last, _)| key <= *last)
        {
            return self.fail(BtreeError::NotAscending);
        }
        self.stats.entries += 1;
        match self.add(0, key, value) {
            Ok(()) => Ok(()),
            Err(e) => self.fail(e),
        }
    }

    /// Writes the pending nodes of every level and the root. Returns what
    /// was built.
    pub fn finish(mut self) -> Result<BuildStats, BtreeError> {
        match self.finish_levels() {
            Ok(()) => Ok(self.stats),
            Err(e) => self.fail(e),
        }
    }

    fn finish_levels(&mut self) -> Result<(), BtreeError> {
        let mut lvl = 0;
        while lvl + 1 < self.levels.len() {
            // The last node of a level: no high fence, no right sibling.
            let level = &mut self.levels[lvl];
            let entries = std::mem::take(&mut level.entries);
            let page = level
                .page
                .take()
                .expect("a level below the top has its page");
            let node = assemble(self.tree.root, level, None, 0, &entries)?;
            self.write(page, node)?;
            lvl += 1;
        }
        let top = self.levels.last_mut().expect("the leaf level");
        let entries = std::mem::take(&mut top.entries);
        let node = assemble(self.tree.root, top, None, 0, &entries)?;
        self.stats.height = top.level;
        let root = self.tree.pool.exclusive(self.tree.root)?;
        self.write(root, node)?;
        Ok(())
    }

    /// Adds `(key, value)` to level `lvl` (an inner level's value is the
    /// child's page id), closing its node first when it is full.
    fn add(&mut self, lvl: usize, key: Vec<u8>, value: Vec<u8>) -> Result<(), BtreeError> {
        let level = &self.levels[lvl];
        let keep = if level.level == 0 {
            ASCENDING_LEAF_KEEP
        } else {
            ASCENDING_INNER_KEEP
        };
        let need = SLOT_SIZE + key.len() + value.len();
        let low = level.low.as_ref().map_or(0, Vec::len);
        let full = (level.bytes + need + low) * 100 > NODE_SPACE * keep;
        let has_entries = !level.entries.is_empty() || level.leftmost != 0;
        if !full || !has_entries {
            self.levels[lvl].push(key, value);
            return Ok(());
        }
        self.close(lvl, key, value)
    }

    /// Closes the node of level `lvl`, which `(key, value)` did not fit:
    /// writes it with its high fence and right link, starts the next node
    /// with that entry (and any the closed node could not keep), and sends
    /// the separator and the next node's page up.
    fn close(&mut self, lvl: usize, key: Vec<u8>, value: Vec<u8>) -> Result<(), BtreeError> {
        let next_page = self.allocate()?;
        let next_id = next_page.page_id();
        let this_page = match self.levels[lvl].page.take() {
            Some(page) => page,
            None => self.allocate()?,
        };
        let this_id = this_page.page_id();
        let level = &mut self.levels[lvl];
        let inner = level.level > 0;
        // The entries that start the next node: the one that did not fit,
        // after whatever the closed node must give up to hold its fence.
        let mut carry = vec![(key, value)];
        let separator = loop {
            let first = &carry[0].0;
            let separator = match level.entries.last() {
                Some((last, _)) if !inner => leaf_separator(last, first),
                _ => first.clone(),
            };
            if level.bytes + separator.len() <= NODE_SPACE || level.entries.len() <= 1 {
                break separator;
            }
            let (k, v) = level.entries.pop().expect("more than one entry");
            level.bytes -= SLOT_SIZE + k.len() + v.len();
            carry.insert(0, (k, v));
        };
        if level.bytes + separator.len() + level.low.as_ref().map_or(0, Vec::len) > NODE_SPACE {
            // Keys near the limit: the low fence is only a shortcut.
            level.low = None;
        }
        let entries = std::mem::take(&mut level.entries);
        let node = assemble(self.tree.root, level, Some(&separator), next_id.0, &entries)?;
        // The next node: a leaf holds the carried entries; an inner node's
        // first carried entry gives its leftmost child (its key moved up).
        level.bytes = 0;
        level.left = this_id.0;
        level.low = Some(separator.clone());
        level.page = Some(next_page);
        let mut carried = carry.into_iter();
        if inner {
            let (_, child) = carried.next().expect("the entry that did not fit");
            level.leftmost = child_id(&child);
        }
        for (k, v) in carried {
            level.push(k, v);
        }
        let level_no = level.level;
        self.write(this_page, node)?;
        if lvl + 1 == self.levels.len() {
            let mut parent = Level::new(level_no + 1);
            parent.leftmost = this_id.0;
            self.levels.push(parent);
        }
        self.add(lvl + 1, separator, next_id.0.to_le_bytes().to_vec())
    }

    fn allocate(&mut self) -> Result<ExclusiveGuard<'t>, BtreeError> {
        let page = self.tree.pool.allocate()?;
        self.allocated.push(page.page_id());
        Ok(page)
    }

    /// Logs `node` as the image of `page` (one `BUILD` record) and installs it.
    fn write(&mut self, mut page: ExclusiveGuard<'_>, node: Box<Page>) -> Result<(), BtreeError> {
        let after = After {
            page_id: page.page_id(),
            old_lsn: header_lsn(&page),
            page: node,
            fresh: true,
        };
        let lsn =
            logging::log_structural(self.tree.wal.as_deref(), wal_records::BUILD, &[&after], &[])?;
        after.install(&mut page, lsn);
        self.stats.nodes += 1;
        Ok(())
    }

    /// Gives back every page allocated (nothing reaches them: the root is
    /// written last) and returns `e`.
    fn fail<T>(&mut self, e: BtreeError) -> Result<T, BtreeError> {
        for level in &mut self.levels {
            level.page = None;
        }
        for page in std::mem::take(&mut self.allocated) {
            if page == self.tree.root {
                continue;
            }
            if let Ok(guard) = self.tree.pool.exclusive(page) {
                let _ = self.tree.pool.free(guard);
            }
        }
        Err(e)
    }
}

fn child_id(value: &[u8]) -> u64 {
    let mut b = [0u8; 8];
    b.copy_from_slice(&value[..8]);
    u64::from_le_bytes(b)
}

/// The node of `level` with `entries`, its high fence `high` and right
/// link `right`, on a fresh page image.
fn assemble(
    tree: PageId,
    level: &Level<'_>,
    high: Option<&[u8]>,
    right: u64,
    entries: &[(Vec<u8>, Vec<u8>)],
) -> Result<Box<Page>, BtreeError> {
    let mut page: Box<Page> = Box::new([0u8; PAGE_SIZE]);
    node_mut::init(&mut page, level.level, tree, level.low.as_deref(), high);
    node_mut::set_left(&mut page, level.left);
    node_mut::set_right(&mut page, right);
    node_mut::set_leftmost(&mut page, level.leftmost);
    for (i, (key, value)) in entries.iter().enumerate() {
        node_mut::insert_at(&mut page, i, key, value)
            .map_err(|e| BtreeError::corrupt(tree, e.reason("a built node overflowed")))?;
    }
    Ok(page)
}
