//! String constants and quoted names as PostgreSQL's lexer reads them,
//! where sqlparser's tokenizer reads them otherwise. The one owner of
//! these rules: `parse::statements` hands every text's tokens to
//! [`read`] before anything else looks at them, and maps the
//! tokenizer's errors through [`escape_error`].
//!
//! - Continuation: string constants separated only by white space that
//!   holds a newline are one constant (`'a'` newline `'b'` is `'ab'`).
//!   PostgreSQL's rule: before the first newline only spaces and tabs,
//!   after it spaces, newlines and `--` comments; a `/* */` comment
//!   ends the constant. A constant right after another without such
//!   white space is a syntax error at the second (sqlparser would take
//!   it as a column alias).
//! - `U&'...'` strings and `U&"..."` names, each with an optional
//!   `UESCAPE 'c'`: the tokenizer (`dialect::Folio`, which turns
//!   sqlparser's own `U&` reading off: it knows no UESCAPE) gives them as
//!   `U`, `&` and a plain string or quoted name; [`read`] joins the
//!   three and decodes `\XXXX`, `\+XXXXXX` and `\\` (or the UESCAPE
//!   character's) with PostgreSQL's errors: 42601 `invalid Unicode
//!   escape` (and its hint), `invalid Unicode surrogate pair`, `invalid
//!   Unicode escape value`, `invalid Unicode escape character`,
//!   `UESCAPE must be followed by a simple string literal`.
//! - `E'...'` escapes the tokenizer refuses: [`escape_error`] gives
//!   PostgreSQL's error for the constant (22025 `invalid Unicode escape`
//!   for a `\u` or `\U` without its 4 or 8 hex digits, 42601 for a lone
//!   surrogate or a value past U+10FFFF).
//! - `unistr(text)` decodes with the same rules ([`unistr`]), and also
//!   `\uXXXX` and `\UXXXXXXXX`.
//!
//! Left: the continuation of an `E'...'` constant is read as a plain
//! string (PostgreSQL reads its escapes too); `U&` constants under
//! `standard_conforming_strings = off` (folio keeps it on).

use crate::error::SqlError;
use crate::position::Text;
use sqlparser::tokenizer::{Token, TokenWithSpan, Whitespace};

/// Reads `tokens` (white space included) as PostgreSQL's lexer would
/// have: continued constants joined, `U&` constants and names decoded.
pub(crate) fn read(tokens: &mut Vec<TokenWithSpan>, text: &Text<'_>) -> Result<(), SqlError> {
    if !tokens
        .iter()
        .any(|t| starts_constant(&t.token) || is_u(&t.token))
    {
        return Ok(());
    }
    let mut out = Vec::with_capacity(tokens.len());
    let mut at = 0;
    // The end of the last constant, while only white space followed it.
    let mut after_constant = false;
    while at < tokens.len() {
        let token = &tokens[at];
        let unicode = unicode_prefix(tokens, at);
        let body_at = if unicode { at + 2 } else { at };
        let starts = starts_constant(&tokens[body_at].token);
        let unicode_name = unicode && matches!(&tokens[body_at].token, Token::Word(_));
        if !(starts || unicode_name) {
            if !matches!(token.token, Token::Whitespace(_)) {
                after_constant = false;
            }
            out.push(token.clone());
            at += 1;
            continue;
        }
        if after_constant {
            return Err(text.near(token));
        }
        let mut joined = tokens[body_at].clone();
        joined.span.start = token.span.start;
        at = body_at + 1;
        if starts {
            while let Some(next) = continuation(tokens, at) {
                let Token::SingleQuotedString(more) = &tokens[next].token else {
                    unreachable!("a continuation is a plain string")
                };
                append(&mut joined.token, more);
                joined.span.end = tokens[next].span.end;
                at = next + 1;
            }
        }
        if unicode {
            let escape = match uescape(tokens, at, text)? {
                Some((escape, next)) => {
                    at = next;
                    escape
                }
                None => '\\',
            };
            let first = text.position(tokens[body_at].span.start).unwrap_or(0) + 1;
            joined.token = match &joined.token {
                Token::SingleQuotedString(s) => {
                    Token::SingleQuotedString(decode(s, escape, Escapes::Literal, first)?)
                }
                Token::Word(w) => {
                    let value = decode(&w.value, escape, Escapes::Literal, first)?;
                    if value.is_empty() {
                        return Err(text.near_with("zero-length delimited identifier", token));
                    }
                    Token::Word(sqlparser::tokenizer::Word {
                        value,
                        quote_style: Some('"'),
                        keyword: sqlparser::keywords::Keyword::NoKeyword,
                    })
                }
                other => other.clone(),
            };
        }
        after_constant = matches!(joined.token, Token::SingleQuotedString(_)) || starts;
        out.push(joined);
    }
    *tokens = out;
    Ok(())
}

/// Whether `token` begins a string constant that later lines may
/// continue.
fn starts_constant(token: &Token) -> bool {
    matches!(
        token,
        Token::SingleQuotedString(_)
            | Token::EscapedStringLiteral(_)
            | Token::NationalStringLiteral(_)
            | Token::HexStringLiteral(_)
            | Token::SingleQuotedByteStringLiteral(_)
    )
}

fn is_u(token: &Token) -> bool {
    matches!(token, Token::Word(w) if w.quote_style.is_none() && w.value.eq_ignore_ascii_case("u"))
}

/// Whether `tokens[at..]` is `U&` written right before a quoted string
/// or name.
fn unicode_prefix(tokens: &[TokenWithSpan], at: usize) -> bool {
    let [u, amp, body, ..] = &tokens[at..] else {
        return false;
    };
    is_u(&u.token)
        && amp.token == Token::Ampersand
        && u.span.end == amp.span.start
        && amp.span.end == body.span.start
        && match &body.token {
            Token::SingleQuotedString(_) => true,
            Token::Word(w) => w.quote_style == Some('"'),
            _ => false,
        }
}

/// The index of the plain string that continues the constant ending
/// before `tokens[at]`, if the white space between holds a newline as
/// PostgreSQL's rule wants.
fn continuation(tokens: &[TokenWithSpan], mut at: usize) -> Option<usize> {
    let mut newline = false;
    while let Some(t) = tokens.get(at) {
        match &t.token {
            Token::Whitespace(Whitespace::Space | Whitespace::Tab) => {}
            Token::Whitespace(Whitespace::Newline) => newline = true,
            Token::Whitespace(Whitespace::SingleLineComment { .. }) if newline => {}
            Token::SingleQuotedString(_) if newline => return Some(at),
            _ => return None,
        }
        at += 1;
    }
    None
}

fn append(token: &mut Token, more: &str) {
    match token {
        Token::SingleQuotedString(s)
        | Token::EscapedStringLiteral(s)
        | Token::NationalStringLiteral(s)
        | Token::HexStringLiteral(s)
        | Token::SingleQuotedByteStringLiteral(s) => s.push_str(more),
        _ => unreachable!("only constants continue"),
    }
}

/// `UESCAPE 'c'` after a `U&` constant (white space skipped): its
/// character and the index past it, none without UESCAPE, or
/// PostgreSQL's errors for what follows UESCAPE.
fn uescape(
    tokens: &[TokenWithSpan],
    at: usize,
    text: &Text<'_>,
) -> Result<Option<(char, usize)>, SqlError> {
    let solid = |from: usize| {
        (from..tokens.len()).find(|&i| !matches!(tokens[i].token, Token::Whitespace(_)))
    };
    let Some(word) = solid(at) else {
        return Ok(None);
    };
    if !matches!(&tokens[word].token, Token::Word(w)
        if w.quote_style.is_none() && w.value.eq_ignore_ascii_case("uescape"))
    {
        return Ok(None);
    }
    let Some(value) = solid(word + 1) else {
        return Err(text.at_end());
    };
    let Token::SingleQuotedString(s) = &tokens[value].token else {
        return Err(text.near_with(
            "UESCAPE must be followed by a simple string literal",
            &tokens[value],
        ));
    };
    let mut chars = s.chars();
    match (chars.next(), chars.next()) {
        (Some(c), None)
            if !c.is_ascii_hexdigit() && !matches!(c, '+' | '\'' | '"') && !c.is_whitespace() =>
        {
            Ok(Some((c, value + 1)))
        }
        _ => Err(text.near_with("invalid Unicode escape character", &tokens[value])),
    }
}

/// Which escapes a decoding reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Escapes {
    /// A `U&` constant: `\XXXX`, `\+XXXXXX`, `\\`.
    Literal,
    /// `unistr`: also `\uXXXX` and `\UXXXXXXXX`.
    Unistr,
}

/// `body` with its Unicode escapes (`escape` their first character)
/// decoded; an error's position is `first` (the body's first character's
/// 1-based position in the text, 0: none) plus the escape's offset.
fn decode(body: &str, escape: char, escapes: Escapes, first: usize) -> Result<String, SqlError> {
    let chars: Vec<char> = body.chars().collect();
    let mut out = String::with_capacity(body.len());
    let mut high: Option<u32> = None;
    let mut i = 0;
    let placed = |e: SqlError, at: usize| if first > 0 { e.at(first + at) } else { e };
    let pair_error = || SqlError::syntax("invalid Unicode surrogate pair");
    while i < chars.len() {
        let c = chars[i];
        if c != escape {
            if high.is_some() {
                return Err(placed(pair_error(), i));
            }
            out.push(c);
            i += 1;
            continue;
        }
        let hex = |from: usize, n: usize| -> Option<u32> {
            let digits: String = chars.get(from..from + n)?.iter().collect();
            if digits.chars().all(|d| d.is_ascii_hexdigit()) {
                u32::from_str_radix(&digits, 16).ok()
            } else {
                None
            }
        };
        let next = chars.get(i + 1).copied();
        let (code, len) = if next == Some(escape) {
            if high.is_some() {
                return Err(placed(pair_error(), i));
            }
            out.push(escape);
            i += 2;
            continue;
        } else if let (Some('+'), Some(v)) = (next, hex(i + 2, 6)) {
            (v, 8)
        } else if let (Escapes::Unistr, Some('u'), Some(v)) = (escapes, next, hex(i + 2, 4)) {
            (v, 6)
        } else if let (Escapes::Unistr, Some('U'), Some(v)) = (escapes, next, hex(i + 2, 8)) {
            (v, 10)
        } else if let Some(v) = hex(i + 1, 4) {
            (v, 5)
        } else {
            let hint = match escapes {
                Escapes::Literal => "Unicode escapes must be \\XXXX or \\+XXXXXX.",
                Escapes::Unistr => {
                    "Unicode escapes must be \\XXXX, \\+XXXXXX, \\uXXXX, or \\UXXXXXXXX."
                }
            };
            return Err(placed(
                SqlError::syntax("invalid Unicode escape").with_hint(hint),
                i,
            ));
        };
        let surrogate_high = (0xD800..=0xDBFF).contains(&code);
        let surrogate_low = (0xDC00..=0xDFFF).contains(&code);
        match high.take() {
            Some(h) if surrogate_low => {
                let joined = 0x10000 + ((h - 0xD800) << 10) + (code - 0xDC00);
                out.push(char::from_u32(joined).expect("a surrogate pair is a character"));
            }
            Some(_) => return Err(placed(pair_error(), i)),
            None if surrogate_high => high = Some(code),
            None if surrogate_low => return Err(placed(pair_error(), i)),
            None => match char::from_u32(code).filter(|&c| c != '\0') {
                Some(c) => out.push(c),
                None if escapes == Escapes::Unistr => {
                    return Err(SqlError::new(
                        "22023",
                        format!("invalid Unicode code point: {code:X}"),
                    ));
                }
                None => return Err(placed(SqlError::syntax("invalid Unicode escape value"), i)),
            },
        }
        i += len;
    }
    if high.is_some() {
        return Err(placed(pair_error(), chars.len()));
    }
    Ok(out)
}

/// `unistr(text)`: `text` with its Unicode escapes decoded.
pub fn unistr(text: &str) -> Result<String, SqlError> {
    decode(text, '\\', Escapes::Unistr, 0)
}

/// PostgreSQL's error for the `E'...'` constant at `line` and `column`
/// (1-based, as sqlparser's tokenizer error names it) of `sql`, when its
/// Unicode escapes are wrong; `None` when it is not such a constant or
/// its escapes are right.
pub fn escape_error(sql: &str, line: u64, column: u64) -> Option<SqlError> {
    let literal = crate::text_bytes::escape_literal_at(sql, line, column)?;
    let chars: Vec<char> = literal.chars().collect();
    // The `\u` / `\U` escape at `i`: its value and length, or `None`
    // when its digits are short.
    let escape_at = |i: usize| -> Option<(u32, usize)> {
        let n = match chars.get(i + 1)? {
            'u' => 4,
            'U' => 8,
            _ => return None,
        };
        let digits: String = chars.get(i + 2..i + 2 + n)?.iter().collect();
        if !digits.chars().all(|d| d.is_ascii_hexdigit()) {
            return None;
        }
        Some((u32::from_str_radix(&digits, 16).ok()?, n + 2))
    };
    let near = |what: &str, i: usize| {
        let written: String = match (chars.get(i), chars.get(i + 1)) {
            (Some('\\'), Some('u' | 'U')) => match escape_at(i) {
                Some((_, len)) => chars[i..i + len].iter().collect(),
                None => "\\".into(),
            },
            (Some(c), _) => c.to_string(),
            (None, _) => String::new(),
        };
        SqlError::syntax(format!("{what} at or near \"{written}\""))
    };
    let mut high = false;
    let mut i = 2;
    while i < chars.len() {
        let c = chars[i];
        if high && !(c == '\\' && matches!(chars.get(i + 1), Some('u' | 'U'))) {
            return Some(near("invalid Unicode surrogate pair", i));
        }
        match c {
            '\'' if chars.get(i + 1) == Some(&'\'') => i += 2,
            '\'' => return None,
            '\\' => match chars.get(i + 1) {
                Some('u' | 'U') => {
                    let Some((code, len)) = escape_at(i) else {
                        return Some(
                            SqlError::new("22025", "invalid Unicode escape")
                                .with_hint("Unicode escapes must be \\uXXXX or \\UXXXXXXXX."),
                        );
                    };
                    let is_high = (0xD800..=0xDBFF).contains(&code);
                    let is_low = (0xDC00..=0xDFFF).contains(&code);
                    if high != is_low {
                        return Some(near("invalid Unicode surrogate pair", i));
                    }
                    if !is_high && !is_low && (code == 0 || code > 0x10FFFF) {
                        return Some(near("invalid Unicode escape value", i));
                    }
                    high = is_high;
                    i += len;
                }
                _ => i += 2,
            },
            _ => i += 1,
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use sqlparser::tokenizer::Tokenizer;

    /// The constants of `sql` after [`read`], or its error's message.
    fn read_sql(sql: &str) -> Result<Vec<Token>, String> {
        let text = Text::new(sql);
        let mut tokens = Tokenizer::new(&crate::dialect::Folio, sql)
            .tokenize_with_location()
            .unwrap();
        read(&mut tokens, &text).map_err(|e| format!("{} {}", e.code, e.message))?;
        Ok(tokens
            .into_iter()
            .map(|t| t.token)
            .filter(|t| !matches!(t, Token::Whitespace(_)))
            .collect())
    }

    fn string(s: &str) -> Token {
        Token::SingleQuotedString(s.into())
    }

    // Proves PostgreSQL's continuation rule: a newline joins, a comment
    // before the newline or a block comment ends the constant, and a
    // constant right after another is a syntax error at it.
    #[test]
    fn constants_continue_across_a_newline() {
        let joined = read_sql("select 'a'\n'b' \n\t 'c' as x").unwrap();
        assert_eq!(joined[1], string("abc"));
        let joined = read_sql("select 'a'  \n-- note\n'b'").unwrap();
        assert_eq!(joined[1], string("ab"));
        assert_eq!(
            read_sql("select 'a' 'b'").unwrap_err(),
            "42601 syntax error at or near \"'b'\""
        );
        assert_eq!(
            read_sql("select 'a'\n'b' /* no */\n'c'").unwrap_err(),
            "42601 syntax error at or near \"'c'\""
        );
        assert_eq!(
            read_sql("select 'a' -- no\n'b'").unwrap_err(),
            "42601 syntax error at or near \"'b'\""
        );
        // Separated by anything else, constants are two.
        assert_eq!(read_sql("select 'a', 'b'").unwrap().len(), 4);
    }

    // Proves U& strings and names decode with `\` or their UESCAPE
    // character, with PostgreSQL's errors.
    #[test]
    fn unicode_escapes_decode() {
        let t = read_sql(r#"select U&'d\0061t\+000061' as U&"d\0061t""#).unwrap();
        assert_eq!(t[1], string("data"));
        assert!(matches!(&t[3], Token::Word(w) if w.value == "dat" && w.quote_style == Some('"')));
        let t = read_sql(r"select U&'d!0061t\+000061' UESCAPE '!'").unwrap();
        assert_eq!(t[1], string(r"dat\+000061"));
        assert_eq!(t.len(), 2);
        let t = read_sql(r"select U&' \' UESCAPE '!', U&'a\\b'").unwrap();
        assert_eq!((&t[1], &t[3]), (&string(r" \"), &string(r"a\b")));
        let t = read_sql("select U&'a'\n'\\0062'").unwrap();
        assert_eq!(t[1], string("ab"));
        for (sql, error) in [
            (r"select U&'\061'", "42601 invalid Unicode escape"),
            (r"select U&'\+0061'", "42601 invalid Unicode escape"),
            (r"select U&'\db99'", "42601 invalid Unicode surrogate pair"),
            (
                r"select U&'\db99\\'",
                "42601 invalid Unicode surrogate pair",
            ),
            (
                r"select U&'\db99\0061'",
                "42601 invalid Unicode surrogate pair",
            ),
            (r"select U&'\+2FFFFF'", "42601 invalid Unicode escape value"),
            (
                r"select U&'+0061' UESCAPE +",
                "42601 UESCAPE must be followed by a simple string literal at or near \"+\"",
            ),
            (
                r"select U&'+0061' UESCAPE '+'",
                "42601 invalid Unicode escape character at or near \"'+'\"",
            ),
        ] {
            assert_eq!(read_sql(sql).unwrap_err(), error, "{sql}");
        }
        // `u` and `&` apart are a name and an operator.
        assert_eq!(read_sql("select u & 'a'").unwrap().len(), 4);
    }

    #[test]
    fn unistr_reads_every_form() {
        assert_eq!(unistr(r"\0064at\+0000610").unwrap(), "data0");
        assert_eq!(unistr(r"d\u0061t\U000000610").unwrap(), "data0");
        assert_eq!(unistr(r"a\\b").unwrap(), r"a\b");
        assert_eq!(unistr(r"\D83D\DE00").unwrap(), "\u{1F600}");
        for (s, code) in [
            (r"\db99", "42601"),
            (r"\udb99\u0061", "42601"),
            (r"\U002FFFFF", "22023"),
            (r"\xyz", "42601"),
        ] {
            assert_eq!(unistr(s).unwrap_err().code, code, "{s}");
        }
    }

    #[test]
    fn escape_errors_are_postgresqls() {
        let e = |sql: &str| {
            let e = escape_error(sql, 1, 8).unwrap();
            format!("{} {}", e.code, e.message)
        };
        assert_eq!(e(r"SELECT E'wrong: \u061'"), "22025 invalid Unicode escape");
        assert_eq!(
            e(r"SELECT E'wrong: \U0061'"),
            "22025 invalid Unicode escape"
        );
        assert_eq!(
            e(r"SELECT E'wrong: \udb99'"),
            "42601 invalid Unicode surrogate pair at or near \"'\""
        );
        assert_eq!(
            e(r"SELECT E'wrong: \udb99xy'"),
            "42601 invalid Unicode surrogate pair at or near \"x\""
        );
        assert_eq!(
            e(r"SELECT E'wrong: \udb99\u0061'"),
            "42601 invalid Unicode surrogate pair at or near \"\\u0061\""
        );
        assert_eq!(
            e(r"SELECT E'wrong: \U002FFFFF'"),
            "42601 invalid Unicode escape value at or near \"\\U002FFFFF\""
        );
        assert!(escape_error(r"SELECT E'\u0061'", 1, 8).is_none());
        assert!(escape_error(r"SELECT 'x'", 1, 8).is_none());
    }
}
