//! Reading `jsonpath` text: PostgreSQL 15's grammar (`jsonpath_gram.y`)
//! by recursive descent, and its checks of where `@` and `last` may
//! stand.
//!
//! From loosest to tightest: `||`, `&&`, the comparisons (`==`, `!=`,
//! `<>`, `<`, `<=`, `>`, `>=`), `starts with` and `like_regex` (none
//! chains: `a == b == c` is an error), `+ -`, `* / %`, unary `+ -`, then
//! accessors (`.key`, `[...]`, `? (...)`, methods). Expressions and
//! predicates are kept apart as the grammar keeps them: the operands of
//! `&&`, `||`, `!` and a filter are predicates, those of the arithmetic
//! and comparison operators, `exists` and subscripts are expressions; a
//! parenthesized predicate followed by an accessor is an expression. A
//! misplaced one is a syntax error at the token where the grammar stops,
//! as bison reports it. A unary minus of a number is folded into the
//! number (`-1`), a unary plus dropped.
//!
//! `@` outside every filter is "@ is not allowed in root expressions",
//! `last` outside every subscript "LAST is allowed only in array
//! subscripts" (both 42601). `like_regex` flags are checked here; the
//! pattern itself is compiled by the SQL layer (it owns the regex engine).

use crate::error::RowError;
use crate::json::number_text;
use crate::jsonpath::{
    Accessor, BinaryOp, JsonPath, LAST_LEVEL, Method, PathExpr, RegexFlags, Subscript,
};
use crate::jsonpath_scan::{Keyword, Lexed, Scanner, Token, syntax_error};

/// Parses `jsonpath` text (PostgreSQL's `jsonpath_in`).
pub fn parse_jsonpath(text: &str) -> Result<JsonPath, RowError> {
    let mut scanner = Scanner::new(text);
    let current = scanner.next_token()?;
    if current.token == Token::End {
        return Err(RowError::InvalidText {
            type_name: "jsonpath".into(),
            text: text.into(),
        });
    }
    let mut parser = Parser { scanner, current };
    let strict = match parser.keyword() {
        Some(Keyword::Strict) => true,
        Some(Keyword::Lax) => false,
        _ => false,
    };
    if matches!(parser.keyword(), Some(Keyword::Strict | Keyword::Lax)) {
        parser.advance()?;
    }
    let (expr, _) = parser.or()?;
    if parser.current.token != Token::End {
        return Err(parser.error());
    }
    check_placement(&expr, 0, false)?;
    Ok(JsonPath { strict, expr })
}

/// An expression and whether it is a predicate.
type Parsed = (PathExpr, bool);

struct Parser<'a> {
    scanner: Scanner<'a>,
    current: Lexed,
}

impl Parser<'_> {
    fn advance(&mut self) -> Result<(), RowError> {
        self.current = self.scanner.next_token()?;
        Ok(())
    }

    /// A syntax error at the current token.
    fn error(&self) -> RowError {
        syntax_error("syntax error", self.current.near.as_deref())
    }

    fn is(&self, punct: &str) -> bool {
        matches!(self.current.token, Token::Punct(p) if p == punct)
    }

    fn keyword(&self) -> Option<Keyword> {
        match self.current.token {
            Token::Ident(_, keyword) => keyword,
            _ => None,
        }
    }

    fn expect(&mut self, punct: &str) -> Result<(), RowError> {
        if !self.is(punct) {
            return Err(self.error());
        }
        self.advance()
    }

    fn expect_keyword(&mut self, keyword: Keyword) -> Result<(), RowError> {
        if self.keyword() != Some(keyword) {
            return Err(self.error());
        }
        self.advance()
    }

    /// A predicate here, or a syntax error at the current token.
    fn predicate(&self, (e, predicate): Parsed) -> Result<PathExpr, RowError> {
        if predicate { Ok(e) } else { Err(self.error()) }
    }

    /// An expression here, or a syntax error at the current token.
    fn expression(&self, (e, predicate): Parsed) -> Result<PathExpr, RowError> {
        if predicate { Err(self.error()) } else { Ok(e) }
    }

    fn or(&mut self) -> Result<Parsed, RowError> {
        let mut left = self.and()?;
        while self.is("||") {
            let l = self.predicate(left)?;
            self.advance()?;
            let right = self.and()?;
            let r = self.predicate(right)?;
            left = (binary(BinaryOp::Or, l, r), true);
        }
        Ok(left)
    }

    fn and(&mut self) -> Result<Parsed, RowError> {
        let mut left = self.comparison()?;
        while self.is("&&") {
            let l = self.predicate(left)?;
            self.advance()?;
            let right = self.comparison()?;
            let r = self.predicate(right)?;
            left = (binary(BinaryOp::And, l, r), true);
        }
        Ok(left)
    }

    fn comparison(&mut self) -> Result<Parsed, RowError> {
        let left = self.additive()?;
        if left.1 {
            return Ok(left);
        }
        let op = match self.current.token {
            Token::Punct("==") => BinaryOp::Eq,
            Token::Punct("!=" | "<>") => BinaryOp::Ne,
            Token::Punct("<") => BinaryOp::Lt,
            Token::Punct("<=") => BinaryOp::Le,
            Token::Punct(">") => BinaryOp::Gt,
            Token::Punct(">=") => BinaryOp::Ge,
            _ => return self.string_predicate(left.0),
        };
        self.advance()?;
        let right = self.additive()?;
        let r = self.expression(right)?;
        Ok((binary(op, left.0, r), true))
    }

    /// `expr starts with "..."` / `$var`, `expr like_regex "..." [flag
    /// "..."]`, or `expr` itself.
    fn string_predicate(&mut self, left: PathExpr) -> Result<Parsed, RowError> {
        match self.keyword() {
            Some(Keyword::StartsP) => {
                self.advance()?;
                self.expect_keyword(Keyword::With)?;
                let prefix = match &self.current.token {
                    Token::String(s) => PathExpr::String(s.clone()),
                    Token::Variable(v) => PathExpr::Variable(v.clone()),
                    _ => return Err(self.error()),
                };
                self.advance()?;
                Ok((binary(BinaryOp::StartsWith, left, prefix), true))
            }
            Some(Keyword::LikeRegex) => {
                self.advance()?;
                let Token::String(pattern) = self.current.token.clone() else {
                    return Err(self.error());
                };
                self.advance()?;
                let mut flags = RegexFlags::default();
                if self.keyword() == Some(Keyword::Flag) {
                    self.advance()?;
                    let Token::String(letters) = self.current.token.clone() else {
                        return Err(self.error());
                    };
                    self.advance()?;
                    flags = regex_flags(&letters)?;
                }
                let expr = Box::new(left);
                Ok((
                    PathExpr::LikeRegex {
                        expr,
                        pattern,
                        flags,
                    },
                    true,
                ))
            }
            _ => Ok((left, false)),
        }
    }

    fn additive(&mut self) -> Result<Parsed, RowError> {
        let mut left = self.multiplicative()?;
        loop {
            let op = match self.current.token {
                Token::Punct("+") => BinaryOp::Add,
                Token::Punct("-") => BinaryOp::Sub,
                _ => return Ok(left),
            };
            let l = self.expression(left)?;
            self.advance()?;
            let right = self.multiplicative()?;
            let r = self.expression(right)?;
            left = (binary(op, l, r), false);
        }
    }

    fn multiplicative(&mut self) -> Result<Parsed, RowError> {
        let mut left = self.unary()?;
        loop {
            let op = match self.current.token {
                Token::Punct("*") => BinaryOp::Mul,
                Token::Punct("/") => BinaryOp::Div,
                Token::Punct("%") => BinaryOp::Mod,
                _ => return Ok(left),
            };
            let l = self.expression(left)?;
            self.advance()?;
            let right = self.unary()?;
            let r = self.expression(right)?;
            left = (binary(op, l, r), false);
        }
    }

    fn unary(&mut self) -> Result<Parsed, RowError> {
        let negate = match self.current.token {
            Token::Punct("+") => false,
            Token::Punct("-") => true,
            _ => return self.accessor_expr(),
        };
        self.advance()?;
        let operand = self.unary()?;
        let arg = self.expression(operand)?;
        Ok((fold_unary(negate, arg), false))
    }

    /// A primary and its accessors, or a delimited predicate.
    fn accessor_expr(&mut self) -> Result<Parsed, RowError> {
        let primary = match self.current.token.clone() {
            Token::Punct("$") => PathExpr::Root,
            Token::Punct("@") => PathExpr::Current,
            Token::Variable(name) => PathExpr::Variable(name),
            Token::String(s) => PathExpr::String(s),
            Token::Int(n) | Token::Numeric(n) => PathExpr::Number(number_text(&n)?),
            Token::Ident(_, Some(Keyword::Null)) => PathExpr::Null,
            Token::Ident(_, Some(Keyword::True)) => PathExpr::Bool(true),
            Token::Ident(_, Some(Keyword::False)) => PathExpr::Bool(false),
            Token::Ident(_, Some(Keyword::Last)) => PathExpr::Last,
            Token::Punct("(") => return self.parenthesized(),
            Token::Punct("!") => {
                self.advance()?;
                let arg = if self.keyword() == Some(Keyword::Exists) {
                    self.exists()?
                } else {
                    self.expect("(")?;
                    let inner = self.or()?;
                    let p = self.predicate(inner)?;
                    self.expect(")")?;
                    p
                };
                return Ok((PathExpr::Not(Box::new(arg)), true));
            }
            Token::Ident(_, Some(Keyword::Exists)) => return Ok((self.exists()?, true)),
            _ => return Err(self.error()),
        };
        self.advance()?;
        Ok((self.accessors(primary)?, false))
    }

    /// `exists (expr)`, at `exists`.
    fn exists(&mut self) -> Result<PathExpr, RowError> {
        self.advance()?;
        self.expect("(")?;
        let inner = self.or()?;
        let e = self.expression(inner)?;
        self.expect(")")?;
        Ok(PathExpr::Exists(Box::new(e)))
    }

    /// `( ... )`, then accessors or `is unknown`.
    fn parenthesized(&mut self) -> Result<Parsed, RowError> {
        self.advance()?;
        let (inner, predicate) = self.or()?;
        self.expect(")")?;
        if self.at_accessor() {
            return Ok((self.accessors(inner)?, false));
        }
        if predicate && self.keyword() == Some(Keyword::Is) {
            self.advance()?;
            self.expect_keyword(Keyword::Unknown)?;
            return Ok((PathExpr::IsUnknown(Box::new(inner)), true));
        }
        Ok((inner, predicate))
    }

    fn at_accessor(&self) -> bool {
        self.is(".") || self.is("[") || self.is("?")
    }

    /// `e` followed by the accessors written after it.
    fn accessors(&mut self, mut e: PathExpr) -> Result<PathExpr, RowError> {
        while self.at_accessor() {
            let accessor = if self.is(".") {
                self.advance()?;
                self.dot_accessor()?
            } else if self.is("[") {
                self.advance()?;
                self.subscripts()?
            } else {
                self.advance()?;
                self.expect("(")?;
                let inner = self.or()?;
                let p = self.predicate(inner)?;
                self.expect(")")?;
                Accessor::Filter(Box::new(p))
            };
            e = e.then(accessor);
        }
        Ok(e)
    }

    /// What follows a `.`: a key, `*`, `**`, a method.
    fn dot_accessor(&mut self) -> Result<Accessor, RowError> {
        match self.current.token.clone() {
            Token::Punct("*") => {
                self.advance()?;
                Ok(Accessor::AnyKey)
            }
            Token::Punct("**") => {
                self.advance()?;
                if !self.is("{") {
                    return Ok(Accessor::Any {
                        first: 0,
                        last: LAST_LEVEL,
                    });
                }
                self.advance()?;
                let first = self.level()?;
                let last = if self.keyword() == Some(Keyword::To) {
                    self.advance()?;
                    self.level()?
                } else {
                    first
                };
                self.expect("}")?;
                Ok(Accessor::Any { first, last })
            }
            Token::String(key) => {
                self.advance()?;
                Ok(Accessor::Key(key))
            }
            Token::Ident(key, keyword) => {
                self.advance()?;
                if !self.is("(") {
                    return Ok(Accessor::Key(key));
                }
                let method = match keyword {
                    Some(Keyword::Abs) => Method::Abs,
                    Some(Keyword::Size) => Method::Size,
                    Some(Keyword::Type) => Method::Type,
                    Some(Keyword::Floor) => Method::Floor,
                    Some(Keyword::Double) => Method::Double,
                    Some(Keyword::Ceiling) => Method::Ceiling,
                    Some(Keyword::KeyValue) => Method::KeyValue,
                    Some(Keyword::Datetime) => {
                        self.advance()?;
                        let template = match self.current.token.clone() {
                            Token::String(t) => {
                                self.advance()?;
                                Some(t)
                            }
                            _ => None,
                        };
                        self.expect(")")?;
                        return Ok(Accessor::Datetime(template));
                    }
                    _ => return Ok(Accessor::Key(key)),
                };
                self.advance()?;
                self.expect(")")?;
                Ok(Accessor::Method(method))
            }
            _ => Err(self.error()),
        }
    }

    /// `[*]` or `[a, b to c, ...]`, after the `[`.
    fn subscripts(&mut self) -> Result<Accessor, RowError> {
        if self.is("*") {
            self.advance()?;
            self.expect("]")?;
            return Ok(Accessor::AnyArray);
        }
        let mut subscripts = Vec::new();
        loop {
            let from = self.subscript_expr()?;
            let to = if self.keyword() == Some(Keyword::To) {
                self.advance()?;
                Some(self.subscript_expr()?)
            } else {
                None
            };
            subscripts.push(Subscript { from, to });
            if self.is(",") {
                self.advance()?;
                continue;
            }
            self.expect("]")?;
            return Ok(Accessor::Subscripts(subscripts));
        }
    }

    fn subscript_expr(&mut self) -> Result<PathExpr, RowError> {
        let parsed = self.additive()?;
        self.expression(parsed)
    }

    /// A level of `**{...}`: an integer or `last`.
    fn level(&mut self) -> Result<u32, RowError> {
        let level = match &self.current.token {
            Token::Int(n) => match n.parse::<i32>() {
                Ok(n) => n as u32,
                Err(_) => {
                    return Err(RowError::OutOfRange {
                        type_name: "integer".into(),
                        text: n.clone(),
                    });
                }
            },
            Token::Ident(_, Some(Keyword::Last)) => LAST_LEVEL,
            _ => return Err(self.error()),
        };
        self.advance()?;
        Ok(level)
    }
}

fn binary(op: BinaryOp, left: PathExpr, right: PathExpr) -> PathExpr {
    PathExpr::Binary(op, Box::new(left), Box::new(right))
}

/// A unary operator of `arg`: of a number, the number (PostgreSQL's
/// `makeItemUnary`; minus of a zero is the zero).
fn fold_unary(negate: bool, arg: PathExpr) -> PathExpr {
    match arg {
        PathExpr::Number(n) if !negate => PathExpr::Number(n),
        PathExpr::Number(n) => PathExpr::Number(match n.strip_prefix('-') {
            Some(positive) => positive.to_string(),
            None if n.bytes().all(|b| matches!(b, b'0' | b'.')) => n,
            None => format!("-{n}"),
        }),
        arg => PathExpr::Unary {
            negate,
            arg: Box::new(arg),
        },
    }
}

/// The flags of `like_regex ... flag "letters"`.
fn regex_flags(letters: &str) -> Result<RegexFlags, RowError> {
    let mut flags = RegexFlags::default();
    for c in letters.chars() {
        match RegexFlags::LETTERS.iter().find(|(_, letter)| *letter == c) {
            Some((flag, _)) => flags.insert(*flag),
            None => {
                return Err(RowError::JsonPathInvalid {
                    syntax: true,
                    detail: format!("Unrecognized flag character \"{c}\" in LIKE_REGEX predicate."),
                });
            }
        }
    }
    // `q` (the pattern as a literal string) makes `x` moot.
    if flags.contains(RegexFlags::EXPANDED) && !flags.contains(RegexFlags::QUOTE) {
        return Err(RowError::Unsupported(
            "XQuery \"x\" flag (expanded regular expressions) is not implemented".into(),
        ));
    }
    Ok(flags)
}

/// PostgreSQL's checks of `@` (only inside a filter: `filters` deep) and
/// `last` (only inside a subscript).
fn check_placement(e: &PathExpr, filters: u32, in_subscript: bool) -> Result<(), RowError> {
    let check = |e: &PathExpr| check_placement(e, filters, in_subscript);
    match e {
        PathExpr::Current if filters == 0 => Err(RowError::JsonPathSyntax(
            "@ is not allowed in root expressions".into(),
        )),
        PathExpr::Last if !in_subscript => Err(RowError::JsonPathSyntax(
            "LAST is allowed only in array subscripts".into(),
        )),
        PathExpr::Binary(_, l, r) => {
            check(l)?;
            check(r)
        }
        PathExpr::Unary { arg, .. }
        | PathExpr::Not(arg)
        | PathExpr::IsUnknown(arg)
        | PathExpr::Exists(arg)
        | PathExpr::LikeRegex { expr: arg, .. } => check(arg),
        PathExpr::Chain(head, accessors) => {
            check(head)?;
            for accessor in accessors {
                match accessor {
                    Accessor::Filter(p) => check_placement(p, filters + 1, in_subscript)?,
                    Accessor::Subscripts(subscripts) => {
                        for s in subscripts {
                            check_placement(&s.from, filters, true)?;
                            if let Some(to) = &s.to {
                                check_placement(to, filters, true)?;
                            }
                        }
                    }
                    _ => {}
                }
            }
            Ok(())
        }
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::jsonpath_text::{path_text, stored_text};

    // Proves the parser and printer together: each input prints as
    // PostgreSQL 15 prints it (jsonpath.sql's answers), and the stored
    // text reads back as the same path.
    #[test]
    fn paths_print_as_postgresql_prints_them() {
        for (input, printed) in [
            ("$", "$"),
            ("strict $", "strict $"),
            ("lax $", "$"),
            ("$.a", "$.\"a\""),
            ("$.a.*", "$.\"a\".*"),
            ("$[*][0].a.b", "$[*][0].\"a\".\"b\""),
            ("$.a.**{2 to 2}.b", "$.\"a\".**{2}.\"b\""),
            ("$.a.**{5 to last}.b", "$.\"a\".**{5 to last}.\"b\""),
            ("$.a.**{last}.b", "$.\"a\".**{last}.\"b\""),
            ("$--+1", "($ - -1)"),
            ("$.a/+-1", "($.\"a\" / -1)"),
            ("1 * 2 + 4 % -3 != false", "(1 * 2 + 4 % -3 != false)"),
            (
                "\"\\b\\f\\r\\n\\t\\v\\\"'\\\\\"",
                "\"\\b\\f\\r\\n\\t\\u000b\\\"'\\\\\"",
            ),
            ("\"\\x50\\u0067\\u{53}\\u{051}\\u{00004C}\"", "\"PgSQL\""),
            (
                "$.g ? (@.a == 1 || !(@.x >= 123 || @.a == 4) && @.b == 7)",
                "$.\"g\"?(@.\"a\" == 1 || !(@.\"x\" >= 123 || @.\"a\" == 4) && @.\"b\" == 7)",
            ),
            (
                "$.g ? ((@.x >= 123 || @.a == 4) is unknown)",
                "$.\"g\"?((@.\"x\" >= 123 || @.\"a\" == 4) is unknown)",
            ),
            (
                "$.g ? (+@.x >= +-(+@.a + 2))",
                "$.\"g\"?(+@.\"x\" >= +(-(+@.\"a\" + 2)))",
            ),
            (
                "$.a[$a + 1, ($b[*]) to -($[0] * 2)]",
                "$.\"a\"[$\"a\" + 1,$\"b\"[*] to -($[0] * 2)]",
            ),
            ("$[$[0] ? (last > 0)]", "$[$[0]?(last > 0)]"),
            ("1.2.type()", "(1.2).type()"),
            ("$.keyvalue().key", "$.keyvalue().\"key\""),
            ("$.datetime(\"x\")", "$.datetime(\"x\")"),
            ("$ ? (@ starts with $var)", "$?(@ starts with $\"var\")"),
            (
                "$ ? (@ like_regex \"p\" flag \"smixq\")",
                "$?(@ like_regex \"p\" flag \"ismxq\")",
            ),
            (
                "($ < 1) || $.a.b <= $x",
                "($ < 1 || $.\"a\".\"b\" <= $\"x\")",
            ),
            ("(-+$.a.b).c.d", "(-(+$.\"a\".\"b\")).\"c\".\"d\""),
            (
                "1 + ($.a.b > 2).c.d",
                "(1 + ($.\"a\".\"b\" > 2).\"c\".\"d\")",
            ),
            (
                "((($ + 1)).a + ((2)).b ? ((((@ > 1)) || (exists(@.c)))))",
                "(($ + 1).\"a\" + (2).\"b\"?(@ > 1 || exists (@.\"c\")))",
            ),
            ("$ ? (@.a < -.1e-1)", "$?(@.\"a\" < -0.01)"),
            ("0.0010e-1", "0.00010"),
            ("0.000e3", "0"),
            ("1.", "1"),
            (".001e1", "0.01"),
            ("1..e3", "(1).\"e3\""),
            ("1?(2>3)", "(1)?(2 > 3)"),
            ("-0.0", "0.0"),
            ("1 + ($.a * 2).c", "(1 + $.\"a\" * 2.\"c\")"),
            ("1 + 2 like_regex \"x\"", "((1 + 2) like_regex \"x\")"),
            ("STRICT $.NULL.True", "strict $.\"NULL\".\"True\""),
            ("$ a/*x*/", "$"),
        ] {
            let path = parse_jsonpath(input).unwrap_or_else(|e| panic!("{input}: {e}"));
            assert_eq!(path_text(&path), printed, "{input}");
            let again = parse_jsonpath(&stored_text(&path)).expect("stored text reads back");
            assert_eq!(again, path, "{input}");
        }
    }

    // Proves PostgreSQL's errors: the message (with the token it quotes)
    // and the SQLSTATE.
    #[test]
    fn bad_paths_fail_as_in_postgresql() {
        for (input, message, sqlstate) in [
            ("", "invalid input syntax for type jsonpath: \"\"", "22P02"),
            ("last", "LAST is allowed only in array subscripts", "42601"),
            ("@ + 1", "@ is not allowed in root expressions", "42601"),
            (
                "1.type()",
                "trailing junk after numeric literal at or near \"1.t\" of jsonpath input",
                "42601",
            ),
            (
                "00",
                "trailing junk after numeric literal at or near \"00\" of jsonpath input",
                "42601",
            ),
            (
                "1.2e+",
                "invalid numeric literal at or near \"1.2e+\" of jsonpath input",
                "42601",
            ),
            (
                "$ a ",
                "syntax error at or near \" \" of jsonpath input",
                "42601",
            ),
            ("$ a.b", "syntax error at end of jsonpath input", "42601"),
            (
                "$ $a",
                "syntax error at or near \"$a\" of jsonpath input",
                "42601",
            ),
            (
                "$ \"x\"",
                "syntax error at or near \"\"\" of jsonpath input",
                "42601",
            ),
            (
                "$ == 1 == 2",
                "syntax error at or near \"==\" of jsonpath input",
                "42601",
            ),
            (
                "$.a ? (@)",
                "syntax error at or near \")\" of jsonpath input",
                "42601",
            ),
            (
                "($ == 1) + 2",
                "syntax error at or near \"+\" of jsonpath input",
                "42601",
            ),
            (
                "$.a.**{-1}",
                "syntax error at or near \"-\" of jsonpath input",
                "42601",
            ),
            (
                "\"\\u000g\"",
                "invalid unicode sequence at or near \"\\u000\" of jsonpath input",
                "42601",
            ),
            (
                "\"\\u0000\"",
                "unsupported Unicode escape sequence",
                "22P05",
            ),
            (
                "\"\\ud83dX\"",
                "invalid input syntax for type jsonpath",
                "22P02",
            ),
            (
                "$ ? (@ like_regex \"p\" flag \"a\")",
                "invalid input syntax for type jsonpath",
                "42601",
            ),
            (
                "$ ? (@ like_regex \"p\" flag \"xsms\")",
                "XQuery \"x\" flag (expanded regular expressions) is not implemented",
                "0A000",
            ),
            (
                "$.a.**{4294967296}",
                "value \"4294967296\" is out of range for type integer",
                "22003",
            ),
            (
                "$ /* x",
                "unexpected end of comment at end of jsonpath input",
                "42601",
            ),
        ] {
            let error = parse_jsonpath(input).expect_err(input);
            assert_eq!(error.to_string(), message, "{input}");
            assert_eq!(error.sqlstate(), sqlstate, "{input}");
        }
    }
}
