//! Where PostgreSQL refuses a set-returning function (`project_set.rs`):
//! the SQLSTATE, HINT and position of each error, which the slt file
//! (`srf_in_expressions.slt`, messages only) cannot show. Expected values
//! are PostgreSQL 15's.

use folio_sql::Session;

mod common;
use common::{fails, ok};

const HINT: &str = "You might be able to move the set-returning function into a LATERAL FROM item.";

// Proves each refusal has PostgreSQL 15's SQLSTATE, message, HINT (or
// none) and the character position psql's caret shows.
#[test]
fn refusals_match_postgres() {
    let (_dir, _path, db) = common::fresh();
    let mut s = Session::new(db);
    ok(&mut s, "create table t (x int, y text)");
    let cases: [(&str, &str, &str, Option<&str>, usize); 9] = [
        (
            "select x from t where generate_series(1, 2) > 1",
            "0A000",
            "set-returning functions are not allowed in WHERE",
            None,
            23,
        ),
        (
            "select sum(generate_series(1, 2)) from t",
            "0A000",
            "aggregate function calls cannot contain set-returning function calls",
            Some(HINT),
            12,
        ),
        (
            "select case when x > 1 then generate_series(1, 2) end from t",
            "0A000",
            "set-returning functions are not allowed in CASE",
            Some(HINT),
            29,
        ),
        (
            "select coalesce(generate_series(1, 2), 0)",
            "0A000",
            "set-returning functions are not allowed in COALESCE",
            Some(HINT),
            17,
        ),
        (
            "select sum(x) over (order by x) + sum(generate_series(1, 2)) over () from t",
            "0A000",
            "window function calls cannot contain set-returning function calls",
            Some(HINT),
            39,
        ),
        (
            "select not (generate_series(1, 2) > 1)",
            "42804",
            "argument of NOT must not return a set",
            None,
            13,
        ),
        (
            "select 1 between generate_series(1, 2) and 3",
            "42804",
            "argument of AND must not return a set",
            None,
            8,
        ),
        (
            "create table d (a int default generate_series(1, 2))",
            "0A000",
            "set-returning functions are not allowed in DEFAULT expressions",
            None,
            31,
        ),
        (
            "update t set x = generate_series(1, 2)",
            "0A000",
            "set-returning functions are not allowed in UPDATE",
            None,
            18,
        ),
    ];
    for (sql, code, message, hint, position) in cases {
        let e = fails(&mut s, sql);
        assert_eq!(
            (e.code, e.message.as_str(), e.hint.as_deref()),
            (code, message, hint),
            "{sql}"
        );
        assert_eq!(e.sent_position(), Some(position), "{sql}");
    }
}
