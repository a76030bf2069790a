//! PostgreSQL's functional dependency on a primary key: a query grouped by
//! every column of a table's primary key may name the table's other
//! columns outside aggregates (`SELECT * FROM t GROUP BY t.id`). folio
//! adds those columns to the GROUP BY, which leaves the groups as they are
//! (each is one value per key). It does so only for a query whose
//! grouping check failed (42803), so a query PostgreSQL takes without the
//! dependency is planned as written; the one owner of the rule is
//! [`extend`]. Also `*` and `t.*` in a grouped query ([`expand_stars`]):
//! each of the columns they stand for, as a column reference.

use crate::context::Ctx;
use crate::error::SqlError;
use crate::from::Scope;
use crate::names;
use crate::scalar::Columns;
use folio_db::Transaction;
use sqlparser::ast::{Expr, GroupByExpr, Ident, Select, SelectItem, TableFactor};

/// The column reference `qualifier.name`, or `name` alone when that
/// resolves to the same column (a USING join's merged column).
fn reference(scope: &Scope, position: usize) -> Option<Expr> {
    let name = scope.column_name(position)?;
    if scope.resolve(&name).is_ok_and(|(p, _)| p == position) {
        return Some(Expr::Identifier(Ident::with_quote('"', name)));
    }
    let qualifier = scope.qualifier_of(position)?;
    Some(Expr::CompoundIdentifier(vec![
        Ident::with_quote('"', qualifier),
        Ident::with_quote('"', name),
    ]))
}

/// `select` with each `*` / `t.*` item of its list as the columns it
/// stands for (`query::star_columns`), when it has one.
pub fn expand_stars(select: &Select, scope: &Scope) -> Result<Option<Select>, SqlError> {
    let starred = |item: &SelectItem| {
        matches!(
            item,
            SelectItem::Wildcard(_) | SelectItem::QualifiedWildcard(..)
        )
    };
    if !select.projection.iter().any(starred) {
        return Ok(None);
    }
    let mut items = Vec::new();
    for item in &select.projection {
        let Some(columns) = crate::query::star_columns(scope, item) else {
            items.push(item.clone());
            continue;
        };
        for position in columns? {
            let expr = reference(scope, position)
                .ok_or_else(|| SqlError::unsupported("* of this FROM item in a grouped query"))?;
            items.push(SelectItem::UnnamedExpr(expr));
        }
    }
    let mut select = select.clone();
    select.projection = items;
    Ok(Some(select))
}

/// `select` with the columns that depend on its grouping added to its
/// GROUP BY: those of each table in its FROM whose primary key's columns
/// are all grouping keys (of every grouping set: added as plain keys,
/// they join each set, whose groups they leave as they are). `None` when
/// there is none to add.
pub fn extend(
    cx: &Ctx<'_>,
    txn: &Transaction,
    select: &Select,
    scope: &Scope,
) -> Result<Option<Select>, SqlError> {
    let GroupByExpr::Expressions(keys, modifiers) = &select.group_by else {
        return Ok(None);
    };
    if !modifiers.is_empty() {
        return Ok(None);
    }
    // With grouping sets, the keys every set has (PostgreSQL's rule: the
    // dependency holds in each set only then).
    let expanded = crate::grouping_sets::expand(keys, |k| Ok(k.clone()))?;
    let common = (expanded.keys.iter().enumerate())
        .filter(|(k, _)| expanded.sets.iter().all(|set| set.contains(k)))
        .map(|(_, key)| key);
    let position_of = |key: &Expr| {
        match key {
            Expr::Identifier(id) => scope.resolve(&names::ident(id)).ok(),
            Expr::CompoundIdentifier(parts) if parts.len() == 2 => scope
                .resolve_qualified(&names::ident(&parts[0]), &names::ident(&parts[1]))
                .ok(),
            _ => None,
        }
        .map(|(p, _)| p)
    };
    // The columns every set groups by, and those any set does (a key of
    // some sets only stays theirs: it reads NULL in the others).
    let in_every: Vec<usize> = common.filter_map(position_of).collect();
    let mut grouped: Vec<usize> = expanded.keys.iter().filter_map(position_of).collect();
    let mut added = Vec::new();
    let tables = (select.from.iter())
        .flat_map(|t| std::iter::once(&t.relation).chain(t.joins.iter().map(|j| &j.relation)));
    for factor in tables {
        let TableFactor::Table {
            name,
            alias,
            args: None,
            ..
        } = factor
        else {
            continue;
        };
        let qualifier = match alias {
            Some(alias) => names::ident(&alias.name),
            None => match names::parts(name).and_then(|p| p.last().cloned()) {
                Some(last) => last,
                None => continue,
            },
        };
        let Ok(relation) = crate::access::relation(cx, txn, &names::relation(name)?) else {
            continue;
        };
        let def = &relation.def;
        let Some(key) = def.primary_key() else {
            continue;
        };
        // The FROM item is this table (not a CTE of its name): its
        // columns are the table's.
        let column = |c: usize| {
            scope
                .resolve_qualified(&qualifier, &def.columns[c].name)
                .ok()
                .map(|(p, _)| p)
        };
        let keyed = key.columns.iter().all(|&c| {
            (c as usize) < def.columns.len()
                && column(c as usize).is_some_and(|p| in_every.contains(&p))
        });
        if !keyed {
            continue;
        }
        for c in 0..def.columns.len() {
            if let Some(p) = column(c)
                && !grouped.contains(&p)
            {
                grouped.push(p);
                added.push(Expr::CompoundIdentifier(vec![
                    Ident::with_quote('"', qualifier.clone()),
                    Ident::with_quote('"', def.columns[c].name.clone()),
                ]));
            }
        }
    }
    if added.is_empty() {
        return Ok(None);
    }
    let mut select = select.clone();
    let GroupByExpr::Expressions(keys, _) = &mut select.group_by else {
        unreachable!("matched above");
    };
    keys.extend(added);
    Ok(Some(select))
}
