//! The lexeme syntax shared by `tsvector` and `tsquery` text (PostgreSQL's
//! `gettoken_tsvector`): a word is unquoted (ended by a blank, or in a
//! query by one of `! & | ( ) <` or `:`) or quoted in `'...'` (a doubled
//! `''` is one quote); a backslash takes the next character as it is in
//! either. A tsvector word may carry positions (`:1,3A`, read here); a
//! query word's `:` suffix is the query parser's (`tsquery.rs`).
//!
//! Errors are PostgreSQL's, 42601 with the whole input quoted:
//! `syntax error in tsvector: "..."` (or `tsquery`), `there is no escaped
//! character: "..."`, `wrong position info in tsvector: "..."`.

use crate::error::RowError;
use crate::tsvector::{MAX_POS, WordPos};

/// Whether `c` is a blank as PostgreSQL's `t_isspace` takes it.
pub(crate) fn is_blank(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\r' | '\x0b' | '\x0c')
}

/// The characters that end an unquoted word of a query.
pub(crate) fn is_query_operator(c: char) -> bool {
    matches!(c, '!' | '&' | '|' | '(' | ')' | '<')
}

/// A syntax error of a tsvector or tsquery text: 42601.
pub(crate) fn syntax_error(message: String) -> RowError {
    RowError::TextSearch {
        code: "42601",
        message,
    }
}

/// Reads words off a tsvector's or a query's text.
pub(crate) struct TokenReader<'a> {
    /// The whole input (for errors).
    pub text: &'a str,
    /// The byte offset of the next character.
    pub at: usize,
    /// A query's words: operators end them, and they have no positions.
    pub query: bool,
}

impl<'a> TokenReader<'a> {
    pub fn new(text: &'a str, query: bool) -> TokenReader<'a> {
        TokenReader { text, at: 0, query }
    }

    fn peek(&self) -> Option<char> {
        self.text[self.at..].chars().next()
    }

    fn bump(&mut self) {
        if let Some(c) = self.peek() {
            self.at += c.len_utf8();
        }
    }

    fn syntax(&self) -> RowError {
        let kind = if self.query { "tsquery" } else { "tsvector" };
        syntax_error(format!("syntax error in {kind}: \"{}\"", self.text))
    }

    /// The escaped character after a backslash (the backslash read).
    fn escaped(&mut self, word: &mut String) -> Result<(), RowError> {
        match self.peek() {
            None => Err(syntax_error(format!(
                "there is no escaped character: \"{}\"",
                self.text
            ))),
            Some(c) => {
                word.push(c);
                self.bump();
                Ok(())
            }
        }
    }

    /// The next word and, for a tsvector, its positions; `None` at the end
    /// of the text. A query's reader stops at the character after the
    /// word (an operator, a blank, `:`).
    pub fn next_word(&mut self) -> Result<Option<(String, Vec<WordPos>)>, RowError> {
        // Blanks before the word.
        while let Some(c) = self.peek() {
            if !is_blank(c) {
                break;
            }
            self.bump();
        }
        let mut word = String::new();
        match self.peek() {
            None => return Ok(None),
            Some('\'') => {
                self.bump();
                loop {
                    match self.peek() {
                        None => return Err(self.syntax()),
                        Some('\\') => {
                            self.bump();
                            self.escaped(&mut word)?;
                        }
                        Some('\'') => {
                            self.bump();
                            if self.peek() == Some('\'') {
                                word.push('\'');
                                self.bump();
                            } else {
                                break;
                            }
                        }
                        Some(c) => {
                            word.push(c);
                            self.bump();
                        }
                    }
                }
                if word.is_empty() {
                    return Err(self.syntax());
                }
                if self.query || self.peek() != Some(':') {
                    return Ok(Some((word, Vec::new())));
                }
                self.bump();
            }
            Some(c) if self.query && is_query_operator(c) => return Err(self.syntax()),
            Some(_) => loop {
                match self.peek() {
                    Some('\\') => {
                        self.bump();
                        self.escaped(&mut word)?;
                    }
                    None => return Ok(Some((word, Vec::new()))),
                    Some(c) if is_blank(c) || (self.query && is_query_operator(c)) => {
                        return Ok(Some((word, Vec::new())));
                    }
                    Some(':') if self.query => return Ok(Some((word, Vec::new()))),
                    Some(':') => {
                        self.bump();
                        break;
                    }
                    Some(c) => {
                        word.push(c);
                        self.bump();
                    }
                }
            },
        }
        // A tsvector word's positions, after its `:`.
        let positions = self.positions()?;
        Ok(Some((word, positions)))
    }

    /// `1,3A,5b`: positions (1 to [`MAX_POS`]; larger ones are
    /// [`MAX_POS`]), each with at most one weight letter (`*` is `A`, `D`
    /// is none); digits right after a weight are skipped, as PostgreSQL
    /// skips them.
    fn positions(&mut self) -> Result<Vec<WordPos>, RowError> {
        let mut out = Vec::new();
        loop {
            // A position's digits.
            let start = self.at;
            while matches!(self.peek(), Some('0'..='9')) {
                self.bump();
            }
            if start == self.at {
                return Err(self.syntax());
            }
            let digits = &self.text[start..self.at];
            let pos = digits
                .parse::<u64>()
                .map_or(MAX_POS, |p| p.min(u64::from(MAX_POS)) as u16);
            if pos == 0 {
                return Err(syntax_error(format!(
                    "wrong position info in tsvector: \"{}\"",
                    self.text
                )));
            }
            let mut weight = 0u8;
            loop {
                match self.peek() {
                    Some(',') => {
                        self.bump();
                        break;
                    }
                    None => {
                        out.push(WordPos::new(pos, weight));
                        return Ok(out);
                    }
                    Some(c) if is_blank(c) => {
                        out.push(WordPos::new(pos, weight));
                        return Ok(out);
                    }
                    Some(c @ ('a' | 'A' | '*' | 'b' | 'B' | 'c' | 'C' | 'd' | 'D')) => {
                        if weight != 0 {
                            return Err(self.syntax());
                        }
                        weight = match c {
                            'a' | 'A' | '*' => 3,
                            'b' | 'B' => 2,
                            'c' | 'C' => 1,
                            _ => 0,
                        };
                        self.bump();
                    }
                    Some('0'..='9') => self.bump(),
                    Some(_) => return Err(self.syntax()),
                }
            }
            out.push(WordPos::new(pos, weight));
        }
    }
}
