//! The tree handle, optimistic descents and point lookups.

use crate::BtreeError;
use crate::counters;
use crate::kill::LeafStamp;
use crate::logging::{self, After};
use crate::node::{self, MAGIC, MAX_ENTRY_LEN, MAX_KEY_LEN, NodeSource, Target};
use crate::node_mut;
use crate::wal_records;
use folio_buffer::{BufferPool, OptimisticGuard};
use folio_page::{LSN_OFFSET, Lsn, PageId};
use folio_wal::Wal;
use std::cmp::Ordering;
use std::sync::Arc;

/// A B+tree with unique byte-string keys, stored in a buffer pool and
/// identified by its root page, which never moves (a root split moves the
/// root's contents into two new children). Cheap to clone; every method
/// takes `&self` and may run concurrently with any other.
///
/// A tree opened with a WAL logs every change (README "Logging protocol");
/// without one it is unlogged.
#[derive(Debug, Clone)]
pub struct Tree {
    pub(crate) pool: Arc<BufferPool>,
    pub(crate) root: PageId,
    pub(crate) wal: Option<Arc<Wal>>,
}

/// An optimistic descent's result: the node at the requested level and its
/// parent with the child position that led to it. Neither is validated
/// after the last read: the caller reads, then validates or upgrades.
pub(crate) struct Descent<'a> {
    pub parent: Option<(OptimisticGuard<'a>, usize)>,
    pub node: OptimisticGuard<'a>,
}

impl Tree {
    /// Creates an empty, unlogged tree (a single leaf, its root) in `pool`.
    pub fn create(pool: Arc<BufferPool>) -> Result<Tree, BtreeError> {
        Tree::create_logged(pool, None)
    }

    /// Creates an empty tree in `pool` whose changes are logged to `wal`
    /// (`None`: unlogged). The creation itself is one `CREATE` record.
    pub fn create_logged(pool: Arc<BufferPool>, wal: Option<Arc<Wal>>) -> Result<Tree, BtreeError> {
        let mut guard = pool.allocate()?;
        let root = guard.page_id();
        let mut after = After::copy_of(&guard, true);
        node_mut::init(&mut after.page, 0, root, None, None);
        let lsn = match logging::log_structural(wal.as_deref(), wal_records::CREATE, &[&after], &[])
        {
            Ok(lsn) => lsn,
            Err(e) => {
                pool.free(guard)?;
                return Err(e);
            }
        };
        after.install(&mut guard, lsn);
        drop(guard);
        Ok(Tree { pool, root, wal })
    }

    /// Opens the unlogged tree whose root is `root`, checking that the page is one.
    pub fn open(pool: Arc<BufferPool>, root: PageId) -> Result<Tree, BtreeError> {
        Tree::open_logged(pool, root, None)
    }

    /// Opens the tree whose root is `root`, logging its changes to `wal`
    /// (`None`: unlogged).
    pub fn open_logged(
        pool: Arc<BufferPool>,
        root: PageId,
        wal: Option<Arc<Wal>>,
    ) -> Result<Tree, BtreeError> {
        {
            let guard = pool.shared(root)?;
            if node::magic(&*guard) != MAGIC || node::tree_id(&*guard) != root.0 {
                return Err(BtreeError::corrupt(root, "not the root of a B+tree"));
            }
        }
        Ok(Tree { pool, root, wal })
    }

    /// The WAL this tree logs to, if it is logged.
    pub fn wal(&self) -> Option<&Arc<Wal>> {
        self.wal.as_ref()
    }

    /// The root page id, which identifies the tree.
    pub fn root(&self) -> PageId {
        self.root
    }

    /// The buffer pool the tree lives in.
    pub fn pool(&self) -> &Arc<BufferPool> {
        &self.pool
    }

    /// Looks `key` up and returns a copy of its value.
    pub fn get(&self, key: &[u8]) -> Result<Option<Vec<u8>>, BtreeError> {
        let mut value = Vec::new();
        Ok(self.get_into(key, &mut value)?.then_some(value))
    }

    /// Looks `key` up; if present, copies its value into `value` (replacing
    /// its contents) and returns true. Reads nothing but optimistic copies
    /// and writes no shared memory when the pages are cached.
    pub fn get_into(&self, key: &[u8], value: &mut Vec<u8>) -> Result<bool, BtreeError> {
        if key.len() > MAX_KEY_LEN {
            return Ok(false);
        }
        let mut attempt = 0;
        loop {
            let leaf = self.descend(Target::Key(key), 0)?.node;
            node::touch_slots(&leaf);
            let (index, found) = node::lower_bound_routed(&leaf, key);
            if found {
                let slot = node::slot(&leaf, index);
                value.clear();
                value.resize(slot.value_len.min(MAX_ENTRY_LEN), 0);
                leaf.read_bytes(slot.value_offset(), value);
            }
            if leaf.validate().is_ok() {
                return Ok(found);
            }
            counters::restart(&mut attempt);
        }
    }

    /// The last 8 bytes, read as a big-endian integer, of every key that is
    /// `prefix` followed by exactly 8 bytes, when all of them lie in the leaf that covers `prefix` (the
    /// common case of a non-unique tree's point probe): one optimistic
    /// descent, the matching keys read from the leaf without copying it.
    /// Returns false when the matches may go on past that leaf (the caller
    /// scans instead); `out` then holds nothing useful.
    ///
    /// Returns, when complete, the leaf's stamp (its LSN read in the same
    /// optimistic read: `kill.rs`).
    pub(crate) fn probe_suffixes(
        &self,
        prefix: &[u8],
        out: &mut Vec<u64>,
    ) -> Result<Option<LeafStamp>, BtreeError> {
        if prefix.len() + 8 > MAX_KEY_LEN {
            return Ok(None);
        }
        let mut attempt = 0;
        loop {
            out.clear();
            let leaf = self.descend(Target::Key(prefix), 0)?.node;
            let (mut index, _) = node::lower_bound_routed(&leaf, prefix);
            let count = node::count(&leaf);
            let mut complete = false;
            while index < count {
                // Compared and read in place: no copy of the key.
                let slot = node::slot(&leaf, index);
                if slot.key_len != prefix.len() + 8
                    || leaf.compare_bytes(slot.offset, prefix.len(), prefix) != Ordering::Equal
                {
                    complete = true;
                    break;
                }
                let suffix = leaf.u64_at(slot.offset + prefix.len());
                out.push(u64::from_be_bytes(suffix.to_le_bytes()));
                index += 1;
            }
            if !complete {
                complete = Self::no_later_leaf_holds(&leaf, prefix);
            }
            let lsn = Lsn(leaf.u64_at(LSN_OFFSET));
            if leaf.validate().is_ok() {
                return Ok(complete.then_some(LeafStamp {
                    page: leaf.page_id(),
                    lsn,
                }));
            }
            counters::restart(&mut attempt);
        }
    }

    /// Whether no leaf right of `leaf` can hold a key starting with
    /// `prefix`, for a probe whose entries ran to the leaf's end: it is the
    /// last leaf, or its high fence (which every later key reaches) is
    /// above every key with the prefix. An ascending load's probes (a
    /// unique check of a key past every other) end here instead of in a
    /// scan. Read optimistically: the caller validates the leaf after.
    fn no_later_leaf_holds<S: node::NodeSource + ?Sized>(leaf: &S, prefix: &[u8]) -> bool {
        if node::right(leaf) == 0 {
            return true;
        }
        if node::flags(leaf) & node::FLAG_HIGH == 0 {
            return false;
        }
        let offset = usize::from(leaf.u16_at(node::OFF_HIGH_OFF));
        let len = usize::from(leaf.u16_at(node::OFF_HIGH_LEN)).min(prefix.len());
        leaf.compare_bytes(offset, len, &prefix[..len]) == Ordering::Greater
    }

    /// After a change's failed upgrade of an optimistic read, before it
    /// starts again from the root: the restart counted, or `Sealed` if
    /// the pool is sealed (folio-buffer `BufferPool::seal`: every upgrade
    /// fails, so a restart would never end).
    pub(crate) fn restart_change(&self, attempt: &mut u32) -> Result<(), BtreeError> {
        self.pool.check_unsealed()?;
        counters::restart(attempt);
        Ok(())
    }

    /// The WAL hard limit's admission point, taken before a change latches
    /// anything (`Wal::throttle`): near the limit the change waits here, with
    /// no latch a checkpoint might need, rather than inside `Wal::insert`.
    /// Without a hard limit this costs nothing (no lock, no check).
    pub(crate) fn throttle(&self) -> Result<(), BtreeError> {
        match &self.wal {
            Some(wal) if wal.config().hard_limit_bytes.is_some() => Ok(wal.throttle()?),
            _ => Ok(()),
        }
    }

    /// Descends with optimistic lock coupling to the node at `level` that
    /// covers `target`. At each step the parent is validated after the child
    /// pointer is read (so the pointer is trusted only if the parent was
    /// unchanged) and again after the child's version is taken (so the child
    /// had not been split or freed between the two); any change restarts
    /// from the root.
    pub(crate) fn descend(&self, target: Target<'_>, level: u8) -> Result<Descent<'_>, BtreeError> {
        let mut attempt = 0;
        'restart: loop {
            let mut node = self.pool.optimistic(self.root)?;
            counters::page();
            let mut parent = None;
            let mut expected_level = None;
            loop {
                let node_level = node::level(&node);
                let sane = node::magic(&node) == MAGIC
                    && node_level >= level
                    && expected_level.is_none_or(|l| l == node_level);
                if !sane {
                    if node.validate().is_err() {
                        counters::restart(&mut attempt);
                        continue 'restart;
                    }
                    return Err(BtreeError::corrupt(
                        node.page_id(),
                        format!(
                            "descent for level {level} met a node at level {node_level} (expected {expected_level:?}) or a non-node"
                        ),
                    ));
                }
                if node_level == level {
                    return Ok(Descent { parent, node });
                }
                let pos = node::child_pos(&node, target);
                let child = node::child_at(&node, pos);
                if node.validate().is_err() {
                    counters::restart(&mut attempt);
                    continue 'restart;
                }
                if child == 0 || child == self.root.0 {
                    return Err(BtreeError::corrupt(
                        node.page_id(),
                        format!("bad child pointer {child}"),
                    ));
                }
                // The child's header, first slots and state word, fetched
                // together (a cached descent is bound by these misses).
                self.pool.prefetch_frame(PageId(child), PREFETCH_BYTES);
                let child_guard = self.pool.optimistic(PageId(child))?;
                counters::page();
                if node.validate().is_err() {
                    counters::restart(&mut attempt);
                    continue 'restart;
                }
                parent = Some((node, pos));
                node = child_guard;
                expected_level = Some(node_level - 1);
            }
        }
    }
}

/// How much of a child node a descent prefetches: the header and the
/// first slots, which a leaf's binary search (and a lookup's
/// `touch_slots`) reads first.
const PREFETCH_BYTES: usize = 1024;

/// Checks the documented size limits for a new entry.
pub(crate) fn check_entry(key: &[u8], value: &[u8]) -> Result<(), BtreeError> {
    if key.len() > MAX_KEY_LEN {
        return Err(BtreeError::KeyTooLarge {
            len: key.len(),
            max: MAX_KEY_LEN,
        });
    }
    let len = key.len() + value.len();
    if len > MAX_ENTRY_LEN {
        return Err(BtreeError::EntryTooLarge {
            len,
            max: MAX_ENTRY_LEN,
        });
    }
    Ok(())
}
