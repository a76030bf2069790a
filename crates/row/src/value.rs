//! SQL values, and how one is fitted to a column's type.

use crate::array::Array;
use crate::bits::BitString;
use crate::enums::EnumValue;
use crate::error::RowError;
use crate::geometry::Geometry;
use crate::inet::Inet;
use crate::interval::Interval;
use crate::json::Jsonb;
use crate::jsonpath::JsonPath;
use crate::multirange::Multirange;
use crate::numeric::Numeric;
use crate::range::Range;
use crate::time_with_zone::TimeTz;
use crate::tsquery::TsQuery;
use crate::tsvector::TsVector;
use crate::types::SqlType;
use std::cmp::Ordering;

/// A value. Dates are days since 2000-01-01, timestamps microseconds
/// since 2000-01-01 00:00 (UTC for `TimestampTz`), times microseconds
/// since midnight: PostgreSQL's epoch and units.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Null,
    Int2(i16),
    Int4(i32),
    Int8(i64),
    Float4(f32),
    Float8(f64),
    Numeric(Numeric),
    Text(String),
    Bytea(Vec<u8>),
    Bool(bool),
    Date(i32),
    Timestamp(i64),
    TimestampTz(i64),
    /// A `time`: microseconds since midnight, up to `24:00:00`
    /// (`time_of_day.rs`).
    Time(i64),
    /// A `timetz`: a time of day and its zone (`time_with_zone.rs`).
    TimeTz(TimeTz),
    Uuid([u8; 16]),
    Interval(Interval),
    /// An array: its elements of one type, or NULL, and its dimensions
    /// (`array.rs`).
    Array(Array),
    /// A row value: its fields, each of its own type or NULL
    /// (`SqlType::Record`; text form `record_text.rs`).
    Record(Vec<Value>),
    /// A `json` value: its text as written (checked to be JSON).
    Json(String),
    /// A `jsonb` value (`json.rs`).
    Jsonb(Box<Jsonb>),
    /// A label of a user-defined enum type (`enums.rs`).
    Enum(EnumValue),
    /// An `oid` (`oid.rs`).
    Oid(u32),
    /// A `tid`: block and offset (`tid.rs`).
    Tid(u32, u16),
    /// An `xid` (`tid.rs`).
    Xid(u64),
    /// A `pg_lsn`: a write-ahead log position (`lsn.rs`).
    PgLsn(u64),
    /// A `money` amount in cents (`money.rs`).
    Money(i64),
    /// An `xid8`: a 64-bit transaction id (`xid_snapshot.rs`).
    Xid8(u64),
    /// A `pg_snapshot` or `txid_snapshot` (`xid_snapshot.rs`).
    Snapshot(Box<crate::xid_snapshot::XidSnapshot>),
    /// An `inet`: a host address and its network's mask (`inet.rs`).
    Inet(Inet),
    /// A `cidr`: a network (`inet.rs`); ordered with `inet`s.
    Cidr(Inet),
    /// A `macaddr` (`macaddr.rs`).
    MacAddr([u8; 6]),
    /// A `macaddr8` (`macaddr.rs`).
    MacAddr8([u8; 8]),
    /// A value of a built-in range type (`range.rs`).
    Range(Box<Range>),
    /// A value of a built-in multirange type (`multirange.rs`).
    Multirange(Box<Multirange>),
    /// A `bit(n)` or `bit varying(n)` value (`bits.rs`).
    Bit(Box<BitString>),
    /// A value of a geometric type (`geometry.rs`).
    Geo(Box<Geometry>),
    /// A `jsonpath` (`jsonpath.rs`).
    JsonPath(Box<JsonPath>),
    /// A `tsvector` (`tsvector.rs`).
    TsVector(Box<TsVector>),
    /// A `tsquery` (`tsquery.rs`).
    TsQuery(Box<TsQuery>),
    /// A value of an OID alias type: its oid and name (`reg.rs`).
    Reg(Box<crate::reg::RegValue>),
}

// A value stays four words: larger kinds are boxed.
const _: () = assert!(std::mem::size_of::<Value>() == 32);

impl Value {
    /// A one-dimensional array of lower bound 1 of `items`.
    pub fn array(items: Vec<Value>) -> Value {
        Value::Array(Array::from_items(items))
    }

    /// The name of the value's type (for errors).
    pub fn type_name(&self) -> &'static str {
        match self {
            Value::Null => "unknown",
            Value::Int2(_) => "smallint",
            Value::Int4(_) => "integer",
            Value::Int8(_) => "bigint",
            Value::Float4(_) => "real",
            Value::Float8(_) => "double precision",
            Value::Numeric(_) => "numeric",
            Value::Text(_) => "text",
            Value::Bytea(_) => "bytea",
            Value::Bool(_) => "boolean",
            Value::Date(_) => "date",
            Value::Timestamp(_) => "timestamp without time zone",
            Value::TimestampTz(_) => "timestamp with time zone",
            Value::Time(_) => "time without time zone",
            Value::TimeTz(_) => "time with time zone",
            Value::Uuid(_) => "uuid",
            Value::Interval(_) => "interval",
            Value::Array(_) => "array",
            Value::Record(_) => "record",
            Value::Json(_) => "json",
            Value::Jsonb(_) => "jsonb",
            Value::Enum(v) => &v.ty.name,
            Value::Oid(_) => "oid",
            Value::Reg(r) => r.kind.name(),
            Value::Tid(..) => "tid",
            Value::Xid(_) => "xid",
            Value::PgLsn(_) => "pg_lsn",
            Value::Money(_) => "money",
            Value::Xid8(_) => "xid8",
            Value::Snapshot(s) => s.type_name(),
            Value::Inet(_) => "inet",
            Value::Cidr(_) => "cidr",
            Value::MacAddr(_) => "macaddr",
            Value::MacAddr8(_) => "macaddr8",
            Value::Range(r) => r.kind.name(),
            Value::Multirange(m) => m.kind.multirange_name(),
            Value::Bit(_) => "bit",
            Value::Geo(g) => g.kind().name(),
            Value::JsonPath(_) => "jsonpath",
            Value::TsVector(_) => "tsvector",
            Value::TsQuery(_) => "tsquery",
        }
    }

    /// Fits the value to a column of type `ty`, as an assignment does:
    /// `varchar(n)` and `char(n)` refuse text longer but for blanks
    /// (22001; the blanks are cut), `char(n)` pads shorter with blanks, text goes to any string type.
    /// Integers go to any integer type that holds them (22003 otherwise)
    /// and `real` to `double precision`, as PostgreSQL's assignment casts
    /// do. A value of another type is a mismatch (the SQL layer casts
    /// first).
    pub fn fit(self, ty: SqlType) -> Result<Value, RowError> {
        let mismatch = |v: &Value| RowError::TypeMismatch {
            value: v.type_name().into(),
            column: ty.name(),
        };
        // An oid from any integer, and to `integer` and `bigint`
        // (PostgreSQL's implicit and assignment casts: `oid.rs`).
        match (&self, ty) {
            (Value::Reg(r), SqlType::Oid) => return Ok(Value::Oid(r.oid)),
            (Value::Oid(o), SqlType::Int4) => return Ok(Value::Int4(crate::oid::to_int4(*o))),
            (Value::Oid(o), SqlType::Int8) => return Ok(Value::Int8(i64::from(*o))),
            (_, SqlType::Oid) => {
                if let Some(int) = self.as_integer() {
                    let narrow = !matches!(self, Value::Int8(_));
                    return Ok(Value::Oid(crate::oid::from_integer(int, narrow)?));
                }
            }
            _ => {}
        }
        if let Some(int) = self.as_integer()
            && matches!(ty, SqlType::Int2 | SqlType::Int4 | SqlType::Int8)
        {
            let out_of_range = || RowError::IntegerOutOfRange(ty.name());
            return Ok(match ty {
                SqlType::Int2 => Value::Int2(i16::try_from(int).map_err(|_| out_of_range())?),
                SqlType::Int4 => Value::Int4(i32::try_from(int).map_err(|_| out_of_range())?),
                _ => Value::Int8(int),
            });
        }
        Ok(match (self, ty) {
            (Value::Null, _) => Value::Null,
            (Value::Float4(x), SqlType::Float8) => Value::Float8(f64::from(x)),
            // Past `n` characters only blanks may follow, and are cut
            // (PostgreSQL's varchar assignment rule, char(n)'s too).
            (Value::Text(mut s), SqlType::Varchar(Some(n))) => {
                if let Some((end, _)) = s.char_indices().nth(n as usize) {
                    if s[end..].bytes().any(|b| b != b' ') {
                        return Err(RowError::TooLong(ty.name()));
                    }
                    s.truncate(end);
                }
                Value::Text(s)
            }
            // `bpchar`, without a length, keeps the text as it is.
            (v @ Value::Text(_), SqlType::Char(0)) => v,
            (Value::Text(mut s), SqlType::Char(n)) => {
                // Padded in place: a value already of `n` characters (a
                // second fit, a row read back) is kept as it is.
                let chars = s.chars().count();
                if chars == n as usize {
                    return Ok(Value::Text(s));
                }
                // Trailing spaces are one byte each in UTF-8.
                let trimmed = s.bytes().rposition(|b| b != b' ').map_or(0, |i| i + 1);
                let len = chars - (s.len() - trimmed);
                if len > n as usize {
                    return Err(RowError::TooLong(ty.name()));
                }
                s.truncate(trimmed);
                pad_with_spaces(&mut s, n as usize - len);
                Value::Text(s)
            }
            (v @ Value::Text(_), SqlType::Text | SqlType::Varchar(None) | SqlType::Refcursor) => v,
            (Value::Text(s), SqlType::Name) => Value::Text(crate::name::truncate(s)),
            // An assignment of text to a `"char"` reads it (`internal_char.rs`).
            (Value::Text(s), SqlType::InternalChar) => {
                Value::Text(crate::internal_char::from_text(&s))
            }
            (Value::Numeric(n), SqlType::Numeric(None)) => Value::Numeric(n),
            (Value::Time(t), SqlType::Time(Some(precision))) => {
                Value::Time(crate::time_of_day::round_to_precision(t, precision))
            }
            (Value::TimeTz(t), SqlType::TimeTz(Some(precision))) => Value::TimeTz(TimeTz {
                time: crate::time_of_day::round_to_precision(t.time, precision),
                ..t
            }),
            (Value::Timestamp(t), SqlType::Timestamp(Some(precision))) => {
                Value::Timestamp(timestamp_to_precision(t, precision))
            }
            (Value::TimestampTz(t), SqlType::TimestampTz(Some(precision))) => {
                Value::TimestampTz(timestamp_to_precision(t, precision))
            }
            (Value::Interval(i), SqlType::Interval(Some(modifier))) => {
                Value::Interval(modifier.adjust(i))
            }
            (Value::Numeric(n), SqlType::Numeric(Some((precision, scale)))) => {
                Value::Numeric(n.fit_typmod(precision, scale)?)
            }
            (Value::Array(items), SqlType::Array(element)) => {
                Value::Array(items.try_map(|v| v.fit(*element))?)
            }
            (Value::Bit(b), SqlType::Bit(Some(n))) => Value::Bit(Box::new(b.fit_bit(n)?)),
            (Value::Bit(b), SqlType::VarBit(Some(n))) => Value::Bit(Box::new(b.fit_varbit(n)?)),
            // A composite type's fields, each to its type.
            (Value::Record(fields), SqlType::Composite(def))
                if fields.len() == def.fields.len() =>
            {
                Value::Record(
                    (fields.into_iter().zip(&def.fields))
                        .map(|(v, (_, t))| v.fit(*t))
                        .collect::<Result<_, _>>()?,
                )
            }
            (v, _) if v.matches(ty) => v,
            (v, _) => return Err(mismatch(&v)),
        })
    }

    /// The value of an integer of any width.
    fn as_integer(&self) -> Option<i64> {
        match *self {
            Value::Int2(x) => Some(i64::from(x)),
            Value::Int4(x) => Some(i64::from(x)),
            Value::Int8(x) => Some(x),
            _ => None,
        }
    }

    /// Whether the value is of type `ty` (nulls are of every type).
    pub fn matches(&self, ty: SqlType) -> bool {
        matches!(
            (self, ty),
            (Value::Null, _)
                | (Value::Int2(_), SqlType::Int2)
                | (Value::Int4(_), SqlType::Int4)
                | (Value::Int8(_), SqlType::Int8)
                | (Value::Float4(_), SqlType::Float4)
                | (Value::Float8(_), SqlType::Float8)
                | (Value::Numeric(_), SqlType::Numeric(_))
                | (
                    Value::Text(_),
                    SqlType::Text | SqlType::Varchar(_) | SqlType::Char(_)
                )
                | (Value::Bytea(_), SqlType::Bytea)
                | (Value::Bool(_), SqlType::Bool)
                | (Value::Date(_), SqlType::Date)
                | (Value::Timestamp(_), SqlType::Timestamp(_))
                | (Value::TimestampTz(_), SqlType::TimestampTz(_))
                | (Value::Time(_), SqlType::Time(_))
                | (Value::TimeTz(_), SqlType::TimeTz(_))
                | (Value::Uuid(_), SqlType::Uuid)
                | (Value::Interval(_), SqlType::Interval(_))
                | (Value::Json(_), SqlType::Json)
                | (Value::Jsonb(_), SqlType::Jsonb)
                | (Value::JsonPath(_), SqlType::JsonPath)
                | (Value::Oid(_), SqlType::Oid)
                | (Value::Tid(..), SqlType::Tid)
                | (Value::Xid(_), SqlType::Xid)
                | (Value::PgLsn(_), SqlType::PgLsn)
                | (Value::Money(_), SqlType::Money)
                | (Value::Xid8(_), SqlType::Xid8)
                | (Value::Inet(_), SqlType::Inet)
                | (Value::Cidr(_), SqlType::Cidr)
                | (Value::MacAddr(_), SqlType::MacAddr)
                | (Value::MacAddr8(_), SqlType::MacAddr8)
                | (Value::Bit(_), SqlType::Bit(_) | SqlType::VarBit(_))
                | (Value::TsVector(_), SqlType::TsVector)
                | (Value::TsQuery(_), SqlType::TsQuery)
                | (
                    Value::Text(_),
                    SqlType::InternalChar | SqlType::Name | SqlType::Refcursor
                )
        ) || match (self, ty) {
            (Value::Array(items), SqlType::Array(element)) => {
                items.iter().all(|v| v.matches(*element))
            }
            (Value::Record(_), SqlType::Record) => true,
            (Value::Geo(g), SqlType::Geo(kind)) => g.kind() == kind,
            (Value::Record(fields), SqlType::Composite(def)) => {
                fields.len() == def.fields.len()
                    && (fields.iter().zip(&def.fields)).all(|(v, (_, t))| v.matches(*t))
            }
            (Value::Enum(v), SqlType::Enum(t)) => v.ty.oid == t.oid,
            (Value::Range(r), SqlType::Range(kind)) => r.kind == kind,
            (Value::Snapshot(s), SqlType::PgSnapshot) => !s.legacy,
            (Value::Snapshot(s), SqlType::TxidSnapshot) => s.legacy,
            (Value::Multirange(m), SqlType::Multirange(kind)) => m.kind == kind,
            (Value::Reg(r), SqlType::Reg(kind)) => r.kind == kind,
            _ => false,
        }
    }

    /// The order of two values of one type, a NULL after every value and
    /// equal to a NULL (elements of arrays, fields of rows).
    pub fn cmp_nulls_last(x: &Value, y: &Value) -> Option<Ordering> {
        Some(match (x, y) {
            (Value::Null, Value::Null) => Ordering::Equal,
            (Value::Null, _) => Ordering::Greater,
            (_, Value::Null) => Ordering::Less,
            (x, y) => x.sql_cmp(y)?,
        })
    }

    /// PostgreSQL's order of two non-null values of one type (floats: -0 =
    /// 0, NaN greatest and equal to itself; text: byte order, the C
    /// collation). `None` for values of different types or a null.
    pub fn sql_cmp(&self, other: &Value) -> Option<Ordering> {
        fn float(a: f64, b: f64) -> Ordering {
            match (a.is_nan(), b.is_nan()) {
                (true, true) => Ordering::Equal,
                (true, false) => Ordering::Greater,
                (false, true) => Ordering::Less,
                _ => a.partial_cmp(&b).expect("no NaN"),
            }
        }
        Some(match (self, other) {
            (Value::Int2(a), Value::Int2(b)) => a.cmp(b),
            (Value::Int4(a), Value::Int4(b)) => a.cmp(b),
            (Value::Int8(a), Value::Int8(b)) => a.cmp(b),
            (Value::Oid(a), Value::Oid(b)) => a.cmp(b),
            (Value::Reg(a), Value::Reg(b)) => a.oid.cmp(&b.oid),
            (Value::Tid(a, x), Value::Tid(b, y)) => (a, x).cmp(&(b, y)),
            (Value::Xid(a), Value::Xid(b)) => a.cmp(b),
            (Value::PgLsn(a), Value::PgLsn(b)) => a.cmp(b),
            (Value::Money(a), Value::Money(b)) => a.cmp(b),
            (Value::Xid8(a), Value::Xid8(b)) => a.cmp(b),
            // No order in PostgreSQL (no operators at all); one for sorts
            // and hashes of query rows.
            (Value::Snapshot(a), Value::Snapshot(b)) if a.legacy == b.legacy => {
                (a.xmin, a.xmax, &a.xip).cmp(&(b.xmin, b.xmax, &b.xip))
            }
            (Value::Inet(a) | Value::Cidr(a), Value::Inet(b) | Value::Cidr(b)) => a.compare(b),
            (Value::MacAddr(a), Value::MacAddr(b)) => a.cmp(b),
            (Value::MacAddr8(a), Value::MacAddr8(b)) => a.cmp(b),
            (Value::Bit(a), Value::Bit(b)) => a.cmp_bits(b),
            (Value::Geo(a), Value::Geo(b)) => a.compare(b),
            (Value::TsVector(a), Value::TsVector(b)) => a.cmp_tsvector(b),
            (Value::TsQuery(a), Value::TsQuery(b)) => a.cmp_tsquery(b),
            (Value::Float4(a), Value::Float4(b)) => float(*a as f64, *b as f64),
            (Value::Float8(a), Value::Float8(b)) => float(*a, *b),
            (Value::Numeric(a), Value::Numeric(b)) => a.cmp(b),
            (Value::Text(a), Value::Text(b)) => a.as_bytes().cmp(b.as_bytes()),
            (Value::Bytea(a), Value::Bytea(b)) => a.cmp(b),
            (Value::Bool(a), Value::Bool(b)) => a.cmp(b),
            (Value::Date(a), Value::Date(b)) => a.cmp(b),
            (Value::Timestamp(a), Value::Timestamp(b)) => a.cmp(b),
            (Value::TimestampTz(a), Value::TimestampTz(b)) => a.cmp(b),
            (Value::Time(a), Value::Time(b)) => a.cmp(b),
            (Value::TimeTz(a), Value::TimeTz(b)) => a.cmp_utc(*b),
            (Value::Uuid(a), Value::Uuid(b)) => a.cmp(b),
            (Value::Interval(a), Value::Interval(b)) => a.cmp_span(b),
            (Value::Jsonb(a), Value::Jsonb(b)) => a.cmp(b),
            (Value::Range(a), Value::Range(b)) if a.kind == b.kind => a.range_cmp(b),
            (Value::Multirange(a), Value::Multirange(b)) if a.kind == b.kind => a.multirange_cmp(b),
            // In the type's declared order (sort orders never change).
            (Value::Enum(a), Value::Enum(b)) if a.ty.oid == b.ty.oid => {
                a.sort().total_cmp(&b.sort())
            }
            // Element by element, a NULL after every value, then the
            // shape (PostgreSQL's array order: `Array::cmp_by`).
            (Value::Array(a), Value::Array(b)) => a.cmp_by(b, Value::cmp_nulls_last)?,
            // Field by field, the same order (PostgreSQL's record_cmp,
            // which btree, DISTINCT and `t = t2` of whole rows use: two
            // NULL fields are equal).
            (Value::Record(a), Value::Record(b)) => {
                for (x, y) in a.iter().zip(b) {
                    let order = Value::cmp_nulls_last(x, y)?;
                    if order.is_ne() {
                        return Some(order);
                    }
                }
                a.len().cmp(&b.len())
            }
            _ => return None,
        })
    }
}

macro_rules! value_from {
    ($($t:ty => $variant:ident),* $(,)?) => {$(
        impl From<$t> for Value {
            fn from(x: $t) -> Value {
                Value::$variant(x.into())
            }
        }
    )*};
}

value_from!(
    i16 => Int2,
    i32 => Int4,
    i64 => Int8,
    f32 => Float4,
    f64 => Float8,
    bool => Bool,
    String => Text,
    &str => Text,
    Vec<u8> => Bytea,
    &[u8] => Bytea,
    Numeric => Numeric,
);

impl<T: Into<Value>> From<Option<T>> for Value {
    /// `None` is NULL.
    fn from(x: Option<T>) -> Value {
        x.map_or(Value::Null, Into::into)
    }
}

/// A timestamp (or timestamptz) kept to `precision` digits of its
/// seconds' fraction, rounded half away from 2000-01-01 as a time is
/// (PostgreSQL's `AdjustTimestampForTypmod`: `1990-01-01 00:00:00.5` as
/// `timestamp(0)` is `1990-01-01 00:00:00`); an infinity stays one.
fn timestamp_to_precision(micros: i64, precision: u8) -> i64 {
    match crate::infinite_datetime::Infinity::of_timestamp(micros) {
        Some(_) => micros,
        None => crate::time_of_day::round_to_precision(micros, precision),
    }
}

/// Appends `count` spaces a slice at a time (`char(n)`'s padding; one
/// `char` at a time cost a pgbench load a tenth of its CPU).
fn pad_with_spaces(s: &mut String, mut count: usize) {
    const SPACES: &str = "                                                                ";
    s.reserve(count);
    while count > 0 {
        let step = count.min(SPACES.len());
        s.push_str(&SPACES[..step]);
        count -= step;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Proves assignment fitting: varchar(n) and char(n) lengths (22001,
    // blanks past the length cut),
    // char padding, integer casts (22003 past the range), type mismatches, and PostgreSQL's float order.
    #[test]
    fn values_fit_their_columns() {
        let t = |s: &str| Value::Text(s.into());
        assert_eq!(t("abc").fit(SqlType::Varchar(Some(3))), Ok(t("abc")));
        assert_eq!(
            t("abcd")
                .fit(SqlType::Varchar(Some(3)))
                .unwrap_err()
                .sqlstate(),
            "22001"
        );
        assert_eq!(
            t("ab   ").fit(SqlType::Varchar(Some(3))),
            Ok(t("ab ")),
            "blanks past the length are cut"
        );
        assert_eq!(
            t("ab  x")
                .fit(SqlType::Varchar(Some(3)))
                .unwrap_err()
                .sqlstate(),
            "22001"
        );
        assert_eq!(t("ab").fit(SqlType::Char(4)), Ok(t("ab  ")));
        assert_eq!(
            t("ab    ").fit(SqlType::Char(4)),
            Ok(t("ab  ")),
            "trailing blanks fit"
        );
        assert_eq!(Value::Int4(1).fit(SqlType::Int8), Ok(Value::Int8(1)));
        assert_eq!(Value::Int8(-7).fit(SqlType::Int2), Ok(Value::Int2(-7)));
        assert_eq!(
            Value::Int8(1 << 40)
                .fit(SqlType::Int4)
                .unwrap_err()
                .sqlstate(),
            "22003"
        );
        assert_eq!(
            Value::Float4(0.5).fit(SqlType::Float8),
            Ok(Value::Float8(0.5))
        );
        assert_eq!(
            Value::Int4(1).fit(SqlType::Text).unwrap_err().sqlstate(),
            "42804"
        );
        assert_eq!(Value::Null.fit(SqlType::Int8), Ok(Value::Null));
        let f = Value::Float8;
        assert_eq!(f(-0.0).sql_cmp(&f(0.0)), Some(Ordering::Equal));
        assert_eq!(
            f(f64::NAN).sql_cmp(&f(f64::INFINITY)),
            Some(Ordering::Greater)
        );
        assert_eq!(Value::Int4(1).sql_cmp(&Value::Int8(1)), None);
    }
}
