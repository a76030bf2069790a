//! PL/pgSQL's extra checks (`plpgsql.extra_warnings`, `extra_errors`),
//! `print_strict_params` and `check_asserts` (`plpgsql/extra_checks.rs`):
//! the warnings, DETAILs and HINTs the slt files cannot show. Expected
//! texts are PostgreSQL 15's.

use folio_sql::Session;

mod common;
use common::{fails, ok};

/// The notices sent since the last call, as psql prints them.
fn notices(s: &mut Session) -> Vec<String> {
    s.take_notices()
        .into_iter()
        .map(|n| n.to_string())
        .collect()
}

const FIELDS: &str = "number of source and target fields in assignment does not match";
const COLUMNS_HINT: &str = "Make sure the query returns the exact list of columns.";
const ONE_ROW_HINT: &str = "Make sure the query returns a single row, or use LIMIT 1.";

// Proves `shadowed_variables`: a warning per shadowing DECLARE when
// CREATE FUNCTION validates the body (parameters, OUT columns, FOUND,
// trigger variables, an integer FOR's variable, a cursor's argument, an
// enclosing block's names), an error under extra_errors, nothing for a
// DO block or with the checks off.
#[test]
fn shadowed_variables_warn_or_fail_at_create() {
    let (_dir, _, db) = common::fresh();
    let mut s = Session::new(db);
    let shadows = |names: &[&str]| -> Vec<String> {
        (names.iter())
            .map(|n| format!("WARNING:  variable \"{n}\" shadows a previously defined variable"))
            .collect()
    };
    ok(
        &mut s,
        "create function quiet(f1 int) returns int language plpgsql as \
         $$ declare f1 int; begin return 1; end $$",
    );
    assert!(notices(&mut s).is_empty());
    ok(&mut s, "set plpgsql.extra_warnings to 'shadowed_variables'");
    ok(
        &mut s,
        "create function sh1(in1 int) returns table (out1 int) language plpgsql as \
         $$ declare in1 int; out1 int; found int; begin end $$",
    );
    assert_eq!(notices(&mut s), shadows(&["in1", "out1", "found"]));
    ok(
        &mut s,
        "create function sh2(a int) returns int language plpgsql as $$ \
         declare b int; begin declare b int; a int; c int; \
         begin declare c text; begin end; end; \
         for i in 1..2 loop declare i int; begin end; end loop; return 1; end $$",
    );
    assert_eq!(notices(&mut s), shadows(&["b", "a", "c", "i"]));
    ok(
        &mut s,
        "create function sh3() returns trigger language plpgsql as \
         $$ declare new int; tg_op text; f1 int; c1 cursor (f1 int) for select 1; \
         begin return null; end $$",
    );
    assert_eq!(notices(&mut s), shadows(&["new", "tg_op", "f1"]));
    ok(
        &mut s,
        "create procedure sh4(a int) language plpgsql as $$ declare a int; begin end $$",
    );
    assert_eq!(notices(&mut s), shadows(&["a"]));
    ok(
        &mut s,
        "do $$ declare found int; begin declare found int; begin end; end $$",
    );
    assert!(notices(&mut s).is_empty());
    ok(&mut s, "set plpgsql.extra_errors to 'shadowed_variables'");
    let e = fails(
        &mut s,
        "create function sh5(f1 int) returns int language plpgsql as \
         $$ declare f1 int; begin return 1; end $$",
    );
    assert_eq!(e.code, "42712");
    assert_eq!(
        e.message,
        "variable \"f1\" shadows a previously defined variable"
    );
    assert_eq!(
        fails(&mut s, "select sh5(1)").code,
        "42883",
        "the function was not made"
    );
}

// Proves `too_many_rows` and `strict_multi_assignment` as warnings (with
// PostgreSQL's DETAIL and HINT) and as errors, and that a query with no
// row is not counted.
#[test]
fn runtime_checks_warn_or_fail() {
    let (_dir, _, db) = common::fresh();
    let mut s = Session::new(db);
    let many = "do $$ declare x int; begin select v from generate_series(1, 2) g(v) into x; end $$";
    ok(&mut s, many);
    assert!(notices(&mut s).is_empty());
    ok(&mut s, "set plpgsql.extra_warnings to 'too_many_rows'");
    ok(&mut s, many);
    assert_eq!(
        notices(&mut s),
        [format!(
            "WARNING:  query returned more than one row\nHINT:  {ONE_ROW_HINT}"
        )]
    );
    ok(&mut s, "set plpgsql.extra_errors to 'too_many_rows'");
    assert_eq!(fails(&mut s, many).code, "P0003");
    ok(&mut s, "reset plpgsql.extra_errors");
    ok(&mut s, "reset plpgsql.extra_warnings");

    let multi = "do $$ declare x int; y int; begin select 1 into x, y; \
                 select 1, 2 into x, y; select 1, 2, 3 into x, y; end $$";
    ok(
        &mut s,
        "set plpgsql.extra_warnings to 'strict_multi_assignment'",
    );
    ok(&mut s, multi);
    let warning = format!(
        "WARNING:  {FIELDS}\nDETAIL:  strict_multi_assignment check of extra_warnings is active.\nHINT:  {COLUMNS_HINT}"
    );
    assert_eq!(notices(&mut s), [warning.clone(), warning]);
    ok(
        &mut s,
        "set plpgsql.extra_errors to 'strict_multi_assignment'",
    );
    let e = fails(&mut s, multi);
    assert_eq!((e.code, e.message.as_str()), ("42804", FIELDS));
    assert_eq!(
        e.detail.as_deref(),
        Some("strict_multi_assignment check of extra_errors is active.")
    );
    assert_eq!(e.hint.as_deref(), Some(COLUMNS_HINT));
    ok(&mut s, "create table test_01 (b int, c int)");
    ok(
        &mut s,
        "do $$ declare x int; begin select * from test_01 into x; \
         for x in select * from test_01 loop end loop; end $$",
    );
    ok(&mut s, "insert into test_01 values (10, 20)");
    assert_eq!(
        fails(
            &mut s,
            "do $$ declare x int; begin select * from test_01 into x; end $$"
        )
        .code,
        "42804"
    );
    assert_eq!(
        fails(
            &mut s,
            "do $$ declare t test_01; begin select 1, 2 into t; select 1, 2, 3 into t; end $$"
        )
        .code,
        "42804"
    );
    assert_eq!(
        fails(
            &mut s,
            "do $$ declare x int; begin for x in select * from test_01 loop end loop; end $$"
        )
        .code,
        "42804"
    );
}

// Proves `print_strict_params`: the DETAIL naming the variables a STRICT
// INTO's query reads (each once, in declaration order, quoted as
// literals) or EXECUTE's USING values, from the setting or the body's
// `#print_strict_params`, which wins.
#[test]
fn strict_errors_name_their_parameters() {
    let (_dir, _, db) = common::fresh();
    let mut s = Session::new(db);
    ok(&mut s, "create table foo (f1 int, f2 int)");
    ok(&mut s, "insert into foo values (1, 2), (3, 4), (5, 6)");
    let body = |directive: &str, p3: &str, filter: &str| {
        format!(
            "create or replace function stricttest() returns void language plpgsql as $$ \
             {directive}\n declare x record; p1 int := 2; p3 text := {p3}; \
             begin select * from foo where {filter} into strict x; end $$"
        )
    };
    let none = "f1 = p1 and f1::text = p3";
    let many = "f1 > p1 or f1::text = p3";
    ok(&mut s, &body("", "'foo'", none));
    assert_eq!(fails(&mut s, "select stricttest()").detail, None);
    ok(&mut s, "set plpgsql.print_strict_params to true");
    let e = fails(&mut s, "select stricttest()");
    assert_eq!(
        (e.code, e.message.as_str()),
        ("P0002", "query returned no rows")
    );
    assert_eq!(
        e.detail.as_deref(),
        Some("parameters: p1 = '2', p3 = 'foo'")
    );
    ok(&mut s, &body("", "$a$'Valame Dios!' dijo Sancho$a$", none));
    assert_eq!(
        fails(&mut s, "select stricttest()").detail.as_deref(),
        Some("parameters: p1 = '2', p3 = '''Valame Dios!'' dijo Sancho'")
    );
    ok(&mut s, &body("", "'foo'", many));
    let e = fails(&mut s, "select stricttest()");
    assert_eq!(e.code, "P0003");
    assert_eq!(
        e.detail.as_deref(),
        Some("parameters: p1 = '2', p3 = 'foo'")
    );
    assert_eq!(e.hint.as_deref(), Some(ONE_ROW_HINT));
    ok(
        &mut s,
        "create or replace function stricttest() returns void language plpgsql as $$ \
         declare x record; begin \
         execute 'select * from foo where f1 > $1' using 1 into strict x; end $$",
    );
    let e = fails(&mut s, "select stricttest()");
    assert_eq!(e.code, "P0003");
    assert_eq!(e.detail.as_deref(), Some("parameters: $1 = '1'"));
    assert_eq!(e.hint, None);
    ok(&mut s, &body("#print_strict_params off", "'foo'", many));
    assert_eq!(fails(&mut s, "select stricttest()").detail, None);
    ok(&mut s, "reset plpgsql.print_strict_params");
    ok(&mut s, &body("#print_strict_params on", "'foo'", many));
    assert_eq!(
        fails(&mut s, "select stricttest()").detail.as_deref(),
        Some("parameters: p1 = '2', p3 = 'foo'")
    );
}

// Proves `check_asserts = off` skips ASSERT (its condition not even
// evaluated) and the settings' checks, as PostgreSQL's.
#[test]
fn check_asserts_and_the_settings_values() {
    let (_dir, _, db) = common::fresh();
    let mut s = Session::new(db);
    let assert = "do $$ begin assert 1 / 0 = 1, 'tested'; end $$";
    assert_eq!(fails(&mut s, assert).code, "22012");
    ok(&mut s, "set plpgsql.check_asserts = off");
    ok(&mut s, assert);
    ok(&mut s, "reset plpgsql.check_asserts");
    assert_eq!(fails(&mut s, assert).code, "22012");
    let e = fails(&mut s, "set plpgsql.extra_errors = 'foo'");
    assert_eq!(
        (e.code, e.message.as_str(), e.detail.as_deref()),
        (
            "22023",
            "invalid value for parameter \"plpgsql.extra_errors\": \"foo\"",
            Some("Unrecognized key word: \"foo\".")
        )
    );
    let e = fails(&mut s, "set plpgsql.extra_warnings = 'all, none'");
    assert_eq!(
        e.detail.as_deref(),
        Some("Key word \"all\" cannot be combined with other key words.")
    );
    let e = fails(&mut s, "set plpgsql.extra_warnings = 'a,,b'");
    assert_eq!(e.detail.as_deref(), Some("List syntax is invalid."));
    assert_eq!(
        fails(&mut s, "set plpgsql.print_strict_params = 'x'").code,
        "22023"
    );
}
