//! What the session tests between several sessions share: running a
//! statement that must succeed or fail, a query's rows as text, making,
//! closing and opening a database, and the sqllogictest files.

#![allow(dead_code)]

use folio_db::{Database, Options};
use folio_row::Value;
use folio_sql::{Output, Session, SqlError, text_output};
use std::sync::Arc;

/// A new database in a temporary directory: the directory (the database
/// lives while it does), the database's path and the database.
pub fn fresh() -> (tempfile::TempDir, std::path::PathBuf, Arc<Database>) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("db");
    let db = Arc::new(Database::create(&path, Options::default()).unwrap());
    (dir, path, db)
}

/// Closes `db` (every session on it dropped) and opens the database at
/// `path` again: what a restart keeps.
pub fn reopen(db: Arc<Database>, path: &std::path::Path) -> Arc<Database> {
    Arc::try_unwrap(db).ok().unwrap().close().unwrap();
    Arc::new(Database::open(path, Options::default()).unwrap())
}

/// Runs `sql`, which must succeed.
pub fn ok(s: &mut Session, sql: &str) {
    let (_, err) = s.simple_query(sql);
    assert!(err.is_none(), "{sql}: {err:?}");
}

/// Runs `sql`, which must fail; the error.
pub fn fails(s: &mut Session, sql: &str) -> SqlError {
    s.simple_query(sql)
        .1
        .unwrap_or_else(|| panic!("{sql} succeeded"))
}

/// The SQLSTATE of `sql`, which must fail.
pub fn code(s: &mut Session, sql: &str) -> String {
    fails(s, sql).code.to_string()
}

/// The rows of a one-query `sql`, each as its values' text joined by
/// spaces.
pub fn rows(s: &mut Session, sql: &str) -> Vec<String> {
    let (mut out, err) = s.simple_query(sql);
    assert!(err.is_none(), "{sql}: {err:?}");
    match out.pop() {
        Some(Output::Rows { rows, .. }) => rows
            .iter()
            .map(|r| {
                r.iter()
                    .map(|v: &Value| text_output(v).unwrap_or_else(|| "NULL".into()))
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .collect(),
        other => panic!("{sql}: {other:?}"),
    }
}

/// Waits until `session` waits for another transaction to end (a bounded
/// poll: the point is the order of events, not time).
pub fn until_waiting(session: &folio_txn::Interrupt) {
    for _ in 0..10_000 {
        if session.wait_event() == Some(folio_txn::WaitEvent::Transaction) {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
    panic!("the session does not wait");
}

/// The sqllogictest files under `tests/slt`, sorted by name; `SLT=name`
/// keeps only the files whose name holds `name`.
pub fn slt_files() -> Vec<std::path::PathBuf> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/slt");
    let only = std::env::var("SLT").ok();
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "slt"))
        .filter(|p| {
            let name = p.file_name().map(|n| n.to_string_lossy().into_owned());
            only.as_ref()
                .is_none_or(|only| name.is_some_and(|n| n.contains(only.as_str())))
        })
        .collect();
    files.sort();
    assert!(
        !files.is_empty(),
        "no .slt files in {} (SLT={only:?})",
        dir.display()
    );
    files
}
