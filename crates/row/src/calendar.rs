//! The proleptic Gregorian calendar of dates and timestamps: day counts
//! since PostgreSQL's epoch 2000-01-01 to and from (year, month, day),
//! years astronomical (0 is 1 BC). The one owner of calendar arithmetic:
//! text input and output here, interval arithmetic, and folio-sql's
//! date/time functions all use it.

use crate::infinite_datetime::Infinity;

/// Days from 1970-01-01 to 2000-01-01 (PostgreSQL's epoch).
pub const EPOCH_DAYS: i64 = 10_957;

/// The Julian day of 2000-01-01 (days since 4714-11-24 BC).
pub const JULIAN_DAY_2000: i64 = 2_451_545;

/// PostgreSQL's first valid date (4714-11-24 BC, Julian day 0) and the
/// first past its last (5874898-01-01), in days since 2000-01-01
/// (`MIN_DATE`, `END_DATE`).
const MIN_DATE: i64 = -JULIAN_DAY_2000;
const END_DATE: i64 = 2_145_031_949;

/// Whether day count `days` (since 2000-01-01) is a finite date
/// PostgreSQL holds: `date out of range` (22008) outside (the
/// infinities, `i32::MIN` and `i32::MAX`, among them).
pub fn is_valid_date(days: i64) -> bool {
    (MIN_DATE..END_DATE).contains(&days)
}

/// PostgreSQL's first valid timestamp (4714-11-24 BC) and the first
/// past its last (294277-01-01), in microseconds since 2000-01-01
/// (`MIN_TIMESTAMP`, `END_TIMESTAMP`).
const MIN_TIMESTAMP: i64 = -211_813_488_000_000_000;
pub(crate) const END_TIMESTAMP: i64 = 9_223_371_331_200_000_000;

/// Whether `micros` (since 2000-01-01) is a finite timestamp PostgreSQL
/// holds: `timestamp out of range` (22008) outside. The infinities
/// (`i64::MIN`, `i64::MAX`) are outside, so arithmetic never makes one.
pub fn is_valid_timestamp(micros: i64) -> bool {
    (MIN_TIMESTAMP..END_TIMESTAMP).contains(&micros)
}

/// The timestamp (microseconds since 2000-01-01) of a date's midnight;
/// an infinite date gives the same infinity (`infinite_datetime.rs`),
/// and so does a finite date past the last timestamp, as PostgreSQL's
/// `date2timestamp_no_overflow` compares it (a cast checks
/// [`is_valid_timestamp`] first).
pub fn midnight(days: i32) -> i64 {
    match Infinity::of_date(days) {
        Some(infinity) => infinity.timestamp(),
        None => i64::from(days).saturating_mul(crate::interval::USECS_PER_DAY),
    }
}

/// The date of a timestamp's day (its clock's, for a timestamptz given
/// as local time); an infinite timestamp gives the same infinity.
pub fn date_of(micros: i64) -> i32 {
    match Infinity::of_timestamp(micros) {
        Some(infinity) => infinity.date(),
        // A finite timestamp's day is within a date's range.
        None => micros.div_euclid(crate::interval::USECS_PER_DAY) as i32,
    }
}

/// Now, microseconds since 2000-01-01 UTC, by the system clock.
pub fn now() -> i64 {
    let unix = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_micros() as i64);
    from_unix_micros(unix)
}

thread_local! {
    /// The start of the transaction of the statement running on this
    /// thread, while one is pinned ([`pin_transaction_start`]).
    static TRANSACTION_START: std::cell::Cell<Option<i64>> = const { std::cell::Cell::new(None) };
}

/// What the special inputs `now`, `today`, `tomorrow` and `yesterday`
/// read, and the day a zone's offset is taken at for a `timetz` written
/// without a date: the start of the running statement's transaction
/// where one is pinned (PostgreSQL's rule: `'now'::timestamptz` is
/// `now()`), else the system clock.
pub fn transaction_now() -> i64 {
    TRANSACTION_START.with(|t| t.get()).unwrap_or_else(now)
}

/// Pins [`transaction_now`] to `at` on this thread until the guard is
/// dropped (a statement runs on one thread to its end).
pub fn pin_transaction_start(at: i64) -> PinnedTransactionStart {
    PinnedTransactionStart(TRANSACTION_START.with(|t| t.replace(Some(at))))
}

/// The pin of [`pin_transaction_start`]; dropping it restores the one
/// before.
#[must_use]
#[derive(Debug)]
pub struct PinnedTransactionStart(Option<i64>);

impl Drop for PinnedTransactionStart {
    fn drop(&mut self) {
        TRANSACTION_START.with(|t| t.set(self.0));
    }
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
