//! The tables' all-visible bits kept across a clean restart
//! (`visibility_maps` in the data directory), so index-only scans after a
//! restart skip the heap where they did before it (PostgreSQL keeps its
//! visibility map on disk; folio-heap's lives in memory).
//!
//! Unlike the other hint files (`hint_file.rs`) a wrong bit here would
//! give wrong answers: an index-only scan trusts a set bit without
//! reading the page. So the file holds the WAL position its bits were
//! true at, and the next open loads it only if the WAL it recovered ends
//! exactly there: every heap change writes WAL (folio-heap `Table::log`,
//! clearing the page's bit first), so no page changed after the save.
//!
//! - **Save** ([`save_visibility`], at a stop after the last checkpoint):
//!   the WAL's insert position is read before and after every open
//!   table's words are copied; if they differ a change ran meanwhile and
//!   nothing is saved. If they agree, no change was logged during the
//!   copy, so each copied bit was true at that position: a change clears
//!   its page's bit before logging, and one logged later either reaches
//!   the disk (the next open finds the WAL longer and loads nothing) or
//!   does not (then neither did its page: WAL before data).
//! - **Load** ([`load_visibility`], at open, with the WAL's recovered
//!   end): the words wait by table until `Catalog::open_table` opens
//!   the table. A file that does not read whole, fails its checksum, or
//!   holds another position loads nothing: every bit starts clear, which
//!   is safe.
//!
//! Layout, little-endian: the header line, the position (u64), then per
//! table its oid (u64), its word count (u32) and each word's index (u32)
//! and bits (u64); last a CRC-32C of everything before it (u32).

use crate::catalog::Catalog;
use crate::hint_file::{read_hint, write_hint};
use folio_io::Dir;
use folio_page::Lsn;
use std::collections::HashMap;
use std::io;

/// The file's name in the data directory.
pub const VISIBILITY_FILE: &str = "visibility_maps";
/// The format's name and version.
const HEADER: &[u8] = b"folio visibility maps 1\n";

/// A table's saved words, by table oid.
pub(crate) type SavedWords = HashMap<u64, Vec<(u32, u64)>>;

/// Writes every open table's all-visible words to [`VISIBILITY_FILE`] in
/// `dir`, valid at the WAL's insert position; `false` (nothing written)
/// when a change was logged while they were copied.
pub fn save_visibility(catalog: &Catalog, dir: &dyn Dir) -> io::Result<bool> {
    let before = catalog.wal.insert_lsn();
    let tables = catalog.open_tables_words();
    if catalog.wal.insert_lsn() != before {
        return Ok(false);
    }
    write_hint(dir, VISIBILITY_FILE, &encode(before, &tables))?;
    Ok(true)
}

/// The words [`save_visibility`] kept in `dir`, if the file reads whole
/// and was saved at `wal_end`, where the WAL recovered at this open ends.
pub fn load_visibility(dir: &dyn Dir, wal_end: Lsn) -> io::Result<SavedWords> {
    let Some(bytes) = read_hint(dir, VISIBILITY_FILE)? else {
        return Ok(SavedWords::new());
    };
    Ok(match decode(&bytes) {
        Some((at, tables)) if at == wal_end => tables,
        _ => SavedWords::new(),
    })
}

fn encode(at: Lsn, tables: &[(u64, Vec<(u32, u64)>)]) -> Vec<u8> {
    let mut out = HEADER.to_vec();
    out.extend_from_slice(&at.0.to_le_bytes());
    for (oid, words) in tables {
        out.extend_from_slice(&oid.to_le_bytes());
        out.extend_from_slice(&(words.len() as u32).to_le_bytes());
        for (index, word) in words {
            out.extend_from_slice(&index.to_le_bytes());
            out.extend_from_slice(&word.to_le_bytes());
        }
    }
    let crc = crc32c::crc32c(&out);
    out.extend_from_slice(&crc.to_le_bytes());
    out
}

fn decode(bytes: &[u8]) -> Option<(Lsn, SavedWords)> {
    let (body, crc) = bytes.split_at_checked(bytes.len().checked_sub(4)?)?;
    if crc32c::crc32c(body).to_le_bytes() != crc {
        return None;
    }
    let mut rest = body.strip_prefix(HEADER)?;
    let at = Lsn(take_u64(&mut rest)?);
    let mut tables = SavedWords::new();
    while !rest.is_empty() {
        let oid = take_u64(&mut rest)?;
        let count = take(&mut rest, 4)?;
        let count = u32::from_le_bytes(count.try_into().ok()?) as usize;
        let mut words = Vec::with_capacity(count.min(1 << 20));
        for _ in 0..count {
            let index = u32::from_le_bytes(take(&mut rest, 4)?.try_into().ok()?);
            words.push((index, take_u64(&mut rest)?));
        }
        tables.insert(oid, words);
    }
    Some((at, tables))
}

/// The next `n` bytes of `rest`, consumed.
fn take<'a>(rest: &mut &'a [u8], n: usize) -> Option<&'a [u8]> {
    let (head, tail) = rest.split_at_checked(n)?;
    *rest = tail;
    Some(head)
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
    fn saved_words_read_back_and_damage_reads_as_nothing() {
        let tables = vec![(7, vec![(0, 0b101), (4095, u64::MAX)]), (9, vec![])];
        let bytes = encode(Lsn(0x1234_5678), &tables);
        let (at, read) = decode(&bytes).expect("reads");
        assert_eq!(at, Lsn(0x1234_5678));
        assert_eq!(read.len(), 2);
        assert_eq!(read[&7], tables[0].1);
        assert!(read[&9].is_empty());
        assert!(decode(&bytes[..bytes.len() - 1]).is_none(), "torn");
        let mut flipped = bytes.clone();
        flipped[HEADER.len() + 10] ^= 1;
        assert!(decode(&flipped).is_none(), "altered");
        assert!(decode(&[]).is_none());
    }
}
