//! `time` (without time zone): a time of day as microseconds since
//! midnight, `0..=USECS_PER_DAY` (PostgreSQL's `TimeADT`: `24:00:00` is
//! a value of its own, the end of the day). The one owner of what a time
//! is: its text form, its precision, and the wrap-around at midnight its
//! arithmetic and casts from intervals share. Reading its text is
//! `datetime_input.rs`'s, the one reader of date/time text.

use crate::interval::{Interval, USECS_PER_DAY};

/// The latest time, `24:00:00`.
pub const TIME_END: i64 = USECS_PER_DAY;

/// PostgreSQL's `time_out` with DateStyle ISO: `HH:MM:SS`, then the
/// fraction without its trailing zeros.
pub fn format_time(micros: i64) -> String {
    let fraction = micros % 1_000_000;
    let seconds = micros / 1_000_000;
    let mut out = format!(
        "{:02}:{:02}:{:02}",
        seconds / 3600,
        seconds / 60 % 60,
        seconds % 60
    );
    if fraction != 0 {
        out.push('.');
        out.push_str(format!("{fraction:06}").trim_end_matches('0'));
    }
    out
}

/// `micros` kept to `precision` digits of its seconds' fraction, rounded
/// half away from zero (PostgreSQL's `AdjustTimeForTypmod`; so
/// `23:59:59.9` as `time(0)` is `24:00:00`).
pub fn round_to_precision(micros: i64, precision: u8) -> i64 {
    assert!(precision <= 6, "time precision {precision}");
    let scale = 10i64.pow(u32::from(6 - precision));
    let half = scale / 2;
    if micros >= 0 {
        (micros + half) / scale * scale
    } else {
        -((-micros + half) / scale * scale)
    }
}

/// A span of microseconds wrapped into a day, `0..USECS_PER_DAY`
/// (PostgreSQL's `time + interval` and `interval::time`: only the
/// interval's time part counts, its days and months are dropped).
pub fn wrap(micros: i64) -> i64 {
    micros.rem_euclid(USECS_PER_DAY)
}

/// `time + interval` (`time - interval` adds its negation).
pub fn plus_interval(time: i64, span: Interval) -> i64 {
    wrap(time.wrapping_add(span.micros % USECS_PER_DAY))
}

#[cfg(test)]
mod tests {
    use super::*;

    // Proves PostgreSQL's output form, rounding to a precision (half away
    // from zero, up to 24:00:00) and the wrap of interval arithmetic.
    #[test]
    fn times_print_round_and_wrap_as_postgresql() {
        assert_eq!(format_time(0), "00:00:00");
        assert_eq!(format_time(45_296_789_000), "12:34:56.789");
        assert_eq!(format_time(TIME_END), "24:00:00");
        assert_eq!(format_time(1), "00:00:00.000001");
        assert_eq!(round_to_precision(45_296_789_000, 1), 45_296_800_000);
        assert_eq!(round_to_precision(45_296_500_000, 0), 45_297_000_000);
        assert_eq!(round_to_precision(TIME_END - 100_000, 0), TIME_END);
        assert_eq!(round_to_precision(5, 6), 5);
        let hours = |h: i64| h * 3_600_000_000;
        assert_eq!(
            plus_interval(hours(23), Interval::new(0, 0, hours(2))),
            hours(1)
        );
        assert_eq!(
            plus_interval(hours(1), Interval::new(1, 1, hours(-2))),
            hours(23)
        );
        assert_eq!(
            plus_interval(TIME_END, Interval::new(0, 0, 60_000_000)),
            60_000_000
        );
        assert_eq!(wrap(-hours(1)), hours(23));
    }
}
