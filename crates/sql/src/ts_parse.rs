//! Documents and queries into lexemes (PostgreSQL 15's `to_tsvector`,
//! `to_tsquery`, `plainto_tsquery`, `phraseto_tsquery`,
//! `websearch_to_tsquery`) for the `simple` configuration: the default
//! parser's words, numbers and hyphenated words, each lowercased.
//!
//! The parser here keeps to the token kinds PostgreSQL's regression
//! files exercise: a word is a run of letters and digits; a hyphenated
//! word whose first part has a letter is the whole word, then each part
//! (each at its own position); a decimal number (`1.5`) is one token; a
//! `-` before digits that follow a number or a blank signs them. Every
//! token takes the next position (from 1; past 16383 they stay there).
//!
//! Other configurations (`english`, PostgreSQL's default
//! `default_text_search_config`) are 0A000: they need a Snowball stemmer
//! and stopword lists that folio does not have.

use crate::error::SqlError;
use folio_row::{MAX_LEXEME_BYTES, MAX_POS, QueryNode, TsQuery, TsVector, WordPos};

/// The configuration a name names (none: the session's).
fn check_config(config: Option<&str>) -> Result<(), SqlError> {
    let name = config
        .map(str::to_string)
        .unwrap_or_else(crate::setting_functions::text_search_config);
    let plain = name.trim().to_ascii_lowercase();
    let plain = plain.strip_prefix("pg_catalog.").unwrap_or(&plain);
    match plain {
        "simple" => Ok(()),
        "english" | "danish" | "dutch" | "finnish" | "french" | "german" | "hungarian"
        | "italian" | "norwegian" | "portuguese" | "romanian" | "russian" | "spanish"
        | "swedish" | "turkish" | "arabic" | "greek" | "indonesian" | "irish" | "lithuanian"
        | "nepali" | "tamil" | "yiddish" | "armenian" | "basque" | "catalan" | "hindi"
        | "serbian" => Err(SqlError::unsupported(format!(
            "text search configuration \"{plain}\""
        ))),
        _ => Err(SqlError::new(
            "42704",
            format!("text search configuration \"{name}\" does not exist"),
        )),
    }
}

/// A `SET default_text_search_config` value: a configuration's name,
/// schema-qualified as PostgreSQL shows it (22023 for no configuration's).
pub fn config_setting(value: &str) -> Result<String, SqlError> {
    let plain = value.trim().to_ascii_lowercase();
    let plain = plain
        .strip_prefix("pg_catalog.")
        .unwrap_or(&plain)
        .to_string();
    match check_config(Some(&plain)) {
        Err(e) if e.code == "42704" => Err(SqlError::new(
            "22023",
            format!("invalid value for parameter \"default_text_search_config\": \"{value}\""),
        )),
        _ => Ok(format!("pg_catalog.{plain}")),
    }
}

/// The tokens of `text` as the simple configuration makes lexemes.
fn tokens(text: &str) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    let run = |from: usize| {
        let mut j = from;
        while j < chars.len() && chars[j].is_alphanumeric() {
            j += 1;
        }
        j
    };
    while i < chars.len() {
        let c = chars[i];
        // A sign before digits, after a number or a blank.
        if c == '-'
            && chars.get(i + 1).is_some_and(|d| d.is_ascii_digit())
            && (i == 0 || !chars[i - 1].is_alphabetic())
        {
            let end = run(i + 1);
            if chars[i + 1..end].iter().all(|d| d.is_ascii_digit()) {
                out.push(chars[i..end].iter().collect());
                i = end;
                continue;
            }
        }
        if !c.is_alphanumeric() {
            i += 1;
            continue;
        }
        let end = run(i);
        let first: String = chars[i..end].iter().collect();
        // A decimal number.
        if first.chars().all(|d| d.is_ascii_digit())
            && chars.get(end) == Some(&'.')
            && chars.get(end + 1).is_some_and(|d| d.is_ascii_digit())
        {
            let mut j = end + 1;
            while j < chars.len() && chars[j].is_ascii_digit() {
                j += 1;
            }
            out.push(chars[i..j].iter().collect());
            i = j;
            continue;
        }
        // A hyphenated word.
        let mut parts = vec![first.clone()];
        let mut j = end;
        if first.chars().any(char::is_alphabetic) {
            while chars.get(j) == Some(&'-')
                && chars.get(j + 1).is_some_and(|d| d.is_alphanumeric())
            {
                let e = run(j + 1);
                parts.push(chars[j + 1..e].iter().collect());
                j = e;
            }
        }
        if parts.len() > 1 {
            out.push(parts.join("-").to_lowercase());
        }
        out.extend(parts.into_iter().map(|p| p.to_lowercase()));
        i = j;
    }
    out.into_iter().map(|t| t.to_lowercase()).collect()
}

/// `(lexeme, position)` pairs of a document.
fn lexemes(text: &str) -> Vec<(String, u16)> {
    tokens(text)
        .into_iter()
        .enumerate()
        .filter(|(_, t)| t.len() <= MAX_LEXEME_BYTES)
        .map(|(i, t)| (t, (i + 1).min(usize::from(MAX_POS)) as u16))
        .collect()
}

/// `to_tsvector([config,] text)`.
pub fn to_tsvector(config: Option<&str>, text: &str) -> Result<TsVector, SqlError> {
    check_config(config)?;
    Ok(TsVector::from_lexemes(
        lexemes(text)
            .into_iter()
            .map(|(word, pos)| folio_row::Lexeme {
                word,
                positions: vec![WordPos::new(pos, 0)],
            })
            .collect(),
    )?)
}

/// Lexemes in order, each joined to the one before by `<gap>` (a phrase)
/// or `&`; `None` for none.
fn chain(words: &[(String, u16)], phrase: bool, weights: u8, prefix: bool) -> Option<QueryNode> {
    let mut node: Option<QueryNode> = None;
    let mut last = 0u16;
    for (word, pos) in words {
        let leaf = QueryNode::Lexeme {
            word: word.clone(),
            weights,
            prefix,
        };
        node = Some(match node {
            None => leaf,
            Some(n) if phrase => QueryNode::Phrase(Box::new(n), Box::new(leaf), pos - last),
            Some(n) => QueryNode::And(Box::new(n), Box::new(leaf)),
        });
        last = *pos;
    }
    node
}

/// A query's operand through the configuration: its lexemes in a phrase
/// (`None`: no lexeme, dropped from the query).
fn analyze(node: QueryNode) -> Option<QueryNode> {
    Some(match node {
        QueryNode::Lexeme {
            word,
            weights,
            prefix,
        } => chain(&lexemes(&word), true, weights, prefix)?,
        QueryNode::Not(x) => QueryNode::Not(Box::new(analyze(*x)?)),
        QueryNode::And(a, b) => match (analyze(*a), analyze(*b)) {
            (Some(a), Some(b)) => QueryNode::And(Box::new(a), Box::new(b)),
            (x, y) => x.or(y)?,
        },
        QueryNode::Or(a, b) => match (analyze(*a), analyze(*b)) {
            (Some(a), Some(b)) => QueryNode::Or(Box::new(a), Box::new(b)),
            (x, y) => x.or(y)?,
        },
        QueryNode::Phrase(a, b, d) => match (analyze(*a), analyze(*b)) {
            (Some(a), Some(b)) => QueryNode::Phrase(Box::new(a), Box::new(b), d),
            (x, y) => x.or(y)?,
        },
    })
}

/// `to_tsquery([config,] text)`: query syntax, each operand's lexemes.
pub fn to_tsquery(config: Option<&str>, text: &str) -> Result<TsQuery, SqlError> {
    check_config(config)?;
    let raw = TsQuery::parse(text)?;
    Ok(TsQuery {
        root: raw.root.and_then(analyze),
    })
}

/// `plainto_tsquery` (every lexeme, `&`) and `phraseto_tsquery` (`<->`).
pub fn plain_query(config: Option<&str>, text: &str, phrase: bool) -> Result<TsQuery, SqlError> {
    check_config(config)?;
    Ok(TsQuery {
        root: chain(&lexemes(text), phrase, 0, false),
    })
}

/// `websearch_to_tsquery`: terms (`&` between; a term's lexemes in a
/// phrase), `"quoted phrases"`, `or` between two terms for an
/// alternative, `-term` for not. Blanks and `: ! & | ( ) < >` end a term
/// and are otherwise ignored (no grouping), as PostgreSQL's.
pub fn websearch_query(config: Option<&str>, text: &str) -> Result<TsQuery, SqlError> {
    check_config(config)?;
    /// A term: its query, whether it was the bare word `or`.
    struct Term {
        node: Option<QueryNode>,
        or: bool,
    }
    let splits = |c: char| {
        c.is_whitespace() || matches!(c, ':' | '!' | '&' | '|' | '(' | ')' | '<' | '>' | '"')
    };
    let chars: Vec<char> = text.chars().collect();
    let mut terms: Vec<Term> = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c != '"' && splits(c) {
            i += 1;
            continue;
        }
        let negate = c == '-';
        if negate {
            i += 1;
        }
        let (node, or, end) = if chars.get(i) == Some(&'"') {
            let close = chars[i + 1..]
                .iter()
                .position(|c| *c == '"')
                .map_or(chars.len(), |p| i + 1 + p);
            let inner: String = chars[i + 1..close].iter().collect();
            (chain(&lexemes(&inner), true, 0, false), false, close + 1)
        } else {
            let mut j = i;
            while j < chars.len() && !splits(chars[j]) {
                j += 1;
            }
            let word: String = chars[i..j].iter().collect();
            let or = !negate && word.eq_ignore_ascii_case("or");
            (chain(&lexemes(&word), true, 0, false), or, j)
        };
        i = end;
        let node = if negate {
            node.map(|n| QueryNode::Not(Box::new(n)))
        } else {
            node
        };
        if node.is_some() {
            terms.push(Term { node, or });
        }
    }
    // Alternatives, each a list of terms: `or` between two terms splits.
    let mut alternatives: Vec<Vec<QueryNode>> = vec![Vec::new()];
    let count = terms.len();
    for (k, term) in terms.into_iter().enumerate() {
        let current = alternatives.last_mut().expect("one");
        if term.or && !current.is_empty() && k + 1 < count {
            alternatives.push(Vec::new());
            continue;
        }
        if let Some(node) = term.node {
            current.push(node);
        }
    }
    let mut root: Option<QueryNode> = None;
    for terms in alternatives {
        let and = terms
            .into_iter()
            .reduce(|a, b| QueryNode::And(Box::new(a), Box::new(b)));
        if let Some(and) = and {
            root = Some(match root {
                None => and,
                Some(r) => QueryNode::Or(Box::new(r), Box::new(and)),
            });
        }
    }
    Ok(TsQuery { root })
}

/// The query without its negations (PostgreSQL's `clean_NOT`).
fn without_not(node: &QueryNode) -> Option<QueryNode> {
    Some(match node {
        QueryNode::Lexeme { .. } => node.clone(),
        QueryNode::Not(_) => return None,
        QueryNode::Or(a, b) => QueryNode::Or(Box::new(without_not(a)?), Box::new(without_not(b)?)),
        QueryNode::And(a, b) | QueryNode::Phrase(a, b, _) => {
            match (without_not(a), without_not(b)) {
                (Some(x), Some(y)) => match node {
                    QueryNode::And(..) => QueryNode::And(Box::new(x), Box::new(y)),
                    QueryNode::Phrase(_, _, d) => QueryNode::Phrase(Box::new(x), Box::new(y), *d),
                    _ => unreachable!("and or phrase"),
                },
                (x, y) => x.or(y)?,
            }
        }
    })
}

/// `querytree(q)`: the part of the query an index could use, `T` for
/// none (and an empty text for an empty query).
pub fn query_tree(q: &TsQuery) -> String {
    match &q.root {
        None => String::new(),
        Some(root) => match without_not(root) {
            None => "T".into(),
            Some(r) => TsQuery { root: Some(r) }.text(),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Proves the simple configuration's lexemes and queries are
    // PostgreSQL 15's on the token kinds here.
    #[test]
    fn simple_configuration_as_postgresql() {
        let simple = Some("simple");
        assert_eq!(
            to_tsvector(simple, "1.5 foo-bar abc_def Ab'c 1-2 x2y")
                .unwrap()
                .text(),
            "'-2':10 '1':9 '1.5':1 'ab':7 'abc':5 'bar':4 'c':8 'def':6 'foo':3 'foo-bar':2 'x2y':11"
        );
        assert_eq!(
            to_tsquery(simple, "foo-bar & x:*A").unwrap().text(),
            "'foo-bar' <-> 'foo' <-> 'bar' & 'x':*A"
        );
        assert_eq!(
            plain_query(simple, "The fat-rat", false).unwrap().text(),
            "'the' & 'fat-rat' & 'fat' & 'rat'"
        );
        assert_eq!(
            websearch_query(simple, "a \"b c\" or d -e").unwrap().text(),
            "'a' & 'b' <-> 'c' | 'd' & !'e'"
        );
        for (input, output) in [
            (
                "I have a fat:*ABCD cat",
                "'i' & 'have' & 'a' & 'fat' & 'abcd' & 'cat'",
            ),
            ("fat*rat", "'fat' <-> 'rat'"),
            ("abc (pg or class)", "'abc' & 'pg' | 'class'"),
            ("cat OR", "'cat' & 'or'"),
            ("or OR or", "'or' | 'or'"),
            (
                "\"fat cat\"or\"fat rat\"",
                "'fat' <-> 'cat' | 'fat' <-> 'rat'",
            ),
            ("fat or>rat", "'fat' | 'rat'"),
            ("abc or-abc", "'abc' & 'or-abc' <-> 'or' <-> 'abc'"),
            (":", ""),
        ] {
            assert_eq!(
                websearch_query(simple, input).unwrap().text(),
                output,
                "{input}"
            );
        }
        assert_eq!(query_tree(&TsQuery::parse("!a & b").unwrap()), "'b'");
        assert_eq!(query_tree(&TsQuery::parse("!a").unwrap()), "T");
        assert_eq!(to_tsvector(Some("english"), "x").unwrap_err().code, "0A000");
        assert_eq!(to_tsvector(Some("nope"), "x").unwrap_err().code, "42704");
    }
}
