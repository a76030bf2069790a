//! What the fields of date/time text say, as PostgreSQL 15 decides it
//! (its `DecodeDateTime` rules): the one decoder of date, timestamp and
//! timestamptz text (and of the date in a time's text), which
//! `datetime_input.rs` turns into values. `datetime_tokens.rs` cuts the
//! text into fields first.
//!
//! Each field sets some of the parts year, month, day, hour, minute,
//! second, zone, era, meridiem, day of week, ... (a bit mask); a part
//! set twice is bad syntax (22007). By the field's kind:
//!
//! - a date (`1999-01-08`, `1/8/1999`, `99-jan-08`, `1999.008`): its
//!   numbers and month name, each decided as a lone number is (below);
//!   after a month and day, a zone name (`america/new_york`) or a
//!   run-together time with an offset (`173201-0800`);
//! - a time `H:M[:S[.f]]` (`M:S.f` with a fraction and two parts);
//! - a signed offset `±H`, `±HHMM`, `±H:M[:S]` (16 hours or more: 22009);
//! - a word: a zone abbreviation (PostgreSQL's `Default` set) before any
//!   keyword; a month name; `am`/`pm`; `ad`/`bc`; a day of the week
//!   (ignored); `today`, `tomorrow`, `yesterday`, `now`, `allballs`
//!   (midnight UTC), `epoch`, `infinity`, `-infinity`; `at`, `on`
//!   (ignored); `t` before an ISO time; a unit label before a number
//!   (`j`/`julian`/`jd` a Julian day, `y`, `m`, `d`, `h`, `mm`, `s`);
//!   `dst` after a zone abbreviation; else a zone name (`utc`);
//! - a lone number: a Julian day or labelled part after its label; with
//!   a fraction and no date yet, a date (`1999.008`: year and day of
//!   year); six digits or more, a run-together date `[YY]YYMMDD` or time
//!   `HHMMSS` (`HHMM`); else the next date part, in an order that
//!   depends on what came before and on DateStyle's field order (for
//!   the first number, [`DateOrder`]): three digits or more are a year;
//!   three digits after a year a day of the year.
//!
//! Then a year of one or two digits is 1970-2069 (unless `bc`); a year 0
//! or below, a month past 12, a day past the month are 22008; an hour
//! past 12 with `am`/`pm` too. A date needs its year, month and day
//! (a time alone is 22007).

use crate::calendar;
use crate::datetime_tokens::{self, Kind, Token};
use crate::infinite_datetime::Infinity;
use crate::interval::USECS_PER_DAY;
use crate::time_zone::TimeZone;

/// DateStyle's field order: how the numbers of a date with no four-digit
/// year first and no month name are read (`1/8/1999`, `01/02/03`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum DateOrder {
    /// Month, day, year (PostgreSQL's default).
    #[default]
    Mdy,
    /// Day, month, year.
    Dmy,
    /// Year, month, day.
    Ymd,
}

impl DateOrder {
    /// As `SHOW DateStyle` prints it (`MDY`).
    pub fn word(self) -> &'static str {
        match self {
            DateOrder::Mdy => "MDY",
            DateOrder::Dmy => "DMY",
            DateOrder::Ymd => "YMD",
        }
    }
}

/// Why text is no date/time (PostgreSQL's `DTERR_*`): each becomes a
/// `RowError` in `datetime_input.rs`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Fault {
    /// Bad syntax (22007).
    Syntax,
    /// A field out of range (22008).
    FieldRange,
    /// A zone offset of 16 hours or more (22009).
    ZoneRange,
    /// A zone name no zone has (22023), lower case.
    UnknownZone(String),
}

/// The parts a field sets (PostgreSQL's `DTK_M` bits).
mod part {
    pub const RESERVED: u32 = 1 << 0;
    pub const MONTH: u32 = 1 << 1;
    pub const YEAR: u32 = 1 << 2;
    pub const DAY: u32 = 1 << 3;
    pub const ZONE: u32 = 1 << 5;
    pub const DAYLIGHT_ZONE: u32 = 1 << 6;
    pub const MERIDIEM: u32 = 1 << 9;
    pub const HOUR: u32 = 1 << 10;
    pub const MINUTE: u32 = 1 << 11;
    pub const SECOND: u32 = 1 << 12;
    pub const MILLISECOND: u32 = 1 << 13;
    pub const MICROSECOND: u32 = 1 << 14;
    pub const DAY_OF_YEAR: u32 = 1 << 15;
    pub const DAY_OF_WEEK: u32 = 1 << 16;
    pub const ERA: u32 = 1 << 18;
    pub const DST: u32 = 1 << 28;
    pub const DATE: u32 = YEAR | MONTH | DAY;
    pub const ALL_SECONDS: u32 = SECOND | MILLISECOND | MICROSECOND;
    pub const TIME: u32 = HOUR | MINUTE | ALL_SECONDS;
}

/// What a word says (PostgreSQL's `datetktbl`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Word {
    Special(Special),
    Month(i64),
    Ignored,
    Meridiem {
        pm: bool,
    },
    Era {
        bc: bool,
    },
    DayOfWeek,
    /// A label for the next number.
    Unit(Unit),
    /// `t`: an ISO time follows.
    IsoTime,
    /// `dst`: the zone abbreviation before it, an hour east.
    Dst,
}

/// The special words.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Special {
    Now,
    Today,
    Tomorrow,
    Yesterday,
    /// `allballs`: 00:00:00 UTC.
    Allballs,
    Epoch,
    Late,
    Early,
}

/// What a label says the next number is (`Time`: `t`'s ISO time).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Unit {
    Year,
    Month,
    Day,
    Hour,
    Minute,
    Second,
    Julian,
    Time,
    /// Labels PostgreSQL knows but refuses before a number (`dow`,
    /// `doy`, `isodow`, `isoyear`).
    Other,
}

const KEYWORDS: [(&str, Word); 71] = {
    use Special::{Allballs, Early, Epoch, Late, Now, Today, Tomorrow, Yesterday};
    use Word::{DayOfWeek, Dst, Era, Ignored, IsoTime, Meridiem, Month};
    [
        ("-infinity", Word::Special(Early)),
        ("ad", Era { bc: false }),
        ("allballs", Word::Special(Allballs)),
        ("am", Meridiem { pm: false }),
        ("apr", Month(4)),
        ("april", Month(4)),
        ("at", Ignored),
        ("aug", Month(8)),
        ("august", Month(8)),
        ("bc", Era { bc: true }),
        ("d", Word::Unit(Unit::Day)),
        ("dec", Month(12)),
        ("december", Month(12)),
        ("dow", Word::Unit(Unit::Other)),
        ("doy", Word::Unit(Unit::Other)),
        ("dst", Dst),
        ("epoch", Word::Special(Epoch)),
        ("feb", Month(2)),
        ("february", Month(2)),
        ("fri", DayOfWeek),
        ("friday", DayOfWeek),
        ("h", Word::Unit(Unit::Hour)),
        ("infinity", Word::Special(Late)),
        ("isodow", Word::Unit(Unit::Other)),
        ("isoyear", Word::Unit(Unit::Other)),
        ("j", Word::Unit(Unit::Julian)),
        ("jan", Month(1)),
        ("january", Month(1)),
        ("jd", Word::Unit(Unit::Julian)),
        ("jul", Month(7)),
        ("julian", Word::Unit(Unit::Julian)),
        ("july", Month(7)),
        ("jun", Month(6)),
        ("june", Month(6)),
        ("m", Word::Unit(Unit::Month)),
        ("mar", Month(3)),
        ("march", Month(3)),
        ("may", Month(5)),
        ("mm", Word::Unit(Unit::Minute)),
        ("mon", DayOfWeek),
        ("monday", DayOfWeek),
        ("nov", Month(11)),
        ("november", Month(11)),
        ("now", Word::Special(Now)),
        ("oct", Month(10)),
        ("october", Month(10)),
        ("on", Ignored),
        ("pm", Meridiem { pm: true }),
        ("s", Word::Unit(Unit::Second)),
        ("sat", DayOfWeek),
        ("saturday", DayOfWeek),
        ("sep", Month(9)),
        ("sept", Month(9)),
        ("september", Month(9)),
        ("sun", DayOfWeek),
        ("sunday", DayOfWeek),
        ("t", IsoTime),
        ("thu", DayOfWeek),
        ("thur", DayOfWeek),
        ("thurs", DayOfWeek),
        ("thursday", DayOfWeek),
        ("today", Word::Special(Today)),
        ("tomorrow", Word::Special(Tomorrow)),
        ("tue", DayOfWeek),
        ("tues", DayOfWeek),
        ("tuesday", DayOfWeek),
        ("wed", DayOfWeek),
        ("wednesday", DayOfWeek),
        ("weds", DayOfWeek),
        ("y", Word::Unit(Unit::Year)),
        ("yesterday", Word::Special(Yesterday)),
    ]
};

/// The keyword `word` (lower case) is, if any.
fn keyword(word: &str) -> Option<Word> {
    KEYWORDS.iter().find(|(w, _)| *w == word).map(|(_, k)| *k)
}

/// A zone abbreviation's offset east in seconds and whether it is a
/// daylight-saving one.
fn abbreviation(word: &str) -> Option<(i64, bool)> {
    let upper = word.to_ascii_uppercase();
    crate::time_zone::ABBREVIATIONS
        .iter()
        .find(|(a, ..)| *a == upper)
        .map(|(_, east, dst)| (i64::from(*east), *dst))
}

/// The zone a finite date/time was written in.
#[derive(Clone, Debug)]
pub(crate) enum WrittenZone {
    /// None: the session's.
    Session,
    /// An offset, seconds west of UTC (PostgreSQL's sign).
    West(i64),
    /// A zone name, whose offset depends on the date.
    Named(TimeZone),
}

/// A finite date and time as written: the year astronomical (0 is 1
/// BC); the time's parts as written (an hour may be 24, a second 60).
#[derive(Clone, Debug)]
pub(crate) struct Moment {
    pub year: i64,
    pub month: i64,
    pub day: i64,
    pub hour: i64,
    pub minute: i64,
    pub second: i64,
    pub micros: i64,
    pub zone: WrittenZone,
}

impl Moment {
    /// Whether the date is within PostgreSQL's Julian-day range
    /// (4714-11-24 BC to 5874898-06-01; `IS_VALID_JULIAN`).
    pub fn is_valid_julian(&self) -> bool {
        let (y, m) = (self.year, self.month);
        (y > -4713 || (y == -4713 && m >= 11)) && (y < 5_874_898 || (y == 5_874_898 && m < 6))
    }

    /// Days since 2000-01-01 (call after [`Moment::is_valid_julian`]).
    pub fn days(&self) -> i64 {
        calendar::day_number(self.year, self.month, self.day)
    }

    /// Microseconds from the day's midnight (past a day for `24:00:00`).
    pub fn time_micros(&self) -> i64 {
        ((self.hour * 60 + self.minute) * 60 + self.second) * 1_000_000 + self.micros
    }
}

/// What date/time text names.
#[derive(Clone, Debug)]
pub(crate) enum Decoded {
    At(Moment),
    /// `epoch`: 1970-01-01 00:00:00 UTC.
    Epoch,
    Infinite(Infinity),
}

/// The clock and zone the relative words read (`now`, `today`).
pub(crate) struct Context<'a> {
    pub order: DateOrder,
    pub session: &'a TimeZone,
    /// Now, microseconds since 2000-01-01 UTC.
    pub now: i64,
}

/// Decodes date/time text (module doc): a date with an optional time
/// and zone, or a special word.
pub(crate) fn decode(text: &str, cx: &Context) -> Result<Decoded, Fault> {
    let fields = datetime_tokens::tokens(text, |w| keyword(w).is_some())?;
    Decoder::new(cx).run(&fields)
}

/// The parts of a date/time as PostgreSQL's `struct pg_tm` holds them
/// while decoding.
#[derive(Default)]
struct Parts {
    year: i64,
    month: i64,
    day: i64,
    hour: i64,
    minute: i64,
    second: i64,
    micros: i64,
    day_of_year: i64,
}

struct Decoder<'a> {
    cx: &'a Context<'a>,
    parts: Parts,
    /// The parts set so far.
    mask: u32,
    /// The label before this field.
    label: Option<Unit>,
    text_month: bool,
    julian: bool,
    two_digit_year: bool,
    bc: bool,
    pm: Option<bool>,
    /// The zone: seconds west, a name.
    west: i64,
    named: Option<TimeZone>,
    special: Option<Decoded>,
}

impl<'a> Decoder<'a> {
    fn new(cx: &'a Context<'a>) -> Decoder<'a> {
        Decoder {
            cx,
            parts: Parts::default(),
            mask: 0,
            label: None,
            text_month: false,
            julian: false,
            two_digit_year: false,
            bc: false,
            pm: None,
            west: 0,
            named: None,
            special: None,
        }
    }

    fn run(mut self, fields: &[Token]) -> Result<Decoded, Fault> {
        for (i, field) in fields.iter().enumerate() {
            let next = fields.get(i + 1).map(|t| t.kind);
            let Some(sets) = self.field(field, next)? else {
                continue;
            };
            if sets & self.mask != 0 {
                return Err(Fault::Syntax);
            }
            self.mask |= sets;
        }
        self.validate_date()?;
        if let Some(pm) = self.pm {
            if self.parts.hour > 12 {
                return Err(Fault::FieldRange);
            }
            match (pm, self.parts.hour) {
                (false, 12) => self.parts.hour = 0,
                (true, h) if h != 12 => self.parts.hour += 12,
                _ => {}
            }
        }
        if let Some(special) = self.special {
            return Ok(special);
        }
        if self.mask & part::DATE != part::DATE {
            return Err(Fault::Syntax);
        }
        let dst = self.mask & part::DST != 0;
        let zone = if let Some(named) = self.named {
            if dst {
                return Err(Fault::Syntax);
            }
            WrittenZone::Named(named)
        } else if self.mask & part::ZONE != 0 {
            WrittenZone::West(self.west)
        } else if dst {
            return Err(Fault::Syntax);
        } else {
            WrittenZone::Session
        };
        let p = self.parts;
        Ok(Decoded::At(Moment {
            year: p.year,
            month: p.month,
            day: p.day,
            hour: p.hour,
            minute: p.minute,
            second: p.second,
            micros: p.micros,
            zone,
        }))
    }

    /// Decodes one field: the parts it sets (`None`: an ignored word).
    fn field(&mut self, field: &Token, next: Option<Kind>) -> Result<Option<u32>, Fault> {
        let text = field.text.as_str();
        let sets = match field.kind {
            Kind::Date => self.date_field(text)?,
            Kind::Time => {
                if let Some(label) = self.label.take()
                    && label != Unit::Time
                {
                    return Err(Fault::Syntax);
                }
                self.time(text)?;
                let p = &self.parts;
                if time_overflows(p.hour, p.minute, p.second, p.micros) {
                    return Err(Fault::FieldRange);
                }
                part::TIME
            }
            Kind::Zone => {
                self.west = zone_offset(text)?;
                part::ZONE
            }
            Kind::Number => self.number_field(text)?,
            Kind::Text | Kind::Special => return self.word(text, next),
        };
        Ok(Some(sets))
    }

    fn date_field(&mut self, text: &str) -> Result<u32, Fault> {
        if self.label == Some(Unit::Julian) {
            // A Julian day with an offset run on (`j2451187-05`).
            let (day, rest) = leading_int(text).ok_or(Fault::FieldRange)?;
            if day < 0 {
                return Err(Fault::FieldRange);
            }
            self.set_julian(day);
            self.west = zone_offset(rest)?;
            self.label = None;
            return Ok(part::DATE | part::TIME | part::ZONE);
        }
        let month_and_day = part::MONTH | part::DAY;
        if self.label.is_none() && self.mask & month_and_day != month_and_day {
            return self.date(text);
        }
        if text.starts_with(|c: char| c.is_ascii_digit()) || self.label.is_some() {
            // A run-together time and offset (`173201-0800`), perhaps
            // after `t`.
            if let Some(label) = self.label.take()
                && label != Unit::Time
            {
                return Err(Fault::Syntax);
            }
            if self.mask & part::TIME == part::TIME {
                return Err(Fault::Syntax);
            }
            let at = text.find('-').ok_or(Fault::Syntax)?;
            self.west = zone_offset(&text[at..])?;
            let sets = self.run_together(&text[..at], self.mask)?;
            return Ok(sets | part::ZONE);
        }
        self.named = Some(TimeZone::named(text).ok_or_else(|| Fault::UnknownZone(text.into()))?);
        Ok(part::ZONE)
    }

    fn number_field(&mut self, text: &str) -> Result<u32, Fault> {
        if let Some(label) = self.label.take() {
            // A labelled number makes the text a date again (`epoch
            // j2451187`), as PostgreSQL's.
            self.special = None;
            return self.labelled(label, text);
        }
        let dot = text.find('.');
        match dot {
            Some(_) if self.mask & part::DATE == 0 => self.date(text),
            Some(at) if at > 2 => self.run_together(text, self.mask),
            _ if text.len() >= 6
                && (self.mask & part::DATE == 0 || self.mask & part::TIME == 0) =>
            {
                self.run_together(text, self.mask)
            }
            _ => {
                let text_month = self.text_month;
                self.number(text, text_month, self.mask)
            }
        }
    }

    /// A number after its label (`j2451187`, `y2001m02d04`).
    fn labelled(&mut self, label: Unit, text: &str) -> Result<u32, Fault> {
        let (value, rest) = match leading_int(text) {
            Some((v, rest)) => (v, rest),
            None => return Err(Fault::FieldRange),
        };
        let fraction = rest.starts_with('.');
        if fraction && !matches!(label, Unit::Julian | Unit::Time | Unit::Second) {
            return Err(Fault::Syntax);
        }
        if !fraction && !rest.is_empty() {
            return Err(Fault::Syntax);
        }
        let p = &mut self.parts;
        Ok(match label {
            Unit::Year => {
                p.year = value;
                part::YEAR
            }
            Unit::Month if self.mask & part::MONTH != 0 && self.mask & part::HOUR != 0 => {
                p.minute = value;
                part::MINUTE
            }
            Unit::Month => {
                p.month = value;
                part::MONTH
            }
            Unit::Day => {
                p.day = value;
                part::DAY
            }
            Unit::Hour => {
                p.hour = value;
                part::HOUR
            }
            Unit::Minute => {
                p.minute = value;
                part::MINUTE
            }
            Unit::Second => {
                p.second = value;
                if fraction {
                    p.micros = fractional_second(rest)?;
                    part::ALL_SECONDS
                } else {
                    part::SECOND
                }
            }
            Unit::Julian => {
                if value < 0 {
                    return Err(Fault::FieldRange);
                }
                self.set_julian(value);
                if fraction {
                    let of_day = (fraction_of(rest)? * USECS_PER_DAY as f64) as i64;
                    let p = &mut self.parts;
                    p.hour = of_day / 3_600_000_000;
                    p.minute = of_day / 60_000_000 % 60;
                    p.second = of_day / 1_000_000 % 60;
                    p.micros = of_day % 1_000_000;
                    part::DATE | part::TIME
                } else {
                    part::DATE
                }
            }
            Unit::Time => {
                let sets = self.run_together(text, self.mask | part::DATE)?;
                if sets != part::TIME {
                    return Err(Fault::Syntax);
                }
                sets
            }
            Unit::Other => return Err(Fault::Syntax),
        })
    }

    fn set_julian(&mut self, julian_day: i64) {
        self.set_day(julian_day - crate::calendar::JULIAN_DAY_2000);
        self.julian = true;
    }

    /// The date of day `days` (since 2000-01-01).
    fn set_day(&mut self, days: i64) {
        (self.parts.year, self.parts.month, self.parts.day) = calendar::ymd(days);
    }

    /// A word (module doc): the parts it sets, `None` if ignored.
    fn word(&mut self, text: &str, next: Option<Kind>) -> Result<Option<u32>, Fault> {
        // An abbreviation a zone defines means what it did at the time.
        if let Some(zone) = crate::time_zone::dynamic_abbreviation(text) {
            self.named = Some(zone);
            return Ok(Some(part::ZONE));
        }
        if let Some((east, dst)) = abbreviation(text) {
            self.west = -east;
            return Ok(Some(if dst {
                part::DAYLIGHT_ZONE | part::ZONE
            } else {
                part::ZONE
            }));
        }
        let Some(word) = keyword(text) else {
            // A zone name without punctuation (`utc`); else bad syntax.
            self.named = Some(TimeZone::named(text).ok_or(Fault::Syntax)?);
            return Ok(Some(part::ZONE));
        };
        let sets = match word {
            Word::Ignored => return Ok(None),
            Word::Special(special) => self.special(special)?,
            Word::Month(month) => {
                let mut sets = part::MONTH;
                let p = &mut self.parts;
                // A number first read as the month is the day.
                if self.mask & part::MONTH != 0
                    && !self.text_month
                    && self.mask & part::DAY == 0
                    && (1..=31).contains(&p.month)
                {
                    p.day = p.month;
                    sets = part::DAY;
                }
                self.text_month = true;
                p.month = month;
                sets
            }
            Word::Dst => {
                self.west -= 3600;
                part::DST | part::DAYLIGHT_ZONE
            }
            Word::Meridiem { pm } => {
                self.pm = Some(pm);
                part::MERIDIEM
            }
            Word::Era { bc } => {
                self.bc = bc;
                part::ERA
            }
            Word::DayOfWeek => part::DAY_OF_WEEK,
            Word::Unit(unit) => {
                if self.label.is_some() {
                    return Err(Fault::Syntax);
                }
                self.label = Some(unit);
                0
            }
            Word::IsoTime => {
                if self.mask & part::DATE != part::DATE
                    || !matches!(next, Some(Kind::Number | Kind::Time | Kind::Date))
                {
                    return Err(Fault::Syntax);
                }
                self.label = Some(Unit::Time);
                0
            }
        };
        Ok(Some(sets))
    }

    fn special(&mut self, special: Special) -> Result<u32, Fault> {
        let cx = self.cx;
        let local_now = cx.session.local_of_utc(cx.now).ok_or(Fault::FieldRange)?;
        let today = local_now.div_euclid(USECS_PER_DAY);
        Ok(match special {
            Special::Now => {
                self.set_day(today);
                let of_day = local_now.rem_euclid(USECS_PER_DAY);
                let p = &mut self.parts;
                p.hour = of_day / 3_600_000_000;
                p.minute = of_day / 60_000_000 % 60;
                p.second = of_day / 1_000_000 % 60;
                p.micros = of_day % 1_000_000;
                self.west = (cx.now - local_now) / 1_000_000;
                part::DATE | part::TIME | part::ZONE
            }
            Special::Today => {
                self.set_day(today);
                part::DATE
            }
            Special::Tomorrow => {
                self.set_day(today + 1);
                part::DATE
            }
            Special::Yesterday => {
                self.set_day(today - 1);
                part::DATE
            }
            Special::Allballs => {
                let p = &mut self.parts;
                (p.hour, p.minute, p.second) = (0, 0, 0);
                self.west = 0;
                part::TIME | part::ZONE
            }
            Special::Epoch => {
                self.special = Some(Decoded::Epoch);
                part::RESERVED
            }
            Special::Late => {
                self.special = Some(Decoded::Infinite(Infinity::Positive));
                part::RESERVED
            }
            Special::Early => {
                self.special = Some(Decoded::Infinite(Infinity::Negative));
                part::RESERVED
            }
        })
    }

    /// A date field's numbers and month name (PostgreSQL's
    /// `DecodeDate`), given the parts set so far (`mask`).
    fn date(&mut self, text: &str) -> Result<u32, Fault> {
        // Its pieces: runs of digits or of letters, each ended by one
        // character, whatever it is.
        let b = text.as_bytes();
        let mut pieces = Vec::new();
        let mut i = 0;
        while i < b.len() && pieces.len() < datetime_tokens::MAX_FIELDS {
            while i < b.len() && !b[i].is_ascii_alphanumeric() {
                i += 1;
            }
            if i == b.len() {
                return Err(Fault::Syntax);
            }
            let start = i;
            let digits = b[i].is_ascii_digit();
            while i < b.len()
                && (if digits {
                    b[i].is_ascii_digit()
                } else {
                    b[i].is_ascii_alphabetic()
                })
            {
                i += 1;
            }
            pieces.push(&text[start..i]);
            if i < b.len() {
                i += 1;
            }
        }
        let mut mask = self.mask;
        let mut sets = 0;
        let mut text_month = false;
        // Month names first: they are unambiguous.
        let mut numbers = Vec::new();
        for piece in pieces {
            if !piece.starts_with(|c: char| c.is_ascii_alphabetic()) {
                numbers.push(piece);
                continue;
            }
            match keyword(piece) {
                Some(Word::Ignored) => continue,
                Some(Word::Month(month)) => {
                    self.parts.month = month;
                    text_month = true;
                }
                _ => return Err(Fault::Syntax),
            }
            if mask & part::MONTH != 0 {
                return Err(Fault::Syntax);
            }
            mask |= part::MONTH;
            sets |= part::MONTH;
        }
        for piece in numbers {
            let more = self.number(piece, text_month, mask)?;
            if mask & more != 0 {
                return Err(Fault::Syntax);
            }
            mask |= more;
            sets |= more;
        }
        if mask & !(part::DAY_OF_YEAR | part::ZONE) != part::DATE {
            return Err(Fault::Syntax);
        }
        Ok(sets)
    }

    /// A lone number (PostgreSQL's `DecodeNumber`), given the parts set
    /// so far (`mask`) and whether a month name came before.
    fn number(&mut self, text: &str, text_month: bool, mask: u32) -> Result<u32, Fault> {
        let (value, rest) = leading_int(text).ok_or(Fault::FieldRange)?;
        let before = text.len() - rest.len();
        if before == 0 {
            return Err(Fault::Syntax);
        }
        if rest.starts_with('.') {
            // More than two digits before the point: a run-together date
            // or time (`2001.360`, `040506.789`).
            if before > 2 {
                return self.run_together(text, mask | part::DATE);
            }
            self.parts.micros = fractional_second(rest)?;
        } else if !rest.is_empty() {
            return Err(Fault::Syntax);
        }
        let flen = text.len();
        if flen == 3 && mask & part::DATE == part::YEAR && (1..=366).contains(&value) {
            self.parts.day_of_year = value;
            return Ok(part::DAY_OF_YEAR | part::MONTH | part::DAY);
        }
        let order = self.cx.order;
        let p = &mut self.parts;
        let sets = match mask & part::DATE {
            0 if flen >= 3 || order == DateOrder::Ymd => {
                p.year = value;
                part::YEAR
            }
            0 if order == DateOrder::Dmy => {
                p.day = value;
                part::DAY
            }
            0 => {
                p.month = value;
                part::MONTH
            }
            part::YEAR => {
                p.month = value;
                part::MONTH
            }
            part::MONTH if text_month && (flen >= 3 || order == DateOrder::Ymd) => {
                p.year = value;
                part::YEAR
            }
            part::MONTH => {
                p.day = value;
                part::DAY
            }
            m if m == part::YEAR | part::MONTH => {
                // `DD-MON-YYYY` even in YMD: the first number was the day.
                if text_month && flen >= 3 && self.two_digit_year {
                    p.day = p.year;
                    p.year = value;
                    self.two_digit_year = false;
                } else {
                    p.day = value;
                }
                part::DAY
            }
            part::DAY => {
                p.month = value;
                part::MONTH
            }
            m if m == part::MONTH | part::DAY => {
                p.year = value;
                part::YEAR
            }
            part::DATE => return self.run_together(text, mask),
            _ => return Err(Fault::Syntax),
        };
        if sets == part::YEAR {
            self.two_digit_year = flen <= 2;
        }
        Ok(sets)
    }

    /// A run-together date `[YY]YYMMDD` or time `HHMMSS`/`HHMM`, perhaps
    /// with a fraction of a second (PostgreSQL's `DecodeNumberField`).
    fn run_together(&mut self, text: &str, mask: u32) -> Result<u32, Fault> {
        let mut digits = text;
        if let Some(at) = text.find('.') {
            let fraction = fraction_prefix(&text[at..]);
            self.parts.micros = (fraction * 1e6).round_ties_even() as i64;
            digits = &text[..at];
        } else if mask & part::DATE != part::DATE && digits.len() >= 6 {
            let len = digits.len();
            let p = &mut self.parts;
            p.day = atoi(&digits[len - 2..]);
            p.month = atoi(&digits[len - 4..len - 2]);
            p.year = atoi(&digits[..len - 4]);
            if len - 4 == 2 {
                self.two_digit_year = true;
            }
            return Ok(part::DATE);
        }
        if mask & part::TIME != part::TIME {
            let p = &mut self.parts;
            match digits.len() {
                6 => {
                    p.second = atoi(&digits[4..]);
                    p.minute = atoi(&digits[2..4]);
                    p.hour = atoi(&digits[..2]);
                    return Ok(part::TIME);
                }
                4 => {
                    p.second = 0;
                    p.minute = atoi(&digits[2..]);
                    p.hour = atoi(&digits[..2]);
                    return Ok(part::TIME);
                }
                _ => {}
            }
        }
        Err(Fault::Syntax)
    }

    /// `H:M`, `H:M:S[.f]` or `M:S.f` (PostgreSQL's `DecodeTime`).
    fn time(&mut self, text: &str) -> Result<(), Fault> {
        let p = &mut self.parts;
        let (hour, rest) = leading_int(text).ok_or(Fault::FieldRange)?;
        let rest = rest.strip_prefix(':').ok_or(Fault::Syntax)?;
        let (minute, rest) = leading_int(rest).ok_or(Fault::FieldRange)?;
        (p.hour, p.minute, p.second, p.micros) = if rest.is_empty() {
            (hour, minute, 0, 0)
        } else if rest.starts_with('.') {
            (0, hour, minute, fractional_second(rest)?)
        } else if let Some(rest) = rest.strip_prefix(':') {
            let (second, rest) = leading_int(rest).ok_or(Fault::FieldRange)?;
            let micros = if rest.is_empty() {
                0
            } else if rest.starts_with('.') {
                fractional_second(rest)?
            } else {
                return Err(Fault::Syntax);
            };
            (hour, minute, second, micros)
        } else {
            return Err(Fault::Syntax);
        };
        if p.hour < 0
            || !(0..60).contains(&p.minute)
            || !(0..=60).contains(&p.second)
            || !(0..=1_000_000).contains(&p.micros)
        {
            return Err(Fault::FieldRange);
        }
        Ok(())
    }

    /// The year's final reading and the date's ranges (PostgreSQL's
    /// `ValidateDate`).
    fn validate_date(&mut self) -> Result<(), Fault> {
        let mask = self.mask;
        let p = &mut self.parts;
        if mask & part::YEAR != 0 && !self.julian {
            if self.bc {
                if p.year <= 0 {
                    return Err(Fault::FieldRange);
                }
                p.year = 1 - p.year;
            } else if self.two_digit_year {
                if p.year < 0 {
                    return Err(Fault::FieldRange);
                }
                if p.year < 70 {
                    p.year += 2000;
                } else if p.year < 100 {
                    p.year += 1900;
                }
            } else if p.year <= 0 {
                return Err(Fault::FieldRange);
            }
        }
        if mask & part::DAY_OF_YEAR != 0 {
            let days = calendar::day_number(p.year, 1, 1) + p.day_of_year - 1;
            (p.year, p.month, p.day) = calendar::ymd(days);
        }
        if mask & part::MONTH != 0 && !(1..=12).contains(&p.month) {
            return Err(Fault::FieldRange);
        }
        if mask & part::DAY != 0 && !(1..=31).contains(&p.day) {
            return Err(Fault::FieldRange);
        }
        if mask & part::DATE == part::DATE && p.day > calendar::days_in_month(p.year, p.month) {
            return Err(Fault::FieldRange);
        }
        Ok(())
    }
}

/// Whether a time's parts pass 24:00:00 (PostgreSQL's `time_overflows`).
pub(crate) fn time_overflows(hour: i64, minute: i64, second: i64, micros: i64) -> bool {
    if !(0..=24).contains(&hour)
        || !(0..60).contains(&minute)
        || !(0..=60).contains(&second)
        || !(0..=1_000_000).contains(&micros)
    {
        return true;
    }
    ((hour * 60 + minute) * 60 + second) * 1_000_000 + micros > USECS_PER_DAY
}

/// A leading integer as C's `strtol` reads one into an `int` (blanks,
/// a sign, digits; none: 0 and the whole text back), and the rest;
/// `None` past an `int`'s range.
fn leading_int(text: &str) -> Option<(i64, &str)> {
    let trimmed = text.trim_start_matches(|c: char| c.is_ascii_whitespace() || c == '\x0b');
    let (negative, unsigned) = match trimmed.as_bytes().first() {
        Some(b'-') => (true, &trimmed[1..]),
        Some(b'+') => (false, &trimmed[1..]),
        _ => (false, trimmed),
    };
    let digits = unsigned.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 {
        return Some((0, text));
    }
    let mut value: i64 = 0;
    for b in unsigned[..digits].bytes() {
        value = value.saturating_mul(10).saturating_add(i64::from(b - b'0'));
    }
    let value = if negative { -value } else { value };
    i32::try_from(value).ok()?;
    Some((value, &unsigned[digits..]))
}

/// C's `atoi` of digits (saturating where C's would not be defined).
fn atoi(digits: &str) -> i64 {
    digits.bytes().fold(0i64, |v, b| {
        v.saturating_mul(10).saturating_add(i64::from(b - b'0'))
    })
}

/// The value of a leading `.digits` (C's `strtod` of it; `.` alone, 0).
fn fraction_prefix(text: &str) -> f64 {
    let digits: String = text[1..].chars().take_while(char::is_ascii_digit).collect();
    format!("0.{digits}0").parse().unwrap_or(0.0)
}

/// `.digits`, all of the text (PostgreSQL's `ParseFraction`; `.` alone
/// is 0).
fn fraction_of(text: &str) -> Result<f64, Fault> {
    if !text[1..].bytes().all(|b| b.is_ascii_digit()) {
        return Err(Fault::Syntax);
    }
    Ok(fraction_prefix(text))
}

/// `.digits` in microseconds, rounded as PostgreSQL rounds them
/// (through a double: `.1234565` is `.123456`).
fn fractional_second(text: &str) -> Result<i64, Fault> {
    Ok((fraction_of(text)? * 1e6).round_ties_even() as i64)
}

/// A numeric zone `±H`, `±HHMM`, `±H:M[:S]`: seconds west of UTC
/// (PostgreSQL's `DecodeTimezone`; 16 hours or more: 22009).
pub(crate) fn zone_offset(text: &str) -> Result<i64, Fault> {
    let negative = match text.as_bytes().first() {
        Some(b'+') => false,
        Some(b'-') => true,
        _ => return Err(Fault::Syntax),
    };
    let (mut hour, mut rest) = leading_int(&text[1..]).ok_or(Fault::ZoneRange)?;
    let (mut minute, mut second) = (0, 0);
    if let Some(after) = rest.strip_prefix(':') {
        (minute, rest) = leading_int(after).ok_or(Fault::ZoneRange)?;
        if let Some(after) = rest.strip_prefix(':') {
            (second, rest) = leading_int(after).ok_or(Fault::ZoneRange)?;
        }
    } else if rest.is_empty() && text.len() > 3 {
        minute = hour % 100;
        hour /= 100;
    }
    if !(0..=15).contains(&hour) || !(0..60).contains(&minute) || !(0..60).contains(&second) {
        return Err(Fault::ZoneRange);
    }
    let east = (hour * 60 + minute) * 60 + second;
    if !rest.is_empty() {
        return Err(Fault::Syntax);
    }
    Ok(if negative { east } else { -east })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ymd(text: &str, order: DateOrder) -> Result<(i64, i64, i64), Fault> {
        let cx = Context {
            order,
            session: &TimeZone::UTC,
            now: 0,
        };
        match decode(text, &cx)? {
            Decoded::At(m) => Ok((m.year, m.month, m.day)),
            other => panic!("{other:?}"),
        }
    }

    /// The forms of PostgreSQL's date.sql, in each field order.
    #[test]
    fn dates_read_as_postgresql_reads_them() {
        use DateOrder::*;
        let day = Ok((1999, 1, 8));
        for order in [Mdy, Dmy, Ymd] {
            for text in [
                "January 8, 1999",
                "1999-01-08",
                "19990108",
                "990108",
                "1999.008",
                "J2451187",
                "1999-Jan-08",
                "08-Jan-1999",
                "Jan-08-1999",
                "1999 Jan 08",
                "Jan 08 1999",
                "1999 08 Jan",
            ] {
                assert_eq!(ymd(text, order), day, "{text} in {order:?}");
            }
        }
        assert_eq!(ymd("1/8/1999", Mdy), day);
        assert_eq!(ymd("8/1/1999", Dmy), day);
        assert_eq!(ymd("99-01-08", Ymd), day);
        assert_eq!(ymd("01/02/03", Mdy), Ok((2003, 1, 2)));
        assert_eq!(ymd("01/02/03", Dmy), Ok((2003, 2, 1)));
        assert_eq!(ymd("01/02/03", Ymd), Ok((2001, 2, 3)));
        assert_eq!(ymd("99-Jan-08", Ymd), day);
        assert_eq!(ymd("99-Jan-08", Mdy), Err(Fault::FieldRange));
        assert_eq!(ymd("1/8/1999", Ymd), Err(Fault::FieldRange));
        assert_eq!(ymd("January 8, 99 BC", Ymd), Err(Fault::FieldRange));
        assert_eq!(ymd("January 8, 99 BC", Mdy), Ok((-98, 1, 8)));
        assert_eq!(ymd("1999-02-29", Mdy), Err(Fault::FieldRange));
        assert_eq!(ymd("10:00 2000-01-01", Mdy), Err(Fault::Syntax));
        assert_eq!(ymd("12:00", Mdy), Err(Fault::Syntax));
    }

    /// Offsets as PostgreSQL reads them, west positive.
    #[test]
    fn zone_offsets() {
        assert_eq!(zone_offset("-08"), Ok(8 * 3600));
        assert_eq!(zone_offset("+0530"), Ok(-(5 * 3600 + 1800)));
        assert_eq!(zone_offset("+5:30:15"), Ok(-(5 * 3600 + 1815)));
        assert_eq!(zone_offset("+16"), Err(Fault::ZoneRange));
        assert_eq!(zone_offset("-05-30"), Err(Fault::Syntax));
    }
}
