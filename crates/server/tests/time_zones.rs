//! The session's `TimeZone` through a real driver: a zone given in the
//! startup packet (`options=-c TimeZone=...`, as JDBC sends the JVM's
//! zone) is the session's from its first statement, timestamptz text
//! shows its offset, and a SET changes it for the session only.

mod common;

use common::pool_server;

/// A client of `server` whose startup packet carries `options`.
async fn connect_with(server: &folio_server::Server, options: &str) -> tokio_postgres::Client {
    let addr = server.addr();
    let config = format!(
        "host={} port={} user=postgres dbname=postgres options='{options}'",
        addr.ip(),
        addr.port()
    );
    common::connect_config(&config).await
}

/// The first row's first column of `sql`, by the simple query protocol
/// (text format).
async fn text(client: &tokio_postgres::Client, sql: &str) -> String {
    let messages = client.simple_query(sql).await.unwrap();
    messages
        .iter()
        .find_map(|m| match m {
            tokio_postgres::SimpleQueryMessage::Row(row) => row.get(0).map(str::to_string),
            _ => None,
        })
        .unwrap()
}

// Proves a startup TimeZone is the session's (SHOW, text output with
// the zone's offset by date, input read in it), that a SET in one
// session leaves another alone, and that an unknown startup zone ends
// the connection with PostgreSQL's 22023.
#[tokio::test(flavor = "current_thread")]
async fn startup_time_zone_is_the_sessions() {
    let (_dir, server) = pool_server(2);
    let berlin = connect_with(&server, "-c TimeZone=Europe/Berlin").await;
    assert_eq!(text(&berlin, "show timezone").await, "Europe/Berlin");
    assert_eq!(
        text(&berlin, "select timestamptz '2024-07-01 12:00+00'").await,
        "2024-07-01 14:00:00+02"
    );
    assert_eq!(
        text(&berlin, "select timestamptz '2024-01-01 12:00+00'").await,
        "2024-01-01 13:00:00+01"
    );
    assert_eq!(
        text(
            &berlin,
            "select timestamptz '2024-07-01 12:00' = '2024-07-01 10:00+00'"
        )
        .await,
        "t"
    );
    // The extended protocol's text results too (`$1::text`: a parameter
    // cast to timestamptz alone is described as one, as PostgreSQL's).
    let row = berlin
        .query_one(
            "select ($1::text::timestamptz)::text",
            &[&"2024-07-01 12:00+00"],
        )
        .await
        .unwrap();
    assert_eq!(row.get::<_, String>(0), "2024-07-01 14:00:00+02");

    let other = connect_with(&server, "-c TimeZone=Asia/Kolkata").await;
    berlin
        .batch_execute("set time zone 'America/St_Johns'")
        .await
        .unwrap();
    assert_eq!(
        text(&berlin, "select timestamptz '2024-01-01 12:00+00'").await,
        "2024-01-01 08:30:00-03:30"
    );
    assert_eq!(
        text(&other, "select timestamptz '2024-01-01 12:00+00'").await,
        "2024-01-01 17:30:00+05:30"
    );
    berlin.batch_execute("reset timezone").await.unwrap();
    assert_eq!(text(&berlin, "show timezone").await, "Europe/Berlin");

    let config = format!(
        "host={} port={} user=postgres dbname=postgres options='-c TimeZone=Nowhere/Land'",
        server.addr().ip(),
        server.addr().port()
    );
    let err = tokio_postgres::connect(&config, tokio_postgres::NoTls)
        .await
        .err()
        .unwrap();
    let db = err.as_db_error().unwrap();
    assert_eq!(db.code().code(), "22023");
    assert_eq!(
        db.message(),
        "invalid value for parameter \"TimeZone\": \"Nowhere/Land\""
    );
}

/// Every row value of every result of `sql` (one query message), in
/// order.
async fn all_texts(client: &tokio_postgres::Client, sql: &str) -> Vec<String> {
    let messages = client.simple_query(sql).await.unwrap();
    messages
        .iter()
        .filter_map(|m| match m {
            tokio_postgres::SimpleQueryMessage::Row(row) => row.get(0).map(str::to_string),
            _ => None,
        })
        .collect()
}

// Proves each result of a query message of several statements is written
// in the zone in force when its statement ran, as PostgreSQL writes each
// row as it is made: a later SET of the same message does not change an
// earlier result (before, all were written in the zone at the end).
#[tokio::test(flavor = "current_thread")]
async fn each_statement_of_a_message_writes_in_its_zone() {
    let (_dir, server) = pool_server(1);
    let client = common::connect_tcp(&server).await;
    let texts = all_texts(
        &client,
        "set time zone 'Asia/Tokyo'; \
         select timestamptz '2024-07-01 12:00+00'; \
         set time zone 'UTC'; \
         select timestamptz '2024-07-01 12:00+00'; \
         set time zone 'America/New_York'; \
         select timestamptz '2024-07-01 12:00+00', 1",
    )
    .await;
    assert_eq!(
        texts,
        [
            "2024-07-01 21:00:00+09",
            "2024-07-01 12:00:00+00",
            "2024-07-01 08:00:00-04",
        ]
    );
    // SHOW TIME ZONE names its column as PostgreSQL's.
    let messages = client.simple_query("show time zone").await.unwrap();
    let columns = messages.iter().find_map(|m| match m {
        tokio_postgres::SimpleQueryMessage::RowDescription(columns) => Some(columns.clone()),
        _ => None,
    });
    assert_eq!(columns.unwrap()[0].name(), "TimeZone");
}
