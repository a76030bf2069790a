//! The row format: how a row's values are stored in a heap tuple.
//!
//! | part | bytes |
//! |---|---|
//! | column count | u16 |
//! | flags | u8: bit 0 = has nulls |
//! | null bitmap | `ceil(count / 8)` bytes, only with nulls; bit `i` set = column `i` is null (PostgreSQL's `t_bits` is the opposite: set = not null) |
//! | values | the non-null ones in column order: fixed-width types little-endian (int2 2, int4/float4/date 4, int8/float8/timestamp[tz] 8, bool 1, uuid 16, numeric 18, a long numeric's payload after its 18: `Numeric::stored_len`); text, varchar, char, bytea, arrays, composite values, ranges and multiranges as a u32 length then the bytes (an array's or a composite value's: [`fields_payload`]; a range's: PostgreSQL's flags byte, then its finite bounds as their element type's values: [`range_payload`]; a multirange's: its range count (u32), then each range as a u32 length and its range payload: [`multirange_payload`]), or, stored out of line, the length with its top bit set ([`EXTERNAL`]) then the value's id (u64) and its length (u64); a long numeric stored out of line as an 18-byte head of flags 5 holding its id (u64) and length (u64) (`Numeric::external_head`; since session 59, rows written before never hold one) |
//!
//! What is stored out of line ([`value_payload`]) is a variable-length
//! value's bytes after its length word, or a long numeric's whole inline
//! form (head and payload). A short numeric, whose bytes are no longer
//! than a pointer, and the other fixed-width values are always inline, as
//! are the elements of arrays and the bounds of ranges.
//!
//! Decoding untrusted bytes never panics: every length is checked against
//! what is left, and nothing is allocated beyond the input's size.

use crate::array::{Array, Dim};
use crate::error::RowError;
use crate::multirange::Multirange;
use crate::numeric::Numeric;
use crate::range::{Bound, Range, RangeKind};
use crate::types::SqlType;
use crate::value::Value;

const HAS_NULLS: u8 = 1;

/// Top bit of a variable-length value's length: the value is stored out of
/// line (TOAST) and 16 bytes follow, its id and its length.
pub const EXTERNAL: u32 = 1 << 31;

/// A column as stored: its value, or a pointer to a value stored out of
/// line (a variable-length value or a long numeric too large for the row;
/// the relation keeps the chunks).
#[derive(Debug, Clone, PartialEq)]
pub enum Stored {
    Inline(Value),
    External { id: u64, len: u64 },
}

fn corrupt(reason: impl Into<String>) -> RowError {
    RowError::Corrupt(reason.into())
}

/// Encodes `values` (already fitted to `types`) as a row.
pub fn encode_row(values: &[Value], types: &[SqlType]) -> Result<Vec<u8>, RowError> {
    let cells: Vec<Stored> = values.iter().cloned().map(Stored::Inline).collect();
    encode_stored(&cells, types)
}

/// Encodes a row some of whose values are stored out of line.
pub fn encode_stored(cells: &[Stored], types: &[SqlType]) -> Result<Vec<u8>, RowError> {
    if cells.len() != types.len() {
        return Err(RowError::Arity {
            values: cells.len(),
            columns: types.len(),
        });
    }
    let has_nulls = cells.contains(&Stored::Inline(Value::Null));
    let mut out = Vec::with_capacity(3 + cells.len() * 8);
    out.extend_from_slice(&(cells.len() as u16).to_le_bytes());
    out.push(if has_nulls { HAS_NULLS } else { 0 });
    if has_nulls {
        let mut bitmap = vec![0u8; cells.len().div_ceil(8)];
        for (i, c) in cells.iter().enumerate() {
            if *c == Stored::Inline(Value::Null) {
                bitmap[i / 8] |= 1 << (i % 8);
            }
        }
        out.extend_from_slice(&bitmap);
    }
    for (cell, ty) in cells.iter().zip(types) {
        let v = match cell {
            Stored::Inline(v) => v,
            Stored::External { id, len } => {
                if let SqlType::Numeric(_) = ty {
                    out.extend_from_slice(&Numeric::external_head(*id, *len));
                    continue;
                }
                if ty.fixed_width().is_some() {
                    return Err(RowError::TypeMismatch {
                        value: "an out-of-line value".into(),
                        column: ty.name(),
                    });
                }
                out.extend_from_slice(&EXTERNAL.to_le_bytes());
                out.extend_from_slice(&id.to_le_bytes());
                out.extend_from_slice(&len.to_le_bytes());
                continue;
            }
        };
        put_value(&mut out, v, *ty)?;
    }
    Ok(out)
}

/// Appends value `v` of a column of type `ty` as stored inline.
fn put_value(out: &mut Vec<u8>, v: &Value, ty: SqlType) -> Result<(), RowError> {
    if !v.matches(ty) {
        return Err(RowError::TypeMismatch {
            value: v.type_name().into(),
            column: ty.name(),
        });
    }
    match v {
        Value::Null => {}
        Value::Int2(x) => out.extend_from_slice(&x.to_le_bytes()),
        Value::Int4(x) => out.extend_from_slice(&x.to_le_bytes()),
        Value::Oid(x) => out.extend_from_slice(&x.to_le_bytes()),
        Value::Reg(r) => out.extend_from_slice(&r.oid.to_le_bytes()),
        Value::Tid(block, offset) => {
            out.extend_from_slice(&block.to_le_bytes());
            out.extend_from_slice(&offset.to_le_bytes());
        }
        Value::Xid(x) | Value::PgLsn(x) | Value::Xid8(x) => out.extend_from_slice(&x.to_le_bytes()),
        Value::Money(x) => out.extend_from_slice(&x.to_le_bytes()),
        Value::Snapshot(s) => {
            let payload = s.send_bytes();
            out.extend_from_slice(&inline_len(payload.len())?.to_le_bytes());
            out.extend_from_slice(&payload);
        }
        Value::Int8(x) => out.extend_from_slice(&x.to_le_bytes()),
        Value::Float4(x) => out.extend_from_slice(&x.to_le_bytes()),
        Value::Float8(x) => out.extend_from_slice(&x.to_le_bytes()),
        // Its label's sort order (never changes: `enums.rs`).
        Value::Enum(e) => out.extend_from_slice(&e.sort().to_le_bytes()),
        Value::Numeric(n) => n.write_bytes(out),
        // jsonb as its text, which reads back as the same value.
        Value::Text(s) | Value::Json(s) => {
            out.extend_from_slice(&inline_len(s.len())?.to_le_bytes());
            out.extend_from_slice(s.as_bytes());
        }
        Value::Jsonb(j) => {
            let s = j.to_text();
            out.extend_from_slice(&inline_len(s.len())?.to_le_bytes());
            out.extend_from_slice(s.as_bytes());
        }
        // A path as text that reads back as the same path.
        Value::JsonPath(p) => {
            let s = crate::jsonpath_text::stored_text(p);
            out.extend_from_slice(&inline_len(s.len())?.to_le_bytes());
            out.extend_from_slice(s.as_bytes());
        }
        Value::Bytea(b) => {
            out.extend_from_slice(&inline_len(b.len())?.to_le_bytes());
            out.extend_from_slice(b);
        }
        Value::Bool(b) => out.push(*b as u8),
        Value::Date(d) => out.extend_from_slice(&d.to_le_bytes()),
        Value::Timestamp(t) | Value::TimestampTz(t) | Value::Time(t) => {
            out.extend_from_slice(&t.to_le_bytes())
        }
        Value::TimeTz(t) => {
            out.extend_from_slice(&t.time.to_le_bytes());
            out.extend_from_slice(&t.zone.to_le_bytes());
        }
        Value::Uuid(u) => out.extend_from_slice(u),
        Value::MacAddr(m) => out.extend_from_slice(m),
        Value::MacAddr8(m) => out.extend_from_slice(m),
        // Family, mask length, address (`inet.rs`), varying in length.
        Value::Inet(a) | Value::Cidr(a) => {
            let payload = a.to_stored();
            out.extend_from_slice(&inline_len(payload.len())?.to_le_bytes());
            out.extend_from_slice(&payload);
        }
        // PostgreSQL's layout: the time, then days, then months.
        Value::Interval(i) => {
            out.extend_from_slice(&i.micros.to_le_bytes());
            out.extend_from_slice(&i.days.to_le_bytes());
            out.extend_from_slice(&i.months.to_le_bytes());
        }
        Value::Array(items) => {
            let SqlType::Array(element) = ty else {
                unreachable!("matched above")
            };
            let payload = array_payload(items, *element)?;
            out.extend_from_slice(&inline_len(payload.len())?.to_le_bytes());
            out.extend_from_slice(&payload);
        }
        Value::Bit(b) => {
            out.extend_from_slice(&inline_len(b.row_len())?.to_le_bytes());
            b.write_row(out);
        }
        // The binary send form (`geometry.rs`).
        Value::Geo(g) => {
            let payload = g.to_bytes();
            out.extend_from_slice(&inline_len(payload.len())?.to_le_bytes());
            out.extend_from_slice(&payload);
        }
        Value::TsVector(v) => {
            out.extend_from_slice(&inline_len(v.row_len())?.to_le_bytes());
            v.write_row(out);
        }
        Value::TsQuery(q) => {
            let mut payload = Vec::new();
            q.write_row(&mut payload);
            out.extend_from_slice(&inline_len(payload.len())?.to_le_bytes());
            out.extend_from_slice(&payload);
        }
        Value::Range(r) => {
            let payload = range_payload(r)?;
            out.extend_from_slice(&inline_len(payload.len())?.to_le_bytes());
            out.extend_from_slice(&payload);
        }
        Value::Multirange(m) => {
            let payload = multirange_payload(m)?;
            out.extend_from_slice(&inline_len(payload.len())?.to_le_bytes());
            out.extend_from_slice(&payload);
        }
        Value::Record(fields) => {
            let SqlType::Composite(def) = ty else {
                return Err(RowError::TypeMismatch {
                    value: v.type_name().into(),
                    column: ty.name(),
                });
            };
            let payload = fields_payload(fields, |i| def.fields[i].1)?;
            out.extend_from_slice(&inline_len(payload.len())?.to_le_bytes());
            out.extend_from_slice(&payload);
        }
    }
    Ok(())
}

/// A range's flags (PostgreSQL's `RANGE_EMPTY`, `RANGE_LB_INC`,
/// `RANGE_UB_INC`, `RANGE_LB_INF`, `RANGE_UB_INF`): the stored form's and
/// the binary wire format's first byte.
pub mod range_flags {
    pub const EMPTY: u8 = 0x01;
    pub const LOWER_INCLUSIVE: u8 = 0x02;
    pub const UPPER_INCLUSIVE: u8 = 0x04;
    pub const LOWER_INFINITE: u8 = 0x08;
    pub const UPPER_INFINITE: u8 = 0x10;
}

/// A range's flags byte ([`range_flags`]).
pub fn range_flags_of(r: &Range) -> u8 {
    use range_flags::*;
    let Some((lower, upper)) = &r.bounds else {
        return EMPTY;
    };
    let mut flags = 0;
    for (bound, inclusive, infinite) in [
        (lower, LOWER_INCLUSIVE, LOWER_INFINITE),
        (upper, UPPER_INCLUSIVE, UPPER_INFINITE),
    ] {
        flags |= match (&bound.value, bound.inclusive) {
            (None, _) => infinite,
            (Some(_), true) => inclusive,
            (Some(_), false) => 0,
        };
    }
    flags
}

/// A range's stored bytes: its flags, then its finite bounds (lower
/// first) as a row stores values of its element type (all fixed width).
fn range_payload(r: &Range) -> Result<Vec<u8>, RowError> {
    let mut out = vec![range_flags_of(r)];
    if let Some((lower, upper)) = &r.bounds {
        for v in [&lower.value, &upper.value].into_iter().flatten() {
            put_value(&mut out, v, r.kind.element())?;
        }
    }
    Ok(out)
}

/// The range of `kind` stored as `b` ([`range_payload`]).
fn decode_range(b: &[u8], kind: RangeKind) -> Result<Value, RowError> {
    use range_flags::*;
    let (&flags, mut rest) = b
        .split_first()
        .ok_or_else(|| corrupt("a range without its flags"))?;
    if flags & EMPTY != 0 {
        return Ok(Value::Range(Box::new(Range::empty(kind))));
    }
    let element = kind.element();
    let mut bound = |infinite: u8, inclusive: u8| -> Result<Bound, RowError> {
        if flags & infinite != 0 {
            return Ok(Bound::INFINITE);
        }
        let width = stored_width(rest, element)?;
        if rest.len() < width {
            return Err(corrupt("a range bound cut short"));
        }
        let (bytes, tail) = rest.split_at(width);
        rest = tail;
        Ok(Bound::at(
            decode_value(Some(bytes), element)?,
            flags & inclusive != 0,
        ))
    };
    let lower = bound(LOWER_INFINITE, LOWER_INCLUSIVE)?;
    let upper = bound(UPPER_INFINITE, UPPER_INCLUSIVE)?;
    if !rest.is_empty() {
        return Err(corrupt("bytes after a range's bounds"));
    }
    Ok(Value::Range(Box::new(Range {
        kind,
        bounds: Some((lower, upper)),
    })))
}

/// A multirange's stored bytes: its range count (u32), then each range
/// as its payload's length (u32) and [`range_payload`].
fn multirange_payload(m: &Multirange) -> Result<Vec<u8>, RowError> {
    let mut out = inline_len(m.ranges().len())?.to_le_bytes().to_vec();
    for r in m.ranges() {
        let payload = range_payload(r)?;
        out.extend_from_slice(&inline_len(payload.len())?.to_le_bytes());
        out.extend_from_slice(&payload);
    }
    Ok(out)
}

/// The multirange of `kind` stored as `b` ([`multirange_payload`]).
fn decode_multirange(b: &[u8], kind: RangeKind) -> Result<Value, RowError> {
    let mut rest = b;
    let mut take = |n: usize| -> Result<&[u8], RowError> {
        if rest.len() < n {
            return Err(corrupt("a multirange cut short"));
        }
        let (head, tail) = rest.split_at(n);
        rest = tail;
        Ok(head)
    };
    let word = |bytes: &[u8]| u32::from_le_bytes(bytes.try_into().expect("4")) as usize;
    let count = word(take(4)?);
    let mut ranges = Vec::new();
    for _ in 0..count {
        let len = word(take(4)?);
        match decode_range(take(len)?, kind)? {
            Value::Range(r) => ranges.push(*r),
            _ => unreachable!("decode_range makes ranges"),
        }
    }
    if !rest.is_empty() {
        return Err(corrupt("bytes after a multirange's ranges"));
    }
    Ok(Value::Multirange(Box::new(Multirange::new(kind, ranges)?)))
}

/// An array's stored bytes (what its length word counts): the element
/// count (u32), a null bitmap of `ceil(count / 8)` bytes (bit set = NULL),
/// then the non-NULL elements as a row's values are stored. An array that
/// is neither empty nor one-dimensional of lower bound 1 (`Array::is_plain`)
/// starts with its shape: a u32 of [`SHAPED`] plus the number of
/// dimensions, then each dimension's lower bound (i32) and length (u32);
/// element counts stay far below [`SHAPED`], so plain arrays are stored
/// as before session 67.
fn array_payload(array: &Array, element: SqlType) -> Result<Vec<u8>, RowError> {
    if array.is_plain() {
        return fields_payload(array.items(), |_| element);
    }
    let dims = array.dims();
    let mut out = Vec::with_capacity(4 + dims.len() * 8);
    out.extend_from_slice(&(SHAPED | dims.len() as u32).to_le_bytes());
    for d in &dims {
        out.extend_from_slice(&d.lower.to_le_bytes());
        out.extend_from_slice(&d.len.to_le_bytes());
    }
    out.extend_from_slice(&fields_payload(array.items(), |_| element)?);
    Ok(out)
}

/// The top bit of an array's first word: its shape follows
/// ([`array_payload`]).
const SHAPED: u32 = 1 << 31;

/// The stored bytes of a list of values, value `i` of type `type_of(i)`:
/// an array's elements ([`array_payload`]), or a composite value's fields
/// (the same layout: the count, the null bitmap, the non-NULL fields).
fn fields_payload(
    items: &[Value],
    type_of: impl Fn(usize) -> SqlType,
) -> Result<Vec<u8>, RowError> {
    let count = u32::try_from(items.len())
        .map_err(|_| RowError::TooLong(format!("an array of {} elements", items.len())))?;
    let mut out = Vec::with_capacity(4 + items.len() * 9);
    out.extend_from_slice(&count.to_le_bytes());
    let mut bitmap = vec![0u8; items.len().div_ceil(8)];
    for (i, item) in items.iter().enumerate() {
        if *item == Value::Null {
            bitmap[i / 8] |= 1 << (i % 8);
        }
    }
    out.extend_from_slice(&bitmap);
    for (i, item) in items.iter().enumerate() {
        if *item != Value::Null {
            put_value(&mut out, item, type_of(i))?;
        }
    }
    Ok(out)
}

/// The array of `element`s stored as `b` ([`array_payload`]).
fn decode_array(b: &[u8], element: SqlType) -> Result<Value, RowError> {
    let Some(first) = b.get(..4) else {
        return Err(corrupt("an array shorter than its count"));
    };
    let first = u32::from_le_bytes(first.try_into().expect("4"));
    if first & SHAPED == 0 {
        return decode_fields(b, None, |_| element).map(|items| Value::Array(items.into()));
    }
    let ndims = (first & !SHAPED) as usize;
    if ndims > crate::array::MAX_DIMS || b.len() < 4 + ndims * 8 {
        return Err(corrupt("an array's shape cut short"));
    }
    let dims = (b[4..4 + ndims * 8].chunks_exact(8))
        .map(|d| Dim {
            lower: i32::from_le_bytes(d[..4].try_into().expect("4")),
            len: u32::from_le_bytes(d[4..].try_into().expect("4")),
        })
        .collect();
    let items = decode_fields(&b[4 + ndims * 8..], None, |_| element)?;
    let array = Array::new(dims, items).map_err(|e| corrupt(format!("an array's shape: {e}")))?;
    Ok(Value::Array(array))
}

/// The value of composite type `def` stored as `b` ([`fields_payload`]).
fn decode_composite(
    b: &[u8],
    def: &'static crate::composites::CompositeType,
) -> Result<Value, RowError> {
    let mut fields = decode_fields(b, Some(def.fields.len()), |i| def.fields[i].1)?;
    // A value stored before its type gained fields (a table's row type
    // after ADD COLUMN) reads them as NULL, as PostgreSQL's.
    fields.resize(def.fields.len(), Value::Null);
    Ok(Value::Record(fields))
}

/// The values stored as `b` ([`fields_payload`]), value `i` of type
/// `type_of(i)`; `fields`: the count they may have at most (a composite
/// type's), `None` for any (an array's).
fn decode_fields(
    b: &[u8],
    fields: Option<usize>,
    type_of: impl Fn(usize) -> SqlType,
) -> Result<Vec<Value>, RowError> {
    if b.len() < 4 {
        return Err(corrupt("an array shorter than its count"));
    }
    let count = u32::from_le_bytes(b[..4].try_into().expect("4")) as usize;
    let bitmap_len = count.div_ceil(8);
    // Each element takes a byte at least (NULLs a bit): a count larger
    // than the bytes is corrupt, and nothing is allocated for it.
    if b.len() - 4 < bitmap_len || count > (b.len() - 4) * 8 {
        return Err(corrupt("an array cut short in its null bitmap"));
    }
    if fields.is_some_and(|n| n < count) {
        return Err(corrupt(format!(
            "a composite value of {count} fields where its type has {}",
            fields.unwrap_or_default()
        )));
    }
    let (bitmap, rest) = b[4..].split_at(bitmap_len);
    // The elements are stored as a row's values are: read them by its
    // cursor.
    let mut elements = Cursor {
        rest,
        nulls: Some(bitmap),
        count,
    };
    let mut items = Vec::with_capacity(count.min(rest.len() + bitmap_len * 8));
    for i in 0..count {
        let element = type_of(i);
        items.push(match elements.next_raw(i, element)? {
            Raw::Null => Value::Null,
            Raw::Inline(b) => decode_value(Some(b), element)?,
            Raw::External { .. } => return Err(corrupt("an array element stored out of line")),
        });
    }
    if !elements.rest.is_empty() {
        return Err(corrupt("bytes after an array's elements"));
    }
    Ok(items)
}

/// The most bytes a stored row of `types` can take when all its values
/// are inline, if every type bounds its values: the header, a null
/// bitmap, the fixed-width values and the length-limited character types
/// (a length word and four bytes a character); `None` when some type
/// does not (text, bytea, arrays, numerics, whose long numbers grow).
pub fn max_inline_row_len(types: &[SqlType]) -> Option<usize> {
    let mut len = 3 + types.len().div_ceil(8);
    for ty in types {
        len += match *ty {
            SqlType::Numeric(_) => return None,
            SqlType::Char(0) => return None,
            SqlType::Char(n) | SqlType::Varchar(Some(n)) => 4 + 4 * n as usize,
            ty => ty.fixed_width()?,
        };
    }
    Some(len)
}

/// The bytes a value may be stored out of line as (what TOAST moves):
/// a variable-length value's bytes after its length word, a long
/// numeric's whole inline form; `None` for a value always inline (NULL,
/// a short numeric, the other fixed-width types).
pub fn value_payload(v: &Value, ty: SqlType) -> Result<Option<Vec<u8>>, RowError> {
    if let (Value::Numeric(n), SqlType::Numeric(_)) = (v, ty)
        && n.may_be_external()
    {
        let mut out = Vec::new();
        n.write_bytes(&mut out);
        return Ok(Some(out));
    }
    if ty.fixed_width().is_some() || *v == Value::Null {
        return Ok(None);
    }
    let mut out = Vec::new();
    put_value(&mut out, v, ty)?;
    Ok(Some(out.split_off(4)))
}

/// The value of type `ty` whose payload ([`value_payload`]) is `bytes`.
pub fn value_from_payload(bytes: &[u8], ty: SqlType) -> Result<Value, RowError> {
    decode_value(Some(bytes), ty)
}

/// The length word of an inline value (below the [`EXTERNAL`] bit).
fn inline_len(len: usize) -> Result<u32, RowError> {
    u32::try_from(len)
        .ok()
        .filter(|l| l & EXTERNAL == 0)
        .ok_or_else(|| RowError::TooLong(format!("an inline value of {len} bytes")))
}

/// The bytes a value of fixed-width type `ty` takes at the head of
/// `rest`: the type's width, or for a numeric what its head says (a long
/// number's payload follows it).
#[inline]
fn stored_width(rest: &[u8], ty: SqlType) -> Result<usize, RowError> {
    match ty {
        SqlType::Numeric(_) => Numeric::stored_len(rest),
        _ => Ok(ty.fixed_width().expect("a fixed-width type")),
    }
}

/// The bytes of one column as stored.
enum Raw<'a> {
    Null,
    Inline(&'a [u8]),
    External { id: u64, len: u64 },
}

/// A cursor over a row's values.
struct Cursor<'a> {
    rest: &'a [u8],
    nulls: Option<&'a [u8]>,
    /// Columns the row holds: fewer than the table's when columns were
    /// added after it was written (`ALTER TABLE ... ADD COLUMN`); those
    /// read as NULL, as PostgreSQL reads a tuple shorter than its
    /// descriptor.
    count: usize,
}

impl<'a> Cursor<'a> {
    #[inline]
    fn new(row: &'a [u8], types: &[SqlType]) -> Result<Cursor<'a>, RowError> {
        if row.len() < 3 {
            return Err(corrupt("a row shorter than its header"));
        }
        let count = u16::from_le_bytes([row[0], row[1]]) as usize;
        if count > types.len() {
            return Err(corrupt(format!(
                "a row of {count} columns, expected at most {}",
                types.len()
            )));
        }
        let (nulls, rest) = match row[2] {
            0 => (None, &row[3..]),
            HAS_NULLS => {
                let n = count.div_ceil(8);
                if row.len() < 3 + n {
                    return Err(corrupt("a row cut short in its null bitmap"));
                }
                (Some(&row[3..3 + n]), &row[3 + n..])
            }
            f => return Err(corrupt(format!("row flags {f}"))),
        };
        Ok(Cursor { rest, nulls, count })
    }

    #[inline]
    fn take(&mut self, n: usize) -> Result<&'a [u8], RowError> {
        if self.rest.len() < n {
            return Err(corrupt("a row cut short in its values"));
        }
        let (head, tail) = self.rest.split_at(n);
        self.rest = tail;
        Ok(head)
    }

    #[inline]
    fn is_null(&self, i: usize) -> bool {
        self.nulls.is_some_and(|b| b[i / 8] & (1 << (i % 8)) != 0)
    }

    /// Column `i` as stored, advancing past it.
    #[inline]
    fn next_raw(&mut self, i: usize, ty: SqlType) -> Result<Raw<'a>, RowError> {
        if i >= self.count || self.is_null(i) {
            return Ok(Raw::Null);
        }
        let len = match ty.fixed_width() {
            Some(_) => {
                if let SqlType::Numeric(_) = ty
                    && let Some((id, len)) = Numeric::external_of(self.rest)
                {
                    self.take(crate::numeric::NUMERIC_BYTES)?;
                    return Ok(Raw::External { id, len });
                }
                stored_width(self.rest, ty)?
            }
            None => {
                let word = u32::from_le_bytes(self.take(4)?.try_into().expect("4"));
                if word & EXTERNAL != 0 {
                    let b = self.take(16)?;
                    return Ok(Raw::External {
                        id: u64::from_le_bytes(b[..8].try_into().expect("8")),
                        len: u64::from_le_bytes(b[8..].try_into().expect("8")),
                    });
                }
                word as usize
            }
        };
        self.take(len).map(Raw::Inline)
    }
}

#[inline]
fn stored(raw: Raw<'_>, ty: SqlType) -> Result<Stored, RowError> {
    Ok(match raw {
        Raw::Null => Stored::Inline(Value::Null),
        Raw::Inline(b) => Stored::Inline(decode_value(Some(b), ty)?),
        Raw::External { id, len } => Stored::External { id, len },
    })
}

fn inline(cell: Stored) -> Result<Value, RowError> {
    match cell {
        Stored::Inline(v) => Ok(v),
        Stored::External { .. } => Err(corrupt(
            "a value stored out of line: decode it through its relation",
        )),
    }
}

fn decode_value(bytes: Option<&[u8]>, ty: SqlType) -> Result<Value, RowError> {
    let Some(b) = bytes else {
        return Ok(Value::Null);
    };
    let a = |n: usize| -> [u8; 16] {
        let mut out = [0u8; 16];
        out[..n].copy_from_slice(&b[..n]);
        out
    };
    Ok(match ty {
        SqlType::Int2 => Value::Int2(i16::from_le_bytes(b[..2].try_into().expect("2"))),
        SqlType::Int4 => Value::Int4(i32::from_le_bytes(b[..4].try_into().expect("4"))),
        SqlType::Int8 => Value::Int8(i64::from_le_bytes(b[..8].try_into().expect("8"))),
        SqlType::Float4 => Value::Float4(f32::from_le_bytes(a(4)[..4].try_into().expect("4"))),
        SqlType::Float8 => Value::Float8(f64::from_le_bytes(a(8)[..8].try_into().expect("8"))),
        SqlType::Numeric(_) => Value::Numeric(Numeric::from_bytes(b)?),
        SqlType::Oid => Value::Oid(u32::from_le_bytes(a(4)[..4].try_into().expect("4"))),
        SqlType::Reg(kind) => Value::Reg(Box::new(crate::reg::RegValue::unnamed(
            kind,
            u32::from_le_bytes(a(4)[..4].try_into().expect("4")),
        ))),
        SqlType::Tid => {
            let b = a(6);
            Value::Tid(
                u32::from_le_bytes(b[..4].try_into().expect("4")),
                u16::from_le_bytes(b[4..6].try_into().expect("2")),
            )
        }
        SqlType::Xid => Value::Xid(u64::from_le_bytes(a(8)[..8].try_into().expect("8"))),
        SqlType::PgLsn => Value::PgLsn(u64::from_le_bytes(a(8)[..8].try_into().expect("8"))),
        SqlType::Xid8 => Value::Xid8(u64::from_le_bytes(a(8)[..8].try_into().expect("8"))),
        SqlType::Money => Value::Money(i64::from_le_bytes(a(8)[..8].try_into().expect("8"))),
        SqlType::PgSnapshot | SqlType::TxidSnapshot => Value::Snapshot(Box::new(
            crate::xid_snapshot::XidSnapshot::from_send_bytes(b, ty == SqlType::TxidSnapshot)
                .ok_or_else(|| corrupt("snapshot"))?,
        )),
        SqlType::Text
        | SqlType::Varchar(_)
        | SqlType::Char(_)
        | SqlType::InternalChar
        | SqlType::Name
        | SqlType::Refcursor => Value::Text(
            String::from_utf8(b.to_vec()).map_err(|_| corrupt("text that is not UTF-8"))?,
        ),
        SqlType::Bytea => Value::Bytea(b.to_vec()),
        SqlType::Bit(_) | SqlType::VarBit(_) => Value::Bit(Box::new(
            crate::bits::BitString::read_row(b).ok_or_else(|| corrupt("bit string"))?,
        )),
        SqlType::Geo(kind) => Value::Geo(Box::new(
            crate::geometry::Geometry::from_bytes(kind, b)
                .ok_or_else(|| corrupt(format!("{} value", kind.name())))?,
        )),
        SqlType::TsVector => Value::TsVector(Box::new(
            crate::tsvector::TsVector::read_row(b).ok_or_else(|| corrupt("tsvector"))?,
        )),
        SqlType::TsQuery => Value::TsQuery(Box::new(
            crate::tsquery::TsQuery::read_row(b).ok_or_else(|| corrupt("tsquery"))?,
        )),
        SqlType::Bool => match b[0] {
            0 => Value::Bool(false),
            1 => Value::Bool(true),
            x => return Err(corrupt(format!("bool byte {x}"))),
        },
        SqlType::Date => Value::Date(i32::from_le_bytes(a(4)[..4].try_into().expect("4"))),
        SqlType::Timestamp(_) => {
            Value::Timestamp(i64::from_le_bytes(a(8)[..8].try_into().expect("8")))
        }
        SqlType::TimestampTz(_) => {
            Value::TimestampTz(i64::from_le_bytes(a(8)[..8].try_into().expect("8")))
        }
        SqlType::Time(_) => Value::Time(i64::from_le_bytes(a(8)[..8].try_into().expect("8"))),
        SqlType::TimeTz(_) => {
            let b = a(12);
            Value::TimeTz(crate::TimeTz {
                time: i64::from_le_bytes(b[..8].try_into().expect("8")),
                zone: i32::from_le_bytes(b[8..12].try_into().expect("4")),
            })
        }
        SqlType::Uuid => Value::Uuid(a(16)),
        SqlType::MacAddr => Value::MacAddr(a(6)[..6].try_into().expect("6")),
        SqlType::MacAddr8 => Value::MacAddr8(a(8)[..8].try_into().expect("8")),
        SqlType::Inet => Value::Inet(crate::inet::Inet::from_stored(b)?),
        SqlType::Cidr => Value::Cidr(crate::inet::Inet::from_stored(b)?),
        SqlType::Interval(_) => {
            let b = a(16);
            Value::Interval(crate::interval::Interval::new(
                i32::from_le_bytes(b[12..16].try_into().expect("4")),
                i32::from_le_bytes(b[8..12].try_into().expect("4")),
                i64::from_le_bytes(b[..8].try_into().expect("8")),
            ))
        }
        SqlType::Enum(def) => {
            Value::Enum(def.value_at(f64::from_le_bytes(a(8)[..8].try_into().expect("8")))?)
        }
        SqlType::Array(element) => decode_array(b, *element)?,
        SqlType::Range(kind) => decode_range(b, kind)?,
        SqlType::Multirange(kind) => decode_multirange(b, kind)?,
        SqlType::Composite(def) => decode_composite(b, def)?,
        SqlType::Record => return Err(corrupt("a record in a stored row")),
        SqlType::Json | SqlType::Jsonb | SqlType::JsonPath => {
            let text =
                std::str::from_utf8(b).map_err(|_| corrupt("json text that is not UTF-8"))?;
            Value::from_text(ty, text).map_err(|_| corrupt("stored json text that is not JSON"))?
        }
    })
}

/// Decodes a row of `types` whose values are all inline.
pub fn decode_row(row: &[u8], types: &[SqlType]) -> Result<Vec<Value>, RowError> {
    decode_stored(row, types)?.into_iter().map(inline).collect()
}

/// Decodes a row of `types`, out-of-line values as their pointers.
pub fn decode_stored(row: &[u8], types: &[SqlType]) -> Result<Vec<Stored>, RowError> {
    let mut cursor = Cursor::new(row, types)?;
    let mut out = Vec::with_capacity(types.len());
    for (i, ty) in types.iter().enumerate() {
        let raw = cursor.next_raw(i, *ty)?;
        out.push(stored(raw, *ty)?);
    }
    if !cursor.rest.is_empty() {
        return Err(corrupt(format!(
            "{} bytes after the row's values",
            cursor.rest.len()
        )));
    }
    Ok(out)
}

/// Calls `put(i, cell)` with each column `i` of a row of `types` that
/// `wanted` marks (one flag per column), a NULL as `Stored::Inline(Null)`,
/// out-of-line values as their pointers; the values after the last one
/// marked are not looked at: a scan decoding only the columns its query
/// reads, into one row for all of them (every marked column is written).
pub fn decode_marked<E: From<RowError>>(
    row: &[u8],
    types: &[SqlType],
    wanted: &[bool],
    mut put: impl FnMut(usize, Stored) -> Result<(), E>,
) -> Result<(), E> {
    if wanted.len() != types.len() {
        return Err(corrupt(format!(
            "{} columns marked of {}",
            wanted.len(),
            types.len()
        ))
        .into());
    }
    let end = wanted.iter().rposition(|&w| w).map_or(0, |last| last + 1);
    let mut cursor = Cursor::new(row, types)?;
    for (i, ty) in types.iter().enumerate().take(end) {
        let raw = cursor.next_raw(i, *ty)?;
        if wanted[i] {
            put(i, stored(raw, *ty)?)?;
        }
    }
    Ok(())
}

/// Decodes columns `wanted` (in that order) of a row of `types`, skipping
/// the others by their lengths, out-of-line values as their pointers: an
/// index build's key columns, without the rest of the row's values.
pub fn decode_stored_columns(
    row: &[u8],
    types: &[SqlType],
    wanted: &[u16],
) -> Result<Vec<Stored>, RowError> {
    let last = wanted.iter().map(|&c| c as usize).max().unwrap_or(0);
    if last >= types.len() {
        return Err(corrupt(format!("column {last} of {}", types.len())));
    }
    let mut cursor = Cursor::new(row, types)?;
    let mut found: Vec<Option<Stored>> = vec![None; last + 1];
    for (i, ty) in types.iter().enumerate().take(last + 1) {
        let raw = cursor.next_raw(i, *ty)?;
        if wanted.contains(&(i as u16)) {
            found[i] = Some(stored(raw, *ty)?);
        }
    }
    Ok(wanted
        .iter()
        .map(|&c| found[c as usize].clone().expect("decoded above"))
        .collect())
}

/// Decodes column `index` of a row of `types` alone (skipping the others
/// by their lengths).
pub fn decode_column(row: &[u8], types: &[SqlType], index: usize) -> Result<Value, RowError> {
    if index >= types.len() {
        return Err(corrupt(format!("column {index} of {}", types.len())));
    }
    let mut cursor = Cursor::new(row, types)?;
    for (i, ty) in types.iter().enumerate().take(index) {
        cursor.next_raw(i, *ty)?;
    }
    let raw = cursor.next_raw(index, types[index])?;
    inline(stored(raw, types[index])?)
}

/// One column of a stored row, its bytes borrowed from the row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ColumnBytes<'a> {
    Null,
    /// The value's bytes as stored: UTF-8 for text types, the bytes of a
    /// bytea, the little-endian integer of the fixed-width types.
    Inline(&'a [u8]),
    /// Stored out of line (its relation fetches it).
    External,
}

/// The bytes of column `index` of a row of `types`, borrowed: no
/// allocation (what a reader lent a row from the page uses).
pub fn column_bytes<'a>(
    row: &'a [u8],
    types: &[SqlType],
    index: usize,
) -> Result<ColumnBytes<'a>, RowError> {
    if index >= types.len() {
        return Err(corrupt(format!("column {index} of {}", types.len())));
    }
    let mut cursor = Cursor::new(row, types)?;
    for (i, ty) in types.iter().enumerate().take(index) {
        cursor.next_raw(i, *ty)?;
    }
    Ok(match cursor.next_raw(index, types[index])? {
        Raw::Null => ColumnBytes::Null,
        Raw::Inline(b) => ColumnBytes::Inline(b),
        Raw::External { .. } => ColumnBytes::External,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    // Proves a composite value stored before its type gained fields (a
    // table's row type after ADD COLUMN) reads them as NULL, and one with
    // more fields than its type is corrupt.
    #[test]
    fn composite_values_read_added_fields_as_null() {
        let def = |fields: &[&str]| {
            crate::composites::CompositeType::intern(crate::composites::CompositeType {
                oid: 70_001,
                array_oid: 0,
                name: "pair".into(),
                fields: (fields.iter())
                    .map(|f| (f.to_string(), SqlType::Int4))
                    .collect(),
            })
        };
        let (two, three) = (def(&["a", "b"]), def(&["a", "b", "c"]));
        let value = Value::Record(vec![Value::Int4(1), Value::Int4(2)]);
        let row = encode_row(std::slice::from_ref(&value), &[SqlType::Composite(two)]).unwrap();
        assert_eq!(
            decode_row(&row, &[SqlType::Composite(three)]).unwrap(),
            vec![Value::Record(vec![
                Value::Int4(1),
                Value::Int4(2),
                Value::Null
            ])]
        );
        let one = def(&["a"]);
        assert!(decode_row(&row, &[SqlType::Composite(one)]).is_err());
    }

    // Proves a row written before columns were added reads them as NULL
    // (every decoder), and a row with more columns than the table is
    // corrupt.
    // Proves a row of bounded types never encodes longer than their
    // bound, with or without nulls and with four-byte characters, and
    // that unbounded types have none.
    #[test]
    fn bounded_rows_fit_their_inline_bound() {
        let types = [
            SqlType::Int4,
            SqlType::Char(3),
            SqlType::Varchar(Some(2)),
            SqlType::Timestamp(None),
        ];
        let bound = max_inline_row_len(&types).unwrap();
        let wide = |n: usize| Value::Text("\u{1D11E}".repeat(n));
        for values in [
            [Value::Int4(1), wide(3), wide(2), Value::Timestamp(0)],
            [Value::Null, wide(3), Value::Null, Value::Timestamp(0)],
        ] {
            let row = encode_row(&values, &types).unwrap();
            assert!(row.len() <= bound, "{} > {bound}", row.len());
        }
        for unbounded in [
            SqlType::Text,
            SqlType::Varchar(None),
            SqlType::Numeric(None),
        ] {
            assert_eq!(max_inline_row_len(&[SqlType::Int4, unbounded]), None);
        }
    }

    #[test]
    fn a_row_shorter_than_its_table_reads_added_columns_as_null() {
        let old = [SqlType::Int4, SqlType::Text];
        let row = encode_row(&[Value::Int4(7), Value::Text("x".into())], &old).unwrap();
        let now = [SqlType::Int4, SqlType::Text, SqlType::Int8, SqlType::Text];
        let cells = decode_stored(&row, &now).unwrap();
        assert_eq!(
            cells,
            [
                Stored::Inline(Value::Int4(7)),
                Stored::Inline(Value::Text("x".into())),
                Stored::Inline(Value::Null),
                Stored::Inline(Value::Null),
            ]
        );
        assert_eq!(decode_column(&row, &now, 2).unwrap(), Value::Null);
        assert!(matches!(column_bytes(&row, &now, 3), Ok(ColumnBytes::Null)));
        assert!(decode_stored(&row, &now[..1]).is_err());
    }

    // Proves a marked decode gives the marked columns' values (pointers
    // for out-of-line ones, NULL as a value), reads nothing past the last
    // marked column, and refuses a mark list of the wrong length.
    #[test]
    fn a_marked_decode_reads_only_the_marked_columns() {
        let types = [SqlType::Int4, SqlType::Text, SqlType::Int8, SqlType::Text];
        let values = [
            Value::Int4(7),
            Value::Text("skipped".into()),
            Value::Null,
            Value::Text("last".into()),
        ];
        let row = encode_row(&values, &types).unwrap();
        let marked = |row: &[u8], wanted: &[bool]| {
            let mut out = Vec::new();
            decode_marked(row, &types, wanted, |i, cell| {
                out.push((i, cell));
                Ok::<_, RowError>(())
            })
            .map(|()| out)
        };
        assert_eq!(
            marked(&row, &[true, false, true, true]).unwrap(),
            [
                (0, Stored::Inline(Value::Int4(7))),
                (2, Stored::Inline(Value::Null)),
                (3, Stored::Inline(Value::Text("last".into()))),
            ]
        );
        // Only the first column: the rest of the row is not even parsed
        // (cut it after the first value: header, null bitmap, 4 bytes).
        assert_eq!(
            marked(&row[..8], &[true, false, false, false]).unwrap(),
            [(0, Stored::Inline(Value::Int4(7)))]
        );
        assert!(marked(&row[..8], &[false, true, false, false]).is_err());
        assert!(marked(&row, &[true]).is_err());
    }

    // Proves a row with a value stored out of line round-trips as its
    // pointer, plain decoding refuses it (it needs the relation), and the
    // other columns still decode one by one.
    // Proves arrays round-trip with NULL elements, empty, of fixed- and
    // variable-length elements, as values and as payloads (TOAST's), and
    // that a cut or inflated array is an error, not a panic or a huge
    // allocation.
    #[test]
    fn arrays_round_trip_and_bad_bytes_are_errors() {
        let texts = SqlType::Text.array_of().unwrap();
        let ints = SqlType::Int4.array_of().unwrap();
        let types = [ints, texts, texts, ints];
        let shaped = Array::new(
            vec![Dim { lower: 0, len: 2 }, Dim { lower: -5, len: 2 }],
            vec![Value::Int4(1), Value::Null, Value::Int4(3), Value::Int4(4)],
        )
        .unwrap();
        let values = [
            Value::Array(vec![Value::Int4(1), Value::Null, Value::Int4(-3)].into()),
            Value::Array(
                vec![
                    Value::Text("a".into()),
                    Value::Null,
                    Value::Text("é c".into()),
                ]
                .into(),
            ),
            Value::Array(Array::default()),
            Value::Array(shaped),
        ];
        let row = encode_row(&values, &types).unwrap();
        assert_eq!(decode_row(&row, &types).unwrap(), values);
        for (v, ty) in values.iter().zip(types) {
            let payload = value_payload(v, ty).unwrap().unwrap();
            assert_eq!(value_from_payload(&payload, ty).unwrap(), *v);
        }
        assert_eq!(value_payload(&Value::Int4(1), SqlType::Int4).unwrap(), None);
        // A mismatched element type is refused.
        let wrong = [Value::Array(vec![Value::Text("x".into())].into())];
        assert!(encode_row(&wrong, &[ints]).is_err());
        // Every cut of the first array's payload, and a huge count.
        let payload = value_payload(&values[0], ints).unwrap().unwrap();
        for n in 0..payload.len() {
            assert!(value_from_payload(&payload[..n], ints).is_err(), "{n}");
        }
        let mut huge = payload.clone();
        huge[..4].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(value_from_payload(&huge, ints).is_err());
        // Every cut of the shaped array's payload, and a shape whose
        // lengths do not multiply to the count.
        let payload = value_payload(&values[3], ints).unwrap().unwrap();
        for n in 0..payload.len() {
            assert!(value_from_payload(&payload[..n], ints).is_err(), "{n}");
        }
        let mut wrong_shape = payload.clone();
        wrong_shape[8..12].copy_from_slice(&3u32.to_le_bytes());
        assert!(value_from_payload(&wrong_shape, ints).is_err());
    }

    // Proves a long numeric may be stored out of line: its payload is its
    // whole inline form and reads back exactly; its pointer is an 18-byte
    // head that every decoder reads as a pointer (and skips, to the
    // columns after it); a short numeric is never moved (its bytes are no
    // longer than a pointer); an array element or range bound that claims
    // to be a pointer is corrupt.
    #[test]
    fn long_numerics_go_out_of_line_as_pointers() {
        let num = SqlType::Numeric(None);
        let long = Value::Numeric(Numeric::parse(&format!("-{}.5", "7".repeat(30_000))).unwrap());
        let payload = value_payload(&long, num).unwrap().unwrap();
        assert_eq!(value_from_payload(&payload, num).unwrap(), long);
        let mut inline = Vec::new();
        put_value(&mut inline, &long, num).unwrap();
        assert_eq!(payload, inline, "the payload is the inline form");
        for short in [
            "1.50",
            "NaN",
            "-Infinity",
            "12345678901234567890123456789012345678",
        ] {
            let v = Value::Numeric(Numeric::parse(short).unwrap());
            assert_eq!(value_payload(&v, num).unwrap(), None, "{short}");
        }
        assert_eq!(value_payload(&Value::Null, num).unwrap(), None);
        let types = [num, SqlType::Text, num, SqlType::Int4];
        let pointer = Stored::External {
            id: 9,
            len: payload.len() as u64,
        };
        let cells = vec![
            pointer.clone(),
            Stored::Inline(Value::Text("after".into())),
            Stored::Inline(Value::Numeric(Numeric::parse("2.5").unwrap())),
            Stored::Inline(Value::Int4(3)),
        ];
        let row = encode_stored(&cells, &types).unwrap();
        assert_eq!(
            row.len(),
            3 + 18 + 4 + 5 + 18 + 4,
            "a pointer takes 18 bytes"
        );
        assert_eq!(decode_stored(&row, &types).unwrap(), cells);
        assert!(decode_row(&row, &types).is_err());
        assert!(decode_column(&row, &types, 0).is_err());
        assert_eq!(decode_column(&row, &types, 3).unwrap(), Value::Int4(3));
        assert_eq!(
            column_bytes(&row, &types, 0).unwrap(),
            ColumnBytes::External
        );
        assert_eq!(
            decode_stored_columns(&row, &types, &[2, 0]).unwrap(),
            [cells[2].clone(), pointer.clone()]
        );
        let mut marked = Vec::new();
        decode_marked(&row, &types, &[true, false, false, true], |i, cell| {
            marked.push((i, cell));
            Ok::<_, RowError>(())
        })
        .unwrap();
        assert_eq!(marked, [(0, pointer), (3, cells[3].clone())]);
        // Cut pointers are errors, not panics.
        for n in 3..row.len() {
            assert!(decode_stored(&row[..n], &types).is_err(), "{n}");
        }
        // A pointer where only inline values may be: an array element, a
        // range bound.
        let head = Numeric::external_head(1, 40);
        let mut array = 1u32.to_le_bytes().to_vec();
        array.push(0);
        array.extend_from_slice(&head);
        assert!(value_from_payload(&array, SqlType::Array(&SqlType::Numeric(None))).is_err());
        let mut range = vec![range_flags::UPPER_INFINITE];
        range.extend_from_slice(&head);
        assert!(value_from_payload(&range, SqlType::Range(RangeKind::Num)).is_err());
        assert!(value_from_payload(&head, num).is_err());
    }

    #[test]
    fn out_of_line_values_are_pointers_in_the_row() {
        let types = [SqlType::Int4, SqlType::Text, SqlType::Bytea];
        let cells = vec![
            Stored::Inline(Value::Int4(7)),
            Stored::External {
                id: 42,
                len: 1 << 20,
            },
            Stored::Inline(Value::Null),
        ];
        let row = encode_stored(&cells, &types).unwrap();
        assert_eq!(decode_stored(&row, &types).unwrap(), cells);
        assert!(decode_row(&row, &types).is_err());
        assert_eq!(decode_column(&row, &types, 0).unwrap(), Value::Int4(7));
        assert_eq!(decode_column(&row, &types, 2).unwrap(), Value::Null);
        assert_eq!(
            decode_stored_columns(&row, &types, &[1, 0]).unwrap(),
            [cells[1].clone(), cells[0].clone()],
            "chosen columns, in the order asked"
        );
        assert!(decode_stored_columns(&row, &types, &[3]).is_err());
        let bad = [Stored::External { id: 1, len: 1 }];
        assert!(
            encode_stored(&bad, &[SqlType::Int8]).is_err(),
            "fixed-width types are never out of line"
        );
    }
}
