//! `CREATE SCHEMA name [AUTHORIZATION role] element ...`: the objects a
//! schema is created with, as PostgreSQL 15 makes them.
//!
//! Rules (PostgreSQL's `transformCreateSchemaStmt` and the grammar):
//! - an element is `CREATE TABLE`, `CREATE VIEW`, `CREATE INDEX`,
//!   `CREATE SEQUENCE`, `CREATE TRIGGER` or `GRANT`; anything else is a
//!   syntax error at its second word;
//! - `IF NOT EXISTS` with elements is 0A000;
//! - an element naming a schema other than the one being created is 42P15
//!   (an index and a trigger by their table);
//! - the elements run after the schema is made, in the order sequences,
//!   tables, views, indexes, triggers, grants (each kind in the order
//!   written), so a view or index may be written before its table;
//! - they run with the new schema first on the search path (unqualified
//!   names are created in it and resolve to it first), in the statement's
//!   transaction: one failing undoes the schema and everything before it.
//!
//! sqlparser reads no elements: [`start`] finds where they begin, the
//! parser reads each element's text ([`texts`]) as a statement of its own,
//! and [`order`] checks and sorts them. `Session::create_schema` runs them.

use crate::error::SqlError;
use crate::parse::Parsed;
use crate::position::Text;
use sqlparser::ast::{ObjectName, Statement};
use sqlparser::keywords::Keyword;
use sqlparser::tokenizer::{Token, TokenWithSpan};

/// Where the first element of a `CREATE SCHEMA` statement begins (the
/// index of its `CREATE` or `GRANT`), if the statement is one with
/// elements.
pub fn start(tokens: &[TokenWithSpan]) -> Option<usize> {
    let words: Vec<usize> = (0..tokens.len())
        .filter(|&i| !matches!(tokens[i].token, Token::Whitespace(_)))
        .collect();
    let is = |i: usize, keyword: Keyword| matches!(&tokens[i].token, Token::Word(w) if w.quote_style.is_none() && w.keyword == keyword);
    if words.len() < 3 || !is(words[0], Keyword::CREATE) || !is(words[1], Keyword::SCHEMA) {
        return None;
    }
    element_starts(tokens, words[2]).first().copied()
}

/// The texts of the elements from `from` (what [`start`] gave), each as
/// it was written.
pub fn texts(tokens: &[TokenWithSpan], from: usize, text: &Text<'_>) -> Vec<String> {
    let mut starts = element_starts(tokens, from);
    starts.push(tokens.len());
    starts
        .windows(2)
        .map(|pair| {
            let mut end = pair[1];
            while end > pair[0] + 1 && matches!(tokens[end - 1].token, Token::Whitespace(_)) {
                end -= 1;
            }
            text.written(&tokens[pair[0]..end])
        })
        .collect()
}

/// The indexes of the unquoted `CREATE` and `GRANT` words outside
/// parentheses, from `from` on.
fn element_starts(tokens: &[TokenWithSpan], from: usize) -> Vec<usize> {
    let mut depth = 0i32;
    let mut starts = Vec::new();
    for (i, token) in tokens.iter().enumerate().skip(from) {
        match &token.token {
            Token::LParen | Token::LBracket => depth += 1,
            Token::RParen | Token::RBracket => depth -= 1,
            Token::Word(w)
                if depth == 0
                    && w.quote_style.is_none()
                    && matches!(w.keyword, Keyword::CREATE | Keyword::GRANT) =>
            {
                starts.push(i)
            }
            _ => {}
        }
    }
    starts
}

/// The kinds of element, in the order they run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Kind {
    Sequence,
    Table,
    View,
    Index,
    Trigger,
    Grant,
}

/// Checks the elements of schema `schema` (`written`: each element's
/// text, for the syntax error) and puts them in the order they run.
pub fn order(schema: &str, elements: Vec<(Parsed, String)>) -> Result<Vec<Parsed>, SqlError> {
    let mut kinds = Vec::with_capacity(elements.len());
    for (element, written) in elements {
        let (kind, named) = classify(&element).ok_or_else(|| second_word(&written))?;
        if is_temporary(&element) {
            return Err(SqlError::new(
                "42P16",
                "cannot create temporary relation in non-temporary schema",
            ));
        }
        if let Some(name) = named
            && let [qualifier, _] = name.0.as_slice()
        {
            let qualifier = crate::names::ident(
                qualifier
                    .as_ident()
                    .ok_or_else(|| SqlError::syntax("syntax error in a schema element"))?,
            );
            if qualifier != schema {
                return Err(SqlError::new(
                    "42P15",
                    format!(
                        "CREATE specifies a schema ({qualifier}) different from the one being created ({schema})"
                    ),
                ));
            }
        }
        kinds.push((kind, element));
    }
    // (A stable sort: each kind keeps the order written.)
    kinds.sort_by_key(|(kind, _)| *kind);
    Ok(kinds.into_iter().map(|(_, element)| element).collect())
}

/// An element's kind and the name that must be in the schema (the
/// table of an index or trigger); `None` for what cannot be an element.
fn classify(element: &Parsed) -> Option<(Kind, Option<&ObjectName>)> {
    let statement = match element {
        Parsed::Sql(statement) => statement,
        Parsed::CreateLike { create, .. } => return classify(create),
        Parsed::CreatePartitioned { create, .. } | Parsed::CreateTrigger { create, .. } => create,
        _ => return None,
    };
    Some(match &**statement {
        Statement::CreateSequence { name, .. } => (Kind::Sequence, Some(name)),
        Statement::CreateTable(create) if create.query.is_none() => {
            (Kind::Table, Some(&create.name))
        }
        Statement::CreateView {
            name,
            materialized: false,
            ..
        } => (Kind::View, Some(name)),
        Statement::CreateIndex(index) => (Kind::Index, Some(&index.table_name)),
        Statement::CreateTrigger(trigger) => (Kind::Trigger, Some(&trigger.table_name)),
        Statement::Grant { .. } => (Kind::Grant, None),
        _ => return None,
    })
}

/// Whether an element creates a temporary relation (`CREATE TEMP VIEW`,
/// ...): it would go into the new schema, which is not a temporary one.
fn is_temporary(element: &Parsed) -> bool {
    let statement = match element {
        Parsed::Sql(statement) => statement,
        Parsed::CreateLike { create, .. } => return is_temporary(create),
        Parsed::CreatePartitioned { create, .. } => create,
        _ => return false,
    };
    match &**statement {
        Statement::CreateTable(create) => create.temporary,
        Statement::CreateView { temporary, .. } | Statement::CreateSequence { temporary, .. } => {
            *temporary
        }
        _ => false,
    }
}

/// PostgreSQL's syntax error for an element of another kind: at its
/// second word (`create function` is "at or near \"function\"").
fn second_word(written: &str) -> SqlError {
    let word = written.split_whitespace().nth(1).unwrap_or(written);
    SqlError::syntax(format!("syntax error at or near \"{word}\""))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::position::tokens;

    #[test]
    fn elements_start_at_top_level_create_or_grant() {
        let sql = "create schema s create table t (a int default 1) \
                   grant select on t to public";
        let all = tokens(sql);
        let at = start(&all).unwrap();
        assert_eq!(
            texts(&all, at, &Text::new(sql)),
            [
                "create table t (a int default 1)",
                "grant select on t to public"
            ]
        );
        assert_eq!(start(&tokens("create schema s")), None);
        assert_eq!(start(&tokens("create schema s authorization r")), None);
        assert_eq!(start(&tokens("create table t (a int)")), None);
    }

    #[test]
    fn elements_run_by_kind_and_stay_in_their_schema() {
        let parse = |sql: &str| {
            let mut parsed = crate::parse::statements(sql).unwrap();
            (parsed.remove(0), sql.to_string())
        };
        let ordered = order(
            "s",
            vec![
                parse("create index i on t (a)"),
                parse("create view v as select a from t"),
                parse("create table t (a int)"),
                parse("create sequence q"),
            ],
        )
        .unwrap();
        let kinds: Vec<Kind> = ordered.iter().map(|p| classify(p).unwrap().0).collect();
        assert_eq!(
            kinds,
            [Kind::Sequence, Kind::Table, Kind::View, Kind::Index]
        );
        let e = order("s", vec![parse("create table other.t (a int)")]).unwrap_err();
        assert_eq!(e.code, "42P15");
        assert_eq!(
            order("s", vec![parse("create table s.t (a int)")]).map(|v| v.len()),
            Ok(1)
        );
        let e = order(
            "s",
            vec![parse(
                "create function f() returns int as 'select 1' language sql",
            )],
        )
        .unwrap_err();
        assert_eq!(e.message, "syntax error at or near \"function\"");
    }
}
