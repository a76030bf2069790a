//! The tokens of `jsonpath` text, as PostgreSQL 15's `jsonpath_scan.l`
//! reads them, one at a time as the parser asks (an error in text the
//! parser never reaches is not reported, as in PostgreSQL).
//!
//! - Blanks are space, tab, newline, carriage return and form feed;
//!   `/* ... */` is a comment.
//! - Special characters (`? % $ . [ ] { } ( ) | & ! = < > @ # , * : - + /`)
//!   are tokens alone or in the operators `&& || ** < <= == <> != >= >`.
//! - Any run of other characters (and backslash escapes) is an
//!   identifier, a keyword if it spells one: keywords ignore case but for
//!   `null`, `true` and `false`. An identifier written right before a
//!   comment is dropped (PostgreSQL's scanner forgets it).
//! - `"..."` is a string, `$name` and `$"..."` variables; strings,
//!   quoted variables and identifiers take the escapes `\b \f \n \r \t
//!   \v`, `\xHH`, `\uHHHH`, `\u{H...}` (surrogate pairs joined) and `\c`
//!   for any other `c`.
//! - Numbers are integers (`0` or a digit string not starting with `0`),
//!   decimals (`1.`, `.5`, `1.5`) and either with an exponent; a number
//!   followed by an identifier's character is "trailing junk".
//!
//! A token remembers the text PostgreSQL's error messages quote for it
//! (`at or near "..."`): for an identifier, the blanks that ended it, or
//! nothing (`at end of jsonpath input`) when a special character or the
//! end did.

use crate::error::RowError;

/// A keyword of the path language.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Keyword {
    Abs,
    Ceiling,
    Datetime,
    Double,
    Exists,
    False,
    Flag,
    Floor,
    Is,
    KeyValue,
    Last,
    Lax,
    LikeRegex,
    Null,
    Size,
    StartsP,
    Strict,
    To,
    True,
    Type,
    Unknown,
    With,
}

/// The keywords: their spelling, and whether only the lower case counts.
const KEYWORDS: &[(&str, Keyword, bool)] = &[
    ("abs", Keyword::Abs, false),
    ("ceiling", Keyword::Ceiling, false),
    ("datetime", Keyword::Datetime, false),
    ("double", Keyword::Double, false),
    ("exists", Keyword::Exists, false),
    ("false", Keyword::False, true),
    ("flag", Keyword::Flag, false),
    ("floor", Keyword::Floor, false),
    ("is", Keyword::Is, false),
    ("keyvalue", Keyword::KeyValue, false),
    ("last", Keyword::Last, false),
    ("lax", Keyword::Lax, false),
    ("like_regex", Keyword::LikeRegex, false),
    ("null", Keyword::Null, true),
    ("size", Keyword::Size, false),
    ("starts", Keyword::StartsP, false),
    ("strict", Keyword::Strict, false),
    ("to", Keyword::To, false),
    ("true", Keyword::True, true),
    ("type", Keyword::Type, false),
    ("unknown", Keyword::Unknown, false),
    ("with", Keyword::With, false),
];

/// A token.
#[derive(Debug, Clone, PartialEq)]
pub enum Token {
    End,
    /// An operator or special character (`"&&"`, `"."`, ...).
    Punct(&'static str),
    /// An identifier (its text after escapes) and the keyword it spells.
    Ident(String, Option<Keyword>),
    String(String),
    Variable(String),
    /// An integer's text.
    Int(String),
    /// A decimal's or a number with an exponent's text.
    Numeric(String),
}

/// A token and the text errors quote for it (`None`: "at end").
#[derive(Debug, Clone)]
pub struct Lexed {
    pub token: Token,
    pub near: Option<String>,
}

const OPERATORS: [&str; 11] = [
    "&&", "||", "**", "<=", "<>", "==", "!=", ">=", "<", ">", "!",
];
const SPECIALS: &str = "?%$.[]{}()|&!=<>@#,*:-+/";

fn is_blank(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\r' | '\u{c}')
}

/// A character of identifiers: neither special, blank, `\` nor `"`.
fn is_other(c: char) -> bool {
    !SPECIALS.contains(c) && !is_blank(c) && c != '\\' && c != '"'
}

/// A syntax error (42601) at `near` (`None`: at the end).
pub fn syntax_error(message: &str, near: Option<&str>) -> RowError {
    RowError::JsonPathSyntax(match near {
        None => format!("{message} at end of jsonpath input"),
        Some(text) => format!("{message} at or near \"{text}\" of jsonpath input"),
    })
}

/// The scanner: the text and how far it is read.
pub struct Scanner<'a> {
    text: &'a str,
    pos: usize,
}

impl<'a> Scanner<'a> {
    pub fn new(text: &'a str) -> Scanner<'a> {
        Scanner { text, pos: 0 }
    }

    fn rest(&self) -> &'a str {
        &self.text[self.pos..]
    }

    fn peek(&self) -> Option<char> {
        self.rest().chars().next()
    }

    fn peek_at(&self, n: usize) -> Option<char> {
        self.rest().chars().nth(n)
    }

    /// The next token.
    pub fn next_token(&mut self) -> Result<Lexed, RowError> {
        loop {
            let rest = self.rest();
            let Some(c) = rest.chars().next() else {
                return Ok(Lexed {
                    token: Token::End,
                    near: None,
                });
            };
            if is_blank(c) {
                self.pos += c.len_utf8();
                continue;
            }
            if rest.starts_with("/*") {
                self.skip_comment()?;
                continue;
            }
            let lexed = |token: Token, near: &str| Lexed {
                token,
                near: Some(near.to_string()),
            };
            if c == '$' {
                if self.peek_at(1) == Some('"') {
                    self.pos += 2;
                    let name = self.quoted()?;
                    return Ok(lexed(Token::Variable(name), "\""));
                }
                let name: String = rest[1..].chars().take_while(|c| is_other(*c)).collect();
                if !name.is_empty() {
                    self.pos += 1 + name.len();
                    return Ok(lexed(Token::Variable(name.clone()), &format!("${name}")));
                }
            }
            if c == '"' {
                self.pos += 1;
                let s = self.quoted()?;
                return Ok(lexed(Token::String(s), "\""));
            }
            if c.is_ascii_digit()
                || (c == '.' && self.peek_at(1).is_some_and(|d| d.is_ascii_digit()))
            {
                return self.number();
            }
            if let Some(op) = OPERATORS.iter().find(|op| rest.starts_with(**op)) {
                self.pos += op.len();
                return Ok(lexed(Token::Punct(op), op));
            }
            if let Some(i) = SPECIALS.find(c) {
                self.pos += 1;
                let punct = &SPECIALS[i..i + 1];
                return Ok(lexed(Token::Punct(punct), punct));
            }
            if let Some(ident) = self.identifier()? {
                return Ok(ident);
            }
        }
    }

    fn skip_comment(&mut self) -> Result<(), RowError> {
        match self.rest()[2..].find("*/") {
            Some(end) => {
                self.pos += 2 + end + 2;
                Ok(())
            }
            None => Err(syntax_error("unexpected end of comment", None)),
        }
    }

    /// A number, or its error (PostgreSQL's `{real}`, `{decimal}`,
    /// `{integer}` and their `fail` / `junk` rules, the longest match).
    fn number(&mut self) -> Result<Lexed, RowError> {
        let bytes = self.rest().as_bytes();
        let digits_from = |mut i: usize| {
            while i < bytes.len() && bytes[i].is_ascii_digit() {
                i += 1;
            }
            i
        };
        let mut end = match bytes[0] {
            b'0' => 1,
            b'.' => 0,
            _ => digits_from(0),
        };
        let mut decimal = false;
        if bytes.get(end) == Some(&b'.') {
            decimal = true;
            end = digits_from(end + 1);
        }
        if matches!(bytes.get(end), Some(b'e' | b'E')) {
            let mut i = end + 1;
            let signed = matches!(bytes.get(i), Some(b'+' | b'-'));
            if signed {
                i += 1;
            }
            let exponent_end = digits_from(i);
            if exponent_end > i {
                end = exponent_end;
                decimal = true;
            } else if signed {
                return Err(syntax_error(
                    "invalid numeric literal",
                    Some(&self.rest()[..i]),
                ));
            }
        }
        if let Some(c) = self.rest()[end..].chars().next()
            && is_other(c)
        {
            let junk = &self.rest()[..end + c.len_utf8()];
            return Err(syntax_error(
                "trailing junk after numeric literal",
                Some(junk),
            ));
        }
        let text = self.rest()[..end].to_string();
        self.pos += end;
        Ok(Lexed {
            token: if decimal {
                Token::Numeric(text.clone())
            } else {
                Token::Int(text.clone())
            },
            near: Some(text),
        })
    }

    /// An identifier or keyword (`None`: one dropped before a comment).
    fn identifier(&mut self) -> Result<Option<Lexed>, RowError> {
        let mut text = String::new();
        loop {
            match self.peek() {
                Some('\\') => self.escape(&mut text)?,
                Some(c) if is_other(c) => {
                    text.push(c);
                    self.pos += c.len_utf8();
                }
                Some(c) if is_blank(c) => {
                    let blanks: String = self.rest().chars().take_while(|c| is_blank(*c)).collect();
                    self.pos += blanks.len();
                    return Ok(Some(ident(text, Some(blanks))));
                }
                Some('/') if self.rest().starts_with("/*") => {
                    self.skip_comment()?;
                    return Ok(None);
                }
                _ => return Ok(Some(ident(text, None))),
            }
        }
    }

    /// A quoted string's text after its opening quote, through the
    /// closing one.
    fn quoted(&mut self) -> Result<String, RowError> {
        let mut text = String::new();
        loop {
            match self.peek() {
                None => return Err(syntax_error("unexpected end of quoted string", None)),
                Some('"') => {
                    self.pos += 1;
                    return Ok(text);
                }
                Some('\\') => self.escape(&mut text)?,
                Some(c) => {
                    text.push(c);
                    self.pos += c.len_utf8();
                }
            }
        }
    }

    /// One backslash escape (a run of `\u` escapes at once) onto `out`.
    fn escape(&mut self, out: &mut String) -> Result<(), RowError> {
        let rest = self.rest();
        let Some(c) = rest[1..].chars().next() else {
            return Err(syntax_error("unexpected end after backslash", Some("\\")));
        };
        let simple = match c {
            'b' => Some('\u{8}'),
            'f' => Some('\u{c}'),
            'n' => Some('\n'),
            'r' => Some('\r'),
            't' => Some('\t'),
            'v' => Some('\u{b}'),
            _ => None,
        };
        if let Some(ch) = simple {
            out.push(ch);
            self.pos += 2;
            return Ok(());
        }
        match c {
            'u' => self.unicode_run(out),
            'x' => {
                let hex: String = rest[2..]
                    .chars()
                    .take(2)
                    .take_while(char::is_ascii_hexdigit)
                    .collect();
                if hex.len() < 2 {
                    let near = &rest[..2 + hex.len()];
                    return Err(syntax_error("invalid hex character sequence", Some(near)));
                }
                self.pos += 4;
                push_code_point(out, u32::from_str_radix(&hex, 16).expect("hex"))
            }
            c => {
                out.push(c);
                self.pos += 1 + c.len_utf8();
                Ok(())
            }
        }
    }

    /// A run of `\u` escapes: surrogate pairs join, a lone surrogate is
    /// an error (PostgreSQL's `parseUnicode`).
    fn unicode_run(&mut self, out: &mut String) -> Result<(), RowError> {
        let start = self.pos;
        let mut high: Option<u32> = None;
        let surrogate_error = |detail: &str| RowError::JsonPathInvalid {
            syntax: false,
            detail: detail.into(),
        };
        while self.rest().starts_with("\\u") {
            let rest = &self.rest()[2..];
            let (code, len) = if let Some(braced) = rest.strip_prefix('{') {
                let hex: String = braced
                    .chars()
                    .take(6)
                    .take_while(char::is_ascii_hexdigit)
                    .collect();
                if hex.is_empty() || !braced[hex.len()..].starts_with('}') {
                    let near = &self.text[start..self.pos + 3 + hex.len()];
                    return Err(syntax_error("invalid unicode sequence", Some(near)));
                }
                (u32::from_str_radix(&hex, 16).expect("hex"), 4 + hex.len())
            } else {
                let hex: String = rest
                    .chars()
                    .take(4)
                    .take_while(char::is_ascii_hexdigit)
                    .collect();
                if hex.len() < 4 {
                    let near = &self.text[start..self.pos + 2 + hex.len()];
                    return Err(syntax_error("invalid unicode sequence", Some(near)));
                }
                (u32::from_str_radix(&hex, 16).expect("hex"), 6)
            };
            self.pos += len;
            match code {
                0xD800..=0xDBFF => {
                    if high.is_some() {
                        return Err(surrogate_error(
                            "Unicode high surrogate must not follow a high surrogate.",
                        ));
                    }
                    high = Some(code);
                }
                0xDC00..=0xDFFF => match high.take() {
                    Some(h) => {
                        push_code_point(out, 0x10000 + ((h - 0xD800) << 10) + (code - 0xDC00))?
                    }
                    None => {
                        return Err(surrogate_error(
                            "Unicode low surrogate must follow a high surrogate.",
                        ));
                    }
                },
                _ => {
                    if high.is_some() {
                        return Err(surrogate_error(
                            "Unicode low surrogate must follow a high surrogate.",
                        ));
                    }
                    push_code_point(out, code)?;
                }
            }
        }
        if high.is_some() {
            return Err(surrogate_error(
                "Unicode low surrogate must follow a high surrogate.",
            ));
        }
        Ok(())
    }
}

/// An identifier token: a keyword if it spells one.
fn ident(text: String, near: Option<String>) -> Lexed {
    let keyword = KEYWORDS.iter().find_map(|(word, keyword, lower_only)| {
        let matches = if *lower_only {
            text == *word
        } else {
            text.eq_ignore_ascii_case(word)
        };
        matches.then_some(*keyword)
    });
    Lexed {
        token: Token::Ident(text, keyword),
        near,
    }
}

/// A code point from an escape: not 0 (22P05), not past Unicode.
fn push_code_point(out: &mut String, code: u32) -> Result<(), RowError> {
    if code == 0 {
        return Err(RowError::UntranslatableJson);
    }
    match char::from_u32(code) {
        Some(c) => {
            out.push(c);
            Ok(())
        }
        None => Err(RowError::JsonPathSyntax(
            "invalid Unicode code point".into(),
        )),
    }
}
