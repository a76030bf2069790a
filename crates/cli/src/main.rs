//! The `folio` command.

mod allocator;
mod bench;
mod checksums;
mod init;
mod serve;
mod verify;
mod waldump;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

/// mimalloc (`allocator.rs` says why and how it is entered), each
/// thread's allocations counted so a statement can be held to
/// `folio.statement_memory_limit` (folio-memory README).
#[global_allocator]
static ALLOCATOR: folio_memory::Counting<allocator::Mimalloc> =
    folio_memory::Counting(allocator::Mimalloc);

#[derive(Debug, Parser)]
#[command(
    name = "folio",
    version,
    about = "folio: a page-based transactional storage engine"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Run benchmarks: with no workload, the quick suite with its summary of
    /// DESIGN.md targets; with a workload, that workload alone.
    Bench(bench::BenchArgs),
    /// Print the WAL of a stopped database, record by record or as
    /// statistics (like pg_waldump).
    Waldump(waldump::WaldumpArgs),
    /// Verify, enable or disable data checksums of a stopped, cleanly shut
    /// down database (like pg_checksums).
    Checksums(checksums::ChecksumsArgs),
    /// Open a database (running crash recovery), verify every tree and the
    /// buffer pool's invariants, and close it.
    Verify(verify::VerifyArgs),
    /// Create a database in an absent or empty directory (like initdb).
    Init(init::InitArgs),
    /// Serve a database over PostgreSQL's wire protocol (psql, pgbench);
    /// the directory is created with a new database on first start.
    Serve(serve::ServeArgs),
}

/// A write to stdout failed: a closed pipe (`folio waldump | head`) ends
/// the command quietly; anything else is an error.
pub(crate) fn stdout_closed(e: std::io::Error) -> anyhow::Result<()> {
    if e.kind() == std::io::ErrorKind::BrokenPipe {
        Ok(())
    } else {
        Err(anyhow::Error::new(e).context("writing to stdout"))
    }
}

/// Runs the command; an error is printed as one line with its causes
/// (`error: context: cause`) and exits with status 1.
fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Bench(args) => bench::run(args),
        Command::Waldump(args) => waldump::run(args),
        Command::Checksums(args) => checksums::run(args),
        Command::Verify(args) => verify::run(args),
        Command::Init(args) => init::run(args),
        Command::Serve(args) => serve::run(args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {}", one_line(&e));
            ExitCode::FAILURE
        }
    }
}

/// The error and its causes on one line (`context: cause: cause`), each
/// said once: a cause whose text its outer message already includes (many
/// library errors print their source) is not repeated.
fn one_line(e: &anyhow::Error) -> String {
    let mut line = String::new();
    for cause in e.chain() {
        let text = cause.to_string();
        if line.contains(&text) {
            continue;
        }
        if !line.is_empty() {
            line.push_str(": ");
        }
        line.push_str(&text);
    }
    line
}
