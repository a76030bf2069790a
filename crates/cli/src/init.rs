//! `folio init DIR`: creates a database, like PostgreSQL's `initdb`, and
//! shuts it down cleanly. It refuses a DIR that exists and is not empty.

use crate::serve::CreationSettings;
use anyhow::{Context, bail};
use clap::Args;
use folio_db::{Database, Options};
use std::path::PathBuf;

#[derive(Debug, Args)]
pub struct InitArgs {
    /// The database directory: absent or empty.
    dir: PathBuf,
    #[command(flatten)]
    creation: CreationSettings,
}

pub fn run(args: InitArgs) -> anyhow::Result<()> {
    let dir = &args.dir;
    if dir.exists() {
        if !dir.is_dir() {
            bail!("{} exists and is not a directory", dir.display());
        }
        let mut entries = std::fs::read_dir(dir)
            .with_context(|| format!("reading the directory {}", dir.display()))?;
        if entries.next().is_some() {
            bail!(
                "directory {} exists but is not empty; remove it or give another one",
                dir.display()
            );
        }
    }
    let mut options = Options::default();
    args.creation.apply(&mut options);
    let checksums = options.checksums;
    let db = Database::create(dir, options)
        .with_context(|| format!("creating a database in {}", dir.display()))?;
    db.close()
        .with_context(|| format!("closing the new database in {}", dir.display()))?;
    println!(
        "folio: created a database in {} (data checksums {}); start it with: folio serve {}",
        dir.display(),
        if checksums { "on" } else { "off" },
        dir.display()
    );
    Ok(())
}
