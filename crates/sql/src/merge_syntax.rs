//! PostgreSQL 15's `MERGE` grammar, parsed into sqlparser's
//! `Statement::Merge` (the dialect's statement hook, `dialect.rs`).
//! sqlparser's own MERGE parser has neither `DO NOTHING` nor `INSERT
//! DEFAULT VALUES`, and takes a RETURNING / OUTPUT clause PostgreSQL 15
//! has not; its AST has no node for the first two, which this parser
//! writes as forms sqlparser's PostgreSQL parser never makes:
//!
//! - `DO NOTHING` is `MergeAction::Update` with no assignments
//!   ([`is_do_nothing`]);
//! - `INSERT DEFAULT VALUES` is `MergeInsertKind::Row` with no columns
//!   ([`is_default_values`]);
//! - `INSERT ... OVERRIDING { SYSTEM | USER } VALUE VALUES (...)` (which
//!   `overriding::mark` has written as `PARTITION (marker)`) is the
//!   marker as a second row of the VALUES, whose one row PostgreSQL's
//!   grammar allows ([`overriding`]).
//!
//! `merge.rs` reads them through those three functions alone.

use crate::overriding::{Overriding, of_marker};
use sqlparser::ast::{
    MergeAction, MergeClause, MergeClauseKind, MergeInsertExpr, MergeInsertKind, Statement,
};
use sqlparser::keywords::Keyword;
use sqlparser::parser::{IsOptional, Parser, ParserError};

/// Parses `MERGE` (already read) `INTO target [[AS] alias] USING source
/// [[AS] alias] ON condition when_clause ...`.
pub fn parse(parser: &mut Parser) -> Result<Statement, ParserError> {
    parser.expect_keyword_is(Keyword::INTO)?;
    let table = parser.parse_table_factor()?;
    parser.expect_keyword_is(Keyword::USING)?;
    let source = parser.parse_table_factor()?;
    parser.expect_keyword_is(Keyword::ON)?;
    let on = parser.parse_expr()?;
    let mut clauses = Vec::new();
    while parser.parse_keyword(Keyword::WHEN) {
        clauses.push(clause(parser)?);
    }
    if clauses.is_empty() {
        return parser.expected("WHEN", parser.peek_token());
    }
    Ok(Statement::Merge {
        into: true,
        table,
        source,
        on: Box::new(on),
        clauses,
        output: None,
    })
}

/// `[NOT] MATCHED [AND condition] THEN action` (after `WHEN`).
fn clause(parser: &mut Parser) -> Result<MergeClause, ParserError> {
    let matched = !parser.parse_keyword(Keyword::NOT);
    parser.expect_keyword_is(Keyword::MATCHED)?;
    let predicate = match parser.parse_keyword(Keyword::AND) {
        true => Some(parser.parse_expr()?),
        false => None,
    };
    parser.expect_keyword_is(Keyword::THEN)?;
    let action = if parser.parse_keywords(&[Keyword::DO, Keyword::NOTHING]) {
        MergeAction::Update {
            assignments: Vec::new(),
        }
    } else if matched && parser.parse_keywords(&[Keyword::UPDATE, Keyword::SET]) {
        MergeAction::Update {
            assignments: parser.parse_comma_separated(Parser::parse_assignment)?,
        }
    } else if matched && parser.parse_keyword(Keyword::DELETE) {
        MergeAction::Delete
    } else if !matched && parser.parse_keyword(Keyword::INSERT) {
        if parser.parse_keywords(&[Keyword::DEFAULT, Keyword::VALUES]) {
            MergeAction::Insert(MergeInsertExpr {
                columns: Vec::new(),
                kind: MergeInsertKind::Row,
            })
        } else {
            let columns = parser.parse_parenthesized_column_list(IsOptional::Optional, false)?;
            let marked = parser.parse_insert_partition()?;
            parser.expect_keyword_is(Keyword::VALUES)?;
            let mut values = parser.parse_values(false)?;
            if values.rows.len() != 1 {
                return parser.expected("THEN", parser.peek_token());
            }
            if let Some(marker) = marked {
                if of_marker(&marker).is_none() {
                    return parser.expected("VALUES", parser.peek_token());
                }
                values.rows.push(marker);
            }
            MergeAction::Insert(MergeInsertExpr {
                columns,
                kind: MergeInsertKind::Values(values),
            })
        }
    } else {
        return parser.expected("an action", parser.peek_token());
    };
    Ok(MergeClause {
        clause_kind: match matched {
            true => MergeClauseKind::Matched,
            false => MergeClauseKind::NotMatched,
        },
        predicate,
        action,
    })
}

/// Whether `action` is `DO NOTHING`.
pub fn is_do_nothing(action: &MergeAction) -> bool {
    matches!(action, MergeAction::Update { assignments } if assignments.is_empty())
}

/// The OVERRIDING clause of `insert`.
pub fn overriding(insert: &MergeInsertExpr) -> Option<Overriding> {
    match &insert.kind {
        MergeInsertKind::Values(values) => values.rows.get(1).and_then(|m| of_marker(m)),
        MergeInsertKind::Row => None,
    }
}

/// Whether `insert` is `INSERT DEFAULT VALUES`.
pub fn is_default_values(insert: &MergeInsertExpr) -> bool {
    insert.columns.is_empty() && matches!(insert.kind, MergeInsertKind::Row)
}
