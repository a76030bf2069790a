//! The visibility map: one bit per heap page, set when every version on
//! the page is visible to every snapshot now and later, so an index-only
//! scan can count or return a row from its index entry alone, without
//! reading the heap page (PostgreSQL's visibility map, all-visible bits).
//!
//! - **Set** by vacuum, under the page's exclusive latch, after pruning,
//!   when the page has no Dead line pointer and every version's inserter
//!   committed at or below the horizon with no deleter (a lock-only xmax
//!   is no deleter).
//! - **Cleared** by every change to the page, under its exclusive latch,
//!   before the change is installed (`Table::log`, the one place heap pages
//!   change). A reader that finds the bit set therefore sees a page no
//!   change has touched since vacuum found it all-visible; a change after
//!   its check belongs to a transaction its snapshot does not see.
//! - **In memory only**, per open table (the catalog shares one per
//!   table): after a restart every bit is clear, which is safe (an index-only
//!   scan then reads the heap) until vacuum sets them again. PostgreSQL's
//!   map is persistent and WAL-logged; folio's trades that for having no
//!   logged change of its own.
//!
//! A check is one load; a clear is a load and, only for a page whose bit
//! is set, one read-modify-write.

use folio_page::PageId;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};

const WORDS_PER_CHUNK: usize = 4096;
const PAGES_PER_CHUNK: u64 = WORDS_PER_CHUNK as u64 * 64;
const CHUNKS: usize = 1024;

/// All-visible bits by page id.
#[derive(Debug)]
pub struct VisibilityMap {
    chunks: Box<[OnceLock<Box<[AtomicU64]>>]>,
}

impl Default for VisibilityMap {
    fn default() -> Self {
        VisibilityMap {
            chunks: (0..CHUNKS).map(|_| OnceLock::new()).collect(),
        }
    }
}

impl VisibilityMap {
    fn word(&self, page: PageId, create: bool) -> Option<(&AtomicU64, u64)> {
        let chunk = (page.0 / PAGES_PER_CHUNK) as usize;
        let cell = self.chunks.get(chunk)?;
        let words = if create {
            cell.get_or_init(|| (0..WORDS_PER_CHUNK).map(|_| AtomicU64::new(0)).collect())
        } else {
            cell.get()?
        };
        let within = page.0 % PAGES_PER_CHUNK;
        Some((&words[(within / 64) as usize], 1 << (within % 64)))
    }

    /// Whether every version on `page` is visible to every snapshot.
    pub fn all_visible(&self, page: PageId) -> bool {
        self.word(page, false)
            .is_some_and(|(w, bit)| w.load(Ordering::Acquire) & bit != 0)
    }

    /// Marks `page` all-visible (vacuum, under the page's exclusive latch).
    pub(crate) fn set(&self, page: PageId) {
        if let Some((w, bit)) = self.word(page, true) {
            w.fetch_or(bit, Ordering::Release);
        }
    }

    /// Clears `page`'s bit (a change, under the page's exclusive latch).
    pub(crate) fn clear(&self, page: PageId) {
        if let Some((w, bit)) = self.word(page, false)
            && w.load(Ordering::Acquire) & bit != 0
        {
            w.fetch_and(!bit, Ordering::AcqRel);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Proves bits are per page, across chunks, and clear as set.
    #[test]
    fn bits_are_set_and_cleared_per_page() {
        let vm = VisibilityMap::default();
        let far = PageId(PAGES_PER_CHUNK * 3 + 65);
        assert!(!vm.all_visible(PageId(5)) && !vm.all_visible(far));
        vm.set(PageId(5));
        vm.set(far);
        assert!(vm.all_visible(PageId(5)) && vm.all_visible(far));
        assert!(!vm.all_visible(PageId(4)) && !vm.all_visible(PageId(6)));
        vm.clear(PageId(5));
        assert!(!vm.all_visible(PageId(5)) && vm.all_visible(far));
        vm.clear(PageId(7)); // never set: nothing to do
    }
}
