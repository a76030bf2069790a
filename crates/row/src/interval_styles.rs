//! An interval's text in PostgreSQL 15's four `IntervalStyle`s. The
//! `postgres` style (the default) is [`Interval::to_text`]; this module
//! chooses among it and the other three, which read the same fields:
//! years and months from the months (truncated toward zero, each with
//! the months' sign), the days, and hours, minutes, seconds and
//! microseconds from the time (each with the time's sign).
//!
//! - `postgres_verbose`: `@ 1 year 2 mons -3 days 4 hours 5 mins 6.5 secs`;
//!   the first field that is not zero decides a sign for the whole: if it
//!   is negative, values are written as their opposites and ` ago` is
//!   added (`@ 1 day -1 hours ago` is `-1 days +1 hours`); `@ 0` for zero;
//!   a unit is plural unless its value is 1 (seconds: unless exactly 1).
//! - `sql_standard`: `1-2` (years-months), `3 4:05:06.5` (days and time),
//!   `4:05:06` (time), with one leading `-` when every field is negative
//!   or zero; a value mixing signs, or year-month with day-time fields,
//!   is written in full with a sign on each group: `+1-2 -3 +4:05:06.5`;
//!   `0` for zero.
//! - `iso_8601`: `P1Y2M-3DT4H5M6.5S`, each field with its own sign, `T`
//!   before the time fields, `PT0S` for zero.

use crate::interval::{Interval, USECS_PER_HOUR, USECS_PER_MINUTE, USECS_PER_SEC};

/// The `IntervalStyle` setting: how intervals are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum IntervalStyle {
    #[default]
    Postgres,
    PostgresVerbose,
    SqlStandard,
    Iso8601,
}

impl IntervalStyle {
    /// The style a setting's value names (any case), as PostgreSQL's
    /// `IntervalStyle` takes them.
    pub fn named(value: &str) -> Option<IntervalStyle> {
        Some(match value.to_ascii_lowercase().as_str() {
            "postgres" => IntervalStyle::Postgres,
            "postgres_verbose" => IntervalStyle::PostgresVerbose,
            "sql_standard" => IntervalStyle::SqlStandard,
            "iso_8601" => IntervalStyle::Iso8601,
            _ => return None,
        })
    }

    /// The setting's value as `SHOW` gives it.
    pub fn name(self) -> &'static str {
        match self {
            IntervalStyle::Postgres => "postgres",
            IntervalStyle::PostgresVerbose => "postgres_verbose",
            IntervalStyle::SqlStandard => "sql_standard",
            IntervalStyle::Iso8601 => "iso_8601",
        }
    }
}

/// An interval's fields, each with the sign of the part it comes from.
struct Fields {
    year: i64,
    mon: i64,
    day: i64,
    hour: i64,
    min: i64,
    sec: i64,
    usec: i64,
}

impl Fields {
    fn of(i: &Interval) -> Fields {
        let months = i64::from(i.months);
        Fields {
            year: months / 12,
            mon: months % 12,
            day: i64::from(i.days),
            hour: i.micros / USECS_PER_HOUR,
            min: i.micros / USECS_PER_MINUTE % 60,
            sec: i.micros / USECS_PER_SEC % 60,
            usec: i.micros % USECS_PER_SEC,
        }
    }

    fn seconds_negative(&self) -> bool {
        self.sec < 0 || self.usec < 0
    }
}

/// `i` in `style`.
pub fn interval_text(i: &Interval, style: IntervalStyle) -> String {
    match style {
        IntervalStyle::Postgres => i.to_text(),
        IntervalStyle::PostgresVerbose => verbose(&Fields::of(i)),
        IntervalStyle::SqlStandard => sql_standard(&Fields::of(i)),
        IntervalStyle::Iso8601 => iso_8601(&Fields::of(i)),
    }
}

/// Seconds and their fraction, unsigned: `6`, `06` (`two` digits at
/// least), `6.5`.
fn seconds(sec: i64, usec: i64, two: bool) -> String {
    let mut out = match two {
        true => format!("{:02}", sec.unsigned_abs()),
        false => sec.unsigned_abs().to_string(),
    };
    if usec != 0 {
        let digits = format!("{:06}", usec.unsigned_abs());
        out.push('.');
        out.push_str(digits.trim_end_matches('0'));
    }
    out
}

fn verbose(f: &Fields) -> String {
    let mut out = String::from("@");
    let mut is_zero = true;
    let mut is_before = false;
    let mut part = |value: i64, unit: &str, out: &mut String| {
        if value == 0 {
            return;
        }
        let shown = match is_zero {
            true => {
                is_before = value < 0;
                value.abs()
            }
            false if is_before => -value,
            false => value,
        };
        let plural = if shown == 1 { "" } else { "s" };
        out.push_str(&format!(" {shown} {unit}{plural}"));
        is_zero = false;
    };
    part(f.year, "year", &mut out);
    part(f.mon, "mon", &mut out);
    part(f.day, "day", &mut out);
    part(f.hour, "hour", &mut out);
    part(f.min, "min", &mut out);
    if f.sec != 0 || f.usec != 0 {
        out.push(' ');
        if f.seconds_negative() {
            if is_zero {
                is_before = true;
            } else if !is_before {
                out.push('-');
            }
        } else if is_before {
            out.push('-');
        }
        out.push_str(&seconds(f.sec, f.usec, false));
        let plural = if f.sec.abs() != 1 || f.usec != 0 {
            "s"
        } else {
            ""
        };
        out.push_str(&format!(" sec{plural}"));
        is_zero = false;
    }
    if is_zero {
        out.push_str(" 0");
    }
    if is_before {
        out.push_str(" ago");
    }
    out
}

fn sql_standard(f: &Fields) -> String {
    let all = [f.year, f.mon, f.day, f.hour, f.min, f.sec, f.usec];
    let negative = all.iter().any(|&v| v < 0);
    let positive = all.iter().any(|&v| v > 0);
    let year_month = f.year != 0 || f.mon != 0;
    let day_time = f.day != 0 || f.hour != 0 || f.min != 0 || f.sec != 0 || f.usec != 0;
    let standard = !((negative && positive) || (year_month && day_time));
    if !negative && !positive {
        return "0".into();
    }
    if !standard {
        let sign = |neg: bool| if neg { '-' } else { '+' };
        let time_negative = f.hour < 0 || f.min < 0 || f.seconds_negative();
        return format!(
            "{}{}-{} {}{} {}{}:{:02}:{}",
            sign(f.year < 0 || f.mon < 0),
            f.year.abs(),
            f.mon.abs(),
            sign(f.day < 0),
            f.day.abs(),
            sign(time_negative),
            f.hour.abs(),
            f.min.abs(),
            seconds(f.sec, f.usec, true)
        );
    }
    let lead = if negative { "-" } else { "" };
    if year_month {
        format!("{lead}{}-{}", f.year.abs(), f.mon.abs())
    } else if f.day != 0 {
        format!(
            "{lead}{} {}:{:02}:{}",
            f.day.abs(),
            f.hour.abs(),
            f.min.abs(),
            seconds(f.sec, f.usec, true)
        )
    } else {
        format!(
            "{lead}{}:{:02}:{}",
            f.hour.abs(),
            f.min.abs(),
            seconds(f.sec, f.usec, true)
        )
    }
}

fn iso_8601(f: &Fields) -> String {
    let time = f.hour != 0 || f.min != 0 || f.sec != 0 || f.usec != 0;
    if f.year == 0 && f.mon == 0 && f.day == 0 && !time {
        return "PT0S".into();
    }
    let mut out = String::from("P");
    let part = |value: i64, unit: char, out: &mut String| {
        if value != 0 {
            out.push_str(&format!("{value}{unit}"));
        }
    };
    part(f.year, 'Y', &mut out);
    part(f.mon, 'M', &mut out);
    part(f.day, 'D', &mut out);
    if time {
        out.push('T');
    }
    part(f.hour, 'H', &mut out);
    part(f.min, 'M', &mut out);
    if f.sec != 0 || f.usec != 0 {
        if f.seconds_negative() {
            out.push('-');
        }
        out.push_str(&seconds(f.sec, f.usec, false));
        out.push('S');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const H: i64 = USECS_PER_HOUR;
    const M: i64 = USECS_PER_MINUTE;
    const S: i64 = USECS_PER_SEC;

    // Each line as PostgreSQL 15 prints the same value in each style
    // (`SET IntervalStyle`; interval.sql's expected output).
    #[test]
    fn styles_are_postgresql_15s() {
        use IntervalStyle::*;
        let mixed = Interval::new(14, -3, 4 * H + 5 * M + 6_500_000);
        let cases = [
            (Interval::ZERO, "@ 0", "0", "PT0S"),
            (
                mixed,
                "@ 1 year 2 mons -3 days 4 hours 5 mins 6.5 secs",
                "+1-2 -3 +4:05:06.5",
                "P1Y2M-3DT4H5M6.5S",
            ),
            (Interval::new(14, 0, 0), "@ 1 year 2 mons", "1-2", "P1Y2M"),
            (
                Interval::new(-14, 0, 0),
                "@ 1 year 2 mons ago",
                "-1-2",
                "P-1Y-2M",
            ),
            (
                Interval::new(0, 3, 4 * H + 5 * M + 6 * S),
                "@ 3 days 4 hours 5 mins 6 secs",
                "3 4:05:06",
                "P3DT4H5M6S",
            ),
            (
                Interval::new(0, -1, H),
                "@ 1 day -1 hours ago",
                "+0-0 -1 +1:00:00",
                "P-1DT1H",
            ),
            (
                Interval::new(0, 0, -(S + 500_000)),
                "@ 1.5 secs ago",
                "-0:00:01.5",
                "PT-1.5S",
            ),
            (Interval::new(0, 0, S), "@ 1 sec", "0:00:01", "PT1S"),
        ];
        for (i, v, sql, iso) in cases {
            assert_eq!(interval_text(&i, PostgresVerbose), v, "{i:?}");
            assert_eq!(interval_text(&i, SqlStandard), sql, "{i:?}");
            assert_eq!(interval_text(&i, Iso8601), iso, "{i:?}");
        }
    }
}
