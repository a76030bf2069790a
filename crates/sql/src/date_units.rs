//! PostgreSQL's names of date and time units, as `EXTRACT`, `date_part`
//! and `date_trunc` read them (datetime.c's `DecodeUnits` over
//! `deltatktbl`, then, for `EXTRACT`/`date_part` only, `DecodeSpecial`
//! over `datetktbl`): the one owner of the spellings. Each spelling is
//! read as folio's name of the unit (`ms`, `msec`, `millisecond` ->
//! `milliseconds`; `h`, `hr`, `hours` -> `hour`; ...), which the
//! functions of each type (`datetime.rs`, `interval_functions.rs`,
//! `time_functions.rs`) then take or refuse. As PostgreSQL compares at
//! most `TOKMAXLEN` (10) characters, `millisecondsxyz` is
//! `milliseconds`.
//!
//! A unit the type lacks is 0A000 `unit "x" not supported for type t`
//! when PostgreSQL knows the word, else 22023 `... not recognized ...`,
//! both naming the unit as written (lower-cased): [`respell`] gives the
//! functions' errors that form.

use crate::error::SqlError;

/// `deltatktbl`'s units: (spelling, folio's name).
const UNITS: &[(&str, &str)] = &[
    ("c", "century"),
    ("cent", "century"),
    ("centuries", "century"),
    ("century", "century"),
    ("d", "day"),
    ("day", "day"),
    ("days", "day"),
    ("dec", "decade"),
    ("decade", "decade"),
    ("decades", "decade"),
    ("decs", "decade"),
    ("h", "hour"),
    ("hour", "hour"),
    ("hours", "hour"),
    ("hr", "hour"),
    ("hrs", "hour"),
    ("m", "minute"),
    ("microsecon", "microseconds"),
    ("mil", "millennium"),
    ("millennia", "millennium"),
    ("millennium", "millennium"),
    ("millisecon", "milliseconds"),
    ("mils", "millennium"),
    ("min", "minute"),
    ("mins", "minute"),
    ("minute", "minute"),
    ("minutes", "minute"),
    ("mon", "month"),
    ("mons", "month"),
    ("month", "month"),
    ("months", "month"),
    ("ms", "milliseconds"),
    ("msec", "milliseconds"),
    ("msecond", "milliseconds"),
    ("mseconds", "milliseconds"),
    ("msecs", "milliseconds"),
    ("qtr", "quarter"),
    ("quarter", "quarter"),
    ("s", "second"),
    ("sec", "second"),
    ("second", "second"),
    ("seconds", "second"),
    ("secs", "second"),
    ("timezone", "timezone"),
    ("timezone_h", "timezone_hour"),
    ("timezone_m", "timezone_minute"),
    ("us", "microseconds"),
    ("usec", "microseconds"),
    ("usecond", "microseconds"),
    ("useconds", "microseconds"),
    ("usecs", "microseconds"),
    ("w", "week"),
    ("week", "week"),
    ("weeks", "week"),
    ("y", "year"),
    ("year", "year"),
    ("years", "year"),
    ("yr", "year"),
    ("yrs", "year"),
];

/// `datetktbl`'s units and reserved words (`EXTRACT` and `date_part`
/// only). Of the reserved words only `epoch` is a field; the others
/// (`now`, `today`, ...) are known, so not supported by any type.
const SPECIAL: &[(&str, &str)] = &[
    ("-infinity", "-infinity"),
    ("allballs", "allballs"),
    ("d", "day"),
    ("dow", "dow"),
    ("doy", "doy"),
    ("epoch", "epoch"),
    ("h", "hour"),
    ("infinity", "infinity"),
    ("isodow", "isodow"),
    ("isoyear", "isoyear"),
    ("j", "julian"),
    ("jd", "julian"),
    ("julian", "julian"),
    ("m", "month"),
    ("mm", "minute"),
    ("now", "now"),
    ("s", "second"),
    ("today", "today"),
    ("tomorrow", "tomorrow"),
    ("y", "year"),
    ("yesterday", "yesterday"),
];

/// PostgreSQL's reserved words that name no field (in `SPECIAL`):
/// recognized, but a unit of no type; of an interval not recognized.
const RESERVED: &[&str] = &[
    "-infinity",
    "allballs",
    "infinity",
    "now",
    "today",
    "tomorrow",
    "yesterday",
];

/// The longest prefix PostgreSQL compares (`TOKMAXLEN`).
const TOKEN_MAX_LEN: usize = 10;

fn find(table: &[(&str, &'static str)], spelled: &str) -> Option<&'static str> {
    let key = spelled.get(..TOKEN_MAX_LEN).unwrap_or(spelled);
    table
        .iter()
        .find(|(spelling, _)| *spelling == key)
        .map(|(_, name)| *name)
}

/// The unit `spelled` (lower-cased) names for `date_trunc`: folio's name
/// of it, or `None` when PostgreSQL does not know it as a unit.
pub fn trunc_unit(spelled: &str) -> Option<&'static str> {
    find(UNITS, spelled)
}

/// The unit `spelled` (lower-cased) names for `EXTRACT` / `date_part`.
pub fn extract_unit(spelled: &str) -> Option<&'static str> {
    find(UNITS, spelled).or_else(|| find(SPECIAL, spelled))
}

/// The name of `value`'s type in a unit's error, for the types whose
/// functions take a unit (a text is read as a timestamptz).
pub fn type_name(value: &folio_row::Value) -> Option<&'static str> {
    use folio_row::Value;
    Some(match value {
        Value::Date(_) => "date",
        Value::Timestamp(_) => "timestamp without time zone",
        Value::TimestampTz(_) | Value::Text(_) => "timestamp with time zone",
        Value::Interval(_) => "interval",
        Value::Time(_) => "time without time zone",
        Value::TimeTz(_) => "time with time zone",
        _ => return None,
    })
}

/// A function's error about the unit `name` (folio's name of what was
/// `spelled`), given as PostgreSQL gives it for `type_name`: the unit as
/// spelled, 0A000 not supported when PostgreSQL knows it (`known`, and
/// for an interval not one of the reserved words), else 22023 not
/// recognized. Any other error is returned as it is.
pub fn respell(
    error: SqlError,
    name: &str,
    spelled: &str,
    known: bool,
    type_name: &str,
) -> SqlError {
    let about_unit = matches!(error.code, "22023" | "0A000")
        && error.message.starts_with(&format!("unit \"{name}\" not "));
    if !about_unit {
        return error;
    }
    let known = known && !(type_name == "interval" && RESERVED.contains(&name));
    match known {
        true => SqlError::new(
            "0A000",
            format!("unit \"{spelled}\" not supported for type {type_name}"),
        ),
        false => SqlError::new(
            "22023",
            format!("unit \"{spelled}\" not recognized for type {type_name}"),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // What datetime.c's tables read each spelling as.
    #[test]
    fn spellings_are_postgresql_units() {
        assert_eq!(extract_unit("ms"), Some("milliseconds"));
        assert_eq!(extract_unit("millisecond"), Some("milliseconds"));
        assert_eq!(extract_unit("millisecondsxyz"), Some("milliseconds"));
        assert_eq!(extract_unit("microsecond"), Some("microseconds"));
        assert_eq!(extract_unit("m"), Some("minute"));
        assert_eq!(extract_unit("mm"), Some("minute"));
        assert_eq!(extract_unit("timezone_hour"), Some("timezone_hour"));
        assert_eq!(extract_unit("now"), Some("now"));
        assert_eq!(extract_unit("foo"), None);
        assert_eq!(trunc_unit("dow"), None);
        assert_eq!(trunc_unit("mil"), Some("millennium"));
    }
}
