//! Model-based test: without faults, SimDir behaves exactly like a map from
//! names to byte vectors, and after syncing everything a crash changes nothing.

use folio_io::{Dir, File, OpenOptions, SimConfig, SimDir};
use proptest::prelude::*;
use proptest::test_runner::RngSeed;
use std::collections::BTreeMap;
use std::io::ErrorKind;
use std::sync::Arc;

const NAMES: [&str; 3] = ["f0", "f1", "f2"];

#[derive(Clone, Debug)]
enum Op {
    Write {
        file: usize,
        offset: u64,
        len: usize,
        byte: u8,
    },
    SetLen {
        file: usize,
        len: u64,
    },
    Read {
        file: usize,
        offset: u64,
        len: usize,
    },
    Sync {
        file: usize,
    },
    Remove {
        file: usize,
    },
    Rename {
        from: usize,
        to: usize,
    },
    SyncDir,
}

fn op() -> impl Strategy<Value = Op> {
    let file = 0..NAMES.len();
    prop_oneof![
        4 => (file.clone(), 0..20_000u64, 0..3_000usize, any::<u8>())
            .prop_map(|(file, offset, len, byte)| Op::Write { file, offset, len, byte }),
        1 => (file.clone(), 0..30_000u64).prop_map(|(file, len)| Op::SetLen { file, len }),
        3 => (file.clone(), 0..25_000u64, 0..4_000usize).prop_map(|(file, offset, len)| Op::Read { file, offset, len }),
        2 => file.clone().prop_map(|file| Op::Sync { file }),
        1 => file.clone().prop_map(|file| Op::Remove { file }),
        1 => (file.clone(), file).prop_map(|(from, to)| Op::Rename { from, to }),
        1 => Just(Op::SyncDir),
    ]
}

/// The simulated directory under test with one handle per existing name.
struct Harness {
    dir: Arc<SimDir>,
    handles: BTreeMap<String, Arc<dyn File>>,
    model: BTreeMap<String, Vec<u8>>,
}

impl Harness {
    fn handle(&mut self, name: &str) -> Arc<dyn File> {
        if !self.handles.contains_key(name) {
            let file = self.dir.open(name, OpenOptions::CREATE).unwrap();
            self.handles.insert(name.to_owned(), file);
            self.model.entry(name.to_owned()).or_default();
        }
        Arc::clone(&self.handles[name])
    }

    fn apply(&mut self, op: &Op) {
        match *op {
            Op::Write {
                file,
                offset,
                len,
                byte,
            } => {
                let name = NAMES[file];
                self.handle(name)
                    .write_at(&vec![byte; len], offset)
                    .unwrap();
                let data = self.model.get_mut(name).unwrap();
                if len > 0 {
                    let end = offset as usize + len;
                    if data.len() < end {
                        data.resize(end, 0);
                    }
                    data[offset as usize..end].fill(byte);
                }
            }
            Op::SetLen { file, len } => {
                let name = NAMES[file];
                self.handle(name).set_len(len).unwrap();
                self.model.get_mut(name).unwrap().resize(len as usize, 0);
            }
            Op::Read { file, offset, len } => {
                let name = NAMES[file];
                let Some(data) = self.model.get(name) else {
                    let err = self.dir.open(name, OpenOptions::EXISTING).unwrap_err();
                    assert_eq!(err.kind(), ErrorKind::NotFound);
                    return;
                };
                let mut expected = vec![0u8; len];
                let start = (offset as usize).min(data.len());
                let n = (data.len() - start).min(len);
                expected[..n].copy_from_slice(&data[start..start + n]);
                let mut buf = vec![0xA5u8; len];
                self.handles[name].read_at(&mut buf, offset).unwrap();
                assert_eq!(buf, expected, "read of {name} at {offset}");
                assert_eq!(self.handles[name].len().unwrap(), data.len() as u64);
            }
            Op::Sync { file } => {
                if let Some(handle) = self.handles.get(NAMES[file]) {
                    handle.sync().unwrap();
                }
            }
            Op::Remove { file } => {
                let name = NAMES[file];
                let result = self.dir.remove(name);
                if self.model.remove(name).is_some() {
                    result.unwrap();
                    self.handles.remove(name);
                } else {
                    assert_eq!(result.unwrap_err().kind(), ErrorKind::NotFound);
                }
            }
            Op::Rename { from, to } => {
                let (from, to) = (NAMES[from], NAMES[to]);
                let result = self.dir.rename(from, to);
                match self.model.remove(from) {
                    None => assert_eq!(result.unwrap_err().kind(), ErrorKind::NotFound),
                    Some(data) => {
                        result.unwrap();
                        self.model.insert(to.to_owned(), data);
                        let handle = self.handles.remove(from).unwrap();
                        self.handles.insert(to.to_owned(), handle);
                    }
                }
            }
            Op::SyncDir => self.dir.sync_dir().unwrap(),
        }
    }

    fn check(&self) {
        self.dir.check_invariants();
        let names: Vec<String> = self.model.keys().cloned().collect();
        assert_eq!(self.dir.list().unwrap(), names);
        let stored: usize = self.model.values().map(Vec::len).sum();
        assert_eq!(self.dir.stored_bytes(), stored as u64);
    }
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 64,
        rng_seed: RngSeed::Fixed(0xF011_0001),
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    // Proves SimDir without faults matches the map model after every
    // operation (reads, lengths, names, stored bytes), and that once every
    // file and the directory are synced a crash preserves the model exactly.
    #[test]
    fn sim_dir_matches_model(seed in any::<u64>(), ops in prop::collection::vec(op(), 1..40)) {
        let mut harness = Harness { dir: SimDir::new(SimConfig::seeded(seed)), handles: BTreeMap::new(), model: BTreeMap::new() };
        for op in &ops {
            harness.apply(op);
            harness.check();
        }
        for handle in harness.handles.values() {
            handle.sync().unwrap();
        }
        harness.dir.sync_dir().unwrap();
        let after = harness.dir.crash();
        let recovered: BTreeMap<String, Vec<u8>> = after
            .list()
            .unwrap()
            .into_iter()
            .map(|name| (name.clone(), after.read_durable(&name).unwrap()))
            .collect();
        prop_assert_eq!(recovered, harness.model);
    }
}
