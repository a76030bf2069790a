//! The `tid` and `xid` types (`SqlType::Tid`, `SqlType::Xid`): the values
//! of the system columns `ctid`, `xmin` and `xmax` (folio-sql
//! `system_columns.rs`). The one owner of their text forms:
//!
//! - `tid`: `(block,offset)`, a block number `0..=4294967295` and an
//!   offset `0..=65535`, blanks allowed around the numbers as PostgreSQL's
//!   `tidin` allows them; anything else is 22P02. Ordered by block, then
//!   offset.
//! - `xid`: PostgreSQL's 32-bit transaction id, read as its `xidin`
//!   reads it (`xid_snapshot.rs` `parse_xid`). A system column's value is
//!   folio's 64-bit xid itself. Only equality is defined on it, as
//!   PostgreSQL's `xid` has only `=` and `<>`.
//!
//! Neither is a stored column's type; row format and keys still have a
//! form for them (a sort or hash of query rows): a tid as its 4-byte
//! block and 2-byte offset, an xid as 8 bytes.

use crate::error::RowError;

/// The text form's value (PostgreSQL's `tidin`): `(block,offset)`, blanks
/// allowed before the parenthesis, after it, and before each number (not
/// after one), each number optionally with `+`.
pub fn parse_tid(text: &str) -> Result<(u32, u16), RowError> {
    let syntax = || RowError::InvalidText {
        type_name: "tid".into(),
        text: text.into(),
    };
    let blank = |c: char| c.is_ascii_whitespace();
    let inner = text
        .trim_matches(blank)
        .strip_prefix('(')
        .and_then(|t| t.strip_suffix(')'))
        .ok_or_else(syntax)?;
    let (block, offset) = inner.split_once(',').ok_or_else(syntax)?;
    let number = |part: &str| -> Result<u64, RowError> {
        let part = part.trim_start_matches(blank);
        let digits = part.strip_prefix('+').unwrap_or(part);
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return Err(syntax());
        }
        digits.parse().map_err(|_| syntax())
    };
    let block = u32::try_from(number(block)?).map_err(|_| syntax())?;
    let offset = u16::try_from(number(offset)?).map_err(|_| syntax())?;
    Ok((block, offset))
}

/// The text form of a tid.
pub fn tid_text(block: u32, offset: u16) -> String {
    format!("({block},{offset})")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A tid's text form reads back as itself; malformed ones are errors.
    #[test]
    fn tid_text_round_trips() {
        assert_eq!(parse_tid("(0,1)").unwrap(), (0, 1));
        assert_eq!(
            parse_tid(" ( 4294967295, +65535) ").unwrap(),
            (u32::MAX, u16::MAX)
        );
        assert_eq!(tid_text(3, 7), "(3,7)");
        for bad in ["", "0,1", "(0,1", "(a,1)", "(0,65536)", "(0 ,1)", "(0,1,2)"] {
            assert!(parse_tid(bad).is_err(), "{bad}");
        }
    }
}
