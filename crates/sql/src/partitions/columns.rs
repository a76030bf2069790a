//! `ALTER TABLE p ADD COLUMN` / `DROP COLUMN` of a partitioned table,
//! run on the table and then on every partition below it (PostgreSQL's
//! recursion), and `DROP CONSTRAINT` of a partitioned table's foreign
//! key, primary key or UNIQUE constraint (its partitions' keys that stand
//! for it go with it: [`keys_below`]); with PostgreSQL 15's refusals
//! (42P16) on a partition and of a partition key's column. Each keeps the partitions' columns the
//! parent's (by name, in whatever order a partition has them:
//! `column_map.rs`): an added column is last everywhere, a dropped one
//! goes everywhere (README "Partitioned tables", DDL).

use crate::context::Ctx;
use crate::error::SqlError;
use crate::names;
use folio_catalog::{ConstraintDef, ConstraintKind, TableDef};
use folio_db::Transaction;
use sqlparser::ast::{AlterTableOperation, ColumnOption, Ident, ObjectName};

pub(super) fn bare(name: &str) -> &str {
    folio_catalog::unqualified(name)
}

pub(super) fn invalid(message: String) -> SqlError {
    SqlError::new("42P16", message)
}

pub(super) fn table_def(cx: &Ctx<'_>, txn: &Transaction, name: &str) -> Result<TableDef, SqlError> {
    cx.db
        .catalog()
        .table(txn, name)?
        .ok_or_else(|| SqlError::undefined_table(bare(name)))
}

/// The partitions below `def`, each after its parent (breadth first).
pub(super) fn descendants(
    cx: &Ctx<'_>,
    txn: &Transaction,
    def: &TableDef,
) -> Result<Vec<TableDef>, SqlError> {
    let mut out: Vec<TableDef> = Vec::new();
    let mut at = 0;
    let mut next: Vec<String> = def.partitions.iter().map(|(_, n)| n.clone()).collect();
    loop {
        for name in next.drain(..) {
            out.push(table_def(cx, txn, &name)?);
        }
        let Some(d) = out.get(at) else {
            return Ok(out);
        };
        next = d.partitions.iter().map(|(_, n)| n.clone()).collect();
        at += 1;
    }
}

/// Whether `def`'s partition key uses column `column` (a key column, or
/// one a key expression names).
pub(super) fn in_key(def: &TableDef, column: &str) -> bool {
    let Some((_, columns)) = def.partition_key() else {
        return false;
    };
    let at = def.column(column).map(|p| p as u16);
    columns.iter().any(|&c| Some(c) == at)
        || (def.partition_key_exprs().iter()).any(|e| crate::drop_column::names_column(e, column))
}

/// Whether an `ADD COLUMN` of a partitioned table may reach its
/// partitions as written: plain column options only (a key, a foreign
/// key, a CHECK, identity or a serial type would each need a rule of
/// its own for partitions).
fn plain_column(def: &sqlparser::ast::ColumnDef) -> bool {
    let ty = def.data_type.to_string().to_ascii_lowercase();
    !ty.contains("serial")
        && def.options.iter().all(|o| {
            matches!(
                o.option,
                ColumnOption::Null
                    | ColumnOption::NotNull
                    | ColumnOption::Default(_)
                    | ColumnOption::Collation(_)
            )
        })
}

/// Before `ALTER TABLE [ONLY] name` of a partitioned table or a
/// partition `def`: refuses what PostgreSQL refuses (42P16) and what is
/// not built (0A000) of `op`. `Ok(true)`: `op` is one this file runs
/// (on the table, then [`recurse`]); `Ok(false)`: not one of its.
pub fn check(
    cx: &Ctx<'_>,
    txn: &Transaction,
    def: &TableDef,
    only: bool,
    op: &AlterTableOperation,
) -> Result<bool, SqlError> {
    let partition = def.partition_of().is_some();
    match op {
        AlterTableOperation::AddColumn { .. } if partition => {
            Err(SqlError::new("42809", "cannot add column to a partition"))
        }
        AlterTableOperation::AddColumn { .. } if only && !def.partitions.is_empty() => {
            Err(invalid("column must be added to child tables too".into()))
        }
        AlterTableOperation::AddColumn { column_def, .. } => match plain_column(column_def) {
            true => Ok(true),
            false => Err(SqlError::unsupported(
                "ADD COLUMN with a key, foreign key, CHECK, identity, generated or serial column on a partitioned table",
            )),
        },
        AlterTableOperation::DropColumn { column_names, .. } => {
            // Every column of a partition is its parent's.
            if partition && let Some(c) = column_names.iter().find(|c| has(def, c)) {
                return Err(invalid(format!(
                    "cannot drop inherited column \"{}\"",
                    names::ident(c)
                )));
            }
            if only && !def.partitions.is_empty() {
                return Err(invalid(
                    "cannot drop column from only the partitioned table when partitions exist"
                        .into(),
                )
                .with_hint("Do not specify the ONLY keyword."));
            }
            let mut tree = vec![def.clone()];
            tree.extend(descendants(cx, txn, def)?);
            for c in column_names {
                let column = names::ident(c);
                if let Some(t) = tree.iter().find(|t| in_key(t, &column)) {
                    return Err(invalid(format!(
                        "cannot drop column \"{column}\" because it is part of the partition key of relation \"{}\"",
                        bare(&t.name)
                    )));
                }
            }
            Ok(true)
        }
        AlterTableOperation::DropConstraint { name, .. } => {
            let name = names::ident(name);
            let own = def.constraints.iter().find(|c| c.name == name);
            let foreign_key = |c: &&ConstraintDef| matches!(c.kind, ConstraintKind::ForeignKey(_));
            // A key (its index): its partitions' go with it
            // ([`keys_below`]); one that stands for its parent's goes
            // only with that.
            if let Some(key) = def.indexes.iter().find(|i| i.constraint && i.name == name) {
                let tables = cx.db.catalog().tables(txn)?;
                let parents = super::index_tree::parents(&tables);
                if parents.contains_key(&key.oid) {
                    return Err(invalid(format!(
                        "cannot drop inherited constraint \"{name}\" of relation \"{}\"",
                        bare(&def.name)
                    )));
                }
                return Ok(true);
            }
            if own.is_some_and(|c| !foreign_key(&c)) || def.indexes.iter().any(|i| i.name == name) {
                return Err(SqlError::unsupported(
                    "ALTER TABLE DROP CONSTRAINT of a key or CHECK on a partitioned table or a partition",
                ));
            }
            // A key it has of its parent (merged, or received under that
            // name) goes only with the parent's.
            match super::merged_keys::inherited(cx, txn, def, &name)? {
                Some(_) => Err(invalid(format!(
                    "cannot drop inherited constraint \"{name}\" of relation \"{}\"",
                    bare(&def.name)
                ))),
                // Its own, or none of the name: the plain path's drop (or
                // 42704, or skip).
                None => Ok(true),
            }
        }
        _ => Ok(false),
    }
}

/// The keys of partitions (table, constraint) that stand for a key of
/// partitioned table `name` that a DROP CONSTRAINT of `operations` drops,
/// at every level below: found before the drop (the pairing is found
/// from the definitions, `index_tree.rs`), dropped after it.
pub fn keys_below(
    cx: &Ctx<'_>,
    txn: &Transaction,
    name: &ObjectName,
    operations: &[AlterTableOperation],
) -> Result<Vec<(String, String)>, SqlError> {
    let Ok(text) = names::relation(name) else {
        return Ok(Vec::new());
    };
    let Some(def) = cx.db.catalog().table(txn, &text)? else {
        return Ok(Vec::new());
    };
    if def.partitions.is_empty() {
        return Ok(Vec::new());
    }
    let tables = cx.db.catalog().tables(txn)?;
    let parents = super::index_tree::parents(&tables);
    let mut out = Vec::new();
    for op in operations {
        let AlterTableOperation::DropConstraint { name, .. } = op else {
            continue;
        };
        let name = names::ident(name);
        if let Some(key) = def.indexes.iter().find(|i| i.constraint && i.name == name) {
            out.extend(super::index_tree::below(&tables, &parents, key.oid));
        }
    }
    Ok(out)
}

fn has(def: &TableDef, column: &Ident) -> bool {
    def.column(&names::ident(column)).is_some()
}

/// After `ALTER TABLE name operations` ran on partitioned table `name`:
/// its ADD COLUMN and DROP COLUMN operations on every partition below it,
/// each after its parent.
pub fn recurse(
    cx: &Ctx<'_>,
    txn: &mut Transaction,
    name: &ObjectName,
    operations: &[AlterTableOperation],
) -> Result<(), SqlError> {
    let Ok(text) = names::relation(name) else {
        return Ok(());
    };
    let Some(def) = cx.db.catalog().table(txn, &text)? else {
        return Ok(());
    };
    if def.partitions.is_empty() {
        return Ok(());
    }
    let ops: Vec<AlterTableOperation> = (operations.iter())
        .filter_map(|op| match op {
            AlterTableOperation::AddColumn { column_def, .. } => {
                Some(AlterTableOperation::AddColumn {
                    column_keyword: true,
                    if_not_exists: false,
                    column_def: column_def.clone(),
                    column_position: None,
                })
            }
            AlterTableOperation::DropColumn {
                column_names,
                drop_behavior,
                ..
            } => {
                // (IF EXISTS: the parent had the ones it dropped, and so
                // did its partitions.)
                Some(AlterTableOperation::DropColumn {
                    has_column_keyword: true,
                    column_names: column_names.clone(),
                    if_exists: true,
                    drop_behavior: *drop_behavior,
                })
            }
            _ => None,
        })
        .collect();
    if ops.is_empty() {
        return Ok(());
    }
    for part in descendants(cx, txn, &def)? {
        let written = crate::inheritance::syntax::plain_name(&part.name);
        crate::ddl::alter_table(cx, txn, &mut Vec::new(), &written, &ops, false)?;
        cx.relations.ddl();
    }
    Ok(())
}
