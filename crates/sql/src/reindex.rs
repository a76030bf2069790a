//! `REINDEX INDEX name`, `REINDEX TABLE name` and `REINDEX SCHEMA name`
//! (every table and materialized view of the schema; outside a
//! transaction block only, by its owner): the indexes built again from
//! the table's rows (folio-catalog `reindex.rs`, through the
//! build CREATE INDEX uses), with PostgreSQL's errors for a name of
//! another kind of relation (42809) or of none (42P01). That of a
//! partitioned table or index, which PostgreSQL runs as a transaction per
//! partition, is refused in a transaction block (25001) as PostgreSQL's.

use crate::context::Ctx;
use crate::error::SqlError;
use crate::output::Output;
use crate::parse::{Reindex, ReindexKind};
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
    if reindex.kind == ReindexKind::Schema {
        return schema(cx, txn, &reindex.name);
    }
    let table = reindex.kind == ReindexKind::Table;
    let name = crate::temp_tables::resolve_name(cx, txn, &reindex.name)?;
    let (oid, kind) = catalog
        .relation_oid(txn, &name)?
        .ok_or_else(|| SqlError::undefined_table(&reindex.name))?;
    let bare = folio_catalog::unqualified(&reindex.name);
    let fitting = matches!((table, kind), (true, 'r' | 'm') | (false, 'i'));
    if in_block && fitting && partitioned(cx, txn, oid, kind)? {
        let command = if table {
            "REINDEX TABLE"
        } else {
            "REINDEX INDEX"
        };
        return Err(SqlError::inside_block(command));
    }
    match (table, kind) {
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

/// `REINDEX SCHEMA name`: the indexes of each table and materialized view
/// of schema `name` (a partitioned table's are its partitions'), 3F000
/// for no such schema. Schemas are the bootstrap superuser's in folio, so
/// only a role with its privileges owns one (else 42501).
fn schema(cx: &Ctx<'_>, txn: &mut Transaction, name: &str) -> Result<Output, SqlError> {
    let catalog = cx.db.catalog();
    let builtin = matches!(
        name,
        crate::schemas::PUBLIC | "pg_catalog" | "information_schema"
    );
    if !builtin && catalog.schema(txn, name)?.is_none() {
        return Err(SqlError::new(
            "3F000",
            format!("schema \"{name}\" does not exist"),
        ));
    }
    crate::privileges::check_schema_owner(cx, name)?;
    let in_schema = |table: &str| match table.split_once('.') {
        Some((schema, _)) => schema == name,
        None => name == crate::schemas::PUBLIC,
    };
    let tables: Vec<String> = (catalog.tables(txn)?.into_iter())
        .filter(|t| in_schema(&t.name) && t.partition_key().is_none() && !t.indexes.is_empty())
        .map(|t| t.name)
        .collect();
    for table in &tables {
        catalog.reindex(txn, table, None)?;
    }
    cx.relations.ddl();
    Ok(Output::command("REINDEX"))
}
