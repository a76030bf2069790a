//! The 64-bit transaction id type `xid8` (`SqlType::Xid8`) and the
//! snapshot types `pg_snapshot` and `txid_snapshot`
//! (`SqlType::PgSnapshot`, `SqlType::TxidSnapshot`): their values and
//! text forms, as PostgreSQL 15's `xid.c` and `xid8funcs.c` give them.
//! What folio's snapshots and transaction ids are in these terms is
//! folio-sql's `xid_functions.rs`.
//!
//! - `xid8`: an unsigned 64-bit number. Its input is C's `strtoull` with
//!   base 0, as PostgreSQL's `xid8in`: blanks, a sign (`-1` wraps to
//!   2^64-1), `0x` hex or `0` octal; it stops at the first character
//!   that is no digit and ignores the rest, so `''` and `'asdf'` are 0
//!   (PostgreSQL's own regression test keeps that), and a number past
//!   the range is 2^64-1. `xid` reads the same way ([`parse_xid`]) and
//!   keeps the low 32 bits.
//! - a snapshot: `xmin:xmax:xip,...`, each number decimal (blanks and a
//!   sign before it allowed, as `strtoull` reads them); xmin and xmax
//!   not 0, at most 2^63-1, `xmin <= xmax`; each in-progress id within
//!   `xmin .. xmax` and in order, duplicates dropped. Anything else is
//!   22P02 `invalid input syntax for type pg_snapshot: "..."` (for a
//!   `txid_snapshot` too, as PostgreSQL's shared input function says).

use crate::error::RowError;

/// A snapshot in PostgreSQL's terms: every transaction below `xmin` had
/// ended, none from `xmax` on had, and of those between, the ones in
/// `xip` were still running. Invariants: `0 < xmin <= xmax <= 2^63-1`;
/// `xip` is ascending without repeats, each in `xmin .. xmax`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct XidSnapshot {
    pub xmin: u64,
    pub xmax: u64,
    pub xip: Vec<u64>,
    /// A `txid_snapshot` (the older name of the type) rather than a
    /// `pg_snapshot`: same values, a different SQL type.
    pub legacy: bool,
}

/// The largest transaction id a snapshot holds (PostgreSQL's limit).
const MAX_SNAPSHOT_XID: u64 = i64::MAX as u64;

impl XidSnapshot {
    /// The SQL type's name.
    pub fn type_name(&self) -> &'static str {
        match self.legacy {
            true => "txid_snapshot",
            false => "pg_snapshot",
        }
    }

    /// Whether the work of transaction `xid` is visible to it: it ended
    /// before the snapshot (PostgreSQL's `is_visible_fxid`).
    pub fn sees(&self, xid: u64) -> bool {
        if xid < self.xmin {
            true
        } else if xid >= self.xmax {
            false
        } else {
            self.xip.binary_search(&xid).is_err()
        }
    }

    /// Checks the invariants (a snapshot made from folio's transactions
    /// must keep them as a parsed one does).
    pub fn verify(&self) -> bool {
        self.xmin > 0
            && self.xmin <= self.xmax
            && self.xmax <= MAX_SNAPSHOT_XID
            && self.xip.windows(2).all(|w| w[0] < w[1])
            && self.xip.iter().all(|x| (self.xmin..self.xmax).contains(x))
    }

    /// Its text form, `xmin:xmax:xip,...`.
    pub fn text(&self) -> String {
        let xip: Vec<String> = self.xip.iter().map(u64::to_string).collect();
        format!("{}:{}:{}", self.xmin, self.xmax, xip.join(","))
    }

    /// The snapshot `text` names (PostgreSQL's `parse_snapshot`).
    pub fn parse(text: &str, legacy: bool) -> Result<XidSnapshot, RowError> {
        // PostgreSQL names pg_snapshot in the errors of both types (one
        // input function reads both).
        let syntax = || RowError::InvalidText {
            type_name: "pg_snapshot".into(),
            text: text.into(),
        };
        let bytes = text.as_bytes();
        let (xmin, at) = c_strtou64(bytes, 10);
        if bytes.get(at) != Some(&b':') {
            return Err(syntax());
        }
        let (xmax, end) = c_strtou64(&bytes[at + 1..], 10);
        let mut at = at + 1 + end;
        if bytes.get(at) != Some(&b':') {
            return Err(syntax());
        }
        at += 1;
        if xmin == 0 || xmax == 0 || xmax < xmin || xmax > MAX_SNAPSHOT_XID {
            return Err(syntax());
        }
        let mut xip: Vec<u64> = Vec::new();
        while at < bytes.len() {
            let (x, end) = c_strtou64(&bytes[at..], 10);
            at += end;
            if x < xmin || x >= xmax || xip.last().is_some_and(|last| x < *last) {
                return Err(syntax());
            }
            if xip.last() != Some(&x) {
                xip.push(x);
            }
            match bytes.get(at) {
                Some(b',') => at += 1,
                None => {}
                Some(_) => return Err(syntax()),
            }
        }
        let snapshot = XidSnapshot {
            xmin,
            xmax,
            xip,
            legacy,
        };
        debug_assert!(snapshot.verify());
        Ok(snapshot)
    }
}

impl XidSnapshot {
    /// PostgreSQL's binary form (`pg_snapshot_send`), also its stored
    /// and key form: the count of in-progress ids (4 bytes), xmin, xmax,
    /// then each id (8 bytes each), big-endian.
    pub fn send_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(20 + 8 * self.xip.len());
        out.extend_from_slice(&(self.xip.len() as u32).to_be_bytes());
        out.extend_from_slice(&self.xmin.to_be_bytes());
        out.extend_from_slice(&self.xmax.to_be_bytes());
        for x in &self.xip {
            out.extend_from_slice(&x.to_be_bytes());
        }
        out
    }

    /// The snapshot of [`XidSnapshot::send_bytes`]'s form (PostgreSQL's
    /// `pg_snapshot_recv`: ids out of order or range are refused, a
    /// repeat dropped); `None` when it is not one.
    pub fn from_send_bytes(b: &[u8], legacy: bool) -> Option<XidSnapshot> {
        let word = |at: usize| Some(u64::from_be_bytes(b.get(at..at + 8)?.try_into().ok()?));
        let count = u32::from_be_bytes(b.get(..4)?.try_into().ok()?) as usize;
        if b.len() != 20 + 8 * count {
            return None;
        }
        let (xmin, xmax) = (word(4)?, word(12)?);
        let mut xip: Vec<u64> = Vec::with_capacity(count);
        for i in 0..count {
            let x = word(20 + 8 * i)?;
            if xip.last().is_some_and(|last| x < *last) {
                return None;
            }
            if xip.last() != Some(&x) {
                xip.push(x);
            }
        }
        let snapshot = XidSnapshot {
            xmin,
            xmax,
            xip,
            legacy,
        };
        snapshot.verify().then_some(snapshot)
    }
}

/// C's `strtoull(s, &end, base)` (base 0: `0x` hex, `0` octal, else
/// decimal): the value and how many bytes it read (0 when it found no
/// number). Past the range it is `u64::MAX`; a `-` negates modulo 2^64.
fn c_strtou64(s: &[u8], base: u32) -> (u64, usize) {
    let mut at = 0;
    while at < s.len() && matches!(s[at], b' ' | b'\t' | b'\n' | 0x0B | 0x0C | b'\r') {
        at += 1;
    }
    let mut negative = false;
    if let Some(sign @ (b'+' | b'-')) = s.get(at) {
        negative = *sign == b'-';
        at += 1;
    }
    let mut radix = base;
    let hex_digit = |i: usize| s.get(i).is_some_and(u8::is_ascii_hexdigit);
    if (radix == 0 || radix == 16)
        && s.get(at) == Some(&b'0')
        && matches!(s.get(at + 1), Some(b'x' | b'X'))
        && hex_digit(at + 2)
    {
        radix = 16;
        at += 2;
    } else if radix == 0 {
        radix = if s.get(at) == Some(&b'0') { 8 } else { 10 };
    }
    let start = at;
    let mut value: u64 = 0;
    let mut overflow = false;
    while let Some(d) = s.get(at).and_then(|b| (*b as char).to_digit(radix)) {
        match value
            .checked_mul(u64::from(radix))
            .and_then(|v| v.checked_add(u64::from(d)))
        {
            Some(v) => value = v,
            None => overflow = true,
        }
        at += 1;
    }
    if at == start {
        return (0, 0);
    }
    let value = match (overflow, negative) {
        (true, _) => u64::MAX,
        (false, true) => value.wrapping_neg(),
        (false, false) => value,
    };
    (value, at)
}

/// An `xid8`'s value of `text` (PostgreSQL's `xid8in`: garbage is 0).
pub fn parse_xid8(text: &str) -> u64 {
    c_strtou64(text.as_bytes(), 0).0
}

/// An `xid`'s value of `text` (PostgreSQL's `xidin`: `strtoul` cut to 32
/// bits; garbage is 0).
pub fn parse_xid(text: &str) -> u64 {
    c_strtou64(text.as_bytes(), 0).0 & u64::from(u32::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// PostgreSQL 15's readings of xid and xid8 text (xid.sql).
    #[test]
    fn xid_text_reads_as_strtoul() {
        assert_eq!(parse_xid8("010"), 8);
        assert_eq!(parse_xid8("42"), 42);
        assert_eq!(parse_xid8("0xffffffffffffffff"), u64::MAX);
        assert_eq!(parse_xid8("-1"), u64::MAX);
        assert_eq!(parse_xid8(""), 0);
        assert_eq!(parse_xid8("asdf"), 0);
        assert_eq!(parse_xid8("99999999999999999999999"), u64::MAX);
        assert_eq!(parse_xid8(" 12abc"), 12);
        assert_eq!(parse_xid("0xffffffff"), u64::from(u32::MAX));
        assert_eq!(parse_xid("-1"), u64::from(u32::MAX));
        assert_eq!(parse_xid("4294967297"), 1);
    }

    /// Snapshot text: PostgreSQL 15's accepted and refused forms.
    #[test]
    fn snapshot_text_is_postgresql_s() {
        for (text, out) in [
            ("12:13:", "12:13:"),
            ("12:18:14,16", "12:18:14,16"),
            ("12:16:14,14", "12:16:14"),
            (" 1: 2:", "1:2:"),
            ("+1:2:", "1:2:"),
            ("1:5:3,", "1:5:3"),
            ("1:5:03", "1:5:3"),
            ("1:1:", "1:1:"),
            ("1:9223372036854775807:3", "1:9223372036854775807:3"),
        ] {
            let s = XidSnapshot::parse(text, false).unwrap();
            assert!(s.verify());
            assert_eq!(s.text(), out, "{text}");
        }
        for bad in [
            "31:12:",
            "0:1:",
            "12:13:0",
            "12:16:14,13",
            "1:9223372036854775808:3",
            "1:5:,3",
            "-1:2:",
            "0x1:5:",
            "1:5:3 ",
            "1:5",
        ] {
            assert!(XidSnapshot::parse(bad, true).is_err(), "{bad}");
        }
        let s = XidSnapshot::parse("12:20:13,15,18", false).unwrap();
        let seen: Vec<u64> = (11..=21).filter(|x| s.sees(*x)).collect();
        assert_eq!(seen, [11, 12, 14, 16, 17, 19]);
    }
}
