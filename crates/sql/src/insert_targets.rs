//! An INSERT's column list with subscripted targets: `INSERT INTO t
//! (a[1], a[2]) VALUES (1, 2)`, `... SELECT 7, 8`, `(b, a[2:3]) ...`,
//! and targets that are fields of a composite column (`(c.f1, q.c1.r)`:
//! `field_assignment.rs` owns that rule; here a field path is one more
//! kind of target, built in the same order). The rule is PostgreSQL's
//! ([`Targets::of`] reads the list, [`Subscripts::apply`] builds the
//! values):
//!
//! - A subscripted target's value is assigned into the column's array at
//!   its subscripts (`array_set::assign`, the one owner of that rule),
//!   the array starting NULL (not the column's default).
//! - Several targets of one column apply in the order written, each to
//!   the array the one before made (`(a[2], a[1])`, `(a[1], a[1])`).
//! - A column named more than once, once without a subscript, is 42701
//!   `column "a" specified more than once` (also two plain names).
//! - A subscripted target's value must take the element's type (a
//!   slice's: the array's) in assignment, else 42804 `subscripted
//!   assignment to "a" requires type ...`; `DEFAULT` for it is 0A000.
//!
//! A field target starts its column's composite value NULL too; several
//! targets of a column (fields or subscripts) apply in the order written.
//!
//! sqlparser 0.59 reads only names in the list: [`mark`] keeps each
//! target's column name there and writes the targets themselves as the
//! items of the Hive `PARTITION (...)` clause sqlparser reads after it
//! (`Insert::partitioned`, shared with `overriding.rs`'s marker, which
//! stays first): `PARTITION ($targets:insert, a[1], a[2])`, the marker
//! not a token a client can write.

use crate::array_assignment;
use crate::array_subscripts::Subscripts as Shape;
use crate::error::SqlError;
use crate::field_assignment::Path;
use crate::scalar::{self, Scalar};
use crate::types;
use crate::{access, names};
use folio_catalog::Relation;
use folio_row::{SqlType, Value};
use sqlparser::ast::{AccessExpr, Expr, Ident, Insert, Spanned, Subscript as Written};
use sqlparser::keywords::Keyword;
use sqlparser::tokenizer::{Token, TokenWithSpan, Word};

/// The marker [`mark`] writes first in the clause.
const MARKER: &str = "$targets:insert";

/// What one target of the list writes inside its column: a subscript
/// or a field path; the type its value takes, and the column's name (for
/// messages).
#[derive(Debug, Clone)]
pub struct Subscript {
    place: Place,
    ty: SqlType,
    column: String,
    /// Where the target is written.
    at: sqlparser::tokenizer::Location,
}

/// Where inside its column a target writes.
#[derive(Debug, Clone)]
enum Place {
    /// `a[i]`, `a[l:u]`, `a[i][j]`, ...: their shape, their bounds bound.
    Subscript { shape: Shape, bounds: Vec<Scalar> },
    /// `c.f1.f2`.
    Field(Path),
}

/// Each target's subscript or field path, by its place in the list
/// (empty: none).
#[derive(Debug, Clone, Default)]
pub struct Subscripts(Vec<Option<Subscript>>);

/// An INSERT's targets: the column of each place of its list (without a
/// list: every column, in order), and their subscripts.
pub struct Targets {
    pub columns: Vec<usize>,
    pub subscripts: Subscripts,
}

impl Targets {
    /// The targets of `insert` into `relation` (named `name`).
    pub fn of(insert: &Insert, relation: &Relation, name: &str) -> Result<Targets, SqlError> {
        if insert.columns.is_empty() {
            return Ok(Targets {
                columns: (0..relation.def.columns.len()).collect(),
                subscripts: Subscripts::default(),
            });
        }
        let written = written(insert);
        let mut columns = Vec::new();
        let mut subscripts: Vec<Option<Subscript>> = Vec::new();
        for (i, ident) in insert.columns.iter().enumerate() {
            let c = access::target_column(relation, name, &names::ident(ident))?;
            let subscript = match written.and_then(|w| w.get(i)) {
                Some(e) => subscript_of(e, relation, c)?,
                None => None,
            };
            // A column listed again, either time without a subscript.
            if let Some(first) = columns.iter().position(|&d| d == c)
                && (subscript.is_none() || subscripts[first].is_none())
            {
                return Err(SqlError::new(
                    "42701",
                    format!(
                        "column \"{}\" specified more than once",
                        relation.def.columns[c].name
                    ),
                )
                .near(Some(place(ident, written.and_then(|w| w.get(i))))));
            }
            columns.push(c);
            subscripts.push(subscript);
        }
        let subscripts = match subscripts.iter().any(Option::is_some) {
            true => Subscripts(subscripts),
            false => Subscripts::default(),
        };
        Ok(Targets {
            columns,
            subscripts,
        })
    }
}

/// Where an error about a target points.
fn place(ident: &Ident, written: Option<&Expr>) -> sqlparser::tokenizer::Location {
    written.map_or(ident.span.start, |e| e.span().start)
}

/// The targets [`mark`] wrote for `insert`, one a list place, if any.
fn written(insert: &Insert) -> Option<&[Expr]> {
    let items = insert.partitioned.as_deref()?;
    let at = items.iter().position(is_marker)?;
    Some(&items[at + 1..])
}

/// Whether `e` is the marker [`mark`] writes.
fn is_marker(e: &Expr) -> bool {
    matches!(e, Expr::Value(v) if matches!(&v.value, sqlparser::ast::Value::Placeholder(p) if p == MARKER))
}

/// Whether a `PARTITION (...)` clause's `items` hold [`mark`]'s targets.
pub fn is_marked(items: &[Expr]) -> bool {
    items.iter().any(is_marker)
}

/// The subscript or field path target `e` (written for column `c`) has,
/// if any.
fn subscript_of(e: &Expr, relation: &Relation, c: usize) -> Result<Option<Subscript>, SqlError> {
    let none: &[(String, SqlType)] = &[];
    let column = relation.def.columns[c].name.clone();
    let ty = relation.types[c];
    if let Expr::CompoundIdentifier(parts) = e {
        let fields: Vec<String> = parts[1..].iter().map(names::ident).collect();
        let path = Path::of(&column, ty, &fields).map_err(|err| err.near(Some(e.span().start)))?;
        return Ok(Some(Subscript {
            ty: path.ty(),
            place: Place::Field(path),
            column,
            at: e.span().start,
        }));
    }
    let Expr::CompoundFieldAccess { root, access_chain } = e else {
        return Ok(None);
    };
    if !matches!(root.as_ref(), Expr::Identifier(_)) {
        return Err(SqlError::unsupported(
            "an INSERT target mixing fields and subscripts",
        ));
    }
    let written: Vec<&Written> = (access_chain.iter())
        .map(|a| match a {
            AccessExpr::Subscript(s) => Some(s),
            AccessExpr::Dot(_) => None,
        })
        .collect::<Option<_>>()
        .ok_or_else(|| SqlError::unsupported("an INSERT target mixing subscripts and fields"))?;
    let Some(element) = ty.element() else {
        return Err(SqlError::new(
            "42804",
            format!(
                "cannot subscript type {} because it does not support subscripting",
                ty.name()
            ),
        ));
    };
    let (shape, bounds) = crate::array_subscripts::written(&written, none)?;
    let ty = match shape.slice {
        false => element,
        true => ty,
    };
    Ok(Some(Subscript {
        place: Place::Subscript { shape, bounds },
        ty,
        column,
        at: e.span().start,
    }))
}

impl Subscript {
    /// A VALUES item `e` given to it, bound (checked as the element's).
    pub fn bind(&self, e: &Expr) -> Result<Scalar, SqlError> {
        let none: &[(String, SqlType)] = &[];
        if let Place::Field(path) = &self.place {
            if crate::dml::is_default(e) {
                return Err(crate::field_assignment::default_refused().near(Some(self.at)));
            }
            return (path.fit(scalar::bind(e, none)?, none)).map_err(|e| e.near(Some(self.at)));
        }
        if crate::dml::is_default(e) {
            // (PostgreSQL says "element" of a slice too.)
            return Err(
                SqlError::new("0A000", "cannot set an array element to DEFAULT")
                    .near(Some(self.at)),
            );
        }
        let bound = scalar::bind(e, none)?;
        array_assignment::fit(bound, self.ty, &self.column, none).map_err(|e| match e.code {
            "42804" => e.near(Some(self.at)),
            _ => e,
        })
    }

    /// 42804 unless a query's column of type `from` may be given to it
    /// (a text column may be an untyped literal's: it passes).
    pub fn check(&self, from: SqlType) -> Result<(), SqlError> {
        if let Place::Field(path) = &self.place {
            // A query's text column may be an untyped literal's.
            if from == SqlType::Text {
                return Ok(());
            }
            return path.check(from).map_err(|e| e.near(Some(self.at)));
        }
        if matches!(from, SqlType::Text | SqlType::Record)
            || from == self.ty
            || types::assignment_cast(from, self.ty)
        {
            return Ok(());
        }
        Err(array_assignment::refused(&self.column, self.ty, from).near(Some(self.at)))
    }

    /// The type its value takes.
    pub fn value_type(&self) -> SqlType {
        self.ty
    }
}

impl Subscripts {
    /// The subscript of the list's `i`th target, if it has one.
    pub fn at(&self, i: usize) -> Option<&Subscript> {
        self.0.get(i).and_then(Option::as_ref)
    }

    /// Replaces each subscripted value of `row` (given to `columns`, by
    /// place) with its column's array so far: the last place of a column
    /// holds its whole value (the module comment's rule).
    pub fn apply(
        &self,
        row: &mut [Value],
        columns: &[usize],
        env: &crate::scalar::Env<'_>,
    ) -> Result<(), SqlError> {
        for (i, s) in self.0.iter().enumerate() {
            let (Some(s), Some(&c)) = (s, columns.get(i)) else {
                continue;
            };
            if i >= row.len() {
                continue;
            }
            let base = (0..i)
                .rev()
                .find(|&j| columns[j] == c)
                .map_or(Value::Null, |j| row[j].clone());
            let value = types::assign(std::mem::replace(&mut row[i], Value::Null), s.ty)?;
            row[i] = match &s.place {
                Place::Field(path) => path.set(base, value)?,
                Place::Subscript { shape, bounds } => {
                    let mut args = vec![base];
                    for b in bounds {
                        args.push(b.eval(&[], env)?);
                    }
                    args.push(value);
                    crate::array_set::assign(*shape, args)?
                }
            };
        }
        Ok(())
    }
}

/// Rewrites each INSERT column list with a subscripted target (see the
/// module comment).
pub fn mark(tokens: &mut Vec<TokenWithSpan>) {
    if !tokens
        .iter()
        .any(|t| matches!(t.token, Token::LBracket | Token::Period))
    {
        return;
    }
    let mut from = 0;
    while let Some(insert) = crate::parse::next_keyword(tokens, from, Keyword::INSERT) {
        from = insert + 1;
        let Some(open) = list_start(tokens, insert + 1) else {
            continue;
        };
        let Some((items, close)) = list_items(tokens, open + 1) else {
            continue;
        };
        if !items.iter().any(|&(s, e)| subscripted(&tokens[s..e])) {
            continue;
        }
        let at = |t: Token, like: &TokenWithSpan| TokenWithSpan::new(t, like.span);
        let mut names = vec![tokens[open].clone()];
        let mut targets = Vec::new();
        for (n, &(s, e)) in items.iter().enumerate() {
            let Some(name) = tokens[s..e]
                .iter()
                .find(|t| !matches!(t.token, Token::Whitespace(_)))
            else {
                return;
            };
            if n > 0 {
                names.push(at(Token::Comma, name));
            }
            names.push(name.clone());
            targets.push(at(Token::Comma, name));
            targets.extend_from_slice(&tokens[s..e]);
        }
        names.push(tokens[close].clone());
        let marker = at(Token::Placeholder(MARKER.to_string()), &tokens[open]);
        targets.insert(0, marker);
        // After OVERRIDING's marker, if there is one (`overriding.rs`).
        let next = solid(tokens, close + 1);
        let clause = match next {
            Some(p) if crate::parse::keyword(&tokens[p].token) == Some(Keyword::PARTITION) => {
                solid(tokens, p + 1).and_then(|l| solid(tokens, l + 1))
            }
            _ => None,
        };
        match clause {
            Some(after) => {
                let mut rest = vec![at(Token::Comma, &tokens[after])];
                rest.extend(targets);
                tokens.splice(after + 1..after + 1, rest);
            }
            None => {
                let mut clause = vec![
                    at(
                        Token::Word(Word {
                            value: "PARTITION".to_string(),
                            quote_style: None,
                            keyword: Keyword::PARTITION,
                        }),
                        &tokens[close],
                    ),
                    at(Token::LParen, &tokens[close]),
                ];
                clause.extend(targets);
                clause.push(at(Token::RParen, &tokens[close]));
                tokens.splice(close + 1..close + 1, clause);
            }
        }
        tokens.splice(open..close + 1, names);
    }
}

/// The next token from `at` that is not white space.
fn solid(tokens: &[TokenWithSpan], at: usize) -> Option<usize> {
    (at..tokens.len()).find(|&i| !matches!(tokens[i].token, Token::Whitespace(_)))
}

/// The `(` of the column list after `INSERT` (`at` is past it): `INTO
/// name [AS alias] (`.
fn list_start(tokens: &[TokenWithSpan], at: usize) -> Option<usize> {
    let into = solid(tokens, at)?;
    if crate::parse::keyword(&tokens[into].token) != Some(Keyword::INTO) {
        return None;
    }
    let mut at = solid(tokens, into + 1)?;
    loop {
        if !matches!(tokens[at].token, Token::Word(_)) {
            return None;
        }
        let next = solid(tokens, at + 1)?;
        if tokens[next].token != Token::Period {
            at = next;
            break;
        }
        at = solid(tokens, next + 1)?;
    }
    if crate::parse::keyword(&tokens[at].token) == Some(Keyword::AS) {
        at = solid(tokens, at + 1)?;
        if !matches!(tokens[at].token, Token::Word(_)) {
            return None;
        }
        at = solid(tokens, at + 1)?;
    }
    (tokens[at].token == Token::LParen).then_some(at)
}

/// The items (`start..end`) of the list from `at` to its `)`, and where
/// that is.
fn list_items(tokens: &[TokenWithSpan], at: usize) -> Option<(Vec<(usize, usize)>, usize)> {
    let mut items = Vec::new();
    let mut depth = 0usize;
    let mut start = at;
    for (i, token) in tokens.iter().enumerate().skip(at) {
        match token.token {
            Token::LParen | Token::LBracket => depth += 1,
            Token::RParen if depth == 0 => {
                items.push((start, i));
                return Some((items, i));
            }
            Token::RParen | Token::RBracket => depth = depth.checked_sub(1)?,
            Token::Comma if depth == 0 => {
                items.push((start, i));
                start = i + 1;
            }
            Token::SemiColon | Token::EOF => return None,
            _ => {}
        }
    }
    None
}

/// Whether a list item is a name and then `[` or `.`.
fn subscripted(item: &[TokenWithSpan]) -> bool {
    let mut solid = item
        .iter()
        .filter(|t| !matches!(t.token, Token::Whitespace(_)));
    matches!(solid.next().map(|t| &t.token), Some(Token::Word(w)) if w.keyword != Keyword::SELECT && w.keyword != Keyword::WITH && w.keyword != Keyword::VALUES)
        && matches!(
            solid.next().map(|t| &t.token),
            Some(Token::LBracket | Token::Period)
        )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A list with a subscripted target keeps the names and writes the
    /// targets after the marker, also after OVERRIDING's; other lists
    /// and subqueries stay as written.
    #[test]
    fn marks() {
        let rewritten = |sql: &str| {
            let mut tokens = crate::parse::plain_tokens(sql).expect("tokens");
            let text = crate::position::Text::new(sql);
            crate::overriding::mark(&mut tokens, &text).expect("marked");
            mark(&mut tokens);
            crate::parse::spelled(&tokens)
        };
        assert_eq!(
            rewritten("insert into s.t (a[1], b) values (1, 2)"),
            "insert into s . t ( a , b ) PARTITION ( $targets:insert , a [ 1 ] , b ) values ( 1 , 2 )"
        );
        assert_eq!(
            rewritten("insert into t as x (a[1:2]) overriding user value select 1"),
            "insert into t as x ( a ) overriding ( $overriding:user , $targets:insert , a [ 1 : 2 ] ) select 1"
        );
        let same = "insert into t ( a , b ) values ( x [ 1 ] , 2 )";
        assert_eq!(rewritten(same), same);
        let sub = "insert into t ( select a [ 1 ] from u )";
        assert_eq!(rewritten(sub), sub);
    }

    /// Places of one column build one array, in the order written.
    #[test]
    fn applies_in_order() {
        let at = |i: i64| Scalar::Const(Value::Int8(i));
        let element = |i: i64| {
            Some(Subscript {
                place: Place::Subscript {
                    shape: Shape::element(1),
                    bounds: vec![at(i)],
                },
                ty: SqlType::Int4,
                column: "a".to_string(),
                at: sqlparser::tokenizer::Location::of(1, 1),
            })
        };
        let subscripts = Subscripts(vec![element(1), None, element(3), element(1)]);
        let mut row = vec![
            Value::Int4(5),
            Value::Int4(9),
            Value::Int4(6),
            Value::Int4(7),
        ];
        let env = crate::scalar::Env::at(0);
        subscripts.apply(&mut row, &[0, 1, 0, 0], &env).unwrap();
        let ints = |v: &[Option<i32>]| {
            Value::Array(
                v.iter()
                    .map(|i| i.map_or(Value::Null, Value::Int4))
                    .collect(),
            )
        };
        assert_eq!(
            row,
            vec![
                ints(&[Some(5)]),
                Value::Int4(9),
                ints(&[Some(5), None, Some(6)]),
                ints(&[Some(7), None, Some(6)]),
            ]
        );
    }
}
