//! The atomics the state-word protocol runs on.
//!
//! The latch transitions in `state.rs` are written against [`AtomicWord`], so
//! the same code runs on the pool's state array (std atomics in lazily zeroed
//! anonymous memory) and, under `feature = "loom"`, on loom's model-checked
//! atomics (`loom_model.rs`). The pool itself always uses std atomics: loom's
//! atomics only work inside `loom::model` and cannot live in an mmap'd array.

use std::sync::atomic::Ordering;

/// A 64-bit atomic word: the operations the latch protocol needs.
pub(crate) trait AtomicWord {
    fn load(&self, order: Ordering) -> u64;
    fn store(&self, value: u64, order: Ordering);
    fn compare_exchange(
        &self,
        current: u64,
        new: u64,
        success: Ordering,
        failure: Ordering,
    ) -> Result<u64, u64>;
    fn fetch_sub(&self, value: u64, order: Ordering) -> u64;
    /// `fence(order)` in the same memory model as the word.
    fn fence(order: Ordering);
}

macro_rules! impl_atomic_word {
    ($atomic:ty, $fence:path) => {
        impl AtomicWord for $atomic {
            #[inline(always)]
            fn load(&self, order: Ordering) -> u64 {
                <$atomic>::load(self, order)
            }
            #[inline(always)]
            fn store(&self, value: u64, order: Ordering) {
                <$atomic>::store(self, value, order)
            }
            #[inline(always)]
            fn compare_exchange(
                &self,
                current: u64,
                new: u64,
                success: Ordering,
                failure: Ordering,
            ) -> Result<u64, u64> {
                <$atomic>::compare_exchange(self, current, new, success, failure)
            }
            #[inline(always)]
            fn fetch_sub(&self, value: u64, order: Ordering) -> u64 {
                <$atomic>::fetch_sub(self, value, order)
            }
            #[inline(always)]
            fn fence(order: Ordering) {
                $fence(order)
            }
        }
    };
}

impl_atomic_word!(std::sync::atomic::AtomicU64, std::sync::atomic::fence);
#[cfg(feature = "loom")]
impl_atomic_word!(loom::sync::atomic::AtomicU64, loom::sync::atomic::fence);
