//! Mutated statements: bad SQL never panics a session. Every statement and
//! query of the sqllogictest files (`tests/slt`) runs in order on its
//! file's database, as `slt.rs` runs them but without checking results,
//! and after each one its mutants run: the same text with a token deleted,
//! repeated or swapped with the next, a literal replaced by an edge value
//! (`2147483648`, `''`, `'infinity'`, `NULL`, ...), a keyword inserted, or
//! the text cut short. A mutant may succeed or fail with any SQLSTATE; it
//! must not panic. Each runs in a transaction (or a savepoint, inside the
//! file's own blocks) that is rolled back, with a 2 s `statement_timeout`,
//! so the file's later statements still see the state they were written
//! for and a mutant that would run for ever (a huge `generate_series`)
//! ends.
//!
//! Size: `FOLIO_SQL_MUTANTS` mutants per statement (default 1, CI's size),
//! from `FOLIO_SQL_MUTANTS_SEED` (default 1); `SLT=name` keeps the files
//! whose name holds it. `scripts/fuzz.sh --sql N` runs more. A failure
//! lists each panicking mutant with its file and line, and the seed;
//! `FOLIO_SQL_MUTANTS_TRACE=1` prints every mutant before it runs.

mod common;

use folio_db::{Database, Options};
use folio_sql::{Session, TxStatus};
use sqllogictest::{Condition, Connection, DefaultColumnType, Record};
use std::collections::HashMap;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::Path;
use std::sync::Arc;

/// Values a literal is replaced by: the edges of each type's range and
/// input syntax.
const EDGE_VALUES: &[&str] = &[
    "0",
    "-1",
    "2147483647",
    "-2147483648",
    "2147483648",
    "9223372036854775807",
    "-9223372036854775808",
    "9223372036854775808",
    "99999999999999999999999999999999999999999",
    "1e308",
    "1e-320",
    "0.000000000000000000000000000000000000001",
    "NULL",
    "''",
    "' '",
    "'NaN'",
    "'infinity'",
    "'-infinity'",
    "'{}'",
    "'{{1},{2}}'",
    "'[1,2)'",
    "'{\"a\": [1, {\"b\": null}]}'",
    "'0001-01-01 BC'",
    "'294276-12-31'",
    "'1 year -2 days 03:00'",
    "'\\x00ff'",
    "'%_\\'",
    "'x%'",
];

/// Words a mutant may gain.
const INSERTED: &[&str] = &[
    "NULL",
    "NOT",
    "DISTINCT",
    "ALL",
    "(",
    ")",
    ",",
    "*",
    "-",
    "||",
    "::int8",
    "::text",
    "ORDER BY 1",
    "LIMIT 0",
    "WHERE false",
    "AND",
    "OR",
    "IS NULL",
    "ASC",
    "DESC",
    "ONLY",
    "LATERAL",
    "RETURNING *",
    "DEFAULT",
    "ARRAY[]",
    "ROW()",
    "(SELECT 1)",
    "'",
];

/// A deterministic generator (SplitMix64): the same seed, the same
/// mutants.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn pick<'a>(&mut self, from: &[&'a str]) -> &'a str {
        from[self.below(from.len())]
    }
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Kind {
    Word,
    Number,
    Quoted,
    Space,
    Other,
}

/// The text's tokens: words, numbers, quoted strings and identifiers,
/// runs of white space, and single other characters.
fn tokens(sql: &str) -> Vec<(Kind, &str)> {
    let mut out = Vec::new();
    let bytes = sql.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        let start = i;
        let kind = if c.is_ascii_whitespace() {
            while i < bytes.len() && bytes[i].is_ascii_whitespace() {
                i += 1;
            }
            Kind::Space
        } else if c.is_ascii_digit() {
            while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'.') {
                i += 1;
            }
            Kind::Number
        } else if c.is_ascii_alphabetic() || c == b'_' || c >= 0x80 {
            while i < bytes.len()
                && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_' || bytes[i] >= 0x80)
            {
                i += 1;
            }
            Kind::Word
        } else if c == b'\'' || c == b'"' {
            i += 1;
            while i < bytes.len() && bytes[i] != c {
                i += 1;
            }
            i = (i + 1).min(bytes.len());
            Kind::Quoted
        } else {
            i += 1;
            Kind::Other
        };
        out.push((kind, &sql[start..i]));
    }
    out
}

/// One mutant of `sql`.
fn mutant(sql: &str, rng: &mut Rng) -> String {
    let toks = tokens(sql);
    let solid: Vec<usize> = (0..toks.len())
        .filter(|&i| toks[i].0 != Kind::Space)
        .collect();
    if solid.is_empty() {
        return sql.to_string();
    }
    let literals: Vec<usize> = solid
        .iter()
        .copied()
        .filter(|&i| {
            matches!(toks[i].0, Kind::Number | Kind::Quoted) && !toks[i].1.starts_with('"')
        })
        .collect();
    let mut parts: Vec<String> = toks.iter().map(|t| t.1.to_string()).collect();
    let at = solid[rng.below(solid.len())];
    match rng.below(7) {
        0 => parts[at].clear(),
        1 => parts[at] = format!("{0} {0}", parts[at]),
        2 => {
            let n = solid.iter().position(|&i| i == at).expect("solid");
            if let Some(&next) = solid.get(n + 1) {
                parts.swap(at, next);
            }
        }
        3 | 4 if !literals.is_empty() => {
            let lit = literals[rng.below(literals.len())];
            parts[lit] = rng.pick(EDGE_VALUES).to_string();
        }
        5 => parts.insert(at, format!(" {} ", rng.pick(INSERTED))),
        6 => parts.truncate(at),
        _ => parts[at] = "NULL".to_string(),
    }
    parts.concat()
}

/// A panic: where, what.
struct Panic {
    at: String,
    sql: String,
    message: String,
}

/// Runs `sql` on `session`; `Some(message)` if it panicked.
fn run(session: &mut Session, sql: &str) -> Option<String> {
    catch_unwind(AssertUnwindSafe(|| {
        session.simple_query(sql);
    }))
    .err()
    .map(|e| {
        e.downcast_ref::<String>()
            .cloned()
            .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_default()
    })
}

/// Runs `mutant` so that its effects are undone: in a transaction, or a
/// savepoint inside the file's own block; none inside a failed block.
fn run_undone(session: &mut Session, mutant: &str) -> Option<String> {
    let (open, close) = match session.status() {
        TxStatus::Idle => ("begin", "rollback"),
        TxStatus::InBlock => (
            "savepoint folio_mutant",
            "rollback to savepoint folio_mutant",
        ),
        TxStatus::Failed => return None,
    };
    session.simple_query(open);
    session.simple_query("set local statement_timeout = '2s'");
    let panicked = run(session, mutant);
    if panicked.is_none() {
        session.simple_query(close);
    }
    panicked
}

fn fuzz_file(path: &Path, mutants: usize, rng: &mut Rng, panics: &mut Vec<Panic>) {
    let records = sqllogictest::parse_file::<DefaultColumnType>(path).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let db = Arc::new(Database::create(dir.path().join("db"), Options::default()).unwrap());
    let mut sessions: HashMap<Connection, Session> = HashMap::new();
    for record in records {
        let (loc, conditions, connection, sql) = match record {
            Record::Statement {
                loc,
                conditions,
                connection,
                sql,
                ..
            }
            | Record::Query {
                loc,
                conditions,
                connection,
                sql,
                ..
            } => (loc, conditions, connection, sql),
            _ => continue,
        };
        let folio_only = |c: &Condition| match c {
            Condition::OnlyIf { label } => label != "folio",
            Condition::SkipIf { label } => label == "folio",
        };
        if conditions.iter().any(folio_only) {
            continue;
        }
        let session = sessions
            .entry(connection.clone())
            .or_insert_with(|| Session::new(db.clone()));
        let at = loc.to_string();
        let mut panicked = run(session, &sql).map(|m| (sql.clone(), m));
        for _ in 0..mutants {
            if panicked.is_some() {
                break;
            }
            let text = mutant(&sql, rng);
            if trace() {
                eprintln!("{at}: {text:?}");
            }
            panicked = run_undone(session, &text).map(|m| (text, m));
        }
        if let Some((sql, message)) = panicked {
            panics.push(Panic { at, sql, message });
            // The session is not trusted after a panic: a new one.
            sessions.insert(connection, Session::new(db.clone()));
        }
    }
}

/// `FOLIO_SQL_MUTANTS_TRACE=1` prints each mutant before it runs (to find
/// one that aborts the process: an allocation that fails, a stack
/// overflow).
fn trace() -> bool {
    std::env::var_os("FOLIO_SQL_MUTANTS_TRACE").is_some()
}

fn env_number(name: &str, default: u64) -> u64 {
    std::env::var(name).map_or(default, |v| v.parse().expect(name))
}

// Proves no statement of the sqllogictest files, and no mutant of one,
// panics its session (issue 17: bad input gets an error and the session
// carries on).
#[test]
fn mutated_statements_never_panic() {
    // On a thread with the stack `folio serve` gives a session, which the
    // bounds on nesting (`stack.rs`, a text-search query's depth) are
    // made for.
    std::thread::Builder::new()
        .stack_size(folio_sql::SESSION_STACK)
        .spawn(fuzz_all_files)
        .expect("a thread")
        .join()
        .expect("every statement and mutant without a panic (the list above)");
}

fn fuzz_all_files() {
    let mutants = env_number("FOLIO_SQL_MUTANTS", 1) as usize;
    let seed = env_number("FOLIO_SQL_MUTANTS_SEED", 1);
    let files = common::slt_files();
    // Quiet: the panics are caught and listed below.
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let mut panics = Vec::new();
    for file in &files {
        // Seeded by the file's name, so a file's mutants stay the same
        // when other files come and go.
        let name = file.file_name().expect("a file").to_string_lossy();
        let salt = name.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
            (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
        });
        let mut rng = Rng(seed.wrapping_mul(1_000_003) ^ salt);
        fuzz_file(file, mutants, &mut rng, &mut panics);
    }
    std::panic::set_hook(hook);
    let list: Vec<String> = panics
        .iter()
        .map(|p| format!("{}: {:?}\n    {}", p.at, p.sql, p.message))
        .collect();
    assert!(
        panics.is_empty(),
        "{} panics (FOLIO_SQL_MUTANTS={mutants} FOLIO_SQL_MUTANTS_SEED={seed}):\n{}",
        panics.len(),
        list.join("\n")
    );
}

#[test]
fn tokens_and_mutants() {
    let sql = "select a, 'it''s' from t where b = 12.5";
    let toks: Vec<&str> = tokens(sql)
        .into_iter()
        .filter(|t| t.0 != Kind::Space)
        .map(|t| t.1)
        .collect();
    assert_eq!(
        toks,
        [
            "select", "a", ",", "'it'", "'s'", "from", "t", "where", "b", "=", "12.5"
        ]
    );
    let mut rng = Rng(7);
    let texts: Vec<String> = (0..50).map(|_| mutant(sql, &mut rng)).collect();
    assert!(texts.iter().any(|t| t != sql));
    assert_eq!(texts, {
        let mut again = Rng(7);
        (0..50).map(|_| mutant(sql, &mut again)).collect::<Vec<_>>()
    });
}
