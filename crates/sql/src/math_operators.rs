//! PostgreSQL's math operators beyond `+ - * / % ^`: the integer bitwise
//! ones and the prefix `@`, `|/` and `||/`. The one place that says which
//! operand types each takes ([`bind_binary`], [`bind_prefix`]), the type
//! of its result ([`result_type`]) and its value ([`apply`]).
//!
//! | operator | operands | result | PostgreSQL's function |
//! |---|---|---|---|
//! | `a & b`, `a \| b`, `a # b` | two integers | the wider type | `int4and`, `int4or`, `int4xor` |
//! | `a << n`, `a >> n` | an integer, an int2 or int4 count | `a`'s type | `int4shl`, `int4shr` |
//! | `~ a` | an integer | `a`'s type, bound as `a # -1` | `int4not` |
//! | `@ a` | a number | `abs(a)` | `int4abs`, `numeric_abs`, ... |
//! | `\|/ a`, `\|\|/ a` | a number (cast to float8) | float8 | `dsqrt`, `dcbrt` |
//!
//! A shift counts modulo its operand's width, as PostgreSQL's C shifts do
//! on x86-64 (`1 << 32` is 1); an int2 shifts as an int4 and keeps its
//! low 16 bits (`1::int2 << 16` is 0). `>>` keeps the sign.
//!
//! An untyped operand (a quoted literal, a parameter) takes the other
//! side's type, a shift count int4, the operand of `@`, `|/` or `||/` a
//! float8; two untyped operands, or one under `~`, are PostgreSQL's 42725
//! `operator is not unique`. Other types are 42883 `operator does not
//! exist`.

use crate::error::SqlError;
use crate::functions::{Func, no_operator};
use crate::scalar::{Columns, Scalar, fit_unknown, is_unknown, wider};
use crate::set_types;
use folio_row::{SqlType, Value};
use sqlparser::ast::{BinaryOperator, UnaryOperator};

fn integer(ty: SqlType) -> bool {
    matches!(ty, SqlType::Int2 | SqlType::Int4 | SqlType::Int8)
}

fn is_shift(op: &BinaryOperator) -> bool {
    matches!(
        op,
        BinaryOperator::PGBitwiseShiftLeft | BinaryOperator::PGBitwiseShiftRight
    )
}

/// Whether `op` is one of the bitwise operators [`bind_bitwise`] binds.
pub fn is_bitwise(op: &BinaryOperator) -> bool {
    is_shift(op)
        || matches!(
            op,
            BinaryOperator::BitwiseAnd | BinaryOperator::BitwiseOr | BinaryOperator::PGBitwiseXor
        )
}

fn not_unique(operands: &str) -> SqlError {
    SqlError::new("42725", format!("operator is not unique: {operands}")).with_hint(
        "Could not choose a best candidate operator. You might need to add explicit type casts.",
    )
}

/// `a op b` for a bitwise `op` ([`is_bitwise`]).
pub fn bind_bitwise(
    op: &BinaryOperator,
    a: Scalar,
    b: Scalar,
    columns: &(impl Columns + ?Sized),
) -> Result<Scalar, SqlError> {
    // An untyped operand: the other side's type, or int4 as either side
    // of a shift.
    let fitted = |unknown: Scalar, other: &Scalar| {
        let ty = if is_shift(op) {
            SqlType::Int4
        } else {
            other.ty_in(columns)
        };
        fit_unknown(unknown, ty)
    };
    let (a, b) = match (is_unknown(&a), is_unknown(&b)) {
        (true, true) => return Err(not_unique(&format!("unknown {op} unknown"))),
        (true, false) => (fitted(a, &b)?, b),
        (false, true) => {
            let b = fitted(b, &a)?;
            (a, b)
        }
        (false, false) => (a, b),
    };
    let (x, y) = (a.ty_in(columns), b.ty_in(columns));
    let fits = if is_shift(op) {
        integer(x) && matches!(y, SqlType::Int2 | SqlType::Int4)
    } else {
        integer(x) && integer(y)
    };
    if !fits && !matches!(a, Scalar::Const(Value::Null)) && !matches!(b, Scalar::Const(Value::Null))
    {
        return Err(no_operator(format!(
            "operator does not exist: {} {op} {}",
            set_types::name(x),
            set_types::name(y)
        )));
    }
    Ok(Scalar::Arith(op.clone(), Box::new(a), Box::new(b)))
}

fn prefix_symbol(op: &UnaryOperator) -> Option<&'static str> {
    Some(match op {
        UnaryOperator::PGBitwiseNot => "~",
        UnaryOperator::PGAbs => "@",
        UnaryOperator::PGSquareRoot => "|/",
        UnaryOperator::PGCubeRoot => "||/",
        _ => return None,
    })
}

/// Whether `op` is one of the prefix operators [`bind_prefix`] binds.
pub fn is_prefix(op: &UnaryOperator) -> bool {
    prefix_symbol(op).is_some()
}

/// `op a` for a prefix `op` ([`is_prefix`]).
pub fn bind_prefix(
    op: &UnaryOperator,
    a: Scalar,
    columns: &(impl Columns + ?Sized),
) -> Result<Scalar, SqlError> {
    let Some(symbol) = prefix_symbol(op) else {
        return Err(SqlError::unsupported(format!("the operator {op}")));
    };
    // `|/` and `||/` take a float8 only, and `@` a float8 among its
    // numbers (the preferred type of PostgreSQL's numeric category): an
    // untyped operand is one. `~` has no preferred integer.
    if is_unknown(&a) && matches!(op, UnaryOperator::PGBitwiseNot) {
        return Err(not_unique(&format!("{symbol} unknown")));
    }
    let a = fit_unknown(a, SqlType::Float8)?;
    let ty = a.ty_in(columns);
    let fits = match op {
        UnaryOperator::PGBitwiseNot => integer(ty),
        _ => ty.is_number(),
    };
    if !fits && !matches!(a, Scalar::Const(Value::Null)) {
        return Err(SqlError::new(
            "42883",
            format!("operator does not exist: {symbol} {}", set_types::name(ty)),
        )
        .with_hint(
            "No operator matches the given name and argument type. \
             You might need to add an explicit type cast.",
        ));
    }
    let float8 = |a: Scalar| match ty {
        SqlType::Float8 => a,
        _ => Scalar::Cast(Box::new(a), SqlType::Float8),
    };
    Ok(match op {
        UnaryOperator::PGBitwiseNot => {
            let ones = match ty {
                SqlType::Int2 => Value::Int2(-1),
                SqlType::Int8 => Value::Int8(-1),
                _ => Value::Int4(-1),
            };
            Scalar::Arith(
                BinaryOperator::PGBitwiseXor,
                Box::new(a),
                Box::new(Scalar::Const(ones)),
            )
        }
        UnaryOperator::PGAbs => Scalar::Func(Func::Abs, vec![a]),
        UnaryOperator::PGSquareRoot => Scalar::Func(Func::Sqrt, vec![float8(a)]),
        _ => Scalar::Func(Func::Cbrt, vec![float8(a)]),
    })
}

/// The type of `a op b` for a bitwise `op`, `None` for any other.
pub fn result_type(op: &BinaryOperator, a: SqlType, b: SqlType) -> Option<SqlType> {
    if is_shift(op) {
        Some(a)
    } else if is_bitwise(op) {
        Some(wider(a, b))
    } else {
        None
    }
}

/// The value of `a op b` for a bitwise `op` on two integers, `None` for
/// anything else.
pub fn apply(op: &BinaryOperator, a: &Value, b: &Value) -> Option<Value> {
    if !is_bitwise(op) {
        return None;
    }
    let int = |v: &Value| match v {
        Value::Int2(x) => Some(i64::from(*x)),
        Value::Int4(x) => Some(i64::from(*x)),
        Value::Int8(x) => Some(*x),
        _ => None,
    };
    let (x, y) = (int(a)?, int(b)?);
    if is_shift(op) {
        // The count is an int2 or int4; the C shift reads it as an
        // unsigned count modulo the width.
        let n = y as u32;
        let left = matches!(op, BinaryOperator::PGBitwiseShiftLeft);
        return Some(match a {
            Value::Int8(x) => Value::Int8(if left {
                x.wrapping_shl(n)
            } else {
                x.wrapping_shr(n)
            }),
            _ => {
                let wide = x as i32;
                let shifted = if left {
                    wide.wrapping_shl(n)
                } else {
                    wide.wrapping_shr(n)
                };
                match a {
                    Value::Int2(_) => Value::Int2(shifted as i16),
                    _ => Value::Int4(shifted),
                }
            }
        });
    }
    let bits = match op {
        BinaryOperator::BitwiseAnd => x & y,
        BinaryOperator::BitwiseOr => x | y,
        _ => x ^ y,
    };
    // Both fit the wider type, so the result does too.
    Some(match (a, b) {
        (Value::Int8(_), _) | (_, Value::Int8(_)) => Value::Int8(bits),
        (Value::Int4(_), _) | (_, Value::Int4(_)) => Value::Int4(bits as i32),
        _ => Value::Int2(bits as i16),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shifts_count_modulo_the_width_and_int2_keeps_its_low_bits() {
        let shl = BinaryOperator::PGBitwiseShiftLeft;
        let shr = BinaryOperator::PGBitwiseShiftRight;
        assert_eq!(
            apply(&shl, &Value::Int4(1), &Value::Int4(32)),
            Some(Value::Int4(1))
        );
        assert_eq!(
            apply(&shl, &Value::Int2(1), &Value::Int4(16)),
            Some(Value::Int2(0))
        );
        assert_eq!(
            apply(&shl, &Value::Int2(1), &Value::Int4(15)),
            Some(Value::Int2(i16::MIN))
        );
        assert_eq!(
            apply(&shr, &Value::Int8(-16), &Value::Int4(2)),
            Some(Value::Int8(-4))
        );
        assert_eq!(
            apply(
                &BinaryOperator::PGBitwiseXor,
                &Value::Int2(5),
                &Value::Int8(3)
            ),
            Some(Value::Int8(6))
        );
    }
}
