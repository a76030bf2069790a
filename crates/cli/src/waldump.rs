//! `folio waldump`: prints the WAL of a stopped database record by record,
//! or statistics per resource manager and record type (like `pg_waldump`
//! and `pg_waldump --stats=record`).

use crate::stdout_closed;
use anyhow::{Context, bail};
use clap::Args;
use folio_db::offline::StoppedDatabase;
use folio_page::{Lsn, PAGE_SIZE};
use folio_recovery::RedoRegistry;
use folio_wal::{ReaderOptions, Record, RmgrId, WalReader};
use serde_json::json;
use std::collections::BTreeMap;
use std::io::{BufWriter, Write};
use std::path::PathBuf;

#[derive(Debug, Args)]
pub struct WaldumpArgs {
    /// The database directory (must not be open in another process).
    dir: PathBuf,
    /// Start at the record beginning at this LSN (`X/XXXXXXXX` as printed,
    /// or decimal); default: the oldest record retained.
    #[arg(long, value_parser = parse_lsn)]
    from: Option<Lsn>,
    /// Stop after this many records.
    #[arg(long)]
    limit: Option<u64>,
    /// Print counts and sizes per resource manager and record type instead
    /// of the records.
    #[arg(long)]
    stats: bool,
    /// Print JSON: one object per record, or one object of statistics.
    #[arg(long)]
    json: bool,
}

/// Parses PostgreSQL's LSN notation `X/XXXXXXXX` (high and low 32 bits in
/// hex) or a plain decimal byte position.
pub fn parse_lsn(text: &str) -> Result<Lsn, String> {
    let bad = || format!("{text:?} is not an LSN (expected X/XXXXXXXX or a decimal number)");
    match text.split_once('/') {
        Some((hi, lo)) => {
            let hi = u32::from_str_radix(hi, 16).map_err(|_| bad())?;
            let lo = u32::from_str_radix(lo, 16).map_err(|_| bad())?;
            Ok(Lsn((u64::from(hi) << 32) | u64::from(lo)))
        }
        None => text.parse().map(Lsn).map_err(|_| bad()),
    }
}

/// A record's resource manager name, type name and description, from the
/// redo registry (records of an unregistered resource manager get numbers).
fn names(registry: &RedoRegistry, record: &Record) -> (String, String, String) {
    match registry.get(record.rmgr) {
        Some(rmgr) => (
            rmgr.name().to_string(),
            rmgr.type_name(record.rtype).to_string(),
            rmgr.describe(record),
        ),
        None if record.rmgr == RmgrId::XLOG => (
            "XLOG".into(),
            format!("type{}", record.rtype),
            String::new(),
        ),
        None => (
            format!("rmgr{}", record.rmgr.0),
            format!("type{}", record.rtype),
            String::new(),
        ),
    }
}

/// Bytes of full-page images in `record`.
fn fpi_bytes(record: &Record) -> u64 {
    record.blocks.iter().filter(|b| b.image.is_some()).count() as u64 * PAGE_SIZE as u64
}

/// Counts and sizes of one group of records.
#[derive(Clone, Copy, Debug, Default)]
struct Tally {
    records: u64,
    /// `total_len` minus the full-page images.
    record_bytes: u64,
    fpi_bytes: u64,
    fpis: u64,
}

impl Tally {
    fn add(&mut self, record: &Record) {
        let fpi = fpi_bytes(record);
        self.records += 1;
        self.fpi_bytes += fpi;
        self.record_bytes += u64::from(record.total_len) - fpi;
        self.fpis += fpi / PAGE_SIZE as u64;
    }

    fn combined_bytes(&self) -> u64 {
        self.record_bytes + self.fpi_bytes
    }

    fn to_json(self, name: &str) -> serde_json::Value {
        json!({
            "name": name,
            "records": self.records,
            "record_bytes": self.record_bytes,
            "fpi_bytes": self.fpi_bytes,
            "fpis": self.fpis,
            "combined_bytes": self.combined_bytes(),
        })
    }
}

/// Statistics per resource manager and per (resource manager, type).
#[derive(Debug, Default)]
struct Stats {
    total: Tally,
    by_rmgr: BTreeMap<(u8, String), Tally>,
    by_type: BTreeMap<(u8, u8, String), Tally>,
}

impl Stats {
    fn add(&mut self, record: &Record, rmgr: &str, rtype: &str) {
        self.total.add(record);
        let key = (record.rmgr.0, rmgr.to_string());
        self.by_rmgr.entry(key).or_default().add(record);
        let key = (record.rmgr.0, record.rtype, format!("{rmgr}/{rtype}"));
        self.by_type.entry(key).or_default().add(record);
    }

    fn print(&self, out: &mut dyn Write, json: bool) -> std::io::Result<()> {
        if json {
            let value = json!({
                "total": self.total.to_json("total"),
                "rmgrs": self.by_rmgr.iter().map(|((_, n), t)| t.to_json(n)).collect::<Vec<_>>(),
                "types": self.by_type.iter().map(|((_, _, n), t)| t.to_json(n)).collect::<Vec<_>>(),
            });
            return writeln!(out, "{value}");
        }
        let groups = [
            (
                "Resource manager",
                self.by_rmgr
                    .iter()
                    .map(|((_, n), t)| (n, t))
                    .collect::<Vec<_>>(),
            ),
            (
                "Record type",
                self.by_type.iter().map(|((_, _, n), t)| (n, t)).collect(),
            ),
        ];
        for (title, rows) in groups {
            writeln!(
                out,
                "{title:<24} {:>9} {:>7} {:>12} {:>7} {:>12} {:>7} {:>14} {:>7}",
                "N", "(%)", "Record size", "(%)", "FPI size", "(%)", "Combined size", "(%)"
            )?;
            writeln!(out, "{}", "-".repeat(108))?;
            for (name, tally) in rows {
                self.print_row(out, name, tally)?;
            }
            self.print_row(out, "Total", &self.total)?;
            writeln!(out)?;
        }
        Ok(())
    }

    fn print_row(&self, out: &mut dyn Write, name: &str, t: &Tally) -> std::io::Result<()> {
        let pct = |part: u64, whole: u64| {
            if whole == 0 {
                0.0
            } else {
                100.0 * part as f64 / whole as f64
            }
        };
        let total = &self.total;
        writeln!(
            out,
            "{name:<24} {:>9} {:>6.2}% {:>12} {:>6.2}% {:>12} {:>6.2}% {:>14} {:>6.2}%",
            t.records,
            pct(t.records, total.records),
            t.record_bytes,
            pct(t.record_bytes, total.record_bytes),
            t.fpi_bytes,
            pct(t.fpi_bytes, total.fpi_bytes),
            t.combined_bytes(),
            pct(t.combined_bytes(), total.combined_bytes()),
        )
    }
}

fn print_record(
    out: &mut dyn Write,
    record: &Record,
    (rmgr, rtype, desc): &(String, String, String),
    json: bool,
) -> std::io::Result<()> {
    if json {
        let blocks: Vec<_> = record
            .blocks
            .iter()
            .map(|b| json!({"page": b.page_id.0, "fpi": b.image.is_some(), "data_len": b.data.len()}))
            .collect();
        let value = json!({
            "lsn": record.lsn.to_string(),
            "end_lsn": record.end_lsn.to_string(),
            "prev": record.prev_lsn.to_string(),
            "rmgr": rmgr,
            "type": rtype,
            "len": record.total_len,
            "fpi_len": fpi_bytes(record),
            "blocks": blocks,
            "desc": desc,
        });
        return writeln!(out, "{value}");
    }
    let blocks: Vec<String> = record
        .blocks
        .iter()
        .map(|b| {
            let fpi = if b.image.is_some() { " FPI" } else { "" };
            format!("{}{fpi}", b.page_id)
        })
        .collect();
    writeln!(
        out,
        "rmgr: {rmgr:<10} type: {rtype:<14} len: {:>6}, lsn: {}, prev: {}, blocks: [{}], desc: {desc}",
        record.total_len,
        record.lsn,
        record.prev_lsn,
        blocks.join(", "),
    )
}

pub fn run(args: WaldumpArgs) -> anyhow::Result<()> {
    let db = StoppedDatabase::open(&args.dir)?;
    let wal = db.wal_dir()?;
    let mut reader = WalReader::open(wal, ReaderOptions::default())
        .with_context(|| format!("opening the WAL of {}", args.dir.display()))?;
    if let Some(from) = args.from {
        reader.seek(from)?;
    }
    let registry = folio_db::redo_registry();
    let mut stats = Stats::default();
    let stdout = std::io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    let limit = args.limit.unwrap_or(u64::MAX);
    let mut printed = 0u64;
    let mut failure = None;
    while printed < limit {
        let record = match reader.next_record() {
            Ok(Some(record)) => record,
            Ok(None) => break,
            Err(e) => {
                failure = Some(e);
                break;
            }
        };
        let names = names(&registry, &record);
        if args.stats {
            stats.add(&record, &names.0, &names.1);
        } else if let Err(e) = print_record(&mut out, &record, &names, args.json) {
            return stdout_closed(e);
        }
        printed += 1;
    }
    if args.stats
        && let Err(e) = stats.print(&mut out, args.json)
    {
        return stdout_closed(e);
    }
    if let Err(e) = out.flush() {
        return stdout_closed(e);
    }
    if let Some(e) = failure {
        let hint = match args.from {
            Some(from) if printed == 0 => format!(" (is --from {from} the start of a record?)"),
            _ => String::new(),
        };
        return Err(anyhow::Error::new(e).context(format!(
            "reading the WAL of {} after {printed} records{hint}",
            args.dir.display()
        )));
    }
    if printed == limit {
        eprintln!("stopped after {printed} records (--limit)");
    } else if let (Some(from), 0) = (args.from, printed) {
        // Nothing at `from`: say where the WAL is, and fail (the tool did
        // not do what was asked).
        let mut whole = WalReader::open(db.wal_dir()?, ReaderOptions::default())?;
        let mut oldest = None;
        while let Some(record) = whole.next_record()? {
            oldest.get_or_insert(record.lsn);
        }
        let end = whole.end_lsn();
        match oldest {
            Some(oldest) if from < oldest => bail!(
                "no record at {from}: it is before the oldest retained record, at {oldest} (the WAL ends at {end})"
            ),
            _ => bail!("no record at {from}: the WAL ends at {end}"),
        }
    } else {
        eprintln!("end of WAL at {} ({printed} records)", reader.end_lsn());
    }
    Ok(())
}
