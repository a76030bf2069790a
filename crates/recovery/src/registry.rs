//! The redo registry: one `PageRedo` per resource manager, found by its id
//! with one array index (no hashing on the replay path).

use folio_wal::{PageRedo, RmgrId};
use std::sync::Arc;

/// Resource managers and their redo. The recovery crate registers none of
/// the structures above it (it does not depend on them): the database layer
/// adds the B+tree's and the buffer pool's `PAGE_ALLOC`;
/// [`RedoRegistry::with_builtin`] adds this crate's own `XACT`.
#[derive(Clone)]
pub struct RedoRegistry {
    by_id: Vec<Option<Arc<dyn PageRedo>>>,
}

impl std::fmt::Debug for RedoRegistry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let names: Vec<&str> = self.by_id.iter().flatten().map(|r| r.name()).collect();
        f.debug_struct("RedoRegistry")
            .field("rmgrs", &names)
            .finish()
    }
}

impl Default for RedoRegistry {
    fn default() -> Self {
        RedoRegistry {
            by_id: vec![None; 256],
        }
    }
}

impl RedoRegistry {
    /// An empty registry.
    pub fn new() -> RedoRegistry {
        RedoRegistry::default()
    }

    /// A registry with the resource manager this crate implements: `XACT`
    /// (commit and checkpoint records).
    pub fn with_builtin() -> RedoRegistry {
        let mut registry = RedoRegistry::new();
        registry.register(Arc::new(crate::XactRedo));
        registry
    }

    /// Adds (or replaces) the redo of `redo.rmgr()`.
    pub fn register(&mut self, redo: Arc<dyn PageRedo>) {
        let id = redo.rmgr().0 as usize;
        self.by_id[id] = Some(redo);
    }

    /// The redo of `rmgr`, if registered.
    #[inline]
    pub fn get(&self, rmgr: RmgrId) -> Option<&Arc<dyn PageRedo>> {
        self.by_id[rmgr.0 as usize].as_ref()
    }
}
