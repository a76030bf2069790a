//! The CSN log: every transaction id's fate (in progress, committed with
//! its CSN, aborted) in pages through the buffer pool, WAL-logged
//! (`records.rs`) and replayed like every other structure.
//!
//! Log page `n` (`log_page.rs`) holds xids `[n * 1020, (n + 1) * 1020)`. A
//! B+tree, the *directory*, maps page numbers to page ids and also holds
//! the reservation limits of the xid and CSN counters (`manager.rs`); an
//! in-memory cache (`directory.rs`) makes the map two loads. A page is
//! created when the first xid on it is assigned: allocated, initialised
//! and logged with its image, then entered in the directory. A crash
//! between the two leaks that one page (never entered, never used); the
//! next run creates the page again.
//!
//! Latch order: a log page's latch is never held while the directory tree
//! is latched, and no caller holds any other page latch here.

use crate::directory::PageDirectory;
use crate::error::TxnError;
use crate::fate::Fate;
use crate::ids::{Csn, Xid};
use crate::log_page::{
    check_log_page, decode_word, fate_offset, init_log_page, locate, read_fate, write_fate,
};
use crate::records::{FateChange, INIT_PAGE};
use folio_btree::Tree;
use folio_buffer::BufferPool;
use folio_page::{Lsn, PageId, header_lsn, set_header_lsn};
use folio_wal::{RmgrId, Wal};
use std::sync::{Arc, Mutex};

/// The directory key holding the counters' reservation limits.
const LIMITS_KEY: &[u8] = b"limits";

/// The directory key of log page `page_no` (big-endian: in page order).
fn page_key(page_no: u64) -> [u8; 9] {
    let mut key = [b'p'; 9];
    key[1..].copy_from_slice(&page_no.to_be_bytes());
    key
}

/// The directory key of chunk `chunk` of prepared transaction `xid`'s
/// state (big-endian: chunks in order).
fn prepared_key(xid: Xid, chunk: u16) -> [u8; 11] {
    let mut key = [b'x'; 11];
    key[1..9].copy_from_slice(&xid.0.to_be_bytes());
    key[9..].copy_from_slice(&chunk.to_be_bytes());
    key
}

/// The bytes of a prepared transaction's state per directory entry (an
/// entry holds at most 2,696 bytes with its key).
const PREPARED_CHUNK: usize = 2048;

/// How far the xid and CSN counters may go before the next reservation is
/// logged: no xid or CSN at or above these was handed out before a crash.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    pub xid: Xid,
    pub csn: Csn,
}

/// The CSN log of one database.
#[derive(Debug)]
pub struct CsnLog {
    pool: Arc<BufferPool>,
    wal: Arc<Wal>,
    directory: Tree,
    pages: PageDirectory,
    /// Held while a log page is created (once per 1020 xids).
    creating: Mutex<()>,
}

impl CsnLog {
    /// The CSN log whose directory is `directory` (a logged tree).
    pub fn open(pool: Arc<BufferPool>, wal: Arc<Wal>, directory: Tree) -> CsnLog {
        CsnLog {
            pool,
            wal,
            directory,
            pages: PageDirectory::new(),
            creating: Mutex::new(()),
        }
    }

    /// The reservation limits as last logged; `None` for a new log.
    pub fn limits(&self) -> Result<Option<Limits>, TxnError> {
        let Some(value) = self.directory.get(LIMITS_KEY)? else {
            return Ok(None);
        };
        let bytes: [u8; 16] = value.as_slice().try_into().map_err(|_| {
            TxnError::corrupt(
                self.directory.root(),
                format!("the limits entry has {} bytes, expected 16", value.len()),
            )
        })?;
        let word = |at: usize| u64::from_le_bytes(bytes[at..at + 8].try_into().expect("8"));
        Ok(Some(Limits {
            xid: Xid(word(0)),
            csn: Csn(word(8)),
        }))
    }

    /// Logs new reservation limits (a B+tree update, WAL-logged).
    pub fn set_limits(&self, limits: Limits) -> Result<(), TxnError> {
        let mut value = [0u8; 16];
        value[..8].copy_from_slice(&limits.xid.0.to_le_bytes());
        value[8..].copy_from_slice(&limits.csn.0.to_le_bytes());
        self.directory.upsert(LIMITS_KEY, &value)?;
        Ok(())
    }

    /// Stores the durable state of the prepared transaction `xid`
    /// (`prepared.rs`) in the directory: logged B+tree entries, in chunks
    /// that fit an entry, keyed `x`, xid, chunk number. Not flushed here.
    pub fn put_prepared(&self, xid: Xid, state: &[u8]) -> Result<(), TxnError> {
        for (i, chunk) in state.chunks(PREPARED_CHUNK).enumerate() {
            self.directory.upsert(&prepared_key(xid, i as u16), chunk)?;
        }
        Ok(())
    }

    /// Removes what [`CsnLog::put_prepared`] stored for `xid` (logged).
    pub fn remove_prepared(&self, xid: Xid) -> Result<(), TxnError> {
        for i in 0..=u16::MAX {
            if !self.directory.delete(&prepared_key(xid, i))? {
                break;
            }
        }
        Ok(())
    }

    /// Every prepared transaction's stored state, by xid.
    pub fn prepared(&self) -> Result<Vec<(Xid, Vec<u8>)>, TxnError> {
        let mut out: Vec<(Xid, Vec<u8>)> = Vec::new();
        let mut scan = self
            .directory
            .scan_prefix(b"x", folio_btree::Direction::Forward);
        while let Some((key, value)) = scan.next_entry()? {
            if key.len() != 11 {
                return Err(TxnError::corrupt(
                    self.directory.root(),
                    format!("a prepared transaction's key has {} bytes", key.len()),
                ));
            }
            let xid = Xid(u64::from_be_bytes(key[1..9].try_into().expect("8 bytes")));
            match out.last_mut() {
                Some((last, state)) if *last == xid => state.extend_from_slice(value),
                _ => out.push((xid, value.to_vec())),
            }
        }
        Ok(out)
    }

    /// Where log page `page_no` lives, if it exists.
    fn page_id(&self, page_no: u64) -> Result<Option<PageId>, TxnError> {
        if let Some(id) = self.pages.get(page_no) {
            return Ok(Some(id));
        }
        let Some(value) = self.directory.get(&page_key(page_no))? else {
            return Ok(None);
        };
        let id = value
            .as_slice()
            .try_into()
            .map(|b| PageId(u64::from_le_bytes(b)))
            .map_err(|_| {
                TxnError::corrupt(
                    self.directory.root(),
                    format!("the entry of log page {page_no} has {} bytes", value.len()),
                )
            })?;
        let page = self.pool.shared(id)?;
        check_log_page(&page, page_no).map_err(|reason| TxnError::corrupt(id, reason))?;
        drop(page);
        self.remember(page_no, id)?;
        Ok(Some(id))
    }

    fn remember(&self, page_no: u64, id: PageId) -> Result<(), TxnError> {
        if self.pages.set(page_no, id) {
            Ok(())
        } else {
            Err(TxnError::XidSpaceExhausted(Xid(
                page_no * crate::XIDS_PER_PAGE
            )))
        }
    }

    /// Makes sure the log page holding `xid` exists (creating it if it is
    /// the first xid assigned there).
    pub fn ensure_page_for(&self, xid: Xid) -> Result<(), TxnError> {
        let (page_no, _) = locate(xid);
        if self.pages.get(page_no).is_some() {
            return Ok(());
        }
        let _creating = self.creating.lock().unwrap_or_else(|p| p.into_inner());
        if self.page_id(page_no)?.is_some() {
            return Ok(());
        }
        let id = {
            let mut page = self.pool.allocate()?;
            let id = page.page_id();
            let mut fresh = Box::new(*page);
            init_log_page(&mut fresh, page_no);
            let main = page_no.to_le_bytes();
            let end = self.wal.log_with_images(|rule| -> Result<Lsn, TxnError> {
                let mut record = rule.record(RmgrId::TXN, INIT_PAGE);
                record.register_page(id, Some(&fresh))?;
                record.register_data(&main)?;
                Ok(rule.insert(&record)?.end_lsn)
            })?;
            page.copy_from_slice(&fresh[..]);
            set_header_lsn(&mut page, end);
            id
        };
        self.directory
            .upsert(&page_key(page_no), &id.0.to_le_bytes())?;
        self.remember(page_no, id)?;
        Ok(())
    }

    /// The fate recorded for `xid`; `None` if its page was never created
    /// (no transaction there ever ended). An optimistic read of a cached
    /// page: nothing shared is written.
    pub fn fate(&self, xid: Xid) -> Result<Option<Fate>, TxnError> {
        let (page_no, slot) = locate(xid);
        let Some(id) = self.page_id(page_no)? else {
            return Ok(None);
        };
        loop {
            // Not a relation page: not in a statement's buffer counts.
            let guard = self.pool.optimistic_uncounted(id)?;
            let word = guard.read_u64(fate_offset(slot));
            if guard.validate().is_ok() {
                return decode_word(word, slot)
                    .map(Some)
                    .map_err(|reason| TxnError::corrupt(id, reason));
            }
        }
    }

    /// Records `xid`'s end (`fate` is committed or aborted) or, for a
    /// subtransaction, its parent (`fate.rs` lists the changes allowed): logs the
    /// change (a commit record is the commit point once flushed) and
    /// applies it, under the log page's exclusive latch. Returns the
    /// record's end LSN.
    pub fn set_fate(&self, xid: Xid, fate: Fate) -> Result<Lsn, TxnError> {
        let (page_no, slot) = locate(xid);
        let id = self.page_id(page_no)?.ok_or_else(|| {
            TxnError::corrupt(
                self.directory.root(),
                format!("no log page {page_no} for {xid}"),
            )
        })?;
        let corrupt = |reason| TxnError::corrupt(id, reason);
        let mut page = self.pool.exclusive(id)?;
        check_log_page(&page, page_no).map_err(corrupt)?;
        let old = read_fate(&page, slot).map_err(corrupt)?;
        let mut check = Box::new(*page);
        write_fate(&mut check, slot, fate)
            .map_err(|_| corrupt(format!("{xid} is {old:?}, it cannot become {fate:?}")))?;
        let (rtype, main) = FateChange { xid, fate }.encode();
        let old_lsn = header_lsn(&page);
        let end = self.wal.log_with_images(|rule| -> Result<Lsn, TxnError> {
            let image = rule.needs_image(old_lsn).then_some(&check);
            let mut record = rule.record(RmgrId::TXN, rtype);
            record.register_page(id, image.map(|b| &**b))?;
            record.register_data(&main)?;
            Ok(rule.insert(&record)?.end_lsn)
        })?;
        write_fate(&mut page, slot, fate).map_err(corrupt)?;
        set_header_lsn(&mut page, end);
        Ok(end)
    }

    pub fn wal(&self) -> &Arc<Wal> {
        &self.wal
    }
}
