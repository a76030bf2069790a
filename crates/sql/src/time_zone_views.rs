//! `pg_timezone_names` and `pg_timezone_abbrevs`: the zones and the
//! abbreviations folio knows (folio-row's `time_zone.rs`), as PostgreSQL
//! 15's views show them.
//!
//! - `pg_timezone_names`: every zone of the bundled IANA database, sorted
//!   by name, with its abbreviation, offset east of UTC and daylight-
//!   saving flag at the current time (`Asia/Tokyo | JST | 09:00:00 | f`).
//!   Rows are made at each scan, so a zone's row follows its DST rules
//!   as the date moves.
//! - `pg_timezone_abbrevs`: the abbreviations `AT TIME ZONE` and
//!   timestamptz literals take (`ABBREVIATIONS`, each a fixed offset),
//!   sorted as PostgreSQL lists its `Default` set.

use folio_row::{ABBREVIATIONS, Interval, SqlType, TimeZone, Value};

const MICROS_PER_SECOND: i64 = 1_000_000;

/// `pg_timezone_names`' columns.
pub const NAMES_COLUMNS: &[(&str, SqlType)] = &[
    ("name", SqlType::Text),
    ("abbrev", SqlType::Text),
    ("utc_offset", SqlType::Interval(None)),
    ("is_dst", SqlType::Bool),
];

/// `pg_timezone_abbrevs`' columns.
pub const ABBREVS_COLUMNS: &[(&str, SqlType)] = &[
    ("abbrev", SqlType::Text),
    ("utc_offset", SqlType::Interval(None)),
    ("is_dst", SqlType::Bool),
];

/// `pg_timezone_names`' rows at UTC instant `now_us`.
pub fn names_rows(now_us: i64) -> Vec<Vec<Value>> {
    folio_row::database_zones()
        .iter()
        .map(|zone: &TimeZone| {
            vec![
                Value::Text(zone.name().to_string()),
                Value::Text(zone.abbreviation_at(now_us)),
                offset(zone.offset_at(now_us)),
                Value::Bool(zone.is_dst_at(now_us)),
            ]
        })
        .collect()
}

/// `pg_timezone_abbrevs`' rows.
pub fn abbrevs_rows() -> Vec<Vec<Value>> {
    let mut abbreviations = ABBREVIATIONS;
    abbreviations.sort_unstable_by_key(|(name, ..)| *name);
    abbreviations
        .iter()
        .map(|(name, east, dst)| {
            vec![
                Value::Text(name.to_string()),
                offset(*east),
                Value::Bool(*dst),
            ]
        })
        .collect()
}

/// An offset east of UTC as an interval (`05:30:00`, `-03:30:00`).
fn offset(seconds_east: i32) -> Value {
    Value::Interval(Interval {
        months: 0,
        days: 0,
        micros: i64::from(seconds_east) * MICROS_PER_SECOND,
    })
}
