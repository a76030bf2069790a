//! Assignment to a subscript of an array column: `UPDATE t SET a[i] =
//! x`, `SET a[l:u] = array` with either bound optional (`a[:u]`,
//! `a[l:]`, `a[:]`), in UPDATE, ON CONFLICT DO UPDATE and MERGE's
//! UPDATE. The rule is PostgreSQL's for one-dimensional arrays
//! ([`assign`] decides it):
//!
//! - A NULL array is an empty one (`a[1] = x` of NULL is `{x}`).
//! - `a[i] = x` replaces the element, or extends the array to `i`, the
//!   elements between NULL. A NULL subscript is 22004; an array longer
//!   than 134217727 elements 54000.
//! - `a[l:u] = b` replaces elements `l` to `u` by the first `u - l + 1`
//!   of `b` (fewer is 2202E `source array too small`), extending the
//!   array as an element does. An omitted bound is the array's own; of
//!   an empty array both must be written (2202E). `u < l` is 2202E, but
//!   of an empty array the result is empty. A NULL `b` leaves the array
//!   as it is (an empty array for a NULL one).
//! - Several targets of one column apply in the order written, each to
//!   the result of the one before (`SET a[1] = 1, a[3] = 3`).
//!
//! folio's arrays have lower bound 1 and one dimension (README
//! "Arrays"), so an assignment whose result PostgreSQL gives another
//! lower bound (`a[0] = x`, `a[5] = x` of an empty array) is 0A000, as
//! is a target with several subscripts (`a[1][2]`), refused by
//! `array_subscripts::assigns_to_subscript`.
//!
//! sqlparser 0.59 reads no subscripted target: [`mark`] rewrites each
//! `a[...] = x` of a SET list to `a = "$array_assign"(marker, a,
//! bounds..., (x))`, the marker (`$subscript:e`, `$subscript:s:lu`, ...:
//! not a token a client can write) saying which subscript was written;
//! [`bind`] binds that call to [`ArrayFunc::Assign`].

use crate::array_functions::ArrayFunc;
use crate::error::SqlError;
use crate::functions::Func;
use crate::scalar::{Columns, Scalar, bind as bind_expr, fit_unknown, is_unknown};
use crate::types;
use folio_row::{SqlType, Value};
use sqlparser::ast::{Expr, FunctionArg, FunctionArgExpr, FunctionArguments};
use sqlparser::keywords::Keyword;
use sqlparser::tokenizer::{Token, TokenWithSpan, Whitespace, Word};

/// The subscript an assignment writes to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    /// `a[i]`.
    Element,
    /// `a[l:u]`, each bound written or not.
    Slice { lower: bool, upper: bool },
}

/// The name [`mark`] gives the call it writes.
const CALL: &str = "$array_assign";

/// The most elements an array holds (PostgreSQL's `MaxArraySize`).
const MAX_ELEMENTS: i64 = 134_217_727;

impl Target {
    /// The marker that stands for it.
    fn marker(self) -> String {
        match self {
            Target::Element => "$subscript:e".to_string(),
            Target::Slice { lower, upper } => format!(
                "$subscript:s:{}{}",
                if lower { "l" } else { "" },
                if upper { "u" } else { "" }
            ),
        }
    }

    /// The target a marker stands for.
    fn of_marker(marker: &str) -> Option<Target> {
        match marker.strip_prefix("$subscript:")? {
            "e" => Some(Target::Element),
            slice => {
                let bounds = slice.strip_prefix("s:")?;
                Some(Target::Slice {
                    lower: bounds.contains('l'),
                    upper: bounds.contains('u'),
                })
            }
        }
    }

    /// How many bounds it was written with.
    pub fn bounds(self) -> usize {
        match self {
            Target::Element => 1,
            Target::Slice { lower, upper } => usize::from(lower) + usize::from(upper),
        }
    }
}

/// One item of a SET list: its tokens (`start..end`, positions in the
/// statement) and, if it assigns to one subscript of a column, that.
struct Item {
    start: usize,
    end: usize,
    subscripted: Option<Subscripted>,
}

/// `column[bounds] = value`.
struct Subscripted {
    column: usize,
    target: Target,
    bounds: Vec<Vec<TokenWithSpan>>,
    value: Vec<TokenWithSpan>,
}

/// Rewrites every SET list's subscripted targets (see the module
/// comment). Targets with more than one subscript, or with a field, are
/// left for the syntax error (0A000 then).
pub fn mark(tokens: &mut Vec<TokenWithSpan>) {
    if !tokens.iter().any(|t| t.token == Token::LBracket) {
        return;
    }
    let mut from = 0;
    while let Some(set) = crate::parse::next_keyword(tokens, from, Keyword::SET) {
        from = set + 1;
        let items = set_list(tokens, set + 1);
        if items.iter().all(|i| i.subscripted.is_none()) {
            continue;
        }
        let (start, end) = (items[0].start, items[items.len() - 1].end);
        let mut written = Vec::new();
        let mut done = vec![false; items.len()];
        for (n, item) in items.iter().enumerate() {
            if done[n] {
                continue;
            }
            if !written.is_empty() {
                written.push(TokenWithSpan::wrap(Token::Comma));
            }
            let Some(first) = &item.subscripted else {
                written.extend_from_slice(&tokens[item.start..item.end]);
                continue;
            };
            let column = tokens[first.column].clone();
            let same = |t: &TokenWithSpan| same_name(&t.token, &column.token);
            // Every subscripted target of this column, nested in order.
            let mut value = vec![column.clone()];
            for (m, other) in items.iter().enumerate().skip(n) {
                let Some(s) = &other.subscripted else {
                    continue;
                };
                if !same(&tokens[s.column]) {
                    continue;
                }
                done[m] = true;
                value = call(&column, s, value);
            }
            written.push(TokenWithSpan::new(
                Token::Whitespace(Whitespace::Space),
                column.span,
            ));
            written.push(column.clone());
            written.push(TokenWithSpan::new(Token::Eq, column.span));
            written.extend(value);
        }
        tokens.splice(start..end, written.iter().cloned());
        from = start + written.len();
    }
}

/// Whether two tokens name the same column.
fn same_name(a: &Token, b: &Token) -> bool {
    match (a, b) {
        (Token::Word(a), Token::Word(b)) => match (a.quote_style, b.quote_style) {
            (None, None) => a.value.eq_ignore_ascii_case(&b.value),
            _ => crate::names::ident(&word_ident(a)) == crate::names::ident(&word_ident(b)),
        },
        _ => false,
    }
}

/// A word as an identifier.
fn word_ident(w: &Word) -> sqlparser::ast::Ident {
    match w.quote_style {
        Some(q) => sqlparser::ast::Ident::with_quote(q, w.value.clone()),
        None => sqlparser::ast::Ident::new(w.value.clone()),
    }
}

/// `"$array_assign"(marker, base, (bound)..., (value))`.
fn call(column: &TokenWithSpan, s: &Subscripted, base: Vec<TokenWithSpan>) -> Vec<TokenWithSpan> {
    let at = |t: Token| TokenWithSpan::new(t, column.span);
    let mut out = vec![
        at(Token::Word(Word {
            value: CALL.to_string(),
            quote_style: Some('"'),
            keyword: Keyword::NoKeyword,
        })),
        at(Token::LParen),
        at(Token::Placeholder(s.target.marker())),
        at(Token::Comma),
    ];
    out.extend(base);
    for part in s.bounds.iter().chain(std::iter::once(&s.value)) {
        out.push(at(Token::Comma));
        out.push(at(Token::LParen));
        out.extend(part.iter().cloned());
        out.push(at(Token::RParen));
    }
    out.push(at(Token::RParen));
    out
}

/// The items of the SET list starting at `from`, up to its end: a
/// WHERE, FROM, RETURNING or WHEN, a `)` or `;` closing what holds it,
/// or the statement's end.
fn set_list(tokens: &[TokenWithSpan], from: usize) -> Vec<Item> {
    let mut items = Vec::new();
    let mut depth = 0usize;
    let mut start = from;
    let mut at = from;
    let close = |items: &mut Vec<Item>, start: usize, end: usize| {
        items.push(Item {
            start,
            end,
            subscripted: subscripted(&tokens[start..end]).map(|mut s| {
                s.column += start;
                s
            }),
        });
    };
    while at < tokens.len() {
        let token = &tokens[at].token;
        match token {
            Token::LParen | Token::LBracket => depth += 1,
            Token::RParen | Token::RBracket if depth == 0 => break,
            Token::RParen | Token::RBracket => depth -= 1,
            Token::SemiColon | Token::EOF => break,
            Token::Comma if depth == 0 => {
                close(&mut items, start, at);
                start = at + 1;
            }
            t => match crate::parse::keyword(t) {
                Some(Keyword::CASE) => depth += 1,
                Some(Keyword::END) if depth > 0 => depth -= 1,
                Some(Keyword::WHERE | Keyword::FROM | Keyword::RETURNING | Keyword::WHEN)
                    if depth == 0 =>
                {
                    break;
                }
                _ => {}
            },
        }
        at += 1;
    }
    // The trailing white space is left after the list.
    let mut end = at;
    while end > start && matches!(tokens[end - 1].token, Token::Whitespace(_)) {
        end -= 1;
    }
    close(&mut items, start, end);
    items
}

/// `column[bounds] = value` (the tokens of one SET item), if it is one:
/// one subscript, then `=`.
fn subscripted(item: &[TokenWithSpan]) -> Option<Subscripted> {
    let solid: Vec<usize> = (0..item.len())
        .filter(|&i| !matches!(item[i].token, Token::Whitespace(_)))
        .collect();
    let column = *solid.first()?;
    if !matches!(item[column].token, Token::Word(_))
        || item[*solid.get(1)?].token != Token::LBracket
    {
        return None;
    }
    // The bracket's contents, split at its colon.
    let mut depth = 0usize;
    let mut parts: Vec<Vec<TokenWithSpan>> = vec![Vec::new()];
    let mut colon = false;
    let mut close = None;
    for (n, &i) in solid.iter().enumerate().skip(2) {
        match &item[i].token {
            Token::RBracket if depth == 0 => {
                close = Some(n);
                break;
            }
            Token::Colon if depth == 0 && !colon => {
                colon = true;
                parts.push(Vec::new());
                continue;
            }
            Token::LParen | Token::LBracket => depth += 1,
            Token::RParen | Token::RBracket => depth = depth.saturating_sub(1),
            _ => {}
        }
        let last = parts.last_mut().expect("a part");
        // The white space between solid tokens, kept.
        if let Some(&before) = solid.get(n - 1).filter(|_| !last.is_empty()) {
            last.extend(item[before + 1..i].iter().cloned());
        }
        last.push(item[i].clone());
    }
    let close = close?;
    let eq = *solid.get(close + 1)?;
    if item[eq].token != Token::Eq {
        return None;
    }
    let value: Vec<TokenWithSpan> = item[eq + 1..].to_vec();
    if value
        .iter()
        .all(|t| matches!(t.token, Token::Whitespace(_)))
    {
        return None;
    }
    let (target, bounds) = if colon {
        let upper = parts.pop().expect("two parts");
        let lower = parts.pop().expect("two parts");
        let target = Target::Slice {
            lower: !lower.is_empty(),
            upper: !upper.is_empty(),
        };
        (
            target,
            [lower, upper]
                .into_iter()
                .filter(|p| !p.is_empty())
                .collect(),
        )
    } else if parts[0].is_empty() {
        return None;
    } else {
        (Target::Element, parts)
    };
    Some(Subscripted {
        column,
        target,
        bounds,
        value,
    })
}

/// The call [`mark`] wrote, bound (`None`: `f` is another call).
pub fn bind(
    f: &sqlparser::ast::Function,
    columns: &(impl Columns + ?Sized),
) -> Result<Option<Scalar>, SqlError> {
    let is_call = matches!(f.name.0.as_slice(), [part] if part.as_ident().is_some_and(|i| i.value == CALL && i.quote_style.is_some()));
    let FunctionArguments::List(list) = &f.args else {
        return Ok(None);
    };
    let args: Vec<&Expr> = (list.args.iter())
        .filter_map(|a| match a {
            FunctionArg::Unnamed(FunctionArgExpr::Expr(e)) => Some(e),
            _ => None,
        })
        .collect();
    let target = match args.first() {
        Some(Expr::Value(v)) if is_call => match &v.value {
            sqlparser::ast::Value::Placeholder(p) => Target::of_marker(p),
            _ => None,
        },
        _ => None,
    };
    let Some(target) = target else {
        return Ok(None);
    };
    if args.len() != 3 + target.bounds() {
        return Ok(None);
    }
    let array = bind_expr(args[1], columns)?;
    let ty = array.ty_in(columns);
    let Some(element) = ty.element() else {
        return Err(SqlError::new(
            "42804",
            format!(
                "cannot subscript type {} because it does not support subscripting",
                ty.name()
            ),
        ));
    };
    let mut bound = vec![array];
    for b in &args[2..2 + target.bounds()] {
        bound.push(crate::array_subscripts::integer_subscript(
            bind_expr(b, columns)?,
            columns,
        )?);
    }
    let wanted = match target {
        Target::Element => element,
        Target::Slice { .. } => ty,
    };
    let value = bind_expr(args[args.len() - 1], columns)?;
    bound.push(fit(value, wanted, &column_name(args[1]), columns)?);
    Ok(Some(Scalar::Func(
        Func::Array(ArrayFunc::Assign(target)),
        bound,
    )))
}

/// The column an assignment's base names (the innermost call's).
fn column_name(base: &Expr) -> String {
    match base {
        Expr::Identifier(i) => crate::names::ident(i),
        Expr::Function(f) => match &f.args {
            FunctionArguments::List(l) => match l.args.get(1) {
                Some(FunctionArg::Unnamed(FunctionArgExpr::Expr(e))) => column_name(e),
                _ => String::new(),
            },
            _ => String::new(),
        },
        Expr::Nested(e) => column_name(e),
        e => e.to_string(),
    }
}

/// `value` as a `ty` in assignment, else 42804 ([`refused`]).
pub(crate) fn fit(
    value: Scalar,
    ty: SqlType,
    column: &str,
    columns: &(impl Columns + ?Sized),
) -> Result<Scalar, SqlError> {
    if value == Scalar::Const(Value::Null) {
        return Ok(value);
    }
    if is_unknown(&value) {
        return fit_unknown(value, ty);
    }
    Ok(match value.ty_in(columns) {
        t if t == ty => value,
        t if types::assignment_cast(t, ty) => match value {
            Scalar::Const(v) => Scalar::Const(types::cast(v, ty)?),
            s => Scalar::Cast(Box::new(s), ty),
        },
        t => return Err(refused(column, ty, t)),
    })
}

/// 42804: a value of type `from` assigned at a subscript of `column`,
/// whose elements (or slices) are `ty`s.
pub(crate) fn refused(column: &str, ty: SqlType, from: SqlType) -> SqlError {
    SqlError::new(
        "42804",
        format!(
            "subscripted assignment to \"{column}\" requires type {} but expression is of type {}",
            ty.name(),
            from.name()
        ),
    )
    .with_hint("You will need to rewrite or cast the expression.")
}

/// 0A000: the result would not start at 1.
fn other_lower_bound() -> SqlError {
    SqlError::unsupported("an array assignment whose result has a lower bound other than 1")
}

/// 22004: a NULL subscript.
fn null_subscript() -> SqlError {
    SqlError::new("22004", "array subscript in assignment must not be null")
}

/// 54000: more elements than an array holds.
fn too_large() -> SqlError {
    SqlError::new(
        "54000",
        format!("array size exceeds the maximum allowed ({MAX_ELEMENTS})"),
    )
}

/// The array `args` (the array, the bounds written, the value) makes:
/// PostgreSQL's rule (the module comment).
pub fn assign(target: Target, args: Vec<Value>) -> Result<Value, SqlError> {
    let mut args = args.into_iter();
    let mut items = match args.next() {
        Some(Value::Array(items)) => items.into_items(),
        _ => Vec::new(),
    };
    let mut bound = || -> Result<i64, SqlError> {
        match args.next() {
            Some(Value::Null) | None => Err(null_subscript()),
            Some(v) => crate::functions::int_arg(&v),
        }
    };
    let len = items.len() as i64;
    let (lower, upper) = match target {
        Target::Element => {
            let i = bound()?;
            (i, i)
        }
        Target::Slice { lower, upper } => {
            let l = if lower { Some(bound()?) } else { None };
            let u = if upper { Some(bound()?) } else { None };
            if len == 0 && (l.is_none() || u.is_none()) {
                return Err(SqlError::new(
                    "2202E",
                    "array slice subscript must provide both boundaries",
                )
                .with_detail(
                    "When assigning to a slice of an empty array value, slice boundaries must be fully specified.",
                ));
            }
            (l.unwrap_or(1), u.unwrap_or(len))
        }
    };
    let value = args.next().unwrap_or(Value::Null);
    let source = match (target, value) {
        (Target::Element, v) => vec![v],
        (Target::Slice { .. }, Value::Null) => return Ok(Value::array(items)),
        (Target::Slice { .. }, Value::Array(source)) => source.into_items(),
        (Target::Slice { .. }, v) => vec![v],
    };
    if upper < lower {
        if len == 0 {
            return Ok(Value::array(items));
        }
        return Err(SqlError::new(
            "2202E",
            "upper bound cannot be less than lower bound",
        ));
    }
    let count = upper - lower + 1;
    if (source.len() as i64) < count {
        return Err(SqlError::new("2202E", "source array too small"));
    }
    if lower < 1 {
        return Err(other_lower_bound());
    }
    if len == 0 && lower != 1 {
        return Err(other_lower_bound());
    }
    if upper > MAX_ELEMENTS {
        return Err(too_large());
    }
    if upper > len {
        items.resize(upper as usize, Value::Null);
    }
    for (slot, v) in items[lower as usize - 1..upper as usize]
        .iter_mut()
        .zip(source)
    {
        *slot = v;
    }
    Ok(Value::array(items))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ints(values: &[Option<i32>]) -> Value {
        Value::Array(
            values
                .iter()
                .map(|v| v.map_or(Value::Null, Value::Int4))
                .collect(),
        )
    }

    /// Elements replace, extend with NULLs, and start a NULL array;
    /// other lower bounds are refused.
    #[test]
    fn elements() {
        let set = |a: Value, i: i32, v: i32| {
            assign(Target::Element, vec![a, Value::Int4(i), Value::Int4(v)])
        };
        let a = ints(&[Some(1), Some(2)]);
        assert_eq!(set(a.clone(), 2, 9).unwrap(), ints(&[Some(1), Some(9)]));
        assert_eq!(
            set(a.clone(), 4, 9).unwrap(),
            ints(&[Some(1), Some(2), None, Some(9)])
        );
        assert_eq!(set(Value::Null, 1, 9).unwrap(), ints(&[Some(9)]));
        assert_eq!(set(a.clone(), 0, 9).unwrap_err().code, "0A000");
        assert_eq!(set(Value::Null, 2, 9).unwrap_err().code, "0A000");
        assert_eq!(set(a.clone(), i32::MAX, 9).unwrap_err().code, "54000");
        let null = assign(Target::Element, vec![a, Value::Null, Value::Int4(1)]);
        assert_eq!(null.unwrap_err().code, "22004");
    }

    /// Slices take the source's first elements, need enough of them, and
    /// leave the array as it is for a NULL source.
    #[test]
    fn slices() {
        let both = Target::Slice {
            lower: true,
            upper: true,
        };
        let a = ints(&[Some(1), Some(2), Some(3)]);
        let cut = |a: &Value, l: i32, u: i32, s: Value| {
            assign(both, vec![a.clone(), Value::Int4(l), Value::Int4(u), s])
        };
        let src = ints(&[Some(7), Some(8), Some(9)]);
        assert_eq!(
            cut(&a, 2, 3, src.clone()).unwrap(),
            ints(&[Some(1), Some(7), Some(8)])
        );
        assert_eq!(
            cut(&a, 5, 6, src.clone()).unwrap(),
            ints(&[Some(1), Some(2), Some(3), None, Some(7), Some(8)])
        );
        assert_eq!(cut(&a, 1, 4, ints(&[Some(1)])).unwrap_err().code, "2202E");
        assert_eq!(cut(&a, 3, 2, src.clone()).unwrap_err().code, "2202E");
        assert_eq!(cut(&Value::Null, 3, 2, src.clone()).unwrap(), ints(&[]));
        assert_eq!(cut(&a, 1, 2, Value::Null).unwrap(), a);
        assert_eq!(cut(&Value::Null, 1, 2, Value::Null).unwrap(), ints(&[]));
        let open = Target::Slice {
            lower: false,
            upper: true,
        };
        let e = assign(open, vec![Value::Null, Value::Int4(1), src]);
        assert_eq!(e.unwrap_err().code, "2202E");
    }

    /// A SET list's subscripted targets become calls, those of one
    /// column nested in order.
    #[test]
    fn marks() {
        let rewritten = |sql: &str| {
            let mut tokens = sqlparser::tokenizer::Tokenizer::new(
                &sqlparser::dialect::PostgreSqlDialect {},
                sql,
            )
            .tokenize_with_location()
            .expect("tokens");
            mark(&mut tokens);
            tokens
                .iter()
                .map(|t| t.token.to_string())
                .collect::<String>()
        };
        assert_eq!(
            rewritten("update t set a[1] = 2, b = 3, a[2:] = x where a[1] = 1"),
            "update t set a=\"$array_assign\"($subscript:s:l,\"$array_assign\"\
             ($subscript:e,a,(1),( 2)),(2),( x)), b = 3 where a[1] = 1"
        );
        assert_eq!(rewritten("update t set a = b[1]"), "update t set a = b[1]");
        assert_eq!(
            rewritten("update t set a[1][2] = 3"),
            "update t set a[1][2] = 3"
        );
    }
}
