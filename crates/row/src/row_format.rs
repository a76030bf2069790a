//! The row format: how a row's values are stored in a heap tuple.
//!
//! | part | bytes |
//! |---|---|
//! | column count | u16 |
//! | flags | u8: bit 0 = has nulls |
//! | null bitmap | `ceil(count / 8)` bytes, only with nulls; bit `i` set = column `i` is null (PostgreSQL's `t_bits` is the opposite: set = not null) |
//! | values | the non-null ones in column order: fixed-width types little-endian (int2 2, int4/float4/date 4, int8/float8/timestamp[tz] 8, bool 1, uuid 16, numeric 18); text, varchar, char and bytea as a u32 length then the bytes |
//!
//! Decoding untrusted bytes never panics: every length is checked against
//! what is left, and nothing is allocated beyond the input's size.

use crate::error::RowError;
use crate::numeric::Numeric;
use crate::types::SqlType;
use crate::value::Value;

const HAS_NULLS: u8 = 1;

fn corrupt(reason: impl Into<String>) -> RowError {
    RowError::Corrupt(reason.into())
}

/// Encodes `values` (already fitted to `types`) as a row.
pub fn encode_row(values: &[Value], types: &[SqlType]) -> Result<Vec<u8>, RowError> {
    if values.len() != types.len() {
        return Err(RowError::Arity {
            values: values.len(),
            columns: types.len(),
        });
    }
    let has_nulls = values.contains(&Value::Null);
    let mut out = Vec::with_capacity(3 + values.len() * 8);
    out.extend_from_slice(&(values.len() as u16).to_le_bytes());
    out.push(if has_nulls { HAS_NULLS } else { 0 });
    if has_nulls {
        let mut bitmap = vec![0u8; values.len().div_ceil(8)];
        for (i, v) in values.iter().enumerate() {
            if *v == Value::Null {
                bitmap[i / 8] |= 1 << (i % 8);
            }
        }
        out.extend_from_slice(&bitmap);
    }
    for (v, ty) in values.iter().zip(types) {
        if !v.matches(*ty) {
            return Err(RowError::TypeMismatch {
                value: v.type_name().into(),
                column: ty.name(),
            });
        }
        match v {
            Value::Null => {}
            Value::Int2(x) => out.extend_from_slice(&x.to_le_bytes()),
            Value::Int4(x) => out.extend_from_slice(&x.to_le_bytes()),
            Value::Int8(x) => out.extend_from_slice(&x.to_le_bytes()),
            Value::Float4(x) => out.extend_from_slice(&x.to_le_bytes()),
            Value::Float8(x) => out.extend_from_slice(&x.to_le_bytes()),
            Value::Numeric(n) => out.extend_from_slice(&n.to_bytes()),
            Value::Text(s) => {
                out.extend_from_slice(&(s.len() as u32).to_le_bytes());
                out.extend_from_slice(s.as_bytes());
            }
            Value::Bytea(b) => {
                out.extend_from_slice(&(b.len() as u32).to_le_bytes());
                out.extend_from_slice(b);
            }
            Value::Bool(b) => out.push(*b as u8),
            Value::Date(d) => out.extend_from_slice(&d.to_le_bytes()),
            Value::Timestamp(t) | Value::TimestampTz(t) => out.extend_from_slice(&t.to_le_bytes()),
            Value::Uuid(u) => out.extend_from_slice(u),
        }
    }
    Ok(out)
}

/// A cursor over a row's values.
struct Cursor<'a> {
    rest: &'a [u8],
    nulls: Option<&'a [u8]>,
}

impl<'a> Cursor<'a> {
    fn new(row: &'a [u8], types: &[SqlType]) -> Result<Cursor<'a>, RowError> {
        if row.len() < 3 {
            return Err(corrupt("a row shorter than its header"));
        }
        let count = u16::from_le_bytes([row[0], row[1]]) as usize;
        if count != types.len() {
            return Err(corrupt(format!(
                "a row of {count} columns, expected {}",
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
        Ok(Cursor { rest, nulls })
    }

    fn take(&mut self, n: usize) -> Result<&'a [u8], RowError> {
        if self.rest.len() < n {
            return Err(corrupt("a row cut short in its values"));
        }
        let (head, tail) = self.rest.split_at(n);
        self.rest = tail;
        Ok(head)
    }

    fn is_null(&self, i: usize) -> bool {
        self.nulls.is_some_and(|b| b[i / 8] & (1 << (i % 8)) != 0)
    }

    /// The bytes of column `i` (None if null), advancing past them.
    fn next_bytes(&mut self, i: usize, ty: SqlType) -> Result<Option<&'a [u8]>, RowError> {
        if self.is_null(i) {
            return Ok(None);
        }
        let len = match ty.fixed_width() {
            Some(w) => w,
            None => u32::from_le_bytes(self.take(4)?.try_into().expect("4")) as usize,
        };
        self.take(len).map(Some)
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
        SqlType::Int2 => Value::Int2(i16::from_le_bytes(a(2)[..2].try_into().expect("2"))),
        SqlType::Int4 => Value::Int4(i32::from_le_bytes(a(4)[..4].try_into().expect("4"))),
        SqlType::Int8 => Value::Int8(i64::from_le_bytes(a(8)[..8].try_into().expect("8"))),
        SqlType::Float4 => Value::Float4(f32::from_le_bytes(a(4)[..4].try_into().expect("4"))),
        SqlType::Float8 => Value::Float8(f64::from_le_bytes(a(8)[..8].try_into().expect("8"))),
        SqlType::Numeric(_) => Value::Numeric(Numeric::from_bytes(b)?),
        SqlType::Text | SqlType::Varchar(_) | SqlType::Char(_) => Value::Text(
            String::from_utf8(b.to_vec()).map_err(|_| corrupt("text that is not UTF-8"))?,
        ),
        SqlType::Bytea => Value::Bytea(b.to_vec()),
        SqlType::Bool => match b[0] {
            0 => Value::Bool(false),
            1 => Value::Bool(true),
            x => return Err(corrupt(format!("bool byte {x}"))),
        },
        SqlType::Date => Value::Date(i32::from_le_bytes(a(4)[..4].try_into().expect("4"))),
        SqlType::Timestamp => {
            Value::Timestamp(i64::from_le_bytes(a(8)[..8].try_into().expect("8")))
        }
        SqlType::TimestampTz => {
            Value::TimestampTz(i64::from_le_bytes(a(8)[..8].try_into().expect("8")))
        }
        SqlType::Uuid => Value::Uuid(a(16)),
    })
}

/// Decodes a row of `types`.
pub fn decode_row(row: &[u8], types: &[SqlType]) -> Result<Vec<Value>, RowError> {
    let mut cursor = Cursor::new(row, types)?;
    let mut out = Vec::with_capacity(types.len());
    for (i, ty) in types.iter().enumerate() {
        let bytes = cursor.next_bytes(i, *ty)?;
        out.push(decode_value(bytes, *ty)?);
    }
    if !cursor.rest.is_empty() {
        return Err(corrupt(format!(
            "{} bytes after the row's values",
            cursor.rest.len()
        )));
    }
    Ok(out)
}

/// Decodes column `index` of a row of `types` alone (skipping the others
/// by their lengths).
pub fn decode_column(row: &[u8], types: &[SqlType], index: usize) -> Result<Value, RowError> {
    if index >= types.len() {
        return Err(corrupt(format!("column {index} of {}", types.len())));
    }
    let mut cursor = Cursor::new(row, types)?;
    for (i, ty) in types.iter().enumerate().take(index) {
        cursor.next_bytes(i, *ty)?;
    }
    let bytes = cursor.next_bytes(index, types[index])?;
    decode_value(bytes, types[index])
}
