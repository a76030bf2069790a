//! `VARIADIC array` as a call's last argument: the array's elements are
//! the arguments (`format('%s %s', VARIADIC array['a', 'b'])` is `a b`),
//! for `format` and the json functions that take one
//! (`JsonFunc::bind_variadic`), as PostgreSQL's; another function's
//! VARIADIC is 0A000.
//!
//! sqlparser 0.59 reads no VARIADIC: [`mark`] replaces the word in a
//! call's argument list with a marker argument, `$variadic:` then a
//! comma (`format(fmt, $variadic:, arr)`; not a token a client can
//! write), which [`bind`] takes back out when the call is bound. The
//! elements of a NULL array are none; a multi-dimensional array's are
//! taken in order (PostgreSQL's). What is not an array is 42804.

use crate::error::SqlError;
use crate::scalar::{Columns, Scalar};
use folio_row::{SqlType, Value};
use sqlparser::ast::{Expr, FunctionArg, FunctionArgExpr};
use sqlparser::tokenizer::{Token, TokenWithSpan};

/// The marker that stands before a VARIADIC argument.
const MARK: &str = "$variadic:";

/// The words that make a statement a routine's definition, whose
/// parameter lists say `VARIADIC name type` (left as they are).
const ROUTINE_WORDS: [&str; 4] = ["function", "procedure", "aggregate", "routine"];

/// Replaces each `VARIADIC` that starts an argument (after `(` or `,`)
/// by the marker and a comma, unless the statement defines or names a
/// routine.
pub fn mark(tokens: &mut Vec<TokenWithSpan>) {
    let word = |t: &Token, w: &str| matches!(t, Token::Word(x) if x.quote_style.is_none() && x.value.eq_ignore_ascii_case(w));
    if !tokens.iter().any(|t| word(&t.token, "variadic"))
        || tokens
            .iter()
            .any(|t| ROUTINE_WORDS.iter().any(|w| word(&t.token, w)))
    {
        return;
    }
    let mut at = 1;
    while at < tokens.len() {
        if word(&tokens[at].token, "variadic")
            && matches!(tokens[at - 1].token, Token::LParen | Token::Comma)
        {
            tokens[at].token = Token::Placeholder(MARK.to_string());
            tokens.insert(at + 1, TokenWithSpan::wrap(Token::Comma));
        }
        at += 1;
    }
}

/// Whether `arg` is the marker.
pub fn is_mark(arg: &FunctionArg) -> bool {
    matches!(
        arg,
        FunctionArg::Unnamed(FunctionArgExpr::Expr(Expr::Value(v)))
            if matches!(&v.value, sqlparser::ast::Value::Placeholder(p) if p == MARK)
    )
}

/// A call of `name` with a VARIADIC argument, bound (`None`: the call
/// has none). `bind` binds an argument; `missing` is the 42883 of a call
/// with arguments of the given kind.
pub fn bind(
    name: &str,
    args: &[FunctionArg],
    columns: &(impl Columns + ?Sized),
    mut bind: impl FnMut(&Expr) -> Result<Scalar, SqlError>,
    missing: impl FnOnce(&[Scalar]) -> SqlError,
) -> Result<Option<Scalar>, SqlError> {
    let Some(at) = args.iter().position(is_mark) else {
        return Ok(None);
    };
    // (PostgreSQL's grammar takes VARIADIC only on the last argument.)
    let Some([FunctionArg::Unnamed(FunctionArgExpr::Expr(last))]) = args.get(at + 1..) else {
        return Err(SqlError::syntax("syntax error at or near \"VARIADIC\""));
    };
    let array = bind(last)?;
    // (A NULL, typed or not, stands for no arguments.)
    let is_array = match &array {
        Scalar::Const(Value::Text(_)) | Scalar::Param(_) => false,
        Scalar::Const(Value::Null) => true,
        typed => matches!(typed.ty_in(columns), SqlType::Array(_)),
    };
    if !is_array {
        return Err(SqlError::new("42804", "VARIADIC argument must be an array"));
    }
    let mut before = args[..at]
        .iter()
        .map(|a| match a {
            FunctionArg::Unnamed(FunctionArgExpr::Expr(e)) => bind(e),
            other => Err(SqlError::unsupported(format!("the argument {other}"))),
        })
        .collect::<Result<Vec<_>, _>>()?;
    if let Some(call) =
        crate::multirange_functions::bind_variadic(name, &before, array.clone(), columns).or_else(
            || crate::json_functions::JsonFunc::bind_variadic(name, &before, &array, columns),
        )
    {
        return call.map(Some);
    }
    if name != "format" {
        return Err(SqlError::unsupported(format!(
            "VARIADIC arguments of {name}"
        )));
    }
    if before.len() != 1 {
        before.push(array);
        return Err(missing(&before));
    }
    before.push(array);
    Ok(Some(Scalar::Func(
        crate::functions::Func::FormatVariadic,
        before,
    )))
}

/// The arguments a VARIADIC array stands for: its elements in order (a
/// nested array's flattened), none for NULL.
pub fn spread(array: Value) -> Vec<Value> {
    fn flatten(v: Value, out: &mut Vec<Value>) {
        match v {
            Value::Array(items) => items.into_iter().for_each(|i| flatten(i, out)),
            other => out.push(other),
        }
    }
    let mut out = Vec::new();
    if let Value::Array(items) = array {
        items.into_iter().for_each(|i| flatten(i, &mut out));
    }
    out
}
