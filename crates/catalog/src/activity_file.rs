//! Autovacuum's counts kept across restarts (`table_activity` in the data
//! directory), as PostgreSQL keeps `reltuples` in pg_class and its
//! dead-tuple counts in `pg_stat/` over a clean shutdown.
//!
//! Without them a restart forgets how many versions each table holds,
//! and the first pass takes every table with 50 dead versions to be past
//! `50 + 0.2 * versions`: a 1M-row table was vacuumed whole within a
//! second of pgbench's first updates after each restart.
//!
//! The file is a hint, never needed for correctness (`hint_file.rs`),
//! read tolerantly: a missing, short or garbled file, which a crash may
//! leave, loads nothing; a malformed line is skipped. Lines are `oid dead
//! versions`, after a header naming the format.

use crate::catalog::Catalog;
use crate::hint_file::{read_hint, write_hint};
use folio_io::Dir;
use std::io;
use std::sync::atomic::Ordering;

/// The file's name in the data directory.
pub const ACTIVITY_FILE: &str = "table_activity";
/// The first line: the format's name and version.
const HEADER: &str = "folio table activity 1";

/// The counts as one text: the header, then a line per table.
fn encode(counts: &[(u64, u64, u64)]) -> String {
    let mut text = format!("{HEADER}\n");
    for (oid, dead, versions) in counts {
        text.push_str(&format!("{oid} {dead} {versions}\n"));
    }
    text
}

/// The counts a text holds: none unless its header is right; a line
/// that is not three numbers is skipped.
fn decode(text: &str) -> Vec<(u64, u64, u64)> {
    let mut lines = text.lines();
    if lines.next() != Some(HEADER) {
        return Vec::new();
    }
    lines
        .filter_map(|line| {
            let mut numbers = line.split(' ').map(|n| n.parse::<u64>().ok());
            match (
                numbers.next(),
                numbers.next(),
                numbers.next(),
                numbers.next(),
            ) {
                (Some(Some(oid)), Some(Some(dead)), Some(Some(versions)), None) => {
                    Some((oid, dead, versions))
                }
                _ => None,
            }
        })
        .collect()
}

/// The counts held in memory now, by oid.
pub(crate) fn current(catalog: &Catalog) -> Vec<(u64, u64, u64)> {
    let mut counts: Vec<_> = catalog
        .activities()
        .into_iter()
        .map(|(oid, a)| {
            (
                oid,
                a.dead.load(Ordering::Relaxed),
                a.versions.load(Ordering::Relaxed),
            )
        })
        .collect();
    counts.sort_unstable();
    counts
}

/// Writes the catalog's counts to [`ACTIVITY_FILE`] in `dir`.
pub(crate) fn save_activity(catalog: &Catalog, dir: &dyn Dir) -> io::Result<()> {
    write_hint(dir, ACTIVITY_FILE, encode(&current(catalog)).as_bytes())
}

/// Loads the counts [`save_activity`] wrote into the catalog's (fresh)
/// counters; returns how many tables it loaded.
pub(crate) fn load_activity(catalog: &Catalog, dir: &dyn Dir) -> io::Result<usize> {
    let Some(bytes) = read_hint(dir, ACTIVITY_FILE)? else {
        return Ok(0);
    };
    let counts = decode(&String::from_utf8_lossy(&bytes));
    for (oid, dead, versions) in &counts {
        let activity = catalog.activity(*oid);
        activity.dead.store(*dead, Ordering::Relaxed);
        activity.versions.store(*versions, Ordering::Relaxed);
    }
    Ok(counts.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_round_trip_and_damage_loads_nothing_wrong() {
        let counts = vec![(1, 0, 10), (16_384, 7, 1_000_000)];
        assert_eq!(decode(&encode(&counts)), counts);
        assert!(decode("").is_empty(), "empty (a crash before the write)");
        assert!(decode("\0\0\0\0").is_empty(), "zeros");
        assert!(decode("folio table activity 2\n1 2 3\n").is_empty());
        let torn = format!("{HEADER}\n5 1 2\n6 1 x\n7 1 2 3\n8 1");
        assert_eq!(decode(&torn), vec![(5, 1, 2)], "bad lines skipped");
    }
}
