//! `(expr).*`: a row value spelled out as its fields, one result column
//! each, as PostgreSQL expands it in a select list: `SELECT (f(x)).*`
//! is `SELECT (f(x)).a AS a, (f(x)).b AS b` (the expression evaluated
//! once per field, as in PostgreSQL), `(t).*` is `t.*`, `(ROW(1, 2)).*`
//! is `f1, f2`. Anywhere else it is PostgreSQL's 0A000 "row expansion
//! via \"*\" is not supported here".
//!
//! sqlparser reads no `.*` after a parenthesis, so [`mark`] rewrites
//! the tokens `( expr ) . *` as the call `"$fields"((expr))`, and
//! [`expand`] replaces each such select item once the query's FROM is
//! resolved: which fields there are is decided by the expression's type
//! (a composite type's fields; a PL/pgSQL function's output parameters;
//! a row constructor's `f1`, ...), or, for a SQL function's call
//! expanded before planning, by the columns of the row its body gives
//! (`sql_functions::row_columns`).

use crate::error::SqlError;
use crate::from::Scope;
use crate::functions::Func;
use crate::names;
use crate::row_values::RowFunc;
use crate::scalar::{self, Columns, Scalar};
use folio_row::SqlType;
use sqlparser::ast::{
    AccessExpr, Expr, FunctionArg, FunctionArgExpr, FunctionArguments, ObjectName, ObjectNamePart,
    SelectItem, SelectItemQualifiedWildcardKind, WildcardAdditionalOptions,
};
use sqlparser::tokenizer::{Token, TokenWithSpan};

/// The marker call's name (not a name a client writes unquoted).
pub const MARK: &str = "$fields";

/// Rewrites each `( expr ) . *` whose parenthesis groups (follows no
/// name: is no call's argument list, where `f(x).*` stays sqlparser's
/// syntax error, as it is PostgreSQL's) as `"$fields"((expr))`.
pub fn mark(tokens: &mut Vec<TokenWithSpan>) {
    let mut at = 0;
    while at + 2 < tokens.len() {
        if tokens[at].token != Token::RParen
            || tokens[at + 1].token != Token::Period
            || tokens[at + 2].token != Token::Mul
        {
            at += 1;
            continue;
        }
        let Some(open) = crate::parse::opening(tokens, at) else {
            return;
        };
        let grouping = match open.checked_sub(1).map(|p| &tokens[p].token) {
            Some(t @ Token::Word(_)) => crate::parse::keyword(t)
                .is_some_and(|k| k != sqlparser::keywords::Keyword::NoKeyword),
            _ => true,
        };
        if !grouping {
            at += 1;
            continue;
        }
        let span = tokens[at].span;
        let token = |t: Token| TokenWithSpan::new(t, span);
        tokens.splice(at + 1..=at + 2, [token(Token::RParen)]);
        tokens.splice(
            open..open,
            [token(crate::parse::quoted_word(MARK)), token(Token::LParen)],
        );
        at += 3;
    }
}

/// The expression of a `"$fields"(expr)` marker, if `f` is one.
fn marked(f: &sqlparser::ast::Function) -> Option<&Expr> {
    if f.name.0.len() != 1 || names::function(&f.name) != MARK {
        return None;
    }
    match &f.args {
        FunctionArguments::List(list) => match list.args.as_slice() {
            [FunctionArg::Unnamed(FunctionArgExpr::Expr(e))] => Some(e),
            _ => None,
        },
        _ => None,
    }
}

/// Whether a call named `name` is the marker: where it is left to be
/// bound, it is out of place.
pub fn is_mark(name: &str) -> bool {
    name == MARK
}

/// PostgreSQL's error for `(expr).*` outside a select list.
pub fn not_here() -> SqlError {
    SqlError::new("0A000", "row expansion via \"*\" is not supported here")
}

/// Replaces each `(expr).*` item of `items` (a select list over `scope`)
/// by one item per field.
pub fn expand(items: &mut Vec<SelectItem>, scope: &Scope) -> Result<(), SqlError> {
    let marked_at = |item: &SelectItem| match item {
        SelectItem::UnnamedExpr(Expr::Function(f)) => marked(f).is_some(),
        _ => false,
    };
    if !items.iter().any(marked_at) {
        return Ok(());
    }
    let mut out = Vec::with_capacity(items.len());
    for item in items.drain(..) {
        let SelectItem::UnnamedExpr(Expr::Function(f)) = &item else {
            out.push(item);
            continue;
        };
        let Some(expr) = marked(f) else {
            out.push(item);
            continue;
        };
        out.extend(fields(expr, scope)?);
    }
    *items = out;
    Ok(())
}

/// The select items `(expr).*` stands for.
fn fields(expr: &Expr, scope: &Scope) -> Result<Vec<SelectItem>, SqlError> {
    let mut inner = expr;
    while let Expr::Nested(e) = inner {
        inner = e;
    }
    // A SQL function's expanded call: its body's row's columns.
    if let Some(columns) = crate::sql_functions::row_columns(inner) {
        return columns
            .into_iter()
            .map(|column| {
                let taken = crate::sql_functions::row_field(inner, &names::ident(&column))
                    .expect("a row of these columns")?;
                Ok(SelectItem::ExprWithAlias {
                    expr: taken,
                    alias: column,
                })
            })
            .collect();
    }
    // `(t.*).*`: `t.*`.
    if let Expr::QualifiedWildcard(name, _) = inner {
        return Ok(vec![SelectItem::QualifiedWildcard(
            SelectItemQualifiedWildcardKind::ObjectName(name.clone()),
            WildcardAdditionalOptions::default(),
        )]);
    }
    // `(t).*` of a FROM item: `t.*`.
    if let Expr::Identifier(id) = inner {
        let name = names::ident(id);
        if scope.resolve(&name).is_err() && scope.whole_row(&name).is_some() {
            return Ok(vec![SelectItem::QualifiedWildcard(
                SelectItemQualifiedWildcardKind::ObjectName(ObjectName(vec![
                    ObjectNamePart::Identifier(id.clone()),
                ])),
                WildcardAdditionalOptions::default(),
            )]);
        }
    }
    // A call of a user function (not yet expanded: a view's stored
    // text) gives its row's fields.
    let called = match inner {
        Expr::Function(f) => match crate::sql_functions::resolve_call(&f.name, &f.args, None) {
            crate::sql_functions::Named::One(def) => crate::record_functions::row_names(&def),
            _ => None,
        },
        _ => None,
    };
    let names: Vec<String> = match (called, written_type(inner)?) {
        (Some(names), _) => names,
        (None, Some(ty)) => type_fields(ty)?,
        (None, None) => {
            let bound = scalar::bind(inner, scope)?;
            let ty = bound.ty_in(scope);
            match (&bound, ty) {
                (_, SqlType::Composite(_)) => type_fields(ty)?,
                (Scalar::Func(Func::Row(RowFunc::Construct), args), _) => {
                    (1..=args.len()).map(|i| format!("f{i}")).collect()
                }
                (_, SqlType::Record) => {
                    return Err(SqlError::unsupported(format!(
                        "row expansion of {inner}, a record whose fields are not known here"
                    )));
                }
                (_, other) => type_fields(other)?,
            }
        }
    };
    Ok(names
        .into_iter()
        .map(|name| {
            let field = names::written(&name);
            SelectItem::ExprWithAlias {
                expr: Expr::CompoundFieldAccess {
                    root: Box::new(Expr::Nested(Box::new(inner.clone()))),
                    access_chain: vec![AccessExpr::Dot(Expr::Identifier(field.clone()))],
                },
                alias: field,
            }
        })
        .collect())
}

/// The type `e` is written as (`x::t`, `CAST(x AS t)`), when it is a
/// cast: so that a cast of a SQL function's expanded call (a subquery,
/// not bound here) has its type.
fn written_type(e: &Expr) -> Result<Option<SqlType>, SqlError> {
    match e {
        Expr::Cast { data_type, .. } => crate::types::column_type(data_type).map(Some),
        _ => Ok(None),
    }
}

/// The field names of composite type `ty`; another type is 42809.
fn type_fields(ty: SqlType) -> Result<Vec<String>, SqlError> {
    match ty {
        SqlType::Composite(def) => Ok(def.fields.iter().map(|(n, _)| n.clone()).collect()),
        other => Err(SqlError::new(
            "42809",
            format!("type {} is not composite", crate::explain::type_name(other)),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn marked_text(sql: &str) -> String {
        let mut tokens = crate::parse::plain_tokens(sql).unwrap();
        mark(&mut tokens);
        crate::parse::spelled(&tokens)
    }

    // Proves a grouping parenthesis before `.*` becomes the marker call
    // and a call's argument list does not.
    #[test]
    fn marks_grouped_rows_only() {
        assert_eq!(
            marked_text("select (f(x)).*, (t).* from t"),
            "select \"$fields\" ( ( f ( x ) ) ) , \"$fields\" ( ( t ) ) from t"
        );
        assert_eq!(
            marked_text("select f(x).* from t"),
            "select f ( x ) . * from t"
        );
    }
}
