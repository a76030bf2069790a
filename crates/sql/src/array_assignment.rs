//! Assignment to subscripts of an array column in a SET list: `UPDATE t
//! SET a[i] = x`, `SET b[i][j] = x`, `SET a[l:u] = array`, `SET
//! b[l1:u1][l2:u2] = array` with either bound of each optional (`a[:u]`,
//! `a[l:]`, `a[:]`), in UPDATE, ON CONFLICT DO UPDATE and MERGE's
//! UPDATE. Once one subscript is a slice every one is, a bare `[i]` then
//! meaning `[1:i]` (PostgreSQL's, as in reading: `array_subscripts.rs`).
//! The array the assignment makes is `array_set.rs`'s rule. Several
//! targets of one column apply in the order written, each to the result
//! of the one before (`SET a[1] = 1, a[3] = 3`).
//!
//! sqlparser 0.59 reads no subscripted target: [`mark`] rewrites each
//! `a[...]... = x` of a SET list to `a = "$array_assign"(marker, a,
//! bounds..., (x))`, the marker (`$subscript:2:s:3:1`: not a token a
//! client can write) saying which subscripts were written (the
//! `Subscripts` shape: how many, whether a slice, which bounds);
//! [`bind`] binds that call to [`ArrayFunc::Assign`]. A target with a
//! field (`a[1].f = x`) is left for sqlparser's syntax error, which
//! `array_subscripts::assigns_to_subscript` makes a 0A000.

use crate::array_functions::ArrayFunc;
use crate::array_subscripts::Subscripts;
use crate::error::SqlError;
use crate::functions::Func;
use crate::scalar::{Columns, Scalar, bind as bind_expr, fit_unknown, is_unknown};
use crate::types;
use folio_row::{SqlType, Value};
use sqlparser::ast::{Expr, FunctionArg, FunctionArgExpr, FunctionArguments};
use sqlparser::keywords::Keyword;
use sqlparser::tokenizer::{Token, TokenWithSpan, Whitespace, Word};

/// The name [`mark`] gives the call it writes.
const CALL: &str = "$array_assign";

/// The marker that stands for `shape`.
fn marker(shape: Subscripts) -> String {
    format!(
        "$subscript:{}:{}:{}:{}",
        shape.count,
        if shape.slice { "s" } else { "e" },
        shape.lower,
        shape.upper
    )
}

/// The shape a marker stands for.
fn of_marker(marker: &str) -> Option<Subscripts> {
    let mut parts = marker.strip_prefix("$subscript:")?.split(':');
    let count = parts.next()?.parse().ok()?;
    let slice = match parts.next()? {
        "s" => true,
        "e" => false,
        _ => return None,
    };
    let lower = parts.next()?.parse().ok()?;
    let upper = parts.next()?.parse().ok()?;
    Some(Subscripts {
        count,
        slice,
        lower,
        upper,
    })
}

/// One item of a SET list: its tokens (`start..end`, positions in the
/// statement) and, if it assigns to one subscript of a column, that.
struct Item {
    start: usize,
    end: usize,
    subscripted: Option<Subscripted>,
}

/// `column[bounds]... = value`: the subscripts' shape, and each bound
/// written in order (a bare `[i]` among slices as `1` and `i`).
struct Subscripted {
    column: usize,
    shape: Subscripts,
    bounds: Vec<Vec<TokenWithSpan>>,
    value: Vec<TokenWithSpan>,
}

/// Rewrites every SET list's subscripted targets (see the module
/// comment). Targets with a field are left for the syntax error (0A000
/// then).
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
        at(Token::Placeholder(marker(s.shape))),
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

/// `column[bounds]... = value` (the tokens of one SET item), if it is
/// one: subscripts, then `=`.
fn subscripted(item: &[TokenWithSpan]) -> Option<Subscripted> {
    let solid: Vec<usize> = (0..item.len())
        .filter(|&i| !matches!(item[i].token, Token::Whitespace(_)))
        .collect();
    let column = *solid.first()?;
    if !matches!(item[column].token, Token::Word(_)) {
        return None;
    }
    // Each bracket's contents: its bound or bounds, and whether a slice.
    let mut written: Vec<(Vec<Vec<TokenWithSpan>>, bool)> = Vec::new();
    let mut n = 1;
    while item[*solid.get(n)?].token == Token::LBracket {
        let (parts, colon, close) = bracket(item, &solid, n + 1)?;
        written.push((parts, colon));
        n = close + 1;
    }
    if written.is_empty() || written.len() > 8 || item[*solid.get(n)?].token != Token::Eq {
        return None;
    }
    let value: Vec<TokenWithSpan> = item[solid[n] + 1..].to_vec();
    if value
        .iter()
        .all(|t| matches!(t.token, Token::Whitespace(_)))
    {
        return None;
    }
    let slice = written.iter().any(|(_, colon)| *colon);
    let mut shape = Subscripts {
        slice,
        ..Subscripts::element(written.len() as u8)
    };
    let mut bounds = Vec::new();
    for (d, (mut parts, colon)) in written.into_iter().enumerate() {
        if !colon && parts[0].is_empty() {
            return None;
        }
        if !slice {
            bounds.push(parts.remove(0));
            continue;
        }
        let (lower, upper) = match colon {
            true => (parts.remove(0), parts.remove(0)),
            // `[i]` among slices is `[1:i]`.
            false => {
                let one = TokenWithSpan::new(Token::Number("1".into(), false), item[column].span);
                (vec![one], parts.remove(0))
            }
        };
        if !lower.is_empty() {
            shape.lower |= 1 << d;
            bounds.push(lower);
        }
        if !upper.is_empty() {
            shape.upper |= 1 << d;
            bounds.push(upper);
        }
    }
    Some(Subscripted {
        column,
        shape,
        bounds,
        value,
    })
}

/// The contents of a bracket whose first token is `solid[from]`, split
/// at its colon: the parts, whether there was a colon, and the place in
/// `solid` of its `]`.
fn bracket(
    item: &[TokenWithSpan],
    solid: &[usize],
    from: usize,
) -> Option<(Vec<Vec<TokenWithSpan>>, bool, usize)> {
    let mut depth = 0usize;
    let mut parts: Vec<Vec<TokenWithSpan>> = vec![Vec::new()];
    let mut colon = false;
    for (n, &i) in solid.iter().enumerate().skip(from) {
        match &item[i].token {
            Token::RBracket if depth == 0 => return Some((parts, colon, n)),
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
    None
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
    let shape = match args.first() {
        Some(Expr::Value(v)) if is_call => match &v.value {
            sqlparser::ast::Value::Placeholder(p) => of_marker(p),
            _ => None,
        },
        _ => None,
    };
    let Some(shape) = shape else {
        return Ok(None);
    };
    if args.len() != 3 + shape.args() {
        return Ok(None);
    }
    if usize::from(shape.count) > folio_row::MAX_DIMS {
        return Err(folio_row::too_many_dims(shape.count.into()).into());
    }
    let array = bind_expr(args[1], columns)?;
    let ty = array.ty_in(columns);
    if ty == SqlType::Jsonb {
        let value = bind_expr(args[args.len() - 1], columns)?;
        return crate::json_subscripts::bind_assign(
            array,
            &args[2..2 + shape.args()],
            shape.slice,
            value,
            &column_name(args[1]),
            columns,
        )
        .map(Some);
    }
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
    for b in &args[2..2 + shape.args()] {
        bound.push(crate::array_subscripts::integer_subscript(
            bind_expr(b, columns)?,
            columns,
        )?);
    }
    let wanted = match shape.slice {
        false => element,
        true => ty,
    };
    let value = bind_expr(args[args.len() - 1], columns)?;
    bound.push(fit(value, wanted, &column_name(args[1]), columns)?);
    Ok(Some(Scalar::Func(
        Func::Array(ArrayFunc::Assign(shape)),
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
        // A record (`ROW(9, 10)`) at a subscript of an array of a
        // composite type becomes one, field by field, as it does when it
        // is a whole column's value.
        SqlType::Record if matches!(ty, SqlType::Composite(_)) => Scalar::Cast(Box::new(value), ty),
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

#[cfg(test)]
mod tests {
    use super::*;

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
            "update t set a=\"$array_assign\"($subscript:1:s:1:0,\"$array_assign\"\
             ($subscript:1:e:0:0,a,(1),( 2)),(2),( x)), b = 3 where a[1] = 1"
        );
        assert_eq!(rewritten("update t set a = b[1]"), "update t set a = b[1]");
        // Several subscripts; a bare one among slices is `[1:i]`.
        assert_eq!(
            rewritten("update t set a[1][2] = 3, b[2][:3] = c"),
            "update t set a=\"$array_assign\"($subscript:2:e:0:0,a,(1),(2),( 3)), \
             b=\"$array_assign\"($subscript:2:s:1:3,b,(1),(2),(3),( c))"
        );
        assert_eq!(
            rewritten("update t set a[1].f = 3"),
            "update t set a[1].f = 3"
        );
    }
}
