//! The node layout and read-only node operations.
//!
//! A node is one 8 KiB page. The first [`HEADER_SIZE`] bytes are folio-page's
//! page header (LSN, checksum, type); the node header follows, then a sorted
//! slot array growing up and an item heap growing down from the page end.
//! All integers are little-endian. Offsets are from the start of the page:
//!
//! | offset | size | meaning |
//! |-------:|-----:|---------|
//! | 0      | 24   | page header (folio-page) |
//! | 24     | 2    | magic `0xB7EE`; 0 on a freed node |
//! | 26     | 1    | level: 0 = leaf, n = n levels above the leaves |
//! | 27     | 1    | flags: bit 0 low fence present, bit 1 high fence present |
//! | 28     | 2    | slot count |
//! | 30     | 2    | heap start: lowest heap byte in use (page size when empty) |
//! | 32     | 2    | dead heap bytes (reclaimable by compaction) |
//! | 34     | 2    | low fence offset in the heap |
//! | 36     | 2    | low fence length |
//! | 38     | 2    | high fence offset in the heap |
//! | 40     | 2    | high fence length |
//! | 42     | 2    | prefix length `p`: bytes every fence and key of the node shares |
//! | 44     | 4    | reserved, zero |
//! | 48     | 8    | tree id: the tree's root page id |
//! | 56     | 8    | left sibling page id (0 = none) |
//! | 64     | 8    | right sibling page id (0 = none) |
//! | 72     | 8    | inner nodes: leftmost child page id; leaves: 0 |
//! | 80     | 16 n | slot array, sorted by key |
//!
//! A slot:
//!
//! | offset | size | meaning |
//! |-------:|-----:|---------|
//! | 0      | 8    | key head: the 8 key bytes after the node's prefix (bytes `p..p + 8`), zero-padded, read big-endian as `u64` |
//! | 8      | 2    | entry offset in the heap (key bytes, then value bytes) |
//! | 10     | 2    | key length |
//! | 12     | 2    | value length (inner nodes: 8, the child page id) |
//! | 14     | 2    | reserved, zero |
//!
//! The node covers the keys `low <= k < high` (a missing low fence is minus
//! infinity, a missing high fence plus infinity). In an inner node the child
//! for key `k` is the child of the last slot whose key is `<= k`, or the
//! leftmost child when there is none; that child covers `[slot key, next
//! slot key)`.
//!
//! Every key of a node shares the node's prefix: the first `p` bytes of
//! its fences and keys, all alike. A slot's key head is taken after the
//! prefix (as LeanStore does), and a search compares the searched key with
//! the prefix once per node ([`probe`]), then one `u64` per binary-search
//! step: keys whose first bytes are common to a subtree (a leading index
//! column, a composite key, a non-unique tree's escaped key) still differ
//! in their heads. The prefix bytes are read from the low fence, else the
//! high fence, else the first key ([`prefix_offset`]). A node with both
//! fences gets their common prefix when they are set (`node_mut::init`,
//! `set_high_fence`), and every key inside its fences shares it (a key `k`
//! with `low <= k < high` starts with the bytes both fences share). A node
//! missing a fence (the root, the first and last node of a level) gets the
//! common prefix of its fence and keys, and an insert of a key without it
//! shortens the prefix and rewrites the heads (`node_mut::insert_at`; at
//! most `p` times per node). Any length up to the true common prefix is
//! sound, so a node written with 0 (before the field existed) reads
//! correctly.
//!
//! Reads go through [`NodeSource`] so the same search code serves a racy
//! optimistic read (an [`OptimisticGuard`]) and a page we hold or copied.
//! Every function here is total: garbage bytes (a torn optimistic read, a
//! corrupt page) give garbage answers, never a panic or an unbounded loop;
//! the caller validates before trusting the answer.
//!
//! Two checks report a corrupt node as an error. [`check_header`] is O(1)
//! (magic, tree, level, count, heap start, flags, dead bytes, fence
//! locations) and runs before every modification and in redo; the
//! modifications then validate each slot they touch ([`checked_slot`]) and
//! reading every slot (compaction, split building) validates as it goes.
//! [`check`] is O(n) (every slot inside the heap, the heap accounting) and
//! runs in `verify()` and on every leaf a scan copies.

use folio_buffer::OptimisticGuard;
use folio_page::{HEADER_SIZE, PAGE_SIZE, Page, PageId};
use std::cmp::Ordering;

pub(crate) const MAGIC: u16 = 0xB7EE;
pub(crate) const OFF_MAGIC: usize = HEADER_SIZE;
pub(crate) const OFF_LEVEL: usize = HEADER_SIZE + 2;
pub(crate) const OFF_FLAGS: usize = HEADER_SIZE + 3;
pub(crate) const OFF_COUNT: usize = HEADER_SIZE + 4;
pub(crate) const OFF_HEAP_START: usize = HEADER_SIZE + 6;
pub(crate) const OFF_DEAD: usize = HEADER_SIZE + 8;
pub(crate) const OFF_LOW_OFF: usize = HEADER_SIZE + 10;
pub(crate) const OFF_LOW_LEN: usize = HEADER_SIZE + 12;
pub(crate) const OFF_HIGH_OFF: usize = HEADER_SIZE + 14;
pub(crate) const OFF_HIGH_LEN: usize = HEADER_SIZE + 16;
pub(crate) const OFF_PREFIX: usize = HEADER_SIZE + 18;
pub(crate) const OFF_TREE: usize = HEADER_SIZE + 24;
pub(crate) const OFF_LEFT: usize = HEADER_SIZE + 32;
pub(crate) const OFF_RIGHT: usize = HEADER_SIZE + 40;
pub(crate) const OFF_LEFTMOST: usize = HEADER_SIZE + 48;
/// First byte of the slot array.
pub(crate) const SLOTS_START: usize = HEADER_SIZE + 56;
/// Bytes per slot.
pub(crate) const SLOT_SIZE: usize = 16;
/// Most slots a node can hold (every entry needs at least its slot).
pub(crate) const MAX_SLOTS: usize = (PAGE_SIZE - SLOTS_START) / SLOT_SIZE;

pub(crate) const FLAG_LOW: u8 = 1;
pub(crate) const FLAG_HIGH: u8 = 2;

/// Longest key a tree accepts (fences and separators are keys or prefixes
/// of keys): a third of the node's space less an inner entry's slot and
/// child, so a node holds its high fence and two maximal entries
/// (PostgreSQL's rule for B-tree items, `BTMaxItemSize`).
pub const MAX_KEY_LEN: usize = 2688;
/// Longest entry (key plus value) a tree accepts: a leaf holds its high
/// fence and two of them. Larger items need overflow pages, which do not
/// exist.
pub const MAX_ENTRY_LEN: usize = 2696;

/// Bytes a node has for its slots, entries and fences.
pub(crate) const NODE_SPACE: usize = PAGE_SIZE - SLOTS_START;

const _: () = assert!(SLOTS_START == 80 && HEADER_SIZE == 24, "node header layout");
const _: () = assert!(PAGE_SIZE <= u16::MAX as usize, "heap offsets are u16");
// A node always holds its high fence and two maximal entries; its low
// fence it keeps only while there is room for it (`node_mut::room`). A
// split then always has a point where the left half holds its entries and
// the separator as high fence (one entry and a separator always fit), the
// right half being part of a node that fitted; and a node with one entry
// takes any second one.
const _: () = assert!(
    2 * (SLOT_SIZE + MAX_ENTRY_LEN) + MAX_KEY_LEN <= NODE_SPACE,
    "a leaf must hold its high fence and two maximal entries"
);
const _: () = assert!(
    2 * (SLOT_SIZE + MAX_KEY_LEN + 8) + MAX_KEY_LEN <= NODE_SPACE,
    "an inner node must hold its high fence and two maximal separators"
);
const _: () = assert!(
    MAX_KEY_LEN + 8 <= MAX_ENTRY_LEN,
    "an inner entry is a key and a page id"
);

/// Racy or stable read access to a node's bytes. Out-of-page reads yield zeros.
pub(crate) trait NodeSource {
    fn u16_at(&self, offset: usize) -> u16;
    fn u64_at(&self, offset: usize) -> u64;

    /// Compares `len` stored bytes at `offset` (at most [`MAX_KEY_LEN`])
    /// with `key`, as byte strings. The default reads 8 bytes at a time
    /// through [`NodeSource::u64_at`] (a racy source's volatile loads);
    /// a stable page compares slices in place.
    #[inline]
    fn compare_bytes(&self, offset: usize, len: usize, key: &[u8]) -> Ordering {
        compare_words(self, offset, len, key)
    }
}

/// [`NodeSource::compare_bytes`] one big-endian `u64` at a time (comparing
/// two words big-endian compares their bytes in order); the last partial
/// word is read zero-padded on both sides.
#[inline]
fn compare_words<S: NodeSource + ?Sized>(s: &S, offset: usize, len: usize, key: &[u8]) -> Ordering {
    const WORD: usize = 8;
    let len = len.min(MAX_KEY_LEN);
    let common = len.min(key.len());
    let mut done = 0;
    while done < common {
        let n = (common - done).min(WORD);
        // One 8-byte load even for a partial last word (bytes past the page
        // end read as zeros), the bytes past `n` masked off.
        let mut stored = u64::from_be_bytes(s.u64_at(offset + done).to_le_bytes());
        let mut wanted = [0u8; WORD];
        wanted[..n].copy_from_slice(&key[done..done + n]);
        if n < WORD {
            stored &= !(u64::MAX >> (8 * n));
        }
        match stored.cmp(&u64::from_be_bytes(wanted)) {
            Ordering::Equal => done += n,
            other => return other,
        }
    }
    len.cmp(&key.len())
}

impl NodeSource for Page {
    #[inline]
    fn u16_at(&self, offset: usize) -> u16 {
        match self.get(offset..offset.saturating_add(2)) {
            Some(b) => u16::from_le_bytes([b[0], b[1]]),
            None => 0,
        }
    }
    #[inline]
    fn u64_at(&self, offset: usize) -> u64 {
        // The bytes inside the page, zero-padded past its end (as the racy
        // source reads them), so a partial last word still compares.
        let mut word = [0u8; 8];
        if let Some(inside) = self.get(offset..) {
            let n = inside.len().min(8);
            word[..n].copy_from_slice(&inside[..n]);
        }
        u64::from_le_bytes(word)
    }
    #[inline]
    fn compare_bytes(&self, offset: usize, len: usize, key: &[u8]) -> Ordering {
        let len = len.min(MAX_KEY_LEN);
        match self.get(offset..offset.saturating_add(len)) {
            Some(stored) => stored.cmp(key),
            // Partly outside the page: the zero-padded reading.
            None => compare_words(self, offset, len, key),
        }
    }
}

impl NodeSource for OptimisticGuard<'_> {
    #[inline(always)]
    fn u16_at(&self, offset: usize) -> u16 {
        self.read_u16(offset)
    }
    #[inline(always)]
    fn u64_at(&self, offset: usize) -> u64 {
        self.read_u64(offset)
    }
}

/// One decoded slot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Slot {
    pub head: u64,
    pub offset: usize,
    pub key_len: usize,
    pub value_len: usize,
}

impl Slot {
    pub(crate) fn value_offset(&self) -> usize {
        self.offset + self.key_len
    }
    pub(crate) fn entry_len(&self) -> usize {
        self.key_len + self.value_len
    }
}

/// Which child or leaf a descent is looking for.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Target<'k> {
    /// The node covering this key.
    Key(&'k [u8]),
    /// The node covering the largest key strictly below this one.
    Before(&'k [u8]),
    /// The rightmost node.
    Rightmost,
}

/// The key head of `key`: its first 8 bytes, zero-padded, as a big-endian integer,
/// so comparing heads compares those bytes.
#[inline]
pub(crate) fn key_head(key: &[u8]) -> u64 {
    let mut b = [0u8; 8];
    let n = key.len().min(8);
    b[..n].copy_from_slice(&key[..n]);
    u64::from_be_bytes(b)
}

/// The key head of `key` in a node whose prefix is `prefix` bytes long:
/// the 8 bytes after the prefix (the caller knows `key` has the prefix).
#[inline]
pub(crate) fn key_head_after(key: &[u8], prefix: usize) -> u64 {
    key_head(key.get(prefix..).unwrap_or(&[]))
}

/// The node's prefix length (see the module comment), clamped to a key's
/// length (a torn read may say anything).
#[inline(always)]
pub(crate) fn prefix_len<S: NodeSource + ?Sized>(s: &S) -> usize {
    usize::from(s.u16_at(OFF_PREFIX)).min(MAX_KEY_LEN)
}

/// The length of the common prefix of `a` and `b`.
pub(crate) fn common_len(a: &[u8], b: &[u8]) -> usize {
    a.iter().zip(b).take_while(|(x, y)| x == y).count()
}

/// The common prefix of the present fences (a lone fence's whole length;
/// 0 with none): a new node's prefix before keys arrive.
pub(crate) fn common_prefix(low: Option<&[u8]>, high: Option<&[u8]>) -> usize {
    match (low, high) {
        (Some(low), Some(high)) => common_len(low, high),
        (Some(fence), None) | (None, Some(fence)) => fence.len(),
        (None, None) => 0,
    }
}

/// The bytes a stable node's prefix is read from (the low fence, else the
/// high fence, else the first key: [`prefix_offset`]'s choice), checked
/// to lie in the heap; empty for a node with neither fences nor keys.
pub(crate) fn checked_prefix_source(page: &Page) -> Result<&[u8], String> {
    Ok(
        match (checked_low_fence(page)?, checked_high_fence(page)?) {
            (Some(fence), _) | (None, Some(fence)) => fence,
            (None, None) if count(page) > 0 => checked_key(page, 0)?,
            (None, None) => &[],
        },
    )
}

/// The length of the prefix every fence and key of a stable node shares
/// (0 for a node with none), at most [`MAX_KEY_LEN`]: the longest prefix
/// the node may have.
pub(crate) fn checked_shared_prefix(page: &Page) -> Result<usize, String> {
    let source = checked_prefix_source(page)?;
    let mut shared = source.len().min(MAX_KEY_LEN);
    for fence in [checked_low_fence(page)?, checked_high_fence(page)?]
        .into_iter()
        .flatten()
    {
        shared = shared.min(common_len(fence, source));
    }
    for i in 0..count(page) {
        shared = shared.min(common_len(checked_key(page, i)?, source));
    }
    Ok(shared)
}

/// Where the node's prefix bytes are read: the low fence, else the high
/// fence, else the first key.
#[inline(always)]
pub(crate) fn prefix_offset<S: NodeSource + ?Sized>(s: &S) -> usize {
    let flags = flags(s);
    let field = if flags & FLAG_LOW != 0 {
        OFF_LOW_OFF
    } else if flags & FLAG_HIGH != 0 {
        OFF_HIGH_OFF
    } else {
        SLOTS_START + 8
    };
    usize::from(s.u16_at(field))
}

/// Where `key` stands against the node's prefix: `Ok((p, head))` when it
/// starts with the prefix (`p` bytes long; `head` is its key head after
/// them), `Err(Less)` when it is below every key of the node,
/// `Err(Greater)` when above.
#[inline(always)]
pub(crate) fn probe<S: NodeSource + ?Sized>(s: &S, key: &[u8]) -> Result<(usize, u64), Ordering> {
    let p = prefix_len(s);
    if p == 0 {
        return Ok((0, key_head(key)));
    }
    match s.compare_bytes(prefix_offset(s), p, &key[..p.min(key.len())]) {
        // Equal also means `key` has at least `p` bytes (a shorter key
        // that is a prefix of the stored bytes compares below them).
        Ordering::Equal => Ok((p, key_head(&key[p..]))),
        Ordering::Greater => Err(Ordering::Less),
        Ordering::Less => Err(Ordering::Greater),
    }
}

/// [`probe`] for a key a descent routed to this node: it lies within the
/// node's fences (or the read is torn, and its answer is validated away),
/// so in a node with both fences it has the prefix, which is not read (the
/// low fence lies at the page's end, a cache line a lookup would otherwise
/// not touch). Nodes missing a fence compare the prefix as [`probe`] does.
#[inline(always)]
pub(crate) fn probe_routed<S: NodeSource + ?Sized>(
    s: &S,
    key: &[u8],
) -> Result<(usize, u64), Ordering> {
    let p = prefix_len(s);
    if flags(s) & (FLAG_LOW | FLAG_HIGH) == FLAG_LOW | FLAG_HIGH && key.len() >= p {
        return Ok((p, key_head(&key[p..])));
    }
    probe(s, key)
}

/// Compares slot `slot`'s key with any `key`, with or without the node's
/// prefix (a key without it lies below or above every key of the node).
pub(crate) fn compare_any<S: NodeSource + ?Sized>(s: &S, slot: &Slot, key: &[u8]) -> Ordering {
    match probe(s, key) {
        Ok(probe) => compare_slot(s, slot, key, probe),
        Err(key_side) => key_side.reverse(),
    }
}

#[inline]
pub(crate) fn magic<S: NodeSource + ?Sized>(s: &S) -> u16 {
    s.u16_at(OFF_MAGIC)
}
#[inline]
pub(crate) fn level<S: NodeSource + ?Sized>(s: &S) -> u8 {
    (s.u16_at(OFF_LEVEL) & 0xFF) as u8
}
#[inline]
pub(crate) fn flags<S: NodeSource + ?Sized>(s: &S) -> u8 {
    (s.u16_at(OFF_LEVEL) >> 8) as u8
}
/// Slot count, clamped to what a page can hold (a torn read may say anything).
#[inline(always)]
pub(crate) fn count<S: NodeSource + ?Sized>(s: &S) -> usize {
    usize::from(s.u16_at(OFF_COUNT)).min(MAX_SLOTS)
}
#[inline]
pub(crate) fn tree_id<S: NodeSource + ?Sized>(s: &S) -> u64 {
    s.u64_at(OFF_TREE)
}
#[inline]
pub(crate) fn left<S: NodeSource + ?Sized>(s: &S) -> u64 {
    s.u64_at(OFF_LEFT)
}
#[inline]
pub(crate) fn right<S: NodeSource + ?Sized>(s: &S) -> u64 {
    s.u64_at(OFF_RIGHT)
}
#[inline]
pub(crate) fn leftmost<S: NodeSource + ?Sized>(s: &S) -> u64 {
    s.u64_at(OFF_LEFTMOST)
}
#[inline]
pub(crate) fn heap_start<S: NodeSource + ?Sized>(s: &S) -> usize {
    usize::from(s.u16_at(OFF_HEAP_START))
}
#[inline]
pub(crate) fn dead_bytes<S: NodeSource + ?Sized>(s: &S) -> usize {
    usize::from(s.u16_at(OFF_DEAD))
}

#[inline(always)]
pub(crate) fn slot<S: NodeSource + ?Sized>(s: &S, index: usize) -> Slot {
    let at = SLOTS_START + index * SLOT_SIZE;
    let meta = s.u64_at(at + 8);
    Slot {
        head: s.u64_at(at),
        offset: (meta & 0xFFFF) as usize,
        key_len: ((meta >> 16) & 0xFFFF) as usize,
        value_len: ((meta >> 32) & 0xFFFF) as usize,
    }
}

/// Compares the stored key of `slot` with `key`, which has the node's
/// prefix (`p` bytes; `head` is its key head after them, from [`probe`]).
/// Reads the stored key's bytes past the head only when the heads tie.
#[inline(always)]
pub(crate) fn compare_slot<S: NodeSource + ?Sized>(
    s: &S,
    slot: &Slot,
    key: &[u8],
    (p, head): (usize, u64),
) -> Ordering {
    match slot.head.cmp(&head) {
        Ordering::Equal => {}
        other => return other,
    }
    let past = p + 8;
    if slot.key_len <= past || key.len() <= past {
        // Equal prefixes and heads, and one key ending within the head: that
        // key is a prefix of the other (the padding is zeros), so the
        // shorter key is the smaller.
        return slot.key_len.cmp(&key.len());
    }
    s.compare_bytes(slot.offset + past, slot.key_len - past, &key[past..])
}

/// Loads one word from every cache line of the slot array so the lines are
/// fetched in parallel (the loads are independent) before a binary search
/// walks them one dependent probe at a time. Used on leaves, whose slot
/// arrays are rarely cached in a large tree.
#[inline]
pub(crate) fn touch_slots<S: NodeSource + ?Sized>(s: &S) {
    const LINE: usize = 64;
    let end = SLOTS_START + count(s) * SLOT_SIZE;
    let mut sum = 0u64;
    let mut at = SLOTS_START;
    while at < end {
        sum = sum.wrapping_add(s.u64_at(at));
        at += LINE;
    }
    std::hint::black_box(sum);
}

/// Index of the first slot whose key is `>= key`, and whether it is equal.
#[inline]
pub(crate) fn lower_bound<S: NodeSource + ?Sized>(s: &S, key: &[u8]) -> (usize, bool) {
    lower_bound_probed(s, key, probe(s, key))
}

/// [`lower_bound`] of a key a descent routed to this node ([`probe_routed`]).
#[inline]
pub(crate) fn lower_bound_routed<S: NodeSource + ?Sized>(s: &S, key: &[u8]) -> (usize, bool) {
    lower_bound_probed(s, key, probe_routed(s, key))
}

#[inline(always)]
fn lower_bound_probed<S: NodeSource + ?Sized>(
    s: &S,
    key: &[u8],
    probed: Result<(usize, u64), Ordering>,
) -> (usize, bool) {
    let head = match probed {
        Ok(head) => head,
        Err(Ordering::Less) => return (0, false),
        Err(_) => return (count(s), false),
    };
    let (mut lo, mut hi) = (0, count(s));
    let mut found = false;
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        match compare_slot(s, &slot(s, mid), key, head) {
            Ordering::Less => lo = mid + 1,
            Ordering::Equal => {
                found = true;
                hi = mid;
            }
            Ordering::Greater => hi = mid,
        }
    }
    (lo, found)
}

/// Index of the first slot whose key is `> key`.
#[inline]
pub(crate) fn upper_bound<S: NodeSource + ?Sized>(s: &S, key: &[u8]) -> usize {
    upper_bound_probed(s, key, probe(s, key))
}

#[inline(always)]
fn upper_bound_probed<S: NodeSource + ?Sized>(
    s: &S,
    key: &[u8],
    probed: Result<(usize, u64), Ordering>,
) -> usize {
    let head = match probed {
        Ok(head) => head,
        Err(Ordering::Less) => return 0,
        Err(_) => return count(s),
    };
    let (mut lo, mut hi) = (0, count(s));
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        match compare_slot(s, &slot(s, mid), key, head) {
            Ordering::Greater => hi = mid,
            _ => lo = mid + 1,
        }
    }
    lo
}

/// The child page id at child position `pos`: 0 is the leftmost child,
/// `i + 1` the child of slot `i`.
#[inline]
pub(crate) fn child_at<S: NodeSource + ?Sized>(s: &S, pos: usize) -> u64 {
    if pos == 0 {
        leftmost(s)
    } else {
        let sl = slot(s, pos - 1);
        s.u64_at(sl.value_offset())
    }
}

/// The child position an inner node routes `target` to. The node was
/// itself reached by routing `target` (a descent from the root), so a key
/// target lies within its fences (`Before`'s key at most at its high
/// fence, which has the prefix too): [`probe_routed`].
#[inline]
pub(crate) fn child_pos<S: NodeSource + ?Sized>(s: &S, target: Target<'_>) -> usize {
    match target {
        Target::Key(key) => upper_bound_probed(s, key, probe_routed(s, key)),
        // Separators `< key` route left of `key`: a child whose low fence is
        // `key` holds nothing below it.
        Target::Before(key) => lower_bound_probed(s, key, probe_routed(s, key)).0,
        Target::Rightmost => count(s),
    }
}

/// Copies the fence at (`off_field`, `len_field`) if `flag` says it exists.
fn fence(page: &Page, flag: u8, off_field: usize, len_field: usize) -> Option<&[u8]> {
    if flags(page) & flag == 0 {
        return None;
    }
    let off = usize::from(page.u16_at(off_field));
    let len = usize::from(page.u16_at(len_field));
    Some(page.get(off..off + len).unwrap_or(&[]))
}

/// The low fence of a stable page (`None` = minus infinity).
pub(crate) fn low_fence(page: &Page) -> Option<&[u8]> {
    fence(page, FLAG_LOW, OFF_LOW_OFF, OFF_LOW_LEN)
}

/// The high fence of a stable page (`None` = plus infinity).
pub(crate) fn high_fence(page: &Page) -> Option<&[u8]> {
    fence(page, FLAG_HIGH, OFF_HIGH_OFF, OFF_HIGH_LEN)
}

/// The key of slot `index` of a stable page (empty if out of bounds).
pub(crate) fn key_at(page: &Page, index: usize) -> &[u8] {
    let sl = slot(page, index);
    page.get(sl.offset..sl.offset + sl.key_len).unwrap_or(&[])
}

/// The value of slot `index` of a stable page (empty if out of bounds).
pub(crate) fn value_at(page: &Page, index: usize) -> &[u8] {
    let sl = slot(page, index);
    page.get(sl.value_offset()..sl.value_offset() + sl.value_len)
        .unwrap_or(&[])
}

/// Bytes free for new entries: the gap between slots and heap plus dead bytes.
pub(crate) fn free_bytes(page: &Page) -> usize {
    let slots_end = SLOTS_START + count(page) * SLOT_SIZE;
    heap_start(page).saturating_sub(slots_end) + dead_bytes(page)
}

/// Whether `page` is a live node of the tree `tree` at `level`.
pub(crate) fn is_node_of(page: &Page, tree: PageId, level: u8) -> bool {
    magic(page) == MAGIC && tree_id(page) == tree.0 && self::level(page) == level
}

/// The slot count and heap start of a stable page, checked so the slot
/// array and the heap can be indexed: the count fits the page and the heap
/// starts between the end of the slot array and the end of the page.
pub(crate) fn heap_bounds(page: &Page) -> Result<(usize, usize), String> {
    let count = usize::from(page.u16_at(OFF_COUNT));
    if count > MAX_SLOTS {
        return Err(format!("slot count {count} exceeds {MAX_SLOTS}"));
    }
    let slots_end = SLOTS_START + count * SLOT_SIZE;
    let heap = heap_start(page);
    if heap < slots_end || heap > PAGE_SIZE {
        return Err(format!(
            "heap start {heap} outside [{slots_end}, {PAGE_SIZE}]"
        ));
    }
    Ok((count, heap))
}

/// Whether `len` bytes at `off` lie inside a heap starting at `heap`.
#[inline]
fn in_heap(heap: usize, off: usize, len: usize) -> bool {
    off >= heap && off + len <= PAGE_SIZE
}

/// The fence at (`off_field`, `len_field`) if `flag` says it exists,
/// checked to lie inside the heap starting at `heap`.
fn checked_fence(
    page: &Page,
    heap: usize,
    flag: u8,
    off_field: usize,
    len_field: usize,
) -> Result<Option<&[u8]>, String> {
    if flags(page) & flag == 0 {
        return Ok(None);
    }
    let off = usize::from(page.u16_at(off_field));
    let len = usize::from(page.u16_at(len_field));
    if !in_heap(heap, off, len) || len > MAX_KEY_LEN {
        return Err(format!("fence at {off}+{len} outside the heap"));
    }
    Ok(Some(&page[off..off + len]))
}

/// The low fence of a stable page, checked to lie inside the heap.
pub(crate) fn checked_low_fence(page: &Page) -> Result<Option<&[u8]>, String> {
    let (_, heap) = heap_bounds(page)?;
    checked_fence(page, heap, FLAG_LOW, OFF_LOW_OFF, OFF_LOW_LEN)
}

/// The high fence of a stable page, checked to lie inside the heap.
pub(crate) fn checked_high_fence(page: &Page) -> Result<Option<&[u8]>, String> {
    let (_, heap) = heap_bounds(page)?;
    checked_fence(page, heap, FLAG_HIGH, OFF_HIGH_OFF, OFF_HIGH_LEN)
}

/// Whether a slot's entry lies inside a heap starting at `heap` and
/// within the size limits, with a page id as an inner node's value.
#[inline(always)]
fn slot_fits(sl: &Slot, heap: usize, is_inner: bool) -> bool {
    in_heap(heap, sl.offset, sl.entry_len())
        && sl.key_len <= MAX_KEY_LEN
        && sl.entry_len() <= MAX_ENTRY_LEN
        && (!is_inner || sl.value_len == 8)
}

/// Why slot `index` failed [`slot_fits`].
#[cold]
fn slot_error(index: usize, sl: &Slot, heap: usize) -> String {
    if !in_heap(heap, sl.offset, sl.entry_len()) {
        format!(
            "slot {index} at {}+{} outside the heap",
            sl.offset,
            sl.entry_len()
        )
    } else if sl.key_len > MAX_KEY_LEN || sl.entry_len() > MAX_ENTRY_LEN {
        format!("slot {index} entry of {} bytes too large", sl.entry_len())
    } else {
        format!("inner slot {index} has a {}-byte child", sl.value_len)
    }
}

/// Slot `index` of a node with `count` slots and its heap starting at
/// `heap` (both from [`heap_bounds`]), checked so its entry can be sliced
/// ([`slot_fits`]).
#[inline]
fn slot_in_heap(page: &Page, count: usize, heap: usize, index: usize) -> Result<Slot, String> {
    if index >= count {
        return Err(format!("slot {index} beyond {count} slots"));
    }
    let sl = slot(page, index);
    if !slot_fits(&sl, heap, level(page) > 0) {
        return Err(slot_error(index, &sl, heap));
    }
    Ok(sl)
}

/// Slot `index` of a stable page, checked (O(1)) so that its entry can be
/// sliced: what a modification validates for each slot it reads.
#[inline]
pub(crate) fn checked_slot(page: &Page, index: usize) -> Result<Slot, String> {
    let (count, heap) = heap_bounds(page)?;
    slot_in_heap(page, count, heap, index)
}

/// The key of slot `index`, checked like [`checked_slot`].
pub(crate) fn checked_key(page: &Page, index: usize) -> Result<&[u8], String> {
    let sl = checked_slot(page, index)?;
    Ok(&page[sl.offset..sl.offset + sl.key_len])
}

/// The key and value of slot `index`, checked like [`checked_slot`].
pub(crate) fn checked_entry(page: &Page, index: usize) -> Result<(&[u8], &[u8]), String> {
    let sl = checked_slot(page, index)?;
    let entry = &page[sl.offset..sl.offset + sl.entry_len()];
    Ok(entry.split_at(sl.key_len))
}

/// The child page id at child position `pos` of an inner node (see
/// [`child_at`]), its slot checked like [`checked_slot`].
pub(crate) fn checked_child(page: &Page, pos: usize) -> Result<u64, String> {
    if pos == 0 {
        return Ok(leftmost(page));
    }
    let sl = checked_slot(page, pos - 1)?;
    Ok(page.u64_at(sl.value_offset()))
}

/// The header fields every reader of the heap relies on: count and heap
/// start ([`heap_bounds`]), known flags, dead bytes within the heap, both
/// fences inside the heap. Returns the count and the heap start.
fn check_layout(page: &Page) -> Result<(usize, usize), String> {
    let (count, heap) = heap_bounds(page)?;
    if flags(page) & !(FLAG_LOW | FLAG_HIGH) != 0 {
        return Err(format!("unknown flags {:#x}", flags(page)));
    }
    if dead_bytes(page) > PAGE_SIZE - heap {
        return Err(format!(
            "{} dead bytes in a heap of {}",
            dead_bytes(page),
            PAGE_SIZE - heap
        ));
    }
    let low = checked_fence(page, heap, FLAG_LOW, OFF_LOW_OFF, OFF_LOW_LEN)?;
    let high = checked_fence(page, heap, FLAG_HIGH, OFF_HIGH_OFF, OFF_HIGH_LEN)?;
    let prefix = usize::from(page.u16_at(OFF_PREFIX));
    let room = match (low, high) {
        (Some(low), Some(high)) => low.len().min(high.len()),
        (Some(fence), None) | (None, Some(fence)) => fence.len(),
        // The first key holds the prefix bytes (its slot is checked by
        // whoever reads it); without keys there are none.
        (None, None) if count > 0 => MAX_KEY_LEN,
        (None, None) => 0,
    };
    if prefix > room {
        return Err(format!(
            "prefix of {prefix} bytes longer than the fences allow ({room})"
        ));
    }
    Ok((count, heap))
}

fn check_identity(page: &Page, tree: PageId) -> Result<(), String> {
    if magic(page) != MAGIC {
        return Err(format!("bad node magic {:#06x}", magic(page)));
    }
    if tree_id(page) != tree.0 {
        return Err(format!(
            "node belongs to tree {} not {}",
            tree_id(page),
            tree.0
        ));
    }
    Ok(())
}

/// The O(1) check run before a node is modified (do path and redo): a live
/// node of `tree` at `level` whose header is in range (count, heap start,
/// flags, dead bytes, fence locations). It reads no slot: each
/// modification checks the slots it touches itself, so a corrupt page is
/// an error, not a panic, without walking every slot of the page.
pub(crate) fn check_header(page: &Page, tree: PageId, level: u8) -> Result<(), String> {
    check_identity(page, tree)?;
    if self::level(page) != level {
        return Err(format!(
            "node at level {}, expected {level}",
            self::level(page)
        ));
    }
    check_layout(page).map(|_| ())
}

/// The full O(n) check of a stable page: [`check_header`]'s fields (all
/// but the level), every slot inside the heap and within the limits, and
/// the heap accounting (live entry and fence bytes plus dead bytes equal
/// the heap). Slot heads against keys are [`check_heads`], run by
/// `verify`; key order and fences against neighbours are
/// [`crate::verify`]'s business. Run by `verify()` and on every leaf a
/// scan copies (which then reads all its slots).
pub(crate) fn check(page: &Page, tree: PageId, page_id: PageId) -> Result<(), String> {
    let _ = page_id;
    check_identity(page, tree)?;
    let (count, heap) = check_layout(page)?;
    let mut used = [low_fence(page), high_fence(page)]
        .iter()
        .flatten()
        .map(|fence| fence.len())
        .sum::<usize>();
    let is_inner = level(page) > 0;
    for i in 0..count {
        let sl = slot(page, i);
        if !slot_fits(&sl, heap, is_inner) {
            return Err(slot_error(i, &sl, heap));
        }
        used += sl.entry_len();
    }
    if used + dead_bytes(page) != PAGE_SIZE - heap {
        return Err(format!(
            "heap accounting: {used} live + {} dead != {} in use",
            dead_bytes(page),
            PAGE_SIZE - heap
        ));
    }
    Ok(())
}

/// Checks that the prefix is one both fences share and that every slot's
/// key head matches its key after it (a mismatch would misdirect binary
/// searches but cannot make a read go out of bounds).
pub(crate) fn check_heads(page: &Page) -> Result<(), String> {
    let p = prefix_len(page);
    let shared = checked_shared_prefix(page)?;
    if p > shared {
        return Err(format!(
            "prefix of {p} bytes not shared by the fences and keys ({shared})"
        ));
    }
    for i in 0..count(page) {
        if slot(page, i).head != key_head_after(key_at(page, i), p) {
            return Err(format!("slot {i} head does not match its key"));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn a_partial_last_word_at_the_page_end_compares_its_bytes() {
        // Found by the property below: a key whose last word straddles the
        // page end once compared as if those bytes were all zero.
        let mut page = Box::new([0u8; PAGE_SIZE]);
        let mut key = vec![0u8; 16];
        key.push(1);
        let offset = PAGE_SIZE - 23;
        page[offset..offset + key.len()].copy_from_slice(&key);
        assert_eq!(compare_words(&*page, offset, 20, &key), Ordering::Greater);
        assert_eq!(page.compare_bytes(offset, 20, &key), Ordering::Greater);
    }

    proptest! {
        #[test]
        fn word_and_slice_comparisons_agree(
            fill in any::<u8>(),
            offset in prop_oneof![0usize..64, (PAGE_SIZE - 64)..(PAGE_SIZE + 16)],
            len in 0usize..600,
            key in prop::collection::vec(
                prop_oneof![Just(0u8), Just(1u8), Just(0xFFu8), any::<u8>()],
                0..40,
            ),
            stored_key_prefix in any::<bool>(),
        ) {
            // Proves the racy source's 8-byte-word comparison and the stable
            // page's slice comparison both order stored bytes exactly as
            // comparing a copy of them (at most MAX_KEY_LEN bytes), including
            // partial last words; ranges running past the page end (a
            // corrupt slot) give some answer without panicking.
            let mut page = Box::new([fill; PAGE_SIZE]);
            if stored_key_prefix && offset < PAGE_SIZE {
                let n = key.len().min(PAGE_SIZE - offset);
                page[offset..offset + n].copy_from_slice(&key[..n]);
            }
            let words = compare_words(&*page, offset, len, &key);
            let slices = page.compare_bytes(offset, len, &key);
            if let Some(stored) = page.get(offset..offset + len.min(MAX_KEY_LEN)) {
                prop_assert_eq!(words, stored.cmp(key.as_slice()));
                prop_assert_eq!(slices, stored.cmp(key.as_slice()));
            }
        }
    }
}
