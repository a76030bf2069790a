//! The background writer of recovery (`folio-clean`): while the replaying
//! thread evicts, this thread writes the dirty pages the clock will reach
//! next (`BufferPool::clean_ahead`), so those evictions cost no copy and
//! no write on the replaying thread. PostgreSQL runs its background writer
//! during recovery for the same reason.

use folio_buffer::{BufferError, BufferPool, CleanCursor};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// How long the writer sleeps when nothing ahead of the clock is dirty.
const IDLE_SLEEP: Duration = Duration::from_micros(100);
/// How long it sleeps while the pool is not evicting (no eviction
/// yet; with a pool that holds every page, never).
const NOT_FULL_SLEEP: Duration = Duration::from_millis(1);

/// Cleans ahead of `pool`'s clock until `stop` is set. Returns the first
/// write error (the pages it could not write stay dirty; eviction writes
/// them, or reports the same failure).
pub(crate) fn background_writer(pool: &BufferPool, stop: &AtomicBool) -> Result<(), BufferError> {
    let mut cursor = CleanCursor::default();
    while !stop.load(Ordering::Acquire) {
        if !pool.is_evicting() {
            std::thread::sleep(NOT_FULL_SLEEP);
        } else if pool.clean_ahead(&mut cursor)? == 0 {
            std::thread::sleep(IDLE_SLEEP);
        }
    }
    Ok(())
}
