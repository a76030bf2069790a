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
//! record and redone by the same `records::apply`.

use crate::records::LineChange;
use crate::tuple::TupleHeader;
use folio_page::{ItemId, LinePointerPage, LineState, Page, PageId};

/// The line pointer changes that prune `page`; `dead` says whether a
/// version is dead. Empty when nothing is to be removed.
pub fn plan(
    page: &Page,
    page_id: PageId,
    mut dead: impl FnMut(&TupleHeader) -> Result<bool, String>,
) -> Result<Vec<(ItemId, LineChange)>, String> {
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
    let mut reached = vec![false; count];
    let mut changes = Vec::new();
    for (root, item) in items.iter().enumerate() {
        let start = match *item {
            Item::Redirect(target) => target,
            Item::Version(h) if !h.heap_only() => root,
            _ => continue,
        };
        // The chain: start, then HOT successors whose xmin is the
        // predecessor's xmax (a reused slot breaks the chain there).
        let mut chain: Vec<(usize, TupleHeader)> = Vec::new();
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
        for (_, h) in &chain {
            if !dead(h)? {
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
            && dead(&h)?
        {
            changes.push((ItemId(i as u16), LineChange::Unused));
        }
    }
    Ok(changes)
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

    // Proves the plan on a page holding: a HOT chain 0 -> 1 -> 2 whose
    // first two versions are dead (root redirected to 2, 1 freed); a
    // non-HOT version 3 that is dead (left Dead for its index entries); a
    // live version 4 (untouched); and an orphan HEAP_ONLY version 5 whose
    // inserter aborted (freed). Xid 100+ are dead here.
    #[test]
    fn a_plan_redirects_chains_and_frees_what_no_index_reaches() {
        let mut page = [0u8; PAGE_SIZE];
        init_page(&mut page, PageType::Heap, 0);
        let mut lp = LinePointerPageMut::new(&mut page).unwrap();
        lp.add(&version(10, 101, Some(1), HOT_UPDATED)).unwrap();
        lp.add(&version(101, 102, Some(2), HOT_UPDATED | HEAP_ONLY))
            .unwrap();
        lp.add(&version(102, 0, None, HEAP_ONLY)).unwrap();
        lp.add(&version(10, 103, None, 0)).unwrap();
        lp.add(&version(11, 0, None, 0)).unwrap();
        lp.add(&version(104, 0, None, HEAP_ONLY)).unwrap();
        let dead = |h: &TupleHeader| -> Result<bool, String> {
            Ok(h.xmin.0 == 104 || h.deleter().is_some_and(|d| d.0 >= 101 && d.0 <= 103))
        };
        let plan = plan(&page, PageId(1), dead).unwrap();
        assert_eq!(
            plan,
            vec![
                (ItemId(0), LineChange::Redirect(ItemId(2))),
                (ItemId(1), LineChange::Unused),
                (ItemId(3), LineChange::Dead),
                (ItemId(5), LineChange::Unused),
            ]
        );
        crate::records::apply(
            &mut page,
            &[crate::records::PageOp::Prune { changes: plan }],
        )
        .unwrap();
        let again = plan_after(&page);
        assert!(again.is_empty(), "nothing more to prune: {again:?}");
    }

    fn plan_after(page: &Page) -> Vec<(ItemId, LineChange)> {
        plan(page, PageId(1), |h| {
            Ok(h.xmin.0 == 104 || h.deleter().is_some_and(|d| d.0 >= 101 && d.0 <= 103))
        })
        .unwrap()
    }
}
