//! MERGE (`merge.rs`) where slt cannot show it: its command tag, two
//! sessions changing the same target rows, a prepared MERGE with
//! parameters, and what a reopened database keeps. Expected outcomes are
//! PostgreSQL 15's (the two-session case was run against it).

use folio_sql::{Output, Session};

mod common;
use common::{fails, ok, rows};

/// The tag of `sql`, which must succeed.
fn tag(s: &mut Session, sql: &str) -> String {
    let (mut out, e) = s.simple_query(sql);
    assert!(e.is_none(), "{sql}: {e:?}");
    out.pop().expect("an output").tag().to_string()
}

const MERGE: &str = "merge into t using d on t.id = d.id \
     when matched and t.v < 25 then update set v = t.v + d.k \
     when matched then delete \
     when not matched then insert values (d.id, -d.k)";

// Proves READ COMMITTED's re-check (PostgreSQL 15's EvalPlanQual): a
// target row another transaction updated is judged again on its newest
// version, from the first WHEN clause (id 1 still updates, id 2 now
// deletes); one it deleted (id 3) or moved off the join condition (id 4)
// sends the source row to the NOT MATCHED clause. The outcome is the
// same whether the MERGE waited for the other transaction's commit or
// started after it; PostgreSQL 15 gives these rows and `MERGE 4`.
#[test]
fn read_committed_rechecks_concurrently_changed_targets() {
    let (_dir, _, db) = common::fresh();
    let mut s = Session::new(db.clone());
    let mut other = Session::new(db.clone());
    ok(&mut s, "create table t (id int primary key, v int)");
    ok(&mut s, "create table d (id int, k int)");
    ok(
        &mut s,
        "insert into d values (1, 1), (2, 2), (3, 3), (4, 4)",
    );
    ok(
        &mut s,
        "insert into t values (1, 10), (2, 10), (3, 10), (4, 10)",
    );
    ok(
        &mut s,
        "begin; update t set v = 20 where id = 1; update t set v = 30 where id = 2; \
         delete from t where id = 3; update t set id = 44 where id = 4",
    );
    std::thread::scope(|scope| {
        let merger = scope.spawn(|| tag(&mut other, MERGE));
        std::thread::sleep(std::time::Duration::from_millis(100));
        ok(&mut s, "commit");
        assert_eq!(merger.join().unwrap(), "MERGE 4");
    });
    assert_eq!(
        rows(&mut s, "select id, v from t order by id"),
        ["1 21", "3 -3", "4 -4", "44 10"]
    );
}

// Proves REPEATABLE READ does not re-check: a target row changed since
// the MERGE's snapshot is 40001, as UPDATE's (and PostgreSQL 15's).
#[test]
fn repeatable_read_fails_on_a_concurrently_updated_target() {
    let (_dir, _, db) = common::fresh();
    let mut s = Session::new(db.clone());
    let mut other = Session::new(db.clone());
    ok(&mut s, "create table t (id int primary key, v int)");
    ok(&mut s, "create table d (id int, k int)");
    ok(&mut s, "insert into d values (1, 1)");
    ok(&mut s, "insert into t values (1, 10)");
    ok(&mut other, "begin isolation level repeatable read");
    assert_eq!(rows(&mut other, "select v from t"), ["10"]);
    ok(&mut s, "update t set v = 20 where id = 1");
    let e = fails(&mut other, MERGE);
    assert_eq!(
        (e.code, e.message.as_str()),
        (
            "40001",
            "could not serialize access due to concurrent update"
        )
    );
    ok(&mut other, "rollback");
}

// Proves a prepared MERGE takes parameters (each the type of the column
// it is assigned to or inserted into) and answers the tag `MERGE n`
// through the extended protocol's path (`execute_prepared`).
#[test]
fn prepared_merge_with_parameters() {
    let (_dir, _, db) = common::fresh();
    let mut s = Session::new(db);
    ok(&mut s, "create table t (id int primary key, v int)");
    let sql = "merge into t using (values ($1::int)) s(id) on t.id = s.id \
               when matched then update set v = $2 \
               when not matched then insert values (s.id, $2)";
    assert_eq!(s.prepare("m", sql).unwrap(), 2);
    let run = |s: &mut Session, id: &str, v: &str| match s
        .execute_prepared("m", &[Some(id.into()), Some(v.into())])
        .unwrap()
    {
        Output::Command { tag } => tag,
        other => panic!("{other:?}"),
    };
    assert_eq!(run(&mut s, "1", "10"), "MERGE 1");
    assert_eq!(run(&mut s, "1", "11"), "MERGE 1");
    assert_eq!(run(&mut s, "2", "20"), "MERGE 1");
    assert_eq!(
        rows(&mut s, "select id, v from t order by id"),
        ["1 11", "2 20"]
    );
}

// Proves what a MERGE inserted, updated and deleted is what a reopened
// database holds (its writes are the heap's and the WAL's, as INSERT's,
// UPDATE's and DELETE's).
#[test]
fn merged_rows_survive_reopening() {
    let (_dir, path, db) = common::fresh();
    let mut s = Session::new(db.clone());
    ok(&mut s, "create table t (id int primary key, v int)");
    ok(&mut s, "create table d (id int, k int)");
    ok(&mut s, "insert into t values (1, 10), (2, 30)");
    ok(&mut s, "insert into d values (1, 1), (2, 2), (3, 3)");
    assert_eq!(tag(&mut s, MERGE), "MERGE 3");
    drop(s);
    let db = common::reopen(db, &path);
    let mut s = Session::new(db);
    assert_eq!(
        rows(&mut s, "select id, v from t order by id"),
        ["1 11", "3 -3"]
    );
}

// Proves the SQLSTATEs, details and hints slt does not show: 21000 with
// PostgreSQL's hint, 42809 with its detail for a view, 42P01 with its
// hint for a NOT MATCHED clause naming the target, 42601 for an
// unreachable clause; and that the failed MERGE changed nothing.
#[test]
fn merge_errors_carry_postgresql_codes_details_and_hints() {
    let (_dir, _, db) = common::fresh();
    let mut s = Session::new(db);
    ok(&mut s, "create table t (id int primary key, v int)");
    ok(&mut s, "insert into t values (1, 10)");
    ok(&mut s, "create view tv as select * from t");
    let e = fails(
        &mut s,
        "merge into t using (values (1), (1)) s(id) on t.id = s.id \
         when matched then update set v = v + 1",
    );
    assert_eq!(
        (e.code, e.hint.as_deref()),
        (
            "21000",
            Some("Ensure that not more than one source row matches any one target row.")
        )
    );
    assert_eq!(rows(&mut s, "select v from t"), ["10"]);
    let e = fails(
        &mut s,
        "merge into tv using (values (1)) s(id) on tv.id = s.id when matched then delete",
    );
    assert_eq!(
        (e.code, e.detail.as_deref()),
        ("42809", Some("This operation is not supported for views."))
    );
    let e = fails(
        &mut s,
        "merge into t using (values (2)) s(id) on t.id = s.id \
         when not matched then insert values (s.id, t.v)",
    );
    assert_eq!(
        (e.code, e.hint.as_deref()),
        (
            "42P01",
            Some(
                "There is an entry for table \"t\", but it cannot be referenced from this part of the query."
            )
        )
    );
    let e = fails(
        &mut s,
        "merge into t using (values (2)) s(id) on t.id = s.id \
         when not matched then do nothing when not matched then insert values (2, 2)",
    );
    assert_eq!(e.code, "42601");
}
