//! HOT chains: the versions an index entry leads to on its page, and the
//! one a snapshot sees among them.
//!
//! **The rule** (`walk`, its one owner): from the entry's item, through a
//! Redirect (what pruning leaves at a chain's root), then along HOT links
//! on the same page while each successor is `HEAP_ONLY` and its xmin is
//! its predecessor's xmax (a freed and reused item ends the chain).
//!
//! **One walk.** The walk reads its bytes through [`ChainBytes`]: a copy
//! of the page, or an optimistic read that copies each line pointer and
//! tuple it decodes into a scratch page (`Table::with_chain`). So a read
//! that does not copy the page decodes the chain once, while it copies
//! it, and the visibility walk ([`lead`]) goes over the decoded headers.
//! Before, the optimistic copy walked the chain and then `chain` walked
//! the copy again, decoding every line pointer and header a second time:
//! a branch's row in pgbench's tpcb, updated every transaction, leads
//! through tens of dead versions.

use crate::error::HeapError;
use crate::table::{Lead, version};
use crate::tuple::{Tid, TupleHeader};
use crate::visibility::{Sight, dead_to_all, sight};
use folio_page::{ItemId, LinePointerPage, LineState, Page};
use folio_txn::Transaction;

/// Where a chain walk reads a page's line pointers and tuple headers.
pub(crate) trait ChainBytes {
    /// Item `at`'s line pointer and the page's line-pointer count; `None`
    /// past the end.
    fn line(&mut self, at: ItemId) -> Result<Option<(LineState, usize)>, String>;
    /// The header of the tuple a Normal line pointer places at
    /// `offset..offset + len`.
    fn header(&mut self, offset: usize, len: usize) -> Result<TupleHeader, String>;
}

/// A page copy, decoded in place.
struct Copied<'a>(LinePointerPage<'a>, &'a Page);

impl ChainBytes for Copied<'_> {
    fn line(&mut self, at: ItemId) -> Result<Option<(LineState, usize)>, String> {
        let count = self.0.count();
        if at.0 as usize >= count {
            return Ok(None);
        }
        let state = self.0.state(at).map_err(|e| e.to_string())?;
        Ok(Some((state, count)))
    }

    fn header(&mut self, offset: usize, len: usize) -> Result<TupleHeader, String> {
        TupleHeader::decode(&self.1[offset..offset + len])
    }
}

/// Walks the chain an index entry for `tid` leads to (the module's rule)
/// into `out`, with each member's header. Bounded: at most as many
/// members as the page has line pointers, even on racy bytes.
pub(crate) fn walk(
    bytes: &mut impl ChainBytes,
    tid: Tid,
    out: &mut Vec<(Tid, TupleHeader)>,
) -> Result<(), String> {
    out.clear();
    let mut at = tid.item;
    let mut line = bytes.line(at)?;
    if let Some((LineState::Redirect(target), _)) = line {
        at = target;
        line = bytes.line(at)?;
    }
    while let Some((LineState::Normal { offset, len }, count)) = line {
        if out.len() >= count {
            break;
        }
        let header = bytes.header(offset, len)?;
        if let Some((_, prev)) = out.last()
            && (header.xmin != prev.xmax || !header.heap_only())
        {
            break;
        }
        let next = header.hot_next().filter(|t| t.page == tid.page);
        out.push((
            Tid {
                page: tid.page,
                item: at,
            },
            header,
        ));
        let Some(next) = next else {
            break;
        };
        at = next.item;
        line = bytes.line(at)?;
    }
    Ok(())
}

/// The chain an index entry for `tid` leads to on the page copy `page`.
pub(crate) fn chain(page: &Page, tid: Tid) -> Result<Vec<(Tid, TupleHeader)>, HeapError> {
    let corrupt = |e: String| HeapError::corrupt(tid.page, e);
    let lp = LinePointerPage::new(page).map_err(|e| corrupt(e.to_string()))?;
    let mut out = Vec::new();
    walk(&mut Copied(lp, page), tid, &mut out).map_err(corrupt)?;
    Ok(out)
}

/// `Table::fetch_chain_lead` on a copy of the entry's page.
pub(crate) fn chain_lead_in(
    txn: &Transaction,
    page: &Page,
    tid: Tid,
    visit: impl FnOnce(Tid, &[u8]),
) -> Result<Lead, HeapError> {
    lead(txn, page, &chain(page, tid)?, visit)
}

/// The version `txn` sees on `chain` (walked on `page`), lent to `visit`;
/// or, if none, whether every member is dead to every snapshot. Oldest
/// first, as the links go: SERIALIZABLE's conflicts are those of the
/// members up to the one it sees.
pub(crate) fn lead(
    txn: &Transaction,
    page: &Page,
    chain: &[(Tid, TupleHeader)],
    visit: impl FnOnce(Tid, &[u8]),
) -> Result<Lead, HeapError> {
    let mut inserter_seen = false;
    for &(at, header) in chain {
        match sight(txn, &header, inserter_seen)? {
            Sight::Visible => {
                let (_, row) = version(page, at)?.expect("on the chain");
                visit(at, row);
                return Ok(Lead::Visible);
            }
            Sight::Deleted => inserter_seen = true,
            Sight::Unseen => inserter_seen = false,
        }
    }
    let mgr = txn.manager();
    let horizon = mgr.horizon();
    for (_, header) in chain {
        if !dead_to_all(mgr, header, horizon)? {
            return Ok(Lead::Invisible);
        }
    }
    Ok(Lead::Dead)
}
