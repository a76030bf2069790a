//! `folio checksums verify|enable|disable DIR`: data checksums of a stopped
//! database (like `pg_checksums`). The work and its crash-safe order live in
//! `folio_db::offline`; this file parses, shows progress and prints.

use anyhow::bail;
use clap::{Args, ValueEnum};
use folio_db::offline::{ChecksumReport, set_checksums, verify_checksums};
use indicatif::{ProgressBar, ProgressStyle};
use std::path::PathBuf;

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Action {
    /// Read every page and check its checksum; exit 1 if any is bad.
    Verify,
    /// Write a checksum into every page, then turn checksums on.
    Enable,
    /// Turn checksums off (pages keep stale checksums, ignored while off).
    Disable,
}

#[derive(Debug, Args)]
pub struct ChecksumsArgs {
    #[arg(value_enum)]
    action: Action,
    /// The database directory: stopped, and shut down cleanly.
    dir: PathBuf,
}

/// A progress bar on stderr (drawn only on a terminal).
fn progress_bar(label: &'static str) -> (ProgressBar, impl FnMut(u64, u64)) {
    let bar = ProgressBar::new(0);
    bar.set_style(
        ProgressStyle::with_template("{prefix:>10} [{bar:30}] {pos}/{len} pages ({elapsed})")
            .expect("progress template")
            .progress_chars("=> "),
    );
    bar.set_prefix(label);
    let handle = bar.clone();
    (bar, move |done, total| {
        handle.set_length(total);
        handle.set_position(done);
    })
}

fn print_summary(report: &ChecksumReport) {
    println!(
        "pages in the data file: {} (high-water mark {}, {} never written)",
        report.pages_scanned, report.page_count, report.zero_pages
    );
    if report.trailing_bytes > 0 {
        println!(
            "note: {} bytes after the last whole page ignored",
            report.trailing_bytes
        );
    }
}

pub fn run(args: ChecksumsArgs) -> anyhow::Result<()> {
    let (bar, mut progress) = progress_bar(match args.action {
        Action::Verify => "verifying",
        Action::Enable => "enabling",
        Action::Disable => "disabling",
    });
    let result = match args.action {
        Action::Verify => verify_checksums(&args.dir, &mut progress),
        Action::Enable => set_checksums(&args.dir, true, &mut progress),
        Action::Disable => set_checksums(&args.dir, false, &mut progress),
    };
    bar.finish_and_clear();
    let report = result?;
    print_summary(&report);
    match args.action {
        Action::Verify => {
            for bad in &report.bad_pages {
                println!("bad checksum: {bad}");
            }
            let bad = report.bad_pages.len();
            if bad > 0 {
                bail!(
                    "{bad} page{} with a bad checksum in {}",
                    if bad == 1 { "" } else { "s" },
                    args.dir.display()
                );
            }
            println!("checksums verified: no bad pages");
        }
        Action::Enable => {
            println!(
                "pages written: {}\ndata checksums enabled",
                report.pages_written
            );
        }
        Action::Disable => println!("data checksums disabled"),
    }
    Ok(())
}
