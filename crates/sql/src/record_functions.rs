//! User functions returning `record` (README "Functions in FROM and
//! LATERAL"): `RETURNS record` and `RETURNS SETOF record`, of either
//! language, whose call in FROM carries a column definition list (`f()
//! AS x(a int, b text)`) giving its columns.
//!
//! - [`listed_columns`] reads the list through `FunctionScan::define`,
//!   the one owner of the list's rules (required, only allowed,
//!   redundant: 42601; a name twice: 42701), before the call runs.
//! - What a body returns is checked against the list by one rule per
//!   language, as PostgreSQL's: a PL/pgSQL body's rows must have the
//!   list's types exactly ([`check_row`], 42804 at run time, the rule of
//!   PostgreSQL's `convert_tuples_by_position`); a SQL body's final
//!   query's columns must be the list's types or assign to them, and are
//!   cast ([`check_sql_columns`], 42P13 while planning, the rule of
//!   `check_sql_fn_retval`).

use crate::error::SqlError;
use folio_catalog::FunctionDef;
use folio_row::{SqlType, Value};
use sqlparser::ast::TableFactor;

/// Whether `def` returns `record` or `SETOF record` (no columns of its
/// own: each call's column definition list gives them).
pub fn returns_record(def: &FunctionDef) -> bool {
    def.columns.is_empty() && def.result.0 == SqlType::Record.oid()
}

/// The columns of FROM item `factor`, a call of `def`, when `def`
/// returns `record`: its column definition list's, with `define`'s errors
/// (the list is required), read before the call runs, as its rows take
/// their types from it.
pub fn listed_columns(
    def: &FunctionDef,
    factor: &TableFactor,
) -> Result<Option<Vec<(String, SqlType)>>, SqlError> {
    if !returns_record(def) {
        return Ok(None);
    }
    let (name, alias) = match factor {
        TableFactor::Table { name, alias, .. } | TableFactor::Function { name, alias, .. } => {
            (name, alias)
        }
        _ => return Ok(None),
    };
    let ordinality = matches!(
        factor,
        TableFactor::Table {
            with_ordinality: true,
            ..
        }
    );
    let scan = crate::table_functions::FunctionScan {
        func: crate::table_functions::TableFunc::Procedural,
        args: Vec::new(),
        ordinality,
        procedural: Some(Box::new(crate::plpgsql::set_returning::record_shape(def))),
        also: Vec::new(),
        record: Vec::new(),
        packed: false,
    };
    let call = sqlparser::ast::Spanned::span(name).start;
    Ok(Some(scan.define(alias.as_ref(), Some(call))?.record))
}

/// One column of what a PL/pgSQL body returned: a query's column (its
/// type's oid) or a row's value.
pub enum Returned<'a> {
    Type(u32),
    Value(&'a Value),
}

/// PL/pgSQL's rule: a returned row must have `expected`'s width and each
/// column its type, else 42804 with `message` (which says what returned
/// it) and PostgreSQL's DETAIL. A value is of a type by
/// [`Value::matches`]: a NULL fits any, a string any string type, a
/// number its type whatever the precision (folio's values carry no
/// more), where PostgreSQL also compares the declared types of those.
pub fn check_row(
    message: &str,
    returned: &[Returned<'_>],
    expected: &[SqlType],
) -> Result<(), SqlError> {
    if returned.len() != expected.len() {
        return Err(SqlError::new("42804", message).with_detail(format!(
            "Number of returned columns ({}) does not match expected column count ({}).",
            returned.len(),
            expected.len()
        )));
    }
    for (i, (column, ty)) in returned.iter().zip(expected).enumerate() {
        let (fits, name) = match column {
            Returned::Type(oid) => (
                *oid == ty.oid(),
                crate::catalog_functions::format_type(i64::from(*oid), None),
            ),
            Returned::Value(v) => (v.matches(*ty), v.type_name().to_string()),
        };
        if !fits {
            return Err(SqlError::new("42804", message).with_detail(format!(
                "Returned type {name} does not match expected type {} in column {}.",
                ty.name(),
                i + 1
            )));
        }
    }
    Ok(())
}

/// The row a PL/pgSQL function returning `record` (not SETOF) returned,
/// checked against its call's list `expected` ([`check_row`]): a NULL is
/// a row of NULLs, as PostgreSQL's.
pub fn returned_record(value: Value, expected: &[SqlType]) -> Result<Vec<Value>, SqlError> {
    let fields = match value {
        Value::Null => return Ok(vec![Value::Null; expected.len()]),
        Value::Record(fields) => fields,
        _ => return Err(crate::plpgsql::set_returning::non_composite()),
    };
    let returned: Vec<Returned<'_>> = fields.iter().map(Returned::Value).collect();
    check_row(
        "returned record type does not match expected record type",
        &returned,
        expected,
    )?;
    Ok(fields)
}

/// SQL's rule: the final query's column types `found` against the list's
/// `expected`: the same width, each the same type or one that assigns to
/// it (the call casts it), else PostgreSQL's 42P13 and its DETAIL.
pub fn check_sql_columns(found: &[SqlType], expected: &[SqlType]) -> Result<(), SqlError> {
    check_declared_columns(found, expected, SqlType::Record.oid())
}

/// [`check_sql_columns`] of a function declared to return type oid
/// `declared` (its messages name it).
pub fn check_declared_columns(
    found: &[SqlType],
    expected: &[SqlType],
    declared: u32,
) -> Result<(), SqlError> {
    let mismatch = |detail: String| {
        SqlError::new(
            "42P13",
            format!(
                "return type mismatch in function declared to return {}",
                crate::catalog_functions::format_type(i64::from(declared), None)
            ),
        )
        .with_detail(detail)
    };
    if found.len() > expected.len() {
        return Err(mismatch("Final statement returns too many columns.".into()));
    }
    if found.len() < expected.len() {
        return Err(mismatch("Final statement returns too few columns.".into()));
    }
    for (i, (from, to)) in found.iter().zip(expected).enumerate() {
        if from.oid() != to.oid() && !crate::types::assignment_cast(*from, *to) {
            let name =
                |t: &SqlType| crate::catalog_functions::format_type(i64::from(t.oid()), None);
            return Err(mismatch(format!(
                "Final statement returns {} instead of {} at column {}.",
                name(from),
                name(to),
                i + 1
            )));
        }
    }
    Ok(())
}

/// The name of the derived table holding a SQL body's rows in
/// [`expand_factor`]'s query (not a name a client can write unquoted).
const BODY: &str = "$body";

/// FROM item `factor` made the query it stands for if it is a call of a
/// SQL function returning `record` (its calls in expressions are
/// `sql_functions.rs`'s): `[LATERAL] (SELECT CAST("$body"."1" AS t1),
/// ... FROM (body) AS "$body"("1", ...)) AS x(a, ...)`, the body's
/// columns cast to the list's types ([`check_sql_columns`]); a function
/// not returning a set gives its body's first row, or one of NULLs
/// (`FROM (SELECT 1) LEFT JOIN (body LIMIT 1) ON true`), as PostgreSQL's.
/// LATERAL when an argument reads a column of the items before it.
/// `stack`: the functions being expanded. The function expanded, if any.
pub fn expand_factor(
    cx: &crate::context::Ctx<'_>,
    txn: &folio_db::Transaction,
    factor: &mut TableFactor,
    stack: &mut Vec<u64>,
) -> Result<Option<FunctionDef>, SqlError> {
    use crate::sql_functions as sql;
    use sqlparser::ast::{FunctionArgumentList, FunctionArguments};
    let (name, args) = match &*factor {
        TableFactor::Table {
            name,
            args: Some(args),
            ..
        } => (name, &args.args),
        TableFactor::Function { name, args, .. } => (name, args),
        _ => return Ok(None),
    };
    let call_args = FunctionArguments::List(FunctionArgumentList {
        duplicate_treatment: None,
        args: args.clone(),
        clauses: Vec::new(),
    });
    let declared = match sql::resolve_call(name, &call_args, Some((cx, txn))) {
        sql::Named::One(d) if !d.plpgsql => d,
        named @ (sql::Named::Unfit | sql::Named::Ambiguous) => {
            return match sql::unresolved_error(cx, txn, name, &call_args, &named) {
                Some(e) => Err(e),
                None => Ok(None),
            };
        }
        _ => return Ok(None),
    };
    let list_args = sql::call_args(&call_args, &declared)?;
    // Its polymorphic types made the call's (`polymorphic.rs`).
    let def = sql::resolved(cx, txn, &declared, &list_args)?;
    let own = own_columns(&def)?;
    let columns = match &own {
        Some(columns) => columns.clone(),
        None => match listed_columns(&def, factor)? {
            Some(columns) => columns,
            None => return Ok(None),
        },
    };
    let args = list_args;
    let lateral = args.iter().any(sql::reads_columns);
    let types: Vec<SqlType> = columns.iter().map(|(_, t)| *t).collect();
    sql::enter(&def, stack)?;
    // A polymorphic function's body is planned with the call's own
    // arguments (their types are the call's), when they read no column.
    let polymorphic = (def.args.iter()).any(|a| crate::polymorphic::is_polymorphic(a.1));
    let planned = (|| -> Result<(Vec<SqlType>, sqlparser::ast::Query), SqlError> {
        let body = sql::body_rows(cx, txn, &def, &sql::typed_args(&def, &args)?, stack)?;
        let found = match polymorphic && !lateral {
            true => crate::query::plan_query(cx, txn, &body)?.types,
            false => body_columns(cx, txn, &def, stack)?,
        };
        if let Some(ty) = composite_result(&def)
            && !def.returns_set
            && gives_row_whole(&found, types.len())
        {
            return Ok((types.clone(), fields_of(body, ty)?));
        }
        check_sql_columns(&found, &types)?;
        Ok((found, body))
    })();
    stack.pop();
    let (found, mut body) = planned?;
    let alias = match &*factor {
        TableFactor::Table { alias, .. } | TableFactor::Function { alias, .. } => alias.clone(),
        _ => None,
    };
    let ordinality = matches!(
        factor,
        TableFactor::Table {
            with_ordinality: true,
            ..
        }
    );
    let alias = match own {
        Some(own) => Some(own_alias(&def, alias, &own, ordinality)),
        None => alias.map(|a| sqlparser::ast::TableAlias {
            columns: (a.columns.iter())
                .map(|c| sqlparser::ast::TableAliasColumnDef {
                    name: c.name.clone(),
                    data_type: None,
                })
                .collect(),
            ..a
        }),
    };
    if lateral {
        // The body is the LATERAL item's query itself (folio's correlated
        // subqueries read the items before them at their own level only).
        cast_leaves(&def, &mut body.body, &found, &types)?;
        if !def.returns_set {
            // Its first row; a body that may give none would need a row
            // of NULLs, which folio cannot join at this level.
            if !one_row(&body) {
                return Err(SqlError::unsupported(format!(
                    "a call of SQL function \"{}\" returning record (not SETOF) with arguments that read columns, whose body may return no row",
                    sql::names_of(&def.name)
                )));
            }
            sql::first_row(&mut body);
        }
        if ordinality {
            body = crate::ordinality::numbered(body)?;
        }
        *factor = TableFactor::Derived {
            lateral,
            subquery: Box::new(body),
            alias,
        };
        return Ok(Some(declared));
    }
    let (casts, names) = (columns.iter().enumerate())
        .map(|(i, (_, ty))| {
            let ty = crate::catalog_functions::format_type(i64::from(ty.oid()), Some(ty.typmod()));
            (
                format!("CAST(\"{BODY}\".\"{}\" AS {ty})", i + 1),
                format!("\"{}\"", i + 1),
            )
        })
        .collect::<(Vec<_>, Vec<_>)>();
    let (mut casts, names) = (casts.join(", "), names.join(", "));
    if ordinality {
        casts = format!("{casts}, {}", crate::ordinality::COLUMN);
    }
    let text = match def.returns_set {
        true => format!("SELECT {casts} FROM (SELECT 1) AS \"{BODY}\"({names})"),
        false => {
            sql::first_row(&mut body);
            format!(
                "SELECT {casts} FROM (SELECT 1) AS \"$one\" LEFT JOIN (SELECT 1) AS \"{BODY}\"({names}) ON true"
            )
        }
    };
    let mut query = parse_query(&text)?;
    place_body(&mut query, body);
    *factor = TableFactor::Derived {
        lateral,
        subquery: Box::new(query),
        alias,
    };
    Ok(Some(declared))
}

/// The columns of a SQL function's call in FROM that has no column
/// definition list: a set of its own rows (`RETURNS TABLE (...)`,
/// `RETURNS SETOF table`) the table's or OUT columns, a composite type
/// (`RETURNS [SETOF] type`) its fields, any other type one column named
/// as the function, as in PostgreSQL. `None` for a PL/pgSQL function or
/// one returning `record`.
fn own_columns(def: &FunctionDef) -> Result<Option<Vec<(String, SqlType)>>, SqlError> {
    if def.plpgsql || returns_record(def) {
        return Ok(None);
    }
    let of = |oid: u32, typmod: i32| {
        crate::user_types::of_oid(oid, typmod)
            .ok_or_else(|| SqlError::new("42704", format!("type with oid {oid} does not exist")))
    };
    let columns = match def.columns.as_slice() {
        [] => match of(def.result.0, def.result.1)? {
            SqlType::Composite(ty) => ty.fields.clone(),
            ty => vec![(crate::sql_functions::names_of(&def.name).to_string(), ty)],
        },
        columns => (columns.iter())
            .map(|(name, oid, typmod)| Ok((name.clone(), of(*oid, *typmod)?)))
            .collect::<Result<_, SqlError>>()?,
    };
    Ok(Some(columns))
}

/// How many columns each row a call of `def` gives has, when it gives
/// rows of several columns (a composite type's, or several OUT
/// parameters' record): a call in an expression is the row's value
/// (`sql_functions::expand_call`, `sql_select_sets.rs`).
pub fn row_width(def: &FunctionDef) -> Option<usize> {
    match composite_result(def) {
        Some(ty) => Some(ty.fields.len()),
        None if def.columns.len() > 1 && def.result.0 == SqlType::Record.oid() => {
            Some(def.columns.len())
        }
        None => None,
    }
}

/// `body`, whose one column is a row of composite type `ty`, as the
/// query of that row's fields: `SELECT ("$whole")."f1", ... FROM (body)
/// AS "$whole"("$whole")`.
fn fields_of(
    body: sqlparser::ast::Query,
    ty: &folio_row::CompositeType,
) -> Result<sqlparser::ast::Query, SqlError> {
    const WHOLE: &str = "$whole";
    let fields: Vec<String> = (ty.fields.iter())
        .map(|(name, _)| format!("(\"{WHOLE}\").\"{}\"", name.replace('"', "\"\"")))
        .collect();
    let mut query = parse_query(&format!(
        "SELECT {} FROM (SELECT 1) AS \"{WHOLE}\"(\"{WHOLE}\")",
        fields.join(", ")
    ))?;
    let sqlparser::ast::SetExpr::Select(select) = query.body.as_mut() else {
        unreachable!("a SELECT")
    };
    if let TableFactor::Derived { subquery, .. } = &mut select.from[0].relation {
        **subquery = body;
    }
    Ok(query)
}

/// Whether a body whose final query's columns are of types `found` gives
/// the row of a function returning a row of `width` columns whole, as
/// one value (`SELECT ROW(a, b)::t`, `SELECT (1, 2.1)`), rather than
/// column by column: one column of a composite type or `record`, as
/// PostgreSQL takes it.
pub fn gives_row_whole(found: &[SqlType], width: usize) -> bool {
    matches!(found, [SqlType::Record | SqlType::Composite(_)]) && width != 1
        || matches!(found, [SqlType::Record])
}

/// The composite type `def` returns (`RETURNS [SETOF] type`), if it
/// does.
/// The field names of the row a call of `def` gives, if it gives one:
/// a composite type's, its output parameters' or its table's columns.
pub(crate) fn row_names(def: &FunctionDef) -> Option<Vec<String>> {
    if let Some(ty) = composite_result(def) {
        return Some(ty.fields.iter().map(|(n, _)| n.clone()).collect());
    }
    let row = def.columns_of_table || def.result.0 == SqlType::Record.oid();
    (row && !def.columns.is_empty())
        .then(|| def.columns.iter().map(|(n, _, _)| n.clone()).collect())
}

fn composite_result(def: &FunctionDef) -> Option<&'static folio_row::CompositeType> {
    match crate::user_types::of_oid(def.result.0, def.result.1) {
        Some(SqlType::Composite(ty)) if def.columns.is_empty() => Some(ty),
        _ => None,
    }
}

/// The alias of a call of a function with its own columns (`own`): the
/// call's alias (else the function's bare name), its column names those
/// the alias lists, then the function's.
fn own_alias(
    def: &FunctionDef,
    alias: Option<sqlparser::ast::TableAlias>,
    own: &[(String, SqlType)],
    ordinality: bool,
) -> sqlparser::ast::TableAlias {
    use sqlparser::ast::{Ident, TableAlias, TableAliasColumnDef};
    let (name, listed) = match alias {
        // A call's one column of a type is named by its alias (as
        // PostgreSQL names it).
        Some(a)
            if a.columns.is_empty()
                && def.columns.is_empty()
                && composite_result(def).is_none() =>
        {
            let column = TableAliasColumnDef {
                name: a.name.clone(),
                data_type: None,
            };
            (a.name, vec![column])
        }
        Some(a) => (a.name, a.columns),
        None => (
            Ident::with_quote('"', crate::sql_functions::names_of(&def.name)),
            Vec::new(),
        ),
    };
    let columns = (own.iter().enumerate())
        .map(|(i, (column, _))| TableAliasColumnDef {
            name: match listed.get(i) {
                Some(c) => c.name.clone(),
                None => Ident::with_quote('"', column),
            },
            data_type: None,
        })
        .chain(ordinality.then(|| TableAliasColumnDef {
            name: match listed.get(own.len()) {
                Some(c) => c.name.clone(),
                None => Ident::new("ordinality"),
            },
            data_type: None,
        }))
        .collect();
    TableAlias { name, columns }
}

/// The column types of a SQL function returning a set of its own rows
/// or a composite type ([`own_columns`]), which CREATE checks its body's
/// against; `None` for another function (its body gives one value).
pub fn own_types(def: &FunctionDef) -> Result<Option<Vec<SqlType>>, SqlError> {
    if !def.returns_set && row_width(def).is_none() {
        return Ok(None);
    }
    Ok(own_columns(def)?.map(|c| c.into_iter().map(|(_, t)| t).collect()))
}

/// Casts each column of a SQL body's rows (`body`, whose columns are of
/// types `found`) that is not of its list's type (`types`) where the
/// body's SELECTs give it: 0A000 for a `*` or a VALUES there.
fn cast_leaves(
    def: &FunctionDef,
    body: &mut sqlparser::ast::SetExpr,
    found: &[SqlType],
    types: &[SqlType],
) -> Result<(), SqlError> {
    use sqlparser::ast::{Expr, SelectItem, SetExpr};
    if found == types {
        return Ok(());
    }
    match body {
        SetExpr::Select(select) => {
            for (item, (from, to)) in select.projection.iter_mut().zip(found.iter().zip(types)) {
                if from == to {
                    continue;
                }
                let cast = |e: &mut Expr| -> Result<(), SqlError> {
                    *e = Expr::Cast {
                        kind: sqlparser::ast::CastKind::Cast,
                        expr: Box::new(e.clone()),
                        data_type: crate::plpgsql::exec::data_type(*to)?,
                        format: None,
                    };
                    Ok(())
                };
                match item {
                    SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. } => {
                        cast(e)?
                    }
                    _ => return Err(uncastable(def)),
                }
            }
            Ok(())
        }
        SetExpr::SetOperation { left, right, .. } => {
            cast_leaves(def, left, found, types)?;
            cast_leaves(def, right, found, types)
        }
        SetExpr::Query(q) => cast_leaves(def, &mut q.body, found, types),
        _ => Err(uncastable(def)),
    }
}

/// Whether `query` gives exactly one row whatever it reads: a SELECT of
/// expressions without FROM, WHERE, grouping or LIMIT.
fn one_row(query: &sqlparser::ast::Query) -> bool {
    use sqlparser::ast::{GroupByExpr, SetExpr};
    let SetExpr::Select(s) = query.body.as_ref() else {
        return false;
    };
    s.from.is_empty()
        && s.selection.is_none()
        && s.having.is_none()
        && matches!(&s.group_by, GroupByExpr::Expressions(e, _) if e.is_empty())
        && query.limit_clause.is_none()
        && query.fetch.is_none()
        && !(s.projection.iter()).any(|item| {
            let mut sets = false;
            let _ = sqlparser::ast::visit_expressions(item, |e| {
                if let sqlparser::ast::Expr::Function(f) = e
                    && crate::table_functions::is_table_function(&f.name)
                {
                    sets = true;
                }
                std::ops::ControlFlow::<()>::Continue(())
            });
            sets
        })
}

fn uncastable(def: &FunctionDef) -> SqlError {
    SqlError::unsupported(format!(
        "a call of SQL function \"{}\" with arguments that read columns, whose body's columns (a * or VALUES) are not of its column definition list's types",
        crate::sql_functions::names_of(&def.name)
    ))
}

/// The column types of `def`'s body (planned with NULL arguments of its
/// types, which the call's arguments are cast to).
pub(crate) fn body_columns(
    cx: &crate::context::Ctx<'_>,
    txn: &folio_db::Transaction,
    def: &FunctionDef,
    stack: &mut Vec<u64>,
) -> Result<Vec<SqlType>, SqlError> {
    let rows = crate::sql_functions::body_rows(
        cx,
        txn,
        def,
        &crate::sql_functions::null_args(def)?,
        stack,
    )?;
    Ok(crate::query::plan_query(cx, txn, &rows)?.types)
}

/// `text`, one query.
fn parse_query(text: &str) -> Result<sqlparser::ast::Query, SqlError> {
    let dialect = sqlparser::dialect::PostgreSqlDialect {};
    match sqlparser::parser::Parser::parse_sql(&dialect, text).map(|mut s| s.pop()) {
        Ok(Some(sqlparser::ast::Statement::Query(q))) => Ok(*q),
        _ => Err(SqlError::new("XX000", format!("cannot parse {text}"))),
    }
}

/// Puts `body` in `query` as the derived table named [`BODY`].
fn place_body(query: &mut sqlparser::ast::Query, body: sqlparser::ast::Query) {
    use sqlparser::ast::{SetExpr, TableWithJoins};
    let SetExpr::Select(select) = query.body.as_mut() else {
        return;
    };
    let place = |t: &mut TableFactor, body: &mut Option<sqlparser::ast::Query>| {
        if let TableFactor::Derived {
            subquery,
            alias: Some(a),
            ..
        } = t
            && a.name.value == BODY
            && let Some(b) = body.take()
        {
            **subquery = b;
        }
    };
    let mut body = Some(body);
    for TableWithJoins { relation, joins } in &mut select.from {
        place(relation, &mut body);
        for join in joins {
            place(&mut join.relation, &mut body);
        }
    }
}
