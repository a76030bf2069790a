//! Data-file space (`extent.rs`): the file grows, durably, when a page past
//! its end is allocated, so a full disk fails the allocation and never a
//! write-back; and a data file shorter than its meta page's count is
//! refused at open with both lengths.

mod common;

use common::*;
use folio_buffer::{BufferError, BufferPool, MIN_EXTENT_PAGES, extent_pages};
use folio_io::{Dir, File, OpenOptions, SimConfig, SimDir};
use folio_page::{PAGE_SIZE, PageId};
use std::sync::Arc;

const PAGE_BYTES: u64 = PAGE_SIZE as u64;

fn sim_file(dir: &SimDir) -> Arc<dyn File> {
    dir.open("data", OpenOptions::CREATE).unwrap()
}

fn allocate_n(pool: &BufferPool, n: u64) -> Vec<PageId> {
    (0..n)
        .map(|i| {
            let mut page = pool.allocate().unwrap();
            let id = page.page_id();
            fill_pattern(&mut page, id.0, i);
            id
        })
        .collect()
}

// Proves the file grows in extents ahead of allocation and each growth is
// durable at once: after a crash (no flush, no checkpoint) the file still
// holds every allocated page, so recovery would write only inside it.
#[test]
fn the_file_grows_in_durable_extents_at_allocation() {
    let dir = SimDir::new(SimConfig::seeded(3));
    let pool = BufferPool::create(sim_file(&dir), config(16, true)).unwrap();
    assert_eq!(pool.reserved_pages(), MIN_EXTENT_PAGES);
    let first = MIN_EXTENT_PAGES;
    allocate_n(&pool, first);
    assert_eq!(pool.page_count().unwrap(), first + 1);
    assert_eq!(pool.reserved_pages(), first + extent_pages(first));
    drop(pool);
    let after = dir.crash();
    let durable = after.read_durable("data").unwrap().len() as u64;
    assert_eq!(durable, (first + extent_pages(first)) * PAGE_BYTES);
}

// Proves a full disk fails the allocation that needs a new extent with
// NoSpace (ENOSPC, the bytes needed, the file's length) and changes nothing;
// every page allocated before is still written back (flush_all) on the full
// disk; an allocation that fits the reserved extent still succeeds; and
// once space returns allocation continues.
#[test]
fn a_full_disk_fails_the_allocation_never_the_write_back() {
    let dir = SimDir::new(SimConfig::seeded(4));
    let pool = BufferPool::create(sim_file(&dir), config(8, true)).unwrap();
    let reserved = pool.reserved_pages();
    let ids = allocate_n(&pool, reserved - 2);
    dir.set_full_at_op(dir.op_count());
    allocate_n(&pool, 1); // the last page of the extent: no growth
    let count = pool.page_count().unwrap();
    assert_eq!(count, reserved);
    let err = pool.allocate().unwrap_err();
    match &err {
        BufferError::NoSpace {
            file,
            len_bytes,
            needed_bytes,
            source,
        } => {
            assert_eq!(*len_bytes, reserved * PAGE_BYTES);
            assert_eq!(*needed_bytes, PAGE_BYTES);
            assert_eq!(source.raw_os_error(), Some(28));
            assert_eq!(file, "simulated file data");
        }
        other => panic!("expected NoSpace, got {other}"),
    }
    let message = err.to_string();
    assert!(
        message.contains("data file") && message.contains("free space"),
        "{message}"
    );
    assert_eq!(
        pool.page_count().unwrap(),
        count,
        "a failed allocation changes nothing"
    );
    pool.flush_all().expect("write-back needs no space");
    assert!(!pool.is_poisoned());
    dir.set_capacity_bytes(None);
    allocate_n(&pool, 3);
    pool.flush_all().unwrap();
    drop(pool);
    let pool = BufferPool::open(sim_file(&dir), config(8, true)).unwrap();
    for (counter, id) in ids.iter().enumerate() {
        let page = pool.shared(*id).unwrap();
        assert_eq!(check_pattern(&page, id.0).unwrap(), counter as u64);
    }
}

// Proves a data file cut short is refused, never read as a smaller
// database: open and the recovering open both fail with FileTooShort naming
// the actual and the expected length, at every cut below the count.
#[test]
fn a_truncated_file_is_refused_with_both_lengths() {
    let dir = SimDir::new(SimConfig::seeded(5));
    let pool = BufferPool::create(sim_file(&dir), config(8, true)).unwrap();
    allocate_n(&pool, 40);
    pool.flush_all().unwrap();
    let count = pool.page_count().unwrap();
    drop(pool);
    for cut_pages in [1, count / 2, count - 1] {
        let file = sim_file(&dir);
        file.set_len(cut_pages * PAGE_BYTES).unwrap();
        for recovering in [false, true] {
            let result = if recovering {
                BufferPool::open_for_recovery(file.clone(), config(8, true), true)
            } else {
                BufferPool::open(file.clone(), config(8, true))
            };
            match result {
                Err(BufferError::FileTooShort {
                    file,
                    len_bytes,
                    expected_bytes,
                    page_count,
                }) => {
                    assert_eq!(len_bytes, cut_pages * PAGE_BYTES);
                    assert_eq!(expected_bytes, count * PAGE_BYTES);
                    assert_eq!(page_count, count);
                    assert_eq!(file, "simulated file data");
                }
                other => panic!("cut at {cut_pages} pages: {other:?}"),
            }
        }
        file.set_len(count * PAGE_BYTES).unwrap();
    }
    BufferPool::open(sim_file(&dir), config(8, true)).expect("the full length opens");
}

// Proves the extender: with it running, allocation past the middle of the
// last extent has the thread grow the file by the next extent (counted in
// `extended_ahead`), durably, so the allocations that follow find the
// space there; an allocation never waits for it; and dropping its handle
// stops the thread.
#[test]
fn the_extender_grows_the_file_before_allocation_needs_it() {
    let dir = SimDir::new(SimConfig::seeded(4));
    let pool = BufferPool::create(sim_file(&dir), config(16, true)).unwrap();
    let extender = pool.start_extender().unwrap();
    let first = pool.reserved_pages();
    // Page 0 is the meta page: allocating `first / 2 - 1` pages reaches the
    // middle of the first extent.
    allocate_n(&pool, first / 2 - 1);
    let grown = first + extent_pages(first);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while pool.reserved_pages() < grown {
        assert!(
            std::time::Instant::now() < deadline,
            "the extender never grew the file"
        );
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
    assert_eq!(pool.reserved_pages(), grown);
    assert_eq!(pool.stats().extended_ahead, 1);
    drop(extender);
    // Without the extender, allocation grows the file itself again.
    allocate_n(&pool, grown - first / 2 + 1);
    assert_eq!(pool.stats().extended_ahead, 1);
    let reserved = pool.reserved_pages();
    assert!(reserved > grown);
    // Every growth was durable at once: a crash keeps the whole length.
    drop(pool);
    let after = dir.crash();
    let durable = after.read_durable("data").unwrap().len() as u64;
    assert_eq!(durable, reserved * PAGE_BYTES);
}
