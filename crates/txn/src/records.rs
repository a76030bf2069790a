//! The transaction manager's WAL records (`RmgrId::TXN`) and their redo,
//! beside the CSN log they change.
//!
//! | type | block 0 | main data | redo |
//! |---|---|---|---|
//! | `INIT_PAGE` | the new log page, always with its image | page number (u64) | the image is the page |
//! | `COMMIT` | the log page of the xid | xid (u64), csn (u64) | fate := committed(csn) |
//! | `ABORT` | the log page of the xid | xid (u64) | fate := aborted |
//! | `SUBXACT` | the log page of the xid | xid (u64), parent (u64) | fate := sub-of(parent) |
//!
//! A commit record is what makes a transaction's changes durable once it
//! is flushed, and it carries the CSN the transaction committed with, so
//! replay restores the CSN log exactly. An abort record need not be
//! durable: an xid left "in progress" by a crash is aborted by rule
//! (`manager.rs`).

use crate::fate::Fate;
use crate::ids::{Csn, Xid};
use crate::log_page::{check_log_page, locate, write_fate};
use folio_page::Page;
use folio_wal::{PageRedo, Record, RedoError, RmgrId};

/// A new CSN-log page (logged with its image).
pub const INIT_PAGE: u8 = 1;
/// A transaction committed.
pub const COMMIT: u8 = 2;
/// A transaction (or subtransaction) aborted.
pub const ABORT: u8 = 3;
/// A subtransaction's first write: its xid belongs to a parent.
pub const SUBXACT: u8 = 4;

/// A decoded `COMMIT` or `ABORT`: whose fate, and what it became.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FateChange {
    pub xid: Xid,
    pub fate: Fate,
}

impl FateChange {
    /// The record type and main data that log this change.
    pub fn encode(&self) -> (u8, Vec<u8>) {
        let mut main = self.xid.0.to_le_bytes().to_vec();
        match self.fate {
            Fate::Committed(csn) => {
                main.extend_from_slice(&csn.0.to_le_bytes());
                (COMMIT, main)
            }
            Fate::Aborted => (ABORT, main),
            Fate::SubOf(parent) => {
                main.extend_from_slice(&parent.0.to_le_bytes());
                (SUBXACT, main)
            }
            Fate::InProgress => unreachable!("only an ended transaction's fate is logged"),
        }
    }

    /// Decodes a `COMMIT` or `ABORT` record's main data.
    pub fn decode(rtype: u8, main: &[u8]) -> Result<FateChange, String> {
        let u64_at = |at: usize| -> Result<u64, String> {
            main.get(at..at + 8)
                .map(|b| u64::from_le_bytes(b.try_into().expect("8")))
                .ok_or_else(|| format!("main data of {} bytes is too short", main.len()))
        };
        let (fate, len) = match rtype {
            COMMIT => {
                let csn = Csn(u64_at(8)?);
                if csn > Csn::MAX {
                    return Err(format!("{csn} exceeds 62 bits"));
                }
                (Fate::Committed(csn), 16)
            }
            ABORT => (Fate::Aborted, 8),
            SUBXACT => match u64_at(8)? {
                0 => return Err("a subtransaction of xid 0".into()),
                p if p > Csn::MAX.0 => return Err(format!("parent xid {p} exceeds 62 bits")),
                p => (Fate::SubOf(Xid(p)), 16),
            },
            other => return Err(format!("record type {other} changes no fate")),
        };
        if main.len() != len {
            return Err(format!("main data of {} bytes, expected {len}", main.len()));
        }
        Ok(FateChange {
            xid: Xid(u64_at(0)?),
            fate,
        })
    }
}

/// Redo and description of the transaction manager's records. Install it in
/// the recovery driver beside the other resource managers.
#[derive(Debug, Clone, Copy, Default)]
pub struct TxnRedo;

fn redo(record: &Record, block: usize, page: &mut Page) -> Result<(), String> {
    if record.blocks.len() != 1 || block != 0 {
        return Err(format!(
            "{} blocks (block {block}), expected one",
            record.blocks.len()
        ));
    }
    match record.rtype {
        INIT_PAGE => Err("a new log page is logged with its image only".into()),
        rtype @ (COMMIT | ABORT | SUBXACT) => {
            let change = FateChange::decode(rtype, &record.data)?;
            let (page_no, slot) = locate(change.xid);
            check_log_page(page, page_no)?;
            write_fate(page, slot, change.fate)
        }
        other => Err(format!("unknown record type {other}")),
    }
}

impl PageRedo for TxnRedo {
    fn rmgr(&self) -> RmgrId {
        RmgrId::TXN
    }

    fn name(&self) -> &'static str {
        "TXN"
    }

    fn redo_block(&self, record: &Record, block: usize, page: &mut Page) -> Result<(), RedoError> {
        redo(record, block, page).map_err(RedoError::new)
    }

    fn type_name(&self, rtype: u8) -> &'static str {
        match rtype {
            INIT_PAGE => "INIT_PAGE",
            COMMIT => "COMMIT",
            ABORT => "ABORT",
            SUBXACT => "SUBXACT",
            _ => "UNKNOWN",
        }
    }

    fn describe(&self, record: &Record) -> String {
        match FateChange::decode(record.rtype, &record.data) {
            Ok(FateChange {
                xid,
                fate: Fate::Committed(csn),
            }) => format!("COMMIT {xid} {csn}"),
            Ok(FateChange {
                xid,
                fate: Fate::SubOf(parent),
            }) => format!("SUBXACT {xid} of {parent}"),
            Ok(FateChange { xid, .. }) => format!("ABORT {xid}"),
            Err(_) if record.rtype == INIT_PAGE && record.data.len() == 8 => format!(
                "INIT_PAGE log page {}",
                u64::from_le_bytes(record.data[..8].try_into().expect("8"))
            ),
            Err(reason) => format!("{} (bad: {reason})", self.type_name(record.rtype)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Proves commit and abort changes round-trip through their encoding,
    // and malformed main data (short, long, a CSN past 62 bits, a type
    // that changes no fate) is an error, not a panic.
    #[test]
    fn fate_changes_round_trip_and_bad_data_is_refused() {
        for change in [
            FateChange {
                xid: Xid(5),
                fate: Fate::Committed(Csn(77)),
            },
            FateChange {
                xid: Xid(u64::MAX),
                fate: Fate::Aborted,
            },
            FateChange {
                xid: Xid(9),
                fate: Fate::SubOf(Xid(8)),
            },
        ] {
            let (rtype, main) = change.encode();
            assert_eq!(FateChange::decode(rtype, &main), Ok(change));
        }
        assert!(FateChange::decode(COMMIT, &[0; 8]).is_err());
        assert!(FateChange::decode(ABORT, &[0; 9]).is_err());
        assert!(FateChange::decode(INIT_PAGE, &[0; 8]).is_err());
        let mut main = 1u64.to_le_bytes().to_vec();
        main.extend_from_slice(&u64::MAX.to_le_bytes());
        assert!(
            FateChange::decode(COMMIT, &main)
                .unwrap_err()
                .contains("62 bits")
        );
    }
}
