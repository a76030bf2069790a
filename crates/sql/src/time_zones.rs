//! Time zones in SQL: `expr AT TIME ZONE zone` / `timezone(zone, expr)`,
//! and the session zone's conversions ([`session_local`],
//! [`session_utc`]) that casts, `date_trunc`, `extract` and `to_char`
//! of a timestamptz go through.
//!
//! The zones themselves (the bundled IANA database, PostgreSQL's
//! abbreviations, POSIX-style offsets, the rule for gaps and folds) are
//! folio-row's `TimeZone`. A zone here is what `TimeZone::named` reads
//! (`'America/New_York'` in any case, `'EST'`, `'+05'`: positive is
//! *west*, as PostgreSQL reads it) or an interval (`INTERVAL '+05:00'`:
//! positive is east, ISO's sense; 22023 with months or days); an unknown
//! name is PostgreSQL's 22023 `time zone "x" not recognized`.
//!
//! As PostgreSQL: a `timestamptz` AT TIME ZONE z is the `timestamp` the
//! wall clock in z shows; a `timestamp` AT TIME ZONE z is the
//! `timestamptz` at which z's clock shows it; a `timetz` AT TIME ZONE z
//! is the same instant in z's offset now (a `time` is read as a
//! `timetz`). A date or a quoted literal is read as a `timestamptz`.

use crate::error::SqlError;
use crate::functions::Func;
use crate::scalar::{Columns, Scalar};
use folio_row::{SqlType, TimeZone, Value};

const MICROS_PER_SECOND: i64 = 1_000_000;

fn out_of_range() -> SqlError {
    SqlError::new("22008", "timestamp out of range")
}

/// The session zone's clock at UTC instant `utc_us` (a timestamptz cast
/// to a timestamp or a date, truncated or taken apart).
pub fn session_local(utc_us: i64) -> Result<i64, SqlError> {
    let zone = crate::setting_functions::time_zone();
    zone.local_of_utc(utc_us).ok_or_else(out_of_range)
}

/// The UTC instant at which the session zone's clock shows `local_us`
/// (a timestamp or a date cast to a timestamptz), by PostgreSQL's rule
/// for gaps and folds (folio-row's `TimeZone::utc_of_local`).
pub fn session_utc(local_us: i64) -> Result<i64, SqlError> {
    let zone = crate::setting_functions::time_zone();
    zone.utc_of_local(local_us).ok_or_else(out_of_range)
}

/// The zone `zone` names (a text or an interval value): PostgreSQL's
/// 22023 for an unknown name, or an interval with months or days.
fn zone_of(zone: &Value) -> Result<TimeZone, SqlError> {
    match zone {
        Value::Interval(i) => {
            if i.months != 0 || i.days != 0 {
                return Err(SqlError::new(
                    "22023",
                    format!(
                        "interval time zone \"{}\" must not include months or days",
                        crate::types::text_output(zone).unwrap_or_default()
                    ),
                ));
            }
            let seconds =
                i32::try_from(i.micros / MICROS_PER_SECOND).map_err(|_| out_of_range())?;
            Ok(TimeZone::fixed(seconds))
        }
        other => {
            let name = crate::types::text_output(other).unwrap_or_default();
            TimeZone::named(&name).ok_or_else(|| {
                SqlError::new("22023", format!("time zone \"{name}\" not recognized"))
            })
        }
    }
}

/// `ts AT TIME ZONE zone` (`syntax`) and `timezone(zone, ts)`: the call,
/// its operand a `timestamp` or `timestamptz` (a date or a quoted literal
/// cast to `timestamptz`); 42883 for another type, naming
/// `pg_catalog.timezone` for the syntax as PostgreSQL does.
pub fn bind(
    ts: Scalar,
    zone: Scalar,
    syntax: bool,
    columns: &(impl Columns + ?Sized),
) -> Result<Scalar, SqlError> {
    let no_form = |zone: &Scalar, ts: &Scalar| {
        crate::functions::no_match(format!(
            "function {}timezone({}) does not exist",
            if syntax { "pg_catalog." } else { "" },
            crate::scalar::argument_types(&[zone.clone(), ts.clone()], columns)
        ))
    };
    let known = |s: &Scalar| match s {
        Scalar::Const(Value::Text(_) | Value::Null) | Scalar::Param(_) => None,
        typed => Some(typed.ty_in(columns)),
    };
    let zone_fits = known(&zone).is_none_or(|t| {
        matches!(
            t,
            SqlType::Text | SqlType::Varchar(_) | SqlType::Char(_) | SqlType::Interval(_)
        )
    });
    let ts = match known(&ts) {
        Some(SqlType::Timestamp(_) | SqlType::TimestampTz(_) | SqlType::TimeTz(_)) => ts,
        // A time is a timetz here (PostgreSQL's implicit cast).
        Some(SqlType::Time(_)) => Scalar::Cast(Box::new(ts), SqlType::TimeTz(None)),
        None | Some(SqlType::Date) => Scalar::Cast(Box::new(ts), SqlType::TimestampTz(None)),
        Some(_) => return Err(no_form(&zone, &ts)),
    };
    if !zone_fits {
        return Err(no_form(&zone, &ts));
    }
    Ok(Scalar::Func(Func::Timezone, vec![zone, ts]))
}

/// The result type for an operand of type `ts`.
pub fn result_type(ts: Option<&SqlType>) -> SqlType {
    match ts {
        Some(SqlType::Timestamp(_)) => SqlType::TimestampTz(None),
        Some(SqlType::TimeTz(_) | SqlType::Time(_)) => SqlType::TimeTz(None),
        _ => SqlType::Timestamp(None),
    }
}

/// The value of `timezone(zone, ts)` (non-NULL arguments).
pub fn eval(zone: &Value, ts: &Value) -> Result<Value, SqlError> {
    let zone = zone_of(zone)?;
    Ok(match ts {
        Value::Timestamp(local) => {
            Value::TimestampTz(zone.utc_of_local(*local).ok_or_else(out_of_range)?)
        }
        Value::TimestampTz(utc) => {
            Value::Timestamp(zone.local_of_utc(*utc).ok_or_else(out_of_range)?)
        }
        // The zone's offset now (a named zone's changes with the date,
        // and a timetz has none: PostgreSQL's `timetz_zone` takes the
        // transaction's).
        Value::TimeTz(t) => Value::TimeTz(t.in_zone(-zone.offset_at(folio_row::calendar::now()))),
        other => {
            return Err(SqlError::new(
                "42883",
                format!("timezone of a {}", other.type_name()),
            ));
        }
    })
}

/// `utc + interval` for a timestamptz, as PostgreSQL adds: the months and
/// days on the session zone's calendar (its clock time kept across a
/// DST change: `'2024-03-10 00:00' + '1 day'` is the next midnight, 23
/// hours later in New York), then the time as elapsed microseconds.
pub fn add_in_session(interval: folio_row::Interval, utc: i64) -> Result<i64, SqlError> {
    let mut t = utc;
    if interval.months != 0 || interval.days != 0 {
        let calendar = folio_row::Interval {
            micros: 0,
            ..interval
        };
        t = session_utc(calendar.add_to_timestamp(session_local(t)?)?)?;
    }
    let time = folio_row::Interval {
        months: 0,
        days: 0,
        ..interval
    };
    Ok(time.add_to_timestamp(t)?)
}
