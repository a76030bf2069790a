//! The relations a statement names: the one owner of 42P01 (no such
//! table), of the plain-table rule for FROM/UPDATE/DELETE, of 42703 for a
//! column of a table, and of the session's relation cache. (Which rows
//! are read, and how: `plan.rs`.)
//!
//! Reading a relation from the catalog costs a scan of the class table
//! and the column rows (measured: 41% of a prepared primary-key lookup's
//! execution). A session keeps the relations it read and uses one again
//! while it is current (`Relation::is_current`: no DDL on the table
//! committed since it was read, and the reading snapshot is not older);
//! the session forgets them all when it runs DDL itself (its own
//! uncommitted DDL is not seen as a change) and when a transaction that
//! ran DDL ends.

use crate::context::Ctx;
use crate::error::SqlError;
use crate::names;
use folio_catalog::Relation;
use folio_db::{Database, Transaction};
use folio_row::SqlType;
use sqlparser::ast::{TableFactor, TableWithJoins};
use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::Arc;

/// Most relations a session keeps.
const CACHED_RELATIONS: usize = 256;

/// A session's relations, by name.
#[derive(Debug, Default)]
pub struct Relations {
    cache: RefCell<HashMap<String, Arc<Relation>>>,
    /// The running transaction ran DDL: forget again when it ends.
    ddl: std::cell::Cell<bool>,
    /// Counts the times everything was forgotten (plans made before are
    /// made again).
    generation: std::cell::Cell<u64>,
}

impl Relations {
    /// The relation `name` as `txn` sees it, or 42P01.
    pub fn get(
        &self,
        db: &Database,
        txn: &Transaction,
        name: &str,
    ) -> Result<Arc<Relation>, SqlError> {
        let cached = self.cache.borrow().get(name).cloned();
        if let Some(relation) = cached
            && relation.is_current(txn)?
        {
            return Ok(relation);
        }
        let Some(relation) = db.catalog().relation(txn, name)? else {
            // A sequence is read in FROM (`from.rs`), never changed as a
            // table; an index is no relation to read either.
            if let Ok(Some(_)) = db.catalog().sequence(txn, name) {
                return Err(SqlError::new(
                    "42809",
                    format!("cannot change sequence \"{name}\""),
                ));
            }
            // FROM reads a view (`views.rs`); INSERT, UPDATE and DELETE
            // change its rows through its base table or its INSTEAD OF
            // triggers (`updatable_views.rs`, `instead_of.rs`), no other
            // statement does (COPY, TRUNCATE).
            if db.catalog().view(txn, name)?.is_some() {
                return Err(SqlError::new(
                    "0A000",
                    format!("cannot change rows of view \"{name}\""),
                ));
            }
            return Err(SqlError::undefined_table(name));
        };
        let relation = Arc::new(relation);
        let mut cache = self.cache.borrow_mut();
        if cache.len() >= CACHED_RELATIONS {
            cache.clear();
        }
        // (Dropping entries for room needs no new generation: plans hold
        // their relations and check them.)
        cache.insert(name.to_string(), relation.clone());
        Ok(relation)
    }

    /// The session runs DDL: every relation is forgotten now and when the
    /// transaction ends (what it read meanwhile may include the DDL's
    /// uncommitted change, or miss it).
    pub fn ddl(&self) {
        self.clear();
        self.ddl.set(true);
    }

    /// The session's transaction ended.
    pub fn end_transaction(&self) {
        if self.ddl.replace(false) {
            self.clear();
        }
    }

    /// How many times the session forgot its relations: a plan made at
    /// another generation must be made again.
    pub fn generation(&self) -> u64 {
        self.generation.get()
    }

    fn clear(&self) {
        self.cache.borrow_mut().clear();
        self.generation.set(self.generation.get() + 1);
    }
}

/// The relation `name` as `txn` sees it, or 42P01.
pub fn relation(cx: &Ctx<'_>, txn: &Transaction, name: &str) -> Result<Arc<Relation>, SqlError> {
    cx.relations.get(cx.db, txn, name)
}

/// The row type of a relation or view of `columns`: their names and
/// types.
pub fn row_type(columns: &[folio_catalog::ColumnDef]) -> Result<Vec<(String, SqlType)>, SqlError> {
    columns
        .iter()
        .map(|c| {
            let ty = crate::user_types::of_oid(c.type_oid, c.typmod).ok_or_else(|| {
                SqlError::new(
                    "42704",
                    format!("type with oid {} does not exist", c.type_oid),
                )
            })?;
            Ok((c.name.clone(), ty))
        })
        .collect()
}

/// The relation `name` as the target of a row change (INSERT, UPDATE,
/// DELETE), or 42P01; a materialized view is 42809, PostgreSQL's error
/// (its rows are its query's: REFRESH changes them, `matviews.rs`).
pub fn target(cx: &Ctx<'_>, txn: &Transaction, name: &str) -> Result<Arc<Relation>, SqlError> {
    let relation = relation(cx, txn, name)?;
    if relation.def.matview.is_some() {
        return Err(SqlError::new(
            "42809",
            format!(
                "cannot change materialized view \"{}\"",
                folio_catalog::unqualified(name)
            ),
        ));
    }
    Ok(relation)
}

/// The one plain table a statement changes (`UPDATE t [AS x]`, `DELETE
/// FROM t [AS x]`): its name, the name its columns are qualified with
/// (the alias, else the bare name) and its relation; table functions and
/// joins are 0A000, an alias with columns a syntax error (PostgreSQL's
/// grammar has none there).
pub fn table(
    cx: &Ctx<'_>,
    txn: &Transaction,
    from: &TableWithJoins,
) -> Result<(String, String, Arc<Relation>), SqlError> {
    let TableFactor::Table {
        name,
        alias,
        args: None,
        ..
    } = &from.relation
    else {
        return Err(SqlError::unsupported(format!(
            "the table {}",
            from.relation
        )));
    };
    if !from.joins.is_empty() {
        return Err(SqlError::unsupported("joins"));
    }
    if let Some(alias) = alias
        && !alias.columns.is_empty()
    {
        return Err(SqlError::syntax("syntax error at or near \"(\""));
    }
    let name = names::relation(name)?;
    let relation = target(cx, txn, &name)?;
    // A temporary table qualifies its columns by its bare name.
    let qualifier = alias.as_ref().map_or_else(
        || folio_catalog::unqualified(&name).to_string(),
        |a| names::ident(&a.name),
    );
    Ok((name, qualifier, relation))
}

/// The position of column `name`, or 42703.
pub fn column_of(relation: &Relation, name: &str) -> Result<usize, SqlError> {
    relation
        .def
        .column(name)
        .ok_or_else(|| SqlError::undefined_column(name))
}

/// The position of column `column` of `table` as a statement's target
/// (INSERT, UPDATE, COPY), or PostgreSQL's 42703 naming the relation.
pub fn target_column(relation: &Relation, table: &str, column: &str) -> Result<usize, SqlError> {
    relation.def.column(column).ok_or_else(|| {
        SqlError::new(
            "42703",
            format!("column \"{column}\" of relation \"{table}\" does not exist"),
        )
    })
}

/// The columns a COPY names (none: every column but the generated
/// ones, in order).
pub fn copy_columns(
    relation: &Relation,
    table: &str,
    columns: &[String],
) -> Result<Vec<usize>, SqlError> {
    // Generated columns are left out, and may not be named (PostgreSQL's
    // COPY either way).
    if columns.is_empty() {
        return Ok((0..relation.def.columns.len())
            .filter(|&c| relation.def.generated_of(c).is_none())
            .collect());
    }
    columns
        .iter()
        .map(|c| {
            let at = target_column(relation, table, c)?;
            match relation.def.generated_of(at) {
                Some(_) => Err(crate::generated::copied(c)),
                None => Ok(at),
            }
        })
        .collect()
}
