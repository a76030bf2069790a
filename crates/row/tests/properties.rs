//! Property tests of the row format and the key encoding over random
//! schemas and values: rows round-trip; encoded keys compare as
//! PostgreSQL orders the values (asc/desc, nulls first/last, composite);
//! keys round-trip; garbage never panics.

use folio_row::{
    KeyColumn, Numeric, SqlType, Value, decode_column, decode_key, decode_row, encode_key,
    encode_row, hash_key,
};
use proptest::prelude::*;
use std::cmp::Ordering;

fn types() -> impl Strategy<Value = SqlType> {
    prop_oneof![
        Just(SqlType::Int2),
        Just(SqlType::Int4),
        Just(SqlType::Int8),
        Just(SqlType::Float4),
        Just(SqlType::Float8),
        Just(SqlType::Numeric(None)),
        Just(SqlType::Text),
        Just(SqlType::Bytea),
        Just(SqlType::Bool),
        Just(SqlType::Date),
        Just(SqlType::Timestamp(None)),
        Just(SqlType::TimestampTz(None)),
        Just(SqlType::Uuid),
        Just(SqlType::Interval(None)),
        Just(SqlType::Time(None)),
        Just(SqlType::TimeTz(None)),
        Just(SqlType::PgLsn),
        Just(SqlType::Money),
        Just(SqlType::Xid8),
        Just(SqlType::Inet),
        Just(SqlType::Cidr),
        Just(SqlType::MacAddr),
        Just(SqlType::MacAddr8),
        Just(SqlType::VarBit(None)),
    ]
}

/// An IPv4 or IPv6 address with a mask, bytes from a few values so
/// that prefixes often agree.
fn addresses() -> impl Strategy<Value = folio_row::inet::Inet> {
    let byte = || prop_oneof![Just(0u8), Just(10), Just(0xFF), any::<u8>()];
    prop_oneof![
        (proptest::collection::vec(byte(), 4), 0u8..=32),
        (proptest::collection::vec(byte(), 16), 0u8..=128),
    ]
    .prop_map(|(bytes, bits)| folio_row::inet::Inet::new(&bytes, bits).expect("fits"))
}

/// A value of `ty` (a few nulls, edge cases included).
/// Timestamps PostgreSQL holds (4714-11-24 BC to 294276 AD) and the
/// infinities.
fn timestamps() -> impl Strategy<Value = i64> {
    prop_oneof![
        -211_813_488_000_000_000..9_223_371_331_200_000_000i64,
        Just(i64::MIN),
        Just(i64::MAX)
    ]
}

fn value(ty: SqlType) -> BoxedStrategy<Value> {
    let v: BoxedStrategy<Value> = match ty {
        SqlType::Int2 => any::<i16>().prop_map(Value::Int2).boxed(),
        SqlType::Int4 => any::<i32>().prop_map(Value::Int4).boxed(),
        SqlType::Int8 => any::<i64>().prop_map(Value::Int8).boxed(),
        SqlType::Float4 => prop_oneof![
            any::<f32>(),
            Just(-0.0f32),
            Just(f32::NAN),
            Just(f32::INFINITY),
            Just(f32::NEG_INFINITY)
        ]
        .prop_map(Value::Float4)
        .boxed(),
        SqlType::Float8 => prop_oneof![
            any::<f64>(),
            Just(-0.0f64),
            Just(f64::NAN),
            Just(f64::NEG_INFINITY)
        ]
        .prop_map(Value::Float8)
        .boxed(),
        SqlType::Numeric(_) => prop_oneof![
            (any::<i64>(), 0u8..12).prop_map(|(m, s)| Numeric::new(m as i128, s).unwrap()),
            (-1000i64..1000, 0u8..3).prop_map(|(m, s)| Numeric::new(m as i128, s).unwrap()),
            Just(Numeric::NaN),
            Just(Numeric::INFINITY),
            Just(Numeric::NEG_INFINITY),
        ]
        .prop_map(Value::Numeric)
        .boxed(),
        SqlType::Text => "[a-c\\x00]{0,4}".prop_map(Value::Text).boxed(),
        SqlType::Bytea => proptest::collection::vec(
            prop_oneof![Just(0u8), Just(1), Just(0xFF), any::<u8>()],
            0..4,
        )
        .prop_map(Value::Bytea)
        .boxed(),
        SqlType::Bool => any::<bool>().prop_map(Value::Bool).boxed(),
        // PostgreSQL's finite dates and timestamps, and the infinities
        // at the types' extremes.
        SqlType::Date => prop_oneof![-2_451_545..2_145_031_949i32, Just(i32::MIN), Just(i32::MAX)]
            .prop_map(Value::Date)
            .boxed(),
        SqlType::Timestamp(_) => timestamps().prop_map(Value::Timestamp).boxed(),
        SqlType::TimestampTz(_) => timestamps().prop_map(Value::TimestampTz).boxed(),
        SqlType::Uuid => any::<[u8; 16]>().prop_map(Value::Uuid).boxed(),
        SqlType::PgLsn => any::<u64>().prop_map(Value::PgLsn).boxed(),
        SqlType::Money => any::<i64>().prop_map(Value::Money).boxed(),
        SqlType::Xid8 => any::<u64>().prop_map(Value::Xid8).boxed(),
        SqlType::Inet => addresses().prop_map(Value::Inet).boxed(),
        SqlType::Cidr => addresses().prop_map(|a| Value::Cidr(a.network())).boxed(),
        SqlType::MacAddr => any::<[u8; 6]>().prop_map(Value::MacAddr).boxed(),
        SqlType::MacAddr8 => any::<[u8; 8]>().prop_map(Value::MacAddr8).boxed(),
        // Short strings of bits, zero bytes and prefixes of each other
        // among them.
        SqlType::VarBit(_) => proptest::collection::vec(any::<bool>(), 0..20)
            .prop_map(|bits| Value::Bit(Box::new(folio_row::BitString::from_bits(bits))))
            .boxed(),
        SqlType::Time(_) => (0..=folio_row::TIME_END).prop_map(Value::Time).boxed(),
        SqlType::TimeTz(_) => (
            0..=folio_row::TIME_END,
            -folio_row::ZONE_LIMIT_SECONDS..=folio_row::ZONE_LIMIT_SECONDS,
        )
            .prop_map(|(time, zone)| Value::TimeTz(folio_row::TimeTz::new(time, zone)))
            .boxed(),
        // Times within what PostgreSQL's text form reads back (hours
        // past 2^31 do not).
        SqlType::Interval(_) => (
            any::<i32>(),
            any::<i32>(),
            -7_000_000_000_000_000_000i64..7_000_000_000_000_000_000,
            0u8..3,
        )
            .prop_map(|(months, days, micros, scale)| {
                // Small values as often as any.
                let (months, days, micros) = match scale {
                    0 => (months % 40, days % 90, micros % 200_000_000_000),
                    _ => (months, days, micros),
                };
                Value::Interval(folio_row::Interval::new(months, days, micros))
            })
            .boxed(),
        _ => unreachable!("not generated"),
    };
    prop_oneof![1 => Just(Value::Null), 6 => v].boxed()
}

fn schema_and_rows(rows: usize) -> impl Strategy<Value = (Vec<KeyColumn>, Vec<Vec<Value>>)> {
    proptest::collection::vec((types(), any::<bool>(), any::<bool>()), 1..4).prop_flat_map(
        move |cols| {
            let columns: Vec<KeyColumn> = cols
                .iter()
                .map(|(ty, descending, nulls_first)| KeyColumn {
                    ty: *ty,
                    descending: *descending,
                    nulls_first: *nulls_first,
                })
                .collect();
            let row: Vec<BoxedStrategy<Value>> = cols.iter().map(|(ty, _, _)| value(*ty)).collect();
            (Just(columns), proptest::collection::vec(row, rows))
        },
    )
}

/// PostgreSQL's order of two key tuples (the reference).
fn reference(a: &[Value], b: &[Value], columns: &[KeyColumn]) -> Ordering {
    for ((x, y), c) in a.iter().zip(b).zip(columns) {
        let o = match (x, y) {
            (Value::Null, Value::Null) => Ordering::Equal,
            (Value::Null, _) => {
                if c.nulls_first {
                    Ordering::Less
                } else {
                    Ordering::Greater
                }
            }
            (_, Value::Null) => {
                if c.nulls_first {
                    Ordering::Greater
                } else {
                    Ordering::Less
                }
            }
            _ => {
                let o = x.sql_cmp(y).expect("same type");
                if c.descending { o.reverse() } else { o }
            }
        };
        if o != Ordering::Equal {
            return o;
        }
    }
    Ordering::Equal
}

/// Equal under PostgreSQL's comparison (NaN = NaN, -0 = 0, 1.5 = 1.50).
fn same(a: &[Value], b: &[Value], columns: &[KeyColumn]) -> bool {
    reference(a, b, columns) == Ordering::Equal
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    // Proves encoded keys compare bytewise exactly as the reference orders
    // the value tuples, for random composite schemas with random
    // directions and null placements.
    #[test]
    fn key_order_is_value_order((columns, rows) in schema_and_rows(2)) {
        let ka = encode_key(&rows[0], &columns).unwrap();
        let kb = encode_key(&rows[1], &columns).unwrap();
        prop_assert_eq!(ka.cmp(&kb), reference(&rows[0], &rows[1], &columns));
    }

    // Proves a key decodes to values equal (by PostgreSQL's comparison) to
    // those encoded, and rows round-trip exactly (column by column too).
    #[test]
    fn keys_and_rows_round_trip((columns, rows) in schema_and_rows(1)) {
        let values = &rows[0];
        let key = encode_key(values, &columns).unwrap();
        let back = decode_key(&key, &columns).unwrap();
        prop_assert!(same(&back, values, &columns), "{:?} -> {:?}", values, back);
        let types: Vec<SqlType> = columns.iter().map(|c| c.ty).collect();
        let row = encode_row(values, &types).unwrap();
        let decoded = decode_row(&row, &types).unwrap();
        prop_assert!(same(&decoded, values, &columns));
        for (i, v) in values.iter().enumerate() {
            let one = decode_column(&row, &types, i).unwrap();
            prop_assert!(same(std::slice::from_ref(&one), std::slice::from_ref(v), &columns[i..=i]));
        }
    }

    // Proves grouping bytes are equal exactly when the value tuples are
    // (by PostgreSQL's comparison, NULLs equal to NULLs), rows taken
    // equal half the time.
    #[test]
    fn hash_keys_are_equal_exactly_for_equal_values((columns, rows) in schema_and_rows(2), twin in any::<bool>()) {
        let (a, b) = (&rows[0], if twin { &rows[0] } else { &rows[1] });
        let (mut ha, mut hb) = (Vec::new(), Vec::new());
        hash_key(a, &mut ha);
        hash_key(b, &mut hb);
        prop_assert_eq!(ha == hb, same(a, b, &columns), "{:?} {:?}", a, b);
    }

    // Proves decoding garbage as a row or a key returns errors or values,
    // never panics.
    #[test]
    fn garbage_never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..64), (columns, _) in schema_and_rows(0)) {
        let types: Vec<SqlType> = columns.iter().map(|c| c.ty).collect();
        let _ = decode_row(&bytes, &types);
        let _ = decode_column(&bytes, &types, 0);
        let _ = decode_key(&bytes, &columns);
    }
}

// Proves keys past 2704 bytes are refused with 54000, and the text
// escape keeps "a" < "a\0" < "ab" and ("a","b") < ("ab","").
#[test]
fn long_keys_are_refused_and_prefixes_sort_first() {
    let text = KeyColumn::new(SqlType::Text, false);
    let long = encode_key(&[Value::Text("x".repeat(3000))], &[text]).unwrap_err();
    assert_eq!(long.sqlstate(), "54000");
    let k = |s: &str| encode_key(&[Value::Text(s.into())], &[text]).unwrap();
    assert!(k("a") < k("a\0") && k("a\0") < k("ab"));
    let k2 = |a: &str, b: &str| {
        encode_key(
            &[Value::Text(a.into()), Value::Text(b.into())],
            &[text, text],
        )
        .unwrap()
    };
    assert!(k2("a", "b") < k2("ab", ""));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    // Proves every value prints as text that parses back to an equal value
    // (floats exactly, through their shortest digits; dates and timestamps
    // across eras; bytea in hex; uuid).
    #[test]
    fn text_round_trips((columns, rows) in schema_and_rows(1)) {
        for (v, c) in rows[0].iter().zip(&columns) {
            let Some(text) = v.to_text() else { continue };
            let back = Value::from_text(c.ty, &text);
            prop_assert!(back.is_ok(), "{:?} -> {:?}: {:?}", v, text, back);
            let back = back.unwrap();
            prop_assert!(
                back.sql_cmp(v) == Some(Ordering::Equal),
                "{:?} -> {:?} -> {:?}", v, text, back
            );
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    // Proves oid keys order as the unsigned values (4294967295 after 1,
    // in either direction), and oids round-trip through keys, rows and
    // text. (A test of its own: another type in `types()` would move the
    // other types' draws, which the regressions file replays by seed.)
    #[test]
    fn oid_keys_rows_and_text_round_trip(
        a in prop_oneof![any::<u32>(), Just(0u32), Just(u32::MAX)],
        b in any::<u32>(),
        descending in any::<bool>(),
    ) {
        let column = [KeyColumn { ty: SqlType::Oid, descending, nulls_first: false }];
        let (va, vb) = (Value::Oid(a), Value::Oid(b));
        let (ka, kb) = (
            encode_key(std::slice::from_ref(&va), &column).unwrap(),
            encode_key(std::slice::from_ref(&vb), &column).unwrap(),
        );
        let order = if descending { b.cmp(&a) } else { a.cmp(&b) };
        prop_assert_eq!(ka.cmp(&kb), order);
        prop_assert_eq!(decode_key(&ka, &column).unwrap(), vec![va.clone()]);
        let row = encode_row(std::slice::from_ref(&va), &[SqlType::Oid]).unwrap();
        prop_assert_eq!(decode_row(&row, &[SqlType::Oid]).unwrap(), vec![va.clone()]);
        let text = va.to_text().unwrap();
        prop_assert_eq!(Value::from_text(SqlType::Oid, &text).unwrap(), va);
    }
}

/// A geometric value of `kind`: coordinates from a few values (zero,
/// infinities, NaN, tiny and huge ones) and any float.
fn geometries(kind: folio_row::geometry::GeoKind) -> BoxedStrategy<Value> {
    use folio_row::geometry::{
        Circle, GeoBox, GeoKind, Geometry, Line, Lseg, Path, Point, Polygon,
    };
    let coordinate = || {
        prop_oneof![
            Just(0.0f64),
            Just(f64::INFINITY),
            Just(f64::NEG_INFINITY),
            Just(f64::NAN),
            Just(1e-300),
            Just(-1e300),
            any::<f64>(),
        ]
    };
    let point = move || (coordinate(), coordinate()).prop_map(|(x, y)| Point::new(x, y));
    let points = move || proptest::collection::vec(point(), 1..5);
    let geometry: BoxedStrategy<Geometry> = match kind {
        GeoKind::Point => point().prop_map(Geometry::Point).boxed(),
        GeoKind::Lseg => (point(), point())
            .prop_map(|(a, b)| Geometry::Lseg(Lseg([a, b])))
            .boxed(),
        GeoKind::Box => (point(), point())
            .prop_map(|(a, b)| Geometry::Box(GeoBox::new(a, b)))
            .boxed(),
        // A and B not both zero, as line input requires.
        GeoKind::Line => (coordinate(), coordinate())
            .prop_map(|(b, c)| Geometry::Line(Line { a: 1.0, b, c }))
            .boxed(),
        GeoKind::Path => (points(), any::<bool>())
            .prop_map(|(points, closed)| Geometry::Path(Path { closed, points }))
            .boxed(),
        GeoKind::Polygon => points()
            .prop_map(|p| Geometry::Polygon(Polygon::new(p)))
            .boxed(),
        // A radius not negative (NaN allowed), as circle input requires.
        GeoKind::Circle => (
            point(),
            prop_oneof![Just(0.0), Just(f64::NAN), 0.0..1e10f64],
        )
            .prop_map(|(center, radius)| Geometry::Circle(Circle { center, radius }))
            .boxed(),
    };
    geometry.prop_map(|g| Value::Geo(Box::new(g))).boxed()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    // Proves geometric values round-trip through rows and through their
    // text (coordinates exactly, NaN and the infinities included). (A
    // test of its own: they have no index keys.)
    #[test]
    fn geometric_values_round_trip(
        (kind, v) in proptest::sample::select(folio_row::geometry::GeoKind::ALL.to_vec())
            .prop_flat_map(|k| (Just(k), geometries(k)))
    ) {
        let ty = SqlType::Geo(kind);
        let row = encode_row(std::slice::from_ref(&v), &[ty]).unwrap();
        let back = decode_row(&row, &[ty]).unwrap();
        prop_assert_eq!(back[0].sql_cmp(&v), Some(Ordering::Equal), "{:?}", v);
        let text = v.to_text().unwrap();
        let back = Value::from_text(ty, &text);
        prop_assert!(back.is_ok(), "{:?} -> {:?}: {:?}", v, text, back);
        prop_assert_eq!(back.unwrap().sql_cmp(&v), Some(Ordering::Equal), "{:?} -> {}", v, text);
    }
}
