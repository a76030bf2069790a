//! The `money` type (`SqlType::Money`): an amount in cents, a signed
//! 64-bit count (PostgreSQL's `Cash`), with its text forms as PostgreSQL
//! 15's `cash_in` / `cash_out` give them under `lc_monetary = 'C'` (the
//! only monetary locale folio has): two fraction digits, `.` as the
//! decimal point, `,` between groups of three digits, `$` as the
//! currency symbol, `-` before a negative amount (`-$1,234.56`).
//!
//! Input (the one owner of its rules, [`parse_money`]): blanks, an
//! optional `$`, blanks, a sign (`-` or `(` negative, `+`), blanks and
//! `$` again; then digits with `,` anywhere among them and one `.`;
//! digits past the second fraction digit round the amount half up by
//! the first of them (`$123.455` is `$123.46`, `-$123.455` `-$123.46`)
//! and the rest are skipped; then only blanks, `)`, signs (a `-` there
//! makes it negative) and `$`. Anything else is 22P02; an amount past
//! the 64-bit range 22003 (`value "..." is out of range for type
//! money`).

use crate::error::RowError;

/// Cents in one dollar: PostgreSQL's `frac_digits` is 2 in the C locale.
pub const CENTS_PER_UNIT: i64 = 100;

/// Fraction digits of the text form.
const FRACTION_DIGITS: u32 = 2;

/// The amount `text` names, in cents (PostgreSQL's `cash_in` in the C
/// locale).
pub fn parse_money(text: &str) -> Result<i64, RowError> {
    let out_of_range = || RowError::OutOfRange {
        type_name: "money".into(),
        text: text.into(),
    };
    let syntax = || RowError::InvalidText {
        type_name: "money".into(),
        text: text.into(),
    };
    let bytes = text.as_bytes();
    let mut at = 0;
    let blanks = |at: &mut usize| {
        while *at < bytes.len() && is_c_space(bytes[*at]) {
            *at += 1;
        }
    };
    let symbol = |at: &mut usize| {
        if bytes.get(*at) == Some(&b'$') {
            *at += 1;
        }
    };
    blanks(&mut at);
    symbol(&mut at);
    blanks(&mut at);
    let mut negative = false;
    match bytes.get(at) {
        Some(b'-') | Some(b'(') => {
            negative = true;
            at += 1;
        }
        Some(b'+') => at += 1,
        _ => {}
    }
    blanks(&mut at);
    symbol(&mut at);
    blanks(&mut at);
    // Built negative, as the most negative amount has no positive twin.
    let mut value: i64 = 0;
    let mut fraction_digits = 0;
    let mut seen_point = false;
    while at < bytes.len() {
        let b = bytes[at];
        if b.is_ascii_digit() && (!seen_point || fraction_digits < FRACTION_DIGITS) {
            value = value
                .checked_mul(10)
                .and_then(|v| v.checked_sub(i64::from(b - b'0')))
                .ok_or_else(out_of_range)?;
            if seen_point {
                fraction_digits += 1;
            }
        } else if b == b'.' && !seen_point {
            seen_point = true;
        } else if b != b',' {
            break;
        }
        at += 1;
    }
    // A further digit rounds half up.
    if bytes.get(at).is_some_and(|b| (b'5'..=b'9').contains(b)) {
        value = value.checked_sub(1).ok_or_else(out_of_range)?;
    }
    for _ in fraction_digits..FRACTION_DIGITS {
        value = value.checked_mul(10).ok_or_else(out_of_range)?;
    }
    while bytes.get(at).is_some_and(u8::is_ascii_digit) {
        at += 1;
    }
    while at < bytes.len() {
        match bytes[at] {
            b')' | b'+' | b'$' => {}
            b'-' => negative = true,
            b if is_c_space(b) => {}
            _ => return Err(syntax()),
        }
        at += 1;
    }
    match negative {
        true => Ok(value),
        false => value.checked_neg().ok_or_else(out_of_range),
    }
}

/// C's `isspace` in the C locale.
fn is_c_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | 0x0B | 0x0C | b'\r')
}

/// The text form of `cents` (PostgreSQL's `cash_out` in the C locale):
/// `$1,234.56`, `-$0.05`.
pub fn money_text(cents: i64) -> String {
    let magnitude = cents.unsigned_abs();
    let units = magnitude / CENTS_PER_UNIT as u64;
    let fraction = magnitude % CENTS_PER_UNIT as u64;
    let digits = units.to_string();
    let mut grouped = String::with_capacity(digits.len() + digits.len() / 3 + 8);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            grouped.push(',');
        }
        grouped.push(c);
    }
    let sign = if cents < 0 { "-" } else { "" };
    format!("{sign}${grouped}.{fraction:02}")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// PostgreSQL 15's answers for the forms its money.sql and its
    /// documentation use, and for the edges of the range.
    #[test]
    fn money_text_forms_are_postgresql_s() {
        for (text, cents) in [
            ("123", 12300),
            ("$123.45", 12345),
            ("$123.451", 12345),
            ("$123.455", 12346),
            ("$123.459", 12346),
            ("-$123.455", -12346),
            ("(1)", -100),
            ("($123,456.78)", -12345678),
            ("12-", -1200),
            ("$-12", -1200),
            (" $ 12 ", 1200),
            ("1,,2", 1200),
            ("12.", 1200),
            (".5", 50),
            ("", 0),
            ("-", 0),
            ("-92233720368547758.08", i64::MIN),
            ("92233720368547758.07", i64::MAX),
        ] {
            assert_eq!(parse_money(text).unwrap(), cents, "{text}");
        }
        for bad in ["abc", "12abc", "1.2.3", "12 USD"] {
            assert!(matches!(
                parse_money(bad),
                Err(RowError::InvalidText { .. })
            ));
        }
        for far in [
            "92233720368547758.08",
            "-92233720368547758.09",
            "92233720368547758.075",
            "123456789012345678",
        ] {
            assert!(matches!(parse_money(far), Err(RowError::OutOfRange { .. })));
        }
        assert_eq!(money_text(0), "$0.00");
        assert_eq!(money_text(-5), "-$0.05");
        assert_eq!(money_text(123456789), "$1,234,567.89");
        assert_eq!(money_text(i64::MIN), "-$92,233,720,368,547,758.08");
        assert_eq!(money_text(i64::MAX), "$92,233,720,368,547,758.07");
    }
}
