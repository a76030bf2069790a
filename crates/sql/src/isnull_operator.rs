//! `x ISNULL`, PostgreSQL's postfix spelling of `x IS NULL`, which
//! sqlparser does not read (it reads `x NOTNULL`): folio's dialect
//! (`dialect.rs`) gives the word `IS`'s precedence and reads it here.

use sqlparser::ast::Expr;
use sqlparser::dialect::{Dialect, PostgreSqlDialect, Precedence};
use sqlparser::parser::{Parser, ParserError};
use sqlparser::tokenizer::Token;

/// Whether the next token is the unquoted word `isnull`.
fn next_is_isnull(parser: &Parser) -> bool {
    matches!(&parser.peek_token().token,
        Token::Word(w) if w.quote_style.is_none() && w.value.eq_ignore_ascii_case("isnull"))
}

/// `IS`'s precedence when `ISNULL` is next.
pub(crate) fn precedence(parser: &Parser) -> Option<u8> {
    next_is_isnull(parser).then(|| PostgreSqlDialect {}.prec_value(Precedence::Is))
}

/// `expr ISNULL` as `expr IS NULL`, when `ISNULL` is next.
pub(crate) fn parse(parser: &mut Parser, expr: &Expr) -> Option<Result<Expr, ParserError>> {
    if !next_is_isnull(parser) {
        return None;
    }
    parser.next_token();
    Some(Ok(Expr::IsNull(Box::new(expr.clone()))))
}
