//! Values of named composite types (README "Composite types"): a row
//! cast or assigned to one (`ROW(1, 'x')::t`, `(1, 'x')::t`, a row
//! constructor stored into a column of type `t`), and field selection
//! `(v).f`. A composite value is a `Value::Record` whose expression has
//! type `SqlType::Composite`; its text input and output are folio-row's
//! (`composites.rs`, `record_text.rs`).
//!
//! PostgreSQL's rule (`coerce_record_to_complex`): a row becomes a
//! composite type field by field, each field cast to its field's type in
//! the context of the whole (explicit for `::t`, assignment for a
//! stored value); a row of another number of fields, or a field whose
//! type has no such cast, is 42846 `cannot cast type record to t`, with a
//! DETAIL naming the column. folio checks a row constructor's fields'
//! types while binding ([`check_row`]) and converts the values when the
//! expression runs ([`fields_to`]).

use crate::error::SqlError;
use crate::functions::Func;
use crate::row_values::RowFunc;
use crate::scalar::{Columns, Scalar, is_unknown, value_type};
use crate::types;
use folio_row::{CompositeType, SqlType, Value};

/// PostgreSQL's 42846 for a row that does not become `def`, with its
/// DETAIL.
fn refused(def: &CompositeType, detail: String) -> SqlError {
    SqlError::new("42846", format!("cannot cast type record to {}", def.name)).with_detail(detail)
}

/// 42846: field `n` (from 0), of type `from`, has no cast to its field
/// type `to` of `def`.
fn field_refused(def: &CompositeType, from: SqlType, to: SqlType, n: usize) -> SqlError {
    let detail = format!(
        "Cannot cast type {} to {} in column {}.",
        type_name(from),
        type_name(to),
        n + 1
    );
    refused(def, detail)
}

/// 42846 unless a row of `count` fields may become `def`.
fn check_count(count: usize, def: &CompositeType) -> Result<(), SqlError> {
    match count.cmp(&def.fields.len()) {
        std::cmp::Ordering::Less => Err(refused(def, "Input has too few columns.".into())),
        std::cmp::Ordering::Greater => Err(refused(def, "Input has too many columns.".into())),
        std::cmp::Ordering::Equal => Ok(()),
    }
}

/// Whether a value of type `from` casts to `to`: in assignment
/// (`types::assignment_cast`), or `explicit`ly, which also allows text
/// to any type (its input) and PostgreSQL's explicit casts among the
/// types folio has.
fn castable(from: SqlType, to: SqlType, explicit: bool) -> bool {
    use SqlType::*;
    if types::assignment_cast(from, to) || matches!((from, to), (Record, Composite(_))) {
        return true;
    }
    explicit
        && (matches!(from, Text | Varchar(_) | Char(_))
            || matches!((from, to), (Bool, Int4) | (Int4, Bool))
            || (from.is_number() && to.is_number())
            || matches!(
                (from, to),
                (Timestamp(_) | TimestampTz(_), Date) | (Date, Timestamp(_) | TimestampTz(_))
            ))
}

/// Checks the row `bound` (over `columns`) becoming composite type
/// `def`, `explicit`ly or in assignment: a row constructor's field count
/// and each field's type (a nested row constructor against its field's
/// composite type in turn); any other expression passes (a record of
/// unknown fields is judged by its value).
pub(crate) fn check_row(
    bound: &Scalar,
    def: &CompositeType,
    columns: &(impl Columns + ?Sized),
    explicit: bool,
) -> Result<(), SqlError> {
    let Scalar::Func(Func::Row(RowFunc::Construct), fields) = bound else {
        return Ok(());
    };
    check_count(fields.len(), def)?;
    for (n, (field, (_, to))) in fields.iter().zip(&def.fields).enumerate() {
        if is_unknown(field) || matches!(field, Scalar::Const(Value::Null)) {
            continue;
        }
        if let SqlType::Composite(inner) = to
            && matches!(field, Scalar::Func(Func::Row(RowFunc::Construct), _))
        {
            check_row(field, inner, columns, explicit)?;
            continue;
        }
        let from = field.ty_in(columns);
        if !castable(from, *to, explicit) {
            return Err(field_refused(def, from, *to, n));
        }
    }
    Ok(())
}

fn type_name(ty: SqlType) -> String {
    crate::catalog_functions::format_type(i64::from(ty.oid()), None)
}

/// The row `fields` as a value of composite type `def`: each field
/// converted to its field's type by `convert` (`types::cast` for a cast,
/// `types::assign` for a stored value); 42846 for another number of
/// fields.
pub(crate) fn fields_to(
    fields: Vec<Value>,
    def: &CompositeType,
    convert: fn(Value, SqlType) -> Result<Value, SqlError>,
) -> Result<Value, SqlError> {
    check_count(fields.len(), def)?;
    let mut out = Vec::with_capacity(fields.len());
    for (n, (v, (_, to))) in fields.into_iter().zip(&def.fields).enumerate() {
        let from = value_type(&v);
        if !matches!(v, Value::Null | Value::Text(_))
            && !v.matches(*to)
            && !castable(from, *to, true)
        {
            return Err(field_refused(def, from, *to, n));
        }
        out.push(convert(v, *to)?);
    }
    Ok(Value::Record(out))
}

/// `(record).name` of a value of composite type `def`: the field's
/// selection, else PostgreSQL's 42703.
pub(crate) fn field(record: Scalar, def: &CompositeType, name: &str) -> Result<Scalar, SqlError> {
    let n = def.field(name).ok_or_else(|| {
        SqlError::new(
            "42703",
            format!("column \"{name}\" not found in data type {}", def.name),
        )
    })?;
    Ok(Scalar::Func(
        Func::Row(RowFunc::Field(n as u16)),
        vec![record],
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn complex() -> &'static CompositeType {
        CompositeType::intern(CompositeType {
            oid: 16600,
            array_oid: 16599,
            name: "complex".into(),
            fields: vec![("r".into(), SqlType::Float8), ("i".into(), SqlType::Float8)],
        })
    }

    // Proves a row becomes a composite value field by field, and the
    // 42846 errors with PostgreSQL's DETAILs for a wrong count and a
    // field without a cast.
    #[test]
    fn rows_become_composite_values_field_by_field() {
        let def = complex();
        let v = fields_to(vec![Value::Int4(1), Value::Null], def, types::cast).unwrap();
        assert_eq!(v, Value::Record(vec![Value::Float8(1.0), Value::Null]));
        let e = fields_to(vec![Value::Int4(1)], def, types::cast).unwrap_err();
        assert_eq!(e.code, "42846");
        assert_eq!(e.message, "cannot cast type record to complex");
        assert_eq!(e.detail.as_deref(), Some("Input has too few columns."));
        let e = fields_to(vec![Value::Int4(1), Value::Bool(true)], def, types::cast).unwrap_err();
        assert_eq!(
            e.detail.as_deref(),
            Some("Cannot cast type boolean to double precision in column 2.")
        );
        let e = fields_to(vec![Value::Null; 3], def, types::assign).unwrap_err();
        assert_eq!(e.detail.as_deref(), Some("Input has too many columns."));
    }
}
