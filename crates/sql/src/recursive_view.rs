//! `CREATE [OR REPLACE] [TEMP] RECURSIVE VIEW name (columns) AS query`,
//! PostgreSQL's shorthand for a view over a recursive CTE of the view's
//! own name (sqlparser reads no RECURSIVE there).
//!
//! [`expand`] rewrites the tokens before the parse into the statement the
//! shorthand stands for:
//!
//! ```text
//! CREATE [OR REPLACE] [TEMP] VIEW name (columns) [WITH (options)] AS
//!   WITH RECURSIVE bare (columns) AS (query) SELECT columns FROM bare
//! ```
//!
//! where `bare` is the view's name without its schema, so the query's
//! references to it read the CTE. As in PostgreSQL, the column list is
//! required (without it: a syntax error at `AS`) and a trailing `WITH
//! CHECK OPTION` is 0A000.

use crate::error::SqlError;
use crate::position::Text;
use sqlparser::keywords::Keyword;
use sqlparser::tokenizer::{Token, TokenWithSpan};

/// Rewrites a `CREATE ... RECURSIVE VIEW` in `tokens` as the module doc
/// says; any other statement is left alone. `check` is the `WITH` of a
/// check option already taken off the statement's end.
pub(crate) fn expand(
    tokens: &mut Vec<TokenWithSpan>,
    text: &Text,
    check: Option<&TokenWithSpan>,
) -> Result<(), SqlError> {
    let word = |t: Option<&TokenWithSpan>| match t.map(|t| &t.token) {
        Some(Token::Word(w)) if w.quote_style.is_none() => w.value.to_ascii_lowercase(),
        _ => String::new(),
    };
    if word(tokens.first()) != "create" {
        return Ok(());
    }
    let mut at = 1;
    if word(tokens.get(at)) == "or" {
        at += 2;
    }
    if matches!(word(tokens.get(at)).as_str(), "temp" | "temporary") {
        at += 1;
    }
    if word(tokens.get(at)) != "recursive" || word(tokens.get(at + 1)) != "view" {
        return Ok(());
    }
    if let Some(check) = check {
        let error = SqlError::new(
            "0A000",
            "WITH CHECK OPTION not supported on recursive views",
        );
        return Err(match text.position(check.span.start) {
            Some(position) => error.at(position),
            None => error,
        });
    }
    tokens.remove(at);
    // The name: words joined by dots, after VIEW.
    let mut end = at + 1;
    while matches!(tokens.get(end + 1).map(|t| &t.token), Some(Token::Period)) {
        end += 2;
    }
    let Some(bare) = tokens
        .get(end)
        .filter(|t| matches!(t.token, Token::Word(_)))
    else {
        return Ok(());
    };
    let bare = bare.clone();
    let open = end + 1;
    match tokens.get(open) {
        Some(t) if t.token == Token::LParen => {}
        Some(t) => return Err(text.near(t)),
        None => return Err(text.at_end()),
    }
    let Some(close) = (open..tokens.len()).find(|&i| tokens[i].token == Token::RParen) else {
        return Ok(());
    };
    let columns: Vec<TokenWithSpan> = tokens[open + 1..close].to_vec();
    // AS, past a `WITH (options)` list.
    let mut depth = 0usize;
    let Some(as_at) = (close + 1..tokens.len()).find(|&i| {
        match &tokens[i].token {
            Token::LParen => depth += 1,
            Token::RParen => depth = depth.saturating_sub(1),
            Token::Word(w) if depth == 0 && w.keyword == Keyword::AS => return true,
            _ => {}
        }
        false
    }) else {
        return Ok(());
    };
    let span = tokens[as_at].span;
    let made = |token: Token| TokenWithSpan::new(token, span);
    let mut cte = vec![
        made(Token::make_keyword("WITH")),
        made(Token::make_keyword("RECURSIVE")),
        bare.clone(),
        made(Token::LParen),
    ];
    cte.extend(columns.iter().cloned());
    cte.extend([
        made(Token::RParen),
        made(Token::make_keyword("AS")),
        made(Token::LParen),
    ]);
    let query: Vec<TokenWithSpan> = tokens.split_off(as_at + 1);
    tokens.extend(cte);
    tokens.extend(query);
    tokens.extend([made(Token::RParen), made(Token::make_keyword("SELECT"))]);
    tokens.extend(columns);
    tokens.extend([made(Token::make_keyword("FROM")), bare]);
    Ok(())
}
