//! The tuple header: the first 28 bytes of every tuple version.
//!
//! | offset | size | field        | meaning                                                   |
//! |-------:|-----:|--------------|-----------------------------------------------------------|
//! |      0 |    8 | `xmin`       | the inserting transaction                                 |
//! |      8 |    8 | `xmax`       | the deleting (or updating) transaction; 0: none           |
//! |     16 |    8 | `next_page`  | the next version's page (an update); 0: none              |
//! |     24 |    2 | `next_item`  | the next version's item id on `next_page`                 |
//! |     26 |    2 | `flags`      | [`XMAX_LOCK_ONLY`], [`HEAP_ONLY`], [`HOT_UPDATED`], [`XMAX_SHARED`], [`XMAX_GROUP`]; others 0 |
//!
//! The row's bytes follow. A version is created with `xmax = 0` and no
//! next version; a delete sets `xmax`, an update sets `xmax` and the link
//! to the version that replaces it (PostgreSQL's `t_ctid`). A row lock
//! (`SELECT ... FOR UPDATE`) sets `xmax` with [`XMAX_LOCK_ONLY`]: the
//! version stays live, and writers wait for the locker. `FOR SHARE` adds
//! [`XMAX_SHARED`]; a second share locker turns `xmax` into a share group
//! ([`XMAX_GROUP`]) whose members folio-txn keeps in memory.

use folio_page::{ItemId, PageId};
use folio_txn::Xid;

/// Bytes in the tuple header.
pub const TUPLE_HEADER_SIZE: usize = 28;

/// Flag: `xmax` only locks the row (it did not delete or update it).
pub const XMAX_LOCK_ONLY: u16 = 0x0001;
/// Flag: a version no index entry points at: it is reached through the
/// HOT chain of its page (an update that changed no indexed column and
/// stayed on the page; PostgreSQL's `HEAP_ONLY_TUPLE`).
pub const HEAP_ONLY: u16 = 0x0002;
/// Flag: updated by a HOT update: `next` is its successor on the same
/// page, a `HEAP_ONLY` version (PostgreSQL's `HEAP_HOT_UPDATED`).
pub const HOT_UPDATED: u16 = 0x0004;
/// Flag (with [`XMAX_LOCK_ONLY`]): the lock is shared (`FOR SHARE`):
/// other transactions may share-lock the row too; writers wait.
pub const XMAX_SHARED: u16 = 0x0008;
/// Flag (with [`XMAX_LOCK_ONLY`] and [`XMAX_SHARED`]): `xmax` is a share
/// group's id, not a transaction's (folio-txn `share_groups.rs`; the
/// members are in memory).
pub const XMAX_GROUP: u16 = 0x0010;
/// The flags this layout defines; a tuple with others set is corrupt.
const KNOWN_FLAGS: u16 = XMAX_LOCK_ONLY | HEAP_ONLY | HOT_UPDATED | XMAX_SHARED | XMAX_GROUP;

/// Where a tuple version lives: page and item id (PostgreSQL's TID).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Tid {
    pub page: PageId,
    pub item: ItemId,
}

impl Tid {
    /// The tuple id as an index entry's 8-byte tiebreaker: page in the
    /// high 48 bits (so entries of one key sort by tuple id).
    pub fn word(self) -> u64 {
        (self.page.0 << 16) | self.item.0 as u64
    }

    /// The tuple id of an index entry's tiebreaker ([`Tid::word`]).
    pub fn from_word(word: u64) -> Tid {
        Tid {
            page: PageId(word >> 16),
            item: ItemId(word as u16),
        }
    }
}

impl std::fmt::Display for Tid {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "({},{})", self.page.0, self.item.0)
    }
}

/// A decoded tuple header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TupleHeader {
    pub xmin: Xid,
    pub xmax: Xid,
    pub next: Option<Tid>,
    pub flags: u16,
}

fn u64_at(bytes: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(bytes[at..at + 8].try_into().expect("8"))
}

impl TupleHeader {
    /// A new version inserted by `xmin`.
    pub fn new(xmin: Xid) -> TupleHeader {
        TupleHeader {
            xmin,
            xmax: Xid::INVALID,
            next: None,
            flags: 0,
        }
    }

    /// Decodes the header of `tuple`; an error for a tuple shorter than a
    /// header (a corrupt page).
    pub fn decode(tuple: &[u8]) -> Result<TupleHeader, String> {
        if tuple.len() < TUPLE_HEADER_SIZE {
            return Err(format!(
                "a tuple of {} bytes is shorter than its header",
                tuple.len()
            ));
        }
        let next_page = u64_at(tuple, 16);
        let next_item = u16::from_le_bytes([tuple[24], tuple[25]]);
        let flags = u16::from_le_bytes([tuple[26], tuple[27]]);
        if flags & !KNOWN_FLAGS != 0 {
            return Err(format!("unknown tuple flags {flags:#06x}"));
        }
        Ok(TupleHeader {
            xmin: Xid(u64_at(tuple, 0)),
            xmax: Xid(u64_at(tuple, 8)),
            next: (next_page != 0).then_some(Tid {
                page: PageId(next_page),
                item: ItemId(next_item),
            }),
            flags,
        })
    }

    /// Whether no index entry points at this version.
    pub fn heap_only(&self) -> bool {
        self.flags & HEAP_ONLY != 0
    }

    /// The successor on the same page, if a HOT update made one.
    pub fn hot_next(&self) -> Option<Tid> {
        self.next.filter(|_| self.flags & HOT_UPDATED != 0)
    }

    /// Whether `xmax` only locks the row.
    pub fn lock_only(&self) -> bool {
        self.flags & XMAX_LOCK_ONLY != 0
    }

    /// The deleter or updater, if any (a row lock is neither).
    pub fn deleter(&self) -> Option<Xid> {
        (self.xmax != Xid::INVALID && !self.lock_only()).then_some(self.xmax)
    }

    /// Writes the header into the first bytes of `tuple`.
    pub fn encode_into(&self, tuple: &mut [u8]) {
        tuple[0..8].copy_from_slice(&self.xmin.0.to_le_bytes());
        tuple[8..16].copy_from_slice(&self.xmax.0.to_le_bytes());
        let (page, item) = self.next.map_or((0, 0), |t| (t.page.0, t.item.0));
        tuple[16..24].copy_from_slice(&page.to_le_bytes());
        tuple[24..26].copy_from_slice(&item.to_le_bytes());
        tuple[26..28].copy_from_slice(&self.flags.to_le_bytes());
    }

    /// A whole tuple: this header followed by `row`.
    pub fn tuple(&self, row: &[u8]) -> Vec<u8> {
        let mut tuple = vec![0u8; TUPLE_HEADER_SIZE + row.len()];
        self.encode_into(&mut tuple);
        tuple[TUPLE_HEADER_SIZE..].copy_from_slice(row);
        tuple
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Proves headers round-trip with and without a next version, and a
    // tuple shorter than a header is an error.
    #[test]
    fn headers_round_trip() {
        let mut h = TupleHeader::new(Xid(7));
        let t = h.tuple(b"row");
        assert_eq!(TupleHeader::decode(&t), Ok(h));
        assert_eq!(&t[TUPLE_HEADER_SIZE..], b"row");
        h.xmax = Xid(9);
        h.next = Some(Tid {
            page: PageId(3),
            item: ItemId(4),
        });
        assert_eq!(TupleHeader::decode(&h.tuple(b"")), Ok(h));
        assert_eq!(h.deleter(), Some(Xid(9)));
        h.flags = XMAX_LOCK_ONLY;
        assert_eq!(TupleHeader::decode(&h.tuple(b"")), Ok(h));
        assert_eq!(h.deleter(), None, "a lock deletes nothing");
        assert!(TupleHeader::decode(&[0; 27]).is_err());
        h.flags = 0x8000;
        assert!(TupleHeader::decode(&h.tuple(b"")).is_err(), "unknown flags");
    }
}
