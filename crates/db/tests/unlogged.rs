//! Unlogged tables (folio-catalog README "Unlogged relations"): their rows
//! and index entries are kept through a clean close and emptied by a
//! crash, with permanent tables beside them untouched; their changes
//! write no WAL; a TRUNCATE keeps them unlogged; their dropped pages come
//! back to their own pool, and a crash forgets drops still pending there.

mod common;

use common::*;
use folio_db::{ColumnDef, Database, Durability, Isolation, Persistence, Refill, Storage};
use folio_io::{SimConfig, SimDir};
use folio_row::{SqlType, Value};
use std::collections::BTreeMap;
use std::sync::Arc;

const RC: Isolation = Isolation::ReadCommitted;
const SYNC: Durability = Durability::Sync;

fn columns() -> Vec<ColumnDef> {
    let column = |name: &str, ty: SqlType, not_null| ColumnDef {
        local: true,
        collation: None,
        name: name.into(),
        type_oid: ty.oid(),
        typmod: ty.typmod(),
        not_null,
    };
    vec![
        column("id", SqlType::Int4, true),
        column("body", SqlType::Text, false),
    ]
}

/// Creates table `name` of `persistence` with a unique index on `id`.
fn create(db: &Database, name: &str, persistence: Persistence) {
    let cat = db.catalog();
    let mut t = db.begin(RC, SYNC).unwrap();
    cat.create_table_with(&mut t, name, &columns(), persistence)
        .unwrap();
    cat.create_index(&mut t, name, &format!("{name}_pkey"), &["id"], true)
        .unwrap();
    t.commit().unwrap();
}

/// Inserts rows `ids` into `name` in one committed transaction.
fn insert(db: &Database, name: &str, ids: std::ops::Range<i32>) {
    let mut t = db.begin(RC, SYNC).unwrap();
    let rel = db.catalog().relation(&t, name).unwrap().unwrap();
    for id in ids {
        rel.insert(
            &mut t,
            vec![Value::Int4(id), Value::Text(format!("row {id}"))],
        )
        .unwrap();
    }
    t.commit().unwrap();
}

/// The rows of `name` a fresh transaction sees, each also found through
/// the index (and nothing more found there).
fn rows_of(db: &Database, name: &str) -> BTreeMap<i32, String> {
    let t = db.begin(RC, SYNC).unwrap();
    let rel = db.catalog().relation(&t, name).unwrap().unwrap();
    let mut out = BTreeMap::new();
    for (_, values) in rel.scan(&t).unwrap() {
        let hits = rel.lookup(&t, 0, &values[..1]).unwrap();
        assert_eq!(hits.len(), 1, "{name}: {:?} not in its index", values[0]);
        match (&values[0], &values[1]) {
            (Value::Int4(id), Value::Text(s)) => out.insert(*id, s.clone()),
            other => panic!("{other:?}"),
        };
    }
    for probe in [0, 7, 499, 650] {
        let hits = rel.lookup(&t, 0, &[Value::Int4(probe)]).unwrap();
        assert_eq!(
            hits.len(),
            usize::from(out.contains_key(&probe)),
            "{name}: {probe}"
        );
    }
    out
}

fn ids(rows: &BTreeMap<i32, String>) -> Vec<i32> {
    rows.keys().copied().collect()
}

fn open(dir: &Arc<SimDir>) -> Database {
    Database::open_in(Storage::single(dir.clone()), small_options()).unwrap()
}

fn persistence_of(db: &Database, name: &str) -> Persistence {
    let t = db.begin(RC, SYNC).unwrap();
    let def = db.catalog().table(&t, name).unwrap().unwrap();
    for index in &def.indexes {
        assert_eq!(Persistence::of(index.root), Persistence::of(def.root));
    }
    Persistence::of(def.root)
}

// Proves the lifecycle: an unlogged table and its index keep every row
// through a clean close; a crash (after a checkpoint, so the permanent
// table's rows are on disk either way) empties the unlogged table and its
// index and leaves the permanent one whole; the emptied table takes rows
// again and keeps them through the next clean close; every tree verifies.
#[test]
fn a_clean_close_keeps_unlogged_rows_and_a_crash_empties_them() {
    let dir = SimDir::new(SimConfig::seeded(11));
    let db = Database::create_in(Storage::single(dir.clone()), small_options()).unwrap();
    create(&db, "p", Persistence::Permanent);
    create(&db, "u", Persistence::Unlogged);
    assert_eq!(persistence_of(&db, "u"), Persistence::Unlogged);
    assert_eq!(persistence_of(&db, "p"), Persistence::Permanent);
    insert(&db, "p", 0..500);
    insert(&db, "u", 0..500);
    db.close().unwrap();

    let db = open(&dir);
    assert_eq!(ids(&rows_of(&db, "u")), (0..500).collect::<Vec<_>>());
    insert(&db, "u", 500..700);
    insert(&db, "p", 500..700);
    db.checkpoint().unwrap();
    let crashed = dir.crash();
    drop(db);

    let db = open(&crashed);
    assert_eq!(ids(&rows_of(&db, "p")), (0..700).collect::<Vec<_>>());
    assert!(rows_of(&db, "u").is_empty());
    assert_eq!(persistence_of(&db, "u"), Persistence::Unlogged);
    db.verify().unwrap();
    insert(&db, "u", 0..10);
    db.close().unwrap();

    let db = open(&crashed);
    assert_eq!(ids(&rows_of(&db, "u")), (0..10).collect::<Vec<_>>());
    db.verify().unwrap();
    db.close().unwrap();
}

// Proves that an unlogged table's changes write no WAL: 2,000 rows into
// it (heap and index) log less than a hundredth of what the same rows
// log into a permanent table (what remains is the transactions' commit
// records and the catalog's own rows).
#[test]
fn unlogged_changes_write_no_wal() {
    let dir = SimDir::new(SimConfig::seeded(12));
    let db = Database::create_in(Storage::single(dir.clone()), small_options()).unwrap();
    create(&db, "p", Persistence::Permanent);
    create(&db, "u", Persistence::Unlogged);
    let logged = |name: &str| {
        let before = db.wal().insert_lsn().0;
        insert(&db, name, 0..2000);
        db.wal().insert_lsn().0 - before
    };
    let (permanent, unlogged) = (logged("p"), logged("u"));
    eprintln!("WAL bytes for 2,000 rows: permanent {permanent}, unlogged {unlogged}");
    assert!(unlogged * 100 < permanent, "{unlogged} vs {permanent}");
    db.close().unwrap();
}

// Proves that TRUNCATE gives an unlogged table new unlogged storage, that
// the pages of its old storage and of a dropped unlogged table go back to
// the unlogged pool's free list, and that a crash with such a drop still
// pending forgets it (its pages went with the old file) instead of
// freeing pages of the new file.
#[test]
fn truncate_and_drop_of_unlogged_tables_use_their_own_pool() {
    let dir = SimDir::new(SimConfig::seeded(13));
    let db = Database::create_in(Storage::single(dir.clone()), small_options()).unwrap();
    create(&db, "u", Persistence::Unlogged);
    create(&db, "gone", Persistence::Unlogged);
    insert(&db, "u", 0..500);
    insert(&db, "gone", 0..500);
    let mut t = db.begin(RC, SYNC).unwrap();
    db.catalog()
        .rewrite_table(&mut t, "u", Refill::Empty)
        .unwrap();
    t.commit().unwrap();
    assert_eq!(persistence_of(&db, "u"), Persistence::Unlogged);
    assert!(rows_of(&db, "u").is_empty());
    let mut t = db.begin(RC, SYNC).unwrap();
    db.catalog().drop_table(&mut t, "gone").unwrap();
    t.commit().unwrap();
    let free_before = db.unlogged_pool().free_page_count().unwrap();
    let stats = db.catalog().reclaim(db.txns()).unwrap();
    assert_eq!(stats.relations_freed, 4, "{stats:?}");
    let freed = db.unlogged_pool().free_page_count().unwrap() - free_before;
    assert!(freed >= 10, "{freed} pages back in the unlogged pool");
    assert_eq!(db.catalog().pending_drops().unwrap(), 0);
    insert(&db, "u", 0..500);
    db.close().unwrap();

    // A drop whose pages are not back yet when the crash comes.
    let db = open(&dir);
    let reader = db.begin(Isolation::RepeatableRead, SYNC).unwrap();
    let _ = db.catalog().relation(&reader, "u").unwrap().unwrap();
    let mut t = db.begin(RC, SYNC).unwrap();
    db.catalog().drop_table(&mut t, "u").unwrap();
    t.commit().unwrap();
    assert!(db.catalog().pending_drops().unwrap() > 0);
    db.checkpoint().unwrap();
    let crashed = dir.crash();
    drop(reader);
    drop(db);

    let db = open(&crashed);
    assert_eq!(db.catalog().pending_drops().unwrap(), 0);
    create(&db, "again", Persistence::Unlogged);
    insert(&db, "again", 0..300);
    assert_eq!(ids(&rows_of(&db, "again")), (0..300).collect::<Vec<_>>());
    db.verify().unwrap();
    db.close().unwrap();
}

// Proves `ALTER TABLE ... SET LOGGED | SET UNLOGGED` (folio-catalog
// `Catalog::set_persistence`): the rows and index entries move to the
// other pool whole; a rolled-back change leaves the table as it was; the
// old storage goes back to its own pool; and a crash then treats each
// table by its new persistence (the newly unlogged one emptied, the newly
// logged one whole).
#[test]
fn set_persistence_moves_a_table_and_a_crash_follows_its_new_persistence() {
    let dir = SimDir::new(SimConfig::seeded(14));
    let db = Database::create_in(Storage::single(dir.clone()), small_options()).unwrap();
    create(&db, "was_logged", Persistence::Permanent);
    create(&db, "was_unlogged", Persistence::Unlogged);
    insert(&db, "was_logged", 0..300);
    insert(&db, "was_unlogged", 0..300);
    let set = |name: &str, persistence: Persistence, commit: bool| {
        let mut t = db.begin(RC, SYNC).unwrap();
        let changed = (db.catalog().set_persistence(&mut t, name, persistence)).unwrap();
        if commit {
            t.commit().unwrap();
        } else {
            t.rollback().unwrap();
        }
        changed
    };
    assert!(set("was_unlogged", Persistence::Permanent, false));
    assert_eq!(persistence_of(&db, "was_unlogged"), Persistence::Unlogged);
    assert!(set("was_logged", Persistence::Unlogged, true));
    assert!(set("was_unlogged", Persistence::Permanent, true));
    assert!(!set("was_unlogged", Persistence::Permanent, true));
    assert_eq!(persistence_of(&db, "was_logged"), Persistence::Unlogged);
    assert_eq!(persistence_of(&db, "was_unlogged"), Persistence::Permanent);
    let all: Vec<i32> = (0..300).collect();
    assert_eq!(ids(&rows_of(&db, "was_logged")), all);
    assert_eq!(ids(&rows_of(&db, "was_unlogged")), all);
    db.catalog().reclaim(db.txns()).unwrap();
    assert_eq!(db.catalog().pending_drops().unwrap(), 0);
    db.verify().unwrap();
    db.checkpoint().unwrap();
    let crashed = dir.crash();
    drop(db);

    let db = open(&crashed);
    assert!(rows_of(&db, "was_logged").is_empty());
    assert_eq!(ids(&rows_of(&db, "was_unlogged")), all);
    db.verify().unwrap();
    db.close().unwrap();
}
