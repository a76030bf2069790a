//! Dates and timestamps from text, as PostgreSQL 15 reads them: the one
//! reader of date/time text, for literals, casts, parameters and COPY
//! alike. `datetime_fields.rs` decodes the text (its fields, the
//! DateStyle field order, zones, special words: its module doc); here
//! the decoded date and time become a value of the type read:
//!
//! - a `date`: the date (a time and zone written are dropped); outside
//!   4714-11-24 BC .. 5874897-12-31, `date out of range` (22008);
//! - a `timestamp`: the date and time (a zone written is dropped);
//! - a `timestamptz`: the instant the date and time name in the zone
//!   written (an offset, an abbreviation, a name such as
//!   `Europe/Berlin`), else in the session's zone, by
//!   `TimeZone::utc_of_local`'s rule for gaps and folds; outside
//!   4714-11-24 BC .. 294276-12-31 (UTC), `timestamp out of range`;
//! - `epoch` is 1970-01-01 (00:00 UTC), `infinity` / `-infinity` the
//!   infinities (`infinite_datetime.rs`); `now`, `today`, `yesterday`,
//!   `tomorrow` read the system's clock, the day the session zone's.
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
//! 22008, a zone offset of 16 hours or more 22009, an unknown zone name
//! with a `/` (`Foo/Bar`) 22023, each with PostgreSQL's message.

use crate::calendar::{self, EPOCH_DAYS};
use crate::datetime_fields::{self, Context, DateOrder, Decoded, Fault, Moment, WrittenZone};
use crate::error::RowError;
use crate::interval::USECS_PER_DAY;
use crate::time_with_zone::{TimeTz, ZONE_LIMIT_SECONDS};
use crate::time_zone::TimeZone;

/// The error for text `text` of type `type_name` that `fault` says.
fn error(fault: Fault, type_name: &str, text: &str) -> RowError {
    match fault {
        Fault::Syntax => RowError::InvalidDateTime {
            type_name: type_name.into(),
            text: text.to_string(),
        },
        Fault::FieldRange => RowError::DateTimeOutOfRange(text.to_string()),
        Fault::ZoneRange => RowError::ZoneDisplacement(text.to_string()),
        Fault::UnknownZone(zone) => RowError::UnknownTimeZone(zone),
    }
}

/// `text` decoded for type `type_name`, DateStyle order `order`, session
/// zone `zone`.
fn decoded(
    text: &str,
    type_name: &str,
    zone: &TimeZone,
    order: DateOrder,
) -> Result<Decoded, RowError> {
    let cx = Context {
        order,
        session: zone,
        now: calendar::transaction_now(),
    };
    datetime_fields::decode(text, &cx).map_err(|fault| error(fault, type_name, text))
}

/// A date: days since 2000-01-01 (a time after it is read and dropped),
/// DateStyle `MDY`.
pub fn parse_date(text: &str) -> Result<i32, RowError> {
    parse_date_in(text, &TimeZone::UTC, DateOrder::Mdy)
}

/// [`parse_date`] in session zone `zone` (what `today` is) and DateStyle
/// field order `order`.
pub fn parse_date_in(text: &str, zone: &TimeZone, order: DateOrder) -> Result<i32, RowError> {
    let range = || RowError::InputOutOfRange {
        type_name: "date",
        text: text.to_string(),
    };
    match decoded(text, "date", zone, order)? {
        Decoded::Epoch => Ok(-EPOCH_DAYS as i32),
        Decoded::Infinite(infinity) => Ok(infinity.date()),
        Decoded::At(moment) => {
            if !moment.is_valid_julian() {
                return Err(range());
            }
            let days = moment.days();
            if !calendar::is_valid_date(days) {
                return Err(range());
            }
            Ok(days as i32)
        }
    }
}

/// A timestamp (`zoned`: timestamptz): microseconds since 2000-01-01
/// (UTC for timestamptz, one without a zone read as UTC), DateStyle
/// `MDY`.
pub fn parse_timestamp(text: &str, zoned: bool) -> Result<i64, RowError> {
    parse_timestamp_in(text, zoned, &TimeZone::UTC, DateOrder::Mdy)
}

/// [`parse_timestamp`] in session zone `zone` and DateStyle field order
/// `order`.
pub fn parse_timestamp_in(
    text: &str,
    zoned: bool,
    zone: &TimeZone,
    order: DateOrder,
) -> Result<i64, RowError> {
    let type_name = if zoned {
        "timestamp with time zone"
    } else {
        "timestamp"
    };
    match decoded(text, type_name, zone, order)? {
        Decoded::Epoch => Ok(-EPOCH_DAYS * USECS_PER_DAY),
        Decoded::Infinite(infinity) => Ok(infinity.timestamp()),
        Decoded::At(moment) => {
            instant(&moment, zoned.then_some(zone)).ok_or_else(|| RowError::InputOutOfRange {
                type_name: "timestamp",
                text: text.to_string(),
            })
        }
    }
}

/// The timestamp `moment` names: its wall clock, or with `session` (a
/// timestamptz) the UTC instant of it in the zone written, else in
/// `session`; `None` out of range.
fn instant(moment: &Moment, session: Option<&TimeZone>) -> Option<i64> {
    if !moment.is_valid_julian() {
        return None;
    }
    let local = moment
        .days()
        .checked_mul(USECS_PER_DAY)?
        .checked_add(moment.time_micros())?;
    let stamp = match (session, &moment.zone) {
        (None, _) => local,
        (Some(_), WrittenZone::West(west)) => local.checked_add(west.checked_mul(1_000_000)?)?,
        (Some(_), WrittenZone::Named(zone)) => zone.utc_of_local(local)?,
        (Some(session), WrittenZone::Session) => session.utc_of_local(local)?,
    };
    calendar::is_valid_timestamp(stamp).then_some(stamp)
}

/// A `time`: microseconds since midnight, `0..=24:00:00`
/// (module doc); `zone` is the session's, what `now` reads, `order` the
/// DateStyle field order of a whole timestamp's date.
pub fn parse_time_in(text: &str, zone: &TimeZone, order: DateOrder) -> Result<i64, RowError> {
    let range = || RowError::DateTimeOutOfRange(text.to_string());
    match text.trim().to_ascii_lowercase().as_str() {
        "now" => {
            let local = zone
                .local_of_utc(calendar::transaction_now())
                .ok_or_else(range)?;
            return Ok(local.rem_euclid(USECS_PER_DAY));
        }
        "allballs" => return Ok(0),
        _ => {}
    }
    if whole_timestamp(text, "time")? {
        return clock_of_timestamp(text, "time", zone, order);
    }
    Ok(clock_and_zone(text, "time")?.0)
}

/// A `timetz` (`time_with_zone.rs`): the time as [`parse_time_in`]
/// reads it, and the zone written after it (an offset or an
/// abbreviation), else session zone `zone`'s offset at that time of the
/// current day (PostgreSQL's `DecodeTimeOnly`); from a whole timestamp,
/// its zone, or the session's, at its own date.
pub fn parse_timetz_in(text: &str, zone: &TimeZone, order: DateOrder) -> Result<TimeTz, RowError> {
    const NAME: &str = "time with time zone";
    let range = || RowError::DateTimeOutOfRange(text.to_string());
    match text.trim().to_ascii_lowercase().as_str() {
        "now" => return TimeTz::of_instant(calendar::transaction_now(), zone).ok_or_else(range),
        "allballs" => return Ok(TimeTz::new(0, 0)),
        _ => {}
    }
    if whole_timestamp(text, NAME)? {
        let time = clock_of_timestamp(text, NAME, zone, order)?;
        // The wall clock the text shows, and the instant it names: their
        // difference is the zone's offset at that date.
        let local = parse_timestamp_in(text, false, zone, order)?;
        let utc = parse_timestamp_in(text, true, zone, order)?;
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

/// The wall clock of whole timestamp `text` (microseconds from its
/// midnight), its date checked, for type `type_name`.
fn clock_of_timestamp(
    text: &str,
    type_name: &str,
    zone: &TimeZone,
    order: DateOrder,
) -> Result<i64, RowError> {
    match decoded(text, type_name, zone, order)? {
        Decoded::At(moment) => Ok(moment.time_micros()),
        Decoded::Epoch | Decoded::Infinite(_) => Err(error(Fault::Syntax, type_name, text)),
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
                let west = datetime_fields::zone_offset(word)
                    .map_err(|fault| error(fault, type_name, text))?;
                east = Some(-west as i32);
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
