//! Corrupt and torn pages: every header or slot that breaks the layout is an
//! error value, never a panic, and never makes a valid page invalid.

mod common;

use folio_page::{
    HEADER_SIZE, LAYOUT_VERSION_OFFSET, LOWER_OFFSET, PAGE_SIZE, Page, PageType, RESERVED_OFFSET,
    SLOT_SIZE, SPECIAL_OFFSET, SlotError, SlottedPage, SlottedPageMut, UPPER_OFFSET, init_page,
};
use proptest::prelude::*;
use proptest::test_runner::{Config, RngSeed};

fn put_u16(page: &mut Page, offset: usize, value: u16) {
    page[offset..offset + 2].copy_from_slice(&value.to_le_bytes());
}

fn is_corrupt<T: std::fmt::Debug>(result: Result<T, SlotError>) -> bool {
    matches!(result, Err(SlotError::Corrupt { .. }))
}

/// One mutation applied by `exercise`.
type Step = dyn Fn(&mut SlottedPageMut<'_>) -> Result<(), SlotError>;

/// One way to break a header.
type Corruption = fn(&mut Page);

/// Calls every read accessor and every mutation on `page` (mutations on a
/// copy). Panics only if the page code panics or if a page that passed
/// `check_invariants` misbehaves: then every item must be readable and every
/// mutation must keep the invariants.
fn exercise(page: &Page) {
    let Ok(view) = SlottedPage::new(page) else {
        let mut copy = *page;
        assert!(
            is_corrupt(SlottedPageMut::new(&mut copy)),
            "read and write views disagree"
        );
        return;
    };
    let valid = view.check_invariants().is_ok();
    let count = view.count();
    assert!(count <= folio_page::MAX_SLOTS);
    for slot in 0..count + 2 {
        let item = view.get(slot);
        if slot >= count {
            assert_eq!(item, Err(SlotError::OutOfRange { slot, count }));
        } else if valid {
            item.expect("a page that passed check_invariants has readable items");
        }
    }
    assert!(view.free_space() <= PAGE_SIZE);
    assert!(view.free_space_after_compaction() <= PAGE_SIZE);
    assert!(view.max_item_len() < PAGE_SIZE);
    assert!(view.special().len() <= PAGE_SIZE - HEADER_SIZE);

    let mut copy = *page;
    let mut s = SlottedPageMut::new(&mut copy).expect("read view accepted this header");
    let steps: [&Step; 10] = [
        &|s| s.push(&[1; 7]).map(|_| ()),
        &|s| s.insert_at(0, &[2; 300]),
        &|s| s.update(0, &[3; 2]),
        &|s| s.update(s.count().saturating_sub(1), &[4; 1200]),
        &|s| s.delete(s.count() / 2),
        &|s| s.compact(),
        &|s| s.get_mut(0).map(|item| item.fill(5)),
        &|s| {
            s.special_mut().fill(6);
            Ok(())
        },
        &|s| s.insert_at(s.count(), &[7; 3000]),
        &|s| s.update(1, &[]),
    ];
    for step in steps {
        let before = *s.page();
        let result = step(&mut s);
        if valid {
            s.check_invariants()
                .expect("mutations keep a valid page valid");
        }
        if matches!(
            result,
            Err(SlotError::Corrupt { .. } | SlotError::NoSpace { .. })
        ) {
            assert_eq!(s.page(), &before, "a failed operation changed the page");
        }
    }
}

/// Header fields that are valid about half the time, so fuzzing gets past
/// header validation and into the slots.
fn header() -> impl Strategy<Value = (u8, u16, u16, u16, u16)> {
    let version = prop_oneof![8 => Just(1u8), 1 => any::<u8>()];
    let reserved = prop_oneof![8 => Just(0u16), 1 => any::<u16>()];
    let valid_bounds = (0usize..=200, 0usize..=8000, 0usize..=1000).prop_map(|(n, gap, sp)| {
        let special = PAGE_SIZE - (sp * 8).min(PAGE_SIZE - HEADER_SIZE);
        let lower = (HEADER_SIZE + n * SLOT_SIZE).min(special);
        let lower = lower - (lower - HEADER_SIZE) % SLOT_SIZE;
        let upper = (lower + gap).min(special);
        (lower as u16, upper as u16, special as u16)
    });
    let any_bounds = (
        prop_oneof![any::<u16>(), 0u16..=PAGE_SIZE as u16],
        prop_oneof![any::<u16>(), 0u16..=PAGE_SIZE as u16],
        prop_oneof![any::<u16>(), 0u16..=PAGE_SIZE as u16 + 8],
    );
    let bounds = prop_oneof![valid_bounds, any_bounds];
    (version, reserved, bounds).prop_map(|(v, r, (l, u, s))| (v, r, l, u, s))
}

/// Small slot values: offsets near the item area and short lengths, so some
/// random slots are in bounds and some overlap.
fn slot_bytes() -> impl Strategy<Value = Vec<(u16, u16)>> {
    prop::collection::vec((7000u16..=8200, 0u16..300), 0..200)
}

proptest! {
    #![proptest_config(Config {
        cases: 2000,
        rng_seed: RngSeed::Fixed(0x0C02_20B7),
        failure_persistence: None,
        ..Config::default()
    })]

    // Proves arbitrary bytes (with plausible headers and slots) never make
    // SlottedPage::new, any accessor or any mutation panic, that read and
    // write views accept the same headers, and that a page passing
    // check_invariants keeps passing through every mutation.
    #[test]
    fn arbitrary_pages_never_panic(
        body in prop::collection::vec(any::<u8>(), PAGE_SIZE),
        (version, reserved, lower, upper, special) in header(),
        slots in slot_bytes(),
    ) {
        let mut page: Page = body.try_into().expect("PAGE_SIZE bytes");
        exercise(&page);
        page[LAYOUT_VERSION_OFFSET] = version;
        put_u16(&mut page, RESERVED_OFFSET, reserved);
        put_u16(&mut page, LOWER_OFFSET, lower);
        put_u16(&mut page, UPPER_OFFSET, upper);
        put_u16(&mut page, SPECIAL_OFFSET, special);
        for (i, (offset, len)) in slots.into_iter().enumerate() {
            let pos = HEADER_SIZE + i * SLOT_SIZE;
            put_u16(&mut page, pos, offset);
            put_u16(&mut page, pos + 2, len);
        }
        exercise(&page);
    }

    // Proves a valid, full page torn or scribbled on (random byte runs
    // overwritten, as in a torn write or a torn optimistic copy) never makes
    // any accessor or mutation panic.
    #[test]
    fn torn_pages_never_panic(
        seed in any::<u64>(),
        scribbles in prop::collection::vec(
            (0usize..PAGE_SIZE, prop::collection::vec(any::<u8>(), 1..64)), 1..6),
    ) {
        let mut page = common::full_page(seed);
        exercise(&page);
        for (at, bytes) in scribbles {
            let end = (at + bytes.len()).min(PAGE_SIZE);
            page[at..end].copy_from_slice(&bytes[..end - at]);
            exercise(&page);
        }
    }
}

fn valid_page() -> Page {
    let mut page = [0u8; PAGE_SIZE];
    init_page(&mut page, PageType::BtreeInner, 8);
    let mut s = SlottedPageMut::new(&mut page).unwrap();
    for i in 0..10u8 {
        s.push(&[i; 100]).unwrap();
    }
    s.delete(3).unwrap();
    page
}

// Proves each way a header can break invariant 1 is rejected by both views
// with a Corrupt error, and that a never-written (zero) page is one of them.
#[test]
fn each_bad_header_is_rejected() {
    let cases: [(&str, Corruption); 9] = [
        ("zero page", |p| p.fill(0)),
        ("layout version", |p| p[LAYOUT_VERSION_OFFSET] = 2),
        ("reserved", |p| put_u16(p, RESERVED_OFFSET, 1)),
        ("lower below header", |p| {
            put_u16(p, LOWER_OFFSET, HEADER_SIZE as u16 - 4)
        }),
        ("lower above upper", |p| {
            put_u16(p, LOWER_OFFSET, PAGE_SIZE as u16 - 8)
        }),
        ("upper above special", |p| {
            put_u16(p, UPPER_OFFSET, PAGE_SIZE as u16 - 4)
        }),
        ("special past page", |p| {
            put_u16(p, SPECIAL_OFFSET, PAGE_SIZE as u16 + 8)
        }),
        ("lower misaligned", |p| {
            put_u16(p, LOWER_OFFSET, HEADER_SIZE as u16 + 2)
        }),
        ("special misaligned", |p| {
            put_u16(p, UPPER_OFFSET, PAGE_SIZE as u16 - 4);
            put_u16(p, SPECIAL_OFFSET, PAGE_SIZE as u16 - 4);
        }),
    ];
    for (name, corrupt) in cases {
        let mut page = valid_page();
        corrupt(&mut page);
        assert!(
            is_corrupt(SlottedPage::new(&page)),
            "{name}: read view accepted it"
        );
        assert!(
            is_corrupt(SlottedPageMut::new(&mut page)),
            "{name}: write view accepted it"
        );
    }
}

// Proves a slot pointing outside the item area is reported by get, by
// check_invariants and by compact (which then leaves the page unchanged),
// while the other slots stay readable.
#[test]
fn bad_slot_is_an_error_and_the_rest_still_reads() {
    let mut page = valid_page();
    put_u16(&mut page, HEADER_SIZE + 2 * SLOT_SIZE + 2, 9000);
    let view = SlottedPage::new(&page).unwrap();
    assert!(is_corrupt(view.get(2)));
    assert_eq!(view.get(1), Ok(&[1u8; 100][..]));
    assert!(is_corrupt(view.check_invariants()));
    let before = page;
    let mut s = SlottedPageMut::new(&mut page).unwrap();
    assert!(is_corrupt(s.compact()));
    // An insert that needs compaction discovers the corruption too.
    let needs_compaction = s.free_space() + 1;
    assert!(is_corrupt(s.push(&vec![0; needs_compaction])));
    assert_eq!(page, before);
}
