//! SQL behaviour as sqllogictest files (`tests/slt/*.slt`), run against
//! folio in process: one database per file, one session per connection
//! the file names. The expected results are PostgreSQL 15's (each file
//! was run against PostgreSQL 15 when written; README "Tests").

mod common;

use folio_db::{Database, Options};
use folio_row::SqlType;
use folio_sql::{Output, Session, SqlError, text_output_in};
use sqllogictest::{DBOutput, DefaultColumnType};
use std::path::Path;
use std::sync::Arc;

/// One session on the file's database.
struct Folio {
    session: Session,
}

impl sqllogictest::DB for Folio {
    type Error = SqlError;
    type ColumnType = DefaultColumnType;

    fn run(&mut self, sql: &str) -> Result<DBOutput<DefaultColumnType>, SqlError> {
        let (outputs, error) = self.session.simple_query(sql);
        if let Some(e) = error {
            return Err(e);
        }
        // Text as the server writes it: in the session's style.
        let style = self.session.text_style();
        match outputs.into_iter().last() {
            Some(Output::Rows { columns, rows, .. }) => {
                let types = columns.iter().map(|c| column_type(c.type_oid)).collect();
                let rows = rows
                    .iter()
                    .map(|row| {
                        row.iter()
                            .map(|v| match text_output_in(v, &style) {
                                Some(t) if t.is_empty() => "(empty)".to_string(),
                                Some(t) => t,
                                None => "NULL".to_string(),
                            })
                            .collect()
                    })
                    .collect();
                Ok(DBOutput::Rows { types, rows })
            }
            Some(output) => {
                let count = output
                    .tag()
                    .rsplit(' ')
                    .next()
                    .and_then(|n| n.parse().ok())
                    .unwrap_or(0);
                Ok(DBOutput::StatementComplete(count))
            }
            None => Ok(DBOutput::StatementComplete(0)),
        }
    }

    fn engine_name(&self) -> &str {
        "folio"
    }

    fn error_sql_state(err: &SqlError) -> Option<String> {
        Some(err.code.to_string())
    }
}

/// sqllogictest's column type letters: I integer, R numeric/float, T text.
fn column_type(oid: u32) -> DefaultColumnType {
    let integer = [SqlType::Int2, SqlType::Int4, SqlType::Int8].map(|t| t.oid());
    let real = [SqlType::Float4, SqlType::Float8, SqlType::Numeric(None)].map(|t| t.oid());
    if integer.contains(&oid) {
        DefaultColumnType::Integer
    } else if real.contains(&oid) {
        DefaultColumnType::FloatingPoint
    } else {
        DefaultColumnType::Text
    }
}

fn run_file(path: &Path) {
    let dir = tempfile::tempdir().unwrap();
    // As the reference cluster the expected results come from
    // (max_prepared_transactions = 10; folio's default is PostgreSQL's 0).
    let options = Options {
        max_prepared_transactions: 10,
        ..Options::default()
    };
    let db = Arc::new(Database::create(dir.path().join("db"), options).unwrap());
    let mut runner = sqllogictest::Runner::new(move || {
        let session = Session::new(db.clone());
        async move { Ok(Folio { session }) }
    });
    runner.add_label("folio");
    if let Err(e) = runner.run_file(path) {
        panic!("{}: {}", path.display(), e.display(true));
    }
}

// Proves every sqllogictest file under tests/slt gives PostgreSQL 15's
// results on folio.
#[test]
fn sqllogictest_files() {
    let files = common::slt_files();
    for file in &files {
        run_file(file);
    }
}
