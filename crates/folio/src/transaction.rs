//! A transaction of the embedded API: DDL, table handles, savepoints,
//! commit and rollback, and the one owner of the rule of which failures
//! leave the transaction usable ([`Transaction::statement`]).

use crate::database::Database;
use crate::error::{Error, Result};
use crate::schema::{Schema, primary_key_name};
use crate::table::Table;
use folio_catalog::Relation;
use folio_txn::Isolation;
use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::sync::Arc;

/// What a call does, for the rule of which failures leave no trace.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Op {
    /// Reads, and row locks (a failed lock took none).
    Read,
    /// Inserts: a refused row is deleted again by the heap layer.
    Insert,
    /// Updates and deletes.
    Write,
    /// DDL, which runs in a savepoint of its own.
    Ddl,
}

/// Whether a failed call of kind `op` left nothing of itself behind. Reads
/// write nothing; DDL rolls back to its savepoint; an insert whose index
/// refused the row (23505, or a failed wait for another inserter) deleted
/// it again; and input errors are found before anything is written. Any
/// other failure of a write may have done part of its work (a heap
/// version without its index entries), so the transaction is failed
/// (25P02) until it is rolled back, as PostgreSQL does with every error.
fn leaves_no_trace(op: Op, error: &Error) -> bool {
    matches!(
        (op, error),
        (Op::Read | Op::Ddl, _)
            | (
                _,
                Error::InvalidInput { .. }
                    | Error::NotNullViolation(_)
                    | Error::UndefinedColumn(_)
                    | Error::UndefinedTable(_),
            )
            | (
                Op::Insert,
                Error::UniqueViolation(_) | Error::Deadlock(_) | Error::LockTimeout(_),
            )
    )
}

/// Why a transaction failed: the message, and whether running it again
/// may succeed.
#[derive(Debug, Clone)]
struct Failure {
    message: String,
    retryable: bool,
}

/// A running transaction. Tables are reached through it
/// ([`Transaction::table`]); nothing it does is visible to others before
/// [`Transaction::commit`]. Dropped without a commit, it rolls back.
///
/// Each call is one statement: at READ COMMITTED it sees what committed
/// before it started (while a [`crate::Range`] of this transaction is
/// open, later calls keep the range's snapshot, so a scan never sees a
/// row twice); at REPEATABLE READ every call sees the snapshot of the
/// transaction's first.
#[derive(Debug)]
pub struct Transaction<'db> {
    db: &'db Database,
    txn: RefCell<folio_txn::Transaction>,
    failed: RefCell<Option<Failure>>,
    /// Ranges of this transaction not yet dropped.
    open_ranges: Cell<usize>,
    /// Tables opened by this transaction, dropped at its DDL.
    relations: RefCell<HashMap<String, Arc<Relation>>>,
}

impl<'db> Transaction<'db> {
    pub(crate) fn new(db: &'db Database, txn: folio_txn::Transaction) -> Transaction<'db> {
        Transaction {
            db,
            txn: RefCell::new(txn),
            failed: RefCell::new(None),
            open_ranges: Cell::new(0),
            relations: RefCell::new(HashMap::new()),
        }
    }

    /// The isolation level.
    pub fn isolation(&self) -> Isolation {
        self.txn.borrow().isolation()
    }

    fn check_failed(&self) -> Result<()> {
        match &*self.failed.borrow() {
            Some(f) => Err(Error::InFailedTransaction(f.message.clone())),
            None => Ok(()),
        }
    }

    fn record(&self, op: Op, error: &Error) {
        if !leaves_no_trace(op, error) {
            self.failed.replace(Some(Failure {
                message: error.to_string(),
                retryable: error.is_retryable(),
            }));
        }
    }

    /// Runs one call: refused while the transaction is failed; a new
    /// snapshot first at READ COMMITTED (unless a range is open); a
    /// failure that may have left part of its work fails the transaction.
    pub(crate) fn statement<T>(
        &self,
        op: Op,
        f: impl FnOnce(&mut folio_txn::Transaction) -> Result<T>,
    ) -> Result<T> {
        self.check_failed()?;
        let mut txn = self.txn.borrow_mut();
        if self.open_ranges.get() == 0 {
            txn.next_statement();
        }
        f(&mut txn).inspect_err(|e| self.record(op, e))
    }

    /// One step of an open range: a read in the range's snapshot.
    pub(crate) fn range_step<T>(
        &self,
        f: impl FnOnce(&folio_txn::Transaction) -> Result<T>,
    ) -> Result<T> {
        self.check_failed()?;
        f(&self.txn.borrow())
    }

    pub(crate) fn range_opened(&self) {
        self.open_ranges.set(self.open_ranges.get() + 1);
    }

    pub(crate) fn range_closed(&self) {
        self.open_ranges.set(self.open_ranges.get() - 1);
    }

    /// Whether the transaction failed in a way that running it again may
    /// cure (for [`Database::transact`]).
    pub(crate) fn failed_retryably(&self) -> bool {
        self.failed.borrow().as_ref().is_some_and(|f| f.retryable)
    }

    /// The table `name` (42P01 if this transaction does not see it).
    pub fn table(&self, name: &str) -> Result<Table<'_>> {
        let cached = self.relations.borrow().get(name).cloned();
        let relation = match cached {
            Some(relation) => relation,
            None => {
                let catalog = self.db.inner().catalog();
                let relation = self
                    .statement(Op::Read, |txn| Ok(catalog.relation(txn, name)?))?
                    .ok_or_else(|| {
                        Error::UndefinedTable(format!("relation \"{name}\" does not exist"))
                    })?;
                let relation = Arc::new(relation);
                self.relations
                    .borrow_mut()
                    .insert(name.to_string(), relation.clone());
                relation
            }
        };
        Ok(Table::new(self, relation))
    }

    /// The names of the tables this transaction sees, sorted.
    pub fn table_names(&self) -> Result<Vec<String>> {
        let catalog = self.db.inner().catalog();
        let tables = self.statement(Op::Read, |txn| Ok(catalog.tables(txn)?))?;
        Ok(tables.into_iter().map(|t| t.name).collect())
    }

    /// Runs DDL in a savepoint (all of it or none of it), then forgets
    /// the tables this transaction opened.
    fn ddl<T>(
        &self,
        f: impl FnOnce(&folio_catalog::Catalog, &mut folio_txn::Transaction) -> Result<T>,
    ) -> Result<T> {
        const SAVEPOINT: &str = "folio.ddl";
        let catalog = self.db.inner().catalog();
        let out = self.statement(Op::Ddl, |txn| {
            txn.savepoint(SAVEPOINT)?;
            match f(catalog, txn) {
                Ok(out) => {
                    txn.release(SAVEPOINT)?;
                    Ok(out)
                }
                Err(e) => {
                    txn.rollback_to(SAVEPOINT)?;
                    txn.release(SAVEPOINT)?;
                    Err(e)
                }
            }
        });
        self.relations.borrow_mut().clear();
        out
    }

    /// `CREATE TABLE` with a primary key (the unique index `NAME_pkey`)
    /// and the schema's secondary indexes. Visible to others at commit.
    pub fn create_table(&self, schema: &Schema) -> Result<Table<'_>> {
        let columns = schema.catalog_columns()?;
        self.ddl(|catalog, txn| {
            catalog.create_table(txn, &schema.name, &columns)?;
            let key: Vec<&str> = schema.primary_key.iter().map(String::as_str).collect();
            catalog.create_primary_index(
                txn,
                &schema.name,
                &primary_key_name(&schema.name),
                &key,
                &[],
                folio_catalog::Deferrable::No,
            )?;
            for index in &schema.indexes {
                let columns: Vec<&str> = index.columns.iter().map(String::as_str).collect();
                catalog.create_index(txn, &schema.name, &index.name, &columns, index.unique)?;
            }
            Ok(())
        })?;
        self.table(&schema.name)
    }

    /// `CREATE [UNIQUE] INDEX index ON table (columns)`, with an entry for
    /// every row already there (a unique index refuses duplicates: 23505).
    pub fn create_index(
        &self,
        table: &str,
        index: &str,
        columns: &[&str],
        unique: bool,
    ) -> Result<()> {
        self.ddl(|catalog, txn| {
            catalog.create_index(txn, table, index, columns, unique)?;
            Ok(())
        })
    }

    /// `DROP TABLE name` with its indexes.
    pub fn drop_table(&self, name: &str) -> Result<()> {
        self.ddl(|catalog, txn| Ok(catalog.drop_table(txn, name)?))
    }

    /// `ALTER TABLE old RENAME TO new`; its primary-key index follows
    /// (`old_pkey` becomes `new_pkey`).
    pub fn rename_table(&self, old: &str, new: &str) -> Result<()> {
        self.ddl(|catalog, txn| {
            catalog.rename(txn, old, new)?;
            let key = primary_key_name(old);
            if catalog.relation_exists(txn, &key)? {
                catalog.rename(txn, &key, &primary_key_name(new))?;
            }
            Ok(())
        })
    }

    /// `SAVEPOINT name`.
    pub fn savepoint(&self, name: &str) -> Result<()> {
        self.check_failed()?;
        Ok(self.txn.borrow_mut().savepoint(name)?)
    }

    /// `ROLLBACK TO SAVEPOINT name`: undoes everything since, and makes a
    /// failed transaction usable again (as in PostgreSQL).
    pub fn rollback_to(&self, name: &str) -> Result<()> {
        self.txn.borrow_mut().rollback_to(name)?;
        self.failed.replace(None);
        self.relations.borrow_mut().clear();
        Ok(())
    }

    /// `RELEASE SAVEPOINT name`: keeps what was done since.
    pub fn release(&self, name: &str) -> Result<()> {
        self.check_failed()?;
        Ok(self.txn.borrow_mut().release(name)?)
    }

    /// Commits: durable when this returns (unless the database or this
    /// transaction commits asynchronously). A failed transaction is
    /// rolled back instead, and this returns 25P02.
    pub fn commit(self) -> Result<()> {
        let failed = self.failed.into_inner();
        let txn = self.txn.into_inner();
        if let Some(f) = failed {
            txn.rollback()?;
            return Err(Error::InFailedTransaction(f.message));
        }
        txn.commit()?;
        Ok(())
    }

    /// Rolls back everything the transaction did.
    pub fn rollback(self) -> Result<()> {
        Ok(self.txn.into_inner().rollback()?)
    }
}
