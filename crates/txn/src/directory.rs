//! The in-memory map from CSN-log page numbers to page ids: two levels of
//! atomics, filled from the persistent directory (a B+tree, `csn_log.rs`)
//! on first use. A lookup is two loads; nothing is locked or written.

use folio_page::PageId;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};

const CHUNK: usize = 4096;
const CHUNKS: usize = 4096;

/// Log page numbers this process can map: 16M pages of 1020 xids, 17
/// billion transaction ids per run (a limit of this cache, not of the
/// format: the persistent directory is a B+tree).
pub const MAX_LOG_PAGES: u64 = (CHUNK * CHUNKS) as u64;

#[derive(Debug)]
pub(crate) struct PageDirectory {
    chunks: Box<[OnceLock<Box<[AtomicU64]>>]>,
}

impl PageDirectory {
    pub(crate) fn new() -> PageDirectory {
        PageDirectory {
            chunks: (0..CHUNKS).map(|_| OnceLock::new()).collect(),
        }
    }

    /// The page id of log page `page_no`, if known.
    #[inline]
    pub(crate) fn get(&self, page_no: u64) -> Option<PageId> {
        if page_no >= MAX_LOG_PAGES {
            return None;
        }
        let chunk = self.chunks[page_no as usize / CHUNK].get()?;
        match chunk[page_no as usize % CHUNK].load(Ordering::Acquire) {
            0 => None,
            id => Some(PageId(id)),
        }
    }

    /// Records where log page `page_no` lives. False if `page_no` is past
    /// [`MAX_LOG_PAGES`].
    pub(crate) fn set(&self, page_no: u64, page_id: PageId) -> bool {
        if page_no >= MAX_LOG_PAGES {
            return false;
        }
        let chunk = self.chunks[page_no as usize / CHUNK]
            .get_or_init(|| (0..CHUNK).map(|_| AtomicU64::new(0)).collect());
        chunk[page_no as usize % CHUNK].store(page_id.0, Ordering::Release);
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Proves pages are found where they were set, across chunks, unknown
    // ones are None, and numbers past the limit are refused.
    #[test]
    fn pages_are_found_where_they_were_set() {
        let dir = PageDirectory::new();
        assert_eq!(dir.get(0), None);
        assert!(dir.set(0, PageId(10)));
        assert!(dir.set(CHUNK as u64 + 1, PageId(11)));
        assert_eq!(dir.get(0), Some(PageId(10)));
        assert_eq!(dir.get(CHUNK as u64 + 1), Some(PageId(11)));
        assert_eq!(dir.get(1), None);
        assert!(!dir.set(MAX_LOG_PAGES, PageId(12)));
        assert_eq!(dir.get(MAX_LOG_PAGES), None);
    }
}
