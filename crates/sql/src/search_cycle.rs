//! The `SEARCH` and `CYCLE` clauses of a `WITH RECURSIVE` item:
//!
//! ```text
//! name [(columns)] AS (base UNION [ALL] step)
//!   [SEARCH { DEPTH | BREADTH } FIRST BY column [, ...] SET seq]
//!   [CYCLE column [, ...] SET mark [TO value DEFAULT value] USING path]
//! ```
//!
//! **Syntax.** sqlparser reads neither clause: [`mark`] takes them out of
//! a statement's tokens before the parse and leaves in their place `FROM
//! $search_cycle:HEX` (sqlparser's `Cte::from`, which PostgreSQL has
//! not; the marker is no token a client can write), HEX the clauses
//! written back as SQL ([`Clauses::sql`]). [`of`] reads a parsed item's
//! clauses back; [`written_back`] puts them back into a view's stored
//! text. The values of `TO` / `DEFAULT` are constants, as PostgreSQL's
//! grammar has them (`1+1` is a syntax error); without them the mark is
//! a boolean, `true` / `false`.
//!
//! **Meaning** (`search_cycle_rewrite.rs`): PostgreSQL's rewrite of the
//! item into a recursive query with the added columns, which is then
//! planned and run as any other.

use crate::error::SqlError;
use crate::position::Text;
use sqlparser::ast::{Cte, Ident};
use sqlparser::keywords::Keyword;
use sqlparser::tokenizer::{Token, TokenWithSpan, Word};

/// The marker [`mark`] leaves, before the clauses' text in hex.
const MARK: &str = "$search_cycle:";

/// A recursive item's SEARCH and CYCLE clauses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Clauses {
    pub search: Option<Search>,
    pub cycle: Option<Cycle>,
}

/// `SEARCH { DEPTH | BREADTH } FIRST BY columns SET seq`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Search {
    pub breadth: bool,
    pub columns: Vec<String>,
    pub seq: String,
}

/// `CYCLE columns SET mark [TO value DEFAULT value] USING path`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cycle {
    pub columns: Vec<String>,
    pub mark: String,
    /// The mark's value for a row that closes a cycle and otherwise, as
    /// SQL constants (`true` and `false` when not given).
    pub value: String,
    pub default: String,
    pub path: String,
}

impl Clauses {
    /// The clauses as SQL (names quoted), which [`parse`] reads back.
    pub fn sql(&self) -> String {
        let list = |names: &[String]| -> String {
            let quoted: Vec<String> = names.iter().map(|n| quoted(n)).collect();
            quoted.join(", ")
        };
        let mut out = Vec::new();
        if let Some(s) = &self.search {
            out.push(format!(
                "SEARCH {} FIRST BY {} SET {}",
                if s.breadth { "BREADTH" } else { "DEPTH" },
                list(&s.columns),
                quoted(&s.seq)
            ));
        }
        if let Some(c) = &self.cycle {
            out.push(format!(
                "CYCLE {} SET {} TO {} DEFAULT {} USING {}",
                list(&c.columns),
                quoted(&c.mark),
                c.value,
                c.default,
                quoted(&c.path)
            ));
        }
        out.join(" ")
    }
}

/// `name` as a quoted identifier.
pub fn quoted(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

/// Rewrites each SEARCH / CYCLE clause after a `)` in `tokens` into its
/// marker (the module's "Syntax"). Words that only look like the start
/// of one (`(select 1) search`, an alias) are left alone; a clause that
/// goes wrong after its start is PostgreSQL's syntax error there.
pub(crate) fn mark(tokens: &mut Vec<TokenWithSpan>, text: &Text<'_>) -> Result<(), SqlError> {
    let mut at = 0;
    while at + 1 < tokens.len() {
        if tokens[at].token != Token::RParen || !starts(tokens, at + 1) {
            at += 1;
            continue;
        }
        let (clauses, end) = match parse(tokens, at + 1) {
            Ok(Some(found)) => found,
            Ok(None) => unreachable!("`starts` said a clause starts here"),
            Err(bad) => {
                return Err(match tokens.get(bad) {
                    Some(t) => text.near(t),
                    None => text.at_end(),
                });
            }
        };
        let span = tokens[at + 1].span;
        let hex: String = (clauses.sql().bytes())
            .map(|b| format!("{b:02x}"))
            .collect();
        let marker = Token::Word(Word {
            value: format!("{MARK}{hex}"),
            quote_style: None,
            keyword: Keyword::NoKeyword,
        });
        tokens.splice(
            at + 1..end,
            [
                TokenWithSpan::new(Token::make_keyword("FROM"), span),
                TokenWithSpan::new(marker, span),
            ],
        );
        at += 3;
    }
    Ok(())
}

/// The clauses of a parsed WITH item (`None`: it has none). An item's
/// `FROM name` that is not the marker is a syntax error, as PostgreSQL
/// has no such thing.
pub fn of(cte: &Cte) -> Result<Option<Clauses>, SqlError> {
    let Some(from) = &cte.from else {
        return Ok(None);
    };
    decode(from)
        .map(Some)
        .ok_or_else(|| SqlError::syntax("syntax error at or near \"FROM\""))
}

/// The clauses a marker holds.
fn decode(marker: &Ident) -> Option<Clauses> {
    let hex = marker.value.strip_prefix(MARK)?;
    if marker.quote_style.is_some() || hex.len() % 2 != 0 {
        return None;
    }
    let bytes: Option<Vec<u8>> = (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(hex.get(i..i + 2)?, 16).ok())
        .collect();
    let sql = String::from_utf8(bytes?).ok()?;
    let tokens = crate::parse::plain_tokens(&sql).ok()?;
    match parse(&tokens, 0) {
        Ok(Some((clauses, end))) if end == tokens.len() => Some(clauses),
        _ => None,
    }
}

/// `text` (a view's query as sqlparser prints it) with each marker
/// written back as its clauses.
pub fn written_back(text: &str) -> String {
    let lead = format!(" FROM {MARK}");
    let mut out = text.to_string();
    let mut from = 0;
    while let Some(found) = out[from..].find(&lead) {
        let at = from + found;
        let hex_at = at + lead.len();
        let hex_end = out[hex_at..]
            .find(|c: char| !c.is_ascii_hexdigit())
            .map_or(out.len(), |n| hex_at + n);
        let marker = Ident::new(&out[at + " FROM ".len()..hex_end]);
        match decode(&marker) {
            Some(clauses) => {
                let sql = format!(" {}", clauses.sql());
                out.replace_range(at..hex_end, &sql);
                from = at + sql.len();
            }
            None => from = hex_end,
        }
    }
    out
}

/// Whether a clause starts at `at`: `SEARCH DEPTH | BREADTH FIRST`, or
/// `CYCLE column [, ...] SET`.
fn starts(tokens: &[TokenWithSpan], at: usize) -> bool {
    let word = |i: usize, w: &str| is_word(tokens.get(i), w);
    if word(at, "search") {
        return (word(at + 1, "depth") || word(at + 1, "breadth")) && word(at + 2, "first");
    }
    if !word(at, "cycle") {
        return false;
    }
    let mut i = at + 1;
    while name(tokens.get(i)).is_some() {
        if word(i + 1, "set") {
            return true;
        }
        if tokens.get(i + 1).map(|t| &t.token) != Some(&Token::Comma) {
            return false;
        }
        i += 2;
    }
    false
}

/// Whether `token` is the unquoted word `w`.
fn is_word(token: Option<&TokenWithSpan>, w: &str) -> bool {
    matches!(token.map(|t| &t.token), Some(Token::Word(x))
        if x.quote_style.is_none() && x.value.eq_ignore_ascii_case(w))
}

/// The name a column-name token gives (a quoted one as written, a plain
/// one in lower case; a reserved word is no name).
fn name(token: Option<&TokenWithSpan>) -> Option<String> {
    match token.map(|t| &t.token) {
        Some(Token::Word(w)) if w.quote_style == Some('"') => Some(w.value.clone()),
        Some(Token::Word(w))
            if w.quote_style.is_none()
                && crate::keywords::col_id(&w.value.to_ascii_lowercase()) =>
        {
            Some(w.value.to_lowercase())
        }
        _ => None,
    }
}

/// Reads the clauses starting at `at` (the grammar of the module doc):
/// `None` if none starts there, else them and the index past them; on a
/// syntax error, the index of the token it is at.
fn parse(tokens: &[TokenWithSpan], at: usize) -> Result<Option<(Clauses, usize)>, usize> {
    let mut c = Cursor { tokens, at };
    let mut clauses = Clauses {
        search: None,
        cycle: None,
    };
    if c.word("search") {
        let breadth = match () {
            _ if c.word("depth") => false,
            _ if c.word("breadth") => true,
            _ => return Err(c.at),
        };
        c.expect("first")?;
        c.expect("by")?;
        let columns = c.names()?;
        c.expect("set")?;
        let seq = c.name()?;
        clauses.search = Some(Search {
            breadth,
            columns,
            seq,
        });
    }
    if c.word("cycle") {
        let columns = c.names()?;
        c.expect("set")?;
        let mark = c.name()?;
        let (value, default) = match c.word("to") {
            true => {
                let value = c.constant()?;
                c.expect("default")?;
                (value, c.constant()?)
            }
            false => ("true".to_string(), "false".to_string()),
        };
        c.expect("using")?;
        let path = c.name()?;
        clauses.cycle = Some(Cycle {
            columns,
            mark,
            value,
            default,
            path,
        });
    }
    match clauses.search.is_none() && clauses.cycle.is_none() {
        true => Ok(None),
        false => Ok(Some((clauses, c.at))),
    }
}

/// A reading position in a clause's tokens.
struct Cursor<'t> {
    tokens: &'t [TokenWithSpan],
    at: usize,
}

impl Cursor<'_> {
    fn word(&mut self, w: &str) -> bool {
        let found = is_word(self.tokens.get(self.at), w);
        self.at += usize::from(found);
        found
    }

    fn expect(&mut self, w: &str) -> Result<(), usize> {
        match self.word(w) {
            true => Ok(()),
            false => Err(self.at),
        }
    }

    fn name(&mut self) -> Result<String, usize> {
        let found = name(self.tokens.get(self.at)).ok_or(self.at)?;
        self.at += 1;
        Ok(found)
    }

    fn names(&mut self) -> Result<Vec<String>, usize> {
        let mut out = vec![self.name()?];
        while self.tokens.get(self.at).map(|t| &t.token) == Some(&Token::Comma) {
            self.at += 1;
            out.push(self.name()?);
        }
        Ok(out)
    }

    /// A constant (PostgreSQL's `AexprConst`): a number, a string, TRUE,
    /// FALSE, NULL, or a type's name before a string (`point '(1,1)'`),
    /// as SQL.
    fn constant(&mut self) -> Result<String, usize> {
        let string = |t: Option<&TokenWithSpan>| match t.map(|t| &t.token) {
            Some(
                Token::SingleQuotedString(s)
                | Token::EscapedStringLiteral(s)
                | Token::NationalStringLiteral(s),
            ) => Some(format!("'{}'", s.replace('\'', "''"))),
            Some(Token::HexStringLiteral(s)) => Some(format!("X'{s}'")),
            _ => None,
        };
        let token = self.tokens.get(self.at).ok_or(self.at)?;
        if let Some(s) = string(Some(token)) {
            self.at += 1;
            return Ok(s);
        }
        match &token.token {
            Token::Number(n, _) => {
                self.at += 1;
                Ok(n.clone())
            }
            Token::Word(w)
                if w.quote_style.is_none()
                    && ["true", "false", "null"]
                        .contains(&w.value.to_ascii_lowercase().as_str()) =>
            {
                self.at += 1;
                Ok(w.value.to_ascii_lowercase())
            }
            Token::Word(_) => {
                // A type's name, of one or more words, then the string.
                let mut words = Vec::new();
                while let Some(Token::Word(w)) = self.tokens.get(self.at).map(|t| &t.token) {
                    words.push(match w.quote_style {
                        Some(_) => quoted(&w.value),
                        None => w.value.to_ascii_lowercase(),
                    });
                    self.at += 1;
                }
                let s = string(self.tokens.get(self.at)).ok_or(self.at)?;
                self.at += 1;
                Ok(format!("{} {s}", words.join(" ")))
            }
            _ => Err(self.at),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn marked(sql: &str) -> Result<String, SqlError> {
        let text = Text::new(sql);
        let mut tokens = crate::parse::plain_tokens(sql)?;
        mark(&mut tokens, &text)?;
        let parsed = sqlparser::parser::Parser::new(&crate::dialect::Folio)
            .with_tokens_with_locations(tokens)
            .parse_query()
            .map_err(|e| SqlError::syntax(e.to_string()))?;
        Ok(written_back(&parsed.to_string()))
    }

    // Proves the clauses survive the marker: parsed, printed and written
    // back, they read as written (names quoted, constants kept).
    #[test]
    fn clauses_are_written_back() {
        let out = marked(
            "with recursive t(a, b) as (select 1, 2 union all select a, b from t) \
             search breadth first by a, B set s cycle a set m to 'Y' default 'N' using p \
             select * from t",
        )
        .unwrap();
        assert!(
            out.contains(
                ") SEARCH BREADTH FIRST BY \"a\", \"b\" SET \"s\" \
                 CYCLE \"a\" SET \"m\" TO 'Y' DEFAULT 'N' USING \"p\" SELECT"
            ),
            "{out}"
        );
    }

    // Proves an alias named like a clause's first word is left alone and
    // a clause gone wrong is a syntax error at the token.
    #[test]
    fn only_clauses_are_taken() {
        let out = marked("select * from (select 1) search").unwrap();
        assert!(
            out.ends_with(") AS search") || out.ends_with(") search"),
            "{out}"
        );
        let e = marked(
            "with recursive t(a) as (select 1 union all select a from t) \
             cycle a set m to 1+1 default 0 using p select * from t",
        )
        .unwrap_err();
        assert_eq!(e.code, "42601");
        assert!(e.message.contains("\"+\""), "{}", e.message);
    }
}
