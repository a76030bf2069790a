//! Test support: small options, a seeded mixed workload over one unique and
//! one non-unique tree, and the model it must leave behind.
#![allow(dead_code)]

use folio_btree::{Direction, MultiTree, Tree};
use folio_db::{Database, DbError, Options};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::BTreeMap;
use std::ops::Bound;
use std::time::Duration;

/// Small everything: a 10-page pool (so pages are evicted and written
/// mid-workload), 64 KiB WAL segments, no background threads (one thread
/// drives the simulated device, so every case replays from its seed).
pub fn small_options() -> Options {
    Options {
        pool_size_bytes: 10 * 8192,
        max_database_bytes: 64 << 20,
        wal_segment_size_bytes: 64 << 10,
        wal_buffer_pages: 16,
        wal_init_zero: false,
        // 0: every retired segment is the `wal_recycle = auto` model's
        // choice (the default policy), which the simulated device makes
        // deterministic (folio-io "Cost clock").
        min_wal_size_bytes: 0,
        max_wal_size_bytes: 1 << 30,
        checkpoint_interval: Duration::from_secs(3600),
        checkpoint_wal_bytes: 1 << 40,
        background_io: false,
        // Nor autovacuum (it would write from its own thread).
        autovacuum: false,
        recovery_io_concurrency: 8,
        recovery_threads: 2,
        ..Options::default()
    }
}

pub type Model = BTreeMap<Vec<u8>, Vec<u8>>;

/// One operation of the workload.
#[derive(Debug, Clone)]
pub enum Op {
    Upsert(Vec<u8>, Vec<u8>),
    Delete(Vec<u8>),
    /// Non-unique tree: insert (key, tid) -> value.
    MultiInsert(Vec<u8>, u64, Vec<u8>),
    Commit,
    Checkpoint,
}

/// The seeded operation list: mixed inserts, updates and deletes on ~400
/// keys with values of 20-700 bytes (so leaves split and empty leaves are
/// unlinked), a commit every few operations, a checkpoint now and then.
pub fn ops(seed: u64, count: usize) -> Vec<Op> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut out = Vec::new();
    for i in 0..count {
        let key = format!("key{:05}", rng.gen_range(0..400)).into_bytes();
        let op = match rng.gen_range(0..10) {
            0..=5 => {
                let len = rng.gen_range(20..700);
                let value = (0..len).map(|j| (i * 7 + j) as u8).collect();
                Op::Upsert(key, value)
            }
            6..=8 => Op::Delete(key),
            _ => Op::MultiInsert(key, i as u64, vec![i as u8; 16]),
        };
        out.push(op);
        if rng.gen_range(0..6) == 0 {
            out.push(Op::Commit);
        }
        if i % 97 == 96 {
            out.push(Op::Checkpoint);
        }
    }
    out.push(Op::Commit);
    out
}

/// Unique-tree and multi-tree models.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct State {
    pub unique: Model,
    pub multi: BTreeMap<(Vec<u8>, u64), Vec<u8>>,
}

impl State {
    pub fn apply(&mut self, op: &Op) {
        match op {
            Op::Upsert(k, v) => {
                self.unique.insert(k.clone(), v.clone());
            }
            Op::Delete(k) => {
                self.unique.remove(k);
            }
            Op::MultiInsert(k, tid, v) => {
                self.multi.insert((k.clone(), *tid), v.clone());
            }
            Op::Commit | Op::Checkpoint => {}
        }
    }
}

/// Trees of the workload.
pub struct Trees {
    pub unique: Tree,
    pub multi: MultiTree,
}

pub fn create_trees(db: &Database) -> Result<Trees, DbError> {
    let unique = db.create_tree("unique")?;
    let multi = db.create_multi_tree("multi")?;
    db.commit()?;
    Ok(Trees { unique, multi })
}

pub fn open_trees(db: &Database) -> Trees {
    Trees {
        unique: db.open_tree("unique").unwrap().expect("unique tree"),
        multi: db.open_multi_tree("multi").unwrap().expect("multi tree"),
    }
}

/// Runs `ops` until one fails. Returns how many operations completed and
/// the index just past the last acknowledged commit.
pub fn run(db: &Database, trees: &Trees, ops: &[Op]) -> (usize, usize, Option<DbError>) {
    let mut acked = 0;
    for (i, op) in ops.iter().enumerate() {
        let result = match op {
            Op::Upsert(k, v) => trees.unique.upsert(k, v).map(drop).map_err(DbError::from),
            Op::Delete(k) => trees.unique.delete(k).map(drop).map_err(DbError::from),
            Op::MultiInsert(k, tid, v) => trees
                .multi
                .upsert(k, *tid, v)
                .map(drop)
                .map_err(DbError::from),
            Op::Commit => db.commit().map(drop),
            Op::Checkpoint => db.checkpoint().map(drop),
        };
        match result {
            Ok(()) => {
                if matches!(op, Op::Commit) {
                    acked = i + 1;
                }
            }
            Err(e) => return (i, acked, Some(e)),
        }
    }
    (ops.len(), acked, None)
}

/// What the trees hold now.
pub fn read_state(trees: &Trees) -> State {
    let unique = trees
        .unique
        .scan(Bound::Unbounded, Bound::Unbounded, Direction::Forward)
        .map(|r| r.unwrap())
        .collect();
    let mut multi = BTreeMap::new();
    let mut scan = trees
        .multi
        .scan(Bound::Unbounded, Bound::Unbounded, Direction::Forward);
    while let Some((key, tid, value)) = scan.next_entry().unwrap() {
        multi.insert((key, tid), value.to_vec());
    }
    State { unique, multi }
}

/// The recovered state must be the state after some prefix of the
/// operations that includes every acknowledged commit: returns its length.
pub fn matching_prefix(ops: &[Op], acked: usize, done: usize, found: &State) -> Option<usize> {
    let mut state = State::default();
    for op in &ops[..acked] {
        state.apply(op);
    }
    for i in acked..=done.min(ops.len()) {
        if &state == found {
            return Some(i);
        }
        if i < ops.len() {
            state.apply(&ops[i]);
        }
    }
    None
}

/// Every file under `root` (recursively) with its contents.
pub fn tree_image(root: &std::path::Path) -> BTreeMap<std::path::PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut pending = vec![root.to_path_buf()];
    while let Some(dir) = pending.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                pending.push(path);
            } else {
                out.insert(path.clone(), std::fs::read(&path).unwrap());
            }
        }
    }
    out
}

/// Opens the database at `path`, which must be refused; proves the refusal
/// changed nothing on disk (every file byte-identical, nothing created or
/// removed) and returns the error.
pub fn refused_open(path: &std::path::Path, options: Options) -> DbError {
    let before = tree_image(path);
    let err = match Database::open(path, options) {
        Ok(_) => panic!("the open of {} was not refused", path.display()),
        Err(e) => e,
    };
    let after = tree_image(path);
    let changed: Vec<_> = before
        .keys()
        .chain(after.keys())
        .filter(|p| before.get(*p) != after.get(*p))
        .collect();
    assert!(
        changed.is_empty(),
        "the refused open ({err}) changed {changed:?}"
    );
    err
}

/// The size a long check runs at: the environment variable `name` if set
/// to a number, else `default`.
pub fn env_or(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Runs `case(crash_at)` for crash points 0, 1, 2, ... until the workload
/// completes before the crash point (`case` returns true); returns how many
/// crash points were tried.
pub fn sweep_crash_points(mut case: impl FnMut(u64) -> bool) -> u64 {
    let mut crash_at = 0;
    while !case(crash_at) {
        crash_at += 1;
        assert!(crash_at < 1_000_000, "workload never completes");
    }
    crash_at
}

/// The end of a crash case: whether the workload completed before the
/// crash point, and the database reopened (recovered) from what the crash
/// left. `None` only if `create` never returned (asserted: a database
/// whose creation returned must open).
pub fn crash_and_reopen(
    dir: &folio_io::SimDir,
    crash_at: u64,
    created: bool,
    label: &str,
) -> (bool, Option<Database>) {
    let completed = dir.op_count() <= crash_at;
    let after = dir.crash();
    match Database::open_in(folio_db::Storage::single(after), small_options()) {
        Ok(db) => (completed, Some(db)),
        Err(e) => {
            assert!(!created, "{label}: create succeeded but open fails: {e}");
            (completed, None)
        }
    }
}
