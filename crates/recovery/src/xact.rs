//! Transaction control (`XACT`): the commit and checkpoint records, which
//! register no pages. The checkpoint record is this crate's own (the
//! checkpointer writes it; `checkpoint_redo_lsn` reads it back); the commit
//! record is what makes the changes before it durable once flushed.

use folio_page::{Lsn, Page};
use folio_wal::{Inserted, PageRedo, Record, RecordBuilder, RedoError, RmgrId, Wal, WalError};

/// `XACT` record type: a commit (no blocks, no data). What makes the changes
/// before it durable once flushed.
pub const XACT_COMMIT: u8 = 1;
/// `XACT` record type: a checkpoint (no blocks; data: the redo LSN, u64).
pub const XACT_CHECKPOINT: u8 = 2;

/// Transaction control (`XACT`): commit and checkpoint records register no
/// pages, so there is nothing to redo.
#[derive(Debug, Clone, Copy, Default)]
pub struct XactRedo;

impl PageRedo for XactRedo {
    fn rmgr(&self) -> RmgrId {
        RmgrId::XACT
    }

    fn name(&self) -> &'static str {
        "XACT"
    }

    fn redo_block(&self, record: &Record, block: usize, _page: &mut Page) -> Result<(), RedoError> {
        Err(RedoError::new(format!(
            "XACT record type {} registers no pages (block {block})",
            record.rtype
        )))
    }

    fn type_name(&self, rtype: u8) -> &'static str {
        match rtype {
            XACT_COMMIT => "COMMIT",
            XACT_CHECKPOINT => "CHECKPOINT",
            _ => "UNKNOWN",
        }
    }

    fn describe(&self, record: &Record) -> String {
        match (record.rtype, checkpoint_redo_lsn(record)) {
            (XACT_CHECKPOINT, Some(redo)) => format!("CHECKPOINT redo {redo}"),
            (rtype, _) => self.type_name(rtype).to_string(),
        }
    }
}

/// Inserts a commit record (not yet durable: pass its end to `Wal::commit`).
/// Callers hold no page latch here, so this is where a hard WAL limit
/// throttles writers (`Wal::throttle`): it waits for a checkpoint to free
/// space while the WAL reaches into the limit's headroom.
pub fn insert_commit(wal: &Wal) -> Result<Inserted, WalError> {
    wal.throttle()?;
    wal.insert(&RecordBuilder::new(RmgrId::XACT, XACT_COMMIT))
}

/// Inserts a checkpoint record naming `redo`. It is privileged: it may use
/// the hard WAL limit's checkpoint reserve, which ordinary records leave
/// free, so the checkpoint that frees space completes even while writers
/// are throttled.
pub fn insert_checkpoint(wal: &Wal, redo: Lsn) -> Result<Inserted, WalError> {
    let bytes = redo.0.to_le_bytes();
    let mut record = RecordBuilder::new(RmgrId::XACT, XACT_CHECKPOINT);
    record.register_data(&bytes)?;
    wal.insert_privileged(&record)
}

/// The redo LSN a checkpoint record names, if it is one.
pub fn checkpoint_redo_lsn(record: &Record) -> Option<Lsn> {
    if record.rmgr != RmgrId::XACT || record.rtype != XACT_CHECKPOINT {
        return None;
    }
    let bytes: [u8; 8] = record.data.as_slice().try_into().ok()?;
    Some(Lsn(u64::from_le_bytes(bytes)))
}
