//! The `folio` binary's allocator: mimalloc, entered through its plain
//! `mi_malloc` when that already gives the alignment asked for.
//!
//! mimalloc rather than glibc's malloc: under `folio serve`'s tpcb load
//! glibc's malloc and free were ~14% of the server's CPU (perf, session 24).
//!
//! The `mimalloc` crate's allocator calls `mi_malloc_aligned` for every
//! layout. Its fast path checks that the next free block happens to be
//! aligned; when the page's free list is empty it takes a generic path
//! that over-allocates (size + alignment - 1, and marks the page as
//! holding interior pointers, which slows its frees) for every block size
//! that is not a power of two (48, 80, 96 bytes, ...), even at alignment 8.
//! mimalloc's size classes make every block of more than 8 bytes a
//! multiple of 16 bytes from a 16-byte aligned page start
//! (`MI_MAX_ALIGN_SIZE`, `page-queue.c`'s `MI_ALIGN2W`), and a block of at
//! most 8 bytes 8-aligned: so a layout whose alignment is at most 16 and
//! at most its size is aligned by `mi_malloc` as it is (the rule std's
//! `System` allocator applies to malloc). Only larger alignments go
//! through `mi_malloc_aligned`. The point query's ~27 allocations a
//! transaction cost ~50 instructions each the aligned way (server README,
//! session 56).

use libmimalloc_sys as mi;
use std::alloc::{GlobalAlloc, Layout};
use std::ffi::c_void;

/// The alignment every `mi_malloc` block of at least this size has.
const MALLOC_ALIGN_BYTES: usize = 16;

/// Whether `mi_malloc(size)` is aligned enough for `align`.
fn plain(align: usize, size: usize) -> bool {
    align <= MALLOC_ALIGN_BYTES && align <= size
}

/// mimalloc as the global allocator (see the module's comment).
#[derive(Debug)]
pub struct Mimalloc;

// SAFETY: every pointer returned comes from mimalloc with at least the
// layout's size and alignment (plain `mi_malloc` only where its blocks are
// aligned enough, see `plain`), and is freed or reallocated by mimalloc,
// which accepts blocks from either entry point.
unsafe impl GlobalAlloc for Mimalloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: mimalloc's allocation functions have no preconditions.
        unsafe {
            if plain(layout.align(), layout.size()) {
                mi::mi_malloc(layout.size()).cast()
            } else {
                mi::mi_malloc_aligned(layout.size(), layout.align()).cast()
            }
        }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as `alloc`.
        unsafe {
            if plain(layout.align(), layout.size()) {
                mi::mi_zalloc(layout.size()).cast()
            } else {
                mi::mi_zalloc_aligned(layout.size(), layout.align()).cast()
            }
        }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, _layout: Layout) {
        // SAFETY: the caller passes a block this allocator returned.
        unsafe { mi::mi_free(ptr.cast::<c_void>()) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: the caller passes a block this allocator returned, with
        // its layout; the new block keeps the layout's alignment.
        unsafe {
            if plain(layout.align(), new_size) {
                mi::mi_realloc(ptr.cast::<c_void>(), new_size).cast()
            } else {
                mi::mi_realloc_aligned(ptr.cast::<c_void>(), new_size, layout.align()).cast()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Proves that blocks of every small size and alignment the plain
    /// path serves come back aligned, and keep their contents through a
    /// realloc that grows them across size classes.
    #[test]
    fn plain_blocks_are_aligned() {
        let allocator = Mimalloc;
        for align in [1, 2, 4, 8, 16, 32] {
            for size in 1..=300 {
                let layout = Layout::from_size_align(size, align).unwrap();
                // SAFETY: a non-zero size; the block is freed below with its layout.
                unsafe {
                    let p = allocator.alloc(layout);
                    assert!(!p.is_null());
                    assert_eq!(p as usize % align, 0, "size {size} align {align}");
                    p.write_bytes(0xa5, size);
                    let q = allocator.realloc(p, layout, size * 3);
                    assert_eq!(q as usize % align, 0, "realloc {size} align {align}");
                    assert!((0..size).all(|i| *q.add(i) == 0xa5));
                    let grown = Layout::from_size_align(size * 3, align).unwrap();
                    allocator.dealloc(q, grown);
                    let z = allocator.alloc_zeroed(layout);
                    assert_eq!(z as usize % align, 0);
                    assert!((0..size).all(|i| *z.add(i) == 0));
                    allocator.dealloc(z, layout);
                }
            }
        }
    }
}
