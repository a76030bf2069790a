//! The catalog through the database: DDL is transactional (visible at
//! commit, gone on rollback, surviving a crash only when committed), names
//! are unique under concurrency, DDL on one table is serialised by its
//! lock, and bad definitions get PostgreSQL's SQLSTATEs.

mod common;

use common::*;
use folio_db::{ColumnDef, Database, Deferrable, Durability, Isolation, Options, Storage};
use folio_io::{SimConfig, SimDir};
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

const RC: Isolation = Isolation::ReadCommitted;
const SYNC: Durability = Durability::Sync;

fn columns() -> Vec<ColumnDef> {
    ["aid", "bid", "abalance"]
        .iter()
        .map(|name| ColumnDef {
            local: true,
            collation: None,
            name: name.to_string(),
            type_oid: 23,
            typmod: -1,
            not_null: *name == "aid",
        })
        .collect()
}

fn sim_db(seed: u64) -> Arc<Database> {
    Arc::new(
        Database::create_in(
            Storage::single(SimDir::new(SimConfig::seeded(seed))),
            small_options(),
        )
        .unwrap(),
    )
}

/// Columns `id int4 not null` and `name text`.
fn id_and_text(name: &str) -> [ColumnDef; 2] {
    use folio_row::SqlType;
    let column = |name: &str, ty: SqlType, not_null| ColumnDef {
        local: true,
        collation: None,
        name: name.into(),
        type_oid: ty.oid(),
        typmod: -1,
        not_null,
    };
    [
        column("id", SqlType::Int4, true),
        column(name, SqlType::Text, false),
    ]
}

// Proves a table created in a transaction is seen by that transaction at
// once, by others only after the commit, never after a rollback (and its
// name is free again), with its columns in order; and a dropped table
// stays visible to others until the drop commits.
#[test]
fn ddl_is_visible_at_commit_and_gone_on_rollback() {
    let db = sim_db(1);
    let cat = db.catalog();
    let mut t = db.begin(RC, SYNC).unwrap();
    let def = cat.create_table(&mut t, "accounts", &columns()).unwrap();
    assert_eq!(cat.table(&t, "accounts").unwrap().unwrap(), def);
    let mut other = db.begin(RC, SYNC).unwrap();
    assert!(cat.table(&other, "accounts").unwrap().is_none());
    t.commit().unwrap();
    other.next_statement();
    let seen = cat.table(&other, "accounts").unwrap().unwrap();
    assert_eq!(seen.columns, columns());
    assert_eq!(seen.column("abalance"), Some(2));

    let mut r = db.begin(RC, SYNC).unwrap();
    cat.create_table(&mut r, "tmp", &columns()).unwrap();
    r.rollback().unwrap();
    let mut t = db.begin(RC, SYNC).unwrap();
    assert!(cat.table(&t, "tmp").unwrap().is_none());
    cat.create_table(&mut t, "tmp", &columns()).unwrap();
    t.commit().unwrap();

    let mut d = db.begin(RC, SYNC).unwrap();
    cat.drop_table(&mut d, "tmp").unwrap();
    other.next_statement();
    assert!(
        cat.table(&other, "tmp").unwrap().is_some(),
        "drop not committed yet"
    );
    d.commit().unwrap();
    other.next_statement();
    assert!(cat.table(&other, "tmp").unwrap().is_none());
    let names: Vec<String> = cat
        .tables(&other)
        .unwrap()
        .into_iter()
        .map(|t| t.name)
        .collect();
    assert_eq!(names, vec!["accounts".to_string()]);
}

// Proves vacuum of the catalog's own tables removes the versions DDL left
// dead once no snapshot can see them, and only then: a REPEATABLE READ
// transaction from before a drop still finds the dropped table after a
// catalog vacuum; after it ends, repeated create/drop cycles keep the
// catalog's pages bounded when it is vacuumed between them, and what
// lives on is intact.
#[test]
fn catalog_vacuum_removes_what_ddl_left_dead() {
    let db = sim_db(7);
    let cat = db.catalog();
    let mut t = db.begin(RC, SYNC).unwrap();
    cat.create_table(&mut t, "kept", &columns()).unwrap();
    cat.create_table(&mut t, "gone", &columns()).unwrap();
    t.commit().unwrap();
    let old = db.begin(Isolation::RepeatableRead, SYNC).unwrap();
    assert!(cat.table(&old, "gone").unwrap().is_some());
    let mut d = db.begin(RC, SYNC).unwrap();
    cat.drop_table(&mut d, "gone").unwrap();
    d.commit().unwrap();
    folio_catalog::vacuum_catalog(cat, db.txns()).unwrap();
    assert!(
        cat.table(&old, "gone").unwrap().is_some(),
        "a snapshot from before the drop still sees the table's rows"
    );
    drop(old);
    let first = folio_catalog::vacuum_catalog(cat, db.txns()).unwrap();
    assert!(
        first.dead_line_pointers > 0 || first.index_entries_removed > 0,
        "{first:?}"
    );
    let mut pages = Vec::new();
    for cycle in 0..40 {
        let name = format!("t{cycle}");
        let mut t = db.begin(RC, SYNC).unwrap();
        cat.create_table(&mut t, &name, &columns()).unwrap();
        t.commit().unwrap();
        let mut t = db.begin(RC, SYNC).unwrap();
        cat.drop_table(&mut t, &name).unwrap();
        t.commit().unwrap();
        let stats = folio_catalog::vacuum_catalog(cat, db.txns()).unwrap();
        // The dropped table's class row and three attribute rows, with
        // their index entries.
        assert!(stats.index_entries_removed >= 4, "cycle {cycle}: {stats:?}");
        pages.push(stats.pages);
    }
    assert!(
        pages.iter().all(|&p| p <= first.pages + 1),
        "catalog pages over the cycles: {pages:?}"
    );
    let t = db.begin(RC, SYNC).unwrap();
    let names: Vec<String> = cat
        .tables(&t)
        .unwrap()
        .into_iter()
        .map(|t| t.name)
        .collect();
    assert_eq!(names, ["kept"]);
    assert_eq!(cat.table(&t, "kept").unwrap().unwrap().columns, columns());
    db.verify().unwrap();
}

// Proves bad DDL gets PostgreSQL's SQLSTATEs and leaves nothing behind:
// an existing name (42P07), a repeated column (42701), a name over 63
// bytes (42622), an index on a missing column (42703), a missing table
// (42P01); the transaction goes on afterwards.
#[test]
fn bad_ddl_is_refused_with_postgres_sqlstates() {
    let db = sim_db(2);
    let cat = db.catalog();
    let mut t = db.begin(RC, SYNC).unwrap();
    cat.create_table(&mut t, "a", &columns()).unwrap();
    let state = |e: folio_db::CatalogError| e.sqlstate().unwrap();
    assert_eq!(
        state(cat.create_table(&mut t, "a", &columns()).unwrap_err()),
        "42P07"
    );
    let mut twice = columns();
    twice.push(twice[0].clone());
    assert_eq!(
        state(cat.create_table(&mut t, "b", &twice).unwrap_err()),
        "42701"
    );
    assert_eq!(
        state(
            cat.create_table(&mut t, &"x".repeat(64), &columns())
                .unwrap_err()
        ),
        "42622"
    );
    assert_eq!(
        state(
            cat.create_index(&mut t, "a", "a_x", &["x"], false)
                .unwrap_err()
        ),
        "42703"
    );
    assert_eq!(state(cat.drop_table(&mut t, "nope").unwrap_err()), "42P01");
    let index = cat
        .create_index(&mut t, "a", "a_pkey", &["aid"], true)
        .unwrap();
    assert_eq!(index.columns, vec![0]);
    assert_eq!(
        state(
            cat.create_index(&mut t, "a", "a_pkey", &["bid"], false)
                .unwrap_err()
        ),
        "42P07"
    );
    t.commit().unwrap();
    let t = db.begin(RC, SYNC).unwrap();
    let a = cat.table(&t, "a").unwrap().unwrap();
    assert_eq!(a.indexes.len(), 1);
    assert!(
        cat.table(&t, "b").unwrap().is_none(),
        "the failed create left nothing"
    );
}

// Proves concurrent DDL is serialised, not lucky: a second CREATE TABLE
// of a name another transaction is creating waits for it, then fails
// with 42P07 if it committed (and succeeds after a rollback); a CREATE
// INDEX on a table another transaction is dropping waits for the drop and
// then fails with 42P01.
#[test]
fn concurrent_ddl_waits_for_the_first() {
    let db = sim_db(3);
    for first_commits in [true, false] {
        let name = if first_commits { "x" } else { "y" };
        let mut first = db.begin(RC, SYNC).unwrap();
        db.catalog()
            .create_table(&mut first, name, &columns())
            .unwrap();
        let db2 = db.clone();
        let second = std::thread::spawn(move || {
            let mut t = db2.begin(RC, SYNC).unwrap();
            let r = db2
                .catalog()
                .create_table(&mut t, name, &columns())
                .map(|_| ());
            if r.is_ok() {
                t.commit().unwrap();
            }
            r
        });
        std::thread::sleep(Duration::from_millis(50));
        assert!(!second.is_finished(), "the second creator waits");
        if first_commits {
            first.commit().unwrap();
            assert_eq!(
                second.join().unwrap().unwrap_err().sqlstate(),
                Some("42P07")
            );
        } else {
            first.rollback().unwrap();
            second.join().unwrap().unwrap();
        }
    }
    let mut dropper = db.begin(RC, SYNC).unwrap();
    db.catalog().drop_table(&mut dropper, "x").unwrap();
    let db2 = db.clone();
    let indexer = std::thread::spawn(move || {
        let mut t = db2.begin(RC, SYNC).unwrap();
        db2.catalog()
            .create_index(&mut t, "x", "x_aid", &["aid"], false)
            .map(|_| ())
    });
    std::thread::sleep(Duration::from_millis(50));
    assert!(!indexer.is_finished(), "DDL on a table being dropped waits");
    dropper.commit().unwrap();
    assert_eq!(
        indexer.join().unwrap().unwrap_err().sqlstate(),
        Some("42P01")
    );
}

// Proves the catalog survives a crash as the transactions left it: a
// committed table (with its index and rows in its heap) is there after
// reopening, a table whose transaction was running at the crash is not.
#[test]
fn committed_ddl_survives_a_crash_and_running_ddl_does_not() {
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("db");
    {
        let db = Database::create(&path, small_options()).unwrap();
        let cat = db.catalog();
        let mut t = db.begin(RC, SYNC).unwrap();
        let def = cat.create_table(&mut t, "kept", &columns()).unwrap();
        cat.create_index(&mut t, "kept", "kept_pkey", &["aid"], true)
            .unwrap();
        let heap = cat.open_table(&def).unwrap();
        heap.insert(&mut t, b"row").unwrap();
        t.commit().unwrap();
        let mut running = db.begin(RC, SYNC).unwrap();
        cat.create_table(&mut running, "lost", &columns()).unwrap();
        db.wal().flush_all().unwrap();
        std::mem::forget(running);
        drop(db);
    }
    let db = Database::open(&path, small_options()).unwrap();
    let t = db.begin(RC, SYNC).unwrap();
    let cat = db.catalog();
    let kept = cat.table(&t, "kept").unwrap().unwrap();
    assert_eq!(kept.indexes[0].name, "kept_pkey");
    let rows = cat.open_table(&kept).unwrap().scan(&t).unwrap();
    assert_eq!(rows.len(), 1);
    assert!(cat.table(&t, "lost").unwrap().is_none());
    drop(t);
    db.close().unwrap();
}

// Proves defaults, CHECK constraints and foreign keys are catalog rows:
// seen with their table, named by the tables they join, kept across a
// restart; a foreign key needs a unique index over the referenced columns
// (42830) or a primary key (42704); a referenced table cannot be dropped
// (2BP01) until the key is dropped; a dropped child leaves no key behind.
#[test]
fn constraints_are_kept_in_the_catalog() {
    use folio_db::{ConstraintKind, ForeignKeyRequest, RefAction};
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("db");
    let bid = ["bid".to_string()];
    let fk = |name, ref_columns| ForeignKeyRequest {
        name,
        columns: &bid,
        ref_table: "parent",
        ref_columns,
        on_delete: RefAction::NoAction,
        on_update: RefAction::NoAction,
        deferrable: folio_db::Deferrable::No,
        match_full: false,
        set_columns: &[],
    };
    {
        let db = Database::create(&path, small_options()).unwrap();
        let cat = db.catalog();
        let mut t = db.begin(RC, SYNC).unwrap();
        cat.create_table(&mut t, "parent", &columns()).unwrap();
        cat.create_table(&mut t, "child", &columns()).unwrap();
        let e = cat.add_foreign_key(&mut t, "child", &fk("child_bid_fkey", None));
        assert_eq!(e.unwrap_err().sqlstate(), Some("42704"));
        cat.add_primary_key(&mut t, "parent", None, (&["aid"], &[]), Deferrable::No)
            .unwrap();
        let e = cat.add_foreign_key(&mut t, "child", &fk("child_bid_fkey", Some(&bid[..])));
        assert_eq!(e.unwrap_err().sqlstate(), Some("42830"));
        cat.add_foreign_key(&mut t, "child", &fk("child_bid_fkey", None))
            .unwrap();
        let check = ConstraintKind::Check {
            expr: "abalance > 0".into(),
        };
        cat.add_constraint(&mut t, "child", "child_abalance_check", check.clone())
            .unwrap();
        let e = cat.add_constraint(&mut t, "child", "child_abalance_check", check);
        assert_eq!(e.unwrap_err().sqlstate(), Some("42710"));
        let default = ConstraintKind::Default {
            column: 2,
            expr: "0".into(),
        };
        cat.add_constraint(&mut t, "child", "", default).unwrap();
        t.commit().unwrap();
        db.close().unwrap();
    }
    let db = Database::open(&path, small_options()).unwrap();
    let cat = db.catalog();
    let mut t = db.begin(RC, SYNC).unwrap();
    let child = cat.table(&t, "child").unwrap().unwrap();
    let names: Vec<&str> = child.constraints.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["child_bid_fkey", "child_abalance_check", ""]);
    assert_eq!(child.default_of(2), Some("0"));
    let ConstraintKind::ForeignKey(key) = &child.constraints[0].kind else {
        panic!("a foreign key")
    };
    assert_eq!(
        (key.ref_table.as_str(), &key.ref_columns[..]),
        ("parent", &[0][..])
    );
    let parent = cat.table(&t, "parent").unwrap().unwrap();
    assert_eq!(parent.referenced_by.len(), 1);
    assert_eq!(parent.referenced_by[0].table, "child");
    let e = cat.drop_table(&mut t, "parent").unwrap_err();
    assert_eq!(e.sqlstate(), Some("2BP01"));
    t.rollback().unwrap();
    let mut t = db.begin(RC, SYNC).unwrap();
    cat.drop_table(&mut t, "child").unwrap();
    assert!(
        cat.table(&t, "parent")
            .unwrap()
            .unwrap()
            .referenced_by
            .is_empty()
    );
    cat.drop_table(&mut t, "parent").unwrap();
    t.commit().unwrap();
    db.close().unwrap();
}

mod relations {
    use super::*;
    use folio_db::Write;
    use folio_row::{SqlType, Value};

    fn column(name: &str, ty: SqlType, not_null: bool) -> ColumnDef {
        ColumnDef {
            local: true,
            collation: None,
            name: name.into(),
            type_oid: ty.oid(),
            typmod: ty.typmod(),
            not_null,
        }
    }

    /// pgbench's accounts: aid (NOT NULL), bid, abalance, filler char(4).
    fn account_columns() -> Vec<ColumnDef> {
        vec![
            column("aid", SqlType::Int4, true),
            column("bid", SqlType::Int4, false),
            column("abalance", SqlType::Int4, false),
            column("filler", SqlType::Char(4), false),
        ]
    }

    fn account(aid: i32, bid: i32, balance: i32) -> Vec<Value> {
        vec![
            Value::Int4(aid),
            Value::Int4(bid),
            Value::Int4(balance),
            Value::Text("x".into()),
        ]
    }

    // Proves rows through the catalog's relations: values are fitted and
    // checked (NOT NULL 23502, char(n) padding, varchar(n) 22001), every
    // index is kept in step (lookups by either index find the row), a
    // unique index refuses a duplicate (23505) and the refused row is seen
    // by nobody, an update of a non-indexed column is HOT (no new index
    // entries) while one of an indexed column adds entries, and CREATE
    // INDEX on a table with rows builds its entries; an index-only scan
    // returns decoded key columns.
    #[test]
    fn relations_keep_every_index_in_step() {
        let db = sim_db(5);
        let cat = db.catalog();
        let mut t = db.begin(RC, SYNC).unwrap();
        cat.create_table(&mut t, "accounts", &account_columns())
            .unwrap();
        let rel = cat.relation(&t, "accounts").unwrap().unwrap();
        for aid in 0..20 {
            rel.insert(&mut t, account(aid, aid % 2, 0)).unwrap();
        }
        cat.create_index(&mut t, "accounts", "accounts_pkey", &["aid"], true)
            .unwrap();
        cat.create_index(&mut t, "accounts", "accounts_bid", &["bid"], false)
            .unwrap();
        t.commit().unwrap();

        let mut t = db.begin(RC, SYNC).unwrap();
        let rel = cat.relation(&t, "accounts").unwrap().unwrap();
        assert_eq!(rel.indexes.len(), 2);
        let pkey = rel
            .indexes
            .iter()
            .position(|i| i.def.name == "accounts_pkey")
            .unwrap();
        let bid = 1 - pkey;
        let found = rel.lookup(&t, pkey, &[Value::Int4(7)]).unwrap();
        assert_eq!(found.len(), 1);
        assert_eq!(
            found[0].1[3],
            Value::Text("x   ".into()),
            "char(4) is padded"
        );
        assert_eq!(
            rel.lookup(&t, bid, &[Value::Int4(1)]).unwrap().len(),
            10,
            "built on existing rows"
        );

        let state = |e: folio_db::CatalogError| e.sqlstate().unwrap();
        let mut null_aid = account(0, 0, 0);
        null_aid[0] = Value::Null;
        assert_eq!(state(rel.insert(&mut t, null_aid).unwrap_err()), "23502");
        let mut long = account(100, 0, 0);
        long[3] = Value::Text("toolong".into());
        assert_eq!(state(rel.insert(&mut t, long).unwrap_err()), "22001");
        assert_eq!(
            state(rel.insert(&mut t, account(7, 5, 5)).unwrap_err()),
            "23505"
        );
        assert_eq!(
            rel.lookup(&t, bid, &[Value::Int4(5)]).unwrap().len(),
            0,
            "the refused row is seen by nobody"
        );
        assert_eq!(rel.scan(&t).unwrap().len(), 20);

        let entries = |i: usize| {
            rel.indexes[i]
                .index
                .tree()
                .count(std::ops::Bound::Unbounded, std::ops::Bound::Unbounded)
                .unwrap()
        };
        let before = (entries(0), entries(1));
        let (tid, old) = rel.lookup(&t, pkey, &[Value::Int4(3)]).unwrap().remove(0);
        let w = rel.update(&mut t, tid, &old, account(3, 1, 500)).unwrap();
        assert!(matches!(w, Write::Hot(_)), "{w:?}");
        assert_eq!((entries(0), entries(1)), before, "HOT: no new entries");
        let (tid, old) = rel.lookup(&t, pkey, &[Value::Int4(3)]).unwrap().remove(0);
        assert_eq!(old[2], Value::Int4(500));
        let w = rel.update(&mut t, tid, &old, account(3, 0, 500)).unwrap();
        assert!(matches!(w, Write::Done(Some(_))), "{w:?}");
        assert_eq!((entries(0), entries(1)), (before.0 + 1, before.1 + 1));
        t.commit().unwrap();
        let t = db.begin(RC, SYNC).unwrap();
        assert_eq!(rel.lookup(&t, bid, &[Value::Int4(0)]).unwrap().len(), 11);
        assert_eq!(rel.lookup(&t, bid, &[Value::Int4(1)]).unwrap().len(), 9);
        // An index-only scan returns the key columns, decoded, in order.
        let (aids, _) = rel
            .index_only(
                &t,
                pkey,
                std::ops::Bound::Unbounded,
                std::ops::Bound::Unbounded,
                folio_btree::Direction::Backward,
            )
            .unwrap();
        let expected: Vec<Vec<Value>> = (0..20).rev().map(|a| vec![Value::Int4(a)]).collect();
        assert_eq!(aids, expected);
    }

    // Proves table locks: CREATE INDEX waits for a running writer of its
    // table and then indexes the writer's row; a writer waits for a
    // running CREATE INDEX, and its relation opened before is refused as
    // stale (40001) so it writes through one that has the new index;
    // writers do not wait for each other; DROP TABLE waits for a writer.
    // Every index agrees with the heap afterwards.
    #[test]
    fn create_index_and_writers_of_its_table_wait_for_each_other() {
        let db = sim_db(21);
        let cat = db.catalog().clone();
        let mut t = db.begin(RC, SYNC).unwrap();
        cat.create_table(&mut t, "accounts", &account_columns())
            .unwrap();
        cat.create_index(&mut t, "accounts", "accounts_pkey", &["aid"], true)
            .unwrap();
        t.commit().unwrap();
        let insert = |t: &mut folio_db::Transaction, aid: i32| {
            let rel = db.catalog().relation(t, "accounts").unwrap().unwrap();
            rel.insert(t, account(aid, 7, 0)).unwrap();
        };

        // Two writers at once: no wait.
        let mut w1 = db.begin(RC, SYNC).unwrap();
        let mut w2 = db.begin(RC, SYNC).unwrap();
        insert(&mut w1, 1);
        insert(&mut w2, 2);
        w2.commit().unwrap();
        // CREATE INDEX waits for w1, then indexes its row.
        let creator = {
            let (db, cat) = (db.clone(), cat.clone());
            std::thread::spawn(move || {
                let mut t = db.begin(RC, SYNC).unwrap();
                cat.create_index(&mut t, "accounts", "accounts_bid", &["bid"], false)
                    .unwrap();
                t.commit().unwrap();
            })
        };
        std::thread::sleep(Duration::from_millis(50));
        assert!(!creator.is_finished(), "CREATE INDEX waits for the writer");
        w1.commit().unwrap();
        creator.join().unwrap();
        let t = db.begin(RC, SYNC).unwrap();
        let rel = cat.relation(&t, "accounts").unwrap().unwrap();
        let bid = rel
            .indexes
            .iter()
            .position(|i| i.def.name == "accounts_bid")
            .unwrap();
        assert_eq!(rel.lookup(&t, bid, &[Value::Int4(7)]).unwrap().len(), 2);
        drop(t);

        // A writer waits for a running CREATE INDEX.
        let mut creating = db.begin(RC, SYNC).unwrap();
        cat.create_index(
            &mut creating,
            "accounts",
            "accounts_bal",
            &["abalance"],
            false,
        )
        .unwrap();
        let writer = {
            let db = db.clone();
            std::thread::spawn(move || {
                let mut t = db.begin(RC, SYNC).unwrap();
                // Opened before the index commits: stale once the wait ends.
                let rel = db.catalog().relation(&t, "accounts").unwrap().unwrap();
                let stale = rel.insert(&mut t, account(3, 7, 0)).unwrap_err();
                assert_eq!(stale.sqlstate(), Some("40001"), "{stale}");
                t.next_statement();
                let rel = db.catalog().relation(&t, "accounts").unwrap().unwrap();
                assert_eq!(rel.indexes.len(), 3, "opened again: the new index");
                rel.insert(&mut t, account(3, 7, 0)).unwrap();
                t.commit().unwrap();
            })
        };
        std::thread::sleep(Duration::from_millis(50));
        assert!(!writer.is_finished(), "the writer waits for CREATE INDEX");
        creating.commit().unwrap();
        writer.join().unwrap();

        // DROP TABLE waits for a writer.
        let mut w = db.begin(RC, SYNC).unwrap();
        insert(&mut w, 4);
        let dropper = {
            let (db, cat) = (db.clone(), cat.clone());
            std::thread::spawn(move || {
                let mut t = db.begin(RC, SYNC).unwrap();
                cat.drop_table(&mut t, "accounts").unwrap();
                t.rollback().unwrap();
            })
        };
        std::thread::sleep(Duration::from_millis(50));
        assert!(!dropper.is_finished(), "DROP TABLE waits for the writer");
        w.commit().unwrap();
        dropper.join().unwrap();
        for (name, check) in db.verify_tables().unwrap() {
            check.unwrap_or_else(|e| panic!("{name}: {e}"));
        }
    }

    // Proves the heap-and-index check (amcheck's heapallindexed, run by
    // `Database::verify`) accepts a table after inserts, HOT and key
    // updates, deletes, a refused unique insert, a rolled-back insert and
    // vacuum; and reports, naming the index, a row whose entry is missing
    // and an entry that points at no row.
    #[test]
    fn verify_checks_heap_and_indexes_agree_both_ways() {
        let db = sim_db(6);
        let cat = db.catalog();
        let mut t = db.begin(RC, SYNC).unwrap();
        cat.create_table(&mut t, "accounts", &account_columns())
            .unwrap();
        cat.create_index(&mut t, "accounts", "accounts_pkey", &["aid"], true)
            .unwrap();
        cat.create_index(&mut t, "accounts", "accounts_bid", &["bid"], false)
            .unwrap();
        let rel = cat.relation(&t, "accounts").unwrap().unwrap();
        for aid in 0..300 {
            rel.insert(&mut t, account(aid, aid % 7, 0)).unwrap();
        }
        t.commit().unwrap();
        let pkey = rel
            .indexes
            .iter()
            .position(|i| i.def.name == "accounts_pkey")
            .unwrap();
        let mut t = db.begin(RC, SYNC).unwrap();
        for aid in 0..100 {
            let (tid, old) = rel.lookup(&t, pkey, &[Value::Int4(aid)]).unwrap().remove(0);
            // HOT for even ids (balance only), a new key for odd ones.
            let bid = if aid % 2 == 0 { aid % 7 } else { 100 + aid };
            rel.update(&mut t, tid, &old, account(aid, bid, 1)).unwrap();
        }
        for aid in 100..150 {
            let (tid, _) = rel.lookup(&t, pkey, &[Value::Int4(aid)]).unwrap().remove(0);
            rel.delete(&mut t, tid).unwrap();
        }
        assert!(rel.insert(&mut t, account(200, 1, 1)).is_err(), "23505");
        t.commit().unwrap();
        let mut r = db.begin(RC, SYNC).unwrap();
        rel.insert(&mut r, account(1000, 1, 1)).unwrap();
        r.rollback().unwrap();

        let t = db.begin(RC, SYNC).unwrap();
        let check = rel.check_indexes(&t).unwrap();
        assert_eq!(check.rows, 250);
        assert!(check.entries >= 2 * 250, "{check:?}");
        let indexes: Vec<&folio_heap::Index> = rel.indexes.iter().map(|i| &i.index).collect();
        rel.table.vacuum(db.txns(), &indexes).unwrap();
        let after = rel.check_indexes(&t).unwrap();
        assert_eq!(after.rows, 250);
        assert!(after.entries < check.entries, "vacuum removed entries");
        db.verify().unwrap();

        // An entry pointing past a page's items, in the non-unique index.
        let bid_index = &rel.indexes[1 - pkey];
        let (tid, values) = rel.lookup(&t, pkey, &[Value::Int4(250)]).unwrap().remove(0);
        let bogus = folio_heap::Tid {
            page: tid.page,
            item: folio_page::ItemId(290),
        };
        let bid_key = bid_index
            .key(&values)
            .unwrap()
            .expect("a plain index holds every row");
        let mut w = db.begin(RC, SYNC).unwrap();
        bid_index
            .index
            .insert(&mut w, &rel.table, &bid_key, bogus)
            .unwrap();
        w.commit().unwrap();
        let mismatch = |e: folio_db::CatalogError| match e {
            folio_db::CatalogError::IndexMismatch { index, detail } => (index, detail),
            other => panic!("{other:?}"),
        };
        let (index, detail) = mismatch(rel.check_indexes(&t).unwrap_err());
        assert_eq!(index, "accounts_bid");
        assert!(detail.contains("holds no row"), "{detail}");
        assert!(bid_index.index.remove(&bid_key, bogus).unwrap());
        rel.check_indexes(&t).unwrap();

        // A row whose primary-key entry is gone.
        let key = rel.indexes[pkey]
            .key(&values)
            .unwrap()
            .expect("a plain index holds every row");
        assert!(rel.indexes[pkey].index.remove(&key, tid).unwrap());
        let (index, detail) = mismatch(rel.check_indexes(&t).unwrap_err());
        assert_eq!(index, "accounts_pkey");
        assert!(detail.contains("has no entry"), "{detail}");
        assert!(db.verify().is_err());
    }
}

mod autovacuum {
    use super::*;
    use folio_catalog::{AutovacuumConfig, autovacuum_pass};
    use folio_row::{SqlType, Value};

    fn churn(db: &Database, rounds: i32) {
        let cat = db.catalog();
        for round in 0..rounds {
            let mut t = db.begin(RC, SYNC).unwrap();
            let rel = cat.relation(&t, "t").unwrap().unwrap();
            for (tid, old) in rel.scan(&t).unwrap() {
                let mut new = old.clone();
                new[1] = Value::Int4(round);
                rel.update(&mut t, tid, &old, new).unwrap();
            }
            t.commit().unwrap();
        }
    }

    fn setup(db: &Database) {
        let cat = db.catalog();
        let mut t = db.begin(RC, SYNC).unwrap();
        let int = |name: &str| ColumnDef {
            local: true,
            collation: None,
            name: name.into(),
            type_oid: SqlType::Int4.oid(),
            typmod: -1,
            not_null: false,
        };
        cat.create_table(&mut t, "t", &[int("id"), int("v")])
            .unwrap();
        cat.create_index(&mut t, "t", "t_v", &["v"], false).unwrap();
        let rel = cat.relation(&t, "t").unwrap().unwrap();
        for id in 0..10 {
            rel.insert(&mut t, vec![Value::Int4(id), Value::Int4(-1)])
                .unwrap();
        }
        t.commit().unwrap();
    }

    fn entries(db: &Database) -> u64 {
        let t = db.begin(RC, SYNC).unwrap();
        let rel = db.catalog().relation(&t, "t").unwrap().unwrap();
        rel.indexes[0]
            .index
            .tree()
            .count(std::ops::Bound::Unbounded, std::ops::Bound::Unbounded)
            .unwrap()
    }

    // Proves the trigger: a pass vacuums a table only once its dead
    // versions reach 50 + 0.2 * versions (30 dead: no; 200 dead: yes,
    // removing the dead versions' index entries), and the count starts
    // again from zero.
    #[test]
    fn a_pass_vacuums_tables_past_the_threshold() {
        let db = sim_db(6);
        setup(&db);
        let config = AutovacuumConfig::default();
        churn(&db, 3);
        let pass = autovacuum_pass(db.catalog(), db.txns(), &config).unwrap();
        assert_eq!(
            (pass.tables, pass.vacuumed),
            (1, 0),
            "30 dead versions: below 50"
        );
        churn(&db, 17);
        assert_eq!(entries(&db), 10 * 21);
        let pass = autovacuum_pass(db.catalog(), db.txns(), &config).unwrap();
        assert_eq!(pass.vacuumed, 1);
        assert_eq!(pass.index_entries_removed, 10 * 20);
        assert_eq!(entries(&db), 10);
        let pass = autovacuum_pass(db.catalog(), db.txns(), &config).unwrap();
        assert_eq!(pass.vacuumed, 0, "the count started again");
    }

    // Proves the background thread runs passes on its own and vacuums an
    // update-heavy table without being asked: of the 200 dead versions'
    // index entries, it removes at least those past the threshold (a
    // bounded wait for the outcome; no timing is asserted).
    #[test]
    fn the_background_thread_vacuums_on_its_own() {
        let tmp = tempfile::tempdir().unwrap();
        let db = Database::create(
            tmp.path().join("db"),
            Options {
                autovacuum: true,
                autovacuum_naptime: Duration::from_millis(20),
                ..small_options()
            },
        )
        .unwrap();
        setup(&db);
        churn(&db, 20);
        let deadline = std::time::Instant::now() + Duration::from_secs(30);
        // Whatever the interleaving, at most 50 + 0.2 * versions dead
        // versions stay unvacuumed.
        // (versions <= 210, so the threshold is at most 50 + 42).
        let settled = || entries(&db) <= 10 + 50 + 42;
        while !settled() && std::time::Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(20));
        }
        assert!(settled(), "{} index entries left", entries(&db));
        assert!(db.autovacuum().unwrap().passes() > 0);
        assert_eq!(db.autovacuum().unwrap().last_error(), None);
        db.close().unwrap();
    }

    // Proves a restart keeps the counts autovacuum decides by
    // (`table_activity`): a table of 1,000 versions with 100 dead is
    // below 50 + 0.2 * 1,000 after a restart as before it. Before the file,
    // a restart forgot the versions and the first pass vacuumed any table
    // with 50 dead versions, however large.
    #[test]
    fn a_restart_keeps_the_counts_autovacuum_decides_by() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("db");
        let options = || Options {
            autovacuum: true,
            autovacuum_naptime: Duration::from_secs(3600),
            ..small_options()
        };
        let db = Database::create(&path, options()).unwrap();
        setup(&db);
        let cat = db.catalog();
        let mut t = db.begin(RC, SYNC).unwrap();
        let rel = cat.relation(&t, "t").unwrap().unwrap();
        for id in 10..1000 {
            rel.insert(&mut t, vec![Value::Int4(id), Value::Int4(-1)])
                .unwrap();
        }
        t.commit().unwrap();
        folio_catalog::vacuum(cat, &rel, db.txns())
            .unwrap()
            .unwrap();
        let oid = rel.def.oid;
        assert_eq!(cat.activity(oid).versions.load(Ordering::Relaxed), 1000);
        db.close().unwrap();

        let db = Database::open(&path, options()).unwrap();
        let cat = db.catalog();
        assert_eq!(cat.activity(oid).versions.load(Ordering::Relaxed), 1000);
        let mut t = db.begin(RC, SYNC).unwrap();
        let rel = cat.relation(&t, "t").unwrap().unwrap();
        for (tid, old) in rel.scan(&t).unwrap().into_iter().take(100) {
            let mut new = old.clone();
            new[1] = Value::Int4(0);
            rel.update(&mut t, tid, &old, new).unwrap();
        }
        t.commit().unwrap();
        let config = AutovacuumConfig::default();
        let pass = autovacuum_pass(cat, db.txns(), &config).unwrap();
        assert_eq!(pass.vacuumed, 0, "100 dead of 1,000: below 250");
        db.close().unwrap();
    }

    /// A database at `path` whose table `t` (`setup`) holds ids 0 to
    /// `rows - 1`, `v` being `id % modulus` from 10 on; and `t`.
    fn on_disk_with_rows(
        path: &std::path::Path,
        rows: i32,
        modulus: i32,
    ) -> (Database, folio_catalog::Relation) {
        let db = Database::create(path, small_options()).unwrap();
        setup(&db);
        let mut t = db.begin(RC, SYNC).unwrap();
        let rel = db.catalog().relation(&t, "t").unwrap().unwrap();
        for id in 10..rows {
            rel.insert(&mut t, vec![Value::Int4(id), Value::Int4(id % modulus)])
                .unwrap();
        }
        t.commit().unwrap();
        (db, rel)
    }

    // Proves ANALYZE's statistics outlive a restart (`table_statistics`),
    // as PostgreSQL's pg_statistic does: the reopened table has the same
    // row estimate, histogram and most common values. Before, a restart
    // forgot them and the planner went back to its rules.
    #[test]
    fn a_restart_keeps_analyze_statistics() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("db");
        let (db, rel) = on_disk_with_rows(&path, 500, 3);
        let cat = db.catalog();
        let t = db.begin(RC, SYNC).unwrap();
        let stats = cat.analyze(&rel, &t).unwrap();
        assert_eq!(stats.rows, 500.0);
        assert!(!stats.columns[1].mcv.is_empty(), "v repeats: {stats:?}");
        assert!(!stats.columns[0].histogram.is_empty(), "id is unique");
        drop(t);
        db.close().unwrap();

        let db = Database::open(&path, small_options()).unwrap();
        let t = db.begin(RC, SYNC).unwrap();
        let rel = db.catalog().relation(&t, "t").unwrap().unwrap();
        assert_eq!(rel.statistics().as_deref(), Some(&*stats));
        drop(t);
        db.close().unwrap();
    }

    // Proves a table's all-visible bits and pages with room outlive a
    // clean restart (`table_maps`) and only a clean one: after a stop the
    // reopened table has the bits vacuum set and the pages it freed; after
    // a crash that followed a logged change (the WAL now ends past where
    // the file was saved) it has neither, though the file is still there;
    // a vacuum and a clean stop keep them again.
    #[test]
    fn a_clean_restart_keeps_the_tables_maps_and_a_crash_does_not() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("db");
        let (db, rel) = on_disk_with_rows(&path, 2000, 7);
        let mut t = db.begin(RC, SYNC).unwrap();
        for (tid, _) in rel.scan(&t).unwrap().into_iter().take(600) {
            rel.delete(&mut t, tid).unwrap();
        }
        t.commit().unwrap();
        folio_catalog::vacuum(db.catalog(), &rel, db.txns())
            .unwrap()
            .unwrap();
        let maps = |db: &Database, def| {
            let heap = db.catalog().open_table(def).unwrap();
            (heap.visibility_map().words(), heap.free_pages())
        };
        let vacuumed = maps(&db, &rel.def);
        assert!(!vacuumed.0.is_empty(), "vacuum set the bits");
        assert!(vacuumed.1.len() > 1, "vacuum freed pages: {vacuumed:?}");
        db.close().unwrap();
        assert!(path.join(folio_catalog::TABLE_MAPS_FILE).exists());

        // A clean restart: the same maps.
        let db = Database::open(&path, small_options()).unwrap();
        assert_eq!(maps(&db, &rel.def), vacuumed);
        // A logged change, then a crash (no stop: nothing saved again).
        let mut t = db.begin(RC, SYNC).unwrap();
        let rel = db.catalog().relation(&t, "t").unwrap().unwrap();
        let (tid, old) = rel.scan(&t).unwrap().into_iter().next().unwrap();
        let mut new = old.clone();
        new[1] = Value::Int4(100);
        rel.update(&mut t, tid, &old, new).unwrap();
        t.commit().unwrap();
        db.wal().flush_all().unwrap();
        drop(db);

        let db = Database::open(&path, small_options()).unwrap();
        assert!(path.join(folio_catalog::TABLE_MAPS_FILE).exists());
        let nothing = (vec![], vec![]);
        assert_eq!(maps(&db, &rel.def), nothing, "saved before the change");
        let t = db.begin(RC, SYNC).unwrap();
        let rel = db.catalog().relation(&t, "t").unwrap().unwrap();
        assert_eq!(rel.scan(&t).unwrap().len(), 1400);
        drop(t);
        folio_catalog::vacuum(db.catalog(), &rel, db.txns())
            .unwrap()
            .unwrap();
        let again = maps(&db, &rel.def);
        assert!(!again.0.is_empty() && !again.1.is_empty(), "{again:?}");
        db.close().unwrap();
        let db = Database::open(&path, small_options()).unwrap();
        assert_eq!(maps(&db, &rel.def), again);
        db.close().unwrap();
    }
}

mod toast {
    use super::*;
    use folio_catalog::{AutovacuumConfig, autovacuum_pass};
    use folio_row::{SqlType, Value};

    fn big_text(mb: usize, seed: u8) -> String {
        (0..mb << 20)
            .map(|i| (b'a' + ((i as u8) ^ seed) % 26) as char)
            .collect()
    }

    // Proves rows with values far larger than a page: a text of
    // `FOLIO_TOAST_MB` MB (default 4; 100 runs in release) and a 1 MB bytea
    // are stored out of line and read back whole, only by snapshots that
    // see the row; an update keeps the old value for the old snapshot and
    // gives the new one to later ones; after a delete and autovacuum, the
    // chunks are freed (the toast index shrinks back).
    #[test]
    fn values_larger_than_a_page_are_stored_out_of_line() {
        let mb: usize = std::env::var("FOLIO_TOAST_MB")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(4);
        let db = Database::create_in(
            Storage::single(SimDir::new(SimConfig::seeded(7))),
            Options {
                pool_size_bytes: 32 << 20,
                max_database_bytes: ((mb as u64 * 3) << 20) + (64 << 20),
                ..small_options()
            },
        )
        .unwrap();
        let cat = db.catalog();
        let col = |name: &str, ty: SqlType| ColumnDef {
            local: true,
            collation: None,
            name: name.into(),
            type_oid: ty.oid(),
            typmod: ty.typmod(),
            not_null: false,
        };
        let mut t = db.begin(RC, SYNC).unwrap();
        cat.create_table(
            &mut t,
            "docs",
            &[
                col("id", SqlType::Int4),
                col("body", SqlType::Text),
                col("data", SqlType::Bytea),
            ],
        )
        .unwrap();
        cat.create_index(&mut t, "docs", "docs_pkey", &["id"], true)
            .unwrap();
        let rel = cat.relation(&t, "docs").unwrap().unwrap();
        let body = big_text(mb, 1);
        let data: Vec<u8> = (0..1 << 20).map(|i| (i * 7) as u8).collect();
        rel.insert(
            &mut t,
            vec![
                Value::Int4(1),
                Value::Text(body.clone()),
                Value::Bytea(data.clone()),
            ],
        )
        .unwrap();
        let before = db.begin(RC, SYNC).unwrap();
        t.commit().unwrap();
        assert!(
            rel.lookup(&before, 0, &[Value::Int4(1)])
                .unwrap()
                .is_empty()
        );
        let mut old = db.begin(Isolation::RepeatableRead, SYNC).unwrap();
        let found = rel.lookup(&old, 0, &[Value::Int4(1)]).unwrap();
        assert_eq!(found[0].1[1], Value::Text(body.clone()), "read back whole");
        assert_eq!(found[0].1[2], Value::Bytea(data.clone()));
        assert!(
            rel.table.page_ids().unwrap().len() == 1,
            "the row itself is small"
        );

        let mut u = db.begin(RC, SYNC).unwrap();
        let (tid, row) = rel.lookup(&u, 0, &[Value::Int4(1)]).unwrap().remove(0);
        let body2 = big_text(1, 2);
        rel.update(
            &mut u,
            tid,
            &row,
            vec![Value::Int4(1), Value::Text(body2.clone()), Value::Null],
        )
        .unwrap();
        u.commit().unwrap();
        old.next_statement();
        assert_eq!(
            rel.lookup(&old, 0, &[Value::Int4(1)]).unwrap()[0].1[1],
            Value::Text(body),
            "the old snapshot"
        );
        drop(old);
        let now = db.begin(RC, SYNC).unwrap();
        let row = rel.lookup(&now, 0, &[Value::Int4(1)]).unwrap().remove(0);
        assert_eq!(row.1[1], Value::Text(body2));
        assert_eq!(row.1[2], Value::Null);
        drop(now);

        let mut d = db.begin(RC, SYNC).unwrap();
        rel.delete(&mut d, row.0).unwrap();
        d.commit().unwrap();
        drop(before);
        let pass = autovacuum_pass(cat, db.txns(), &AutovacuumConfig::default()).unwrap();
        assert!(
            pass.index_entries_removed
                >= ((mb + 2) << 20) as u64 / folio_catalog::CHUNK_BYTES as u64,
            "{pass:?}"
        );
    }
}

mod toast_of_numerics {
    use super::*;
    use folio_catalog::{AutovacuumConfig, autovacuum_pass};
    use folio_db::Transaction;
    use folio_row::{Numeric, SqlType, Value};

    // Proves long numerics are stored out of line as text is: a row with
    // a number of 20,000 digits (10 KB inline) is stored, its number in
    // chunks, and read back exactly; an update to a short number and a
    // delete delete the chunks, which an old snapshot still reads until
    // it ends and autovacuum frees them; a rolled-back insert leaves
    // nothing visible; DROP TABLE deletes the rest.
    #[test]
    fn long_numerics_are_stored_out_of_line_and_freed() {
        let db = sim_db(12);
        let cat = db.catalog();
        let columns = [
            ColumnDef {
                local: true,
                collation: None,
                name: "id".into(),
                type_oid: SqlType::Int4.oid(),
                typmod: -1,
                not_null: true,
            },
            ColumnDef {
                local: true,
                collation: None,
                name: "v".into(),
                type_oid: SqlType::Numeric(None).oid(),
                typmod: -1,
                not_null: false,
            },
        ];
        let long = |id: i32| {
            let digits: String = (0..20_000)
                .map(|i| char::from(b'1' + ((i + id) % 9) as u8))
                .collect();
            Value::Numeric(Numeric::parse(&format!("-{digits}.{id}")).unwrap())
        };
        let chunks = |t: &Transaction| cat.toast_table().scan(t).unwrap().len();
        let mut t = db.begin(RC, SYNC).unwrap();
        cat.create_table(&mut t, "nums", &columns).unwrap();
        let rel = cat.relation(&t, "nums").unwrap().unwrap();
        for id in 0..4 {
            rel.insert(&mut t, vec![Value::Int4(id), long(id)]).unwrap();
        }
        t.commit().unwrap();
        let per_value = chunks(&db.begin(RC, SYNC).unwrap()) / 4;
        assert!(per_value >= 4, "{per_value} chunks a value");
        assert_eq!(rel.table.page_ids().unwrap().len(), 1, "the rows are small");
        let read = |t: &Transaction| {
            let mut rows = rel.scan(t).unwrap();
            rows.sort_by_key(|(_, v)| format!("{:?}", v[0]));
            rows
        };
        for (_, v) in read(&db.begin(RC, SYNC).unwrap()) {
            let Value::Int4(id) = v[0] else { panic!() };
            let (Value::Numeric(got), Value::Numeric(want)) = (&v[1], long(id)) else {
                panic!("{v:?}")
            };
            assert_eq!(got.to_string(), want.to_string(), "read back exactly");
        }

        let mut r = db.begin(RC, SYNC).unwrap();
        rel.insert(&mut r, vec![Value::Int4(9), long(9)]).unwrap();
        r.rollback().unwrap();
        let old = db.begin(Isolation::RepeatableRead, SYNC).unwrap();
        let mut u = db.begin(RC, SYNC).unwrap();
        let rows = read(&u);
        assert_eq!(rows.len(), 4, "the rolled-back row is not seen");
        let short = Value::Numeric(Numeric::parse("1.5").unwrap());
        rel.update(
            &mut u,
            rows[0].0,
            &rows[0].1,
            vec![Value::Int4(0), short.clone()],
        )
        .unwrap();
        rel.delete(&mut u, rows[1].0).unwrap();
        u.commit().unwrap();
        assert_eq!(chunks(&db.begin(RC, SYNC).unwrap()), 2 * per_value);
        // Vacuum whatever is dead (a few chunks are below the default
        // thresholds).
        let config = AutovacuumConfig {
            threshold: 0,
            scale_factor: 0.0,
            ..AutovacuumConfig::default()
        };
        let first = autovacuum_pass(cat, db.txns(), &config).unwrap();
        assert_eq!(read(&old)[0].1[1], long(0), "the old snapshot's value");
        drop(old);
        let second = autovacuum_pass(cat, db.txns(), &config).unwrap();
        let removed = first.index_entries_removed + second.index_entries_removed;
        assert!(removed >= 3 * per_value as u64, "{first:?} {second:?}");
        let now = read(&db.begin(RC, SYNC).unwrap());
        assert_eq!(now.len(), 3);
        assert_eq!(now[0].1[1], short);

        let mut d = db.begin(RC, SYNC).unwrap();
        cat.drop_table(&mut d, "nums").unwrap();
        d.commit().unwrap();
        assert_eq!(chunks(&db.begin(RC, SYNC).unwrap()), 0, "dropped");
        db.verify().unwrap();
    }
}

mod index_builds {
    use super::*;
    use folio_catalog::{CatalogError, DEFAULT_INDEX_BUILD_MEMORY};
    use folio_row::Value;

    // Proves an index build gives the same index whether it sorts its
    // entries and builds bottom-up (the default memory) or, past its memory
    // (1 KB here), inserts one entry per row: every row found through the
    // index, amcheck's both-way check passes, NULL keys do not conflict in a
    // unique index, and a duplicate non-NULL key fails the build (23505)
    // either way, leaving no index behind.
    #[test]
    fn bottom_up_and_insert_builds_agree() {
        for memory in [DEFAULT_INDEX_BUILD_MEMORY, 1_000] {
            let db = sim_db(21);
            let cat = db.catalog();
            cat.set_index_build_memory(memory);
            let columns = id_and_text("v");
            let value = |id: i32| match id % 10 {
                0 => Value::Null,
                _ => Value::Text(format!("value {:>6}", (id * 7919) % 3000)),
            };
            let mut t = db.begin(RC, SYNC).unwrap();
            cat.create_table(&mut t, "t", &columns).unwrap();
            let rel = cat.relation(&t, "t").unwrap().unwrap();
            for id in 0..3_000 {
                rel.insert(&mut t, vec![Value::Int4(id), value(id)])
                    .unwrap();
            }
            t.commit().unwrap();

            let mut t = db.begin(RC, SYNC).unwrap();
            cat.create_index(&mut t, "t", "t_v", &["v"], true).unwrap();
            cat.create_index(&mut t, "t", "t_id", &["id"], false)
                .unwrap();
            t.commit().unwrap();
            let t = db.begin(RC, SYNC).unwrap();
            let rel = cat.relation(&t, "t").unwrap().unwrap();
            let check = rel.check_indexes(&t).unwrap();
            assert_eq!((check.rows, check.entries), (3_000, 6_000), "{memory}");
            for id in (1..3_000).step_by(7) {
                let found = rel.lookup(&t, 0, &[value(id)]).unwrap();
                let by_id = rel.lookup(&t, 1, &[Value::Int4(id)]).unwrap();
                if id % 10 != 0 {
                    assert_eq!(found.len(), 1, "{memory} {id}");
                }
                assert_eq!(by_id.len(), 1, "{memory} {id}");
            }
            drop(rel);
            drop(t);

            let mut t = db.begin(RC, SYNC).unwrap();
            let rel = cat.relation(&t, "t").unwrap().unwrap();
            // A second row with value(1)'s key, entered without the unique
            // index (dropped first), then the unique build refused.
            drop(rel);
            cat.drop_index(&mut t, "t_v").unwrap();
            let rel = cat.relation(&t, "t").unwrap().unwrap();
            rel.insert(&mut t, vec![Value::Int4(9_999), value(1)])
                .unwrap();
            drop(rel);
            let e = cat
                .create_index(&mut t, "t", "t_v2", &["v"], true)
                .unwrap_err();
            assert!(
                matches!(&e, CatalogError::Duplicated { index, .. } if index == "t_v2"),
                "{memory}: {e:?}"
            );
            assert!(cat.relation(&t, "t").unwrap().unwrap().indexes.len() == 1);
            t.rollback().unwrap();
            db.verify().unwrap();
        }
    }

    // Proves an index built over rows updated HOT points at their chains'
    // roots (not at the heap-only versions, which pruning frees while the
    // chain lives on): amcheck passes and every row is found, both after
    // the build and after more HOT updates. Failed before the build read
    // rows by chain root (folio-heap `page_chain_rows`).
    #[test]
    fn an_index_built_over_hot_chains_points_at_their_roots() {
        for memory in [DEFAULT_INDEX_BUILD_MEMORY, 1_000] {
            let db = sim_db(22);
            let cat = db.catalog();
            cat.set_index_build_memory(memory);
            let mut t = db.begin(RC, SYNC).unwrap();
            cat.create_table(&mut t, "t", &id_and_text("v")).unwrap();
            let rel = cat.relation(&t, "t").unwrap().unwrap();
            for id in 0..50 {
                rel.insert(&mut t, vec![Value::Int4(id), Value::Null])
                    .unwrap();
            }
            t.commit().unwrap();
            // No index yet: every update is HOT.
            let update = |version: i32| {
                let mut t = db.begin(RC, SYNC).unwrap();
                let rel = cat.relation(&t, "t").unwrap().unwrap();
                for (tid, row) in rel.scan(&t).unwrap() {
                    let new = vec![row[0].clone(), Value::Text(format!("v{version}"))];
                    rel.update(&mut t, tid, &row, new).unwrap();
                }
                t.commit().unwrap();
            };
            update(1);
            let mut t = db.begin(RC, SYNC).unwrap();
            cat.create_index(&mut t, "t", "t_id", &["id"], true)
                .unwrap();
            t.commit().unwrap();
            for version in [0, 2, 3] {
                if version > 0 {
                    update(version);
                }
                let t = db.begin(RC, SYNC).unwrap();
                let rel = cat.relation(&t, "t").unwrap().unwrap();
                let check = rel.check_indexes(&t).unwrap();
                assert_eq!(check.rows, 50, "{memory}");
                for id in 0..50 {
                    let found = rel.lookup(&t, 0, &[Value::Int4(id)]).unwrap();
                    assert_eq!(found.len(), 1, "{memory} {id}");
                }
            }
            db.verify().unwrap();
        }
    }
}

mod toast_of_dropped {
    use super::*;
    use folio_catalog::{AutovacuumConfig, autovacuum_pass};
    use folio_db::Transaction;
    use folio_row::Value;

    // Proves a dropped table's out-of-line values go with it: a drop
    // rolled back keeps them readable; a committed drop deletes them in
    // its transaction, so a REPEATABLE READ transaction from before the
    // drop still reads them whole while autovacuum frees nothing of
    // theirs, and once it ends autovacuum removes every chunk's index entry;
    // another table's values stay.
    #[test]
    fn a_dropped_tables_values_are_freed_after_its_readers() {
        let db = sim_db(11);
        let cat = db.catalog();
        let columns = id_and_text("body");
        let body = |id: i32| format!("{id:>5}").repeat(2_000);
        let mut t = db.begin(RC, SYNC).unwrap();
        for name in ["gone", "stays"] {
            cat.create_table(&mut t, name, &columns).unwrap();
            let rel = cat.relation(&t, name).unwrap().unwrap();
            for id in 0..20 {
                rel.insert(&mut t, vec![Value::Int4(id), Value::Text(body(id))])
                    .unwrap();
            }
        }
        t.commit().unwrap();
        // 20 rows of 10,000 bytes: 6 chunks each, per table.
        let chunks = |t: &Transaction| cat.toast_table().scan(t).unwrap().len();
        let read_all = |t: &Transaction, name: &str| {
            let rel = cat.relation(t, name).unwrap().unwrap();
            let mut rows = rel.scan(t).unwrap();
            rows.sort_by_key(|(_, v)| format!("{:?}", v[0]));
            assert_eq!(rows.len(), 20, "{name}");
            for (_, v) in rows {
                let Value::Int4(id) = v[0] else { panic!() };
                assert_eq!(v[1], Value::Text(body(id)), "{name} {id}");
            }
        };
        assert_eq!(chunks(&db.begin(RC, SYNC).unwrap()), 240);

        let mut t = db.begin(RC, SYNC).unwrap();
        cat.drop_table(&mut t, "gone").unwrap();
        t.rollback().unwrap();
        read_all(&db.begin(RC, SYNC).unwrap(), "gone");

        let old = db.begin(Isolation::RepeatableRead, SYNC).unwrap();
        read_all(&old, "gone");
        let mut t = db.begin(RC, SYNC).unwrap();
        cat.drop_table(&mut t, "gone").unwrap();
        t.commit().unwrap();
        assert_eq!(chunks(&db.begin(RC, SYNC).unwrap()), 120, "deleted");
        let config = AutovacuumConfig::default();
        autovacuum_pass(cat, db.txns(), &config).unwrap();
        read_all(&old, "gone");
        drop(old);
        let pass = autovacuum_pass(cat, db.txns(), &config).unwrap();
        assert!(pass.index_entries_removed >= 120, "{pass:?}");
        read_all(&db.begin(RC, SYNC).unwrap(), "stays");
        assert_eq!(chunks(&db.begin(RC, SYNC).unwrap()), 120);
        db.verify().unwrap();
    }
}

mod space {
    use super::*;
    use folio_catalog::{AutovacuumConfig, autovacuum_pass};
    use folio_row::{SqlType, Value};

    // Proves inserts reuse space: 50 transactions that each open the table
    // and insert one row fill one page, not 50 (every open shares the
    // table's insert target); and a table whose rows are deleted and
    // inserted again, with vacuum between rounds, stops growing (vacuum
    // offers the pages it freed to inserts).
    #[test]
    fn inserts_reuse_pages_across_opens_and_after_vacuum() {
        let db = sim_db(8);
        let cat = db.catalog();
        let mut t = db.begin(RC, SYNC).unwrap();
        let col = ColumnDef {
            local: true,
            collation: None,
            name: "v".into(),
            type_oid: SqlType::Text.oid(),
            typmod: -1,
            not_null: false,
        };
        cat.create_table(&mut t, "t", &[col]).unwrap();
        t.commit().unwrap();
        let pages = || {
            let t = db.begin(RC, SYNC).unwrap();
            cat.relation(&t, "t")
                .unwrap()
                .unwrap()
                .table
                .page_ids()
                .unwrap()
                .len()
        };
        for i in 0..50 {
            let mut t = db.begin(RC, SYNC).unwrap();
            let rel = cat.relation(&t, "t").unwrap().unwrap();
            rel.insert(&mut t, vec![Value::Text(format!("row {i}"))])
                .unwrap();
            t.commit().unwrap();
        }
        assert_eq!(pages(), 1);
        let mut sizes = Vec::new();
        for round in 0..6 {
            let mut t = db.begin(RC, SYNC).unwrap();
            let rel = cat.relation(&t, "t").unwrap().unwrap();
            for (tid, _) in rel.scan(&t).unwrap() {
                rel.delete(&mut t, tid).unwrap();
            }
            for i in 0..200 {
                rel.insert(
                    &mut t,
                    vec![Value::Text(format!("round {round} row {i:>40}"))],
                )
                .unwrap();
            }
            t.commit().unwrap();
            autovacuum_pass(cat, db.txns(), &AutovacuumConfig::default()).unwrap();
            sizes.push(pages());
        }
        eprintln!("pages after each round: {sizes:?}");
        assert!(
            sizes[5] <= sizes[1] + 1,
            "the table keeps growing: {sizes:?}"
        );
    }
}

mod key_limit {
    use super::*;
    use folio_row::{SqlType, Value};

    // Proves an index key longer than the index's tree holds (2,680
    // encoded bytes: a text of 2,677 characters) is refused with 54000 and
    // PostgreSQL's message, and the row is not inserted.
    #[test]
    fn an_index_key_too_long_is_refused_cleanly() {
        let db = sim_db(9);
        let cat = db.catalog();
        let mut t = db.begin(RC, SYNC).unwrap();
        let col = ColumnDef {
            local: true,
            collation: None,
            name: "name".into(),
            type_oid: SqlType::Text.oid(),
            typmod: -1,
            not_null: false,
        };
        cat.create_table(&mut t, "t", &[col]).unwrap();
        cat.create_index(&mut t, "t", "t_name", &["name"], false)
            .unwrap();
        let rel = cat.relation(&t, "t").unwrap().unwrap();
        let e = rel
            .insert(&mut t, vec![Value::Text("x".repeat(2678))])
            .unwrap_err();
        assert_eq!(e.sqlstate(), Some("54000"), "{e}");
        assert!(e.to_string().starts_with("index row size "), "{e}");
        rel.insert(&mut t, vec![Value::Text("x".repeat(2677))])
            .unwrap();
        rel.insert(&mut t, vec![Value::Text("short".into())])
            .unwrap();
        assert_eq!(rel.scan(&t).unwrap().len(), 2);
    }
}

mod ordered_index {
    use super::*;
    use folio_btree::Direction;
    use folio_db::KeyOrder;
    use folio_row::{SqlType, Value};

    // Proves an index declared `DESC NULLS LAST` keeps that order (a
    // forward scan returns the largest key first and the nulls last), and
    // the order survives in the catalog (a reopened relation reads it).
    #[test]
    fn descending_index_columns_keep_their_order() {
        let db = sim_db(10);
        let cat = db.catalog();
        let mut t = db.begin(RC, SYNC).unwrap();
        let col = ColumnDef {
            local: true,
            collation: None,
            name: "v".into(),
            type_oid: SqlType::Int4.oid(),
            typmod: -1,
            not_null: false,
        };
        cat.create_table(&mut t, "t", &[col]).unwrap();
        let order = KeyOrder {
            descending: true,
            nulls_first: false,
        };
        cat.create_index_ordered(&mut t, "t", "t_v_desc", &[("v", order)], false)
            .unwrap();
        let rel = cat.relation(&t, "t").unwrap().unwrap();
        for v in [Value::Int4(2), Value::Null, Value::Int4(9), Value::Int4(-3)] {
            rel.insert(&mut t, vec![v]).unwrap();
        }
        t.commit().unwrap();
        let t = db.begin(RC, SYNC).unwrap();
        let rel = cat.relation(&t, "t").unwrap().unwrap();
        assert_eq!(rel.indexes[0].def.order, vec![order]);
        let rows = rel.indexes[0]
            .index
            .scan(
                &t,
                &rel.table,
                std::ops::Bound::Unbounded,
                std::ops::Bound::Unbounded,
                Direction::Forward,
            )
            .unwrap();
        let values: Vec<Value> = rows
            .iter()
            .map(|(_, r)| rel.decode(&t, r).unwrap()[0].clone())
            .collect();
        assert_eq!(
            values,
            vec![Value::Int4(9), Value::Int4(2), Value::Int4(-3), Value::Null]
        );
    }
}

/// `ALTER TABLE ... DROP COLUMN` through the catalog: rollback, restart,
/// crash.
mod drop_column {
    use super::*;
    use folio_catalog::Relation;
    use folio_db::ConstraintKind;
    use folio_row::{SqlType, Value};

    fn column(name: &str, ty: SqlType, not_null: bool) -> ColumnDef {
        ColumnDef {
            local: true,
            collation: None,
            name: name.into(),
            type_oid: ty.oid(),
            typmod: ty.typmod(),
            not_null,
        }
    }

    /// `t (id int not null, b text not null, c int)`, a unique index on
    /// id, indexes on (b) and (c), a default on c, and 20 rows, one with
    /// a `b` long enough to be stored out of line; an error as it came
    /// (a crash case's).
    fn setup(db: &Database) -> Result<(), Box<dyn std::error::Error>> {
        let cat = db.catalog();
        let mut t = db.begin(RC, SYNC)?;
        let columns = [
            column("id", SqlType::Int4, true),
            column("b", SqlType::Text, true),
            column("c", SqlType::Int4, false),
        ];
        cat.create_table(&mut t, "t", &columns)?;
        cat.create_index(&mut t, "t", "t_id", &["id"], true)?;
        cat.create_index(&mut t, "t", "t_b", &["b"], false)?;
        cat.create_index(&mut t, "t", "t_c", &["c"], false)?;
        let default = ConstraintKind::Default {
            column: 2,
            expr: "7".into(),
        };
        cat.add_constraint(&mut t, "t", "", default)?;
        let relation = cat.relation(&t, "t")?.ok_or("no table t")?;
        for i in 0..20 {
            let b = if i == 3 {
                "x".repeat(2500)
            } else {
                format!("b{i}")
            };
            let row = vec![Value::Int4(i), Value::Text(b), Value::Int4(i * 10)];
            relation.insert(&mut t, row)?;
        }
        t.commit()?;
        Ok(())
    }

    /// The rows `t` holds, sorted.
    fn rows(relation: &Relation, t: &folio_db::Transaction) -> Vec<Vec<Value>> {
        let mut rows: Vec<Vec<Value>> = relation
            .scan(t)
            .unwrap()
            .into_iter()
            .map(|(_, r)| r)
            .collect();
        rows.sort_by_key(|r| format!("{r:?}"));
        rows
    }

    fn names(db: &Database, t: &folio_db::Transaction) -> Vec<String> {
        let def = db.catalog().table(t, "t").unwrap().unwrap();
        def.columns.iter().map(|c| c.name.clone()).collect()
    }

    /// After `b` was dropped and committed (and `b` added again, with two
    /// rows inserted since): the columns, the rows, the indexes left and
    /// their positions, the default moved with its column; the tables
    /// verify.
    fn check_after_drop(db: &Database) {
        let cat = db.catalog();
        let t = db.begin(RC, SYNC).unwrap();
        assert_eq!(names(db, &t), ["id", "c", "b"]);
        let def = cat.table(&t, "t").unwrap().unwrap();
        let indexes: Vec<(&str, &[u16])> = (def.indexes.iter())
            .map(|i| (i.name.as_str(), &i.columns[..]))
            .collect();
        assert_eq!(indexes, [("t_id", &[0][..]), ("t_c", &[1][..])]);
        assert_eq!(def.default_of(1), Some("7"));
        assert_eq!((def.layout.width(), def.layout.attnum(2)), (4, 4));
        let relation = cat.relation(&t, "t").unwrap().unwrap();
        let found = rows(&relation, &t);
        assert_eq!(found.len(), 22);
        assert!(found.contains(&vec![Value::Int4(3), Value::Int4(30), Value::Null]));
        assert!(found.contains(&vec![
            Value::Int4(100),
            Value::Int4(1000),
            Value::Text("new".into())
        ]));
        let by_c = relation.lookup(&t, 1, &[Value::Int4(50)]).unwrap();
        assert_eq!(by_c[0].1, [Value::Int4(5), Value::Int4(50), Value::Null]);
        drop(t);
        for (name, check) in db.verify_tables().unwrap() {
            check.unwrap_or_else(|e| panic!("{name}: {e}"));
        }
    }

    // Proves DROP COLUMN is transactional and durable: rolled back (and
    // in a rolled-back savepoint) the column, its NOT NULL, its index and
    // its values are all there; committed, the column is gone from the
    // definition and the rows, its index with it, later columns' index
    // and default keep pointing at them, new rows store NULL in its slot,
    // an ADD COLUMN of the same name starts NULL; and all of that is kept
    // by a clean restart and by a crash, while a drop running at the
    // crash is undone.
    #[test]
    fn drop_column_rolls_back_and_survives_restart_and_crash() {
        let dir = SimDir::new(SimConfig::seeded(28));
        let db = Database::create_in(Storage::single(dir.clone()), small_options()).unwrap();
        setup(&db).unwrap();
        let cat = db.catalog();
        let no_check = |_: &str| false;
        let before = {
            let t = db.begin(RC, SYNC).unwrap();
            rows(&cat.relation(&t, "t").unwrap().unwrap(), &t)
        };

        // Rolled back, whole and in a savepoint.
        let mut t = db.begin(RC, SYNC).unwrap();
        cat.drop_column(&mut t, "t", "b", false, &no_check).unwrap();
        assert_eq!(names(&db, &t), ["id", "c"]);
        let relation = cat.relation(&t, "t").unwrap().unwrap();
        assert_eq!(rows(&relation, &t)[0].len(), 2);
        t.rollback().unwrap();
        let mut t = db.begin(RC, SYNC).unwrap();
        t.savepoint("s").unwrap();
        cat.drop_column(&mut t, "t", "b", false, &no_check).unwrap();
        t.rollback_to("s").unwrap();
        assert_eq!(names(&db, &t), ["id", "b", "c"]);
        let relation = cat.relation(&t, "t").unwrap().unwrap();
        assert_eq!(rows(&relation, &t), before);
        assert_eq!(relation.indexes.len(), 3);
        let e = relation.insert(&mut t, vec![Value::Int4(50), Value::Null, Value::Null]);
        assert_eq!(e.unwrap_err().sqlstate(), Some("23502"));
        t.commit().unwrap();

        // A missing column is 42703; then b goes, and comes back empty.
        let mut t = db.begin(RC, SYNC).unwrap();
        let e = cat.drop_column(&mut t, "t", "nope", false, &no_check);
        assert_eq!(e.unwrap_err().sqlstate(), Some("42703"));
        t.rollback().unwrap();
        let mut t = db.begin(RC, SYNC).unwrap();
        cat.drop_column(&mut t, "t", "b", false, &no_check).unwrap();
        t.commit().unwrap();
        let mut t = db.begin(RC, SYNC).unwrap();
        let relation = cat.relation(&t, "t").unwrap().unwrap();
        relation
            .insert(&mut t, vec![Value::Int4(99), Value::Int4(990)])
            .unwrap();
        cat.add_column(&mut t, "t", &column("b", SqlType::Text, false))
            .unwrap();
        let relation = cat.relation(&t, "t").unwrap().unwrap();
        let row = vec![
            Value::Int4(100),
            Value::Int4(1000),
            Value::Text("new".into()),
        ];
        relation.insert(&mut t, row).unwrap();
        t.commit().unwrap();
        check_after_drop(&db);

        // A clean restart.
        db.close().unwrap();
        let db = Database::open_in(Storage::single(dir.clone()), small_options()).unwrap();
        check_after_drop(&db);

        // A crash, with a drop of c running (its WAL durable).
        let mut running = db.begin(RC, SYNC).unwrap();
        db.catalog()
            .drop_column(&mut running, "t", "c", false, &no_check)
            .unwrap();
        db.wal().flush_all().unwrap();
        let after = dir.crash();
        std::mem::forget(running);
        drop(db);
        let db = Database::open_in(Storage::single(after), small_options()).unwrap();
        check_after_drop(&db);
        db.close().unwrap();
    }

    /// Where a crash case's workload got: what recovery must find.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    enum Stage {
        /// The table's creation not acknowledged.
        Nothing,
        /// The table with its rows, `b` there.
        Created,
        /// The drop of `b` acknowledged.
        Dropped,
    }

    /// One crash case: `setup`, then a rolled-back drop of `b`, then a
    /// committed one, then a row; after recovery the table is as the
    /// acknowledged stage left it (or the next, when a commit was in
    /// flight) and the database verifies. Whether the workload completed.
    fn crash_case(seed: u64, crash_at: u64) -> bool {
        let label = format!("seed {seed}, crash at op {crash_at}");
        let dir = SimDir::new(SimConfig::seeded(seed));
        dir.set_crash_after_ops(crash_at);
        let (mut acked, mut created) = (Stage::Nothing, false);
        let no_check = |_: &str| false;
        'run: {
            let Ok(db) = Database::create_in(Storage::single(dir.clone()), small_options()) else {
                break 'run;
            };
            created = true;
            if setup(&db).is_err() {
                break 'run;
            }
            acked = Stage::Created;
            let cat = db.catalog();
            for commit in [false, true] {
                let Ok(mut t) = db.begin(RC, SYNC) else {
                    break 'run;
                };
                if cat.drop_column(&mut t, "t", "b", false, &no_check).is_err() {
                    break 'run;
                }
                let done = match commit {
                    true => t.commit().map(drop),
                    false => t.rollback(),
                };
                if done.is_err() {
                    break 'run;
                }
            }
            acked = Stage::Dropped;
            let Ok(mut t) = db.begin(RC, SYNC) else {
                break 'run;
            };
            let Ok(Some(relation)) = cat.relation(&t, "t") else {
                break 'run;
            };
            let row = vec![Value::Int4(100), Value::Int4(1000)];
            if relation.insert(&mut t, row).is_err() || t.commit().is_err() {
                break 'run;
            }
        }
        let (completed, db) = crash_and_reopen(&dir, crash_at, created, &label);
        let Some(db) = db else {
            return completed;
        };
        let t = db.begin(RC, SYNC).unwrap();
        let found = match db.catalog().table(&t, "t").unwrap() {
            None => Stage::Nothing,
            Some(def) if def.column("b").is_some() => Stage::Created,
            Some(_) => Stage::Dropped,
        };
        let next = match acked {
            Stage::Nothing => Stage::Created,
            _ => Stage::Dropped,
        };
        assert!(
            found == acked || found == next,
            "{label}: found {found:?}, acknowledged {acked:?}"
        );
        if found != Stage::Nothing {
            let relation = db.catalog().relation(&t, "t").unwrap().unwrap();
            let rows = relation.scan(&t).unwrap();
            assert!(rows.len() >= 20, "{label}: {} rows", rows.len());
            let width = if found == Stage::Created { 3 } else { 2 };
            for (_, row) in &rows {
                assert_eq!(row.len(), width, "{label}: {row:?}");
                let Value::Int4(id) = row[0] else {
                    panic!("{label}: {row:?}")
                };
                // c, the last column either way, is still id * 10.
                assert_eq!(row[width - 1], Value::Int4(id * 10), "{label}");
                let c = relation.indexes.iter().position(|i| i.def.name == "t_c");
                let hits = relation.lookup(&t, c.unwrap(), &[row[width - 1].clone()]);
                assert!(hits.unwrap().iter().any(|(_, v)| v == row), "{label}");
            }
        }
        drop(t);
        db.verify().unwrap();
        db.check_invariants().unwrap();
        completed
    }

    // Proves DROP COLUMN's crash safety at every I/O operation of a
    // workload that rolls one drop back and commits another: recovery
    // finds the column exactly when its drop was not acknowledged (or
    // its commit was in flight), every row with its other values, found
    // through the index of the column after it, and the database
    // verifies.
    #[test]
    fn a_crash_at_every_io_operation_of_a_drop_keeps_it_or_not_whole() {
        let ops = sweep_crash_points(|crash_at| crash_case(28, crash_at));
        assert!(ops > 50, "{ops} operations");
    }
}

mod alter_type {
    use super::*;
    use folio_catalog::{CatalogError, NewType, Relation};
    use folio_db::{ConstraintKind, Transaction};
    use folio_row::{SqlType, Value};

    fn column(name: &str, ty: SqlType, not_null: bool) -> ColumnDef {
        ColumnDef {
            local: true,
            collation: None,
            name: name.into(),
            type_oid: ty.oid(),
            typmod: ty.typmod(),
            not_null,
        }
    }

    /// `t (id int not null, b text not null, c int)`, a unique index on
    /// id, indexes on (b) and (c, id), a default on c, and 20 rows, one
    /// with a `b` long enough to be stored out of line; an error as it
    /// came (a crash case's).
    fn setup(db: &Database) -> Result<(), Box<dyn std::error::Error>> {
        let cat = db.catalog();
        let mut t = db.begin(RC, SYNC)?;
        let columns = [
            column("id", SqlType::Int4, true),
            column("b", SqlType::Text, true),
            column("c", SqlType::Int4, false),
        ];
        cat.create_table(&mut t, "t", &columns)?;
        cat.create_index(&mut t, "t", "t_id", &["id"], true)?;
        cat.create_index(&mut t, "t", "t_b", &["b"], false)?;
        cat.create_index(&mut t, "t", "t_c", &["c", "id"], false)?;
        let default = ConstraintKind::Default {
            column: 2,
            expr: "7".into(),
        };
        cat.add_constraint(&mut t, "t", "", default)?;
        let relation = cat.relation(&t, "t")?.ok_or("no table t")?;
        for i in 0..20 {
            let b = match i {
                3 => "x".repeat(2500),
                _ => format!("b{i}"),
            };
            let row = vec![Value::Int4(i), Value::Text(b), Value::Int4(i * 10)];
            relation.insert(&mut t, row)?;
        }
        t.commit()?;
        Ok(())
    }

    /// `ALTER TABLE t ALTER id TYPE text, ALTER c TYPE bigint` through the
    /// catalog, each row's values converted here (the SQL layer's part).
    fn alter(db: &Database, t: &mut Transaction) -> Result<(), CatalogError> {
        let cat = db.catalog();
        cat.lock_for_rewrite(t, "t")?;
        let relation = cat.relation(t, "t")?.expect("t");
        let rows = (relation.scan(t)?.into_iter())
            .map(|(tid, row)| {
                let (Value::Int4(id), Value::Int4(c)) = (&row[0], &row[2]) else {
                    panic!("{row:?}")
                };
                let row = vec![
                    Value::Text(id.to_string()),
                    row[1].clone(),
                    Value::Int8(i64::from(*c)),
                ];
                (tid, row)
            })
            .collect();
        let to = |column: &str, ty: SqlType| NewType {
            column: column.into(),
            type_oid: ty.oid(),
            typmod: ty.typmod(),
        };
        let changes = [to("id", SqlType::Text), to("c", SqlType::Int8)];
        cat.alter_column_types(t, "t", &changes, rows)
    }

    /// The rows `t` holds, sorted.
    fn rows(relation: &Relation, t: &Transaction) -> Vec<Vec<Value>> {
        let mut rows: Vec<Vec<Value>> = (relation.scan(t).unwrap().into_iter())
            .map(|(_, r)| r)
            .collect();
        rows.sort_by_key(|r| format!("{r:?}"));
        rows
    }

    fn types(db: &Database, t: &Transaction) -> Vec<u32> {
        let def = db.catalog().table(t, "t").unwrap().unwrap();
        def.columns.iter().map(|c| c.type_oid).collect()
    }

    /// The table as `setup` left it (`changed`: false) or after `alter`
    /// committed: the types, the rows (the long one whole), the indexes
    /// under their names and columns, found by the new keys; NOT NULL and
    /// the default kept; the tables verify.
    fn check(db: &Database, changed: bool) {
        let cat = db.catalog();
        let mut t = db.begin(RC, SYNC).unwrap();
        let (id_type, c_type) = match changed {
            false => (SqlType::Int4, SqlType::Int4),
            true => (SqlType::Text, SqlType::Int8),
        };
        assert_eq!(
            types(db, &t),
            [id_type.oid(), SqlType::Text.oid(), c_type.oid()]
        );
        let def = cat.table(&t, "t").unwrap().unwrap();
        let indexes: Vec<(&str, &[u16], bool)> = (def.indexes.iter())
            .map(|i| (i.name.as_str(), &i.columns[..], i.unique))
            .collect();
        let mut indexes = indexes;
        indexes.sort();
        assert_eq!(
            indexes,
            [
                ("t_b", &[1][..], false),
                ("t_c", &[2, 0][..], false),
                ("t_id", &[0][..], true)
            ]
        );
        assert!(def.columns[0].not_null && def.columns[1].not_null);
        assert_eq!(def.default_of(2), Some("7"));
        let relation = cat.relation(&t, "t").unwrap().unwrap();
        let id = |i: i32| match changed {
            false => Value::Int4(i),
            true => Value::Text(i.to_string()),
        };
        let c = |i: i32| match changed {
            false => Value::Int4(i),
            true => Value::Int8(i.into()),
        };
        let found = rows(&relation, &t);
        assert_eq!(found.len(), 20);
        let long = vec![id(3), Value::Text("x".repeat(2500)), c(30)];
        assert!(found.contains(&long));
        let index = |name: &str| relation.indexes.iter().position(|i| i.def.name == name);
        let by_c = relation
            .lookup(&t, index("t_c").unwrap(), &[c(50), id(5)])
            .unwrap();
        assert_eq!(by_c.len(), 1);
        assert_eq!(by_c[0].1[1], Value::Text("b5".into()));
        let by_id = relation.lookup(&t, index("t_id").unwrap(), &[id(3)]);
        assert_eq!(by_id.unwrap()[0].1, long);
        // The unique index refuses the key again; NOT NULL holds.
        let again = relation.insert(&mut t, vec![id(3), Value::Text("y".into()), c(1)]);
        assert_eq!(again.unwrap_err().sqlstate(), Some("23505"));
        let null = relation.insert(&mut t, vec![Value::Null, Value::Text("y".into()), c(1)]);
        assert_eq!(null.unwrap_err().sqlstate(), Some("23502"));
        t.rollback().unwrap();
        for (name, check) in db.verify_tables().unwrap() {
            check.unwrap_or_else(|e| panic!("{name}: {e}"));
        }
    }

    // Proves ALTER COLUMN ... TYPE is transactional and durable: rolled
    // back (and in a rolled-back savepoint) the old types, values and
    // indexes are all there; committed, the new types, the converted
    // values (a value stored out of line included) and the rebuilt
    // indexes under their names, with NOT NULL and the default kept; and
    // all of that is kept by a clean restart and by a crash, while a type
    // change running at the crash is undone.
    #[test]
    fn a_type_change_rolls_back_and_survives_restart_and_crash() {
        let dir = SimDir::new(SimConfig::seeded(29));
        let db = Database::create_in(Storage::single(dir.clone()), small_options()).unwrap();
        setup(&db).unwrap();
        check(&db, false);

        // Rolled back, whole and in a savepoint.
        let mut t = db.begin(RC, SYNC).unwrap();
        alter(&db, &mut t).unwrap();
        assert_eq!(types(&db, &t)[0], SqlType::Text.oid());
        t.rollback().unwrap();
        check(&db, false);
        let mut t = db.begin(RC, SYNC).unwrap();
        t.savepoint("s").unwrap();
        alter(&db, &mut t).unwrap();
        t.rollback_to("s").unwrap();
        assert_eq!(types(&db, &t)[0], SqlType::Int4.oid());
        t.commit().unwrap();
        check(&db, false);

        // Committed.
        let mut t = db.begin(RC, SYNC).unwrap();
        alter(&db, &mut t).unwrap();
        t.commit().unwrap();
        check(&db, true);

        // A clean restart.
        db.close().unwrap();
        let db = Database::open_in(Storage::single(dir.clone()), small_options()).unwrap();
        check(&db, true);

        // A crash, with a change of b to varchar(10) running (its WAL
        // durable): undone.
        let mut running = db.begin(RC, SYNC).unwrap();
        let cat = db.catalog();
        cat.lock_for_rewrite(&mut running, "t").unwrap();
        let relation = cat.relation(&running, "t").unwrap().unwrap();
        let rows = (relation.scan(&running).unwrap().into_iter())
            .map(|(tid, mut row)| {
                row[1] = Value::Text("short".into());
                (tid, row)
            })
            .collect();
        let varchar = SqlType::Varchar(Some(10));
        let change = NewType {
            column: "b".into(),
            type_oid: varchar.oid(),
            typmod: varchar.typmod(),
        };
        cat.alter_column_types(&mut running, "t", &[change], rows)
            .unwrap();
        db.wal().flush_all().unwrap();
        let after = dir.crash();
        std::mem::forget(running);
        drop(db);
        let db = Database::open_in(Storage::single(after), small_options()).unwrap();
        check(&db, true);
        db.close().unwrap();
    }

    /// One crash case: `setup`, a rolled-back type change, a committed
    /// one; after recovery the table has the old types exactly when the
    /// committed change was not acknowledged (or its commit was in
    /// flight), its rows whole and found through the rebuilt index, and
    /// the database verifies. Whether the workload completed.
    fn crash_case(seed: u64, crash_at: u64) -> bool {
        let label = format!("seed {seed}, crash at op {crash_at}");
        let dir = SimDir::new(SimConfig::seeded(seed));
        dir.set_crash_after_ops(crash_at);
        let (mut acked, mut created) = (None, false);
        'run: {
            let Ok(db) = Database::create_in(Storage::single(dir.clone()), small_options()) else {
                break 'run;
            };
            created = true;
            if setup(&db).is_err() {
                break 'run;
            }
            acked = Some(false);
            for commit in [false, true] {
                let Ok(mut t) = db.begin(RC, SYNC) else {
                    break 'run;
                };
                if alter(&db, &mut t).is_err() {
                    break 'run;
                }
                let done = match commit {
                    true => t.commit().map(drop),
                    false => t.rollback(),
                };
                if done.is_err() {
                    break 'run;
                }
            }
            acked = Some(true);
        }
        let (completed, db) = crash_and_reopen(&dir, crash_at, created, &label);
        let Some(db) = db else {
            return completed;
        };
        let t = db.begin(RC, SYNC).unwrap();
        let found = (db.catalog().table(&t, "t").unwrap())
            .map(|def| def.columns[0].type_oid == SqlType::Text.oid());
        let next = match acked {
            None => Some(false),
            Some(_) => Some(true),
        };
        assert!(
            found == acked || found == next,
            "{label}: found {found:?}, acknowledged {acked:?}"
        );
        drop(t);
        if let Some(changed) = found {
            check(&db, changed);
        }
        db.verify().unwrap();
        db.check_invariants().unwrap();
        completed
    }

    // Proves a change no stored value notices (text to varchar and back:
    // binary-coercible) writes no row: every row version
    // keeps its place and the index over the column its tree and oid,
    // still finding the rows; rolled back the old type is there, and
    // committed the new one survives a clean restart and a crash (the
    // tables verify); a change that would alter stored values is refused.
    #[test]
    fn a_binary_coercible_change_keeps_every_row_version() {
        let dir = SimDir::new(SimConfig::seeded(31));
        let db = Database::create_in(Storage::single(dir.clone()), small_options()).unwrap();
        setup(&db).unwrap();
        let cat = db.catalog();
        let to = |ty: SqlType| NewType {
            column: "b".into(),
            type_oid: ty.oid(),
            typmod: ty.typmod(),
        };
        let state = |db: &Database| {
            let t = db.begin(RC, SYNC).unwrap();
            let relation = db.catalog().relation(&t, "t").unwrap().unwrap();
            let mut tids: Vec<_> = (relation.scan(&t).unwrap().into_iter())
                .map(|(tid, _)| tid)
                .collect();
            tids.sort();
            let index = (relation.def.indexes.iter())
                .find(|i| i.name == "t_b")
                .map(|i| (i.oid, i.root))
                .unwrap();
            let at = relation.indexes.iter().position(|i| i.def.name == "t_b");
            let found = relation.lookup(&t, at.unwrap(), &[Value::Text("b5".into())]);
            assert_eq!(found.unwrap()[0].1[0], Value::Int4(5));
            (relation.types[1], tids, index)
        };
        let (_, tids, index) = state(&db);
        for (ty, commit) in [
            (SqlType::Varchar(None), false),
            (SqlType::Varchar(None), true),
        ] {
            let mut t = db.begin(RC, SYNC).unwrap();
            cat.relabel_column_types(&mut t, "t", &[to(ty)]).unwrap();
            match commit {
                true => t.commit().map(drop).unwrap(),
                false => t.rollback().unwrap(),
            }
            let expected = if commit { ty } else { SqlType::Text };
            assert_eq!(state(&db), (expected, tids.clone(), index));
        }
        // Shorter: stored values would have to be checked.
        let mut t = db.begin(RC, SYNC).unwrap();
        let shorter = cat.relabel_column_types(&mut t, "t", &[to(SqlType::Varchar(Some(3)))]);
        assert!(
            matches!(shorter, Err(CatalogError::Corrupt(_))),
            "{shorter:?}"
        );
        t.rollback().unwrap();
        db.close().unwrap();
        let db = Database::open_in(Storage::single(dir.clone()), small_options()).unwrap();
        assert_eq!(state(&db), (SqlType::Varchar(None), tids.clone(), index));
        let mut t = db.begin(RC, SYNC).unwrap();
        let cat = db.catalog();
        cat.relabel_column_types(&mut t, "t", &[to(SqlType::Text)])
            .unwrap();
        t.commit().unwrap();
        let mut running = db.begin(RC, SYNC).unwrap();
        cat.relabel_column_types(&mut running, "t", &[to(SqlType::Varchar(None))])
            .unwrap();
        db.wal().flush_all().unwrap();
        let after = dir.crash();
        std::mem::forget(running);
        drop(db);
        let db = Database::open_in(Storage::single(after), small_options()).unwrap();
        assert_eq!(state(&db), (SqlType::Text, tids, index));
        for (name, check) in db.verify_tables().unwrap() {
            check.unwrap_or_else(|e| panic!("{name}: {e}"));
        }
        db.close().unwrap();
    }

    // Proves ALTER COLUMN ... TYPE's crash safety at every I/O operation
    // of a workload that rolls one change back and commits another:
    // recovery finds the new types exactly when the change was
    // acknowledged (or its commit was in flight), the rows converted or
    // not as a whole, the indexes agreeing, and the database verifies.
    #[test]
    fn a_crash_at_every_io_operation_of_a_type_change_keeps_it_or_not_whole() {
        let ops = sweep_crash_points(|crash_at| crash_case(29, crash_at));
        assert!(ops > 50, "{ops} operations");
    }
}

// Proves the kept object lists (enum types, extensions, functions) are
// handed back while current and read again exactly when they changed: a
// commit of another writer's class row after they were read, the
// reader's own uncommitted DDL (never kept), but not a running writer's
// or a rolled-back one's DDL, nor DDL of two writers at once missed.
#[test]
fn kept_object_lists_are_used_again_until_a_class_row_changes() {
    let db = sim_db(7);
    let cat = db.catalog();
    let names = |lists: &folio_catalog::ObjectLists| -> Vec<String> {
        (lists.enums.iter().map(|e| e.name.clone()))
            .chain(lists.extensions.iter().map(|e| e.name.clone()))
            .collect()
    };
    let mut reader = db.begin(RC, SYNC).unwrap();
    let first = cat.object_lists(&reader, None).unwrap();
    assert!(names(&first).is_empty());
    reader.next_statement();
    let again = cat.object_lists(&reader, Some(&first)).unwrap();
    assert!(Arc::ptr_eq(&first, &again), "nothing changed: kept");

    // A running writer's enum is not seen, and the kept lists stay.
    let mut w1 = db.begin(RC, SYNC).unwrap();
    cat.create_enum(&mut w1, "mood", &["sad".into(), "ok".into()])
        .unwrap();
    let mut w2 = db.begin(RC, SYNC).unwrap();
    cat.create_extension(&mut w2, "pgcrypto").unwrap();
    reader.next_statement();
    let during = cat.object_lists(&reader, Some(&again)).unwrap();
    assert!(names(&during).is_empty());
    // The writer sees its own enum; what it read is never kept.
    let own = cat.object_lists(&w1, Some(&during)).unwrap();
    assert_eq!(names(&own), ["mood"]);
    let own_again = cat.object_lists(&w1, Some(&own)).unwrap();
    assert!(!Arc::ptr_eq(&own, &own_again));

    // Both commit, one after the other: the reader's next statement sees
    // both, then keeps the new lists.
    w1.commit().unwrap();
    reader.next_statement();
    let after_one = cat.object_lists(&reader, Some(&during)).unwrap();
    assert_eq!(names(&after_one), ["mood"]);
    w2.commit().unwrap();
    reader.next_statement();
    let after_two = cat.object_lists(&reader, Some(&after_one)).unwrap();
    assert_eq!(names(&after_two), ["mood", "pgcrypto"]);
    reader.next_statement();
    let kept = cat.object_lists(&reader, Some(&after_two)).unwrap();
    assert!(Arc::ptr_eq(&after_two, &kept));

    // A rolled-back drop changes nothing: the kept lists stay.
    let mut d = db.begin(RC, SYNC).unwrap();
    cat.drop_extension(&mut d, "pgcrypto").unwrap();
    d.rollback().unwrap();
    reader.next_statement();
    let still = cat.object_lists(&reader, Some(&kept)).unwrap();
    assert!(Arc::ptr_eq(&kept, &still));
    assert_eq!(names(&still), ["mood", "pgcrypto"]);

    // A REPEATABLE READ transaction older than the lists reads its own.
    let old = db.begin(Isolation::RepeatableRead, SYNC).unwrap();
    let mut d = db.begin(RC, SYNC).unwrap();
    cat.drop_extension(&mut d, "pgcrypto").unwrap();
    d.commit().unwrap();
    reader.next_statement();
    let dropped = cat.object_lists(&reader, Some(&still)).unwrap();
    assert_eq!(names(&dropped), ["mood"]);
    let old_lists = cat.object_lists(&old, Some(&dropped)).unwrap();
    assert_eq!(names(&old_lists), ["mood", "pgcrypto"]);
}
