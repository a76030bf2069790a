//! POSIX regular-expression matching: `text ~ pattern` and its `~*`,
//! `!~`, `!~*` forms, true when the pattern matches anywhere in the text
//! (PostgreSQL's semantics; anchor with `^` and `$`).
//!
//! Patterns are compiled by the `regex` crate. PostgreSQL's advanced
//! regular expressions read the same for what psql and everyday queries
//! write (classes, bracket expressions, `|`, groups, quantifiers,
//! `^`/`$`). A pattern with back-references (`(.)\1`) or look-around
//! (`(?=...)`, `(?!...)`, `(?<=...)`, `(?<!...)`), which the crate does
//! not have, is compiled by `fancy-regex` instead (a backtracking
//! matcher over the same syntax), only such a pattern: the crate's
//! matching is linear in the text, a backtracking one need not be.
//! A pattern neither compiles is 2201B. Compiled
//! patterns are kept per thread (a filter over a table compiles its
//! pattern once, not per row). [`Pattern`] is the one type the regular
//! expression functions match with.

use crate::error::SqlError;
use regex::{Regex, RegexBuilder};
use std::cell::RefCell;
use std::collections::HashMap;

/// A compiled pattern: the `regex` crate's, or `fancy-regex`'s for one
/// with back-references.
#[derive(Debug, Clone)]
pub enum Pattern {
    Linear(Regex),
    Backtracking(fancy_regex::Regex),
}

/// A match's byte ranges: the whole match's first, then each group's
/// (`None`: the group took no part).
pub type Groups = Vec<Option<(usize, usize)>>;

impl Pattern {
    /// Whether the pattern matches somewhere in `text`.
    pub fn is_match(&self, text: &str) -> Result<bool, SqlError> {
        match self {
            Pattern::Linear(regex) => Ok(regex.is_match(text)),
            Pattern::Backtracking(regex) => regex.is_match(text).map_err(failed),
        }
    }

    /// The first match starting at byte `at` or later, with its groups.
    pub fn captures_at(&self, text: &str, at: usize) -> Result<Option<Groups>, SqlError> {
        Ok(match self {
            Pattern::Linear(regex) => regex.captures_at(text, at).map(|c| {
                (0..c.len())
                    .map(|g| c.get(g).map(|m| (m.start(), m.end())))
                    .collect()
            }),
            Pattern::Backtracking(regex) => {
                regex.captures_from_pos(text, at).map_err(failed)?.map(|c| {
                    (0..c.len())
                        .map(|g| c.get(g).map(|m| (m.start(), m.end())))
                        .collect()
                })
            }
        })
    }
}

/// Whether the `regex` crate refused a pattern for what only a
/// backtracking matcher has: back-references, look-ahead, look-behind.
fn needs_backtracking(refusal: &str) -> bool {
    refusal.contains("backreferences are not supported") || refusal.contains("look-around")
}

/// A backtracking match that gave up (its step limit): 2201B.
fn failed(e: fancy_regex::Error) -> SqlError {
    SqlError::new("2201B", format!("invalid regular expression: {e}"))
}

/// Most compiled patterns a thread keeps.
const KEPT: usize = 64;

thread_local! {
    static COMPILED: RefCell<HashMap<(String, Flags), Pattern>> = RefCell::new(HashMap::new());
}

/// How a pattern is read: PostgreSQL's flag letters (the `flags`
/// argument of the `regexp_*` functions), parsed by [`Flags::parse`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Flags {
    /// `i` (`c` turns it off again; the last one wins).
    pub insensitive: bool,
    /// `g`: every match, not the first (only where a function takes it).
    pub global: bool,
    /// `n` / `m`: newline-sensitive (`.` does not match a newline, `^`
    /// and `$` match at lines); `p`: only the first; `w`: only the
    /// second. PostgreSQL's default, `s`, is neither.
    pub dot_stops_at_newline: bool,
    pub anchors_at_lines: bool,
    /// `x`: white space and `#` comments in the pattern are ignored.
    pub expanded: bool,
    /// `q`: the pattern is a literal string.
    pub literal: bool,
}

impl Flags {
    /// PostgreSQL's flags from their letters: 22023 for a letter that is
    /// none, 0A000 for the basic and extended POSIX syntaxes (`b`, `e`),
    /// which folio does not read.
    pub fn parse(letters: &str) -> Result<Flags, SqlError> {
        let mut flags = Flags::default();
        for c in letters.chars() {
            match c {
                'i' => flags.insensitive = true,
                'c' => flags.insensitive = false,
                'g' => flags.global = true,
                'n' | 'm' => (flags.dot_stops_at_newline, flags.anchors_at_lines) = (true, true),
                'p' => (flags.dot_stops_at_newline, flags.anchors_at_lines) = (true, false),
                'w' => (flags.dot_stops_at_newline, flags.anchors_at_lines) = (false, true),
                's' => (flags.dot_stops_at_newline, flags.anchors_at_lines) = (false, false),
                'x' => flags.expanded = true,
                't' => flags.expanded = false,
                'q' => flags.literal = true,
                'b' | 'e' => {
                    return Err(SqlError::unsupported(format!(
                        "the regular expression option \"{c}\" (basic or extended POSIX syntax)"
                    )));
                }
                other => {
                    return Err(SqlError::new(
                        "22023",
                        format!("invalid regular expression option: \"{other}\""),
                    ));
                }
            }
        }
        Ok(flags)
    }

    /// Case-insensitive or not, the rest PostgreSQL's defaults.
    pub fn case(insensitive: bool) -> Flags {
        Flags {
            insensitive,
            ..Flags::default()
        }
    }
}

/// `pattern` compiled as `flags` say (kept per thread), or 2201B for a
/// pattern that is not valid. The one owner of how a PostgreSQL pattern
/// becomes a `regex`: a `.` matches a newline unless newline-sensitive,
/// as PostgreSQL's (the crate's default is the other way).
pub fn compiled(pattern: &str, flags: Flags) -> Result<Pattern, SqlError> {
    COMPILED.with(|kept| {
        let mut kept = kept.borrow_mut();
        let key = (
            pattern.to_string(),
            Flags {
                global: false,
                ..flags
            },
        );
        if let Some(regex) = kept.get(&key) {
            return Ok(regex.clone());
        }
        let escaped;
        let source = if flags.literal {
            escaped = regex::escape(pattern);
            &escaped
        } else {
            pattern
        };
        let linear = RegexBuilder::new(source)
            .case_insensitive(flags.insensitive)
            .dot_matches_new_line(!flags.dot_stops_at_newline)
            .multi_line(flags.anchors_at_lines)
            .ignore_whitespace(flags.expanded)
            .build();
        let compiled = match linear {
            Ok(regex) => Pattern::Linear(regex),
            Err(e) if needs_backtracking(&e.to_string()) => {
                // The same flags, written inline.
                let inline = [
                    (flags.insensitive, "i"),
                    (!flags.dot_stops_at_newline, "s"),
                    (flags.anchors_at_lines, "m"),
                    (flags.expanded, "x"),
                ]
                .iter()
                .filter(|(on, _)| *on)
                .map(|(_, letter)| *letter)
                .collect::<String>();
                let written = match inline.is_empty() {
                    true => source.to_string(),
                    false => format!("(?{inline}){source}"),
                };
                Pattern::Backtracking(fancy_regex::Regex::new(&written).map_err(|e| {
                    SqlError::new("2201B", format!("invalid regular expression: {e}"))
                })?)
            }
            Err(e) => {
                return Err(SqlError::new(
                    "2201B",
                    format!(
                        "invalid regular expression: {}",
                        e.to_string().lines().last().unwrap_or("")
                    ),
                ));
            }
        };
        if kept.len() >= KEPT {
            kept.clear();
        }
        kept.insert(key, compiled.clone());
        Ok(compiled)
    })
}

/// Whether `pattern` matches somewhere in `text` (case-insensitively if
/// `insensitive`), or 2201B for a pattern that is not valid.
pub fn matches(text: &str, pattern: &str, insensitive: bool) -> Result<bool, SqlError> {
    compiled(pattern, Flags::case(insensitive))?.is_match(text)
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
        // A dot matches a newline, and `^` / `$` only the text's ends, as
        // PostgreSQL's default.
        assert!(matches("a\nb", "a.b", false).unwrap());
        assert!(!matches("a\nb", "^b", false).unwrap());
    }

    #[test]
    fn flags_read_as_postgresql_reads_them() {
        let f = Flags::parse("gic").unwrap();
        assert!(f.global && !f.insensitive);
        assert!(Flags::parse("n").unwrap().anchors_at_lines);
        assert_eq!(Flags::parse("z").unwrap_err().code, "22023");
        assert_eq!(Flags::parse("b").unwrap_err().code, "0A000");
        let newline = Flags::parse("n").unwrap();
        assert!(!compiled("a.b", newline).unwrap().is_match("a\nb").unwrap());
        assert!(compiled("^b", newline).unwrap().is_match("a\nb").unwrap());
        let literal = Flags::parse("q").unwrap();
        assert!(compiled("a.b", literal).unwrap().is_match("xa.b").unwrap());
        assert!(!compiled("a.b", literal).unwrap().is_match("axb").unwrap());
    }

    #[test]
    fn an_invalid_pattern_is_2201b() {
        let e = matches("a", "(", false).unwrap_err();
        assert_eq!(e.code, "2201B");
        assert!(matches("ab", r"a(?=b)", false).unwrap());
        assert!(!matches("ac", r"a(?=b)", false).unwrap());
    }

    // Proves a back-reference matches the text its group matched, with
    // the flags of the linear patterns.
    #[test]
    fn back_references_match_their_group() {
        assert!(matches("xaay", r"(a)\1", false).unwrap());
        assert!(!matches("xaby", r"(.)\1", false).unwrap());
        assert!(matches("aA", r"(a)\1", true).unwrap());
        assert!(!matches("aA", r"(a)\1", false).unwrap());
        let p = compiled(r"(.)\1", Flags::default()).unwrap();
        assert!(matches!(p, Pattern::Backtracking(_)));
        let groups = p.captures_at("foobarrbazz", 0).unwrap().unwrap();
        assert_eq!(groups, vec![Some((1, 3)), Some((1, 2))]);
    }
}
