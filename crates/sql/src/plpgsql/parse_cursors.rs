//! The cursor declarations and statements of the block parser
//! (`[NO] SCROLL CURSOR ... FOR`, OPEN, FETCH, MOVE and a bound cursor's
//! arguments), as PostgreSQL's PL/pgSQL grammar reads them (README
//! "PL/pgSQL", cursors). CLOSE and FOR over a cursor are read in
//! `parse.rs` with the other statements, through these.

use super::{CursorDecl, DeclType, OpenSource, P, Sql, Step, Stmt, decl_type, word_of};
use crate::error::SqlError;
use sqlparser::tokenizer::Token;
use std::sync::Arc;

/// The cursor statements and declarations (README "PL/pgSQL", cursors).
impl P {
    /// `[NO] SCROLL CURSOR [(arg type, ...)] {FOR | IS} query` after a
    /// declared name, if a cursor's declaration comes.
    pub(super) fn cursor_decl(&mut self) -> Result<Option<CursorDecl>, SqlError> {
        let scroll = match self.word().as_deref() {
            Some("no") if word_of_opt(self.peek2()).as_deref() == Some("scroll") => {
                self.bump();
                self.bump();
                Some(false)
            }
            Some("scroll") => {
                self.bump();
                Some(true)
            }
            Some("cursor") => None,
            _ => return Ok(None),
        };
        self.expect_word("cursor")?;
        let mut args = Vec::new();
        if self.eat(&Token::LParen) {
            loop {
                let name = self.name()?;
                let text = self.until(|t| matches!(t, Token::Comma | Token::RParen))?;
                let DeclType::Type(ty) = decl_type(&text)? else {
                    return Err(SqlError::syntax(format!(
                        "syntax error at or near \"{text}\""
                    )));
                };
                args.push((name, ty));
                if !self.eat(&Token::Comma) {
                    break;
                }
            }
            self.expect(&Token::RParen)?;
        }
        if !self.eat_word("for") {
            self.expect_word("is")?;
        }
        let text = self.until(|t| *t == Token::SemiColon)?;
        let query = self.statement(&text)?;
        self.expect(&Token::SemiColon)?;
        Ok(Some(CursorDecl {
            scroll,
            args,
            query,
        }))
    }

    /// The bound cursor `name` declared in the blocks being read.
    pub(super) fn bound_cursor(&self, name: &str) -> Option<Arc<CursorDecl>> {
        (self.cursors.iter().rev())
            .find(|(n, _)| n == name)
            .map(|(_, c)| c.clone())
    }

    /// `OPEN cursor [(args)]` of a bound cursor, or `OPEN cursor [[NO]
    /// SCROLL] FOR {query | EXECUTE command [USING ...]}` of an unbound
    /// one.
    pub(super) fn open(&mut self) -> Result<Stmt, SqlError> {
        self.expect_word("open")?;
        let cursor = self.name()?;
        if self.bound_cursor(&cursor).is_some() {
            let args = self.cursor_args(&cursor)?;
            return Ok(Stmt::Open {
                cursor,
                source: OpenSource::Bound(args),
            });
        }
        let scroll = if self.eat_word("scroll") {
            Some(true)
        } else if self.word().as_deref() == Some("no") {
            self.bump();
            self.expect_word("scroll")?;
            Some(false)
        } else {
            None
        };
        self.expect_word("for")?;
        let source = if self.eat_word("execute") {
            let command = self.expr_until(&["using"], true)?;
            let using = match self.eat_word("using") {
                true => self.expr_list(&[])?,
                false => Vec::new(),
            };
            OpenSource::Execute {
                scroll,
                command,
                using,
            }
        } else {
            let text = self.until(|t| *t == Token::SemiColon)?;
            OpenSource::Query {
                scroll,
                query: self.statement(&text)?,
            }
        };
        Ok(Stmt::Open { cursor, source })
    }

    /// A bound cursor's arguments, `(value, ...)` with `name := value`
    /// (or `=>`) for named ones, as values in declared order;
    /// PostgreSQL's errors for a list that does not fit the declaration.
    pub(super) fn cursor_args(&mut self, cursor: &str) -> Result<Vec<Sql>, SqlError> {
        let decl = self.bound_cursor(cursor).expect("a bound cursor");
        let error = |m: String| SqlError::syntax(m);
        if self.peek() != Some(&Token::LParen) {
            if !decl.args.is_empty() {
                return Err(error(format!("cursor \"{cursor}\" has arguments")));
            }
            return Ok(Vec::new());
        }
        if decl.args.is_empty() {
            return Err(error(format!("cursor \"{cursor}\" has no arguments")));
        }
        self.bump();
        // PostgreSQL's reading: as many values as arguments, the k-th in
        // the k-th place unless it names its own.
        let n = decl.args.len();
        let mut values: Vec<Option<Sql>> = vec![None; n];
        for k in 0..n {
            let named = matches!(self.peek(), Some(Token::Word(_)))
                && matches!(self.peek2(), Some(Token::Assignment | Token::RArrow));
            let at = if named {
                let name = self.name()?;
                self.bump();
                (decl.args.iter().position(|(n, _)| *n == name)).ok_or_else(|| {
                    error(format!(
                        "cursor \"{cursor}\" has no argument named \"{name}\""
                    ))
                })?
            } else {
                k
            };
            if values[at].is_some() {
                return Err(error(format!(
                    "value for parameter \"{}\" of cursor \"{cursor}\" specified more than once",
                    decl.args[at].0
                )));
            }
            let text = self.until(|t| matches!(t, Token::Comma | Token::RParen))?;
            values[at] = Some(self.expression(&text)?);
            let last = k == n - 1;
            match self.peek() {
                Some(Token::RParen) if !last => {
                    return Err(error(format!(
                        "not enough arguments for cursor \"{cursor}\""
                    )));
                }
                Some(Token::Comma) if last => {
                    return Err(error(format!("too many arguments for cursor \"{cursor}\"")));
                }
                _ => {}
            }
            if !last {
                self.expect(&Token::Comma)?;
            }
        }
        self.expect(&Token::RParen)?;
        Ok(values
            .into_iter()
            .map(|v| v.expect("each place filled"))
            .collect())
    }

    /// `FETCH [direction {FROM | IN}] cursor INTO target` or `MOVE
    /// [direction {FROM | IN}] cursor`, as PostgreSQL's PL/pgSQL grammar
    /// reads them (a FETCH of a direction that can read several rows is
    /// 42601).
    pub(super) fn fetch(&mut self, moving: bool) -> Result<Stmt, SqlError> {
        use crate::cursors::position::{ALL, Direction};
        self.bump();
        let from_in = |p: &mut P| -> Result<(), SqlError> {
            if p.eat_word("from") || p.eat_word("in") {
                Ok(())
            } else {
                Err(p.error())
            }
        };
        let count_until_from = |p: &mut P| -> Result<Sql, SqlError> {
            let count = p.expr_until(&["from", "in"], true)?;
            from_in(p)?;
            Ok(count)
        };
        // Whether the next word is the cursor's name (INTO or `;` after).
        let names_cursor = |p: &P| {
            matches!(p.peek(), Some(Token::Word(_)))
                && (p.peek2() == Some(&Token::SemiColon)
                    || word_of_opt(p.peek2()).as_deref() == Some("into"))
        };
        let mut several = false;
        let step = match self.word().as_deref() {
            _ if names_cursor(self) => Step::Fixed(Direction::Forward(1)),
            Some(way @ ("next" | "prior" | "first" | "last")) => {
                let direction = match way {
                    "next" => Direction::Forward(1),
                    "prior" => Direction::Backward(1),
                    "first" => Direction::Absolute(1),
                    _ => Direction::Absolute(-1),
                };
                self.bump();
                from_in(self)?;
                Step::Fixed(direction)
            }
            Some("absolute") => {
                self.bump();
                Step::Absolute(count_until_from(self)?)
            }
            Some("relative") => {
                self.bump();
                Step::Relative(count_until_from(self)?)
            }
            Some("all") => {
                self.bump();
                from_in(self)?;
                several = true;
                Step::Fixed(Direction::Forward(ALL))
            }
            Some(way @ ("forward" | "backward")) => {
                let forward = way == "forward";
                self.bump();
                if self.eat_word("from") || self.eat_word("in") {
                    Step::Fixed(match forward {
                        true => Direction::Forward(1),
                        false => Direction::Backward(1),
                    })
                } else if self.eat_word("all") {
                    from_in(self)?;
                    several = true;
                    Step::Fixed(match forward {
                        true => Direction::Forward(ALL),
                        false => Direction::Backward(ALL),
                    })
                } else {
                    several = true;
                    let count = count_until_from(self)?;
                    match forward {
                        true => Step::Forward(count),
                        false => Step::Backward(count),
                    }
                }
            }
            _ => {
                several = true;
                Step::Forward(count_until_from(self)?)
            }
        };
        let cursor = self.name()?;
        if moving {
            return Ok(Stmt::Fetch {
                cursor,
                step,
                into: None,
            });
        }
        if several {
            return Err(SqlError::syntax(
                "FETCH statement cannot return multiple rows",
            ));
        }
        self.expect_word("into")?;
        let into = self.read_into()?;
        Ok(Stmt::Fetch {
            cursor,
            step,
            into: Some(into),
        })
    }
}

/// An optional token's unquoted word, lower case.
fn word_of_opt(t: Option<&Token>) -> Option<String> {
    t.and_then(word_of)
}
