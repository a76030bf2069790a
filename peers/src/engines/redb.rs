//! redb: a copy-on-write B-tree in one file.
//!
//! Settings: cache [`CACHE_BYTES`]; every write transaction commits with
//! redb's default `Durability::Immediate` (the commit returns after the
//! file is synced, `fsync`/`fdatasync` through `File::sync_data`); default
//! one-phase commit with checksums. A read session is one read transaction.

use super::{CACHE_BYTES, Durability, Every, KvEngine};
use crate::data::{self, ScanCheck};
use anyhow::{Context, Result, ensure};
use redb::{Database, ReadOnlyTable, ReadableDatabase, ReadableTable, TableDefinition};
use std::path::Path;

const TABLE: TableDefinition<&[u8], &[u8]> = TableDefinition::new("kv");

#[derive(Debug)]
pub struct Redb {
    db: Database,
}

impl Redb {
    pub fn open(dir: &Path) -> Result<Redb> {
        let db = Database::builder()
            .set_cache_size(CACHE_BYTES as usize)
            .create(dir.join("data.redb"))
            .context("redb: create")?;
        Ok(Redb { db })
    }

    fn table(&self) -> Result<ReadOnlyTable<&'static [u8], &'static [u8]>> {
        Ok(self.db.begin_read()?.open_table(TABLE)?)
    }
}

impl KvEngine for Redb {
    type Reader<'a> = ReadOnlyTable<&'static [u8], &'static [u8]>;
    type Writer<'a> = ();

    fn name(&self) -> &'static str {
        "redb"
    }

    fn durability(&self) -> Durability {
        Durability::Synced("Durability::Immediate (default): File::sync_data before commit returns")
    }

    fn bulk_load(&self, keys: u64, progress: &mut dyn FnMut(u64)) -> Result<()> {
        let every = Every::new(keys);
        let txn = self.db.begin_write()?;
        {
            let mut table = txn.open_table(TABLE)?;
            for i in 0..keys {
                table.insert(&data::key(i)[..], &data::value(i)[..])?;
                every.tick(i + 1, progress);
            }
        }
        txn.commit()?;
        Ok(())
    }

    fn reader(&self) -> Result<Self::Reader<'_>> {
        self.table()
    }

    fn get<'a>(
        &'a self,
        reader: &mut Self::Reader<'a>,
        key: &[u8],
        value: &mut Vec<u8>,
    ) -> Result<bool> {
        let Some(guard) = reader.get(key)? else {
            return Ok(false);
        };
        value.clear();
        value.extend_from_slice(guard.value());
        Ok(true)
    }

    fn scan_forward(&self, check: &mut ScanCheck) -> Result<()> {
        for entry in self.table()?.iter()? {
            let (k, v) = entry?;
            check.visit(k.value(), v.value())?;
        }
        Ok(())
    }

    fn scan_backward(&self, check: &mut ScanCheck) -> Result<()> {
        for entry in self.table()?.iter()?.rev() {
            let (k, v) = entry?;
            check.visit(k.value(), v.value())?;
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
        let txn = self.db.begin_write()?;
        {
            let mut table = txn.open_table(TABLE)?;
            let previous = table.insert(key, value)?;
            ensure!(previous.is_none(), "redb: commit key already present");
        }
        txn.commit()?;
        Ok(())
    }
}
