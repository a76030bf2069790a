//! What a recursive query's `SEARCH` / `CYCLE` clauses mean
//! (`search_cycle.rs` reads them): PostgreSQL's rewrite of the query
//! (its `rewriteSearchAndCycle`), done on the terms before they are
//! planned (`recursive::plan`). For the item `name (c1, ..., cn) AS
//! (base UNION [ALL] step)`:
//!
//! ```text
//! base' = SELECT c1, ..., cn, <initial values>
//!           FROM (base) "*TLOCRN*" (c1, ..., cn)
//! step' = SELECT c1, ..., cn, <next values>
//!           FROM (SELECT <step's list>, q.seq, q.mark, q.path <step's FROM ...>)
//!                "*TROCRN*" (c1, ..., cn, seq, mark, path)
//!          [WHERE mark <> <mark value>]
//! ```
//!
//! `q` being the step's FROM item that names the query (its work table,
//! which has the added columns). The added columns, in this order:
//!
//! | clause                         | base'                    | step'                                   |
//! |--------------------------------|--------------------------|-----------------------------------------|
//! | `SEARCH DEPTH FIRST BY k SET seq`   | `ARRAY[ROW(k)]`     | `seq \|\| ARRAY[ROW(k)]`                |
//! | `SEARCH BREADTH FIRST BY k SET seq` | `ROW(0::int8, k)`   | `ROW(<seq's depth> + 1, k)`             |
//! | `CYCLE k SET mark ... USING path`   | mark's default, `ARRAY[ROW(k)]` | `CASE WHEN ROW(k) = ANY (path) THEN value ELSE default END`, `path \|\| ARRAY[ROW(k)]` |
//!
//! so ordering by `seq` is depth- or breadth-first order, and a row whose
//! cycle columns were seen on its path is marked and not followed.
//!
//! **Checks**, PostgreSQL's: the terms must each be a SELECT (0A000 for
//! the left, 42601 for the right), the step must name the query in its
//! own FROM (0A000 `... must be at the top level of its right-hand
//! SELECT`); a column searched or cycled must be the query's (42601),
//! named once (42701); the added columns' names must be new and apart
//! (42601); the mark's two values must have a common type (42804
//! `CYCLE types boolean and integer cannot be matched`).

use crate::error::SqlError;
use crate::names;
use crate::search_cycle::{Clauses, Cycle, quoted};
use crate::set_types::{self, Input};
use folio_row::SqlType;
use sqlparser::ast::{
    Expr, ObjectNamePart, Query, Select, SelectItem, SetExpr, TableFactor, TableWithJoins,
};

/// The names of the derived tables of the rewrite (PostgreSQL's).
const BASE: &str = "*TLOCRN*";
const STEP: &str = "*TROCRN*";

/// Checks the shape of the terms of a recursive query with the clauses
/// (see the module's "Checks").
pub fn check_terms(left: &SetExpr, right: &SetExpr) -> Result<(), SqlError> {
    if is_set_operation(left) {
        return Err(SqlError::new(
            "0A000",
            "with a SEARCH or CYCLE clause, the left side of the UNION must be a SELECT",
        ));
    }
    if is_set_operation(right) {
        return Err(SqlError::syntax(
            "with a SEARCH or CYCLE clause, the right side of the UNION must be a SELECT",
        ));
    }
    Ok(())
}

/// Whether a term is a set operation (in parentheses too, as PostgreSQL
/// flattens a parenthesized one without ORDER BY or LIMIT).
fn is_set_operation(term: &SetExpr) -> bool {
    match term {
        SetExpr::SetOperation { .. } => true,
        SetExpr::Query(q) => {
            q.with.is_none()
                && q.order_by.is_none()
                && q.limit_clause.is_none()
                && q.fetch.is_none()
                && is_set_operation(&q.body)
        }
        _ => false,
    }
}

/// Checks the clauses against the query's columns `columns` (see the
/// module's "Checks").
pub fn check(clauses: &Clauses, columns: &[String]) -> Result<(), SqlError> {
    let listed = |what: &str, names: &[String]| -> Result<(), SqlError> {
        for (i, n) in names.iter().enumerate() {
            if !columns.contains(n) {
                return Err(SqlError::syntax(format!(
                    "{what} column \"{n}\" not in WITH query column list"
                )));
            }
            if names[..i].contains(n) {
                return Err(SqlError::new(
                    "42701",
                    format!("{what} column \"{n}\" specified more than once"),
                ));
            }
        }
        Ok(())
    };
    let taken = |what: &str, n: &str| -> Result<(), SqlError> {
        match columns.iter().any(|c| c == n) {
            true => Err(SqlError::syntax(format!(
                "{what} column name \"{n}\" already used in WITH query column list"
            ))),
            false => Ok(()),
        }
    };
    if let Some(s) = &clauses.search {
        listed("search", &s.columns)?;
        taken("search sequence", &s.seq)?;
    }
    if let Some(c) = &clauses.cycle {
        listed("cycle", &c.columns)?;
        taken("cycle mark", &c.mark)?;
        taken("cycle path", &c.path)?;
        if c.mark == c.path {
            return Err(SqlError::syntax(
                "cycle mark column name and cycle path column name are the same",
            ));
        }
    }
    if let (Some(s), Some(c)) = (&clauses.search, &clauses.cycle) {
        for (what, n) in [("cycle mark", &c.mark), ("cycle path", &c.path)] {
            if s.seq == *n {
                return Err(SqlError::syntax(format!(
                    "search sequence column name and {what} column name are the same"
                )));
            }
        }
    }
    Ok(())
}

/// `SELECT value, default`: planned, it gives the types of a CYCLE
/// clause's mark values (for [`mark_type`]).
pub fn mark_values(cycle: &Cycle) -> Result<Query, SqlError> {
    crate::parse::query(&format!("SELECT {}, {}", cycle.value, cycle.default))
}

/// The mark's type: the common type of its two values, of types `types`
/// (42804 when they have none).
pub fn mark_type(cycle: &Cycle, types: &[SqlType]) -> Result<SqlType, SqlError> {
    let value = crate::parse::expression(&cycle.value)?;
    let default = crate::parse::expression(&cycle.default)?;
    let inputs = [Input::of(&value, types[0]), Input::of(&default, types[1])];
    Ok(set_types::common("CYCLE", &inputs)?.ty)
}

/// The terms `base` and `step` of the recursive query `name`, of columns
/// `columns`, rewritten for `clauses` (see the module doc); `mark` is the
/// cycle mark's type, when there is a CYCLE clause.
pub fn rewrite(
    clauses: &Clauses,
    name: &str,
    columns: &[String],
    mark: Option<SqlType>,
    base: &Query,
    step: &Query,
) -> Result<(Query, Query), SqlError> {
    let cols = |table: &str| -> Vec<String> {
        columns
            .iter()
            .map(|c| format!("{}.{}", quoted(table), quoted(c)))
            .collect()
    };
    let row = |table: &str, keys: &[String]| -> String {
        let keys: Vec<String> = (keys.iter())
            .map(|k| format!("{}.{}", quoted(table), quoted(k)))
            .collect();
        format!("ROW({})", keys.join(", "))
    };
    let cast = |value: &str| -> String {
        let ty = mark.expect("a CYCLE clause has its mark's type");
        format!("CAST({value} AS {})", ty.name())
    };
    let mut added: Vec<String> = Vec::new();
    // base': the initial values.
    let mut first = cols(BASE);
    if let Some(s) = &clauses.search {
        first.push(match s.breadth {
            true => {
                let keys = row(BASE, &s.columns);
                format!("ROW(CAST(0 AS bigint), {}", &keys["ROW(".len()..])
            }
            false => format!("ARRAY[{}]", row(BASE, &s.columns)),
        });
        added.push(s.seq.clone());
    }
    if let Some(c) = &clauses.cycle {
        first.push(cast(&c.default));
        first.push(format!("ARRAY[{}]", row(BASE, &c.columns)));
        added.extend([c.mark.clone(), c.path.clone()]);
    }
    let aliases = |extra: &[String]| -> String {
        let all: Vec<String> = columns.iter().chain(extra).map(|c| quoted(c)).collect();
        all.join(", ")
    };
    let named = |items: Vec<String>, names: &[String]| -> String {
        let items: Vec<String> = (items.iter().zip(columns.iter().chain(names)))
            .map(|(item, n)| format!("{item} AS {}", quoted(n)))
            .collect();
        items.join(", ")
    };
    let mut base_out = crate::parse::query(&format!(
        "SELECT {} FROM (SELECT 1) AS {}({})",
        named(first, &added),
        quoted(BASE),
        aliases(&[])
    ))?;
    *derived(&mut base_out) = base.clone();
    // step': the next values, over the step with the work table's.
    let column = |n: &str| format!("{}.{}", quoted(STEP), quoted(n));
    let mut next = cols(STEP);
    if let Some(s) = &clauses.search {
        next.push(match s.breadth {
            true => {
                let keys = row(STEP, &s.columns);
                // The depth, the record's first field, read from its
                // text `(depth,...)` (folio selects no field of a record
                // that is not a row constructor; the depth is a bare
                // integer, never quoted).
                format!(
                    "ROW(CAST(substr(split_part(CAST({} AS text), ',', 1), 2) AS bigint) + 1, {}",
                    column(&s.seq),
                    &keys["ROW(".len()..]
                )
            }
            false => format!("{} || ARRAY[{}]", column(&s.seq), row(STEP, &s.columns)),
        });
    }
    let mut filter = String::new();
    if let Some(c) = &clauses.cycle {
        let keys = row(STEP, &c.columns);
        next.push(format!(
            "CASE WHEN {keys} = ANY ({}) THEN {} ELSE {} END",
            column(&c.path),
            cast(&c.value),
            cast(&c.default)
        ));
        next.push(format!("{} || ARRAY[{keys}]", column(&c.path)));
        filter = format!(" WHERE {} <> {}", column(&c.mark), cast(&c.value));
    }
    let mut step_out = crate::parse::query(&format!(
        "SELECT {} FROM (SELECT 1) AS {}({}){filter}",
        named(next, &added),
        quoted(STEP),
        aliases(&added)
    ))?;
    let mut inner = step.clone();
    let select = top_select(&mut inner).ok_or_else(|| not_at_top(name))?;
    let reference = reference(select, name).ok_or_else(|| not_at_top(name))?;
    for n in &added {
        select
            .projection
            .push(SelectItem::UnnamedExpr(Expr::CompoundIdentifier(vec![
                reference.clone(),
                sqlparser::ast::Ident::with_quote('"', n.clone()),
            ])));
    }
    *derived(&mut step_out) = inner;
    Ok((base_out, step_out))
}

/// 0A000: the step does not name the query in its own FROM.
fn not_at_top(name: &str) -> SqlError {
    SqlError::new(
        "0A000",
        format!(
            "with a SEARCH or CYCLE clause, the recursive reference to WITH query \"{name}\" must be at the top level of its right-hand SELECT"
        ),
    )
}

/// The subquery of a template's one FROM item, `(SELECT 1) AS ...`.
fn derived(template: &mut Query) -> &mut Query {
    let SetExpr::Select(select) = template.body.as_mut() else {
        unreachable!("the templates are SELECTs");
    };
    match &mut select.from[0].relation {
        TableFactor::Derived { subquery, .. } => subquery.as_mut(),
        _ => unreachable!("the templates read a subquery"),
    }
}

/// The step's SELECT (in parentheses too, without a WITH, ORDER BY or
/// LIMIT of its own).
fn top_select(query: &mut Query) -> Option<&mut Select> {
    match query.body.as_mut() {
        SetExpr::Select(select) => Some(select),
        SetExpr::Query(q)
            if q.with.is_none()
                && q.order_by.is_none()
                && q.limit_clause.is_none()
                && q.fetch.is_none() =>
        {
            top_select(q)
        }
        _ => None,
    }
}

/// The name (alias or the query's) of the FROM item of `select`, joins
/// included, that names the query `name`.
fn reference(select: &Select, name: &str) -> Option<sqlparser::ast::Ident> {
    fn within(from: &TableWithJoins, name: &str) -> Option<sqlparser::ast::Ident> {
        std::iter::once(&from.relation)
            .chain(from.joins.iter().map(|j| &j.relation))
            .find_map(|factor| match factor {
                TableFactor::Table {
                    name: table, alias, ..
                } if crate::recursive_form::is_reference(factor, name) => Some(match alias {
                    Some(a) => a.name.clone(),
                    None => match table.0.as_slice() {
                        [ObjectNamePart::Identifier(id)] => id.clone(),
                        _ => return None,
                    },
                }),
                TableFactor::NestedJoin {
                    table_with_joins, ..
                } => within(table_with_joins, name),
                _ => None,
            })
    }
    let found = select.from.iter().find_map(|from| within(from, name))?;
    // (Written back as it was read, so it names the item again.)
    Some(match found.quote_style {
        Some(_) => found,
        None => sqlparser::ast::Ident::with_quote('"', names::ident(&found)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search_cycle::{Cycle, Search};

    fn clauses() -> Clauses {
        Clauses {
            search: Some(Search {
                breadth: false,
                columns: vec!["f".into(), "t".into()],
                seq: "seq".into(),
            }),
            cycle: Some(Cycle {
                columns: vec!["f".into()],
                mark: "is_cycle".into(),
                value: "true".into(),
                default: "false".into(),
                path: "path".into(),
            }),
        }
    }

    // Proves the checks give PostgreSQL's errors, in its order.
    #[test]
    fn clauses_are_checked_against_the_columns() {
        let columns = ["f".to_string(), "t".to_string(), "label".to_string()];
        assert!(check(&clauses(), &columns).is_ok());
        let mut c = clauses();
        c.search.as_mut().unwrap().columns.push("f".into());
        assert_eq!(check(&c, &columns).unwrap_err().code, "42701");
        let mut c = clauses();
        c.cycle.as_mut().unwrap().columns = vec!["foo".into()];
        let e = check(&c, &columns).unwrap_err();
        assert_eq!(
            e.message,
            "cycle column \"foo\" not in WITH query column list"
        );
        let mut c = clauses();
        c.cycle.as_mut().unwrap().path = "seq".into();
        let e = check(&c, &columns).unwrap_err();
        assert_eq!(
            e.message,
            "search sequence column name and cycle path column name are the same"
        );
    }

    // Proves the rewritten terms add the columns in PostgreSQL's order,
    // the step reading the work table's through the item naming it.
    #[test]
    fn terms_gain_the_added_columns() {
        let base = crate::parse::query("SELECT * FROM graph").unwrap();
        let step = crate::parse::query("SELECT g.* FROM graph g, sg AS w WHERE g.f = w.t").unwrap();
        let columns = ["f".to_string(), "t".to_string(), "label".to_string()];
        let (b, s) = rewrite(
            &clauses(),
            "sg",
            &columns,
            Some(SqlType::Bool),
            &base,
            &step,
        )
        .unwrap();
        let b = b.to_string();
        assert!(
            b.contains("ARRAY[ROW(\"*TLOCRN*\".\"f\", \"*TLOCRN*\".\"t\")] AS \"seq\""),
            "{b}"
        );
        assert!(b.contains("CAST(false AS BOOLEAN) AS \"is_cycle\""), "{b}");
        let s = s.to_string();
        assert!(
            s.contains("SELECT g.*, \"w\".\"seq\", \"w\".\"is_cycle\", \"w\".\"path\" FROM graph"),
            "{s}"
        );
        assert!(
            s.contains("WHERE \"*TROCRN*\".\"is_cycle\" <> CAST(true AS BOOLEAN)"),
            "{s}"
        );
        let no_reference = crate::parse::query("SELECT 1").unwrap();
        let e = rewrite(
            &clauses(),
            "sg",
            &columns,
            Some(SqlType::Bool),
            &base,
            &no_reference,
        )
        .unwrap_err();
        assert_eq!(e.code, "0A000");
    }
}
