//! POSIX regular-expression matching: `text ~ pattern` and its `~*`,
//! `!~`, `!~*` forms, true when the pattern matches anywhere in the text
//! (PostgreSQL's semantics; anchor with `^` and `$`).
//!
//! Patterns are compiled by the `regex` crate. PostgreSQL's advanced
//! regular expressions read the same for what psql and everyday queries
//! write (classes, bracket expressions, `|`, groups, quantifiers,
//! `^`/`$`); back-references and look-around, which the crate does not
//! have, are 2201B, as is any pattern it cannot compile. Compiled
//! patterns are kept per thread (a filter over a table compiles its
//! pattern once, not per row).

use crate::error::SqlError;
use regex::{Regex, RegexBuilder};
use std::cell::RefCell;
use std::collections::HashMap;

/// Most compiled patterns a thread keeps.
const KEPT: usize = 64;

thread_local! {
    static COMPILED: RefCell<HashMap<(String, bool), Regex>> = RefCell::new(HashMap::new());
}

/// Whether `pattern` matches somewhere in `text` (case-insensitively if
/// `insensitive`), or 2201B for a pattern that is not valid.
pub fn matches(text: &str, pattern: &str, insensitive: bool) -> Result<bool, SqlError> {
    COMPILED.with(|kept| {
        let mut kept = kept.borrow_mut();
        let key = (pattern.to_string(), insensitive);
        if !kept.contains_key(&key) {
            let compiled = RegexBuilder::new(pattern)
                .case_insensitive(insensitive)
                .build()
                .map_err(|e| {
                    SqlError::new(
                        "2201B",
                        format!(
                            "invalid regular expression: {}",
                            e.to_string().lines().last().unwrap_or("")
                        ),
                    )
                })?;
            if kept.len() >= KEPT {
                kept.clear();
            }
            kept.insert(key.clone(), compiled);
        }
        Ok(kept[&key].is_match(text))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_anywhere_unless_anchored() {
        assert!(matches("pg_toast", "^pg_toast", false).unwrap());
        assert!(!matches("public", "^pg_toast", false).unwrap());
        assert!(matches("abc", "b", false).unwrap());
        assert!(matches("t", "^(t)$", false).unwrap());
        assert!(!matches("tt", "^(t)$", false).unwrap());
        assert!(matches("ABC", "^abc$", true).unwrap());
        assert!(!matches("ABC", "^abc$", false).unwrap());
    }

    #[test]
    fn an_invalid_pattern_is_2201b() {
        let e = matches("a", "(", false).unwrap_err();
        assert_eq!(e.code, "2201B");
        let e = matches("aa", r"(a)\1", false).unwrap_err();
        assert_eq!(e.code, "2201B");
    }
}
