//! A table as the SQL layer uses it: its heap, its column types, and its
//! indexes with their key encodings, so that every row change keeps every
//! index in step (the one owner of that rule).
//!
//! - **Insert**: the values are fitted to the column types (lengths,
//!   padding), NOT NULL is checked (23502), the row is encoded and
//!   inserted, and an entry is added to every index (unique ones check
//!   first, 23505). If an index refuses, the new version is deleted again
//!   by the same transaction, so it is never seen (not even by itself).
//! - **Update**: HOT when no indexed column changed (no index entries),
//!   else a new entry in every index, as PostgreSQL does.
//! - **Delete**: the heap's; index entries go with vacuum.
//! - **Deferrable keys**: an index of a `DEFERRABLE` PRIMARY KEY or
//!   UNIQUE constraint checks as any unique index for the writes above;
//!   the `_deferring` forms ([`Relation::insert_many_deferring`],
//!   [`Relation::update_deferring`]) instead enter a possible duplicate
//!   and hand back an [`UniqueRecheck`], which the caller runs
//!   ([`Relation::recheck_unique`]) before its transaction commits (at
//!   the statement's end or at COMMIT: folio-sql's `deferred.rs`).

use crate::autovacuum::TableActivity;
use crate::catalog::Catalog;
use crate::currency::DdlMark;
use crate::defs::{IndexDef, TableDef};
use crate::error::CatalogError;
use crate::index_exprs::{DerivedKeys, IndexEvaluator};
use crate::layout::StoredLayout;
use crate::statistics::{StatsSlot, TableStats};
use crate::toast::{self, TOAST_OID, Toast};
use folio_heap::{Index, Table, Tid, Write};
use folio_row::{
    KeyColumn, SqlType, Stored, Value, decode_key, decode_marked, decode_stored,
    decode_stored_columns, encode_key,
};
use folio_txn::{Csn, LockMode, Transaction, Xid};
use std::sync::atomic::Ordering;
use std::sync::{Arc, OnceLock};

/// A row and where its version lives.
pub type RowAt = (Tid, Vec<Value>);

/// Which columns a read decodes ([`Relation::reads`]): a query's, as
/// slots of the stored row, so a scan skips the values nobody reads (they
/// read as NULL). `ALL` decodes every column.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reads(Option<ReadSlots>);

/// The columns of [`Reads`] short of all: by slot, whether it is read and
/// at which position its value goes.
#[derive(Debug, Clone, PartialEq, Eq)]
struct ReadSlots {
    marks: Vec<bool>,
    positions: Vec<usize>,
}

impl Reads {
    pub const ALL: Reads = Reads(None);
}

/// An index entry to make: its key, and whether a unique index checks it.
type Entry = (Vec<u8>, bool);

/// An entry a deferrable key's index took although another entry of its
/// key may lead to a live row (folio-heap `Index::insert_partial`): the
/// key must be checked again ([`Relation::recheck_unique`]) before the
/// writing transaction commits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UniqueRecheck {
    /// The index's oid (its constraint's, for `SET CONSTRAINTS`).
    pub index: u64,
    /// The version the entry leads to (a HOT chain's root).
    pub tid: Tid,
}

/// An index of a relation, with how its keys are encoded.
#[derive(Debug)]
pub struct RelationIndex {
    pub def: IndexDef,
    pub index: Index,
    pub key_columns: Vec<KeyColumn>,
    /// Its expressions and predicate, compiled on first use (none for an
    /// index over plain columns).
    derived: Option<Derived>,
}

/// An index's expressions and predicate: what compiles them, and what
/// they compiled to.
#[derive(Debug)]
struct Derived {
    evaluator: Option<Arc<dyn IndexEvaluator>>,
    table: TableDef,
    types: Vec<SqlType>,
    compiled: OnceLock<Arc<dyn DerivedKeys>>,
}

impl RelationIndex {
    /// The key of a row's `values` (by column position), or `None` when
    /// the row has no entry (a partial index's predicate is not true for
    /// it). A key longer than the index's tree holds is 54000 with
    /// PostgreSQL's message (the tree's limit: 2,680 bytes for indexes
    /// made since session 11, whose prefix-free keys are stored
    /// unescaped; 1,339 for older ones; PostgreSQL's is 2,696 bytes of key
    /// in a 2,704-byte entry).
    pub fn key(&self, values: &[Value]) -> Result<Option<Vec<u8>>, CatalogError> {
        match self.key_values(values)? {
            Some(key_values) => Ok(Some(self.key_of(&key_values)?)),
            None => Ok(None),
        }
    }

    /// The index's key values of a row's `values` (by column position),
    /// in the index's order: its columns' values and its expressions'; or
    /// `None` when the row has no entry (the one owner of which rows a
    /// partial index holds).
    pub fn key_values(&self, values: &[Value]) -> Result<Option<Vec<Value>>, CatalogError> {
        let Some(derived) = self.derived()? else {
            return Ok(Some(
                (self.def.columns.iter())
                    .map(|&c| values[c as usize].clone())
                    .collect(),
            ));
        };
        if !derived.includes(values)? {
            return Ok(None);
        }
        let mut computed = derived.expressions(values)?.into_iter();
        (self.def.columns.iter())
            .map(|&c| match c {
                IndexDef::EXPRESSION => computed.next().ok_or_else(|| {
                    CatalogError::Corrupt(format!(
                        "index \"{}\" has more expression keys than expressions",
                        self.def.name
                    ))
                }),
                c => Ok(values[c as usize].clone()),
            })
            .collect::<Result<Vec<Value>, _>>()
            .map(Some)
    }

    /// The index's expressions and predicate as the SQL layer compiled
    /// them (`None`: a plain index). Without an evaluator (no SQL layer
    /// registered) 0A000: no row is written without its entry.
    pub fn derived(&self) -> Result<Option<&Arc<dyn DerivedKeys>>, CatalogError> {
        let Some(derived) = &self.derived else {
            return Ok(None);
        };
        if let Some(compiled) = derived.compiled.get() {
            return Ok(Some(compiled));
        }
        let Some(evaluator) = &derived.evaluator else {
            return Err(CatalogError::Row(folio_row::RowError::Unsupported(
                format!(
                    "index \"{}\" has expressions or a predicate, which only the SQL layer evaluates",
                    self.def.name
                ),
            )));
        };
        let compiled = evaluator.compile(&derived.table, &derived.types, &self.def)?;
        Ok(Some(derived.compiled.get_or_init(|| compiled)))
    }

    /// Whether a unique index checks the entry of these key values (in
    /// the index's column order): not when one is NULL and NULLs are
    /// distinct (PostgreSQL's default, `NULLS DISTINCT`); always under
    /// `NULLS NOT DISTINCT`, where a NULL's key (folio-row's encoding, one
    /// for every NULL of a column) equals another's. The one owner of that
    /// rule.
    pub fn checks_unique(&self, key_values: &[Value]) -> bool {
        self.def.unique
            && (self.def.nulls == crate::Nulls::NotDistinct || !key_values.contains(&Value::Null))
    }

    /// Enters `key` (of `key_values`) for the version at `tid`, checked
    /// when [`RelationIndex::checks_unique`] says so: at once, or, for a
    /// deferrable key's index when the caller takes `rechecks`, later if
    /// a duplicate may exist (the recheck pushed there).
    fn enter(
        &self,
        txn: &mut Transaction,
        table: &Table,
        (key, checked): &(Vec<u8>, bool),
        tid: Tid,
        rechecks: Option<&mut Vec<UniqueRecheck>>,
    ) -> Result<(), CatalogError> {
        if *checked
            && self.def.deferrable.is_deferrable()
            && let Some(rechecks) = rechecks
        {
            if self.index.insert_partial(txn, table, key, tid)? {
                rechecks.push(UniqueRecheck {
                    index: self.def.oid,
                    tid,
                });
            }
        } else if *checked {
            self.index.insert(txn, table, key, tid)?;
        } else {
            self.index.insert_unchecked(key, tid)?;
        }
        Ok(())
    }

    /// The entry of a row's `values`: its key, and whether a unique index
    /// checks it; `None` when the row has none.
    fn entry(&self, values: &[Value]) -> Result<Option<Entry>, CatalogError> {
        match self.key_values(values)? {
            Some(key_values) => Ok(Some(self.entry_of(&key_values)?)),
            None => Ok(None),
        }
    }

    /// The entry of the index's own columns' values, in its column order.
    fn entry_of(&self, key_values: &[Value]) -> Result<Entry, CatalogError> {
        Ok((self.key_of(key_values)?, self.checks_unique(key_values)))
    }

    /// The key of the index's own columns' values, in its column order
    /// (the one owner of the key length limit).
    fn key_of(&self, key_values: &[Value]) -> Result<Vec<u8>, CatalogError> {
        let key = encode_key(key_values, &self.key_columns)?;
        let max = self.index.tree().max_key_len();
        if key.len() > max {
            return Err(folio_row::RowError::KeyTooLong {
                len: key.len(),
                max,
            }
            .into());
        }
        Ok(key)
    }
}

/// What an entry held for a build costs besides its key bytes.
const ENTRY_OVERHEAD: usize = 48;

/// A table opened for reading and writing rows.
#[derive(Debug)]
pub struct Relation {
    pub def: TableDef,
    pub table: Arc<Table>,
    /// Its columns' types, by position.
    pub types: Vec<SqlType>,
    pub indexes: Vec<RelationIndex>,
    /// Where its values are in stored rows, if it has dropped columns
    /// (`layout.rs`; none: a row holds the values by position).
    stored: Option<StoredLayout>,
    /// Dead-version counts for autovacuum.
    activity: Arc<TableActivity>,
    /// The planner's statistics from the last ANALYZE.
    statistics: Arc<StatsSlot>,
    /// Where values too large for a row go, and its autovacuum counts.
    toast: Arc<Toast>,
    toast_activity: Arc<TableActivity>,
    /// The table's DDL mark, and the snapshot the relation was read with
    /// (`None`: opened from a definition; not checked) (`currency.rs`).
    ddl_mark: Arc<DdlMark>,
    /// With the transaction that read it (its own DDL it saw).
    read_with: Option<(Csn, Option<Xid>)>,
}

/// The types of a table's columns.
pub(crate) fn column_types(def: &TableDef) -> Result<Vec<SqlType>, CatalogError> {
    def.columns
        .iter()
        .map(|c| {
            crate::enums::column_type(def, c.type_oid, c.typmod).ok_or_else(|| {
                CatalogError::UnsupportedType {
                    column: c.name.clone(),
                    type_oid: c.type_oid,
                }
            })
        })
        .collect()
}

impl Catalog {
    /// The table `name` as `txn` sees it, opened with its indexes.
    pub fn relation(
        &self,
        txn: &Transaction,
        name: &str,
    ) -> Result<Option<Relation>, CatalogError> {
        let Some(def) = self.table(txn, name)? else {
            return Ok(None);
        };
        let mut relation = self.open_relation(def)?;
        relation.read_with = Some((txn.snapshot().0, txn.existing_xid()));
        Ok(Some(relation))
    }

    /// Opens a relation from its definition.
    pub fn open_relation(&self, def: TableDef) -> Result<Relation, CatalogError> {
        let types = column_types(&def)?;
        let indexes = def
            .indexes
            .iter()
            .map(|d| self.open_relation_index(&def, &types, d))
            .collect::<Result<Vec<_>, CatalogError>>()?;
        let stored = StoredLayout::of(&def.layout, &types)?;
        Ok(Relation {
            table: self.open_table(&def)?,
            activity: self.activity(def.oid),
            statistics: self.statistics_slot(def.oid),
            toast: self.toast.clone(),
            toast_activity: self.activity(TOAST_OID),
            ddl_mark: self.ddl_marks.of(def.oid),
            read_with: None,
            def,
            types,
            indexes,
            stored,
        })
    }
}

impl Catalog {
    /// Index `d` of the table `def` (of column types `types`), opened: its
    /// key columns' types (an expression's, where the key is one), and
    /// what compiles its expressions and predicate.
    fn open_relation_index(
        &self,
        def: &TableDef,
        types: &[SqlType],
        d: &IndexDef,
    ) -> Result<RelationIndex, CatalogError> {
        let mut expressions = d.exprs.keys.iter();
        let key_columns = (d.columns.iter().zip(&d.order))
            .map(|(&c, o)| {
                let ty = match c {
                    IndexDef::EXPRESSION => expressions
                        .next()
                        .ok_or_else(|| {
                            CatalogError::Corrupt(format!(
                                "index \"{}\" lacks an expression",
                                d.name
                            ))
                        })?
                        .ty()?,
                    c => types[c as usize],
                };
                Ok(KeyColumn {
                    ty,
                    descending: o.descending,
                    nulls_first: o.nulls_first,
                })
            })
            .collect::<Result<Vec<_>, CatalogError>>()?;
        let derived = (!d.is_plain()).then(|| Derived {
            evaluator: self.index_evaluator(),
            table: def.clone(),
            types: types.to_vec(),
            compiled: OnceLock::new(),
        });
        Ok(RelationIndex {
            index: self.open_index(d)?,
            key_columns,
            def: d.clone(),
            derived,
        })
    }
}

impl Relation {
    /// The planner's statistics from the table's last ANALYZE, if any.
    pub fn statistics(&self) -> Option<Arc<TableStats>> {
        self.statistics.get()
    }

    /// How many times the table's statistics were replaced (by ANALYZE,
    /// or loaded at start): a plan records it and is made again when it
    /// moves.
    pub fn statistics_version(&self) -> u64 {
        self.statistics.version()
    }

    pub(crate) fn statistics_slot(&self) -> &StatsSlot {
        &self.statistics
    }

    /// Decodes a stored row as `txn` sees it (fetching values stored out
    /// of line): its columns' values, by position.
    pub fn decode(&self, txn: &Transaction, row: &[u8]) -> Result<Vec<Value>, CatalogError> {
        self.decode_read(txn, row, &Reads::ALL)
    }

    /// What reading only the columns at `positions` decodes (`None`: every
    /// column).
    pub fn reads(&self, positions: Option<&[usize]>) -> Reads {
        Reads(positions.map(|positions| {
            let slots = self.stored_types().len();
            let mut read = ReadSlots {
                marks: vec![false; slots],
                positions: vec![usize::MAX; slots],
            };
            for &p in positions {
                let slot = match &self.stored {
                    Some(stored) => stored.slot(p),
                    None => p,
                };
                read.marks[slot] = true;
                read.positions[slot] = p;
            }
            read
        }))
    }

    /// [`Relation::decode`] of only the columns `reads` names; the others
    /// are NULL (and values stored out of line among them not fetched).
    /// The one owner of turning a stored row into values.
    pub fn decode_read(
        &self,
        txn: &Transaction,
        row: &[u8],
        reads: &Reads,
    ) -> Result<Vec<Value>, CatalogError> {
        let mut values = Vec::new();
        self.decode_read_into(txn, row, reads, &mut values)?;
        Ok(values)
    }

    /// [`Relation::decode_read`] into `values`, a row this relation's
    /// rows were decoded into before with the same `reads` (or an empty
    /// one): only the read columns are written again, so a scan reuses
    /// one row's memory for all of them.
    pub fn decode_read_into(
        &self,
        txn: &Transaction,
        row: &[u8],
        reads: &Reads,
        values: &mut Vec<Value>,
    ) -> Result<(), CatalogError> {
        let resolve = |cell, ty| match cell {
            Stored::Inline(value) => Ok(value),
            external => self.toast.resolve(txn, self.def.oid, external, ty),
        };
        let Some(read) = &reads.0 else {
            let mut cells = decode_stored(row, self.stored_types())?;
            if let Some(stored) = &self.stored {
                cells = stored.columns_of(cells);
            }
            values.clear();
            for (cell, ty) in cells.into_iter().zip(&self.types) {
                values.push(resolve(cell, *ty)?);
            }
            return Ok(());
        };
        // (Every read column is written, NULLs too: the others stay NULL.)
        if values.len() != self.types.len() {
            *values = vec![Value::Null; self.types.len()];
        }
        decode_marked(row, self.stored_types(), &read.marks, |slot, cell| {
            let position = read.positions[slot];
            values[position] = resolve(cell, self.types[position])?;
            Ok::<_, CatalogError>(())
        })
    }

    /// The types of a stored row's slots (dropped columns' included).
    fn stored_types(&self) -> &[SqlType] {
        match &self.stored {
            Some(stored) => stored.types(),
            None => &self.types,
        }
    }

    /// A row's values (by position, prepared) as a stored row, its long
    /// values stored out of line (NULL in dropped columns' slots).
    fn encode(&self, txn: &mut Transaction, values: Vec<Value>) -> Result<Vec<u8>, CatalogError> {
        let values = match &self.stored {
            Some(stored) => stored.to_slots(values),
            None => values,
        };
        (self.toast).encode(txn, self.def.oid, values, self.stored_types())
    }

    /// Deletes the out-of-line values of the version at `tid` (it was just
    /// updated or deleted by `txn`).
    fn drop_toasted(&self, txn: &mut Transaction, tid: Tid) -> Result<(), CatalogError> {
        if !toast::may_hold_external(self.stored_types()) {
            // (Not read again: no row of these types has any.)
            return Ok(());
        }
        match self.table.fetch_any(tid)? {
            Some(row) => self.drop_externals(txn, &row),
            None => Ok(()),
        }
    }

    /// Deletes the out-of-line values a row points at.
    fn drop_externals(&self, txn: &mut Transaction, row: &[u8]) -> Result<(), CatalogError> {
        for cell in decode_stored(row, self.stored_types())? {
            if let Stored::External { id, .. } = cell {
                let chunks = self.toast.delete(txn, self.def.oid, id)?;
                self.toast_activity
                    .dead
                    .fetch_add(chunks, Ordering::Relaxed);
            }
        }
        Ok(())
    }

    /// Whether the relation, read earlier (by this or another
    /// transaction), is still what `txn` would read: its snapshot is not
    /// older than the read, and no DDL on the table committed since
    /// (`currency.rs`). A caller that ran DDL itself must read the
    /// relation again (its own uncommitted DDL is not seen as a change).
    pub fn is_current(&self, txn: &Transaction) -> Result<bool, CatalogError> {
        let Some((read_at, reader)) = self.read_with else {
            return Ok(false);
        };
        if txn.snapshot().0 < read_at {
            return Ok(false);
        }
        Ok(!self
            .ddl_mark
            .changed_since(txn.manager(), read_at, reader)?)
    }

    /// The table lock every row change takes (`ROW EXCLUSIVE`, folio-txn
    /// `relation_locks.rs`): `CREATE INDEX` waits for running writers and
    /// they for it, so an index never misses a row. Once per transaction
    /// and table.
    /// Newly taken, the lock also checks that no DDL on the table
    /// committed after the relation was read (`currency.rs`): 40001 if one
    /// did (open the relation again).
    fn lock_for_writes(&self, txn: &mut Transaction) -> Result<(), CatalogError> {
        let newly = txn.lock_table(self.def.oid, LockMode::RowExclusive)?;
        if newly
            && let Some((snapshot, reader)) = self.read_with
            && self
                .ddl_mark
                .changed_since(txn.manager(), snapshot, reader)?
        {
            return Err(CatalogError::Stale(self.def.name.clone()));
        }
        Ok(())
    }

    /// Fits `values` to the columns and checks NOT NULL (what insert and
    /// update do first; the SQL layer evaluates CHECK constraints on the
    /// result, as PostgreSQL checks them after NOT NULL).
    pub fn prepare(&self, values: Vec<Value>) -> Result<Vec<Value>, CatalogError> {
        if values.len() != self.types.len() {
            return Err(folio_row::RowError::Arity {
                values: values.len(),
                columns: self.types.len(),
            }
            .into());
        }
        let values = (values.into_iter().zip(&self.types))
            .map(|(v, ty)| v.fit(*ty))
            .collect::<Result<Vec<Value>, _>>()?;
        let left_null = (self.def.columns.iter().zip(&values))
            .find(|(column, v)| column.not_null && **v == Value::Null);
        if let Some((column, _)) = left_null {
            let texts = value_texts(&values);
            return Err(CatalogError::NotNull {
                table: self.def.name.clone(),
                column: column.name.clone(),
                row: texts.join(", "),
                values: texts,
            });
        }
        Ok(values)
    }

    /// The entry of `values` in every index, in index order (`None`
    /// where a partial index holds no entry for it).
    fn keys(&self, values: &[Value]) -> Result<Vec<Option<Entry>>, CatalogError> {
        self.indexes.iter().map(|i| i.entry(values)).collect()
    }

    /// Inserts a row; returns where it lives.
    pub fn insert(&self, txn: &mut Transaction, values: Vec<Value>) -> Result<Tid, CatalogError> {
        let tids = self.insert_many(txn, vec![values])?;
        Ok(tids[0])
    }

    /// Inserts `rows`: each fitted to the columns and its long values
    /// stored out of line, their versions put on the heap together, a
    /// record per page (folio-heap `Table::insert_many`; one row is
    /// applied in place), then their index entries row by row. If an
    /// entry is refused, that row and the batch's later ones are deleted
    /// again (none is ever seen without its index entries) and the error
    /// returned. Returns where each row lives, in order.
    pub fn insert_many(
        &self,
        txn: &mut Transaction,
        rows: Vec<Vec<Value>>,
    ) -> Result<Vec<Tid>, CatalogError> {
        self.insert_rows(txn, rows, None)
    }

    /// [`Relation::insert_many`] leaving a deferrable key's possible
    /// duplicates to be checked later: their rechecks are pushed onto
    /// `rechecks` (module doc).
    pub fn insert_many_deferring(
        &self,
        txn: &mut Transaction,
        rows: Vec<Vec<Value>>,
        rechecks: &mut Vec<UniqueRecheck>,
    ) -> Result<Vec<Tid>, CatalogError> {
        self.insert_rows(txn, rows, Some(rechecks))
    }

    fn insert_rows(
        &self,
        txn: &mut Transaction,
        rows: Vec<Vec<Value>>,
        mut rechecks: Option<&mut Vec<UniqueRecheck>>,
    ) -> Result<Vec<Tid>, CatalogError> {
        self.lock_for_writes(txn)?;
        let mut keys = Vec::with_capacity(rows.len());
        let mut encoded = Vec::with_capacity(rows.len());
        for values in rows {
            let values = self.prepare(values)?;
            keys.push(self.keys(&values)?);
            encoded.push(self.encode(txn, values)?);
        }
        let tids = self.table.insert_many(txn, &encoded)?;
        // Counted as put on the heap: a row an index refuses below is
        // deleted again, and its transaction fails (a dead row).
        txn.count_insert(self.def.oid, tids.len() as u64);
        for (i, (&tid, keys)) in tids.iter().zip(&keys).enumerate() {
            if let Err(e) = self.enter(txn, tid, keys, &encoded[i], rechecks.as_deref_mut()) {
                for (&later, row) in tids[i + 1..].iter().zip(&encoded[i + 1..]) {
                    self.table.delete(txn, later)?;
                    self.drop_externals(txn, row)?;
                }
                self.drop_externals(txn, &encoded[i])?;
                return Err(e);
            }
        }
        Ok(tids)
    }

    /// Adds the index entries of the new version at `tid` (stored as
    /// `row`); if one is refused, deletes the version again (so it is
    /// never seen).
    fn enter(
        &self,
        txn: &mut Transaction,
        tid: Tid,
        keys: &[Option<Entry>],
        row: &[u8],
        mut rechecks: Option<&mut Vec<UniqueRecheck>>,
    ) -> Result<(), CatalogError> {
        for (index, entry) in self.indexes.iter().zip(keys) {
            let Some(entry) = entry else { continue };
            if let Err(e) = index.enter(txn, &self.table, entry, tid, rechecks.as_deref_mut()) {
                let e = self.described(txn, index, row, e);
                self.table.delete(txn, tid)?;
                return Err(e);
            }
        }
        Ok(())
    }

    /// The key values of `ri` for the stored `row`, in the index's
    /// column order (values stored out of line fetched); `None` when the
    /// row has no entry.
    fn key_values_of(
        &self,
        txn: &Transaction,
        ri: &RelationIndex,
        row: &[u8],
    ) -> Result<Option<Vec<Value>>, CatalogError> {
        if ri.derived.is_some() {
            return ri.key_values(&self.decode(txn, row)?);
        }
        // (Borrowed without dropped columns: an index build calls this
        // for every row.)
        let slots: std::borrow::Cow<'_, [u16]> = match &self.stored {
            Some(stored) => (ri.def.columns.iter())
                .map(|&c| stored.slot(usize::from(c)) as u16)
                .collect(),
            None => (&ri.def.columns[..]).into(),
        };
        decode_stored_columns(row, self.stored_types(), &slots)?
            .into_iter()
            .zip(&ri.def.columns)
            .map(|(cell, &c)| {
                self.toast
                    .resolve(txn, self.def.oid, cell, self.types[c as usize])
            })
            .collect::<Result<Vec<Value>, _>>()
            .map(Some)
    }

    /// A unique violation in `ri` of the new version `row` as PostgreSQL
    /// reports it, with the row's key in its DETAIL (as the row gave it,
    /// `1.50` where the key holds `1.5`); any other error as it is.
    fn described(
        &self,
        txn: &Transaction,
        ri: &RelationIndex,
        row: &[u8],
        e: CatalogError,
    ) -> CatalogError {
        let CatalogError::Heap(folio_heap::HeapError::UniqueViolation { index, .. }) = e else {
            return e;
        };
        // The key as the row gave it (a value stored out of line that
        // cannot be fetched leaves the DETAIL out).
        let detail = self
            .key_values_of(txn, ri, row)
            .ok()
            .flatten()
            .map(|values| {
                format!(
                    "Key ({})=({}) already exists.",
                    self.column_names(ri),
                    value_texts(&values).join(", ")
                )
            });
        CatalogError::Duplicate {
            table: self.def.name.clone(),
            index,
            detail,
        }
    }

    /// Replaces the version at `tid` by `values`: HOT when no index's
    /// entry changed (its key, or whether there is one), else with new
    /// entries in every index.
    pub fn update(
        &self,
        txn: &mut Transaction,
        tid: Tid,
        old: &[Value],
        values: Vec<Value>,
    ) -> Result<Write, CatalogError> {
        self.update_row(txn, tid, old, values, None)
    }

    /// [`Relation::update`] leaving a deferrable key's possible
    /// duplicates to be checked later, as
    /// [`Relation::insert_many_deferring`].
    pub fn update_deferring(
        &self,
        txn: &mut Transaction,
        tid: Tid,
        old: &[Value],
        values: Vec<Value>,
        rechecks: &mut Vec<UniqueRecheck>,
    ) -> Result<Write, CatalogError> {
        self.update_row(txn, tid, old, values, Some(rechecks))
    }

    fn update_row(
        &self,
        txn: &mut Transaction,
        tid: Tid,
        old: &[Value],
        values: Vec<Value>,
        rechecks: Option<&mut Vec<UniqueRecheck>>,
    ) -> Result<Write, CatalogError> {
        let values = self.prepare(values)?;
        let keys = self.keys(&values)?;
        self.lock_for_writes(txn)?;
        let indexed_changed = self
            .indexes
            .iter()
            .zip(&keys)
            .map(|(i, entry)| {
                Ok(i.key(old)?.as_deref() != entry.as_ref().map(|(key, _)| key.as_slice()))
            })
            .collect::<Result<Vec<bool>, CatalogError>>()?
            .into_iter()
            .any(|changed| changed);
        let write = self.replace(txn, tid, values, &keys, indexed_changed, self, rechecks)?;
        if let Write::Done(_) | Write::Hot(_) = write {
            txn.count_update(self.def.oid, matches!(write, Write::Hot(_)));
        }
        Ok(write)
    }

    /// A column type change's rewrite of the version at `tid`, written
    /// under the column types of `before` (the relation as it was), as
    /// `values` (converted by the caller; fitted and checked here). No
    /// index of this relation is over a changed column (those are built
    /// again afterwards), so no key changes: HOT where the page has room.
    /// Design: the README's "Changing a column's type".
    pub(crate) fn rewrite(
        &self,
        txn: &mut Transaction,
        tid: Tid,
        before: &Relation,
        values: Vec<Value>,
    ) -> Result<(), CatalogError> {
        let values = self.prepare(values)?;
        let keys = self.keys(&values)?;
        self.lock_for_writes(txn)?;
        match self.replace(txn, tid, values, &keys, false, before, None)? {
            Write::Done(_) | Write::Hot(_) => Ok(()),
            other => Err(CatalogError::Corrupt(format!(
                "a row of \"{}\" locked for a type change could not be updated ({other:?})",
                self.def.name
            ))),
        }
    }

    /// Writes the prepared `values` (with their index `keys`) as the new
    /// version of `tid`; the old version's out-of-line values are freed
    /// as `written` (the relation whose column types it was written
    /// under) decodes it; `rechecks` as in [`Relation::update_deferring`].
    #[allow(clippy::too_many_arguments)]
    fn replace(
        &self,
        txn: &mut Transaction,
        tid: Tid,
        values: Vec<Value>,
        keys: &[Option<Entry>],
        indexed_changed: bool,
        written: &Relation,
        rechecks: Option<&mut Vec<UniqueRecheck>>,
    ) -> Result<Write, CatalogError> {
        let row = self.encode(txn, values)?;
        let write = self.table.update(txn, tid, &row, indexed_changed)?;
        if let Write::Done(Some(new)) = write {
            self.enter(txn, new, keys, &row, rechecks)?;
        }
        if matches!(write, Write::Done(_) | Write::Hot(_)) {
            self.activity.dead.fetch_add(1, Ordering::Relaxed);
            written.drop_toasted(txn, tid)?;
        } else {
            // Nothing was written: the new values stored out of line go.
            self.drop_externals(txn, &row)?;
        }
        Ok(write)
    }

    /// Runs a check a deferrable key's index left (`recheck`): if the row
    /// whose entry it is still lives for this transaction (not deleted or
    /// moved by it since; a HOT update keeps the key), no other version
    /// of its key may be live (folio-heap `Index::recheck`, which waits
    /// for running writers of the key): 23505 as an insert's, naming the
    /// row's key. An index dropped since has nothing to check.
    pub fn recheck_unique(
        &self,
        txn: &mut Transaction,
        recheck: &UniqueRecheck,
    ) -> Result<(), CatalogError> {
        let Some(ri) = self.indexes.iter().find(|i| i.def.oid == recheck.index) else {
            return Ok(());
        };
        // The chain's version this transaction wrote and has not deleted.
        let live = (self.table.chain_headers(recheck.tid)?.into_iter()).find(|(_, h)| {
            txn.is_mine(h.xmin) && h.deleter().is_none_or(|deleter| !txn.is_mine(deleter))
        });
        let Some((at, _)) = live else {
            return Ok(());
        };
        let Some(row) = self.table.fetch_any(at)? else {
            return Ok(());
        };
        let Some((key, true)) = ri.entry(&self.decode(txn, &row)?)? else {
            return Ok(());
        };
        (ri.index.recheck(txn, &self.table, &key, recheck.tid))
            .map_err(|e| self.described(txn, ri, &row, e.into()))
    }

    /// Deletes the version at `tid`.
    pub fn delete(&self, txn: &mut Transaction, tid: Tid) -> Result<Write, CatalogError> {
        let write = self.remove(txn, tid)?;
        if write == Write::Done(None) {
            txn.count_delete(self.def.oid);
        }
        Ok(write)
    }

    /// [`Relation::delete`] without counting it in the table's statistics
    /// (TRUNCATE's deletes, which PostgreSQL does not count).
    pub(crate) fn remove(&self, txn: &mut Transaction, tid: Tid) -> Result<Write, CatalogError> {
        self.lock_for_writes(txn)?;
        let write = self.table.delete(txn, tid)?;
        if write == Write::Done(None) {
            self.activity.dead.fetch_add(1, Ordering::Relaxed);
            self.drop_toasted(txn, tid)?;
        }
        Ok(write)
    }

    /// Every row `txn` sees.
    pub fn scan(&self, txn: &Transaction) -> Result<Vec<(Tid, Vec<Value>)>, CatalogError> {
        let mut out = Vec::new();
        self.visit_rows(txn, &Reads::ALL, |tid, row| {
            out.push((tid, std::mem::take(row)));
            Ok::<_, CatalogError>(true)
        })?;
        Ok(out)
    }

    /// Calls `visit` with every row `txn` sees (the columns `reads` names
    /// decoded), in the heap's order, until it answers `false`: a
    /// sequential scan, nothing held but what `visit` keeps. Every row is
    /// decoded into the same vector: `visit` takes it
    /// (`std::mem::take`) to keep it, and otherwise leaves it unchanged.
    pub fn visit_rows<E: From<CatalogError>>(
        &self,
        txn: &Transaction,
        reads: &Reads,
        mut visit: impl FnMut(Tid, &mut Vec<Value>) -> Result<bool, E>,
    ) -> Result<(), E> {
        // (`visit`'s own error stops the scan and is returned as it is.)
        let mut failed = None;
        let mut values = Vec::new();
        self.table.visit_rows(txn, |tid, row| {
            self.decode_read_into(txn, row, reads, &mut values)?;
            visit(tid, &mut values).or_else(|e| {
                failed = Some(e);
                Ok::<_, CatalogError>(false)
            })
        })?;
        failed.map_or(Ok(()), Err)
    }

    /// The rows `txn` sees whose key in index `index` is `key_values`.
    pub fn lookup(
        &self,
        txn: &Transaction,
        index: usize,
        key_values: &[Value],
    ) -> Result<Vec<(Tid, Vec<Value>)>, CatalogError> {
        self.lookup_read(txn, index, key_values, &Reads::ALL)
    }

    /// [`Relation::lookup`] decoding only the columns `reads` names.
    pub fn lookup_read(
        &self,
        txn: &Transaction,
        index: usize,
        key_values: &[Value],
        reads: &Reads,
    ) -> Result<Vec<(Tid, Vec<Value>)>, CatalogError> {
        let ri = &self.indexes[index];
        let key = encode_key(key_values, &ri.key_columns)?;
        self.decode_rows(txn, ri.index.get(txn, &self.table, &key)?, reads)
    }

    /// Stored rows decoded as `txn` sees them (the columns `reads` names),
    /// with where they live.
    fn decode_rows(
        &self,
        txn: &Transaction,
        rows: folio_heap::Rows,
        reads: &Reads,
    ) -> Result<Vec<RowAt>, CatalogError> {
        rows.into_iter()
            .map(|(tid, row)| Ok((tid, self.decode_read(txn, &row, reads)?)))
            .collect()
    }

    /// An index scan of index `index` (folio-heap `Index::scan_counted`):
    /// the rows `txn` sees whose encoded key lies within the bounds, in
    /// index order (or reverse), decoded (the columns `reads` names), with
    /// the pages accessed. With `limit`, at most that many rows (the scan
    /// stops there).
    pub fn index_scan(
        &self,
        txn: &Transaction,
        index: usize,
        (lower, upper): (std::ops::Bound<&[u8]>, std::ops::Bound<&[u8]>),
        direction: folio_btree::Direction,
        limit: Option<usize>,
        reads: &Reads,
    ) -> Result<(Vec<RowAt>, folio_heap::ScanPages), CatalogError> {
        let (found, pages) = self.indexes[index].index.scan_counted(
            txn,
            &self.table,
            lower,
            upper,
            direction,
            limit,
        )?;
        Ok((self.decode_rows(txn, found, reads)?, pages))
    }

    /// An index-only scan of index `index` (folio-heap `Index::only_scan`):
    /// the key columns of every row `txn` sees whose encoded key lies within
    /// the bounds, in index order (or reverse), decoded; heap pages are
    /// read only where the visibility map does not say all-visible.
    pub fn index_only(
        &self,
        txn: &Transaction,
        index: usize,
        lower: std::ops::Bound<&[u8]>,
        upper: std::ops::Bound<&[u8]>,
        direction: folio_btree::Direction,
    ) -> Result<(Vec<Vec<Value>>, folio_heap::ScanPages), CatalogError> {
        let ri = &self.indexes[index];
        decoded_keys(ri, |visit| {
            ri.index
                .only_scan(txn, &self.table, lower, upper, direction, visit)
        })
    }

    /// An index-only lookup of one whole encoded key of index `index`
    /// (folio-heap `Index::only_get`): the key's values once for each row
    /// `txn` sees with it, with the pages accessed.
    pub fn index_only_get(
        &self,
        txn: &Transaction,
        index: usize,
        key: &[u8],
    ) -> Result<(Vec<Vec<Value>>, folio_heap::ScanPages), CatalogError> {
        let ri = &self.indexes[index];
        decoded_keys(ri, |visit| ri.index.only_get(txn, &self.table, key, visit))
    }

    /// Enters every row `txn` sees in index `index` (building a new index).
    pub(crate) fn build_index(
        &self,
        txn: &mut Transaction,
        index: usize,
        memory: usize,
    ) -> Result<(), CatalogError> {
        let ri = &self.indexes[index];
        self.fill_index(txn, ri, memory)
            .map_err(|e| self.not_unique(ri, e))
    }

    /// Two rows found sharing a key while `ri` was built, as PostgreSQL
    /// reports it (`could not create unique index`, the key in DETAIL);
    /// any other error as it is.
    fn not_unique(&self, ri: &RelationIndex, e: CatalogError) -> CatalogError {
        let CatalogError::Heap(folio_heap::HeapError::UniqueViolation { index, key }) = e else {
            return e;
        };
        let detail = decode_key(&key, &ri.key_columns).ok().map(|values| {
            format!(
                "Key ({})=({}) is duplicated.",
                self.column_names(ri),
                value_texts(&values).join(", ")
            )
        });
        CatalogError::Duplicated {
            table: self.def.name.clone(),
            index,
            detail,
        }
    }

    /// `ri`'s columns' names (an expression's text), in its order, as
    /// DETAIL lines list them.
    fn column_names(&self, ri: &RelationIndex) -> String {
        let mut expressions = ri.def.exprs.keys.iter();
        (ri.def.columns.iter())
            .map(|&c| match c {
                IndexDef::EXPRESSION => expressions.next().map_or("?", |e| e.sql.as_str()),
                c => self.def.columns[c as usize].name.as_str(),
            })
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// Enters every row `txn` sees in the empty index `ri`.
    fn fill_index(
        &self,
        txn: &mut Transaction,
        ri: &RelationIndex,
        memory: usize,
    ) -> Result<(), CatalogError> {
        // A page at a time (the table may be far larger than memory), and
        // only the key's columns decoded. The entries are gathered and
        // built bottom-up (folio-heap `Index::build`) while they fit
        // `memory` bytes; past it, one insert per row, from the start.
        let mut rows = Vec::new();
        let mut entries: Vec<(Vec<u8>, Tid, bool)> = Vec::new();
        let mut gathered = 0;
        let mut bottom_up = true;
        for page in self.table.page_ids()? {
            txn.check_interrupt()?;
            // Each row under its HOT chain's root, where entries point.
            self.table.page_chain_rows(txn, page, &mut rows)?;
            for (tid, row) in rows.drain(..) {
                let Some(key_values) = self.key_values_of(txn, ri, &row)? else {
                    continue;
                };
                let (key, checked) = ri.entry_of(&key_values)?;
                if !bottom_up {
                    ri.enter(txn, &self.table, &(key, checked), tid, None)?;
                    continue;
                }
                gathered += key.len() + ENTRY_OVERHEAD;
                entries.push((key, tid, checked));
                if gathered > memory {
                    bottom_up = false;
                    for (key, tid, checked) in entries.drain(..) {
                        ri.enter(txn, &self.table, &(key, checked), tid, None)?;
                    }
                }
            }
        }
        if bottom_up {
            ri.index.build(entries)?;
        }
        Ok(())
    }
}

/// The keys an index-only `scan` of `ri` visits, decoded into their
/// columns' values, with the pages it accessed.
fn decoded_keys(
    ri: &RelationIndex,
    scan: impl FnOnce(&mut dyn FnMut(&[u8])) -> Result<folio_heap::ScanPages, folio_heap::HeapError>,
) -> Result<(Vec<Vec<Value>>, folio_heap::ScanPages), CatalogError> {
    let mut keys = Vec::new();
    let mut failed = None;
    let pages = scan(
        &mut |key| match folio_row::decode_key(key, &ri.key_columns) {
            Ok(values) => keys.push(values),
            Err(e) => failed = failed.take().or(Some(e)),
        },
    )?;
    match failed {
        Some(e) => Err(e.into()),
        None => Ok((keys, pages)),
    }
}

/// Values as PostgreSQL's DETAIL lines print them (`null` for NULL).
fn value_texts(values: &[Value]) -> Vec<String> {
    (values.iter())
        .map(|v| v.to_text().unwrap_or_else(|| "null".into()))
        .collect()
}
