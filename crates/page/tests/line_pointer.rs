//! The line-pointer page: stable item ids through every change and through
//! compaction, the four line-pointer states, free-space accounting, a
//! model-based property test against a reference model, and corrupt pages
//! reported, never panicking.

mod common;

use common::SplitMix64;
use folio_page::{
    FLAG_HAS_FREE_LINES, FLAGS_OFFSET, HEADER_SIZE, ItemId, LINE_POINTER_SIZE, LinePointerPage,
    LinePointerPageMut, LineState, LpError, PAGE_SIZE, Page, PageType, header_flags, init_page,
};
use proptest::prelude::*;

const SPECIAL: usize = 16;

fn fresh() -> Box<Page> {
    let mut page = Box::new([0u8; PAGE_SIZE]);
    init_page(&mut page, PageType::Raw, SPECIAL);
    page
}

// Proves ids are handed out in order, stay valid through deletes of other
// items, and survive compaction with their bytes; Dead and Redirect keep
// their ids taken; Unused ids are reused (the hint says when to look) and
// trailing Unused pointers are cut off.
#[test]
fn ids_are_stable_and_reused_only_when_unused() {
    let mut page = fresh();
    let mut lp = LinePointerPageMut::new(&mut page).unwrap();
    let ids: Vec<ItemId> = (0..5u8).map(|i| lp.add(&[i; 100]).unwrap()).collect();
    assert_eq!(ids, (0..5).map(ItemId).collect::<Vec<_>>());
    lp.set_dead(ids[1]).unwrap();
    lp.set_redirect(ids[2], ids[4]).unwrap();
    lp.compact().unwrap();
    let view = lp.as_view();
    assert_eq!(view.get(ids[0]).unwrap(), &[0u8; 100]);
    assert_eq!(view.get(ids[3]).unwrap(), &[3u8; 100]);
    assert_eq!(view.state(ids[1]).unwrap(), LineState::Dead);
    assert_eq!(view.state(ids[2]).unwrap(), LineState::Redirect(ids[4]));
    assert_eq!(view.resolve(ids[2]).unwrap(), ids[4]);
    assert_eq!(
        view.contiguous_free(),
        PAGE_SIZE - SPECIAL - HEADER_SIZE - 5 * LINE_POINTER_SIZE - 3 * 100,
        "compaction reclaimed the dead item's bytes"
    );
    view.check_invariants().unwrap();
    // A dead id is not reused until it is unused.
    assert_eq!(lp.add(b"next").unwrap(), ItemId(5));
    lp.set_unused(ids[1]).unwrap();
    assert_ne!(header_flags(lp.page()) & FLAG_HAS_FREE_LINES, 0);
    assert_eq!(lp.add(b"reused").unwrap(), ids[1]);
    // The hint may stay set after a reuse; the next add looks, finds no
    // unused pointer, appends, and clears it.
    assert_eq!(lp.add(b"appended").unwrap(), ItemId(6));
    assert_eq!(header_flags(lp.page()) & FLAG_HAS_FREE_LINES, 0);
    lp.set_unused(ItemId(6)).unwrap();
    // A redirect target cannot die while it is targeted.
    assert!(matches!(
        lp.set_dead(ids[4]),
        Err(LpError::NotNormal { .. })
    ));
    // Trailing unused pointers are cut off.
    lp.set_unused(ItemId(5)).unwrap();
    assert_eq!(lp.as_view().count(), 5);
    lp.as_view().check_invariants().unwrap();
}

// Proves replace keeps the id for a shorter, equal or longer value
// (compacting when needed), and NoSpace/TooLarge leave the page unchanged.
#[test]
fn replace_keeps_the_id_and_failures_change_nothing() {
    let mut page = fresh();
    let mut lp = LinePointerPageMut::new(&mut page).unwrap();
    let a = lp.add(&[1; 3000]).unwrap();
    let b = lp.add(&[2; 3000]).unwrap();
    lp.replace(a, &[3; 10]).unwrap();
    assert_eq!(lp.as_view().get(a).unwrap(), &[3; 10]);
    // Needs compaction: the old 3000 bytes of `a` are fragmentation.
    lp.replace(b, &[4; 5000]).unwrap();
    assert_eq!(lp.as_view().get(b).unwrap(), &[4; 5000][..]);
    assert_eq!(lp.as_view().get(a).unwrap(), &[3; 10]);
    lp.as_view().check_invariants().unwrap();
    let before = *lp.page();
    let max = lp.as_view().max_item_len();
    assert!(matches!(
        lp.replace(a, &vec![0; max + 1]),
        Err(LpError::TooLarge { .. })
    ));
    assert!(matches!(
        lp.replace(a, &vec![0; 4000]),
        Err(LpError::NoSpace { .. })
    ));
    assert!(matches!(
        lp.add(&vec![0; 4000]),
        Err(LpError::NoSpace { .. })
    ));
    assert_eq!(
        *lp.page(),
        before,
        "failed changes leave the page as it was"
    );
}

// Proves a page can be filled to the last byte: the largest item fits an
// empty page, and a full page reports NoSpace with what it has.
#[test]
fn the_largest_item_fits_and_a_full_page_says_so() {
    let mut page = fresh();
    let mut lp = LinePointerPageMut::new(&mut page).unwrap();
    let max = lp.as_view().max_item_len();
    assert_eq!(max, PAGE_SIZE - SPECIAL - HEADER_SIZE - LINE_POINTER_SIZE);
    let id = lp.add(&vec![7; max]).unwrap();
    assert_eq!(lp.as_view().contiguous_free(), 0);
    assert!(matches!(
        lp.add(b""),
        Err(LpError::NoSpace {
            needed: 4,
            available: 0
        })
    ));
    lp.set_dead(id).unwrap();
    lp.set_unused(id).unwrap();
    assert_eq!(lp.as_view().count(), 0);
}

/// The reference model: one entry per line pointer.
#[derive(Debug, Clone, PartialEq)]
enum Model {
    Unused,
    Normal(Vec<u8>),
    Redirect(u16),
    Dead,
}

#[derive(Debug, Clone)]
enum Op {
    Add(usize),
    Replace(u16, usize),
    Dead(u16),
    Redirect(u16, u16),
    Unused(u16),
    Compact,
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        4 => (0usize..600).prop_map(Op::Add),
        2 => (0u16..40, 0usize..900).prop_map(|(i, n)| Op::Replace(i, n)),
        1 => (0u16..40).prop_map(Op::Dead),
        1 => (0u16..40, 0u16..40).prop_map(|(i, t)| Op::Redirect(i, t)),
        1 => (0u16..40).prop_map(Op::Unused),
        1 => Just(Op::Compact),
    ]
}

fn bytes(seed: usize, len: usize) -> Vec<u8> {
    let mut rng = SplitMix64(seed as u64);
    let mut v = vec![0u8; len];
    rng.fill(&mut v);
    v
}

/// What the model says an operation does; `None` when the page must
/// refuse it for a state reason (space refusals are checked separately).
fn expect(model: &[Model], op: &Op) -> Option<()> {
    let targeted = |id: u16| model.contains(&Model::Redirect(id));
    let get = |id: u16| model.get(usize::from(id));
    match *op {
        Op::Add(_) | Op::Compact => Some(()),
        Op::Replace(id, _) => matches!(get(id), Some(Model::Normal(_))).then_some(()),
        Op::Dead(id) | Op::Unused(id) => (get(id).is_some() && !targeted(id)).then_some(()),
        Op::Redirect(id, t) => (get(id).is_some()
            && matches!(get(t), Some(Model::Normal(_)))
            && id != t
            && !targeted(id))
        .then_some(()),
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    // Proves, against the model, after every operation: every pointer's
    // state and every item's bytes match, the invariants hold, and a
    // refused operation changed nothing. Ids never move.
    #[test]
    fn the_page_matches_the_model(ops in prop::collection::vec(op(), 1..120)) {
        let mut page = fresh();
        let mut model: Vec<Model> = Vec::new();
        for (step, op) in ops.iter().enumerate() {
            let before = *page;
            let mut lp = LinePointerPageMut::new(&mut page).unwrap();
            let result: Result<(), LpError> = match *op {
                Op::Add(n) => lp.add(&bytes(step, n)).map(|id| {
                    let index = usize::from(id.0);
                    if index == model.len() {
                        model.push(Model::Normal(bytes(step, n)));
                    } else {
                        assert_eq!(model[index], Model::Unused, "reused a used id");
                        model[index] = Model::Normal(bytes(step, n));
                    }
                }),
                Op::Replace(id, n) => lp.replace(ItemId(id), &bytes(step, n)),
                Op::Dead(id) => lp.set_dead(ItemId(id)),
                Op::Redirect(id, t) => lp.set_redirect(ItemId(id), ItemId(t)),
                Op::Unused(id) => lp.set_unused(ItemId(id)),
                Op::Compact => lp.compact(),
            };
            let allowed = expect(&model, op);
            match (&result, op) {
                (Ok(()), Op::Add(_)) => {}
                (Ok(()), _) => {
                    prop_assert!(allowed.is_some(), "step {step}: {op:?} accepted");
                    match *op {
                        Op::Replace(id, n) => model[usize::from(id)] = Model::Normal(bytes(step, n)),
                        Op::Dead(id) => model[usize::from(id)] = Model::Dead,
                        Op::Redirect(id, t) => model[usize::from(id)] = Model::Redirect(t),
                        Op::Unused(id) => {
                            model[usize::from(id)] = Model::Unused;
                            while model.last() == Some(&Model::Unused) {
                                model.pop();
                            }
                        }
                        _ => {}
                    }
                }
                (Err(LpError::NoSpace { .. } | LpError::TooLarge { .. }), Op::Add(_) | Op::Replace(..)) => {
                    prop_assert!(page[..] == before[..], "step {}: refused {:?} changed the page", step, op);
                }
                (Err(e), _) => {
                    prop_assert!(allowed.is_none(), "step {step}: {op:?} refused: {e}");
                    prop_assert!(page[..] == before[..], "step {}: refused {:?} changed the page", step, op);
                }
            }
            let view = LinePointerPage::new(&page).unwrap();
            view.check_invariants().unwrap();
            prop_assert_eq!(view.count(), model.len());
            for (index, m) in model.iter().enumerate() {
                let id = ItemId(index as u16);
                match m {
                    Model::Normal(data) => prop_assert_eq!(view.get(id).unwrap(), &data[..]),
                    Model::Redirect(t) => prop_assert_eq!(view.state(id).unwrap(), LineState::Redirect(ItemId(*t))),
                    Model::Dead => prop_assert_eq!(view.state(id).unwrap(), LineState::Dead),
                    Model::Unused => prop_assert_eq!(view.state(id).unwrap(), LineState::Unused),
                }
            }
        }
    }
}

// Proves corrupt pages are errors, never panics: bad header bounds, a
// pointer outside the item area, a malformed state, a redirect to itself
// or out of range, overlapping items (found by check_invariants), and
// mutations of such pages refuse and leave them unchanged.
#[test]
fn corrupt_pages_are_errors() {
    let mut good = fresh();
    {
        let mut lp = LinePointerPageMut::new(&mut good).unwrap();
        for i in 0..4u8 {
            lp.add(&[i; 50]).unwrap();
        }
    }
    let corrupt = |f: &dyn Fn(&mut Page)| {
        let mut page = good.clone();
        f(&mut page);
        page
    };
    let lp_at = |i: usize| HEADER_SIZE + i * LINE_POINTER_SIZE;
    let cases: Vec<Box<Page>> = vec![
        corrupt(&|p| p[16] = 3), // lower misaligned
        corrupt(&|p| p[18..20].copy_from_slice(&9000u16.to_le_bytes())), // upper past the page
        corrupt(&|p| {
            p[lp_at(1)..lp_at(1) + 4].copy_from_slice(&(10u32 | 1 << 15 | 5 << 17).to_le_bytes())
        }),
        corrupt(&|p| p[lp_at(2)..lp_at(2) + 4].copy_from_slice(&(7u32).to_le_bytes())),
        corrupt(&|p| p[lp_at(2)..lp_at(2) + 4].copy_from_slice(&(2u32 | 2 << 15).to_le_bytes())),
        corrupt(&|p| p[lp_at(2)..lp_at(2) + 4].copy_from_slice(&(99u32 | 2 << 15).to_le_bytes())),
    ];
    for (n, page) in cases.iter().enumerate() {
        let found = LinePointerPage::new(page).and_then(|v| {
            for i in 0..v.count() {
                v.state(ItemId(i as u16))?;
            }
            v.check_invariants()
        });
        assert!(
            matches!(found, Err(LpError::Corrupt { .. })),
            "case {n}: {found:?}"
        );
        let mut copy = page.clone();
        if let Ok(mut lp) = LinePointerPageMut::new(&mut copy) {
            let _ = lp.add(&[9; 30]);
            let _ = lp.compact();
            let _ = lp.set_unused(ItemId(3));
        }
    }
    // Two items sharing bytes: each pointer is fine alone, the pair is not.
    let overlapping = corrupt(&|p| {
        let first = p[lp_at(0)..lp_at(0) + 4].to_vec();
        p[lp_at(1)..lp_at(1) + 4].copy_from_slice(&first);
    });
    let view = LinePointerPage::new(&overlapping).unwrap();
    assert!(matches!(
        view.check_invariants(),
        Err(LpError::Corrupt { .. })
    ));
    // Compaction refuses overlapping items, in id order from the page end
    // down (moved in place) or not (moved through a scratch page), and
    // leaves the page unchanged.
    let swapped = corrupt(&|p| {
        let (first, second) = (
            p[lp_at(0)..lp_at(0) + 4].to_vec(),
            p[lp_at(1)..lp_at(1) + 4].to_vec(),
        );
        p[lp_at(0)..lp_at(0) + 4].copy_from_slice(&second);
        p[lp_at(1)..lp_at(1) + 4].copy_from_slice(&first);
        p[lp_at(2)..lp_at(2) + 4].copy_from_slice(&first);
    });
    for bad in [&overlapping, &swapped] {
        let mut copy = bad.clone();
        let result = LinePointerPageMut::new(&mut copy).unwrap().compact();
        assert!(matches!(result, Err(LpError::Corrupt { .. })), "{result:?}");
        assert_eq!(&copy, bad);
    }
}

/// A page with `n` items of varied sizes (ids 0..n).
fn filled(n: usize, seed: u64) -> Box<Page> {
    let mut page = fresh();
    let mut lp = LinePointerPageMut::new(&mut page).unwrap();
    let mut rng = SplitMix64(seed);
    for _ in 0..n {
        let len = 1 + (rng.next_u64() % 60) as usize;
        lp.add(&vec![len as u8; len]).unwrap();
    }
    page
}

proptest! {
    // Proves a batch of state changes (one pruning step) leaves exactly the
    // page that the same changes one at a time and a compaction leave, and
    // that a batch the single changes would refuse is refused whole,
    // leaving the page unchanged; and that `next_add_id` predicts what
    // `add` returns, or its error.
    #[test]
    fn batched_states_equal_single_changes(
        n in 1usize..60,
        seed in any::<u64>(),
        picks in prop::collection::vec((0usize..64, 0u8..3, 0usize..64), 0..40),
        add_len in 1usize..200,
    ) {
        let page = filled(n, seed);
        let changes: Vec<(ItemId, LineState)> = picks
            .iter()
            .map(|&(id, kind, target)| {
                let id = ItemId((id % n) as u16);
                let state = match kind {
                    0 => LineState::Unused,
                    1 => LineState::Dead,
                    _ => LineState::Redirect(ItemId((target % n) as u16)),
                };
                (id, state)
            })
            .collect();
        let mut single = page.clone();
        let singles_ok = {
            let mut lp = LinePointerPageMut::new(&mut single).unwrap();
            changes.iter().all(|&(id, state)| match state {
                LineState::Unused => lp.set_unused(id).is_ok(),
                LineState::Dead => lp.set_dead(id).is_ok(),
                LineState::Redirect(t) => lp.set_redirect(id, t).is_ok(),
                LineState::Normal { .. } => unreachable!(),
            }) && lp.compact().is_ok()
        };
        let mut batch = page.clone();
        let batch_result = LinePointerPageMut::new(&mut batch)
            .unwrap()
            .set_states_and_compact(&changes);
        // The free-lines hint may be stale after single changes (a hint,
        // "there may be one"); the batch sets it exactly.
        let without_hint = |page: &Page| {
            let mut copy = Box::new(*page);
            let flags = header_flags(&copy) & !FLAG_HAS_FREE_LINES;
            copy[FLAGS_OFFSET..FLAGS_OFFSET + 2].copy_from_slice(&flags.to_le_bytes());
            copy
        };
        if batch_result.is_ok() {
            let view = LinePointerPage::new(&batch).unwrap();
            let any_unused = (0..view.count())
                .any(|i| view.state(ItemId(i as u16)).unwrap() == LineState::Unused);
            prop_assert_eq!(header_flags(&batch) & FLAG_HAS_FREE_LINES != 0, any_unused);
        }
        if singles_ok {
            prop_assert!(batch_result.is_ok(), "{batch_result:?}");
            prop_assert!(
                without_hint(&batch)[..] == without_hint(&single)[..],
                "batch and single changes differ"
            );
            LinePointerPage::new(&batch).unwrap().check_invariants().unwrap();
        } else if batch_result.is_err() {
            prop_assert!(batch[..] == page[..], "a refused batch changed the page");
        } else {
            // The single changes refused an intermediate step (a Redirect
            // target changed before its redirect went): the batch judges
            // the end state, which must still be sound.
            LinePointerPage::new(&batch).unwrap().check_invariants().unwrap();
        }
        let mut added = batch.clone();
        let predicted = LinePointerPage::new(&added).unwrap().next_add_id(add_len);
        let got = LinePointerPageMut::new(&mut added).unwrap().add(&vec![9; add_len]);
        prop_assert_eq!(predicted.ok(), got.ok());
    }
}
