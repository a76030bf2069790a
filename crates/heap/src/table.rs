//! A heap table: its pages, and insert, fetch, delete, update and scan of
//! tuple versions under MVCC.
//!
//! **Pages.** A table's pages are listed in a logged B+tree (key: page id,
//! big-endian), its page list; inserts go to a target page kept in memory
//! and a new page is added when it is full (a free-space map is not built
//! yet). A new page is initialised and logged with its image, then entered
//! in the list; a crash between the two leaks the page.
//!
//! **Changes** are logged (the page operations of `records.rs`, or the
//! page's image under the WAL's full-page-image rule) and then made, under
//! the pages' exclusive latches: a failed insert of the record leaves
//! every page as it was. A change of one page whose ops are judged before
//! any runs (inserts, xmax sets, a same-page update) is checked, logged
//! and applied in place (`log_in_place`); an update across pages and
//! vacuum compute private copies of their pages and install them (`log`).
//!
//! **Latch order**: an update whose new version goes to another page
//! latches both pages in page-id order; the page list's tree is latched
//! only while no heap page is.
//!
//! **Reads** copy the page optimistically and decode the copy: a reader
//! writes no shared memory (no latch word, no hint bit). A read of one
//! row or one HOT chain copies only the bytes it decodes (`read_one_with`,
//! `with_chain`), to their own offsets in a scratch page.

use crate::chain::{self, ChainBytes, lead};
use crate::error::HeapError;
use crate::hint;
use crate::index::tid_word;
use crate::prune;
use crate::records::{self, DELETE, INIT_PAGE, INSERT, LOCK, PRUNE, PageOp, UPDATE, apply};
use crate::tuple::{
    HEAP_ONLY, HOT_UPDATED, TUPLE_HEADER_SIZE, Tid, TupleHeader, XMAX_GROUP, XMAX_LOCK_ONLY,
    XMAX_SHARED,
};
use crate::visibility::{
    ShareCheck, WriteCheck, check_share, check_write, may_write, prune_verdict, visible,
};
use crate::visibility_map::VisibilityMap;
use folio_btree::{Direction, Tree};
use folio_buffer::{BufferPool, ExclusiveGuard, OptimisticGuard};
use folio_page::{
    HEADER_SIZE, ItemId, LINE_POINTER_SIZE, LineBounds, LinePointerPage, LinePointerPageMut,
    LineState, Lsn, PAGE_SIZE, Page, PageId, PageType, header_lsn, header_page_type, init_page,
    set_header_lsn,
};
use folio_txn::{PredicateTarget, Transaction, TxnError, TxnManager, WaitPolicy, Xid};
use folio_wal::{RmgrId, Wal};
use std::ops::Bound;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// The largest row a heap page holds (an empty page: one line pointer and
/// the tuple header; the special area holds the prune hint).
pub const MAX_ROW_LEN: usize =
    PAGE_SIZE - HEADER_SIZE - hint::SPECIAL_SIZE - LINE_POINTER_SIZE - TUPLE_HEADER_SIZE;

thread_local! {
    /// The scratch of `with_scratch`, reused by the thread.
    static SCRATCH: std::cell::RefCell<Scratch> = std::cell::RefCell::new(Scratch::new());
}

/// What an optimistic read of one version or one HOT chain works in: a
/// page-sized buffer the bytes it decodes are copied to, at their own
/// offsets, and the chain's members (`with_chain`).
struct Scratch {
    page: Box<Page>,
    chain: Vec<(Tid, TupleHeader)>,
}

impl Scratch {
    fn new() -> Scratch {
        Scratch {
            page: Box::new([0u8; PAGE_SIZE]),
            chain: Vec::new(),
        }
    }
}

/// Line pointers a heap page may have (PostgreSQL's
/// `MaxHeapTuplesPerPage` for 8 KiB pages): Dead line pointers wait for
/// vacuum, and without a cap an update-heavy page would fill with them.
pub const MAX_ITEMS_PER_PAGE: usize = 291;

/// What a delete or update did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Write {
    /// Done; for an update, where the new version is (it needs index
    /// entries).
    Done(Option<Tid>),
    /// A HOT update: the new version is on the same page, reached from the
    /// old one's index entries through the page's HOT chain; it needs no
    /// index entry.
    Hot(Tid),
    /// The row is gone: deleted by this transaction, or by one whose
    /// deletion the snapshot sees. Nothing was changed.
    Gone,
    /// READ COMMITTED: the row was updated by a transaction that committed
    /// after the snapshot; its next version is at `Tid` (re-check the
    /// statement's condition there and write that one). Nothing was changed.
    Moved(Tid),
}

/// What an index entry leads to for a reader ([`Table::fetch_chain_lead`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lead {
    /// A version the reader sees.
    Visible,
    /// No version the reader sees, but one some snapshot may.
    Invisible,
    /// Nothing any snapshot can see: every version is dead to all, or the
    /// item holds no version (pruned to Dead).
    Dead,
}

/// What `Table::write` does to the version.
#[derive(Debug, Clone, Copy)]
enum Action<'r> {
    Delete,
    /// The new row, and whether a HOT update is allowed.
    Update(&'r [u8], bool),
    /// `FOR UPDATE`, and what to do when another running transaction
    /// holds the row.
    Lock(WaitPolicy),
    /// `FOR SHARE`: a lock other share lockers may hold too.
    LockShared(WaitPolicy),
}

impl Action<'_> {
    /// What a wait for another transaction does in this action: row locks
    /// choose (`NOWAIT`, `SKIP LOCKED`); updates and deletes wait.
    fn policy(&self) -> WaitPolicy {
        match self {
            Action::Lock(policy) | Action::LockShared(policy) => *policy,
            Action::Delete | Action::Update(..) => WaitPolicy::Block,
        }
    }
}

/// One heap table.
#[derive(Debug)]
pub struct Table {
    pub(crate) pool: Arc<BufferPool>,
    /// Where its changes are logged; `None`: an unlogged table's heap
    /// (PostgreSQL's `UNLOGGED`), whose pages live in a pool of their own
    /// that a crash empties (folio-db README "Unlogged tables"): changes
    /// are made without a record and pages keep LSN 0.
    wal: Option<Arc<Wal>>,
    pages: Tree,
    /// Where inserts go.
    target: Mutex<Target>,
    /// All-visible pages (`visibility_map.rs`).
    pub(crate) vm: VisibilityMap,
    /// Held by a vacuum from its first step to its last: one vacuum of a
    /// table at a time (`vacuum.rs`).
    pub(crate) vacuuming: Mutex<()>,
    /// Pages planned for pruning (`prune_plans`).
    plans: AtomicU64,
    /// Bytes a new row leaves free on a page that holds rows already (the
    /// table's `fillfactor`: [`Table::set_fill_reserve`]).
    fill_reserve: AtomicUsize,
}

/// Where a table's inserts go (in memory, per open table: the free-space
/// map is not persistent; a clean restart keeps the pages with room,
/// folio-catalog `table_maps_file.rs`, and after a crash vacuum finds
/// them again).
#[derive(Debug, Default)]
struct Target {
    /// The page inserts go to now.
    current: Option<PageId>,
    /// Pages vacuum found with room (a quarter of a page or more), tried
    /// before a new page is allocated.
    free: Vec<PageId>,
    /// Whether the last page of the page list was tried (the first insert
    /// after opening goes there rather than to a new page).
    tried_last: bool,
}

/// One page of a change: its latch, its content after the change, the
/// operations that log it.
pub(crate) struct Change<'g, 'p> {
    pub(crate) guard: &'g mut ExclusiveGuard<'p>,
    pub(crate) after: Box<Page>,
    pub(crate) ops: Vec<PageOp>,
}

impl Table {
    /// The table whose page list is `pages` (a logged tree).
    pub fn open(pool: Arc<BufferPool>, wal: Arc<Wal>, pages: Tree) -> Table {
        Table::open_with(pool, Some(wal), pages)
    }

    /// The table whose page list is `pages`, logging its changes to `wal`
    /// (`None`: an unlogged table; its page list is unlogged too).
    pub fn open_with(pool: Arc<BufferPool>, wal: Option<Arc<Wal>>, pages: Tree) -> Table {
        Table {
            pool,
            wal,
            pages,
            target: Mutex::new(Target::default()),
            vm: VisibilityMap::default(),
            vacuuming: Mutex::new(()),
            plans: AtomicU64::new(0),
            fill_reserve: AtomicUsize::new(0),
        }
    }

    /// Sets the bytes a new row (an insert's, or an update's that goes to
    /// another page) leaves free on a page that holds rows already:
    /// PostgreSQL's `fillfactor`, whose rest of each page is kept for
    /// updates, which may fill it (their new versions stay on the page:
    /// HOT). A row goes to an empty page whatever the reserve.
    pub fn set_fill_reserve(&self, bytes: usize) {
        self.fill_reserve.store(bytes, Ordering::Relaxed);
    }

    /// The item a new row of `len` bytes gets on `page` (`None`: no room,
    /// or it would leave less than the fill reserve free): the one owner
    /// of where new rows may go.
    fn new_row_item(
        &self,
        page: &Page,
        len: usize,
        id: PageId,
    ) -> Result<Option<ItemId>, HeapError> {
        let lp = LinePointerPage::new(page).map_err(|e| HeapError::corrupt(id, e.to_string()))?;
        let reserve = self.fill_reserve.load(Ordering::Relaxed);
        if reserve > 0 && lp.count() > 0 && lp.contiguous_free() < len + reserve {
            return Ok(None);
        }
        admitted(lp.next_add_id(len), id)
    }

    /// The table's visibility map.
    pub fn visibility_map(&self) -> &VisibilityMap {
        &self.vm
    }

    /// The page list's tree.
    pub fn page_list(&self) -> &Tree {
        &self.pages
    }

    /// The table's id among predicate locks (SERIALIZABLE): its page
    /// list's root page, which never changes.
    pub fn id(&self) -> u64 {
        self.pages.root().0
    }

    /// SERIALIZABLE: the version at `tid` was read (a tuple's SIREAD lock).
    fn read_version(&self, txn: &Transaction, tid: Tid) -> Result<(), HeapError> {
        Ok(txn.predicate_read(PredicateTarget::Tuple(self.id(), tid_word(tid)))?)
    }

    /// Inserts `row` as a new version by `txn`. Returns where it lives.
    pub fn insert(&self, txn: &mut Transaction, row: &[u8]) -> Result<Tid, HeapError> {
        check_row_len(row)?;
        txn.predicate_write(&[PredicateTarget::Relation(self.id())])?;
        let tuple = TupleHeader::new(txn.xid()?).tuple(row);
        let mut ops = [PageOp::Insert {
            item: ItemId(0),
            tuple,
        }];
        loop {
            let mut page = self.target_page(None)?;
            let PageOp::Insert { item, tuple } = &mut ops[0] else {
                unreachable!("one insert")
            };
            let mut added = self.new_row_item(&page, tuple.len(), page.page_id())?;
            if added.is_none() && self.prune_on_access(txn.manager(), &mut page)? {
                added = self.new_row_item(&page, tuple.len(), page.page_id())?;
            }
            let Some(added) = added else {
                self.retire_target(page.page_id());
                continue;
            };
            *item = added;
            self.log_in_place(INSERT, &mut page, &ops)?;
            return Ok(Tid {
                page: page.page_id(),
                item: added,
            });
        }
    }

    /// Inserts `rows` as new versions by `txn`, as many to a page as fit,
    /// each page's share logged as one `INSERT` record (PostgreSQL's
    /// `heap_multi_insert`, which its COPY uses): a bulk load pays one
    /// record, one full-page-image decision and one latch per page instead
    /// of per row. Returns where each row lives, in order.
    pub fn insert_many<R: AsRef<[u8]>>(
        &self,
        txn: &mut Transaction,
        rows: &[R],
    ) -> Result<Vec<Tid>, HeapError> {
        if let [row] = rows {
            // One row: logged and applied in place.
            return Ok(vec![self.insert(txn, row.as_ref())?]);
        }
        txn.predicate_write(&[PredicateTarget::Relation(self.id())])?;
        for row in rows {
            check_row_len(row.as_ref())?;
        }
        let header = TupleHeader::new(txn.xid()?);
        let mut tids = Vec::with_capacity(rows.len());
        while tids.len() < rows.len() {
            let mut page = self.target_page(None)?;
            let id = page.page_id();
            let mut after = Box::new(*page);
            let mut ops = Vec::new();
            for row in &rows[tids.len()..] {
                let tuple = header.tuple(row.as_ref());
                let Some(item) = self.new_row_item(&after, tuple.len(), id)? else {
                    break;
                };
                let op = PageOp::Insert { item, tuple };
                apply(&mut after, std::slice::from_ref(&op))
                    .map_err(|e| HeapError::corrupt(id, e))?;
                ops.push(op);
                tids.push(Tid { page: id, item });
            }
            if ops.is_empty() {
                // Not even the next row fits: room made by pruning is
                // tried once, else the page stops being the target.
                if !self.prune_on_access(txn.manager(), &mut page)? {
                    self.retire_target(id);
                }
                continue;
            }
            self.log(
                INSERT,
                &mut [Change {
                    guard: &mut page,
                    after,
                    ops,
                }],
            )?;
        }
        Ok(tids)
    }

    /// The row at `tid` if `txn`'s snapshot sees that version.
    pub fn fetch(&self, txn: &Transaction, tid: Tid) -> Result<Option<Vec<u8>>, HeapError> {
        let found = self.with_chain(tid, |page, _| -> Result<_, HeapError> {
            Ok(version(page, tid)?.map(|(header, row)| (header, row.to_vec())))
        })??;
        let Some((header, row)) = found else {
            return Ok(None);
        };
        if !visible(txn, &header)? {
            return Ok(None);
        }
        self.read_version(txn, tid)?;
        Ok(Some(row))
    }

    /// The row bytes of the version at `tid`, whatever its visibility.
    pub fn fetch_any(&self, tid: Tid) -> Result<Option<Vec<u8>>, HeapError> {
        self.with_chain(tid, |page, _| {
            Ok(version(page, tid)?.map(|(_, row)| row.to_vec()))
        })?
    }

    /// The version `txn` sees among those an index entry for `tid` leads
    /// to: the item itself, or, through a Redirect and the page's HOT
    /// chain, a later version on the same page. Returns where it is.
    pub fn fetch_chain(
        &self,
        txn: &Transaction,
        tid: Tid,
    ) -> Result<Option<(Tid, Vec<u8>)>, HeapError> {
        let mut found = None;
        self.fetch_chain_with(txn, tid, |at, row| found = Some((at, row.to_vec())))?;
        Ok(found)
    }

    /// [`Table::fetch_chain`] lending the row to `visit` (called at most
    /// once) instead of copying it out. Returns whether a row was seen.
    pub fn fetch_chain_with(
        &self,
        txn: &Transaction,
        tid: Tid,
        visit: impl FnOnce(Tid, &[u8]),
    ) -> Result<bool, HeapError> {
        Ok(self.fetch_chain_lead(txn, tid, visit)? == Lead::Visible)
    }

    /// [`Table::fetch_chain_with`], saying also, when `txn` sees no
    /// version, whether every version the chain holds is dead to every
    /// snapshot (`Lead::Dead`: the index entry at `tid` may go).
    pub fn fetch_chain_lead(
        &self,
        txn: &Transaction,
        tid: Tid,
        visit: impl FnOnce(Tid, &[u8]),
    ) -> Result<Lead, HeapError> {
        // The common cases, a visible version at the entry's own item or at
        // the item its Redirect leads to (a pruned HOT chain's live
        // member), read only the header, a line pointer or two and the
        // tuple; a longer HOT chain or an invisible version reads the
        // whole chain (`with_chain`).
        let mut visit = Some(visit);
        let mut read_at = None;
        let seen = self.read_one_with(tid, |found| -> Result<bool, HeapError> {
            match found {
                Some((at, header, row)) if visible(txn, &header)? => {
                    read_at = Some(at);
                    if let Some(visit) = visit.take() {
                        visit(at, row);
                    }
                    Ok(true)
                }
                _ => Ok(false),
            }
        })??;
        let lead = if seen {
            Lead::Visible
        } else {
            let visit = |at: Tid, row: &[u8]| {
                read_at = Some(at);
                if let Some(visit) = visit.take() {
                    visit(at, row);
                }
            };
            self.with_chain(tid, |page, chain| lead(txn, page, chain, visit))??
        };
        if let Some(at) = read_at {
            self.read_version(txn, at)?;
        }
        Ok(lead)
    }
}

impl Table {
    /// READ COMMITTED's re-read after `Write::Moved(tid)` (PostgreSQL's
    /// EvalPlanQual fetch): the newest version of the row, reached from
    /// `tid` along the update links while each version's deleter has
    /// committed. `None` if the row was deleted. Call it with the
    /// statement's snapshot still published: versions newer than that
    /// snapshot cannot be pruned meanwhile, so the links hold.
    pub fn newest(&self, txn: &Transaction, tid: Tid) -> Result<Option<(Tid, Vec<u8>)>, HeapError> {
        let mgr = txn.manager();
        let mut at = tid;
        loop {
            let page = self.read_copy(at.page)?;
            let Some((header, row)) = version(&page, at)? else {
                return Err(HeapError::NotFound(at));
            };
            let ended = match header.deleter() {
                Some(deleter) if !txn.is_mine(deleter) => {
                    matches!(mgr.outcome(deleter)?, folio_txn::Outcome::Committed(_))
                }
                _ => false,
            };
            match (ended, header.next) {
                (false, _) => return Ok(Some((at, row.to_vec()))),
                (true, Some(next)) => at = next,
                (true, None) => return Ok(None),
            }
        }
    }

    /// The versions an index entry for `tid` leads to (its HOT chain), with
    /// their headers, whatever their visibility.
    pub fn chain_headers(&self, tid: Tid) -> Result<Vec<(Tid, TupleHeader)>, HeapError> {
        self.with_chain(tid, |_, chain| chain.to_vec())
    }

    /// The header of the version at `tid` (None if no version is there).
    pub fn header(&self, tid: Tid) -> Result<Option<TupleHeader>, HeapError> {
        self.with_chain(tid, |page, _| Ok(version(page, tid)?.map(|(h, _)| h)))?
    }

    /// Prunes the latched `page` on access, when a write does not fit:
    /// [`Table::prune`] unless the page's prune hint (`hint.rs`) says no
    /// version on it can be dead yet. Returns whether room was freed.
    pub(crate) fn prune_on_access(
        &self,
        mgr: &TxnManager,
        page: &mut ExclusiveGuard<'_>,
    ) -> Result<bool, HeapError> {
        if !hint::may_prune(page, mgr.horizon()) {
            return Ok(false);
        }
        self.prune(mgr, page)
    }

    /// Prunes the latched `page` (`prune.rs`): frees the versions no
    /// snapshot can see any more and sets the page's prune hint, logged
    /// as one record (none when neither changes). Returns whether
    /// anything was freed.
    pub(crate) fn prune(
        &self,
        mgr: &TxnManager,
        page: &mut ExclusiveGuard<'_>,
    ) -> Result<bool, HeapError> {
        // `completed` before any fate lookup (`prune_verdict`).
        let completed = mgr.snapshot().0;
        let horizon = mgr.horizon();
        let page_id = page.page_id();
        self.plans.fetch_add(1, Ordering::Relaxed);
        let mut failure = None;
        let plan = prune::plan(page, page_id, |h| {
            prune_verdict(mgr, h, horizon, completed).map_err(|e| {
                let reason = e.to_string();
                failure = Some(e);
                reason
            })
        });
        if let Some(e) = failure {
            return Err(e.into());
        }
        let plan = plan.map_err(|e| HeapError::corrupt(page_id, e))?;
        let freed = !plan.changes.is_empty();
        if !freed && hint::read(page).is_none_or(|csn| csn == plan.hint) {
            return Ok(false);
        }
        let ops = [PageOp::Prune {
            changes: plan.changes,
            hint: plan.hint,
        }];
        self.log_in_place(PRUNE, page, &ops)?;
        Ok(freed)
    }

    /// How many times a page of this table was planned for pruning
    /// ([`Table::prune`]; a prune on access the hint skips is not one).
    pub fn prune_plans(&self) -> u64 {
        self.plans.load(Ordering::Relaxed)
    }

    /// Every row `txn`'s snapshot sees, in page and item order.
    pub fn scan(&self, txn: &Transaction) -> Result<Vec<(Tid, Vec<u8>)>, HeapError> {
        let mut out = Vec::new();
        self.visit_rows(txn, |tid, row| {
            out.push((tid, row.to_vec()));
            Ok::<_, HeapError>(true)
        })?;
        Ok(out)
    }

    /// Calls `visit` with every row `txn`'s snapshot sees, in page and item
    /// order, the row borrowed from a copy of its page (one buffer for all
    /// of them: nothing allocated per row or page), until `visit` answers
    /// `false` (the pages after are not read).
    pub fn visit_rows<E: From<HeapError>>(
        &self,
        txn: &Transaction,
        mut visit: impl FnMut(Tid, &[u8]) -> Result<bool, E>,
    ) -> Result<(), E> {
        let mut page = Box::new([0u8; PAGE_SIZE]);
        for page_id in self.page_ids()? {
            // A cancel (the session's flag) is looked at once a page.
            txn.check_interrupt().map_err(HeapError::from)?;
            if !self.visit_page(txn, page_id, &mut page, &mut visit)? {
                break;
            }
        }
        Ok(())
    }

    /// Appends the rows of page `page_id` that `txn`'s snapshot sees, in
    /// item order (ANALYZE's sample reads chosen pages).
    pub fn page_rows(
        &self,
        txn: &Transaction,
        page_id: PageId,
        out: &mut Vec<(Tid, Vec<u8>)>,
    ) -> Result<(), HeapError> {
        let mut page = Box::new([0u8; PAGE_SIZE]);
        self.visit_page(txn, page_id, &mut page, &mut |tid, row: &[u8]| {
            out.push((tid, row.to_vec()));
            Ok::<_, HeapError>(true)
        })?;
        Ok(())
    }

    /// Calls `visit` with the rows of page `page_id` that `txn`'s snapshot
    /// sees, in item order, until it answers `false`; returns whether it
    /// never did (a scan's step). The page is copied into `page`.
    ///
    /// A page the visibility map marked all-visible *in the same
    /// consistent read as the copy* ([`Table::read_copy_into`]) has its
    /// versions taken without a visibility check each, as PostgreSQL's
    /// `heapgetpage` does on `PD_ALL_VISIBLE`. Why that holds under MVCC:
    /// vacuum sets the bit, under the page's exclusive latch, only when
    /// every version's inserter committed at or below the horizon and none
    /// has a deleter; the horizon is at most every running snapshot, this
    /// one's included (a transaction reads with a snapshot no older than
    /// its published slot: the invariant pruning rests on too), so each
    /// such inserter is seen by it (and by any snapshot taken later), and
    /// no version is deleted. Every change to
    /// the page clears the bit under the same latch before it is
    /// installed (`Table::log`, `log_in_place`), and the optimistic copy
    /// validates only if no exclusive latch was held or released while it
    /// and the bit were read: so a bit found set describes exactly the
    /// bytes copied. A page whose bit is clear is checked version by
    /// version. (SERIALIZABLE: such versions' writers are no concurrent
    /// transaction's, so no conflict out is missed; the relation's
    /// predicate lock is taken either way.)
    fn visit_page<E: From<HeapError>>(
        &self,
        txn: &Transaction,
        page_id: PageId,
        page: &mut Page,
        visit: &mut impl FnMut(Tid, &[u8]) -> Result<bool, E>,
    ) -> Result<bool, E> {
        // SERIALIZABLE: a scan reads the whole relation, rows to come
        // included.
        txn.predicate_read(PredicateTarget::Relation(self.id()))
            .map_err(HeapError::from)?;
        let all_visible = self.read_copy_into(page_id, page)?;
        let page = &*page;
        let lp =
            LinePointerPage::new(page).map_err(|e| HeapError::corrupt(page_id, e.to_string()))?;
        for i in 0..lp.count() {
            let tid = Tid {
                page: page_id,
                item: ItemId(i as u16),
            };
            if let Some((header, row)) = version_in(page, &lp, tid)?
                && (all_visible || visible(txn, &header).map_err(HeapError::from)?)
                && !visit(tid, row)?
            {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// Checks every page of the table: a heap page whose line pointers keep
    /// their invariants and whose versions have readable headers. Returns
    /// (pages, versions).
    pub fn verify_pages(&self) -> Result<(u64, u64), HeapError> {
        let (mut pages, mut versions) = (0, 0);
        for page_id in self.page_ids()? {
            let page = self.read_copy(page_id)?;
            let corrupt = |e: String| HeapError::corrupt(page_id, e);
            let lp = LinePointerPage::new(&page).map_err(|e| corrupt(e.to_string()))?;
            lp.check_invariants().map_err(|e| corrupt(e.to_string()))?;
            for i in 0..lp.count() {
                let item = ItemId(i as u16);
                if let LineState::Normal { .. } =
                    lp.state(item).map_err(|e| corrupt(e.to_string()))?
                {
                    let tuple = lp.get(item).map_err(|e| corrupt(e.to_string()))?;
                    TupleHeader::decode(tuple).map_err(corrupt)?;
                    versions += 1;
                }
            }
            pages += 1;
        }
        Ok((pages, versions))
    }

    /// The table's pages, in id order.
    pub fn page_ids(&self) -> Result<Vec<PageId>, HeapError> {
        let mut ids = Vec::new();
        let mut scan = self
            .pages
            .scan(Bound::Unbounded, Bound::Unbounded, Direction::Forward);
        while let Some((key, _)) = scan.next_entry()? {
            let key: [u8; 8] = key.try_into().map_err(|_| {
                HeapError::corrupt(self.pages.root(), "a page-list key is not 8 bytes")
            })?;
            ids.push(PageId(u64::from_be_bytes(key)));
        }
        Ok(ids)
    }

    /// Deletes the version at `tid` (it must be one `txn` may write: see
    /// `visibility::may_write`). Waits for a running deleter.
    pub fn delete(&self, txn: &mut Transaction, tid: Tid) -> Result<Write, HeapError> {
        self.write_blocking(txn, tid, Action::Delete)
    }

    /// Locks the row version at `tid` for this transaction (`SELECT ...
    /// FOR UPDATE`): later writers and lockers wait until it ends. Like an
    /// update, it waits for a running writer and then follows the
    /// isolation level's rule (`Write::Moved` under READ COMMITTED, 40001
    /// under REPEATABLE READ).
    pub fn lock(&self, txn: &mut Transaction, tid: Tid) -> Result<Write, HeapError> {
        self.write_blocking(txn, tid, Action::Lock(WaitPolicy::Block))
    }

    /// [`Table::lock`] under a wait `policy` (`Transaction::wait_with`):
    /// `NOWAIT` fails where it would wait (55P03), `SKIP LOCKED` returns
    /// `None` and changes nothing.
    pub fn lock_with(
        &self,
        txn: &mut Transaction,
        tid: Tid,
        policy: WaitPolicy,
    ) -> Result<Option<Write>, HeapError> {
        self.write(txn, tid, Action::Lock(policy))
    }

    /// Share-locks the version at `tid` (`SELECT ... FOR SHARE`): writers
    /// (and exclusive lockers) wait until every share locker ended; other
    /// share lockers do not. The first locker's xid goes into `xmax`; a
    /// second makes a share group (folio-txn), later ones join it in
    /// memory. `Write::Done(None)` once locked; `Gone` / `Moved` as for
    /// [`Table::lock`].
    pub fn lock_shared(&self, txn: &mut Transaction, tid: Tid) -> Result<Write, HeapError> {
        self.write_blocking(txn, tid, Action::LockShared(WaitPolicy::Block))
    }

    /// [`Table::lock_shared`] under a wait `policy`, as [`Table::lock_with`].
    pub fn lock_shared_with(
        &self,
        txn: &mut Transaction,
        tid: Tid,
        policy: WaitPolicy,
    ) -> Result<Option<Write>, HeapError> {
        self.write(txn, tid, Action::LockShared(policy))
    }

    /// Replaces the version at `tid` by a new one holding `row`, on the
    /// same page when it fits (after pruning the page if need be), and
    /// links the old version to it. When `indexed_changed` is false (no
    /// indexed column changed) and the new version stays on the page, the
    /// update is HOT (`Write::Hot`): no index entry is needed.
    pub fn update(
        &self,
        txn: &mut Transaction,
        tid: Tid,
        row: &[u8],
        indexed_changed: bool,
    ) -> Result<Write, HeapError> {
        check_row_len(row)?;
        self.write_blocking(txn, tid, Action::Update(row, !indexed_changed))
    }

    /// [`Table::write`] of an action that waits for running holders.
    fn write_blocking(
        &self,
        txn: &mut Transaction,
        tid: Tid,
        action: Action<'_>,
    ) -> Result<Write, HeapError> {
        debug_assert_eq!(action.policy(), WaitPolicy::Block);
        Ok(self
            .write(txn, tid, action)?
            .expect("a blocking write is never skipped"))
    }

    /// Writes `action` to the version at `tid`, waiting for a running
    /// holder as the action's policy says; `None`: skipped (`SKIP
    /// LOCKED`), nothing changed.
    fn write(
        &self,
        txn: &mut Transaction,
        tid: Tid,
        action: Action<'_>,
    ) -> Result<Option<Write>, HeapError> {
        let xid = txn.xid()?;
        if matches!(action, Action::Delete | Action::Update(..)) {
            let id = self.id();
            txn.predicate_write(&[
                PredicateTarget::Relation(id),
                PredicateTarget::Tuple(id, tid_word(tid)),
            ])?;
        }
        let hot_allowed = matches!(action, Action::Update(_, true));
        let tuple = match action {
            Action::Update(row, _) => Some(TupleHeader::new(xid).tuple(row)),
            _ => None,
        };
        loop {
            let mut old = self.pool.exclusive(tid.page)?;
            if matches!(action, Action::LockShared(_)) {
                match self.share(txn, &mut old, tid, xid)? {
                    Ok(write) => return Ok(Some(write)),
                    Err(holder) => {
                        drop(old);
                        if txn.wait_with(holder, action.policy())?.is_none() {
                            return Ok(None);
                        }
                        continue;
                    }
                }
            }
            let (check, header) = self.check(txn, &old, tid)?;
            match check {
                WriteCheck::Proceed => {}
                WriteCheck::Wait(holder) => {
                    drop(old);
                    if txn.wait_with(holder, action.policy())?.is_none() {
                        return Ok(None);
                    }
                    continue;
                }
                WriteCheck::Gone => return Ok(Some(Write::Gone)),
                WriteCheck::Moved(next) => return Ok(Some(Write::Moved(next))),
                WriteCheck::ChangedByTriggers => {
                    let deleting = matches!(action, Action::Delete);
                    return Err(TxnError::ChangedByTriggers { deleting }.into());
                }
            }
            let Some(tuple) = &tuple else {
                let lock_only = matches!(action, Action::Lock(_));
                if lock_only && txn.is_mine(header.xmax) && header.flags & XMAX_SHARED == 0 {
                    // Locked exclusively already (a share lock of ours is
                    // made exclusive below).
                    return Ok(Some(Write::Done(None)));
                }
                let ops = [PageOp::SetXmax {
                    item: tid.item,
                    xmax: xid,
                    next: None,
                    flags: if lock_only { XMAX_LOCK_ONLY } else { 0 },
                }];
                let rtype = if lock_only { LOCK } else { DELETE };
                self.log_in_place(rtype, &mut old, &ops)?;
                return Ok(Some(Write::Done(None)));
            };
            // The new version on the same page, if it fits (pruning the
            // page first if it does not), logged and applied in place: the
            // insert of the new version and the old one's xmax, judged
            // before they run (`records::applies_in_place`).
            let mut added = next_item(&old, tuple.len(), tid.page)?;
            if added.is_none() && self.prune_on_access(txn.manager(), &mut old)? {
                added = next_item(&old, tuple.len(), tid.page)?;
            }
            if let Some(item) = added {
                let new_tid = Tid {
                    page: tid.page,
                    item,
                };
                let hot = hot_allowed;
                let mut inserted = tuple.clone();
                if hot {
                    set_tuple_flags(&mut inserted, HEAP_ONLY)
                        .map_err(|e| HeapError::corrupt(tid.page, e))?;
                }
                let ops = [
                    PageOp::Insert {
                        item,
                        tuple: inserted,
                    },
                    PageOp::SetXmax {
                        item: tid.item,
                        xmax: xid,
                        next: Some(new_tid),
                        flags: if hot { HOT_UPDATED } else { 0 },
                    },
                ];
                self.log_in_place(UPDATE, &mut old, &ops)?;
                return Ok(Some(if hot {
                    Write::Hot(new_tid)
                } else {
                    Write::Done(Some(new_tid))
                }));
            }
            drop(old);
            if let Some(done) = self.update_across(txn, tid, tuple)? {
                return Ok(Some(done));
            }
        }
    }

    /// An update whose new version goes to another page: both pages
    /// latched in id order, the old version checked again under them.
    /// `None`: try again from the start (the check changed, or the target
    /// filled up).
    fn update_across(
        &self,
        txn: &mut Transaction,
        tid: Tid,
        tuple: &[u8],
    ) -> Result<Option<Write>, HeapError> {
        let target_id = {
            let target = self.target_page(Some(tid.page))?;
            target.page_id()
        };
        let (mut first, mut second) = if target_id < tid.page {
            let t = self.pool.exclusive(target_id)?;
            (t, self.pool.exclusive(tid.page)?)
        } else {
            let o = self.pool.exclusive(tid.page)?;
            (o, self.pool.exclusive(target_id)?)
        };
        let (target, old) = if target_id < tid.page {
            (&mut first, &mut second)
        } else {
            (&mut second, &mut first)
        };
        match self.check(txn, old, tid)?.0 {
            WriteCheck::Proceed => {}
            // Anything else: start again (waits happen there, unlatched).
            _ => return Ok(None),
        }
        let mut target_after = Box::new(**target);
        let fits = self
            .new_row_item(&target_after, tuple.len(), target_id)?
            .is_some();
        let Some(item) = fits
            .then(|| try_add(&mut target_after, tuple, target_id))
            .transpose()?
            .flatten()
        else {
            self.retire_target(target_id);
            return Ok(None);
        };
        let new_tid = Tid {
            page: target_id,
            item,
        };
        let set = vec![PageOp::SetXmax {
            item: tid.item,
            xmax: txn.xid()?,
            next: Some(new_tid),
            flags: 0,
        }];
        let mut old_after = Box::new(**old);
        apply(&mut old_after, &set).map_err(|e| HeapError::corrupt(tid.page, e))?;
        self.log(
            UPDATE,
            &mut [
                Change {
                    guard: target,
                    after: target_after,
                    ops: vec![PageOp::Insert {
                        item,
                        tuple: tuple.to_vec(),
                    }],
                },
                Change {
                    guard: old,
                    after: old_after,
                    ops: set,
                },
            ],
        )?;
        Ok(Some(Write::Done(Some(new_tid))))
    }

    /// What `txn` may do with the version at `tid` on the latched `page`.
    fn check(
        &self,
        txn: &Transaction,
        page: &ExclusiveGuard<'_>,
        tid: Tid,
    ) -> Result<(WriteCheck, TupleHeader), HeapError> {
        let Some((header, _)) = version(page, tid)? else {
            return Err(HeapError::NotFound(tid));
        };
        if !may_write(txn, header.xmin)? {
            return Err(HeapError::NotFound(tid));
        }
        Ok((check_write(txn, &header)?, header))
    }

    /// One attempt at a share lock of the version at `tid` on its latched
    /// page (`visibility::check_share`). `Err(holder)`: wait for the
    /// holder (with the page unlatched), then try again.
    fn share(
        &self,
        txn: &mut Transaction,
        page: &mut ExclusiveGuard<'_>,
        tid: Tid,
        me: Xid,
    ) -> Result<Result<Write, Xid>, HeapError> {
        let Some((header, _)) = version(page, tid)? else {
            return Err(HeapError::NotFound(tid));
        };
        if !may_write(txn, header.xmin)? {
            return Err(HeapError::NotFound(tid));
        }
        let (xmax, flags) = match check_share(txn, &header, me)? {
            ShareCheck::Held => return Ok(Ok(Write::Done(None))),
            ShareCheck::LockAlone => (me, XMAX_LOCK_ONLY | XMAX_SHARED),
            ShareCheck::Group(other) => (
                txn.manager().new_share_group([other, me])?,
                XMAX_LOCK_ONLY | XMAX_SHARED | XMAX_GROUP,
            ),
            ShareCheck::Write(WriteCheck::Wait(holder)) => return Ok(Err(holder)),
            ShareCheck::Write(WriteCheck::Gone) => return Ok(Ok(Write::Gone)),
            ShareCheck::Write(WriteCheck::Moved(next)) => return Ok(Ok(Write::Moved(next))),
            ShareCheck::Write(WriteCheck::ChangedByTriggers) => {
                return Err(TxnError::ChangedByTriggers { deleting: false }.into());
            }
            ShareCheck::Write(WriteCheck::Proceed) => (me, XMAX_LOCK_ONLY | XMAX_SHARED),
        };
        let ops = [PageOp::SetXmax {
            item: tid.item,
            xmax,
            next: None,
            flags,
        }];
        self.log_in_place(LOCK, page, &ops)?;
        Ok(Ok(Write::Done(None)))
    }

    /// Logs one change of one or more pages and installs it.
    pub(crate) fn log(&self, rtype: u8, changes: &mut [Change<'_, '_>]) -> Result<(), HeapError> {
        let data: Vec<Vec<u8>> = changes
            .iter()
            .map(|c| {
                let mut bytes = Vec::new();
                c.ops.iter().for_each(|op| op.encode_into(&mut bytes));
                bytes
            })
            .collect();
        let old_lsns: Vec<Lsn> = changes.iter().map(|c| header_lsn(c.guard)).collect();
        let Some(wal) = &self.wal else {
            for change in changes.iter_mut() {
                self.vm.clear(change.guard.page_id());
                change.guard.copy_from_slice(&change.after[..]);
            }
            return Ok(());
        };
        let end = wal.log_with_images(|rule| -> Result<Lsn, HeapError> {
            let mut record = rule.record(RmgrId::HEAP, rtype);
            for (i, change) in changes.iter().enumerate() {
                let image = rule.needs_image(old_lsns[i]);
                let block = record
                    .register_page(change.guard.page_id(), image.then_some(&*change.after))?;
                if !image {
                    record.register_page_data(block, &data[i])?;
                }
            }
            Ok(rule.insert(&record)?.end_lsn)
        })?;
        for change in changes.iter_mut() {
            self.vm.clear(change.guard.page_id());
            change.guard.copy_from_slice(&change.after[..]);
            set_header_lsn(change.guard, end);
        }
        Ok(())
    }

    /// Logs `ops` on one page and applies them to it in place with redo's
    /// own [`apply`], so the page becomes what redo makes of it: no copy of
    /// the page, except the after state of a full-page image when the rule
    /// asks for one. For ops judged before any runs (an insert; an xmax
    /// set by a delete, a lock or a share lock; an update's new version on
    /// the old one's page with the old one's xmax): they are checked
    /// before the record is written, so a failure changes nothing and
    /// logs nothing. ([`Table::log`] is the general form: its callers
    /// build the pages' after states first; an update across pages and
    /// vacuum use it.) An insert by COPY copied the page twice before
    /// (into the after state and back), 20% of the server's CPU; an
    /// update did the same (three per tpcb transaction, session 52).
    fn log_in_place(
        &self,
        rtype: u8,
        page: &mut ExclusiveGuard<'_>,
        ops: &[PageOp],
    ) -> Result<(), HeapError> {
        let id = page.page_id();
        let corrupt = |reason: String| HeapError::corrupt(id, reason);
        records::applies_in_place(page, ops).map_err(corrupt)?;
        let Some(wal) = &self.wal else {
            self.vm.clear(id);
            return apply(page, ops).map_err(corrupt);
        };
        let mut data = Vec::new();
        ops.iter().for_each(|op| op.encode_into(&mut data));
        let old_lsn = header_lsn(page);
        let end = wal.log_with_images(|rule| -> Result<Lsn, HeapError> {
            let image = match rule.needs_image(old_lsn) {
                true => {
                    let mut after = Box::new(**page);
                    apply(&mut after, ops).map_err(corrupt)?;
                    Some(after)
                }
                false => None,
            };
            let mut record = rule.record(RmgrId::HEAP, rtype);
            if let Some(after) = &image {
                record.register_page(id, Some(after))?;
            } else {
                let block = record.register_page(id, None)?;
                record.register_page_data(block, &data)?;
            }
            Ok(rule.insert(&record)?.end_lsn)
        })?;
        self.vm.clear(id);
        apply(page, ops).map_err(corrupt)?;
        set_header_lsn(page, end);
        Ok(())
    }

    /// The target page for a new version, latched (a new page if there is
    /// none, or it is `avoid`).
    /// In order: the current target, a page vacuum found with room, the
    /// last page of the list (once per open), a new page.
    fn target_page(&self, avoid: Option<PageId>) -> Result<ExclusiveGuard<'_>, HeapError> {
        let chosen = {
            let mut target = self.target.lock().unwrap_or_else(|p| p.into_inner());
            let usable = |id: PageId| Some(id) != avoid;
            match target.current.filter(|id| usable(*id)) {
                Some(id) => Some(id),
                None => {
                    let free = target.free.iter().rposition(|id| usable(*id));
                    let next = free.map(|i| target.free.swap_remove(i));
                    target.current = next;
                    next
                }
            }
        };
        if let Some(id) = chosen {
            return Ok(self.pool.exclusive(id)?);
        }
        let last = {
            let mut target = self.target.lock().unwrap_or_else(|p| p.into_inner());
            let first_time = !target.tried_last;
            target.tried_last = true;
            first_time
        };
        if last && let Some(id) = self.last_page()?.filter(|id| Some(*id) != avoid) {
            self.target
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .current = Some(id);
            return Ok(self.pool.exclusive(id)?);
        }
        let id = self.new_page()?;
        self.target
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .current = Some(id);
        Ok(self.pool.exclusive(id)?)
    }

    /// The last page of the page list.
    fn last_page(&self) -> Result<Option<PageId>, HeapError> {
        let mut scan = self
            .pages
            .scan(Bound::Unbounded, Bound::Unbounded, Direction::Backward);
        match scan.next_entry()? {
            Some((key, _)) => Ok(Some(PageId(u64::from_be_bytes(key.try_into().map_err(
                |_| HeapError::corrupt(self.pages.root(), "a page-list key is not 8 bytes"),
            )?)))),
            None => Ok(None),
        }
    }

    /// Forgets `id` as the target (it is full).
    fn retire_target(&self, id: PageId) {
        let mut target = self.target.lock().unwrap_or_else(|p| p.into_inner());
        if target.current == Some(id) {
            target.current = None;
        }
    }

    /// The pages offered to inserts, the current target first: what a
    /// save of the table's maps keeps.
    pub fn free_pages(&self) -> Vec<PageId> {
        let target = self.target.lock().unwrap_or_else(|p| p.into_inner());
        target
            .current
            .into_iter()
            .chain(target.free.iter().copied())
            .collect()
    }

    /// Offers `ids` to inserts: [`Table::free_pages`] of this table, saved
    /// at a point no page of it has changed since.
    pub fn offer_free_pages(&self, ids: &[PageId]) {
        for id in ids {
            self.offer_free_page(*id);
        }
    }

    /// Offers `id` to inserts (vacuum found room on it).
    pub(crate) fn offer_free_page(&self, id: PageId) {
        let mut target = self.target.lock().unwrap_or_else(|p| p.into_inner());
        if target.current != Some(id) && !target.free.contains(&id) {
            target.free.push(id);
        }
    }

    /// Allocates, initialises and logs a new page, then enters it in the
    /// page list.
    fn new_page(&self) -> Result<PageId, HeapError> {
        let id = {
            let mut page = self.pool.allocate()?;
            let id = page.page_id();
            let mut fresh = Box::new(*page);
            init_page(&mut fresh, PageType::Heap, hint::SPECIAL_SIZE);
            let end = match &self.wal {
                Some(wal) => wal.log_with_images(|rule| -> Result<Lsn, HeapError> {
                    let mut record = rule.record(RmgrId::HEAP, INIT_PAGE);
                    record.register_page(id, Some(&fresh))?;
                    Ok(rule.insert(&record)?.end_lsn)
                })?,
                None => Lsn(0),
            };
            page.copy_from_slice(&fresh[..]);
            set_header_lsn(&mut page, end);
            id
        };
        self.pages.upsert(&id.0.to_be_bytes(), &[])?;
        Ok(id)
    }

    /// The version at `tid` read optimistically without copying the page:
    /// the header, the item's line pointer and the tuple are copied to
    /// their offsets in a scratch page and decoded there (the line-pointer
    /// page's own checks apply), then the read is validated. `None` if the
    /// item holds no version (unused, dead, redirect, past the end). The
    /// version is lent to `f` (it lives in a per-thread scratch page; a
    /// nested call, from inside `f`, uses a page of its own).
    fn read_one_with<R>(
        &self,
        tid: Tid,
        f: impl FnOnce(Option<(Tid, TupleHeader, &[u8])>) -> R,
    ) -> Result<R, HeapError> {
        with_scratch(|scratch| self.read_one_into(tid, &mut scratch.page, f))
    }

    /// The version at `tid`, or, if `tid` is a Redirect, at its target
    /// when that is a `HEAP_ONLY` version (what pruning leaves: the root
    /// redirects to the chain's first live member), read optimistically
    /// into `buf` at their own offsets (the page header, one or two line
    /// pointers and the tuple; no page copy), validated, and lent to `f`
    /// with where it lives. `None`: anything else (the caller reads a copy
    /// of the page).
    fn read_one_into<R>(
        &self,
        tid: Tid,
        buf: &mut Page,
        f: impl FnOnce(Option<(Tid, TupleHeader, &[u8])>) -> R,
    ) -> Result<R, HeapError> {
        let (found, redirected) = self.read_racy(tid.page, buf, |guard, buf| {
            let mut at = tid.item;
            let mut redirected = false;
            let bounds = match racy_bounds(buf) {
                Ok(bounds) => bounds,
                Err(e) => return (Err(e), false),
            };
            let found = loop {
                match read_line_pointer(guard, buf, bounds, at) {
                    Ok(Some((LineState::Normal { offset, len }, _))) => {
                        guard.read_bytes(offset, &mut buf[offset..offset + len]);
                        break Ok(Some((at, offset, len)));
                    }
                    Ok(Some((LineState::Redirect(target), _))) if !redirected => {
                        redirected = true;
                        at = target;
                    }
                    Ok(_) => break Ok(None),
                    Err(e) => break Err(e),
                }
            };
            (found, redirected)
        })?;
        let Some((item, offset, len)) = found.map_err(|e| HeapError::corrupt(tid.page, e))? else {
            return Ok(f(None));
        };
        let tuple = &buf[offset..offset + len];
        let header = TupleHeader::decode(tuple).map_err(|e| HeapError::corrupt(tid.page, e))?;
        if redirected && !header.heap_only() {
            return Ok(f(None));
        }
        let at = Tid {
            page: tid.page,
            item,
        };
        Ok(f(Some((at, header, &tuple[TUPLE_HEADER_SIZE..]))))
    }

    /// Lends `f` the HOT chain an index entry for `tid` leads to
    /// (`chain.rs`), walked once, optimistically: each line pointer and
    /// tuple the walk decodes (the page header, a Redirect, the versions
    /// along their HOT links) is copied to its own offset in a scratch
    /// page, and the walk is validated with the copy. `f` gets that page,
    /// on which [`version`] reads any member (or `tid` itself) as on heap
    /// page `tid.page`, and the members with their headers. The scratch
    /// page's other bytes are left from earlier reads, and nothing reads
    /// them: a HOT chain costs its own bytes, not a copy of the page
    /// (copies of the page for an UPDATE's old version, read again to drop
    /// its out-of-line values, and for the chains of rows updated often
    /// were a fifth of a tpcb transaction's instructions). The scratch is
    /// the thread's, as for `read_one_with`.
    fn with_chain<R>(
        &self,
        tid: Tid,
        f: impl FnOnce(&Page, &[(Tid, TupleHeader)]) -> R,
    ) -> Result<R, HeapError> {
        with_scratch(|scratch| {
            let Scratch { page, chain } = scratch;
            self.read_racy(tid.page, page, |guard, buf| {
                let bounds = racy_bounds(buf)?;
                chain::walk(&mut Racy { guard, buf, bounds }, tid, chain)
            })?
            .map_err(|e| HeapError::corrupt(tid.page, e))?;
            Ok(f(page, chain))
        })
    }

    /// The optimistic-read framing of `read_one_into` and `with_chain`:
    /// copies heap page `id`'s header into `buf`, lets `walk` copy what it
    /// needs to the same offsets, and repeats both until the read
    /// validates; then checks that the page is a heap page. What `walk`
    /// decodes is racy until then: each of its steps must stay inside the
    /// page and its loops bounded.
    fn read_racy<T>(
        &self,
        id: PageId,
        buf: &mut Page,
        mut walk: impl FnMut(&OptimisticGuard<'_>, &mut Page) -> T,
    ) -> Result<T, HeapError> {
        loop {
            let guard = self.pool.optimistic(id)?;
            guard.read_bytes(0, &mut buf[..HEADER_SIZE]);
            let found = walk(&guard, buf);
            if guard.validate().is_err() {
                continue;
            }
            if header_page_type(buf) != Some(PageType::Heap) {
                return Err(HeapError::corrupt(id, "not a heap page"));
            }
            return Ok(found);
        }
    }

    /// An optimistic copy of heap page `id` (no shared write).
    pub(crate) fn read_copy(&self, id: PageId) -> Result<Box<Page>, HeapError> {
        let mut copy = Box::new([0u8; PAGE_SIZE]);
        self.read_copy_into(id, &mut copy)?;
        Ok(copy)
    }

    /// [`Table::read_copy`] into `copy`; returns the page's visibility-map
    /// bit read within the same validated optimistic read, so it holds for
    /// exactly the bytes copied (the bit is set and cleared only under the
    /// page's exclusive latch, which fails the validation: see
    /// `visit_page`).
    pub(crate) fn read_copy_into(&self, id: PageId, copy: &mut Page) -> Result<bool, HeapError> {
        let all_visible = loop {
            let guard = self.pool.optimistic(id)?;
            guard.read_page(copy);
            // (An acquire load: it is not moved after the validation's.)
            let all_visible = self.vm.all_visible(id);
            if guard.validate().is_ok() {
                break all_visible;
            }
        };
        if header_page_type(copy) != Some(PageType::Heap) {
            return Err(HeapError::corrupt(id, "not a heap page"));
        }
        Ok(all_visible)
    }
}

/// Lends `f` the thread's scratch (`SCRATCH`), or a fresh one to a
/// nested call made from inside another's `f`.
fn with_scratch<R>(f: impl FnOnce(&mut Scratch) -> R) -> R {
    SCRATCH.with(|cell| match cell.try_borrow_mut() {
        Ok(mut scratch) => f(&mut scratch),
        Err(_) => f(&mut Scratch::new()),
    })
}

/// A HOT chain walk's bytes read optimistically (`Table::with_chain`):
/// each line pointer and tuple is copied from the page into `buf` at its
/// own offset before it is decoded (racy until the read validates).
struct Racy<'g, 'b> {
    guard: &'g OptimisticGuard<'g>,
    buf: &'b mut Page,
    /// The bounds of the header in `buf`.
    bounds: LineBounds,
}

impl ChainBytes for Racy<'_, '_> {
    fn line(&mut self, at: ItemId) -> Result<Option<(LineState, usize)>, String> {
        read_line_pointer(self.guard, self.buf, self.bounds, at)
    }

    fn header(&mut self, offset: usize, len: usize) -> Result<TupleHeader, String> {
        let tuple = &mut self.buf[offset..offset + len];
        self.guard.read_bytes(offset, tuple);
        TupleHeader::decode(tuple)
    }
}

/// The bounds of the header `read_racy` copied into `buf` (racy until the
/// read validates), validated once for the line pointers read after it.
fn racy_bounds(buf: &Page) -> Result<LineBounds, String> {
    LineBounds::read(buf).map_err(|e| e.to_string())
}

/// Copies item `at`'s line pointer (racy) into `buf` at its own offset and
/// decodes it, with the page's line pointer count, against the header
/// already in `buf` (whose `bounds`): `None` if `at` is past the end, an
/// error if the line pointer does not decode.
fn read_line_pointer(
    guard: &OptimisticGuard<'_>,
    buf: &mut Page,
    bounds: LineBounds,
    at: ItemId,
) -> Result<Option<(LineState, usize)>, String> {
    let count = bounds.count();
    if at.0 as usize >= count {
        return Ok(None);
    }
    let lp = HEADER_SIZE + at.0 as usize * LINE_POINTER_SIZE;
    let raw = guard.read_u32(lp);
    buf[lp..lp + LINE_POINTER_SIZE].copy_from_slice(&raw.to_le_bytes());
    let state = bounds.state(buf, at).map_err(|e| e.to_string())?;
    Ok(Some((state, count)))
}

fn check_row_len(row: &[u8]) -> Result<(), HeapError> {
    if row.len() > MAX_ROW_LEN {
        return Err(HeapError::RowTooLarge {
            len: row.len(),
            max: MAX_ROW_LEN,
        });
    }
    Ok(())
}

/// Adds `tuple` to the page copy `after`; `None` if it does not fit, or
/// if it would need a line pointer past [`MAX_ITEMS_PER_PAGE`] (the copy
/// is then to be dropped).
fn try_add(after: &mut Page, tuple: &[u8], id: PageId) -> Result<Option<ItemId>, HeapError> {
    let mut lp =
        LinePointerPageMut::new(after).map_err(|e| HeapError::corrupt(id, e.to_string()))?;
    admitted(lp.add(tuple), id)
}

/// The item [`try_add`] would give a tuple of `len` bytes on `page`
/// (`None`: no room), changing nothing.
fn next_item(page: &Page, len: usize, id: PageId) -> Result<Option<ItemId>, HeapError> {
    let lp = LinePointerPage::new(page).map_err(|e| HeapError::corrupt(id, e.to_string()))?;
    admitted(lp.next_add_id(len), id)
}

/// An add's outcome as the heap takes it: an item past
/// [`MAX_ITEMS_PER_PAGE`] or no space is no room.
fn admitted(
    added: Result<ItemId, folio_page::LpError>,
    id: PageId,
) -> Result<Option<ItemId>, HeapError> {
    match added {
        Ok(item) if item.0 as usize >= MAX_ITEMS_PER_PAGE => Ok(None),
        Ok(item) => Ok(Some(item)),
        Err(folio_page::LpError::NoSpace { .. }) => Ok(None),
        Err(e) => Err(HeapError::corrupt(id, e.to_string())),
    }
}

/// The version at `tid` on `page`: its header and row, or `None` if the
/// line pointer holds none (unused, dead, redirect, or past the end).
pub(crate) fn version(page: &Page, tid: Tid) -> Result<Option<(TupleHeader, &[u8])>, HeapError> {
    let lp = LinePointerPage::new(page).map_err(|e| HeapError::corrupt(tid.page, e.to_string()))?;
    version_in(page, &lp, tid)
}

/// [`version`] on a page whose line pointers `lp` has read already (a
/// scan reads them once a page, not once a row).
fn version_in<'p>(
    page: &'p Page,
    lp: &LinePointerPage<'_>,
    tid: Tid,
) -> Result<Option<(TupleHeader, &'p [u8])>, HeapError> {
    let corrupt = |e: String| HeapError::corrupt(tid.page, e);
    if tid.item.0 as usize >= lp.count() {
        return Ok(None);
    }
    let LineState::Normal { offset, len } =
        lp.state(tid.item).map_err(|e| corrupt(e.to_string()))?
    else {
        return Ok(None);
    };
    let tuple = &page[offset..offset + len];
    let header = TupleHeader::decode(tuple).map_err(corrupt)?;
    Ok(Some((header, &tuple[TUPLE_HEADER_SIZE..])))
}

/// Sets `flags` in the header of `tuple` (a new version, not yet added).
fn set_tuple_flags(tuple: &mut [u8], flags: u16) -> Result<(), String> {
    let mut header = TupleHeader::decode(tuple)?;
    header.flags |= flags;
    header.encode_into(&mut tuple[..TUPLE_HEADER_SIZE]);
    Ok(())
}
