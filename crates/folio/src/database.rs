//! A database of the embedded API: open or create, begin transactions,
//! run a closure in a transaction with retries, checkpoint, verify, close.

use crate::error::{Error, Result};
use crate::options::Options;
use crate::transaction::Transaction;
use folio_txn::{Durability, Isolation};
use std::path::Path;
use std::time::Duration;

/// How many times [`Database::transact`] runs a closure again after a
/// serialization failure or a deadlock before it returns the error.
pub const MAX_RETRIES: u32 = 10;

/// A database in a directory. Transactions borrow it, so it cannot be
/// closed (or dropped) while one is running.
#[derive(Debug)]
pub struct Database {
    db: folio_db::Database,
}

impl Database {
    /// Creates a database in `path` (a new or empty directory).
    pub fn create(path: impl AsRef<Path>, options: &Options) -> Result<Database> {
        Ok(Database {
            db: folio_db::Database::create(path, options.inner.clone())?,
        })
    }

    /// Opens the database in `path`, recovering it from its WAL if it was
    /// not closed.
    pub fn open(path: impl AsRef<Path>, options: &Options) -> Result<Database> {
        Ok(Database {
            db: folio_db::Database::open(path, options.inner.clone())?,
        })
    }

    /// Opens the database in `path`, creating it first if the directory
    /// holds none (no control file).
    pub fn open_or_create(path: impl AsRef<Path>, options: &Options) -> Result<Database> {
        let path = path.as_ref();
        if path.join(folio_db::CONTROL_FILE).exists() {
            Database::open(path, options)
        } else {
            Database::create(path, options)
        }
    }

    /// Starts a transaction at `isolation` (SERIALIZABLE: a transaction
    /// that could break serializability fails with a retryable 40001,
    /// which [`Database::transact`] retries). It commits durably unless the database runs with
    /// `synchronous_commit` off.
    pub fn begin(&self, isolation: Isolation) -> Result<Transaction<'_>> {
        self.begin_with(isolation, Durability::Sync)
    }

    /// [`Database::begin`] choosing the commit's durability for this
    /// transaction: `Durability::Async` returns from commit at once and
    /// makes it durable within `wal_writer_delay` (a crash may lose it,
    /// never corrupt anything).
    pub fn begin_with(
        &self,
        isolation: Isolation,
        durability: Durability,
    ) -> Result<Transaction<'_>> {
        Ok(Transaction::new(
            self,
            self.db.begin(isolation, durability)?,
        ))
    }

    /// Runs `work` in a transaction and commits it; if the work or the
    /// commit fails with a serialization failure or a deadlock, rolls back
    /// and runs it again (after a short, growing, randomised pause), up to
    /// [`MAX_RETRIES`] times. Any other error rolls back and is returned.
    /// `work` must be safe to run more than once.
    pub fn transact<T>(
        &self,
        isolation: Isolation,
        mut work: impl FnMut(&Transaction<'_>) -> Result<T>,
    ) -> Result<T> {
        let mut retries = 0;
        loop {
            let tx = self.begin(isolation)?;
            let error = match work(&tx) {
                Ok(value) => match tx.commit() {
                    Ok(()) => return Ok(value),
                    Err(e) => e,
                },
                Err(e) => {
                    let retryable = e.is_retryable() || tx.failed_retryably();
                    drop(tx);
                    if !retryable || retries == MAX_RETRIES {
                        return Err(e);
                    }
                    retries += 1;
                    pause(retries);
                    continue;
                }
            };
            if !error.is_retryable() || retries == MAX_RETRIES {
                return Err(error);
            }
            retries += 1;
            pause(retries);
        }
    }

    /// Runs a checkpoint now.
    pub fn checkpoint(&self) -> Result<()> {
        self.db.checkpoint()?;
        Ok(())
    }

    /// Checks every page, tree, table and index, and that each table and
    /// its indexes agree (as `folio verify`). The first problem is
    /// [`Error::Corrupt`].
    pub fn verify(&self) -> Result<()> {
        self.db.verify()?;
        for check in self.db.verify_tables()? {
            if let (_, Err(e)) = check {
                return Err(Error::from(e));
            }
        }
        Ok(())
    }

    /// Checkpoints and closes: the next open needs no recovery.
    pub fn close(self) -> Result<()> {
        Ok(self.db.close()?)
    }

    pub(crate) fn inner(&self) -> &folio_db::Database {
        &self.db
    }
}

/// The pause before retry `n`: up to 1 ms × 2ⁿ (at most 128 ms), spread
/// at random so that two transactions that collided do not collide again.
fn pause(n: u32) {
    let cap_us = 1000u64 << n.min(7);
    let seed = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos() as u64);
    let noise = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 40;
    std::thread::sleep(Duration::from_micros(cap_us / 2 + noise % (cap_us / 2)));
}
