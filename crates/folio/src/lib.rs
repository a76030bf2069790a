//! folio's embedded API: transactions over tables with a primary key and
//! secondary indexes, on folio's storage engine (buffer pool, checksums,
//! WAL, crash recovery, MVCC heap, B+tree indexes). Everything a program
//! needs is in this crate; its design is this crate's `README.md`.
//!
//! ```
//! use folio::{Database, Isolation, Options, Schema, Type};
//!
//! # let dir = tempfile::tempdir()?;
//! # let path = dir.path().join("bank");
//! let options = Options::builder().shared_buffers(16 << 20).build()?;
//! let db = Database::create(&path, &options)?;
//!
//! // DDL is transactional: the table appears to others at commit.
//! db.transact(Isolation::ReadCommitted, |tx| {
//!     let accounts = tx.create_table(
//!         &Schema::new("accounts")
//!             .column("id", Type::Int8)
//!             .column_not_null("owner", Type::Text)
//!             .column("balance", Type::Int8)
//!             .primary_key(&["id"])
//!             .index("accounts_owner", &["owner"]),
//!     )?;
//!     for (id, owner) in [(1, "alice"), (2, "bob"), (3, "carol")] {
//!         accounts.insert((id as i64, owner, 100i64))?;
//!     }
//!     Ok(())
//! })?;
//!
//! // A transfer; retried if a concurrent transfer made it a
//! // serialization failure.
//! db.transact(Isolation::RepeatableRead, |tx| {
//!     let accounts = tx.table("accounts")?;
//!     let from = accounts.get(1)?.expect("account 1");
//!     let to = accounts.get(2)?.expect("account 2");
//!     let (a, b): (i64, i64) = (from.get("balance")?, to.get("balance")?);
//!     accounts.update(1, (1i64, "alice", a - 30))?;
//!     accounts.update(2, (2i64, "bob", b + 30))?;
//!     Ok(())
//! })?;
//!
//! let tx = db.begin(Isolation::RepeatableRead)?;
//! let accounts = tx.table("accounts")?;
//! // Ranges take Rust ranges of keys and run both ways.
//! let ids: Vec<i64> = accounts
//!     .range(2..)?
//!     .rev()
//!     .map(|row| row?.get("id"))
//!     .collect::<Result<_, _>>()?;
//! assert_eq!(ids, [3, 2]);
//! assert_eq!(accounts.len()?, 3);
//! assert_eq!(accounts.get_by("accounts_owner", "bob")?[0].get::<i64>("balance")?, 130);
//! tx.commit()?;
//! db.close()?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! **Handles are tied to what they came from.** A [`Transaction`]
//! borrows its [`Database`] and a [`Table`] its transaction, so a
//! database cannot be closed while a transaction runs, and no handle can
//! write after its database is gone: the compiler refuses both.
//!
//! ```compile_fail
//! # use folio::{Database, Isolation, Options};
//! # fn f(db: Database) -> folio::Result<()> {
//! let tx = db.begin(Isolation::ReadCommitted)?;
//! db.close()?; // error: `db` is borrowed by `tx`
//! tx.commit()
//! # }
//! ```
//!
//! ```compile_fail
//! # use folio::{Database, Isolation};
//! # fn f(db: &Database) -> folio::Result<()> {
//! let table = {
//!     let tx = db.begin(Isolation::ReadCommitted)?;
//!     tx.table("accounts")? // error: `tx` does not live long enough
//! };
//! # Ok(())
//! # }
//! ```

mod database;
mod error;
mod options;
mod range;
mod row;
mod schema;
mod table;
mod transaction;

pub use database::{Database, MAX_RETRIES};
pub use error::{Error, Result};
pub use folio_row::{Numeric, SqlType as Type, Value};
pub use folio_txn::{Durability, Isolation};
pub use options::{Options, OptionsBuilder, WalRecycle};
pub use range::Range;
pub use row::{Column, FromValue, IntoRow, Key, Row, RowRef};
pub use schema::Schema;
pub use table::Table;
pub use transaction::Transaction;
