//! The parse cache of query texts (simple protocol and Parse). Clients
//! that inline their values (`pgbench -M simple`, most ORMs' simple
//! queries) send texts that differ only in their integer literals, and
//! `-M extended` sends the same text again for each execution; tokenizing
//! and parsing each (sqlparser) was 16% of the server's CPU under
//! `pgbench -S`.
//!
//! A text's *shape* is the text with each integer literal replaced by a
//! placeholder `$1`, `$2`, ... in order ([`shape_of`]). The statement
//! parsed from a shape is kept; a later text of that shape is the kept
//! statement with its own literals put back in the placeholders' places
//! ([`put_back`]): no tokenizing, no parsing. The statement that runs is
//! still the one with literals, so planning and execution see exactly
//! what they would have seen: only the parse is skipped. (But for the
//! token locations in its nodes, which are the shape's: an error the
//! planner placed by one is given no position, `SqlError::location`.)
//!
//! Soundness: a shape is kept only if putting the first text's literals
//! back into the shape's statement gives the statement parsed from that
//! text itself (sqlparser's `PartialEq`, which ignores source positions);
//! a shape that fails it (a literal that is not an expression, such as a
//! type's length in `varchar(10)`, or one the lexer below misread) is
//! remembered as not kept, and its texts are parsed in full. Texts of one
//! shape differ only in the digits of literals, and sqlparser's parse does
//! not depend on a number's digits (a number is `Value::Number(text)`), so
//! what held for the first text holds for every text of the shape. The
//! lexer only needs to find digit runs that sqlparser reads as whole
//! number tokens; anything it is unsure of (comments, dollar quotes,
//! escape strings, numbers with a point or exponent) makes the text
//! uncached.

use crate::error::SqlError;
use crate::parse::{self, Parsed};
use crate::shape_plans::Generic;
use folio_row::SqlType;
use sqlparser::ast::{Expr, Statement, Value, ValueWithSpan, visit_expressions_mut};
use std::ops::ControlFlow;

/// Shapes kept per session before the cache starts over (a session that
/// sends ever new texts keeps at most this many statements).
const MAX_SHAPES: usize = 256;

/// Texts longer than this are parsed without the cache (the shape's key
/// would cost more than it saves, and few long texts repeat).
const MAX_TEXT: usize = 4096;

/// One session's kept shapes: the statement parsed from each shape, or
/// `None` for a shape that is not kept (see the module's soundness rule).
#[derive(Default)]
pub struct ShapeCache {
    /// (foldhash: SipHash of the texts was ~2% of pgbench's simple-mode
    /// transaction.)
    shapes: foldhash::HashMap<String, Option<Kept>>,
    /// The shape of the text being looked up, written here (not in a new
    /// `String` per text): a kept shape's own key is the one used.
    scratch: String,
    /// Texts answered from a kept shape (tests and profiles read it).
    hits: u64,
}

/// A kept shape's statement, holding the literals of the last text that
/// used it, and where its literals go.
struct Kept {
    statement: Box<Statement>,
    /// The shape's generic plans, if its literals may be parameters
    /// (`shape_plans.rs`).
    generic: Option<Box<Generic>>,
    /// (position in `visit_expressions_mut`'s order, literal number - 1)
    /// of each literal, in visiting order. The statement's structure never
    /// changes (only those leaves are rewritten), so positions stay true.
    slots: Vec<(usize, usize)>,
}

/// A kept statement lent out by [`ShapeCache::take`] while it runs, to be
/// given back with [`ShapeCache::give_back`].
pub struct Lent {
    shape: String,
    slots: Vec<(usize, usize)>,
    generic: Option<Box<Generic>>,
    /// The text's literals as the generic plan's parameters, and their
    /// types (`shape_plans::parameters`), when the shape has one.
    parameters: Option<(Vec<folio_row::Value>, Vec<SqlType>)>,
}

impl Lent {
    /// The shape's generic plans and the text's parameters, to run the
    /// text by one (`shape_plans.rs`); the plans are put back with
    /// [`Lent::restore_generic`].
    pub fn take_generic(&mut self) -> Option<(Box<Generic>, Vec<folio_row::Value>, Vec<SqlType>)> {
        let (values, types) = self.parameters.take()?;
        Some((self.generic.take()?, values, types))
    }

    pub fn restore_generic(&mut self, generic: Box<Generic>) {
        self.generic = Some(generic);
    }
}

impl ShapeCache {
    /// The statements of `sql`, as [`parse::statements`] gives them: from
    /// a kept shape (a copy of it) when `sql` is one statement of a known
    /// shape; and whether they came from one (their nodes' token
    /// locations are then the shape's, not `sql`'s).
    pub fn statements(&mut self, sql: &str) -> Result<(Vec<Parsed>, bool), SqlError> {
        let (statements, lent) = self.take(sql)?;
        let copy = statements.clone();
        let shaped = lent.is_some();
        if let Some(lent) = lent {
            self.give_back(lent, statements);
        }
        Ok((copy, shaped))
    }

    /// The statements of `sql`, as [`parse::statements`] gives them; when
    /// they come from a kept shape, that shape's own statement is lent
    /// (no copy), and `Some` asks for it back with [`ShapeCache::give_back`]
    /// (a shape not given back is parsed again at its next text).
    pub fn take(&mut self, sql: &str) -> Result<(Vec<Parsed>, Option<Lent>), SqlError> {
        let mut shape = std::mem::take(&mut self.scratch);
        let Some(literals) = shape_into(sql, &mut shape) else {
            self.scratch = shape;
            return Ok((parse::statements(sql)?, None));
        };
        match self.shapes.remove_entry(&shape) {
            Some((key, Some(mut kept))) => {
                self.scratch = shape;
                self.hits += 1;
                put_back(&mut kept.statement, &kept.slots, &literals);
                debug_assert!(
                    matches!(&parse::statements(sql).as_deref(), Ok([Parsed::Sql(s)]) if **s == *kept.statement),
                    "the kept shape of {sql:?} gives what a parse gives"
                );
                let parameters =
                    (kept.generic.as_ref()).and_then(|_| crate::shape_plans::parameters(&literals));
                let lent = Lent {
                    shape: key,
                    slots: kept.slots,
                    generic: kept.generic,
                    parameters,
                };
                Ok((vec![Parsed::Sql(kept.statement)], Some(lent)))
            }
            Some((key, None)) => {
                self.scratch = shape;
                self.shapes.insert(key, None);
                Ok((parse::statements(sql)?, None))
            }
            None => {
                let parsed = parse::statements(sql)?;
                let kept = match parsed.as_slice() {
                    [Parsed::Sql(statement)] => keepable(&shape, &literals, statement),
                    _ => None,
                };
                if self.shapes.len() >= MAX_SHAPES {
                    self.shapes.clear();
                }
                self.shapes.insert(shape, kept);
                Ok((parsed, None))
            }
        }
    }

    /// Puts back the statement [`ShapeCache::take`] lent.
    pub fn give_back(&mut self, lent: Lent, mut statements: Vec<Parsed>) {
        if let (Some(Parsed::Sql(statement)), true) = (statements.pop(), statements.is_empty()) {
            let kept = Kept {
                statement,
                slots: lent.slots,
                generic: lent.generic,
            };
            self.shapes.insert(lent.shape, Some(kept));
        }
    }

    /// How many texts were answered from a kept shape.
    pub fn hits(&self) -> u64 {
        self.hits
    }
}

/// The statement parsed from `shape` and where its literals go, if putting
/// `literals` back into it gives `parsed` (the statement parsed from the
/// text itself).
fn keepable(shape: &str, literals: &[&str], parsed: &Statement) -> Option<Kept> {
    let mut statements = parse::statements(shape).ok()?;
    let Some(Parsed::Sql(mut statement)) = statements.pop() else {
        return None;
    };
    let mut slots = Vec::new();
    let mut at = 0;
    let mut unknown = false;
    // The same (post-)order as `put_back`'s visit: the immutable visitor
    // goes in pre-order.
    let _ = visit_expressions_mut(&mut *statement, |expr| {
        if let Expr::Value(ValueWithSpan {
            value: Value::Placeholder(p),
            ..
        }) = expr
        {
            match p.strip_prefix('$').and_then(|n| n.parse::<usize>().ok()) {
                Some(n) if (1..=literals.len()).contains(&n) => slots.push((at, n - 1)),
                _ => {
                    unknown = true;
                    return ControlFlow::Break(());
                }
            }
        }
        at += 1;
        ControlFlow::Continue(())
    });
    if unknown || !statements.is_empty() {
        return None;
    }
    let generic = Generic::of(&statement).map(Box::new);
    put_back(&mut statement, &slots, literals);
    (*statement == *parsed).then_some(Kept {
        statement,
        slots,
        generic,
    })
}

/// Writes `literals` into `statement` at `slots` (see [`Kept::slots`]).
fn put_back(statement: &mut Statement, slots: &[(usize, usize)], literals: &[&str]) {
    if slots.is_empty() {
        return;
    }
    let mut at = 0;
    let mut next = 0;
    let _ = visit_expressions_mut(statement, |expr| {
        if slots[next].0 == at {
            if let Expr::Value(value) = expr {
                let literal = literals[slots[next].1];
                match &mut value.value {
                    // The last text's literal's buffer, reused.
                    Value::Number(text, false) => {
                        text.clear();
                        text.push_str(literal);
                    }
                    other => *other = Value::Number(literal.to_string(), false),
                }
            }
            next += 1;
            if next == slots.len() {
                return ControlFlow::Break(());
            }
        }
        at += 1;
        ControlFlow::Continue(())
    });
}

/// The shape of `sql` and its integer literals in order, or `None` when
/// the text is not cached: too long, or holding something the lexer does
/// not read with certainty. A text that already has parameters (`$1`, the
/// extended protocol's) is its own shape with no literals.
#[cfg(test)]
pub(crate) fn shape_of(sql: &str) -> Option<(String, Vec<&str>)> {
    let mut shape = String::new();
    let literals = shape_into(sql, &mut shape)?;
    Some((shape, literals))
}

/// [`shape_of`], the shape written in `shape` (cleared first).
fn shape_into<'a>(sql: &'a str, shape: &mut String) -> Option<Vec<&'a str>> {
    if sql.len() > MAX_TEXT {
        return None;
    }
    let bytes = sql.as_bytes();
    let has_parameters = bytes.contains(&b'$');
    shape.clear();
    shape.reserve(sql.len() + 4);
    let mut literals = Vec::new();
    let mut copied = 0;
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        match CLASS[b as usize] {
            OTHER => i += 1,
            // A name or keyword with the digits in it (`t1`), or a point
            // and the fraction after it: skipped whole.
            WORD | POINT => i = word_end(bytes, i + 1),
            QUOTE => {
                // An escape string (E'..', where \' does not end it) or any
                // other prefixed literal: not read here.
                if b == b'\'' && i > 0 && is_word_byte(bytes[i - 1]) {
                    return None;
                }
                i = quoted_end(bytes, i)?;
            }
            DASH if bytes.get(i + 1) == Some(&b'-') => return None,
            SLASH if bytes.get(i + 1) == Some(&b'*') => return None,
            DASH | SLASH => i += 1,
            DOLLAR => {
                // Only parameters `$n`, not dollar quoting.
                let digits = bytes[i + 1..]
                    .iter()
                    .take_while(|b| b.is_ascii_digit())
                    .count();
                if digits == 0 || bytes.get(i + 1 + digits).is_some_and(|&b| is_word_byte(b)) {
                    return None;
                }
                i += 1 + digits;
            }
            _ => {
                // A digit not inside a name (skipped whole above): an
                // integer literal, or a number this lexer does not read.
                let end = i + bytes[i..].iter().take_while(|b| b.is_ascii_digit()).count();
                if bytes
                    .get(end)
                    .is_some_and(|&b| is_word_byte(b) || b == b'.')
                {
                    // 1.5, 1e3, 0x1F, 10abc: not an integer literal.
                    return None;
                }
                if has_parameters {
                    // Parameters and literals are not numbered together.
                    i = end;
                    continue;
                }
                shape.push_str(&sql[copied..i]);
                literals.push(&sql[i..end]);
                shape.push('$');
                push_number(shape, literals.len());
                copied = end;
                i = end;
            }
        }
    }
    shape.push_str(&sql[copied..]);
    Some(literals)
}

/// What [`shape_of`] does at a byte (`CLASS`): skip it, skip the name or
/// fraction it starts, or read a literal, a quoted text, a comment's or a
/// parameter's opening.
const OTHER: u8 = 0;
const WORD: u8 = 1;
const DIGIT: u8 = 2;
const QUOTE: u8 = 3;
const DASH: u8 = 4;
const SLASH: u8 = 5;
const DOLLAR: u8 = 6;
const POINT: u8 = 7;

/// Each byte's class for [`shape_of`].
static CLASS: [u8; 256] = {
    let mut class = [OTHER; 256];
    let mut b = 0;
    while b < 256 {
        class[b] = match b as u8 {
            b'0'..=b'9' => DIGIT,
            b'\'' | b'"' => QUOTE,
            b'-' => DASH,
            b'/' => SLASH,
            b'$' => DOLLAR,
            b'.' => POINT,
            c if is_word_byte(c) => WORD,
            _ => OTHER,
        };
        b += 1;
    }
    class
};

/// The index after the name bytes (letters, digits, `_`, non-ASCII) from
/// `i` on.
fn word_end(bytes: &[u8], mut i: usize) -> usize {
    while i < bytes.len() && is_word_byte(bytes[i]) {
        i += 1;
    }
    i
}

/// Appends `n` in decimal (without `to_string`'s allocation).
fn push_number(out: &mut String, mut n: usize) {
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    loop {
        at -= 1;
        digits[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    out.extend(digits[at..].iter().map(|&d| char::from(d)));
}

/// Bytes that continue a name or keyword (a digit after one is part of it).
const fn is_word_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b >= 0x80
}

/// The index after the closing quote of the quoted text starting at
/// `start` (a doubled quote is one quote character), or `None` if it does
/// not close.
fn quoted_end(bytes: &[u8], start: usize) -> Option<usize> {
    let quote = bytes[start];
    let mut i = start + 1;
    loop {
        let at = i + bytes.get(i..)?.iter().position(|&b| b == quote)?;
        if bytes.get(at + 1) == Some(&quote) {
            i = at + 2;
        } else {
            return Some(at + 1);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes_replace_integer_literals_only() {
        let (shape, literals) =
            shape_of("SELECT abalance FROM pgbench_accounts WHERE aid = 48934;").unwrap();
        assert_eq!(
            shape,
            "SELECT abalance FROM pgbench_accounts WHERE aid = $1;"
        );
        assert_eq!(literals, ["48934"]);
        let (shape, literals) =
            shape_of("UPDATE t1 SET v = v + -25 WHERE k = 7 AND s = 'a''5' AND \"c 3\" = 2")
                .unwrap();
        assert_eq!(
            shape,
            "UPDATE t1 SET v = v + -$1 WHERE k = $2 AND s = 'a''5' AND \"c 3\" = $3"
        );
        assert_eq!(literals, ["25", "7", "2"]);
        // Parameters: the text is its own shape.
        assert_eq!(
            shape_of("select $1 + 5").unwrap(),
            ("select $1 + 5".to_string(), vec![])
        );
        for uncached in [
            "select 1.5",
            "select 1e3",
            "select 0x1F",
            "select E'\\'5'",
            "select 1 -- 2",
            "select /* 1 */ 2",
            "select $$5$$",
            "select 'open",
        ] {
            assert!(shape_of(uncached).is_none(), "{uncached}");
        }
    }

    #[test]
    fn lent_statements_take_each_texts_literals_in_place() {
        // Proves a kept statement lent and given back takes every text's
        // literals at their places (several literals, nested expressions,
        // an INSERT's rows), equal to a full parse each time.
        let mut cache = ShapeCache::default();
        for (a, b, c) in [(5, 7, 1), (123, 4, 99), (0, 2147483648u64, 3)] {
            for text in [
                format!("update t set v = v + -{a} where k = {b} and j in ({c}, {a} * ({b} + 1))"),
                format!("insert into h (a, b) values ({a}, {b}), ({c}, -{a})"),
            ] {
                let (statements, lent) = cache.take(&text).unwrap();
                assert_eq!(statements, parse::statements(&text).unwrap(), "{text}");
                if let Some(lent) = lent {
                    cache.give_back(lent, statements);
                }
            }
        }
        assert_eq!(cache.hits(), 4);
    }

    #[test]
    fn a_kept_shape_gives_the_statement_a_parse_gives() {
        let mut cache = ShapeCache::default();
        let texts = [
            "select k, v from t where k = 1 order by 2 limit 3",
            "select k, v from t where k = 40 order by 1 limit 10",
            "select k, v from t where k = 99999999999 order by 2 limit 0",
        ];
        for (i, text) in texts.iter().enumerate() {
            let (cached, shaped) = cache.statements(text).unwrap();
            let parsed = parse::statements(text).unwrap();
            match (&cached[..], &parsed[..]) {
                ([Parsed::Sql(a)], [Parsed::Sql(b)]) => assert_eq!(a, b),
                _ => panic!("one statement each"),
            }
            assert_eq!(cache.hits(), i as u64);
            assert_eq!(shaped, i > 0);
        }
    }

    #[test]
    fn a_literal_that_is_not_an_expression_is_not_kept() {
        let mut cache = ShapeCache::default();
        for n in [10, 20] {
            let text = format!("create table t (a varchar({n}))");
            let (cached, shaped) = cache.statements(&text).unwrap();
            assert!(!shaped);
            let parsed = parse::statements(&text).unwrap();
            match (&cached[..], &parsed[..]) {
                ([Parsed::Sql(a)], [Parsed::Sql(b)]) => assert_eq!(a, b),
                _ => panic!("one statement each"),
            }
        }
        assert_eq!(cache.hits(), 0);
    }
}
