//! Parameter types a Parse message gives (tokio-postgres's
//! `prepare_typed`): each `$n` is a value of its declared type wherever
//! it stands, a VALUES list included, as PostgreSQL's; a parameter with
//! no type is inferred from where it stands, so in a VALUES list alone it
//! is text (PostgreSQL's error for comparing it with an integer); a
//! parameter cast in place takes the cast's type, and a declared one its
//! declared type even if unused; one with no type at all is 42P18. And
//! a portal bound after a savepoint is dropped by ROLLBACK TO it.

use tokio_postgres::types::Type;

mod common;

use common::{Raw, hex};

// Proves a declared int4 parameter makes `(VALUES ($1))` an integer
// column (the UPDATE joins on it; before, 42883 integer = text), reports
// its type in the statement's description, and reads as `integer`; the
// same statement untyped is PostgreSQL's 42883.
#[tokio::test(flavor = "current_thread")]
async fn declared_parameter_types_hold_in_values() {
    let (_dir, server) = common::pool_server(1);
    let client = common::connect_tcp(&server).await;
    client
        .batch_execute(
            "create table tp (k int primary key, v int); insert into tp values (1, 10), (2, 20)",
        )
        .await
        .unwrap();
    let sql = "update tp set v = v + 1 from (values ($1)) s(k) where tp.k = s.k";
    let update = client.prepare_typed(sql, &[Type::INT4]).await.unwrap();
    assert_eq!(update.params(), &[Type::INT4]);
    assert_eq!(client.execute(&update, &[&1i32]).await.unwrap(), 1);
    let row = client
        .query_one("select v from tp where k = 1", &[])
        .await
        .unwrap();
    assert_eq!(row.get::<_, i32>(0), 11);

    let e = client.prepare(sql).await.unwrap_err();
    assert_eq!(e.code().map(|c| c.code()), Some("42883"), "{e}");

    let typed = client
        .prepare_typed("select $1, pg_typeof($1)::text", &[Type::INT8])
        .await
        .unwrap();
    let row = client.query_one(&typed, &[&7i64]).await.unwrap();
    assert_eq!(row.get::<_, i64>(0), 7);
    assert_eq!(row.get::<_, String>(1), "bigint");
}

// Proves ROLLBACK TO a savepoint drops the portals bound since it
// (34000), as PostgreSQL drops an aborted subtransaction's portals, and
// keeps one bound before it.
#[tokio::test(flavor = "current_thread")]
async fn rollback_to_drops_portals_bound_since() {
    let (_dir, server) = common::pool_server(1);
    let mut client = common::connect_tcp(&server).await;
    let txn = client.transaction().await.unwrap();
    let statement = txn.prepare("select generate_series(1, $1)").await.unwrap();
    let before = txn.bind(&statement, &[&3i32]).await.unwrap();
    txn.batch_execute("savepoint a").await.unwrap();
    let after = txn.bind(&statement, &[&3i32]).await.unwrap();
    txn.batch_execute("rollback to a").await.unwrap();
    let e = txn.query_portal(&after, 1).await.unwrap_err();
    assert_eq!(e.code().map(|c| c.code()), Some("34000"), "{e}");
    txn.batch_execute("rollback to a").await.unwrap();
    let rows = txn.query_portal(&before, 5).await.unwrap();
    assert_eq!(rows.len(), 3);
    txn.commit().await.unwrap();
}

// Proves a parameter cast in place is described with the cast's type, as
// PostgreSQL 15's ParameterDescription gives it (int4, int4range, int8,
// date; the first cast of `$1` wins), so a binary parameter of that type
// round-trips; before, it was described as text and its binary bytes
// were read as text.
#[tokio::test(flavor = "current_thread")]
async fn a_cast_in_place_types_its_parameter() {
    let (_dir, server) = common::pool_server(1);
    let client = common::connect_tcp(&server).await;
    client
        .batch_execute(
            "create table tc (a bigint); insert into tc values (1), (2); create table td (d date)",
        )
        .await
        .unwrap();

    let int = client.prepare("select $1::int4").await.unwrap();
    assert_eq!(int.params(), &[Type::INT4]);
    let row = client.query_one(&int, &[&42i32]).await.unwrap();
    assert_eq!(row.get::<_, i32>(0), 42);

    let range = client
        .prepare("select ($1::int4range)::text")
        .await
        .unwrap();
    assert_eq!(range.params(), &[Type::INT4_RANGE]);
    // `(1,5]` in range_send's form: flags 0x04, bounds 1 and 5.
    let sent = Raw(hex("0400000004000000010000000400000005"));
    let row = client.query_one(&range, &[&sent]).await.unwrap();
    assert_eq!(row.get::<_, String>(0), "[2,6)");

    let filter = client
        .prepare("select a from tc where a = $1::bigint")
        .await
        .unwrap();
    assert_eq!(filter.params(), &[Type::INT8]);
    let row = client.query_one(&filter, &[&2i64]).await.unwrap();
    assert_eq!(row.get::<_, i64>(0), 2);

    let insert = client
        .prepare("insert into td values ($1::date)")
        .await
        .unwrap();
    assert_eq!(insert.params(), &[Type::DATE]);
    // 2020-01-01: 7305 days after 2000-01-01.
    let day = Raw(hex("00001c89"));
    assert_eq!(client.execute(&insert, &[&day]).await.unwrap(), 1);
    let row = client
        .query_one("select d::text from td", &[])
        .await
        .unwrap();
    assert_eq!(row.get::<_, String>(0), "2020-01-01");

    let twice = client.prepare("select $1::int4, $1::int8").await.unwrap();
    assert_eq!(twice.params(), &[Type::INT4]);
    let row = client.query_one(&twice, &[&7i32]).await.unwrap();
    assert_eq!((row.get::<_, i32>(0), row.get::<_, i64>(1)), (7, 7));
}

// Proves a parameter type declared by Parse but not used in the
// statement is described as declared (PostgreSQL's ParameterDescription
// for `select 1` with int4 and date declared), and binds as that type.
#[tokio::test(flavor = "current_thread")]
async fn an_unused_declared_parameter_keeps_its_type() {
    let (_dir, server) = common::pool_server(1);
    let client = common::connect_tcp(&server).await;
    let statement = client
        .prepare_typed("select 1", &[Type::INT4, Type::DATE])
        .await
        .unwrap();
    assert_eq!(statement.params(), &[Type::INT4, Type::DATE]);
    let row = client
        .query_one(&statement, &[&3i32, &Raw(hex("00001c89"))])
        .await
        .unwrap();
    assert_eq!(row.get::<_, i32>(0), 1);
}

// Proves a Parse whose statement skips a parameter number that no
// declared type covers fails with PostgreSQL's 42P18, and one whose
// declared types cover the gap is prepared.
#[tokio::test(flavor = "current_thread")]
async fn a_parameter_with_no_type_is_42p18() {
    let (_dir, server) = common::pool_server(1);
    let client = common::connect_tcp(&server).await;
    let e = client.prepare("select $2::int8").await.unwrap_err();
    let e = e.as_db_error().unwrap();
    assert_eq!(e.code().code(), "42P18");
    assert_eq!(e.message(), "could not determine data type of parameter $1");
    let statement = client
        .prepare_typed("select $2::int8", &[Type::TEXT])
        .await
        .unwrap();
    assert_eq!(statement.params(), &[Type::TEXT, Type::INT8]);
    // The session goes on.
    let row = client.query_one("select 1", &[]).await.unwrap();
    assert_eq!(row.get::<_, i32>(0), 1);
}

// Proves `LIMIT $1 OFFSET $2` of an extended-protocol Parse (what a
// driver pages with) describes both parameters as `bigint`, as
// PostgreSQL infers them, and that one kept statement pages through a
// table's index order with the values of each Bind; a negative count is
// PostgreSQL's 2201W.
#[tokio::test(flavor = "current_thread")]
async fn limit_and_offset_parameters_are_bigint_and_read_per_bind() {
    let (_dir, server) = common::pool_server(1);
    let client = common::connect_tcp(&server).await;
    client
        .batch_execute(
            "create table pages (k int primary key); \
             insert into pages select g from generate_series(1, 10) g",
        )
        .await
        .unwrap();
    let page = client
        .prepare("select k from pages order by k limit $1 offset $2")
        .await
        .unwrap();
    assert_eq!(page.params(), &[Type::INT8, Type::INT8]);
    let keys = |rows: Vec<tokio_postgres::Row>| -> Vec<i32> {
        rows.iter().map(|r| r.get::<_, i32>(0)).collect()
    };
    let first = client.query(&page, &[&3i64, &0i64]).await.unwrap();
    assert_eq!(keys(first), [1, 2, 3]);
    let third = client.query(&page, &[&3i64, &6i64]).await.unwrap();
    assert_eq!(keys(third), [7, 8, 9]);
    let all = client.query(&page, &[&None::<i64>, &8i64]).await.unwrap();
    assert_eq!(keys(all), [9, 10]);
    let e = client.query(&page, &[&-1i64, &0i64]).await.unwrap_err();
    assert_eq!(e.code().map(|c| c.code()), Some("2201W"), "{e}");
}

// Proves a job queue's `... order by k limit $1 for update skip locked`
// locks only the rows its LIMIT takes, with the count of each Bind: a
// second client skips the first one's two rows and takes the next two
// (locking every row read would leave it none).
#[tokio::test(flavor = "current_thread")]
async fn skip_locked_with_a_limit_parameter_locks_only_its_rows() {
    let (_dir, server) = common::pool_server(2);
    let mut first = common::connect_tcp(&server).await;
    let mut second = common::connect_tcp(&server).await;
    first
        .batch_execute(
            "create table jobs (k int primary key); \
             insert into jobs select g from generate_series(1, 6) g",
        )
        .await
        .unwrap();
    let sql = "select k from jobs order by k limit $1 for update skip locked";
    let keys = |rows: Vec<tokio_postgres::Row>| -> Vec<i32> {
        rows.iter().map(|r| r.get::<_, i32>(0)).collect()
    };
    let a = first.transaction().await.unwrap();
    let take = a.prepare(sql).await.unwrap();
    assert_eq!(keys(a.query(&take, &[&2i64]).await.unwrap()), [1, 2]);
    let b = second.transaction().await.unwrap();
    let take = b.prepare(sql).await.unwrap();
    assert_eq!(keys(b.query(&take, &[&2i64]).await.unwrap()), [3, 4]);
    b.rollback().await.unwrap();
    a.rollback().await.unwrap();
}
