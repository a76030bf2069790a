//! `WITH name [(columns)] AS [[NOT] MATERIALIZED] (query), ... query`:
//! common table expressions. Each CTE is one of:
//!
//! - **Inlined**: each FROM item naming it becomes its query as a
//!   subquery in FROM, with the CTE's name (or the item's alias) and
//!   column names; a later CTE may name an earlier one; subqueries see
//!   them too. PostgreSQL (12 and later) does this with a CTE named once
//!   that is not `MATERIALIZED` and calls no volatile function, and with
//!   any `NOT MATERIALIZED` one that calls none.
//! - **Computed once** ([`Materialized`]) otherwise (named more than
//!   once, `MATERIALIZED`, or calling a volatile function: `random()`,
//!   `nextval`, any function not built in as immutable or stable): the
//!   FROM items naming it are renamed to a marker no table can have,
//!   which reads the rows the query level defining it computed once per
//!   run, before its own rows (`query::plan_level`, `subquery::
//!   run_uncorrelated`), as PostgreSQL's CTE scan reads its tuplestore.
//!   Unlike PostgreSQL's, the rows are computed whole even where the
//!   query reads only some of them.
//! - **Recursive**: in a `WITH RECURSIVE`, a CTE that names itself is
//!   returned, to be planned where it is named (`recursive.rs`); the
//!   others are taken as without RECURSIVE.
//!
//! A CTE nobody names is planned all the same, for its errors (42P10
//! for too many column names, a missing column, ...), and never run, as
//! PostgreSQL analyzes every CTE and runs none of those. In an INSERT,
//! UPDATE or DELETE every plain CTE is inlined. Data-modifying CTEs are
//! `modifying_cte.rs`'s, at the top level only (0A000 elsewhere).

use crate::error::SqlError;
use crate::names;
use crate::recursive::Cte;
use sqlparser::ast::{
    Cte as Definition, CteAsMaterialized, FromTable, Ident, ObjectName, ObjectNamePart, Query,
    SetExpr, Statement, TableAlias, TableFactor, Visit, VisitMut, Visitor, VisitorMut, With,
};
use std::ops::ControlFlow;
use std::sync::atomic::{AtomicU64, Ordering};

/// A query level's WITH, taken apart by [`inline`].
pub struct Inlined {
    /// The query without its WITH, the inlined CTEs in place.
    pub query: Query,
    /// The recursive CTEs (a `WITH RECURSIVE`'s CTEs that name
    /// themselves), each with whether anything names it.
    pub recursive: Vec<(Cte, bool)>,
    /// The CTEs computed once, in the order to compute them, and those
    /// nobody names.
    pub materialized: Vec<Materialized>,
}

/// A CTE computed once per run of its query level (see the module doc),
/// or one nobody names.
pub struct Materialized {
    /// Its name, as written.
    pub name: String,
    /// What the FROM items naming it are renamed to.
    pub marker: String,
    /// Its column list (its `alias.columns`).
    pub alias: TableAlias,
    pub query: Query,
    /// Whether anything names it (else it is planned for its errors only).
    pub named: bool,
}

/// `query` without its WITH (see [`Inlined`]).
pub fn inline(query: &Query) -> Result<Inlined, SqlError> {
    let mut out = query.clone();
    let Some(with) = out.with.take() else {
        return Ok(Inlined {
            query: out,
            recursive: Vec::new(),
            materialized: Vec::new(),
        });
    };
    let defined = definitions(with, &out, true)?;
    substitute(&mut out, &defined.inlined)?;
    Ok(Inlined {
        query: out,
        recursive: defined.recursive,
        materialized: defined.materialized,
    })
}

/// `query` with every CTE of its WITH inlined where named, if none is
/// recursive (else as it is): the text in which a correlated subquery's
/// names of the outer query are found (`subquery::correlated`, which
/// looks into derived tables, not into a WITH). Such a subquery's CTEs
/// are so never computed once.
pub fn inlined_whole(query: &Query) -> Result<Query, SqlError> {
    let mut out = query.clone();
    let Some(with) = out.with.take() else {
        return Ok(out);
    };
    let defined = definitions(with, &out, false)?;
    if !defined.recursive.is_empty() {
        return Ok(query.clone());
    }
    substitute(&mut out, &defined.inlined)?;
    Ok(out)
}

/// The row change a `WITH ... INSERT | UPDATE | DELETE | MERGE` runs, its CTEs
/// inlined where its source, FROM / USING items and subqueries name them
/// (never in place of its target, which is always a table, as
/// PostgreSQL's), and its recursive CTEs, to be in scope while it is
/// planned; `None` when `query`'s body is not a row change.
pub fn inline_change(query: &Query) -> Result<Option<(Statement, Vec<Cte>)>, SqlError> {
    let (SetExpr::Insert(change)
    | SetExpr::Update(change)
    | SetExpr::Delete(change)
    | SetExpr::Merge(change)) = query.body.as_ref()
    else {
        return Ok(None);
    };
    if matches!(change, Statement::Merge { .. }) && query.with.as_ref().is_some_and(|w| w.recursive)
    {
        return Err(SqlError::syntax(
            "WITH RECURSIVE is not supported for MERGE statement",
        ));
    }
    if query.order_by.is_some() || query.limit_clause.is_some() || query.fetch.is_some() {
        return Err(SqlError::syntax(format!("syntax error in {query}")));
    }
    let mut change = change.clone();
    let Some(with) = query.with.clone() else {
        return Ok(Some((change, Vec::new())));
    };
    let defined = definitions(with, query, false)?;
    let target = match &mut change {
        Statement::Update { table, .. } => Some(&mut table.relation),
        Statement::Merge { table, .. } => Some(table),
        Statement::Delete(delete) => match &mut delete.from {
            FromTable::WithFromKeyword(items) | FromTable::WithoutKeyword(items) => {
                items.first_mut().map(|item| &mut item.relation)
            }
        },
        _ => None,
    };
    // The target is kept out of the substitution.
    let kept = target.map(|t| std::mem::replace(t, placeholder()));
    let _ = VisitMut::visit(&mut change, &mut Inline::new(&defined.inlined));
    if let Some(kept) = kept {
        match &mut change {
            Statement::Update { table, .. } => table.relation = kept,
            Statement::Merge { table, .. } => *table = kept,
            Statement::Delete(delete) => match &mut delete.from {
                FromTable::WithFromKeyword(items) | FromTable::WithoutKeyword(items) => {
                    items[0].relation = kept;
                }
            },
            _ => {}
        }
    }
    let recursive = defined.recursive.into_iter().map(|(c, _)| c).collect();
    Ok(Some((change, recursive)))
}

/// A CTE that is not recursive, by its name: inlined where named, or
/// (`Some(marker)`) renamed to the marker of its computed rows.
type Named = (String, Definition, Option<String>);

/// A FROM item no CTE names, to stand for a change's target meanwhile.
fn placeholder() -> TableFactor {
    crate::query::table_factor(ObjectName(Vec::new()), None, None)
}

/// A WITH taken apart: its CTEs by kind.
struct Definitions {
    /// Every plain CTE, each with the earlier ones substituted in its
    /// query, for the substitution in the query's body.
    inlined: Vec<Named>,
    recursive: Vec<(Cte, bool)>,
    materialized: Vec<Materialized>,
}

/// Markers of computed CTEs: a count for the server's life, so no two
/// CTEs in scope at once share one.
static MARKERS: AtomicU64 = AtomicU64::new(0);

/// A WITH's CTEs in order, each with the earlier ones substituted in its
/// query, its recursive ones apart; `body` is the query it belongs to
/// (for how often each CTE is named). Without `computed`, no CTE is
/// computed once (a row change inlines all).
fn definitions(with: With, body: &Query, computed: bool) -> Result<Definitions, SqlError> {
    let With {
        recursive,
        cte_tables,
        ..
    } = with;
    // A recursive WITH's items may name later ones: each is taken
    // after those it names.
    let cte_tables = match recursive {
        true => crate::recursive_form::dependency_order(cte_tables)?,
        false => cte_tables,
    };
    let mut out = Definitions {
        inlined: Vec::with_capacity(cte_tables.len()),
        recursive: Vec::new(),
        materialized: Vec::new(),
    };
    for (i, cte) in cte_tables.iter().enumerate() {
        let mut cte = cte.clone();
        let clauses = crate::search_cycle::of(&cte)?;
        if matches!(
            cte.query.body.as_ref(),
            SetExpr::Insert(_) | SetExpr::Update(_) | SetExpr::Delete(_) | SetExpr::Merge(_)
        ) {
            // (At the top level, `modifying_cte.rs` plans them.)
            return Err(SqlError::new(
                "0A000",
                "WITH clause containing a data-modifying statement must be at the top level",
            ));
        }
        let name = names::ident(&cte.alias.name);
        if out.inlined.iter().any(|(n, ..)| *n == name)
            || out.recursive.iter().any(|(c, _)| c.name() == name)
        {
            return Err(SqlError::new(
                "42712",
                format!("WITH query name \"{name}\" specified more than once"),
            ));
        }
        // Where it is named: the body, and the items after it.
        let references = references(body, &name)
            + (cte_tables[i + 1..].iter())
                .map(|later| references(&*later.query, &name))
                .sum::<usize>();
        // A CTE sees the ones before it.
        substitute(&mut cte.query, &out.inlined)?;
        let found = match recursive {
            true => Cte::of(&name, &cte.alias, &cte.query, clauses.clone())?,
            false => None,
        };
        if let Some(r) = found {
            out.recursive.push((r, references > 0));
            continue;
        }
        if clauses.is_some() {
            return Err(SqlError::syntax("WITH query is not recursive"));
        }
        let marker = (computed && (references == 0 || computed_once(&cte, references)))
            .then(|| format!("$cte:{}", MARKERS.fetch_add(1, Ordering::Relaxed)));
        if let Some(marker) = &marker {
            out.materialized.push(Materialized {
                name: name.clone(),
                marker: marker.clone(),
                alias: cte.alias.clone(),
                query: cte.query.as_ref().clone(),
                named: references > 0,
            });
        }
        out.inlined.push((name, cte, marker));
    }
    Ok(out)
}

/// Whether a plain CTE named `references` times (at least once) is
/// computed once rather than inlined (PostgreSQL's rule, the module
/// doc's).
fn computed_once(cte: &Definition, references: usize) -> bool {
    let volatile = !crate::hashed_subplan::stable_calls(&*cte.query);
    volatile
        || match cte.materialized {
            Some(CteAsMaterialized::Materialized) => true,
            Some(CteAsMaterialized::NotMaterialized) => false,
            None => references > 1,
        }
}

/// How many FROM items in `node` name the CTE `name` (not counting those
/// a nested WITH's own CTE of that name hides).
fn references<V: Visit>(node: &V, name: &str) -> usize {
    struct Count<'a> {
        name: &'a str,
        hidden: usize,
        found: usize,
    }
    impl Visitor for Count<'_> {
        type Break = ();
        fn pre_visit_query(&mut self, query: &Query) -> ControlFlow<()> {
            if self.hidden == 0 {
                self.found += (crate::recursive_form::seeing_outer(query, self.name))
                    .map(|cte| references(&*cte.query, self.name))
                    .sum::<usize>();
            }
            self.hidden += usize::from(crate::recursive_form::shadows(query, self.name));
            ControlFlow::Continue(())
        }
        fn post_visit_query(&mut self, query: &Query) -> ControlFlow<()> {
            self.hidden -= usize::from(crate::recursive_form::shadows(query, self.name));
            ControlFlow::Continue(())
        }
        fn pre_visit_table_factor(&mut self, factor: &TableFactor) -> ControlFlow<()> {
            if self.hidden == 0 && crate::recursive_form::is_reference(factor, self.name) {
                self.found += 1;
            }
            ControlFlow::Continue(())
        }
    }
    let mut count = Count {
        name,
        hidden: 0,
        found: 0,
    };
    let _ = node.visit(&mut count);
    count.found
}

/// Replaces the FROM items of `query` (and its subqueries) that name one
/// of `ctes` by its query (after visiting them: a CTE's query naming a
/// table of its own name means the table, and is not visited again).
fn substitute(query: &mut Query, ctes: &[Named]) -> Result<(), SqlError> {
    let _ = VisitMut::visit(query, &mut Inline::new(ctes));
    Ok(())
}

/// The visitor of [`substitute`]: the CTEs, and for each query around
/// the visit the names of theirs its own WITH defines again (inside it
/// such a name is that inner CTE, inlined when that query is planned).
struct Inline<'a> {
    ctes: &'a [Named],
    hidden: Vec<Vec<String>>,
}
impl<'a> Inline<'a> {
    fn new(ctes: &'a [Named]) -> Inline<'a> {
        Inline {
            ctes,
            hidden: Vec::new(),
        }
    }
}
impl VisitorMut for Inline<'_> {
    type Break = ();
    fn pre_visit_query(&mut self, query: &mut Query) -> ControlFlow<()> {
        let shadowed: Vec<String> = (self.ctes.iter())
            .filter(|(n, ..)| crate::recursive_form::shadows(query, n))
            .map(|(n, ..)| n.clone())
            .collect();
        // The items of its WITH up to the one defining a name again still
        // see the outer CTE (`recursive_form::seeing_outer`): it is put
        // there now, before the name is hidden for the rest.
        let outer_hidden: Vec<String> = self.hidden.iter().flatten().cloned().collect();
        for name in &shadowed {
            let seeing = crate::recursive_form::seeing_outer(query, name).count();
            let Some(with) = query.with.as_mut() else {
                continue;
            };
            let only: Vec<Named> = (self.ctes.iter())
                .filter(|(n, ..)| n == name && !outer_hidden.contains(n))
                .cloned()
                .collect();
            for cte in &mut with.cte_tables[..seeing] {
                let _ = VisitMut::visit(cte.query.as_mut(), &mut Inline::new(&only));
            }
        }
        self.hidden.push(shadowed);
        ControlFlow::Continue(())
    }
    fn post_visit_query(&mut self, _query: &mut Query) -> ControlFlow<()> {
        self.hidden.pop();
        ControlFlow::Continue(())
    }
    fn post_visit_table_factor(&mut self, factor: &mut TableFactor) -> ControlFlow<()> {
        let TableFactor::Table {
            name,
            alias,
            args: None,
            sample,
            ..
        } = factor
        else {
            return ControlFlow::Continue(());
        };
        let [ObjectNamePart::Identifier(id)] = name.0.as_slice() else {
            return ControlFlow::Continue(());
        };
        let (written, wanted) = (id.clone(), names::ident(id));
        let Some((_, cte, marker)) = self.ctes.iter().find(|(n, ..)| *n == wanted) else {
            return ControlFlow::Continue(());
        };
        if self.hidden.iter().flatten().any(|n| *n == wanted) {
            return ControlFlow::Continue(());
        }
        // A WITH query sampled: a name the FROM clause refuses
        // (`tablesample::not_a_table`).
        if sample.is_some() {
            *name = ObjectName(vec![ObjectNamePart::Identifier(Ident::with_quote(
                '"',
                crate::tablesample::SAMPLED_CTE,
            ))]);
            return ControlFlow::Continue(());
        }
        if let Some(marker) = marker {
            // Computed once: the item reads its rows, under its own name.
            if alias.is_none() {
                *alias = Some(TableAlias {
                    name: written,
                    columns: Vec::new(),
                });
            }
            *name = ObjectName(vec![ObjectNamePart::Identifier(Ident::with_quote(
                '"',
                marker.clone(),
            ))]);
            return ControlFlow::Continue(());
        }
        let alias = match alias.take() {
            Some(a) if a.columns.is_empty() => TableAlias {
                name: a.name,
                columns: cte.alias.columns.clone(),
            },
            Some(a) => a,
            None => cte.alias.clone(),
        };
        *factor = TableFactor::Derived {
            lateral: false,
            subquery: cte.query.clone(),
            alias: Some(alias),
        };
        ControlFlow::Continue(())
    }
}
