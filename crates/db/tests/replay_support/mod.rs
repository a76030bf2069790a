//! Test support for `replay.rs`: a pool and a WAL on one simulated
//! directory wired as the database wires them (this crate's adapters), a
//! tiny resource manager that writes bytes at an offset, and a model of what
//! every page must hold.
#![allow(dead_code)]

use folio_buffer::{BufferPool, PoolConfig};
use folio_db::{PageAllocRedo, WalMetaLogger, WalPageFlusher};
use folio_io::{Dir, OpenOptions, SimDir};
use folio_page::{HEADER_SIZE, Lsn, PAGE_SIZE, Page, PageId};
use folio_recovery::RedoRegistry;
use folio_wal::{PageRedo, Record, RecordBuilder, RedoError, RmgrId, Wal, WalConfig};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::BTreeMap;
use std::sync::Arc;

pub const TEST_RMGR: RmgrId = RmgrId(200);
pub const DATA_FILE: &str = "data";

/// Block data: offset (u16) then the bytes to write there.
#[derive(Debug)]
pub struct TestRedo;

impl PageRedo for TestRedo {
    fn rmgr(&self) -> RmgrId {
        TEST_RMGR
    }
    fn name(&self) -> &'static str {
        "TEST"
    }
    fn redo_block(&self, record: &Record, block: usize, page: &mut Page) -> Result<(), RedoError> {
        let data = &record.blocks[block].data;
        let (at, bytes) = data.split_at_checked(2).ok_or(RedoError::new("short"))?;
        let at = u16::from_le_bytes([at[0], at[1]]) as usize;
        let end = at
            .checked_add(bytes.len())
            .filter(|&e| e <= PAGE_SIZE && at >= HEADER_SIZE)
            .ok_or(RedoError::new("out of page"))?;
        page[at..end].copy_from_slice(bytes);
        Ok(())
    }
    fn type_name(&self, _: u8) -> &'static str {
        "WRITE"
    }
    fn describe(&self, _: &Record) -> String {
        "WRITE".into()
    }
}

pub fn registry() -> RedoRegistry {
    let mut r = RedoRegistry::with_builtin();
    r.register(Arc::new(PageAllocRedo));
    r.register(Arc::new(TestRedo));
    r
}

pub fn pool_config(frames: u64) -> PoolConfig {
    PoolConfig {
        pool_size_bytes: frames * PAGE_SIZE as u64,
        max_database_bytes: 64 << 20,
        checksums: true,
        eviction_batch_pages: 4,
        huge_pages: true,
    }
}

pub fn wal_config() -> WalConfig {
    WalConfig {
        segment_size_bytes: 256 << 10,
        buffer_pages: 16,
        min_wal_size_bytes: 512 << 10,
        max_wal_size_bytes: 2 << 20,
        init_zero: false,
        ..WalConfig::default()
    }
}

/// A pool and a WAL wired together as the database does it.
pub struct Engine {
    pub pool: Arc<BufferPool>,
    pub wal: Arc<Wal>,
}

pub fn wire(pool: Arc<BufferPool>, wal: Wal) -> Engine {
    let wal = Arc::new(wal);
    pool.set_wal_flusher(Arc::new(WalPageFlusher(wal.clone())));
    pool.set_meta_logger(Some(Arc::new(WalMetaLogger(wal.clone()))));
    Engine { pool, wal }
}

pub fn create(dir: &Arc<SimDir>, frames: u64) -> Engine {
    let file = dir.open(DATA_FILE, OpenOptions::CREATE_NEW).unwrap();
    let pool = BufferPool::create(file, pool_config(frames)).unwrap();
    dir.sync_dir().unwrap();
    let wal = Wal::open(dir.clone(), wal_config()).unwrap();
    wire(pool, wal)
}

/// Opens the pool and the WAL without recovering (no logger yet: replay
/// must not log). The meta page is not read: the crash may have torn it,
/// and replay restores it from its image (as `Database::open` does).
pub fn open_for_recovery(dir: &Arc<SimDir>, frames: u64) -> (Arc<BufferPool>, Arc<Wal>) {
    let file = dir.open(DATA_FILE, OpenOptions::EXISTING).unwrap();
    let pool = BufferPool::open_for_recovery(file, pool_config(frames), true).unwrap();
    let wal = Arc::new(Wal::open(dir.clone(), wal_config()).unwrap());
    pool.set_wal_flusher(Arc::new(WalPageFlusher(wal.clone())));
    (pool, wal)
}

/// The logging protocol: latch, remember the LSN, change, log (with an
/// image when the WAL asks), stamp, release.
pub fn logged_write(e: &Engine, page_id: PageId, at: usize, bytes: &[u8]) -> Lsn {
    let mut g = e.pool.exclusive(page_id).unwrap();
    let old = folio_page::header_lsn(&g);
    g[at..at + bytes.len()].copy_from_slice(bytes);
    let mut data = (at as u16).to_le_bytes().to_vec();
    data.extend_from_slice(bytes);
    let end = {
        let mut b = RecordBuilder::new(TEST_RMGR, 1);
        let image = e.wal.needs_page_image(old).then_some(&*g);
        let blk = b.register_page(page_id, image).unwrap();
        b.register_page_data(blk, &data).unwrap();
        e.wal.insert(&b).unwrap().end_lsn
    };
    folio_page::set_header_lsn(&mut g, end);
    end
}

/// Page contents past the header, per page.
pub type Model = BTreeMap<u64, Vec<u8>>;

/// A seeded workload: allocate `pages` pages, then `writes` random small
/// writes; returns the model of every page's body.
pub fn workload(e: &Engine, seed: u64, pages: u64, writes: usize) -> Model {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut model = Model::new();
    for _ in 0..pages {
        let id = e.pool.allocate().unwrap().page_id();
        model.insert(id.0, vec![0; PAGE_SIZE - HEADER_SIZE]);
    }
    let ids: Vec<u64> = model.keys().copied().collect();
    for _ in 0..writes {
        let page = ids[rng.gen_range(0..ids.len())];
        let len = rng.gen_range(1..64);
        let at = rng.gen_range(HEADER_SIZE..PAGE_SIZE - len);
        let bytes: Vec<u8> = (0..len).map(|_| rng.r#gen()).collect();
        logged_write(e, PageId(page), at, &bytes);
        model.get_mut(&page).unwrap()[at - HEADER_SIZE..at - HEADER_SIZE + len]
            .copy_from_slice(&bytes);
    }
    model
}

/// Checks every modelled page against the pool.
pub fn check_model(pool: &BufferPool, model: &Model) {
    for (&page, body) in model {
        let g = pool.shared(PageId(page)).unwrap();
        assert!(&g[HEADER_SIZE..] == body.as_slice(), "page {page} differs");
    }
}
