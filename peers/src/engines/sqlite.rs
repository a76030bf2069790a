//! SQLite (rusqlite, bundled): a B-tree table `kv(k BLOB PRIMARY KEY, v BLOB)
//! WITHOUT ROWID`, so the key is the clustering key as in the other engines.
//!
//! Settings, on every connection: `journal_mode = WAL`, `synchronous = FULL`
//! (the WAL is synced on every commit, so a commit is durable when it
//! returns; the bundled build syncs with `fsync`, having no `HAVE_FDATASYNC`), `cache_size` = [`CACHE_BYTES`] (each connection has its own page
//! cache), `busy_timeout` 10 s so concurrent writers queue instead of
//! failing. A read session is a connection of the reading thread, with each
//! lookup a statement in autocommit mode; a write session is a connection of
//! the committing thread, each commit one autocommit `INSERT`.

use super::{CACHE_BYTES, Durability, Every, KvEngine};
use crate::data::{self, ScanCheck};
use anyhow::{Context, Result, ensure};
use rusqlite::{Connection, OptionalExtension, params};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Duration;

const GET: &str = "SELECT v FROM kv WHERE k = ?1";
const INSERT: &str = "INSERT INTO kv (k, v) VALUES (?1, ?2)";

#[derive(Debug)]
pub struct Sqlite {
    path: PathBuf,
    /// The connection for the bulk load and the scans.
    main: Mutex<Connection>,
}

impl Sqlite {
    pub fn open(dir: &Path) -> Result<Sqlite> {
        let path = dir.join("data.sqlite");
        let main = connect(&path)?;
        main.execute_batch(
            "CREATE TABLE kv (k BLOB PRIMARY KEY NOT NULL, v BLOB NOT NULL) WITHOUT ROWID;",
        )
        .context("sqlite: create table")?;
        Ok(Sqlite {
            path,
            main: Mutex::new(main),
        })
    }

    fn scan(&self, sql: &str, check: &mut ScanCheck) -> Result<()> {
        let conn = self
            .main
            .lock()
            .map_err(|_| anyhow::anyhow!("sqlite: connection poisoned"))?;
        let mut statement = conn.prepare_cached(sql)?;
        let mut rows = statement.query([])?;
        while let Some(row) = rows.next()? {
            check.visit(row.get_ref(0)?.as_blob()?, row.get_ref(1)?.as_blob()?)?;
        }
        Ok(())
    }
}

/// Opens a connection with the settings in the module documentation.
fn connect(path: &Path) -> Result<Connection> {
    let conn = Connection::open(path).context("sqlite: open")?;
    conn.busy_timeout(Duration::from_secs(10))?;
    let mode: String = conn.query_row("PRAGMA journal_mode = WAL", [], |row| row.get(0))?;
    ensure!(
        mode.eq_ignore_ascii_case("wal"),
        "sqlite: journal_mode is {mode}, not wal"
    );
    conn.execute_batch(&format!(
        "PRAGMA synchronous = FULL; PRAGMA cache_size = -{};",
        CACHE_BYTES / 1024
    ))?;
    Ok(conn)
}

impl KvEngine for Sqlite {
    type Reader<'a> = Connection;
    type Writer<'a> = Connection;

    fn name(&self) -> &'static str {
        "sqlite"
    }

    fn durability(&self) -> Durability {
        Durability::Synced("journal_mode=WAL, synchronous=FULL: the WAL is fsynced on every commit")
    }

    fn bulk_load(&self, keys: u64, progress: &mut dyn FnMut(u64)) -> Result<()> {
        let every = Every::new(keys);
        let mut conn = self
            .main
            .lock()
            .map_err(|_| anyhow::anyhow!("sqlite: connection poisoned"))?;
        let txn = conn.transaction()?;
        {
            let mut insert = txn.prepare_cached(INSERT)?;
            for i in 0..keys {
                insert.execute(params![&data::key(i)[..], &data::value(i)[..]])?;
                every.tick(i + 1, progress);
            }
        }
        txn.commit()?;
        Ok(())
    }

    fn reader(&self) -> Result<Connection> {
        connect(&self.path)
    }

    fn get<'a>(
        &'a self,
        reader: &mut Self::Reader<'a>,
        key: &[u8],
        value: &mut Vec<u8>,
    ) -> Result<bool> {
        let mut statement = reader.prepare_cached(GET)?;
        let found = statement
            .query_row([key], |row| {
                value.clear();
                value.extend_from_slice(row.get_ref(0)?.as_blob()?);
                Ok(())
            })
            .optional()?;
        Ok(found.is_some())
    }

    fn scan_forward(&self, check: &mut ScanCheck) -> Result<()> {
        self.scan("SELECT k, v FROM kv ORDER BY k ASC", check)
    }

    fn scan_backward(&self, check: &mut ScanCheck) -> Result<()> {
        self.scan("SELECT k, v FROM kv ORDER BY k DESC", check)
    }

    fn writer(&self) -> Result<Connection> {
        connect(&self.path)
    }

    fn commit_one<'a>(
        &'a self,
        writer: &mut Self::Writer<'a>,
        key: &[u8],
        value: &[u8],
    ) -> Result<()> {
        let inserted = writer
            .prepare_cached(INSERT)?
            .execute(params![key, value])?;
        ensure!(inserted == 1, "sqlite: commit inserted {inserted} rows");
        Ok(())
    }
}
