//! The latency of one small durable write on this machine: `pwrite` of one
//! 8 KiB page at the same offset, then `fdatasync`, repeated, as a commit of
//! one key does (one WAL page rewritten and synced). Every engine's commit
//! rate in the peers run is bounded by this latency; run it next to a peers
//! run to see which regime the disk was in (docs/PEERS.md, "Commits measure
//! the disk's sync latency").
//!
//! ```text
//! CARGO_TARGET_DIR=target/peers cargo run --release --manifest-path peers/Cargo.toml \
//!     --example sync_latency -- [--dir DIR] [--seconds S]
//! ```

use anyhow::{Context, Result, bail, ensure};
use std::os::unix::fs::FileExt;
use std::path::PathBuf;
use std::time::{Duration, Instant};

fn main() -> Result<()> {
    let mut dir = std::env::temp_dir();
    let mut seconds = 1.5f64;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = || args.next().with_context(|| format!("{arg} needs a value"));
        match arg.as_str() {
            "--dir" => dir = PathBuf::from(value()?),
            "--seconds" => seconds = value()?.parse().context("--seconds")?,
            other => bail!("unknown argument {other:?}"),
        }
    }
    ensure!(
        seconds > 0.0 && seconds < 3600.0,
        "--seconds must be in (0, 3600)"
    );
    let file = tempfile::tempfile_in(&dir).context("creating the file")?;
    let page = vec![0x5au8; 8192];
    file.write_all_at(&page, 0)?;
    file.sync_all()?;

    let mut latencies_ns: Vec<u64> = Vec::new();
    let end = Instant::now() + Duration::from_secs_f64(seconds);
    while Instant::now() < end {
        file.write_all_at(&page, 0)?;
        let started = Instant::now();
        file.sync_data()?;
        latencies_ns.push(started.elapsed().as_nanos() as u64);
    }
    latencies_ns.sort_unstable();
    let n = latencies_ns.len();
    ensure!(n > 0, "no sync completed");
    let ms = |i: usize| latencies_ns[i.min(n - 1)] as f64 / 1e6;
    println!(
        "{:.0} syncs/s; fdatasync median {:.3} ms, p90 {:.3} ms, min {:.3} ms, max {:.3} ms",
        n as f64 / seconds,
        ms(n / 2),
        ms(n * 9 / 10),
        ms(0),
        ms(n - 1)
    );
    Ok(())
}
