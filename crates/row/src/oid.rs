//! The `oid` type (`SqlType::Oid`, `Value::Oid`): PostgreSQL's object
//! identifier, an unsigned 4-byte integer. The one owner of its text
//! form and of its conversions from and to the integer types, each as
//! PostgreSQL 15 has it:
//!
//! - Text input: optional blanks, an optional sign, decimal digits,
//!   optional blanks. A value in `0..=4294967295` is itself; a negative
//!   one down to `-2147483648` wraps as a 32-bit integer does (`-1` is
//!   4294967295); beyond either is 22003 (`value "..." is out of range
//!   for type oid`), anything else 22P02.
//! - Text output: the unsigned decimal.
//! - From `smallint` and `integer` (implicit casts): the 32-bit pattern,
//!   so `-1` becomes 4294967295; from `bigint` (implicit too):
//!   `0..=4294967295`, else 22003 `OID out of range`.
//! - To `integer` (an assignment cast): the same 32-bit pattern back
//!   (4294967295 is -1); to `bigint`: the value. No cast to `smallint`,
//!   numeric, floats or bool exists.
//! - Order: unsigned. Row format: 4 bytes little-endian; key: 4 bytes
//!   big-endian; binary wire form: 4 bytes big-endian.

use crate::error::RowError;

/// The text form's value (PostgreSQL's `oidin`).
pub fn parse(text: &str) -> Result<u32, RowError> {
    let syntax = || RowError::InvalidText {
        type_name: "oid".into(),
        text: text.into(),
    };
    let trimmed = text.trim_matches(|c: char| c.is_ascii_whitespace());
    let digits = trimmed
        .strip_prefix(['+', '-'])
        .unwrap_or(trimmed)
        .as_bytes();
    if digits.is_empty() || !digits.iter().all(u8::is_ascii_digit) {
        return Err(syntax());
    }
    let out_of_range = || RowError::OutOfRange {
        type_name: "oid".into(),
        text: text.into(),
    };
    // More digits than any i64 holds are out of range whatever they are.
    let value: i64 = trimmed.parse().map_err(|_| out_of_range())?;
    if (i64::from(i32::MIN)..=i64::from(u32::MAX)).contains(&value) {
        Ok(value as u32)
    } else {
        Err(out_of_range())
    }
}

/// An integer of type `int2`/`int4` (`narrow`) or `int8` as an oid.
pub fn from_integer(value: i64, narrow: bool) -> Result<u32, RowError> {
    if narrow {
        // A 32-bit pattern: the implicit cast keeps the bits.
        return Ok(value as i32 as u32);
    }
    u32::try_from(value).map_err(|_| RowError::IntegerOutOfRange("OID".into()))
}

/// An oid as an `integer` (the bits kept: 4294967295 is -1).
pub fn to_int4(oid: u32) -> i32 {
    oid as i32
}

#[cfg(test)]
mod tests {
    use super::*;

    // Proves the text input accepts what PostgreSQL 15's `oidin` does
    // (each case checked with psql): blanks and a sign, negatives down
    // to -2147483648 wrapped, and refuses the rest with its SQLSTATE.
    #[test]
    fn text_input_is_postgresqls() {
        assert_eq!(parse("12").unwrap(), 12);
        assert_eq!(parse(" 12 ").unwrap(), 12);
        assert_eq!(parse("+5").unwrap(), 5);
        assert_eq!(parse("-0").unwrap(), 0);
        assert_eq!(parse("-1").unwrap(), 4_294_967_295);
        assert_eq!(parse("-2147483648").unwrap(), 2_147_483_648);
        assert_eq!(parse("4294967295").unwrap(), u32::MAX);
        for range in ["-2147483649", "4294967296", "99999999999999999999999"] {
            assert_eq!(parse(range).unwrap_err().sqlstate(), "22003", "{range}");
        }
        for bad in ["", " ", "abc", "12abc", "0x10", "1e3", "1.5", "+", "- 1"] {
            assert_eq!(parse(bad).unwrap_err().sqlstate(), "22P02", "{bad}");
        }
    }

    // Proves the integer casts keep PostgreSQL's bits and range.
    #[test]
    fn integer_casts_are_postgresqls() {
        assert_eq!(from_integer(-1, true).unwrap(), u32::MAX);
        assert_eq!(from_integer(-5, true).unwrap(), 4_294_967_291);
        assert_eq!(from_integer(4_294_967_295, false).unwrap(), u32::MAX);
        assert!(from_integer(-1, false).is_err());
        assert!(from_integer(4_294_967_296, false).is_err());
        assert_eq!(to_int4(u32::MAX), -1);
        assert_eq!(to_int4(2_147_483_648), i32::MIN);
    }
}
