//! The catalog objects a statement sees: its transaction's enum types,
//! extensions, SQL functions and triggers, put in this thread's scope for
//! the binder and row changes (`user_types.rs`, `extensions.rs`, `sql_functions.rs`). A
//! session keeps the lists and the catalog hands them back while they are
//! current (folio-catalog `object_lists.rs`), so a statement reads no
//! catalog row for them. A statement run inside another (a PL/pgSQL
//! body's, once per call) starts from the enclosing statement's lists
//! ([`current`]), which stay current unless the transaction changed the
//! catalog.

use crate::error::SqlError;
use crate::thread_scope::{Installed, install};
use folio_catalog::ObjectLists;
use folio_db::{Database, Transaction};
use std::cell::RefCell;
use std::sync::Arc;

thread_local! {
    /// The lists of the innermost scope entered on this thread.
    static CURRENT: RefCell<Option<Arc<ObjectLists>>> = const { RefCell::new(None) };
}

/// The lists of one statement, in scope until dropped.
pub struct Scope {
    _types: crate::user_types::Scope,
    _extensions: crate::extensions::Scope,
    _functions: crate::sql_functions::Scope,
    _triggers: crate::triggers::Scope,
    _current: Installed<Option<Arc<ObjectLists>>>,
}

/// The lists of the innermost statement in scope on this thread, if any:
/// where a statement run inside it starts ([`enter`]'s `kept`).
pub fn current() -> Option<Arc<ObjectLists>> {
    CURRENT.with(|c| c.borrow().clone())
}

/// Puts the lists `txn` sees in scope, using the session's `kept` lists
/// while they are current (and keeping what was read instead).
pub fn enter(
    db: &Database,
    txn: &Transaction,
    kept: &mut Option<Arc<ObjectLists>>,
) -> Result<Scope, SqlError> {
    let lists = db.catalog().object_lists(txn, kept.as_ref())?;
    let scope = Scope {
        _types: crate::user_types::Scope::enter(lists.enums.clone(), lists.domains.clone()),
        _extensions: crate::extensions::Scope::enter(lists.extensions.clone()),
        _functions: crate::sql_functions::Scope::enter(lists.functions.clone()),
        _triggers: crate::triggers::Scope::enter(lists.triggers.clone()),
        _current: install(&CURRENT, Some(lists.clone())),
    };
    *kept = Some(lists);
    Ok(scope)
}
