//! Vacuum: what pruning cannot do alone. Pruning (on page access) frees
//! dead versions' storage, but a version that index entries point at
//! leaves its line pointer Dead, because those entries would otherwise
//! lead to a reused item. Vacuum (PostgreSQL's `lazy_vacuum_heap_rel`):
//!
//! 1. prunes every page of the table and collects its Dead line pointers;
//! 2. removes every index entry that points at one (a scan of each whole
//!    index, as PostgreSQL's `ambulkdelete`: the dead versions' keys are
//!    gone with their storage);
//! 3. marks those line pointers Unused, so inserts reuse them (one logged
//!    `PRUNE` record per page), and offers pages with a quarter of a page
//!    free or more to the table's inserts (an in-memory free-space list);
//!    step 1 also marks in the visibility map the pages whose every version
//!    every snapshot sees (`visibility_map.rs`).
//!
//! Between steps 1 and 3 a Dead line pointer stays Dead (an insert reuses
//! only Unused ones, pruning leaves Dead ones as they are) and no new
//! index entry can point at it (entries point at new, Normal versions), so
//! step 3 frees exactly what step 2 unlinked. That holds only if no other
//! vacuum of the table frees it meanwhile: vacuums of one table take
//! turns (`Table::vacuuming`, held from step 1 to step 3; a `VACUUM`
//! beside autovacuum waits, as PostgreSQL's take SHARE UPDATE EXCLUSIVE).
//! Else the second one's step 3 would free an item the first freed, and
//! that an insert may have reused for a live row since. Vacuum never removes a version a snapshot can see: it removes
//! only what pruning found dead below the horizon.

use crate::error::HeapError;
use crate::hint;
use crate::index::{Index, tid_word, word_tid};
use crate::records::{LineChange, PRUNE, PageOp, apply};
use crate::table::{Change, Table};
use crate::tuple::Tid;
use crate::tuple::TupleHeader;
use folio_btree::Direction;
use folio_page::{ItemId, LinePointerPage, LineState, PAGE_SIZE, PageId};
use folio_txn::{Csn, Fate, TxnManager};
use std::collections::{BTreeMap, HashSet};
use std::ops::Bound;

/// What one vacuum did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct VacuumStats {
    /// Pages of the table.
    pub pages: u64,
    /// Pages whose pruning changed something.
    pub pruned_pages: u64,
    /// Dead line pointers found (versions gone, index entries pending).
    pub dead_line_pointers: u64,
    /// Index entries removed.
    pub index_entries_removed: u64,
    /// Line pointers made reusable.
    pub freed_line_pointers: u64,
    /// Versions left on the pages after pruning (live ones and those a
    /// snapshot may still see).
    pub versions: u64,
    /// Of those, the versions whose deleter or updater committed but that a
    /// snapshot may still see: dead once it ends, so autovacuum counts
    /// them again (PostgreSQL's "recently dead").
    pub recently_dead: u64,
    /// Pages marked all-visible in the visibility map.
    pub all_visible_pages: u64,
}

/// Whether every snapshot, now and later, sees the version `h`: inserted
/// by a transaction committed at or below the horizon, and not deleted.
fn visible_to_all(mgr: &TxnManager, h: &TupleHeader, horizon: Csn) -> Result<bool, HeapError> {
    if h.deleter().is_some() {
        return Ok(false);
    }
    Ok(matches!(mgr.fate(h.xmin)?, Fate::Committed(csn) if csn <= horizon))
}

impl Table {
    /// Vacuums the table and `indexes` (all of its indexes: an index left
    /// out would keep entries to freed items, so it must be complete).
    pub fn vacuum(&self, mgr: &TxnManager, indexes: &[&Index]) -> Result<VacuumStats, HeapError> {
        let _turn = self.vacuuming.lock().unwrap_or_else(|p| p.into_inner());
        let mut stats = VacuumStats::default();
        let mut dead: BTreeMap<PageId, Vec<ItemId>> = BTreeMap::new();
        for page_id in self.page_ids()? {
            stats.pages += 1;
            let mut page = self.pool.exclusive(page_id)?;
            if self.prune(mgr, &mut page)? {
                stats.pruned_pages += 1;
            }
            let lp = LinePointerPage::new(&page)
                .map_err(|e| HeapError::corrupt(page_id, e.to_string()))?;
            let free = lp
                .free_after_compaction()
                .map_err(|e| HeapError::corrupt(page_id, e.to_string()))?;
            if free >= PAGE_SIZE / 4 {
                self.offer_free_page(page_id);
            }
            for i in 0..lp.count() {
                let id = ItemId(i as u16);
                match lp
                    .state(id)
                    .map_err(|e| HeapError::corrupt(page_id, e.to_string()))?
                {
                    LineState::Dead => {
                        dead.entry(page_id).or_default().push(id);
                        stats.dead_line_pointers += 1;
                    }
                    LineState::Normal { .. } => {
                        stats.versions += 1;
                        let tuple = lp
                            .get(id)
                            .map_err(|e| HeapError::corrupt(page_id, e.to_string()))?;
                        let header = TupleHeader::decode(tuple)
                            .map_err(|e| HeapError::corrupt(page_id, e))?;
                        if let Some(deleter) = header.deleter()
                            && matches!(mgr.fate(deleter)?, Fate::Committed(_))
                        {
                            stats.recently_dead += 1;
                        }
                    }
                    _ => {}
                }
            }
            if self.mark_if_all_visible(mgr, &page)? {
                stats.all_visible_pages += 1;
            }
        }
        if dead.is_empty() {
            return Ok(stats);
        }
        let targets: HashSet<u64> = dead
            .iter()
            .flat_map(|(page, items)| {
                items.iter().map(|item| {
                    tid_word(Tid {
                        page: *page,
                        item: *item,
                    })
                })
            })
            .collect();
        for index in indexes {
            let mut doomed = Vec::new();
            let mut scan =
                index
                    .tree()
                    .scan(Bound::Unbounded, Bound::Unbounded, Direction::Forward);
            while let Some((key, word, _)) = scan.next_entry()? {
                if targets.contains(&word) {
                    doomed.push((key, word_tid(word)));
                }
            }
            drop(scan);
            for (key, tid) in doomed {
                if index.remove(&key, tid)? {
                    stats.index_entries_removed += 1;
                }
            }
        }
        for (page_id, items) in dead {
            let mut page = self.pool.exclusive(page_id)?;
            // Freeing Dead line pointers frees no version: the hint stays.
            let ops = vec![PageOp::Prune {
                changes: items.iter().map(|id| (*id, LineChange::Unused)).collect(),
                hint: hint::read(&page).unwrap_or(Csn::ZERO),
            }];
            let mut after = Box::new(*page);
            apply(&mut after, &ops).map_err(|e| HeapError::corrupt(page_id, e))?;
            self.log(
                PRUNE,
                &mut [Change {
                    guard: &mut page,
                    after,
                    ops,
                }],
            )?;
            stats.freed_line_pointers += items.len() as u64;
            if self.mark_if_all_visible(mgr, &page)? {
                stats.all_visible_pages += 1;
            }
        }
        Ok(stats)
    }

    /// Sets the latched `page`'s visibility-map bit if it has no Dead line
    /// pointer and every version on it is visible to every snapshot.
    fn mark_if_all_visible(
        &self,
        mgr: &TxnManager,
        page: &folio_buffer::ExclusiveGuard<'_>,
    ) -> Result<bool, HeapError> {
        let page_id = page.page_id();
        let corrupt = |e: String| HeapError::corrupt(page_id, e);
        let lp = LinePointerPage::new(page).map_err(|e| corrupt(e.to_string()))?;
        let horizon = mgr.horizon();
        for i in 0..lp.count() {
            let id = ItemId(i as u16);
            match lp.state(id).map_err(|e| corrupt(e.to_string()))? {
                LineState::Dead => return Ok(false),
                LineState::Normal { .. } => {
                    let tuple = lp.get(id).map_err(|e| corrupt(e.to_string()))?;
                    let header = TupleHeader::decode(tuple).map_err(corrupt)?;
                    if !visible_to_all(mgr, &header, horizon)? {
                        return Ok(false);
                    }
                }
                _ => {}
            }
        }
        self.vm.set(page_id);
        Ok(true)
    }
}
