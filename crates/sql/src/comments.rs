//! `COMMENT ON {TABLE | INDEX | VIEW | SEQUENCE | COLUMN | CONSTRAINT |
//! DOMAIN | TYPE} ... IS 'text' | NULL` (a user type's comment is kept
//! as a relation's: types are class rows): the object resolved as PostgreSQL resolves it
//! (its errors: 42P01 for a missing relation, 42809 for one of another
//! kind, 42703 for a missing column, 42704 for a missing constraint),
//! then kept in the catalog (folio-catalog `descriptions.rs`), where
//! `obj_description`, `col_description` and `pg_description` read it
//! (`lookups.rs`, `system.rs`). An empty text removes the comment, as
//! PostgreSQL's.

use crate::context::Ctx;
use crate::error::SqlError;
use crate::output::{Notice, Output};
use crate::parse::{Comment, CommentOn};
use folio_catalog::Described;
use folio_db::Transaction;

/// Runs `COMMENT ON ...`.
pub fn comment(
    cx: &Ctx<'_>,
    txn: &mut Transaction,
    _notices: &mut Vec<Notice>,
    comment: &Comment,
) -> Result<Output, SqlError> {
    let catalog = cx.db.catalog();
    let (relation, on) = match &comment.on {
        CommentOn::Table(name) => (
            relation_of(cx, txn, name, 'r', "a table")?,
            Described::Relation,
        ),
        CommentOn::Index(name) => (
            relation_of(cx, txn, name, 'i', "an index")?,
            Described::Relation,
        ),
        CommentOn::View(name) => (
            relation_of(cx, txn, name, 'v', "a view")?,
            Described::Relation,
        ),
        CommentOn::Matview(name) => (
            relation_of(cx, txn, name, 'm', "a materialized view")?,
            Described::Relation,
        ),
        CommentOn::Sequence(name) => (
            relation_of(cx, txn, name, 'S', "a sequence")?,
            Described::Relation,
        ),
        CommentOn::Column { relation, column } => {
            let name = crate::temp_tables::resolve_name(cx, txn, relation)?;
            let (oid, kind) = catalog
                .relation_oid(txn, &name)?
                .ok_or_else(|| SqlError::undefined_table(relation))?;
            let missing = || {
                SqlError::new(
                    "42703",
                    format!("column \"{column}\" of relation \"{relation}\" does not exist"),
                )
            };
            let slot = match kind {
                'r' | 'm' => {
                    let def = catalog
                        .table(txn, &name)?
                        .ok_or_else(|| SqlError::undefined_table(relation))?;
                    def.layout.slot(def.column(column).ok_or_else(missing)?)
                }
                'v' => {
                    let view = catalog
                        .view(txn, &name)?
                        .ok_or_else(|| SqlError::undefined_table(relation))?;
                    let position = (view.def.columns.iter())
                        .position(|c| c.name == *column)
                        .ok_or_else(missing)?;
                    position as u16
                }
                _ => {
                    return Err(SqlError::new(
                        "42809",
                        format!("cannot set comment on relation \"{relation}\""),
                    )
                    .with_detail(format!(
                        "This operation is not supported for {}.",
                        kind_plural(kind)
                    )));
                }
            };
            (oid, Described::Column(slot))
        }
        CommentOn::Constraint { name, table } => {
            let resolved = crate::temp_tables::resolve_name(cx, txn, table)?;
            let def = catalog
                .table(txn, &resolved)?
                .ok_or_else(|| SqlError::undefined_table(table))?;
            // A PRIMARY KEY or UNIQUE constraint is its index in folio:
            // its comment lives under the index, and goes with it.
            if let Some(index) = def.indexes.iter().find(|i| i.constraint && i.name == *name) {
                (index.oid, Described::Constraint(index.oid))
            } else {
                let constraint = (def.constraints.iter())
                    .find(|c| !c.name.is_empty() && c.name == *name)
                    .ok_or_else(|| {
                        SqlError::new(
                            "42704",
                            format!("constraint \"{name}\" for table \"{table}\" does not exist"),
                        )
                    })?;
                (def.oid, Described::Constraint(constraint.oid))
            }
        }
        CommentOn::Type { name, domain } => {
            (type_oid(cx, txn, name, *domain)?, Described::Relation)
        }
        CommentOn::DomainConstraint { name, domain } => {
            let oid = type_oid(cx, txn, domain, true)?;
            let def = (catalog.domain_type(txn, domain)?).ok_or_else(|| no_type(domain))?;
            let check = (def.checks.iter())
                .find(|c| c.name == *name)
                .ok_or_else(|| {
                    SqlError::new(
                        "42704",
                        format!("constraint \"{name}\" for domain {domain} does not exist"),
                    )
                })?;
            (oid, Described::Constraint(check.oid.into()))
        }
    };
    catalog.set_description(txn, relation, on, comment.text.as_deref())?;
    Ok(Output::command("COMMENT"))
}

/// The oid of relation `name`, which must be of `kind` (42809 `"name" is
/// not {what}` otherwise, PostgreSQL's).
fn relation_of(
    cx: &Ctx<'_>,
    txn: &Transaction,
    name: &str,
    kind: char,
    what: &str,
) -> Result<u64, SqlError> {
    let resolved = crate::temp_tables::resolve_name(cx, txn, name)?;
    match cx.db.catalog().relation_oid(txn, &resolved)? {
        Some((oid, k)) if k == kind => Ok(oid),
        Some(_) => Err(SqlError::new(
            "42809",
            format!("\"{}\" is not {what}", folio_catalog::unqualified(name)),
        )),
        None => Err(SqlError::undefined_table(name)),
    }
}

/// 42704 `type "name" does not exist`.
fn no_type(name: &str) -> SqlError {
    SqlError::new("42704", format!("type \"{name}\" does not exist"))
}

/// The oid of user type `name` (a domain, enum or composite type; a
/// domain when `domain`: 42809 `"name" is not a domain` otherwise), a
/// class row as a relation's, so its comment is kept as a relation's.
fn type_oid(cx: &Ctx<'_>, txn: &Transaction, name: &str, domain: bool) -> Result<u64, SqlError> {
    let catalog = cx.db.catalog();
    if let Some(d) = catalog.domain_type(txn, name)? {
        return Ok(d.oid.into());
    }
    let oid = match catalog.enum_type(txn, name)? {
        Some(e) => Some(e.oid),
        None => catalog.composite_type(txn, name)?.map(|c| c.oid),
    };
    match oid {
        Some(_) if domain => Err(SqlError::new(
            "42809",
            format!("\"{name}\" is not a domain"),
        )),
        Some(oid) => Ok(oid.into()),
        None => Err(no_type(name)),
    }
}

/// PostgreSQL's plural of a relation kind, for its DETAILs.
pub(crate) fn kind_plural(kind: char) -> &'static str {
    match kind {
        'i' => "indexes",
        'S' => "sequences",
        'v' => "views",
        'm' => "materialized views",
        _ => "tables",
    }
}

/// The comments PostgreSQL 15's initdb gives the built-in objects folio
/// has too: `(catalog, object's oid, text)`, the catalog being the one
/// `obj_description` and `shobj_description` name. They are
/// `pg_description` rows too (but the database's, a shared object's).
pub const BUILTIN: [(&str, i64, &str); 6] = [
    ("pg_namespace", 11, "system catalog schema"),
    ("pg_namespace", 2200, "standard public schema"),
    (
        "pg_language",
        crate::system_proc::INTERNAL_LANGUAGE,
        "built-in functions",
    ),
    (
        "pg_language",
        crate::system_proc::SQL_LANGUAGE,
        "SQL-language functions",
    ),
    (
        "pg_language",
        crate::system_proc::PLPGSQL_LANGUAGE,
        "PL/pgSQL procedural language",
    ),
    (
        "pg_database",
        crate::system::DATABASE_OID,
        "default administrative connection database",
    ),
];

/// The built-in comment on object `oid` of `catalog` (any catalog when
/// `None`).
pub fn builtin(oid: i64, catalog: Option<&str>) -> Option<&'static str> {
    BUILTIN
        .iter()
        .find(|(c, o, _)| *o == oid && catalog.is_none_or(|want| want == *c))
        .map(|(_, _, text)| *text)
}
