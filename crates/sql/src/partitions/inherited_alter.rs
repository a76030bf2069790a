//! `ALTER TABLE [ONLY] p` changes a partitioned table hands down to its
//! partitions, as PostgreSQL 15's recursion does: `ALTER [COLUMN] c SET
//! DEFAULT ... | DROP DEFAULT | SET NOT NULL | DROP NOT NULL | TYPE ...`,
//! `RENAME [COLUMN] c TO d`, `ADD [CONSTRAINT name] CHECK (...)`,
//! `VALIDATE CONSTRAINT` and `DROP CONSTRAINT` of a CHECK. Each
//! runs on the table, then (without ONLY) on every partition below it,
//! each after its parent, through the plain ALTER TABLE of one table
//! (`ddl::alter_table`), so the rows of each partition are checked where
//! they are (a NULL, a failing CHECK).
//!
//! What a partition received from its parent is its parent's: a CHECK a
//! partition gets this way (or at CREATE / ATTACH) is marked not its own
//! (`conislocal` false) and goes when the parent's goes; a partition may
//! not drop a CHECK its parent has, nor DROP NOT NULL of a column NOT
//! NULL in its parent (42P16). ONLY a partitioned table with partitions
//! may SET NOT NULL only where every partition has it already, and may
//! not add a CHECK nor remove either (42P16, PostgreSQL's texts); ONLY
//! of one without partitions changes the table alone. A DEFAULT with
//! ONLY stays the table's own (a partition keeps its own default, which
//! an INSERT naming the partition uses). A partition's columns are all
//! its parent's: it may not retype nor rename one (42P16), and no
//! partition key column anywhere in the tree may be retyped (42P16, the
//! relation whose key it is named); ONLY p with partitions may not rename
//! (`inherited column "a" must be renamed in child tables too`).

use super::columns::{bare, invalid, table_def};
use crate::context::Ctx;
use crate::error::SqlError;
use crate::names;
use folio_catalog::{ConstraintKind, TableDef};
use folio_db::Transaction;
use sqlparser::ast::{AlterColumnOperation, AlterTableOperation, Ident, TableConstraint};

/// CHECK constraint `name` of `def`.
fn check_named<'d>(def: &'d TableDef, name: &str) -> Option<&'d folio_catalog::ConstraintDef> {
    (def.constraints.iter())
        .find(|c| c.name == name && matches!(c.kind, ConstraintKind::Check { .. }))
}

/// The partitioned table `def` is a partition of, if it is one.
fn parent(cx: &Ctx<'_>, txn: &Transaction, def: &TableDef) -> Result<Option<TableDef>, SqlError> {
    match def.partition_parent() {
        Some(name) => Ok(cx.db.catalog().table(txn, name)?),
        None => Ok(None),
    }
}

/// Whether `op` is one of this file's.
pub fn is_handed_down(op: &AlterTableOperation) -> bool {
    match op {
        AlterTableOperation::AlterColumn { op, .. } => matches!(
            op,
            AlterColumnOperation::SetDefault { .. }
                | AlterColumnOperation::DropDefault
                | AlterColumnOperation::SetNotNull
                | AlterColumnOperation::DropNotNull
                | AlterColumnOperation::SetDataType { .. }
        ),
        AlterTableOperation::RenameColumn { .. } => true,
        AlterTableOperation::ValidateConstraint { .. } => true,
        AlterTableOperation::AddConstraint {
            constraint: constraint @ TableConstraint::Check { .. },
            ..
        } => !crate::inheritance::syntax::no_inherit(constraint),
        _ => false,
    }
}

/// Before `ALTER TABLE [ONLY]` of partitioned table or partition `def`:
/// PostgreSQL's refusals of `op`. `Ok(true)`: `op` is one of this file's
/// (it runs on the table, then [`recurse`]); `Ok(false)`: not.
pub fn check(
    cx: &Ctx<'_>,
    txn: &Transaction,
    def: &TableDef,
    only: bool,
    op: &AlterTableOperation,
) -> Result<bool, SqlError> {
    let with_partitions = only && !def.partitions.is_empty();
    let removal_refused = || {
        invalid(
            "cannot remove constraint from only the partitioned table when partitions exist".into(),
        )
        .with_hint("Do not specify the ONLY keyword.")
    };
    match op {
        AlterTableOperation::DropConstraint { name, .. } => {
            let name = names::ident(name);
            if check_named(def, &name).is_none() {
                return Ok(false);
            }
            if let Some(parent) = parent(cx, txn, def)?
                && check_named(&parent, &name).is_some()
            {
                return Err(invalid(format!(
                    "cannot drop inherited constraint \"{name}\" of relation \"{}\"",
                    bare(&def.name)
                )));
            }
            match with_partitions {
                true => Err(removal_refused()),
                false => Ok(true),
            }
        }
        // A CHECK's (a foreign key's is the plain path's refusal).
        AlterTableOperation::ValidateConstraint { name } => {
            Ok(check_named(def, &names::ident(name)).is_some())
        }
        _ if !is_handed_down(op) => Ok(false),
        AlterTableOperation::AlterColumn {
            column_name,
            op: AlterColumnOperation::SetDataType { .. },
        } => {
            let column = names::ident(column_name);
            if def.partition_of().is_some() && def.column(&column).is_some() {
                return Err(invalid(format!(
                    "cannot alter inherited column \"{column}\""
                )));
            }
            if with_partitions {
                return Err(invalid(format!(
                    "type of inherited column \"{column}\" must be changed in child tables too"
                )));
            }
            let mut tree = vec![def.clone()];
            tree.extend(super::columns::descendants(cx, txn, def)?);
            if let Some(t) = tree.iter().find(|t| super::columns::in_key(t, &column)) {
                return Err(invalid(format!(
                    "cannot alter column \"{column}\" because it is part of the partition key of relation \"{}\"",
                    bare(&t.name)
                )));
            }
            Ok(true)
        }
        AlterTableOperation::RenameColumn {
            old_column_name, ..
        } => {
            let column = names::ident(old_column_name);
            if def.column(&column).is_none() {
                // The plain path's 42703.
                return Ok(true);
            }
            if def.partition_of().is_some() {
                return Err(invalid(format!(
                    "cannot rename inherited column \"{column}\""
                )));
            }
            if with_partitions {
                return Err(invalid(format!(
                    "inherited column \"{column}\" must be renamed in child tables too"
                )));
            }
            // A key expression is stored as text, which a rename does not
            // rewrite yet.
            let mut tree = vec![def.clone()];
            tree.extend(super::columns::descendants(cx, txn, def)?);
            let in_expression = |t: &TableDef| {
                (t.partition_key_exprs().iter())
                    .any(|e| crate::drop_column::names_column(e, &column))
            };
            if let Some(t) = tree.iter().find(|t| in_expression(t)) {
                return Err(SqlError::unsupported(format!(
                    "renaming column \"{column}\", which the partition key expression of \"{}\" uses,",
                    bare(&t.name)
                )));
            }
            Ok(true)
        }
        AlterTableOperation::AlterColumn {
            column_name,
            op: AlterColumnOperation::SetNotNull,
        } if with_partitions => {
            let column = names::ident(column_name);
            for (_, name) in &def.partitions {
                let part = table_def(cx, txn, name)?;
                if (part.column(&column)).is_some_and(|at| !part.columns[at].not_null) {
                    return Err(
                        invalid("constraint must be added to child tables too".into())
                            .with_detail(format!(
                                "Column \"{column}\" of relation \"{}\" is not already NOT NULL.",
                                bare(name)
                            ))
                            .with_hint("Do not specify the ONLY keyword."),
                    );
                }
            }
            Ok(true)
        }
        AlterTableOperation::AlterColumn {
            column_name,
            op: AlterColumnOperation::DropNotNull,
        } => {
            let column = names::ident(column_name);
            if let Some(parent) = parent(cx, txn, def)?
                && (parent.column(&column)).is_some_and(|at| parent.columns[at].not_null)
            {
                return Err(invalid(format!(
                    "column \"{column}\" is marked NOT NULL in parent table"
                )));
            }
            match with_partitions {
                true => Err(removal_refused()),
                false => Ok(true),
            }
        }
        AlterTableOperation::AddConstraint { .. } if with_partitions => Err(invalid(
            "constraint must be added to child tables too".into(),
        )),
        _ => Ok(true),
    }
}

/// After `ALTER TABLE name operations` ran on partitioned table `def`
/// (read again after them): this file's operations on every partition
/// below it, each after its parent; nothing with ONLY.
pub fn recurse(
    cx: &Ctx<'_>,
    txn: &mut Transaction,
    def: &TableDef,
    only: bool,
    operations: &[AlterTableOperation],
) -> Result<(), SqlError> {
    if only || def.partitions.is_empty() {
        return Ok(());
    }
    // Unnamed CHECKs take the name the table gave them.
    let operations = crate::inheritance::alter::named_checks(def, operations);
    let parent_checks: Vec<&str> = (def.constraints.iter())
        .filter(|c| matches!(c.kind, ConstraintKind::Check { .. }))
        .map(|c| c.name.as_str())
        .collect();
    for part in super::columns::descendants(cx, txn, def)? {
        let mut ops = Vec::new();
        let mut received = Vec::new();
        for op in &operations {
            match op {
                AlterTableOperation::DropConstraint {
                    name,
                    drop_behavior,
                    ..
                } if !parent_checks.contains(&names::ident(name).as_str()) => {
                    // The parent's is gone: so is what a partition had of it.
                    let name = names::ident(name);
                    if check_named(&part, &name).is_some_and(|c| !c.local) {
                        ops.push(AlterTableOperation::DropConstraint {
                            if_exists: true,
                            name: Ident::with_quote('"', name),
                            drop_behavior: *drop_behavior,
                        });
                    }
                }
                AlterTableOperation::AddConstraint {
                    constraint: TableConstraint::Check { name: Some(c), .. },
                    ..
                } => {
                    let c = names::ident(c);
                    if check_named(&part, &c).is_none() {
                        ops.push(op.clone());
                        received.push(c);
                    }
                }
                // (Each partition has the CHECK: PARTITION OF and ATTACH
                // see to it.)
                AlterTableOperation::ValidateConstraint { name }
                    if check_named(&part, &names::ident(name)).is_some() =>
                {
                    ops.push(op.clone());
                }
                AlterTableOperation::ValidateConstraint { .. } => {}
                op if is_handed_down(op) => ops.push(op.clone()),
                _ => {}
            }
        }
        if ops.is_empty() {
            continue;
        }
        let written = crate::inheritance::syntax::plain_name(&part.name);
        crate::ddl::alter_table(cx, txn, &mut Vec::new(), &written, &ops, false)?;
        for c in received {
            (cx.db.catalog()).set_constraint_local(txn, &part.name, &c, false)?;
        }
        cx.relations.ddl();
    }
    Ok(())
}
