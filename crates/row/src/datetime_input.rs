//! Dates and timestamps from text, as PostgreSQL 15 reads their common
//! forms (DateStyle `ISO, MDY`): the one reader of date/time text, for
//! literals, casts, parameters and COPY alike.
//!
//! - the date: `YYYY-MM-DD`, `YYYYMMDD` or `MM/DD/YYYY`, then optionally
//!   ` BC` / ` AD` written last (after the time and zone);
//! - the time after a blank or `T`: `HH:MM[:SS[.f]]`, the fraction
//!   rounded to microseconds as PostgreSQL rounds it (through a double:
//!   `.1234565` is `.123456`); `24:00:00` is the next midnight;
//! - a zone after the time: `Z`, `±HH`, `±HHMM`, `±HH:MM`, or a name
//!   (`UTC`, `EST`, `Europe/Berlin`: `TimeZone::named`), converting a
//!   timestamptz to UTC (a timestamp ignores it, as PostgreSQL does); a
//!   timestamptz without one is read in the session's zone, by
//!   `TimeZone::utc_of_local`'s rule for gaps and folds;
//! - the words `epoch`, `now`, `today`, `yesterday`, `tomorrow` (the
//!   system's clock; the day is the session zone's), and `infinity`,
//!   `-infinity` (`infinite_datetime.rs`).
//!
//! - a `time`: the time alone, `HH:MM[:SS[.f]]`, `HHMM[SS[.f]]`, after
//!   an optional `T`, with `am` / `pm` anywhere (hours 0 to 12), then
//!   a zone that is read and dropped (`Z`, `±HH[[:]MM[:SS]]`, an
//!   abbreviation; a full zone name is 22007, as PostgreSQL's, which
//!   needs a date for it; an offset of 16 hours or more 22009); or a
//!   whole timestamp, whose time is taken; or `now`, `allballs`
//!   (midnight). `24:00:00` is the day's end, and a time past it 22008.
//! - a `timetz`: a time's text, its zone kept (seconds west); without
//!   one, the session zone's offset at that time of the current day; a
//!   whole timestamp's zone, or the session's at its date.
//!
//! Bad syntax is 22007, a field out of range (`2023-02-30`, `25:00`)
//! 22008, an unknown zone name with a `/` (`Foo/Bar`) 22023, each with
//! PostgreSQL's message.

use crate::calendar::{self, EPOCH_DAYS};
use crate::error::RowError;
use crate::infinite_datetime::Infinity;
use crate::interval::USECS_PER_DAY;
use crate::time_with_zone::{TimeTz, ZONE_LIMIT_SECONDS};
use crate::time_zone::TimeZone;

/// What `text` is read as: its type's name for messages, and whether
/// its zone converts it.
#[derive(Clone, Copy)]
pub enum Reading {
    Date,
    Timestamp,
    TimestampTz,
    /// A `time` read from a whole timestamp's text (its date checked,
    /// then dropped).
    Time,
    /// A `timetz` read from a whole timestamp's text (as `Time`; its
    /// zone is the caller's).
    TimeTz,
}

impl Reading {
    fn type_name(self) -> &'static str {
        match self {
            Reading::Date => "date",
            Reading::Timestamp => "timestamp",
            Reading::TimestampTz => "timestamp with time zone",
            Reading::Time => "time",
            Reading::TimeTz => "time with time zone",
        }
    }
}

/// A date: days since 2000-01-01 (a time after it is read and dropped).
pub fn parse_date(text: &str) -> Result<i32, RowError> {
    parse_date_in(text, &TimeZone::UTC)
}

/// [`parse_date`] in session zone `zone` (what `today` is).
pub fn parse_date_in(text: &str, zone: &TimeZone) -> Result<i32, RowError> {
    if let Some(infinity) = Infinity::of_text(text) {
        return Ok(infinity.date());
    }
    let (days, _) = parse(text, Reading::Date, zone)?;
    if !calendar::is_valid_date(days) {
        return Err(RowError::InputOutOfRange {
            type_name: "date",
            text: text.to_string(),
        });
    }
    Ok(days as i32)
}

/// A timestamp (`zoned`: timestamptz): microseconds since 2000-01-01
/// (UTC for timestamptz, one without a zone read as UTC).
pub fn parse_timestamp(text: &str, zoned: bool) -> Result<i64, RowError> {
    parse_timestamp_in(text, zoned, &TimeZone::UTC)
}

/// [`parse_timestamp`] in session zone `zone`.
pub fn parse_timestamp_in(text: &str, zoned: bool, zone: &TimeZone) -> Result<i64, RowError> {
    if let Some(infinity) = Infinity::of_text(text) {
        return Ok(infinity.timestamp());
    }
    let reading = if zoned {
        Reading::TimestampTz
    } else {
        Reading::Timestamp
    };
    let (days, micros) = parse(text, reading, zone)?;
    days.checked_mul(USECS_PER_DAY)
        .and_then(|d| d.checked_add(micros))
        .filter(|&t| calendar::is_valid_timestamp(t))
        .ok_or_else(|| RowError::InputOutOfRange {
            type_name: "timestamp",
            text: text.to_string(),
        })
}

/// A `time`: microseconds since midnight, `0..=24:00:00`
/// (module table); `zone` is the session's, what `now` reads.
pub fn parse_time_in(text: &str, zone: &TimeZone) -> Result<i64, RowError> {
    let range = || RowError::DateTimeOutOfRange(text.to_string());
    match text.trim().to_ascii_lowercase().as_str() {
        "now" => {
            let local = zone.local_of_utc(calendar::now()).ok_or_else(range)?;
            return Ok(local.rem_euclid(USECS_PER_DAY));
        }
        "allballs" => return Ok(0),
        _ => {}
    }
    if whole_timestamp(text, "time")? {
        let (_, micros) = parse(text, Reading::Time, zone)?;
        return Ok(micros);
    }
    Ok(clock_and_zone(text, "time")?.0)
}

/// A `timetz` (`time_with_zone.rs`): the time as [`parse_time_in`]
/// reads it, and the zone written after it (an offset or an
/// abbreviation), else session zone `zone`'s offset at that time of the
/// current day (PostgreSQL's `DecodeTimeOnly`); from a whole timestamp,
/// its zone, or the session's, at its own date.
pub fn parse_timetz_in(text: &str, zone: &TimeZone) -> Result<TimeTz, RowError> {
    const NAME: &str = "time with time zone";
    let range = || RowError::DateTimeOutOfRange(text.to_string());
    match text.trim().to_ascii_lowercase().as_str() {
        "now" => return TimeTz::of_instant(calendar::now(), zone).ok_or_else(range),
        "allballs" => return Ok(TimeTz::new(0, 0)),
        _ => {}
    }
    if whole_timestamp(text, NAME)? {
        let (_, time) = parse(text, Reading::TimeTz, zone)?;
        // The wall clock the text shows, and the instant it names: their
        // difference is the zone's offset at that date.
        let local = parse_timestamp_in(text, false, zone)?;
        let utc = parse_timestamp_in(text, true, zone)?;
        let west = i32::try_from((utc - local) / 1_000_000).map_err(|_| range())?;
        if west.abs() > ZONE_LIMIT_SECONDS {
            return Err(RowError::ZoneDisplacement(text.to_string()));
        }
        return Ok(TimeTz::new(time, west));
    }
    match clock_and_zone(text, NAME)? {
        (time, Some(east)) => Ok(TimeTz::new(time, -east)),
        (time, None) => TimeTz::of_time_today(time, zone).ok_or_else(range),
    }
}

/// Whether `text` is a whole timestamp (a date, a blank or `T`, a time),
/// whose date a time's reader checks; a date alone is 22007 for
/// `type_name`.
fn whole_timestamp(text: &str, type_name: &str) -> Result<bool, RowError> {
    let lower = text.trim().to_ascii_lowercase();
    if ymd_of(&lower).is_some() {
        return Err(RowError::InvalidDateTime {
            type_name: type_name.into(),
            text: text.to_string(),
        });
    }
    let first = lower
        .char_indices()
        .skip(1)
        .find(|&(_, c)| c == ' ' || c == 't')
        .map(|(i, _)| &lower[..i]);
    Ok(first.is_some_and(|date| ymd_of(date).is_some()))
}

/// A time of day alone (no date): microseconds since midnight,
/// `0..=24:00:00`, and the zone written after it, in seconds east, if
/// any (an offset `±HH[[:]MM[:SS]]`, or an abbreviation: a full zone
/// name needs a date, 22007 as PostgreSQL's). An offset of 16 hours or
/// more is 22009; `type_name` names the type in a 22007.
fn clock_and_zone(text: &str, type_name: &str) -> Result<(i64, Option<i32>), RowError> {
    let bad = || RowError::InvalidDateTime {
        type_name: type_name.into(),
        text: text.to_string(),
    };
    let range = || RowError::DateTimeOutOfRange(text.to_string());
    let lower = text.trim().to_ascii_lowercase();
    // The words: a clock, `am` / `pm`, a zone, an era (ignored, as
    // PostgreSQL ignores it here). A word is cut where a letter or a
    // sign follows a digit (`12:30am`, `12:34+02`).
    let mut words = Vec::new();
    for word in lower.split_whitespace() {
        let mut start = 0;
        let bytes = word.as_bytes();
        for i in 1..bytes.len() {
            let cut = bytes[i - 1].is_ascii_digit() || bytes[i - 1] == b'.';
            if cut && (bytes[i].is_ascii_alphabetic() || bytes[i] == b'+' || bytes[i] == b'-') {
                words.push(&word[start..i]);
                start = i;
            }
        }
        words.push(&word[start..]);
    }
    let (mut clock_fields, mut meridiem, mut east) = (None, None, None);
    for word in words {
        let word = match word.strip_prefix('t') {
            Some(rest) if rest.starts_with(|c: char| c.is_ascii_digit()) => rest,
            _ => word,
        };
        match word {
            "am" | "pm" if meridiem.is_none() => meridiem = Some(word == "pm"),
            "bc" | "ad" => {}
            _ if word.starts_with(|c: char| c.is_ascii_digit()) && clock_fields.is_none() => {
                clock_fields = Some(time_fields(word).ok_or_else(bad)?);
            }
            _ if word.starts_with(['+', '-']) && clock_fields.is_some() && east.is_none() => {
                let offset = zone_offset(word).ok_or_else(bad)?;
                if offset.abs() > i64::from(ZONE_LIMIT_SECONDS) {
                    return Err(RowError::ZoneDisplacement(text.to_string()));
                }
                east = Some(offset as i32);
            }
            _ if clock_fields.is_some() && east.is_none() => {
                east = Some(abbreviation(word).ok_or_else(bad)?);
            }
            _ => return Err(bad()),
        }
    }
    let (mut hour, minute, second, micros) = clock_fields.ok_or_else(bad)?;
    match meridiem {
        Some(_) if hour > 12 => return Err(range()),
        Some(false) if hour == 12 => hour = 0,
        Some(true) if hour != 12 => hour += 12,
        _ => {}
    }
    if hour > 24 || minute > 59 || second > 60 {
        return Err(range());
    }
    let total = ((hour * 60 + minute) * 60 + second) * 1_000_000 + micros;
    if total > USECS_PER_DAY {
        return Err(range());
    }
    Ok((total, east))
}

/// The offset east in seconds of a zone abbreviation (PostgreSQL's
/// `Default` set, or a name of UTC), the zones a time without a date
/// may name.
fn abbreviation(word: &str) -> Option<i32> {
    if crate::time_zone::is_utc(word) {
        return Some(0);
    }
    let upper = word.to_ascii_uppercase();
    crate::time_zone::ABBREVIATIONS
        .iter()
        .find(|(a, ..)| *a == upper)
        .map(|(_, east, _)| *east)
}

/// A time's fields, hour, minute, second and microseconds, from
/// `HH:MM[:SS[.f]]` or `HHMM[SS][.f]` (`None`: bad syntax; the ranges
/// are the caller's).
fn time_fields(word: &str) -> Option<(i64, i64, i64, i64)> {
    let number = |p: &str| -> Option<i64> {
        (!p.is_empty() && p.bytes().all(|b| b.is_ascii_digit())).then(|| p.parse().ok())?
    };
    // Microseconds as PostgreSQL rounds them: the fraction read as a
    // double, times a million, to the nearest.
    let fraction = |frac: &str| -> Option<i64> {
        if !frac.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        let fraction: f64 = format!("0.{frac}").parse().ok()?;
        Some((fraction * 1e6).round_ties_even() as i64)
    };
    if !word.contains(':') {
        let (whole, frac) = word.split_once('.').unwrap_or((word, ""));
        number(whole)?;
        let field = |at: usize| number(&whole[at..at + 2]);
        return match whole.len() {
            4 => Some((field(0)?, field(2)?, 0, fraction(frac)?)),
            6 => Some((field(0)?, field(2)?, field(4)?, fraction(frac)?)),
            _ => None,
        };
    }
    let mut parts = word.split(':');
    let hour = number(parts.next()?)?;
    let minute = number(parts.next()?)?;
    let (second, micros) = match parts.next() {
        None => (0, 0),
        Some(s) => {
            let (whole, frac) = s.split_once('.').unwrap_or((s, ""));
            (number(whole)?, fraction(frac)?)
        }
    };
    parts
        .next()
        .is_none()
        .then_some((hour, minute, second, micros))
}

/// The day (since 2000-01-01) and the microseconds from its midnight
/// (UTC for timestamptz: the zone's offset taken off, possibly past the
/// day) that `text` names; `session` is the zone of a timestamptz
/// without one, and of `today`.
fn parse(text: &str, reading: Reading, session: &TimeZone) -> Result<(i64, i64), RowError> {
    let bad = || RowError::InvalidDateTime {
        type_name: reading.type_name().into(),
        text: text.to_string(),
    };
    let range = || RowError::DateTimeOutOfRange(text.to_string());
    let trimmed = text.trim();
    let zoned = matches!(reading, Reading::TimestampTz);
    // A local day and time as this reading stores it: a timestamptz's
    // is the UTC instant a clock in `zone` shows it.
    let stored = |zone: &TimeZone, days: i64, micros: i64| -> Result<(i64, i64), RowError> {
        if !zoned {
            return Ok((days, micros));
        }
        let local = days
            .checked_mul(USECS_PER_DAY)
            .and_then(|d| d.checked_add(micros))
            .ok_or_else(range)?;
        let utc = zone.utc_of_local(local).ok_or_else(range)?;
        Ok((days, utc - days * USECS_PER_DAY))
    };
    let now = calendar::now();
    let local_now = session.local_of_utc(now).ok_or_else(range)?;
    let today = local_now.div_euclid(USECS_PER_DAY);
    match trimmed.to_ascii_lowercase().as_str() {
        "epoch" => return Ok((-EPOCH_DAYS, 0)),
        "now" if zoned => return Ok((0, now)),
        "now" => return Ok((today, local_now.rem_euclid(USECS_PER_DAY))),
        "today" => return stored(session, today, 0),
        "yesterday" => return stored(session, today - 1, 0),
        "tomorrow" => return stored(session, today + 1, 0),
        _ => {}
    }
    // An era last: `BC` (years count back from 1 BC, astronomical year
    // 0) or `AD`, in any case. (`split_at_checked`: the last 3 bytes may
    // cut a character.)
    let era_at = trimmed.len().checked_sub(3);
    let (trimmed, bc) = match era_at.and_then(|at| trimmed.split_at_checked(at)) {
        Some((before, era)) if era.eq_ignore_ascii_case(" bc") => (before.trim_end(), true),
        Some((before, era)) if era.eq_ignore_ascii_case(" ad") => (before.trim_end(), false),
        _ => (trimmed, false),
    };
    // The date: up to the first blank or `T` after its first character.
    let split = trimmed
        .char_indices()
        .skip(1)
        .find(|&(_, c)| c == ' ' || c == 'T' || c == 't')
        .map_or(trimmed.len(), |(i, _)| i);
    let (date, rest) = trimmed.split_at(split);
    let (y, m, d) = ymd_of(date).ok_or_else(bad)?;
    let y = match bc {
        _ if y < 1 => return Err(range()),
        true => 1 - y,
        false => y,
    };
    if !(1..=12).contains(&m) || d < 1 || d > calendar::days_in_month(y, m) {
        return Err(range());
    }
    let days = calendar::day_number(y, m, d);
    let rest = rest.trim_start_matches([' ', 'T', 't']).trim();
    if rest.is_empty() {
        return stored(session, days, 0);
    }
    // The time, then an optional zone; a zone alone is at midnight
    // (`2024-03-10 +02`, `2024-03-10 Europe/Berlin`), as PostgreSQL's.
    let zone_at = rest
        .char_indices()
        .find(|&(_, c)| c == '+' || c == '-' || c.is_ascii_alphabetic())
        .map_or(rest.len(), |(i, _)| i);
    let (time, zone) = rest.split_at(zone_at);
    let micros = match time.trim() {
        "" => 0,
        time => clock(time).ok_or_else(bad)?.ok_or_else(range)?,
    };
    let zone = zone.trim();
    if zone.is_empty() {
        return stored(session, days, micros);
    }
    let zone = match zone_offset(zone) {
        Some(east) => TimeZone::fixed(east as i32),
        None => TimeZone::named(zone).ok_or_else(|| unknown_zone(zone).unwrap_or_else(bad))?,
    };
    stored(&zone, days, micros)
}

/// The error for zone `zone` that no zone has, when PostgreSQL reads it
/// as a zone name: a word with a `/` (`Foo/Bar`) is 22023 `time zone
/// "foo/bar" not recognized`; another (`Nowhere`) is no zone at all, and
/// the text's syntax error (`None`).
fn unknown_zone(zone: &str) -> Option<RowError> {
    let starts_alphabetic = zone.starts_with(|c: char| c.is_ascii_alphabetic());
    (starts_alphabetic && zone.contains('/'))
        .then(|| RowError::UnknownTimeZone(zone.to_ascii_lowercase()))
}

/// `YYYY-MM-DD`, `YYYYMMDD` or `MM/DD/YYYY`.
fn ymd_of(date: &str) -> Option<(i64, i64, i64)> {
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    let number = |s: &str| s.parse::<i64>().ok();
    if let [y, m, d] = date.split('-').collect::<Vec<_>>()[..] {
        return (digits(y) && digits(m) && digits(d))
            .then(|| Some((number(y)?, number(m)?, number(d)?)))?;
    }
    if let [m, d, y] = date.split('/').collect::<Vec<_>>()[..] {
        return (digits(y) && digits(m) && digits(d))
            .then(|| Some((number(y)?, number(m)?, number(d)?)))?;
    }
    if date.len() == 8 && digits(date) {
        return Some((
            number(&date[..4])?,
            number(&date[4..6])?,
            number(&date[6..])?,
        ));
    }
    None
}

/// `HH:MM[:SS[.f]]` in microseconds: `None` for bad syntax, `Some(None)`
/// for a field out of range.
fn clock(time: &str) -> Option<Option<i64>> {
    if !time.contains(':') {
        return None;
    }
    let (hour, minute, second, micros) = time_fields(time)?;
    if hour > 24
        || minute > 59
        || second > 60
        || (hour == 24 && (minute, second, micros) != (0, 0, 0))
    {
        return Some(None);
    }
    Some(Some(
        ((hour * 60 + minute) * 60 + second) * 1_000_000 + micros,
    ))
}

/// A numeric zone's offset east of UTC in seconds: `±HH`, `±HHMM`,
/// `±HHMMSS`, `±HH:MM`, `±HH:MM:SS` (ISO's sense: positive is east).
fn zone_offset(zone: &str) -> Option<i64> {
    let sign = match zone.as_bytes().first()? {
        b'+' => 1,
        b'-' => -1,
        _ => return None,
    };
    let number = |p: &str| -> Option<i64> {
        (!p.is_empty() && p.bytes().all(|b| b.is_ascii_digit())).then(|| p.parse().ok())?
    };
    let rest = &zone[1..];
    let (h, m, s) = if rest.contains(':') {
        let mut parts = rest.split(':');
        let h = number(parts.next()?)?;
        let m = number(parts.next()?)?;
        let s = parts.next().map_or(Some(0), number)?;
        if parts.next().is_some() {
            return None;
        }
        (h, m, s)
    } else {
        match rest.len() {
            1 | 2 => (number(rest)?, 0, 0),
            3 | 4 => {
                let (h, m) = rest.split_at(rest.len() - 2);
                (number(h)?, number(m)?, 0)
            }
            5 | 6 => {
                let (hm, s) = rest.split_at(rest.len() - 2);
                let (h, m) = hm.split_at(hm.len() - 2);
                (number(h)?, number(m)?, number(s)?)
            }
            _ => return None,
        }
    };
    Some(sign * (h * 3600 + m * 60 + s))
}
