//! folio: the B+tree of `folio-btree` in a buffer pool over one file.
//!
//! Settings: pool of [`CACHE_BYTES`] with page checksums on (the default),
//! so the whole tree stays cached. The bulk load inserts keys one by one in
//! key order (folio has no bulk-load path) and then writes every dirty page
//! back and syncs the file (`BufferPool::flush_all`). A read session is
//! nothing: lookups are optimistic and need no transaction.
//!
//! folio has no write-ahead log in the tree yet, so it has no durable
//! single-key commit: [`KvEngine::durability`] says so and the commit rows
//! are reported as unavailable, never as a number. (Calling `flush_all`
//! after each insert would sync, but it is neither atomic nor what a commit
//! will cost once the WAL lands, so it is not measured as one.)

use super::{CACHE_BYTES, Durability, Every, KvEngine};
use crate::data::{self, ScanCheck};
use anyhow::{Context, Result, bail};
use folio_btree::{Direction, Tree};
use folio_buffer::{BufferPool, PoolConfig};
use folio_io::{Dir, FsDir, OpenOptions};
use std::ops::Bound;
use std::path::Path;

#[derive(Debug)]
pub struct Folio {
    tree: Tree,
}

impl Folio {
    pub fn open(dir: &Path) -> Result<Folio> {
        let dir = FsDir::open(dir).context("folio: open directory")?;
        let file = dir
            .open("data.folio", OpenOptions::CREATE_NEW)
            .context("folio: create file")?;
        let config = PoolConfig {
            pool_size_bytes: CACHE_BYTES,
            ..PoolConfig::default()
        };
        let pool = BufferPool::create(file, config).context("folio: create pool")?;
        let tree = Tree::create(pool).context("folio: create tree")?;
        Ok(Folio { tree })
    }

    fn scan(&self, direction: Direction, check: &mut ScanCheck) -> Result<()> {
        let mut scan = self
            .tree
            .scan(Bound::Unbounded, Bound::Unbounded, direction);
        while let Some((k, v)) = scan.next_entry()? {
            check.visit(k, v)?;
        }
        Ok(())
    }
}

impl KvEngine for Folio {
    type Reader<'a> = ();
    type Writer<'a> = ();

    fn name(&self) -> &'static str {
        "folio"
    }

    fn durability(&self) -> Durability {
        Durability::Unavailable("folio-btree has no WAL yet, so no durable single-key commit")
    }

    fn bulk_load(&self, keys: u64, progress: &mut dyn FnMut(u64)) -> Result<()> {
        let every = Every::new(keys);
        for i in 0..keys {
            self.tree.insert(&data::key(i), &data::value(i))?;
            every.tick(i + 1, progress);
        }
        self.tree.pool().flush_all()?;
        Ok(())
    }

    fn reader(&self) -> Result<()> {
        Ok(())
    }

    fn get<'a>(
        &'a self,
        _reader: &mut Self::Reader<'a>,
        key: &[u8],
        value: &mut Vec<u8>,
    ) -> Result<bool> {
        Ok(self.tree.get_into(key, value)?)
    }

    fn scan_forward(&self, check: &mut ScanCheck) -> Result<()> {
        self.scan(Direction::Forward, check)
    }

    fn scan_backward(&self, check: &mut ScanCheck) -> Result<()> {
        self.scan(Direction::Backward, check)
    }

    fn writer(&self) -> Result<()> {
        Ok(())
    }

    fn commit_one<'a>(
        &'a self,
        _writer: &mut Self::Writer<'a>,
        _key: &[u8],
        _value: &[u8],
    ) -> Result<()> {
        bail!(
            "folio: {}",
            match self.durability() {
                Durability::Unavailable(why) | Durability::Synced(why) => why,
            }
        )
    }
}
