//! `name` (`SqlType::Name`, oid 19): PostgreSQL's type of identifiers,
//! text of at most `NAMEDATALEN - 1` (63) bytes. Its values are
//! `Value::Text`; the one rule here is its input's: a longer text is cut
//! silently to the most whole characters that fit in 63 bytes
//! (PostgreSQL's `namein` with `pg_mbcliplen`), on input, on a cast from
//! a string type and on an assignment.

/// The most bytes of a `name` (PostgreSQL's `NAMEDATALEN - 1`).
pub const MAX_NAME_BYTES: usize = 63;

/// `text` cut to a name's length on a character boundary.
pub fn truncate(mut text: String) -> String {
    if text.len() > MAX_NAME_BYTES {
        let mut end = MAX_NAME_BYTES;
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        text.truncate(end);
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Cut at 63 bytes, never inside a character.
    #[test]
    fn cuts_at_63_bytes_on_a_character_boundary() {
        assert_eq!(truncate("a".repeat(70)), "a".repeat(63));
        assert_eq!(truncate("short".into()), "short");
        // 31 two-byte characters (62 bytes) and a third byte would split one.
        assert_eq!(truncate("é".repeat(40)), "é".repeat(31));
    }
}
