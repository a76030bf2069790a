//! `ALTER TABLE t ADD [CONSTRAINT c] {UNIQUE | PRIMARY KEY} USING INDEX
//! i`: an existing unique index becomes the table's UNIQUE constraint or
//! primary key (PostgreSQL's `transformIndexConstraint` and
//! `index_check_primary_key`). The index must be the table's, unique,
//! over plain columns in their default order, holding every row, and no
//! constraint's already; a primary key's columns become NOT NULL (their
//! rows checked); a constraint name other than the index's renames the
//! index, with PostgreSQL's NOTICE. The index keeps its entries and its
//! included columns. (Parsed by `key_include_syntax.rs`.)

use crate::context::Ctx;
use crate::error::SqlError;
use crate::output::Notice;
use folio_catalog::{Deferrable, IndexDef, KeyOrder};
use folio_db::Transaction;

/// The constraint being added over the index.
pub struct Constraint<'a> {
    pub primary: bool,
    /// `CONSTRAINT c`, which the index is renamed to.
    pub name: Option<&'a str>,
    pub deferrable: Deferrable,
}

/// Makes index `index` of `table` the `constraint`.
pub fn add(
    cx: &Ctx<'_>,
    txn: &mut Transaction,
    notices: &mut Vec<Notice>,
    table: &str,
    index: &str,
    constraint: Constraint<'_>,
) -> Result<(), SqlError> {
    let catalog = cx.db.catalog();
    let def = catalog
        .table(txn, table)?
        .ok_or_else(|| SqlError::undefined_table(table))?;
    if def.partition_key().is_some() {
        return Err(SqlError::new(
            "0A000",
            "ALTER TABLE / ADD CONSTRAINT USING INDEX is not supported on partitioned tables",
        ));
    }
    let (schema, _) = folio_catalog::split_schema(&def.name);
    let stored = match index.contains('.') {
        true => index.to_string(),
        false => folio_catalog::qualified_name(schema, index),
    };
    let Some(found) = def.indexes.iter().find(|i| i.name == stored) else {
        let elsewhere =
            (catalog.tables(txn)?.iter()).any(|t| t.indexes.iter().any(|i| i.name == stored));
        return Err(match elsewhere {
            true => SqlError::new(
                "42809",
                format!(
                    "index \"{index}\" does not belong to table \"{}\"",
                    folio_catalog::unqualified(table)
                ),
            ),
            false => SqlError::new("42704", format!("index \"{index}\" does not exist")),
        });
    };
    check(found, index)?;
    if constraint.primary {
        if def.primary_key().is_some() {
            return Err(SqlError::new(
                "42P16",
                format!(
                    "multiple primary keys for table \"{}\" are not allowed",
                    folio_catalog::unqualified(table)
                ),
            ));
        }
        for &position in &found.columns {
            let column = def.columns[usize::from(position)].name.clone();
            crate::ddl::set_not_null(cx, txn, table, &column)?;
        }
    }
    let mut name = found.name.clone();
    if let Some(wanted) = constraint.name
        && wanted != index
    {
        notices.push(Notice::info(format!(
            "ALTER TABLE / ADD CONSTRAINT USING INDEX will rename index \"{index}\" to \"{wanted}\""
        )));
        let new = folio_catalog::qualified_name(schema, wanted);
        crate::set_schema::rename_into(cx, txn, &name, &new, None)?;
        name = new;
    }
    catalog.make_index_constraint(txn, table, &name, constraint.primary, constraint.deferrable)?;
    cx.relations.ddl();
    Ok(())
}

/// PostgreSQL's refusals of an index a constraint cannot take over (the
/// one owner of that rule).
fn check(index: &IndexDef, name: &str) -> Result<(), SqlError> {
    let refused = |message: String| {
        SqlError::new("42809", message)
            .with_detail("Cannot create a primary key or unique constraint using such an index.")
    };
    if index.constraint {
        return Err(SqlError::new(
            "55000",
            format!("index \"{name}\" is already associated with a constraint"),
        ));
    }
    if !index.unique {
        return Err(refused(format!("\"{name}\" is not a unique index")));
    }
    if !index.exprs.keys.is_empty() {
        return Err(refused(format!("index \"{name}\" contains expressions")));
    }
    if index.exprs.predicate.is_some() {
        return Err(refused(format!("\"{name}\" is a partial index")));
    }
    if let Some(at) = index.order.iter().position(|o| *o != KeyOrder::default()) {
        return Err(refused(format!(
            "index \"{name}\" column number {} does not have default sorting behavior",
            at + 1
        )));
    }
    Ok(())
}
