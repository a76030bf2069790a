//! Slotted-page operations, one behaviour per test.

mod common;

use folio_page::{
    HEADER_SIZE, PAGE_SIZE, Page, PageType, SLOT_SIZE, SlotError, SlottedPage, SlottedPageMut,
    header_lower, header_upper, init_page,
};

const SPECIAL: usize = 16;

fn fresh() -> Page {
    let mut page = [0u8; PAGE_SIZE];
    init_page(&mut page, PageType::BtreeLeaf, SPECIAL);
    page
}

fn items(page: &Page) -> Vec<Vec<u8>> {
    let view = SlottedPage::new(page).unwrap();
    (0..view.count())
        .map(|i| view.get(i).unwrap().to_vec())
        .collect()
}

// Proves a fresh page is empty with the documented free space and limits.
#[test]
fn fresh_page_is_empty() {
    let page = fresh();
    let view = SlottedPage::new(&page).unwrap();
    assert_eq!(view.count(), 0);
    assert_eq!(view.free_space(), PAGE_SIZE - SPECIAL - HEADER_SIZE);
    assert_eq!(view.free_space_after_compaction(), view.free_space());
    assert_eq!(
        view.max_item_len(),
        PAGE_SIZE - SPECIAL - HEADER_SIZE - SLOT_SIZE
    );
    assert_eq!(view.special(), &[0u8; SPECIAL]);
    assert_eq!(
        view.get(0),
        Err(SlotError::OutOfRange { slot: 0, count: 0 })
    );
    view.check_invariants().unwrap();
}

// Proves push appends, insert_at places an item before the given slot and
// shifts later slots, and each item's bytes come back unchanged.
#[test]
fn push_and_insert_at_keep_slot_order() {
    let mut page = fresh();
    let mut s = SlottedPageMut::new(&mut page).unwrap();
    assert_eq!(s.push(b"b"), Ok(0));
    assert_eq!(s.push(b"d"), Ok(1));
    s.insert_at(0, b"a").unwrap();
    s.insert_at(2, b"c").unwrap();
    s.insert_at(4, b"e").unwrap();
    assert_eq!(
        s.insert_at(6, b"x"),
        Err(SlotError::OutOfRange { slot: 6, count: 5 })
    );
    s.check_invariants().unwrap();
    assert_eq!(items(&page), [b"a", b"b", b"c", b"d", b"e"]);
    assert_eq!(header_lower(&page), HEADER_SIZE + 5 * SLOT_SIZE);
    assert_eq!(header_upper(&page), PAGE_SIZE - SPECIAL - 5);
}

// Proves delete removes exactly one slot and shifts the later ones down.
#[test]
fn delete_shifts_later_slots() {
    let mut page = fresh();
    let mut s = SlottedPageMut::new(&mut page).unwrap();
    for item in [b"a", b"b", b"c", b"d"] {
        s.push(item).unwrap();
    }
    s.delete(1).unwrap();
    s.delete(2).unwrap();
    assert_eq!(
        s.delete(2),
        Err(SlotError::OutOfRange { slot: 2, count: 2 })
    );
    s.check_invariants().unwrap();
    assert_eq!(items(&page), [b"a", b"c"]);
}

// Proves an update that fits the old item stays in place (no space used) and
// a larger one relocates, leaving a hole that only compaction reclaims.
#[test]
fn update_in_place_or_relocated() {
    let mut page = fresh();
    let mut s = SlottedPageMut::new(&mut page).unwrap();
    s.push(b"hello").unwrap();
    s.push(b"world").unwrap();
    let free = s.free_space();
    s.update(0, b"HeLLo").unwrap();
    s.update(1, b"wor").unwrap();
    assert_eq!(s.free_space(), free, "in-place updates take no new space");
    assert_eq!(s.free_space_after_compaction(), free + 2);
    s.update(0, b"hello, world").unwrap();
    assert_eq!(s.free_space(), free - 12);
    assert_eq!(s.free_space_after_compaction(), free + 2 - 7);
    s.check_invariants().unwrap();
    s.compact().unwrap();
    assert_eq!(s.free_space(), s.free_space_after_compaction());
    assert_eq!(items(&page), [&b"hello, world"[..], b"wor"]);
}

// Proves compaction packs items against the special area in slot order,
// preserving every item and the special area, and is idempotent.
#[test]
fn compact_reclaims_holes_and_keeps_order() {
    let mut page = fresh();
    let mut s = SlottedPageMut::new(&mut page).unwrap();
    s.special_mut().copy_from_slice(&[7u8; SPECIAL]);
    for i in 0..50u8 {
        s.push(&[i; 30]).unwrap();
    }
    for i in (0..50).rev().step_by(2) {
        s.delete(i).unwrap();
    }
    let before_total = s.free_space_after_compaction();
    assert!(s.free_space() < before_total);
    s.compact().unwrap();
    assert_eq!(s.free_space(), before_total);
    assert_eq!(s.free_space_after_compaction(), before_total);
    s.check_invariants().unwrap();
    let snapshot = *s.page();
    s.compact().unwrap();
    assert_eq!(
        s.page(),
        &snapshot,
        "compacting a compact page changes nothing"
    );
    assert_eq!(s.special(), &[7u8; SPECIAL]);
    let expected: Vec<Vec<u8>> = (0..50u8)
        .filter(|i| i % 2 == 0)
        .map(|i| vec![i; 30])
        .collect();
    assert_eq!(items(&page), expected);
    // Slot 0 is highest in the page after compaction.
    let view = SlottedPage::new(&page).unwrap();
    assert_eq!(
        view.get(0).unwrap().as_ptr() as usize - page.as_ptr() as usize,
        PAGE_SIZE - SPECIAL - 30
    );
}

// Proves insert and update compact on their own when the fragmented free
// space suffices but the contiguous space does not.
#[test]
fn insert_and_update_compact_when_needed() {
    let mut page = fresh();
    let mut s = SlottedPageMut::new(&mut page).unwrap();
    // Four items that fill the page exactly.
    let big = (s.max_item_len() - 3 * SLOT_SIZE) / 4;
    for i in 0..4u8 {
        s.push(&vec![i; big]).unwrap();
    }
    assert_eq!(s.free_space_after_compaction(), 0);
    s.delete(1).unwrap();
    assert!(s.free_space() < big, "the hole is not contiguous");
    s.insert_at(1, &vec![9; big - 100]).unwrap();
    s.update(1, &vec![8; big - 50]).unwrap();
    s.check_invariants().unwrap();
    assert_eq!(
        items(&page),
        [vec![0; big], vec![8; big - 50], vec![2; big], vec![3; big]]
    );
}

// Proves NoSpace and TooLarge leave the page byte-for-byte unchanged, with
// the documented needed/available figures, and that an exact fit succeeds.
#[test]
fn failed_operations_change_nothing() {
    let mut page = fresh();
    let mut s = SlottedPageMut::new(&mut page).unwrap();
    let max = s.max_item_len();
    assert_eq!(
        s.push(&vec![0; max + 1]),
        Err(SlotError::TooLarge { len: max + 1, max })
    );
    for i in 1..=3 {
        s.push(&vec![i; 1000]).unwrap();
    }
    s.delete(0).unwrap();
    let total = s.free_space_after_compaction();
    let snapshot = *s.page();
    assert_eq!(
        s.push(&vec![3; total - SLOT_SIZE + 1]),
        Err(SlotError::NoSpace {
            needed: total + 1,
            available: total
        })
    );
    assert_eq!(
        s.update(0, &vec![3; total + 1000 + 1]),
        Err(SlotError::NoSpace {
            needed: total + 1001,
            available: total + 1000
        })
    );
    assert_eq!(
        s.update(0, &vec![0; max + 1]),
        Err(SlotError::TooLarge { len: max + 1, max })
    );
    assert_eq!(
        s.update(2, b"x"),
        Err(SlotError::OutOfRange { slot: 2, count: 2 })
    );
    assert_eq!(s.page(), &snapshot);
    // Exact fits.
    s.update(0, &vec![4; total + 1000 - 10]).unwrap();
    s.push(&[5; 10 - SLOT_SIZE]).unwrap();
    assert_eq!(s.free_space_after_compaction(), 0);
    assert_eq!(
        s.push(b""),
        Err(SlotError::NoSpace {
            needed: SLOT_SIZE,
            available: 0
        })
    );
    s.check_invariants().unwrap();
}

// Proves the largest item fits an empty page exactly, and so do MAX_SLOTS
// zero-length items on a page without a special area.
#[test]
fn limits_fit_exactly() {
    let mut page = fresh();
    let mut s = SlottedPageMut::new(&mut page).unwrap();
    let max = s.max_item_len();
    s.push(&vec![0xEE; max]).unwrap();
    assert_eq!(s.free_space(), 0);
    s.check_invariants().unwrap();

    let mut page = [0u8; PAGE_SIZE];
    init_page(&mut page, PageType::Raw, 0);
    let mut s = SlottedPageMut::new(&mut page).unwrap();
    for _ in 0..folio_page::MAX_SLOTS {
        s.push(b"").unwrap();
    }
    assert_eq!(s.free_space(), 0);
    assert!(matches!(s.push(b""), Err(SlotError::NoSpace { .. })));
    s.check_invariants().unwrap();
    s.compact().unwrap();
    assert_eq!(s.count(), folio_page::MAX_SLOTS);
}

// Proves get_mut edits an item in place and special_mut only the special area.
#[test]
fn get_mut_and_special_mut_write_in_place() {
    let mut page = fresh();
    let mut s = SlottedPageMut::new(&mut page).unwrap();
    s.push(b"abc").unwrap();
    s.get_mut(0).unwrap().copy_from_slice(b"xyz");
    s.special_mut().fill(0x42);
    assert_eq!(s.get(0), Ok(&b"xyz"[..]));
    assert_eq!(s.as_view().special(), &[0x42; SPECIAL]);
    assert!(matches!(s.get_mut(1), Err(SlotError::OutOfRange { .. })));
    s.check_invariants().unwrap();
}

// Proves check_invariants reports overlapping items, which per-slot bounds
// checks cannot see.
#[test]
fn check_invariants_finds_overlap() {
    let mut page = fresh();
    let mut s = SlottedPageMut::new(&mut page).unwrap();
    s.push(b"0123456789").unwrap();
    s.push(b"abcdefghij").unwrap();
    // Point slot 1 into the middle of item 0.
    let item0 = header_upper(&page) + 10;
    let pos = HEADER_SIZE + SLOT_SIZE;
    page[pos..pos + 2].copy_from_slice(&u16::try_from(item0 - 5).unwrap().to_le_bytes());
    let view = SlottedPage::new(&page).unwrap();
    let err = view.check_invariants().unwrap_err();
    assert!(
        matches!(&err, SlotError::Corrupt { reason } if reason.contains("overlap")),
        "{err}"
    );
}
