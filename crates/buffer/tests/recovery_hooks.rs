//! The hooks recovery and checkpoints use: the meta-page logger and the pure
//! redo of its records, prefetch / residency, the redo latch, and the paced
//! checkpoint flush that only tries latches.

mod common;

use common::{MemFile, config, create};
use folio_buffer::{
    ALLOC_EXTEND, ALLOC_FREE, ALLOC_POP, ALLOC_SET_ROOT, BufferError, BufferPool, MetaLogger,
    MetaPageChange, redo_alloc_block,
};
use folio_page::{Lsn, PAGE_SIZE, Page, PageId};
use std::sync::atomic::{AtomicBool, Ordering::SeqCst};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// A logged block: page id, old LSN, data, image after the change.
type Logged = (u8, Vec<(PageId, Lsn, Vec<u8>, Box<Page>)>);

/// Records every call; LSNs count up by 100. `fail` makes calls fail.
#[derive(Debug, Default)]
struct RecordingLogger {
    records: Mutex<Vec<Logged>>,
    fail: AtomicBool,
}

impl MetaLogger for RecordingLogger {
    fn log(
        &self,
        rtype: u8,
        pages: &[MetaPageChange<'_>],
    ) -> Result<Lsn, Box<dyn std::error::Error + Send + Sync>> {
        if self.fail.load(SeqCst) {
            return Err("WAL full".into());
        }
        let mut records = self.records.lock().unwrap();
        records.push((
            rtype,
            pages
                .iter()
                .map(|c| (c.page_id, c.old_lsn, c.data.to_vec(), Box::new(*c.page)))
                .collect(),
        ));
        Ok(Lsn(100 * records.len() as u64))
    }
}

fn logged_pool() -> (Arc<MemFile>, Arc<BufferPool>, Arc<RecordingLogger>) {
    let file = MemFile::new();
    let pool = create(&file, 32, true);
    let logger = Arc::new(RecordingLogger::default());
    pool.set_meta_logger(Some(logger.clone()));
    (file, pool, logger)
}

#[test]
fn allocation_changes_are_logged_stamped_and_redoable() {
    // Proves each allocation-state change calls the logger once with the
    // right type and pages (old LSNs included), stamps the returned LSN on
    // the changed pages, and that replaying the logged blocks with the pure
    // redo functions onto the meta page as it was first reproduces the
    // final meta page and freed page exactly (apart from the LSN field).
    let (_file, pool, logger) = logged_pool();
    let initial_meta = Box::new(*pool.shared(PageId(0)).unwrap());
    let a = pool.allocate().unwrap().page_id();
    let b = pool.allocate().unwrap().page_id();
    pool.set_meta_root(2, Some(b)).unwrap();
    pool.free(pool.exclusive(a).unwrap()).unwrap();
    let c = pool.allocate().unwrap().page_id();
    assert_eq!(c, a, "the freed page is reused");
    pool.free(pool.exclusive(b).unwrap()).unwrap();
    let records = logger.records.lock().unwrap().clone();
    let types: Vec<u8> = records.iter().map(|r| r.0).collect();
    assert_eq!(
        types,
        [
            ALLOC_EXTEND,
            ALLOC_EXTEND,
            ALLOC_SET_ROOT,
            ALLOC_FREE,
            ALLOC_POP,
            ALLOC_FREE
        ]
    );
    let meta = pool.shared(PageId(0)).unwrap();
    assert_eq!(folio_page::header_lsn(&meta), Lsn(600));
    assert_eq!(
        folio_page::header_lsn(&pool.shared(b).unwrap()),
        Lsn(600),
        "the freed page carries the record's LSN"
    );
    // Old LSNs: the meta page's previous stamp each time.
    let old: Vec<u64> = records.iter().map(|r| r.1[0].1.0).collect();
    assert_eq!(old, [0, 100, 200, 300, 400, 500]);
    // Replay.
    let mut replayed = initial_meta;
    let mut freed_b = Box::new([0u8; PAGE_SIZE]);
    for (rtype, blocks) in &records {
        for (index, (page_id, _, data, _)) in blocks.iter().enumerate() {
            let target: &mut Page = if *page_id == PageId(0) {
                &mut replayed
            } else {
                &mut freed_b
            };
            redo_alloc_block(*rtype, index, data, target).unwrap();
        }
    }
    folio_page::set_header_lsn(&mut replayed, Lsn(600));
    assert_eq!(replayed[..], meta[..]);
    let live_b = pool.shared(b).unwrap();
    assert_eq!(freed_b[8..], live_b[8..], "freed page redone (LSN aside)");
    assert_eq!(pool.page_count().unwrap(), 3);
    assert_eq!(pool.free_page_count().unwrap(), 1);
}

#[test]
fn failed_logging_undoes_the_change() {
    // Proves that when the logger fails, allocate / free / set_meta_root
    // return MetaLog and leave the meta page and the freed page exactly as
    // they were: an unlogged change is never visible.
    let (_file, pool, logger) = logged_pool();
    let a = pool.allocate().unwrap().page_id();
    {
        let mut g = pool.exclusive(a).unwrap();
        g[100] = 42;
    }
    let meta_before = Box::new(*pool.shared(PageId(0)).unwrap());
    let page_before = Box::new(*pool.shared(a).unwrap());
    logger.fail.store(true, SeqCst);
    assert!(matches!(pool.allocate(), Err(BufferError::MetaLog { .. })));
    assert!(matches!(
        pool.free(pool.exclusive(a).unwrap()),
        Err(BufferError::MetaLog { .. })
    ));
    assert!(matches!(
        pool.set_meta_root(1, Some(a)),
        Err(BufferError::MetaLog { .. })
    ));
    assert_eq!(pool.shared(PageId(0)).unwrap()[..], meta_before[..]);
    assert_eq!(pool.shared(a).unwrap()[..], page_before[..]);
    logger.fail.store(false, SeqCst);
    assert_eq!(pool.allocate().unwrap().page_id(), PageId(2));
}

#[test]
fn prefetch_residency_and_the_redo_latch() {
    // Proves is_resident follows fault-in and eviction, prefetch advises only
    // non-resident pages, and exclusive_for_redo with overwrite never reads a
    // damaged page from disk (a full-page image will replace it) while a
    // plain redo latch reports its checksum failure.
    let file = MemFile::new();
    {
        let pool = create(&file, 16, true);
        for _ in 0..4 {
            let mut g = pool.allocate().unwrap();
            g[200] = 7;
        }
        pool.flush_all().unwrap();
    }
    file.flip_bit(3 * PAGE_SIZE as u64 + 300, 1);
    let pool = BufferPool::open(file.clone(), config(16, true)).unwrap();
    assert!(!pool.is_resident(PageId(2)));
    assert!(pool.prefetch(PageId(2)).unwrap());
    drop(pool.shared(PageId(2)).unwrap());
    assert!(pool.is_resident(PageId(2)));
    assert!(!pool.prefetch(PageId(2)).unwrap(), "resident: no advice");
    assert!(!pool.is_resident(PageId(1 << 40)));
    assert!(pool.prefetch(PageId(1 << 40)).is_err());
    assert!(matches!(
        pool.exclusive_for_redo(PageId(3), false),
        Err(BufferError::Checksum(_))
    ));
    let mut g = pool.exclusive_for_redo(PageId(3), true).unwrap();
    assert!(g.iter().all(|&b| b == 0), "not read: starts zeroed");
    g[200] = 9;
    drop(g);
    // Beyond the high-water mark: latched like any page.
    drop(pool.exclusive_for_redo(PageId(40), false).unwrap());
}

#[test]
fn paced_flush_skips_latched_pages_and_revisits_them() {
    // Proves the checkpoint flush writes every page dirty at its start, calls
    // the pacing callback, never waits on a latch (a page held exclusively
    // is revisited until released), leaves the pages clean, and gives up
    // with FlushTimeout when a page stays latched past max_wait.
    let file = MemFile::new();
    let pool = create(&file, 64, true);
    for _ in 0..20 {
        let mut g = pool.allocate().unwrap();
        g[500] = 1;
    }
    let held = Arc::new(AtomicBool::new(false));
    let pool2 = pool.clone();
    let held2 = held.clone();
    let holder = std::thread::spawn(move || {
        let mut g = pool2.exclusive(PageId(5)).unwrap();
        g[501] = 2;
        held2.store(true, SeqCst);
        std::thread::sleep(Duration::from_millis(40));
    });
    while !held.load(SeqCst) {
        std::thread::yield_now();
    }
    let mut calls = 0;
    let report = pool
        .flush_dirty_paced(&mut |_| calls += 1, Duration::from_secs(10))
        .unwrap();
    holder.join().unwrap();
    assert_eq!(report.pages_total, 21, "20 pages + the meta page");
    assert!(report.pages_skipped >= 1, "page 5 was held");
    assert!(calls >= 2);
    assert_eq!(
        file.page(5)[501],
        2,
        "the held page was written after release"
    );
    let again = pool
        .flush_dirty_paced(&mut |_| {}, Duration::from_secs(1))
        .unwrap();
    assert_eq!(again.pages_written, 0, "everything clean");
    // A page that stays latched: timeout.
    let g = pool.exclusive(PageId(6)).unwrap();
    let err = pool
        .flush_dirty_paced(&mut |_| {}, Duration::from_millis(5))
        .unwrap_err();
    assert!(matches!(
        err,
        BufferError::FlushTimeout {
            page_id: PageId(6),
            ..
        }
    ));
    drop(g);
}
