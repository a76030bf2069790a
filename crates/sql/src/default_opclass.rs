//! A btree index key's operator class written by name: folio takes the
//! name of the default class of the key column's type (PostgreSQL's
//! `bpchar_ops` for `char(n)`, `text_ops` for text and varchar, ...),
//! which orders as the key would without it; any other class (the
//! `*_pattern_ops`, a user's) is not supported (0A000).

use crate::error::SqlError;

/// The default btree operator classes and the type oids each serves.
const DEFAULTS: &[(&str, &[u32])] = &[
    ("bool_ops", &[16]),
    ("bytea_ops", &[17]),
    ("name_ops", &[19]),
    ("int8_ops", &[20]),
    ("int2_ops", &[21]),
    ("int4_ops", &[23]),
    ("text_ops", &[25, 1043]),
    ("oid_ops", &[26]),
    ("float4_ops", &[700]),
    ("float8_ops", &[701]),
    ("money_ops", &[790]),
    ("inet_ops", &[869, 650]),
    ("bpchar_ops", &[1042]),
    ("date_ops", &[1082]),
    ("time_ops", &[1083]),
    ("timestamp_ops", &[1114]),
    ("timestamptz_ops", &[1184]),
    ("interval_ops", &[1186]),
    ("timetz_ops", &[1266]),
    ("numeric_ops", &[1700]),
    ("uuid_ops", &[2950]),
    ("jsonb_ops", &[3802]),
];

/// Ok when `class` is the default btree operator class of a key of type
/// oid `type_oid` (`None`: not known, which no class serves). A default
/// class of another type is PostgreSQL's 42804; any other class 0A000.
pub fn check(class: &str, type_oid: Option<u32>, key: &str) -> Result<(), SqlError> {
    let class = class.to_ascii_lowercase();
    let Some((_, oids)) = DEFAULTS.iter().find(|(name, _)| *name == class) else {
        return Err(SqlError::unsupported(format!(
            "the operator class of {key}"
        )));
    };
    match type_oid {
        Some(t) if oids.contains(&t) => Ok(()),
        Some(t) => Err(SqlError::new(
            "42804",
            format!(
                "operator class \"{class}\" does not accept data type {}",
                crate::catalog_functions::format_type(i64::from(t), None)
            ),
        )),
        None => Err(SqlError::unsupported(format!(
            "the operator class of {key}"
        ))),
    }
}
