//! The MAC address types `macaddr` (6 bytes, `Value::MacAddr`) and
//! `macaddr8` (8 bytes, EUI-64, `Value::MacAddr8`): the one owner of
//! their text forms (PostgreSQL 15's `macaddr_in` / `macaddr_out` in
//! `mac.c`, `macaddr8_in` / `macaddr8_out` in `mac8.c`) and of the
//! conversions between them. Both print as lower-case hexadecimal
//! bytes joined by `:`; both order, store and key as their bytes.
//!
//! `macaddr` reads the seven layouts PostgreSQL's `sscanf` patterns
//! take (`08:00:2b:01:02:03`, `08-00-2b-01-02-03`, `08002b:010203`,
//! `08002b-010203`, `0800.2b01.0203`, `0800-2b01-0203`,
//! `08002b010203`), blanks around; an octet past 255 is 22003.
//! `macaddr8` reads pairs of hexadecimal digits, 6 or 8 of them, each
//! maybe followed by one separator (`:`, `-` or `.`, the same one
//! throughout), blanks around; a 6-byte address becomes EUI-64 with
//! `ff:fe` in its middle.

use crate::error::RowError;

/// One piece of a `macaddr` layout: a hexadecimal field of at most so
/// many digits (`None`: any), or a separator.
#[derive(Clone, Copy)]
enum Piece {
    Hex(Option<usize>),
    Sep(u8),
}

/// Six fields of at most `width` digits, `sep[i]` after the `i`th (0:
/// none).
const fn layout(sep: [u8; 5], width: Option<usize>) -> [Piece; 11] {
    let h = Piece::Hex(width);
    [
        h,
        Piece::Sep(sep[0]),
        h,
        Piece::Sep(sep[1]),
        h,
        Piece::Sep(sep[2]),
        h,
        Piece::Sep(sep[3]),
        h,
        Piece::Sep(sep[4]),
        h,
    ]
}

/// PostgreSQL's `macaddr_in` patterns, in its order (a `Sep(0)` is no
/// separator).
const LAYOUTS: [[Piece; 11]; 7] = [
    layout([b':'; 5], None),
    layout([b'-'; 5], None),
    layout([0, 0, b':', 0, 0], Some(2)),
    layout([0, 0, b'-', 0, 0], Some(2)),
    layout([0, b'.', 0, b'.', 0], Some(2)),
    layout([0, b'-', 0, b'-', 0], Some(2)),
    layout([0; 5], Some(2)),
];

/// Reads `text` by one layout as `sscanf` would: a field skips blanks
/// and takes hexadecimal digits (an unbounded one an optional sign and
/// `0x`); the rest must be blanks. The six fields, unchecked.
fn scan(text: &[u8], pieces: &[Piece; 11]) -> Option<[u64; 6]> {
    let mut fields = [0u64; 6];
    let mut n = 0;
    let mut i = 0;
    for piece in pieces {
        match *piece {
            Piece::Sep(0) => {}
            Piece::Sep(c) => {
                if text.get(i) != Some(&c) {
                    return None;
                }
                i += 1;
            }
            Piece::Hex(width) => {
                while text.get(i).is_some_and(u8::is_ascii_whitespace) {
                    i += 1;
                }
                let mut left = width.unwrap_or(usize::MAX);
                let mut negative = false;
                if width.is_none() && matches!(text.get(i), Some(b'+' | b'-')) {
                    negative = text[i] == b'-';
                    i += 1;
                }
                if width.is_none()
                    && text.get(i) == Some(&b'0')
                    && matches!(text.get(i + 1), Some(b'x' | b'X'))
                    && text.get(i + 2).is_some_and(u8::is_ascii_hexdigit)
                {
                    i += 2;
                }
                let start = i;
                let mut value = 0u64;
                while left > 0 && text.get(i).is_some_and(u8::is_ascii_hexdigit) {
                    let digit = (text[i] as char).to_digit(16).expect("a hex digit");
                    value = value.saturating_mul(16).saturating_add(u64::from(digit));
                    i += 1;
                    left -= 1;
                }
                if i == start {
                    return None;
                }
                fields[n] = if negative && value != 0 {
                    u64::MAX
                } else {
                    value
                };
                n += 1;
            }
        }
    }
    text[i..]
        .iter()
        .all(u8::is_ascii_whitespace)
        .then_some(fields)
}

/// A `macaddr`'s text form.
pub fn parse_macaddr(text: &str) -> Result<[u8; 6], RowError> {
    let fields = LAYOUTS
        .iter()
        .find_map(|pieces| scan(text.as_bytes(), pieces))
        .ok_or_else(|| RowError::InvalidText {
            type_name: "macaddr".into(),
            text: text.into(),
        })?;
    let mut out = [0u8; 6];
    for (byte, field) in out.iter_mut().zip(fields) {
        *byte = u8::try_from(field).map_err(|_| RowError::MacOctet { text: text.into() })?;
    }
    Ok(out)
}

/// A `macaddr8`'s text form (6-byte addresses become EUI-64).
pub fn parse_macaddr8(text: &str) -> Result<[u8; 8], RowError> {
    let syntax = || RowError::InvalidText {
        type_name: "macaddr8".into(),
        text: text.into(),
    };
    let s = text.as_bytes();
    let mut i = 0;
    while i < s.len() && s[i].is_ascii_whitespace() {
        i += 1;
    }
    let mut bytes = Vec::with_capacity(8);
    let mut spacer = None;
    while i + 1 < s.len() {
        if bytes.len() == 8 {
            return Err(syntax());
        }
        let pair = std::str::from_utf8(&s[i..i + 2]).map_err(|_| syntax())?;
        if !pair.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(syntax());
        }
        bytes.push(u8::from_str_radix(pair, 16).map_err(|_| syntax())?);
        i += 2;
        if let Some(&c @ (b':' | b'-' | b'.')) = s.get(i) {
            if *spacer.get_or_insert(c) != c {
                return Err(syntax());
            }
            i += 1;
        }
        if matches!(bytes.len(), 6 | 8) && s.get(i).is_some_and(u8::is_ascii_whitespace) {
            if !s[i..].iter().all(u8::is_ascii_whitespace) {
                return Err(syntax());
            }
            i = s.len();
        }
    }
    // As PostgreSQL's loop, a last lone character is not looked at.
    match *bytes.as_slice() {
        [a, b, c, d, e, f] => Ok(macaddr_to_8([a, b, c, d, e, f])),
        [a, b, c, d, e, f, g, h] => Ok([a, b, c, d, e, f, g, h]),
        _ => Err(syntax()),
    }
}

/// The text form of either type: bytes in lower-case hexadecimal.
pub fn mac_text(bytes: &[u8]) -> String {
    bytes
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect::<Vec<_>>()
        .join(":")
}

/// A `macaddr` as a `macaddr8` (`ff:fe` inserted in its middle).
pub fn macaddr_to_8(m: [u8; 6]) -> [u8; 8] {
    [m[0], m[1], m[2], 0xff, 0xfe, m[3], m[4], m[5]]
}

/// A `macaddr8` as a `macaddr`: `None` unless its 4th and 5th bytes
/// are `ff:fe` (PostgreSQL's 22003).
pub fn macaddr8_to_6(m: [u8; 8]) -> Option<[u8; 6]> {
    (m[3] == 0xff && m[4] == 0xfe).then_some([m[0], m[1], m[2], m[5], m[6], m[7]])
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The layouts of macaddr.sql and macaddr8.sql read as PostgreSQL
    /// 15 reads them.
    #[test]
    fn inputs_follow_postgresql() {
        let want = [0x08, 0x00, 0x2b, 0x01, 0x02, 0x03];
        for good in [
            "08:00:2b:01:02:03",
            "08-00-2b-01-02-03",
            "08002b:010203",
            "08002b-010203",
            "0800.2b01.0203",
            "0800-2b01-0203",
            "08002b010203",
            " 08:00:2b:01:02:03 ",
        ] {
            assert_eq!(parse_macaddr(good).unwrap(), want, "{good}");
        }
        for bad in ["0800:2b01:0203", "not even close", "08:00:2b:01:02"] {
            assert!(parse_macaddr(bad).is_err(), "{bad}");
        }
        assert!(matches!(
            parse_macaddr("08:00:2b:01:02:100"),
            Err(RowError::MacOctet { .. })
        ));
        assert_eq!(mac_text(&want), "08:00:2b:01:02:03");

        let eui = [0x08, 0x00, 0x2b, 0xff, 0xfe, 0x01, 0x02, 0x03];
        for good in [
            "08:00:2b:01:02:03",
            "    08:00:2b:01:02:03     ",
            "0800:2b01:0203",
            "08002b010203",
        ] {
            assert_eq!(parse_macaddr8(good).unwrap(), eui, "{good}");
        }
        assert_eq!(
            parse_macaddr8("0800.2b01.0203.0405").unwrap(),
            [8, 0, 0x2b, 1, 2, 3, 4, 5]
        );
        for bad in [
            "123    08:00:2b:01:02:03",
            "08:00:2b:01:02:03  123",
            "08:00:2b:01:02:03:04:05:06:07",
            "08002b01020304050607",
            "0z002b0102030405",
            "08:00-2b:01:02:03:04:05",
            "not even close",
        ] {
            assert!(parse_macaddr8(bad).is_err(), "{bad}");
        }
        assert_eq!(macaddr8_to_6(eui), Some(want));
        assert_eq!(macaddr8_to_6([8, 0, 0x2b, 1, 2, 3, 4, 5]), None);
    }
}
