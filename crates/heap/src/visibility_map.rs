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
//! - **In memory**, per open table (the catalog shares one per table),
//!   and **kept across a clean restart** only: at a stop, the catalog
//!   saves every open table's set words ([`VisibilityMap::words`]) with
//!   the WAL position they hold at, and the next open loads them
//!   ([`VisibilityMap::load`]) only if its WAL ends exactly there, so no
//!   page changed since (folio-catalog `table_maps_file.rs`). After a
//!   crash, or any WAL written after the save, every bit starts clear,
//!   which is safe (an index-only scan then reads the heap) until vacuum
//!   sets them again. PostgreSQL's map is persistent and WAL-logged;
//!   folio's trades that for having no logged change of its own.
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

    /// Every word with a bit set, by its index among all of the map's
    /// words: what a save keeps.
    pub fn words(&self) -> Vec<(u32, u64)> {
        let mut set = Vec::new();
        for (c, cell) in self.chunks.iter().enumerate() {
            let Some(words) = cell.get() else { continue };
            for (i, word) in words.iter().enumerate() {
                let word = word.load(Ordering::Acquire);
                if word != 0 {
                    set.push(((c * WORDS_PER_CHUNK + i) as u32, word));
                }
            }
        }
        set
    }

    /// Sets the bits of `words` ([`VisibilityMap::words`] of this table,
    /// saved at a point no page of it has changed since). Indexes beyond
    /// the map are ignored.
    pub fn load(&self, words: &[(u32, u64)]) {
        for &(index, word) in words {
            let (chunk, within) = (
                index as usize / WORDS_PER_CHUNK,
                index as usize % WORDS_PER_CHUNK,
            );
            let Some(cell) = self.chunks.get(chunk) else {
                continue;
            };
            let chunk =
                cell.get_or_init(|| (0..WORDS_PER_CHUNK).map(|_| AtomicU64::new(0)).collect());
            chunk[within].fetch_or(word, Ordering::Release);
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

    // Proves a map's saved words load into another as the same bits.
    #[test]
    fn saved_words_load_as_the_same_bits() {
        let vm = VisibilityMap::default();
        let pages = [0, 63, 64, PAGES_PER_CHUNK * 2 + 5, PAGES_PER_CHUNK * 1023];
        for p in pages {
            vm.set(PageId(p));
        }
        let words = vm.words();
        assert_eq!(words.len(), 4);
        let loaded = VisibilityMap::default();
        loaded.load(&words);
        loaded.load(&[(u32::MAX, 1)]); // beyond the map: ignored
        for p in 0..70 {
            assert_eq!(
                loaded.all_visible(PageId(p)),
                pages.contains(&p),
                "page {p}"
            );
        }
        assert!(loaded.all_visible(PageId(PAGES_PER_CHUNK * 2 + 5)));
        assert!(loaded.all_visible(PageId(PAGES_PER_CHUNK * 1023)));
        assert_eq!(loaded.words(), words);
    }
}
