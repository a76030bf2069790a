//! Range types on the wire through `tokio-postgres`: results described
//! with PostgreSQL's range type oids and sent in PostgreSQL's binary range
//! format (a flags byte, then each finite bound as its length and its
//! element's binary form), and binary range parameters read back, as
//! PostgreSQL 15's `range_send` / `range_recv` do (the expected bytes are
//! PostgreSQL's `range_send` of the same values).

mod common;

use common::{Raw, hex};

// Proves each built-in range type's oid in RowDescription and its binary
// result bytes (PostgreSQL's `range_send` of the same value), empty and
// infinite bounds included; a binary range parameter is read (and made
// canonical) by the server; a stored range column and a range array
// column come back as sent.
#[tokio::test(flavor = "current_thread")]
async fn ranges_travel_in_postgresqls_binary_format() {
    let (_dir, server) = common::pool_server(1);
    let client = common::connect_tcp(&server).await;
    let cases = [
        (
            "'[1,5)'::int4range",
            3904,
            "0200000004000000010000000400000005",
        ),
        ("'empty'::int4range", 3904, "01"),
        ("'(,5]'::int8range", 3926, "08000000080000000000000006"),
        (
            "'[1.5,)'::numrange",
            3906,
            "120000000c000200000000000100011388",
        ),
        (
            "'[2020-01-01,2020-01-03)'::daterange",
            3912,
            "020000000400001c890000000400001c8b",
        ),
        (
            "'[2020-01-01 10:00,)'::tsrange",
            3908,
            "120000000800023e0fe886c800",
        ),
        ("'(,)'::tstzrange", 3910, "18"),
    ];
    common::assert_binary_results(&client, &cases).await;
    // `(1,5]` in binary (flags 0x04: upper inclusive; bounds 1 and 5),
    // typed by the column it is stored in.
    client
        .batch_execute("create table seat (id int primary key, r int4range)")
        .await
        .unwrap();
    let sent = Raw(hex("0400000004000000010000000400000005"));
    client
        .execute("insert into seat values (1, $1)", &[&sent])
        .await
        .unwrap();
    let row = client
        .query_one("select r::text from seat", &[])
        .await
        .unwrap();
    assert_eq!(row.get::<_, String>(0), "[2,6)");
    let reversed = Raw(hex("0600000004000000050000000400000001"));
    let err = client
        .execute("insert into seat values (2, $1)", &[&reversed])
        .await
        .unwrap_err();
    assert_eq!(err.code().unwrap().code(), "22000");

    client
        .batch_execute(
            "create table booking (id int primary key, during tsrange, seats int4range[])",
        )
        .await
        .unwrap();
    client
        .execute(
            "insert into booking values (1, $1, '{\"[1,3)\",empty}')",
            &[&Raw(hex("120000000800023e0fe886c800"))],
        )
        .await
        .unwrap();
    let row = client
        .query_one("select during, during::text, seats::text from booking", &[])
        .await
        .unwrap();
    assert_eq!(row.columns()[0].type_().oid(), 3908);
    assert_eq!(row.get::<_, Raw>(0), Raw(hex("120000000800023e0fe886c800")));
    assert_eq!(row.get::<_, String>(1), "[\"2020-01-01 10:00:00\",)");
    assert_eq!(row.get::<_, String>(2), "{\"[1,3)\",empty}");
}
