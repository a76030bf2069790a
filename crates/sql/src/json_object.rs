//! `json_object(text[])` / `jsonb_object(text[])` (keys and values
//! alternately, or a two-column two-dimensional array of pairs) and
//! `json_object(keys text[], values text[])` / `jsonb_object`, with
//! PostgreSQL 15's errors: 2202E for an array of another shape, 22004 for
//! a NULL key. Every value is a JSON string (NULL: null); json keeps the
//! pairs as given (`{"a" : "1", "b" : null}`), jsonb normalizes them.

use crate::error::SqlError;
use folio_row::{Jsonb, Value, json_escape_into};

/// The call's value (arguments not NULL: the function is strict).
pub fn eval(jsonb: bool, args: Vec<Value>) -> Result<Value, SqlError> {
    let shape = |s: &str| SqlError::new("2202E", s.to_string());
    let mut args = args.into_iter().map(|a| match a {
        Value::Array(a) => Ok(a),
        other => Err(SqlError::new(
            "XX000",
            format!("unexpected json_object argument of {}", other.type_name()),
        )),
    });
    let first = args.next().transpose()?.unwrap_or_default();
    let pairs: Vec<(Value, Value)> = match args.next().transpose()? {
        None => {
            let items = match first.ndims() {
                0 => Vec::new(),
                1 if first.items().len() % 2 == 0 => first.into_items(),
                1 => return Err(shape("array must have even number of elements")),
                2 if first.dim(1).is_some_and(|d| d.len == 2) => first.into_items(),
                2 => return Err(shape("array must have two columns")),
                _ => return Err(shape("wrong number of array subscripts")),
            };
            let mut items = items.into_iter();
            std::iter::from_fn(|| Some((items.next()?, items.next()?))).collect()
        }
        Some(values) => {
            if first.ndims() > 1 || values.ndims() > 1 {
                return Err(shape("wrong number of array subscripts"));
            }
            if first.items().len() != values.items().len() {
                return Err(shape("mismatched array dimensions"));
            }
            first
                .into_items()
                .into_iter()
                .zip(values.into_items())
                .collect()
        }
    };
    let text = |v: Value| match v {
        Value::Text(t) => Some(t),
        Value::Null => None,
        other => crate::types::text_output(&other),
    };
    let mut members = Vec::with_capacity(pairs.len());
    for (key, value) in pairs {
        let Some(key) = text(key) else {
            return Err(SqlError::new(
                "22004",
                "null value not allowed for object key",
            ));
        };
        members.push((key, text(value)));
    }
    if jsonb {
        let members = (members.into_iter())
            .map(|(k, v)| (k, v.map_or(Jsonb::Null, Jsonb::String)))
            .collect();
        return Ok(Value::Jsonb(Box::new(Jsonb::object(members))));
    }
    let mut out = String::from("{");
    for (i, (k, v)) in members.into_iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        json_escape_into(&mut out, &k);
        out.push_str(" : ");
        match v {
            Some(v) => json_escape_into(&mut out, &v),
            None => out.push_str("null"),
        }
    }
    out.push('}');
    Ok(Value::Json(out))
}
