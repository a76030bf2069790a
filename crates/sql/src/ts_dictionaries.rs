//! Text search dictionaries: a token into its lexemes (PostgreSQL's
//! `ts_lexize`). Two are built in, as PostgreSQL's:
//!
//! - `simple`: the token lowercased;
//! - `english_stem`: the token lowercased, nothing for a stop word (the
//!   Snowball project's English stop list, as PostgreSQL ships it in
//!   `english.stop`), else its Snowball English (Porter2) stem.

use crate::error::SqlError;
use rust_stemmers::{Algorithm, Stemmer};
use std::sync::OnceLock;

/// A dictionary.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Dictionary {
    Simple,
    EnglishStem,
}

/// Words longer than this are not stemmed (PostgreSQL's `dict_snowball`
/// leaves them as they are).
const LONGEST_STEMMED: usize = 1000;

/// The English stop words, sorted.
fn english_stop_words() -> &'static [&'static str] {
    static WORDS: OnceLock<Vec<&'static str>> = OnceLock::new();
    WORDS.get_or_init(|| {
        let mut words: Vec<&str> = include_str!("ts_data/english.stop")
            .lines()
            .map(str::trim)
            .filter(|w| !w.is_empty())
            .collect();
        words.sort_unstable();
        words
    })
}

fn english_stemmer() -> &'static Stemmer {
    static STEMMER: OnceLock<Stemmer> = OnceLock::new();
    STEMMER.get_or_init(|| Stemmer::create(Algorithm::English))
}

impl Dictionary {
    /// The dictionary a name names (`pg_catalog.` optional; 42704 for
    /// none).
    pub(crate) fn named(name: &str) -> Result<Dictionary, SqlError> {
        let plain = name.trim().to_ascii_lowercase();
        match plain.strip_prefix("pg_catalog.").unwrap_or(&plain) {
            "simple" => Ok(Dictionary::Simple),
            "english_stem" => Ok(Dictionary::EnglishStem),
            _ => Err(SqlError::new(
                "42704",
                format!("text search dictionary \"{name}\" does not exist"),
            )),
        }
    }

    /// Its name, as `ts_debug` shows it.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Dictionary::Simple => "simple",
            Dictionary::EnglishStem => "english_stem",
        }
    }

    /// The lexemes of `token`: none for a stop word.
    pub(crate) fn lexize(self, token: &str) -> Vec<String> {
        let lower = token.to_lowercase();
        match self {
            Dictionary::Simple => vec![lower],
            Dictionary::EnglishStem => {
                if english_stop_words().binary_search(&lower.as_str()).is_ok() {
                    Vec::new()
                } else if lower.len() > LONGEST_STEMMED {
                    vec![lower]
                } else {
                    vec![english_stemmer().stem(&lower).into_owned()]
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Proves english_stem stems as PostgreSQL 15's `ts_lexize` and drops
    // its stop words; simple only lowercases.
    #[test]
    fn lexize_as_postgresql() {
        let stem = Dictionary::EnglishStem;
        assert_eq!(stem.lexize("skies"), ["sky"]);
        assert_eq!(stem.lexize("identity"), ["ident"]);
        assert_eq!(stem.lexize("Extended"), ["extend"]);
        assert_eq!(stem.lexize("many"), ["mani"]);
        assert!(stem.lexize("The").is_empty());
        assert_eq!(Dictionary::Simple.lexize("The"), ["the"]);
        assert_eq!(english_stop_words().len(), 127);
        assert_eq!(Dictionary::named("nope").unwrap_err().code, "42704");
    }
}
