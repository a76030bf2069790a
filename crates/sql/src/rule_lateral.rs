//! An action's FROM items see the rule source as PostgreSQL's NEW and OLD
//! are seen: a subquery or function in an action's FROM may read them
//! (PostgreSQL adds them to every action's range table, so such a read is
//! an implicit LATERAL reference), and an unqualified `*` does not take
//! their columns (they are in no action's FROM list as written).
//!
//! `rules.rs` joins the source in as the first FROM item; this file marks
//! the items after it LATERAL and writes `*` out as the written items'
//! `name.*`.

use sqlparser::ast::{
    Ident, JoinConstraint, JoinOperator, ObjectName, ObjectNamePart, Select, SelectItem,
    SelectItemQualifiedWildcardKind, TableFactor, TableWithJoins,
};

/// `items` (an action's FROM list as written) with the rule source
/// `source` put first and every subquery or function after it LATERAL.
pub fn join_first(items: &mut Vec<TableWithJoins>, source: &TableWithJoins) {
    for item in items.iter_mut() {
        lateral(&mut item.relation);
        for join in &mut item.joins {
            lateral(&mut join.relation);
        }
    }
    items.insert(0, source.clone());
}

fn lateral(factor: &mut TableFactor) {
    match factor {
        TableFactor::Derived { lateral, .. } | TableFactor::Function { lateral, .. } => {
            *lateral = true
        }
        TableFactor::NestedJoin {
            table_with_joins, ..
        } => {
            lateral(&mut table_with_joins.relation);
            for join in &mut table_with_joins.joins {
                lateral(&mut join.relation);
            }
        }
        _ => {}
    }
}

/// `select`'s unqualified `*` written out as `name.*` of each FROM item
/// (before the source is joined in), so it does not take the source's
/// columns. Left as it is when an item has no name to qualify with or a
/// join merges columns (USING, NATURAL).
pub fn star_of_written_items(select: &mut Select) {
    if !(select.projection.iter()).any(|i| matches!(i, SelectItem::Wildcard(_))) {
        return;
    }
    let mut qualifiers = Vec::new();
    for item in &select.from {
        let Some(name) = name_of(&item.relation) else {
            return;
        };
        qualifiers.push(name);
        for join in &item.joins {
            if merges_columns(&join.join_operator) {
                return;
            }
            let Some(name) = name_of(&join.relation) else {
                return;
            };
            qualifiers.push(name);
        }
    }
    let mut projection = Vec::new();
    for item in select.projection.drain(..) {
        match item {
            SelectItem::Wildcard(options) => projection.extend(qualifiers.iter().map(|name| {
                SelectItem::QualifiedWildcard(
                    SelectItemQualifiedWildcardKind::ObjectName(name.clone()),
                    options.clone(),
                )
            })),
            other => projection.push(other),
        }
    }
    select.projection = projection;
}

/// The name a FROM item's columns are qualified with: its alias, else a
/// table's name as written.
fn name_of(factor: &TableFactor) -> Option<ObjectName> {
    let alias = match factor {
        TableFactor::Table { name, alias, .. } => match alias {
            None => return Some(name.clone()),
            Some(alias) => alias,
        },
        TableFactor::Derived { alias, .. }
        | TableFactor::Function { alias, .. }
        | TableFactor::UNNEST { alias, .. } => alias.as_ref()?,
        _ => return None,
    };
    let ident: Ident = alias.name.clone();
    Some(ObjectName(vec![ObjectNamePart::Identifier(ident)]))
}

fn merges_columns(operator: &JoinOperator) -> bool {
    matches!(
        crate::view_renames::join_constraint(operator),
        Some(JoinConstraint::Using(_) | JoinConstraint::Natural)
    )
}
