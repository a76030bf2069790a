//! Giving back the pages of dropped tables and indexes, and of tables and
//! indexes whose creation rolled back (design, crash argument and lock
//! order: this crate's README, "Giving back the pages of dropped
//! relations").
//!
//! A drop records each relation it drops in `folio.dropped` (a logged
//! tree, outside transactions) with the xid of the subtransaction that
//! deleted its catalog rows; a create records the relation it creates
//! with the xid of the subtransaction that inserts its catalog row. A
//! reclaim frees the pages of every recorded relation whose drop committed
//! at or below the start horizon (every running transaction began after the
//! drop committed), and of every relation whose create rolled back once
//! its transaction ended, in two logged phases — list every page, then
//! free them one by one, each key deleted before its page is freed — and
//! forgets the records of drops that rolled back and of creates that
//! committed. [`settle`] is the one rule of what a record asks for.
//!
//! List layout (keys big-endian, values little-endian):
//!
//! | key | value |
//! |---|---|
//! | `'r'` ‖ oid u64 | a drop: xid u64, kind u8 (`r` table / `i` index), root u64, state u8 (0 waiting, 1 listed), top u64 (the top-level xid; absent in lists written before creates were recorded) |
//! | `'c'` ‖ oid u64 | a create: the same fields |
//! | `'p'` ‖ oid u64 ‖ page u64 | empty: a page of a listed relation still to free |

use crate::catalog::Catalog;
use crate::defs::{KIND_INDEX, KIND_TABLE};
use crate::error::CatalogError;
use crate::persistence::Persistence;
use folio_btree::Direction;
use folio_heap::Table;
use folio_page::{PageId, PageType, header_page_type};
use folio_txn::{Csn, Outcome, Transaction, TxnManager, Xid};

const RELATION: u8 = b'r';
const CREATED: u8 = b'c';
const PAGE: u8 = b'p';
const VALUE_LEN: usize = 26;
/// A value written before the top-level xid was recorded.
const OLD_VALUE_LEN: usize = 18;
const WAITING: u8 = 0;
const LISTED: u8 = 1;

/// What one reclaim did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ReclaimStats {
    /// Dropped relations, and relations whose create rolled back, whose
    /// pages went back to the free list.
    pub relations_freed: u64,
    /// Pages given back.
    pub pages_freed: u64,
    /// Records of drops that rolled back (nothing freed).
    pub forgotten: u64,
    /// Records of creates that committed (nothing freed).
    pub created: u64,
    /// Drops still waiting (running, or committed after a running
    /// transaction began) and creates whose transaction is running.
    pub waiting: u64,
    /// True when another reclaim or a vacuum held the storage guard:
    /// nothing was done.
    pub busy: bool,
}

/// One `'r'` (drop) or `'c'` (create) entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Dropped {
    /// `RELATION` for a drop, `CREATED` for a create.
    event: u8,
    oid: u64,
    xid: Xid,
    /// The top-level transaction of `xid` (a rolled-back subtransaction's
    /// fate no longer names its parent).
    top: Xid,
    kind: u8,
    root: PageId,
    state: u8,
}

fn relation_key(event: u8, oid: u64) -> [u8; 9] {
    let mut key = [event; 9];
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
        v[18..26].copy_from_slice(&self.top.0.to_le_bytes());
        v
    }

    fn key(&self) -> [u8; 9] {
        relation_key(self.event, self.oid)
    }

    fn decode(key: &[u8], value: &[u8]) -> Result<Dropped, CatalogError> {
        let oid: [u8; 8] = key
            .get(1..)
            .and_then(|k| k.try_into().ok())
            .ok_or_else(|| corrupt(format!("a relation key of {} bytes", key.len())))?;
        if value.len() != VALUE_LEN && value.len() != OLD_VALUE_LEN {
            return Err(corrupt(format!(
                "a relation value of {} bytes",
                value.len()
            )));
        }
        let u64_at = |at: usize| {
            let mut b = [0u8; 8];
            b.copy_from_slice(&value[at..at + 8]);
            u64::from_le_bytes(b)
        };
        let entry = Dropped {
            event: key[0],
            oid: u64::from_be_bytes(oid),
            xid: Xid(u64_at(0)),
            top: Xid(if value.len() == VALUE_LEN {
                u64_at(18)
            } else {
                u64_at(0)
            }),
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

/// What a waiting record asks for now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Settled {
    /// The relation stays: forget the record.
    Keep,
    /// Nobody can reach the relation any more: give its pages back.
    Free,
    /// Not yet known, or still readable by a running transaction.
    Wait,
}

/// The one rule of what a waiting record asks for. A drop frees once it
/// committed at or below `start` (every running transaction began after
/// it), and is forgotten if it rolled back. A create frees once it rolled
/// back and its top-level transaction has ended (that transaction may
/// still hold the relation it created until then), and is forgotten once it
/// committed. At most one of a relation's two records ever frees: a drop
/// that committed is a later part of a transaction whose create committed.
fn settle(entry: &Dropped, txns: &TxnManager, start: Csn) -> Result<Settled, CatalogError> {
    let outcome = txns.outcome(entry.xid)?;
    Ok(match (entry.event, outcome) {
        (CREATED, Outcome::Committed(_)) => Settled::Keep,
        (CREATED, Outcome::Aborted) => match txns.outcome(entry.top)? {
            Outcome::Running => Settled::Wait,
            Outcome::Committed(_) | Outcome::Aborted => Settled::Free,
        },
        (_, Outcome::Aborted) => Settled::Keep,
        (_, Outcome::Committed(csn)) if csn <= start => Settled::Free,
        (_, Outcome::Running | Outcome::Committed(_)) => Settled::Wait,
    })
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
        // Its comments go with it (`descriptions.rs`), its statistics
        // when this commits (folio-txn `stat_counts.rs`).
        self.drop_descriptions(txn, oid, |_| true)?;
        if kind == KIND_TABLE {
            self.drop_members_of(txn, &crate::relation_members::TRIGGERS, oid)?;
            self.drop_members_of(txn, &crate::relation_members::RULES, oid)?;
        }
        txn.count_drop(oid);
        self.note(txn, RELATION, oid, kind, root)
    }

    /// Records that `txn`'s current (sub)transaction created the relation
    /// `oid` of `kind` stored at `root` (inside the DDL's savepoint, before
    /// its catalog row is inserted): its pages come back if that
    /// subtransaction rolls back, once its transaction has ended.
    pub(crate) fn note_created(
        &self,
        txn: &mut Transaction,
        oid: u64,
        kind: u8,
        root: PageId,
    ) -> Result<(), CatalogError> {
        self.note(txn, CREATED, oid, kind, root)
    }

    /// Records that `txn`'s current (sub)transaction stopped using the
    /// storage at `root` of a relation that lives on (a rewrite's old
    /// storage, `rewrite.rs`), under `number`, a fresh oid no relation
    /// has: its pages come back as a dropped relation's, and nothing else
    /// of the relation goes with them.
    pub(crate) fn note_storage_dropped(
        &self,
        txn: &mut Transaction,
        number: u64,
        kind: u8,
        root: PageId,
    ) -> Result<(), CatalogError> {
        self.note(txn, RELATION, number, kind, root)
    }

    fn note(
        &self,
        txn: &mut Transaction,
        event: u8,
        oid: u64,
        kind: u8,
        root: PageId,
    ) -> Result<(), CatalogError> {
        let xid = txn.xid()?;
        let entry = Dropped {
            event,
            oid,
            xid,
            top: txn.existing_xid().unwrap_or(xid),
            kind,
            root,
            state: WAITING,
        };
        self.dropped.upsert(&entry.key(), &entry.encode())?;
        Ok(())
    }

    /// Gives back the pages of every relation whose drop committed at or
    /// below the start horizon or whose create rolled back, and forgets
    /// drops that rolled back and creates that committed ([`settle`]). Only
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
                match settle(&entry, txns, start)? {
                    Settled::Keep => {
                        self.dropped.delete(&entry.key())?;
                        match entry.event {
                            CREATED => stats.created += 1,
                            _ => stats.forgotten += 1,
                        }
                        continue;
                    }
                    Settled::Free => self.list_pages(&entry)?,
                    Settled::Wait => {
                        stats.waiting += 1;
                        continue;
                    }
                }
            }
            stats.pages_freed += self.free_listed(&entry)?;
            self.dropped.delete(&entry.key())?;
            self.forget_table(entry.oid, entry.root);
            stats.relations_freed += 1;
        }
        Ok(stats)
    }

    /// Dropped relations whose pages are not back yet, and relations
    /// whose create rolled back that a reclaim has begun to free.
    pub fn pending_drops(&self) -> Result<u64, CatalogError> {
        Ok(self
            .dropped_entries()?
            .iter()
            .filter(|e| e.event == RELATION || e.state == LISTED)
            .count() as u64)
    }

    /// Every `'c'` entry, then every `'r'` entry.
    fn dropped_entries(&self) -> Result<Vec<Dropped>, CatalogError> {
        let mut out = Vec::new();
        for event in [CREATED, RELATION] {
            let mut scan = self.dropped.scan_prefix(&[event], Direction::Forward);
            while let Some((key, value)) = scan.next_entry()? {
                out.push(Dropped::decode(key, value)?);
            }
        }
        Ok(out)
    }

    /// Step 3: a `'p'` key for every page of the relation, then state 1.
    /// Nothing is freed yet, so a crash here only repeats it.
    fn list_pages(&self, entry: &Dropped) -> Result<(), CatalogError> {
        let tree = self.open_pages(entry.root)?;
        let note = |page: PageId| -> Result<(), CatalogError> {
            self.dropped.upsert(&page_key(entry.oid, page), &[])?;
            Ok(())
        };
        if entry.kind == KIND_TABLE {
            let pool = self.pool_of(entry.root).clone();
            let heap = Table::open_with(pool, self.wal_of(entry.root), tree.clone());
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
        self.dropped.upsert(&listed.key(), &listed.encode())?;
        Ok(())
    }

    /// Step 4: each listed page's key deleted, then the page freed (a crash
    /// between the two leaks that one page, never frees it twice).
    fn free_listed(&self, entry: &Dropped) -> Result<u64, CatalogError> {
        let (oid, pool) = (entry.oid, self.pool_of(entry.root));
        let pages = self.listed_pages(oid)?;
        for page in &pages {
            self.dropped.delete(&page_key(oid, *page))?;
            let guard = pool.exclusive(*page)?;
            if header_page_type(&guard) == Some(PageType::Free) {
                return Err(corrupt(format!(
                    "page {} of dropped relation {oid} is already free",
                    page.0
                )));
            }
            pool.free(guard)?;
        }
        Ok(pages.len() as u64)
    }

    /// The pages listed for relation `oid` (step 3), not freed yet.
    fn listed_pages(&self, oid: u64) -> Result<Vec<PageId>, CatalogError> {
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
        Ok(pages)
    }

    /// Forgets every record (and listed page) of storage in the unlogged
    /// pool, created afresh after a crash: those pages are gone with the
    /// old file (`persistence.rs`).
    pub(crate) fn forget_unlogged_drops(&self) -> Result<(), CatalogError> {
        let _guard = self
            .storage_guard
            .write()
            .unwrap_or_else(|p| p.into_inner());
        for entry in self.dropped_entries()? {
            if Persistence::of(entry.root) == Persistence::Unlogged {
                for page in self.listed_pages(entry.oid)? {
                    self.dropped.delete(&page_key(entry.oid, page))?;
                }
                self.dropped.delete(&entry.key())?;
            }
        }
        Ok(())
    }
}
