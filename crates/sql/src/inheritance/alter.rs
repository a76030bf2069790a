//! What DDL does to an inheritance tree: DROP TABLE of a parent (its
//! descendants depend on it: 2BP01, or dropped too with CASCADE), and
//! ALTER TABLE's recursion into the children.

use super::counts::{self, Fate, Loss};
use crate::context::Ctx;
use crate::error::SqlError;
use crate::names;
use crate::output::Notice;
use folio_catalog::{ConstraintKind, TableDef};
use folio_db::Transaction;
use sqlparser::ast::{
    AlterColumnOperation, AlterTableOperation, ColumnOption, Ident, ObjectName, TableConstraint,
};

/// The names a DROP TABLE of `names` reaches: each parent's descendants
/// (deepest first) before it when `cascade`, with PostgreSQL's notice;
/// 2BP01 with its DETAIL and HINT when a descendant is not in the list
/// and not `cascade`. `None`: no table in the list has children.
pub fn with_children(
    cx: &Ctx<'_>,
    txn: &Transaction,
    notices: &mut Vec<Notice>,
    names_given: &[ObjectName],
    cascade: bool,
) -> Result<Option<Vec<ObjectName>>, SqlError> {
    let mut listed = Vec::new();
    for name in names_given {
        if let Ok(text) = names::relation(name)
            && let Ok(Some(def)) = cx.db.catalog().table(txn, &text)
        {
            listed.push(def.oid);
        }
    }
    let mut out: Vec<ObjectName> = Vec::new();
    // The tables already in `out`, each listed once.
    let mut pushed: Vec<u64> = Vec::new();
    let mut any = false;
    let mut cascaded = Vec::new();
    for name in names_given {
        let Ok(text) = names::relation(name) else {
            out.push(name.clone());
            continue;
        };
        let Ok(Some(def)) = cx.db.catalog().table(txn, &text) else {
            out.push(name.clone());
            continue;
        };
        if pushed.contains(&def.oid) {
            continue;
        }
        if def.children.is_empty() {
            pushed.push(def.oid);
            out.push(name.clone());
            continue;
        }
        let descendants = super::tree::descendants(cx, txn, &def)?;
        let staying: Vec<&folio_catalog::TableDef> = (descendants.iter())
            .filter(|d| !listed.contains(&d.oid))
            .collect();
        if !staying.is_empty() && !cascade {
            let shown = |n: &str| folio_catalog::unqualified(n).to_string();
            let detail = (staying.iter())
                .map(|d| {
                    // The parent the dependency is reported through: the
                    // last one in the tree being dropped.
                    let through = (d.parents().into_iter().rev())
                        .find(|(oid, _)| {
                            *oid == def.oid || descendants.iter().any(|x| x.oid == *oid)
                        })
                        .map(|(_, n)| shown(n))
                        .unwrap_or_else(|| shown(&def.name));
                    format!("table {} depends on table {through}", shown(&d.name))
                })
                .collect::<Vec<_>>()
                .join("\n");
            return Err(SqlError::new(
                "2BP01",
                format!(
                    "cannot drop table {} because other objects depend on it",
                    shown(&def.name)
                ),
            )
            .with_detail(detail)
            .with_hint("Use DROP ... CASCADE to drop the dependent objects too."));
        }
        any = true;
        for d in &staying {
            if !listed.contains(&d.oid) {
                listed.push(d.oid);
                cascaded.push(format!("table {}", folio_catalog::unqualified(&d.name)));
            }
        }
        for d in super::tree::ordered(cx, txn, &def)?.iter().rev() {
            if !pushed.contains(&d.oid) {
                pushed.push(d.oid);
                out.push(crate::inheritance::syntax::plain_name(&d.name));
            }
        }
        pushed.push(def.oid);
        out.push(name.clone());
    }
    notices.extend(Notice::cascaded(&cascaded));
    Ok(any.then_some(out))
}

fn table_def(cx: &Ctx<'_>, txn: &Transaction, name: &str) -> Result<TableDef, SqlError> {
    cx.db
        .catalog()
        .table(txn, name)?
        .ok_or_else(|| SqlError::undefined_table(folio_catalog::unqualified(name)))
}

fn parent_defs(cx: &Ctx<'_>, txn: &Transaction, def: &TableDef) -> Result<Vec<TableDef>, SqlError> {
    (def.parents().into_iter())
        .map(|(_, name)| table_def(cx, txn, name))
        .collect()
}

fn has_check(def: &TableDef, name: &str) -> bool {
    (def.constraints.iter())
        .any(|c| c.name == name && matches!(c.kind, ConstraintKind::Check { .. }))
}

fn invalid(message: String) -> SqlError {
    SqlError::new("42P16", message)
}

/// Refusals of `ALTER TABLE [ONLY] name operations` before it runs, as
/// PostgreSQL 15's (42P16): a child may not drop, rename or retype a
/// column it inherits nor drop an inherited CHECK constraint, and `ONLY`
/// a parent may not add a column or CHECK constraint, rename or retype a
/// column its children share.
pub fn check(
    cx: &Ctx<'_>,
    txn: &mut Transaction,
    notices: &mut Vec<Notice>,
    name: &ObjectName,
    only: bool,
    operations: &[AlterTableOperation],
) -> Result<Option<Vec<AlterTableOperation>>, SqlError> {
    let Ok(text) = names::relation(name) else {
        return Ok(None);
    };
    let Some(def) = cx.db.catalog().table(txn, &text)? else {
        return Ok(None);
    };
    // (A partitioned table's ONLY has rules of its own: ADD / DROP
    // COLUMN's are `partitions/columns.rs`'s, DEFAULT, NOT NULL and
    // CHECK's `partitions/inherited_alter.rs`'s, the others not built.)
    let column_op = |op: &AlterTableOperation| {
        matches!(
            op,
            AlterTableOperation::AddColumn { .. }
                | AlterTableOperation::DropColumn { .. }
                | AlterTableOperation::DropConstraint { .. }
        ) || crate::partitions::inherited_alter::is_handed_down(op)
            || crate::trigger_statements::Enabling::of(op).is_some()
    };
    if only && def.partition_key().is_some() && !operations.iter().all(column_op) {
        return Err(SqlError::unsupported("the statement \"ALTER TABLE ONLY\""));
    }
    let parents = parent_defs(cx, txn, &def)?;
    let inherited = |column: &Ident| {
        let column = names::ident(column);
        parents.iter().any(|p| p.column(&column).is_some())
    };
    let children = only && !def.children.is_empty();
    for op in operations {
        match op {
            AlterTableOperation::DropColumn { column_names, .. } => {
                if let Some(c) = column_names.iter().find(|c| inherited(c)) {
                    return Err(invalid(format!(
                        "cannot drop inherited column \"{}\"",
                        names::ident(c)
                    )));
                }
            }
            AlterTableOperation::RenameColumn {
                old_column_name, ..
            } => {
                if inherited(old_column_name) {
                    return Err(invalid(format!(
                        "cannot rename inherited column \"{}\"",
                        names::ident(old_column_name)
                    )));
                }
                if children {
                    return Err(invalid(format!(
                        "inherited column \"{}\" must be renamed in child tables too",
                        names::ident(old_column_name)
                    )));
                }
            }
            AlterTableOperation::AlterColumn {
                column_name,
                op: AlterColumnOperation::SetDataType { .. },
            } => {
                if inherited(column_name) {
                    return Err(invalid(format!(
                        "cannot alter inherited column \"{}\"",
                        names::ident(column_name)
                    )));
                }
                if children {
                    return Err(invalid(format!(
                        "type of inherited column \"{}\" must be changed in child tables too",
                        names::ident(column_name)
                    )));
                }
            }
            AlterTableOperation::DropConstraint { name: c, .. } => {
                let c = names::ident(c);
                if counts::check_count(&parents, &c) > 0 {
                    return Err(invalid(format!(
                        "cannot drop inherited constraint \"{c}\" of relation \"{}\"",
                        folio_catalog::unqualified(&def.name)
                    )));
                }
            }
            AlterTableOperation::RenameConstraint { old_name, .. }
                if counts::check_count(&parents, &names::ident(old_name)) > 0 =>
            {
                return Err(invalid(format!(
                    "cannot rename inherited constraint \"{}\"",
                    names::ident(old_name)
                )));
            }
            AlterTableOperation::AddColumn { .. } if children => {
                return Err(invalid("column must be added to child tables too".into()));
            }
            AlterTableOperation::AddConstraint {
                constraint: constraint @ TableConstraint::Check { .. },
                ..
            } if children && !super::syntax::no_inherit(constraint) => {
                return Err(invalid(
                    "constraint must be added to child tables too".into(),
                ));
            }
            _ => {}
        }
    }
    // A CHECK constraint a child already inherits under the name is
    // merged with it (PostgreSQL's notice), not added again, and becomes
    // the child's own too.
    let merged = |op: &AlterTableOperation| match op {
        AlterTableOperation::AddConstraint {
            constraint: TableConstraint::Check { name: Some(c), .. },
            ..
        } => {
            let c = names::ident(c);
            has_check(&def, &c) && counts::check_count(&parents, &c) > 0
        }
        _ => false,
    };
    if !operations.iter().any(merged) {
        return Ok(None);
    }
    let mut kept = Vec::new();
    for op in operations {
        match merged(op) {
            true => {
                if let AlterTableOperation::AddConstraint {
                    constraint: TableConstraint::Check { name: Some(c), .. },
                    ..
                } = op
                {
                    notices.push(Notice::info(format!(
                        "merging constraint \"{}\" with inherited definition",
                        names::ident(c)
                    )));
                    (cx.db.catalog()).set_constraint_local(
                        txn,
                        &def.name,
                        &names::ident(c),
                        true,
                    )?;
                }
            }
            false => kept.push(op.clone()),
        }
    }
    Ok(Some(kept))
}

/// After `ALTER TABLE name operations` (without `ONLY`) ran on `name`:
/// the operations that reach children run on each child, and so on down
/// (ADD / DROP / RENAME COLUMN, ALTER COLUMN's NOT NULL, default and
/// type, ADD CHECK, VALIDATE and DROP CONSTRAINT of a CHECK), as
/// PostgreSQL's recursion.
pub fn recurse(
    cx: &Ctx<'_>,
    txn: &mut Transaction,
    notices: &mut Vec<Notice>,
    name: &ObjectName,
    only: bool,
    operations: &[AlterTableOperation],
) -> Result<(), SqlError> {
    let Ok(text) = names::relation(name) else {
        return Ok(());
    };
    let Some(def) = cx.db.catalog().table(txn, &text)? else {
        return Ok(());
    };
    if only {
        return only_drops(cx, txn, &def, operations);
    }
    recurse_from(cx, txn, notices, &def, operations)
}

/// After `ALTER TABLE ONLY parent DROP COLUMN | CONSTRAINT`: each child
/// keeps what it had of the parent, as its own ([`counts::fate`]).
fn only_drops(
    cx: &Ctx<'_>,
    txn: &mut Transaction,
    parent: &TableDef,
    operations: &[AlterTableOperation],
) -> Result<(), SqlError> {
    for (_, child_name) in &parent.children {
        let child = table_def(cx, txn, child_name)?;
        for op in operations {
            match op {
                AlterTableOperation::DropColumn { column_names, .. } => {
                    for c in column_names {
                        let c = names::ident(c);
                        if let Some(at) = child.column(&c)
                            && let Fate::Keep { local } =
                                counts::fate(Loss::DroppedOnly, child.columns[at].local, 0)
                        {
                            cx.db
                                .catalog()
                                .set_column_local(txn, &child.name, &c, local)?;
                        }
                    }
                }
                AlterTableOperation::DropConstraint { name: c, .. } => {
                    let c = names::ident(c);
                    if let Some(con) = check_of(&child, &c)
                        && let Fate::Keep { local } = counts::fate(Loss::DroppedOnly, con.local, 0)
                    {
                        (cx.db.catalog()).set_constraint_local(txn, &child.name, &c, local)?;
                    }
                }
                _ => {}
            }
        }
    }
    cx.relations.ddl();
    Ok(())
}

/// CHECK constraint `name` of `def`.
fn check_of<'d>(def: &'d TableDef, name: &str) -> Option<&'d folio_catalog::ConstraintDef> {
    (def.constraints.iter())
        .find(|c| c.name == name && matches!(c.kind, ConstraintKind::Check { .. }))
}

fn recurse_from(
    cx: &Ctx<'_>,
    txn: &mut Transaction,
    notices: &mut Vec<Notice>,
    root: &TableDef,
    operations: &[AlterTableOperation],
) -> Result<(), SqlError> {
    if root.children.is_empty() {
        return Ok(());
    }
    let operations = named_checks(root, operations);
    let descendants = super::tree::ordered(cx, txn, root)?;
    let mut tree: Vec<u64> = vec![root.oid];
    tree.extend(descendants.iter().map(|d| d.oid));
    for d in &descendants {
        // Read again: a parent's change may have reached it.
        let child = table_def(cx, txn, &d.name)?;
        let ops = child_operations(cx, txn, notices, (root, &tree), &child, &operations)?;
        if ops.is_empty() {
            continue;
        }
        let written = super::syntax::plain_name(&child.name);
        crate::ddl::alter_table(cx, txn, notices, &written, &ops, false)?;
        // What the child received only from its parent is not its own.
        for op in &ops {
            match op {
                AlterTableOperation::AddColumn { column_def, .. } => {
                    let c = names::ident(&column_def.name);
                    cx.db
                        .catalog()
                        .set_column_local(txn, &child.name, &c, false)?;
                }
                AlterTableOperation::AddConstraint {
                    constraint: TableConstraint::Check { name: Some(c), .. },
                    ..
                } => {
                    let c = names::ident(c);
                    (cx.db.catalog()).set_constraint_local(txn, &child.name, &c, false)?;
                }
                _ => {}
            }
        }
        cx.relations.ddl();
    }
    Ok(())
}

/// `operations` with each unnamed `ADD CHECK` given the name the parent
/// `root` gave it (its newest CHECK constraints, in order), so children
/// get the same name, as PostgreSQL's.
pub(crate) fn named_checks(
    root: &TableDef,
    operations: &[AlterTableOperation],
) -> Vec<AlterTableOperation> {
    let unnamed = (operations.iter())
        .filter(|op| {
            matches!(
                op,
                AlterTableOperation::AddConstraint {
                    constraint: TableConstraint::Check { name: None, .. },
                    ..
                }
            )
        })
        .count();
    let checks: Vec<&str> = (root.constraints.iter())
        .filter(|c| matches!(c.kind, ConstraintKind::Check { .. }))
        .map(|c| c.name.as_str())
        .collect();
    let mut names = checks[checks.len().saturating_sub(unnamed)..].iter();
    (operations.iter())
        .map(|op| {
            let mut op = op.clone();
            if let AlterTableOperation::AddConstraint {
                constraint:
                    TableConstraint::Check {
                        name: name @ None, ..
                    },
                ..
            } = &mut op
            {
                *name = names.next().map(|n| Ident::with_quote('"', *n));
            }
            op
        })
        .collect()
}

/// The operations of an ALTER TABLE of `parent` that reach `child`.
fn child_operations(
    cx: &Ctx<'_>,
    txn: &Transaction,
    notices: &mut Vec<Notice>,
    (parent, tree): (&TableDef, &[u64]),
    child: &TableDef,
    operations: &[AlterTableOperation],
) -> Result<Vec<AlterTableOperation>, SqlError> {
    let shown = folio_catalog::unqualified(&child.name).to_string();
    let has = |c: &Ident| child.column(&names::ident(c)).is_some();
    // The child's parents outside the tree being changed: a column it
    // also inherits from one stays, and may not be renamed or retyped.
    let current = parent_defs(cx, txn, child)?;
    let others: Vec<&TableDef> = (current.iter())
        .filter(|p| !tree.contains(&p.oid))
        .collect();
    let shared = |c: &Ident| others.iter().any(|p| p.column(&names::ident(c)).is_some());
    let mut out = Vec::new();
    for op in operations {
        match op {
            AlterTableOperation::AddColumn { column_def, .. } => {
                let column = names::ident(&column_def.name);
                let Some(at) = child.column(&column) else {
                    let mut column_def = column_def.clone();
                    column_def.options.retain(|o| {
                        !matches!(
                            o.option,
                            ColumnOption::Unique { .. } | ColumnOption::ForeignKey { .. }
                        )
                    });
                    out.push(AlterTableOperation::AddColumn {
                        column_keyword: true,
                        if_not_exists: false,
                        column_def,
                        column_position: None,
                    });
                    continue;
                };
                let c = &child.columns[at];
                let given = parent.column(&column).map(|p| &parent.columns[p]);
                if given.is_some_and(|g| (g.type_oid, g.typmod) != (c.type_oid, c.typmod)) {
                    return Err(SqlError::new(
                        "42804",
                        format!(
                            "child table \"{shown}\" has different type for column \"{column}\""
                        ),
                    ));
                }
                notices.push(Notice::info(format!(
                    "merging definition of column \"{column}\" for child \"{shown}\""
                )));
            }
            AlterTableOperation::DropColumn {
                column_names,
                drop_behavior,
                ..
            } => {
                // (The parent's drop has run: `current` no longer
                // counts it.)
                let dropped: Vec<Ident> = (column_names.iter())
                    .filter(|c| {
                        let c = names::ident(c);
                        child.column(&c).is_some_and(|at| {
                            let remaining = counts::column_count(&current, &c);
                            let local = child.columns[at].local;
                            counts::fate(Loss::Dropped, local, remaining) == Fate::Drop
                        })
                    })
                    .cloned()
                    .collect();
                if !dropped.is_empty() {
                    out.push(AlterTableOperation::DropColumn {
                        has_column_keyword: true,
                        column_names: dropped,
                        if_exists: false,
                        drop_behavior: *drop_behavior,
                    });
                }
            }
            AlterTableOperation::RenameColumn {
                old_column_name, ..
            } if has(old_column_name) => {
                if shared(old_column_name) {
                    return Err(invalid(format!(
                        "cannot rename inherited column \"{}\"",
                        names::ident(old_column_name)
                    )));
                }
                out.push(op.clone())
            }
            AlterTableOperation::AlterColumn {
                column_name,
                op: AlterColumnOperation::SetDataType { .. },
            } if has(column_name) && shared(column_name) => {
                return Err(invalid(format!(
                    "cannot alter inherited column \"{}\" of relation \"{shown}\"",
                    names::ident(column_name)
                )));
            }
            AlterTableOperation::AlterColumn {
                column_name,
                op:
                    AlterColumnOperation::SetNotNull
                    | AlterColumnOperation::DropNotNull
                    | AlterColumnOperation::SetDefault { .. }
                    | AlterColumnOperation::DropDefault
                    | AlterColumnOperation::SetDataType { .. },
            } if has(column_name) => out.push(op.clone()),
            AlterTableOperation::AddConstraint { constraint, .. }
                if super::syntax::no_inherit(constraint) => {}
            AlterTableOperation::AddConstraint {
                constraint: TableConstraint::Check { name: Some(c), .. },
                ..
            } => {
                let c = names::ident(c);
                match check_of(child, &c) {
                    Some(have) if have.no_inherit => {
                        return Err(SqlError::new(
                            "42P17",
                            format!(
                                "constraint \"{c}\" conflicts with non-inherited constraint on relation \"{shown}\""
                            ),
                        ));
                    }
                    Some(_) => notices.push(Notice::info(format!(
                        "merging constraint \"{c}\" with inherited definition"
                    ))),
                    None => out.push(op.clone()),
                }
            }
            // (Every child has an inheritable CHECK of its parent.)
            AlterTableOperation::ValidateConstraint { name: c }
                if counts::inheritable_check(parent, &names::ident(c))
                    && check_of(child, &names::ident(c)).is_some() =>
            {
                out.push(op.clone());
            }
            AlterTableOperation::DropConstraint {
                name: c,
                drop_behavior,
                ..
            } if check_of(child, &names::ident(c)).is_some_and(|con| {
                let remaining = counts::check_count(&current, &con.name);
                counts::fate(Loss::Dropped, con.local, remaining) == Fate::Drop
            }) =>
            {
                out.push(AlterTableOperation::DropConstraint {
                    if_exists: true,
                    name: c.clone(),
                    drop_behavior: *drop_behavior,
                });
            }
            _ => {}
        }
    }
    Ok(out)
}

/// `ALTER TABLE [IF EXISTS] [ONLY] table [NO] INHERIT parent`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Inherit {
    pub table: String,
    pub parent: String,
    /// `INHERIT` (else `NO INHERIT`).
    pub add: bool,
}

/// Runs `ALTER TABLE table INHERIT parent` (the child must have each of
/// the parent's columns, of its type, NOT NULL where the parent's is,
/// and each of its CHECK constraints: 42804; a cycle is 42P07) or `NO
/// INHERIT parent` (42P01 if it is not a parent), as PostgreSQL 15's.
pub fn inherit(cx: &Ctx<'_>, txn: &mut Transaction, alter: &Inherit) -> Result<(), SqlError> {
    // Its own statement (sqlparser has none), so the names are resolved
    // here: a temporary table of the name first, then the search path.
    let named = |name: &str| crate::temp_tables::resolve_name(cx, txn, name);
    let child = table_def(cx, txn, &named(&alter.table)?)?;
    // (PostgreSQL's ATPrepAddInherit refuses before the parent is read.)
    let partition = child.partition_of().is_some();
    if alter.add && child.partition_key().is_some() && !partition {
        return Err(SqlError::new(
            "42809",
            "cannot change inheritance of partitioned table",
        ));
    }
    if alter.add && partition {
        return Err(SqlError::new(
            "42809",
            "cannot change inheritance of a partition",
        ));
    }
    let parent = table_def(cx, txn, &named(&alter.parent)?)?;
    let shown = |d: &TableDef| folio_catalog::unqualified(&d.name).to_string();
    let parents = child.parents();
    if !alter.add && partition {
        return Err(SqlError::new(
            "42809",
            "cannot change inheritance of a partition",
        ));
    }
    if !alter.add {
        if !parents.iter().any(|(oid, _)| *oid == parent.oid) {
            return Err(SqlError::new(
                "42P01",
                format!(
                    "relation \"{}\" is not a parent of relation \"{}\"",
                    shown(&parent),
                    shown(&child)
                ),
            ));
        }
        cx.db
            .catalog()
            .remove_inheritance(txn, &child.name, parent.oid)?;
        cx.relations.ddl();
        return unlinked(cx, txn, &parent, &child.name);
    }
    if parent.partition_key().is_some() {
        return Err(SqlError::new(
            "42809",
            format!(
                "cannot inherit from partitioned table \"{}\"",
                shown(&parent)
            ),
        ));
    }
    if parent.partition_of().is_some() {
        return Err(SqlError::new("42809", "cannot inherit from a partition"));
    }
    if parents.iter().any(|(oid, _)| *oid == parent.oid) {
        return Err(SqlError::new(
            "42P07",
            format!(
                "relation \"{}\" would be inherited from more than once",
                shown(&parent)
            ),
        ));
    }
    let below = super::tree::scans(cx, txn, &child)?;
    if below.contains(&parent.name) {
        return Err(
            SqlError::new("42P07", "circular inheritance not allowed").with_detail(format!(
                "\"{}\" is already a child of \"{}\".",
                shown(&parent),
                shown(&child)
            )),
        );
    }
    // (A row trigger with transition tables cannot be an inheritance
    // child's: PostgreSQL's 0A000, before the columns are compared.)
    let all = crate::triggers::in_scope();
    if let Some(t) = all.iter().find(|t| {
        t.table == child.oid
            && t.kind & folio_catalog::TRIGGER_ROW != 0
            && (t.old_table.is_some() || t.new_table.is_some())
    }) {
        return Err(SqlError::new(
            "0A000",
            format!(
                "trigger \"{}\" prevents table \"{}\" from becoming an inheritance child",
                t.name,
                shown(&child)
            ),
        )
        .with_detail(
            "ROW triggers with transition tables are not supported in inheritance hierarchies.",
        ));
    }
    for c in &parent.columns {
        let Some(at) = child.column(&c.name) else {
            return Err(SqlError::new(
                "42804",
                format!("child table is missing column \"{}\"", c.name),
            ));
        };
        let mine = &child.columns[at];
        if (mine.type_oid, mine.typmod) != (c.type_oid, c.typmod) {
            return Err(SqlError::new(
                "42804",
                format!(
                    "child table \"{}\" has different type for column \"{}\"",
                    shown(&child),
                    c.name
                ),
            ));
        }
        if c.not_null && !mine.not_null {
            return Err(SqlError::new(
                "42804",
                format!(
                    "column \"{}\" in child table must be marked NOT NULL",
                    c.name
                ),
            ));
        }
    }
    for c in &parent.constraints {
        if !matches!(c.kind, ConstraintKind::Check { .. }) || c.no_inherit {
            continue;
        }
        match check_of(&child, &c.name) {
            None => {
                return Err(SqlError::new(
                    "42804",
                    format!("child table is missing constraint \"{}\"", c.name),
                ));
            }
            Some(have) if have.no_inherit => {
                return Err(SqlError::new(
                    "42P17",
                    format!(
                        "constraint \"{}\" conflicts with non-inherited constraint on child table \"{}\"",
                        c.name,
                        shown(&child)
                    ),
                ));
            }
            Some(_) => {}
        }
    }
    let seqno = parents.len() as u16 + 1;
    cx.db
        .catalog()
        .add_inheritance(txn, &child.name, parent.oid, seqno)?;
    cx.relations.ddl();
    Ok(())
}

/// After `ALTER TABLE child NO INHERIT parent`: each column and CHECK the
/// child had of `parent` stays, its own where no other parent gives it
/// ([`counts::fate`]).
fn unlinked(
    cx: &Ctx<'_>,
    txn: &mut Transaction,
    parent: &TableDef,
    child_name: &str,
) -> Result<(), SqlError> {
    let child = table_def(cx, txn, child_name)?;
    let remaining = parent_defs(cx, txn, &child)?;
    for c in &parent.columns {
        let Some(at) = child.column(&c.name) else {
            continue;
        };
        let local = child.columns[at].local;
        let count = counts::column_count(&remaining, &c.name);
        if let Fate::Keep { local: now } = counts::fate(Loss::Unlinked, local, count)
            && now != local
        {
            (cx.db.catalog()).set_column_local(txn, &child.name, &c.name, now)?;
        }
    }
    for c in &parent.constraints {
        if !counts::inheritable_check(parent, &c.name) {
            continue;
        }
        let Some(have) = check_of(&child, &c.name) else {
            continue;
        };
        let count = counts::check_count(&remaining, &c.name);
        if let Fate::Keep { local: now } = counts::fate(Loss::Unlinked, have.local, count)
            && now != have.local
        {
            (cx.db.catalog()).set_constraint_local(txn, &child.name, &c.name, now)?;
        }
    }
    cx.relations.ddl();
    Ok(())
}
