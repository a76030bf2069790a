//! The parts of a foreign key's `REFERENCES` clause that sqlparser does
//! not read: `MATCH FULL | SIMPLE | PARTIAL`, and PostgreSQL 15's column
//! list of `ON DELETE SET NULL (columns)` / `SET DEFAULT (columns)`.
//!
//! [`encode`] takes them out of the tokens before the parse and appends
//! what they said to the referenced column list as names no PostgreSQL
//! identifier can be (each begins with a NUL): [`MATCH_FULL`], then
//! [`SET_COLUMNS`] followed by the list's own names. `REFERENCES t MATCH
//! FULL` becomes `REFERENCES t ("\0match full")`. [`Options::take`] reads
//! them back off the parsed list (`ddl.rs` `KeySpec`), so a column
//! constraint, a table constraint and `ALTER TABLE ... ADD` take them
//! alike. `MATCH SIMPLE`, the default, leaves nothing; `MATCH PARTIAL`
//! and a column list on an `ON UPDATE` action are PostgreSQL's 0A000.

use crate::error::SqlError;
use crate::parse::{closing, quoted_word as name, word_at as is_word_at};
use sqlparser::ast::Ident;
use sqlparser::tokenizer::{Token, TokenWithSpan};

/// The name standing for `MATCH FULL`.
const MATCH_FULL: &str = "\u{0}match full";

/// The name after which the `ON DELETE SET ... (columns)` list follows.
const SET_COLUMNS: &str = "\u{0}set columns";

/// What [`encode`] carried through the parse.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Options {
    /// `MATCH FULL` (else SIMPLE).
    pub match_full: bool,
    /// The columns `ON DELETE SET NULL / SET DEFAULT` sets (empty: all
    /// the key's).
    pub set_columns: Vec<Ident>,
}

impl Options {
    /// Splits the encoded names off a parsed referenced column list,
    /// which keeps the columns written.
    pub fn take(columns: &[Ident]) -> (Vec<Ident>, Options) {
        let at = (columns.iter())
            .position(|c| c.quote_style.is_some() && c.value.starts_with('\u{0}'))
            .unwrap_or(columns.len());
        let mut options = Options::default();
        let mut in_list = false;
        for c in &columns[at..] {
            match c.value.as_str() {
                MATCH_FULL => options.match_full = true,
                SET_COLUMNS => in_list = true,
                _ if in_list => options.set_columns.push(c.clone()),
                _ => {}
            }
        }
        (columns[..at].to_vec(), options)
    }
}

/// Rewrites each `REFERENCES table [(columns)]` clause in `tokens` (one
/// statement's) whose `MATCH` or `SET NULL / SET DEFAULT (columns)`
/// sqlparser cannot read (the module's comment). A clause without them
/// is left as it is, and so is `GRANT REFERENCES`.
pub fn encode(tokens: &mut Vec<TokenWithSpan>) -> Result<(), SqlError> {
    let mut at = 0;
    while at < tokens.len() {
        if !is_word(&tokens[at], "references")
            || !matches!(tokens.get(at + 1).map(|t| &t.token), Some(Token::Word(w)) if !(w.quote_style.is_none() && w.value.eq_ignore_ascii_case("on")))
        {
            at += 1;
            continue;
        }
        // The table's name: words joined by periods.
        let mut end = at + 2;
        while end + 1 < tokens.len()
            && tokens[end].token == Token::Period
            && matches!(tokens[end + 1].token, Token::Word(_))
        {
            end += 2;
        }
        // The referenced columns.
        let list = match tokens.get(end).map(|t| &t.token) {
            Some(Token::LParen) => {
                let Some(close) = closing(tokens, end) else {
                    return Ok(());
                };
                let list = Some((end, close));
                end = close + 1;
                list
            }
            _ => None,
        };
        let mut markers: Vec<Token> = Vec::new();
        let mut i = end;
        loop {
            if is_word_at(tokens, i, "match") {
                if is_word_at(tokens, i + 1, "full") {
                    markers.push(name(MATCH_FULL));
                } else if is_word_at(tokens, i + 1, "partial") {
                    return Err(SqlError::new("0A000", "MATCH PARTIAL not yet implemented"));
                } else if !is_word_at(tokens, i + 1, "simple") {
                    break;
                }
                tokens.drain(i..i + 2);
                continue;
            }
            if !is_word_at(tokens, i, "on") {
                break;
            }
            let delete = is_word_at(tokens, i + 1, "delete");
            if !delete && !is_word_at(tokens, i + 1, "update") {
                break;
            }
            let mut after = i + 2;
            let set = is_word_at(tokens, after, "set")
                && (is_word_at(tokens, after + 1, "null")
                    || is_word_at(tokens, after + 1, "default"));
            if is_word_at(tokens, after, "no") || set {
                after += 2;
            } else {
                after += 1;
            }
            if set && tokens.get(after).map(|t| &t.token) == Some(&Token::LParen) {
                let Some(close) = closing(tokens, after) else {
                    break;
                };
                if !delete {
                    let action = match is_word_at(tokens, after - 1, "null") {
                        true => "SET NULL",
                        false => "SET DEFAULT",
                    };
                    return Err(SqlError::new(
                        "0A000",
                        format!(
                            "a column list with {action} is only supported for ON DELETE actions"
                        ),
                    ));
                }
                markers.push(name(SET_COLUMNS));
                let inner: Vec<Token> = (tokens[after + 1..close].iter())
                    .filter(|t| t.token != Token::Comma)
                    .map(|t| t.token.clone())
                    .collect();
                markers.extend(inner);
                tokens.drain(after..=close);
            }
            i = after;
        }
        if !markers.is_empty() {
            let mut insert: Vec<TokenWithSpan> = Vec::new();
            for marker in markers {
                if list.is_some() || !insert.is_empty() {
                    insert.push(TokenWithSpan::wrap(Token::Comma));
                }
                insert.push(TokenWithSpan::wrap(marker));
            }
            match list {
                Some((_, close)) => {
                    tokens.splice(close..close, insert);
                }
                None => {
                    insert.insert(0, TokenWithSpan::wrap(Token::LParen));
                    insert.push(TokenWithSpan::wrap(Token::RParen));
                    tokens.splice(end..end, insert);
                }
            }
        }
        at += 1;
    }
    Ok(())
}

/// Whether `token` is the unquoted word `word` (any case).
fn is_word(token: &TokenWithSpan, word: &str) -> bool {
    matches!(&token.token, Token::Word(w) if w.quote_style.is_none() && w.value.eq_ignore_ascii_case(word))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn statement(sql: &str) -> String {
        crate::parse::statements(sql)
            .map_or_else(|e| format!("error {}", e.code), |s| format!("{s:?}"))
    }

    // Proves the clauses reach the parse as names on the referenced
    // list, which `Options::take` reads back, and that PostgreSQL's
    // refusals are kept.
    #[test]
    fn match_and_set_columns_are_carried_through_the_parse() {
        let parsed = statement(
            "create table c (a int, b int, foreign key (a, b) references p (x, y) match full on delete set null (b) on update cascade)",
        );
        assert!(parsed.contains("\\0match full"), "{parsed}");
        assert!(parsed.contains("\\0set columns"), "{parsed}");
        let simple =
            statement("create table c (a int references p match simple on delete cascade)");
        assert!(!simple.contains("\\0"), "{simple}");
        assert_eq!(
            statement("create table c (a int references p match partial)"),
            "error 0A000"
        );
        assert_eq!(
            statement("create table c (a int references p on update set null (a))"),
            "error 0A000"
        );
        let ident = |v: &str, q: Option<char>| Ident {
            value: v.into(),
            quote_style: q,
            span: sqlparser::tokenizer::Span::empty(),
        };
        let (columns, options) = Options::take(&[
            ident("x", None),
            ident(MATCH_FULL, Some('"')),
            ident(SET_COLUMNS, Some('"')),
            ident("b", None),
        ]);
        assert_eq!(columns, vec![ident("x", None)]);
        assert!(options.match_full);
        assert_eq!(options.set_columns, vec![ident("b", None)]);
    }
}
