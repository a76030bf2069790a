//! The proleptic Gregorian calendar of dates and timestamps: day counts
//! since PostgreSQL's epoch 2000-01-01 to and from (year, month, day),
//! years astronomical (0 is 1 BC). The one owner of calendar arithmetic:
//! text input and output here, interval arithmetic, and folio-sql's
//! date/time functions all use it.

/// Days from 1970-01-01 to 2000-01-01 (PostgreSQL's epoch).
pub const EPOCH_DAYS: i64 = 10_957;

/// Now, microseconds since 2000-01-01 UTC, by the system clock.
pub fn now() -> i64 {
    let unix = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_micros() as i64);
    from_unix_micros(unix)
}

/// A timestamp's microseconds since 2000-01-01 UTC from microseconds
/// since the Unix epoch (the clock's and the counters' unit).
pub fn from_unix_micros(unix: i64) -> i64 {
    unix - EPOCH_DAYS * crate::interval::USECS_PER_DAY
}

/// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's
/// algorithm).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The date of a day count since 1970-01-01: (year, month, day), the
/// year astronomical (0 = 1 BC).
fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

/// The (year, month, day) of a day count since 2000-01-01, the year
/// astronomical.
pub fn ymd(days: i64) -> (i64, i64, i64) {
    civil_from_days(days + EPOCH_DAYS)
}

/// The day count since 2000-01-01 of a date (astronomical year).
pub fn day_number(y: i64, m: i64, d: i64) -> i64 {
    days_from_civil(y, m, d) - EPOCH_DAYS
}

/// The days in month `m` of year `y` (astronomical).
pub fn days_in_month(y: i64, m: i64) -> i64 {
    let leap = y % 4 == 0 && (y % 100 != 0 || y % 400 == 0);
    match m {
        2 if leap => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}
