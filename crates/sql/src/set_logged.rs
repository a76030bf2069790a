//! `ALTER TABLE [IF EXISTS] [ONLY] name SET LOGGED | SET UNLOGGED`: a
//! table's rows and indexes rewritten into storage of the other
//! persistence (folio-catalog `Catalog::set_persistence`, which also
//! keeps the foreign-key rule), its sequences with it; a sequence named
//! here changes alone (as `ALTER SEQUENCE ... SET LOGGED`). PostgreSQL's
//! refusals are kept here: a temporary table (42P16), a view,
//! materialized view or index (42809). A table that has the persistence
//! already, or a partitioned table, is left as it is.

use crate::context::Ctx;
use crate::error::SqlError;
use crate::output::{Notice, Output};
use folio_catalog::Persistence;
use folio_txn::Transaction;

/// A parsed `ALTER TABLE ... SET LOGGED | SET UNLOGGED`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SetLogged {
    pub table: String,
    pub if_exists: bool,
    pub persistence: Persistence,
}

impl SetLogged {
    /// The action's name in PostgreSQL's messages.
    fn action(&self) -> &'static str {
        match self.persistence {
            Persistence::Permanent => "SET LOGGED",
            Persistence::Unlogged => "SET UNLOGGED",
        }
    }
}

/// Runs `set`.
pub fn run(
    cx: &Ctx<'_>,
    txn: &mut Transaction,
    notices: &mut Vec<Notice>,
    set: &SetLogged,
) -> Result<Output, SqlError> {
    let done = Output::command("ALTER TABLE");
    let bare = folio_catalog::unqualified(&set.table);
    let resolved = crate::temp_tables::resolve_name(cx, txn, &set.table)?;
    let oid = match cx.db.catalog().relation_oid(txn, &resolved)? {
        None if set.if_exists => {
            notices.push(Notice::info(format!(
                "relation \"{bare}\" does not exist, skipping"
            )));
            return Ok(done);
        }
        None => return Err(SqlError::undefined_table(&set.table)),
        Some((oid, 'r')) => oid,
        // (PostgreSQL's ALTER TABLE takes a sequence too.)
        Some((oid, 'S')) => {
            crate::privileges::check_owner(cx, oid, bare, "sequence")?;
            if (cx.db.catalog()).set_sequence_persistence(txn, &resolved, set.persistence)? {
                cx.relations.ddl();
            }
            return Ok(done);
        }
        Some((_, kind)) => {
            return Err(SqlError::new(
                "42809",
                format!(
                    "ALTER action {} cannot be performed on relation \"{bare}\"",
                    set.action()
                ),
            )
            .with_detail(format!(
                "This operation is not supported for {}.",
                crate::comments::kind_plural(kind)
            )));
        }
    };
    crate::privileges::check_owner(cx, oid, bare, "table")?;
    if folio_catalog::split_temp_name(&resolved).is_some() {
        return Err(SqlError::new(
            "42P16",
            format!("cannot change logged status of table \"{bare}\" because it is temporary"),
        ));
    }
    if cx
        .db
        .catalog()
        .set_persistence(txn, &resolved, set.persistence)?
    {
        cx.relations.ddl();
    }
    Ok(done)
}
