//! jsonb subscripts, as PostgreSQL 15's `jsonbsubs.c`: `j['a'][0]` reads
//! what `j #> '{a,0}'` reads (NULL for a NULL subscript), and `UPDATE t
//! SET j['a'][0] = v` writes through `json_edits.rs`'s assign edit (a
//! NULL document starts as an empty array when the first subscript is an
//! integer, else as an empty object; a NULL value is JSON null; a NULL
//! subscript is 22004).
//!
//! A subscript is an `integer` (int2 or int4) or a `text` (a quoted
//! literal is one); another type is 42804 `subscript type ... is not
//! supported`, as is a slice (`jsonb subscript does not support
//! slices`).

use crate::error::SqlError;
use crate::functions::Func;
use crate::json_functions::JsonFunc;
use crate::scalar::{Columns, Scalar};
use folio_row::{Jsonb, SqlType, Value};
use sqlparser::ast::{Expr, Subscript};

/// `doc[s1][s2]...` read, `doc` a bound jsonb.
pub fn bind_read(
    doc: Scalar,
    subscripts: &[&Subscript],
    columns: &(impl Columns + ?Sized),
) -> Result<Scalar, SqlError> {
    let mut args = vec![doc];
    for subscript in subscripts {
        let Subscript::Index { index } = subscript else {
            return Err(slices());
        };
        args.push(subscript_arg(
            crate::scalar::bind(index, columns)?,
            columns,
        )?);
    }
    Ok(Scalar::Func(Func::Json(JsonFunc::Subscript), args))
}

/// `doc[...] = value` (`array_assignment.rs` found the jsonb): `doc`,
/// the subscripts' expressions and the value, bound; `slice` when one is
/// a slice; `column` names the assignment's column for its 42804.
pub fn bind_assign(
    doc: Scalar,
    subscripts: &[&Expr],
    slice: bool,
    value: Scalar,
    column: &str,
    columns: &(impl Columns + ?Sized),
) -> Result<Scalar, SqlError> {
    if slice {
        return Err(slices());
    }
    let mut args = vec![doc];
    for s in subscripts {
        args.push(subscript_arg(crate::scalar::bind(s, columns)?, columns)?);
    }
    let array = args
        .get(1)
        .is_some_and(|s| matches!(s.ty_in(columns), SqlType::Int2 | SqlType::Int4));
    args.push(crate::array_assignment::fit(
        value,
        SqlType::Jsonb,
        column,
        columns,
    )?);
    Ok(Scalar::Func(
        Func::Json(JsonFunc::SubscriptAssign { array }),
        args,
    ))
}

fn slices() -> SqlError {
    SqlError::new("42804", "jsonb subscript does not support slices")
}

/// A subscript as an integer or a text (module comment).
fn subscript_arg(s: Scalar, columns: &(impl Columns + ?Sized)) -> Result<Scalar, SqlError> {
    if crate::scalar::is_unknown(&s) || s == Scalar::Const(Value::Null) {
        return crate::scalar::fit_unknown(s, SqlType::Text);
    }
    match s.ty_in(columns) {
        SqlType::Int2 | SqlType::Int4 | SqlType::Text => Ok(s),
        SqlType::Varchar(_) | SqlType::Char(_) => Ok(Scalar::Cast(Box::new(s), SqlType::Text)),
        ty => Err(SqlError::new(
            "42804",
            format!("subscript type {} is not supported", ty.name()),
        )
        .with_hint("jsonb subscript must be coercible to either integer or text.")),
    }
}

/// A subscript's value as a path step (`None` for NULL).
fn step(v: &Value) -> Option<String> {
    match v {
        Value::Null => None,
        other => crate::types::text_output(other),
    }
}

/// `doc[...]`: `args` the document and the subscripts' values.
pub fn read(args: &[Value]) -> Value {
    let Some((Value::Jsonb(doc), subscripts)) = args.split_first() else {
        return Value::Null;
    };
    let steps: Vec<Option<String>> = subscripts.iter().map(step).collect();
    if steps.iter().any(Option::is_none) {
        return Value::Null;
    }
    let steps: Vec<Option<&str>> = steps.iter().map(|s| s.as_deref()).collect();
    match crate::json_functions::path_get(doc, &steps) {
        Some(found) => Value::Jsonb(Box::new(found.clone())),
        None => Value::Null,
    }
}

/// `doc[...] = value`: `args` the document, the subscripts' values and
/// the new value; `array`: a NULL document starts as `[]`.
pub fn assign(args: Vec<Value>, array: bool) -> Result<Value, SqlError> {
    let mut args = args;
    let new = match args.pop() {
        Some(Value::Jsonb(j)) => *j,
        _ => Jsonb::Null,
    };
    let mut args = args.into_iter();
    let doc = match args.next() {
        Some(Value::Jsonb(j)) => *j,
        _ if array => Jsonb::Array(Vec::new()),
        _ => Jsonb::Object(Vec::new()),
    };
    let path = args
        .map(|v| {
            step(&v).map(Some).ok_or_else(|| {
                SqlError::new("22004", "jsonb subscript in assignment must not be null")
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    let edited = crate::json_edits::edit(doc, &path, new, crate::json_edits::Edit::Assign)?;
    Ok(Value::Jsonb(Box::new(edited)))
}
