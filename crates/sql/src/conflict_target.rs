//! ON CONFLICT's conflict target and the unique indexes it infers
//! (PostgreSQL's `infer_arbiter_indexes`): `ON CONSTRAINT name`, or an
//! inference clause `(element, ...) [WHERE predicate]` whose elements are
//! columns or index expressions, each with an optional `COLLATE` and
//! operator class, as `CREATE INDEX` writes a key.
//!
//! sqlparser reads only a list of column names there, without WHERE. So
//! any other inference clause is rewritten before the parse ([`encode`])
//! into `ON CONSTRAINT` with a name no PostgreSQL identifier can be (its
//! first part begins with a NUL): the elements' and the predicate's texts,
//! one part each, which [`Target::of`] reads back. (The statement stays
//! sqlparser's, so an insert in a CTE, a PL/pgSQL body or a prepared
//! statement takes the clause as any other.)
//!
//! Inference, as PostgreSQL's: a unique index is an arbiter when its
//! plain key columns are exactly the set of the elements that are
//! columns, every element that is an expression is one of its key
//! expressions and each of those is an element, an element's collation
//! and operator class (when given) are those of a key of it over the same
//! column or expression, and, for a partial index, the clause's WHERE
//! implies its predicate (`index_exprs::implied`). Every such index is an
//! arbiter; none is 42P10. So a plain column list never infers a partial
//! index, and an index is never inferred by a subset of its keys.
//!
//! folio's keys have no collation but the default and no operator class
//! but their type's default (`CREATE INDEX` refuses others), except a
//! key written `column COLLATE "C"`, which is that column compared as
//! folio compares all text, but whose collation PostgreSQL names: an
//! element's `COLLATE "C"` matches only it.

use crate::error::SqlError;
use crate::index_exprs::{self, Compiled};
use crate::names;
use crate::parse::closing;
use crate::position::Text;
use crate::scalar::{self, Columns, Scalar};
use folio_catalog::{IndexDef, Relation, RelationIndex};
use sqlparser::ast::{ConflictTarget, Expr, IndexColumn, ObjectName, ObjectNamePart};
use sqlparser::keywords::Keyword;
use sqlparser::tokenizer::{Token, TokenWithSpan, Word};

/// The first part of the name an encoded inference clause is written as.
const MARKER: &str = "\u{0}inference";

/// The part before an encoded clause's WHERE predicate.
const WHERE: &str = "\u{0}where";

/// What an ON CONFLICT clause names.
pub enum Target {
    /// No target: every unique index arbitrates (DO NOTHING only).
    Any,
    /// `ON CONSTRAINT name`.
    Constraint(ObjectName),
    /// An inference clause.
    Infer {
        elements: Vec<IndexColumn>,
        predicate: Option<Box<Expr>>,
    },
}

impl Target {
    /// The target of a parsed clause (an encoded one read back).
    pub fn of(target: Option<&ConflictTarget>) -> Result<Target, SqlError> {
        match target {
            None => Ok(Target::Any),
            Some(ConflictTarget::Columns(columns)) => Ok(Target::Infer {
                elements: (columns.iter())
                    .map(|c| crate::parse::index_column(&c.to_string()))
                    .collect::<Result<_, _>>()?,
                predicate: None,
            }),
            Some(ConflictTarget::OnConstraint(name)) => {
                let parts: Option<Vec<&str>> = (name.0.iter())
                    .map(|p| match p {
                        ObjectNamePart::Identifier(id) => Some(id.value.as_str()),
                        _ => None,
                    })
                    .collect();
                let Some([MARKER, rest @ ..]) = parts.as_deref() else {
                    return Ok(Target::Constraint(name.clone()));
                };
                let (elements, predicate) = match rest.iter().position(|p| *p == WHERE) {
                    Some(at) => (&rest[..at], rest.get(at + 1)),
                    None => (rest, None),
                };
                Ok(Target::Infer {
                    elements: (elements.iter())
                        .map(|e| crate::parse::index_column(e))
                        .collect::<Result<_, _>>()?,
                    predicate: (predicate.map(|p| crate::parse::expression(p)))
                        .transpose()?
                        .map(Box::new),
                })
            }
        }
    }
}

/// Rewrites each inference clause in `tokens` (one statement's, of
/// `text`) that sqlparser cannot read, `ON CONFLICT (elements) [WHERE
/// predicate] DO`, as `ON CONFLICT ON CONSTRAINT` the encoded name (the
/// module's comment). A clause of plain column names is left as it is;
/// so is one whose end is not found (the parse reports it).
pub fn encode(tokens: &mut Vec<TokenWithSpan>, text: &Text<'_>) {
    let mut at = 0;
    while at + 2 < tokens.len() {
        if !(is_keyword(&tokens[at], Keyword::ON)
            && is_keyword(&tokens[at + 1], Keyword::CONFLICT)
            && tokens[at + 2].token == Token::LParen)
        {
            at += 1;
            continue;
        }
        let open = at + 2;
        at += 1;
        let Some(close) = closing(tokens, open) else {
            continue;
        };
        let predicate = match tokens.get(close + 1) {
            Some(t) if is_keyword(t, Keyword::WHERE) => {
                let Some(end) = (close + 2..tokens.len()).find(|&i| {
                    is_keyword(&tokens[i], Keyword::DO) && depth(tokens, close + 1, i) == 0
                }) else {
                    continue;
                };
                Some(close + 2..end)
            }
            _ => None,
        };
        let elements = split_commas(tokens, open + 1, close);
        let plain = elements
            .iter()
            .all(|e| e.len() == 1 && matches!(tokens[e.start].token, Token::Word(_)));
        // (An empty element or WHERE is left for the parse to report.)
        let empty = elements.iter().any(|e| e.is_empty())
            || predicate.as_ref().is_some_and(|p| p.is_empty());
        if empty || (predicate.is_none() && plain) {
            continue;
        }
        let mut parts = vec![MARKER.to_string()];
        parts.extend(elements.iter().map(|e| text.written(&tokens[e.clone()])));
        let end = match &predicate {
            Some(p) => {
                parts.push(WHERE.to_string());
                parts.push(text.written(&tokens[p.clone()]));
                p.end
            }
            None => close + 1,
        };
        let mut name = vec![
            TokenWithSpan::wrap(Token::make_keyword("ON")),
            TokenWithSpan::wrap(Token::make_keyword("CONSTRAINT")),
        ];
        for (i, part) in parts.into_iter().enumerate() {
            if i > 0 {
                name.push(TokenWithSpan::wrap(Token::Period));
            }
            name.push(TokenWithSpan::wrap(Token::Word(Word {
                value: part,
                quote_style: Some('"'),
                keyword: Keyword::NoKeyword,
            })));
        }
        tokens.splice(open..end, name);
    }
}

/// `statement` (a stored statement's text, as folio prints a parsed
/// one) with each encoded inference clause written back as the clause
/// it encodes, `ON CONFLICT(elements) [WHERE predicate]`: what
/// `pg_get_ruledef` shows of a rule action, and what runs again when
/// that text is run.
pub fn written(statement: &str) -> String {
    let needle = format!("ON CONSTRAINT \"{MARKER}\"");
    let Some(at) = statement.find(&needle) else {
        return statement.to_string();
    };
    let mut rest = &statement[at + needle.len()..];
    let mut parts = Vec::new();
    while let Some(quoted) = rest.strip_prefix(".\"") {
        let Some((part, after)) = unquoted(quoted) else {
            return statement.to_string();
        };
        parts.push(part);
        rest = after;
    }
    let (elements, predicate) = match parts.iter().position(|p| p == WHERE) {
        Some(at) => (&parts[..at], parts.get(at + 1)),
        None => (&parts[..], None),
    };
    let mut out = format!("{}({})", statement[..at].trim_end(), elements.join(", "));
    if let Some(predicate) = predicate {
        out.push_str(&format!(" WHERE {predicate}"));
    }
    out.push_str(&written(rest));
    out
}

/// The quoted identifier `text` begins with (after its opening quote,
/// `""` for a quote) and the text after its closing quote.
fn unquoted(text: &str) -> Option<(String, &str)> {
    let mut value = String::new();
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        if c != '"' {
            value.push(c);
        } else if let Some((_, '"')) = chars.peek() {
            value.push('"');
            chars.next();
        } else {
            return Some((value, &text[i + 1..]));
        }
    }
    None
}

/// Whether `token` is the unquoted keyword `keyword`.
fn is_keyword(token: &TokenWithSpan, keyword: Keyword) -> bool {
    crate::parse::keyword(&token.token) == Some(keyword)
}

/// The parenthesis depth just after `tokens[from..=to]`.
fn depth(tokens: &[TokenWithSpan], from: usize, to: usize) -> i32 {
    (tokens[from..=to].iter())
        .map(|t| match t.token {
            Token::LParen => 1,
            Token::RParen => -1,
            _ => 0,
        })
        .sum()
}

/// The ranges of `tokens[start..end]` between its top-level commas.
fn split_commas(tokens: &[TokenWithSpan], start: usize, end: usize) -> Vec<std::ops::Range<usize>> {
    let mut ranges = Vec::new();
    let (mut from, mut level) = (start, 0i32);
    for (i, t) in tokens.iter().enumerate().take(end).skip(start) {
        match t.token {
            Token::LParen => level += 1,
            Token::RParen => level -= 1,
            Token::Comma if level == 0 => {
                ranges.push(from..i);
                from = i + 1;
            }
            _ => {}
        }
    }
    ranges.push(from..end);
    ranges
}

/// The unique indexes of `relation` an inference clause infers (PostgreSQL's
/// rule, the module's comment), by position; none is 42P10.
pub fn infer(
    relation: &Relation,
    elements: &[IndexColumn],
    predicate: Option<&Expr>,
) -> Result<Vec<usize>, SqlError> {
    let elements = (elements.iter())
        .map(|e| Element::of(relation, e))
        .collect::<Result<Vec<_>, _>>()?;
    // (PostgreSQL 15 does not check that it is boolean.)
    let filter = match predicate {
        Some(p) => {
            index_exprs::refuse_in_inference(p, true)?;
            scalar::bind(p, relation)?.conjuncts()
        }
        None => Vec::new(),
    };
    let mut arbiters = Vec::new();
    for (i, ri) in relation.indexes.iter().enumerate() {
        if ri.def.unique && infers(relation, ri, &elements, &filter)? {
            arbiters.push(i);
        }
    }
    if arbiters.is_empty() {
        return Err(SqlError::new(
            "42P10",
            "there is no unique or exclusion constraint matching the ON CONFLICT specification",
        ));
    }
    Ok(arbiters)
}

/// One element of an inference clause, bound.
struct Element {
    /// Its column or expression (`COLLATE` taken off).
    key: Scalar,
    collation: Option<String>,
    /// The type its operator class takes (`Some(None)`: one no folio key
    /// has), when it names one.
    opclass: Option<Option<u32>>,
}

impl Element {
    fn of(relation: &Relation, column: &IndexColumn) -> Result<Element, SqlError> {
        let options = &column.column.options;
        if options.asc.is_some() {
            return Err(SqlError::new(
                "42P10",
                "ASC/DESC is not allowed in ON CONFLICT clause",
            ));
        }
        if options.nulls_first.is_some() {
            return Err(SqlError::new(
                "42P10",
                "NULLS FIRST/LAST is not allowed in ON CONFLICT clause",
            ));
        }
        let mut expr = &column.column.expr;
        while let Expr::Nested(inner) = expr {
            expr = inner;
        }
        index_exprs::refuse_in_inference(expr, false)?;
        let (key, collation) = match expr {
            // An unknown collation is its error; PostgreSQL asks no
            // collatable type of an inference element.
            Expr::Collate { expr, collation } => {
                crate::collations::oid_of(collation)?;
                (scalar::bind(expr, relation)?, names::builtin(collation))
            }
            _ => (scalar::bind(expr, relation)?, None),
        };
        if matches!(expr, Expr::Identifier(id) if relation.resolve(&names::ident(id)).is_err()) {
            return Err(SqlError::new(
                "0A000",
                "whole row unique index inference specifications are not supported",
            ));
        }
        let opclass = match &column.operator_class {
            None => None,
            Some(name) => Some(opclass_input(&names::ident(name))?),
        };
        Ok(Element {
            key,
            collation,
            opclass,
        })
    }
}

/// The type (oid) a btree operator class takes, as PostgreSQL's: `None`
/// for one no folio key has (the pattern classes); 42704 for a name that
/// is none.
fn opclass_input(name: &str) -> Result<Option<u32>, SqlError> {
    Ok(Some(match name {
        "int2_ops" => 21,
        "int4_ops" => 23,
        "int8_ops" => 20,
        "text_ops" | "varchar_ops" => 25,
        "bpchar_ops" => 1042,
        "numeric_ops" => 1700,
        "float4_ops" => 700,
        "float8_ops" => 701,
        "bool_ops" => 16,
        "date_ops" => 1082,
        "timestamp_ops" => 1114,
        "timestamptz_ops" => 1184,
        "uuid_ops" => 2950,
        "bytea_ops" => 17,
        "text_pattern_ops" | "varchar_pattern_ops" | "bpchar_pattern_ops" => return Ok(None),
        _ => {
            return Err(SqlError::new(
                "42704",
                format!("operator class \"{name}\" does not exist for access method \"btree\""),
            ));
        }
    }))
}

/// One key of an index: its column or expression over the table's
/// columns, whether it is a plain column (`COLLATE "C"` on one is one
/// still, as PostgreSQL's column with a collation), its collation if
/// written, and the type (oid) its default operator class takes.
struct Key {
    key: Scalar,
    collation: Option<String>,
    input: u32,
}

/// The keys of `ri`.
fn keys(relation: &Relation, ri: &RelationIndex) -> Result<Vec<Key>, SqlError> {
    let compiled = Compiled::of_index(ri)?;
    let mut expressions = (compiled.iter()).flat_map(|c| c.keys.iter());
    let mut stored = ri.def.exprs.keys.iter();
    let mut keys = Vec::with_capacity(ri.def.columns.len());
    for &c in &ri.def.columns {
        let (key, collation, ty) = match c {
            IndexDef::EXPRESSION => {
                let (Some((key, ty)), Some(sql)) = (expressions.next(), stored.next()) else {
                    return Err(SqlError::new(
                        "XX000",
                        format!("index \"{}\" lacks an expression", ri.def.name),
                    ));
                };
                let collation = match crate::parse::expression(&sql.sql)? {
                    Expr::Collate { collation, .. } => names::builtin(&collation),
                    _ => None,
                };
                (key.clone(), collation, *ty)
            }
            c => (Scalar::Column(c as usize), None, relation.types[c as usize]),
        };
        // (A varchar key's default class is text's.)
        let input = match ty.oid() {
            1043 => 25,
            oid => oid,
        };
        keys.push(Key {
            key,
            collation,
            input,
        });
    }
    Ok(keys)
}

/// Whether the clause (`elements`, its WHERE's conjuncts `filter`)
/// infers the unique index `ri` (the module's rule).
fn infers(
    relation: &Relation,
    ri: &RelationIndex,
    elements: &[Element],
    filter: &[Scalar],
) -> Result<bool, SqlError> {
    let keys = keys(relation, ri)?;
    let column = |s: &Scalar| matches!(s, Scalar::Column(_));
    let mut indexed: Vec<&Scalar> = keys.iter().map(|k| &k.key).filter(|s| column(s)).collect();
    let mut inferred: Vec<&Scalar> = elements
        .iter()
        .map(|e| &e.key)
        .filter(|s| column(s))
        .collect();
    for set in [&mut indexed, &mut inferred] {
        set.sort_by_key(|s| match s {
            Scalar::Column(c) => *c,
            _ => unreachable!("only columns"),
        });
        set.dedup();
    }
    if indexed != inferred {
        return Ok(false);
    }
    for e in elements {
        let named = e.collation.is_some() || e.opclass.is_some();
        let matched = keys.iter().any(|k| {
            k.key == e.key
                && e.collation
                    .as_ref()
                    .is_none_or(|c| k.collation.as_ref() == Some(c))
                && e.opclass.is_none_or(|input| input == Some(k.input))
        });
        if (named || !column(&e.key)) && !matched {
            return Ok(false);
        }
    }
    let missing = (keys.iter())
        .filter(|k| !column(&k.key))
        .any(|k| !elements.iter().any(|e| e.key == k.key));
    if missing {
        return Ok(false);
    }
    let predicate = Compiled::of_index(ri)?.map_or(&[][..], |c| &c.predicate[..]);
    Ok(index_exprs::implied(predicate, filter))
}
