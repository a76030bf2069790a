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
use folio_row::Value;

/// `pg_column_size(value)`: NULL of NULL (the sizes: folio-row's
/// `stored_size`).
pub fn size(value: &Value, stored: bool) -> Result<Value, SqlError> {
    if *value == Value::Null {
        return Ok(Value::Null);
    }
    let bytes = folio_row::stored_size(value, stored).ok_or_else(|| {
        SqlError::unsupported(format!("pg_column_size of a {}", value.type_name()))
    })?;
    Ok(Value::Int4(i32::try_from(bytes).unwrap_or(i32::MAX)))
}
