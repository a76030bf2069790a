//! Bit strings: the values of `bit(n)` and `bit varying(n)` (`varbit`),
//! PostgreSQL's `varbit.c` types, which share one representation and
//! compare with each other. The one owner of the value's forms:
//!
//! | form | bytes |
//! |---|---|
//! | value | the bits, most significant first, packed eight to a byte; the padding bits of the last byte are zero (every operation keeps them so, as PostgreSQL's does) |
//! | text | one `0` or `1` per bit (`bit_out`); input also `B...` binary or `X...` hexadecimal, four bits a digit (`bit_in`) |
//! | row | the bit length (u32 little-endian), then the bytes |
//! | key | the bytes escaped as text's are, then the bit length (u32 big-endian): PostgreSQL's `bit_cmp`, the common bytes compared, then the shorter first |
//!
//! A bit string's length is its type's business: `bit(n)` holds exactly
//! `n` bits (22026 otherwise), `bit varying(n)` at most `n` (22001):
//! [`BitString::fit_bit`], [`BitString::fit_varbit`].

use crate::error::RowError;
use std::cmp::Ordering;

/// PostgreSQL's longest bit string (`VARBITMAXLEN`: what a varlena of
/// 1 GB can hold after its headers).
pub const MAX_BITS: usize = (i32::MAX as usize - 4 - 4) / 8 * 8;

/// A string of bits.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct BitString {
    len: usize,
    bytes: Vec<u8>,
}

impl BitString {
    /// `len` zero bits.
    pub fn zeros(len: usize) -> BitString {
        BitString {
            len,
            bytes: vec![0; len.div_ceil(8)],
        }
    }

    /// The bits `bits`, in order.
    pub fn from_bits(bits: impl IntoIterator<Item = bool>) -> BitString {
        let mut out = BitString::zeros(0);
        for bit in bits {
            if out.len.is_multiple_of(8) {
                out.bytes.push(0);
            }
            out.len += 1;
            out.set(out.len - 1, bit);
        }
        out
    }

    /// The first `len` bits of `bytes` (the rest, if any, dropped); `None`
    /// when `bytes` holds fewer.
    pub fn from_bytes(len: usize, bytes: &[u8]) -> Option<BitString> {
        let mut out = BitString {
            len,
            bytes: bytes.get(..len.div_ceil(8))?.to_vec(),
        };
        out.clear_padding();
        Some(out)
    }

    /// Its length in bits.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether it has no bits.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Its bytes (the padding bits zero).
    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// Bit `at` (from 0, the first written).
    pub fn get(&self, at: usize) -> bool {
        assert!(at < self.len, "bit {at} of {}", self.len);
        self.bytes[at / 8] & (0x80 >> (at % 8)) != 0
    }

    /// Sets bit `at` to `bit`.
    pub fn set(&mut self, at: usize, bit: bool) {
        assert!(at < self.len, "bit {at} of {}", self.len);
        let mask = 0x80 >> (at % 8);
        match bit {
            true => self.bytes[at / 8] |= mask,
            false => self.bytes[at / 8] &= !mask,
        }
    }

    /// Its bits, in order.
    pub fn iter(&self) -> impl Iterator<Item = bool> + '_ {
        (0..self.len).map(|at| self.get(at))
    }

    /// The same bits cut or padded with zeros to `len` (an explicit cast
    /// to `bit(len)`).
    pub fn resized(&self, len: usize) -> BitString {
        let mut out = BitString::zeros(len);
        let kept = len.min(self.len).div_ceil(8);
        out.bytes[..kept].copy_from_slice(&self.bytes[..kept]);
        out.clear_padding();
        out
    }

    /// Zeroes the bits past its length in the last byte.
    fn clear_padding(&mut self) {
        let used = self.len % 8;
        if used != 0
            && let Some(last) = self.bytes.last_mut()
        {
            *last &= 0xFFu8 << (8 - used);
        }
    }

    /// The value as a `bit(n)` column takes it in an assignment: exactly
    /// `n` bits (PostgreSQL's 22026 otherwise).
    pub fn fit_bit(self, n: u32) -> Result<BitString, RowError> {
        match self.len == n as usize {
            true => Ok(self),
            false => Err(RowError::BitLengthMismatch { len: self.len, n }),
        }
    }

    /// The value as a `bit varying(n)` column takes it in an assignment:
    /// at most `n` bits (PostgreSQL's 22001 otherwise).
    pub fn fit_varbit(self, n: u32) -> Result<BitString, RowError> {
        match self.len <= n as usize {
            true => Ok(self),
            false => Err(RowError::BitStringTooLong(n)),
        }
    }

    /// PostgreSQL's order (`bit_cmp`): the bytes both have, then the
    /// shorter first.
    pub fn cmp_bits(&self, other: &BitString) -> Ordering {
        let common = self.bytes.len().min(other.bytes.len());
        self.bytes[..common]
            .cmp(&other.bytes[..common])
            .then(self.len.cmp(&other.len))
    }

    /// Its text form: a `0` or `1` per bit (`bit_out`).
    pub fn text(&self) -> String {
        self.iter().map(|b| if b { '1' } else { '0' }).collect()
    }

    /// Reads the text form (`bit_in`): binary digits, after an optional
    /// `b` or `B`, or hexadecimal ones after `x` or `X`. An invalid digit
    /// is PostgreSQL's 22P02 naming it.
    pub fn parse(text: &str) -> Result<BitString, RowError> {
        let (hex, digits) = match text.as_bytes().first() {
            Some(b'b' | b'B') => (false, &text[1..]),
            Some(b'x' | b'X') => (true, &text[1..]),
            _ => (false, text),
        };
        let bits_each = if hex { 4 } else { 1 };
        let len = digits.len() * bits_each;
        if len > MAX_BITS {
            return Err(RowError::BitStringLimit(MAX_BITS));
        }
        let mut out = BitString::zeros(len);
        for (i, c) in digits.chars().enumerate() {
            let invalid =
                |what: &str| RowError::InvalidInput(format!("\"{c}\" is not a valid {what} digit"));
            if hex {
                let nibble = c.to_digit(16).ok_or_else(|| invalid("hexadecimal"))? as u8;
                out.bytes[i / 2] |= if i % 2 == 0 { nibble << 4 } else { nibble };
            } else {
                match c {
                    '0' => {}
                    '1' => out.set(i, true),
                    _ => return Err(invalid("binary")),
                }
            }
        }
        Ok(out)
    }

    /// Appends its row form.
    pub(crate) fn write_row(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&(self.len as u32).to_le_bytes());
        out.extend_from_slice(&self.bytes);
    }

    /// Reads its row form.
    pub(crate) fn read_row(b: &[u8]) -> Option<BitString> {
        let len = u32::from_le_bytes(b.get(..4)?.try_into().ok()?) as usize;
        let bytes = &b[4..];
        (bytes.len() == len.div_ceil(8)).then(|| BitString::from_bytes(len, bytes))?
    }

    /// The bytes of its row form.
    pub(crate) fn row_len(&self) -> usize {
        4 + self.bytes.len()
    }

    /// Its key's length suffix, after its escaped bytes (module table).
    pub(crate) fn key_suffix(&self) -> [u8; 4] {
        (self.len as u32).to_be_bytes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn b(text: &str) -> BitString {
        BitString::parse(text).unwrap()
    }

    /// Text reads back as itself in binary and hexadecimal (PostgreSQL's
    /// `bit_in`, `bit_out`), padding bits stay zero, bad digits are
    /// 22P02.
    #[test]
    fn text_forms_round_trip() {
        assert_eq!(b("1010").text(), "1010");
        assert_eq!(b("B1010").text(), "1010");
        assert_eq!(b("X1F").text(), "00011111");
        assert_eq!(b("xa").text(), "1010");
        assert_eq!(b("").len(), 0);
        assert_eq!(b("101").bytes(), &[0xA0]);
        let e = BitString::parse("102").unwrap_err();
        assert_eq!(
            (e.sqlstate(), e.to_string().as_str()),
            ("22P02", "\"2\" is not a valid binary digit")
        );
        let e = BitString::parse("XZ").unwrap_err();
        assert_eq!(e.to_string(), "\"Z\" is not a valid hexadecimal digit");
    }

    /// bit(n) takes exactly n bits, varbit(n) at most n; an explicit
    /// resize cuts or pads with zeros and keeps the padding zero.
    #[test]
    fn lengths_fit_as_postgresql_s() {
        assert_eq!(b("101").fit_bit(3).unwrap(), b("101"));
        let e = b("10").fit_bit(3).unwrap_err();
        assert_eq!(
            (e.sqlstate(), e.to_string().as_str()),
            ("22026", "bit string length 2 does not match type bit(3)")
        );
        assert!(b("10").fit_varbit(3).is_ok());
        let e = b("1010").fit_varbit(3).unwrap_err();
        assert_eq!(
            (e.sqlstate(), e.to_string().as_str()),
            ("22001", "bit string too long for type bit varying(3)")
        );
        assert_eq!(b("111111111").resized(3), b("111"));
        assert_eq!(b("111").resized(3).bytes(), &[0xE0]);
        assert_eq!(b("1").resized(10), b("1000000000"));
    }

    /// Bit strings order as PostgreSQL's `bit_cmp`: common bytes first,
    /// then the shorter; the row form reads back as the value.
    #[test]
    fn order_and_row_form() {
        let ordered = ["", "0", "00", "01", "1", "10", "100000000", "11"];
        for pair in ordered.windows(2) {
            assert_eq!(b(pair[0]).cmp_bits(&b(pair[1])), Ordering::Less, "{pair:?}");
        }
        for text in ordered {
            let mut row = Vec::new();
            b(text).write_row(&mut row);
            assert_eq!(row.len(), b(text).row_len());
            assert_eq!(BitString::read_row(&row), Some(b(text)));
        }
        assert_eq!(BitString::read_row(&[9, 0, 0, 0, 0xFF]), None);
        assert_eq!(
            BitString::from_bits([true, false, true]).bytes(),
            b("101").bytes()
        );
    }
}
