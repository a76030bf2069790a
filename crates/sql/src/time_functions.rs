//! The functions of a `time` (time of day, folio-row's `time_of_day.rs`)
//! and a `timetz` (`time_with_zone.rs`): `EXTRACT(field FROM time)` and
//! `date_part(field, time)`. Its
//! arithmetic is `date_arith.rs`'s, its casts `types.rs`'s, `make_time`
//! `make_datetime.rs`'s.

use crate::error::SqlError;
use folio_row::{Interval, Numeric, TimeTz, Value};

/// The fields PostgreSQL knows of dates and times but not of a time of
/// day (`0A000 not supported`; another word is `22023 not recognized`).
const DATE_FIELDS: [&str; 16] = [
    "year",
    "month",
    "day",
    "week",
    "quarter",
    "decade",
    "century",
    "millennium",
    "dow",
    "isodow",
    "doy",
    "isoyear",
    "julian",
    "timezone",
    "timezone_hour",
    "timezone_minute",
];

/// `EXTRACT(field FROM time)` (numeric, PostgreSQL 15's scale per field)
/// or `date_part(field, time)` (`float`: double precision): the hour,
/// minute, second, millisecond, microsecond and epoch fields, read as
/// those of the interval of the time's span (the same values:
/// PostgreSQL's `time_part_common` and `interval_part_common` agree on
/// them), so `24:00:00` has hour 24.
pub fn part(field: &str, micros: i64, float: bool) -> Result<Value, SqlError> {
    part_of(field, micros, None, float)
}

/// [`part`] of a `timetz`: the time's fields as a time's, `epoch` the
/// seconds of its UTC instant (`time + zone`), and the zone's own
/// `timezone` (seconds east), `timezone_hour` and `timezone_minute`
/// (PostgreSQL's `timetz_part_common`).
pub fn part_tz(field: &str, t: TimeTz, float: bool) -> Result<Value, SqlError> {
    part_of(field, t.time, Some(t.zone), float)
}

/// The field `field` of a time `micros` with, for a timetz, its zone
/// `zone` (seconds west).
fn part_of(field: &str, micros: i64, zone: Option<i32>, float: bool) -> Result<Value, SqlError> {
    let field = field.to_ascii_lowercase();
    let type_name = match zone {
        Some(_) => "time with time zone",
        None => "time without time zone",
    };
    // (PostgreSQL's other spellings are folio's names by now:
    // `date_units.rs`.)
    let unit = field.as_str();
    let whole = |n: i64| {
        if float {
            Value::Float8(n as f64)
        } else {
            Value::Numeric(Numeric::from_i64(n))
        }
    };
    match (unit, zone) {
        ("epoch", Some(west)) => crate::interval_functions::part(
            unit,
            Interval::new(0, 0, micros + i64::from(west) * 1_000_000),
            float,
        ),
        ("microseconds" | "milliseconds" | "second" | "minute" | "hour" | "epoch", _) => {
            crate::interval_functions::part(unit, Interval::new(0, 0, micros), float)
        }
        ("timezone", Some(west)) => Ok(whole(-i64::from(west))),
        ("timezone_hour", Some(west)) => Ok(whole(-i64::from(west) / 3600)),
        ("timezone_minute", Some(west)) => Ok(whole(-i64::from(west) / 60 % 60)),
        (known, _) if DATE_FIELDS.contains(&known) => Err(SqlError::new(
            "0A000",
            format!("unit \"{field}\" not supported for type {type_name}"),
        )),
        _ => Err(SqlError::new(
            "22023",
            format!("unit \"{field}\" not recognized for type {type_name}"),
        )),
    }
}

/// `timeofday()`: the instant `utc_us` on `zone`'s clock as PostgreSQL
/// prints it, `Wed Dec 02 05:49:00.759552 2026 EST` (its
/// `%a %b %d %H:%M:%S.ffffff %Y %Z`).
pub fn time_of_day(utc_us: i64, zone: &folio_row::TimeZone) -> Result<String, SqlError> {
    use folio_row::{MONTH_ABBREVS as MONTHS, WEEKDAY_ABBREVS as DAYS};
    let local = zone
        .local_of_utc(utc_us)
        .ok_or_else(|| SqlError::new("22008", "timestamp out of range"))?;
    let days = local.div_euclid(folio_row::USECS_PER_DAY);
    let micros = local.rem_euclid(folio_row::USECS_PER_DAY);
    let (year, month, day) = folio_row::calendar::ymd(days);
    // 2000-01-01, day 0, was a Saturday.
    let weekday = DAYS[(days + 6).rem_euclid(7) as usize];
    let seconds = micros / 1_000_000;
    Ok(format!(
        "{weekday} {} {day:02} {:02}:{:02}:{:02}.{:06} {year} {}",
        MONTHS[(month - 1) as usize],
        seconds / 3600,
        seconds / 60 % 60,
        seconds % 60,
        micros % 1_000_000,
        zone.abbreviation_at(utc_us)
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    // Proves timeofday's text is PostgreSQL's (its output for the same
    // instant: 2026-12-02 10:49:00.759552 UTC in New York).
    #[test]
    fn time_of_day_prints_as_postgresql() {
        let zone = folio_row::TimeZone::named("America/New_York").unwrap();
        let utc = folio_row::parse_timestamp("2026-12-02 10:49:00.759552", false).unwrap();
        assert_eq!(
            time_of_day(utc, &zone).unwrap(),
            "Wed Dec 02 05:49:00.759552 2026 EST"
        );
    }
}
