//! The regular-expression functions of PostgreSQL 15: `regexp_replace`
//! (with its `start` and `N` forms), `regexp_match`,
//! `regexp_split_to_array`, `regexp_count`, `regexp_like`,
//! `regexp_substr`, `regexp_instr`, and the rows of `regexp_matches` and
//! `regexp_split_to_table` ([`all_matches`], [`split`]); with
//! `similar_to_escape` and `like_escape`, the rewrites PostgreSQL binds
//! `SIMILAR TO` and `LIKE ... ESCAPE` through.
//!
//! `substring(text FROM pattern)` is [`substring`].
//!
//! Patterns compile through `regex_match::compiled` (PostgreSQL's flag
//! letters, `Flags`). Matches are found as PostgreSQL's search finds them
//! ([`matches_in`]): each search starts where the last match ended, one
//! character further after an empty match, so `regexp_replace('aaa',
//! 'a*', '-', 'g')` is `--`. Positions (`start`, the result of
//! `regexp_instr`) count characters from 1.

use crate::error::SqlError;
use crate::regex_match::{Flags, Pattern, compiled};
use folio_row::{SqlType, Value};

/// A regular-expression function called by name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RegexFunc {
    Replace,
    Match,
    SplitToArray,
    Count,
    Like,
    Substr,
    Instr,
    SimilarToEscape,
    LikeEscape,
}

const NAMES: [(&str, RegexFunc); 9] = [
    ("regexp_replace", RegexFunc::Replace),
    ("regexp_match", RegexFunc::Match),
    ("regexp_split_to_array", RegexFunc::SplitToArray),
    ("regexp_count", RegexFunc::Count),
    ("regexp_like", RegexFunc::Like),
    ("regexp_substr", RegexFunc::Substr),
    ("regexp_instr", RegexFunc::Instr),
    ("similar_to_escape", RegexFunc::SimilarToEscape),
    ("like_escape", RegexFunc::LikeEscape),
];

/// One match: the whole match's byte range, and each group's (`None`:
/// the group took no part).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hit {
    pub start: usize,
    pub end: usize,
    pub groups: Vec<Option<(usize, usize)>>,
}

impl RegexFunc {
    pub fn of(name: &str) -> Option<RegexFunc> {
        crate::names::lookup(&NAMES, name)
    }

    pub fn name(self) -> Option<&'static str> {
        crate::names::name_in(&NAMES, &self)
    }

    /// Whether `count` arguments are accepted.
    pub fn takes(self, count: usize) -> bool {
        match self {
            RegexFunc::Replace => (3..=6).contains(&count),
            RegexFunc::Match | RegexFunc::SplitToArray | RegexFunc::Like => {
                (2..=3).contains(&count)
            }
            RegexFunc::Count => (2..=4).contains(&count),
            RegexFunc::Substr => (2..=6).contains(&count),
            RegexFunc::Instr => (2..=7).contains(&count),
            RegexFunc::SimilarToEscape => (1..=2).contains(&count),
            RegexFunc::LikeEscape => count == 2,
        }
    }

    /// Its result type.
    pub fn ty(self) -> SqlType {
        match self {
            RegexFunc::Match | RegexFunc::SplitToArray => SqlType::Array(&SqlType::Text),
            RegexFunc::Count | RegexFunc::Instr => SqlType::Int4,
            RegexFunc::Like => SqlType::Bool,
            _ => SqlType::Text,
        }
    }

    /// Its value (no argument NULL: these are strict).
    pub fn eval(self, args: &[Value]) -> Result<Value, SqlError> {
        let text = |i: usize| -> String { args[i].to_text().unwrap_or_default() };
        let int = |i: usize, name: &str, least: i64| -> Result<Option<i64>, SqlError> {
            args.get(i).map(|v| at_least(v, name, least)).transpose()
        };
        let flags = |i: usize| -> Result<Flags, SqlError> {
            args.get(i).map_or(Ok(Flags::default()), |f| {
                Flags::parse(&f.to_text().unwrap_or_default())
            })
        };
        let (source, pattern) = (
            text(0),
            args.get(1).map(|v| v.to_text().unwrap_or_default()),
        );
        let pattern = pattern.unwrap_or_default();
        Ok(match self {
            RegexFunc::Replace => {
                // `regexp_replace(s, p, r, flags)` or `(s, p, r, start [, n
                // [, flags]])`: the fourth argument's type tells them apart.
                let (start, n, flags) = match args.get(3) {
                    None => (1, None, Flags::default()),
                    Some(Value::Text(f)) if args.len() == 4 => (1, None, Flags::parse(f)?),
                    Some(_) => (int(3, "start", 1)?.unwrap_or(1), int(4, "n", 0)?, flags(5)?),
                };
                let every = n == Some(0) || (n.is_none() && flags.global);
                let regex = compiled(&pattern, flags)?;
                let from = char_offset(&source, start);
                let hits = matches_in(&regex, &source, from, !every && n.is_none())?;
                let chosen: Vec<&Hit> = match (every, n) {
                    (true, _) => hits.iter().collect(),
                    (false, Some(n)) => hits.iter().skip(n as usize - 1).take(1).collect(),
                    (false, None) => hits.iter().take(1).collect(),
                };
                Value::Text(replace(&source, &chosen, &text(2)))
            }
            RegexFunc::Match => {
                let flags = not_global(flags(2)?, "regexp_match()")?;
                let regex = compiled(&pattern, flags)?;
                match matches_in(&regex, &source, 0, true)?.first() {
                    Some(hit) => Value::array(match_array(&source, hit)),
                    None => Value::Null,
                }
            }
            RegexFunc::SplitToArray => {
                let flags = not_global(flags(2)?, "regexp_split_to_array()")?;
                let pieces = split(&source, &compiled(&pattern, flags)?)?;
                Value::Array(pieces.into_iter().map(Value::Text).collect())
            }
            RegexFunc::Count => {
                let start = int(2, "start", 1)?.unwrap_or(1);
                let flags = not_global(flags(3)?, "regexp_count()")?;
                let regex = compiled(&pattern, flags)?;
                let from = char_offset(&source, start);
                Value::Int4(matches_in(&regex, &source, from, false)?.len() as i32)
            }
            RegexFunc::Like => {
                let flags = not_global(flags(2)?, "regexp_like()")?;
                Value::Bool(compiled(&pattern, flags)?.is_match(&source)?)
            }
            RegexFunc::Substr | RegexFunc::Instr => {
                let instr = self == RegexFunc::Instr;
                let start = int(2, "start", 1)?.unwrap_or(1);
                let n = int(3, "n", 1)?.unwrap_or(1) as usize;
                let end_option = match instr {
                    true => int(4, "endoption", 0)?.unwrap_or(0),
                    false => 0,
                };
                if end_option > 1 {
                    return Err(invalid("endoption", end_option));
                }
                let rest = if instr { 5 } else { 4 };
                let name = if instr {
                    "regexp_instr()"
                } else {
                    "regexp_substr()"
                };
                let flags = not_global(flags(rest)?, name)?;
                let group = int(rest + 1, "subexpr", 0)?.unwrap_or(0) as usize;
                let regex = compiled(&pattern, flags)?;
                let from = char_offset(&source, start);
                let hits = matches_in(&regex, &source, from, false)?;
                let range = hits.get(n - 1).and_then(|hit| match group {
                    0 => Some((hit.start, hit.end)),
                    g => hit.groups.get(g - 1).copied().flatten(),
                });
                match (range, instr) {
                    (None, true) => Value::Int4(0),
                    (None, false) => Value::Null,
                    (Some((s, e)), true) => {
                        let at = if end_option == 1 { e } else { s };
                        Value::Int4(source[..at].chars().count() as i32 + 1)
                    }
                    (Some((s, e)), false) => Value::Text(source[s..e].to_string()),
                }
            }
            RegexFunc::SimilarToEscape => {
                let escape = match args.get(1) {
                    Some(e) => escape_char(&e.to_text().unwrap_or_default())?,
                    None => Some('\\'),
                };
                Value::Text(similar_to_regex(&source, escape)?)
            }
            RegexFunc::LikeEscape => Value::Text(like_pattern(&source, escape_char(&pattern)?)?),
        })
    }
}

/// `substring(text FROM pattern)`: the part of `text` the first match
/// of `pattern` covers, or its first group's if it has groups; NULL
/// without a match.
pub fn substring(text: &str, pattern: &str) -> Result<Value, SqlError> {
    let regex = compiled(pattern, Flags::default())?;
    first_group_or_match(&regex, text)
}

/// The part of `text` the first match of `regex` covers, or its first
/// group's if it has groups; NULL without a match (or an unmatched group).
fn first_group_or_match(regex: &Pattern, text: &str) -> Result<Value, SqlError> {
    let Some(hit) = matches_in(regex, text, 0, true)?.pop() else {
        return Ok(Value::Null);
    };
    let range = match hit.groups.first() {
        None => Some((hit.start, hit.end)),
        Some(group) => *group,
    };
    Ok(range.map_or(Value::Null, |(s, e)| Value::Text(text[s..e].to_string())))
}

/// An integer argument `name` of at least `least`, else PostgreSQL's
/// 22023.
fn at_least(v: &Value, name: &str, least: i64) -> Result<i64, SqlError> {
    let x = crate::functions::int_arg(v)?;
    if x < least {
        return Err(invalid(name, x));
    }
    Ok(x)
}

fn invalid(name: &str, x: i64) -> SqlError {
    SqlError::new(
        "22023",
        format!("invalid value for parameter \"{name}\": {x}"),
    )
}

/// `flags` unless they ask for every match, which the function `name`
/// does not do (PostgreSQL's 22023 and hint).
fn not_global(flags: Flags, name: &str) -> Result<Flags, SqlError> {
    if !flags.global {
        return Ok(flags);
    }
    let error = SqlError::new(
        "22023",
        format!("{name} does not support the \"global\" option"),
    );
    Err(match name {
        "regexp_match()" => error.with_hint("Use the regexp_matches function instead."),
        _ => error,
    })
}

/// The byte offset of character `start` (from 1) of `text`; its length
/// past the end.
fn char_offset(text: &str, start: i64) -> usize {
    text.char_indices()
        .nth((start - 1) as usize)
        .map_or(text.len(), |(at, _)| at)
}

/// The matches of `regex` in `text` from byte `from` on, as PostgreSQL's
/// search finds them (the first only if `first`).
pub fn matches_in(
    regex: &Pattern,
    text: &str,
    from: usize,
    first: bool,
) -> Result<Vec<Hit>, SqlError> {
    let mut hits = Vec::new();
    let mut at = from;
    while at <= text.len() {
        let Some(mut groups) = regex.captures_at(text, at)? else {
            break;
        };
        let (start, end) = groups.remove(0).expect("group 0 is the match");
        hits.push(Hit { start, end, groups });
        if first {
            break;
        }
        at = match start == end {
            true => end + text[end..].chars().next().map_or(1, char::len_utf8),
            false => end,
        };
    }
    Ok(hits)
}

/// A match as `regexp_match` and `regexp_matches` give it: its groups'
/// texts (NULL for a group that took no part), or the whole match if the
/// pattern has no groups.
pub fn match_array(text: &str, hit: &Hit) -> Vec<Value> {
    if hit.groups.is_empty() {
        return vec![Value::Text(text[hit.start..hit.end].to_string())];
    }
    hit.groups
        .iter()
        .map(|g| g.map_or(Value::Null, |(s, e)| Value::Text(text[s..e].to_string())))
        .collect()
}

/// Every match of `regex` in `text` (`regexp_matches` with `g`), or the
/// first.
pub fn all_matches(text: &str, pattern: &str, flags: &str) -> Result<Vec<Value>, SqlError> {
    let flags = Flags::parse(flags)?;
    let regex = compiled(pattern, flags)?;
    Ok(matches_in(&regex, text, 0, !flags.global)?
        .iter()
        .map(|hit| Value::array(match_array(text, hit)))
        .collect())
}

/// `text` split at the matches of `regex`, as PostgreSQL splits: an
/// empty match at the start or the end of the text, or right where the
/// last match ended, splits nothing.
pub fn split(text: &str, regex: &Pattern) -> Result<Vec<String>, SqlError> {
    let mut pieces = Vec::new();
    let mut piece_start = 0;
    for hit in matches_in(regex, text, 0, false)? {
        if hit.start < text.len() && hit.end > piece_start {
            pieces.push(text[piece_start..hit.start].to_string());
            piece_start = hit.end;
        }
    }
    pieces.push(text[piece_start..].to_string());
    Ok(pieces)
}

/// `regexp_split_to_table`'s rows.
pub fn split_rows(text: &str, pattern: &str, flags: &str) -> Result<Vec<Value>, SqlError> {
    let flags = not_global(Flags::parse(flags)?, "regexp_split_to_table()")?;
    Ok(split(text, &compiled(pattern, flags)?)?
        .into_iter()
        .map(Value::Text)
        .collect())
}

/// `source` with the `chosen` matches replaced by `replacement`, in
/// which `\1` to `\9` stand for a group's text, `\&` for the whole
/// match and `\\` for a backslash; any other backslash is itself.
fn replace(source: &str, chosen: &[&Hit], replacement: &str) -> String {
    let mut out = String::with_capacity(source.len());
    let mut copied = 0;
    for hit in chosen {
        out.push_str(&source[copied..hit.start]);
        let mut chars = replacement.chars().peekable();
        while let Some(c) = chars.next() {
            match (c, chars.peek()) {
                ('\\', Some(&d @ '1'..='9')) => {
                    chars.next();
                    let g = d as usize - '0' as usize;
                    if let Some(Some((s, e))) = hit.groups.get(g - 1) {
                        out.push_str(&source[*s..*e]);
                    }
                }
                ('\\', Some('&')) => {
                    chars.next();
                    out.push_str(&source[hit.start..hit.end]);
                }
                ('\\', Some('\\')) => {
                    chars.next();
                    out.push('\\');
                }
                (c, _) => out.push(c),
            }
        }
        copied = hit.end;
    }
    out.push_str(&source[copied..]);
    out
}

/// An ESCAPE string's character (`None`: the empty string, no escape),
/// or PostgreSQL's 22025.
fn escape_char(escape: &str) -> Result<Option<char>, SqlError> {
    let mut chars = escape.chars();
    match (chars.next(), chars.next()) {
        (None, _) => Ok(None),
        (Some(c), None) => Ok(Some(c)),
        _ => Err(SqlError::new("22025", "invalid escape string")
            .with_hint("Escape string must be empty or one character.")),
    }
}

/// A LIKE pattern written with `escape` as one written with a backslash
/// (`like_escape`): what LIKE matching reads.
fn like_pattern(pattern: &str, escape: Option<char>) -> Result<String, SqlError> {
    let mut out = String::with_capacity(pattern.len());
    let mut chars = pattern.chars();
    while let Some(c) = chars.next() {
        if Some(c) == escape {
            let Some(next) = chars.next() else {
                return Err(SqlError::new(
                    "22025",
                    "LIKE pattern must not end with escape character",
                ));
            };
            out.push('\\');
            out.push(next);
        } else if c == '\\' {
            out.push_str("\\\\");
        } else {
            out.push(c);
        }
    }
    Ok(out)
}

/// A SIMILAR TO pattern as the regular expression matching the same
/// whole texts (`similar_to_escape`): `%` is `.*`, `_` is `.`, `|`, `*`,
/// `+`, `?`, `{m,n}`, bracket expressions are the regular expression's,
/// a group `(...)` does not capture, every other character is itself,
/// and `escape` makes the next character itself. `escape"` (at most two)
/// cut the pattern in three parts, PostgreSQL's bounds of what
/// `substring(text SIMILAR pattern ESCAPE escape)` returns: the middle
/// part is the regular expression's one capturing group, the first part
/// matches as little as it can and the middle as much as it can (the
/// first and last parts' quantifiers lazy, as PostgreSQL's `{1,1}?`
/// makes them). One separator leaves the last part empty.
fn similar_to_regex(pattern: &str, escape: Option<char>) -> Result<String, SqlError> {
    let mut parts = vec![String::new()];
    let mut chars = pattern.chars();
    let mut in_brackets = false;
    while let Some(c) = chars.next() {
        let out = parts.last_mut().expect("one part at least");
        if Some(c) == escape {
            let Some(next) = chars.next() else {
                return Err(SqlError::new(
                    "2201B",
                    "invalid regular expression: invalid escape \\ sequence",
                ));
            };
            if next == '"' && !in_brackets {
                if parts.len() == 3 {
                    return Err(SqlError::new(
                        "2200C",
                        "SQL regular expression may not contain more than two escape-double-quote separators",
                    ));
                }
                parts.push(String::new());
                continue;
            }
            out.push_str(&regex::escape(&next.to_string()));
        } else if in_brackets {
            if c == ']' {
                in_brackets = false;
            }
            if c == '\\' {
                out.push('\\');
            }
            out.push(c);
        } else {
            match c {
                '%' => out.push_str(".*"),
                '_' => out.push('.'),
                '[' => {
                    in_brackets = true;
                    out.push('[');
                    // A leading `^` or `]` belongs to the expression.
                    let mut rest = chars.clone();
                    if let Some(first @ ('^' | ']')) = rest.next() {
                        out.push(first);
                        chars = rest;
                    }
                }
                '(' => out.push_str("(?:"),
                '|' | '*' | '+' | '?' | '{' | '}' | ')' | ',' => out.push(c),
                c if c.is_ascii_digit() => out.push(c),
                c => out.push_str(&regex::escape(&c.to_string())),
            }
        }
    }
    Ok(match parts.as_slice() {
        [whole] => format!("^(?:{whole})$"),
        [first, middle] => format!("^(?U:{first})({middle})$"),
        [first, middle, last] => format!("^(?U:{first})({middle})(?U:{last})$"),
        _ => unreachable!("at most three parts"),
    })
}

/// `substring(text SIMILAR pattern ESCAPE escape)` (also written
/// `substring(text FROM pattern FOR escape)`): the part of `text` the
/// pattern's middle part matches when the whole pattern matches the
/// whole text (see [`similar_to_regex`]), the whole text's match
/// without separators; NULL without a match.
pub fn similar_substring(text: &str, pattern: &str, escape: &str) -> Result<Value, SqlError> {
    let regex = compiled(
        &similar_to_regex(pattern, escape_char(escape)?)?,
        Flags::default(),
    )?;
    first_group_or_match(&regex, text)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(f: RegexFunc, args: &[Value]) -> Value {
        f.eval(args).unwrap()
    }

    fn t(s: &str) -> Value {
        Value::Text(s.into())
    }

    #[test]
    fn replace_finds_matches_as_postgresql_does() {
        let r = |args: &[Value]| call(RegexFunc::Replace, args);
        assert_eq!(r(&[t("aaa"), t("a*"), t("-"), t("g")]), t("--"));
        assert_eq!(r(&[t("abc"), t("x*"), t("-"), t("g")]), t("-a-b-c-"));
        assert_eq!(
            r(&[t("abc"), t("(b)(c)"), t(r"[\2\1\&\\]")]),
            t(r"a[cbbc\]")
        );
        assert_eq!(r(&[t("abc"), t("b"), t(r"\x\0\1")]), t(r"a\x\0c"));
        assert_eq!(
            r(&[t("abcabc"), t("b"), t("X"), Value::Int4(2)]),
            t("aXcabc")
        );
        let nth = |n| {
            r(&[
                t("abcabcabc"),
                t("b"),
                t("X"),
                Value::Int4(1),
                Value::Int4(n),
            ])
        };
        assert_eq!(nth(2), t("abcaXcabc"));
        assert_eq!(nth(0), t("aXcaXcaXc"));
    }

    #[test]
    fn split_ignores_empty_matches_at_the_ends_and_after_a_match() {
        let s = |text: &str, pattern: &str| {
            split(text, &compiled(pattern, Flags::default()).unwrap()).unwrap()
        };
        assert_eq!(s("hello", ""), ["h", "e", "l", "l", "o"]);
        assert_eq!(s(",a,", ","), ["", "a", ""]);
        assert_eq!(s("abc", "x*"), ["a", "b", "c"]);
        assert_eq!(s("", ","), [""]);
        assert_eq!(s("a b  c", " "), ["a", "b", "", "c"]);
    }

    #[test]
    fn counts_positions_and_substrings() {
        assert_eq!(call(RegexFunc::Count, &[t("aaa"), t("a*")]), Value::Int4(2));
        assert_eq!(
            call(RegexFunc::Count, &[t("abc"), t(""), Value::Int4(2)]),
            Value::Int4(3)
        );
        let instr = call(
            RegexFunc::Instr,
            &[t("abcabc"), t("b"), Value::Int4(1), Value::Int4(2)],
        );
        assert_eq!(instr, Value::Int4(5));
        let substr = [
            t("abcabc"),
            t("(b)(c)"),
            Value::Int4(1),
            Value::Int4(2),
            t(""),
            Value::Int4(2),
        ];
        assert_eq!(call(RegexFunc::Substr, &substr), t("c"));
        let e = RegexFunc::Match
            .eval(&[t("a"), t("a"), t("g")])
            .unwrap_err();
        assert_eq!(e.code, "22023");
    }

    #[test]
    fn similar_to_becomes_an_anchored_regex() {
        let m = |text: &str, pattern: &str| {
            let re = similar_to_regex(pattern, Some('\\')).unwrap();
            compiled(&re, Flags::default())
                .unwrap()
                .is_match(text)
                .unwrap()
        };
        assert!(m("abc", "a%"));
        assert!(m("abc", "%(b|d)%"));
        assert!(m("a.c", "a.c") && !m("abc", "a.c"));
        assert!(m("abc", "a_c"));
        assert!(m("a^c", "a^c") && m("a$", "a$"));
        assert!(!m("ab", "a|b") && m("a", "a|b"));
        assert!(m("abab", "(ab)*") && m("a*", r"a\*"));
        assert!(m("b", "[^a]") && !m("a", "[^a]"));
        let sub = |pattern: &str| similar_substring("abcdefg", pattern, "#").unwrap();
        let t = |s: &str| Value::Text(s.into());
        assert_eq!(sub(r#"a#"(b_d)#"%"#), t("bcd"));
        assert_eq!(sub(r#"#"(b_d)#"%"#), Value::Null);
        assert_eq!(sub(r#"a#"%#"g"#), t("bcdef"));
        assert_eq!(sub(r#"a*#"%#"g*"#), t("abcdefg"));
        assert_eq!(sub(r#"a|b#"%#"g"#), t("bcdef"));
        assert_eq!(sub(r#"a#"%|ab#"g"#), t("bcdef"));
        assert_eq!(sub(r#"a#"%g"#), t("bcdefg"));
        assert_eq!(sub("a%g"), t("abcdefg"));
        let e = similar_substring("abcdefg", r#"a*#"%#"g*#"x"#, "#").unwrap_err();
        assert_eq!(e.code, "2200C");
        assert_eq!(like_pattern("a#%", Some('#')).unwrap(), r"a\%");
        assert_eq!(like_pattern(r"a\b", None).unwrap(), r"a\\b");
    }
}
