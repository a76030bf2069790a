//! Arrays made from arrays, with PostgreSQL's shapes: `a || b` and
//! `array_cat` ([`cat`]), `array_append` and `array_prepend` (also `||`
//! with an element on one side), `array_remove`, `array_replace` and
//! `trim_array`. Each function here is the one owner of its rule:
//!
//! - [`cat`]: a NULL or empty side gives the other unchanged; arrays of
//!   as many dimensions stack along the first (the second's lower bounds
//!   of the others must match the first's), one of one dimension fewer
//!   is one more slice of the other's first dimension, before or after;
//!   the result keeps the outer array's lower bounds. Anything else is
//!   2202E `cannot concatenate incompatible arrays` with PostgreSQL's
//!   DETAIL.
//! - [`append`] / [`prepend`]: of an empty or one-dimensional array
//!   only (22000 otherwise), the lower bound kept (22003 when the new
//!   subscript would pass an `int`).
//! - [`remove`]: of a one-dimensional array only (0A000), the lower bound
//!   kept; [`replace`] keeps any shape.
//! - [`trim`]: PostgreSQL's slice of the first dimension up to its upper
//!   bound less `n`, so starting at 1 (2202E unless `n` is from 0 to the
//!   first dimension's length).
//!
//! Plain arrays (lower bound 1, one dimension) take the plain vector
//! paths, as before arrays had shapes.

use crate::error::SqlError;
use folio_row::{Array, Dim, Value};

/// `a || b` of two arrays, `array_cat(a, b)` (module comment).
pub fn cat(a: Value, b: Value) -> Result<Value, SqlError> {
    let (a, b) = match (a, b) {
        (Value::Array(a), Value::Array(b)) => (a, b),
        (Value::Null, Value::Null) => return Ok(Value::Null),
        (Value::Null, other) | (other, Value::Null) => return Ok(other),
        (a, b) => return Ok(Value::array(vec![a, b])),
    };
    if a.is_plain() && b.is_plain() {
        let mut items = a.into_items();
        items.extend(b);
        return Ok(Value::array(items));
    }
    if a.ndims() == 0 {
        return Ok(Value::Array(b));
    }
    if b.ndims() == 0 {
        return Ok(Value::Array(a));
    }
    let (da, db) = (a.dims(), b.dims());
    let differing = |detail: &str| {
        SqlError::new("2202E", "cannot concatenate incompatible arrays").with_detail(detail)
    };
    let dims = match (da.len(), db.len()) {
        (x, y) if x == y => {
            if da[1..] != db[1..] {
                return Err(differing(
                    "Arrays with differing element dimensions are not compatible for concatenation.",
                ));
            }
            let mut dims = da.clone();
            dims[0].len += db[0].len;
            dims
        }
        (x, y) if x + 1 == y || y + 1 == x => {
            let (outer, inner) = if x > y { (&da, &db) } else { (&db, &da) };
            if outer[1..] != inner[..] {
                return Err(differing(
                    "Arrays with differing dimensions are not compatible for concatenation.",
                ));
            }
            let mut dims = outer.clone();
            dims[0].len += 1;
            dims
        }
        (x, y) => {
            return Err(differing(&format!(
                "Arrays of {x} and {y} dimensions are not compatible for concatenation."
            )));
        }
    };
    let mut items = a.into_items();
    items.extend(b);
    Ok(Value::Array(Array::new(dims, items)?))
}

/// `array_append(array, element)` (module comment; a NULL array is
/// empty).
pub fn append(array: Value, element: Value) -> Result<Value, SqlError> {
    let array = one_dimension(array)?;
    if array.is_plain() {
        let mut items = array.into_items();
        items.push(element);
        return Ok(Value::array(items));
    }
    let (mut dims, mut items) = array.into_parts();
    if i64::from(dims[0].lower) + i64::from(dims[0].len) > i64::from(i32::MAX) {
        return Err(SqlError::new("22003", "integer out of range"));
    }
    dims[0].len += 1;
    items.push(element);
    Ok(Value::Array(Array::new(dims, items)?))
}

/// `array_prepend(element, array)` (module comment; a NULL array is
/// empty).
pub fn prepend(element: Value, array: Value) -> Result<Value, SqlError> {
    let array = one_dimension(array)?;
    let (dims, mut items) = array.into_parts();
    items.insert(0, element);
    let dim = match dims.first() {
        Some(d) if d.lower == i32::MIN => {
            return Err(SqlError::new("22003", "integer out of range"));
        }
        Some(d) => Dim {
            lower: d.lower,
            len: d.len + 1,
        },
        None => return Ok(Value::array(items)),
    };
    Ok(Value::Array(Array::new(vec![dim], items)?))
}

/// The array of `array_append` / `array_prepend`: empty for NULL, 22000
/// for one of several dimensions.
fn one_dimension(array: Value) -> Result<Array, SqlError> {
    match array {
        Value::Array(a) if a.ndims() > 1 => Err(SqlError::new(
            "22000",
            "argument must be empty or one-dimensional array",
        )),
        Value::Array(a) => Ok(a),
        _ => Ok(Array::default()),
    }
}

/// `array_remove(array, gone)`: every element not distinct from `gone`
/// goes (module comment); NULL for a NULL array.
pub fn remove(
    array: &Value,
    gone: &Value,
    same: impl Fn(&Value, &Value) -> bool,
) -> Result<Value, SqlError> {
    let Value::Array(array) = array else {
        return Ok(Value::Null);
    };
    if array.ndims() > 1 {
        return Err(SqlError::new(
            "0A000",
            "removing elements from multidimensional arrays is not supported",
        ));
    }
    let kept: Vec<Value> = (array.iter()).filter(|v| !same(v, gone)).cloned().collect();
    match array.dim(0) {
        Some(d) if d.lower != 1 && !kept.is_empty() => {
            let dim = Dim {
                lower: d.lower,
                len: kept.len() as u32,
            };
            Ok(Value::Array(Array::new(vec![dim], kept)?))
        }
        _ => Ok(Value::array(kept)),
    }
}

/// `array_replace(array, from, to)`: the same shape, each element not
/// distinct from `from` replaced by `to`; NULL for a NULL array.
pub fn replace(
    array: &Value,
    from: &Value,
    to: &Value,
    same: impl Fn(&Value, &Value) -> bool,
) -> Result<Value, SqlError> {
    let Value::Array(array) = array else {
        return Ok(Value::Null);
    };
    let replaced = array.clone().try_map(|v| {
        Ok::<_, SqlError>(match same(&v, from) {
            true => to.clone(),
            false => v,
        })
    })?;
    Ok(Value::Array(replaced))
}

/// `trim_array(array, n)` (module comment).
pub fn trim(array: &Array, n: i64) -> Result<Value, SqlError> {
    let first = array.dim(0);
    let len = first.map_or(0, |d| i64::from(d.len));
    if n < 0 || n > len {
        return Err(SqlError::new(
            "2202E",
            format!("number of elements to trim must be between 0 and {len}"),
        ));
    }
    if array.is_plain() {
        return Ok(Value::array(array.items()[..(len - n) as usize].to_vec()));
    }
    let upper = first.map(|d| i64::from(d.lower) + len - n - 1);
    Ok(crate::array_subscripts::slice(array, &[(None, upper)]))
}

#[cfg(test)]
mod tests {
    use super::*;
    use folio_row::SqlType;

    fn array(text: &str) -> Value {
        Value::from_text(SqlType::Array(&SqlType::Int4), text).unwrap()
    }

    fn text(v: Result<Value, SqlError>) -> String {
        v.unwrap().to_text().unwrap()
    }

    /// Concatenation stacks arrays of as many dimensions, adds one of a
    /// dimension fewer as a slice, keeps the outer lower bounds, and
    /// refuses other shapes (PostgreSQL's answers).
    #[test]
    fn cat_follows_the_shapes() {
        let cat2 = |a: &str, b: &str| cat(array(a), array(b));
        assert_eq!(text(cat2("{1,2}", "{{3,4},{5,6}}")), "{{1,2},{3,4},{5,6}}");
        assert_eq!(text(cat2("{{3,4},{5,6}}", "{1,2}")), "{{3,4},{5,6},{1,2}}");
        assert_eq!(text(cat2("{{1}}", "{{2}}")), "{{1},{2}}");
        assert_eq!(text(cat2("[2:3]={1,2}", "{3}")), "[2:4]={1,2,3}");
        assert_eq!(text(cat2("{}", "[2:3]={1,2}")), "[2:3]={1,2}");
        assert_eq!(text(cat2("{1}", "{2,3}")), "{1,2,3}");
        assert_eq!(text(cat(Value::Null, array("{1}"))), "{1}");
        let code = |r: Result<Value, SqlError>| r.unwrap_err().code;
        assert_eq!(code(cat2("{{1,2}}", "{{1}}")), "2202E");
        assert_eq!(code(cat2("{1}", "{{{1}}}")), "2202E");
        assert_eq!(code(cat2("{1,2,3}", "{{1,2}}")), "2202E");
    }

    /// Append and prepend keep the lower bound and refuse several
    /// dimensions; remove keeps it and refuses them too; replace keeps
    /// the shape; trim slices the first dimension.
    #[test]
    fn edits_keep_the_lower_bound() {
        let one = Value::Int4(1);
        assert_eq!(
            text(append(array("[2:3]={1,2}"), Value::Int4(3))),
            "[2:4]={1,2,3}"
        );
        assert_eq!(
            text(prepend(Value::Int4(0), array("[2:3]={1,2}"))),
            "[2:4]={0,1,2}"
        );
        assert_eq!(text(append(Value::Null, one.clone())), "{1}");
        assert_eq!(
            append(array("{{1}}"), one.clone()).unwrap_err().code,
            "22000"
        );
        let same = |a: &Value, b: &Value| a == b;
        assert_eq!(
            text(remove(&array("[2:4]={1,2,1}"), &one, same)),
            "[2:2]={2}"
        );
        assert_eq!(text(remove(&array("[2:3]={1,1}"), &one, same)), "{}");
        assert_eq!(
            remove(&array("{{1}}"), &one, same).unwrap_err().code,
            "0A000"
        );
        assert_eq!(
            text(replace(
                &array("[0:1][1:1]={{1},{2}}"),
                &one,
                &Value::Int4(5),
                same
            )),
            "[0:1][1:1]={{5},{2}}"
        );
        let trimmed = |a: &str, n| match array(a) {
            Value::Array(a) => trim(&a, n),
            _ => unreachable!(),
        };
        assert_eq!(text(trimmed("[10:16]={1,2,3,4,5,6,7}", 2)), "{1,2,3,4,5}");
        assert_eq!(
            text(trimmed("{{1,10},{2,20},{3,30},{4,40}}", 2)),
            "{{1,10},{2,20}}"
        );
        assert_eq!(text(trimmed("{1,2}", 2)), "{}");
        assert_eq!(trimmed("{1,2}", 3).unwrap_err().code, "2202E");
    }
}
