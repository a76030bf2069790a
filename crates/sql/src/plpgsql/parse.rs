//! The block parser: PL/pgSQL text -> [`Block`] (README "PL/pgSQL").
//!
//! The text is tokenized by sqlparser's tokenizer (so strings, quoted
//! names, dollar quotes and comments are read as SQL reads them) and the
//! block structure is read here by recursive descent. Every SQL piece a
//! statement holds (an expression, a condition, a query, a statement) is
//! the text of its tokens, parsed by folio's SQL parser before the block
//! is accepted, so a syntax error anywhere is the CREATE's or the DO's
//! (42601), as in PostgreSQL.

use crate::error::SqlError;
use crate::parse::Parsed;
use crate::transaction_control::Ending;
use sqlparser::ast::{DataType, Statement};
use sqlparser::dialect::PostgreSqlDialect;
use sqlparser::tokenizer::{Token, Tokenizer, Whitespace};
use std::sync::Arc;

#[path = "parse_cursors.rs"]
mod cursors;

/// What the range operator `..` of an integer FOR loop is read as: the
/// tokenizer would take `1..10` for numbers. Not a name a body can hold
/// unquoted (it starts with a character no identifier starts with after
/// the rewrite, see [`mark_ranges`]).
const RANGE: &str = "__plpgsql_range__";

/// `[<<label>>] [DECLARE ...] BEGIN ... [EXCEPTION ...] END [label]`.
#[derive(Debug, Clone, PartialEq)]
pub struct Block {
    pub label: Option<String>,
    pub decls: Vec<Decl>,
    pub body: Vec<Stmt>,
    pub handlers: Vec<Handler>,
    /// `#print_strict_params on | off` written before a body's block
    /// (the outermost block's only; `None` elsewhere).
    pub print_strict_params: Option<bool>,
}

/// `name [CONSTANT] type [NOT NULL] [{DEFAULT | := | =} expr]`.
#[derive(Debug, Clone, PartialEq)]
pub struct Decl {
    pub name: String,
    pub ty: DeclType,
    pub constant: bool,
    pub not_null: bool,
    pub default: Option<Sql>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum DeclType {
    /// A SQL type.
    Type(DataType),
    /// `record`: takes the shape of the row assigned to it.
    Record,
    /// `name%TYPE`: a variable's type, or `table.column%TYPE` a column's.
    TypeOf(Vec<String>),
    /// `table%ROWTYPE`: a record of the table's columns (a table's name
    /// alone as the type is read as `Type`, then found to be a table).
    RowType(Vec<String>),
    /// `ALIAS FOR $n` (or a name).
    Alias(String),
    /// `[[NO] SCROLL] CURSOR [(args)] FOR query`: a bound cursor
    /// variable (a `refcursor` whose value is its own name, as
    /// PostgreSQL 15's).
    Cursor(Arc<CursorDecl>),
}

/// A bound cursor's declaration: its query, the arguments the query
/// names, and how it scrolls.
#[derive(Debug, Clone, PartialEq)]
pub struct CursorDecl {
    /// `SCROLL` (`Some(true)`), `NO SCROLL` (`Some(false)`), or the
    /// default PostgreSQL's plan allows.
    pub scroll: Option<bool>,
    /// Each argument's name and type: variables of the query while OPEN
    /// runs it.
    pub args: Vec<(String, DataType)>,
    pub query: Sql,
}

/// What `OPEN` opens.
#[derive(Debug, Clone, PartialEq)]
pub enum OpenSource {
    /// A bound cursor's query, with its arguments' values in declared
    /// order (named ones put in place at parse).
    Bound(Vec<Sql>),
    /// `[[NO] SCROLL] FOR query`.
    Query { scroll: Option<bool>, query: Sql },
    /// `[[NO] SCROLL] FOR EXECUTE command [USING ...]`.
    Execute {
        scroll: Option<bool>,
        command: Sql,
        using: Vec<Sql>,
    },
}

/// A PL/pgSQL FETCH or MOVE direction; the counts are expressions,
/// evaluated when the statement runs.
#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    /// NEXT, PRIOR, FIRST, LAST, ALL, FORWARD / BACKWARD [ALL], a
    /// direction of fixed count.
    Fixed(crate::cursors::position::Direction),
    Absolute(Sql),
    Relative(Sql),
    Forward(Sql),
    Backward(Sql),
}

/// `WHEN cond [OR cond ...] THEN stmts`.
#[derive(Debug, Clone, PartialEq)]
pub struct Handler {
    pub conditions: Vec<Condition>,
    pub body: Vec<Stmt>,
}

/// An exception condition: a name (`unique_violation`, `others`) or a
/// code (`SQLSTATE '23505'`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Condition {
    Name(String),
    Code(String),
}

/// A SQL piece: its text and its parse (an expression is held as the
/// query `SELECT expr`, as PostgreSQL evaluates it).
#[derive(Debug, Clone, PartialEq)]
pub struct Sql {
    pub text: String,
    pub parsed: Box<Parsed>,
    /// Its number in the body, from 0 in the order read: where the
    /// session's plan cache keeps its plan (`plan_cache.rs`). A body
    /// parsed again numbers its pieces the same.
    pub id: usize,
}

/// `INTO [STRICT] target, ...`.
#[derive(Debug, Clone, PartialEq)]
pub struct Into {
    pub strict: bool,
    /// Each target: a variable, or a record's field (`r.f`).
    pub targets: Vec<Vec<String>>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Stmt {
    Assign {
        target: Vec<String>,
        value: Sql,
    },
    If {
        branches: Vec<(Sql, Vec<Stmt>)>,
        otherwise: Option<Vec<Stmt>>,
    },
    /// `CASE [operand] WHEN ... THEN ... [ELSE ...] END CASE`: with an
    /// operand each WHEN is a list of values (`SELECT a, b`), else a
    /// condition.
    Case {
        operand: Option<Sql>,
        branches: Vec<(Sql, Vec<Stmt>)>,
        otherwise: Option<Vec<Stmt>>,
    },
    Loop {
        label: Option<String>,
        kind: LoopKind,
        body: Vec<Stmt>,
    },
    /// `EXIT` (`continue` false) or `CONTINUE`, `[label] [WHEN cond]`.
    Exit {
        continue_: bool,
        label: Option<String>,
        when: Option<Sql>,
    },
    Return(Option<Sql>),
    /// `RETURN NEXT [expr]`: a row of a set-returning function
    /// (`set_returning.rs`); without an expression, the OUT variables.
    ReturnNext(Option<Sql>),
    /// `RETURN QUERY query`: its rows.
    ReturnQuery(Sql),
    /// `RETURN QUERY EXECUTE command [USING ...]`: its rows.
    ReturnQueryExecute {
        command: Sql,
        using: Vec<Sql>,
    },
    Perform(Sql),
    /// Any SQL statement, with its `INTO` taken out.
    Sql {
        sql: Sql,
        into: Option<Into>,
    },
    Execute {
        command: Sql,
        into: Option<Into>,
        using: Vec<Sql>,
    },
    Raise(Raise),
    /// `GET DIAGNOSTICS var = ROW_COUNT, ...`.
    GetDiagnostics(Vec<(String, String)>),
    /// `GET STACKED DIAGNOSTICS var = item, ...` in a handler: items of
    /// the error being handled (`message_text`, `returned_sqlstate`, ...).
    GetStackedDiagnostics(Vec<(String, String)>),
    /// `ASSERT condition [, message]`.
    Assert {
        condition: Sql,
        message: Option<Sql>,
    },
    Null,
    Block(Block),
    /// `OPEN cursor ...`.
    Open {
        cursor: String,
        source: OpenSource,
    },
    /// `FETCH [direction {FROM | IN}] cursor INTO target` (`into`), or
    /// `MOVE [direction {FROM | IN}] cursor` (no `into`).
    Fetch {
        cursor: String,
        step: Step,
        into: Option<Into>,
    },
    /// `CLOSE cursor`.
    Close(String),
    /// `COMMIT` or `ROLLBACK [AND [NO] CHAIN]` in a procedure or DO
    /// block (`transaction_control.rs`).
    EndTransaction(Ending),
}

impl Stmt {
    /// The statement lists an IF's or a CASE's branches hold, ELSE's
    /// last; none for another statement.
    pub fn branches(&self) -> Vec<&[Stmt]> {
        match self {
            Stmt::If {
                branches,
                otherwise,
            }
            | Stmt::Case {
                branches,
                otherwise,
                ..
            } => (branches.iter().map(|(_, body)| body.as_slice()))
                .chain(otherwise.as_deref())
                .collect(),
            _ => Vec::new(),
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub enum LoopKind {
    Plain,
    While(Sql),
    Range {
        var: String,
        reverse: bool,
        from: Sql,
        to: Sql,
        by: Option<Sql>,
    },
    Query {
        var: String,
        query: Sql,
    },
    Execute {
        var: String,
        command: Sql,
        using: Vec<Sql>,
    },
    /// `FOR var IN cursor [(args)]`: a bound cursor opened, read and
    /// closed; `var` is a record of the loop.
    Cursor {
        var: String,
        cursor: String,
        args: Vec<Sql>,
    },
    /// `FOREACH var [SLICE n] IN ARRAY expr`.
    ForEach {
        var: Vec<String>,
        slice: u32,
        array: Sql,
    },
}

/// `RAISE [level] ['format', args] [condition] [USING option = expr, ...]`.
#[derive(Debug, Clone, PartialEq)]
pub struct Raise {
    /// `debug`, `log`, `info`, `notice`, `warning` or `exception`.
    pub level: String,
    pub format: Option<String>,
    pub args: Vec<Sql>,
    pub condition: Option<Condition>,
    /// `MESSAGE`, `DETAIL`, `HINT`, `ERRCODE` (lower case) and their
    /// values.
    pub options: Vec<(String, Sql)>,
}

/// The block of a function body or a DO.
pub fn parse(text: &str) -> Result<Block, SqlError> {
    let marked = mark_ranges(text);
    let tokens = Tokenizer::new(&PostgreSqlDialect {}, &marked)
        .tokenize()
        .map_err(|e| SqlError::syntax(e.to_string()))?;
    let mut p = P {
        tokens,
        at: 0,
        pieces: 0,
        cursors: Vec::new(),
    };
    p.skip_ws();
    let print_strict_params = p.directives()?;
    let mut block = p.block(None)?;
    block.print_strict_params = print_strict_params;
    p.eat(&Token::SemiColon);
    if !p.at_end() {
        return Err(p.error());
    }
    Ok(block)
}

/// The block a SQL procedure's body (`text`) runs as: its statements in
/// order, each query's rows discarded (as PERFORM's) but the last
/// query's when `outputs` (the OUT and INOUT arguments' names) are some:
/// its first row goes into them, as PostgreSQL returns it.
pub fn sql_body(text: &str, outputs: &[String]) -> Result<Block, SqlError> {
    let text = text
        .strip_prefix(crate::procedures::ATOMIC_PREFIX)
        .unwrap_or(text);
    let parsed = crate::parse::statements(text)?;
    let is_query = |p: &Parsed| matches!(p, Parsed::Sql(s) if matches!(**s, Statement::Query(_)));
    let last_query = parsed.iter().rposition(is_query);
    let body = (parsed.into_iter().enumerate())
        .map(|(id, parsed)| {
            let text = match &parsed {
                Parsed::Sql(statement) => statement.to_string(),
                _ => String::new(),
            };
            let query = is_query(&parsed);
            let sql = Sql {
                text,
                parsed: Box::new(parsed),
                id,
            };
            match outputs.is_empty() || Some(id) != last_query {
                true if query => Stmt::Perform(sql),
                true => Stmt::Sql { sql, into: None },
                false => Stmt::Sql {
                    sql,
                    into: Some(Into {
                        strict: false,
                        targets: outputs.iter().map(|o| vec![o.clone()]).collect(),
                    }),
                },
            }
        })
        .collect();
    Ok(Block {
        label: None,
        decls: Vec::new(),
        body,
        handlers: Vec::new(),
        print_strict_params: None,
    })
}

/// `text` with each `..` outside strings, quoted names and comments
/// replaced by [`RANGE`] between spaces.
fn mark_ranges(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    let copy_until = |out: &mut String, i: &mut usize, end: &dyn Fn(&[char], usize) -> bool| {
        while *i < chars.len() && !end(&chars, *i) {
            out.push(chars[*i]);
            *i += 1;
        }
    };
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        match c {
            '\'' | '"' => {
                out.push(c);
                i += 1;
                loop {
                    copy_until(&mut out, &mut i, &|s, k| s[k] == c);
                    if i >= chars.len() {
                        break;
                    }
                    out.push(c);
                    i += 1;
                    // A doubled quote is one inside the string.
                    if chars.get(i) == Some(&c) {
                        out.push(c);
                        i += 1;
                    } else {
                        break;
                    }
                }
            }
            '-' if next == Some('-') => copy_until(&mut out, &mut i, &|s, k| s[k] == '\n'),
            '/' if next == Some('*') => {
                copy_until(&mut out, &mut i, &|s, k| {
                    k > 1 && s[k - 2] == '*' && s[k - 1] == '/'
                });
            }
            '$' if !chars[..i]
                .last()
                .is_some_and(|p| p.is_alphanumeric() || *p == '_') =>
            {
                // A dollar quote `$tag$ ... $tag$` (a `$1` is copied as is).
                let tag_end = (i + 1..chars.len())
                    .find(|&k| !(chars[k].is_alphanumeric() || chars[k] == '_'))
                    .unwrap_or(chars.len());
                if chars.get(tag_end) == Some(&'$')
                    && !chars.get(i + 1).is_some_and(|d| d.is_ascii_digit())
                {
                    let tag: String = chars[i..=tag_end].iter().collect();
                    out.push_str(&tag);
                    i = tag_end + 1;
                    let rest: String = chars[i..].iter().collect();
                    match rest.find(&tag) {
                        Some(at) => {
                            let inner = &rest[..at + tag.len()];
                            out.push_str(inner);
                            i += inner.chars().count();
                        }
                        None => {
                            out.push_str(&rest);
                            i = chars.len();
                        }
                    }
                } else {
                    out.push(c);
                    i += 1;
                }
            }
            '.' if next == Some('.') => {
                out.push(' ');
                out.push_str(RANGE);
                out.push(' ');
                i += 2;
            }
            _ => {
                out.push(c);
                i += 1;
            }
        }
    }
    out
}

/// The parser: tokens with their whitespace (kept so a SQL piece's text
/// is its tokens written back), `at` the next token that is not
/// whitespace.
struct P {
    tokens: Vec<Token>,
    at: usize,
    /// How many SQL pieces were read (the next one's [`Sql::id`]).
    pieces: usize,
    /// The bound cursors declared in the blocks being read, innermost
    /// last: OPEN's and FOR's arguments are checked against them.
    cursors: Vec<(String, Arc<CursorDecl>)>,
}

impl P {
    fn skip_ws(&mut self) {
        while matches!(self.tokens.get(self.at), Some(Token::Whitespace(_))) {
            self.at += 1;
        }
    }

    fn at_end(&self) -> bool {
        self.at >= self.tokens.len() || self.tokens[self.at] == Token::EOF
    }

    fn peek(&self) -> Option<&Token> {
        self.tokens.get(self.at).filter(|t| **t != Token::EOF)
    }

    /// The next token, if it is an unquoted word, lower case.
    fn word(&self) -> Option<String> {
        word_of(self.peek()?)
    }

    /// The token after the next, skipping whitespace.
    fn peek2(&self) -> Option<&Token> {
        self.tokens[self.at + 1..]
            .iter()
            .find(|t| !matches!(t, Token::Whitespace(_)))
            .filter(|t| **t != Token::EOF)
    }

    fn bump(&mut self) -> Option<Token> {
        let t = self.peek().cloned();
        if t.is_some() {
            self.at += 1;
            self.skip_ws();
        }
        t
    }

    fn eat(&mut self, token: &Token) -> bool {
        if self.peek() == Some(token) {
            self.bump();
            true
        } else {
            false
        }
    }

    fn eat_word(&mut self, word: &str) -> bool {
        if self.word().as_deref() == Some(word) {
            self.bump();
            true
        } else {
            false
        }
    }

    fn expect(&mut self, token: &Token) -> Result<(), SqlError> {
        if self.eat(token) {
            Ok(())
        } else {
            Err(self.error())
        }
    }

    fn expect_word(&mut self, word: &str) -> Result<(), SqlError> {
        if self.eat_word(word) {
            Ok(())
        } else {
            Err(self.error())
        }
    }

    /// PostgreSQL's `syntax error at or near "x"` at the next token.
    fn error(&self) -> SqlError {
        match self.peek() {
            Some(t) => SqlError::syntax(format!("syntax error at or near \"{}\"", shown(t))),
            None => SqlError::syntax("syntax error at end of input"),
        }
    }

    /// A name (an unquoted word lower case, a quoted one as written).
    fn name(&mut self) -> Result<String, SqlError> {
        match self.peek() {
            Some(Token::Word(w)) => {
                let name = match w.quote_style {
                    None => w.value.to_lowercase(),
                    Some(_) => w.value.clone(),
                };
                self.bump();
                Ok(name)
            }
            _ => Err(self.error()),
        }
    }

    /// A dotted name (`r.f`, `t.c`).
    fn dotted(&mut self) -> Result<Vec<String>, SqlError> {
        let mut parts = vec![self.name()?];
        while self.eat(&Token::Period) {
            parts.push(self.name()?);
        }
        Ok(parts)
    }

    /// The tokens from here up to (not including) the first token at
    /// nesting depth 0 for which `stop` holds, as text; the parser left at
    /// that token. Brackets and `CASE ... END` nest.
    fn until(&mut self, stop: impl Fn(&Token) -> bool) -> Result<String, SqlError> {
        let start = self.at;
        let mut depth = 0usize;
        let mut cases = 0usize;
        while let Some(t) = self.peek() {
            if depth == 0 && cases == 0 && stop(t) {
                break;
            }
            match t {
                Token::LParen | Token::LBracket => depth += 1,
                Token::RParen | Token::RBracket => depth = depth.saturating_sub(1),
                _ => match word_of(t).as_deref() {
                    Some("case") => cases += 1,
                    Some("end") if cases > 0 => cases -= 1,
                    _ => {}
                },
            }
            self.at += 1;
        }
        if self.peek().is_none() {
            return Err(SqlError::syntax("syntax error at end of input"));
        }
        let text = render(&self.tokens[start..self.at]);
        self.skip_ws();
        Ok(text)
    }

    fn until_word(&mut self, words: &[&str]) -> Result<String, SqlError> {
        self.until(|t| word_of(t).is_some_and(|w| words.contains(&w.as_str())))
    }

    /// An expression up to a word in `words` (or `;` if `semicolon`).
    fn expr_until(&mut self, words: &[&str], semicolon: bool) -> Result<Sql, SqlError> {
        let text = self.until(|t| {
            (semicolon && *t == Token::SemiColon)
                || word_of(t).is_some_and(|w| words.contains(&w.as_str()))
        })?;
        self.expression(&text)
    }

    /// Expressions separated by commas, up to a word in `words` or `;`.
    fn expr_list(&mut self, words: &[&str]) -> Result<Vec<Sql>, SqlError> {
        let mut out = Vec::new();
        loop {
            let text = self.until(|t| {
                *t == Token::SemiColon
                    || *t == Token::Comma
                    || word_of(t).is_some_and(|w| words.contains(&w.as_str()))
            })?;
            out.push(self.expression(&text)?);
            if !self.eat(&Token::Comma) {
                return Ok(out);
            }
        }
    }

    /// `<<label>>`, if one comes.
    fn label(&mut self) -> Result<Option<String>, SqlError> {
        if !self.eat(&Token::ShiftLeft) {
            return Ok(None);
        }
        let name = self.name()?;
        self.expect(&Token::ShiftRight)?;
        Ok(Some(name))
    }

    fn block(&mut self, label: Option<String>) -> Result<Block, SqlError> {
        let label = match label {
            Some(l) => Some(l),
            None => self.label()?,
        };
        let mut decls = Vec::new();
        let cursors_before = self.cursors.len();
        if self.eat_word("declare") {
            while self.word().as_deref() != Some("begin") {
                if self.at_end() {
                    return Err(self.error());
                }
                // (Each DECLARE of a nested section may repeat the word.)
                if self.eat_word("declare") {
                    continue;
                }
                decls.push(self.decl()?);
            }
        }
        self.expect_word("begin")?;
        let body = self.stmts(&["end", "exception"])?;
        let mut handlers = Vec::new();
        if self.eat_word("exception") {
            while self.eat_word("when") {
                let mut conditions = vec![self.condition()?];
                while self.eat_word("or") {
                    conditions.push(self.condition()?);
                }
                self.expect_word("then")?;
                let body = self.stmts(&["end", "when"])?;
                handlers.push(Handler { conditions, body });
            }
            if handlers.is_empty() {
                return Err(self.error());
            }
        }
        self.expect_word("end")?;
        self.end_label(&label)?;
        self.cursors.truncate(cursors_before);
        Ok(Block {
            label,
            decls,
            body,
            handlers,
            print_strict_params: None,
        })
    }

    /// An optional label after `END [LOOP]`, which must be the block's.
    fn end_label(&mut self, label: &Option<String>) -> Result<(), SqlError> {
        if let Some(Token::Word(_)) = self.peek() {
            let at = self.word();
            let name = self.name()?;
            if label.as_deref() != Some(name.as_str()) {
                return Err(match label {
                    Some(l) => SqlError::syntax(format!(
                        "end label \"{name}\" differs from block's label \"{l}\""
                    )),
                    None => SqlError::syntax(format!(
                        "end label \"{}\" specified for unlabeled block",
                        at.unwrap_or(name)
                    )),
                });
            }
        }
        Ok(())
    }

    fn condition(&mut self) -> Result<Condition, SqlError> {
        if self.eat_word("sqlstate") {
            return match self.bump() {
                Some(Token::SingleQuotedString(code)) => sqlstate(&code).map(Condition::Code),
                _ => Err(self.error()),
            };
        }
        let name = self.name()?;
        if name != "others" && super::conditions::code_of(&name).is_none() {
            return Err(SqlError::new(
                "42704",
                format!("unrecognized exception condition \"{name}\""),
            ));
        }
        Ok(Condition::Name(name))
    }

    fn decl(&mut self) -> Result<Decl, SqlError> {
        let name = self.name()?;
        if self.eat_word("alias") {
            self.expect_word("for")?;
            let target = match self.bump() {
                Some(Token::Placeholder(p)) => p,
                Some(Token::Word(w)) => w.value.to_lowercase(),
                _ => return Err(self.error()),
            };
            self.expect(&Token::SemiColon)?;
            return Ok(Decl {
                name,
                ty: DeclType::Alias(target),
                constant: false,
                not_null: false,
                default: None,
            });
        }
        let constant = self.eat_word("constant");
        if let Some(cursor) = self.cursor_decl()? {
            let cursor = Arc::new(cursor);
            self.cursors.push((name.clone(), cursor.clone()));
            return Ok(Decl {
                name,
                ty: DeclType::Cursor(cursor),
                constant: false,
                not_null: false,
                default: None,
            });
        }
        let ty_text = self.until(|t| {
            matches!(t, Token::SemiColon | Token::Assignment | Token::Eq)
                || word_of(t).is_some_and(|w| matches!(w.as_str(), "default" | "not" | "collate"))
        })?;
        let ty = decl_type(&ty_text)?;
        if self.eat_word("collate") {
            self.name()?;
        }
        let not_null = if self.eat_word("not") {
            self.expect_word("null")?;
            true
        } else {
            false
        };
        let default =
            if self.eat(&Token::Assignment) || self.eat(&Token::Eq) || self.eat_word("default") {
                Some(self.expr_until(&[], true)?)
            } else {
                None
            };
        self.expect(&Token::SemiColon)?;
        if default.is_none() && (constant || not_null) {
            return Err(SqlError::syntax(format!(
                "variable \"{name}\" must have a default value, since it's declared NOT NULL"
            )));
        }
        Ok(Decl {
            name,
            ty,
            constant,
            not_null,
            default,
        })
    }

    /// Statements up to one of `ends` (a word).
    fn stmts(&mut self, ends: &[&str]) -> Result<Vec<Stmt>, SqlError> {
        let mut out = Vec::new();
        loop {
            match self.word() {
                Some(w) if ends.contains(&w.as_str()) => return Ok(out),
                _ if self.at_end() => return Err(self.error()),
                _ => out.push(self.stmt()?),
            }
        }
    }

    fn stmt(&mut self) -> Result<Stmt, SqlError> {
        let label = self.label()?;
        let word = self.word().unwrap_or_default();
        if label.is_some()
            && !matches!(
                word.as_str(),
                "declare" | "begin" | "loop" | "while" | "for" | "foreach"
            )
        {
            return Err(self.error());
        }
        let stmt = match word.as_str() {
            "declare" | "begin" => {
                let block = self.block(label)?;
                self.expect(&Token::SemiColon)?;
                return Ok(Stmt::Block(block));
            }
            "if" => self.if_stmt()?,
            "case" if self.peek2() != Some(&Token::Assignment) => self.case_stmt()?,
            "loop" | "while" | "for" => self.loop_stmt(label)?,
            "foreach" => self.foreach_stmt(label)?,
            "exit" | "continue" => {
                self.bump();
                let label = match self.word().as_deref() {
                    Some("when") | None => None,
                    Some(_) => Some(self.name()?),
                };
                let when = if self.eat_word("when") {
                    Some(self.expr_until(&[], true)?)
                } else {
                    None
                };
                Stmt::Exit {
                    continue_: word == "continue",
                    label,
                    when,
                }
            }
            "return" => {
                self.bump();
                match self.word().as_deref() {
                    Some("next") => {
                        self.bump();
                        match self.peek() {
                            Some(Token::SemiColon) => Stmt::ReturnNext(None),
                            _ => Stmt::ReturnNext(Some(self.expr_until(&[], true)?)),
                        }
                    }
                    Some("query") => {
                        self.bump();
                        if self.eat_word("execute") {
                            let command = self.expr_until(&["using"], true)?;
                            let using = match self.eat_word("using") {
                                true => self.expr_list(&[])?,
                                false => Vec::new(),
                            };
                            Stmt::ReturnQueryExecute { command, using }
                        } else {
                            let text = self.until(|t| *t == Token::SemiColon)?;
                            Stmt::ReturnQuery(self.statement(&text)?)
                        }
                    }
                    _ if self.peek() == Some(&Token::SemiColon) => Stmt::Return(None),
                    _ => Stmt::Return(Some(self.expr_until(&[], true)?)),
                }
            }
            "perform" => {
                self.bump();
                let text = self.until(|t| *t == Token::SemiColon)?;
                Stmt::Perform(self.statement(&format!("SELECT {text}"))?)
            }
            "execute" => {
                self.bump();
                let command = self.expr_until(&["into", "using"], true)?;
                let (into, using) = self.read_into_using()?;
                Stmt::Execute {
                    command,
                    into,
                    using,
                }
            }
            "raise" => Stmt::Raise(self.raise()?),
            "get" => {
                self.bump();
                let stacked = self.eat_word("stacked");
                if !stacked {
                    self.eat_word("current");
                }
                self.expect_word("diagnostics")?;
                let mut items = Vec::new();
                loop {
                    let var = self.name()?;
                    if !self.eat(&Token::Eq) && !self.eat(&Token::Assignment) {
                        return Err(self.error());
                    }
                    let item = self.name()?;
                    let known = match stacked {
                        true => STACKED_ITEMS.contains(&item.as_str()),
                        false => item == "row_count",
                    };
                    if !known {
                        let kind = if stacked { "STACKED" } else { "CURRENT" };
                        return Err(
                            match (STACKED_ITEMS.contains(&item.as_str()), item.as_str()) {
                                (true, _) | (_, "row_count") => SqlError::syntax(format!(
                                    "diagnostics item {} is not allowed in GET {kind} DIAGNOSTICS",
                                    item.to_uppercase()
                                )),
                                _ => SqlError::unsupported(format!(
                                    "GET DIAGNOSTICS item {}",
                                    item.to_uppercase()
                                )),
                            },
                        );
                    }
                    items.push((var, item));
                    if !self.eat(&Token::Comma) {
                        break;
                    }
                }
                match stacked {
                    true => Stmt::GetStackedDiagnostics(items),
                    false => Stmt::GetDiagnostics(items),
                }
            }
            "null" if self.peek2() == Some(&Token::SemiColon) => {
                self.bump();
                Stmt::Null
            }
            "open" => self.open()?,
            "fetch" | "move" => self.fetch(word == "move")?,
            "close" => {
                self.bump();
                Stmt::Close(self.name()?)
            }
            "assert" => {
                self.bump();
                let text = self.until(|t| matches!(t, Token::SemiColon | Token::Comma))?;
                let condition = self.expression(&text)?;
                let message = match self.eat(&Token::Comma) {
                    true => Some(self.expr_until(&[], true)?),
                    false => None,
                };
                Stmt::Assert { condition, message }
            }
            "commit" | "rollback" => {
                self.bump();
                // `[AND [NO] CHAIN]`.
                let chain = self.eat_word("and") && {
                    let no = self.eat_word("no");
                    self.expect_word("chain")?;
                    !no
                };
                Stmt::EndTransaction(Ending {
                    commit: word == "commit",
                    chain,
                })
            }
            _ if self.is_assignment() => {
                let target = match self.peek() {
                    Some(Token::Placeholder(p)) => {
                        let number = vec![p.clone()];
                        self.bump();
                        number
                    }
                    _ => self.dotted()?,
                };
                if self.peek() == Some(&Token::LBracket) {
                    return self.subscripted_assignment(target);
                }
                if !self.eat(&Token::Assignment) {
                    self.expect(&Token::Eq)?;
                }
                Stmt::Assign {
                    target,
                    value: self.expr_until(&[], true)?,
                }
            }
            _ => self.sql_stmt()?,
        };
        self.expect(&Token::SemiColon)?;
        Ok(stmt)
    }

    /// The compiler directives before a body's block: `#print_strict_params
    /// on | off` (its value), `#option dump` (PostgreSQL writes the
    /// compiled body to its log: nothing here); `#variable_conflict` is
    /// 0A000 (folio resolves a name that is both a variable and a column
    /// one way only).
    fn directives(&mut self) -> Result<Option<bool>, SqlError> {
        let mut print = None;
        while self.eat(&Token::Sharp) {
            match self.word().as_deref() {
                Some("print_strict_params") => {
                    self.bump();
                    print = Some(match self.word().as_deref() {
                        Some("on") => true,
                        Some("off") => false,
                        _ => return Err(self.error()),
                    });
                    self.bump();
                }
                Some("option") => {
                    self.bump();
                    self.expect_word("dump")?;
                }
                Some("variable_conflict") => {
                    return Err(SqlError::unsupported("#variable_conflict"));
                }
                _ => return Err(self.error()),
            }
        }
        Ok(print)
    }

    /// Whether a `name [. name] [[...]...] {:= | =}` comes.
    fn is_assignment(&self) -> bool {
        let mut rest = (self.tokens[self.at..].iter())
            .filter(|t| !matches!(t, Token::Whitespace(_)))
            .peekable();
        let is_op = |t: Option<&Token>| matches!(t, Some(Token::Assignment | Token::Eq));
        match rest.next() {
            // `$1 := v`: an argument by number.
            Some(Token::Placeholder(p)) if p.starts_with('$') => return is_op(rest.next()),
            Some(Token::Word(_)) => {}
            _ => return false,
        }
        if rest.next_if_eq(&&Token::Period).is_some()
            && rest.next_if(|t| matches!(t, Token::Word(_))).is_none()
        {
            return false;
        }
        // Subscripts, each bracket to its closing one.
        let mut depth = 0usize;
        while depth > 0 || rest.peek() == Some(&&Token::LBracket) {
            match rest.next() {
                Some(Token::LBracket) => depth += 1,
                Some(Token::RBracket) => depth -= 1,
                Some(_) => {}
                None => return false,
            }
        }
        is_op(rest.next())
    }

    /// The rest of `target[...]... := value;` after the target: an
    /// assignment of the value SQL's `SET target[...] = value` gives it
    /// (`subscripted_targets.rs`).
    fn subscripted_assignment(&mut self, target: Vec<String>) -> Result<Stmt, SqlError> {
        let subscripts = self.until(|t| matches!(t, Token::Assignment | Token::Eq))?;
        self.bump();
        let value = self.until(|t| *t == Token::SemiColon)?;
        self.expect(&Token::SemiColon)?;
        let parsed =
            super::subscripted_targets::value(&target, &subscripts, &value).map_err(|mut e| {
                e.position = None;
                e.location = None;
                e
            })?;
        let text = format!("{}{subscripts} := {value}", target.join("."));
        Ok(Stmt::Assign {
            target,
            value: self.numbered(text, parsed),
        })
    }

    fn if_stmt(&mut self) -> Result<Stmt, SqlError> {
        self.expect_word("if")?;
        let mut branches = Vec::new();
        let mut otherwise = None;
        loop {
            let cond = self.expr_until(&["then"], false)?;
            self.expect_word("then")?;
            let body = self.stmts(&["elsif", "elseif", "else", "end"])?;
            branches.push((cond, body));
            if self.eat_word("elsif") || self.eat_word("elseif") {
                continue;
            }
            if self.eat_word("else") {
                otherwise = Some(self.stmts(&["end"])?);
            }
            break;
        }
        self.expect_word("end")?;
        self.expect_word("if")?;
        Ok(Stmt::If {
            branches,
            otherwise,
        })
    }

    fn case_stmt(&mut self) -> Result<Stmt, SqlError> {
        self.expect_word("case")?;
        let operand = match self.word().as_deref() {
            Some("when") => None,
            _ => Some(self.expr_until(&["when"], false)?),
        };
        let mut branches = Vec::new();
        while self.eat_word("when") {
            let text = self.until_word(&["then"])?;
            self.expect_word("then")?;
            let cond = self.expression(&text)?;
            let body = self.stmts(&["when", "else", "end"])?;
            branches.push((cond, body));
        }
        if branches.is_empty() {
            return Err(self.error());
        }
        let otherwise = if self.eat_word("else") {
            Some(self.stmts(&["end"])?)
        } else {
            None
        };
        self.expect_word("end")?;
        self.expect_word("case")?;
        Ok(Stmt::Case {
            operand,
            branches,
            otherwise,
        })
    }

    fn loop_stmt(&mut self, label: Option<String>) -> Result<Stmt, SqlError> {
        let kind = if self.eat_word("while") {
            let cond = self.expr_until(&["loop"], false)?;
            LoopKind::While(cond)
        } else if self.eat_word("for") {
            let var = self.name()?;
            if self.eat(&Token::Comma) {
                return Err(SqlError::unsupported("FOR with a list of target variables"));
            }
            self.expect_word("in")?;
            match self.word() {
                Some(cursor) if self.bound_cursor(&cursor).is_some() => {
                    self.bump();
                    let args = self.cursor_args(&cursor)?;
                    LoopKind::Cursor { var, cursor, args }
                }
                _ => self.for_kind(var)?,
            }
        } else {
            LoopKind::Plain
        };
        self.expect_word("loop")?;
        let body = self.stmts(&["end"])?;
        self.expect_word("end")?;
        self.expect_word("loop")?;
        self.end_label(&label)?;
        Ok(Stmt::Loop { label, kind, body })
    }

    /// `FOREACH var [SLICE n] IN ARRAY expr LOOP ... END LOOP [label]`.
    fn foreach_stmt(&mut self, label: Option<String>) -> Result<Stmt, SqlError> {
        self.expect_word("foreach")?;
        let var = self.dotted()?;
        let slice = if self.eat_word("slice") {
            match self.bump() {
                Some(Token::Number(n, _)) => n.parse().map_err(|_| self.error())?,
                _ => return Err(self.error()),
            }
        } else {
            0
        };
        self.expect_word("in")?;
        self.expect_word("array")?;
        let array = self.expr_until(&["loop"], false)?;
        self.expect_word("loop")?;
        let body = self.stmts(&["end"])?;
        self.expect_word("end")?;
        self.expect_word("loop")?;
        self.end_label(&label)?;
        Ok(Stmt::Loop {
            label,
            kind: LoopKind::ForEach { var, slice, array },
            body,
        })
    }

    /// What follows `FOR var IN`.
    fn for_kind(&mut self, var: String) -> Result<LoopKind, SqlError> {
        if self.eat_word("execute") {
            let command = self.expr_until(&["using", "loop"], false)?;
            let using = if self.eat_word("using") {
                self.expr_list(&["loop"])?
            } else {
                Vec::new()
            };
            return Ok(LoopKind::Execute {
                var,
                command,
                using,
            });
        }
        let reverse = self.word().as_deref() == Some("reverse")
            && !matches!(self.peek2(), Some(Token::Period));
        if reverse {
            self.bump();
        }
        let start = self.at;
        let first = self.until_word(&[RANGE, "loop"])?;
        if self.eat_word(RANGE) {
            let from = self.expression(&first)?;
            let to = self.expr_until(&["by", "loop"], false)?;
            let by = if self.eat_word("by") {
                Some(self.expr_until(&["loop"], false)?)
            } else {
                None
            };
            return Ok(LoopKind::Range {
                var,
                reverse,
                from,
                to,
                by,
            });
        }
        if reverse {
            self.at = start;
            return Err(self.error());
        }
        Ok(LoopKind::Query {
            var,
            query: self.statement(&first)?,
        })
    }

    /// `INTO ...` and `USING ...` of EXECUTE, in either order.
    fn read_into_using(&mut self) -> Result<(Option<Into>, Vec<Sql>), SqlError> {
        let mut into = None;
        let mut using = Vec::new();
        loop {
            if into.is_none() && self.eat_word("into") {
                into = Some(self.read_into()?);
            } else if using.is_empty() && self.eat_word("using") {
                using = self.expr_list(&["into"])?;
            } else {
                return Ok((into, using));
            }
        }
    }

    /// `[STRICT] target, ...` after INTO.
    fn read_into(&mut self) -> Result<Into, SqlError> {
        let strict = self.eat_word("strict");
        let mut targets = vec![self.dotted()?];
        while self.eat(&Token::Comma) {
            targets.push(self.dotted()?);
        }
        Ok(Into { strict, targets })
    }

    fn raise(&mut self) -> Result<Raise, SqlError> {
        self.expect_word("raise")?;
        let level = match self.word().as_deref() {
            Some(l @ ("debug" | "log" | "info" | "notice" | "warning" | "exception")) => {
                let l = l.to_string();
                self.bump();
                l
            }
            _ => "exception".to_string(),
        };
        let mut raise = Raise {
            level,
            format: None,
            args: Vec::new(),
            condition: None,
            options: Vec::new(),
        };
        let format = match self.peek() {
            Some(Token::SingleQuotedString(s)) | Some(Token::EscapedStringLiteral(s)) => {
                Some(s.clone())
            }
            Some(Token::DollarQuotedString(s)) => Some(s.value.clone()),
            _ => None,
        };
        match self.peek() {
            Some(_) if format.is_some() => {
                raise.format = format;
                self.bump();
                if self.eat(&Token::Comma) {
                    raise.args = self.expr_list(&["using"])?;
                }
                let placeholders = count_placeholders(raise.format.as_deref().unwrap_or(""));
                if placeholders > raise.args.len() {
                    return Err(SqlError::syntax("too few parameters specified for RAISE"));
                }
                if placeholders < raise.args.len() {
                    return Err(SqlError::syntax("too many parameters specified for RAISE"));
                }
            }
            Some(Token::Word(_)) if self.word().as_deref() != Some("using") => {
                raise.condition = Some(self.condition()?);
            }
            _ => {}
        }
        if self.eat_word("using") {
            loop {
                let option = self.name()?;
                if !matches!(option.as_str(), "message" | "detail" | "hint" | "errcode") {
                    return Err(SqlError::unsupported(format!(
                        "RAISE option {}",
                        option.to_uppercase()
                    )));
                }
                if !self.eat(&Token::Eq) {
                    self.expect(&Token::Assignment)?;
                }
                let text = self.until(|t| matches!(t, Token::SemiColon | Token::Comma))?;
                raise.options.push((option, self.expression(&text)?));
                if !self.eat(&Token::Comma) {
                    break;
                }
            }
        }
        Ok(raise)
    }

    /// Any other statement: SQL up to `;`, its INTO taken out.
    fn sql_stmt(&mut self) -> Result<Stmt, SqlError> {
        let first = self.word().unwrap_or_default();
        let start = self.at;
        let _ = self.until(|t| *t == Token::SemiColon)?;
        let end = self.at;
        // The INTO: a SELECT's first at depth 0; a row change's after
        // RETURNING.
        let words: Vec<(usize, Option<String>, usize)> = {
            let mut depth = 0usize;
            (start..end)
                .map(|i| {
                    let t = &self.tokens[i];
                    match t {
                        Token::LParen | Token::LBracket => depth += 1,
                        Token::RParen | Token::RBracket => depth = depth.saturating_sub(1),
                        _ => {}
                    }
                    (i, word_of(t), depth)
                })
                .collect()
        };
        let at_top = |w: &str| {
            (words.iter())
                .filter(|(_, word, depth)| *depth == 0 && word.as_deref() == Some(w))
                .map(|(i, ..)| *i)
                .collect::<Vec<usize>>()
        };
        let into_at = match first.as_str() {
            "select" | "with" => at_top("into").first().copied(),
            "insert" | "update" | "delete" => {
                let returning = at_top("returning");
                (returning.first()).and_then(|r| at_top("into").into_iter().find(|i| i > r))
            }
            _ => None,
        };
        let Some(into_at) = into_at else {
            let text = render(&self.tokens[start..end]);
            return Ok(Stmt::Sql {
                sql: self.statement(&text)?,
                into: None,
            });
        };
        // Read the targets from a parser over the INTO's tokens.
        let mut sub = P {
            tokens: self.tokens[into_at + 1..end].to_vec(),
            at: 0,
            pieces: 0,
            cursors: Vec::new(),
        };
        sub.skip_ws();
        let into = sub.read_into()?;
        let mut kept: Vec<Token> = self.tokens[start..into_at].to_vec();
        kept.extend_from_slice(&self.tokens[into_at + 1 + sub.at..end]);
        let text = render(&kept);
        Ok(Stmt::Sql {
            sql: self.statement(&text)?,
            into: Some(into),
        })
    }
}

/// The items `GET STACKED DIAGNOSTICS` reads.
pub const STACKED_ITEMS: &[&str] = &[
    "returned_sqlstate",
    "message_text",
    "pg_exception_detail",
    "pg_exception_hint",
    "pg_exception_context",
    "column_name",
    "constraint_name",
    "pg_datatype_name",
    "table_name",
    "schema_name",
];

/// A token's unquoted word, lower case.
fn word_of(t: &Token) -> Option<String> {
    match t {
        Token::Word(w) if w.quote_style.is_none() => Some(w.value.to_lowercase()),
        _ => None,
    }
}

/// A token as an error message shows it.
fn shown(t: &Token) -> String {
    match t {
        Token::Word(w) if w.value == RANGE => "..".into(),
        other => other.to_string(),
    }
}

/// Tokens written back as text (the range marker as `..`).
fn render(tokens: &[Token]) -> String {
    let mut out = String::new();
    for t in tokens {
        match t {
            Token::Whitespace(Whitespace::SingleLineComment { .. })
            | Token::Whitespace(Whitespace::MultiLineComment(_)) => out.push(' '),
            Token::Word(w) if w.value == RANGE => out.push_str(".."),
            // (sqlparser writes a string's quotes back undoubled.)
            Token::SingleQuotedString(s) => {
                out.push('\'');
                out.push_str(&s.replace('\'', "''"));
                out.push('\'');
            }
            Token::EscapedStringLiteral(s) => {
                out.push_str("E'");
                out.push_str(&s.replace('\\', "\\\\").replace('\'', "\\'"));
                out.push('\'');
            }
            other => out.push_str(&other.to_string()),
        }
    }
    out.trim().to_string()
}

/// The number of `%` placeholders in a RAISE format (`%%` is a percent
/// sign).
pub fn count_placeholders(format: &str) -> usize {
    let mut n = 0;
    let mut chars = format.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '%' {
            if chars.peek() == Some(&'%') {
                chars.next();
            } else {
                n += 1;
            }
        }
    }
    n
}

/// A SQLSTATE written in a body: five digits or upper-case letters.
pub fn sqlstate(code: &str) -> Result<String, SqlError> {
    if code.len() == 5
        && code
            .chars()
            .all(|c| c.is_ascii_digit() || c.is_ascii_uppercase())
    {
        Ok(code.to_string())
    } else {
        Err(SqlError::new(
            "42601",
            format!("invalid SQLSTATE code \"{code}\""),
        ))
    }
}

impl P {
    /// An expression, held as `SELECT expr`.
    fn expression(&mut self, text: &str) -> Result<Sql, SqlError> {
        if text.is_empty() {
            return Err(SqlError::syntax("syntax error at end of input"));
        }
        self.statement(&format!("SELECT {text}")).map(|s| Sql {
            text: text.to_string(),
            ..s
        })
    }

    /// One SQL statement, numbered.
    fn statement(&mut self, text: &str) -> Result<Sql, SqlError> {
        let mut parsed = crate::parse::statements(text).map_err(|mut e| {
            // Positions are the piece's, not the body's.
            e.position = None;
            e.location = None;
            e
        })?;
        if parsed.len() != 1 {
            return Err(SqlError::syntax(format!(
                "syntax error at or near \"{}\"",
                text.split_whitespace().next().unwrap_or("")
            )));
        }
        Ok(self.numbered(text.to_string(), parsed.pop().expect("one statement")))
    }

    /// The piece of text `text`, parsed as `parsed`, given the next
    /// number.
    fn numbered(&mut self, text: String, parsed: Parsed) -> Sql {
        self.pieces += 1;
        Sql {
            text,
            parsed: Box::new(parsed),
            id: self.pieces - 1,
        }
    }
}

/// The parts of a dotted name as written (`s."T"`): unquoted ones lower
/// case.
fn dotted_names(text: &str) -> Vec<String> {
    (text.trim().split('.'))
        .map(|p| {
            let p = p.trim();
            match p.strip_prefix('"').and_then(|q| q.strip_suffix('"')) {
                Some(quoted) => quoted.to_string(),
                None => p.to_lowercase(),
            }
        })
        .collect()
}

/// A declaration's type.
fn decl_type(text: &str) -> Result<DeclType, SqlError> {
    let lower = text.to_lowercase();
    if lower == "record" {
        return Ok(DeclType::Record);
    }
    if let Some(name) = lower
        .strip_suffix("%type")
        .or_else(|| lower.strip_suffix("% type"))
    {
        let parts = name
            .trim()
            .split('.')
            .map(|p| p.trim().trim_matches('"').to_string())
            .collect();
        return Ok(DeclType::TypeOf(parts));
    }
    if let Some(name) = text.strip_suffix("%rowtype").or_else(|| {
        lower
            .strip_suffix("%rowtype")
            .map(|_| &text[..text.len() - 8])
    }) {
        return Ok(DeclType::RowType(dotted_names(name)));
    }
    let mut parser = sqlparser::parser::Parser::new(&PostgreSqlDialect {})
        .try_with_sql(text)
        .map_err(|e| SqlError::syntax(e.to_string()))?;
    let ty = parser
        .parse_data_type()
        .map_err(|_| SqlError::syntax(format!("syntax error at or near \"{text}\"")))?;
    if parser.peek_token().token != Token::EOF {
        return Err(SqlError::syntax(format!(
            "syntax error at or near \"{}\"",
            parser.peek_token().token
        )));
    }
    Ok(DeclType::Type(ty))
}

/// The statement a SQL piece parsed to, if sqlparser's.
pub fn sql_statement(sql: &Sql) -> Option<&Statement> {
    match &*sql.parsed {
        Parsed::Sql(s) => Some(s),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    //! The block parser reads PostgreSQL's block structure, takes INTO out
    //! of statements, and refuses what is out of scope.
    use super::*;

    fn body(text: &str) -> Vec<Stmt> {
        parse(text).unwrap_or_else(|e| panic!("{text}: {e}")).body
    }

    // Proves COMMIT and ROLLBACK are the body's own statements, with
    // `AND [NO] CHAIN`, and that ROLLBACK TO is not one of them.
    #[test]
    fn transaction_endings() {
        let s = body("BEGIN COMMIT; ROLLBACK AND CHAIN; COMMIT AND NO CHAIN; END");
        let endings: Vec<(bool, bool)> = (s.iter())
            .map(|stmt| match stmt {
                Stmt::EndTransaction(e) => (e.commit, e.chain),
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(endings, [(true, false), (false, true), (true, false)]);
        assert!(parse("BEGIN ROLLBACK TO SAVEPOINT a; END").is_err());
    }

    #[test]
    fn declarations_and_assignments() {
        let b = parse(
            "<<outer>> DECLARE a int := 1; b CONSTANT text DEFAULT 'x'; c numeric NOT NULL = 2; r record;
             BEGIN a := a + 1; r.f = 3; END outer",
        )
        .unwrap();
        assert_eq!(b.label.as_deref(), Some("outer"));
        assert_eq!(b.decls.len(), 4);
        assert!(b.decls[1].constant && b.decls[2].not_null);
        assert_eq!(b.decls[3].ty, DeclType::Record);
        assert!(
            matches!(&b.body[0], Stmt::Assign { target, value } if target == &["a"] && value.text == "a + 1")
        );
        assert!(matches!(&b.body[1], Stmt::Assign { target, .. } if target == &["r", "f"]));
    }

    #[test]
    fn control_structures() {
        let s = body(
            "BEGIN
               IF x > 1 THEN NULL; ELSIF x = 1 THEN RETURN 1; ELSE RETURN CASE WHEN x THEN 1 END; END IF;
               FOR i IN REVERSE 10..1 BY 2 LOOP EXIT WHEN i < 3; END LOOP;
               FOR r IN SELECT * FROM t LOOP CONTINUE; END LOOP;
               <<l>> WHILE true LOOP EXIT l; END LOOP l;
               CASE x WHEN 1, 2 THEN NULL; ELSE NULL; END CASE;
             END",
        );
        assert_eq!(s.len(), 5);
        assert!(matches!(&s[0], Stmt::If { branches, otherwise: Some(_) } if branches.len() == 2));
        assert!(matches!(
            &s[1],
            Stmt::Loop {
                kind: LoopKind::Range {
                    reverse: true,
                    by: Some(_),
                    ..
                },
                ..
            }
        ));
        assert!(matches!(
            &s[2],
            Stmt::Loop {
                kind: LoopKind::Query { .. },
                ..
            }
        ));
        assert!(
            matches!(&s[3], Stmt::Loop { label: Some(l), kind: LoopKind::While(_), .. } if l == "l")
        );
        assert!(matches!(
            &s[4],
            Stmt::Case {
                operand: Some(_),
                ..
            }
        ));
    }

    #[test]
    fn into_is_taken_out_of_statements() {
        let s = body(
            "BEGIN SELECT a, b INTO STRICT x, y FROM t WHERE c = 1;
                   INSERT INTO t VALUES (1) RETURNING id INTO z;
                   EXECUTE 'SELECT $1' INTO w USING 5; END",
        );
        match &s[0] {
            Stmt::Sql {
                sql,
                into: Some(into),
            } => {
                assert_eq!(sql.text, "SELECT a, b FROM t WHERE c = 1");
                assert!(into.strict);
                assert_eq!(into.targets, vec![vec!["x".to_string()], vec!["y".into()]]);
            }
            other => panic!("{other:?}"),
        }
        assert!(
            matches!(&s[1], Stmt::Sql { sql, into: Some(_) } if sql.text == "INSERT INTO t VALUES (1) RETURNING id")
        );
        assert!(matches!(&s[2], Stmt::Execute { into: Some(_), using, .. } if using.len() == 1));
    }

    #[test]
    fn exceptions_and_raise() {
        let b = parse(
            "BEGIN RAISE NOTICE 'a % b %', 1, 'x' USING HINT = 'h';
             RAISE EXCEPTION USING ERRCODE = '22012';
             EXCEPTION WHEN unique_violation OR SQLSTATE '22012' THEN RAISE; WHEN others THEN NULL; END",
        )
        .unwrap();
        assert_eq!(b.handlers.len(), 2);
        assert_eq!(
            b.handlers[0].conditions,
            vec![
                Condition::Name("unique_violation".into()),
                Condition::Code("22012".into())
            ]
        );
        assert!(matches!(&b.body[0], Stmt::Raise(r) if r.args.len() == 2 && r.options.len() == 1));
    }

    #[test]
    fn errors() {
        let code = |t: &str| parse(t).map(|_| ()).unwrap_err();
        assert_eq!(code("BEGIN x := ; END").code, "42601");
        assert_eq!(code("BEGIN IF x THEN NULL; END").code, "42601");
        assert_eq!(code("BEGIN SELEC 1; END").code, "42601");
        assert_eq!(code("BEGIN RAISE NOTICE '%'; END").code, "42601");
        assert_eq!(code("BEGIN OPEN c; END").code, "42601");
        assert_eq!(
            code("BEGIN FOREACH x SLICE y IN ARRAY a LOOP END LOOP; END").code,
            "42601"
        );
        assert_eq!(
            code("BEGIN GET STACKED DIAGNOSTICS n = ROW_COUNT; END").code,
            "42601"
        );
        assert_eq!(
            code("BEGIN NULL; EXCEPTION WHEN no_such_thing THEN NULL; END").code,
            "42704"
        );
        assert_eq!(
            code("<<a>> BEGIN NULL; END b").message,
            "end label \"b\" differs from block's label \"a\""
        );
    }

    #[test]
    fn features_of_session_40() {
        let s = body(
            "BEGIN
               FOREACH x SLICE 1 IN ARRAY a LOOP NULL; END LOOP;
               ASSERT n > 0, 'n is ' || n;
               RETURN NEXT x + 1; RETURN NEXT;
               RETURN QUERY SELECT 1; RETURN QUERY EXECUTE 'SELECT $1' USING 2;
             EXCEPTION WHEN others THEN
               GET STACKED DIAGNOSTICS m = MESSAGE_TEXT, s = RETURNED_SQLSTATE;
             END",
        );
        assert!(matches!(
            &s[0],
            Stmt::Loop {
                kind: LoopKind::ForEach { slice: 1, .. },
                ..
            }
        ));
        assert!(matches!(&s[1], Stmt::Assert { message: Some(m), .. } if m.text == "'n is ' || n"));
        assert!(matches!(&s[2], Stmt::ReturnNext(Some(_))));
        assert!(matches!(&s[3], Stmt::ReturnNext(None)));
        assert!(matches!(&s[4], Stmt::ReturnQuery(_)));
        assert!(matches!(&s[5], Stmt::ReturnQueryExecute { using, .. } if using.len() == 1));
        let b = parse("DECLARE r t%ROWTYPE; q s.\"T\"%rowtype; BEGIN NULL; END").unwrap();
        assert_eq!(b.decls[0].ty, DeclType::RowType(vec!["t".into()]));
        assert_eq!(
            b.decls[1].ty,
            DeclType::RowType(vec!["s".into(), "T".into()])
        );
    }

    /// Proves the cursor declarations and statements read as PostgreSQL's
    /// PL/pgSQL grammar reads them: named arguments put in declared
    /// order, directions with expression counts, FOR over a bound cursor.
    #[test]
    fn cursor_statements() {
        use crate::cursors::position::Direction;
        let b = parse(
            "DECLARE c NO SCROLL CURSOR (x int, y text) FOR SELECT x, y; u refcursor;
             BEGIN
               OPEN c(y := 'a', x := 1); OPEN u SCROLL FOR EXECUTE 'SELECT 1' USING 2;
               FETCH PRIOR FROM u INTO r; FETCH RELATIVE n + 1 IN u INTO a, b; FETCH u INTO r;
               MOVE FORWARD ALL FROM u; MOVE BACKWARD 2 FROM u; CLOSE u;
               FOR r IN c(1, 'b') LOOP NULL; END LOOP;
             END",
        )
        .unwrap();
        let DeclType::Cursor(c) = &b.decls[0].ty else {
            panic!("{:?}", b.decls[0]);
        };
        assert_eq!((c.scroll, c.args.len()), (Some(false), 2));
        assert!(matches!(&b.decls[1].ty, DeclType::Type(_)));
        let s = &b.body;
        assert!(
            matches!(&s[0], Stmt::Open { source: OpenSource::Bound(args), .. }
            if args[0].text == "1" && args[1].text == "'a'")
        );
        assert!(matches!(
            &s[1],
            Stmt::Open {
                source: OpenSource::Execute {
                    scroll: Some(true),
                    ..
                },
                ..
            }
        ));
        assert!(matches!(
            &s[2],
            Stmt::Fetch {
                step: Step::Fixed(Direction::Backward(1)),
                into: Some(_),
                ..
            }
        ));
        assert!(
            matches!(&s[3], Stmt::Fetch { step: Step::Relative(n), into: Some(i), .. }
            if n.text == "n + 1" && i.targets.len() == 2)
        );
        assert!(matches!(
            &s[4],
            Stmt::Fetch {
                step: Step::Fixed(Direction::Forward(1)),
                ..
            }
        ));
        assert!(matches!(&s[5], Stmt::Fetch { into: None, .. }));
        assert!(matches!(
            &s[6],
            Stmt::Fetch {
                step: Step::Backward(_),
                into: None,
                ..
            }
        ));
        assert!(matches!(&s[7], Stmt::Close(u) if u == "u"));
        assert!(
            matches!(&s[8], Stmt::Loop { kind: LoopKind::Cursor { args, .. }, .. } if args.len() == 2)
        );
        let code = |t: &str| parse(t).map(|_| ()).unwrap_err().message;
        assert_eq!(
            code("DECLARE u refcursor; BEGIN FETCH 2 FROM u INTO x; END"),
            "FETCH statement cannot return multiple rows"
        );
        assert_eq!(
            code("DECLARE c CURSOR (k int) FOR SELECT k; BEGIN OPEN c; END"),
            "cursor \"c\" has arguments"
        );
    }

    #[test]
    fn ranges_are_not_read_in_strings() {
        assert_eq!(
            mark_ranges("1..2 '..' \"..\" -- ..\n"),
            format!("1 {RANGE} 2 '..' \"..\" -- ..\n")
        );
        assert_eq!(
            mark_ranges("$q$..$q$ $1..$2"),
            format!("$q$..$q$ $1 {RANGE} $2")
        );
    }
}
