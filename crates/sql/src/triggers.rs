//! Firing triggers (README "Triggers"): the one place a statement that
//! changes a table's rows fires them, [`Triggers`]. (The statements that
//! make, drop and enable them are `trigger_statements.rs`'s.)
//!
//! A statement that writes rows asks [`Triggers::of_statement`] once for
//! its table's enabled triggers of its event, row and statement ones;
//! `None` (the common case: one scan of the statement's trigger list, no
//! allocation) and it writes as before. Otherwise
//! [`Triggers::start_statement`] runs the BEFORE STATEMENT triggers; per
//! row, [`Triggers::before`] runs the BEFORE ROW triggers in name order
//! (each sees the row as the one before left it; NULL skips the row), the
//! row is written, and [`Triggers::after`] queues it for the AFTER ROW
//! triggers, which [`Triggers::end_statement`] runs in row order once
//! every row is written, as PostgreSQL's queue of after-row events, then
//! the AFTER STATEMENT triggers.
//!
//! A statement that reads the rows it changes (UPDATE, DELETE, MERGE,
//! INSERT ... SELECT, INSERT ... ON CONFLICT) runs in [`one_command`]
//! when it has BEFORE triggers: their writes are then a later command's,
//! as in PostgreSQL (README "Triggers", "Later commands").

use crate::context::Ctx;
use crate::error::SqlError;
use crate::modifying_cte::Produced;
use crate::plpgsql::parse::Sql;
use crate::plpgsql::{TriggerCall, call_trigger, trigger_condition};
use folio_catalog::{
    Relation, TRIGGER_BEFORE, TRIGGER_DELETE, TRIGGER_INSERT, TRIGGER_INSTEAD, TRIGGER_ROW,
    TRIGGER_TRUNCATE, TRIGGER_UPDATE, TriggerDef,
};
use folio_db::{Transaction, Triggered};
use folio_row::{SqlType, Value};
use std::cell::{Cell, RefCell};
use std::sync::Arc;

thread_local! {
    /// How many trigger functions are running on this thread, one inside
    /// another (`pg_trigger_depth()`).
    static DEPTH: Cell<u32> = const { Cell::new(0) };
    /// The number of the last row queued for AFTER ROW triggers on this
    /// thread: the order rows queued by several [`Triggers`] (a
    /// partitioned table's partitions) fire in ([`after_rows_in_order`]).
    static QUEUED: Cell<u64> = const { Cell::new(0) };
    /// The tables whose trigger functions are running on this thread,
    /// innermost last: each is in use by the statement that fired the
    /// trigger ([`refuse_in_use`]).
    static IN_USE: RefCell<Vec<u64>> = const { RefCell::new(Vec::new()) };
}

/// `command` (`ALTER TABLE`, `CREATE INDEX`) of table `def`, run by a
/// trigger function while a statement of this session that fired a
/// trigger on the table is still running: PostgreSQL's 55006, as its
/// `CheckTableNotInUse` refuses changing a relation an active query has
/// open.
pub fn refuse_in_use(def: &folio_catalog::TableDef, command: &str) -> Result<(), SqlError> {
    if !IN_USE.with(|t| t.borrow().contains(&def.oid)) {
        return Ok(());
    }
    Err(SqlError::new(
        "55006",
        format!(
            "cannot {command} \"{}\" because it is being used by active queries in this session",
            folio_catalog::unqualified(&def.name)
        ),
    ))
}

/// `pg_trigger_depth()`: the trigger functions running, one inside
/// another (0 outside any), as PostgreSQL counts them (a WHEN condition
/// is judged outside the function).
pub fn depth() -> u32 {
    DEPTH.with(Cell::get)
}

/// Runs trigger function `function` for `call`, counted in [`depth`],
/// its notices the statement's.
fn run_function(
    cx: &Ctx<'_>,
    txn: &mut Transaction,
    function: &folio_catalog::FunctionDef,
    call: &TriggerCall<'_>,
) -> Result<Option<Vec<Value>>, SqlError> {
    struct Nested;
    impl Drop for Nested {
        fn drop(&mut self) {
            DEPTH.with(|d| d.set(d.get() - 1));
            IN_USE.with(|t| t.borrow_mut().pop());
        }
    }
    DEPTH.with(|d| d.set(d.get() + 1));
    IN_USE.with(|t| t.borrow_mut().push(call.table_oid));
    let _nested = Nested;
    let mut notices = Vec::new();
    // (Timed only under EXPLAIN ANALYZE of a row change.)
    let started = crate::explain_change::counting(cx).then(std::time::Instant::now);
    let returned = match crate::builtin_triggers::run(function, call) {
        Some(returned) => returned,
        None => call_trigger(cx, txn, &mut notices, function, call),
    };
    if let Some(started) = started {
        crate::explain_change::note_trigger(cx, call.table_oid, call.name, started.elapsed());
    }
    cx.raised.borrow_mut().extend(notices);
    returned
}

/// Every trigger in scope (`object_scope.rs`), by table oid then name.
pub fn in_scope() -> Arc<Vec<TriggerDef>> {
    crate::object_scope::with(|lists| lists.map(|l| l.triggers.clone()).unwrap_or_default())
}

/// Whether a trigger in scope is `wanted`.
fn any_in_scope(wanted: impl Fn(&TriggerDef) -> bool) -> bool {
    crate::object_scope::with(|lists| lists.is_some_and(|l| l.triggers.iter().any(wanted)))
}

/// Whether table `table`'s foreign key triggers are disabled (`ALTER
/// TABLE ... DISABLE TRIGGER ALL`; folio-catalog `triggers.rs`): its
/// foreign keys' checks of its rows, and the actions of foreign keys
/// that reference it, are off.
pub fn foreign_keys_disabled(table: u64) -> bool {
    (in_scope().iter()).any(|t| t.table == table && t.is_internal())
}

/// What a row change does to its row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Event {
    Insert,
    Update,
    Delete,
    /// `TRUNCATE` (statement triggers only).
    Truncate,
}

impl Event {
    fn bit(self) -> u16 {
        match self {
            Event::Insert => TRIGGER_INSERT,
            Event::Update => TRIGGER_UPDATE,
            Event::Delete => TRIGGER_DELETE,
            Event::Truncate => TRIGGER_TRUNCATE,
        }
    }

    fn word(self) -> &'static str {
        match self {
            Event::Insert => "INSERT",
            Event::Update => "UPDATE",
            Event::Delete => "DELETE",
            Event::Truncate => "TRUNCATE",
        }
    }
}

/// Whether view `view` has an enabled INSTEAD OF trigger of `event`
/// (its statement triggers alone do not make the change theirs).
pub fn fires_instead(view: u64, event: Event) -> bool {
    any_in_scope(|t| t.kind & TRIGGER_INSTEAD != 0 && fires(t, view, event))
}

/// Whether view `view` declares an INSTEAD OF trigger of `event`,
/// enabled or not (`information_schema.views`' `is_trigger_*`, which
/// read `pg_trigger.tgtype` alone).
pub fn declares_instead(view: u64, event: Event) -> bool {
    let wanted = TRIGGER_ROW | TRIGGER_INSTEAD | event.bit();
    any_in_scope(|t| t.table == view && t.kind & wanted == wanted)
}

/// Whether table `table` has an enabled trigger (row or statement) of
/// `event`: the one test a statement makes when it has none.
pub fn fires_any(table: u64, event: Event) -> bool {
    any_in_scope(|t| fires(t, table, event))
}

fn fires(t: &TriggerDef, table: u64, event: Event) -> bool {
    t.table == table
        && t.enabled.fires(crate::setting_functions::replica())
        && t.kind & event.bit() != 0
}

/// A trigger bound for one statement: its function's body parsed.
struct Bound {
    def: TriggerDef,
    /// The trigger function (its body kept by the session's plan cache).
    function: folio_catalog::FunctionDef,
    when: Option<Sql>,
    /// `UPDATE OF` columns, by position.
    columns: Vec<usize>,
}

impl Bound {
    fn has_transition_tables(&self) -> bool {
        self.def.old_table.is_some() || self.def.new_table.is_some()
    }
}

/// A row whose AFTER triggers wait for the statement's end: the index of
/// each trigger (in `after`) that is to fire for it.
struct Queued {
    /// Its place among the rows queued on the thread ([`QUEUED`]).
    seq: u64,
    fire: Vec<usize>,
    old: Option<Vec<Value>>,
    new: Option<Vec<Value>>,
}

/// The enabled triggers of one statement's event on its table.
pub struct Triggers {
    event: Event,
    table_oid: u64,
    table: String,
    schema: String,
    columns: Vec<(String, SqlType)>,
    /// An UPDATE's SET columns (`UPDATE OF` fires for them).
    set: Vec<usize>,
    /// Row triggers, BEFORE and AFTER.
    before: Vec<Bound>,
    after: Vec<Bound>,
    /// Statement triggers, BEFORE and AFTER.
    before_statement: Vec<Bound>,
    after_statement: Vec<Bound>,
    queue: RefCell<Vec<Queued>>,
    /// An AFTER trigger reads transition tables: every written row is
    /// kept, its old version and its new.
    transitions: bool,
    old_rows: RefCell<Vec<Vec<Value>>>,
    new_rows: RefCell<Vec<Vec<Value>>>,
    /// Set while the statement runs in [`one_command`]: its BEFORE
    /// triggers run as later commands.
    command: Cell<Option<Triggered>>,
    /// An UPDATE of a partition through its partitioned table: the
    /// partition's DELETE row triggers, which a row moved out of it fires
    /// instead of the UPDATE's AFTER ones ([`Triggers::of_update_part`]).
    moving: Option<Box<Triggers>>,
}

/// Runs `statement`, the part of a statement that reads and writes its
/// rows, with its BEFORE triggers' writes told apart from its own
/// (`Transaction::with_triggers`), as PostgreSQL's later command ids tell
/// them: the BEFORE STATEMENT and BEFORE ROW triggers of `sets` (the
/// statement's, one per event) that run inside it write as a later
/// command, its reads through [`unseen`] do not see those writes, and a
/// row version they changed is PostgreSQL's 27000 when the statement
/// comes to change it. Without BEFORE triggers, `statement` as it is.
pub fn one_command<T>(
    txn: &mut Transaction,
    sets: &[Option<&Triggers>],
    statement: impl FnOnce(&mut Transaction) -> Result<T, SqlError>,
) -> Result<T, SqlError> {
    let sets: Vec<&Triggers> = (sets.iter().flatten())
        .flat_map(|t| [Some(*t), t.moving.as_deref()])
        .flatten()
        .collect();
    if let Some(command) = sets.iter().find_map(|t| t.command.get()) {
        // A partition's part of a change of its partitioned table: the
        // parent's command is the statement's (`dml.rs` `Parts`).
        sets.iter().for_each(|t| t.command.set(Some(command)));
        return statement(txn);
    }
    if !sets.iter().any(|t| t.has_before()) {
        return statement(txn);
    }
    txn.with_triggers(|txn, command| {
        sets.iter().for_each(|t| t.command.set(Some(command)));
        let out = statement(txn);
        sets.iter().for_each(|t| t.command.set(None));
        out
    })
}

/// Whether the statement whose triggers are `sets` runs in
/// [`one_command`] (its BEFORE triggers' writes are a later command's).
pub fn any_later(sets: &[Option<&Triggers>]) -> bool {
    sets.iter().flatten().any(|t| t.command.get().is_some())
}

/// Runs `read` (the statement's scan, join or query) not seeing what the
/// BEFORE triggers of the statement whose triggers are `sets` wrote, as
/// PostgreSQL's scan reads with the statement's command id. Outside
/// [`one_command`], `read` as it is.
pub fn unseen<T>(
    txn: &mut Transaction,
    sets: &[Option<&Triggers>],
    read: impl FnOnce(&mut Transaction) -> T,
) -> T {
    match sets.iter().flatten().find_map(|t| t.command.get()) {
        Some(command) => txn.before_triggers(command, read),
        None => read(txn),
    }
}

impl Triggers {
    /// The triggers of `event` on `relation` (`set`: an UPDATE's SET
    /// columns), or `None` if it has none: the only cost a statement pays
    /// for triggers when its table has none.
    pub fn of_statement(
        relation: &Relation,
        event: Event,
        set: &[usize],
    ) -> Result<Option<Triggers>, SqlError> {
        let def = &relation.def;
        if !fires_any(def.oid, event) {
            return Ok(None);
        }
        Triggers::of_target(def.oid, &def.name, columns_of(relation), event, set)
    }

    /// [`Triggers::of_statement`], or, for a partition's `part` of a
    /// change of its partitioned table, its row triggers only: the
    /// statement ones that fire are the partitioned table's (PostgreSQL's).
    pub fn of_part(
        relation: &Relation,
        event: Event,
        set: &[usize],
        part: bool,
    ) -> Result<Option<Triggers>, SqlError> {
        let triggers = Triggers::of_statement(relation, event, set)?;
        Ok(match part {
            false => triggers,
            true => triggers.and_then(|mut t| {
                t.before_statement.clear();
                t.after_statement.clear();
                t.transitions = t.after.iter().any(Bound::has_transition_tables);
                t.has_row_triggers().then_some(t)
            }),
        })
    }

    /// [`Triggers::of_part`] for an UPDATE of partition `relation`
    /// (`set`: its SET columns); when a row may move out of it (`moves`:
    /// the UPDATE is its partitioned table's), also the partition's
    /// DELETE row triggers ([`Triggers::moving`]), even if it has no
    /// UPDATE triggers.
    pub fn of_update_part(
        relation: &Relation,
        set: &[usize],
        part: bool,
        moves: bool,
    ) -> Result<Option<Triggers>, SqlError> {
        let update = Triggers::of_part(relation, Event::Update, set, part)?;
        if !moves {
            return Ok(update);
        }
        let Some(deletes) = Triggers::of_part(relation, Event::Delete, &[], true)? else {
            return Ok(update);
        };
        let mut update = match update {
            Some(update) => update,
            None => {
                let def = &relation.def;
                Triggers::new(def.oid, &def.name, columns_of(relation), Event::Update, set)
            }
        };
        update.moving = Some(Box::new(deletes));
        Ok(Some(update))
    }

    /// The DELETE row triggers a row an UPDATE moves out of its partition
    /// fires (PostgreSQL 15: BEFORE and AFTER DELETE on the partition it
    /// leaves, then INSERT's on the one it enters; no AFTER UPDATE).
    pub fn moving(&self) -> Option<&Triggers> {
        self.moving.as_deref()
    }

    /// These triggers' statement ones only (a partitioned table's, whose
    /// rows are its partitions'), or `None` if there are none.
    pub fn statement_only(mut self) -> Option<Triggers> {
        self.before.clear();
        self.after.clear();
        // (A statement trigger's transition tables still get the rows.)
        self.transitions = self
            .after_statement
            .iter()
            .any(Bound::has_transition_tables);
        (!self.before_statement.is_empty() || !self.after_statement.is_empty()).then_some(self)
    }

    /// A statement on `relation` begins: [`Triggers::of_statement`], with
    /// its BEFORE STATEMENT triggers run (`Triggers::start_statement`).
    pub fn start(
        cx: &Ctx<'_>,
        txn: &mut Transaction,
        relation: &Relation,
        event: Event,
        set: &[usize],
    ) -> Result<Option<Triggers>, SqlError> {
        let triggers = Triggers::of_statement(relation, event, set)?;
        if let Some(triggers) = &triggers {
            triggers.start_statement(cx, txn)?;
        }
        Ok(triggers)
    }

    /// [`Triggers::of_statement`] of the table or view of oid `oid`
    /// (catalog name `name`, columns `columns`): a view's are INSTEAD OF
    /// triggers (`instead_of.rs`), run as BEFORE ROW ones.
    pub fn of_target(
        oid: u64,
        name: &str,
        columns: Vec<(String, SqlType)>,
        event: Event,
        set: &[usize],
    ) -> Result<Option<Triggers>, SqlError> {
        if !fires_any(oid, event) {
            return Ok(None);
        }
        let all = in_scope();
        let mut out = Triggers::new(oid, name, columns, event, set);
        for t in all.iter().filter(|t| fires(t, oid, event)) {
            let bound = bind(t, &out.columns)?;
            let row = t.kind & TRIGGER_ROW != 0;
            match (t.kind & (TRIGGER_BEFORE | TRIGGER_INSTEAD) != 0, row) {
                (true, true) => out.before.push(bound),
                (false, true) => out.after.push(bound),
                (true, false) => out.before_statement.push(bound),
                (false, false) => out.after_statement.push(bound),
            }
        }
        out.transitions =
            (out.after.iter().chain(&out.after_statement)).any(Bound::has_transition_tables);
        Ok(Some(out))
    }

    /// No triggers yet of `event` on the table or view of oid `oid`.
    fn new(
        oid: u64,
        name: &str,
        columns: Vec<(String, SqlType)>,
        event: Event,
        set: &[usize],
    ) -> Triggers {
        let (schema, table) = folio_catalog::split_schema(name);
        let schema = match schema {
            "" => "public".to_string(),
            s => s.to_string(),
        };
        Triggers {
            transitions: false,
            old_rows: RefCell::default(),
            new_rows: RefCell::default(),
            event,
            table_oid: oid,
            table: table.to_string(),
            schema,
            columns,
            set: set.to_vec(),
            before: Vec::new(),
            after: Vec::new(),
            before_statement: Vec::new(),
            after_statement: Vec::new(),
            queue: RefCell::new(Vec::new()),
            command: Cell::new(None),
            moving: None,
        }
    }

    /// Whether any row trigger is to fire (else rows may be written in
    /// batches).
    pub fn has_row_triggers(&self) -> bool {
        !self.before.is_empty() || !self.after.is_empty() || self.transitions
    }

    /// Whether a BEFORE (or INSTEAD OF) row trigger is to fire (a moved
    /// row's BEFORE DELETE ones too).
    pub fn has_before_row(&self) -> bool {
        !self.before.is_empty() || self.moving.as_ref().is_some_and(|m| m.has_before_row())
    }

    /// Whether a BEFORE trigger, row or statement, is to fire.
    fn has_before(&self) -> bool {
        !self.before.is_empty() || !self.before_statement.is_empty()
    }

    /// Runs `call` (BEFORE triggers firing) as a later command than the
    /// statement's own writes when the statement runs in [`one_command`].
    fn as_later<T>(
        &self,
        txn: &mut Transaction,
        call: impl FnOnce(&mut Transaction) -> Result<T, SqlError>,
    ) -> Result<T, SqlError> {
        match self.command.get() {
            Some(command) => txn.run_trigger(command, call),
            None => call(txn),
        }
    }

    /// Runs the BEFORE STATEMENT triggers: before the statement reads or
    /// writes a row, even when it will change none.
    pub fn start_statement(&self, cx: &Ctx<'_>, txn: &mut Transaction) -> Result<(), SqlError> {
        if self.before_statement.is_empty() {
            return Ok(());
        }
        self.as_later(txn, |txn| {
            self.run_statement_triggers(cx, txn, &self.before_statement, "BEFORE")
        })
    }

    fn run_statement_triggers(
        &self,
        cx: &Ctx<'_>,
        txn: &mut Transaction,
        triggers: &[Bound],
        when: &str,
    ) -> Result<(), SqlError> {
        for bound in triggers {
            let call = self.call(bound, when, None, None);
            if !self.applies(cx, txn, bound, &call)? {
                continue;
            }
            self.run_after(cx, txn, bound, &call)?;
        }
        Ok(())
    }

    /// Runs an AFTER (or BEFORE STATEMENT) trigger, its result ignored,
    /// with its transition tables named for its statements.
    fn run_after(
        &self,
        cx: &Ctx<'_>,
        txn: &mut Transaction,
        bound: &Bound,
        call: &TriggerCall<'_>,
    ) -> Result<(), SqlError> {
        let depth = cx.produced.borrow().len();
        for (name, rows) in [
            (&bound.def.old_table, &self.old_rows),
            (&bound.def.new_table, &self.new_rows),
        ] {
            if let Some(name) = name {
                let rows = rows.borrow().clone();
                let table = Produced::transition(name, rows, &self.columns);
                cx.produced.borrow_mut().push(std::rc::Rc::new(table));
            }
        }
        let returned = run_function(cx, txn, &bound.function, call);
        cx.produced.borrow_mut().truncate(depth);
        returned.map(|_| ())
    }

    /// Runs the BEFORE (or a view's INSTEAD OF) row triggers for a row
    /// (`old`: an UPDATE's or DELETE's
    /// row; `new`: an INSERT's or UPDATE's): the row to write (for a
    /// DELETE, `old` again), or `None` when a trigger returned NULL and
    /// the row is skipped.
    pub fn before(
        &self,
        cx: &Ctx<'_>,
        txn: &mut Transaction,
        old: Option<&[Value]>,
        new: Option<Vec<Value>>,
    ) -> Result<Option<Vec<Value>>, SqlError> {
        self.before_in(cx, txn, old, new, &|_| Ok(true))
    }

    /// [`Triggers::before`] for a partition's row: `stays` says whether a
    /// row still lies in the partition, asked after each clone of a
    /// partitioned table's trigger (README "Row triggers of partitioned
    /// tables").
    pub fn before_in(
        &self,
        cx: &Ctx<'_>,
        txn: &mut Transaction,
        old: Option<&[Value]>,
        new: Option<Vec<Value>>,
        stays: &dyn Fn(&[Value]) -> Result<bool, SqlError>,
    ) -> Result<Option<Vec<Value>>, SqlError> {
        if self.before.is_empty() {
            return Ok(match self.event {
                Event::Delete => old.map(<[Value]>::to_vec),
                _ => new,
            });
        }
        self.as_later(txn, |txn| self.run_before(cx, txn, old, new, stays))
    }

    fn run_before(
        &self,
        cx: &Ctx<'_>,
        txn: &mut Transaction,
        old: Option<&[Value]>,
        new: Option<Vec<Value>>,
        stays: &dyn Fn(&[Value]) -> Result<bool, SqlError>,
    ) -> Result<Option<Vec<Value>>, SqlError> {
        let mut current = match (self.event, new) {
            (Event::Delete, _) => old.map(<[Value]>::to_vec),
            (_, new) => new,
        };
        for bound in &self.before {
            let Some(row) = &current else {
                return Ok(None);
            };
            let new = (self.event != Event::Delete).then_some(row.as_slice());
            let when = match bound.def.kind & TRIGGER_INSTEAD != 0 {
                true => "INSTEAD OF",
                false => "BEFORE",
            };
            let call = self.call(bound, when, old, new);
            if !self.applies(cx, txn, bound, &call)? {
                continue;
            }
            let returned = run_function(cx, txn, &bound.function, &call)?;
            current = match self.event {
                // A DELETE goes on with any row returned.
                Event::Delete => returned.and(current),
                _ => returned,
            };
            // A clone of a partitioned table's trigger may not send the
            // row it inserts to another partition (PostgreSQL's 0A000;
            // an UPDATE's row moves).
            if let Some(row) = &current
                && bound.def.parent != 0
                && self.event == Event::Insert
                && !stays(row)?
            {
                return Err(SqlError::new(
                    "0A000",
                    "moving row to another partition during a BEFORE FOR EACH ROW trigger is not supported",
                )
                .with_detail(format!(
                    "Before executing trigger \"{}\", the row was to be in partition \"{}.{}\".",
                    bound.def.name, self.schema, self.table
                )));
            }
        }
        Ok(current)
    }

    /// Queues a written row for the AFTER triggers whose `UPDATE OF` and
    /// `WHEN` it meets (PostgreSQL judges `WHEN` as the row is written).
    pub fn after(
        &self,
        cx: &Ctx<'_>,
        txn: &mut Transaction,
        old: Option<&[Value]>,
        new: Option<&[Value]>,
    ) -> Result<(), SqlError> {
        if self.transitions {
            self.old_rows
                .borrow_mut()
                .extend(old.map(<[Value]>::to_vec));
            self.new_rows
                .borrow_mut()
                .extend(new.map(<[Value]>::to_vec));
        }
        if self.after.is_empty() {
            return Ok(());
        }
        let mut fire = Vec::new();
        for (i, bound) in self.after.iter().enumerate() {
            let call = self.call(bound, "AFTER", old, new);
            if self.applies(cx, txn, bound, &call)? {
                fire.push(i);
            }
        }
        if !fire.is_empty() {
            let seq = QUEUED.with(|q| {
                q.set(q.get() + 1);
                q.get()
            });
            self.queue.borrow_mut().push(Queued {
                seq,
                fire,
                old: old.map(<[Value]>::to_vec),
                new: new.map(<[Value]>::to_vec),
            });
        }
        Ok(())
    }

    /// Runs the queued AFTER ROW triggers, row by row in the order the
    /// rows were written, then the AFTER STATEMENT triggers; their results
    /// are ignored, their errors the statement's.
    pub fn end_statement(&self, cx: &Ctx<'_>, txn: &mut Transaction) -> Result<(), SqlError> {
        self.after_rows(cx, txn)?;
        self.after_statement(cx, txn)
    }

    /// Runs the queued AFTER ROW triggers (the first half of
    /// [`Triggers::end_statement`]).
    pub fn after_rows(&self, cx: &Ctx<'_>, txn: &mut Transaction) -> Result<(), SqlError> {
        after_rows_in_order(cx, txn, &[self])
    }

    /// Runs the AFTER ROW triggers of one queued row.
    fn run_queued(
        &self,
        cx: &Ctx<'_>,
        txn: &mut Transaction,
        Queued { fire, old, new, .. }: Queued,
    ) -> Result<(), SqlError> {
        for i in fire {
            let bound = &self.after[i];
            let call = self.call(bound, "AFTER", old.as_deref(), new.as_deref());
            self.run_after(cx, txn, bound, &call)?;
        }
        Ok(())
    }

    /// Runs the AFTER STATEMENT triggers (the second half of
    /// [`Triggers::end_statement`]).
    pub fn after_statement(&self, cx: &Ctx<'_>, txn: &mut Transaction) -> Result<(), SqlError> {
        self.run_statement_triggers(cx, txn, &self.after_statement, "AFTER")
    }

    fn call<'a>(
        &'a self,
        bound: &'a Bound,
        when: &'a str,
        old: Option<&'a [Value]>,
        new: Option<&'a [Value]>,
    ) -> TriggerCall<'a> {
        TriggerCall {
            name: &bound.def.name,
            when,
            level: match bound.def.kind & TRIGGER_ROW != 0 {
                true => "ROW",
                false => "STATEMENT",
            },
            op: self.event.word(),
            table_oid: self.table_oid,
            table: &self.table,
            schema: &self.schema,
            args: &bound.def.args,
            columns: &self.columns,
            old: if self.event == Event::Insert {
                None
            } else {
                old
            },
            new: if self.event == Event::Delete {
                None
            } else {
                new
            },
        }
    }

    /// Whether `bound` fires for the row of `call` (or, a statement
    /// trigger, for the statement): its `UPDATE OF` columns (one SET
    /// names, or whose value changed) and `WHEN`.
    fn applies(
        &self,
        cx: &Ctx<'_>,
        txn: &mut Transaction,
        bound: &Bound,
        call: &TriggerCall<'_>,
    ) -> Result<bool, SqlError> {
        if self.event == Event::Update && !bound.columns.is_empty() {
            let changed = |c: usize| match (call.old, call.new) {
                (Some(old), Some(new)) => old.get(c) != new.get(c),
                _ => false,
            };
            if !bound
                .columns
                .iter()
                .any(|c| self.set.contains(c) || changed(*c))
            {
                return Ok(false);
            }
        }
        let Some(when) = &bound.when else {
            return Ok(true);
        };
        let mut notices = Vec::new();
        let holds = trigger_condition(cx, txn, &mut notices, when, call);
        cx.raised.borrow_mut().extend(notices);
        holds
    }
}

/// Runs the queued AFTER ROW triggers of `sets` (one statement's, on
/// several tables: a partitioned table's partitions) in the order their
/// rows were queued, as PostgreSQL's one queue of after-row events.
pub fn after_rows_in_order(
    cx: &Ctx<'_>,
    txn: &mut Transaction,
    sets: &[&Triggers],
) -> Result<(), SqlError> {
    let sets: Vec<&Triggers> = (sets.iter())
        .flat_map(|t| [Some(*t), t.moving.as_deref()])
        .flatten()
        .collect();
    let mut all: Vec<(usize, Queued)> = Vec::new();
    for (n, set) in sets.iter().enumerate() {
        let queue = std::mem::take(&mut *set.queue.borrow_mut());
        all.extend(queue.into_iter().map(|q| (n, q)));
    }
    all.sort_by_key(|(_, q)| q.seq);
    for (n, queued) in all {
        sets[n].run_queued(cx, txn, queued)?;
    }
    Ok(())
}

/// `relation`'s columns: names and types.
fn columns_of(relation: &Relation) -> Vec<(String, SqlType)> {
    (relation.def.columns.iter())
        .zip(&relation.types)
        .map(|(c, t)| (c.name.clone(), *t))
        .collect()
}

/// `trigger` bound for a statement on a table of `columns`.
fn bind(trigger: &TriggerDef, columns: &[(String, SqlType)]) -> Result<Bound, SqlError> {
    let function = crate::builtin_triggers::function_of(trigger.function).ok_or_else(|| {
        SqlError::new(
            "42883",
            format!(
                "function of trigger \"{}\" (oid {}) does not exist",
                trigger.name, trigger.function
            ),
        )
    })?;
    let when = match &trigger.when {
        Some(text) => {
            let names: Vec<String> = columns.iter().map(|(c, _)| c.clone()).collect();
            Some(condition(&crate::trigger_when::runnable(
                text,
                &names,
                trigger.table,
            )?)?)
        }
        None => None,
    };
    let columns = (trigger.columns.iter())
        .filter_map(|name| columns.iter().position(|(c, _)| c == name))
        .collect();
    Ok(Bound {
        def: trigger.clone(),
        function,
        when,
        columns,
    })
}

/// A `WHEN` condition as the interpreter runs it: `SELECT cond`.
fn condition(text: &str) -> Result<Sql, SqlError> {
    let mut parsed = crate::parse::statements(&format!("SELECT {text}"))?;
    match parsed.pop() {
        Some(p) if parsed.is_empty() => Ok(Sql {
            text: text.to_string(),
            parsed: Box::new(p),
            id: 0,
        }),
        _ => Err(SqlError::syntax(format!(
            "syntax error at or near \"{text}\""
        ))),
    }
}
