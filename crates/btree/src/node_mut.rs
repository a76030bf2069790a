//! Node-local modifications on a page held exclusively (or a private copy).
//!
//! Each function keeps the layout of `node.rs` intact; callers check the node
//! with [`node::check`] before the first modification, so the assertions here
//! guard invariants, not disk input. Each structural change of the tree
//! (insert into a leaf, split, new root, unlink of an empty leaf) is built from
//! these by `apply.rs`, whose functions the do path and WAL redo share.

use crate::node::{
    self, FENCE_RESERVE, FLAG_HIGH, FLAG_LOW, MAGIC, OFF_COUNT, OFF_DEAD, OFF_FLAGS,
    OFF_HEAP_START, OFF_HIGH_LEN, OFF_HIGH_OFF, OFF_LEFT, OFF_LEFTMOST, OFF_LEVEL, OFF_LOW_LEN,
    OFF_LOW_OFF, OFF_MAGIC, OFF_RIGHT, OFF_TREE, SLOT_SIZE, SLOTS_START,
};
use folio_page::{PAGE_SIZE, Page, PageId, PageType, header_lsn, init_page, set_header_lsn};

/// Not enough free space in the node for the change.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct NoSpace;

fn put_u16(page: &mut Page, offset: usize, value: usize) {
    assert!(value <= usize::from(u16::MAX));
    page[offset..offset + 2].copy_from_slice(&(value as u16).to_le_bytes());
}

fn put_u64(page: &mut Page, offset: usize, value: u64) {
    page[offset..offset + 8].copy_from_slice(&value.to_le_bytes());
}

/// Formats `page` as an empty node. The page LSN is kept (it must never go
/// backwards); everything else is rewritten.
pub(crate) fn init(
    page: &mut Page,
    level: u8,
    tree: PageId,
    low: Option<&[u8]>,
    high: Option<&[u8]>,
) {
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
    put_u16(page, OFF_HEAP_START, PAGE_SIZE);
    put_u16(page, OFF_DEAD, 0);
    put_u64(page, OFF_TREE, tree.0);
    if let Some(low) = low {
        let off = heap_alloc(page, low.len());
        page[off..off + low.len()].copy_from_slice(low);
        put_u16(page, OFF_LOW_OFF, off);
        put_u16(page, OFF_LOW_LEN, low.len());
        page[OFF_FLAGS] |= FLAG_LOW;
    }
    if let Some(high) = high {
        set_high_fence(page, Some(high));
    }
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

/// Takes `len` bytes from the bottom of the heap; the caller made room.
fn heap_alloc(page: &mut Page, len: usize) -> usize {
    let slots_end = SLOTS_START + node::count(page) * SLOT_SIZE;
    let start = node::heap_start(page);
    assert!(start >= slots_end + len, "heap_alloc without room");
    let off = start - len;
    put_u16(page, OFF_HEAP_START, off);
    off
}

fn add_dead(page: &mut Page, len: usize) {
    let dead = node::dead_bytes(page) + len;
    put_u16(page, OFF_DEAD, dead);
}

/// Makes `need` contiguous bytes available between slots and heap,
/// compacting if the dead bytes make up the difference.
fn make_room(page: &mut Page, need: usize) -> Result<(), NoSpace> {
    let slots_end = SLOTS_START + node::count(page) * SLOT_SIZE;
    let gap = node::heap_start(page) - slots_end;
    if gap >= need {
        return Ok(());
    }
    if gap + node::dead_bytes(page) < need {
        return Err(NoSpace);
    }
    compact(page);
    Ok(())
}

/// Rewrites the heap without dead bytes.
pub(crate) fn compact(page: &mut Page) {
    let copy = Box::new(*page);
    let count = node::count(page);
    put_u16(page, OFF_HEAP_START, PAGE_SIZE);
    put_u16(page, OFF_DEAD, 0);
    // Slots keep their positions; only their offsets change. Temporarily
    // mark the slot array empty so heap_alloc's bound covers it correctly.
    let place = |page: &mut Page, bytes: &[u8]| {
        let start = node::heap_start(page);
        let off = start - bytes.len();
        assert!(
            off >= SLOTS_START + count * SLOT_SIZE,
            "compaction overflow"
        );
        page[off..off + bytes.len()].copy_from_slice(bytes);
        put_u16(page, OFF_HEAP_START, off);
        off
    };
    if let Some(low) = node::low_fence(&copy) {
        let off = place(page, low);
        put_u16(page, OFF_LOW_OFF, off);
    }
    if let Some(high) = node::high_fence(&copy) {
        let off = place(page, high);
        put_u16(page, OFF_HIGH_OFF, off);
    }
    for i in 0..count {
        let sl = node::slot(&*copy, i);
        let off = place(page, &copy[sl.offset..sl.offset + sl.entry_len()]);
        put_u16(page, SLOTS_START + i * SLOT_SIZE + 8, off);
    }
}

/// Sets the high fence (`None` = plus infinity). Always succeeds on a node
/// that kept [`FENCE_RESERVE`] free.
pub(crate) fn set_high_fence(page: &mut Page, high: Option<&[u8]>) {
    if let Some(old) = node::high_fence(page) {
        let len = old.len();
        add_dead(page, len);
    }
    page[OFF_FLAGS] &= !FLAG_HIGH;
    put_u16(page, OFF_HIGH_OFF, 0);
    put_u16(page, OFF_HIGH_LEN, 0);
    if let Some(high) = high {
        make_room(page, high.len()).expect("the fence reserve makes room for a high fence");
        let off = heap_alloc(page, high.len());
        page[off..off + high.len()].copy_from_slice(high);
        put_u16(page, OFF_HIGH_OFF, off);
        put_u16(page, OFF_HIGH_LEN, high.len());
        page[OFF_FLAGS] |= FLAG_HIGH;
    }
}

/// Whether an entry of `key_len + value_len` bytes fits while keeping the
/// fence reserve.
pub(crate) fn fits(page: &Page, key_len: usize, value_len: usize) -> bool {
    SLOT_SIZE + key_len + value_len + FENCE_RESERVE <= node::free_bytes(page)
}

/// Inserts the entry at slot `index` (the caller found the position).
pub(crate) fn insert_at(
    page: &mut Page,
    index: usize,
    key: &[u8],
    value: &[u8],
) -> Result<(), NoSpace> {
    let count = node::count(page);
    assert!(index <= count, "insert_at {index} beyond {count}");
    if !fits(page, key.len(), value.len()) {
        return Err(NoSpace);
    }
    let len = key.len() + value.len();
    make_room(page, SLOT_SIZE + len)?;
    let off = heap_alloc(page, len);
    page[off..off + key.len()].copy_from_slice(key);
    page[off + key.len()..off + len].copy_from_slice(value);
    let at = SLOTS_START + index * SLOT_SIZE;
    page.copy_within(at..SLOTS_START + count * SLOT_SIZE, at + SLOT_SIZE);
    page[at..at + 8].copy_from_slice(&node::key_head(key).to_le_bytes());
    put_u16(page, at + 8, off);
    put_u16(page, at + 10, key.len());
    put_u16(page, at + 12, value.len());
    put_u16(page, at + 14, 0);
    put_u16(page, OFF_COUNT, count + 1);
    Ok(())
}

/// Removes slot `index`; its heap bytes become dead.
pub(crate) fn remove_at(page: &mut Page, index: usize) {
    let count = node::count(page);
    assert!(index < count, "remove_at {index} beyond {count}");
    let sl = node::slot(page, index);
    let at = SLOTS_START + index * SLOT_SIZE;
    page.copy_within(at + SLOT_SIZE..SLOTS_START + count * SLOT_SIZE, at);
    put_u16(page, OFF_COUNT, count - 1);
    if sl.offset == node::heap_start(page) {
        put_u16(page, OFF_HEAP_START, sl.offset + sl.entry_len());
    } else {
        add_dead(page, sl.entry_len());
    }
}

/// Whether slot `index`'s value can become `value_len` bytes while keeping
/// the fence reserve (always, when the length is unchanged).
pub(crate) fn replace_fits(page: &Page, index: usize, value_len: usize) -> bool {
    let sl = node::slot(page, index);
    sl.value_len == value_len
        || SLOT_SIZE + sl.key_len + value_len + FENCE_RESERVE
            <= node::free_bytes(page) + SLOT_SIZE + sl.entry_len()
}

/// Replaces the value of slot `index`, in place when the length is unchanged.
pub(crate) fn replace_value(page: &mut Page, index: usize, value: &[u8]) -> Result<(), NoSpace> {
    let sl = node::slot(page, index);
    if sl.value_len == value.len() {
        let at = sl.value_offset();
        page[at..at + value.len()].copy_from_slice(value);
        return Ok(());
    }
    if !replace_fits(page, index, value.len()) {
        return Err(NoSpace);
    }
    let key = node::key_at(page, index).to_vec();
    remove_at(page, index);
    insert_at(page, index, &key, value).expect("space was checked");
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

/// Chooses the split point at the middle of the entry bytes. A leaf's
/// separator is the shortest prefix of its first right key that is still
/// greater than the last left key (suffix truncation); an inner node's is
/// the key of slot `at`, which moves up.
pub(crate) fn split_plan(page: &Page) -> SplitPlan {
    let count = node::count(page);
    assert!(count >= 2, "split of a node with {count} slots");
    let total: usize = (0..count)
        .map(|i| node::slot(page, i).entry_len() + SLOT_SIZE)
        .sum();
    let mut acc = 0;
    let mut at = 1;
    for i in 0..count {
        acc += node::slot(page, i).entry_len() + SLOT_SIZE;
        if acc * 2 >= total {
            at = i + 1;
            break;
        }
    }
    let is_leaf = node::level(page) == 0;
    // Each side keeps at least one slot; an inner node's slot `at` moves up,
    // so its right side may be left with only a leftmost child.
    let at = at.clamp(1, count - 1);
    let separator = if is_leaf {
        let last_left = node::key_at(page, at - 1);
        let first_right = node::key_at(page, at);
        let common = last_left
            .iter()
            .zip(first_right)
            .take_while(|(a, b)| a == b)
            .count();
        first_right[..(common + 1).min(first_right.len())].to_vec()
    } else {
        node::key_at(page, at).to_vec()
    };
    SplitPlan { at, separator }
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
        remove_at(&mut page, 2);
        sorted.remove(2);
        node::check(&page, PageId(1), PageId(9)).unwrap();
        compact(&mut page);
        node::check(&page, PageId(1), PageId(9)).unwrap();
        node::check_heads(&page).unwrap();
        assert_eq!(keys(&page), sorted);
        assert_eq!(node::dead_bytes(&*page), 0);
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
        let plan = split_plan(&page);
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
    fn high_fence_can_always_grow() {
        // Proves the fence reserve: a leaf filled until insert refuses can
        // still take a maximal high fence (the merge of an empty sibling).
        let mut page = leaf();
        let mut n = 0u32;
        while insert_at(&mut page, n as usize, &n.to_be_bytes(), &[0u8; 37]).is_ok() {
            n += 1;
        }
        set_high_fence(&mut page, Some(&[0xFF; node::MAX_KEY_LEN]));
        node::check(&page, PageId(1), PageId(9)).unwrap();
        assert_eq!(
            node::high_fence(&page).map(<[u8]>::len),
            Some(node::MAX_KEY_LEN)
        );
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
