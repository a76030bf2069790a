//! Concurrent stress: optimistic, shared and exclusive latching, upgrades,
//! allocation, freeing and eviction at once, over a pool far smaller than
//! the data. Every page holds a pattern derived from (page id, write
//! counter), so a torn read that validates is caught.

mod common;

use common::{MemFile, PATTERN_AT, check_pattern, config, create, fill_pattern, pattern_word};
use folio_buffer::{BufferPool, CleanCursor};
use folio_page::{PAGE_SIZE, PageId};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::SeqCst};

const FRAMES: u64 = 64;
const DATA_PAGES: u64 = 1024;
const THREADS: u64 = 6;
const OPS_PER_THREAD: u64 = 25_000;

struct World<'a> {
    pool: &'a BufferPool,
    /// Last counter written to each data page (set under its exclusive latch).
    last: Vec<AtomicU64>,
    validated_reads: AtomicU64,
}

impl World<'_> {
    fn page(&self, rng: &mut ChaCha8Rng) -> PageId {
        PageId(1 + rng.gen_range(0..DATA_PAGES))
    }

    /// Optimistic read of the counter and a few pattern words; checked only
    /// after validation.
    fn optimistic_words(&self, rng: &mut ChaCha8Rng) {
        let id = self.page(rng);
        let offsets: Vec<usize> = (0..4)
            .map(|_| PATTERN_AT + 8 * rng.gen_range(0..(PAGE_SIZE - PATTERN_AT) / 8))
            .collect();
        loop {
            let guard = self.pool.optimistic(id).unwrap();
            let counter = guard.read_u64(common::COUNTER_AT);
            let words: Vec<u64> = offsets.iter().map(|&o| guard.read_u64(o)).collect();
            if guard.validate().is_err() {
                continue;
            }
            for (&offset, &word) in offsets.iter().zip(&words) {
                assert_eq!(
                    word,
                    pattern_word(id.0, counter, offset),
                    "torn optimistic read accepted: {id} counter {counter}"
                );
            }
            assert!(counter <= self.last[id.0 as usize - 1].load(SeqCst));
            self.validated_reads.fetch_add(1, SeqCst);
            return;
        }
    }

    /// Optimistic copy of the whole page, checked after validation.
    fn optimistic_page(&self, rng: &mut ChaCha8Rng) {
        let id = self.page(rng);
        let mut copy = Box::new([0u8; PAGE_SIZE]);
        loop {
            let guard = self.pool.optimistic(id).unwrap();
            guard.read_page(&mut copy);
            if guard.validate().is_ok() {
                check_pattern(&copy, id.0).expect("torn page copy accepted");
                self.validated_reads.fetch_add(1, SeqCst);
                return;
            }
        }
    }

    fn shared(&self, rng: &mut ChaCha8Rng) {
        let id = self.page(rng);
        let guard = self.pool.shared(id).unwrap();
        let counter = check_pattern(&guard, id.0).unwrap();
        assert_eq!(
            counter,
            self.last[id.0 as usize - 1].load(SeqCst),
            "{id} under a shared latch"
        );
    }

    fn write(&self, rng: &mut ChaCha8Rng) {
        let id = self.page(rng);
        let mut guard = if rng.gen_bool(0.3) {
            match self.pool.optimistic(id).unwrap().upgrade() {
                Ok(guard) => guard,
                Err(_) => return,
            }
        } else {
            self.pool.exclusive(id).unwrap()
        };
        let last = &self.last[id.0 as usize - 1];
        let counter = check_pattern(&guard, id.0).unwrap();
        assert_eq!(counter, last.load(SeqCst), "{id} under an exclusive latch");
        fill_pattern(&mut guard, id.0, counter + 1);
        last.store(counter + 1, SeqCst);
    }
}

#[test]
fn concurrent_latching_allocation_and_eviction() {
    // Proves that under concurrent optimistic/shared/exclusive access,
    // upgrades, allocate/free, flush_all, constant eviction (64 frames,
    // 1024+ pages) and a thread cleaning ahead of the clock,
    // no torn read ever validates, latched pages always hold their last
    // write, and the final contents (in memory and after reopen) are the
    // last writes.
    let file = MemFile::new();
    let pool = create(&file, FRAMES, true);
    for page in 1..=DATA_PAGES {
        let mut guard = pool.allocate().unwrap();
        assert_eq!(guard.page_id(), PageId(page));
        fill_pattern(&mut guard, page, 0);
    }
    let world = World {
        pool: &pool,
        last: (0..DATA_PAGES).map(|_| AtomicU64::new(0)).collect(),
        validated_reads: AtomicU64::new(0),
    };
    let workers_done = AtomicBool::new(false);
    let cleaned = std::thread::scope(|s| {
        let cleaner = s.spawn(|| {
            let mut cursor = CleanCursor::default();
            let mut cleaned = 0;
            while !workers_done.load(SeqCst) {
                cleaned += pool.clean_ahead(&mut cursor, 8).unwrap();
                std::thread::yield_now();
            }
            cleaned
        });
        let mut workers = Vec::new();
        for thread in 0..THREADS {
            let world = &world;
            workers.push(s.spawn(move || {
                let mut rng = ChaCha8Rng::seed_from_u64(0xB0FF_0000 + thread);
                let mut owned: Vec<PageId> = Vec::new();
                for _ in 0..OPS_PER_THREAD {
                    match rng.gen_range(0..100) {
                        0..45 => world.optimistic_words(&mut rng),
                        45..60 => world.optimistic_page(&mut rng),
                        60..78 => world.shared(&mut rng),
                        78..96 => world.write(&mut rng),
                        96 => {
                            if rng.gen_ratio(1, 10) {
                                world.pool.flush_all().unwrap();
                            }
                        }
                        _ => {
                            let mut page = world.pool.allocate().unwrap();
                            let id = page.page_id();
                            assert!(id.0 > DATA_PAGES, "allocate handed out a live data page");
                            fill_pattern(&mut page, id.0, 7);
                            drop(page);
                            owned.push(id);
                            if owned.len() > 3 {
                                let victim = owned.swap_remove(rng.gen_range(0..owned.len()));
                                let guard = world.pool.exclusive(victim).unwrap();
                                check_pattern(&guard, victim.0).unwrap();
                                world.pool.free(guard).unwrap();
                            }
                        }
                    }
                }
            }));
        }
        for worker in workers {
            worker.join().unwrap();
        }
        workers_done.store(true, SeqCst);
        cleaner.join().unwrap()
    });
    let stats = pool.stats();
    // How much the cleaner wrote depends on the schedule (the deterministic
    // tests are in pool.rs); its count must agree with the pool's.
    assert_eq!(stats.cleaned, cleaned);
    assert!(
        stats.evictions > 1000,
        "the test must evict heavily: {stats:?}"
    );
    assert!(world.validated_reads.load(SeqCst) > 1000);
    pool.check_invariants().unwrap();
    pool.flush_all().unwrap();
    for page in 1..=DATA_PAGES {
        let guard = pool.shared(PageId(page)).unwrap();
        assert_eq!(
            check_pattern(&guard, page).unwrap(),
            world.last[page as usize - 1].load(SeqCst)
        );
    }
    let page_count = pool.page_count().unwrap();
    let free_pages = pool.free_page_count().unwrap();
    let last: Vec<u64> = world.last.iter().map(|c| c.load(SeqCst)).collect();
    drop(world);
    drop(pool);

    let pool = BufferPool::open(file, config(FRAMES, true)).unwrap();
    assert_eq!(
        (pool.page_count().unwrap(), pool.free_page_count().unwrap()),
        (page_count, free_pages)
    );
    for page in 1..=DATA_PAGES {
        let guard = pool.shared(PageId(page)).unwrap();
        assert_eq!(
            check_pattern(&guard, page).unwrap(),
            last[page as usize - 1]
        );
    }
    // Every free page is reachable exactly once from the free list.
    let mut popped = std::collections::BTreeSet::new();
    for _ in 0..free_pages {
        let id = pool.allocate().unwrap().page_id();
        assert!(
            id.0 > DATA_PAGES && popped.insert(id),
            "{id} popped twice or a data page"
        );
    }
    assert_eq!(pool.allocate().unwrap().page_id(), PageId(page_count));
    pool.check_invariants().unwrap();
}
