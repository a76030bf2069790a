//! `ONLY name` and `name *` where a table is read or changed (`FROM`,
//! `JOIN`, `UPDATE`, `DELETE FROM`): sqlparser reads neither. `name *` is
//! the name (PostgreSQL's default already reads the descendants). `ONLY
//! name` becomes the name with its last part marked: quoted with a
//! backquote, a quote PostgreSQL's SQL has no other use for, so the mark
//! rides the parsed name to [`only`] (an unquoted part is folded first,
//! as reading it would; `names::ident` keeps a quoted part as it is).
//!
//! A table constraint's `CHECK (expr) NO INHERIT` (sqlparser does not read
//! it) becomes `CHECK (expr) NOT ENFORCED`, which sqlparser keeps as the
//! constraint's `enforced: Some(false)` for [`no_inherit`]; PostgreSQL
//! 15 has no `[NOT] ENFORCED`, so one written by the user is its 42601.

use crate::error::SqlError;
use sqlparser::ast::{Ident, ObjectName, ObjectNamePart};
use sqlparser::keywords::Keyword;
use sqlparser::tokenizer::{Token, TokenWithSpan};

/// The quote style that marks a name written after `ONLY`.
const ONLY_MARK: char = '`';

/// Whether `name` was written after `ONLY`.
pub fn only(name: &ObjectName) -> bool {
    matches!(name.0.last(), Some(ObjectNamePart::Identifier(id)) if id.quote_style == Some(ONLY_MARK))
}

/// Marks `name` as written after `ONLY` (a name rewritten by another
/// pass keeps what it was written as).
pub fn mark_only(name: &mut ObjectName) {
    if let Some(ObjectNamePart::Identifier(id)) = name.0.last_mut() {
        id.quote_style = Some(ONLY_MARK);
    }
}

/// `name` without [`mark_only`]'s mark (its last part quoted instead:
/// the mark's part is already folded).
pub fn unmarked(name: &ObjectName) -> ObjectName {
    let mut name = name.clone();
    if let Some(ObjectNamePart::Identifier(id)) = name.0.last_mut()
        && id.quote_style == Some(ONLY_MARK)
    {
        id.quote_style = Some('"');
    }
    name
}

/// Stored relation name `name` as a name written after `ONLY`.
pub fn only_name(name: &str) -> ObjectName {
    marked_name(name, ONLY_MARK)
}

/// Stored relation name `name` as a written name.
pub fn plain_name(name: &str) -> ObjectName {
    marked_name(name, '"')
}

fn marked_name(name: &str, last_quote: char) -> ObjectName {
    let parts: Vec<&str> = name.split('.').collect();
    let last = parts.len() - 1;
    ObjectName(
        (parts.iter().enumerate())
            .map(|(n, p)| {
                let quote = if n == last { last_quote } else { '"' };
                ObjectNamePart::Identifier(Ident::with_quote(quote, *p))
            })
            .collect(),
    )
}

fn keyword(token: Option<&TokenWithSpan>) -> Option<Keyword> {
    token.and_then(|t| crate::parse::keyword(&t.token))
}

/// Whether a table name may start at `at`: after FROM, JOIN, UPDATE (or
/// a comma of a FROM list, for `ONLY`).
fn names_table(tokens: &[TokenWithSpan], at: usize, comma: bool) -> bool {
    let Some(before) = at.checked_sub(1).map(|b| &tokens[b]) else {
        return false;
    };
    matches!(
        crate::parse::keyword(&before.token),
        Some(Keyword::FROM | Keyword::JOIN | Keyword::UPDATE)
    ) || (comma && before.token == Token::Comma)
}

/// The end (one past) of a dotted name starting at `at`, if one does.
fn name_end(tokens: &[TokenWithSpan], at: usize) -> Option<usize> {
    let word = |i: usize| matches!(tokens.get(i).map(|t| &t.token), Some(Token::Word(_)));
    if !word(at) {
        return None;
    }
    let mut end = at + 1;
    while tokens.get(end).map(|t| &t.token) == Some(&Token::Period) && word(end + 1) {
        end += 2;
    }
    Some(end)
}

/// Whether the token at `at` may follow a FROM item's name (so a `*`
/// before it is the descendants' star, not a multiplication).
fn ends_item(tokens: &[TokenWithSpan], at: usize) -> bool {
    match tokens.get(at).map(|t| &t.token) {
        None | Some(Token::SemiColon | Token::RParen | Token::Comma | Token::EOF) => true,
        Some(_) => matches!(
            keyword(tokens.get(at)),
            Some(
                Keyword::WHERE
                    | Keyword::AS
                    | Keyword::JOIN
                    | Keyword::INNER
                    | Keyword::LEFT
                    | Keyword::RIGHT
                    | Keyword::FULL
                    | Keyword::CROSS
                    | Keyword::NATURAL
                    | Keyword::ON
                    | Keyword::USING
                    | Keyword::GROUP
                    | Keyword::ORDER
                    | Keyword::LIMIT
                    | Keyword::OFFSET
                    | Keyword::SET
                    | Keyword::RETURNING
                    | Keyword::UNION
                    | Keyword::EXCEPT
                    | Keyword::INTERSECT
                    | Keyword::HAVING
                    | Keyword::WINDOW
                    | Keyword::FOR
            )
        ),
    }
}

/// Rewrites `ONLY name` and `name *` in `tokens` (module comment).
pub fn mark(tokens: &mut Vec<TokenWithSpan>) {
    let mut at = 0;
    while at < tokens.len() {
        let only = keyword(tokens.get(at)) == Some(Keyword::ONLY)
            && names_table(tokens, at, true)
            && name_end(tokens, at + 1).is_some();
        if only {
            tokens.remove(at);
            let end = name_end(tokens, at).unwrap_or(at + 1);
            if let Token::Word(w) = &mut tokens[end - 1].token {
                if w.quote_style.is_none() {
                    w.value = w.value.to_lowercase();
                }
                w.quote_style = Some(ONLY_MARK);
                w.keyword = Keyword::NoKeyword;
            }
            at = end;
            continue;
        }
        if names_table(tokens, at, false)
            && let Some(end) = name_end(tokens, at)
            && tokens.get(end).map(|t| &t.token) == Some(&Token::Mul)
            && ends_item(tokens, end + 1)
        {
            tokens.remove(end);
        }
        at += 1;
    }
}

/// `text` (a query as sqlparser prints it) with each name marked as
/// written after `ONLY` written so again (`ONLY "name"`), as a view's
/// stored query keeps it for [`mark`] to read back: PostgreSQL's
/// tokenizer reads the mark's quote as a lone character each side.
pub fn written_only(text: &str) -> String {
    let dialect = sqlparser::dialect::PostgreSqlDialect {};
    let Ok(tokens) = sqlparser::tokenizer::Tokenizer::new(&dialect, text).tokenize_with_location()
    else {
        return text.to_string();
    };
    let position = crate::position::Text::new(text);
    // (Positions are 1-based, in characters.)
    let chars: Vec<char> = text.chars().collect();
    let marks: Vec<usize> = (tokens.iter())
        .filter(|t| t.token == Token::Char(ONLY_MARK))
        .filter_map(|t| position.position(t.span.start))
        .map(|p| p - 1)
        .collect();
    let mut out = String::with_capacity(text.len() + 8);
    let mut copied = 0;
    for pair in marks.chunks_exact(2) {
        let (open, close) = (pair[0], pair[1]);
        let name: String = chars[open + 1..close].iter().collect();
        out.extend(&chars[copied..open]);
        out.push_str(&format!("ONLY \"{}\"", name.replace('"', "\"\"")));
        copied = close + 1;
    }
    out.extend(&chars[copied.min(chars.len())..]);
    out
}

/// Whether table constraint `constraint` was written `NO INHERIT`
/// (marked by [`mark_no_inherit`]).
pub fn no_inherit(constraint: &sqlparser::ast::TableConstraint) -> bool {
    matches!(
        constraint,
        sqlparser::ast::TableConstraint::Check {
            enforced: Some(false),
            ..
        }
    )
}

/// Whether the CHECK keyword at `at` begins a table constraint (after
/// `(`, `,` or `ADD`, or `CONSTRAINT name` there), not a column's or a
/// domain's.
fn table_check(tokens: &[TokenWithSpan], at: usize) -> bool {
    let mut start = at;
    if at >= 2 && keyword(tokens.get(at - 2)) == Some(Keyword::CONSTRAINT) {
        start = at - 2;
    }
    let Some(before) = start.checked_sub(1).map(|b| &tokens[b]) else {
        return false;
    };
    matches!(before.token, Token::LParen | Token::Comma)
        || crate::parse::keyword(&before.token) == Some(Keyword::ADD)
}

/// Rewrites a table constraint's `CHECK (expr) NO INHERIT` as `CHECK
/// (expr) NOT ENFORCED` (module comment); a `[NOT] ENFORCED` the user
/// wrote after a CHECK is PostgreSQL's 42601 at ENFORCED.
pub fn mark_no_inherit(
    tokens: &mut [TokenWithSpan],
    text: &crate::position::Text<'_>,
) -> Result<(), SqlError> {
    for at in 0..tokens.len() {
        if keyword(tokens.get(at)) != Some(Keyword::CHECK)
            || tokens.get(at + 1).map(|t| &t.token) != Some(&Token::LParen)
        {
            continue;
        }
        let mut depth = 0usize;
        let mut close = None;
        for (i, t) in tokens.iter().enumerate().skip(at + 1) {
            match t.token {
                Token::LParen => depth += 1,
                Token::RParen => {
                    depth -= 1;
                    if depth == 0 {
                        close = Some(i);
                        break;
                    }
                }
                _ => {}
            }
        }
        let Some(close) = close else {
            continue;
        };
        let (next, after) = (
            keyword(tokens.get(close + 1)),
            keyword(tokens.get(close + 2)),
        );
        match (next, after) {
            (Some(Keyword::ENFORCED), _) => return Err(text.near(&tokens[close + 1])),
            (Some(Keyword::NOT), Some(Keyword::ENFORCED)) => {
                return Err(text.near(&tokens[close + 2]));
            }
            (Some(Keyword::NO), Some(Keyword::INHERIT)) if table_check(tokens, at) => {
                tokens[close + 1].token = Token::make_keyword("NOT");
                tokens[close + 2].token = Token::make_keyword("ENFORCED");
            }
            _ => {}
        }
    }
    Ok(())
}
