//! folio's buffer manager (see README.md in this crate for the protocol).
//!
//! Page `p`'s slot is found by arithmetic (no hash table): a 64-bit state
//! word carrying a version and a latch state, and the number of the frame,
//! one of a fixed set, the page occupies. Readers of cached pages use optimistic latches
//! and write no shared memory.
//!
//! Files by concept: `state.rs` (state word), `region.rs` (virtual memory),
//! `extent.rs` (data-file space reserved at allocation),
//! `resident.rs` (resident set), `eviction.rs` (clock sweep, write-back),
//! `cleaner.rs` (writing ahead of the clock),
//! `meta.rs` (meta page, free list), `meta_log.rs` (logging hook and
//! redo of allocation changes), `paced_flush.rs` (checkpoint writes), `guards.rs` (latch guards, racy
//! copies), `counters.rs` (per-thread counters), `latch.rs` (latch
//! acquisition), `fault.rs` (frames, fault-in), `pool.rs` (the
//! pool: configuration, construction, hooks).

mod cleaner;
mod counters;
mod error;
mod eviction;
mod extent;
mod fault;
mod guards;
mod latch;
#[cfg(all(test, feature = "loom"))]
mod loom_model;
mod meta;
mod meta_log;
mod paced_flush;
mod pool;
mod region;
mod resident;
mod state;
mod sync;

pub use cleaner::CleanCursor;
pub use error::{BufferError, Restart};
pub use extent::{Extender, MAX_EXTENT_PAGES, MIN_EXTENT_PAGES, extent_pages};
pub use guards::{ExclusiveGuard, OptimisticGuard, SharedGuard};
pub use meta::{
    FORMAT_VERSION, FREE_SIZE, META_SIZE, MetaFields, ROOT_SLOTS, decode_meta_page,
    set_meta_checksums_flag,
};
pub use meta_log::{
    ALLOC_EXTEND, ALLOC_FREE, ALLOC_POP, ALLOC_SET_ROOT, AllocRedoError, FREE_DATA_SIZE,
    META_SNAPSHOT_SIZE, MetaLogger, MetaPageChange, alloc_type_name, describe_alloc,
    redo_alloc_block,
};
pub use paced_flush::{FlushProgress, FlushReport};
pub use pool::{
    BufferPool, MIN_POOL_PAGES, PAGES_PER_STATE_LINE, PoolConfig, PoolStats, WalFlusher,
};
