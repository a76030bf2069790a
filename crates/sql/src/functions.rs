//! Scalar functions (`coalesce`, `nullif`, `lower`, `upper`, `length`,
//! `abs`, `round`, `trunc`, `floor`, `ceil`, `sign`, `sqrt`, `exp`, `ln`,
//! `log`, `log10`, `cbrt`, `pi`, `mod`, `div`, `gcd`, `lcm`, `factorial`,
//! `scale`, `min_scale`,
//! `trim_scale`, `random`, `power` (and `^`), `substr`,
//! `greatest`,
//! `least`, `concat`, `format` (`format_function.rs`), the string functions `repeat`, `replace`, `left`,
//! `right`, `lpad`, `rpad`, `btrim`/`ltrim`/`rtrim` (and `TRIM(...)`),
//! `strpos` (and `POSITION(a IN b)`), `reverse`, `split_part`, `initcap`,
//! `EXTRACT`/`date_part`, `date_trunc`,
//! `gen_random_uuid`, `current_database`, `version`) and LIKE matching,
//! with PostgreSQL's results for NULLs and their result types. The math
//! functions of a numeric are `numeric_functions.rs`'s, which keeps
//! PostgreSQL's rule for each result's scale.

use crate::array_functions::ArrayFunc;
use crate::bytea_functions;
use crate::catalog_functions::CatalogFunc;
use crate::error::SqlError;
use crate::interval_functions::IntervalFunc;
use crate::lookups::Lookups;
use crate::numeric_functions;
use crate::regex_functions::RegexFunc;
use crate::scalar::compare;
use crate::types;
use folio_row::{Infinity, Numeric, Rounding, SqlType, Value};
use std::cmp::Ordering;

/// A scalar function.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Func {
    Coalesce,
    Nullif,
    Lower,
    Upper,
    Length,
    Abs,
    /// `round(x)`, `trunc(x)`: double precision unless x is numeric;
    /// `round(x, places)`, `trunc(x, places)`: numeric.
    Round,
    Substr,
    Greatest,
    Least,
    Concat,
    /// `concat_ws(separator, ...)`: the non-NULL arguments joined.
    ConcatWs,
    /// `format(fmt, ...)` (`format_function.rs`).
    Format,
    /// `format(fmt, VARIADIC array)`: the array's elements are the
    /// arguments (`variadic.rs`).
    FormatVariadic,
    /// `num_nulls(...)` / `num_nonnulls(...)`: how many arguments are
    /// (not) NULL.
    NumNulls,
    NumNonNulls,
    /// A string function (`string`).
    Str(StrFunc),
    Trunc,
    /// `floor`, `ceil`/`ceiling`, `sign`: numeric for a numeric, else
    /// double precision (an integer is cast to it, as PostgreSQL's).
    Floor,
    Ceil,
    Sign,
    /// `sqrt`, `exp`, `ln`, `log10` and one-argument `log` (base 10):
    /// numeric for a numeric, else double precision.
    Sqrt,
    Exp,
    Ln,
    Log10,
    /// `log(x)`, or `log(b, x)` (numeric).
    Log,
    /// `mod(a, b)`: `a % b`.
    Mod,
    /// `div(a, b)`: the numeric quotient cut toward zero to an integer.
    Div,
    /// `cbrt(x)`: double precision (PostgreSQL has no numeric form).
    Cbrt,
    /// `gcd(a, b)`, `lcm(a, b)`: int4, int8 or numeric, the widest of the
    /// arguments ([`gcd_type`]); never negative.
    Gcd,
    Lcm,
    /// `factorial(n)`: numeric, of a bigint.
    Factorial,
    /// `pi()`: double precision.
    Pi,
    /// `scale(x)`: a numeric's digits after the point; `min_scale(x)`:
    /// those it needs (trailing zeros dropped); `trim_scale(x)`: the value
    /// at its `min_scale`.
    Scale,
    MinScale,
    TrimScale,
    Random,
    /// `clock_timestamp()`: the time now, read at each call (`now()` is
    /// the transaction's start: `Scalar::Now`).
    ClockTimestamp,
    /// `timeofday()`: the time now, read at each call, as text
    /// (PostgreSQL's `Wed Dec 02 05:49:00.759552 2026 EST`).
    TimeOfDay,
    /// `pg_trigger_depth()` (`triggers.rs`).
    TriggerDepth,
    Power,
    /// `EXTRACT(field FROM v)`: numeric.
    Extract,
    /// `date_part(field, v)`: double precision.
    DatePart,
    DateTrunc,
    /// `date_bin(stride, source, origin)` (`datetime::bin`).
    DateBin,
    /// `isfinite(date | timestamp | timestamptz | interval)`: false for
    /// an infinity (`infinite_datetime.rs`; every interval is finite).
    IsFinite,
    /// `to_char(timestamp | date, format)` (`to_char.rs`).
    ToChar,
    /// `to_timestamp(text, template)` or `to_timestamp(seconds)`
    /// (`to_timestamp.rs`).
    ToTimestamp,
    /// `to_date(text, template)`.
    ToDate,
    /// `to_number(text, template)` (`to_number.rs`).
    ToNumber,
    /// `pg_column_size(value)` (`column_size.rs`): bound by
    /// `scalar.rs`, `true` when the argument is a column reference (a
    /// value as a table keeps it).
    ColumnSize(bool),
    GenRandomUuid,
    /// `enum_range(from, to)`, bound with the type's labels as a third
    /// argument (`enum_functions.rs`).
    EnumRange,
    CurrentDatabase,
    Version,
    /// `nextval`, `currval`, `setval`, `lastval`: evaluated through the
    /// statement's sequences (`sequences.rs`), never by [`Func::eval`].
    Nextval,
    Currval,
    Setval,
    Lastval,
    /// A function about the catalog (`catalog_functions.rs`).
    Catalog(CatalogFunc),
    /// An array's construction, element, comparison or function
    /// (`array_functions.rs`).
    Array(ArrayFunc),
    /// A row value's construction, test or comparison (`row_values.rs`).
    Row(crate::row_values::RowFunc),
    /// A `char(n)` value as text, its trailing blanks dropped (PostgreSQL's
    /// cast from `character` to `text`): bound where a `char(n)` meets a
    /// text function, `||`, a cast to a string type or a comparison it is
    /// not padded alike for, and on a `varchar` compared with a `char(n)`
    /// (read as one, `scalar::char_sides`). It has no name to call.
    CharToText,
    /// A `"char"` as an `int4`: its byte, signed (PostgreSQL's cast
    /// `chartoi4`; folio-row `internal_char.rs`), bound for the cast
    /// `"char"::int4`. It has no name to call.
    InternalCharToInt4,
    /// A function of intervals (`interval_functions.rs`).
    Interval(IntervalFunc),
    /// A regular-expression function (`regex_functions.rs`).
    Regex(RegexFunc),
    /// A json operator or function (`json_functions.rs`).
    Json(crate::json_functions::JsonFunc),
    /// A range constructor, function or operator (`range_functions.rs`):
    /// bound by `range_functions::bind_call` / `bind_operator`, never
    /// looked up by [`Func::of`] (`lower` and `upper` are also the
    /// string functions).
    Range(crate::range_functions::RangeFunc),
    /// A multirange constructor, function or operator
    /// (`multirange_functions.rs`), bound by that file as ranges' are.
    Multirange(crate::multirange_functions::MultirangeFunc),
    /// An operator or function of the network address types, bound by
    /// `network_functions::bind_call` / `bind_operator` / `bind_prefix`.
    Net(crate::network_functions::NetFunc),
    /// An operator or function of the geometric types: its row of
    /// `geometry_functions::SIGNATURES`, bound by that file.
    Geo(&'static crate::geometry_functions::Signature),
    /// An advisory lock function (`advisory.rs`): runs on the session's
    /// locks, which the statement's `Env` carries.
    Advisory(crate::advisory::AdvisoryFunc),
    /// A function about sessions (`backend_functions.rs`): runs on the
    /// session's entry, which the statement's `Env` carries.
    Backend(crate::backend_functions::BackendFunc),
    /// A hash, encoding or random-bytes function, pgcrypto's and
    /// uuid-ossp's among them (`crypto_functions.rs`).
    Crypto(crate::crypto_functions::CryptoFunc),
    /// A trigonometric or hyperbolic function, `degrees`, `radians`,
    /// `float4send` / `float8send` (`float_functions.rs`).
    Float(crate::float_functions::FloatFunc),
    /// `get_byte`, `set_bit`, ... of a bytea (`bytea_bits.rs`).
    Bits(crate::bytea_bits::BitFunc),
    /// `unistr(text)` (`string_literals.rs`).
    Unistr,
    /// `to_hex(int)`: the two's complement digits of an `integer` (32
    /// bits) or `bigint` (64), lower case.
    ToHex,
    /// `current_setting`, `set_config` (`setting_functions.rs`): run on
    /// the session's settings, which the statement's scope holds.
    Setting(crate::setting_functions::SettingFunc),
    /// `make_date`, `make_timestamp` (`make_datetime.rs`).
    Make(crate::make_datetime::MakeFunc),
    /// `timezone(zone, ts)`, which `ts AT TIME ZONE zone` is
    /// (`time_zones.rs`): its arguments as that binds them.
    Timezone,
    /// `width_bucket(operand, low, high, count)` and
    /// `width_bucket(operand, thresholds)` (`width_bucket.rs`).
    WidthBucket,
    /// `overlay(s PLACING r FROM start [FOR count])` of a text or bytea
    /// (`overlay.rs`).
    Overlay,
    /// `overlaps(s1, e1, s2, e2)`, what `(s1, e1) OVERLAPS (s2, e2)` calls
    /// (`overlaps.rs`).
    Overlaps,
    /// `txid_current()` and its kin (`xact_id.rs`): run on the session's
    /// entry, which the statement's `Env` carries.
    Xact(crate::xact_id::XactFunc),
    /// `pg_lsn(numeric)`, `pg_wal_lsn_diff`, `pg_current_wal_lsn()`, ...
    Wal(crate::wal_functions::WalFunc),
    /// `cashlarger`, `cashsmaller`, `cash_words`.
    Money(crate::money_functions::MoneyFunc),
    /// `pg_snapshot_xmin`, `pg_visible_in_snapshot`, `xid8cmp`, ...
    XidFn(crate::xid_functions::XidFunc),
    /// An operator or function of bit strings (`bit_functions.rs`).
    BitString(crate::bit_functions::BitStringFunc),
    /// A SQL/JSON path function or operator (`jsonpath_functions.rs`).
    JsonPath(crate::jsonpath_functions::PathFunc),
    /// An operator or function of text search (`ts_functions.rs`).
    TextSearch(crate::ts_functions::TsFunc),
}

/// How many of a function's forms a call fits ([`Func::forms`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Forms {
    /// None (42883).
    None,
    One,
    /// Several, none better than the others (42725).
    Several,
}

/// The string functions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StrFunc {
    Repeat,
    Replace,
    Left,
    Right,
    Lpad,
    Rpad,
    /// `btrim`, `ltrim`, `rtrim`: characters (default a space) removed
    /// from both ends, the start, the end.
    Btrim,
    Ltrim,
    Rtrim,
    Strpos,
    Reverse,
    SplitPart,
    Initcap,
    /// The MD5 digest of a text or bytea, in hex.
    Md5,
    /// `translate(s, from, to)`: each character of `from` in `s` becomes
    /// the one at its place in `to`, or goes when `to` is shorter.
    Translate,
    /// The code point of the first character (0 for an empty text).
    Ascii,
    /// The character with a code point.
    Chr,
    StartsWith,
    /// Bytes of a text (UTF-8) or bytea.
    OctetLength,
    /// `quote_literal(text)`, `format`'s `%L`.
    QuoteLiteral,
    /// `quote_nullable(text)`: `quote_literal`, or `NULL` for NULL.
    QuoteNullable,
    /// `textcat(a, b)`: the function behind `text || text`.
    Textcat,
    /// `parse_ident(text [, strict])`: a qualified name's parts
    /// (`parse_ident.rs`).
    ParseIdent,
}

impl StrFunc {
    /// Whether `count` arguments are accepted.
    fn takes(self, count: usize) -> bool {
        match self {
            StrFunc::Reverse
            | StrFunc::Initcap
            | StrFunc::Md5
            | StrFunc::Ascii
            | StrFunc::Chr
            | StrFunc::OctetLength
            | StrFunc::QuoteLiteral
            | StrFunc::QuoteNullable => count == 1,
            StrFunc::Repeat
            | StrFunc::Left
            | StrFunc::Right
            | StrFunc::Strpos
            | StrFunc::StartsWith
            | StrFunc::Textcat => count == 2,
            StrFunc::Replace | StrFunc::SplitPart | StrFunc::Translate => count == 3,
            StrFunc::Lpad | StrFunc::Rpad => (2..=3).contains(&count),
            StrFunc::Btrim | StrFunc::Ltrim | StrFunc::Rtrim | StrFunc::ParseIdent => {
                (1..=2).contains(&count)
            }
        }
    }

    /// Its result type.
    fn ty(self) -> SqlType {
        match self {
            StrFunc::Strpos | StrFunc::Ascii | StrFunc::OctetLength => SqlType::Int4,
            StrFunc::StartsWith => SqlType::Bool,
            StrFunc::ParseIdent => SqlType::Array(&SqlType::Text),
            _ => SqlType::Text,
        }
    }
}

/// What `version()` says: PostgreSQL's form, so tools that parse it see a
/// 15.
pub fn version() -> String {
    format!(
        "PostgreSQL 15.0 (folio {}) on {}-unknown-linux-gnu",
        env!("CARGO_PKG_VERSION"),
        std::env::consts::ARCH
    )
}

/// The functions called by name (other than the catalog and array
/// functions, which keep their own tables); a function with several
/// names is printed (EXPLAIN) by its first.
const NAMES: [(&str, Func); 90] = [
    ("coalesce", Func::Coalesce),
    ("nullif", Func::Nullif),
    ("lower", Func::Lower),
    ("upper", Func::Upper),
    ("length", Func::Length),
    ("char_length", Func::Length),
    ("character_length", Func::Length),
    ("abs", Func::Abs),
    ("round", Func::Round),
    ("substr", Func::Substr),
    ("substring", Func::Substr),
    ("greatest", Func::Greatest),
    ("least", Func::Least),
    ("concat", Func::Concat),
    ("num_nulls", Func::NumNulls),
    ("num_nonnulls", Func::NumNonNulls),
    ("concat_ws", Func::ConcatWs),
    ("format", Func::Format),
    ("md5", Func::Str(StrFunc::Md5)),
    ("repeat", Func::Str(StrFunc::Repeat)),
    ("replace", Func::Str(StrFunc::Replace)),
    ("left", Func::Str(StrFunc::Left)),
    ("right", Func::Str(StrFunc::Right)),
    ("lpad", Func::Str(StrFunc::Lpad)),
    ("rpad", Func::Str(StrFunc::Rpad)),
    ("btrim", Func::Str(StrFunc::Btrim)),
    ("ltrim", Func::Str(StrFunc::Ltrim)),
    ("rtrim", Func::Str(StrFunc::Rtrim)),
    ("strpos", Func::Str(StrFunc::Strpos)),
    ("reverse", Func::Str(StrFunc::Reverse)),
    ("split_part", Func::Str(StrFunc::SplitPart)),
    ("initcap", Func::Str(StrFunc::Initcap)),
    ("translate", Func::Str(StrFunc::Translate)),
    ("textcat", Func::Str(StrFunc::Textcat)),
    ("ascii", Func::Str(StrFunc::Ascii)),
    ("chr", Func::Str(StrFunc::Chr)),
    ("starts_with", Func::Str(StrFunc::StartsWith)),
    ("octet_length", Func::Str(StrFunc::OctetLength)),
    ("quote_literal", Func::Str(StrFunc::QuoteLiteral)),
    ("quote_nullable", Func::Str(StrFunc::QuoteNullable)),
    ("parse_ident", Func::Str(StrFunc::ParseIdent)),
    ("trunc", Func::Trunc),
    ("floor", Func::Floor),
    ("ceil", Func::Ceil),
    ("ceiling", Func::Ceil),
    ("sign", Func::Sign),
    ("sqrt", Func::Sqrt),
    ("exp", Func::Exp),
    ("ln", Func::Ln),
    ("log", Func::Log),
    ("log10", Func::Log10),
    ("mod", Func::Mod),
    ("div", Func::Div),
    ("cbrt", Func::Cbrt),
    ("gcd", Func::Gcd),
    ("lcm", Func::Lcm),
    ("factorial", Func::Factorial),
    ("pi", Func::Pi),
    ("scale", Func::Scale),
    ("min_scale", Func::MinScale),
    ("trim_scale", Func::TrimScale),
    ("random", Func::Random),
    ("pg_trigger_depth", Func::TriggerDepth),
    ("clock_timestamp", Func::ClockTimestamp),
    ("timeofday", Func::TimeOfDay),
    ("power", Func::Power),
    ("pow", Func::Power),
    ("extract", Func::Extract),
    ("date_part", Func::DatePart),
    ("date_trunc", Func::DateTrunc),
    ("date_bin", Func::DateBin),
    ("isfinite", Func::IsFinite),
    ("to_char", Func::ToChar),
    ("to_timestamp", Func::ToTimestamp),
    ("to_date", Func::ToDate),
    ("to_number", Func::ToNumber),
    ("pg_column_size", Func::ColumnSize(false)),
    ("timezone", Func::Timezone),
    ("gen_random_uuid", Func::GenRandomUuid),
    ("current_database", Func::CurrentDatabase),
    ("version", Func::Version),
    ("nextval", Func::Nextval),
    ("currval", Func::Currval),
    ("setval", Func::Setval),
    ("lastval", Func::Lastval),
    ("width_bucket", Func::WidthBucket),
    ("overlay", Func::Overlay),
    ("overlaps", Func::Overlaps),
    ("unistr", Func::Unistr),
    ("to_hex", Func::ToHex),
];

impl Func {
    /// The function called `name`, if folio has it.
    pub fn of(name: &str) -> Option<Func> {
        crate::names::lookup(&NAMES, name)
            .or_else(|| CatalogFunc::of(name).map(Func::Catalog))
            .or_else(|| ArrayFunc::of(name).map(Func::Array))
            .or_else(|| IntervalFunc::of(name).map(Func::Interval))
            .or_else(|| RegexFunc::of(name).map(Func::Regex))
            .or_else(|| crate::json_functions::JsonFunc::of(name).map(Func::Json))
            .or_else(|| crate::advisory::AdvisoryFunc::of(name).map(Func::Advisory))
            .or_else(|| crate::backend_functions::BackendFunc::of(name).map(Func::Backend))
            .or_else(|| crate::crypto_functions::CryptoFunc::of(name).map(Func::Crypto))
            .or_else(|| crate::float_functions::FloatFunc::of(name).map(Func::Float))
            .or_else(|| crate::bytea_bits::BitFunc::of(name).map(Func::Bits))
            .or_else(|| crate::make_datetime::MakeFunc::of(name).map(Func::Make))
            .or_else(|| crate::setting_functions::SettingFunc::of(name).map(Func::Setting))
            .or_else(|| crate::xact_id::XactFunc::of(name).map(Func::Xact))
            .or_else(|| crate::wal_functions::WalFunc::of(name).map(Func::Wal))
            .or_else(|| crate::money_functions::MoneyFunc::of(name).map(Func::Money))
            .or_else(|| crate::xid_functions::XidFunc::of(name).map(Func::XidFn))
            .or_else(|| crate::jsonpath_functions::PathFunc::of(name).map(Func::JsonPath))
            .or_else(|| crate::bit_functions::BitStringFunc::of(name).map(Func::BitString))
    }

    /// Its name, as EXPLAIN prints a call (the first of its names).
    pub fn name(self) -> Option<&'static str> {
        match self {
            Func::Catalog(f) => f.name(),
            Func::Array(f) => f.name(),
            Func::Row(f) => f.name(),
            Func::Interval(f) => f.name(),
            Func::Regex(f) => f.name(),
            Func::Json(f) => f.name(),
            Func::Range(f) => f.name(),
            Func::Multirange(f) => f.name(),
            Func::Net(f) => f.name(),
            Func::Geo(f) => Some(f.name),
            Func::Advisory(f) => f.name(),
            Func::EnumRange => Some("enum_range"),
            Func::FormatVariadic => Some("format"),
            Func::ColumnSize(_) => Some("pg_column_size"),
            Func::Backend(f) => f.name(),
            Func::Crypto(f) => f.name(),
            Func::Float(f) => f.name(),
            Func::Bits(f) => f.name(),
            Func::Make(f) => f.name(),
            Func::Setting(f) => f.name(),
            Func::Xact(f) => f.name(),
            Func::Wal(f) => f.name(),
            Func::Money(f) => f.name(),
            Func::XidFn(f) => f.name(),
            Func::JsonPath(f) => f.name(),
            Func::BitString(f) => f.name(),
            Func::TextSearch(f) => f.name(),
            _ => crate::names::name_in(&NAMES, &self),
        }
    }

    /// Whether a call with arguments of types `args` gives the same value
    /// for the same arguments in every session and transaction
    /// (PostgreSQL's `IMMUTABLE`): what an index expression or predicate
    /// may call. pg_proc's volatility where it lists the function, else
    /// PostgreSQL's, by the rules below. The one owner of that rule.
    pub fn immutable(self, args: &[SqlType]) -> bool {
        let oids: Vec<i64> = args.iter().map(|t| i64::from(t.oid())).collect();
        if let Some(v) = self
            .name()
            .and_then(|n| crate::system_proc::volatility(n, &oids))
        {
            return v == 'i';
        }
        // PostgreSQL's STABLE and VOLATILE functions among those pg_proc
        // does not list here.
        const NOT_IMMUTABLE: &[&str] = &[
            "concat",
            "concat_ws",
            "format",
            "to_char",
            "to_number",
            "to_date",
            "array_to_string",
            "to_json",
            "to_jsonb",
            "row_to_json",
            "array_to_json",
            "make_timestamptz",
        ];
        if self.name().is_some_and(|n| NOT_IMMUTABLE.contains(&n)) {
            return false;
        }
        let zoned = args.iter().any(|t| matches!(t, SqlType::TimestampTz(_)));
        match self {
            Func::Random
            | Func::TriggerDepth
            | Func::ClockTimestamp
            | Func::TimeOfDay
            | Func::GenRandomUuid
            | Func::CurrentDatabase
            | Func::Version
            | Func::Nextval
            | Func::Currval
            | Func::Setval
            | Func::Lastval
            | Func::Catalog(_)
            | Func::Advisory(_)
            | Func::Setting(_)
            | Func::Xact(_)
            | Func::ColumnSize(_) => false,
            // Of a timestamptz: by the session's TimeZone.
            Func::Extract | Func::DatePart | Func::DateTrunc => !zoned,
            // `to_timestamp(text, text)` reads the session's TimeZone;
            // `to_timestamp(double)` does not.
            Func::ToTimestamp => args.len() == 1,
            Func::ToChar | Func::ToDate | Func::ToNumber => false,
            Func::Crypto(f) => f.immutable(),
            Func::Wal(f) => f.immutable(),
            Func::JsonPath(f) => f.immutable(),
            Func::Net(f) => !f.of_connection(),
            _ => true,
        }
    }

    /// Whether a call may be other than NULL when an argument is NULL
    /// (PostgreSQL's functions that are not `STRICT`): true unless it is
    /// known strict, as these are (what proves a partial index's
    /// `x IS NOT NULL` from a condition on `lower(x)`).
    pub fn accepts_null(self) -> bool {
        !matches!(
            self,
            Func::Lower
                | Func::Upper
                | Func::Length
                | Func::Abs
                | Func::Round
                | Func::Substr
                | Func::Trunc
                | Func::Floor
                | Func::Ceil
                | Func::Sign
                | Func::Sqrt
                | Func::DatePart
                | Func::DateTrunc
                | Func::DateBin
                | Func::Extract
                | Func::Str(_)
                | Func::WidthBucket
                | Func::Overlay
        )
    }

    /// Whether `count` arguments are accepted.
    pub fn takes(self, count: usize) -> bool {
        match self {
            Func::Coalesce
            | Func::Greatest
            | Func::Least
            | Func::Concat
            | Func::NumNulls
            | Func::NumNonNulls => count >= 1,
            Func::ConcatWs => count >= 2,
            Func::Format => count >= 1,
            Func::FormatVariadic => count == 2,
            Func::Nullif => count == 2,
            Func::Lower | Func::Upper | Func::Length | Func::Abs | Func::CharToText => count == 1,
            Func::InternalCharToInt4 => count == 1,
            Func::Str(f) => f.takes(count),
            Func::Floor
            | Func::Ceil
            | Func::Sign
            | Func::Sqrt
            | Func::Exp
            | Func::Ln
            | Func::Log10
            | Func::Cbrt
            | Func::Factorial
            | Func::Scale
            | Func::MinScale
            | Func::TrimScale => count == 1,
            Func::Log => (1..=2).contains(&count),
            Func::Mod | Func::Div | Func::Gcd | Func::Lcm => count == 2,
            Func::Round | Func::Trunc => (1..=2).contains(&count),
            Func::Substr => (2..=3).contains(&count),
            Func::Power
            | Func::Extract
            | Func::DatePart
            | Func::DateTrunc
            | Func::ToChar
            | Func::ToDate
            | Func::ToNumber => count == 2,
            Func::ColumnSize(_) | Func::IsFinite => count == 1,
            Func::DateBin => count == 3,
            Func::ToTimestamp => (1..=2).contains(&count),
            Func::EnumRange => count == 3,
            Func::GenRandomUuid
            | Func::CurrentDatabase
            | Func::Version
            | Func::Random
            | Func::TriggerDepth
            | Func::ClockTimestamp
            | Func::TimeOfDay
            | Func::Pi
            | Func::Lastval => count == 0,
            Func::Nextval | Func::Currval => count == 1,
            Func::Setval => (2..=3).contains(&count),
            Func::Catalog(f) => f.takes(count),
            Func::Array(f) => f.takes(count),
            Func::Row(_) => true,
            Func::Interval(f) => f.takes(count),
            Func::Regex(f) => f.takes(count),
            Func::Json(f) => f.takes(count),
            Func::Range(f) => f.takes(count),
            Func::Multirange(_) => true,
            Func::Net(_) => true,
            Func::Geo(f) => f.params.len() == count,
            Func::Advisory(f) => f.takes(count),
            Func::Backend(f) => f.takes(count),
            Func::Crypto(f) => f.takes(count),
            Func::Float(f) => f.takes(count),
            Func::Bits(f) => f.takes(count),
            Func::Make(f) => f.takes(count),
            Func::Setting(f) => f.takes(count),
            Func::Timezone => count == 2,
            Func::WidthBucket => count == 2 || count == 4,
            Func::Overlay => (3..=4).contains(&count),
            Func::Overlaps => count == 4,
            Func::Unistr | Func::ToHex => count == 1,
            Func::Xact(f) => f.takes(count),
            Func::Wal(f) => f.takes(count),
            Func::Money(f) => f.takes(count),
            Func::XidFn(f) => f.takes(count),
            Func::JsonPath(f) => f.takes(count),
            Func::BitString(f) => f.takes(count),
            Func::TextSearch(_) => true,
        }
    }

    /// How many of PostgreSQL's forms of the function a call with
    /// arguments of `types` fits (`None`: a quoted literal, NULL or a
    /// parameter, PostgreSQL's `unknown`, which fits any), for the
    /// functions whose forms folio checks when binding: `gcd` and `lcm`
    /// have int4, int8 and numeric forms and none of smallints, so
    /// smallints and unknowns alone fit all three; `factorial` has a
    /// bigint form. Every other function: [`Forms::One`] (its arguments
    /// are checked as it runs).
    pub fn forms(self, types: &[Option<SqlType>]) -> Forms {
        let integer = |t: &SqlType| matches!(t, SqlType::Int2 | SqlType::Int4 | SqlType::Int8);
        let known = || types.iter().flatten();
        match self {
            Func::Gcd | Func::Lcm => {
                if !known().all(|t| integer(t) || matches!(t, SqlType::Numeric(_))) {
                    Forms::None
                } else if known().all(|t| *t == SqlType::Int2) {
                    Forms::Several
                } else {
                    Forms::One
                }
            }
            Func::Factorial if !known().all(integer) => Forms::None,
            Func::Array(crate::array_functions::ArrayFunc::FromString)
                if !known().all(|t| {
                    matches!(t, SqlType::Text | SqlType::Varchar(_) | SqlType::Char(_))
                }) =>
            {
                Forms::None
            }
            Func::Crypto(f) if !f.fits(types) => Forms::None,
            Func::Wal(f) if !f.fits(types) => Forms::None,
            Func::Money(f) if !f.fits(types) => Forms::None,
            Func::XidFn(f) if !f.fits(types) => Forms::None,
            Func::Xact(f) if !f.fits(types) => Forms::None,
            Func::JsonPath(f) if !f.fits(types) => Forms::None,
            Func::Bits(f) if !f.fits(types) => Forms::None,
            Func::WidthBucket if !crate::width_bucket::fits(types) => Forms::None,
            Func::Overlay if !crate::overlay::fits(types) => Forms::None,
            Func::Overlaps if !crate::overlaps::fits(types) => Forms::None,
            _ => Forms::One,
        }
    }

    /// Whether it is a sequence function (its value comes from the
    /// statement's sequences, and it changes state).
    pub fn is_sequence(self) -> bool {
        matches!(
            self,
            Func::Nextval | Func::Currval | Func::Setval | Func::Lastval
        )
    }

    /// The result type for arguments of types `args`.
    pub fn ty(self, args: &[SqlType]) -> SqlType {
        match self {
            Func::Coalesce | Func::Nullif | Func::Greatest | Func::Least => args
                .iter()
                .copied()
                .find(|t| *t != SqlType::Text)
                .unwrap_or(SqlType::Text),
            // Of a bytea, a bytea (`bytea_functions.rs`).
            Func::Substr | Func::Str(StrFunc::Btrim | StrFunc::Ltrim | StrFunc::Rtrim)
                if args.first() == Some(&SqlType::Bytea) =>
            {
                SqlType::Bytea
            }
            Func::Lower
            | Func::Upper
            | Func::Substr
            | Func::Concat
            | Func::ConcatWs
            | Func::Format
            | Func::FormatVariadic
            | Func::CharToText => SqlType::Text,
            Func::InternalCharToInt4 => SqlType::Int4,
            Func::Str(f) => f.ty(),
            Func::Log | Func::Round | Func::Trunc if args.len() == 2 => SqlType::Numeric(None),
            Func::Floor
            | Func::Ceil
            | Func::Sign
            | Func::Sqrt
            | Func::Exp
            | Func::Ln
            | Func::Log10
            | Func::Log
            | Func::Round
            | Func::Trunc => match args.first() {
                Some(SqlType::Numeric(_)) => SqlType::Numeric(None),
                _ => SqlType::Float8,
            },
            Func::Div | Func::TrimScale | Func::Factorial => SqlType::Numeric(None),
            Func::Gcd | Func::Lcm => gcd_type(args.iter().copied()),
            Func::Scale | Func::MinScale | Func::NumNulls | Func::NumNonNulls => SqlType::Int4,
            Func::Pi | Func::Cbrt => SqlType::Float8,
            // A numeric with no float: numeric (an integer is cast to it).
            Func::Power
                if args.iter().any(|t| matches!(t, SqlType::Numeric(_)))
                    && !args
                        .iter()
                        .any(|t| matches!(t, SqlType::Float4 | SqlType::Float8)) =>
            {
                SqlType::Numeric(None)
            }
            Func::Random => SqlType::Float8,
            Func::TriggerDepth => SqlType::Int4,
            Func::ClockTimestamp => SqlType::TimestampTz(None),
            Func::TimeOfDay => SqlType::Text,
            Func::Mod => {
                let rank = |t: &SqlType| match t {
                    SqlType::Int2 => Some(1),
                    SqlType::Int4 => Some(2),
                    SqlType::Int8 => Some(3),
                    _ => None,
                };
                match (args.first().and_then(rank), args.get(1).and_then(rank)) {
                    (Some(a), Some(b)) => {
                        [SqlType::Int2, SqlType::Int4, SqlType::Int8][a.max(b) - 1]
                    }
                    _ => SqlType::Numeric(None),
                }
            }
            Func::Length => SqlType::Int4,
            Func::Abs => match args.first() {
                Some(SqlType::Text) => SqlType::Float8,
                other => other.copied().unwrap_or(SqlType::Numeric(None)),
            },
            Func::Extract => SqlType::Numeric(None),
            Func::Power | Func::DatePart => SqlType::Float8,
            // A date is truncated as the timestamptz it casts to.
            // A time has no date_trunc of its own: PostgreSQL casts it
            // to an interval (implicitly) and truncates that.
            Func::DateTrunc => match args.get(1) {
                Some(SqlType::Timestamp(_)) => SqlType::Timestamp(None),
                Some(SqlType::Interval(_) | SqlType::Time(_)) => SqlType::Interval(None),
                _ => SqlType::TimestampTz(None),
            },
            Func::DateBin => match args.get(1) {
                Some(SqlType::Timestamp(_)) => SqlType::Timestamp(None),
                _ => SqlType::TimestampTz(None),
            },
            Func::ToChar => SqlType::Text,
            Func::IsFinite => SqlType::Bool,
            Func::ToTimestamp => SqlType::TimestampTz(None),
            Func::ToDate => SqlType::Date,
            Func::ToNumber => SqlType::Numeric(None),
            Func::ColumnSize(_) => SqlType::Int4,
            Func::GenRandomUuid => SqlType::Uuid,
            Func::EnumRange => args.get(2).copied().unwrap_or(SqlType::Text),
            Func::CurrentDatabase | Func::Version => SqlType::Text,
            Func::Nextval | Func::Currval | Func::Setval | Func::Lastval => SqlType::Int8,
            Func::Catalog(f) => f.ty(),
            Func::Array(f) => f.ty(args),
            Func::Row(f) => f.ty(args),
            Func::Interval(f) => f.ty(),
            Func::Regex(f) => f.ty(),
            Func::Json(f) => f.ty(args),
            Func::Range(f) => f.ty(args),
            Func::Multirange(f) => f.ty(args),
            Func::Net(f) => f.ty(args),
            Func::Geo(f) => f.ty(),
            Func::Advisory(f) => f.ty(),
            Func::Backend(f) => f.ty(),
            Func::Crypto(f) => f.ty(),
            Func::Float(f) => f.ty(),
            Func::Bits(f) => f.ty(),
            Func::Make(f) => f.ty(),
            Func::Setting(f) => f.ty(),
            Func::Timezone => crate::time_zones::result_type(args.get(1)),
            Func::WidthBucket => SqlType::Int4,
            Func::Overlay => crate::overlay::ty(args),
            Func::Overlaps => SqlType::Bool,
            Func::Unistr | Func::ToHex => SqlType::Text,
            Func::Xact(f) => f.ty(),
            Func::Wal(f) => f.ty(),
            Func::Money(f) => f.ty(),
            Func::XidFn(f) => f.ty(),
            Func::JsonPath(f) => f.ty(),
            Func::BitString(f) => f.ty(),
            Func::TextSearch(f) => f.ty(),
        }
    }

    /// The function's value; `lookups`: the catalog as the execution's
    /// lookups read it, for the catalog functions that look it up.
    pub fn eval(self, args: Vec<Value>, lookups: Option<&Lookups>) -> Result<Value, SqlError> {
        // The unit of EXTRACT, date_part and date_trunc, in any of
        // PostgreSQL's spellings (`date_units.rs`), runs as folio's name
        // of it; an error about it names it as written.
        if let (Func::Extract | Func::DatePart | Func::DateTrunc, [Value::Text(written), value]) =
            (self, args.as_slice())
            && *value != Value::Null
            && let Some(type_name) = crate::date_units::type_name(value)
        {
            let spelled = written.to_ascii_lowercase();
            let unit = match self {
                Func::DateTrunc => crate::date_units::trunc_unit(&spelled),
                _ => crate::date_units::extract_unit(&spelled),
            };
            let name = unit.unwrap_or(&spelled).to_string();
            let args = vec![Value::Text(name.clone()), value.clone()];
            return self.eval_named(args, lookups).map_err(|e| {
                crate::date_units::respell(e, &name, &spelled, unit.is_some(), type_name)
            });
        }
        self.eval_named(args, lookups)
    }

    /// [`Func::eval`], a date/time unit argument read as folio's name.
    fn eval_named(self, args: Vec<Value>, lookups: Option<&Lookups>) -> Result<Value, SqlError> {
        let text = |v: &Value| -> Result<String, SqlError> {
            Ok(types::text_output(v).unwrap_or_default())
        };
        // Most functions are strict: NULL in, NULL out.
        let strict = !matches!(
            self,
            Func::Coalesce
                | Func::Nullif
                | Func::Greatest
                | Func::Least
                | Func::Concat
                | Func::ConcatWs
                | Func::Format
                | Func::FormatVariadic
                | Func::EnumRange
                | Func::NumNulls
                | Func::NumNonNulls
                | Func::Str(StrFunc::QuoteNullable)
                | Func::Overlaps
        ) && !matches!(self, Func::Array(f) if !f.is_strict())
            && !matches!(self, Func::Json(f) if !f.is_strict())
            && !matches!(self, Func::Range(f) if !f.is_strict())
            && !matches!(self, Func::Multirange(f) if !f.is_strict(args.len()))
            && !matches!(self, Func::Catalog(f) if !f.is_strict())
            && !matches!(self, Func::Setting(f) if !f.is_strict())
            && !matches!(self, Func::Row(_));
        if strict && args.contains(&Value::Null) {
            return Ok(Value::Null);
        }
        Ok(match self {
            Func::Coalesce => coalesce(args.into_iter().map(Ok))?,
            Func::Nullif => {
                let mut args = args.into_iter();
                let (a, b) = (
                    args.next().unwrap_or(Value::Null),
                    args.next().unwrap_or(Value::Null),
                );
                if compare(&a, &b)? == Some(Ordering::Equal) {
                    Value::Null
                } else {
                    a
                }
            }
            Func::Greatest | Func::Least => {
                let mut best: Option<Value> = None;
                for v in args.into_iter().filter(|v| *v != Value::Null) {
                    let replace = match &best {
                        None => true,
                        Some(b) => {
                            let order = compare(&v, b)?.unwrap_or(Ordering::Equal);
                            if self == Func::Greatest {
                                order.is_gt()
                            } else {
                                order.is_lt()
                            }
                        }
                    };
                    if replace {
                        best = Some(v);
                    }
                }
                best.unwrap_or(Value::Null)
            }
            Func::NumNulls | Func::NumNonNulls => {
                let nulls = args.iter().filter(|v| **v == Value::Null).count();
                Value::Int4(match self {
                    Func::NumNulls => nulls,
                    _ => args.len() - nulls,
                } as i32)
            }
            Func::Format => crate::format_function::format(&args)?,
            Func::FormatVariadic => {
                let mut args = args.into_iter();
                let fmt = args.next().unwrap_or(Value::Null);
                let spread = crate::variadic::spread(args.next().unwrap_or(Value::Null));
                crate::format_function::format(&[vec![fmt], spread].concat())?
            }
            Func::Concat => {
                let mut out = String::new();
                for v in args.iter().filter(|v| **v != Value::Null) {
                    out.push_str(&text(v)?);
                }
                Value::Text(out)
            }
            Func::ConcatWs => {
                let Some((separator, rest)) = args.split_first() else {
                    return Ok(Value::Null);
                };
                if *separator == Value::Null {
                    return Ok(Value::Null);
                }
                let parts = rest
                    .iter()
                    .filter(|v| **v != Value::Null)
                    .map(text)
                    .collect::<Result<Vec<_>, _>>()?;
                Value::Text(parts.join(&text(separator)?))
            }
            Func::Str(f @ (StrFunc::Btrim | StrFunc::Ltrim | StrFunc::Rtrim))
                if matches!(args.as_slice(), [Value::Bytea(_), _]) =>
            {
                let Value::Bytea(bytes) = &args[0] else {
                    unreachable!("matched above")
                };
                bytea_functions::trim(f, bytes, &args[1])?
            }
            Func::Str(f) => {
                let texts = args.iter().map(text).collect::<Result<Vec<_>, _>>()?;
                string(f, &args, &texts)?
            }
            Func::Floor | Func::Ceil | Func::Sign => rounding(self, &args[0])?,
            Func::Log if args.len() == 2 => Value::Numeric(numeric_functions::log(
                &to_numeric(&args[0], "log")?,
                &to_numeric(&args[1], "log")?,
            )?),
            Func::Sqrt | Func::Exp | Func::Ln | Func::Log10 | Func::Log => {
                transcendental(self, &args[0])?
            }
            Func::Div => Value::Numeric(numeric_functions::div_trunc(
                &to_numeric(&args[0], "div")?,
                &to_numeric(&args[1], "div")?,
            )?),
            Func::Pi => Value::Float8(std::f64::consts::PI),
            Func::Cbrt => Value::Float8(cube_root(float_arg(&args[0], "cbrt")?)),
            Func::Gcd | Func::Lcm => gcd_or_lcm(self, &args[0], &args[1])?,
            Func::Factorial => {
                let n = match &args[0] {
                    Value::Text(_) => types::cast(args[0].clone(), SqlType::Int8)?,
                    v => v.clone(),
                };
                match n {
                    Value::Int2(_) | Value::Int4(_) | Value::Int8(_) => {
                        Value::Numeric(numeric_functions::factorial(int_arg(&n)?)?)
                    }
                    other => return Err(no_function("factorial", &other)),
                }
            }
            // NaN and the infinities have no scale.
            Func::Scale | Func::MinScale => {
                let n = to_numeric(&args[0], "scale")?;
                let n = if self == Func::MinScale {
                    n.normalized()
                } else {
                    n
                };
                match n.scale() {
                    Some(scale) => Value::Int4(scale as i32),
                    None => Value::Null,
                }
            }
            Func::TrimScale => Value::Numeric(to_numeric(&args[0], "trim_scale")?.normalized()),
            Func::Mod => {
                let mut args = args.into_iter();
                let (a, b) = (
                    args.next().unwrap_or(Value::Null),
                    args.next().unwrap_or(Value::Null),
                );
                if [&a, &b]
                    .iter()
                    .any(|v| matches!(v, Value::Float4(_) | Value::Float8(_)))
                {
                    return Err(no_function("mod", &Value::Float8(0.0)));
                }
                crate::expr::arithmetic(&sqlparser::ast::BinaryOperator::Modulo, a, b)?
            }
            Func::Random => Value::Float8(rand::random::<f64>()),
            Func::TriggerDepth => Value::Int4(crate::triggers::depth() as i32),
            Func::ClockTimestamp => Value::TimestampTz(folio_row::calendar::now()),
            Func::TimeOfDay => Value::Text(crate::time_functions::time_of_day(
                folio_row::calendar::now(),
                &crate::setting_functions::time_zone(),
            )?),
            Func::CharToText => {
                crate::types::char_to_text(args.into_iter().next().unwrap_or(Value::Null))
            }
            Func::InternalCharToInt4 => match &args[0] {
                Value::Null => Value::Null,
                v => Value::Int4(i32::from(
                    folio_row::internal_char::byte_of_text(&text(v)?) as i8
                )),
            },
            Func::Lower => Value::Text(crate::case_mapping::lower(&text(&args[0])?)),
            Func::Upper => Value::Text(crate::case_mapping::upper(&text(&args[0])?)),
            // A bytea's length is in bytes; a text's in characters.
            Func::Length => Value::Int4(match &args[0] {
                Value::Bytea(b) => b.len(),
                v => text(v)?.chars().count(),
            } as i32),
            Func::Abs => match &args[0] {
                Value::Int2(x) => Value::Int2(x.checked_abs().ok_or_else(overflow)?),
                Value::Int4(x) => Value::Int4(x.checked_abs().ok_or_else(overflow)?),
                Value::Int8(x) => Value::Int8(x.checked_abs().ok_or_else(overflow)?),
                Value::Float4(x) => Value::Float4(x.abs()),
                Value::Float8(x) => Value::Float8(x.abs()),
                // A quoted literal: a float8, PostgreSQL's preferred number.
                v @ Value::Text(_) => Value::Float8(float_arg(v, "abs")?.abs()),
                Value::Numeric(n) => Value::Numeric(n.abs()),
                other => return Err(no_function("abs", other)),
            },
            Func::Round | Func::Trunc => {
                let (name, how) = if self == Func::Round {
                    ("round", Rounding::HalfAwayFromZero)
                } else {
                    ("trunc", Rounding::TowardZero)
                };
                match (&args[0], args.get(1)) {
                    (Value::Numeric(n), None) => {
                        Value::Numeric(numeric_functions::round(n, 0, how)?)
                    }
                    // A float, or an integer cast to one: rint (half to
                    // even) or trunc.
                    (v, None) => {
                        let x = float_arg(v, name)?;
                        Value::Float8(if self == Func::Round {
                            x.round_ties_even()
                        } else {
                            x.trunc()
                        })
                    }
                    (v, Some(places)) => Value::Numeric(numeric_functions::round(
                        &to_numeric(v, name)?,
                        int_arg(places)?,
                        how,
                    )?),
                }
            }
            Func::Power
                if args.iter().any(|v| matches!(v, Value::Numeric(_)))
                    && !args
                        .iter()
                        .any(|v| matches!(v, Value::Float4(_) | Value::Float8(_))) =>
            {
                Value::Numeric(numeric_functions::power(
                    &to_numeric(&args[0], "power")?,
                    &to_numeric(&args[1], "power")?,
                )?)
            }
            Func::Power => Value::Float8(crate::float_functions::power(
                float_arg(&args[0], "power")?,
                float_arg(&args[1], "power")?,
            )?),
            Func::Extract | Func::DatePart if matches!(args[1], Value::Time(_)) => {
                let Value::Time(t) = args[1] else {
                    unreachable!("matched above")
                };
                crate::time_functions::part(&text(&args[0])?, t, self == Func::DatePart)?
            }
            Func::Extract | Func::DatePart if matches!(args[1], Value::TimeTz(_)) => {
                let Value::TimeTz(t) = args[1] else {
                    unreachable!("matched above")
                };
                crate::time_functions::part_tz(&text(&args[0])?, t, self == Func::DatePart)?
            }
            Func::DateTrunc if matches!(args[1], Value::Time(_)) => {
                let Value::Interval(i) = types::cast(args[1].clone(), SqlType::Interval(None))?
                else {
                    unreachable!("a time casts to an interval")
                };
                Value::Interval(crate::interval_functions::trunc(&text(&args[0])?, i)?)
            }
            Func::Extract | Func::DatePart if matches!(args[1], Value::Interval(_)) => {
                let Value::Interval(i) = args[1] else {
                    unreachable!("matched above")
                };
                crate::interval_functions::part(&text(&args[0])?, i, self == Func::DatePart)?
            }
            Func::DateTrunc if matches!(args[1], Value::Interval(_)) => {
                let Value::Interval(i) = args[1] else {
                    unreachable!("matched above")
                };
                Value::Interval(crate::interval_functions::trunc(&text(&args[0])?, i)?)
            }
            Func::Extract | Func::DatePart => {
                let field = text(&args[0])?;
                let (micros, is_date) = instant(&args[1], &field)?;
                if let Some(infinity) = Infinity::of_timestamp(micros) {
                    let x = crate::datetime::infinite_part(&field, infinity)?;
                    return Ok(match x {
                        None => Value::Null,
                        Some(x) if self == Func::DatePart => Value::Float8(x),
                        Some(x) if x > 0.0 => Value::Numeric(Numeric::INFINITY),
                        Some(_) => Value::Numeric(Numeric::NEG_INFINITY),
                    });
                }
                // A timestamptz's fields are the session clock's, but for
                // its epoch and zone.
                let zoned = matches!(&args[1], Value::TimestampTz(_) | Value::Text(_));
                let local_micros = match zoned {
                    true => crate::time_zones::session_local(micros)?,
                    false => micros,
                };
                let x = match (zoned, field.to_ascii_lowercase().as_str()) {
                    (true, name) => {
                        let east = crate::setting_functions::time_zone().offset_at(micros);
                        match name {
                            "epoch" => crate::datetime::part(name, micros)?,
                            "timezone" => f64::from(east),
                            "timezone_hour" => f64::from(east / 3600),
                            "timezone_minute" => f64::from(east / 60 % 60),
                            _ => crate::datetime::part(&field, local_micros)?,
                        }
                    }
                    (false, _) => crate::datetime::part(&field, micros)?,
                };
                if self == Func::DatePart {
                    Value::Float8(x)
                } else {
                    // PostgreSQL 15's numeric scale per field.
                    let scale = match field.to_ascii_lowercase().as_str() {
                        "second" | "epoch" if !is_date => 6,
                        "milliseconds" if !is_date => 3,
                        _ => 0,
                    };
                    // An epoch is exact from the integer (its double
                    // loses digits past 2^53 microseconds); a Julian day
                    // is the day and the day's fraction as numeric
                    // division gives it.
                    match field.to_ascii_lowercase().as_str() {
                        "epoch" if !is_date => {
                            Value::Numeric(crate::datetime::epoch_numeric(micros)?)
                        }
                        "julian" if !is_date => {
                            Value::Numeric(crate::datetime::julian_numeric(local_micros)?)
                        }
                        _ => {
                            let scaled = (x * 10f64.powi(scale)).round() as i128;
                            Value::Numeric(Numeric::new(scaled, scale as u8)?)
                        }
                    }
                }
            }
            Func::DateTrunc => {
                let field = text(&args[0])?;
                let (micros, _) = instant(&args[1], &field)?;
                // An infinity is itself, whatever the unit (PostgreSQL 15).
                let infinite = Infinity::of_timestamp(micros).is_some();
                match &args[1] {
                    Value::Timestamp(_) if infinite => Value::Timestamp(micros),
                    _ if infinite => Value::TimestampTz(micros),
                    Value::Timestamp(_) => {
                        Value::Timestamp(crate::datetime::trunc(&field, micros)?)
                    }
                    // Cut on the session's clock, then back to an instant.
                    _ => {
                        let local = crate::time_zones::session_local(micros)?;
                        let cut = crate::datetime::trunc(&field, local)?;
                        Value::TimestampTz(crate::time_zones::session_utc(cut)?)
                    }
                }
            }
            Func::DateBin => {
                let stride = match types::coerce(args[0].clone(), SqlType::Interval(None))? {
                    Value::Interval(i) => i,
                    other => return Err(no_function("date_bin", &other)),
                };
                let zoned = !matches!(args[1], Value::Timestamp(_));
                let at = |v: &Value| match v {
                    // A quoted origin: of the source's type.
                    Value::Text(t) if !zoned => Ok(folio_row::parse_timestamp(t, false)?),
                    v => instant(v, "date_bin").map(|(micros, _)| micros),
                };
                let binned = crate::datetime::bin(stride, at(&args[1])?, at(&args[2])?)?;
                if zoned {
                    Value::TimestampTz(binned)
                } else {
                    Value::Timestamp(binned)
                }
            }
            Func::IsFinite => Value::Bool(match &args[0] {
                Value::Date(d) => Infinity::of_date(*d).is_none(),
                Value::Timestamp(t) | Value::TimestampTz(t) => Infinity::of_timestamp(*t).is_none(),
                Value::Interval(_) => true,
                other => return Err(no_function("isfinite", other)),
            }),
            Func::ToTimestamp if args.len() == 1 => {
                let seconds = match types::cast(args[0].clone(), SqlType::Float8)? {
                    Value::Float8(x) => x,
                    other => return Err(no_function("to_timestamp", &other)),
                };
                Value::TimestampTz(crate::to_timestamp::from_epoch(seconds)?)
            }
            Func::ToTimestamp => Value::TimestampTz(crate::to_timestamp::parse(
                &text(&args[0])?,
                &text(&args[1])?,
            )?),
            Func::ToDate => {
                let micros = crate::to_timestamp::parse(&text(&args[0])?, &text(&args[1])?)?;
                let days = micros.div_euclid(crate::datetime::DAY);
                Value::Date(
                    i32::try_from(days).map_err(|_| SqlError::new("22008", "date out of range"))?,
                )
            }
            Func::ColumnSize(stored) => crate::column_size::size(&args[0], stored)?,
            Func::ToNumber => crate::to_number::to_number(&text(&args[0])?, &text(&args[1])?)?
                .map_or(Value::Null, Value::Numeric),
            Func::ToChar => {
                let template = text(&args[1])?;
                let zone = crate::setting_functions::time_zone();
                let (micros, zoned) = match &args[0] {
                    Value::Timestamp(m) => (*m, None),
                    Value::TimestampTz(m) => (
                        crate::time_zones::session_local(*m)?,
                        Some((zone.abbreviation_at(*m), zone.offset_at(*m))),
                    ),
                    Value::Date(d) => (folio_row::calendar::midnight(*d), None),
                    number => {
                        return Ok(Value::Text(crate::to_char::format_number(
                            number, &template,
                        )?));
                    }
                };
                // An infinity has no fields to print (PostgreSQL: NULL).
                if Infinity::of_timestamp(micros).is_some() {
                    return Ok(Value::Null);
                }
                let zoned = zoned
                    .as_ref()
                    .map(|(abbrev, east)| (abbrev.as_str(), *east));
                Value::Text(crate::to_char::format(micros, zoned, &template)?)
            }
            Func::GenRandomUuid => {
                let mut bytes = [0u8; 16];
                rand::RngCore::fill_bytes(&mut rand::thread_rng(), &mut bytes);
                // Version 4, variant 1 (RFC 4122).
                bytes[6] = (bytes[6] & 0x0f) | 0x40;
                bytes[8] = (bytes[8] & 0x3f) | 0x80;
                Value::Uuid(bytes)
            }
            Func::CurrentDatabase => Value::Text("postgres".into()),
            Func::Version => Value::Text(version()),
            Func::Nextval | Func::Currval | Func::Setval | Func::Lastval => {
                return Err(SqlError::unsupported(format!(
                    "{} here (sequence functions run in queries and row changes)",
                    format!("{self:?}").to_lowercase()
                )));
            }
            Func::Advisory(f) => {
                return Err(SqlError::unsupported(format!(
                    "{} here (advisory lock functions run in queries and row changes)",
                    f.name().unwrap_or("an advisory lock function")
                )));
            }
            Func::Backend(f) => {
                return Err(SqlError::unsupported(format!(
                    "{} here (session functions run in queries and row changes)",
                    f.name().unwrap_or("a session function")
                )));
            }
            Func::Catalog(f) => f.eval(&args, lookups)?,
            Func::EnumRange => crate::enum_functions::range(&args),
            Func::Array(f) => f.eval(args)?,
            Func::Row(f) => f.eval(args)?,
            Func::Interval(f) => f.eval(&args)?,
            Func::Regex(f) => f.eval(&args)?,
            Func::Json(f) => f.eval(args)?,
            Func::Range(f) => f.eval(args)?,
            Func::Multirange(f) => f.eval(args)?,
            Func::Net(f) => f.eval(&args)?,
            Func::Geo(f) => f.eval(&args)?,
            Func::Crypto(f) => f.eval(&args)?,
            Func::Wal(f) => f.eval(&args)?,
            Func::Money(f) => f.eval(&args)?,
            Func::XidFn(f) => f.eval(&args)?,
            Func::JsonPath(f) => f.eval(&args)?,
            Func::BitString(f) => f.eval(&args)?,
            Func::TextSearch(f) => f.eval(&args)?,
            Func::Float(f) => f.eval(&args)?,
            Func::Bits(f) => f.eval(&args)?,
            Func::Unistr => Value::Text(crate::string_literals::unistr(&text(&args[0])?)?),
            Func::ToHex => Value::Text(match &args[0] {
                Value::Int8(x) => format!("{:x}", *x as u64),
                other => format!("{:x}", int_arg(other)? as i32 as u32),
            }),
            Func::Make(f) => f.eval(&args)?,
            Func::WidthBucket => crate::width_bucket::eval(&args)?,
            Func::Overlay => crate::overlay::eval(&args)?,
            Func::Overlaps => crate::overlaps::eval(args)?,
            Func::Xact(_) => return Err(crate::xact_id::outside_statement()),
            Func::Setting(f) => f.eval(&args)?,
            Func::Timezone => crate::time_zones::eval(&args[0], &args[1])?,
            Func::Substr if matches!(args[0], Value::Bytea(_)) => {
                let Value::Bytea(bytes) = &args[0] else {
                    unreachable!("matched above")
                };
                let count = args.get(2).map(int_arg).transpose()?;
                bytea_functions::substr(bytes, int_arg(&args[1])?, count)?
            }
            // `substring(text FROM pattern [FOR escape])`: PostgreSQL's
            // forms for a text (or quoted) second argument, the POSIX and
            // the SQL regular expression's.
            Func::Substr if matches!(args[1], Value::Text(_)) => match args.get(2) {
                Some(escape) => crate::regex_functions::similar_substring(
                    &text(&args[0])?,
                    &text(&args[1])?,
                    &text(escape)?,
                )?,
                None => crate::regex_functions::substring(&text(&args[0])?, &text(&args[1])?)?,
            },
            Func::Substr => {
                let s: Vec<char> = text(&args[0])?.chars().collect();
                let start = int_arg(&args[1])?;
                // PostgreSQL: 1-based; a start before 1 shortens the length.
                let (from, end) = match args.get(2) {
                    Some(len) => {
                        let len = int_arg(len)?;
                        if len < 0 {
                            return Err(SqlError::new(
                                "22011",
                                "negative substring length not allowed",
                            ));
                        }
                        (start, start.saturating_add(len))
                    }
                    None => (start, i64::MAX),
                };
                let clamp = |i: i64| (i.max(1) - 1).min(s.len() as i64) as usize;
                let (a, b) = (clamp(from), clamp(end));
                Value::Text(s[a..b.max(a)].iter().collect())
            }
        })
    }
}

/// COALESCE: the first of `values` that is not NULL (NULL if none), drawn
/// in order and no further, so an argument after it is never evaluated
/// (PostgreSQL's: `coalesce(i, 1 / 0)` is `i` where `i` is not NULL).
/// `Scalar::eval` hands it its arguments unevaluated, as an iterator.
pub fn coalesce(values: impl Iterator<Item = Result<Value, SqlError>>) -> Result<Value, SqlError> {
    for value in values {
        let value = value?;
        if value != Value::Null {
            return Ok(value);
        }
    }
    Ok(Value::Null)
}

/// `floor`, `ceil` and `sign` of `v`: numeric (scale 0) for a numeric,
/// else double precision.
fn rounding(func: Func, v: &Value) -> Result<Value, SqlError> {
    if let Value::Numeric(n) = v {
        return Ok(Value::Numeric(match func {
            Func::Floor => n.round_to(0, Rounding::Floor)?,
            Func::Ceil => n.round_to(0, Rounding::Ceiling)?,
            _ => numeric_functions::sign(n),
        }));
    }
    let name = format!("{func:?}").to_lowercase();
    let x = match types::cast(v.clone(), SqlType::Float8)? {
        Value::Float8(x) => x,
        other => return Err(no_function(&name, &other)),
    };
    Ok(Value::Float8(match func {
        Func::Floor => x.floor(),
        Func::Ceil => x.ceil(),
        _ if x.is_nan() => x,
        _ if x == 0.0 => 0.0,
        _ => x.signum(),
    }))
}

/// `sqrt`, `exp`, `ln`, `log10` and one-argument `log` of `v`: numeric for
/// a numeric (`numeric_functions.rs`; `log` is base 10), else double
/// precision with PostgreSQL's errors.
fn transcendental(func: Func, v: &Value) -> Result<Value, SqlError> {
    if let Value::Numeric(n) = v {
        return Ok(Value::Numeric(match func {
            Func::Sqrt => numeric_functions::sqrt(n)?,
            Func::Exp => numeric_functions::exp(n)?,
            Func::Ln => numeric_functions::ln(n)?,
            _ => numeric_functions::log(&Numeric::from_i64(10), n)?,
        }));
    }
    let name = format!("{func:?}").to_lowercase();
    let x = float_arg(v, &name)?;
    let out_of_range = |what: &str| SqlError::new("22003", format!("value out of range: {what}"));
    Ok(Value::Float8(match func {
        Func::Sqrt if x < 0.0 => {
            return Err(SqlError::new(
                "2201F",
                "cannot take square root of a negative number",
            ));
        }
        Func::Sqrt => x.sqrt(),
        // exp(NaN) is NaN, exp(-Infinity) 0.
        Func::Exp if x.is_nan() => x,
        Func::Exp if x.is_infinite() => x.max(0.0),
        Func::Exp => match x.exp() {
            r if r.is_infinite() => return Err(out_of_range("overflow")),
            0.0 => return Err(out_of_range("underflow")),
            r => r,
        },
        _ if x == 0.0 => {
            return Err(SqlError::new("2201E", "cannot take logarithm of zero"));
        }
        _ if x < 0.0 => {
            return Err(SqlError::new(
                "2201E",
                "cannot take logarithm of a negative number",
            ));
        }
        Func::Ln => x.ln(),
        _ => x.log10(),
    }))
}

/// The cube root PostgreSQL returns: the C library's `cbrt`. Rust's own
/// is correctly rounded, glibc's can be a unit in the last place off it
/// (`cbrt(27)` is 3.0000000000000004 there), and a client should see
/// PostgreSQL's digits. glibc's is called by its `_Float64` name,
/// `cbrtf64`: the plain name is also defined by Rust's runtime (its
/// portable math), which the linker takes first. Elsewhere, Rust's.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn cube_root(x: f64) -> f64 {
    #[link(name = "m")]
    // SAFETY: glibc's `cbrtf64` (2.27 and later) is C's `cbrt` of a
    // double: it takes and returns a value, touches no memory and sets no
    // state, so any argument is safe.
    unsafe extern "C" {
        safe fn cbrtf64(x: f64) -> f64;
    }
    cbrtf64(x)
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn cube_root(x: f64) -> f64 {
    x.cbrt()
}

/// The type of `gcd` and `lcm` of arguments of `types`: numeric if one
/// is, else bigint if one is, else integer (PostgreSQL's forms; a smallint
/// or a quoted literal takes the other argument's form).
fn gcd_type(types: impl IntoIterator<Item = SqlType>) -> SqlType {
    let mut ty = SqlType::Int4;
    for t in types {
        match t {
            SqlType::Numeric(_) => return SqlType::Numeric(None),
            SqlType::Int8 => ty = SqlType::Int8,
            _ => {}
        }
    }
    ty
}

/// `gcd(a, b)` or `lcm(a, b)` in the form [`gcd_type`] picks for the
/// values (a quoted literal read as that type); a float is no form's.
/// An integer result past its type is 22003, as PostgreSQL's
/// (`gcd(-2147483648, 0)` is 2147483648, not an integer).
fn gcd_or_lcm(func: Func, a: &Value, b: &Value) -> Result<Value, SqlError> {
    let name = if func == Func::Gcd { "gcd" } else { "lcm" };
    for v in [a, b] {
        if !matches!(
            v,
            Value::Int2(_) | Value::Int4(_) | Value::Int8(_) | Value::Numeric(_) | Value::Text(_)
        ) {
            return Err(no_function(name, v));
        }
    }
    let ty = gcd_type([a, b].into_iter().filter_map(|v| match v {
        Value::Numeric(_) => Some(SqlType::Numeric(None)),
        Value::Int8(_) => Some(SqlType::Int8),
        _ => None,
    }));
    if ty == SqlType::Numeric(None) {
        let (a, b) = (to_numeric(a, name)?, to_numeric(b, name)?);
        return Ok(Value::Numeric(if func == Func::Gcd {
            a.gcd(&b)
        } else {
            a.lcm(&b)?
        }));
    }
    let a = int_arg(&types::cast(a.clone(), ty)?)?.unsigned_abs();
    let b = int_arg(&types::cast(b.clone(), ty)?)?.unsigned_abs();
    let divisor = greatest_common_divisor(a.into(), b.into());
    let result = match func {
        Func::Gcd => divisor,
        _ if divisor == 0 => 0,
        _ => u128::from(a) / divisor * u128::from(b),
    };
    Ok(if ty == SqlType::Int8 {
        Value::Int8(
            i64::try_from(result).map_err(|_| SqlError::new("22003", "bigint out of range"))?,
        )
    } else {
        Value::Int4(i32::try_from(result).map_err(|_| overflow())?)
    })
}

/// Euclid's greatest common divisor (0 of two zeros).
pub(crate) fn greatest_common_divisor(mut a: u128, mut b: u128) -> u128 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// The string functions: `texts` are the arguments' text forms, `args`
/// their values (for the integer ones). Counts are in characters, as
/// PostgreSQL's in UTF-8.
fn string(func: StrFunc, args: &[Value], texts: &[String]) -> Result<Value, SqlError> {
    let chars = |i: usize| texts[i].chars().collect::<Vec<char>>();
    let int = |i: usize| int_arg(&args[i]);
    // The first `n` characters, or all but the last `-n`.
    let first = |s: &[char], n: i64| -> String {
        let len = s.len() as i64;
        let keep = if n >= 0 { n.min(len) } else { (len + n).max(0) };
        s[..keep as usize].iter().collect()
    };
    Ok(Value::Text(match func {
        StrFunc::Repeat => {
            let n = usize::try_from(int(1)?).unwrap_or(0);
            if texts[0].len().saturating_mul(n) >= 1 << 30 {
                return Err(SqlError::new(
                    "54000",
                    "requested length too large".to_string(),
                ));
            }
            texts[0].repeat(n)
        }
        StrFunc::Replace if texts[1].is_empty() => texts[0].clone(),
        StrFunc::Replace => texts[0].replace(&texts[1], &texts[2]),
        StrFunc::Left => first(&chars(0), int(1)?),
        StrFunc::Right => {
            let mut s = chars(0);
            s.reverse();
            let mut out: Vec<char> = first(&s, int(1)?).chars().collect();
            out.reverse();
            out.into_iter().collect()
        }
        StrFunc::Lpad | StrFunc::Rpad => {
            let s = chars(0);
            let len = usize::try_from(int(1)?).unwrap_or(0);
            if len >= 1 << 28 {
                return Err(SqlError::new(
                    "54000",
                    "requested length too large".to_string(),
                ));
            }
            let fill: Vec<char> = match texts.get(2) {
                Some(f) => f.chars().collect(),
                None => vec![' '],
            };
            if s.len() >= len || fill.is_empty() {
                return Ok(Value::Text(s[..len.min(s.len())].iter().collect()));
            }
            let pad: String = fill.iter().cycle().take(len - s.len()).collect();
            let s: String = s.into_iter().collect();
            if func == StrFunc::Lpad {
                pad + &s
            } else {
                s + &pad
            }
        }
        StrFunc::Btrim | StrFunc::Ltrim | StrFunc::Rtrim => {
            let set: Vec<char> = match texts.get(1) {
                Some(f) => f.chars().collect(),
                None => vec![' '],
            };
            let s = texts[0].as_str();
            let trimmed = match func {
                StrFunc::Btrim => s.trim_matches(|c| set.contains(&c)),
                StrFunc::Ltrim => s.trim_start_matches(|c| set.contains(&c)),
                _ => s.trim_end_matches(|c| set.contains(&c)),
            };
            trimmed.to_string()
        }
        StrFunc::Strpos => {
            let at = match texts[0].find(&texts[1]) {
                Some(byte) => texts[0][..byte].chars().count() as i32 + 1,
                None => 0,
            };
            return Ok(Value::Int4(at));
        }
        StrFunc::Reverse => texts[0].chars().rev().collect(),
        StrFunc::SplitPart => {
            let n = int(2)?;
            if n == 0 {
                return Err(SqlError::new(
                    "22023",
                    "field position must not be zero".to_string(),
                ));
            }
            let fields: Vec<&str> = if texts[1].is_empty() {
                vec![texts[0].as_str()]
            } else {
                texts[0].split(texts[1].as_str()).collect()
            };
            let at = if n > 0 {
                usize::try_from(n - 1).ok()
            } else {
                usize::try_from(-n)
                    .ok()
                    .and_then(|k| fields.len().checked_sub(k))
            };
            if texts[0].is_empty() {
                String::new()
            } else {
                at.and_then(|i| fields.get(i))
                    .copied()
                    .unwrap_or("")
                    .to_string()
            }
        }
        StrFunc::Initcap => {
            let mut out = String::with_capacity(texts[0].len());
            let mut in_word = false;
            for c in texts[0].chars() {
                out.push(if in_word {
                    crate::case_mapping::lower_char(c)
                } else {
                    crate::case_mapping::upper_char(c)
                });
                in_word = c.is_alphanumeric();
            }
            out
        }
        StrFunc::Md5 => {
            use md5::Digest;
            let bytes = match &args[0] {
                Value::Bytea(b) => b.as_slice(),
                _ => texts[0].as_bytes(),
            };
            md5::Md5::digest(bytes)
                .iter()
                .map(|b| format!("{b:02x}"))
                .collect()
        }
        StrFunc::Translate => {
            let from = chars(1);
            let to = chars(2);
            texts[0]
                .chars()
                .filter_map(|c| match from.iter().position(|&f| f == c) {
                    Some(at) => to.get(at).copied(),
                    None => Some(c),
                })
                .collect()
        }
        StrFunc::Ascii => {
            let code = texts[0].chars().next().map_or(0, u32::from);
            return Ok(Value::Int4(code as i32));
        }
        StrFunc::Chr => {
            let code = int(0)?;
            let invalid = |what: &str| SqlError::new("54000", format!("{what}: {code}"));
            return match code {
                0 => Err(SqlError::new("54000", "null character not permitted")),
                ..0 => Err(SqlError::new("22023", "character number must be positive")),
                0x11_0000.. => Err(invalid("requested character too large for encoding")),
                _ => u32::try_from(code)
                    .ok()
                    .and_then(char::from_u32)
                    .map(|c| Value::Text(c.to_string()))
                    .ok_or_else(|| invalid("requested character not valid for encoding")),
            };
        }
        StrFunc::StartsWith => return Ok(Value::Bool(texts[0].starts_with(texts[1].as_str()))),
        StrFunc::Textcat => format!("{}{}", texts[0], texts[1]),
        StrFunc::ParseIdent => {
            let strict = args.get(1) != Some(&Value::Bool(false));
            let parts = crate::parse_ident::parse(&texts[0], strict)?;
            return Ok(Value::Array(parts.into_iter().map(Value::Text).collect()));
        }
        StrFunc::QuoteNullable if args[0] == Value::Null => "NULL".to_string(),
        StrFunc::QuoteLiteral | StrFunc::QuoteNullable => {
            crate::format_function::quote_literal(&texts[0])
        }
        StrFunc::OctetLength => {
            let bytes = match &args[0] {
                Value::Bytea(b) => b.len(),
                Value::Text(t) => t.len(),
                other => return Err(no_function("octet_length", other)),
            };
            return Ok(Value::Int4(i32::try_from(bytes).unwrap_or(i32::MAX)));
        }
    }))
}

/// A date or timestamp as microseconds since 2000-01-01, and whether it
/// was a date (a date has no time fields: 22023 for them, as PostgreSQL).
fn instant(v: &Value, field: &str) -> Result<(i64, bool), SqlError> {
    match v {
        Value::Date(d) => {
            let timely = matches!(
                field.to_ascii_lowercase().as_str(),
                "hour" | "minute" | "second" | "milliseconds" | "microseconds"
            );
            if timely {
                return Err(SqlError::new(
                    "0A000",
                    format!("unit \"{field}\" not supported for type date"),
                ));
            }
            Ok((folio_row::calendar::midnight(*d), true))
        }
        Value::Timestamp(t) | Value::TimestampTz(t) => Ok((*t, false)),
        Value::Text(t) => {
            let zone = crate::setting_functions::time_zone();
            let order = crate::setting_functions::date_order();
            Ok((folio_row::parse_timestamp_in(t, true, &zone, order)?, false))
        }
        other => Err(no_function("date_part", other)),
    }
}

fn to_numeric(v: &Value, name: &str) -> Result<Numeric, SqlError> {
    Ok(match v {
        Value::Numeric(n) => n.clone(),
        Value::Int2(x) => Numeric::from_i64((*x).into()),
        Value::Int4(x) => Numeric::from_i64((*x).into()),
        Value::Int8(x) => Numeric::from_i64(*x),
        Value::Text(t) => Numeric::parse(t.trim()).map_err(|_| {
            SqlError::new(
                "22P02",
                format!("invalid input syntax for type numeric: \"{t}\""),
            )
        })?,
        other => return Err(no_function(name, other)),
    })
}

/// `v` as a double precision argument of the function `name`.
pub(crate) fn float_arg(v: &Value, name: &str) -> Result<f64, SqlError> {
    match types::cast(v.clone(), SqlType::Float8)? {
        Value::Float8(x) => Ok(x),
        other => Err(no_function(name, &other)),
    }
}

fn overflow() -> SqlError {
    SqlError::new("22003", "integer out of range")
}

pub(crate) fn no_function(name: &str, arg: &Value) -> SqlError {
    no_match(format!(
        "function {name}({}) does not exist",
        arg.type_name()
    ))
}

/// Whether folio has a function called `name` (folded) of any kind:
/// scalar, aggregate, window or set-returning. A call of any other name is
/// 42883 wherever it is (`scalar::unknown_function`), before the grouping
/// of its arguments is checked, as PostgreSQL looks a function up first.
pub fn exists(name: &str) -> bool {
    Func::of(name).is_some()
        || crate::aggregate::is_aggregate_name(name)
        || crate::window::is_window_name(name)
        || crate::table_functions::is_table_function_name(name)
        || crate::range_functions::is_name(name)
        || crate::multirange_functions::is_name(name)
        || crate::network_functions::is_name(name)
        || crate::geometry_functions::is_name(name)
        || crate::ts_functions::is_name(name)
        || matches!(
            name,
            "grouping"
                | "pg_typeof"
                | "pg_collation_for"
                | "enum_first"
                | "enum_last"
                | "enum_range"
        )
}

/// 42883 with PostgreSQL's hint, for `message` naming a function call
/// that no function matches.
pub fn no_match(message: String) -> SqlError {
    SqlError::new("42883", message).with_hint(
        "No function matches the given name and argument types. \
         You might need to add explicit type casts.",
    )
}

/// 42725 with PostgreSQL's hint, for `message` naming a function call
/// that several of the function's forms fit equally well.
pub fn not_unique(message: String) -> SqlError {
    SqlError::new("42725", message).with_hint(
        "Could not choose a best candidate function. \
         You might need to add explicit type casts.",
    )
}

/// 42883 with PostgreSQL's hint, for `message` naming an operator no
/// operator matches (`operator does not exist: date + date`).
pub fn no_operator(message: String) -> SqlError {
    SqlError::new("42883", message).with_hint(
        "No operator matches the given name and argument types. \
         You might need to add explicit type casts.",
    )
}

pub(crate) fn int_arg(v: &Value) -> Result<i64, SqlError> {
    match v {
        Value::Int2(x) => Ok((*x).into()),
        Value::Int4(x) => Ok((*x).into()),
        Value::Int8(x) => Ok(*x),
        Value::Oid(x) => Ok((*x).into()),
        Value::Reg(r) => Ok(r.oid.into()),
        Value::Text(t) => t.trim().parse().map_err(|_| {
            SqlError::new(
                "22P02",
                format!("invalid input syntax for type integer: \"{t}\""),
            )
        }),
        other => Err(SqlError::new(
            "42883",
            format!("an integer argument, not {}", other.type_name()),
        )),
    }
}

/// Whether `text` matches LIKE `pattern` (`%` any run, `_` one character,
/// `\` escapes the next), case-insensitively for ILIKE.
pub fn like(text: &str, pattern: &str, insensitive: bool) -> bool {
    let fold = |s: &str| -> Vec<char> {
        if insensitive {
            s.to_lowercase().chars().collect()
        } else {
            s.chars().collect()
        }
    };
    let (t, p) = (fold(text), fold(pattern));
    matches(&t, &p)
}

/// A LIKE pattern's pieces.
#[derive(Clone, Copy, PartialEq)]
enum Piece {
    Any,
    One,
    Lit(char),
}

/// Wildcard matching with one backtrack point (the last `%`): linear in
/// practice, never exponential.
fn matches(t: &[char], p: &[char]) -> bool {
    let mut pieces = Vec::with_capacity(p.len());
    let mut i = 0;
    while i < p.len() {
        pieces.push(match p[i] {
            '%' => Piece::Any,
            '_' => Piece::One,
            '\\' if i + 1 < p.len() => {
                i += 1;
                Piece::Lit(p[i])
            }
            c => Piece::Lit(c),
        });
        i += 1;
    }
    let (mut ti, mut pi) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while ti < t.len() {
        match pieces.get(pi) {
            Some(Piece::Any) => {
                star = Some((pi, ti));
                pi += 1;
            }
            Some(Piece::One) => {
                ti += 1;
                pi += 1;
            }
            Some(Piece::Lit(c)) if *c == t[ti] => {
                ti += 1;
                pi += 1;
            }
            _ => match star {
                Some((sp, st)) => {
                    pi = sp + 1;
                    ti = st + 1;
                    star = Some((sp, st + 1));
                }
                None => return false,
            },
        }
    }
    pieces[pi..].iter().all(|x| *x == Piece::Any)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn like_patterns() {
        assert!(like("abc", "a%", false));
        assert!(like("abc", "_b_", false));
        assert!(!like("abc", "_b", false));
        assert!(like("ABC", "a%c", true));
        assert!(like("50%", "50\\%", false));
        assert!(!like("500", "50\\%", false));
        assert!(like("", "%", false));
    }
}
