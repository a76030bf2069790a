//! PostgreSQL's bare column labels. A select item's alias written
//! without `AS` may be any name or keyword except the few PostgreSQL's
//! grammar marks as needing `AS` (`pg_get_keywords()` with `barelabel =
//! false`: `filter`, `over`, `within`, `day`, `char`, ...). sqlparser
//! takes most of those as an alias, so `select count(*) filter from t`
//! named the count `filter`; PostgreSQL reads on into FILTER's clause and
//! fails at `from`. [`check`] gives PostgreSQL's syntax error for each
//! parsed statement. (sqlparser drops a call's `FILTER` not followed by
//! `(` altogether, and takes a reserved word after `OVER` as a window's
//! name, so those cases are found in the tokens, by [`swallowed_filter`],
//! before they are parsed.) The words sqlparser never takes as an alias
//! (`end`, `view`, `select`, ...) are taken by folio's dialect
//! (`dialect.rs`).

use crate::error::SqlError;
use crate::position::Text;
use sqlparser::ast::{Expr, Ident, Query, SelectItem, SetExpr, Statement, Visit, Visitor};
use sqlparser::dialect::PostgreSqlDialect;
use sqlparser::keywords::Keyword;
use sqlparser::tokenizer::{Token, TokenWithSpan, Tokenizer};
use std::ops::ControlFlow;

/// The words that continue a function call (`f(x) FILTER (...)`, `OVER
/// w`, `WITHIN GROUP (...)`): after a call PostgreSQL reads on past them
/// and fails at the next token.
const CALL_CLAUSES: &[&str] = &["filter", "over", "within"];

/// `statement` as parsed from `text`, or PostgreSQL's syntax error when a
/// select item in it has, without `AS`, an alias that needs it.
/// `terminator` is the statement's `;`, if any (PostgreSQL's error at the
/// end of a statement points there).
/// `swallowed` is what [`swallowed_filter`] found in the statement's
/// tokens; an alias error comes first, being earlier in the text.
pub(crate) fn check(
    statement: &Statement,
    text: &Text<'_>,
    terminator: Option<&TokenWithSpan>,
    swallowed: Option<SqlError>,
) -> Result<(), SqlError> {
    let mut find = Find::default();
    let _ = statement.visit(&mut find);
    if find.suspects.is_empty() {
        return swallowed.map_or(Ok(()), Err);
    }
    let tokens = Tokenizer::new(&PostgreSqlDialect {}, text.sql())
        .tokenize_with_location()
        .unwrap_or_default();
    let words: Vec<&TokenWithSpan> = tokens
        .iter()
        .filter(|t| !matches!(t.token, Token::Whitespace(_)))
        .collect();
    for (alias, after_call) in find.suspects {
        let Some(at) = words.iter().position(|t| t.span.start == alias.span.start) else {
            continue;
        };
        if at > 0 && matches!(&words[at - 1].token, Token::Word(w) if w.keyword == Keyword::AS) {
            continue;
        }
        if !(after_call && CALL_CLAUSES.contains(&alias.value.as_str())) {
            return Err(text.near(words[at]));
        }
        return Err(after(text, words.get(at + 1).copied(), terminator));
    }
    swallowed.map_or(Ok(()), Err)
}

/// PostgreSQL's syntax error for a `FILTER` that follows a call's `)`
/// without its `(`: at the token after it (`select count(*) filter from
/// t`), which sqlparser would read on from as if `FILTER` were not there;
/// or for an `OVER` followed by a word that cannot name a window (`select
/// count(*) over from t`), at that word, which sqlparser takes as one.
/// `tokens` are the statement's, before parsing.
pub(crate) fn swallowed_filter(
    tokens: &[TokenWithSpan],
    text: &Text<'_>,
    terminator: Option<&TokenWithSpan>,
) -> Option<SqlError> {
    let mut words = tokens
        .iter()
        .filter(|t| !matches!(t.token, Token::Whitespace(_)))
        .peekable();
    let mut previous: Option<&TokenWithSpan> = None;
    while let Some(token) = words.next() {
        if matches!(&token.token, Token::Word(w) if w.keyword == Keyword::FILTER && w.quote_style.is_none())
            && previous.is_some_and(|p| p.token == Token::RParen)
            && words.peek().is_none_or(|next| next.token != Token::LParen)
        {
            let next = words.peek().copied().filter(|t| t.token != Token::EOF);
            return Some(after(text, next, terminator));
        }
        // `OVER name`: the name is PostgreSQL's ColId, so a reserved word
        // (`count(*) over from t`) is its syntax error there, where
        // sqlparser takes it as a window's name.
        if matches!(&token.token, Token::Word(w) if w.keyword == Keyword::OVER && w.quote_style.is_none())
            && previous.is_some_and(|p| p.token == Token::RParen)
            && let Some(next) = words.peek()
            && let Token::Word(w) = &next.token
            && w.quote_style.is_none()
            && !crate::keywords::col_id(&w.value.to_ascii_lowercase())
        {
            return Some(text.near(next));
        }
        previous = Some(token);
    }
    None
}

/// The syntax error at `next`, the token after a word that needed more:
/// at the statement's end (its `;`, or the end of the text) when there is
/// none.
fn after(
    text: &Text<'_>,
    next: Option<&TokenWithSpan>,
    terminator: Option<&TokenWithSpan>,
) -> SqlError {
    match next {
        Some(next) if Some(next.span.start) != terminator.map(|t| t.span.start) => text.near(next),
        _ => match terminator {
            Some(semicolon) => text.near(semicolon),
            None => text.at_end(),
        },
    }
}

/// The unquoted select-item aliases in a statement that need `AS`, each
/// with whether its item is a function call.
#[derive(Default)]
struct Find {
    suspects: Vec<(Ident, bool)>,
}

impl Find {
    fn set_expr(&mut self, body: &SetExpr) {
        match body {
            SetExpr::Select(select) => {
                for item in &select.projection {
                    if let SelectItem::ExprWithAlias { expr, alias } = item
                        && alias.quote_style.is_none()
                        && !crate::keywords::bare_label(&alias.value.to_lowercase())
                    {
                        let lower = Ident {
                            value: alias.value.to_lowercase(),
                            ..alias.clone()
                        };
                        self.suspects
                            .push((lower, matches!(expr, Expr::Function(_))));
                    }
                }
            }
            SetExpr::SetOperation { left, right, .. } => {
                self.set_expr(left);
                self.set_expr(right);
            }
            _ => {}
        }
    }
}

impl Visitor for Find {
    type Break = ();

    fn pre_visit_query(&mut self, query: &Query) -> ControlFlow<()> {
        self.set_expr(&query.body);
        ControlFlow::Continue(())
    }
}
