//! Set-returning SQL functions called in a select list (`SELECT f(x)`,
//! `SELECT a, f(a) FROM t`): the calls run where PostgreSQL's ProjectSet
//! runs them, as the built-in ones do (`project_set.rs`).
//!
//! A SQL function's calls are expanded before the statement is planned
//! (`sql_functions.rs`), so the select list is moved first: when a
//! SELECT holds a call of a set-returning SQL function, the expansion
//! runs `project_set::rewrite` on it ([`move_to_from`]), which makes
//! each call (this one among the built-in ones) the read of a column of
//! a `ROWS FROM (call) AS "$srfL"("$1")` item. Such an item of one SQL
//! call is then expanded as the call in FROM would be
//! ([`expand_rows_from`], `record_functions::expand_factor`), one column:
//! the function's value, or its row whole for a function of several
//! columns (a composite type's, OUT parameters'), as PostgreSQL gives
//! it. A ROWS FROM of a SQL call beside other calls stays 0A000.

use crate::error::SqlError;
use folio_catalog::FunctionDef;
use sqlparser::ast::{
    Expr, Function, FunctionArg, FunctionArgExpr, OrderByKind, Query, SetExpr, TableAlias,
    TableFactor,
};

/// The derived table whose whole row is a call's value (not a name a
/// client can write unquoted).
const ROW: &str = "$set_row";

/// The set-returning SQL function `f` calls, if it calls one.
fn set_returning(f: &Function) -> Option<FunctionDef> {
    match crate::sql_functions::resolve_call(&f.name, &f.args, None) {
        crate::sql_functions::Named::One(d) => Some(d).filter(|d| d.returns_set && !d.plpgsql),
        _ => None,
    }
}

/// Whether `f` calls a set-returning SQL function (`project_set.rs`
/// moves such a call as a built-in set-returning one).
pub fn is_call(f: &Function) -> bool {
    f.over.is_none() && set_returning(f).is_some()
}

/// Moves the set-returning calls of `query`'s select list and ORDER BY
/// to FROM (`project_set::rewrite`) if one calls a set-returning SQL
/// function.
pub fn move_to_from(query: &mut Query) -> Result<(), SqlError> {
    let order_by = match &mut query.order_by {
        None => Vec::new(),
        Some(o) => match &o.kind {
            OrderByKind::Expressions(list) => list.clone(),
            OrderByKind::All(_) => return Ok(()),
        },
    };
    let SetExpr::Select(select) = query.body.as_mut() else {
        return Ok(());
    };
    let calls_sql = |e: &Expr| crate::aggregate::contains_call(e, is_call);
    let holds = (select.projection.iter()).any(|item| match item {
        sqlparser::ast::SelectItem::UnnamedExpr(e)
        | sqlparser::ast::SelectItem::ExprWithAlias { expr: e, .. } => calls_sql(e),
        _ => false,
    }) || order_by.iter().any(|o| calls_sql(&o.expr));
    if !holds {
        return Ok(());
    }
    crate::project_set::check_placement(select, &order_by)?;
    if let Some((rewritten, order_by)) = crate::project_set::rewrite(select, &order_by)? {
        **select = rewritten;
        if let Some(o) = &mut query.order_by {
            o.kind = OrderByKind::Expressions(order_by);
        }
    }
    Ok(())
}

/// FROM item `factor` expanded if it is `ROWS FROM (f(...))` of one call
/// of a set-returning SQL function (the item [`move_to_from`] made): the
/// call in FROM, its columns as one when it has several. The function
/// expanded, if any.
pub fn expand_rows_from(
    cx: &crate::context::Ctx<'_>,
    txn: &folio_db::Transaction,
    factor: &mut TableFactor,
    stack: &mut Vec<u64>,
) -> Result<Option<FunctionDef>, SqlError> {
    // (`project_set.rs` writes the item LATERAL after other items.)
    let (name, args, alias) = match &*factor {
        TableFactor::Table {
            name,
            args: Some(args),
            alias,
            with_ordinality: false,
            ..
        } => (name, &args.args, alias),
        TableFactor::Function {
            name, args, alias, ..
        } => (name, args, alias),
        _ => return Ok(None),
    };
    if crate::names::function(name) != crate::table_functions::ROWS_FROM {
        return Ok(None);
    }
    let [FunctionArg::Unnamed(FunctionArgExpr::Expr(Expr::Function(call)))] = args.as_slice()
    else {
        return Ok(None);
    };
    let Some(def) = set_returning(call) else {
        return Ok(None);
    };
    let sqlparser::ast::FunctionArguments::List(list) = &call.args else {
        return Ok(None);
    };
    if crate::record_functions::returns_record(&def) {
        // No columns of its own: the row whole, as it comes.
        let body = record_rows(cx, txn, &def, list, stack)?;
        *factor = whole_row(body, alias.clone())?;
        return Ok(Some(def));
    }
    let whole = crate::record_functions::row_width(&def).is_some();
    let call_alias = match whole {
        true => TableAlias {
            name: sqlparser::ast::Ident::with_quote('"', ROW),
            columns: Vec::new(),
        },
        false => alias.clone().unwrap_or_else(|| TableAlias {
            name: sqlparser::ast::Ident::with_quote('"', ROW),
            columns: Vec::new(),
        }),
    };
    let mut call_factor = crate::parse::query("SELECT * FROM f()")
        .ok()
        .and_then(|q| match *q.body {
            SetExpr::Select(s) => s.from.into_iter().next().map(|t| t.relation),
            _ => None,
        })
        .ok_or_else(|| SqlError::new("XX000", "cannot build a call"))?;
    if let TableFactor::Table {
        name: n,
        args: a,
        alias: al,
        ..
    } = &mut call_factor
    {
        *n = call.name.clone();
        *a = Some(sqlparser::ast::TableFunctionArgs {
            args: list.args.clone(),
            settings: None,
        });
        *al = Some(call_alias);
    }
    let Some(expanded) = crate::record_functions::expand_factor(cx, txn, &mut call_factor, stack)?
    else {
        return Ok(None);
    };
    if !whole {
        *factor = call_factor;
        return Ok(Some(expanded));
    }
    // The row whole: `LATERAL (SELECT "$set_row" FROM (call) AS
    // "$set_row") AS alias`; the call's query reads the caller's columns
    // from there (`subquery.rs` takes an argument's mark one query deep).
    if let TableFactor::Derived { lateral, .. } = &mut call_factor {
        *lateral = false;
    }
    let mut wrapper = crate::parse::query(&format!("SELECT \"{ROW}\" FROM (SELECT 1) AS x"))?;
    if let SetExpr::Select(select) = wrapper.body.as_mut() {
        select.from[0].relation = call_factor;
    }
    *factor = TableFactor::Derived {
        lateral: true,
        subquery: Box::new(wrapper),
        alias: alias.clone(),
    };
    Ok(Some(expanded))
}

/// The rows of a call of `def`, a SQL function returning `SETOF record`,
/// with arguments `list`: its body over them.
fn record_rows(
    cx: &crate::context::Ctx<'_>,
    txn: &folio_db::Transaction,
    def: &FunctionDef,
    list: &sqlparser::ast::FunctionArgumentList,
    stack: &mut Vec<u64>,
) -> Result<Query, SqlError> {
    use crate::sql_functions as sql;
    let args = sql::call_args(&sqlparser::ast::FunctionArguments::List(list.clone()), def)?;
    let args = sql::typed_args(def, &args)?;
    sql::enter(def, stack)?;
    let body = sql::body_rows(cx, txn, def, &args, stack);
    stack.pop();
    body
}

/// `LATERAL (SELECT "$set_row" FROM (body) AS "$set_row") AS alias`: each
/// row of `body` whole, as one column.
fn whole_row(body: Query, alias: Option<TableAlias>) -> Result<TableFactor, SqlError> {
    let mut wrapper =
        crate::parse::query(&format!("SELECT \"{ROW}\" FROM (SELECT 1) AS \"{ROW}\""))?;
    if let SetExpr::Select(select) = wrapper.body.as_mut()
        && let TableFactor::Derived { subquery, .. } = &mut select.from[0].relation
    {
        **subquery = body;
    }
    Ok(TableFactor::Derived {
        lateral: true,
        subquery: Box::new(wrapper),
        alias,
    })
}
