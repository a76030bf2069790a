//! Sequences: the definition is catalog data, the value is not.
//!
//! - **Definition** (`SequenceDef`): a `folio.class` row of kind `S`
//!   whose tail holds the options (type, increment, bounds, start, cache,
//!   cycle) and whose table oid and first column name the owning column
//!   (`OWNED BY`, `serial`). Transactional like a table's row: created in
//!   a rolled-back transaction, it never existed; a dropped table takes
//!   the sequences it owns with it. DDL on a sequence locks its row.
//! - **Value** (`Values`): non-transactional, in the logged tree
//!   `folio.oid` (beside the oid counter's key `next`), key `s`, the
//!   sequence's oid and, from generation 1 on, its generation (all
//!   big-endian), value 9 bytes:
//!   `last: i64 LE`, `called: u8` (PostgreSQL's `last_value` and
//!   `is_called`). No entry: `(start, false)`. In memory, per sequence, a
//!   `State` behind its own mutex with the values a log record covers.
//!
//! **Log ahead, then hand out** (PostgreSQL's `SEQ_LOG_VALS`). When a
//! `nextval` finds no covered value left, it writes `(v_k, true)` to the
//! tree, where `v_1 .. v_k` are the next `k <= LOG_AHEAD` values (fewer at
//! a bound without CYCLE), then hands out `v_1`; the next `k - 1` calls hand
//! out `v_2 .. v_k` without writing. Every value is returned only after
//! the WAL holding the record that covers it is durable (`Wal::flush_to`,
//! group commit; outside the mutex). `setval` and `RESTART` write the new
//! state at once and drop the covered values.
//!
//! **Transactional restarts** (PostgreSQL's new relfilenode for a
//! sequence: `ALTER SEQUENCE ... RESTART`, `TRUNCATE ... RESTART
//! IDENTITY`). A restart updates the sequence's class row to the next
//! generation (under the row's lock, as any DDL on it) and writes that
//! generation's value `(start, false)` under its own key. Which value is
//! current is decided by the class row the caller's snapshot sees: the
//! restarting transaction's own calls use the new generation at once;
//! other transactions go on with the old one until it commits, and never
//! see the new one if it rolls back, as in PostgreSQL. A rolled-back
//! restart leaves its 13-byte value behind, as a dropped sequence leaves
//! its own; the next restart of that generation overwrites it.
//!
//! **Crash argument.** A value `v` handed out is covered by a record `(w,
//! true)` with `v <= w` (in the increment's direction) that was durable
//! before `v` left; records are written in order under the sequence's
//! mutex, so the tree after recovery holds that record or a later one,
//! whose `w` is at least as far. Recovery's state `(w', true)` hands out
//! `step(w')` next: beyond every value handed out. A record written but
//! not durable at the crash covers only values never handed out. Gaps of
//! up to `LOG_AHEAD - 1` values follow a crash, and also a restart (the
//! state is not written back at shutdown; PostgreSQL's is).
//!
//! **Unlogged sequences** (`CREATE UNLOGGED SEQUENCE`, an unlogged
//! table's serial and identity sequences): the class row's `root` is
//! `UNLOGGED_ROOT` alone (`Persistence::of` decides; a sequence has no
//! pages), and the value is kept under the same key in the tree of the
//! unlogged pool's own root map ([`crate::UNLOGGED_SEQUENCES_TREE`]),
//! written without WAL and with nothing to wait for. A clean stop keeps
//! that file, so the value goes on as a logged one's; after a crash the
//! file, and the tree, are new, so every unlogged sequence starts again
//! from its start, as PostgreSQL's (whose init fork holds the start).
//!
//! **Changing persistence** (`ALTER SEQUENCE ... SET LOGGED | UNLOGGED`,
//! and the sequences of a table that changes): transactional, as a
//! restart is: the class row moves to the next generation, kept in the
//! other store. But values go on, and `nextval` takes no lock, so
//! transactions that still see the old row keep calling it: the new
//! generation *shares* the old one's in-memory state (one counter, so no
//! value is handed out twice), and the state's `targets` list both
//! generations, so every record from then on is written to both stores
//! (the new store first gets the current value, and the next `nextval`
//! writes ahead). Whichever row wins, its store covers every value handed
//! out: a crash after the commit resumes the new store beyond them all.
//! A rolled-back change leaves its key in the other store, written on
//! until the next restart of the process (a few bytes, like a rolled-back
//! restart's); a later restart of the sequence takes a state of its own.
//!
//! **Locks.** The map mutex (`Values::states`) is held only to find or
//! insert a state; a state's mutex is held to compute values and, once
//! per `LOG_AHEAD` calls, for one tree upsert (a page latch and a WAL
//! insert, no I/O wait). Order: map, then state, then the tree's latches.
//! No transaction lock is taken: `nextval` never waits for DDL.

use crate::catalog::Catalog;
use crate::codec::{Reader, Writer};
use crate::defs::{ClassRow, KIND_SEQUENCE};
use crate::error::CatalogError;
use crate::persistence::Persistence;
use folio_btree::Tree;
use folio_heap::Write;
use folio_page::{Lsn, PageId};
use folio_txn::Transaction;
use folio_wal::Wal;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// Values covered by one log record (PostgreSQL's `SEQ_LOG_VALS`).
pub const LOG_AHEAD: u32 = 32;

/// PostgreSQL's type oids of a sequence's data type.
pub const INT2_OID: u32 = 21;
pub const INT4_OID: u32 = 23;
pub const INT8_OID: u32 = 20;

/// A sequence's options, as `CREATE SEQUENCE` settled them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SequenceOptions {
    /// `smallint` (21), `integer` (23) or `bigint` (20).
    pub type_oid: u32,
    pub increment: i64,
    pub min: i64,
    pub max: i64,
    pub start: i64,
    pub cache: i64,
    pub cycle: bool,
}

/// What `CREATE SEQUENCE` (or a serial or identity column) asks for;
/// `None` is the default.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SequenceRequest {
    pub type_oid: Option<u32>,
    pub increment: Option<i64>,
    /// `Some(None)`: `NO MINVALUE`.
    pub min: Option<Option<i64>>,
    pub max: Option<Option<i64>>,
    pub start: Option<i64>,
    pub cache: Option<i64>,
    pub cycle: Option<bool>,
}

/// A sequence as a transaction sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SequenceDef {
    pub oid: u64,
    pub name: String,
    pub options: SequenceOptions,
    /// The owning table's oid and column position (`OWNED BY`).
    pub owner: Option<(u64, u16)>,
    /// The sequence of a `GENERATED ALWAYS AS IDENTITY` column: an INSERT
    /// may not give the column a value (428C9).
    pub always: bool,
    /// The sequence of an identity column (`GENERATED ... AS IDENTITY`),
    /// not a `serial`'s or a plain one's.
    pub identity: bool,
    /// Which of its values is current (a transactional restart starts the
    /// next one).
    pub generation: u32,
    /// Whether its value is logged (`CREATE UNLOGGED SEQUENCE`, the
    /// sequences of an unlogged table): the one bit of its class row's
    /// `root` (`Persistence::of`; a sequence has no pages of its own).
    pub persistence: Persistence,
}

fn type_name(type_oid: u32) -> &'static str {
    match type_oid {
        INT2_OID => "smallint",
        INT4_OID => "integer",
        _ => "bigint",
    }
}

fn type_range(type_oid: u32) -> (i64, i64) {
    match type_oid {
        INT2_OID => (i16::MIN.into(), i16::MAX.into()),
        INT4_OID => (i32::MIN.into(), i32::MAX.into()),
        _ => (i64::MIN, i64::MAX),
    }
}

fn invalid(message: String) -> CatalogError {
    CatalogError::InvalidSequence(message)
}

impl SequenceRequest {
    /// The options PostgreSQL settles for this request (its defaults and
    /// its checks, 22023), or for a change of `old` when given (ALTER). A
    /// change of type moves a bound that was the old type's limit to the
    /// new type's (`AS bigint` on an integer sequence raises its maximum
    /// to bigint's), as PostgreSQL's; a bound chosen otherwise stays.
    pub fn settle(&self, old: Option<&SequenceOptions>) -> Result<SequenceOptions, CatalogError> {
        let type_oid = self
            .type_oid
            .or(old.map(|o| o.type_oid))
            .unwrap_or(INT8_OID);
        let (lowest, highest) = type_range(type_oid);
        let increment = self.increment.or(old.map(|o| o.increment)).unwrap_or(1);
        if increment == 0 {
            return Err(invalid("INCREMENT must not be zero".into()));
        }
        let ascending = increment > 0;
        // Whether a change of type moves the old bounds: they were the
        // old type's limits.
        let (move_min, move_max) = match (self.type_oid, old) {
            (Some(_), Some(o)) => {
                let (l, h) = type_range(o.type_oid);
                (o.min == l, o.max == h)
            }
            _ => (false, false),
        };
        let max = match (self.max, old) {
            (Some(Some(v)), _) => v,
            (None, Some(o)) if !move_max => o.max,
            _ if ascending || move_max => highest,
            _ => -1,
        };
        let min = match (self.min, old) {
            (Some(Some(v)), _) => v,
            (None, Some(o)) if !move_min => o.min,
            _ if !ascending || move_min => lowest,
            _ => 1,
        };
        let name = type_name(type_oid);
        if max < lowest || max > highest {
            return Err(invalid(format!(
                "MAXVALUE ({max}) is out of range for sequence data type {name}"
            )));
        }
        if min < lowest || min > highest {
            return Err(invalid(format!(
                "MINVALUE ({min}) is out of range for sequence data type {name}"
            )));
        }
        if min >= max {
            return Err(invalid(format!(
                "MINVALUE ({min}) must be less than MAXVALUE ({max})"
            )));
        }
        let start = match (self.start, old) {
            (Some(v), _) => v,
            (None, Some(o)) => o.start,
            (None, None) if ascending => min,
            (None, None) => max,
        };
        if start < min {
            return Err(invalid(format!(
                "START value ({start}) cannot be less than MINVALUE ({min})"
            )));
        }
        if start > max {
            return Err(invalid(format!(
                "START value ({start}) cannot be greater than MAXVALUE ({max})"
            )));
        }
        let cache = self.cache.or(old.map(|o| o.cache)).unwrap_or(1);
        if cache < 1 {
            return Err(invalid(format!(
                "CACHE ({cache}) must be greater than zero"
            )));
        }
        Ok(SequenceOptions {
            type_oid,
            increment,
            min,
            max,
            start,
            cache,
            cycle: self.cycle.or(old.map(|o| o.cycle)).unwrap_or(false),
        })
    }
}

impl SequenceOptions {
    /// The value after `last`, or `None` at a bound without CYCLE.
    fn step(&self, last: i64) -> Option<i64> {
        match last.checked_add(self.increment) {
            Some(v) if v >= self.min && v <= self.max => Some(v),
            _ if !self.cycle => None,
            _ if self.increment > 0 => Some(self.min),
            _ => Some(self.max),
        }
    }

    pub(crate) fn encode(&self, w: &mut Writer) {
        w.u32(self.type_oid)
            .u64(self.increment as u64)
            .u64(self.min as u64)
            .u64(self.max as u64)
            .u64(self.start as u64)
            .u64(self.cache as u64)
            .u8(self.cycle as u8);
    }

    pub(crate) fn decode(r: &mut Reader<'_>) -> Result<SequenceOptions, String> {
        Ok(SequenceOptions {
            type_oid: r.u32()?,
            increment: r.u64()? as i64,
            min: r.u64()? as i64,
            max: r.u64()? as i64,
            start: r.u64()? as i64,
            cache: r.u64()? as i64,
            cycle: r.u8()? != 0,
        })
    }
}

/// One sequence's value in memory.
#[derive(Debug)]
struct State {
    last: i64,
    called: bool,
    /// Values after `last` that the latest record covers.
    covered: u32,
    /// The options the covered values were computed with (an ALTER by
    /// any transaction drops them).
    covered_for: SequenceOptions,
    /// Where the WAL must be durable before a covered value leaves.
    durable_at: Lsn,
    /// The generations (each in its store) every record is written to:
    /// the state's own, and those of persistence changes that share it
    /// ("Changing persistence" above).
    targets: Vec<(u32, Persistence)>,
}

/// A sequence's oid and generation: which value.
type Generation = (u64, u32);

/// The values of every sequence: the logged tree, the unlogged one and
/// the states.
#[derive(Debug)]
pub(crate) struct Values {
    tree: Tree,
    wal: Arc<Wal>,
    /// Unlogged sequences' values (the unlogged pool's own root map).
    unlogged: Tree,
    /// By sequence oid and generation.
    states: Mutex<HashMap<Generation, Arc<Mutex<State>>>>,
}

/// The key of a sequence's current value in the tree it shares with the
/// oid counter (whose key is `next`): `s`, its oid, and its generation
/// unless 0 (so keys written before generations stay valid).
fn key(oid: u64, generation: u32) -> Vec<u8> {
    let mut key = vec![b's'];
    key.extend_from_slice(&oid.to_be_bytes());
    if generation > 0 {
        key.extend_from_slice(&generation.to_be_bytes());
    }
    key
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl Values {
    pub(crate) fn new(tree: Tree, wal: Arc<Wal>, unlogged: Tree) -> Values {
        Values {
            tree,
            wal,
            unlogged,
            states: Mutex::new(HashMap::new()),
        }
    }

    /// The tree values of `persistence` are kept in.
    fn store(&self, persistence: Persistence) -> &Tree {
        match persistence {
            Persistence::Permanent => &self.tree,
            Persistence::Unlogged => &self.unlogged,
        }
    }

    fn state(&self, def: &SequenceDef) -> Result<Arc<Mutex<State>>, CatalogError> {
        let mut states = lock(&self.states);
        if let Some(s) = states.get(&(def.oid, def.generation)) {
            return Ok(s.clone());
        }
        let state = Arc::new(Mutex::new(self.load(def)?));
        states.insert((def.oid, def.generation), state.clone());
        Ok(state)
    }

    /// `def`'s state as its store holds it.
    fn load(&self, def: &SequenceDef) -> Result<State, CatalogError> {
        let stored = self
            .store(def.persistence)
            .get(&key(def.oid, def.generation))?;
        let (last, called) = match stored {
            Some(bytes) if bytes.len() == 9 => (
                i64::from_le_bytes(bytes[..8].try_into().expect("8 bytes")),
                bytes[8] != 0,
            ),
            Some(bytes) => {
                return Err(CatalogError::Corrupt(format!(
                    "the value of sequence \"{}\" is {} bytes, not 9",
                    def.name,
                    bytes.len()
                )));
            }
            None => (def.options.start, false),
        };
        Ok(State {
            last,
            called,
            covered: 0,
            covered_for: def.options,
            durable_at: Lsn(0),
            targets: vec![(def.generation, def.persistence)],
        })
    }

    /// Writes `(last, called)` as sequence `oid`'s value under each of
    /// `state`'s targets (its mutex held); returns where the WAL must be
    /// durable for them to be (0: none was logged).
    fn write(&self, oid: u64, state: &State, last: i64, called: bool) -> Result<Lsn, CatalogError> {
        let mut bytes = [0u8; 9];
        bytes[..8].copy_from_slice(&last.to_le_bytes());
        bytes[8] = called as u8;
        let mut logged = false;
        for &(generation, persistence) in &state.targets {
            self.store(persistence)
                .upsert(&key(oid, generation), &bytes)?;
            logged |= persistence == Persistence::Permanent;
        }
        Ok(match logged {
            true => self.wal.insert_lsn(),
            false => Lsn(0),
        })
    }

    fn durable(&self, lsn: Lsn) -> Result<(), CatalogError> {
        if lsn > Lsn(0) {
            self.wal
                .flush_to(lsn)
                .map_err(|e| CatalogError::Corrupt(format!("sequence WAL flush failed: {e}")))?;
        }
        Ok(())
    }

    /// `nextval`.
    pub(crate) fn next(&self, def: &SequenceDef) -> Result<i64, CatalogError> {
        let state = self.state(def)?;
        let (value, lsn) = {
            let mut s = lock(&state);
            let o = &def.options;
            if s.covered_for != *o {
                s.covered = 0;
                s.covered_for = *o;
            }
            let value = match s.called {
                false => s.last,
                true => o.step(s.last).ok_or_else(|| CatalogError::SequenceLimit {
                    name: def.name.clone(),
                    maximum: o.increment > 0,
                    bound: if o.increment > 0 { o.max } else { o.min },
                })?,
            };
            if s.covered == 0 {
                let (mut ahead, mut count) = (value, 1);
                while count < LOG_AHEAD {
                    match o.step(ahead) {
                        Some(v) => (ahead, count) = (v, count + 1),
                        None => break,
                    }
                }
                s.durable_at = self.write(def.oid, &s, ahead, true)?;
                s.covered = count;
            }
            s.covered -= 1;
            s.last = value;
            s.called = true;
            (value, s.durable_at)
        };
        self.durable(lsn)?;
        Ok(value)
    }

    /// The sequence's `(last, covered, called)`.
    pub(crate) fn state_of(&self, def: &SequenceDef) -> Result<(i64, u32, bool), CatalogError> {
        let state = self.state(def)?;
        let s = lock(&state);
        Ok((s.last, s.covered, s.called))
    }

    /// `setval(seq, value, called)`, and a restart's first value.
    pub(crate) fn set(
        &self,
        def: &SequenceDef,
        value: i64,
        called: bool,
    ) -> Result<(), CatalogError> {
        let o = &def.options;
        if value < o.min || value > o.max {
            return Err(CatalogError::SequenceBounds {
                name: def.name.clone(),
                value,
                min: o.min,
                max: o.max,
            });
        }
        let state = self.state(def)?;
        let lsn = {
            let mut s = lock(&state);
            let lsn = self.write(def.oid, &s, value, called)?;
            s.last = value;
            s.called = called;
            s.covered = 0;
            s.covered_for = *o;
            s.durable_at = lsn;
            lsn
        };
        self.durable(lsn)
    }

    /// A restart's first value `value` for `def` (its new generation): a
    /// state of its own, not one a rolled-back persistence change left
    /// shared under that generation.
    pub(crate) fn restart(&self, def: &SequenceDef, value: i64) -> Result<(), CatalogError> {
        let fresh = State {
            last: value,
            called: false,
            covered: 0,
            covered_for: def.options,
            durable_at: Lsn(0),
            targets: vec![(def.generation, def.persistence)],
        };
        let fresh = Arc::new(Mutex::new(fresh));
        lock(&self.states).insert((def.oid, def.generation), fresh);
        self.set(def, value, false)
    }

    /// A persistence change's new generation `changed` of `def`'s
    /// sequence ("Changing persistence" above): it shares `def`'s state,
    /// so both generations hand out values of one counter, every record
    /// from now on is written to both stores, and the new store gets the
    /// current value at once (the next `nextval` writes ahead first).
    pub(crate) fn change_persistence(
        &self,
        def: &SequenceDef,
        changed: &SequenceDef,
    ) -> Result<(), CatalogError> {
        let state = self.state(def)?;
        lock(&self.states).insert((changed.oid, changed.generation), state.clone());
        let lsn = {
            let mut s = lock(&state);
            let target = (changed.generation, changed.persistence);
            if !s.targets.contains(&target) {
                s.targets.push(target);
            }
            let lsn = self.write(def.oid, &s, s.last, s.called)?;
            s.covered = 0;
            s.durable_at = lsn;
            lsn
        };
        self.durable(lsn)
    }
}

/// Sequence row `class` owned by column `owner` (a table oid and column
/// position; `None`: by no column): the one place that writes where a
/// sequence row keeps its owner (`sequence_def` reads it).
fn owned_by(class: ClassRow, owner: Option<(u64, u16)>) -> ClassRow {
    ClassRow {
        table_oid: owner.map_or(0, |(t, _)| t),
        columns: owner.map(|(_, c)| vec![c]).unwrap_or_default(),
        order: owner.map(|_| vec![Default::default()]).unwrap_or_default(),
        ..class
    }
}

impl Catalog {
    /// `CREATE SEQUENCE name ...` (owned by `owner`, a table oid and
    /// column position, if given; `identity`: `Some(always)` for the
    /// sequence of a `GENERATED ALWAYS | BY DEFAULT AS IDENTITY` column).
    /// 42P07 if the name is taken.
    pub fn create_sequence(
        &self,
        txn: &mut Transaction,
        name: &str,
        options: SequenceOptions,
        owner: Option<(u64, u16)>,
        identity: Option<bool>,
        persistence: Persistence,
    ) -> Result<SequenceDef, CatalogError> {
        crate::catalog::check_name(name)?;
        if self.relation_exists(txn, name)? {
            return Err(CatalogError::Exists(name.to_string()));
        }
        let oid = self.next_oid()?;
        let class = ClassRow {
            oid,
            name: name.to_string(),
            kind: KIND_SEQUENCE,
            root: persistence.stored(PageId(0)),
            table_oid: 0,
            unique: false,
            prefix_free: false,
            primary: false,
            constraint: false,
            clustered: false,
            deferrable: Default::default(),
            nulls: Default::default(),
            columns: Vec::new(),
            order: Vec::new(),
            sequence: Some(options),
            always: identity == Some(true),
            identity: identity.is_some(),
            generation: 0,
            view: None,
            populated: false,
            exprs: Default::default(),
            enum_body: None,
            domain: None,
            composite: None,
            function: None,
            trigger: None,
            storage: Default::default(),
            rule: None,
        };
        let class = owned_by(class, owner);
        self.in_savepoint(txn, |txn| self.insert_class(txn, &class))?;
        Ok(sequence_def(class).expect("a sequence row"))
    }

    /// The sequence `name` as `txn` sees it: `Ok(None)` if no relation has
    /// the name, 42809 if it is another kind of relation.
    pub fn sequence(
        &self,
        txn: &Transaction,
        name: &str,
    ) -> Result<Option<SequenceDef>, CatalogError> {
        match self.class(txn, name)? {
            None => Ok(None),
            Some((_, class)) => sequence_def(class)
                .map(Some)
                .ok_or_else(|| CatalogError::NotASequence(name.to_string())),
        }
    }

    /// Every sequence `txn` sees, by name.
    pub fn sequences(&self, txn: &Transaction) -> Result<Vec<SequenceDef>, CatalogError> {
        let mut out: Vec<SequenceDef> = self
            .class_rows(txn)?
            .into_iter()
            .filter_map(|(_, class)| sequence_def(class))
            .collect();
        out.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(out)
    }

    /// Locks sequence `name`'s catalog row (`FOR UPDATE`: other DDL on it
    /// waits until `txn` ends) and returns it as it is once locked.
    pub fn lock_sequence(
        &self,
        txn: &mut Transaction,
        name: &str,
    ) -> Result<SequenceDef, CatalogError> {
        let missing = || CatalogError::NoSuchRelation(name.to_string());
        let (tid, class) = self.class(txn, name)?.ok_or_else(missing)?;
        if class.kind != KIND_SEQUENCE {
            return Err(CatalogError::NotASequence(name.to_string()));
        }
        self.lock_class_row(txn, tid, missing)?;
        self.sequence(txn, name)?.ok_or_else(missing)
    }

    /// `DROP SEQUENCE name`. Whether column defaults naming it allow the
    /// drop is the SQL layer's rule (they are SQL text the catalog does
    /// not parse; folio-sql `sequences::drop`).
    pub fn drop_sequence(&self, txn: &mut Transaction, name: &str) -> Result<(), CatalogError> {
        let def = self.lock_sequence(txn, name)?;
        self.delete_sequence(txn, name, def.oid)
    }

    /// `ALTER SEQUENCE name OWNED BY`: the sequence goes with column
    /// `owner` (a table oid and column position) when it is dropped, or
    /// with none.
    pub fn set_sequence_owner(
        &self,
        txn: &mut Transaction,
        name: &str,
        owner: Option<(u64, u16)>,
    ) -> Result<(), CatalogError> {
        self.lock_sequence(txn, name)?;
        let (tid, class) = self.sequence_row(txn, name)?;
        self.update_sequence_row(txn, tid, &owned_by(class, owner))
    }

    /// `ALTER SEQUENCE name` with new options (transactional, as the
    /// definition is). The value is not changed (RESTART is
    /// [`Catalog::restart_sequence`]), and must lie within the new bounds
    /// (22023, as PostgreSQL checks its `last_value`) unless `restarting`
    /// (a RESTART in the same statement checks its own).
    pub fn alter_sequence(
        &self,
        txn: &mut Transaction,
        name: &str,
        request: &SequenceRequest,
        restarting: bool,
    ) -> Result<SequenceDef, CatalogError> {
        let def = self.lock_sequence(txn, name)?;
        let options = request.settle(Some(&def.options))?;
        if !restarting {
            let (value, _, _) = self.sequence_values.state_of(&def)?;
            within(value, &options)?;
        }
        let (tid, class) = self.sequence_row(txn, name)?;
        self.update_sequence_row(
            txn,
            tid,
            &ClassRow {
                sequence: Some(options),
                ..class
            },
        )?;
        Ok(SequenceDef { options, ..def })
    }

    /// Restarts sequence `name` at `value` (`None`: its start), as
    /// `ALTER SEQUENCE ... RESTART` and `TRUNCATE ... RESTART IDENTITY`
    /// do: transactionally, by moving it to its next generation
    /// ("Transactional restarts" above). 22023 outside its bounds.
    pub fn restart_sequence(
        &self,
        txn: &mut Transaction,
        name: &str,
        value: Option<i64>,
    ) -> Result<SequenceDef, CatalogError> {
        let def = self.lock_sequence(txn, name)?;
        let (tid, class) = self.sequence_row(txn, name)?;
        let generation = next_generation(&def)?;
        let restarted = SequenceDef { generation, ..def };
        let value = value.unwrap_or(def.options.start);
        within(value, &def.options)?;
        self.sequence_values.restart(&restarted, value)?;
        self.update_sequence_row(
            txn,
            tid,
            &ClassRow {
                generation,
                ..class
            },
        )?;
        Ok(restarted)
    }

    /// `ALTER SEQUENCE name SET LOGGED | SET UNLOGGED` (and a table's
    /// owned sequences when it changes: `rewrite.rs`): transactionally,
    /// by moving it to its next generation, kept in the store of
    /// `persistence` ("Changing persistence" above). Returns whether it
    /// changed (not when it has `persistence` already).
    pub fn set_sequence_persistence(
        &self,
        txn: &mut Transaction,
        name: &str,
        persistence: Persistence,
    ) -> Result<bool, CatalogError> {
        let def = self.lock_sequence(txn, name)?;
        if def.persistence == persistence {
            return Ok(false);
        }
        let (tid, class) = self.sequence_row(txn, name)?;
        let generation = next_generation(&def)?;
        let changed = SequenceDef {
            generation,
            persistence,
            ..def.clone()
        };
        self.sequence_values.change_persistence(&def, &changed)?;
        self.update_sequence_row(
            txn,
            tid,
            &ClassRow {
                generation,
                root: persistence.stored(PageId(0)),
                ..class
            },
        )?;
        Ok(true)
    }

    /// `ALTER TABLE ... ALTER COLUMN ... SET GENERATED ALWAYS | BY
    /// DEFAULT` of identity sequence `name`'s column: whether an INSERT
    /// needs `OVERRIDING SYSTEM VALUE` to give the column a value
    /// (transactional, under the row's lock, as ALTER SEQUENCE).
    pub fn set_identity_always(
        &self,
        txn: &mut Transaction,
        name: &str,
        always: bool,
    ) -> Result<SequenceDef, CatalogError> {
        let def = self.lock_sequence(txn, name)?;
        let (tid, class) = self.sequence_row(txn, name)?;
        self.update_sequence_row(txn, tid, &ClassRow { always, ..class })?;
        Ok(SequenceDef { always, ..def })
    }

    /// `ALTER TABLE ... ALTER COLUMN ... DROP IDENTITY`: the column's
    /// identity sequence `name` dropped. Its one user, the column's
    /// default, is the caller's to remove first; DROP SEQUENCE's checks
    /// (it refuses a sequence a column uses) are not this one's.
    pub fn drop_identity_sequence(
        &self,
        txn: &mut Transaction,
        name: &str,
    ) -> Result<(), CatalogError> {
        let def = self.lock_sequence(txn, name)?;
        if !def.identity {
            return Err(CatalogError::Corrupt(format!(
                "sequence \"{name}\" dropped as an identity's is not one"
            )));
        }
        self.delete_sequence(txn, name, def.oid)
    }

    /// Sequence `name`'s (oid `oid`, locked) class row and comments
    /// deleted: what DROP SEQUENCE and DROP IDENTITY do to it.
    fn delete_sequence(
        &self,
        txn: &mut Transaction,
        name: &str,
        oid: u64,
    ) -> Result<(), CatalogError> {
        let (tid, _) = self
            .class(txn, name)?
            .ok_or_else(|| CatalogError::NoSuchRelation(name.to_string()))?;
        self.in_savepoint(txn, |txn| {
            self.classes.delete(txn, tid)?;
            self.drop_descriptions(txn, oid, |_| true)
        })
    }

    /// Sequence `name`'s class row (locked by the caller) and where it is.
    fn sequence_row(
        &self,
        txn: &Transaction,
        name: &str,
    ) -> Result<(folio_heap::Tid, ClassRow), CatalogError> {
        (self.class(txn, name)?).ok_or_else(|| CatalogError::NoSuchRelation(name.to_string()))
    }

    /// Replaces sequence `changed.name`'s locked class row at `tid`.
    fn update_sequence_row(
        &self,
        txn: &mut Transaction,
        tid: folio_heap::Tid,
        changed: &ClassRow,
    ) -> Result<(), CatalogError> {
        let name = &changed.name;
        self.in_savepoint(txn, |txn| {
            // The name (the one indexed column) is unchanged: HOT when the
            // new version fits on the page, else a new index entry.
            match self.classes.update(txn, tid, &changed.encode(), false)? {
                Write::Hot(_) => Ok(()),
                Write::Done(Some(new_tid)) => Ok(self.class_names.insert(
                    txn,
                    &self.classes,
                    name.as_bytes(),
                    new_tid,
                )?),
                other => Err(CatalogError::Corrupt(format!(
                    "altering sequence \"{name}\": its locked catalog row could not be updated ({other:?})"
                ))),
            }
        })
    }

    /// `nextval`: the sequence's next value, durable before it returns
    /// (not undone by a rollback).
    pub fn next_value(&self, def: &SequenceDef) -> Result<i64, CatalogError> {
        self.sequence_values.next(def)
    }

    /// What `SELECT * FROM sequence` shows: its last value, how many
    /// values the latest record still covers (PostgreSQL's `log_cnt`), and
    /// whether the last value was handed out (`is_called`).
    pub fn sequence_state(&self, def: &SequenceDef) -> Result<(i64, u32, bool), CatalogError> {
        self.sequence_values.state_of(def)
    }

    /// `setval(seq, value, called)`: durable when it returns, not undone
    /// by a rollback. 22003 outside the sequence's bounds.
    pub fn set_sequence(
        &self,
        def: &SequenceDef,
        value: i64,
        called: bool,
    ) -> Result<(), CatalogError> {
        self.sequence_values.set(def, value, called)
    }
}

/// The generation after `def`'s (a restart's, a persistence change's).
fn next_generation(def: &SequenceDef) -> Result<u32, CatalogError> {
    def.generation.checked_add(1).ok_or_else(|| {
        CatalogError::Corrupt(format!(
            "sequence \"{}\" was restarted 2^32 times",
            def.name
        ))
    })
}

/// 22023 unless a sequence's value `value` (a RESTART's, or the current
/// one when its bounds change) lies within `options`' bounds, in
/// PostgreSQL's words.
fn within(value: i64, options: &SequenceOptions) -> Result<(), CatalogError> {
    if value < options.min {
        return Err(invalid(format!(
            "RESTART value ({value}) cannot be less than MINVALUE ({})",
            options.min
        )));
    }
    if value > options.max {
        return Err(invalid(format!(
            "RESTART value ({value}) cannot be greater than MAXVALUE ({})",
            options.max
        )));
    }
    Ok(())
}

/// The sequence a `folio.class` row describes, if it is one.
pub(crate) fn sequence_def(class: ClassRow) -> Option<SequenceDef> {
    let options = class.sequence.filter(|_| class.kind == KIND_SEQUENCE)?;
    Some(SequenceDef {
        oid: class.oid,
        name: class.name,
        options,
        owner: match (class.table_oid, class.columns.first()) {
            (0, _) | (_, None) => None,
            (t, Some(&c)) => Some((t, c)),
        },
        always: class.always,
        identity: class.identity,
        generation: class.generation,
        persistence: Persistence::of(class.root),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    // Proves PostgreSQL's defaults and checks for the options, and the
    // step at the bounds with and without CYCLE.
    #[test]
    fn options_settle_and_step() {
        let plain = SequenceRequest::default().settle(None).unwrap();
        assert_eq!((plain.min, plain.max, plain.start), (1, i64::MAX, 1));
        let down = SequenceRequest {
            increment: Some(-2),
            type_oid: Some(INT2_OID),
            ..Default::default()
        }
        .settle(None)
        .unwrap();
        assert_eq!((down.min, down.max, down.start), (-32768, -1, -1));
        assert_eq!(down.step(-1), Some(-3));
        assert_eq!(down.step(-32767), None);
        let cyc = SequenceOptions {
            cycle: true,
            ..down
        };
        assert_eq!(cyc.step(-32767), Some(-1));
        assert_eq!(plain.step(i64::MAX), None);
        let zero = SequenceRequest {
            increment: Some(0),
            ..Default::default()
        };
        assert!(zero.settle(None).is_err());
        let low = SequenceRequest {
            start: Some(0),
            ..Default::default()
        };
        assert!(low.settle(None).is_err());
        let big = SequenceRequest {
            type_oid: Some(INT4_OID),
            max: Some(Some(1 << 40)),
            ..Default::default()
        };
        assert!(big.settle(None).is_err());
        let altered = SequenceRequest {
            increment: Some(5),
            ..Default::default()
        }
        .settle(Some(&plain))
        .unwrap();
        assert_eq!((altered.increment, altered.start), (5, 1));
    }

    // Proves a change of type moves the bounds that were the old type's
    // limits and keeps the others, as PostgreSQL 15's ALTER SEQUENCE ...
    // AS (each case compared through pg_sequences).
    #[test]
    fn a_change_of_type_moves_the_old_limits() {
        let settle = |old: SequenceRequest, type_oid| {
            let old = old.settle(None).unwrap();
            let new = SequenceRequest {
                type_oid: Some(type_oid),
                ..Default::default()
            };
            new.settle(Some(&old)).map(|o| (o.min, o.max, o.start))
        };
        let int = |r: SequenceRequest| SequenceRequest {
            type_oid: Some(INT4_OID),
            ..r
        };
        let plain = int(SequenceRequest::default());
        assert_eq!(settle(plain.clone(), INT8_OID).unwrap(), (1, i64::MAX, 1));
        assert_eq!(settle(plain, INT2_OID).unwrap(), (1, 32767, 1));
        let capped = int(SequenceRequest {
            max: Some(Some(1000)),
            ..Default::default()
        });
        assert_eq!(settle(capped, INT8_OID).unwrap(), (1, 1000, 1));
        let down = int(SequenceRequest {
            increment: Some(-1),
            ..Default::default()
        });
        assert_eq!(settle(down.clone(), INT2_OID).unwrap(), (-32768, -1, -1));
        assert_eq!(settle(down, INT8_OID).unwrap(), (i64::MIN, -1, -1));
        // A start beyond the new type: PostgreSQL's START error.
        let high = int(SequenceRequest {
            start: Some(40000),
            ..Default::default()
        });
        assert!(settle(high, INT2_OID).is_err());
    }
}
