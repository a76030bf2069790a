//! Arithmetic on dates, timestamps and intervals: PostgreSQL's operators
//! among them, the one place that says which pairs exist, what type each
//! gives ([`result_type`]) and its value ([`apply`]).
//!
//! | left | op | right | result |
//! |---|---|---|---|
//! | date | `+` `-` | integer | date (days) |
//! | date | `-` | date | integer (days between) |
//! | date, timestamp, timestamptz | `+` `-` | interval | timestamp (date, timestamp) or timestamptz |
//! | interval | `+` | date, timestamp, timestamptz | as above |
//! | timestamp[tz] (or date) | `-` | timestamp[tz] (or date, not both) | interval, hours justified into days |
//! | interval | `+` `-` | interval | interval |
//! | interval | `*` `/` | number | interval (`interval_mul`, `interval_div`) |
//! | number | `*` | interval | interval |
//! | time | `-` | time | interval |
//! | time | `+` `-` | interval | time, wrapped into a day (`time_of_day.rs`) |
//! | interval | `+` | time | time |
//! | date | `+` | time | timestamp |
//! | time | `+` | date | timestamp |
//! | date | `-` | time | timestamp (the time before the date's midnight) |
//! | timetz | `+` `-` | interval | timetz, wrapped into a day, its zone kept (`time_with_zone.rs`) |
//! | interval | `+` | timetz | timetz |
//! | date | `+` | timetz | timestamptz (the date's clock in the timetz's zone) |
//! | timetz | `+` | date | timestamptz |
//!
//! Sessions are in UTC, so timestamp and timestamptz share the arithmetic.

use crate::error::SqlError;
use folio_row::{Infinity, Interval, SqlType, Value};
use sqlparser::ast::BinaryOperator;

/// The kinds of operand the table above tells apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Date,
    /// A timestamp, `true` with a time zone.
    Stamp(bool),
    /// A time of day (`time`).
    Time,
    /// A time of day with its zone (`timetz`).
    TimeTz,
    Interval,
    Integer,
    Number,
}

fn kind(ty: SqlType) -> Option<Kind> {
    Some(match ty {
        SqlType::Date => Kind::Date,
        SqlType::Timestamp(_) => Kind::Stamp(false),
        SqlType::TimestampTz(_) => Kind::Stamp(true),
        SqlType::Time(_) => Kind::Time,
        SqlType::TimeTz(_) => Kind::TimeTz,
        SqlType::Interval(_) => Kind::Interval,
        SqlType::Int2 | SqlType::Int4 | SqlType::Int8 => Kind::Integer,
        SqlType::Float4 | SqlType::Float8 | SqlType::Numeric(_) => Kind::Number,
        _ => return None,
    })
}

/// What `a op b` is, when it is date/time arithmetic: the result's type.
/// `None` when neither side is a date, timestamp or interval, or the pair
/// has no such operator (the caller's own arithmetic, or its error).
pub fn result_type(op: &BinaryOperator, a: SqlType, b: SqlType) -> Option<SqlType> {
    use BinaryOperator::{Divide, Minus, Multiply, Plus};
    use Kind::*;
    let (x, y) = (kind(a)?, kind(b)?);
    let stamp = |zoned: bool| {
        if zoned {
            SqlType::TimestampTz(None)
        } else {
            SqlType::Timestamp(None)
        }
    };
    Some(match (op, x, y) {
        (Plus | Minus, Date, Integer) | (Plus, Integer, Date) => SqlType::Date,
        (Minus, Date, Date) => SqlType::Int4,
        (Plus | Minus, Date, Interval) | (Plus, Interval, Date) => SqlType::Timestamp(None),
        (Plus | Minus, Stamp(z), Interval) | (Plus, Interval, Stamp(z)) => stamp(z),
        (Minus, Stamp(_) | Date, Stamp(_)) | (Minus, Stamp(_), Date) => SqlType::Interval(None),
        (Minus, Time, Time) => SqlType::Interval(None),
        (Plus | Minus, Time, Interval) | (Plus, Interval, Time) => SqlType::Time(None),
        (Plus, Date, Time) | (Plus, Time, Date) | (Minus, Date, Time) => SqlType::Timestamp(None),
        (Plus | Minus, TimeTz, Interval) | (Plus, Interval, TimeTz) => SqlType::TimeTz(None),
        (Plus, Date, TimeTz) | (Plus, TimeTz, Date) => SqlType::TimestampTz(None),
        (Plus | Minus, Interval, Interval)
        | (Multiply | Divide, Interval, Integer | Number)
        | (Multiply, Integer | Number, Interval) => SqlType::Interval(None),
        _ => return None,
    })
}

/// The value of `a op b` for the pairs of [`result_type`] (neither side
/// NULL); `None` for other pairs, but a time's or a timetz's:
/// PostgreSQL's 42883 (and 42725 for `time + time`, which its implicit
/// cast of a time to an interval makes ambiguous).
pub fn apply(op: &BinaryOperator, a: &Value, b: &Value) -> Option<Result<Value, SqlError>> {
    let (x, y) = (crate::scalar::value_type(a), crate::scalar::value_type(b));
    let Some(ty) = result_type(op, x, y) else {
        let time = |t: SqlType| matches!(t, SqlType::Time(_) | SqlType::TimeTz(_));
        if !time(x) && !time(y) {
            return None;
        }
        let both_time = matches!((x, y), (SqlType::Time(_), SqlType::Time(_)));
        let (x, y) = (x.name(), y.name());
        return Some(Err(match op {
            BinaryOperator::Plus if both_time => {
                SqlError::new("42725", format!("operator is not unique: {x} {op} {y}"))
            }
            _ => crate::functions::no_operator(format!("operator does not exist: {x} {op} {y}")),
        }));
    };
    Some(evaluate(op, a, b, ty))
}

/// The type an untyped literal (a quoted string) takes meeting a value
/// of type `other` in `a op b`: a float8 as an interval's factor or
/// divisor (PostgreSQL's `interval * float8`), else `other`'s own.
pub fn literal_type(op: &BinaryOperator, other: SqlType) -> SqlType {
    match (op, other) {
        (BinaryOperator::Multiply | BinaryOperator::Divide, SqlType::Interval(_)) => {
            SqlType::Float8
        }
        (_, SqlType::PgLsn) => crate::wal_functions::literal_type(op),
        _ => other,
    }
}

/// A date, timestamp or timestamptz as microseconds since 2000-01-01 (a
/// date as its midnight): how the three meet in arithmetic and
/// comparisons.
pub fn instant(v: &Value) -> Option<i64> {
    match v {
        Value::Date(d) => Some(folio_row::calendar::midnight(*d)),
        Value::Timestamp(t) | Value::TimestampTz(t) => Some(*t),
        _ => None,
    }
}

/// A date's midnight as a timestamp, as a cast or `date + time` makes
/// it: an infinity stays itself; a finite date past the timestamps'
/// range is PostgreSQL's 22008.
pub fn date_midnight(days: i32) -> Result<i64, SqlError> {
    let midnight = folio_row::calendar::midnight(days);
    if Infinity::of_date(days).is_none() && !folio_row::calendar::is_valid_timestamp(midnight) {
        return Err(SqlError::new("22008", "date out of range for timestamp"));
    }
    Ok(midnight)
}

/// A date's midnight on the session's clock, as a timestamptz: as
/// [`date_midnight`], and 22008 too when that midnight in UTC is past the
/// timestamps' range (`'4714-11-24 BC'` east of Greenwich).
pub fn date_midnight_in_session(days: i32) -> Result<i64, SqlError> {
    let utc = crate::time_zones::session_utc(date_midnight(days)?)?;
    if Infinity::of_date(days).is_none() && !folio_row::calendar::is_valid_timestamp(utc) {
        return Err(SqlError::new("22008", "date out of range for timestamp"));
    }
    Ok(utc)
}

/// `date + time` (microseconds after midnight, a timetz's in UTC): an
/// infinite date gives the same infinity.
fn at_time(days: i32, micros: i64) -> Result<i64, SqlError> {
    let midnight = date_midnight(days)?;
    if Infinity::of_date(days).is_some() {
        return Ok(midnight);
    }
    Ok(midnight + micros)
}

fn integer(v: &Value) -> Option<i64> {
    match v {
        Value::Int2(x) => Some(i64::from(*x)),
        Value::Int4(x) => Some(i64::from(*x)),
        Value::Int8(x) => Some(*x),
        _ => None,
    }
}

/// A number as the float8 `interval * float8` takes.
fn factor(v: &Value) -> Result<f64, SqlError> {
    match crate::types::coerce(v.clone(), SqlType::Float8)? {
        Value::Float8(x) => Ok(x),
        other => Err(crate::functions::no_operator(format!(
            "operator does not exist: interval * {}",
            other.type_name()
        ))),
    }
}

fn evaluate(op: &BinaryOperator, a: &Value, b: &Value, ty: SqlType) -> Result<Value, SqlError> {
    use BinaryOperator::{Divide, Minus, Multiply, Plus};
    // A date moved by whole days: an infinity stays itself, a finite
    // date must stay within PostgreSQL's dates.
    let date = |days: i32, by: i64| {
        if Infinity::of_date(days).is_some() {
            return Ok(Value::Date(days));
        }
        let moved = i64::from(days) + by;
        if !folio_row::calendar::is_valid_date(moved) {
            return Err(SqlError::new("22008", "date out of range"));
        }
        Ok(Value::Date(moved as i32))
    };
    let stamp = |micros: i64| match ty {
        SqlType::TimestampTz(_) => Value::TimestampTz(micros),
        _ => Value::Timestamp(micros),
    };
    // A timestamptz adds on the session zone's calendar.
    let add = |i: Interval, t: i64| -> Result<i64, SqlError> {
        match ty {
            SqlType::TimestampTz(_) => crate::time_zones::add_in_session(i, t),
            _ => Ok(i.add_to_timestamp(t)?),
        }
    };
    Ok(match (op, a, b) {
        (Minus, Value::Time(x), Value::Time(y)) => Value::Interval(Interval::new(0, 0, x - y)),
        (Plus, Value::Time(t), Value::Interval(i)) | (Plus, Value::Interval(i), Value::Time(t)) => {
            Value::Time(folio_row::time_plus_interval(*t, *i))
        }
        (Minus, Value::Time(t), Value::Interval(i)) => {
            Value::Time(folio_row::time_plus_interval(*t, i.checked_neg()?))
        }
        (Plus, Value::Date(d), Value::Time(t)) | (Plus, Value::Time(t), Value::Date(d)) => {
            Value::Timestamp(at_time(*d, *t)?)
        }
        // The time before the date's midnight (PostgreSQL's
        // `date_mi_interval` of the time as an interval).
        (Minus, Value::Date(d), Value::Time(t)) => Value::Timestamp(at_time(*d, -*t)?),
        (Plus, Value::TimeTz(t), Value::Interval(i))
        | (Plus, Value::Interval(i), Value::TimeTz(t)) => Value::TimeTz(t.plus_interval(*i)),
        (Minus, Value::TimeTz(t), Value::Interval(i)) => {
            Value::TimeTz(t.plus_interval(i.checked_neg()?))
        }
        (Plus, Value::Date(d), Value::TimeTz(t)) | (Plus, Value::TimeTz(t), Value::Date(d)) => {
            Value::TimestampTz(at_time(*d, t.utc())?)
        }
        (Minus, Value::Date(x), Value::Date(y)) => {
            if Infinity::of_date(*x).is_some() || Infinity::of_date(*y).is_some() {
                return Err(folio_row::RowError::InfiniteSubtraction("dates").into());
            }
            Value::Int4(x - y)
        }
        (Plus, Value::Date(d), n) | (Plus, n, Value::Date(d)) if integer(n).is_some() => {
            date(*d, integer(n).unwrap_or(0))?
        }
        (Minus, Value::Date(d), n) if integer(n).is_some() => date(*d, -integer(n).unwrap_or(0))?,
        (Plus, t, Value::Interval(i)) | (Plus, Value::Interval(i), t) if instant(t).is_some() => {
            stamp(add(*i, instant(t).unwrap_or(0))?)
        }
        (Minus, t, Value::Interval(i)) if instant(t).is_some() => {
            stamp(add(i.checked_neg()?, instant(t).unwrap_or(0))?)
        }
        (Minus, x, y) if instant(x).is_some() && instant(y).is_some() => Value::Interval(
            Interval::between(instant(x).unwrap_or(0), instant(y).unwrap_or(0))?,
        ),
        (Plus, Value::Interval(x), Value::Interval(y)) => Value::Interval(x.checked_add(*y)?),
        (Minus, Value::Interval(x), Value::Interval(y)) => Value::Interval(x.checked_sub(*y)?),
        (Multiply, Value::Interval(i), n) | (Multiply, n, Value::Interval(i)) => {
            Value::Interval(i.times(factor(n)?)?)
        }
        (Divide, Value::Interval(i), n) => Value::Interval(i.divided_by(factor(n)?)?),
        _ => {
            return Err(crate::functions::no_operator(format!(
                "operator does not exist: {} {op} {}",
                a.type_name(),
                b.type_name()
            )));
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use folio_row::Numeric;
    use folio_row::USECS_PER_DAY;

    // Proves the one table: for every pair of operand types and every
    // operator, `apply` gives a value exactly when `result_type` names a
    // type, and of that type.
    #[test]
    fn values_have_the_types_the_table_gives() {
        let samples = [
            Value::Date(10),
            Value::Timestamp(5 * USECS_PER_DAY),
            Value::TimestampTz(7 * USECS_PER_DAY),
            Value::Interval(Interval::new(1, 2, 3)),
            Value::Time(3_600_000_000),
            Value::TimeTz(folio_row::TimeTz::new(3_600_000_000, -7200)),
            Value::Int2(2),
            Value::Int4(2),
            Value::Int8(2),
            Value::Float8(1.5),
            Value::Numeric(Numeric::from_i64(3)),
            Value::Text("x".into()),
        ];
        use BinaryOperator::*;
        for op in [Plus, Minus, Multiply, Divide] {
            for a in &samples {
                for b in &samples {
                    let ty = result_type(
                        &op,
                        crate::scalar::value_type(a),
                        crate::scalar::value_type(b),
                    );
                    let time_kinds = [a, b].iter().any(|v| {
                        matches!(
                            v,
                            Value::Date(_)
                                | Value::Timestamp(_)
                                | Value::TimestampTz(_)
                                | Value::Time(_)
                                | Value::TimeTz(_)
                                | Value::Interval(_)
                        )
                    });
                    match apply(&op, a, b) {
                        Some(Ok(v)) => {
                            assert_eq!(Some(crate::scalar::value_type(&v)), ty, "{a:?} {op} {b:?}")
                        }
                        // A time outside the table: PostgreSQL's errors.
                        Some(Err(e))
                            if ty.is_none()
                                && [a, b]
                                    .iter()
                                    .any(|v| matches!(v, Value::Time(_) | Value::TimeTz(_))) =>
                        {
                            assert!(["42883", "42725"].contains(&e.code), "{e}")
                        }
                        Some(Err(e)) => panic!("{a:?} {op} {b:?}: {e}"),
                        None => assert!(ty.is_none(), "{a:?} {op} {b:?}"),
                    }
                    if !time_kinds {
                        assert_eq!(ty, None, "{a:?} {op} {b:?}");
                    }
                }
            }
        }
    }
}
