//! `REINDEX INDEX name` and `REINDEX TABLE name`: the indexes built
//! again from the table's rows (folio-catalog `reindex.rs`, through the
//! build CREATE INDEX uses), with PostgreSQL's errors for a name of
//! another kind of relation (42809) or of none (42P01).

use crate::context::Ctx;
use crate::error::SqlError;
use crate::output::Output;
use crate::parse::Reindex;
use folio_db::Transaction;

/// Runs `REINDEX`.
pub fn reindex(cx: &Ctx<'_>, txn: &mut Transaction, reindex: &Reindex) -> Result<Output, SqlError> {
    let catalog = cx.db.catalog();
    let name = crate::temp_tables::resolve_name(cx, txn, &reindex.name)?;
    let (oid, kind) = catalog
        .relation_oid(txn, &name)?
        .ok_or_else(|| SqlError::undefined_table(&reindex.name))?;
    let bare = folio_catalog::unqualified(&reindex.name);
    match (reindex.table, kind) {
        (true, 'r' | 'm') => {
            catalog.reindex(txn, &name, None)?;
        }
        (false, 'i') => {
            let table = (catalog.tables(txn)?.into_iter())
                .find(|t| t.indexes.iter().any(|i| i.oid == oid))
                .ok_or_else(|| SqlError::undefined_table(&reindex.name))?;
            catalog.reindex(txn, &table.name, Some(&name))?;
        }
        (true, _) => {
            return Err(SqlError::new(
                "42809",
                format!("\"{bare}\" is not a table or materialized view"),
            ));
        }
        (false, _) => {
            return Err(SqlError::new(
                "42809",
                format!("\"{bare}\" is not an index"),
            ));
        }
    }
    cx.relations.ddl();
    Ok(Output::command("REINDEX"))
}
