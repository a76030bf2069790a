//! Subscripts of an array: `a[i]`, its element, and `a[l:u]` with
//! either bound optional (`a[:u]`, `a[l:]`, `a[:]`), its slice. Arrays
//! are one-dimensional with lower bound 1 (folio-row `Value::Array`), so
//! a slice is the elements from `max(l, 1)` to `min(u, length)`, an
//! empty array when that is none, with lower bound 1 as PostgreSQL's
//! `array_get_slice` gives it. A NULL array or a NULL bound gives NULL.
//!
//! A subscript is an `integer`: another type that casts to it in
//! assignment is cast (`a[1.6]` is `a[2]`, `a[5000000000::int8]` 22003),
//! a quoted literal is read as one, and any other type is 42804, as
//! PostgreSQL's `transformArraySubscripts`.
//!
//! Assigning to a subscript (`UPDATE t SET a[2] = x`, `SET a[2:3] =
//! ...`) is 0A000: sqlparser reads no subscripted target, and
//! PostgreSQL's assignments may extend an array to other lower bounds
//! (`[2:3]={7,8}` from a NULL), which folio's arrays cannot hold
//! ([`assigns_to_subscript`]).

use crate::array_functions::ArrayFunc;
use crate::error::SqlError;
use crate::functions::Func;
use crate::scalar::{Columns, Scalar, bind, fit_unknown, is_unknown};
use crate::types;
use folio_row::{SqlType, Value};
use sqlparser::ast::{Expr, Subscript};
use sqlparser::keywords::Keyword;
use sqlparser::tokenizer::Token;

/// Binds `array` (bound over `columns`) with `subscript`: an element or
/// a slice. 42804 unless `array` is of an array type.
pub fn bind_subscript(
    array: Scalar,
    subscript: &Subscript,
    columns: &(impl Columns + ?Sized),
) -> Result<Scalar, SqlError> {
    let ty = array.ty_in(columns);
    if ty.element().is_none() {
        return Err(SqlError::new(
            "42804",
            format!(
                "cannot subscript type {} because it does not support subscripting",
                ty.name()
            ),
        ));
    }
    let integer = |e: &Expr| integer_subscript(bind(e, columns)?, columns);
    Ok(match subscript {
        Subscript::Index { index } => Scalar::Func(
            Func::Array(ArrayFunc::Element),
            vec![array, integer(index)?],
        ),
        Subscript::Slice {
            stride: Some(_), ..
        } => return Err(SqlError::syntax("syntax error at or near \":\"")),
        Subscript::Slice {
            lower_bound,
            upper_bound,
            stride: None,
        } => {
            let f = ArrayFunc::Slice {
                lower: lower_bound.is_some(),
                upper: upper_bound.is_some(),
            };
            let mut args = vec![array];
            for bound in lower_bound.iter().chain(upper_bound) {
                args.push(integer(bound)?);
            }
            Scalar::Func(Func::Array(f), args)
        }
    })
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

/// The slice of `items` from `lower` to `upper` (each `None` when not
/// written: the array's own bound), clamped to the array.
pub fn slice(items: Vec<Value>, lower: Option<i64>, upper: Option<i64>) -> Value {
    let len = items.len() as i64;
    let from = lower.unwrap_or(1).max(1);
    let to = upper.unwrap_or(len).min(len);
    if from > to {
        return Value::Array(Vec::new());
    }
    Value::Array(
        items
            .into_iter()
            .skip(from as usize - 1)
            .take((to - from + 1) as usize)
            .collect(),
    )
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

    /// Slices clamp their bounds to the array, and are empty when the
    /// clamped bounds cross or the array is empty.
    #[test]
    fn slices_clamp_to_the_array() {
        let a = ints(&[1, 2, 3, 4]);
        let cut = |l, u| slice(a.clone(), l, u);
        assert_eq!(cut(Some(2), Some(3)), Value::Array(ints(&[2, 3])));
        assert_eq!(cut(None, Some(2)), Value::Array(ints(&[1, 2])));
        assert_eq!(cut(Some(3), None), Value::Array(ints(&[3, 4])));
        assert_eq!(cut(None, None), Value::Array(a.clone()));
        assert_eq!(cut(Some(-5), Some(10)), Value::Array(a.clone()));
        assert_eq!(cut(Some(3), Some(2)), Value::Array(Vec::new()));
        assert_eq!(cut(Some(5), None), Value::Array(Vec::new()));
        assert_eq!(cut(None, Some(0)), Value::Array(Vec::new()));
        assert_eq!(
            cut(Some(i64::from(i32::MIN)), Some(i64::from(i32::MAX))),
            Value::Array(a.clone())
        );
        assert_eq!(slice(Vec::new(), None, None), Value::Array(Vec::new()));
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
