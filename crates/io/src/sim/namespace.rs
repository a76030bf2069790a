//! The simulated directory's names: the current mapping from names to files,
//! the durable one, and the ordered log of directory operations between them.
//!
//! Invariant: `current` equals `durable` with every entry of `log` replayed in
//! order ([`Namespace::check_invariants`]). A crash keeps `durable` plus a
//! seeded prefix of `log`.

use super::inode::InodeId;
use rand::Rng;
use std::collections::BTreeMap;

/// One unsynced directory operation.
#[derive(Clone, Debug)]
enum DirOp {
    Create { name: String, ino: InodeId },
    Remove { name: String },
    Rename { from: String, to: String },
}

impl DirOp {
    fn apply(&self, names: &mut BTreeMap<String, InodeId>) {
        match self {
            DirOp::Create { name, ino } => {
                names.insert(name.clone(), *ino);
            }
            DirOp::Remove { name } => {
                names.remove(name);
            }
            DirOp::Rename { from, to } => {
                if let Some(ino) = names.remove(from) {
                    names.insert(to.clone(), ino);
                }
            }
        }
    }
}

/// Names of the simulated directory.
#[derive(Debug, Default)]
pub(crate) struct Namespace {
    /// What `open`, `exists` and `list` see.
    current: BTreeMap<String, InodeId>,
    /// What survives any crash.
    durable: BTreeMap<String, InodeId>,
    /// Operations since the last successful `sync_dir`, in issue order.
    log: Vec<DirOp>,
}

impl Namespace {
    /// A namespace whose every name is durable (the state after a crash).
    pub(crate) fn from_durable(names: BTreeMap<String, InodeId>) -> Namespace {
        Namespace {
            current: names.clone(),
            durable: names,
            log: Vec::new(),
        }
    }

    pub(crate) fn lookup(&self, name: &str) -> Option<InodeId> {
        self.current.get(name).copied()
    }

    pub(crate) fn names(&self) -> Vec<String> {
        self.current.keys().cloned().collect()
    }

    /// Links a new file under `name`, which must be free.
    pub(crate) fn create(&mut self, name: &str, ino: InodeId) {
        assert!(
            !self.current.contains_key(name),
            "create over existing name {name:?}"
        );
        self.push(DirOp::Create {
            name: name.to_owned(),
            ino,
        });
    }

    /// Unlinks `name`, returning the file it named.
    pub(crate) fn remove(&mut self, name: &str) -> Option<InodeId> {
        let ino = self.lookup(name)?;
        self.push(DirOp::Remove {
            name: name.to_owned(),
        });
        Some(ino)
    }

    /// Renames `from` to `to`. Returns `None` if `from` is missing, else the
    /// file `to` named before (now unlinked), if any.
    pub(crate) fn rename(&mut self, from: &str, to: &str) -> Option<Option<InodeId>> {
        self.lookup(from)?;
        if from == to {
            // POSIX: renaming a name to itself does nothing.
            return Some(None);
        }
        let replaced = self.lookup(to);
        self.push(DirOp::Rename {
            from: from.to_owned(),
            to: to.to_owned(),
        });
        Some(replaced)
    }

    fn push(&mut self, op: DirOp) {
        op.apply(&mut self.current);
        self.log.push(op);
    }

    /// A successful `sync_dir`: every logged operation becomes durable.
    pub(crate) fn sync(&mut self) {
        self.durable.clone_from(&self.current);
        self.log.clear();
    }

    /// A failed `sync_dir`: the unsynced operations are forgotten.
    pub(crate) fn drop_unsynced(&mut self) {
        self.current.clone_from(&self.durable);
        self.log.clear();
    }

    /// True if any state a crash could produce still names `ino`: the
    /// current or durable mapping, or a creation waiting in the log.
    pub(crate) fn may_name(&self, ino: InodeId) -> bool {
        self.current.values().any(|&i| i == ino)
            || self.durable.values().any(|&i| i == ino)
            || self
                .log
                .iter()
                .any(|op| matches!(op, DirOp::Create { ino: i, .. } if *i == ino))
    }

    /// True if the current mapping names `ino`.
    pub(crate) fn names_now(&self, ino: InodeId) -> bool {
        self.current.values().any(|&i| i == ino)
    }

    /// The names after a crash: the durable mapping plus a prefix of the log
    /// whose length (0 to all of it) the seed chooses.
    pub(crate) fn crash_survivor(&self, rng: &mut impl Rng) -> BTreeMap<String, InodeId> {
        let keep = rng.gen_range(0..=self.log.len());
        let mut names = self.durable.clone();
        for op in &self.log[..keep] {
            op.apply(&mut names);
        }
        names
    }

    /// Checks that `current` is `durable` plus the log.
    pub(crate) fn check_invariants(&self) {
        let mut replay = self.durable.clone();
        for op in &self.log {
            op.apply(&mut replay);
        }
        assert!(
            replay == self.current,
            "current names differ from durable names plus log"
        );
    }
}
