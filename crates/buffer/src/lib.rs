//! folio's buffer manager (see README.md in this crate for the protocol).
//!
//! Page `p` lives at `base + p * PAGE_SIZE` in one reserved virtual region, so
//! finding a page is arithmetic; a 64-bit state word per page carries a
//! version and a latch state. Readers of cached pages use optimistic latches
//! and write no shared memory.

mod error;
mod pool;

pub use error::{BufferError, Restart};
pub use pool::{
    BufferPool, ExclusiveGuard, OptimisticGuard, PoolConfig, PoolStats, SharedGuard, WalFlusher,
};
