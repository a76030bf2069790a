//! The pool over folio-io's simulated device: media corruption, power loss
//! with torn and lost writes, and a failed sync.

mod common;

use common::{check_pattern, config, fill_pattern};
use folio_buffer::{BufferError, BufferPool};
use folio_io::{Dir, Fault, OpKind, OpenOptions, SimConfig, SimDir};
use folio_page::{PAGE_SIZE, PageId};

const PAGES: u64 = 24;

fn create(dir: &SimDir, frames: u64) -> std::sync::Arc<BufferPool> {
    let file = dir.open("db", OpenOptions::CREATE_NEW).unwrap();
    let pool = BufferPool::create(file, config(frames, true)).unwrap();
    dir.sync_dir().unwrap(); // the file's name survives a crash
    pool
}

fn open(dir: &SimDir, frames: u64) -> std::sync::Arc<BufferPool> {
    BufferPool::open(
        dir.open("db", OpenOptions::EXISTING).unwrap(),
        config(frames, true),
    )
    .unwrap()
}

fn write_all(pool: &BufferPool, counter: u64) {
    for page in 1..=PAGES {
        let mut guard = pool.exclusive(PageId(page)).unwrap();
        fill_pattern(&mut guard, page, counter);
    }
}

#[test]
fn corrupt_bit_on_media_is_reported_for_that_page() {
    // Proves a bit flipped in the durable image reaches the caller as a
    // Checksum error naming exactly that page; its neighbours read fine.
    let dir = SimDir::new(SimConfig::seeded(1));
    let pool = create(&dir, 8);
    for _ in 1..=PAGES {
        drop(pool.allocate().unwrap());
    }
    write_all(&pool, 0);
    pool.flush_all().unwrap();
    drop(pool);
    dir.corrupt_bit("db", (5 * PAGE_SIZE as u64 + 777) * 8 + 2)
        .unwrap();
    let pool = open(&dir, 8);
    for page in 1..=PAGES {
        let result = pool
            .shared(PageId(page))
            .map(|g| check_pattern(&g, page).unwrap());
        match result {
            Err(BufferError::Checksum(e)) => assert_eq!((page, e.page_id), (5, PageId(5))),
            Ok(counter) => assert!(page != 5 && counter == 0),
            Err(other) => panic!("{other}"),
        }
    }
    pool.check_invariants().unwrap();
}

#[test]
fn power_loss_never_yields_a_silently_wrong_page() {
    // Proves that after a crash with unsynced evictions in flight (lost,
    // applied or torn at 512-byte sectors, chosen by the seed), every page
    // reads either as a complete image of some write or as a Checksum error
    // naming it: a torn page is never accepted. Several seeds.
    let mut total_torn = 0;
    for seed in 0..8 {
        let dir = SimDir::new(SimConfig::seeded(seed));
        let pool = create(&dir, 8);
        for _ in 1..=PAGES {
            drop(pool.allocate().unwrap());
        }
        write_all(&pool, 0);
        pool.flush_all().unwrap();
        write_all(&pool, 1); // 24 pages through 8 frames: unsynced evictions
        let dir = dir.crash();
        drop(pool); // its best-effort flush fails on the dead device
        let pool = open(&dir, 8);
        let mut torn = 0;
        for page in 1..=PAGES {
            match pool.shared(PageId(page)) {
                Ok(guard) => assert!(check_pattern(&guard, page).unwrap() <= 1),
                Err(BufferError::Checksum(e)) => {
                    assert_eq!(e.page_id, PageId(page));
                    torn += 1;
                }
                Err(other) => panic!("seed {seed}: {other}"),
            }
        }
        assert!(torn < PAGES, "seed {seed}: most pages survive");
        total_torn += torn;
        pool.check_invariants().unwrap();
    }
    assert!(
        total_torn > 0,
        "the seeds must tear some pages for this test to mean anything"
    );
}

#[test]
fn eio_on_sync_poisons_the_pool() {
    // Proves a sync failing with EIO on the simulated device is reported
    // and poisons the pool; later writes are refused.
    let dir = SimDir::new(SimConfig::seeded(3));
    let pool = create(&dir, 8);
    let id = pool.allocate().unwrap().page_id();
    dir.add_fault(dir.ops_of_kind(OpKind::Sync), OpKind::Sync, Fault::Eio);
    assert!(matches!(pool.flush_all(), Err(BufferError::Sync { .. })));
    assert!(matches!(pool.exclusive(id), Err(BufferError::Poisoned)));
    assert!(matches!(pool.flush_all(), Err(BufferError::Poisoned)));
}
