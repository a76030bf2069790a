//! LMDB through heed: a copy-on-write B+tree in a memory map.
//!
//! Settings: default environment flags, so every commit syncs before
//! returning: `fdatasync` after writing the data pages and again after
//! writing the meta page (no `NO_SYNC`, `NO_META_SYNC` or `WRITE_MAP`). The bulk load appends (`MDB_APPEND`), LMDB's own path for
//! keys in order. A read session is one read transaction. LMDB has no cache
//! setting: the map is the OS page cache.

use super::{Durability, Every, KvEngine};
use crate::data::{self, ScanCheck};
use anyhow::{Context, Result};
use heed::types::Bytes;
use heed::{CommitOrAbort, Database, Env, EnvOpenOptions, PutFlags, RoTxn, WithTls};
use std::path::Path;

/// The environment, opened first: the database handle borrows it.
#[derive(Debug)]
pub struct LmdbEnv {
    env: Env,
}

impl LmdbEnv {
    pub fn open(dir: &Path, keys: u64) -> Result<LmdbEnv> {
        // Room for the loaded keys, the committed ones and copy-on-write
        // slack; the map is virtual, the file grows as pages are used.
        let map_size_bytes = (keys as usize).saturating_mul(1024).max(1 << 30);
        // SAFETY: `dir` is a fresh directory only this process opens, and
        // the environment is opened once, so no other mapping of the file
        // exists (heed's requirement for `open`).
        let env = unsafe {
            EnvOpenOptions::new()
                .map_size(map_size_bytes)
                .max_dbs(1)
                .open(dir)
        }
        .context("lmdb: open")?;
        Ok(LmdbEnv { env })
    }
}

#[derive(Debug)]
pub struct Lmdb<'e> {
    env: &'e Env,
    db: Database<'e, Bytes, Bytes>,
}

impl<'e> Lmdb<'e> {
    pub fn new(env: &'e LmdbEnv) -> Result<Lmdb<'e>> {
        let env = &env.env;
        let txn = env.write_txn()?;
        let db = env
            .create_databases_and_commit(txn, |opener, txn| {
                let db = opener.create_database::<Bytes, Bytes>(txn, Some("kv"))?;
                heed::Result::Ok(CommitOrAbort::<_, ()>::Commit(db))
            })?
            .unwrap_commit();
        Ok(Lmdb { env, db })
    }
}

impl KvEngine for Lmdb<'_> {
    type Reader<'a>
        = RoTxn<'a, WithTls>
    where
        Self: 'a;
    type Writer<'a>
        = ()
    where
        Self: 'a;

    fn name(&self) -> &'static str {
        "lmdb"
    }

    fn durability(&self) -> Durability {
        Durability::Synced(
            "default flags: mdb_txn_commit fdatasyncs the data pages, then the meta page",
        )
    }

    fn bulk_load(&self, keys: u64, progress: &mut dyn FnMut(u64)) -> Result<()> {
        let every = Every::new(keys);
        let mut txn = self.env.write_txn()?;
        for i in 0..keys {
            self.db
                .put_with_flags(&mut txn, PutFlags::APPEND, &data::key(i), &data::value(i))?;
            every.tick(i + 1, progress);
        }
        txn.commit()?;
        Ok(())
    }

    fn reader(&self) -> Result<Self::Reader<'_>> {
        Ok(self.env.read_txn()?)
    }

    fn get<'a>(
        &'a self,
        reader: &mut Self::Reader<'a>,
        key: &[u8],
        value: &mut Vec<u8>,
    ) -> Result<bool> {
        let Some(found) = self.db.get(reader, key)? else {
            return Ok(false);
        };
        value.clear();
        value.extend_from_slice(found);
        Ok(true)
    }

    fn scan_forward(&self, check: &mut ScanCheck) -> Result<()> {
        let txn = self.env.read_txn()?;
        for entry in self.db.iter(&txn)? {
            let (k, v) = entry?;
            check.visit(k, v)?;
        }
        Ok(())
    }

    fn scan_backward(&self, check: &mut ScanCheck) -> Result<()> {
        let txn = self.env.read_txn()?;
        for entry in self.db.rev_iter(&txn)? {
            let (k, v) = entry?;
            check.visit(k, v)?;
        }
        Ok(())
    }

    fn writer(&self) -> Result<Self::Writer<'_>> {
        Ok(())
    }

    fn commit_one<'a>(
        &'a self,
        _writer: &mut Self::Writer<'a>,
        key: &[u8],
        value: &[u8],
    ) -> Result<()> {
        let mut txn = self.env.write_txn()?;
        self.db
            .put_with_flags(&mut txn, PutFlags::NO_OVERWRITE, key, value)?;
        txn.commit()?;
        Ok(())
    }
}
