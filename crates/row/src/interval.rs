//! PostgreSQL's `interval`: months, days and microseconds, kept apart
//! because a month has no fixed length in days nor a day in hours (across
//! a daylight-saving change; folio's sessions are in UTC). The three
//! parts each carry their own sign (`1 mon -3 days`).
//!
//! Rules, each PostgreSQL 15's:
//! - **order and equality** by the span with a month as 30 days and a
//!   day as 24 hours (`1 mon` = `30 days`), [`Interval::span`];
//! - **output** in the `postgres` IntervalStyle: `1 year 2 mons 3 days
//!   04:05:06.5`, a field with a sign opposite to the one before it gets a
//!   `+` (`-1 days +02:00:00`), `00:00:00` for zero;
//! - **input**: `interval_input.rs`;
//! - **arithmetic**: `+`/`-` field by field; `*`/`/` by a float cascade
//!   the fractions of months to days (30 a month) and of days to seconds,
//!   never up; adding to a timestamp adds the months on the calendar (the
//!   day clamped to the month's last), then the days, then the time;
//!   a timestamp minus a timestamp is hours justified into days.

use crate::error::RowError;
use crate::infinite_datetime::Infinity;
use std::cmp::Ordering;
use std::fmt;

pub const USECS_PER_SEC: i64 = 1_000_000;
pub const USECS_PER_MINUTE: i64 = 60 * USECS_PER_SEC;
pub const USECS_PER_HOUR: i64 = 60 * USECS_PER_MINUTE;
pub const USECS_PER_DAY: i64 = 24 * USECS_PER_HOUR;
const DAYS_PER_MONTH: i32 = 30;
const SECS_PER_DAY: f64 = 86_400.0;

/// An interval value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Interval {
    pub months: i32,
    pub days: i32,
    pub micros: i64,
}

fn interval_out_of_range() -> RowError {
    RowError::IntervalOutOfRange
}

fn timestamp_out_of_range() -> RowError {
    RowError::TimestampOutOfRange
}

/// PostgreSQL's `TSROUND`: a float rounded to microsecond precision.
fn ts_round(x: f64) -> f64 {
    (x * 1e6).round_ties_even() / 1e6
}

/// A float that must fit an `i32` field (`interval out of range`).
fn fits_i32(x: f64) -> Result<i32, RowError> {
    if x.is_nan() || x > f64::from(i32::MAX) || x < f64::from(i32::MIN) {
        return Err(interval_out_of_range());
    }
    Ok(x as i32)
}

/// `low` (in units of which `unit` make one of `high`) with its whole
/// `high` units moved to `high`, then given `high`'s sign (borrowing one
/// `high` unit): PostgreSQL's justification of an interval's parts.
fn carry(high: i32, low: i128, unit: i128) -> Result<(i32, i128), RowError> {
    let whole = i32::try_from(low / unit).map_err(|_| interval_out_of_range())?;
    let mut high = high.checked_add(whole).ok_or_else(interval_out_of_range)?;
    let mut low = low % unit;
    if high > 0 && low < 0 {
        low += unit;
        high -= 1;
    } else if high < 0 && low > 0 {
        low -= unit;
        high += 1;
    }
    Ok((high, low))
}

impl Interval {
    pub const ZERO: Interval = Interval {
        months: 0,
        days: 0,
        micros: 0,
    };

    pub fn new(months: i32, days: i32, micros: i64) -> Interval {
        Interval {
            months,
            days,
            micros,
        }
    }

    /// The span in microseconds with a month as 30 days: the one measure
    /// intervals are ordered, compared and grouped by.
    pub fn span(&self) -> i128 {
        (i128::from(self.months) * i128::from(DAYS_PER_MONTH) + i128::from(self.days))
            * i128::from(USECS_PER_DAY)
            + i128::from(self.micros)
    }

    /// The interval of a span (as index keys store it): whole months of
    /// 30 days, then days, then the time, each with the span's sign.
    pub fn from_span(span: i128) -> Result<Interval, RowError> {
        let month = i128::from(DAYS_PER_MONTH) * i128::from(USECS_PER_DAY);
        let day = i128::from(USECS_PER_DAY);
        // Whole months as far as an i32 holds them, then days, then the
        // rest in microseconds (a span past i32::MAX months still has
        // an interval of its span: the months' overflow in days).
        let months = (span / month).clamp(i128::from(i32::MIN), i128::from(i32::MAX));
        let rest = span - months * month;
        let days = (rest / day).clamp(i128::from(i32::MIN), i128::from(i32::MAX));
        let micros = i64::try_from(rest - days * day).map_err(|_| interval_out_of_range())?;
        Ok(Interval::new(months as i32, days as i32, micros))
    }

    /// PostgreSQL's interval order.
    pub fn cmp_span(&self, other: &Interval) -> Ordering {
        self.span().cmp(&other.span())
    }

    /// `a + b`, field by field.
    pub fn checked_add(self, other: Interval) -> Result<Interval, RowError> {
        Ok(Interval {
            months: (self.months.checked_add(other.months)).ok_or_else(interval_out_of_range)?,
            days: (self.days.checked_add(other.days)).ok_or_else(interval_out_of_range)?,
            micros: (self.micros.checked_add(other.micros)).ok_or_else(interval_out_of_range)?,
        })
    }

    /// `-a`.
    pub fn checked_neg(self) -> Result<Interval, RowError> {
        Ok(Interval {
            months: self
                .months
                .checked_neg()
                .ok_or_else(interval_out_of_range)?,
            days: self.days.checked_neg().ok_or_else(interval_out_of_range)?,
            micros: self
                .micros
                .checked_neg()
                .ok_or_else(interval_out_of_range)?,
        })
    }

    /// `a - b`.
    pub fn checked_sub(self, other: Interval) -> Result<Interval, RowError> {
        self.checked_add(other.checked_neg()?)
    }

    /// `a * factor` (PostgreSQL's `interval_mul`): whole months and days
    /// of the products, their fractions cascaded down to days and
    /// seconds.
    pub fn times(self, factor: f64) -> Result<Interval, RowError> {
        let months = fits_i32(f64::from(self.months) * factor)?;
        let days = fits_i32(f64::from(self.days) * factor)?;
        self.cascade(
            months,
            days,
            f64::from(self.months) * factor,
            f64::from(self.days) * factor,
            self.micros as f64 * factor,
        )
    }

    /// `a / divisor` (PostgreSQL's `interval_div`); 22012 for zero.
    pub fn divided_by(self, divisor: f64) -> Result<Interval, RowError> {
        if divisor == 0.0 {
            return Err(RowError::DivisionByZero);
        }
        let months = fits_i32(f64::from(self.months) / divisor)?;
        let days = fits_i32(f64::from(self.days) / divisor)?;
        self.cascade(
            months,
            days,
            f64::from(self.months) / divisor,
            f64::from(self.days) / divisor,
            self.micros as f64 / divisor,
        )
    }

    /// The result of a scaling whose exact products are `month_product`,
    /// `day_product` and `time_product` and whose whole months and days
    /// are `months` and `days`: the fractions go down a unit at a time.
    fn cascade(
        self,
        months: i32,
        mut days: i32,
        month_product: f64,
        day_product: f64,
        time_product: f64,
    ) -> Result<Interval, RowError> {
        let month_remainder_days = ts_round((month_product - f64::from(months)) * 30.0);
        let mut sec_remainder = ts_round(
            (day_product - f64::from(days) + month_remainder_days - month_remainder_days.trunc())
                * SECS_PER_DAY,
        );
        if sec_remainder.abs() >= SECS_PER_DAY {
            let whole = (sec_remainder / SECS_PER_DAY).trunc();
            days = days
                .checked_add(whole as i32)
                .ok_or_else(interval_out_of_range)?;
            sec_remainder -= whole * SECS_PER_DAY;
        }
        days = days
            .checked_add(month_remainder_days as i32)
            .ok_or_else(interval_out_of_range)?;
        let micros = (time_product + sec_remainder * 1e6).round_ties_even();
        // (NaN is outside every range.)
        if !(-9.223_372_036_854_775e18..9.223_372_036_854_775e18).contains(&micros) {
            return Err(interval_out_of_range());
        }
        Ok(Interval::new(months, days, micros as i64))
    }

    /// `justify_hours`: whole days of the time moved to the days, the
    /// time then given the days' sign.
    pub fn justify_hours(self) -> Result<Interval, RowError> {
        let (days, micros) = carry(self.days, self.micros.into(), USECS_PER_DAY.into())?;
        Ok(Interval::new(self.months, days, micros as i64))
    }

    /// `justify_days`: whole 30-day months of the days moved to the
    /// months, the days then given the months' sign.
    pub fn justify_days(self) -> Result<Interval, RowError> {
        let (months, days) = carry(self.months, self.days.into(), DAYS_PER_MONTH.into())?;
        Ok(Interval::new(months, days as i32, self.micros))
    }

    /// `justify_interval`: both justifications, with one sign throughout
    /// (the days and time taken together against the months).
    pub fn justify_interval(self) -> Result<Interval, RowError> {
        let day = i128::from(USECS_PER_DAY);
        let rest = i128::from(self.days) * day + i128::from(self.micros);
        let (months, rest) = carry(self.months, rest, i128::from(DAYS_PER_MONTH) * day)?;
        let (days, micros) = carry(0, rest, day)?;
        Ok(Interval::new(months, days, micros as i64))
    }

    /// `timestamp + interval` (microseconds since 2000-01-01): the months
    /// on the calendar (a day past the new month's end becomes its last),
    /// then the days, then the time; 22008 outside PostgreSQL's range.
    /// An infinite timestamp stays itself.
    pub fn add_to_timestamp(self, timestamp: i64) -> Result<i64, RowError> {
        if Infinity::of_timestamp(timestamp).is_some() {
            return Ok(timestamp);
        }
        let mut t = timestamp;
        if self.months != 0 {
            let (days, time) = (t.div_euclid(USECS_PER_DAY), t.rem_euclid(USECS_PER_DAY));
            let (y, m, d) = crate::calendar::ymd(days);
            let total = y * 12 + (m - 1) + i64::from(self.months);
            let (y, m) = (total.div_euclid(12), total.rem_euclid(12) + 1);
            let d = d.min(crate::calendar::days_in_month(y, m));
            t = crate::calendar::day_number(y, m, d)
                .checked_mul(USECS_PER_DAY)
                .and_then(|t| t.checked_add(time))
                .ok_or_else(timestamp_out_of_range)?;
        }
        if self.days != 0 {
            // By the day, as PostgreSQL adds days to the date: a number of
            // days whose microseconds overflow may still land in range
            // from a date before 2000 (`'4713-01-01 BC' + 109203489 days`).
            let day = t.div_euclid(USECS_PER_DAY) + i64::from(self.days);
            t = day
                .checked_mul(USECS_PER_DAY)
                .and_then(|d| d.checked_add(t.rem_euclid(USECS_PER_DAY)))
                .ok_or_else(timestamp_out_of_range)?;
        }
        t = t
            .checked_add(self.micros)
            .ok_or_else(timestamp_out_of_range)?;
        if !crate::calendar::is_valid_timestamp(t) {
            return Err(timestamp_out_of_range());
        }
        Ok(t)
    }

    /// `a - b` of two timestamps: the microseconds between them with whole
    /// days moved to the days (`justify_hours`); 22008 `cannot subtract
    /// infinite timestamps` when either is infinite.
    pub fn between(a: i64, b: i64) -> Result<Interval, RowError> {
        if Infinity::of_timestamp(a).is_some() || Infinity::of_timestamp(b).is_some() {
            return Err(RowError::InfiniteSubtraction("timestamps"));
        }
        let micros = a.checked_sub(b).ok_or_else(interval_out_of_range)?;
        Interval::new(0, 0, micros).justify_hours()
    }

    /// `age(a, b)`: the calendar difference in years, months and days
    /// (borrowing a month's length from `b`'s month, or `a`'s when `a` is
    /// earlier), then the time.
    pub fn age(a: i64, b: i64) -> Result<Interval, RowError> {
        let fields = |t: i64| {
            let (days, time) = (t.div_euclid(USECS_PER_DAY), t.rem_euclid(USECS_PER_DAY));
            let (y, m, d) = crate::calendar::ymd(days);
            (y, m, d, time)
        };
        let (y1, m1, d1, t1) = fields(a);
        let (y2, m2, d2, t2) = fields(b);
        let earlier = a < b;
        let sign = if earlier { -1 } else { 1 };
        let (mut years, mut months, mut days, mut time) = (
            sign * (y1 - y2),
            sign * (m1 - m2),
            sign * (d1 - d2),
            sign * (t1 - t2),
        );
        if time < 0 {
            time += USECS_PER_DAY;
            days -= 1;
        }
        while days < 0 {
            let (y, m) = if earlier { (y1, m1) } else { (y2, m2) };
            days += crate::calendar::days_in_month(y, m);
            months -= 1;
        }
        while months < 0 {
            months += 12;
            years -= 1;
        }
        let total_months = years * 12 + months;
        let out = Interval {
            months: i32::try_from(total_months).map_err(|_| interval_out_of_range())?,
            days: days as i32,
            micros: time,
        };
        if earlier { out.checked_neg() } else { Ok(out) }
    }

    /// The interval in PostgreSQL's `postgres` IntervalStyle.
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        let mut is_zero = true;
        let mut is_before = false;
        let mut part = |value: i32, unit: &str, out: &mut String| {
            if value == 0 {
                return;
            }
            if !is_zero {
                out.push(' ');
            }
            if is_before && value > 0 {
                out.push('+');
            }
            out.push_str(&format!(
                "{value} {unit}{}",
                if value != 1 { "s" } else { "" }
            ));
            is_before = value < 0;
            is_zero = false;
        };
        part(self.months / 12, "year", &mut out);
        part(self.months % 12, "mon", &mut out);
        part(self.days, "day", &mut out);
        if is_zero || self.micros != 0 {
            let minus = self.micros < 0;
            let abs = self.micros.unsigned_abs();
            let usecs = |u: i64| u as u64;
            let hours = abs / usecs(USECS_PER_HOUR);
            let minutes = abs / usecs(USECS_PER_MINUTE) % 60;
            let seconds = abs / usecs(USECS_PER_SEC) % 60;
            let fraction = abs % usecs(USECS_PER_SEC);
            if !is_zero {
                out.push(' ');
            }
            out.push_str(if minus {
                "-"
            } else if is_before {
                "+"
            } else {
                ""
            });
            out.push_str(&format!("{hours:02}:{minutes:02}:{seconds:02}"));
            if fraction != 0 {
                let digits = format!("{fraction:06}");
                out.push('.');
                out.push_str(digits.trim_end_matches('0'));
            }
        }
        out
    }
}

impl fmt::Display for Interval {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_text())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const H: i64 = USECS_PER_HOUR;

    // Proves the `postgres` IntervalStyle output, each line as PostgreSQL
    // 15 prints the same value.
    #[test]
    fn output_is_postgres_style() {
        let cases = [
            (Interval::ZERO, "00:00:00"),
            (
                Interval::new(14, -3, 4 * H + 5 * 60_000_000 + 6_500_000),
                "1 year 2 mons -3 days +04:05:06.5",
            ),
            (Interval::new(0, -1, 2 * H), "-1 days +02:00:00"),
            (Interval::new(1, 15, 0), "1 mon 15 days"),
            (Interval::new(0, 0, -1_000_000), "-00:00:01"),
            (Interval::new(0, 1, 0), "1 day"),
            (Interval::new(-13, 0, 0), "-1 years -1 mons"),
            (Interval::new(0, 0, 100 * H + 1), "100:00:00.000001"),
            (Interval::new(0, -1, -3 * H), "-1 days -03:00:00"),
        ];
        for (interval, text) in cases {
            assert_eq!(interval.to_text(), text, "{interval:?}");
        }
    }

    // Proves multiplication and division cascade fractions down as
    // PostgreSQL 15 does (each expected value printed by it).
    #[test]
    fn scaling_cascades_fractions_down() {
        let text = |r: Result<Interval, RowError>| r.unwrap().to_text();
        assert_eq!(text(Interval::new(1, 0, 0).times(1.5)), "1 mon 15 days");
        assert_eq!(text(Interval::new(0, 1, 0).times(0.3)), "07:12:00");
        assert_eq!(
            text(Interval::new(13, 1, H).divided_by(7.0)),
            "1 mon 25 days 20:42:51.453257"
        );
        assert_eq!(text(Interval::new(0, 1, 0).divided_by(3.0)), "08:00:00");
        assert_eq!(text(Interval::new(-1, 0, 0).times(0.5)), "-15 days");
        assert_eq!(
            Interval::new(0, 1, 0)
                .divided_by(0.0)
                .unwrap_err()
                .sqlstate(),
            "22012"
        );
        assert_eq!(
            Interval::new(i32::MAX, 0, 0)
                .times(2.0)
                .unwrap_err()
                .sqlstate(),
            "22008"
        );
    }

    // Proves calendar arithmetic: month ends clamp, leap days, timestamp
    // differences justified into days, justify_* and age as PostgreSQL's.
    #[test]
    fn calendar_arithmetic() {
        let day = |y, m, d| crate::calendar::day_number(y, m, d) * USECS_PER_DAY;
        let month = Interval::new(1, 0, 0);
        assert_eq!(
            month.add_to_timestamp(day(2024, 1, 31)).unwrap(),
            day(2024, 2, 29)
        );
        assert_eq!(
            Interval::new(12, 0, 0)
                .add_to_timestamp(day(2024, 2, 29))
                .unwrap(),
            day(2025, 2, 28)
        );
        assert_eq!(
            Interval::new(-1, 0, 0)
                .add_to_timestamp(day(2024, 3, 31))
                .unwrap(),
            day(2024, 2, 29)
        );
        assert_eq!(
            Interval::between(day(2024, 1, 2) + 3 * H, day(2023, 12, 1))
                .unwrap()
                .to_text(),
            "32 days 03:00:00"
        );
        assert_eq!(
            Interval::between(day(2024, 1, 1), day(2024, 1, 2) + 3 * H)
                .unwrap()
                .to_text(),
            "-1 days -03:00:00"
        );
        assert_eq!(
            Interval::new(0, 40, 0).justify_days().unwrap().to_text(),
            "1 mon 10 days"
        );
        assert_eq!(
            Interval::new(0, 0, 30 * H)
                .justify_hours()
                .unwrap()
                .to_text(),
            "1 day 06:00:00"
        );
        assert_eq!(
            Interval::new(1, 0, -H)
                .justify_interval()
                .unwrap()
                .to_text(),
            "29 days 23:00:00"
        );
        assert_eq!(
            Interval::age(day(2024, 3, 1), day(2023, 1, 31) + 12 * H)
                .unwrap()
                .to_text(),
            "1 year 1 mon 12:00:00"
        );
        assert_eq!(
            Interval::age(day(2023, 1, 31) + 12 * H, day(2024, 3, 1))
                .unwrap()
                .to_text(),
            "-1 years -1 mons -12:00:00"
        );
        assert_eq!(
            Interval::new(0, 0, 1)
                .add_to_timestamp(crate::calendar::END_TIMESTAMP - 1)
                .unwrap_err()
                .sqlstate(),
            "22008"
        );
        // Days whose microseconds overflow land in range from far back
        // (horology.sql: 4713-01-01 BC + 109203489 days is 294276-12-31).
        let far_back = crate::calendar::day_number(-4712, 1, 1) * USECS_PER_DAY;
        assert_eq!(
            Interval::new(0, 109_203_489, 0)
                .add_to_timestamp(far_back)
                .unwrap(),
            day(294_276, 12, 31)
        );
        // An infinity stays itself, and a difference with one is 22008.
        for infinity in [i64::MIN, i64::MAX] {
            assert_eq!(
                Interval::new(-3, 10, 5).add_to_timestamp(infinity).unwrap(),
                infinity
            );
            let err = Interval::between(infinity, 0).unwrap_err();
            assert_eq!(err.to_string(), "cannot subtract infinite timestamps");
            assert_eq!(err.sqlstate(), "22008");
        }
        assert_eq!(
            Interval::new(1, 0, 0).cmp_span(&Interval::new(0, 30, 0)),
            Ordering::Equal
        );
        for span in [0, 1, -1, 86_400_000_000 * 31 + 5, -(86_400_000_000 * 400)] {
            assert_eq!(Interval::from_span(span).unwrap().span(), span);
        }
    }
}
