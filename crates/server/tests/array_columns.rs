//! Array columns through `tokio-postgres`'s typed API: the driver binds a
//! `Vec` as a binary array parameter and reads array columns in binary
//! (PostgreSQL's array wire format), NULL elements and NULL arrays
//! included; a large array goes out of line and comes back whole.

mod common;

// Proves text[], int4[] and int8[] columns take binary array parameters
// and give them back, with NULL elements, empty arrays and NULL arrays,
// and that `= ANY($1)` and `@>` take an array parameter.
#[tokio::test(flavor = "current_thread")]
async fn tokio_postgres_binds_and_reads_array_columns() {
    let (_dir, server) = common::pool_server(1);
    let client = common::connect_tcp(&server).await;
    client
        .batch_execute(
            "create table post (id int primary key, tags text[], scores int4[], big int8[])",
        )
        .await
        .unwrap();
    let tags: Vec<Option<String>> = vec![Some("db".into()), None, Some("rust".into())];
    let scores: Vec<i32> = vec![3, 1, 2];
    let big: Vec<i64> = (0..5000).collect();
    let insert = "insert into post values ($1, $2, $3, $4)";
    client
        .execute(insert, &[&1i32, &tags, &scores, &big])
        .await
        .unwrap();
    let empty: Vec<String> = Vec::new();
    let (none, none_big): (Option<Vec<i32>>, Option<Vec<i64>>) = (None, None);
    client
        .execute(insert, &[&2i32, &empty, &none, &none_big])
        .await
        .unwrap();

    let row = client
        .query_one("select tags, scores, big from post where id = 1", &[])
        .await
        .unwrap();
    assert_eq!(row.get::<_, Vec<Option<String>>>(0), tags);
    assert_eq!(row.get::<_, Vec<i32>>(1), scores);
    assert_eq!(row.get::<_, Vec<i64>>(2), big);
    let row = client
        .query_one("select tags, scores from post where id = 2", &[])
        .await
        .unwrap();
    assert_eq!(row.get::<_, Vec<String>>(0), empty);
    assert_eq!(row.get::<_, Option<Vec<i32>>>(1), None);

    let ids =
        |rows: Vec<tokio_postgres::Row>| -> Vec<i32> { rows.iter().map(|r| r.get(0)).collect() };
    let wanted: Vec<i32> = vec![1, 2];
    let any = client
        .query(
            "select id from post where id = any($1) order by id",
            &[&wanted],
        )
        .await
        .unwrap();
    assert_eq!(ids(any), [1, 2]);
    let has: Vec<String> = vec!["rust".into()];
    let contains = client
        .query("select id from post where tags @> $1", &[&has])
        .await
        .unwrap();
    assert_eq!(ids(contains), [1]);
}
