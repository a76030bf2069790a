//! A view's options and the ALTER VIEW forms sqlparser does not read
//! (README "Views"): the one owner of which options a view takes
//! (`check_option`, `security_barrier`, `security_invoker`), their
//! values, and the order `pg_class.reloptions` shows them in; and of
//! `ALTER VIEW [IF EXISTS] v SET (...) | RESET (...) | SET SCHEMA s |
//! OWNER TO r` (also written `ALTER TABLE` of a view), and of `ALTER
//! MATERIALIZED VIEW [IF EXISTS] m SET SCHEMA s | OWNER TO r`.
//!
//! PostgreSQL keeps the options as a list of `name=value` texts: `SET`
//! drops the names it sets from the list and appends its own, in the
//! order written; `RESET` drops the names. A boolean option written
//! without a value is `true`.

use crate::context::Ctx;
use crate::error::SqlError;
use crate::names;
use crate::output::{Notice, Output};
use folio_catalog::CheckOption;
use folio_db::Transaction;
use sqlparser::ast::Expr;

/// An option as written: its name, and its value's text if given.
pub type Written = (String, Option<String>);

/// `ALTER VIEW` (or `ALTER TABLE` of a view) of one of the forms this
/// file owns.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Alter {
    /// The relation's name as written (resolved when run).
    pub name: String,
    pub if_exists: bool,
    pub kind: Kind,
    pub action: Action,
}

/// The kind of relation the statement was written to alter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// `ALTER TABLE` (any kind of relation may be named).
    Table,
    /// `ALTER VIEW`: a view.
    View,
    /// `ALTER MATERIALIZED VIEW`: a materialized view.
    Matview,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    Set(Vec<Written>),
    Reset(Vec<String>),
    SetSchema(String),
    OwnerTo(String),
}

/// The options `list` (CREATE VIEW's `WITH (...)`) as a view keeps them;
/// 22023 for an unknown option or a bad value, as PostgreSQL's.
pub fn of_list(list: &[Written]) -> Result<Vec<(String, String)>, SqlError> {
    set(&[], list)
}

/// `old` after `SET (list)`.
pub fn set(old: &[(String, String)], list: &[Written]) -> Result<Vec<(String, String)>, SqlError> {
    let mut new = Vec::with_capacity(list.len());
    for (name, value) in list {
        let value = checked(name, value.as_deref())?;
        new.retain(|(n, _): &(String, String)| n != name);
        new.push((name.clone(), value));
    }
    let mut out: Vec<(String, String)> = (old.iter())
        .filter(|(n, _)| !new.iter().any(|(m, _)| m == n))
        .cloned()
        .collect();
    out.extend(new);
    Ok(out)
}

/// The stored text of option `name` given `value`, or PostgreSQL's 22023.
fn checked(name: &str, value: Option<&str>) -> Result<String, SqlError> {
    match name {
        "check_option" => {
            let text = value.unwrap_or_default();
            match text.to_ascii_lowercase().as_str() {
                "local" | "cascaded" => Ok(text.to_string()),
                _ => Err(SqlError::new(
                    "22023",
                    format!("invalid value for enum option \"check_option\": {text}"),
                )
                .with_detail("Valid values are \"local\" and \"cascaded\".")),
            }
        }
        "security_barrier" | "security_invoker" => match value {
            None => Ok("true".into()),
            Some(text) if boolean(text).is_some() => Ok(text.to_string()),
            Some(text) => Err(SqlError::new(
                "22023",
                format!("invalid value for boolean option \"{name}\": {text}"),
            )),
        },
        _ => Err(SqlError::new(
            "22023",
            format!("unrecognized parameter \"{name}\""),
        )),
    }
}

/// PostgreSQL's `parse_bool` of an option's text.
pub fn boolean(text: &str) -> Option<bool> {
    let t = text.to_ascii_lowercase();
    let prefix_of = |word: &str| !t.is_empty() && word.starts_with(t.as_str());
    match t.as_str() {
        "1" | "on" => Some(true),
        "0" | "off" => Some(false),
        _ if prefix_of("true") || prefix_of("yes") => Some(true),
        _ if prefix_of("false") || prefix_of("no") => Some(false),
        _ => None,
    }
}

/// The written options of CREATE VIEW's `WITH (...)`.
pub fn written(options: &sqlparser::ast::CreateTableOptions) -> Result<Vec<Written>, SqlError> {
    use sqlparser::ast::{CreateTableOptions, SqlOption};
    let list = match options {
        CreateTableOptions::None => return Ok(Vec::new()),
        CreateTableOptions::With(list) => list,
        _ => return Err(SqlError::unsupported("view options")),
    };
    (list.iter())
        .map(|option| match option {
            SqlOption::KeyValue { key, value } => {
                let text = match value {
                    Expr::Value(v) => match &v.value {
                        sqlparser::ast::Value::SingleQuotedString(s) => s.clone(),
                        other => other.to_string(),
                    },
                    Expr::Identifier(id) => id.value.clone(),
                    other => other.to_string(),
                };
                Ok((names::ident(key).to_ascii_lowercase(), Some(text)))
            }
            SqlOption::Ident(name) => Ok((names::ident(name).to_ascii_lowercase(), None)),
            _ => Err(SqlError::unsupported("view options")),
        })
        .collect()
}

/// Runs `alter`.
pub fn run(
    cx: &Ctx<'_>,
    txn: &mut Transaction,
    notices: &mut Vec<Notice>,
    alter: &Alter,
) -> Result<Output, SqlError> {
    let catalog = cx.db.catalog();
    let name = crate::temp_tables::resolve_name(cx, txn, &alter.name)?;
    let tag = match alter.kind {
        Kind::Table => "ALTER TABLE",
        Kind::View => "ALTER VIEW",
        Kind::Matview => "ALTER MATERIALIZED VIEW",
    };
    let view = catalog.view(txn, &name)?;
    let oid = match (&view, catalog.relation_oid(txn, &name)?) {
        (_, Some((oid, _))) => oid,
        (_, None) if alter.if_exists => {
            notices.push(Notice::info(format!(
                "relation \"{}\" does not exist, skipping",
                alter.name
            )));
            return Ok(Output::command(tag));
        }
        (_, None) => return Err(SqlError::undefined_table(&alter.name)),
    };
    let matview =
        view.is_none() && (catalog.table(txn, &name)?).is_some_and(|t| t.matview.is_some());
    let not_a = |kind: &str| {
        let name = folio_catalog::unqualified(&name);
        Err(SqlError::new(
            "42809",
            format!("\"{name}\" is not a {kind}"),
        ))
    };
    let table_form = matches!(alter.action, Action::OwnerTo(_) | Action::SetSchema(_));
    match alter.kind {
        Kind::View if view.is_none() => return not_a("view"),
        Kind::Matview if !matview => return not_a("materialized view"),
        Kind::Table if matview && !table_form => {
            return Err(SqlError::unsupported(
                "ALTER TABLE ... SET / RESET (options) of a materialized view",
            ));
        }
        _ => {}
    }
    let kind = match (&view, matview) {
        (Some(_), _) => "view",
        (None, true) => "materialized view",
        (None, false) => "table",
    };
    crate::privileges::check_owner(cx, oid, &name, kind)?;
    match &alter.action {
        Action::Set(_) | Action::Reset(_) if view.is_some() => {
            let def = view.expect("a view").def;
            let options = match &alter.action {
                Action::Set(list) => set(&def.options, list)?,
                Action::Reset(names) => (def.options.iter())
                    .filter(|(n, _)| !names.contains(n))
                    .cloned()
                    .collect(),
                _ => unreachable!("matched"),
            };
            if CheckOption::of_options(&options) != CheckOption::None {
                let mut checked = def.clone();
                checked.options = options.clone();
                crate::updatable_views::check_option_allowed(cx, txn, &checked)?;
            }
            catalog.set_view_options(txn, &name, options)?;
        }
        // A table's storage options (`storage_options.rs`).
        Action::Set(_) | Action::Reset(_) => {
            crate::storage_options::alter(cx, txn, &name, &alter.action)?;
        }
        Action::SetSchema(schema) => {
            crate::set_schema::check_target(cx, txn, &name, schema)?;
            let new = folio_catalog::qualified_name(schema, folio_catalog::unqualified(&name));
            if view.is_none() {
                crate::set_schema::move_table(cx, txn, &name, oid, schema)?;
            } else if new != name {
                catalog.rename(txn, &name, &new)?;
                let renamed = crate::view_renames::Renamed::Relation {
                    old: &name,
                    new: &new,
                };
                crate::view_renames::follow(cx, txn, oid, renamed)?;
                crate::views::check_after_alter(
                    cx,
                    txn,
                    &new,
                    oid,
                    crate::views::Alteration::Other,
                )?;
            }
        }
        Action::OwnerTo(role) => {
            let owner =
                crate::roles::get(cx.db, role)?.ok_or_else(|| crate::roles::undefined(role))?;
            crate::privileges::check_new_owner(cx, txn, oid, &name, &owner)?;
            crate::privileges::change_owner(cx.db, oid, &owner)?;
        }
    }
    cx.relations.ddl();
    Ok(Output::command(tag))
}
