//! A transaction: its snapshot, its xid (assigned at its first write), its
//! commit and rollback, and its waits for other transactions.
//!
//! **Commit** (README "The commit instant"): a CSN is assigned, the commit
//! record — the CSN-log change, carrying xid and CSN — is inserted and the
//! fate stored under the log page's latch, the record is made durable
//! (group commit; or not waited for, with [`Durability::Async`]), and the
//! CSN is published in order. Storing "committed(c)" before `c` is
//! published is safe: no snapshot covers `c` yet, so the version stays
//! invisible until the publication, and then it is visible to every later
//! snapshot at once. An asynchronous commit is published in CSN order
//! too, so it may wait for a synchronous commit that took the CSN before
//! it to become durable (at most one flush).
//!
//! A transaction dropped without commit or rollback is rolled back.

use crate::advisory::AdvisoryOwner;
use crate::clock::Snapshot;
use crate::error::TxnError;
use crate::fate::Fate;
use crate::ids::{Csn, Xid};
use crate::interrupt::Interrupt;
use crate::live::{Ended, LiveEntry, WaitPolicy};
use crate::manager::{Outcome, TxnManager};
use crate::relation_locks::LockMode;
use crate::serializable::{SxId, Target as PredicateTarget};
use crate::stat_counts::{SessionStats, TxnStats};
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

/// Isolation levels, with PostgreSQL's meanings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Isolation {
    /// A new snapshot per statement ([`Transaction::next_statement`]).
    ReadCommitted,
    /// One snapshot for the whole transaction (snapshot isolation).
    RepeatableRead,
    /// One snapshot for the whole transaction, and serializable snapshot
    /// isolation's checks (`serializable.rs`): a transaction that could
    /// make the outcome differ from every serial order fails with 40001.
    Serializable,
}

/// When a commit returns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Durability {
    /// After the commit record is durable (under the WAL's `Sync` mode;
    /// the WAL's `Async` mode makes every commit asynchronous).
    Sync,
    /// At once; the WAL's background flusher makes it durable within its
    /// interval (`synchronous_commit = off`: a crash may lose the latest
    /// commits, never corrupt anything).
    Async,
}

/// A running transaction.
#[derive(Debug)]
pub struct Transaction {
    mgr: Arc<TxnManager>,
    isolation: Isolation,
    durability: Durability,
    snapshot: Snapshot,
    /// The snapshot slot this transaction publishes in (`slots.rs`).
    slot: usize,
    /// Set at the first write.
    entry: Option<Arc<LiveEntry>>,
    /// Open savepoints, innermost last.
    frames: Vec<Frame>,
    /// Subtransaction xids released into the top level.
    released: Vec<Xid>,
    /// Table locks held (`relation_locks.rs`), until the end.
    table_locks: Vec<(u64, LockMode)>,
    ended: bool,
    /// The session's cancel flag, if it has one: read by waits for
    /// another transaction and by the long loops of the layers above.
    interrupt: Option<Arc<Interrupt>>,
    /// SERIALIZABLE: this transaction's id in `serializable.rs`.
    serializable: Option<SxId>,
    /// READ ONLY: no xid is assigned for a write, so nothing can be
    /// written (`LOCK TABLE` assigns one: the lock's holder).
    read_only: bool,
    /// The session's advisory locks, whose transaction-scope takes end
    /// with this transaction (`advisory.rs`).
    advisory: Option<Arc<AdvisoryOwner>>,
    /// What the executor counted of tables and indexes, for its session's
    /// statistics (`stat_counts.rs`); `None`: nothing is counted.
    stats: Option<TxnStats>,
    /// Committed (read at the end, by the statistics).
    committed: bool,
    /// What reads do not see of this transaction's own writes
    /// ([`Transaction::as_of_command`], [`Transaction::before_triggers`]).
    hidden: Hidden,
    /// The statements running now whose BEFORE triggers are told apart
    /// from their own writes ([`Transaction::with_triggers`]), innermost
    /// last; boxed when there are any, so a transaction stays within 256
    /// bytes (it is moved several times per transaction, and glibc's
    /// `memcpy` takes a slower path above that).
    #[expect(
        clippy::box_collection,
        reason = "a Vec inline is 24 bytes; the box is 8 and rarely made"
    )]
    triggered: Option<Box<Vec<TriggeredWrites>>>,
}

/// Which of its own writes a transaction's reads do not see now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Hidden {
    Nothing,
    /// A statement's subquery reads: the writes of the frame of the
    /// statement's [`Command`], at that depth, and of the frames after it.
    From(u32),
    /// A statement's scan: what its triggers wrote (the entry of
    /// `triggered` at that index).
    Triggered(u32),
}

/// A statement whose triggers' writes are told apart from its own, as
/// PostgreSQL gives them later command ids than the statement's: its scan
/// does not see them ([`Transaction::before_triggers`]), and a row version
/// one of them changed is not the statement's to change
/// ([`Transaction::changed_by_triggers`]).
#[derive(Debug)]
struct TriggeredWrites {
    /// The number of frames open when the statement began: its own writes
    /// run while exactly these are open.
    depth: usize,
    /// The xid every trigger call of the statement writes with (one
    /// subtransaction for them all, assigned at their first write).
    xid: Option<Xid>,
    /// Every xid its trigger calls wrote with: `xid`, and those of the
    /// frames opened inside them (a trigger's own statements').
    xids: Vec<Xid>,
}

/// A frame's or statement's index as [`Hidden`] keeps it (u32: a
/// transaction stays within 256 bytes).
fn index(at: usize) -> u32 {
    u32::try_from(at).expect("fewer than 2^32 frames")
}

/// A statement begun by [`Transaction::with_triggers`]: its entry in the
/// transaction's list of them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Triggered(usize);

/// A statement's own writes, which its subqueries must not see
/// (PostgreSQL's command id): the frame, at that depth, that
/// [`Transaction::begin_command`] opened for them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Command(usize);

/// The name of a command's frame: no savepoint a client names (an
/// identifier has no NUL).
const COMMAND_FRAME: &str = "\0command";

/// The name of the frame a statement's trigger runs in
/// ([`Transaction::run_trigger`]).
const TRIGGER_FRAME: &str = "\0trigger";

/// A savepoint: the subtransaction its writes run in.
#[derive(Debug)]
struct Frame {
    name: String,
    /// Assigned at the first write after the savepoint.
    xid: Option<Xid>,
    /// Xids of inner savepoints released into this one.
    released: Vec<Xid>,
}

impl Frame {
    fn xids(&self) -> impl Iterator<Item = Xid> + '_ {
        self.xid.into_iter().chain(self.released.iter().copied())
    }
}

impl Transaction {
    pub(crate) fn new(
        mgr: Arc<TxnManager>,
        isolation: Isolation,
        durability: Durability,
    ) -> Result<Transaction, TxnError> {
        let claim = || mgr.slots.claim(mgr.clock());
        let (serializable, (slot, snapshot)) = if isolation == Isolation::Serializable {
            let (id, claimed) = mgr.serializable.begin(|| {
                let (slot, snapshot) = claim()?;
                Ok(((slot, snapshot), snapshot.0))
            })?;
            (Some(id), claimed)
        } else {
            (None, claim()?)
        };
        Ok(Transaction {
            mgr,
            isolation,
            durability,
            snapshot,
            slot,
            entry: None,
            frames: Vec::new(),
            released: Vec::new(),
            table_locks: Vec::new(),
            ended: false,
            interrupt: None,
            serializable,
            read_only: false,
            advisory: None,
            stats: None,
            committed: false,
            hidden: Hidden::Nothing,
            triggered: None,
        })
    }

    pub fn isolation(&self) -> Isolation {
        self.isolation
    }

    /// READ ONLY (or READ WRITE again): every write fails with 25006,
    /// which [`Transaction::xid`] decides, the first step of any write.
    pub fn set_read_only(&mut self, read_only: bool) {
        if read_only == self.read_only {
            return;
        }
        self.read_only = read_only;
        if let Some(id) = self.serializable {
            // Before any write (a read-only one never writes): SERIALIZABLE
            // may then apply its read-only rule.
            let declared = read_only && self.entry.is_none();
            self.mgr.serializable.declare_read_only(id, declared);
        }
    }

    pub fn is_read_only(&self) -> bool {
        self.read_only
    }

    /// Gives the transaction its session's cancel flag.
    pub fn set_interrupt(&mut self, interrupt: Arc<Interrupt>) {
        self.interrupt = Some(interrupt);
    }

    /// `Canceled` if the session's cancel flag is set (a relaxed load, for
    /// per-row loops), `OutOfMemory` if the statement grew past its
    /// memory limit ([`Interrupt::check`]).
    pub fn check_interrupt(&self) -> Result<(), TxnError> {
        match self.interrupt.as_deref() {
            Some(interrupt) => interrupt.check(),
            None => crate::interrupt::check_memory(),
        }
    }

    /// The session's cancel flag, for a loop that cannot reach the
    /// transaction while it runs.
    pub fn interrupt(&self) -> Option<Arc<Interrupt>> {
        self.interrupt.clone()
    }

    /// Counts what the executor does to tables and indexes for `session`'s
    /// statistics (`stat_counts.rs`).
    pub fn set_stats(&mut self, session: Arc<SessionStats>) {
        self.stats = Some(TxnStats::new(session));
    }

    /// A sequential scan of `table` returned `rows`.
    pub fn count_seq_scan(&self, table: u64, rows: u64) {
        if let Some(stats) = &self.stats {
            stats.seq_scan(table, rows);
        }
    }

    /// `scans` scans of `index` returned `returned` entries and fetched
    /// `fetched` table rows.
    pub fn count_index_scan(&self, index: u64, scans: u64, returned: u64, fetched: u64) {
        if let Some(stats) = &self.stats {
            stats.index_scan(index, scans, returned, fetched);
        }
    }

    /// `rows` rows were inserted into `table`.
    pub fn count_insert(&mut self, table: u64, rows: u64) {
        if let Some(stats) = &mut self.stats {
            stats.inserted(table, rows);
        }
    }

    /// A row of `table` was updated (`hot`: heap-only).
    pub fn count_update(&mut self, table: u64, hot: bool) {
        if let Some(stats) = &mut self.stats {
            stats.updated(table, hot);
        }
    }

    /// A row of `table` was deleted.
    pub fn count_delete(&mut self, table: u64) {
        if let Some(stats) = &mut self.stats {
            stats.deleted(table);
        }
    }

    /// `table` was truncated.
    pub fn count_truncate(&mut self, table: u64) {
        if let Some(stats) = &mut self.stats {
            stats.truncated(table);
        }
    }

    /// Relation `oid` was dropped: its statistics go if this commits.
    pub fn count_drop(&mut self, oid: u64) {
        if let Some(stats) = &mut self.stats {
            stats.dropped(oid);
        }
    }

    pub fn manager(&self) -> &Arc<TxnManager> {
        &self.mgr
    }

    /// The snapshot the current statement reads with.
    pub fn snapshot(&self) -> Snapshot {
        self.snapshot
    }

    /// Starts a statement: READ COMMITTED takes a new snapshot; REPEATABLE
    /// READ keeps the transaction's.
    pub fn next_statement(&mut self) {
        if self.isolation == Isolation::ReadCommitted && !self.ended {
            self.snapshot = self.mgr.slots.refresh(self.slot, self.mgr.clock());
        }
    }

    /// Runs `f` reading with a snapshot taken now, then (REPEATABLE READ)
    /// goes back to the transaction's: for DDL that must see every
    /// committed row once it has locked writers out (an index build). The
    /// published snapshot slot keeps the older snapshot, so the horizon
    /// stays where it was: nothing `f` or the kept snapshot can see is
    /// pruned meanwhile.
    pub fn with_latest_snapshot<T>(&mut self, f: impl FnOnce(&mut Transaction) -> T) -> T {
        let kept = self.snapshot;
        self.snapshot = self.mgr.clock().snapshot();
        let out = f(self);
        if self.isolation != Isolation::ReadCommitted {
            self.snapshot = kept;
        }
        out
    }

    /// The top-level xid, if the transaction has written.
    pub fn existing_xid(&self) -> Option<Xid> {
        self.entry.as_ref().map(|e| e.xid)
    }

    /// The xid the next write carries, assigned now if needed: the
    /// innermost savepoint's subtransaction xid, or the top-level one.
    pub fn xid(&mut self) -> Result<Xid, TxnError> {
        let top = self.top_xid()?;
        let Some(frame) = self.frames.last_mut() else {
            return Ok(top);
        };
        if let Some(xid) = frame.xid {
            return Ok(xid);
        }
        let xid = self.mgr.assign_sub_xid(top)?;
        frame.xid = Some(xid);
        Ok(xid)
    }

    /// The top-level xid, assigned now if the transaction has none (as
    /// a first write assigns it; PostgreSQL's `txid_current()` asks for
    /// it): never in a READ ONLY transaction.
    pub fn top_xid(&mut self) -> Result<Xid, TxnError> {
        if self.ended {
            return Err(TxnError::Ended);
        }
        if self.read_only {
            return Err(TxnError::ReadOnly);
        }
        match &self.entry {
            Some(entry) => Ok(entry.xid),
            None => self.assign_top_xid(),
        }
    }

    /// Assigns the top-level xid (there is none yet).
    fn assign_top_xid(&mut self) -> Result<Xid, TxnError> {
        Ok(match &self.entry {
            Some(entry) => entry.xid,
            None => {
                let entry = self.mgr.assign_xid()?;
                let xid = entry.xid;
                self.entry = Some(entry);
                if let Some(interrupt) = &self.interrupt {
                    interrupt.set_xid(Some(xid));
                }
                if let Some(id) = self.serializable {
                    self.mgr.serializable.register_xid(id, xid);
                }
                xid
            }
        })
    }

    /// Makes this transaction the one `owner`'s transaction-scope
    /// advisory locks last for: they are given back when it ends.
    pub fn set_advisory(&mut self, owner: Arc<AdvisoryOwner>) {
        self.advisory = Some(owner);
    }

    /// Whether `xid` is this transaction's own (top level, or a
    /// subtransaction not rolled back).
    pub fn is_mine(&self, xid: Xid) -> bool {
        self.entry.as_ref().is_some_and(|e| e.xid == xid)
            || self.released.contains(&xid)
            || self.frames.iter().any(|f| f.xids().any(|x| x == xid))
    }

    /// Locks table `oid` in `mode` until this transaction ends
    /// (`relation_locks.rs`), waiting for running holders of conflicting
    /// modes (deadlocks: 40P01; `lock_timeout`: 55P03): the lock of a
    /// write or of DDL, so a READ ONLY transaction is refused it (25006).
    /// Gives the transaction an xid: the lock's holder. Returns whether
    /// the lock was newly taken (false: held already).
    pub fn lock_table(&mut self, oid: u64, mode: LockMode) -> Result<bool, TxnError> {
        if self.holds_table_lock(oid, mode) {
            return Ok(false);
        }
        self.xid()?;
        self.take_table_lock(oid, mode, WaitPolicy::Block)
    }

    /// `LOCK TABLE`: [`Transaction::lock_table`] in any mode, in a READ
    /// ONLY transaction too (a lock is no write; PostgreSQL 15 takes every
    /// mode there), and with `nowait` failing with `LockNotAvailable`
    /// (55P03) where it would wait.
    pub fn lock_table_explicitly(
        &mut self,
        oid: u64,
        mode: LockMode,
        nowait: bool,
    ) -> Result<bool, TxnError> {
        if self.holds_table_lock(oid, mode) {
            return Ok(false);
        }
        if self.ended {
            return Err(TxnError::Ended);
        }
        if self.entry.is_none() {
            // (The one xid a READ ONLY transaction gets: `top_xid` still
            // refuses its writes.)
            self.assign_top_xid()?;
        }
        let policy = match nowait {
            true => WaitPolicy::NoWait,
            false => WaitPolicy::Block,
        };
        self.take_table_lock(oid, mode, policy)
    }

    /// The table locks it holds: `(oid, mode)`, in the order taken.
    pub fn table_locks(&self) -> &[(u64, LockMode)] {
        &self.table_locks
    }

    fn holds_table_lock(&self, oid: u64, mode: LockMode) -> bool {
        (self.table_locks.iter()).any(|&(o, held)| o == oid && held.covers(mode))
    }

    /// Takes the lock for this transaction's top-level xid (assigned).
    fn take_table_lock(
        &mut self,
        oid: u64,
        mode: LockMode,
        policy: WaitPolicy,
    ) -> Result<bool, TxnError> {
        let me = self.existing_xid().expect("assigned by the caller");
        let mgr = self.mgr.clone();
        while let Some(holder) = mgr.relation_locks.try_acquire(&mgr, oid, mode, me) {
            self.wait_with(holder, policy)?;
        }
        self.table_locks.push((oid, mode));
        Ok(true)
    }

    /// `SAVEPOINT name`: later writes run in a subtransaction that
    /// `rollback_to(name)` can undo alone.
    pub fn savepoint(&mut self, name: &str) -> Result<(), TxnError> {
        if self.ended {
            return Err(TxnError::Ended);
        }
        self.frames.push(Frame {
            name: name.to_string(),
            xid: None,
            released: Vec::new(),
        });
        if let Some(stats) = &mut self.stats {
            stats.savepoint();
        }
        Ok(())
    }

    /// `ROLLBACK TO SAVEPOINT name`: aborts every write since the (innermost)
    /// savepoint of that name, which stays open; later savepoints go.
    pub fn rollback_to(&mut self, name: &str) -> Result<(), TxnError> {
        let at = self.frame(name)?;
        let doomed: Vec<Xid> = self.frames[at..].iter().flat_map(Frame::xids).collect();
        self.frames.truncate(at + 1);
        let frame = &mut self.frames[at];
        frame.xid = None;
        frame.released.clear();
        if let Some(stats) = &mut self.stats {
            stats.roll_back_past(at);
        }
        for xid in doomed {
            self.mgr.log().set_fate(xid, Fate::Aborted)?;
        }
        Ok(())
    }

    /// `RELEASE SAVEPOINT name`: keeps the writes since the savepoint as
    /// part of the enclosing one (or the transaction) and closes it and
    /// every later one.
    pub fn release(&mut self, name: &str) -> Result<(), TxnError> {
        let at = self.frame(name)?;
        self.release_from(at);
        Ok(())
    }

    /// Closes the frame at depth `at` and every later one, their writes
    /// kept as the enclosing frame's (or the transaction's): what
    /// `RELEASE SAVEPOINT` and the end of a command do.
    fn release_from(&mut self, at: usize) {
        let merged: Vec<Xid> = self.frames[at..].iter().flat_map(Frame::xids).collect();
        self.frames.truncate(at);
        if let Some(stats) = &mut self.stats {
            stats.release_to(at);
        }
        match self.frames.last_mut() {
            Some(outer) => outer.released.extend(merged),
            None => self.released.extend(merged),
        }
    }

    /// Starts a command: the writes from now until [`Transaction::end_command`]
    /// run in a frame of their own (a subtransaction, its xid assigned at
    /// the first write), so that [`Transaction::as_of_command`] can hide
    /// them from the statement's own reads, as PostgreSQL's command ids
    /// do.
    pub fn begin_command(&mut self) -> Result<Command, TxnError> {
        self.savepoint(COMMAND_FRAME)?;
        Ok(Command(self.frames.len() - 1))
    }

    /// Ends `command`: its writes join the enclosing frame (or the
    /// transaction), as `RELEASE SAVEPOINT` does. Nothing if a `ROLLBACK
    /// TO` of an earlier savepoint closed its frame already.
    pub fn end_command(&mut self, command: Command) {
        let Command(at) = command;
        if self.frames.get(at).is_some_and(|f| f.name == COMMAND_FRAME) {
            self.release_from(at);
        }
    }

    /// Runs `f` reading as the statement that began `command` read: its
    /// own writes since (and those of the savepoints opened after it)
    /// are not seen, as if another transaction made them; the version
    /// one of them replaced or deleted is seen still. Only reads
    /// ([`Transaction::sees`]) change: a write still knows its own.
    /// `command`: `None` runs `f` seeing every write of the transaction
    /// (a function called from inside such a read, which PostgreSQL runs
    /// with a new command id).
    ///
    /// Inside a read as of an earlier command (a statement with
    /// data-modifying CTEs, all of whose parts read as of its start), a
    /// later command's read keeps hiding everything since the earlier
    /// one: PostgreSQL gives the whole statement one command id.
    pub fn as_of_command<T>(
        &mut self,
        command: Option<Command>,
        f: impl FnOnce(&mut Transaction) -> T,
    ) -> T {
        let hidden = command.map_or(Hidden::Nothing, |Command(at)| Hidden::From(index(at)));
        self.reading_with(hidden, f)
    }

    /// Runs `f` with `hidden` hidden from its reads, or with what is
    /// hidden now where that hides more: a read as of an earlier command
    /// (`From`) hides a later command's writes and a statement's
    /// triggers' (their frames open after it and are released into it).
    fn reading_with<T>(&mut self, hidden: Hidden, f: impl FnOnce(&mut Transaction) -> T) -> T {
        let kept = self.hidden;
        self.hidden = match (kept, hidden) {
            (Hidden::From(outer), Hidden::From(inner)) if outer <= inner => kept,
            (Hidden::From(_), Hidden::Triggered(_)) => kept,
            _ => hidden,
        };
        let out = f(self);
        self.hidden = kept;
        out
    }

    fn reading_with_nothing_hidden<T>(&mut self, f: impl FnOnce(&mut Transaction) -> T) -> T {
        let kept = std::mem::replace(&mut self.hidden, Hidden::Nothing);
        let out = f(self);
        self.hidden = kept;
        out
    }

    /// Whether `xid`, one of this transaction's own, is a write that
    /// [`Transaction::as_of_command`] or [`Transaction::before_triggers`]
    /// hides now.
    pub fn hides(&self, xid: Xid) -> bool {
        match self.hidden {
            Hidden::Nothing => false,
            Hidden::From(at) => (self.frames.get(at as usize..))
                .is_some_and(|later| later.iter().any(|f| f.xids().any(|x| x == xid))),
            Hidden::Triggered(at) => {
                (self.triggered().get(at as usize)).is_some_and(|t| t.xids.contains(&xid))
            }
        }
    }

    /// Runs `statement` with its triggers' writes told apart from its
    /// own, as PostgreSQL's later command ids tell them: each trigger it
    /// fires runs through [`Transaction::run_trigger`], its scan through
    /// [`Transaction::before_triggers`], and its writes refuse a row
    /// version a trigger changed ([`Transaction::changed_by_triggers`]).
    /// Its own writes go where they would without this (no frame, no xid
    /// of their own). Ended whatever `statement` returns.
    pub fn with_triggers<T>(
        &mut self,
        statement: impl FnOnce(&mut Transaction, Triggered) -> T,
    ) -> T {
        let triggered = self.triggered.get_or_insert_default();
        let at = triggered.len();
        triggered.push(TriggeredWrites {
            depth: self.frames.len(),
            xid: None,
            xids: Vec::new(),
        });
        let out = statement(self, Triggered(at));
        if let Some(triggered) = &mut self.triggered {
            triggered.truncate(at);
        }
        out
    }

    /// Runs `trigger`, one the statement of `triggered` fires, in a frame
    /// of its own: its writes carry the xid every trigger of the statement
    /// shares (assigned at the first write; one subtransaction, however
    /// many rows fire it), and join the enclosing frame at the end, as
    /// `RELEASE SAVEPOINT` would.
    pub fn run_trigger<T>(
        &mut self,
        triggered: Triggered,
        trigger: impl FnOnce(&mut Transaction) -> T,
    ) -> T {
        let Triggered(entry) = triggered;
        let shared = self.triggered().get(entry).and_then(|t| t.xid);
        if self.savepoint(TRIGGER_FRAME).is_err() {
            // The transaction has ended: nothing can be written.
            return trigger(self);
        }
        let at = self.frames.len() - 1;
        self.frames[at].xid = shared;
        // A trigger reads every write made before it (PostgreSQL runs it
        // with a later command id), whatever the statement's reads hide.
        let out = self.reading_with_nothing_hidden(trigger);
        if self.frames.get(at).is_some_and(|f| f.name == TRIGGER_FRAME) {
            let written: Vec<Xid> = self.frames[at..].iter().flat_map(Frame::xids).collect();
            if let Some(t) = self.triggered.as_mut().and_then(|t| t.get_mut(entry)) {
                for xid in written {
                    if !t.xids.contains(&xid) {
                        t.xids.push(xid);
                    }
                }
                t.xid = t.xid.or(self.frames[at].xid);
            }
            if shared.is_some() {
                // Joined the enclosing frame at the first call already.
                self.frames[at].xid = None;
            }
            self.release_from(at);
        }
        out
    }

    /// Runs `f` reading as the statement of `triggered` reads its rows:
    /// what its triggers wrote is not seen (a row one inserted, the new
    /// version of a row one updated; the version replaced or deleted is
    /// seen still), as PostgreSQL's scan reads with the statement's command
    /// id, older than its triggers'.
    pub fn before_triggers<T>(
        &mut self,
        triggered: Triggered,
        f: impl FnOnce(&mut Transaction) -> T,
    ) -> T {
        let Triggered(at) = triggered;
        self.reading_with(Hidden::Triggered(index(at)), f)
    }

    /// The statements of [`Transaction::with_triggers`] running now.
    fn triggered(&self) -> &[TriggeredWrites] {
        self.triggered.as_deref().map_or(&[], |t| t.as_slice())
    }

    /// Whether `xid`, one of this transaction's own, wrote for a trigger
    /// of the statement writing now (the innermost of
    /// [`Transaction::with_triggers`], while none of its triggers runs):
    /// PostgreSQL's row version "already modified by an operation
    /// triggered by the current command".
    pub fn changed_by_triggers(&self, xid: Xid) -> bool {
        self.triggered()
            .last()
            .is_some_and(|t| t.depth == self.frames.len() && t.xids.contains(&xid))
    }

    /// Whether a savepoint is open (`ROLLBACK TO` may then resume the
    /// transaction after an error).
    pub fn has_savepoints(&self) -> bool {
        !self.frames.is_empty()
    }

    /// The innermost open savepoint named `name`.
    fn frame(&self, name: &str) -> Result<usize, TxnError> {
        if self.ended {
            return Err(TxnError::Ended);
        }
        self.frames
            .iter()
            .rposition(|f| f.name == name)
            .ok_or_else(|| TxnError::NoSavepoint(name.to_string()))
    }

    /// Whether this transaction runs SERIALIZABLE (its reads and writes
    /// then report to [`Transaction::predicate_read`] and the others).
    pub fn is_serializable(&self) -> bool {
        self.serializable.is_some()
    }

    /// SERIALIZABLE: this transaction read `target` (a SIREAD lock, kept
    /// past its end while a concurrent transaction runs). Fails with 40001
    /// if the transaction was chosen to fail. Nothing at other levels.
    pub fn predicate_read(&self, target: PredicateTarget) -> Result<(), TxnError> {
        match self.serializable {
            Some(_) if self.mgr.is_system_relation(target.relation()) => Ok(()),
            Some(id) => self.mgr.serializable.read(id, target),
            None => Ok(()),
        }
    }

    /// SERIALIZABLE: this transaction is about to write `targets` (a
    /// relation it adds to, the version it deletes or updates, an index
    /// key it enters); concurrent readers of them conflict with it.
    pub fn predicate_write(&self, targets: &[PredicateTarget]) -> Result<(), TxnError> {
        let Some(id) = self.serializable else {
            return Ok(());
        };
        let system = |t: &PredicateTarget| self.mgr.is_system_relation(t.relation());
        if !targets.iter().any(system) {
            return self.mgr.serializable.write(id, targets);
        }
        let user: Vec<PredicateTarget> = targets.iter().filter(|t| !system(t)).copied().collect();
        match user.is_empty() {
            true => Ok(()),
            false => self.mgr.serializable.write(id, &user),
        }
    }

    /// SERIALIZABLE: a version this transaction met was inserted or
    /// deleted by `xid`, whose work its snapshot does not see (a
    /// transaction running, or committed after the snapshot; not aborted).
    pub fn missed_write(&self, xid: Xid) -> Result<(), TxnError> {
        match self.serializable {
            Some(id) => {
                let top = self.mgr.top_of(xid)?;
                self.mgr.serializable.missed_write(id, top)
            }
            None => Ok(()),
        }
    }

    /// Whether the work of `xid` is visible to this transaction's current
    /// snapshot: its own (unless [`Transaction::as_of_command`] hides it),
    /// or committed at or before the snapshot.
    pub fn sees(&self, xid: Xid) -> Result<bool, TxnError> {
        if self.is_mine(xid) {
            return Ok(!self.hides(xid));
        }
        Ok(self.snapshot.sees(self.mgr.fate(xid)?))
    }

    /// Commits. Returns the CSN, or `None` for a transaction that wrote
    /// nothing (it logs nothing and waits for nothing).
    pub fn commit(mut self) -> Result<Option<Csn>, TxnError> {
        if self.ended {
            return Err(TxnError::Ended);
        }
        self.ended = true;
        let Some(entry) = self.entry.take() else {
            if let Some(id) = self.serializable {
                self.mgr.serializable.commit(id, || ((), None))?;
            }
            self.committed = true;
            return Ok(None);
        };
        let mgr = self.mgr.clone();
        let (csn, published) = commit_entry(&mgr, &entry, self.serializable, self.durability);
        self.committed = published;
        csn.map(Some)
    }

    /// `PREPARE TRANSACTION gid` (README "Two-phase commit"): the
    /// transaction leaves its session and stays running, prepared, until
    /// `TxnManager::finish_prepared` commits or rolls it back. It gets
    /// an xid if it has none; its state (gid, `owner`, `database`, the
    /// time, its table locks) is stored in the CSN log's directory and
    /// the WAL flushed before this returns. Refused (and rolled back)
    /// when `gid` is in use (42710), `max_prepared_transactions` are
    /// prepared (53200; 55000 when it is 0), it holds transaction-level
    /// advisory locks (0A000) or SERIALIZABLE's commit check fails it.
    pub fn prepare(mut self, gid: &str, owner: &str, database: &str) -> Result<(), TxnError> {
        use crate::prepared::{PreparedTxn, duplicate_gid, too_many};
        if self.ended {
            return Err(TxnError::Ended);
        }
        let mgr = self.mgr.clone();
        {
            let mut map = mgr.prepared.lock();
            if map.contains_key(gid) {
                return Err(duplicate_gid(gid));
            }
            if map.len() >= mgr.config.max_prepared {
                return Err(too_many(mgr.config.max_prepared));
            }
            map.insert(gid.to_string(), None);
        }
        let prepared = self.prepare_state(gid, owner, database);
        let mut map = mgr.prepared.lock();
        let state = match prepared {
            Ok(state) => state,
            Err(e) => {
                map.remove(gid);
                return Err(e);
            }
        };
        self.ended = true;
        let prepared = PreparedTxn {
            info: state.info,
            entry: self.entry.take().expect("assigned by prepare_state"),
            serializable: self.serializable.take(),
            stats: self.stats.take(),
        };
        map.insert(gid.to_string(), Some(prepared));
        Ok(())
    }

    /// [`Transaction::prepare`]'s checks and its durable state.
    fn prepare_state(
        &mut self,
        gid: &str,
        owner: &str,
        database: &str,
    ) -> Result<crate::prepared::State, TxnError> {
        if let Some(both) = self.advisory.as_ref().and_then(|a| a.transaction_holds()) {
            // (PostgreSQL moves transaction-level advisory locks to the
            // prepared transaction; folio's holders are sessions, so it
            // refuses them all.)
            let message = match both {
                true => {
                    "cannot PREPARE while holding both session-level and transaction-level locks on the same object"
                }
                false => "cannot PREPARE a transaction that holds transaction-level advisory locks",
            };
            return Err(TxnError::Prepared {
                sqlstate: "0A000",
                message: message.into(),
                hint: None,
            });
        }
        if let Some(id) = self.serializable {
            self.mgr.serializable.prepare(id)?;
        }
        let xid = self.assign_top_xid()?;
        let prepared_at_us = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_micros() as i64);
        let state = crate::prepared::State {
            info: crate::prepared::PreparedInfo {
                gid: gid.to_string(),
                xid,
                prepared_at_us,
                owner: owner.to_string(),
                database: database.to_string(),
            },
            serializable: self.serializable.is_some(),
            table_locks: self.table_locks.clone(),
        };
        let log = self.mgr.log();
        log.put_prepared(xid, &state.encode())?;
        // Durable before it returns, whatever `synchronous_commit` says.
        log.wal().flush_all()?;
        Ok(state)
    }

    /// Rolls back: the xid's fate becomes aborted (logged, not flushed).
    pub fn rollback(mut self) -> Result<(), TxnError> {
        if self.ended {
            return Err(TxnError::Ended);
        }
        self.ended = true;
        match self.entry.take() {
            Some(entry) => self.abort(&entry),
            None => Ok(()),
        }
    }

    /// Records the abort and leaves the live table. If the abort record
    /// cannot be logged (full disk, poisoned WAL), the xid stays "in
    /// progress" in the log and, being out of the live table, is aborted by
    /// rule (`TxnManager::outcome`); after a crash, by the run-start rule.
    fn abort(&self, entry: &LiveEntry) -> Result<(), TxnError> {
        abort_entry(&self.mgr, entry)
    }

    /// Waits until `holder` ends (its version is in this transaction's
    /// way) and says how it ended. Fails with `Deadlock` if, after
    /// `deadlock_timeout`, the wait-for graph leads from `holder` back to
    /// this transaction, and with `LockTimeout` after `lock_timeout`.
    pub fn wait_for(&mut self, holder: Xid) -> Result<Ended, TxnError> {
        let ended = self.wait_with(holder, WaitPolicy::Block)?;
        Ok(ended.expect("a blocking wait always ends"))
    }

    /// [`Transaction::wait_for`] under `policy`: the one owner of what a
    /// transaction does when another running one holds what it wants.
    /// `Block` waits; `NoWait` fails with `LockNotAvailable` (55P03) and
    /// `SkipLocked` returns `None` if `holder` (or its top-level
    /// transaction) is still running. A holder that has ended is no
    /// obstacle under any policy: how it ended.
    pub fn wait_with(
        &mut self,
        holder: Xid,
        policy: WaitPolicy,
    ) -> Result<Option<Ended>, TxnError> {
        // (A READ ONLY transaction waits only for a table lock, whose
        // xid it has.)
        if !(self.read_only && self.entry.is_some()) {
            self.xid()?;
        }
        let me = self.existing_xid().expect("assigned above");
        let mgr = self.mgr.clone();
        let holder = mgr.top_of(holder)?;
        let Some(held) = mgr.live.get(holder) else {
            return Ok(Some(match mgr.outcome(holder)? {
                Outcome::Committed(_) => Ended::Committed,
                _ => Ended::Aborted,
            }));
        };
        match policy {
            WaitPolicy::Block => {}
            WaitPolicy::NoWait => return Err(TxnError::LockNotAvailable { me, holder }),
            WaitPolicy::SkipLocked => return Ok(None),
        }
        let mine = self.entry.clone().expect("assigned above");
        mine.waiting_for.store(holder.0, Ordering::Release);
        let interrupt = self.interrupt.as_deref();
        if let Some(interrupt) = interrupt {
            interrupt.waiting_on(Some((held.clone(), holder)));
        }
        // The holder may be a session idle between its client's messages:
        // the host gets to free this thread's place first (folio-io's
        // `blocking`).
        let result = folio_io::blocking::region(|| wait_loop(&mgr, &held, me, holder, interrupt));
        if let Some(interrupt) = interrupt {
            interrupt.waiting_on(None);
        }
        mine.waiting_for.store(0, Ordering::Release);
        result.map(Some)
    }
}

/// Commits the top-level transaction `entry` (its `serializable`
/// registration, at `durability`): the commit instant of the README,
/// from the CSN to its publication. On a failure before its record is
/// logged it is rolled back; the flag says whether it was published
/// (committed, even if the flush then failed). A prepared transaction's commit
/// (`TxnManager::finish_prepared`) is this one.
pub(crate) fn commit_entry(
    mgr: &Arc<TxnManager>,
    entry: &LiveEntry,
    serializable: Option<SxId>,
    durability: Durability,
) -> (Result<Csn, TxnError>, bool) {
    let wal = mgr.log().wal().clone();
    if let Err(e) = wal.throttle() {
        // The commit's own error is the one to report.
        let _ = abort_entry(mgr, entry);
        return (Err(e.into()), false);
    }
    // SERIALIZABLE: the commit check and the CSN under one lock, so
    // serializable commits are checked in CSN order.
    let assign = || {
        let ticket = mgr.clock().assign();
        let csn = ticket.csn();
        (ticket, Some(csn))
    };
    let mut ticket = match serializable {
        None => assign().0,
        Some(id) => match mgr.serializable.commit(id, assign) {
            Ok(ticket) => ticket,
            Err(e) => {
                let _ = abort_entry(mgr, entry);
                return (Err(e), false);
            }
        },
    };
    let csn = ticket.csn();
    let logged = mgr
        .reserve_csn(csn)
        .and_then(|()| mgr.log().set_fate(entry.xid, Fate::Committed(csn)));
    let end = match logged {
        Ok(end) => end,
        Err(e) => {
            drop(ticket); // a gap in the commit order
            let _ = abort_entry(mgr, entry);
            return (Err(e), false);
        }
    };
    // Marked with its record's end when it waits for it to be durable:
    // later commits may become visible past it as soon as it is, by
    // whichever committer runs first after the flush.
    let waits = durability == Durability::Sync && wal.commit_waits();
    let lsn = if waits { end.0 } else { 0 };
    ticket.mark(lsn);
    let durable = match durability {
        Durability::Sync => wal.commit(end),
        Durability::Async => wal.commit_async(end),
    };
    // Published even if the flush failed (marked with no LSN to wait
    // for): the WAL is poisoned then and the outcome is for recovery to
    // tell; later commits must not wait for this one for ever.
    let lsn = if durable.is_ok() { lsn } else { 0 };
    ticket.publish_with(lsn, &WalProgress(&wal));
    mgr.finish(entry, Ended::Committed);
    (durable.map(|()| csn).map_err(TxnError::from), true)
}

/// Records the abort of `entry` and takes it out of the live table
/// ([`Transaction::rollback`]'s end).
fn abort_entry(mgr: &TxnManager, entry: &LiveEntry) -> Result<(), TxnError> {
    let logged = mgr.log().set_fate(entry.xid, Fate::Aborted);
    mgr.finish(entry, Ended::Aborted);
    logged.map(|_| ())
}

fn wait_loop(
    mgr: &TxnManager,
    held: &LiveEntry,
    me: Xid,
    holder: Xid,
    interrupt: Option<&Interrupt>,
) -> Result<Ended, TxnError> {
    let config = mgr.config;
    let start = Instant::now();
    let mut deadlock_checked = false;
    loop {
        if interrupt.is_some_and(Interrupt::is_set_strict) {
            return Err(TxnError::Canceled);
        }
        let waited = start.elapsed();
        if let Some(limit) = config.lock_timeout
            && waited >= limit
        {
            return Err(TxnError::LockTimeout {
                me,
                holder,
                waited_ms: waited.as_millis() as u64,
            });
        }
        let mut next = Duration::from_secs(1);
        if !deadlock_checked {
            next = next.min(config.deadlock_timeout.saturating_sub(waited));
        }
        if let Some(limit) = config.lock_timeout {
            next = next.min(limit.saturating_sub(waited));
        }
        if let Some(ended) = held.wait(next, interrupt) {
            return Ok(ended);
        }
        if !deadlock_checked && start.elapsed() >= config.deadlock_timeout {
            deadlock_checked = true;
            if mgr.live.leads_to(holder, me) {
                mgr.stats().count_deadlock();
                return Err(TxnError::Deadlock { me, holder });
            }
        }
    }
}

impl Drop for Transaction {
    fn drop(&mut self) {
        if !self.ended {
            self.ended = true;
            if let Some(entry) = self.entry.take() {
                let _ = self.abort(&entry);
            }
        }
        if let Some(stats) = self.stats.take() {
            stats.end(self.committed);
        }
        if let Some(owner) = self.advisory.take() {
            owner.end_transaction();
        }
        if let Some(interrupt) = &self.interrupt {
            interrupt.set_xid(None);
        }
        if let Some(id) = self.serializable.take() {
            self.mgr.serializable.end(id, self.mgr.clock().completed());
        }
        self.mgr.slots.release(self.slot);
    }
}

/// The WAL as the commit clock sees it.
struct WalProgress<'a>(&'a folio_wal::Wal);

impl crate::clock::WalState for WalProgress<'_> {
    fn synced(&self) -> u64 {
        self.0.synced_lsn().0
    }

    fn wait(&self, lsn: u64) {
        // An error poisons the WAL; the failed commit marks itself.
        let _ = self.0.flush_to(folio_page::Lsn(lsn));
    }
}

#[cfg(test)]
mod tests {
    // Proves a transaction stays within 256 bytes: the layers above move
    // it several times per statement, and glibc's `memcpy` takes a slower
    // path above that (the seed-000 point query paid 160 instructions
    // per transaction at 280 bytes).
    #[test]
    fn a_transaction_fits_in_256_bytes() {
        assert!(std::mem::size_of::<super::Transaction>() <= 256);
    }
}
