//! `ALTER TABLE t SET SCHEMA s` of a table and `ALTER SEQUENCE s RENAME
//! TO | SET SCHEMA` (README "Schemas"): the one place that knows what
//! moves with a table and what stored text must follow a moved or renamed
//! relation, as PostgreSQL 15's `AlterTableNamespace` and
//! `RenameRelation`.
//!
//! A relation's schema is part of its catalog name (`s.t`; folio-catalog
//! `schemas.rs`), so a move is a rename to the qualified name. With the
//! table move its indexes (an index lives in its table's schema) and the
//! sequences it owns (`serial` and identity columns), as PostgreSQL's.
//! PostgreSQL's stored expressions name relations by oid and follow by
//! themselves; folio's keep text, so the text follows instead: the views
//! reading the table (`view_renames::follow`) and every column default
//! naming a moved sequence (`nextval('t_id_seq')` becomes
//! `nextval('s.t_id_seq')`, [`sequence_renamed`]).

use crate::context::Ctx;
use crate::error::SqlError;
use folio_catalog::{CatalogError, qualified_name, split_schema, unqualified};
use folio_db::Transaction;
use sqlparser::ast::{Expr, Value};
use std::ops::ControlFlow;

/// Moves table `name` (catalog name, oid `oid`) to schema `schema` (which
/// exists), with its indexes and owned sequences; its new catalog name.
/// Nothing to do when it is there already (as PostgreSQL's).
pub fn move_table(
    cx: &Ctx<'_>,
    txn: &mut Transaction,
    name: &str,
    oid: u64,
    schema: &str,
) -> Result<String, SqlError> {
    check_target(cx, txn, name, schema)?;
    let new = qualified_name(schema, unqualified(name));
    if new == name {
        return Ok(new);
    }
    let catalog = cx.db.catalog();
    let def = (catalog.table(txn, name)?).ok_or_else(|| SqlError::undefined_table(name))?;
    rename_into(cx, txn, name, &new, Some(schema))?;
    for index in &def.indexes {
        let moved = qualified_name(schema, unqualified(&index.name));
        rename_into(cx, txn, &index.name, &moved, Some(schema))?;
    }
    let owned = (catalog.sequences(txn)?.into_iter())
        .filter(|s| s.owner.is_some_and(|(table, _)| table == oid));
    for sequence in owned {
        let moved = qualified_name(schema, unqualified(&sequence.name));
        rename_sequence(cx, txn, &sequence.name, sequence.oid, &moved, Some(schema))?;
    }
    follow(cx, txn, oid, name, &new)?;
    Ok(new)
}

/// Whether relation `name` (a catalog name) may move to schema
/// `schema`: PostgreSQL's 3F000 when the schema does not exist, 0A000
/// into or out of a temporary schema.
pub fn check_target(
    cx: &Ctx<'_>,
    txn: &Transaction,
    name: &str,
    schema: &str,
) -> Result<(), SqlError> {
    let from = split_schema(name).0;
    if folio_catalog::temp_schema_number(from).is_some()
        || folio_catalog::temp_schema_number(schema).is_some()
        || schema == "pg_temp"
    {
        return Err(SqlError::new(
            "0A000",
            "cannot move objects into or out of temporary schemas",
        ));
    }
    if schema != folio_catalog::PUBLIC && cx.db.catalog().schema(txn, schema)?.is_none() {
        return Err(SqlError::new(
            "3F000",
            format!("schema \"{schema}\" does not exist"),
        ));
    }
    Ok(())
}

/// Sequence `old` (oid `oid`) renamed `new` (by `ALTER SEQUENCE ...
/// RENAME TO | SET SCHEMA` or with its table), the defaults naming it and
/// the views reading it following.
pub fn rename_sequence(
    cx: &Ctx<'_>,
    txn: &mut Transaction,
    old: &str,
    oid: u64,
    new: &str,
    schema: Option<&str>,
) -> Result<(), SqlError> {
    rename_into(cx, txn, old, new, schema)?;
    sequence_renamed(cx, txn, old, new)?;
    follow(cx, txn, oid, old, new)
}

/// The views reading relation `oid`, renamed `old` to `new`, follow.
fn follow(
    cx: &Ctx<'_>,
    txn: &mut Transaction,
    oid: u64,
    old: &str,
    new: &str,
) -> Result<(), SqlError> {
    let renamed = crate::view_renames::Renamed::Relation { old, new };
    crate::view_renames::follow(cx, txn, oid, renamed)?;
    crate::views::check_after_alter(cx, txn, new, oid, crate::views::Alteration::Other)
}

/// The catalog name `RENAME TO new` gives relation `old` (a catalog
/// name): `new` in `old`'s schema, as PostgreSQL's, whose RENAME TO takes
/// a bare name and never moves a relation (a qualified one is its
/// syntax error).
pub fn renamed_in_place(old: &str, new: &sqlparser::ast::ObjectName) -> Result<String, SqlError> {
    if new.0.len() > 1 {
        return Err(SqlError::syntax("syntax error at or near \".\""));
    }
    let new = crate::names::relation(new)?;
    Ok(qualified_name(split_schema(old).0, unqualified(&new)))
}

/// Renames relation `old` to `new`: PostgreSQL's 42P07 when the name is
/// taken (in schema `schema`, for a move).
pub fn rename_into(
    cx: &Ctx<'_>,
    txn: &mut Transaction,
    old: &str,
    new: &str,
    schema: Option<&str>,
) -> Result<(), SqlError> {
    match cx.db.catalog().rename(txn, old, new) {
        Err(CatalogError::Exists(_)) => Err(SqlError::new(
            "42P07",
            match schema {
                Some(schema) => format!(
                    "relation \"{}\" already exists in schema \"{schema}\"",
                    unqualified(new)
                ),
                None => format!("relation \"{}\" already exists", unqualified(new)),
            },
        )),
        other => Ok(other?),
    }
}

/// After sequence `old` (a catalog name) became `new`: each column
/// default naming it (a string literal equal to its catalog name, the
/// form `serial` writes: `nextval('t_id_seq')`) names `new`.
pub fn sequence_renamed(
    cx: &Ctx<'_>,
    txn: &mut Transaction,
    old: &str,
    new: &str,
) -> Result<(), SqlError> {
    let catalog = cx.db.catalog();
    for table in catalog.tables(txn)? {
        for constraint in &table.constraints {
            let folio_catalog::ConstraintKind::Default { column, expr } = &constraint.kind else {
                continue;
            };
            let Some(text) = naming(expr, old, new) else {
                continue;
            };
            let column = &table.columns[usize::from(*column)].name;
            catalog.set_default(txn, &table.name, column, Some(text))?;
        }
    }
    cx.relations.ddl();
    Ok(())
}

/// Stored expression `text` with its string literals `old` made `new`
/// (`None`: it has none).
fn naming(text: &str, old: &str, new: &str) -> Option<String> {
    if !text.contains(old) {
        return None;
    }
    let mut expr = crate::parse::expression(text).ok()?;
    let mut changed = false;
    let _ = sqlparser::ast::visit_expressions_mut(&mut expr, |e| {
        if let Expr::Value(v) = e
            && let Value::SingleQuotedString(s) = &mut v.value
            && s == old
        {
            *s = new.to_string();
            changed = true;
        }
        ControlFlow::<()>::Continue(())
    });
    changed.then(|| expr.to_string())
}

#[cfg(test)]
mod tests {
    use super::naming;

    #[test]
    fn a_default_names_the_moved_sequence() {
        assert_eq!(
            naming("nextval('t_id_seq')", "t_id_seq", "s.t_id_seq").as_deref(),
            Some("nextval('s.t_id_seq')")
        );
        assert_eq!(naming("nextval('t_id_seq2')", "t_id_seq", "x"), None);
        assert_eq!(naming("42", "t_id_seq", "x"), None);
    }
}
