//! A statement's limit: how far its thread's count ([`crate::net_bytes`])
//! may grow from where it stood when the statement started.
//!
//! The limit is a thread-local ceiling on the count, so [`over`] is a
//! load and a compare that long loops can afford on every row. Nothing
//! here stops an allocation: the statement's own checks ask [`over`] and
//! fail it (folio-txn `Transaction::check_interrupt`), which frees what
//! it built as its results unwind.

use crate::counting::net_bytes;
use std::cell::Cell;

thread_local! {
    /// The count past which this thread's statement is over its limit
    /// (`isize::MAX`: no limit).
    static CEILING: Cell<isize> = const { Cell::new(isize::MAX) };
}

/// A statement's limit, in force until dropped (then the limit before it
/// is again: a statement run inside another, as a function's, keeps the
/// outer's).
#[derive(Debug)]
#[must_use = "the limit ends when this is dropped"]
pub struct Limit {
    before: isize,
}

/// Holds this thread's running statement to `bytes` more than the thread
/// has now (`None`: no limit).
pub fn limit(bytes: Option<u64>) -> Limit {
    let ceiling = match bytes {
        Some(bytes) => net_bytes().saturating_add(isize::try_from(bytes).unwrap_or(isize::MAX)),
        None => isize::MAX,
    };
    Limit {
        before: CEILING.replace(ceiling),
    }
}

impl Drop for Limit {
    fn drop(&mut self) {
        CEILING.set(self.before);
    }
}

/// Whether this thread's statement grew past its limit.
#[inline]
pub fn over() -> bool {
    net_bytes() > CEILING.get()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Proves that a limit is measured from its start, that `over` turns
    /// true past it and false again once the memory is freed, and that a
    /// dropped limit gives back the one before.
    #[test]
    fn over_past_the_limit_from_its_start() {
        let held = vec![0u8; 4 << 20];
        let outer = limit(Some(16 << 20));
        assert!(!over());
        let inner = limit(Some(1 << 20));
        let grown = vec![1u8; 2 << 20];
        // (The test binary's allocator counts: `counting.rs`'s.)
        assert!(over());
        drop(inner);
        assert!(!over());
        drop(grown);
        let none = limit(None);
        let big = vec![2u8; 32 << 20];
        assert!(!over());
        drop(none);
        assert!(over());
        drop(big);
        drop(outer);
        assert!(!over());
        assert_eq!(held.len(), 4 << 20);
    }
}
