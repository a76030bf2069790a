//! `REINDEX INDEX name` and `REINDEX TABLE name`: the indexes built
//! again from the table's rows (folio-catalog `reindex.rs`, through the
//! build CREATE INDEX uses), with PostgreSQL's errors for a name of
//! another kind of relation (42809) or of none (42P01). That of a
//! partitioned table or index, which PostgreSQL runs as a transaction per
//! partition, is refused in a transaction block (25001) as PostgreSQL's.

use crate::context::Ctx;
use crate::error::SqlError;
use crate::output::Output;
use crate::parse::Reindex;
use folio_db::Transaction;

/// Runs `REINDEX`; `in_block`: inside a transaction block (or a
/// function), where a partitioned table's or index's is refused.
pub fn reindex(
    cx: &Ctx<'_>,
    txn: &mut Transaction,
    reindex: &Reindex,
    in_block: bool,
) -> Result<Output, SqlError> {
    let catalog = cx.db.catalog();
    let name = crate::temp_tables::resolve_name(cx, txn, &reindex.name)?;
    let (oid, kind) = catalog
        .relation_oid(txn, &name)?
        .ok_or_else(|| SqlError::undefined_table(&reindex.name))?;
    let bare = folio_catalog::unqualified(&reindex.name);
    let fitting = matches!((reindex.table, kind), (true, 'r' | 'm') | (false, 'i'));
    if in_block && fitting && partitioned(cx, txn, oid, kind)? {
        let command = if reindex.table {
            "REINDEX TABLE"
        } else {
            "REINDEX INDEX"
        };
        return Err(SqlError::inside_block(command));
    }
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

/// Whether relation `oid` (of kind `kind`, as `relation_oid` gives it)
/// is a partitioned table, or an index of one.
fn partitioned(cx: &Ctx<'_>, txn: &Transaction, oid: u64, kind: char) -> Result<bool, SqlError> {
    let tables = cx.db.catalog().tables(txn)?;
    Ok(tables.iter().any(|t| {
        t.partition_key().is_some()
            && (t.oid == oid || (kind == 'i' && t.indexes.iter().any(|i| i.oid == oid)))
    }))
}
