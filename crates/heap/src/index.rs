//! Indexes on heap tables: B+tree entries `(key, tuple id)` on folio-btree's
//! non-unique tree, probed with heap visibility, and unique indexes that
//! are correct under MVCC.
//!
//! **Entries.** An entry points at the tuple id of a version that is not
//! `HEAP_ONLY`: an insert, or an update that changed an indexed column or
//! left the page. A HOT update adds no entry: its version is reached from
//! the old one's entry through the page's HOT chain
//! (`Table::fetch_chain`). A scan follows each entry to the version its
//! snapshot sees, so entries of dead versions cost a fetch until vacuum
//! removes them.
//!
//! **Uniqueness** (PostgreSQL's rule, `_bt_check_unique`): inserting key
//! `k` looks at every version every other entry of `k` leads to. A version whose inserter is
//! still running makes the inserter wait for it and look again; a version
//! that is live (inserter committed or this transaction; deleter none,
//! aborted, or running: then wait) is a duplicate, SQLSTATE 23505; dead
//! versions are ignored. The look and the insert of the entry are one step
//! for each key: a striped mutex on the key's hash is held across both,
//! so two inserters of one key never both find it free; a waiter releases
//! it while it sleeps.
//!
//! **Deferred checks** (a `DEFERRABLE` key constraint's index, PostgreSQL's
//! `UNIQUE_CHECK_PARTIAL` then `UNIQUE_CHECK_EXISTING`):
//! [`Index::insert_partial`] makes the entry whatever it finds, without
//! waiting, and reports whether another entry of the key may be live;
//! only then does the caller's transaction check the key again
//! ([`Index::recheck`], waiting as above) before it commits. Two
//! transactions never both commit live versions of one key: the look and
//! the entry are one step under the key's stripe, so of two entries the
//! later one's inserter saw the earlier (entries go only when their
//! versions are dead to every snapshot) and must look again; its second
//! look waits for the earlier's inserter to end, and fails if that one
//! committed a version still live.
//!
//! **Killed entries** (README "Killed entries"): a read that follows an
//! entry to a chain dead to every snapshot removes the entry, leaf by leaf,
//! if the leaf is unchanged since the read (`Kills`, folio-btree
//! `kill.rs`).

use crate::chain::chain_lead_in;
use crate::error::HeapError;
use crate::table::Lead;
use crate::table::Table;
use crate::tuple::Tid;
use folio_btree::{Direction, LeafStamp, MultiTree};
use folio_page::PageId;
use folio_txn::{Outcome, PredicateTarget, Transaction, Xid};
use std::hash::{Hash, Hasher};
use std::ops::Bound;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

const STRIPES: usize = 64;

pub(crate) fn tid_word(tid: Tid) -> u64 {
    tid.word()
}

pub(crate) fn word_tid(word: u64) -> Tid {
    Tid::from_word(word)
}

/// Entries of one leaf found leading to nothing any snapshot sees, to be
/// removed together if the leaf is unchanged since they were read
/// (folio-btree `kill.rs`: the stamp is the leaf's LSN in that read).
#[derive(Debug, Default)]
struct Kills {
    stamp: Option<LeafStamp>,
    entries: Vec<(Vec<u8>, u64)>,
}

impl Kills {
    /// Removes the entries gathered. A failure is not the reader's: the
    /// read succeeded, and vacuum removes what stays.
    fn flush(&mut self, index: &Index) {
        if let Some(stamp) = self.stamp
            && !self.entries.is_empty()
            && let Ok(n) = index.tree.delete_if_unchanged(stamp, &self.entries)
        {
            index.killed.fetch_add(n as u64, Ordering::Relaxed);
        }
        self.entries.clear();
    }
}

/// The entries of one leaf an index-only scan found visible, in order:
/// `(key, tid, by the visibility map)`. An entry taken on the visibility
/// map's word alone counts only if its leaf is unchanged since it was read
/// (the scan holds no pin on the leaf, as PostgreSQL's index-only scans
/// do: without the check, vacuum could remove the entry, free its line
/// pointer and mark the page all-visible between the leaf's read and the
/// map's, and the entry would count a row that is not there).
#[derive(Debug, Default)]
struct OnlyBatch {
    stamp: Option<LeafStamp>,
    entries: Vec<(Vec<u8>, Tid, bool)>,
}

impl OnlyBatch {
    /// Visits the batch's entries in order, checking the map's on the heap
    /// if the leaf changed. Returns the heap pages read.
    fn settle(
        &mut self,
        index: &Index,
        txn: &Transaction,
        table: &Table,
        visit: &mut impl FnMut(&[u8]),
    ) -> Result<u64, HeapError> {
        let mut heap = 0;
        let holds = match self.stamp {
            Some(stamp) if self.entries.iter().any(|e| e.2) => {
                index.tree.tree().stamp_holds(stamp)?
            }
            _ => true,
        };
        for (key, tid, by_map) in self.entries.drain(..) {
            if by_map && !holds {
                heap += 1;
                if table.fetch_chain_lead(txn, tid, |_, _| {})? != Lead::Visible {
                    continue;
                }
            }
            visit(&key);
        }
        Ok(heap)
    }
}

/// Rows found, with where each version lives.
pub type Rows = Vec<(Tid, Vec<u8>)>;

/// Pages an index scan accessed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ScanPages {
    pub index: u64,
    pub heap: u64,
}

/// One index of a table.
#[derive(Debug)]
pub struct Index {
    name: String,
    tree: MultiTree,
    unique: bool,
    stripes: Box<[Mutex<()>]>,
    /// Entries removed by readers (`Index::killed`).
    killed: AtomicU64,
}

/// What the unique check found.
enum Check {
    Free,
    Duplicate,
    Wait(Xid),
}

impl Index {
    /// The index `name` stored in `tree`.
    pub fn open(name: &str, tree: MultiTree, unique: bool) -> Index {
        Index {
            name: name.to_string(),
            tree,
            unique,
            stripes: (0..STRIPES).map(|_| Mutex::new(())).collect(),
            killed: AtomicU64::new(0),
        }
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    pub fn is_unique(&self) -> bool {
        self.unique
    }

    pub fn tree(&self) -> &MultiTree {
        &self.tree
    }

    /// The index's id among predicate locks (SERIALIZABLE): its tree's
    /// root page, which never changes.
    pub fn id(&self) -> u64 {
        self.tree.root().0
    }

    /// Enters `key -> tid` for a version `txn` wrote in `table`; a unique
    /// index first checks that no other live version has `key`.
    pub fn insert(
        &self,
        txn: &mut Transaction,
        table: &Table,
        key: &[u8],
        tid: Tid,
    ) -> Result<(), HeapError> {
        // SERIALIZABLE: readers of the key conflict (the key is hashed
        // only at that level).
        if txn.is_serializable() {
            txn.predicate_write(&[PredicateTarget::key(self.id(), key)])?;
        }
        if !self.unique {
            self.tree.insert(key, tid_word(tid), &[])?;
            return Ok(());
        }
        let stripe = self.stripe(key);
        loop {
            let one = stripe.lock().unwrap_or_else(|p| p.into_inner());
            match self.check_unique(txn, table, key, tid)? {
                Check::Free => {
                    self.tree.insert(key, tid_word(tid), &[])?;
                    return Ok(());
                }
                Check::Duplicate => {
                    return Err(HeapError::UniqueViolation {
                        index: self.name.clone(),
                        key: key.to_vec(),
                    });
                }
                Check::Wait(holder) => {
                    drop(one);
                    txn.wait_for(holder)?;
                }
            }
        }
    }

    /// The mutex that makes the unique check of `key` and the insert of
    /// its entry one step.
    fn stripe(&self, key: &[u8]) -> &Mutex<()> {
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        key.hash(&mut hasher);
        &self.stripes[hasher.finish() as usize % STRIPES]
    }

    /// Enters `key -> tid` for a version `txn` wrote in `table` into a
    /// unique index whose check may wait (a deferrable constraint's;
    /// PostgreSQL's partial check): the entry is made whatever the check
    /// finds, and nothing is waited for. Returns whether another entry of
    /// `key` leads to a version that is or may become live (live, or its
    /// inserter or deleter running): then the caller must call
    /// [`Index::recheck`] before `txn` commits. The check and the entry
    /// are one step under the key's stripe, so of two entries of one key
    /// the later one always saw the earlier (module doc, "Deferred
    /// checks").
    pub fn insert_partial(
        &self,
        txn: &mut Transaction,
        table: &Table,
        key: &[u8],
        tid: Tid,
    ) -> Result<bool, HeapError> {
        debug_assert!(self.unique, "a partial check of a non-unique index");
        if txn.is_serializable() {
            txn.predicate_write(&[PredicateTarget::key(self.id(), key)])?;
        }
        let _one = self.stripe(key).lock().unwrap_or_else(|p| p.into_inner());
        let maybe = !matches!(self.check_unique(txn, table, key, tid)?, Check::Free);
        self.tree.insert(key, tid_word(tid), &[])?;
        Ok(maybe)
    }

    /// The check [`Index::insert_partial`] left for later: no version but
    /// the one entered at `tid` with `key` is live, waiting for running
    /// inserters and deleters of the others as [`Index::insert`] does
    /// (a [`HeapError::UniqueViolation`] otherwise). The caller checks
    /// that the version at `tid` is still live itself.
    pub fn recheck(
        &self,
        txn: &mut Transaction,
        table: &Table,
        key: &[u8],
        tid: Tid,
    ) -> Result<(), HeapError> {
        loop {
            match self.check_unique(txn, table, key, tid)? {
                Check::Free => return Ok(()),
                Check::Duplicate => {
                    return Err(HeapError::UniqueViolation {
                        index: self.name.clone(),
                        key: key.to_vec(),
                    });
                }
                Check::Wait(holder) => {
                    txn.wait_for(holder)?;
                }
            }
        }
    }

    /// Fills this index, which must be empty and not yet used by anyone
    /// else (an index build under a lock that keeps writers out), with
    /// `entries` in any order, bottom-up (folio-btree `build.rs`): sorted,
    /// then written a node at a time. Each entry is a key, the version it
    /// leads to, and whether a unique index checks it; two checked entries
    /// of one key are a [`HeapError::UniqueViolation`], found before any
    /// page is written. The versions are those the build sees, live for its
    /// snapshot, so no other uniqueness rule applies.
    pub fn build(&self, mut entries: Vec<(Vec<u8>, Tid, bool)>) -> Result<u64, HeapError> {
        entries.sort_unstable_by(|a, b| a.0.cmp(&b.0).then(tid_word(a.1).cmp(&tid_word(b.1))));
        if self.unique
            && let Some(w) = entries.windows(2).find(|w| w[0].2 && w[0].0 == w[1].0)
        {
            return Err(HeapError::UniqueViolation {
                index: self.name.clone(),
                key: w[0].0.clone(),
            });
        }
        let mut builder = self.tree.builder()?;
        for (key, tid, _) in &entries {
            builder.push(key, tid_word(*tid), &[])?;
        }
        builder.finish()?;
        Ok(entries.len() as u64)
    }

    /// Enters `key -> tid` without a unique index's check: for a key that
    /// cannot conflict (one with a NULL column: NULLs are distinct, as
    /// PostgreSQL's unique indexes treat them by default; the caller, who
    /// knows the key's columns, decides).
    pub fn insert_unchecked(&self, key: &[u8], tid: Tid) -> Result<(), HeapError> {
        self.tree.insert(key, tid_word(tid), &[])?;
        Ok(())
    }

    fn check_unique(
        &self,
        txn: &Transaction,
        table: &Table,
        key: &[u8],
        tid: Tid,
    ) -> Result<Check, HeapError> {
        // The key's entries: read in place from their leaf when they all
        // lie in one (no copy of the leaf), else by a scan.
        let mut words = TIDS.with(|cell| cell.take());
        // (The entry of `tid` itself is there when a deferred check looks
        // again: not a duplicate of itself.)
        let result = self.entries_of(key, &mut words).and_then(|()| {
            words.retain(|&w| w != tid_word(tid));
            self.check_versions(txn, table, &words, tid)
        });
        TIDS.with(|cell| cell.replace(words));
        result
    }

    /// The tids of every entry of `key`, into `words`.
    fn entries_of(&self, key: &[u8], words: &mut Vec<u64>) -> Result<(), HeapError> {
        if self.tree.probe(key, words)? {
            return Ok(());
        }
        words.clear();
        let mut scan = self.tree.scan_key(key, Direction::Forward);
        while let Some((_, word, _)) = scan.next_entry()? {
            words.push(word);
        }
        Ok(())
    }

    /// The unique check over the versions the entries `words` lead to.
    fn check_versions(
        &self,
        txn: &Transaction,
        table: &Table,
        words: &[u64],
        tid: Tid,
    ) -> Result<Check, HeapError> {
        let mgr = txn.manager();
        for &word in words {
            // Every version the entry leads to (its HOT chain).
            for (other, h) in table.chain_headers(word_tid(word))? {
                if other == tid {
                    continue;
                }
                if !txn.is_mine(h.xmin) {
                    match mgr.outcome(h.xmin)? {
                        Outcome::Running => return Ok(Check::Wait(h.xmin)),
                        Outcome::Aborted => continue,
                        Outcome::Committed(_) => {}
                    }
                }
                let Some(deleter) = h.deleter() else {
                    return Ok(Check::Duplicate);
                };
                if txn.is_mine(deleter) {
                    continue;
                }
                match mgr.outcome(deleter)? {
                    Outcome::Running => return Ok(Check::Wait(deleter)),
                    Outcome::Committed(_) => continue,
                    Outcome::Aborted => return Ok(Check::Duplicate),
                }
            }
        }
        Ok(Check::Free)
    }

    /// Removes the entry `key -> tid` (vacuum's job once its version is
    /// dead to every snapshot; true if it was there).
    pub fn remove(&self, key: &[u8], tid: Tid) -> Result<bool, HeapError> {
        Ok(self.tree.delete(key, tid_word(tid))?)
    }

    /// The rows `txn` sees whose keys lie within the bounds, in key order
    /// (or reverse), with their tuple ids.
    pub fn scan(
        &self,
        txn: &Transaction,
        table: &Table,
        lower: Bound<&[u8]>,
        upper: Bound<&[u8]>,
        direction: Direction,
    ) -> Result<Vec<(Tid, Vec<u8>)>, HeapError> {
        Ok(self
            .scan_counted(txn, table, lower, upper, direction, None)?
            .0)
    }

    /// [`Index::scan`], also saying how many pages it accessed: index pages
    /// (descents and leaves) and heap pages (one per entry followed).
    /// PostgreSQL's `Buffers: shared hit` of an index scan counts the same
    /// things; seed 004's forward and backward scans of one range must
    /// access the same number.
    /// With `limit`, it stops once it has that many rows (a LIMIT pushed
    /// into the scan).
    pub fn scan_counted(
        &self,
        txn: &Transaction,
        table: &Table,
        lower: Bound<&[u8]>,
        upper: Bound<&[u8]>,
        direction: Direction,
        limit: Option<usize>,
    ) -> Result<(Rows, ScanPages), HeapError> {
        // SERIALIZABLE: a range read locks the table (a gap of the index
        // is not lockable here; README "SERIALIZABLE").
        txn.predicate_read(PredicateTarget::Relation(table.id()))?;
        let out = std::cell::RefCell::new(Vec::new());
        let enough = || limit.is_some_and(|l| out.borrow().len() >= l);
        // Entries that follow each other on one heap page (a range in the
        // table's order) read it from one copy, as PostgreSQL's index scan
        // keeps its heap buffer pinned; a lone entry reads only its
        // version (no copy).
        let mut copy: Option<(PageId, Box<folio_page::Page>)> = None;
        let mut last = None;
        let pages = self.walk(lower, upper, direction, enough, |_, tid, _| {
            let push = |at: Tid, row: &[u8]| out.borrow_mut().push((at, row.to_vec()));
            let lead = match &copy {
                Some((id, page)) if *id == tid.page => chain_lead_in(txn, page, tid, push)?,
                _ if last == Some(tid.page) => {
                    let page = table.read_copy(tid.page)?;
                    let lead = chain_lead_in(txn, &page, tid, push)?;
                    copy = Some((tid.page, page));
                    lead
                }
                _ => table.fetch_chain_lead(txn, tid, push)?,
            };
            last = Some(tid.page);
            Ok(Some(lead))
        })?;
        let mut out = out.into_inner();
        if let Some(l) = limit {
            out.truncate(l);
        }
        Ok((out, pages))
    }

    /// Calls `visit` with the tuple id of every entry within the bounds;
    /// `visit` says what the heap held there, or `None` if it did not read
    /// the heap page. Entries that lead to nothing any snapshot sees are
    /// removed, leaf by leaf (`Kills`). Returns the pages accessed (the one
    /// owner of that count for every scan here).
    fn walk(
        &self,
        lower: Bound<&[u8]>,
        upper: Bound<&[u8]>,
        direction: Direction,
        enough: impl Fn() -> bool,
        mut visit: impl FnMut(&[u8], Tid, Option<LeafStamp>) -> Result<Option<Lead>, HeapError>,
    ) -> Result<ScanPages, HeapError> {
        let mut heap = 0;
        let mut kills = Kills::default();
        let mut scan = self.tree.scan(lower, upper, direction);
        while !enough()
            && let Some((key, word, _)) = scan.next_entry()?
        {
            let stamp = scan.batch_stamp();
            if kills.stamp != stamp {
                kills.flush(self);
                kills.stamp = stamp;
            }
            match visit(&key, word_tid(word), stamp)? {
                None => {}
                Some(lead) => {
                    heap += 1;
                    if lead == Lead::Dead {
                        kills.entries.push((key, word));
                    }
                }
            }
        }
        kills.flush(self);
        Ok(ScanPages {
            index: scan.pages_accessed(),
            heap,
        })
    }

    /// Entries removed so far because they led to nothing any snapshot
    /// sees (`Kills`).
    pub fn killed(&self) -> u64 {
        self.killed.load(Ordering::Relaxed)
    }

    /// Counts the rows `txn` sees whose keys lie within the bounds, by an
    /// index-only scan ([`Index::only_scan`]). Returns the count and the
    /// pages accessed.
    pub fn count_visible(
        &self,
        txn: &Transaction,
        table: &Table,
        lower: Bound<&[u8]>,
        upper: Bound<&[u8]>,
    ) -> Result<(u64, ScanPages), HeapError> {
        let mut count = 0;
        let pages = self.only_scan(txn, table, lower, upper, Direction::Forward, |_| count += 1)?;
        Ok((count, pages))
    }

    /// An index-only scan (PostgreSQL's, through the visibility map): calls
    /// `visit` with the key of every entry within the bounds whose row
    /// `txn` sees, in key order (or reverse). An entry pointing into an
    /// all-visible page (`VisibilityMap`) counts without reading the heap;
    /// others are checked on the heap (the version `txn` sees has the
    /// entry's key: a version reached through a HOT chain changed no
    /// indexed column). Returns the pages accessed.
    pub fn only_scan(
        &self,
        txn: &Transaction,
        table: &Table,
        lower: Bound<&[u8]>,
        upper: Bound<&[u8]>,
        direction: Direction,
        mut visit: impl FnMut(&[u8]),
    ) -> Result<ScanPages, HeapError> {
        txn.predicate_read(PredicateTarget::Relation(table.id()))?;
        let vm = table.visibility_map();
        let mut batch = OnlyBatch::default();
        let mut rechecked = 0;
        let mut pages = self.walk(
            lower,
            upper,
            direction,
            || false,
            |key, tid, stamp| {
                if batch.stamp != stamp {
                    rechecked += batch.settle(self, txn, table, &mut visit)?;
                    batch.stamp = stamp;
                }
                if vm.all_visible(tid.page) {
                    batch.entries.push((key.to_vec(), tid, true));
                    return Ok(None);
                }
                let lead = table.fetch_chain_lead(txn, tid, |_, _| {})?;
                if lead == Lead::Visible {
                    batch.entries.push((key.to_vec(), tid, false));
                }
                Ok(Some(lead))
            },
        )?;
        rechecked += batch.settle(self, txn, table, &mut visit)?;
        pages.heap += rechecked;
        Ok(pages)
    }

    /// An index-only lookup of one whole key (every column of the index
    /// equal to a value): [`Index::only_scan`] of the range `[key, key]`,
    /// with the same visibility rules, but when the key's entries all lie
    /// in one leaf they are read there in place (`probe_stamped`, as
    /// [`Index::get`] does) instead of a scan copying and checking the
    /// leaf: seed 000's `count(*) ... where bid = 0` is such a lookup.
    /// Returns the pages accessed.
    pub fn only_get(
        &self,
        txn: &Transaction,
        table: &Table,
        key: &[u8],
        mut visit: impl FnMut(&[u8]),
    ) -> Result<ScanPages, HeapError> {
        // SERIALIZABLE: entries counted from all-visible pages read no
        // version, so the table is locked rather than the key.
        txn.predicate_read(PredicateTarget::Relation(table.id()))?;
        let before = folio_btree::AccessCounters::current();
        // The tids' buffer is the point lookup's, taken out as there.
        let mut tids = TIDS.with(|cell| cell.take());
        let probed = self.only_probe(txn, table, key, &mut tids, &mut visit);
        TIDS.with(|cell| cell.replace(tids));
        match probed? {
            Some(heap) => Ok(ScanPages {
                index: folio_btree::AccessCounters::current().since(&before).pages,
                heap,
            }),
            None => {
                let range = (Bound::Included(key), Bound::Included(key));
                self.only_scan(txn, table, range.0, range.1, Direction::Forward, visit)
            }
        }
    }

    /// [`Index::only_get`] from one leaf: `None` when the key's entries
    /// may go on past it (nothing was visited), else the heap pages read.
    fn only_probe(
        &self,
        txn: &Transaction,
        table: &Table,
        key: &[u8],
        tids: &mut Vec<u64>,
        visit: &mut impl FnMut(&[u8]),
    ) -> Result<Option<u64>, HeapError> {
        let Some(stamp) = self.tree.probe_stamped(key, tids)? else {
            return Ok(None);
        };
        let vm = table.visibility_map();
        let mut batch = OnlyBatch {
            stamp: Some(stamp),
            entries: Vec::new(),
        };
        let mut kills = Kills {
            stamp: Some(stamp),
            entries: Vec::new(),
        };
        let mut heap = 0;
        for &word in tids.iter() {
            let tid = word_tid(word);
            if vm.all_visible(tid.page) {
                batch.entries.push((key.to_vec(), tid, true));
                continue;
            }
            heap += 1;
            match table.fetch_chain_lead(txn, tid, |_, _| {})? {
                Lead::Visible => batch.entries.push((key.to_vec(), tid, false)),
                Lead::Invisible => {}
                Lead::Dead => kills.entries.push((key.to_vec(), word)),
            }
        }
        kills.flush(self);
        heap += batch.settle(self, txn, table, visit)?;
        Ok(Some(heap))
    }

    /// Every entry of the index, `(key, tuple id)` in key order, whatever
    /// its version's visibility (for the check that index and heap agree).
    pub fn entries(&self) -> Result<Vec<(Vec<u8>, Tid)>, HeapError> {
        let mut out = Vec::new();
        let mut scan = self
            .tree
            .scan(Bound::Unbounded, Bound::Unbounded, Direction::Forward);
        while let Some((key, word, _)) = scan.next_entry()? {
            out.push((key, word_tid(word)));
        }
        Ok(out)
    }

    /// The rows `txn` sees with key `key`: a probe of one leaf when the
    /// key's entries all lie in it (no copy of the leaf), else a scan.
    pub fn get(
        &self,
        txn: &Transaction,
        table: &Table,
        key: &[u8],
    ) -> Result<Vec<(Tid, Vec<u8>)>, HeapError> {
        let mut out = Vec::new();
        self.get_with(txn, table, key, |tid, row| out.push((tid, row.to_vec())))?;
        Ok(out)
    }

    /// [`Index::get`] lending each row to `visit` (for the call) instead of
    /// copying it out: a point lookup that allocates nothing. Returns how
    /// many rows it visited.
    pub fn get_with(
        &self,
        txn: &Transaction,
        table: &Table,
        key: &[u8],
        mut visit: impl FnMut(Tid, &[u8]),
    ) -> Result<usize, HeapError> {
        // SERIALIZABLE: the key, present and future entries; the versions
        // read lock themselves (`Table::fetch_chain_lead`).
        if txn.is_serializable() {
            txn.predicate_read(PredicateTarget::key(self.id(), key))?;
        }
        // The tids' buffer is reused per thread (taken out, so a nested
        // lookup from `visit` gets its own).
        let mut tids = TIDS.with(|cell| cell.take());
        let result = self.visit_key(txn, table, key, &mut tids, &mut visit);
        TIDS.with(|cell| cell.replace(tids));
        result
    }

    fn visit_key(
        &self,
        txn: &Transaction,
        table: &Table,
        key: &[u8],
        tids: &mut Vec<u64>,
        visit: &mut impl FnMut(Tid, &[u8]),
    ) -> Result<usize, HeapError> {
        let mut seen = 0;
        if let Some(stamp) = self.tree.probe_stamped(key, tids)? {
            let mut kills = Kills {
                stamp: Some(stamp),
                entries: Vec::new(),
            };
            for &word in tids.iter() {
                match table.fetch_chain_lead(txn, word_tid(word), &mut *visit)? {
                    Lead::Visible => seen += 1,
                    Lead::Invisible => {}
                    Lead::Dead => kills.entries.push((key.to_vec(), word)),
                }
            }
            kills.flush(self);
            return Ok(seen);
        }
        let range = (Bound::Included(key), Bound::Included(key));
        self.walk(
            range.0,
            range.1,
            Direction::Forward,
            || false,
            |_, tid, _| {
                let lead = table.fetch_chain_lead(txn, tid, &mut *visit)?;
                if lead == Lead::Visible {
                    seen += 1;
                }
                Ok(Some(lead))
            },
        )?;
        Ok(seen)
    }
}

thread_local! {
    /// Per-thread buffer of a point lookup's tids.
    static TIDS: std::cell::Cell<Vec<u64>> = const { std::cell::Cell::new(Vec::new()) };
}

#[cfg(test)]
mod tests {
    use super::*;
    use folio_page::{ItemId, PageId};

    // Proves tuple ids survive the round trip through the tree's word.
    #[test]
    fn tuple_ids_round_trip_through_the_tiebreaker() {
        for tid in [
            Tid {
                page: PageId(0),
                item: ItemId(0),
            },
            Tid {
                page: PageId((1 << 48) - 1),
                item: ItemId(u16::MAX),
            },
        ] {
            assert_eq!(word_tid(tid_word(tid)), tid);
        }
    }
}
