//! Slotted items: a slot array after the header growing up, item bytes
//! growing down from the special area.
//!
//! ```text
//! 0        24                lower          upper               special     8192
//! | header | slot 0 | slot 1 | … free space … | item 1 | … | item 0 | special |
//! ```
//!
//! A slot is 4 bytes, little-endian:
//!
//! | offset | size | field    | meaning                                         |
//! |-------:|-----:|----------|-------------------------------------------------|
//! |      0 |    2 | `offset` | byte offset of the item in the page             |
//! |      2 |    2 | `len`    | item length in bytes (0 allowed)                |
//!
//! Slot `i` lives at `HEADER_SIZE + 4 * i`; the slot count is
//! `(lower - HEADER_SIZE) / 4`. Slots are kept dense and in the caller's order
//! (a B-tree node keeps them in key order); items are unaligned byte strings
//! in any order inside `[upper, special)`.
//!
//! Invariants (checked by [`SlottedPage::check_invariants`]):
//! 1. `HEADER_SIZE <= lower <= upper <= special <= PAGE_SIZE`,
//!    `(lower - HEADER_SIZE) % 4 == 0`, `special % 8 == 0`, layout version 1,
//!    reserved field 0.
//! 2. Every item lies inside the item area: `upper <= offset` and
//!    `offset + len <= special`.
//! 3. No two items overlap.
//! 4. Hence the bytes in use, `sum(len)`, are at most `special - upper`; the
//!    difference is the fragmentation that [`SlottedPageMut::compact`] reclaims.
//!
//! Construction checks invariant 1 only (O(1)), so a view is cheap; `get`
//! checks invariant 2 for the slot it reads. Together they make every access
//! to a corrupt or torn page an error instead of a panic. Mutations keep all
//! four invariants on a page that had them; on a page that did not, they
//! never panic and report what they detect.

use std::ops::Range;

use crate::Page;
use crate::layout::{
    HEADER_SIZE, LAYOUT_VERSION, LOWER_OFFSET, PAGE_SIZE, RESERVED_OFFSET, SPECIAL_ALIGN,
    UPPER_OFFSET, header_layout_version, header_lower, header_special, header_upper, read_u16,
    write_u16,
};

/// Bytes per slot: offset u16, len u16.
pub const SLOT_SIZE: usize = 4;
/// The most slots a page can hold (zero-length items, no special area).
pub const MAX_SLOTS: usize = (PAGE_SIZE - HEADER_SIZE) / SLOT_SIZE;

const _: () = assert!(SLOT_SIZE == 2 * size_of::<u16>());
const _: () = assert!(HEADER_SIZE.is_multiple_of(SLOT_SIZE) && PAGE_SIZE.is_multiple_of(SLOT_SIZE));

/// A slotted-page operation could not be done.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SlotError {
    /// The item (plus its slot, for a new item) does not fit even after
    /// compaction. `available` is the free space after compaction (plus the
    /// old item's length, for an update).
    #[error("not enough free space: need {needed} bytes, have {available}")]
    NoSpace { needed: usize, available: usize },
    #[error("slot {slot} out of range (page has {count} slots)")]
    OutOfRange { slot: usize, count: usize },
    #[error("item of {len} bytes exceeds the largest item a page holds ({max})")]
    TooLarge { len: usize, max: usize },
    /// The header or a slot breaks the layout's invariants: the page is
    /// corrupt (or a torn optimistic copy). The caller adds the page id.
    #[error("corrupt slotted page: {reason}")]
    Corrupt { reason: String },
}

/// The three validated header bounds.
#[derive(Debug, Clone, Copy)]
struct Bounds {
    lower: usize,
    upper: usize,
    special: usize,
}

impl Bounds {
    /// Reads and validates invariant 1.
    fn read(page: &Page) -> Result<Bounds, SlotError> {
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
        let bounds = Bounds::read_unchecked(page);
        let Bounds {
            lower,
            upper,
            special,
        } = bounds;
        if !(HEADER_SIZE <= lower && lower <= upper && upper <= special && special <= PAGE_SIZE) {
            return Err(corrupt(format!(
                "header bounds out of order: lower {lower}, upper {upper}, special {special}"
            )));
        }
        if !(lower - HEADER_SIZE).is_multiple_of(SLOT_SIZE) {
            return Err(corrupt(format!("lower {lower} does not end a whole slot")));
        }
        if !special.is_multiple_of(SPECIAL_ALIGN) {
            return Err(corrupt(format!(
                "special {special} is not {SPECIAL_ALIGN}-aligned"
            )));
        }
        Ok(bounds)
    }

    /// Reads the bounds of a page already known to satisfy invariant 1.
    fn read_unchecked(page: &Page) -> Bounds {
        Bounds {
            lower: header_lower(page),
            upper: header_upper(page),
            special: header_special(page),
        }
    }

    fn count(self) -> usize {
        (self.lower - HEADER_SIZE) / SLOT_SIZE
    }
}

#[cold]
fn corrupt(reason: String) -> SlotError {
    SlotError::Corrupt { reason }
}

/// Byte position of slot `slot` in the page.
fn slot_pos(slot: usize) -> usize {
    HEADER_SIZE + slot * SLOT_SIZE
}

/// The raw (offset, len) of a slot whose position is inside the slot array.
fn read_slot(page: &Page, slot: usize) -> (usize, usize) {
    let pos = slot_pos(slot);
    (read_u16(page, pos), read_u16(page, pos + 2))
}

fn write_slot(page: &mut Page, slot: usize, offset: usize, len: usize) {
    let pos = slot_pos(slot);
    write_u16(page, pos, offset);
    write_u16(page, pos + 2, len);
}

/// Read access to a slotted page.
///
/// Holding one means the header passed validation; it caches the bounds, so
/// [`get`](Self::get) is a comparison, two u16 loads, a range check and a slice.
#[derive(Debug, Clone, Copy)]
pub struct SlottedPage<'a> {
    page: &'a Page,
    count: usize,
    upper: usize,
    special: usize,
}

impl<'a> SlottedPage<'a> {
    /// Validates the header (invariant 1) and returns a read view.
    pub fn new(page: &'a Page) -> Result<SlottedPage<'a>, SlotError> {
        Ok(SlottedPage::with_bounds(page, Bounds::read(page)?))
    }

    fn with_bounds(page: &'a Page, bounds: Bounds) -> SlottedPage<'a> {
        SlottedPage {
            page,
            count: bounds.count(),
            upper: bounds.upper,
            special: bounds.special,
        }
    }

    /// The whole page, header included.
    pub fn page(&self) -> &'a Page {
        self.page
    }

    /// The number of slots (items).
    #[inline]
    pub fn count(&self) -> usize {
        self.count
    }

    /// The bytes of item `slot`.
    ///
    /// `OutOfRange` if `slot >= count()`; `Corrupt` if the slot points outside
    /// the item area `[upper, special)`.
    #[inline]
    pub fn get(&self, slot: usize) -> Result<&'a [u8], SlotError> {
        let range = self.item_range(slot)?;
        Ok(&self.page[range])
    }

    /// The byte range of item `slot`, checked against invariant 2.
    #[inline]
    fn item_range(&self, slot: usize) -> Result<Range<usize>, SlotError> {
        if slot >= self.count {
            return Err(SlotError::OutOfRange {
                slot,
                count: self.count,
            });
        }
        let (offset, len) = read_slot(self.page, slot);
        let end = offset + len;
        if offset < self.upper || end > self.special {
            return Err(self.slot_outside_item_area(slot, offset, len));
        }
        Ok(offset..end)
    }

    #[cold]
    fn slot_outside_item_area(&self, slot: usize, offset: usize, len: usize) -> SlotError {
        corrupt(format!(
            "slot {slot} (offset {offset}, len {len}) lies outside the item area [{}, {})",
            self.upper, self.special
        ))
    }

    /// Contiguous free bytes between the slot array and the items
    /// (`upper - lower`). A new item needs `len + SLOT_SIZE` of them.
    pub fn free_space(&self) -> usize {
        self.upper - self.lower()
    }

    /// Free bytes once the item area is compacted:
    /// `special - lower - sum(item lengths)`. A new item of `len` bytes fits
    /// iff `len + SLOT_SIZE <= free_space_after_compaction()`.
    ///
    /// O(count). On a page whose slots are corrupt the value means nothing
    /// (it saturates at 0); [`check_invariants`](Self::check_invariants) says why.
    pub fn free_space_after_compaction(&self) -> usize {
        let used: usize = (0..self.count)
            .map(|slot| read_slot(self.page, slot).1)
            .sum();
        (self.special - self.lower()).saturating_sub(used)
    }

    /// The largest item this page could hold if it were empty:
    /// `special - HEADER_SIZE - SLOT_SIZE`. Longer items get `TooLarge`.
    pub fn max_item_len(&self) -> usize {
        (self.special - HEADER_SIZE).saturating_sub(SLOT_SIZE)
    }

    /// The special area, `page[special..PAGE_SIZE]`.
    pub fn special(&self) -> &'a [u8] {
        &self.page[self.special..]
    }

    fn lower(&self) -> usize {
        slot_pos(self.count)
    }

    /// Checks invariants 1-4 against the page bytes. O(count log count); for
    /// tests and `verify()`, not for hot paths.
    pub fn check_invariants(&self) -> Result<(), SlotError> {
        let bounds = Bounds::read(self.page)?;
        if (bounds.count(), bounds.upper, bounds.special) != (self.count, self.upper, self.special)
        {
            // Impossible through a shared borrow unless the page is shared
            // memory written behind Rust's back; report it rather than trust it.
            return Err(corrupt(
                "header changed since the view was made".to_string(),
            ));
        }
        let mut items = Vec::with_capacity(self.count);
        for slot in 0..self.count {
            let range = self.item_range(slot)?;
            if !range.is_empty() {
                items.push((range, slot));
            }
        }
        items.sort_unstable_by_key(|(range, _)| range.start);
        for pair in items.windows(2) {
            let ((first, first_slot), (second, second_slot)) = (&pair[0], &pair[1]);
            if first.end > second.start {
                return Err(corrupt(format!(
                    "items of slots {first_slot} ({first:?}) and {second_slot} ({second:?}) overlap"
                )));
            }
        }
        // Invariant 4 follows from 2 and 3; checked anyway, it is what the
        // free-space accounting relies on.
        let used: usize = items.iter().map(|(range, _)| range.len()).sum();
        if used > self.special - self.upper {
            return Err(corrupt(format!(
                "items use {used} bytes, more than the item area's {}",
                self.special - self.upper
            )));
        }
        Ok(())
    }
}

/// Write access to a slotted page.
///
/// The page is reachable only through these methods (and the item and
/// special-area slices they hand out), so a view that passed validation
/// keeps invariant 1 for its whole life.
#[derive(Debug)]
pub struct SlottedPageMut<'a> {
    page: &'a mut Page,
}

impl<'a> SlottedPageMut<'a> {
    /// Validates the header (invariant 1) and returns a write view.
    pub fn new(page: &'a mut Page) -> Result<SlottedPageMut<'a>, SlotError> {
        Bounds::read(page)?;
        Ok(SlottedPageMut { page })
    }

    /// A read view of the same page (no re-validation).
    pub fn as_view(&self) -> SlottedPage<'_> {
        SlottedPage::with_bounds(self.page, self.bounds())
    }

    /// The whole page, header included.
    pub fn page(&self) -> &Page {
        self.page
    }

    fn bounds(&self) -> Bounds {
        let bounds = Bounds::read_unchecked(self.page);
        debug_assert!(
            Bounds::read(self.page).is_ok(),
            "invariant 1 broken by a mutation"
        );
        bounds
    }

    fn set_lower(&mut self, lower: usize) {
        write_u16(self.page, LOWER_OFFSET, lower);
    }

    fn set_upper(&mut self, upper: usize) {
        write_u16(self.page, UPPER_OFFSET, upper);
    }

    /// See [`SlottedPage::count`].
    pub fn count(&self) -> usize {
        self.bounds().count()
    }

    /// See [`SlottedPage::get`].
    pub fn get(&self, slot: usize) -> Result<&[u8], SlotError> {
        let range = self.as_view().item_range(slot)?;
        Ok(&self.page[range])
    }

    /// The bytes of item `slot`, writable in place (its length is fixed;
    /// use [`update`](Self::update) to change it).
    pub fn get_mut(&mut self, slot: usize) -> Result<&mut [u8], SlotError> {
        let range = self.as_view().item_range(slot)?;
        Ok(&mut self.page[range])
    }

    /// See [`SlottedPage::free_space`].
    pub fn free_space(&self) -> usize {
        self.as_view().free_space()
    }

    /// See [`SlottedPage::free_space_after_compaction`].
    pub fn free_space_after_compaction(&self) -> usize {
        self.as_view().free_space_after_compaction()
    }

    /// See [`SlottedPage::max_item_len`].
    pub fn max_item_len(&self) -> usize {
        self.as_view().max_item_len()
    }

    /// See [`SlottedPage::special`].
    pub fn special(&self) -> &[u8] {
        &self.page[self.bounds().special..]
    }

    /// The special area, writable.
    pub fn special_mut(&mut self) -> &mut [u8] {
        let special = self.bounds().special;
        &mut self.page[special..]
    }

    /// See [`SlottedPage::check_invariants`].
    pub fn check_invariants(&self) -> Result<(), SlotError> {
        self.as_view().check_invariants()
    }

    /// Appends an item after the last slot; returns its slot number.
    pub fn push(&mut self, data: &[u8]) -> Result<usize, SlotError> {
        let slot = self.count();
        self.insert_at(slot, data)?;
        Ok(slot)
    }

    /// Inserts an item as slot `slot` (`0..=count()`), shifting later slots
    /// up by one. Compacts first if only the fragmented free space suffices.
    /// On error the page is unchanged.
    pub fn insert_at(&mut self, slot: usize, data: &[u8]) -> Result<(), SlotError> {
        let view = self.as_view();
        let count = view.count();
        if slot > count {
            return Err(SlotError::OutOfRange { slot, count });
        }
        let max = view.max_item_len();
        if data.len() > max {
            return Err(SlotError::TooLarge {
                len: data.len(),
                max,
            });
        }
        self.make_room(data.len() + SLOT_SIZE, None)?;

        let Bounds { lower, upper, .. } = self.bounds();
        let offset = upper - data.len();
        assert!(
            lower + SLOT_SIZE <= offset,
            "make_room left too little room"
        );
        self.page[offset..upper].copy_from_slice(data);
        let pos = slot_pos(slot);
        self.page.copy_within(pos..lower, pos + SLOT_SIZE);
        write_slot(self.page, slot, offset, data.len());
        self.set_lower(lower + SLOT_SIZE);
        self.set_upper(offset);
        Ok(())
    }

    /// Replaces item `slot` with `data`. In place if `data` fits the old
    /// item; otherwise the item moves to new space (compacting first if
    /// needed) and the old bytes become reclaimable. On error the page is
    /// unchanged.
    pub fn update(&mut self, slot: usize, data: &[u8]) -> Result<(), SlotError> {
        let view = self.as_view();
        let max = view.max_item_len();
        let old = view.item_range(slot)?;
        if data.len() > max {
            return Err(SlotError::TooLarge {
                len: data.len(),
                max,
            });
        }
        if data.len() <= old.len() {
            let new = old.start..old.start + data.len();
            self.page[new.clone()].copy_from_slice(data);
            write_slot(self.page, slot, new.start, new.len());
            return Ok(());
        }
        self.make_room(data.len(), Some(slot))?;
        let Bounds { lower, upper, .. } = self.bounds();
        let offset = upper - data.len();
        assert!(lower <= offset, "make_room left too little room");
        self.page[offset..upper].copy_from_slice(data);
        write_slot(self.page, slot, offset, data.len());
        self.set_upper(offset);
        Ok(())
    }

    /// Removes slot `slot`, shifting later slots down by one. The item's
    /// bytes become reclaimable by compaction.
    pub fn delete(&mut self, slot: usize) -> Result<(), SlotError> {
        let Bounds { lower, .. } = self.bounds();
        let count = self.count();
        if slot >= count {
            return Err(SlotError::OutOfRange { slot, count });
        }
        let pos = slot_pos(slot);
        self.page.copy_within(pos + SLOT_SIZE..lower, pos);
        self.set_lower(lower - SLOT_SIZE);
        Ok(())
    }

    /// Defragments the item area: packs every item against `special`, slot 0
    /// highest, so all free space lies between `lower` and `upper`. Slot order
    /// and item bytes are unchanged; item offsets change. `Corrupt` (with the
    /// page unchanged) if a slot points outside the item area or the items
    /// claim more bytes than it holds.
    pub fn compact(&mut self) -> Result<(), SlotError> {
        let used = self.validated_item_bytes()?;
        let Bounds { upper, special, .. } = self.bounds();
        if used != special - upper {
            self.compact_validated();
        }
        Ok(())
    }

    /// Sum of item lengths, after checking each slot against invariant 2 and
    /// the sum against the space between `lower` and `special` (which is what
    /// compaction needs to be able to place every item).
    fn validated_item_bytes(&self) -> Result<usize, SlotError> {
        let view = self.as_view();
        let mut used = 0;
        for slot in 0..view.count() {
            used += view.item_range(slot)?.len();
        }
        let Bounds { lower, special, .. } = self.bounds();
        if used > special - lower {
            return Err(corrupt(format!(
                "items claim {used} bytes but only {} lie between the slots and the special area",
                special - lower
            )));
        }
        Ok(used)
    }

    /// Compaction of a page whose slots passed `validated_item_bytes`.
    fn compact_validated(&mut self) {
        let Bounds { lower, special, .. } = self.bounds();
        // Items are copied out of a snapshot, so overlapping moves (and even
        // overlapping items on a corrupt page) need no ordering argument.
        let snapshot: Page = *self.page;
        let mut top = special;
        for slot in 0..(lower - HEADER_SIZE) / SLOT_SIZE {
            let (offset, len) = read_slot(&snapshot, slot);
            top -= len;
            self.page[top..top + len].copy_from_slice(&snapshot[offset..offset + len]);
            write_slot(self.page, slot, top, len);
        }
        assert!(lower <= top, "validated items overflow the item area");
        self.set_upper(top);
    }

    /// Ensures at least `needed` contiguous free bytes between `lower` and
    /// `upper`, compacting if the total free space suffices. With
    /// `replacing = Some(slot)` the caller is about to move that (validated)
    /// item, so its bytes count as free and compaction drops them. On error
    /// the page is unchanged.
    fn make_room(&mut self, needed: usize, replacing: Option<usize>) -> Result<(), SlotError> {
        let Bounds {
            lower,
            upper,
            special,
        } = self.bounds();
        if upper - lower >= needed {
            return Ok(());
        }
        let used = self.validated_item_bytes()?;
        let reclaimed = replacing.map_or(0, |slot| read_slot(self.page, slot).1);
        let available = special - lower - used + reclaimed;
        if needed > available {
            return Err(SlotError::NoSpace { needed, available });
        }
        if let Some(slot) = replacing {
            let (offset, _) = read_slot(self.page, slot);
            write_slot(self.page, slot, offset, 0);
        }
        self.compact_validated();
        Ok(())
    }
}
