//! The session settings a value's text depends on: `TimeZone` (a
//! timestamptz is shown in it), `DateStyle`, `IntervalStyle`, `extra_float_digits` and
//! `bytea_output`.
//! One value of this type is what every text output takes
//! ([`Value::to_text_styled`](crate::Value::to_text_styled)), the SQL layer
//! builds it from the running statement's settings and the server from
//! the session's, so a new style is one field here and one rule where
//! the type is written.

use crate::date_styles::DateStyle;
use crate::interval_styles::IntervalStyle;
use crate::time_zone::TimeZone;

/// How values are written as text.
#[derive(Debug, Clone, PartialEq)]
pub struct TextStyle {
    pub zone: TimeZone,
    /// `DateStyle`: how dates and timestamps are written
    /// (`date_styles.rs`).
    pub dates: DateStyle,
    pub interval: IntervalStyle,
    /// PostgreSQL's `extra_float_digits` (-15..=3): above 0 floats are
    /// written with the shortest digits that read back exactly; at 0 or
    /// below with 15 + it significant digits (float4: 6 + it).
    pub extra_float_digits: i32,
    /// `bytea_output = escape`: printable ASCII as itself, `\` doubled,
    /// every other byte as `\` and three octal digits (else `hex`:
    /// `\x` and two hex digits a byte).
    pub bytea_escape: bool,
}

/// PostgreSQL's default settings (`TimeZone = UTC`): what
/// [`Value::to_text`](crate::Value::to_text) borrows, so text output
/// outside a session builds no style per value.
pub static DEFAULT_STYLE: TextStyle = TextStyle::in_zone(TimeZone::UTC);

impl TextStyle {
    /// The defaults (`IntervalStyle = postgres`, `extra_float_digits =
    /// 1`) with `TimeZone = zone`.
    pub const fn in_zone(zone: TimeZone) -> TextStyle {
        TextStyle {
            zone,
            dates: DateStyle::ISO_MDY,
            interval: IntervalStyle::Postgres,
            extra_float_digits: 1,
            bytea_escape: false,
        }
    }
}

impl Default for TextStyle {
    fn default() -> TextStyle {
        DEFAULT_STYLE.clone()
    }
}
