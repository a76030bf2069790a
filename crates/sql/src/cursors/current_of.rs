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
//!   DISTINCT, window, set-returning call, set operation, CTE or ORDER
//!   BY), or with FOR UPDATE / SHARE for each table it locks (PostgreSQL's
//!   row marks), its DECLARE runs it with two more select items per such
//!   table, its `tableoid` and `ctid` (each inheritance child's own:
//!   `system_columns.rs`), which are taken off the rows again and kept as
//!   [`RowIds`]: per row, the table and tuple id each was read at.
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

/// [`mark`]'s call naming cursor `name` (PL/pgSQL puts a refcursor
/// variable's value for its name: PostgreSQL's `CURRENT OF` a parameter).
pub fn marked(name: &str) -> Expr {
    let arg = Expr::value(sqlparser::ast::Value::SingleQuotedString(name.to_string()));
    crate::call_expr::plain_call(
        sqlparser::ast::ObjectName::from(vec![Ident::with_quote(MARK, MARK_NAME)]),
        vec![FunctionArg::Unnamed(FunctionArgExpr::Expr(arg))],
    )
}

/// The cursor `expr` names if it is [`mark`]'s call.
pub fn cursor_named(expr: &Expr) -> Option<String> {
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
    /// The FROM items whose rows are identified (a simple scan's one
    /// table; with FOR UPDATE / SHARE, each locked table), each as the
    /// tables its scan reads (the table named, its descendants), by oid.
    pub items: Vec<Vec<u64>>,
    /// Per held row, per item, the table (oid) and tuple id it was read
    /// at.
    pub rows: Vec<Vec<(u64, Tid)>>,
}

/// A cursor's query with its rows' ids ([`with_row_ids`]) and, per
/// identified FROM item, the tables it scans.
pub type WithRowIds = (Query, Vec<Vec<Arc<Relation>>>);

/// A cursor's query `query` with two more select items per FROM item
/// whose rows it can identify ([`take_row_ids`]), and those items'
/// tables: with FOR UPDATE / SHARE, each locked table of the FROM list
/// (PostgreSQL's row marks); without, the table of a simple scan. `None`
/// if no row has an identity.
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
    let mut factors = Vec::new();
    for from in &select.from {
        factors.push(&from.relation);
        factors.extend(from.joins.iter().map(|j| &j.relation));
    }
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
    // (With FOR UPDATE these are refused when the query is planned.)
    if grouped
        || select.having.is_some()
        || select.distinct.is_some()
        || select.into.is_some()
        || computed
        || crate::project_set::in_select_list(select)
    {
        return Ok(None);
    }
    let identified: Vec<&TableFactor> = if query.locks.is_empty() {
        // (An ORDER BY is a sort above the scan, which PostgreSQL does
        // not look through.)
        if factors.len() != 1 || query.order_by.is_some() {
            return Ok(None);
        }
        factors
    } else {
        let mut named = Vec::new();
        let mut every = false;
        for clause in &query.locks {
            match &clause.of {
                None => every = true,
                Some(name) => named.extend(
                    name.0
                        .last()
                        .and_then(|p| p.as_ident())
                        .map(crate::names::ident),
                ),
            }
        }
        (factors.into_iter())
            .filter(|f| every || qualifier_of(f).is_some_and(|q| named.contains(&q)))
            .collect()
    };
    let mut query = query.clone();
    let mut items = Vec::new();
    for factor in identified {
        let TableFactor::Table {
            name, args: None, ..
        } = factor
        else {
            return Ok(None);
        };
        let Ok(written) = crate::names::relation(name) else {
            return Ok(None);
        };
        let resolved = crate::temp_tables::resolve_name(cx, txn, &written)?;
        let Ok(relation) = crate::access::relation(cx, txn, &resolved) else {
            // A view, a CTE, a sequence, a system relation: no heap rows.
            return Ok(None);
        };
        let Some(qualifier) = qualifier_of(factor) else {
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
        items.push(tables);
        let SetExpr::Select(select) = query.body.as_mut() else {
            unreachable!("checked a SELECT above")
        };
        for column in ["tableoid", "ctid"] {
            let parts = vec![Ident::with_quote('"', &qualifier), Ident::new(column)];
            select
                .projection
                .push(SelectItem::UnnamedExpr(Expr::CompoundIdentifier(parts)));
        }
    }
    if items.is_empty() {
        return Ok(None);
    }
    Ok(Some((query, items)))
}

/// The name a FROM item's columns are qualified with: its alias, else a
/// table's bare name.
fn qualifier_of(factor: &TableFactor) -> Option<String> {
    match factor {
        TableFactor::Table { alias: Some(a), .. } => Some(crate::names::ident(&a.name)),
        TableFactor::Table { name, .. } => match name.0.last() {
            Some(ObjectNamePart::Identifier(id)) => Some(crate::names::ident(id)),
            _ => None,
        },
        _ => None,
    }
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

/// Takes the items [`with_row_ids`] added (two per identified FROM
/// item, whose tables `items` gives) off each of `rows` and off
/// `columns`: where each row was read, each `ctid` (a block's position
/// in the table's pages) made the tuple id again while the pages are as
/// the scan numbered them (the DECLARE's transaction, right after its
/// run). A row an item gave none of (NULL) is not identified: 0A000.
pub fn take_row_ids(
    rows: &mut [Vec<Value>],
    columns: &mut Vec<Column>,
    items: &[Vec<Arc<Relation>>],
    locked: bool,
) -> Result<RowIds, SqlError> {
    let width = 2 * items.len();
    columns.truncate(columns.len().saturating_sub(width));
    let fillers = (items.iter().flatten())
        .map(|t| Ok((t.def.oid, crate::system_columns::Filler::of(t)?)))
        .collect::<Result<Vec<_>, SqlError>>()?;
    let mut ids = Vec::with_capacity(rows.len());
    for row in rows.iter_mut() {
        let added = row.split_off(row.len().saturating_sub(width));
        let mut row_ids = Vec::with_capacity(items.len());
        for pair in added.chunks_exact(2) {
            let [Value::Oid(oid), Value::Tid(block, offset)] = pair else {
                return Err(SqlError::unsupported(
                    "a cursor whose locked rows may be NULL-extended",
                ));
            };
            let oid = u64::from(*oid);
            let tid = (fillers.iter())
                .find(|(o, _)| *o == oid)
                .and_then(|(_, filler)| filler.tid_at(*block, *offset))
                .ok_or_else(|| {
                    SqlError::new(
                        "XX000",
                        format!("a cursor's row ({block},{offset}) is on no page"),
                    )
                })?;
            row_ids.push((oid, tid));
        }
        ids.push(row_ids);
    }
    Ok(RowIds {
        locked,
        items: (items.iter())
            .map(|tables| tables.iter().map(|t| t.def.oid).collect())
            .collect(),
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
