//! Node-local modifications on a page held exclusively (or a private copy).
//!
//! Each function keeps the layout of `node.rs` intact. Callers check only
//! the node header before a modification ([`node::check_header`], O(1));
//! every function here validates what it reads itself: the slots it
//! touches ([`node::checked_slot`]: offset and length inside the heap
//! before anything is sliced), and, when it reads every slot (compaction,
//! [`split_plan`]), each one as it goes. Every function is all-or-nothing:
//! an error (a corrupt page or arguments that do not fit it) leaves the
//! page unchanged, and nothing panics or writes out of bounds on any page
//! bytes. The heap accounting (live + dead = heap size) is not checked per
//! modification: a function that would rely on it checks what it needs
//! (dead bytes never exceed the heap; compaction verifies the accounting,
//! since it reads every entry anyway, and never places more bytes than the
//! heap holds). `node::check` checks it in full for `verify()`.
//!
//! Each structural change of the tree (insert into a leaf, split, new
//! root, unlink of an empty leaf) is built from these by `apply.rs`, whose
//! functions the do path and WAL redo share.

use crate::node::{
    self, FLAG_HIGH, FLAG_LOW, MAGIC, MAX_ENTRY_LEN, MAX_KEY_LEN, OFF_COUNT, OFF_DEAD, OFF_FLAGS,
    OFF_HEAP_START, OFF_HIGH_LEN, OFF_HIGH_OFF, OFF_LEFT, OFF_LEFTMOST, OFF_LEVEL, OFF_LOW_LEN,
    OFF_LOW_OFF, OFF_MAGIC, OFF_PREFIX, OFF_RIGHT, OFF_TREE, SLOT_SIZE, SLOTS_START,
};
use folio_page::{PAGE_SIZE, Page, PageId, PageType, header_lsn, init_page, set_header_lsn};

/// Why a modification was refused; the page is unchanged either way.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum NodeError {
    /// Not enough free space in the node for the change.
    NoSpace,
    /// The page is corrupt where the change reads it, or the arguments do
    /// not fit the page (a slot beyond the count, an oversized entry).
    Invalid(String),
}

impl NodeError {
    /// The reason as a string, `no_space` for [`NodeError::NoSpace`].
    pub(crate) fn reason(self, no_space: &str) -> String {
        match self {
            NodeError::NoSpace => no_space.to_string(),
            NodeError::Invalid(reason) => reason,
        }
    }
}

impl From<String> for NodeError {
    fn from(reason: String) -> NodeError {
        NodeError::Invalid(reason)
    }
}

fn invalid<T>(reason: impl Into<String>) -> Result<T, NodeError> {
    Err(NodeError::Invalid(reason.into()))
}

/// Writes a 16-bit header or slot field. Every value written is a page
/// offset or a length bounded by the page size (checked before writing).
fn put_u16(page: &mut Page, offset: usize, value: usize) {
    assert!(value <= usize::from(u16::MAX));
    page[offset..offset + 2].copy_from_slice(&(value as u16).to_le_bytes());
}

fn put_u64(page: &mut Page, offset: usize, value: u64) {
    page[offset..offset + 8].copy_from_slice(&value.to_le_bytes());
}

/// Formats `page` as an empty node. The page LSN is kept (it must never go
/// backwards); everything else is rewritten. Fences are keys (at most
/// [`MAX_KEY_LEN`] bytes, which callers check): both always fit an empty
/// node.
pub(crate) fn init(
    page: &mut Page,
    level: u8,
    tree: PageId,
    low: Option<&[u8]>,
    high: Option<&[u8]>,
) {
    assert!(
        low.is_none_or(|f| f.len() <= MAX_KEY_LEN) && high.is_none_or(|f| f.len() <= MAX_KEY_LEN),
        "fences are keys"
    );
    let lsn = header_lsn(page);
    let page_type = if level == 0 {
        PageType::BtreeLeaf
    } else {
        PageType::BtreeInner
    };
    init_page(page, page_type, 0);
    set_header_lsn(page, lsn);
    put_u16(page, OFF_MAGIC, usize::from(MAGIC));
    page[OFF_LEVEL] = level;
    page[OFF_FLAGS] = 0;
    put_u16(page, OFF_COUNT, 0);
    put_u16(page, OFF_DEAD, 0);
    put_u64(page, OFF_TREE, tree.0);
    let mut heap = PAGE_SIZE;
    for (fence, flag, off_field, len_field) in [
        (low, FLAG_LOW, OFF_LOW_OFF, OFF_LOW_LEN),
        (high, FLAG_HIGH, OFF_HIGH_OFF, OFF_HIGH_LEN),
    ] {
        if let Some(fence) = fence {
            heap -= fence.len();
            page[heap..heap + fence.len()].copy_from_slice(fence);
            put_u16(page, off_field, heap);
            put_u16(page, len_field, fence.len());
            page[OFF_FLAGS] |= flag;
        }
    }
    put_u16(page, OFF_HEAP_START, heap);
    put_u16(page, OFF_PREFIX, node::common_prefix(low, high));
}

/// A new prefix length and the key heads of every slot under it.
type Reprefix = (usize, Vec<u64>);

/// The heads of every slot under prefix length `p`, each slot checked.
fn heads_under(page: &Page, p: usize) -> Result<Vec<u64>, String> {
    (0..node::count(page))
        .map(|i| node::checked_key(page, i).map(|key| node::key_head_after(key, p)))
        .collect()
}

/// Installs a prefix length and its heads (from [`heads_under`]).
fn apply_prefix(page: &mut Page, (p, heads): Reprefix) {
    for (i, head) in heads.into_iter().enumerate() {
        put_u64(page, SLOTS_START + i * SLOT_SIZE, head);
    }
    put_u16(page, OFF_PREFIX, p);
}

/// The prefix bytes of a node (see `node.rs`), checked to lie in the heap.
fn prefix_bytes(page: &Page) -> Result<&[u8], String> {
    let source = node::checked_prefix_source(page)?;
    Ok(&source[..node::prefix_len(page).min(source.len())])
}

/// The prefix change an insert of `key` needs: `None` when `key` has the
/// node's prefix; else the shorter prefix it shares (an empty node without
/// fences takes the whole key) and the heads under it.
fn prefix_for_insert(page: &Page, key: &[u8]) -> Result<Option<Reprefix>, String> {
    let fenceless = node::flags(page) & (FLAG_LOW | FLAG_HIGH) == 0;
    if fenceless && node::count(page) == 0 {
        let p = key.len().min(MAX_KEY_LEN);
        return Ok((p != node::prefix_len(page)).then(|| (p, Vec::new())));
    }
    let prefix = prefix_bytes(page)?;
    let p = node::common_len(prefix, key);
    if p == node::prefix_len(page) {
        return Ok(None);
    }
    Ok(Some((p, heads_under(page, p)?)))
}

/// Sets the prefix length to the common prefix of the fences and keys and
/// rewrites every slot's key head after it (when the length changed).
/// Validates every slot before writing any: an error leaves the page
/// unchanged.
fn refresh_prefix(page: &mut Page) -> Result<(), NodeError> {
    let p = node::checked_shared_prefix(page)?;
    if p == node::prefix_len(page) {
        return Ok(());
    }
    let heads = heads_under(page, p)?;
    apply_prefix(page, (p, heads));
    Ok(())
}

/// Marks a node as no longer a node (before it is freed), so a scan holding a
/// stale link to it re-descends instead of reading it.
pub(crate) fn clear(page: &mut Page) {
    put_u16(page, OFF_MAGIC, 0);
}

pub(crate) fn set_left(page: &mut Page, id: u64) {
    put_u64(page, OFF_LEFT, id);
}

pub(crate) fn set_right(page: &mut Page, id: u64) {
    put_u64(page, OFF_RIGHT, id);
}

pub(crate) fn set_leftmost(page: &mut Page, id: u64) {
    put_u64(page, OFF_LEFTMOST, id);
}

/// Bytes between the slot array and the heap, for a node with `count`
/// slots and heap start `heap` from [`node::heap_bounds`].
fn gap(count: usize, heap: usize) -> usize {
    heap - (SLOTS_START + count * SLOT_SIZE)
}

/// Whether inserting `len` entry bytes (plus their slot) needs a compaction
/// first: the gap between slots and heap is too small. The do path then
/// applies the insert to a private copy before logging it (`logging.rs`),
/// because compaction reads every entry and may find the page corrupt.
pub(crate) fn insert_compacts(page: &Page, len: usize) -> bool {
    let slots_end = SLOTS_START + node::count(page) * SLOT_SIZE;
    node::heap_start(page).saturating_sub(slots_end) < SLOT_SIZE + len
}

/// The page with its heap rewritten without dead bytes (fences first, then
/// the entries in slot order, packed down from the page end), built on a
/// copy: `page` itself is never changed. Every fence and slot is checked
/// to lie inside the heap before its bytes are copied, no byte is placed
/// below the slot array, and the live bytes found plus the dead bytes must
/// equal the heap (the accounting `fits` relies on).
pub(crate) fn compacted(page: &Page) -> Result<Box<Page>, NodeError> {
    compacted_with(page, true)
}

/// [`compacted`], dropping the low fence unless `keep_low` (its bytes
/// leave the heap and its flag is cleared; see [`room`]).
fn compacted_with(page: &Page, keep_low: bool) -> Result<Box<Page>, NodeError> {
    let (count, heap) = node::heap_bounds(page)?;
    let slots_end = SLOTS_START + count * SLOT_SIZE;
    let mut out = Box::new(*page);
    let mut top = PAGE_SIZE;
    let mut place = |out: &mut Page, bytes: &[u8]| {
        if bytes.len() > top - slots_end {
            return invalid("compaction: live heap bytes exceed the space for the heap");
        }
        top -= bytes.len();
        out[top..top + bytes.len()].copy_from_slice(bytes);
        Ok(top)
    };
    let mut dropped = 0;
    if let Some(low) = node::checked_low_fence(page)? {
        if keep_low {
            let off = place(&mut out, low)?;
            put_u16(&mut out, OFF_LOW_OFF, off);
        } else {
            dropped = low.len();
            drop_low_fence(&mut out);
        }
    }
    if let Some(high) = node::checked_high_fence(page)? {
        let off = place(&mut out, high)?;
        put_u16(&mut out, OFF_HIGH_OFF, off);
    }
    for i in 0..count {
        let sl = node::checked_slot(page, i)?;
        let off = place(&mut out, &page[sl.offset..sl.offset + sl.entry_len()])?;
        put_u16(&mut out, SLOTS_START + i * SLOT_SIZE + 8, off);
    }
    let live = PAGE_SIZE - top;
    let dead = node::dead_bytes(page);
    if live + dropped + dead != PAGE_SIZE - heap {
        return invalid(format!(
            "heap accounting: {live} live + {dead} dead != {} in use",
            PAGE_SIZE - heap
        ));
    }
    put_u16(&mut out, OFF_HEAP_START, top);
    put_u16(&mut out, OFF_DEAD, 0);
    Ok(out)
}

/// Clears the low fence's header fields (its bytes, if any, are the
/// caller's to account for). The node's prefix stays sound: its bytes are
/// then read from the high fence, which shares them, or from the first key
/// (a node without a high fence computes its prefix from its keys).
fn drop_low_fence(page: &mut Page) {
    page[OFF_FLAGS] &= !FLAG_LOW;
    put_u16(page, OFF_LOW_OFF, 0);
    put_u16(page, OFF_LOW_LEN, 0);
}

/// Sets the high fence (`None` = plus infinity), dropping the low fence
/// if its bytes are needed ([`room`]). [`NoSpace`](NodeError::NoSpace)
/// when even then it does not fit ([`high_fence_fits`] says beforehand);
/// an error leaves the page unchanged.
pub(crate) fn set_high_fence(page: &mut Page, high: Option<&[u8]>) -> Result<(), NodeError> {
    let (count, heap) = node::heap_bounds(page)?;
    let len = high.map_or(0, <[u8]>::len);
    if len > MAX_KEY_LEN {
        return invalid("high fence longer than a key");
    }
    let old_len = node::checked_high_fence(page)?.map_or(0, <[u8]>::len);
    let dead = node::dead_bytes(page) + old_len;
    if dead > PAGE_SIZE - heap {
        return invalid(format!(
            "{dead} dead bytes in a heap of {}",
            PAGE_SIZE - heap
        ));
    }
    let drop_old = |page: &mut Page| {
        put_u16(page, OFF_DEAD, dead);
        page[OFF_FLAGS] &= !FLAG_HIGH;
        put_u16(page, OFF_HIGH_OFF, 0);
        put_u16(page, OFF_HIGH_LEN, 0);
    };
    let place = |page: &mut Page, heap: usize, high: &[u8]| {
        let off = heap - high.len();
        page[off..heap].copy_from_slice(high);
        put_u16(page, OFF_HEAP_START, off);
        put_u16(page, OFF_HIGH_OFF, off);
        put_u16(page, OFF_HIGH_LEN, high.len());
        page[OFF_FLAGS] |= FLAG_HIGH;
    };
    // Built on a copy: the heads are rewritten after the fence, and any
    // step may find the page corrupt.
    let mut work = Box::new(*page);
    drop_old(&mut work);
    if let Some(high) = high {
        if gap(count, heap) < len {
            // The old fence's bytes are dead: squeeze them out with the rest.
            work = compacted(&work)?;
        }
        if gap(count, node::heap_start(&*work)) < len && node::flags(&*work) & FLAG_LOW != 0 {
            work = compacted_with(&work, false)?;
        }
        let heap = node::heap_start(&*work);
        if gap(count, heap) < len {
            return Err(NodeError::NoSpace);
        }
        place(&mut work, heap, high);
    }
    refresh_prefix(&mut work)?;
    page.copy_from_slice(&work[..]);
    Ok(())
}

/// The bytes a change can use in a node: the free bytes (gap and dead)
/// and the low fence's, which a node gives up when nothing else makes room
/// (the low fence is only the scans' shortcut, README "Fences"; the high
/// fence bounds the node's keys for every reader and stays). What
/// [`insert_at`], [`replace_value`] and [`set_high_fence`] can achieve, and
/// so what redo accepts.
pub(crate) fn room(page: &Page) -> usize {
    node::free_bytes(page) + node::low_fence(page).map_or(0, <[u8]>::len)
}

/// Whether a change needing `need` more bytes goes ahead in this node
/// (else the node is split first): they fit its free bytes, or the node
/// has one entry or none, cannot be split, and its low fence's bytes make
/// up the rest (`node.rs`'s assertions: a node holds its high fence and
/// two maximal entries). So only nodes of keys near the limit lose their
/// low fence.
pub(crate) fn takes(page: &Page, need: usize) -> bool {
    need <= node::free_bytes(page) || (node::count(page) < 2 && need <= room(page))
}

/// Whether an entry of `key_len + value_len` bytes (and its slot) goes in
/// without a split ([`takes`]).
pub(crate) fn fits(page: &Page, key_len: usize, value_len: usize) -> bool {
    takes(page, SLOT_SIZE + key_len + value_len)
}

/// Whether [`insert_at`] can place such an entry at all ([`room`]): the
/// check of a change already decided.
pub(crate) fn holds(page: &Page, key_len: usize, value_len: usize) -> bool {
    SLOT_SIZE + key_len + value_len <= room(page)
}

/// Whether an empty right sibling's high fence of `len` bytes may be taken
/// over (an unlink, which is optional): it fits the free bytes and the old
/// fence's, without giving up the low fence.
pub(crate) fn high_fence_fits(page: &Page, len: usize) -> bool {
    let old = node::high_fence(page).map_or(0, <[u8]>::len);
    len <= node::free_bytes(page) + old
}

/// Inserts the entry at slot `index` (the caller found the position),
/// compacting the heap first if the gap is too small.
pub(crate) fn insert_at(
    page: &mut Page,
    index: usize,
    key: &[u8],
    value: &[u8],
) -> Result<(), NodeError> {
    let (count, heap) = node::heap_bounds(page)?;
    if index > count {
        return invalid(format!("slot {index} beyond {count} slots"));
    }
    if key.len() > MAX_KEY_LEN || key.len() + value.len() > MAX_ENTRY_LEN {
        return invalid("entry exceeds the size limits");
    }
    if !holds(page, key.len(), value.len()) {
        return Err(NodeError::NoSpace);
    }
    let reprefix = prefix_for_insert(page, key)?;
    let need = SLOT_SIZE + key.len() + value.len();
    if gap(count, heap) >= need {
        if let Some(reprefix) = reprefix {
            apply_prefix(page, reprefix);
        }
        write_entry(page, count, heap, index, key, value);
        return Ok(());
    }
    let mut work = compacted(page)?;
    if gap(count, node::heap_start(&*work)) < need {
        // `holds` counted the low fence's bytes too.
        work = compacted_with(&work, false)?;
    }
    let heap = node::heap_start(&*work);
    if gap(count, heap) < need {
        // `holds` counted dead bytes that compaction, having verified the
        // accounting, has reclaimed: unreachable, but not trusted.
        return Err(NodeError::NoSpace);
    }
    if let Some(reprefix) = reprefix {
        apply_prefix(&mut work, reprefix);
    }
    write_entry(&mut work, count, heap, index, key, value);
    page.copy_from_slice(&work[..]);
    Ok(())
}

/// Writes the entry at the bottom of the heap and its slot at `index` of
/// `count`; the caller checked the gap holds the entry and one more slot.
fn write_entry(page: &mut Page, count: usize, heap: usize, index: usize, key: &[u8], value: &[u8]) {
    let off = heap - key.len() - value.len();
    page[off..off + key.len()].copy_from_slice(key);
    page[off + key.len()..heap].copy_from_slice(value);
    put_u16(page, OFF_HEAP_START, off);
    let at = SLOTS_START + index * SLOT_SIZE;
    page.copy_within(at..SLOTS_START + count * SLOT_SIZE, at + SLOT_SIZE);
    let head = node::key_head_after(key, node::prefix_len(page));
    page[at..at + 8].copy_from_slice(&head.to_le_bytes());
    put_u16(page, at + 8, off);
    put_u16(page, at + 10, key.len());
    put_u16(page, at + 12, value.len());
    put_u16(page, at + 14, 0);
    put_u16(page, OFF_COUNT, count + 1);
}

/// Checks that [`remove_at`] can remove slot `index`: the slot lies inside
/// the heap and its bytes, once dead, do not exceed the heap.
pub(crate) fn check_remove(page: &Page, index: usize) -> Result<(), String> {
    removal(page, index).map(|_| ())
}

/// The slot count, new heap start and new dead bytes of removing `index`.
fn removal(page: &Page, index: usize) -> Result<(usize, usize, usize), String> {
    let (count, heap) = node::heap_bounds(page)?;
    let sl = node::checked_slot(page, index)?;
    if sl.offset == heap {
        // The lowest entry: the heap shrinks instead.
        return Ok((count, heap + sl.entry_len(), node::dead_bytes(page)));
    }
    let dead = node::dead_bytes(page) + sl.entry_len();
    if dead > PAGE_SIZE - heap {
        return Err(format!(
            "{dead} dead bytes in a heap of {}",
            PAGE_SIZE - heap
        ));
    }
    Ok((count, heap, dead))
}

/// Removes slot `index`; its heap bytes become dead (or leave the heap, if
/// they are its lowest bytes).
pub(crate) fn remove_at(page: &mut Page, index: usize) -> Result<(), String> {
    let (count, heap, dead) = removal(page, index)?;
    let at = SLOTS_START + index * SLOT_SIZE;
    page.copy_within(at + SLOT_SIZE..SLOTS_START + count * SLOT_SIZE, at);
    put_u16(page, OFF_COUNT, count - 1);
    put_u16(page, OFF_HEAP_START, heap);
    put_u16(page, OFF_DEAD, dead);
    if count == 1 && node::flags(page) & (FLAG_LOW | FLAG_HIGH) == 0 {
        // The last key held the prefix bytes.
        put_u16(page, OFF_PREFIX, 0);
    }
    Ok(())
}

/// Whether slot `index`'s value may become `value_len` bytes without a
/// split ([`takes`]; always, when the length is unchanged).
pub(crate) fn replace_fits(page: &Page, index: usize, value_len: usize) -> bool {
    let sl = node::slot(page, index);
    sl.value_len == value_len
        || takes(
            page,
            (sl.key_len + value_len).saturating_sub(sl.entry_len()),
        )
}

/// Whether [`replace_value`] can make the change at all ([`room`]).
pub(crate) fn replace_holds(page: &Page, index: usize, value_len: usize) -> bool {
    let sl = node::slot(page, index);
    sl.value_len == value_len || sl.key_len + value_len <= room(page) + sl.entry_len()
}

/// Replaces the value of slot `index`: in place when the length is
/// unchanged, otherwise by removing and re-inserting the entry (on a copy,
/// installed only if both steps succeed).
pub(crate) fn replace_value(page: &mut Page, index: usize, value: &[u8]) -> Result<(), NodeError> {
    let sl = node::checked_slot(page, index)?;
    if sl.value_len == value.len() {
        let at = sl.value_offset();
        page[at..at + value.len()].copy_from_slice(value);
        return Ok(());
    }
    if !replace_holds(page, index, value.len()) {
        return Err(NodeError::NoSpace);
    }
    let mut work = Box::new(*page);
    let key = node::checked_key(page, index)?;
    remove_at(&mut work, index)?;
    insert_at(&mut work, index, key, value)?;
    page.copy_from_slice(&work[..]);
    Ok(())
}

/// Where to split a node and the separator that goes up.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SplitPlan {
    /// Slots `[0, at)` stay left. A leaf moves `[at, n)` right; an inner
    /// node moves slot `at`'s child up as the right node's leftmost child
    /// and slots `(at, n)` right.
    pub at: usize,
    /// The right node's low fence and the left node's new high fence.
    pub separator: Vec<u8>,
}

/// The even split ([`split_plan_keeping`] at 50%), which tests and the
/// redo fuzzer check halves against.
#[cfg(test)]
pub(crate) fn split_plan(page: &Page) -> Result<SplitPlan, String> {
    split_plan_keeping(page, 50)
}

/// The share of entry bytes, in percent, that the left node keeps when the
/// last node of a level is split by a key past its last key: an ascending
/// load (a serial key, an index built in key order), whose later keys all
/// go right, so an even split would leave every node half empty for good.
/// PostgreSQL's leaf fillfactor (90) and its inner nodes' (70).
pub(crate) const ASCENDING_LEAF_KEEP: usize = 90;
pub(crate) const ASCENDING_INNER_KEEP: usize = 70;

/// The one rule for where a node that `key` found full is split: evenly, except the last node of its level receiving a key
/// greater than every key in it, which keeps [`ASCENDING_LEAF_KEEP`] or
/// [`ASCENDING_INNER_KEEP`] percent of its bytes left ([`split_plan_keeping`]). Redo does not call
/// this: the split record carries the split point and separator.
pub(crate) fn split_plan_for(page: &Page, key: &[u8]) -> Result<SplitPlan, String> {
    let (count, _) = node::heap_bounds(page)?;
    let ascending =
        node::right(page) == 0 && count > 0 && node::checked_key(page, count - 1)? < key;
    let keep = match (ascending, node::level(page)) {
        (false, _) => 50,
        (true, 0) => ASCENDING_LEAF_KEEP,
        (true, _) => ASCENDING_INNER_KEEP,
    };
    split_plan_keeping(page, keep)
}

/// Chooses the split point where the left node holds `keep` percent of the
/// entry bytes. A leaf's
/// separator is the shortest prefix of its first right key that is still
/// greater than the last left key (suffix truncation); an inner node's is
/// the key of slot `at`, which moves up. Checks every slot it sizes.
///
/// Any point gives halves that fit: the right half is part of a node that
/// fitted with its high fence, and the left half's entries plus its new
/// high fence are at most the node's entries (the separator is no longer
/// than the first right key, or is the key that moves up). Only the low
/// fences may not fit, and they are dropped ([`room`]).
fn split_plan_keeping(page: &Page, keep: usize) -> Result<SplitPlan, String> {
    let (count, _) = node::heap_bounds(page)?;
    if count < 2 {
        return Err(format!("split of a node with {count} slots"));
    }
    let mut total = 0;
    for i in 0..count {
        total += node::checked_slot(page, i)?.entry_len() + SLOT_SIZE;
    }
    let mut acc = 0;
    let mut at = 1;
    for i in 0..count {
        acc += node::slot(page, i).entry_len() + SLOT_SIZE;
        if acc * 100 >= total * keep {
            at = i + 1;
            break;
        }
    }
    // Each side keeps at least one slot; an inner node's slot `at` moves up,
    // so its right side may be left with only a leftmost child.
    let at = at.clamp(1, count - 1);
    let first_right = node::checked_key(page, at)?;
    let separator = if node::level(page) == 0 {
        crate::build::leaf_separator(node::checked_key(page, at - 1)?, first_right)
    } else {
        first_right.to_vec()
    };
    Ok(SplitPlan { at, separator })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::node::{Target, child_pos, lower_bound, upper_bound};

    fn leaf() -> Box<Page> {
        let mut page = Box::new([0u8; PAGE_SIZE]);
        init(&mut page, 0, PageId(1), None, None);
        page
    }

    fn keys(page: &Page) -> Vec<Vec<u8>> {
        (0..node::count(page))
            .map(|i| node::key_at(page, i).to_vec())
            .collect()
    }

    #[test]
    fn insert_search_remove_keep_order_and_accounting() {
        // Proves inserted entries are found by binary search in key order
        // (including keys sharing 8-byte heads) and that removal and
        // compaction keep the heap accounting `check` demands.
        let mut page = leaf();
        let ks: Vec<Vec<u8>> = vec![
            b"abcdefgh1".to_vec(),
            b"abcdefgh".to_vec(),
            b"abcdefgh\0".to_vec(),
            b"a".to_vec(),
            b"".to_vec(),
            b"abcdefgh2zz".to_vec(),
            b"b".to_vec(),
        ];
        for k in &ks {
            let (i, found) = lower_bound(&*page, k);
            assert!(!found);
            insert_at(&mut page, i, k, b"v").unwrap();
            node::check(&page, PageId(1), PageId(9)).unwrap();
        }
        let mut sorted = ks.clone();
        sorted.sort();
        assert_eq!(keys(&page), sorted);
        for (i, k) in sorted.iter().enumerate() {
            assert_eq!(lower_bound(&*page, k), (i, true));
            assert_eq!(upper_bound(&*page, k), i + 1);
        }
        remove_at(&mut page, 2).unwrap();
        sorted.remove(2);
        node::check(&page, PageId(1), PageId(9)).unwrap();
        page = compacted(&page).unwrap();
        node::check(&page, PageId(1), PageId(9)).unwrap();
        node::check_heads(&page).unwrap();
        assert_eq!(keys(&page), sorted);
        assert_eq!(node::dead_bytes(&*page), 0);
    }

    #[test]
    fn the_last_leaf_split_by_a_larger_key_keeps_ninety_percent_left() {
        // Proves an ascending load leaves full nodes behind (the split keeps
        // 90% of a leaf's bytes left) while any other split stays even: a
        // key inside the node, or a node with a right sibling.
        let mut page = leaf();
        let mut n = 0u64;
        while insert_at(&mut page, n as usize, &n.to_be_bytes(), &[1u8; 8]).is_ok() {
            n += 1;
        }
        let count = node::count(&*page);
        let past_end = split_plan_for(&page, &(n + 1).to_be_bytes()).unwrap();
        assert!(
            past_end.at * 10 >= count * 9 && past_end.at < count,
            "{past_end:?} of {count}"
        );
        let inside = split_plan_for(&page, &3u64.to_be_bytes()).unwrap();
        assert_eq!(inside, split_plan(&page).unwrap());
        assert!(inside.at.abs_diff(count / 2) <= 1);
        set_right(&mut page, 7);
        let not_last = split_plan_for(&page, &(n + 1).to_be_bytes()).unwrap();
        assert_eq!(not_last, inside);
    }

    #[test]
    fn fill_split_and_route() {
        // Proves a full leaf splits into halves that partition its entries,
        // with the truncated separator between them, and that an inner node
        // routes keys to the child covering them (Key and Before targets).
        let mut page = leaf();
        let mut n = 0u64;
        loop {
            let k = (n * 7).to_be_bytes();
            let (i, _) = lower_bound(&*page, &k);
            if insert_at(&mut page, i, &k, &[1u8; 100]).is_err() {
                break;
            }
            n += 1;
        }
        assert!(n > 40, "a leaf holds {n} entries of 108 bytes");
        let plan = split_plan(&page).unwrap();
        let mut left = leaf();
        let mut right = leaf();
        crate::apply::build_left(&mut left, &page, plan.at, &plan.separator, (0, 3)).unwrap();
        crate::apply::build_right(&mut right, &page, plan.at, &plan.separator, (2, 0)).unwrap();
        node::check(&left, PageId(1), PageId(2)).unwrap();
        node::check(&right, PageId(1), PageId(3)).unwrap();
        assert_eq!(node::count(&*left) + node::count(&*right), n as usize);
        let last_left = node::key_at(&left, node::count(&*left) - 1);
        assert!(last_left < plan.separator.as_slice());
        assert!(node::key_at(&right, 0) >= plan.separator.as_slice());
        assert_eq!(node::high_fence(&left), Some(plan.separator.as_slice()));
        assert_eq!(node::low_fence(&right), Some(plan.separator.as_slice()));
        assert_eq!((node::right(&*left), node::left(&*right)), (3, 2));

        let mut inner = Box::new([0u8; PAGE_SIZE]);
        init(&mut inner, 1, PageId(1), None, None);
        set_leftmost(&mut inner, 2);
        insert_at(&mut inner, 0, &plan.separator, &3u64.to_le_bytes()).unwrap();
        let sep = plan.separator.as_slice();
        assert_eq!(
            node::child_at(&*inner, child_pos(&*inner, Target::Key(sep))),
            3
        );
        assert_eq!(
            node::child_at(&*inner, child_pos(&*inner, Target::Before(sep))),
            2
        );
        assert_eq!(
            node::child_at(&*inner, child_pos(&*inner, Target::Key(b""))),
            2
        );
        assert_eq!(
            node::child_at(&*inner, child_pos(&*inner, Target::Rightmost)),
            3
        );
    }

    #[test]
    fn heads_follow_the_fences_common_prefix() {
        // Proves key heads are taken after the bytes both fences share, that
        // searches place keys without the prefix before or after every slot,
        // and that a new high fence (a shorter common prefix) rewrites every
        // head so searches stay right.
        let low = b"prefix-0:aaaa".as_slice();
        let high = b"prefix-0:zzzz".as_slice();
        let mut page = Box::new([0u8; PAGE_SIZE]);
        init(&mut page, 0, PageId(1), Some(low), Some(high));
        assert_eq!(node::prefix_len(&*page), 9);
        let ks: Vec<Vec<u8>> = (0..40u32)
            .map(|i| format!("prefix-0:b{:08}", i * 37 % 1000).into_bytes())
            .chain([b"prefix-0:b".to_vec(), b"prefix-0:aaaa".to_vec()])
            .collect();
        for k in &ks {
            let (i, found) = lower_bound(&*page, k);
            assert!(!found);
            crate::apply::check_insert(&page, i, k, b"v").unwrap();
            insert_at(&mut page, i, k, b"v").unwrap();
        }
        node::check_heads(&page).unwrap();
        let mut sorted = ks.clone();
        sorted.sort();
        assert_eq!(keys(&page), sorted);
        for (i, k) in sorted.iter().enumerate() {
            assert_eq!(lower_bound(&*page, k), (i, true));
            assert_eq!(upper_bound(&*page, k), i + 1);
        }
        let n = sorted.len();
        for (outside, at) in [
            (b"prefix-0".as_slice(), 0),
            (b"prefix-".as_slice(), 0),
            (b"a".as_slice(), 0),
            (b"prefix-1".as_slice(), n),
            (b"q".as_slice(), n),
        ] {
            assert_eq!(lower_bound(&*page, outside), (at, false));
            assert_eq!(upper_bound(&*page, outside), at);
            assert!(crate::apply::check_insert(&page, at, outside, b"v").is_err());
        }
        set_high_fence(&mut page, Some(b"prefix-9")).unwrap();
        assert_eq!(node::prefix_len(&*page), 7);
        node::check_heads(&page).unwrap();
        // A lone low fence: the prefix is what it and the keys share.
        set_high_fence(&mut page, None).unwrap();
        assert_eq!(node::prefix_len(&*page), 9);
        node::check_heads(&page).unwrap();
        for (i, k) in sorted.iter().enumerate() {
            assert_eq!(lower_bound(&*page, k), (i, true));
        }
        node::check(&page, PageId(1), PageId(9)).unwrap();
    }

    #[test]
    fn a_node_without_fences_takes_its_keys_prefix() {
        // Proves a root (no fences) takes the prefix its keys share, that an
        // insert of a key without it shortens the prefix and rewrites the
        // heads (searches stay right), and that removing the last key
        // clears it.
        let mut page = Box::new([0u8; PAGE_SIZE]);
        init(&mut page, 0, PageId(1), None, None);
        assert_eq!(node::prefix_len(&*page), 0);
        let mut ks: Vec<Vec<u8>> = Vec::new();
        let insert = |page: &mut Page, k: Vec<u8>, ks: &mut Vec<Vec<u8>>| {
            let (i, found) = lower_bound(&*page, &k);
            assert!(!found);
            crate::apply::check_insert(page, i, &k, b"v").unwrap();
            insert_at(page, i, &k, b"v").unwrap();
            node::check_heads(page).unwrap();
            ks.push(k);
            ks.sort();
            for (i, k) in ks.iter().enumerate() {
                assert_eq!(lower_bound(&*page, k), (i, true));
                assert_eq!(upper_bound(&*page, k), i + 1);
            }
        };
        insert(
            &mut page,
            b"\0\xff\0\xff\0\xff\0\xff\0\xff42".to_vec(),
            &mut ks,
        );
        assert_eq!(node::prefix_len(&*page), 12);
        insert(
            &mut page,
            b"\0\xff\0\xff\0\xff\0\xff\0\xff17".to_vec(),
            &mut ks,
        );
        assert_eq!(node::prefix_len(&*page), 10);
        for n in 0..30u8 {
            let mut k = b"\0\xff\0\xff\0\xff\0\xff\0\xff".to_vec();
            k.extend_from_slice(&[b'a' + n, n]);
            insert(&mut page, k, &mut ks);
        }
        assert_eq!(node::prefix_len(&*page), 10);
        insert(&mut page, b"\x01".to_vec(), &mut ks);
        assert_eq!(node::prefix_len(&*page), 0);
        node::check(&page, PageId(1), PageId(9)).unwrap();
        while node::count(&*page) > 0 {
            remove_at(&mut page, 0).unwrap();
        }
        assert_eq!(node::prefix_len(&*page), 0);
        node::check(&page, PageId(1), PageId(9)).unwrap();
    }

    /// A leaf with fences of the maximal key length (0x10.., 0x70..) and
    /// the value that makes an entry of a maximal key maximal.
    fn maximal_leaf() -> (Box<Page>, Vec<u8>) {
        let k = node::MAX_KEY_LEN;
        let mut page = Box::new([0u8; PAGE_SIZE]);
        let (low, high) = (vec![0x10; k], vec![0x70; k]);
        init(&mut page, 0, PageId(1), Some(&low), Some(&high));
        (page, vec![7u8; node::MAX_ENTRY_LEN - k])
    }

    /// A key of the maximal length, 0x55.. ending in `last`.
    fn maximal_key(last: u8) -> Vec<u8> {
        let mut key = vec![0x55; node::MAX_KEY_LEN];
        key[node::MAX_KEY_LEN - 1] = last;
        key
    }

    #[test]
    fn a_node_gives_up_its_low_fence_for_maximal_entries() {
        // Proves the space rule (README "Fences"): a leaf with both fences
        // of the maximal key length takes one maximal entry beside them and
        // a second one by dropping its low fence; the high fence, prefix,
        // heads and order stay sound, and a third is refused.
        let k = node::MAX_KEY_LEN;
        let (mut page, value) = maximal_leaf();
        let (a, b) = (maximal_key(1), maximal_key(2));
        insert_at(&mut page, 0, &a, &value).unwrap();
        assert_eq!(node::low_fence(&page).map(<[u8]>::len), Some(k));
        assert!(fits(&page, k, value.len()));
        insert_at(&mut page, 1, &b, &value).unwrap();
        assert_eq!(node::low_fence(&page), None, "the low fence made room");
        assert_eq!(node::high_fence(&page), Some(&vec![0x70; k][..]));
        node::check(&page, PageId(1), PageId(9)).unwrap();
        node::check_heads(&page).unwrap();
        assert_eq!(lower_bound(&*page, &b), (1, true));
        assert_eq!(lower_bound(&*page, &a), (0, true));
        assert!(!fits(&page, k, value.len()));
        assert_eq!(
            insert_at(&mut page, 2, &[0x21; 8], &value),
            Err(NodeError::NoSpace)
        );
    }

    #[test]
    fn a_high_fence_grows_only_into_room() {
        // Proves set_high_fence uses the low fence's bytes when it must,
        // refuses (page unchanged) what does not fit, and that
        // `high_fence_fits` predicts both.
        let mut page = leaf();
        set_high_fence(&mut page, Some(b"\xF0")).unwrap();
        let mut n = 0u32;
        while insert_at(&mut page, n as usize, &n.to_be_bytes(), &[0u8; 37]).is_ok() {
            n += 1;
        }
        let before = page.clone();
        let long = [0xF1; node::MAX_KEY_LEN];
        assert!(!high_fence_fits(&page, long.len()));
        assert_eq!(
            set_high_fence(&mut page, Some(&long)),
            Err(NodeError::NoSpace)
        );
        assert_eq!(page, before);
        let room = room(&page) + 1;
        assert!(high_fence_fits(&page, room));
        set_high_fence(&mut page, Some(&long[..room])).unwrap();
        node::check(&page, PageId(1), PageId(9)).unwrap();
        node::check_heads(&page).unwrap();
    }

    #[test]
    fn halves_of_maximal_entries_fit() {
        // Proves a split of a leaf holding maximal entries between maximal
        // fences builds halves that fit (each keeping the low fence only
        // where there is room) and pass the full check.
        let (mut page, value) = maximal_leaf();
        let key = maximal_key;
        insert_at(&mut page, 0, &key(1), &value).unwrap();
        insert_at(&mut page, 1, &key(2), &value).unwrap();
        let plan = split_plan(&page).unwrap();
        assert_eq!((plan.at, plan.separator.clone()), (1, key(2)));
        let mut left = Box::new([0u8; PAGE_SIZE]);
        let mut right = Box::new([0u8; PAGE_SIZE]);
        crate::apply::build_left(&mut left, &page, plan.at, &plan.separator, (0, 3)).unwrap();
        crate::apply::build_right(&mut right, &page, plan.at, &plan.separator, (2, 0)).unwrap();
        for (half, id) in [(&left, 2), (&right, 3)] {
            node::check(half, PageId(1), PageId(id)).unwrap();
            node::check_heads(half).unwrap();
            assert_eq!(node::count(&**half), 1);
        }
        assert_eq!(node::low_fence(&right), Some(&key(2)[..]));
        assert_eq!(node::high_fence(&left), Some(&key(2)[..]));
    }

    #[test]
    fn garbage_pages_do_not_panic() {
        // Proves the read functions are total on arbitrary bytes (a torn
        // optimistic read or a corrupt page) and `check` rejects them.
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(4);
        for _ in 0..200 {
            let mut page = Box::new([0u8; PAGE_SIZE]);
            rng.fill(&mut page[..]);
            page[node::OFF_MAGIC..node::OFF_MAGIC + 2].copy_from_slice(&MAGIC.to_le_bytes());
            let _ = lower_bound(&*page, b"some key that is long enough");
            let _ = child_pos(&*page, Target::Before(b"x"));
            let _ = node::low_fence(&page);
            let _ = node::high_fence(&page);
            for i in 0..node::count(&*page) {
                let _ = node::key_at(&page, i);
                let _ = node::value_at(&page, i);
            }
            assert!(node::check(&page, PageId(1), PageId(2)).is_err());
        }
    }
}
