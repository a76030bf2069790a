//! `INSERT ... OVERRIDING { SYSTEM | USER } VALUE`: what an INSERT does
//! with the values it gives identity columns.
//!
//! - Without the clause, a value (not `DEFAULT`) given to a `GENERATED
//!   ALWAYS AS IDENTITY` column is 428C9 (`Constraints::check_given`);
//!   a `BY DEFAULT` one takes it.
//! - `OVERRIDING SYSTEM VALUE`: every identity column takes the value
//!   given.
//! - `OVERRIDING USER VALUE`: every identity column (ALWAYS or BY
//!   DEFAULT) ignores the value given and takes its sequence's next, as if
//!   the statement had said `DEFAULT` (a VALUES expression there is not
//!   evaluated, as PostgreSQL's rewriter drops it).
//!
//! Neither changes what a generated column takes (always its expression:
//! a value is 428C9). PostgreSQL's grammar puts the clause after the
//! target's column list, in INSERT and in MERGE's INSERT action.
//!
//! sqlparser 0.59 reads no OVERRIDING: [`mark`] writes the clause as the
//! one item of a Hive `PARTITION (...)` clause, which sqlparser reads at
//! that place of every INSERT into `Insert::partitioned` and PostgreSQL
//! has not: `PARTITION ($overriding:system)` (the marker is not a token a
//! client can write). [`of`] reads it back; `merge_syntax.rs` reads the
//! same clause in MERGE.

use crate::error::SqlError;
use crate::position::Text;
use sqlparser::ast::{Expr, Insert};
use sqlparser::keywords::Keyword;
use sqlparser::tokenizer::{Token, TokenWithSpan};

/// The OVERRIDING clause of an INSERT.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Overriding {
    /// `OVERRIDING SYSTEM VALUE`: identity columns take the values given.
    System,
    /// `OVERRIDING USER VALUE`: identity columns ignore the values given.
    User,
}

/// The markers [`mark`] writes, and what each stands for.
const MARKS: [(&str, Overriding); 2] = [
    ("$overriding:system", Overriding::System),
    ("$overriding:user", Overriding::User),
];

/// Rewrites each `OVERRIDING { SYSTEM | USER } VALUE` in `tokens` to
/// `PARTITION (marker)`, keeping the words' places (an error at the
/// clause names `overriding`). `OVERRIDING SYSTEM` or `OVERRIDING USER`
/// not followed by `VALUE` is PostgreSQL's syntax error at the word after.
pub fn mark(tokens: &mut Vec<TokenWithSpan>, text: &Text<'_>) -> Result<(), SqlError> {
    let word = |t: Option<&TokenWithSpan>, w: &str| {
        matches!(t.map(|t| &t.token), Some(Token::Word(x))
            if x.quote_style.is_none() && x.value.eq_ignore_ascii_case(w))
    };
    let mut at = 0;
    while at < tokens.len() {
        let kind = match () {
            _ if !word(tokens.get(at), "overriding") => None,
            _ if word(tokens.get(at + 1), "system") => Some(Overriding::System),
            _ if word(tokens.get(at + 1), "user") => Some(Overriding::User),
            _ => None,
        };
        let Some(kind) = kind else {
            at += 1;
            continue;
        };
        match tokens.get(at + 2) {
            Some(t) if word(Some(t), "value") => {}
            Some(t) => return Err(text.near(t)),
            None => return Err(text.at_end()),
        }
        let (marker, _) = MARKS.iter().find(|(_, k)| *k == kind).expect("every kind");
        if let Token::Word(w) = &mut tokens[at].token {
            w.keyword = Keyword::PARTITION;
        }
        tokens[at + 1].token = Token::LParen;
        tokens[at + 2].token = Token::RParen;
        let span = tokens[at + 1].span;
        tokens.insert(
            at + 2,
            TokenWithSpan::new(Token::Placeholder(marker.to_string()), span),
        );
        at += 4;
    }
    Ok(())
}

/// The clause `[marker, ...]` stands for, if it is one [`mark`] wrote
/// (`insert_targets.rs` writes its items after the marker).
pub fn of_marker(items: &[Expr]) -> Option<Overriding> {
    let Some(Expr::Value(v)) = items.first() else {
        return None;
    };
    let sqlparser::ast::Value::Placeholder(p) = &v.value else {
        return None;
    };
    MARKS.iter().find(|(m, _)| m == p).map(|(_, kind)| *kind)
}

/// The OVERRIDING clause of `insert` (a `PARTITION (...)` a client wrote
/// is PostgreSQL's syntax error).
pub fn of(insert: &Insert) -> Result<Option<Overriding>, SqlError> {
    match insert.partitioned.as_deref() {
        None => Ok(None),
        Some(items) => match of_marker(items) {
            Some(kind) => Ok(Some(kind)),
            None if crate::insert_targets::is_marked(items) => Ok(None),
            None => Err(SqlError::syntax("syntax error at or near \"PARTITION\"")),
        },
    }
}
