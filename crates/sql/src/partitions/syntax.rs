//! The partitioning clauses of CREATE TABLE and ALTER TABLE, read from
//! tokens (sqlparser reads neither): `PARTITION BY RANGE | LIST | HASH
//! (columns)`, `PARTITION OF parent FOR VALUES ... | DEFAULT`, and a
//! bound alone (the stored text, ATTACH PARTITION's).

use crate::error::SqlError;
use crate::names;
use sqlparser::ast::Expr;
use sqlparser::dialect::PostgreSqlDialect;
use sqlparser::tokenizer::{Token, TokenWithSpan, Tokenizer};

/// `PARTITION BY strategy (columns)` as written.
#[derive(Debug, Clone, PartialEq)]
pub struct KeySpec {
    /// PostgreSQL's `partstrat`: `r`, `l` or `h`.
    pub strategy: u8,
    pub parts: Vec<KeyPart>,
}

/// One part of a partition key as written.
#[derive(Debug, Clone, PartialEq)]
pub enum KeyPart {
    /// A column (also written `(column)`).
    Column(String),
    /// An expression: a function call, or any expression in parentheses.
    Expr(Box<Expr>),
}

/// One value of a range bound as written.
#[derive(Debug, Clone, PartialEq)]
pub enum EdgeSpec {
    Min,
    Max,
    Value(Box<Expr>),
}

/// `FOR VALUES ...` or `DEFAULT` as written.
#[derive(Debug, Clone, PartialEq)]
pub enum BoundSpec {
    Range {
        from: Vec<EdgeSpec>,
        to: Vec<EdgeSpec>,
    },
    List(Vec<Expr>),
    Hash {
        modulus: Box<Expr>,
        remainder: Box<Expr>,
    },
    Default,
}

/// `PARTITION OF parent bound`.
#[derive(Debug, Clone, PartialEq)]
pub struct OfSpec {
    pub parent: String,
    pub bound: BoundSpec,
    /// `PARTITION OF parent (element, ...)`: each element's tokens, a
    /// column's options (`b [WITH OPTIONS] DEFAULT 1 NOT NULL`) or a table
    /// constraint.
    pub elements: Vec<Vec<Token>>,
}

/// What a CREATE TABLE says of partitioning.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct TableSpec {
    pub by: Option<KeySpec>,
    pub of: Option<OfSpec>,
}

fn is_word(t: Option<&Token>, word: &str) -> bool {
    matches!(t, Some(Token::Word(w)) if w.quote_style.is_none() && w.value.eq_ignore_ascii_case(word))
}

fn near(t: Option<&Token>) -> SqlError {
    match t {
        Some(t) => SqlError::syntax(format!("syntax error at or near \"{t}\"")),
        None => SqlError::syntax("syntax error at end of input"),
    }
}

/// The position of `first second` outside parentheses.
fn find_pair(tokens: &[TokenWithSpan], first: &str, second: &str) -> Option<usize> {
    let mut depth = 0i32;
    for (i, t) in tokens.iter().enumerate() {
        match &t.token {
            Token::LParen => depth += 1,
            Token::RParen => depth -= 1,
            token
                if depth == 0
                    && is_word(Some(token), first)
                    && is_word(tokens.get(i + 1).map(|t| &t.token), second) =>
            {
                return Some(i);
            }
            _ => {}
        }
    }
    None
}

/// Takes the partitioning clauses out of a CREATE TABLE's `tokens`
/// (`PARTITION OF parent [(elements)] ... bound` becomes an empty column
/// list `()`, which the partition's creation fills with the parent's
/// columns and the elements: `ddl.rs` `columns_of`).
pub fn take_table_spec(tokens: &mut Vec<TokenWithSpan>) -> Result<Option<TableSpec>, SqlError> {
    let mut spec = TableSpec::default();
    if let Some(at) = find_pair(tokens, "partition", "of") {
        let plain: Vec<Token> = tokens[at + 2..].iter().map(|t| t.token.clone()).collect();
        let mut c = Cursor {
            tokens: &plain,
            at: 0,
        };
        let parent = c.name()?;
        let elements = match c.peek() == Some(&Token::LParen) {
            true => c.parenthesized()?,
            false => Vec::new(),
        };
        let bound = c.bound()?;
        let used = c.at;
        let span = tokens[at].span;
        tokens.splice(
            at..at + 2 + used,
            [Token::LParen, Token::RParen].map(|token| TokenWithSpan { token, span }),
        );
        spec.of = Some(OfSpec {
            parent,
            bound,
            elements,
        });
    }
    if let Some(at) = find_pair(tokens, "partition", "by") {
        let plain: Vec<Token> = tokens[at + 2..].iter().map(|t| t.token.clone()).collect();
        let mut c = Cursor {
            tokens: &plain,
            at: 0,
        };
        let strategy = match c.next() {
            Some(Token::Word(w)) => match w.value.to_ascii_lowercase().as_str() {
                "range" => crate::partitions::RANGE,
                "list" => crate::partitions::LIST,
                "hash" => crate::partitions::HASH,
                other => {
                    return Err(SqlError::new(
                        "22023",
                        format!("unrecognized partitioning strategy \"{other}\""),
                    ));
                }
            },
            other => return Err(near(other)),
        };
        let items = c.parenthesized()?;
        let mut parts = Vec::new();
        for item in items {
            parts.push(key_part(&item, strategy)?);
        }
        if strategy == crate::partitions::LIST && parts.len() > 1 {
            return Err(SqlError::new(
                "42P17",
                "cannot use \"list\" partition strategy with more than one column",
            ));
        }
        tokens.drain(at..at + 2 + c.at);
        spec.by = Some(KeySpec { strategy, parts });
    }
    Ok((spec.by.is_some() || spec.of.is_some()).then_some(spec))
}

/// One key part's tokens (`strategy`'s): a column, or an expression; an
/// operator class after it is one of the built-in defaults, else 42704.
fn key_part(item: &[Token], strategy: u8) -> Result<KeyPart, SqlError> {
    let mut item = item;
    if let [.., before, Token::Word(class)] = item
        && class.quote_style.is_none()
        && matches!(before, Token::Word(_) | Token::RParen)
    {
        if !DEFAULT_CLASSES.contains(&class.value.to_ascii_lowercase().as_str()) {
            let method = match strategy {
                crate::partitions::HASH => "hash",
                _ => "btree",
            };
            return Err(SqlError::new(
                "42704",
                format!(
                    "operator class \"{}\" does not exist for access method \"{method}\"",
                    class.value
                ),
            ));
        }
        item = &item[..item.len() - 1];
    }
    let e = expression(item)?;
    let inner = match &e {
        Expr::Nested(inner) => inner.as_ref(),
        e => e,
    };
    Ok(match inner {
        Expr::Identifier(id) => KeyPart::Column(names::ident(id)),
        Expr::Function(_) => KeyPart::Expr(Box::new(inner.clone())),
        _ if matches!(e, Expr::Nested(_)) => KeyPart::Expr(Box::new(inner.clone())),
        _ => return Err(near(item.get(1))),
    })
}

/// Operator classes a key part may name: the built-in default ones of
/// the key types folio partitions by.
const DEFAULT_CLASSES: &[&str] = &[
    "int2_ops",
    "int4_ops",
    "int8_ops",
    "integer_ops",
    "text_ops",
    "varchar_ops",
    "bpchar_ops",
    "bool_ops",
    "numeric_ops",
    "float4_ops",
    "float8_ops",
    "float_ops",
    "date_ops",
    "timestamp_ops",
    "timestamptz_ops",
];

/// A bound alone (`FOR VALUES ...` or `DEFAULT`), as stored.
pub fn bound_from_text(text: &str) -> Result<BoundSpec, SqlError> {
    let tokens: Vec<Token> = Tokenizer::new(&PostgreSqlDialect {}, text)
        .tokenize()
        .map_err(|e| SqlError::syntax(e.to_string()))?
        .into_iter()
        .filter(|t| !matches!(t, Token::Whitespace(_)))
        .collect();
    let mut c = Cursor {
        tokens: &tokens,
        at: 0,
    };
    let bound = c.bound()?;
    match c.peek() {
        None => Ok(bound),
        other => Err(near(other)),
    }
}

/// The parent, the child and the bound (`None`: detach) of an ATTACH or
/// DETACH PARTITION.
pub type AttachOrDetach = (String, String, Option<BoundSpec>);

/// `ALTER TABLE name ATTACH PARTITION child bound` and `ALTER TABLE name
/// DETACH PARTITION child` (after `ALTER TABLE`): the parent, the child
/// and the bound (`None`: detach). `None` for another ALTER TABLE.
pub fn attach_or_detach(tokens: &[Token]) -> Option<Result<AttachOrDetach, SqlError>> {
    let mut c = Cursor { tokens, at: 0 };
    let parent = c.name().ok()?;
    let attach = match c.next() {
        t if is_word(t, "attach") => true,
        t if is_word(t, "detach") => false,
        _ => return None,
    };
    if !is_word(c.next(), "partition") {
        return None;
    }
    Some((|| {
        let child = c.name()?;
        let bound = match attach {
            true => Some(c.bound()?),
            false => None,
        };
        match c.peek() {
            None => Ok((parent, child, bound)),
            other => Err(near(other)),
        }
    })())
}

struct Cursor<'t> {
    tokens: &'t [Token],
    at: usize,
}

impl Cursor<'_> {
    fn peek(&self) -> Option<&Token> {
        self.tokens.get(self.at)
    }

    fn next(&mut self) -> Option<&Token> {
        let t = self.tokens.get(self.at);
        self.at += 1;
        t
    }

    fn expect_word(&mut self, word: &str) -> Result<(), SqlError> {
        match self.peek() {
            t if is_word(t, word) => {
                self.at += 1;
                Ok(())
            }
            other => Err(near(other)),
        }
    }

    /// A possibly qualified name.
    fn name(&mut self) -> Result<String, SqlError> {
        let mut parts = Vec::new();
        loop {
            match self.next() {
                Some(Token::Word(w)) => parts.push(sqlparser::ast::ObjectNamePart::Identifier(
                    sqlparser::ast::Ident {
                        value: w.value.clone(),
                        quote_style: w.quote_style,
                        span: sqlparser::tokenizer::Span::empty(),
                    },
                )),
                other => return Err(near(other)),
            }
            if self.peek() != Some(&Token::Period) {
                break;
            }
            self.at += 1;
        }
        names::relation(&sqlparser::ast::ObjectName(parts))
    }

    /// `( item, ... )`: each item's tokens.
    fn parenthesized(&mut self) -> Result<Vec<Vec<Token>>, SqlError> {
        if self.peek() != Some(&Token::LParen) {
            return Err(near(self.peek()));
        }
        self.at += 1;
        let mut items = vec![Vec::new()];
        let mut depth = 0;
        loop {
            let t = self.next().cloned();
            match t {
                None => return Err(near(None)),
                Some(Token::RParen) if depth == 0 => break,
                Some(Token::Comma) if depth == 0 => items.push(Vec::new()),
                Some(t) => {
                    match t {
                        Token::LParen => depth += 1,
                        Token::RParen => depth -= 1,
                        _ => {}
                    }
                    items.last_mut().expect("one").push(t);
                }
            }
        }
        if items.iter().any(Vec::is_empty) {
            return Err(near(Some(&Token::RParen)));
        }
        Ok(items)
    }

    /// `FOR VALUES FROM (...) TO (...) | IN (...) | WITH (MODULUS m,
    /// REMAINDER r)` or `DEFAULT`.
    fn bound(&mut self) -> Result<BoundSpec, SqlError> {
        if is_word(self.peek(), "default") {
            self.at += 1;
            return Ok(BoundSpec::Default);
        }
        self.expect_word("for")?;
        self.expect_word("values")?;
        match self.next() {
            t if is_word(t, "from") => {
                let from = self.edges()?;
                self.expect_word("to")?;
                let to = self.edges()?;
                Ok(BoundSpec::Range { from, to })
            }
            t if is_word(t, "in") => Ok(BoundSpec::List(
                (self.parenthesized()?.iter())
                    .map(|item| expression(item.as_slice()))
                    .collect::<Result<_, _>>()?,
            )),
            t if is_word(t, "with") => {
                let items = self.parenthesized()?;
                let (mut modulus, mut remainder) = (None, None);
                for item in &items {
                    let (first, rest) = item.split_first().expect("not empty");
                    let value = expression(rest)?;
                    match first {
                        t if is_word(Some(t), "modulus") && modulus.is_none() => {
                            modulus = Some(value)
                        }
                        t if is_word(Some(t), "remainder") && remainder.is_none() => {
                            remainder = Some(value)
                        }
                        Token::Word(w)
                            if is_word(Some(first), "modulus")
                                || is_word(Some(first), "remainder") =>
                        {
                            return Err(SqlError::new(
                                "42601",
                                format!(
                                    "{} for hash partition provided more than once",
                                    w.value.to_ascii_lowercase()
                                ),
                            ));
                        }
                        Token::Word(w) => {
                            return Err(SqlError::new(
                                "42601",
                                format!(
                                    "unrecognized hash partition bound specification \"{}\"",
                                    w.value
                                ),
                            ));
                        }
                        other => return Err(near(Some(other))),
                    }
                }
                match (modulus, remainder) {
                    (Some(modulus), Some(remainder)) => Ok(BoundSpec::Hash {
                        modulus: Box::new(modulus),
                        remainder: Box::new(remainder),
                    }),
                    (None, _) => Err(SqlError::new(
                        "42601",
                        "modulus for hash partition must be specified",
                    )),
                    (_, None) => Err(SqlError::new(
                        "42601",
                        "remainder for hash partition must be specified",
                    )),
                }
            }
            other => Err(near(other)),
        }
    }

    /// A range bound's `(value | MINVALUE | MAXVALUE, ...)`.
    fn edges(&mut self) -> Result<Vec<EdgeSpec>, SqlError> {
        (self.parenthesized()?.iter())
            .map(|item| match item.as_slice() {
                [t] if is_word(Some(t), "minvalue") => Ok(EdgeSpec::Min),
                [t] if is_word(Some(t), "maxvalue") => Ok(EdgeSpec::Max),
                _ => expression(item).map(|e| EdgeSpec::Value(Box::new(e))),
            })
            .collect()
    }
}

/// An expression's tokens, parsed.
fn expression(tokens: &[Token]) -> Result<Expr, SqlError> {
    let text: Vec<String> = tokens.iter().map(|t| t.to_string()).collect();
    crate::parse::expression(&text.join(" "))
}
