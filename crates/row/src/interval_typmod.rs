//! An interval type's modifier: the fields it keeps and the digits of its
//! seconds' fraction (`interval day`, `interval(3)`, `interval day to
//! second(2)`), the one owner of that concept: its catalog encoding
//! (`atttypmod`), its name (`format_type`), how a value is fitted to it
//! and how text is read under it.
//!
//! As PostgreSQL 15 (`INTERVAL_TYPMOD`, `intervaltypmodout`,
//! `AdjustIntervalForTypmod`):
//!
//! - **encoding**: `(range << 16) | precision`, the range a bit per field
//!   (month 1, year 2, day 3, hour 10, minute 11, second 12: PostgreSQL's
//!   field numbers) or `0x7FFF` for all fields, the precision `0xFFFF`
//!   for none; a plain `interval` is -1 (no modifier: [`IntervalTypmod`]
//!   is never all fields without a precision);
//! - **fitting**: the fields right of the last one named are cut (towards
//!   zero: `interval year` keeps whole years of the months, `interval day`
//!   drops the time, `interval hour to minute` the seconds); those left of
//!   it stay (`interval day` keeps months); then the time is rounded to
//!   the precision, half away from zero;
//! - **reading text**: a number without a unit counts the last field
//!   (`'5'::interval minute` is five minutes), and under `minute to
//!   second` a time of two parts is minutes and seconds (`'2:03'`); the
//!   value read is then fitted.

use crate::error::RowError;
use crate::interval::{Interval, USECS_PER_HOUR, USECS_PER_MINUTE};
use crate::interval_input::Unit;

/// The fields an interval type keeps (SQL's interval qualifiers, and all).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum IntervalFields {
    All,
    Year,
    Month,
    Day,
    Hour,
    Minute,
    Second,
    YearToMonth,
    DayToHour,
    DayToMinute,
    DayToSecond,
    HourToMinute,
    HourToSecond,
    MinuteToSecond,
}

/// PostgreSQL's field bits (`datetime.h`), each `1 << field number`.
const MONTH: u32 = 1 << 1;
const YEAR: u32 = 1 << 2;
const DAY: u32 = 1 << 3;
const HOUR: u32 = 1 << 10;
const MINUTE: u32 = 1 << 11;
const SECOND: u32 = 1 << 12;
/// All fields (`INTERVAL_FULL_RANGE`).
const ALL: u32 = 0x7FFF;
/// No precision (`INTERVAL_FULL_PRECISION`).
const NO_PRECISION: u32 = 0xFFFF;

/// The seconds' digits a precision may keep at most.
pub const MAX_INTERVAL_PRECISION: u8 = 6;

impl IntervalFields {
    const EVERY: [IntervalFields; 14] = [
        IntervalFields::All,
        IntervalFields::Year,
        IntervalFields::Month,
        IntervalFields::Day,
        IntervalFields::Hour,
        IntervalFields::Minute,
        IntervalFields::Second,
        IntervalFields::YearToMonth,
        IntervalFields::DayToHour,
        IntervalFields::DayToMinute,
        IntervalFields::DayToSecond,
        IntervalFields::HourToMinute,
        IntervalFields::HourToSecond,
        IntervalFields::MinuteToSecond,
    ];

    /// The qualifier `leading [TO last]` names (`last` the same as
    /// `leading` when there is no `TO`); `None` for a pair SQL has not
    /// (`hour to day`, `month to day`).
    pub fn of_units(leading: Unit, last: Unit) -> Option<IntervalFields> {
        use Unit::{Day, Hour, Minute, Month, Second, Year};
        Some(match (leading, last) {
            (Year, Year) => IntervalFields::Year,
            (Month, Month) => IntervalFields::Month,
            (Day, Day) => IntervalFields::Day,
            (Hour, Hour) => IntervalFields::Hour,
            (Minute, Minute) => IntervalFields::Minute,
            (Second, Second) => IntervalFields::Second,
            (Year, Month) => IntervalFields::YearToMonth,
            (Day, Hour) => IntervalFields::DayToHour,
            (Day, Minute) => IntervalFields::DayToMinute,
            (Day, Second) => IntervalFields::DayToSecond,
            (Hour, Minute) => IntervalFields::HourToMinute,
            (Hour, Second) => IntervalFields::HourToSecond,
            (Minute, Second) => IntervalFields::MinuteToSecond,
            _ => return None,
        })
    }

    /// The range bits PostgreSQL stores for them.
    fn bits(self) -> u32 {
        match self {
            IntervalFields::All => ALL,
            IntervalFields::Year => YEAR,
            IntervalFields::Month => MONTH,
            IntervalFields::Day => DAY,
            IntervalFields::Hour => HOUR,
            IntervalFields::Minute => MINUTE,
            IntervalFields::Second => SECOND,
            IntervalFields::YearToMonth => YEAR | MONTH,
            IntervalFields::DayToHour => DAY | HOUR,
            IntervalFields::DayToMinute => DAY | HOUR | MINUTE,
            IntervalFields::DayToSecond => DAY | HOUR | MINUTE | SECOND,
            IntervalFields::HourToMinute => HOUR | MINUTE,
            IntervalFields::HourToSecond => HOUR | MINUTE | SECOND,
            IntervalFields::MinuteToSecond => MINUTE | SECOND,
        }
    }

    /// The qualifier's words (`day to second`); empty for all fields.
    fn words(self) -> &'static str {
        match self {
            IntervalFields::All => "",
            IntervalFields::Year => " year",
            IntervalFields::Month => " month",
            IntervalFields::Day => " day",
            IntervalFields::Hour => " hour",
            IntervalFields::Minute => " minute",
            IntervalFields::Second => " second",
            IntervalFields::YearToMonth => " year to month",
            IntervalFields::DayToHour => " day to hour",
            IntervalFields::DayToMinute => " day to minute",
            IntervalFields::DayToSecond => " day to second",
            IntervalFields::HourToMinute => " hour to minute",
            IntervalFields::HourToSecond => " hour to second",
            IntervalFields::MinuteToSecond => " minute to second",
        }
    }

    /// Whether a seconds' precision may follow them (all fields, or a
    /// qualifier ending in `second`).
    pub fn takes_precision(self) -> bool {
        self.bits() & SECOND != 0
    }

    /// What a number without a unit counts: the last field (seconds for
    /// all fields, as a plain interval reads it).
    fn bare_unit(self) -> Unit {
        match self {
            IntervalFields::Year => Unit::Year,
            IntervalFields::Month | IntervalFields::YearToMonth => Unit::Month,
            IntervalFields::Day => Unit::Day,
            IntervalFields::Hour | IntervalFields::DayToHour => Unit::Hour,
            IntervalFields::Minute | IntervalFields::DayToMinute | IntervalFields::HourToMinute => {
                Unit::Minute
            }
            IntervalFields::All
            | IntervalFields::Second
            | IntervalFields::DayToSecond
            | IntervalFields::HourToSecond
            | IntervalFields::MinuteToSecond => Unit::Second,
        }
    }

    /// `interval` cut to these fields (the fields left of the last stay).
    fn cut(self, i: Interval) -> Interval {
        let down_to = |micros: i64, unit: i64| micros / unit * unit;
        match self {
            IntervalFields::Year => Interval::new(i.months / 12 * 12, 0, 0),
            IntervalFields::Month | IntervalFields::YearToMonth => Interval::new(i.months, 0, 0),
            IntervalFields::Day => Interval::new(i.months, i.days, 0),
            IntervalFields::Hour | IntervalFields::DayToHour => {
                Interval::new(i.months, i.days, down_to(i.micros, USECS_PER_HOUR))
            }
            IntervalFields::Minute | IntervalFields::DayToMinute | IntervalFields::HourToMinute => {
                Interval::new(i.months, i.days, down_to(i.micros, USECS_PER_MINUTE))
            }
            IntervalFields::All
            | IntervalFields::Second
            | IntervalFields::DayToSecond
            | IntervalFields::HourToSecond
            | IntervalFields::MinuteToSecond => i,
        }
    }
}

/// An interval type's modifier: never all fields without a precision
/// (that is a plain `interval`, no modifier).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct IntervalTypmod {
    fields: IntervalFields,
    precision: Option<u8>,
}

impl IntervalTypmod {
    /// The modifier of `fields` and `precision` (past 6 is 6, as
    /// PostgreSQL reduces it with a warning); `None` when it is no
    /// modifier (all fields, no precision). The caller has refused a
    /// precision after fields that take none (a syntax error).
    pub fn new(fields: IntervalFields, precision: Option<u8>) -> Option<IntervalTypmod> {
        assert!(
            precision.is_none() || fields.takes_precision(),
            "a precision after {fields:?}"
        );
        let precision = precision.map(|p| p.min(MAX_INTERVAL_PRECISION));
        (fields != IntervalFields::All || precision.is_some())
            .then_some(IntervalTypmod { fields, precision })
    }

    /// The modifier PostgreSQL's `atttypmod` encodes; `None` for -1, for
    /// a precision past 6 and for a range that is no qualifier.
    pub fn from_typmod(typmod: i32) -> Option<IntervalTypmod> {
        let typmod = u32::try_from(typmod).ok()?;
        let (range, precision) = (typmod >> 16, typmod & 0xFFFF);
        let fields = IntervalFields::EVERY
            .into_iter()
            .find(|f| f.bits() == range)?;
        let precision = match precision {
            NO_PRECISION => None,
            p => Some(
                u8::try_from(p)
                    .ok()
                    .filter(|p| *p <= MAX_INTERVAL_PRECISION)?,
            ),
        };
        IntervalTypmod::new(fields, precision.filter(|_| fields.takes_precision()))
    }

    /// The digits of the seconds' fraction kept, if limited.
    pub fn precision(self) -> Option<u8> {
        self.precision
    }

    /// PostgreSQL's `atttypmod` of it.
    pub fn typmod(self) -> i32 {
        let precision = self.precision.map_or(NO_PRECISION, u32::from);
        let typmod = (self.fields.bits() << 16) | precision;
        i32::try_from(typmod).expect("the range has 15 bits")
    }

    /// What `format_type` prints after `interval`: ` day to second(2)`,
    /// `(3)`, ` year`.
    pub fn suffix(self) -> String {
        match self.precision {
            Some(p) => format!("{}({p})", self.fields.words()),
            None => self.fields.words().to_string(),
        }
    }

    /// `interval` fitted to the modifier: the fields right of the last
    /// cut, the time rounded to the precision.
    pub fn adjust(self, interval: Interval) -> Interval {
        let mut i = self.fields.cut(interval);
        if let Some(p) = self.precision {
            i.micros = crate::time_of_day::round_to_precision(i.micros, p);
        }
        i
    }

    /// `text` read as an interval of this type (`'5'::interval minute`,
    /// `interval '2:03' minute to second`), then fitted.
    pub fn read(self, text: &str) -> Result<Interval, RowError> {
        let mmss = self.fields == IntervalFields::MinuteToSecond;
        let read = crate::interval_input::parse_read(text, self.fields.bare_unit(), mmss)?;
        Ok(self.adjust(read))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn typmod(fields: IntervalFields, precision: Option<u8>) -> IntervalTypmod {
        IntervalTypmod::new(fields, precision).unwrap()
    }

    // Proves the modifiers encode as PostgreSQL's atttypmod (values read
    // from PostgreSQL 15's pg_attribute), print as its format_type, and
    // round-trip.
    #[test]
    fn typmods_encode_and_print_as_postgresql() {
        for (fields, precision, encoded, suffix) in [
            (IntervalFields::Second, Some(2), 268_435_458, " second(2)"),
            (IntervalFields::Year, None, 327_679, " year"),
            (IntervalFields::All, Some(3), 2_147_418_115, "(3)"),
            (
                IntervalFields::HourToMinute,
                None,
                201_392_127,
                " hour to minute",
            ),
            (
                IntervalFields::MinuteToSecond,
                None,
                402_718_719,
                " minute to second",
            ),
            (
                IntervalFields::DayToSecond,
                Some(2),
                0x1C08_0002,
                " day to second(2)",
            ),
        ] {
            let t = typmod(fields, precision);
            assert_eq!(t.typmod(), encoded, "{fields:?}");
            assert_eq!(t.suffix(), suffix);
            assert_eq!(IntervalTypmod::from_typmod(encoded), Some(t));
        }
        assert_eq!(IntervalTypmod::new(IntervalFields::All, None), None);
        assert_eq!(IntervalTypmod::from_typmod(-1), None);
        assert_eq!(IntervalTypmod::from_typmod(0x7b), None);
        assert_eq!(typmod(IntervalFields::All, Some(9)).suffix(), "(6)");
    }

    // Proves values are cut and rounded as PostgreSQL's
    // AdjustIntervalForTypmod, and text is read with the bare number
    // counting the last field.
    #[test]
    fn values_fit_and_text_reads_as_postgresql() {
        let read =
            |fields, precision, text| typmod(fields, precision).read(text).unwrap().to_text();
        use IntervalFields as F;
        let full = "1 year 2 mons 3 days 04:05:06.789";
        assert_eq!(read(F::Day, None, full), "1 year 2 mons 3 days");
        assert_eq!(read(F::YearToMonth, None, full), "1 year 2 mons");
        assert_eq!(read(F::Year, None, full), "1 year");
        assert_eq!(read(F::Year, None, "-1.5 years"), "-1 years");
        assert_eq!(read(F::Minute, None, full), "1 year 2 mons 3 days 04:05:00");
        assert_eq!(
            read(F::HourToSecond, Some(1), full),
            "1 year 2 mons 3 days 04:05:06.8"
        );
        assert_eq!(read(F::All, Some(0), "1.5"), "00:00:02");
        assert_eq!(read(F::All, Some(2), "-0.005"), "-00:00:00.01");
        assert_eq!(read(F::Day, None, "5"), "5 days");
        assert_eq!(read(F::Minute, None, "90"), "01:30:00");
        assert_eq!(read(F::Minute, None, "1:30"), "01:30:00");
        assert_eq!(read(F::Month, None, "3"), "3 mons");
        assert_eq!(read(F::Day, None, "1.5"), "1 day");
        assert_eq!(read(F::MinuteToSecond, None, "1 2:03"), "1 day 00:02:03");
        assert_eq!(read(F::MinuteToSecond, None, "1 -2:03"), "1 day -00:02:03");
        assert_eq!(
            read(F::MinuteToSecond, Some(2), "12:34.5678"),
            "00:12:34.57"
        );
        assert_eq!(
            read(F::MinuteToSecond, Some(0), "100 1:2:3.5"),
            "100 days 01:02:04"
        );
        assert!(typmod(F::MinuteToSecond, None).read("2 3").is_err());
    }
}
