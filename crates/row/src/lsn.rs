//! The `pg_lsn` type (`SqlType::PgLsn`): a position in the write-ahead
//! log, an unsigned 64-bit byte offset (folio's WAL positions are byte
//! offsets too: folio-sql `wal_functions.rs` gives them). The one owner
//! of its text form, PostgreSQL's `pg_lsn_in` / `pg_lsn_out`: the high
//! and low 32 bits as upper-case hexadecimal without leading zeros,
//! joined by `/` (`16/B374D848`). Input takes one to eight hexadecimal
//! digits (either case) on each side and nothing else, no blanks
//! (22P02). Ordered as the number; stored and keyed as 8 bytes.

use crate::error::RowError;

/// The text form's value.
pub fn parse_lsn(text: &str) -> Result<u64, RowError> {
    let syntax = || RowError::InvalidText {
        type_name: "pg_lsn".into(),
        text: text.into(),
    };
    let half = |part: &str| -> Result<u64, RowError> {
        if part.is_empty() || part.len() > 8 || !part.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(syntax());
        }
        u64::from_str_radix(part, 16).map_err(|_| syntax())
    };
    let (high, low) = text.split_once('/').ok_or_else(syntax)?;
    Ok((half(high)? << 32) | half(low)?)
}

/// The text form of a position.
pub fn lsn_text(lsn: u64) -> String {
    format!("{:X}/{:X}", lsn >> 32, lsn & 0xFFFF_FFFF)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A position's text reads back as itself; PostgreSQL's malformed
    /// inputs (pg_lsn.sql) are errors.
    #[test]
    fn lsn_text_round_trips() {
        assert_eq!(parse_lsn("0/0").unwrap(), 0);
        assert_eq!(parse_lsn("FFFFFFFF/FFFFFFFF").unwrap(), u64::MAX);
        assert_eq!(parse_lsn("16/b374d848").unwrap(), 0x16_B374_D848);
        assert_eq!(lsn_text(0x16_B374_D848), "16/B374D848");
        assert_eq!(lsn_text(0), "0/0");
        for bad in [
            "G/0",
            "-1/0",
            " 0/12345678",
            "ABCD/",
            "/ABCD",
            "1/2/3",
            "123456789/0",
            "0/1 ",
        ] {
            assert!(parse_lsn(bad).is_err(), "{bad}");
        }
    }
}
