//! Single-threaded behaviour of the pool: persistence, the meta page, the
//! free list, checksum failures, eviction bounds, poisoning and counters.

mod common;

use common::{MemFile, check_pattern, config, create, fill_pattern};
use folio_buffer::CleanCursor;
use folio_buffer::{BufferError, BufferPool, WalFlusher};
use folio_page::{Lsn, PAGE_SIZE, PageId};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering::SeqCst};

fn read_counter(pool: &BufferPool, page: PageId) -> Result<u64, BufferError> {
    let guard = pool.shared(page)?;
    Ok(check_pattern(&guard, page.0).unwrap())
}

#[test]
fn pages_survive_flush_and_reopen() {
    // Proves allocated pages get consecutive ids after the meta page, and
    // their contents survive flush_all + reopen (through eviction too: the
    // pool has 8 frames for 40 pages).
    let file = MemFile::new();
    let pool = create(&file, 8, true);
    let mut ids = Vec::new();
    for counter in 0..40 {
        let mut page = pool.allocate().unwrap();
        let id = page.page_id().0;
        fill_pattern(&mut page, id, counter);
        ids.push(page.page_id());
    }
    assert_eq!(ids, (1..=40).map(PageId).collect::<Vec<_>>());
    pool.flush_all().unwrap();
    pool.check_invariants().unwrap();
    assert!(
        pool.stats().evictions > 0,
        "40 pages through 8 frames must evict"
    );
    drop(pool);
    let pool = BufferPool::open(file.clone(), config(8, false)).unwrap();
    assert!(
        pool.checksums(),
        "the meta page's checksum flag wins over the config"
    );
    assert_eq!(pool.page_count().unwrap(), 41);
    for (counter, &id) in ids.iter().enumerate() {
        assert_eq!(read_counter(&pool, id).unwrap(), counter as u64);
    }
    pool.check_invariants().unwrap();
}

#[test]
fn free_list_and_roots_survive_reopen() {
    // Proves freed pages go on a persistent LIFO free list that allocate
    // pops (before extending), and root slots persist, across reopen; and
    // freeing the meta page, a never-allocated page or a free page is refused.
    let file = MemFile::new();
    let pool = create(&file, 16, true);
    let ids: Vec<PageId> = (0..10)
        .map(|_| pool.allocate().unwrap().page_id())
        .collect();
    for &id in &ids[2..5] {
        pool.free(pool.exclusive(id).unwrap()).unwrap();
    }
    pool.set_meta_root(3, Some(ids[7])).unwrap();
    pool.set_meta_root(7, Some(ids[1])).unwrap();
    assert_eq!(pool.free_page_count().unwrap(), 3);
    pool.flush_all().unwrap();
    drop(pool);

    let pool = BufferPool::open(file.clone(), config(16, true)).unwrap();
    assert_eq!(pool.free_page_count().unwrap(), 3);
    assert_eq!(pool.meta_root(3).unwrap(), Some(ids[7]));
    assert_eq!(pool.meta_root(7).unwrap(), Some(ids[1]));
    assert_eq!(pool.meta_root(0).unwrap(), None);
    let popped: Vec<PageId> = (0..4).map(|_| pool.allocate().unwrap().page_id()).collect();
    assert_eq!(popped, vec![ids[4], ids[3], ids[2], PageId(11)]);
    let page = pool.allocate().unwrap();
    assert!(page.iter().all(|&b| b == 0), "allocated pages are zeroed");
    drop(page);
    assert_eq!(pool.free_page_count().unwrap(), 0);
    assert!(matches!(
        pool.meta_root(8),
        Err(BufferError::InvalidArgument { .. })
    ));
    assert!(matches!(
        pool.set_meta_root(0, Some(PageId(0))),
        Err(BufferError::InvalidArgument { .. })
    ));
    let meta = pool.exclusive(PageId(0)).unwrap();
    assert!(matches!(
        pool.free(meta),
        Err(BufferError::InvalidArgument { .. })
    ));
}

#[test]
fn bad_meta_page_is_an_error() {
    // Proves open rejects an empty file, a foreign file, a wrong format
    // version, a wrong page size and a corrupt meta page with errors, never
    // a panic; and create refuses a non-empty file.
    let empty = MemFile::new();
    assert!(matches!(
        BufferPool::open(empty, config(8, true)),
        Err(BufferError::BadMeta { .. })
    ));

    let foreign = MemFile::new();
    foreign.put_page(0, &[0xAB; PAGE_SIZE]);
    assert!(matches!(
        BufferPool::open(foreign.clone(), config(8, true)),
        Err(BufferError::BadMeta { .. })
    ));
    assert!(matches!(
        BufferPool::create(foreign, config(8, true)),
        Err(BufferError::FileNotEmpty { len_bytes }) if len_bytes == PAGE_SIZE as u64
    ));

    let file = MemFile::new();
    drop(create(&file, 8, false));
    let good = file.page(0);
    let meta = PAGE_SIZE - folio_buffer::META_SIZE;
    for (offset, what) in [
        (meta + 8, "version"),
        (meta + 12, "page size"),
        (meta, "magic"),
    ] {
        let mut bad = good.clone();
        bad[offset] ^= 0x40;
        file.put_page(0, &bad);
        let result = BufferPool::open(file.clone(), config(8, false));
        assert!(
            matches!(result, Err(BufferError::BadMeta { .. })),
            "{what}: {result:?}"
        );
    }

    let file = MemFile::new();
    drop(create(&file, 8, true));
    file.flip_bit(4000, 3);
    let result = BufferPool::open(file, config(8, true));
    assert!(
        matches!(result, Err(BufferError::Checksum(ref e)) if e.page_id == PageId(0)),
        "{result:?}"
    );
}

#[test]
fn checksum_failure_names_the_page_and_leaves_no_frame() {
    // Proves a flipped bit on disk reaches the caller as Checksum naming the
    // page, through every latch mode, and the frame is not left resident;
    // a page written at another page's offset is detected the same way.
    let file = MemFile::new();
    let pool = create(&file, 8, true);
    for counter in 0..3 {
        let mut page = pool.allocate().unwrap();
        let id = page.page_id().0;
        fill_pattern(&mut page, id, counter);
    }
    pool.flush_all().unwrap();
    drop(pool);
    file.flip_bit(2 * PAGE_SIZE as u64 + 1234, 5);
    let misdirected = file.page(1);
    file.put_page(3, &misdirected);

    let pool = BufferPool::open(file.clone(), config(8, true)).unwrap();
    assert_eq!(read_counter(&pool, PageId(1)).unwrap(), 0);
    for page in [PageId(2), PageId(3)] {
        let is_named = |r: &Result<(), BufferError>| matches!(r, Err(BufferError::Checksum(e)) if e.page_id == page);
        let optimistic = pool.optimistic(page).map(drop);
        assert!(is_named(&optimistic), "{optimistic:?}");
        assert!(is_named(&pool.shared(page).map(drop)));
        assert!(is_named(&pool.exclusive(page).map(drop)));
        pool.check_invariants().unwrap();
    }
    assert_eq!(
        pool.stats().misses,
        7,
        "page 1 once, pages 2 and 3 on every try"
    );
    let (failures, last) = pool.checksum_failures();
    assert_eq!(failures, 6, "pages 2 and 3, three tries each");
    assert!(last.is_some_and(|t| t > 0));
}

#[test]
fn checksums_off_reads_corruption_silently() {
    // Proves the checksum flag is honoured both ways: without checksums a
    // flipped bit is not detected (so the on-path proves verification runs).
    let file = MemFile::new();
    let pool = create(&file, 8, false);
    fill_pattern(&mut pool.allocate().unwrap(), 1, 9);
    pool.flush_all().unwrap();
    drop(pool);
    file.flip_bit(PAGE_SIZE as u64 + 4000, 1);
    let pool = BufferPool::open(file, config(8, true)).unwrap();
    assert!(!pool.checksums());
    let guard = pool.shared(PageId(1)).unwrap();
    assert!(check_pattern(&guard, 1).is_err());
}

#[test]
fn out_of_range_and_out_of_page_reads() {
    // Proves page ids past the reserved region are errors, and optimistic
    // reads past the page end yield zeros rather than panicking.
    let file = MemFile::new();
    let pool = create(&file, 8, true);
    let max = (64 << 20) / PAGE_SIZE as u64;
    assert!(matches!(
        pool.optimistic(PageId(max)),
        Err(BufferError::OutOfRange { .. })
    ));
    assert!(matches!(
        pool.exclusive(PageId(u64::MAX)),
        Err(BufferError::OutOfRange { .. })
    ));
    let mut page = pool.allocate().unwrap();
    page.fill(0xFF);
    let id = page.page_id();
    drop(page);
    let guard = pool.optimistic(id).unwrap();
    assert_eq!(guard.read_u64(PAGE_SIZE - 8), u64::MAX);
    assert_eq!(guard.read_u64(PAGE_SIZE - 4), 0xFFFF_FFFF);
    assert_eq!(guard.read_u32(PAGE_SIZE), 0);
    assert_eq!(guard.read_u16(usize::MAX), 0);
    let mut out = [7u8; 16];
    guard.read_bytes(PAGE_SIZE - 3, &mut out);
    assert_eq!(
        out,
        [0xFF, 0xFF, 0xFF, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]
    );
    guard.read_bytes(usize::MAX, &mut out);
    assert_eq!(out, [0; 16]);
    guard.validate().unwrap();
}

#[test]
fn a_stale_optimistic_read_of_a_page_whose_frame_was_reused_fails_validation() {
    // Proves README "Translation": eviction hands a page's frame to another
    // page, and a reader that started before the eviction may read the new
    // page's bytes, but its validation fails; every frame stays free or
    // owned by exactly one resident page.
    let file = MemFile::new();
    let pool = create(&file, 8, true);
    let victim = allocate_patterned(&pool, 1)[0];
    let stale = pool.optimistic(victim).unwrap();
    let others = allocate_patterned(&pool, 40);
    assert!(
        !pool.is_resident(victim),
        "40 pages through 8 frames evict it"
    );
    assert!(stale.validate().is_err());
    pool.check_invariants().unwrap();
    for &id in std::iter::once(&victim).chain(&others) {
        assert_eq!(read_counter(&pool, id).unwrap(), id.0);
    }
    pool.check_invariants().unwrap();
}

#[test]
fn optimistic_validation_and_upgrade() {
    // Proves a writer invalidates earlier optimistic reads (validate and
    // upgrade both restart), and an untouched read upgrades to exclusive.
    let file = MemFile::new();
    let pool = create(&file, 8, true);
    let id = pool.allocate().unwrap().page_id();
    let stale = pool.optimistic(id).unwrap();
    let fresh_before = pool.stats();
    pool.exclusive(id).unwrap()[100] = 1;
    assert!(stale.validate().is_err());
    assert!(stale.upgrade().is_err());
    assert_eq!(
        pool.stats().optimistic_restarts - fresh_before.optimistic_restarts,
        2
    );
    let read = pool.optimistic(id).unwrap();
    assert_eq!(read.read_u16(100), 1);
    let mut upgraded = read.upgrade().unwrap();
    upgraded[101] = 2;
    drop(upgraded);
    let shared = pool.shared(id).unwrap();
    let other = pool.shared(id).unwrap();
    assert_eq!((shared[100], other[101]), (1, 2));
    assert!(
        pool.optimistic(id).unwrap().validate().is_ok(),
        "shared holders do not invalidate"
    );
}

#[test]
fn cached_optimistic_reads_do_no_rmw() {
    // Proves the hot path writes no shared memory: optimistic reads of
    // cached pages add hits but zero state-word RMWs and no restarts, with
    // checksums on.
    let file = MemFile::new();
    let pool = create(&file, 16, true);
    let ids: Vec<PageId> = (0..4).map(|_| pool.allocate().unwrap().page_id()).collect();
    let before = pool.stats();
    for round in 0..1000 {
        let guard = pool.optimistic(ids[round % ids.len()]).unwrap();
        let _ = guard.read_u64(64);
        guard.validate().unwrap();
    }
    let after = pool.stats();
    assert_eq!(after.state_rmw, before.state_rmw);
    assert_eq!(after.hits - before.hits, 1000);
    assert_eq!(after.misses, before.misses);
    assert_eq!(after.optimistic_restarts, before.optimistic_restarts);
    // Shared latches do RMW: lock and unlock.
    drop(pool.shared(ids[0]).unwrap());
    assert_eq!(pool.stats().state_rmw - after.state_rmw, 2);
}

#[test]
fn stats_are_summed_over_threads() {
    // Proves per-thread counter blocks are summed, including threads that
    // have exited.
    let file = MemFile::new();
    let pool = create(&file, 16, true);
    let id = pool.allocate().unwrap().page_id();
    let before = pool.stats().hits;
    std::thread::scope(|s| {
        for _ in 0..4 {
            s.spawn(|| {
                for _ in 0..250 {
                    pool.optimistic(id).unwrap().validate().unwrap();
                }
            });
        }
    });
    assert_eq!(pool.stats().hits - before, 1000);
}

#[derive(Debug, Default)]
struct RecordingWal {
    flushed: Arc<AtomicU64>,
    calls: AtomicU64,
}

impl WalFlusher for RecordingWal {
    fn flush_to(&self, lsn: Lsn) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
        self.calls.fetch_add(1, SeqCst);
        self.flushed.fetch_max(lsn.0, SeqCst);
        Ok(())
    }
}

#[test]
fn wal_is_flushed_before_dirty_pages_are_written() {
    // Proves the WAL rule: no page reaches the file with an LSN beyond what
    // the flusher was asked to make durable, on eviction and on flush_all,
    // with one flush per batch rather than per page.
    let file = MemFile::new();
    let pool = create(&file, 8, true);
    let wal = Arc::new(RecordingWal::default());
    *file.wal_flushed.lock().unwrap() = Some(wal.flushed.clone());
    pool.set_wal_flusher(wal.clone());
    for lsn in 1..=64u64 {
        let mut page = pool.allocate().unwrap();
        folio_page::set_header_lsn(&mut page, Lsn(lsn * 100));
    }
    pool.flush_all().unwrap();
    assert_eq!(file.wal_violations.load(SeqCst), 0);
    assert_eq!(wal.flushed.load(SeqCst), 6400);
    let writes = pool.stats().writes;
    assert!(writes >= 64);
    assert!(
        wal.calls.load(SeqCst) < writes / 2,
        "one WAL flush per batch"
    );
}

#[test]
fn failed_sync_poisons_the_pool() {
    // Proves a failed sync is reported once as Sync, never retried, and
    // every later write path answers Poisoned while reads still work.
    let file = MemFile::new();
    let pool = create(&file, 8, true);
    let id = {
        let mut page = pool.allocate().unwrap();
        let id = page.page_id().0;
        fill_pattern(&mut page, id, 1);
        page.page_id()
    };
    file.fail_sync.store(true, SeqCst);
    assert!(matches!(pool.flush_all(), Err(BufferError::Sync { .. })));
    let syncs = file.syncs.load(SeqCst);
    assert!(pool.is_poisoned());
    assert!(matches!(pool.flush_all(), Err(BufferError::Poisoned)));
    assert!(matches!(pool.exclusive(id), Err(BufferError::Poisoned)));
    assert!(matches!(pool.allocate(), Err(BufferError::Poisoned)));
    assert_eq!(read_counter(&pool, id).unwrap(), 1);
    drop(pool);
    assert_eq!(
        file.syncs.load(SeqCst),
        syncs,
        "never retried, not even on drop"
    );
}

#[test]
fn pool_exhausted_when_every_frame_is_latched() {
    // Proves a fault with every frame latched fails with PoolExhausted
    // instead of hanging (8 frames: 7 latched pages, and the meta page that
    // allocate itself latches).
    let file = MemFile::new();
    let pool = create(&file, 8, true);
    let guards: Vec<_> = (0..7).map(|_| pool.allocate().unwrap()).collect();
    assert!(matches!(pool.allocate(), Err(BufferError::PoolExhausted)));
    drop(guards);
    pool.allocate().unwrap();
    pool.check_invariants().unwrap();
}

#[test]
fn real_files_round_trip() {
    // Proves the pool works over folio-io's real files (FsDir): create,
    // write through eviction, flush, reopen, read back.
    use folio_io::{Dir, FsDir, OpenOptions};
    let tmp = tempfile::tempdir().unwrap();
    let dir = FsDir::open(tmp.path()).unwrap();
    let file = dir.open("db", OpenOptions::CREATE_NEW).unwrap();
    let pool = BufferPool::create(file, config(8, true)).unwrap();
    for counter in 0..20 {
        let mut page = pool.allocate().unwrap();
        let id = page.page_id().0;
        fill_pattern(&mut page, id, counter);
    }
    pool.flush_all().unwrap();
    drop(pool);
    let file = dir.open("db", OpenOptions::EXISTING).unwrap();
    let pool = BufferPool::open(file, config(8, true)).unwrap();
    for page in 1..=20 {
        assert_eq!(read_counter(&pool, PageId(page)).unwrap(), page - 1);
    }
}

/// Allocates `n` pages, each filled with its (page, counter = page) pattern.
fn allocate_patterned(pool: &BufferPool, n: usize) -> Vec<PageId> {
    (0..n)
        .map(|_| {
            let mut page = pool.allocate().unwrap();
            let id = page.page_id().0;
            fill_pattern(&mut page, id, id);
            page.page_id()
        })
        .collect()
}

fn huge_config(frames: u64) -> folio_buffer::PoolConfig {
    folio_buffer::PoolConfig {
        max_database_bytes: 256 << 20,
        ..config(frames, true)
    }
}

#[test]
fn huge_pages_stay_on_through_eviction_with_every_page_intact() {
    // Proves README "Huge pages": the frames are a fixed set, so their huge
    // pages are kept whatever the pool does; 1,100 pages pass through 512
    // frames and every one reads back intact.
    let file = MemFile::new();
    let pool = BufferPool::create(file.clone(), huge_config(512)).unwrap();
    if !pool.huge_pages_active() {
        eprintln!("skipped: this kernel has no transparent huge pages");
        return;
    }
    let first = allocate_patterned(&pool, 400);
    assert_eq!(pool.stats().evictions, 0);
    let second = allocate_patterned(&pool, 700);
    assert!(pool.stats().evictions > 0);
    assert!(pool.huge_pages_active(), "eviction keeps the huge pages");
    for &id in first.iter().chain(&second) {
        assert_eq!(read_counter(&pool, id).unwrap(), id.0);
    }
    pool.check_invariants().unwrap();
}

#[test]
fn huge_pages_off_and_small_pools_never_use_them() {
    let file = MemFile::new();
    let off = BufferPool::create(
        file.clone(),
        folio_buffer::PoolConfig {
            huge_pages: false,
            ..huge_config(512)
        },
    )
    .unwrap();
    assert!(!off.huge_pages_active());
    drop(off);
    // 8 frames are less than one huge page.
    let small = BufferPool::create(MemFile::new(), config(8, true)).unwrap();
    assert!(!small.huge_pages_active());
}

#[test]
fn optimistic_scalar_reads_match_the_bytes_at_every_offset() {
    // Proves the word-load implementation of read_u16/u32/u64 (aligned,
    // straddling two words, and past the page end, which reads as zeros)
    // against the page's bytes at every offset.
    let file = MemFile::new();
    let pool = create(&file, 8, true);
    let id = {
        let mut page = pool.allocate().unwrap();
        for (i, byte) in page.iter_mut().enumerate() {
            *byte = (i as u8).wrapping_mul(37).wrapping_add((i >> 8) as u8);
        }
        page.page_id()
    };
    let bytes: Vec<u8> = pool.shared(id).unwrap().to_vec();
    let at = |offset: usize, n: usize| -> u64 {
        let mut b = [0u8; 8];
        for (k, slot) in b.iter_mut().take(n).enumerate() {
            *slot = bytes.get(offset + k).copied().unwrap_or(0);
        }
        u64::from_le_bytes(b)
    };
    let guard = pool.optimistic(id).unwrap();
    for offset in 0..PAGE_SIZE + 16 {
        assert_eq!(
            u64::from(guard.read_u16(offset)),
            at(offset, 2),
            "u16 at {offset}"
        );
        assert_eq!(
            u64::from(guard.read_u32(offset)),
            at(offset, 4),
            "u32 at {offset}"
        );
        assert_eq!(guard.read_u64(offset), at(offset, 8), "u64 at {offset}");
    }
    guard.validate().unwrap();
}

#[test]
fn keep_resident_protects_a_page_from_the_clock_as_a_read_does() {
    // Proves `keep_resident` reports residency (false for a page not in the
    // pool or out of range) and gives a resident page its second chance
    // without reading it: a page kept before every miss stays in a 64-frame
    // pool while 400 other pages stream through, and the same page not kept
    // is evicted. (Kept only once the stream runs: a clock round that must
    // sweep two turns, as the first one over an unmarked pool does, marks
    // and evicts in one go, which no second chance outlives.)
    for keep in [false, true] {
        let file = MemFile::new();
        let pool = create(&file, 64, true);
        let ids: Vec<PageId> = (0..401)
            .map(|counter| {
                let mut page = pool.allocate().unwrap();
                let id = page.page_id().0;
                fill_pattern(&mut page, id, counter);
                page.page_id()
            })
            .collect();
        pool.flush_all().unwrap();
        assert!(!pool.keep_resident(PageId(1 << 40)), "out of range");
        let hot = ids[200];
        for &id in &ids[..200] {
            read_counter(&pool, id).unwrap();
        }
        read_counter(&pool, hot).unwrap();
        for &id in &ids[201..] {
            if keep {
                assert!(pool.keep_resident(hot));
            }
            read_counter(&pool, id).unwrap();
        }
        assert_eq!(pool.keep_resident(hot), keep, "kept: {keep}");
        let misses = pool.stats().misses;
        assert_eq!(read_counter(&pool, hot).unwrap(), 200);
        assert_eq!(pool.stats().misses == misses, keep, "kept: {keep}");
        pool.check_invariants().unwrap();
    }
}

/// A pool of 64 frames whose resident pages are nearly all dirty, after an
/// eviction round has marked them: what `clean_ahead` works on. Returns the
/// pool and the counter each page now holds, by page.
fn marked_dirty_pool(file: &Arc<MemFile>) -> (Arc<BufferPool>, Vec<(PageId, u64)>) {
    let pool = create(file, 64, true);
    let mut pages: Vec<(PageId, u64)> = (0..200)
        .map(|counter| {
            let mut page = pool.allocate().unwrap();
            let id = page.page_id().0;
            fill_pattern(&mut page, id, counter);
            (page.page_id(), counter)
        })
        .collect();
    pool.flush_all().unwrap();
    // Dirty every resident page (each gets a new counter).
    for (id, counter) in pages.iter_mut() {
        if pool.is_resident(*id) {
            *counter += 1000;
            let mut page = pool.exclusive(*id).unwrap();
            fill_pattern(&mut page, id.0, *counter);
        }
    }
    // Misses until an eviction round has run: it marks every page and
    // evicts a batch.
    let evictions = pool.stats().evictions;
    for &(id, _) in &pages {
        if pool.stats().evictions > evictions {
            break;
        }
        if !pool.is_resident(id) {
            read_counter(&pool, id).unwrap();
        }
    }
    assert!(pool.stats().evictions > evictions);
    (pool, pages)
}

#[test]
fn clean_ahead_writes_what_the_clock_evicts_next_so_eviction_need_not() {
    // Proves the cleaner writes only once the pool evicts; that it writes
    // Marked dirty pages ahead of the clock hand and leaves them marked, so
    // the next eviction round evicts them without writing; and that every
    // page keeps its latest contents.
    let roomy = create(&MemFile::new(), 256, true);
    let mut page = roomy.allocate().unwrap();
    let id = page.page_id().0;
    fill_pattern(&mut page, id, 1);
    drop(page);
    let mut cursor = CleanCursor::default();
    assert_eq!(
        roomy.clean_ahead(&mut cursor, 8).unwrap(),
        0,
        "room: no cleaning"
    );
    assert!(!roomy.is_evicting());

    let file = MemFile::new();
    let (pool, pages) = marked_dirty_pool(&file);
    assert!(pool.is_evicting());
    let mut cursor = CleanCursor::default();
    let mut cleaned = 0;
    loop {
        let written = pool.clean_ahead(&mut cursor, 8).unwrap();
        if written == 0 {
            break;
        }
        cleaned += written;
    }
    assert!(cleaned > 0, "dirty marked pages lay ahead of the hand");
    assert_eq!(pool.stats().cleaned, cleaned);
    // Misses (of clean pages) until the next eviction round has run.
    let before = pool.stats();
    for &(id, _) in &pages {
        if pool.stats().evictions > before.evictions {
            break;
        }
        if !pool.is_resident(id) {
            read_counter(&pool, id).unwrap();
        }
    }
    let after = pool.stats();
    let evicted = after.evictions - before.evictions;
    let written = after.writes - before.writes;
    // The round claims the chunk at the hand, which the cleaner's reach
    // (a quarter turn, at least one chunk) covered: every page it evicts
    // was cleaned or read clean. Released unmarked instead, the cleaned
    // pages would survive this round and dirty ones be written (13 writes
    // for 17 evictions, measured).
    assert!(evicted > 0);
    assert_eq!(
        written, 0,
        "cleaned pages are evicted without a write: {written} writes for {evicted} evictions"
    );
    for &(id, counter) in &pages {
        assert_eq!(read_counter(&pool, id).unwrap(), counter, "{id:?}");
    }
    pool.check_invariants().unwrap();
}

#[test]
fn a_failed_cleaner_write_loses_nothing() {
    // Proves a write error reaches the cleaner's caller and leaves the pages
    // it could not write dirty: once writes work again, flush_all writes
    // them and every page reads back with its latest contents from disk.
    let file = MemFile::new();
    let (pool, pages) = marked_dirty_pool(&file);
    file.fail_writes.store(true, SeqCst);
    let error = pool
        .clean_ahead(&mut CleanCursor::default(), 8)
        .unwrap_err();
    assert!(matches!(error, BufferError::Io { .. }), "{error}");
    assert_eq!(pool.stats().cleaned, 0);
    file.fail_writes.store(false, SeqCst);
    pool.flush_all().unwrap();
    pool.check_invariants().unwrap();
    drop(pool);
    let pool = BufferPool::open(file.clone(), config(64, true)).unwrap();
    for &(id, counter) in &pages {
        assert_eq!(read_counter(&pool, id).unwrap(), counter, "{id:?}");
    }
}

#[test]
fn a_sealed_pool_refuses_changes_and_still_writes_out() {
    // Proves `seal`: after it, exclusive latches, upgrades and allocations
    // are refused (`Sealed`) while reads go on, and `flush_all` writes
    // every change made before it, which a reopen reads back.
    let file = MemFile::new();
    let pool = create(&file, 8, true);
    let mut ids = Vec::new();
    for counter in 0..12 {
        let mut page = pool.allocate().unwrap();
        let id = page.page_id();
        fill_pattern(&mut page, id.0, counter);
        ids.push(id);
    }
    pool.seal();
    assert!(matches!(pool.exclusive(ids[0]), Err(BufferError::Sealed)));
    assert!(matches!(pool.allocate(), Err(BufferError::Sealed)));
    assert!(pool.optimistic(ids[1]).unwrap().upgrade().is_err());
    assert_eq!(read_counter(&pool, ids[2]).unwrap(), 2);
    pool.flush_all().unwrap();
    drop(pool);
    let pool = BufferPool::open(file.clone(), config(8, true)).unwrap();
    for (counter, &id) in ids.iter().enumerate() {
        assert_eq!(read_counter(&pool, id).unwrap(), counter as u64);
    }
}
