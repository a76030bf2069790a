//! `timetz` (time with time zone): a time of day and the zone offset it
//! was written in, PostgreSQL's `TimeTzADT`. The one owner of what a
//! timetz is: its text form, its order, its zone's range and its
//! arithmetic. The time part is a `time`'s (`time_of_day.rs`: precision,
//! wrap at midnight); reading its text is `datetime_input.rs`'s.
//!
//! | field | meaning |
//! |---|---|
//! | `time` | microseconds since midnight, `0..=24:00:00` |
//! | `zone` | seconds *west* of UTC (PostgreSQL's sign: `+02` is -7200), `-15:59:59..=15:59:59` as read (text, binary); `AT TIME ZONE` an interval may move it further, as PostgreSQL's |
//!
//! Order (PostgreSQL's `timetz_cmp_internal`): by the UTC instant
//! `time + zone` (not wrapped into a day), then by `zone`, so
//! `13:00+03` sorts before `12:00+02` and the two are not equal.

use crate::interval::Interval;
use crate::time_zone::TimeZone;
use std::cmp::Ordering;

/// The largest zone displacement PostgreSQL's `timetz` keeps, in seconds
/// (`TZDISP_LIMIT - 1`: `15:59:59`).
pub const ZONE_LIMIT_SECONDS: i32 = 16 * 3600 - 1;

const MICROS_PER_SECOND: i64 = 1_000_000;

/// A `timetz` (module table).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TimeTz {
    /// Microseconds since midnight, `0..=24:00:00`.
    pub time: i64,
    /// Seconds west of UTC (module table).
    pub zone: i32,
}

impl TimeTz {
    /// A timetz; asserts the ranges every reader checks first.
    pub fn new(time: i64, zone: i32) -> TimeTz {
        assert!(
            (0..=crate::time_of_day::TIME_END).contains(&time),
            "timetz time {time}"
        );
        assert!(zone.abs() <= ZONE_LIMIT_SECONDS, "timetz zone {zone}");
        TimeTz { time, zone }
    }

    /// The UTC instant it names, in microseconds from a midnight (may
    /// fall outside the day): the first key of its order.
    pub fn utc(self) -> i64 {
        self.time + i64::from(self.zone) * MICROS_PER_SECOND
    }

    /// PostgreSQL's order (module doc).
    pub fn cmp_utc(self, other: TimeTz) -> Ordering {
        self.utc()
            .cmp(&other.utc())
            .then(self.zone.cmp(&other.zone))
    }

    /// `HH:MM:SS[.f]` then the offset east (`+02`, `-07:30`,
    /// `+05:30:15`), PostgreSQL's `timetz_out` with DateStyle ISO.
    pub fn text(self) -> String {
        format!(
            "{}{}",
            crate::time_of_day::format_time(self.time),
            crate::time_zone::offset_text(-self.zone)
        )
    }

    /// The instant `utc_us` as the clock in `zone` shows it, with that
    /// zone's offset then (a timestamptz cast to a timetz, `now`);
    /// `None` past the zone's range.
    pub fn of_instant(utc_us: i64, zone: &TimeZone) -> Option<TimeTz> {
        let local = zone.local_of_utc(utc_us)?;
        let west = west_of(utc_us - local)?;
        Some(TimeTz::new(crate::time_of_day::wrap(local), west))
    }

    /// `time` in `zone`, with that zone's offset at that time of the
    /// current day (PostgreSQL's time-to-timetz cast and a timetz's text
    /// without a zone; `24:00:00` keeps its own value).
    pub fn of_time_today(time: i64, zone: &TimeZone) -> Option<TimeTz> {
        let now = zone.local_of_utc(crate::calendar::transaction_now())?;
        let local = now - now.rem_euclid(crate::interval::USECS_PER_DAY) + time;
        let utc = zone.utc_of_local(local)?;
        let west = west_of(utc - local)?;
        Some(TimeTz::new(time, west))
    }

    /// `timetz + interval`: the interval's microseconds added to the
    /// time, wrapped at midnight, the zone kept (`timetz_pl_interval`).
    pub fn plus_interval(self, span: Interval) -> TimeTz {
        TimeTz {
            time: crate::time_of_day::plus_interval(self.time, span),
            zone: self.zone,
        }
    }

    /// The same instant in the zone `zone` seconds west: the time moved
    /// by the difference and wrapped at midnight (`timetz AT TIME
    /// ZONE`, PostgreSQL's `timetz_zone`).
    pub fn in_zone(self, zone: i32) -> TimeTz {
        let moved = self.time + (i64::from(self.zone) - i64::from(zone)) * MICROS_PER_SECOND;
        TimeTz {
            time: crate::time_of_day::wrap(moved),
            zone,
        }
    }
}

/// A zone's offset west in seconds from the microseconds between a UTC
/// instant and its local clock; `None` past what a timetz keeps.
fn west_of(difference_us: i64) -> Option<i32> {
    i32::try_from(difference_us / MICROS_PER_SECOND)
        .ok()
        .filter(|west| west.abs() <= ZONE_LIMIT_SECONDS)
}

#[cfg(test)]
mod tests {
    use super::*;

    // Proves the text form (PostgreSQL 15's), the order by instant then
    // zone, interval arithmetic's wrap, and moving to another zone.
    #[test]
    fn timetz_prints_orders_and_moves_as_postgresql() {
        let hours = |h: i64| h * 3_600_000_000;
        let at = |h: i64, east: i32| TimeTz::new(hours(h), -east * 3600);
        assert_eq!(at(12, 2).text(), "12:00:00+02");
        assert_eq!(
            TimeTz::new(45_296_789_000, 7 * 3600 + 1800).text(),
            "12:34:56.789-07:30"
        );
        assert_eq!(
            TimeTz::new(0, -(5 * 3600 + 30 * 60 + 15)).text(),
            "00:00:00+05:30:15"
        );
        // 13:00+03 and 12:00+02 are one instant: the eastern zone first.
        assert_eq!(at(13, 3).cmp_utc(at(12, 2)), Ordering::Less);
        assert_eq!(at(12, 2).cmp_utc(at(11, 0)), Ordering::Less);
        assert_eq!(at(12, 2).cmp_utc(at(12, 2)), Ordering::Equal);
        assert_eq!(
            at(23, 2).plus_interval(Interval::new(0, 1, hours(2))),
            at(1, 2)
        );
        assert_eq!(at(12, 2).in_zone(0), at(10, 0));
        assert_eq!(at(1, 0).in_zone(5 * 3600), at(20, -5));
    }
}
