//! Page-sized buffers that scans copy leaves into, kept per thread for
//! the next scan. A point query on an index starts a scan per execution;
//! allocating and zeroing 8 KB for each was 4% of the server's CPU under
//! seed 000's prepared `count(*)` probe. A buffer's contents are
//! meaningless between owners: a scan overwrites a page before it reads it.

use std::cell::RefCell;
use std::ops::{Deref, DerefMut};

use folio_page::{PAGE_SIZE, Page};

/// Buffers a thread keeps for its next scans (nested scans of a join take
/// one each; more than this are freed).
const KEPT_PER_THREAD: usize = 4;

thread_local! {
    static SPARE: RefCell<Vec<Box<Page>>> = const { RefCell::new(Vec::new()) };
}

/// A page-sized buffer, returned to its thread's spares when dropped.
#[derive(Debug)]
pub(crate) struct PageBuffer(Option<Box<Page>>);

impl PageBuffer {
    /// A spare buffer of this thread, or a new zeroed one.
    pub(crate) fn take() -> PageBuffer {
        let spare = SPARE.with(|s| s.borrow_mut().pop());
        PageBuffer(Some(spare.unwrap_or_else(|| Box::new([0u8; PAGE_SIZE]))))
    }
}

impl Deref for PageBuffer {
    type Target = Page;

    fn deref(&self) -> &Page {
        self.0
            .as_deref()
            .expect("a buffer is present until dropped")
    }
}

impl DerefMut for PageBuffer {
    fn deref_mut(&mut self) -> &mut Page {
        self.0
            .as_deref_mut()
            .expect("a buffer is present until dropped")
    }
}

impl Drop for PageBuffer {
    fn drop(&mut self) {
        if let Some(page) = self.0.take() {
            // During thread exit the spares may be gone: the buffer is freed.
            let _ = SPARE.try_with(|s| {
                let mut spare = s.borrow_mut();
                if spare.len() < KEPT_PER_THREAD {
                    spare.push(page);
                }
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Proves a dropped buffer is the next one taken on its thread (no new
    // allocation) and that at most KEPT_PER_THREAD are kept.
    #[test]
    fn dropped_buffers_are_reused_up_to_the_bound() {
        let first = PageBuffer::take();
        let address = &*first as *const Page;
        drop(first);
        let again = PageBuffer::take();
        assert_eq!(&*again as *const Page, address);
        let many: Vec<PageBuffer> = (0..KEPT_PER_THREAD + 3)
            .map(|_| PageBuffer::take())
            .collect();
        drop(many);
        drop(again);
        assert_eq!(SPARE.with(|s| s.borrow().len()), KEPT_PER_THREAD);
    }
}
