//! Pruning: removing the versions of a page that no snapshot can see any
//! more, on page access, without vacuum (PostgreSQL's
//! `heap_page_prune`).
//!
//! A version is *dead* when its inserter aborted, or its deleter (not a
//! mere locker) committed at or below the horizon (`TxnManager::horizon`):
//! then no running transaction and no later one sees it. Pruning follows
//! each HOT chain from its root (an item index entries point at: a
//! version that is not `HEAP_ONLY`, or a Redirect):
//!
//! - dead members before the first live one are freed (Unused: no index
//!   entry points at a `HEAP_ONLY` version), and the root becomes a
//!   Redirect to the first live member, so index entries still lead to it;
//! - a chain with no live member leaves its root Dead (index entries may
//!   point at it; vacuum frees it after removing them) and frees the rest;
//! - `HEAP_ONLY` versions no chain reaches (an aborted HOT update's) are
//!   freed when dead.
//!
//! Then the page is compacted. The changes are logged as one `PRUNE`
//! record and redone by the same `records::apply`, which also sets the
//! page's prune hint (`hint.rs`) to the earliest horizon at which a
//! version the prune leaves may be dead.

use crate::records::LineChange;
use crate::tuple::TupleHeader;
use crate::visibility::Verdict;
use folio_page::{ItemId, LinePointerPage, LineState, Page, PageId};
use folio_txn::Csn;

/// What pruning a page does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    /// The line pointer changes; empty when nothing is to be removed.
    pub changes: Vec<(ItemId, LineChange)>,
    /// The page's prune hint afterwards: the least CSN of the versions
    /// left whose verdict is `NotBefore`, 0 if none.
    pub hint: Csn,
}

/// The plan that prunes `page`; `judge` gives a version's verdict
/// (`visibility::prune_verdict`), asked at most once per version.
pub fn plan(
    page: &Page,
    page_id: PageId,
    mut judge: impl FnMut(&TupleHeader) -> Result<Verdict, String>,
) -> Result<Plan, String> {
    let lp = LinePointerPage::new(page).map_err(|e| e.to_string())?;
    let count = lp.count();
    // Each line pointer, and each version's header, decoded once (the
    // walk below visits an item up to three times).
    let items = (0..count)
        .map(|i| {
            let state = lp.state(ItemId(i as u16)).map_err(|e| e.to_string())?;
            Ok(match state {
                LineState::Normal { offset, len } => {
                    Item::Version(TupleHeader::decode(&page[offset..offset + len])?)
                }
                LineState::Redirect(target) => Item::Redirect(target.0 as usize),
                _ => Item::Other,
            })
        })
        .collect::<Result<Vec<Item>, String>>()?;
    let header = |i: usize| match items[i] {
        Item::Version(h) => Some(h),
        _ => None,
    };
    let mut verdicts: Vec<Option<Verdict>> = vec![None; count];
    let mut verdict = |i: usize, h: &TupleHeader| -> Result<Verdict, String> {
        if let Some(v) = verdicts[i] {
            return Ok(v);
        }
        let v = judge(h)?;
        verdicts[i] = Some(v);
        Ok(v)
    };
    let mut reached = vec![false; count];
    let mut changes = Vec::new();
    // Each root's chain in turn (one vector for all of them).
    let mut chain: Vec<(usize, TupleHeader)> = Vec::new();
    for (root, item) in items.iter().enumerate() {
        let start = match *item {
            Item::Redirect(target) => target,
            Item::Version(h) if !h.heap_only() => root,
            _ => continue,
        };
        // The chain: start, then HOT successors whose xmin is the
        // predecessor's xmax (a reused slot breaks the chain there).
        chain.clear();
        let mut at = start;
        while at < count && !reached[at] {
            let Some(h) = header(at) else { break };
            if let Some((_, prev)) = chain.last()
                && (h.xmin != prev.xmax || !h.heap_only())
            {
                break;
            }
            reached[at] = true;
            let next = h.hot_next().filter(|t| t.page == page_id);
            chain.push((at, h));
            match next {
                Some(t) => at = t.item.0 as usize,
                None => break,
            }
        }
        if chain.is_empty() {
            continue;
        }
        let mut dead_prefix = 0;
        for (i, h) in &chain {
            if verdict(*i, h)? != Verdict::Dead {
                break;
            }
            dead_prefix += 1;
        }
        let root_id = ItemId(root as u16);
        if dead_prefix == chain.len() {
            changes.push((root_id, LineChange::Dead));
            for (i, _) in &chain {
                if *i != root {
                    changes.push((ItemId(*i as u16), LineChange::Unused));
                }
            }
        } else if dead_prefix > 0 {
            let first_live = ItemId(chain[dead_prefix].0 as u16);
            changes.push((root_id, LineChange::Redirect(first_live)));
            for (i, _) in &chain[..dead_prefix] {
                if *i != root {
                    changes.push((ItemId(*i as u16), LineChange::Unused));
                }
            }
        }
    }
    for (i, _) in reached.iter().enumerate().filter(|(_, r)| !**r) {
        if let Some(h) = header(i)
            && h.heap_only()
            && verdict(i, &h)? == Verdict::Dead
        {
            changes.push((ItemId(i as u16), LineChange::Unused));
        }
    }
    // What is left dies no earlier than its least `NotBefore`: only a
    // deleted version has one, and a version the plan frees is `Dead`.
    let mut hint = None;
    for i in 0..count {
        if let Some(h) = header(i)
            && h.deleter().is_some()
            && let Verdict::NotBefore(csn) = verdict(i, &h)?
        {
            hint = Some(hint.map_or(csn, |least: Csn| least.min(csn)));
        }
    }
    Ok(Plan {
        changes,
        hint: hint.unwrap_or(Csn::ZERO),
    })
}

/// What a line pointer holds, as [`plan`] reads it.
#[derive(Clone, Copy)]
enum Item {
    Version(TupleHeader),
    Redirect(usize),
    Other,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hint;
    use crate::tuple::{HEAP_ONLY, HOT_UPDATED, Tid};
    use folio_page::{LinePointerPageMut, PAGE_SIZE, PageType, init_page};
    use folio_txn::Xid;

    fn version(xmin: u64, xmax: u64, next: Option<u16>, flags: u16) -> Vec<u8> {
        TupleHeader {
            xmin: Xid(xmin),
            xmax: Xid(xmax),
            next: next.map(|i| Tid {
                page: PageId(1),
                item: ItemId(i),
            }),
            flags,
        }
        .tuple(b"r")
    }

    /// Xid 100..=104 are dead here (104 an aborted inserter); 200 and
    /// 201 deleted but not dead yet: dead from CSN 20 and 10 on.
    fn judge(h: &TupleHeader) -> Result<Verdict, String> {
        Ok(match h.deleter().map(|d| d.0) {
            _ if h.xmin.0 == 104 => Verdict::Dead,
            Some(101..=103) => Verdict::Dead,
            Some(200) => Verdict::NotBefore(Csn(20)),
            Some(201) => Verdict::NotBefore(Csn(10)),
            _ => Verdict::Live,
        })
    }

    // Proves the plan on a page holding: a HOT chain 0 -> 1 -> 2 whose
    // first two versions are dead (root redirected to 2, 1 freed); a
    // non-HOT version 3 that is dead (left Dead for its index entries); a
    // live version 4 (untouched); and an orphan HEAP_ONLY version 5 whose
    // inserter aborted (freed). Applied, the page has nothing more to
    // prune and a hint of 0: no version left may die.
    #[test]
    fn a_plan_redirects_chains_and_frees_what_no_index_reaches() {
        let mut page = [0u8; PAGE_SIZE];
        init_page(&mut page, PageType::Heap, hint::SPECIAL_SIZE);
        let mut lp = LinePointerPageMut::new(&mut page).unwrap();
        lp.add(&version(10, 101, Some(1), HOT_UPDATED)).unwrap();
        lp.add(&version(101, 102, Some(2), HOT_UPDATED | HEAP_ONLY))
            .unwrap();
        lp.add(&version(102, 0, None, HEAP_ONLY)).unwrap();
        lp.add(&version(10, 103, None, 0)).unwrap();
        lp.add(&version(11, 0, None, 0)).unwrap();
        lp.add(&version(104, 0, None, HEAP_ONLY)).unwrap();
        let plan = plan(&page, PageId(1), judge).unwrap();
        assert_eq!(
            plan.changes,
            vec![
                (ItemId(0), LineChange::Redirect(ItemId(2))),
                (ItemId(1), LineChange::Unused),
                (ItemId(3), LineChange::Dead),
                (ItemId(5), LineChange::Unused),
            ]
        );
        assert_eq!(plan.hint, Csn::ZERO);
        hint::write(&mut page, hint::DELETED);
        crate::records::apply(
            &mut page,
            &[crate::records::PageOp::Prune {
                changes: plan.changes,
                hint: plan.hint,
            }],
        )
        .unwrap();
        assert_eq!(hint::read(&page), Some(Csn::ZERO));
        let again = super::plan(&page, PageId(1), judge).unwrap();
        assert!(again.changes.is_empty(), "nothing more to prune: {again:?}");
    }

    // Proves the hint a plan leaves is the least CSN at which a version
    // it keeps may die: deleters not dead yet (one behind a live chain
    // member, one a plain version) give theirs, a dead version freed
    // beside them none.
    #[test]
    fn a_plan_hints_when_the_versions_it_leaves_may_die() {
        let mut page = [0u8; PAGE_SIZE];
        init_page(&mut page, PageType::Heap, hint::SPECIAL_SIZE);
        let mut lp = LinePointerPageMut::new(&mut page).unwrap();
        lp.add(&version(10, 200, Some(1), HOT_UPDATED)).unwrap();
        lp.add(&version(200, 201, None, HEAP_ONLY)).unwrap();
        lp.add(&version(10, 101, None, 0)).unwrap();
        lp.add(&version(11, 200, None, 0)).unwrap();
        let plan = plan(&page, PageId(1), judge).unwrap();
        assert_eq!(plan.changes, vec![(ItemId(2), LineChange::Dead)]);
        assert_eq!(plan.hint, Csn(10));
    }
}
