//! `VACUUM FULL`, `CLUSTER` and `ALTER TABLE ... CLUSTER ON | SET WITHOUT
//! CLUSTER`: a table given new storage holding its rows, in the heap's
//! order or an index's, by the one rewrite of a table (folio-catalog
//! `rewrite.rs`, design in its README, "Rewriting a table"), with
//! PostgreSQL's errors. The session runs each table's rewrite in a
//! transaction of its own where PostgreSQL does (`VACUUM FULL`, `CLUSTER`
//! without a table), else in the statement's.

use crate::context::Ctx;
use crate::error::SqlError;
use crate::output::{Notice, Output};
use crate::parse::ClusterOn;
use folio_catalog::Refill;
use folio_db::Transaction;

/// What `name` (as written) is to the rewrite: its catalog name, if it
/// is a table or materialized view; 42P01 if nothing has the name.
enum Target {
    Table(String),
    /// A view, sequence, index or type: PostgreSQL's VACUUM skips it with
    /// a warning, its CLUSTER refuses it.
    Other,
}

fn target(cx: &Ctx<'_>, txn: &Transaction, name: &str) -> Result<Target, SqlError> {
    let resolved = crate::temp_tables::resolve_name(cx, txn, name)?;
    match cx.db.catalog().relation_oid(txn, &resolved)? {
        None => Err(SqlError::undefined_table(name)),
        Some((_, 'r' | 'm')) => Ok(Target::Table(resolved)),
        Some(_) => Ok(Target::Other),
    }
}

/// `VACUUM FULL` of `name`: new storage holding its rows. A relation of
/// another kind is skipped with PostgreSQL's warning.
pub fn vacuum_full(
    cx: &Ctx<'_>,
    txn: &mut Transaction,
    notices: &mut Vec<Notice>,
    name: &str,
) -> Result<(), SqlError> {
    match target(cx, txn, name)? {
        Target::Table(table) => {
            cx.db.catalog().rewrite_table(txn, &table, Refill::Rows)?;
            cx.relations.ddl();
        }
        Target::Other => notices.push(Notice::warning(
            "01000",
            &format!(
                "skipping \"{}\" --- cannot vacuum non-tables or special system tables",
                folio_catalog::unqualified(name)
            ),
        )),
    }
    Ok(())
}

/// `CLUSTER table [USING index]`: the index (given, or the table's
/// clustered one) marked clustered and the table rewritten in its order.
pub fn cluster(
    cx: &Ctx<'_>,
    txn: &mut Transaction,
    table: &str,
    index: Option<&str>,
) -> Result<Output, SqlError> {
    let catalog = cx.db.catalog();
    let Target::Table(resolved) = target(cx, txn, table)? else {
        return Err(SqlError::new(
            "42809",
            format!(
                "\"{}\" is not a table or materialized view",
                folio_catalog::unqualified(table)
            ),
        ));
    };
    match index {
        Some(index) => {
            let index = index_of(cx, txn, &resolved, table, index)?;
            catalog.set_clustered_index(txn, &resolved, Some(&index))?;
            catalog.rewrite_table(txn, &resolved, Refill::Ordered(&index))?;
        }
        None => {
            catalog.rewrite_table(txn, &resolved, Refill::Clustered)?;
        }
    }
    cx.relations.ddl();
    Ok(Output::command("CLUSTER"))
}

/// The catalog name of index `index` for `CLUSTER` or `CLUSTER ON` of
/// table `resolved` (written `table`): 42809 for a relation that is no
/// index or another table's; an unknown name is the catalog's 42704.
fn index_of(
    cx: &Ctx<'_>,
    txn: &Transaction,
    resolved: &str,
    table: &str,
    index: &str,
) -> Result<String, SqlError> {
    let catalog = cx.db.catalog();
    let name = crate::temp_tables::resolve_name(cx, txn, index)?;
    let bare = folio_catalog::unqualified(index);
    if let Some((oid, kind)) = catalog.relation_oid(txn, &name)? {
        if kind != 'i' {
            return Err(SqlError::new(
                "42809",
                format!("\"{bare}\" is not an index"),
            ));
        }
        let def = catalog
            .table(txn, resolved)?
            .ok_or_else(|| SqlError::undefined_table(table))?;
        if !def.indexes.iter().any(|i| i.oid == oid) {
            return Err(SqlError::new(
                "42809",
                format!(
                    "\"{bare}\" is not an index for table \"{}\"",
                    folio_catalog::unqualified(table)
                ),
            ));
        }
    }
    Ok(name)
}

/// The tables `CLUSTER` alone rewrites: those with a clustered index.
pub fn clustered_tables(cx: &Ctx<'_>, txn: &Transaction) -> Result<Vec<String>, SqlError> {
    Ok((cx.db.catalog().tables(txn)?.into_iter())
        .filter(|t| t.indexes.iter().any(|i| i.clustered))
        .map(|t| t.name)
        .collect())
}

/// `ALTER TABLE table CLUSTER ON index` / `SET WITHOUT CLUSTER`.
pub fn cluster_on(
    cx: &Ctx<'_>,
    txn: &mut Transaction,
    notices: &mut Vec<Notice>,
    on: &ClusterOn,
) -> Result<Output, SqlError> {
    let done = Output::command("ALTER TABLE");
    let resolved = match target(cx, txn, &on.table) {
        Ok(Target::Table(resolved)) => resolved,
        Err(e) if on.if_exists && e.code == "42P01" => {
            notices.push(Notice::info(format!(
                "relation \"{}\" does not exist, skipping",
                folio_catalog::unqualified(&on.table)
            )));
            return Ok(done);
        }
        Err(e) => return Err(e),
        Ok(Target::Other) => {
            return Err(SqlError::new(
                "42809",
                format!(
                    "\"{}\" is not a table or materialized view",
                    folio_catalog::unqualified(&on.table)
                ),
            ));
        }
    };
    let index = match &on.index {
        Some(index) => Some(index_of(cx, txn, &resolved, &on.table, index)?),
        None => None,
    };
    cx.db
        .catalog()
        .set_clustered_index(txn, &resolved, index.as_deref())?;
    cx.relations.ddl();
    Ok(done)
}
