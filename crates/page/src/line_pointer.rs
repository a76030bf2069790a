//! The line-pointer page: items addressed by stable item ids, as
//! PostgreSQL's heap pages (`ItemIdData`, `bufpage.c`) — the layout the heap
//! will store tuple versions in, so an index can point at `(page, item id)`
//! and keep pointing there while the item lives, through compaction.
//!
//! ```text
//! 0        24                        lower           upper                  special    8192
//! | header | lp 0 | lp 1 | … | lp n-1 | … free space … | item bytes, any order | special |
//! ```
//!
//! A line pointer is 4 bytes, one little-endian u32:
//!
//! | bits  | field    | meaning                                                    |
//! |------:|----------|------------------------------------------------------------|
//! | 0-14  | `offset` | Normal: byte offset of the item; Redirect: the target id    |
//! | 15-16 | `state`  | 0 Unused, 1 Normal, 2 Redirect, 3 Dead                      |
//! | 17-31 | `len`    | Normal: item length in bytes (0 allowed); otherwise 0       |
//!
//! Line pointer `i` (item id `i`, from 0) lives at `24 + 4 i`; the count is
//! `(lower - 24) / 4`. States:
//!
//! - **Normal**: an item, `len` bytes at `offset`.
//! - **Redirect**: no storage; points at another item id (the next live
//!   version of a HOT chain whose root was pruned: index entries point at
//!   the root, which must keep its id).
//! - **Dead**: no storage; the item is gone but index entries may still
//!   point here, so the id cannot be reused yet (vacuum marks it Unused once
//!   they are removed).
//! - **Unused**: free for reuse by [`LinePointerPageMut::add`].
//!
//! Header flag [`FLAG_HAS_FREE_LINES`] is a hint that some line pointer is
//! Unused (PostgreSQL's `PD_HAS_FREE_LINES`): `add` scans for one only then.
//!
//! Invariants (checked by [`LinePointerPage::check_invariants`]):
//! 1. `24 <= lower <= upper <= special <= 8192`, `(lower - 24) % 4 == 0`,
//!    `special % 8 == 0`, layout version 1, reserved field 0.
//! 2. Every Normal item lies inside `[upper, special)`.
//! 3. No two Normal items overlap.
//! 4. A Redirect points at an id below the count whose line pointer is
//!    Normal; Unused, Dead and Redirect pointers carry `len` 0, and Unused
//!    and Dead carry `offset` 0.
//! 5. The last line pointer is not Unused (trailing Unused pointers are cut
//!    off, so `lower` never grows without need).
//!
//! A view checks invariant 1 when it is made (O(1)); `get` and `state` check
//! what they read (2 and 4 for that pointer). So every access to a corrupt
//! or torn page is an error, never a panic. Mutations keep all five on a
//! page that had them, and on a page that did not they report what they
//! find and leave the page unchanged.

use crate::Page;
use crate::layout::{
    FLAGS_OFFSET, HEADER_SIZE, LAYOUT_VERSION, LOWER_OFFSET, PAGE_SIZE, RESERVED_OFFSET,
    SPECIAL_ALIGN, UPPER_OFFSET, header_flags, header_layout_version, header_lower, header_special,
    header_upper, read_u16, write_u16,
};
use std::ops::Range;

/// Bytes per line pointer.
pub const LINE_POINTER_SIZE: usize = 4;
/// The most line pointers a page can hold (no items, no special area).
pub const MAX_LINE_POINTERS: usize = (PAGE_SIZE - HEADER_SIZE) / LINE_POINTER_SIZE;
/// Header flag: some line pointer is Unused (a hint; may be stale when set).
pub const FLAG_HAS_FREE_LINES: u16 = 0x0001;

const OFFSET_MASK: u32 = 0x7fff;
const STATE_SHIFT: u32 = 15;
const LEN_SHIFT: u32 = 17;

const _: () = assert!(LINE_POINTER_SIZE == size_of::<u32>());
const _: () = assert!(PAGE_SIZE <= OFFSET_MASK as usize + 1);
const _: () = assert!(MAX_LINE_POINTERS <= OFFSET_MASK as usize);
const _: () = assert!(HEADER_SIZE.is_multiple_of(LINE_POINTER_SIZE));

/// An item's id on its page: the index of its line pointer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ItemId(pub u16);

impl ItemId {
    fn index(self) -> usize {
        usize::from(self.0)
    }
}

impl std::fmt::Display for ItemId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "item {}", self.0)
    }
}

/// What a line pointer says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LineState {
    Unused,
    /// An item of `len` bytes at `offset`.
    Normal {
        offset: usize,
        len: usize,
    },
    /// Follow to this id.
    Redirect(ItemId),
    Dead,
}

/// A line-pointer page operation could not be done.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LpError {
    /// The item (plus a new line pointer, when one is needed) does not fit
    /// even after compaction.
    #[error("not enough free space: need {needed} bytes, have {available}")]
    NoSpace { needed: usize, available: usize },
    #[error("{id} out of range (page has {count} line pointers)")]
    OutOfRange { id: ItemId, count: usize },
    #[error("item of {len} bytes exceeds the largest item a page holds ({max})")]
    TooLarge { len: usize, max: usize },
    /// The operation needs a Normal item and the pointer is not one.
    #[error("{id} is {state:?}, not a normal item")]
    NotNormal { id: ItemId, state: LineState },
    /// The header or a line pointer breaks the layout's invariants: the page
    /// is corrupt (or a torn optimistic copy). The caller adds the page id.
    #[error("corrupt line-pointer page: {reason}")]
    Corrupt { reason: String },
}

#[cold]
fn corrupt(reason: String) -> LpError {
    LpError::Corrupt { reason }
}

/// The validated header bounds (invariant 1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Bounds {
    lower: usize,
    upper: usize,
    special: usize,
}

impl Bounds {
    fn read(page: &Page) -> Result<Bounds, LpError> {
        let version = header_layout_version(page);
        if version != LAYOUT_VERSION {
            return Err(corrupt(format!(
                "layout version {version}, expected {LAYOUT_VERSION}"
            )));
        }
        let reserved = read_u16(page, RESERVED_OFFSET);
        if reserved != 0 {
            return Err(corrupt(format!(
                "reserved header field is {reserved}, expected 0"
            )));
        }
        let (lower, upper, special) =
            (header_lower(page), header_upper(page), header_special(page));
        if !(HEADER_SIZE <= lower && lower <= upper && upper <= special && special <= PAGE_SIZE) {
            return Err(corrupt(format!(
                "header bounds out of order: lower {lower}, upper {upper}, special {special}"
            )));
        }
        if !(lower - HEADER_SIZE).is_multiple_of(LINE_POINTER_SIZE) {
            return Err(corrupt(format!(
                "lower {lower} does not end a whole line pointer"
            )));
        }
        if !special.is_multiple_of(SPECIAL_ALIGN) {
            return Err(corrupt(format!(
                "special {special} is not {SPECIAL_ALIGN}-aligned"
            )));
        }
        Ok(Bounds {
            lower,
            upper,
            special,
        })
    }

    #[inline]
    fn count(self) -> usize {
        (self.lower - HEADER_SIZE) / LINE_POINTER_SIZE
    }
}

fn lp_pos(index: usize) -> usize {
    HEADER_SIZE + index * LINE_POINTER_SIZE
}

fn read_raw(page: &Page, index: usize) -> u32 {
    let pos = lp_pos(index);
    u32::from_le_bytes([page[pos], page[pos + 1], page[pos + 2], page[pos + 3]])
}

fn write_raw(page: &mut Page, index: usize, raw: u32) {
    let pos = lp_pos(index);
    page[pos..pos + 4].copy_from_slice(&raw.to_le_bytes());
}

fn encode(state: LineState) -> u32 {
    let (offset, code, len) = match state {
        LineState::Unused => (0, 0, 0),
        LineState::Normal { offset, len } => (offset as u32, 1, len as u32),
        LineState::Redirect(target) => (u32::from(target.0), 2, 0),
        LineState::Dead => (0, 3, 0),
    };
    debug_assert!(offset <= OFFSET_MASK && len <= OFFSET_MASK);
    offset | (code << STATE_SHIFT) | (len << LEN_SHIFT)
}

/// Decodes line pointer `index` of a page with `bounds`, checking
/// invariants 2 and 4 (a Redirect's target is checked to be in range; that
/// it is Normal, by `resolve` and `check_invariants`).
#[inline]
fn decode(page: &Page, bounds: Bounds, index: usize) -> Result<LineState, LpError> {
    let raw = read_raw(page, index);
    let offset = (raw & OFFSET_MASK) as usize;
    let len = (raw >> LEN_SHIFT) as usize;
    match (raw >> STATE_SHIFT) & 0b11 {
        0 if offset == 0 && len == 0 => Ok(LineState::Unused),
        1 if offset >= bounds.upper && offset + len <= bounds.special => {
            Ok(LineState::Normal { offset, len })
        }
        2 if len == 0 && offset < bounds.count() && offset != index => {
            Ok(LineState::Redirect(ItemId(offset as u16)))
        }
        3 if offset == 0 && len == 0 => Ok(LineState::Dead),
        _ => Err(malformed(bounds, index, raw)),
    }
}

/// The error of a line pointer [`decode`] refused (off the hot path).
#[cold]
#[inline(never)]
fn malformed(bounds: Bounds, index: usize, raw: u32) -> LpError {
    let offset = (raw & OFFSET_MASK) as usize;
    let len = (raw >> LEN_SHIFT) as usize;
    let what = if (raw >> STATE_SHIFT) & 0b11 == 1 {
        format!(
            "bytes {offset}..{} outside the item area {}..{}",
            offset + len,
            bounds.upper,
            bounds.special
        )
    } else {
        "malformed line pointer".to_string()
    };
    corrupt(format!("item {index}: {what} (raw {raw:#010x})"))
}

/// Where an add goes: the line pointer's index, whether it reuses an
/// Unused one, and the contiguous bytes it needs.
struct AddPlan {
    index: usize,
    reuse: bool,
    needed: usize,
}

/// How a compaction moves the Normal items (id, byte range, in id order),
/// checked: they fit the item area and do not overlap.
struct Compaction {
    items: Vec<(usize, Range<usize>)>,
    /// The items lie from the page end down in id order (as adds and
    /// compactions leave them): each moves up in place, runs of adjacent
    /// items in one copy. Otherwise they are packed through a scratch page
    /// in id order (which leaves them in that order), without sorting.
    in_place: bool,
}

/// Plans a compaction of `items` (id order) into `area` bytes.
fn compaction_order(items: Vec<(usize, Range<usize>)>, area: usize) -> Result<Compaction, LpError> {
    let used: usize = items.iter().map(|(_, r)| r.len()).sum();
    if used > area {
        return Err(corrupt(format!(
            "items claim {used} bytes but only {area} lie between the line pointers and the special area"
        )));
    }
    let in_place = items.windows(2).all(|w| w[1].1.end <= w[0].1.start);
    // In id order from the page end down, no two overlap; otherwise check
    // (overlapping items would be copied onto each other: a corrupt page).
    if !in_place && overlap(&items) {
        return Err(corrupt("items overlap".to_string()));
    }
    Ok(Compaction { items, in_place })
}

/// Whether two of the byte ranges (inside the page) share a byte: one bit
/// per page byte, set a word at a time.
fn overlap(items: &[(usize, Range<usize>)]) -> bool {
    let mut used = [0u64; PAGE_SIZE / 64];
    for (_, range) in items {
        let mut at = range.start;
        while at < range.end {
            let (word, bit) = (at / 64, at % 64);
            let n = (64 - bit).min(range.end - at);
            let mask = (u64::MAX >> (64 - n)) << bit;
            if used[word] & mask != 0 {
                return true;
            }
            used[word] |= mask;
            at += n;
        }
    }
    false
}

/// A page header's bounds, validated (invariant 1), kept apart from the
/// page: for a reader that copies a page's header once and then its line
/// pointers one at a time (the heap's optimistic reads of a HOT chain),
/// so the header is not validated again for each of them. The page
/// handed to [`LineBounds::state`] must hold the header they were read
/// from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LineBounds(Bounds);

impl LineBounds {
    /// Validates `page`'s header (O(1)).
    pub fn read(page: &Page) -> Result<LineBounds, LpError> {
        Bounds::read(page).map(LineBounds)
    }

    /// Line pointers on the page.
    pub fn count(self) -> usize {
        self.0.count()
    }

    /// What line pointer `id` of `page` says (as [`LinePointerPage::state`]).
    #[inline]
    pub fn state(self, page: &Page, id: ItemId) -> Result<LineState, LpError> {
        let count = self.count();
        if id.index() >= count {
            return Err(LpError::OutOfRange { id, count });
        }
        decode(page, self.0, id.index())
    }
}

/// Read access to a line-pointer page. Holding one means the header passed
/// validation (invariant 1).
#[derive(Debug, Clone, Copy)]
pub struct LinePointerPage<'a> {
    page: &'a Page,
    bounds: Bounds,
}

impl<'a> LinePointerPage<'a> {
    /// Validates the header (O(1)).
    pub fn new(page: &'a Page) -> Result<LinePointerPage<'a>, LpError> {
        Ok(LinePointerPage {
            page,
            bounds: Bounds::read(page)?,
        })
    }

    /// Line pointers on the page (item ids `0..count`).
    #[inline]
    pub fn count(&self) -> usize {
        self.bounds.count()
    }

    fn check_id(&self, id: ItemId) -> Result<usize, LpError> {
        let count = self.count();
        if id.index() >= count {
            return Err(LpError::OutOfRange { id, count });
        }
        Ok(id.index())
    }

    /// What line pointer `id` says.
    #[inline]
    pub fn state(&self, id: ItemId) -> Result<LineState, LpError> {
        LineBounds(self.bounds).state(self.page, id)
    }

    /// The bytes of Normal item `id`.
    pub fn get(&self, id: ItemId) -> Result<&'a [u8], LpError> {
        match self.state(id)? {
            LineState::Normal { offset, len } => Ok(&self.page[offset..offset + len]),
            state => Err(LpError::NotNormal { id, state }),
        }
    }

    /// Follows a Redirect (one step: a redirect never points at another)
    /// to the id of a Normal item; a Normal id is itself. Dead and Unused
    /// are `NotNormal`.
    pub fn resolve(&self, id: ItemId) -> Result<ItemId, LpError> {
        match self.state(id)? {
            LineState::Normal { .. } => Ok(id),
            LineState::Redirect(target) => match self.state(target)? {
                LineState::Normal { .. } => Ok(target),
                state => Err(corrupt(format!(
                    "{id} redirects to {target}, which is {state:?}"
                ))),
            },
            state => Err(LpError::NotNormal { id, state }),
        }
    }

    /// Contiguous free bytes between the line pointers and the items.
    pub fn contiguous_free(&self) -> usize {
        self.bounds.upper - self.bounds.lower
    }

    /// Free bytes after compaction: the item area less the Normal items.
    /// Errors on a corrupt pointer.
    pub fn free_after_compaction(&self) -> Result<usize, LpError> {
        let mut used = 0;
        for index in 0..self.count() {
            if let LineState::Normal { len, .. } = decode(self.page, self.bounds, index)? {
                used += len;
            }
        }
        let area = self.bounds.special - self.bounds.lower;
        area.checked_sub(used).ok_or_else(|| {
            corrupt(format!(
                "items claim {used} bytes but only {area} lie between the line pointers and the special area"
            ))
        })
    }

    /// The largest item an empty page of this layout holds (one line
    /// pointer, the rest item bytes).
    pub fn max_item_len(&self) -> usize {
        self.bounds.special - HEADER_SIZE - LINE_POINTER_SIZE
    }

    /// `TooLarge` for an item longer than [`Self::max_item_len`].
    fn check_item_len(&self, len: usize) -> Result<(), LpError> {
        let max = self.max_item_len();
        if len > max {
            return Err(LpError::TooLarge { len, max });
        }
        Ok(())
    }

    /// Where [`LinePointerPageMut::add`] of an item of `len` bytes would
    /// put it, or the error it would give (the one owner of that rule).
    fn plan_add(&self, len: usize) -> Result<AddPlan, LpError> {
        self.check_item_len(len)?;
        let count = self.count();
        let reuse = if header_flags(self.page) & FLAG_HAS_FREE_LINES != 0 {
            self.first_unused()?
        } else {
            None
        };
        if reuse.is_none() && count >= MAX_LINE_POINTERS {
            return Err(LpError::NoSpace {
                needed: LINE_POINTER_SIZE,
                available: 0,
            });
        }
        let needed = len
            + if reuse.is_some() {
                0
            } else {
                LINE_POINTER_SIZE
            };
        if self.contiguous_free() < needed {
            let available = self.free_after_compaction()?;
            if available < needed {
                return Err(LpError::NoSpace { needed, available });
            }
        }
        Ok(AddPlan {
            index: reuse.unwrap_or(count),
            reuse: reuse.is_some(),
            needed,
        })
    }

    /// The id [`LinePointerPageMut::add`] of an item of `len` bytes would
    /// return, or its error; nothing changes (redo checks a logged insert
    /// before changing the page).
    pub fn next_add_id(&self, len: usize) -> Result<ItemId, LpError> {
        Ok(ItemId(self.plan_add(len)?.index as u16))
    }

    /// The first Unused line pointer, if any.
    fn first_unused(&self) -> Result<Option<usize>, LpError> {
        // An Unused pointer is all zeros (`encode`): no decoding needed.
        Ok((0..self.count()).find(|&index| read_raw(self.page, index) == 0))
    }

    /// The special area.
    pub fn special(&self) -> &'a [u8] {
        &self.page[self.bounds.special..]
    }

    /// How [`LinePointerPageMut::compact`] moves the Normal items, checked:
    /// they fit the item area and do not overlap. Compaction fails exactly
    /// when this does.
    fn compaction_plan(&self) -> Result<Compaction, LpError> {
        compaction_order(
            self.normal_items()?,
            self.bounds.special - self.bounds.lower,
        )
    }

    /// Every Normal item (id, byte range), in id order.
    fn normal_items(&self) -> Result<Vec<(usize, Range<usize>)>, LpError> {
        let mut items = Vec::new();
        for index in 0..self.count() {
            if let LineState::Normal { offset, len } = decode(self.page, self.bounds, index)? {
                items.push((index, offset..offset + len));
            }
        }
        Ok(items)
    }

    /// Checks invariants 1-5. O(n log n); for tests and `verify`, not for
    /// hot paths.
    pub fn check_invariants(&self) -> Result<(), LpError> {
        let mut items = self.normal_items()?;
        items.retain(|(_, range)| !range.is_empty());
        items.sort_unstable_by_key(|(_, range)| range.start);
        for pair in items.windows(2) {
            let ((first, a), (second, b)) = (&pair[0], &pair[1]);
            if a.end > b.start {
                return Err(corrupt(format!(
                    "items {first} ({a:?}) and {second} ({b:?}) overlap"
                )));
            }
        }
        for index in 0..self.count() {
            if let LineState::Redirect(target) = decode(self.page, self.bounds, index)? {
                let state = decode(self.page, self.bounds, target.index())?;
                if !matches!(state, LineState::Normal { .. }) {
                    return Err(corrupt(format!(
                        "item {index} redirects to {target}, which is {state:?}"
                    )));
                }
            }
        }
        if self.count() > 0
            && decode(self.page, self.bounds, self.count() - 1)? == LineState::Unused
        {
            return Err(corrupt("the last line pointer is unused".to_string()));
        }
        Ok(())
    }
}

/// Write access to a line-pointer page. The page is reachable only through
/// these methods, so a view that passed validation keeps invariant 1.
#[derive(Debug)]
pub struct LinePointerPageMut<'a> {
    page: &'a mut Page,
}

impl<'a> LinePointerPageMut<'a> {
    /// Validates the header (O(1)). A new page is made with
    /// [`crate::init_page`] first.
    pub fn new(page: &'a mut Page) -> Result<LinePointerPageMut<'a>, LpError> {
        Bounds::read(page)?;
        Ok(LinePointerPageMut { page })
    }

    pub fn as_view(&self) -> LinePointerPage<'_> {
        LinePointerPage {
            page: self.page,
            bounds: self.bounds(),
        }
    }

    /// The page as it is now.
    pub fn page(&self) -> &Page {
        self.page
    }

    fn bounds(&self) -> Bounds {
        Bounds {
            lower: header_lower(self.page),
            upper: header_upper(self.page),
            special: header_special(self.page),
        }
    }

    fn set_lower(&mut self, lower: usize) {
        write_u16(self.page, LOWER_OFFSET, lower);
    }

    fn set_upper(&mut self, upper: usize) {
        write_u16(self.page, UPPER_OFFSET, upper);
    }

    /// Writes line pointer `index`.
    fn set_pointer(&mut self, index: usize, state: LineState) {
        write_raw(self.page, index, encode(state));
    }

    fn set_free_lines_hint(&mut self, on: bool) {
        let flags = header_flags(self.page);
        let flags = if on {
            flags | FLAG_HAS_FREE_LINES
        } else {
            flags & !FLAG_HAS_FREE_LINES
        };
        self.page[FLAGS_OFFSET..FLAGS_OFFSET + 2].copy_from_slice(&flags.to_le_bytes());
    }

    /// Mutable bytes of Normal item `id` (same length: an in-place change).
    pub fn get_mut(&mut self, id: ItemId) -> Result<&mut [u8], LpError> {
        match self.as_view().state(id)? {
            LineState::Normal { offset, len } => Ok(&mut self.page[offset..offset + len]),
            state => Err(LpError::NotNormal { id, state }),
        }
    }

    /// The special area, writable.
    pub fn special_mut(&mut self) -> &mut [u8] {
        let special = self.bounds().special;
        &mut self.page[special..]
    }

    /// Adds an item: reuses an Unused line pointer if the hint says there
    /// may be one, else appends one. Compacts when the item fits only
    /// after compaction. `NoSpace`/`TooLarge`/`Corrupt` leave the page
    /// unchanged.
    pub fn add(&mut self, data: &[u8]) -> Result<ItemId, LpError> {
        let plan = self.as_view().plan_add(data.len())?;
        self.make_room(plan.needed)?;
        if !plan.reuse {
            self.set_lower(lp_pos(plan.index + 1));
        }
        let offset = self.place(data);
        self.set_pointer(
            plan.index,
            LineState::Normal {
                offset,
                len: data.len(),
            },
        );
        if !plan.reuse {
            // None was Unused: a set hint was stale.
            self.set_free_lines_hint(false);
        }
        Ok(ItemId(plan.index as u16))
    }

    /// Copies `data` below `upper` (room was made) and returns its offset.
    fn place(&mut self, data: &[u8]) -> usize {
        let upper = self.bounds().upper - data.len();
        self.page[upper..upper + data.len()].copy_from_slice(data);
        self.set_upper(upper);
        upper
    }

    /// Ensures `needed` contiguous free bytes between the line pointers and
    /// the items, compacting if the page holds them only after compaction.
    /// Unchanged page on error.
    fn make_room(&mut self, needed: usize) -> Result<(), LpError> {
        let view = self.as_view();
        if view.contiguous_free() >= needed {
            return Ok(());
        }
        let available = view.free_after_compaction()?;
        if available < needed {
            return Err(LpError::NoSpace { needed, available });
        }
        self.compact()
    }

    /// Replaces Normal item `id` with `data` (any length), keeping its id.
    pub fn replace(&mut self, id: ItemId, data: &[u8]) -> Result<(), LpError> {
        let view = self.as_view();
        let (offset, len) = match view.state(id)? {
            LineState::Normal { offset, len } => (offset, len),
            state => return Err(LpError::NotNormal { id, state }),
        };
        if data.len() <= len {
            // In place: the tail of the old item becomes fragmentation.
            self.page[offset..offset + data.len()].copy_from_slice(data);
            self.set_pointer(
                id.index(),
                LineState::Normal {
                    offset,
                    len: data.len(),
                },
            );
            return Ok(());
        }
        view.check_item_len(data.len())?;
        // The old bytes are free once the pointer lets go of them: count
        // them as such, then make room.
        let available = view.free_after_compaction()? + len;
        if available < data.len() {
            return Err(LpError::NoSpace {
                needed: data.len(),
                available,
            });
        }
        self.set_pointer(id.index(), LineState::Dead);
        if let Err(e) = self.make_room(data.len()) {
            self.set_pointer(id.index(), LineState::Normal { offset, len });
            return Err(e);
        }
        let offset = self.place(data);
        self.set_pointer(
            id.index(),
            LineState::Normal {
                offset,
                len: data.len(),
            },
        );
        Ok(())
    }

    /// Marks `id` Dead: its storage (if any) is freed at the next
    /// compaction; its id stays taken until [`Self::set_unused`].
    pub fn set_dead(&mut self, id: ItemId) -> Result<(), LpError> {
        self.as_view().state(id)?;
        self.check_not_redirect_target(id)?;
        self.set_pointer(id.index(), LineState::Dead);
        Ok(())
    }

    /// Makes `id` a Redirect to Normal item `target` (pruning a HOT
    /// chain's root).
    pub fn set_redirect(&mut self, id: ItemId, target: ItemId) -> Result<(), LpError> {
        let view = self.as_view();
        view.state(id)?;
        match view.state(target)? {
            LineState::Normal { .. } if target != id => {}
            state => return Err(LpError::NotNormal { id: target, state }),
        }
        self.check_not_redirect_target(id)?;
        self.set_pointer(id.index(), LineState::Redirect(target));
        Ok(())
    }

    /// Frees `id` for reuse (vacuum, once no index entry points at it);
    /// trailing Unused pointers are cut off.
    pub fn set_unused(&mut self, id: ItemId) -> Result<(), LpError> {
        self.as_view().state(id)?;
        self.check_not_redirect_target(id)?;
        self.set_pointer(id.index(), LineState::Unused);
        let view = self.as_view();
        let mut count = view.count();
        while count > 0 && decode(self.page, view.bounds, count - 1)? == LineState::Unused {
            count -= 1;
        }
        self.set_lower(lp_pos(count));
        let any_unused = (0..count).any(|i| read_raw(self.page, i) == 0);
        self.set_free_lines_hint(any_unused);
        Ok(())
    }

    /// Sets several line pointers to Unused, Dead or Redirect at once and
    /// compacts the page (one pruning step): the result of
    /// [`Self::set_unused`], [`Self::set_dead`] and [`Self::set_redirect`]
    /// in order, then [`Self::compact`], checked as a whole in O(n + k)
    /// before anything changes (every id in range, no Normal state set,
    /// every Redirect afterwards pointing at a Normal item other than
    /// itself). All or nothing.
    pub fn set_states_and_compact(
        &mut self,
        changes: &[(ItemId, LineState)],
    ) -> Result<(), LpError> {
        let view = self.as_view();
        let count = view.count();
        let mut states = Vec::with_capacity(count);
        let mut items = Vec::with_capacity(count);
        for i in 0..count {
            let state = decode(self.page, view.bounds, i)?;
            if let LineState::Normal { offset, len } = state {
                items.push((i, offset..offset + len));
            }
            states.push(state);
        }
        // Checked before the change: compaction fails only on these items,
        // and the changes only free some of them.
        let plan = compaction_order(items, view.bounds.special - view.bounds.lower)?;
        for &(id, state) in changes {
            let index = view.check_id(id)?;
            if matches!(state, LineState::Normal { .. }) {
                return Err(LpError::NotNormal { id, state });
            }
            states[index] = state;
        }
        for (index, state) in states.iter().enumerate() {
            if let LineState::Redirect(target) = *state {
                let ok = target.index() < count
                    && target.index() != index
                    && matches!(states[target.index()], LineState::Normal { .. });
                if !ok {
                    return Err(LpError::NotNormal {
                        id: target,
                        state: LineState::Redirect(ItemId(index as u16)),
                    });
                }
            }
        }
        for &(id, state) in changes {
            self.set_pointer(id.index(), state);
        }
        let mut count = count;
        while count > 0 && states[count - 1] == LineState::Unused {
            count -= 1;
        }
        self.set_lower(lp_pos(count));
        self.set_free_lines_hint(states[..count].contains(&LineState::Unused));
        let mut plan = plan;
        plan.items
            .retain(|(i, _)| matches!(states[*i], LineState::Normal { .. }));
        self.move_items(plan);
        Ok(())
    }

    /// A pointer that a Redirect targets must stay Normal (invariant 4).
    fn check_not_redirect_target(&self, id: ItemId) -> Result<(), LpError> {
        let view = self.as_view();
        for index in 0..view.count() {
            if decode(self.page, view.bounds, index)? == LineState::Redirect(id) {
                return Err(LpError::NotNormal {
                    id,
                    state: LineState::Redirect(ItemId(index as u16)),
                });
            }
        }
        Ok(())
    }

    /// Moves every Normal item against the special area, so the free space
    /// is contiguous (PostgreSQL's `PageRepairFragmentation`), leaving them
    /// in id order from the page end down: in place when they already are
    /// (highest first, each moving up, never onto an item not yet moved),
    /// else through a scratch page. Item ids do not change. `Corrupt` (page unchanged) if a pointer is malformed or the
    /// items claim more bytes than the item area holds.
    pub fn compact(&mut self) -> Result<(), LpError> {
        let plan = self.as_view().compaction_plan()?;
        self.move_items(plan);
        Ok(())
    }

    /// Moves the planned items against the special area ([`Compaction`]).
    fn move_items(&mut self, plan: Compaction) {
        let mut top = self.bounds().special;
        if !plan.in_place {
            // Packed from the lowest item up (the last in id order first),
            // so the scratch bytes need no zeroing.
            let special = top;
            let used = plan.items.iter().map(|(_, r)| r.len()).sum::<usize>();
            let mut packed = Vec::with_capacity(used);
            top -= used;
            for (index, range) in plan.items.into_iter().rev() {
                let offset = top + packed.len();
                packed.extend_from_slice(&self.page[range.clone()]);
                self.set_pointer(
                    index,
                    LineState::Normal {
                        offset,
                        len: range.len(),
                    },
                );
            }
            self.page[top..special].copy_from_slice(&packed);
            self.set_upper(top);
            return;
        }
        // Items adjacent in the page move together: one copy per run (a
        // prune that frees one version moves the items below it as one
        // block and leaves those above it in place).
        let mut run: Option<(Range<usize>, usize)> = None; // (source, destination start)
        for (index, range) in plan.items {
            let len = range.len();
            top -= len;
            run = match run {
                Some((source, _)) if range.end == source.start => {
                    Some((range.start..source.end, top))
                }
                Some((source, to)) => {
                    self.move_run(source, to);
                    Some((range, top))
                }
                None => Some((range, top)),
            };
            self.set_pointer(index, LineState::Normal { offset: top, len });
        }
        if let Some((source, to)) = run {
            self.move_run(source, to);
        }
        self.set_upper(top);
    }

    /// Copies the bytes of `source` to `to` (no-op when already there).
    fn move_run(&mut self, source: Range<usize>, to: usize) {
        if source.start != to {
            self.page.copy_within(source, to);
        }
    }
}
