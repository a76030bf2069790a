//! The counting allocator: every allocation, reallocation and free of a
//! thread adds its size to that thread's own counter.
//!
//! Thread-local rather than one shared atomic: an atomic add on every
//! allocation would bounce one cache line between all the cores that
//! allocate, where folio is built to scale with them. The counter is a
//! `Cell` in a `const`-initialized thread-local without a destructor: its
//! access is a load and a store at a fixed offset from the thread
//! pointer, with no lazy registration and no allocation of its own (so
//! the allocator can touch it, also while the thread exits).
//!
//! The count is net: a block freed on another thread than the one that
//! allocated it lowers that other thread's count (so a thread's count can
//! be negative); a limit measures growth from its start ([`crate::limit`])
//! so only the difference matters.

use std::alloc::{GlobalAlloc, Layout};
use std::cell::Cell;

thread_local! {
    /// Bytes this thread allocated minus those it freed, since it began.
    static NET_BYTES: Cell<isize> = const { Cell::new(0) };
}

/// Adds `delta` bytes to this thread's count. Never panics (the
/// allocator must not): wrapping arithmetic, and `try_with`, which a
/// `const` thread-local without a destructor always serves.
#[inline(always)]
fn add(delta: isize) {
    let _ = NET_BYTES.try_with(|net| net.set(net.get().wrapping_add(delta)));
}

/// This thread's count: bytes allocated minus bytes freed.
#[inline]
pub fn net_bytes() -> isize {
    NET_BYTES.try_with(Cell::get).unwrap_or(0)
}

/// Allocator `A`, counting what each thread allocates and frees (the
/// module's comment). It never fails an allocation itself: a limit is
/// enforced by the statement's own checks ([`crate::over`]).
#[derive(Debug, Default)]
pub struct Counting<A>(pub A);

/// A block's size as the count's type (a `Layout`'s size fits an isize).
#[inline(always)]
fn size(bytes: usize) -> isize {
    bytes as isize
}

// SAFETY: every call goes to `A` with the caller's arguments unchanged,
// and returns its result; the count is bookkeeping beside it.
unsafe impl<A: GlobalAlloc> GlobalAlloc for Counting<A> {
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract is `A::alloc`'s.
        let block = unsafe { self.0.alloc(layout) };
        if !block.is_null() {
            add(size(layout.size()));
        }
        block
    }

    #[inline]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as `alloc`.
        let block = unsafe { self.0.alloc_zeroed(layout) };
        if !block.is_null() {
            add(size(layout.size()));
        }
        block
    }

    #[inline]
    unsafe fn dealloc(&self, block: *mut u8, layout: Layout) {
        // SAFETY: the caller passes a block `A` returned, with its layout.
        unsafe { self.0.dealloc(block, layout) };
        add(-size(layout.size()));
    }

    #[inline]
    unsafe fn realloc(&self, block: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: as `dealloc`; a null result leaves the old block as it was.
        let moved = unsafe { self.0.realloc(block, layout, new_size) };
        if !moved.is_null() {
            add(size(new_size).wrapping_sub(size(layout.size())));
        }
        moved
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::alloc::System;

    #[global_allocator]
    static COUNTING: Counting<System> = Counting(System);

    /// Proves that a thread's count grows by what it allocates and comes
    /// back when it frees, that a realloc counts the difference, and that
    /// another thread's allocations are not counted here.
    #[test]
    fn counts_this_threads_blocks() {
        let before = net_bytes();
        let mut v: Vec<u8> = Vec::with_capacity(1 << 20);
        assert_eq!(net_bytes() - before, 1 << 20);
        v.reserve_exact(3 << 20);
        assert_eq!(net_bytes() - before, size(v.capacity()));
        drop(v);
        assert_eq!(net_bytes(), before);
        // (Starting a thread takes a few hundred bytes here, some of
        // them freed there.)
        let elsewhere = std::thread::spawn(|| vec![0u8; 8 << 20].len());
        assert_eq!(elsewhere.join().unwrap(), 8 << 20);
        assert!(
            (net_bytes() - before).abs() < 4096,
            "{}",
            net_bytes() - before
        );
    }
}
