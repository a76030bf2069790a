//! The embedded API end to end: rows by primary key, ranges both ways,
//! secondary indexes, DDL, savepoints, the failed-transaction rule,
//! isolation, retries, compare-and-swap, and a reopen.

use folio::{Database, Error, Isolation, Options, Schema, Type, Value};
use std::sync::{Arc, Barrier};
use std::time::Duration;

fn options() -> Options {
    Options::builder()
        .shared_buffers(8 << 20)
        .deadlock_timeout(Duration::from_millis(20))
        .build()
        .unwrap()
}

fn accounts() -> Schema {
    Schema::new("accounts")
        .column("id", Type::Int8)
        .column_not_null("owner", Type::Text)
        .column("balance", Type::Int8)
        .primary_key(&["id"])
        .unique_index("accounts_owner", &["owner"])
}

fn with_accounts(n: i64) -> (tempfile::TempDir, Database) {
    let dir = tempfile::tempdir().unwrap();
    let db = Database::create(dir.path().join("db"), &options()).unwrap();
    db.transact(Isolation::ReadCommitted, |tx| {
        let t = tx.create_table(&accounts())?;
        for id in 1..=n {
            t.insert((id, format!("owner{id}"), 100i64))?;
        }
        Ok(())
    })
    .unwrap();
    (dir, db)
}

fn ids(rows: impl Iterator<Item = folio::Result<folio::Row>>) -> Vec<i64> {
    rows.map(|r| r.unwrap().get::<i64>("id").unwrap()).collect()
}

// Proves get (also lending the row: a borrowed text column), insert,
// update (including a key change), delete, len, first and last by primary
// key, and that integer literals of any width find a bigint key.
#[test]
fn rows_by_primary_key() {
    let (_dir, db) = with_accounts(5);
    let tx = db.begin(Isolation::ReadCommitted).unwrap();
    let t = tx.table("accounts").unwrap();
    assert_eq!(t.columns(), ["id", "owner", "balance"]);
    let row = t.get(3).unwrap().unwrap();
    assert_eq!(row.get::<String>("owner").unwrap(), "owner3");
    assert_eq!(row.get::<i32>(2).unwrap(), 100);
    assert_eq!(row.get::<Option<i64>>("balance").unwrap(), Some(100));
    assert_eq!(row.get::<String>(2).unwrap_err().code(), "42804");
    assert_eq!(row.get::<i64>("nope").unwrap_err().code(), "42703");
    assert!(t.get(99i16).unwrap().is_none());
    // Lent from where the read found it: text borrowed, nothing copied.
    let lent = t
        .get_with(3, |row| {
            let owner: &str = row.str("owner").unwrap().unwrap();
            (owner.len(), row.get::<i64>("balance").unwrap())
        })
        .unwrap();
    assert_eq!(lent, Some((6, 100)));
    assert!(t.get_with(99, |_| ()).unwrap().is_none());
    let wrong = t
        .get_with(3, |row| row.bytes("owner").unwrap_err().code())
        .unwrap();
    assert_eq!(wrong, Some("42804"));

    assert!(t.update(3, (3i64, "owner3", 250i64)).unwrap());
    assert_eq!(t.get(3).unwrap().unwrap().get::<i64>(2).unwrap(), 250);
    assert!(!t.update(42, (42i64, "x", 0i64)).unwrap(), "no such row");
    // A key change moves the row.
    assert!(t.update(4, (40i64, "owner4", 1i64)).unwrap());
    assert!(t.get(4).unwrap().is_none());
    assert_eq!(t.get(40).unwrap().unwrap().get::<i64>(2).unwrap(), 1);

    let deleted = t.delete(5).unwrap().unwrap();
    assert_eq!(deleted.get::<String>("owner").unwrap(), "owner5");
    assert!(t.delete(5).unwrap().is_none());
    assert_eq!(t.len().unwrap(), 4);
    assert_eq!(t.first().unwrap().unwrap().get::<i64>(0).unwrap(), 1);
    assert_eq!(t.last().unwrap().unwrap().get::<i64>(0).unwrap(), 40);
    tx.commit().unwrap();

    let tx = db.begin(Isolation::RepeatableRead).unwrap();
    let t = tx.table("accounts").unwrap();
    assert_eq!(ids(t.iter().unwrap()), [1, 2, 3, 40]);
    drop(t);
    tx.commit().unwrap();
    db.verify().unwrap();
}

// Proves ranges: every kind of bound, reverse order, both ends at once
// meeting in the middle without repeating or losing a row, prefixes of a
// composite key, and a range open while the transaction updates the rows
// it visits (each row once).
#[test]
fn ranges_run_both_ways_and_meet() {
    let (_dir, db) = with_accounts(20);
    let tx = db.begin(Isolation::ReadCommitted).unwrap();
    let t = tx.table("accounts").unwrap();
    assert_eq!(ids(t.range(5..8).unwrap()), [5, 6, 7]);
    assert_eq!(ids(t.range(5..=8).unwrap().rev()), [8, 7, 6, 5]);
    assert_eq!(ids(t.range(18..).unwrap()), [18, 19, 20]);
    assert_eq!(ids(t.range(..=2).unwrap().rev()), [2, 1]);
    assert_eq!(
        ids(t
            .range((std::ops::Bound::Excluded(3), std::ops::Bound::Included(5)))
            .unwrap()),
        [4, 5]
    );
    let (high, low) = (8, 5);
    assert_eq!(ids(t.range(high..low).unwrap()), Vec::<i64>::new());
    for split in 0..=20 {
        let mut range = t.range(1..=20).unwrap();
        let mut front = Vec::new();
        for _ in 0..split {
            front.push(range.next().unwrap().unwrap().get::<i64>(0).unwrap());
        }
        let back: Vec<i64> = ids(range.by_ref().rev());
        assert!(range.next().is_none(), "a met range stays done");
        let mut all = front.clone();
        all.extend(back.iter().rev());
        assert_eq!(all, (1..=20).collect::<Vec<_>>(), "split at {split}");
    }
    // Updating the rows a range visits: each row is met once, and every
    // update counts.
    let range = t.range(1..=20).unwrap();
    let mut visited = 0;
    for row in range {
        let row = row.unwrap();
        let id: i64 = row.get(0).unwrap();
        let owner: String = row.get(1).unwrap();
        // A new owner changes an indexed column: a new version with new
        // entries in every index, the primary key's included.
        assert!(t.update(id, (id, format!("{owner}x"), 7i64)).unwrap());
        visited += 1;
    }
    assert_eq!(visited, 20);
    assert!(
        t.iter()
            .unwrap()
            .all(|r| r.unwrap().get::<i64>(2).unwrap() == 7)
    );
    drop(t);

    let pairs = tx
        .create_table(
            &Schema::new("pairs")
                .column("region", Type::Text)
                .column("n", Type::Int4)
                .column("v", Type::Text)
                .primary_key(&["region", "n"]),
        )
        .unwrap();
    for region in ["eu", "us", "asia"] {
        for n in 0..3 {
            pairs.insert((region, n, format!("{region}{n}"))).unwrap();
        }
    }
    fn vs(r: impl Iterator<Item = folio::Result<folio::Row>>) -> Vec<String> {
        r.map(|row| row.unwrap().get::<String>("v").unwrap())
            .collect()
    }
    assert_eq!(
        vs(pairs.range(("eu",)..=("eu",)).unwrap()),
        ["eu0", "eu1", "eu2"]
    );
    assert_eq!(
        vs(pairs.range(("eu", 1)..).unwrap().rev()),
        ["us2", "us1", "us0", "eu2", "eu1"]
    );
    assert_eq!(
        vs(pairs.range(..("eu",)).unwrap()),
        ["asia0", "asia1", "asia2"]
    );
    assert_eq!(
        pairs
            .get(("us", 2))
            .unwrap()
            .unwrap()
            .get::<String>(2)
            .unwrap(),
        "us2"
    );
    assert_eq!(
        pairs.get("us").unwrap_err().code(),
        "42601",
        "a get needs the whole key"
    );
    drop(pairs);
    tx.commit().unwrap();
    db.verify().unwrap();
}

// Proves DDL is transactional (visible at commit, gone at rollback), that
// rename and drop work, and PostgreSQL's SQLSTATEs for bad DDL.
#[test]
fn ddl_is_transactional() {
    let (_dir, db) = with_accounts(3);
    let tx = db.begin(Isolation::ReadCommitted).unwrap();
    tx.create_table(&Schema::new("t").column("k", Type::Int4).primary_key(&["k"]))
        .unwrap();
    let other = db.begin(Isolation::ReadCommitted).unwrap();
    assert_eq!(other.table("t").unwrap_err().code(), "42P01");
    tx.rollback().unwrap();
    assert_eq!(other.table_names().unwrap(), ["accounts"]);
    other.commit().unwrap();

    let tx = db.begin(Isolation::ReadCommitted).unwrap();
    assert_eq!(tx.create_table(&accounts()).unwrap_err().code(), "42P07");
    assert_eq!(
        tx.create_table(&Schema::new("nokey").column("a", Type::Int4))
            .unwrap_err()
            .code(),
        "42P16"
    );
    assert_eq!(tx.drop_table("missing").unwrap_err().code(), "42P01");
    tx.rename_table("accounts", "people").unwrap();
    let people = tx.table("people").unwrap();
    assert_eq!(
        people.get(2).unwrap().unwrap().get::<String>(1).unwrap(),
        "owner2"
    );
    assert_eq!(people.get_by("accounts_owner", "owner3").unwrap().len(), 1);
    let owners: Vec<String> = people
        .range_by("accounts_owner", "owner2"..)
        .unwrap()
        .iter()
        .map(|r| r.get("owner").unwrap())
        .collect();
    assert_eq!(owners, ["owner2", "owner3"]);
    assert!(
        people
            .range_by("accounts_owner", ..="owner0")
            .unwrap()
            .is_empty()
    );
    drop(people);
    tx.commit().unwrap();

    db.transact(Isolation::ReadCommitted, |tx| {
        assert_eq!(tx.table_names()?, ["people"]);
        tx.drop_table("people")?;
        assert!(tx.table_names()?.is_empty());
        Ok(())
    })
    .unwrap();
    db.verify().unwrap();
}

// Proves which failures leave a transaction usable: a duplicate primary
// key on insert (23505) and bad input do; an update refused by a unique
// secondary index fails the transaction (25P02) until a rollback to a
// savepoint, and a failed transaction's commit rolls it back.
#[test]
fn failures_and_savepoints() {
    let (_dir, db) = with_accounts(3);
    let tx = db.begin(Isolation::ReadCommitted).unwrap();
    let t = tx.table("accounts").unwrap();
    assert_eq!(t.insert((1i64, "dup", 0i64)).unwrap_err().code(), "23505");
    assert_eq!(
        t.insert((9i64, Value::Null, 0i64)).unwrap_err().code(),
        "23502"
    );
    assert_eq!(t.insert((9i64, 5i64, 0i64)).unwrap_err().code(), "42804");
    assert_eq!(t.insert((9i64, "x")).unwrap_err().code(), "42601");
    t.insert((4i64, "owner4", 1i64)).unwrap();

    tx.savepoint("s").unwrap();
    // owner1 is taken in the unique index: the heap version was written
    // before the index refused it.
    let e = t.update(4, (4i64, "owner1", 1i64)).unwrap_err();
    assert_eq!(e.code(), "23505");
    assert_eq!(t.get(4).unwrap_err().code(), "25P02");
    tx.rollback_to("s").unwrap();
    assert_eq!(
        t.get(4).unwrap().unwrap().get::<String>(1).unwrap(),
        "owner4"
    );
    drop(t);
    tx.commit().unwrap();

    let tx = db.begin(Isolation::ReadCommitted).unwrap();
    let t = tx.table("accounts").unwrap();
    t.update(4, (4i64, "owner4", 99i64)).unwrap();
    assert!(t.update(4, (4i64, "owner2", 0i64)).is_err());
    drop(t);
    assert_eq!(tx.commit().unwrap_err().code(), "25P02");
    let tx = db.begin(Isolation::ReadCommitted).unwrap();
    let t = tx.table("accounts").unwrap();
    assert_eq!(
        t.get(4).unwrap().unwrap().get::<i64>(2).unwrap(),
        1,
        "the failed transaction's first update was rolled back too"
    );
    drop(t);
    tx.commit().unwrap();

    // SERIALIZABLE: write skew. Both read rows 1 and 2, each changes one;
    // the second commit fails with a retryable 40001.
    let t1 = db.begin(Isolation::Serializable).unwrap();
    let t2 = db.begin(Isolation::Serializable).unwrap();
    for (tx, id) in [(&t1, 1i64), (&t2, 2i64)] {
        let t = tx.table("accounts").unwrap();
        let total: i64 = [1, 2]
            .into_iter()
            .map(|k| t.get(k).unwrap().unwrap().get::<i64>(2).unwrap())
            .sum();
        assert_eq!(total, 200);
        assert!(t.update(id, (id, format!("owner{id}"), 0i64)).unwrap());
    }
    t1.commit().unwrap();
    let refused = t2.commit().unwrap_err();
    assert_eq!(refused.code(), "40001");
    assert!(refused.is_retryable());

    // Index keys: up to 2,680 encoded bytes (a text key takes its bytes,
    // one marker and a two-byte terminator); longer is 54000.
    db.transact(Isolation::ReadCommitted, |tx| {
        let t = tx.create_table(
            &Schema::new("docs")
                .column("name", Type::Text)
                .primary_key(&["name"]),
        )?;
        t.insert((&*"n".repeat(2677),))?;
        assert!(t.get("n".repeat(2677))?.is_some());
        let e = t.insert((&*"n".repeat(2678),)).unwrap_err();
        assert_eq!(e.code(), "54000", "{e}");
        Ok(())
    })
    .unwrap();
    db.verify().unwrap();
}

// Proves isolation through the API: REPEATABLE READ's second updater gets
// 40001 and keeps its snapshot; READ COMMITTED's follows the newest
// version (EvalPlanQual) and adds to it.
#[test]
fn isolation_levels() {
    let (_dir, db) = with_accounts(2);
    let rr = db.begin(Isolation::RepeatableRead).unwrap();
    let rr_t = rr.table("accounts").unwrap();
    assert_eq!(rr_t.get(1).unwrap().unwrap().get::<i64>(2).unwrap(), 100);
    db.transact(Isolation::ReadCommitted, |tx| {
        tx.table("accounts")?.update(1, (1i64, "owner1", 150i64))?;
        Ok(())
    })
    .unwrap();
    assert_eq!(
        rr_t.get(1).unwrap().unwrap().get::<i64>(2).unwrap(),
        100,
        "snapshot kept"
    );
    let e = rr_t.update(1, (1i64, "owner1", 0i64)).unwrap_err();
    assert_eq!(e.code(), "40001");
    assert!(e.is_retryable());
    drop(rr_t);
    assert_eq!(rr.commit().unwrap_err().code(), "25P02");

    let rc = db.begin(Isolation::ReadCommitted).unwrap();
    let rc_t = rc.table("accounts").unwrap();
    assert_eq!(rc_t.get(2).unwrap().unwrap().get::<i64>(2).unwrap(), 100);
    db.transact(Isolation::ReadCommitted, |tx| {
        tx.table("accounts")?.update(2, (2i64, "owner2", 170i64))?;
        Ok(())
    })
    .unwrap();
    assert_eq!(
        rc_t.get(2).unwrap().unwrap().get::<i64>(2).unwrap(),
        170,
        "new statement, new snapshot"
    );
    drop(rc_t);
    rc.commit().unwrap();
}

// Proves the retry helper: threads add to one balance at REPEATABLE READ
// (every collision a serialization failure) and no increment is lost.
#[test]
fn transact_retries_serialization_failures() {
    let (_dir, db) = with_accounts(1);
    let db = Arc::new(db);
    let threads = 4;
    let per_thread = 25;
    let start = Arc::new(Barrier::new(threads));
    let handles: Vec<_> = (0..threads)
        .map(|_| {
            let (db, start) = (db.clone(), start.clone());
            std::thread::spawn(move || {
                start.wait();
                for _ in 0..per_thread {
                    db.transact(Isolation::RepeatableRead, |tx| {
                        let t = tx.table("accounts")?;
                        let balance: i64 = t.get(1)?.expect("row 1").get(2)?;
                        t.update(1, (1i64, "owner1", balance + 1))?;
                        Ok(())
                    })
                    .unwrap();
                }
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
    let tx = db.begin(Isolation::ReadCommitted).unwrap();
    let balance: i64 = tx
        .table("accounts")
        .unwrap()
        .get(1)
        .unwrap()
        .unwrap()
        .get(2)
        .unwrap();
    assert_eq!(balance, 100 + (threads * per_thread) as i64);
}

// Proves compare-and-swap: a swap happens only when the current row is
// the expected one (None: absent), and a failed compare returns the row.
#[test]
fn compare_and_swap() {
    let (_dir, db) = with_accounts(1);
    let tx = db.begin(Isolation::ReadCommitted).unwrap();
    let t = tx.table("accounts").unwrap();
    let current = t.get(1).unwrap().unwrap();
    let stale = [Value::Int8(1), Value::Text("owner1".into()), Value::Int8(5)];
    let failed = t
        .compare_and_swap(1, Some(&stale), Some((1i64, "owner1", 6i64)))
        .unwrap()
        .unwrap_err()
        .unwrap();
    assert_eq!(failed, current);
    t.compare_and_swap(1, Some(current.values()), Some((1i64, "owner1", 6i64)))
        .unwrap()
        .unwrap();
    assert_eq!(t.get(1).unwrap().unwrap().get::<i64>(2).unwrap(), 6);
    // Absent expected: insert if absent.
    t.compare_and_swap(2, None, Some((2i64, "two", 2i64)))
        .unwrap()
        .unwrap();
    assert!(
        t.compare_and_swap(2, None, Some((2i64, "two", 3i64)))
            .unwrap()
            .is_err()
    );
    // Delete by swapping to None.
    let two = t.get(2).unwrap().unwrap();
    t.compare_and_swap(2, Some(two.values()), None::<Vec<Value>>)
        .unwrap()
        .unwrap();
    assert!(t.get(2).unwrap().is_none());
    drop(t);
    tx.commit().unwrap();
}

// Proves a row lock: get_for_update makes a second locker wait until the
// first commits, then see its change; get_for_share does not make another
// share locker wait.
#[test]
fn get_for_update_serialises_writers() {
    let (_dir, db) = with_accounts(1);
    let db = Arc::new(db);
    let tx = db.begin(Isolation::ReadCommitted).unwrap();
    let t = tx.table("accounts").unwrap();
    t.get_for_update(1).unwrap().unwrap();
    let waiter = {
        let db = db.clone();
        std::thread::spawn(move || {
            db.transact(Isolation::ReadCommitted, |tx| {
                let t = tx.table("accounts")?;
                let row = t.get_for_update(1)?.expect("row");
                let balance: i64 = row.get(2)?;
                t.update(1, (1i64, "owner1", balance * 2))?;
                Ok(balance)
            })
            .unwrap()
        })
    };
    std::thread::sleep(Duration::from_millis(50));
    t.update(1, (1i64, "owner1", 150i64)).unwrap();
    drop(t);
    tx.commit().unwrap();
    assert_eq!(
        waiter.join().unwrap(),
        150,
        "the waiter saw the committed update"
    );
    let tx = db.begin(Isolation::ReadCommitted).unwrap();
    let balance: i64 = tx
        .table("accounts")
        .unwrap()
        .get(1)
        .unwrap()
        .unwrap()
        .get(2)
        .unwrap();
    assert_eq!(balance, 300);
    // FOR SHARE: two readers share the lock without waiting.
    let t = tx.table("accounts").unwrap();
    assert!(t.get_for_share(1).unwrap().is_some());
    let other = db.begin(Isolation::ReadCommitted).unwrap();
    assert!(
        other
            .table("accounts")
            .unwrap()
            .get_for_share(1)
            .unwrap()
            .is_some()
    );
    other.commit().unwrap();
    drop(t);
    tx.commit().unwrap();
}

// Proves a database closes and reopens with its tables, and that
// open_or_create creates only once.
#[test]
fn close_and_reopen() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("db");
    let db = Database::open_or_create(&path, &options()).unwrap();
    db.transact(Isolation::ReadCommitted, |tx| {
        let t = tx.create_table(&accounts())?;
        t.insert((1i64, "a", 1i64))?;
        Ok(())
    })
    .unwrap();
    db.close().unwrap();
    let db = Database::open_or_create(&path, &options()).unwrap();
    let tx = db.begin(Isolation::ReadCommitted).unwrap();
    assert_eq!(tx.table("accounts").unwrap().len().unwrap(), 1);
    tx.commit().unwrap();
    db.verify().unwrap();
    drop(db);
    assert!(matches!(
        Database::create(&path, &options()),
        Err(Error::Internal { .. } | Error::InvalidInput { .. })
    ));
}
