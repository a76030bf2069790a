//! SERIALIZABLE: serializable snapshot isolation (PostgreSQL's SSI, after
//! Cahill, Röhm and Fekete; README "SERIALIZABLE"). Only serializable
//! transactions come here; the other levels never touch this state.
//!
//! A serializable transaction reads with one snapshot, as REPEATABLE READ
//! does, and records two kinds of rw-antidependency `R -> W` ("`R` read
//! something `W` writes, without seeing `W`'s write") between concurrent
//! serializable transactions:
//!
//! - *conflict out*, found by the reader: a version its snapshot does not
//!   see was inserted, or a version it sees was deleted, by `W`
//!   (`missed_write`, called by the heap's visibility rule);
//! - *conflict in*, found by the writer: it writes something a concurrent
//!   `R` holds a SIREAD lock on (`read`, `write`).
//!
//! Every cycle in the serialization graph of snapshot-isolation
//! transactions contains a *dangerous structure* `R -> P -> W` of two such
//! edges between concurrent transactions, `R` possibly `W`, in which `W`
//! commits first of the three (Fekete et al., 2005). This module never
//! lets one complete: it is checked when an edge is added and when a
//! transaction commits, and one of `R` and `P` fails with 40001 — the
//! transaction at hand if it is one of them, else the pivot `P`, which is
//! *doomed* and fails at its next step. A pivot keeps the commit position
//! of the earliest writer it conflicts out to (`earliest_out`), so a
//! committed writer can be forgotten while the pivot is still remembered.
//!
//! All of it runs under one mutex, taken only by serializable
//! transactions (PostgreSQL's `SerializableXactHashLock` has the same
//! scope). Commits of serializable transactions take their CSN under it,
//! so the order this module sees them commit in is their CSN order.

use crate::error::TxnError;
use crate::ids::{Csn, Xid};
use std::collections::{HashMap, HashSet, VecDeque};
use std::hash::{DefaultHasher, Hash, Hasher};
use std::sync::Mutex;

/// What a SIREAD lock covers: something a serializable transaction read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Target {
    /// Every row of a relation, present and future (a scan, or a read
    /// whose predicate a narrower lock cannot cover). The relation's id
    /// is its storage's (a tree's root page).
    Relation(u64),
    /// One tuple version of a table: (table, tuple id).
    Tuple(u64, u64),
    /// Every entry of one whole key of an index, present and future:
    /// (index, hash of the key's bytes; a collision only adds conflicts).
    Key(u64, u64),
}

impl Target {
    /// The key target of `key` in index `index`.
    pub fn key(index: u64, key: &[u8]) -> Target {
        let mut hasher = DefaultHasher::new();
        key.hash(&mut hasher);
        Target::Key(index, hasher.finish())
    }

    /// The table or index it is on.
    pub(crate) fn relation(self) -> u64 {
        match self {
            Target::Relation(r) | Target::Tuple(r, _) | Target::Key(r, _) => r,
        }
    }
}

/// Past this many tuple or key locks on one relation, a transaction takes
/// the relation's lock instead (PostgreSQL's
/// `max_pred_locks_per_relation` promotion).
pub const PROMOTE_AT: u32 = 1024;

/// A serializable transaction's id in this module.
pub(crate) type SxId = u64;

/// Where a serializable transaction was found to be part of a dangerous
/// structure (or doomed by another that found it): PostgreSQL's "Reason
/// code".
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reason {
    /// While reading (a SIREAD lock, a version it does not see).
    ConflictOut,
    /// While writing something a concurrent transaction read.
    ConflictIn,
    /// When it tried to commit.
    Commit,
}

impl Reason {
    /// PostgreSQL's wording of the reason.
    pub fn detail(self) -> &'static str {
        match self {
            Reason::ConflictOut => {
                "Canceled on identification as a pivot, during conflict out checking."
            }
            Reason::ConflictIn => {
                "Canceled on identification as a pivot, during conflict in checking."
            }
            Reason::Commit => "Canceled on identification as a pivot, during commit attempt.",
        }
    }
}

#[derive(Debug, Clone, Copy)]
struct Commit {
    /// Position in this module's order of begins and commits.
    at: u64,
    /// The commit's CSN; `None` for a transaction that wrote nothing.
    csn: Option<Csn>,
}

#[derive(Debug)]
struct Sx {
    snapshot: Csn,
    /// Position in the order of begins and commits when the snapshot was
    /// taken.
    begun: u64,
    commit: Option<Commit>,
    /// Prepared (two-phase commit) at this position: it will commit, so
    /// as a writer it counts as committed from here on, and it is never
    /// the one to fail (README "Two-phase commit").
    prepared: Option<u64>,
    /// Declared READ ONLY (it can never write).
    read_only: bool,
    doomed: bool,
    xid: Option<Xid>,
    /// Readers that missed this one's writes (`R -> self`).
    ins: HashSet<SxId>,
    /// Writers whose writes this one missed (`self -> W`).
    outs: HashSet<SxId>,
    /// The earliest commit position among the writers in `outs` that
    /// committed (kept when they are forgotten).
    earliest_out: Option<u64>,
    held: HashSet<Target>,
    /// Tuple and key locks per relation, for promotion.
    narrow: HashMap<u64, u32>,
}

impl Sx {
    /// The commit position, or "not yet" as the largest.
    fn order(&self) -> u64 {
        self.commit.map_or(u64::MAX, |c| c.at)
    }

    /// Whether it writes nothing: declared READ ONLY, or committed
    /// without a write.
    fn writes_nothing(&self) -> bool {
        self.read_only || matches!(self.commit, Some(Commit { csn: None, .. }))
    }
}

#[derive(Debug, Default)]
struct State {
    next_id: SxId,
    /// Positions of begins and commits.
    clock: u64,
    xacts: HashMap<SxId, Sx>,
    by_xid: HashMap<Xid, SxId>,
    locks: HashMap<Target, Vec<SxId>>,
    /// Committed transactions in commit order, until forgotten.
    committed: VecDeque<SxId>,
    /// Transactions restored as prepared after a restart, their SIREAD
    /// locks lost: taken to have read everything (every write conflicts
    /// in with them).
    reads_all: Vec<SxId>,
}

/// The serializable transactions of one manager and what they read.
#[derive(Debug, Default)]
pub(crate) struct Serializable {
    state: Mutex<State>,
}

/// A failure of `me`, which is doomed so that it cannot go on past it.
fn fail(state: &mut State, me: SxId, reason: Reason) -> TxnError {
    if let Some(sx) = state.xacts.get_mut(&me) {
        sx.doomed = true;
    }
    TxnError::SerializationConflict(reason)
}

fn check_doomed(state: &mut State, me: SxId, reason: Reason) -> Result<(), TxnError> {
    match state.xacts.get(&me) {
        Some(sx) if sx.doomed => Err(fail(state, me, reason)),
        Some(_) => Ok(()),
        None => Err(TxnError::Ended),
    }
}

impl Serializable {
    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Registers a serializable transaction whose snapshot `take` takes
    /// (under this module's lock, so begins and commits are ordered).
    pub(crate) fn begin<T>(
        &self,
        take: impl FnOnce() -> Result<(T, Csn), TxnError>,
    ) -> Result<(SxId, T), TxnError> {
        let mut state = self.lock();
        let (out, snapshot) = take()?;
        state.clock += 1;
        state.next_id += 1;
        let id = state.next_id;
        let begun = state.clock;
        state.xacts.insert(
            id,
            Sx {
                snapshot,
                begun,
                commit: None,
                prepared: None,
                read_only: false,
                doomed: false,
                xid: None,
                ins: HashSet::new(),
                outs: HashSet::new(),
                earliest_out: None,
                held: HashSet::new(),
                narrow: HashMap::new(),
            },
        );
        Ok((id, out))
    }

    /// `me` got its top-level xid: its writes carry it.
    pub(crate) fn register_xid(&self, me: SxId, xid: Xid) {
        let mut state = self.lock();
        if let Some(sx) = state.xacts.get_mut(&me) {
            sx.xid = Some(xid);
            state.by_xid.insert(xid, me);
        }
    }

    /// `me` is declared READ ONLY (or READ WRITE again, before it wrote).
    pub(crate) fn declare_read_only(&self, me: SxId, read_only: bool) {
        if let Some(sx) = self.lock().xacts.get_mut(&me) {
            sx.read_only = read_only;
        }
    }

    /// A SIREAD lock: `me` read `target`.
    pub(crate) fn read(&self, me: SxId, target: Target) -> Result<(), TxnError> {
        let mut guard = self.lock();
        let state = &mut *guard;
        check_doomed(state, me, Reason::ConflictOut)?;
        let sx = state.xacts.get_mut(&me).expect("checked");
        let relation = target.relation();
        if sx.held.contains(&target) || sx.held.contains(&Target::Relation(relation)) {
            return Ok(());
        }
        let mut target = target;
        if !matches!(target, Target::Relation(_)) {
            let n = sx.narrow.entry(relation).or_default();
            *n += 1;
            if *n > PROMOTE_AT {
                target = Target::Relation(relation);
            }
        }
        sx.held.insert(target);
        state.locks.entry(target).or_default().push(me);
        Ok(())
    }

    /// `me` is about to write `targets`: every concurrent holder of a
    /// SIREAD lock on one of them gets the edge `holder -> me`.
    pub(crate) fn write(&self, me: SxId, targets: &[Target]) -> Result<(), TxnError> {
        let mut state = self.lock();
        check_doomed(&mut state, me, Reason::ConflictIn)?;
        let (snapshot, begun) = {
            let sx = &state.xacts[&me];
            (sx.snapshot, sx.begun)
        };
        let mut readers = state.reads_all.clone();
        for target in targets {
            if let Some(holders) = state.locks.get(target) {
                readers.extend(holders.iter().copied().filter(|&r| r != me));
            }
        }
        for reader in readers {
            let concurrent = match state.xacts.get(&reader).and_then(|r| r.commit) {
                None => true,
                Some(Commit { csn: Some(c), .. }) => c > snapshot,
                Some(Commit { at, csn: None }) => at > begun,
            };
            if concurrent {
                add_edge(&mut state, reader, me, me, Reason::ConflictIn)?;
            }
        }
        Ok(())
    }

    /// `me` met a version written (inserted or deleted) by the top-level
    /// transaction `writer`, which its snapshot does not see: the edge
    /// `me -> writer`, if `writer` is serializable and not aborted.
    pub(crate) fn missed_write(&self, me: SxId, writer: Xid) -> Result<(), TxnError> {
        let mut state = self.lock();
        check_doomed(&mut state, me, Reason::ConflictOut)?;
        let Some(&w) = state.by_xid.get(&writer) else {
            return Ok(());
        };
        add_edge(&mut state, me, w, me, Reason::ConflictOut)
    }

    /// The commit check of `me`, then (under the same lock) `assign`,
    /// which takes the commit's CSN (none for a transaction that wrote
    /// nothing). Fails if `me` is doomed or is the pivot of a dangerous
    /// structure whose writer committed first; otherwise dooms every
    /// uncommitted pivot whose structure this commit completes.
    pub(crate) fn commit<T>(
        &self,
        me: SxId,
        assign: impl FnOnce() -> (T, Option<Csn>),
    ) -> Result<T, TxnError> {
        let mut state = self.lock();
        // A prepared transaction passed this check when it prepared, and
        // nothing may fail it since (README "Two-phase commit").
        if state.xacts.get(&me).is_none_or(|sx| sx.prepared.is_none()) {
            check_ends(&mut state, me)?;
        }
        let (out, csn) = assign();
        state.clock += 1;
        let at = state.clock;
        let sx = state.xacts.get_mut(&me).expect("checked");
        sx.commit = Some(Commit { at, csn });
        state.committed.push_back(me);
        written_at(&mut state, me, at);
        Ok(out)
    }

    /// `PREPARE TRANSACTION` of `me`: the commit check, after which `me`
    /// is as good as committed (at this position) for every later check.
    pub(crate) fn prepare(&self, me: SxId) -> Result<(), TxnError> {
        let mut state = self.lock();
        check_ends(&mut state, me)?;
        state.clock += 1;
        let at = state.clock;
        state.xacts.get_mut(&me).expect("checked").prepared = Some(at);
        written_at(&mut state, me, at);
        Ok(())
    }

    /// A serializable transaction restored as prepared after a restart,
    /// its top-level xid `xid`: its reads are not known, so it is taken
    /// to have read everything, before everything of this run.
    pub(crate) fn restore_prepared(&self, xid: Xid) -> SxId {
        let mut state = self.lock();
        state.next_id += 1;
        let id = state.next_id;
        state.xacts.insert(
            id,
            Sx {
                snapshot: Csn(0),
                begun: 0,
                commit: None,
                prepared: Some(0),
                read_only: false,
                doomed: false,
                xid: Some(xid),
                ins: HashSet::new(),
                outs: HashSet::new(),
                earliest_out: None,
                held: HashSet::new(),
                narrow: HashMap::new(),
            },
        );
        state.by_xid.insert(xid, id);
        state.reads_all.push(id);
        id
    }

    /// `me` ended: a transaction that did not commit is forgotten at once
    /// (its edges never mattered); committed ones are kept while a
    /// concurrent transaction may still conflict with them.
    pub(crate) fn end(&self, me: SxId, completed: Csn) {
        let mut state = self.lock();
        state.reads_all.retain(|&r| r != me);
        if state.xacts.get(&me).is_some_and(|sx| sx.commit.is_none()) {
            forget(&mut state, me);
        }
        forget_committed(&mut state, completed);
    }

    /// How many serializable transactions and SIREAD lock entries are
    /// remembered (tests; a leak shows here).
    pub(crate) fn remembered(&self) -> (usize, usize) {
        let state = self.lock();
        (state.xacts.len(), state.locks.values().map(Vec::len).sum())
    }
}

/// The check that `me` may end as committed (its commit or its prepare,
/// at the next position): it is not doomed, not the pivot of a dangerous
/// structure, and its writes would not make a prepared reader one (that
/// reader cannot fail any more, so `me` does).
fn check_ends(state: &mut State, me: SxId) -> Result<(), TxnError> {
    check_doomed(state, me, Reason::Commit)?;
    if pivot_of_danger(state, me).is_some() {
        return Err(fail(state, me, Reason::Commit));
    }
    let at = state.clock + 1;
    let readers: Vec<SxId> = state.xacts[&me].ins.iter().copied().collect();
    for pivot in readers {
        let Some(p) = state.xacts.get_mut(&pivot) else {
            continue;
        };
        if p.prepared.is_none() || p.commit.is_some() {
            continue;
        }
        let kept = p.earliest_out;
        p.earliest_out = Some(kept.map_or(at, |e| e.min(at)));
        let danger = pivot_of_danger(state, pivot).is_some();
        state.xacts.get_mut(&pivot).expect("present").earliest_out = kept;
        if danger {
            return Err(fail(state, me, Reason::Commit));
        }
    }
    Ok(())
}

/// `me` committed or prepared at position `at`: each reader that missed
/// its writes now has a writer that ended first, and an uncommitted one
/// that is a pivot of danger now is doomed (never a prepared one:
/// `check_ends` refused that).
fn written_at(state: &mut State, me: SxId, at: u64) {
    let readers: Vec<SxId> = state.xacts[&me].ins.iter().copied().collect();
    for pivot in readers {
        let Some(p) = state.xacts.get_mut(&pivot) else {
            continue;
        };
        p.earliest_out = Some(p.earliest_out.map_or(at, |e| e.min(at)));
        if p.commit.is_none() && p.prepared.is_none() && pivot_of_danger(state, pivot).is_some() {
            state.xacts.get_mut(&pivot).expect("present").doomed = true;
        }
    }
}

/// Adds `reader -> writer` (both serializable and concurrent; `me` is the
/// transaction at hand) and checks both structures it may complete: with
/// `reader` as the pivot and with `writer` as the pivot.
fn add_edge(
    state: &mut State,
    reader: SxId,
    writer: SxId,
    me: SxId,
    reason: Reason,
) -> Result<(), TxnError> {
    if reader == writer || !state.xacts.contains_key(&reader) {
        return Ok(());
    }
    let Some(w) = state.xacts.get_mut(&writer) else {
        return Ok(());
    };
    if !w.ins.insert(reader) {
        return Ok(());
    }
    // (A prepared writer counts as committed at its prepare.)
    let written_at = w.commit.map(|c| c.at).or(w.prepared);
    let r = state.xacts.get_mut(&reader).expect("checked");
    r.outs.insert(writer);
    if let Some(at) = written_at {
        r.earliest_out = Some(r.earliest_out.map_or(at, |e| e.min(at)));
    }
    for pivot in [reader, writer] {
        if let Some(first) = pivot_of_danger(state, pivot) {
            // A prepared transaction cannot fail any more: `me`, one end
            // of the new edge, fails in its place.
            let prepared = |id: SxId| {
                (state.xacts.get(&id)).is_some_and(|x| x.commit.is_none() && x.prepared.is_some())
            };
            let victim = if me == pivot || me == first {
                me
            } else if state.xacts[&pivot].commit.is_none() {
                pivot
            } else {
                first
            };
            let victim = if prepared(victim) { me } else { victim };
            if victim == me {
                return Err(fail(state, me, reason));
            }
            if let Some(v) = state.xacts.get_mut(&victim) {
                v.doomed = true;
            }
        }
    }
    Ok(())
}

/// If `pivot` is the middle of a dangerous structure `R -> pivot -> W`
/// (`W` committed before `pivot` and not after `R`; `R` may be `W`),
/// returns such an `R` that has not committed, or the first `R` found.
/// An `R` that writes nothing makes a dangerous structure only if `W`
/// committed before `R` took its snapshot (PostgreSQL's read-only
/// optimisation, Ports and Grittner §4.1): otherwise the serial order
/// `R`, `pivot`, `W` explains what everyone read. "Before" is decided by
/// positions, which may call a commit earlier that the snapshot does not
/// yet see: the conservative side.
fn pivot_of_danger(state: &State, pivot: SxId) -> Option<SxId> {
    let p = state.xacts.get(&pivot)?;
    let w = p.earliest_out?;
    if w >= p.order() {
        return None;
    }
    let mut found = None;
    for &r in &p.ins {
        let Some(rx) = state.xacts.get(&r) else {
            continue;
        };
        if w <= rx.order() && (!rx.writes_nothing() || w < rx.begun) {
            if rx.commit.is_none() {
                return Some(r);
            }
            found = Some(r);
        }
    }
    found
}

/// Forgets `id`: its locks and its edges.
fn forget(state: &mut State, id: SxId) {
    let Some(sx) = state.xacts.remove(&id) else {
        return;
    };
    if let Some(xid) = sx.xid {
        state.by_xid.remove(&xid);
    }
    for target in &sx.held {
        if let Some(holders) = state.locks.get_mut(target) {
            holders.retain(|&h| h != id);
            if holders.is_empty() {
                state.locks.remove(target);
            }
        }
    }
    for other in sx.ins.iter().chain(&sx.outs) {
        if let Some(o) = state.xacts.get_mut(other) {
            o.ins.remove(&id);
            o.outs.remove(&id);
        }
    }
}

/// Forgets committed transactions, oldest first, while no running one is
/// concurrent with them and none begun later can be: a writer once its
/// CSN is visible (`completed`) and every running snapshot sees it; a
/// transaction that wrote nothing once every running one began after it
/// ended.
fn forget_committed(state: &mut State, completed: Csn) {
    let mut oldest_snapshot = Csn(u64::MAX);
    let mut oldest_begin = u64::MAX;
    for sx in state.xacts.values().filter(|sx| sx.commit.is_none()) {
        oldest_snapshot = oldest_snapshot.min(sx.snapshot);
        oldest_begin = oldest_begin.min(sx.begun);
    }
    while let Some(&first) = state.committed.front() {
        let done = match state.xacts.get(&first).and_then(|sx| sx.commit) {
            None => true,
            Some(Commit { csn: Some(c), .. }) => c <= completed && c <= oldest_snapshot,
            Some(Commit { at, csn: None }) => at < oldest_begin,
        };
        if !done {
            break;
        }
        state.committed.pop_front();
        forget(state, first);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn begin(s: &Serializable, snapshot: u64) -> SxId {
        s.begin(|| Ok(((), Csn(snapshot)))).unwrap().0
    }

    fn commit(s: &Serializable, me: SxId, csn: Option<u64>) -> Result<(), TxnError> {
        s.commit(me, || ((), csn.map(Csn)))
    }

    fn is_conflict(r: Result<(), TxnError>) -> bool {
        matches!(r, Err(TxnError::SerializationConflict(_)))
    }

    // Proves write skew (Hermitage G2-item) fails the second committer
    // and lets the first commit, as PostgreSQL does.
    #[test]
    fn write_skew_fails_the_second_committer() {
        let s = Serializable::default();
        let (t1, t2) = (begin(&s, 10), begin(&s, 10));
        s.register_xid(t1, Xid(100));
        s.register_xid(t2, Xid(101));
        let (x, y) = (Target::Tuple(1, 1), Target::Tuple(1, 2));
        for t in [t1, t2] {
            s.read(t, x).unwrap();
            s.read(t, y).unwrap();
        }
        s.write(t1, &[x]).unwrap();
        s.write(t2, &[y]).unwrap();
        commit(&s, t1, Some(11)).unwrap();
        assert!(is_conflict(commit(&s, t2, Some(12))));
        s.end(t1, Csn(11));
        s.end(t2, Csn(11));
        assert_eq!(s.remembered(), (0, 0));
    }

    // Proves a prepared transaction counts as committed and is never the
    // one to fail: write skew against a prepared transaction fails the
    // other one at its write (PostgreSQL's prepared_xacts test), the
    // prepared one commits; and a writer whose commit would make a
    // prepared reader a pivot of danger fails instead of dooming it.
    #[test]
    fn a_prepared_transaction_is_as_good_as_committed() {
        let s = Serializable::default();
        let (t4, t5) = (begin(&s, 10), begin(&s, 10));
        s.register_xid(t4, Xid(100));
        s.register_xid(t5, Xid(101));
        let table = Target::Relation(1);
        s.read(t4, table).unwrap();
        s.write(t4, &[table]).unwrap();
        s.prepare(t4).unwrap();
        s.read(t5, table).unwrap();
        s.missed_write(t5, Xid(100)).unwrap();
        assert!(is_conflict(s.write(t5, &[table])));
        s.end(t5, Csn(10));
        commit(&s, t4, Some(11)).unwrap();
        s.end(t4, Csn(11));

        // R -> P -> W with P prepared: W's commit fails, P commits.
        let (r, p, w) = (begin(&s, 20), begin(&s, 20), begin(&s, 20));
        for (t, x) in [(r, 200), (p, 201), (w, 202)] {
            s.register_xid(t, Xid(x));
        }
        let (x, y) = (Target::Tuple(1, 1), Target::Tuple(1, 2));
        s.read(p, y).unwrap();
        s.write(p, &[x]).unwrap();
        s.read(r, x).unwrap();
        s.missed_write(r, Xid(201)).unwrap();
        s.prepare(p).unwrap();
        s.write(w, &[y]).unwrap();
        assert!(is_conflict(commit(&s, w, Some(21))));
        s.end(w, Csn(20));
        commit(&s, p, Some(22)).unwrap();
    }

    // Proves a transaction that reads what a concurrent one wrote, with no
    // cycle, commits: one edge is not a dangerous structure.
    #[test]
    fn one_edge_is_no_conflict() {
        let s = Serializable::default();
        let (t1, t2) = (begin(&s, 10), begin(&s, 10));
        s.register_xid(t2, Xid(101));
        s.read(t1, Target::Key(7, 3)).unwrap();
        s.write(t2, &[Target::Key(7, 3)]).unwrap();
        commit(&s, t2, Some(11)).unwrap();
        commit(&s, t1, None).unwrap();
        s.end(t2, Csn(11));
        s.end(t1, Csn(11));
        assert_eq!(s.remembered(), (0, 0));
    }

    // Proves the read-only anomaly (Fekete et al.) is caught: T3 reads
    // after T2 (the writer) committed but without T1's (the pivot's)
    // write; T1 must not commit once the structure exists.
    #[test]
    fn the_read_only_anomaly_fails_the_reader() {
        let s = Serializable::default();
        let t1 = begin(&s, 10); // pivot: reads x, writes y
        let t2 = begin(&s, 10); // writer of x, commits first
        s.register_xid(t1, Xid(100));
        s.register_xid(t2, Xid(101));
        s.read(t1, Target::Tuple(1, 1)).unwrap();
        s.write(t2, &[Target::Tuple(1, 1)]).unwrap(); // t1 -> t2
        commit(&s, t2, Some(11)).unwrap();
        s.end(t2, Csn(11));
        let t3 = begin(&s, 11); // sees t2, not t1
        s.write(t1, &[Target::Tuple(1, 2)]).unwrap();
        // t3 meets t1's version of y, which it does not see: t3 -> t1
        // completes t3 -> t1 -> t2 with t2 committed first, and t3 fails.
        assert!(is_conflict(s.missed_write(t3, Xid(100))));
        assert!(is_conflict(commit(&s, t3, None)), "t3 stays doomed");
        s.end(t3, Csn(11));
        // With t3 gone the structure is gone: the pivot commits.
        commit(&s, t1, Some(12)).unwrap();
        s.end(t1, Csn(12));
        assert_eq!(s.remembered(), (0, 0));
    }

    // Proves locks of a committed transaction are kept while a concurrent
    // one runs and forgotten once none does.
    #[test]
    fn committed_locks_live_while_a_concurrent_transaction_runs() {
        let s = Serializable::default();
        let (t1, t2) = (begin(&s, 10), begin(&s, 10));
        s.read(t1, Target::Relation(5)).unwrap();
        commit(&s, t1, None).unwrap();
        s.end(t1, Csn(10));
        assert_eq!(s.remembered(), (2, 1));
        commit(&s, t2, None).unwrap();
        s.end(t2, Csn(10));
        assert_eq!(s.remembered(), (0, 0));
    }

    // Proves the read-only optimisation: a reader that writes nothing and
    // began before the structure's writer committed does not make it
    // dangerous (serial order reader, pivot, writer); one that began after
    // does (the read-only anomaly).
    #[test]
    fn a_read_only_reader_is_dangerous_only_after_the_writer_committed() {
        for (reader_first, refused) in [(true, false), (false, true)] {
            let s = Serializable::default();
            let pivot = begin(&s, 10);
            let writer = begin(&s, 10);
            s.register_xid(pivot, Xid(100));
            s.register_xid(writer, Xid(101));
            let reader = reader_first.then(|| begin(&s, 10));
            s.read(pivot, Target::Tuple(1, 2)).unwrap();
            s.write(writer, &[Target::Tuple(1, 2)]).unwrap(); // pivot -> writer
            commit(&s, writer, Some(11)).unwrap();
            let reader = reader.unwrap_or_else(|| begin(&s, 11));
            s.declare_read_only(reader, true);
            s.read(reader, Target::Tuple(1, 1)).unwrap();
            let edge = s.write(pivot, &[Target::Tuple(1, 1)]); // reader -> pivot
            let failed = edge.is_err() || commit(&s, pivot, Some(12)).is_err();
            assert_eq!(failed, refused, "reader first: {reader_first}");
        }
    }

    // Proves many tuple locks on one relation become the relation's lock.
    #[test]
    fn tuple_locks_are_promoted_to_the_relation() {
        let s = Serializable::default();
        let (t1, t2) = (begin(&s, 10), begin(&s, 10));
        for i in 0..=u64::from(PROMOTE_AT) {
            s.read(t1, Target::Tuple(3, i)).unwrap();
        }
        s.register_xid(t2, Xid(100));
        // A write of a tuple t1 never read conflicts through the relation.
        s.write(t2, &[Target::Relation(3), Target::Tuple(3, 1 << 40)])
            .unwrap();
        assert!(s.lock().xacts[&t2].ins.contains(&t1));
    }
}
