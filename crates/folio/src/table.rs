//! A table as a transaction sees it: rows by primary key, range scans,
//! and secondary-index lookups. Every change goes through folio-catalog's
//! `Relation`, which keeps every index in step.

use crate::error::{Error, Result};
use crate::range::Range;
use crate::row::{IntoRow, Key, Row, RowRef};
use crate::schema::primary_key_name;
use crate::transaction::{Op, Transaction};
use folio_btree::prefix_successor;
use folio_catalog::{Relation, RelationIndex};
use folio_heap::{Tid, Write};
use folio_row::{Value, encode_key};
use std::ops::{Bound, RangeBounds};
use std::sync::Arc;

/// A table of a transaction: get, insert, update, delete by primary key;
/// forward and backward ranges of primary keys; lookups through
/// secondary indexes. The handle cannot outlive its transaction.
#[derive(Debug)]
pub struct Table<'t> {
    tx: &'t Transaction<'t>,
    rel: Arc<Relation>,
    /// The primary key's position in `rel.indexes`.
    primary: Option<usize>,
    columns: Arc<[String]>,
}

/// A range's bounds as encoded index keys (lower, upper).
type EncodedBounds = (Bound<Vec<u8>>, Bound<Vec<u8>>);

/// A row found: where its version lives and its values.
type Found = Option<(Tid, Vec<Value>)>;

impl<'t> Table<'t> {
    pub(crate) fn new(tx: &'t Transaction<'t>, rel: Arc<Relation>) -> Table<'t> {
        let key_name = primary_key_name(&rel.def.name);
        let primary = rel.indexes.iter().position(|i| i.def.name == key_name);
        let columns = rel.def.columns.iter().map(|c| c.name.clone()).collect();
        Table {
            tx,
            rel,
            primary,
            columns,
        }
    }

    /// The table's name.
    pub fn name(&self) -> &str {
        &self.rel.def.name
    }

    /// The column names, in order.
    pub fn columns(&self) -> &[String] {
        &self.columns
    }

    pub(crate) fn transaction(&self) -> &'t Transaction<'t> {
        self.tx
    }

    pub(crate) fn row(&self, values: Vec<Value>) -> Row {
        Row::new(self.columns.clone(), values)
    }

    pub(crate) fn primary_index(&self) -> Result<&RelationIndex> {
        let at = self.primary.ok_or_else(|| {
            Error::invalid(
                "42P10",
                format!("table \"{}\" has no primary key", self.name()),
            )
        })?;
        Ok(&self.rel.indexes[at])
    }

    fn secondary_index(&self, name: &str) -> Result<&RelationIndex> {
        self.rel
            .indexes
            .iter()
            .find(|i| i.def.name == name)
            .ok_or_else(|| {
                Error::UndefinedTable(format!(
                    "index \"{name}\" of table \"{}\" does not exist",
                    self.name()
                ))
            })
    }

    /// The key bytes of `key` in `index`: every key column, or (with
    /// `prefix`) the first few. Values are fitted to the key's column
    /// types as an assignment is (an `i32` finds a `bigint` key).
    fn encode(&self, index: &RelationIndex, key: &impl Key, prefix: bool) -> Result<Vec<u8>> {
        let values = key.key_values();
        let columns = &index.key_columns;
        let n = values.len();
        if n > columns.len() || n == 0 || (!prefix && n < columns.len()) {
            return Err(Error::invalid(
                "42601",
                format!(
                    "index \"{}\" has {} key column(s); {n} value(s) given",
                    index.def.name,
                    columns.len()
                ),
            ));
        }
        let fitted = values
            .into_iter()
            .zip(columns)
            .map(|(v, c)| v.fit(c.ty))
            .collect::<Result<Vec<Value>, _>>()?;
        Ok(encode_key(&fitted, &columns[..n])?)
    }

    /// The row `txn` sees whose primary key is `key`.
    fn find(&self, txn: &folio_txn::Transaction, key: &[u8]) -> Result<Found> {
        let mut found = None;
        self.primary_index()?
            .index
            .get_with(txn, &self.rel.table, key, |tid, bytes| {
                if found.is_none() {
                    found = Some((tid, self.rel.decode(txn, bytes)));
                }
            })?;
        match found {
            Some((tid, values)) => Ok(Some((tid, values?))),
            None => Ok(None),
        }
    }

    /// The row whose primary key is `key`, if this transaction sees one.
    pub fn get(&self, key: impl Key) -> Result<Option<Row>> {
        let key = self.encode(self.primary_index()?, &key, false)?;
        let found = self.tx.statement(Op::Read, |txn| self.find(txn, &key))?;
        Ok(found.map(|(_, values)| self.row(values)))
    }

    /// Looks the row with primary key `key` up and lends it to `f` where
    /// the read found it (a [`RowRef`]: columns decoded on demand, text and
    /// bytea borrowed; values stored out of line are read with
    /// [`Table::get`]). Nothing is allocated for the row.
    pub fn get_with<T>(&self, key: impl Key, f: impl FnOnce(RowRef<'_>) -> T) -> Result<Option<T>> {
        let key = self.encode(self.primary_index()?, &key, false)?;
        let mut f = Some(f);
        self.tx.statement(Op::Read, |txn| {
            let mut out = None;
            self.primary_index()?
                .index
                .get_with(txn, &self.rel.table, &key, |_, bytes| {
                    if let Some(f) = f.take() {
                        out = Some(f(RowRef::new(bytes, &self.rel.types, &self.columns)));
                    }
                })?;
            Ok(out)
        })
    }

    /// Inserts a row (values in column order). A primary key or unique
    /// key already there is 23505, and the transaction goes on.
    pub fn insert(&self, row: impl IntoRow) -> Result<()> {
        let values = row.into_row();
        self.tx.statement(Op::Insert, |txn| {
            self.rel.insert(txn, values)?;
            Ok(())
        })
    }

    /// Runs `write` on the newest version of the row with primary key
    /// `key`, as PostgreSQL's `UPDATE/DELETE ... WHERE key = $1` does: at
    /// READ COMMITTED, a version that a transaction which committed
    /// meanwhile replaced is followed to its newest version, which is
    /// written if it still has the key (EvalPlanQual); at REPEATABLE READ
    /// that is a serialization failure (40001). Returns the version
    /// written, or `None` if no row has the key.
    fn write_row(
        &self,
        txn: &mut folio_txn::Transaction,
        key: &[u8],
        mut write: impl FnMut(&mut folio_txn::Transaction, Tid, &[Value]) -> Result<Write>,
    ) -> Result<Option<Vec<Value>>> {
        let Some((mut tid, mut old)) = self.find(txn, key)? else {
            return Ok(None);
        };
        let primary = self.primary_index()?;
        loop {
            match write(txn, tid, &old)? {
                Write::Done(_) | Write::Hot(_) => return Ok(Some(old)),
                Write::Gone => return Ok(None),
                Write::Moved(next) => {
                    let Some((newest, bytes)) = self.rel.table.newest(txn, next)? else {
                        return Ok(None);
                    };
                    let values = self.rel.decode(txn, &bytes)?;
                    if primary.key(&values)?.as_deref() != Some(key) {
                        return Ok(None);
                    }
                    (tid, old) = (newest, values);
                }
            }
        }
    }

    /// Replaces the row whose primary key is `key` by `row` (which may
    /// change the key). Returns whether there was such a row. Waits for a
    /// transaction that is changing it.
    pub fn update(&self, key: impl Key, row: impl IntoRow) -> Result<bool> {
        let key = self.encode(self.primary_index()?, &key, false)?;
        let values = row.into_row();
        self.tx.statement(Op::Write, |txn| {
            let written = self.write_row(txn, &key, |txn, tid, old| {
                Ok(self.rel.update(txn, tid, old, values.clone())?)
            })?;
            Ok(written.is_some())
        })
    }

    /// Deletes the row whose primary key is `key`; returns it.
    pub fn delete(&self, key: impl Key) -> Result<Option<Row>> {
        let key = self.encode(self.primary_index()?, &key, false)?;
        let deleted = self.tx.statement(Op::Write, |txn| {
            self.write_row(txn, &key, |txn, tid, _| Ok(self.rel.delete(txn, tid)?))
        })?;
        Ok(deleted.map(|values| self.row(values)))
    }

    /// `SELECT ... WHERE key = $1 FOR UPDATE`: the row, locked until the
    /// transaction ends (other writers of it wait).
    pub fn get_for_update(&self, key: impl Key) -> Result<Option<Row>> {
        let key = self.encode(self.primary_index()?, &key, false)?;
        let locked = self
            .tx
            .statement(Op::Read, |txn| self.lock_row(txn, &key))?;
        Ok(locked.map(|values| self.row(values)))
    }

    /// `SELECT ... WHERE key = $1 FOR SHARE`: the row, share-locked until
    /// the transaction ends (writers wait; other share lockers do not).
    pub fn get_for_share(&self, key: impl Key) -> Result<Option<Row>> {
        let key = self.encode(self.primary_index()?, &key, false)?;
        let locked = self.tx.statement(Op::Read, |txn| {
            self.write_row(txn, &key, |txn, tid, _| {
                Ok(self.rel.table.lock_shared(txn, tid)?)
            })
        })?;
        Ok(locked.map(|values| self.row(values)))
    }

    fn lock_row(&self, txn: &mut folio_txn::Transaction, key: &[u8]) -> Result<Option<Vec<Value>>> {
        self.write_row(txn, key, |txn, tid, _| Ok(self.rel.table.lock(txn, tid)?))
    }

    /// Compare-and-swap on the row whose primary key is `key`: if its
    /// current values equal `expected` (`None`: no such row), it becomes
    /// `new` (`None`: deleted) and this returns `Ok(Ok(()))`; otherwise
    /// nothing changes and this returns `Ok(Err(current))`. The row is
    /// locked before it is compared, so no other transaction changes it
    /// in between.
    pub fn compare_and_swap(
        &self,
        key: impl Key,
        expected: Option<&[Value]>,
        new: Option<impl IntoRow>,
    ) -> Result<Result<(), Option<Row>>> {
        let primary = self.primary_index()?;
        let key = self.encode(primary, &key, false)?;
        let expected = match expected {
            Some(values) => Some(self.fitted(values)?),
            None => None,
        };
        let new = new.map(IntoRow::into_row);
        self.tx.statement(Op::Write, |txn| {
            let current = self.lock_row(txn, &key)?;
            if current != expected {
                return Ok(Err(current.map(|values| self.row(values))));
            }
            match (current, new) {
                (None, None) => {}
                (None, Some(values)) => {
                    self.rel.insert(txn, values)?;
                }
                (Some(_), new) => {
                    self.write_row(txn, &key, |txn, tid, old| match &new {
                        Some(values) => Ok(self.rel.update(txn, tid, old, values.clone())?),
                        None => Ok(self.rel.delete(txn, tid)?),
                    })?;
                }
            }
            Ok(Ok(()))
        })
    }

    /// `values` fitted to the columns (for comparing with stored rows).
    fn fitted(&self, values: &[Value]) -> Result<Vec<Value>> {
        if values.len() != self.rel.types.len() {
            return Err(folio_row::RowError::Arity {
                values: values.len(),
                columns: self.rel.types.len(),
            }
            .into());
        }
        Ok(values
            .iter()
            .zip(&self.rel.types)
            .map(|(v, ty)| v.clone().fit(*ty))
            .collect::<Result<Vec<Value>, _>>()?)
    }

    /// The rows whose primary keys lie in `range`, in key order; `.rev()`
    /// for descending order. A bound with fewer values than the key has
    /// columns is a prefix: `("eu",)..=("eu",)` is every key starting
    /// with `"eu"`.
    pub fn range<K: Key>(&self, range: impl RangeBounds<K>) -> Result<Range<'_>> {
        let primary = self.primary_index()?;
        Ok(match self.bounds(primary, range)? {
            Some((lower, upper)) => Range::new(self, primary, lower, upper),
            None => Range::empty(self),
        })
    }

    /// The encoded bounds of `range` in `index` (the one owner of the
    /// prefix rule: a bound with fewer values than the index has columns
    /// covers every key that starts with them); `None`: nothing can lie in
    /// it.
    fn bounds<K: Key>(
        &self,
        index: &RelationIndex,
        range: impl RangeBounds<K>,
    ) -> Result<Option<EncodedBounds>> {
        let lower = match range.start_bound() {
            Bound::Included(k) => Bound::Included(self.encode(index, k, true)?),
            Bound::Excluded(k) => match prefix_successor(&self.encode(index, k, true)?) {
                Some(after) => Bound::Included(after),
                None => return Ok(None),
            },
            Bound::Unbounded => Bound::Unbounded,
        };
        let upper = match range.end_bound() {
            Bound::Included(k) => match prefix_successor(&self.encode(index, k, true)?) {
                Some(after) => Bound::Excluded(after),
                None => Bound::Unbounded,
            },
            Bound::Excluded(k) => Bound::Excluded(self.encode(index, k, true)?),
            Bound::Unbounded => Bound::Unbounded,
        };
        Ok(Some((lower, upper)))
    }

    /// Every row, in primary-key order (`.rev()` for descending).
    pub fn iter(&self) -> Result<Range<'_>> {
        self.range::<Value>(..)
    }

    /// The row with the smallest primary key.
    pub fn first(&self) -> Result<Option<Row>> {
        self.iter()?.next().transpose()
    }

    /// The row with the largest primary key.
    pub fn last(&self) -> Result<Option<Row>> {
        self.iter()?.next_back().transpose()
    }

    /// How many rows this transaction sees: counted on the primary key,
    /// without reading heap pages that the visibility map says are all
    /// visible (an index-only count).
    pub fn len(&self) -> Result<u64> {
        let primary = self.primary_index()?;
        self.tx.statement(Op::Read, |txn| {
            let (count, _) = primary.index.count_visible(
                txn,
                &self.rel.table,
                Bound::Unbounded,
                Bound::Unbounded,
            )?;
            Ok(count)
        })
    }

    pub fn is_empty(&self) -> Result<bool> {
        Ok(self.first()?.is_none())
    }

    /// The rows whose key in the secondary index `index` is `key` (or
    /// starts with it, for fewer values than the index has columns), in
    /// index order.
    pub fn get_by<K: Key>(&self, index: &str, key: K) -> Result<Vec<Row>> {
        self.range_by::<K>(index, (Bound::Included(&key), Bound::Included(&key)))
    }

    /// The rows whose keys in the secondary index `index` lie in `range`
    /// (bounds as [`Table::range`]'s), collected in index order (`.rev()`
    /// the vector for descending).
    pub fn range_by<K: Key>(&self, index: &str, range: impl RangeBounds<K>) -> Result<Vec<Row>> {
        let index = self.secondary_index(index)?;
        let Some((lower, upper)) = self.bounds(index, range)? else {
            return Ok(Vec::new());
        };
        let rows = self.tx.statement(Op::Read, |txn| {
            let found = index.index.scan(
                txn,
                &self.rel.table,
                lower.as_ref().map(Vec::as_slice),
                upper.as_ref().map(Vec::as_slice),
                folio_btree::Direction::Forward,
            )?;
            found
                .into_iter()
                .map(|(_, bytes)| Ok(self.rel.decode(txn, &bytes)?))
                .collect::<Result<Vec<_>>>()
        })?;
        Ok(rows.into_iter().map(|values| self.row(values)).collect())
    }

    /// The decoded row a range's entry leads to, if `txn` sees it.
    pub(crate) fn visible(&self, txn: &folio_txn::Transaction, tid: Tid) -> Result<Option<Row>> {
        let mut found = None;
        self.rel.table.fetch_chain_with(txn, tid, |_, bytes| {
            found = Some(self.rel.decode(txn, bytes));
        })?;
        match found {
            Some(values) => Ok(Some(self.row(values?))),
            None => Ok(None),
        }
    }
}
