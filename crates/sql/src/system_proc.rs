//! `pg_proc`: the functions, aggregates and window functions folio has,
//! one row per signature, with PostgreSQL 15's oids, names, argument and
//! result types, kind (`f`, `a`, `w`), volatility and parallel safety.
//!
//! The rows are fixed: folio's functions are not catalog objects (their
//! names are matched at planning, `functions.rs`, `aggregate.rs`,
//! `window.rs`), so this table states which signatures folio takes.
//! A signature is listed only when folio takes arguments of those types
//! and gives a result of that type: `tests/session.rs`
//! (`pg_proc_rows_are_folio_signatures`) calls every row through
//! `pg_typeof` and compares. PostgreSQL's signatures over types folio
//! lacks (`anyelement`, `anyarray`, variadic `"any"`) are not listed, nor
//! those where folio's result type differs from PostgreSQL's (the bytea
//! forms of `substr`, `btrim`, `ltrim`, `rtrim` and `string_agg`, which
//! folio gives as text; `sum(real)`, a double precision in folio;
//! `min`/`max` of `character`, text in folio; `avg(real)`, which folio
//! refuses; the three-argument `date_trunc`).
//!
//! User-defined SQL functions (`sql_functions.rs`) follow, one row each
//! ([`user_row`]), so `\df` lists them.

use crate::catalog_functions::oid_value;
use crate::catalog_functions::{SUPERUSER_OID, format_type};
use folio_row::{SqlType, Value};

/// `pg_proc`'s columns.
pub const COLUMNS: &[(&str, SqlType)] = &[
    ("oid", SqlType::Oid),
    ("proname", SqlType::Text),
    ("pronamespace", SqlType::Oid),
    ("proowner", SqlType::Oid),
    ("prolang", SqlType::Oid),
    ("procost", SqlType::Float4),
    ("prorows", SqlType::Float4),
    ("provariadic", SqlType::Oid),
    ("prokind", SqlType::InternalChar),
    ("prosecdef", SqlType::Bool),
    ("proleakproof", SqlType::Bool),
    ("proisstrict", SqlType::Bool),
    ("proretset", SqlType::Bool),
    ("provolatile", SqlType::InternalChar),
    ("proparallel", SqlType::InternalChar),
    ("pronargs", SqlType::Int2),
    ("pronargdefaults", SqlType::Int2),
    ("prorettype", SqlType::Oid),
    ("proargtypes", SqlType::Text),
    ("proallargtypes", SqlType::Array(&SqlType::Oid)),
    ("proargmodes", SqlType::Array(&SqlType::Text)),
    ("proargnames", SqlType::Array(&SqlType::Text)),
    ("prosrc", SqlType::Text),
    ("probin", SqlType::Text),
    ("proconfig", SqlType::Array(&SqlType::Text)),
    ("proacl", SqlType::Array(&SqlType::Text)),
];

/// PostgreSQL's `internal` language (`pg_language`), of every built-in.
pub const INTERNAL_LANGUAGE: i64 = 12;
/// PostgreSQL's `sql` language, of user-defined SQL functions
/// (`sql_functions.rs`).
pub const SQL_LANGUAGE: i64 = 14;

/// PostgreSQL 15's `plpgsql` language oid (`pg_language`), of
/// user-defined PL/pgSQL functions (`plpgsql/`).
pub const PLPGSQL_LANGUAGE: i64 = 13563;
/// The `pg_catalog` schema's oid.
const CATALOG_NAMESPACE: i64 = 11;

/// One signature: `(oid, name, kind, argument types, result type,
/// volatility and parallel safety)`. Kind: `f` function, `a` aggregate,
/// `w` window function. Volatility `i` immutable, `s` stable, `v`
/// volatile; parallel `s` safe, `r` restricted, `u` unsafe. Type 2276
/// is `"any"` (`count(x)` of any type); `count()` is `count(*)`.
type Signature = (i64, &'static str, char, &'static [i64], i64, &'static str);

const FUNCTIONS: &[Signature] = &[
    (1394, "abs", 'f', &[700], 700, "is"),
    (1395, "abs", 'f', &[701], 701, "is"),
    (1396, "abs", 'f', &[20], 20, "is"),
    (1397, "abs", 'f', &[23], 23, "is"),
    (1398, "abs", 'f', &[21], 21, "is"),
    (1705, "abs", 'f', &[1700], 1700, "is"),
    (1199, "age", 'f', &[1184, 1184], 1186, "is"),
    (1386, "age", 'f', &[1184], 1186, "ss"),
    (2058, "age", 'f', &[1114, 1114], 1186, "is"),
    (2059, "age", 'f', &[1114], 1186, "ss"),
    (1620, "ascii", 'f', &[25], 23, "is"),
    (2100, "avg", 'a', &[20], 1700, "is"),
    (2101, "avg", 'a', &[23], 1700, "is"),
    (2102, "avg", 'a', &[21], 1700, "is"),
    (2103, "avg", 'a', &[1700], 1700, "is"),
    (2104, "avg", 'a', &[700], 701, "is"),
    (2105, "avg", 'a', &[701], 701, "is"),
    (2106, "avg", 'a', &[1186], 1186, "is"),
    (2517, "bool_and", 'a', &[16], 16, "is"),
    (2518, "bool_or", 'a', &[16], 16, "is"),
    (884, "btrim", 'f', &[25, 25], 25, "is"),
    (2015, "btrim", 'f', &[17, 17], 17, "is"),
    (885, "btrim", 'f', &[25], 25, "is"),
    (1711, "ceil", 'f', &[1700], 1700, "is"),
    (2308, "ceil", 'f', &[701], 701, "is"),
    (2167, "ceiling", 'f', &[1700], 1700, "is"),
    (2320, "ceiling", 'f', &[701], 701, "is"),
    (1372, "char_length", 'f', &[1042], 23, "is"),
    (1381, "char_length", 'f', &[25], 23, "is"),
    (1367, "character_length", 'f', &[1042], 23, "is"),
    (1369, "character_length", 'f', &[25], 23, "is"),
    (1621, "chr", 'f', &[23], 25, "is"),
    (2649, "clock_timestamp", 'f', &[], 1184, "vs"),
    (2829, "corr", 'a', &[701, 701], 701, "is"),
    (2147, "count", 'a', &[2276], 20, "is"),
    (2803, "count", 'a', &[], 20, "is"),
    (2827, "covar_pop", 'a', &[701, 701], 701, "is"),
    (2828, "covar_samp", 'a', &[701, 701], 701, "is"),
    (3104, "cume_dist", 'w', &[], 701, "is"),
    (1171, "date_part", 'f', &[25, 1184], 701, "ss"),
    (1172, "date_part", 'f', &[25, 1186], 701, "is"),
    (1384, "date_part", 'f', &[25, 1082], 701, "is"),
    (1385, "date_part", 'f', &[25, 1083], 701, "is"),
    (1273, "date_part", 'f', &[25, 1266], 701, "is"),
    (2021, "date_part", 'f', &[25, 1114], 701, "is"),
    (6177, "date_bin", 'f', &[1186, 1114, 1114], 1114, "is"),
    (6178, "date_bin", 'f', &[1186, 1184, 1184], 1184, "is"),
    (1217, "date_trunc", 'f', &[25, 1184], 1184, "ss"),
    (1218, "date_trunc", 'f', &[25, 1186], 1186, "is"),
    (2020, "date_trunc", 'f', &[25, 1114], 1114, "is"),
    (3102, "dense_rank", 'w', &[], 20, "is"),
    (1973, "div", 'f', &[1700, 1700], 1700, "is"),
    (2519, "every", 'a', &[16], 16, "is"),
    (1347, "exp", 'f', &[701], 701, "is"),
    (1732, "exp", 'f', &[1700], 1700, "is"),
    (6199, "extract", 'f', &[25, 1082], 1700, "is"),
    (6200, "extract", 'f', &[25, 1083], 1700, "is"),
    (6201, "extract", 'f', &[25, 1266], 1700, "is"),
    (6202, "extract", 'f', &[25, 1114], 1700, "is"),
    (6203, "extract", 'f', &[25, 1184], 1700, "ss"),
    (6204, "extract", 'f', &[25, 1186], 1700, "is"),
    (1712, "floor", 'f', &[1700], 1700, "is"),
    (2309, "floor", 'f', &[701], 701, "is"),
    (3540, "format", 'f', &[25], 25, "ss"),
    (3432, "gen_random_uuid", 'f', &[], 2950, "vs"),
    (872, "initcap", 'f', &[25], 25, "is"),
    (1295, "justify_days", 'f', &[1186], 1186, "is"),
    (1175, "justify_hours", 'f', &[1186], 1186, "is"),
    (2711, "justify_interval", 'f', &[1186], 1186, "is"),
    (2559, "lastval", 'f', &[], 20, "vu"),
    (3060, "left", 'f', &[25, 23], 25, "is"),
    (1317, "length", 'f', &[25], 23, "is"),
    (1318, "length", 'f', &[1042], 23, "is"),
    (2010, "length", 'f', &[17], 23, "is"),
    (1637, "like_escape", 'f', &[25, 25], 25, "is"),
    (1341, "ln", 'f', &[701], 701, "is"),
    (1734, "ln", 'f', &[1700], 1700, "is"),
    (1340, "log", 'f', &[701], 701, "is"),
    (1736, "log", 'f', &[1700, 1700], 1700, "is"),
    (1741, "log", 'f', &[1700], 1700, "is"),
    (1194, "log10", 'f', &[701], 701, "is"),
    (1481, "log10", 'f', &[1700], 1700, "is"),
    (870, "lower", 'f', &[25], 25, "is"),
    (873, "lpad", 'f', &[25, 23, 25], 25, "is"),
    (879, "lpad", 'f', &[25, 23], 25, "is"),
    (875, "ltrim", 'f', &[25, 25], 25, "is"),
    (6195, "ltrim", 'f', &[17, 17], 17, "is"),
    (881, "ltrim", 'f', &[25], 25, "is"),
    (2115, "max", 'a', &[20], 20, "is"),
    (2116, "max", 'a', &[23], 23, "is"),
    (2117, "max", 'a', &[21], 21, "is"),
    (2119, "max", 'a', &[700], 700, "is"),
    (2120, "max", 'a', &[701], 701, "is"),
    (2122, "max", 'a', &[1082], 1082, "is"),
    (2123, "max", 'a', &[1083], 1083, "is"),
    (2124, "max", 'a', &[1266], 1266, "is"),
    (2126, "max", 'a', &[1114], 1114, "is"),
    (2127, "max", 'a', &[1184], 1184, "is"),
    (2128, "max", 'a', &[1186], 1186, "is"),
    (2129, "max", 'a', &[25], 25, "is"),
    (2130, "max", 'a', &[1700], 1700, "is"),
    (2244, "max", 'a', &[1042], 1042, "is"),
    (2311, "md5", 'f', &[25], 25, "is"),
    (2321, "md5", 'f', &[17], 25, "is"),
    (2131, "min", 'a', &[20], 20, "is"),
    (2132, "min", 'a', &[23], 23, "is"),
    (2133, "min", 'a', &[21], 21, "is"),
    (2135, "min", 'a', &[700], 700, "is"),
    (2136, "min", 'a', &[701], 701, "is"),
    (2138, "min", 'a', &[1082], 1082, "is"),
    (2139, "min", 'a', &[1083], 1083, "is"),
    (2140, "min", 'a', &[1266], 1266, "is"),
    (2142, "min", 'a', &[1114], 1114, "is"),
    (2143, "min", 'a', &[1184], 1184, "is"),
    (2144, "min", 'a', &[1186], 1186, "is"),
    (2145, "min", 'a', &[25], 25, "is"),
    (2146, "min", 'a', &[1700], 1700, "is"),
    (2245, "min", 'a', &[1042], 1042, "is"),
    (5042, "min_scale", 'f', &[1700], 23, "is"),
    (940, "mod", 'f', &[21, 21], 21, "is"),
    (941, "mod", 'f', &[23, 23], 23, "is"),
    (947, "mod", 'f', &[20, 20], 20, "is"),
    (1728, "mod", 'f', &[1700, 1700], 1700, "is"),
    (1299, "now", 'f', &[], 1184, "ss"),
    (3105, "ntile", 'w', &[23], 23, "is"),
    (720, "octet_length", 'f', &[17], 23, "is"),
    (1374, "octet_length", 'f', &[25], 23, "is"),
    (1375, "octet_length", 'f', &[1042], 23, "is"),
    (3103, "percent_rank", 'w', &[], 701, "is"),
    // The functions about sessions (`backend_functions.rs`) that neither
    // give `void` nor signal a session (a call with sample arguments
    // must be harmless).
    (2026, "pg_backend_pid", 'f', &[], 23, "sr"),
    // The session's settings (`setting_functions.rs`; `set_config`, not
    // strict, is not listed: every row here is).
    (2077, "current_setting", 'f', &[25], 25, "ss"),
    (3294, "current_setting", 'f', &[25, 16], 25, "ss"),
    (6240, "pg_settings_get_flags", 'f', &[25], 1009, "ss"),
    (2561, "pg_blocking_pids", 'f', &[23], 1007, "vs"),
    // The advisory lock functions that give a boolean (those that give
    // `void` give a text in folio: `advisory.rs`).
    (2884, "pg_advisory_unlock", 'f', &[20], 16, "vr"),
    (2890, "pg_advisory_unlock", 'f', &[23, 23], 16, "vr"),
    (2885, "pg_advisory_unlock_shared", 'f', &[20], 16, "vr"),
    (2891, "pg_advisory_unlock_shared", 'f', &[23, 23], 16, "vr"),
    (2882, "pg_try_advisory_lock", 'f', &[20], 16, "vr"),
    (2888, "pg_try_advisory_lock", 'f', &[23, 23], 16, "vr"),
    (2883, "pg_try_advisory_lock_shared", 'f', &[20], 16, "vr"),
    (
        2889,
        "pg_try_advisory_lock_shared",
        'f',
        &[23, 23],
        16,
        "vr",
    ),
    (3091, "pg_try_advisory_xact_lock", 'f', &[20], 16, "vr"),
    (3095, "pg_try_advisory_xact_lock", 'f', &[23, 23], 16, "vr"),
    (
        3092,
        "pg_try_advisory_xact_lock_shared",
        'f',
        &[20],
        16,
        "vr",
    ),
    (
        3096,
        "pg_try_advisory_xact_lock_shared",
        'f',
        &[23, 23],
        16,
        "vr",
    ),
    (1269, "pg_column_size", 'f', &[2276], 23, "ss"),
    (2708, "pg_has_role", 'f', &[26, 26, 25], 16, "ss"),
    (2710, "pg_has_role", 'f', &[26, 25], 16, "ss"),
    (1610, "pi", 'f', &[], 701, "is"),
    (1346, "pow", 'f', &[701, 701], 701, "is"),
    (1738, "pow", 'f', &[1700, 1700], 1700, "is"),
    (1368, "power", 'f', &[701, 701], 701, "is"),
    (2169, "power", 'f', &[1700, 1700], 1700, "is"),
    (1283, "quote_literal", 'f', &[25], 25, "is"),
    (1598, "random", 'f', &[], 701, "vr"),
    (3101, "rank", 'w', &[], 20, "is"),
    (6254, "regexp_count", 'f', &[25, 25], 23, "is"),
    (6255, "regexp_count", 'f', &[25, 25, 23], 23, "is"),
    (6256, "regexp_count", 'f', &[25, 25, 23, 25], 23, "is"),
    (6257, "regexp_instr", 'f', &[25, 25], 23, "is"),
    (6258, "regexp_instr", 'f', &[25, 25, 23], 23, "is"),
    (6259, "regexp_instr", 'f', &[25, 25, 23, 23], 23, "is"),
    (6260, "regexp_instr", 'f', &[25, 25, 23, 23, 23], 23, "is"),
    (
        6261,
        "regexp_instr",
        'f',
        &[25, 25, 23, 23, 23, 25],
        23,
        "is",
    ),
    (
        6262,
        "regexp_instr",
        'f',
        &[25, 25, 23, 23, 23, 25, 23],
        23,
        "is",
    ),
    (6263, "regexp_like", 'f', &[25, 25], 16, "is"),
    (6264, "regexp_like", 'f', &[25, 25, 25], 16, "is"),
    (3396, "regexp_match", 'f', &[25, 25], 1009, "is"),
    (3397, "regexp_match", 'f', &[25, 25, 25], 1009, "is"),
    (2284, "regexp_replace", 'f', &[25, 25, 25], 25, "is"),
    (2285, "regexp_replace", 'f', &[25, 25, 25, 25], 25, "is"),
    (
        6251,
        "regexp_replace",
        'f',
        &[25, 25, 25, 23, 23, 25],
        25,
        "is",
    ),
    (6252, "regexp_replace", 'f', &[25, 25, 25, 23, 23], 25, "is"),
    (6253, "regexp_replace", 'f', &[25, 25, 25, 23], 25, "is"),
    (2767, "regexp_split_to_array", 'f', &[25, 25], 1009, "is"),
    (
        2768,
        "regexp_split_to_array",
        'f',
        &[25, 25, 25],
        1009,
        "is",
    ),
    (6265, "regexp_substr", 'f', &[25, 25], 25, "is"),
    (6266, "regexp_substr", 'f', &[25, 25, 23], 25, "is"),
    (6267, "regexp_substr", 'f', &[25, 25, 23, 23], 25, "is"),
    (6268, "regexp_substr", 'f', &[25, 25, 23, 23, 25], 25, "is"),
    (
        6269,
        "regexp_substr",
        'f',
        &[25, 25, 23, 23, 25, 23],
        25,
        "is",
    ),
    (2822, "regr_avgx", 'a', &[701, 701], 701, "is"),
    (2823, "regr_avgy", 'a', &[701, 701], 701, "is"),
    (2818, "regr_count", 'a', &[701, 701], 20, "is"),
    (2826, "regr_intercept", 'a', &[701, 701], 701, "is"),
    (2824, "regr_r2", 'a', &[701, 701], 701, "is"),
    (2825, "regr_slope", 'a', &[701, 701], 701, "is"),
    (2819, "regr_sxx", 'a', &[701, 701], 701, "is"),
    (2821, "regr_sxy", 'a', &[701, 701], 701, "is"),
    (2820, "regr_syy", 'a', &[701, 701], 701, "is"),
    (1622, "repeat", 'f', &[25, 23], 25, "is"),
    (2087, "replace", 'f', &[25, 25, 25], 25, "is"),
    (3062, "reverse", 'f', &[25], 25, "is"),
    (3061, "right", 'f', &[25, 23], 25, "is"),
    (1342, "round", 'f', &[701], 701, "is"),
    (1707, "round", 'f', &[1700, 23], 1700, "is"),
    (1708, "round", 'f', &[1700], 1700, "is"),
    (3100, "row_number", 'w', &[], 20, "is"),
    (874, "rpad", 'f', &[25, 23, 25], 25, "is"),
    (880, "rpad", 'f', &[25, 23], 25, "is"),
    (876, "rtrim", 'f', &[25, 25], 25, "is"),
    (6196, "rtrim", 'f', &[17, 17], 17, "is"),
    (882, "rtrim", 'f', &[25], 25, "is"),
    (3281, "scale", 'f', &[1700], 23, "is"),
    (1706, "sign", 'f', &[1700], 1700, "is"),
    (2310, "sign", 'f', &[701], 701, "is"),
    (1986, "similar_to_escape", 'f', &[25, 25], 25, "is"),
    (1987, "similar_to_escape", 'f', &[25], 25, "is"),
    (2088, "split_part", 'f', &[25, 25, 23], 25, "is"),
    (1344, "sqrt", 'f', &[701], 701, "is"),
    (1730, "sqrt", 'f', &[1700], 1700, "is"),
    (3696, "starts_with", 'f', &[25, 25], 16, "is"),
    (2648, "statement_timestamp", 'f', &[], 1184, "ss"),
    (2154, "stddev", 'a', &[20], 1700, "is"),
    (2155, "stddev", 'a', &[23], 1700, "is"),
    (2156, "stddev", 'a', &[21], 1700, "is"),
    (2157, "stddev", 'a', &[700], 701, "is"),
    (2158, "stddev", 'a', &[701], 701, "is"),
    (2159, "stddev", 'a', &[1700], 1700, "is"),
    (2724, "stddev_pop", 'a', &[20], 1700, "is"),
    (2725, "stddev_pop", 'a', &[23], 1700, "is"),
    (2726, "stddev_pop", 'a', &[21], 1700, "is"),
    (2727, "stddev_pop", 'a', &[700], 701, "is"),
    (2728, "stddev_pop", 'a', &[701], 701, "is"),
    (2729, "stddev_pop", 'a', &[1700], 1700, "is"),
    (2712, "stddev_samp", 'a', &[20], 1700, "is"),
    (2713, "stddev_samp", 'a', &[23], 1700, "is"),
    (2714, "stddev_samp", 'a', &[21], 1700, "is"),
    (2715, "stddev_samp", 'a', &[700], 701, "is"),
    (2716, "stddev_samp", 'a', &[701], 701, "is"),
    (2717, "stddev_samp", 'a', &[1700], 1700, "is"),
    (3538, "string_agg", 'a', &[25, 25], 25, "is"),
    (3545, "string_agg", 'a', &[17, 17], 17, "is"),
    (868, "strpos", 'f', &[25, 25], 23, "is"),
    (877, "substr", 'f', &[25, 23, 23], 25, "is"),
    (883, "substr", 'f', &[25, 23], 25, "is"),
    (2085, "substr", 'f', &[17, 23, 23], 17, "is"),
    (2086, "substr", 'f', &[17, 23], 17, "is"),
    (936, "substring", 'f', &[25, 23, 23], 25, "is"),
    (937, "substring", 'f', &[25, 23], 25, "is"),
    (2012, "substring", 'f', &[17, 23, 23], 17, "is"),
    (2013, "substring", 'f', &[17, 23], 17, "is"),
    (2073, "substring", 'f', &[25, 25], 25, "is"),
    (2107, "sum", 'a', &[20], 1700, "is"),
    (2108, "sum", 'a', &[23], 20, "is"),
    (2109, "sum", 'a', &[21], 20, "is"),
    (2110, "sum", 'a', &[700], 700, "is"),
    (2111, "sum", 'a', &[701], 701, "is"),
    (2113, "sum", 'a', &[1186], 1186, "is"),
    (2114, "sum", 'a', &[1700], 1700, "is"),
    (1258, "textcat", 'f', &[25, 25], 25, "is"),
    (274, "timeofday", 'f', &[], 25, "vs"),
    (1768, "to_char", 'f', &[1186, 25], 25, "ss"),
    (1770, "to_char", 'f', &[1184, 25], 25, "ss"),
    (1772, "to_char", 'f', &[1700, 25], 25, "ss"),
    (1773, "to_char", 'f', &[23, 25], 25, "ss"),
    (1774, "to_char", 'f', &[20, 25], 25, "ss"),
    (1775, "to_char", 'f', &[700, 25], 25, "ss"),
    (1776, "to_char", 'f', &[701, 25], 25, "ss"),
    (2049, "to_char", 'f', &[1114, 25], 25, "ss"),
    (1780, "to_date", 'f', &[25, 25], 1082, "ss"),
    (1777, "to_number", 'f', &[25, 25], 1700, "ss"),
    (1158, "to_timestamp", 'f', &[701], 1184, "is"),
    (1778, "to_timestamp", 'f', &[25, 25], 1184, "ss"),
    (2647, "transaction_timestamp", 'f', &[], 1184, "ss"),
    (878, "translate", 'f', &[25, 25, 25], 25, "is"),
    (5043, "trim_scale", 'f', &[1700], 1700, "is"),
    (1343, "trunc", 'f', &[701], 701, "is"),
    (1709, "trunc", 'f', &[1700, 23], 1700, "is"),
    (1710, "trunc", 'f', &[1700], 1700, "is"),
    (871, "upper", 'f', &[25], 25, "is"),
    (2718, "var_pop", 'a', &[20], 1700, "is"),
    (2719, "var_pop", 'a', &[23], 1700, "is"),
    (2720, "var_pop", 'a', &[21], 1700, "is"),
    (2721, "var_pop", 'a', &[700], 701, "is"),
    (2722, "var_pop", 'a', &[701], 701, "is"),
    (2723, "var_pop", 'a', &[1700], 1700, "is"),
    (2641, "var_samp", 'a', &[20], 1700, "is"),
    (2642, "var_samp", 'a', &[23], 1700, "is"),
    (2643, "var_samp", 'a', &[21], 1700, "is"),
    (2644, "var_samp", 'a', &[700], 701, "is"),
    (2645, "var_samp", 'a', &[701], 701, "is"),
    (2646, "var_samp", 'a', &[1700], 1700, "is"),
    (2148, "variance", 'a', &[20], 1700, "is"),
    (2149, "variance", 'a', &[23], 1700, "is"),
    (2150, "variance", 'a', &[21], 1700, "is"),
    (2151, "variance", 'a', &[700], 701, "is"),
    (2152, "variance", 'a', &[701], 701, "is"),
    (2153, "variance", 'a', &[1700], 1700, "is"),
    (89, "version", 'f', &[], 25, "ss"),
    // json and jsonb (`json_functions.rs`, `json_build.rs`).
    (3956, "json_array_length", 'f', &[114], 23, "is"),
    (3199, "json_build_array", 'f', &[], 114, "ss"),
    (3201, "json_build_object", 'f', &[], 114, "ss"),
    (3261, "json_strip_nulls", 'f', &[114], 114, "is"),
    (3968, "json_typeof", 'f', &[114], 25, "is"),
    (3207, "jsonb_array_length", 'f', &[3802], 23, "is"),
    (3272, "jsonb_build_array", 'f', &[], 3802, "ss"),
    (3274, "jsonb_build_object", 'f', &[], 3802, "ss"),
    (3306, "jsonb_pretty", 'f', &[3802], 25, "is"),
    (3305, "jsonb_set", 'f', &[3802, 1009, 3802, 16], 3802, "is"),
    (3262, "jsonb_strip_nulls", 'f', &[3802], 3802, "is"),
    (3210, "jsonb_typeof", 'f', &[3802], 25, "is"),
];

/// `pg_proc`'s rows.
pub fn rows() -> Vec<Vec<Value>> {
    FUNCTIONS
        .iter()
        .map(|&(oid, name, kind, args, result, volatility)| {
            let flag = |n: usize| Value::Text(volatility[n..=n].to_string());
            let types: Vec<String> = args.iter().map(i64::to_string).collect();
            vec![
                oid_value(oid),
                Value::Text(name.into()),
                oid_value(CATALOG_NAMESPACE),
                oid_value(SUPERUSER_OID),
                oid_value(INTERNAL_LANGUAGE),
                Value::Float4(1.0),
                Value::Float4(0.0),
                oid_value(0),
                Value::Text(kind.to_string()),
                Value::Bool(false),
                Value::Bool(false),
                Value::Bool(strict(kind, args)),
                Value::Bool(false),
                flag(0),
                flag(1),
                Value::Int2(args.len() as i16),
                Value::Int2(0),
                oid_value(result),
                Value::Text(types.join(" ")),
                Value::Null,
                Value::Null,
                Value::Null,
                Value::Text(name.into()),
                Value::Null,
                Value::Null,
                Value::Null,
            ]
        })
        .collect()
}

/// The `pg_proc` row of user-defined SQL function `def`, in the schema
/// of oid `namespace`.
pub fn user_row(def: &folio_catalog::FunctionDef, namespace: i64) -> Vec<Value> {
    let types: Vec<String> = def.inputs().map(|i| def.args[i].1.to_string()).collect();
    // With modes, every argument's type and mode (PostgreSQL's
    // `proallargtypes`, `proargmodes`).
    let (all_types, modes) = match def.modes.is_empty() {
        true => (Value::Null, Value::Null),
        false => (
            Value::array((def.args.iter()).map(|a| Value::Oid(a.1)).collect()),
            Value::array(
                (def.modes.iter())
                    .map(|m| Value::Text(char::from(*m).to_string()))
                    .collect(),
            ),
        ),
    };
    let names = match def.args.iter().any(|a| !a.0.is_empty()) {
        true => Value::Array(def.args.iter().map(|a| Value::Text(a.0.clone())).collect()),
        false => Value::Null,
    };
    // An aggregate (`user_aggregates.rs`) is PostgreSQL's kind `a`, its
    // source the placeholder PostgreSQL shows.
    let aggregate = crate::user_aggregates::is_aggregate(def);
    let source = match crate::sql_functions::is_standard_body(def) {
        _ if aggregate => "aggregate_dummy".to_string(),
        true => String::new(),
        false => def.body.clone(),
    };
    vec![
        oid_value(def.oid as i64),
        Value::Text(folio_catalog::split_schema(&def.name).1.to_string()),
        oid_value(namespace),
        oid_value(SUPERUSER_OID),
        oid_value(match def.plpgsql {
            true => PLPGSQL_LANGUAGE,
            false => SQL_LANGUAGE,
        }),
        Value::Float4(100.0),
        Value::Float4(if def.returns_set { 1000.0 } else { 0.0 }),
        oid_value(0),
        Value::Text(
            match (aggregate, def.procedure) {
                (true, _) => "a",
                (_, true) => "p",
                _ => "f",
            }
            .into(),
        ),
        Value::Bool(false),
        Value::Bool(false),
        Value::Bool(def.strict),
        Value::Bool(def.returns_set),
        Value::Text(char::from(def.volatility).to_string()),
        Value::Text("u".into()),
        Value::Int2(types.len() as i16),
        Value::Int2(def.defaults.len() as i16),
        oid_value(i64::from(def.result.0)),
        Value::Text(types.join(" ")),
        all_types,
        modes,
        names,
        Value::Text(source),
        Value::Null,
        Value::Null,
        Value::Null,
    ]
}

/// `proisstrict`: a function returns NULL for a NULL argument, as does
/// `ntile`; an aggregate skips NULLs instead, and the other window
/// functions take no argument.
/// The volatility (`i`, `s`, `v`) pg_proc gives function `name` called
/// with arguments of type oids `args`: its signature's, or, with none
/// exactly of those types, the one all its signatures share; `None` when
/// pg_proc does not list it or its signatures differ.
pub fn volatility(name: &str, args: &[i64]) -> Option<char> {
    let mut of_name = FUNCTIONS.iter().filter(|f| f.1 == name).peekable();
    of_name.peek()?;
    let flags: Vec<(&[i64], char)> = of_name
        .map(|f| (f.3, f.5.chars().next().unwrap_or('v')))
        .collect();
    if let Some((_, v)) = flags.iter().find(|(a, _)| *a == args) {
        return Some(*v);
    }
    let first = flags[0].1;
    flags.iter().all(|(_, v)| *v == first).then_some(first)
}

/// Whether pg_proc lists a built-in function, aggregate or window
/// function named `name`.
pub fn is_builtin(name: &str) -> bool {
    FUNCTIONS.iter().any(|f| f.1 == name)
}

/// A built-in function as `pg_get_functiondef` describes it.
pub struct Builtin {
    pub name: &'static str,
    /// `pg_proc.provolatile`, `proparallel`.
    pub volatility: char,
    pub parallel: char,
    pub strict: bool,
}

/// The built-in function (not an aggregate or window function) of oid
/// `oid`.
pub fn builtin(oid: i64) -> Option<Builtin> {
    let &(_, name, kind, args, _, flags) = signature(oid)?;
    let mut flags = flags.chars();
    (kind == 'f').then(|| Builtin {
        name,
        volatility: flags.next().unwrap_or('v'),
        parallel: flags.next().unwrap_or('u'),
        strict: strict(kind, args),
    })
}

fn strict(kind: char, args: &[i64]) -> bool {
    kind == 'f' || (kind == 'w' && !args.is_empty())
}

fn signature(oid: i64) -> Option<&'static Signature> {
    FUNCTIONS.iter().find(|f| f.0 == oid)
}

/// `oid::regproc`: the name of the function of oid `oid` (a user's
/// function's without its schema, as every schema is on the search
/// path); `-` for 0, the number for an oid that is not a function's.
pub fn regproc_name(oid: i64) -> String {
    if oid == 0 {
        return "-".into();
    }
    if let Some(def) = crate::sql_functions::by_oid(oid) {
        return folio_catalog::split_schema(&def.name).1.to_string();
    }
    signature(oid).map_or_else(|| oid.to_string(), |f| f.1.to_string())
}

/// `'name'::regproc`: the oid of the one function called `name` (a
/// user's may be schema-qualified); 0 for `-`; 42883 when none is,
/// 42725 when several are (PostgreSQL's errors).
pub fn regproc_oid(name: &str) -> Result<i64, crate::error::SqlError> {
    use crate::error::SqlError;
    if name == "-" {
        return Ok(0);
    }
    let bare = name.strip_prefix("pg_catalog.").unwrap_or(name);
    let mut found: Vec<i64> = (FUNCTIONS.iter())
        .filter(|f| f.1 == bare)
        .map(|f| f.0)
        .collect();
    found.extend(
        crate::sql_functions::all_in_scope()
            .iter()
            .filter(|d| d.name == name || folio_catalog::split_schema(&d.name).1 == name)
            .map(|d| d.oid as i64),
    );
    match found.as_slice() {
        [oid] => Ok(*oid),
        [] => Err(SqlError::new(
            "42883",
            format!("function \"{name}\" does not exist"),
        )),
        _ => Err(SqlError::new(
            "42725",
            format!("more than one function named \"{name}\""),
        )),
    }
}

/// `oid::regprocedure`: the name and argument types of the function
/// of oid `oid` (`f(integer,text)`); `-` for 0, the number for an oid
/// that is not a function's.
pub fn regprocedure_name(oid: i64) -> String {
    if oid == 0 {
        return "-".into();
    }
    let (name, types): (String, Vec<i64>) = if let Some(def) = crate::sql_functions::by_oid(oid) {
        let name = folio_catalog::split_schema(&def.name).1.to_string();
        (name, def.args.iter().map(|a| i64::from(a.1)).collect())
    } else if let Some(f) = signature(oid) {
        (f.1.to_string(), f.3.to_vec())
    } else {
        return oid.to_string();
    };
    let types: Vec<String> = types.iter().map(|&t| format_type(t, None)).collect();
    format!("{name}({})", types.join(","))
}

/// `'f(types)'::regprocedure`: the oid of the function called `f` whose
/// argument types are `types` (read as type names); 0 for `-`; 42883
/// when there is none.
pub fn regprocedure_oid(text: &str) -> Result<i64, crate::error::SqlError> {
    if text == "-" {
        return Ok(0);
    }
    let missing =
        || crate::error::SqlError::new("42883", format!("function \"{text}\" does not exist"));
    let (name, rest) = text
        .split_once('(')
        .ok_or_else(|| crate::error::SqlError::new("22P02", "expected a left parenthesis"))?;
    let inner = rest.trim_end().strip_suffix(')').ok_or_else(missing)?;
    let mut types = Vec::new();
    for t in inner.split(',').map(str::trim).filter(|t| !t.is_empty()) {
        types.push(crate::catalog_functions::type_oid(t).ok_or_else(missing)?);
    }
    let name = name.trim();
    let bare = name.strip_prefix("pg_catalog.").unwrap_or(name);
    if let Some(f) = FUNCTIONS
        .iter()
        .find(|f| f.1 == bare && f.3 == types.as_slice())
    {
        return Ok(f.0);
    }
    crate::sql_functions::all_in_scope()
        .iter()
        .find(|d| {
            (d.name == name || folio_catalog::split_schema(&d.name).1 == name)
                && d.args
                    .iter()
                    .map(|a| i64::from(a.1))
                    .eq(types.iter().copied())
        })
        .map(|d| d.oid as i64)
        .ok_or_else(missing)
}

/// `pg_get_function_arguments(oid)`: the argument types, as
/// `format_type(t, NULL)` names them, separated by `, ` (none: empty); NULL for
/// an oid that is not a function's.
pub fn arguments(oid: i64) -> Option<String> {
    if let Some(def) = crate::sql_functions::by_oid(oid) {
        let args: Vec<String> = (def.args.iter().enumerate())
            .map(|(i, (name, t, typmod))| {
                let ty = format_type(i64::from(*t), Some(*typmod));
                let mut shown = match name.is_empty() {
                    true => ty,
                    false => format!("{} {ty}", crate::names::written(name)),
                };
                // A procedure's arguments each say their mode, a
                // function's the ones that are not IN.
                let mode = match def.mode(i) {
                    b'o' => "OUT ",
                    b'b' => "INOUT ",
                    b'v' => "VARIADIC ",
                    _ if def.procedure => "IN ",
                    _ => "",
                };
                shown.insert_str(0, mode);
                if let Some(default) = def.default_of(i) {
                    shown.push_str(&format!(" DEFAULT {default}"));
                }
                shown
            })
            .collect();
        return Some(args.join(", "));
    }
    let (_, _, _, args, _, _) = signature(oid)?;
    let names: Vec<String> = args.iter().map(|&t| format_type(t, None)).collect();
    Some(names.join(", "))
}

/// `pg_get_function_result(oid)`: the result type's name (`SETOF t`,
/// `TABLE(c t, ...)` for a set); NULL for an oid that is not a
/// function's.
pub fn result(oid: i64) -> Option<String> {
    if let Some(def) = crate::sql_functions::by_oid(oid) {
        // A procedure has none.
        if def.procedure {
            return None;
        }
        // `RETURNS TABLE (...)`'s columns, or `SETOF` a row type.
        if def.returns_set && !def.columns.is_empty() && !def.columns_of_table {
            let columns: Vec<String> = (def.columns.iter())
                .map(|(n, t, m)| {
                    let ty = format_type(i64::from(*t), Some(*m));
                    format!("{} {ty}", crate::names::written(n))
                })
                .collect();
            return Some(format!("TABLE({})", columns.join(", ")));
        }
        let ty = format_type(i64::from(def.result.0), Some(def.result.1));
        return Some(match def.returns_set {
            true => format!("SETOF {ty}"),
            false => ty,
        });
    }
    signature(oid).map(|f| format_type(f.4, None))
}

#[cfg(test)]
mod tests {
    use super::*;

    // Proves each oid names one signature and each row has one value per
    // column.
    #[test]
    fn rows_are_whole_and_oids_unique() {
        let mut oids: Vec<i64> = FUNCTIONS.iter().map(|f| f.0).collect();
        oids.sort_unstable();
        oids.dedup();
        assert_eq!(oids.len(), FUNCTIONS.len());
        assert!(rows().iter().all(|r| r.len() == COLUMNS.len()));
        assert_eq!(arguments(1707).as_deref(), Some("numeric, integer"));
        assert_eq!(result(2108).as_deref(), Some("bigint"));
        assert_eq!(arguments(2147).as_deref(), Some("\"any\""));
        assert_eq!(arguments(3100).as_deref(), Some(""));
        assert_eq!(arguments(1), None);
    }
}
