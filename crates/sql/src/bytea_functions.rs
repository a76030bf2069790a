//! The bytea forms of functions and operators that also take text:
//! `substr` / `substring`, `btrim`, `ltrim`, `rtrim` (of a set of bytes)
//! and `||`, each a bytea, as PostgreSQL 15's. Positions and lengths are in
//! bytes.

use crate::error::SqlError;
use crate::functions::StrFunc;
use crate::types;
use folio_row::Value;

/// `substr(bytes, start [, count])`: 1-based, a start before 1 shortens
/// the count, as PostgreSQL's (22011 for a negative count).
pub fn substr(bytes: &[u8], start: i64, count: Option<i64>) -> Result<Value, SqlError> {
    let end = match count {
        Some(count) if count < 0 => {
            return Err(SqlError::new(
                "22011",
                "negative substring length not allowed",
            ));
        }
        Some(count) => start.saturating_add(count),
        None => i64::MAX,
    };
    let clamp = |i: i64| (i.max(1) - 1).min(bytes.len() as i64) as usize;
    let (from, to) = (clamp(start), clamp(end));
    Ok(Value::Bytea(bytes[from..to.max(from)].to_vec()))
}

/// `btrim`, `ltrim`, `rtrim` of `bytes`: the bytes of `set` (a bytea, or
/// a quoted literal read as one) removed from both ends, the start, the
/// end.
pub fn trim(func: StrFunc, bytes: &[u8], set: &Value) -> Result<Value, SqlError> {
    let set = match types::coerce(set.clone(), folio_row::SqlType::Bytea)? {
        Value::Bytea(set) => set,
        _ => return Ok(Value::Null),
    };
    let kept = |b: &u8| !set.contains(b);
    let start = match func {
        StrFunc::Rtrim => 0,
        _ => bytes.iter().position(kept).unwrap_or(bytes.len()),
    };
    let end = match func {
        StrFunc::Ltrim => bytes.len(),
        _ => bytes.iter().rposition(kept).map_or(0, |i| i + 1),
    };
    Ok(Value::Bytea(bytes[start..end.max(start)].to_vec()))
}

/// `a || b` of two byteas.
pub fn concat(mut a: Vec<u8>, b: &[u8]) -> Value {
    a.extend_from_slice(b);
    Value::Bytea(a)
}
