//! Collations (README "Collations"): the one owner of which collations
//! exist, which types take one, a column's collation, and the
//! derivation PostgreSQL's parser applies to a `COLLATE` clause.
//!
//! folio compares text by its bytes, with C.UTF-8 case mapping, so every
//! collation here ("default", "C", "POSIX", "ucs_basic") orders alike;
//! they stay distinct names (and oids, PostgreSQL's) because PostgreSQL's
//! parser treats them as different collations: two explicit `COLLATE`
//! clauses that name different ones conflict (42P21) although they
//! would sort the same. No locale-aware collation exists; naming one is
//! 42704.

use crate::error::SqlError;
use crate::names;
use crate::scalar::{Columns, Scalar};
use folio_row::{SqlType, Value};
use sqlparser::ast::{Expr, FunctionArg, FunctionArgExpr, FunctionArguments, ObjectName};
use sqlparser::tokenizer::{Token, TokenWithSpan};

/// The database's default collation (`pg_collation` oid 100).
pub const DEFAULT: u32 = 100;

/// Every collation: oid, name, `collprovider` (`d` default, `c` libc),
/// `collcollate`/`collctype` (`None`: the database's).
pub const ALL: [(u32, &str, &str, Option<&str>); 4] = [
    (DEFAULT, "default", "d", None),
    (950, "C", "c", Some("C")),
    (951, "POSIX", "c", Some("POSIX")),
    (12340, "ucs_basic", "c", Some("C")),
];

/// The oid of the collation `name` names (`name` or `pg_catalog.name`);
/// 42704 for any other, in PostgreSQL's words.
pub fn oid_of(name: &ObjectName) -> Result<u32, SqlError> {
    let bare = names::builtin(name);
    ALL.iter()
        .find(|c| bare.as_deref() == Some(c.1))
        .map(|c| c.0)
        .ok_or_else(|| {
            let shown = bare.unwrap_or_else(|| name.to_string());
            SqlError::new(
                "42704",
                format!("collation \"{shown}\" for encoding \"UTF8\" does not exist"),
            )
        })
}

/// The name of the collation of oid `oid`, if one has it.
pub fn name_of(oid: u32) -> Option<&'static str> {
    ALL.iter().find(|c| c.0 == oid).map(|c| c.1)
}

/// Whether values of `ty` have a collation (PostgreSQL's collatable
/// types: the string types, and arrays of them).
pub fn collatable(ty: SqlType) -> bool {
    match ty {
        SqlType::Text | SqlType::Varchar(_) | SqlType::Char(_) => true,
        SqlType::Array(element) => collatable(*element),
        _ => false,
    }
}

/// The collation a `COLLATE name` clause on a value of `ty` gives it:
/// 42804 when `ty` takes none, 42704 for an unknown name.
pub fn for_type(name: &ObjectName, ty: SqlType) -> Result<u32, SqlError> {
    if !collatable(ty) {
        let type_name = crate::catalog_functions::format_type(i64::from(ty.oid()), None);
        return Err(SqlError::new(
            "42804",
            format!("collations are not supported by type {type_name}"),
        ));
    }
    oid_of(name)
}

/// A column's `attcollation`: its `COLLATE` clause's, else its type's.
pub fn of_column(column: &folio_catalog::ColumnDef) -> u32 {
    (column.collation).unwrap_or_else(|| of_type(column.type_oid, column.typmod))
}

/// A type's `typcollation`: a domain's own (its `COLLATE` clause's),
/// else the default for a collatable type, none otherwise.
pub fn of_type(type_oid: u32, typmod: i32) -> u32 {
    let domain = crate::user_types::domain_of_oid(type_oid).and_then(|d| d.collation);
    match (domain, crate::user_types::of_oid(type_oid, typmod)) {
        (Some(c), _) => c,
        (None, Some(ty)) if collatable(ty) => DEFAULT,
        _ => 0,
    }
}

/// The explicit collation (`COLLATE` clause) an expression carries up to
/// its top, as PostgreSQL derives it: a `COLLATE` sets it, an operator or
/// function combines its arguments' (two different ones are 42P21), a
/// cast or an expression of non-collatable result (a comparison, an
/// aggregate's ORDER BY) stops it. Only explicit collations are derived
/// here: every column's implicit one orders as the default does, so no
/// implicit conflict is reported (README "Collations").
pub fn explicit(expr: &Expr) -> Result<Option<String>, SqlError> {
    Ok(match expr {
        Expr::Collate { expr, collation } => {
            explicit(expr)?;
            Some(names::builtin(collation).unwrap_or_else(|| collation.to_string()))
        }
        Expr::Nested(inner) => explicit(inner)?,
        Expr::BinaryOp { left, right, op } => {
            let both = combine(explicit(left)?, explicit(right)?)?;
            // Only `||` gives a string; a comparison's boolean (or any
            // other operator's result) has no collation.
            match op {
                sqlparser::ast::BinaryOperator::StringConcat => both,
                _ => None,
            }
        }
        Expr::Function(f) => {
            let mut found = None;
            if let FunctionArguments::List(list) = &f.args {
                for arg in &list.args {
                    let (FunctionArg::Unnamed(FunctionArgExpr::Expr(e))
                    | FunctionArg::Named {
                        arg: FunctionArgExpr::Expr(e),
                        ..
                    }) = arg
                    else {
                        continue;
                    };
                    found = combine(found, explicit(e)?)?;
                }
                // An aggregate's ORDER BY is derived on its own.
                for clause in &list.clauses {
                    if let sqlparser::ast::FunctionArgumentClause::OrderBy(order) = clause {
                        for o in order {
                            explicit(&o.expr)?;
                        }
                    }
                }
            }
            found
        }
        Expr::Cast { expr, .. } => {
            explicit(expr)?;
            None
        }
        _ => None,
    })
}

/// The explicit collation of `exprs` taken together, as the arguments
/// of one operator (42P21 when two differ): a hypothetical-set
/// aggregate's direct argument and its WITHIN GROUP key.
pub fn common(exprs: &[&Expr]) -> Result<Option<String>, SqlError> {
    let mut found = None;
    for e in exprs {
        found = combine(found, explicit(e)?)?;
    }
    Ok(found)
}

/// Two arguments' explicit collations combined: 42P21 when they differ.
fn combine(a: Option<String>, b: Option<String>) -> Result<Option<String>, SqlError> {
    match (a, b) {
        (Some(a), Some(b)) if a != b => Err(SqlError::new(
            "42P21",
            format!("collation mismatch between explicit collations \"{a}\" and \"{b}\""),
        )),
        (a, b) => Ok(a.or(b)),
    }
}

/// `pg_collation_for(x)` of the written argument `written`, bound as
/// `arg`: NULL for an untyped literal, 42804 for a value of a type without
/// collations, else the name of its collation (quoted as an identifier):
/// an explicit one, else the implicit one of the columns it is made of
/// (`None` when two differ, PostgreSQL's indeterminate collation, NULL),
/// else the default. A subquery's value is not followed (0A000): its
/// column's collation is not known here.
pub fn collation_for(
    written: &Expr,
    arg: &Scalar,
    columns: &(impl Columns + ?Sized),
) -> Result<Scalar, SqlError> {
    if matches!(arg, Scalar::Const(Value::Text(_)) | Scalar::Param(_)) {
        return Ok(Scalar::Const(Value::Null));
    }
    let ty = arg.ty_in(columns);
    if !collatable(ty) {
        let type_name = crate::catalog_functions::format_type(i64::from(ty.oid()), None);
        return Err(SqlError::new(
            "42804",
            format!("collations are not supported by type {type_name}"),
        ));
    }
    let collation = match explicit(written)? {
        Some(name) => Some(name),
        None => implicit(arg, columns)?.map(|c| name_of(c).unwrap_or("default").to_string()),
    };
    Ok(Scalar::Const(collation.map_or(Value::Null, |name| {
        Value::Text(names::written(&name).to_string())
    })))
}

/// The implicit collation of a bound collatable expression: its columns'
/// (`Ok(None)`: two differ), else the default.
fn implicit(e: &Scalar, columns: &(impl Columns + ?Sized)) -> Result<Option<u32>, SqlError> {
    let mut found = Vec::new();
    column_collations(e, columns, &mut found)?;
    found.sort_unstable();
    found.dedup();
    Ok(match found.as_slice() {
        [] => Some(DEFAULT),
        [one] => Some(*one),
        _ => None,
    })
}

/// The collations of the columns `e`'s collatable value is made of.
fn column_collations(
    e: &Scalar,
    columns: &(impl Columns + ?Sized),
    out: &mut Vec<u32>,
) -> Result<(), SqlError> {
    if !collatable(e.ty_in(columns)) {
        return Ok(());
    }
    match e {
        Scalar::Column(c) => out.push(columns.collation_at(*c).unwrap_or(DEFAULT)),
        Scalar::Typed(inner, _) | Scalar::Cast(inner, _) | Scalar::Domain(inner, _) => {
            column_collations(inner, columns, out)?
        }
        Scalar::Arith(_, a, b) => {
            column_collations(a, columns, out)?;
            column_collations(b, columns, out)?;
        }
        Scalar::Func(_, args) => {
            for a in args {
                column_collations(a, columns, out)?;
            }
        }
        Scalar::Case {
            branches,
            otherwise,
            ..
        } => {
            for (_, then) in branches {
                column_collations(then, columns, out)?;
            }
            if let Some(e) = otherwise {
                column_collations(e, columns, out)?;
            }
        }
        Scalar::Subquery(..) | Scalar::Outer(..) | Scalar::ArraySubquery(..) => {
            return Err(SqlError::unsupported(
                "the collation of a subquery's or an outer query's value",
            ));
        }
        _ => {}
    }
    Ok(())
}

/// `COLLATION FOR (x)` as the call `pg_collation_for(x)` it is
/// (sqlparser reads no such syntax).
pub fn collation_for_as_call(tokens: &mut Vec<TokenWithSpan>) {
    let word = |t: &Token, w: &str| matches!(t, Token::Word(x) if x.quote_style.is_none() && x.value.eq_ignore_ascii_case(w));
    let mut at = 0;
    while at + 2 < tokens.len() {
        if word(&tokens[at].token, "collation")
            && word(&tokens[at + 1].token, "for")
            && tokens[at + 2].token == Token::LParen
        {
            tokens[at].token = Token::make_word("pg_collation_for", None);
            tokens.remove(at + 1);
        }
        at += 1;
    }
}
