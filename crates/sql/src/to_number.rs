//! `to_number(text, template)`: a number read by a number template
//! (`num_template.rs`), as PostgreSQL's `NUM_processor` reads one in the
//! C locale (`D` is `.`, `G` is `,`, `L` skips one character that is no
//! digit, point, comma or sign).
//!
//! The template is walked once, each piece taking what it reads from the
//! input: a digit place (`9`, `0`) or the point takes one character (a
//! digit, or the point; a blank before it is skipped, and a sign before
//! the first digit or after the last is read too), `,` a comma if there is
//! one, `MI`/`PL`/`SG` their sign, `L` and `TH` the characters they stand
//! for, any other character of the template one character of the input
//! whatever it is. The digits read, with their sign and point, are then
//! read as a numeric (22P02 when there are none) of the template's digit
//! places and the fraction digits read; `V`'s places divide it by a power
//! of ten, as PostgreSQL 15's `numeric_power` gives it (16 places after
//! the point, so `V` with more than 16 places gives 0).

use crate::error::SqlError;
use crate::num_template::{NumPiece, Summary, pieces};
use folio_row::Numeric;

/// Scale of PostgreSQL 15's `power(10, -n)` (what `V` multiplies by).
const SHIFT_SCALE: u32 = 16;

/// The reading of an input (PostgreSQL's `NUMProc` for `to_number`).
struct Reader<'a> {
    input: &'a [u8],
    at: usize,
    /// The sign read (`' '`: none yet), then the digits and point.
    sign: u8,
    digits: String,
    read_pre: usize,
    read_post: usize,
    read_point: bool,
    summary: Summary,
}

impl Reader<'_> {
    fn done(&self) -> bool {
        self.at >= self.input.len()
    }

    fn peek(&self) -> u8 {
        self.input.get(self.at).copied().unwrap_or(0)
    }

    /// The length of the character at `at` (PostgreSQL's `pg_mblen`).
    fn char_len(&self) -> usize {
        match self.peek() {
            0..0x80 => 1,
            0xC0..0xE0 => 2,
            0xE0..0xF0 => 3,
            _ => 4,
        }
    }

    /// `L` and `TH` (and a sign piece that finds no sign): skip up to `n`
    /// characters that are not data (`NUM_eat_non_data_chars`).
    fn skip_non_data(&mut self, n: usize) {
        for _ in 0..n {
            if self.done() || b"0123456789.,+-".contains(&self.peek()) {
                break;
            }
            self.at += self.char_len();
        }
    }

    /// A digit place or the point (`NUM_numpart_from_char`); the caller
    /// steps past the character after.
    fn number_part(&mut self, digit_place: bool) {
        if self.done() {
            return;
        }
        if self.peek() == b' ' {
            self.at += 1;
        }
        if self.done() {
            return;
        }
        let s = self.summary;
        // A sign before the first digit.
        if self.sign == b' ' && digit_place && self.read_pre + self.read_post == 0 {
            let c = self.peek();
            if c == b'-' || (s.sign != Some(true) && s.brackets && c == b'<') {
                self.sign = b'-';
                self.at += 1;
            } else if c == b'+' {
                self.sign = b'+';
                self.at += 1;
            }
        }
        if self.done() {
            return;
        }
        let mut read = false;
        let c = self.peek();
        if c.is_ascii_digit() {
            if self.read_point && self.read_post == s.post {
                return;
            }
            self.digits.push(char::from(c));
            match self.read_point {
                true => self.read_post += 1,
                false => self.read_pre += 1,
            }
            read = true;
        } else if s.point && !self.read_point && c == b'.' {
            self.digits.push('.');
            self.read_point = true;
            read = true;
        }
        if self.done() {
            return;
        }
        // A sign after the last digit.
        if self.sign == b' ' && self.read_pre + self.read_post > 0 {
            if s.sign.is_some() && read {
                // (A sign is no digit, so the next character is one.)
                if let Some(sign @ (b'-' | b'+')) = self.input.get(self.at + 1).copied() {
                    self.sign = sign;
                    self.at += 1;
                }
            } else if !read && s.sign.is_none() && (s.plus || s.minus) {
                let c = self.peek();
                if c == b'-' || c == b'+' {
                    self.sign = c;
                }
            }
        }
    }

    /// A sign piece (`MI`, `PL`, `SG`) taking the signs in `signs`.
    fn sign_piece(&mut self, signs: &[u8]) {
        let c = self.peek();
        if signs.contains(&c) {
            self.sign = c;
            self.at += 1;
        } else {
            self.skip_non_data(1);
        }
    }
}

/// `to_number(input, template)`; `None` (NULL) for an empty template.
pub fn to_number(input: &str, template: &str) -> Result<Option<Numeric>, SqlError> {
    if template.is_empty() {
        return Ok(None);
    }
    let pieces = pieces(template);
    let summary = Summary::of(&pieces)?;
    if summary.exponent {
        return Err(SqlError::new("0A000", "\"EEEE\" not supported for input"));
    }
    if summary.roman {
        return Err(SqlError::new("0A000", "\"RN\" not supported for input"));
    }
    let mut r = Reader {
        input: input.as_bytes(),
        at: 0,
        sign: b' ',
        digits: String::new(),
        read_pre: 0,
        read_post: 0,
        read_point: false,
        summary,
    };
    for piece in pieces {
        if r.done() {
            break;
        }
        match piece {
            NumPiece::Digit { .. } => r.number_part(true),
            NumPiece::Point { .. } => r.number_part(false),
            NumPiece::Group { .. } if summary.fill || r.peek() != b',' => continue,
            NumPiece::Group { .. } => {}
            NumPiece::Currency => {
                r.skip_non_data(1);
                continue;
            }
            NumPiece::Ordinal { .. } => {
                if !summary.point {
                    r.skip_non_data(2);
                }
                continue;
            }
            NumPiece::Minus => {
                r.sign_piece(b"-");
                continue;
            }
            NumPiece::Plus => {
                r.sign_piece(b"+");
                continue;
            }
            NumPiece::PlusMinus => {
                r.sign_piece(b"-+");
                continue;
            }
            NumPiece::Text(_) => {
                r.at += r.char_len();
                continue;
            }
            NumPiece::Sign
            | NumPiece::Brackets
            | NumPiece::Shift
            | NumPiece::Inert
            | NumPiece::FillMode
            | NumPiece::Roman { .. }
            | NumPiece::Exponent => continue,
        }
        r.at += 1;
    }
    let mut text = format!("{}{}", char::from(r.sign), r.digits);
    if text.ends_with('.') {
        text.pop();
    }
    let value = Numeric::parse(text.trim_start()).map_err(|_| {
        SqlError::new(
            "22P02",
            format!("invalid input syntax for type numeric: \"{text}\""),
        )
    })?;
    let precision = summary.pre + summary.shift + r.read_post;
    let value = value
        .fit_typmod(
            u16::try_from(precision).unwrap_or(u16::MAX),
            u16::try_from(r.read_post).unwrap_or(u16::MAX),
        )
        .map_err(|_| SqlError::new("22003", "numeric field overflow"))?;
    if summary.shift == 0 {
        return Ok(Some(value));
    }
    // Times `power(10, -shift)` at its 16 places.
    let shift = u32::try_from(summary.shift).unwrap_or(u32::MAX);
    let factor = 10i128
        .checked_pow(SHIFT_SCALE.saturating_sub(shift))
        .unwrap_or(0);
    let factor = if shift > SHIFT_SCALE { 0 } else { factor };
    let factor = Numeric::new(factor, SHIFT_SCALE as u8)?;
    Ok(Some(value.checked_mul(&factor).map_err(|_| {
        SqlError::new("22003", "value overflows numeric format")
    })?))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn n(input: &str, template: &str) -> String {
        to_number(input, template).unwrap().unwrap().to_string()
    }

    // Values checked with PostgreSQL 15's to_number.
    #[test]
    fn reads_as_postgresql() {
        assert_eq!(n("-34,338,492", "99G999G999"), "-34338492");
        assert_eq!(n("<564646.654564>", "999999.999999PR"), "-564646.654564");
        assert_eq!(n("5.01-", "FM9.999999MI"), "-5.01");
        assert_eq!(n("$1,234.56", "L9,999.99"), "1234.56");
        assert_eq!(n("12345", "999V99"), "123.4500000000000000");
        assert_eq!(n("123", "9"), "1");
        assert_eq!(to_number("1", "").unwrap(), None);
        assert_eq!(to_number("abc", "999").unwrap_err().code, "22P02");
    }
}
