//! `SET [SESSION | LOCAL] ROLE {TO | =} value`: the role setting's
//! assignment spelling. sqlparser reads `SET ROLE` as `SET ROLE name`
//! only, so `SET ROLE TO r` names a role `to`; folio's dialect
//! (`dialect.rs`) reads it here as the setting `role`, which the session
//! takes as `SET ROLE` (`none` and `DEFAULT` included).

use sqlparser::ast::{ContextModifier, Ident, ObjectName, Set, Statement};
use sqlparser::keywords::Keyword;
use sqlparser::parser::{Parser, ParserError};
use sqlparser::tokenizer::Token;

/// Whether the `n`th token ahead is the keyword `kw`.
fn keyword_at(parser: &Parser, n: usize, kw: Keyword) -> bool {
    matches!(&parser.peek_nth_token(n).token, Token::Word(w) if w.keyword == kw)
}

/// The statement, when the tokens ahead are `SET [SESSION | LOCAL] ROLE
/// {TO | =}`.
pub(crate) fn parse(parser: &mut Parser) -> Option<Result<Statement, ParserError>> {
    let scope = match () {
        _ if keyword_at(parser, 1, Keyword::SESSION) => Some(ContextModifier::Session),
        _ if keyword_at(parser, 1, Keyword::LOCAL) => Some(ContextModifier::Local),
        _ => None,
    };
    let at = 1 + usize::from(scope.is_some());
    let assigns =
        keyword_at(parser, at + 1, Keyword::TO) || parser.peek_nth_token(at + 1).token == Token::Eq;
    if !(keyword_at(parser, 0, Keyword::SET) && keyword_at(parser, at, Keyword::ROLE) && assigns) {
        return None;
    }
    for _ in 0..at + 2 {
        parser.next_token();
    }
    Some(
        parser
            .parse_comma_separated(Parser::parse_expr)
            .map(|values| {
                Statement::Set(Set::SingleAssignment {
                    scope,
                    hivevar: false,
                    variable: ObjectName::from(vec![Ident::new("role")]),
                    values,
                })
            }),
    )
}
