//! Text made from bytes a client sent: valid UTF-8 holding no NUL, as
//! PostgreSQL's `pg_verify_mbstr` requires of every string that enters
//! the server (README "Text values and NUL"). The one owner of that rule
//! and of its error, 22021 `invalid byte sequence for encoding "UTF8":
//! 0x..`, naming the bytes of the first bad character as PostgreSQL does.
//! Its callers are the entry points: a protocol parameter (text or
//! binary), a COPY field, and a string literal whose escapes made a NUL
//! (`parse::strings_without_nul`).

use crate::error::SqlError;

/// `bytes` as text, or 22021 at the first byte that is not UTF-8 or is
/// NUL.
pub fn text(bytes: Vec<u8>) -> Result<String, SqlError> {
    match String::from_utf8(bytes) {
        Ok(text) => {
            without_nul(&text)?;
            Ok(text)
        }
        Err(e) => {
            let bytes = e.as_bytes();
            let at = e.utf8_error().valid_up_to();
            // A NUL before the bad sequence is the first error.
            without_nul(std::str::from_utf8(&bytes[..at]).expect("valid up to `at`"))?;
            Err(invalid(&bytes[at..]))
        }
    }
}

/// 22021 if `text` holds a NUL (a string made by escapes, or decoded).
pub fn without_nul(text: &str) -> Result<(), SqlError> {
    match text.as_bytes().iter().position(|&b| b == 0) {
        Some(at) => Err(invalid(&text.as_bytes()[at..])),
        None => Ok(()),
    }
}

/// The text of `sql` from `line` and `column` (from 1, in characters, as
/// sqlparser's tokenizer errors name them) on, if an escape string
/// literal (`E'...'`) starts there.
pub fn escape_literal_at(sql: &str, line: u64, column: u64) -> Option<&str> {
    let start = sql
        .split_inclusive('\n')
        .nth(usize::try_from(line).ok()?.checked_sub(1)?)?;
    let (at, _) = start
        .char_indices()
        .nth(usize::try_from(column).ok()?.checked_sub(1)?)?;
    let text = &start[at..];
    let opens = text.starts_with("E'") || text.starts_with("e'");
    opens.then_some(text)
}

/// The error for an escape string literal (`E'...'`) the tokenizer
/// refused, starting at `line` and `column` (from 1, in characters) of
/// `sql`: 22021 if one of its escapes makes a NUL (`\0`, `\000`, `\x00`,
/// as PostgreSQL's scanner checks the string it made), else `None` (the
/// tokenizer's own error stands).
pub fn escaped_nul(sql: &str, line: u64, column: u64) -> Option<SqlError> {
    let mut chars = escape_literal_at(sql, line, column)?[2..]
        .chars()
        .peekable();
    // The next up to `n` digits of `radix`, as a number.
    let digits = |chars: &mut std::iter::Peekable<std::str::Chars<'_>>, first: u32, radix, n| {
        let mut value = first;
        for _ in 0..n {
            match chars.peek().and_then(|c| c.to_digit(radix)) {
                Some(d) => {
                    value = value * radix + d;
                    chars.next();
                }
                None => break,
            }
        }
        value
    };
    while let Some(c) = chars.next() {
        let made = match c {
            '\'' if chars.peek() == Some(&'\'') => {
                chars.next();
                continue;
            }
            '\'' => return None,
            '\\' => match chars.next()? {
                'x' => match chars.peek().and_then(|c| c.to_digit(16)) {
                    Some(d) => {
                        chars.next();
                        digits(&mut chars, d, 16, 1)
                    }
                    None => 1,
                },
                'u' => digits(&mut chars, 0, 16, 4),
                'U' => digits(&mut chars, 0, 16, 8),
                d @ '0'..='7' => digits(&mut chars, d.to_digit(8)?, 8, 2) & 0xff,
                _ => 1,
            },
            _ => 1,
        };
        if made == 0 {
            return Some(invalid(&[0]));
        }
    }
    None
}

/// PostgreSQL's `report_invalid_encoding` for the character starting
/// `rest`: as many bytes as its first byte says the character has (at
/// least one, at most what is left), each as `0x%02x`.
fn invalid(rest: &[u8]) -> SqlError {
    let length = match rest.first() {
        Some(b) if b & 0xe0 == 0xc0 => 2,
        Some(b) if b & 0xf0 == 0xe0 => 3,
        Some(b) if b & 0xf8 == 0xf0 => 4,
        _ => 1,
    };
    let shown: Vec<String> = (rest.iter().take(length))
        .map(|b| format!("0x{b:02x}"))
        .collect();
    SqlError::new(
        "22021",
        format!(
            "invalid byte sequence for encoding \"UTF8\": {}",
            shown.join(" ")
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    // Proves text input refuses a NUL and bad UTF-8 with PostgreSQL's
    // 22021 message naming the first bad character's bytes, and keeps
    // good text as it is.
    #[test]
    fn refuses_nul_and_bad_utf8_with_postgresqls_message() {
        assert_eq!(text(b"a\xc3\xa9".to_vec()).unwrap(), "aé");
        let message = |bytes: &[u8]| text(bytes.to_vec()).unwrap_err().message;
        assert_eq!(
            message(b"a\0b"),
            "invalid byte sequence for encoding \"UTF8\": 0x00"
        );
        assert_eq!(
            message(b"a\xc3("),
            "invalid byte sequence for encoding \"UTF8\": 0xc3 0x28"
        );
        assert_eq!(
            message(b"\0\xff"),
            "invalid byte sequence for encoding \"UTF8\": 0x00"
        );
        assert_eq!(
            message(b"x\xe2\x82"),
            "invalid byte sequence for encoding \"UTF8\": 0xe2 0x82"
        );
        assert_eq!(text(b"\0".to_vec()).unwrap_err().code, "22021");
    }

    // Proves an escape string's NUL is found from where the tokenizer
    // says the literal starts (`\0`, `\000`, `\x00`, on a later line
    // too), and other escapes and doubled quotes are not taken for one.
    #[test]
    fn finds_the_nul_an_escape_string_makes() {
        let nul = |sql: &str, line, column| escaped_nul(sql, line, column).map(|e| e.message);
        let message = Some("invalid byte sequence for encoding \"UTF8\": 0x00".to_string());
        assert_eq!(nul(r"SELECT E'a\000b'", 1, 8), message);
        assert_eq!(nul(r"SELECT E'a\x00b'", 1, 8), message);
        assert_eq!(nul("SELECT 1,\n e'\\0'", 2, 2), message);
        assert_eq!(nul(r"SELECT E'it''s \001 \\000 \x41'", 1, 8), None);
        assert_eq!(nul(r"SELECT E'\400'", 1, 8), message);
        assert_eq!(nul(r"SELECT 'a'", 1, 8), None);
    }
}
