//! The user-defined types (enum types, composite types and domains) a
//! statement's
//! transaction sees, for the
//! binder's type names (`types::column_type`), which has no catalog: the
//! session puts them into this thread's scope around each statement
//! (`object_scope.rs`), the binder looks names up here (README "Enum
//! types").

use folio_catalog::{DomainType, ObjectLists};
use folio_row::{CompositeType, SqlType};
use std::sync::Arc;

/// The enum or composite type named `name` (a relation's row type too),
/// or a domain's base type, if the statement's transaction sees one: the
/// one owner of a user type's name.
pub fn named(name: &str) -> Option<SqlType> {
    if let Some(d) = domain_named(name) {
        return crate::domains::base_type(&d).ok();
    }
    crate::object_scope::with(|lists| {
        let lists = lists?;
        (lists.enums.iter())
            .find(|e| e.name == name)
            .map(|e| SqlType::Enum(e))
            .or_else(|| {
                (lists.composites.iter())
                    .find(|c| c.name == name)
                    .map(|c| SqlType::Composite(c))
            })
            .or_else(|| relation_type(lists, name).map(SqlType::Composite))
    })
}

/// The row type of the relation named `name` (README "Composite types",
/// "Tables' row types"): the running session's temporary table of that
/// bare name, else a relation of that catalog name (a permanent one, or
/// `schema.t`). As in PostgreSQL, the session's temporary namespace is
/// searched first, and no other session's is searched at all.
fn relation_type(lists: &ObjectLists, name: &str) -> Option<&'static CompositeType> {
    let types = &lists.relation_types;
    let own_temp = crate::object_scope::temp_namespace().and_then(|n| {
        (types.iter()).find(|(stored, _)| folio_catalog::split_temp_name(stored) == Some((n, name)))
    });
    own_temp
        .or_else(|| (types.iter()).find(|(stored, _)| stored == name))
        .map(|(_, t)| *t)
}

/// The domain named `name`, if the statement's transaction sees one.
pub fn domain_named(name: &str) -> Option<Arc<DomainType>> {
    domain_where(|d| d.name == name)
}

/// The domain of oid `oid`, if the statement's transaction sees one.
pub fn domain_of_oid(oid: u32) -> Option<Arc<DomainType>> {
    domain_where(|d| d.oid == oid)
}

/// The domain in scope that is `wanted`, if any.
fn domain_where(wanted: impl Fn(&DomainType) -> bool) -> Option<Arc<DomainType>> {
    crate::object_scope::with(|lists| lists?.domains.iter().find(|d| wanted(d)).cloned())
}

/// The row type of the relation of oid `oid` (a table, view or
/// materialized view), if the statement's transaction sees it.
pub fn row_type_of(oid: u64) -> Option<&'static CompositeType> {
    let oid = u32::try_from(oid).ok()?;
    crate::object_scope::with(|lists| {
        (lists?.relation_types.iter())
            .find(|(_, c)| c.oid == oid)
            .map(|(_, c)| *c)
    })
}

/// Whether `ty` is a relation's row type (PL/pgSQL keeps a variable of
/// one, and `RETURNS SETOF t` its columns, as the relation's columns).
pub fn is_relation_type(ty: SqlType) -> bool {
    matches!(ty, SqlType::Composite(c) if row_type_of(c.oid.into()) == Some(c))
}

/// Every relation's row type the statement's transaction sees, with the
/// relation's catalog name, by that name.
pub fn relation_types() -> Arc<Vec<(String, &'static CompositeType)>> {
    crate::object_scope::with(|lists| lists.map(|l| l.relation_types.clone()).unwrap_or_default())
}

/// Every composite type the statement's transaction sees, by name.
pub fn composites() -> Arc<Vec<&'static folio_row::CompositeType>> {
    crate::object_scope::with(|lists| lists.map(|l| l.composites.clone()).unwrap_or_default())
}

/// Every domain the statement's transaction sees, by name.
pub fn domains() -> Arc<Vec<Arc<DomainType>>> {
    crate::object_scope::with(|lists| lists.map(|l| l.domains.clone()).unwrap_or_default())
}

/// A type by oid: a built-in one, an enum or composite type in scope, or
/// a domain's base type (or the array of that, for the domain's array
/// type).
pub fn of_oid(oid: u32, typmod: i32) -> Option<SqlType> {
    if SqlType::from_oid(oid, typmod).is_none()
        && let Some(ty) = crate::domains::value_type_of(oid)
    {
        return Some(ty);
    }
    SqlType::from_oid(oid, typmod).or_else(|| {
        crate::object_scope::with(|lists| {
            let lists = lists?;
            lists
                .enums
                .iter()
                .find_map(|e| match oid {
                    _ if oid == e.oid => Some(SqlType::Enum(e)),
                    _ if oid == e.array_oid => Some(SqlType::Array(e.sql_type())),
                    _ => None,
                })
                .or_else(|| {
                    lists.composites.iter().find_map(|c| match oid {
                        _ if oid == c.oid => Some(SqlType::Composite(c)),
                        _ if oid == c.array_oid => Some(SqlType::Array(c.sql_type())),
                        _ => None,
                    })
                })
                .or_else(|| {
                    (lists.relation_types.iter())
                        .find(|(_, c)| c.oid == oid)
                        .map(|(_, c)| SqlType::Composite(c))
                })
        })
    })
}
