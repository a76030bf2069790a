//! Hermitage's isolation tests (github.com/ept/hermitage, its PostgreSQL
//! page) at READ COMMITTED, REPEATABLE READ and SERIALIZABLE, through the
//! heap and a unique index: each test asserts PostgreSQL 15's outcome,
//! anomaly allowed or prevented, at each level. Table `test (id, value)`
//! starts with (1, 10) and (2, 20).

mod common;

use common::*;
use folio_db::{
    Database, Durability, Index, Isolation, Options, Storage, Table, Transaction, Write,
};
use folio_heap::HeapError;
use folio_io::{SimConfig, SimDir};
use std::sync::Arc;
use std::time::Duration;

const RC: Isolation = Isolation::ReadCommitted;
const RR: Isolation = Isolation::RepeatableRead;
const SR: Isolation = Isolation::Serializable;

struct Db {
    db: Database,
    table: Table,
    index: Index,
}

fn setup(seed: u64) -> Arc<Db> {
    let options = Options {
        background_io: false,
        ..small_options()
    };
    let db = Database::create_in(
        Storage::single(SimDir::new(SimConfig::seeded(seed))),
        options,
    )
    .unwrap();
    let table = db.create_table("test").unwrap();
    let index = db.create_index("test_pkey", true).unwrap();
    let s = Db { db, table, index };
    let mut t = s.begin(RC);
    s.insert(&mut t, 1, 10).unwrap();
    s.insert(&mut t, 2, 20).unwrap();
    t.commit().unwrap();
    Arc::new(s)
}

fn row(id: u8, value: i64) -> Vec<u8> {
    let mut r = vec![id];
    r.extend_from_slice(&value.to_le_bytes());
    r
}

fn value(row: &[u8]) -> i64 {
    i64::from_le_bytes(row[1..9].try_into().unwrap())
}

impl Db {
    fn begin(&self, isolation: Isolation) -> Transaction {
        self.db.begin(isolation, Durability::Sync).unwrap()
    }

    fn insert(&self, t: &mut Transaction, id: u8, v: i64) -> Result<(), HeapError> {
        t.next_statement();
        let tid = self.table.insert(t, &row(id, v))?;
        self.index.insert(t, &self.table, &[id], tid)
    }

    /// `select value from test where id = $id`
    fn read(&self, t: &mut Transaction, id: u8) -> Option<i64> {
        t.next_statement();
        let found = self.index.get(t, &self.table, &[id]).unwrap();
        found.first().map(|(_, r)| value(r))
    }

    /// `select id from test where value % $m = 0` (a sequential scan).
    fn ids_where_multiple_of(&self, t: &mut Transaction, m: i64) -> Vec<u8> {
        t.next_statement();
        let mut ids: Vec<u8> = self
            .table
            .scan(t)
            .unwrap()
            .iter()
            .filter(|(_, r)| value(r) % m == 0)
            .map(|(_, r)| r[0])
            .collect();
        ids.sort();
        ids
    }

    /// `update test set value = $v where id = $id`, READ COMMITTED's
    /// re-check of the newest version included.
    fn write(&self, t: &mut Transaction, id: u8, v: i64) -> Result<(), HeapError> {
        t.next_statement();
        let found = self.index.get(t, &self.table, &[id])?;
        let Some((mut at, _)) = found.into_iter().next() else {
            return Ok(());
        };
        loop {
            match self.table.update(t, at, &row(id, v), false)? {
                Write::Moved(next) => match self.table.newest(t, next)? {
                    Some((newest, _)) => at = newest,
                    None => return Ok(()),
                },
                Write::Done(Some(new)) => return self.index.insert(t, &self.table, &[id], new),
                _ => return Ok(()),
            }
        }
    }
}

/// Runs `f` on another thread and checks it blocks (still running after
/// 50 ms); returns its handle.
fn blocked<T: Send + 'static>(
    f: impl FnOnce() -> T + Send + 'static,
) -> std::thread::JoinHandle<T> {
    let h = std::thread::spawn(f);
    std::thread::sleep(Duration::from_millis(50));
    assert!(!h.is_finished(), "the operation should wait");
    h
}

fn serialization_failure(r: Result<(), HeapError>) {
    let e = r.expect_err("a serialization failure");
    assert_eq!(e.sqlstate(), Some("40001"), "{e}");
}

/// SERIALIZABLE refuses the commit (40001, read/write dependencies).
fn commit_refused(t: Transaction) {
    let e = t.commit().expect_err("a serialization failure at commit");
    assert_eq!(e.sqlstate(), Some("40001"), "{e}");
    assert!(e.to_string().contains("read/write dependencies"), "{e}");
}

// Proves G0 (write cycles, dirty writes) is prevented at both levels: T2's
// update of a row T1 wrote waits for T1; then under READ COMMITTED T2
// goes on and both rows end with T2's values (no interleaving of the two
// writers), and under REPEATABLE READ T2 fails with 40001.
#[test]
fn g0_write_cycles_are_prevented() {
    for isolation in [RC, RR, SR] {
        let s = setup(1);
        let mut t1 = s.begin(isolation);
        let mut t2 = s.begin(isolation);
        s.write(&mut t1, 1, 11).unwrap();
        let s2 = s.clone();
        let h = blocked(move || {
            let r = s2.write(&mut t2, 1, 12);
            (r, t2)
        });
        s.write(&mut t1, 2, 21).unwrap();
        t1.commit().unwrap();
        let (r, mut t2) = h.join().unwrap();
        if isolation != RC {
            serialization_failure(r);
            continue;
        }
        r.unwrap();
        s.write(&mut t2, 2, 22).unwrap();
        t2.commit().unwrap();
        let mut t = s.begin(RC);
        assert_eq!((s.read(&mut t, 1), s.read(&mut t, 2)), (Some(12), Some(22)));
    }
}

// Proves G1a (aborted reads) is prevented: a reader never sees the value
// of a transaction that then rolls back.
#[test]
fn g1a_aborted_reads_are_prevented() {
    for isolation in [RC, RR, SR] {
        let s = setup(2);
        let mut t1 = s.begin(isolation);
        let mut t2 = s.begin(isolation);
        s.write(&mut t1, 1, 101).unwrap();
        assert_eq!(s.read(&mut t2, 1), Some(10));
        t1.rollback().unwrap();
        assert_eq!(s.read(&mut t2, 1), Some(10));
    }
}

// Proves G1b (intermediate reads) is prevented: a reader sees a writer's
// final value (READ COMMITTED, after the commit) or its snapshot's
// (REPEATABLE READ), never the intermediate one.
#[test]
fn g1b_intermediate_reads_are_prevented() {
    for (isolation, after) in [(RC, 11), (RR, 10), (SR, 10)] {
        let s = setup(3);
        let mut t1 = s.begin(isolation);
        let mut t2 = s.begin(isolation);
        s.write(&mut t1, 1, 101).unwrap();
        assert_eq!(s.read(&mut t2, 1), Some(10));
        s.write(&mut t1, 1, 11).unwrap();
        t1.commit().unwrap();
        assert_eq!(s.read(&mut t2, 1), Some(after), "{isolation:?}");
    }
}

// Proves G1c (circular information flow) is prevented: two writers each
// read the other's row and see its committed value, not the other's
// uncommitted write. SERIALIZABLE then refuses the second commit: each
// read missed the other's write, a cycle no serial order has.
#[test]
fn g1c_circular_information_flow_is_prevented() {
    for isolation in [RC, RR, SR] {
        let s = setup(4);
        let mut t1 = s.begin(isolation);
        let mut t2 = s.begin(isolation);
        s.write(&mut t1, 1, 11).unwrap();
        s.write(&mut t2, 2, 22).unwrap();
        assert_eq!(s.read(&mut t1, 2), Some(20));
        assert_eq!(s.read(&mut t2, 1), Some(10));
        t1.commit().unwrap();
        if isolation == SR {
            commit_refused(t2);
        } else {
            t2.commit().unwrap();
        }
    }
}

// Proves OTV (observed transaction vanishes) is prevented: a reader that
// saw T1's values never later sees a mix of T1's and T2's; under
// REPEATABLE READ T2 fails with 40001 instead of overwriting T1.
#[test]
fn otv_observed_transaction_vanishes_is_prevented() {
    for isolation in [RC, RR, SR] {
        let s = setup(5);
        let mut t1 = s.begin(isolation);
        let mut t2 = s.begin(isolation);
        let mut t3 = s.begin(isolation);
        s.write(&mut t1, 1, 11).unwrap();
        s.write(&mut t1, 2, 19).unwrap();
        let s2 = s.clone();
        let h = blocked(move || {
            let r = s2.write(&mut t2, 1, 12);
            (r, t2)
        });
        t1.commit().unwrap();
        let (r, mut t2) = h.join().unwrap();
        if isolation != RC {
            serialization_failure(r);
            assert_eq!(s.read(&mut t3, 1), Some(10), "its snapshot predates T1");
            continue;
        }
        r.unwrap();
        assert_eq!(s.read(&mut t3, 1), Some(11));
        s.write(&mut t2, 2, 18).unwrap();
        assert_eq!(s.read(&mut t3, 2), Some(19));
        t2.commit().unwrap();
        assert_eq!(s.read(&mut t3, 2), Some(18));
        assert_eq!(s.read(&mut t3, 1), Some(12));
    }
}

// Proves PMP (predicate many preceders): READ COMMITTED's second predicate
// read sees a row inserted and committed meanwhile (allowed, as in
// PostgreSQL); REPEATABLE READ's does not (prevented).
#[test]
fn pmp_predicate_many_preceders_follows_the_level() {
    for (isolation, second) in [(RC, vec![3]), (RR, vec![]), (SR, vec![])] {
        let s = setup(6);
        let mut t1 = s.begin(isolation);
        let mut t2 = s.begin(isolation);
        assert_eq!(s.ids_where_multiple_of(&mut t1, 30), Vec::<u8>::new());
        s.insert(&mut t2, 3, 30).unwrap();
        t2.commit().unwrap();
        assert_eq!(
            s.ids_where_multiple_of(&mut t1, 30),
            second,
            "{isolation:?}"
        );
        t1.commit().unwrap();
    }
}

// Proves P4 (lost update): under READ COMMITTED T2's update waits for T1
// and then overwrites it (allowed, as in PostgreSQL); under REPEATABLE
// READ T2 fails with 40001 (prevented).
#[test]
fn p4_lost_update_follows_the_level() {
    for isolation in [RC, RR, SR] {
        let s = setup(7);
        let mut t1 = s.begin(isolation);
        let mut t2 = s.begin(isolation);
        assert_eq!(s.read(&mut t1, 1), Some(10));
        assert_eq!(s.read(&mut t2, 1), Some(10));
        s.write(&mut t1, 1, 11).unwrap();
        let s2 = s.clone();
        let h = blocked(move || {
            let r = s2.write(&mut t2, 1, 11);
            (r, t2)
        });
        t1.commit().unwrap();
        let (r, t2) = h.join().unwrap();
        if isolation != RC {
            serialization_failure(r);
        } else {
            r.unwrap();
            t2.commit().unwrap();
        }
    }
}

// Proves G-single (read skew): READ COMMITTED's later read sees T2's
// committed update of the second row (allowed, as in PostgreSQL);
// REPEATABLE READ's sees its snapshot (prevented).
#[test]
fn g_single_read_skew_follows_the_level() {
    for (isolation, second) in [(RC, 18), (RR, 20), (SR, 20)] {
        let s = setup(8);
        let mut t1 = s.begin(isolation);
        let mut t2 = s.begin(isolation);
        assert_eq!(s.read(&mut t1, 1), Some(10));
        assert_eq!(
            (s.read(&mut t2, 1), s.read(&mut t2, 2)),
            (Some(10), Some(20))
        );
        s.write(&mut t2, 1, 12).unwrap();
        s.write(&mut t2, 2, 18).unwrap();
        t2.commit().unwrap();
        assert_eq!(s.read(&mut t1, 2), Some(second), "{isolation:?}");
        t1.commit().unwrap();
    }
}

// Proves G2-item (write skew) is allowed at both levels, as in PostgreSQL
// (only SERIALIZABLE prevents it there): two transactions read both rows,
// each updates a different one, and both commit.
#[test]
fn g2_item_write_skew_is_allowed_below_serializable() {
    for isolation in [RC, RR] {
        let s = setup(9);
        let mut t1 = s.begin(isolation);
        let mut t2 = s.begin(isolation);
        assert_eq!(
            (s.read(&mut t1, 1), s.read(&mut t1, 2)),
            (Some(10), Some(20))
        );
        assert_eq!(
            (s.read(&mut t2, 1), s.read(&mut t2, 2)),
            (Some(10), Some(20))
        );
        s.write(&mut t1, 1, 11).unwrap();
        s.write(&mut t2, 2, 21).unwrap();
        t1.commit().unwrap();
        t2.commit().unwrap();
        let mut t = s.begin(RC);
        assert_eq!((s.read(&mut t, 1), s.read(&mut t, 2)), (Some(11), Some(21)));
    }
}

// Proves G2-item (write skew) is prevented at SERIALIZABLE as PostgreSQL
// prevents it: the first committer wins, the second commit fails with
// 40001, and the table holds the first's change only.
#[test]
fn g2_item_write_skew_is_prevented_at_serializable() {
    let s = setup(10);
    let mut t1 = s.begin(SR);
    let mut t2 = s.begin(SR);
    for t in [&mut t1, &mut t2] {
        assert_eq!((s.read(t, 1), s.read(t, 2)), (Some(10), Some(20)));
    }
    s.write(&mut t1, 1, 11).unwrap();
    s.write(&mut t2, 2, 21).unwrap();
    t1.commit().unwrap();
    commit_refused(t2);
    let mut t = s.begin(RC);
    assert_eq!((s.read(&mut t, 1), s.read(&mut t, 2)), (Some(11), Some(20)));
    drop(t);
    assert_eq!(
        s.db.txns().serializable_remembered(),
        (0, 0),
        "all forgotten"
    );
}

// Proves G2 (anti-dependency cycles through a predicate) is prevented at
// SERIALIZABLE: both transactions scan for multiples of 3 and insert a
// row the other's scan would have found; the second commit fails.
#[test]
fn g2_predicate_write_skew_is_prevented_at_serializable() {
    for isolation in [RR, SR] {
        let s = setup(11);
        let mut t1 = s.begin(isolation);
        let mut t2 = s.begin(isolation);
        assert_eq!(s.ids_where_multiple_of(&mut t1, 3), Vec::<u8>::new());
        assert_eq!(s.ids_where_multiple_of(&mut t2, 3), Vec::<u8>::new());
        s.insert(&mut t1, 3, 30).unwrap();
        s.insert(&mut t2, 4, 42).unwrap();
        t1.commit().unwrap();
        if isolation == SR {
            commit_refused(t2);
        } else {
            t2.commit().unwrap();
        }
    }
}

// Proves the read-only anomaly (Fekete, O'Neil and O'Neil, 2004) is
// prevented at SERIALIZABLE: T1 reads y; T2 changes y and commits; T3,
// read-only, begins after and reads x and y (T2's y); T1 then writes x.
// T3 saw T2 but not T1, and T1 must precede T2: no serial order exists,
// so T1 fails, and T3's reads stand.
#[test]
fn the_read_only_anomaly_is_prevented_at_serializable() {
    let s = setup(12);
    let mut t1 = s.begin(SR);
    assert_eq!(s.read(&mut t1, 2), Some(20));
    let mut t2 = s.begin(SR);
    s.write(&mut t2, 2, 21).unwrap();
    t2.commit().unwrap();
    let mut t3 = s.begin(SR);
    assert_eq!(
        (s.read(&mut t3, 1), s.read(&mut t3, 2)),
        (Some(10), Some(21))
    );
    t3.commit().unwrap();
    match s.write(&mut t1, 1, 11) {
        Err(e) => assert_eq!(e.sqlstate(), Some("40001"), "{e}"),
        Ok(()) => commit_refused(t1),
    }
}

// Proves a serializable transaction whose reads and writes form no
// dangerous structure commits: disjoint rows, and a reader of a row a
// concurrent writer then changes (one edge only).
#[test]
fn serializable_transactions_without_a_cycle_commit() {
    let s = setup(13);
    let mut t1 = s.begin(SR);
    let mut t2 = s.begin(SR);
    assert_eq!(s.read(&mut t1, 1), Some(10));
    assert_eq!(s.read(&mut t2, 1), Some(10));
    s.write(&mut t2, 1, 12).unwrap();
    s.write(&mut t1, 2, 22).unwrap();
    t1.commit().unwrap();
    t2.commit().unwrap();
    let mut t = s.begin(RC);
    assert_eq!((s.read(&mut t, 1), s.read(&mut t, 2)), (Some(12), Some(22)));
}
