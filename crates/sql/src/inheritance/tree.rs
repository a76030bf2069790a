//! A table's inheritance descendants: what a parent read, updated or
//! deleted from without `ONLY` reaches (PostgreSQL's
//! `find_all_inheritors`: breadth first, each table once however many
//! paths lead to it).

use crate::context::Ctx;
use crate::error::SqlError;
use crate::names;
use folio_catalog::Relation;
use folio_catalog::TableDef;
use folio_db::Transaction;
use sqlparser::ast::{Ident, SelectItem, TableAlias, TableFactor, TableWithJoins};
use std::sync::Arc;

/// The tables a scan of `def` without `ONLY` reads: `def` itself, then
/// its descendants, breadth first, each once (their names).
pub fn scans(cx: &Ctx<'_>, txn: &Transaction, def: &TableDef) -> Result<Vec<String>, SqlError> {
    let mut seen = vec![def.oid];
    let mut names = vec![def.name.clone()];
    let mut level = def.children.clone();
    while !level.is_empty() {
        let mut next = Vec::new();
        for (oid, name) in level {
            if seen.contains(&oid) {
                continue;
            }
            seen.push(oid);
            let child = cx
                .db
                .catalog()
                .table(txn, &name)?
                .ok_or_else(|| SqlError::undefined_table(&name))?;
            next.extend(child.children.iter().cloned());
            names.push(name);
        }
        level = next;
    }
    Ok(names)
}

/// `def`'s descendants (not itself), as [`scans`] orders them, read.
pub fn descendants(
    cx: &Ctx<'_>,
    txn: &Transaction,
    def: &TableDef,
) -> Result<Vec<TableDef>, SqlError> {
    let mut out = Vec::new();
    for name in scans(cx, txn, def)?.into_iter().skip(1) {
        let child = cx
            .db
            .catalog()
            .table(txn, &name)?
            .ok_or_else(|| SqlError::undefined_table(&name))?;
        out.push(child);
    }
    Ok(out)
}

/// The tables an UPDATE or DELETE of `def` without `ONLY` reaches (not
/// itself): its inheritance descendants and its partitions, at any
/// depth, each once. Their needs are `def`'s (`privileges::as_parent`).
pub fn reached(cx: &Ctx<'_>, txn: &Transaction, def: &TableDef) -> Result<Vec<TableDef>, SqlError> {
    let mut out = Vec::new();
    let mut seen = vec![def.oid];
    let mut next: Vec<(u64, String)> = def
        .children
        .iter()
        .chain(&def.partitions)
        .cloned()
        .collect();
    while let Some((oid, name)) = next.pop() {
        if seen.contains(&oid) {
            continue;
        }
        seen.push(oid);
        let child =
            (cx.db.catalog().table(txn, &name)?).ok_or_else(|| SqlError::undefined_table(&name))?;
        next.extend(child.children.iter().chain(&child.partitions).cloned());
        out.push(child);
    }
    Ok(out)
}

/// An inheritance parent and the FROM items naming each table it reaches.
pub type Targets = (Arc<Relation>, Vec<TableWithJoins>);

/// The FROM items an UPDATE or DELETE of `table` changes, if it names an
/// inheritance parent without `ONLY`: the parent itself and each
/// descendant, each as `ONLY` under the parent's alias or name, so the
/// statement is planned once per table (as a partitioned table's parts:
/// `dml.rs` `Change::Parts`).
pub fn targets(
    cx: &Ctx<'_>,
    txn: &Transaction,
    table: &TableWithJoins,
) -> Result<Option<Targets>, SqlError> {
    let TableFactor::Table { name, alias, .. } = &table.relation else {
        return Ok(None);
    };
    if super::syntax::only(name) {
        return Ok(None);
    }
    let Ok(text) = names::relation(name) else {
        return Ok(None);
    };
    let Ok(relation) = crate::access::relation(cx, txn, &text) else {
        return Ok(None);
    };
    if relation.def.children.is_empty() {
        return Ok(None);
    }
    let qualifier = match alias {
        Some(a) => names::ident(&a.name),
        None => folio_catalog::unqualified(&text).to_string(),
    };
    let mut out = Vec::new();
    for scan in scans(cx, txn, &relation.def)? {
        let mut item = table.clone();
        if let TableFactor::Table { name, alias, .. } = &mut item.relation {
            *name = super::syntax::only_name(&scan);
            *alias = Some(TableAlias {
                name: Ident::with_quote('"', &qualifier),
                columns: Vec::new(),
            });
        }
        out.push(item);
    }
    Ok(Some((relation, out)))
}

/// RETURNING's `*` and `alias.*` as the parent's columns (a child's part
/// returns the parent's columns, by name, as PostgreSQL's); `*` goes on
/// with the columns of `from`, the statement's FROM (USING) items.
pub fn returning_columns(
    def: &TableDef,
    items: Option<&[SelectItem]>,
    from: &[TableWithJoins],
) -> Option<Vec<SelectItem>> {
    let items = items?;
    let mut out = Vec::with_capacity(items.len());
    for item in items {
        match item {
            SelectItem::Wildcard(_) | SelectItem::QualifiedWildcard(..) => {
                let prefix = match item {
                    SelectItem::QualifiedWildcard(kind, _) => format!("{kind}."),
                    _ => String::new(),
                };
                for c in &def.columns {
                    let sql = format!("{prefix}{}", names::written(&c.name));
                    let expr = crate::parse::expression(&sql).ok()?;
                    out.push(SelectItem::UnnamedExpr(expr));
                }
                if let SelectItem::Wildcard(options) = item {
                    let joined = from.iter().flat_map(|t| {
                        std::iter::once(&t.relation).chain(t.joins.iter().map(|j| &j.relation))
                    });
                    for factor in joined {
                        let Some(name) = factor_name(factor) else {
                            continue;
                        };
                        out.push(SelectItem::QualifiedWildcard(
                            sqlparser::ast::SelectItemQualifiedWildcardKind::ObjectName(
                                sqlparser::ast::ObjectName::from(vec![names::written(&name)]),
                            ),
                            options.clone(),
                        ));
                    }
                }
            }
            other => out.push(other.clone()),
        }
    }
    Some(out)
}

/// The name a FROM item's columns are qualified by: its alias, else a
/// table's or function's last name.
fn factor_name(factor: &TableFactor) -> Option<String> {
    match factor {
        TableFactor::Table {
            alias: Some(alias), ..
        }
        | TableFactor::Derived {
            alias: Some(alias), ..
        }
        | TableFactor::Function {
            alias: Some(alias), ..
        }
        | TableFactor::TableFunction {
            alias: Some(alias), ..
        }
        | TableFactor::UNNEST {
            alias: Some(alias), ..
        } => Some(names::ident(&alias.name)),
        TableFactor::Table { name, .. } | TableFactor::Function { name, .. } => {
            names::parts(name).and_then(|p| p.last().cloned())
        }
        _ => None,
    }
}

/// `def`'s descendants, each after every one of its parents that is in
/// the tree (so a change reaches a table once its parents have it, and a
/// table may be dropped once the tables after it are gone).
pub fn ordered(cx: &Ctx<'_>, txn: &Transaction, def: &TableDef) -> Result<Vec<TableDef>, SqlError> {
    let mut left = descendants(cx, txn, def)?;
    let mut done = vec![def.oid];
    let mut out = Vec::with_capacity(left.len());
    while !left.is_empty() {
        let in_tree = |oid: u64, left: &[TableDef]| left.iter().any(|d| d.oid == oid);
        let ready = (left.iter())
            .position(|d| {
                (d.parents().into_iter()).all(|(p, _)| done.contains(&p) || !in_tree(p, &left))
            })
            .unwrap_or(0);
        let next = left.remove(ready);
        done.push(next.oid);
        out.push(next);
    }
    Ok(out)
}
