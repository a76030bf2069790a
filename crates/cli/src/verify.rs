//! `folio verify DIR`: reads every record of the retained WAL (opening the
//! database reads only what recovery needs, from the redo point), opens the
//! database (which runs crash recovery and an end-of-recovery checkpoint),
//! checks every tree in the root map, every table (heap pages, and that
//! heap and indexes agree both ways) and the buffer pool's invariants,
//! prints a report per tree and table, and closes it.

use anyhow::{Context, bail};
use clap::Args;
use folio_btree::{MultiTree, Tree, TreeKind, VerifyReport};
use folio_db::offline::{StoppedDatabase, check_database_dir};
use folio_db::{Database, DbError, Options};
use folio_recovery::XACT_COMMIT;
use folio_wal::{Discarded, ReaderOptions, Record, RmgrId, WalReader};
use std::path::PathBuf;

#[derive(Debug, Args)]
pub struct VerifyArgs {
    /// The database directory (must not be open in another process).
    dir: PathBuf,
    /// Accept damaged WAL (a corrupt record followed by valid WAL, or a
    /// truncated segment): end the WAL at the damage, discarding what
    /// follows (commits included), report what was discarded, and finish
    /// the open so the database opens normally afterwards.
    #[arg(long)]
    truncate_at_corruption: bool,
}

/// What the override discarded, for the user: where, why, how much, and how
/// many commits were lost.
fn describe_discarded(discarded: &Discarded) -> String {
    let commits = discarded.records_of(RmgrId::XACT, XACT_COMMIT);
    let mut text = format!(
        "the WAL now ends at {} ({}); discarded after it: {} bytes holding {} whole records, {commits} of them commits",
        discarded.from_lsn, discarded.reason, discarded.bytes, discarded.records
    );
    for (name, len) in &discarded.short_segments {
        text.push_str(&format!(
            "; segment {name} was truncated to {len} bytes: the records in its missing bytes cannot be counted"
        ));
    }
    if discarded.missing_bytes > 0 {
        text.push_str(&format!(
            " ({} bytes missing in all)",
            discarded.missing_bytes
        ));
    }
    text
}

fn print_row(name: &str, result: &Result<VerifyReport, String>) {
    match result {
        Ok(r) => println!(
            "{name:<24} {:>6} {:>8} {:>8} {:>12}  ok",
            r.height, r.inner_pages, r.leaf_pages, r.entries
        ),
        Err(e) => println!(
            "{name:<24} {:>6} {:>8} {:>8} {:>12}  FAILED: {e}",
            "-", "-", "-", "-"
        ),
    }
}

/// Verifies every tree, continuing past failures; returns the number failed.
fn verify_trees(db: &Database) -> Result<usize, DbError> {
    println!(
        "{:<24} {:>6} {:>8} {:>8} {:>12}",
        "tree", "height", "inner", "leaves", "keys"
    );
    let roots = db.roots().tree().verify().map_err(|e| e.to_string());
    print_row("(root map)", &roots);
    let mut failed = usize::from(roots.is_err());
    for entry in db.roots().list()? {
        let pool = db.pool().clone();
        let result = match entry.kind {
            TreeKind::Unique => Tree::open(pool, entry.root).and_then(|t| t.verify()),
            TreeKind::NonUnique | TreeKind::NonUniquePrefixFree => {
                MultiTree::open(pool, entry.root).and_then(|t| t.verify())
            }
        };
        let result = result.map_err(|e| format!("{e} (root {})", entry.root));
        failed += usize::from(result.is_err());
        print_row(&entry.name, &result);
    }
    // Tables: page lists, heap pages, index trees, heap and indexes in
    // agreement (every row in every index, every entry pointing at a row).
    for (name, result) in db.verify_tables()? {
        let result = result.map_err(|e| e.to_string());
        failed += usize::from(result.is_err());
        print_row(&name, &result);
    }
    Ok(failed)
}

/// The data file's pages, how many are on the free list, and the dropped
/// relations whose pages are not back yet (folio-catalog `reclaim.rs`).
fn space_line(db: &Database) -> Result<String, DbError> {
    let pages = db.pool().page_count()?;
    let free = db.pool().free_page_count()?;
    let pending = db.catalog().pending_drops()?;
    Ok(format!(
        "space: {pages} pages in the data file, {free} on the free list, \
         {pending} dropped relations waiting to give theirs back"
    ))
}

/// Reads every retained WAL record, from the oldest segment to the end: a
/// torn tail ends it, a corrupt record followed by valid WAL is an error
/// naming its LSN. The lock is held only while reading.
fn check_wal(args: &VerifyArgs) -> anyhow::Result<()> {
    let stopped = StoppedDatabase::open(&args.dir)?;
    let options = ReaderOptions {
        truncate_at_corruption: args.truncate_at_corruption,
    };
    let mut reader = WalReader::open(stopped.wal_dir()?, options)
        .with_context(|| format!("opening the WAL of {}", args.dir.display()))?;
    let mut record = Record::empty();
    let mut first = None;
    while reader
        .next_record_into(&mut record)
        .with_context(|| format!("reading the WAL of {}", args.dir.display()))?
    {
        first.get_or_insert(record.lsn);
    }
    match first {
        Some(first) => println!(
            "WAL: {} records from {first} to {}: ok",
            reader.records_read(),
            reader.end_lsn()
        ),
        None => println!("WAL: no records: ok"),
    }
    if let Some(discarded) = reader.discarded() {
        println!(
            "WAL damage accepted (--truncate-at-corruption): {}",
            describe_discarded(discarded)
        );
    }
    Ok(())
}

pub fn run(args: VerifyArgs) -> anyhow::Result<()> {
    check_database_dir(&args.dir)?;
    check_wal(&args)?;
    println!(
        "opening {} (this runs crash recovery if needed and an end-of-recovery checkpoint, \
         which write to the database)",
        args.dir.display()
    );
    let options = Options {
        background_io: false,
        truncate_at_corruption: args.truncate_at_corruption,
        ..Options::default()
    };
    let db = Database::open(&args.dir, options)
        .with_context(|| format!("opening {}", args.dir.display()))?;
    if let Some(r) = db.recovery_stats() {
        println!(
            "recovery: replayed {} records ({} bytes) from {} to {}, {} blocks applied, {} full-page images",
            r.records, r.bytes, r.start_lsn, r.end_lsn, r.blocks_applied, r.fpis_applied
        );
        if let Some(discarded) = &r.discarded {
            println!("recovery: {}", describe_discarded(discarded));
        }
    }
    let failed = verify_trees(&db);
    let space = space_line(&db);
    let invariants = db.check_invariants();
    let closed = db.close();
    let failed = failed.context("listing the root map")?;
    let space = space.context("reading the free list and the list of drops")?;
    println!("{space}");
    match &invariants {
        Ok(()) => println!("buffer pool and WAL invariants: ok"),
        Err(e) => println!("buffer pool and WAL invariants: FAILED: {e}"),
    }
    closed.context("closing the database")?;
    if failed > 0 || invariants.is_err() {
        bail!("{} failed verification", args.dir.display());
    }
    println!("verify: ok");
    Ok(())
}
