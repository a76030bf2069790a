//! Deferred constraint checks: the foreign key and deferrable key checks
//! a transaction keeps for its COMMIT, and `SET CONSTRAINTS`.
//!
//! - **What waits.** A check of a `DEFERRABLE` foreign key whose mode in
//!   the transaction is deferred (`INITIALLY DEFERRED`, or `SET
//!   CONSTRAINTS ... DEFERRED`): that a new or changed referencing row
//!   finds its referenced row, and (NO ACTION only: RESTRICT is checked
//!   when the statement ends, and CASCADE acts at once, as PostgreSQL's)
//!   that no row references a key a delete or update removed. The row
//!   change is made at once; `Constraints::end_statement`, which checks the
//!   statement's changes, puts such a check in [`Pending`] instead. So
//!   does a check of a `DEFERRABLE` PRIMARY KEY or UNIQUE constraint's
//!   index that took a possible duplicate ([`Queued::Unique`]; design:
//!   README "Deferred constraints").
//! - **When it runs.** At COMMIT ([`at_commit`], before the temporary
//!   tables' `ON COMMIT` actions), in the order the checks were queued;
//!   the first failure is the COMMIT's error (23503) and the transaction
//!   rolls back. `SET CONSTRAINTS ... IMMEDIATE` runs the queued checks
//!   of the constraints it names at once ([`set_constraints`]). Outside
//!   a block a statement is its transaction, so its deferred checks run
//!   when it ends.
//! - **What a check sees** (`Constraints::check_queued`): the constraint
//!   as the catalog has it then (dropped: nothing to check); a
//!   referencing row by its newest version (updated since: checked as it
//!   is; deleted since: not checked); a removed key that the table holds
//!   again references nothing missing.
//! - **Savepoints.** A savepoint keeps a [`Mark`]: `ROLLBACK TO` drops the
//!   checks queued since, makes the ones run since wait again (as
//!   PostgreSQL does for a rolled-back `SET CONSTRAINTS ... IMMEDIATE`)
//!   and puts the modes back. The transaction's end forgets everything.
//! - **DDL.** A table with queued checks cannot be altered, dropped or
//!   truncated in the same transaction (55006, PostgreSQL's `pending
//!   trigger events`), so a check never meets a rewritten table.

use crate::access;
use crate::constraints::Constraints;
use crate::context::Ctx;
use crate::error::SqlError;
use crate::output::{Notice, Output};
use folio_catalog::{ConstraintDef, Deferrable, Relation, UniqueRecheck};
use folio_db::{Tid, Transaction};
use folio_row::Value;
use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::Arc;

/// A check waiting for the end of its transaction.
#[derive(Debug, Clone)]
pub enum Queued {
    /// The referencing row written at `tid` references an existing row
    /// (its newest version: the transaction may change it again).
    References { tid: Tid },
    /// No row references the key of the referenced row `old`, which a
    /// delete or an update of the key removed.
    Removed { old: Vec<Value> },
    /// A deferrable PRIMARY KEY or UNIQUE constraint's index took a
    /// possible duplicate: its key has no other live row.
    Unique(UniqueRecheck),
}

/// A queued check and where it belongs.
#[derive(Debug, Clone)]
struct Entry {
    /// The table whose row change made it (catalog name): the referencing
    /// table of a `References`, the referenced one of a `Removed`.
    table: String,
    /// The foreign key's oid.
    constraint: u64,
    check: Queued,
    /// The run that checked it (`SET CONSTRAINTS ... IMMEDIATE`), if one
    /// did.
    fired: Option<u64>,
}

/// The modes `SET CONSTRAINTS` gave (PostgreSQL's per-transaction
/// trigger state): `ALL`'s, and those of constraints named since.
#[derive(Debug, Clone, Default)]
struct Modes {
    all: Option<bool>,
    /// Constraint oid, deferred.
    named: Vec<(u64, bool)>,
}

#[derive(Debug, Default)]
struct State {
    queue: Vec<Entry>,
    modes: Modes,
    /// Runs of queued checks so far (the ids in [`Entry::fired`]).
    runs: u64,
}

/// A transaction's deferred checks and constraint modes (one per session;
/// emptied when its transaction ends).
#[derive(Debug, Default)]
pub struct Pending {
    state: RefCell<State>,
}

/// Where a savepoint was: what `ROLLBACK TO` it goes back to.
#[derive(Debug, Clone)]
pub struct Mark {
    queued: usize,
    runs: u64,
    modes: Modes,
}

impl Pending {
    /// Whether a check of constraint `constraint` waits for the end of the
    /// transaction now.
    pub fn defers(&self, constraint: u64, deferrable: Deferrable) -> bool {
        if !deferrable.is_deferrable() {
            return false;
        }
        let state = self.state.borrow();
        let named = state
            .modes
            .named
            .iter()
            .rev()
            .find(|(c, _)| *c == constraint);
        match (named, state.modes.all) {
            (Some(&(_, deferred)), _) => deferred,
            (None, Some(deferred)) => deferred,
            (None, None) => deferrable.initially_deferred(),
        }
    }

    /// Queues `check` of constraint `constraint`, made by a row change of
    /// table `table`.
    pub fn push(&self, table: &str, constraint: u64, check: Queued) {
        self.state.borrow_mut().queue.push(Entry {
            table: table.to_string(),
            constraint,
            check,
            fired: None,
        });
    }

    /// Whether checks made by row changes of table `table` wait.
    pub fn waits_on(&self, table: &str) -> bool {
        (self.state.borrow().queue.iter()).any(|e| e.fired.is_none() && e.table == table)
    }

    /// Where the transaction is, for a savepoint.
    pub fn mark(&self) -> Mark {
        let state = self.state.borrow();
        Mark {
            queued: state.queue.len(),
            runs: state.runs,
            modes: state.modes.clone(),
        }
    }

    /// `ROLLBACK TO` the savepoint that took `mark`.
    pub fn rollback_to(&self, mark: &Mark) {
        let mut state = self.state.borrow_mut();
        state.queue.truncate(mark.queued);
        for entry in &mut state.queue {
            if entry.fired.is_some_and(|run| run > mark.runs) {
                entry.fired = None;
            }
        }
        state.modes = mark.modes.clone();
    }

    /// The transaction ended (committed or not).
    pub fn clear(&self) {
        *self.state.borrow_mut() = State::default();
    }

    /// Whether no check waits.
    pub fn is_empty(&self) -> bool {
        self.state.borrow().queue.iter().all(|e| e.fired.is_some())
    }
}

/// Runs the waiting checks of the constraints `which` accepts, in the
/// order they were queued: the first failure is the error.
fn run_checks(
    cx: &Ctx<'_>,
    txn: &mut Transaction,
    which: impl Fn(u64) -> bool,
) -> Result<(), SqlError> {
    let chosen: Vec<Entry> = {
        let mut state = cx.deferred.state.borrow_mut();
        state.runs += 1;
        let run = state.runs;
        let mut chosen = Vec::new();
        for entry in &mut state.queue {
            if entry.fired.is_none() && which(entry.constraint) {
                entry.fired = Some(run);
                chosen.push(entry.clone());
            }
        }
        chosen
    };
    // Each table bound once (`None`: dropped since, with its schema: its
    // rows and keys are gone, nothing is left to check).
    let mut bound: HashMap<String, Option<(Arc<Relation>, Constraints)>> = HashMap::new();
    for entry in chosen {
        if !bound.contains_key(&entry.table) {
            let found = match access::relation(cx, txn, &entry.table) {
                Ok(relation) => {
                    let constraints = Constraints::bind(cx, txn, &relation)?;
                    Some((relation, constraints))
                }
                Err(e) if e.code == "42P01" => None,
                Err(e) => return Err(e),
            };
            bound.insert(entry.table.clone(), found);
        }
        if let Some((relation, constraints)) = &bound[&entry.table] {
            constraints.check_queued(txn, relation, entry.constraint, &entry.check)?;
        }
    }
    Ok(())
}

/// COMMIT: every waiting check runs (an error fails the commit).
pub fn at_commit(cx: &Ctx<'_>, txn: &mut Transaction) -> Result<(), SqlError> {
    if cx.deferred.is_empty() {
        return Ok(());
    }
    // (Rows the transaction's last statement wrote count.)
    txn.next_statement();
    run_checks(cx, txn, |_| true)
}

/// `SET CONSTRAINTS { ALL | name [, ...] } { DEFERRED | IMMEDIATE }`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SetConstraints {
    /// The names, each with its schema if written; `None`: ALL.
    pub names: Option<Vec<(Option<String>, String)>>,
    pub deferred: bool,
}

/// Runs `SET CONSTRAINTS` in the transaction: the modes set, and with
/// IMMEDIATE the waiting checks of the constraints named run now. A name
/// without a schema means the constraints of that name in the first
/// schema of the search path that has one; 42704 if none has, 42809 for
/// DEFERRED of one that is not deferrable (a CHECK, a key, a foreign key
/// declared `NOT DEFERRABLE`), as PostgreSQL. `in_block` false: the
/// statement is its own transaction, so PostgreSQL's 25P01 warning, and
/// nothing it sets outlives it.
pub fn set_constraints(
    cx: &Ctx<'_>,
    txn: &mut Transaction,
    notices: &mut Vec<Notice>,
    set: &SetConstraints,
    in_block: bool,
) -> Result<Output, SqlError> {
    if !in_block {
        notices.push(Notice::outside_block("SET CONSTRAINTS"));
    }
    let Some(names) = &set.names else {
        {
            let mut state = cx.deferred.state.borrow_mut();
            state.modes = Modes {
                all: Some(set.deferred),
                named: Vec::new(),
            };
        }
        if !set.deferred {
            run_checks(cx, txn, |_| true)?;
        }
        return Ok(Output::command("SET CONSTRAINTS"));
    };
    let tables = cx.db.catalog().tables(txn)?;
    let all = all_constraints(&tables);
    let path = crate::schemas::SearchPath::of(cx, txn)?;
    let parents = crate::partitions::index_tree::parents(&tables);
    let mut chosen: Vec<u64> = Vec::new();
    for (schema, bare) in names {
        let in_schema = |schema: &str| -> Vec<&Named> {
            (all.iter())
                .filter(|c| c.name == *bare && c.schema == schema)
                .collect()
        };
        let found = match &schema {
            Some(schema) => in_schema(schema),
            None => (path.schemas().iter())
                .map(|s| in_schema(s))
                .find(|found| !found.is_empty())
                .unwrap_or_default(),
        };
        if found.is_empty() {
            return Err(SqlError::new(
                "42704",
                format!("constraint \"{bare}\" does not exist"),
            ));
        }
        for c in found {
            match c.deferrable {
                // A partitioned table's key is its partitions' keys too.
                true if c.index => {
                    chosen.push(c.oid);
                    chosen.extend(crate::partitions::index_tree::descendants(&parents, c.oid));
                }
                true => chosen.push(c.oid),
                false if set.deferred => {
                    return Err(SqlError::new(
                        "42809",
                        format!("constraint \"{bare}\" is not deferrable"),
                    ));
                }
                false => {}
            }
        }
    }
    {
        let mut state = cx.deferred.state.borrow_mut();
        for &oid in &chosen {
            state.modes.named.retain(|(c, _)| *c != oid);
            state.modes.named.push((oid, set.deferred));
        }
    }
    if !set.deferred {
        run_checks(cx, txn, |c| chosen.contains(&c))?;
    }
    Ok(Output::command("SET CONSTRAINTS"))
}

/// A constraint `SET CONSTRAINTS` may name.
struct Named {
    oid: u64,
    schema: String,
    name: String,
    deferrable: bool,
    /// A key (its index's oid), not a CHECK or foreign key.
    index: bool,
}

/// Every named constraint of every table: its CHECKs and foreign keys
/// (`folio.constraint` rows) and its keys (indexes).
fn all_constraints(tables: &[folio_catalog::TableDef]) -> Vec<Named> {
    let mut out = Vec::new();
    for table in tables {
        let schema = folio_catalog::split_schema(&table.name).0.to_string();
        let named = |c: &ConstraintDef| !c.name.is_empty();
        for c in table.constraints.iter().filter(|c| named(c)) {
            out.push(Named {
                oid: c.oid,
                schema: schema.clone(),
                name: c.name.clone(),
                deferrable: c.deferrable.is_deferrable(),
                index: false,
            });
        }
        for index in table.indexes.iter().filter(|i| i.constraint) {
            out.push(Named {
                oid: index.oid,
                schema: schema.clone(),
                name: folio_catalog::unqualified(&index.name).to_string(),
                deferrable: index.deferrable.is_deferrable(),
                index: true,
            });
        }
    }
    out
}

/// 55006 if `table` (a catalog name) has checks waiting, for a statement
/// (`ALTER TABLE`, `DROP TABLE`, `TRUNCATE`) that would change what they
/// read, as PostgreSQL refuses it.
pub fn refuse_if_waiting(cx: &Ctx<'_>, table: &str, command: &str) -> Result<(), SqlError> {
    if !cx.deferred.waits_on(table) {
        return Ok(());
    }
    Err(waiting(table, command))
}

/// 55006 for `TRUNCATE ... CASCADE` while any table has checks waiting
/// (it may empty tables it does not name; folio does not work out which
/// before it runs, so it refuses whenever one waits, naming it).
pub fn refuse_cascading_truncate(cx: &Ctx<'_>) -> Result<(), SqlError> {
    let state = cx.deferred.state.borrow();
    match state.queue.iter().find(|e| e.fired.is_none()) {
        Some(entry) => Err(waiting(&entry.table, "TRUNCATE")),
        None => Ok(()),
    }
}

fn waiting(table: &str, command: &str) -> SqlError {
    SqlError::new(
        "55006",
        format!(
            "cannot {command} \"{}\" because it has pending trigger events",
            folio_catalog::unqualified(table)
        ),
    )
}
