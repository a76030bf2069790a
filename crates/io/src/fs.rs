//! Real files: positioned reads and writes through rustix.

use crate::{Dir, File, OpenOptions};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// A real directory on a filesystem.
#[derive(Debug)]
pub struct FsDir {
    path: PathBuf,
}

impl FsDir {
    /// Opens `path`, creating it (and its parents) if missing.
    pub fn open(path: impl AsRef<Path>) -> io::Result<FsDir> {
        let _ = path;
        todo!("folio-io helper")
    }

    /// The directory's path.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Dir for FsDir {
    fn open(&self, name: &str, options: OpenOptions) -> io::Result<Arc<dyn File>> {
        let _ = (name, options);
        todo!("folio-io helper")
    }
    fn remove(&self, name: &str) -> io::Result<()> {
        let _ = name;
        todo!("folio-io helper")
    }
    fn rename(&self, from: &str, to: &str) -> io::Result<()> {
        let _ = (from, to);
        todo!("folio-io helper")
    }
    fn exists(&self, name: &str) -> io::Result<bool> {
        let _ = name;
        todo!("folio-io helper")
    }
    fn list(&self) -> io::Result<Vec<String>> {
        todo!("folio-io helper")
    }
    fn sync_dir(&self) -> io::Result<()> {
        todo!("folio-io helper")
    }
}
