//! `CREATE UNLOGGED TABLE` (and `CREATE UNLOGGED TABLE ... AS`, `SELECT
//! ... INTO UNLOGGED`, `... PARTITION OF`): a table whose changes are not
//! WAL-logged, kept through a clean restart and emptied by a crash
//! (storage: folio-catalog `persistence.rs`). Its indexes are unlogged
//! with it.
//!
//! sqlparser reads no `UNLOGGED`: [`take`] takes the word out of the
//! statement's leading words and [`mark`] records it in the parsed
//! CREATE TABLE's `transient` flag (Snowflake's table without fail-safe,
//! the nearest kind sqlparser has; nothing else sets it). [`persistence`]
//! is the one reader of it.
//!
//! A table or a sequence can be unlogged (`CREATE UNLOGGED SEQUENCE`
//! becomes `Parsed::CreateUnloggedSequence`; a view: 42P16). That a
//! permanent table's foreign key may not
//! reference an unlogged table is folio-catalog's rule
//! (`Catalog::check_reference`).

use crate::error::SqlError;
use crate::parse::Parsed;
use folio_catalog::Persistence;
use folio_db::TableDef;
use sqlparser::ast::{CreateTable, Statement};
use sqlparser::keywords::Keyword;
use sqlparser::tokenizer::{Token, TokenWithSpan};

/// Takes `UNLOGGED` out of a `CREATE UNLOGGED ...` statement's tokens:
/// whether it was there.
pub fn take(tokens: &mut Vec<TokenWithSpan>) -> bool {
    let words: Vec<usize> = (tokens.iter().enumerate())
        .filter(|(_, t)| !matches!(t.token, Token::Whitespace(_)))
        .map(|(i, _)| i)
        .take(2)
        .collect();
    let is = |at: usize, k: Keyword| matches!(&tokens[at].token, Token::Word(w) if w.keyword == k);
    match words[..] {
        [create, unlogged] if is(create, Keyword::CREATE) && is(unlogged, Keyword::UNLOGGED) => {
            tokens.remove(unlogged);
            // The space after it, so the statement reads as written.
            if matches!(
                tokens.get(unlogged).map(|t| &t.token),
                Some(Token::Whitespace(_))
            ) {
                tokens.remove(unlogged);
            }
            true
        }
        _ => false,
    }
}

/// Marks the CREATE TABLE or CREATE SEQUENCE `parsed` holds as unlogged;
/// anything else cannot be.
pub fn mark(parsed: &mut Parsed) -> Result<(), SqlError> {
    if let Parsed::Sql(statement) = parsed
        && matches!(
            **statement,
            Statement::CreateSequence {
                temporary: false,
                ..
            }
        )
    {
        *parsed = Parsed::CreateUnloggedSequence(statement.clone());
        return Ok(());
    }
    let statement = match parsed {
        Parsed::Sql(s)
        | Parsed::CreatePartitioned { create: s, .. }
        | Parsed::CreateAsExecute { create: s, .. } => s,
        Parsed::CreateLike { create, .. } => return mark(create),
        Parsed::CreateMatview { .. } => return Err(no_storage("materialized views")),
        _ => return Err(near_unlogged()),
    };
    match &mut **statement {
        Statement::CreateTable(create) if !create.temporary => {
            create.transient = true;
            Ok(())
        }
        Statement::CreateView { .. } => Err(no_storage("views")),
        _ => Err(near_unlogged()),
    }
}

fn near_unlogged() -> SqlError {
    SqlError::syntax("syntax error at or near \"unlogged\"")
}

fn no_storage(what: &str) -> SqlError {
    SqlError::new(
        "42P16",
        format!("{what} cannot be unlogged because they do not have storage"),
    )
}

/// The persistence a CREATE TABLE asks for.
pub fn persistence(create: &CreateTable) -> Persistence {
    match create.transient {
        true => Persistence::Unlogged,
        false => Persistence::Permanent,
    }
}

/// Whether table `def` is unlogged.
pub fn is_unlogged(def: &TableDef) -> bool {
    Persistence::of(def.root) == Persistence::Unlogged
}
