//! Out-of-line storage of large values (PostgreSQL's TOAST, without
//! compression): a variable-length value (text, bytea, json, jsonb, an
//! array) or a long numeric (folio-row's `value_payload`) that would make
//! a row longer than
//! [`TOAST_THRESHOLD`] is cut into chunks stored as rows of one
//! database-wide heap table, `folio.toast`, indexed by its table's oid and
//! the value's id, and the row keeps a pointer (folio-row's
//! `Stored::External`, the id).
//!
//! The chunks are written by the transaction that writes the row, so they
//! are visible exactly when the row version is: a reader whose snapshot
//! sees the row sees its chunks. When the row version is updated or
//! deleted, the same transaction deletes the chunks, so they stay visible
//! to every snapshot that can still see the old version, and vacuum frees
//! them once none can (the toast table is vacuumed by autovacuum like any
//! table). A 100 MB value is 52,000 chunks. `DROP TABLE` deletes, in the
//! dropping transaction, every chunk of the table's values that it sees
//! (those of its live row versions; older ones were deleted by their
//! updaters): the index's key range of the table's oid, not a scan of the
//! table's rows.

use crate::catalog::Oids;
use crate::error::CatalogError;
use folio_btree::Direction;
use folio_heap::{Index, Table};
use folio_row::{SqlType, Stored, Value, encode_stored};
use folio_txn::Transaction;
use std::ops::Bound;
use std::sync::Arc;

/// Rows longer than this move their largest variable-length values out of
/// line (PostgreSQL's `TOAST_TUPLE_THRESHOLD` for 8 KiB pages).
pub const TOAST_THRESHOLD: usize = 2032;
/// Whether a stored row of `types` can hold a value out of line: only one
/// that can be longer than [`TOAST_THRESHOLD`] with all its values inline
/// ever has one moved (`Toast::encode`). A column's type changes without
/// a rewrite only to a wider one (`SqlType::binary_coercible`), so the
/// rows stored before hold values the types bound too.
pub(crate) fn may_hold_external(types: &[SqlType]) -> bool {
    folio_row::max_inline_row_len(types).is_none_or(|len| len > TOAST_THRESHOLD)
}

/// The toast table's oid for autovacuum's counts (it has no catalog row).
pub(crate) const TOAST_OID: u64 = 0;

/// Bytes of value per chunk (PostgreSQL's `TOAST_MAX_CHUNK_SIZE`, 1996).
pub const CHUNK_BYTES: usize = 1996;

/// The toast table and its index.
#[derive(Debug)]
pub(crate) struct Toast {
    pub(crate) table: Table,
    pub(crate) index: Index,
    /// Value ids come from the oid counter.
    pub(crate) ids: Arc<Oids>,
}

/// The index key of value `id` of table `oid`: the table's values are one
/// key range.
fn value_key(oid: u64, id: u64) -> [u8; 16] {
    let mut key = [0u8; 16];
    key[..8].copy_from_slice(&oid.to_be_bytes());
    key[8..].copy_from_slice(&id.to_be_bytes());
    key
}

fn chunk_row(id: u64, n: u32, bytes: &[u8]) -> Vec<u8> {
    let mut row = Vec::with_capacity(12 + bytes.len());
    row.extend_from_slice(&id.to_be_bytes());
    row.extend_from_slice(&n.to_be_bytes());
    row.extend_from_slice(bytes);
    row
}

impl Toast {
    /// The row of `values` (fitted to `types`) of table `oid`, its largest
    /// variable-length values moved out of line, in `txn`, until it is no
    /// longer than [`TOAST_THRESHOLD`] (or nothing is left to move).
    pub(crate) fn encode(
        &self,
        txn: &mut Transaction,
        oid: u64,
        values: Vec<Value>,
        types: &[SqlType],
    ) -> Result<Vec<u8>, CatalogError> {
        let mut cells: Vec<Stored> = values.into_iter().map(Stored::Inline).collect();
        loop {
            let row = encode_stored(&cells, types);
            if row.as_ref().is_ok_and(|r| r.len() <= TOAST_THRESHOLD) {
                return Ok(row?);
            }
            // The largest value still inline that may move (text,
            // bytea, json, jsonb, an array, a long numeric).
            let mut largest: Option<(Vec<u8>, usize)> = None;
            for (i, (cell, ty)) in cells.iter().zip(types).enumerate() {
                if let Stored::Inline(v) = cell
                    && let Some(payload) = folio_row::value_payload(v, *ty)?
                    && largest
                        .as_ref()
                        .is_none_or(|(l, _)| payload.len() > l.len())
                {
                    largest = Some((payload, i));
                }
            }
            let Some((payload, i)) = largest.filter(|(p, _)| p.len() > 16) else {
                return Ok(row?);
            };
            let id = self.ids.next()?;
            self.store(txn, oid, id, &payload)?;
            cells[i] = Stored::External {
                id,
                len: payload.len() as u64,
            };
        }
    }

    /// Stores `bytes` as value `id` of table `oid`, in `txn`.
    pub(crate) fn store(
        &self,
        txn: &mut Transaction,
        oid: u64,
        id: u64,
        bytes: &[u8],
    ) -> Result<(), CatalogError> {
        let key = value_key(oid, id);
        for (n, chunk) in bytes.chunks(CHUNK_BYTES).enumerate() {
            let tid = self.table.insert(txn, &chunk_row(id, n as u32, chunk))?;
            self.index.insert(txn, &self.table, &key, tid)?;
        }
        Ok(())
    }

    /// Value `id` of table `oid`, `len` bytes, as `txn` sees it.
    pub(crate) fn fetch(
        &self,
        txn: &Transaction,
        oid: u64,
        id: u64,
        len: u64,
    ) -> Result<Vec<u8>, CatalogError> {
        let corrupt = |what: String| CatalogError::Corrupt(format!("toast value {id}: {what}"));
        let mut chunks: Vec<(u32, Vec<u8>)> = self
            .index
            .get(txn, &self.table, &value_key(oid, id))?
            .into_iter()
            .map(|(_, row)| {
                if row.len() < 12 || row[..8] != id.to_be_bytes() {
                    return Err(corrupt("a chunk of another value".into()));
                }
                let n = u32::from_be_bytes(row[8..12].try_into().expect("4"));
                Ok((n, row[12..].to_vec()))
            })
            .collect::<Result<_, _>>()?;
        chunks.sort_by_key(|(n, _)| *n);
        let mut out = Vec::with_capacity(len.min(1 << 30) as usize);
        for (expected, (n, bytes)) in chunks.into_iter().enumerate() {
            if n as usize != expected {
                return Err(corrupt(format!("chunk {expected} missing")));
            }
            out.extend_from_slice(&bytes);
        }
        if out.len() as u64 != len {
            return Err(corrupt(format!("{} bytes, the row says {len}", out.len())));
        }
        Ok(out)
    }

    /// The value a stored column of table `oid` holds, fetching an
    /// out-of-line one.
    pub(crate) fn resolve(
        &self,
        txn: &Transaction,
        oid: u64,
        cell: Stored,
        ty: SqlType,
    ) -> Result<Value, CatalogError> {
        match cell {
            Stored::Inline(v) => Ok(v),
            Stored::External { id, len } => {
                let bytes = self.fetch(txn, oid, id, len)?;
                folio_row::value_from_payload(&bytes, ty)
                    .map_err(|e| CatalogError::Corrupt(format!("toast value {id}: {e}")))
            }
        }
    }

    /// Deletes the chunks of value `id` of table `oid`, in `txn` (a row
    /// version that pointed at it was updated or deleted). Returns the
    /// chunks deleted.
    pub(crate) fn delete(
        &self,
        txn: &mut Transaction,
        oid: u64,
        id: u64,
    ) -> Result<u64, CatalogError> {
        let key = value_key(oid, id);
        self.delete_range(txn, Bound::Included(&key[..]), Bound::Included(&key[..]))
    }

    /// Deletes every chunk of table `oid`'s values that `txn` sees (the
    /// table is being dropped). Returns the chunks deleted.
    pub(crate) fn delete_table(
        &self,
        txn: &mut Transaction,
        oid: u64,
    ) -> Result<u64, CatalogError> {
        let (first, last) = (value_key(oid, 0), value_key(oid, u64::MAX));
        self.delete_range(txn, Bound::Included(&first[..]), Bound::Included(&last[..]))
    }

    fn delete_range(
        &self,
        txn: &mut Transaction,
        lower: Bound<&[u8]>,
        upper: Bound<&[u8]>,
    ) -> Result<u64, CatalogError> {
        let chunks = self
            .index
            .scan(txn, &self.table, lower, upper, Direction::Forward)?;
        for (tid, _) in &chunks {
            self.table.delete(txn, *tid)?;
        }
        Ok(chunks.len() as u64)
    }
}
