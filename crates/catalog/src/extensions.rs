//! Extensions (`CREATE EXTENSION`): a `folio.class` row of kind `x` (no
//! storage) named `.name`, a catalog name no relation or schema has (a
//! schema row is `schema.`, and no schema is named with the empty
//! string). Which extensions exist and what they bring is the SQL layer's
//! (folio-sql `extensions.rs`); the catalog only records that one was
//! created, by transactions like every catalog row.

use crate::catalog::Catalog;
use crate::defs::{ClassRow, KIND_EXTENSION};
use crate::error::CatalogError;
use folio_heap::Tid;
use folio_page::PageId;
use folio_txn::Transaction;

/// A created extension: its oid and name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExtensionDef {
    pub oid: u64,
    pub name: String,
}

/// The catalog name of extension `name`'s row.
fn row_name(name: &str) -> String {
    format!(".{name}")
}

/// The extensions among class rows `classes`, by name.
pub(crate) fn extensions_among(classes: &[(Tid, ClassRow)]) -> Vec<ExtensionDef> {
    let mut out: Vec<ExtensionDef> = (classes.iter())
        .filter(|(_, c)| c.kind == KIND_EXTENSION)
        .map(|(_, c)| ExtensionDef {
            oid: c.oid,
            name: c.name.trim_start_matches('.').to_string(),
        })
        .collect();
    out.sort_by(|a, b| a.name.cmp(&b.name));
    out
}

impl Catalog {
    /// Every extension `txn` sees, by name.
    pub fn extensions(&self, txn: &Transaction) -> Result<Vec<ExtensionDef>, CatalogError> {
        Ok(extensions_among(&self.class_rows(txn)?))
    }

    /// `CREATE EXTENSION name` (the SQL layer has checked the name): 42710
    /// if it exists (after waiting for a running creator of it).
    pub fn create_extension(&self, txn: &mut Transaction, name: &str) -> Result<u64, CatalogError> {
        let oid = self.next_oid()?;
        let class = ClassRow::new(oid, &row_name(name), KIND_EXTENSION, PageId(0));
        self.in_savepoint(txn, |txn| self.insert_class(txn, &class))
            .map_err(|e| match e {
                CatalogError::Exists(_) => CatalogError::ExtensionExists(name.to_string()),
                other => other,
            })?;
        Ok(oid)
    }

    /// `DROP EXTENSION name`: 42704 if there is none. Its row is locked
    /// first, so two concurrent drops leave one to fail.
    pub fn drop_extension(&self, txn: &mut Transaction, name: &str) -> Result<(), CatalogError> {
        let missing = || CatalogError::NoSuchExtension(name.to_string());
        let row = |txn: &Transaction| -> Result<_, CatalogError> {
            (self.class(txn, &row_name(name))?)
                .filter(|(_, c)| c.kind == KIND_EXTENSION)
                .ok_or_else(missing)
        };
        let (tid, _) = row(txn)?;
        self.lock_class_row(txn, tid, missing)?;
        // Read again under the lock: dropped meanwhile is missing.
        let (tid, _) = row(txn)?;
        self.delete_class_row(txn, tid)
    }
}
