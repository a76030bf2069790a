//! The JSON grammar (RFC 8259, as PostgreSQL 15's json lexer reads it):
//! a text to a tree of [`Node`]s that remember where each value is in
//! the text. Both json types read through here: `json` keeps its text and
//! uses the tree to validate and to pick values out of it (`->` returns
//! the text as written); `jsonb` turns the tree into a [`crate::Jsonb`].
//!
//! Every error is PostgreSQL's 22P02 "invalid input syntax for type json"
//! with a DETAIL saying what is wrong; an escape `\u0000` is kept as
//! written in `json` and refused (22P05) where it must become text.

use crate::error::RowError;

/// Nesting deeper than this is refused (PostgreSQL's stack depth limit
/// stops at some depth too; this one keeps the recursion bounded).
pub const MAX_DEPTH: usize = 6400;

/// A parsed value and where it is in the text (`start..end`, bytes).
#[derive(Debug, Clone, PartialEq)]
pub struct Node<'a> {
    pub start: usize,
    pub end: usize,
    pub kind: NodeKind<'a>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum NodeKind<'a> {
    Null,
    Bool(bool),
    /// The number as written (it follows JSON's number grammar).
    Number(&'a str),
    /// The string's value, escapes resolved, or why no text can hold it
    /// (`\u0000`, a lone surrogate).
    String(Result<String, RowError>),
    Array(Vec<Node<'a>>),
    /// Its members in the order written, duplicates kept (keys as
    /// strings are).
    Object(Vec<(Result<String, RowError>, Node<'a>)>),
}

/// The error for `detail` (PostgreSQL's message, with its DETAIL).
pub fn syntax_error(detail: impl Into<String>) -> RowError {
    RowError::InvalidJson(detail.into())
}

/// Parses `text` as one JSON value (whitespace around it allowed).
pub fn parse(text: &str) -> Result<Node<'_>, RowError> {
    let mut p = Parser {
        text,
        bytes: text.as_bytes(),
        at: 0,
    };
    p.skip_space();
    let node = p.value(0)?;
    p.skip_space();
    if p.at < p.bytes.len() {
        return Err(p.unexpected("end of input"));
    }
    Ok(node)
}

struct Parser<'a> {
    text: &'a str,
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Parser<'a> {
    fn skip_space(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.bytes.get(self.at) {
            self.at += 1;
        }
    }

    /// The token at the cursor, as PostgreSQL's DETAIL names it: the run
    /// of characters up to the next delimiter (one character if it is
    /// one).
    fn token(&self) -> &'a str {
        let rest = &self.text[self.at..];
        let delimiter = |c: char| " \t\n\r,:[]{}\"".contains(c);
        match rest.chars().next() {
            None => "",
            Some(c) if delimiter(c) => &rest[..c.len_utf8()],
            Some(_) => {
                let end = rest.find(delimiter).unwrap_or(rest.len());
                &rest[..end]
            }
        }
    }

    /// PostgreSQL's error for an unexpected token where `expected` was.
    fn unexpected(&self, expected: &str) -> RowError {
        if self.at >= self.bytes.len() {
            return syntax_error("The input string ended unexpectedly.");
        }
        let token = self.token();
        let first = token.as_bytes()[0];
        if !b",:[]{}\"".contains(&first)
            && !matches!(token, "true" | "false" | "null")
            && !first.is_ascii_digit()
            && first != b'-'
        {
            return syntax_error(format!("Token \"{token}\" is invalid."));
        }
        syntax_error(format!("Expected {expected}, but found \"{token}\"."))
    }

    fn value(&mut self, depth: usize) -> Result<Node<'a>, RowError> {
        if depth > MAX_DEPTH {
            return Err(RowError::StackDepth);
        }
        let start = self.at;
        let kind = match self.bytes.get(self.at) {
            Some(b'{') => self.object(depth)?,
            Some(b'[') => self.array(depth)?,
            Some(b'"') => NodeKind::String(self.string()?),
            Some(b'-' | b'0'..=b'9') => NodeKind::Number(self.number()?),
            _ => match self.token() {
                "true" => self.word("true", NodeKind::Bool(true)),
                "false" => self.word("false", NodeKind::Bool(false)),
                "null" => self.word("null", NodeKind::Null),
                _ => return Err(self.unexpected("JSON value")),
            },
        };
        Ok(Node {
            start,
            end: self.at,
            kind,
        })
    }

    fn word(&mut self, word: &str, kind: NodeKind<'a>) -> NodeKind<'a> {
        self.at += word.len();
        kind
    }

    fn array(&mut self, depth: usize) -> Result<NodeKind<'a>, RowError> {
        self.at += 1;
        let mut items = Vec::new();
        self.skip_space();
        if self.bytes.get(self.at) == Some(&b']') {
            self.at += 1;
            return Ok(NodeKind::Array(items));
        }
        loop {
            self.skip_space();
            items.push(self.value(depth + 1)?);
            self.skip_space();
            match self.bytes.get(self.at) {
                Some(b',') => self.at += 1,
                Some(b']') => {
                    self.at += 1;
                    return Ok(NodeKind::Array(items));
                }
                _ => return Err(self.unexpected("\",\" or \"]\"")),
            }
        }
    }

    fn object(&mut self, depth: usize) -> Result<NodeKind<'a>, RowError> {
        self.at += 1;
        let mut members = Vec::new();
        self.skip_space();
        if self.bytes.get(self.at) == Some(&b'}') {
            self.at += 1;
            return Ok(NodeKind::Object(members));
        }
        loop {
            self.skip_space();
            if self.bytes.get(self.at) != Some(&b'"') {
                return Err(self.unexpected(if members.is_empty() {
                    "string or \"}\""
                } else {
                    "string"
                }));
            }
            let key = self.string()?;
            self.skip_space();
            if self.bytes.get(self.at) != Some(&b':') {
                return Err(self.unexpected("\":\""));
            }
            self.at += 1;
            self.skip_space();
            members.push((key, self.value(depth + 1)?));
            self.skip_space();
            match self.bytes.get(self.at) {
                Some(b',') => self.at += 1,
                Some(b'}') => {
                    self.at += 1;
                    return Ok(NodeKind::Object(members));
                }
                _ => return Err(self.unexpected("\",\" or \"}\"")),
            }
        }
    }

    /// A number: `-`? (`0` | [1-9][0-9]*) (`.` [0-9]+)? ([eE] [+-]? [0-9]+)?,
    /// not followed by a letter or digit.
    fn number(&mut self) -> Result<&'a str, RowError> {
        let start = self.at;
        let digits = |p: &mut Parser<'a>| {
            let from = p.at;
            while p.bytes.get(p.at).is_some_and(u8::is_ascii_digit) {
                p.at += 1;
            }
            p.at - from
        };
        let invalid = |p: &Parser<'a>| {
            let rest = &p.text[start..];
            let end = rest
                .find(|c: char| " \t\n\r,:[]{}\"".contains(c))
                .unwrap_or(rest.len());
            syntax_error(format!("Token \"{}\" is invalid.", &rest[..end]))
        };
        if self.bytes.get(self.at) == Some(&b'-') {
            self.at += 1;
        }
        match self.bytes.get(self.at) {
            Some(b'0') => self.at += 1,
            Some(b'1'..=b'9') => {
                digits(self);
            }
            _ => return Err(invalid(self)),
        }
        if self.bytes.get(self.at) == Some(&b'.') {
            self.at += 1;
            if digits(self) == 0 {
                return Err(invalid(self));
            }
        }
        if let Some(b'e' | b'E') = self.bytes.get(self.at) {
            self.at += 1;
            if let Some(b'+' | b'-') = self.bytes.get(self.at) {
                self.at += 1;
            }
            if digits(self) == 0 {
                return Err(invalid(self));
            }
        }
        if self
            .bytes
            .get(self.at)
            .is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'_' || *b >= 0x80)
        {
            return Err(invalid(self));
        }
        Ok(&self.text[start..self.at])
    }

    /// A string at the cursor (its opening quote): its value, or why no
    /// text can hold it.
    fn string(&mut self) -> Result<Result<String, RowError>, RowError> {
        self.at += 1;
        let mut out = String::new();
        let mut untranslatable = None;
        loop {
            let run = self.at;
            while let Some(&b) = self.bytes.get(self.at) {
                if b == b'"' || b == b'\\' || b < 0x20 {
                    break;
                }
                self.at += 1;
            }
            out.push_str(&self.text[run..self.at]);
            match self.bytes.get(self.at) {
                None => return Err(syntax_error("The input string ended unexpectedly.")),
                Some(b'"') => {
                    self.at += 1;
                    return Ok(match untranslatable {
                        Some(e) => Err(e),
                        None => Ok(out),
                    });
                }
                Some(b'\\') => {
                    self.at += 1;
                    let Some(&e) = self.bytes.get(self.at) else {
                        return Err(syntax_error("The input string ended unexpectedly."));
                    };
                    self.at += 1;
                    match e {
                        b'"' => out.push('"'),
                        b'\\' => out.push('\\'),
                        b'/' => out.push('/'),
                        b'b' => out.push('\u{8}'),
                        b'f' => out.push('\u{c}'),
                        b'n' => out.push('\n'),
                        b'r' => out.push('\r'),
                        b't' => out.push('\t'),
                        b'u' => match self.unicode_escape()? {
                            Ok(c) => out.push(c),
                            Err(e) => {
                                untranslatable.get_or_insert(e);
                            }
                        },
                        _ => {
                            let c = self.text[self.at - 1..].chars().next().unwrap_or('?');
                            self.at += c.len_utf8() - 1;
                            return Err(syntax_error(format!(
                                "Escape sequence \"\\{c}\" is invalid."
                            )));
                        }
                    }
                }
                Some(_) => {
                    let c = self.text[self.at..].chars().next().unwrap_or('?');
                    return Err(syntax_error(format!(
                        "Character with value 0x{:02x} must be escaped.",
                        c as u32
                    )));
                }
            }
        }
    }

    /// The four hex digits after `\u` (and a low surrogate's escape after
    /// a high one): the character, or why no text can hold it (`\u0000`,
    /// a lone surrogate), which only matters where the string must become
    /// text (`json` keeps such escapes as written).
    fn unicode_escape(&mut self) -> Result<Result<char, RowError>, RowError> {
        let first = self.hex()?;
        let lone = || {
            Err(syntax_error(
                "Unicode low surrogate must follow a high surrogate.",
            ))
        };
        Ok(match first {
            0 => Err(RowError::UntranslatableJson),
            0xD800..=0xDBFF => {
                if self.text.get(self.at..self.at + 2) != Some("\\u") {
                    return Ok(lone());
                }
                self.at += 2;
                let second = self.hex()?;
                if !(0xDC00..=0xDFFF).contains(&second) {
                    return Ok(lone());
                }
                let c = 0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00);
                Ok(char::from_u32(c).expect("a surrogate pair is a character"))
            }
            0xDC00..=0xDFFF => lone(),
            c => Ok(char::from_u32(c).expect("not a surrogate")),
        })
    }

    fn hex(&mut self) -> Result<u32, RowError> {
        let digits = self
            .text
            .get(self.at..self.at + 4)
            .filter(|d| d.bytes().all(|b| b.is_ascii_hexdigit()));
        let Some(digits) = digits else {
            return Err(syntax_error(
                "\"\\u\" must be followed by four hexadecimal digits.",
            ));
        };
        self.at += 4;
        Ok(u32::from_str_radix(digits, 16).expect("hex digits"))
    }
}
