//! The order-preserving encoding of index keys: comparing two encoded keys
//! byte by byte (shorter first when one is a prefix of the other) orders
//! them as PostgreSQL orders the value tuples, so the B+tree compares
//! bytes and never decodes.
//!
//! Each column is a null marker, then (for a non-null value) its bytes;
//! a descending column's value bytes are inverted (the marker is not):
//!
//! | column part | bytes |
//! |---|---|
//! | null marker | NULLS LAST: value `0x01`, null `0x02`; NULLS FIRST: null `0x00`, value `0x01` |
//! | int2/int4/int8, date, timestamp[tz] | big-endian with the sign bit flipped |
//! | float4/float8 | as float8: IEEE bits, negatives inverted, positives with the sign bit set; -0 as 0; NaN one value above +Infinity (PostgreSQL: NaN is greatest) |
//! | bool | `0x00` / `0x01` |
//! | uuid | its 16 bytes |
//! | interval | its span (months as 30 days) in microseconds, an i128 big-endian with the sign bit flipped |
//! | text, varchar, char, bytea | the bytes with `0x00` escaped as `0x00 0xFF`, then `0x00 0x00` (a prefix sorts first; C collation) |
//! | bit, varbit | the bytes escaped as a bytea's, then the bit length (u32 big-endian): PostgreSQL's `bit_cmp` (`bits.rs`) |
//! | multirange | each range: `0x01`, then its key as a range's; then `0x00` (PostgreSQL's `multirange_cmp`: range by range, fewer ranges first) |
//! | range | `0x00` empty; else `0x01`, then the lower bound: `0x00` infinite, or `0x01`, the element's key, then `0x01` inclusive / `0x02` exclusive; then the upper bound: `0x01`, the element's key, then `0x00` exclusive / `0x01` inclusive, or `0x02` infinite (PostgreSQL's `range_cmp`: every element key ends itself, so the bytes order as the bounds) |
//! | array | each element in row-major order: `0x01` then its key, or `0x03` for NULL; then `0x00` (element by element, NULL after every value, a prefix first: PostgreSQL's `array_cmp`); then, for an array neither empty nor one-dimensional of lower bound 1, `0x04`, the number of dimensions (u8), each length (u32 big-endian), each lower bound (i32, sign flipped): PostgreSQL's order of shapes after equal elements, but for one: a one-dimensional array of lower bound below 1 sorts after the lower-bound-1 array of the same elements (PostgreSQL: before), and in a descending column a plain array comes before the other shapes of its elements (PostgreSQL: after), so that keys of plain arrays stay as before session 67; equal arrays have equal keys and unequal ones unequal keys either way |
//! | numeric | `0x01` negative / `0x02` zero / `0x03` positive / `0x04` NaN; then, for a non-zero number `0.d1..dn * 10^e`, `e` (i16, sign flipped, big-endian) and the digits as `1..=10`, ended by `0x00`; for ±Infinity `e` = `0x7FFF` (no finite numeric reaches it) and no digits; all of it inverted for negatives |
//!
//! Numeric keys are normalised: 1.5 and 1.50 encode equal (they are equal
//! in PostgreSQL too), and decode as 1.5 (PostgreSQL's index-only scan
//! would return the stored 1.50). Interval keys are their span: `1 mon`
//! and `30 days` encode equal (equal in PostgreSQL too) and decode as
//! `1 mon`; [`SqlType::key_decodes_exactly`] tells the planner not to
//! answer from such keys.

use crate::array::{Array, Dim};
use crate::bits::BitString;
use crate::error::RowError;
use crate::multirange::Multirange;
use crate::numeric::Numeric;
use crate::range::{Bound, Range, RangeKind};
use crate::types::SqlType;
use crate::value::Value;

/// Longest encoded key (PostgreSQL's limit for a B-tree entry,
/// `BTMaxItemSize` for 8 KiB pages: 2704 bytes).
pub const MAX_KEY_LEN: usize = 2704;

/// PostgreSQL's largest index tuple (`INDEX_SIZE_MASK`): a key whose
/// tuple would be larger is refused with "index row requires N bytes".
const MAX_INDEX_ROW_LEN: usize = 8191;

/// One column of an index key: its type and order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KeyColumn {
    pub ty: SqlType,
    pub descending: bool,
    pub nulls_first: bool,
}

impl KeyColumn {
    /// PostgreSQL's default for the direction: ASC NULLS LAST, DESC NULLS
    /// FIRST.
    pub fn new(ty: SqlType, descending: bool) -> KeyColumn {
        KeyColumn {
            ty,
            descending,
            nulls_first: descending,
        }
    }
}

fn corrupt(reason: impl Into<String>) -> RowError {
    RowError::Corrupt(reason.into())
}

fn float_key(v: f64) -> [u8; 8] {
    let v = if v == 0.0 { 0.0 } else { v };
    let bits = if v.is_nan() {
        f64::INFINITY.to_bits() + 1
    } else {
        v.to_bits()
    };
    let ordered = if bits >> 63 == 1 {
        !bits
    } else {
        bits | 1 << 63
    };
    ordered.to_be_bytes()
}

fn float_from_key(b: [u8; 8]) -> f64 {
    let ordered = u64::from_be_bytes(b);
    let bits = if ordered >> 63 == 1 {
        ordered & !(1 << 63)
    } else {
        !ordered
    };
    if bits == f64::INFINITY.to_bits() + 1 {
        f64::NAN
    } else {
        f64::from_bits(bits)
    }
}

fn escaped(bytes: &[u8], out: &mut Vec<u8>) {
    for &b in bytes {
        out.push(b);
        if b == 0 {
            out.push(0xFF);
        }
    }
    out.extend_from_slice(&[0, 0]);
}

/// The exponent an infinity's key holds: above every finite numeric's,
/// so Infinity sorts after every positive number and -Infinity
/// (inverted) before every negative one, and both stay between zero's
/// and NaN's sign bytes as keys written before infinities existed.
const INFINITY_EXPONENT: i16 = i16::MAX;
/// The exponent word after which a larger exponent follows as a u32: a
/// number's `e` is at least -16,382 (its scale is at most 16,383) and at
/// most 131,072, past an i16; those from this one up take the long form,
/// which sorts above every short one and below an infinity's.
const LONG_EXPONENT: i16 = i16::MAX - 1;

fn numeric_key(n: &Numeric, out: &mut Vec<u8>) {
    let (negative, exponent, digits) = match n {
        Numeric::NaN => {
            out.push(0x04);
            return;
        }
        Numeric::Infinity { negative } => (*negative, i32::from(INFINITY_EXPONENT), Vec::new()),
        Numeric::Value { .. } | Numeric::Long(_) => {
            let Some(parts) = n.digits() else {
                out.push(0x02);
                return;
            };
            parts
        }
    };
    let start = out.len() + 1;
    out.push(if negative { 0x01 } else { 0x03 });
    let word = |e: i16| ((e as u16) ^ 0x8000).to_be_bytes();
    match i16::try_from(exponent) {
        Ok(e) if e < LONG_EXPONENT || n.is_infinite() => out.extend_from_slice(&word(e)),
        _ => {
            out.extend_from_slice(&word(LONG_EXPONENT));
            out.extend_from_slice(&(exponent as u32).to_be_bytes());
        }
    }
    out.extend(digits.iter().map(|d| d + 1));
    out.push(0);
    if negative {
        out[start..].iter_mut().for_each(|b| *b = !*b);
    }
}

/// Appends the key bytes of a non-null value. An array (which no index
/// stores, but hashing and DISTINCT key rows by these bytes) is its
/// elements, each after a marker (0x01, or 0x03 for a NULL, which sorts
/// after values as in PostgreSQL's arrays), then 0x00.
fn value_key(v: &Value, out: &mut Vec<u8>) {
    match v {
        Value::Null => unreachable!("a NULL has no key bytes, only its marker"),
        Value::Int2(x) => out.extend_from_slice(&((*x as u16) ^ 0x8000).to_be_bytes()),
        Value::Int4(x) | Value::Date(x) => {
            out.extend_from_slice(&((*x as u32) ^ 0x8000_0000).to_be_bytes())
        }
        Value::Int8(x) | Value::Timestamp(x) | Value::TimestampTz(x) | Value::Time(x) => {
            out.extend_from_slice(&((*x as u64) ^ (1 << 63)).to_be_bytes())
        }
        // PostgreSQL's order: the UTC instant, then the zone.
        Value::TimeTz(t) => {
            out.extend_from_slice(&((t.utc() as u64) ^ (1 << 63)).to_be_bytes());
            out.extend_from_slice(&((t.zone as u32) ^ 0x8000_0000).to_be_bytes());
        }
        // Unsigned: its big-endian bytes order it.
        Value::Oid(x) => out.extend_from_slice(&x.to_be_bytes()),
        Value::Reg(r) => out.extend_from_slice(&r.oid.to_be_bytes()),
        Value::Tid(block, offset) => {
            out.extend_from_slice(&block.to_be_bytes());
            out.extend_from_slice(&offset.to_be_bytes());
        }
        Value::Xid(x) | Value::PgLsn(x) | Value::Xid8(x) => out.extend_from_slice(&x.to_be_bytes()),
        Value::Money(x) => out.extend_from_slice(&((*x as u64) ^ (1 << 63)).to_be_bytes()),
        // Equal bytes for equal snapshots: PostgreSQL has no order of them.
        Value::Snapshot(s) => escaped(&s.send_bytes(), out),
        Value::Float4(x) => out.extend_from_slice(&float_key(*x as f64)),
        Value::Float8(x) => out.extend_from_slice(&float_key(*x)),
        // Its label's sort order, which never changes (`enums.rs`), so a
        // label added between two others keys between them too.
        Value::Enum(e) => out.extend_from_slice(&float_key(e.sort())),
        Value::Bool(b) => out.push(*b as u8),
        Value::Uuid(u) => out.extend_from_slice(u),
        Value::MacAddr(m) => out.extend_from_slice(m),
        Value::MacAddr8(m) => out.extend_from_slice(m),
        // PostgreSQL's network order, IPv4 first (`inet.rs`): the
        // family byte fixes the length.
        Value::Inet(a) | Value::Cidr(a) => a.key_bytes(out),
        // The span alone: intervals of one span are equal (`1 mon` =
        // `30 days`), as in PostgreSQL's indexes.
        Value::Interval(i) => {
            out.extend_from_slice(&((i.span() as u128) ^ (1 << 127)).to_be_bytes())
        }
        Value::Text(s) | Value::Json(s) => escaped(s.as_bytes(), out),
        // Equal bytes for equal values (numbers by value), not an order:
        // no index has jsonb keys (`encode_key` refuses them).
        Value::Jsonb(j) => escaped(crate::json::equality_text(j).as_bytes(), out),
        Value::Bytea(b) => escaped(b, out),
        // Equal bytes for equal paths: no index has jsonpath keys.
        Value::JsonPath(p) => escaped(crate::jsonpath_text::stored_text(p).as_bytes(), out),
        Value::Bit(b) => {
            escaped(b.bytes(), out);
            out.extend_from_slice(&b.key_suffix());
        }
        // Equal bytes for equal values, not an order: no index has keys
        // of a geometric type (`encode_key` refuses them).
        Value::Geo(g) => escaped(&g.to_bytes(), out),
        Value::TsVector(t) => t.key_bytes(out),
        Value::TsQuery(q) => q.key_bytes(out),
        Value::Numeric(n) => numeric_key(n, out),
        Value::Range(r) => range_key(r, out),
        Value::Multirange(m) => {
            for r in m.ranges() {
                out.push(0x01);
                range_key(r, out);
            }
            out.push(0x00);
        }
        Value::Array(array) => {
            elements_key(array.items(), out);
            if !array.is_plain() {
                shape_key(&array.dims(), out);
            }
        }
        Value::Record(items) => elements_key(items, out),
    }
}

/// An array's elements or a composite value's fields: each after a
/// marker, then `0x00` (module table).
fn elements_key(items: &[Value], out: &mut Vec<u8>) {
    for item in items {
        match item {
            Value::Null => out.push(0x03),
            item => {
                out.push(0x01);
                value_key(item, out);
            }
        }
    }
    out.push(0x00);
}

/// The marker before the shape of an array that is not plain (module
/// table): above every byte that may follow an element list's `0x00`
/// (a column's null marker, an element's or field's marker).
const SHAPE_MARKER: u8 = 0x04;

/// An array's shape after its elements (module table): the marker, the
/// number of dimensions, their lengths, their lower bounds.
fn shape_key(dims: &[Dim], out: &mut Vec<u8>) {
    out.push(SHAPE_MARKER);
    out.push(dims.len() as u8);
    for d in dims {
        out.extend_from_slice(&d.len.to_be_bytes());
    }
    for d in dims {
        out.extend_from_slice(&((d.lower as u32) ^ 0x8000_0000).to_be_bytes());
    }
}

/// A range's key (module table).
fn range_key(r: &Range, out: &mut Vec<u8>) {
    let Some((lower, upper)) = &r.bounds else {
        out.push(0x00);
        return;
    };
    out.push(0x01);
    match &lower.value {
        None => out.push(0x00),
        Some(v) => {
            out.push(0x01);
            value_key(v, out);
            out.push(if lower.inclusive { 0x01 } else { 0x02 });
        }
    }
    match &upper.value {
        None => out.push(0x02),
        Some(v) => {
            out.push(0x01);
            value_key(v, out);
            out.push(if upper.inclusive { 0x01 } else { 0x00 });
        }
    }
}

/// Appends bytes for a tuple of values that are equal exactly when the
/// values are equal as PostgreSQL groups them (GROUP BY, DISTINCT, set
/// operations): each value's type tag, then its key bytes, so numerics
/// are normalised (1.5 and 1.50 alike), intervals are their span, floats
/// have one zero and one NaN, and a NULL is its tag alone. Unlike
/// [`encode_key`], the bytes need not order anything, and any value
/// (arrays included) has them.
pub fn hash_key(values: &[Value], out: &mut Vec<u8>) {
    for v in values {
        let tag = match v {
            Value::Null => 0,
            Value::Int2(_) => 1,
            Value::Int4(_) => 2,
            Value::Int8(_) => 3,
            Value::Float4(_) => 4,
            Value::Float8(_) => 5,
            Value::Numeric(_) => 6,
            Value::Text(_) => 7,
            Value::Bytea(_) => 8,
            Value::Bool(_) => 9,
            Value::Date(_) => 10,
            Value::Timestamp(_) => 11,
            Value::TimestampTz(_) => 12,
            Value::Uuid(_) => 13,
            Value::Interval(_) => 14,
            Value::Array(_) => 15,
            Value::Record(_) => 16,
            Value::Json(_) => 17,
            Value::Jsonb(_) => 18,
            Value::Enum(_) => 19,
            Value::Oid(_) | Value::Reg(_) => 20,
            Value::Tid(..) => 21,
            Value::Xid(_) => 22,
            Value::Range(_) => 23,
            Value::Multirange(_) => 32,
            Value::Time(_) => 24,
            Value::TimeTz(_) => 25,
            Value::PgLsn(_) => 26,
            Value::Money(_) => 33,
            Value::Xid8(_) => 34,
            Value::Snapshot(_) => 35,
            // One tag for both: an inet and a cidr of one address and
            // mask are equal, as in PostgreSQL.
            Value::Inet(_) | Value::Cidr(_) => 28,
            Value::MacAddr(_) => 29,
            Value::MacAddr8(_) => 30,
            Value::JsonPath(_) => 40,
            // bit and bit varying alike: they compare equal in PostgreSQL.
            Value::Bit(_) => 27,
            Value::Geo(_) => 31,
            Value::TsVector(_) => 38,
            Value::TsQuery(_) => 39,
        };
        out.push(tag);
        if tag != 0 {
            value_key(v, out);
        }
    }
}

/// Encodes one key: `values[i]` (fitted to `columns[i].ty`) for each
/// column. Errors: a type mismatch, or a key over [`MAX_KEY_LEN`] (54000).
pub fn encode_key(values: &[Value], columns: &[KeyColumn]) -> Result<Vec<u8>, RowError> {
    if values.len() != columns.len() {
        return Err(RowError::Arity {
            values: values.len(),
            columns: columns.len(),
        });
    }
    let mut out = Vec::new();
    for (v, c) in values.iter().zip(columns) {
        if !v.matches(c.ty) {
            return Err(RowError::TypeMismatch {
                value: v.type_name().into(),
                column: c.ty.name(),
            });
        }
        if matches!(
            c.ty,
            SqlType::Json | SqlType::Jsonb | SqlType::Geo(_) | SqlType::JsonPath
        ) {
            return Err(RowError::Unsupported(format!(
                "an index key of type {}",
                c.ty.name()
            )));
        }
        if *v == Value::Null {
            out.push(if c.nulls_first { 0x00 } else { 0x02 });
            continue;
        }
        out.push(0x01);
        let start = out.len();
        value_key(v, &mut out);
        if c.descending {
            out[start..].iter_mut().for_each(|b| *b = !*b);
        }
    }
    if out.len() > MAX_KEY_LEN {
        // PostgreSQL refuses a tuple past its largest before its B-tree's
        // limit (only a key past MAX_KEY_LEN can be one: no value's key is
        // shorter than about half its size in PostgreSQL).
        if let Some(len) = crate::datum_width::index_row_size(values)
            && len > MAX_INDEX_ROW_LEN
        {
            return Err(RowError::IndexRowTooLarge {
                len,
                max: MAX_INDEX_ROW_LEN,
            });
        }
        return Err(RowError::KeyTooLong {
            len: out.len(),
            max: MAX_KEY_LEN,
        });
    }
    Ok(out)
}

/// Reads keys back (index-only scans).
pub(crate) struct KeyReader<'a> {
    rest: &'a [u8],
    invert: bool,
}

impl KeyReader<'_> {
    pub(crate) fn byte(&mut self) -> Result<u8, RowError> {
        let (&b, tail) = self
            .rest
            .split_first()
            .ok_or_else(|| corrupt("key cut short"))?;
        self.rest = tail;
        Ok(if self.invert { !b } else { b })
    }

    /// The next byte, not read.
    fn peek(&self) -> Option<u8> {
        let b = *self.rest.first()?;
        Some(if self.invert { !b } else { b })
    }

    fn array<const N: usize>(&mut self) -> Result<[u8; N], RowError> {
        let mut out = [0u8; N];
        for b in out.iter_mut() {
            *b = self.byte()?;
        }
        Ok(out)
    }

    pub(crate) fn unescaped(&mut self) -> Result<Vec<u8>, RowError> {
        let mut out = Vec::new();
        loop {
            match self.byte()? {
                0 => match self.byte()? {
                    0 => return Ok(out),
                    0xFF => out.push(0),
                    x => return Err(corrupt(format!("escape 0x00 {x:#04x}"))),
                },
                b => out.push(b),
            }
        }
    }
}

/// Decodes a key encoded with `columns`.
pub fn decode_key(key: &[u8], columns: &[KeyColumn]) -> Result<Vec<Value>, RowError> {
    let mut r = KeyReader {
        rest: key,
        invert: false,
    };
    let mut out = Vec::with_capacity(columns.len());
    for c in columns {
        r.invert = false;
        match r.byte()? {
            0x00 | 0x02 => {
                out.push(Value::Null);
                continue;
            }
            0x01 => {}
            m => return Err(corrupt(format!("null marker {m:#04x}"))),
        }
        r.invert = c.descending;
        out.push(key_value(&mut r, c.ty)?);
    }
    if !r.rest.is_empty() {
        return Err(corrupt(format!("{} bytes after the key", r.rest.len())));
    }
    Ok(out)
}

/// Reads one non-null value of type `ty`.
fn key_value(r: &mut KeyReader<'_>, ty: SqlType) -> Result<Value, RowError> {
    Ok(match ty {
        SqlType::Int2 => Value::Int2((u16::from_be_bytes(r.array()?) ^ 0x8000) as i16),
        SqlType::Int4 => Value::Int4((u32::from_be_bytes(r.array()?) ^ 0x8000_0000) as i32),
        SqlType::Date => Value::Date((u32::from_be_bytes(r.array()?) ^ 0x8000_0000) as i32),
        SqlType::Int8 => Value::Int8((u64::from_be_bytes(r.array()?) ^ (1 << 63)) as i64),
        SqlType::Oid => Value::Oid(u32::from_be_bytes(r.array()?)),
        SqlType::Reg(kind) => Value::Reg(Box::new(crate::reg::RegValue::unnamed(
            kind,
            u32::from_be_bytes(r.array()?),
        ))),
        SqlType::Tid => Value::Tid(
            u32::from_be_bytes(r.array()?),
            u16::from_be_bytes(r.array()?),
        ),
        SqlType::Xid => Value::Xid(u64::from_be_bytes(r.array()?)),
        SqlType::PgLsn => Value::PgLsn(u64::from_be_bytes(r.array()?)),
        SqlType::Xid8 => Value::Xid8(u64::from_be_bytes(r.array()?)),
        SqlType::Money => Value::Money((u64::from_be_bytes(r.array()?) ^ (1 << 63)) as i64),
        SqlType::PgSnapshot | SqlType::TxidSnapshot => Value::Snapshot(Box::new(
            crate::xid_snapshot::XidSnapshot::from_send_bytes(
                &r.unescaped()?,
                ty == SqlType::TxidSnapshot,
            )
            .ok_or_else(|| corrupt("snapshot key"))?,
        )),
        SqlType::Timestamp(_) => {
            Value::Timestamp((u64::from_be_bytes(r.array()?) ^ (1 << 63)) as i64)
        }
        SqlType::TimestampTz(_) => {
            Value::TimestampTz((u64::from_be_bytes(r.array()?) ^ (1 << 63)) as i64)
        }
        SqlType::Time(_) => Value::Time((u64::from_be_bytes(r.array()?) ^ (1 << 63)) as i64),
        SqlType::TimeTz(_) => {
            let utc = (u64::from_be_bytes(r.array()?) ^ (1 << 63)) as i64;
            let zone = (u32::from_be_bytes(r.array()?) ^ 0x8000_0000) as i32;
            Value::TimeTz(crate::TimeTz {
                time: utc - i64::from(zone) * 1_000_000,
                zone,
            })
        }
        SqlType::Float4 => Value::Float4(float_from_key(r.array()?) as f32),
        SqlType::Float8 => Value::Float8(float_from_key(r.array()?)),
        SqlType::Enum(def) => Value::Enum(def.value_at(float_from_key(r.array()?))?),
        SqlType::Bool => Value::Bool(r.byte()? != 0),
        SqlType::Uuid => Value::Uuid(r.array()?),
        SqlType::MacAddr => Value::MacAddr(r.array()?),
        SqlType::MacAddr8 => Value::MacAddr8(r.array()?),
        SqlType::Inet | SqlType::Cidr => {
            let family = r.byte()?;
            let len = crate::inet::Inet::key_len(family)
                .ok_or_else(|| corrupt(format!("inet family {family}")))?;
            let mut bytes = vec![family];
            for _ in 1..len {
                bytes.push(r.byte()?);
            }
            let a = crate::inet::Inet::from_key(&bytes)?;
            match ty {
                SqlType::Cidr => Value::Cidr(a),
                _ => Value::Inet(a),
            }
        }
        SqlType::Interval(_) => Value::Interval(crate::interval::Interval::from_span(
            (u128::from_be_bytes(r.array()?) ^ (1 << 127)) as i128,
        )?),
        SqlType::Text
        | SqlType::Varchar(_)
        | SqlType::Char(_)
        | SqlType::InternalChar
        | SqlType::Name
        | SqlType::Refcursor => Value::Text(
            String::from_utf8(r.unescaped()?).map_err(|_| corrupt("key text is not UTF-8"))?,
        ),
        SqlType::Bytea => Value::Bytea(r.unescaped()?),
        SqlType::Geo(_) => return Err(corrupt("a geometric value in an index key")),
        SqlType::Bit(_) | SqlType::VarBit(_) => {
            let bytes = r.unescaped()?;
            let len = u32::from_be_bytes(r.array()?) as usize;
            match (
                bytes.len() == len.div_ceil(8),
                BitString::from_bytes(len, &bytes),
            ) {
                (true, Some(b)) => Value::Bit(Box::new(b)),
                _ => return Err(corrupt("bit string key of the wrong length")),
            }
        }
        SqlType::TsVector => Value::TsVector(Box::new(crate::tsvector::TsVector::from_key(r)?)),
        SqlType::TsQuery => Value::TsQuery(Box::new(crate::tsquery::TsQuery::from_key(r)?)),
        SqlType::Array(element) => {
            let mut items = Vec::new();
            loop {
                match r.byte()? {
                    0x00 => break,
                    0x03 => items.push(Value::Null),
                    0x01 => items.push(key_value(r, *element)?),
                    m => return Err(corrupt(format!("array element marker {m:#04x}"))),
                }
            }
            let mut dims = Vec::new();
            if r.peek() == Some(SHAPE_MARKER) {
                r.byte()?;
                let ndims = usize::from(r.byte()?);
                let lens = (0..ndims)
                    .map(|_| Ok(u32::from_be_bytes(r.array()?)))
                    .collect::<Result<Vec<_>, RowError>>()?;
                for len in lens {
                    let lower = (u32::from_be_bytes(r.array()?) ^ 0x8000_0000) as i32;
                    dims.push(Dim { lower, len });
                }
            } else if !items.is_empty() {
                dims.push(Dim {
                    lower: 1,
                    len: items.len() as u32,
                });
            }
            let array =
                Array::new(dims, items).map_err(|e| corrupt(format!("an array's shape: {e}")))?;
            Value::Array(array)
        }
        // A composite value's fields as an array's elements are keyed.
        SqlType::Composite(def) => {
            let mut fields = Vec::with_capacity(def.fields.len());
            loop {
                let at = fields.len();
                match r.byte()? {
                    0x00 => break,
                    0x03 => fields.push(Value::Null),
                    0x01 if at < def.fields.len() => fields.push(key_value(r, def.fields[at].1)?),
                    m => return Err(corrupt(format!("composite field marker {m:#04x}"))),
                }
            }
            if fields.len() != def.fields.len() {
                return Err(corrupt("a composite key of another type's fields"));
            }
            Value::Record(fields)
        }
        SqlType::Record => return Err(corrupt("a record in an index key")),
        SqlType::Json | SqlType::Jsonb | SqlType::JsonPath => {
            return Err(corrupt("json in an index key"));
        }
        SqlType::Numeric(_) => {
            let sign = r.byte()?;
            match sign {
                0x02 => Value::Numeric(Numeric::from_i64(0)),
                0x04 => Value::Numeric(Numeric::NaN),
                0x01 | 0x03 => {
                    let negative = sign == 0x01;
                    let outer = r.invert;
                    r.invert = outer ^ negative;
                    let exponent = match (u16::from_be_bytes(r.array()?) ^ 0x8000) as i16 {
                        LONG_EXPONENT => i32::try_from(u32::from_be_bytes(r.array()?))
                            .map_err(|_| corrupt("a numeric key's exponent"))?,
                        e => i32::from(e),
                    };
                    let mut digits = Vec::new();
                    loop {
                        match r.byte()? {
                            0 => break,
                            d @ 1..=10 => digits.push(d - 1),
                            x => return Err(corrupt(format!("numeric digit byte {x}"))),
                        }
                    }
                    r.invert = outer;
                    Value::Numeric(match (exponent, digits.is_empty()) {
                        (e, true) if e == i32::from(INFINITY_EXPONENT) => {
                            Numeric::Infinity { negative }
                        }
                        _ => Numeric::from_digits(negative, exponent, &digits)?,
                    })
                }
                x => return Err(corrupt(format!("numeric sign byte {x}"))),
            }
        }
        SqlType::Range(kind) => Value::Range(Box::new(range_from_key(r, kind)?)),
        SqlType::Multirange(kind) => {
            let mut ranges = Vec::new();
            while r.byte()? == 0x01 {
                ranges.push(range_from_key(r, kind)?);
            }
            Value::Multirange(Box::new(Multirange::new(kind, ranges)?))
        }
    })
}

/// Reads a range's key (module table).
fn range_from_key(r: &mut KeyReader<'_>, kind: RangeKind) -> Result<Range, RowError> {
    if r.byte()? == 0x00 {
        return Ok(Range::empty(kind));
    }
    let element = kind.element();
    let lower = match r.byte()? {
        0x00 => Bound::INFINITE,
        _ => {
            let v = key_value(r, element)?;
            Bound::at(v, r.byte()? == 0x01)
        }
    };
    let upper = match r.byte()? {
        0x02 => Bound::INFINITE,
        _ => {
            let v = key_value(r, element)?;
            Bound::at(v, r.byte()? == 0x01)
        }
    };
    Ok(Range {
        kind,
        bounds: Some((lower, upper)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    // Proves range keys order as PostgreSQL's range_cmp (empty first,
    // then by lower bound, an inclusive lower before an exclusive one,
    // then by upper bound, an exclusive upper before an inclusive one,
    // infinities outside), ascending and descending, and decode back.
    #[test]
    fn range_keys_order_as_range_cmp_and_decode() {
        let num = |text: &str| Value::from_text(SqlType::Range(RangeKind::Num), text).unwrap();
        let ordered = [
            "empty", "(,0)", "(,1)", "(,1]", "[-1.5,2)", "[0,0]", "[0,1)", "[0,1]", "[0,)",
            "(0,1)", "(0,)", "[2.5,3)",
        ]
        .map(num);
        keys_order_as_values(&ordered, SqlType::Range(RangeKind::Num));
    }

    // Proves array keys order element by element, a NULL element after
    // every value and a prefix first (PostgreSQL's array_cmp), ascending
    // and descending, and decode back.
    #[test]
    fn array_keys_order_as_array_cmp_and_decode() {
        let ints = |text: &str| Value::from_text(SqlType::Array(&SqlType::Int4), text).unwrap();
        let ordered = [
            "{}", "{-5}", "{1}", "{1,2}", "{1,2,3}", "{1,2,10}", "{1,5,3}", "{1,NULL}", "{2}",
            "{NULL}", "{NULL,1}",
        ]
        .map(ints);
        keys_order_as_values(&ordered, SqlType::Array(&SqlType::Int4));
        let texts = |text: &str| Value::from_text(SqlType::Array(&SqlType::Text), text).unwrap();
        let ordered = ["{\"\"}", "{\"\",a}", "{a}", "{a,\"\"}", "{ab}", "{b}"].map(texts);
        keys_order_as_values(&ordered, SqlType::Array(&SqlType::Text));
    }

    // Proves arrays of several dimensions or other lower bounds key in
    // PostgreSQL's order among themselves and among plain arrays of
    // other elements, ascending and descending, and decode back with
    // their shape; a plain array and the shaped ones of its elements
    // have distinct keys (module table: their order is the exception).
    #[test]
    fn shaped_array_keys_order_and_decode() {
        let ints = |text: &str| Value::from_text(SqlType::Array(&SqlType::Int4), text).unwrap();
        let ordered = [
            "{1}",
            "[2:3]={1,2}",
            "{{1,2}}",
            "[0:1][1:1]={{1},{2}}",
            "{{1},{2}}",
            "{{1,2},{3,4}}",
            "{1,3}",
            "[0:0]={2}",
        ]
        .map(ints);
        keys_order_as_values(&ordered, SqlType::Array(&SqlType::Int4));
        let column = [KeyColumn::new(SqlType::Array(&SqlType::Int4), false)];
        let plain = encode_key(&[ints("{1,2}")], &column).unwrap();
        let lower0 = encode_key(&[ints("[0:1]={1,2}")], &column).unwrap();
        assert_ne!(plain, lower0);
    }

    /// Asserts `ordered` (ascending by `sql_cmp`) encodes as keys of type
    /// `ty` in that order (reversed for a descending column) and that every
    /// key decodes back to its value.
    fn keys_order_as_values(ordered: &[Value], ty: SqlType) {
        for descending in [false, true] {
            let column = [KeyColumn::new(ty, descending)];
            let keys: Vec<Vec<u8>> = ordered
                .iter()
                .map(|v| encode_key(std::slice::from_ref(v), &column).unwrap())
                .collect();
            for (i, pair) in keys.windows(2).enumerate() {
                let (a, b) = (&ordered[i], &ordered[i + 1]);
                assert_eq!(a.sql_cmp(b), Some(std::cmp::Ordering::Less), "{a:?} {b:?}");
                assert_eq!(pair[0] < pair[1], !descending, "{a:?} {b:?}");
            }
            for (key, v) in keys.iter().zip(ordered) {
                assert_eq!(decode_key(key, &column).unwrap(), std::slice::from_ref(v));
            }
        }
    }
    // Proves numeric keys order -Infinity below every number, Infinity
    // above every number and below NaN (PostgreSQL's order), numbers past
    // 38 digits and exponents past an i16's (the long exponent form) in
    // their places, ascending and
    // descending, that equal values (1.5, 1.50) encode equal, and that
    // every key decodes back to its value, the infinities included.
    #[test]
    fn numeric_keys_order_infinities_outside_the_numbers() {
        let num = |text: &str| Value::Numeric(Numeric::parse(text).unwrap());
        let ordered = [
            "-Infinity",
            "-1e131071",
            "-1e32766",
            "-1e32765",
            "-123456789012345678901234567890123456789012345678901234567890.5",
            "-99999999999999999999999999999999999999",
            "-9e37",
            "-1.5",
            "-1e-255",
            "-1e-16383",
            "0",
            "1e-16383",
            "1e-300",
            "1e-255",
            "1.5",
            "99999999999999999999999999999999999999",
            "100000000000000000000000000000000000001.000000000000000000000000000000000000000001",
            "1e32765",
            "1e32766",
            "1.5e32766",
            "1e32767",
            "1e131071",
            "Infinity",
            "NaN",
        ]
        .map(num);
        keys_order_as_values(&ordered, SqlType::Numeric(None));
        for descending in [false, true] {
            let column = [KeyColumn::new(SqlType::Numeric(None), descending)];
            let equal = |text| encode_key(&[num(text)], &column).unwrap();
            assert_eq!(equal("1.5"), equal("1.50"));
            assert_eq!(equal("inf"), equal("+Infinity"));
        }
    }

    // Proves a key past MAX_KEY_LEN is refused with PostgreSQL's error
    // for it: "index row requires N bytes" (N PostgreSQL's uncompressed
    // tuple size) when that tuple would pass 8191 bytes, else "index row
    // size".
    #[test]
    fn long_keys_are_refused_as_postgresql_refuses_them() {
        let column = [KeyColumn::new(SqlType::Numeric(None), false)];
        // Digits without repeats (PostgreSQL would compress a repetitive
        // number's tuple first): a 64-bit LCG's, checked against
        // PostgreSQL 15 at 30,000 digits.
        let num = |digits: usize| {
            let mut x = 1u64;
            let text: String = (0..digits)
                .map(|_| {
                    x = x
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    char::from(b'0' + ((x >> 33) % 10) as u8)
                })
                .collect();
            Value::Numeric(Numeric::parse(&text).unwrap())
        };
        assert!(encode_key(&[num(2_600)], &column).is_ok());
        assert!(matches!(
            encode_key(&[num(3_000)], &column),
            Err(RowError::KeyTooLong { .. })
        ));
        // 30,000 digits: 7,500 base-10000 digits, 15,008 bytes, in a
        // tuple of 15,016.
        let err = encode_key(&[num(30_000)], &column).unwrap_err();
        assert_eq!(
            err.to_string(),
            "index row requires 15016 bytes, maximum size is 8191"
        );
        assert_eq!(err.sqlstate(), "54000");
    }
}
