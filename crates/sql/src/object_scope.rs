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

use crate::context::Ctx;
use crate::error::SqlError;
use crate::thread_scope::{Installed, install};
use folio_catalog::ObjectLists;
use folio_db::Transaction;
use std::cell::RefCell;
use std::sync::Arc;

thread_local! {
    /// The lists of the innermost scope entered on this thread.
    static CURRENT: RefCell<Option<InScope>> = const { RefCell::new(None) };
}

/// What one statement's scope holds: the lists, and the temporary
/// namespace of the session running it (only its own temporary
/// relations' row types are type names to it: `user_types.rs`).
struct InScope {
    lists: Arc<ObjectLists>,
    temp_namespace: Option<u32>,
}

/// The lists of one statement, in scope until dropped.
pub struct Scope {
    _current: Installed<Option<InScope>>,
}

/// The lists of the innermost statement in scope on this thread, if any:
/// where a statement run inside it starts ([`enter`]'s `kept`).
pub fn current() -> Option<Arc<ObjectLists>> {
    CURRENT.with(|c| c.borrow().as_ref().map(|s| s.lists.clone()))
}

/// Puts the lists `txn` sees in scope for a statement of context `cx`
/// (its session's temporary namespace with them), using the session's
/// `kept` lists while they are current (and keeping what was read
/// instead).
pub fn enter(
    cx: &Ctx<'_>,
    txn: &Transaction,
    kept: &mut Option<Arc<ObjectLists>>,
) -> Result<Scope, SqlError> {
    let lists = cx.db.catalog().object_lists(txn, kept.as_ref())?;
    let scope = Scope {
        _current: install(
            &CURRENT,
            Some(InScope {
                lists: lists.clone(),
                temp_namespace: cx.temp.namespace(),
            }),
        ),
    };
    *kept = Some(lists);
    Ok(scope)
}

/// Puts `lists` in scope for this thread (the enclosing scope's come
/// back when it drops), for the enclosing statement's session.
pub fn enter_lists(lists: Arc<ObjectLists>) -> Scope {
    let temp_namespace = temp_namespace();
    Scope {
        _current: install(
            &CURRENT,
            Some(InScope {
                lists,
                temp_namespace,
            }),
        ),
    }
}

/// `read` of the lists in scope on this thread (`None` outside any
/// statement: no object).
pub fn with<T>(read: impl FnOnce(Option<&ObjectLists>) -> T) -> T {
    CURRENT.with(|c| read(c.borrow().as_ref().map(|s| &*s.lists)))
}

/// The temporary namespace of the session whose statement is in scope on
/// this thread, if it has one.
pub fn temp_namespace() -> Option<u32> {
    CURRENT.with(|c| c.borrow().as_ref().and_then(|s| s.temp_namespace))
}
