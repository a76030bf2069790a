//! Helpers shared by the WAL integration tests.
#![allow(dead_code)]

use folio_io::{Dir, File, OpenOptions};
use folio_page::{PAGE_SIZE, Page, PageId};
use folio_wal::{Record, RecordBuilder, RmgrId, WalConfig, WalReader};
use std::io;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// The test resource manager.
pub const TEST_RMGR: RmgrId = RmgrId(7);

/// A small-segment configuration so tests cross segments quickly.
pub fn small_config() -> WalConfig {
    WalConfig {
        segment_size_bytes: 8 * 8192,
        buffer_pages: 16,
        min_wal_size_bytes: 0,
        max_wal_size_bytes: 1 << 30,
        init_zero: false,
        ..WalConfig::default()
    }
}

/// Deterministic payload for record `(writer, seq)`: its length varies so
/// records straddle pages at many offsets.
pub fn payload(writer: u64, seq: u64) -> Vec<u8> {
    let len = ((writer * 7919 + seq * 104_729) % 3000) as usize + 1;
    let mut v = Vec::with_capacity(len + 16);
    v.extend_from_slice(&writer.to_le_bytes());
    v.extend_from_slice(&seq.to_le_bytes());
    v.extend((0..len).map(|i| (i as u64 ^ seq ^ writer) as u8));
    v
}

/// A page image derived from `seed`.
pub fn image(seed: u64) -> Box<Page> {
    let mut p = Box::new([0u8; PAGE_SIZE]);
    for (i, b) in p.iter_mut().enumerate() {
        *b = (i as u64).wrapping_mul(seed | 1).wrapping_add(seed) as u8;
    }
    p
}

/// Checks that `rec` carries `payload(writer, seq)` in its main data and
/// returns `(writer, seq)`.
pub fn parse_payload(rec: &Record) -> (u64, u64) {
    assert!(rec.data.len() >= 16, "record too short: {rec:?}");
    let writer = u64::from_le_bytes(rec.data[..8].try_into().unwrap());
    let seq = u64::from_le_bytes(rec.data[8..16].try_into().unwrap());
    assert_eq!(
        rec.data,
        payload(writer, seq),
        "payload of ({writer}, {seq})"
    );
    (writer, seq)
}

/// Builds the standard test record: payload as main data, every 5th one
/// with a page image of a page derived from the sequence.
pub fn with_record<R>(writer: u64, seq: u64, f: impl FnOnce(&RecordBuilder<'_>) -> R) -> R {
    let data = payload(writer, seq);
    let img = image(seq);
    let mut b = RecordBuilder::new(TEST_RMGR, (seq % 4) as u8);
    let blk = b
        .register_page(
            PageId(writer * 1_000_000 + seq),
            seq.is_multiple_of(5).then_some(&*img),
        )
        .unwrap();
    let tag = seq.to_le_bytes();
    b.register_page_data(blk, &tag).unwrap();
    b.register_data(&data).unwrap();
    f(&b)
}

/// Reads every record of the WAL in `dir`, checking back-links and order.
pub fn read_all(dir: Arc<dyn Dir>) -> Vec<Record> {
    let reader = WalReader::open(dir, Default::default()).unwrap();
    let mut out: Vec<Record> = Vec::new();
    for rec in reader {
        let rec = rec.unwrap();
        if let Some(last) = out.last() {
            assert_eq!(rec.prev_lsn, last.lsn, "back-link");
            assert!(rec.lsn >= last.end_lsn, "LSN order");
        }
        out.push(rec);
    }
    out
}

/// A directory whose files take `sync_delay` per fsync and count them:
/// models a device with real flush latency, so group commit can be observed
/// without depending on the test machine's disk.
#[derive(Debug)]
pub struct SlowSyncDir {
    pub inner: Arc<dyn Dir>,
    pub sync_delay: Duration,
    pub syncs: Arc<AtomicU64>,
}

#[derive(Debug)]
struct SlowSyncFile {
    inner: Arc<dyn File>,
    sync_delay: Duration,
    syncs: Arc<AtomicU64>,
}

impl File for SlowSyncFile {
    fn read_at(&self, buf: &mut [u8], offset_bytes: u64) -> io::Result<()> {
        self.inner.read_at(buf, offset_bytes)
    }
    fn write_at(&self, buf: &[u8], offset_bytes: u64) -> io::Result<()> {
        self.inner.write_at(buf, offset_bytes)
    }
    fn sync(&self) -> io::Result<()> {
        std::thread::sleep(self.sync_delay);
        self.syncs.fetch_add(1, Ordering::Relaxed);
        self.inner.sync()
    }
    fn set_len(&self, len_bytes: u64) -> io::Result<()> {
        self.inner.set_len(len_bytes)
    }
    fn len(&self) -> io::Result<u64> {
        self.inner.len()
    }
}

impl Dir for SlowSyncDir {
    fn open(&self, name: &str, options: OpenOptions) -> io::Result<Arc<dyn File>> {
        Ok(Arc::new(SlowSyncFile {
            inner: self.inner.open(name, options)?,
            sync_delay: self.sync_delay,
            syncs: self.syncs.clone(),
        }))
    }
    fn remove(&self, name: &str) -> io::Result<()> {
        self.inner.remove(name)
    }
    fn rename(&self, from: &str, to: &str) -> io::Result<()> {
        self.inner.rename(from, to)
    }
    fn exists(&self, name: &str) -> io::Result<bool> {
        self.inner.exists(name)
    }
    fn list(&self) -> io::Result<Vec<String>> {
        self.inner.list()
    }
    fn sync_dir(&self) -> io::Result<()> {
        self.inner.sync_dir()
    }
}

/// Every file of `dir` with its contents: what a refused open must leave
/// exactly as it found it.
pub fn dir_image(dir: &dyn Dir) -> std::collections::BTreeMap<String, Vec<u8>> {
    dir.list()
        .unwrap()
        .into_iter()
        .map(|name| {
            let file = dir.open(&name, folio_io::OpenOptions::EXISTING).unwrap();
            let mut bytes = vec![0u8; file.len().unwrap() as usize];
            file.read_at(&mut bytes, 0).unwrap();
            (name, bytes)
        })
        .collect()
}
