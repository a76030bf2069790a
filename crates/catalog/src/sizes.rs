//! How many pages a relation holds, counted from its storage (what
//! PostgreSQL's `pg_relation_size` and the like report, in bytes): a
//! table's heap pages (its page list's own tree nodes are folio's
//! equivalent of a map, not counted), an index's B+tree nodes, walked
//! from its root level by level (folio-btree `Tree::pages`).

use crate::catalog::Catalog;
use crate::defs::{IndexDef, TableDef};
use crate::error::CatalogError;

impl Catalog {
    /// The heap pages of table `def`.
    pub fn table_pages(&self, def: &TableDef) -> Result<u64, CatalogError> {
        Ok(self.open_table(def)?.page_ids()?.len() as u64)
    }

    /// The database's pages: its data file's (`pg_database_size`).
    pub fn database_pages(&self) -> Result<u64, CatalogError> {
        Ok(self.pool.page_count()? + self.unlogged_pool.page_count()?)
    }

    /// The B+tree nodes of index `def`.
    pub fn index_pages(&self, def: &IndexDef) -> Result<u64, CatalogError> {
        let tree = self.open_pages(def.root)?;
        Ok(tree.pages(|_| Ok(()))?)
    }
}
