//! `tsquery` values (PostgreSQL's `tsquery.c`): a tree of lexemes (each
//! with its weights and prefix flag) under `!`, `&`, `|` and `<N>`
//! (followed by, N positions apart). The one owner of the value's forms:
//!
//! | form | bytes |
//! |---|---|
//! | value | [`QueryNode`]s; an empty query (no lexemes) has no root |
//! | text | PostgreSQL's `tsqueryout`: lexemes quoted as a tsvector's, `:*` for a prefix and the weight letters `ABCD`; `!x`, `x & y`, `x \| y`, `x <-> y` / `x <N> y`, parentheses only where a child binds looser than its parent (or is a phrase right of a phrase); input by precedence `!` over `<->` over `&` over `\|`, left to right (`parse`) |
//! | row | the node tree in prefix order: a tag (0 lexeme, 1 `!`, 2 `&`, 3 `\|`, 4 phrase), a phrase's distance (u16 LE), a lexeme's weight bits, prefix flag, length (u32 LE) and bytes |
//! | key | PostgreSQL's `tsquery_cmp`: node count and the size PostgreSQL's value would take (u32 BE each), then the tree (right operand first, as PostgreSQL's `QTNodeCompare` walks it): an operator as `0x00`, its operator number and child count (inverted), its children, a phrase's distance (inverted u16 BE); a lexeme as `0x01`, its CRC-32 (signed order, inverted), its bytes escaped as text's, then its weight bits and prefix flag (which PostgreSQL's order ignores: equal queries of other weights differ only there) |

use crate::error::RowError;
use crate::ts_token::{TokenReader, is_blank, syntax_error};
use crate::tsvector::{MAX_LEXEME_BYTES, quote_lexeme};
use std::cmp::Ordering;

/// The largest phrase distance (PostgreSQL's `MAXENTRYPOS`).
pub const MAX_DISTANCE: u16 = 1 << 14;

/// The deepest query tree folio makes or reads (levels of nodes, a
/// lexeme being one): every walker of a tree (text, keys, matching,
/// ranking, dropping it) recurses once per level, so this bounds their
/// stack. Deeper is PostgreSQL's 54001, which PostgreSQL itself gives
/// where its `max_stack_depth` runs out (a phrase of 16,384 lexemes
/// works there, one of 20,000 does not).
pub const MAX_QUERY_DEPTH: usize = 10_000;

/// Weight bits of a query lexeme: A is `1 << 3` ... D is `1`.
pub const WEIGHT_A: u8 = 1 << 3;

/// One node of a query.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum QueryNode {
    /// A lexeme: `weights` the bits of the weights it matches (0: any),
    /// `prefix` when it matches words starting with it (`:*`).
    Lexeme {
        word: String,
        weights: u8,
        prefix: bool,
    },
    Not(Box<QueryNode>),
    And(Box<QueryNode>, Box<QueryNode>),
    Or(Box<QueryNode>, Box<QueryNode>),
    /// `left <distance> right`.
    Phrase(Box<QueryNode>, Box<QueryNode>, u16),
}

/// A `tsquery`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct TsQuery {
    pub root: Option<QueryNode>,
}

/// PostgreSQL's operator numbers (`OP_NOT` ... `OP_PHRASE`).
fn oper(node: &QueryNode) -> u8 {
    match node {
        QueryNode::Lexeme { .. } => 0,
        QueryNode::Not(_) => 1,
        QueryNode::And(..) => 2,
        QueryNode::Or(..) => 3,
        QueryNode::Phrase(..) => 4,
    }
}

/// How tightly an operator binds (PostgreSQL's `tsearch_op_priority`).
fn priority(oper: u8) -> i32 {
    match oper {
        1 => 4,
        2 => 2,
        3 => 1,
        4 => 3,
        _ => 5,
    }
}

impl QueryNode {
    pub fn lexeme(word: impl Into<String>) -> QueryNode {
        QueryNode::Lexeme {
            word: word.into(),
            weights: 0,
            prefix: false,
        }
    }

    /// Its levels of nodes (a lexeme is one).
    pub fn depth(&self) -> usize {
        match self {
            QueryNode::Lexeme { .. } => 1,
            QueryNode::Not(x) => 1 + x.depth(),
            QueryNode::And(a, b) | QueryNode::Or(a, b) | QueryNode::Phrase(a, b, _) => {
                1 + a.depth().max(b.depth())
            }
        }
    }

    /// Its number of nodes (`numnode`).
    pub fn count(&self) -> usize {
        match self {
            QueryNode::Lexeme { .. } => 1,
            QueryNode::Not(x) => 1 + x.count(),
            QueryNode::And(a, b) | QueryNode::Or(a, b) | QueryNode::Phrase(a, b, _) => {
                1 + a.count() + b.count()
            }
        }
    }

    /// Bytes of its lexemes with their terminators (PostgreSQL's operand
    /// area).
    fn operand_bytes(&self) -> usize {
        match self {
            QueryNode::Lexeme { word, .. } => word.len() + 1,
            QueryNode::Not(x) => x.operand_bytes(),
            QueryNode::And(a, b) | QueryNode::Or(a, b) | QueryNode::Phrase(a, b, _) => {
                a.operand_bytes() + b.operand_bytes()
            }
        }
    }

    /// Appends its text (PostgreSQL's `infix`).
    fn write_text(&self, parent: i32, right_of_phrase: bool, out: &mut String) {
        match self {
            QueryNode::Lexeme {
                word,
                weights,
                prefix,
            } => {
                quote_lexeme(word, out);
                if *weights != 0 || *prefix {
                    out.push(':');
                    if *prefix {
                        out.push('*');
                    }
                    for (bit, letter) in [(8, 'A'), (4, 'B'), (2, 'C'), (1, 'D')] {
                        if weights & bit != 0 {
                            out.push(letter);
                        }
                    }
                }
            }
            QueryNode::Not(x) => {
                out.push('!');
                x.write_text(priority(1), false, out);
            }
            QueryNode::And(a, b) | QueryNode::Or(a, b) | QueryNode::Phrase(a, b, _) => {
                let op = oper(self);
                let p = priority(op);
                let parens = p < parent || (op == 4 && right_of_phrase);
                if parens {
                    out.push_str("( ");
                }
                a.write_text(p, false, out);
                match self {
                    QueryNode::And(..) => out.push_str(" & "),
                    QueryNode::Or(..) => out.push_str(" | "),
                    QueryNode::Phrase(_, _, 1) => out.push_str(" <-> "),
                    QueryNode::Phrase(_, _, d) => out.push_str(&format!(" <{d}> ")),
                    _ => unreachable!("binary"),
                }
                b.write_text(p, op == 4, out);
                if parens {
                    out.push_str(" )");
                }
            }
        }
    }

    /// Appends its key (module table).
    fn key_bytes(&self, out: &mut Vec<u8>) {
        match self {
            QueryNode::Lexeme {
                word,
                weights,
                prefix,
            } => {
                out.push(0x01);
                let crc = (lexeme_crc(word.as_bytes()) as u32) ^ 0x8000_0000;
                out.extend_from_slice(&(!crc).to_be_bytes());
                for &b in word.as_bytes() {
                    out.push(b);
                    if b == 0 {
                        out.push(0xFF);
                    }
                }
                out.extend_from_slice(&[0, 0, *weights, *prefix as u8]);
            }
            QueryNode::Not(x) => {
                out.extend_from_slice(&[0x00, !1, !1]);
                x.key_bytes(out);
            }
            QueryNode::And(a, b) | QueryNode::Or(a, b) | QueryNode::Phrase(a, b, _) => {
                out.extend_from_slice(&[0x00, !oper(self), !2]);
                b.key_bytes(out);
                a.key_bytes(out);
                if let QueryNode::Phrase(_, _, d) = self {
                    out.extend_from_slice(&(!d).to_be_bytes());
                }
            }
        }
    }

    /// Reads a node written by [`QueryNode::key_bytes`].
    fn from_key(r: &mut crate::key::KeyReader<'_>) -> Result<QueryNode, RowError> {
        let corrupt = || RowError::Corrupt("tsquery key".into());
        if r.byte()? == 0x01 {
            for _ in 0..4 {
                r.byte()?;
            }
            let word = String::from_utf8(r.unescaped()?).map_err(|_| corrupt())?;
            let weights = r.byte()?;
            let prefix = r.byte()? != 0;
            return Ok(QueryNode::Lexeme {
                word,
                weights,
                prefix,
            });
        }
        let op = !r.byte()?;
        let _children = r.byte()?;
        if op == 1 {
            return Ok(QueryNode::Not(Box::new(QueryNode::from_key(r)?)));
        }
        let right = Box::new(QueryNode::from_key(r)?);
        let left = Box::new(QueryNode::from_key(r)?);
        Ok(match op {
            2 => QueryNode::And(left, right),
            3 => QueryNode::Or(left, right),
            4 => QueryNode::Phrase(left, right, !u16::from_be_bytes([r.byte()?, r.byte()?])),
            _ => return Err(corrupt()),
        })
    }

    fn write_row(&self, out: &mut Vec<u8>) {
        match self {
            QueryNode::Lexeme {
                word,
                weights,
                prefix,
            } => {
                out.extend_from_slice(&[0, *weights, *prefix as u8]);
                out.extend_from_slice(&(word.len() as u32).to_le_bytes());
                out.extend_from_slice(word.as_bytes());
            }
            QueryNode::Not(x) => {
                out.push(1);
                x.write_row(out);
            }
            QueryNode::And(a, b) | QueryNode::Or(a, b) => {
                out.push(oper(self));
                a.write_row(out);
                b.write_row(out);
            }
            QueryNode::Phrase(a, b, d) => {
                out.push(4);
                out.extend_from_slice(&d.to_le_bytes());
                a.write_row(out);
                b.write_row(out);
            }
        }
    }

    fn read_row(b: &[u8], at: &mut usize, depth: usize) -> Option<QueryNode> {
        if depth >= MAX_QUERY_DEPTH {
            return None;
        }
        let mut take = |n: usize| {
            let s = b.get(*at..*at + n)?;
            *at += n;
            Some(s)
        };
        let tag = take(1)?[0];
        Some(match tag {
            0 => {
                let flags = take(2)?;
                let (weights, prefix) = (flags[0], flags[1] != 0);
                let len = u32::from_le_bytes(take(4)?.try_into().ok()?) as usize;
                let word = String::from_utf8(take(len)?.to_vec()).ok()?;
                QueryNode::Lexeme {
                    word,
                    weights,
                    prefix,
                }
            }
            1 => QueryNode::Not(Box::new(QueryNode::read_row(b, at, depth + 1)?)),
            2 | 3 => {
                let l = Box::new(QueryNode::read_row(b, at, depth + 1)?);
                let r = Box::new(QueryNode::read_row(b, at, depth + 1)?);
                if tag == 2 {
                    QueryNode::And(l, r)
                } else {
                    QueryNode::Or(l, r)
                }
            }
            4 => {
                let d = u16::from_le_bytes(take(2)?.try_into().ok()?);
                let l = Box::new(QueryNode::read_row(b, at, depth + 1)?);
                let r = Box::new(QueryNode::read_row(b, at, depth + 1)?);
                QueryNode::Phrase(l, r, d)
            }
            _ => return None,
        })
    }
}

/// The CRC PostgreSQL keeps of each query lexeme (its legacy CRC-32:
/// the reflected table used most significant byte first), as a signed
/// value as PostgreSQL compares it.
pub fn lexeme_crc(bytes: &[u8]) -> i32 {
    fn table(i: u32) -> u32 {
        let mut c = i;
        for _ in 0..8 {
            c = if c & 1 != 0 {
                0xEDB8_8320 ^ (c >> 1)
            } else {
                c >> 1
            };
        }
        c
    }
    let mut crc = 0xFFFF_FFFFu32;
    for &b in bytes {
        let index = ((crc >> 24) ^ u32::from(b)) & 0xFF;
        crc = table(index) ^ (crc << 8);
    }
    (crc ^ 0xFFFF_FFFF) as i32
}

/// One token of query text.
enum Token {
    Lexeme(QueryNode),
    Operator(u8, u16),
    Open,
    Close,
    End,
}

/// Reads query text (`parse_tsquery` with `tsqueryin`'s operands).
struct QueryParser<'a> {
    reader: TokenReader<'a>,
    /// Whether an operand is expected next (else an operator).
    want_operand: bool,
    /// No operand read yet: the end of the text is an empty query.
    first: bool,
    depth: i32,
}

impl QueryParser<'_> {
    fn syntax(&self) -> RowError {
        syntax_error(format!("syntax error in tsquery: \"{}\"", self.reader.text))
    }

    fn peek(&self) -> Option<char> {
        self.reader.text[self.reader.at..].chars().next()
    }

    fn bump(&mut self) {
        if let Some(c) = self.peek() {
            self.reader.at += c.len_utf8();
        }
    }

    fn token(&mut self) -> Result<Token, RowError> {
        loop {
            let c = self.peek();
            if self.want_operand {
                match c {
                    Some('!') => {
                        self.bump();
                        self.first = false;
                        return Ok(Token::Operator(1, 0));
                    }
                    Some('(') => {
                        self.bump();
                        self.depth += 1;
                        self.first = false;
                        return Ok(Token::Open);
                    }
                    Some(':') => return Err(self.syntax()),
                    Some(c) if is_blank(c) => self.bump(),
                    _ => match self.reader.next_word()? {
                        Some((word, _)) => {
                            if word.len() > MAX_LEXEME_BYTES {
                                return Err(RowError::TextSearch {
                                    code: "54000",
                                    message: format!(
                                        "word is too long in tsquery: \"{}\"",
                                        self.reader.text
                                    ),
                                });
                            }
                            let (weights, prefix) = self.modifiers();
                            self.want_operand = false;
                            self.first = false;
                            return Ok(Token::Lexeme(QueryNode::Lexeme {
                                word,
                                weights,
                                prefix,
                            }));
                        }
                        None if self.first => return Ok(Token::End),
                        None => {
                            return Err(syntax_error(format!(
                                "no operand in tsquery: \"{}\"",
                                self.reader.text
                            )));
                        }
                    },
                }
            } else {
                match c {
                    Some('&') => {
                        self.bump();
                        self.want_operand = true;
                        return Ok(Token::Operator(2, 0));
                    }
                    Some('|') => {
                        self.bump();
                        self.want_operand = true;
                        return Ok(Token::Operator(3, 0));
                    }
                    Some('<') => {
                        let distance = self.phrase_distance()?;
                        self.want_operand = true;
                        return Ok(Token::Operator(4, distance));
                    }
                    Some(')') => {
                        self.bump();
                        self.depth -= 1;
                        if self.depth < 0 {
                            return Err(self.syntax());
                        }
                        return Ok(Token::Close);
                    }
                    None if self.depth != 0 => return Err(self.syntax()),
                    None => return Ok(Token::End),
                    Some(c) if is_blank(c) => self.bump(),
                    Some(_) => return Err(self.syntax()),
                }
            }
        }
    }

    /// `:*AB` after a lexeme (PostgreSQL's `get_modifiers`).
    fn modifiers(&mut self) -> (u8, bool) {
        let (mut weights, mut prefix) = (0u8, false);
        if self.peek() != Some(':') {
            return (0, false);
        }
        self.bump();
        loop {
            match self.peek() {
                Some('a' | 'A') => weights |= 8,
                Some('b' | 'B') => weights |= 4,
                Some('c' | 'C') => weights |= 2,
                Some('d' | 'D') => weights |= 1,
                Some('*') => prefix = true,
                _ => return (weights, prefix),
            }
            self.bump();
        }
    }

    /// `<->` or `<N>` (0 to [`MAX_DISTANCE`]; 22023 past it).
    fn phrase_distance(&mut self) -> Result<u16, RowError> {
        let rest = &self.reader.text[self.reader.at..];
        if let Some(tail) = rest.strip_prefix("<->") {
            self.reader.at = self.reader.text.len() - tail.len();
            return Ok(1);
        }
        let digits = rest[1..]
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(rest.len() - 1);
        if digits == 0 {
            return Err(self.syntax());
        }
        let number = &rest[1..1 + digits];
        let distance = number
            .parse::<u64>()
            .ok()
            .filter(|d| *d <= u64::from(MAX_DISTANCE));
        let Some(distance) = distance else {
            return Err(RowError::TextSearch {
                code: "22023",
                message: format!(
                    "distance in phrase operator must be an integer value between zero and {MAX_DISTANCE} inclusive"
                ),
            });
        };
        if !rest[1 + digits..].starts_with('>') {
            return Err(self.syntax());
        }
        self.reader.at += 2 + digits;
        Ok(distance as u16)
    }

    /// One parenthesized level (PostgreSQL's `makepol`): operands out at
    /// once, operators through a stack by priority (`!` binds to the
    /// right, the others to the left).
    fn level(&mut self, out: &mut Vec<(QueryNode, usize)>) -> Result<(), RowError> {
        let mut stack: Vec<(u8, u16)> = Vec::new();
        loop {
            match self.token()? {
                Token::Lexeme(node) => out.push((node, 1)),
                Token::Operator(op, distance) => {
                    while let Some(&(top, d)) = stack.last() {
                        let stop = if op == 1 {
                            priority(op) >= priority(top)
                        } else {
                            priority(op) > priority(top)
                        };
                        if stop {
                            break;
                        }
                        stack.pop();
                        apply(out, top, d)?;
                    }
                    stack.push((op, distance));
                }
                Token::Open if self.depth as usize > MAX_QUERY_DEPTH => {
                    return Err(RowError::StackDepth);
                }
                Token::Open => self.level(out)?,
                Token::Close | Token::End => {
                    while let Some((top, d)) = stack.pop() {
                        apply(out, top, d)?;
                    }
                    return Ok(());
                }
            }
        }
    }
}

/// Pops an operator's operands (with their depths) off `out` and pushes
/// the node; 54001 past [`MAX_QUERY_DEPTH`].
fn apply(out: &mut Vec<(QueryNode, usize)>, op: u8, distance: u16) -> Result<(), RowError> {
    let missing = || syntax_error("malformed tsquery: operand missing".into());
    let (right, right_depth) = out.pop().ok_or_else(missing)?;
    let right = Box::new(right);
    let (node, depth) = if op == 1 {
        (QueryNode::Not(right), right_depth + 1)
    } else {
        let (left, left_depth) = out.pop().ok_or_else(missing)?;
        let left = Box::new(left);
        let depth = left_depth.max(right_depth) + 1;
        match op {
            2 => (QueryNode::And(left, right), depth),
            3 => (QueryNode::Or(left, right), depth),
            _ => (QueryNode::Phrase(left, right, distance), depth),
        }
    };
    if depth > MAX_QUERY_DEPTH {
        return Err(RowError::StackDepth);
    }
    out.push((node, depth));
    Ok(())
}

impl TsQuery {
    /// Reads query text (`tsqueryin`). An empty query (no lexemes) is
    /// PostgreSQL's, which also gives a NOTICE.
    pub fn parse(text: &str) -> Result<TsQuery, RowError> {
        let mut parser = QueryParser {
            reader: TokenReader::new(text, true),
            want_operand: true,
            first: true,
            depth: 0,
        };
        let mut out = Vec::new();
        parser.level(&mut out)?;
        if parser.depth != 0 {
            return Err(parser.syntax());
        }
        match out.len() {
            0 => Ok(TsQuery { root: None }),
            1 => Ok(TsQuery {
                root: out.pop().map(|(node, _)| node),
            }),
            _ => Err(parser.syntax()),
        }
    }

    /// The query, or 54001 when it is deeper than [`MAX_QUERY_DEPTH`]: the one
    /// check of what builds a query from others (operators, rewriting,
    /// configurations), whose inputs are within the limit.
    pub fn within_depth(self) -> Result<TsQuery, RowError> {
        match &self.root {
            Some(root) if root.depth() > MAX_QUERY_DEPTH => Err(RowError::StackDepth),
            _ => Ok(self),
        }
    }

    /// Its text (`tsqueryout`).
    pub fn text(&self) -> String {
        let mut out = String::new();
        if let Some(root) = &self.root {
            root.write_text(-1, false, &mut out);
        }
        out
    }

    /// Its number of nodes (`numnode`).
    pub fn count(&self) -> usize {
        self.root.as_ref().map_or(0, QueryNode::count)
    }

    /// PostgreSQL's order of queries (`tsquery_cmp`): node count, size,
    /// then the trees (module table).
    pub fn cmp_tsquery(&self, other: &TsQuery) -> Ordering {
        // The weights and prefix flags at the lexemes' ends are not in
        // PostgreSQL's order: `'a:A'::tsquery = 'a'` is true.
        self.key_without_flags().cmp(&other.key_without_flags())
    }

    fn key_without_flags(&self) -> Vec<u8> {
        let mut plain = self.clone();
        if let Some(root) = &mut plain.root {
            clear_flags(root);
        }
        let mut out = Vec::new();
        plain.key_bytes(&mut out);
        out
    }

    /// Appends its key (module table).
    pub(crate) fn key_bytes(&self, out: &mut Vec<u8>) {
        let count = self.count();
        let size = 8 + 12 * count + self.root.as_ref().map_or(0, QueryNode::operand_bytes);
        out.extend_from_slice(&(count as u32).to_be_bytes());
        out.extend_from_slice(&(size as u32).to_be_bytes());
        if let Some(root) = &self.root {
            root.key_bytes(out);
        }
    }

    /// Reads a key written by [`TsQuery::key_bytes`].
    pub(crate) fn from_key(r: &mut crate::key::KeyReader<'_>) -> Result<TsQuery, RowError> {
        let mut count = 0u32;
        for _ in 0..4 {
            count = count << 8 | u32::from(r.byte()?);
        }
        for _ in 0..4 {
            r.byte()?;
        }
        if count == 0 {
            return Ok(TsQuery { root: None });
        }
        Ok(TsQuery {
            root: Some(QueryNode::from_key(r)?),
        })
    }

    /// Appends its row form (module table).
    pub(crate) fn write_row(&self, out: &mut Vec<u8>) {
        if let Some(root) = &self.root {
            root.write_row(out);
        }
    }

    /// Its row form's bytes.
    pub fn row_len(&self) -> usize {
        let mut out = Vec::new();
        self.write_row(&mut out);
        out.len()
    }

    /// Reads its row form.
    pub(crate) fn read_row(b: &[u8]) -> Option<TsQuery> {
        if b.is_empty() {
            return Some(TsQuery { root: None });
        }
        let mut at = 0;
        let root = QueryNode::read_row(b, &mut at, 0)?;
        (at == b.len()).then_some(TsQuery { root: Some(root) })
    }
}

fn clear_flags(node: &mut QueryNode) {
    match node {
        QueryNode::Lexeme {
            weights, prefix, ..
        } => {
            *weights = 0;
            *prefix = false;
        }
        QueryNode::Not(x) => clear_flags(x),
        QueryNode::And(a, b) | QueryNode::Or(a, b) | QueryNode::Phrase(a, b, _) => {
            clear_flags(a);
            clear_flags(b);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(input: &str) -> String {
        TsQuery::parse(input).unwrap().text()
    }

    fn error(input: &str) -> (String, &'static str) {
        let e = TsQuery::parse(input).unwrap_err();
        (e.to_string(), e.sqlstate())
    }

    // Proves query text reads and prints as PostgreSQL 15's (tstypes.sql's
    // answers): precedence, parentheses, weights, prefixes, errors.
    #[test]
    fn text_forms_are_postgresqls() {
        for (input, output) in [
            (" 1 ", "'1'"),
            ("'1 \\'2'", "'1 ''2'"),
            ("!(!1|!2)", "!( !'1' | !'2' )"),
            ("1|2&3", "'1' | '2' & '3'"),
            ("(1|2)&3", "( '1' | '2' ) & '3'"),
            ("!(1|2)&3", "!( '1' | '2' ) & '3'"),
            ("1|(2|(4|(5|6)))", "'1' | '2' | '4' | '5' | '6'"),
            ("1&(2&(4&(5|!6)))", "'1' & '2' & '4' & ( '5' | !'6' )"),
            (
                "1&('2'&(' 4'&(\\|5 | '6 \\' !|&')))",
                "'1' & '2' & ' 4' & ( '|5' | '6 '' !|&' )",
            ),
            (
                "a:* & nbb:*ac | doo:a* | goo",
                "'a':* & 'nbb':*AC | 'doo':*A | 'goo'",
            ),
            ("!!b", "!!'b'"),
            ("!(!b)", "!!'b'"),
            ("a <-> b & c", "'a' <-> 'b' & 'c'"),
            ("a <-> (b <-> c)", "'a' <-> ( 'b' <-> 'c' )"),
            ("(a <-> b) <-> c", "'a' <-> 'b' <-> 'c'"),
            ("!(a <-> b)", "!( 'a' <-> 'b' )"),
            ("a <0> b", "'a' <0> 'b'"),
            ("a <16384> b", "'a' <16384> 'b'"),
            ("a<1>b", "'a' <-> 'b'"),
            ("a:", "'a'"),
            ("", ""),
        ] {
            assert_eq!(text(input), output, "{input}");
        }
        for bad in [
            "a b", "(a", "a)", "a <-1> b", "a:x", ":a", "()", "''", "a<b", "a:1",
        ] {
            assert_eq!(
                error(bad),
                (format!("syntax error in tsquery: \"{bad}\""), "42601")
            );
        }
        assert_eq!(error("!").0, "no operand in tsquery: \"!\"");
        assert_eq!(error("a &").0, "no operand in tsquery: \"a &\"");
        assert_eq!(error("a <16385> b").1, "22023");
        assert_eq!(error(&"x".repeat(2047)).1, "54000");
    }

    // Proves the order is PostgreSQL's `tsquery_cmp` on tstypes.sql's
    // cases and others PostgreSQL 15 answered, and the row form reads back.
    #[test]
    fn order_and_row_form() {
        let q = |t: &str| TsQuery::parse(t).unwrap();
        let lt = |a: &str, b: &str| q(a).cmp_tsquery(&q(b)) == Ordering::Less;
        assert!(lt("a", "b & c"));
        assert!(lt("a | f", "b & c"));
        assert!(!lt("a | ff", "b & c"));
        assert!(!lt("a | f | g", "b & c"));
        assert!(!lt("a & b", "a | b"));
        assert!(!lt("a & b", "a & c"));
        assert!(!lt("b", "c"));
        assert!(!lt("b", "a"));
        assert_eq!(q("a:A").cmp_tsquery(&q("a")), Ordering::Equal);
        for t in ["", "a", "!a:*B & (b <3> 'c d' | e)"] {
            let mut row = Vec::new();
            q(t).write_row(&mut row);
            assert_eq!(TsQuery::read_row(&row), Some(q(t)));
        }
    }
}
