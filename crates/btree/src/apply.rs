//! Page changes shared by the do path and redo.
//!
//! Every logged change of a node is one of these functions, called with the
//! record's parameters: the do path calls it on the latched page (or on a
//! private copy that becomes the full-page image), redo calls it on the
//! page being recovered. The functions are deterministic in the page's
//! bytes and their arguments, so redo from the same page state reproduces
//! the do path's bytes exactly (README "Redo").
//!
//! Each function checks everything it relies on before changing a byte and
//! returns a reason string on failure, never panicking: a redo record or a
//! page that does not fit together is an error, and a failed check leaves
//! the page untouched. The node itself is checked by its header only
//! ([`check_node`], O(1)); what a function reads beyond the header (the
//! slots at its position, the fences at the ends, every slot of a node it
//! splits or compacts) it checks as it reads (README invariant 9).
//!
//! The leaf changes come in three parts: `check_*` (read-only), the full
//! function (check, then change: redo) and `*_checked` (the change alone).
//! The do path runs `check_*` once before logging and `*_checked` after,
//! so a record reaches the WAL only for a change that then succeeds; the
//! one change that can still fail, a compaction finding the heap corrupt,
//! the do path applies to a private copy before logging (`logging.rs`).

use crate::node::{self, MAGIC, MAX_ENTRY_LEN, MAX_KEY_LEN};
use crate::node_mut;
use folio_page::{Page, PageId};
use std::cmp::Ordering;

type Checked = Result<(), String>;

fn fail<T>(reason: impl Into<String>) -> Result<T, String> {
    Err(reason.into())
}

/// Checks that `page` is a node of the tree named in its header, at
/// `level`, with a sound header ([`node::check_header`], O(1)). Redo runs
/// it before every function here; the functions check the slots they read.
pub(crate) fn check_node(page: &Page, level: u8) -> Checked {
    if node::magic(page) != MAGIC {
        return fail(format!(
            "not a B+tree node (magic {:#06x})",
            node::magic(page)
        ));
    }
    node::check_header(page, PageId(node::tree_id(page)), level)
}

/// Checks that `key` may go to slot `index` (`<= count`) of the node:
/// [`check_slot_index`] and [`check_order`].
fn check_position(page: &Page, index: usize, key: &[u8]) -> Checked {
    let count = check_slot_index(page, index, key)?;
    check_order(page, index, count, key)
}

/// Checks what an insertion at slot `index` relies on to stay inside the
/// page: the key's length and `index <= count`. Returns `count`.
fn check_slot_index(page: &Page, index: usize, key: &[u8]) -> Result<usize, String> {
    if key.len() > MAX_KEY_LEN {
        return fail(format!("key of {} bytes exceeds {MAX_KEY_LEN}", key.len()));
    }
    let (count, _) = node::heap_bounds(page)?;
    if index > count {
        return fail(format!("slot {index} beyond {count} slots"));
    }
    Ok(count)
}

/// Checks that `key` at slot `index` (`<= count`, checked) keeps the keys
/// in order: strictly above the key of slot `index - 1` and below that of
/// slot `index`, compared by their key heads after the node's prefix (the slot array's lines, which
/// an insert moves anyway), reading key bytes only when heads tie. The
/// fences are read only at the ends: at slot 0 the key must not be below
/// the low fence, at `count` it must be below the high fence; anywhere else
/// it lies strictly between two keys that are inside the fences already
/// (invariant 2).
fn check_order(page: &Page, index: usize, count: usize, key: &[u8]) -> Checked {
    let out_of_order = || fail("key out of order at its slot");
    if index > 0 {
        let before = node::checked_slot(page, index - 1)?;
        if node::compare_any(page, &before, key) != Ordering::Less {
            return out_of_order();
        }
    } else if node::checked_low_fence(page)?.is_some_and(|low| key < low) {
        return fail("key outside the node's fences");
    }
    if index < count {
        let after = node::checked_slot(page, index)?;
        if node::compare_any(page, &after, key) != Ordering::Greater {
            return out_of_order();
        }
    } else if node::checked_high_fence(page)?.is_some_and(|high| key >= high) {
        return fail("key outside the node's fences");
    }
    Ok(())
}

/// Checks an insertion of `key -> value` at slot `index` of a leaf: the
/// position keeps the keys sorted and the entry fits with the fence
/// reserve. Passing it, [`insert_checked`] fails only if it must compact
/// the heap and finds the page corrupt (the do path applies such an insert
/// to a copy before logging it).
pub(crate) fn check_insert(page: &Page, index: usize, key: &[u8], value: &[u8]) -> Checked {
    let count = check_insert_in_page(page, index, key, value)?;
    check_order(page, index, count, key)
}

/// The part of [`check_insert`] that keeps the change inside the page:
/// entry size, `index <= count`, room (with the fence reserve). Returns
/// `count`.
fn check_insert_in_page(
    page: &Page,
    index: usize,
    key: &[u8],
    value: &[u8],
) -> Result<usize, String> {
    if key.len() + value.len() > MAX_ENTRY_LEN {
        return fail("entry exceeds the entry size limit");
    }
    let count = check_slot_index(page, index, key)?;
    if !node_mut::holds(page, key.len(), value.len()) {
        return fail("no room for the entry");
    }
    Ok(count)
}

/// Redo of a leaf insert: `key -> value` at slot `index`, the slot the do
/// path chose and checked ([`check_insert`]) before it logged the change.
/// Redo checks what keeps the change inside the page
/// ([`check_insert_in_page`]) but not the keys' order: comparing the key with
/// both neighbours read two key strings per insert, ~20 % of replay
/// (README "Redo"); an order broken by a faulty record is what
/// `folio verify` reports.
pub(crate) fn insert_entry(page: &mut Page, index: usize, key: &[u8], value: &[u8]) -> Checked {
    check_insert_in_page(page, index, key, value)?;
    insert_checked(page, index, key, value)
}

/// The change of [`insert_entry`] on a page [`check_insert`] accepted: the
/// do path checks before logging and applies this after.
pub(crate) fn insert_checked(page: &mut Page, index: usize, key: &[u8], value: &[u8]) -> Checked {
    node_mut::insert_at(page, index, key, value).map_err(|e| e.reason("no room for the entry"))
}

/// Checks that slot `index` of a leaf holds `key` (heads and lengths
/// first; the key bytes past the head only when those match).
fn check_slot_key(page: &Page, index: usize, key: &[u8]) -> Checked {
    let sl = node::checked_slot(page, index)?;
    let same = node::probe(page, key)
        .is_ok_and(|probe| node::compare_slot(page, &sl, key, probe) == Ordering::Equal);
    if !same {
        return fail(format!("slot {index} holds another key"));
    }
    Ok(())
}

/// Checks a replacement of the value of slot `index` (holding `key`).
/// Passing it, [`replace_checked`] fails only when the length changes and
/// the re-insertion must compact a corrupt heap (the do path applies a
/// length change to a copy before logging it).
pub(crate) fn check_replace(page: &Page, index: usize, key: &[u8], value: &[u8]) -> Checked {
    check_slot_key(page, index, key)?;
    if key.len() + value.len() > MAX_ENTRY_LEN {
        return fail("entry exceeds the entry size limit");
    }
    if !node_mut::replace_holds(page, index, value.len()) {
        return fail("no room for the new value");
    }
    node_mut::check_remove(page, index)
}

/// Replaces the value of slot `index` ([`check_replace`] first).
pub(crate) fn replace_entry(page: &mut Page, index: usize, key: &[u8], value: &[u8]) -> Checked {
    check_replace(page, index, key, value)?;
    replace_checked(page, index, value)
}

/// The change of [`replace_entry`] on a page [`check_replace`] accepted.
pub(crate) fn replace_checked(page: &mut Page, index: usize, value: &[u8]) -> Checked {
    node_mut::replace_value(page, index, value).map_err(|e| e.reason("no room for the new value"))
}

/// Checks the removal of slot `index`, which must hold `key`. Passing it,
/// [`remove_checked`] cannot fail.
pub(crate) fn check_remove(page: &Page, index: usize, key: &[u8]) -> Checked {
    check_slot_key(page, index, key)?;
    node_mut::check_remove(page, index)
}

/// Removes slot `index`, which must hold `key` ([`check_remove`] first).
pub(crate) fn remove_entry(page: &mut Page, index: usize, key: &[u8]) -> Checked {
    check_remove(page, index, key)?;
    remove_checked(page, index)
}

/// The change of [`remove_entry`] on a page [`check_remove`] accepted.
pub(crate) fn remove_checked(page: &mut Page, index: usize) -> Checked {
    node_mut::remove_at(page, index)
}

/// Checks a split plan (`at`, `separator`) against the node being split.
fn check_plan(source: &Page, at: usize, separator: &[u8]) -> Checked {
    let (count, _) = node::heap_bounds(source)?;
    if count < 2 || at == 0 || at >= count {
        return fail(format!("split point {at} of a node with {count} slots"));
    }
    if separator.len() > MAX_KEY_LEN {
        return fail("separator too long");
    }
    let first_right = node::checked_key(source, at)?;
    let ok = if node::level(source) == 0 {
        node::checked_key(source, at - 1)? < separator && separator <= first_right
    } else {
        separator == first_right
    };
    if !ok {
        return fail("separator does not split the node at the split point");
    }
    Ok(())
}

/// Appends the entries of `source`'s slots `range` to `out`, checking each
/// source slot before copying it.
fn copy_entries(out: &mut Page, source: &Page, range: std::ops::Range<usize>) -> Checked {
    for (j, i) in range.enumerate() {
        let (key, value) = node::checked_entry(source, i)?;
        node_mut::insert_at(out, j, key, value)
            .map_err(|e| e.reason("half a node does not fit a page"))?;
    }
    Ok(())
}

/// Builds in `out` the left half of `source` split at `at`: slots
/// `[0, at)`, fences `source.low .. separator`, the given sibling links.
/// `out` keeps only its page LSN; `source` is a separate (stable) copy.
/// Every source slot is checked as it is copied, so on an error `out` holds
/// a partial node: callers build into a page they can discard (the do
/// path's private copies; redo builds into a copy and installs it).
pub(crate) fn build_left(
    out: &mut Page,
    source: &Page,
    at: usize,
    separator: &[u8],
    links: (u64, u64),
) -> Checked {
    check_plan(source, at, separator)?;
    let level = node::level(source);
    let tree = PageId(node::tree_id(source));
    let low = node::checked_low_fence(source)?;
    node_mut::init(out, level, tree, low, Some(separator));
    if level > 0 {
        node_mut::set_leftmost(out, node::leftmost(source));
    }
    copy_entries(out, source, 0..at)?;
    node_mut::set_left(out, links.0);
    node_mut::set_right(out, links.1);
    Ok(())
}

/// Builds in `out` the right half of `source` split at `at`: a leaf takes
/// slots `[at, n)`; an inner node takes slot `at`'s child as its leftmost
/// child and slots `(at, n)` (slot `at`'s key moves up). Fences
/// `separator .. source.high`, the given sibling links. Like
/// [`build_left`], `out` is partial on an error.
pub(crate) fn build_right(
    out: &mut Page,
    source: &Page,
    at: usize,
    separator: &[u8],
    links: (u64, u64),
) -> Checked {
    check_plan(source, at, separator)?;
    let level = node::level(source);
    let tree = PageId(node::tree_id(source));
    let high = node::checked_high_fence(source)?;
    node_mut::init(out, level, tree, Some(separator), high);
    let from = if level == 0 {
        at
    } else {
        node_mut::set_leftmost(out, node::checked_child(source, at + 1)?);
        at + 1
    };
    let (count, _) = node::heap_bounds(source)?;
    copy_entries(out, source, from..count)?;
    node_mut::set_left(out, links.0);
    node_mut::set_right(out, links.1);
    Ok(())
}

/// Checks that child position `pos` of an inner node holds `child`.
fn check_child(parent: &Page, pos: usize, child: PageId) -> Checked {
    let (count, _) = node::heap_bounds(parent)?;
    if node::level(parent) == 0 || pos > count {
        return fail(format!("child position {pos} of a node with {count} slots"));
    }
    let found = node::checked_child(parent, pos)?;
    if found != child.0 {
        return fail(format!(
            "child position {pos} holds page {found}, not {child}"
        ));
    }
    Ok(())
}

/// Checks the insertion of the separator for a split of the child at
/// position `pos` (which must be `left`).
pub(crate) fn check_insert_separator(
    parent: &Page,
    pos: usize,
    separator: &[u8],
    left: PageId,
) -> Checked {
    check_child(parent, pos, left)?;
    check_position(parent, pos, separator)?;
    if !node_mut::holds(parent, separator.len(), 8) {
        return fail("no room for the separator");
    }
    Ok(())
}

/// Inserts the separator of a split into the parent: slot `pos` gets
/// `separator -> right`, so `right` follows `left` among the children.
pub(crate) fn insert_separator(
    parent: &mut Page,
    pos: usize,
    separator: &[u8],
    left: PageId,
    right: PageId,
) -> Checked {
    check_insert_separator(parent, pos, separator, left)?;
    node_mut::insert_at(parent, pos, separator, &right.0.to_le_bytes())
        .map_err(|e| e.reason("no room for the separator"))
}

/// Points a node's left link at `new_left`; it must point at `old_left`.
pub(crate) fn relink_left(page: &mut Page, old_left: PageId, new_left: PageId) -> Checked {
    if node::magic(page) != MAGIC {
        return fail("relinking a page that is not a node");
    }
    if node::left(page) != old_left.0 {
        return fail(format!(
            "left link is {}, expected {old_left}",
            node::left(page)
        ));
    }
    node_mut::set_left(page, new_left.0);
    Ok(())
}

/// Turns the root (at `level`, contents already copied into two new
/// children) into an inner node one level higher with children `left`
/// and `right` split by `separator`. The root's page id stays.
pub(crate) fn grow_root(
    root: &mut Page,
    root_id: PageId,
    level: u8,
    separator: &[u8],
    children: (PageId, PageId),
) -> Checked {
    if node::magic(root) != MAGIC || node::tree_id(root) != root_id.0 {
        return fail("not the root of its tree");
    }
    if node::level(root) != level || level == u8::MAX {
        return fail(format!(
            "root at level {}, record expects {level}",
            node::level(root)
        ));
    }
    if separator.len() > MAX_KEY_LEN {
        return fail("separator too long");
    }
    // Checked before `init` rewrites the page: a separator and a page id
    // always fit an empty node.
    node_mut::init(root, level + 1, root_id, None, None);
    node_mut::set_leftmost(root, children.0.0);
    node_mut::insert_at(root, 0, separator, &children.1.0.to_le_bytes())
        .map_err(|e| e.reason("an empty root holds one separator"))
}

/// Removes the emptied leaf at child position `pos` (≥ 1, its left
/// sibling at `pos - 1`) from the parent.
pub(crate) fn remove_child(parent: &mut Page, pos: usize, left: PageId, leaf: PageId) -> Checked {
    if pos == 0 {
        return fail("the leftmost child is never unlinked");
    }
    check_child(parent, pos, leaf)?;
    check_child(parent, pos - 1, left)?;
    node_mut::remove_at(parent, pos - 1)
}

/// The left sibling takes over the emptied leaf's key range: its high
/// fence becomes `high` and its right link `right`.
pub(crate) fn absorb_right(
    page: &mut Page,
    leaf: PageId,
    high: Option<&[u8]>,
    right: u64,
) -> Checked {
    if node::right(page) != leaf.0 {
        return fail(format!(
            "right link is {}, expected {leaf}",
            node::right(page)
        ));
    }
    if let Some(high) = high {
        if high.len() > MAX_KEY_LEN {
            return fail("high fence too long");
        }
        let (count, _) = node::heap_bounds(page)?;
        if count > 0 && node::checked_key(page, count - 1)? >= high {
            return fail("new high fence below the node's keys");
        }
    }
    node_mut::set_high_fence(page, high).map_err(|e| e.reason("no room for the new high fence"))?;
    node_mut::set_right(page, right);
    Ok(())
}

/// Marks an empty leaf as no longer a node (it is freed next).
pub(crate) fn clear_leaf(page: &mut Page) -> Checked {
    if node::count(page) != 0 {
        return fail("unlinking a leaf that is not empty");
    }
    node_mut::clear(page);
    Ok(())
}

#[cfg(test)]
mod tests {
    //! Every change against corrupt nodes: valid nodes with random bytes
    //! of their header, slot array or heap overwritten, changed by each
    //! function here (and compaction, the split plan, the high fence) with
    //! random arguments, return Ok or an error and never panic; an error
    //! leaves the page unchanged, and on an intact node a change that
    //! succeeds leaves a node that passes the full check.
    use super::*;
    use crate::node::{SLOT_SIZE, SLOTS_START};
    use folio_page::{HEADER_SIZE, PAGE_SIZE};
    use proptest::prelude::*;

    const TREE: PageId = PageId(7);

    fn leaf_key(n: u32) -> Vec<u8> {
        match n % 3 {
            0 => format!("c{n}").into_bytes(),
            // Keys sharing their 8-byte head, so comparisons read bytes.
            1 => format!("common-head/{n:04}").into_bytes(),
            _ => format!("x{n:02}").into_bytes(),
        }
    }

    /// A leaf with both fences, keys of 2..16 bytes (a third of them
    /// sharing one head), values of 0..12 bytes and dead bytes.
    fn leaf() -> Box<Page> {
        let mut page = Box::new([0u8; PAGE_SIZE]);
        node_mut::init(&mut page, 0, TREE, Some(b"b"), Some(b"y"));
        for n in 0..60u32 {
            let key = leaf_key(n);
            let (i, _) = node::lower_bound(&*page, &key);
            node_mut::insert_at(&mut page, i, &key, &vec![n as u8; (n % 13) as usize]).unwrap();
        }
        for i in (0..node::count(&*page)).step_by(7).rev() {
            node_mut::remove_at(&mut page, i).unwrap();
        }
        node::check(&page, TREE, PageId(1)).unwrap();
        page
    }

    /// An inner node (level 1) with both fences and dead bytes.
    fn inner() -> Box<Page> {
        let mut page = Box::new([0u8; PAGE_SIZE]);
        node_mut::init(&mut page, 1, TREE, Some(b"b"), Some(b"y"));
        node_mut::set_leftmost(&mut page, 100);
        for n in 0..40u32 {
            let key = leaf_key(n);
            let (i, _) = node::lower_bound(&*page, &key);
            node_mut::insert_at(&mut page, i, &key, &u64::from(101 + n).to_le_bytes()).unwrap();
        }
        for i in (0..node::count(&*page)).step_by(5).rev() {
            node_mut::remove_at(&mut page, i).unwrap();
        }
        node::check(&page, TREE, PageId(1)).unwrap();
        page
    }

    /// A key argument: random bytes, or the key of a slot of the intact
    /// node (optionally extended, which sorts just after it).
    #[derive(Debug, Clone)]
    enum KeyArg {
        Bytes(Vec<u8>),
        Slot(usize, Option<u8>),
    }

    /// A slot argument: a random one, or where the key would go.
    #[derive(Debug, Clone)]
    enum IndexArg {
        At(usize),
        Search,
    }

    #[derive(Debug, Clone)]
    enum Op {
        /// The do path: `check_insert`, then `insert_checked`.
        Insert(IndexArg, KeyArg, Vec<u8>),
        /// Redo (`insert_entry`): the slot is the record's, order unchecked.
        RedoInsert(IndexArg, KeyArg, Vec<u8>),
        Replace(IndexArg, KeyArg, Vec<u8>),
        Remove(IndexArg, KeyArg),
        /// At the intact node's split plan, or a random one.
        BuildLeft(Option<(usize, KeyArg)>),
        BuildRight(Option<(usize, KeyArg)>),
        Compact,
        SplitPlan,
        /// Left child as the intact node has it, or random page ids.
        InsertSeparator(IndexArg, KeyArg, Option<(u64, u64)>),
        RemoveChild(usize, Option<(u64, u64)>),
        AbsorbRight(Option<KeyArg>),
        SetHighFence(Option<KeyArg>),
    }

    fn key_arg() -> impl Strategy<Value = KeyArg> {
        prop_oneof![
            2 => prop::collection::vec(any::<u8>(), 0..24).prop_map(KeyArg::Bytes),
            1 => prop::collection::vec(any::<u8>(), 500..700).prop_map(KeyArg::Bytes),
            4 => (0usize..70, prop::option::of(any::<u8>())).prop_map(|(i, b)| KeyArg::Slot(i, b)),
        ]
    }

    fn index_arg() -> impl Strategy<Value = IndexArg> {
        prop_oneof![
            1 => (0usize..70).prop_map(IndexArg::At),
            3 => Just(IndexArg::Search),
        ]
    }

    fn ids() -> impl Strategy<Value = Option<(u64, u64)>> {
        prop::option::weighted(0.3, (99u64..145, 99u64..145))
    }

    fn split_arg() -> impl Strategy<Value = Option<(usize, KeyArg)>> {
        prop::option::weighted(0.5, (0usize..70, key_arg()))
    }

    fn value() -> impl Strategy<Value = Vec<u8>> {
        prop_oneof![
            4 => prop::collection::vec(any::<u8>(), 0..40),
            1 => prop::collection::vec(any::<u8>(), 1000..1600),
        ]
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            (index_arg(), key_arg(), value()).prop_map(|(i, k, v)| Op::Insert(i, k, v)),
            (index_arg(), key_arg(), value()).prop_map(|(i, k, v)| Op::RedoInsert(i, k, v)),
            (index_arg(), key_arg(), value()).prop_map(|(i, k, v)| Op::Replace(i, k, v)),
            (index_arg(), key_arg()).prop_map(|(i, k)| Op::Remove(i, k)),
            split_arg().prop_map(Op::BuildLeft),
            split_arg().prop_map(Op::BuildRight),
            Just(Op::Compact),
            Just(Op::SplitPlan),
            (index_arg(), key_arg(), ids()).prop_map(|(i, k, ids)| Op::InsertSeparator(i, k, ids)),
            (0usize..40, ids()).prop_map(|(p, ids)| Op::RemoveChild(p, ids)),
            prop::option::of(key_arg()).prop_map(Op::AbsorbRight),
            prop::option::of(key_arg()).prop_map(Op::SetHighFence),
        ]
    }

    /// (region, offset within it, byte): region 0 the node header, 1 the
    /// slot array, 2 the heap, 3 anywhere in the page.
    fn corruption() -> impl Strategy<Value = (u8, usize, u8)> {
        (0u8..4, any::<usize>(), any::<u8>())
    }

    /// Overwrites one byte of `page` in a region of the intact node.
    fn corrupt(intact: &Page, page: &mut Page, (region, at, byte): (u8, usize, u8)) {
        let count = node::count(intact);
        let heap = node::heap_start(intact);
        let (start, len) = match region {
            0 => (HEADER_SIZE, SLOTS_START - HEADER_SIZE),
            1 => (SLOTS_START, (count * SLOT_SIZE).max(1)),
            2 => (heap, (PAGE_SIZE - heap).max(1)),
            _ => (0, PAGE_SIZE),
        };
        page[(start + at % len).min(PAGE_SIZE - 1)] = byte;
    }

    fn resolve(intact: &Page, key: &KeyArg) -> Vec<u8> {
        match key {
            KeyArg::Bytes(bytes) => bytes.clone(),
            KeyArg::Slot(i, extend) => {
                let count = node::count(intact).max(1);
                let mut key = node::key_at(intact, i % count).to_vec();
                key.extend(extend);
                key
            }
        }
    }

    fn resolve_index(page: &Page, index: &IndexArg, key: &[u8]) -> usize {
        match index {
            IndexArg::At(i) => *i,
            IndexArg::Search => node::lower_bound(page, key).0,
        }
    }

    /// Child position `pos` of the intact node (0 if there is none).
    fn child(intact: &Page, pos: usize) -> u64 {
        node::checked_child(intact, pos).unwrap_or(0)
    }

    /// The full check plus what `verify` checks inside one node: heads,
    /// keys strictly increasing and inside the fences.
    fn sound(page: &Page) -> Result<(), String> {
        node::check(page, TREE, PageId(1))?;
        node::check_heads(page)?;
        let keys: Vec<&[u8]> = (0..node::count(page))
            .map(|i| node::key_at(page, i))
            .collect();
        let ordered = keys.windows(2).all(|w| w[0] < w[1]);
        let low = node::low_fence(page);
        let high = node::high_fence(page);
        let inside = keys
            .iter()
            .all(|k| low.is_none_or(|l| *k >= l) && high.is_none_or(|h| *k < h));
        if !ordered || !inside {
            return Err("keys out of order or outside the fences".into());
        }
        Ok(())
    }

    /// Runs `op` on `page`; returns whether it succeeded. Every in-place
    /// change must leave the page unchanged when it fails.
    fn run(intact: &Page, page: &mut Page, op: &Op) -> bool {
        let before = Box::new(*page);
        let key = |k: &KeyArg| resolve(intact, k);
        let result: Result<(), String> = match op {
            Op::Insert(i, k, v) => {
                let k = key(k);
                let i = resolve_index(page, i, &k);
                check_insert(page, i, &k, v).and_then(|()| insert_checked(page, i, &k, v))
            }
            Op::RedoInsert(i, k, v) => {
                let k = key(k);
                let i = resolve_index(page, i, &k);
                insert_entry(page, i, &k, v)
            }
            Op::Replace(i, k, v) => {
                let k = key(k);
                let i = resolve_index(page, i, &k);
                replace_entry(page, i, &k, v)
            }
            Op::Remove(i, k) => {
                let k = key(k);
                let i = resolve_index(page, i, &k);
                remove_entry(page, i, &k)
            }
            Op::BuildLeft(plan) | Op::BuildRight(plan) => {
                let mut out = Box::new(*page);
                let (at, sep) = match plan {
                    Some((at, k)) => (*at, key(k)),
                    None => node_mut::split_plan(intact)
                        .map_or((1, Vec::new()), |p| (p.at, p.separator)),
                };
                let built = if matches!(op, Op::BuildLeft(..)) {
                    build_left(&mut out, page, at, &sep, (1, 2))
                } else {
                    build_right(&mut out, page, at, &sep, (1, 2))
                };
                if built.is_ok() && *intact == *page {
                    sound(&out).expect("a half of an intact node is sound");
                }
                built
            }
            Op::Compact => node_mut::compacted(page)
                .map(|out| {
                    if *intact == *page {
                        sound(&out).expect("compacting an intact node keeps it sound");
                        assert_eq!(node::dead_bytes(&*out), 0);
                    }
                })
                .map_err(|e| e.reason("no room")),
            Op::SplitPlan => node_mut::split_plan(page).map(|_| ()),
            Op::InsertSeparator(i, k, ids) => {
                let k = key(k);
                let i = resolve_index(page, i, &k);
                let (l, r) = ids.unwrap_or((child(intact, i), 200));
                insert_separator(page, i, &k, PageId(l), PageId(r))
            }
            Op::RemoveChild(pos, ids) => {
                let (l, leaf) =
                    ids.unwrap_or((child(intact, pos.wrapping_sub(1)), child(intact, *pos)));
                remove_child(page, *pos, PageId(l), PageId(leaf))
            }
            Op::AbsorbRight(high) => {
                let high = high.as_ref().map(key);
                let right = node::right(page);
                absorb_right(page, PageId(right), high.as_deref(), 5)
            }
            Op::SetHighFence(high) => {
                let high = high.as_ref().map(key);
                node_mut::set_high_fence(page, high.as_deref()).map_err(|e| e.reason("no room"))
            }
        };
        if result.is_err() {
            assert!(
                *page == *before,
                "{op:?} failed ({result:?}) but changed the page"
            );
        }
        result.is_ok()
    }

    /// Whether `op` is a change of the tree for a node at this level (redo
    /// checks the level first), whose success must leave a sound node.
    /// `set_high_fence` is a primitive: its caller checks the keys; a redo
    /// insert trusts its record's slot (only the structure must hold).
    fn meant_for(op: &Op, is_inner: bool) -> bool {
        match op {
            Op::Insert(..) | Op::Replace(..) | Op::Remove(..) | Op::AbsorbRight(_) => !is_inner,
            Op::RedoInsert(..) => false,
            Op::InsertSeparator(..) | Op::RemoveChild(..) => is_inner,
            Op::SetHighFence(_) => false,
            Op::BuildLeft(..) | Op::BuildRight(..) | Op::Compact | Op::SplitPlan => true,
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 4_000, ..ProptestConfig::default() })]

        #[test]
        fn changes_to_corrupt_nodes_fail_cleanly(
            is_inner in any::<bool>(),
            corruptions in prop::collection::vec(corruption(), 0..6),
            op in op(),
        ) {
            thread_local!(static NODES: (Box<Page>, Box<Page>) = (leaf(), inner()));
            let intact = NODES.with(|(leaf, inner)| {
                if is_inner { inner.clone() } else { leaf.clone() }
            });
            let mut page = intact.clone();
            for c in &corruptions {
                corrupt(&intact, &mut page, *c);
            }
            // Redo checks the header first; run the change whatever it says.
            let header_ok = check_node(&page, u8::from(is_inner)).is_ok();
            let ok = run(&intact, &mut page, &op);
            if corruptions.is_empty() {
                prop_assert!(header_ok);
                if ok && meant_for(&op, is_inner) {
                    prop_assert_eq!(sound(&page), Ok(()), "{:?} on an intact node", op);
                }
                if ok && matches!(op, Op::RedoInsert(..)) && !is_inner {
                    prop_assert_eq!(node::check(&page, TREE, PageId(1)), Ok(()), "{:?}", op);
                }
            }
        }
    }

    #[test]
    fn changes_to_intact_nodes_succeed() {
        // Proves the generator reaches the accepting paths: on intact nodes
        // inserts at the searched position, removals and replacements of
        // existing keys, splits and compaction succeed.
        let page = leaf();
        let count = node::count(&*page);
        for (i, op) in [
            Op::Insert(IndexArg::Search, KeyArg::Slot(3, Some(0)), vec![1; 9]),
            Op::RedoInsert(IndexArg::Search, KeyArg::Slot(3, Some(0)), vec![1; 9]),
            Op::Replace(IndexArg::At(4), KeyArg::Slot(4, None), vec![2; 30]),
            Op::Replace(IndexArg::At(4), KeyArg::Slot(4, None), vec![]),
            Op::Remove(IndexArg::At(5), KeyArg::Slot(5, None)),
            Op::Compact,
            Op::SplitPlan,
            Op::SetHighFence(Some(KeyArg::Bytes(b"z".to_vec()))),
        ]
        .iter()
        .enumerate()
        {
            let mut changed = page.clone();
            assert!(run(&page, &mut changed, op), "op {i}: {op:?}");
            sound(&changed).unwrap();
        }
        let plan = node_mut::split_plan(&page).unwrap();
        let sep = KeyArg::Bytes(plan.separator.clone());
        for op in [
            Op::BuildLeft(Some((plan.at, sep.clone()))),
            Op::BuildRight(Some((plan.at, sep))),
        ] {
            assert!(
                run(&page, &mut page.clone(), &op),
                "{op:?} of {count} slots"
            );
        }
    }
}
