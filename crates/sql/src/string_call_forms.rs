//! PostgreSQL's expression forms around strings that sqlparser does not
//! read, parsed by folio's dialect (`dialect.rs` `parse_prefix`) into the
//! expressions sqlparser makes of their other spellings, so binding,
//! deparsing and column names follow:
//!
//! - `TRIM([BOTH | LEADING | TRAILING] FROM x)`: spaces trimmed, as
//!   `TRIM([BOTH | ...] x)`;
//! - `SUBSTRING(x SIMILAR pattern ESCAPE escape)` (SQL:2003): as
//!   `SUBSTRING(x FROM pattern FOR escape)`, its SQL:1999 spelling, which
//!   binds to the SQL regular expression substring when the pattern is
//!   text (`regex_functions::similar_substring`);
//! - `type 'string'` for a type sqlparser knows no name of (`name 'x'`, a
//!   user's enum): `'string'::type`, as PostgreSQL reads any type name
//!   before a string constant (sqlparser refuses custom names there, for
//!   fear of taking `NOT 'a'` as one; a word PostgreSQL reserves is no
//!   type name here either);
//! - `INTERVAL(p) 'string'`: `'string'::interval(p)` (sqlparser reads it
//!   as an interval literal and drops the precision).

use crate::keywords;
use sqlparser::ast::{CastKind, DataType, Expr, TrimWhereField};
use sqlparser::dialect::{Dialect, PostgreSqlDialect, Precedence};
use sqlparser::keywords::Keyword;
use sqlparser::parser::{Parser, ParserError};
use sqlparser::tokenizer::Token;

/// The expression the next tokens begin, if they are one of the forms
/// above; `None` leaves them to sqlparser.
pub(crate) fn parse(parser: &mut Parser) -> Option<Result<Expr, ParserError>> {
    let is = |t: &Token, k: Keyword| matches!(t, Token::Word(w) if w.keyword == k);
    let [first, second, third, fourth] = parser.peek_tokens::<4>();
    if second != Token::LParen {
        return typed_literal(parser, &first, &second);
    }
    if is(&first, Keyword::TRIM) {
        let sides = [Keyword::BOTH, Keyword::LEADING, Keyword::TRAILING];
        let side = sides.iter().any(|&k| is(&third, k));
        if is(&third, Keyword::FROM) || (side && is(&fourth, Keyword::FROM)) {
            return Some(trim_spaces(parser, side));
        }
    }
    if is(&first, Keyword::INTERVAL) {
        return precise_interval(parser).transpose();
    }
    if is(&first, Keyword::SUBSTRING) {
        return match parser.maybe_parse(similar_substring) {
            Ok(Some(expr)) => Some(Ok(expr)),
            Ok(None) => None,
            Err(e) => Some(Err(e)),
        };
    }
    None
}

/// `TRIM([side] FROM x)` (known to be next).
fn trim_spaces(parser: &mut Parser, side: bool) -> Result<Expr, ParserError> {
    parser.next_token();
    parser.next_token();
    let trim_where = match side {
        true => Some(parser.parse_trim_where()?),
        false => None,
    };
    parser.expect_keyword_is(Keyword::FROM)?;
    let expr = parser.parse_expr()?;
    parser.expect_token(&Token::RParen)?;
    Ok(Expr::Trim {
        expr: Box::new(expr),
        trim_where: Some(trim_where.unwrap_or(TrimWhereField::Both)),
        trim_what: None,
        trim_characters: None,
    })
}

/// `SUBSTRING(x SIMILAR pattern ESCAPE escape)`, or an error that makes
/// the caller leave the tokens to sqlparser.
fn similar_substring(parser: &mut Parser) -> Result<Expr, ParserError> {
    parser.next_token();
    parser.expect_token(&Token::LParen)?;
    // Operands bind tighter than SIMILAR, which would read as SIMILAR TO.
    let like = PostgreSqlDialect {}.prec_value(Precedence::Like);
    let expr = parser.parse_subexpr(like)?;
    parser.expect_keyword_is(Keyword::SIMILAR)?;
    let pattern = parser.parse_subexpr(like)?;
    parser.expect_keyword_is(Keyword::ESCAPE)?;
    let escape = parser.parse_expr()?;
    parser.expect_token(&Token::RParen)?;
    Ok(Expr::Substring {
        expr: Box::new(expr),
        substring_from: Some(Box::new(pattern)),
        substring_for: Some(Box::new(escape)),
        special: false,
        shorthand: false,
    })
}

/// `type 'string'` for a type name sqlparser does not know (see the
/// module comment).
fn typed_literal(
    parser: &mut Parser,
    first: &Token,
    second: &Token,
) -> Option<Result<Expr, ParserError>> {
    let Token::Word(word) = first else {
        return None;
    };
    if word.quote_style.is_none() && keywords::needs_quotes(&word.value.to_ascii_lowercase()) {
        return None;
    }
    if !matches!(
        second,
        Token::SingleQuotedString(_) | Token::EscapedStringLiteral(_)
    ) {
        return None;
    }
    let typed = parser.maybe_parse(|p| {
        let data_type = p.parse_data_type()?;
        if !matches!(data_type, DataType::Custom(..)) {
            // sqlparser's own typed literal.
            return p.expected("a custom type name", p.peek_token());
        }
        string_cast(p, data_type)
    });
    typed.transpose()
}

/// The string literal next in `p`, cast to `data_type` (a typed
/// literal's reading).
fn string_cast(p: &mut Parser, data_type: DataType) -> Result<Expr, ParserError> {
    let value = p.parse_value()?;
    Ok(Expr::Cast {
        kind: CastKind::DoubleColon,
        expr: Box::new(Expr::Value(value)),
        data_type,
        format: None,
    })
}

/// `INTERVAL(p) 'string'` (`INTERVAL` and `(` known to be next), as a
/// cast; `None` leaves anything else to sqlparser.
fn precise_interval(parser: &mut Parser) -> Result<Option<Expr>, ParserError> {
    parser.maybe_parse(|p| {
        let data_type = p.parse_data_type()?;
        if !matches!(
            data_type,
            DataType::Interval {
                fields: None,
                precision: Some(_)
            }
        ) {
            return p.expected("an interval precision", p.peek_token());
        }
        if !matches!(
            p.peek_token().token,
            Token::SingleQuotedString(_) | Token::EscapedStringLiteral(_)
        ) {
            return p.expected("a string", p.peek_token());
        }
        string_cast(p, data_type)
    })
}

#[cfg(test)]
mod tests {
    use sqlparser::parser::Parser;

    // Proves each form reads as its other spelling, and that what
    // sqlparser reads itself is left to it.
    #[test]
    fn forms_read_as_their_other_spellings() {
        for (sql, read) in [
            ("SELECT TRIM(BOTH FROM x)", "SELECT TRIM(BOTH x)"),
            (
                "SELECT TRIM(LEADING FROM ' a ')",
                "SELECT TRIM(LEADING ' a ')",
            ),
            ("SELECT TRIM(FROM x)", "SELECT TRIM(BOTH x)"),
            (
                "SELECT TRIM(BOTH 'x' FROM y)",
                "SELECT TRIM(BOTH 'x' FROM y)",
            ),
            (
                "SELECT SUBSTRING(a || b SIMILAR 'x#\"y#\"' ESCAPE '#')",
                "SELECT SUBSTRING(a || b FROM 'x#\"y#\"' FOR '#')",
            ),
            ("SELECT SUBSTRING(a FROM 2)", "SELECT SUBSTRING(a FROM 2)"),
            ("SELECT INTERVAL(2) '1.234'", "SELECT '1.234'::INTERVAL(2)"),
            (
                "SELECT CAST(name 'n' AS text)",
                "SELECT CAST('n'::name AS TEXT)",
            ),
            ("SELECT date '2020-01-02'", "SELECT DATE '2020-01-02'"),
            ("SELECT NOT 'a' LIKE 'b'", "SELECT NOT 'a' LIKE 'b'"),
        ] {
            let parsed = Parser::parse_sql(&crate::dialect::Folio, sql).unwrap();
            assert_eq!(parsed[0].to_string(), read, "{sql}");
        }
    }
}
