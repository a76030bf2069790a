//! The calendar of `date`, `timestamp` and `timestamptz`: days and
//! microseconds since PostgreSQL's epoch 2000-01-01 (UTC, folio's only
//! time zone) to and from their text forms, and the fields
//! `EXTRACT`/`date_part` and `date_trunc` read.
//!
//! Input accepts what PostgreSQL's does in its common forms: ISO dates
//! `YYYY-MM-DD` (and `YYYYMMDD`), `MM/DD/YYYY` (DateStyle MDY), a time
//! `HH:MM[:SS[.ffffff]]` after a space or `T`, a zone `Z`, `UTC`, `GMT`
//! or `±HH[[:]MM]` (converted for `timestamptz`, ignored by `timestamp`,
//! as PostgreSQL ignores it), and the words `epoch`, `now`, `today`,
//! `yesterday`, `tomorrow`. Output is ISO (DateStyle `ISO, MDY`).

use crate::error::SqlError;
use folio_row::calendar;

/// Microseconds in a day.
pub const DAY: i64 = 86_400_000_000;
/// Days from 1970-01-01 to 2000-01-01.
pub const UNIX_TO_2000: i64 = calendar::EPOCH_DAYS;

/// Now, in microseconds since 2000-01-01 UTC.
pub fn now() -> i64 {
    let unix = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_micros() as i64);
    unix - UNIX_TO_2000 * DAY
}

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

fn syntax(type_name: &str, text: &str) -> SqlError {
    SqlError::new(
        "22007",
        format!("invalid input syntax for type {type_name}: \"{text}\""),
    )
}

fn out_of_range(text: &str) -> SqlError {
    SqlError::new(
        "22008",
        format!("date/time field value out of range: \"{text}\""),
    )
}

/// A `date` from text: days since 2000-01-01.
pub fn parse_date(text: &str) -> Result<i32, SqlError> {
    let micros = parse(text, "date", false)?;
    i32::try_from(micros.div_euclid(DAY)).map_err(|_| out_of_range(text))
}

/// A `timestamp` (`zoned`: `timestamptz`) from text: microseconds since
/// 2000-01-01 (UTC for `timestamptz`).
pub fn parse_timestamp(text: &str, zoned: bool) -> Result<i64, SqlError> {
    let name = if zoned {
        "timestamp with time zone"
    } else {
        "timestamp without time zone"
    };
    parse(text, name, zoned)
}

fn parse(text: &str, type_name: &str, zoned: bool) -> Result<i64, SqlError> {
    let trimmed = text.trim();
    let today = now().div_euclid(DAY) * DAY;
    match trimmed.to_ascii_lowercase().as_str() {
        "epoch" => return Ok(-UNIX_TO_2000 * DAY),
        "now" => return Ok(now()),
        "today" => return Ok(today),
        "yesterday" => return Ok(today - DAY),
        "tomorrow" => return Ok(today + DAY),
        _ => {}
    }
    let bad = || syntax(type_name, text);
    // An era last: `BC` (years count back from 1 BC, astronomical year
    // 0) or `AD`, in any case, as PostgreSQL writes and reads them.
    // (`split_at_checked`: the last 3 bytes may cut a character.)
    let era_at = trimmed.len().checked_sub(3);
    let (trimmed, bc) = match era_at.and_then(|at| trimmed.split_at_checked(at)) {
        Some((before, era)) if era.eq_ignore_ascii_case(" bc") => (before.trim_end(), true),
        Some((before, era)) if era.eq_ignore_ascii_case(" ad") => (before.trim_end(), false),
        _ => (trimmed, false),
    };
    // The date: up to the first space or `T` after it.
    let split = trimmed
        .char_indices()
        .skip(1)
        .find(|&(_, c)| c == ' ' || c == 'T' || c == 't')
        .map_or(trimmed.len(), |(i, _)| i);
    let (date, rest) = trimmed.split_at(split);
    let (y, m, d) = parse_ymd(date).ok_or_else(bad)?;
    let y = match bc {
        true if y < 1 => return Err(out_of_range(text)),
        true => 1 - y,
        false => y,
    };
    if !(1..=12).contains(&m) || d == 0 || d > days_in_month(y, m) {
        return Err(out_of_range(text));
    }
    let mut micros = days(y, m, d) * DAY;
    let rest = rest.trim_start_matches([' ', 'T', 't']).trim();
    if rest.is_empty() {
        return Ok(micros);
    }
    // The time, then an optional zone.
    let zone_at = rest
        .char_indices()
        .find(|&(_, c)| c == '+' || c == '-' || c.is_ascii_alphabetic())
        .map_or(rest.len(), |(i, _)| i);
    let (time, zone) = rest.split_at(zone_at);
    let time = time.trim();
    let mut parts = time.split(':');
    let number = |p: Option<&str>| -> Option<i64> {
        let p = p?;
        (!p.is_empty() && p.bytes().all(|b| b.is_ascii_digit())).then(|| p.parse().ok())?
    };
    let hour = number(parts.next()).ok_or_else(bad)?;
    let minute = number(parts.next()).ok_or_else(bad)?;
    let (second, fraction) = match parts.next() {
        None => (0, 0),
        Some(s) => {
            let (whole, frac) = s.split_once('.').unwrap_or((s, ""));
            if !frac.bytes().all(|b| b.is_ascii_digit()) {
                return Err(bad());
            }
            let digits: String = frac.chars().chain(std::iter::repeat('0')).take(6).collect();
            (
                number(Some(whole)).ok_or_else(bad)?,
                digits.parse::<i64>().map_err(|_| bad())?,
            )
        }
    };
    if parts.next().is_some() {
        return Err(bad());
    }
    if hour > 24
        || minute > 59
        || second > 60
        || (hour == 24 && (minute, second, fraction) != (0, 0, 0))
    {
        return Err(out_of_range(text));
    }
    micros += ((hour * 60 + minute) * 60 + second) * 1_000_000 + fraction;
    let offset = parse_zone(zone.trim()).ok_or_else(bad)?;
    if zoned {
        micros -= offset * 1_000_000;
    }
    Ok(micros)
}

/// `YYYY-MM-DD`, `YYYYMMDD` or `MM/DD/YYYY`.
fn parse_ymd(date: &str) -> Option<(i64, u32, u32)> {
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if let [y, m, d] = date.split('-').collect::<Vec<_>>()[..] {
        if digits(y) && digits(m) && digits(d) {
            return Some((y.parse().ok()?, m.parse().ok()?, d.parse().ok()?));
        }
        return None;
    }
    if let [m, d, y] = date.split('/').collect::<Vec<_>>()[..] {
        if digits(y) && digits(m) && digits(d) {
            return Some((y.parse().ok()?, m.parse().ok()?, d.parse().ok()?));
        }
        return None;
    }
    if date.len() == 8 && digits(date) {
        return Some((
            date[..4].parse().ok()?,
            date[4..6].parse().ok()?,
            date[6..].parse().ok()?,
        ));
    }
    None
}

/// A zone's offset east of UTC in seconds: empty, `Z`, `UTC`, `GMT`,
/// `±HH`, `±HHMM`, `±HH:MM`.
fn parse_zone(zone: &str) -> Option<i64> {
    match zone.to_ascii_uppercase().as_str() {
        "" | "Z" | "UTC" | "GMT" => return Some(0),
        _ => {}
    }
    let sign = match zone.as_bytes().first()? {
        b'+' => 1,
        b'-' => -1,
        _ => return None,
    };
    let rest = zone[1..].replace(':', "");
    if rest.is_empty() || rest.len() > 4 || !rest.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let (h, m) = if rest.len() <= 2 {
        (rest.parse::<i64>().ok()?, 0)
    } else {
        let (h, m) = rest.split_at(rest.len() - 2);
        (h.parse::<i64>().ok()?, m.parse::<i64>().ok()?)
    };
    Some(sign * (h * 3600 + m * 60))
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
    let seconds_in_minute = (in_day % 60_000_000) as f64 / 1e6;
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
        "second" => seconds_in_minute,
        "milliseconds" => seconds_in_minute * 1e3,
        "microseconds" => seconds_in_minute * 1e6,
        "dow" => dow as f64,
        "isodow" => (if dow == 0 { 7 } else { dow }) as f64,
        "doy" => doy as f64,
        "quarter" => f64::from((m - 1) / 3 + 1),
        "week" => iso_week(days) as f64,
        "epoch" => (micros + UNIX_TO_2000 * DAY) as f64 / 1e6,
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

#[cfg(test)]
mod tests {
    use super::*;

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
        assert_eq!(parse_date("2000-02-30").unwrap_err().code, "22008");
        assert_eq!(parse_date("yes").unwrap_err().code, "22007");
        let t = parse_timestamp("2000-01-02 03:04:05.5", false).unwrap();
        assert_eq!(ts_text(t), "2000-01-02 03:04:05.5");
        let zoned = parse_timestamp("2000-01-02T03:04:05+02:00", true).unwrap();
        assert_eq!(ts_text(zoned), "2000-01-02 01:04:05");
        let plain = parse_timestamp("2000-01-02T03:04:05+02:00", false).unwrap();
        assert_eq!(ts_text(plain), "2000-01-02 03:04:05");
        assert_eq!(
            parse_timestamp("2000-01-01 25:00", false).unwrap_err().code,
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
