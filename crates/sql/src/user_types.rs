//! The user-defined (enum) types a statement's transaction sees, for the
//! binder's type names (`types::column_type`), which has no catalog: the
//! session puts them into this thread's scope around each statement
//! ([`Scope::enter`], from `object_scope.rs`), the binder looks names up
//! here (README "Enum types").

use folio_row::{EnumType, SqlType};
use std::cell::RefCell;
use std::sync::Arc;

thread_local! {
    static TYPES: RefCell<Arc<Vec<&'static EnumType>>> = RefCell::default();
}

/// The types of one statement, in scope until dropped.
pub struct Scope {
    outer: Arc<Vec<&'static EnumType>>,
}

impl Scope {
    /// Puts `types` in scope for this thread (the previous scope comes
    /// back when this one is dropped).
    pub fn enter(types: Arc<Vec<&'static EnumType>>) -> Scope {
        Scope {
            outer: TYPES.with(|t| std::mem::replace(&mut *t.borrow_mut(), types)),
        }
    }
}

impl Drop for Scope {
    fn drop(&mut self) {
        let outer = std::mem::take(&mut self.outer);
        TYPES.with(|t| *t.borrow_mut() = outer);
    }
}

/// The enum type named `name`, if the statement's transaction sees one.
pub fn named(name: &str) -> Option<SqlType> {
    TYPES.with(|t| {
        t.borrow()
            .iter()
            .find(|e| e.name == name)
            .map(|e| SqlType::Enum(e))
    })
}

/// A type by oid: a built-in one, or an enum type in scope.
pub fn of_oid(oid: u32, typmod: i32) -> Option<SqlType> {
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
