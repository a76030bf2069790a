//! `pg_prepared_statements`: a session's named prepared statements as
//! the view lists them, from SQL's PREPARE and the protocol's Parse.
//!
//! The session records a statement here once it is prepared and planned
//! ([`Listing::add`]) and forgets it when it is deallocated, closed or
//! discarded ([`Listing::remove`], [`Listing::clear`]); the unnamed
//! statement is not listed, as in PostgreSQL. A running statement reaches
//! its session's listing through this thread's [`Scope`], as `pg_cursors`
//! reaches the cursors.
//!
//! `generic_plans` counts the executions: folio runs every execution of a
//! prepared query through the plan it kept (a generic plan in
//! PostgreSQL's terms), so `custom_plans` stays 0. `parameter_types` is a
//! `text[]` of the types' names (folio has no `regtype`), which prints as
//! PostgreSQL's `regtype[]` does.

use folio_row::{SqlType, Value};
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

/// One listed statement.
#[derive(Debug)]
pub struct Entry {
    /// The text it was prepared from: the query message holding the
    /// PREPARE, or the Parse's.
    pub statement: String,
    /// When it was prepared, microseconds since 2000-01-01 UTC.
    pub prepared_us: i64,
    /// Its parameters' types, declared or inferred.
    pub parameter_types: Vec<SqlType>,
    /// Whether SQL's PREPARE made it.
    pub from_sql: bool,
    /// Its executions so far.
    runs: AtomicU64,
}

impl Entry {
    pub fn new(
        statement: String,
        prepared_us: i64,
        parameter_types: Vec<SqlType>,
        from_sql: bool,
    ) -> Entry {
        Entry {
            statement,
            prepared_us,
            parameter_types,
            from_sql,
            runs: AtomicU64::new(0),
        }
    }

    /// It is executed once more.
    pub fn count_run(&self) {
        self.runs.fetch_add(1, Ordering::Relaxed);
    }
}

/// A session's listed statements by name. Shared with the statement's
/// [`Scope`]; locked only to change it or to read the view.
#[derive(Debug, Default, Clone)]
pub struct Listing {
    entries: Arc<Mutex<BTreeMap<String, Arc<Entry>>>>,
}

impl Listing {
    /// Lists `entry` as statement `name` (the unnamed one is not listed).
    pub fn add(&self, name: &str, entry: Arc<Entry>) {
        if !name.is_empty() {
            self.lock().insert(name.to_string(), entry);
        }
    }

    /// Statement `name` is gone.
    pub fn remove(&self, name: &str) {
        self.lock().remove(name);
    }

    /// Every statement is gone (DEALLOCATE ALL, DISCARD ALL).
    pub fn clear(&self) {
        self.lock().clear();
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, BTreeMap<String, Arc<Entry>>> {
        self.entries.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The view's rows, by name.
    fn rows(&self) -> Vec<Vec<Value>> {
        self.lock()
            .iter()
            .map(|(name, e)| {
                let types = (e.parameter_types.iter())
                    .map(|t| Value::Text(t.name()))
                    .collect();
                vec![
                    Value::Text(name.clone()),
                    Value::Text(e.statement.clone()),
                    Value::TimestampTz(e.prepared_us),
                    Value::Array(types),
                    Value::Bool(e.from_sql),
                    Value::Int8(e.runs.load(Ordering::Relaxed) as i64),
                    Value::Int8(0),
                ]
            })
            .collect()
    }
}

/// `pg_prepared_statements`' columns.
pub const COLUMNS: &[(&str, SqlType)] = &[
    ("name", SqlType::Text),
    ("statement", SqlType::Text),
    ("prepare_time", SqlType::TimestampTz(None)),
    ("parameter_types", SqlType::Array(&SqlType::Text)),
    ("from_sql", SqlType::Bool),
    ("generic_plans", SqlType::Int8),
    ("custom_plans", SqlType::Int8),
];

thread_local! {
    static CURRENT: RefCell<Option<Listing>> = const { RefCell::new(None) };
}

/// The session's listing in this thread's scope while one of its
/// statements runs; the scope before comes back when it is dropped.
#[derive(Debug)]
pub struct Scope {
    _installed: crate::thread_scope::Installed<Option<Listing>>,
}

impl Scope {
    pub fn enter(listing: &Listing) -> Scope {
        Scope {
            _installed: crate::thread_scope::install(&CURRENT, Some(listing.clone())),
        }
    }
}

/// `pg_prepared_statements`' rows: the running statement's session's
/// statements (none outside a session's statement).
pub fn rows() -> Vec<Vec<Value>> {
    CURRENT.with(|c| c.borrow().as_ref().map(Listing::rows).unwrap_or_default())
}
