//! Files of hints in the data directory (`activity_file.rs`,
//! `statistics_file.rs`): what the catalog keeps across restarts that is
//! never needed for correctness. Written whole to a temporary renamed
//! over the old file, without fsync (a crash may leave the old file, the
//! new one, or a torn or empty one: their readers load nothing from what
//! does not read); read whole.

use folio_io::{Dir, OpenOptions};
use std::io;

/// Replaces file `name` in `dir` by `bytes` (through `name.tmp`).
pub(crate) fn write_hint(dir: &dyn Dir, name: &str, bytes: &[u8]) -> io::Result<()> {
    let temp = format!("{name}.tmp");
    if dir.exists(&temp)? {
        dir.remove(&temp)?;
    }
    let file = dir.open(&temp, OpenOptions::CREATE_NEW)?;
    file.write_at(bytes, 0)?;
    drop(file);
    dir.rename(&temp, name)
}

/// The bytes of file `name` in `dir`, if there is one.
pub(crate) fn read_hint(dir: &dyn Dir, name: &str) -> io::Result<Option<Vec<u8>>> {
    if !dir.exists(name)? {
        return Ok(None);
    }
    let file = dir.open(name, OpenOptions::EXISTING)?;
    let mut bytes = vec![0; file.len()? as usize];
    file.read_at(&mut bytes, 0)?;
    Ok(Some(bytes))
}
