//! Model-based property test: a slotted page against a `Vec<Vec<u8>>`.

use folio_page::{
    HEADER_SIZE, PAGE_SIZE, PageType, SLOT_SIZE, SlotError, SlottedPage, SlottedPageMut, init_page,
};
use proptest::prelude::*;
use proptest::test_runner::{Config, RngSeed};

#[derive(Debug, Clone)]
enum Op {
    Push(Vec<u8>),
    /// Slot index taken modulo `count + 1` (or used raw when `raw`, to hit
    /// out-of-range errors).
    InsertAt(usize, bool, Vec<u8>),
    Update(usize, bool, Vec<u8>),
    Delete(usize, bool),
    Compact,
}

fn item() -> impl Strategy<Value = Vec<u8>> {
    // Mostly small items (many slots, B-tree-like), sometimes big ones so the
    // page fills, fragments and has to compact, rarely too big for any page.
    prop_oneof![
        4 => prop::collection::vec(any::<u8>(), 0..8),
        6 => prop::collection::vec(any::<u8>(), 8..40),
        3 => prop::collection::vec(any::<u8>(), 40..600),
        1 => prop::collection::vec(any::<u8>(), 600..3000),
        1 => prop::collection::vec(any::<u8>(), 8000..8200),
    ]
}

fn op(item: BoxedStrategy<Vec<u8>>) -> impl Strategy<Value = Op> {
    let raw = prop::bool::weighted(0.05);
    prop_oneof![
        3 => item.clone().prop_map(Op::Push),
        4 => (any::<usize>(), raw, item.clone()).prop_map(|(i, r, d)| Op::InsertAt(i, r, d)),
        4 => (any::<usize>(), raw, item).prop_map(|(i, r, d)| Op::Update(i, r, d)),
        3 => (any::<usize>(), raw).prop_map(|(i, r)| Op::Delete(i, r)),
        1 => Just(Op::Compact),
    ]
}

/// Operation sequences: most with mixed item sizes, some with only tiny
/// items and more of them, so pages reach hundreds of slots.
fn ops() -> impl Strategy<Value = Vec<Op>> {
    let tiny = prop::collection::vec(any::<u8>(), 0..12).boxed();
    prop_oneof![
        3 => prop::collection::vec(op(item().boxed()), 1..300),
        1 => prop::collection::vec(op(tiny), 1..1500),
    ]
}

/// What the model says the page must answer to `op` (the model already updated
/// on success).
struct Model {
    items: Vec<Vec<u8>>,
    special_start: usize,
}

impl Model {
    fn free_after_compaction(&self) -> usize {
        let used: usize = self.items.iter().map(Vec::len).sum();
        self.special_start - HEADER_SIZE - SLOT_SIZE * self.items.len() - used
    }

    fn max_item_len(&self) -> usize {
        self.special_start - HEADER_SIZE - SLOT_SIZE
    }

    fn insert(&mut self, slot: usize, data: &[u8]) -> Result<(), SlotError> {
        let count = self.items.len();
        if slot > count {
            return Err(SlotError::OutOfRange { slot, count });
        }
        let max = self.max_item_len();
        if data.len() > max {
            return Err(SlotError::TooLarge {
                len: data.len(),
                max,
            });
        }
        let available = self.free_after_compaction();
        if data.len() + SLOT_SIZE > available {
            return Err(SlotError::NoSpace {
                needed: data.len() + SLOT_SIZE,
                available,
            });
        }
        self.items.insert(slot, data.to_vec());
        Ok(())
    }

    fn update(&mut self, slot: usize, data: &[u8]) -> Result<(), SlotError> {
        let count = self.items.len();
        if slot >= count {
            return Err(SlotError::OutOfRange { slot, count });
        }
        let max = self.max_item_len();
        if data.len() > max {
            return Err(SlotError::TooLarge {
                len: data.len(),
                max,
            });
        }
        let available = self.free_after_compaction() + self.items[slot].len();
        if data.len() > self.items[slot].len() && data.len() > available {
            return Err(SlotError::NoSpace {
                needed: data.len(),
                available,
            });
        }
        self.items[slot] = data.to_vec();
        Ok(())
    }

    fn delete(&mut self, slot: usize) -> Result<(), SlotError> {
        let count = self.items.len();
        if slot >= count {
            return Err(SlotError::OutOfRange { slot, count });
        }
        self.items.remove(slot);
        Ok(())
    }
}

fn pick(index: usize, raw: bool, bound: usize) -> usize {
    if raw {
        index % (bound + 3)
    } else {
        index % bound.max(1)
    }
}

fn check_against_model(page: &SlottedPageMut<'_>, model: &Model, special: &[u8]) {
    page.check_invariants()
        .expect("invariants hold after every operation");
    assert_eq!(page.count(), model.items.len());
    for (slot, expected) in model.items.iter().enumerate() {
        assert_eq!(
            page.get(slot).expect("slot readable"),
            expected.as_slice(),
            "slot {slot}"
        );
    }
    assert_eq!(
        page.free_space_after_compaction(),
        model.free_after_compaction()
    );
    assert!(page.free_space() <= page.free_space_after_compaction());
    assert_eq!(page.special(), special, "special area untouched");
    // The read view constructed from scratch agrees with the write view.
    let view = SlottedPage::new(page.page()).expect("header valid");
    assert_eq!(view.count(), model.items.len());
}

proptest! {
    #![proptest_config(Config {
        cases: 512,
        rng_seed: RngSeed::Fixed(0x0510_77ED),
        failure_persistence: None,
        ..Config::default()
    })]

    // Proves that push/insert_at/update/delete/compact behave exactly like the
    // same operations on a Vec<Vec<u8>> (same items, same errors, same free
    // space after compaction), that the page's invariants hold after every
    // step, and that no operation touches the special area.
    #[test]
    fn slotted_page_matches_vec_model(
        special_size in prop_oneof![Just(0usize), Just(16), 1usize..200],
        ops in ops(),
    ) {
        let mut bytes = [0u8; PAGE_SIZE];
        init_page(&mut bytes, PageType::BtreeLeaf, special_size);
        let mut page = SlottedPageMut::new(&mut bytes).expect("fresh page is valid");
        for (i, b) in page.special_mut().iter_mut().enumerate() {
            *b = i as u8 ^ 0xA5;
        }
        let special = page.special().to_vec();
        let mut model = Model { items: Vec::new(), special_start: PAGE_SIZE - special.len() };
        for op in ops {
            let count = model.items.len();
            let (got, expected) = match op {
                Op::Push(data) => {
                    let got = page.push(&data);
                    let expected = model.insert(count, &data).map(|()| count);
                    (got.map(|_| ()), expected.map(|_| ()))
                }
                Op::InsertAt(i, raw, data) => {
                    let slot = pick(i, raw, count + 1);
                    (page.insert_at(slot, &data), model.insert(slot, &data))
                }
                Op::Update(i, raw, data) => {
                    let slot = pick(i, raw, count);
                    (page.update(slot, &data), model.update(slot, &data))
                }
                Op::Delete(i, raw) => {
                    let slot = pick(i, raw, count);
                    (page.delete(slot), model.delete(slot))
                }
                Op::Compact => {
                    let got = page.compact();
                    prop_assert_eq!(page.free_space(), page.free_space_after_compaction());
                    (got, Ok(()))
                }
            };
            prop_assert_eq!(got, expected);
            check_against_model(&page, &model, &special);
        }
    }
}
