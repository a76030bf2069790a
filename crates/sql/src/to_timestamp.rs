//! `to_timestamp(text, template)` and `to_date(text, template)`: text read
//! by a date/time template (`dch.rs`), as PostgreSQL 15 reads it outside
//! `FX` mode:
//! - blanks before a field are skipped; a blank in the template skips
//!   blanks; another separator (`-`, `/`, `:`, ...) matches any one
//!   separator of the input (or none); quoted text and a letter outside
//!   quotes skip as many characters;
//! - a number takes the field's width in digits (`YYYYMMDD`), or all its
//!   digits when a separator or the end follows (`2024-3-5`);
//! - `YYY`, `YY`, `Y` are years near 2020 (`75` is 1975, `24` 2024);
//!   `CC` a century, which a year of at most two digits is in (`CC YY`:
//!   `21 05` is 2005) or, alone, whose first year it gives; `BC`/`AD`
//!   (`B.C.`/`A.D.`, any case) an era;
//!   `MONTH`/`MON`, `RM`, `DAY`/`DY` (read, not used), `AM`/`PM`,
//!   `HH`/`HH12` (1 to 12), `HH24`, `MI`, `SS`, `MS`/`US` (a fraction: `5`
//!   is .5), `FF1`..`FF6` (a fraction of at most six digits, rounded to
//!   N), `SSSS`, `DDD`, `J`, `TZH`/`TZM`; `WW` (week of the year: day
//!   `7 * (WW - 1) + 1`) and `W` (of the month); the ISO week date:
//!   `IYYY`/`IYY`/`IY`/`I` (ISO year), `IW`, `ID` (1 is Monday), `IDDD`,
//!   which may not be mixed with Gregorian fields (22007); `D`, `Q` are
//!   read and not used; `FX` is accepted (its fixed-format matching is
//!   not: separators match as outside it);
//! - the input may end early: the fields not read are PostgreSQL's
//!   defaults (year 1 BC, January, the 1st, midnight); text after the
//!   template is ignored;
//! - a field out of range is 22008 with the whole input, a value that is
//!   not a number or a name 22007 (`invalid value "xx" for "MM"`).
//!
//! `to_timestamp(seconds)` is the Unix epoch plus that many seconds.
//! `TZ` and `OF` are not read (0A000).

use crate::datetime::DAY;
use crate::dch::{DAYS, MONTHS, Piece, ROMAN, pieces};
use crate::error::SqlError;

/// What the input gave, field by field.
#[derive(Default)]
struct Fields {
    year: Option<i64>,
    /// A year of fewer than four digits as written (`YY`: 5), and its
    /// digit count, for `CC`.
    short_year: Option<(i64, usize)>,
    century: Option<i64>,
    /// `BC` (or `B.C.`) was read.
    bc: bool,
    /// `WW` and `W`: the week of the year and of the month.
    week_of_year: Option<i64>,
    week_of_month: Option<i64>,
    /// The ISO week date: year, week, day of the week (1 is Monday),
    /// day of the year.
    iso_year: Option<i64>,
    iso_week: Option<i64>,
    iso_day: Option<i64>,
    iso_day_of_year: Option<i64>,
    month: Option<i64>,
    day: Option<i64>,
    day_of_year: Option<i64>,
    julian: Option<i64>,
    hour: Option<i64>,
    twelve_hour: bool,
    pm: Option<bool>,
    minute: Option<i64>,
    second: Option<i64>,
    seconds_of_day: Option<i64>,
    micros: i64,
    /// The offset east of UTC, in minutes (`TZH`, `TZM`).
    offset: i64,
}

fn out_of_range(input: &str) -> SqlError {
    SqlError::new(
        "22008",
        format!("date/time field value out of range: \"{input}\""),
    )
}

fn invalid(value: &str, written: &str, detail: &str) -> SqlError {
    SqlError::new(
        "22007",
        format!("invalid value \"{value}\" for \"{written}\""),
    )
    .with_detail(detail)
}

/// The input being read.
struct Input<'a> {
    rest: &'a str,
}

impl Input<'_> {
    fn skip_blanks(&mut self) {
        self.rest = self.rest.trim_start_matches(char::is_whitespace);
    }

    fn skip_chars(&mut self, n: usize) {
        let mut chars = self.rest.chars();
        for _ in 0..n {
            chars.next();
        }
        self.rest = chars.as_str();
    }

    /// The word at the cursor (letters and digits), for messages.
    fn word(&self) -> &str {
        let end = self
            .rest
            .find(|c: char| !c.is_alphanumeric())
            .unwrap_or(self.rest.len());
        &self.rest[..end]
    }

    /// A number of at most `width` digits (any number when `greedy`),
    /// with a sign when `signed`; its value and digit count.
    fn number(
        &mut self,
        width: usize,
        greedy: bool,
        signed: bool,
        written: &str,
    ) -> Result<(i64, usize), SqlError> {
        let mut text = self.rest;
        let negative = signed && text.starts_with('-');
        if signed && (text.starts_with('-') || text.starts_with('+')) {
            text = &text[1..];
        }
        let digits = text
            .bytes()
            .take_while(u8::is_ascii_digit)
            .take(if greedy { usize::MAX } else { width })
            .count();
        if digits == 0 {
            return Err(invalid(self.word(), written, "Value must be an integer."));
        }
        let value: i64 = text[..digits].parse().map_err(|_| {
            SqlError::new(
                "22008",
                format!("value for \"{written}\" in source string is out of range"),
            )
        })?;
        self.rest = &text[digits..];
        Ok((if negative { -value } else { value }, digits))
    }

    /// The index of the name in `names` the input starts with (any case;
    /// the longest that matches), taking `len` letters of each (all
    /// when `None`).
    fn name(
        &mut self,
        names: &[&str],
        len: Option<usize>,
        written: &str,
    ) -> Result<usize, SqlError> {
        let found = names
            .iter()
            .enumerate()
            .map(|(i, n)| (i, len.map_or(*n, |l| &n[..l])))
            .filter(|(_, n)| {
                self.rest
                    .get(..n.len())
                    .is_some_and(|w| w.eq_ignore_ascii_case(n))
            })
            .max_by_key(|(_, n)| n.len());
        match found {
            Some((i, n)) => {
                self.rest = &self.rest[n.len()..];
                Ok(i)
            }
            None => Err(invalid(
                self.word(),
                written,
                "The given value did not match any of the allowed values for this field.",
            )),
        }
    }

    /// Whether the input reads the second of a pair of two-letter
    /// markers (`am`/`pm`, `ad`/`bc`), dotted (`p.m.`) when the keyword
    /// is.
    fn marker(&mut self, keyword: &str, pair: [&str; 2], written: &str) -> Result<bool, SqlError> {
        let dotted = pair.map(|m| m.chars().flat_map(|c| [c, '.']).collect::<String>());
        let names = if keyword.len() == 2 {
            pair
        } else {
            [dotted[0].as_str(), dotted[1].as_str()]
        };
        Ok(self.name(&names, None, written)? == 1)
    }
}

/// PostgreSQL's years near 2020 for a year of fewer than four digits.
fn near_2020(year: i64) -> i64 {
    match year {
        0..70 => year + 2000,
        70..100 => year + 1900,
        100..520 => year + 2000,
        520..1000 => year + 1000,
        _ => year,
    }
}

/// `input` read by `template`: microseconds since 2000-01-01 UTC.
/// Errors carry no position, as PostgreSQL's.
pub fn parse(input: &str, template: &str) -> Result<i64, SqlError> {
    read(input, template).map_err(SqlError::unplaced)
}

fn read(input: &str, template: &str) -> Result<i64, SqlError> {
    let pieces = pieces(template);
    let mut fields = Fields::default();
    let mut cursor = Input { rest: input };
    for (i, piece) in pieces.iter().enumerate() {
        if cursor.rest.is_empty() {
            break;
        }
        let (keyword, written, ordinal) = match piece {
            Piece::Text(text) => {
                let mut chars = text.chars();
                match (chars.next(), chars.next()) {
                    (Some(c), None) if c.is_whitespace() => cursor.skip_blanks(),
                    (Some(c), None) if !c.is_alphanumeric() => {
                        cursor.skip_blanks();
                        if cursor
                            .rest
                            .starts_with(|s: char| !s.is_alphanumeric() && !s.is_whitespace())
                        {
                            cursor.skip_chars(1);
                        }
                    }
                    _ => cursor.skip_chars(text.chars().count()),
                }
                continue;
            }
            Piece::Field {
                keyword,
                written,
                ordinal,
                ..
            } => (*keyword, *written, ordinal.is_some()),
        };
        cursor.skip_blanks();
        // All its digits when a separator (or nothing) follows.
        let greedy = match pieces.get(i + 1) {
            None => true,
            Some(Piece::Text(t)) => !t.starts_with(|c: char| c.is_ascii_digit()),
            Some(Piece::Field { .. }) => false,
        };
        let mut num = |width: usize| cursor.number(width, greedy, false, written).map(|n| n.0);
        match keyword {
            // A negative year is BC (and BC of one, AD).
            "YYYY" => fields.year = Some(cursor.number(4, greedy, true, written)?.0),
            "YYY" | "YY" | "Y" => {
                let (value, digits) = cursor.number(keyword.len(), greedy, false, written)?;
                fields.year = Some(near_2020(value));
                fields.short_year = Some((value, digits));
            }
            "IYYY" => fields.iso_year = Some(num(4)?),
            "IYY" | "IY" | "I" => fields.iso_year = Some(near_2020(num(keyword.len())?)),
            "IW" => fields.iso_week = Some(num(2)?),
            "ID" => fields.iso_day = Some(num(1)?),
            "IDDD" => fields.iso_day_of_year = Some(num(3)?),
            "WW" => fields.week_of_year = Some(num(2)?),
            "W" => fields.week_of_month = Some(num(1)?),
            "CC" => fields.century = Some(num(2)?),
            "FX" => {}
            "BC" | "AD" | "B.C." | "A.D." => {
                fields.bc = cursor.marker(keyword, ["ad", "bc"], written)?;
            }
            "FF1" | "FF2" | "FF3" | "FF4" | "FF5" | "FF6" => {
                let precision = u32::from(keyword.as_bytes()[2] - b'0');
                let (value, digits) = cursor.number(precision as usize, greedy, false, written)?;
                if digits > 6 {
                    return Err(out_of_range(input));
                }
                let micros = value * 10i64.pow(6 - digits as u32);
                let unit = 10i64.pow(6 - precision);
                fields.micros += (micros + unit / 2) / unit * unit;
            }
            "Y,YYY" => {
                let thousands = num(3)?;
                if cursor.rest.starts_with(',') {
                    cursor.skip_chars(1);
                }
                let rest = cursor.number(3, false, false, written)?.0;
                fields.year = Some(thousands * 1000 + rest);
            }
            "MM" => fields.month = Some(num(2)?),
            "DD" => fields.day = Some(num(2)?),
            "DDD" => fields.day_of_year = Some(num(3)?),
            "J" => fields.julian = Some(cursor.number(usize::MAX, true, false, written)?.0),
            "HH" | "HH12" => {
                fields.hour = Some(num(2)?);
                fields.twelve_hour = true;
            }
            "HH24" => fields.hour = Some(num(2)?),
            "MI" => fields.minute = Some(num(2)?),
            "SS" => fields.second = Some(num(2)?),
            "SSSS" | "SSSSS" => fields.seconds_of_day = Some(num(5)?),
            "MS" | "US" => {
                let width = if keyword == "MS" { 3 } else { 6 };
                let (value, digits) = cursor.number(width, false, false, written)?;
                let scale = 10i64.pow((width - digits.min(width)) as u32);
                fields.micros += value * scale * if keyword == "MS" { 1000 } else { 1 };
            }
            // Read and not used, as PostgreSQL's.
            "D" | "Q" => {
                num(1)?;
            }
            "MONTH" => fields.month = Some(cursor.name(&MONTHS, None, written)? as i64 + 1),
            "MON" => fields.month = Some(cursor.name(&MONTHS, Some(3), written)? as i64 + 1),
            "RM" => fields.month = Some(cursor.name(&ROMAN, None, written)? as i64 + 1),
            "DAY" => {
                cursor.name(&DAYS, None, written)?;
            }
            "DY" => {
                cursor.name(&DAYS, Some(3), written)?;
            }
            "AM" | "PM" | "A.M." | "P.M." => {
                fields.pm = Some(cursor.marker(keyword, ["am", "pm"], written)?);
            }
            "TZH" => {
                let (hours, _) = cursor.number(2, greedy, true, written)?;
                fields.offset += hours * 60;
            }
            "TZM" => {
                let (minutes, _) = cursor.number(2, false, false, written)?;
                fields.offset += if fields.offset < 0 { -minutes } else { minutes };
            }
            // A TH after a field that takes none (`Y,YYYth`) skips the
            // input's suffix as one would.
            "TH" => {
                let letters = cursor
                    .rest
                    .chars()
                    .take(2)
                    .take_while(|c| c.is_alphabetic());
                let n = letters.count();
                cursor.skip_chars(n);
            }
            other => {
                return Err(SqlError::unsupported(format!(
                    "the template pattern \"{other}\" in to_timestamp and to_date"
                )));
            }
        }
        // A `TH` after the field skips the input's suffix (`5th`).
        if ordinal
            && cursor
                .rest
                .get(..2)
                .is_some_and(|s| s.chars().all(char::is_alphabetic))
        {
            cursor.skip_chars(2);
        }
    }
    fields.instant(input)
}

impl Fields {
    /// The instant they name, checked field by field.
    fn instant(&self, input: &str) -> Result<i64, SqlError> {
        let iso = self.iso_year.is_some()
            || self.iso_week.is_some()
            || self.iso_day.is_some()
            || self.iso_day_of_year.is_some();
        let gregorian = self.year.is_some()
            || self.month.is_some()
            || self.day.is_some()
            || self.day_of_year.is_some()
            || self.week_of_year.is_some()
            || self.week_of_month.is_some();
        if iso && gregorian {
            return Err(
                SqlError::new("22007", "invalid combination of date conventions").with_hint(
                    "Do not mix Gregorian and ISO week date conventions in a formatting template.",
                ),
            );
        }
        let mut year = match (self.century, self.short_year, self.year) {
            // A year of at most two digits is in the century.
            (Some(cc), Some((yy, digits)), _) if digits <= 2 && cc > 0 => (cc - 1) * 100 + yy,
            (Some(cc), None, None) if cc > 0 => (cc - 1) * 100 + 1,
            _ => self.year.unwrap_or(0),
        };
        // Year 0 is 1 BC, -1 is 2 BC: a BC year is one less than its
        // negation.
        if self.bc {
            year = -year;
        }
        if year < 0 {
            year += 1;
        }
        let day_of_year =
            (self.day_of_year).or_else(|| self.week_of_year.map(|ww| (ww - 1) * 7 + 1));
        let day_of_month = (self.day).or_else(|| self.week_of_month.map(|w| (w - 1) * 7 + 1));
        let days = if let Some(j) = self.julian {
            j - folio_row::calendar::JULIAN_DAY_2000
        } else if iso {
            // Week 1 of an ISO year is the one holding January 4th; its
            // Monday starts the year (2000-01-01, day 0, was a Saturday).
            let iso_year = self.iso_year.unwrap_or(0);
            let january_4 = crate::datetime::days(iso_year, 1, 4);
            let monday = january_4 - (january_4 + 5).rem_euclid(7);
            match self.iso_day_of_year {
                Some(doy) => monday + doy - 1,
                None => {
                    monday + (self.iso_week.unwrap_or(1) - 1) * 7 + (self.iso_day.unwrap_or(1) - 1)
                }
            }
        } else if let (Some(doy), None) = (day_of_year, self.month) {
            let length = crate::datetime::days(year + 1, 1, 1) - crate::datetime::days(year, 1, 1);
            if !(1..=length).contains(&doy) {
                return Err(out_of_range(input));
            }
            crate::datetime::days(year, 1, 1) + doy - 1
        } else {
            let month = self.month.unwrap_or(1);
            let day = day_of_month.unwrap_or(1);
            if !(1..=12).contains(&month)
                || day < 1
                || day > i64::from(crate::datetime::days_in_month(year, month as u32))
            {
                return Err(out_of_range(input));
            }
            crate::datetime::days(year, month as u32, day as u32)
        };
        let mut hour = self.hour.unwrap_or(0);
        if self.twelve_hour && !(1..=12).contains(&hour) {
            return Err(SqlError::new(
                "22007",
                format!("hour \"{hour}\" is invalid for the 12-hour clock"),
            )
            .with_hint("Use the 24-hour clock, or give an hour between 1 and 12."));
        }
        match self.pm {
            Some(true) if hour < 12 => hour += 12,
            Some(false) if hour == 12 => hour = 0,
            _ => {}
        }
        let (minute, second) = (self.minute.unwrap_or(0), self.second.unwrap_or(0));
        if hour > 24
            || minute > 59
            || second > 60
            || self.seconds_of_day.is_some_and(|s| s >= 86_400)
        {
            return Err(out_of_range(input));
        }
        let seconds = match self.seconds_of_day {
            Some(s) => s,
            None => (hour * 60 + minute) * 60 + second,
        };
        let micros = days
            .checked_mul(DAY)
            .and_then(|d| d.checked_add(seconds * 1_000_000 + self.micros))
            .and_then(|t| t.checked_sub(self.offset * 60_000_000))
            .ok_or_else(|| SqlError::new("22008", "timestamp out of range"))?;
        Ok(micros)
    }
}

/// `to_timestamp(seconds)`: the Unix epoch plus `seconds`, to the
/// microsecond; a float infinity is the timestamp's.
pub fn from_epoch(seconds: f64) -> Result<i64, SqlError> {
    if seconds.is_infinite() {
        let infinity = if seconds > 0.0 {
            folio_row::Infinity::Positive
        } else {
            folio_row::Infinity::Negative
        };
        return Ok(infinity.timestamp());
    }
    if seconds.is_nan() {
        return Err(SqlError::new("22008", "timestamp cannot be NaN"));
    }
    let micros = (seconds * 1e6).round() - crate::datetime::UNIX_TO_2000 as f64 * DAY as f64;
    if micros.abs() >= 9.2e18 || !folio_row::calendar::is_valid_timestamp(micros as i64) {
        return Err(SqlError::new(
            "22008",
            format!("timestamp out of range: \"{seconds}\""),
        ));
    }
    Ok(micros as i64)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(input: &str, template: &str) -> String {
        match parse(input, template) {
            Ok(t) => folio_row::Value::Timestamp(t).to_text().unwrap(),
            Err(e) => format!("{} {}", e.code, e.message),
        }
    }

    // Proves templates read text as PostgreSQL 15's to_timestamp does
    // (each expected value printed by it).
    #[test]
    fn reads_as_postgresql() {
        let cases = [
            (
                "2024-03-05 14:07:09",
                "YYYY-MM-DD HH24:MI:SS",
                "2024-03-05 14:07:09",
            ),
            ("05 Mar 2024", "DD Mon YYYY", "2024-03-05 00:00:00"),
            ("2024/3/5", "YYYY-MM-DD", "2024-03-05 00:00:00"),
            ("20240305", "YYYYMMDD", "2024-03-05 00:00:00"),
            ("2024-03-05 trailing", "YYYY-MM-DD", "2024-03-05 00:00:00"),
            ("  2024  -03-05", "YYYY-MM-DD", "2024-03-05 00:00:00"),
            ("12:01:01.5", "HH24:MI:SS.MS", "0001-01-01 12:01:01.5 BC"),
            ("12:01:01.5", "HH24:MI:SS.US", "0001-01-01 12:01:01.5 BC"),
            ("2:07 pm", "HH:MI am", "0001-01-01 14:07:00 BC"),
            ("24-03-05", "YY-MM-DD", "2024-03-05 00:00:00"),
            ("75-03-05", "YY-MM-DD", "1975-03-05 00:00:00"),
            ("March 5, 2024", "Month DD, YYYY", "2024-03-05 00:00:00"),
            ("2024 065", "YYYY DDD", "2024-03-05 00:00:00"),
            ("2460375", "J", "2024-03-05 00:00:00"),
            (
                "2024-03-05T14:07",
                "YYYY-MM-DD\"T\"HH24:MI",
                "2024-03-05 14:07:00",
            ),
            ("Tue 2024-03-05", "Dy YYYY-MM-DD", "2024-03-05 00:00:00"),
            ("2024-3", "YYYY-MM", "2024-03-01 00:00:00"),
            (
                "2024-03-05 14:07:09+02",
                "YYYY-MM-DD HH24:MI:SSTZH",
                "2024-03-05 12:07:09",
            ),
            ("5", "SSSS", "0001-01-01 00:00:05 BC"),
            (
                "2015-02-11 86400",
                "YYYY-MM-DD SSSS",
                "22008 date/time field value out of range: \"2015-02-11 86400\"",
            ),
            ("2005426", "YYYYWWD", "2005-10-15 00:00:00"),
            ("2005527", "IYYYIWID", "2006-01-01 00:00:00"),
            ("005527", "IYYIWID", "2006-01-01 00:00:00"),
            ("2005364", "IYYYIDDD", "2006-01-01 00:00:00"),
            ("2005 1", "IYYY IW", "2005-01-03 00:00:00"),
            ("2005 3 2", "YYYY MM W", "2005-03-08 00:00:00"),
            ("3 4 21 01", "W MM CC YY", "2001-04-15 00:00:00"),
            ("3 21 5", "CC YY", "0221-01-01 00:00:00"),
            ("21", "CC", "2001-01-01 00:00:00"),
            ("1997 BC 11 16", "YYYY BC MM DD", "1997-11-16 00:00:00 BC"),
            ("1997 a.d. 11 16", "YYYY B.C. MM DD", "1997-11-16 00:00:00"),
            ("1,582nd VIII 21", "Y,YYYth FMRM DD", "1582-08-21 00:00:00"),
            ("97/Feb/16", "FXYY:Mon:DD", "1997-02-16 00:00:00"),
            (
                "12:34:56.12345",
                "HH24:MI:SS.FF4",
                "0001-01-01 12:34:56.1235 BC",
            ),
            ("123456123", "HH24MISSFF2", "0001-01-01 12:34:56.12 BC"),
            (
                "12:34:56.1234567",
                "HH24:MI:SS.FF6",
                "22008 date/time field value out of range: \"12:34:56.1234567\"",
            ),
            (
                "2005 52 7 2005",
                "IYYY IW ID YYYY",
                "22007 invalid combination of date conventions",
            ),
            ("2024-III-05", "YYYY-RM-DD", "2024-03-05 00:00:00"),
            ("20000-01-01", "YYYY-MM-DD", "20000-01-01 00:00:00"),
            ("", "YYYY", "0001-01-01 00:00:00 BC"),
            (
                "2024-13-05",
                "YYYY-MM-DD",
                "22008 date/time field value out of range: \"2024-13-05\"",
            ),
            (
                "2024-02-30",
                "YYYY-MM-DD",
                "22008 date/time field value out of range: \"2024-02-30\"",
            ),
            (
                "2024-xx-05",
                "YYYY-MM-DD",
                "22007 invalid value \"xx\" for \"MM\"",
            ),
            (
                "13:00 pm",
                "HH:MI am",
                "22007 hour \"13\" is invalid for the 12-hour clock",
            ),
            (
                "2024-03-05 25:00",
                "YYYY-MM-DD HH24:MI",
                "22008 date/time field value out of range: \"2024-03-05 25:00\"",
            ),
        ];
        for (input, template, expected) in cases {
            assert_eq!(read(input, template), expected, "{input} / {template}");
        }
        let epoch = |s: f64| folio_row::Value::TimestampTz(from_epoch(s).unwrap()).to_text();
        assert_eq!(epoch(1_700_000_000.0).unwrap(), "2023-11-14 22:13:20+00");
        assert_eq!(epoch(1_700_000_000.5).unwrap(), "2023-11-14 22:13:20.5+00");
    }
}
