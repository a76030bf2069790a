//! B+tree redo: [`BtreeRedo`] implements folio-wal's [`PageRedo`] for the
//! records of `wal_records.rs`. Each block is redone from the record and
//! that one page, with the same `apply.rs` functions the do path used, so
//! the result is byte-for-byte what the do path produced (README "Redo").
//! Every input is checked: a record or page that does not fit is a
//! [`RedoError`], never a panic.

use crate::apply::{self, check_node};
use crate::node;
use crate::wal_records::{self, RootSplitMain, SplitMain, UnlinkMain, decode_entry};
use folio_page::{Page, PageId};
use folio_wal::{PageRedo, Record, RedoError, RmgrId};
use std::fmt::Write as _;

/// Redo and description of the B+tree's records (`RmgrId::BTREE`). Install
/// it in the recovery driver beside the other resource managers.
#[derive(Debug, Clone, Copy, Default)]
pub struct BtreeRedo;

/// The page id of block `index`, if the record has that many blocks.
fn block_id(record: &Record, index: usize) -> Result<PageId, String> {
    record
        .blocks
        .get(index)
        .map(|b| b.page_id)
        .ok_or_else(|| format!("record has no block {index}"))
}

fn check_block_count(
    record: &Record,
    allowed: std::ops::RangeInclusive<usize>,
) -> Result<(), String> {
    let n = record.blocks.len();
    if !allowed.contains(&n) {
        return Err(format!("{n} blocks, expected {allowed:?}"));
    }
    Ok(())
}

/// Redoes block `block` of `record` on `page` (a page of that block's id).
fn redo(record: &Record, block: usize, page: &mut Page) -> Result<(), String> {
    if record.rmgr != RmgrId::BTREE {
        return Err(format!("record of resource manager {}", record.rmgr.0));
    }
    let page_id = block_id(record, block)?;
    let fresh = || Err("a page allocated by the change is logged with its image only".to_string());
    match record.rtype {
        wal_records::CREATE | wal_records::BUILD => {
            check_block_count(record, 1..=1)?;
            fresh()
        }
        rtype @ (wal_records::INSERT | wal_records::UPDATE | wal_records::DELETE) => {
            check_block_count(record, 1..=1)?;
            let data = &record.blocks[0].data;
            let entry = decode_entry(data, rtype != wal_records::DELETE)?;
            check_node(page, 0)?;
            match rtype {
                wal_records::INSERT => {
                    apply::insert_entry(page, entry.index, entry.key, entry.value)
                }
                wal_records::UPDATE => {
                    apply::replace_entry(page, entry.index, entry.key, entry.value)
                }
                _ => apply::remove_entry(page, entry.index, entry.key),
            }
        }
        wal_records::SPLIT => {
            check_block_count(record, 3..=4)?;
            let main = SplitMain::decode(&record.data)?;
            let (left, new) = (block_id(record, 0)?, block_id(record, 1)?);
            match block {
                0 => {
                    check_node(page, main.level)?;
                    // Built on a copy, installed only if the whole left
                    // half was built: a failure leaves the page untouched.
                    let mut left_half = Box::new(*page);
                    let links = (node::left(page), new.0);
                    apply::build_left(&mut left_half, page, main.at, main.separator, links)?;
                    page.copy_from_slice(&left_half[..]);
                    Ok(())
                }
                1 => fresh(),
                2 => {
                    check_node(page, parent_level(main.level)?)?;
                    apply::insert_separator(page, main.pos, main.separator, left, new)
                }
                _ => {
                    check_node(page, main.level)?;
                    apply::relink_left(page, left, new)
                }
            }
        }
        wal_records::ROOT_SPLIT => {
            check_block_count(record, 3..=3)?;
            let main = RootSplitMain::decode(&record.data)?;
            match block {
                0 => {
                    check_node(page, main.level)?;
                    let children = (block_id(record, 1)?, block_id(record, 2)?);
                    apply::grow_root(page, page_id, main.level, main.separator, children)
                }
                _ => fresh(),
            }
        }
        wal_records::UNLINK => {
            check_block_count(record, 3..=4)?;
            let main = UnlinkMain::decode(&record.data)?;
            let (left, leaf) = (block_id(record, 1)?, block_id(record, 2)?);
            match block {
                0 => {
                    check_node(page, 1)?;
                    apply::remove_child(page, main.pos, left, leaf)
                }
                1 => {
                    check_node(page, 0)?;
                    let right = record.blocks.get(3).map_or(0, |b| b.page_id.0);
                    apply::absorb_right(page, leaf, main.high, right)
                }
                2 => {
                    check_node(page, 0)?;
                    apply::clear_leaf(page)
                }
                _ => {
                    check_node(page, 0)?;
                    apply::relink_left(page, leaf, left)
                }
            }
        }
        other => Err(format!("unknown B+tree record type {other}")),
    }
}

fn parent_level(level: u8) -> Result<u8, String> {
    level
        .checked_add(1)
        .ok_or_else(|| "split at the highest level".to_string())
}

/// `bytes` in hex (the first and last 8 bytes of a longer string), with
/// the length.
fn hex(bytes: &[u8]) -> String {
    fn put(out: &mut String, part: &[u8]) {
        for b in part {
            let _ = write!(out, "{b:02x}");
        }
    }
    let mut out = String::new();
    if bytes.len() <= 16 {
        put(&mut out, bytes);
    } else {
        put(&mut out, &bytes[..8]);
        out.push('…');
        put(&mut out, &bytes[bytes.len() - 8..]);
    }
    let _ = write!(out, " ({} bytes)", bytes.len());
    out
}

impl PageRedo for BtreeRedo {
    fn rmgr(&self) -> RmgrId {
        RmgrId::BTREE
    }

    fn name(&self) -> &'static str {
        "btree"
    }

    fn redo_block(&self, record: &Record, block: usize, page: &mut Page) -> Result<(), RedoError> {
        redo(record, block, page).map_err(|reason| {
            let page = record
                .blocks
                .get(block)
                .map_or_else(|| "no page".to_string(), |b| b.page_id.to_string());
            RedoError::new(format!(
                "btree {} block {block} ({page}): {reason}",
                wal_records::type_name(record.rtype)
            ))
        })
    }

    fn type_name(&self, rtype: u8) -> &'static str {
        wal_records::type_name(rtype)
    }

    fn describe(&self, record: &Record) -> String {
        let mut out = wal_records::type_name(record.rtype).to_string();
        for (i, b) in record.blocks.iter().enumerate() {
            let image = if b.image.is_some() { " +image" } else { "" };
            let _ = write!(out, " blk{i}={}{image}", b.page_id.0);
        }
        let detail = match record.rtype {
            rtype @ (wal_records::INSERT | wal_records::UPDATE | wal_records::DELETE) => {
                match record.blocks.first() {
                    Some(b) if b.image.is_none() => {
                        match decode_entry(&b.data, rtype != wal_records::DELETE) {
                            Ok(e) => format!(
                                "slot {} key {} value {} bytes",
                                e.index,
                                hex(e.key),
                                e.value.len()
                            ),
                            Err(e) => format!("bad data: {e}"),
                        }
                    }
                    _ => String::new(),
                }
            }
            wal_records::SPLIT => match SplitMain::decode(&record.data) {
                Ok(m) => format!(
                    "level {} at {} pos {} separator {}",
                    m.level,
                    m.at,
                    m.pos,
                    hex(m.separator)
                ),
                Err(e) => format!("bad data: {e}"),
            },
            wal_records::ROOT_SPLIT => match RootSplitMain::decode(&record.data) {
                Ok(m) => format!("level {} separator {}", m.level, hex(m.separator)),
                Err(e) => format!("bad data: {e}"),
            },
            wal_records::UNLINK => match UnlinkMain::decode(&record.data) {
                Ok(m) => format!(
                    "pos {} high {}",
                    m.pos,
                    m.high.map_or_else(|| "none".to_string(), hex)
                ),
                Err(e) => format!("bad data: {e}"),
            },
            _ => String::new(),
        };
        if !detail.is_empty() {
            out.push_str(": ");
            out.push_str(&detail);
        }
        out
    }
}
