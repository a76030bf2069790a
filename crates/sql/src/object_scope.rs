//! The catalog objects a statement sees: its transaction's enum types,
//! domains, extensions, SQL functions and triggers, put in this thread's
//! scope for the binder and row changes, which read them here
//! ([`with`]: `user_types.rs`, `extensions.rs`, `sql_functions.rs`,
//! `triggers.rs`). One value in scope for all of them: entering a
//! statement's scope is one swap (five, one per list, were a twentieth
//! of a cached point query's instructions). A
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
    let scope = enter_lists(lists.clone());
    *kept = Some(lists);
    Ok(scope)
}

/// Puts `lists` in scope for this thread (the enclosing scope's come
/// back when it drops).
pub fn enter_lists(lists: Arc<ObjectLists>) -> Scope {
    Scope {
        _current: install(&CURRENT, Some(lists)),
    }
}

/// `read` of the lists in scope on this thread (`None` outside any
/// statement: no object).
pub fn with<T>(read: impl FnOnce(Option<&ObjectLists>) -> T) -> T {
    CURRENT.with(|c| read(c.borrow().as_deref()))
}
