//! `a [NOT] BETWEEN SYMMETRIC b AND c` and `BETWEEN ASYMMETRIC`, which
//! sqlparser does not read: parsed by folio's dialect (`dialect.rs`
//! `parse_infix`) into the expression PostgreSQL's parser makes of them
//! (`transformAExprBetween`), so binding, EXPLAIN and NULLs follow:
//!
//! - `a BETWEEN SYMMETRIC b AND c` is `(a BETWEEN b AND c) OR (a BETWEEN c
//!   AND b)`: true when `a` lies between the two bounds in either order;
//! - `a NOT BETWEEN SYMMETRIC b AND c` is `(a NOT BETWEEN b AND c) AND (a
//!   NOT BETWEEN c AND b)`;
//! - `ASYMMETRIC` is the plain `BETWEEN` (the default).
//!
//! A NULL operand gives what the OR (AND) of the two gives, which is
//! NULL: each side compares with it (`5 BETWEEN SYMMETRIC NULL AND 3` is
//! NULL, as PostgreSQL's, where plain `5 BETWEEN NULL AND 3` is false).

use sqlparser::ast::{BinaryOperator, Expr};
use sqlparser::dialect::{Dialect, PostgreSqlDialect, Precedence};
use sqlparser::keywords::Keyword;
use sqlparser::parser::{Parser, ParserError};
use sqlparser::tokenizer::Token;

/// The `[NOT] BETWEEN {SYMMETRIC | ASYMMETRIC} low AND high` that
/// follows `expr`, if the next tokens are one; `None` leaves the tokens to
/// sqlparser.
pub(crate) fn parse(parser: &mut Parser, expr: &Expr) -> Option<Result<Expr, ParserError>> {
    let is = |t: &Token, k: Keyword| matches!(t, Token::Word(w) if w.keyword == k);
    let [first, second, third] = parser.peek_tokens::<3>();
    let negated = is(&first, Keyword::NOT);
    let (between, word) = match negated {
        true => (second, third),
        false => (first, second),
    };
    let symmetric = match () {
        _ if !is(&between, Keyword::BETWEEN) => return None,
        _ if is(&word, Keyword::SYMMETRIC) => true,
        _ if is(&word, Keyword::ASYMMETRIC) => false,
        _ => return None,
    };
    Some(bounds(parser, expr, negated, symmetric))
}

/// Reads `[NOT] BETWEEN [A]SYMMETRIC low AND high` (known to be next).
fn bounds(
    parser: &mut Parser,
    expr: &Expr,
    negated: bool,
    symmetric: bool,
) -> Result<Expr, ParserError> {
    let skipped = 2 + usize::from(negated);
    for _ in 0..skipped {
        parser.next_token();
    }
    let precedence = PostgreSqlDialect {}.prec_value(Precedence::Between);
    let low = parser.parse_subexpr(precedence)?;
    parser.expect_keyword_is(Keyword::AND)?;
    let high = parser.parse_subexpr(precedence)?;
    let between = |low: &Expr, high: &Expr| Expr::Between {
        expr: Box::new(expr.clone()),
        negated,
        low: Box::new(low.clone()),
        high: Box::new(high.clone()),
    };
    if !symmetric {
        return Ok(between(&low, &high));
    }
    let nested = |e: Expr| Box::new(Expr::Nested(Box::new(e)));
    Ok(Expr::Nested(Box::new(Expr::BinaryOp {
        left: nested(between(&low, &high)),
        op: match negated {
            true => BinaryOperator::And,
            false => BinaryOperator::Or,
        },
        right: nested(between(&high, &low)),
    })))
}

#[cfg(test)]
mod tests {
    use sqlparser::parser::Parser;

    // Proves SYMMETRIC reads as the OR (NOT: the AND) of both orders of
    // the bounds, ASYMMETRIC as the plain BETWEEN, and that the bounds
    // stop at the AND of a condition after them.
    #[test]
    fn symmetric_is_both_orders() {
        for (sql, read) in [
            (
                "SELECT a BETWEEN SYMMETRIC 10 AND 1",
                "SELECT ((a BETWEEN 10 AND 1) OR (a BETWEEN 1 AND 10))",
            ),
            (
                "SELECT a NOT BETWEEN SYMMETRIC b + 1 AND c",
                "SELECT ((a NOT BETWEEN b + 1 AND c) AND (a NOT BETWEEN c AND b + 1))",
            ),
            (
                "SELECT a BETWEEN ASYMMETRIC 1 AND 2 AND b",
                "SELECT a BETWEEN 1 AND 2 AND b",
            ),
            ("SELECT a BETWEEN 1 AND 2", "SELECT a BETWEEN 1 AND 2"),
        ] {
            let parsed = Parser::parse_sql(&crate::dialect::Folio, sql).unwrap();
            assert_eq!(parsed[0].to_string(), read, "{sql}");
        }
    }
}
