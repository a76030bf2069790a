//! `width_bucket(operand, low, high, count)`: which of `count` equal-width
//! buckets between `low` and `high` holds `operand` (0 below the range,
//! `count + 1` at or past its end; `low > high` counts down), and
//! `width_bucket(operand, thresholds)`: how many of a sorted array's
//! thresholds are at or below `operand`. PostgreSQL 15's results and
//! errors (2201G for a bad count or range, 22003 when `count + 1`
//! overflows).
//!
//! The four-argument form is double precision's or numeric's as
//! PostgreSQL picks: numeric when an argument is numeric and none is a
//! float (`width_bucket(5.35, 0.024, 10.06, 5)`), else double precision
//! (`width_bucket(5, 0, 10, 5)`: all integers). The double precision form
//! computes as PostgreSQL 15 does, `count * (operand - low) / (high -
//! low) + 1`, so a quotient that rounds (`0.1` of `0.3` in 3 buckets is
//! bucket 2) and an overflow to infinity or NaN (`-2147483648`, C's cast
//! of it) come out alike; the numeric form is exact.

use crate::error::SqlError;
use folio_row::{Numeric, Rounding, SqlType, Value};

/// How many of PostgreSQL's forms fit arguments of `types` (`None`: an
/// unknown literal): the four-argument form takes numbers and an
/// integer count (not a bigint), the two-argument form an array.
pub fn fits(types: &[Option<SqlType>]) -> bool {
    use SqlType::*;
    let number = |t: &Option<SqlType>| {
        t.as_ref()
            .is_none_or(|t| matches!(t, Int2 | Int4 | Int8 | Numeric(_) | Float4 | Float8))
    };
    match types {
        [operand, low, high, count] => {
            number(operand)
                && number(low)
                && number(high)
                && count.as_ref().is_none_or(|t| matches!(t, Int2 | Int4))
        }
        [_, thresholds] => thresholds
            .as_ref()
            .is_none_or(|t| matches!(t, SqlType::Array(_))),
        _ => false,
    }
}

/// The bucket (no argument NULL: the function is strict).
pub fn eval(args: &[Value]) -> Result<Value, SqlError> {
    match args {
        [operand, thresholds] => of_thresholds(operand, thresholds),
        [operand, low, high, count] => {
            let count = i32::try_from(crate::functions::int_arg(count)?)
                .map_err(|_| SqlError::new("22003", "integer out of range"))?;
            if count <= 0 {
                return Err(SqlError::new("2201G", "count must be greater than zero"));
            }
            let bounds = [operand, low, high];
            let float = bounds
                .iter()
                .any(|v| matches!(v, Value::Float4(_) | Value::Float8(_)));
            let numeric = bounds.iter().any(|v| matches!(v, Value::Numeric(_)));
            if numeric && !float {
                let [operand, low, high] = bounds.map(as_numeric);
                of_numerics(operand?, low?, high?, count)
            } else {
                let [operand, low, high] = bounds.map(as_float);
                of_floats(operand?, low?, high?, count)
            }
            .map(Value::Int4)
        }
        _ => unreachable!("width_bucket takes 2 or 4 arguments"),
    }
}

fn as_float(v: &Value) -> Result<f64, SqlError> {
    match crate::types::cast(v.clone(), SqlType::Float8)? {
        Value::Float8(x) => Ok(x),
        other => Err(mismatch("double precision", &other)),
    }
}

fn as_numeric(v: &Value) -> Result<Numeric, SqlError> {
    match crate::types::cast(v.clone(), SqlType::Numeric(None))? {
        Value::Numeric(x) => Ok(x),
        other => Err(mismatch("numeric", &other)),
    }
}

/// 42883 for an argument of a type no form takes (the binder's
/// [`fits`] refuses most before a call).
fn mismatch(wanted: &str, got: &Value) -> SqlError {
    crate::functions::no_match(format!(
        "function width_bucket with a {} argument where {wanted} is wanted does not exist",
        got.type_name()
    ))
}

fn nan() -> SqlError {
    SqlError::new(
        "2201G",
        "operand, lower bound, and upper bound cannot be NaN",
    )
}

fn equal_bounds() -> SqlError {
    SqlError::new("2201G", "lower bound cannot equal upper bound")
}

/// `count + 1`, the bucket past the range.
fn past_end(count: i32) -> Result<i32, SqlError> {
    count
        .checked_add(1)
        .ok_or_else(|| SqlError::new("22003", "integer out of range"))
}

/// A double as C's cast to a 32-bit integer gives it on the machines
/// PostgreSQL runs on: truncated, and NaN or out of range as the
/// smallest integer.
fn c_int(x: f64) -> i32 {
    if x.is_nan() || x <= f64::from(i32::MIN) - 1.0 || x >= f64::from(i32::MAX) + 1.0 {
        i32::MIN
    } else {
        x as i32
    }
}

fn of_floats(operand: f64, low: f64, high: f64, count: i32) -> Result<i32, SqlError> {
    if operand.is_nan() || low.is_nan() || high.is_nan() {
        return Err(nan());
    }
    if low.is_infinite() || high.is_infinite() {
        return Err(SqlError::new(
            "2201G",
            "lower and upper bounds must be finite",
        ));
    }
    let count_f = f64::from(count);
    if low < high {
        if operand < low {
            Ok(0)
        } else if operand >= high {
            past_end(count)
        } else {
            Ok(c_int(count_f * (operand - low) / (high - low) + 1.0))
        }
    } else if low > high {
        if operand > low {
            Ok(0)
        } else if operand <= high {
            past_end(count)
        } else {
            Ok(c_int(count_f * (low - operand) / (low - high) + 1.0))
        }
    } else {
        Err(equal_bounds())
    }
}

fn of_numerics(operand: Numeric, low: Numeric, high: Numeric, count: i32) -> Result<i32, SqlError> {
    if [operand.clone(), low.clone(), high.clone()]
        .iter()
        .any(|n| n.is_nan())
    {
        return Err(nan());
    }
    // An infinite operand is before or past every bucket (compared below).
    if low.is_infinite() || high.is_infinite() {
        return Err(SqlError::new(
            "2201G",
            "lower and upper bounds must be finite",
        ));
    }
    let order =
        |a: Numeric, b: Numeric| crate::scalar::compare(&Value::Numeric(a), &Value::Numeric(b));
    let (from_low, width) = match order(low.clone(), high.clone())? {
        Some(std::cmp::Ordering::Less) => {
            if order(operand.clone(), low.clone())?.is_some_and(|o| o.is_lt()) {
                return Ok(0);
            }
            if order(operand.clone(), high.clone())?.is_some_and(|o| o.is_ge()) {
                return past_end(count);
            }
            (operand.checked_sub(&low)?, high.checked_sub(&low)?)
        }
        Some(std::cmp::Ordering::Greater) => {
            if order(operand.clone(), low.clone())?.is_some_and(|o| o.is_gt()) {
                return Ok(0);
            }
            if order(operand.clone(), high.clone())?.is_some_and(|o| o.is_le()) {
                return past_end(count);
            }
            (low.checked_sub(&operand)?, low.checked_sub(&high)?)
        }
        _ => return Err(equal_bounds()),
    };
    // (The quotient is below `count`: an i32.)
    let scaled = from_low.checked_mul(&Numeric::from_i64(i64::from(count)))?;
    let bucket = scaled
        .checked_div(&width, 0, Rounding::TowardZero)?
        .and_then(|q| q.parts())
        .and_then(|(mantissa, _)| i32::try_from(mantissa).ok())
        .expect("a bucket below count");
    Ok(bucket + 1)
}

/// The array form: how many thresholds are at or below `operand` (the
/// thresholds sorted, as PostgreSQL assumes: found by binary search).
fn of_thresholds(operand: &Value, thresholds: &Value) -> Result<Value, SqlError> {
    let Value::Array(items) = thresholds else {
        return Err(mismatch("an array", thresholds));
    };
    if items.iter().any(|v| matches!(v, Value::Array(_))) {
        return Err(SqlError::new(
            "2202E",
            "thresholds must be one-dimensional array",
        ));
    }
    if items.contains(&Value::Null) {
        return Err(SqlError::new(
            "22004",
            "thresholds array must not contain NULLs",
        ));
    }
    let (mut left, mut right) = (0, items.len());
    while left < right {
        let mid = (left + right) / 2;
        let below = crate::scalar::compare(operand, &items[mid])?.is_some_and(|o| o.is_lt());
        if below {
            right = mid;
        } else {
            left = mid + 1;
        }
    }
    Ok(Value::Int4(left as i32))
}

#[cfg(test)]
mod tests {
    use super::*;

    // Proves PostgreSQL 15's buckets for both forms, among them a
    // quotient that rounds up and the overflow to C's smallest integer.
    #[test]
    fn buckets_as_postgresql() {
        assert_eq!(of_floats(5.0, 0.0, 10.0, 5).unwrap(), 3);
        assert_eq!(of_floats(0.1, 0.0, 0.3, 3).unwrap(), 2);
        assert_eq!(of_floats(5.0, 10.0, 0.0, 5).unwrap(), 3);
        assert_eq!(of_floats(f64::INFINITY, 0.0, 10.0, 3).unwrap(), 4);
        assert_eq!(of_floats(1e300, -1e308, 1e308, 10).unwrap(), i32::MIN);
        assert_eq!(
            of_floats(11.0, 0.0, 10.0, i32::MAX).unwrap_err().code,
            "22003"
        );
        let n = |s: &str| Numeric::parse(s).unwrap();
        assert_eq!(
            of_numerics(n("5.35"), n("0.024"), n("10.06"), 5).unwrap(),
            3
        );
        assert_eq!(of_numerics(n("0.1"), n("0"), n("0.3"), 3).unwrap(), 2);
        assert_eq!(of_numerics(n("5.0"), n("10"), n("0"), 3).unwrap(), 2);
    }
}
