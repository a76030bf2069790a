//! Text search configurations: which dictionary each token kind goes to
//! (PostgreSQL's `pg_ts_config_map`), and the configuration a name or the
//! session's `default_text_search_config` names.
//!
//! Two are built: `simple` (every indexed token to the `simple`
//! dictionary) and `english` (words of letters to `english_stem`, other
//! indexed tokens to `simple`), PostgreSQL's default. PostgreSQL's other languages'
//! configurations are 0A000: they need their stemmers' stop lists.

use crate::error::SqlError;
use crate::ts_dictionaries::Dictionary;
use crate::ts_parser::TokenKind;

/// A configuration.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Config {
    Simple,
    English,
}

/// PostgreSQL's configurations that folio does not build.
const OTHER_LANGUAGES: &[&str] = &[
    "danish",
    "dutch",
    "finnish",
    "french",
    "german",
    "hungarian",
    "italian",
    "norwegian",
    "portuguese",
    "romanian",
    "russian",
    "spanish",
    "swedish",
    "turkish",
    "arabic",
    "greek",
    "indonesian",
    "irish",
    "lithuanian",
    "nepali",
    "tamil",
    "yiddish",
    "armenian",
    "basque",
    "catalan",
    "hindi",
    "serbian",
];

impl Config {
    /// The configuration `name` names (none: the session's).
    pub(crate) fn named(name: Option<&str>) -> Result<Config, SqlError> {
        let name = name
            .map(str::to_string)
            .unwrap_or_else(crate::setting_functions::text_search_config);
        match plain_name(&name).as_str() {
            "simple" => Ok(Config::Simple),
            "english" => Ok(Config::English),
            other if OTHER_LANGUAGES.contains(&other) => Err(SqlError::unsupported(format!(
                "text search configuration \"{other}\""
            ))),
            _ => Err(SqlError::new(
                "42704",
                format!("text search configuration \"{name}\" does not exist"),
            )),
        }
    }

    /// The dictionary a token of `kind` goes to (PostgreSQL's `\dF+`):
    /// none for blanks, tags, protocol heads and entities, which are not
    /// indexed; in `english` words of letters to `english_stem`, the rest
    /// (numbers, words with digits, hosts, e-mails, URLs, files) to
    /// `simple`.
    pub(crate) fn dictionary(self, kind: TokenKind) -> Option<Dictionary> {
        if kind.is_unindexed() {
            return None;
        }
        Some(match self {
            Config::English if kind.is_letters() => Dictionary::EnglishStem,
            _ => Dictionary::Simple,
        })
    }
}

/// A configuration's name as written, folded and without the
/// `pg_catalog.` schema every built-in configuration lives in.
fn plain_name(name: &str) -> String {
    let folded = name.trim().to_ascii_lowercase();
    match folded.strip_prefix("pg_catalog.") {
        Some(plain) => plain.to_string(),
        None => folded,
    }
}

/// A `SET default_text_search_config` value: a configuration's name,
/// schema-qualified as PostgreSQL shows it (22023 for no configuration's).
pub fn config_setting(value: &str) -> Result<String, SqlError> {
    let plain = plain_name(value);
    match Config::named(Some(&plain)) {
        Err(e) if e.code == "42704" => Err(SqlError::new(
            "22023",
            format!("invalid value for parameter \"default_text_search_config\": \"{value}\""),
        )),
        _ => Ok(format!("pg_catalog.{plain}")),
    }
}
