//! fjall: a log-structured merge tree (LSM) with a journal.
//!
//! Settings: block cache [`CACHE_BYTES`]; one keyspace with default options
//! (LZ4 compression of blocks). The bulk load uses fjall's ingestion API,
//! which writes sorted tables directly (its documented fastest path for keys
//! in order), then the journal is synced. Each commit is a one-key write
//! batch with `durability(Some(PersistMode::SyncData))`: the journal is
//! written and `fdatasync`ed before the commit returns. Reads go straight to
//! the keyspace (fjall reads need no transaction).

use super::{CACHE_BYTES, Durability, Every, KvEngine};
use crate::data::{self, ScanCheck};
use anyhow::{Context, Result};
use fjall::{Database, Keyspace, KeyspaceCreateOptions, PersistMode};
use std::path::Path;

pub struct Fjall {
    db: Database,
    keyspace: Keyspace,
}

impl std::fmt::Debug for Fjall {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Fjall").finish_non_exhaustive()
    }
}

impl Fjall {
    pub fn open(dir: &Path) -> Result<Fjall> {
        let db = Database::builder(dir)
            .cache_size(CACHE_BYTES)
            .open()
            .context("fjall: open")?;
        let keyspace = db.keyspace("kv", KeyspaceCreateOptions::default)?;
        Ok(Fjall { db, keyspace })
    }
}

impl KvEngine for Fjall {
    type Reader<'a> = ();
    type Writer<'a> = ();

    fn name(&self) -> &'static str {
        "fjall"
    }

    fn durability(&self) -> Durability {
        Durability::Synced(
            "write batch with PersistMode::SyncData: journal fdatasync before commit returns",
        )
    }

    fn bulk_load(&self, keys: u64, progress: &mut dyn FnMut(u64)) -> Result<()> {
        let every = Every::new(keys);
        let mut ingestion = self.keyspace.start_ingestion()?;
        for i in 0..keys {
            ingestion.write(&data::key(i)[..], &data::value(i)[..])?;
            every.tick(i + 1, progress);
        }
        ingestion.finish()?;
        self.db.persist(PersistMode::SyncAll)?;
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
        let Some(found) = self.keyspace.get(key)? else {
            return Ok(false);
        };
        value.clear();
        value.extend_from_slice(&found);
        Ok(true)
    }

    fn scan_forward(&self, check: &mut ScanCheck) -> Result<()> {
        for guard in self.keyspace.iter() {
            let (k, v) = guard.into_inner()?;
            check.visit(&k, &v)?;
        }
        Ok(())
    }

    fn scan_backward(&self, check: &mut ScanCheck) -> Result<()> {
        for guard in self.keyspace.iter().rev() {
            let (k, v) = guard.into_inner()?;
            check.visit(&k, &v)?;
        }
        Ok(())
    }

    fn writer(&self) -> Result<()> {
        Ok(())
    }

    fn commit_one<'a>(
        &'a self,
        _writer: &mut Self::Writer<'a>,
        key: &[u8],
        value: &[u8],
    ) -> Result<()> {
        let mut batch = self.db.batch().durability(Some(PersistMode::SyncData));
        batch.insert(&self.keyspace, key, value);
        batch.commit()?;
        Ok(())
    }
}
