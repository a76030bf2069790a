//! Schemas (namespaces): their `folio.class` rows, and the one form of a
//! relation's catalog name in a schema (design: README "Schemas").
//!
//! A relation in schema `s` other than `public` is stored under the
//! catalog name `s.name` (temporary namespaces `pg_temp_N` are such
//! schemas: `temp.rs`); a relation in `public` under its bare name, so
//! databases made before schemas existed open unchanged. The unique index
//! on `folio.class` names therefore keeps names unique per schema. A
//! schema itself is a `folio.class` row of kind `n` (no storage) named
//! `s.` (no relation has an empty bare name, so it collides with none).

use crate::catalog::{Catalog, check_name, corrupt};
use crate::defs::{ClassRow, KIND_INDEX, KIND_SCHEMA, KIND_SEQUENCE};
use crate::error::CatalogError;
use folio_heap::Tid;
use folio_page::PageId;
use folio_txn::{LockMode, Transaction};

/// The schema every database has, where bare catalog names live.
pub const PUBLIC: &str = "public";
/// `public`'s oid (PostgreSQL's).
pub const PUBLIC_OID: u64 = 2200;
/// `pg_catalog`'s oid (PostgreSQL's).
pub const PG_CATALOG_OID: u64 = 11;

/// A user schema: its oid and name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SchemaDef {
    pub oid: u64,
    pub name: String,
}

/// A relation or type in a schema ([`Catalog::schema_members`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SchemaMember {
    pub oid: u64,
    /// Its catalog name (`schema.name`).
    pub name: String,
    /// What PostgreSQL's messages call its kind: `table`, `view`,
    /// `materialized view`, `sequence`, `type`.
    pub kind: &'static str,
}

/// The catalog name of relation `name` in schema `schema`.
pub fn qualified_name(schema: &str, name: &str) -> String {
    match schema {
        PUBLIC => name.to_string(),
        _ => format!("{schema}.{name}"),
    }
}

/// The schema and bare name of a catalog name made by
/// [`qualified_name`] (`public` for a bare one).
pub fn split_schema(stored: &str) -> (&str, &str) {
    stored.split_once('.').unwrap_or((PUBLIC, stored))
}

/// Relation `name` (a catalog name) placed in `relation`'s schema when it
/// is bare: an index's name in its table's schema.
pub(crate) fn in_schema_of(relation: &str, name: &str) -> String {
    match (name.contains('.'), split_schema(relation)) {
        (false, (schema, _)) => qualified_name(schema, name),
        (true, _) => name.to_string(),
    }
}

/// The catalog name of schema `name`'s own row.
fn row_name(name: &str) -> String {
    format!("{name}.")
}

/// A schema name the catalog cannot take: one PostgreSQL reserves (42939,
/// its message and detail), or one with a `.`, which the form of catalog
/// names cannot hold (0A000).
fn check_schema_name(name: &str) -> Result<(), CatalogError> {
    check_name(name)?;
    if name.starts_with("pg_") {
        return Err(CatalogError::ReservedSchema(name.to_string()));
    }
    if name.contains('.') {
        return Err(CatalogError::DottedName(name.to_string()));
    }
    Ok(())
}

impl Catalog {
    /// Every user schema `txn` sees, by name (`public` is not one).
    pub fn schemas(&self, txn: &Transaction) -> Result<Vec<SchemaDef>, CatalogError> {
        let mut out: Vec<SchemaDef> = (self.class_rows(txn)?.into_iter())
            .filter(|(_, c)| c.kind == KIND_SCHEMA)
            .map(|(_, c)| SchemaDef {
                oid: c.oid,
                name: c.name.trim_end_matches('.').to_string(),
            })
            .collect();
        out.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(out)
    }

    /// Whether the database may have a user schema (false: it has none,
    /// known without reading the catalog again until a CREATE SCHEMA).
    pub fn has_schemas(&self, txn: &Transaction) -> Result<bool, CatalogError> {
        use std::sync::atomic::Ordering;
        match self.schemas_seen.load(Ordering::Acquire) {
            1 => Ok(false),
            2 => Ok(true),
            _ => {
                let seen = if self.schemas(txn)?.is_empty() { 1 } else { 2 };
                // A schema another transaction is creating set 2 itself;
                // only "unknown" becomes "none".
                let _ = (self.schemas_seen).compare_exchange(
                    0,
                    seen,
                    Ordering::AcqRel,
                    Ordering::Acquire,
                );
                Ok(seen == 2)
            }
        }
    }

    /// User schema `name` as `txn` sees it (one index probe).
    pub fn schema(&self, txn: &Transaction, name: &str) -> Result<Option<SchemaDef>, CatalogError> {
        Ok(self.schema_row(txn, name)?.map(|(_, c)| SchemaDef {
            oid: c.oid,
            name: name.to_string(),
        }))
    }

    fn schema_row(
        &self,
        txn: &Transaction,
        name: &str,
    ) -> Result<Option<(Tid, ClassRow)>, CatalogError> {
        Ok(self
            .class(txn, &row_name(name))?
            .filter(|(_, c)| c.kind == KIND_SCHEMA))
    }

    /// `CREATE SCHEMA name`: 42P06 if it exists (after waiting for a
    /// running creator of the name), 42939 for a `pg_` name.
    pub fn create_schema(&self, txn: &mut Transaction, name: &str) -> Result<u64, CatalogError> {
        if matches!(name, PUBLIC | "pg_catalog" | "information_schema") {
            return Err(CatalogError::SchemaExists(name.to_string()));
        }
        check_schema_name(name)?;
        (self.schemas_seen).store(2, std::sync::atomic::Ordering::Release);
        let oid = self.next_oid()?;
        let class = ClassRow::new(oid, &row_name(name), KIND_SCHEMA, PageId(0));
        self.in_savepoint(txn, |txn| self.insert_class(txn, &class))
            .map_err(|e| match e {
                CatalogError::Exists(_) => CatalogError::SchemaExists(name.to_string()),
                other => other,
            })?;
        Ok(oid)
    }

    /// Locks schema `name`'s row: `FOR SHARE` by a creator of a relation
    /// in it (a concurrent DROP or RENAME of the schema waits, then sees
    /// the relation), `FOR UPDATE` by DROP and RENAME. 3F000 if it does
    /// not exist (or was dropped meanwhile). `public` has no row: nothing
    /// to lock, it cannot be dropped.
    pub fn lock_schema(
        &self,
        txn: &mut Transaction,
        name: &str,
        shared: bool,
    ) -> Result<(), CatalogError> {
        if name == PUBLIC || crate::temp::temp_schema_number(name).is_some() {
            return Ok(());
        }
        let missing = || CatalogError::NoSuchSchema(name.to_string());
        let (tid, _) = self.schema_row(txn, name)?.ok_or_else(missing)?;
        self.lock_class_row_as(txn, tid, missing, shared)?;
        // Read again under the lock: dropped meanwhile is missing.
        self.schema_row(txn, name)?.ok_or_else(missing)?;
        Ok(())
    }

    /// The relations and types in schema `name` (tables, views,
    /// sequences, materialized views, enum types; not indexes nor a
    /// column's sequence, which go with their tables), with the newest
    /// committed catalog, in the order they were made.
    pub fn schema_members(
        &self,
        txn: &mut Transaction,
        name: &str,
    ) -> Result<Vec<SchemaMember>, CatalogError> {
        let rows = txn.with_latest_snapshot(|txn| self.class_rows(txn))?;
        let mut out: Vec<SchemaMember> = rows
            .into_iter()
            .filter(|(_, c)| c.kind != KIND_SCHEMA && c.kind != KIND_INDEX)
            .filter(|(_, c)| !(c.kind == KIND_SEQUENCE && c.table_oid != 0))
            .filter(|(_, c)| c.name.split_once('.').is_some_and(|(s, _)| s == name))
            .map(|(_, c)| SchemaMember {
                oid: c.oid,
                kind: kind_word(c.kind),
                name: c.name,
            })
            .collect();
        out.sort_by_key(|m| m.oid);
        Ok(out)
    }

    /// `DROP SCHEMA name` of an empty schema (the SQL layer drops its
    /// members first under CASCADE): locks it, 2BP01 naming what is left
    /// in it otherwise.
    pub fn drop_schema(&self, txn: &mut Transaction, name: &str) -> Result<(), CatalogError> {
        if name == PUBLIC {
            return Err(CatalogError::Unsupported("DROP SCHEMA public".into()));
        }
        self.lock_schema(txn, name, false)?;
        let members = self.schema_members(txn, name)?;
        if !members.is_empty() {
            let object = format!("schema {name}");
            return Err(CatalogError::DependedOn {
                dependents: (members.iter())
                    .map(|m| (format!("{} {}", m.kind, m.name), object.clone()))
                    .collect(),
                object,
            });
        }
        let missing = || CatalogError::NoSuchSchema(name.to_string());
        let (tid, _) = self.schema_row(txn, name)?.ok_or_else(missing)?;
        self.delete_class_row(txn, tid)
    }

    /// `ALTER SCHEMA old RENAME TO new`: the schema's row and every
    /// relation's in it renamed (`old.x` becomes `new.x`), each relation
    /// under its DDL lock (`ACCESS EXCLUSIVE`, so cached plans of it are
    /// made again). The SQL layer refuses it first where a stored text
    /// names a relation of the schema (a view's query, a serial's
    /// default).
    pub fn rename_schema(
        &self,
        txn: &mut Transaction,
        old: &str,
        new: &str,
    ) -> Result<(), CatalogError> {
        if old == PUBLIC {
            return Err(CatalogError::Unsupported(
                "ALTER SCHEMA public RENAME".into(),
            ));
        }
        check_schema_name(new)?;
        self.lock_schema(txn, old, false)?;
        if self.schema_row(txn, new)?.is_some() || new == PUBLIC {
            return Err(CatalogError::SchemaExists(new.to_string()));
        }
        let prefix = row_name(old);
        let rows = self.class_rows(txn)?;
        for (_, class) in &rows {
            if class.kind != KIND_SCHEMA && class.name.starts_with(&prefix) {
                txn.lock_table(class.oid, LockMode::AccessExclusive)?;
                let me = txn.existing_xid().expect("a lock gives an xid");
                self.ddl_marks.of(class.oid).note(txn.manager(), me)?;
            }
        }
        let (tid, row) = (self.schema_row(txn, old)?)
            .ok_or_else(|| CatalogError::NoSuchSchema(old.to_string()))?;
        self.rename_class_row(txn, tid, row, &row_name(new))
            .map_err(|e| match e {
                CatalogError::Exists(_) => CatalogError::SchemaExists(new.to_string()),
                other => other,
            })?;
        for (_, class) in self.class_rows(txn)? {
            if class.kind == KIND_SCHEMA {
                continue;
            }
            if let Some(bare) = class.name.strip_prefix(&prefix) {
                let renamed = qualified_name(new, bare);
                let (tid, row) = (self.class(txn, &class.name)?)
                    .ok_or_else(|| corrupt(format!("\"{}\" vanished", class.name)))?;
                self.rename_class_row(txn, tid, row, &renamed)?;
            }
        }
        Ok(())
    }
}

/// What PostgreSQL calls a member of kind `kind` in a DETAIL line.
fn kind_word(kind: u8) -> &'static str {
    match kind {
        crate::defs::KIND_VIEW => "view",
        crate::defs::KIND_MATVIEW => "materialized view",
        crate::defs::KIND_SEQUENCE => "sequence",
        crate::defs::KIND_ENUM | crate::defs::KIND_COMPOSITE => "type",
        crate::defs::KIND_FUNCTION => "function",
        _ => "table",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Proves the form of catalog names: public's are bare, a schema's
    // qualified, and each splits back.
    #[test]
    fn qualified_names_split_back() {
        assert_eq!(qualified_name("public", "t"), "t");
        assert_eq!(qualified_name("app", "t"), "app.t");
        assert_eq!(split_schema("app.t"), ("app", "t"));
        assert_eq!(split_schema("t"), ("public", "t"));
        assert_eq!(split_schema("pg_temp_3.t"), ("pg_temp_3", "t"));
        assert!(check_schema_name("pg_x").is_err());
        assert!(check_schema_name("a.b").is_err());
        assert!(check_schema_name("app").is_ok());
    }
}
