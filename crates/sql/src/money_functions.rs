//! The `money` type's operators, casts and functions (PostgreSQL 15's
//! `cash.c`; the values and text forms are folio-row `money.rs`). The
//! one place that says which operand types each operator takes
//! ([`result_type`]) and what it gives ([`apply`]).
//!
//! | call | result |
//! |---|---|
//! | `money + money`, `money - money` | money (22003 `money out of range` past the 64-bit count) |
//! | `money * n`, `n * money`, `money / n` (n: int2, int4, int8) | money; division truncates toward zero, by zero 22012 |
//! | `money * f`, `f * money`, `money / f` (f: float4, float8; a numeric is a float8 here, as PostgreSQL casts it) | money, rounded half to even (`rint`); NaN, an infinity or a result past the range 22003 |
//! | `money / money` | float8 |
//! | `cashlarger`, `cashsmaller` | money |
//! | `cash_words(money)` | text: the amount in English words |
//! | casts `money -> numeric`, `numeric / int4 / int8 -> money` | |
//!
//! Comparisons and the order are the count's (folio-row `Value::sql_cmp`,
//! keys tag 33); `sum`, `min` and `max` are `aggregate.rs`'s (a sum past
//! the range is 22003 too). There is no `avg(money)`, as in PostgreSQL.

use crate::error::SqlError;
use folio_row::money::CENTS_PER_UNIT;
use folio_row::{Numeric, SqlType, Value};
use sqlparser::ast::BinaryOperator;

/// A function of money values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MoneyFunc {
    /// `cashlarger(money, money)`.
    Larger,
    /// `cashsmaller(money, money)`.
    Smaller,
    /// `cash_words(money)`.
    Words,
}

const NAMES: [(&str, MoneyFunc); 3] = [
    ("cashlarger", MoneyFunc::Larger),
    ("cashsmaller", MoneyFunc::Smaller),
    ("cash_words", MoneyFunc::Words),
];

impl MoneyFunc {
    pub fn of(name: &str) -> Option<MoneyFunc> {
        crate::names::lookup(&NAMES, name)
    }

    pub fn name(self) -> Option<&'static str> {
        crate::names::name_in(&NAMES, &self)
    }

    pub fn takes(self, count: usize) -> bool {
        count
            == match self {
                MoneyFunc::Words => 1,
                MoneyFunc::Larger | MoneyFunc::Smaller => 2,
            }
    }

    /// Whether arguments of these types (`None`: untyped) fit.
    pub fn fits(self, types: &[Option<SqlType>]) -> bool {
        types.iter().flatten().all(|t| *t == SqlType::Money)
    }

    pub fn ty(self) -> SqlType {
        match self {
            MoneyFunc::Words => SqlType::Text,
            _ => SqlType::Money,
        }
    }

    /// The value of a call (strict: the caller gives NULL for a NULL
    /// argument).
    pub fn eval(self, args: &[Value]) -> Result<Value, SqlError> {
        let cents = |v: &Value| match crate::types::coerce(v.clone(), SqlType::Money)? {
            Value::Money(c) => Ok(c),
            other => Err(crate::functions::no_operator(format!(
                "function {}({}) does not exist",
                self.name().unwrap_or("cash"),
                other.type_name()
            ))),
        };
        Ok(match self {
            MoneyFunc::Larger => Value::Money(cents(&args[0])?.max(cents(&args[1])?)),
            MoneyFunc::Smaller => Value::Money(cents(&args[0])?.min(cents(&args[1])?)),
            MoneyFunc::Words => Value::Text(words(cents(&args[0])?)),
        })
    }
}

/// 22003 `money out of range`.
fn out_of_range() -> SqlError {
    SqlError::new("22003", "money out of range")
}

fn division_by_zero() -> SqlError {
    SqlError::new("22012", "division by zero")
}

/// The kind of the other operand of a money operator.
#[derive(Clone, Copy, PartialEq)]
enum Operand {
    Money,
    Integer,
    Float,
}

fn operand(ty: SqlType) -> Option<Operand> {
    match ty {
        SqlType::Money => Some(Operand::Money),
        SqlType::Int2 | SqlType::Int4 | SqlType::Int8 => Some(Operand::Integer),
        SqlType::Float4 | SqlType::Float8 | SqlType::Numeric(_) => Some(Operand::Float),
        _ => None,
    }
}

/// The type of `a op b` when either side is money; `None` when neither
/// is, or when PostgreSQL has no such operator (the caller's 42883).
pub fn result_type(op: &BinaryOperator, a: SqlType, b: SqlType) -> Option<SqlType> {
    if a != SqlType::Money && b != SqlType::Money {
        return None;
    }
    use Operand::*;
    match (op, operand(a)?, operand(b)?) {
        (BinaryOperator::Plus | BinaryOperator::Minus, Money, Money) => Some(SqlType::Money),
        (BinaryOperator::Divide, Money, Money) => Some(SqlType::Float8),
        (BinaryOperator::Multiply, Money, Integer | Float)
        | (BinaryOperator::Multiply, Integer | Float, Money)
        | (BinaryOperator::Divide, Money, Integer | Float) => Some(SqlType::Money),
        _ => None,
    }
}

/// The value of `a op b` when either side is money (neither NULL);
/// `None` otherwise.
pub fn apply(op: &BinaryOperator, a: &Value, b: &Value) -> Option<Result<Value, SqlError>> {
    if !matches!(a, Value::Money(_)) && !matches!(b, Value::Money(_)) {
        return None;
    }
    let (x, y) = (crate::scalar::value_type(a), crate::scalar::value_type(b));
    if result_type(op, x, y).is_none() {
        return Some(Err(crate::functions::no_operator(format!(
            "operator does not exist: {} {op} {}",
            x.name(),
            y.name()
        ))));
    }
    Some(evaluate(op, a, b))
}

fn evaluate(op: &BinaryOperator, a: &Value, b: &Value) -> Result<Value, SqlError> {
    let integer = |v: &Value| match v {
        Value::Int2(x) => Some(i64::from(*x)),
        Value::Int4(x) => Some(i64::from(*x)),
        Value::Int8(x) => Some(*x),
        _ => None,
    };
    let float = |v: &Value| match v {
        Value::Float4(x) => Some(f64::from(*x)),
        Value::Float8(x) => Some(*x),
        Value::Numeric(_) => match crate::types::coerce(v.clone(), SqlType::Float8) {
            Ok(Value::Float8(x)) => Some(x),
            _ => None,
        },
        _ => None,
    };
    Ok(match (op, a, b) {
        (BinaryOperator::Plus, Value::Money(x), Value::Money(y)) => {
            Value::Money(x.checked_add(*y).ok_or_else(out_of_range)?)
        }
        (BinaryOperator::Minus, Value::Money(x), Value::Money(y)) => {
            Value::Money(x.checked_sub(*y).ok_or_else(out_of_range)?)
        }
        (BinaryOperator::Divide, Value::Money(x), Value::Money(y)) => {
            if *y == 0 {
                return Err(division_by_zero());
            }
            Value::Float8(*x as f64 / *y as f64)
        }
        (BinaryOperator::Multiply, Value::Money(c), n)
        | (BinaryOperator::Multiply, n, Value::Money(c)) => match (integer(n), float(n)) {
            (Some(i), _) => Value::Money(c.checked_mul(i).ok_or_else(out_of_range)?),
            (None, Some(f)) => Value::Money(rounded(*c as f64 * f)?),
            _ => unreachable!("result_type admitted it"),
        },
        (BinaryOperator::Divide, Value::Money(c), n) => match (integer(n), float(n)) {
            (Some(0), _) => return Err(division_by_zero()),
            (Some(i), _) => Value::Money(c.checked_div(i).ok_or_else(out_of_range)?),
            (None, Some(0.0)) => return Err(division_by_zero()),
            (None, Some(f)) => Value::Money(rounded(*c as f64 / f)?),
            _ => unreachable!("result_type admitted it"),
        },
        _ => unreachable!("result_type admitted it"),
    })
}

/// A float amount of cents as a count, rounded half to even; 22003 when
/// it is NaN or past the range.
fn rounded(cents: f64) -> Result<i64, SqlError> {
    let r = cents.round_ties_even();
    // i64::MAX is not a float: 2^63 is the first one past the range.
    if r.is_nan() || r < -(2f64.powi(63)) || r >= 2f64.powi(63) {
        return Err(out_of_range());
    }
    Ok(r as i64)
}

/// The casts of money (`types::cast` hands over every cast from or to
/// money but text's): to numeric, from numeric, int4 and int8; none
/// other (42846).
pub fn cast(value: Value, ty: SqlType) -> Result<Value, SqlError> {
    let unit = Numeric::from_i64(CENTS_PER_UNIT);
    match (value, ty) {
        (v @ Value::Money(_), SqlType::Money) => Ok(v),
        (Value::Money(c), SqlType::Numeric(_)) => {
            let n = Numeric::new(i128::from(c), 2)?;
            crate::types::coerce(Value::Numeric(n), ty)
        }
        (Value::Numeric(n), SqlType::Money) => {
            let cents = n.checked_mul(&unit)?;
            match crate::types::cast(Value::Numeric(cents), SqlType::Int8)? {
                Value::Int8(c) => Ok(Value::Money(c)),
                other => Ok(other),
            }
        }
        (Value::Int4(x), SqlType::Money) => whole_units(i64::from(x)),
        (Value::Int8(x), SqlType::Money) => whole_units(x),
        (v, ty) => Err(crate::types::no_cast_from(
            crate::scalar::value_type(&v),
            ty,
        )),
    }
}

/// `units` dollars as cents (PostgreSQL's `int8mul`: `bigint out of
/// range`).
fn whole_units(units: i64) -> Result<Value, SqlError> {
    units
        .checked_mul(CENTS_PER_UNIT)
        .map(Value::Money)
        .ok_or_else(|| SqlError::new("22003", "bigint out of range"))
}

/// The words of `n`, 0 to 999 (PostgreSQL's `num_word`).
fn number_words(n: u64) -> String {
    const SMALL: [&str; 20] = [
        "zero",
        "one",
        "two",
        "three",
        "four",
        "five",
        "six",
        "seven",
        "eight",
        "nine",
        "ten",
        "eleven",
        "twelve",
        "thirteen",
        "fourteen",
        "fifteen",
        "sixteen",
        "seventeen",
        "eighteen",
        "nineteen",
    ];
    const TENS: [&str; 10] = [
        "", "ten", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety",
    ];
    debug_assert!(n < 1000);
    let below_hundred = |t: u64| -> String {
        match t {
            0..=19 => SMALL[t as usize].to_string(),
            _ if t.is_multiple_of(10) => TENS[(t / 10) as usize].to_string(),
            _ => format!("{} {}", TENS[(t / 10) as usize], SMALL[(t % 10) as usize]),
        }
    };
    let (hundreds, rest) = (n / 100, n % 100);
    match (hundreds, rest) {
        (0, _) => below_hundred(rest),
        (_, 0) => format!("{} hundred", SMALL[hundreds as usize]),
        // "and" only before a number under twenty, as PostgreSQL's.
        (_, 1..=19) => format!(
            "{} hundred and {}",
            SMALL[hundreds as usize], SMALL[rest as usize]
        ),
        _ => format!(
            "{} hundred {}",
            SMALL[hundreds as usize],
            below_hundred(rest)
        ),
    }
}

/// The amount in words (PostgreSQL's `cash_words`): `One hundred
/// twenty three dollars and zero cents`.
fn words(cents: i64) -> String {
    let magnitude = cents.unsigned_abs();
    let mut out = String::new();
    if cents < 0 {
        out.push_str("minus ");
    }
    let dollars = magnitude / 100;
    let mut any = false;
    for (scale, name) in [
        (100_000_000_000_000_000u64 / 100, " quadrillion "),
        (1_000_000_000_000, " trillion "),
        (1_000_000_000, " billion "),
        (1_000_000, " million "),
        (1_000, " thousand "),
        (1, ""),
    ] {
        let group = (dollars / scale) % 1000;
        if group != 0 {
            out.push_str(&number_words(group));
            out.push_str(name);
            any = true;
        }
    }
    if !any {
        out.push_str("zero");
    }
    out.push_str(if dollars == 1 {
        " dollar and "
    } else {
        " dollars and "
    });
    let fraction = magnitude % 100;
    out.push_str(&number_words(fraction));
    out.push_str(if fraction == 1 { " cent" } else { " cents" });
    let mut chars = out.chars();
    match chars.next() {
        Some(first) => first.to_ascii_uppercase().to_string() + chars.as_str(),
        None => out,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// PostgreSQL 15's `cash_words` for the amounts of its money.sql and
    /// the edges of each scale.
    #[test]
    fn cash_words_are_postgresql_s() {
        assert_eq!(
            words(12300),
            "One hundred twenty three dollars and zero cents"
        );
        assert_eq!(
            words(12423),
            "One hundred twenty four dollars and twenty three cents"
        );
        assert_eq!(words(101), "One dollar and one cent");
        assert_eq!(words(0), "Zero dollars and zero cents");
        assert_eq!(words(-5), "Minus zero dollars and five cents");
        assert_eq!(
            words(1_000_010_500),
            "Ten million one hundred and five dollars and zero cents"
        );
    }

    /// Division rounds for floats and truncates for integers (money.sql).
    #[test]
    fn division_rounds_or_truncates() {
        let div = |n: Value| evaluate(&BinaryOperator::Divide, &Value::Money(87808), &n).unwrap();
        assert_eq!(div(Value::Float8(11.0)), Value::Money(7983));
        assert_eq!(div(Value::Int4(11)), Value::Money(7982));
        assert!(
            evaluate(
                &BinaryOperator::Multiply,
                &Value::Money(4200),
                &Value::Float8(f64::NAN)
            )
            .is_err()
        );
    }
}
