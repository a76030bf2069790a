//! The parts of a PRIMARY KEY or UNIQUE table constraint that sqlparser
//! does not read: `INCLUDE (columns)` after the key's columns, and `USING
//! INDEX name` in place of them (`ALTER TABLE ... ADD [CONSTRAINT c]
//! {UNIQUE | PRIMARY KEY} USING INDEX i`).
//!
//! As `references_syntax.rs` does, [`encode`] rewrites the tokens before
//! the parse so that what they said rides in the key's column list as
//! names no PostgreSQL identifier can be (each begins with a NUL):
//! `UNIQUE (a, b) INCLUDE (c)` becomes `UNIQUE (a, b, "\0include", c)`,
//! `PRIMARY KEY USING INDEX i` becomes `PRIMARY KEY ("\0using index",
//! i)`. [`KeySpec::take`] reads them back off the parsed list (`ddl.rs`
//! `key_constraint`), so a CREATE TABLE's constraint and ALTER TABLE's
//! ADD take them alike. `CREATE INDEX ... INCLUDE`, which sqlparser
//! reads, is left alone (no `(` follows its `UNIQUE`), and so is
//! `REPLICA IDENTITY USING INDEX`.
//!
//! A column's own `UNIQUE NULLS [NOT] DISTINCT` (sqlparser reads the
//! clause in a table constraint only) loses the clause; NOT DISTINCT
//! rides in the constraint's name instead: `[CONSTRAINT c] UNIQUE NULLS
//! NOT DISTINCT` becomes `CONSTRAINT "\0nulls not distinct:c" UNIQUE`
//! (no name after the colon when none was written), which
//! [`column_nulls`] reads back.

use crate::parse::{closing, quoted_word as name, word_at as is_word_at};
use sqlparser::ast::IndexColumn;
use sqlparser::tokenizer::{Token, TokenWithSpan};

/// The name after which the included columns follow.
const INCLUDE: &str = "\u{0}include";

/// The name after which the index of `USING INDEX` follows.
const USING_INDEX: &str = "\u{0}using index";

/// What begins the constraint name of a column's `UNIQUE NULLS NOT
/// DISTINCT`; the name written (if any) follows.
const NULLS_NOT_DISTINCT: &str = "\u{0}nulls not distinct:";

/// A column's UNIQUE constraint's name as written (`None`: not given)
/// and how its NULLs compare, from the name [`encode`] gave it.
pub fn column_nulls(name: Option<String>) -> (Option<String>, folio_catalog::Nulls) {
    match name
        .as_deref()
        .and_then(|n| n.strip_prefix(NULLS_NOT_DISTINCT))
    {
        Some(written) => (
            Some(written.to_string()).filter(|n| !n.is_empty()),
            folio_catalog::Nulls::NotDistinct,
        ),
        None => (name, folio_catalog::Nulls::Distinct),
    }
}

/// A key constraint's column list, split into what [`encode`] put there.
#[derive(Debug, Default)]
pub struct KeySpec<'a> {
    /// The key columns written.
    pub key: &'a [IndexColumn],
    /// Its `INCLUDE` columns.
    pub include: &'a [IndexColumn],
    /// `USING INDEX name`: the existing index that becomes the constraint.
    pub using_index: Option<&'a IndexColumn>,
}

impl<'a> KeySpec<'a> {
    /// Splits a parsed key column list at the names [`encode`] put there.
    pub fn take(columns: &'a [IndexColumn]) -> KeySpec<'a> {
        let marker = |c: &IndexColumn, name: &str| {
            matches!(&c.column.expr, sqlparser::ast::Expr::Identifier(id)
                if id.quote_style.is_some() && id.value == name)
        };
        if let Some(first) = columns.first()
            && marker(first, USING_INDEX)
        {
            return KeySpec {
                key: &[],
                include: &[],
                using_index: columns.get(1),
            };
        }
        match columns.iter().position(|c| marker(c, INCLUDE)) {
            Some(at) => KeySpec {
                key: &columns[..at],
                include: &columns[at + 1..],
                using_index: None,
            },
            None => KeySpec {
                key: columns,
                include: &[],
                using_index: None,
            },
        }
    }
}

/// Rewrites each `{UNIQUE | PRIMARY KEY} (columns) INCLUDE (columns)` and
/// `{UNIQUE | PRIMARY KEY} USING INDEX name` of `tokens` (one
/// statement's) as the module's comment says.
pub fn encode(tokens: &mut Vec<TokenWithSpan>) {
    let mut at = 0;
    while at < tokens.len() {
        let list = if is_word_at(tokens, at, "unique") {
            match nulls_clause(tokens, &mut at) {
                Some(next) => next,
                None => continue,
            }
        } else if is_word_at(tokens, at, "primary") && is_word_at(tokens, at + 1, "key") {
            at + 2
        } else {
            at += 1;
            continue;
        };
        if is_word_at(tokens, list, "using")
            && is_word_at(tokens, list + 1, "index")
            && matches!(tokens.get(list + 2).map(|t| &t.token), Some(Token::Word(_)))
        {
            let index = tokens[list + 2].clone();
            let replaced = [
                TokenWithSpan::wrap(Token::LParen),
                TokenWithSpan::wrap(name(USING_INDEX)),
                TokenWithSpan::wrap(Token::Comma),
                index,
                TokenWithSpan::wrap(Token::RParen),
            ];
            tokens.splice(list..list + 3, replaced);
            at = list + 5;
            continue;
        }
        if tokens.get(list).map(|t| &t.token) != Some(&Token::LParen) {
            at = list;
            continue;
        }
        let Some(close) = closing(tokens, list) else {
            return;
        };
        let include = close + 1;
        if !is_word_at(tokens, include, "include")
            || tokens.get(include + 1).map(|t| &t.token) != Some(&Token::LParen)
        {
            at = close;
            continue;
        }
        let Some(end) = closing(tokens, include + 1) else {
            return;
        };
        let mut moved = vec![
            TokenWithSpan::wrap(Token::Comma),
            TokenWithSpan::wrap(name(INCLUDE)),
            TokenWithSpan::wrap(Token::Comma),
        ];
        moved.extend(tokens[include + 2..end].iter().cloned());
        tokens.drain(include..=end);
        let added = moved.len();
        tokens.splice(close..close, moved);
        at = close + added;
    }
}

/// After the `UNIQUE` at `at`: where its column list may start, past a
/// table constraint's `NULLS [NOT] DISTINCT` (sqlparser's to read).
/// `None` when the clause was a column constraint's, rewritten (as the
/// module's comment says) with `at` past it.
fn nulls_clause(tokens: &mut Vec<TokenWithSpan>, at: &mut usize) -> Option<usize> {
    let start = *at + 1;
    if !is_word_at(tokens, start, "nulls") {
        return Some(start);
    }
    let not = is_word_at(tokens, start + 1, "not");
    let distinct = start + 1 + usize::from(not);
    if !is_word_at(tokens, distinct, "distinct") {
        return Some(start);
    }
    if tokens.get(distinct + 1).map(|t| &t.token) == Some(&Token::LParen) {
        return Some(distinct + 1);
    }
    tokens.drain(start..=distinct);
    if not {
        let named = *at >= 2
            && is_word_at(tokens, *at - 2, "constraint")
            && matches!(tokens[*at - 1].token, Token::Word(_));
        if named {
            let Token::Word(written) = &tokens[*at - 1].token else {
                unreachable!("a word, checked above");
            };
            let written = crate::names::word(written);
            tokens[*at - 1] = TokenWithSpan::wrap(name(&format!("{NULLS_NOT_DISTINCT}{written}")));
        } else {
            let marked = [
                TokenWithSpan::wrap(Token::make_keyword("CONSTRAINT")),
                TokenWithSpan::wrap(name(NULLS_NOT_DISTINCT)),
            ];
            tokens.splice(*at..*at, marked);
            *at += 2;
        }
    }
    *at += 1;
    None
}

#[cfg(test)]
mod tests {
    fn statement(sql: &str) -> String {
        crate::parse::statements(sql)
            .map_or_else(|e| format!("error {}", e.code), |s| format!("{s:?}"))
    }

    // Proves INCLUDE and USING INDEX reach the parse as names on the key's
    // column list, and that CREATE INDEX's own INCLUDE is left alone.
    #[test]
    fn include_and_using_index_ride_in_the_key_list() {
        let unique = statement("create table t (a int, b int, unique (a) include (b))");
        assert!(unique.contains("\\0include"), "{unique}");
        let primary = statement("alter table t add constraint k primary key (a) include (b, c)");
        assert!(primary.contains("\\0include"), "{primary}");
        let using = statement("alter table t add unique using index i");
        assert!(using.contains("\\0using index"), "{using}");
        let index = statement("create unique index i on t (a) include (b)");
        assert!(!index.contains("\\0"), "{index}");
    }
}
