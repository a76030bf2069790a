//! `ROWS FROM (f(...), g(...)) [WITH ORDINALITY]` when a call among them
//! is of a SQL function (README "Functions in FROM and LATERAL"). A SQL
//! function's call is expanded into the query it stands for
//! (`sql_functions.rs`), so it cannot run side by side with the others
//! in one function scan (`table_functions.rs` `FunctionScan::also`).
//! Instead the item becomes a query that numbers each call's rows and
//! joins them on their numbers, as PostgreSQL's ROWS FROM lines them up:
//!
//! ```sql
//! (SELECT "$r1"."1" AS a, ..., "$r2"."1" AS c, ...
//!         [, COALESCE("$r1"."$o", "$r2"."$o") AS ordinality]
//!  FROM (SELECT *, row_number() OVER () FROM f(...)) AS "$r1"("1", ..., "$o")
//!  FULL JOIN (SELECT *, row_number() OVER () FROM g(...)) AS "$r2"(...)
//!    ON "$r2"."$o" = COALESCE("$r1"."$o")
//!  ORDER BY COALESCE("$r1"."$o", "$r2"."$o")) AS alias
//! ```
//!
//! so there are as many rows as the longest call gives, the shorter
//! calls' columns NULL past their end. Each call's columns (names and
//! count) are its own in FROM, found by planning `SELECT * FROM call`; a
//! call's column definition list (`f() AS (a int, ...)`, read as
//! `"$as"(f(), 'a int, ...')` by `table_functions::column_list`) is its
//! alias's. A call whose arguments read the items before it (LATERAL) is
//! 0A000 here.

use crate::error::SqlError;
use crate::sql_functions as sql;
use crate::table_functions::{ROWS_FROM, column_list};
use folio_catalog::FunctionDef;
use sqlparser::ast::{Expr, FunctionArg, FunctionArgExpr, FunctionArguments, TableFactor};

/// FROM item `factor` made the join of its calls' rows if it is a ROWS
/// FROM with a call of a SQL function (not the item a select list's
/// call was moved to, `sql_select_sets.rs`); the SQL functions it calls.
pub fn expand(
    cx: &crate::context::Ctx<'_>,
    txn: &folio_db::Transaction,
    factor: &mut TableFactor,
) -> Result<Vec<FunctionDef>, SqlError> {
    let (name, args, alias, ordinality) = match &*factor {
        TableFactor::Table {
            name,
            args: Some(args),
            alias,
            with_ordinality,
            ..
        } => (name, &args.args, alias, *with_ordinality),
        TableFactor::Function {
            name, args, alias, ..
        } => (name, args, alias, false),
        _ => return Ok(Vec::new()),
    };
    if crate::names::function(name) != ROWS_FROM
        || alias
            .as_ref()
            .is_some_and(|a| a.name.value.starts_with("$srf"))
    {
        return Ok(Vec::new());
    }
    // Each call as a FROM item's text, and the SQL functions called.
    let mut items = Vec::with_capacity(args.len());
    let mut used = Vec::new();
    for arg in args {
        let FunctionArg::Unnamed(FunctionArgExpr::Expr(expr)) = arg else {
            return Ok(Vec::new());
        };
        let (call, listed) = match column_list(expr)? {
            Some((call, mut list)) => {
                list.name = sqlparser::ast::Ident::with_quote('"', "$f");
                (call, Some(list))
            }
            None => match expr {
                Expr::Function(call) => (call, None),
                _ => return Ok(Vec::new()),
            },
        };
        if let sql::Named::One(def) = sql::resolve_call(&call.name, &call.args, Some((cx, txn)))
            && !def.plpgsql
        {
            used.push(def);
        }
        let FunctionArguments::List(list) = &call.args else {
            return Ok(Vec::new());
        };
        if list.args.iter().any(|a| match a {
            FunctionArg::Unnamed(FunctionArgExpr::Expr(e)) => sql::reads_columns(e),
            _ => false,
        }) {
            if !used.is_empty() {
                return Err(SqlError::unsupported(format!(
                    "ROWS FROM of SQL functions' calls with arguments that read columns ({call})"
                )));
            }
            return Ok(Vec::new());
        }
        items.push(match listed {
            Some(list) => format!("{call} AS {list}"),
            None => call.to_string(),
        });
    }
    if used.is_empty() {
        return Ok(Vec::new());
    }
    let mut select = Vec::new();
    let mut from = String::new();
    let mut numbers: Vec<String> = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let names = columns_of(cx, txn, item)?;
        let r = format!("\"$r{}\"", i + 1);
        for (k, name) in names.iter().enumerate() {
            select.push(format!("{r}.\"{}\" AS {}", k + 1, quote(name)));
        }
        let listed: Vec<String> = (1..=names.len())
            .map(|k| format!("\"{k}\""))
            .chain(["\"$o\"".to_string()])
            .collect();
        let numbered = format!(
            "(SELECT *, row_number() OVER () FROM {item}) AS {r}({})",
            listed.join(", ")
        );
        match i {
            0 => from = numbered,
            _ => {
                from = format!(
                    "{from} FULL JOIN {numbered} ON {r}.\"$o\" = COALESCE({})",
                    numbers.join(", ")
                )
            }
        }
        numbers.push(format!("{r}.\"$o\""));
    }
    let number = format!("COALESCE({})", numbers.join(", "));
    if ordinality {
        select.push(format!("{number} AS ordinality"));
    }
    let text = format!("SELECT {} FROM {from} ORDER BY {number}", select.join(", "));
    let query = crate::parse::query(&text)?;
    let alias = alias.clone().or_else(|| {
        let first = args.first().and_then(|a| match a {
            FunctionArg::Unnamed(FunctionArgExpr::Expr(Expr::Function(f))) => {
                Some(crate::names::function(&f.name))
            }
            _ => None,
        });
        Some(sqlparser::ast::TableAlias {
            name: sqlparser::ast::Ident::with_quote('"', first.unwrap_or_default()),
            columns: Vec::new(),
        })
    });
    *factor = TableFactor::Derived {
        lateral: false,
        subquery: Box::new(query),
        alias,
    };
    Ok(used)
}

/// The names of the columns FROM item `item` (a call's text) has.
fn columns_of(
    cx: &crate::context::Ctx<'_>,
    txn: &folio_db::Transaction,
    item: &str,
) -> Result<Vec<String>, SqlError> {
    let mut query = crate::parse::query(&format!("SELECT * FROM {item}"))?;
    sql::expand_query(cx, txn, &mut query)?;
    let planned = crate::query::plan_query(cx, txn, &query)?;
    Ok(planned.columns.into_iter().map(|c| c.name).collect())
}

/// `name` as a quoted identifier.
fn quote(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}
