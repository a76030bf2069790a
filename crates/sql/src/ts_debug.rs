//! The functions that show the text search parser at work (PostgreSQL
//! 15's `ts_token_type`, `ts_parse` and `ts_debug`): their rows, for
//! `table_functions.rs` to return in FROM.
//!
//! Only the `default` parser exists (oid 3722). `ts_debug`'s dictionary
//! columns are PostgreSQL's `regdictionary` / `regdictionary[]`; folio
//! has no such type and gives the dictionaries' names as text, which
//! read and print the same.

use crate::error::SqlError;
use crate::ts_config::Config;
use crate::ts_token_kinds::{ALL, DEFAULT_PARSER_OID};
use folio_row::{SqlType, Value};

/// `ts_token_type`'s columns.
pub(crate) const TOKEN_TYPE_COLUMNS: &[(&str, SqlType)] = &[
    ("tokid", SqlType::Int4),
    ("alias", SqlType::Text),
    ("description", SqlType::Text),
];

/// `ts_parse`'s columns.
pub(crate) const PARSE_COLUMNS: &[(&str, SqlType)] =
    &[("tokid", SqlType::Int4), ("token", SqlType::Text)];

/// `ts_debug`'s columns.
pub(crate) const DEBUG_COLUMNS: &[(&str, SqlType)] = &[
    ("alias", SqlType::Text),
    ("description", SqlType::Text),
    ("token", SqlType::Text),
    ("dictionaries", SqlType::Array(&SqlType::Text)),
    ("dictionary", SqlType::Text),
    ("lexemes", SqlType::Array(&SqlType::Text)),
];

/// Checks that `parser` (a name or an oid) is the default parser: 42704
/// for another name, XX000 for another oid (PostgreSQL's cache lookup
/// failure).
fn check_parser(parser: &Value) -> Result<(), SqlError> {
    if let Value::Text(name) = parser {
        let plain = name.trim().to_ascii_lowercase();
        return match plain.strip_prefix("pg_catalog.").unwrap_or(&plain) {
            "default" => Ok(()),
            _ => Err(SqlError::new(
                "42704",
                format!("text search parser \"{name}\" does not exist"),
            )),
        };
    }
    let oid = crate::functions::int_arg(parser)?;
    if oid == DEFAULT_PARSER_OID {
        Ok(())
    } else {
        Err(SqlError::new(
            "XX000",
            format!("cache lookup failed for text search parser {oid}"),
        ))
    }
}

/// `ts_token_type(parser)`: the parser's token kinds, by id.
pub(crate) fn token_type_rows(parser: &Value) -> Result<Vec<Vec<Value>>, SqlError> {
    check_parser(parser)?;
    Ok(ALL
        .iter()
        .map(|k| {
            vec![
                Value::Int4(k.id()),
                Value::Text(k.alias().into()),
                Value::Text(k.description().into()),
            ]
        })
        .collect())
}

/// `ts_parse(parser, text)`: the text's tokens, blanks included.
pub(crate) fn parse_rows(parser: &Value, text: &str) -> Result<Vec<Vec<Value>>, SqlError> {
    check_parser(parser)?;
    Ok(crate::ts_parser::tokens(text)
        .into_iter()
        .map(|t| vec![Value::Int4(t.kind.id()), Value::Text(t.text)])
        .collect())
}

/// `ts_debug([config,] text)`: each token with its kind, the
/// dictionaries the configuration maps the kind to, the one that took it
/// and its lexemes (`{}` for a stop word; NULLs for a kind not indexed).
pub(crate) fn debug_rows(config: Option<&str>, text: &str) -> Result<Vec<Vec<Value>>, SqlError> {
    let config = Config::named(config)?;
    Ok(crate::ts_parser::tokens(text)
        .into_iter()
        .map(|t| {
            let (dictionaries, dictionary, lexemes) = match config.dictionary(t.kind) {
                Some(d) => (
                    vec![Value::Text(d.name().into())],
                    Value::Text(d.name().into()),
                    Value::array(d.lexize(&t.text).into_iter().map(Value::Text).collect()),
                ),
                None => (Vec::new(), Value::Null, Value::Null),
            };
            vec![
                Value::Text(t.kind.alias().into()),
                Value::Text(t.kind.description().into()),
                Value::Text(t.text),
                Value::array(dictionaries),
                dictionary,
                lexemes,
            ]
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    // Proves ts_debug gives a stop word `{}`, a blank NULLs and a host the
    // simple dictionary, as PostgreSQL 15's english configuration.
    #[test]
    fn debug_as_postgresql() {
        let rows = debug_rows(Some("english"), "The x.com").unwrap();
        assert_eq!(rows.len(), 3);
        assert_eq!(rows[0][4], Value::Text("english_stem".into()));
        assert_eq!(rows[0][5], Value::array(Vec::new()));
        assert_eq!(rows[1][4], Value::Null);
        assert_eq!(rows[2][0], Value::Text("host".into()));
        assert_eq!(rows[2][5], Value::array(vec![Value::Text("x.com".into())]));
        assert_eq!(
            check_parser(&Value::Text("nope".into())).unwrap_err().code,
            "42704"
        );
        assert_eq!(check_parser(&Value::Int4(1)).unwrap_err().code, "XX000");
        assert_eq!(token_type_rows(&Value::Int4(3722)).unwrap().len(), 23);
    }
}
