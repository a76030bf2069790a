//! A table's storage options (`CREATE TABLE ... WITH (fillfactor = 70)`,
//! `ALTER TABLE ... SET (...)` / `RESET (...)`): PostgreSQL's
//! `reloptions`, kept as (name, value) text pairs, in the order
//! `pg_class.reloptions` shows them, in the table's `folio.class` row
//! after its columns (absent when there are none, so rows written before
//! them read as none). The SQL layer owns which names and values are
//! valid (folio-sql `storage_options.rs`); the catalog stores them, and
//! gives the heap the room its inserts leave on a page (`fillfactor`,
//! [`StorageOptions::fill_reserve`]) and autovacuum whether it may visit
//! the table (`autovacuum_enabled`).

use crate::catalog::Catalog;
use crate::codec::{Reader, Writer};
use crate::error::CatalogError;
use folio_txn::{LockMode, Transaction};

/// A table's storage options, as written (names lower-case).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StorageOptions(pub Vec<(String, String)>);

impl StorageOptions {
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The value of option `name`, if set.
    pub fn get(&self, name: &str) -> Option<&str> {
        (self.0.iter().find(|(n, _)| n == name)).map(|(_, v)| v.as_str())
    }

    /// `fillfactor` (10-100; 100 when unset): the share of a page inserts
    /// fill, the rest left for updates of its rows.
    pub fn fillfactor(&self) -> u32 {
        self.get("fillfactor")
            .and_then(|v| v.parse().ok())
            .unwrap_or(100)
    }

    /// The bytes an insert leaves free on a page it adds a row to
    /// (PostgreSQL's `RelationGetTargetPageFreeSpace`: the page size times
    /// the share `fillfactor` does not fill).
    pub fn fill_reserve(&self) -> usize {
        folio_page::PAGE_SIZE * (100 - self.fillfactor().min(100) as usize) / 100
    }

    /// `autovacuum_enabled` (true when unset).
    pub fn autovacuum_enabled(&self) -> bool {
        !matches!(
            self.get("autovacuum_enabled"),
            Some("false" | "off" | "no" | "0" | "f" | "n")
        )
    }

    pub(crate) fn encode(&self, w: &mut Writer) {
        w.u16(self.0.len() as u16);
        for (name, value) in &self.0 {
            w.str(name).str(value);
        }
    }

    pub(crate) fn decode(r: &mut Reader<'_>) -> Result<StorageOptions, String> {
        let n = r.u16()?;
        let pairs = (0..n).map(|_| Ok((r.str()?, r.str()?)));
        Ok(StorageOptions(pairs.collect::<Result<_, String>>()?))
    }
}

impl Catalog {
    /// Replaces table `table_name`'s storage options by `options` (under
    /// a SHARE UPDATE EXCLUSIVE lock, as PostgreSQL's `ALTER TABLE SET`),
    /// and tells its open heap the new fill reserve.
    pub fn set_storage_options(
        &self,
        txn: &mut Transaction,
        table_name: &str,
        options: StorageOptions,
    ) -> Result<(), CatalogError> {
        let table = self.lock_table(txn, table_name)?;
        self.lock_for_ddl(txn, table.oid, LockMode::ShareUpdateExclusive)?;
        let (tid, mut class) = self
            .class(txn, table_name)?
            .filter(|(_, c)| c.oid == table.oid)
            .ok_or_else(|| CatalogError::NoSuchRelation(table_name.to_string()))?;
        class.storage = options.clone();
        self.update_class(txn, tid, &class)?;
        self.open_table(&crate::defs::TableDef {
            storage: options,
            ..table
        })?;
        Ok(())
    }
}
