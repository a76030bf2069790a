//! Test support: an in-memory `File` with fault knobs, and page patterns.
#![allow(dead_code)]

use folio_buffer::{BufferPool, PoolConfig};
use folio_io::File;
use folio_page::{HEADER_SIZE, PAGE_SIZE, Page};
use std::io;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::SeqCst};
use std::sync::{Arc, Mutex};

/// An in-memory file. `fail_sync` makes every sync fail with EIO,
/// `fail_writes` every write fail with ENOSPC;
/// `wal_flushed` (if set) is checked on every page write: a write of a page
/// whose LSN is beyond it is recorded in `wal_violations`.
#[derive(Debug, Default)]
pub struct MemFile {
    pub bytes: Mutex<Vec<u8>>,
    pub fail_sync: AtomicBool,
    pub fail_writes: AtomicBool,
    pub syncs: AtomicU64,
    pub writes: AtomicU64,
    pub wal_flushed: Mutex<Option<Arc<AtomicU64>>>,
    pub wal_violations: AtomicU64,
}

impl MemFile {
    pub fn new() -> Arc<MemFile> {
        Arc::new(MemFile::default())
    }

    /// Flips one bit of the stored bytes, as a disk might.
    pub fn flip_bit(&self, offset_bytes: u64, bit: u8) {
        let mut bytes = self.bytes.lock().unwrap();
        bytes[offset_bytes as usize] ^= 1 << bit;
    }

    pub fn page(&self, page: u64) -> Box<Page> {
        let mut out = Box::new([0u8; PAGE_SIZE]);
        self.read_at(&mut out[..], page * PAGE_SIZE as u64).unwrap();
        out
    }

    pub fn put_page(&self, page: u64, data: &Page) {
        self.write_at(data, page * PAGE_SIZE as u64).unwrap();
    }
}

impl File for MemFile {
    fn read_at(&self, buf: &mut [u8], offset_bytes: u64) -> io::Result<()> {
        let bytes = self.bytes.lock().unwrap();
        let start = (offset_bytes as usize).min(bytes.len());
        let end = (offset_bytes as usize + buf.len()).min(bytes.len());
        buf[..end - start].copy_from_slice(&bytes[start..end]);
        buf[end - start..].fill(0);
        Ok(())
    }

    fn write_at(&self, buf: &[u8], offset_bytes: u64) -> io::Result<()> {
        if self.fail_writes.load(SeqCst) {
            return Err(io::Error::from_raw_os_error(28));
        }
        if let Some(flushed) = self.wal_flushed.lock().unwrap().as_ref() {
            let lsn = u64::from_le_bytes(buf[0..8].try_into().unwrap());
            if lsn > flushed.load(SeqCst) {
                self.wal_violations.fetch_add(1, SeqCst);
            }
        }
        self.writes.fetch_add(1, SeqCst);
        let mut bytes = self.bytes.lock().unwrap();
        let end = offset_bytes as usize + buf.len();
        if bytes.len() < end {
            bytes.resize(end, 0);
        }
        bytes[offset_bytes as usize..end].copy_from_slice(buf);
        Ok(())
    }

    fn sync(&self) -> io::Result<()> {
        self.syncs.fetch_add(1, SeqCst);
        if self.fail_sync.load(SeqCst) {
            return Err(io::Error::from_raw_os_error(5));
        }
        Ok(())
    }

    fn set_len(&self, len_bytes: u64) -> io::Result<()> {
        self.bytes.lock().unwrap().resize(len_bytes as usize, 0);
        Ok(())
    }

    fn len(&self) -> io::Result<u64> {
        Ok(self.bytes.lock().unwrap().len() as u64)
    }
}

/// A small pool configuration: `frames` frames, 64 MiB addressable.
pub fn config(frames: u64, checksums: bool) -> PoolConfig {
    PoolConfig {
        pool_size_bytes: frames * PAGE_SIZE as u64,
        max_database_bytes: 64 << 20,
        checksums,
        eviction_batch_pages: 8,
        huge_pages: true,
    }
}

pub fn create(file: &Arc<MemFile>, frames: u64, checksums: bool) -> Arc<BufferPool> {
    BufferPool::create(file.clone(), config(frames, checksums)).unwrap()
}

/// splitmix64: the pattern generator.
pub fn mix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

/// Where the write counter lives; the pattern fills the rest after the header.
pub const COUNTER_AT: usize = HEADER_SIZE;
pub const PATTERN_AT: usize = HEADER_SIZE + 8;

/// The 8-byte word at `offset` (>= PATTERN_AT, 8-aligned) of page `page`'s
/// `counter`-th write.
pub fn pattern_word(page: u64, counter: u64, offset: usize) -> u64 {
    mix(page << 40 ^ counter << 16 ^ offset as u64)
}

/// Writes the whole pattern of (page, counter) into `data`.
pub fn fill_pattern(data: &mut Page, page: u64, counter: u64) {
    data[COUNTER_AT..COUNTER_AT + 8].copy_from_slice(&counter.to_le_bytes());
    for offset in (PATTERN_AT..PAGE_SIZE).step_by(8) {
        data[offset..offset + 8]
            .copy_from_slice(&pattern_word(page, counter, offset).to_le_bytes());
    }
}

/// Checks that `data` is exactly some (page, counter) pattern; returns the counter.
pub fn check_pattern(data: &Page, page: u64) -> Result<u64, String> {
    let counter = u64::from_le_bytes(data[COUNTER_AT..COUNTER_AT + 8].try_into().unwrap());
    for offset in (PATTERN_AT..PAGE_SIZE).step_by(8) {
        let word = u64::from_le_bytes(data[offset..offset + 8].try_into().unwrap());
        if word != pattern_word(page, counter, offset) {
            return Err(format!(
                "page {page} counter {counter}: torn at offset {offset}"
            ));
        }
    }
    Ok(counter)
}
