//! Extensions: `CREATE EXTENSION` and `DROP EXTENSION` of the two whose
//! functions folio has built in (`pgcrypto`, `uuid-ossp`:
//! `crypto_functions.rs`), recorded in the catalog (folio-catalog
//! `extensions.rs`) for `pg_extension` and psql's `\dx`. Any other name is
//! PostgreSQL's 0A000 `extension "x" is not available`.
//!
//! As in PostgreSQL, an extension's functions exist only while it does:
//! the session puts the statement's extensions into this thread's scope
//! (`object_scope.rs`), and the
//! binder asks [`installed`] before it binds a call of one (42883
//! otherwise).

use crate::error::SqlError;
use crate::output::{Notice, Output};
use folio_db::Database;
use folio_txn::Transaction;
use sqlparser::ast::Ident;

/// An extension folio has: its name, the version `pg_extension` shows
/// (PostgreSQL 15's) and what psql's `\dx` says of it.
pub struct Known {
    pub name: &'static str,
    pub version: &'static str,
    pub comment: &'static str,
}

pub const KNOWN: [Known; 2] = [
    Known {
        name: "pgcrypto",
        version: "1.3",
        comment: "cryptographic functions",
    },
    Known {
        name: "uuid-ossp",
        version: "1.1",
        comment: "generate universally unique identifiers (UUIDs)",
    },
];

/// The extension folio knows by `name`.
pub fn known(name: &str) -> Option<&'static Known> {
    KNOWN.iter().find(|k| k.name == name)
}

/// Whether extension `name` exists for the statement being bound: the one
/// rule for whether its functions may be called.
pub fn installed(name: &str) -> bool {
    crate::object_scope::with(|lists| {
        lists.is_some_and(|l| l.extensions.iter().any(|e| e.name == name))
    })
}

/// `CREATE EXTENSION [IF NOT EXISTS] name [SCHEMA public] [VERSION v]
/// [CASCADE]`.
pub fn create(
    db: &Database,
    txn: &mut Transaction,
    notices: &mut Vec<Notice>,
    name: &Ident,
    if_not_exists: bool,
    schema: Option<&Ident>,
    version: Option<&Ident>,
) -> Result<Output, SqlError> {
    let name = crate::names::ident(name);
    let Some(known) = known(&name) else {
        return Err(
            SqlError::new("0A000", format!("extension \"{name}\" is not available"))
                .with_hint("folio has the extensions pgcrypto and uuid-ossp built in."),
        );
    };
    if db.catalog().extensions(txn)?.iter().any(|e| e.name == name) {
        if if_not_exists {
            notices.push(Notice {
                code: "42710",
                ..Notice::info(format!("extension \"{name}\" already exists, skipping"))
            });
            return Ok(Output::command("CREATE EXTENSION"));
        }
        return Err(folio_catalog::CatalogError::ExtensionExists(name).into());
    }
    if let Some(schema) = schema.map(crate::names::ident)
        && schema != folio_catalog::PUBLIC
    {
        return Err(SqlError::unsupported(format!(
            "CREATE EXTENSION ... SCHEMA {schema} (extensions are in public)"
        )));
    }
    if let Some(version) = version.map(crate::names::ident)
        && version != known.version
    {
        return Err(SqlError::unsupported(format!(
            "CREATE EXTENSION {name} VERSION '{version}' (folio has version {})",
            known.version
        )));
    }
    db.catalog().create_extension(txn, &name)?;
    Ok(Output::command("CREATE EXTENSION"))
}

/// `DROP EXTENSION [IF EXISTS] name, ... [CASCADE | RESTRICT]` (nothing
/// depends on an extension here, so CASCADE drops only it).
pub fn drop(
    db: &Database,
    txn: &mut Transaction,
    notices: &mut Vec<Notice>,
    names: &[Ident],
    if_exists: bool,
) -> Result<Output, SqlError> {
    let existing = db.catalog().extensions(txn)?;
    for name in names.iter().map(crate::names::ident) {
        if !existing.iter().any(|e| e.name == name) {
            if if_exists {
                notices.push(Notice::info(format!(
                    "extension \"{name}\" does not exist, skipping"
                )));
                continue;
            }
            return Err(folio_catalog::CatalogError::NoSuchExtension(name).into());
        }
        db.catalog().drop_extension(txn, &name)?;
    }
    Ok(Output::command("DROP EXTENSION"))
}

/// `pg_extension`'s rows: each created extension, owned by the bootstrap
/// superuser, in `public`, relocatable, no configuration tables.
pub fn rows(
    catalog: &folio_catalog::Catalog,
    txn: &Transaction,
) -> Result<Vec<Vec<folio_row::Value>>, SqlError> {
    use folio_row::Value;
    let oid = |n: u64| crate::catalog_functions::oid_value(n as i64);
    Ok((catalog.extensions(txn)?.into_iter())
        .map(|e| {
            let version = known(&e.name).map_or("", |k| k.version);
            vec![
                oid(e.oid),
                Value::Text(e.name),
                oid(u64::from(crate::roles::SUPERUSER_OID)),
                oid(folio_catalog::PUBLIC_OID),
                Value::Bool(true),
                Value::Text(version.to_string()),
                Value::Null,
                Value::Null,
            ]
        })
        .collect())
}

/// Each created extension's oid and comment (`pg_description`'s rows of
/// `pg_extension`, which psql's `\dx` shows).
pub fn comments(
    catalog: &folio_catalog::Catalog,
    txn: &Transaction,
) -> Result<Vec<(i64, &'static str)>, SqlError> {
    Ok((catalog.extensions(txn)?.into_iter())
        .filter_map(|e| known(&e.name).map(|k| (e.oid as i64, k.comment)))
        .collect())
}
