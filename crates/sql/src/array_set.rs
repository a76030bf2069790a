//! Assignment into an array at subscripts: the array `a` becomes after
//! `a[i][j]... = x` (an element) or `a[l1:u1][l2:u2]... = b` (a slice,
//! either bound of each optional). The rule is PostgreSQL's
//! (`array_set_element`, `array_set_slice`); [`assign`] is its one owner,
//! whoever writes the target (`array_assignment.rs` for a SET list,
//! `insert_targets.rs` for an INSERT's column list):
//!
//! 1. A NULL subscript is 22004, whatever else; a NULL array is the
//!    empty one.
//! 2. Of the empty array, an element makes an array of one element with
//!    one dimension a subscript, each starting at its subscript
//!    (`a[0] = x` is `[0:0]={x}`, `a[2][3] = x` is `[2:2][3:3]={{x}}`); a
//!    slice must write both bounds of every dimension (2202E with
//!    PostgreSQL's DETAIL) and makes that shape of the source's first
//!    elements (fewer is 2202E `source array too small`; a dimension of
//!    no elements gives the empty array).
//! 3. Otherwise an element needs one subscript a dimension, a slice at
//!    most that many (the others whole), else 2202E `wrong number of
//!    array subscripts`; an omitted slice bound is the array's own, and a
//!    lower bound past the upper is 2202E.
//! 4. A one-dimensional array extends to take the subscripts, below its
//!    lower bound or past its upper, the new places between NULL; an
//!    array of several dimensions does not (2202E `array subscript out
//!    of range`).
//! 5. A slice's places, in row-major order, take the source's elements
//!    in order whatever its shape (fewer is 2202E); a NULL source leaves
//!    the array as it is.
//! 6. More elements than `MaxArraySize` is 54000, as is an upper bound
//!    past an `int` (`Array::new`).
//!
//! The common case, an element of a plain array (lower bound 1) at or
//! past its start, changes the element vector in place.

use crate::array_subscripts::{Subscripts, region};
use crate::error::SqlError;
use folio_row::{Array, Dim, MAX_ITEMS, Value};

/// One dimension's bounds as written (`None`: omitted).
type Bounds = (Option<i64>, Option<i64>);

/// The array `args` (the array, the bounds written, the value) makes
/// when assigned at `shape` (the module comment's rule).
pub fn assign(shape: Subscripts, args: Vec<Value>) -> Result<Value, SqlError> {
    let mut args = args.into_iter();
    let array = match args.next() {
        Some(Value::Array(array)) => array,
        _ => Array::default(),
    };
    let written: Vec<Value> = args.by_ref().take(shape.args()).collect();
    if written.len() < shape.args() || written.contains(&Value::Null) {
        return Err(null_subscript());
    }
    let bounds = shape.bounds(&written).ok_or_else(null_subscript)?;
    let value = args.next().unwrap_or(Value::Null);
    if !shape.slice {
        let at: Vec<i64> = bounds.iter().filter_map(|b| b.0).collect();
        return set_element(array, &at, value).map(Value::Array);
    }
    let source = match value {
        Value::Null => return Ok(Value::Array(array)),
        Value::Array(source) => source.into_items(),
        element => vec![element],
    };
    set_slice(array, &bounds, source).map(Value::Array)
}

/// `array[at...] = value` (rules 2 to 4).
fn set_element(array: Array, at: &[i64], value: Value) -> Result<Array, SqlError> {
    // The common case: a plain array, one subscript from 1 on.
    if array.is_plain()
        && let [i] = at
        && *i >= 1
        && (*i as usize) <= array.len() + 1
    {
        let mut items = array.into_items();
        match items.get_mut(*i as usize - 1) {
            Some(slot) => *slot = value,
            None => items.push(value),
        }
        return Ok(Array::from_items(items));
    }
    if array.ndims() == 0 {
        let dims = at.iter().map(|&i| (i, i)).collect::<Vec<_>>();
        return shaped(&dims, vec![value]);
    }
    if array.ndims() != at.len() {
        return Err(wrong_count());
    }
    let (dims, mut items) = array.into_parts();
    if let [dim] = dims.as_slice() {
        let (dim, mut items) = extend(*dim, at[0], at[0], items)?;
        items[(at[0] - i64::from(dim.lower)) as usize] = value;
        return made(vec![dim], items);
    }
    let mut ranges = Vec::with_capacity(dims.len());
    for (dim, &i) in dims.iter().zip(at) {
        ranges.push(inside(*dim, i, i)?);
    }
    if let Some(offset) = region(&dims, &ranges).next() {
        items[offset] = value;
    }
    made(dims, items)
}

/// `array[bounds...] = source` (rules 2 to 5), `source` not NULL.
fn set_slice(array: Array, bounds: &[Bounds], source: Vec<Value>) -> Result<Array, SqlError> {
    if array.ndims() == 0 {
        let mut dims = Vec::with_capacity(bounds.len());
        for b in bounds {
            let (Some(lower), Some(upper)) = *b else {
                return Err(SqlError::new(
                    "2202E",
                    "array slice subscript must provide both boundaries",
                )
                .with_detail(
                    "When assigning to a slice of an empty array value, slice boundaries must be fully specified.",
                ));
            };
            dims.push((lower, upper));
        }
        let count = count_of(&dims)?;
        if source.len() < count {
            return Err(too_small());
        }
        return shaped(&dims, source.into_iter().take(count).collect());
    }
    if array.ndims() < bounds.len() {
        return Err(wrong_count());
    }
    let (dims, items) = array.into_parts();
    // Each written dimension's bounds, the omitted ones the array's.
    let filled = |d: usize, dim: Dim| {
        let (lower, upper) = bounds.get(d).copied().unwrap_or((None, None));
        let lower = lower.unwrap_or(i64::from(dim.lower));
        let upper = upper.unwrap_or(i64::from(dim.upper()));
        match lower > upper {
            true => Err(SqlError::new(
                "2202E",
                "upper bound cannot be less than lower bound",
            )),
            false => Ok((lower, upper)),
        }
    };
    if let [dim] = dims.as_slice() {
        let (lower, upper) = filled(0, *dim)?;
        let (dim, mut items) = extend(*dim, lower, upper, items)?;
        let span = (upper - lower + 1) as usize;
        if source.len() < span {
            return Err(too_small());
        }
        let from = (lower - i64::from(dim.lower)) as usize;
        for (slot, v) in items[from..from + span].iter_mut().zip(source) {
            *slot = v;
        }
        return made(vec![dim], items);
    }
    let mut ranges = Vec::with_capacity(dims.len());
    for (d, dim) in dims.iter().enumerate() {
        let (lower, upper) = filled(d, *dim)?;
        ranges.push(inside(*dim, lower, upper)?);
    }
    let span: usize = ranges.iter().map(|(from, to)| to - from + 1).product();
    if source.len() < span {
        return Err(too_small());
    }
    let mut items = items;
    for (offset, v) in region(&dims, &ranges).zip(source) {
        items[offset] = v;
    }
    made(dims, items)
}

/// A one-dimensional array `dim` of `items`, extended with NULLs to
/// hold `lower..=upper` (rule 4).
fn extend(
    dim: Dim,
    lower: i64,
    upper: i64,
    mut items: Vec<Value>,
) -> Result<(Dim, Vec<Value>), SqlError> {
    let new_lower = i64::from(dim.lower).min(lower);
    let new_upper = i64::from(dim.upper()).max(upper);
    let len = new_upper - new_lower + 1;
    if len > MAX_ITEMS as i64 {
        return Err(too_large());
    }
    let before = (i64::from(dim.lower) - new_lower) as usize;
    if before > 0 {
        items.splice(0..0, std::iter::repeat_n(Value::Null, before));
    }
    items.resize(len as usize, Value::Null);
    let dim = Dim {
        lower: i32::try_from(new_lower).map_err(|_| too_large())?,
        len: len as u32,
    };
    Ok((dim, items))
}

/// The places `lower..=upper` of dimension `dim`, from 0, if within it
/// (an array of several dimensions does not extend: rule 4).
fn inside(dim: Dim, lower: i64, upper: i64) -> Result<(usize, usize), SqlError> {
    if lower < i64::from(dim.lower) || upper > i64::from(dim.upper()) {
        return Err(SqlError::new("2202E", "array subscript out of range"));
    }
    let base = i64::from(dim.lower);
    Ok(((lower - base) as usize, (upper - base) as usize))
}

/// How many elements dimensions `lower..=upper` hold (54000 past
/// `MaxArraySize`, or for a dimension whose upper bound is below its
/// lower by more than one, as PostgreSQL's `ArrayGetNItems`).
fn count_of(dims: &[(i64, i64)]) -> Result<usize, SqlError> {
    let mut count: i64 = 1;
    for (lower, upper) in dims {
        let len = upper - lower + 1;
        if len < 0 || len > i64::from(i32::MAX) {
            return Err(too_large());
        }
        count = count.saturating_mul(len);
    }
    if count > MAX_ITEMS as i64 {
        return Err(too_large());
    }
    Ok(count as usize)
}

/// The array of dimensions `lower..=upper` holding `items` (rule 6).
fn shaped(dims: &[(i64, i64)], items: Vec<Value>) -> Result<Array, SqlError> {
    count_of(dims)?;
    let dims = (dims.iter())
        .map(|&(lower, upper)| Dim {
            lower: lower as i32,
            len: (upper - lower + 1) as u32,
        })
        .collect();
    made(dims, items)
}

/// `Array::new`, its errors as SQL's.
fn made(dims: Vec<Dim>, items: Vec<Value>) -> Result<Array, SqlError> {
    Ok(Array::new(dims, items)?)
}

/// 22004: a NULL subscript.
fn null_subscript() -> SqlError {
    SqlError::new("22004", "array subscript in assignment must not be null")
}

/// 2202E: more subscripts than dimensions (or fewer, for an element).
fn wrong_count() -> SqlError {
    SqlError::new("2202E", "wrong number of array subscripts")
}

/// 2202E: a source with fewer elements than the slice's places.
fn too_small() -> SqlError {
    SqlError::new("2202E", "source array too small")
}

/// 54000: more elements than an array holds.
fn too_large() -> SqlError {
    SqlError::new(
        "54000",
        format!("array size exceeds the maximum allowed ({MAX_ITEMS})"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use folio_row::SqlType;

    fn array(text: &str) -> Value {
        Value::from_text(SqlType::Array(&SqlType::Int4), text).unwrap()
    }

    fn text(v: Value) -> String {
        v.to_text().unwrap()
    }

    fn int(i: i64) -> Value {
        Value::Int4(i as i32)
    }

    /// `a[at...] = v`.
    fn element(a: Value, at: &[i64], v: i32) -> Result<Value, SqlError> {
        let mut args = vec![a];
        args.extend(at.iter().map(|&i| int(i)));
        args.push(Value::Int4(v));
        assign(Subscripts::element(at.len() as u8), args)
    }

    /// `a[l:u]... = source`, every bound written.
    fn slice(a: Value, bounds: &[(i64, i64)], source: Value) -> Result<Value, SqlError> {
        let all = (1u8 << bounds.len()) - 1;
        let shape = Subscripts {
            count: bounds.len() as u8,
            slice: true,
            lower: all,
            upper: all,
        };
        let mut args = vec![a];
        for &(l, u) in bounds {
            args.push(int(l));
            args.push(int(u));
        }
        args.push(source);
        assign(shape, args)
    }

    /// Elements of a one-dimensional array replace, or extend it either
    /// way with NULLs between; of an empty one start at the subscripts
    /// (PostgreSQL's answers).
    #[test]
    fn elements_extend_one_dimension() {
        let a = array("{1,2}");
        assert_eq!(text(element(a.clone(), &[2], 9).unwrap()), "{1,9}");
        assert_eq!(text(element(a.clone(), &[4], 9).unwrap()), "{1,2,NULL,9}");
        assert_eq!(
            text(element(a.clone(), &[-1], 9).unwrap()),
            "[-1:2]={9,NULL,1,2}"
        );
        assert_eq!(text(element(Value::Null, &[0], 9).unwrap()), "[0:0]={9}");
        assert_eq!(
            text(element(Value::Null, &[2, 3], 7).unwrap()),
            "[2:2][3:3]={{7}}"
        );
        assert_eq!(text(element(Value::Null, &[1], 7).unwrap()), "{7}");
        let code = |r: Result<Value, SqlError>| r.unwrap_err().code;
        assert_eq!(code(element(a.clone(), &[i64::from(i32::MAX)], 9)), "54000");
        assert_eq!(code(element(a.clone(), &[1, 1], 9)), "2202E");
        let null = assign(Subscripts::element(1), vec![a, Value::Null, Value::Int4(1)]);
        assert_eq!(code(null), "22004");
        let far = element(Value::Null, &[i64::from(i32::MAX)], 1);
        assert_eq!(code(far), "54000");
    }

    /// An array of several dimensions takes elements and slices inside
    /// it only; a slice's places take the source's elements in order.
    #[test]
    fn several_dimensions_do_not_extend() {
        let a = array("[0:1][0:1]={{1,2},{3,4}}");
        assert_eq!(
            text(element(a.clone(), &[1, 0], 9).unwrap()),
            "[0:1][0:1]={{1,2},{9,4}}"
        );
        let code = |r: Result<Value, SqlError>| r.unwrap_err().code;
        assert_eq!(code(element(a.clone(), &[2, 0], 9)), "2202E");
        assert_eq!(code(element(a.clone(), &[1], 9)), "2202E");
        assert_eq!(
            text(slice(a.clone(), &[(0, 1), (1, 1)], array("{{7},{8}}")).unwrap()),
            "[0:1][0:1]={{1,7},{3,8}}"
        );
        assert_eq!(
            code(slice(a.clone(), &[(0, 1), (1, 1)], array("{7}"))),
            "2202E"
        );
        assert_eq!(
            code(slice(a.clone(), &[(0, 2)], array("{1,2,3,4,5,6}"))),
            "2202E"
        );
        // A slice of fewer subscripts keeps the other dimensions whole.
        assert_eq!(
            text(slice(a, &[(0, 0)], array("{5,6}")).unwrap()),
            "[0:1][0:1]={{5,6},{3,4}}"
        );
    }

    /// Slices of the empty array make the written shape; of a
    /// one-dimensional one extend it; a NULL source changes nothing.
    #[test]
    fn slices() {
        assert_eq!(
            text(slice(Value::Null, &[(1, 1), (1, 2), (1, 2)], array("{1,2,3,4}")).unwrap()),
            "{{{1,2},{3,4}}}"
        );
        assert_eq!(
            text(slice(Value::Null, &[(3, 2)], array("{1}")).unwrap()),
            "{}"
        );
        let code = |r: Result<Value, SqlError>| r.unwrap_err().code;
        assert_eq!(code(slice(Value::Null, &[(3, 1)], array("{1}"))), "54000");
        assert_eq!(code(slice(Value::Null, &[(1, 2)], array("{1}"))), "2202E");
        let a = array("{1,2,3}");
        assert_eq!(
            text(slice(a.clone(), &[(0, 1)], array("{7,8}")).unwrap()),
            "[0:3]={7,8,2,3}"
        );
        assert_eq!(
            text(slice(a.clone(), &[(5, 6)], array("{7,8,9}")).unwrap()),
            "{1,2,3,NULL,7,8}"
        );
        assert_eq!(code(slice(a.clone(), &[(2, 1)], array("{7}"))), "2202E");
        assert_eq!(
            text(slice(a.clone(), &[(1, 2)], Value::Null).unwrap()),
            "{1,2,3}"
        );
        // Omitted bounds: the array's own; of an empty array, refused.
        let open = Subscripts {
            count: 1,
            slice: true,
            lower: 0,
            upper: 1,
        };
        let set = |a: Value| assign(open, vec![a, int(2), array("{7,8,9}")]);
        assert_eq!(text(set(a).unwrap()), "{7,8,3}");
        assert_eq!(code(set(Value::Null)), "2202E");
    }
}
