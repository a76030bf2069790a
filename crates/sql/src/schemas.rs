//! Schemas: `CREATE SCHEMA`, `DROP SCHEMA`, `ALTER SCHEMA ... RENAME`,
//! the session's `search_path`, and the one rule of which schema a name
//! means (design: folio-catalog README "Schemas", folio-sql README
//! "Schemas").
//!
//! A relation in schema `s` is the catalog name `s.name` (`public`'s are
//! bare), so a qualified name needs no lookup: `names::relation` maps
//! `s.name` to it. An unqualified one is resolved once, at plan time, by
//! [`SearchPath`]: before a statement is planned, `temp_tables::resolve`
//! rewrites each unqualified relation name it uses to the first schema of
//! the path that has the relation (the session's temporary namespace
//! first, as PostgreSQL's `pg_temp`; `pg_catalog`'s relations are
//! folio's system relations, found by name downstream), and each name a
//! statement creates to its creation schema ([`SearchPath::creation`]).
//! A session whose path is the default and whose database has no schema
//! pays one flag read. A kept plan is made again when the session's
//! `search_path` changes (`Session::path_changed`).

use crate::context::Ctx;
use crate::error::SqlError;
use crate::names;
use crate::output::{Notice, Output};
use folio_catalog::SchemaMember;
use folio_db::{Database, Transaction};
use sqlparser::ast::{ObjectName, ObjectNamePart, ObjectType, SchemaName};

pub use folio_catalog::PUBLIC;

/// The `$user` entry of a search path: the session's role.
const USER: &str = "$user";

/// `SET search_path = value`: its comma-separated schema names, each
/// folded as an identifier (a quoted one kept as written).
pub fn parse_search_path(value: &str) -> Result<Vec<String>, SqlError> {
    let mut out = Vec::new();
    let mut chars = value.chars().peekable();
    loop {
        while chars.peek().is_some_and(|c| c.is_whitespace()) {
            chars.next();
        }
        let mut item = String::new();
        if chars.peek() == Some(&'"') {
            chars.next();
            item = crate::names::quoted_rest(&mut chars).ok_or_else(|| {
                SqlError::new(
                    "22023",
                    "invalid value for parameter \"search_path\": unterminated quote",
                )
            })?;
            while chars.peek().is_some_and(|c| c.is_whitespace()) {
                chars.next();
            }
        } else {
            while let Some(c) = chars.peek().copied().filter(|c| *c != ',') {
                item.push(c.to_ascii_lowercase());
                chars.next();
            }
            item = item.trim_end().to_string();
        }
        out.push(item);
        match chars.next() {
            None => return Ok(out),
            Some(',') => {}
            Some(_) => {
                return Err(SqlError::new(
                    "22023",
                    format!("invalid value for parameter \"search_path\": \"{value}\""),
                ));
            }
        }
    }
}

/// `SHOW search_path`: the names as PostgreSQL prints them (quoted where
/// an identifier needs it: `"$user", public`).
pub fn show_search_path(path: &[String]) -> String {
    (path.iter())
        .map(|s| names::written(s).to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// The schemas a session's unqualified names are looked up in, in order:
/// those of its `search_path` that exist (`$user` is the session's role's
/// schema, skipped when there is none; `pg_catalog` and `pg_temp` are
/// searched by their own rules).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SearchPath {
    schemas: Vec<String>,
}

impl SearchPath {
    /// The session's path as `txn` sees the catalog.
    pub fn of(cx: &Ctx<'_>, txn: &Transaction) -> Result<SearchPath, SqlError> {
        let catalog = cx.db.catalog();
        let set = cx.settings.search_path();
        if !catalog.has_schemas(txn)? && set.iter().all(|s| s == USER || s == PUBLIC) {
            let schemas = match set.iter().any(|s| s == PUBLIC) {
                true => vec![PUBLIC.to_string()],
                false => Vec::new(),
            };
            return Ok(SearchPath { schemas });
        }
        let mut schemas: Vec<String> = Vec::new();
        for entry in set {
            let name = match entry.as_str() {
                USER => crate::roles::SUPERUSER,
                other => other,
            };
            if schemas.iter().any(|s| s == name) || matches!(name, "pg_catalog" | "pg_temp") {
                continue;
            }
            if name == PUBLIC || catalog.schema(txn, name)?.is_some() {
                schemas.push(name.to_string());
            }
        }
        Ok(SearchPath { schemas })
    }

    /// Whether unqualified names mean `public`'s relations alone (then
    /// nothing is rewritten).
    pub fn is_public_only(&self) -> bool {
        self.schemas.len() == 1 && self.schemas[0] == PUBLIC
    }

    /// The schemas, in order.
    pub fn schemas(&self) -> &[String] {
        &self.schemas
    }

    /// The schema whose relation `name` an unqualified `name` means: the
    /// first of the path that has one (`None`: no schema of the path has
    /// it).
    pub fn find(
        &self,
        db: &Database,
        txn: &Transaction,
        name: &str,
    ) -> Result<Option<&str>, SqlError> {
        for schema in &self.schemas {
            let stored = folio_catalog::qualified_name(schema, name);
            if db.catalog().relation_exists(txn, &stored)? {
                return Ok(Some(schema));
            }
        }
        Ok(None)
    }

    /// Catalog name `stored` as PostgreSQL's descriptions of objects name
    /// it (`table "Mx"."T"`, `drop cascades to ...`): bare when a bare name
    /// finds it, else qualified, each part quoted if it needs it.
    pub fn shown(
        &self,
        db: &Database,
        txn: &Transaction,
        stored: &str,
    ) -> Result<String, SqlError> {
        let (schema, bare) = folio_catalog::split_schema(stored);
        Ok(match self.find(db, txn, bare)? {
            Some(found) if found == schema => names::written(bare).to_string(),
            _ => names::stored_written(stored, true),
        })
    }

    /// The schema an unqualified CREATE puts its relation in: the first
    /// of the path (3F000 when the path has none, as PostgreSQL's).
    pub fn creation(&self) -> Result<&str, SqlError> {
        self.schemas
            .first()
            .map(String::as_str)
            .ok_or_else(|| SqlError::new("3F000", "no schema has been selected to create in"))
    }
}

/// `schema.name` as an object name (the form the resolver writes).
pub fn qualified(schema: &str, name: &str) -> ObjectName {
    ObjectName(vec![
        ObjectNamePart::Identifier(names::written(schema)),
        ObjectNamePart::Identifier(names::written(name)),
    ])
}

/// The object name of a catalog name (`app.t`, or bare `t`).
fn object_name(stored: &str) -> ObjectName {
    let (schema, bare) = folio_catalog::split_schema(stored);
    qualified(schema, bare)
}

/// The one schema name `name` must be (a schema's name is one part).
fn schema_name(name: &ObjectName) -> Result<String, SqlError> {
    match names::parts(name).as_deref() {
        Some([one]) => Ok(one.clone()),
        _ => Err(SqlError::syntax(format!(
            "improper qualified name (too many dotted names): {name}"
        ))),
    }
}

/// The name of the schema a CREATE SCHEMA makes (`AUTHORIZATION r`
/// alone: the role's name).
pub fn created_name(schema: &SchemaName) -> Result<String, SqlError> {
    match schema {
        SchemaName::Simple(name) | SchemaName::NamedAuthorization(name, _) => schema_name(name),
        SchemaName::UnnamedAuthorization(role) => Ok(names::ident(role)),
    }
}

/// `CREATE SCHEMA [IF NOT EXISTS] name [AUTHORIZATION role]`
/// (`AUTHORIZATION role` alone names the schema after the role).
pub fn create(
    db: &Database,
    txn: &mut Transaction,
    notices: &mut Vec<Notice>,
    schema: &SchemaName,
    if_not_exists: bool,
) -> Result<Output, SqlError> {
    let name = created_name(schema)?;
    let role = match schema {
        SchemaName::Simple(_) => None,
        SchemaName::UnnamedAuthorization(role) | SchemaName::NamedAuthorization(_, role) => {
            Some(names::ident(role))
        }
    };
    if let Some(role) = role
        && crate::roles::get(db, &role)?.is_none()
    {
        return Err(crate::roles::undefined(&role));
    }
    if if_not_exists
        && (name == PUBLIC
            || matches!(name.as_str(), "pg_catalog" | "information_schema")
            || db.catalog().schema(txn, &name)?.is_some())
    {
        notices.push(Notice::info(format!(
            "schema \"{name}\" already exists, skipping"
        )));
        return Ok(Output::command("CREATE SCHEMA"));
    }
    db.catalog().create_schema(txn, &name)?;
    Ok(Output::command("CREATE SCHEMA"))
}

/// `DROP SCHEMA [IF EXISTS] name, ... [CASCADE | RESTRICT]`: under
/// CASCADE what is in each schema is dropped first (views, materialized
/// views, tables with their indexes and owned sequences, sequences, enum
/// types), then the schema (folio-catalog `drop_schema`, 2BP01 while
/// anything is left).
pub fn drop(
    cx: &Ctx<'_>,
    txn: &mut Transaction,
    notices: &mut Vec<Notice>,
    if_exists: bool,
    schemas: &[ObjectName],
    cascade: bool,
) -> Result<Output, SqlError> {
    let db = cx.db;
    let mut cascaded = Vec::new();
    for name in schemas {
        let name = schema_name(name)?;
        if name != PUBLIC && db.catalog().schema(txn, &name)?.is_none() {
            if if_exists {
                notices.push(Notice::info(format!(
                    "schema \"{name}\" does not exist, skipping"
                )));
                continue;
            }
            return Err(SqlError::new(
                "3F000",
                format!("schema \"{name}\" does not exist"),
            ));
        }
        db.catalog().lock_schema(txn, &name, false)?;
        let members = db.catalog().schema_members(txn, &name)?;
        let path = SearchPath::of(cx, txn)?;
        let mut described = Vec::with_capacity(members.len());
        for member in &members {
            let shown = match crate::sql_functions::shown_member(&member.name) {
                Some(function) => function,
                None => path.shown(db, txn, &member.name)?,
            };
            described.push(format!("{} {shown}", member.kind));
        }
        if !cascade && !described.is_empty() {
            // PostgreSQL's DETAIL: one line per object in it.
            let detail = (described.iter())
                .map(|d| format!("{d} depends on schema {name}"))
                .collect::<Vec<_>>()
                .join("\n");
            return Err(SqlError::new(
                "2BP01",
                format!("cannot drop schema {name} because other objects depend on it"),
            )
            .with_detail(detail)
            .with_hint("Use DROP ... CASCADE to drop the dependent objects too."));
        }
        drop_members(cx, txn, &members)?;
        cascaded.extend(described);
        db.catalog().drop_schema(txn, &name)?;
        txn.next_statement();
    }
    notices.extend(Notice::cascaded(&cascaded));
    Ok(Output::command("DROP SCHEMA"))
}

/// Drops `members` of a schema (each drop's own notices are about
/// objects the schema's notice names already).
fn drop_members(
    cx: &Ctx<'_>,
    txn: &mut Transaction,
    members: &[SchemaMember],
) -> Result<(), SqlError> {
    let mut scratch = Vec::new();
    let of = |kind: &str| -> Vec<ObjectName> {
        (members.iter())
            .filter(|m| m.kind == kind)
            .map(|m| object_name(&m.name))
            .collect()
    };
    // Functions first: nothing of a schema depends on them in folio.
    for m in members.iter().filter(|m| m.kind == "function") {
        if let Some((name, signature)) = m.name.split_once('\0') {
            cx.db.catalog().drop_function(txn, name, signature)?;
        }
    }
    for kind in ["view", "materialized view", "table", "sequence", "type"] {
        let mut names = of(kind);
        if names.is_empty() {
            continue;
        }
        // (A partitioned table's partitions go before it, as DROP TABLE's.)
        if kind == "table"
            && let Some(ordered) = crate::partitions::ddl::with_partitions(cx, txn, &names)?
        {
            names = ordered;
        }
        match kind {
            "view" => crate::views::drop(cx.db, txn, &mut scratch, true, &names, true)?,
            "materialized view" => crate::ddl::drop(
                cx.db,
                txn,
                &mut scratch,
                ObjectType::MaterializedView,
                true,
                &names,
                true,
            )?,
            "table" => crate::ddl::drop(
                cx.db,
                txn,
                &mut scratch,
                ObjectType::Table,
                true,
                &names,
                true,
            )?,
            "sequence" => crate::sequences::drop(cx, txn, &mut scratch, (true, true), &names)?,
            _ => crate::enum_types::drop(cx, txn, &mut scratch, true, &names, true)?,
        };
        txn.next_statement();
    }
    Ok(())
}

/// `ALTER SCHEMA name RENAME TO new`; 0A000 when a stored text names one
/// of its relations (a view's query reading one, a column default naming
/// one of its sequences), which folio's text cannot follow.
pub fn rename(
    cx: &Ctx<'_>,
    txn: &mut Transaction,
    name: &ObjectName,
    new: &ObjectName,
) -> Result<Output, SqlError> {
    let db = cx.db;
    let (old, new) = (schema_name(name)?, schema_name(new)?);
    if db.catalog().schema(txn, &old)?.is_none() {
        return Err(SqlError::new(
            "3F000",
            format!("schema \"{old}\" does not exist"),
        ));
    }
    if old != new && db.catalog().schema(txn, &new)?.is_some() {
        return Err(SqlError::new(
            "42P06",
            format!("schema \"{new}\" already exists"),
        ));
    }
    db.catalog().lock_schema(txn, &old, false)?;
    let members = db.catalog().schema_members(txn, &old)?;
    let in_schema = |stored: &str| folio_catalog::split_schema(stored).0 == old;
    let mut oids: Vec<u64> = (db.catalog().tables(txn)?.iter())
        .filter(|t| in_schema(&t.name))
        .map(|t| t.oid)
        .collect();
    let readers = db.catalog().readers(txn)?;
    oids.extend(readers.iter().filter(|v| in_schema(&v.name)).map(|v| v.oid));
    let named_in_text = members.iter().any(|m| m.kind == "sequence")
        || (db.catalog().sequences(txn)?.iter()).any(|s| in_schema(&s.name))
        || (readers.iter()).any(|view| view.depends_on.iter().any(|oid| oids.contains(oid)));
    if named_in_text {
        return Err(SqlError::unsupported(format!(
            "ALTER SCHEMA {old} RENAME while a view or a sequence names its relations"
        )));
    }
    db.catalog().rename_schema(txn, &old, &new)?;
    cx.relations.ddl();
    Ok(Output::command("ALTER SCHEMA"))
}
