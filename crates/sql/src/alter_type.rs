//! `ALTER TABLE t ALTER [COLUMN] c [SET DATA] TYPE ty [USING expr]`, one
//! or more in a statement: each row's new values computed here (the cast
//! from the old type, or the `USING` expression over the row's columns,
//! by `types.rs`'s rules), then folio-catalog's `alter_column_types`
//! writes every row again and builds the indexes over the columns again
//! (its README's "Changing a column's type"). When no stored value
//! changes (every change binary-coercible, folio-row's
//! `SqlType::binary_coercible`, and no USING but the column itself), its
//! `relabel_column_types` changes the catalog alone, as PostgreSQL skips
//! the rewrite. Then CHECK constraints and foreign keys are re-checked,
//! as PostgreSQL's table rewrite does; defaults must cast to the new type
//! by assignment and keep their text; an identity column's sequence
//! takes the new type.

use crate::constraints::Constraints;
use crate::context::Ctx;
use crate::error::SqlError;
use crate::names;
use crate::scalar::{self, Env, Scalar};
use crate::types;
use folio_catalog::{ConstraintKind, NewType, Relation, SequenceRequest};
use folio_db::Transaction;
use folio_row::{SqlType, Value};
use sqlparser::ast::{DataType, Expr, Ident};

/// One `ALTER COLUMN column TYPE data_type [USING using]`.
pub struct TypeChange<'a> {
    pub column: &'a Ident,
    pub data_type: &'a DataType,
    pub using: Option<&'a Expr>,
}

/// A change as this statement applies it.
struct Planned {
    name: String,
    position: usize,
    ty: SqlType,
    /// The column's new value, over the row's old values.
    value: Scalar,
    not_null: bool,
}

/// Changes the types of the columns `changes` name in table `table`, all
/// in one rewrite (the `USING` expressions read the old values).
pub fn alter_column_types(
    cx: &Ctx<'_>,
    txn: &mut Transaction,
    table: &str,
    changes: &[TypeChange<'_>],
) -> Result<(), SqlError> {
    let catalog = cx.db.catalog();
    catalog.lock_for_rewrite(txn, table)?;
    // Read once locked, whatever the isolation (`drop_column`'s rule).
    let relation = txn
        .with_latest_snapshot(|txn| catalog.relation(txn, table))?
        .ok_or_else(|| SqlError::undefined_table(table))?;
    let mut targets: Vec<(String, usize, SqlType)> = Vec::with_capacity(changes.len());
    for change in changes {
        let name = names::ident(change.column);
        let position = relation.def.column(&name).ok_or_else(|| {
            SqlError::new(
                "42703",
                format!("column \"{name}\" of relation \"{table}\" does not exist"),
            )
        })?;
        if targets.iter().any(|(_, p, _)| *p == position) {
            return Err(SqlError::new(
                "0A000",
                format!("cannot alter type of column \"{name}\" twice"),
            ));
        }
        if let Some(user) = crate::generated::readers_of(&relation.def, position).first() {
            return Err(SqlError::unsupported(
                "cannot alter type of a column used by a generated column",
            )
            .with_detail(format!(
                "Column \"{name}\" is used by generated column \"{user}\"."
            )));
        }
        let ty = types::stored_column_type(change.data_type)?;
        targets.push((name, position, ty));
    }
    // An identity column's sequence takes the new type first, as
    // PostgreSQL's ALTER SEQUENCE ... AS before the table's change.
    for (_, position, ty) in &targets {
        retype_identity(cx, txn, &relation, *position, *ty)?;
    }
    let mut planned: Vec<Planned> = Vec::with_capacity(changes.len());
    for ((name, position, ty), change) in targets.into_iter().zip(changes) {
        let value = converted(&relation, &name, position, ty, change.using)?;
        planned.push(Planned {
            not_null: relation.def.columns[position].not_null,
            name,
            position,
            ty,
            value,
        });
    }
    check_defaults(&relation, &planned)?;
    let env = Env::at(cx.now());
    let new_types: Vec<NewType> = (planned.iter())
        .map(|p| NewType {
            column: p.name.clone(),
            type_oid: p.ty.oid(),
            typmod: p.ty.typmod(),
        })
        .collect();
    // No stored value changes (a varchar made longer, or text; the same
    // type): the catalog alone, as PostgreSQL skips the rewrite.
    let relabel = planned.iter().all(|p| {
        p.value == Scalar::Column(p.position) && relation.types[p.position].binary_coercible(p.ty)
    });
    if relabel {
        catalog.relabel_column_types(txn, table, &new_types)?;
        cx.relations.ddl();
        return recheck(cx, txn, table, &relation, &planned, &env);
    }
    let rows = txn.with_latest_snapshot(|txn| relation.scan(txn))?;
    let mut rewritten = Vec::with_capacity(rows.len());
    for (tid, old) in rows {
        let mut new = old.clone();
        for p in &planned {
            new[p.position] = types::cast(p.value.eval(&old, &env)?, p.ty)?;
        }
        rewritten.push((tid, new));
    }
    for p in planned.iter().filter(|p| p.not_null) {
        if rewritten
            .iter()
            .any(|(_, row)| row[p.position] == Value::Null)
        {
            return Err(SqlError::new(
                "23502",
                format!(
                    "column \"{}\" of relation \"{table}\" contains null values",
                    p.name
                ),
            ));
        }
    }
    catalog.alter_column_types(txn, table, &new_types, rewritten)?;
    // Read from here on with the new types.
    cx.relations.ddl();
    recheck(cx, txn, table, &relation, &planned, &env)
}

/// The sequence of `relation`'s identity column at `position`, if it is
/// one, changed to type `ty` (PostgreSQL's `ALTER SEQUENCE ... AS ty`: a
/// bound at the old type's limit moves to the new type's; the current
/// value must fit): 22023 unless `ty` is smallint, integer or bigint. A
/// serial's sequence keeps its type, as in PostgreSQL.
fn retype_identity(
    cx: &Ctx<'_>,
    txn: &mut Transaction,
    relation: &Relation,
    position: usize,
    ty: SqlType,
) -> Result<(), SqlError> {
    let catalog = cx.db.catalog();
    let owner = Some((relation.def.oid, position as u16));
    let Some(sequence) =
        (catalog.sequences(txn)?.into_iter()).find(|s| s.identity && s.owner == owner)
    else {
        return Ok(());
    };
    let type_oid = crate::sequences::type_oid(ty).ok_or_else(|| {
        SqlError::new(
            "22023",
            "identity column type must be smallint, integer, or bigint",
        )
    })?;
    let request = SequenceRequest {
        type_oid: Some(type_oid),
        ..SequenceRequest::default()
    };
    catalog.alter_sequence(txn, &sequence.name, &request, false)?;
    Ok(())
}

/// The new value of column `name` (at `position`) of type `ty`: the old
/// value, or `using` over the row, which must cast to `ty` by assignment
/// (42804 with PostgreSQL's HINT otherwise).
fn converted(
    relation: &Relation,
    name: &str,
    position: usize,
    ty: SqlType,
    using: Option<&Expr>,
) -> Result<Scalar, SqlError> {
    let type_name = ty.name();
    let Some(expr) = using else {
        if !types::assignment_cast(relation.types[position], ty) {
            return Err(SqlError::new(
                "42804",
                format!("column \"{name}\" cannot be cast automatically to type {type_name}"),
            )
            .with_hint(format!(
                "You might need to specify \"USING {}::{type_name}\".",
                names::written(name)
            )));
        }
        return Ok(Scalar::Column(position));
    };
    let bound = scalar::bind(expr, relation)?;
    // A quoted literal is PostgreSQL's `unknown`: it takes the type by
    // its input syntax (22P02 if it is not one).
    let unknown = matches!(
        expr,
        Expr::Value(v) if matches!(v.value, sqlparser::ast::Value::SingleQuotedString(_))
    );
    if unknown {
        // Converted once, as PostgreSQL does while planning: an empty
        // table fails too.
        types::cast(bound.eval(&[], &Env::at(0))?, ty)?;
    } else if bound != Scalar::Const(Value::Null)
        && !types::assignment_cast(bound.ty_in(relation), ty)
    {
        return Err(SqlError::new(
            "42804",
            format!(
                "result of USING clause for column \"{name}\" cannot be cast automatically to type {type_name}"
            ),
        )
        .with_hint("You might need to add an explicit cast."));
    }
    Ok(bound)
}

/// The defaults of the changed columns cast to their new types by
/// assignment (42804 with PostgreSQL's message otherwise). Their texts
/// stay: a default's value meets its column by assignment
/// (`Constraints::bind`).
fn check_defaults(relation: &Relation, planned: &[Planned]) -> Result<(), SqlError> {
    for constraint in &relation.def.constraints {
        let ConstraintKind::Default { column, expr } = &constraint.kind else {
            continue;
        };
        let Some(p) = planned.iter().find(|p| p.position == usize::from(*column)) else {
            continue;
        };
        let none: &[(String, SqlType)] = &[];
        let bound = scalar::bind(&crate::parse::expression(expr)?, none)?;
        if bound != Scalar::Const(Value::Null) && !types::assignment_cast(bound.ty_in(none), p.ty) {
            return Err(SqlError::new(
                "42804",
                format!(
                    "default for column \"{}\" cannot be cast automatically to type {}",
                    p.name,
                    p.ty.name()
                ),
            ));
        }
    }
    Ok(())
}

/// The CHECK constraints and foreign keys of table `table` (read again)
/// hold for its rewritten rows, and the other tables' foreign keys that
/// reference a changed column hold too (`before`: the relation as it
/// was, naming them).
fn recheck(
    cx: &Ctx<'_>,
    txn: &mut Transaction,
    table: &str,
    before: &Relation,
    planned: &[Planned],
    env: &Env<'_>,
) -> Result<(), SqlError> {
    let relation = crate::access::relation(cx, txn, table)?;
    let constraints = Constraints::bind(cx, txn, &relation)?;
    constraints.validate_checks(txn, &relation, env)?;
    constraints.validate_references(txn, &relation)?;
    let mut children: Vec<&str> = Vec::new();
    for key in &before.def.referenced_by {
        let ConstraintKind::ForeignKey(fk) = &key.kind else {
            continue;
        };
        let over = (fk.ref_columns.iter()).any(|&c| planned.iter().any(|p| p.position == c.into()));
        if over && key.table_oid != before.def.oid && !children.contains(&key.table.as_str()) {
            children.push(&key.table);
        }
    }
    for child in children {
        let child = crate::access::relation(cx, txn, child)?;
        Constraints::bind(cx, txn, &child)?.validate_references(txn, &child)?;
    }
    Ok(())
}
