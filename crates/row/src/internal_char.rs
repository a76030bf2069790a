//! `"char"` (`SqlType::InternalChar`, oid 18): PostgreSQL's one-byte
//! type of the catalog's code columns (`pg_class.relkind`), distinct
//! from `char(n)`. The one owner of its byte rules.
//!
//! A value is held as `Value::Text` of its output form, PostgreSQL's
//! `charout`: an ASCII byte as itself, the zero byte as the empty
//! string, a byte with the high bit set as `\ooo` in octal. So its text,
//! its cast to text and its equality need nothing more; only ordering
//! of high bytes against ASCII differs from PostgreSQL's unsigned byte
//! order (`\377` sorts before `a` here).
//!
//! Input (`charin`, and the cast from text, `text_char`, which read
//! alike in PostgreSQL 15): a text of exactly four bytes `\ooo` (three
//! octal digits) is that byte; any other text is its first byte; the
//! empty text is the zero byte.

/// The byte a text means as a `"char"` (a value's output form reads
/// back as its byte).
pub fn byte_of_text(text: &str) -> u8 {
    let b = text.as_bytes();
    let octal = |c: u8| (b'0'..=b'7').contains(&c);
    if b.len() == 4 && b[0] == b'\\' && b[1..].iter().all(|&c| octal(c)) {
        // `\777` wraps to a byte, as PostgreSQL's C char.
        let value = b[1..]
            .iter()
            .fold(0u32, |acc, &c| acc * 8 + u32::from(c - b'0'));
        return (value & 0xff) as u8;
    }
    b.first().copied().unwrap_or(0)
}

/// A byte's output form (the value's text here).
pub fn text_of_byte(byte: u8) -> String {
    match byte {
        0 => String::new(),
        b if b >= 0x80 => format!("\\{b:03o}"),
        b => char::from(b).to_string(),
    }
}

/// A text read as a `"char"`: its byte's output form.
pub fn from_text(text: &str) -> String {
    text_of_byte(byte_of_text(text))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Input and output round-trip PostgreSQL 15's examples.
    #[test]
    fn reads_and_prints_as_postgresql() {
        assert_eq!(from_text("a"), "a");
        assert_eq!(from_text("abc"), "a");
        assert_eq!(from_text("\\101"), "A");
        assert_eq!(from_text("\\377"), "\\377");
        assert_eq!(from_text("\\000"), "");
        assert_eq!(from_text(""), "");
        assert_eq!(from_text("\\18"), "\\");
        assert_eq!(from_text("é"), "\\303");
        for byte in 0..=255u8 {
            assert_eq!(byte_of_text(&text_of_byte(byte)), byte);
        }
    }
}
