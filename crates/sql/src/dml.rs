//! `INSERT ... VALUES | SELECT`, `UPDATE [... FROM]` and `DELETE [...
//! USING]`, with `RETURNING`, planned once ([`plan_insert`],
//! [`plan_update`], [`plan_delete`]) and run per execution
//! ([`Change::run`]). Rows to change are found by the table's plan
//! (`plan.rs`), or by its join with the FROM / USING items
//! (`change_rows.rs`); a row another transaction changed meanwhile is
//! followed to its newest version, which is changed if it still satisfies
//! the WHERE clause (READ COMMITTED's re-check, as PostgreSQL's
//! EvalPlanQual); REPEATABLE READ gets 40001 from the heap.

use crate::access;
use crate::assignment;
use crate::change_rows::{self, Rows, Selected, Target};
use crate::conflict::{self, Conflict};
use crate::constraints::{Constraints, Written};
use crate::context::Ctx;
use crate::error::SqlError;
use crate::from::{Scope, ScopeTable};
use crate::names;
use crate::output::{Column, Output};
use crate::overriding::Overriding;
use crate::partitions::column_map::{self, ColumnMap};
use crate::partitions::run_time::AtStart;
use crate::privileges;
use crate::query::{self, Planned};
use crate::scalar::{self, Env, Scalar};
use crate::scan;
use crate::subquery::{self, Subplan};
use crate::triggers::{self, Event, Triggers};
use crate::types;
use folio_catalog::Relation;
use folio_db::{Command, Transaction};
use folio_row::{SqlType, Value};
use sqlparser::ast::{
    Assignment, AssignmentTarget, Delete, Expr, FromTable, Insert, OnInsert, Query, SelectItem,
    SetExpr, TableObject, TableWithJoins,
};
use std::cell::RefCell;
use std::sync::Arc;

/// A planned row change.
pub enum Change {
    Insert {
        relation: Arc<Relation>,
        /// Target column of each value; without a column list, the
        /// values fill the first columns (the rest take their defaults).
        targets: Vec<usize>,
        /// The targets' subscripts (`insert_targets.rs`).
        subscripts: crate::insert_targets::Subscripts,
        listed: bool,
        /// The positions in a query's rows whose values `OVERRIDING USER
        /// VALUE` ignores (identity columns': they take their defaults).
        ignored: Vec<usize>,
        source: Source,
        returning: Returning,
        /// RETURNING names a system column: its rows get them after the
        /// table's own (`tableoid` alone, `system_columns::of_inserted`).
        system: bool,
        /// `ON CONFLICT ...`.
        on_conflict: Option<Conflict>,
        constraints: Constraints,
        /// Subqueries in RETURNING and in DO UPDATE's SET and WHERE
        /// (numbered in that order): the uncorrelated run first, the
        /// correlated per row ([`PerRow`]).
        subplans: Vec<Subplan>,
    },
    /// SET's values, WHERE and RETURNING are bound over the row `rows`
    /// says the expressions see.
    Update {
        relation: Arc<Relation>,
        constraints: Constraints,
        assignments: Vec<(usize, Scalar)>,
        rows: Rows,
        returning: Returning,
        /// Subqueries in SET, WHERE and RETURNING: the uncorrelated run
        /// first, the correlated per row ([`PerRow`]).
        subplans: Vec<Subplan>,
        /// WHERE's conjuncts that call PL/pgSQL functions or hold a
        /// correlated subquery, tested on each row found, before it is
        /// changed ([`late_where`]).
        late: Vec<Scalar>,
    },
    Delete {
        relation: Arc<Relation>,
        constraints: Constraints,
        rows: Rows,
        returning: Returning,
        subplans: Vec<Subplan>,
        late: Vec<Scalar>,
    },
    /// `MERGE` (`merge.rs`).
    Merge(Box<crate::merge::Merge>),
    /// An UPDATE or DELETE of a partitioned table: the same change of
    /// each partition its WHERE may reach (README "Partitioned tables").
    Parts(Box<Parts>),
}

/// [`Change::Parts`]: the partitioned table, its constraints (its
/// defaults' sequences), each partition's change and the tag's verb.
pub struct Parts {
    relation: Arc<Relation>,
    constraints: Constraints,
    changes: Vec<Change>,
    verb: &'static str,
    /// An UPDATE's SET columns (the partitioned table's `UPDATE OF`
    /// statement triggers fire for them, even when no part runs).
    set: Vec<usize>,
    /// The partitions an execution's parameters leave, picked when it
    /// starts (README "Partitioned tables", run-time pruning); `None`:
    /// every change runs.
    at_start: Option<AtStart>,
}

/// How a change runs ([`Change::run_in`]).
#[derive(Clone, Copy)]
enum Whole<'t> {
    /// As a statement of its own.
    Alone,
    /// As a partition's part of a change of its partitioned table: the
    /// partition's statement triggers do not fire, the partitioned
    /// table's (these, if any) fire once around all the parts, and what
    /// their BEFORE ones wrote is read apart from
    /// ([`triggers::one_command`]), as PostgreSQL's.
    /// The part's row triggers are kept in the list, their AFTER ROW
    /// ones run once every part is done, in the order of the rows.
    /// The command, when several parts run, is the frame every part
    /// writes in and reads as of ([`Whole::command`]).
    Part(
        Option<&'t Triggers>,
        &'t RefCell<Vec<Triggers>>,
        Option<Command>,
    ),
}

impl<'t> Whole<'t> {
    fn is_part(self) -> bool {
        matches!(self, Whole::Part(..))
    }

    /// The partitioned table's statement triggers, for a part.
    fn parent(self) -> Option<&'t Triggers> {
        match self {
            Whole::Alone => None,
            Whole::Part(parent, ..) => parent,
        }
    }

    /// The statement's command a part reads as of: no part sees what an
    /// earlier part wrote (its scan, its subqueries), as PostgreSQL's parts
    /// all read with the statement's one command id. `None`: alone, or the
    /// only part, whose reads come before its writes anyway.
    fn command(self) -> Option<Command> {
        match self {
            Whole::Alone => None,
            Whole::Part(.., command) => command,
        }
    }

    /// The statement ends for a change's row `triggers`: alone, its
    /// AFTER triggers run; a part's wait in its partitioned table's list.
    fn end(
        self,
        cx: &Ctx<'_>,
        txn: &mut Transaction,
        triggers: Option<Triggers>,
    ) -> Result<(), SqlError> {
        match (self, triggers) {
            (_, None) => Ok(()),
            (Whole::Alone, Some(triggers)) => triggers.end_statement(cx, txn),
            (Whole::Part(_, kept, _), Some(triggers)) => {
                kept.borrow_mut().push(triggers);
                Ok(())
            }
        }
    }
}

impl Parts {
    /// The partitions' changes the execution's parameters leave.
    fn running(&self, env: &Env<'_>) -> Vec<&Change> {
        match &self.at_start {
            None => self.changes.iter().collect(),
            Some(at_start) => (at_start.branches(env).into_iter())
                .map(|n| &self.changes[n])
                .collect(),
        }
    }

    /// Runs the changes `run`, as parts of `whole`: the rows counted and
    /// returned.
    fn run_parts(
        cx: &Ctx<'_>,
        txn: &mut Transaction,
        env: &Env<'_>,
        run: &[&Change],
        whole: Whole<'_>,
    ) -> Result<(u64, Vec<Vec<Value>>), SqlError> {
        let mut count = 0u64;
        let mut rows = Vec::new();
        for change in run {
            match change.run_in(cx, txn, env, whole)? {
                Output::Rows {
                    rows: more, tag, ..
                } => {
                    count += tag_count(&tag);
                    rows.extend(more);
                }
                Output::Command { tag } => count += tag_count(&tag),
                _ => {}
            }
        }
        Ok((count, rows))
    }
}

/// A partitioned table, the FROM items naming its partitions and the
/// pruning left for an execution's start.
type PartitionTargets = (Arc<Relation>, Vec<TableWithJoins>, Option<AtStart>);

/// The partitions an UPDATE or DELETE of `table` changes, if it is a
/// partitioned table: the FROM item naming each (under the table's alias
/// or name), those the WHERE's key conditions leave.
fn partition_targets(
    cx: &Ctx<'_>,
    txn: &Transaction,
    table: &TableWithJoins,
    selection: Option<&Expr>,
) -> Result<Option<PartitionTargets>, SqlError> {
    let sqlparser::ast::TableFactor::Table { name, alias, .. } = &table.relation else {
        return Ok(None);
    };
    let Ok(text) = names::relation(name) else {
        return Ok(None);
    };
    let Ok(relation) = access::relation(cx, txn, &text) else {
        return Ok(None);
    };
    let Some(tree) = crate::partitions::Tree::of(cx, txn, &relation.def)? else {
        return Ok(None);
    };
    let qualifier = match alias {
        Some(a) => names::ident(&a.name),
        None => folio_catalog::unqualified(&text).to_string(),
    };
    let conjuncts = selection
        .map(crate::pushdown::conjuncts)
        .unwrap_or_default();
    let conditions = tree.conditions(&conjuncts, &qualifier, &Env::at(cx.now()));
    let keep = tree.prune(&conditions);
    let at_start = AtStart::of(&tree, conditions, &keep);
    let mut out = Vec::new();
    for at in keep {
        let mut item = table.clone();
        if let sqlparser::ast::TableFactor::Table { name, alias, .. } = &mut item.relation {
            *name = sqlparser::ast::ObjectName(
                (tree.parts[at].name.split('.'))
                    .map(|p| {
                        sqlparser::ast::ObjectNamePart::Identifier(
                            sqlparser::ast::Ident::with_quote('"', p),
                        )
                    })
                    .collect(),
            );
            *alias = Some(sqlparser::ast::TableAlias {
                name: sqlparser::ast::Ident::with_quote('"', &qualifier),
                columns: Vec::new(),
            });
        }
        out.push(item);
    }
    Ok(Some((relation, out, at_start)))
}

/// [`part_targets`]' answer: the targets and the parts' RETURNING list.
type PartTargets = (PartitionTargets, Option<Vec<SelectItem>>);

/// The tables an UPDATE or DELETE of `table` changes one by one: a
/// partitioned table's partitions ([`partition_targets`]) or an
/// inheritance parent and its descendants (`inheritance/tree.rs`), and
/// the RETURNING list each part uses (a parent's `*` its columns).
fn part_targets(
    cx: &Ctx<'_>,
    txn: &Transaction,
    table: &TableWithJoins,
    selection: Option<&Expr>,
    returning_items: Option<&[SelectItem]>,
    from: &[TableWithJoins],
) -> Result<Option<PartTargets>, SqlError> {
    if let Some(targets) = partition_targets(cx, txn, table, selection)? {
        // `*` is the partitioned table's columns, by name, when a
        // partition's are in another order (`column_map.rs`).
        let tree = crate::partitions::Tree::of(cx, txn, &targets.0.def)?;
        let returning = match tree.is_some_and(|t| t.parts.iter().any(|p| p.map.is_some())) {
            true => {
                crate::inheritance::tree::returning_columns(&targets.0.def, returning_items, from)
            }
            false => returning_items.map(<[SelectItem]>::to_vec),
        };
        return Ok(Some((targets, returning)));
    }
    let Some((relation, items)) = crate::inheritance::tree::targets(cx, txn, table)? else {
        return Ok(None);
    };
    let returning =
        crate::inheritance::tree::returning_columns(&relation.def, returning_items, from);
    Ok(Some(((relation, items, None), returning)))
}

/// The row-level security checks of an INSERT (`row_security.rs`), as
/// PostgreSQL's: the new rows meet the INSERT policies' WITH CHECK and,
/// when the statement reads the table (RETURNING, ON CONFLICT DO
/// UPDATE), its SELECT policies' USING; ON CONFLICT DO UPDATE's existing
/// row meets the UPDATE and SELECT policies' USING, and the row it makes
/// the UPDATE policies' WITH CHECK and the SELECT ones' USING.
struct InsertPolicies {
    inserted: Vec<(String, Option<String>, Expr)>,
    existing: Vec<(String, Option<String>, Expr)>,
    updated: Vec<(String, Option<String>, Expr)>,
}

impl InsertPolicies {
    fn of(
        cx: &Ctx<'_>,
        relation: &Relation,
        name: &str,
        insert: &Insert,
    ) -> Result<InsertPolicies, SqlError> {
        use crate::row_security::{Command, checks, using_checks};
        let oid = relation.def.oid;
        let do_update = matches!(
            &insert.on,
            Some(OnInsert::OnConflict(sqlparser::ast::OnConflict {
                action: sqlparser::ast::OnConflictAction::DoUpdate(_),
                ..
            }))
        );
        let mut inserted = checks(cx, oid, name, Command::Insert)?;
        let select = match insert.returning.is_some() || do_update {
            true => using_checks(cx, oid, name, Command::Select)?,
            false => Vec::new(),
        };
        inserted.extend(select.iter().cloned());
        let (mut existing, mut updated) = (Vec::new(), Vec::new());
        if do_update {
            existing = using_checks(cx, oid, name, Command::Update)?;
            existing.extend(select.iter().cloned());
            updated = checks(cx, oid, name, Command::Update)?;
            updated.extend(select);
        }
        Ok(InsertPolicies {
            inserted,
            existing,
            updated,
        })
    }

    /// Their conditions, for their subqueries to be taken out.
    fn exprs(&mut self) -> impl Iterator<Item = &mut Expr> {
        (self.inserted.iter_mut())
            .chain(self.existing.iter_mut())
            .chain(self.updated.iter_mut())
            .map(|(_, _, e)| e)
    }
}

/// The rows an INSERT inserts.
pub enum Source {
    Values(Vec<Vec<Scalar>>),
    Query(Box<Planned>),
}

/// A RETURNING list bound over the row the change's expressions see, and
/// its result columns.
/// RETURNING's expressions, its columns and their types.
pub(crate) type Returning = Option<(Vec<Scalar>, Vec<Column>, Vec<SqlType>)>;

/// The rows an `INSERT` without `ON CONFLICT` hands to the heap at once.
const INSERT_BATCH_ROWS: usize = 1000;

/// Plans `INSERT INTO name [(columns)] VALUES (...), ... | query |
/// DEFAULT VALUES [RETURNING ...]` (`DEFAULT` in VALUES is the column's
/// default expression, bound in its place).
pub fn plan_insert(cx: &Ctx<'_>, txn: &Transaction, insert: &Insert) -> Result<Change, SqlError> {
    let TableObject::TableName(table) = &insert.table else {
        return Err(SqlError::unsupported("INSERT into a table function"));
    };
    if insert.or.is_some() {
        return Err(SqlError::unsupported("INSERT OR ..."));
    }
    let name = names::relation(table)?;
    let relation = access::target(cx, txn, &name)?;
    // INSERT on the columns given (column privileges may grant it);
    // RETURNING's SELECT on the table (ON CONFLICT DO UPDATE's needs:
    // `conflict.rs`).
    let inserted = privileges::note_columns(cx, &relation.def, &name, "table", privileges::INSERT);
    let targets = crate::insert_targets::Targets::of(insert, &relation, &name)?;
    targets.columns.iter().for_each(|&c| inserted.record(c));
    if insert.returning.is_some() {
        privileges::note(cx, relation.def.oid, &name, "table", privileges::SELECT);
    }
    plan_insert_into(cx, txn, insert, &name, relation)
}

/// [`plan_insert`] into `relation` (named `name`), as found: also a
/// materialized view's, which a refresh fills (`matviews.rs`).
pub fn plan_insert_into(
    cx: &Ctx<'_>,
    txn: &Transaction,
    insert: &Insert,
    name: &str,
    relation: Arc<Relation>,
) -> Result<Change, SqlError> {
    let listed = !insert.columns.is_empty();
    let crate::insert_targets::Targets {
        columns: targets,
        subscripts,
    } = crate::insert_targets::Targets::of(insert, &relation, name)?;
    let constraints = Constraints::bind(cx, txn, &relation)?;
    let overriding = crate::overriding::of(insert)?;
    let none: &[(String, SqlType)] = &[];
    // A VALUES row with set-returning calls is a SELECT of its values
    // (`project_set.rs`), and so is one row with a subquery (and no
    // DEFAULT), whose subqueries then run as a select list's do.
    let selected = (insert.source.as_deref())
        .map(crate::project_set::values_as_select)
        .transpose()?
        .flatten()
        .or_else(|| insert.source.as_deref().and_then(sublink_row_as_select));
    // (A VALUES list's widths first, as PostgreSQL's transformInsertStmt:
    // before any value's type.)
    if let Some(SetExpr::Values(values)) =
        (selected.as_ref().or(insert.source.as_deref())).map(|q| q.body.as_ref())
    {
        crate::query::same_widths(values)?;
    }
    let source = match selected.as_ref().or(insert.source.as_deref()) {
        // DEFAULT VALUES: one row of defaults.
        None if !listed => Source::Values(vec![Vec::new()]),
        None => return Err(SqlError::syntax("syntax error at or near \"DEFAULT\"")),
        Some(query) => match query.body.as_ref() {
            SetExpr::Values(values) => Source::Values(
                values
                    .rows
                    .iter()
                    .map(|row| {
                        arity(row.len(), targets.len(), listed)?;
                        row.iter()
                            .enumerate()
                            .map(|(i, e)| match (targets.get(i), subscripts.at(i)) {
                                (Some(_), Some(s)) => s.bind(e),
                                (Some(&c), None) if is_default(e) => constraints.default_of(c),
                                (Some(&c), None) => {
                                    let ignored = takes_default(e, c, &constraints, overriding);
                                    // (An ignored value's folding is not
                                    // raised: PostgreSQL never plans it.)
                                    let bound = match ignored {
                                        true => crate::fold::unnoted(|| {
                                            assignment::bind(&relation, c, e, none)
                                        })?,
                                        false => assignment::bind(&relation, c, e, none)?,
                                    };
                                    match ignored {
                                        // Checked, as PostgreSQL does, but not evaluated.
                                        true => {
                                            if let Scalar::Const(v @ Value::Text(_)) = &bound {
                                                types::assign(v.clone(), relation.types[c])?;
                                            }
                                            constraints.default_of(c)
                                        }
                                        false => Ok(bound),
                                    }
                                }
                                // (A DEFAULT past the targets is the
                                // arity's error, found at run time.)
                                (None, _) if is_default(e) => Ok(Scalar::Const(Value::Null)),
                                (None, _) => scalar::bind(e, none),
                            })
                            .collect()
                    })
                    .collect::<Result<_, _>>()?,
            ),
            _ => {
                let planned = query::plan_query(cx, txn, query)?;
                for (i, (&c, &ty)) in targets.iter().zip(&planned.types).enumerate() {
                    if let Some(s) = subscripts.at(i) {
                        s.check(ty)?;
                        continue;
                    }
                    // A query's text column may be an untyped literal's.
                    let from = Some(ty).filter(|t| !matches!(t, SqlType::Text | SqlType::Record));
                    let column = (relation.def.columns[c].name.as_str(), relation.types[c]);
                    assignment::check(from, column, query_item(query, i))?;
                }
                Source::Query(Box::new(planned))
            }
        },
    };
    // A value given to a GENERATED ALWAYS identity column (DEFAULT is
    // not a value; refused for the first such column of the table's, as
    // PostgreSQL); a query's values OVERRIDING USER VALUE ignores.
    let mut ignored = Vec::new();
    let mut given_columns = Vec::new();
    for (i, &c) in targets.iter().enumerate() {
        let given = match (&source, insert.source.as_deref().map(|q| q.body.as_ref())) {
            (Source::Query(q), _) if i < q.columns.len() => {
                match overriding == Some(Overriding::User) && constraints.is_identity(c) {
                    true => {
                        ignored.push(i);
                        false
                    }
                    false => true,
                }
            }
            (Source::Query(_), _) => false,
            (Source::Values(_), Some(SetExpr::Values(values))) => values.rows.iter().any(|row| {
                row.get(i)
                    .is_some_and(|e| !takes_default(e, c, &constraints, overriding))
            }),
            (Source::Values(_), _) => false,
        };
        if given {
            given_columns.push(c);
        }
    }
    given_columns.sort_unstable();
    for c in given_columns {
        constraints.check_given(&relation, c, false, overriding)?;
    }
    let alias = insert.table_alias.as_ref().map(names::ident);
    // RETURNING qualifies a temporary table's columns by its bare name.
    let bare = folio_catalog::unqualified(name).to_string();
    let returned_system = insert.returning.as_deref().unwrap_or_default();
    let system = returned_system.iter().any(crate::system_columns::mentioned);
    if system {
        crate::system_columns::inserted_only_tableoid(returned_system)?;
    }
    let scope = Scope::of(vec![ScopeTable::of_relation(
        alias.clone().unwrap_or(bare),
        &relation,
        0,
        system,
    )]);
    let mut returning_items = insert.returning.clone();
    let mut policies = InsertPolicies::of(cx, &relation, name, insert)?;
    let mut subplans = subquery::extract(
        cx,
        txn,
        returned(returning_items.as_mut())
            .chain(policies.exprs())
            .collect(),
        &scope,
        0,
    )?;
    let mut constraints = constraints;
    let bind = |checks| crate::row_security::bind_checks(&relation, checks);
    constraints.add_policy_checks(Written::Inserted, bind(policies.inserted)?);
    constraints.add_policy_checks(Written::Updated, bind(policies.updated)?);
    let returning = returning(&scope, returning_items.as_deref())?;
    let on_conflict = match &insert.on {
        None => None,
        Some(OnInsert::OnConflict(on)) => {
            let qualifier = alias.unwrap_or_else(|| name.to_string());
            let on = (cx, txn, on, &mut subplans);
            let conflict = conflict::plan(&relation, &qualifier, on, &constraints)?;
            Some(conflict.with_existing_checks(bind(policies.existing)?))
        }
        Some(other) => return Err(SqlError::unsupported(format!("{other}"))),
    };
    Ok(Change::Insert {
        relation,
        targets,
        subscripts,
        listed,
        ignored,
        source,
        returning,
        system,
        on_conflict,
        constraints,
        subplans,
    })
}

/// The expression of a query's `i`th result column, when the query is a
/// plain SELECT (where an error about the column points).
fn query_item(query: &Query, i: usize) -> Option<&Expr> {
    let SetExpr::Select(select) = query.body.as_ref() else {
        return None;
    };
    fn expr(item: &SelectItem) -> Option<&Expr> {
        match item {
            SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. } => Some(e),
            _ => None,
        }
    }
    // Past a `*` the items are not the columns.
    match select
        .projection
        .iter()
        .take(i)
        .all(|item| expr(item).is_some())
    {
        true => expr(select.projection.get(i)?),
        false => None,
    }
}

/// An INSERT's `VALUES (row)` of one row holding a subquery and no
/// DEFAULT, as `SELECT row` (`project_set::row_as_select`): a VALUES
/// row's values are bound without subqueries. Several rows stay VALUES
/// (0A000 for a subquery there).
fn sublink_row_as_select(source: &Query) -> Option<Query> {
    let SetExpr::Values(values) = source.body.as_ref() else {
        return None;
    };
    let [row] = values.rows.as_slice() else {
        return None;
    };
    let sublink = |e: &Expr| {
        let mut found = false;
        let _ = sqlparser::ast::visit_expressions(e, |e| {
            found |= matches!(
                e,
                Expr::Subquery(_) | Expr::Exists { .. } | Expr::InSubquery { .. }
            );
            std::ops::ControlFlow::<()>::Continue(())
        });
        found
    };
    match row.iter().any(sublink) && !row.iter().any(is_default) {
        true => crate::project_set::row_as_select(source),
        false => None,
    }
}

/// PostgreSQL's 42601 for an INSERT row of `width` values into `targets`
/// columns: more values than columns, or fewer than a column list
/// (`listed`) names. The one owner of that rule (VALUES rows when
/// planned, other sources' rows when run).
fn arity(width: usize, targets: usize, listed: bool) -> Result<(), SqlError> {
    if width > targets {
        return Err(SqlError::syntax(
            "INSERT has more expressions than target columns",
        ));
    }
    if width < targets && listed {
        return Err(SqlError::syntax(
            "INSERT has more target columns than expressions",
        ));
    }
    Ok(())
}

/// Whether `e` is the keyword `DEFAULT` (in VALUES or SET).
pub(crate) fn is_default(e: &Expr) -> bool {
    matches!(e, Expr::Identifier(id) if id.quote_style.is_none() && id.value.eq_ignore_ascii_case("default"))
}

/// Whether column `c` of an INSERT's VALUES row takes its default in
/// place of `e`: `e` is `DEFAULT`, or `c` is an identity column and the
/// statement says `OVERRIDING USER VALUE` (then `e` is not evaluated).
pub(crate) fn takes_default(
    e: &Expr,
    c: usize,
    constraints: &Constraints,
    overriding: Option<Overriding>,
) -> bool {
    is_default(e) || (overriding == Some(Overriding::User) && constraints.is_identity(c))
}

/// The positions of the columns an UPDATE's SET assigns (a `(a, b) =
/// ...` list's too); a name that is no column is left to the binding's
/// error.
fn set_columns(relation: &Relation, assignments: &[Assignment]) -> Result<Vec<usize>, SqlError> {
    let mut out = Vec::new();
    for a in assignments {
        let names = match &a.target {
            AssignmentTarget::ColumnName(column) => std::slice::from_ref(column),
            AssignmentTarget::Tuple(columns) => columns.as_slice(),
        };
        for column in names {
            let (column, _, _) = crate::field_assignment::split(column)?;
            if let Ok((at, _)) = crate::scalar::Columns::resolve(relation, &column) {
                out.push(at);
            }
        }
    }
    Ok(out)
}

/// Plans `UPDATE name [[AS] alias] SET column = expression, ... [FROM
/// item, ...] [WHERE ...] [RETURNING ...]` (the rows: `change_rows.rs`).
pub fn plan_update(
    cx: &Ctx<'_>,
    txn: &Transaction,
    table: &TableWithJoins,
    assignments: &[Assignment],
    from: Option<&[TableWithJoins]>,
    selection: Option<&Expr>,
    returning_items: Option<&[SelectItem]>,
) -> Result<Change, SqlError> {
    if let Some(((relation, items, at_start), returning_items)) = part_targets(
        cx,
        txn,
        table,
        selection,
        returning_items,
        from.unwrap_or(&[]),
    )? {
        // (Also when no table is left to plan.)
        let set = set_columns(&relation, assignments)?;
        let name = &relation.def.name;
        let updated =
            privileges::note_columns(cx, &relation.def, name, "table", privileges::UPDATE);
        set.iter().for_each(|&c| updated.record(c));
        // Each table's needs are the named table's (`privileges::as_parent`).
        let noted = cx.needs.borrow().len();
        let partitioned = relation.def.partition_key().is_some();
        // Each part takes the named table's policies (`row_security.rs`).
        let changes = crate::row_security::as_parts_of(cx, txn, &relation.def, || {
            let mut changes = Vec::new();
            for item in &items {
                let returning_items = returning_items.as_deref();
                let mut change =
                    plan_update(cx, txn, item, assignments, from, selection, returning_items)?;
                change.constraints_mut().moves = partitioned;
                changes.push(change);
            }
            Ok(changes)
        })?;
        let descendants = crate::inheritance::tree::reached(cx, txn, &relation.def)?;
        privileges::as_parent(cx, noted, &relation.def, name, &descendants);
        let constraints = Constraints::bind(cx, txn, &relation)?;
        return Ok(Change::Parts(Box::new(Parts {
            relation,
            constraints,
            changes,
            verb: "UPDATE",
            set,
            at_start,
        })));
    }
    let list = from.map(|others| change_rows::joined_list(table, others));
    let system = assignments
        .iter()
        .any(|a| crate::system_columns::mentioned(&a.value))
        || selection.is_some_and(crate::system_columns::mentioned)
        || returning_items.is_some_and(|r| r.iter().any(crate::system_columns::mentioned))
        || from.is_some_and(|f| f.iter().any(crate::system_columns::mentioned));
    let mut target = Target::resolve(cx, txn, table, list.as_deref(), system)?;
    let reads = selection.is_some() || returning_items.is_some();
    let set = set_columns(&target.relation, assignments)?;
    target.note(cx, privileges::UPDATE, &set);
    let mut values: Vec<Expr> = assignments.iter().map(|a| a.value.clone()).collect();
    let update = crate::row_security::Command::Update;
    let mut selection = crate::row_security::restrict(
        cx,
        &target.relation,
        target.qualifier(),
        update,
        reads,
        selection.cloned(),
    )?;
    let mut policy_checks =
        crate::row_security::checks(cx, target.relation.def.oid, &target.name, update)?;
    // A statement that reads the table: its new rows must be visible
    // (SELECT's USING, as PostgreSQL's checks).
    if reads {
        let select = crate::row_security::Command::Select;
        let (oid, name) = (target.relation.def.oid, &target.name);
        policy_checks.extend(crate::row_security::using_checks(cx, oid, name, select)?);
    }
    let mut returning_items = returning_items.map(<[SelectItem]>::to_vec);
    let subplans = subquery::extract(
        cx,
        txn,
        (values.iter_mut().chain(selection.as_mut()))
            .chain(returned(returning_items.as_mut()))
            .chain(policy_checks.iter_mut().map(|(_, _, e)| e))
            .collect(),
        &target.scope,
        0,
    )?;
    let relation = target.relation.clone();
    let mut constraints = Constraints::bind(cx, txn, &relation)?;
    constraints.add_policy_checks(
        Written::Updated,
        crate::row_security::bind_checks(&relation, policy_checks)?,
    );
    // The target's columns in the row the expressions see (after the
    // other items' when there are some).
    let offset = target.scope.width() - relation.types.len() - target.system();
    let targets = bind_assignments(
        (&relation, &target.name, &constraints),
        &target.scope,
        offset,
        assignments.iter().map(|a| &a.target).zip(&values),
    )?;
    let returning = returning(&target.scope, returning_items.as_deref())?;
    let (selection, late) = late_where(selection.as_ref(), &target.scope, &subplans)?;
    let rows = target.rows(cx, selection.as_ref())?;
    Ok(Change::Update {
        relation,
        constraints,
        assignments: targets,
        rows,
        returning,
        subplans,
        late,
    })
}

/// SET's `column = value` pairs of an UPDATE of `relation` (named
/// `name`), bound over `scope`, whose target columns start at `offset`
/// (`DEFAULT` is the column's default; a value for a GENERATED ALWAYS
/// column is refused). Also a MERGE's UPDATE action's (`merge.rs`).
pub(crate) fn bind_assignments<'e>(
    (relation, name, constraints): (&Relation, &str, &Constraints),
    scope: &Scope,
    offset: usize,
    assignments: impl Iterator<Item = (&'e AssignmentTarget, &'e Expr)>,
) -> Result<Vec<(usize, Scalar)>, SqlError> {
    let mut targets = Vec::new();
    let mut by_field = crate::field_assignment::FieldTargets::default();
    for (target, value) in assignments {
        let AssignmentTarget::ColumnName(column) = target else {
            return Err(SqlError::unsupported("UPDATE of a column tuple"));
        };
        let (column, fields, first) = crate::field_assignment::split(column)?;
        let c = access::target_column(relation, name, &column)
            .map_err(|e| e.near(Some(first.span.start)))?;
        crate::project_set::refuse(value, "UPDATE")?;
        if !fields.is_empty() {
            constraints.check_given(relation, c, true, None)?;
            let target = (c, fields.as_slice(), first.span.start);
            let base = Scalar::Column(offset + c);
            by_field.add(relation, target, value, base, scope, &mut targets)?;
            continue;
        }
        refuse_repeated(relation, c, &targets)?;
        let value = if is_default(value) {
            constraints.default_of(c)?.map_columns(&|at| at + offset)
        } else {
            constraints.check_given(relation, c, true, None)?;
            assignment::bind(relation, c, value, scope)?
        };
        targets.push((c, value));
    }
    Ok(targets)
}

/// PostgreSQL's 42601 when SET's column `c` of `relation` is one of the
/// columns `assigned` before it (an UPDATE's, a MERGE's or ON CONFLICT
/// DO UPDATE's SET).
pub(crate) fn refuse_repeated<T>(
    relation: &Relation,
    c: usize,
    assigned: &[(usize, T)],
) -> Result<(), SqlError> {
    match assigned.iter().any(|(done, _)| *done == c) {
        false => Ok(()),
        true => Err(SqlError::syntax(format!(
            "multiple assignments to same column \"{}\"",
            relation.def.columns[c].name
        ))),
    }
}

/// Plans `DELETE FROM name [[AS] alias] [USING item, ...] [WHERE ...]
/// [RETURNING ...]` (the rows: `change_rows.rs`).
pub fn plan_delete(cx: &Ctx<'_>, txn: &Transaction, delete: &Delete) -> Result<Change, SqlError> {
    let from = match &delete.from {
        FromTable::WithFromKeyword(from) | FromTable::WithoutKeyword(from) => from,
    };
    if !delete.tables.is_empty() || !delete.order_by.is_empty() || delete.limit.is_some() {
        return Err(SqlError::unsupported("DELETE with ORDER BY or LIMIT"));
    }
    let [from] = from.as_slice() else {
        return Err(SqlError::unsupported("DELETE from several tables"));
    };
    if let Some(((relation, items, at_start), returning)) = part_targets(
        cx,
        txn,
        from,
        delete.selection.as_ref(),
        delete.returning.as_deref(),
        delete.using.as_deref().unwrap_or(&[]),
    )? {
        // (Also when no table is left to plan.)
        let name = &relation.def.name;
        privileges::note(cx, relation.def.oid, name, "table", privileges::DELETE);
        // Each table's needs are the named table's (`privileges::as_parent`).
        let noted = cx.needs.borrow().len();
        // Each part takes the named table's policies (`row_security.rs`).
        let changes = crate::row_security::as_parts_of(cx, txn, &relation.def, || {
            let mut changes = Vec::new();
            for item in items {
                let mut one = delete.clone();
                one.from = FromTable::WithFromKeyword(vec![item]);
                one.returning = returning.clone();
                changes.push(plan_delete(cx, txn, &one)?);
            }
            Ok(changes)
        })?;
        let descendants = crate::inheritance::tree::reached(cx, txn, &relation.def)?;
        privileges::as_parent(cx, noted, &relation.def, name, &descendants);
        let constraints = Constraints::bind(cx, txn, &relation)?;
        return Ok(Change::Parts(Box::new(Parts {
            relation,
            constraints,
            changes,
            verb: "DELETE",
            set: Vec::new(),
            at_start,
        })));
    }
    let list = (delete.using.as_deref()).map(|others| change_rows::joined_list(from, others));
    let system = crate::system_columns::mentioned(delete);
    let mut target = Target::resolve(cx, txn, from, list.as_deref(), system)?;
    let reads = delete.selection.is_some() || delete.returning.is_some();
    target.note(cx, privileges::DELETE, &[]);
    let relation = target.relation.clone();
    let constraints = Constraints::bind(cx, txn, &relation)?;
    let mut selection = crate::row_security::restrict(
        cx,
        &relation,
        target.qualifier(),
        crate::row_security::Command::Delete,
        reads,
        delete.selection.clone(),
    )?;
    let mut returning_items = delete.returning.clone();
    let subplans = subquery::extract(
        cx,
        txn,
        (selection.iter_mut())
            .chain(returned(returning_items.as_mut()))
            .collect(),
        &target.scope,
        0,
    )?;
    let returning = returning(&target.scope, returning_items.as_deref())?;
    let (selection, late) = late_where(selection.as_ref(), &target.scope, &subplans)?;
    let rows = target.rows(cx, selection.as_ref())?;
    Ok(Change::Delete {
        relation,
        constraints,
        rows,
        returning,
        subplans,
        late,
    })
}

/// The expressions of RETURNING's `items`, for their subqueries to be
/// taken out; an unaliased item that holds one is named first, as a
/// select list's is (`query::name_subquery_items`).
fn returned(items: Option<&mut Vec<SelectItem>>) -> impl Iterator<Item = &mut Expr> {
    let items: &mut [SelectItem] = match items {
        Some(items) => {
            query::name_subquery_items(items);
            items
        }
        None => &mut [],
    };
    items.iter_mut().filter_map(|item| match item {
        SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. } => Some(e),
        _ => None,
    })
}

/// An UPDATE's or DELETE's WHERE split: the conjuncts the table's scan
/// (or join) tests, and those that call a PL/pgSQL function or hold a
/// correlated subquery (of `subplans`), bound over `scope`, which the
/// change tests on each row the scan found, where it can lend the
/// transaction ([`PerRow`]), as PostgreSQL tests its costly conditions
/// last.
fn late_where(
    selection: Option<&Expr>,
    scope: &Scope,
    subplans: &[Subplan],
) -> Result<(Option<Expr>, Vec<Scalar>), SqlError> {
    let Some(selection) = selection else {
        return Ok((None, Vec::new()));
    };
    if !crate::plpgsql::row_calls::any_in(selection) && !subplans.iter().any(Subplan::is_correlated)
    {
        return Ok((Some(selection.clone()), Vec::new()));
    }
    let (early, late) = subquery::outer_conjuncts(selection, subplans);
    let late = (late.iter())
        .map(|e| scalar::bind(e, scope))
        .collect::<Result<_, _>>()?;
    Ok((early, late))
}

/// What an UPDATE or DELETE lends the expressions it evaluates per row
/// (the late WHERE conjuncts, SET, RETURNING): its transaction, to their
/// calls of PL/pgSQL functions and, when it has correlated subqueries,
/// to those, which read as of the statement's `command` (they do not see
/// the rows it changed already, as PostgreSQL's subqueries read with the
/// statement's command id).
#[derive(Clone, Copy)]
pub(crate) struct PerRow<'p> {
    subplans: &'p [Subplan],
    /// Set when a subquery is correlated: the frame the statement's
    /// writes run in ([`PerRow::run`]).
    command: Option<Command>,
}

impl PerRow<'_> {
    /// Runs `change` with a [`PerRow`] for `subplans`: the uncorrelated
    /// subqueries run first (their results in the environment), and, when
    /// one is correlated, the writes in a command of their own that is
    /// ended whatever `change` returns. Without subqueries, `change` as it
    /// is (the pgbench path).
    /// A part of a change of several tables runs in their `statement`'s
    /// command instead ([`Whole::command`]): its subqueries read as of it.
    fn run<T>(
        txn: &mut Transaction,
        subplans: &[Subplan],
        env: &Env<'_>,
        statement: Option<Command>,
        change: impl FnOnce(&mut Transaction, &Env<'_>, PerRow<'_>) -> Result<T, SqlError>,
    ) -> Result<T, SqlError> {
        let mut per_row = PerRow {
            subplans,
            command: None,
        };
        if subplans.is_empty() {
            return change(txn, env, per_row);
        }
        let results = as_of(txn, statement, |txn| {
            subquery::run_uncorrelated(txn, subplans, env)
        })?;
        let env = Env {
            subqueries: &results,
            ..*env
        };
        if !subplans.iter().any(Subplan::is_correlated) {
            return change(txn, &env, per_row);
        }
        if statement.is_some() {
            per_row.command = statement;
            return change(txn, &env, per_row);
        }
        let command = txn.begin_command()?;
        per_row.command = Some(command);
        let out = change(txn, &env, per_row);
        txn.end_command(command);
        out
    }

    /// Runs `f` with `txn` lent to the expressions it evaluates.
    pub(crate) fn lend<T>(
        self,
        txn: &mut Transaction,
        env: &Env<'_>,
        f: impl FnOnce(&Env<'_>) -> Result<T, SqlError>,
    ) -> Result<T, SqlError> {
        let Some(command) = self.command else {
            return crate::plpgsql::row_calls::lend(txn, env, f);
        };
        let runner = subquery::Runner::as_of(txn, self.subplans, env, command);
        f(&Env {
            correlated: Some(&runner),
            ..*env
        })
    }

    /// Whether the row `seen` passes the `late` conjuncts.
    fn passes(
        self,
        txn: &mut Transaction,
        late: &[Scalar],
        seen: &[Value],
        env: &Env<'_>,
    ) -> Result<bool, SqlError> {
        if late.is_empty() {
            return Ok(true);
        }
        self.lend(txn, env, |env| scan::accepts(late, seen, env))
    }
}

/// A parameter `s` assigned to (or inserted into) a column of type `ty`
/// takes that type, unless it has one.
pub(crate) fn note_param(s: &Scalar, ty: SqlType, types: &mut [Option<SqlType>]) {
    if let Scalar::Param(n) = s
        && let Some(slot) = types.get_mut(*n)
        && slot.is_none()
    {
        *slot = Some(ty);
    }
}

impl Change {
    /// Notes the types its parameters take: a parameter inserted into or
    /// assigned to a column takes the column's type.
    pub fn param_types(&self, types: &mut [Option<SqlType>]) {
        let mut note = |s: &Scalar, ty: SqlType| note_param(s, ty, types);
        match self {
            Change::Merge(merge) => merge.param_types(types),
            Change::Parts(parts) => parts.changes.iter().for_each(|c| c.param_types(types)),
            Change::Insert {
                relation,
                targets,
                subscripts,
                source,
                returning,
                subplans,
                ..
            } => {
                match source {
                    Source::Values(rows) => {
                        for row in rows {
                            for (i, (s, &c)) in row.iter().zip(targets).enumerate() {
                                let ty = subscripts.at(i).map(|s| s.value_type());
                                note(s, ty.unwrap_or(relation.types[c]));
                            }
                        }
                        for row in rows {
                            row.iter().for_each(|s| s.param_types(&[], types));
                        }
                    }
                    Source::Query(q) => q.param_types(types),
                }
                if let Some((items, _, _)) = returning {
                    items
                        .iter()
                        .for_each(|s| s.param_types(&relation.types, types));
                }
                subplans.iter().for_each(|s| s.plan.param_types(types));
            }
            Change::Update {
                relation,
                assignments,
                rows,
                returning,
                subplans,
                ..
            } => {
                for (c, s) in assignments {
                    note(s, relation.types[*c]);
                }
                rows.param_types(types);
                let seen = rows.row_types();
                for s in assignments
                    .iter()
                    .map(|(_, s)| s)
                    .chain(returning.iter().flat_map(|(items, _, _)| items))
                {
                    s.param_types(seen, types);
                }
                subplans.iter().for_each(|s| s.plan.param_types(types));
            }
            Change::Delete {
                rows,
                returning,
                subplans,
                ..
            } => {
                subplans.iter().for_each(|s| s.plan.param_types(types));
                rows.param_types(types);
                let seen = rows.row_types();
                for s in returning.iter().flat_map(|(items, _, _)| items) {
                    s.param_types(seen, types);
                }
            }
        }
    }

    /// The RETURNING columns, if any.
    pub fn returning_columns(&self) -> Option<Vec<Column>> {
        match self {
            Change::Merge(_) => None,
            Change::Parts(parts) => parts.changes.first()?.returning_columns(),
            Change::Insert { returning, .. }
            | Change::Update { returning, .. }
            | Change::Delete { returning, .. } => returning.as_ref().map(|(_, c, _)| c.clone()),
        }
    }

    /// The names and types of the columns RETURNING gives (`None`:
    /// without RETURNING).
    pub fn returning_shape(&self) -> Option<(Vec<String>, Vec<SqlType>)> {
        match self {
            Change::Merge(_) => None,
            Change::Parts(parts) => parts.changes.first()?.returning_shape(),
            Change::Insert { returning, .. }
            | Change::Update { returning, .. }
            | Change::Delete { returning, .. } => returning
                .as_ref()
                .map(|(_, c, t)| (c.iter().map(|c| c.name.clone()).collect(), t.clone())),
        }
    }

    /// The table it changes.
    pub fn target(&self) -> &Arc<Relation> {
        match self {
            Change::Merge(merge) => merge.target(),
            Change::Parts(parts) => &parts.relation,
            Change::Insert { relation, .. }
            | Change::Update { relation, .. }
            | Change::Delete { relation, .. } => relation,
        }
    }

    /// The target table's constraints (`updatable_views.rs` adds a
    /// view's check options).
    pub fn constraints_mut(&mut self) -> &mut Constraints {
        match self {
            Change::Merge(merge) => merge.constraints_mut(),
            Change::Parts(parts) => &mut parts.constraints,
            Change::Insert { constraints, .. }
            | Change::Update { constraints, .. }
            | Change::Delete { constraints, .. } => constraints,
        }
    }

    /// The changes of a partitioned table's parts (each partition's,
    /// planned on its own: they judge its rows with their own
    /// constraints); none for a change of one table.
    pub fn parts_mut(&mut self) -> &mut [Change] {
        match self {
            Change::Parts(parts) => &mut parts.changes,
            _ => &mut [],
        }
    }

    /// The sequences the target table's defaults name.
    pub fn default_sequences(&self) -> &[String] {
        match self {
            Change::Merge(merge) => merge.constraints().sequences(),
            Change::Parts(parts) => parts.constraints.sequences(),
            Change::Insert { constraints, .. }
            | Change::Update { constraints, .. }
            | Change::Delete { constraints, .. } => constraints.sequences(),
        }
    }

    /// Whether the target table's defaults look the catalog up.
    pub fn defaults_look_up(&self) -> bool {
        match self {
            Change::Merge(merge) => merge.constraints().defaults_look_up(),
            Change::Parts(parts) => parts.constraints.defaults_look_up(),
            Change::Insert { constraints, .. }
            | Change::Update { constraints, .. }
            | Change::Delete { constraints, .. } => constraints.defaults_look_up(),
        }
    }

    /// The relations the plan reads and changes.
    pub fn relations(&self) -> Vec<&Arc<Relation>> {
        match self {
            Change::Merge(merge) => merge.relations(),
            Change::Parts(parts) => {
                let mut out = vec![&parts.relation];
                for change in &parts.changes {
                    out.extend(change.relations());
                }
                out
            }
            Change::Insert {
                relation,
                source,
                constraints,
                subplans,
                ..
            } => {
                let mut out = vec![relation];
                if let Source::Query(q) = source {
                    out.extend(q.relations());
                }
                out.extend(constraints.relations());
                for sub in subplans {
                    out.extend(sub.plan.relations());
                }
                out
            }
            Change::Update {
                relation,
                constraints,
                rows,
                subplans,
                ..
            }
            | Change::Delete {
                relation,
                constraints,
                rows,
                subplans,
                ..
            } => {
                let mut out = vec![relation];
                out.extend(rows.relations());
                out.extend(constraints.relations());
                for sub in subplans {
                    out.extend(sub.plan.relations());
                }
                out
            }
        }
    }

    /// Once the rows an UPDATE of a partitioned table moved are in their
    /// new partitions: the checks and actions of this part (of every part
    /// below, for a partitioned one) that waited for them.
    fn end_moved(&self, cx: &Ctx<'_>, txn: &mut Transaction) -> Result<(), SqlError> {
        match self {
            Change::Update {
                relation,
                constraints,
                ..
            } => constraints.end_statement(Some(cx.deferred), txn, relation),
            Change::Parts(parts) => (parts.changes.iter()).try_for_each(|c| c.end_moved(cx, txn)),
            _ => Ok(()),
        }
    }

    /// Runs the change: tag `INSERT 0 n`, `UPDATE n` or `DELETE n`, with
    /// the RETURNING rows if any.
    /// (`pending`: the transaction's deferred foreign key checks.)
    pub fn run(
        &self,
        cx: &Ctx<'_>,
        txn: &mut Transaction,
        env: &Env<'_>,
    ) -> Result<Output, SqlError> {
        self.run_in(cx, txn, env, Whole::Alone)
    }

    /// [`Change::run`], alone or as a partition's part of a change of its
    /// partitioned table ([`Whole`]).
    fn run_in(
        &self,
        cx: &Ctx<'_>,
        txn: &mut Transaction,
        env: &Env<'_>,
        whole: Whole<'_>,
    ) -> Result<Output, SqlError> {
        let pending = cx.deferred;
        match self {
            Change::Merge(merge) => merge.run(cx, txn, env),
            Change::Parts(parts) => {
                let event = match parts.verb {
                    "UPDATE" => Event::Update,
                    _ => Event::Delete,
                };
                // The partitioned table's statement triggers fire once,
                // even when pruning leaves no partition (PostgreSQL's).
                let triggers = Triggers::of_statement(&parts.relation, event, &parts.set)?
                    .and_then(Triggers::statement_only);
                let kept = RefCell::new(Vec::new());
                let run = parts.running(env);
                // Several parts write in one command and read as of its
                // start ([`Whole::command`]); begun before the triggers'
                // statement, so the parts' writes are its own.
                let command = match run.len() > 1 {
                    true => Some(txn.begin_command()?),
                    false => None,
                };
                let parted = triggers::one_command(txn, &[triggers.as_ref()], |txn| {
                    if let Some(triggers) = &triggers {
                        triggers.start_statement(cx, txn)?;
                    }
                    let whole = Whole::Part(triggers.as_ref(), &kept, command);
                    Parts::run_parts(cx, txn, env, &run, whole)
                });
                if let Some(command) = command {
                    txn.end_command(command);
                }
                let (count, rows) = parted?;
                // The rows an UPDATE moved to another partition go in
                // through the table once every partition's part is done,
                // firing their new partition's INSERT row triggers.
                // (Each in the partitioned table's column order.)
                let mut moved = Vec::new();
                for change in &parts.changes {
                    let (constraints, relation) = match change {
                        Change::Update {
                            constraints,
                            relation,
                            ..
                        } => (constraints, relation),
                        // A partitioned partition's: the rows that left it
                        // (below).
                        Change::Parts(inner) => (&inner.constraints, &inner.relation),
                        _ => continue,
                    };
                    let map = ColumnMap::between(&parts.relation.def, &relation.def);
                    let rows = constraints.take_moved().into_iter();
                    moved.extend(rows.map(|row| column_map::up(map.as_ref(), row)));
                }
                // This table a partition the UPDATE reached through an
                // ancestor: a row leaving its bound goes up to be routed
                // from the table the statement names, as PostgreSQL's
                // (not refused here by this table's bound).
                if parts.constraints.moves {
                    let mut here = Vec::new();
                    for row in moved {
                        match parts.constraints.moves_out(&row)? {
                            true => parts.constraints.pass_up(row),
                            false => here.push(row),
                        }
                    }
                    moved = here;
                }
                let leaves = match moved.is_empty() {
                    true => None,
                    false => crate::partitions::leaf_triggers::Leaves::of(&parts.constraints)?,
                };
                if !moved.is_empty() {
                    parts.constraints.start_statement();
                    match &leaves {
                        Some(leaves) => {
                            for row in moved {
                                leaves.insert(cx, txn, row, env)?;
                            }
                        }
                        None => {
                            (parts.constraints).insert_many(txn, &parts.relation, moved, env)?;
                        }
                    }
                    parts
                        .constraints
                        .end_statement(Some(cx.deferred), txn, &parts.relation)?;
                    // The moved rows' old partitions' checks and actions
                    // that waited for them (`Constraints::after_move`).
                    for change in &parts.changes {
                        change.end_moved(cx, txn)?;
                    }
                }
                let kept = kept.into_inner();
                let kept: Vec<&Triggers> = kept.iter().collect();
                match &leaves {
                    Some(leaves) => leaves.after_rows(cx, txn, &kept)?,
                    None => triggers::after_rows_in_order(cx, txn, &kept)?,
                }
                if let Some(triggers) = &triggers {
                    triggers.after_statement(cx, txn)?;
                }
                let tag = format!("{} {count}", parts.verb);
                Ok(match self.returning_columns() {
                    Some(columns) => Output::Rows {
                        columns,
                        rows,
                        tag,
                        style: None,
                    },
                    None => Output::Command { tag },
                })
            }
            Change::Insert {
                relation,
                targets,
                subscripts,
                listed,
                ignored,
                source,
                returning,
                system,
                on_conflict,
                constraints,
                subplans,
            } => PerRow::run(txn, subplans, env, whole.command(), |txn, env, per_row| {
                constraints.start_statement();
                let mut triggers = Triggers::of_statement(relation, Event::Insert, &[])?;
                // A partitioned table's rows fire their leaf partitions'
                // row triggers (its own are cloned there), its statement
                // triggers fire on it. (Under ON CONFLICT, the partitioned
                // table's own row triggers fire: README Open gaps.)
                let partitioned = relation.def.partition_key().is_some();
                let leaves = match (partitioned, on_conflict) {
                    (true, None) => crate::partitions::leaf_triggers::Leaves::of(constraints)?,
                    _ => None,
                };
                if leaves.is_some() {
                    triggers = triggers.and_then(Triggers::statement_only);
                }
                let conflict_triggers = match on_conflict {
                    Some(conflict) => conflict.triggers(relation)?,
                    None => None,
                };
                // A statement that reads the table (its query, or the
                // conflicting rows) runs apart from its triggers' writes.
                // (A list only with leaf triggers: a plain INSERT makes none.)
                let pair = [triggers.as_ref(), conflict_triggers.as_ref()];
                let with_leaves: Vec<Option<&Triggers>>;
                let sets: &[Option<&Triggers>] = match &leaves {
                    None => &pair,
                    Some(leaves) => {
                        with_leaves = pair.into_iter().chain(leaves.sets().map(Some)).collect();
                        &with_leaves
                    }
                };
                let apart = match (on_conflict, source) {
                    (None, Source::Values(_)) => &[][..],
                    _ => sets,
                };
                let (mut out, count) = triggers::one_command(txn, apart, |txn| {
                    for triggers in sets.iter().flatten() {
                        triggers.start_statement(cx, txn)?;
                    }
                    let rows: Vec<Vec<Value>> = match source {
                        // (A value may call a PL/pgSQL function:
                        // `plpgsql/row_calls.rs` lends it the transaction.)
                        Source::Values(rows) => crate::plpgsql::row_calls::lend(txn, env, |env| {
                            (rows.iter())
                                .map(|row| row.iter().map(|s| s.eval(&[], env)).collect())
                                .collect::<Result<_, _>>()
                        })?,
                        Source::Query(planned) => {
                            let (rows, counts) =
                                triggers::unseen(txn, sets, |txn| query::run(txn, planned, env))?;
                            crate::explain_change::note_queried(cx, planned, rows.len(), &counts);
                            rows
                        }
                    };
                    let mut out = Vec::new();
                    let mut count = 0u64;
                    let conflict_written = std::cell::RefCell::default();
                    // Without ON CONFLICT the rows go to the heap together, a
                    // record per page (as COPY's batches).
                    let mut batch = Vec::new();
                    for row in rows {
                        arity(row.len(), targets.len(), *listed)?;
                        let mut row = row;
                        subscripts.apply(&mut row, targets, env)?;
                        let kept: Vec<usize>;
                        let given = match ignored.is_empty() {
                            true => &targets[..row.len()],
                            false => {
                                (kept, row) = (row.into_iter().zip(targets))
                                    .enumerate()
                                    .filter(|(i, _)| !ignored.contains(i))
                                    .map(|(_, (value, &c))| (c, value))
                                    .unzip();
                                &kept
                            }
                        };
                        let rule = RowRule::of(cx, relation, constraints, triggers.as_ref());
                        let Some(values) = rule.new_row(txn, given, row, env)? else {
                            continue;
                        };
                        let written = match (on_conflict, &leaves) {
                            (None, None) => Some(values),
                            (None, Some(leaves)) => leaves.insert(cx, txn, values, env)?,
                            (Some(conflict), _) => {
                                let fire = conflict::Fire {
                                    cx,
                                    inserts: triggers.as_ref(),
                                    updates: conflict_triggers.as_ref(),
                                    written: &conflict_written,
                                    per_row,
                                };
                                conflict.insert(txn, relation, constraints, values, env, &fire)?
                            }
                        };
                        if let Some(row) = written {
                            if returning.is_some() {
                                out.push(row.clone());
                            }
                            count += 1;
                            let row_triggers = triggers.as_ref().filter(|t| t.has_row_triggers());
                            match (on_conflict, row_triggers) {
                                (Some(_), _) => {}
                                // (Written through its leaf's triggers; the
                                // statement triggers' transition tables
                                // keep it.)
                                (None, row_triggers) if leaves.is_some() => {
                                    if let Some(triggers) = row_triggers {
                                        triggers.after(cx, txn, None, Some(&row))?;
                                    }
                                }
                                (None, None) => batch.push(row),
                                // A row with triggers is written at once: the
                                // next row's BEFORE triggers see it.
                                (None, Some(triggers)) => {
                                    RowRule::of(cx, relation, constraints, Some(triggers))
                                        .insert_row(txn, row, env)?
                                }
                            }
                        }
                    }
                    for rows in batch.chunks_mut(INSERT_BATCH_ROWS) {
                        let rows = rows.iter_mut().map(std::mem::take).collect();
                        constraints.insert_many(txn, relation, rows, env)?;
                    }
                    Ok((out, count))
                })?;
                // RETURNING sees the rows written (a call in it that reads
                // the table finds them; its subqueries do not, as
                // PostgreSQL's read with the statement's snapshot).
                if *system {
                    for row in &mut out {
                        crate::system_columns::of_inserted(relation, constraints, row)?;
                    }
                }
                if let Some((items, _, _)) = returning {
                    out = per_row.lend(txn, env, |env| {
                        (out.iter())
                            .map(|row| project(items, row, env))
                            .collect::<Result<_, _>>()
                    })?;
                }
                constraints.end_statement(Some(pending), txn, relation)?;
                // PostgreSQL's order: the rows' AFTER triggers, then DO
                // UPDATE's AFTER STATEMENT triggers before INSERT's.
                if let Some(leaves) = &leaves {
                    leaves.after_rows(cx, txn, &[])?;
                }
                for triggers in [&triggers, &conflict_triggers].into_iter().flatten() {
                    triggers.after_rows(cx, txn)?;
                }
                for triggers in [&conflict_triggers, &triggers].into_iter().flatten() {
                    triggers.after_statement(cx, txn)?;
                }
                finish(returning, out, format!("INSERT 0 {count}"))
            }),
            Change::Update {
                relation,
                constraints,
                assignments,
                rows,
                returning,
                subplans,
                late,
            } => PerRow::run(txn, subplans, env, whole.command(), |txn, env, per_row| {
                constraints.start_statement();
                let set: Vec<usize> = assignments.iter().map(|(c, _)| *c).collect();
                let triggers =
                    Triggers::of_update_part(relation, &set, whole.is_part(), constraints.moves)?;
                let rule = RowRule::of(cx, relation, constraints, triggers.as_ref());
                let (updated, out) = each_changed_row(
                    txn,
                    (&rule, whole),
                    (rows, late),
                    env,
                    per_row,
                    |txn, (tid, old), seen, around| {
                        let new = per_row
                            .lend(txn, env, |env| rule.assigned(old, assignments, seen, env))?;
                        let (write, new) = rule
                            .update_row(txn, new, (tid, old), returning.is_some(), env)?
                            .unwrap_or((folio_db::Write::Gone, None));
                        // RETURNING sees the row written (a call in it that
                        // reads the table finds the new version).
                        let projected = match (returning, new) {
                            (Some((items, _, _)), Some(new)) => {
                                let seen = around.seen(&new);
                                Some(per_row.lend(txn, env, |env| project(items, &seen, env))?)
                            }
                            _ => None,
                        };
                        Ok((write, projected))
                    },
                )?;
                constraints.end_statement(Some(pending), txn, relation)?;
                whole.end(cx, txn, triggers)?;
                finish(returning, out, format!("UPDATE {updated}"))
            }),
            Change::Delete {
                relation,
                constraints,
                rows,
                returning,
                subplans,
                late,
            } => PerRow::run(txn, subplans, env, whole.command(), |txn, env, per_row| {
                constraints.start_statement();
                let triggers = Triggers::of_part(relation, Event::Delete, &[], whole.is_part())?;
                let rule = RowRule::of(cx, relation, constraints, triggers.as_ref());
                let (deleted, out) = each_changed_row(
                    txn,
                    (&rule, whole),
                    (rows, late),
                    env,
                    per_row,
                    |txn, (tid, old), seen, _| {
                        let write =
                            (rule.delete_row(txn, tid, old, env)?).unwrap_or(folio_db::Write::Gone);
                        let deleted =
                            matches!(write, folio_db::Write::Done(_) | folio_db::Write::Hot(_));
                        let projected = match returning {
                            Some((items, _, _)) if deleted => {
                                Some(per_row.lend(txn, env, |env| project(items, seen, env))?)
                            }
                            _ => None,
                        };
                        Ok((write, projected))
                    },
                )?;
                constraints.end_statement(Some(pending), txn, relation)?;
                whole.end(cx, txn, triggers)?;
                finish(returning, out, format!("DELETE {deleted}"))
            }),
        }
    }
}

/// A selected row's surroundings: the other FROM items' values it was
/// joined to and its system columns.
#[derive(Clone, Copy)]
struct Around<'r> {
    others: &'r [Value],
    system: &'r [Value],
}

impl Around<'_> {
    /// A version of the row as the statement's expressions see it.
    fn seen<'v>(self, row: &'v [Value]) -> std::borrow::Cow<'v, [Value]> {
        change_rows::seen(self.others, row, self.system)
    }
}

/// The frame an UPDATE's and a DELETE's part share, its one owner: one
/// command for the statement and the triggers of `rule` and those of
/// the `whole` it is part of ([`triggers::one_command`]), the BEFORE
/// STATEMENT triggers, the scan of `rows` that does not see what they
/// wrote ([`triggers::unseen`]) nor what the whole's earlier parts wrote
/// ([`Whole::command`]), then
/// for each row selected its newest version that still qualifies
/// ([`scan::write_newest_where`]), given to `change` if it passes the
/// `late` conjuncts with the row's tuple id and values, the values as
/// the statement sees them and its surroundings; `change` returns the
/// heap's write and RETURNING's row. Returns the count of rows changed
/// and RETURNING's rows.
fn each_changed_row(
    txn: &mut Transaction,
    (rule, whole): (&RowRule<'_, '_>, Whole<'_>),
    (rows, late): (&Rows, &[Scalar]),
    env: &Env<'_>,
    per_row: PerRow<'_>,
    mut change: impl FnMut(
        &mut Transaction,
        (folio_db::Tid, &[Value]),
        &[Value],
        Around<'_>,
    ) -> Result<(folio_db::Write, Option<Vec<Value>>), SqlError>,
) -> Result<(u64, Vec<Vec<Value>>), SqlError> {
    let sets = [rule.triggers, whole.parent()];
    triggers::one_command(txn, &sets, |txn| {
        if let Some(triggers) = rule.triggers {
            triggers.start_statement(rule.cx, txn)?;
        }
        let (selected, found) = triggers::unseen(txn, &sets, |txn| {
            as_of(txn, whole.command(), |txn| {
                rows.selected(txn, rule.relation, env)
            })
        })?;
        crate::explain_change::note_found(rule.cx, rows, selected.len(), found);
        let mut out = Vec::new();
        let mut changed = 0u64;
        for Selected {
            tid,
            row,
            others,
            system,
        } in selected
        {
            let around = Around {
                others: &others,
                system: &system,
            };
            let written = scan::write_newest_where(
                txn,
                rule.relation,
                |newer| rows.qualifies(&others, newer, &system, env),
                tid,
                row,
                |txn, tid, old| {
                    let seen = around.seen(old);
                    if !per_row.passes(txn, late, &seen, env)? {
                        return Ok((folio_db::Write::Gone, None));
                    }
                    change(txn, (tid, old), &seen, around)
                },
            )?;
            if let Some(projected) = written {
                changed += 1;
                out.extend(projected);
            }
        }
        Ok((changed, out))
    })
}

/// Runs `read` as of the start of `command` if there is one
/// (`Transaction::as_of_command`: it does not see the command's writes),
/// else as it is.
fn as_of<T>(
    txn: &mut Transaction,
    command: Option<Command>,
    read: impl FnOnce(&mut Transaction) -> T,
) -> T {
    match command {
        Some(command) => txn.as_of_command(Some(command), read),
        None => read(txn),
    }
}

/// The row count a command tag ends with.
fn tag_count(tag: &str) -> u64 {
    tag.rsplit(' ')
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or(0)
}

/// An updated row: the heap's write, and the new row if it was written.
pub(crate) type Updated = (folio_db::Write, Option<Vec<Value>>);

/// The rules one row change follows, whichever statement makes it (an
/// INSERT, UPDATE or DELETE, a MERGE's action, `merge.rs`): defaults and
/// coercion, BEFORE ROW triggers, generated columns, the constraints'
/// write, AFTER ROW triggers. The one owner of that order.
pub(crate) struct RowRule<'a, 'c> {
    pub cx: &'a Ctx<'c>,
    pub relation: &'a Arc<Relation>,
    pub constraints: &'a Constraints,
    /// The statement's triggers of this row's event, if any.
    pub triggers: Option<&'a Triggers>,
    /// A MERGE's action: a row its BEFORE triggers changed is PostgreSQL's
    /// 27000 worded for either action ([`RowRule::refused`]).
    pub merge: bool,
}

impl<'a, 'c> RowRule<'a, 'c> {
    /// The rules of a row change of a statement other than MERGE.
    pub fn of(
        cx: &'a Ctx<'c>,
        relation: &'a Arc<Relation>,
        constraints: &'a Constraints,
        triggers: Option<&'a Triggers>,
    ) -> Self {
        RowRule {
            cx,
            relation,
            constraints,
            triggers,
            merge: false,
        }
    }

    /// The row to insert with `values` in the `given` columns (the others
    /// their defaults): coerced, through the BEFORE ROW triggers, its
    /// generated columns computed; `None` when a trigger skipped it.
    pub fn new_row(
        &self,
        txn: &mut Transaction,
        given: &[usize],
        values: Vec<Value>,
        env: &Env<'_>,
    ) -> Result<Option<Vec<Value>>, SqlError> {
        let relation = self.relation;
        let mut row = crate::plpgsql::row_calls::lend(txn, env, |env| {
            self.constraints.default_row(relation, given, env)
        })?;
        for (&column, value) in given.iter().zip(values) {
            row[column] = types::assign(value, relation.types[column])?;
        }
        self.before_insert(txn, row, env)
    }

    /// `row`, a row to insert with its defaults, through the BEFORE ROW
    /// triggers (a partition's clones of its partitioned table's may not
    /// move it: `Triggers::before_in`), its generated columns computed;
    /// `None` when a trigger skipped it.
    pub fn before_insert(
        &self,
        txn: &mut Transaction,
        mut row: Vec<Value>,
        env: &Env<'_>,
    ) -> Result<Option<Vec<Value>>, SqlError> {
        if let Some(triggers) = self.triggers {
            let stays = |row: &[Value]| self.constraints.stays(row);
            match triggers.before_in(self.cx, txn, None, Some(row), &stays)? {
                Some(new) => row = new,
                None => return Ok(None),
            }
        }
        self.constraints.generate(self.relation, &mut row, env)?;
        Ok(Some(row))
    }

    /// Inserts `row` (made by [`RowRule::new_row`]) at once and queues its
    /// AFTER ROW triggers.
    pub fn insert_row(
        &self,
        txn: &mut Transaction,
        row: Vec<Value>,
        env: &Env<'_>,
    ) -> Result<(), SqlError> {
        let after = self.triggers.map(|_| row.clone());
        self.constraints.insert(txn, self.relation, row, env)?;
        if let (Some(triggers), Some(row)) = (self.triggers, after) {
            triggers.after(self.cx, txn, None, Some(&row))?;
        }
        Ok(())
    }

    /// `old` with `assignments` evaluated over `seen` (the row the
    /// statement's expressions see) in `env`, coerced to the columns'
    /// types: what an UPDATE writes, before its triggers. (The caller
    /// lends the transaction to the expressions' calls and subqueries.)
    pub fn assigned(
        &self,
        old: &[Value],
        assignments: &[(usize, Scalar)],
        seen: &[Value],
        env: &Env<'_>,
    ) -> Result<Vec<Value>, SqlError> {
        let mut new = old.to_vec();
        for (c, value) in assignments {
            new[*c] = types::assign(value.eval(seen, env)?, self.relation.types[*c])?;
        }
        Ok(new)
    }

    /// Updates the row `old` at `tid` to `new` ([`RowRule::assigned`]):
    /// the heap's write, and the new row when it was written and
    /// `keep_new` (a RETURNING reads it); `None` when a BEFORE ROW trigger
    /// skipped the row.
    pub fn update_row(
        &self,
        txn: &mut Transaction,
        mut new: Vec<Value>,
        (tid, old): (folio_db::Tid, &[Value]),
        keep_new: bool,
        env: &Env<'_>,
    ) -> Result<Option<Updated>, SqlError> {
        let relation = self.relation;
        if let Some(triggers) = self.triggers {
            if let Some(moved) = self.lock_before_triggers(txn, tid)? {
                return Ok(Some((moved, None)));
            }
            let stays = |row: &[Value]| self.constraints.stays(row);
            match triggers.before_in(self.cx, txn, Some(old), Some(new), &stays)? {
                Some(row) => new = row,
                None => return Ok(None),
            }
        }
        self.constraints.generate(relation, &mut new, env)?;
        // A row moving to another partition is deleted here (its BEFORE
        // and AFTER DELETE triggers, no AFTER UPDATE ones) and inserted
        // through the partitioned table (`Change::Parts`), as PostgreSQL
        // 15's.
        let moving = match self.triggers {
            Some(triggers) if self.constraints.moves_out(&new)? => Some(triggers.moving()),
            _ => None,
        };
        if let Some(Some(deletes)) = moving
            && deletes.before(self.cx, txn, Some(old), None)?.is_none()
        {
            return Ok(None);
        }
        // (Copied only for whoever reads it after the write.)
        let written = (keep_new || self.triggers.is_some()).then(|| new.clone());
        let write = (self.constraints.update(txn, relation, tid, old, new, env))
            .map_err(|e| self.refused(e))?;
        if !matches!(write, folio_db::Write::Done(_) | folio_db::Write::Hot(_)) {
            return Ok(Some((write, None)));
        }
        match (self.triggers, &written, moving) {
            (_, _, Some(Some(deletes))) => deletes.after(self.cx, txn, Some(old), None)?,
            (Some(triggers), Some(written), None) => {
                triggers.after(self.cx, txn, Some(old), Some(written))?
            }
            _ => {}
        }
        Ok(Some((write, written)))
    }

    /// Before a row's BEFORE ROW triggers fire, the row at `tid` is
    /// locked, as PostgreSQL's `GetTupleForTrigger` locks it: a row
    /// changed by a concurrent transaction comes back `Moved` (or `Gone`)
    /// before any trigger ran, so the caller follows it to its newest
    /// version and the triggers fire once, on the version written. `None`
    /// when the row is locked (or there is no BEFORE ROW trigger).
    fn lock_before_triggers(
        &self,
        txn: &mut Transaction,
        tid: folio_db::Tid,
    ) -> Result<Option<folio_db::Write>, SqlError> {
        if !self.triggers.is_some_and(Triggers::has_before_row) {
            return Ok(None);
        }
        let locked = (self.relation.table)
            .lock(txn, tid)
            .map_err(folio_catalog::CatalogError::from)?;
        Ok(match locked {
            folio_db::Write::Done(_) | folio_db::Write::Hot(_) => None,
            other => Some(other),
        })
    }

    /// `e` as this row change reports it: the heap's 27000 for a row
    /// version the statement's BEFORE triggers changed names the update
    /// or the delete; a MERGE's names both, as PostgreSQL's.
    fn refused(&self, e: SqlError) -> SqlError {
        if !self.merge || e.code != "27000" {
            return e;
        }
        SqlError {
            hint: e.hint,
            ..SqlError::new(
                "27000",
                "tuple to be updated or deleted was already modified by an operation triggered by the current command",
            )
        }
    }

    /// Deletes the row `row` at `tid`: the heap's write, `None` when a
    /// BEFORE ROW trigger skipped the row.
    pub fn delete_row(
        &self,
        txn: &mut Transaction,
        tid: folio_db::Tid,
        row: &[Value],
        env: &Env<'_>,
    ) -> Result<Option<folio_db::Write>, SqlError> {
        let Some(triggers) = self.triggers else {
            return self
                .constraints
                .delete(txn, self.relation, tid, row, env)
                .map(Some);
        };
        if let Some(moved) = self.lock_before_triggers(txn, tid)? {
            return Ok(Some(moved));
        }
        if triggers.before(self.cx, txn, Some(row), None)?.is_none() {
            return Ok(None);
        }
        let write = (self.constraints.delete(txn, self.relation, tid, row, env))
            .map_err(|e| self.refused(e))?;
        if matches!(write, folio_db::Write::Done(_) | folio_db::Write::Hot(_)) {
            triggers.after(self.cx, txn, Some(row), None)?;
        }
        Ok(Some(write))
    }
}

pub(crate) fn returning(
    scope: &Scope,
    items: Option<&[SelectItem]>,
) -> Result<Returning, SqlError> {
    let Some(items) = items else {
        return Ok(None);
    };
    for item in items {
        if let SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. } = item {
            crate::project_set::refuse(e, "RETURNING")?;
        }
    }
    let (items, columns) = query::projection(scope, items)?;
    let types = items.iter().map(|s| s.ty_in(scope)).collect();
    Ok(Some((items, columns, types)))
}

pub(crate) fn project(
    items: &[Scalar],
    row: &[Value],
    env: &Env<'_>,
) -> Result<Vec<Value>, SqlError> {
    items.iter().map(|s| s.eval(row, env)).collect()
}

/// The statement's output: its tag, with the RETURNING rows if any.
pub(crate) fn finish(
    returning: &Returning,
    rows: Vec<Vec<Value>>,
    tag: String,
) -> Result<Output, SqlError> {
    Ok(match returning {
        Some((_, columns, _)) => Output::Rows {
            columns: columns.clone(),
            rows,
            tag,
            style: None,
        },
        None => Output::Command { tag },
    })
}
