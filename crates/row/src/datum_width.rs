//! The bytes a value takes as PostgreSQL keeps it, and the average width
//! PostgreSQL's planner assumes for a type: the two inputs of a plan's
//! `width=` (ANALYZE's average of the first, `stawidth`; the second,
//! `get_typavgwidth`, where there are no statistics), and of
//! `pg_column_size`.
//!
//! Fixed-width types are their width (`smallint` 2, `integer`, `real`,
//! `date`, `oid` and an enum 4, `bigint`, `double precision`,
//! `timestamp`, `timestamptz` and `time` 8, `timetz` 12, `uuid` and
//! `interval` 16, `boolean` and `"char"` 1, `tid` 6). A variable-length
//! value (`text`, `varchar`, `char(n)` with its padding, `bytea`, `json`,
//! `numeric`) is its data and a length header: PostgreSQL keeps a value
//! read from a table with a 1-byte header when it is short (data under
//! 127 bytes) and one computed in a query with a 4-byte header
//! (`stored`). A numeric's data is PostgreSQL's packed form: a 2-byte
//! header (4 when its scale passes 63 or its base-10000 weight leaves
//! -64..63) and 2 bytes per base-10000 digit, leading and trailing zero
//! digits dropped.

use crate::{Numeric, SqlType, Value};

/// The largest data a 1-byte length header takes (PostgreSQL's
/// `VARATT_SHORT_MAX` less the header).
const SHORT_DATA_MAX: usize = 126;
/// PostgreSQL's length header of a variable-length value.
const VARHDRSZ: u32 = 4;
/// The most bytes a character takes in UTF-8 (`pg_encoding_max_length`).
const MAX_CHAR_BYTES: u32 = 4;
/// PostgreSQL's guess at a variable-length value's width (its
/// `get_typavgwidth`'s fallback).
const VARLENA_GUESS: u32 = 32;

/// A variable-length value's bytes: `data` and its header.
fn varlena(data: usize, stored: bool) -> usize {
    match stored && data <= SHORT_DATA_MAX {
        true => data + 1,
        false => data + 4,
    }
}

/// A numeric's data in PostgreSQL's packed form.
fn numeric_data(n: &Numeric) -> usize {
    let Some(scale) = n.scale() else {
        return 2; // NaN, ±Infinity: the short header alone.
    };
    let (weight, digits) = n.base10000().unwrap_or((0, Vec::new()));
    let short = scale <= 63 && (-64..=63).contains(&weight);
    (if short { 2 } else { 4 }) + 2 * digits.len()
}

/// The bytes `value` takes in PostgreSQL (`stored`: as read from a
/// table); `None` for NULL and for the types not sized here (`jsonb`,
/// arrays, records, ranges, `xid`).
pub fn stored_size(value: &Value, stored: bool) -> Option<usize> {
    Some(match value {
        Value::Bool(_) => 1,
        Value::Int2(_) => 2,
        Value::Int4(_)
        | Value::Float4(_)
        | Value::Date(_)
        | Value::Oid(_)
        | Value::Reg(_)
        | Value::Enum(_) => 4,
        Value::Tid(..) | Value::MacAddr(_) => 6,
        Value::MacAddr8(_) => 8,
        // A varlena of family, mask length and address.
        Value::Inet(a) | Value::Cidr(a) => varlena(2 + a.bytes().len(), stored),
        Value::Int8(_)
        | Value::Float8(_)
        | Value::Timestamp(_)
        | Value::TimestampTz(_)
        | Value::Time(_)
        | Value::PgLsn(_)
        | Value::Money(_)
        | Value::Xid8(_) => 8,
        // A varlena of PostgreSQL's pg_snapshot: count, xmin, xmax, ids.
        Value::Snapshot(s) => varlena(20 + 8 * s.xip.len(), stored),
        Value::TimeTz(_) => 12,
        Value::Uuid(_) | Value::Interval(_) => 16,
        Value::Text(t) | Value::Json(t) => varlena(t.len(), stored),
        Value::Bytea(b) => varlena(b.len(), stored),
        // The bit length (4 bytes), then the bits.
        Value::Bit(b) => varlena(4 + b.bytes().len(), stored),
        // PostgreSQL's in-memory forms: fixed float8s, or a varlena of
        // a header and the points (a polygon's with its bounding box).
        Value::Geo(g) => match g.as_ref() {
            crate::geometry::Geometry::Path(p) => varlena(4 + 4 + 4 + 16 * p.points.len(), stored),
            crate::geometry::Geometry::Polygon(p) => varlena(4 + 32 + 16 * p.points.len(), stored),
            g => g.kind().fixed_len().unwrap_or(0),
        },
        Value::Numeric(n) => varlena(numeric_data(n), stored),
        _ => return None,
    })
}

/// The bytes PostgreSQL's index tuple of key `values` takes, uncompressed
/// (`index_form_tuple`): an 8-byte header (16 with a null bitmap), each
/// non-NULL value aligned as its type is (a variable-length value with a
/// 1-byte header not at all), the whole rounded up to 8. `None` when a
/// value is of a type not sized here. What PostgreSQL compares with its
/// largest index tuple (`INDEX_SIZE_MASK`, 8191) before a B-tree's own
/// limit.
pub fn index_row_size(values: &[Value]) -> Option<usize> {
    let max_align = |n: usize| n.next_multiple_of(8);
    let header = match values.contains(&Value::Null) {
        true => max_align(8 + 4),
        false => 8,
    };
    let mut data = 0usize;
    for v in values.iter().filter(|v| **v != Value::Null) {
        let size = stored_size(v, true)?;
        let align = match v {
            Value::Int2(_) | Value::Tid(..) => 2,
            Value::Int8(_)
            | Value::Float8(_)
            | Value::Timestamp(_)
            | Value::TimestampTz(_)
            | Value::Time(_)
            | Value::TimeTz(_)
            | Value::Interval(_)
            | Value::PgLsn(_)
            | Value::Money(_)
            | Value::Xid8(_) => 8,
            Value::Bool(_) | Value::Uuid(_) => 1,
            // A 1-byte header: not aligned.
            Value::Text(_)
            | Value::Json(_)
            | Value::Bytea(_)
            | Value::Numeric(_)
            | Value::Inet(_)
            | Value::Cidr(_)
            | Value::Bit(_)
                if size <= SHORT_DATA_MAX + 1 =>
            {
                1
            }
            _ => 4,
        };
        data = data.next_multiple_of(align) + size;
    }
    Some(max_align(header + data))
}

/// The width PostgreSQL's planner assumes for a value of `ty` without
/// statistics (`get_typavgwidth`): a fixed-width type's width; for a
/// variable-length type with a maximum (`varchar(n)`, `char(n)`,
/// `numeric(p, s)`) that maximum, `char(n)`'s whole and another's halfway
/// from 32 to it (capped at 1000); 32 otherwise.
pub fn type_avg_width(ty: SqlType) -> u32 {
    let maximum = match ty {
        SqlType::Bool | SqlType::InternalChar => return 1,
        SqlType::Name => return 64,
        SqlType::Int2 => return 2,
        SqlType::Int4
        | SqlType::Float4
        | SqlType::Date
        | SqlType::Oid
        | SqlType::Reg(_)
        | SqlType::Enum(_)
        | SqlType::Xid => return 4,
        SqlType::Tid | SqlType::MacAddr => return 6,
        SqlType::MacAddr8 => return 8,
        SqlType::Int8
        | SqlType::Float8
        | SqlType::Timestamp(_)
        | SqlType::TimestampTz(_)
        | SqlType::Time(_)
        | SqlType::PgLsn
        | SqlType::Money
        | SqlType::Xid8 => return 8,
        SqlType::TimeTz(_) => return 12,
        SqlType::Uuid | SqlType::Interval(_) => return 16,
        SqlType::Char(n) if n > 0 => return n * MAX_CHAR_BYTES + VARHDRSZ,
        SqlType::Varchar(Some(n)) => n * MAX_CHAR_BYTES + VARHDRSZ,
        // numeric_maximum_size: a 8-byte header and a base-10000 digit
        // per 4 decimal digits, one more for the point's alignment.
        SqlType::Numeric(Some((precision, _))) => 8 + 2 * ((u32::from(precision) + 6) / 4),
        // type_maximum_size: the bytes, the bit length and the header.
        SqlType::Bit(Some(n)) | SqlType::VarBit(Some(n)) => n.div_ceil(8) + 8,
        _ => return VARLENA_GUESS,
    };
    match maximum {
        m if m <= VARLENA_GUESS => m,
        m if m < 1000 => VARLENA_GUESS + (m - VARLENA_GUESS) / 2,
        _ => VARLENA_GUESS + (1000 - VARLENA_GUESS) / 2,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Sizes PostgreSQL 15's pg_column_size gives.
    #[test]
    fn sizes_as_postgresql() {
        let n = |t: &str, stored| stored_size(&Value::Numeric(Numeric::parse(t).unwrap()), stored);
        assert_eq!(n("1.5", false), Some(10));
        assert_eq!(n("1.5", true), Some(7));
        assert_eq!(n("-123456789.123456789", true), Some(15));
        assert_eq!(n("0", false), Some(6));
        assert_eq!(n("NaN", false), Some(6));
        let text = |t: &str, stored| stored_size(&Value::Text(t.into()), stored);
        assert_eq!(text("abc", true), Some(4));
        assert_eq!(text("abc", false), Some(7));
        assert_eq!(text(&"x".repeat(200), true), Some(204));
        assert_eq!(stored_size(&Value::Null, true), None);
    }

    // Index tuple sizes PostgreSQL 15 reports refusing them ("index row
    // requires N bytes"): 3 ^ 40000 (9552 bytes) after an int4, after a
    // NULL (the bitmap), and after an int8 and before an int4.
    #[test]
    fn index_row_sizes_as_postgresql() {
        let power = |e: u32| {
            let mut n = Numeric::from_i64(1);
            for _ in 0..e {
                n = n.checked_mul(&Numeric::from_i64(3)).unwrap();
            }
            Value::Numeric(n)
        };
        let big = power(40_000);
        assert_eq!(stored_size(&big, true), Some(9552));
        assert_eq!(index_row_size(&[Value::Int4(1), big.clone()]), Some(9568));
        assert_eq!(index_row_size(&[Value::Null, big.clone()]), Some(9568));
        let row = [Value::Int8(5), big, Value::Int4(1)];
        assert_eq!(index_row_size(&row), Some(9576));
        assert_eq!(index_row_size(&[Value::Text("abc".into())]), Some(16));
    }

    // get_typavgwidth's answers, as PostgreSQL 15's plans show them for
    // columns without statistics.
    #[test]
    fn type_widths_as_postgresql() {
        assert_eq!(type_avg_width(SqlType::Int4), 4);
        assert_eq!(type_avg_width(SqlType::Text), 32);
        // varchar(10): 44 bytes at most, halfway from 32.
        assert_eq!(type_avg_width(SqlType::Varchar(Some(10))), 38);
        assert_eq!(type_avg_width(SqlType::Varchar(Some(5))), 24);
        assert_eq!(type_avg_width(SqlType::Char(84)), 340);
        assert_eq!(type_avg_width(SqlType::Varchar(Some(1000))), 516);
        assert_eq!(type_avg_width(SqlType::Numeric(Some((10, 2)))), 16);
        assert_eq!(type_avg_width(SqlType::Numeric(None)), 32);
    }
}
