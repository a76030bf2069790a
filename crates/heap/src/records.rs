//! The heap's WAL records (`RmgrId::HEAP`) and their redo, beside the
//! page operations they log.
//!
//! A record's block data is a list of page operations, applied in order by
//! the same function on the do path and in redo (`apply`), so replay
//! reproduces the page byte for byte:
//!
//! | op | bytes | effect |
//! |---|---|---|
//! | 1 insert | item id (u16), length (u32), the tuple | adds the tuple; it must get that item id |
//! | 2 set xmax | item id (u16), xmax (u64), next page (u64), next item (u16), flags (u16) | marks the version deleted (and links its successor; `HOT_UPDATED` for a successor on the page; `hint::deleted`), or locked with `XMAX_LOCK_ONLY` |
//! | 3 prune | count (u16), then per line pointer: item id (u16), 0 unused / 1 dead / 2 redirect (u8), target (u16); then the prune hint (u64) | sets the states in order, then compacts the page (no states: nothing changes), then sets the hint |
//!
//! | record | blocks |
//! |---|---|
//! | `INIT_PAGE` | the new page, with its image |
//! | `INSERT` | the page: one insert, or several (`Table::insert_many`), applied in order |
//! | `DELETE` | the page: one set xmax |
//! | `LOCK` | the page: one set xmax, lock only |
//! | `PRUNE` | the page: one prune (or, with no line pointer changes, a new prune hint alone) |
//! | `UPDATE` | same page: insert then set xmax; else block 0 the new version's page (insert), block 1 the old one's (set xmax) |

use crate::hint;
use crate::tuple::{
    HOT_UPDATED, TUPLE_HEADER_SIZE, Tid, TupleHeader, XMAX_GROUP, XMAX_LOCK_ONLY, XMAX_SHARED,
};
use folio_page::{
    ItemId, LinePointerPage, LinePointerPageMut, LineState, Page, PageId, PageType,
    header_page_type,
};
use folio_txn::{Csn, Xid};
use folio_wal::{PageRedo, Record, RedoError, RmgrId};

pub const INIT_PAGE: u8 = 1;
pub const INSERT: u8 = 2;
pub const DELETE: u8 = 3;
pub const UPDATE: u8 = 4;
pub const LOCK: u8 = 5;
pub const PRUNE: u8 = 6;

const OP_INSERT: u8 = 1;
const OP_SET_XMAX: u8 = 2;
const OP_PRUNE: u8 = 3;

/// What pruning does to one line pointer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LineChange {
    /// Free: no index entry points at it (a HOT chain member).
    Unused,
    /// Gone, but index entries may still point here (until vacuum).
    Dead,
    /// The HOT chain's root now leads to this item.
    Redirect(ItemId),
}

/// The xmax flags a set-xmax operation may carry.
const XMAX_FLAGS: u16 = XMAX_LOCK_ONLY | HOT_UPDATED | XMAX_SHARED | XMAX_GROUP;

/// One change to one heap page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PageOp {
    Insert {
        item: ItemId,
        tuple: Vec<u8>,
    },
    SetXmax {
        item: ItemId,
        xmax: Xid,
        next: Option<Tid>,
        /// `XMAX_LOCK_ONLY` or `HOT_UPDATED` (or 0): the xmax flags to set.
        flags: u16,
    },
    /// Pruning: line pointer states changed, then the page compacted,
    /// and the page's prune hint set (`hint.rs`).
    Prune {
        changes: Vec<(ItemId, LineChange)>,
        hint: Csn,
    },
}

impl PageOp {
    pub fn encode_into(&self, out: &mut Vec<u8>) {
        match self {
            PageOp::Insert { item, tuple } => {
                out.push(OP_INSERT);
                out.extend_from_slice(&item.0.to_le_bytes());
                out.extend_from_slice(&(tuple.len() as u32).to_le_bytes());
                out.extend_from_slice(tuple);
            }
            PageOp::SetXmax {
                item,
                xmax,
                next,
                flags,
            } => {
                out.push(OP_SET_XMAX);
                out.extend_from_slice(&item.0.to_le_bytes());
                out.extend_from_slice(&xmax.0.to_le_bytes());
                let (page, next_item) = next.map_or((0, 0), |t| (t.page.0, t.item.0));
                out.extend_from_slice(&page.to_le_bytes());
                out.extend_from_slice(&next_item.to_le_bytes());
                out.extend_from_slice(&flags.to_le_bytes());
            }
            PageOp::Prune { changes, hint } => {
                out.push(OP_PRUNE);
                out.extend_from_slice(&(changes.len() as u16).to_le_bytes());
                for (item, change) in changes {
                    out.extend_from_slice(&item.0.to_le_bytes());
                    let (kind, target) = match change {
                        LineChange::Unused => (0u8, 0u16),
                        LineChange::Dead => (1, 0),
                        LineChange::Redirect(t) => (2, t.0),
                    };
                    out.push(kind);
                    out.extend_from_slice(&target.to_le_bytes());
                }
                out.extend_from_slice(&hint.0.to_le_bytes());
            }
        }
    }

    /// Decodes a list of operations.
    pub fn decode_all(mut data: &[u8]) -> Result<Vec<PageOp>, String> {
        fn take<'a>(data: &mut &'a [u8], n: usize) -> Result<&'a [u8], String> {
            if data.len() < n {
                return Err(format!(
                    "operation cut short: {} bytes left, {n} needed",
                    data.len()
                ));
            }
            let (head, tail) = data.split_at(n);
            *data = tail;
            Ok(head)
        }
        let mut ops = Vec::new();
        while let Some((&op, rest)) = data.split_first() {
            data = rest;
            let item = ItemId(u16::from_le_bytes(
                take(&mut data, 2)?.try_into().expect("2"),
            ));
            ops.push(match op {
                OP_PRUNE => {
                    // `item` holds the number of changes.
                    let mut changes = Vec::new();
                    for _ in 0..item.0 {
                        let b = take(&mut data, 5)?;
                        let id = ItemId(u16::from_le_bytes([b[0], b[1]]));
                        let target = ItemId(u16::from_le_bytes([b[3], b[4]]));
                        changes.push((
                            id,
                            match b[2] {
                                0 => LineChange::Unused,
                                1 => LineChange::Dead,
                                2 => LineChange::Redirect(target),
                                other => return Err(format!("unknown line change {other}")),
                            },
                        ));
                    }
                    let hint = Csn(u64::from_le_bytes(
                        take(&mut data, 8)?.try_into().expect("8"),
                    ));
                    PageOp::Prune { changes, hint }
                }
                OP_INSERT => {
                    let len = u32::from_le_bytes(take(&mut data, 4)?.try_into().expect("4"));
                    PageOp::Insert {
                        item,
                        tuple: take(&mut data, len as usize)?.to_vec(),
                    }
                }
                OP_SET_XMAX => {
                    let b = take(&mut data, 20)?;
                    let xmax = Xid(u64::from_le_bytes(b[0..8].try_into().expect("8")));
                    let page = u64::from_le_bytes(b[8..16].try_into().expect("8"));
                    let next_item = u16::from_le_bytes(b[16..18].try_into().expect("2"));
                    let flags = u16::from_le_bytes(b[18..20].try_into().expect("2"));
                    if flags & !XMAX_FLAGS != 0 {
                        return Err(format!("set xmax with flags {flags:#06x}"));
                    }
                    PageOp::SetXmax {
                        item,
                        xmax,
                        flags,
                        next: (page != 0).then_some(Tid {
                            page: PageId(page),
                            item: ItemId(next_item),
                        }),
                    }
                }
                other => return Err(format!("unknown heap page operation {other}")),
            });
        }
        Ok(ops)
    }
}

/// Applies `ops` to a heap page, all or nothing: an error leaves the page
/// as it was. The shapes the heap logs — one insert, set-xmaxes (with at
/// most one insert of another item: a HOT update), one prune — are checked
/// whole first ([`check`]) and then applied in place; any other list (a
/// page's share of `Table::insert_many`) is applied to a copy, installed
/// if every op succeeds.
pub fn apply(page: &mut Page, ops: &[PageOp]) -> Result<(), String> {
    if header_page_type(page) != Some(PageType::Heap) {
        return Err("not a heap page".into());
    }
    if checkable(ops) {
        check(page, ops)?;
        return apply_ops(page, ops);
    }
    let mut copy = Box::new(*page);
    apply_ops(&mut copy, ops)?;
    page.copy_from_slice(&copy[..]);
    Ok(())
}

/// Whether `ops` can be applied to `page` in place, judged before any of
/// them runs ([`checkable`] and [`check`]): passing it, [`apply`] of them
/// to this page cannot fail (a writer checks before logging them).
pub(crate) fn applies_in_place(page: &Page, ops: &[PageOp]) -> Result<(), String> {
    if header_page_type(page) != Some(PageType::Heap) {
        return Err("not a heap page".into());
    }
    if !checkable(ops) {
        return Err("these changes are not judged before they run".into());
    }
    check(page, ops)
}

/// Whether [`check`] can judge `ops` on the page before any of them runs:
/// no op depends on another's effect.
fn checkable(ops: &[PageOp]) -> bool {
    let mut inserted = ops.iter().filter_map(|op| match op {
        PageOp::Insert { item, .. } => Some(*item),
        _ => None,
    });
    let first = inserted.next();
    if inserted.next().is_some() {
        return false;
    }
    match ops {
        [PageOp::Prune { .. }] => true,
        _ if ops.iter().any(|op| matches!(op, PageOp::Prune { .. })) => false,
        _ => first.is_none_or(|new| {
            !ops.iter()
                .any(|op| matches!(op, PageOp::SetXmax { item, .. } if *item == new))
        }),
    }
}

/// Checks every op of a [`checkable`] list against the page as it is:
/// passing it, [`apply_ops`] cannot fail.
fn check(page: &Page, ops: &[PageOp]) -> Result<(), String> {
    let lp = LinePointerPage::new(page).map_err(|e| e.to_string())?;
    for op in ops {
        match op {
            PageOp::Insert { item, tuple } => {
                TupleHeader::decode(tuple)?;
                let got = lp.next_add_id(tuple.len()).map_err(|e| e.to_string())?;
                if got != *item {
                    return Err(format!("insert would get {got}, the record says {item}"));
                }
            }
            PageOp::SetXmax { item, .. } => {
                TupleHeader::decode(lp.get(*item).map_err(|e| e.to_string())?)?;
            }
            // Checked whole by the line-pointer page before it changes.
            PageOp::Prune { .. } => {}
        }
    }
    Ok(())
}

/// Applies `ops` in order; each op is all or nothing by itself.
fn apply_ops(page: &mut Page, ops: &[PageOp]) -> Result<(), String> {
    for op in ops {
        let mut lp = LinePointerPageMut::new(page).map_err(|e| e.to_string())?;
        match op {
            PageOp::Insert { item, tuple } => {
                // A wrong id changes the page: only after `check` (which
                // predicts the id) or on the copy `apply` discards.
                TupleHeader::decode(tuple)?;
                let got = lp.add(tuple).map_err(|e| e.to_string())?;
                if got != *item {
                    return Err(format!("insert got {got}, the record says {item}"));
                }
            }
            PageOp::SetXmax {
                item,
                xmax,
                next,
                flags,
            } => {
                let tuple = lp.get_mut(*item).map_err(|e| e.to_string())?;
                let mut header = TupleHeader::decode(tuple)?;
                header.xmax = *xmax;
                header.next = *next;
                header.flags = (header.flags & !XMAX_FLAGS) | flags;
                header.encode_into(&mut tuple[..TUPLE_HEADER_SIZE]);
                if header.deleter().is_some() {
                    hint::deleted(page);
                }
            }
            PageOp::Prune { changes, hint: csn } => {
                let states: Vec<(ItemId, LineState)> = changes
                    .iter()
                    .map(|&(id, change)| {
                        let state = match change {
                            LineChange::Unused => LineState::Unused,
                            LineChange::Dead => LineState::Dead,
                            LineChange::Redirect(target) => LineState::Redirect(target),
                        };
                        (id, state)
                    })
                    .collect();
                if !states.is_empty() {
                    lp.set_states_and_compact(&states)
                        .map_err(|e| format!("pruning: {e}"))?;
                }
                hint::write(page, *csn);
            }
        }
    }
    Ok(())
}

/// Redo and description of the heap's records.
#[derive(Debug, Clone, Copy, Default)]
pub struct HeapRedo;

impl PageRedo for HeapRedo {
    fn rmgr(&self) -> RmgrId {
        RmgrId::HEAP
    }

    fn name(&self) -> &'static str {
        "HEAP"
    }

    fn redo_block(&self, record: &Record, block: usize, page: &mut Page) -> Result<(), RedoError> {
        let data = &record
            .blocks
            .get(block)
            .ok_or_else(|| RedoError::new(format!("record has no block {block}")))?
            .data;
        if record.rtype == INIT_PAGE {
            return Err(RedoError::new(
                "a new heap page is logged with its image only",
            ));
        }
        if !(INSERT..=PRUNE).contains(&record.rtype) {
            return Err(RedoError::new(format!(
                "unknown record type {}",
                record.rtype
            )));
        }
        let ops = PageOp::decode_all(data).map_err(RedoError::new)?;
        // All or nothing: a failure leaves the page as it was.
        apply(page, &ops).map_err(RedoError::new)
    }

    fn type_name(&self, rtype: u8) -> &'static str {
        match rtype {
            INIT_PAGE => "INIT_PAGE",
            INSERT => "INSERT",
            DELETE => "DELETE",
            UPDATE => "UPDATE",
            LOCK => "LOCK",
            PRUNE => "PRUNE",
            _ => "UNKNOWN",
        }
    }

    fn describe(&self, record: &Record) -> String {
        let mut out = self.type_name(record.rtype).to_string();
        for block in &record.blocks {
            match PageOp::decode_all(&block.data) {
                Ok(ops) => {
                    for op in ops {
                        match op {
                            PageOp::Insert { item, tuple } => out.push_str(&format!(
                                " insert ({},{}) {} bytes",
                                block.page_id.0,
                                item.0,
                                tuple.len()
                            )),
                            PageOp::SetXmax { item, xmax, .. } => out.push_str(&format!(
                                " xmax ({},{}) {xmax}",
                                block.page_id.0, item.0
                            )),
                            PageOp::Prune { changes, hint } => out.push_str(&format!(
                                " prune {} line pointers, hint {hint}",
                                changes.len()
                            )),
                        }
                    }
                }
                Err(reason) => out.push_str(&format!(" (bad: {reason})")),
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use folio_page::{PAGE_SIZE, init_page};

    // Proves operations round-trip through their encoding, apply gives
    // the item ids the record names and refuses a mismatch, a set xmax
    // that deletes (not one that locks) sets the prune hint, a prune with
    // no line pointer changes sets the hint alone, and malformed data is
    // an error.
    #[test]
    fn operations_round_trip_and_apply() {
        let ops = vec![
            PageOp::Insert {
                item: ItemId(0),
                tuple: TupleHeader::new(Xid(5)).tuple(b"abc"),
            },
            PageOp::SetXmax {
                item: ItemId(0),
                xmax: Xid(6),
                next: Some(Tid {
                    page: PageId(9),
                    item: ItemId(2),
                }),
                flags: HOT_UPDATED,
            },
            PageOp::Prune {
                changes: vec![
                    (ItemId(1), LineChange::Dead),
                    (ItemId(2), LineChange::Redirect(ItemId(0))),
                ],
                hint: Csn(42),
            },
        ];
        let mut bytes = Vec::new();
        ops.iter().for_each(|op| op.encode_into(&mut bytes));
        assert_eq!(PageOp::decode_all(&bytes), Ok(ops.clone()));
        assert!(PageOp::decode_all(&bytes[..bytes.len() - 1]).is_err());
        assert!(PageOp::decode_all(&[9, 0, 0]).is_err());
        let mut page = [0u8; PAGE_SIZE];
        assert!(apply(&mut page, &ops).is_err(), "not a heap page");
        init_page(&mut page, PageType::Heap, hint::SPECIAL_SIZE);
        apply(&mut page, &ops[..1]).unwrap();
        let lock = PageOp::SetXmax {
            item: ItemId(0),
            xmax: Xid(6),
            next: None,
            flags: XMAX_LOCK_ONLY,
        };
        apply(&mut page, &[lock]).unwrap();
        assert_eq!(hint::read(&page), Some(Csn::ZERO), "a lock deletes nothing");
        apply(&mut page, &ops[1..2]).unwrap();
        assert_eq!(hint::read(&page), Some(hint::DELETED), "an update does");
        let lp = folio_page::LinePointerPage::new(&page).unwrap();
        let h = TupleHeader::decode(lp.get(ItemId(0)).unwrap()).unwrap();
        assert_eq!((h.xmin, h.xmax), (Xid(5), Xid(6)));
        let hint_only = PageOp::Prune {
            changes: Vec::new(),
            hint: Csn(42),
        };
        let before = page;
        apply(&mut page, &[hint_only]).unwrap();
        assert_eq!(hint::read(&page), Some(Csn(42)));
        assert_eq!(
            page[..PAGE_SIZE - 8],
            before[..PAGE_SIZE - 8],
            "the hint alone"
        );
        let wrong = [PageOp::Insert {
            item: ItemId(7),
            tuple: TupleHeader::new(Xid(5)).tuple(b""),
        }];
        assert!(
            apply(&mut page, &wrong)
                .unwrap_err()
                .contains("record says")
        );
    }
}
