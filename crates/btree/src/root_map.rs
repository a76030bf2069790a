//! The map of named tree roots (the root map): a unique [`Tree`] mapping a name to its
//! tree's root page id and kind, whose own root is in the meta page's root
//! slot [`ROOT_MAP_META_SLOT`]. Roots never move (root splits keep the root
//! page id), so the root map changes only when trees are created. A logged
//! root map is an ordinary logged tree, and the trees it creates or opens
//! log to the same WAL.
//!
//! A root map value:
//!
//! | offset | size | meaning |
//! |-------:|-----:|---------|
//! | 0 | 8 | root page id, little-endian |
//! | 8 | 1 | kind: 0 unique, 1 non-unique |

use crate::multi::KeyForm;
use crate::{BtreeError, MultiTree, Tree};
use folio_buffer::BufferPool;
use folio_page::PageId;
use folio_wal::Wal;
use std::ops::Bound;
use std::sync::Arc;

/// The meta-page root slot holding the root map tree's root.
pub const ROOT_MAP_META_SLOT: usize = 0;

/// What kind of tree a root map entry names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TreeKind {
    Unique,
    NonUnique,
    /// A non-unique tree of prefix-free keys (`KeyForm::PrefixFree`).
    NonUniquePrefixFree,
}

impl TreeKind {
    fn code(self) -> u8 {
        match self {
            TreeKind::Unique => 0,
            TreeKind::NonUnique => 1,
            TreeKind::NonUniquePrefixFree => 2,
        }
    }
    fn name(self) -> &'static str {
        match self {
            TreeKind::Unique => "unique",
            TreeKind::NonUnique => "non-unique",
            TreeKind::NonUniquePrefixFree => "non-unique (prefix-free keys)",
        }
    }
}

/// One named tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RootEntry {
    pub name: String,
    pub root: PageId,
    pub kind: TreeKind,
}

/// The database's named trees.
#[derive(Debug, Clone)]
pub struct RootMap {
    tree: Tree,
}

fn decode_entry(name: &[u8], value: &[u8]) -> Result<RootEntry, BtreeError> {
    let name = String::from_utf8_lossy(name).into_owned();
    let bad = || BtreeError::BadRootEntry { name: name.clone() };
    let root: [u8; 8] = value
        .get(0..8)
        .and_then(|b| b.try_into().ok())
        .ok_or_else(bad)?;
    let kind = match value.get(8) {
        Some(0) => TreeKind::Unique,
        Some(1) => TreeKind::NonUnique,
        Some(2) => TreeKind::NonUniquePrefixFree,
        _ => return Err(bad()),
    };
    if value.len() != 9 {
        return Err(bad());
    }
    Ok(RootEntry {
        name,
        root: PageId(u64::from_le_bytes(root)),
        kind,
    })
}

impl RootMap {
    /// Opens the unlogged root map of the database in `pool`, creating it if
    /// the database has none. Call once per pool, before any concurrent use.
    pub fn open(pool: &Arc<BufferPool>) -> Result<RootMap, BtreeError> {
        RootMap::open_logged(pool, None)
    }

    /// Opens (or creates) the root map, logging its changes and those of
    /// every tree created or opened through it to `wal` (`None`: unlogged).
    /// The meta root slot is set through the pool, which logs it itself.
    pub fn open_logged(
        pool: &Arc<BufferPool>,
        wal: Option<Arc<Wal>>,
    ) -> Result<RootMap, BtreeError> {
        let tree = match pool.meta_root(ROOT_MAP_META_SLOT)? {
            Some(root) => Tree::open_logged(pool.clone(), root, wal)?,
            None => {
                let tree = Tree::create_logged(pool.clone(), wal)?;
                pool.set_meta_root(ROOT_MAP_META_SLOT, Some(tree.root()))?;
                tree
            }
        };
        Ok(RootMap { tree })
    }

    /// Creates a unique tree called `name`.
    pub fn create_tree(&self, name: &str) -> Result<Tree, BtreeError> {
        let tree = Tree::create_logged(self.tree.pool.clone(), self.tree.wal.clone())?;
        self.register(name, &tree, TreeKind::Unique)?;
        Ok(tree)
    }

    /// Creates a non-unique tree called `name`.
    pub fn create_multi_tree(&self, name: &str) -> Result<MultiTree, BtreeError> {
        self.create_multi_tree_with(name, KeyForm::Escaped)
    }

    /// Creates a non-unique tree of keys in `form` called `name`.
    pub fn create_multi_tree_with(
        &self,
        name: &str,
        form: KeyForm,
    ) -> Result<MultiTree, BtreeError> {
        let tree = MultiTree::create_with(self.tree.pool.clone(), self.tree.wal.clone(), form)?;
        let kind = match form {
            KeyForm::Escaped => TreeKind::NonUnique,
            KeyForm::PrefixFree => TreeKind::NonUniquePrefixFree,
        };
        self.register(name, tree.tree(), kind)?;
        Ok(tree)
    }

    fn register(&self, name: &str, tree: &Tree, kind: TreeKind) -> Result<(), BtreeError> {
        let mut value = tree.root().0.to_le_bytes().to_vec();
        value.push(kind.code());
        match self.tree.insert(name.as_bytes(), &value) {
            Ok(()) => Ok(()),
            Err(e) => {
                // The new, empty root is unreachable: give it back.
                let guard = self.tree.pool.exclusive(tree.root())?;
                self.tree.pool.free(guard)?;
                Err(match e {
                    BtreeError::KeyExists => BtreeError::TreeExists {
                        name: name.to_string(),
                    },
                    other => other,
                })
            }
        }
    }

    /// The entry called `name`, if any.
    pub fn lookup(&self, name: &str) -> Result<Option<RootEntry>, BtreeError> {
        match self.tree.get(name.as_bytes())? {
            Some(value) => Ok(Some(decode_entry(name.as_bytes(), &value)?)),
            None => Ok(None),
        }
    }

    fn open_kind(&self, name: &str, kind: TreeKind) -> Result<Option<PageId>, BtreeError> {
        match self.lookup(name)? {
            None => Ok(None),
            Some(entry) if entry.kind == kind => Ok(Some(entry.root)),
            Some(entry) => Err(BtreeError::WrongKind {
                name: name.to_string(),
                expected: kind.name(),
                actual: entry.kind.name(),
            }),
        }
    }

    /// Opens the unique tree called `name`.
    pub fn open_tree(&self, name: &str) -> Result<Option<Tree>, BtreeError> {
        match self.open_kind(name, TreeKind::Unique)? {
            Some(root) => Ok(Some(Tree::open_logged(
                self.tree.pool.clone(),
                root,
                self.tree.wal.clone(),
            )?)),
            None => Ok(None),
        }
    }

    /// Opens the non-unique tree called `name`.
    pub fn open_multi_tree(&self, name: &str) -> Result<Option<MultiTree>, BtreeError> {
        let form = match self.lookup(name)? {
            Some(entry) if entry.kind == TreeKind::NonUniquePrefixFree => KeyForm::PrefixFree,
            _ => KeyForm::Escaped,
        };
        let kind = match form {
            KeyForm::Escaped => TreeKind::NonUnique,
            KeyForm::PrefixFree => TreeKind::NonUniquePrefixFree,
        };
        match self.open_kind(name, kind)? {
            Some(root) => Ok(Some(MultiTree::open_with(
                self.tree.pool.clone(),
                root,
                self.tree.wal.clone(),
                form,
            )?)),
            None => Ok(None),
        }
    }

    /// Every named tree, by name.
    pub fn list(&self) -> Result<Vec<RootEntry>, BtreeError> {
        let mut entries = Vec::new();
        let mut scan = self.tree.scan(
            Bound::Unbounded,
            Bound::Unbounded,
            crate::Direction::Forward,
        );
        while let Some((name, value)) = scan.next_entry()? {
            entries.push(decode_entry(name, value)?);
        }
        Ok(entries)
    }

    /// The root map's own tree (for `verify`).
    pub fn tree(&self) -> &Tree {
        &self.tree
    }
}
