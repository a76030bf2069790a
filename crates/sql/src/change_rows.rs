//! The rows an `UPDATE` or `DELETE` changes, and the row its expressions
//! (SET, WHERE, RETURNING) see.
//!
//! - Without other items, the target's rows that the table's plan finds
//!   (`plan.rs`); the expressions see the target's row.
//! - With them (`UPDATE t SET ... FROM a, b WHERE ...`, `DELETE FROM t
//!   USING a, b WHERE ...`), the join of the other items and the target,
//!   planned and run as a SELECT's FROM clause (`from.rs`) with the target
//!   as its last item, whose rows carry their tuple ids
//!   (`Source::Table::tid`). The expressions see the joined row: the other
//!   items' columns, then the target's. A target row the join meets
//!   several times is changed once, with the first joined row it met
//!   (PostgreSQL: with one of them, unspecified).
//!
//! A target row another transaction changed meanwhile is followed to its
//! newest version (`scan::write_newest_where`), which is changed if the
//! WHERE still holds over it: with the other items' values it was joined
//! to, as PostgreSQL's EvalPlanQual re-checks the join with the other
//! items' rows it had.
//!
//! A statement that names a system column (`system_columns.rs`) gives the
//! target (and the other tables) their system columns after their own:
//! the expressions see them after the target's columns, and the row
//! written is the target's columns alone ([`Selected::system`]). A newer
//! version re-checked, and an UPDATE's RETURNING, see the system columns
//! of the version the statement found (PostgreSQL's those of the newer
//! or new version).

use crate::access;
use crate::context::Ctx;
use crate::error::SqlError;
use crate::from::{self, FromClause, Scope, ScopeTable, Source, SourceCounts};
use crate::plan::{self, Request, ScanPlan};
use crate::scalar::{self, Env, Scalar};
use crate::scan;
use folio_catalog::Relation;
use folio_db::{Tid, Transaction};
use folio_row::{SqlType, Value};
use sqlparser::ast::{Expr, TableWithJoins};
use std::borrow::Cow;
use std::collections::HashSet;
use std::sync::Arc;

/// How a change finds its rows.
pub enum Rows {
    /// The target's rows the plan finds; `filter` (the WHERE's
    /// conjuncts, over the target's row) re-checked on a newer version.
    Scan {
        filter: Vec<Scalar>,
        scan: Box<ScanPlan>,
        /// The target's row's column types (its system columns' too).
        types: Vec<SqlType>,
    },
    /// The join of the other items and the target.
    Joined(Box<Joined>),
    /// `WHERE CURRENT OF cursor` (`cursors/current_of.rs`): the row the
    /// cursor stands on, if it is the target's, in the version the
    /// transaction sees; `filter` (other conjuncts: a policy's) tested on
    /// it.
    Current {
        cursor: String,
        filter: Vec<Scalar>,
        /// The target's row's column types (its system columns' too).
        types: Vec<SqlType>,
        /// The statement names a system column.
        system: bool,
    },
}

/// The join of a change's other items and its target.
pub struct Joined {
    /// The other items, then the target, whose rows end with their tuple
    /// id.
    source: Source,
    /// The WHERE's conjuncts over the joined row, re-checked on a newer
    /// version of a target row.
    recheck: Vec<Scalar>,
    /// The joined row's column types.
    types: Vec<SqlType>,
    /// The target's system columns after its own (0 or all of them).
    system: usize,
    /// The joined row's scope (EXPLAIN names its columns by it).
    scope: Scope,
}

/// A target row to change: its tuple id, its values, and the other items'
/// values it was joined to (none without other items).
pub struct Selected {
    pub tid: Tid,
    pub row: Vec<Value>,
    pub others: Vec<Value>,
    /// The version's system columns, when the statement names one
    /// (`system_columns.rs`), else empty.
    pub system: Vec<Value>,
}

/// A joined row of [`Rows::pairs`]: the other items' values, and the
/// target row they met, if any.
pub type Pair = (Vec<Value>, Option<Met>);

/// A target row a joined row met: the leaf partition holding it (a
/// partitioned target's, by oid; `None` for a table's own row), its tuple
/// id and its values.
pub struct Met {
    pub leaf: Option<u64>,
    pub tid: Tid,
    pub row: Vec<Value>,
}

/// A change's target and the scope its expressions bind in.
pub struct Target<'a> {
    /// The table's name in the catalog.
    pub name: String,
    pub relation: Arc<Relation>,
    /// The columns the expressions see (the target's, or the joined row's:
    /// `*` stands for the target's columns first, as PostgreSQL's
    /// RETURNING).
    pub scope: Scope,
    /// The FROM clause of the other items and the target, if any.
    clause: Option<FromClause<'a>>,
}

/// The FROM list that finds the rows of a change of `table` with `others`
/// (FROM or USING): the others, then the target.
pub fn joined_list(table: &TableWithJoins, others: &[TableWithJoins]) -> Vec<TableWithJoins> {
    let mut list = others.to_vec();
    list.push(table.clone());
    list
}

impl<'a> Target<'a> {
    /// Notes that the change needs `privilege` on its target (an
    /// UPDATE's on the columns it sets, `set`: column privileges may
    /// grant it), and SELECT on the target's columns its expressions read
    /// (SET values, WHERE, RETURNING: the scope records them as they are
    /// bound), if any, as PostgreSQL asks.
    pub fn note(&mut self, cx: &Ctx<'_>, privilege: crate::privileges::Bits, set: &[usize]) {
        let (def, name) = (&self.relation.def, &self.name);
        // (A MERGE's UPDATE, whose columns are not given, is the
        // table's.)
        match privilege {
            crate::privileges::UPDATE if !set.is_empty() => {
                let uses = crate::privileges::note_columns(cx, def, name, "table", privilege);
                set.iter().for_each(|&c| uses.record(c));
            }
            _ => crate::privileges::note(cx, def.oid, name, "table", privilege),
        }
        // (With other items, the target's scan noted its own SELECT.)
        if let Some(target) = self.scope.tables.last_mut()
            && target.uses.is_none()
        {
            let select = crate::privileges::SELECT;
            let uses = crate::privileges::note_columns_if_read(cx, def, name, select);
            target.uses = Some(uses);
        }
    }

    /// The name the target's columns are qualified with (its alias, else
    /// its name): its table is the last of the scope's.
    pub fn qualifier(&self) -> &str {
        self.scope
            .tables
            .last()
            .map_or("", |t| t.qualifier.as_str())
    }

    /// Resolves the target `table` and, when the change has other items,
    /// `list` ([`joined_list`]). The target is a plain table (a view is
    /// 0A000, as `access::table` says); a FROM item of the target's name
    /// is PostgreSQL's 42712.
    pub fn resolve(
        cx: &Ctx<'_>,
        txn: &Transaction,
        table: &TableWithJoins,
        list: Option<&'a [TableWithJoins]>,
        system: bool,
    ) -> Result<Target<'a>, SqlError> {
        let (name, qualifier, relation) = access::table(cx, txn, table)?;
        let Some(list) = list else {
            let target = ScopeTable::of_relation(qualifier, &relation, 0, system);
            let scope = Scope::of(vec![target]);
            return Ok(Target {
                name,
                relation,
                scope,
                clause: None,
            });
        };
        // The target's policies go into the statement's WHERE
        // (`row_security::restrict`), not around its scan.
        cx.row_security_inside.borrow_mut().push(relation.def.oid);
        let resolved = from::resolve(cx, txn, list, None, system);
        cx.row_security_inside.borrow_mut().pop();
        let mut clause = resolved?;
        clause.tid_of_last = true;
        if relation.def.partition_key().is_some() {
            clause.leaves_of_last(cx, txn, &relation)?;
        }
        let mut scope = clause.scope.clone();
        scope.star_first(scope.tables.len() - 1);
        Ok(Target {
            name,
            relation,
            scope,
            clause: Some(clause),
        })
    }

    /// How many system columns follow the target's own in the row the
    /// expressions see.
    pub fn system(&self) -> usize {
        self.scope.tables.last().map_or(0, |t| t.system)
    }

    /// Plans how the rows where `selection` holds are found.
    pub fn rows(self, cx: &Ctx<'_>, selection: Option<&Expr>) -> Result<Rows, SqlError> {
        if let (Some(cursor), rest) = crate::cursors::current_of::split(selection) {
            if self.clause.is_some() {
                // (PostgreSQL's grammar allows it; its planner cannot
                // join a TID scan of the cursor's row to other items.)
                return Err(SqlError::unsupported("WHERE CURRENT OF with FROM or USING"));
            }
            let filter = match &rest {
                Some(e) => scalar::bind(e, &self.scope)?.conjuncts(),
                None => Vec::new(),
            };
            return Ok(Rows::Current {
                cursor,
                filter,
                types: self.scope.types(),
                system: self.scope.tables[0].system > 0,
            });
        }
        let filter = match selection {
            Some(e) => scalar::bind(e, &self.scope)?.conjuncts(),
            None => Vec::new(),
        };
        let Some(clause) = self.clause else {
            let scan = plan::plan(Request {
                relation: &self.relation,
                filter: filter.clone(),
                order: Vec::new(),
                reads: None,
                system: self.scope.tables[0].system > 0,
                sample: None,
                settings: cx.settings,
            })?;
            let types = self.scope.types();
            return Ok(Rows::Scan {
                filter,
                scan: Box::new(scan),
                types,
            });
        };
        let system = self.scope.tables.last().map_or(0, |t| t.system);
        let (source, _) = clause.plan(cx, selection, None, Vec::new())?;
        Ok(Rows::Joined(Box::new(Joined {
            source,
            recheck: filter,
            types: self.scope.types(),
            system,
            scope: self.scope,
        })))
    }
}

/// What finding a change's rows did, for EXPLAIN ANALYZE
/// (`explain_change.rs`).
#[derive(Debug)]
pub enum FindCounts {
    Scan(scan::ScanCounts),
    Joined(SourceCounts),
}

impl Rows {
    /// The rows to change, each target row once, and what finding them
    /// did.
    pub fn selected(
        &self,
        txn: &mut Transaction,
        relation: &Relation,
        env: &Env<'_>,
    ) -> Result<(Vec<Selected>, FindCounts), SqlError> {
        match self {
            Rows::Scan { scan, .. } => {
                let (found, counts) = scan::run(txn, relation, scan, env)?;
                let width = relation.types.len();
                let selected = found
                    .into_iter()
                    .map(|(tid, mut row)| Selected {
                        tid: tid.expect("a plan reading every column has tuple ids"),
                        system: row.split_off(width),
                        row,
                        others: Vec::new(),
                    })
                    .collect();
                Ok((selected, FindCounts::Scan(counts)))
            }
            Rows::Joined(joined) => {
                let width = relation.types.len();
                let mut seen = HashSet::new();
                let mut out = Vec::new();
                let mut counts = SourceCounts::default();
                joined.source.visit(txn, env, &mut counts, |joined_row| {
                    let (values, tid) = joined_row.split_at(joined_row.len() - 1);
                    let tid = from::tid_of(&tid[0]);
                    if seen.insert(tid) {
                        let (values, system) = values.split_at(values.len() - joined.system);
                        let (others, row) = values.split_at(values.len() - width);
                        out.push(Selected {
                            tid,
                            row: row.to_vec(),
                            others: others.to_vec(),
                            system: system.to_vec(),
                        });
                    }
                    Ok(())
                })?;
                Ok((out, FindCounts::Joined(counts)))
            }
            Rows::Current {
                cursor,
                filter,
                system,
                ..
            } => {
                let found = current_version(txn, relation, cursor, *system)?;
                let mut out = Vec::new();
                if let Some(selected) = found
                    && scan::accepts(filter, &seen(&[], &selected.row, &selected.system), env)?
                {
                    out.push(selected);
                }
                let counts = scan::ScanCounts::default();
                Ok((out, FindCounts::Scan(counts)))
            }
        }
    }

    /// Every row of the join, in its order (a MERGE's, `merge.rs`): the
    /// other items' values and the target row they met with its tuple id,
    /// none when an outer join NULL-extended the target; a target row as
    /// often as the join meets it. (Without other items: each row.)
    pub fn pairs(
        &self,
        txn: &mut Transaction,
        relation: &Relation,
        env: &Env<'_>,
    ) -> Result<Vec<Pair>, SqlError> {
        let Rows::Joined(joined) = self else {
            let (selected, _) = self.selected(txn, relation, env)?;
            return Ok((selected.into_iter())
                .map(|s| {
                    let met = Met {
                        leaf: None,
                        tid: s.tid,
                        row: s.row,
                    };
                    (s.others, Some(met))
                })
                .collect());
        };
        assert_eq!(joined.system, 0, "a MERGE reads no system columns");
        let width = relation.types.len();
        let mut out = Vec::new();
        let mut counts = SourceCounts::default();
        joined.source.visit(txn, env, &mut counts, |joined_row| {
            let (values, tid) = joined_row.split_at(joined_row.len() - 1);
            let (others, row) = values.split_at(values.len() - width);
            let target = match &tid[0] {
                Value::Null => None,
                at => {
                    let (leaf, tid) = from::row_at(at);
                    Some(Met {
                        leaf,
                        tid,
                        row: row.to_vec(),
                    })
                }
            };
            out.push((others.to_vec(), target));
            Ok(())
        })?;
        Ok(out)
    }

    /// Whether `newer`, a newer version of a target row joined to
    /// `others` (and with the `system` columns found), still satisfies the
    /// WHERE.
    pub fn qualifies(
        &self,
        others: &[Value],
        newer: &[Value],
        system: &[Value],
        env: &Env<'_>,
    ) -> Result<bool, SqlError> {
        let seen = seen(others, newer, system);
        match self {
            Rows::Scan { filter, .. } | Rows::Current { filter, .. } => {
                scan::accepts(filter, &seen, env)
            }
            Rows::Joined(joined) => scan::accepts(&joined.recheck, &seen, env),
        }
    }

    /// The join that finds the rows and its row's scope, if the change
    /// has other items (for EXPLAIN).
    pub fn joined(&self) -> Option<(&Source, &Scope)> {
        match self {
            Rows::Scan { .. } | Rows::Current { .. } => None,
            Rows::Joined(joined) => Some((&joined.source, &joined.scope)),
        }
    }

    /// The types of the row the expressions see.
    pub fn row_types(&self) -> &[SqlType] {
        match self {
            Rows::Scan { types, .. } | Rows::Current { types, .. } => types,
            Rows::Joined(joined) => &joined.types,
        }
    }

    /// Notes the types its parameters take.
    pub fn param_types(&self, types: &mut [Option<SqlType>]) {
        match self {
            Rows::Scan {
                filter,
                types: row_types,
                ..
            }
            | Rows::Current {
                filter,
                types: row_types,
                ..
            } => filter.iter().for_each(|s| s.param_types(row_types, types)),
            Rows::Joined(joined) => {
                joined.source.param_types(types);
                joined
                    .recheck
                    .iter()
                    .for_each(|s| s.param_types(&joined.types, types));
            }
        }
    }

    /// The relations the join reads (none but the target's without it).
    pub fn relations(&self) -> Vec<&Arc<Relation>> {
        match self {
            Rows::Scan { .. } | Rows::Current { .. } => Vec::new(),
            Rows::Joined(joined) => joined.source.relations(),
        }
    }
}

/// The row the expressions see: the other items' values, then the
/// target's `row`, then its `system` columns (if the statement names one).
pub fn seen<'r>(others: &[Value], row: &'r [Value], system: &[Value]) -> Cow<'r, [Value]> {
    if others.is_empty() && system.is_empty() {
        return Cow::Borrowed(row);
    }
    let mut joined = Vec::with_capacity(others.len() + row.len() + system.len());
    joined.extend_from_slice(others);
    joined.extend_from_slice(row);
    joined.extend_from_slice(system);
    Cow::Owned(joined)
}

/// The row cursor `cursor` stands on, if it is `relation`'s, in the
/// version `txn` sees (`cursors/current_of.rs`), with its system columns
/// if the statement names one (`system`).
fn current_version(
    txn: &Transaction,
    relation: &Relation,
    cursor: &str,
    system: bool,
) -> Result<Option<Selected>, SqlError> {
    let store = crate::cursors::current().ok_or_else(|| crate::cursors::missing(cursor))?;
    let Some(tid) = store.cursors.current_row(cursor, relation)? else {
        return Ok(None);
    };
    let Some((tid, bytes)) = crate::cursors::current_of::latest_visible(txn, relation, tid)? else {
        return Ok(None);
    };
    let row = relation.decode(txn, &bytes)?;
    let mut columns = Vec::new();
    if system {
        crate::system_columns::Filler::of(relation)?.append(relation, tid, &mut columns)?;
    }
    Ok(Some(Selected {
        tid,
        row,
        others: Vec::new(),
        system: columns,
    }))
}
