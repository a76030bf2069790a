//! Runs a table's access path (`plan.rs`): the rows the transaction sees,
//! found as the plan says, checked against its filter, with what EXPLAIN
//! ANALYZE reports about them.

use crate::error::SqlError;
use crate::plan::{Access, KeyRange, Keys, ScanPlan};
use crate::scalar::{Env, Scalar};
use folio_btree::Direction;
use folio_catalog::{Reads, Relation};
use folio_db::{Tid, Transaction};
use folio_row::Value;
use folio_txn::TxnError;
use std::ops::Bound;

/// A row found: where it lives (none for an index-only scan) and its
/// values (an index-only scan fills the key columns, the rest is NULL).
pub type Found = (Option<Tid>, Vec<Value>);

/// What the scan did, for EXPLAIN ANALYZE.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ScanCounts {
    pub removed_by_filter: u64,
    /// Index-only scans: rows checked on the heap (the visibility map did
    /// not say all-visible).
    pub heap_fetches: u64,
}

/// The rows `txn` sees that the plan selects, in the plan's order.
pub fn run(
    txn: &Transaction,
    relation: &Relation,
    plan: &ScanPlan,
    env: &Env<'_>,
) -> Result<(Vec<Found>, ScanCounts), SqlError> {
    let mut found = Vec::new();
    let counts = run_into(txn, relation, plan, env, |tid, row| {
        found.push((tid, std::mem::take(row)));
        Ok(())
    })?;
    Ok((found, counts))
}

/// [`run`] handing each row to `sink` in turn: a sequential scan as it
/// reads them (nothing held), an index scan once it has them. A
/// sequential scan decodes every row into one vector: `sink` takes it
/// (`std::mem::take`) to keep the row, and otherwise leaves it unchanged.
pub fn run_into(
    txn: &Transaction,
    relation: &Relation,
    plan: &ScanPlan,
    env: &Env<'_>,
    mut sink: impl FnMut(Option<Tid>, &mut Vec<Value>) -> Result<(), SqlError>,
) -> Result<ScanCounts, SqlError> {
    // (At execution, as PostgreSQL's: a plan or a view over an
    // unpopulated materialized view is made, not run.)
    crate::matviews::check_populated(relation)?;
    // The columns a row read from the table decodes (an index-only scan
    // reads none).
    let reads = |only: bool| match only {
        true => Reads::ALL,
        false => relation.reads(plan.reads.as_deref()),
    };
    match plan.access {
        Access::Seq => seq_scan(txn, relation, plan, &reads(false), env, sink),
        Access::Index {
            index,
            only,
            direction,
            ..
        } => {
            let access = (index, only, direction);
            let (found, counts) = index_scan(txn, relation, plan, access, &reads(only), env)?;
            for (tid, mut row) in found {
                sink(tid, &mut row)?;
            }
            Ok(counts)
        }
    }
}

/// An index access (index, index-only, direction): the rows found, checked
/// against the plan's filter.
fn index_scan(
    txn: &Transaction,
    relation: &Relation,
    plan: &ScanPlan,
    (index, only, direction): (usize, bool, Direction),
    reads: &Reads,
    env: &Env<'_>,
) -> Result<(Vec<Found>, ScanCounts), SqlError> {
    let mut counts = ScanCounts::default();
    let mut found: Vec<Found> = Vec::new();
    // A pushed LIMIT counts rows found, so only where no filter follows.
    let limit =
        crate::counts::Stop::rows(plan.limit.as_ref(), env)?.filter(|_| plan.filter.is_empty());
    // Descents of the index, for its statistics: one per key range
    // searched (PostgreSQL 15 counts each element of an `IN` list as a
    // scan of the index too).
    let mut descents = 1;
    // One whole key: an index-only scan looks it up, another reads the
    // range of its entries.
    let keys = match plan.access.key_ranges(relation, env)? {
        Keys::Key(key) if !only => Keys::Ranges(vec![KeyRange::whole(key)]),
        keys => keys,
    };
    match keys {
        Keys::Point(key) if !only => {
            found.extend(
                relation
                    .lookup_read(txn, index, &key, reads)?
                    .into_iter()
                    .map(|(tid, row)| (Some(tid), row)),
            );
        }
        Keys::Point(key) => {
            // Index-only: the key is the row's indexed columns.
            let ri = &relation.indexes[index];
            let encoded = folio_row::encode_key(&key, &ri.key_columns)?;
            only_get(txn, relation, index, &encoded, &mut found, &mut counts)?;
        }
        Keys::Key(key) => only_get(txn, relation, index, &key, &mut found, &mut counts)?,
        Keys::Ranges(ranges) => {
            descents = 0;
            for range in &ranges {
                if only {
                    descents += 1;
                }
                if let (true, true, Bound::Included(key)) = (only, range.whole_key, &range.lower) {
                    only_get(txn, relation, index, key, &mut found, &mut counts)?;
                } else if only {
                    only_scan(
                        txn,
                        relation,
                        index,
                        range.bounds(),
                        direction,
                        &mut found,
                        &mut counts,
                    )?;
                } else {
                    let remaining = limit.map(|l| l.saturating_sub(found.len()));
                    if remaining == Some(0) {
                        break;
                    }
                    descents += 1;
                    let (rows, _) = relation.index_scan(
                        txn,
                        index,
                        range.bounds(),
                        direction,
                        remaining,
                        reads,
                    )?;
                    found.extend(rows.into_iter().map(|(tid, row)| (Some(tid), row)));
                }
            }
        }
    }
    if plan.system {
        let system = crate::system_columns::Filler::of(relation)?;
        for (tid, row) in &mut found {
            let tid = tid.expect("a scan with system columns is no index-only scan");
            system.append(relation, tid, row)?;
        }
    }
    let before = found.len();
    // Entries returned and table rows fetched: an index-only scan fetches
    // only the rows the visibility map does not vouch for.
    let fetched = if only {
        counts.heap_fetches
    } else {
        before as u64
    };
    let index_oid = relation.indexes[index].def.oid;
    txn.count_index_scan(index_oid, descents, before as u64, fetched);
    let mut failed = None;
    found.retain(|(_, row)| match accepts(&plan.filter, row, env) {
        Ok(keep) => keep,
        Err(e) => {
            failed.get_or_insert(e);
            false
        }
    });
    if let Some(e) = failed {
        return Err(e);
    }
    counts.removed_by_filter = (before - found.len()) as u64;
    Ok((found, counts))
}

/// A sequential scan: the rows filtered as they are read, each kept one
/// handed to `sink`, a pushed LIMIT counting them.
fn seq_scan(
    txn: &Transaction,
    relation: &Relation,
    plan: &ScanPlan,
    reads: &Reads,
    env: &Env<'_>,
    mut sink: impl FnMut(Option<Tid>, &mut Vec<Value>) -> Result<(), SqlError>,
) -> Result<ScanCounts, SqlError> {
    let mut counts = ScanCounts::default();
    let mut kept = 0;
    let limit = crate::counts::Stop::rows(plan.limit.as_ref(), env)?;
    // Rows the scan returned, for the table's statistics (`seq_tup_read`).
    let mut read = 0;
    // System columns and a TABLESAMPLE's choice (by the rows' `ctid`s)
    // both read the rows' blocks through one filler.
    let system = match plan.system || plan.sample.is_some() {
        true => Some(crate::system_columns::Filler::of(relation)?),
        false => None,
    };
    let fixed = crate::truth::fix_params(&plan.filter, env);
    let filter: &[Scalar] = &fixed;
    let sampler = match &plan.sample {
        Some(sample) => Some(crate::tablesample::Sampler::start(sample, env)?),
        None => None,
    };
    let scanned = relation.visit_rows(txn, reads, |tid, row| {
        if let (Some(sampler), Some(blocks)) = (&sampler, &system)
            && !sampler.keeps(blocks.block(tid)?, tid.item.0 + 1)
        {
            return Ok(true);
        }
        read += 1;
        if let Some(system) = system.as_ref().filter(|_| plan.system) {
            system.append(relation, tid, row)?;
        }
        match accepts(filter, row, env)? {
            true => {
                sink(Some(tid), row)?;
                kept += 1;
            }
            false => counts.removed_by_filter += 1,
        }
        Ok::<_, SqlError>(limit.is_none_or(|l| kept < l))
    });
    txn.count_seq_scan(relation.def.oid, read);
    scanned?;
    Ok(counts)
}

/// An index-only lookup of one whole key (encoded): rows with the key
/// columns filled.
fn only_get(
    txn: &Transaction,
    relation: &Relation,
    index: usize,
    key: &[u8],
    found: &mut Vec<Found>,
    counts: &mut ScanCounts,
) -> Result<(), SqlError> {
    let (keys, pages) = relation.index_only_get(txn, index, key)?;
    found_keys(relation, index, keys, pages.heap, found, counts);
    Ok(())
}

/// An index-only scan of one key range: rows with the key columns filled.
fn only_scan(
    txn: &Transaction,
    relation: &Relation,
    index: usize,
    (lower, upper): (Bound<&[u8]>, Bound<&[u8]>),
    direction: Direction,
    found: &mut Vec<Found>,
    counts: &mut ScanCounts,
) -> Result<(), SqlError> {
    let (keys, pages) = relation.index_only(txn, index, lower, upper, direction)?;
    found_keys(relation, index, keys, pages.heap, found, counts);
    Ok(())
}

/// Rows with only index `index`'s key columns filled, one per key an
/// index-only scan or lookup found.
fn found_keys(
    relation: &Relation,
    index: usize,
    keys: Vec<Vec<Value>>,
    heap_fetches: u64,
    found: &mut Vec<Found>,
    counts: &mut ScanCounts,
) {
    let key_cols = &relation.indexes[index].def.columns;
    let width = relation.types.len();
    counts.heap_fetches += heap_fetches;
    found.extend(keys.into_iter().map(|key| {
        let mut row = vec![Value::Null; width];
        for (&c, v) in key_cols.iter().zip(key) {
            row[usize::from(c)] = v;
        }
        (None, row)
    }));
}

/// Whether `row` satisfies every conjunct.
pub fn accepts(conjuncts: &[Scalar], row: &[Value], env: &Env<'_>) -> Result<bool, SqlError> {
    for c in conjuncts {
        if !c.accepts(row, env)? {
            return Ok(false);
        }
    }
    Ok(true)
}

/// `FOR UPDATE` / `FOR SHARE`: locks the rows found, in the lock's order
/// (`RowLock::order`) and until it has as many as the LIMIT needs
/// (`RowLock::needed`). A row another transaction changed meanwhile is
/// followed to its newest version, kept if it still satisfies the plan's
/// conditions (READ COMMITTED; REPEATABLE READ gets 40001 from the heap);
/// a deleted one is dropped. A row another running transaction holds:
/// waited for, or under `NOWAIT` 55P03, or under `SKIP LOCKED` dropped.
pub fn lock_rows(
    txn: &mut Transaction,
    relation: &Relation,
    plan: &ScanPlan,
    lock: &crate::from::RowLock,
    mut found: Vec<Found>,
    env: &Env<'_>,
) -> Result<Vec<Vec<Value>>, SqlError> {
    use crate::from::LockStrength;
    // (PostgreSQL's table lock of a locking read: `LOCK TABLE ... IN
    // EXCLUSIVE MODE` keeps it out.)
    txn.lock_table(relation.def.oid, folio_txn::LockMode::RowShare)?;
    let conditions: Vec<Scalar> = plan
        .index_cond
        .iter()
        .chain(&plan.filter)
        .cloned()
        .collect();
    if !lock.order.is_empty() {
        let mut failed = None;
        found.sort_by(|(_, a), (_, b)| crate::query::row_order(&lock.order, a, b, &mut failed));
        if let Some(e) = failed {
            return Err(e);
        }
    }
    let needed = crate::counts::Stop::rows(lock.needed.as_ref(), env)?.unwrap_or(usize::MAX);
    let mut rows = Vec::with_capacity(found.len().min(needed));
    for (tid, row) in found {
        if rows.len() >= needed {
            break;
        }
        let tid = tid.expect("a locking scan reads every column");
        let locked = write_newest(
            txn,
            relation,
            &conditions,
            tid,
            row,
            env,
            |txn, tid, row| {
                let table = &relation.table;
                let write = match lock.strength {
                    LockStrength::Update => table.lock_with(txn, tid, lock.wait),
                    LockStrength::Share => table.lock_shared_with(txn, tid, lock.wait),
                };
                let write = write.map_err(folio_catalog::CatalogError::from);
                let write = match write {
                    Ok(write) => write,
                    Err(e) if matches!(e.txn(), Some(TxnError::LockNotAvailable { .. })) => {
                        return Err(SqlError::new(
                            "55P03",
                            format!(
                                "could not obtain lock on row in relation \"{}\"",
                                relation.def.name
                            ),
                        ));
                    }
                    Err(e) => return Err(e.into()),
                };
                // A row skipped (SKIP LOCKED) leaves the result as a
                // deleted one does.
                Ok((write.unwrap_or(folio_db::Write::Gone), row.to_vec()))
            },
        )?;
        rows.extend(locked);
    }
    Ok(rows)
}

/// Applies `write` (an update, a delete, a row lock) to the row at `tid`,
/// whose values are `row`. A row another transaction changed meanwhile
/// (`Write::Moved`) is followed to its newest version and, if that still
/// satisfies `conditions`, written instead (READ COMMITTED; REPEATABLE
/// READ gets 40001 from the heap). Returns what `write` made of the row
/// written, or `None` if it was deleted or no longer qualifies. The one
/// owner of that loop for row changes and locks.
pub fn write_newest<T>(
    txn: &mut Transaction,
    relation: &Relation,
    conditions: &[Scalar],
    tid: Tid,
    row: Vec<Value>,
    env: &Env<'_>,
    write: impl FnMut(&mut Transaction, Tid, &[Value]) -> Result<(folio_db::Write, T), SqlError>,
) -> Result<Option<T>, SqlError> {
    let qualifies = |values: &[Value]| accepts(conditions, values, env);
    write_newest_where(txn, relation, qualifies, tid, row, write)
}

/// [`write_newest`] with the re-check a closure: whether a newer version
/// of the row still qualifies (an UPDATE ... FROM judges it with the
/// other items' values it was joined to, `dml_join.rs`).
pub fn write_newest_where<T>(
    txn: &mut Transaction,
    relation: &Relation,
    mut qualifies: impl FnMut(&[Value]) -> Result<bool, SqlError>,
    mut tid: Tid,
    mut row: Vec<Value>,
    mut write: impl FnMut(&mut Transaction, Tid, &[Value]) -> Result<(folio_db::Write, T), SqlError>,
) -> Result<Option<T>, SqlError> {
    loop {
        match write(txn, tid, &row)? {
            (folio_db::Write::Done(_) | folio_db::Write::Hot(_), made) => return Ok(Some(made)),
            (folio_db::Write::Gone, _) => return Ok(None),
            (folio_db::Write::Moved(next), _) => {
                match newest_where(txn, relation, next, &mut qualifies)? {
                    Some(newer) => (tid, row) = newer,
                    None => return Ok(None),
                }
            }
        }
    }
}

/// READ COMMITTED's re-check (PostgreSQL's EvalPlanQual): the newest
/// version of a row changed since the snapshot, if it still `qualifies`.
/// The one owner of that rule for row changes and locks.
fn newest_where(
    txn: &Transaction,
    relation: &Relation,
    next: Tid,
    mut qualifies: impl FnMut(&[Value]) -> Result<bool, SqlError>,
) -> Result<Option<(Tid, Vec<Value>)>, SqlError> {
    let newest = relation
        .table
        .newest(txn, next)
        .map_err(folio_catalog::CatalogError::from)?;
    let Some((newest, bytes)) = newest else {
        return Ok(None);
    };
    let values = relation.decode(txn, &bytes)?;
    Ok(qualifies(&values)?.then_some((newest, values)))
}
