//! What COPY TO copies of a table under row-level security
//! (`copy.rs`): the table alone, not its inheritance children, and only
//! the rows its policies show; the slt runner cannot read a COPY's rows
//! (`slt/rls_copy.slt` has the errors). Expected rows are PostgreSQL
//! 15's.

use folio_sql::{Output, Session};

mod common;
use common::ok;

/// The lines `sql` (a COPY TO STDOUT) sends, in order.
fn copied(s: &mut Session, sql: &str) -> Vec<String> {
    let (mut out, err) = s.simple_query(sql);
    assert!(err.is_none(), "{sql}: {err:?}");
    match out.pop() {
        Some(Output::CopyOut { lines, .. }) => (lines.into_iter())
            .map(|l| String::from_utf8(l).unwrap())
            .collect(),
        other => panic!("{sql}: {other:?}"),
    }
}

// Proves COPY t TO under a policy copies t's own visible rows (not a
// child's), and COPY (query) TO the rows the query sees (the child's
// too, through the parent's policy), each found through the search path.
#[test]
fn copy_to_reads_the_table_alone_under_its_policies() {
    let (_dir, _, db) = common::fresh();
    let mut s = Session::new(db);
    for sql in [
        "create role rls_copy_user",
        "create schema rls_copy",
        "set search_path = rls_copy",
        "create table ct (a int, b text)",
        "create policy even on ct using (a % 2 = 0)",
        "alter table ct enable row level security",
        "create table ct_child () inherits (ct)",
        "grant usage on schema rls_copy to public",
        "grant all on ct, ct_child to public",
        "insert into ct values (1, 'one'), (2, 'two')",
        "insert into ct_child values (3, 'three'), (4, 'four')",
        "set role rls_copy_user",
    ] {
        ok(&mut s, sql);
    }
    assert_eq!(copied(&mut s, "copy ct to stdout"), ["2\ttwo\n"]);
    assert_eq!(
        copied(&mut s, "copy (select * from ct order by a) to stdout"),
        ["2\ttwo\n", "4\tfour\n"]
    );
}
