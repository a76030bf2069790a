//! Values as text, in PostgreSQL 15's default formats (`DateStyle =
//! ISO, MDY`, `bytea_output = hex`, `extra_float_digits = 1`): what the
//! wire protocol's text format and `psql` show, and what `INSERT ...
//! VALUES ('...')` accepts. A timestamptz is written and read in a time
//! zone the caller gives (the session's `TimeZone`, in the style
//! [`Value::to_text_styled`] takes, and [`Value::from_text_in`]);
//! [`Value::to_text`] and [`Value::from_text`] use UTC.
//!
//! | type | output | input also accepts |
//! |---|---|---|
//! | int2/int4/int8 | decimal | surrounding blanks, a sign; out of range: 22003 |
//! | float4/float8 | shortest exact digits; exponent form (`1e+20`, `1.5e-05`) below 1e-4 or from 1e15 (1e6 for float4); `NaN`, `Infinity`, `-Infinity` | `inf`, `-inf`, any case |
//! | numeric | at its scale (`12.340`), `NaN`, `Infinity`, `-Infinity` | exponent, `+`/`-`; `inf`, `-inf`, any case |
//! | bool | `t` / `f` | `true`, `false`, `yes`, `no`, `on`, `off`, `1`, `0`, any case, prefixes |
//! | bytea | `\x` and hex digits | the escape format (`\\`, `\ooo`) |
//! | date | `YYYY-MM-DD`, `YYYY-MM-DD BC` | `datetime_input.rs`: `YYYYMMDD`, `MM/DD/YYYY`, `AD`, `epoch`, `today`, ... |
//! | timestamp | `YYYY-MM-DD HH:MM:SS[.ffffff]` (trailing zeros of the fraction dropped) | `T` between date and time (`datetime_input.rs`) |
//! | timestamptz | the same in the session's zone, then its offset (`+02`, `+05:30`; then ` BC`) | an offset `±HH`, `±HHMM`, `±HH:MM`, a zone name or abbreviation (none: the session's zone) |
//! | interval | `1 year 2 mons -3 days +04:05:06.5` (IntervalStyle `postgres`) | `interval_input.rs` |
//! | uuid | `xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx`, lower case | no hyphens, braces, upper case |
//!
//! Not accepted yet: `infinity` dates and timestamps, other date styles.

use crate::datetime_fields::DateOrder;
use crate::datetime_input as input;
use crate::error::RowError;
use crate::infinite_datetime::Infinity;
use crate::numeric::Numeric;
use crate::text_style::{DEFAULT_STYLE, TextStyle};
use crate::time_zone::TimeZone;
use crate::types::SqlType;
use crate::value::Value;

fn syntax(ty: SqlType, text: &str) -> RowError {
    RowError::InvalidText {
        type_name: match ty {
            SqlType::Int2 => "smallint".into(),
            SqlType::Int4 => "integer".into(),
            SqlType::Int8 => "bigint".into(),
            SqlType::Float8 => "double precision".into(),
            // The type's name without its modifier, as PostgreSQL's.
            SqlType::Numeric(_) => "numeric".into(),
            other => other.name(),
        },
        text: text.to_string(),
    }
}

fn out_of_range(ty: SqlType, text: &str) -> RowError {
    RowError::OutOfRange {
        type_name: ty.name(),
        text: text.to_string(),
    }
}

fn float_out_of_range(ty: SqlType, text: &str) -> RowError {
    RowError::FloatOutOfRange {
        type_name: ty.name(),
        text: text.to_string(),
    }
}

/// A bytea in `bytea_output = escape`: printable ASCII (0x20..=0x7e) as
/// itself but `\`, which is doubled; any other byte `\ooo` in octal.
fn bytea_escaped(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len());
    for &b in bytes {
        match b {
            b'\\' => out.push_str("\\\\"),
            0x20..=0x7e => out.push(b as char),
            _ => out.push_str(&format!("\\{b:03o}")),
        }
    }
    out
}

/// The text of a float that has no digits (`NaN`, `Infinity`,
/// `-Infinity`), or `None` for a finite one.
fn special_float(v: f64) -> Option<&'static str> {
    if v.is_nan() {
        Some("NaN")
    } else if v.is_infinite() {
        Some(if v > 0.0 { "Infinity" } else { "-Infinity" })
    } else {
        None
    }
}

/// PostgreSQL 15's float output with `extra_float_digits` at 0 or below:
/// `precision` significant digits (at least 1), as C's `%.*g` writes
/// them: exponent form when the decimal exponent is below -4 or at least
/// the precision, trailing zeros dropped.
fn format_float_digits(v: f64, precision: i32) -> String {
    if let Some(text) = special_float(v) {
        return text.into();
    }
    let p = precision.max(1) as usize;
    let sci = format!("{:.*e}", p - 1, v);
    let (mantissa, exp) = sci.split_once('e').expect("`{:e}` has an exponent");
    let exp: i32 = exp.parse().expect("an integer exponent");
    let trim = |s: &str| -> String {
        match s.contains('.') {
            true => s.trim_end_matches('0').trim_end_matches('.').to_string(),
            false => s.to_string(),
        }
    };
    if exp < -4 || exp >= p as i32 {
        let esign = if exp < 0 { '-' } else { '+' };
        return format!("{}e{esign}{:02}", trim(mantissa), exp.abs());
    }
    trim(&format!("{:.*}", (p as i32 - 1 - exp) as usize, v))
}

/// PostgreSQL 15's float output: shortest exact digits, exponent form
/// when the decimal exponent is below -4 or at least `max_exp`.
fn format_float(v: f64, max_exp: i32, as_f32: Option<f32>) -> String {
    if let Some(text) = special_float(v) {
        return text.into();
    }
    let sci = match as_f32 {
        Some(f) => format!("{f:e}"),
        None => format!("{v:e}"),
    };
    let (mantissa, exp) = sci.split_once('e').expect("`{:e}` has an exponent");
    let exp: i32 = exp.parse().expect("an integer exponent");
    let (sign, mantissa) = match mantissa.strip_prefix('-') {
        Some(m) => ("-", m),
        None => ("", mantissa),
    };
    let digits: String = mantissa.chars().filter(|c| *c != '.').collect();
    if exp < -4 || exp >= max_exp {
        let (first, rest) = digits.split_at(1);
        let dot = if rest.is_empty() {
            String::new()
        } else {
            format!(".{rest}")
        };
        let esign = if exp < 0 { '-' } else { '+' };
        return format!("{sign}{first}{dot}e{esign}{:02}", exp.abs());
    }
    let point = exp + 1;
    if point <= 0 {
        format!("{sign}0.{}{digits}", "0".repeat((-point) as usize))
    } else if point as usize >= digits.len() {
        format!(
            "{sign}{digits}{}",
            "0".repeat(point as usize - digits.len())
        )
    } else {
        let (int, frac) = digits.split_at(point as usize);
        format!("{sign}{int}.{frac}")
    }
}

/// A float8 as PostgreSQL 15 prints it (`float8out`) with
/// `extra_float_digits` at `extra_digits`: the shortest exact digits
/// above 0, else `15 + extra_digits` significant ones. The geometric
/// types print their coordinates with it (`geometry_text.rs`).
pub fn float8_text(v: f64, extra_digits: i32) -> String {
    if extra_digits <= 0 {
        format_float_digits(v, 15 + extra_digits)
    } else {
        format_float(v, 15, None)
    }
}

impl Value {
    /// The value as PostgreSQL 15 prints it (`None` for NULL), a
    /// timestamptz in UTC.
    pub fn to_text(&self) -> Option<String> {
        self.to_text_styled(&DEFAULT_STYLE)
    }

    /// The value as PostgreSQL 15 prints it with the settings of `style`
    /// (`None` for NULL).
    pub fn to_text_styled(&self, style: &TextStyle) -> Option<String> {
        let zone = &style.zone;
        let digits = style.extra_float_digits;
        Some(match self {
            Value::Null => return None,
            Value::Int2(x) => x.to_string(),
            Value::Int4(x) => x.to_string(),
            Value::Int8(x) => x.to_string(),
            Value::Float4(x) if digits <= 0 => format_float_digits(*x as f64, 6 + digits),
            Value::Float4(x) => format_float(*x as f64, 6, Some(*x)),
            Value::Float8(x) => float8_text(*x, digits),
            Value::Numeric(n) => n.to_string(),
            Value::Text(s) => s.clone(),
            Value::Bytea(b) if style.bytea_escape => bytea_escaped(b),
            Value::Bytea(b) => {
                let mut out = String::with_capacity(2 + 2 * b.len());
                out.push_str("\\x");
                for byte in b {
                    out.push_str(&format!("{byte:02x}"));
                }
                out
            }
            Value::Bool(b) => if *b { "t" } else { "f" }.into(),
            Value::Date(d) => match Infinity::of_date(*d) {
                Some(infinity) => infinity.word().into(),
                None => crate::date_styles::date_text(*d as i64, style.dates),
            },
            Value::Timestamp(t) | Value::TimestampTz(t) if Infinity::of_timestamp(*t).is_some() => {
                Infinity::of_timestamp(*t).map_or("", Infinity::word).into()
            }
            Value::Timestamp(t) => crate::date_styles::timestamp_text(*t, None, style.dates),
            Value::TimestampTz(t) => {
                let east = zone.offset_at(*t);
                let local = t.saturating_add(i64::from(east) * 1_000_000);
                let abbreviation = match style.dates.output {
                    crate::date_styles::DateOutput::Iso => String::new(),
                    _ => zone.abbreviation_at(*t),
                };
                let at = Some((east, abbreviation.as_str()));
                crate::date_styles::timestamp_text(local, at, style.dates)
            }
            Value::Time(t) => crate::time_of_day::format_time(*t),
            Value::TimeTz(t) => t.text(),
            Value::Uuid(u) => {
                let hex: String = u.iter().map(|b| format!("{b:02x}")).collect();
                format!(
                    "{}-{}-{}-{}-{}",
                    &hex[0..8],
                    &hex[8..12],
                    &hex[12..16],
                    &hex[16..20],
                    &hex[20..32]
                )
            }
            Value::Interval(i) => crate::interval_styles::interval_text(i, style.interval),
            Value::Array(items) => crate::array_text::array_out(items, style),
            Value::Record(fields) => crate::record_text::record_out(fields, style),
            Value::Json(text) => text.clone(),
            Value::Jsonb(j) => j.to_text(),
            Value::JsonPath(p) => crate::jsonpath_text::path_text(p),
            Value::Enum(e) => e.label().name.clone(),
            Value::Oid(o) => o.to_string(),
            Value::Reg(r) => r.name.clone(),
            Value::Tid(block, offset) => crate::tid::tid_text(*block, *offset),
            Value::Xid(x) | Value::Xid8(x) => x.to_string(),
            Value::Money(cents) => crate::money::money_text(*cents),
            Value::Snapshot(s) => s.text(),
            Value::PgLsn(x) => crate::lsn::lsn_text(*x),
            Value::Inet(a) => a.text(false),
            Value::Cidr(a) => a.text(true),
            Value::MacAddr(m) => crate::macaddr::mac_text(m),
            Value::MacAddr8(m) => crate::macaddr::mac_text(m),
            Value::Range(r) => crate::range_text::range_out(r, style),
            Value::Multirange(m) => crate::multirange_text::multirange_out(m, style),
            Value::Bit(b) => b.text(),
            Value::Geo(g) => crate::geometry_text::text(g, digits),
            Value::TsVector(v) => v.text(),
            Value::TsQuery(q) => q.text(),
        })
    }

    /// Parses `text` as a value of `ty` (PostgreSQL 15's input rules,
    /// module table), then fits it to the type (lengths, padding); a
    /// timestamptz without a zone is read in UTC.
    pub fn from_text(ty: SqlType, text: &str) -> Result<Value, RowError> {
        Value::from_text_in(ty, text, &TimeZone::UTC, DateOrder::Mdy)
    }

    /// [`Value::from_text`] with `TimeZone = zone` and DateStyle field
    /// order `order`.
    pub fn from_text_in(
        ty: SqlType,
        text: &str,
        zone: &TimeZone,
        order: DateOrder,
    ) -> Result<Value, RowError> {
        let t = text.trim();
        let value = match ty {
            SqlType::Int2 => Value::Int2(parse_int(ty, text, t)?),
            SqlType::Int4 => Value::Int4(parse_int(ty, text, t)?),
            SqlType::Int8 => Value::Int8(parse_int(ty, text, t)?),
            SqlType::Float4 => {
                let v = parse_float(ty, text, t)?;
                // Rounded once, from the digits (PostgreSQL's strtof):
                // through a double it could round twice and miss by an
                // ulp (`7038531e-32`).
                let f = match v.is_finite() {
                    true => t.parse::<f32>().map_err(|_| syntax(ty, text))?,
                    false => v as f32,
                };
                if (v.is_finite() && f.is_infinite()) || (v != 0.0 && f == 0.0) {
                    return Err(float_out_of_range(ty, text));
                }
                Value::Float4(f)
            }
            SqlType::Float8 => Value::Float8(parse_float(ty, text, t)?),
            SqlType::Numeric(_) => Value::Numeric(Numeric::parse(t).map_err(|e| match e {
                RowError::Corrupt(_) => syntax(ty, text),
                other => other,
            })?),
            SqlType::Text | SqlType::Varchar(_) | SqlType::Char(_) | SqlType::Refcursor => {
                Value::Text(text.to_string())
            }
            SqlType::Name => Value::Text(crate::name::truncate(text.to_string())),
            // PostgreSQL's `charin` (`internal_char.rs`).
            SqlType::InternalChar => Value::Text(crate::internal_char::from_text(text)),
            SqlType::Oid => Value::Oid(crate::oid::parse(text)?),
            // A number only: a name is the SQL layer's to look up.
            SqlType::Reg(kind) => Value::Reg(Box::new(crate::reg::RegValue::unnamed(
                kind,
                crate::oid::parse(text)?,
            ))),
            SqlType::Tid => {
                let (block, offset) = crate::tid::parse_tid(text)?;
                Value::Tid(block, offset)
            }
            SqlType::Xid => Value::Xid(crate::xid_snapshot::parse_xid(text)),
            SqlType::Xid8 => Value::Xid8(crate::xid_snapshot::parse_xid8(text)),
            SqlType::Money => Value::Money(crate::money::parse_money(text)?),
            SqlType::PgSnapshot | SqlType::TxidSnapshot => Value::Snapshot(Box::new(
                crate::xid_snapshot::XidSnapshot::parse(text, ty == SqlType::TxidSnapshot)?,
            )),
            SqlType::PgLsn => Value::PgLsn(crate::lsn::parse_lsn(text)?),
            SqlType::Inet => Value::Inet(crate::inet::parse_inet(text, false)?),
            SqlType::Cidr => Value::Cidr(crate::inet::parse_inet(text, true)?),
            SqlType::MacAddr => Value::MacAddr(crate::macaddr::parse_macaddr(text)?),
            SqlType::MacAddr8 => Value::MacAddr8(crate::macaddr::parse_macaddr8(text)?),
            SqlType::Bytea => Value::Bytea(parse_bytea(text)?),
            SqlType::Bool => Value::Bool(parse_bool(t).ok_or_else(|| syntax(ty, text))?),
            SqlType::Date => Value::Date(input::parse_date_in(text, zone, order)?),
            SqlType::Timestamp(_) => {
                Value::Timestamp(input::parse_timestamp_in(text, false, zone, order)?)
            }
            SqlType::TimestampTz(_) => {
                Value::TimestampTz(input::parse_timestamp_in(text, true, zone, order)?)
            }
            SqlType::Time(_) => Value::Time(input::parse_time_in(text, zone, order)?),
            SqlType::TimeTz(_) => Value::TimeTz(input::parse_timetz_in(text, zone, order)?),
            SqlType::Uuid => Value::Uuid(parse_uuid(t).ok_or_else(|| syntax(ty, text))?),
            SqlType::Interval(None) => Value::Interval(crate::interval_input::parse_interval(
                text,
                crate::interval_input::Unit::Second,
            )?),
            // Read under its modifier (`'5'::interval minute`).
            SqlType::Interval(Some(modifier)) => Value::Interval(modifier.read(text)?),
            SqlType::Array(element) => crate::array_text::array_in(*element, text, zone, order)?,
            SqlType::Json => {
                crate::json_parse::parse(text)?;
                Value::Json(text.to_string())
            }
            SqlType::Jsonb => Value::Jsonb(Box::new(crate::json::Jsonb::parse(text)?)),
            SqlType::JsonPath => {
                Value::JsonPath(Box::new(crate::jsonpath_parse::parse_jsonpath(text)?))
            }
            SqlType::Enum(def) => Value::Enum(def.value_of(text)?),
            SqlType::Composite(def) => def.record_in(text, zone, order)?,
            SqlType::Range(kind) => Value::Range(Box::new(crate::range_text::range_in(
                kind, text, zone, order,
            )?)),
            SqlType::Multirange(kind) => Value::Multirange(Box::new(
                crate::multirange_text::multirange_in(kind, text, zone, order)?,
            )),
            SqlType::Bit(_) | SqlType::VarBit(_) => {
                Value::Bit(Box::new(crate::bits::BitString::parse(text)?))
            }
            SqlType::Geo(kind) => Value::Geo(Box::new(crate::geometry_text::parse(kind, text)?)),
            SqlType::TsVector => Value::TsVector(Box::new(crate::tsvector::TsVector::parse(text)?)),
            SqlType::TsQuery => Value::TsQuery(Box::new(crate::tsquery::TsQuery::parse(text)?)),
            SqlType::Record => {
                return Err(RowError::Unsupported(
                    "input of anonymous composite types is not implemented".into(),
                ));
            }
        };
        value.fit(ty)
    }
}

fn parse_int<T: TryFrom<i128>>(ty: SqlType, text: &str, t: &str) -> Result<T, RowError> {
    let (negative, digits) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(syntax(ty, text));
    }
    let magnitude: i128 = digits.parse().map_err(|_| out_of_range(ty, text))?;
    T::try_from(if negative { -magnitude } else { magnitude }).map_err(|_| out_of_range(ty, text))
}

pub(crate) fn parse_float(ty: SqlType, text: &str, t: &str) -> Result<f64, RowError> {
    let lower = t.to_ascii_lowercase();
    match lower.as_str() {
        "nan" => return Ok(f64::NAN),
        "infinity" | "+infinity" | "inf" | "+inf" => return Ok(f64::INFINITY),
        "-infinity" | "-inf" => return Ok(f64::NEG_INFINITY),
        _ => {}
    }
    if lower.contains("inf") || lower.contains("nan") || t.is_empty() {
        return Err(syntax(ty, text));
    }
    let v: f64 = t.parse().map_err(|_| syntax(ty, text))?;
    // Past the range, or a non-zero value that underflows to zero
    // (PostgreSQL's ERANGE check; a subnormal is kept).
    if v.is_infinite() || (v == 0.0 && nonzero_mantissa(t)) {
        return Err(float_out_of_range(ty, text));
    }
    Ok(v)
}

/// Whether a number's text has a non-zero digit before its exponent.
fn nonzero_mantissa(t: &str) -> bool {
    t.bytes()
        .take_while(|b| !matches!(b, b'e' | b'E'))
        .any(|b| matches!(b, b'1'..=b'9'))
}

fn parse_bool(t: &str) -> Option<bool> {
    let l = t.to_ascii_lowercase();
    let prefix_of = |word: &str| !l.is_empty() && word.starts_with(l.as_str());
    match l.as_str() {
        "1" => Some(true),
        "0" => Some(false),
        "on" => Some(true),
        "of" | "off" => Some(false),
        _ if prefix_of("true") || prefix_of("yes") => Some(true),
        _ if prefix_of("false") || prefix_of("no") => Some(false),
        _ => None,
    }
}

/// PostgreSQL's bytea input: hex (`\x` then pairs of hex digits,
/// whitespace between pairs) or escape (`\\` a backslash, `\ooo` an
/// octal byte, other characters their UTF-8 bytes), with its messages.
fn parse_bytea(text: &str) -> Result<Vec<u8>, RowError> {
    let invalid = |message: String| RowError::InvalidInput(message);
    if let Some(hex) = text.strip_prefix("\\x") {
        let mut out = Vec::with_capacity(hex.len() / 2);
        let mut digits = hex.chars().filter(|c| !c.is_ascii_whitespace());
        while let Some(high) = digits.next() {
            let Some(low) = digits.next() else {
                return Err(invalid(
                    "invalid hexadecimal data: odd number of digits".into(),
                ));
            };
            let digit = |c: char| {
                c.to_digit(16)
                    .ok_or_else(|| invalid(format!("invalid hexadecimal digit: \"{c}\"")))
            };
            out.push((digit(high)? * 16 + digit(low)?) as u8);
        }
        return Ok(out);
    }
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] != b'\\' {
            out.push(bytes[i]);
            i += 1;
        } else if bytes.get(i + 1) == Some(&b'\\') {
            out.push(b'\\');
            i += 2;
        } else if let [a @ b'0'..=b'3', b @ b'0'..=b'7', c @ b'0'..=b'7'] =
            bytes.get(i + 1..i + 4).unwrap_or_default()
        {
            out.push((a - b'0') * 64 + (b - b'0') * 8 + (c - b'0'));
            i += 4;
        } else {
            return Err(invalid("invalid input syntax for type bytea".into()));
        }
    }
    Ok(out)
}

/// A date or timestamp that failed: bad syntax, or a field out of range.
/// PostgreSQL's uuid input: 32 hex digits, any case, optionally in
/// braces, with a hyphen allowed after any group of four digits.
fn parse_uuid(t: &str) -> Option<[u8; 16]> {
    let inner = match t.strip_prefix('{') {
        Some(rest) => rest.strip_suffix('}')?,
        None => t,
    };
    let mut out = [0u8; 16];
    let mut digits = 0usize;
    let mut after_hyphen = false;
    for c in inner.chars() {
        if c == '-' {
            if after_hyphen || digits == 0 || !digits.is_multiple_of(4) || digits == 32 {
                return None;
            }
            after_hyphen = true;
            continue;
        }
        let d = c.to_digit(16)? as u8;
        if digits == 32 {
            return None;
        }
        out[digits / 2] |= if digits.is_multiple_of(2) { d << 4 } else { d };
        digits += 1;
        after_hyphen = false;
    }
    (digits == 32 && !after_hyphen).then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn out(ty: SqlType, text: &str) -> String {
        Value::from_text(ty, text).unwrap().to_text().unwrap()
    }

    // Proves input and output in PostgreSQL 15's formats for every type,
    // with the outputs PostgreSQL 15 printed for the same inputs, and its
    // errors (SQLSTATE and message) for bad input (both checked with psql
    // against a local PostgreSQL 15 cluster, session 9; a string too long
    // for varchar(n) is assignment's 22001, as INSERT gives).
    // Proves the infinities of date, timestamp and timestamptz: read
    // in any case with blanks, stored as the type's extremes, printed as
    // PostgreSQL 15 prints them; `+infinity` and text past the finite
    // ranges are PostgreSQL's errors (psql, session 61).
    // Proves `extra_float_digits` at 0 and below: each as PostgreSQL 15
    // prints the float8 and its float4 (`SET extra_float_digits = N`).
    #[test]
    fn float_digits_follow_extra_float_digits() {
        let cases: [(f64, i32, &str, &str); 10] = [
            (
                123456789012345678.0,
                0,
                "1.23456789012346e+17",
                "1.23457e+17",
            ),
            (1.5e-5, 0, "1.5e-05", "1.5e-05"),
            (1.23456789012345, 0, "1.23456789012345", "1.23457"),
            (100000.0, 0, "100000", "100000"),
            (1e15, 0, "1e+15", "1e+15"),
            (123456789012345678.0, -3, "1.23456789012e+17", "1.23e+17"),
            (100000.0, -3, "100000", "1e+05"),
            (1.5e-5, -15, "2e-05", "1e-05"),
            (-2.5e-6, -15, "-3e-06", "-2e-06"),
            (0.0001, -15, "0.0001", "0.0001"),
        ];
        for (x, digits, f8, f4) in cases {
            let style = TextStyle {
                extra_float_digits: digits,
                ..TextStyle::default()
            };
            let text = |v: Value| v.to_text_styled(&style).unwrap();
            assert_eq!(text(Value::Float8(x)), f8, "{x} at {digits}");
            assert_eq!(text(Value::Float4(x as f32)), f4, "{x} at {digits}");
        }
    }

    #[test]
    fn infinite_dates_and_timestamps() {
        for ty in [
            SqlType::Date,
            SqlType::Timestamp(None),
            SqlType::TimestampTz(None),
        ] {
            assert_eq!(out(ty, " InFinity "), "infinity");
            assert_eq!(out(ty, "-INFINITY"), "-infinity");
            let err = Value::from_text(ty, "+infinity").unwrap_err();
            assert_eq!(err.sqlstate(), "22007");
        }
        assert_eq!(
            Value::from_text(SqlType::Date, "infinity").unwrap(),
            Value::Date(i32::MAX)
        );
        assert_eq!(
            Value::from_text(SqlType::TimestampTz(None), "-infinity").unwrap(),
            Value::TimestampTz(i64::MIN)
        );
        assert_eq!(
            Value::TimestampTz(i64::MAX).to_text_styled(&TextStyle::in_zone(TimeZone::fixed(3600))),
            Some("infinity".into())
        );
        let err = |ty, text| Value::from_text(ty, text).unwrap_err();
        for (ty, text, message) in [
            (
                SqlType::Date,
                "5874898-01-01",
                "date out of range: \"5874898-01-01\"",
            ),
            (
                SqlType::Date,
                "4714-11-23 BC",
                "date out of range: \"4714-11-23 BC\"",
            ),
            (
                SqlType::Timestamp(None),
                "294277-01-01",
                "timestamp out of range: \"294277-01-01\"",
            ),
            (
                SqlType::TimestampTz(None),
                "4714-11-23 BC",
                "timestamp out of range: \"4714-11-23 BC\"",
            ),
        ] {
            assert_eq!(err(ty, text).to_string(), message);
            assert_eq!(err(ty, text).sqlstate(), "22008");
        }
        assert_eq!(out(SqlType::Date, "5874897-12-31"), "5874897-12-31");
        assert_eq!(
            out(SqlType::Timestamp(None), "294276-12-31 23:59:59.999999"),
            "294276-12-31 23:59:59.999999"
        );
    }

    #[test]
    fn text_round_trips_as_postgres_prints_it() {
        let cases: &[(SqlType, &str, &str)] = &[
            (SqlType::Int4, " -42 ", "-42"),
            (SqlType::Int8, "+9223372036854775807", "9223372036854775807"),
            (SqlType::Float8, "1e20", "1e+20"),
            (SqlType::Float8, "0.1", "0.1"),
            (SqlType::Float8, "0.0001", "0.0001"),
            (SqlType::Float8, "0.00001", "1e-05"),
            (SqlType::Float8, "123456789012345", "123456789012345"),
            (SqlType::Float8, "1234567890123456", "1.234567890123456e+15"),
            (SqlType::Float8, "-0", "-0"),
            (SqlType::Float8, "inf", "Infinity"),
            (SqlType::Float8, "nan", "NaN"),
            (SqlType::Float4, "1.1", "1.1"),
            (SqlType::Float4, "1234567", "1.234567e+06"),
            (SqlType::Float4, "123456", "123456"),
            (SqlType::Numeric(None), "12.340", "12.340"),
            (SqlType::Bool, "yes", "t"),
            (SqlType::Bool, "OFF", "f"),
            (SqlType::Bytea, "\\x0aFF", "\\x0aff"),
            (SqlType::Bytea, "a\\\\b\\001", "\\x615c6201"),
            (SqlType::Date, "2024-02-29", "2024-02-29"),
            // Times (PostgreSQL 15's outputs, session 48).
            (SqlType::Time(None), "12:34", "12:34:00"),
            (SqlType::Time(None), "12:34:56.789", "12:34:56.789"),
            (SqlType::Time(None), "24:00:00", "24:00:00"),
            (SqlType::Time(None), "1:2:3 pm", "13:02:03"),
            (SqlType::Time(None), "12:00 am", "00:00:00"),
            (SqlType::Time(None), "12:30am", "00:30:00"),
            (SqlType::Time(None), "PM 1:00", "13:00:00"),
            (SqlType::Time(None), "2024-03-10 12:34:56+02", "12:34:56"),
            (SqlType::Time(None), "12:34:56-08", "12:34:56"),
            (SqlType::Time(None), "12:34 PM PST", "12:34:00"),
            (SqlType::Time(None), "T12:34", "12:34:00"),
            (SqlType::Time(None), "040506", "04:05:06"),
            (SqlType::Time(None), "1234", "12:34:00"),
            (SqlType::Time(None), "12:34:60", "12:35:00"),
            (SqlType::Time(None), "23:59:59.9999999", "24:00:00"),
            (SqlType::Time(None), "allballs", "00:00:00"),
            (SqlType::Time(Some(1)), "12:34:56.789", "12:34:56.8"),
            (SqlType::Time(None), "12:00:00+05:30:15", "12:00:00"),
            // Times with zones (PostgreSQL 15's outputs, session 49).
            (SqlType::TimeTz(None), "12:34:56+02", "12:34:56+02"),
            (
                SqlType::TimeTz(None),
                "12:34:56.789-07:30",
                "12:34:56.789-07:30",
            ),
            (SqlType::TimeTz(None), "04:05:06 PST", "04:05:06-08"),
            (SqlType::TimeTz(None), "12:34 Z", "12:34:00+00"),
            (SqlType::TimeTz(None), "12:00+15:59", "12:00:00+15:59"),
            (SqlType::TimeTz(None), "12:00-15:59:59", "12:00:00-15:59:59"),
            (SqlType::TimeTz(None), "12:00 +0530", "12:00:00+05:30"),
            (SqlType::TimeTz(None), "1:2:3 pm -03", "13:02:03-03"),
            (SqlType::TimeTz(None), "12:00 zulu", "12:00:00+00"),
            (SqlType::TimeTz(None), "24:00:00+03", "24:00:00+03"),
            (SqlType::TimeTz(None), "allballs", "00:00:00+00"),
            (
                SqlType::TimeTz(None),
                "2024-07-01 12:00 America/Los_Angeles",
                "12:00:00-07",
            ),
            (
                SqlType::TimeTz(None),
                "2024-03-10 12:00:00+02",
                "12:00:00+02",
            ),
            (SqlType::TimeTz(Some(1)), "12:34:56.789+02", "12:34:56.8+02"),
            (SqlType::TimeTz(Some(0)), "23:59:59.9+02", "24:00:00+02"),
            (SqlType::Date, "0044-03-15 BC", "0044-03-15 BC"),
            (SqlType::Date, "1999-12-31", "1999-12-31"),
            (
                SqlType::Timestamp(None),
                "2024-01-02 03:04:05.123456",
                "2024-01-02 03:04:05.123456",
            ),
            (
                SqlType::Timestamp(None),
                "2024-01-02T03:04:05.5",
                "2024-01-02 03:04:05.5",
            ),
            (
                SqlType::Timestamp(None),
                "2024-01-02",
                "2024-01-02 00:00:00",
            ),
            (
                SqlType::TimestampTz(None),
                "2024-01-02 03:04:05+02",
                "2024-01-02 01:04:05+00",
            ),
            (
                SqlType::TimestampTz(None),
                "2024-01-02 03:04:05-05:30",
                "2024-01-02 08:34:05+00",
            ),
            (
                SqlType::TimestampTz(None),
                "1999-12-31 23:59:59.999999Z",
                "1999-12-31 23:59:59.999999+00",
            ),
            (
                SqlType::Uuid,
                "{A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11}",
                "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11",
            ),
            (SqlType::Char(4), "ab", "ab  "),
            (
                SqlType::TimestampTz(None),
                "0001-12-31 23:59:59.999999 BC",
                "0001-12-31 23:59:59.999999+00 BC",
            ),
            (
                SqlType::Timestamp(None),
                "0001-12-31 23:59:59.999999 BC",
                "0001-12-31 23:59:59.999999 BC",
            ),
            (SqlType::Date, "4714-11-24 BC", "4714-11-24 BC"),
        ];
        for (ty, input, want) in cases {
            assert_eq!(out(*ty, input), *want, "{} {input:?}", ty.name());
        }
        let err = |ty, text| Value::from_text(ty, text).unwrap_err();
        assert_eq!(err(SqlType::Int2, "99999").sqlstate(), "22003");
        assert_eq!(
            err(SqlType::Int2, "99999").to_string(),
            "value \"99999\" is out of range for type smallint"
        );
        assert_eq!(err(SqlType::Int4, "abc").sqlstate(), "22P02");
        assert_eq!(
            err(SqlType::Int4, "abc").to_string(),
            "invalid input syntax for type integer: \"abc\""
        );
        assert_eq!(err(SqlType::Date, "2023-02-30").sqlstate(), "22008");
        assert_eq!(
            err(SqlType::Date, "2023-02-30").to_string(),
            "date/time field value out of range: \"2023-02-30\""
        );
        assert_eq!(err(SqlType::Date, "yesterday-ish").sqlstate(), "22007");
        for (text, sqlstate) in [
            ("24:00:01", "22008"),
            ("25:00", "22008"),
            ("13:00 pm", "22008"),
            ("23:59:60.5", "22008"),
            ("12", "22007"),
            ("12.34", "22007"),
            ("", "22007"),
            ("2024-03-10", "22007"),
            ("12:34 foo", "22007"),
            ("12:34:56 America/New_York", "22007"),
            ("12:34:56:78", "22007"),
            ("12:00 japan", "22007"),
            ("12:00+16", "22009"),
        ] {
            assert_eq!(
                err(SqlType::Time(None), text).sqlstate(),
                sqlstate,
                "{text}"
            );
        }
        for (text, sqlstate) in [
            ("24:00:01+03", "22008"),
            ("12:00+16", "22009"),
            ("12:00+15:60", "22009"),
            ("12:00 America/Los_Angeles", "22007"),
            ("12:00 est5edt", "22007"),
            ("2024-02-30 12:00+02", "22008"),
        ] {
            assert_eq!(
                err(SqlType::TimeTz(None), text).sqlstate(),
                sqlstate,
                "{text}"
            );
        }
        // Underflow to zero is out of range too (the last two; a subnormal
        // and zeros are not: PostgreSQL 15's float8in and float4in).
        for (ty, text, message) in [
            (
                SqlType::TimeTz(None),
                "12:00+16",
                "time zone displacement out of range: \"12:00+16\"",
            ),
            (
                SqlType::TimeTz(None),
                "abc",
                "invalid input syntax for type time with time zone: \"abc\"",
            ),
            (
                SqlType::Time(None),
                "abc",
                "invalid input syntax for type time: \"abc\"",
            ),
            (
                SqlType::Date,
                "yesterday-ish",
                "invalid input syntax for type date: \"yesterday-ish\"",
            ),
            (
                SqlType::Bool,
                "maybe",
                "invalid input syntax for type boolean: \"maybe\"",
            ),
            (
                SqlType::Float8,
                "1e999",
                "\"1e999\" is out of range for type double precision",
            ),
            (
                SqlType::Float8,
                "1e-400",
                "\"1e-400\" is out of range for type double precision",
            ),
            (
                SqlType::Float4,
                "1e-50",
                "\"1e-50\" is out of range for type real",
            ),
        ] {
            assert_eq!(err(ty, text).to_string(), message);
        }
        for (ty, text, sqlstate) in [
            (SqlType::Timestamp(None), "2024-01-02 25:00:00", "22008"),
            (SqlType::Bool, "maybe", "22P02"),
            (SqlType::Varchar(Some(2)), "abc", "22001"),
            (SqlType::Float8, "1e999", "22003"),
        ] {
            assert_eq!(err(ty, text).sqlstate(), sqlstate, "{text}");
        }
        for ok in ["0.0e-999", "-0", "5e-324", "0e5"] {
            assert!(Value::from_text(SqlType::Float8, ok).is_ok(), "{ok}");
        }
        assert!(Value::from_text(SqlType::Float4, "1e-40").is_ok());
        // Rounded once from the digits, not through a double.
        for (text, bits) in [
            ("7038531e-32", 0x15ae43fd_u32),
            ("82381273e-35", 0x128289d1),
        ] {
            assert_eq!(
                Value::from_text(SqlType::Float4, text).unwrap(),
                Value::Float4(f32::from_bits(bits)),
                "{text}"
            );
        }
    }
}
