//! The `folio` command.

mod bench;

use clap::{Parser, Subcommand};

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
}

fn main() -> anyhow::Result<()> {
    let cli = Cli::parse();
    match cli.command {
        Command::Bench(args) => bench::run(args),
    }
}
