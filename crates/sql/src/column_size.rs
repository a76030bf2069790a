//! `pg_column_size(value)`: the bytes a value takes as PostgreSQL keeps
//! it, so a client that sizes rows by it reads PostgreSQL's numbers.
//!
//! Fixed-width types are their width (`smallint` 2, `integer`, `real`,
//! `date`, `oid` and an enum 4, `bigint`, `double precision`,
//! `timestamp`, `timestamptz` and `time` 8, `uuid` and `interval` 16,
//! `boolean` 1, `tid` 6). A variable-length value (`text`, `varchar`,
//! `char(n)` with its padding, `bytea`, `json`, `numeric`) is its data and
//! a length header: PostgreSQL keeps a value read from a table with a
//! 1-byte header when it is short (data under 127 bytes) and one computed
//! in a query with a 4-byte header, so a column reference (`stored`) is
//! sized as a stored value and any other expression as a computed one.
//! A numeric's data is PostgreSQL's packed form: a 2-byte header (4 when
//! its scale passes 63 or its base-10000 weight leaves -64..63) and 2
//! bytes per base-10000 digit, leading and trailing zero digits dropped.
//!
//! Differences: PostgreSQL compresses a stored value past about 2 kB
//! (this counts it uncompressed), and a column read through a subquery
//! over computed values keeps their 4-byte header there (this counts
//! 1). `jsonb`, arrays, records and ranges are not sized (0A000).

use crate::error::SqlError;
use folio_row::{Numeric, Value};

/// The largest data a 1-byte length header takes (PostgreSQL's
/// `VARATT_SHORT_MAX` less the header).
const SHORT_DATA_MAX: usize = 126;

/// A variable-length value's bytes: `data` and its header.
fn varlena(data: usize, stored: bool) -> usize {
    match stored && data <= SHORT_DATA_MAX {
        true => data + 1,
        false => data + 4,
    }
}

/// A numeric's data in PostgreSQL's packed form.
fn numeric_data(n: Numeric) -> usize {
    let Some((_, scale)) = n.parts() else {
        return 2; // NaN: the short header alone.
    };
    let (weight, digits) = n.base10000().unwrap_or((0, Vec::new()));
    let short = scale <= 63 && (-64..=63).contains(&weight);
    (if short { 2 } else { 4 }) + 2 * digits.len()
}

/// `pg_column_size(value)`: NULL of NULL.
pub fn size(value: &Value, stored: bool) -> Result<Value, SqlError> {
    let bytes = match value {
        Value::Null => return Ok(Value::Null),
        Value::Bool(_) => 1,
        Value::Int2(_) => 2,
        Value::Int4(_) | Value::Float4(_) | Value::Date(_) | Value::Oid(_) | Value::Enum(_) => 4,
        Value::Tid(..) => 6,
        Value::Int8(_)
        | Value::Float8(_)
        | Value::Timestamp(_)
        | Value::TimestampTz(_)
        | Value::Time(_) => 8,
        Value::Uuid(_) | Value::Interval(_) => 16,
        Value::Text(t) | Value::Json(t) => varlena(t.len(), stored),
        Value::Bytea(b) => varlena(b.len(), stored),
        Value::Numeric(n) => varlena(numeric_data(*n), stored),
        other => {
            return Err(SqlError::unsupported(format!(
                "pg_column_size of a {}",
                other.type_name()
            )));
        }
    };
    Ok(Value::Int4(i32::try_from(bytes).unwrap_or(i32::MAX)))
}

#[cfg(test)]
mod tests {
    use super::*;

    // Sizes PostgreSQL 15's pg_column_size gives.
    #[test]
    fn sizes_as_postgresql() {
        let n = |t: &str, stored| size(&Value::Numeric(Numeric::parse(t).unwrap()), stored);
        assert_eq!(n("1.5", false).unwrap(), Value::Int4(10));
        assert_eq!(n("1.5", true).unwrap(), Value::Int4(7));
        assert_eq!(n("-123456789.123456789", true).unwrap(), Value::Int4(15));
        assert_eq!(n("0", false).unwrap(), Value::Int4(6));
        assert_eq!(n("NaN", false).unwrap(), Value::Int4(6));
        let text = |t: &str, stored| size(&Value::Text(t.into()), stored);
        assert_eq!(text("abc", true).unwrap(), Value::Int4(4));
        assert_eq!(text("abc", false).unwrap(), Value::Int4(7));
        assert_eq!(text(&"x".repeat(200), true).unwrap(), Value::Int4(204));
    }
}
