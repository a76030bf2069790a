//! `to_char(timestamp | timestamptz | date, format)`: PostgreSQL's
//! template patterns for dates and times (its `DCH` keywords, read by
//! `dch.rs`): `YYYY`,
//! `YYY`, `YY`, `Y`, `Y,YYY`, `IYYY`, `CC`, `Q`, `MM`, `MONTH` / `Month` /
//! `month`, `MON` / `Mon` / `mon`, `RM`, `WW`, `W`, `IW`, `DDD`, `DD`, `D`,
//! `ID`, `DAY` / `Day` / `day`, `DY` / `Dy` / `dy`, `J`, `HH`, `HH12`,
//! `HH24`, `MI`, `SS`, `SSSS`, `MS`, `US`, `AM` / `PM` / `A.M.` / `P.M.`
//! (either case), `TZ`, `OF`, `TZH`, `TZM`; the `FM` prefix (no padding) and `TH` / `th`
//! suffix (ordinal); text in double quotes copied, `\"` a double quote;
//! anything else copied as it is. A keyword is matched whatever
//! its case (PostgreSQL lists the cases it takes); a name's case follows
//! the keyword's (`MONTH` JANUARY, `Month` January, `month` january).
//! Times are UTC (folio's only zone). And `to_char(number, template)`
//! ([`format_number`]): `9`, `0`, `.`/`D`, `,`/`G`, `S`, `MI`, `PR`, `FM`,
//! `TH`, as PostgreSQL's (C locale), the template read by
//! `num_template.rs`.

use crate::datetime::{DAY, part, ymd};
use crate::dch::{Case, DAYS, MONTHS, Piece, ROMAN, pieces};
use crate::error::SqlError;

/// A number with at least `width` digits (none with FM), and its ordinal
/// suffix when asked.
fn number(value: i64, width: usize, fill: bool, ordinal: Option<Case>) -> String {
    let mut text = match fill {
        true => value.to_string(),
        false if value < 0 => format!("-{:0width$}", -value, width = width),
        false => format!("{value:0width$}"),
    };
    text.push_str(&ordinal_suffix(value, ordinal));
    text
}

/// The ordinal suffix of `value` (`st`, `nd`, `rd`, `th`) in the case a
/// `TH` / `th` asked for; empty when none did.
fn ordinal_suffix(value: i64, ordinal: Option<Case>) -> String {
    let Some(case) = ordinal else {
        return String::new();
    };
    let suffix = match (value % 100, value % 10) {
        (11..=13, _) => "th",
        (_, 1) => "st",
        (_, 2) => "nd",
        (_, 3) => "rd",
        _ => "th",
    };
    match case {
        Case::Lower => suffix.to_string(),
        _ => suffix.to_ascii_uppercase(),
    }
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

/// `to_char` of a timestamp (microseconds since 2000-01-01 on the clock
/// shown; `zone`: a timestamptz's, the session zone's abbreviation and
/// offset east in seconds at that instant, which `TZ`, `OF`, `TZH` and
/// `TZM` show).
pub fn format(micros: i64, zone: Option<(&str, i32)>, template: &str) -> Result<String, SqlError> {
    let days = micros.div_euclid(DAY);
    let in_day = micros.rem_euclid(DAY);
    let (y, m, d) = ymd(days);
    let field = |f: &str| part(f, micros).map(|v| v as i64);
    let hour = in_day / 3_600_000_000;
    let mut out = String::new();
    for piece in pieces(template) {
        let (keyword, written, fill, ordinal) = match piece {
            Piece::Text(text) => {
                out.push_str(&text);
                continue;
            }
            Piece::Field {
                keyword,
                written,
                fill,
                ordinal,
            } => (keyword, written, fill, ordinal),
        };
        let num = |value: i64, width: usize| number(value, width, fill, ordinal);
        // Years count from 1 BC backwards in PostgreSQL's fields (no 0).
        let year = if y > 0 { y } else { 1 - y };
        let text = match keyword {
            "Y,YYY" => format!(
                "{},{:03}{}",
                year / 1000,
                year % 1000,
                ordinal_suffix(year, ordinal)
            ),
            "YYYY" => num(year, 4),
            "YYY" => num(year % 1000, 3),
            "YY" => num(year % 100, 2),
            "Y" => num(year % 10, 1),
            "IYYY" | "IYY" | "IY" | "I" => {
                let iso_year = {
                    let isodow = (days + 5).rem_euclid(7) + 1;
                    let y = ymd(days - isodow + 4).0;
                    if y > 0 { y } else { 1 - y }
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
            "J" => num(days + folio_row::calendar::JULIAN_DAY_2000, 1),
            "HH" | "HH12" => num((hour + 11) % 12 + 1, 2),
            "HH24" => num(hour, 2),
            "MI" => num(in_day / 60_000_000 % 60, 2),
            "SS" => num(in_day / 1_000_000 % 60, 2),
            "SSSS" | "SSSSS" => num(in_day / 1_000_000, 1),
            "MS" => num(in_day / 1000 % 1000, 3),
            "US" => num(in_day % 1_000_000, 6),
            // FF1..FF6: the fraction's first N digits.
            "FF1" | "FF2" | "FF3" | "FF4" | "FF5" | "FF6" => {
                let digits = u32::from(keyword.as_bytes()[2] - b'0');
                num(in_day % 1_000_000 / 10i64.pow(6 - digits), digits as usize)
            }
            "AD" | "BC" | "A.D." | "B.C." => {
                let text = match (keyword.len(), y > 0) {
                    (2, true) => "AD",
                    (2, false) => "BC",
                    (_, true) => "A.D.",
                    (_, false) => "B.C.",
                };
                match Case::of(written) {
                    Case::Lower => text.to_ascii_lowercase(),
                    _ => text.to_string(),
                }
            }
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
            "TZ" => match (zone, Case::of(written)) {
                (None, _) => String::new(),
                (Some((abbrev, _)), Case::Lower) => abbrev.to_ascii_lowercase(),
                (Some((abbrev, _)), _) => abbrev.to_string(),
            },
            "OF" => zone.map_or(String::new(), |(_, east)| folio_row::offset_text(east)),
            "TZH" => zone.map_or(String::new(), |(_, east)| {
                let sign = if east < 0 { '-' } else { '+' };
                format!("{sign}{:02}", east.unsigned_abs() / 3600)
            }),
            "TZM" => zone.map_or(String::new(), |(_, east)| {
                format!("{:02}", east.unsigned_abs() / 60 % 60)
            }),
            // FX (exact matching: for parsing) and a lone TH change
            // nothing here.
            _ => String::new(),
        };
        out.push_str(&text);
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
        let f = |t: &str| format(micros, Some(("UTC", 0)), t).unwrap();
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

/// One piece of a number template.
#[derive(Debug, Clone, Copy, PartialEq)]
enum NumToken {
    /// `9` (`zero`: `0`).
    Digit {
        zero: bool,
    },
    /// `.` or `D`.
    Point,
    /// `,` or `G`.
    Group,
    /// `S`: the sign, `+` or `-`, before the number.
    Sign,
    /// `MI`: `-` after a negative number.
    Minus,
    /// `PR`: a negative number in angle brackets.
    Brackets,
    /// `TH` / `th`: the ordinal suffix.
    Ordinal(bool),
    Literal(char),
    /// A pattern this form does not print (an error).
    Unprinted,
}

/// A float's template with its fraction places cut so that its integer
/// digits and fraction digits are at most `digits` (`FLT_DIG`, 6, or
/// `DBL_DIG`, 15), as PostgreSQL's `float4_to_char` / `float8_to_char`
/// cut them: the last fraction places go, and the point with them when
/// none is left.
fn float_places(mut tokens: Vec<NumToken>, x: f64, digits: usize) -> Vec<NumToken> {
    let Some(point) = tokens.iter().position(|t| *t == NumToken::Point) else {
        return tokens;
    };
    let integer_digits = format!("{:.0}", x.abs()).len();
    let places: Vec<usize> = (point + 1..tokens.len())
        .filter(|&i| matches!(tokens[i], NumToken::Digit { .. }))
        .collect();
    let kept = digits.saturating_sub(integer_digits).min(places.len());
    for &i in places[kept..].iter().rev() {
        tokens.remove(i);
    }
    if kept == 0 {
        tokens.remove(point);
    }
    tokens
}

/// `to_char` of a number: PostgreSQL's template patterns `9`, `0`, `.`,
/// `D`, `,`, `G`, `S`, `MI`, `PR`, `FM`, `TH`; other characters are copied.
/// Rounded to the template's fraction digits (a numeric half away from
/// zero, a float to even as PostgreSQL's); `#` in every digit place
/// when the integer part does not fit. `value` is an integer, numeric or
/// float.
pub fn format_number(value: &folio_row::Value, template: &str) -> Result<String, SqlError> {
    use crate::num_template::NumPiece;
    use folio_row::Value;
    let pieces = crate::num_template::pieces(template);
    crate::num_template::Summary::of(&pieces)?;
    let fill = pieces.contains(&NumPiece::FillMode);
    // The patterns this form prints (`L`, `V`, `PL`, `SG`, `RN`, `EEEE`
    // are refused).
    let tokens: Vec<NumToken> = pieces
        .iter()
        .filter_map(|piece| {
            Some(match *piece {
                NumPiece::FillMode | NumPiece::Inert => return None,
                NumPiece::Digit { zero } => NumToken::Digit { zero },
                NumPiece::Point { .. } => NumToken::Point,
                NumPiece::Group { .. } => NumToken::Group,
                NumPiece::Sign => NumToken::Sign,
                NumPiece::Minus => NumToken::Minus,
                NumPiece::Brackets => NumToken::Brackets,
                NumPiece::Ordinal { lower } => NumToken::Ordinal(lower),
                NumPiece::Text(c) => NumToken::Literal(c),
                NumPiece::Currency
                | NumPiece::Shift
                | NumPiece::Plus
                | NumPiece::PlusMinus
                | NumPiece::Roman { .. }
                | NumPiece::Exponent => NumToken::Unprinted,
            })
        })
        .collect();
    if tokens.contains(&NumToken::Unprinted) {
        return Err(SqlError::unsupported(
            "to_char of a number with L, V, PL, SG, RN or EEEE",
        ));
    }
    let tokens = match value {
        Value::Float4(x) if x.is_finite() => float_places(tokens, f64::from(*x), 6),
        Value::Float8(x) if x.is_finite() => float_places(tokens, *x, 15),
        _ => tokens,
    };
    let point = tokens.iter().position(|t| *t == NumToken::Point);
    let digits_in = |ts: &[NumToken]| {
        ts.iter()
            .filter(|t| matches!(t, NumToken::Digit { .. }))
            .count()
    };
    let (int_places, frac_places) = match point {
        Some(p) => (digits_in(&tokens[..p]), digits_in(&tokens[p..])),
        None => (digits_in(&tokens), 0),
    };
    // The value rounded to the fraction places, as sign, integer digits
    // (no leading zeros) and fraction digits.
    let text = match value {
        Value::Int2(x) => format!("{x}.{}", "0".repeat(frac_places)),
        Value::Int4(x) => format!("{x}.{}", "0".repeat(frac_places)),
        Value::Int8(x) => format!("{x}.{}", "0".repeat(frac_places)),
        // A float's infinity or NaN is its output word, as a numeric's.
        Value::Float4(x) if !x.is_finite() => value.to_text().unwrap_or_default(),
        Value::Float8(x) if !x.is_finite() => value.to_text().unwrap_or_default(),
        Value::Float4(x) => format!("{:.*}", frac_places, f64::from(*x)),
        Value::Float8(x) => format!("{x:.frac_places$}"),
        // An infinity prints its word, which overflows the places of any
        // format shorter than it (`#`), as PostgreSQL's does.
        Value::Numeric(n) if n.is_infinite() => n.to_string(),
        Value::Numeric(n) => n
            .fit_typmod(1000, u16::try_from(frac_places).unwrap_or(u16::MAX))
            .map_err(|_| SqlError::new("22003", "numeric field overflow"))?
            .to_string(),
        other => {
            return Err(SqlError::unsupported(format!(
                "to_char of {}",
                other.type_name()
            )));
        }
    };
    let unsigned = text.trim_start_matches('-');
    // NaN or an infinity: the text is its word, not digits.
    let special = unsigned.chars().any(|c| c.is_ascii_alphabetic());
    let negative = text.starts_with('-')
        && (special || unsigned.chars().any(|c| c.is_ascii_digit() && c != '0'));
    let (int_text, frac_text) = unsigned.split_once('.').unwrap_or((unsigned, ""));
    let mut int_digits = int_text.trim_start_matches('0').to_string();
    let frac_digits: Vec<char> = frac_text
        .chars()
        .chain(std::iter::repeat('0'))
        .take(frac_places)
        .collect();
    // The fraction places, left to right: whether each is a `0`.
    let frac_kinds: Vec<bool> = point.map_or(Vec::new(), |p| {
        tokens[p..]
            .iter()
            .filter_map(|t| match t {
                NumToken::Digit { zero } => Some(*zero),
                _ => None,
            })
            .collect()
    });
    // Fraction digits shown with FM: trailing zeros at `9` places go.
    let mut frac_fm = frac_places;
    while frac_fm > 0 && !frac_kinds[frac_fm - 1] && frac_digits[frac_fm - 1] == '0' {
        frac_fm -= 1;
    }
    // A zero integer part shows its units digit only when no other digit
    // would show: without fraction places, or with FM when the fraction's
    // digits all go (`to_char(0.001, 'FM9.99')` is `0.`).
    if int_digits.is_empty() && (frac_places == 0 || (fill && frac_fm == 0)) {
        int_digits = "0".into();
    }
    let overflow = int_digits.len() > int_places;
    // The integer places, left to right: a digit, or blank (None).
    let zero_from = tokens[..point.unwrap_or(tokens.len())]
        .iter()
        .filter(|t| matches!(t, NumToken::Digit { .. }))
        .position(|t| *t == NumToken::Digit { zero: true })
        .unwrap_or(int_places);
    let start = int_places - int_digits.len().min(int_places);
    let int_chars: Vec<Option<char>> = (0..int_places)
        .map(|p| match overflow {
            true => Some('#'),
            false if p >= start => int_digits.chars().nth(p - start),
            false if p >= zero_from => Some('0'),
            false => None,
        })
        .collect();
    // NaN's or an infinity's word, where it fits, is printed without a
    // point or fraction (PostgreSQL prints the numeric's text, which has
    // no point, into the places).
    let word = !overflow && special;
    let frac_shown = match (word, fill) {
        (true, _) => 0,
        // (An overflow fills every place with `#`, FM or not.)
        (false, true) if !overflow => frac_fm,
        (false, _) => frac_places,
    };
    let explicit = tokens
        .iter()
        .any(|t| matches!(t, NumToken::Sign | NumToken::Minus | NumToken::Brackets));
    let blank = |out: &mut String| {
        if !fill {
            out.push(' ');
        }
    };
    let mut out = String::new();
    if !explicit && !fill {
        // The sign's place, before the number (filled in below).
        out.push(' ');
    }
    let (mut int_at, mut frac_at, mut started) = (0, 0, false);
    // Where the default sign goes: just before the first character shown.
    let mut sign_at: Option<usize> = None;
    for (i, token) in tokens.iter().enumerate() {
        let in_fraction = point.is_some_and(|p| i > p);
        match *token {
            NumToken::Digit { .. } if !in_fraction => {
                match int_chars[int_at] {
                    Some(c) => {
                        if !started {
                            sign_at.get_or_insert(out.len());
                            started = true;
                        }
                        out.push(c);
                    }
                    None => blank(&mut out),
                }
                int_at += 1;
            }
            NumToken::Digit { .. } => {
                if frac_at < frac_shown {
                    out.push(if overflow { '#' } else { frac_digits[frac_at] });
                }
                frac_at += 1;
            }
            NumToken::Point => {
                sign_at.get_or_insert(out.len());
                started = true;
                if frac_places > 0 && !word {
                    out.push('.');
                }
            }
            NumToken::Group => match started {
                true => out.push(','),
                false => blank(&mut out),
            },
            NumToken::Sign => {
                sign_at = None;
                out.push(if negative { '-' } else { '+' });
            }
            NumToken::Minus => out.push_str(match (negative, fill) {
                (true, _) => "-",
                (false, true) => "",
                (false, false) => " ",
            }),
            NumToken::Brackets => {}
            NumToken::Ordinal(lower) => {
                if !overflow && frac_places == 0 {
                    let n: i64 = int_digits.parse().unwrap_or(0);
                    let case = if lower { Case::Lower } else { Case::Upper };
                    let text = number(n, 0, true, Some(case));
                    out.push_str(&text[text.len() - 2..]);
                }
            }
            NumToken::Literal(c) => out.push(c),
            NumToken::Unprinted => {}
        }
    }
    let sign_at = sign_at.unwrap_or(out.len());
    match (explicit, fill) {
        (false, false) => {
            // Move the sign place next to the number.
            out.remove(0);
            out.insert(sign_at - 1, if negative { '-' } else { ' ' });
        }
        (false, true) if negative => out.insert(0, '-'),
        _ => {}
    }
    // PR: brackets (or blanks) next to the number.
    if (negative || !fill) && tokens.contains(&NumToken::Brackets) {
        let (open, close) = if negative { ('<', '>') } else { (' ', ' ') };
        let at = out.find(|c: char| c != ' ').unwrap_or(out.len());
        out.insert(at, open);
        out.push(close);
    }
    // `S` before the digits: next to the number, after any blanks.
    if let Some(s) = tokens.iter().position(|t| *t == NumToken::Sign)
        && tokens[s + 1..]
            .iter()
            .any(|t| matches!(t, NumToken::Digit { .. }))
    {
        let sign = out.remove(out.find(['+', '-']).unwrap_or(0));
        let at = out.find(|c: char| c != ' ').unwrap_or(out.len());
        out.insert(at, sign);
    }
    Ok(out)
}
