//! Time zones: the one owner of folio's time zone database and of the
//! two questions the rest of the code asks of a zone, "what is the
//! offset of zone Z at UTC instant t" ([`TimeZone::offset_at`]) and
//! "which UTC instant is local time L in zone Z"
//! ([`TimeZone::utc_of_local`]).
//!
//! The IANA database comes bundled in the binary (the `jiff` crate with
//! its `tzdb-bundle-always` feature), so a fresh machine needs no
//! `/usr/share/zoneinfo`. It lives here, in folio-row, and not in
//! folio-sql, because timestamptz text is written and read here
//! (`text.rs`, `datetime_input.rs`), below the SQL layer.
//!
//! A name is read as PostgreSQL 15 reads it, in one of two ways:
//!
//! - [`TimeZone::setting`]: the value of `SET TimeZone` (and the startup
//!   packet's): a number of hours east (`-7`, `'+05'`: ISO's sense), an
//!   IANA name in any case (`'america/new_york'`, shown as the database
//!   spells it, `America/New_York`), or a POSIX-style offset (`'UTC+3'`:
//!   positive is *west*), or a POSIX TZ string with a daylight-saving
//!   rule (`'CST7CDT,M4.1.0,M10.5.0'`). An abbreviation that is no zone
//!   of the database (`'PST'`) is refused, as PostgreSQL refuses it.
//! - [`TimeZone::named`]: a zone in `AT TIME ZONE`, `timezone(name, ts)`
//!   or a timestamptz literal: PostgreSQL's abbreviations first, either
//!   fixed offsets ([`ABBREVIATIONS`]: `EST` is always -05, `EDT` -04)
//!   or defined by a zone ([`dynamic_abbreviation`]: `MSK` is what
//!   Europe/Moscow called MSK at the time, +03 or +04), then the IANA
//!   database, then a POSIX-style offset (`'+05'` is *west* here, as
//!   PostgreSQL reads it) or TZ string.
//!
//! Past the database's last year (9999), a zone's last rule goes on
//! (`instant_seconds`).
//!
//! PostgreSQL's rule for a local time a transition makes nonexistent or
//! ambiguous ([`TimeZone::utc_of_local`]): in a gap (spring forward) the
//! offset from before the transition (`2024-03-10 02:30` New York is
//! 07:30 UTC, shown as `03:30-04`); in a fold (fall back) the offset from
//! after it (`2024-11-03 01:30` New York is `01:30-05`).

use crate::infinite_datetime::Infinity;
use std::borrow::Cow;

const MICROS_PER_SECOND: i64 = 1_000_000;
/// Seconds from 1970-01-01 (jiff's epoch) to 2000-01-01 (folio's).
const UNIX_TO_FOLIO_SECONDS: i64 = 946_684_800;

/// A time zone: a fixed offset or a zone of the IANA database.
#[derive(Debug, Clone)]
pub struct TimeZone {
    /// The name as `SHOW TimeZone` prints it.
    name: Cow<'static, str>,
    rule: Rule,
}

#[derive(Debug, Clone)]
enum Rule {
    /// Seconds east of UTC.
    Fixed(i32),
    Database(jiff::tz::TimeZone),
    /// An abbreviation PostgreSQL defines by a zone (`MSK`: Europe/Moscow):
    /// at each instant, what the zone last called by it (`meaning`).
    Abbreviation {
        abbrev: &'static str,
        zone: jiff::tz::TimeZone,
    },
}

impl PartialEq for TimeZone {
    fn eq(&self, other: &TimeZone) -> bool {
        self.name == other.name
    }
}

impl Eq for TimeZone {}

/// PostgreSQL's time zone abbreviations (its `Default` set, all 195),
/// each a fixed offset: a table generated from PostgreSQL 15
/// (`time_zone_abbreviations.rs`).
pub use crate::time_zone_abbreviations::ABBREVIATIONS;

/// The abbreviation `word` (any case) if PostgreSQL's `Default` set
/// defines it by a zone (`MSK`): its offset depends on the date.
pub fn dynamic_abbreviation(word: &str) -> Option<TimeZone> {
    let upper = word.trim().to_ascii_uppercase();
    let (abbrev, zone) = (crate::time_zone_abbreviations::DYNAMIC_ABBREVIATIONS.iter())
        .find(|(a, _)| *a == upper)?;
    Some(TimeZone {
        name: Cow::Borrowed(abbrev),
        rule: Rule::Abbreviation {
            abbrev,
            zone: jiff::tz::TimeZone::get(zone).ok()?,
        },
    })
}

/// Whether `name` names UTC itself (any case).
pub fn is_utc(name: &str) -> bool {
    matches!(
        name.to_ascii_lowercase().as_str(),
        "utc" | "gmt" | "z" | "zulu" | "ut" | "uct" | "etc/utc" | "etc/gmt" | "etc/uct" | "gmt0"
    )
}

impl TimeZone {
    /// UTC, folio's default `TimeZone`.
    pub const UTC: TimeZone = TimeZone {
        name: Cow::Borrowed("UTC"),
        rule: Rule::Fixed(0),
    };

    /// A fixed offset east of UTC (an interval's zone), named as
    /// PostgreSQL shows one it was SET to (`<+05:30>-05:30`).
    pub fn fixed(seconds_east: i32) -> TimeZone {
        let east = offset_text(seconds_east);
        let west = offset_text(-seconds_east);
        TimeZone {
            name: Cow::Owned(format!("<{east}>{west}")),
            rule: Rule::Fixed(seconds_east),
        }
    }

    /// The value of `SET TimeZone` (module doc); `None`: PostgreSQL's
    /// 22023.
    pub fn setting(value: &str) -> Option<TimeZone> {
        let value = value.trim();
        if let Ok(hours) = value.parse::<f64>() {
            let seconds = (hours * 3600.0).round();
            return (seconds.abs() <= 168.0 * 3600.0).then(|| TimeZone::fixed(seconds as i32));
        }
        if value.eq_ignore_ascii_case("utc") {
            return Some(TimeZone::UTC);
        }
        if let Some(zone) = database(value) {
            return Some(zone);
        }
        posix_offset(value)
            .map(|west| TimeZone {
                name: Cow::Owned(value.to_string()),
                rule: Rule::Fixed(-west as i32),
            })
            .or_else(|| posix_rule(value))
    }

    /// A zone named in `AT TIME ZONE`, `timezone()` or a timestamptz
    /// literal (module doc); `None`: unknown.
    pub fn named(name: &str) -> Option<TimeZone> {
        if let Some(zone) = dynamic_abbreviation(name) {
            return Some(zone);
        }
        let upper = name.trim().to_ascii_uppercase();
        if let Some((abbrev, east, _)) = ABBREVIATIONS.iter().find(|(a, ..)| *a == upper) {
            return Some(TimeZone {
                name: Cow::Borrowed(abbrev),
                rule: Rule::Fixed(*east),
            });
        }
        if let Some(zone) = database(name.trim()) {
            return Some(zone);
        }
        posix_offset(name.trim())
            .map(|west| TimeZone {
                name: Cow::Owned(name.to_string()),
                rule: Rule::Fixed(-west as i32),
            })
            .or_else(|| posix_rule(name.trim()))
    }

    /// The name `SHOW TimeZone` prints.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The offset east of UTC, in seconds, at UTC instant `utc_us`
    /// (microseconds since 2000-01-01). Past the database's range
    /// (years -9999 to 9999), the offset at its end.
    pub fn offset_at(&self, utc_us: i64) -> i32 {
        match &self.rule {
            Rule::Fixed(east) => *east,
            Rule::Database(tz) => tz.to_offset(instant(utc_us)).seconds(),
            Rule::Abbreviation { abbrev, zone } => meaning(zone, abbrev, instant(utc_us)).0,
        }
    }

    /// The abbreviation in use at `utc_us` (`CEST`; a fixed offset's
    /// is its offset, `+05`, as PostgreSQL's `to_char(..., 'TZ')`).
    pub fn abbreviation_at(&self, utc_us: i64) -> String {
        match &self.rule {
            Rule::Fixed(0) => "UTC".into(),
            Rule::Fixed(east) => offset_text(*east),
            Rule::Database(tz) => {
                let info = tz.to_offset_info(instant(utc_us));
                info.abbreviation().to_string()
            }
            Rule::Abbreviation { abbrev, .. } => abbrev.to_string(),
        }
    }

    /// Whether daylight-saving time is in force at `utc_us` (never in a
    /// fixed offset).
    pub fn is_dst_at(&self, utc_us: i64) -> bool {
        match &self.rule {
            Rule::Fixed(_) => false,
            Rule::Database(tz) => tz.to_offset_info(instant(utc_us)).dst().is_dst(),
            Rule::Abbreviation { abbrev, zone } => meaning(zone, abbrev, instant(utc_us)).1,
        }
    }

    /// The UTC instant at which this zone's clock shows `local_us`
    /// (microseconds since 2000-01-01 on that clock), by PostgreSQL's
    /// rule for gaps and folds (module doc); an infinity is itself.
    /// `None` past the range of timestamps.
    pub fn utc_of_local(&self, local_us: i64) -> Option<i64> {
        if Infinity::of_timestamp(local_us).is_some() {
            return Some(local_us);
        }
        let east = match &self.rule {
            Rule::Fixed(east) => *east,
            Rule::Database(tz) => local_offset(tz, local_us),
            // What the abbreviation meant at the instant the zone's own
            // clock showed `local_us`.
            Rule::Abbreviation { abbrev, zone } => {
                let probe = local_us.div_euclid(MICROS_PER_SECOND)
                    - i64::from(local_offset(zone, local_us));
                meaning(zone, abbrev, instant_seconds(probe)).0
            }
        };
        local_us.checked_sub(i64::from(east) * MICROS_PER_SECOND)
    }

    /// The local time this zone's clock shows at `utc_us`; an infinity
    /// is itself (`None` past the range of timestamps).
    pub fn local_of_utc(&self, utc_us: i64) -> Option<i64> {
        if Infinity::of_timestamp(utc_us).is_some() {
            return Some(utc_us);
        }
        utc_us.checked_add(i64::from(self.offset_at(utc_us)) * MICROS_PER_SECOND)
    }
}

/// The database's zones, sorted by name (`pg_timezone_names`).
pub fn database_zones() -> Vec<TimeZone> {
    let mut names: Vec<String> = jiff::tz::db().available().map(|n| n.to_string()).collect();
    names.sort();
    names.iter().filter_map(|name| database(name)).collect()
}

/// Zone `name` of the IANA database (any case), named as the database
/// spells it.
fn database(name: &str) -> Option<TimeZone> {
    // A POSIX TZ string is no database name (jiff would read one).
    if name.is_empty() || name.starts_with(['+', '-']) || name.contains(',') {
        return None;
    }
    let tz = jiff::tz::TimeZone::get(name).ok()?;
    let spelled = tz.iana_name().unwrap_or(name).to_string();
    Some(TimeZone {
        name: Cow::Owned(spelled),
        rule: Rule::Database(tz),
    })
}

/// The offset east of zone `tz` when its clock shows `local_us`, by
/// PostgreSQL's rule for gaps and folds (module doc).
fn local_offset(tz: &jiff::tz::TimeZone, local_us: i64) -> i32 {
    let seconds = local_us.div_euclid(MICROS_PER_SECOND);
    let civil = jiff::tz::Offset::UTC.to_datetime(instant_seconds(seconds));
    match tz.to_ambiguous_timestamp(civil).offset() {
        jiff::tz::AmbiguousOffset::Unambiguous { offset } => offset.seconds(),
        jiff::tz::AmbiguousOffset::Gap { before, .. } => before.seconds(),
        jiff::tz::AmbiguousOffset::Fold { after, .. } => after.seconds(),
    }
}

/// What `zone` meant by `abbrev` at `at`, as PostgreSQL reads a
/// zone-defined abbreviation: the offset (east, seconds) and daylight
/// saving of the latest span at or before `at` the zone called so, else
/// of the earliest after it; if the zone never used it, its own offset
/// at `at`.
///
/// The database lists a zone's transitions up to 2037 at most; after its
/// last one a rule repeats the same spans every year. So the search runs
/// from `at` or the start of 2040, whichever is earlier: back through
/// the finite list, then forward up to 2042 (two years hold every span
/// the repeating rule has). Past 2040 that finds the same offset as the
/// rule's latest span before `at`, without walking each year up to it
/// (an abbreviation the zone no longer uses, such as `CLT`, would
/// otherwise be sought through thousands of transitions at every cast).
fn meaning(zone: &jiff::tz::TimeZone, abbrev: &str, at: jiff::Timestamp) -> (i32, bool) {
    const REPEATING_FROM: i64 = 2_208_988_800; // 2040-01-01 UTC, Unix seconds
    const RULE_SPAN: i64 = 2 * 366 * 86_400;
    let info = zone.to_offset_info(at);
    if info.abbreviation() == abbrev {
        return (info.offset().seconds(), info.dst().is_dst());
    }
    let pivot = at.min(jiff::Timestamp::from_second(REPEATING_FROM).expect("in range"));
    let horizon = REPEATING_FROM + RULE_SPAN;
    let named = |t: &jiff::tz::TimeZoneTransition<'_>| t.abbreviation() == abbrev;
    let found = (zone.preceding(pivot).find(named)).or_else(|| {
        zone.following(pivot)
            .take_while(|t| t.timestamp().as_second() <= horizon)
            .find(named)
    });
    match found {
        Some(t) => (t.offset().seconds(), t.dst().is_dst()),
        None => (info.offset().seconds(), info.dst().is_dst()),
    }
}

/// A POSIX TZ string with its daylight-saving rule
/// (`CST7CDT,M4.1.0,M10.5.0`: standard time 7 hours west, daylight time
/// from April's first Sunday to October's last), named as written.
fn posix_rule(value: &str) -> Option<TimeZone> {
    if !value.contains(',') {
        return None;
    }
    let tz = jiff::tz::TimeZone::posix(value).ok()?;
    Some(TimeZone {
        name: Cow::Owned(value.to_string()),
        rule: Rule::Database(tz),
    })
}

fn instant(utc_us: i64) -> jiff::Timestamp {
    instant_seconds(utc_us.div_euclid(MICROS_PER_SECOND))
}

/// folio seconds as a jiff timestamp in jiff's range (years -9999 to
/// 9999). Before it, its first instant (a zone's first offset holds
/// there). After it, the same moment of a year a multiple of 400 years
/// earlier: the Gregorian calendar repeats every 400 years to the
/// weekday, so a zone's last rule, which applies to all later years,
/// gives the same offset there (`205000-07-10` in Helsinki is in summer
/// time, as PostgreSQL has it).
fn instant_seconds(folio_seconds: i64) -> jiff::Timestamp {
    const CYCLE_SECONDS: i64 = 146_097 * 86_400;
    let (first, last) = (
        jiff::Timestamp::MIN.as_second(),
        jiff::Timestamp::MAX.as_second(),
    );
    let mut unix = folio_seconds
        .saturating_add(UNIX_TO_FOLIO_SECONDS)
        .max(first);
    if unix > last {
        unix -= (unix - last + CYCLE_SECONDS - 1) / CYCLE_SECONDS * CYCLE_SECONDS;
    }
    jiff::Timestamp::from_second(unix).expect("in the range")
}

/// An offset east as PostgreSQL writes it after a timestamptz: `+02`,
/// `+05:30`, `-03:30`, `+00:19:32`.
pub fn offset_text(seconds_east: i32) -> String {
    let sign = if seconds_east < 0 { '-' } else { '+' };
    let s = seconds_east.unsigned_abs();
    let (h, m, sec) = (s / 3600, s / 60 % 60, s % 60);
    match (m, sec) {
        (0, 0) => format!("{sign}{h:02}"),
        (_, 0) => format!("{sign}{h:02}:{m:02}"),
        _ => format!("{sign}{h:02}:{m:02}:{sec:02}"),
    }
}

/// A POSIX-style zone's offset *west* of UTC in seconds: a UTC name, or
/// an optional `Etc/GMT` prefix or standard-time name (three letters or
/// more: `UTC`, `PST` in `PST+8`) and `[+-]hh[:mm[:ss]]`, at most 24
/// hours.
pub fn posix_offset(name: &str) -> Option<i64> {
    if is_utc(name) {
        return Some(0);
    }
    let lower = name.to_ascii_lowercase();
    let letters = lower.bytes().take_while(u8::is_ascii_alphabetic).count();
    let after_name = &lower[letters..];
    let rest = match lower.strip_prefix("etc/gmt") {
        Some(r) if r.starts_with(['+', '-']) => r,
        _ if letters >= 3
            && after_name.starts_with(|c: char| c.is_ascii_digit() || c == '+' || c == '-') =>
        {
            after_name
        }
        _ => &lower,
    };
    let (sign, digits) = match rest.as_bytes().first()? {
        b'+' => (1, &rest[1..]),
        b'-' => (-1, &rest[1..]),
        _ => (1, rest),
    };
    let mut fields = digits.split(':');
    let mut seconds = 0i64;
    for (limit, unit) in [(24, 3600), (59, 60), (59, 1)] {
        let Some(field) = fields.next() else { break };
        if field.is_empty() || field.len() > 2 || !field.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        let n: i64 = field.parse().ok()?;
        if n > limit {
            return None;
        }
        seconds += n * unit;
    }
    if fields.next().is_some() || seconds > 24 * 3600 {
        return None;
    }
    Some(sign * seconds)
}

#[cfg(test)]
mod tests {
    use super::*;

    const HOUR_US: i64 = 3600 * MICROS_PER_SECOND;

    /// Microseconds since 2000-01-01 of a UTC date and hour.
    fn at(y: i64, m: i64, d: i64, h: i64, min: i64) -> i64 {
        crate::calendar::day_number(y, m, d) * 86_400 * MICROS_PER_SECOND
            + h * HOUR_US
            + min * 60 * MICROS_PER_SECOND
    }

    // Proves the POSIX reading of zone names: positive is west.
    #[test]
    fn posix_offsets() {
        assert_eq!(posix_offset("UTC"), Some(0));
        assert_eq!(posix_offset("+05"), Some(5 * 3600));
        assert_eq!(posix_offset("5"), Some(5 * 3600));
        assert_eq!(posix_offset("-05:30"), Some(-(5 * 3600 + 1800)));
        assert_eq!(posix_offset("UTC-05:30:15"), Some(-(5 * 3600 + 1800 + 15)));
        assert_eq!(posix_offset("Etc/GMT+3"), Some(3 * 3600));
        assert_eq!(posix_offset("America/New_York"), None);
        assert_eq!(posix_offset("EST"), None);
        assert_eq!(posix_offset("PST+8"), Some(8 * 3600));
        assert_eq!(posix_offset("mst+7:00"), Some(7 * 3600));
        assert_eq!(posix_offset("ab+7"), None);
        assert_eq!(posix_offset("+5:99"), None);
        assert_eq!(posix_offset(""), None);
    }

    // Proves the database's offsets and PostgreSQL 15's rule for local
    // times in a gap (the offset before) and a fold (the offset after),
    // as PostgreSQL answered them for America/New_York in 2024.
    #[test]
    fn new_york_transitions() {
        let ny = TimeZone::setting("america/new_york").unwrap();
        assert_eq!(ny.name(), "America/New_York");
        assert_eq!(ny.offset_at(at(2024, 7, 1, 12, 0)), -4 * 3600);
        assert_eq!(ny.offset_at(at(2024, 1, 1, 12, 0)), -5 * 3600);
        // 02:30 on 2024-03-10 does not exist: read as EST.
        assert_eq!(
            ny.utc_of_local(at(2024, 3, 10, 2, 30)),
            Some(at(2024, 3, 10, 7, 30))
        );
        // 01:30 on 2024-11-03 happens twice: the second (EST).
        assert_eq!(
            ny.utc_of_local(at(2024, 11, 3, 1, 30)),
            Some(at(2024, 11, 3, 6, 30))
        );
        assert_eq!(ny.abbreviation_at(at(2024, 7, 1, 12, 0)), "EDT");
        assert!(ny.is_dst_at(at(2024, 7, 1, 12, 0)));
        assert!(!ny.is_dst_at(at(2024, 1, 1, 12, 0)));
    }

    // Proves a POSIX TZ string's rule (PostgreSQL's horology.sql zone) and
    // a zone's last rule past the database's years.
    #[test]
    fn posix_rules_and_far_years() {
        let cst = TimeZone::setting("CST7CDT,M4.1.0,M10.5.0").unwrap();
        assert_eq!(cst.name(), "CST7CDT,M4.1.0,M10.5.0");
        assert_eq!(cst.offset_at(at(2005, 4, 3, 19, 0)), -6 * 3600);
        assert_eq!(cst.offset_at(at(2005, 4, 2, 19, 0)), -7 * 3600);
        assert_eq!(cst.abbreviation_at(at(2005, 4, 3, 19, 0)), "CDT");
        assert!(TimeZone::named("CST7CDT,M4.1.0,M10.5.0").is_some());
        assert!(TimeZone::setting("CST7CDT,bogus").is_none());
        let helsinki = TimeZone::setting("Europe/Helsinki").unwrap();
        assert_eq!(helsinki.offset_at(at(205_000, 7, 10, 14, 32)), 3 * 3600);
        assert_eq!(helsinki.offset_at(at(205_000, 1, 10, 14, 32)), 2 * 3600);
        assert_eq!(
            helsinki.utc_of_local(at(205_000, 7, 10, 17, 32)),
            Some(at(205_000, 7, 10, 14, 32))
        );
    }

    // Proves a zone-defined abbreviation means what its zone called so at
    // the time (Moscow's MSK: +03, then +04 from 2011-03-27 to
    // 2014-10-26, then +03), as PostgreSQL 15 answered.
    #[test]
    fn dynamic_abbreviations() {
        let msk = TimeZone::named("msk").unwrap();
        assert_eq!(msk.name(), "MSK");
        assert_eq!(
            msk.utc_of_local(at(2011, 3, 27, 2, 0)),
            Some(at(2011, 3, 26, 22, 0))
        );
        assert_eq!(
            msk.utc_of_local(at(2011, 3, 27, 1, 59)),
            Some(at(2011, 3, 26, 22, 59))
        );
        assert_eq!(
            msk.utc_of_local(at(2014, 10, 26, 0, 0)),
            Some(at(2014, 10, 25, 20, 0))
        );
        assert_eq!(msk.offset_at(at(2020, 1, 1, 0, 0)), 3 * 3600);
        assert_eq!(msk.abbreviation_at(at(2020, 1, 1, 0, 0)), "MSK");
        // Past the zone's listed transitions, and long before them.
        assert_eq!(
            msk.utc_of_local(at(20_000, 7, 1, 12, 0)),
            Some(at(20_000, 7, 1, 9, 0))
        );
        assert_eq!(
            msk.utc_of_local(at(1900, 1, 1, 12, 0)),
            Some(at(1900, 1, 1, 9, 0))
        );
        // An abbreviation its zone no longer uses: the zone's own offset.
        let art = TimeZone::named("ART").unwrap();
        assert_eq!(
            art.utc_of_local(at(2030, 7, 1, 12, 0)),
            Some(at(2030, 7, 1, 15, 0))
        );
        // A fixed one stays fixed.
        assert_eq!(TimeZone::named("EST").unwrap().offset_at(0), -5 * 3600);
    }

    // Proves how names are read: SET's numbers are hours east, AT TIME
    // ZONE's abbreviations come first, unknown names are refused.
    #[test]
    fn names() {
        assert_eq!(TimeZone::setting("+05").unwrap().name(), "<+05>-05");
        assert_eq!(TimeZone::setting("-7").unwrap().offset_at(0), -7 * 3600);
        assert_eq!(TimeZone::setting("UTC").unwrap(), TimeZone::UTC);
        assert!(TimeZone::setting("PST").is_none());
        assert!(TimeZone::setting("nope").is_none());
        assert_eq!(TimeZone::named("pst").unwrap().offset_at(0), -8 * 3600);
        assert_eq!(TimeZone::named("+05").unwrap().offset_at(0), -5 * 3600);
        assert!(TimeZone::named("nope").is_none());
        let zones = database_zones();
        assert!(zones.windows(2).all(|w| w[0].name() < w[1].name()));
        assert!(zones.iter().any(|z| z.name() == "Asia/Tokyo"));
        assert_eq!(offset_text(19800), "+05:30");
        assert_eq!(offset_text(-12600), "-03:30");
        assert_eq!(offset_text(1172), "+00:19:32");
    }
}
