//! `(VALUES ...)` as an expression: a scalar subquery whose query is a
//! VALUES list, as PostgreSQL's grammar takes any parenthesized query
//! there (`SELECT (VALUES (1))`). sqlparser starts an expression's
//! subquery only at SELECT or WITH and reads `VALUES(1)` as a call of a
//! function `values` (42883 here before). [`parse`] is called by the
//! dialect's prefix hook (`dialect.rs`) before sqlparser's own rules.
//!
//! The list is given as the SELECTs it means (`SELECT e1 AS column1,
//! ...`, rows joined by UNION ALL; its ORDER BY and LIMIT kept), so the
//! subquery is named by its first column (`column1`) and may read the
//! outer query's columns as any scalar subquery does. (A type mismatch
//! between rows is so reported as UNION's, not VALUES'.)

use sqlparser::ast::{Expr, Ident, Query, SelectItem, SetExpr, SetOperator, SetQuantifier};
use sqlparser::keywords::Keyword;
use sqlparser::parser::{Parser, ParserError};
use sqlparser::tokenizer::Token;

/// `( VALUES ... )` next: the subquery; else `None` (left to sqlparser).
pub(crate) fn parse(parser: &mut Parser) -> Option<Result<Expr, ParserError>> {
    let [open, values] = parser.peek_tokens::<2>();
    if open != Token::LParen || !matches!(&values, Token::Word(w) if w.keyword == Keyword::VALUES) {
        return None;
    }
    parser.next_token();
    Some(parser.parse_query().and_then(|mut query| {
        parser.expect_token(&Token::RParen)?;
        as_selects(&mut query)?;
        Ok(Expr::Subquery(query))
    }))
}

/// `query`'s VALUES body as the UNION ALL of one SELECT a row.
fn as_selects(query: &mut Query) -> Result<(), ParserError> {
    let SetExpr::Values(values) = query.body.as_ref() else {
        return Ok(());
    };
    let template = match Parser::new(&sqlparser::dialect::PostgreSqlDialect {})
        .try_with_sql("SELECT 1")?
        .parse_query()?
        .body
        .as_ref()
    {
        SetExpr::Select(select) => select.clone(),
        _ => return Ok(()),
    };
    let selects = values.rows.iter().map(|row| {
        let mut select = template.clone();
        select.projection = (row.iter().enumerate())
            .map(|(i, e)| SelectItem::ExprWithAlias {
                expr: e.clone(),
                alias: Ident::new(format!("column{}", i + 1)),
            })
            .collect();
        SetExpr::Select(select)
    });
    let body = selects.reduce(|left, right| SetExpr::SetOperation {
        op: SetOperator::Union,
        set_quantifier: SetQuantifier::All,
        left: Box::new(left),
        right: Box::new(right),
    });
    if let Some(body) = body {
        *query.body = body;
    }
    Ok(())
}
