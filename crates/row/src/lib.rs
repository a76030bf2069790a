//! folio's SQL values (design: this crate's `README.md`): types with
//! PostgreSQL's oids (`types.rs`), values (`value.rs`, `numeric.rs`, its
//! functions in `numeric_math.rs` over the wide intermediate values of
//! `big.rs`), the row format with a null bitmap (`row_format.rs`) and the
//! order-preserving key encoding of index keys (`key.rs`).

mod array;
mod array_text;
mod big;
mod bits;
pub mod calendar;
mod composites;
mod date_styles;
mod datetime_fields;
mod datetime_input;
mod datetime_tokens;
mod datum_width;
mod enums;
mod error;
pub mod geometry;
mod geometry_text;
pub mod inet;
mod infinite_datetime;
pub mod internal_char;
mod interval;
mod interval_input;
mod interval_styles;
mod interval_typmod;
mod json;
mod json_parse;
mod jsonpath;
mod jsonpath_parse;
mod jsonpath_scan;
mod jsonpath_text;
mod key;
pub mod lsn;
pub mod macaddr;
pub mod money;
mod multirange;
mod multirange_text;
mod name;
mod numeric;
mod numeric_math;
pub mod oid;
mod range;
mod range_text;
mod record_text;
mod reg;
mod row_format;
mod text;
mod text_style;
pub mod tid;
mod time_of_day;
mod time_with_zone;
mod time_zone;
mod time_zone_abbreviations;
mod ts_token;
mod tsquery;
mod tsvector;
mod types;
mod value;
pub mod xid_snapshot;

pub use array::{Array, Dim, MAX_DIMS, MAX_ITEMS, too_many_dims};
pub use bits::{BitString, MAX_BITS};
pub use composites::CompositeType;
pub use date_styles::{
    DateOutput, DateStyle, MONTH_ABBREVS, WEEKDAY_ABBREVS, date_text, timestamp_text,
};
pub use datetime_fields::DateOrder;
pub use datetime_input::{
    parse_date, parse_date_in, parse_time_in, parse_timestamp, parse_timestamp_in, parse_timetz_in,
};
pub use datum_width::{stored_size, type_avg_width};
pub use enums::{EnumLabel, EnumType, EnumValue};
pub use error::RowError;
pub use infinite_datetime::Infinity;
pub use interval::{Interval, USECS_PER_DAY};
pub use interval_input::{Unit, parse_interval};
pub use interval_styles::{IntervalStyle, interval_text};
pub use interval_typmod::{IntervalFields, IntervalTypmod, MAX_INTERVAL_PRECISION};
pub use json::{
    Jsonb, escape_into as json_escape_into, key_order as jsonb_key_order,
    number_text as json_number_text,
};
pub use json_parse::{Node as JsonNode, NodeKind as JsonNodeKind, parse as parse_json};
pub use jsonpath::{
    Accessor as PathAccessor, BinaryOp as PathBinaryOp, JsonPath, LAST_LEVEL as PATH_LAST_LEVEL,
    Method as PathMethod, PathExpr, RegexFlags as PathRegexFlags, Subscript as PathSubscript,
};
pub use jsonpath_parse::parse_jsonpath;
pub use jsonpath_text::{path_text, stored_text as path_stored_text};
pub use key::{KeyColumn, MAX_KEY_LEN, decode_key, encode_key, hash_key};
pub use multirange::Multirange;
pub use name::{MAX_NAME_BYTES, truncate as name_truncate};
pub use numeric::{LongNumeric, MAX_NUMERIC_SCALE, MAX_WHOLE_DIGITS, Numeric, Rounding};
pub use range::{Bound, Range, RangeKind};
pub use reg::{RegKind, RegValue};
pub use row_format::{
    ColumnBytes, EXTERNAL, Stored, column_bytes, decode_column, decode_marked, decode_row,
    decode_stored, decode_stored_columns, encode_row, encode_stored, max_inline_row_len,
    range_flags, range_flags_of, value_from_payload, value_payload,
};
pub use text_style::TextStyle;
pub use time_of_day::{
    TIME_END, format_time, plus_interval as time_plus_interval, wrap as wrap_time,
};
pub use time_with_zone::{TimeTz, ZONE_LIMIT_SECONDS};
pub use time_zone::{ABBREVIATIONS, TimeZone, database_zones, is_utc, offset_text, posix_offset};
pub use tsquery::{MAX_DISTANCE, MAX_QUERY_DEPTH, QueryNode, TsQuery, WEIGHT_A, lexeme_crc};
pub use tsvector::{
    Lexeme, MAX_LEXEME_BYTES, MAX_POS, MAX_POSITIONS, TsVector, WordPos, check_lexeme,
    quote_lexeme, weight_letter,
};
pub use types::SqlType;
pub use value::Value;
pub use xid_snapshot::XidSnapshot;
