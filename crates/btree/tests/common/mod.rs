//! Test support: a real buffer pool over a temporary file.
#![allow(dead_code)]

use folio_buffer::{BufferPool, PoolConfig};
use folio_io::{Dir, FsDir, OpenOptions};
use folio_page::PAGE_SIZE;
use std::sync::Arc;

/// A pool of `pool_pages` frames over a fresh file in a temporary directory
/// (kept alive by the returned guard).
pub fn pool(pool_pages: u64, checksums: bool) -> (tempfile::TempDir, Arc<BufferPool>) {
    let dir = tempfile::tempdir().unwrap();
    let pool = open(&dir, pool_pages, checksums, true);
    (dir, pool)
}

/// Creates (`create`) or reopens the database file `db` in `dir`.
pub fn open(
    dir: &tempfile::TempDir,
    pool_pages: u64,
    checksums: bool,
    create: bool,
) -> Arc<BufferPool> {
    let fs = FsDir::open(dir.path()).unwrap();
    let options = if create {
        OpenOptions::CREATE_NEW
    } else {
        OpenOptions::EXISTING
    };
    let file = fs.open("db", options).unwrap();
    let config = PoolConfig {
        pool_size_bytes: pool_pages * PAGE_SIZE as u64,
        max_database_bytes: 1 << 30,
        checksums,
        eviction_batch_pages: 8,
        huge_pages: true,
    };
    if create {
        BufferPool::create(file, config).unwrap()
    } else {
        BufferPool::open(file, config).unwrap()
    }
}

/// 8-byte big-endian key.
pub fn key(n: u64) -> [u8; 8] {
    n.to_be_bytes()
}

pub mod wal;
