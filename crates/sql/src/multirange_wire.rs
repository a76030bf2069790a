//! The binary wire form of multiranges, PostgreSQL 15's
//! `multirange_send` / `multirange_recv`: the range count (i32), then
//! each range as its length (i32) and its `range_send` bytes
//! (`types.rs`'s `range_binary`, the one owner of a range's form).
//! Input goes through folio-row's `Multirange::new`, so ranges out of
//! order or overlapping are sorted and merged, as PostgreSQL's
//! `multirange_recv` does.

use crate::error::SqlError;
use folio_row::{Multirange, RangeKind, Value};

/// A multirange's binary form.
pub fn send(m: &Multirange) -> Result<Vec<u8>, SqlError> {
    let mut out = (m.ranges().len() as i32).to_be_bytes().to_vec();
    for r in m.ranges() {
        let bytes = crate::types::range_binary(r)?;
        out.extend_from_slice(&(bytes.len() as i32).to_be_bytes());
        out.extend_from_slice(&bytes);
    }
    Ok(out)
}

/// A multirange of `kind` from its binary form.
pub fn receive(bytes: &[u8], kind: RangeKind) -> Result<Value, SqlError> {
    let mut rest = bytes;
    let count = length(&mut rest)?;
    let mut ranges = Vec::new();
    for _ in 0..count {
        let len = length(&mut rest)?;
        if rest.len() < len {
            return Err(short());
        }
        let (range, tail) = rest.split_at(len);
        rest = tail;
        match crate::types::range_binary_input(range, kind)? {
            Value::Range(r) => ranges.push(*r),
            _ => unreachable!("range_binary_input makes ranges"),
        }
    }
    if !rest.is_empty() {
        return Err(SqlError::new(
            "22P03",
            "incorrect binary data format in multirange",
        ));
    }
    Ok(Value::Multirange(Box::new(Multirange::new(kind, ranges)?)))
}

/// The count or length (i32) at the front of `rest`, taken off it.
fn length(rest: &mut &[u8]) -> Result<usize, SqlError> {
    let (head, tail) = rest.split_first_chunk::<4>().ok_or_else(short)?;
    *rest = tail;
    usize::try_from(i32::from_be_bytes(*head)).map_err(|_| short())
}

fn short() -> SqlError {
    SqlError::new("22P03", "insufficient data left in message")
}
