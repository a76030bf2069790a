//! The network address types `inet` and `cidr` (`SqlType::Inet`,
//! `SqlType::Cidr`; `Value::Inet`, `Value::Cidr`, both holding an
//! [`Inet`]): an IPv4 or IPv6 address with a netmask length. A `cidr` is
//! a network, its bits right of the mask zero; an `inet` a host address
//! that may carry its network's mask. The one owner of their text forms
//! (PostgreSQL 15's `network_in` / `network_out` over `inet_net_pton.c`
//! and `inet_net_ntop.c`, `abbrev`'s `inet_cidr_ntop.c`), their order
//! (`network_cmp`) and their stored and key bytes.
//!
//! | form | bytes |
//! |---|---|
//! | row (`row_format.rs`) | family (2: IPv4, 3: IPv6, PostgreSQL's), mask length, the 4 or 16 address bytes |
//! | key (`key.rs`, tag 28 for both types) | family, the address masked to its length, the mask length, the whole address |
//!
//! The order is PostgreSQL's: IPv4 before IPv6; then the addresses'
//! first `min(bits)` bits; then the shorter mask first; then the whole
//! address. The key bytes keep it: two masked prefixes that agree on
//! the shorter length differ further only if the longer one has a one
//! bit there, which PostgreSQL orders after too.

use crate::error::RowError;
use std::cmp::Ordering;

/// PostgreSQL's `PGSQL_AF_INET` and `PGSQL_AF_INET6`, the family bytes
/// of the stored and wire forms.
pub const FAMILY_V4: u8 = 2;
pub const FAMILY_V6: u8 = 3;

/// An address and its mask length.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Inet {
    v6: bool,
    bits: u8,
    /// The address; an IPv4 one in the first 4 bytes, the rest zero.
    addr: [u8; 16],
}

impl Inet {
    /// An address of `bytes` (4 or 16 of them) with a mask of `bits`;
    /// `None` if the lengths do not fit.
    pub fn new(bytes: &[u8], bits: u8) -> Option<Inet> {
        let v6 = match bytes.len() {
            4 => false,
            16 => true,
            _ => return None,
        };
        if bits > if v6 { 128 } else { 32 } {
            return None;
        }
        let mut addr = [0; 16];
        addr[..bytes.len()].copy_from_slice(bytes);
        Some(Inet { v6, bits, addr })
    }

    pub fn is_v6(&self) -> bool {
        self.v6
    }

    /// `family()`: 4 or 6.
    pub fn family(&self) -> i32 {
        if self.v6 { 6 } else { 4 }
    }

    /// The mask length.
    pub fn bits(&self) -> u8 {
        self.bits
    }

    /// The family's address length in bits: 32 or 128.
    pub fn max_bits(&self) -> u8 {
        if self.v6 { 128 } else { 32 }
    }

    /// The address bytes (4 or 16).
    pub fn bytes(&self) -> &[u8] {
        &self.addr[..if self.v6 { 16 } else { 4 }]
    }

    /// The address as a number (an IPv4 one below 2^32).
    pub fn number(&self) -> u128 {
        self.bytes()
            .iter()
            .fold(0u128, |n, &b| (n << 8) | u128::from(b))
    }

    /// The address `number` of this one's family with mask `bits`;
    /// `None` if it does not fit the family.
    pub fn with_number(&self, number: u128, bits: u8) -> Option<Inet> {
        if !self.v6 && number > u128::from(u32::MAX) {
            return None;
        }
        let all = number.to_be_bytes();
        let bytes = if self.v6 { &all[..] } else { &all[12..] };
        Inet::new(bytes, bits)
    }

    /// The netmask of `bits` ones as a number of the family's width.
    pub fn mask_number(&self, bits: u8) -> u128 {
        let width = u32::from(self.max_bits());
        let ones = match bits {
            0 => 0,
            b => u128::MAX << (128 - u32::from(b)),
        };
        ones >> (128 - width)
    }

    /// The same address with mask length `bits` (within the family's).
    pub fn with_bits(&self, bits: u8) -> Inet {
        assert!(
            bits <= self.max_bits(),
            "mask length {bits} past the family's"
        );
        Inet { bits, ..*self }
    }

    /// The network: the address with the bits right of its mask zero.
    pub fn network(&self) -> Inet {
        self.with_number(self.number() & self.mask_number(self.bits), self.bits)
            .expect("a masked address fits its family")
    }

    /// Whether bits right of the mask are set (a `cidr` has none).
    pub fn has_host_bits(&self) -> bool {
        self.number() & !self.mask_number(self.bits) != 0
    }

    /// Whether the first `bits` bits of the two addresses agree
    /// (PostgreSQL's `bitncmp(...) == 0`; same family assumed).
    pub fn same_prefix(&self, other: &Inet, bits: u8) -> bool {
        let mask = self.mask_number(bits);
        self.number() & mask == other.number() & mask
    }

    /// PostgreSQL's `network_cmp`: the order of both types.
    pub fn compare(&self, other: &Inet) -> Ordering {
        self.v6.cmp(&other.v6).then_with(|| {
            let common = self.mask_number(self.bits.min(other.bits));
            (self.number() & common)
                .cmp(&(other.number() & common))
                .then(self.bits.cmp(&other.bits))
                .then(self.number().cmp(&other.number()))
        })
    }

    /// The row bytes: family, mask length, address.
    pub fn to_stored(&self) -> Vec<u8> {
        let family = if self.v6 { FAMILY_V6 } else { FAMILY_V4 };
        [&[family, self.bits][..], self.bytes()].concat()
    }

    /// An address from its row bytes.
    pub fn from_stored(bytes: &[u8]) -> Result<Inet, RowError> {
        let corrupt = || RowError::Corrupt(format!("inet of {} bytes", bytes.len()));
        let [family, bits, addr @ ..] = bytes else {
            return Err(corrupt());
        };
        match (*family, addr.len()) {
            (FAMILY_V4, 4) | (FAMILY_V6, 16) => Inet::new(addr, *bits).ok_or_else(corrupt),
            _ => Err(corrupt()),
        }
    }

    /// The order-preserving key bytes (see the module comment).
    pub fn key_bytes(&self, out: &mut Vec<u8>) {
        out.push(if self.v6 { FAMILY_V6 } else { FAMILY_V4 });
        out.extend_from_slice(self.network().bytes());
        out.push(self.bits);
        out.extend_from_slice(self.bytes());
    }

    /// The length of the key bytes of the address whose family byte is
    /// `family`, that byte included.
    pub fn key_len(family: u8) -> Option<usize> {
        match family {
            FAMILY_V4 => Some(1 + 4 + 1 + 4),
            FAMILY_V6 => Some(1 + 16 + 1 + 16),
            _ => None,
        }
    }

    /// An address from its key bytes.
    pub fn from_key(bytes: &[u8]) -> Result<Inet, RowError> {
        let corrupt = || RowError::Corrupt("inet key".into());
        let len = match bytes.first().and_then(|&f| Inet::key_len(f)) {
            Some(len) if len == bytes.len() => (len - 2) / 2,
            _ => return Err(corrupt()),
        };
        Inet::new(&bytes[2 + len..], bytes[1 + len]).ok_or_else(corrupt)
    }

    /// The text form: `inet`'s output omits a full-length mask, a
    /// `cidr`'s always shows it (as `text(inet)` does for both).
    pub fn text(&self, always_mask: bool) -> String {
        let mut out = self.host();
        if always_mask || self.bits != self.max_bits() {
            out.push_str(&format!("/{}", self.bits));
        }
        out
    }

    /// `host()`: the address alone.
    pub fn host(&self) -> String {
        if !self.v6 {
            let b = self.bytes();
            return format!("{}.{}.{}.{}", b[0], b[1], b[2], b[3]);
        }
        v6_text(&self.addr)
    }

    /// `abbrev(cidr)`: the network with only the parts its mask covers
    /// (PostgreSQL's `inet_cidr_ntop`).
    pub fn abbrev_cidr(&self) -> String {
        let masked = self.network();
        let bits = usize::from(self.bits);
        if !self.v6 {
            let octets = masked.bytes();
            let mut parts: Vec<String> = (0..bits.div_ceil(8))
                .map(|i| octets[i].to_string())
                .collect();
            if parts.is_empty() {
                parts.push("0".into());
            }
            return format!("{}/{bits}", parts.join("."));
        }
        if bits == 0 {
            return "::/0".into();
        }
        format!("{}/{bits}", v6_abbrev(&masked.addr, bits))
    }
}

/// The 8 16-bit words of an IPv6 address.
fn words(addr: &[u8; 16]) -> [u16; 8] {
    std::array::from_fn(|i| u16::from_be_bytes([addr[2 * i], addr[2 * i + 1]]))
}

/// The longest run (first of equals) of zero words among the first
/// `count`: its start and length, if any.
fn zero_run(words: &[u16]) -> Option<(usize, usize)> {
    let mut best: Option<(usize, usize)> = None;
    let mut i = 0;
    while i < words.len() {
        if words[i] != 0 {
            i += 1;
            continue;
        }
        let start = i;
        while i < words.len() && words[i] == 0 {
            i += 1;
        }
        if best.is_none_or(|(_, len)| i - start > len) {
            best = Some((start, i - start));
        }
    }
    best
}

/// An IPv6 address as `inet_net_ntop` prints it: lower-case hex words,
/// the longest run of two or more zero words as `::`, and an IPv4
/// address after six zero words or after `::ffff:` dotted.
fn v6_text(addr: &[u8; 16]) -> String {
    let words = words(addr);
    let run = zero_run(&words).filter(|&(_, len)| len >= 2);
    let mut out = String::new();
    let mut i = 0;
    while i < 8 {
        if let Some((start, len)) = run
            && i == start
        {
            out.push(':');
            i += len;
            if i == 8 {
                out.push(':');
            }
            continue;
        }
        if i != 0 {
            out.push(':');
        }
        let ipv4 = matches!(run, Some((0, 6))) || (run == Some((0, 5)) && words[5] == 0xffff);
        if i == 6 && ipv4 {
            out.push_str(&format!(
                "{}.{}.{}.{}",
                addr[12], addr[13], addr[14], addr[15]
            ));
            break;
        }
        out.push_str(&format!("{:x}", words[i]));
        i += 1;
    }
    out
}

/// The words of an IPv6 network its `bits` cover, as `inet_cidr_ntop`
/// prints them (at least two words; an IPv4-looking tail dotted).
fn v6_abbrev(addr: &[u8; 16], bits: usize) -> String {
    let all = words(addr);
    let count = bits.div_ceil(16).max(2);
    let shown = &all[..count];
    let run = zero_run(shown).unwrap_or((0, 0));
    let (zero_start, zero_len) = run;
    let ipv4 = zero_len != count
        && zero_start == 0
        && (zero_len == 6
            || (zero_len == 5 && addr[10] == 0xff && addr[11] == 0xff)
            || (zero_len == 7 && addr[14] != 0 && addr[15] != 1));
    let mut out = String::new();
    for (p, word) in shown.iter().enumerate() {
        if zero_len != 0 && p >= zero_start && p < zero_start + zero_len {
            if p == zero_start {
                out.push(':');
            }
            if p == count - 1 {
                out.push(':');
            }
            continue;
        }
        if ipv4 && p > 5 {
            out.push(if p == 6 { ':' } else { '.' });
            out.push_str(&addr[2 * p].to_string());
            if p != 7 || bits > 120 {
                out.push('.');
                out.push_str(&addr[2 * p + 1].to_string());
            }
        } else {
            if !out.is_empty() {
                out.push(':');
            }
            out.push_str(&format!("{word:x}"));
        }
    }
    out
}

/// The text form of an `inet` (`cidr` false) or a `cidr` value:
/// PostgreSQL's `inet_in` / `cidr_in`. An address with a `:` is IPv6.
pub fn parse_inet(text: &str, cidr: bool) -> Result<Inet, RowError> {
    let type_name = if cidr { "cidr" } else { "inet" };
    let syntax = || RowError::InvalidText {
        type_name: type_name.into(),
        text: text.into(),
    };
    let parsed = if text.contains(':') {
        parse_v6(text.as_bytes()).map(|(addr, bits)| (addr.to_vec(), bits))
    } else if cidr {
        parse_v4_network(text.as_bytes())
    } else {
        parse_v4_host(text.as_bytes())
    };
    let (bytes, bits) = parsed.ok_or_else(syntax)?;
    let inet = Inet::new(&bytes, bits).ok_or_else(syntax)?;
    if cidr && inet.has_host_bits() {
        return Err(RowError::CidrHostBits { text: text.into() });
    }
    Ok(inet)
}

/// Decimal digits from `at` as a number up to `limit`: the number and
/// where they end; `None` past the limit.
fn decimal(s: &[u8], at: usize, limit: u32) -> Option<(u32, usize)> {
    let mut value = 0u32;
    let mut i = at;
    while i < s.len() && s[i].is_ascii_digit() {
        value = value * 10 + u32::from(s[i] - b'0');
        if value > limit {
            return None;
        }
        i += 1;
    }
    Some((value, i))
}

/// A `/bits` suffix of an IPv4 address at `at` (just past the `/`):
/// digits, nothing after, at most 32.
fn v4_mask(s: &[u8], at: usize) -> Option<u8> {
    let (bits, end) = decimal(s, at, u32::MAX / 10)?;
    (end == s.len() && end > at && bits <= 32).then_some(bits as u8)
}

/// An IPv4 host address (`inet_net_pton_ipv4`): one to four decimal
/// octets, then `/bits`; without a mask, all four octets and 32.
fn parse_v4_host(s: &[u8]) -> Option<(Vec<u8>, u8)> {
    let mut octets = Vec::with_capacity(4);
    let mut i = 0;
    let mut bits = None;
    while i < s.len() && s[i].is_ascii_digit() {
        let (octet, end) = decimal(s, i, 255)?;
        if octets.len() == 4 {
            return None;
        }
        octets.push(octet as u8);
        i = end;
        match s.get(i) {
            None => break,
            Some(b'/') => {
                if !s.get(i + 1).is_some_and(u8::is_ascii_digit) {
                    return None;
                }
                bits = Some(v4_mask(s, i + 1)?);
                i = s.len();
                break;
            }
            Some(b'.') => i += 1,
            Some(_) => return None,
        }
    }
    if i != s.len() || octets.is_empty() {
        return None;
    }
    let bits = match bits {
        Some(b) => b,
        None if octets.len() == 4 => 32,
        None => return None,
    };
    if usize::from(bits / 8) > octets.len() {
        return None;
    }
    octets.resize(4, 0);
    Some((octets, bits))
}

/// An IPv4 network (`inet_cidr_pton_ipv4`): `0x` and hexadecimal
/// nybbles, or one to four decimal octets; then `/bits`, or a length
/// from the address's class widened to the octets given.
fn parse_v4_network(s: &[u8]) -> Option<(Vec<u8>, u8)> {
    let mut octets: Vec<u8> = Vec::with_capacity(4);
    let mut i;
    if s.len() > 2 && s[0] == b'0' && matches!(s[1], b'x' | b'X') && s[2].is_ascii_hexdigit() {
        i = 2;
        let mut nybbles = Vec::new();
        while i < s.len() && s[i].is_ascii_hexdigit() {
            nybbles.push((s[i] as char).to_digit(16).expect("a hex digit") as u8);
            i += 1;
        }
        for pair in nybbles.chunks(2) {
            if octets.len() == 4 {
                return None;
            }
            octets.push((pair[0] << 4) | pair.get(1).copied().unwrap_or(0));
        }
    } else if s.first().is_some_and(u8::is_ascii_digit) {
        i = 0;
        loop {
            let (octet, end) = decimal(s, i, 255)?;
            if octets.len() == 4 {
                return None;
            }
            octets.push(octet as u8);
            i = end;
            match s.get(i) {
                None | Some(b'/') => break,
                Some(b'.') if s.get(i + 1).is_some_and(u8::is_ascii_digit) => i += 1,
                Some(_) => return None,
            }
        }
    } else {
        return None;
    }
    let mut bits = None;
    if s.get(i) == Some(&b'/') && s.get(i + 1).is_some_and(u8::is_ascii_digit) && !octets.is_empty()
    {
        bits = Some(v4_mask(s, i + 1)?);
        i = s.len();
    }
    if i != s.len() || octets.is_empty() {
        return None;
    }
    let given = octets.len() as u8 * 8;
    let bits = bits.unwrap_or_else(|| {
        let class = match octets[0] {
            240.. => 32,
            192..=223 => 24,
            128..=191 => 16,
            _ => 8,
        };
        // Widened to the octets given; `224` alone is the multicast /4.
        match class.max(given) {
            8 if octets[0] == 224 => 4,
            bits => bits,
        }
    });
    octets.resize(4, 0);
    Some((octets, bits))
}

/// A `/bits` suffix of an IPv6 address (`getbits`): digits without a
/// leading zero, at most 128, nothing after.
fn v6_mask(s: &[u8]) -> Option<u8> {
    if s.is_empty() || (s.len() > 1 && s[0] == b'0') {
        return None;
    }
    let (bits, end) = decimal(s, 0, 128)?;
    (end == s.len()).then_some(bits as u8)
}

/// The dotted IPv4 tail of an IPv6 address (`getv4`): up to four
/// decimal octets without leading zeros, then maybe `/bits`.
fn v6_ipv4_tail(s: &[u8]) -> Option<([u8; 4], Option<u8>)> {
    let mut out = [0u8; 4];
    let mut count = 0;
    let mut value = 0u32;
    let mut digits = 0;
    let mut i = 0;
    while i < s.len() {
        let c = s[i];
        i += 1;
        if c.is_ascii_digit() {
            if digits != 0 && value == 0 {
                return None;
            }
            digits += 1;
            value = value * 10 + u32::from(c - b'0');
            if value > 255 {
                return None;
            }
            continue;
        }
        if c != b'.' && c != b'/' {
            return None;
        }
        if count > 3 {
            return None;
        }
        out[count] = value as u8;
        count += 1;
        if c == b'/' {
            return Some((out, Some(v6_mask(&s[i..])?)));
        }
        value = 0;
        digits = 0;
    }
    if digits == 0 || count > 3 {
        return None;
    }
    out[count] = value as u8;
    Some((out, None))
}

/// An IPv6 address (`inet_cidr_pton_ipv6`): hexadecimal words of up
/// to four digits, one `::`, maybe a dotted IPv4 tail, maybe `/bits`
/// (128 without).
fn parse_v6(s: &[u8]) -> Option<([u8; 16], u8)> {
    let mut out = [0u8; 16];
    let mut tp = 0;
    let mut colon_at: Option<usize> = None;
    let mut i = 0;
    if s.first() == Some(&b':') {
        if s.get(1) != Some(&b':') {
            return None;
        }
        i = 1;
    }
    let mut token = i;
    let mut saw_digit = false;
    let mut value = 0u32;
    let mut digits = 0;
    let mut bits = None;
    while i < s.len() {
        let c = s[i];
        i += 1;
        if let Some(d) = (c as char).to_digit(16) {
            value = (value << 4) | d;
            digits += 1;
            if digits > 4 {
                return None;
            }
            saw_digit = true;
            continue;
        }
        if c == b':' {
            token = i;
            if !saw_digit {
                if colon_at.is_some() {
                    return None;
                }
                colon_at = Some(tp);
                continue;
            }
            if i == s.len() || tp + 2 > 16 {
                return None;
            }
            out[tp..tp + 2].copy_from_slice(&(value as u16).to_be_bytes());
            tp += 2;
            (saw_digit, digits, value) = (false, 0, 0);
            continue;
        }
        if c == b'.'
            && tp + 4 <= 16
            && let Some((ipv4, mask)) = v6_ipv4_tail(&s[token..])
        {
            out[tp..tp + 4].copy_from_slice(&ipv4);
            tp += 4;
            saw_digit = false;
            bits = mask;
            break;
        }
        if c == b'/'
            && let Some(mask) = v6_mask(&s[i..])
        {
            bits = Some(mask);
            break;
        }
        return None;
    }
    if saw_digit {
        if tp + 2 > 16 {
            return None;
        }
        out[tp..tp + 2].copy_from_slice(&(value as u16).to_be_bytes());
        tp += 2;
    }
    if let Some(at) = colon_at {
        if tp == 16 {
            return None;
        }
        let tail = tp - at;
        let moved: Vec<u8> = out[at..tp].to_vec();
        out[at..tp].fill(0);
        out[16 - tail..].copy_from_slice(&moved);
        tp = 16;
    }
    (tp == 16).then_some((out, bits.unwrap_or(128)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round(text: &str, cidr: bool) -> String {
        parse_inet(text, cidr).unwrap().text(cidr)
    }

    /// Inputs and outputs from PostgreSQL 15 (inet.sql and its server):
    /// the classful widths of `cidr`, IPv6 compression and the dotted
    /// IPv4 tails.
    #[test]
    fn text_forms_follow_postgresql() {
        assert_eq!(round("192.168.1", true), "192.168.1.0/24");
        assert_eq!(round("10", true), "10.0.0.0/8");
        assert_eq!(round("10.0.0.0", true), "10.0.0.0/32");
        assert_eq!(round("10.1", true), "10.1.0.0/16");
        assert_eq!(round("224", true), "224.0.0.0/4");
        assert_eq!(round("225", true), "225.0.0.0/8");
        assert_eq!(round("224.1", true), "224.1.0.0/16");
        assert_eq!(round("250.1", true), "250.1.0.0/32");
        assert_eq!(round("10:23::f1", true), "10:23::f1/128");
        assert_eq!(round("::ffff:1.2.3.4", true), "::ffff:1.2.3.4/128");
        assert_eq!(round("192.168.1.226/24", false), "192.168.1.226/24");
        assert_eq!(round("192.168.1.226", false), "192.168.1.226");
        assert_eq!(round("::4.3.2.1/24", false), "::4.3.2.1/24");
        assert_eq!(round("10:23::ffff", false), "10:23::ffff");
        assert_eq!(
            round("0000:0000:0000:0000:0000:0000:0000:0000/0", false),
            "::/0"
        );
        assert_eq!(round("::1", false), "::1");
        assert_eq!(
            round("ffff:ffff:ffff:fffd::/128", false),
            "ffff:ffff:ffff:fffd::"
        );
        assert_eq!(round("1:0:0:1:0:0:0:1", false), "1:0:0:1::1");
        for bad in [
            "1234::1234::1234",
            "1.2.3",
            "1.2.3.4/33",
            "",
            "a",
            "1.2.3.256",
            ":1::",
        ] {
            assert!(parse_inet(bad, false).is_err(), "{bad}");
        }
        assert!(matches!(
            parse_inet("192.168.1.2/30", true),
            Err(RowError::CidrHostBits { .. })
        ));
    }

    /// `abbrev(cidr)` prints the octets (or words) the mask covers.
    #[test]
    fn abbrev_prints_the_masked_part() {
        let abbrev = |t: &str| parse_inet(t, true).unwrap().abbrev_cidr();
        assert_eq!(abbrev("192.168.1.0/24"), "192.168.1/24");
        assert_eq!(abbrev("10.0.0.0/8"), "10/8");
        assert_eq!(abbrev("192.168.1.0/26"), "192.168.1.0/26");
        assert_eq!(abbrev("10:23::f1/128"), "10:23::f1/128");
        assert_eq!(abbrev("::ffff:1.2.3.4/128"), "::ffff:1.2.3.4/128");
    }

    /// Keys order as `compare` does, and stored and key bytes read back.
    #[test]
    fn keys_and_rows_keep_order_and_value() {
        let texts = [
            "0.0.0.0/0",
            "10.0.0.0/8",
            "10.1.2.3/8",
            "9.255.0.0/16",
            "10.0.0.0/16",
            "192.168.1.226",
            "::1",
            "10:23::f1/64",
            "ffff::/16",
        ];
        let all: Vec<Inet> = texts
            .iter()
            .map(|t| parse_inet(t, false).unwrap())
            .collect();
        for a in &all {
            let mut ka = Vec::new();
            a.key_bytes(&mut ka);
            assert_eq!(Inet::from_key(&ka).unwrap(), *a);
            assert_eq!(Inet::from_stored(&a.to_stored()).unwrap(), *a);
            for b in &all {
                let mut kb = Vec::new();
                b.key_bytes(&mut kb);
                assert_eq!(ka.cmp(&kb), a.compare(b), "{a:?} {b:?}");
            }
        }
    }
}
