//! Views: `CREATE [OR REPLACE] VIEW`, `DROP VIEW`, a view named in FROM
//! (its query, planned as a subquery in FROM under the view's name), and
//! the checks that keep views and the tables they read in step (README
//! "Views"). The catalog keeps the query as SQL text with its top-level
//! `*` written out, its columns and the relations it reads
//! (folio-catalog `views.rs`).

use crate::context::Ctx;
use crate::error::SqlError;
use crate::names;
use crate::output::{Notice, Output};
use crate::query::{self, Planned};
use crate::scalar::Columns;
use folio_catalog::{CheckOption, ColumnDef, View, ViewDef};
use folio_db::Transaction;
use sqlparser::ast::{
    Expr, ObjectName, Query, SelectItem, SetExpr, Statement, TableAlias, TableAliasColumnDef,
    TableFactor,
};
use std::sync::Arc;

/// Most views one statement may expand (views of views, or a cycle).
const MAX_VIEWS: usize = 1000;

/// A view a statement's plan expanded: the plan is made again when the
/// view changes, and the view's query counts among the statement's (its
/// sequence calls and catalog lookups).
pub struct Used {
    pub view: Arc<View>,
    pub query: Statement,
}

/// `CREATE [OR REPLACE] VIEW name [(columns)] AS query` (`qualified`:
/// whether its name was written with a schema, before the name was
/// resolved). Returns the catalog name the view was made under.
pub fn create(
    cx: &Ctx<'_>,
    txn: &mut Transaction,
    notices: &mut Vec<Notice>,
    statement: &Statement,
    qualified: bool,
) -> Result<(Output, String), SqlError> {
    let Statement::CreateView {
        or_alter,
        or_replace,
        materialized,
        secure,
        name,
        columns,
        query,
        options,
        cluster_by,
        comment,
        with_no_schema_binding,
        if_not_exists,
        temporary,
        to,
        params,
        ..
    } = statement
    else {
        unreachable!("views::create of another statement");
    };
    // (CREATE MATERIALIZED VIEW is `matviews.rs`'s; PostgreSQL has no
    // CREATE OR REPLACE MATERIALIZED VIEW.)
    if *materialized {
        return Err(SqlError::syntax("syntax error at or near \"MATERIALIZED\""));
    }
    // (`temp_tables::resolve` put a temporary view's name into the
    // session's namespace and cleared the flag.)
    if *temporary {
        return Err(SqlError::unsupported("temporary views outside a session"));
    }
    if *or_alter
        || *secure
        || *if_not_exists
        || *with_no_schema_binding
        || !cluster_by.is_empty()
        || comment.is_some()
        || to.is_some()
        || params.is_some()
        || columns
            .iter()
            .any(|c| c.data_type.is_some() || c.options.is_some())
    {
        return Err(SqlError::syntax(format!("syntax error in {statement}")));
    }
    let options = crate::view_options::of_list(&crate::view_options::written(options)?)?;
    let check_option = CheckOption::of_options(&options);
    let name = names::relation(name)?;
    cx.views.borrow_mut().clear();
    let mut expanded = query.clone();
    crate::sql_functions::expand_query(cx, txn, &mut expanded)?;
    let planned = query::plan_query(cx, txn, &expanded)?;
    let used = std::mem::take(&mut *cx.views.borrow_mut());
    if columns.len() > planned.columns.len() {
        return Err(SqlError::syntax(
            "CREATE VIEW specifies more column names than columns",
        ));
    }
    let mut defs = Vec::with_capacity(planned.columns.len());
    for (i, (column, ty)) in planned.columns.iter().zip(&planned.types).enumerate() {
        if crate::user_types::of_oid(ty.oid(), ty.typmod()) != Some(*ty) {
            return Err(SqlError::unsupported(format!(
                "a view column of type {}",
                ty.name()
            )));
        }
        defs.push(ColumnDef {
            local: true,
            collation: None,
            name: match columns.get(i) {
                Some(c) => names::ident(&c.name),
                None => column.name.clone(),
            },
            type_oid: ty.oid(),
            typmod: ty.typmod(),
            not_null: false,
        });
    }
    let mut reads_temp_sequence = false;
    planned.each_leaf(&mut |leaf| {
        if let crate::from::Source::Sequence { def, .. } = leaf {
            reads_temp_sequence |= folio_catalog::split_temp_name(&def.name).is_some();
        }
    });
    let reads_temp = reads_temp_sequence
        || (planned.relations().iter())
            .any(|r| folio_catalog::split_temp_name(&r.def.name).is_some())
        || (used.iter()).any(|u| folio_catalog::split_temp_name(&u.view.def.name).is_some());
    let name = match reads_temp && folio_catalog::split_temp_name(&name).is_none() {
        true => made_temporary(cx, notices, &name, qualified)?,
        false => name,
    };
    let depends_on = depends_on(&planned, &used);
    // A view that reads itself (a replacement naming the old view, or
    // through another view) would expand forever.
    if let Some(own) = cx.db.catalog().view(txn, &name)?
        && depends_on.contains(&own.def.oid)
    {
        return Err(SqlError::new(
            "42P17",
            format!("infinite recursion detected in rules for relation \"{name}\""),
        ));
    }
    let names: Vec<String> = defs.iter().map(|d| d.name.clone()).collect();
    let text = stored_definition(cx, txn, query, &planned, &names)?;
    let view = folio_catalog::NewView {
        query: &text,
        columns: &defs,
        depends_on: &depends_on,
        options: &options,
    };
    let def = cx.db.catalog().create_view(txn, &name, view, *or_replace)?;
    if check_option != CheckOption::None {
        crate::updatable_views::check_option_allowed(cx, txn, &def)?;
    }
    Ok((Output::command("CREATE VIEW"), name))
}

/// The name of a view not written TEMP that reads a temporary relation
/// (`name` as resolved): PostgreSQL makes it temporary, with a NOTICE,
/// unless its name was written with a schema (42P16).
fn made_temporary(
    cx: &Ctx<'_>,
    notices: &mut Vec<Notice>,
    name: &str,
    qualified: bool,
) -> Result<String, SqlError> {
    let bare = folio_catalog::unqualified(name);
    notices.push(Notice::info(format!(
        "view \"{bare}\" will be a temporary view"
    )));
    let namespace = cx.temp.namespace().filter(|_| !qualified).ok_or_else(|| {
        SqlError::new(
            "42P16",
            "cannot create temporary relation in non-temporary schema",
        )
    })?;
    Ok(format!("{}.{bare}", folio_catalog::temp_schema(namespace)))
}

/// The text a view or materialized view made of `query` (planned as
/// `planned`, its columns named `columns`) keeps: its stars and NATURAL
/// joins written out as they read when it is made (`written_out`,
/// `natural_joins.rs`).
pub(crate) fn stored_definition(
    cx: &Ctx<'_>,
    txn: &Transaction,
    query: &Query,
    planned: &Planned,
    columns: &[String],
) -> Result<String, SqlError> {
    let mut written = written_out(query, planned)?;
    crate::natural_joins::write_out(&mut written, columns, || {
        crate::lookups::Lookups::of_session(cx, txn)
    })?;
    Ok(stored_text(&written))
}

/// `query` with each `*` and `t.*` of its top-level select list written
/// out as the columns it stood for when the view was made (PostgreSQL
/// expands them then: a column added later to a table is not the view's).
pub(crate) fn written_out(query: &Query, planned: &Planned) -> Result<Query, SqlError> {
    let mut query = query.clone();
    let SetExpr::Select(select) = query.body.as_mut() else {
        return Ok(query);
    };
    let scope = &planned.scope;
    crate::field_stars::expand(&mut select.projection, scope)?;
    let names = scope.names();
    let mut items = Vec::with_capacity(select.projection.len());
    for item in &select.projection {
        match query::star_columns(scope, item) {
            None => items.push(item.clone()),
            Some(positions) => {
                for p in positions? {
                    let mut parts = Vec::with_capacity(2);
                    // (A merged USING column is written bare: it is the
                    // join's, whose printed side `view_layout/` picks.)
                    if !scope.is_merged(p)
                        && let Some(q) = scope.qualifier_of(p)
                    {
                        parts.push(names::written(&q));
                    }
                    parts.push(names::written(&names[p]));
                    items.push(SelectItem::UnnamedExpr(Expr::CompoundIdentifier(parts)));
                }
            }
        }
    }
    select.projection = items;
    Ok(query)
}

/// 55000 if the session restricts views (`restrict_nonsystem_relation_kind`
/// lists `view`): a user's view (folio's system views are no catalog
/// views) is then neither read nor changed through, as PostgreSQL's
/// rewriter refuses to expand it.
pub(crate) fn check_restricted(cx: &Ctx<'_>, name: &str) -> Result<(), SqlError> {
    let kinds = cx.settings.show("restrict_nonsystem_relation_kind", None)?;
    let words = crate::tunables::key_words(&kinds).ok().flatten();
    match words.is_some_and(|w| w.iter().any(|k| k.eq_ignore_ascii_case("view"))) {
        true => Err(SqlError::new(
            "55000",
            format!(
                "access to non-system view \"{}\" is restricted",
                folio_catalog::unqualified(name)
            ),
        )),
        false => Ok(()),
    }
}

/// What a view or materialized view planned as `planned` (expanding the
/// views `used`) depends on, by oid: the tables it reads, the views it
/// expanded, and the sequences it reads in FROM (DROP of any of them is
/// 2BP01 or cascades to it: `drop_dependents`). The one owner of that
/// list.
pub(crate) fn depends_on(planned: &Planned, used: &[Used]) -> Vec<u64> {
    let mut out: Vec<u64> = planned.relations().iter().map(|r| r.def.oid).collect();
    out.extend(used.iter().map(|u| u.view.def.oid));
    planned.each_leaf(&mut |leaf| {
        if let crate::from::Source::Sequence { def, .. } = leaf {
            out.push(def.oid);
        }
    });
    out.sort_unstable();
    out.dedup();
    out
}

/// The view `name` as the FROM item it stands for, if `name` is a view:
/// its query as a subquery in FROM named as the view (or `alias`), its
/// columns the view's. Noted in `cx.views` for the statement's plan.
pub fn factor(
    cx: &Ctx<'_>,
    txn: &Transaction,
    name: &str,
    alias: Option<&TableAlias>,
) -> Result<Option<(TableFactor, Arc<View>)>, SqlError> {
    let Some(view) = cx.db.catalog().view(txn, name)? else {
        return Ok(None);
    };
    check_restricted(cx, name)?;
    if cx.views.borrow().len() >= MAX_VIEWS {
        return Err(SqlError::new(
            "42P17",
            format!("infinite recursion detected in rules for relation \"{name}\""),
        ));
    }
    let mut query = parse_query(&view.def)?;
    crate::sql_functions::expand_query(cx, txn, &mut query)?;
    let view = Arc::new(view);
    cx.views.borrow_mut().push(Used {
        view: view.clone(),
        query: Statement::Query(query.clone()),
    });
    let alias = TableAlias {
        name: match alias {
            Some(a) => a.name.clone(),
            None => names::written(folio_catalog::unqualified(name)),
        },
        columns: view
            .def
            .columns
            .iter()
            .map(|c| TableAliasColumnDef {
                name: sqlparser::ast::Ident::with_quote('"', c.name.clone()),
                data_type: None,
            })
            .collect(),
    };
    Ok(Some((
        TableFactor::Derived {
            lateral: false,
            subquery: query,
            alias: Some(alias),
        },
        view,
    )))
}

/// The view's query, parsed.
pub(crate) fn parse_query(def: &ViewDef) -> Result<Box<Query>, SqlError> {
    parse_text(&def.name, &def.query)
}

/// The stored query `text` of view (or materialized view) `name`, parsed.
pub(crate) fn parse_text(name: &str, text: &str) -> Result<Box<Query>, SqlError> {
    let broken = |reason: String| {
        SqlError::new(
            "XX000",
            format!("the query of view \"{name}\" cannot be read: {reason}"),
        )
    };
    let dialect = sqlparser::dialect::PostgreSqlDialect {};
    let mut tokens = sqlparser::tokenizer::Tokenizer::new(&dialect, text)
        .tokenize_with_location()
        .map_err(|e| broken(e.to_string()))?;
    // A window's EXCLUDE clause and a recursive item's SEARCH / CYCLE
    // ([`stored_text`]).
    tokens.retain(|t| !matches!(t.token, sqlparser::tokenizer::Token::Whitespace(_)));
    crate::window_frame::rewrite_frames(&mut tokens)
        .map_err(|at| broken(format!("at {}", tokens[at])))?;
    crate::search_cycle::mark(&mut tokens, &crate::position::Text::new(text))
        .map_err(|e| broken(e.message))?;
    crate::inheritance::syntax::mark(&mut tokens);
    sqlparser::parser::Parser::new(&dialect)
        .with_tokens_with_locations(tokens)
        .parse_query()
        .map_err(|e| broken(e.to_string()))
}

/// The text a view's (or materialized view's) `query` is stored as: as
/// sqlparser prints it, with each window's EXCLUDE clause and each
/// recursive item's SEARCH / CYCLE and each `ONLY name` written back in
/// SQL (`window_frame::written_exclusions`, `search_cycle::written_back`,
/// `inheritance::syntax::written_only`),
/// which [`parse_text`] reads.
pub(crate) fn stored_text(query: &Query) -> String {
    let text = crate::window_frame::written_exclusions(&query.to_string());
    let text = crate::inheritance::syntax::written_only(&text);
    crate::search_cycle::written_back(&text)
}

/// Checks that a view's query, planned now, still gives the view's
/// columns (count and types; 42P16 otherwise: a set operation of `*`
/// over a table that gained a column).
pub fn check_shape(def: &ViewDef, types: &[folio_row::SqlType]) -> Result<(), SqlError> {
    let same = types.len() == def.columns.len()
        && types
            .iter()
            .zip(&def.columns)
            .all(|(t, c)| (t.oid(), t.typmod()) == (c.type_oid, c.typmod));
    match same {
        true => Ok(()),
        false => Err(SqlError::new(
            "42P16",
            format!(
                "the query of view \"{}\" no longer gives its columns; create the view again",
                def.name
            ),
        )),
    }
}

/// The views that read any of `oids`, and the views that read those, in
/// the order they must be dropped (a view before the views it reads).
pub fn dependents(
    db: &folio_db::Database,
    txn: &mut Transaction,
    oids: &[u64],
) -> Result<Vec<ViewDef>, SqlError> {
    let mut found: Vec<ViewDef> = Vec::new();
    let mut frontier: Vec<u64> = oids.to_vec();
    while let Some(oid) = frontier.pop() {
        for view in db.catalog().dependent_views(txn, oid)? {
            if !found.iter().any(|v| v.oid == view.oid) && !oids.contains(&view.oid) {
                frontier.push(view.oid);
                found.push(view);
            }
        }
    }
    Ok(readers_first(found))
}

/// `views` in an order each can be dropped in: a view goes once no other
/// left reads it.
fn readers_first(mut views: Vec<ViewDef>) -> Vec<ViewDef> {
    let mut ordered = Vec::with_capacity(views.len());
    while !views.is_empty() {
        let next = (0..views.len())
            .find(|&i| {
                !views
                    .iter()
                    .any(|other| other.depends_on.contains(&views[i].oid))
            })
            .unwrap_or(0);
        ordered.push(views.remove(next));
    }
    ordered
}

/// Refuses (2BP01, PostgreSQL's message) or, with `cascade`, drops the
/// views that read the relations `dropping` (each `(kind, name, oid)`,
/// kind as PostgreSQL names it: `table`, `view`), with PostgreSQL's
/// `drop cascades to` notice.
pub fn drop_dependents(
    db: &folio_db::Database,
    txn: &mut Transaction,
    notices: &mut Vec<Notice>,
    dropping: &[(&str, String, u64)],
    cascade: bool,
) -> Result<(), SqlError> {
    let oids: Vec<u64> = dropping.iter().map(|d| d.2).collect();
    let dependents = dependents(db, txn, &oids)?;
    if dependents.is_empty() {
        return Ok(());
    }
    if !cascade {
        // PostgreSQL's DETAIL: in creation order, each view with what it
        // reads among those going (a view before the table under it).
        let (kind, name, _) = &dropping[0];
        let mut by_age: Vec<&ViewDef> = dependents.iter().collect();
        by_age.sort_by_key(|v| v.oid);
        let detail = by_age
            .iter()
            .map(|v| {
                let on = match dependents.iter().find(|d| v.depends_on.contains(&d.oid)) {
                    Some(d) => format!("{} {}", d.kind_name(), d.name),
                    None => format!("{kind} {name}"),
                };
                format!("{} {} depends on {on}", v.kind_name(), v.name)
            })
            .collect::<Vec<_>>()
            .join("\n");
        return Err(SqlError::new(
            "2BP01",
            format!("cannot drop {kind} {name} because other objects depend on it"),
        )
        .with_detail(detail)
        .with_hint("Use DROP ... CASCADE to drop the dependent objects too."));
    }
    let objects: Vec<String> = dependents
        .iter()
        .map(|v| format!("{} {}", v.kind_name(), v.name))
        .collect();
    notices.extend(Notice::cascaded(&objects));
    for view in &dependents {
        match view.materialized {
            true => db.catalog().drop_table(txn, &view.name)?,
            false => db.catalog().drop_view(txn, &view.name)?,
        }
    }
    Ok(())
}

/// `DROP VIEW [IF EXISTS] name, ... [CASCADE]`.
pub fn drop(
    db: &folio_db::Database,
    txn: &mut Transaction,
    notices: &mut Vec<Notice>,
    if_exists: bool,
    names: &[ObjectName],
    cascade: bool,
) -> Result<Output, SqlError> {
    let mut views = Vec::with_capacity(names.len());
    for name in names {
        let name = names::relation(name)?;
        match db.catalog().view(txn, &name)? {
            Some(view) => views.push(view.def),
            None if db.catalog().relation_exists(txn, &name)? => {
                return Err(wrong_kind(db, txn, &name, "view")?);
            }
            None if if_exists => notices.push(Notice::info(format!(
                "view \"{name}\" does not exist, skipping"
            ))),
            None => {
                return Err(SqlError::new(
                    "42P01",
                    format!("view \"{name}\" does not exist"),
                ));
            }
        }
    }
    let dropping: Vec<(&str, String, u64)> = views
        .iter()
        .map(|v| ("view", v.name.clone(), v.oid))
        .collect();
    drop_dependents(db, txn, notices, &dropping, cascade)?;
    // (Views of the list that read others of it go before them: `DROP
    // VIEW v1, v2` where v2 reads v1, and DROP SCHEMA's members.)
    for view in &readers_first(views) {
        db.catalog().drop_view(txn, &view.name)?;
    }
    Ok(Output::command("DROP VIEW"))
}

/// PostgreSQL's 42809 for DROP `wanted` of relation `name` of another
/// kind, with its hint naming the right DROP.
pub fn wrong_kind(
    db: &folio_db::Database,
    txn: &Transaction,
    name: &str,
    wanted: &str,
) -> Result<SqlError, SqlError> {
    let catalog = db.catalog();
    let (kind, command) = if catalog.view(txn, name)?.is_some() {
        ("a view", "DROP VIEW")
    } else if let Some(table) = catalog.table(txn, name)? {
        match table.matview {
            Some(_) => ("a materialized view", "DROP MATERIALIZED VIEW"),
            None => ("a table", "DROP TABLE"),
        }
    } else if let Ok(Some(_)) = catalog.sequence(txn, name) {
        ("a sequence", "DROP SEQUENCE")
    } else {
        ("an index", "DROP INDEX")
    };
    let mut e = SqlError::new("42809", format!("\"{name}\" is not a {wanted}"));
    e.hint = Some(format!("Use {command} to remove {kind}."));
    Ok(e)
}

/// What an ALTER TABLE did to a table views read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Alteration<'a> {
    DropColumn(&'a str),
    ColumnType(&'a str),
    Other,
}

/// After an ALTER of relation `oid` (named `name` now): every view that
/// reads it must still plan to its columns. A view that no longer does
/// fails the ALTER, with PostgreSQL's error where it has one (2BP01 for
/// a dropped column, 0A000 for a changed type; a rename's text was
/// rewritten first, `view_renames.rs`, and another failure is 0A000).
pub fn check_after_alter(
    cx: &Ctx<'_>,
    txn: &mut Transaction,
    table: &str,
    oid: u64,
    what: Alteration<'_>,
) -> Result<(), SqlError> {
    let dependents = dependents(cx.db, txn, &[oid])?;
    // (What the session read before the change is not what it reads now.)
    cx.relations.ddl();
    for view in dependents {
        let query = parse_query(&view)?;
        let saved = std::mem::take(&mut *cx.views.borrow_mut());
        let planned = query::plan_query(cx, txn, &query);
        *cx.views.borrow_mut() = saved;
        let broken = match &planned {
            Err(e) => Some(e.message.clone()),
            Ok(p) => check_shape(&view, &p.types).err().map(|e| e.message),
        };
        let Some(reason) = broken else { continue };
        return Err(match what {
            Alteration::DropColumn(column) => SqlError::new(
                "2BP01",
                format!("cannot drop column {column} of table {table} because other objects depend on it"),
            )
            .with_detail(format!(
                "{} {} depends on column {column} of table {table}",
                view.kind_name(),
                view.name
            ))
            .with_hint("Use DROP ... CASCADE to drop the dependent objects too."),
            Alteration::ColumnType(column) => SqlError::new(
                "0A000",
                "cannot alter type of a column used by a view or rule",
            )
            .with_detail(format!(
                "rule _RETURN on {} {} depends on column \"{column}\"",
                view.kind_name(),
                view.name
            )),
            Alteration::Other => SqlError::new(
                "0A000",
                format!("cannot alter relation \"{table}\": {} \"{}\" depends on it", view.kind_name(), view.name),
            )
            .with_detail(format!("Its query would fail: {reason}"))
            .with_hint(
                "folio keeps a view's query as SQL text: drop the view, alter, and create it again.",
            ),
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    // Proves a view's column check compares count and types.
    #[test]
    fn shape_compares_count_and_types() {
        let def = ViewDef {
            oid: 1,
            name: "v".into(),
            query: "SELECT 1".into(),
            columns: vec![ColumnDef {
                name: "a".into(),
                type_oid: 23,
                typmod: -1,
                not_null: false,
                local: true,
                collation: None,
            }],
            depends_on: Vec::new(),
            materialized: false,
            check_option: folio_catalog::CheckOption::None,
            defaults: Vec::new(),
            options: Vec::new(),
        };
        use folio_row::SqlType;
        assert!(check_shape(&def, &[SqlType::Int4]).is_ok());
        assert!(check_shape(&def, &[SqlType::Int8]).is_err());
        assert!(check_shape(&def, &[SqlType::Int4, SqlType::Int4]).is_err());
    }
}
