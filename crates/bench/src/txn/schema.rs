//! pgbench's schema on bare heap tables with unique indexes, its load
//! (`pgbench -i`), the tpcb-like transaction, the select-only transaction
//! and the balance check.

use crate::BenchError;
use folio_btree::KeyForm;
use folio_db::{Database, DbError, Durability, Index, Isolation, Table, Write};
use rand::Rng;
use rand_chacha::ChaCha8Rng;

/// Bytes per row, about pgbench's (ids, balance, filler).
pub(crate) const ROW_BYTES: usize = 100;
/// Rows per load transaction.
const LOAD_BATCH: u64 = 10_000;

/// One pgbench-like table: the heap and its unique index on the id.
pub(crate) struct BenchTable {
    pub(crate) table: Table,
    pub(crate) index: Index,
}

/// The four tables of pgbench's schema, loaded (`Schema::load`), on which
/// `Schema::tpcb` runs one transaction (also used by `folio bench recovery`
/// to write the tpcb WAL it replays).
pub struct Schema {
    pub(crate) accounts: BenchTable,
    tellers: BenchTable,
    branches: BenchTable,
    history: Table,
    branches_count: u64,
    tellers_count: u64,
    pub(crate) accounts_count: u64,
}

pub(crate) fn key(id: u64) -> [u8; 8] {
    id.to_be_bytes()
}

/// A row: id, parent id, balance, filler.
pub(crate) fn row(id: u64, parent: u64, balance: i64) -> [u8; ROW_BYTES] {
    let mut row = [b' '; ROW_BYTES];
    row[..8].copy_from_slice(&id.to_le_bytes());
    row[8..16].copy_from_slice(&parent.to_le_bytes());
    row[16..24].copy_from_slice(&balance.to_le_bytes());
    row
}

pub(crate) fn balance(row: &[u8]) -> i64 {
    i64::from_le_bytes(row[16..24].try_into().expect("a bench row"))
}

/// A row's parent id (an account's branch).
pub(crate) fn parent(row: &[u8]) -> u64 {
    u64::from_le_bytes(row[8..16].try_into().expect("a bench row"))
}

impl Schema {
    /// Creates and fills the schema at `scale` (pgbench -i).
    pub fn load(db: &Database, scale: f64) -> Result<Schema, DbError> {
        load(db, scale)
    }

    /// One tpcb-like transaction (synchronous commit, READ COMMITTED).
    pub fn tpcb(&self, db: &Database, rng: &mut ChaCha8Rng) -> Result<(), DbError> {
        tpcb(db, self, rng, Durability::Sync)
    }

    /// [`Schema::tpcb`] committed with `durability`.
    pub fn tpcb_with(
        &self,
        db: &Database,
        rng: &mut ChaCha8Rng,
        durability: Durability,
    ) -> Result<(), DbError> {
        tpcb(db, self, rng, durability)
    }

    /// Pages of the accounts heap.
    pub fn accounts_heap_pages(&self) -> Result<usize, DbError> {
        Ok(self.accounts.table.page_ids()?.len())
    }

    /// Pages of the accounts' primary-key index (inner and leaf).
    pub fn accounts_index_pages(&self) -> Result<u64, DbError> {
        let report = self.accounts.index.tree().verify()?;
        Ok(report.inner_pages + report.leaf_pages)
    }

    /// Branches loaded (pgbench's scale).
    pub fn branches_count(&self) -> u64 {
        self.branches_count
    }

    /// pgbench's balance check: accounts, tellers, branches and history
    /// sums agree.
    /// Vacuums accounts, tellers and branches with their indexes (as
    /// pgbench vacuums before a run, and autovacuum would): dead versions
    /// and the index entries that lead only to them go.
    pub fn vacuum(&self, db: &Database) -> Result<(), DbError> {
        for t in [&self.accounts, &self.tellers, &self.branches] {
            t.table.vacuum(db.txns(), &[&t.index])?;
        }
        Ok(())
    }

    pub fn check_balances(&self, db: &Database) -> Result<(), BenchError> {
        check_balances(db, self)
    }
}

impl std::fmt::Debug for Schema {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Schema")
            .field("accounts", &self.accounts_count)
            .finish_non_exhaustive()
    }
}

/// Creates and fills the schema at `scale` (pgbench -i).
fn load(db: &Database, scale: f64) -> Result<Schema, DbError> {
    let count = |per_unit: f64| ((scale * per_unit).round() as u64).max(1);
    let table = |name: &str| -> Result<BenchTable, DbError> {
        Ok(BenchTable {
            table: db.create_table(name)?,
            // Fixed 8-byte keys: prefix-free, so entries are not escaped.
            index: db.create_index_with(&format!("{name}_pkey"), true, KeyForm::PrefixFree)?,
        })
    };
    let schema = Schema {
        accounts: table("accounts")?,
        tellers: table("tellers")?,
        branches: table("branches")?,
        history: db.create_table("history")?,
        branches_count: count(1.0),
        tellers_count: count(10.0),
        accounts_count: count(100_000.0),
    };
    let fill = |t: &BenchTable, count: u64, per_parent: u64| -> Result<(), DbError> {
        let mut first = 0;
        while first < count {
            let mut txn = db.begin(Isolation::ReadCommitted, Durability::Async)?;
            for id in first..(first + LOAD_BATCH).min(count) {
                let tid = t.table.insert(&mut txn, &row(id, id / per_parent, 0))?;
                t.index.insert(&mut txn, &t.table, &key(id), tid)?;
            }
            txn.commit()?;
            first += LOAD_BATCH;
        }
        Ok(())
    };
    let per_branch = |n: u64| n.div_ceil(schema.branches_count);
    fill(&schema.branches, schema.branches_count, 1)?;
    fill(
        &schema.tellers,
        schema.tellers_count,
        per_branch(schema.tellers_count),
    )?;
    fill(
        &schema.accounts,
        schema.accounts_count,
        per_branch(schema.accounts_count),
    )?;
    db.wal().flush_all()?;
    Ok(schema)
}

/// `UPDATE t SET balance = balance + delta WHERE id = $id`, READ
/// COMMITTED: a version updated meanwhile by a transaction that committed
/// is followed to its newest version and updated there (EvalPlanQual).
/// Returns the new balance.
fn add_to_balance(
    txn: &mut folio_db::Transaction,
    t: &BenchTable,
    id: u64,
    delta: i64,
) -> Result<i64, DbError> {
    let found = t.index.get(txn, &t.table, &key(id))?;
    let Some((mut at, mut current)) = found.into_iter().next() else {
        return Err(DbError::Damaged {
            path: "bench".into(),
            detail: format!("row {id} is missing"),
        });
    };
    loop {
        let new_balance = balance(&current) + delta;
        let new_row = row(id, parent(&current), new_balance);
        match t.table.update(txn, at, &new_row, false)? {
            Write::Hot(_) => return Ok(new_balance),
            Write::Done(Some(new)) => {
                t.index.insert(txn, &t.table, &key(id), new)?;
                return Ok(new_balance);
            }
            Write::Moved(next) => match t.table.newest(txn, next)? {
                Some(newest) => (at, current) = newest,
                None => {
                    return Err(DbError::Damaged {
                        path: "bench".into(),
                        detail: format!("row {id} was deleted"),
                    });
                }
            },
            Write::Gone | Write::Done(None) => {
                return Err(DbError::Damaged {
                    path: "bench".into(),
                    detail: format!("row {id} vanished"),
                });
            }
        }
    }
}

/// One tpcb-like transaction.
fn tpcb(
    db: &Database,
    s: &Schema,
    rng: &mut ChaCha8Rng,
    durability: Durability,
) -> Result<(), DbError> {
    let aid = rng.gen_range(0..s.accounts_count);
    let tid = rng.gen_range(0..s.tellers_count);
    let bid = rng.gen_range(0..s.branches_count);
    let delta = rng.gen_range(-5000..=5000);
    let mut txn = db.begin(Isolation::ReadCommitted, durability)?;
    add_to_balance(&mut txn, &s.accounts, aid, delta)?;
    txn.next_statement();
    let seen = s.accounts.index.get(&txn, &s.accounts.table, &key(aid))?;
    std::hint::black_box(seen.first().map(|(_, r)| balance(r)));
    txn.next_statement();
    add_to_balance(&mut txn, &s.tellers, tid, delta)?;
    txn.next_statement();
    add_to_balance(&mut txn, &s.branches, bid, delta)?;
    txn.next_statement();
    let mut history = row(aid, bid, delta);
    history[24..32].copy_from_slice(&tid.to_le_bytes());
    s.history.insert(&mut txn, &history)?;
    txn.commit()?;
    Ok(())
}

/// One read-only transaction (`pgbench -S`): an account looked up by its
/// primary-key index, its balance read from the row where it lies.
pub(crate) fn read_one(db: &Database, s: &Schema, rng: &mut ChaCha8Rng) -> Result<(), DbError> {
    let aid = rng.gen_range(0..s.accounts_count);
    let txn = db.begin(Isolation::ReadCommitted, Durability::Sync)?;
    let mut seen = None;
    s.accounts
        .index
        .get_with(&txn, &s.accounts.table, &key(aid), |_, row| {
            seen = Some(balance(row))
        })?;
    std::hint::black_box(seen);
    txn.commit()?;
    Ok(())
}

/// pgbench's consistency rule after the run: the balances of accounts,
/// tellers and branches each sum to the sum of the history's deltas (one
/// REPEATABLE READ snapshot). A lost or doubled update fails the run.
fn check_balances(db: &Database, s: &Schema) -> Result<(), BenchError> {
    let txn = db.begin(Isolation::RepeatableRead, Durability::Sync)?;
    let sum = |t: &Table| -> Result<i64, DbError> {
        Ok(t.scan(&txn)?.iter().map(|(_, row)| balance(row)).sum())
    };
    let sums = [
        sum(&s.accounts.table)?,
        sum(&s.tellers.table)?,
        sum(&s.branches.table)?,
        sum(&s.history)?,
    ];
    txn.commit().map_err(DbError::from)?;
    if sums.iter().any(|&x| x != sums[0]) {
        return Err(BenchError::Failed(format!(
            "tpcb balances disagree: accounts {}, tellers {}, branches {}, history {}",
            sums[0], sums[1], sums[2], sums[3]
        )));
    }
    Ok(())
}
