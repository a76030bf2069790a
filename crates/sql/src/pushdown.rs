//! WHERE conditions pushed into a subquery in FROM (a view, as folio
//! plans one, or a user's subquery), so its scans can use an index and
//! read fewer rows: PostgreSQL pulls such a subquery up into the query;
//! folio plans it on its own, so a condition on its columns is added to
//! its WHERE instead, before it is planned.
//!
//! Only when that cannot change the result: the query's FROM is that one
//! subquery; the subquery is a plain SELECT (no DISTINCT, GROUP BY,
//! HAVING, aggregates, window functions, set-returning functions, ORDER
//! BY, LIMIT or OFFSET), so filtering its rows commutes with it; the
//! condition reads only output columns that are the subquery's own
//! columns, written as plain references, and calls nothing (a volatile
//! call would run twice). The condition also stays in the outer WHERE:
//! it holds of every row the subquery now yields, so that costs one
//! check per row and keeps the outer query as written.

use crate::names;
use sqlparser::ast::{
    BinaryOperator, Expr, LimitClause, OrderBy, OrderByExpr, OrderByKind, Query, SelectItem,
    SetExpr, TableAlias,
};

/// What of the query over a lone subquery may go into it: its WHERE, and
/// its ORDER BY with the rows its LIMIT and OFFSET need, where the query
/// is a plain projection (no grouping, DISTINCT, windows or row locks:
/// `query.rs` decides) whose select list is `projection`.
#[derive(Clone, Copy)]
pub struct Outer<'a> {
    pub selection: Option<&'a Expr>,
    pub order: Option<(&'a [OrderByExpr], u64, &'a [SelectItem])>,
    /// The subquery is a `security_barrier` view: only leakproof
    /// conjuncts may go in ([`leakproof`]).
    pub barrier: bool,
}

/// `subquery` (named by `alias`) with the conjuncts of the outer WHERE it
/// may take added to its WHERE, and those conjuncts as the WHERE has
/// them; then, if every conjunct went, the outer ORDER BY and the rows
/// its LIMIT needs too (the outer query still sorts and limits: the rows
/// it gets are few). `None` if nothing may go.
pub fn into_subquery(
    subquery: &Query,
    alias: &TableAlias,
    outer: Outer<'_>,
) -> Option<(Query, Vec<Expr>)> {
    if subquery.with.is_some()
        || subquery.order_by.is_some()
        || subquery.limit_clause.is_some()
        || subquery.fetch.is_some()
        || !subquery.locks.is_empty()
    {
        return None;
    }
    let SetExpr::Select(select) = subquery.body.as_ref() else {
        return None;
    };
    let plain_groups = match &select.group_by {
        sqlparser::ast::GroupByExpr::Expressions(e, m) => e.is_empty() && m.is_empty(),
        sqlparser::ast::GroupByExpr::All(_) => false,
    };
    if select.distinct.is_some()
        || !plain_groups
        || select.having.is_some()
        || !select.named_window.is_empty()
        || select.qualify.is_some()
        || crate::project_set::in_select_list(select)
    {
        return None;
    }
    // Each output column's name and, if it is a plain column of the
    // subquery's own FROM, that reference.
    let mut columns: Vec<(String, Option<&Expr>)> = Vec::with_capacity(select.projection.len());
    for (i, item) in select.projection.iter().enumerate() {
        let (expr, name) = match item {
            SelectItem::UnnamedExpr(e) => (e, output_name(e)),
            SelectItem::ExprWithAlias { expr, alias } => (expr, Some(names::ident(alias))),
            _ => return None,
        };
        if crate::aggregate::contains_call(expr, |f| {
            crate::aggregate::is_aggregate(f) || f.over.is_some()
        }) || crate::outer_aggregates::in_subqueries(expr)
        {
            return None;
        }
        let name = match alias.columns.get(i) {
            Some(c) => Some(names::ident(&c.name)),
            None => name,
        };
        let plain = matches!(expr, Expr::Identifier(_) | Expr::CompoundIdentifier(_));
        columns.push((name.unwrap_or_default(), plain.then_some(expr)));
    }
    let qualifier = names::ident(&alias.name);
    let mut pushed: Vec<Expr> = Vec::new();
    let mut taken: Vec<Expr> = Vec::new();
    let all = outer.selection.map_or(Vec::new(), conjuncts);
    for conjunct in &all {
        if outer.barrier && !leakproof(conjunct) {
            continue;
        }
        if let Some(rewritten) = rewrite(conjunct, &qualifier, &columns) {
            pushed.push(rewritten);
            taken.push((*conjunct).clone());
        }
    }
    let order = match outer.order {
        Some((keys, rows, projection)) if taken.len() == all.len() => {
            order_keys(keys, projection, &qualifier, &columns).map(|keys| (keys, rows))
        }
        _ => None,
    };
    if pushed.is_empty() && order.is_none() {
        return None;
    }
    let mut out = subquery.clone();
    if let Some((keys, rows)) = order {
        out.order_by = Some(OrderBy {
            kind: OrderByKind::Expressions(keys),
            interpolate: None,
        });
        out.limit_clause = Some(LimitClause::LimitOffset {
            limit: Some(Expr::value(sqlparser::ast::Value::Number(
                rows.to_string(),
                false,
            ))),
            offset: None,
            limit_by: Vec::new(),
        });
    }
    let SetExpr::Select(select) = out.body.as_mut() else {
        unreachable!("checked above");
    };
    let mut condition = select.selection.take().map(|e| Expr::Nested(Box::new(e)));
    for p in pushed {
        let p = Expr::Nested(Box::new(p));
        condition = Some(match condition {
            None => p,
            Some(c) => Expr::BinaryOp {
                left: Box::new(c),
                op: BinaryOperator::And,
                right: Box::new(p),
            },
        });
    }
    select.selection = condition;
    Some((out, taken))
}

/// The outer ORDER BY keys as the subquery's own, if each is a column of
/// it (not a select-list position or an alias of the outer query's).
fn order_keys(
    keys: &[OrderByExpr],
    projection: &[SelectItem],
    qualifier: &str,
    columns: &[(String, Option<&Expr>)],
) -> Option<Vec<OrderByExpr>> {
    let aliased = |name: String| {
        projection.iter().any(|item| {
            matches!(item, SelectItem::ExprWithAlias { alias, .. } if names::ident(alias) == name)
        })
    };
    keys.iter()
        .map(|key| {
            let mut expr = &key.expr;
            while let Expr::Nested(inner) = expr {
                expr = inner;
            }
            let named = match expr {
                Expr::Identifier(id) => names::ident(id),
                Expr::CompoundIdentifier(parts) => parts.last().map(names::ident)?,
                _ => return None,
            };
            if aliased(named) || key.with_fill.is_some() {
                return None;
            }
            Some(OrderByExpr {
                expr: rewrite(expr, qualifier, columns)?,
                options: key.options,
                with_fill: None,
            })
        })
        .collect()
}

/// `selection` without the conjuncts `taken` (pushed into the subquery,
/// whose rows all hold them); `None` if none is left.
pub fn remaining(selection: &Expr, taken: &[Expr]) -> Option<Expr> {
    conjuncts(selection)
        .into_iter()
        .filter(|c| !taken.contains(c))
        .map(|c| Expr::Nested(Box::new(c.clone())))
        .reduce(|left, right| Expr::BinaryOp {
            left: Box::new(left),
            op: BinaryOperator::And,
            right: Box::new(right),
        })
}

/// The name an unaliased select item's column gets, where it is a column.
fn output_name(e: &Expr) -> Option<String> {
    match e {
        Expr::Identifier(id) => Some(names::ident(id)),
        Expr::CompoundIdentifier(parts) => parts.last().map(names::ident),
        _ => None,
    }
}

/// The conjuncts of an AND chain (through parentheses around an AND):
/// the one owner of how a WHERE splits.
pub(crate) fn conjuncts(e: &Expr) -> Vec<&Expr> {
    match e {
        Expr::BinaryOp {
            left,
            op: BinaryOperator::And,
            right,
        } => {
            let mut out = conjuncts(left);
            out.extend(conjuncts(right));
            out
        }
        Expr::Nested(inner)
            if matches!(
                inner.as_ref(),
                Expr::BinaryOp {
                    op: BinaryOperator::And,
                    ..
                }
            ) =>
        {
            conjuncts(inner)
        }
        other => vec![other],
    }
}

/// Whether conjunct `e` can neither fail nor show a value on any row
/// (PostgreSQL's leakproof operators): columns and constants compared,
/// null tests, IN lists and BETWEEN of them, and AND / OR / NOT of
/// those. Arithmetic (division by zero), casts, LIKE and every call may
/// fail on a row a `security_barrier` view hides, so they stay outside.
/// The one owner of that rule.
pub fn leakproof(e: &Expr) -> bool {
    let operand = |e: &Expr| {
        matches!(
            e,
            Expr::Identifier(_) | Expr::CompoundIdentifier(_) | Expr::Value(_)
        )
    };
    match e {
        Expr::Nested(inner) => leakproof(inner),
        Expr::BinaryOp { left, op, right } => match op {
            BinaryOperator::And | BinaryOperator::Or => leakproof(left) && leakproof(right),
            BinaryOperator::Eq
            | BinaryOperator::NotEq
            | BinaryOperator::Lt
            | BinaryOperator::LtEq
            | BinaryOperator::Gt
            | BinaryOperator::GtEq => operand(left) && operand(right),
            _ => false,
        },
        Expr::UnaryOp {
            op: sqlparser::ast::UnaryOperator::Not,
            expr,
        } => leakproof(expr),
        Expr::IsNull(inner) | Expr::IsNotNull(inner) => operand(inner),
        Expr::InList { expr, list, .. } => operand(expr) && list.iter().all(operand),
        Expr::Between {
            expr, low, high, ..
        } => operand(expr) && operand(low) && operand(high),
        _ => false,
    }
}

/// The conjunct over the subquery's own columns, or `None` if it reads
/// anything else or is not one of the forms that may go.
fn rewrite(e: &Expr, qualifier: &str, columns: &[(String, Option<&Expr>)]) -> Option<Expr> {
    let column = |name: String| -> Option<Expr> {
        let mut found = columns.iter().filter(|(n, _)| *n == name);
        let (_, expr) = found.next()?;
        if found.next().is_some() {
            return None;
        }
        expr.map(|e| Expr::Nested(Box::new(e.clone())))
    };
    let go = |e: &Expr| rewrite(e, qualifier, columns).map(Box::new);
    Some(match e {
        Expr::Identifier(id) => column(names::ident(id))?,
        Expr::CompoundIdentifier(parts) => match parts.as_slice() {
            [q, c] if names::ident(q) == qualifier => column(names::ident(c))?,
            _ => return None,
        },
        Expr::Value(_) | Expr::TypedString { .. } => e.clone(),
        Expr::Nested(inner) => Expr::Nested(go(inner)?),
        Expr::BinaryOp { left, op, right } => Expr::BinaryOp {
            left: go(left)?,
            op: op.clone(),
            right: go(right)?,
        },
        Expr::UnaryOp { op, expr } => Expr::UnaryOp {
            op: *op,
            expr: go(expr)?,
        },
        Expr::IsNull(inner) => Expr::IsNull(go(inner)?),
        Expr::IsNotNull(inner) => Expr::IsNotNull(go(inner)?),
        Expr::IsTrue(inner) => Expr::IsTrue(go(inner)?),
        Expr::IsFalse(inner) => Expr::IsFalse(go(inner)?),
        Expr::InList {
            expr,
            list,
            negated,
        } => Expr::InList {
            expr: go(expr)?,
            list: list
                .iter()
                .map(|x| rewrite(x, qualifier, columns))
                .collect::<Option<_>>()?,
            negated: *negated,
        },
        Expr::Between {
            expr,
            negated,
            low,
            high,
        } => Expr::Between {
            expr: go(expr)?,
            negated: *negated,
            low: go(low)?,
            high: go(high)?,
        },
        Expr::Like {
            negated,
            any,
            expr,
            pattern,
            escape_char,
        } => Expr::Like {
            negated: *negated,
            any: *any,
            expr: go(expr)?,
            pattern: go(pattern)?,
            escape_char: escape_char.clone(),
        },
        Expr::Cast {
            kind,
            expr,
            data_type,
            format,
        } => Expr::Cast {
            kind: kind.clone(),
            expr: go(expr)?,
            data_type: data_type.clone(),
            format: format.clone(),
        },
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use sqlparser::dialect::PostgreSqlDialect;
    use sqlparser::parser::Parser;

    fn query(sql: &str) -> Query {
        *Parser::new(&PostgreSqlDialect {})
            .try_with_sql(sql)
            .unwrap()
            .parse_query()
            .unwrap()
    }

    fn expr(sql: &str) -> Expr {
        Parser::new(&PostgreSqlDialect {})
            .try_with_sql(sql)
            .unwrap()
            .parse_expr()
            .unwrap()
    }

    fn alias(name: &str) -> TableAlias {
        TableAlias {
            name: sqlparser::ast::Ident::new(name),
            columns: Vec::new(),
        }
    }

    fn pushed(sub: &str, outer: &str) -> Option<String> {
        let outer = expr(outer);
        let only_where = Outer {
            barrier: false,
            selection: Some(&outer),
            order: None,
        };
        into_subquery(&query(sub), &alias("v"), only_where).map(|(q, _)| q.to_string())
    }

    fn where_of(e: &Expr) -> Outer<'_> {
        Outer {
            barrier: false,
            selection: Some(e),
            order: None,
        }
    }

    // Proves conditions on plain columns go in, renamed to the
    // subquery's references, and nothing else does.
    #[test]
    fn pushes_only_what_commutes() {
        assert_eq!(
            pushed(
                "select t.a as x, b from t where b > 0",
                "x = 5 and v.b in (1, 2)"
            )
            .as_deref(),
            Some("SELECT t.a AS x, b FROM t WHERE (b > 0) AND ((t.a) = 5) AND ((b) IN (1, 2))")
        );
        // Only the conjunct over plain columns goes.
        assert_eq!(
            pushed("select a, a + 1 as s from t", "s = 2 and a = 1").as_deref(),
            Some("SELECT a, a + 1 AS s FROM t WHERE ((a) = 1)")
        );
        // Calls, other tables' columns, aggregates, limits: nothing.
        assert_eq!(pushed("select a from t", "random() < a"), None);
        assert_eq!(pushed("select a from t", "w.a = 1"), None);
        assert_eq!(pushed("select count(*) as a from t", "a = 1"), None);
        assert_eq!(pushed("select a from t group by a", "a = 1"), None);
        assert_eq!(pushed("select a from t limit 3", "a = 1"), None);
        assert_eq!(pushed("select distinct a from t", "a = 1"), None);
        assert_eq!(
            pushed("select a, row_number() over () from t", "a = 1"),
            None
        );
        assert_eq!(
            pushed("select a, generate_series(1, 2) from t", "a = 1"),
            None
        );
        assert_eq!(pushed("select * from t", "a = 1"), None);
        assert_eq!(
            pushed("select a from t union select b from u", "a = 1"),
            None
        );
    }

    // Proves the outer WHERE keeps exactly the conjuncts that did not go.
    #[test]
    fn outer_keeps_the_rest() {
        let outer = expr("s = 2 and a = 1 and (a > 0 or s > 0)");
        let (_, taken) = into_subquery(
            &query("select a, a + 1 as s from t"),
            &alias("v"),
            where_of(&outer),
        )
        .unwrap();
        assert_eq!(
            remaining(&outer, &taken).map(|e| e.to_string()).as_deref(),
            Some("(s = 2) AND ((a > 0 OR s > 0))")
        );
        let all = expr("a = 1");
        let (_, taken) =
            into_subquery(&query("select a from t"), &alias("v"), where_of(&all)).unwrap();
        assert_eq!(remaining(&all, &taken), None);
    }

    fn ordered(sub: &str, outer: &str) -> Option<String> {
        let q = query(outer);
        let SetExpr::Select(select) = q.body.as_ref() else {
            unreachable!()
        };
        let Some(OrderBy {
            kind: OrderByKind::Expressions(keys),
            ..
        }) = &q.order_by
        else {
            unreachable!()
        };
        let outer = Outer {
            barrier: false,
            selection: select.selection.as_ref(),
            order: Some((keys, 15, &select.projection)),
        };
        into_subquery(&query(sub), &alias("v"), outer).map(|(q, _)| q.to_string())
    }

    // Proves ORDER BY and the rows LIMIT needs go in only when every
    // WHERE conjunct did and each key is a plain column of the subquery.
    #[test]
    fn order_and_limit_go_with_the_whole_where() {
        assert_eq!(
            ordered(
                "select t.a as x, b from t",
                "select * from v where b = 1 order by x desc"
            )
            .as_deref(),
            Some("SELECT t.a AS x, b FROM t WHERE ((b) = 1) ORDER BY (t.a) DESC LIMIT 15")
        );
        assert_eq!(
            ordered(
                "select a, b from t",
                "select * from v order by v.b nulls first, a"
            )
            .as_deref(),
            Some("SELECT a, b FROM t ORDER BY (b) NULLS FIRST, (a) LIMIT 15")
        );
        // A WHERE conjunct that stays: the order does not go.
        assert_eq!(
            ordered(
                "select a, a + 1 as s from t",
                "select * from v where s = 1 order by a"
            ),
            None
        );
        // A key that is a computed column, an outer alias or a position.
        assert_eq!(
            ordered("select a + 1 as s from t", "select * from v order by s"),
            None
        );
        assert_eq!(
            ordered("select a, b from t", "select b as a from v order by a"),
            None
        );
        assert_eq!(
            ordered("select a from t", "select * from v order by 1"),
            None
        );
    }

    // Proves only conjuncts that cannot fail on a row go below a
    // security barrier.
    #[test]
    fn leakproof_is_comparisons_of_columns_and_constants() {
        for sql in [
            "a = 1",
            "a < b and (b is null or a in (1, 2))",
            "a between 1 and 3",
        ] {
            assert!(leakproof(&expr(sql)), "{sql}");
        }
        for sql in [
            "1 / a > 0",
            "f(a)",
            "a::int = 1",
            "a like 'x%'",
            "a + 1 = 2",
        ] {
            assert!(!leakproof(&expr(sql)), "{sql}");
        }
    }
}
