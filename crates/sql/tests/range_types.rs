//! Range columns across a restart (README "Range types"): stored ranges
//! (empty, infinite bounds, NULL) and a btree index and primary key over
//! a range column read back the same after closing and reopening the
//! database, in PostgreSQL's range order.

mod common;

use common::{code, ok, rows};
use folio_sql::Session;

// Proves range values of every built-in range type survive a reopen, a
// primary key on an int4range still refuses a duplicate (an equal range
// written differently), and an index scan and a sort agree on the order.
#[test]
fn range_columns_survive_restart() {
    let (_dir, path, db) = common::fresh();
    let mut s = Session::new(db.clone());
    ok(
        &mut s,
        "create table t (r int4range primary key, b int8range, n numrange, d daterange, \
         ts tsrange, tz tstzrange)",
    );
    ok(&mut s, "create index t_n on t (n)");
    ok(
        &mut s,
        "insert into t values \
         ('[1,5)', '(,10]', '[1.5,2.50]', '[2020-01-01,2020-02-01)', \
          '[2020-01-01 10:00,)', '(,2020-01-01 00:00+00]'), \
         ('empty', 'empty', 'empty', 'empty', 'empty', 'empty'), \
         ('(,0)', null, '(,)', null, null, null)",
    );
    drop(s);
    let db = common::reopen(db, &path);
    let mut s = Session::new(db.clone());
    assert_eq!(
        // `t.r`: the column (a bare `r` names the output column, text).
        rows(&mut s, "select r::text from t order by t.r"),
        ["empty", "(,0)", "[1,5)"]
    );
    assert_eq!(
        rows(
            &mut s,
            "select concat_ws(' ', b, n, d, ts, tz) from t where r = '[1,4]'"
        ),
        [
            "(,11) [1.5,2.50] [2020-01-01,2020-02-01) [\"2020-01-01 10:00:00\",) (,\"2020-01-01 00:00:00+00\"]"
        ]
    );
    assert_eq!(
        rows(
            &mut s,
            "select n::text from t where n >= 'empty' order by t.n"
        ),
        ["empty", "(,)", "[1.5,2.50]"]
    );
    assert_eq!(code(&mut s, "insert into t (r) values ('[1,4]')"), "23505");
}
