//! The user-defined types (enum types and domains) a statement's
//! transaction sees, for the
//! binder's type names (`types::column_type`), which has no catalog: the
//! session puts them into this thread's scope around each statement
//! ([`Scope::enter`], from `object_scope.rs`), the binder looks names up
//! here (README "Enum types").

use crate::thread_scope::{Installed, install};
use folio_catalog::DomainType;
use folio_row::{EnumType, SqlType};
use std::cell::RefCell;
use std::sync::Arc;

thread_local! {
    static TYPES: RefCell<Arc<Vec<&'static EnumType>>> = RefCell::default();
    static DOMAINS: RefCell<Arc<Vec<Arc<DomainType>>>> = RefCell::default();
}

/// The types of one statement, in scope until dropped.
pub struct Scope {
    _types: Installed<Arc<Vec<&'static EnumType>>>,
    _domains: Installed<Arc<Vec<Arc<DomainType>>>>,
}

impl Scope {
    /// Puts `types` in scope for this thread (the previous scope comes
    /// back when this one is dropped).
    pub fn enter(types: Arc<Vec<&'static EnumType>>, domains: Arc<Vec<Arc<DomainType>>>) -> Scope {
        Scope {
            _types: install(&TYPES, types),
            _domains: install(&DOMAINS, domains),
        }
    }
}

/// The enum type named `name`, or a domain's base type, if the
/// statement's transaction sees one.
pub fn named(name: &str) -> Option<SqlType> {
    if let Some(d) = domain_named(name) {
        return SqlType::from_oid(d.base_oid, d.base_typmod);
    }
    TYPES.with(|t| {
        t.borrow()
            .iter()
            .find(|e| e.name == name)
            .map(|e| SqlType::Enum(e))
    })
}

/// The domain named `name`, if the statement's transaction sees one.
pub fn domain_named(name: &str) -> Option<Arc<DomainType>> {
    DOMAINS.with(|d| d.borrow().iter().find(|d| d.name == name).cloned())
}

/// The domain of oid `oid`, if the statement's transaction sees one.
pub fn domain_of_oid(oid: u32) -> Option<Arc<DomainType>> {
    DOMAINS.with(|d| d.borrow().iter().find(|d| d.oid == oid).cloned())
}

/// Every domain the statement's transaction sees, by name.
pub fn domains() -> Arc<Vec<Arc<DomainType>>> {
    DOMAINS.with(|d| d.borrow().clone())
}

/// A type by oid: a built-in one, an enum type in scope, or a domain's
/// base type.
pub fn of_oid(oid: u32, typmod: i32) -> Option<SqlType> {
    if let Some(d) = SqlType::from_oid(oid, typmod)
        .is_none()
        .then(|| domain_of_oid(oid))
        .flatten()
    {
        return SqlType::from_oid(d.base_oid, d.base_typmod);
    }
    SqlType::from_oid(oid, typmod).or_else(|| {
        TYPES.with(|t| {
            t.borrow().iter().find_map(|e| match oid {
                _ if oid == e.oid => Some(SqlType::Enum(e)),
                _ if oid == e.array_oid => Some(SqlType::Array(e.sql_type())),
                _ => None,
            })
        })
    })
}
