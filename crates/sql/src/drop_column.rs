//! `ALTER TABLE t DROP [COLUMN] [IF EXISTS] c [RESTRICT | CASCADE]`:
//! folio-catalog's `drop_column` (the column marked dropped, what uses it
//! dropped with it; its README's "Dropped columns"), given this layer's
//! reading of the stored CHECK expressions, with PostgreSQL's notices.

use crate::context::Ctx;
use crate::error::SqlError;
use crate::names;
use crate::output::Notice;
use folio_catalog::CatalogError;
use folio_db::Transaction;
use sqlparser::ast::{Expr, Ident};
use std::ops::ControlFlow;

/// Drops `column` of table `table`. A missing column is 42703, or with
/// `if_exists` PostgreSQL's "skipping" NOTICE; a foreign key referencing
/// the column is 2BP01, or with `cascade` dropped too, with PostgreSQL's
/// `drop cascades to ...` NOTICE.
pub fn drop_column(
    cx: &Ctx<'_>,
    txn: &mut Transaction,
    notices: &mut Vec<Notice>,
    table: &str,
    column: &Ident,
    if_exists: bool,
    cascade: bool,
) -> Result<(), SqlError> {
    let column = names::ident(column);
    // The generated columns that read it: 2BP01, or with CASCADE dropped
    // first, as PostgreSQL's dependencies of a generated column on the
    // columns it reads.
    if let Some(def) = cx.db.catalog().table(txn, table)?
        && let Some(position) = def.column(&column)
    {
        let readers = crate::generated::readers_of(&def, position);
        let bare = folio_catalog::unqualified(table);
        let described: Vec<String> = (readers.iter())
            .map(|r| format!("column {r} of table {bare}"))
            .collect();
        if !readers.is_empty() && !cascade {
            let details: Vec<String> = (described.iter())
                .map(|d| format!("{d} depends on column {column} of table {bare}"))
                .collect();
            return Err(SqlError::new(
                "2BP01",
                format!(
                    "cannot drop column {column} of table {bare} because other objects depend on it"
                ),
            )
            .with_detail(details.join("\n"))
            .with_hint("Use DROP ... CASCADE to drop the dependent objects too."));
        }
        notices.extend(Notice::cascaded(&described));
        for reader in &readers {
            let quoted = Ident::with_quote('"', reader);
            drop_column(cx, txn, &mut Vec::new(), table, &quoted, false, true)?;
        }
    }
    if let Some(def) = cx.db.catalog().table(txn, table)? {
        crate::trigger_statements::drop_of_column(cx, txn, notices, &def, &column, cascade)?;
    }
    let uses = |text: &str| names_column(text, &column);
    let dropped = (cx.db.catalog().table(txn, table)?)
        .and_then(|d| Some((d.oid, d.layout.slot(d.column(&column)?))));
    match cx
        .db
        .catalog()
        .drop_column(txn, table, &column, cascade, &uses)
    {
        // (PostgreSQL finds a system column, then refuses it.)
        Err(CatalogError::NoSuchColumn { .. }) if crate::system_columns::reserved(&column) => {
            return Err(SqlError::new(
                "0A000",
                format!("cannot drop system column \"{column}\""),
            ));
        }
        Err(e @ CatalogError::NoSuchColumn { .. }) if if_exists => {
            notices.push(Notice::info(format!("{e}, skipping")));
        }
        Err(e) => return Err(e.into()),
        Ok(cascaded) => {
            if let Some((relation, slot)) = dropped {
                crate::privileges::forget_column(cx.db, relation, slot)?;
            }
            let objects: Vec<String> = (cascaded.iter())
                .map(|key| format!("constraint {} on table {}", key.name, key.table))
                .collect();
            notices.extend(Notice::cascaded(&objects));
        }
    }
    Ok(())
}

/// `DROP TYPE` / `DROP DOMAIN ... CASCADE`: drops every column of type
/// `type_oid`, after PostgreSQL's `drop cascades to column c of table t`
/// NOTICE for them.
pub fn drop_columns_of_type(
    cx: &Ctx<'_>,
    txn: &mut Transaction,
    notices: &mut Vec<Notice>,
    type_oid: u32,
) -> Result<(), SqlError> {
    let columns = cx.db.catalog().columns_of_type(txn, type_oid)?;
    let objects: Vec<String> = (columns.iter())
        .map(|(t, c)| format!("column {c} of table {t}"))
        .collect();
    notices.extend(Notice::cascaded(&objects));
    for (table, column) in &columns {
        let column = Ident::with_quote('"', column.clone());
        drop_column(cx, txn, &mut Vec::new(), table, &column, false, true)?;
    }
    Ok(())
}

/// Whether the stored expression `text` (a CHECK constraint's or a
/// generated column's) names
/// `column`, plain or qualified; an expression that does not parse
/// (stored ones always do) names nothing.
pub(crate) fn names_column(text: &str, column: &str) -> bool {
    let Ok(expr) = crate::parse::expression(text) else {
        return false;
    };
    sqlparser::ast::visit_expressions(&expr, |e| {
        let last = match e {
            Expr::Identifier(id) => Some(id),
            Expr::CompoundIdentifier(parts) => parts.last(),
            _ => None,
        };
        match last {
            Some(id) if names::ident(id) == column => ControlFlow::Break(()),
            _ => ControlFlow::Continue(()),
        }
    })
    .is_break()
}

#[cfg(test)]
mod tests {
    use super::*;

    // Proves a CHECK expression names a column plain, qualified or
    // quoted, and not as part of another name or a string.
    #[test]
    fn check_expressions_name_their_columns() {
        assert!(names_column("a < b", "b"));
        assert!(names_column("(t.b > 0) AND (c IS NOT NULL)", "b"));
        assert!(names_column("\"B\" > 0", "B"));
        assert!(!names_column("\"B\" > 0", "b"));
        assert!(!names_column("bb > 0 AND 'b' <> d", "b"));
        assert!(names_column("lower(b) <> ''", "b"));
    }
}
