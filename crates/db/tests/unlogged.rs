//! Unlogged tables (folio-catalog README "Unlogged relations"): their rows
//! and index entries are kept through a clean close and emptied by a
//! crash, with permanent tables beside them untouched; their changes
//! write no WAL; a TRUNCATE keeps them unlogged; their dropped pages come
//! back to their own pool, and a crash forgets drops still pending there.

mod common;

use common::*;
use folio_db::{
    ColumnDef, Database, Durability, Isolation, LOG_AHEAD, Persistence, Refill, SequenceDef,
    SequenceRequest, Storage,
};
use folio_io::{SimConfig, SimDir};
use folio_row::{SqlType, Value};
use std::collections::{BTreeMap, BTreeSet};
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

/// Creates sequence `name` of `persistence` with default options.
fn create_sequence(db: &Database, name: &str, persistence: Persistence) {
    let mut t = db.begin(RC, SYNC).unwrap();
    let options = SequenceRequest::default().settle(None).unwrap();
    (db.catalog())
        .create_sequence(&mut t, name, options, None, None, persistence)
        .unwrap();
    t.commit().unwrap();
}

/// `n` values of sequence `name` as a new transaction sees it.
fn next_values(db: &Database, name: &str, n: usize) -> Vec<i64> {
    let t = db.begin(RC, SYNC).unwrap();
    let def = db.catalog().sequence(&t, name).unwrap().unwrap();
    (0..n)
        .map(|_| db.catalog().next_value(&def).unwrap())
        .collect()
}

// Proves unlogged sequences (folio-catalog README "Unlogged relations"):
// their values write no WAL, go on after a clean close (within the
// log-ahead gap, as a logged sequence's), and start again from the start
// after a crash, while a logged sequence beside them goes on beyond every
// value it handed out.
#[test]
fn an_unlogged_sequence_keeps_its_value_through_a_clean_close_and_restarts_after_a_crash() {
    let dir = SimDir::new(SimConfig::seeded(15));
    let db = Database::create_in(Storage::single(dir.clone()), small_options()).unwrap();
    create_sequence(&db, "logged", Persistence::Permanent);
    create_sequence(&db, "unlogged", Persistence::Unlogged);
    let t = db.begin(RC, SYNC).unwrap();
    let def = db.catalog().sequence(&t, "unlogged").unwrap().unwrap();
    drop(t);
    assert_eq!(def.persistence, Persistence::Unlogged);
    let before = db.wal().insert_lsn().0;
    assert_eq!(
        next_values(&db, "unlogged", 100),
        (1..=100).collect::<Vec<_>>()
    );
    assert_eq!(
        db.wal().insert_lsn().0,
        before,
        "an unlogged sequence logs nothing"
    );
    assert_eq!(
        next_values(&db, "logged", 100),
        (1..=100).collect::<Vec<_>>()
    );
    db.close().unwrap();

    let db = open(&dir);
    let after_close = next_values(&db, "unlogged", 1)[0];
    assert!(after_close > 100 && after_close <= 100 + i64::from(LOG_AHEAD));
    next_values(&db, "logged", 1);
    db.checkpoint().unwrap();
    let crashed = dir.crash();
    drop(db);

    let db = open(&crashed);
    assert_eq!(next_values(&db, "unlogged", 3), [1, 2, 3]);
    assert!(next_values(&db, "logged", 1)[0] > 101);
    db.close().unwrap();
}

// Proves a sequence's change of persistence (`set_sequence_persistence`,
// "Changing persistence" in folio-catalog's sequences.rs): while the
// change is open, calls under the old generation (another transaction)
// and the new one (the changing transaction) hand out values of one
// counter, never twice; a rolled-back change leaves the sequence as it
// was, counting on; and after the change to logged commits, a crash
// resumes beyond every value handed out under either generation.
#[test]
fn a_sequence_persistence_change_shares_one_counter_and_a_crash_follows_it() {
    let dir = SimDir::new(SimConfig::seeded(16));
    let db = Database::create_in(Storage::single(dir.clone()), small_options()).unwrap();
    create_sequence(&db, "s", Persistence::Unlogged);
    let mut seen = next_values(&db, "s", 10);

    let mut t = db.begin(RC, SYNC).unwrap();
    let cat = db.catalog();
    assert!(
        cat.set_sequence_persistence(&mut t, "s", Persistence::Permanent)
            .unwrap()
    );
    t.rollback().unwrap();
    seen.extend(next_values(&db, "s", 5));

    let mut t = db.begin(RC, SYNC).unwrap();
    assert!(
        cat.set_sequence_persistence(&mut t, "s", Persistence::Permanent)
            .unwrap()
    );
    let changed = cat.sequence(&t, "s").unwrap().unwrap();
    assert_eq!(changed.persistence, Persistence::Permanent);
    for _ in 0..40 {
        seen.extend(next_values(&db, "s", 1));
        seen.push(cat.next_value(&changed).unwrap());
    }
    t.commit().unwrap();
    seen.extend(next_values(&db, "s", 3));
    let distinct: BTreeSet<i64> = seen.iter().copied().collect();
    assert_eq!(
        distinct.len(),
        seen.len(),
        "a value handed out twice: {seen:?}"
    );
    let high = *distinct.last().unwrap();
    // Values a snapshot from before the commit still hands out (the old
    // generation, past the new one's last record) must be covered in the
    // new store too.
    let old = SequenceDef {
        generation: changed.generation - 1,
        persistence: Persistence::Unlogged,
        ..changed.clone()
    };
    let mut high = high;
    for _ in 0..(2 * LOG_AHEAD) {
        high = high.max(cat.next_value(&old).unwrap());
    }
    db.checkpoint().unwrap();
    let crashed = dir.crash();
    drop(db);

    let db = open(&crashed);
    let t = db.begin(RC, SYNC).unwrap();
    let def = db.catalog().sequence(&t, "s").unwrap().unwrap();
    assert_eq!(def.persistence, Persistence::Permanent);
    let next = db.catalog().next_value(&def).unwrap();
    assert!(next > high, "{next} after {high}");
    drop(t);
    db.close().unwrap();
}
