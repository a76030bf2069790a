//! The resident set: a lock-free open-addressing hash set of the page ids
//! that occupy a frame. Only the clock sweep (eviction, write-back) reads
//! it; lookups never do (they are address arithmetic).
//!
//! Inserts and removals are made by the thread holding the page's exclusive
//! latch, so a page id is never inserted twice nor removed concurrently.
//! Removal leaves a tombstone that a later insert may reuse. Because no one
//! ever searches for an absent id, tombstones never lengthen a probe: an id
//! is found at most as far along its probe sequence as its insert went, and
//! an insert stops at the first empty or tombstone slot. The table has twice
//! as many slots as the pool has frames, so the load stays at or below 1/2.

use std::sync::atomic::{AtomicU64, Ordering::Acquire, Ordering::Relaxed, Ordering::Release};

const EMPTY: u64 = u64::MAX;
const TOMBSTONE: u64 = u64::MAX - 1;

#[derive(Debug)]
pub(crate) struct ResidentSet {
    slots: Box<[AtomicU64]>,
    mask: u64,
    shift: u32,
}

impl ResidentSet {
    /// A set for at most `max_entries` resident pages.
    pub(crate) fn new(max_entries: u64) -> ResidentSet {
        let capacity = (max_entries.max(2) * 2).next_power_of_two();
        let slots = (0..capacity).map(|_| AtomicU64::new(EMPTY)).collect();
        ResidentSet {
            slots,
            mask: capacity - 1,
            shift: 64 - capacity.trailing_zeros(),
        }
    }

    pub(crate) fn capacity(&self) -> u64 {
        self.mask + 1
    }

    #[inline]
    fn home(&self, page: u64) -> u64 {
        // Fibonacci hashing: the high bits of the product are well mixed.
        page.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> self.shift
    }

    /// Adds `page` (not present; the caller holds its exclusive latch).
    pub(crate) fn insert(&self, page: u64) {
        assert!(page < TOMBSTONE);
        let mut slot = self.home(page);
        for _ in 0..self.capacity() {
            let entry = &self.slots[slot as usize];
            let current = entry.load(Relaxed);
            if (current == EMPTY || current == TOMBSTONE)
                && entry
                    .compare_exchange(current, page, Release, Relaxed)
                    .is_ok()
            {
                return;
            }
            debug_assert_ne!(current, page, "page {page} inserted twice");
            slot = (slot + 1) & self.mask;
        }
        panic!("resident set full: the frame reservation bound was broken");
    }

    /// Removes `page` (present; the caller holds its exclusive latch).
    pub(crate) fn remove(&self, page: u64) {
        let mut slot = self.home(page);
        for _ in 0..self.capacity() {
            let entry = &self.slots[slot as usize];
            if entry.load(Relaxed) == page {
                entry.store(TOMBSTONE, Release);
                return;
            }
            slot = (slot + 1) & self.mask;
        }
        panic!("page {page} missing from the resident set");
    }

    /// The page in slot `index mod capacity`, if any.
    #[inline]
    pub(crate) fn get(&self, index: u64) -> Option<u64> {
        let page = self.slots[(index & self.mask) as usize].load(Acquire);
        (page < TOMBSTONE).then_some(page)
    }

    /// Number of resident pages (a full scan; for invariant checks).
    pub(crate) fn count(&self) -> u64 {
        (0..self.capacity())
            .filter(|&i| self.get(i).is_some())
            .count() as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Proves insert/remove/reinsert with colliding ids keeps every live id
    // findable and the count exact, with tombstones reused.
    #[test]
    fn insert_remove_churn() {
        let set = ResidentSet::new(8);
        let mut live = std::collections::BTreeSet::new();
        for round in 0..1000u64 {
            let page = (round * 7919) % 23;
            if live.contains(&page) {
                set.remove(page);
                live.remove(&page);
            } else if live.len() < 8 {
                set.insert(page);
                live.insert(page);
            }
            assert_eq!(set.count(), live.len() as u64);
        }
        let found: std::collections::BTreeSet<u64> =
            (0..set.capacity()).filter_map(|i| set.get(i)).collect();
        assert_eq!(found, live);
    }
}
