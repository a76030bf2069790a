//! Subscripts of an array: `a[i]`, `a[i][j]`, ..., an element, and
//! `a[l:u]`, `a[l1:u1][l2:u2]`, ... with either bound optional (`a[:u]`,
//! `a[l:]`, `a[:]`), a slice; once one subscript is a slice every one
//! is, a bare `[i]` then meaning `[1:i]` (PostgreSQL's). An element needs
//! as many subscripts as the array has dimensions, each within its
//! dimension, else it is NULL; a slice clamps each written dimension's
//! bounds to the array (the others whole), is empty when any crosses or
//! when there are more subscripts than dimensions, and starts each
//! dimension at 1, as PostgreSQL's `array_get_slice`. A NULL array or a
//! NULL subscript gives NULL.
//!
//! A subscript is an `integer`: another type that casts to it in
//! assignment is cast (`a[1.6]` is `a[2]`, `a[5000000000::int8]` 22003),
//! a quoted literal is read as one, and any other type is 42804, as
//! PostgreSQL's `transformArraySubscripts`.
//!
//! Assigning to subscripts (`UPDATE t SET a[2] = x`) is
//! `array_assignment.rs`.

use crate::array_functions::ArrayFunc;
use crate::error::SqlError;
use crate::functions::Func;
use crate::scalar::{Columns, Scalar, bind, fit_unknown, is_unknown};
use crate::types;
use folio_row::{Array, Dim, SqlType, Value};
use sqlparser::ast::{Expr, Subscript};
use sqlparser::keywords::Keyword;
use sqlparser::tokenizer::Token;

/// The subscripts written after an array (module comment): how many,
/// whether they make a slice, and for a slice which bounds are written
/// (bit `d` of `lower` / `upper`: dimension `d`, from 0). The call's
/// arguments are the array, then each written bound in order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Subscripts {
    pub count: u8,
    pub slice: bool,
    pub lower: u8,
    pub upper: u8,
}

impl Subscripts {
    /// `count` element subscripts.
    pub fn element(count: u8) -> Subscripts {
        Subscripts {
            count,
            slice: false,
            lower: 0,
            upper: 0,
        }
    }

    /// How many bound arguments follow the array.
    pub fn args(self) -> usize {
        match self.slice {
            false => usize::from(self.count),
            true => (self.lower.count_ones() + self.upper.count_ones()) as usize,
        }
    }

    /// Each dimension's bounds read from `values` (the arguments after
    /// the array); `None` when one is NULL. An element's are `(i, i)`.
    pub fn bounds(self, values: &[Value]) -> Option<Vec<(Option<i64>, Option<i64>)>> {
        let mut values = values.iter();
        let mut next = || match values.next() {
            Some(v) => crate::functions::int_arg(v).ok(),
            None => None,
        };
        (0..self.count)
            .map(|d| {
                if !self.slice {
                    let i = next()?;
                    return Some((Some(i), Some(i)));
                }
                let lower = match self.lower & (1 << d) != 0 {
                    true => Some(next()?),
                    false => None,
                };
                let upper = match self.upper & (1 << d) != 0 {
                    true => Some(next()?),
                    false => None,
                };
                Some((lower, upper))
            })
            .collect()
    }
}

/// Binds `array` (bound over `columns`) with `subscripts`: an element or
/// a slice. 42804 unless `array` is of an array type.
pub fn bind_subscripts(
    array: Scalar,
    subscripts: &[&Subscript],
    columns: &(impl Columns + ?Sized),
) -> Result<Scalar, SqlError> {
    let ty = array.ty_in(columns);
    if ty == SqlType::Jsonb {
        return crate::json_subscripts::bind_read(array, subscripts, columns);
    }
    if ty.element().is_none() {
        return Err(SqlError::new(
            "42804",
            format!(
                "cannot subscript type {} because it does not support subscripting",
                ty.name()
            ),
        ));
    }
    let (shape, bounds) = written(subscripts, columns)?;
    let mut args = vec![array];
    args.extend(bounds);
    Ok(Scalar::Func(Func::Array(ArrayFunc::Subscript(shape)), args))
}

/// The shape of `subscripts` (written after an array, to read or to
/// assign) and their bounds, bound over `columns` as integers, in order:
/// a bare `[i]` among slices is `[1:i]`.
pub(crate) fn written(
    subscripts: &[&Subscript],
    columns: &(impl Columns + ?Sized),
) -> Result<(Subscripts, Vec<Scalar>), SqlError> {
    if subscripts.len() > folio_row::MAX_DIMS {
        return Err(folio_row::too_many_dims(subscripts.len()).into());
    }
    let integer = |e: &Expr| integer_subscript(bind(e, columns)?, columns);
    let slice = (subscripts.iter()).any(|s| matches!(s, Subscript::Slice { .. }));
    let mut shape = Subscripts {
        slice,
        ..Subscripts::element(subscripts.len() as u8)
    };
    let mut args = Vec::new();
    for (d, subscript) in subscripts.iter().enumerate() {
        match subscript {
            Subscript::Index { index } if !slice => args.push(integer(index)?),
            // `[i]` among slices is `[1:i]`.
            Subscript::Index { index } => {
                args.push(Scalar::Const(Value::Int4(1)));
                args.push(integer(index)?);
                shape.lower |= 1 << d;
                shape.upper |= 1 << d;
            }
            Subscript::Slice {
                stride: Some(_), ..
            } => return Err(SqlError::syntax("syntax error at or near \":\"")),
            Subscript::Slice {
                lower_bound,
                upper_bound,
                stride: None,
            } => {
                if let Some(l) = lower_bound {
                    args.push(integer(l)?);
                    shape.lower |= 1 << d;
                }
                if let Some(u) = upper_bound {
                    args.push(integer(u)?);
                    shape.upper |= 1 << d;
                }
            }
        }
    }
    Ok((shape, args))
}

/// `s` as an `integer` subscript: unchanged if it is one, a quoted
/// literal read as one, another type cast in assignment, else 42804.
pub(crate) fn integer_subscript(
    s: Scalar,
    columns: &(impl Columns + ?Sized),
) -> Result<Scalar, SqlError> {
    if is_unknown(&s) {
        return fit_unknown(s, SqlType::Int4);
    }
    Ok(match s.ty_in(columns) {
        SqlType::Int4 => s,
        _ if s == Scalar::Const(Value::Null) => s,
        ty if types::assignment_cast(ty, SqlType::Int4) => match s {
            Scalar::Const(v) => Scalar::Const(types::cast(v, SqlType::Int4)?),
            s => Scalar::Cast(Box::new(s), SqlType::Int4),
        },
        _ => {
            return Err(SqlError::new(
                "42804",
                "array subscript must have type integer",
            ));
        }
    })
}

/// How many elements one step of each dimension skips (row-major: the
/// last dimension's is 1).
pub(crate) fn strides(dims: &[Dim]) -> Vec<usize> {
    let mut strides = vec![1usize; dims.len()];
    for d in (0..dims.len().saturating_sub(1)).rev() {
        strides[d] = strides[d + 1] * dims[d + 1].len as usize;
    }
    strides
}

/// The element of `array` at `at` (one subscript a dimension), NULL
/// when the count differs from the dimensions' or one is outside.
pub fn element(array: &Array, at: &[i64]) -> Value {
    let dims = array.dims();
    if at.len() != dims.len() {
        return Value::Null;
    }
    let mut offset = 0usize;
    for ((d, i), stride) in dims.iter().zip(at).zip(strides(&dims)) {
        if *i < i64::from(d.lower) || *i > i64::from(d.upper()) {
            return Value::Null;
        }
        offset += (*i - i64::from(d.lower)) as usize * stride;
    }
    array.items()[offset].clone()
}

/// The offsets (in the elements, row-major) of the places of an array
/// of dimensions `dims` within `ranges` (each dimension's first and last
/// place kept, from 0; one a dimension, none empty), in row-major order.
pub(crate) fn region(dims: &[Dim], ranges: &[(usize, usize)]) -> impl Iterator<Item = usize> {
    debug_assert_eq!(dims.len(), ranges.len());
    let strides = strides(dims);
    let mut index: Option<Vec<usize>> = Some(ranges.iter().map(|r| r.0).collect());
    let ranges = ranges.to_vec();
    std::iter::from_fn(move || {
        let at = index.as_mut()?;
        let offset = at.iter().zip(&strides).map(|(i, s)| i * s).sum();
        // The next place: the last dimension fastest.
        let mut d = at.len();
        loop {
            if d == 0 {
                index = None;
                break;
            }
            d -= 1;
            if at[d] < ranges[d].1 {
                at[d] += 1;
                break;
            }
            at[d] = ranges[d].0;
        }
        Some(offset)
    })
}

/// The slice of `array` within `bounds` (one pair a written dimension,
/// `None` where not written: the array's own bound), clamped to the
/// array, each dimension starting at 1.
pub fn slice(array: &Array, bounds: &[(Option<i64>, Option<i64>)]) -> Value {
    let dims = array.dims();
    if dims.is_empty() || bounds.len() > dims.len() {
        return Value::array(Vec::new());
    }
    // Each dimension's first and last index kept, from 0.
    let mut ranges = Vec::with_capacity(dims.len());
    for (d, dim) in dims.iter().enumerate() {
        let (lower, upper) = bounds.get(d).copied().unwrap_or((None, None));
        let from = lower
            .unwrap_or(i64::from(dim.lower))
            .max(i64::from(dim.lower));
        let to = upper
            .unwrap_or(i64::from(dim.upper()))
            .min(i64::from(dim.upper()));
        if from > to {
            return Value::array(Vec::new());
        }
        let base = i64::from(dim.lower);
        ranges.push(((from - base) as usize, (to - base) as usize));
    }
    let items = (region(&dims, &ranges))
        .map(|offset| array.items()[offset].clone())
        .collect();
    let out_dims = (ranges.iter())
        .map(|(from, to)| Dim {
            lower: 1,
            len: (to - from + 1) as u32,
        })
        .collect();
    Value::Array(Array::new(out_dims, items).expect("a slice of a valid array"))
}

/// 0A000 if a statement sqlparser refused (`tokens`) assigns to a
/// subscripted column: a `SET` list (UPDATE, ON CONFLICT DO UPDATE,
/// MERGE) with a target `name[`.
pub fn assigns_to_subscript(tokens: &[Token]) -> Result<(), SqlError> {
    let tokens: Vec<&Token> = (tokens.iter())
        .filter(|t| !matches!(t, Token::Whitespace(_)))
        .collect();
    let keyword = |t: &Token| crate::parse::keyword(t);
    let subscripted = |at: usize| {
        matches!(tokens.get(at), Some(Token::Word(_)))
            && tokens.get(at + 1) == Some(&&Token::LBracket)
    };
    for set in (0..tokens.len()).filter(|&i| keyword(tokens[i]) == Some(Keyword::SET)) {
        // The targets: after SET, and after each comma of its list.
        let mut depth = 0usize;
        let mut target = set + 1;
        for (at, &token) in tokens.iter().enumerate().skip(set + 1) {
            if at == target && subscripted(at) {
                return Err(SqlError::unsupported(
                    "assignment to an array element or slice",
                ));
            }
            match token {
                Token::LParen | Token::LBracket => depth += 1,
                Token::RParen | Token::RBracket if depth == 0 => break,
                Token::RParen | Token::RBracket => depth -= 1,
                Token::Comma if depth == 0 => target = at + 1,
                t if depth == 0
                    && matches!(
                        keyword(t),
                        Some(Keyword::WHERE | Keyword::FROM | Keyword::RETURNING | Keyword::WHEN)
                    ) =>
                {
                    break;
                }
                _ => {}
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ints(values: &[i32]) -> Vec<Value> {
        values.iter().map(|&v| Value::Int4(v)).collect()
    }

    fn array(text: &str) -> Array {
        match Value::from_text(SqlType::Array(&SqlType::Int4), text).unwrap() {
            Value::Array(a) => a,
            _ => unreachable!(),
        }
    }

    /// Slices clamp their bounds to the array, and are empty when the
    /// clamped bounds cross or the array is empty.
    #[test]
    fn slices_clamp_to_the_array() {
        let a = Array::from_items(ints(&[1, 2, 3, 4]));
        let cut = |l, u| slice(&a, &[(l, u)]);
        assert_eq!(cut(Some(2), Some(3)), Value::array(ints(&[2, 3])));
        assert_eq!(cut(None, Some(2)), Value::array(ints(&[1, 2])));
        assert_eq!(cut(Some(3), None), Value::array(ints(&[3, 4])));
        assert_eq!(cut(None, None), Value::Array(a.clone()));
        assert_eq!(cut(Some(-5), Some(10)), Value::Array(a.clone()));
        assert_eq!(cut(Some(3), Some(2)), Value::array(Vec::new()));
        assert_eq!(cut(Some(5), None), Value::array(Vec::new()));
        assert_eq!(cut(None, Some(0)), Value::array(Vec::new()));
        assert_eq!(
            cut(Some(i64::from(i32::MIN)), Some(i64::from(i32::MAX))),
            Value::Array(a.clone())
        );
        assert_eq!(
            slice(&Array::default(), &[(None, None)]),
            Value::array(Vec::new())
        );
    }

    /// Elements and slices of several dimensions and other lower bounds
    /// (PostgreSQL's answers): an element needs every dimension's
    /// subscript, a slice starts each dimension at 1 and keeps the
    /// dimensions not written whole.
    #[test]
    fn subscripts_reach_every_dimension() {
        let a = array("[0:1][2:4]={{1,2,3},{4,5,6}}");
        assert_eq!(element(&a, &[1, 3]), Value::Int4(5));
        assert_eq!(element(&a, &[0, 2]), Value::Int4(1));
        assert_eq!(element(&a, &[1]), Value::Null);
        assert_eq!(element(&a, &[2, 3]), Value::Null);
        let text = |v: Value| v.to_text().unwrap();
        assert_eq!(text(slice(&a, &[(Some(1), Some(1))])), "{{4,5,6}}");
        assert_eq!(
            text(slice(&a, &[(None, None), (Some(3), None)])),
            "{{2,3},{5,6}}"
        );
        assert_eq!(text(slice(&a, &[(None, None); 3])), "{}");
        assert_eq!(text(slice(&a, &[(Some(5), None)])), "{}");
    }

    /// A subscripted SET target is found after SET and after a comma of
    /// its list; a subscript in a value or a WHERE is not one.
    #[test]
    fn subscripted_targets_are_found() {
        let refused = |sql: &str| {
            let tokens = sqlparser::tokenizer::Tokenizer::new(
                &sqlparser::dialect::PostgreSqlDialect {},
                sql,
            )
            .tokenize()
            .expect("tokens");
            assigns_to_subscript(&tokens).is_err()
        };
        assert!(refused("update t set a[2:3] = '{1,2}'"));
        assert!(refused("update t set b = f(x, y), a[1] = 2 where id = 1"));
        assert!(!refused(
            "update t set b = a[1], c = (a[1:2])[1] where a[1] = 2"
        ));
        assert!(!refused(
            "update t set b = 1 where id in (select x from u, v[1])"
        ));
    }
}
