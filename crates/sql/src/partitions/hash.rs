//! PostgreSQL's hash of a row's partition key, so a row lands in the same
//! hash partition as in PostgreSQL 15: each non-NULL key value hashed by
//! its type's extended hash function with PostgreSQL's partition seed,
//! the hashes combined in key order; the row goes to the partition whose
//! remainder is that hash modulo its modulus.

use crate::error::SqlError;
use folio_row::Value;

/// PostgreSQL's `HASH_PARTITION_SEED`.
const SEED: u64 = 0x7A5B_2236_7996_DCFD;

/// The combined hash of the key values `key` (NULLs are skipped, as
/// PostgreSQL's).
pub fn row_hash(key: &[Value]) -> Result<u64, SqlError> {
    let mut hash = 0u64;
    for value in key {
        if matches!(value, Value::Null) {
            continue;
        }
        hash = combine(hash, value_hash(value, SEED)?);
    }
    Ok(hash)
}

/// PostgreSQL's `hash_combine64`.
fn combine(a: u64, b: u64) -> u64 {
    a ^ (b
        .wrapping_add(0x49a0_f4dd_15e5_a8e3)
        .wrapping_add(a << 54)
        .wrapping_add(a >> 7))
}

/// Whether a column of this type may be a hash partition key here.
pub fn hashable(ty: folio_row::SqlType) -> bool {
    use folio_row::SqlType::*;
    matches!(ty, Int2 | Int4 | Int8 | Text | Varchar(_) | Bool)
}

/// The extended hash of one value (PostgreSQL's `hashint4extended`,
/// `hashint8extended`, `hashtextextended`, `hashcharextended` for bool).
fn value_hash(value: &Value, seed: u64) -> Result<u64, SqlError> {
    Ok(match value {
        Value::Int2(v) => uint32_hash(i32::from(*v) as u32, seed),
        Value::Int4(v) => uint32_hash(*v as u32, seed),
        Value::Int8(v) => {
            let low = *v as u32;
            let high = (*v >> 32) as u32;
            uint32_hash(if *v >= 0 { low ^ high } else { low ^ !high }, seed)
        }
        Value::Bool(b) => uint32_hash(u32::from(*b), seed),
        Value::Text(s) => bytes_hash(s.as_bytes(), seed),
        other => {
            return Err(SqlError::unsupported(format!(
                "hash partitioning by a {} key",
                other.type_name()
            )));
        }
    })
}

/// PostgreSQL's 32-bit `hash_any` of `key` (TABLESAMPLE's choice of
/// rows, `tablesample.rs`): `hash_bytes_extended` with no seed gives it
/// in its low word.
pub fn hash_any(key: &[u8]) -> u32 {
    bytes_hash(key, 0) as u32
}

/// Bob Jenkins' lookup3 mixing steps, as PostgreSQL's `hashfn.c`.
fn mix(a: &mut u32, b: &mut u32, c: &mut u32) {
    *a = a.wrapping_sub(*c);
    *a ^= c.rotate_left(4);
    *c = c.wrapping_add(*b);
    *b = b.wrapping_sub(*a);
    *b ^= a.rotate_left(6);
    *a = a.wrapping_add(*c);
    *c = c.wrapping_sub(*b);
    *c ^= b.rotate_left(8);
    *b = b.wrapping_add(*a);
    *a = a.wrapping_sub(*c);
    *a ^= c.rotate_left(16);
    *c = c.wrapping_add(*b);
    *b = b.wrapping_sub(*a);
    *b ^= a.rotate_left(19);
    *a = a.wrapping_add(*c);
    *c = c.wrapping_sub(*b);
    *c ^= b.rotate_left(4);
    *b = b.wrapping_add(*a);
}

fn finish(a: &mut u32, b: &mut u32, c: &mut u32) {
    *c ^= *b;
    *c = c.wrapping_sub(b.rotate_left(14));
    *a ^= *c;
    *a = a.wrapping_sub(c.rotate_left(11));
    *b ^= *a;
    *b = b.wrapping_sub(a.rotate_left(25));
    *c ^= *b;
    *c = c.wrapping_sub(b.rotate_left(16));
    *a ^= *c;
    *a = a.wrapping_sub(c.rotate_left(4));
    *b ^= *a;
    *b = b.wrapping_sub(a.rotate_left(14));
    *c ^= *b;
    *c = c.wrapping_sub(b.rotate_left(24));
}

/// PostgreSQL's `hash_bytes_uint32_extended`.
fn uint32_hash(k: u32, seed: u64) -> u64 {
    let start = 0x9e37_79b9u32.wrapping_add(4).wrapping_add(3_923_095);
    let (mut a, mut b, mut c) = (start, start, start);
    if seed != 0 {
        a = a.wrapping_add((seed >> 32) as u32);
        b = b.wrapping_add(seed as u32);
        mix(&mut a, &mut b, &mut c);
    }
    a = a.wrapping_add(k);
    finish(&mut a, &mut b, &mut c);
    (u64::from(b) << 32) | u64::from(c)
}

/// PostgreSQL's `hash_bytes_extended` (little-endian byte order).
fn bytes_hash(key: &[u8], seed: u64) -> u64 {
    let len = key.len() as u32;
    let start = 0x9e37_79b9u32.wrapping_add(len).wrapping_add(3_923_095);
    let (mut a, mut b, mut c) = (start, start, start);
    if seed != 0 {
        a = a.wrapping_add((seed >> 32) as u32);
        b = b.wrapping_add(seed as u32);
        mix(&mut a, &mut b, &mut c);
    }
    let word = |bytes: &[u8]| {
        let mut w = [0u8; 4];
        w[..bytes.len()].copy_from_slice(bytes);
        u32::from_le_bytes(w)
    };
    let mut rest = key;
    while rest.len() >= 12 {
        a = a.wrapping_add(word(&rest[0..4]));
        b = b.wrapping_add(word(&rest[4..8]));
        c = c.wrapping_add(word(&rest[8..12]));
        mix(&mut a, &mut b, &mut c);
        rest = &rest[12..];
    }
    // The last 11 bytes or fewer: the first of them goes to `c` shifted
    // one byte up (its low byte is the length's), the rest to `b`, `a`.
    let n = rest.len();
    if n > 8 {
        c = c.wrapping_add(word(&rest[8..]) << 8);
    }
    if n > 4 {
        b = b.wrapping_add(word(&rest[4..n.min(8)]));
    }
    if n > 0 {
        a = a.wrapping_add(word(&rest[..n.min(4)]));
    }
    finish(&mut a, &mut b, &mut c);
    (u64::from(b) << 32) | u64::from(c)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Values from PostgreSQL 15: `select hashint4extended(v, seed)`,
    /// `hashint8extended`, `hashtextextended`.
    #[test]
    fn hashes_match_postgresql() {
        assert_eq!(uint32_hash(1, 0) as i64, HASHINT4_1_0);
        assert_eq!(uint32_hash(1, SEED) as i64, HASHINT4_1_SEED);
        assert_eq!(
            value_hash(&Value::Int8(-5), SEED).unwrap() as i64,
            HASHINT8_M5_SEED
        );
        assert_eq!(bytes_hash(b"hello world!x", SEED) as i64, HASHTEXT_SEED);
    }

    const HASHINT4_1_0: i64 = -3670598878359251130;
    const HASHINT4_1_SEED: i64 = 5968994663651403477;
    const HASHINT8_M5_SEED: i64 = 5466844944386338076;
    const HASHTEXT_SEED: i64 = -6609607681821511246;
}
