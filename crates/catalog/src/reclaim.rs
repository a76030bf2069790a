//! Giving back the pages of dropped tables and indexes (design, crash
//! argument and lock order: this crate's README, "Giving back the pages of
//! dropped relations").
//!
//! A drop records each relation it drops in `folio.dropped` (a logged
//! tree, outside transactions) with the xid of the subtransaction that
//! deleted its catalog rows. A reclaim frees the pages of every recorded
//! relation whose drop committed at or below the start horizon (every
//! running transaction began after the drop committed), in two logged
//! phases — list every page, then free them one by one, each key deleted
//! before its page is freed — and forgets the records of drops that rolled
//! back.
//!
//! List layout (keys big-endian, values little-endian):
//!
//! | key | value |
//! |---|---|
//! | `'r'` ‖ oid u64 | xid u64, kind u8 (`r` table / `i` index), root u64, state u8 (0 waiting, 1 listed) |
//! | `'p'` ‖ oid u64 ‖ page u64 | empty: a page of a listed relation still to free |

use crate::catalog::Catalog;
use crate::defs::{KIND_INDEX, KIND_TABLE};
use crate::error::CatalogError;
use folio_btree::{Direction, Tree};
use folio_heap::Table;
use folio_page::{PageId, PageType, header_page_type};
use folio_txn::{Outcome, Transaction, TxnManager, Xid};

const RELATION: u8 = b'r';
const PAGE: u8 = b'p';
const VALUE_LEN: usize = 18;
const WAITING: u8 = 0;
const LISTED: u8 = 1;

/// What one reclaim did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ReclaimStats {
    /// Dropped relations whose pages went back to the free list.
    pub relations_freed: u64,
    /// Pages given back.
    pub pages_freed: u64,
    /// Records of drops that rolled back (nothing freed).
    pub forgotten: u64,
    /// Drops still waiting: running, or committed after a running
    /// transaction began.
    pub waiting: u64,
    /// True when another reclaim or a vacuum held the storage guard:
    /// nothing was done.
    pub busy: bool,
}

/// One `'r'` entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Dropped {
    oid: u64,
    xid: Xid,
    kind: u8,
    root: PageId,
    state: u8,
}

fn relation_key(oid: u64) -> [u8; 9] {
    let mut key = [RELATION; 9];
    key[1..].copy_from_slice(&oid.to_be_bytes());
    key
}

fn page_prefix(oid: u64) -> [u8; 9] {
    let mut key = [PAGE; 9];
    key[1..].copy_from_slice(&oid.to_be_bytes());
    key
}

fn page_key(oid: u64, page: PageId) -> [u8; 17] {
    let mut key = [0u8; 17];
    key[..9].copy_from_slice(&page_prefix(oid));
    key[9..].copy_from_slice(&page.0.to_be_bytes());
    key
}

fn corrupt(reason: String) -> CatalogError {
    CatalogError::Corrupt(format!("folio.dropped: {reason}"))
}

impl Dropped {
    fn encode(&self) -> [u8; VALUE_LEN] {
        let mut v = [0u8; VALUE_LEN];
        v[..8].copy_from_slice(&self.xid.0.to_le_bytes());
        v[8] = self.kind;
        v[9..17].copy_from_slice(&self.root.0.to_le_bytes());
        v[17] = self.state;
        v
    }

    fn decode(key: &[u8], value: &[u8]) -> Result<Dropped, CatalogError> {
        let oid: [u8; 8] = key
            .get(1..)
            .and_then(|k| k.try_into().ok())
            .ok_or_else(|| corrupt(format!("a relation key of {} bytes", key.len())))?;
        let value: &[u8; VALUE_LEN] = value
            .try_into()
            .map_err(|_| corrupt(format!("a relation value of {} bytes", value.len())))?;
        let u64_at = |at: usize| {
            let mut b = [0u8; 8];
            b.copy_from_slice(&value[at..at + 8]);
            u64::from_le_bytes(b)
        };
        let entry = Dropped {
            oid: u64::from_be_bytes(oid),
            xid: Xid(u64_at(0)),
            kind: value[8],
            root: PageId(u64_at(9)),
            state: value[17],
        };
        if ![KIND_TABLE, KIND_INDEX].contains(&entry.kind) || entry.state > LISTED {
            return Err(corrupt(format!(
                "relation {} has kind {} and state {}",
                entry.oid, entry.kind, entry.state
            )));
        }
        Ok(entry)
    }
}

impl Catalog {
    /// Records that `txn`'s current (sub)transaction dropped the relation
    /// `oid` of `kind` stored at `root` (inside the DDL's savepoint, after
    /// its catalog rows were deleted): its pages come back once the drop
    /// committed and every transaction that began before has ended.
    pub(crate) fn note_dropped(
        &self,
        txn: &mut Transaction,
        oid: u64,
        kind: u8,
        root: PageId,
    ) -> Result<(), CatalogError> {
        let entry = Dropped {
            oid,
            xid: txn.xid()?,
            kind,
            root,
            state: WAITING,
        };
        self.dropped.upsert(&relation_key(oid), &entry.encode())?;
        Ok(())
    }

    /// Gives back the pages of every relation whose drop committed at or
    /// below the start horizon, and forgets drops that rolled back. Only
    /// tries the storage guard: with a vacuum or another reclaim running,
    /// does nothing (`busy`).
    pub fn reclaim(&self, txns: &TxnManager) -> Result<ReclaimStats, CatalogError> {
        let mut stats = ReclaimStats::default();
        let Ok(_guard) = self.storage_guard.try_write() else {
            stats.busy = true;
            return Ok(stats);
        };
        let start = txns.start_horizon();
        for entry in self.dropped_entries()? {
            if entry.state == WAITING {
                match txns.outcome(entry.xid)? {
                    Outcome::Aborted => {
                        self.dropped.delete(&relation_key(entry.oid))?;
                        stats.forgotten += 1;
                        continue;
                    }
                    Outcome::Committed(csn) if csn <= start => self.list_pages(&entry)?,
                    Outcome::Running | Outcome::Committed(_) => {
                        stats.waiting += 1;
                        continue;
                    }
                }
            }
            stats.pages_freed += self.free_listed(entry.oid)?;
            self.dropped.delete(&relation_key(entry.oid))?;
            self.forget_table(entry.oid);
            stats.relations_freed += 1;
        }
        Ok(stats)
    }

    /// Dropped relations whose pages are not back yet.
    pub fn pending_drops(&self) -> Result<u64, CatalogError> {
        Ok(self.dropped_entries()?.len() as u64)
    }

    fn dropped_entries(&self) -> Result<Vec<Dropped>, CatalogError> {
        let mut out = Vec::new();
        let mut scan = self.dropped.scan_prefix(&[RELATION], Direction::Forward);
        while let Some((key, value)) = scan.next_entry()? {
            out.push(Dropped::decode(key, value)?);
        }
        Ok(out)
    }

    /// Step 3: a `'p'` key for every page of the relation, then state 1.
    /// Nothing is freed yet, so a crash here only repeats it.
    fn list_pages(&self, entry: &Dropped) -> Result<(), CatalogError> {
        let tree = Tree::open_logged(self.pool.clone(), entry.root, Some(self.wal.clone()))?;
        let note = |page: PageId| -> Result<(), CatalogError> {
            self.dropped.upsert(&page_key(entry.oid, page), &[])?;
            Ok(())
        };
        if entry.kind == KIND_TABLE {
            let heap = Table::open(self.pool.clone(), self.wal.clone(), tree.clone());
            for page in heap.page_ids()? {
                note(page)?;
            }
        }
        let mut nodes = Vec::new();
        tree.pages(|page| {
            nodes.push(page);
            Ok(())
        })?;
        for page in nodes {
            note(page)?;
        }
        let listed = Dropped {
            state: LISTED,
            ..*entry
        };
        self.dropped
            .upsert(&relation_key(entry.oid), &listed.encode())?;
        Ok(())
    }

    /// Step 4: each listed page's key deleted, then the page freed (a crash
    /// between the two leaks that one page, never frees it twice).
    fn free_listed(&self, oid: u64) -> Result<u64, CatalogError> {
        let mut pages = Vec::new();
        let mut scan = self
            .dropped
            .scan_prefix(&page_prefix(oid), Direction::Forward);
        while let Some((key, _)) = scan.next_entry()? {
            let page: [u8; 8] = key
                .get(9..)
                .and_then(|k| k.try_into().ok())
                .ok_or_else(|| corrupt(format!("a page key of {} bytes", key.len())))?;
            pages.push(PageId(u64::from_be_bytes(page)));
        }
        drop(scan);
        for page in &pages {
            self.dropped.delete(&page_key(oid, *page))?;
            let guard = self.pool.exclusive(*page)?;
            if header_page_type(&guard) == Some(PageType::Free) {
                return Err(corrupt(format!(
                    "page {} of dropped relation {oid} is already free",
                    page.0
                )));
            }
            self.pool.free(guard)?;
        }
        Ok(pages.len() as u64)
    }
}
