//! The functions of a `time` (time of day, folio-row's `time_of_day.rs`):
//! `EXTRACT(field FROM time)` and `date_part(field, time)`. Its
//! arithmetic is `date_arith.rs`'s, its casts `types.rs`'s, `make_time`
//! `make_datetime.rs`'s.

use crate::error::SqlError;
use folio_row::{Interval, Value};

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
    let field = field.to_ascii_lowercase();
    // PostgreSQL's other spellings of these units.
    let unit = match field.as_str() {
        "us" | "usec" | "usecs" | "useconds" | "microsecond" => "microseconds",
        "ms" | "msec" | "msecs" | "mseconds" | "millisecond" => "milliseconds",
        "s" | "sec" | "secs" | "seconds" => "second",
        "m" | "min" | "mins" | "minutes" => "minute",
        "h" | "hr" | "hrs" | "hours" => "hour",
        other => other,
    };
    match unit {
        "microseconds" | "milliseconds" | "second" | "minute" | "hour" | "epoch" => {
            crate::interval_functions::part(unit, Interval::new(0, 0, micros), float)
        }
        known if DATE_FIELDS.contains(&known) => Err(SqlError::new(
            "0A000",
            format!("unit \"{field}\" not supported for type time without time zone"),
        )),
        _ => Err(SqlError::new(
            "22023",
            format!("unit \"{field}\" not recognized for type time without time zone"),
        )),
    }
}
