//! Whether a value may be stored into a column, as PostgreSQL checks
//! while planning an INSERT's values (VALUES or a query's columns), an
//! UPDATE's SET, ON CONFLICT DO UPDATE's SET and a MERGE's actions: the
//! value's type must cast to the column's in assignment
//! (`types::assignment_cast`), else 42804
//!
//! ```text
//! ERROR:  column "a" is of type integer but expression is of type boolean
//! LINE 1: insert into t values (true);
//!                               ^
//! HINT:  You will need to rewrite or cast the expression.
//! ```
//!
//! The values are converted when stored (`types::assign`). A value of
//! no known type passes: a quoted literal, NULL and an untyped parameter
//! take the column's type by its input syntax (PostgreSQL's `unknown`),
//! and so does a text value folio cannot tell from a folded literal
//! ([`known_type`]).

use crate::error::SqlError;
use crate::scalar::{Columns, Scalar, is_unknown};
use crate::types;
use folio_catalog::Relation;
use folio_row::{SqlType, Value};
use sqlparser::ast::{Expr, Spanned};

/// The type of `bound` (over `columns`) an assignment must convert, or
/// `None` for a value that takes the column's type as it stands: an
/// unknown (a quoted literal, a `$n` without a type: `is_unknown`),
/// NULL, a record, and text unless it is a column's, a cast's or a
/// typed parameter's (a folded literal's text is not known from an
/// untyped one's).
pub(crate) fn known_type(bound: &Scalar, columns: &(impl Columns + ?Sized)) -> Option<SqlType> {
    if is_unknown(bound) || *bound == Scalar::Const(Value::Null) {
        return None;
    }
    match bound.ty_in(columns) {
        SqlType::Record => None,
        SqlType::Text
            if !matches!(
                bound,
                Scalar::Column(_) | Scalar::Outer(..) | Scalar::Cast(..) | Scalar::Typed(..)
            ) =>
        {
            None
        }
        ty => Some(ty),
    }
}

/// 42804 unless a value of type `from` (`None`: of no known type) can be
/// stored into column `column` of type `to`, pointing at `at` (the
/// value's expression, when the statement has one).
pub(crate) fn check(
    from: Option<SqlType>,
    column: (&str, SqlType),
    at: Option<&Expr>,
) -> Result<(), SqlError> {
    check_as(from, column, at, "expression")
}

/// [`check`], the value called `what` in the message (`expression`, a
/// column's `default expression`).
pub(crate) fn check_as(
    from: Option<SqlType>,
    (column, to): (&str, SqlType),
    at: Option<&Expr>,
    what: &str,
) -> Result<(), SqlError> {
    let Some(from) = from else {
        return Ok(());
    };
    if to == SqlType::Record || types::assignment_cast(from, to) {
        return Ok(());
    }
    Err(refused((column, to), &type_name(from), what, at))
}

fn type_name(ty: SqlType) -> String {
    crate::catalog_functions::format_type(i64::from(ty.oid()), None)
}

/// PostgreSQL's 42804 for a value of type `from` (its name) that column
/// `column` of type `to` does not take.
fn refused((column, to): (&str, SqlType), from: &str, what: &str, at: Option<&Expr>) -> SqlError {
    SqlError::new(
        "42804",
        format!(
            "column \"{column}\" is of type {} but {what} is of type {from}",
            type_name(to)
        ),
    )
    .with_hint("You will need to rewrite or cast the expression.")
    .near(at.map(|e| e.span().start))
}

/// `value` bound over `columns` as the new value of column `c` of
/// `relation` ([`check`]ed): a VALUES item, a SET's right side.
pub(crate) fn bind(
    relation: &Relation,
    c: usize,
    value: &Expr,
    columns: &(impl Columns + ?Sized),
) -> Result<Scalar, SqlError> {
    let column = (relation.def.columns[c].name.as_str(), relation.types[c]);
    // `SET a = v.*`: a whole row, of type record (PostgreSQL's 42804).
    if matches!(value, Expr::QualifiedWildcard(..)) && column.1 != SqlType::Record {
        return Err(refused(column, "record", "expression", Some(value)));
    }
    let bound = crate::scalar::bind(value, columns)?;
    check_bound(relation, c, (&bound, value), columns)?;
    Ok(bound)
}

/// [`check`] of `bound` (from `value`, over `columns`) as the new value
/// of column `c` of `relation`.
pub(crate) fn check_bound(
    relation: &Relation,
    c: usize,
    (bound, value): (&Scalar, &Expr),
    columns: &(impl Columns + ?Sized),
) -> Result<(), SqlError> {
    let column = (relation.def.columns[c].name.as_str(), relation.types[c]);
    if let SqlType::Composite(def) = column.1 {
        crate::composite_values::check_row(bound, def, columns, false)
            .map_err(|e| e.near(Some(value.span().start)))?;
    }
    check(known_type(bound, columns), column, Some(value))
}
