//! Where an error points in the query text: PostgreSQL's ErrorResponse
//! field `P`, a 1-based character position, which psql shows as the
//! statement's line and a caret under the spot:
//!
//! ```text
//! ERROR:  syntax error at or near "selct"
//! LINE 1: selct 1
//!         ^
//! ```
//!
//! These errors carry one, as in PostgreSQL:
//! - syntax errors, at the token where parsing stopped (sqlparser's
//!   errors name it by line and column, [`syntax_error`]), in PostgreSQL's
//!   wording (`syntax error at or near "tok"`, `syntax error at end of
//!   input`);
//! - a relation or column that does not exist (42P01, 42703), at the first
//!   reference to that name in the failing statement ([`locate`]):
//!   the planner raises them from names, not tokens, and PostgreSQL points
//!   at the reference;
//! - errors the planner raises about a node it holds (a set operation's
//!   input whose type does not match), at the node's token location.

use crate::error::SqlError;
use sqlparser::dialect::PostgreSqlDialect;
use sqlparser::keywords::Keyword;
use sqlparser::parser::ParserError;
use sqlparser::tokenizer::{Location, Token, TokenWithSpan, Tokenizer};

/// A query text, indexed for turning token locations (line and column,
/// both 1-based, in characters) into positions.
pub(crate) struct Text<'s> {
    sql: &'s str,
    /// The character position (0-based) at which each line starts.
    line_starts: Vec<usize>,
}

impl<'s> Text<'s> {
    pub fn new(sql: &'s str) -> Text<'s> {
        let mut line_starts = vec![0];
        for (at, c) in sql.chars().enumerate() {
            if c == '\n' {
                line_starts.push(at + 1);
            }
        }
        Text { sql, line_starts }
    }

    /// The text itself.
    pub fn sql(&self) -> &'s str {
        self.sql
    }

    /// The 1-based character position of `location` (`None` for a token
    /// without one).
    pub fn position(&self, location: Location) -> Option<usize> {
        let line = usize::try_from(location.line).ok()?.checked_sub(1)?;
        let column = usize::try_from(location.column).ok()?;
        Some(self.line_starts.get(line)? + column)
    }

    /// The text `tokens` were written as (each token's own text, joined by
    /// blanks, when one has no location).
    pub fn written(&self, tokens: &[TokenWithSpan]) -> String {
        let (first, last) = (&tokens[0], &tokens[tokens.len() - 1]);
        match (
            self.position(first.span.start),
            self.position(last.span.end),
        ) {
            (Some(start), Some(end)) if end > start => {
                self.sql.chars().skip(start - 1).take(end - start).collect()
            }
            _ => (tokens.iter())
                .map(|t| t.token.to_string())
                .collect::<Vec<_>>()
                .join(" "),
        }
    }

    /// PostgreSQL's `syntax error at or near "tok"`, quoting the token as
    /// it was written, at its position.
    pub fn near(&self, token: &TokenWithSpan) -> SqlError {
        self.near_with("syntax error", token)
    }

    /// A 42601 `{what} at or near "tok"`, as [`Text::near`].
    pub fn near_with(&self, what: &str, token: &TokenWithSpan) -> SqlError {
        let (Some(start), Some(end)) = (
            self.position(token.span.start),
            self.position(token.span.end),
        ) else {
            return SqlError::syntax(format!("{what} at or near \"{}\"", token.token));
        };
        let written: String = self.sql.chars().skip(start - 1).take(end - start).collect();
        SqlError::syntax(format!("{what} at or near \"{written}\"")).at(start)
    }

    /// PostgreSQL's `syntax error at end of input`, just past the text.
    pub fn at_end(&self) -> SqlError {
        SqlError::syntax("syntax error at end of input").at(self.sql.chars().count() + 1)
    }
}

/// A parser error in PostgreSQL's words and position: at the token
/// sqlparser names, or, when it ran out of tokens, at the statement's
/// terminating semicolon (PostgreSQL reads on to it) or the end of the
/// text. Other errors keep sqlparser's message. (The text is tokenized
/// again to find the token: an error path, so the parse need not keep a
/// copy of its tokens.)
pub(crate) fn syntax_error(
    text: &Text<'_>,
    terminator: Option<&TokenWithSpan>,
    error: ParserError,
) -> SqlError {
    let message = error.to_string();
    if let Some(location) = named_location(&message) {
        let tokens = Tokenizer::new(&PostgreSqlDialect {}, text.sql)
            .tokenize_with_location()
            .unwrap_or_default();
        return match tokens.iter().find(|t| t.span.start == location) {
            Some(token) => text.near(token),
            None => match text.position(location) {
                Some(position) => SqlError::syntax(message).at(position),
                None => SqlError::syntax(message),
            },
        };
    }
    if message.ends_with("found: EOF") {
        return match terminator {
            Some(semicolon) => text.near(semicolon),
            None => text.at_end(),
        };
    }
    SqlError::syntax(message)
}

/// The ` at Line: L, Column: C` that sqlparser appends to an error.
fn named_location(message: &str) -> Option<Location> {
    let at = message.rfind(" at Line: ")?;
    let (line, column) = message[at + " at Line: ".len()..].split_once(", Column: ")?;
    Some(Location::new(line.parse().ok()?, column.parse().ok()?))
}

/// Points an error without a position at what it is about in statement
/// `index` of `sql`, found by the quoted text in its message, as
/// PostgreSQL points at the reference or literal:
/// - 42P01, 42703: the first reference to the name (`a.b` matches the
///   tokens `a`, `.`, `b`; an unquoted word matches when folded to lower
///   case, as PostgreSQL folds it, a quoted one as written), except in
///   `ALTER TABLE`, `ALTER SEQUENCE` and `DROP`, whose objects PostgreSQL
///   looks up when it runs, with no position to give;
/// - 22P02, 22003, 22007, 22008, 22015 (`invalid input syntax for type integer:
///   "x"`, `value "9..." is out of range`, `date/time field value out of
///   range: "..."`): the first string literal with that text, so a value
///   that came from a parameter or COPY data finds nothing; not in `ALTER
///   TABLE` (a default's or a `USING` expression's literal), where
///   PostgreSQL gives none either;
/// - 42883 `function f(...) does not exist`: the first call of `f`;
/// - 42803 `column "t.c" must appear in the GROUP BY clause ...`: the
///   first reference to `t.c` or to a bare `c`.
///
/// Any other error, or nothing found, is returned as it is. An error the
/// planner gave a token location (`SqlError::near`: the location of the
/// node it is about) points there instead, when `sql` is the text the
/// statement was parsed from; the location is dropped either way.
pub fn locate(mut error: SqlError, sql: &str, index: usize) -> SqlError {
    if let Some(location) = error.location.take()
        && error.position.is_none()
        && let Some(position) = Text::new(sql).position(*location)
        && position <= sql.chars().count()
    {
        return error.at(position);
    }
    if error.position.is_some() {
        return error;
    }
    let Some(subject) = Subject::of(&error) else {
        return error;
    };
    let Ok(tokens) = Tokenizer::new(&PostgreSqlDialect {}, sql).tokenize_with_location() else {
        return error;
    };
    let text = Text::new(sql);
    let Some((statement, _)) = split(&tokens).nth(index) else {
        return error;
    };
    let word = |at: usize, keyword| {
        matches!(statement.get(at).map(|t| &t.token),
            Some(Token::Word(w)) if w.keyword == keyword)
    };
    let altered =
        word(0, Keyword::ALTER) && (word(1, Keyword::TABLE) || word(1, Keyword::SEQUENCE));
    if word(0, Keyword::DROP)
        || (matches!(subject, Subject::Name(_) | Subject::Literal(_)) && altered)
    {
        return error;
    }
    let names_at = |name: &str, at: usize| {
        name.split('.').enumerate().all(|(i, part)| {
            let word = statement.get(at + 2 * i);
            let dot = i == 0
                || matches!(statement.get(at + 2 * i - 1), Some(t) if t.token == Token::Period);
            dot && matches!(word.map(|t| &t.token), Some(Token::Word(w))
            if match w.quote_style {
                None => w.value.to_lowercase() == part,
                Some(_) => w.value == part,
            })
        })
    };
    let found = (0..statement.len()).find(|&at| match subject {
        Subject::Name(name) => names_at(name, at),
        Subject::Call(name) => {
            names_at(name, at)
                && matches!(statement.get(at + 1), Some(t) if t.token == Token::LParen)
        }
        Subject::Column(name) => {
            let bare = name.rsplit('.').next().unwrap_or(name);
            let after_period =
                at > 0 && matches!(statement.get(at - 1), Some(t) if t.token == Token::Period);
            names_at(name, at) || (!after_period && names_at(bare, at))
        }
        Subject::Literal(value) => match &statement[at].token {
            Token::SingleQuotedString(s) | Token::EscapedStringLiteral(s) => s == value,
            Token::DollarQuotedString(d) => d.value == value,
            _ => false,
        },
    });
    match found.and_then(|at| text.position(statement[at].span.start)) {
        Some(position) => error.at(position),
        None => error,
    }
}

/// What an error is about, by the quoted text of its message.
#[derive(Clone, Copy)]
enum Subject<'m> {
    /// A relation or column (42P01, 42703), `a.b` when qualified.
    Name(&'m str),
    /// A function call no function matches (42883), or several do
    /// (42725).
    Call(&'m str),
    /// A column outside GROUP BY and aggregates (42803), named `t.c`:
    /// referenced as `t.c` or as `c`.
    Column(&'m str),
    /// A literal's text (22P02, 22003, 22007, 22008, 22015).
    Literal(&'m str),
}

impl Subject<'_> {
    fn of(error: &SqlError) -> Option<Subject<'_>> {
        let message = error.message.as_str();
        match error.code {
            "42P01" | "42703" => message.split('"').nth(1).map(Subject::Name),
            "42803" => message.split('"').nth(1).map(Subject::Column),
            "42883" | "42725" => message
                .strip_prefix("function ")
                .and_then(|rest| rest.split_once('('))
                .map(|(name, _)| Subject::Call(name)),
            "22P02" | "22003" | "22007" | "22008" | "22015" => match message.split_once(": \"") {
                // The text after the colon may hold quotes of its own.
                Some((_, rest)) => rest.strip_suffix('"'),
                None => message.split('"').nth(1),
            }
            .map(Subject::Literal),
            _ => None,
        }
    }
}

/// The statements of a token stream, whitespace removed, each with the
/// semicolon that ends it (`None` for the last one, when the text does
/// not end with one); empty statements are skipped.
pub(crate) fn split(
    tokens: &[TokenWithSpan],
) -> impl Iterator<Item = (Vec<TokenWithSpan>, Option<&TokenWithSpan>)> {
    let mut rest = tokens;
    std::iter::from_fn(move || {
        loop {
            if rest.is_empty() {
                return None;
            }
            let end = statement_end(rest).unwrap_or(rest.len());
            let terminator = rest.get(end);
            let statement: Vec<TokenWithSpan> = rest[..end]
                .iter()
                .filter(|t| !matches!(t.token, Token::Whitespace(_)))
                .cloned()
                .collect();
            rest = rest.get(end + 1..).unwrap_or(&[]);
            if !statement.is_empty() {
                return Some((statement, terminator));
            }
        }
    })
}

/// Where the statement at the start of `tokens` ends: at its first
/// semicolon, not counting those inside the `BEGIN ATOMIC ... END` body
/// of a CREATE (a routine's SQL-standard body; PostgreSQL's scanner
/// counts BEGIN and CASE against END inside it as this does).
fn statement_end(tokens: &[TokenWithSpan]) -> Option<usize> {
    let word = |t: &Token| match t {
        Token::Word(w) if w.quote_style.is_none() => Some(w.value.to_ascii_lowercase()),
        _ => None,
    };
    let words =
        (tokens.iter().enumerate()).filter(|(_, t)| !matches!(t.token, Token::Whitespace(_)));
    let create = words
        .clone()
        .next()
        .and_then(|(_, t)| word(&t.token))
        .as_deref()
        == Some("create");
    // A CREATE RULE's parenthesized actions hold semicolons.
    let rule =
        create && (words.clone().take(4)).any(|(_, t)| word(&t.token).as_deref() == Some("rule"));
    let mut parens = 0usize;
    let mut depth = 0usize;
    let mut previous = None;
    for (i, t) in words {
        let this = word(&t.token);
        match t.token {
            Token::LParen if rule => parens += 1,
            Token::RParen if rule => parens = parens.saturating_sub(1),
            _ => {}
        }
        match (this.as_deref(), previous.as_deref()) {
            _ if t.token == Token::SemiColon && parens > 0 => {}
            _ if t.token == Token::SemiColon && depth == 0 => return Some(i),
            (Some("atomic"), Some("begin")) if create && depth == 0 => depth = 1,
            (Some("begin" | "case"), _) if depth > 0 => depth += 1,
            (Some("end"), _) if depth > 0 => depth -= 1,
            _ => {}
        }
        previous = this;
    }
    None
}

/// The tokens of `sql` with their places, as `parse.rs` reads them (for
/// the tests of the modules that work on token runs).
#[cfg(test)]
pub(crate) fn tokens(sql: &str) -> Vec<TokenWithSpan> {
    Tokenizer::new(&PostgreSqlDialect {}, sql)
        .tokenize_with_location()
        .unwrap()
}

#[cfg(test)]
mod tests {
    use super::*;

    // Proves positions count characters from 1 across lines, and that the
    // statements of a text split at top-level semicolons with their ends.
    #[test]
    fn positions_count_characters_across_lines() {
        let sql = "select 'é';\n  selct 1; ;";
        let text = Text::new(sql);
        let all = tokens(sql);
        let statements: Vec<_> = split(&all).collect();
        assert_eq!(statements.len(), 2);
        let second = &statements[1].0;
        assert_eq!(text.position(second[0].span.start), Some(15));
        let near = text.near(&second[0]);
        assert_eq!(near.message, "syntax error at or near \"selct\"");
        assert_eq!(near.position, Some(15));
        assert_eq!(text.position(statements[1].1.unwrap().span.start), Some(22));
        assert_eq!(text.at_end().position, Some(sql.chars().count() + 1));
    }

    // Proves a CREATE's BEGIN ATOMIC body keeps its semicolons, with CASE
    // ... END inside it, and other statements split at each one.
    #[test]
    fn atomic_bodies_keep_their_semicolons() {
        let sql = "create procedure p() begin atomic insert into t values (case when true then 1 end); select 1; end; select 2; begin; select 3";
        let all = tokens(sql);
        let statements: Vec<usize> = split(&all).map(|(s, _)| s.len()).collect();
        assert_eq!(statements.len(), 4);
        let sql = "select 'begin atomic'; begin; end";
        assert_eq!(split(&tokens(sql)).count(), 3);
    }

    // Proves a missing name is found at its first reference, qualified or
    // quoted, only in the failing statement; an invalid literal at the
    // string with its text (quotes inside it too); other errors are left.
    #[test]
    fn missing_names_point_at_their_first_reference() {
        let sql = "select 1 from t; select x.B, \"B\" from t x";
        let column = |name: &str| SqlError::undefined_column(name);
        assert_eq!(locate(column("x.b"), sql, 1).position, Some(25));
        assert_eq!(locate(column("B"), sql, 1).position, Some(30));
        assert_eq!(
            locate(SqlError::undefined_table("t"), sql, 0).position,
            Some(15)
        );
        assert_eq!(
            locate(SqlError::undefined_table("t"), sql, 1).position,
            Some(39)
        );
        assert_eq!(locate(column("zz"), sql, 1).position, None);
        let sql = "alter table t drop column zz";
        assert_eq!(locate(column("zz"), sql, 0).position, None);
        assert_eq!(
            locate(SqlError::undefined_table("t"), sql, 0).position,
            None
        );
        let bad = |text: &str| {
            SqlError::new(
                "22P02",
                format!("invalid input syntax for type integer: \"{text}\""),
            )
        };
        let sql = "insert into t values ('1'), ('a\"b')";
        assert_eq!(locate(bad("a\"b"), sql, 0).position, Some(30));
        assert_eq!(locate(bad("zz"), sql, 0).position, None);
        let missing = SqlError::new("42883", "function f(integer) does not exist");
        assert_eq!(
            locate(missing, "select f, F(1) from t", 0).position,
            Some(11)
        );
        assert_eq!(locate(SqlError::syntax("\"t\""), sql, 0).position, None);
    }
}
