//! `expr COLLATE name` after an operator's operand that is no plain
//! prefix (`x::text COLLATE "C"`, `t.a[1] COLLATE "C"`): sqlparser reads
//! COLLATE only right after a prefix expression, though its PostgreSQL
//! dialect ranks the word as an infix operator (below `::` and `[]`), so
//! without this the word is a syntax error there. Folio's dialect
//! (`dialect.rs`) reads it here.

use sqlparser::ast::Expr;
use sqlparser::keywords::Keyword;
use sqlparser::parser::{Parser, ParserError};
use sqlparser::tokenizer::Token;

/// `expr COLLATE name`, when the word `COLLATE` is next.
pub(crate) fn parse(parser: &mut Parser, expr: &Expr) -> Option<Result<Expr, ParserError>> {
    if !matches!(&parser.peek_token().token, Token::Word(w) if w.keyword == Keyword::COLLATE) {
        return None;
    }
    parser.next_token();
    Some(
        parser
            .parse_object_name(false)
            .map(|collation| Expr::Collate {
                expr: Box::new(expr.clone()),
                collation,
            }),
    )
}
