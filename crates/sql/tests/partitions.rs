//! Partitioned tables (README "Partitioned tables") across a reopen, and
//! the statements `pgbench -i --partitions=4` sends: what the slt file
//! cannot show. Expected values are PostgreSQL 15's.

mod common;
use common::{code, fails, ok, rows};
use folio_sql::Session;

// Proves the partitioning facts are in the catalog: after closing and
// reopening the database, the partitions, their bounds and keys, the
// routing and the partition constraint are as before; a partition made
// in a transaction that rolled back is gone.
#[test]
fn partitions_survive_a_reopen() {
    let (_dir, path, db) = common::fresh();
    let mut s = Session::new(db.clone());
    ok(
        &mut s,
        "create table p (a int not null, b text) partition by range (a)",
    );
    ok(
        &mut s,
        "create table p1 partition of p for values from (minvalue) to (10)",
    );
    ok(
        &mut s,
        "create table p2 partition of p for values from (10) to (100)",
    );
    ok(&mut s, "create table h (id bigint) partition by hash (id)");
    ok(
        &mut s,
        "create table h0 partition of h for values with (modulus 2, remainder 0)",
    );
    ok(
        &mut s,
        "create table h1 partition of h for values with (modulus 2, remainder 1)",
    );
    ok(&mut s, "alter table p add primary key (a)");
    ok(&mut s, "insert into p values (1, 'x'), (15, 'y')");
    ok(&mut s, "insert into h select generate_series(1, 100)");
    ok(&mut s, "begin");
    ok(
        &mut s,
        "create table p3 partition of p for values from (200) to (300)",
    );
    ok(&mut s, "rollback");
    drop(s);
    let db = common::reopen(db, &path);
    let mut s = Session::new(db.clone());
    assert_eq!(
        rows(&mut s, "select tableoid::regclass, a, b from p order by a"),
        ["p1 1 x", "p2 15 y"]
    );
    assert_eq!(
        rows(
            &mut s,
            "select relname, relkind, pg_get_expr(relpartbound, oid) from pg_class \
             where relname in ('p', 'p1', 'p2') order by 1"
        ),
        [
            "p p NULL",
            "p1 r FOR VALUES FROM (MINVALUE) TO (10)",
            "p2 r FOR VALUES FROM (10) TO (100)"
        ]
    );
    // (PostgreSQL 15 puts 52 and 48 of 1..100 in h0 and h1.)
    assert_eq!(
        rows(
            &mut s,
            "select tableoid::regclass, count(*) from h group by 1 order by 1"
        ),
        ["h0 52", "h1 48"]
    );
    assert_eq!(
        rows(&mut s, "select count(*) from pg_class where relname = 'p3'"),
        ["0"]
    );
    assert_eq!(code(&mut s, "insert into p1 values (20, 'z')"), "23514");
    assert_eq!(code(&mut s, "insert into p values (15, 'dup')"), "23505");
    ok(&mut s, "update p set a = 3 where a = 15");
    assert_eq!(
        rows(&mut s, "select tableoid::regclass, a from p order by a"),
        ["p1 1", "p1 3"]
    );
}

// Proves the statements `pgbench -i -s 1 --partitions=4` sends (its
// tables, the rows, `vacuum analyze`, the primary key after the rows),
// then pgbench's queries, as PostgreSQL 15's pgbench runs them.
#[test]
fn pgbench_partitioned_init() {
    let (_dir, _path, db) = common::fresh();
    let mut s = Session::new(db);
    for sql in [
        "drop table if exists pgbench_accounts, pgbench_branches, pgbench_history, pgbench_tellers",
        "create table pgbench_history(tid int,bid int,aid int,delta int,mtime timestamp,filler char(22))",
        "create table pgbench_tellers(tid int not null,bid int,tbalance int,filler char(84)) with (fillfactor=100)",
        "create table pgbench_accounts(aid int not null,bid int,abalance int,filler char(84)) partition by range (aid)",
        "create table pgbench_branches(bid int not null,bbalance int,filler char(88)) with (fillfactor=100)",
        "create table pgbench_accounts_1 partition of pgbench_accounts for values from (minvalue) to (25001) with (fillfactor=100)",
        "create table pgbench_accounts_2 partition of pgbench_accounts for values from (25001) to (50001) with (fillfactor=100)",
        "create table pgbench_accounts_3 partition of pgbench_accounts for values from (50001) to (75001) with (fillfactor=100)",
        "create table pgbench_accounts_4 partition of pgbench_accounts for values from (75001) to (maxvalue) with (fillfactor=100)",
        "begin",
        "truncate table pgbench_accounts, pgbench_branches, pgbench_history, pgbench_tellers",
        "insert into pgbench_branches(bid,bbalance) values(1,0)",
        "insert into pgbench_tellers(tid,bid,tbalance) select g, 1, 0 from generate_series(1, 10) g",
        "insert into pgbench_accounts select g, 1, 0, '' from generate_series(1, 100000) g",
        "commit",
        "vacuum analyze pgbench_branches",
        "vacuum analyze pgbench_tellers",
        "vacuum analyze pgbench_accounts",
        "vacuum analyze pgbench_history",
        "alter table pgbench_branches add primary key (bid)",
        "alter table pgbench_tellers add primary key (tid)",
        "alter table pgbench_accounts add primary key (aid)",
    ] {
        ok(&mut s, sql);
    }
    assert_eq!(
        rows(
            &mut s,
            "select count(*), tableoid::regclass from pgbench_accounts group by 2 order by 2"
        ),
        [
            "25000 pgbench_accounts_1",
            "25000 pgbench_accounts_2",
            "25000 pgbench_accounts_3",
            "25000 pgbench_accounts_4"
        ]
    );
    // pgbench's look at the table before a run: its partitions.
    assert_eq!(
        rows(
            &mut s,
            "select o.n, p.partstrat, pg_catalog.count(i.inhparent) from pg_catalog.pg_class as c \
             join pg_catalog.pg_namespace as n on (n.oid = c.relnamespace) \
             cross join lateral (select pg_catalog.array_position(pg_catalog.current_schemas(true), n.nspname)) as o(n) \
             left join pg_catalog.pg_partitioned_table as p on (p.partrelid = c.oid) \
             left join pg_catalog.pg_inherits as i on (c.oid = i.inhparent) \
             where c.relname = 'pgbench_accounts' and o.n is not null \
             group by 1, 2 order by 1 asc limit 1"
        ),
        ["2 r 4"]
    );
    ok(&mut s, "begin");
    ok(
        &mut s,
        "update pgbench_accounts set abalance = abalance + 5 where aid = 60000",
    );
    assert_eq!(
        rows(
            &mut s,
            "select abalance from pgbench_accounts where aid = 60000"
        ),
        ["5"]
    );
    ok(&mut s, "commit");
    assert_eq!(
        rows(
            &mut s,
            "select indexrelid::regclass from pg_index where indrelid = 'pgbench_accounts_3'::regclass"
        ),
        ["pgbench_accounts_3_pkey"]
    );
    // Step `f`: the foreign keys, to and from the partitioned table, each
    // checked on the rows there.
    for sql in [
        "alter table pgbench_tellers add constraint pgbench_tellers_bid_fkey foreign key (bid) references pgbench_branches",
        "alter table pgbench_accounts add constraint pgbench_accounts_bid_fkey foreign key (bid) references pgbench_branches",
        "alter table pgbench_history add constraint pgbench_history_bid_fkey foreign key (bid) references pgbench_branches",
        "alter table pgbench_history add constraint pgbench_history_tid_fkey foreign key (tid) references pgbench_tellers",
        "alter table pgbench_history add constraint pgbench_history_aid_fkey foreign key (aid) references pgbench_accounts",
        "insert into pgbench_history (tid, bid, aid, delta, mtime) values (3, 1, 60000, 5, current_timestamp)",
    ] {
        ok(&mut s, sql);
    }
    let e = fails(
        &mut s,
        "insert into pgbench_history (tid, bid, aid, delta) values (3, 1, 100001, 5)",
    );
    assert_eq!(e.code, "23503");
    assert_eq!(
        e.detail.as_deref(),
        Some("Key (aid)=(100001) is not present in table \"pgbench_accounts\".")
    );
}

// Proves the DETAIL lines of the foreign key errors of partitioned tables
// are PostgreSQL 15's: a missing referenced key (from a partitioned
// table, to one), a referenced key deleted (from a table a partitioned
// one references, from a partition), a partition detached with referenced
// rows, existing rows when the key is added.
#[test]
fn partitioned_foreign_key_errors_say_which_key() {
    let (_dir, _path, db) = common::fresh();
    let mut s = Session::new(db);
    for sql in [
        "create table r (id int primary key)",
        "insert into r values (1), (2)",
        "create table p (a int, rid int references r) partition by list (a)",
        "create table p1 partition of p for values in (1)",
        "create table q (k int primary key) partition by range (k)",
        "create table q1 partition of q for values from (0) to (10)",
        "insert into q values (1), (2)",
        "create table h (k int references q)",
        "insert into h values (1)",
        "insert into p values (1, 2)",
    ] {
        ok(&mut s, sql);
    }
    let cases = [
        (
            "insert into p values (1, 9)",
            "insert or update on table \"p1\" violates foreign key constraint \"p_rid_fkey\"",
            "Key (rid)=(9) is not present in table \"r\".",
        ),
        (
            "insert into h values (5)",
            "insert or update on table \"h\" violates foreign key constraint \"h_k_fkey\"",
            "Key (k)=(5) is not present in table \"q\".",
        ),
        (
            "delete from r where id = 2",
            "update or delete on table \"r\" violates foreign key constraint \"p_rid_fkey\" on table \"p\"",
            "Key (id)=(2) is still referenced from table \"p\".",
        ),
        (
            "delete from q1 where k = 1",
            "update or delete on table \"q1\" violates foreign key constraint \"h_k_fkey\" on table \"h\"",
            "Key (k)=(1) is still referenced from table \"h\".",
        ),
        (
            "alter table q detach partition q1",
            "removing partition \"q1\" violates foreign key constraint \"h_k_fkey\"",
            "Key (k)=(1) is still referenced from table \"h\".",
        ),
    ];
    for (sql, message, detail) in cases {
        let e = fails(&mut s, sql);
        assert_eq!(e.code, "23503", "{sql}");
        assert_eq!(e.message, message, "{sql}");
        assert_eq!(e.detail.as_deref(), Some(detail), "{sql}");
    }
    ok(&mut s, "create table h2 (k int)");
    ok(&mut s, "insert into h2 values (7)");
    let e = fails(&mut s, "alter table h2 add foreign key (k) references q");
    assert_eq!(
        e.detail.as_deref(),
        Some("Key (k)=(7) is not present in table \"q\".")
    );
}

/// The pages (buffer pool hits and reads) `sql` latched on this thread.
fn pages(db: &folio_db::Database, s: &mut Session, sql: &str) -> u64 {
    let before = db.pool().thread_stats();
    ok(s, sql);
    let after = db.pool().thread_stats();
    (after.hits + after.misses) - (before.hits + before.misses)
}

// Proves run-time pruning (README "Partitioned tables"): a prepared
// point query, UPDATE and DELETE of a hash or range partitioned table
// keep one plan (made once) and each execution touches only the
// partition its parameter names: as many pages as the same statement
// prepared on that partition itself, where reading every partition's
// index would touch about four times as many.
#[test]
fn parameters_prune_partitions_when_an_execution_starts() {
    let (_dir, _path, db) = common::fresh();
    let mut s = Session::new(db.clone());
    for method in ["hash", "range"] {
        ok(&mut s, "drop table if exists a");
        ok(
            &mut s,
            &format!(
                "create table a (aid int primary key, abalance int) partition by {method} (aid)"
            ),
        );
        for n in 0..4 {
            let bound = match method {
                "hash" => format!("with (modulus 4, remainder {n})"),
                _ => format!("from ({}) to ({})", n * 2500 + 1, (n + 1) * 2500 + 1),
            };
            ok(
                &mut s,
                &format!("create table a_{n} partition of a for values {bound}"),
            );
        }
        ok(
            &mut s,
            "insert into a select g, 0 from generate_series(1, 10000) g",
        );
        let [part] = rows(&mut s, "select tableoid::regclass from a where aid = 6000")
            .try_into()
            .unwrap();
        for (name, on) in [("p", "a"), ("q", part.as_str())] {
            ok(
                &mut s,
                &format!("prepare {name}_sel(int) as select abalance from {on} where aid = $1"),
            );
            ok(
                &mut s,
                &format!(
                    "prepare {name}_upd(int, int) as update {on} set abalance = abalance + $1 where aid = $2"
                ),
            );
            ok(
                &mut s,
                &format!("prepare {name}_del(int) as delete from {on} where aid = $1"),
            );
        }
        let plans = s.plans_made();
        for (parent, partition) in [
            ("execute p_sel(6000)", "execute q_sel(6000)"),
            ("execute p_upd(1, 6000)", "execute q_upd(1, 6000)"),
            ("execute p_del(6001)", "execute q_del(6001)"),
        ] {
            // (Run once first: the same state of the pool for both.)
            ok(&mut s, parent);
            ok(&mut s, partition);
            let via_parent = pages(&db, &mut s, parent);
            let direct = pages(&db, &mut s, partition);
            assert!(
                via_parent <= direct + 1,
                "{method}: {parent} touched {via_parent} pages, {partition} {direct}"
            );
        }
        assert_eq!(
            s.plans_made(),
            plans,
            "{method}: no execution planned again"
        );
        assert_eq!(
            rows(&mut s, "select abalance from a where aid = 6000"),
            ["4"]
        );
        ok(&mut s, "deallocate all");
    }
}

// Proves COPY FROM into a partitioned table routes each row to a
// partition whose columns are in another order than its parent's (and
// through a middle level in a third order), and that COPY into such a
// partition reads its own order; a row outside the partition is 23514.
// Expected values are PostgreSQL 15's.
#[test]
fn copy_reaches_partitions_in_another_column_order() {
    let (_dir, _path, db) = common::fresh();
    let mut s = Session::new(db);
    ok(
        &mut s,
        "create table cp (a int, b text, c int) partition by range (a)",
    );
    ok(&mut s, "create table cp1 (c int, b text, a int)");
    ok(
        &mut s,
        "alter table cp attach partition cp1 for values from (0) to (10)",
    );
    ok(
        &mut s,
        "create table cp2 (b text, a int, c int) partition by list (c)",
    );
    ok(&mut s, "create table cp2_1 (c int, a int, b text)");
    ok(
        &mut s,
        "alter table cp2 attach partition cp2_1 for values in (1)",
    );
    ok(
        &mut s,
        "alter table cp attach partition cp2 for values from (10) to (20)",
    );
    ok(&mut s, "copy cp from stdin");
    s.copy_data(b"8\tcopied\t8\n16\tcopied\t1\n").unwrap();
    assert_eq!(s.copy_done().unwrap().tag(), "COPY 2");
    ok(&mut s, "copy cp1 from stdin");
    s.copy_data(b"9\tdirect\t4\n").unwrap();
    assert_eq!(s.copy_done().unwrap().tag(), "COPY 1");
    assert_eq!(
        rows(&mut s, "select tableoid::regclass, * from cp order by a"),
        ["cp1 4 direct 9", "cp1 8 copied 8", "cp2_1 16 copied 1"]
    );
    assert_eq!(rows(&mut s, "select * from cp2_1"), ["1 16 copied"]);
    ok(&mut s, "copy cp1 from stdin");
    let e = s
        .copy_data(b"1\twrong\t30\n")
        .and_then(|()| s.copy_done().map(|_| ()))
        .unwrap_err();
    assert_eq!(
        (e.code, e.message.as_str(), e.detail.as_deref()),
        (
            "23514",
            "new row for relation \"cp1\" violates partition constraint",
            Some("Failing row contains (1, wrong, 30).")
        )
    );
}
