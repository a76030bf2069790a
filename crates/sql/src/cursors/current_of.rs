//! `UPDATE ... WHERE CURRENT OF c` and `DELETE ... WHERE CURRENT OF c`:
//! the change of the row cursor `c` stands on (README "Cursors", "WHERE
//! CURRENT OF").
//!
//! - **Syntax** ([`mark`]). sqlparser reads no `CURRENT OF`; in an UPDATE
//!   or DELETE, `WHERE CURRENT OF name` becomes a call of a function
//!   named with a backquote (a quote PostgreSQL's SQL has no use for), its
//!   argument the cursor's name as a string: the WHERE clause then parses,
//!   and [`split`] takes the mark back out of it before it is bound.
//! - **Identity** ([`with_row_ids`], [`take_row_ids`]). A cursor holds
//!   its rows (README "Cursors"), so each must say which row version it
//!   was read from. When the cursor's query is a simple scan of one table
//!   (PostgreSQL's `search_plan_tree`: no join, grouping, aggregate,
//!   DISTINCT, window, set-returning call, set operation or CTE, and no
//!   ORDER BY unless FOR UPDATE / SHARE marks the rows), its
//!   DECLARE runs it with two more select items, the table's `tableoid`
//!   and `ctid` (each inheritance child's own: `system_columns.rs`), which
//!   are taken off the rows again and kept as [`RowIds`]: per row, the
//!   table and tuple id the scan read it at.
//! - **The change** (`change_rows.rs` `Rows::Current`). At each run the
//!   cursor's current row for the table changed is asked
//!   (`Cursors::current_row`, which owns PostgreSQL's `execCurrentOf`
//!   errors); the version the transaction sees is found along the row's
//!   update links from there ([`latest_visible`], PostgreSQL's
//!   `heap_get_latest_tid` before its TID scan), so a row updated
//!   through the cursor is updated again, and one deleted is not found
//!   (UPDATE 0).

use crate::context::Ctx;
use crate::error::SqlError;
use crate::output::Column;
use folio_catalog::Relation;
use folio_db::{Tid, Transaction};
use folio_row::Value;
use sqlparser::ast::{
    BinaryOperator, Expr, FunctionArg, FunctionArgExpr, FunctionArguments, Ident, ObjectNamePart,
    Query, SelectItem, SetExpr, Statement, TableFactor,
};
use sqlparser::keywords::Keyword;
use sqlparser::tokenizer::{Token, TokenWithSpan, Word};
use std::sync::Arc;

/// The quote of the function name that marks `CURRENT OF`.
const MARK: char = '`';
/// The marked function's name.
const MARK_NAME: &str = "current of";

/// In an UPDATE or DELETE, `WHERE CURRENT OF name` becomes ``WHERE
/// `current of`('name')`` (the name folded as an identifier is).
pub fn mark(tokens: &mut Vec<TokenWithSpan>) {
    let first = tokens.first().and_then(|t| crate::parse::keyword(&t.token));
    if !matches!(first, Some(Keyword::UPDATE | Keyword::DELETE)) {
        return;
    }
    let keyword_at = |tokens: &[TokenWithSpan], at: usize, k: Keyword| {
        tokens
            .get(at)
            .and_then(|t| crate::parse::keyword(&t.token))
            .is_some_and(|found| found == k)
    };
    let mut at = 0;
    while at + 3 < tokens.len() {
        if keyword_at(tokens, at, Keyword::WHERE)
            && keyword_at(tokens, at + 1, Keyword::CURRENT)
            && keyword_at(tokens, at + 2, Keyword::OF)
            && let Token::Word(word) = &tokens[at + 3].token
        {
            let name = match word.quote_style {
                None => word.value.to_lowercase(),
                Some(_) => word.value.clone(),
            };
            let call = [
                Token::Word(Word {
                    value: MARK_NAME.to_string(),
                    quote_style: Some(MARK),
                    keyword: Keyword::NoKeyword,
                }),
                Token::LParen,
                Token::SingleQuotedString(name),
                Token::RParen,
            ];
            let replaced = call.into_iter().map(TokenWithSpan::wrap);
            tokens.splice(at + 1..at + 4, replaced);
            at += 5;
            continue;
        }
        at += 1;
    }
}

/// The cursor `expr` names if it is [`mark`]'s call.
fn cursor_named(expr: &Expr) -> Option<String> {
    let Expr::Function(f) = expr else {
        return None;
    };
    let [ObjectNamePart::Identifier(id)] = f.name.0.as_slice() else {
        return None;
    };
    if id.quote_style != Some(MARK) || id.value != MARK_NAME {
        return None;
    }
    let FunctionArguments::List(list) = &f.args else {
        return None;
    };
    match list.args.as_slice() {
        [FunctionArg::Unnamed(FunctionArgExpr::Expr(Expr::Value(v)))] => match &v.value {
            sqlparser::ast::Value::SingleQuotedString(name) => Some(name.clone()),
            _ => None,
        },
        _ => None,
    }
}

/// A WHERE clause taken apart: the cursor of its `CURRENT OF`, if it has
/// one, and its other conjuncts (a policy's conditions ANDed to it by
/// `row_security.rs`), if any.
pub fn split(selection: Option<&Expr>) -> (Option<String>, Option<Expr>) {
    let Some(expr) = selection else {
        return (None, None);
    };
    if let Some(name) = cursor_named(expr) {
        return (Some(name), None);
    }
    match expr {
        Expr::BinaryOp {
            left,
            op: BinaryOperator::And,
            right,
        } => {
            let (l_name, l_rest) = split(Some(left));
            let (r_name, r_rest) = split(Some(right));
            let Some(name) = l_name.or(r_name) else {
                return (None, Some(expr.clone()));
            };
            let rest = match (l_rest, r_rest) {
                (Some(l), Some(r)) => Some(Expr::BinaryOp {
                    left: Box::new(l),
                    op: BinaryOperator::And,
                    right: Box::new(r),
                }),
                (l, r) => l.or(r),
            };
            (Some(name), rest)
        }
        Expr::Nested(inner) => split(Some(inner)),
        _ => (None, Some(expr.clone())),
    }
}

/// PostgreSQL's 0A000 for an UPDATE or DELETE `WHERE CURRENT OF` of a
/// view (its rewriter refuses it before any cursor is looked at).
pub fn refuse_view(cx: &Ctx<'_>, txn: &Transaction, statement: &Statement) -> Result<(), SqlError> {
    let (selection, target) = match statement {
        Statement::Update {
            selection, table, ..
        } => (selection.as_ref(), Some(table)),
        Statement::Delete(delete) => {
            let from = match &delete.from {
                sqlparser::ast::FromTable::WithFromKeyword(f)
                | sqlparser::ast::FromTable::WithoutKeyword(f) => f,
            };
            (delete.selection.as_ref(), from.first())
        }
        _ => return Ok(()),
    };
    if split(selection).0.is_none() {
        return Ok(());
    }
    let Some(TableFactor::Table { name, .. }) = target.map(|t| &t.relation) else {
        return Ok(());
    };
    let Ok(written) = crate::names::relation(name) else {
        return Ok(());
    };
    let resolved = crate::temp_tables::resolve_name(cx, txn, &written)?;
    if crate::access::relation(cx, txn, &resolved).is_err()
        && cx.db.catalog().view(txn, &resolved)?.is_some()
    {
        return Err(SqlError::new(
            "0A000",
            "WHERE CURRENT OF on a view is not implemented",
        ));
    }
    Ok(())
}

/// Where a cursor's held rows were read: what `WHERE CURRENT OF` changes.
#[derive(Debug, Clone, Default)]
pub struct RowIds {
    /// The query has FOR UPDATE / SHARE (PostgreSQL's row marks: the
    /// errors then name the lock).
    pub locked: bool,
    /// The tables the scan reads (the table named, its descendants), by
    /// oid; empty when the cursor is no simple scan of a table.
    pub tables: Vec<u64>,
    /// Per held row, the table (oid) and tuple id it was read at; empty
    /// when `tables` is.
    pub rows: Vec<(u64, Tid)>,
}

/// A cursor's query with its rows' ids ([`with_row_ids`]) and the
/// tables it scans.
pub type WithRowIds = (Query, Vec<Arc<Relation>>);

/// The tables a cursor's query `query` scans simply, and its query with
/// the two items ([`take_row_ids`]) that say where each row was read;
/// `None` if it is no simple scan of a table (then no row has an
/// identity).
pub fn with_row_ids(
    cx: &Ctx<'_>,
    txn: &Transaction,
    query: &Query,
) -> Result<Option<WithRowIds>, SqlError> {
    if query.with.is_some() {
        return Ok(None);
    }
    let SetExpr::Select(select) = query.body.as_ref() else {
        return Ok(None);
    };
    let [from] = select.from.as_slice() else {
        return Ok(None);
    };
    let TableFactor::Table {
        name,
        alias,
        args: None,
        ..
    } = &from.relation
    else {
        return Ok(None);
    };
    let grouped = match &select.group_by {
        sqlparser::ast::GroupByExpr::All(_) => true,
        sqlparser::ast::GroupByExpr::Expressions(exprs, _) => !exprs.is_empty(),
    };
    let computed = select.projection.iter().any(|item| match item {
        SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. } => {
            crate::aggregate::contains_aggregate(e) || has_window(e)
        }
        _ => false,
    });
    // (An ORDER BY is a sort above the scan, which PostgreSQL does not
    // look through; with FOR UPDATE the row marks say the rows.)
    let sorted = query.order_by.is_some() && query.locks.is_empty();
    if !from.joins.is_empty()
        || sorted
        || grouped
        || select.having.is_some()
        || select.distinct.is_some()
        || select.into.is_some()
        || computed
        || crate::project_set::in_select_list(select)
    {
        return Ok(None);
    }
    let Ok(written) = crate::names::relation(name) else {
        return Ok(None);
    };
    let resolved = crate::temp_tables::resolve_name(cx, txn, &written)?;
    let Ok(relation) = crate::access::relation(cx, txn, &resolved) else {
        // A view, a CTE, a sequence, a system relation: no heap rows.
        return Ok(None);
    };
    let mut tables = Vec::new();
    let scanned = match crate::inheritance::syntax::only(name) {
        true => vec![relation.def.name.clone()],
        false => crate::inheritance::tree::scans(cx, txn, &relation.def)?,
    };
    for table in scanned {
        let table = crate::access::relation(cx, txn, &table)?;
        tables.extend(crate::partitions::foreign_keys::leaves(cx, txn, table)?);
    }
    let qualifier = match alias {
        Some(alias) => crate::names::ident(&alias.name),
        None => match name.0.last() {
            Some(ObjectNamePart::Identifier(id)) => crate::names::ident(id),
            _ => return Ok(None),
        },
    };
    let mut query = query.clone();
    let SetExpr::Select(select) = query.body.as_mut() else {
        unreachable!("checked a SELECT above")
    };
    for column in ["tableoid", "ctid"] {
        let parts = vec![Ident::with_quote('"', &qualifier), Ident::new(column)];
        select
            .projection
            .push(SelectItem::UnnamedExpr(Expr::CompoundIdentifier(parts)));
    }
    Ok(Some((query, tables)))
}

/// Whether `expr` calls a window function.
fn has_window(expr: &Expr) -> bool {
    use std::ops::ControlFlow;
    sqlparser::ast::visit_expressions(expr, |e| match e {
        Expr::Function(f) if f.over.is_some() => ControlFlow::Break(()),
        _ => ControlFlow::Continue(()),
    })
    .is_break()
}

/// Takes the two items [`with_row_ids`] added off each of `rows` and off
/// `columns`: where each row was read, its `ctid` (a block's position in
/// the table's pages) made the tuple id again while the pages are as the
/// scan numbered them (the DECLARE's transaction, right after its run).
pub fn take_row_ids(
    rows: &mut [Vec<Value>],
    columns: &mut Vec<Column>,
    tables: &[Arc<Relation>],
    locked: bool,
) -> Result<RowIds, SqlError> {
    columns.truncate(columns.len().saturating_sub(2));
    let fillers = (tables.iter())
        .map(|t| Ok((t.def.oid, crate::system_columns::Filler::of(t)?)))
        .collect::<Result<Vec<_>, SqlError>>()?;
    let mut ids = Vec::with_capacity(rows.len());
    for row in rows.iter_mut() {
        let ctid = row.pop();
        let tableoid = row.pop();
        let (Some(Value::Oid(oid)), Some(Value::Tid(block, offset))) = (tableoid, ctid) else {
            return Err(SqlError::new("XX000", "a cursor's row lost its row id"));
        };
        let oid = u64::from(oid);
        let tid = (fillers.iter())
            .find(|(o, _)| *o == oid)
            .and_then(|(_, filler)| filler.tid_at(block, offset))
            .ok_or_else(|| {
                SqlError::new(
                    "XX000",
                    format!("a cursor's row ({block},{offset}) is on no page"),
                )
            })?;
        ids.push((oid, tid));
    }
    Ok(RowIds {
        locked,
        tables: tables.iter().map(|t| t.def.oid).collect(),
        rows: ids,
    })
}

/// The version of the row at `tid` that `txn` sees: the newest along its
/// update links (each link checked to lead to the version its updater
/// made) that is visible, and its bytes; `None` if none is (deleted, or
/// gone). PostgreSQL's `heap_get_latest_tid` and the TID scan's fetch.
pub fn latest_visible(
    txn: &Transaction,
    relation: &Relation,
    tid: Tid,
) -> Result<Option<(Tid, Vec<u8>)>, SqlError> {
    // (A chain longer than this is a cycle: the heap never makes one.)
    const LINKS_MAX: usize = 1 << 20;
    let table = &relation.table;
    let heap = |e| SqlError::from(folio_catalog::CatalogError::from(e));
    let mut found = None;
    let mut at = tid;
    let mut updater = None;
    for _ in 0..LINKS_MAX {
        let Some(header) = table.header(at).map_err(heap)? else {
            return Ok(found);
        };
        if updater.is_some_and(|xid| header.xmin != xid) {
            return Ok(found);
        }
        if let Some(row) = table.fetch(txn, at).map_err(heap)? {
            found = Some((at, row));
        }
        match (header.deleter(), header.next) {
            (Some(deleter), Some(next)) if next != at => {
                updater = Some(deleter);
                at = next;
            }
            _ => return Ok(found),
        }
    }
    Err(SqlError::new(
        "XX000",
        format!("the update links from row {tid} do not end"),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Proves `WHERE CURRENT OF` parses in UPDATE and DELETE and comes
    /// back out of the WHERE clause, a quoted name kept as written.
    #[test]
    fn marks_and_splits() {
        for (sql, name) in [
            ("UPDATE t SET a = 1 WHERE CURRENT OF C1", "c1"),
            ("DELETE FROM t WHERE CURRENT OF \"Cx\" RETURNING *", "Cx"),
        ] {
            let parsed = crate::parse::statements(sql).unwrap();
            let Some(crate::parse::Parsed::Sql(statement)) = parsed.first() else {
                panic!("{sql}: not a statement");
            };
            let selection = match statement.as_ref() {
                Statement::Update { selection, .. } => selection.clone(),
                Statement::Delete(d) => d.selection.clone(),
                other => panic!("{other}"),
            };
            assert_eq!(split(selection.as_ref()), (Some(name.to_string()), None));
        }
        let select = crate::parse::statements("SELECT 1 FROM t WHERE CURRENT OF c");
        assert!(select.is_err(), "only UPDATE and DELETE take CURRENT OF");
    }
}
