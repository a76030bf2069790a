//! Time zones: the names folio knows and `expr AT TIME ZONE zone` /
//! `timezone(zone, expr)`.
//!
//! folio has no time zone database: the session's `TimeZone` is UTC (its
//! only value, `settings.rs` asks [`is_utc`]), and a zone here is a fixed
//! offset from UTC: a name of UTC ([`is_utc`]), a POSIX-style offset
//! (`'+05'`, `'-05:30'`, `'UTC+3'`, `'Etc/GMT+3'`: positive is *west* of
//! Greenwich, as PostgreSQL reads them) or an interval (`INTERVAL
//! '+05:00'`: positive is east, ISO's sense; 22023 with months or days).
//! A named zone (`'America/New_York'`) or an abbreviation (`'EST'`) is
//! 0A000.
//!
//! As PostgreSQL: a `timestamptz` AT TIME ZONE z is the `timestamp` the
//! wall clock in z shows; a `timestamp` AT TIME ZONE z is the
//! `timestamptz` at which z's clock shows it. A date or a quoted literal
//! is read as a `timestamptz`.

use crate::error::SqlError;
use crate::functions::Func;
use crate::scalar::{Columns, Scalar};
use folio_row::{SqlType, Value};

/// Whether `name` names UTC (any case): what `SET TimeZone` accepts.
pub fn is_utc(name: &str) -> bool {
    matches!(
        name.to_ascii_lowercase().as_str(),
        "utc" | "gmt" | "z" | "zulu" | "ut" | "uct" | "etc/utc" | "etc/gmt" | "etc/uct" | "gmt0"
    )
}

const MICROS_PER_SECOND: i64 = 1_000_000;

/// The offset east of UTC, in seconds, of zone `zone` (a text or an
/// interval value).
fn offset_seconds(zone: &Value) -> Result<i64, SqlError> {
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
            Ok(i.micros / MICROS_PER_SECOND)
        }
        other => {
            let name = crate::types::text_output(other).unwrap_or_default();
            posix_offset(&name)
                .map(|west| -west)
                .ok_or_else(|| unsupported_zone(&name))
        }
    }
}

fn unsupported_zone(name: &str) -> SqlError {
    SqlError::unsupported(format!(
        "time zone \"{name}\" (folio has no time zone database: UTC and fixed offsets such as '+05' or INTERVAL '+05:30' only)"
    ))
}

/// A POSIX-style zone's offset *west* of UTC in seconds: a UTC name, or
/// an optional `UTC` / `GMT` / `Etc/GMT` prefix and `[+-]hh[:mm[:ss]]`,
/// at most 24 hours.
fn posix_offset(name: &str) -> Option<i64> {
    if is_utc(name) {
        return Some(0);
    }
    let lower = name.to_ascii_lowercase();
    let rest = ["etc/gmt", "utc", "gmt"]
        .iter()
        .find_map(|p| lower.strip_prefix(p).filter(|r| r.starts_with(['+', '-'])))
        .unwrap_or(&lower);
    let (sign, digits) = match rest.as_bytes().first()? {
        b'+' => (1, &rest[1..]),
        b'-' => (-1, &rest[1..]),
        _ => (1, rest),
    };
    let mut fields = digits.split(':');
    let mut seconds = 0i64;
    for (limit, unit) in [(24, 3600), (59, 60), (59, 1)] {
        let Some(field) = fields.next() else { break };
        if field.is_empty() || field.len() > 2 || !field.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        let n: i64 = field.parse().ok()?;
        if n > limit {
            return None;
        }
        seconds += n * unit;
    }
    if fields.next().is_some() || seconds > 24 * 3600 {
        return None;
    }
    Some(sign * seconds)
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
            SqlType::Text | SqlType::Varchar(_) | SqlType::Char(_) | SqlType::Interval
        )
    });
    let ts = match known(&ts) {
        Some(SqlType::Timestamp | SqlType::TimestampTz) => ts,
        None | Some(SqlType::Date) => Scalar::Cast(Box::new(ts), SqlType::TimestampTz),
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
        Some(SqlType::Timestamp) => SqlType::TimestampTz,
        _ => SqlType::Timestamp,
    }
}

/// The value of `timezone(zone, ts)` (non-NULL arguments).
pub fn eval(zone: &Value, ts: &Value) -> Result<Value, SqlError> {
    let offset = offset_seconds(zone)? * MICROS_PER_SECOND;
    let out_of_range = || SqlError::new("22008", "timestamp out of range");
    Ok(match ts {
        Value::Timestamp(local) => {
            Value::TimestampTz(local.checked_sub(offset).ok_or_else(out_of_range)?)
        }
        Value::TimestampTz(utc) => {
            Value::Timestamp(utc.checked_add(offset).ok_or_else(out_of_range)?)
        }
        other => {
            return Err(SqlError::new(
                "42883",
                format!("timezone of a {}", other.type_name()),
            ));
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    // Proves the POSIX reading of zone names: positive is west.
    #[test]
    fn posix_offsets() {
        assert_eq!(posix_offset("UTC"), Some(0));
        assert_eq!(posix_offset("+05"), Some(5 * 3600));
        assert_eq!(posix_offset("5"), Some(5 * 3600));
        assert_eq!(posix_offset("-05:30"), Some(-(5 * 3600 + 1800)));
        assert_eq!(posix_offset("UTC-05:30:15"), Some(-(5 * 3600 + 1800 + 15)));
        assert_eq!(posix_offset("Etc/GMT+3"), Some(3 * 3600));
        assert_eq!(posix_offset("America/New_York"), None);
        assert_eq!(posix_offset("EST"), None);
        assert_eq!(posix_offset("+5:99"), None);
        assert_eq!(posix_offset(""), None);
    }
}
