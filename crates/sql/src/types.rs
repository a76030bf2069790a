//! SQL type names to folio-row types, literals to values, and values to
//! PostgreSQL's text output.

use crate::error::SqlError;
use folio_row::{
    Infinity, Interval, IntervalFields, IntervalTypmod, Numeric, Rounding, SqlType, TimeTz, Value,
    calendar,
};
use sqlparser::ast::{self, CharacterLength, DataType, ExactNumberInfo, TimezoneInfo};

/// The longest `varchar(n)` / `char(n)` (PostgreSQL's limit, 10 MB).
const MAX_CHAR_LENGTH: u64 = 10_485_760;

/// The folio type of a column declared as `ty` (PostgreSQL's names and
/// their aliases: `int`, `integer`, `int4`, `char(n)`, `timestamp`, ...).
pub fn column_type(ty: &DataType) -> Result<SqlType, SqlError> {
    // PostgreSQL's `anychar_typmodin`: 1 to 10485760 (its MaxAttrSize).
    let length = |name: &str, l: &Option<CharacterLength>| match l {
        Some(CharacterLength::IntegerLength { length: 0, .. }) => Err(SqlError::new(
            "22023",
            format!("length for type {name} must be at least 1"),
        )),
        Some(CharacterLength::IntegerLength { length, .. }) if *length > MAX_CHAR_LENGTH => {
            Err(SqlError::new(
                "22023",
                format!("length for type {name} cannot exceed {MAX_CHAR_LENGTH}"),
            ))
        }
        Some(CharacterLength::IntegerLength { length, .. }) => Ok(Some(*length as u32)),
        Some(CharacterLength::Max) | None => Ok(None),
    };
    Ok(match ty {
        DataType::SmallInt(_) | DataType::Int2(_) => SqlType::Int2,
        DataType::Int(_) | DataType::Integer(_) | DataType::Int4(_) => SqlType::Int4,
        DataType::BigInt(_) | DataType::Int8(_) => SqlType::Int8,
        DataType::Real | DataType::Float4 => SqlType::Float4,
        DataType::DoublePrecision | DataType::Float8 => SqlType::Float8,
        // `float(p)`: p bits of mantissa, float4 up to 24, float8 to 53;
        // `float` alone is float8 (PostgreSQL's rule).
        DataType::Float(info) => match info {
            ExactNumberInfo::None => SqlType::Float8,
            ExactNumberInfo::Precision(0) => {
                return Err(SqlError::new(
                    "22023",
                    "precision for type float must be at least 1 bit",
                ));
            }
            ExactNumberInfo::Precision(1..=24) => SqlType::Float4,
            ExactNumberInfo::Precision(25..=53) => SqlType::Float8,
            ExactNumberInfo::Precision(_) => {
                return Err(SqlError::new(
                    "22023",
                    "precision for type float must be less than 54 bits",
                ));
            }
            ExactNumberInfo::PrecisionAndScale(..) => {
                return Err(SqlError::syntax("syntax error at or near \",\""));
            }
        },
        DataType::Numeric(info) | DataType::Decimal(info) => SqlType::Numeric(match info {
            ExactNumberInfo::None => None,
            ExactNumberInfo::Precision(p) => Some((precision(*p)?, 0)),
            ExactNumberInfo::PrecisionAndScale(p, s) => Some((
                precision(*p)?,
                u16::try_from(*s).map_err(|_| SqlError::unsupported("a negative numeric scale"))?,
            )),
        }),
        DataType::Text => SqlType::Text,
        DataType::Varchar(l) | DataType::CharacterVarying(l) | DataType::CharVarying(l) => {
            SqlType::Varchar(length("varchar", l)?)
        }
        // `char` alone is `char(1)`, as in PostgreSQL.
        DataType::Char(l) | DataType::Character(l) => {
            SqlType::Char(length("char", l)?.unwrap_or(1))
        }
        DataType::Bytea => SqlType::Bytea,
        DataType::TsVector => SqlType::TsVector,
        DataType::TsQuery => SqlType::TsQuery,
        // `bit` alone is `bit(1)`, as in PostgreSQL; `bit varying` alone
        // has no limit.
        DataType::Bit(l) => SqlType::Bit(Some(bit_length("bit", *l)?.unwrap_or(1))),
        DataType::BitVarying(l) | DataType::VarBit(l) => SqlType::VarBit(bit_length("varbit", *l)?),
        DataType::Bool | DataType::Boolean => SqlType::Bool,
        DataType::Date => SqlType::Date,
        // A precision past 6 is 6 (PostgreSQL also warns).
        DataType::Timestamp(precision, TimezoneInfo::None | TimezoneInfo::WithoutTimeZone) => {
            SqlType::Timestamp(seconds_precision(*precision))
        }
        DataType::Timestamp(precision, TimezoneInfo::WithTimeZone | TimezoneInfo::Tz) => {
            SqlType::TimestampTz(seconds_precision(*precision))
        }
        DataType::Time(precision, TimezoneInfo::None | TimezoneInfo::WithoutTimeZone) => {
            SqlType::Time(seconds_precision(*precision))
        }
        DataType::Time(precision, TimezoneInfo::WithTimeZone | TimezoneInfo::Tz) => {
            SqlType::TimeTz(seconds_precision(*precision))
        }
        DataType::Uuid => SqlType::Uuid,
        DataType::JSON => SqlType::Json,
        DataType::JSONB => SqlType::Jsonb,
        DataType::Interval { fields, precision } => {
            SqlType::Interval(interval_typmod(fields.map(interval_fields), *precision)?)
        }
        DataType::Custom(name, modifiers) if modifiers.is_empty() => named_type(name)?,
        // A type that takes a modifier, named as a user type would be
        // (`bpchar(5)`, `"varchar"(3)`, `"timestamptz"(2)`): the modifier
        // means what it means in the keyword's form.
        DataType::Custom(name, modifiers) => match keyword_form(named_type(name)?, modifiers) {
            Some(keyword) => column_type(&keyword)?,
            None => return Err(SqlError::unsupported(format!("type {ty}"))),
        },
        DataType::Array(
            ast::ArrayElemTypeDef::SquareBracket(element, _)
            | ast::ArrayElemTypeDef::AngleBracket(element),
        ) => {
            let element = column_type(element)?;
            // `int4[][]` and `int4[3]` are `int4[]` (PostgreSQL keeps no
            // dimensions in the type).
            if element.element().is_some() {
                return Ok(element);
            }
            element.array_keeping_modifier().ok_or_else(|| {
                SqlError::unsupported(format!("arrays of type {}", element.name()))
            })?
        }
        other => return Err(SqlError::unsupported(format!("type {other}"))),
    })
}

/// The keyword form of built-in type `base` named with `modifiers`
/// (`bpchar(5)` is `char(5)`), if it takes them.
fn keyword_form(base: SqlType, modifiers: &[String]) -> Option<DataType> {
    let numbers = (modifiers.iter())
        .map(|m| m.trim().parse::<u64>().ok())
        .collect::<Option<Vec<u64>>>()?;
    let length = |n: u64| {
        Some(CharacterLength::IntegerLength {
            length: n,
            unit: None,
        })
    };
    Some(match (base, numbers.as_slice()) {
        (SqlType::Char(0), &[n]) => DataType::Char(length(n)),
        (SqlType::Varchar(None), &[n]) => DataType::Varchar(length(n)),
        (SqlType::Bit(_), &[n]) => DataType::Bit(Some(n)),
        (SqlType::VarBit(_), &[n]) => DataType::VarBit(Some(n)),
        (SqlType::Numeric(None), &[p]) => DataType::Numeric(ExactNumberInfo::Precision(p)),
        (SqlType::Numeric(None), &[p, s]) => {
            DataType::Numeric(ExactNumberInfo::PrecisionAndScale(p, s as i64))
        }
        (SqlType::Timestamp(None), &[p]) => DataType::Timestamp(Some(p), TimezoneInfo::None),
        (SqlType::TimestampTz(None), &[p]) => {
            DataType::Timestamp(Some(p), TimezoneInfo::WithTimeZone)
        }
        (SqlType::Time(None), &[p]) => DataType::Time(Some(p), TimezoneInfo::None),
        (SqlType::TimeTz(None), &[p]) => DataType::Time(Some(p), TimezoneInfo::WithTimeZone),
        _ => return None,
    })
}

/// The type of a table's column: [`column_type`], if [`storable`].
pub fn stored_column_type(ty: &DataType) -> Result<SqlType, SqlError> {
    storable(column_type(ty)?)
}

/// The length of a `bit(n)` or `bit varying(n)`, as PostgreSQL's
/// `anybit_typmodin` takes it: 1 to its largest (22023 otherwise).
fn bit_length(name: &str, length: Option<u64>) -> Result<Option<u32>, SqlError> {
    const MAX_BIT_LENGTH: u64 = MAX_CHAR_LENGTH * 8;
    match length {
        Some(0) => Err(SqlError::new(
            "22023",
            format!("length for type {name} must be at least 1"),
        )),
        Some(n) if n > MAX_BIT_LENGTH => Err(SqlError::new(
            "22023",
            format!("length for type {name} cannot exceed {MAX_BIT_LENGTH}"),
        )),
        n => Ok(n.map(|n| n as u32)),
    }
}

/// `ty` if a table's column may have it: the one rule of which types are
/// stored. Not a record, nor an array of an enum type (a table's
/// definition carries the enum types its columns name, not their array
/// types); arrays of the built-in types are stored (folio-row's row
/// format), one-dimensional as folio's array values are.
pub fn storable(ty: SqlType) -> Result<SqlType, SqlError> {
    match ty {
        // (A value of an OID alias type is named when it is made: a
        // stored one would not be.)
        SqlType::Array(SqlType::Enum(_)) | SqlType::Reg(_) => Err(SqlError::unsupported(format!(
            "a column of type {}",
            ty.name()
        ))),
        stored => Ok(stored),
    }
}

/// A type written by a name the parser does not know as a keyword:
/// PostgreSQL's internal names (`int4`, `float8`, `timestamptz`, ...),
/// optionally qualified by `pg_catalog`; `name` (folio-row `name.rs`)
/// and `"char"`, PostgreSQL's one-byte type (folio-row
/// `internal_char.rs`).
pub(crate) fn named_type(name: &ast::ObjectName) -> Result<SqlType, SqlError> {
    let base = crate::names::builtin(name).unwrap_or_default();
    Ok(match base.as_str() {
        "int2" => SqlType::Int2,
        "int4" => SqlType::Int4,
        "int8" => SqlType::Int8,
        "oid" => SqlType::Oid,
        "tid" => SqlType::Tid,
        "xid" => SqlType::Xid,
        "pg_lsn" => SqlType::PgLsn,
        "money" => SqlType::Money,
        "xid8" => SqlType::Xid8,
        reg if folio_row::RegKind::of_name(reg).is_some() => {
            SqlType::Reg(folio_row::RegKind::of_name(reg).expect("matched"))
        }
        "pg_snapshot" => SqlType::PgSnapshot,
        "txid_snapshot" => SqlType::TxidSnapshot,
        "inet" => SqlType::Inet,
        "cidr" => SqlType::Cidr,
        "macaddr" => SqlType::MacAddr,
        "macaddr8" => SqlType::MacAddr8,
        "bit" => SqlType::Bit(None),
        "varbit" => SqlType::VarBit(None),
        geo if folio_row::geometry::GeoKind::from_name(geo).is_some() => {
            SqlType::Geo(folio_row::geometry::GeoKind::from_name(geo).expect("matched"))
        }
        "tsvector" => SqlType::TsVector,
        "tsquery" => SqlType::TsQuery,
        "refcursor" => SqlType::Refcursor,
        "float4" => SqlType::Float4,
        "float8" => SqlType::Float8,
        "numeric" => SqlType::Numeric(None),
        "text" => SqlType::Text,
        "name" => SqlType::Name,
        "char" => SqlType::InternalChar,
        "varchar" => SqlType::Varchar(None),
        // A char without a length (`Char(0)`).
        "bpchar" => SqlType::Char(0),
        "bytea" => SqlType::Bytea,
        "bool" => SqlType::Bool,
        "date" => SqlType::Date,
        "timestamp" => SqlType::Timestamp(None),
        "timestamptz" => SqlType::TimestampTz(None),
        "time" => SqlType::Time(None),
        "timetz" => SqlType::TimeTz(None),
        "uuid" => SqlType::Uuid,
        "interval" => SqlType::Interval(None),
        "json" => SqlType::Json,
        "jsonb" => SqlType::Jsonb,
        "jsonpath" => SqlType::JsonPath,
        range if folio_row::RangeKind::of_name(range).is_some() => {
            SqlType::Range(folio_row::RangeKind::of_name(range).expect("matched"))
        }
        multi if folio_row::RangeKind::of_multirange_name(multi).is_some() => {
            SqlType::Multirange(folio_row::RangeKind::of_multirange_name(multi).expect("matched"))
        }
        // PostgreSQL's name of an array type (`_int2`, `_name`).
        array if array.len() > 1 && array.starts_with('_') => {
            let element = ast::ObjectName::from(vec![ast::Ident::new(&array[1..])]);
            match named_type(&element).ok().and_then(|e| e.array_of()) {
                Some(ty) => ty,
                None => {
                    return Err(SqlError::new(
                        "42704",
                        format!("type \"{name}\" does not exist"),
                    ));
                }
            }
        }
        other => {
            // A user's type: unqualified or in `public`.
            let user = match crate::names::parts(name).as_deref() {
                Some([schema, name]) if schema == "public" => crate::user_types::named(name),
                Some([_]) => crate::user_types::named(other),
                _ => None,
            };
            if let Some(ty) = user {
                return Ok(ty);
            }
            return Err(SqlError::new(
                "42704",
                format!("type \"{name}\" does not exist"),
            ));
        }
    })
}

/// `INTERVAL 'text' [field [TO field]]`: the text read with the
/// qualifier as PostgreSQL reads it (a bare number counts the last
/// field; smaller fields are dropped; a seconds' precision rounds).
pub fn interval_literal(interval: &ast::Interval) -> Result<Value, SqlError> {
    let text = match interval.value.as_ref() {
        ast::Expr::Value(v) => match &v.value {
            ast::Value::SingleQuotedString(t) | ast::Value::EscapedStringLiteral(t) => t,
            other => {
                return Err(SqlError::syntax(format!(
                    "syntax error at or near \"{other}\""
                )));
            }
        },
        other => {
            return Err(SqlError::syntax(format!(
                "syntax error at or near \"{other}\""
            )));
        }
    };
    let fields = match interval.leading_field.as_ref() {
        None => None,
        Some(leading) => {
            let last = interval.last_field.as_ref().unwrap_or(leading);
            let (leading, last) = (interval_unit(leading)?, interval_unit(last)?);
            Some(IntervalFields::of_units(leading, last).ok_or_else(|| {
                SqlError::syntax(format!("syntax error at or near \"{}\"", interval))
            })?)
        }
    };
    // The seconds' precision: `second(p)`'s, or `... to second(p)`'s.
    let precision = match interval.last_field {
        None => interval.leading_precision,
        Some(_) => interval.fractional_seconds_precision,
    };
    let ty = SqlType::Interval(interval_typmod(fields, precision)?);
    Ok(Value::from_text(ty, text)?)
}

/// The modifier of an interval type written with `fields` (`day to
/// second`; `None`: none written) and `precision` (`(p)`): a precision
/// only after all fields or a qualifier ending in `second` (PostgreSQL's
/// grammar: `interval day(2)` is a syntax error), past 6 is 6.
pub fn interval_typmod(
    fields: Option<IntervalFields>,
    precision: Option<u64>,
) -> Result<Option<IntervalTypmod>, SqlError> {
    let fields = fields.unwrap_or(IntervalFields::All);
    if precision.is_some() && !fields.takes_precision() {
        return Err(SqlError::syntax("syntax error at or near \"(\""));
    }
    Ok(IntervalTypmod::new(fields, seconds_precision(precision)))
}

/// A seconds' precision as written (`timestamp(p)`, `interval(p)`): past
/// 6 is 6, as PostgreSQL reduces it (with a warning folio does not give).
fn seconds_precision(precision: Option<u64>) -> Option<u8> {
    precision.map(|p| p.min(u64::from(folio_row::MAX_INTERVAL_PRECISION)) as u8)
}

/// The fields of sqlparser's interval type qualifier.
fn interval_fields(fields: ast::IntervalFields) -> IntervalFields {
    match fields {
        ast::IntervalFields::Year => IntervalFields::Year,
        ast::IntervalFields::Month => IntervalFields::Month,
        ast::IntervalFields::Day => IntervalFields::Day,
        ast::IntervalFields::Hour => IntervalFields::Hour,
        ast::IntervalFields::Minute => IntervalFields::Minute,
        ast::IntervalFields::Second => IntervalFields::Second,
        ast::IntervalFields::YearToMonth => IntervalFields::YearToMonth,
        ast::IntervalFields::DayToHour => IntervalFields::DayToHour,
        ast::IntervalFields::DayToMinute => IntervalFields::DayToMinute,
        ast::IntervalFields::DayToSecond => IntervalFields::DayToSecond,
        ast::IntervalFields::HourToMinute => IntervalFields::HourToMinute,
        ast::IntervalFields::HourToSecond => IntervalFields::HourToSecond,
        ast::IntervalFields::MinuteToSecond => IntervalFields::MinuteToSecond,
    }
}

/// The unit of an interval qualifier's field.
fn interval_unit(field: &ast::DateTimeField) -> Result<folio_row::Unit, SqlError> {
    Ok(match field {
        ast::DateTimeField::Year | ast::DateTimeField::Years => folio_row::Unit::Year,
        ast::DateTimeField::Month | ast::DateTimeField::Months => folio_row::Unit::Month,
        ast::DateTimeField::Day | ast::DateTimeField::Days => folio_row::Unit::Day,
        ast::DateTimeField::Hour | ast::DateTimeField::Hours => folio_row::Unit::Hour,
        ast::DateTimeField::Minute | ast::DateTimeField::Minutes => folio_row::Unit::Minute,
        ast::DateTimeField::Second | ast::DateTimeField::Seconds => folio_row::Unit::Second,
        other => {
            return Err(SqlError::syntax(format!(
                "syntax error at or near \"{other}\""
            )));
        }
    })
}

fn precision(p: u64) -> Result<u16, SqlError> {
    match u16::try_from(p) {
        Ok(p) if (1..=1000).contains(&p) => Ok(p),
        _ => Err(SqlError::new(
            "22023",
            format!("NUMERIC precision {p} must be between 1 and 1000"),
        )),
    }
}

/// The value of a literal as PostgreSQL types it: an integer is `int4`
/// if it fits, else `int8`, else `numeric`; a number with a point or an
/// exponent is `numeric`; a quoted string is `text` until it meets a
/// column ([`coerce`]).
pub fn literal(value: &ast::Value) -> Result<Value, SqlError> {
    Ok(match value {
        ast::Value::Number(text, _) => number(text)?,
        // `E'...'`: the parser has already resolved its escapes.
        ast::Value::SingleQuotedString(s) | ast::Value::EscapedStringLiteral(s) => {
            Value::Text(s.clone())
        }
        ast::Value::Boolean(b) => Value::Bool(*b),
        ast::Value::Null => Value::Null,
        // `B'1010'`, `X'1F'`: bit strings (PostgreSQL's `bit_in` of the
        // text after a `b` or an `x`).
        ast::Value::SingleQuotedByteStringLiteral(s) => bit_literal('b', s)?,
        ast::Value::HexStringLiteral(s) => bit_literal('x', s)?,
        other => return Err(SqlError::unsupported(format!("the literal {other}"))),
    })
}

/// A bit string literal: `kind` (`b` or `x`), then `digits`.
fn bit_literal(kind: char, digits: &str) -> Result<Value, SqlError> {
    Ok(Value::Bit(Box::new(folio_row::BitString::parse(
        &format!("{kind}{digits}"),
    )?)))
}

/// A number literal's value (its text may have a leading minus).
pub fn number(text: &str) -> Result<Value, SqlError> {
    if let Ok(v) = text.parse::<i32>() {
        return Ok(Value::Int4(v));
    }
    if let Ok(v) = text.parse::<i64>() {
        return Ok(Value::Int8(v));
    }
    match Numeric::parse(text) {
        Ok(n) => Ok(Value::Numeric(n)),
        // Past folio's numeric (38 digits): a float8, which PostgreSQL's
        // numeric literal would become on meeting a float column anyway
        // (`select 1e100` prints 1e+100 here, 1 and 100 zeros there).
        Err(_) => match text.parse::<f64>() {
            Ok(x) if x.is_finite() => Ok(Value::Float8(x)),
            _ => Err(SqlError::new(
                "22P02",
                format!("invalid input syntax for type numeric: \"{text}\""),
            )),
        },
    }
}

/// The negation of a numeric value (`-` before a literal).
pub fn negate(value: Value) -> Result<Value, SqlError> {
    let out_of_range = |ty: &str| SqlError::new("22003", format!("{ty} out of range"));
    Ok(match value {
        Value::Int2(v) => Value::Int2(v.checked_neg().ok_or_else(|| out_of_range("smallint"))?),
        Value::Int4(v) => Value::Int4(v.checked_neg().ok_or_else(|| out_of_range("integer"))?),
        Value::Int8(v) => Value::Int8(v.checked_neg().ok_or_else(|| out_of_range("bigint"))?),
        Value::Numeric(n) => Value::Numeric(Numeric::from_i64(0).checked_sub(&n)?),
        Value::Float4(v) => Value::Float4(-v),
        Value::Float8(v) => Value::Float8(-v),
        Value::Interval(i) => Value::Interval(i.checked_neg()?),
        Value::Null => Value::Null,
        other => {
            return Err(crate::functions::no_operator(format!(
                "operator does not exist: - {}",
                other.type_name()
            )));
        }
    })
}

/// PostgreSQL's internal name of a type (`pg_type.typname`).
pub fn typname(ty: SqlType) -> std::borrow::Cow<'static, str> {
    std::borrow::Cow::Borrowed(match ty {
        SqlType::Int2 => "int2",
        SqlType::Int4 => "int4",
        SqlType::Int8 => "int8",
        SqlType::Float4 => "float4",
        SqlType::Float8 => "float8",
        SqlType::Numeric(_) => "numeric",
        SqlType::Text => "text",
        SqlType::Varchar(_) => "varchar",
        SqlType::Char(_) => "bpchar",
        SqlType::Bytea => "bytea",
        SqlType::Bool => "bool",
        SqlType::Date => "date",
        SqlType::Timestamp(_) => "timestamp",
        SqlType::TimestampTz(_) => "timestamptz",
        SqlType::Time(_) => "time",
        SqlType::TimeTz(_) => "timetz",
        SqlType::Uuid => "uuid",
        SqlType::Interval(_) => "interval",
        SqlType::Record => "record",
        SqlType::Json => "json",
        SqlType::Jsonb => "jsonb",
        SqlType::JsonPath => "jsonpath",
        SqlType::Array(element) => return format!("_{}", typname(*element)).into(),
        SqlType::Enum(def) => &def.name,
        SqlType::Composite(def) => &def.name,
        SqlType::Oid => "oid",
        SqlType::InternalChar => "char",
        SqlType::Name => "name",
        SqlType::Tid => "tid",
        SqlType::Xid => "xid",
        SqlType::PgLsn => "pg_lsn",
        SqlType::Money => "money",
        SqlType::Xid8 => "xid8",
        SqlType::PgSnapshot => "pg_snapshot",
        SqlType::TxidSnapshot => "txid_snapshot",
        SqlType::Inet => "inet",
        SqlType::Cidr => "cidr",
        SqlType::MacAddr => "macaddr",
        SqlType::MacAddr8 => "macaddr8",
        SqlType::Refcursor => "refcursor",
        SqlType::Range(kind) => kind.name(),
        SqlType::Multirange(kind) => kind.multirange_name(),
        SqlType::Geo(kind) => kind.name(),
        SqlType::Bit(_) => "bit",
        SqlType::VarBit(_) => "varbit",
        SqlType::TsVector => "tsvector",
        SqlType::TsQuery => "tsquery",
        SqlType::Reg(kind) => kind.name(),
    })
}

/// A value meeting a column of type `ty` (an assignment or a
/// comparison): a quoted literal takes the column's type by that type's
/// input syntax (PostgreSQL's `unknown` literals); numbers and text go
/// through folio-row's assignment rules (`Value::fit`).
pub fn coerce(value: Value, ty: SqlType) -> Result<Value, SqlError> {
    let value = match (value, ty) {
        // Its like_regex patterns compiled too (`jsonpath_functions.rs`).
        (Value::Text(s), SqlType::JsonPath) => crate::jsonpath_functions::parse(&s)?,
        // The type's input syntax: folio-row's, the one owner of it.
        (
            Value::Text(s),
            SqlType::Int2
            | SqlType::Int4
            | SqlType::Int8
            | SqlType::Numeric(_)
            | SqlType::Bool
            | SqlType::Float4
            | SqlType::Float8
            | SqlType::Bytea
            | SqlType::Uuid
            | SqlType::Interval(_)
            | SqlType::Date
            | SqlType::Timestamp(_)
            | SqlType::TimestampTz(_)
            | SqlType::Time(_)
            | SqlType::TimeTz(_)
            | SqlType::Json
            | SqlType::Jsonb
            | SqlType::Enum(_)
            | SqlType::Composite(_)
            | SqlType::Oid
            | SqlType::InternalChar
            | SqlType::Tid
            | SqlType::Xid
            | SqlType::PgLsn
            | SqlType::Money
            | SqlType::Xid8
            | SqlType::PgSnapshot
            | SqlType::TxidSnapshot
            | SqlType::Inet
            | SqlType::Cidr
            | SqlType::MacAddr
            | SqlType::MacAddr8
            | SqlType::Bit(_)
            | SqlType::VarBit(_)
            | SqlType::Geo(_)
            | SqlType::TsVector
            | SqlType::TsQuery
            | SqlType::Range(_)
            | SqlType::Multirange(_)
            | SqlType::Array(_),
        ) => Value::from_text_in(
            ty,
            &s,
            &crate::setting_functions::time_zone(),
            crate::setting_functions::date_order(),
        )?,
        (Value::Int2(v), SqlType::Float4 | SqlType::Float8) => float_of(f64::from(v), ty)?,
        (Value::Int4(v), SqlType::Float4 | SqlType::Float8) => float_of(f64::from(v), ty)?,
        (Value::Int8(v), SqlType::Float4 | SqlType::Float8) => float_of(v as f64, ty)?,
        // By its text, as PostgreSQL's `numeric_float8` (a number past the
        // type's range is 22003 naming the text).
        (Value::Numeric(n), SqlType::Float4 | SqlType::Float8) => {
            Value::from_text(ty, &n.to_string())?
        }
        (Value::Float8(v), SqlType::Float4) => float_of(v, ty)?,
        // By its 15 (float4: 6) significant digits, as PostgreSQL casts.
        (Value::Float8(v), SqlType::Numeric(_)) => {
            Value::Numeric(crate::numeric_functions::from_float(v, 15)?)
        }
        (Value::Float4(v), SqlType::Numeric(_)) => {
            Value::Numeric(crate::numeric_functions::from_float(f64::from(v), 6)?)
        }
        (Value::Int4(v), SqlType::Numeric(_)) => Value::Numeric(Numeric::from_i64(i64::from(v))),
        (Value::Int8(v), SqlType::Numeric(_)) => Value::Numeric(Numeric::from_i64(v)),
        // The session's clock at the instant, the instant of its clock.
        (Value::TimestampTz(v), SqlType::Timestamp(_)) => {
            Value::Timestamp(crate::time_zones::session_local(v)?)
        }
        (Value::Timestamp(v), SqlType::TimestampTz(_)) => {
            Value::TimestampTz(crate::time_zones::session_utc(v)?)
        }
        // PostgreSQL's assignment casts to a time (`cast` owns them).
        (
            v @ (Value::Timestamp(_) | Value::TimestampTz(_) | Value::Interval(_)),
            SqlType::Time(_),
        ) => cast(v, ty)?,
        // And to and from a timetz.
        (v @ (Value::TimestampTz(_) | Value::Time(_)), SqlType::TimeTz(_))
        | (v @ Value::TimeTz(_), SqlType::Time(_)) => cast(v, ty)?,
        // PostgreSQL's implicit casts among the network types.
        (v @ (Value::Inet(_) | Value::Cidr(_)), SqlType::Inet)
        | (v @ (Value::MacAddr(_) | Value::MacAddr8(_)), SqlType::MacAddr | SqlType::MacAddr8) => {
            crate::network_functions::cast(v, ty)?
        }
        (value, _) => value,
    };
    Ok(value.fit(ty)?)
}

/// A value stored into a column of type `ty` (an INSERT's, an UPDATE's,
/// a default's): [`coerce`], and the assignment casts PostgreSQL makes
/// that it does not (a numeric or float to an integer rounds, a value to
/// a string type is its output form, which must fit the length, json to
/// jsonb, an array's elements each by the same rule). The planner has
/// refused a value of a type without one (42804, `assignment.rs`); one
/// that reaches here anyway is `fit`'s mismatch.
pub fn assign(value: Value, ty: SqlType) -> Result<Value, SqlError> {
    let value = match (value, ty) {
        (Value::Array(items), SqlType::Array(element)) => {
            Value::Array(items.try_map(|v| assign(v, *element))?)
        }
        // A row's fields, each by the same rule (`composite_values.rs`).
        (Value::Record(fields), SqlType::Composite(def)) => {
            crate::composite_values::fields_to(fields, def, assign)?
        }
        (v @ (Value::Null | Value::Text(_)), _) => v,
        (v, _) if v.matches(ty) => v,
        (v, _) if assignment_cast(crate::scalar::value_type(&v), ty) => match ty {
            SqlType::Text | SqlType::Varchar(_) | SqlType::Char(_) => cast(v, SqlType::Text)?,
            _ => cast(v, ty)?,
        },
        (v, _) => v,
    };
    coerce(value, ty)
}

/// A `char(n)` value as text: without its trailing blanks (PostgreSQL's
/// `rtrim` in the bpchar-to-text cast).
pub fn char_to_text(value: Value) -> Value {
    match value {
        Value::Text(mut s) => {
            s.truncate(s.trim_end_matches(' ').len());
            Value::Text(s)
        }
        other => other,
    }
}

/// `CAST(value AS ty)` / `value::ty`: PostgreSQL's casts among the types
/// folio has — any value to text (its output form), text to any type (its
/// input form), numbers to numbers (numeric to an integer rounds half away
/// from zero; out of range is 22003), timestamps to dates and back.
pub fn cast(value: Value, ty: SqlType) -> Result<Value, SqlError> {
    // A value already of `ty` (a type without a modifier) is itself.
    if matches!(
        (&value, ty),
        (Value::Int2(_), SqlType::Int2)
            | (Value::Int4(_), SqlType::Int4)
            | (Value::Int8(_), SqlType::Int8)
            | (Value::Bool(_), SqlType::Bool)
            | (Value::Float4(_), SqlType::Float4)
            | (Value::Float8(_), SqlType::Float8)
            | (Value::Date(_), SqlType::Date)
            | (Value::Timestamp(_), SqlType::Timestamp(None))
            | (Value::TimestampTz(_), SqlType::TimestampTz(None))
            | (Value::Uuid(_), SqlType::Uuid)
    ) {
        return Ok(value);
    }
    let value = match (value, ty) {
        (Value::Null, _) => return Ok(Value::Null),
        (v @ Value::Text(_), _) => return coerce(v, ty),
        // An OID alias type's value: its oid to `oid` and the integers
        // but `smallint`, its name to text (below); to its own type only
        // by `reg_types::value_of`, which names it.
        (Value::Reg(r), SqlType::Oid | SqlType::Int4 | SqlType::Int8) => Value::Oid(r.oid),
        (v @ Value::Reg(_), _)
            if !matches!(ty, SqlType::Text | SqlType::Varchar(_) | SqlType::Char(_)) =>
        {
            return Err(no_cast(&v, ty));
        }
        (v, SqlType::Reg(_)) => return Err(no_cast(&v, ty)),
        // The network types' casts (`network_functions.rs`).
        (v @ (Value::Inet(_) | Value::Cidr(_) | Value::MacAddr(_) | Value::MacAddr8(_)), _) => {
            return crate::network_functions::cast(v, ty);
        }
        (v, SqlType::Inet | SqlType::Cidr | SqlType::MacAddr | SqlType::MacAddr8) => {
            return Err(no_cast(&v, ty));
        }
        // The geometric types' casts (`geometry_functions.rs`).
        (v @ Value::Geo(_), _) | (v, SqlType::Geo(_)) => {
            return crate::geometry_functions::cast(v, ty);
        }
        // Text search values: to text by their output (`ts_wire.rs`).
        (v @ (Value::TsVector(_) | Value::TsQuery(_)), _) => return crate::ts_wire::cast(v, ty),
        (v, SqlType::TsVector | SqlType::TsQuery) => return Err(no_cast(&v, ty)),
        (v @ (Value::Json(_) | Value::Jsonb(_)), _) => crate::json_functions::cast(v, ty)?,
        // PostgreSQL's boolean-to-text cast spells the value out (its
        // output form is `t` / `f`).
        (
            Value::Bool(b),
            SqlType::Text | SqlType::Varchar(_) | SqlType::Char(_) | SqlType::Name,
        ) => Value::Text(if b { "true" } else { "false" }.into()),
        (v, SqlType::Text | SqlType::Varchar(_) | SqlType::Char(_) | SqlType::Name) => {
            Value::Text(text_output(&v).unwrap_or_default())
        }
        (Value::Numeric(n), SqlType::Int2 | SqlType::Int4 | SqlType::Int8) => {
            // PostgreSQL's numeric_int4 and kin name what has no integer.
            if n.is_nan() || n.is_infinite() {
                let what = if n.is_nan() { "NaN" } else { "infinity" };
                return Err(SqlError::new(
                    "0A000",
                    format!("cannot convert {what} to {}", ty.name()),
                ));
            }
            let rounded = n
                .fit_typmod(1000, 0)
                .map_err(|_| SqlError::new("22003", format!("{} out of range", ty.name())))?;
            match rounded.parts() {
                Some((m, 0)) => {
                    Value::Int8(i64::try_from(m).map_err(|_| {
                        SqlError::new("22003", format!("{} out of range", ty.name()))
                    })?)
                }
                _ => {
                    return Err(SqlError::new(
                        "22003",
                        format!("{} out of range", ty.name()),
                    ));
                }
            }
        }
        (Value::Int2(x), SqlType::Numeric(_)) => Value::Numeric(Numeric::from_i64(x.into())),
        // Rounded half to even (PostgreSQL's rint); NaN or out of range
        // is 22003.
        (Value::Float4(x), SqlType::Int2 | SqlType::Int4 | SqlType::Int8) => {
            float_to_integer(f64::from(x), ty)?
        }
        (Value::Float8(x), SqlType::Int2 | SqlType::Int4 | SqlType::Int8) => {
            float_to_integer(x, ty)?
        }
        (Value::Bool(b), SqlType::Int4) => Value::Int4(b.into()),
        (Value::Int4(x), SqlType::Bool) => Value::Bool(x != 0),
        // An infinity is the same infinity of the other type
        // (`infinite_datetime.rs`).
        (Value::Timestamp(t), SqlType::Date) => Value::Date(calendar::date_of(t)),
        (Value::TimestampTz(t), SqlType::Date) => {
            Value::Date(calendar::date_of(crate::time_zones::session_local(t)?))
        }
        (Value::Date(d), SqlType::Timestamp(_)) => {
            Value::Timestamp(crate::date_arith::date_midnight(d)?)
        }
        (Value::Date(d), SqlType::TimestampTz(_)) => {
            Value::TimestampTz(crate::date_arith::date_midnight_in_session(d)?)
        }
        // An infinity has no time of day (PostgreSQL: NULL).
        (Value::Timestamp(t) | Value::TimestampTz(t), SqlType::Time(_) | SqlType::TimeTz(_))
            if Infinity::of_timestamp(t).is_some() =>
        {
            Value::Null
        }
        // A time: a timestamp's time of day (a timestamptz's on the
        // session's clock), an interval's time part wrapped into a day;
        // and to an interval, its span.
        (Value::Timestamp(t), SqlType::Time(_)) => Value::Time(folio_row::wrap_time(t)),
        (Value::TimestampTz(t), SqlType::Time(_)) => {
            Value::Time(folio_row::wrap_time(crate::time_zones::session_local(t)?))
        }
        (Value::Interval(i), SqlType::Time(_)) => Value::Time(folio_row::wrap_time(i.micros)),
        (Value::Time(t), SqlType::Interval(_)) => Value::Interval(Interval::new(0, 0, t)),
        // A timetz: a timestamptz's time and offset on the session's
        // clock; a time with the session zone's offset at that time
        // today; to a time, its time (the zone dropped).
        (Value::TimestampTz(t), SqlType::TimeTz(_)) => Value::TimeTz(
            TimeTz::of_instant(t, &crate::setting_functions::time_zone())
                .ok_or_else(|| SqlError::new("22008", "timestamp out of range"))?,
        ),
        (Value::Time(t), SqlType::TimeTz(_)) => Value::TimeTz(
            TimeTz::of_time_today(t, &crate::setting_functions::time_zone())
                .ok_or_else(|| SqlError::new("22008", "time out of range"))?,
        ),
        (Value::TimeTz(t), SqlType::Time(_)) => Value::Time(t.time),
        // No other casts from or to a time or timetz (PostgreSQL's).
        (v @ (Value::Time(_) | Value::TimeTz(_)), _) if !v.matches(ty) => {
            return Err(no_cast(&v, ty));
        }
        (v, SqlType::Time(_) | SqlType::TimeTz(_)) if !v.matches(ty) => {
            return Err(no_cast(&v, ty));
        }
        (Value::Array(items), SqlType::Array(element)) => {
            Value::Array(items.try_map(|v| cast(v, *element))?)
        }
        // A row to a composite type: its fields, each cast
        // (`composite_values.rs`); a composite value is a record.
        (Value::Record(fields), SqlType::Composite(def)) => {
            crate::composite_values::fields_to(fields, def, cast)?
        }
        (v @ Value::Record(_), SqlType::Record) => return Ok(v),
        (v @ Value::Record(_), _) => return Err(no_cast(&v, ty)),
        (v, SqlType::Composite(_) | SqlType::Record) => return Err(no_cast(&v, ty)),
        // An oid is cast from and to the integers only (and text, above;
        // smallint: only to it), as PostgreSQL's `pg_cast`.
        (
            v @ (Value::Numeric(_)
            | Value::Float4(_)
            | Value::Float8(_)
            | Value::Bool(_)
            | Value::Date(_)
            | Value::Timestamp(_)
            | Value::TimestampTz(_)
            | Value::Interval(_)
            | Value::Uuid(_)
            | Value::Bytea(_)),
            SqlType::Oid,
        ) => return Err(no_cast(&v, ty)),
        (v @ Value::Oid(_), _) if !matches!(ty, SqlType::Oid | SqlType::Int4 | SqlType::Int8) => {
            return Err(no_cast(&v, ty));
        }
        // A range is cast from and to text only (above), and to itself.
        (Value::Range(r), SqlType::Range(kind)) if r.kind == kind => Value::Range(r),
        // A multirange from text (above), itself, or its range type's
        // range (`multirange_functions.rs`).
        (v @ Value::Multirange(_), _) | (v, SqlType::Multirange(_)) => {
            return crate::multirange_functions::cast(v, ty);
        }
        (v @ Value::Range(_), _) => return Err(no_cast(&v, ty)),
        (v, SqlType::Range(_)) => return Err(no_cast(&v, ty)),
        // Money's casts (`money_functions.rs`).
        (v @ Value::Money(_), _) | (v, SqlType::Money) => {
            return crate::money_functions::cast(v, ty);
        }
        // xid8's and the snapshots' (`xid_functions.rs`).
        (v @ (Value::Xid8(_) | Value::Snapshot(_)), _)
        | (v, SqlType::Xid8 | SqlType::PgSnapshot | SqlType::TxidSnapshot) => {
            return crate::xid_functions::cast(v, ty);
        }
        // A tid or an xid is cast from and to text only (above).
        (v @ Value::Tid(..), _) if ty != SqlType::Tid => return Err(no_cast(&v, ty)),
        (v @ Value::Xid(_), _) if ty != SqlType::Xid => return Err(no_cast(&v, ty)),
        (v, SqlType::Tid | SqlType::Xid) if !matches!(v, Value::Tid(..) | Value::Xid(_)) => {
            return Err(no_cast(&v, ty));
        }
        // So is a pg_lsn (`pg_lsn(numeric)` is a function: `wal_functions.rs`).
        (v @ Value::PgLsn(_), _) if ty != SqlType::PgLsn => return Err(no_cast(&v, ty)),
        (v, SqlType::PgLsn) if !matches!(v, Value::PgLsn(_)) => return Err(no_cast(&v, ty)),
        // A bit string from and to the integers (`bit_functions.rs`).
        (v @ Value::Bit(_), _) | (v, SqlType::Bit(_) | SqlType::VarBit(_)) => {
            crate::bit_functions::cast(v, ty)?
        }
        // A jsonpath is only text's (above).
        (v @ Value::JsonPath(_), _) if ty != SqlType::JsonPath => return Err(no_cast(&v, ty)),
        (v, SqlType::JsonPath) if !matches!(v, Value::JsonPath(_)) => return Err(no_cast(&v, ty)),
        // A `"char"` from an int4: its byte, signed (PostgreSQL's
        // `i4tochar`); from text by its input (above).
        (Value::Int4(x), SqlType::InternalChar) => {
            let byte =
                i8::try_from(x).map_err(|_| SqlError::new("22003", "\"char\" out of range"))?;
            Value::Text(folio_row::internal_char::text_of_byte(byte as u8))
        }
        // Only text, json and jsonb become json (above).
        (v, SqlType::Json | SqlType::Jsonb) => return Err(no_cast(&v, ty)),
        (v, _) => v,
    };
    // What `coerce` cannot fit has no cast (42846, PostgreSQL's error
    // for an explicit cast; 42804 is an assignment's).
    let from = crate::scalar::value_type(&value);
    coerce(value, ty).map_err(|e| match e.code {
        "42804" => no_cast_from(from, ty),
        _ => e,
    })
}

/// Refuses (42846) an explicit cast from type `from` to `ty` that has
/// no path, when it is bound, as PostgreSQL refuses it when parsing
/// (`select a::date from t` with no rows). [`cast`] decides: it is asked
/// about a sample value of `from`, whose refusal depends on the types
/// alone. A type whose casts depend on the value (text's input) passes.
pub fn check_cast_path(from: SqlType, ty: SqlType) -> Result<(), SqlError> {
    // Bit strings' casts depend on the types alone, bit and bit varying
    // told apart (their values are not).
    if crate::bit_functions::is_bits(from) || crate::bit_functions::is_bits(ty) {
        return crate::bit_functions::check_cast(from, ty);
    }
    if matches!(from, SqlType::Geo(_)) || matches!(ty, SqlType::Geo(_)) {
        return crate::geometry_functions::check_cast(from, ty);
    }
    // A `"char"` casts to the string types and int4 only (PostgreSQL's
    // `pg_cast`; its values are texts, whose casts would read them).
    if from == SqlType::InternalChar {
        return match ty {
            SqlType::Text
            | SqlType::Varchar(_)
            | SqlType::Char(_)
            | SqlType::InternalChar
            | SqlType::Int4 => Ok(()),
            _ => Err(no_cast_from(from, ty)),
        };
    }
    let sample = match from {
        SqlType::Int2 => Value::Int2(0),
        SqlType::Int4 => Value::Int4(0),
        SqlType::Int8 => Value::Int8(0),
        SqlType::Float4 => Value::Float4(0.0),
        SqlType::Float8 => Value::Float8(0.0),
        SqlType::Numeric(_) => Value::Numeric(Numeric::from_i64(0)),
        SqlType::Bool => Value::Bool(false),
        SqlType::Date => Value::Date(0),
        SqlType::Timestamp(_) => Value::Timestamp(0),
        SqlType::TimestampTz(_) => Value::TimestampTz(0),
        SqlType::Time(_) => Value::Time(0),
        SqlType::Interval(_) => Value::Interval(Interval::ZERO),
        SqlType::Uuid => Value::Uuid([0; 16]),
        SqlType::Bytea => Value::Bytea(Vec::new()),
        _ => return Ok(()),
    };
    match explicit_cast(sample, ty) {
        Err(e) if e.code == "42846" => Err(e),
        _ => Ok(()),
    }
}

/// 42846: no cast from `v`'s type to `ty`.
fn no_cast(v: &Value, ty: SqlType) -> SqlError {
    no_cast_from(crate::scalar::value_type(v), ty)
}

/// 42846: no cast from type `from` to `ty`.
pub(crate) fn no_cast_from(from: SqlType, ty: SqlType) -> SqlError {
    SqlError::new(
        "42846",
        format!("cannot cast type {} to {}", from.name(), ty.name()),
    )
}

/// An explicit `CAST(value AS ty)` / `value::ty`: [`cast`], but to
/// `varchar(n)` or `char(n)` the text is first cut
/// to `n` characters, as PostgreSQL's explicit casts cut it
/// (`'abcd'::varchar(2)` is `ab`); an assignment refuses it instead
/// (22001, `Value::fit`). An array of them cuts each element.
pub fn explicit_cast(value: Value, ty: SqlType) -> Result<Value, SqlError> {
    let limit = match ty {
        SqlType::Varchar(Some(n)) => n as usize,
        SqlType::Char(n) if n > 0 => n as usize,
        SqlType::Array(element @ (SqlType::Varchar(Some(_)) | SqlType::Char(_))) => {
            return match cast(value, SqlType::Array(&SqlType::Text))? {
                Value::Array(a) => Ok(Value::Array(a.try_map(|v| explicit_cast(v, *element))?)),
                other => Ok(other),
            };
        }
        SqlType::Bit(Some(_))
        | SqlType::VarBit(Some(_))
        | SqlType::Array(SqlType::Bit(Some(_)) | SqlType::VarBit(Some(_))) => {
            return crate::bit_functions::explicit_cast(value, ty);
        }
        _ => return cast(value, ty),
    };
    let value = match cast(value, SqlType::Text)? {
        Value::Text(mut s) => {
            if let Some((end, _)) = s.char_indices().nth(limit) {
                s.truncate(end);
            }
            Value::Text(s)
        }
        other => other,
    };
    cast(value, ty)
}

/// Whether PostgreSQL casts a value of type `from` to `to` implicitly or
/// in assignment (`pg_cast`'s contexts `i` and `a`, and the I/O
/// conversion to a string type): among the number types, any type to a
/// string type, among the date and timestamp types, json to jsonb and
/// back, an array to an array whose elements cast so, a type to itself.
/// Text to a number, a uuid or a date, and booleans to or from integers,
/// are explicit only (`ALTER COLUMN ... TYPE` without `USING`: 42804).
pub fn assignment_cast(from: SqlType, to: SqlType) -> bool {
    assignment_cast_of(from, to)
}

/// Whether a cast from `from` to `to` of a value that is not a constant
/// gives the same result in every session (PostgreSQL's `IMMUTABLE`
/// casts): not between the text types and the date, timestamp and
/// interval types (their text follows `DateStyle` and `IntervalStyle`),
/// nor between a timestamptz and a date or timestamp (the `TimeZone`).
/// What an index expression may cast.
pub fn cast_immutable(from: SqlType, to: SqlType) -> bool {
    let dated = |t: SqlType| {
        matches!(
            t,
            SqlType::Date
                | SqlType::Timestamp(_)
                | SqlType::TimestampTz(_)
                | SqlType::Time(_)
                | SqlType::TimeTz(_)
                | SqlType::Interval(_)
        )
    };
    let texty = |t: SqlType| matches!(t, SqlType::Text | SqlType::Varchar(_) | SqlType::Char(_));
    if from.oid() == to.oid() {
        return true;
    }
    if (texty(from) && dated(to)) || (dated(from) && texty(to)) {
        return false;
    }
    // To a timetz from a time or timestamptz: by the session's zone.
    let zoned = |t: SqlType| matches!(t, SqlType::TimestampTz(_) | SqlType::TimeTz(_));
    !(dated(from) && dated(to) && (matches!(from, SqlType::TimestampTz(_)) || zoned(to)))
}

fn assignment_cast_of(from: SqlType, to: SqlType) -> bool {
    use SqlType::*;
    let number = |t| matches!(t, Int2 | Int4 | Int8 | Float4 | Float8 | Numeric(_));
    let time = |t| matches!(t, Date | Timestamp(_) | TimestampTz(_));
    from.oid() == to.oid()
        || matches!(to, Text | Varchar(_) | Char(_) | Name)
        // The string types to `"char"` (assignment).
        || (matches!(from, Text | Varchar(_) | Char(_) | Name) && to == InternalChar)
        || crate::geometry_functions::assignment_cast(from, to)
        // Integers to oid (implicit), oid to integer and bigint.
        || (matches!(from, Int2 | Int4 | Int8) && to == Oid)
        || (from == Oid && matches!(to, Int4 | Int8))
        || (number(from) && number(to))
        || (time(from) && time(to))
        // A time to an interval (implicit); a timestamp or an interval
        // to a time (assignment).
        || (matches!(from, Time(_)) && matches!(to, SqlType::Interval(_)))
        || (matches!(from, Timestamp(_) | TimestampTz(_) | SqlType::Interval(_)) && matches!(to, Time(_)))
        // A time to a timetz (implicit); a timestamptz to a timetz, a
        // timetz to a time (assignment).
        || (matches!(from, Time(_) | TimestampTz(_)) && matches!(to, TimeTz(_)))
        || (matches!(from, TimeTz(_)) && matches!(to, Time(_)))
        || matches!((from, to), (Json, Jsonb) | (Jsonb, Json))
        // cidr to inet (implicit), inet to cidr (assignment), the MAC
        // types to each other (implicit).
        || matches!((from, to), (Inet, Cidr) | (Cidr, Inet) | (MacAddr, MacAddr8) | (MacAddr8, MacAddr))
        || crate::bit_functions::assignment_cast(from, to)
        // An array's elements, each by the same rule.
        || matches!((from, to), (Array(a), Array(b)) if assignment_cast_of(*a, *b))
}

/// The float `x` as an integer of type `ty` (`fit` checks the width).
fn float_to_integer(x: f64, ty: SqlType) -> Result<Value, SqlError> {
    let rounded = x.round_ties_even();
    if !(-9.223_372_036_854_776e18..9.223_372_036_854_776e18).contains(&rounded) {
        return Err(SqlError::new(
            "22003",
            format!("{} out of range", ty.name()),
        ));
    }
    Ok(Value::Int8(rounded as i64))
}

/// `x` as a float of type `ty` (float4: 22003 past its range).
fn float_of(x: f64, ty: SqlType) -> Result<Value, SqlError> {
    Ok(match ty {
        SqlType::Float4 => {
            // PostgreSQL's dtof: a finite value past real's range
            // overflows, a nonzero one rounding to zero underflows.
            let y = x as f32;
            if y.is_infinite() && x.is_finite() {
                return Err(SqlError::new("22003", "value out of range: overflow"));
            }
            if y == 0.0 && x != 0.0 {
                return Err(SqlError::new("22003", "value out of range: underflow"));
            }
            Value::Float4(y)
        }
        _ => Value::Float8(x),
    })
}

/// PostgreSQL's boolean input: `t`, `true`, `yes`, `on`, `1` and their
/// opposites, any case, unique prefixes of the words.
pub fn parse_bool(text: &str) -> Option<bool> {
    let t = text.trim().to_ascii_lowercase();
    let prefix_of = |word: &str| !t.is_empty() && word.starts_with(&t);
    if prefix_of("true") || prefix_of("yes") || t == "on" || t == "1" {
        Some(true)
    } else if prefix_of("false") || prefix_of("no") || t == "off" || t == "of" || t == "0" {
        Some(false)
    } else {
        None
    }
}

/// A value in PostgreSQL's text output format (`None` for NULL), in the
/// running statement's style (`setting_functions::text_style`: its
/// `TimeZone`, `DateStyle`, ...) for the types a style changes:
/// folio-row's rendering, the one every output (COPY, casts to text,
/// messages) goes through; the server, writing rows after the
/// statement, gives the session's style to [`text_output_in`].
pub fn text_output(value: &Value) -> Option<String> {
    match value {
        Value::TimestampTz(_)
        | Value::Timestamp(_)
        | Value::Date(_)
        | Value::Interval(_)
        | Value::Float4(_)
        | Value::Float8(_)
        | Value::Array(_)
        | Value::Record(_)
        | Value::Range(_)
        | Value::Multirange(_)
        | Value::Bytea(_) => value.to_text_styled(&crate::setting_functions::text_style()),
        _ => value.to_text(),
    }
}

/// [`text_output`] in `style` (the session's, as the server writes rows).
pub fn text_output_in(value: &Value, style: &folio_row::TextStyle) -> Option<String> {
    value.to_text_styled(style)
}

/// A value in PostgreSQL's binary format (`None` for NULL): integers and
/// floats big-endian, bool one byte, text and bytea their bytes, date
/// days and timestamps microseconds since 2000-01-01 (folio's own units),
/// uuid 16 bytes, numeric as base-10000 digits with weight, sign and
/// display scale; an array with its element type, from `type_oid` (the
/// column's type as described to the client).
pub fn binary_output(value: &Value, type_oid: u32) -> Result<Option<Vec<u8>>, SqlError> {
    Ok(Some(match value {
        Value::Null => return Ok(None),
        Value::Int2(x) => x.to_be_bytes().to_vec(),
        Value::Int4(x) | Value::Date(x) => x.to_be_bytes().to_vec(),
        Value::Oid(x) => x.to_be_bytes().to_vec(),
        // A `"char"`: its one byte (PostgreSQL's `charsend`).
        Value::Text(t) if type_oid == 18 => vec![folio_row::internal_char::byte_of_text(t)],
        Value::Reg(r) => r.oid.to_be_bytes().to_vec(),
        // PostgreSQL's `tidsend`: block, then offset.
        Value::Tid(block, offset) => [&block.to_be_bytes()[..], &offset.to_be_bytes()].concat(),
        // PostgreSQL's `xidsend` is 4 bytes: folio's 64-bit id is cut.
        Value::Xid(x) => (*x as u32).to_be_bytes().to_vec(),
        v @ (Value::Inet(_) | Value::Cidr(_) | Value::MacAddr(_) | Value::MacAddr8(_)) => {
            crate::network_functions::send(v)
        }
        v @ (Value::TsVector(_) | Value::TsQuery(_)) => crate::ts_wire::send(v),
        // PostgreSQL's `pg_lsn_send`: the 8-byte position.
        Value::PgLsn(x) => x.to_be_bytes().to_vec(),
        // PostgreSQL's `cash_send` and `xid8send`: 8 bytes.
        Value::Money(x) => x.to_be_bytes().to_vec(),
        Value::Xid8(x) => x.to_be_bytes().to_vec(),
        // PostgreSQL's `pg_snapshot_send` (folio-row `xid_snapshot.rs`).
        Value::Snapshot(s) => s.send_bytes(),
        // PostgreSQL's `varbit_send`: the bit length, then the bytes.
        Value::Bit(b) => [&(b.len() as i32).to_be_bytes()[..], b.bytes()].concat(),
        // PostgreSQL's `point_send` ... `circle_send` (`geometry.rs`).
        Value::Geo(g) => g.to_bytes(),
        // A time: microseconds since midnight (PostgreSQL's `time_send`).
        Value::Int8(x) | Value::Timestamp(x) | Value::TimestampTz(x) | Value::Time(x) => {
            x.to_be_bytes().to_vec()
        }
        // PostgreSQL's `timetz_send`: the time, then the zone (seconds
        // west).
        Value::TimeTz(t) => [&t.time.to_be_bytes()[..], &t.zone.to_be_bytes()].concat(),
        Value::Float4(x) => x.to_be_bytes().to_vec(),
        Value::Float8(x) => x.to_be_bytes().to_vec(),
        Value::Bool(b) => vec![u8::from(*b)],
        Value::Text(t) => t.as_bytes().to_vec(),
        Value::Bytea(b) => b.clone(),
        Value::Uuid(u) => u.to_vec(),
        // The time, days and months (PostgreSQL's `interval_send`).
        Value::Interval(i) => {
            let mut out = i.micros.to_be_bytes().to_vec();
            out.extend_from_slice(&i.days.to_be_bytes());
            out.extend_from_slice(&i.months.to_be_bytes());
            out
        }
        Value::Numeric(n) => numeric_binary(n),
        Value::Array(items) => array_binary(items, type_oid)?,
        Value::Range(r) => range_binary(r)?,
        Value::Multirange(m) => crate::multirange_wire::send(m)?,
        Value::Record(fields) => crate::row_values::record_binary(fields, type_oid)?,
        Value::Json(text) => text.as_bytes().to_vec(),
        // PostgreSQL's enum_send: the label's bytes.
        Value::Enum(e) => e.label().name.as_bytes().to_vec(),
        // PostgreSQL's jsonb_send: a version byte (1), then the text.
        Value::Jsonb(j) => {
            let mut out = vec![1];
            out.extend_from_slice(j.to_text().as_bytes());
            out
        }
        // PostgreSQL's jsonpath_send: the same.
        Value::JsonPath(p) => {
            let mut out = vec![1];
            out.extend_from_slice(folio_row::path_text(p).as_bytes());
            out
        }
    }))
}

/// PostgreSQL's binary range (`range_send`): the flags byte (folio-row's
/// `range_flags`), then each finite bound, lower first, as its length
/// (i32) and its element type's binary form.
pub(crate) fn range_binary(r: &folio_row::Range) -> Result<Vec<u8>, SqlError> {
    let mut out = vec![folio_row::range_flags_of(r)];
    if let Some((lower, upper)) = &r.bounds {
        for v in [&lower.value, &upper.value].into_iter().flatten() {
            let bytes = binary_output(v, r.kind.element().oid())?.unwrap_or_default();
            out.extend_from_slice(&(bytes.len() as i32).to_be_bytes());
            out.extend_from_slice(&bytes);
        }
    }
    Ok(out)
}

/// A range of `kind` from PostgreSQL's binary range ([`range_binary`]),
/// made by folio-row's `Range::new` as any range is (PostgreSQL's
/// `range_recv` checks and canonicalises the same way).
pub(crate) fn range_binary_input(
    bytes: &[u8],
    kind: folio_row::RangeKind,
) -> Result<Value, SqlError> {
    use folio_row::range_flags::*;
    use folio_row::{Bound, Range};
    let short = || SqlError::new("22P03", "insufficient data left in message");
    let (&flags, mut rest) = bytes.split_first().ok_or_else(short)?;
    if flags & EMPTY != 0 {
        if !rest.is_empty() {
            return Err(SqlError::new(
                "22P03",
                "incorrect binary data format in range",
            ));
        }
        return Ok(Value::Range(Box::new(Range::empty(kind))));
    }
    let mut bound = |infinite: u8, inclusive: u8| -> Result<Bound, SqlError> {
        if flags & infinite != 0 {
            return Ok(Bound::INFINITE);
        }
        if rest.len() < 4 {
            return Err(short());
        }
        let len = i32::from_be_bytes(rest[..4].try_into().expect("4"));
        let len = usize::try_from(len).map_err(|_| short())?;
        if rest.len() - 4 < len {
            return Err(short());
        }
        let value = binary_input(&rest[4..4 + len], kind.element())?;
        rest = &rest[4 + len..];
        Ok(Bound::at(value, flags & inclusive != 0))
    };
    let lower = bound(LOWER_INFINITE, LOWER_INCLUSIVE)?;
    let upper = bound(UPPER_INFINITE, UPPER_INCLUSIVE)?;
    if !rest.is_empty() {
        return Err(SqlError::new(
            "22P03",
            "incorrect binary data format in range",
        ));
    }
    Ok(Value::Range(Box::new(Range::new(kind, lower, upper)?)))
}

/// PostgreSQL's binary array: dimensions (0 for an empty array, else 1),
/// whether any element is NULL, the element type's oid, then the length
/// and lower bound (1), then each element as its length (-1 for NULL)
/// and binary form.
fn array_binary(array: &folio_row::Array, type_oid: u32) -> Result<Vec<u8>, SqlError> {
    let element = crate::user_types::of_oid(type_oid, -1)
        .and_then(SqlType::element)
        .unwrap_or(SqlType::Text);
    let mut out = Vec::new();
    let dims = array.dims();
    out.extend_from_slice(&(dims.len() as i32).to_be_bytes());
    out.extend_from_slice(&i32::from(array.contains(&Value::Null)).to_be_bytes());
    out.extend_from_slice(&element.oid().to_be_bytes());
    for d in &dims {
        out.extend_from_slice(&(d.len as i32).to_be_bytes());
        out.extend_from_slice(&d.lower.to_be_bytes());
    }
    let items = array.items();
    for item in items {
        match binary_output(item, element.oid())? {
            None => out.extend_from_slice(&(-1i32).to_be_bytes()),
            Some(bytes) => {
                out.extend_from_slice(&(bytes.len() as i32).to_be_bytes());
                out.extend_from_slice(&bytes);
            }
        }
    }
    Ok(out)
}

/// An array of `element`s from PostgreSQL's binary array ([`array_binary`]):
/// its dimensions (each a length and a lower bound), the element type
/// the column's (else 42804, as PostgreSQL's `wrong element type`).
fn array_binary_input(bytes: &[u8], element: SqlType) -> Result<Value, SqlError> {
    fn take<'a>(rest: &mut &'a [u8], n: usize) -> Result<&'a [u8], SqlError> {
        if rest.len() < n {
            return Err(SqlError::new("22P03", "insufficient data left in message"));
        }
        let (head, tail) = rest.split_at(n);
        *rest = tail;
        Ok(head)
    }
    fn word(rest: &mut &[u8]) -> Result<i32, SqlError> {
        Ok(i32::from_be_bytes(take(rest, 4)?.try_into().expect("4")))
    }
    let mut rest = bytes;
    let (dimensions, _has_nulls) = (word(&mut rest)?, word(&mut rest)?);
    if word(&mut rest)? as u32 != element.oid() {
        return Err(SqlError::new("42804", "wrong element type"));
    }
    if !(0..=folio_row::MAX_DIMS as i32).contains(&dimensions) {
        return Err(SqlError::new(
            "22P03",
            format!("invalid number of dimensions: {dimensions}"),
        ));
    }
    let mut dims = Vec::new();
    for _ in 0..dimensions {
        let (len, lower) = (word(&mut rest)?, word(&mut rest)?);
        let len = u32::try_from(len).map_err(|_| SqlError::new("22P03", "invalid array length"))?;
        dims.push(folio_row::Dim { lower, len });
    }
    // Each element takes 4 bytes at least: a count past the message is
    // cut short below, with no allocation for it.
    let count = (dims.iter()).fold(usize::from(!dims.is_empty()), |n, d| {
        n.saturating_mul(d.len as usize)
    });
    let mut items = Vec::with_capacity(count.min(rest.len() / 4));
    for _ in 0..count {
        let len = word(&mut rest)?;
        items.push(match usize::try_from(len) {
            Err(_) => Value::Null,
            Ok(len) => binary_input(take(&mut rest, len)?, element)?,
        });
    }
    if !rest.is_empty() {
        return Err(SqlError::new(
            "22P03",
            "incorrect binary data format in array",
        ));
    }
    Ok(Value::Array(folio_row::Array::new(dims, items)?))
}

/// PostgreSQL's binary numeric: ndigits, weight, sign, dscale (i16 each),
/// then the base-10000 digits.
fn numeric_binary(n: &Numeric) -> Vec<u8> {
    let header = |ndigits: usize, weight: i32, sign: u16, dscale: u32| {
        let mut out = Vec::with_capacity(8 + 2 * ndigits);
        // PostgreSQL's limits keep each word in an i16.
        out.extend_from_slice(&(ndigits as i16).to_be_bytes());
        out.extend_from_slice(&(weight as i16).to_be_bytes());
        out.extend_from_slice(&sign.to_be_bytes());
        out.extend_from_slice(&(dscale as i16).to_be_bytes());
        out
    };
    // PostgreSQL's NUMERIC_NAN, NUMERIC_PINF and NUMERIC_NINF sign words.
    let Some(scale) = n.scale() else {
        let sign = match n {
            Numeric::Infinity { negative: false } => 0xD000,
            Numeric::Infinity { negative: true } => 0xF000,
            _ => 0xC000,
        };
        return header(0, 0, sign, 0);
    };
    let (weight, digits) = n.base10000().unwrap_or((0, Vec::new()));
    let sign = if n.signum() == Some(-1) { 0x4000 } else { 0 };
    let mut out = header(digits.len(), weight, sign, scale);
    for d in digits {
        out.extend_from_slice(&d.to_be_bytes());
    }
    out
}

/// A value of type `ty` from PostgreSQL's binary format.
pub fn binary_input(bytes: &[u8], ty: SqlType) -> Result<Value, SqlError> {
    let bad = || {
        SqlError::new(
            "22P03",
            format!("incorrect binary data format for type {}", ty.name()),
        )
    };
    let fixed = |n: usize| -> Result<&[u8], SqlError> {
        if bytes.len() == n {
            Ok(bytes)
        } else {
            Err(bad())
        }
    };
    Ok(match ty {
        SqlType::Int2 => Value::Int2(i16::from_be_bytes(fixed(2)?.try_into().expect("2"))),
        SqlType::Int4 => Value::Int4(i32::from_be_bytes(fixed(4)?.try_into().expect("4"))),
        SqlType::Oid => Value::Oid(u32::from_be_bytes(fixed(4)?.try_into().expect("4"))),
        SqlType::Reg(kind) => Value::Reg(Box::new(folio_row::RegValue::unnamed(
            kind,
            u32::from_be_bytes(fixed(4)?.try_into().expect("4")),
        ))),
        SqlType::Tid => {
            let b = fixed(6)?;
            Value::Tid(
                u32::from_be_bytes(b[..4].try_into().expect("4")),
                u16::from_be_bytes(b[4..].try_into().expect("2")),
            )
        }
        SqlType::Xid => Value::Xid(u32::from_be_bytes(fixed(4)?.try_into().expect("4")).into()),
        SqlType::PgLsn => Value::PgLsn(u64::from_be_bytes(fixed(8)?.try_into().expect("8"))),
        SqlType::Money => Value::Money(i64::from_be_bytes(fixed(8)?.try_into().expect("8"))),
        SqlType::Xid8 => Value::Xid8(u64::from_be_bytes(fixed(8)?.try_into().expect("8"))),
        SqlType::PgSnapshot | SqlType::TxidSnapshot => Value::Snapshot(Box::new(
            folio_row::XidSnapshot::from_send_bytes(bytes, ty == SqlType::TxidSnapshot)
                .ok_or_else(|| SqlError::new("22P03", "invalid external pg_snapshot data"))?,
        )),
        SqlType::Inet | SqlType::Cidr | SqlType::MacAddr | SqlType::MacAddr8 => {
            crate::network_functions::receive(bytes, ty).ok_or_else(bad)??
        }
        SqlType::TsVector | SqlType::TsQuery => crate::ts_wire::receive(bytes, ty)?,
        SqlType::Date => Value::Date(i32::from_be_bytes(fixed(4)?.try_into().expect("4"))),
        SqlType::Int8 => Value::Int8(i64::from_be_bytes(fixed(8)?.try_into().expect("8"))),
        SqlType::Timestamp(_) => {
            Value::Timestamp(i64::from_be_bytes(fixed(8)?.try_into().expect("8")))
        }
        SqlType::TimestampTz(_) => {
            Value::TimestampTz(i64::from_be_bytes(fixed(8)?.try_into().expect("8")))
        }
        // PostgreSQL's `time_recv`: 22008 outside a day.
        SqlType::Time(_) => {
            let micros = i64::from_be_bytes(fixed(8)?.try_into().expect("8"));
            if !(0..=folio_row::TIME_END).contains(&micros) {
                return Err(SqlError::new("22008", "time out of range"));
            }
            Value::Time(micros)
        }
        // PostgreSQL's `timetz_recv`: 22008 outside a day, 22009 for a
        // zone of 16 hours or more.
        SqlType::TimeTz(_) => {
            let b = fixed(12)?;
            let time = i64::from_be_bytes(b[..8].try_into().expect("8"));
            let zone = i32::from_be_bytes(b[8..].try_into().expect("4"));
            if !(0..=folio_row::TIME_END).contains(&time) {
                return Err(SqlError::new("22008", "time out of range"));
            }
            if zone.abs() > folio_row::ZONE_LIMIT_SECONDS {
                return Err(SqlError::new(
                    "22009",
                    "time zone displacement out of range",
                ));
            }
            Value::TimeTz(TimeTz::new(time, zone))
        }
        SqlType::Float4 => Value::Float4(f32::from_be_bytes(fixed(4)?.try_into().expect("4"))),
        SqlType::Float8 => Value::Float8(f64::from_be_bytes(fixed(8)?.try_into().expect("8"))),
        SqlType::Bool => Value::Bool(fixed(1)?[0] != 0),
        // A string's bytes as its text: UTF-8 without NUL, or 22021.
        SqlType::Text | SqlType::Varchar(_) | SqlType::Char(_) | SqlType::Refcursor => {
            Value::Text(crate::text_bytes::text(bytes.to_vec())?)
        }
        SqlType::Name => Value::Text(folio_row::name_truncate(crate::text_bytes::text(
            bytes.to_vec(),
        )?)),
        // One byte (PostgreSQL's `charrecv`), held as its output form.
        SqlType::InternalChar => Value::Text(folio_row::internal_char::text_of_byte(fixed(1)?[0])),
        SqlType::Bytea => Value::Bytea(bytes.to_vec()),
        // PostgreSQL's `varbit_recv`: the bit length, then exactly its
        // bytes (22P03 otherwise), fitted to the type's length.
        SqlType::Geo(kind) => Value::Geo(Box::new(
            folio_row::geometry::Geometry::from_bytes(kind, bytes).ok_or_else(bad)?,
        )),
        SqlType::Bit(_) | SqlType::VarBit(_) => {
            let (len, bits) = bytes.split_at_checked(4).ok_or_else(bad)?;
            let len = i32::from_be_bytes(len.try_into().expect("4"));
            let len = usize::try_from(len)
                .ok()
                .filter(|n| *n <= folio_row::MAX_BITS);
            let bits = len.and_then(|len| {
                (bits.len() == len.div_ceil(8))
                    .then(|| folio_row::BitString::from_bytes(len, bits))?
            });
            Value::Bit(Box::new(bits.ok_or_else(bad)?)).fit(ty)?
        }
        SqlType::Uuid => Value::Uuid(fixed(16)?.try_into().expect("16")),
        SqlType::Interval(_) => {
            let b = fixed(16)?;
            Value::Interval(Interval::new(
                i32::from_be_bytes(b[12..16].try_into().expect("4")),
                i32::from_be_bytes(b[8..12].try_into().expect("4")),
                i64::from_be_bytes(b[..8].try_into().expect("8")),
            ))
        }
        SqlType::Json | SqlType::Enum(_) => {
            Value::from_text(ty, std::str::from_utf8(bytes).map_err(|_| bad())?)?
        }
        SqlType::Jsonb => match bytes.split_first() {
            Some((1, text)) => Value::from_text(ty, std::str::from_utf8(text).map_err(|_| bad())?)?,
            Some((version, _)) => {
                return Err(SqlError::new(
                    "XX000",
                    format!("unsupported jsonb version number {version}"),
                ));
            }
            None => return Err(bad()),
        },
        SqlType::JsonPath => match bytes.split_first() {
            Some((1, text)) => {
                crate::jsonpath_functions::parse(std::str::from_utf8(text).map_err(|_| bad())?)?
            }
            Some((version, _)) => {
                return Err(SqlError::new(
                    "XX000",
                    format!("unsupported jsonpath version number: {version}"),
                ));
            }
            None => return Err(bad()),
        },
        SqlType::Array(element) => array_binary_input(bytes, *element)?,
        SqlType::Range(kind) => range_binary_input(bytes, kind)?,
        SqlType::Multirange(kind) => crate::multirange_wire::receive(bytes, kind)?,
        SqlType::Record | SqlType::Composite(_) => {
            return Err(SqlError::unsupported(format!(
                "binary input of type {}",
                ty.name()
            )));
        }
        SqlType::Numeric(_) => {
            if bytes.len() < 8 {
                return Err(bad());
            }
            let word = |i: usize| i16::from_be_bytes([bytes[i], bytes[i + 1]]);
            let (ndigits, weight, sign, dscale) = (word(0), word(2), word(4) as u16, word(6));
            match sign {
                0xC000 => return Ok(Value::Numeric(Numeric::NaN)),
                0xD000 => return Ok(Value::Numeric(Numeric::INFINITY)),
                0xF000 => return Ok(Value::Numeric(Numeric::NEG_INFINITY)),
                _ => {}
            }
            if ndigits < 0 || bytes.len() != 8 + 2 * ndigits as usize {
                return Err(bad());
            }
            // digits * 10000^(weight - i), as decimal text.
            let mut text = String::from(if sign == 0x4000 { "-" } else { "" });
            let mut value_digits = String::new();
            for i in 0..ndigits as usize {
                value_digits.push_str(&format!("{:04}", word(8 + 2 * i)));
            }
            // The point sits after (weight + 1) groups.
            let point = (i32::from(weight) + 1) * 4;
            let body = if point <= 0 {
                format!("0.{}{value_digits}", "0".repeat((-point) as usize))
            } else if point as usize >= value_digits.len() {
                format!(
                    "{value_digits}{}",
                    "0".repeat(point as usize - value_digits.len())
                )
            } else {
                format!(
                    "{}.{}",
                    &value_digits[..point as usize],
                    &value_digits[point as usize..]
                )
            };
            text.push_str(if body.is_empty() { "0" } else { &body });
            let n = Numeric::parse(&text).map_err(|_| bad())?;
            Value::Numeric(
                n.round_to(i32::from(dscale.max(0)), Rounding::HalfAwayFromZero)
                    .map_err(|_| bad())?,
            )
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    // Proves the text output of dates and timestamps (PostgreSQL's epoch
    // 2000-01-01, leap years, fractions cut of trailing zeros) and of
    // booleans, bytea and uuids, as PostgreSQL 15 prints them.
    #[test]
    fn text_output_matches_postgresql() {
        let out = |v: Value| text_output(&v).unwrap();
        assert_eq!(out(Value::Date(0)), "2000-01-01");
        assert_eq!(out(Value::Date(59)), "2000-02-29");
        assert_eq!(out(Value::Date(-1)), "1999-12-31");
        assert_eq!(out(Value::Date(9_460)), "2025-11-25");
        assert_eq!(out(Value::Timestamp(1_500_000)), "2000-01-01 00:00:01.5");
        assert_eq!(
            out(Value::Timestamp(86_400_000_000 + 3_723_000_001)),
            "2000-01-02 01:02:03.000001"
        );
        assert_eq!(out(Value::TimestampTz(0)), "2000-01-01 00:00:00+00");
        assert_eq!(out(Value::Bool(true)), "t");
        assert_eq!(out(Value::Bytea(vec![0xde, 0xad])), "\\xdead");
        assert_eq!(
            out(Value::Uuid(
                *b"\x12\x34\x56\x78\x9a\xbc\xde\xf0\x12\x34\x56\x78\x9a\xbc\xde\xf0"
            )),
            "12345678-9abc-def0-1234-56789abcdef0"
        );
        assert_eq!(text_output(&Value::Null), None);
    }

    // Proves literals are typed as PostgreSQL types them.
    #[test]
    fn literals_take_postgresql_types() {
        let num = |s: &str| literal(&ast::Value::Number(s.into(), false)).unwrap();
        assert_eq!(num("2147483647"), Value::Int4(i32::MAX));
        assert_eq!(num("2147483648"), Value::Int8(1 << 31));
        assert!(matches!(num("9223372036854775808"), Value::Numeric(_)));
        assert!(matches!(num("1.5"), Value::Numeric(_)));
        assert_eq!(
            coerce(Value::Text(" 12 ".into()), SqlType::Int4).unwrap(),
            Value::Int4(12)
        );
        assert_eq!(
            coerce(Value::Text("yes".into()), SqlType::Bool).unwrap(),
            Value::Bool(true)
        );
        assert_eq!(
            coerce(Value::Text("x".into()), SqlType::Int4)
                .unwrap_err()
                .code,
            "22P02"
        );
    }
}

#[cfg(test)]
mod binary_tests {
    use super::*;

    // Proves numerics survive PostgreSQL's binary format both ways, with
    // their display scale, and the byte layout of one known value.
    #[test]
    fn numeric_binary_round_trips() {
        for text in [
            "0",
            "1.50",
            "-12345.678",
            "0.0001",
            "10000",
            "99999999.9999",
            "-0.5",
            "-123456789012345678901234567890123456789012345678901234567890.123",
            "1e-300",
            "1e400",
            "0e-300",
        ] {
            let v = Value::Numeric(Numeric::parse(text).unwrap());
            let bytes = binary_output(&v, 1700).unwrap().unwrap();
            let back = binary_input(&bytes, SqlType::Numeric(None)).unwrap();
            assert_eq!(text_output(&back), text_output(&v), "{text}");
        }
        // 12345.678: digits 1, 2345, 6780; weight 1; dscale 3.
        let v = Value::Numeric(Numeric::parse("12345.678").unwrap());
        let bytes = binary_output(&v, 1700).unwrap().unwrap();
        let words: Vec<i16> = bytes
            .chunks(2)
            .map(|c| i16::from_be_bytes([c[0], c[1]]))
            .collect();
        assert_eq!(words, [3, 1, 0, 3, 1, 2345, 6780]);
        // -1e40 + 0.5: digits 1, 0 (x9), 5000 stripped to 1, 0..., 5000;
        // weight 10, dscale 1, as PostgreSQL sends it.
        let v =
            Value::Numeric(Numeric::parse("-10000000000000000000000000000000000000000.5").unwrap());
        let bytes = binary_output(&v, 1700).unwrap().unwrap();
        let words: Vec<i16> = bytes
            .chunks(2)
            .map(|c| i16::from_be_bytes([c[0], c[1]]))
            .collect();
        let mut expected = vec![12, 10, 0x4000, 1, 1];
        expected.extend([0; 10]);
        expected.push(5000);
        assert_eq!(words, expected);
    }

    // Proves NaN and the infinities go out as PostgreSQL's special sign
    // words (NUMERIC_NAN 0xC000, NUMERIC_PINF 0xD000, NUMERIC_NINF 0xF000,
    // no digits) and come back as themselves.
    #[test]
    fn numeric_special_values_in_binary() {
        for (text, sign) in [
            ("NaN", 0xC000u16),
            ("Infinity", 0xD000),
            ("-Infinity", 0xF000),
        ] {
            let v = Value::Numeric(Numeric::parse(text).unwrap());
            let bytes = binary_output(&v, 1700).unwrap().unwrap();
            let mut wanted = vec![0u8; 8];
            wanted[4..6].copy_from_slice(&sign.to_be_bytes());
            assert_eq!(bytes, wanted, "{text}");
            let back = binary_input(&bytes, SqlType::Numeric(None)).unwrap();
            assert_eq!(text_output(&back).as_deref(), Some(text));
        }
    }

    // Proves an enum value goes out in binary as its label's bytes
    // (PostgreSQL's `enum_send`), comes back equal, and a label the type
    // lacks is 22P02.
    #[test]
    fn enum_binary_is_the_label() {
        let def = folio_row::EnumType::intern(folio_row::EnumType {
            oid: 16390,
            array_oid: 16389,
            name: "mood".into(),
            labels: ["sad", "ok"]
                .iter()
                .enumerate()
                .map(|(i, l)| folio_row::EnumLabel {
                    oid: 16391 + i as u32,
                    sort: i as f64 + 1.0,
                    name: l.to_string(),
                })
                .collect(),
        });
        let ok = Value::Enum(def.value_of("ok").unwrap());
        let sent = binary_output(&ok, def.oid).unwrap().unwrap();
        assert_eq!(sent, b"ok");
        assert_eq!(binary_input(&sent, SqlType::Enum(def)).unwrap(), ok);
        assert_eq!(
            binary_input(b"meh", SqlType::Enum(def)).unwrap_err().code,
            "22P02"
        );
    }

    // Proves intervals go out in PostgreSQL's binary form (the bytes of
    // its `interval_send` for the same values) and come back.
    #[test]
    fn interval_binary_is_postgresqls() {
        let hex = |b: &[u8]| b.iter().map(|x| format!("{x:02x}")).collect::<String>();
        for (text, sent) in [
            (
                "1 year 2 days 03:00:00.5",
                "0000000283c28d20000000020000000c",
            ),
            ("-1 mon -1 us", "ffffffffffffffff00000000ffffffff"),
        ] {
            let v = Value::from_text(SqlType::Interval(None), text).unwrap();
            let bytes = binary_output(&v, 1186).unwrap().unwrap();
            assert_eq!(hex(&bytes), sent, "{text}");
            assert_eq!(binary_input(&bytes, SqlType::Interval(None)).unwrap(), v);
        }
    }

    // Proves a time's binary form is PostgreSQL's `time_send` (the bytes
    // PostgreSQL 15's gives for the same values: microseconds since
    // midnight, big-endian), that it comes back, and that `time_recv`'s
    // range check (22008 outside 00:00 to 24:00) holds.
    #[test]
    fn time_binary_is_postgresqls() {
        let hex = |b: &[u8]| b.iter().map(|x| format!("{x:02x}")).collect::<String>();
        for (text, sent) in [
            ("12:34:56.789", "0000000a8be62608"),
            ("24:00", "000000141dd76000"),
            ("00:00:00.000001", "0000000000000001"),
        ] {
            let v = Value::from_text(SqlType::Time(None), text).unwrap();
            let bytes = binary_output(&v, 1083).unwrap().unwrap();
            assert_eq!(hex(&bytes), sent, "{text}");
            assert_eq!(binary_input(&bytes, SqlType::Time(None)).unwrap(), v);
        }
        let past = (folio_row::TIME_END + 1).to_be_bytes();
        assert_eq!(
            binary_input(&past, SqlType::Time(None)).unwrap_err().code,
            "22008"
        );
        assert_eq!(
            binary_input(&(-1i64).to_be_bytes(), SqlType::Time(None))
                .unwrap_err()
                .code,
            "22008"
        );
    }

    // Proves a timetz's binary form is PostgreSQL's `timetz_send` (the
    // bytes PostgreSQL 15's gives: the time, then the zone in seconds
    // west, big-endian), that it comes back, and `timetz_recv`'s checks.
    #[test]
    fn timetz_binary_is_postgresqls() {
        let hex = |b: &[u8]| b.iter().map(|x| format!("{x:02x}")).collect::<String>();
        for (text, sent) in [
            ("12:34:56.789+02", "0000000a8be62608ffffe3e0"),
            ("24:00-05:30:15", "000000141dd7600000004d67"),
        ] {
            let v = Value::from_text(SqlType::TimeTz(None), text).unwrap();
            let bytes = binary_output(&v, 1266).unwrap().unwrap();
            assert_eq!(hex(&bytes), sent, "{text}");
            assert_eq!(binary_input(&bytes, SqlType::TimeTz(None)).unwrap(), v);
        }
        let bytes = |time: i64, zone: i32| [&time.to_be_bytes()[..], &zone.to_be_bytes()].concat();
        let code = |b: Vec<u8>| binary_input(&b, SqlType::TimeTz(None)).unwrap_err().code;
        assert_eq!(code(bytes(folio_row::TIME_END + 1, 0)), "22008");
        assert_eq!(code(bytes(0, 16 * 3600)), "22009");
    }

    // Proves a bit string's binary form is PostgreSQL's `varbit_send`
    // (the bytes PostgreSQL 15's `varbit_send(B'101011111')` gives: the
    // bit length, then the bits), that it comes back, fitted to the
    // column's length as `bit_recv` fits it, and short or long data is
    // 22P03.
    #[test]
    fn bit_string_binary_is_postgresqls() {
        let hex = |b: &[u8]| b.iter().map(|x| format!("{x:02x}")).collect::<String>();
        let v = Value::from_text(SqlType::VarBit(None), "101011111").unwrap();
        let bytes = binary_output(&v, 1562).unwrap().unwrap();
        assert_eq!(hex(&bytes), "00000009af80");
        assert_eq!(binary_input(&bytes, SqlType::Bit(Some(9))).unwrap(), v);
        assert_eq!(
            binary_input(&bytes, SqlType::Bit(Some(8)))
                .unwrap_err()
                .code,
            "22026"
        );
        assert_eq!(
            binary_input(&bytes[..5], SqlType::VarBit(None))
                .unwrap_err()
                .code,
            "22P03"
        );
        assert_eq!(
            binary_input(&[0, 0, 0, 0, 1], SqlType::VarBit(None))
                .unwrap_err()
                .code,
            "22P03"
        );
    }
}
