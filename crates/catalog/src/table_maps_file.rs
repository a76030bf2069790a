//! The tables' in-memory maps kept across a clean restart (`table_maps`
//! in the data directory): each open table's all-visible bits, so
//! index-only scans after a restart skip the heap where they did before
//! it, and its pages with room, so inserts fill them before growing the
//! table (PostgreSQL keeps both maps on disk; folio-heap's live in memory).
//!
//! Unlike the other hint files (`hint_file.rs`) a wrong entry here would
//! do harm: an index-only scan trusts a set bit without reading the page,
//! and an insert goes to the page it is offered, which after a drop may
//! belong to another table. So the file holds the WAL position its maps
//! were true at, and the next open loads it only if the WAL it recovered
//! ends exactly there: every heap change writes WAL (folio-heap
//! `Table::log`, clearing the page's bit first), and so does every
//! allocation, drop and reuse of a page, so no page changed after the
//! save.
//!
//! - **Save** ([`save_maps`], at a stop after the last checkpoint): the
//!   WAL's insert position is read before and after every open table's
//!   maps are copied; if they differ a change ran meanwhile and nothing
//!   is saved. If they agree, no change was logged during the copy, so
//!   each copied entry was true at that position: a change clears its
//!   page's bit before logging, and one logged later either reaches the
//!   disk (the next open finds the WAL longer and loads nothing) or does
//!   not (then neither did its page: WAL before data).
//! - **Load** ([`load_maps`], at open, with the WAL's recovered end): the
//!   maps wait by table until `Catalog::open_table` opens the table. A
//!   file that does not read whole, fails its checksum, or holds another
//!   position loads nothing: every bit starts clear and no page is
//!   offered, as after a crash, which is safe.
//!
//! Layout, little-endian: the header line, the position (u64), then per
//! table the root of its storage (u64; until version 2 its oid, which a
//! rewrite keeps while its storage changes), its word count (u32) and each word's index (u32)
//! and bits (u64), its free-page count (u32) and each page id (u64); last
//! a CRC-32C of everything before it (u32).

use crate::catalog::Catalog;
use crate::hint_file::{read_hint, write_hint};
use folio_io::Dir;
use folio_page::{Lsn, PageId};
use std::collections::HashMap;
use std::io;

/// The file's name in the data directory.
pub const TABLE_MAPS_FILE: &str = "table_maps";
/// The format's name and version.
const HEADER: &[u8] = b"folio table maps 2\n";

/// One table's maps as saved.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct SavedTable {
    /// All-visible words (folio-heap `VisibilityMap::words`).
    pub(crate) words: Vec<(u32, u64)>,
    /// Pages with room (folio-heap `Table::free_pages`).
    pub(crate) free: Vec<PageId>,
}

/// Saved maps by the root of the table's storage.
pub(crate) type SavedMaps = HashMap<u64, SavedTable>;

/// Writes every open table's maps to [`TABLE_MAPS_FILE`] in `dir`, valid
/// at the WAL's insert position; `false` (nothing written) when a change
/// was logged while they were copied.
pub fn save_maps(catalog: &Catalog, dir: &dyn Dir) -> io::Result<bool> {
    let before = catalog.wal.insert_lsn();
    let tables = catalog.open_tables_maps();
    if catalog.wal.insert_lsn() != before {
        return Ok(false);
    }
    write_hint(dir, TABLE_MAPS_FILE, &encode(before, &tables))?;
    Ok(true)
}

/// The maps [`save_maps`] kept in `dir`, if the file reads whole and was
/// saved at `wal_end`, where the WAL recovered at this open ends.
pub fn load_maps(dir: &dyn Dir, wal_end: Lsn) -> io::Result<SavedMaps> {
    let Some(bytes) = read_hint(dir, TABLE_MAPS_FILE)? else {
        return Ok(SavedMaps::new());
    };
    Ok(match decode(&bytes) {
        Some((at, tables)) if at == wal_end => tables,
        _ => SavedMaps::new(),
    })
}

fn encode(at: Lsn, tables: &[(u64, SavedTable)]) -> Vec<u8> {
    let mut out = HEADER.to_vec();
    out.extend_from_slice(&at.0.to_le_bytes());
    for (root, table) in tables {
        out.extend_from_slice(&root.to_le_bytes());
        out.extend_from_slice(&(table.words.len() as u32).to_le_bytes());
        for (index, word) in &table.words {
            out.extend_from_slice(&index.to_le_bytes());
            out.extend_from_slice(&word.to_le_bytes());
        }
        out.extend_from_slice(&(table.free.len() as u32).to_le_bytes());
        for page in &table.free {
            out.extend_from_slice(&page.0.to_le_bytes());
        }
    }
    let crc = crc32c::crc32c(&out);
    out.extend_from_slice(&crc.to_le_bytes());
    out
}

fn decode(bytes: &[u8]) -> Option<(Lsn, SavedMaps)> {
    let (body, crc) = bytes.split_at_checked(bytes.len().checked_sub(4)?)?;
    if crc32c::crc32c(body).to_le_bytes() != crc {
        return None;
    }
    let mut rest = body.strip_prefix(HEADER)?;
    let at = Lsn(take_u64(&mut rest)?);
    let mut tables = SavedMaps::new();
    while !rest.is_empty() {
        let root = take_u64(&mut rest)?;
        let mut table = SavedTable::default();
        for _ in 0..take_u32(&mut rest)? {
            let index = take_u32(&mut rest)?;
            table.words.push((index, take_u64(&mut rest)?));
        }
        for _ in 0..take_u32(&mut rest)? {
            table.free.push(PageId(take_u64(&mut rest)?));
        }
        tables.insert(root, table);
    }
    Some((at, tables))
}

/// The next `n` bytes of `rest`, consumed.
fn take<'a>(rest: &mut &'a [u8], n: usize) -> Option<&'a [u8]> {
    let (head, tail) = rest.split_at_checked(n)?;
    *rest = tail;
    Some(head)
}

fn take_u32(rest: &mut &[u8]) -> Option<u32> {
    Some(u32::from_le_bytes(take(rest, 4)?.try_into().ok()?))
}

fn take_u64(rest: &mut &[u8]) -> Option<u64> {
    Some(u64::from_le_bytes(take(rest, 8)?.try_into().ok()?))
}

#[cfg(test)]
mod tests {
    use super::*;

    // Proves the layout reads back, and that a torn or altered file reads
    // as nothing.
    #[test]
    fn saved_maps_read_back_and_damage_reads_as_nothing() {
        let tables = vec![
            (
                7,
                SavedTable {
                    words: vec![(0, 0b101), (4095, u64::MAX)],
                    free: vec![PageId(12), PageId(40)],
                },
            ),
            (9, SavedTable::default()),
        ];
        let bytes = encode(Lsn(0x1234_5678), &tables);
        let (at, read) = decode(&bytes).expect("reads");
        assert_eq!(at, Lsn(0x1234_5678));
        assert_eq!(read.len(), 2);
        assert_eq!(read[&7], tables[0].1);
        assert_eq!(read[&9], SavedTable::default());
        assert!(decode(&bytes[..bytes.len() - 1]).is_none(), "torn");
        let mut flipped = bytes.clone();
        flipped[HEADER.len() + 10] ^= 1;
        assert!(decode(&flipped).is_none(), "altered");
        assert!(decode(&[]).is_none());
    }
}
