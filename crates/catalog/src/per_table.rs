//! In-memory state kept per table oid and shared by everyone who opens
//! the table (autovacuum's counts, DDL marks): one `Arc<T>` per oid, made
//! on first use.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// A `T` per table oid.
#[derive(Debug)]
pub(crate) struct PerTable<T>(Mutex<HashMap<u64, Arc<T>>>);

impl<T> Default for PerTable<T> {
    fn default() -> Self {
        PerTable(Mutex::new(HashMap::new()))
    }
}

impl<T: Default> PerTable<T> {
    /// The table's `T`, made if it has none yet.
    pub(crate) fn of(&self, oid: u64) -> Arc<T> {
        self.0
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .entry(oid)
            .or_default()
            .clone()
    }

    /// Every table's `T`, in no order.
    pub(crate) fn entries(&self) -> Vec<(u64, Arc<T>)> {
        self.0
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .iter()
            .map(|(oid, t)| (*oid, t.clone()))
            .collect()
    }

    /// Forgets the table's `T` (the table's storage is gone).
    pub(crate) fn forget(&self, oid: u64) {
        self.0
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(&oid);
    }
}
