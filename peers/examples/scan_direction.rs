//! Why folio's backward full scan runs slower than its forward one in the
//! peers run, while `folio bench btree` measures them equal.
//!
//! ```text
//! CARGO_TARGET_DIR=target/peers cargo run --release --manifest-path peers/Cargo.toml \
//!     --example scan_direction -- [--keys N] [--passes P] [--only CASE]
//! ```
//!
//! The differences between the two measurements are separated here, one at
//! a time, each forward and backward in the same process:
//!
//! 1. **load order**: the peers' bulk load inserts keys in key order, so
//!    every split of the rightmost leaf puts the next keys on a newly
//!    allocated page and leaves lie in memory in key order; the bench
//!    inserts shuffled keys, so leaves lie in random order. `layout` counts
//!    the leaves whose right sibling is the next page in memory.
//! 2. **per-entry work**: the peers check every entry (`ScanCheck`: key
//!    order and the value recomputed and compared); the bench only counts.
//! 3. **WAL-logged tree in folio-db** (peers) vs an unlogged tree (bench):
//!    scans never touch the WAL, so both use folio-db here.
//! 4. **the copy alone**: walking the leaf chain through the sibling links
//!    and copying each leaf as a scan does (`read_bytes`, validated),
//!    entries not read, forward and backward.
//! 5. **memory alone**: copying 8 KiB blocks of an anonymous region with
//!    the buffer pool's copy (volatile 8-byte loads, ascending within a
//!    block), visiting the blocks in ascending, descending or random address
//!    order, without any tree code; and two ways to repair the descending
//!    order (copy each block last byte to first; prefetch the next block),
//!    plus random order copied last byte to first (no slower than random).
//!
//! `--only CASE` runs one case for `--passes` passes (for `perf record`):
//! `seq-forward`, `seq-backward`, `shuffled-forward`, `shuffled-backward`,
//! `copy-ascending`, `copy-descending`, `copy-random`.

// The peers' key, value and scan check, shared with the benchmark binary
// (this example uses only part of it).
#[allow(dead_code)]
#[path = "../src/data.rs"]
mod data;

use anyhow::{Context, Result, bail, ensure};
use data::ScanCheck;
use folio_btree::{Direction, Tree};
use folio_db::{Database, Options};
use folio_page::PageId;
use rand::SeedableRng;
use rand::seq::SliceRandom;
use rand_chacha::ChaCha8Rng;
use std::ops::Bound;
use std::time::Instant;

/// Pool size: the whole tree stays cached, as in the peers run.
const CACHE_BYTES: u64 = 1 << 30;
/// Bytes in a page (folio's page size).
const PAGE_BYTES: usize = 8192;
/// Node layout offsets (folio-btree `node.rs`, table at the top).
const OFF_MAGIC: usize = 24;
const OFF_LEVEL: usize = 26;
const OFF_TREE_ID: usize = 48;
const OFF_LEFT: usize = 56;
const OFF_RIGHT: usize = 64;
const NODE_MAGIC: u16 = 0xB7EE;

#[derive(Debug, Clone, Copy, PartialEq)]
enum Load {
    Sequential,
    Shuffled,
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Work {
    /// Count entries only (what `folio bench btree` does).
    Count,
    /// The peers' `ScanCheck` on every entry.
    Check,
}

struct Loaded {
    _dir: tempfile::TempDir,
    db: Database,
    tree: Tree,
}

fn load(keys: u64, order: Load) -> Result<Loaded> {
    let dir = tempfile::Builder::new()
        .prefix("folio-scan-direction-")
        .tempdir()?;
    let options = Options {
        pool_size_bytes: CACHE_BYTES,
        ..Options::default()
    };
    let db = Database::create(dir.path(), options).context("create database")?;
    let tree = db.create_tree("kv")?;
    let mut indices: Vec<u64> = (0..keys).collect();
    if order == Load::Shuffled {
        indices.shuffle(&mut ChaCha8Rng::seed_from_u64(0xB7EE));
    }
    let started = Instant::now();
    for &i in &indices {
        tree.insert(&data::key(i), &data::value(i))?;
    }
    db.commit()?;
    db.checkpoint()?;
    eprintln!(
        "{order:?} load of {keys} keys: {:.2} s",
        started.elapsed().as_secs_f64()
    );
    Ok(Loaded {
        _dir: dir,
        db,
        tree,
    })
}

/// The leaf level as the scans see it.
#[derive(Debug, Default)]
struct Layout {
    leaves: u64,
    /// Leaves whose right sibling is the next page id (the next 8 KiB of
    /// the pool's memory).
    right_is_next_page: u64,
    leftmost: u64,
    rightmost: u64,
}

fn u64_at(page: &[u8], offset: usize) -> u64 {
    let mut b = [0u8; 8];
    b.copy_from_slice(&page[offset..offset + 8]);
    u64::from_le_bytes(b)
}

/// Reads every page of the tree's pool and describes its leaf level.
fn layout(loaded: &Loaded) -> Result<Layout> {
    let pool = loaded.db.pool();
    let root = loaded.tree.root().0;
    let mut page = vec![0u8; PAGE_BYTES];
    let mut layout = Layout::default();
    for id in 1..pool.page_count()? {
        let guard = pool.optimistic(PageId(id))?;
        guard.read_bytes(0, &mut page);
        if guard.validate().is_err() {
            bail!("page {id} changed while reading it (nothing should write)");
        }
        let magic = u16::from_le_bytes([page[OFF_MAGIC], page[OFF_MAGIC + 1]]);
        if magic != NODE_MAGIC || page[OFF_LEVEL] != 0 || u64_at(&page, OFF_TREE_ID) != root {
            continue;
        }
        layout.leaves += 1;
        let right = u64_at(&page, OFF_RIGHT);
        if right == id + 1 {
            layout.right_is_next_page += 1;
        }
        if right == 0 {
            layout.rightmost = id;
        }
        if u64_at(&page, OFF_LEFT) == 0 {
            layout.leftmost = id;
        }
    }
    Ok(layout)
}

/// Walks the leaf chain from one end to the other through the sibling
/// links, copying each leaf as a scan does (optimistic read, validated),
/// without looking at its entries: leaves per second.
fn walk_rate(loaded: &Loaded, layout: &Layout, forward: bool) -> Result<f64> {
    let pool = loaded.db.pool();
    let mut page = vec![0u8; PAGE_BYTES];
    let (mut id, link) = if forward {
        (layout.leftmost, OFF_RIGHT)
    } else {
        (layout.rightmost, OFF_LEFT)
    };
    let started = Instant::now();
    let mut visited = 0u64;
    while id != 0 {
        ensure!(
            visited < layout.leaves,
            "the leaf chain is longer than the leaf count"
        );
        let guard = pool.optimistic(PageId(id))?;
        guard.read_bytes(0, &mut page);
        ensure!(
            guard.validate().is_ok(),
            "page {id} changed during the walk"
        );
        visited += 1;
        id = u64_at(&page, link);
    }
    ensure!(
        visited == layout.leaves,
        "walked {visited} of {} leaves",
        layout.leaves
    );
    Ok(visited as f64 / started.elapsed().as_secs_f64())
}

/// One full scan; returns the entries seen.
fn scan(tree: &Tree, keys: u64, direction: Direction, work: Work) -> Result<u64> {
    let mut scan = tree.scan(Bound::Unbounded, Bound::Unbounded, direction);
    match work {
        Work::Count => {
            let mut n = 0u64;
            while scan.next_entry()?.is_some() {
                n += 1;
            }
            ensure!(n == keys, "scan saw {n} entries, expected {keys}");
            Ok(n)
        }
        Work::Check => {
            let mut check = ScanCheck::new("folio", keys, direction == Direction::Forward);
            while let Some((k, v)) = scan.next_entry()? {
                check.visit(k, v)?;
            }
            check.finish()
        }
    }
}

/// Entries per second of `passes` scans in each direction, alternated so
/// that drift (other load on the machine) affects both alike.
fn scan_rates(tree: &Tree, keys: u64, work: Work, passes: u32) -> Result<(f64, f64)> {
    let mut seconds = [0.0f64; 2];
    for _ in 0..passes {
        for (i, direction) in [Direction::Forward, Direction::Backward]
            .into_iter()
            .enumerate()
        {
            let started = Instant::now();
            scan(tree, keys, direction, work)?;
            seconds[i] += started.elapsed().as_secs_f64();
        }
    }
    let total = f64::from(passes) * keys as f64;
    Ok((total / seconds[0], total / seconds[1]))
}

/// The pool's racy copy (folio-buffer `guards.rs`): volatile 8-byte loads,
/// first word to last.
fn racy_copy(src: &[u64], out: &mut [u64]) {
    for (o, s) in out.iter_mut().zip(src) {
        // SAFETY: `s` is a reference to an initialised, aligned u64.
        *o = unsafe { std::ptr::read_volatile(s) };
    }
}

/// The same copy, last word to first.
fn racy_copy_down(src: &[u64], out: &mut [u64]) {
    for (o, s) in out.iter_mut().zip(src).rev() {
        // SAFETY: `s` is a reference to an initialised, aligned u64.
        *o = unsafe { std::ptr::read_volatile(s) };
    }
}

/// Asks the CPU to fetch every cache line of `block` (a hint, no effect on
/// results; nothing on targets without a prefetch instruction).
fn prefetch(block: &[u64]) {
    #[cfg(target_arch = "x86_64")]
    for line in block.chunks(8) {
        // SAFETY: prefetching is a hint that never faults; the address is
        // inside a live slice.
        unsafe {
            std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(
                line.as_ptr().cast(),
            )
        };
    }
    #[cfg(not(target_arch = "x86_64"))]
    std::hint::black_box(block);
}

/// The order in which `copy_rate` visits the blocks, and how it copies each.
#[derive(Debug, Clone, Copy, PartialEq)]
enum BlockOrder {
    /// Ascending addresses (a forward scan of a tree loaded in key order).
    Ascending,
    /// Descending block addresses, each block copied first byte to last (a
    /// backward scan of a tree loaded in key order, as folio does it now).
    Descending,
    /// Descending block addresses, each block copied last byte to first.
    DescendingCopiedDown,
    /// As `Descending`, with the next block prefetched before each copy.
    DescendingPrefetched,
    /// Random block order (either scan of a tree loaded in random order).
    Random,
    /// Random block order, each block copied last byte to first.
    RandomCopiedDown,
}

/// Copies every 8 KiB block of `region` into a private page (each block
/// from its first byte to its last), visiting the blocks in `order` of
/// their addresses; bytes per second.
fn copy_rate(region: &[u64], order: BlockOrder, passes: u32) -> f64 {
    let words = PAGE_BYTES / 8;
    let blocks = region.len() / words;
    let mut sequence: Vec<usize> = (0..blocks).collect();
    match order {
        BlockOrder::Ascending => {}
        BlockOrder::Descending
        | BlockOrder::DescendingCopiedDown
        | BlockOrder::DescendingPrefetched => sequence.reverse(),
        BlockOrder::Random | BlockOrder::RandomCopiedDown => {
            sequence.shuffle(&mut ChaCha8Rng::seed_from_u64(0xB10C))
        }
    }
    let block_at = |i: usize| &region[sequence[i] * words..(sequence[i] + 1) * words];
    let mut page = vec![0u64; words];
    let mut sink = 0u64;
    let started = Instant::now();
    for _ in 0..passes {
        for i in 0..blocks {
            match order {
                BlockOrder::DescendingCopiedDown | BlockOrder::RandomCopiedDown => {
                    racy_copy_down(block_at(i), &mut page)
                }
                BlockOrder::DescendingPrefetched => {
                    if i + 1 < blocks {
                        prefetch(block_at(i + 1));
                    }
                    racy_copy(block_at(i), &mut page);
                }
                _ => racy_copy(block_at(i), &mut page),
            }
            sink = sink.wrapping_add(page[words / 2]);
        }
    }
    std::hint::black_box(sink);
    (f64::from(passes) * (blocks * PAGE_BYTES) as f64) / started.elapsed().as_secs_f64()
}

struct Args {
    keys: u64,
    passes: u32,
    only: Option<String>,
}

fn parse_args() -> Result<Args> {
    let mut args = Args {
        keys: 1_000_000,
        passes: 10,
        only: None,
    };
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        let mut value = || it.next().with_context(|| format!("{arg} needs a value"));
        match arg.as_str() {
            "--keys" => args.keys = value()?.parse().context("--keys")?,
            "--passes" => args.passes = value()?.parse().context("--passes")?,
            "--only" => args.only = Some(value()?),
            other => bail!("unknown argument {other:?}"),
        }
    }
    ensure!(
        args.keys > 0 && args.passes > 0,
        "--keys and --passes must be positive"
    );
    Ok(args)
}

fn main() -> Result<()> {
    let args = parse_args()?;
    let (keys, passes) = (args.keys, args.passes);
    if let Some(only) = args.only.as_deref() {
        return run_only(only, keys, passes);
    }
    let mut pages = 0;
    let mut walks = Vec::new();
    println!(
        "| tree | leaves | right sibling = next page | work | forward (entries/s) | backward | backward / forward |"
    );
    println!("|:--|--:|--:|:--|--:|--:|--:|");
    for order in [Load::Sequential, Load::Shuffled] {
        let loaded = load(keys, order)?;
        let layout = layout(&loaded)?;
        pages = pages.max(loaded.db.pool().page_count()?);
        for work in [Work::Count, Work::Check] {
            let (forward, backward) = scan_rates(&loaded.tree, keys, work, passes)?;
            println!(
                "| {order:?} | {} | {:.1}% | {work:?} | {:.2}M | {:.2}M | {:.2} |",
                layout.leaves,
                100.0 * layout.right_is_next_page as f64 / layout.leaves.max(1) as f64,
                forward / 1e6,
                backward / 1e6,
                backward / forward
            );
        }
        let mut rates = [0.0f64; 2];
        for _ in 0..passes {
            rates[0] += walk_rate(&loaded, &layout, true)? / f64::from(passes);
            rates[1] += walk_rate(&loaded, &layout, false)? / f64::from(passes);
        }
        walks.push((order, rates));
    }
    println!(
        "\nleaf walks through the sibling links, each leaf copied (optimistic read), entries not read:\n\
         | tree | forward (leaves/s) | backward | backward / forward |\n|:--|--:|--:|--:|"
    );
    for (order, [forward, backward]) in walks {
        println!(
            "| {order:?} | {:.0}k | {:.0}k | {:.2} |",
            forward / 1e3,
            backward / 1e3,
            backward / forward,
        );
    }
    let region = vec![1u64; pages as usize * PAGE_BYTES / 8];
    let orders = [
        BlockOrder::Ascending,
        BlockOrder::Descending,
        BlockOrder::DescendingCopiedDown,
        BlockOrder::DescendingPrefetched,
        BlockOrder::Random,
        BlockOrder::RandomCopiedDown,
    ];
    let mut rates = [0.0f64; 6];
    for _ in 0..passes {
        for (rate, order) in rates.iter_mut().zip(orders) {
            *rate += copy_rate(&region, order, 1) / f64::from(passes);
        }
    }
    println!(
        "\nmemory only, {pages} blocks of 8 KiB, each copied with volatile 8-byte loads:\n\
         | block order | GB/s | / ascending |\n|:--|--:|--:|"
    );
    for (rate, order) in rates.iter().zip(orders) {
        println!("| {order:?} | {:.2} | {:.2} |", rate / 1e9, rate / rates[0]);
    }
    Ok(())
}

fn run_only(case: &str, keys: u64, passes: u32) -> Result<()> {
    let (load_order, direction) = match case {
        "seq-forward" => (Load::Sequential, Direction::Forward),
        "seq-backward" => (Load::Sequential, Direction::Backward),
        "shuffled-forward" => (Load::Shuffled, Direction::Forward),
        "shuffled-backward" => (Load::Shuffled, Direction::Backward),
        "copy-ascending" | "copy-descending" | "copy-random" => {
            // About as many blocks as a sequentially loaded tree of `keys` has pages.
            let blocks = (keys / 30).max(1) as usize;
            let region = vec![1u64; blocks * PAGE_BYTES / 8];
            let order = match case {
                "copy-ascending" => BlockOrder::Ascending,
                "copy-descending" => BlockOrder::Descending,
                _ => BlockOrder::Random,
            };
            let rate = copy_rate(&region, order, passes);
            println!("{case}: {:.2} GB/s", rate / 1e9);
            return Ok(());
        }
        other => bail!("unknown case {other:?}"),
    };
    let loaded = load(keys, load_order)?;
    let started = Instant::now();
    for _ in 0..passes {
        scan(&loaded.tree, keys, direction, Work::Check)?;
    }
    let rate = f64::from(passes) * keys as f64 / started.elapsed().as_secs_f64();
    println!("{case}: {:.2}M entries/s", rate / 1e6);
    Ok(())
}
