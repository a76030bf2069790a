//! What a table's index entries may point at, for the check that indexes
//! and heap agree (`folio verify`, as amcheck's `heapallindexed`).
//!
//! Index entries point at chain roots: a version that is not heap-only, or
//! a redirect left where a pruned HOT chain began. An entry may also point
//! at a dead item, whose entries vacuum has not removed yet (pruning marks
//! items dead on page access; vacuum removes their entries, then frees
//! them). Never at an unused item, a heap-only version, or past a page's
//! items.

use crate::chain::chain;
use crate::error::HeapError;
use crate::table::{Table, version};
use crate::tuple::Tid;
use crate::visibility::visible;
use folio_page::{ItemId, LinePointerPage, LineState, PageId};
use folio_txn::Transaction;
use std::collections::HashSet;

/// The chain roots of a table and the rows `txn` sees through them.
#[derive(Debug, Default)]
pub struct IndexTargets {
    /// Per chain root whose HOT chain has a version `txn` sees: the root
    /// and that version's row. Each must have an entry in every index.
    pub live: Vec<(Tid, Vec<u8>)>,
    /// Every item an index entry may point at: chain roots and dead items.
    pub pointable: HashSet<Tid>,
}

impl Table {
    /// The table's [`IndexTargets`] as `txn` sees them (every page read
    /// once, optimistically).
    pub fn index_targets(&self, txn: &Transaction) -> Result<IndexTargets, HeapError> {
        let mut targets = IndexTargets::default();
        for page_id in self.page_ids()? {
            self.page_targets(
                txn,
                page_id,
                &mut targets.live,
                Some(&mut targets.pointable),
            )?;
        }
        Ok(targets)
    }

    /// Appends, per chain root of page `page_id` whose HOT chain has a
    /// version `txn` sees, the root and that version's row: what an index
    /// built now enters (its entries point at roots, never at a heap-only
    /// version, which pruning may free while the chain lives on).
    pub fn page_chain_rows(
        &self,
        txn: &Transaction,
        page_id: PageId,
        out: &mut Vec<(Tid, Vec<u8>)>,
    ) -> Result<(), HeapError> {
        self.page_targets(txn, page_id, out, None)
    }

    /// [`Table::index_targets`] of one page: its live chains into `live`,
    /// and what an entry may point at into `pointable`, if given.
    fn page_targets(
        &self,
        txn: &Transaction,
        page_id: PageId,
        live: &mut Vec<(Tid, Vec<u8>)>,
        mut pointable: Option<&mut HashSet<Tid>>,
    ) -> Result<(), HeapError> {
        let page = self.read_copy(page_id)?;
        let corrupt = |e: String| HeapError::corrupt(page_id, e);
        let lp = LinePointerPage::new(&page).map_err(|e| corrupt(e.to_string()))?;
        for i in 0..lp.count() {
            let tid = Tid {
                page: page_id,
                item: ItemId(i as u16),
            };
            let root = match lp.state(tid.item).map_err(|e| corrupt(e.to_string()))? {
                LineState::Unused => false,
                LineState::Dead => {
                    if let Some(p) = pointable.as_deref_mut() {
                        p.insert(tid);
                    }
                    false
                }
                LineState::Redirect(_) => true,
                LineState::Normal { .. } => {
                    version(&page, tid)?.is_some_and(|(header, _)| !header.heap_only())
                }
            };
            if !root {
                continue;
            }
            if let Some(p) = pointable.as_deref_mut() {
                p.insert(tid);
            }
            for (at, header) in chain(&page, tid)? {
                if visible(txn, &header)? {
                    let (_, row) = version(&page, at)?.expect("on the chain");
                    live.push((tid, row.to_vec()));
                    break;
                }
            }
        }
        Ok(())
    }
}
