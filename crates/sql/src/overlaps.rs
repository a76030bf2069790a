//! The SQL `OVERLAPS` predicate, `(start1, end1) OVERLAPS (start2,
//! end2)`, and PostgreSQL's function `overlaps(s1, e1, s2, e2)` it
//! stands for ([`call`]).
//!
//! The periods are of times, timetz, timestamps or timestamptz (dates are
//! read as timestamps); an end may be an interval instead, the length of
//! its period (not for timetz, as in PostgreSQL). A period whose end is
//! before its start is turned around. Each is the half-open span `start
//! <= t < end`, or the one instant when the two are equal; two periods
//! overlap when they share a moment, so equal starts always overlap.
//!
//! NULLs as PostgreSQL's (`overlaps_timestamp`): a period with a NULL
//! start takes its end as start and an unknown end; with both unknown the
//! answer is NULL. Then the answer is NULL only where an unknown end
//! would decide it: the later-starting period's start is compared with
//! the earlier one's end (NULL if that end is unknown; true when before
//! it), and when it is not before it, false needs the other end known
//! too (PostgreSQL gives NULL there).

use crate::error::SqlError;
use folio_row::{SqlType, Value};
use sqlparser::ast::{BinaryOperator, Expr, Ident, ObjectName};

/// `overlaps(s1, e1, s2, e2)` for `(s1, e1) OVERLAPS (s2, e2)`; each side
/// must be a row of two (42601 otherwise, PostgreSQL's message).
pub fn call(left: &Expr, right: &Expr) -> Result<Expr, SqlError> {
    let pair = |e: &Expr, side: &str| match e {
        Expr::Tuple(items) if items.len() == 2 => Ok(items.clone()),
        _ => Err(SqlError::new(
            "42601",
            format!("wrong number of parameters on {side} side of OVERLAPS expression"),
        )),
    };
    let mut args = pair(left, "left")?;
    args.extend(pair(right, "right")?);
    let name = ObjectName::from(vec![Ident::new("pg_catalog"), Ident::new("overlaps")]);
    Ok(crate::call_expr::call_of(name, args))
}

/// Whether a call with arguments of `types` (`None`: unknown) has an
/// `overlaps` of PostgreSQL's to call: four arguments, all of one family
/// (dates and timestamps, times, timetz), an interval allowed as an end
/// but not with timetz.
pub fn fits(types: &[Option<SqlType>]) -> bool {
    use SqlType::*;
    let family = |t: &SqlType| match t {
        Date | Timestamp(_) | TimestampTz(_) => Some(0),
        Time(_) => Some(1),
        TimeTz(_) => Some(2),
        _ => None,
    };
    let mut families = Vec::new();
    for (i, t) in types.iter().enumerate() {
        match t {
            None => {}
            Some(Interval(_)) if i % 2 == 1 => {}
            Some(t) => match family(t) {
                Some(f) => families.push(f),
                None => return false,
            },
        }
    }
    let interval = types.iter().any(|t| matches!(t, Some(Interval(_))));
    types.len() == 4
        && families.windows(2).all(|w| w[0] == w[1])
        && !(interval && families.first() == Some(&2))
}

/// The type the four arguments are compared as: the first of timestamptz,
/// timestamp (also for dates), time and timetz among them; `None` when
/// PostgreSQL has no `overlaps` for these types.
fn common_type(args: &[Value]) -> Option<SqlType> {
    let kind = |v: &Value| match v {
        Value::TimestampTz(_) => Some(SqlType::TimestampTz(None)),
        Value::Timestamp(_) | Value::Date(_) => Some(SqlType::Timestamp(None)),
        Value::Time(_) => Some(SqlType::Time(None)),
        Value::TimeTz(_) => Some(SqlType::TimeTz(None)),
        _ => None,
    };
    let kinds: Vec<SqlType> = args.iter().filter_map(kind).collect();
    let has = |t: SqlType| kinds.contains(&t);
    if has(SqlType::TimestampTz(None)) {
        Some(SqlType::TimestampTz(None))
    } else if has(SqlType::Timestamp(None)) {
        Some(SqlType::Timestamp(None))
    } else {
        kinds.first().copied()
    }
}

/// A moment of a period as a number that orders as the moments do
/// (timetz: its UTC time, as PostgreSQL compares timetz).
fn moment(v: Value, ty: SqlType) -> Result<Option<i64>, SqlError> {
    Ok(match crate::types::cast(v, ty)? {
        Value::Null => None,
        Value::TimestampTz(t) | Value::Timestamp(t) | Value::Time(t) => Some(t),
        Value::TimeTz(t) => Some(t.time + i64::from(t.zone) * 1_000_000),
        other => unreachable!("coerced to {ty:?}: {other:?}"),
    })
}

/// `overlaps(s1, e1, s2, e2)`: the answer, NULLs as the module says.
pub fn eval(args: Vec<Value>) -> Result<Value, SqlError> {
    let no_function = || {
        let types: Vec<&str> = args.iter().map(Value::type_name).collect();
        crate::functions::no_match(format!(
            "function pg_catalog.overlaps({}) does not exist",
            types.join(", ")
        ))
    };
    let Some(ty) = common_type(&args) else {
        return Err(no_function());
    };
    let mut moments = [None; 4];
    for (i, v) in args.iter().enumerate() {
        let v = match v {
            Value::Interval(_) if i % 2 == 1 && !matches!(ty, SqlType::TimeTz(_)) => {
                let start = crate::types::cast(args[i - 1].clone(), ty)?;
                match start {
                    Value::Null => Value::Null,
                    start => crate::date_arith::apply(&BinaryOperator::Plus, &start, v)
                        .unwrap_or_else(|| Err(no_function()))?,
                }
            }
            Value::Interval(_) => return Err(no_function()),
            v => v.clone(),
        };
        moments[i] = moment(v, ty)?;
    }
    let [s1, e1, s2, e2] = moments;
    Ok(match (period(s1, e1), period(s2, e2)) {
        (Some(a), Some(b)) => answer(a, b).map_or(Value::Null, Value::Bool),
        _ => Value::Null,
    })
}

/// A period's start and end (`None`: unknown), turned around when the end
/// is before the start; `None` when both are unknown.
fn period(start: Option<i64>, end: Option<i64>) -> Option<(i64, Option<i64>)> {
    match (start, end) {
        (Some(s), Some(e)) => Some((s.min(e), Some(s.max(e)))),
        (known, other) => Some((known.or(other)?, None)),
    }
}

/// Whether two periods overlap (`None`: unknown).
fn answer(a: (i64, Option<i64>), b: (i64, Option<i64>)) -> Option<bool> {
    let ((s1, e1), (s2, e2)) = (a, b);
    if s1 == s2 {
        // Equal starts overlap, but PostgreSQL answers NULL when either
        // end is unknown.
        return (e1.is_some() && e2.is_some()).then_some(true);
    }
    // `early` starts first: the two overlap when `late` starts before
    // `early` ends.
    let ((_, early_end), (late_start, late_end)) = if s1 < s2 { (a, b) } else { (b, a) };
    if late_start < early_end? {
        return Some(true);
    }
    late_end.map(|_| false)
}

#[cfg(test)]
mod tests {
    use super::*;

    // Proves the half-open spans, turned-around periods, equal starts and
    // the NULL cases as PostgreSQL 15 answers them.
    #[test]
    fn periods_overlap_as_postgres_says() {
        type Ends = (Option<i64>, Option<i64>);
        let ask = |a: Ends, b: Ends| answer(period(a.0, a.1).unwrap(), period(b.0, b.1).unwrap());
        assert_eq!(ask((Some(1), Some(5)), (Some(4), Some(6))), Some(true));
        assert_eq!(ask((Some(5), Some(6)), (Some(6), Some(7))), Some(false));
        assert_eq!(ask((Some(5), Some(1)), (Some(4), Some(4))), Some(true));
        assert_eq!(ask((Some(5), Some(5)), (Some(5), Some(5))), Some(true));
        assert_eq!(ask((Some(1), None), (Some(4), Some(6))), None);
        assert_eq!(ask((Some(5), None), (Some(4), Some(6))), Some(true));
        assert_eq!(ask((None, Some(5)), (Some(4), Some(6))), Some(true));
        assert_eq!(ask((Some(7), None), (Some(4), Some(6))), None);
        assert_eq!(ask((Some(7), Some(8)), (Some(4), Some(6))), Some(false));
        assert_eq!(ask((Some(4), None), (Some(4), Some(6))), None);
        assert_eq!(period(None, None), None);
    }
}
