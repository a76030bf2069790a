//! Multirange types on the wire through `tokio-postgres`: results
//! described with PostgreSQL's multirange type oids and sent in
//! PostgreSQL's binary multirange format (the range count, then each
//! range as its length and its `range_send` bytes), and binary multirange
//! parameters read back (sorted and merged), as PostgreSQL 15's
//! `multirange_send` / `multirange_recv` do (the expected bytes are
//! PostgreSQL's `multirange_send` of the same values).

mod common;

use common::{Raw, hex};

// Proves the multirange oids in RowDescription and the binary result
// bytes (PostgreSQL's `multirange_send` of the same values), the empty
// multirange and infinite bounds included; a binary multirange
// parameter whose ranges are out of order and touch is read, merged and
// stored by the server.
#[tokio::test(flavor = "current_thread")]
async fn multiranges_travel_in_postgresqls_binary_format() {
    let (_dir, server) = common::pool_server(1);
    let client = common::connect_tcp(&server).await;
    let two_ranges = "00000002000000110200000004000000010000000400000003\
                      000000110200000004000000050000000400000007";
    let cases = [
        ("'{[1,3),[5,7)}'::int4multirange", 4451, two_ranges),
        ("'{}'::int4multirange", 4451, "00000000"),
        (
            "'{(,5], [7,)}'::int8multirange",
            4536,
            "000000020000000d080000000800000000000000060000000d12000000080000000000000007",
        ),
        (
            "'{[1.5,2)}'::nummultirange",
            4532,
            "000000010000001f020000000c0002000000000001000113880000000a00010000000000000002",
        ),
    ];
    common::assert_binary_results(&client, &cases).await;
    client
        .batch_execute("create table spans (id int primary key, m int4multirange)")
        .await
        .unwrap();
    // `[5,7)` then `[1,3)` then `[3,4)`: stored as `{[1,4),[5,7)}`.
    let sent = Raw(hex("00000003\
                        000000110200000004000000050000000400000007\
                        000000110200000004000000010000000400000003\
                        000000110200000004000000030000000400000004"));
    client
        .execute("insert into spans values (1, $1)", &[&sent])
        .await
        .unwrap();
    let row = client
        .query_one("select m::text from spans", &[])
        .await
        .unwrap();
    assert_eq!(row.get::<_, String>(0), "{[1,4),[5,7)}");
}
