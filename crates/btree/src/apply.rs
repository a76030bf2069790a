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
//! the page untouched. The do path runs the same checks, so a record that
//! reaches the WAL has already been applied successfully (to a copy) or
//! checked.

use crate::node::{self, MAGIC, MAX_ENTRY_LEN, MAX_KEY_LEN};
use crate::node_mut;
use folio_page::{Page, PageId};

type Checked = Result<(), String>;

fn fail<T>(reason: impl Into<String>) -> Result<T, String> {
    Err(reason.into())
}

/// Checks that `page` is a well-formed node of the tree named in its
/// header, at `level`.
pub(crate) fn check_node(page: &Page, page_id: PageId, level: u8) -> Checked {
    if node::magic(page) != MAGIC {
        return fail(format!(
            "not a B+tree node (magic {:#06x})",
            node::magic(page)
        ));
    }
    node::check(page, PageId(node::tree_id(page)), page_id)?;
    if node::level(page) != level {
        return fail(format!(
            "node at level {}, record expects {level}",
            node::level(page)
        ));
    }
    Ok(())
}

/// Checks that `key` lies in the node's fences and strictly between the
/// keys of slots `before` and `after` (either may be absent).
fn check_position(page: &Page, key: &[u8], before: Option<usize>, after: Option<usize>) -> Checked {
    if key.len() > MAX_KEY_LEN {
        return fail(format!("key of {} bytes exceeds {MAX_KEY_LEN}", key.len()));
    }
    if node::low_fence(page).is_some_and(|low| key < low)
        || node::high_fence(page).is_some_and(|high| key >= high)
    {
        return fail("key outside the node's fences");
    }
    if before.is_some_and(|i| node::key_at(page, i) >= key)
        || after.is_some_and(|i| node::key_at(page, i) <= key)
    {
        return fail("key out of order at its slot");
    }
    Ok(())
}

/// Checks an insertion of `key -> value` at slot `index` of a leaf: the
/// position keeps the keys sorted and the entry fits with the fence reserve.
pub(crate) fn check_insert(page: &Page, index: usize, key: &[u8], value: &[u8]) -> Checked {
    let count = node::count(page);
    if index > count {
        return fail(format!("slot {index} beyond {count} slots"));
    }
    if key.len() + value.len() > MAX_ENTRY_LEN {
        return fail("entry exceeds the entry size limit");
    }
    check_position(
        page,
        key,
        index.checked_sub(1),
        (index < count).then_some(index),
    )?;
    if !node_mut::fits(page, key.len(), value.len()) {
        return fail("no room for the entry");
    }
    Ok(())
}

/// Inserts `key -> value` at slot `index` of a leaf ([`check_insert`] first).
pub(crate) fn insert_entry(page: &mut Page, index: usize, key: &[u8], value: &[u8]) -> Checked {
    check_insert(page, index, key, value)?;
    node_mut::insert_at(page, index, key, value).or_else(|_| fail("no room for the entry"))
}

/// Checks that slot `index` of a leaf holds `key`.
fn check_slot_key(page: &Page, index: usize, key: &[u8]) -> Checked {
    let count = node::count(page);
    if index >= count {
        return fail(format!("slot {index} beyond {count} slots"));
    }
    if node::key_at(page, index) != key {
        return fail(format!("slot {index} holds another key"));
    }
    Ok(())
}

/// Checks a replacement of the value of slot `index` (holding `key`).
pub(crate) fn check_replace(page: &Page, index: usize, key: &[u8], value: &[u8]) -> Checked {
    check_slot_key(page, index, key)?;
    if key.len() + value.len() > MAX_ENTRY_LEN {
        return fail("entry exceeds the entry size limit");
    }
    if !node_mut::replace_fits(page, index, value.len()) {
        return fail("no room for the new value");
    }
    Ok(())
}

/// Replaces the value of slot `index` ([`check_replace`] first).
pub(crate) fn replace_entry(page: &mut Page, index: usize, key: &[u8], value: &[u8]) -> Checked {
    check_replace(page, index, key, value)?;
    node_mut::replace_value(page, index, value).or_else(|_| fail("no room for the new value"))
}

/// Removes slot `index`, which must hold `key`.
pub(crate) fn remove_entry(page: &mut Page, index: usize, key: &[u8]) -> Checked {
    check_slot_key(page, index, key)?;
    node_mut::remove_at(page, index);
    Ok(())
}

/// Checks a split plan (`at`, `separator`) against the node being split.
fn check_plan(source: &Page, at: usize, separator: &[u8]) -> Checked {
    let count = node::count(source);
    if count < 2 || at == 0 || at >= count {
        return fail(format!("split point {at} of a node with {count} slots"));
    }
    if separator.len() > MAX_KEY_LEN {
        return fail("separator too long");
    }
    let ok = if node::level(source) == 0 {
        node::key_at(source, at - 1) < separator && separator <= node::key_at(source, at)
    } else {
        separator == node::key_at(source, at)
    };
    if !ok {
        return fail("separator does not split the node at the split point");
    }
    Ok(())
}

fn copy_entries(out: &mut Page, source: &Page, range: std::ops::Range<usize>) -> Checked {
    for (j, i) in range.enumerate() {
        node_mut::insert_at(out, j, node::key_at(source, i), node::value_at(source, i))
            .or_else(|_| fail("half a node does not fit a page"))?;
    }
    Ok(())
}

/// Builds in `out` the left half of `source` split at `at`: slots
/// `[0, at)`, fences `source.low .. separator`, the given sibling links.
/// `out` keeps only its page LSN; `source` is a separate (stable) copy.
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
    node_mut::init(out, level, tree, node::low_fence(source), Some(separator));
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
/// `separator .. source.high`, the given sibling links.
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
    node_mut::init(out, level, tree, Some(separator), node::high_fence(source));
    let from = if level == 0 {
        at
    } else {
        node_mut::set_leftmost(out, node::child_at(source, at + 1));
        at + 1
    };
    copy_entries(out, source, from..node::count(source))?;
    node_mut::set_left(out, links.0);
    node_mut::set_right(out, links.1);
    Ok(())
}

/// Checks that child position `pos` of an inner node holds `child`.
fn check_child(parent: &Page, pos: usize, child: PageId) -> Checked {
    let count = node::count(parent);
    if node::level(parent) == 0 || pos > count {
        return fail(format!("child position {pos} of a node with {count} slots"));
    }
    if node::child_at(parent, pos) != child.0 {
        return fail(format!(
            "child position {pos} holds page {}, not {child}",
            node::child_at(parent, pos)
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
    let count = node::count(parent);
    check_position(
        parent,
        separator,
        pos.checked_sub(1),
        (pos < count).then_some(pos),
    )?;
    if !node_mut::fits(parent, separator.len(), 8) {
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
        .or_else(|_| fail("no room for the separator"))
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
    node_mut::init(root, level + 1, root_id, None, None);
    node_mut::set_leftmost(root, children.0.0);
    node_mut::insert_at(root, 0, separator, &children.1.0.to_le_bytes())
        .or_else(|_| fail("an empty root holds one separator"))
}

/// Removes the emptied leaf at child position `pos` (≥ 1, its left
/// sibling at `pos - 1`) from the parent.
pub(crate) fn remove_child(parent: &mut Page, pos: usize, left: PageId, leaf: PageId) -> Checked {
    if pos == 0 {
        return fail("the leftmost child is never unlinked");
    }
    check_child(parent, pos, leaf)?;
    check_child(parent, pos - 1, left)?;
    node_mut::remove_at(parent, pos - 1);
    Ok(())
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
        let count = node::count(page);
        if count > 0 && node::key_at(page, count - 1) >= high {
            return fail("new high fence below the node's keys");
        }
        let old = node::high_fence(page).map_or(0, <[u8]>::len);
        if high.len() > node::free_bytes(page) + old {
            return fail("no room for the new high fence");
        }
    }
    node_mut::set_high_fence(page, high);
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
