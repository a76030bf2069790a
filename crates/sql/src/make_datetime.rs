//! `make_date(year, month, day)`, `make_timestamp(year, month, day,
//! hour, min, sec)` and `make_time(hour, min, sec)`: a date, timestamp
//! or time from its fields, checked as
//! PostgreSQL checks them (22008 naming the fields for one out of range;
//! a negative year is BC, year 0 does not exist).

use crate::error::SqlError;
use crate::functions::int_arg;
use folio_row::{SqlType, Value};

/// A function making a date or timestamp of its fields.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MakeFunc {
    Date,
    Timestamp,
    Time,
}

const NAMES: [(&str, MakeFunc); 3] = [
    ("make_date", MakeFunc::Date),
    ("make_timestamp", MakeFunc::Timestamp),
    ("make_time", MakeFunc::Time),
];

impl MakeFunc {
    pub fn of(name: &str) -> Option<MakeFunc> {
        crate::names::lookup(&NAMES, name)
    }

    pub fn name(self) -> Option<&'static str> {
        crate::names::name_in(&NAMES, &self)
    }

    pub fn takes(self, count: usize) -> bool {
        count
            == match self {
                MakeFunc::Date | MakeFunc::Time => 3,
                MakeFunc::Timestamp => 6,
            }
    }

    pub fn ty(self) -> SqlType {
        match self {
            MakeFunc::Date => SqlType::Date,
            MakeFunc::Timestamp => SqlType::Timestamp(None),
            MakeFunc::Time => SqlType::Time(None),
        }
    }

    /// Its value (no argument NULL: both are strict).
    pub fn eval(self, args: &[Value]) -> Result<Value, SqlError> {
        let field = |i: usize| int_arg(&args[i]);
        let seconds =
            |i: usize, name: &str| match crate::types::cast(args[i].clone(), SqlType::Float8)? {
                Value::Float8(s) => Ok(s),
                other => Err(crate::functions::no_match(format!(
                    "function {name} with a {} seconds argument does not exist",
                    other.type_name()
                ))),
            };
        if self == MakeFunc::Time {
            return Ok(Value::Time(time_of_day(
                field(0)?,
                field(1)?,
                seconds(2, "make_time")?,
            )?));
        }
        let days = day_number(field(0)?, field(1)?, field(2)?)?;
        match self {
            MakeFunc::Date => {
                let days =
                    i32::try_from(days).map_err(|_| SqlError::new("22008", "date out of range"))?;
                Ok(Value::Date(days))
            }
            MakeFunc::Time => unreachable!("made above"),
            MakeFunc::Timestamp => {
                let second = seconds(5, "make_timestamp")?;
                let micros = time_of_day(field(3)?, field(4)?, second)?;
                // Past the last timestamp (never an infinity): the
                // fields in the message, as PostgreSQL's `%d-%02d-%02d
                // %d:%02d:%g`.
                let out_of_range = || {
                    let [y, mo, d, h, mi] = [0, 1, 2, 3, 4].map(|i| field(i).unwrap_or(0));
                    SqlError::new(
                        "22008",
                        format!(
                            "timestamp out of range: {y}-{mo:02}-{d:02} {h}:{mi:02}:{}",
                            six_digits(second)
                        ),
                    )
                };
                days.checked_mul(crate::datetime::DAY)
                    .and_then(|d| d.checked_add(micros))
                    .filter(|&t| folio_row::calendar::is_valid_timestamp(t))
                    .map(Value::Timestamp)
                    .ok_or_else(out_of_range)
            }
        }
    }
}

/// Seconds (0 to 60) to six significant digits, trailing zeros cut
/// (C's `%g` for them).
fn six_digits(seconds: f64) -> String {
    let whole_digits = if seconds >= 10.0 { 2 } else { 1 };
    let text = format!("{seconds:.prec$}", prec = 6 - whole_digits);
    match text.contains('.') {
        true => text.trim_end_matches('0').trim_end_matches('.').to_string(),
        false => text,
    }
}

/// Days since 2000-01-01 of a year (negative: BC), month and day.
fn day_number(year: i64, month: i64, day: i64) -> Result<i64, SqlError> {
    let out = || {
        SqlError::new(
            "22008",
            format!("date field value out of range: {year}-{month:02}-{day:02}"),
        )
    };
    // Astronomical years: 1 BC is year 0.
    let astronomical = match year {
        0 => return Err(out()),
        y if y < 0 => y + 1,
        y => y,
    };
    if !(-4713..=5_874_897).contains(&astronomical)
        || !(1..=12).contains(&month)
        || day < 1
        || day > folio_row::calendar::days_in_month(astronomical, month)
    {
        return Err(out());
    }
    Ok(folio_row::calendar::day_number(astronomical, month, day))
}

/// Microseconds since midnight of an hour, minute and seconds (24:00:00
/// is allowed, as PostgreSQL's).
fn time_of_day(hour: i64, minute: i64, seconds: f64) -> Result<i64, SqlError> {
    let micros = (seconds * 1e6).round();
    let total = hour
        .checked_mul(3_600_000_000)
        .and_then(|h| h.checked_add(minute.checked_mul(60_000_000)?));
    let fits = (0..24).contains(&hour) && (0..60).contains(&minute);
    match total {
        Some(t)
            if micros.is_finite()
                && (0.0..=60e6).contains(&micros)
                && (fits || (hour == 24 && minute == 0 && micros == 0.0))
                && t + micros as i64 <= crate::datetime::DAY =>
        {
            Ok(t + micros as i64)
        }
        _ => Err(SqlError::new(
            "22008",
            format!("time field value out of range: {hour}:{minute:02}:{seconds:02}"),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Proves the fields' checks: PostgreSQL's values and 22008s.
    #[test]
    fn fields_are_checked() {
        let date = |y, m, d| MakeFunc::Date.eval(&[Value::Int4(y), Value::Int4(m), Value::Int4(d)]);
        assert_eq!(date(2000, 1, 1).unwrap(), Value::Date(0));
        assert_eq!(date(2024, 2, 29).unwrap(), Value::Date(8825));
        let e = date(2023, 2, 29).unwrap_err();
        assert_eq!(e.code, "22008");
        assert_eq!(e.message, "date field value out of range: 2023-02-29");
        assert_eq!(date(0, 1, 1).unwrap_err().code, "22008");
        assert_eq!(date(-1, 12, 31).unwrap(), Value::Date(-730_120));
        let ts = |h, mi, s: f64| {
            MakeFunc::Timestamp.eval(&[
                Value::Int4(2000),
                Value::Int4(1),
                Value::Int4(1),
                Value::Int4(h),
                Value::Int4(mi),
                Value::Float8(s),
            ])
        };
        assert_eq!(ts(1, 2, 3.5).unwrap(), Value::Timestamp(3_723_500_000));
        assert_eq!(ts(24, 0, 0.0).unwrap(), Value::Timestamp(86_400_000_000));
        assert_eq!(ts(24, 0, 1.0).unwrap_err().code, "22008");
        assert_eq!(ts(1, 60, 0.0).unwrap_err().code, "22008");
    }
}
