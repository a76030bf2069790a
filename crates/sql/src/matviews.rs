//! Materialized views (README "Materialized views"): `CREATE
//! MATERIALIZED VIEW`, `REFRESH MATERIALIZED VIEW`, `ALTER MATERIALIZED
//! VIEW ... RENAME`, and the one rule of reading one (55000 while it is
//! not populated). DROP is `ddl::drop`'s, dependencies `views.rs`'s (a
//! materialized view reads other relations as a view does), and a row
//! change naming one is refused by `access::target`. The catalog keeps
//! it as a table whose class row also holds the query's text, what it
//! reads, and whether it is populated (folio-catalog `matviews.rs`).

use crate::context::Ctx;
use crate::error::SqlError;
use crate::names;
use crate::output::{Notice, Output};
use crate::parse::Refresh;
use crate::query;
use crate::scalar::Env;
use folio_catalog::{Relation, TableDef};
use folio_db::Transaction;
use sqlparser::ast::{Ident, ObjectName, ObjectNamePart, Statement};
use std::sync::Arc;

/// PostgreSQL's 55000 for reading a materialized view that is not
/// populated (made `WITH NO DATA`, or refreshed so): checked when a scan
/// of it runs, not when it is planned, as PostgreSQL checks it.
pub fn check_populated(relation: &Relation) -> Result<(), SqlError> {
    match &relation.def.matview {
        Some(m) if !m.populated => Err(SqlError::new(
            "55000",
            format!(
                "materialized view \"{}\" has not been populated",
                relation.def.name
            ),
        )
        .with_hint("Use the REFRESH MATERIALIZED VIEW command.")),
        _ => Ok(()),
    }
}

/// `CREATE MATERIALIZED VIEW [IF NOT EXISTS] name [(column, ...)] AS
/// query [WITH [NO] DATA]`: the query planned (every error it would give
/// is given now), a table of its columns made with the query's text (its
/// top-level `*` written out, as a view's) and what it reads, then, with
/// data, filled (tag `SELECT n`, as PostgreSQL's).
pub fn create(
    cx: &Ctx<'_>,
    txn: &mut Transaction,
    notices: &mut Vec<Notice>,
    statement: &Statement,
    data: bool,
) -> Result<Output, SqlError> {
    let Statement::CreateView {
        or_alter: false,
        or_replace: false,
        materialized: true,
        secure: false,
        name,
        columns,
        query,
        options,
        cluster_by,
        comment: None,
        with_no_schema_binding: false,
        if_not_exists,
        temporary: false,
        to: None,
        params: None,
        ..
    } = statement
    else {
        return Err(SqlError::syntax(format!("syntax error in {statement}")));
    };
    if !cluster_by.is_empty()
        || columns
            .iter()
            .any(|c| c.data_type.is_some() || c.options.is_some())
    {
        return Err(SqlError::syntax(format!("syntax error in {statement}")));
    }
    if *options != sqlparser::ast::CreateTableOptions::None {
        return Err(SqlError::unsupported("materialized view storage options"));
    }
    let name = names::relation(name)?;
    let catalog = cx.db.catalog();
    if catalog.relation_exists(txn, &name)? {
        if *if_not_exists {
            notices.push(Notice::info(format!(
                "relation \"{}\" already exists, skipping",
                folio_catalog::unqualified(&name)
            )));
            return Ok(Output::command("CREATE MATERIALIZED VIEW"));
        }
        return Err(SqlError::new(
            "42P07",
            format!(
                "relation \"{}\" already exists",
                folio_catalog::unqualified(&name)
            ),
        ));
    }
    // Temporary tables are found by their session's names, then refused.
    let as_statement = Statement::Query(query.clone());
    let resolved = crate::temp_tables::resolve(cx, txn, &as_statement)?;
    let query = match &resolved {
        Some(Statement::Query(q)) => q,
        _ => query,
    };
    cx.views.borrow_mut().clear();
    let mut expanded = query.clone();
    crate::sql_functions::expand_query(cx, txn, &mut expanded)?;
    let planned = query::plan_query(cx, txn, &expanded)?;
    let used = std::mem::take(&mut *cx.views.borrow_mut());
    if planned
        .relations()
        .iter()
        .any(|r| folio_catalog::split_temp_name(&r.def.name).is_some())
    {
        return Err(SqlError::new(
            "0A000",
            "materialized views must not use temporary tables or views",
        ));
    }
    let listed: Vec<String> = columns.iter().map(|c| names::ident(&c.name)).collect();
    let defs = crate::ddl::query_columns(&planned, &listed)?;
    let depends_on = crate::views::depends_on(&planned, &used);
    let names: Vec<String> = defs.iter().map(|d| d.name.clone()).collect();
    let text = crate::views::stored_definition(cx, txn, query, &planned, &names)?;
    let def = catalog.create_matview(txn, &name, &text, &defs, &depends_on, data)?;
    if !data {
        return Ok(Output::command("CREATE MATERIALIZED VIEW"));
    }
    let count = fill(cx, txn, def)?;
    Ok(Output::command(format!("SELECT {count}")))
}

/// `REFRESH MATERIALIZED VIEW [CONCURRENTLY] name [WITH [NO] DATA]`: in
/// the statement's transaction, new empty storage (folio-catalog
/// `rewrite.rs`) and, with data, the query's rows inserted into it
/// (folio-catalog `refresh_matview`): other
/// transactions read the old rows until it commits. CONCURRENTLY takes
/// PostgreSQL's conditions (populated, with data, a unique index over
/// columns holding every row) and is then the same refresh, which never
/// blocks readers.
pub fn refresh(cx: &Ctx<'_>, txn: &mut Transaction, refresh: &Refresh) -> Result<Output, SqlError> {
    let catalog = cx.db.catalog();
    let name = &refresh.name;
    let def = match catalog.table(txn, name)? {
        Some(def) => def,
        None if catalog.relation_exists(txn, name)? => {
            return Err(folio_catalog::CatalogError::NotAMatview(name.clone()).into());
        }
        None => return Err(SqlError::undefined_table(name)),
    };
    let Some(matview) = &def.matview else {
        return Err(folio_catalog::CatalogError::NotAMatview(name.clone()).into());
    };
    if refresh.concurrently {
        if !matview.populated {
            return Err(SqlError::new(
                "0A000",
                "CONCURRENTLY cannot be used when the materialized view is not populated",
            ));
        }
        if !refresh.data {
            return Err(SqlError::syntax(
                "CONCURRENTLY and WITH NO DATA options cannot be used together",
            ));
        }
        if !def.indexes.iter().any(|i| i.unique && i.is_plain()) {
            return Err(SqlError::new(
                "55000",
                format!("cannot refresh materialized view \"public.{name}\" concurrently"),
            )
            .with_hint(
                "Create a unique index with no WHERE clause on one or more columns of the materialized view.",
            ));
        }
    }
    let def = catalog.refresh_matview(txn, name, refresh.data)?;
    if refresh.data {
        fill(cx, txn, def)?;
    }
    Ok(Output::command("REFRESH MATERIALIZED VIEW"))
}

/// Inserts the rows of materialized view `def`'s query (it is empty):
/// `INSERT INTO name query` planned into its relation (INSERT's path:
/// TOAST, statistics, the sequences and catalog lookups the query
/// calls). Returns how many.
fn fill(cx: &Ctx<'_>, txn: &mut Transaction, def: TableDef) -> Result<u64, SqlError> {
    let text = match &def.matview {
        Some(m) => m.query.clone(),
        None => unreachable!("fill of a table"),
    };
    let query = crate::views::parse_text(&def.name, &text)?;
    let name = def.name.clone();
    let relation = Arc::new(cx.db.catalog().open_relation(def)?);
    let target = ObjectName(vec![ObjectNamePart::Identifier(Ident::with_quote(
        '"',
        name.clone(),
    ))]);
    let insert = crate::ddl::insert_query(&target, &query);
    let plan = crate::statement::plan_fill(cx, txn, &insert, &name, relation)?;
    match plan.run(cx, txn, &Env::at(cx.now()))? {
        Output::Command { tag } => Ok(tag
            .rsplit(' ')
            .next()
            .and_then(|n| n.parse().ok())
            .unwrap_or(0)),
        _ => Ok(0),
    }
}

/// `ALTER MATERIALIZED VIEW [IF EXISTS] name RENAME TO new | RENAME
/// [COLUMN] old TO new` and, not `materialized`, `ALTER VIEW ... RENAME
/// TO new` and `ALTER VIEW ... ALTER [COLUMN] c SET DEFAULT e | DROP
/// DEFAULT` (`view_defaults.rs`; read as ALTER TABLE's; the other
/// operations are 42809 there): 42809 for a relation of another kind, as PostgreSQL's (whose
/// ALTER TABLE renames any kind).
pub fn alter(
    cx: &Ctx<'_>,
    txn: &mut Transaction,
    notices: &mut Vec<Notice>,
    statement: &Statement,
    materialized: bool,
) -> Result<Output, SqlError> {
    // (Its name as the search path finds it.)
    let resolved = crate::temp_tables::resolve(cx, txn, statement)?;
    let statement = resolved.as_ref().unwrap_or(statement);
    let Statement::AlterTable {
        name,
        if_exists,
        only: false,
        operations,
        location: None,
        on_cluster: None,
        ..
    } = statement
    else {
        return Err(SqlError::syntax(format!("syntax error in {statement}")));
    };
    let relation = names::relation(name)?;
    let catalog = cx.db.catalog();
    let (kind, tag) = match materialized {
        true => ("materialized view", "ALTER MATERIALIZED VIEW"),
        false => ("view", "ALTER VIEW"),
    };
    let is_kind = match materialized {
        true => (catalog.table(txn, &relation)?).is_some_and(|t| t.matview.is_some()),
        false => catalog.view(txn, &relation)?.is_some(),
    };
    if !is_kind {
        if catalog.relation_exists(txn, &relation)? {
            return Err(SqlError::new(
                "42809",
                format!(
                    "\"{}\" is not a {kind}",
                    folio_catalog::unqualified(&relation)
                ),
            ));
        }
        if *if_exists {
            notices.push(Notice::info(format!(
                "relation \"{relation}\" does not exist, skipping"
            )));
            return Ok(Output::command(tag));
        }
        return Err(SqlError::undefined_table(&relation));
    }
    crate::ddl::alter_table(cx, txn, notices, name, operations, false)?;
    Ok(Output::command(tag))
}
