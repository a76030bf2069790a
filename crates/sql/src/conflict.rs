//! `INSERT ... ON CONFLICT [(columns)] DO NOTHING | DO UPDATE SET ...
//! [WHERE ...]`: a row whose insert meets a unique index's existing key
//! is skipped, or the existing row is updated with expressions over it and
//! `excluded` (the row proposed for insertion), as PostgreSQL's.
//!
//! The insert is tried first (folio-catalog's unique check waits for a
//! running inserter of the same key, as PostgreSQL's does, and a refused
//! insert leaves nothing behind). On 23505 the existing row is found
//! through the conflict target's unique index (READ COMMITTED: with a new
//! snapshot, as it may have committed after the statement's) and updated;
//! if it changed meanwhile the insert is tried again, a few times, then
//! 40001 (at once under REPEATABLE READ, which cannot see it). DO UPDATE
//! meeting a row version the statement itself inserted or updated (two
//! proposed rows with one key) is PostgreSQL's 21000 `ON CONFLICT DO
//! UPDATE command cannot affect row a second time`: the statement keeps
//! the versions it wrote ([`Fire::written`]).
//!
//! Into a partitioned table, a row is routed to its leaf partition first
//! and everything above happens there, in the leaf's index for the
//! target's ([`Arbiter`]); DO UPDATE may not move the row to another
//! partition (0A000, README "Partitioned tables").
//!
//! Under REPEATABLE READ and SERIALIZABLE, DO NOTHING skips a row only
//! for an existing key its snapshot sees (its own, or committed before
//! it); a key committed by a transaction the snapshot does not see is
//! 40001, as PostgreSQL's `ExecCheckTIDVisible`: skipping the row would
//! act on a row the transaction cannot read.

use crate::conflict_target::Target;
use crate::constraints::{Constraints, Written};
use crate::context::Ctx;
use crate::dml::PerRow;
use crate::error::SqlError;
use crate::from::{Scope, ScopeTable};
use crate::names;
use crate::partitions::column_map::{self, ColumnMap};
use crate::scalar::{self, Columns, Env, Scalar};
use crate::scan;
use crate::subquery::Subplan;
use crate::triggers::{Event, Triggers};
use crate::types;
use folio_catalog::Relation;
use folio_db::{Transaction, Write};
use folio_row::{SqlType, Value};
use sqlparser::ast::{AssignmentTarget, DoUpdate, OnConflict, OnConflictAction};
use std::cell::RefCell;
use std::collections::HashSet;

/// How often a conflicting row is looked for before giving up (40001).
const ATTEMPTS: usize = 8;

/// A planned ON CONFLICT clause.
pub struct Conflict {
    /// The unique indexes the target names or infers, by position
    /// (`None`: every one, DO NOTHING only; `conflict_target.rs`).
    arbiters: Option<Vec<usize>>,
    action: Action,
}

enum Action {
    Nothing,
    /// Assignments and the WHERE clause, over the existing row followed
    /// by `excluded` (the proposed row).
    Update {
        assignments: Vec<(usize, Scalar)>,
        filter: Vec<Scalar>,
        /// The row-level security checks of the existing row (its
        /// UPDATE and SELECT policies' USING, over its columns):
        /// PostgreSQL's 42501 `... (USING expression)` for one it fails.
        existing: Vec<crate::constraints::PolicyCheck>,
    },
}

/// The existing row's columns, then `excluded`'s: an unqualified name is
/// the table's (as in PostgreSQL, `excluded` must be named).
struct ConflictScope<'a> {
    relation: &'a Relation,
    /// The table's name or alias.
    qualifier: &'a str,
}

impl Columns for ConflictScope<'_> {
    fn resolve(&self, name: &str) -> Result<(usize, SqlType), SqlError> {
        self.relation.resolve(name)
    }

    fn type_at(&self, position: usize) -> SqlType {
        self.relation.types[position % self.relation.types.len()]
    }

    fn resolve_qualified(&self, qualifier: &str, name: &str) -> Result<(usize, SqlType), SqlError> {
        let (c, ty) = self.relation.resolve(name)?;
        match qualifier {
            // The table itself named `excluded` (no alias): either.
            "excluded" if self.qualifier == "excluded" => Err(SqlError::new(
                "42P09",
                "table reference \"excluded\" is ambiguous",
            )),
            "excluded" => Ok((self.relation.types.len() + c, ty)),
            q if q == self.qualifier => Ok((c, ty)),
            q => Err(SqlError::new(
                "42P01",
                format!("missing FROM-clause entry for table \"{q}\""),
            )),
        }
    }
}

/// Plans the clause for inserts into `relation` (named `qualifier`); the
/// subqueries of DO UPDATE's SET and WHERE are planned onto the end of
/// the statement's `subplans` (over the existing row and `excluded`:
/// [`Fire::per_row`] runs them).
pub fn plan(
    relation: &Relation,
    qualifier: &str,
    (cx, txn, on, subplans): (&Ctx<'_>, &Transaction, &OnConflict, &mut Vec<Subplan>),
    constraints: &crate::constraints::Constraints,
) -> Result<Conflict, SqlError> {
    let arbiters = match Target::of(on.conflict_target.as_ref())? {
        Target::Any => None,
        Target::Infer {
            elements,
            predicate,
        } => Some(crate::conflict_target::infer(
            relation,
            &elements,
            predicate.as_deref(),
        )?),
        Target::Constraint(name) => {
            let name = names::relation(&name)?;
            Some(vec![
                relation
                    .indexes
                    .iter()
                    // (A unique index that is no constraint's is not one,
                    // as PostgreSQL's.)
                    .position(|ri| ri.def.unique && ri.def.constraint && ri.def.name == name)
                    .ok_or_else(|| {
                        SqlError::new(
                            "42704",
                            format!(
                                "constraint \"{name}\" for table \"{}\" does not exist",
                                relation.def.name
                            ),
                        )
                    })?,
            ])
        }
    };
    let action = match &on.action {
        OnConflictAction::DoNothing => Action::Nothing,
        OnConflictAction::DoUpdate(update) => {
            if arbiters.is_none() {
                return Err(SqlError::syntax(
                    "ON CONFLICT DO UPDATE requires inference specification or constraint name",
                ));
            }
            let scope = ConflictScope {
                relation,
                qualifier,
            };
            // `SET (a, b) = ...` as one item per column (`row_assignments.rs`).
            let mut update = match crate::row_assignments::expand_update(&update.assignments)? {
                Some(assignments) => DoUpdate {
                    assignments,
                    selection: update.selection.clone(),
                },
                None => update.clone(),
            };
            let both = Scope::of(vec![
                ScopeTable::of_relation(qualifier.to_string(), relation, 0, false),
                ScopeTable::of_relation("excluded".into(), relation, relation.types.len(), false),
            ]);
            let first = subplans.len();
            let exprs = (update.assignments.iter_mut().map(|a| &mut a.value))
                .chain(update.selection.as_mut())
                .collect();
            subplans.extend(crate::subquery::extract(cx, txn, exprs, &both, first)?);
            let mut assignments = Vec::with_capacity(update.assignments.len());
            let mut by_field = crate::field_assignment::FieldTargets::default();
            for a in &update.assignments {
                let AssignmentTarget::ColumnName(column) = &a.target else {
                    return Err(SqlError::unsupported(
                        "ON CONFLICT DO UPDATE of a column tuple",
                    ));
                };
                let (column, fields, first) = crate::field_assignment::split(column)?;
                let c = relation.resolve(&column)?.0;
                if !fields.is_empty() {
                    constraints.check_given(relation, c, true, None)?;
                    let target = (c, fields.as_slice(), first.span.start);
                    let (value, base) = (&a.value, Scalar::Column(c));
                    by_field.add(relation, target, value, base, &scope, &mut assignments)?;
                    continue;
                }
                crate::dml::refuse_repeated(relation, c, &assignments)?;
                let value = match crate::dml::is_default(&a.value) {
                    true => constraints.default_of(c)?,
                    false => {
                        constraints.check_given(relation, c, true, None)?;
                        crate::assignment::bind(relation, c, &a.value, &scope)?
                    }
                };
                assignments.push((c, value));
            }
            let filter = match &update.selection {
                Some(e) => scalar::bind(e, &scope)?.conjuncts(),
                None => Vec::new(),
            };
            note_update_needs(cx, relation, arbiters.as_deref(), &assignments, &filter);
            Action::Update {
                assignments,
                filter,
                existing: Vec::new(),
            }
        }
    };
    Ok(Conflict { arbiters, action })
}

/// DO UPDATE's privileges on the table, which column privileges may
/// grant (PostgreSQL's): UPDATE of the columns SET assigns, SELECT of the
/// arbiter index's columns and of those SET's values and WHERE read (of
/// the existing row or `excluded`; a subquery's outer references aside).
fn note_update_needs(
    cx: &Ctx<'_>,
    relation: &Relation,
    arbiters: Option<&[usize]>,
    assignments: &[(usize, Scalar)],
    filter: &[Scalar],
) {
    use crate::privileges;
    let (def, name) = (&relation.def, relation.def.name.as_str());
    let updated = privileges::note_columns(cx, def, name, "table", privileges::UPDATE);
    assignments.iter().for_each(|(c, _)| updated.record(*c));
    let read = privileges::note_columns_if_read(cx, def, name, privileges::SELECT);
    let mut columns = Vec::new();
    for a in arbiters.unwrap_or_default() {
        let index = &relation.indexes[*a].def;
        (index.columns.iter())
            .filter(|&&c| c != folio_catalog::IndexDef::EXPRESSION)
            .for_each(|&c| columns.push(usize::from(c)));
    }
    assignments
        .iter()
        .for_each(|(_, value)| value.columns(&mut columns));
    filter.iter().for_each(|e| e.columns(&mut columns));
    let width = relation.types.len();
    columns.into_iter().for_each(|c| read.record(c % width));
}

impl Conflict {
    /// DO UPDATE's row-level security checks of the existing row it
    /// meets (`row_security::using_checks`), judged after its WHERE and
    /// before its SET, as PostgreSQL's; the new row's are the statement's
    /// constraints' (`Written::Updated`).
    pub fn with_existing_checks(mut self, checks: Vec<crate::constraints::PolicyCheck>) -> Self {
        if let Action::Update { existing, .. } = &mut self.action {
            existing.extend(checks);
        }
        self
    }
}

/// Where a row's conflict is looked for: the table it is inserted into
/// (a leaf, for a partitioned table), its constraints and the target's
/// unique index there.
struct Arbiter<'a> {
    relation: &'a Relation,
    constraints: &'a Constraints,
    arbiters: Option<Vec<usize>>,
    /// The statement's table's columns to `relation`'s, when a leaf's are
    /// in another order (`partitions/column_map.rs`).
    map: Option<ColumnMap>,
}

/// The row triggers an INSERT ... ON CONFLICT fires (`triggers.rs`): its
/// BEFORE INSERT triggers have run before [`Conflict::insert`]; the AFTER
/// INSERT ones are queued for a row inserted, the UPDATE ones fire for a
/// conflicting row DO UPDATE changes, as PostgreSQL's.
pub struct Fire<'a, 'c> {
    pub cx: &'a Ctx<'c>,
    pub inserts: Option<&'a Triggers>,
    pub updates: Option<&'a Triggers>,
    /// The row versions the statement has inserted or updated so far,
    /// by table oid (a partitioned table's rows are in its leaves; DO
    /// UPDATE only): one of them met again is PostgreSQL's 21000.
    pub written: &'a RefCell<HashSet<(u64, folio_db::Tid)>>,
    /// What the statement lends DO UPDATE's SET and WHERE (their
    /// subqueries, PL/pgSQL calls).
    pub per_row: PerRow<'a>,
}

impl Fire<'_, '_> {
    /// Whether the row version at `tid` (the conflicting row found) was
    /// inserted or made by an update of the statement itself or of one
    /// of its BEFORE triggers: PostgreSQL's lock finds it invisible to the
    /// statement's command (21000).
    fn wrote_row(
        &self,
        txn: &Transaction,
        relation: &Relation,
        tid: folio_db::Tid,
    ) -> Result<bool, SqlError> {
        if self.written.borrow().contains(&(relation.def.oid, tid)) {
            return Ok(true);
        }
        if !crate::triggers::any_later(&[self.inserts, self.updates]) {
            return Ok(false);
        }
        let header = (relation.table.header(tid)).map_err(folio_catalog::CatalogError::from)?;
        Ok(header.is_some_and(|h| txn.changed_by_triggers(h.xmin)))
    }
}

impl Conflict {
    /// EXPLAIN's lines for the clause on `relation` (named `label` in the
    /// statement): PostgreSQL's `Conflict Resolution`, `Conflict Arbiter
    /// Indexes` (where it names a target) and DO UPDATE's `Conflict
    /// Filter`, over the existing row (`label.column`) and `excluded`.
    pub fn explain_lines(&self, relation: &Relation, label: &str) -> Vec<String> {
        let word = match self.action {
            Action::Nothing => "NOTHING",
            Action::Update { .. } => "UPDATE",
        };
        let mut lines = vec![format!("Conflict Resolution: {word}")];
        if let Some(arbiters) = &self.arbiters {
            let names: Vec<&str> = (arbiters.iter())
                .map(|&i| folio_catalog::unqualified(&relation.indexes[i].def.name))
                .collect();
            lines.push(format!("Conflict Arbiter Indexes: {}", names.join(", ")));
        }
        if let Action::Update { filter, .. } = &self.action
            && !filter.is_empty()
        {
            let qualifier = label.rsplit(' ').next().unwrap_or(label);
            let names: Vec<String> = (relation.def.columns.iter())
                .map(|c| format!("{qualifier}.{}", c.name))
                .chain((relation.def.columns.iter()).map(|c| format!("excluded.{}", c.name)))
                .collect();
            let types: Vec<SqlType> = relation.types.repeat(2);
            let text = crate::explain::conjunction(filter, &names, &types);
            lines.push(format!("Conflict Filter: {text}"));
        }
        lines
    }

    /// The UPDATE triggers of a DO UPDATE on `relation` (its SET columns
    /// for `UPDATE OF`), if it has any.
    pub fn triggers(&self, relation: &Relation) -> Result<Option<Triggers>, SqlError> {
        match &self.action {
            Action::Update { assignments, .. } => {
                let set: Vec<usize> = assignments.iter().map(|(c, _)| *c).collect();
                Triggers::of_statement(relation, Event::Update, &set)
            }
            _ => Ok(None),
        }
    }

    /// Inserts `values`, or applies the clause if it meets an existing key:
    /// the row inserted or updated (`None`: skipped). A partitioned
    /// table's row is routed to its leaf first, and the conflict looked
    /// for there, in the leaf's index for the target's (README
    /// "Partitioned tables", ON CONFLICT).
    pub fn insert(
        &self,
        txn: &mut Transaction,
        relation: &Relation,
        constraints: &Constraints,
        values: Vec<Value>,
        env: &Env<'_>,
        fire: &Fire<'_, '_>,
    ) -> Result<Option<Vec<Value>>, SqlError> {
        let at = match constraints.leaf(&values)? {
            None => Arbiter {
                relation,
                constraints,
                arbiters: self.arbiters.clone(),
                map: None,
            },
            Some((leaf, leaf_constraints, map)) => Arbiter {
                relation: leaf,
                constraints: leaf_constraints,
                arbiters: (self.arbiters.as_ref())
                    .map(|all| {
                        (all.iter())
                            .map(|&i| leaf_index(relation, i, leaf, map.as_ref()))
                            .collect::<Result<_, _>>()
                    })
                    .transpose()?,
                map,
            },
        };
        self.insert_into(txn, constraints, at, values, env, fire)
    }

    /// [`Conflict::insert`] into the table `at` names (the statement's
    /// when it is not partitioned, else the leaf of it the row goes to;
    /// `root_constraints`: the statement's table's).
    fn insert_into(
        &self,
        txn: &mut Transaction,
        root_constraints: &Constraints,
        at: Arbiter<'_>,
        values: Vec<Value>,
        env: &Env<'_>,
        fire: &Fire<'_, '_>,
    ) -> Result<Option<Vec<Value>>, SqlError> {
        let Arbiter {
            relation,
            constraints,
            arbiters,
            map,
        } = at;
        let arbiters = arbiters.as_deref();
        // `values`, the row as the statement's table's, and in its
        // leaf's column order (the same row unless they differ).
        let map = map.as_ref();
        // A row routed to a leaf partition is judged by the statement's
        // table's policies (the leaf's constraints have none).
        let routed = !std::ptr::eq(constraints, root_constraints);
        if routed {
            fire.per_row.lend(txn, env, |env| {
                root_constraints.judge_policies(Written::Inserted, &values, env)
            })?;
        }
        let stored = column_map::down(map, values.clone());
        refuse_deferrable(relation, arbiters)?;
        for attempt in 0..ATTEMPTS {
            let index = match constraints.insert(txn, relation, stored.clone(), env) {
                Ok(tid) => {
                    if routed {
                        // (And by the check options of the views over
                        // it, after the leaf's constraints.)
                        fire.per_row.lend(txn, env, |env| {
                            root_constraints.judge_view_checks(&values, env)
                        })?;
                    }
                    if matches!(self.action, Action::Update { .. }) {
                        fire.written.borrow_mut().insert((relation.def.oid, tid));
                    }
                    if let Some(triggers) = fire.inserts {
                        triggers.after(fire.cx, txn, None, Some(&values))?;
                    }
                    return Ok(Some(values));
                }
                Err(e) if e.code == "23505" => match arbiter_of(relation, arbiters, &e) {
                    Some(index) => index,
                    // Another unique index reported its duplicate first;
                    // PostgreSQL checks the arbiters before it inserts.
                    None => match conflicting_arbiter(txn, relation, arbiters, &stored)? {
                        Some(index) => Some(index),
                        None => return Err(e),
                    },
                },
                Err(e) => return Err(e),
            };
            if attempt == 0 {
                crate::explain_change::note_conflict(fire.cx, self);
            }
            let Action::Update {
                assignments,
                filter,
                existing,
            } = &self.action
            else {
                if txn.isolation() != folio_db::Isolation::ReadCommitted
                    && !sees_a_conflict(txn, relation, arbiters, &stored)?
                {
                    return Err(concurrent_update());
                }
                return Ok(None);
            };
            // (DO UPDATE has arbiters, so the index is known; the row
            // conflicted in it, so it has an entry there.)
            let Some(index) = index else {
                return Ok(None);
            };
            let Some(key) = relation.indexes[index].key_values(&stored)? else {
                return Ok(None);
            };
            // READ COMMITTED looks with a new snapshot (the conflicting row
            // may have committed after the statement's); REPEATABLE READ
            // cannot see it: 40001, as PostgreSQL.
            let look = |txn: &mut Transaction| {
                if txn.isolation() == folio_db::Isolation::ReadCommitted {
                    txn.with_latest_snapshot(|txn| relation.lookup(txn, index, &key))
                } else {
                    relation.lookup(txn, index, &key)
                }
            };
            let found = look(txn)?;
            let Some((tid, old_stored)) = found.into_iter().next() else {
                // A row another part of the statement inserted, which its
                // reads do not see (`modifying_cte.rs`): PostgreSQL's
                // lock finds it invisible to the statement's command.
                if !txn.as_of_command(None, look)?.is_empty() {
                    return Err(second_time());
                }
                if txn.isolation() != folio_db::Isolation::ReadCommitted {
                    break;
                }
                // Not visible even now (its inserter rolled back, or a
                // concurrent delete): try the insert again.
                continue;
            };
            if fire.wrote_row(txn, relation, tid)? {
                return Err(second_time());
            }
            let old = column_map::up(map, old_stored.clone());
            let mut both = old.clone();
            both.extend(values.iter().cloned());
            // (Its WHERE and SET may call PL/pgSQL functions and hold
            // correlated subqueries: `PerRow` lends them the transaction.)
            let new = fire.per_row.lend(txn, env, |env| {
                if !scan::accepts(filter, &both, env)? {
                    return Ok(None);
                }
                for (table, policy, condition) in existing {
                    if condition.eval(&old, env)? != Value::Bool(true) {
                        let policy = policy.as_deref();
                        return Err(crate::row_security::conflict_violation(table, policy));
                    }
                }
                let mut new = old.clone();
                for (c, value) in assignments {
                    let ty = relation.types[map.map_or(*c, |m| m.child_position(*c))];
                    new[*c] = types::assign(value.eval(&both, env)?, ty)?;
                }
                Ok(Some(new))
            })?;
            let Some(mut new) = new else {
                return Ok(None);
            };
            if let Some(triggers) = fire.updates {
                match triggers.before(fire.cx, txn, Some(&old), Some(new))? {
                    Some(row) => new = row,
                    None => return Ok(None),
                }
            }
            if routed {
                fire.per_row.lend(txn, env, |env| {
                    root_constraints.judge_policies(Written::Updated, &new, env)
                })?;
            }
            let mut new_stored = column_map::down(map, new);
            constraints.generate(relation, &mut new_stored, env)?;
            let new = match map {
                None => new_stored.clone(),
                Some(_) => column_map::up(map, new_stored.clone()),
            };
            if root_constraints.moves_row(relation, &new)? {
                return Err(SqlError::new("0A000", "invalid ON UPDATE specification").with_detail(
                    "The result tuple would appear in a different partition than the original tuple.",
                ));
            }
            match constraints.update(txn, relation, tid, &old_stored, new_stored, env)? {
                written @ (Write::Done(_) | Write::Hot(_)) => {
                    let new_tid = match written {
                        Write::Hot(at) | Write::Done(Some(at)) => Some(at),
                        _ => None,
                    };
                    (fire.written.borrow_mut()).extend(new_tid.map(|at| (relation.def.oid, at)));
                    if routed {
                        fire.per_row.lend(txn, env, |env| {
                            root_constraints.judge_view_checks(&new, env)
                        })?;
                    }
                    if let Some(triggers) = fire.updates {
                        triggers.after(fire.cx, txn, Some(&old), Some(&new))?;
                    }
                    return Ok(Some(new));
                }
                // Changed by another part of the statement, whose writes
                // its reads do not see (`modifying_cte.rs`): skipped, as
                // PostgreSQL's update of a row its command updated.
                Write::Gone if changed_by_statement(txn, relation, tid)? => return Ok(None),
                // Changed meanwhile: start over from the insert.
                Write::Gone | Write::Moved(_) => continue,
            }
        }
        Err(concurrent_update())
    }
}

/// Whether the version at `tid` was deleted or replaced by this
/// transaction itself, in a write its reads hide now.
fn changed_by_statement(
    txn: &Transaction,
    relation: &Relation,
    tid: folio_db::Tid,
) -> Result<bool, SqlError> {
    let header = (relation.table.header(tid)).map_err(folio_catalog::CatalogError::from)?;
    Ok(header
        .and_then(|h| h.deleter())
        .is_some_and(|xid| txn.is_mine(xid) && txn.hides(xid)))
}

/// 55000 if an index the clause arbitrates in `relation` (`arbiters`;
/// without them, every unique index) is a deferrable constraint's, whose
/// duplicates an insert does not report: PostgreSQL's error, raised as it
/// is when a row is inserted (none, none raised).
fn refuse_deferrable(relation: &Relation, arbiters: Option<&[usize]>) -> Result<(), SqlError> {
    let arbitrating = (relation.indexes.iter().enumerate())
        .filter(|(i, ri)| ri.def.unique && arbiters.is_none_or(|all| all.contains(i)));
    match arbitrating.map(|(_, ri)| ri).find(|ri| ri.def.deferrable.is_deferrable()) {
        None => Ok(()),
        Some(ri) => Err(SqlError::new(
            "55000",
            "ON CONFLICT does not support deferrable unique constraints/exclusion constraints as arbiters",
        )
        .with_constraint(&relation.def.name, folio_catalog::unqualified(&ri.def.name))),
    }
}

/// Whether the clause handles the unique violation `e` in `relation`,
/// and the index it is in (as the error names it): any unique index's
/// without a target, else an arbiter's only (a duplicate in another
/// unique index is an error, as PostgreSQL's).
fn arbiter_of(
    relation: &Relation,
    arbiters: Option<&[usize]>,
    e: &SqlError,
) -> Option<Option<usize>> {
    let violated =
        (relation.indexes.iter()).position(|ri| e.constraint() == Some(ri.def.name.as_str()));
    match (arbiters, violated) {
        (None, violated) => Some(violated),
        (Some(all), Some(i)) if all.contains(&i) => Some(Some(i)),
        _ => None,
    }
}

/// The first of `arbiters` in `relation` holding a row (committed, for
/// READ COMMITTED, or seen by the snapshot) with one of `values`' keys.
fn conflicting_arbiter(
    txn: &mut Transaction,
    relation: &Relation,
    arbiters: Option<&[usize]>,
    values: &[Value],
) -> Result<Option<usize>, SqlError> {
    for &i in arbiters.unwrap_or_default() {
        let ri = &relation.indexes[i];
        let Some(key) = ri.key_values(values)? else {
            continue;
        };
        if !ri.checks_unique(&key) {
            continue;
        }
        let found = if txn.isolation() == folio_db::Isolation::ReadCommitted {
            txn.with_latest_snapshot(|txn| relation.lookup(txn, i, &key))?
        } else {
            relation.lookup(txn, i, &key)?
        };
        if !found.is_empty() {
            return Ok(Some(i));
        }
    }
    Ok(None)
}

/// Whether `txn`'s snapshot sees a row holding one of `values`' keys in
/// `relation`'s unique indexes `arbiters` (none: in any unique index).
fn sees_a_conflict(
    txn: &mut Transaction,
    relation: &Relation,
    arbiters: Option<&[usize]>,
    values: &[Value],
) -> Result<bool, SqlError> {
    for (i, ri) in relation.indexes.iter().enumerate() {
        if arbiters.is_some_and(|all| !all.contains(&i)) {
            continue;
        }
        // Not a unique index, no entry in it, or a key with a NULL:
        // nothing conflicts.
        let Some(key) = ri.key_values(values)? else {
            continue;
        };
        if ri.checks_unique(&key) && !relation.lookup(txn, i, &key)?.is_empty() {
            return Ok(true);
        }
    }
    Ok(false)
}

/// The index of leaf partition `leaf` that enforces partitioned table
/// `parent`'s unique index `index` in it: the one over the same columns
/// and expressions, with the same predicate (every partition gets one when
/// it is made or attached, `partitions/ddl.rs` `attach_def`).
fn leaf_index(
    parent: &Relation,
    index: usize,
    leaf: &Relation,
    map: Option<&ColumnMap>,
) -> Result<usize, SqlError> {
    let wanted = &parent.indexes[index].def;
    let columns = column_map::positions_in(map, &wanted.columns);
    (leaf.indexes.iter())
        .position(|ri| {
            ri.def.unique
                && ri.def.columns == columns
                && ri.def.exprs.keys == wanted.exprs.keys
                && ri.def.exprs.predicate == wanted.exprs.predicate
        })
        .ok_or_else(|| {
            SqlError::new(
                "XX000",
                format!(
                    "partition \"{}\" has no index for \"{}\"",
                    leaf.def.name, wanted.name
                ),
            )
        })
}

/// PostgreSQL's 21000: DO UPDATE met a row version the statement or
/// one of its BEFORE triggers wrote.
fn second_time() -> SqlError {
    SqlError::new(
        "21000",
        "ON CONFLICT DO UPDATE command cannot affect row a second time",
    )
    .with_hint(
        "Ensure that no rows proposed for insertion within the same command have duplicate constrained values.",
    )
}

/// PostgreSQL's error for an ON CONFLICT that meets a row its snapshot
/// cannot see, or one that keeps changing.
fn concurrent_update() -> SqlError {
    SqlError::new(
        "40001",
        "could not serialize access due to concurrent update",
    )
}
