//! Materialized views: a `folio.class` row of kind `m` that is a table
//! (its page list, its `folio.attribute` rows, its indexes: every table
//! operation that reads or indexes rows takes it) and also holds a view's
//! body (its query as SQL text and the oids of the relations the query
//! reads: `views.rs`'s `ViewBody`, one encoding for both) and a populated
//! byte after it (PostgreSQL's `relispopulated`). The SQL layer runs the
//! query and writes the rows; the catalog keeps the definition, the state
//! and the dependencies (README "Materialized views").
//!
//! A refresh empties the heap inside the caller's transaction (every row
//! it sees deleted, as `truncate` does) and the SQL layer inserts the new
//! rows in the same transaction: other transactions read the old rows
//! until it commits, and a crash or rollback keeps them, by the heap's
//! MVCC and WAL alone (no page list is swapped).

use crate::catalog::{Catalog, check_name};
use crate::defs::{ClassRow, ColumnDef, KIND_MATVIEW, Matview, TableDef};
use crate::error::CatalogError;
use crate::persistence::Persistence;
use crate::views::ViewBody;
use folio_page::PageId;
use folio_txn::{LockMode, Transaction};

/// The class row of a new materialized view.
pub(crate) fn class_row(oid: u64, name: &str, root: PageId, matview: &Matview) -> ClassRow {
    ClassRow {
        view: Some(ViewBody {
            query: matview.query.clone(),
            depends_on: matview.depends_on.clone(),
            check_option: crate::views::CheckOption::None,
            defaults: Vec::new(),
            options: Vec::new(),
        }),
        populated: matview.populated,
        ..ClassRow::new(oid, name, KIND_MATVIEW, root)
    }
}

/// The materialized view a class row describes (`None`: another kind).
pub(crate) fn matview_of(class: &ClassRow) -> Option<Matview> {
    if class.kind != KIND_MATVIEW {
        return None;
    }
    let body = class.view.as_ref()?;
    Some(Matview {
        query: body.query.clone(),
        depends_on: body.depends_on.clone(),
        populated: class.populated,
    })
}

impl Catalog {
    /// `CREATE MATERIALIZED VIEW name AS query`: a table of `columns`
    /// whose class row keeps `query` (SQL text) and `depends_on` (the
    /// relations it reads, each share-locked until `txn` ends, as
    /// `create_view` does), unpopulated until the caller fills it
    /// ([`Catalog::refresh_matview`]) unless `populated` (the caller
    /// inserts the rows at once).
    pub fn create_matview(
        &self,
        txn: &mut Transaction,
        name: &str,
        query: &str,
        columns: &[ColumnDef],
        depends_on: &[u64],
        populated: bool,
    ) -> Result<TableDef, CatalogError> {
        check_name(name)?;
        self.lock_dependencies(txn, depends_on)?;
        let matview = Matview {
            query: query.to_string(),
            depends_on: depends_on.to_vec(),
            populated,
        };
        self.create_heap_relation(txn, name, columns, Some(matview), Persistence::Permanent)
    }

    /// `REFRESH MATERIALIZED VIEW name [WITH [NO] DATA]`, the catalog's
    /// part: under the view's DDL lock and `ACCESS EXCLUSIVE` (other DDL
    /// and writers wait; readers keep reading the rows committed before,
    /// in the old storage), the view given new empty storage and indexes
    /// (`rewrite.rs`, as TRUNCATE) and the populated state set to
    /// `populated`. Returns the definition as it now is: the caller
    /// inserts the query's rows when `populated`. 42809 for a relation
    /// that is no materialized view (`NotAMatview`).
    pub fn refresh_matview(
        &self,
        txn: &mut Transaction,
        name: &str,
        populated: bool,
    ) -> Result<TableDef, CatalogError> {
        let table = self.lock_table(txn, name)?;
        let Some(was) = table.matview.as_ref().map(|m| m.populated) else {
            return Err(CatalogError::NotAMatview(name.to_string()));
        };
        self.lock_for_ddl(txn, table.oid, LockMode::AccessExclusive)?;
        // New empty storage and indexes (`rewrite.rs`), as TRUNCATE's.
        self.rewrite_table(txn, name, crate::rewrite::Refill::Empty)?;
        if was != populated {
            let (tid, class) = self
                .class(txn, name)?
                .ok_or_else(|| CatalogError::NoSuchRelation(name.to_string()))?;
            self.update_class(txn, tid, &ClassRow { populated, ..class })?;
        }
        // Read again: its storage and its indexes' trees are new.
        self.table(txn, name)?
            .ok_or_else(|| CatalogError::NoSuchRelation(name.to_string()))
    }
}
