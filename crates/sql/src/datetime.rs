//! The fields of `date`, `timestamp` and `timestamptz` (days and
//! microseconds since PostgreSQL's epoch 2000-01-01, UTC, folio's only
//! time zone) that `EXTRACT`/`date_part` and `date_trunc` read, over
//! folio-row's calendar; their text forms are folio-row's
//! (`datetime_input.rs`, `text.rs`).

use crate::error::SqlError;
use folio_row::{Infinity, Numeric, calendar};

/// Microseconds in a day.
pub const DAY: i64 = 86_400_000_000;
/// Days from 1970-01-01 to 2000-01-01.
pub const UNIX_TO_2000: i64 = calendar::EPOCH_DAYS;

/// Now, in microseconds since 2000-01-01 UTC (folio-row's clock, which
/// `'now'` and `'today'` read too).
pub use folio_row::calendar::now;

/// The days in month `m` of year `y` (folio-row's calendar).
pub fn days_in_month(y: i64, m: u32) -> u32 {
    calendar::days_in_month(y, i64::from(m)) as u32
}

/// Year, month, day of days since 2000-01-01 (folio-row's calendar).
pub fn ymd(days: i64) -> (i64, u32, u32) {
    let (y, m, d) = calendar::ymd(days);
    (y, m as u32, d as u32)
}

/// Days since 2000-01-01 of a civil date.
pub fn days(y: i64, m: u32, d: u32) -> i64 {
    calendar::day_number(y, i64::from(m), i64::from(d))
}

/// Microseconds since 1970-01-01 of a timestamp's (microseconds since
/// 2000-01-01), wide enough for the latest timestamp.
pub fn epoch_micros(micros: i64) -> i128 {
    i128::from(micros) + i128::from(UNIX_TO_2000 * DAY)
}

/// A field of a timestamp (microseconds since 2000-01-01) as `EXTRACT`
/// reads it: `year`, `month`, `day`, `hour`, `minute`, `second` (with
/// its fraction), `dow` (Sunday 0), `isodow`, `doy`, `quarter`, `week`,
/// `epoch` (seconds since 1970), `microseconds`, `milliseconds`,
/// `century`, `decade`, `millennium`.
pub fn part(field: &str, micros: i64) -> Result<f64, SqlError> {
    let days = micros.div_euclid(DAY);
    let in_day = micros.rem_euclid(DAY);
    let (y, m, d) = ymd(days);
    let whole_seconds = (in_day / 1_000_000 % 60) as f64;
    let fraction_micros = (in_day % 1_000_000) as f64;
    let dow = (days + 6).rem_euclid(7); // 2000-01-01 was a Saturday.
    let doy = days - self::days(y, 1, 1) + 1;
    // `y` is astronomical (0 is 1 BC); PostgreSQL's fields count BC years
    // from -1, with no year 0.
    Ok(match field.to_ascii_lowercase().as_str() {
        "year" => (if y > 0 { y } else { y - 1 }) as f64,
        "month" => f64::from(m),
        "day" => f64::from(d),
        "hour" => (in_day / 3_600_000_000) as f64,
        "minute" => (in_day / 60_000_000 % 60) as f64,
        // As PostgreSQL computes them (whole seconds and the fraction
        // apart), so the doubles are its.
        "second" => whole_seconds + fraction_micros / 1e6,
        "milliseconds" => whole_seconds * 1e3 + fraction_micros / 1e3,
        "microseconds" => whole_seconds * 1e6 + fraction_micros,
        "dow" => dow as f64,
        "isodow" => (if dow == 0 { 7 } else { dow }) as f64,
        "doy" => doy as f64,
        "quarter" => f64::from((m - 1) / 3 + 1),
        "week" => iso_week(days) as f64,
        "isoyear" => {
            let iso_year = ymd(days - (days + 5).rem_euclid(7) + 3).0;
            (if iso_year > 0 { iso_year } else { iso_year - 1 }) as f64
        }
        "epoch" => epoch_micros(micros) as f64 / 1e6,
        // The Julian day and the fraction of the day past midnight.
        "julian" => {
            (days + calendar::JULIAN_DAY_2000) as f64
                + ((in_day / 1_000_000) as f64 + fraction_micros / 1e6) / 86_400.0
        }
        "decade" => {
            (if y >= 0 {
                y / 10
            } else {
                -((8 - (y - 1)) / 10)
            }) as f64
        }
        "century" => {
            (if y > 0 {
                (y + 99) / 100
            } else {
                -((99 - (y - 1)) / 100)
            }) as f64
        }
        "millennium" => {
            (if y > 0 {
                (y + 999) / 1000
            } else {
                -((999 - (y - 1)) / 1000)
            }) as f64
        }
        other => {
            return Err(SqlError::new(
                "22023",
                format!("unit \"{other}\" not recognized for type timestamp"),
            ));
        }
    })
}

/// `EXTRACT(epoch FROM timestamp)`: exact microseconds, but past
/// `i64::MAX` microseconds since 1970 (the last months of the range)
/// the quotient numeric division gives, rounded to six places, as
/// PostgreSQL 15's `timestamp_part_common` computes it.
pub fn epoch_numeric(micros: i64) -> Result<Numeric, SqlError> {
    let since_1970 = epoch_micros(micros);
    if let Ok(exact) = i64::try_from(since_1970) {
        return Ok(Numeric::new(i128::from(exact), 6)?);
    }
    let seconds = crate::numeric_functions::div(
        &Numeric::new(since_1970, 0)?,
        &Numeric::from_i64(1_000_000),
    )?;
    crate::numeric_functions::round(&seconds, 6, folio_row::Rounding::HalfAwayFromZero)
}

/// `EXTRACT(julian FROM timestamp)`: the Julian day plus the day's
/// fraction past midnight as numeric division gives it (PostgreSQL 15's
/// `timestamp_part_common`: microseconds of the day over a day's).
pub fn julian_numeric(micros: i64) -> Result<Numeric, SqlError> {
    let day = Numeric::from_i64(micros.div_euclid(DAY) + calendar::JULIAN_DAY_2000);
    let fraction = crate::numeric_functions::div(
        &Numeric::from_i64(micros.rem_euclid(DAY)),
        &Numeric::from_i64(DAY),
    )?;
    Ok(day.checked_add(&fraction)?)
}

/// A field of an infinite date or timestamp, as PostgreSQL 15's
/// `NonFiniteTimestampTzPart`: the infinity itself (as a double) for
/// the fields that grow with time, `None` (NULL) for the others, and a
/// field no timestamp has is the error [`part`] gives.
pub fn infinite_part(field: &str, infinity: Infinity) -> Result<Option<f64>, SqlError> {
    match field {
        "year" | "decade" | "century" | "millennium" | "julian" | "isoyear" | "epoch" => {
            Ok(Some(infinity.float()))
        }
        "timezone" | "timezone_hour" | "timezone_minute" => Ok(None),
        _ => part(field, 0).map(|_| None),
    }
}

/// The ISO 8601 week number of a day (since 2000-01-01).
fn iso_week(days: i64) -> i64 {
    let isodow = (days + 5).rem_euclid(7) + 1; // Monday 1.
    let thursday = days - isodow + 4;
    let (y, _, _) = ymd(thursday);
    (thursday - self::days(y, 1, 1)) / 7 + 1
}

/// `date_trunc(field, timestamp)`: the timestamp cut to the start of its
/// `field` (`microseconds` to `millennium`).
pub fn trunc(field: &str, micros: i64) -> Result<i64, SqlError> {
    let days = micros.div_euclid(DAY);
    let (y, m, _) = ymd(days);
    let unit = |u: i64| Ok(micros.div_euclid(u) * u);
    let year_start = |y: i64| Ok(self::days(y, 1, 1) * DAY);
    match field.to_ascii_lowercase().as_str() {
        "microseconds" => Ok(micros),
        "milliseconds" => unit(1_000),
        "second" => unit(1_000_000),
        "minute" => unit(60_000_000),
        "hour" => unit(3_600_000_000),
        "day" => unit(DAY),
        "week" => {
            let isodow = (days + 5).rem_euclid(7); // Monday 0.
            Ok((days - isodow) * DAY)
        }
        "month" => Ok(self::days(y, m, 1) * DAY),
        "quarter" => Ok(self::days(y, (m - 1) / 3 * 3 + 1, 1) * DAY),
        "year" => year_start(y),
        "decade" => year_start(y.div_euclid(10) * 10),
        "century" => year_start((y - 1).div_euclid(100) * 100 + 1),
        "millennium" => year_start((y - 1).div_euclid(1000) * 1000 + 1),
        other => Err(SqlError::new(
            "22023",
            format!("unit \"{other}\" not recognized for type timestamp"),
        )),
    }
}

/// `date_bin(stride, source, origin)`, PostgreSQL's `timestamp_bin`: the
/// start of the bin of width `stride`, counted from `origin`, that holds
/// `source` (all in microseconds; before `origin` the bins go on
/// backwards); an infinite source is itself, an infinite origin 22008,
/// as is a bin starting before the first timestamp.
/// A stride of months or years is 0A000, one not above zero
/// 22023.
pub fn bin(stride: folio_row::Interval, source: i64, origin: i64) -> Result<i64, SqlError> {
    // An infinite source is itself; an infinite origin has no bins.
    if Infinity::of_timestamp(source).is_some() {
        return Ok(source);
    }
    if Infinity::of_timestamp(origin).is_some() {
        return Err(SqlError::new("22008", "origin out of range"));
    }
    if stride.months != 0 {
        return Err(SqlError::new(
            "0A000",
            "timestamps cannot be binned into intervals containing months or years",
        ));
    }
    let out_of_range = || SqlError::new("22008", "interval out of range");
    let width = i64::from(stride.days)
        .checked_mul(DAY)
        .and_then(|d| d.checked_add(stride.micros))
        .ok_or_else(out_of_range)?;
    if width <= 0 {
        return Err(SqlError::new("22023", "stride must be greater than zero"));
    }
    let since = source.checked_sub(origin).ok_or_else(out_of_range)?;
    let start = source - since.rem_euclid(width);
    // A bin may start before the first timestamp.
    match calendar::is_valid_timestamp(start) {
        true => Ok(start),
        false => Err(SqlError::new("22008", "timestamp out of range")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use folio_row::{parse_date, parse_timestamp};

    fn ts_text(micros: i64) -> String {
        folio_row::Value::Timestamp(micros).to_text().unwrap()
    }

    // Proves dates and timestamps read as PostgreSQL 15 reads them (ISO,
    // MDY, `T`, fractions, zones converted for timestamptz only), bad and
    // out-of-range input are 22007 / 22008, and the fields and
    // truncations of a known instant.
    #[test]
    fn input_fields_and_truncation() {
        assert_eq!(parse_date("2000-01-01").unwrap(), 0);
        assert_eq!(parse_date("1999-12-31").unwrap(), -1);
        assert_eq!(parse_date("02/29/2000").unwrap(), 59);
        assert_eq!(parse_date("20000301").unwrap(), 60);
        assert_eq!(parse_date("2000-02-30").unwrap_err().sqlstate(), "22008");
        assert_eq!(parse_date("yes").unwrap_err().sqlstate(), "22007");
        let t = parse_timestamp("2000-01-02 03:04:05.5", false).unwrap();
        assert_eq!(ts_text(t), "2000-01-02 03:04:05.5");
        let zoned = parse_timestamp("2000-01-02T03:04:05+02:00", true).unwrap();
        assert_eq!(ts_text(zoned), "2000-01-02 01:04:05");
        let plain = parse_timestamp("2000-01-02T03:04:05+02:00", false).unwrap();
        assert_eq!(ts_text(plain), "2000-01-02 03:04:05");
        assert_eq!(
            parse_timestamp("2000-01-01 25:00", false)
                .unwrap_err()
                .sqlstate(),
            "22008"
        );
        assert_eq!(parse_timestamp("epoch", true).unwrap(), -UNIX_TO_2000 * DAY);
        // 2024-03-15 13:45:30.25, a Friday.
        let t = parse_timestamp("2024-03-15 13:45:30.25", false).unwrap();
        assert_eq!(part("year", t).unwrap(), 2024.0);
        assert_eq!(part("month", t).unwrap(), 3.0);
        assert_eq!(part("dow", t).unwrap(), 5.0);
        assert_eq!(part("doy", t).unwrap(), 75.0);
        assert_eq!(part("week", t).unwrap(), 11.0);
        assert_eq!(part("second", t).unwrap(), 30.25);
        assert_eq!(part("epoch", t).unwrap(), 1_710_510_330.25);
        assert_eq!(ts_text(trunc("month", t).unwrap()), "2024-03-01 00:00:00");
        assert_eq!(ts_text(trunc("week", t).unwrap()), "2024-03-11 00:00:00");
        assert_eq!(ts_text(trunc("hour", t).unwrap()), "2024-03-15 13:00:00");
        assert_eq!(ts_text(trunc("century", t).unwrap()), "2001-01-01 00:00:00");
    }
}
