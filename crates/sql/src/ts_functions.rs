//! Text search in SQL: which operators and functions take `tsvector` and
//! `tsquery` ([`bind_operator`], [`bind_prefix`], [`bind_call`], the one
//! owner of their operand types), the type each gives ([`TsFunc::ty`])
//! and its value ([`TsFunc::eval`]). The values are folio-row's
//! (`tsvector.rs`, `tsquery.rs`); matching is `ts_match.rs`, ranking
//! `ts_rank.rs`, editing `ts_vector_ops.rs` / `ts_query_ops.rs`, parsing
//! documents and queries `ts_parse.rs`.
//!
//! | call | result |
//! |---|---|
//! | `v @@ q`, `q @@ v` (tsvector, tsquery); `t @@ q` (text: `to_tsvector(t)`); `t @@ t` (`to_tsvector(t) @@ plainto_tsquery(t)`) | bool |
//! | `v \|\| v` | tsvector |
//! | `q && q`, `q \|\| q`, `!! q`, `q <-> q`, `tsquery_phrase(q, q [, int])` | tsquery |
//! | `q @> q`, `q <@ q` | bool |
//! | `length(v)`, `numnode(q)` | int4 |
//! | `strip`, `setweight(v, "char" [, text[]])`, `ts_delete(v, text \| text[])`, `ts_filter(v, "char"[])`, `array_to_tsvector(text[])` | tsvector |
//! | `tsvector_to_array(v)` | text[] |
//! | `querytree(q)` | text |
//! | `ts_rewrite(q, target q, substitute q)` (`ts_rewrite.rs`) | tsquery |
//! | `ts_rank`, `ts_rank_cd` (`[weights float4[],] v, q [, normalization int4]`) | float4 |
//! | `to_tsvector([config,] text)` | tsvector |
//! | `ts_lexize(dictionary, text)` (`simple`, `english_stem`) | text[] |
//! | `to_tsquery`, `plainto_tsquery`, `phraseto_tsquery`, `websearch_to_tsquery` (`[config,] text`) | tsquery |
//!
//! A quoted literal beside a tsvector or tsquery is read as the type the
//! operator takes there; comparisons (`<`, `=`, ...) are the generic ones
//! over folio-row's order (PostgreSQL's `tsvector_cmp`, `tsquery_cmp`).

use crate::error::SqlError;
use crate::functions::{Func, no_operator};
use crate::scalar::{Columns, Scalar, fit_unknown};
use crate::ts_query_ops::Join;
use folio_row::{SqlType, TsQuery, TsVector, Value};
use sqlparser::ast::{BinaryOperator, UnaryOperator};

/// An operator or function of text search.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TsFunc {
    /// `tsvector @@ tsquery` (bound with the tsvector first).
    Match,
    /// `text @@ tsquery`.
    MatchText,
    /// `text @@ text`.
    MatchTexts,
    /// `tsvector || tsvector`.
    Concat,
    QueryAnd,
    QueryOr,
    QueryNot,
    /// `tsquery <-> tsquery`, `tsquery_phrase(a, b [, n])`.
    QueryPhrase,
    /// `@>` of tsqueries.
    QueryContains,
    /// `<@` of tsqueries.
    QueryContained,
    Length,
    NumNode,
    QueryTree,
    Strip,
    SetWeight,
    Delete,
    Filter,
    ToArray,
    FromArray,
    Rank,
    RankCd,
    ToTsVector,
    ToTsQuery,
    PlainToTsQuery,
    PhraseToTsQuery,
    WebsearchToTsQuery,
    /// `ts_lexize(dictionary, token)`.
    Lexize,
    /// `ts_rewrite(query, target, substitute)`.
    Rewrite,
}

const NAMES: [(&str, TsFunc); 19] = [
    ("ts_rewrite", TsFunc::Rewrite),
    ("numnode", TsFunc::NumNode),
    ("querytree", TsFunc::QueryTree),
    ("strip", TsFunc::Strip),
    ("setweight", TsFunc::SetWeight),
    ("ts_delete", TsFunc::Delete),
    ("ts_filter", TsFunc::Filter),
    ("tsvector_to_array", TsFunc::ToArray),
    ("array_to_tsvector", TsFunc::FromArray),
    ("tsquery_phrase", TsFunc::QueryPhrase),
    ("ts_rank", TsFunc::Rank),
    ("ts_rank_cd", TsFunc::RankCd),
    ("to_tsvector", TsFunc::ToTsVector),
    ("to_tsquery", TsFunc::ToTsQuery),
    ("plainto_tsquery", TsFunc::PlainToTsQuery),
    ("phraseto_tsquery", TsFunc::PhraseToTsQuery),
    ("websearch_to_tsquery", TsFunc::WebsearchToTsQuery),
    ("length", TsFunc::Length),
    ("ts_lexize", TsFunc::Lexize),
];

/// Whether `name` is one of the functions here (`functions::exists`).
pub fn is_name(name: &str) -> bool {
    name == "ts_headline" || (name != "length" && crate::names::lookup(&NAMES, name).is_some())
}

/// The type of an operand, `None` for a quoted literal, NULL or `$n`.
fn typed(s: &Scalar, columns: &(impl Columns + ?Sized)) -> Option<SqlType> {
    match s {
        Scalar::Const(Value::Text(_) | Value::Null) | Scalar::Param(_) => None,
        s => Some(s.ty_in(columns)),
    }
}

fn is_ts(t: Option<SqlType>) -> bool {
    matches!(t, Some(SqlType::TsVector | SqlType::TsQuery))
}

fn is_text(t: Option<SqlType>) -> bool {
    matches!(
        t,
        None | Some(SqlType::Text | SqlType::Varchar(_) | SqlType::Char(_))
    )
}

fn type_name(t: Option<SqlType>) -> String {
    t.map_or_else(|| "unknown".into(), crate::set_types::name)
}

fn call(f: TsFunc, args: Vec<Scalar>) -> Result<Scalar, SqlError> {
    Ok(Scalar::Func(Func::TextSearch(f), args))
}

/// `a op b` where a side is a tsvector or tsquery, or `@@` of texts: the
/// bound call; `None` for every other case.
pub fn bind_operator(
    op: &BinaryOperator,
    a: &Scalar,
    b: &Scalar,
    columns: &(impl Columns + ?Sized),
) -> Option<Result<Scalar, SqlError>> {
    let (ta, tb) = (typed(a, columns), typed(b, columns));
    let is_match = matches!(op, BinaryOperator::AtAt);
    if !(is_ts(ta) || is_ts(tb) || (is_match && is_text(ta) && is_text(tb))) {
        return None;
    }
    let symbol = match op {
        BinaryOperator::AtAt => "@@",
        BinaryOperator::StringConcat => "||",
        BinaryOperator::PGOverlap => "&&",
        BinaryOperator::LtDashGt => "<->",
        BinaryOperator::AtArrow => "@>",
        BinaryOperator::ArrowAt => "<@",
        _ => return None,
    };
    let (a, b) = (a.clone(), b.clone());
    let no_op = || {
        Err(no_operator(format!(
            "operator does not exist: {} {symbol} {}",
            type_name(ta),
            type_name(tb)
        )))
    };
    let vector = Some(SqlType::TsVector);
    let query = Some(SqlType::TsQuery);
    let fit = |s: Scalar, t: SqlType| fit_unknown(s, t);
    Some((|| match symbol {
        "@@" => match (ta, tb) {
            (t, q) if t == vector && (q == query || q.is_none()) => {
                call(TsFunc::Match, vec![a, fit(b, SqlType::TsQuery)?])
            }
            (q, t) if t == vector && (q == query || q.is_none()) => {
                call(TsFunc::Match, vec![b, fit(a, SqlType::TsQuery)?])
            }
            (q, t) if q == query && t.is_none() => {
                call(TsFunc::Match, vec![fit(b, SqlType::TsVector)?, a])
            }
            (t, q) if is_text(t) && q == query => {
                call(TsFunc::MatchText, vec![fit(a, SqlType::Text)?, b])
            }
            (t, u) if is_text(t) && is_text(u) => call(
                TsFunc::MatchTexts,
                vec![fit(a, SqlType::Text)?, fit(b, SqlType::Text)?],
            ),
            _ => no_op(),
        },
        "||" => match (ta, tb) {
            (x, y) if (x == vector || x.is_none()) && (y == vector || y.is_none()) => call(
                TsFunc::Concat,
                vec![fit(a, SqlType::TsVector)?, fit(b, SqlType::TsVector)?],
            ),
            (x, y) if (x == query || x.is_none()) && (y == query || y.is_none()) => call(
                TsFunc::QueryOr,
                vec![fit(a, SqlType::TsQuery)?, fit(b, SqlType::TsQuery)?],
            ),
            _ => no_op(),
        },
        _ => {
            let f = match symbol {
                "&&" => TsFunc::QueryAnd,
                "<->" => TsFunc::QueryPhrase,
                "@>" => TsFunc::QueryContains,
                _ => TsFunc::QueryContained,
            };
            if !(ta.is_none() || ta == query) || !(tb.is_none() || tb == query) {
                return no_op();
            }
            call(
                f,
                vec![fit(a, SqlType::TsQuery)?, fit(b, SqlType::TsQuery)?],
            )
        }
    })())
}

/// `!! q`; `None` for other operands.
pub fn bind_prefix(
    op: &UnaryOperator,
    a: &Scalar,
    columns: &(impl Columns + ?Sized),
) -> Option<Result<Scalar, SqlError>> {
    if !matches!(op, UnaryOperator::PGPrefixFactorial) {
        return None;
    }
    match typed(a, columns) {
        Some(SqlType::TsQuery) => Some(call(TsFunc::QueryNot, vec![a.clone()])),
        None => Some(
            fit_unknown(a.clone(), SqlType::TsQuery).and_then(|a| call(TsFunc::QueryNot, vec![a])),
        ),
        _ => None,
    }
}

/// One parameter of a function here.
#[derive(Clone, Copy)]
enum Param {
    Vector,
    Query,
    Text,
    TextArray,
    Int,
    Float4Array,
}

impl Param {
    fn ty(self) -> SqlType {
        match self {
            Param::Vector => SqlType::TsVector,
            Param::Query => SqlType::TsQuery,
            Param::Text => SqlType::Text,
            Param::TextArray => SqlType::Array(&SqlType::Text),
            Param::Int => SqlType::Int4,
            Param::Float4Array => SqlType::Array(&SqlType::Float4),
        }
    }

    fn fits(self, t: Option<SqlType>) -> bool {
        match (self, t) {
            (_, None) => true,
            (Param::Text, t) => is_text(t),
            (Param::Int, Some(t)) => matches!(t, SqlType::Int2 | SqlType::Int4),
            (Param::TextArray, Some(SqlType::Array(e))) => is_text(Some(*e)),
            (Param::Float4Array, Some(SqlType::Array(e))) => {
                matches!(e, SqlType::Float4 | SqlType::Float8 | SqlType::Numeric(_))
            }
            (p, Some(t)) => p.ty() == t,
        }
    }
}

/// The parameter lists of a function's forms.
fn forms(f: TsFunc) -> &'static [&'static [Param]] {
    use Param::*;
    match f {
        TsFunc::Length | TsFunc::Strip | TsFunc::ToArray => &[&[Vector]],
        TsFunc::NumNode | TsFunc::QueryTree => &[&[Query]],
        TsFunc::SetWeight => &[&[Vector, Text], &[Vector, Text, TextArray]],
        TsFunc::Delete => &[&[Vector, Text], &[Vector, TextArray]],
        TsFunc::Filter => &[&[Vector, TextArray]],
        TsFunc::FromArray => &[&[TextArray]],
        TsFunc::QueryPhrase => &[&[Query, Query], &[Query, Query, Int]],
        TsFunc::Rank | TsFunc::RankCd => &[
            &[Vector, Query],
            &[Vector, Query, Int],
            &[Float4Array, Vector, Query],
            &[Float4Array, Vector, Query, Int],
        ],
        TsFunc::ToTsVector
        | TsFunc::ToTsQuery
        | TsFunc::PlainToTsQuery
        | TsFunc::PhraseToTsQuery
        | TsFunc::WebsearchToTsQuery => &[&[Text], &[Text, Text]],
        TsFunc::Lexize => &[&[Text, Text]],
        TsFunc::Rewrite => &[&[Query, Query, Query]],
        _ => &[],
    }
}

/// A call of one of the functions here, its arguments fitted; `Err(args)`
/// for a call of another function (`length` of a string).
pub fn bind_call(
    name: &str,
    args: Vec<Scalar>,
    columns: &(impl Columns + ?Sized),
) -> Result<Result<Scalar, Vec<Scalar>>, SqlError> {
    if name == "ts_headline" {
        return Err(SqlError::unsupported("ts_headline"));
    }
    let Some(func) = crate::names::lookup(&NAMES, name) else {
        return Ok(Err(args));
    };
    let types: Vec<Option<SqlType>> = args.iter().map(|a| typed(a, columns)).collect();
    if func == TsFunc::Length && types.first().copied().flatten() != Some(SqlType::TsVector) {
        return Ok(Err(args));
    }
    // `ts_delete(v, 'x')`: a literal is the text form; `'{...}'`
    // written for it is still text, as PostgreSQL's choice of text.
    let form = forms(func).iter().find(|params| {
        params.len() == args.len() && params.iter().zip(&types).all(|(p, t)| p.fits(*t))
    });
    let Some(form) = form else {
        return Err(crate::functions::no_match(format!(
            "function {name}({}) does not exist",
            crate::scalar::argument_types(&args, columns)
        )));
    };
    let fitted = args
        .into_iter()
        .zip(form.iter())
        .map(|(arg, p)| fit_unknown(arg, p.ty()))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Ok(Scalar::Func(Func::TextSearch(func), fitted)))
}

fn vector(v: &Value) -> &TsVector {
    match v {
        Value::TsVector(t) => t,
        _ => unreachable!("bound as a tsvector"),
    }
}

fn query(v: &Value) -> &TsQuery {
    match v {
        Value::TsQuery(q) => q,
        _ => unreachable!("bound as a tsquery"),
    }
}

fn items(v: &Value) -> &[Value] {
    match v {
        Value::Array(a) => a.items(),
        _ => &[],
    }
}

fn text(v: &Value) -> String {
    crate::types::text_output(v).unwrap_or_default()
}

fn int(v: &Value) -> i64 {
    match v {
        Value::Int2(x) => i64::from(*x),
        Value::Int4(x) => i64::from(*x),
        Value::Int8(x) => *x,
        _ => 0,
    }
}

impl TsFunc {
    /// Its name, as EXPLAIN prints a call.
    pub fn name(self) -> Option<&'static str> {
        NAMES.iter().find(|(_, f)| *f == self).map(|(n, _)| *n)
    }

    /// The type of its value.
    pub fn ty(self) -> SqlType {
        match self {
            TsFunc::Match
            | TsFunc::MatchText
            | TsFunc::MatchTexts
            | TsFunc::QueryContains
            | TsFunc::QueryContained => SqlType::Bool,
            TsFunc::Concat
            | TsFunc::Strip
            | TsFunc::SetWeight
            | TsFunc::Delete
            | TsFunc::Filter
            | TsFunc::FromArray
            | TsFunc::ToTsVector => SqlType::TsVector,
            TsFunc::QueryAnd
            | TsFunc::QueryOr
            | TsFunc::QueryNot
            | TsFunc::QueryPhrase
            | TsFunc::ToTsQuery
            | TsFunc::PlainToTsQuery
            | TsFunc::PhraseToTsQuery
            | TsFunc::WebsearchToTsQuery
            | TsFunc::Rewrite => SqlType::TsQuery,
            TsFunc::Length | TsFunc::NumNode => SqlType::Int4,
            TsFunc::QueryTree => SqlType::Text,
            TsFunc::ToArray | TsFunc::Lexize => SqlType::Array(&SqlType::Text),
            TsFunc::Rank | TsFunc::RankCd => SqlType::Float4,
        }
    }

    /// Its value (strict: NULL for a NULL argument).
    pub fn eval(self, args: &[Value]) -> Result<Value, SqlError> {
        if args.iter().any(|v| matches!(v, Value::Null)) {
            return Ok(Value::Null);
        }
        use crate::ts_vector_ops as ops;
        Ok(match self {
            TsFunc::Match => {
                Value::Bool(crate::ts_match::matches(vector(&args[0]), query(&args[1])))
            }
            TsFunc::MatchText => {
                let v = crate::ts_parse::to_tsvector(None, &text(&args[0]))?;
                Value::Bool(crate::ts_match::matches(&v, query(&args[1])))
            }
            TsFunc::MatchTexts => {
                let v = crate::ts_parse::to_tsvector(None, &text(&args[0]))?;
                let q = crate::ts_parse::plain_query(None, &text(&args[1]), false)?;
                Value::Bool(crate::ts_match::matches(&v, &q))
            }
            TsFunc::Concat => {
                Value::TsVector(Box::new(ops::concat(vector(&args[0]), vector(&args[1]))?))
            }
            TsFunc::QueryAnd | TsFunc::QueryOr | TsFunc::QueryPhrase => {
                let how = match self {
                    TsFunc::QueryAnd => Join::And,
                    TsFunc::QueryOr => Join::Or,
                    _ => Join::Phrase(match args.get(2) {
                        Some(n) => crate::ts_query_ops::distance(int(n))?,
                        None => 1,
                    }),
                };
                Value::TsQuery(Box::new(
                    crate::ts_query_ops::join(query(&args[0]), query(&args[1]), how)
                        .within_depth()?,
                ))
            }
            TsFunc::QueryNot => Value::TsQuery(Box::new(
                crate::ts_query_ops::not(query(&args[0])).within_depth()?,
            )),
            TsFunc::QueryContains => Value::Bool(crate::ts_query_ops::contains(
                query(&args[0]),
                query(&args[1]),
            )),
            TsFunc::QueryContained => Value::Bool(crate::ts_query_ops::contains(
                query(&args[1]),
                query(&args[0]),
            )),
            TsFunc::Length => Value::Int4(vector(&args[0]).lexemes().len() as i32),
            TsFunc::NumNode => Value::Int4(query(&args[0]).count() as i32),
            TsFunc::Rewrite => Value::TsQuery(Box::new(
                crate::ts_rewrite::rewrite(query(&args[0]), query(&args[1]), query(&args[2]))
                    .within_depth()?,
            )),
            TsFunc::QueryTree => Value::Text(crate::ts_parse::query_tree(query(&args[0]))),
            TsFunc::Strip => Value::TsVector(Box::new(ops::strip(vector(&args[0])))),
            TsFunc::SetWeight => {
                let w = ops::weight_of(&text(&args[1]))?;
                let only = args.get(2).map(items);
                Value::TsVector(Box::new(ops::setweight(vector(&args[0]), w, only)))
            }
            TsFunc::Delete => {
                let words = match &args[1] {
                    Value::Array(a) => a.items().to_vec(),
                    one => vec![one.clone()],
                };
                Value::TsVector(Box::new(ops::delete(vector(&args[0]), &words)))
            }
            TsFunc::Filter => {
                Value::TsVector(Box::new(ops::filter(vector(&args[0]), items(&args[1]))?))
            }
            TsFunc::ToArray => ops::to_array(vector(&args[0])),
            TsFunc::FromArray => Value::TsVector(Box::new(ops::from_array(items(&args[0]))?)),
            TsFunc::Rank | TsFunc::RankCd => crate::ts_rank::eval(self == TsFunc::RankCd, args)?,
            TsFunc::Lexize => Value::array(
                crate::ts_dictionaries::Dictionary::named(&text(&args[0]))?
                    .lexize(&text(&args[1]))
                    .into_iter()
                    .map(Value::Text)
                    .collect(),
            ),
            TsFunc::ToTsVector => {
                let (config, body) = config_and_text(args);
                Value::TsVector(Box::new(crate::ts_parse::to_tsvector(
                    config.as_deref(),
                    &body,
                )?))
            }
            TsFunc::ToTsQuery
            | TsFunc::PlainToTsQuery
            | TsFunc::PhraseToTsQuery
            | TsFunc::WebsearchToTsQuery => {
                let (config, body) = config_and_text(args);
                let config = config.as_deref();
                Value::TsQuery(Box::new(match self {
                    TsFunc::ToTsQuery => crate::ts_parse::to_tsquery(config, &body)?,
                    TsFunc::PlainToTsQuery => crate::ts_parse::plain_query(config, &body, false)?,
                    TsFunc::PhraseToTsQuery => crate::ts_parse::plain_query(config, &body, true)?,
                    _ => crate::ts_parse::websearch_query(config, &body)?,
                }))
            }
        })
    }
}

/// A parsing function's configuration (none: the session's) and text.
fn config_and_text(args: &[Value]) -> (Option<String>, String) {
    match args {
        [config, body] => (Some(text(config)), text(body)),
        [body] => (None, text(body)),
        _ => (None, String::new()),
    }
}
