//! `to_char(timestamp | timestamptz | date, format)`: PostgreSQL's
//! template patterns for dates and times (its `DCH` keywords): `YYYY`,
//! `YYY`, `YY`, `Y`, `Y,YYY`, `IYYY`, `CC`, `Q`, `MM`, `MONTH` / `Month` /
//! `month`, `MON` / `Mon` / `mon`, `RM`, `WW`, `W`, `IW`, `DDD`, `DD`, `D`,
//! `ID`, `DAY` / `Day` / `day`, `DY` / `Dy` / `dy`, `J`, `HH`, `HH12`,
//! `HH24`, `MI`, `SS`, `SSSS`, `MS`, `US`, `AM` / `PM` / `A.M.` / `P.M.`
//! (either case), `TZ`, `OF`; the `FM` prefix (no padding) and `TH` / `th`
//! suffix (ordinal); text in double quotes copied, `\"` a double quote;
//! anything else copied as it is. A keyword is matched whatever
//! its case (PostgreSQL lists the cases it takes); a name's case follows
//! the keyword's (`MONTH` JANUARY, `Month` January, `month` january).
//! Times are UTC (folio's only zone).

use crate::datetime::{DAY, part, ymd};
use crate::error::SqlError;

/// The keywords (the longest one a text starts with is taken).
const KEYWORDS: [&str; 43] = [
    "Y,YYY", "YYYY", "YYY", "YY", "IYYY", "IYY", "IY", "IDDD", "ID", "I", "A.M.", "P.M.", "AM",
    "PM", "MONTH", "MON", "MM", "MS", "MI", "DAY", "DDD", "DD", "DY", "D", "HH24", "HH12", "HH",
    "SSSSS", "SSSS", "SS", "US", "CC", "Q", "RM", "WW", "W", "IW", "J", "TZ", "OF", "Y", "FX",
    "TH",
];

const MONTHS: [&str; 12] = [
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
];

const DAYS: [&str; 7] = [
    "sunday",
    "monday",
    "tuesday",
    "wednesday",
    "thursday",
    "friday",
    "saturday",
];

const ROMAN: [&str; 12] = [
    "I", "II", "III", "IV", "V", "VI", "VII", "VIII", "IX", "X", "XI", "XII",
];

/// How a name is written: as the keyword's case.
#[derive(Clone, Copy)]
enum Case {
    Upper,
    Capitalized,
    Lower,
}

impl Case {
    fn of(written: &str) -> Case {
        let mut letters = written.chars().filter(|c| c.is_ascii_alphabetic());
        match (letters.next(), letters.next()) {
            (Some(a), _) if a.is_ascii_lowercase() => Case::Lower,
            (Some(_), Some(b)) if b.is_ascii_lowercase() => Case::Capitalized,
            _ => Case::Upper,
        }
    }

    fn apply(self, name: &str) -> String {
        match self {
            Case::Lower => name.to_string(),
            Case::Upper => name.to_ascii_uppercase(),
            Case::Capitalized => {
                let mut out = name[..1].to_ascii_uppercase();
                out.push_str(&name[1..]);
                out
            }
        }
    }
}

/// A number with at least `width` digits (none with FM), and its ordinal
/// suffix when asked.
fn number(value: i64, width: usize, fill: bool, ordinal: Option<Case>) -> String {
    let mut text = match fill {
        true => value.to_string(),
        false if value < 0 => format!("-{:0width$}", -value, width = width),
        false => format!("{value:0width$}"),
    };
    if let Some(case) = ordinal {
        let suffix = match (value % 100, value % 10) {
            (11..=13, _) => "th",
            (_, 1) => "st",
            (_, 2) => "nd",
            (_, 3) => "rd",
            _ => "th",
        };
        text.push_str(&match case {
            Case::Lower => suffix.to_string(),
            _ => suffix.to_ascii_uppercase(),
        });
    }
    text
}

/// A name padded to 9 characters (PostgreSQL's longest month and day
/// names) unless FM.
fn name(value: &str, written: &str, fill: bool) -> String {
    let text = Case::of(written).apply(value);
    match fill {
        true => text,
        false => format!("{text:<9}"),
    }
}

/// `to_char` of a timestamp (microseconds since 2000-01-01; `zoned`: a
/// timestamptz, which `TZ` names UTC).
pub fn format(micros: i64, zoned: bool, template: &str) -> Result<String, SqlError> {
    let days = micros.div_euclid(DAY);
    let in_day = micros.rem_euclid(DAY);
    let (y, m, d) = ymd(days);
    let field = |f: &str| part(f, micros).map(|v| v as i64);
    let hour = in_day / 3_600_000_000;
    let (mut out, mut rest) = (String::new(), template);
    let mut fill = false;
    while !rest.is_empty() {
        if rest.starts_with("FM") || rest.starts_with("fm") {
            fill = true;
            rest = &rest[2..];
            continue;
        }
        if let Some(quoted) = rest.strip_prefix('"') {
            // Up to the closing quote; `\"` inside is a quote.
            let mut chars = quoted.chars();
            loop {
                match chars.next() {
                    None | Some('"') => break,
                    Some('\\') if chars.as_str().starts_with('"') => {
                        out.push('"');
                        chars.next();
                    }
                    Some(c) => out.push(c),
                }
            }
            rest = chars.as_str();
            continue;
        }
        // A backslash escapes a double quote (and is copied before
        // anything else).
        if let Some(quote) = rest.strip_prefix("\\\"") {
            out.push('"');
            rest = quote;
            continue;
        }
        // The longest keyword the text starts with.
        let Some(keyword) = KEYWORDS
            .iter()
            .filter(|k| {
                rest.get(..k.len())
                    .is_some_and(|w| w.eq_ignore_ascii_case(k))
            })
            .max_by_key(|k| k.len())
        else {
            let mut chars = rest.chars();
            out.extend(chars.next());
            rest = chars.as_str();
            fill = false;
            continue;
        };
        let written = &rest[..keyword.len()];
        rest = &rest[keyword.len()..];
        // An ordinal suffix after a number.
        let ordinal = match rest.get(..2) {
            Some("TH") => Some(Case::Upper),
            Some("th") => Some(Case::Lower),
            _ => None,
        };
        let mut took_ordinal = false;
        let mut num = |value: i64, width: usize| {
            took_ordinal = ordinal.is_some();
            number(value, width, fill, ordinal)
        };
        // Years count from 1 BC backwards in PostgreSQL's fields (no 0).
        let year = if y > 0 { y } else { 1 - y };
        let text = match keyword.to_ascii_uppercase().as_str() {
            "Y,YYY" => {
                let text = format!("{},{:03}", year / 1000, year % 1000);
                took_ordinal = false;
                text
            }
            "YYYY" => num(year, 4),
            "YYY" => num(year % 1000, 3),
            "YY" => num(year % 100, 2),
            "Y" => num(year % 10, 1),
            "IYYY" | "IYY" | "IY" | "I" => {
                let iso_year = {
                    let isodow = (days + 5).rem_euclid(7) + 1;
                    ymd(days - isodow + 4).0
                };
                let digits = keyword.len();
                let modulus = 10i64.pow(digits as u32);
                match digits {
                    4 => num(iso_year, 4),
                    _ => num(iso_year % modulus, digits),
                }
            }
            "CC" => num(field("century")?, 2),
            "Q" => num(field("quarter")?, 1),
            "MM" => num(i64::from(m), 2),
            "MONTH" => name(MONTHS[m as usize - 1], written, fill),
            "MON" => Case::of(written).apply(&MONTHS[m as usize - 1][..3]),
            "RM" => {
                let roman = match Case::of(written) {
                    Case::Lower => ROMAN[m as usize - 1].to_ascii_lowercase(),
                    _ => ROMAN[m as usize - 1].to_string(),
                };
                match fill {
                    true => roman,
                    false => format!("{roman:<4}"),
                }
            }
            "WW" => num((field("doy")? - 1) / 7 + 1, 2),
            "W" => num((i64::from(d) - 1) / 7 + 1, 1),
            "IW" => num(field("week")?, 2),
            "DDD" => num(field("doy")?, 3),
            "IDDD" => {
                let isodow = (days + 5).rem_euclid(7) + 1;
                let thursday = days - isodow + 4;
                let (iso_year, _, _) = ymd(thursday);
                let first_thursday = crate::datetime::days(iso_year, 1, 4);
                let week_one = first_thursday - ((first_thursday + 5).rem_euclid(7));
                num(days - week_one + 1, 3)
            }
            "DD" => num(i64::from(d), 2),
            "D" => num(field("dow")? + 1, 1),
            "ID" => num(field("isodow")?, 1),
            "DAY" => name(DAYS[field("dow")? as usize], written, fill),
            "DY" => Case::of(written).apply(&DAYS[field("dow")? as usize][..3]),
            "J" => num(days + 2_451_545, 1),
            "HH" | "HH12" => num((hour + 11) % 12 + 1, 2),
            "HH24" => num(hour, 2),
            "MI" => num(in_day / 60_000_000 % 60, 2),
            "SS" => num(in_day / 1_000_000 % 60, 2),
            "SSSS" | "SSSSS" => num(in_day / 1_000_000, 1),
            "MS" => num(in_day / 1000 % 1000, 3),
            "US" => num(in_day % 1_000_000, 6),
            "AM" | "PM" | "A.M." | "P.M." => {
                let pm = hour >= 12;
                let text = match (keyword.len(), pm) {
                    (2, false) => "AM",
                    (2, true) => "PM",
                    (_, false) => "A.M.",
                    (_, true) => "P.M.",
                };
                match Case::of(written) {
                    Case::Lower => text.to_ascii_lowercase(),
                    _ => text.to_string(),
                }
            }
            "TZ" => match (zoned, Case::of(written)) {
                (false, _) => String::new(),
                (true, Case::Lower) => "utc".into(),
                (true, _) => "UTC".into(),
            },
            "OF" => match zoned {
                true => "+00".into(),
                false => String::new(),
            },
            // FX (exact matching: for parsing) and a lone TH change
            // nothing here.
            _ => String::new(),
        };
        out.push_str(&text);
        if took_ordinal {
            rest = &rest[2..];
        }
        fill = false;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    // Values checked with PostgreSQL 15's to_char.
    #[test]
    fn formats_as_postgresql() {
        // 2024-03-05 14:07:09.123456 UTC.
        let micros = crate::datetime::days(2024, 3, 5) * DAY
            + ((14 * 3600 + 7 * 60 + 9) * 1_000_000 + 123_456);
        let f = |t: &str| format(micros, true, t).unwrap();
        assert_eq!(f("YYYY-MM-DD HH24:MI:SS"), "2024-03-05 14:07:09");
        assert_eq!(f("Month DD, YYYY"), "March     05, 2024");
        assert_eq!(f("FMMonth FMDDth, YYYY"), "March 5th, 2024");
        assert_eq!(f("Dy DY dy Day"), "Tue TUE tue Tuesday  ");
        assert_eq!(f("HH12:MI am MS US"), "02:07 pm 123 123456");
        assert_eq!(f("\"Q\"Q \"week\" IW DDD D ID"), "Q1 week 10 065 3 2");
        assert_eq!(f("YYYY\\-RM TZ OF"), "2024\\-III  UTC +00");
        assert_eq!(f(r#"\"YYYY\" "a\"b""#), r#""2024" a"b"#);
        assert_eq!(f("Y,YYY CC J"), "2,024 21 2460375");
    }
}
