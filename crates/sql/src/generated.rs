//! Generated columns (`col type GENERATED ALWAYS AS (expr) STORED`): the
//! one owner of what a generation expression may be. The expression is
//! stored as SQL text in a `folio.constraint` row of kind `g`
//! (folio-catalog `ConstraintKind::Generated`), bound with the table's
//! other constraints (`constraints.rs`, which computes the value of every
//! row written: INSERT, UPDATE, COPY, ON CONFLICT DO UPDATE), and shown
//! as PostgreSQL shows it (`pg_attribute.attgenerated = 's'`, its text in
//! `pg_attrdef`, `information_schema.columns.generation_expression`).
//!
//! PostgreSQL's rules, with its errors, checked in its order: no subquery
//! (0A000), aggregate (42803) or window function (42P20), no system
//! column (42P10), no other generated column (42P17), an immutable
//! expression (42P17), of a type assignable to the column (42804).

use crate::error::SqlError;
use crate::names;
use crate::scalar::{self, Scalar};
use crate::types;
use folio_catalog::Relation;
use folio_row::SqlType;
use sqlparser::ast::Expr;
use std::ops::ControlFlow;

/// The system columns PostgreSQL's tables have (folio's rows answer to
/// none of them).
const SYSTEM_COLUMNS: [&str; 6] = ["ctid", "xmin", "xmax", "cmin", "cmax", "tableoid"];

/// Checks `expr`, the generation expression of column `column` of
/// `relation` (which has the column), where `generated` lists the
/// positions of the table's generated columns (this one included), and
/// returns it bound, cast to the column's type when it is assignable.
pub fn bind(
    expr: &Expr,
    relation: &Relation,
    column: usize,
    generated: &[usize],
) -> Result<Scalar, SqlError> {
    crate::project_set::refuse(expr, "column generation expressions")?;
    let mut refusal = None;
    let _ = sqlparser::ast::visit_expressions(expr, |e| {
        refusal = refused(e, relation, generated);
        match refusal {
            Some(_) => ControlFlow::Break(()),
            None => ControlFlow::Continue(()),
        }
    });
    if let Some(e) = refusal {
        return Err(e);
    }
    let bound = scalar::bind(expr, relation)?;
    if !crate::immutable::immutable(&bound, &relation.types) {
        return Err(SqlError::new(
            "42P17",
            "generation expression is not immutable",
        ));
    }
    let (from, to) = (bound.ty_in(relation), relation.types[column]);
    if from.oid() == to.oid() || bound == Scalar::Const(folio_row::Value::Null) {
        return Ok(bound);
    }
    let name = relation.def.columns[column].name.as_str();
    crate::assignment::check_as(Some(from), (name, to), None, "default expression")?;
    // Cast to the type without a length: the length is the row's to
    // check, as a default's (an explicit cast would cut what an
    // assignment refuses).
    let unlimited = match to {
        SqlType::Varchar(_) | SqlType::Char(_) => SqlType::Varchar(None),
        other => other,
    };
    Ok(Scalar::Cast(Box::new(bound), unlimited))
}

/// PostgreSQL's error for a part of a generation expression it refuses.
fn refused(e: &Expr, relation: &Relation, generated: &[usize]) -> Option<SqlError> {
    match e {
        Expr::Subquery(_) | Expr::Exists { .. } | Expr::InSubquery { .. } => Some(SqlError::new(
            "0A000",
            "cannot use subquery in column generation expression",
        )),
        Expr::Function(f) if f.over.is_some() => Some(SqlError::new(
            "42P20",
            "window functions are not allowed in column generation expressions",
        )),
        Expr::Function(f) if crate::aggregate::is_aggregate(f) => Some(SqlError::new(
            "42803",
            "aggregate functions are not allowed in column generation expressions",
        )),
        Expr::Identifier(id) => {
            let name = names::ident(id);
            match relation.def.column(&name) {
                Some(c) if generated.contains(&c) => {
                    let mut e = SqlError::new(
                        "42P17",
                        format!(
                            "cannot use generated column \"{name}\" in column generation expression"
                        ),
                    );
                    e.detail = Some(
                        "A generated column cannot reference another generated column.".into(),
                    );
                    Some(e)
                }
                None if SYSTEM_COLUMNS.contains(&name.as_str()) => Some(SqlError::new(
                    "42P10",
                    format!("cannot use system column \"{name}\" in column generation expression"),
                )),
                _ => None,
            }
        }
        _ => None,
    }
}

/// The text a generation expression is stored as: as written, with each
/// cast's type in PostgreSQL's words (`a::text`, not `a::TEXT`), as
/// `pg_get_expr` shows it.
pub fn stored_text(expr: &Expr) -> String {
    let mut expr = expr.clone();
    let _ = sqlparser::ast::visit_expressions_mut(&mut expr, |e| {
        if let Expr::Cast { data_type, .. } = e
            && let Ok(ty) = types::column_type(data_type)
        {
            let name = crate::explain::type_name(ty).into_owned();
            *data_type = sqlparser::ast::DataType::Custom(
                sqlparser::ast::ObjectName::from(vec![name.as_str().into()]),
                Vec::new(),
            );
        }
        ControlFlow::<()>::Continue(())
    });
    expr.to_string()
}

/// 428C9 for a value given to generated column `name` (`update`: by an
/// UPDATE's SET), as PostgreSQL's.
pub fn given(name: &str, update: bool) -> SqlError {
    let mut e = SqlError::new(
        "428C9",
        match update {
            false => format!("cannot insert a non-DEFAULT value into column \"{name}\""),
            true => format!("column \"{name}\" can only be updated to DEFAULT"),
        },
    );
    e.detail = Some(format!("Column \"{name}\" is a generated column."));
    e
}

/// 42P10 for a generated column a COPY names.
pub fn copied(name: &str) -> SqlError {
    let mut e = SqlError::new("42P10", format!("column \"{name}\" is a generated column"));
    e.detail = Some("Generated columns cannot be used in COPY.".into());
    e
}

/// The positions of `relation`'s generated columns.
pub fn columns_of(relation: &Relation) -> Vec<usize> {
    (0..relation.def.columns.len())
        .filter(|&c| relation.def.generated_of(c).is_some())
        .collect()
}

/// The names of the generated columns of `def` whose expressions read
/// column `column` (other than itself), in column order.
pub fn readers_of(def: &folio_catalog::TableDef, column: usize) -> Vec<String> {
    let name = &def.columns[column].name;
    (0..def.columns.len())
        .filter(|&c| c != column)
        .filter(|&c| {
            def.generated_of(c)
                .is_some_and(|expr| crate::drop_column::names_column(expr, name))
        })
        .map(|c| def.columns[c].name.clone())
        .collect()
}
