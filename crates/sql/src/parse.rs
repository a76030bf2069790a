//! Statements from text. `sqlparser` parses most of them; the utility
//! statements it does not read in PostgreSQL's syntax (`VACUUM
//! [ANALYZE] t`, `ANALYZE t`, `COPY t FROM STDIN WITH (FREEZE ON)`) are
//! parsed here from its tokens. The text is split into statements at the
//! top-level semicolons of the token stream (a semicolon inside a string
//! or a quoted name is part of its token).

use crate::error::SqlError;
use crate::names;
use sqlparser::ast::{Ident, ObjectName, ObjectNamePart, Statement};
use sqlparser::dialect::PostgreSqlDialect;
use sqlparser::keywords::Keyword;
use sqlparser::parser::Parser;
use sqlparser::tokenizer::{Token, Tokenizer, Word};

/// One parsed statement.
#[derive(Debug, Clone, PartialEq)]
pub enum Parsed {
    Sql(Box<Statement>),
    Vacuum(Vacuum),
    Copy(Copy),
    /// `RESET name` or `RESET ALL` (`"all"`), the name lower case.
    Reset(String),
    /// `CHECKPOINT`.
    Checkpoint,
}

/// `VACUUM [FREEZE] [VERBOSE] [ANALYZE] [table, ...]`, `VACUUM (options)
/// [table, ...]`, `ANALYZE [VERBOSE] [table, ...]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Vacuum {
    /// Whether dead versions are removed (`VACUUM`; `ANALYZE` alone: no).
    pub vacuum: bool,
    /// The tables (none: every table).
    pub tables: Vec<String>,
}

/// `COPY table [(columns)] FROM STDIN [[WITH] (option [value], ...)]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Copy {
    pub table: String,
    pub columns: Vec<String>,
    /// `TO STDOUT` (else `FROM STDIN`).
    pub to_stdout: bool,
    pub delimiter: u8,
    pub null: String,
}

/// The statements of `sql`, in order (none for an empty text).
pub fn statements(sql: &str) -> Result<Vec<Parsed>, SqlError> {
    let dialect = PostgreSqlDialect {};
    let tokens = Tokenizer::new(&dialect, sql)
        .tokenize()
        .map_err(|e| SqlError::syntax(e.to_string()))?;
    let mut out = Vec::new();
    for statement in tokens.split(|t| *t == Token::SemiColon) {
        let tokens: Vec<Token> = statement
            .iter()
            .filter(|t| !matches!(t, Token::Whitespace(_)))
            .cloned()
            .collect();
        let Some(first) = tokens.first() else {
            continue;
        };
        let word = match first {
            Token::Word(w) if w.quote_style.is_none() => w.value.to_ascii_lowercase(),
            _ => String::new(),
        };
        if word == "checkpoint" {
            if tokens.len() > 1 {
                return Err(SqlError::syntax(format!(
                    "syntax error at or near \"{}\"",
                    tokens[1]
                )));
            }
            out.push(Parsed::Checkpoint);
            continue;
        }
        out.push(match keyword(first) {
            Some(Keyword::VACUUM) => Parsed::Vacuum(vacuum(&tokens[1..], true)?),
            Some(Keyword::ANALYZE) => Parsed::Vacuum(vacuum(&tokens[1..], false)?),
            Some(Keyword::COPY) => Parsed::Copy(copy(&tokens[1..])?),
            Some(Keyword::RESET) => {
                let mut c = Cursor {
                    tokens: &tokens[1..],
                    at: 0,
                };
                let name = c.ident()?.value.to_ascii_lowercase();
                c.end()?;
                Parsed::Reset(name)
            }
            _ => {
                let mut parser = Parser::new(&dialect).with_tokens(tokens);
                let parsed = parser
                    .parse_statement()
                    .map_err(|e| SqlError::syntax(e.to_string()))?;
                if parser.peek_token().token != Token::EOF {
                    return Err(SqlError::syntax(format!(
                        "syntax error at or near \"{}\"",
                        parser.peek_token().token
                    )));
                }
                Parsed::Sql(Box::new(parsed))
            }
        });
    }
    Ok(out)
}

/// One expression from text (a stored DEFAULT or CHECK expression).
pub fn expression(sql: &str) -> Result<sqlparser::ast::Expr, SqlError> {
    let dialect = PostgreSqlDialect {};
    let mut parser = Parser::new(&dialect)
        .try_with_sql(sql)
        .map_err(|e| SqlError::syntax(e.to_string()))?;
    let expr = parser
        .parse_expr()
        .map_err(|e| SqlError::syntax(e.to_string()))?;
    if parser.peek_token().token != Token::EOF {
        return Err(SqlError::syntax(format!(
            "syntax error at or near \"{}\"",
            parser.peek_token().token
        )));
    }
    Ok(expr)
}

fn keyword(token: &Token) -> Option<Keyword> {
    match token {
        Token::Word(Word {
            keyword,
            quote_style: None,
            ..
        }) => Some(*keyword),
        _ => None,
    }
}

fn near(token: Option<&Token>) -> SqlError {
    match token {
        Some(t) => SqlError::syntax(format!("syntax error at or near \"{t}\"")),
        None => SqlError::syntax("syntax error at end of input"),
    }
}

/// A cursor over a statement's tokens (whitespace removed).
struct Cursor<'t> {
    tokens: &'t [Token],
    at: usize,
}

impl<'t> Cursor<'t> {
    fn peek(&self) -> Option<&'t Token> {
        self.tokens.get(self.at)
    }

    fn next(&mut self) -> Option<&'t Token> {
        let t = self.tokens.get(self.at);
        self.at += 1;
        t
    }

    /// Takes the next token if it is `keyword`.
    fn take_keyword(&mut self, keyword: Keyword) -> bool {
        let found = self.peek().and_then(self::keyword) == Some(keyword);
        if found {
            self.at += 1;
        }
        found
    }

    fn take(&mut self, token: &Token) -> bool {
        let found = self.peek() == Some(token);
        if found {
            self.at += 1;
        }
        found
    }

    fn expect(&mut self, token: &Token) -> Result<(), SqlError> {
        if self.take(token) {
            Ok(())
        } else {
            Err(near(self.peek()))
        }
    }

    fn expect_keyword(&mut self, keyword: Keyword) -> Result<(), SqlError> {
        if self.take_keyword(keyword) {
            Ok(())
        } else {
            Err(near(self.peek()))
        }
    }

    /// A possibly qualified name (`t`, `public.t`).
    fn name(&mut self) -> Result<String, SqlError> {
        let mut parts = vec![self.ident()?];
        while self.take(&Token::Period) {
            parts.push(self.ident()?);
        }
        names::relation(&ObjectName(
            parts.into_iter().map(ObjectNamePart::Identifier).collect(),
        ))
    }

    fn ident(&mut self) -> Result<Ident, SqlError> {
        match self.next() {
            Some(Token::Word(w)) => Ok(match w.quote_style {
                Some(q) => Ident::with_quote(q, &w.value),
                None => Ident::new(&w.value),
            }),
            other => Err(near(other)),
        }
    }

    /// `a, b, ...` of names, up to the end.
    fn names_to_end(&mut self) -> Result<Vec<String>, SqlError> {
        let mut out = Vec::new();
        if self.peek().is_none() {
            return Ok(out);
        }
        loop {
            out.push(self.name()?);
            if !self.take(&Token::Comma) {
                break;
            }
        }
        self.end()?;
        Ok(out)
    }

    fn end(&self) -> Result<(), SqlError> {
        match self.peek() {
            None => Ok(()),
            other => Err(near(other)),
        }
    }

    /// An option's value: a word, a string or a number (`None` if the
    /// option has none).
    fn option_value(&mut self) -> Option<String> {
        match self.peek()? {
            Token::Word(w) => {
                self.at += 1;
                Some(w.value.clone())
            }
            Token::SingleQuotedString(s) | Token::Number(s, _) => {
                self.at += 1;
                Some(s.clone())
            }
            _ => None,
        }
    }
}

/// Whether a boolean option's value is true (no value: true).
fn boolean(name: &str, value: Option<&str>) -> Result<bool, SqlError> {
    match value.map(str::to_ascii_lowercase).as_deref() {
        None | Some("true" | "on" | "1") => Ok(true),
        Some("false" | "off" | "0") => Ok(false),
        Some(other) => Err(SqlError::new(
            "22023",
            format!("{name} requires a Boolean value, not \"{other}\""),
        )),
    }
}

/// The rest of `VACUUM` (`vacuum`) or `ANALYZE`. `FREEZE` asks for nothing
/// folio does not do anyway (its transaction ids never wrap: nothing is
/// ever frozen); `VERBOSE` prints nothing yet; `FULL` (rewriting the
/// table) is not supported.
fn vacuum(tokens: &[Token], vacuum: bool) -> Result<Vacuum, SqlError> {
    let mut c = Cursor { tokens, at: 0 };
    // ANALYZE gathers nothing yet (no planner statistics), so whether it
    // was asked for changes nothing: its options are read and checked.
    if c.take(&Token::LParen) {
        loop {
            let option = c.ident()?.value.to_ascii_lowercase();
            let value = c.option_value();
            let on = boolean(&option, value.as_deref())?;
            match option.as_str() {
                "analyze"
                | "freeze"
                | "verbose"
                | "skip_locked"
                | "index_cleanup"
                | "truncate"
                | "process_toast"
                | "disable_page_skipping" => {}
                "full" if !on => {}
                other => {
                    return Err(SqlError::unsupported(format!("the VACUUM option {other}")));
                }
            }
            if !c.take(&Token::Comma) {
                break;
            }
        }
        c.expect(&Token::RParen)?;
    } else {
        if vacuum && c.take_keyword(Keyword::FULL) {
            return Err(SqlError::unsupported("VACUUM FULL"));
        }
        if vacuum {
            c.take_keyword(Keyword::FREEZE);
        }
        c.take_keyword(Keyword::VERBOSE);
        if vacuum {
            c.take_keyword(Keyword::ANALYZE);
        }
    }
    Ok(Vacuum {
        vacuum,
        tables: c.names_to_end()?,
    })
}

/// The rest of `COPY`: `table [(columns)] FROM STDIN [[WITH] (options)]`
/// with options `FORMAT text`, `DELIMITER 'c'`, `NULL 'text'`, `FREEZE
/// [bool]` (nothing to do: folio never freezes). Other forms are 0A000.
fn copy(tokens: &[Token]) -> Result<Copy, SqlError> {
    let mut c = Cursor { tokens, at: 0 };
    let table = c.name()?;
    let mut columns = Vec::new();
    if c.take(&Token::LParen) {
        loop {
            columns.push(names::ident(&c.ident()?));
            if !c.take(&Token::Comma) {
                break;
            }
        }
        c.expect(&Token::RParen)?;
    }
    let to_stdout = if c.take_keyword(Keyword::TO) {
        if !c.take_keyword(Keyword::STDOUT) {
            return Err(SqlError::unsupported("COPY TO a file or program"));
        }
        true
    } else {
        c.expect_keyword(Keyword::FROM)?;
        if !c.take_keyword(Keyword::STDIN) {
            return Err(SqlError::unsupported("COPY FROM a file or program"));
        }
        false
    };
    let mut copy = Copy {
        table,
        columns,
        to_stdout,
        delimiter: b'\t',
        null: "\\N".into(),
    };
    c.take_keyword(Keyword::WITH);
    if c.take(&Token::LParen) {
        loop {
            let option = c.ident()?.value.to_ascii_lowercase();
            let value = c.option_value();
            match (option.as_str(), value.as_deref()) {
                ("format", Some(f)) if f.eq_ignore_ascii_case("text") => {}
                ("freeze", v) => {
                    boolean("freeze", v)?;
                }
                ("delimiter", Some(d)) if d.len() == 1 => copy.delimiter = d.as_bytes()[0],
                ("delimiter", _) => {
                    return Err(SqlError::new(
                        "0A000",
                        "COPY delimiter must be a single one-byte character",
                    ));
                }
                ("null", Some(n)) => copy.null = n.to_string(),
                (other, _) => {
                    return Err(SqlError::unsupported(format!("the COPY option {other}")));
                }
            }
            if !c.take(&Token::Comma) {
                break;
            }
        }
        c.expect(&Token::RParen)?;
    }
    c.end()?;
    Ok(copy)
}

#[cfg(test)]
mod tests {
    use super::*;

    // Proves the utility statements pgbench sends parse, statements split
    // at top-level semicolons only, and bad forms are errors.
    #[test]
    fn utility_statements_and_splitting() {
        let all = statements(
            "vacuum analyze pgbench_branches; ANALYZE; copy pgbench_accounts from stdin with (freeze on); select ';'",
        )
        .unwrap();
        assert_eq!(
            all[0],
            Parsed::Vacuum(Vacuum {
                vacuum: true,
                tables: vec!["pgbench_branches".into()]
            })
        );
        assert_eq!(
            all[1],
            Parsed::Vacuum(Vacuum {
                vacuum: false,
                tables: vec![]
            })
        );
        assert_eq!(
            all[2],
            Parsed::Copy(Copy {
                table: "pgbench_accounts".into(),
                columns: vec![],
                to_stdout: false,
                delimiter: b'\t',
                null: "\\N".into()
            })
        );
        assert!(matches!(all[3], Parsed::Sql(_)));
        assert_eq!(all.len(), 4);
        assert!(statements(" ; ").unwrap().is_empty());
        let copy =
            statements("COPY public.\"T\" (a, B) FROM STDIN (DELIMITER ',', NULL '')").unwrap();
        assert_eq!(
            copy[0],
            Parsed::Copy(Copy {
                table: "T".into(),
                columns: vec!["a".into(), "b".into()],
                to_stdout: false,
                delimiter: b',',
                null: String::new()
            })
        );
        assert_eq!(statements("vacuum full t").unwrap_err().code, "0A000");
        assert!(
            matches!(&statements("copy t to stdout").unwrap()[0], Parsed::Copy(c) if c.to_stdout)
        );
        assert_eq!(statements("copy t to '/tmp/x'").unwrap_err().code, "0A000");
        assert_eq!(
            statements("copy t from stdin (format csv)")
                .unwrap_err()
                .code,
            "0A000"
        );
        assert_eq!(statements("vacuum t u").unwrap_err().code, "42601");
        assert_eq!(statements("select 1 2").unwrap_err().code, "42601");
    }
}
