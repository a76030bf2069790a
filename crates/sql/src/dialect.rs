//! The SQL dialect folio parses with: sqlparser's PostgreSQL dialect,
//! wrapped (as sqlparser's own wrapped-dialect test does: `dialect()`
//! answers as PostgreSQL's, so every PostgreSQL rule of its parser holds)
//! to take PostgreSQL's bare column labels sqlparser refuses. sqlparser
//! never takes `end`, `view`, `select`, `lateral`, `analyze`, `explain`,
//! ... as a select item's alias without `AS`; PostgreSQL 15 takes every
//! word but those `keywords::bare_label` refuses. A word that needs `AS`
//! is still left to `bare_labels::check` (PostgreSQL's error position).
//! `MERGE` is parsed by `merge_syntax.rs` (PostgreSQL 15's clauses),
//! `BETWEEN SYMMETRIC` by `between_symmetric.rs`, the string forms
//! sqlparser lacks (`TRIM(BOTH FROM x)`, `SUBSTRING ... SIMILAR`, `name
//! 'x'`) by `string_call_forms.rs`; `U&` strings are left to
//! `string_literals.rs`.

use sqlparser::ast::Statement;
use sqlparser::dialect::{Dialect, PostgreSqlDialect, Precedence};
use sqlparser::keywords::{ALL_KEYWORDS, ALL_KEYWORDS_INDEX, Keyword, RESERVED_FOR_COLUMN_ALIAS};
use sqlparser::parser::{Parser, ParserError};
use std::any::TypeId;

const POSTGRES: PostgreSqlDialect = PostgreSqlDialect {};

/// sqlparser's PostgreSQL dialect, but for bare column labels.
#[derive(Debug, Default, Clone, Copy)]
pub struct Folio;

/// The keyword's word, lower case (`end`).
fn word(kw: &Keyword) -> Option<String> {
    let at = ALL_KEYWORDS_INDEX.iter().position(|k| k == kw)?;
    Some(ALL_KEYWORDS[at].to_ascii_lowercase())
}

impl Dialect for Folio {
    fn dialect(&self) -> TypeId {
        TypeId::of::<PostgreSqlDialect>()
    }

    /// A select item's alias: sqlparser's, and also each keyword
    /// sqlparser keeps from aliases that PostgreSQL takes bare.
    fn is_select_item_alias(&self, explicit: bool, kw: &Keyword, parser: &mut Parser) -> bool {
        explicit
            || POSTGRES.is_column_alias(kw, parser)
            || (RESERVED_FOR_COLUMN_ALIAS.contains(kw)
                && word(kw).is_some_and(|w| crate::keywords::bare_label(&w)))
    }

    /// `MERGE`: PostgreSQL 15's grammar (`merge_syntax.rs`); `SET ROLE TO
    /// r` (`set_role_syntax.rs`).
    fn parse_statement(&self, parser: &mut Parser) -> Option<Result<Statement, ParserError>> {
        if !parser.parse_keyword(Keyword::MERGE) {
            return crate::set_role_syntax::parse(parser);
        }
        Some(crate::merge_syntax::parse(parser))
    }

    fn identifier_quote_style(&self, identifier: &str) -> Option<char> {
        POSTGRES.identifier_quote_style(identifier)
    }

    fn is_delimited_identifier_start(&self, ch: char) -> bool {
        POSTGRES.is_delimited_identifier_start(ch)
    }

    fn is_identifier_start(&self, ch: char) -> bool {
        POSTGRES.is_identifier_start(ch)
    }

    fn is_identifier_part(&self, ch: char) -> bool {
        POSTGRES.is_identifier_part(ch)
    }

    /// Off: `U&'...'` reaches `string_literals.rs` as `U`, `&` and a
    /// plain string, which reads UESCAPE too (sqlparser's does not).
    fn supports_unicode_string_literal(&self) -> bool {
        false
    }

    /// `TRIM(BOTH FROM x)`, `SUBSTRING(x SIMILAR p ESCAPE e)`, `name 'x'`
    /// (`string_call_forms.rs`); `(VALUES ...)` as a scalar subquery
    /// (`values_sublink.rs`).
    fn parse_prefix(
        &self,
        parser: &mut Parser,
    ) -> Option<Result<sqlparser::ast::Expr, ParserError>> {
        crate::values_sublink::parse(parser).or_else(|| crate::string_call_forms::parse(parser))
    }

    fn is_custom_operator_part(&self, ch: char) -> bool {
        POSTGRES.is_custom_operator_part(ch)
    }

    /// `[NOT] BETWEEN SYMMETRIC` and `ASYMMETRIC` (`between_symmetric.rs`);
    /// `x ISNULL` (`isnull_operator.rs`); `x::t COLLATE c`
    /// (`collate_operator.rs`).
    fn parse_infix(
        &self,
        parser: &mut Parser,
        expr: &sqlparser::ast::Expr,
        _precedence: u8,
    ) -> Option<Result<sqlparser::ast::Expr, ParserError>> {
        crate::between_symmetric::parse(parser, expr)
            .or_else(|| crate::isnull_operator::parse(parser, expr))
            .or_else(|| crate::collate_operator::parse(parser, expr))
    }

    fn get_next_precedence(&self, parser: &Parser) -> Option<Result<u8, ParserError>> {
        // `:=` is no operator: it ends an expression (the name of a
        // named argument, `f(a := 1)`).
        if parser.peek_token().token == sqlparser::tokenizer::Token::Assignment {
            return Some(Ok(0));
        }
        if let Some(precedence) = crate::isnull_operator::precedence(parser) {
            return Some(Ok(precedence));
        }
        POSTGRES.get_next_precedence(parser)
    }

    fn supports_filter_during_aggregation(&self) -> bool {
        POSTGRES.supports_filter_during_aggregation()
    }

    fn supports_group_by_expr(&self) -> bool {
        POSTGRES.supports_group_by_expr()
    }

    fn prec_value(&self, prec: Precedence) -> u8 {
        POSTGRES.prec_value(prec)
    }

    fn allow_extract_custom(&self) -> bool {
        POSTGRES.allow_extract_custom()
    }

    fn allow_extract_single_quotes(&self) -> bool {
        POSTGRES.allow_extract_single_quotes()
    }

    fn supports_create_index_with_clause(&self) -> bool {
        POSTGRES.supports_create_index_with_clause()
    }

    fn supports_explain_with_utility_options(&self) -> bool {
        POSTGRES.supports_explain_with_utility_options()
    }

    fn supports_listen_notify(&self) -> bool {
        POSTGRES.supports_listen_notify()
    }

    fn supports_factorial_operator(&self) -> bool {
        POSTGRES.supports_factorial_operator()
    }

    fn supports_comment_on(&self) -> bool {
        POSTGRES.supports_comment_on()
    }

    fn supports_load_extension(&self) -> bool {
        POSTGRES.supports_load_extension()
    }

    fn supports_named_fn_args_with_colon_operator(&self) -> bool {
        POSTGRES.supports_named_fn_args_with_colon_operator()
    }

    /// `f(a := 1)`, PostgreSQL's older spelling of `f(a => 1)`.
    fn supports_named_fn_args_with_assignment_operator(&self) -> bool {
        true
    }

    fn supports_named_fn_args_with_expr_name(&self) -> bool {
        POSTGRES.supports_named_fn_args_with_expr_name()
    }

    fn supports_empty_projections(&self) -> bool {
        POSTGRES.supports_empty_projections()
    }

    fn supports_nested_comments(&self) -> bool {
        POSTGRES.supports_nested_comments()
    }

    fn supports_string_escape_constant(&self) -> bool {
        POSTGRES.supports_string_escape_constant()
    }

    fn supports_numeric_literal_underscores(&self) -> bool {
        POSTGRES.supports_numeric_literal_underscores()
    }

    fn supports_array_typedef_with_brackets(&self) -> bool {
        POSTGRES.supports_array_typedef_with_brackets()
    }

    fn supports_geometric_types(&self) -> bool {
        POSTGRES.supports_geometric_types()
    }

    fn supports_set_names(&self) -> bool {
        POSTGRES.supports_set_names()
    }

    fn supports_alter_column_type_using(&self) -> bool {
        POSTGRES.supports_alter_column_type_using()
    }

    fn supports_notnull_operator(&self) -> bool {
        POSTGRES.supports_notnull_operator()
    }

    fn supports_interval_options(&self) -> bool {
        POSTGRES.supports_interval_options()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Proves the words sqlparser refuses and PostgreSQL takes are select
    // item aliases here, and those that need AS (or end the list) are not.
    #[test]
    fn bare_labels_sqlparser_refused_are_aliases() {
        for (sql, alias) in [
            ("select 1 end", "end"),
            ("select 1 view", "view"),
            ("select 1 select", "select"),
            ("select a lateral from t", "lateral"),
        ] {
            let parsed = Parser::parse_sql(&Folio, sql).unwrap();
            assert!(
                parsed[0].to_string().contains(&format!(" AS {alias}")),
                "{sql}"
            );
        }
        for sql in [
            "select 1 from t",
            "select 1 union select 2",
            "select 1 limit 1",
        ] {
            assert!(Parser::parse_sql(&Folio, sql).is_ok(), "{sql}");
        }
    }
}
