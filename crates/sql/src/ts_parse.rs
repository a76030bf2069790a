//! Documents and queries into lexemes (PostgreSQL 15's `to_tsvector`,
//! `to_tsquery`, `plainto_tsquery`, `phraseto_tsquery`,
//! `websearch_to_tsquery`): the default parser's tokens
//! (`ts_parser.rs`), each through the dictionary its configuration names
//! for its kind (`ts_config.rs`, `ts_dictionaries.rs`). Every token takes
//! the next position (from 1; past 16383 they stay there), a stop word
//! too. A query's stop words leave placeholders that are then taken out
//! (`ts_stop_words.rs`).

use crate::error::SqlError;
use crate::ts_config::Config;
use crate::ts_stop_words::Draft;
use folio_row::{
    MAX_DISTANCE, MAX_LEXEME_BYTES, MAX_POS, MAX_QUERY_DEPTH, QueryNode, RowError, TsQuery,
    TsVector, WordPos,
};

/// `(lexeme, position)` pairs of a document through `config`: every
/// indexed token takes the next position (from 1; past 16383 they stay
/// there), a stop word its position and no lexeme; a token of a kind the
/// configuration does not index (a blank, a tag) takes none. A token too
/// long to index takes none (PostgreSQL's `parsetext`).
fn lexemes(config: Config, text: &str) -> Vec<(String, u16)> {
    let mut out = Vec::new();
    let mut pos = 0usize;
    for token in crate::ts_parser::tokens(text) {
        if token.text.len() > MAX_LEXEME_BYTES {
            continue;
        }
        let Some(dictionary) = config.dictionary(token.kind) else {
            continue;
        };
        pos += 1;
        let at = pos.min(usize::from(MAX_POS)) as u16;
        for lexeme in dictionary.lexize(&token.text) {
            out.push((lexeme, at));
        }
    }
    out
}

/// `to_tsvector([config,] text)`.
pub fn to_tsvector(config: Option<&str>, text: &str) -> Result<TsVector, SqlError> {
    let config = Config::named(config)?;
    Ok(TsVector::from_lexemes(
        lexemes(config, text)
            .into_iter()
            .map(|(word, pos)| folio_row::Lexeme {
                word,
                positions: vec![WordPos::new(pos, 0)],
            })
            .collect(),
    )?)
}

/// An operand through the configuration (PostgreSQL's `pushval_morph`):
/// its lexemes in order, joined by `<->` (`phrase`) or `&`; a run of stop
/// words between two of them widens that `<->` by one each (as their
/// placeholders would once taken out, `ts_stop_words.rs`); a placeholder
/// alone when it has no lexeme. 54001 when its lexemes would chain deeper
/// than a query may be.
pub(crate) fn operand(
    config: Config,
    text: &str,
    phrase: bool,
    weights: u8,
    prefix: bool,
) -> Result<Draft, SqlError> {
    let words = lexemes(config, text);
    if words.len() > MAX_QUERY_DEPTH {
        return Err(RowError::StackDepth.into());
    }
    let mut node: Option<Draft> = None;
    let mut last = 0u16;
    // Lexemes sharing a position (and a variant: folio's dictionaries give
    // one, so this is the position cap, 16383, shared by later words) are
    // all required: PostgreSQL's `&` inside the position's group.
    for group in words.chunk_by(|a, b| a.1 == b.1) {
        let pos = group[0].1;
        let mut leaves = group.iter().map(|(word, _)| Draft::Lexeme {
            word: word.clone(),
            weights,
            prefix,
        });
        let first = leaves.next().expect("a group has a lexeme");
        let leaf = leaves.fold(first, |a, b| Draft::And(Box::new(a), Box::new(b)));
        node = Some(match node {
            None => leaf,
            Some(n) if phrase => {
                Draft::Phrase(Box::new(n), Box::new(leaf), (pos - last).min(MAX_DISTANCE))
            }
            Some(n) => Draft::And(Box::new(n), Box::new(leaf)),
        });
        last = pos;
    }
    Ok(node.unwrap_or(Draft::Stop))
}

/// A parsed query's operands through the configuration.
fn analyze(config: Config, node: QueryNode) -> Result<Draft, SqlError> {
    let both = |a: Box<QueryNode>, b: Box<QueryNode>| -> Result<_, SqlError> {
        Ok((
            Box::new(analyze(config, *a)?),
            Box::new(analyze(config, *b)?),
        ))
    };
    Ok(match node {
        QueryNode::Lexeme {
            word,
            weights,
            prefix,
        } => operand(config, &word, true, weights, prefix)?,
        QueryNode::Not(x) => Draft::Not(Box::new(analyze(config, *x)?)),
        QueryNode::And(a, b) => {
            let (a, b) = both(a, b)?;
            Draft::And(a, b)
        }
        QueryNode::Or(a, b) => {
            let (a, b) = both(a, b)?;
            Draft::Or(a, b)
        }
        QueryNode::Phrase(a, b, d) => {
            let (a, b) = both(a, b)?;
            Draft::Phrase(a, b, d)
        }
    })
}

/// A query from a draft: its placeholders taken out, 54001 when deeper
/// than a query may be.
fn finish(draft: Option<Draft>) -> Result<TsQuery, SqlError> {
    let root = draft.and_then(crate::ts_stop_words::clean);
    Ok(TsQuery { root }.within_depth()?)
}

/// `to_tsquery([config,] text)`: query syntax, each operand's lexemes.
pub fn to_tsquery(config: Option<&str>, text: &str) -> Result<TsQuery, SqlError> {
    let config = Config::named(config)?;
    let raw = TsQuery::parse(text)?;
    finish(raw.root.map(|root| analyze(config, root)).transpose()?)
}

/// `websearch_to_tsquery([config,] text)` (the syntax: `ts_websearch.rs`).
pub fn websearch_query(config: Option<&str>, text: &str) -> Result<TsQuery, SqlError> {
    let config = Config::named(config)?;
    finish(crate::ts_websearch::parse(text, |value| {
        operand(config, value, true, 0, false)
    })?)
}

/// `plainto_tsquery` (every lexeme, `&`) and `phraseto_tsquery` (`<->`).
pub fn plain_query(config: Option<&str>, text: &str, phrase: bool) -> Result<TsQuery, SqlError> {
    let config = Config::named(config)?;
    finish(Some(operand(config, text, phrase, 0, false)?))
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
            ("abc <-> def", "'abc' & 'def'"),
            ("a :-b", "'a' & 'b'"),
            ("a (-b)", "'a' & !'b'"),
            ("a - b", "'a' & !'b'"),
            ("abc \"\"\"\"\" def", "'abc' & 'def'"),
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
        assert_eq!(to_tsvector(Some("german"), "x").unwrap_err().code, "0A000");
        assert_eq!(to_tsvector(Some("nope"), "x").unwrap_err().code, "42704");
    }

    // Proves the english configuration stems words, keeps numbers, and
    // that its stop words keep their places in documents and phrases, as
    // PostgreSQL 15's.
    #[test]
    fn english_configuration_as_postgresql() {
        let english = Some("english");
        assert_eq!(
            to_tsvector(english, "The fat rats x2y 15 sKies")
                .unwrap()
                .text(),
            "'15':5 'fat':2 'rat':3 'sky':6 'x2y':4"
        );
        assert_eq!(
            plain_query(
                english,
                "PostgreSQL can be extended by the user in many ways",
                true
            )
            .unwrap()
            .text(),
            "'postgresql' <3> 'extend' <3> 'user' <2> 'mani' <-> 'way'"
        );
        assert_eq!(
            to_tsquery(english, "foo <-> a <-> the <-> bar")
                .unwrap()
                .text(),
            "'foo' <3> 'bar'"
        );
        assert_eq!(
            to_tsquery(english, "(the|and&(i&1))&fghj").unwrap().text(),
            "'1' & 'fghj'"
        );
        assert_eq!(to_tsquery(english, "the").unwrap().text(), "");
        assert_eq!(
            websearch_query(english, "this is ----fine").unwrap().text(),
            "!!!!'fine'"
        );
        assert_eq!(
            websearch_query(Some("simple"), "a - or b").unwrap().text(),
            "'a' & !'or' & 'b'"
        );
    }
}
