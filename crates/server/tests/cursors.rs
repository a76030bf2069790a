//! SQL cursors over the wire: what psql sends for `\set FETCH_COUNT n`
//! (simple protocol), a driver's `query("fetch n from c")` (extended
//! protocol: the FETCH described with its cursor's columns), and a WITH
//! HOLD cursor read after its commit, as psycopg's named cursors do.

mod common;

use tokio_postgres::SimpleQueryMessage;

/// The rows' first column of a simple query's messages, and its tags.
fn rows_and_tags(messages: &[SimpleQueryMessage]) -> (Vec<String>, Vec<u64>) {
    let mut rows = Vec::new();
    let mut tags = Vec::new();
    for m in messages {
        match m {
            SimpleQueryMessage::Row(row) => rows.push(row.get(0).unwrap_or("NULL").to_string()),
            SimpleQueryMessage::CommandComplete(n) => tags.push(*n),
            _ => {}
        }
    }
    (rows, tags)
}

// Proves psql's FETCH_COUNT protocol works: BEGIN, DECLARE
// _psql_cursor NO SCROLL CURSOR FOR ..., FETCH FORWARD 3 until a short
// batch, CLOSE, COMMIT, each FETCH's RowDescription and `FETCH n` tag.
#[tokio::test(flavor = "current_thread")]
async fn psql_fetch_count_statements() {
    let (_dir, server) = common::pool_server(1);
    let client = common::connect_tcp(&server).await;
    client
        .batch_execute("create table t (a int); insert into t select generate_series(1, 7)")
        .await
        .unwrap();
    client.simple_query("BEGIN").await.unwrap();
    client
        .simple_query("DECLARE _psql_cursor NO SCROLL CURSOR FOR\nselect a from t order by a")
        .await
        .unwrap();
    let mut all = Vec::new();
    let mut batches = Vec::new();
    loop {
        let messages = client
            .simple_query("FETCH FORWARD 3 FROM _psql_cursor")
            .await
            .unwrap();
        assert!(
            matches!(
                messages.first(),
                Some(SimpleQueryMessage::RowDescription(_))
            ),
            "every FETCH describes its rows"
        );
        let (rows, tags) = rows_and_tags(&messages);
        assert_eq!(tags, vec![rows.len() as u64]);
        batches.push(rows.len());
        let short = rows.len() < 3;
        all.extend(rows);
        if short {
            break;
        }
    }
    assert_eq!(batches, vec![3, 3, 1]);
    assert_eq!(all, (1..=7).map(|i| i.to_string()).collect::<Vec<_>>());
    client.simple_query("CLOSE _psql_cursor").await.unwrap();
    client.simple_query("COMMIT").await.unwrap();
}

// Proves the extended protocol: a prepared FETCH is described with its
// cursor's columns, so a driver decodes typed rows; MOVE returns none;
// a DECLARE without HOLD outside a block is 25P01.
#[tokio::test(flavor = "current_thread")]
async fn driver_fetches_through_extended_protocol() {
    let (_dir, server) = common::pool_server(1);
    let mut client = common::connect_tcp(&server).await;
    client
        .batch_execute("create table t (a int, b text); insert into t select i, 'r' || i from generate_series(1, 5) i")
        .await
        .unwrap();
    let e = client
        .execute("declare c cursor for select a from t", &[])
        .await
        .unwrap_err();
    assert_eq!(e.code().map(|c| c.code()), Some("25P01"));

    let tx = client.transaction().await.unwrap();
    tx.execute(
        "declare c scroll cursor for select a, b from t order by a",
        &[],
    )
    .await
    .unwrap();
    let rows = tx.query("fetch 2 from c", &[]).await.unwrap();
    let got: Vec<(i32, String)> = rows.iter().map(|r| (r.get(0), r.get(1))).collect();
    assert_eq!(got, vec![(1, "r1".to_string()), (2, "r2".to_string())]);
    assert_eq!(tx.execute("move forward 2 in c", &[]).await.unwrap(), 2);
    let rows = tx.query("fetch prior from c", &[]).await.unwrap();
    assert_eq!(rows[0].get::<_, i32>(0), 3);
    let e = tx.query("fetch 1 from nosuch", &[]).await.unwrap_err();
    assert_eq!(e.code().map(|c| c.code()), Some("34000"));
    tx.rollback().await.unwrap();
}

// Proves a WITH HOLD cursor declared in a transaction is read after its
// commit, outside any block, from where the transaction left it.
#[tokio::test(flavor = "current_thread")]
async fn held_cursor_outlives_its_commit() {
    let (_dir, server) = common::pool_server(1);
    let client = common::connect_tcp(&server).await;
    client
        .batch_execute("create table t (a int); insert into t select generate_series(1, 5)")
        .await
        .unwrap();
    client.batch_execute("begin").await.unwrap();
    client
        .execute(
            "declare \"h\" cursor with hold for select a from t order by a",
            &[],
        )
        .await
        .unwrap();
    let rows = client
        .query("fetch forward 2 from \"h\"", &[])
        .await
        .unwrap();
    assert_eq!(rows.len(), 2);
    client.batch_execute("commit").await.unwrap();
    let rows = client
        .query("fetch forward 10 from \"h\"", &[])
        .await
        .unwrap();
    let got: Vec<i32> = rows.iter().map(|r| r.get(0)).collect();
    assert_eq!(got, vec![3, 4, 5]);
    client.batch_execute("close h").await.unwrap();
}
