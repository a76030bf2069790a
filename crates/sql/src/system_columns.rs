//! The system columns of a table: `tableoid`, `ctid`, `xmin`, `xmax`.
//! The one owner of "is this name a system column, and what is its value
//! for this row version".
//!
//! A table's FROM item gets the four columns after its own (hidden from
//! `*` and from a whole-row reference: `from.rs` `ScopeTable::system`)
//! only when the statement names one of them somewhere ([`mentioned`], a
//! look at its identifiers before planning), so a scan that no query
//! asks a system column of does no work for them. A scan that carries
//! them (`ScanPlan::system`) appends the four values to each row right
//! after decoding it ([`Filler::append`]), before its filter, so a
//! condition on `ctid` filters like any other.
//!
//! Values, and where they differ from PostgreSQL's:
//!
//! - `tableoid` (`oid`): the table's oid.
//! - `ctid` (`tid`): `(block,offset)` with `block` the page's position in
//!   the table's list of pages (folio's page ids are the database file's,
//!   so they are numbered here as PostgreSQL's relation blocks are, from
//!   0) and `offset` the item's line pointer, from 1. A fresh table's
//!   rows are `(0,1)`, `(0,2)`, ... as in PostgreSQL; after updates and
//!   page splits the numbers differ (folio's page layout is its own).
//! - `xmin`, `xmax` (`xid`): the inserting and the deleting (or locking)
//!   transaction of the version read, from its tuple header; 0 for none.
//!   folio's ids are its own 64-bit ones (`txid_current()`'s).
//!
//! An INSERT's RETURNING has `tableoid` (the partition a row went to,
//! [`of_inserted`]); the other three are 0A000 there (the batch insert
//! does not keep the tuple ids).
//!
//! `cmin` and `cmax` are not supported (42703), but their names are
//! reserved as PostgreSQL reserves them: a table column of any of the six
//! names is 42701 ([`check_column_name`]).
//!
//! A `pg_catalog` table (not a view: PostgreSQL's views have no system
//! columns) has `tableoid` alone, its own oid: psql joins
//! `pg_description` on `classoid = x.tableoid` (`\dd`, `\dL`). Its rows
//! are made at each execution, so the column is always there, hidden
//! from `*` like a table's ([`system_relation_columns`],
//! [`append_system_relation`]).

use crate::error::SqlError;
use crate::system::SystemRelation;
use folio_catalog::Relation;
use folio_db::Tid;
use folio_row::{SqlType, Value};
use sqlparser::ast::{Expr, visit_expressions};
use std::ops::ControlFlow;

/// The system columns folio has, in the order they follow a table's own.
pub const COLUMNS: [(&str, SqlType); 4] = [
    ("tableoid", SqlType::Oid),
    ("ctid", SqlType::Tid),
    ("xmin", SqlType::Xid),
    ("xmax", SqlType::Xid),
];

/// The names PostgreSQL reserves for system columns.
const RESERVED: [&str; 6] = ["tableoid", "ctid", "xmin", "xmax", "cmin", "cmax"];

/// Whether PostgreSQL reserves `name` for a system column (ALTER of one
/// is 0A000 where a missing column is 42703).
pub fn reserved(name: &str) -> bool {
    RESERVED.contains(&name)
}

/// 42701 if a table column may not be called `name` (CREATE TABLE, ADD
/// COLUMN, RENAME COLUMN), as PostgreSQL's.
pub fn check_column_name(name: &str) -> Result<(), SqlError> {
    if reserved(name) {
        return Err(SqlError::new(
            "42701",
            format!("column name \"{name}\" conflicts with a system column name"),
        ));
    }
    Ok(())
}

/// Whether `node` (a statement or query) names a system column anywhere:
/// then its tables' FROM items carry them. A mention that is not one (a
/// column alias, another table's column of that name) only costs the
/// scan the work.
pub fn mentioned<V: sqlparser::ast::Visit>(node: &V) -> bool {
    let is_system = |ident: &sqlparser::ast::Ident| {
        COLUMNS
            .iter()
            .any(|(name, _)| ident.value.eq_ignore_ascii_case(name))
    };
    visit_expressions(node, |expr| match expr {
        Expr::Identifier(ident) if is_system(ident) => ControlFlow::Break(()),
        Expr::CompoundIdentifier(parts) if parts.last().is_some_and(is_system) => {
            ControlFlow::Break(())
        }
        _ => ControlFlow::Continue(()),
    })
    .is_break()
}

/// 0A000 if an INSERT's RETURNING `items` name a system column other
/// than `tableoid`.
pub fn inserted_only_tableoid(items: &[sqlparser::ast::SelectItem]) -> Result<(), SqlError> {
    let other = |ident: &sqlparser::ast::Ident| {
        (COLUMNS[1..].iter()).find(|(name, _)| ident.value.eq_ignore_ascii_case(name))
    };
    for item in items {
        let found = visit_expressions(item, |expr| {
            let named = match expr {
                Expr::Identifier(ident) => other(ident),
                Expr::CompoundIdentifier(parts) => parts.last().and_then(other),
                _ => None,
            };
            match named {
                Some((name, _)) => ControlFlow::Break(*name),
                None => ControlFlow::Continue(()),
            }
        });
        if let ControlFlow::Break(name) = found {
            return Err(SqlError::unsupported(format!(
                "system column \"{name}\" in an INSERT's RETURNING"
            )));
        }
    }
    Ok(())
}

/// Appends the system columns of `row`, a row an INSERT into `relation`
/// (with `constraints`) wrote, for its RETURNING: `tableoid`, the leaf
/// partition the row went to (routed again), and NULL for the others
/// ([`inserted_only_tableoid`] refused them).
pub fn of_inserted(
    relation: &Relation,
    constraints: &crate::constraints::Constraints,
    row: &mut Vec<Value>,
) -> Result<(), SqlError> {
    let table = match constraints.leaf(row)? {
        Some((leaf, _, _)) => leaf.def.oid,
        None => relation.def.oid,
    };
    row.push(Value::Oid(table as u32));
    row.extend([Value::Null, Value::Null, Value::Null]);
    Ok(())
}

/// A system relation's columns as a FROM item has them: its own, then
/// `tableoid` unless it is a view; and how many of them are system
/// columns.
pub fn system_relation_columns(relation: SystemRelation) -> (Vec<(&'static str, SqlType)>, usize) {
    let mut columns = relation.columns().to_vec();
    let system = usize::from(!relation.is_view());
    if system == 1 {
        columns.push(COLUMNS[0]);
    }
    (columns, system)
}

/// Appends the system columns of `relation` ([`system_relation_columns`])
/// to each of its `rows`.
pub fn append_system_relation(relation: SystemRelation, rows: &mut [Vec<Value>]) {
    if relation.is_view() {
        return;
    }
    let oid = crate::catalog_functions::oid_value(relation.oid());
    for row in rows {
        row.push(oid.clone());
    }
}

/// What a scan needs to fill the system columns of `relation`'s rows: the
/// table's pages in order, which number the blocks of `ctid`.
pub struct Filler {
    oid: u32,
    pages: Vec<folio_page::PageId>,
}

impl Filler {
    /// Reads `relation`'s list of pages (once per scan).
    pub fn of(relation: &Relation) -> Result<Filler, SqlError> {
        let pages = relation
            .table
            .page_ids()
            .map_err(folio_catalog::CatalogError::from)?;
        debug_assert!(pages.is_sorted(), "a table's page list is in page order");
        Ok(Filler {
            // (Oids are 32-bit in pg_catalog, as `catalog_functions.rs`.)
            oid: relation.def.oid as u32,
            pages,
        })
    }

    /// The tuple id a `ctid` of `(block, offset)` names (the inverse of
    /// [`Filler::append`]'s), if the table has that block.
    pub fn tid_at(&self, block: u32, offset: u16) -> Option<Tid> {
        let page = *self.pages.get(block as usize)?;
        let item = folio_page::ItemId(offset.checked_sub(1)?);
        Some(Tid { page, item })
    }

    /// The block of `ctid` that holds `tid`.
    pub fn block(&self, tid: Tid) -> Result<u32, SqlError> {
        let block = self
            .pages
            .binary_search(&tid.page)
            .map_err(|_| SqlError::new("XX000", format!("row {tid} is on no page of its table")))?;
        Ok(block as u32)
    }

    /// Appends the system columns of the version at `tid` to `row`.
    pub fn append(
        &self,
        relation: &Relation,
        tid: Tid,
        row: &mut Vec<Value>,
    ) -> Result<(), SqlError> {
        let block = self.block(tid)?;
        let header = relation
            .table
            .header(tid)
            .map_err(folio_catalog::CatalogError::from)?
            .ok_or_else(|| SqlError::new("XX000", format!("no row version at {tid}")))?;
        row.push(Value::Oid(self.oid));
        row.push(Value::Tid(block, tid.item.0 + 1));
        row.push(Value::Xid(header.xmin.0));
        row.push(Value::Xid(header.xmax.0));
        Ok(())
    }
}
