//! User-defined SQL functions: `CREATE [OR REPLACE] FUNCTION ... LANGUAGE
//! sql`, `DROP FUNCTION`, and their calls, expanded into the calling
//! statement before it is planned (README "SQL functions"; folio-catalog
//! `functions.rs` keeps them).
//!
//! A call `f(a, b)` of a function whose body is one SELECT becomes:
//!
//! - for a body that is an expression alone (`SELECT a + b`: no FROM, no
//!   subquery), that expression with each argument reference replaced by
//!   the call's argument cast to the argument's type, cast to the result
//!   type (inlined, as PostgreSQL inlines such functions);
//! - otherwise a scalar subquery: the body with `LIMIT 1` (PostgreSQL
//!   returns a function's first row), cast to the result type; no row
//!   gives NULL.
//!
//! Inside the body a column name takes precedence over an argument of the
//! same name (each query level's FROM is resolved to see which names are
//! columns); `$n` and `f.arg` always mean the argument. An argument that
//! reads the caller's columns is placed in the subquery with its column
//! names marked as the caller's (`$caller`), which the correlated
//! subquery's binding resolves in the caller's scope only
//! (`subquery.rs`), so the body's columns cannot capture them. A STRICT
//! function's call is `CASE WHEN` an argument `IS NULL THEN NULL ELSE
//! ... END`. A function calling itself, directly or not, is 0A000.
//!
//! The functions a statement's transaction sees are put into this
//! thread's scope around each statement (`object_scope.rs`), as enum
//! types are (`user_types.rs`); a plan notes the definitions it expanded and is
//! made again when one changed ([`is_current`]).

use crate::context::Ctx;
use crate::error::SqlError;
use crate::names;
use crate::output::{Notice, Output};
use crate::scalar;
use folio_catalog::FunctionDef;
use folio_db::Transaction;
use sqlparser::ast::{
    ArgMode, CastKind, CreateFunction, CreateFunctionBody, DataType, Expr, FunctionArg,
    FunctionArguments, FunctionBehavior, FunctionCalledOnNull, FunctionDesc, Ident, LimitClause,
    ObjectName, Query, SelectItem, SetExpr, Statement, TableFactor, Value, ValueWithSpan, VisitMut,
    VisitorMut,
};
use sqlparser::dialect::PostgreSqlDialect;
use sqlparser::parser::Parser;
use std::cell::RefCell;
use std::ops::ControlFlow::{self, Break, Continue};
use std::sync::Arc;

/// The `void` type's oid: a function that returns nothing
/// (PL/pgSQL's; a SQL function's body must still return a column).
pub const VOID: u32 = 2278;
/// The `trigger` pseudo-type's oid: a trigger function's result.
pub const TRIGGER: u32 = 2279;

/// How deep calls may nest in one expansion (a bound on the stack; a
/// cycle is refused before).
const MAX_DEPTH: usize = 64;

/// The qualifier that marks a column name of a call's argument as the
/// caller's inside a function body's subquery (`subquery.rs` resolves it
/// in the outer scope only). Not a name a client can write unquoted.
pub const CALLER: &str = "$caller";

thread_local! {
    static USED: RefCell<Vec<FunctionDef>> = const { RefCell::new(Vec::new()) };
}

/// The functions in scope (`object_scope.rs`).
fn in_scope() -> Arc<Vec<FunctionDef>> {
    crate::object_scope::with(|lists| lists.map(|l| l.functions.clone()).unwrap_or_default())
}

/// Forgets the definitions noted by earlier expansions (a statement's
/// planning starts with none).
pub fn clear_used() {
    USED.with(|u| u.borrow_mut().clear());
    crate::user_aggregates::clear();
}

/// Notes that the statement being planned calls `def` (a PL/pgSQL
/// function's call, bound: `plpgsql/row_calls.rs`), so its plan is made
/// again when `def` is replaced or dropped.
pub fn note_used(def: &FunctionDef) {
    USED.with(|u| u.borrow_mut().push(def.clone()));
}

/// The definitions expanded since [`clear_used`].
pub fn take_used() -> Vec<FunctionDef> {
    USED.with(|u| std::mem::take(&mut *u.borrow_mut()))
}

/// Whether each of `used` is still the definition in scope (a plan made
/// with them may run again).
pub fn is_current(used: &[FunctionDef]) -> bool {
    used.is_empty() || {
        let now = in_scope();
        used.iter().all(|u| now.iter().any(|d| d == u))
    }
}

/// The 0A000 of a statement's form that folio's functions do not take and
/// sqlparser would call a syntax error: `CREATE FUNCTION` with a `BEGIN
/// ATOMIC` body (`tokens`: the statement's; `last`: nothing follows it in
/// the query text, so a body without its END is cut off: 42601).
pub fn refused_form(tokens: &[sqlparser::tokenizer::Token], last: bool) -> Option<SqlError> {
    use sqlparser::tokenizer::Token;
    let words: Vec<String> = (tokens.iter())
        .filter(|t| !matches!(t, Token::Whitespace(_)))
        .map(|t| match t {
            Token::Word(w) if w.quote_style.is_none() => w.value.to_ascii_lowercase(),
            _ => String::new(),
        })
        .collect();
    let words: Vec<&str> = words.iter().map(String::as_str).collect();
    match words.as_slice() {
        ["create", "function", ..] | ["create", "or", "replace", "function", ..]
            if last
                && words.windows(2).any(|w| w == ["begin", "atomic"])
                && words.iter().rev().find(|w| !w.is_empty()) != Some(&"end") =>
        {
            // The body's END is missing (a client that split the
            // statement at a `;` of the body): PostgreSQL's grammar error.
            Some(SqlError::syntax("syntax error at end of input"))
        }
        ["create", "function", ..] | ["create", "or", "replace", "function", ..]
            if words.windows(2).any(|w| w == ["begin", "atomic"]) =>
        {
            Some(SqlError::unsupported(
                "BEGIN ATOMIC function bodies (write RETURN expr or AS $$ SELECT ... $$)",
            ))
        }
        _ => None,
    }
}

/// `COST n` and `ROWS n` of a `CREATE [OR REPLACE] FUNCTION` (a
/// statement's tokens, without whitespace) taken out: PostgreSQL's
/// planner estimates, which folio's planner does not read (sqlparser reads
/// neither). PostgreSQL's 22023s are kept: a number not above zero, ROWS
/// of a function that returns no set.
pub fn take_planner_estimates(
    tokens: &mut Vec<sqlparser::tokenizer::TokenWithSpan>,
) -> Result<(), SqlError> {
    use sqlparser::tokenizer::{Token, TokenWithSpan};
    let word = |t: &TokenWithSpan| match &t.token {
        Token::Word(w) if w.quote_style.is_none() => w.value.to_ascii_lowercase(),
        _ => String::new(),
    };
    let head: Vec<String> = tokens.iter().take(4).map(word).collect();
    if !(head.starts_with(&["create".into(), "function".into()])
        || head == ["create", "or", "replace", "function"])
    {
        return Ok(());
    }
    // The options follow the argument list's closing parenthesis.
    let Some(open) = tokens.iter().position(|t| t.token == Token::LParen) else {
        return Ok(());
    };
    let mut depth = 0usize;
    let mut at = open;
    let mut set = false;
    while at < tokens.len() {
        match &tokens[at].token {
            Token::LParen => depth += 1,
            Token::RParen => depth = depth.saturating_sub(1),
            _ if depth == 0 && word(&tokens[at]) == "returns" => {
                let next = tokens.get(at + 1).map(word).unwrap_or_default();
                set = next == "setof" || next == "table";
            }
            _ if depth == 0 && matches!(word(&tokens[at]).as_str(), "cost" | "rows") => {
                let option = word(&tokens[at]);
                let after = |k: usize| tokens.get(at + k).map(|t| &t.token);
                let number = match (after(1), after(2)) {
                    (Some(Token::Number(n, _)), _) => n.parse::<f64>().ok(),
                    // `-n`: refused below.
                    (Some(Token::Minus), Some(Token::Number(..))) => Some(-1.0),
                    _ => None,
                };
                if let Some(n) = number {
                    if n <= 0.0 {
                        let upper = option.to_ascii_uppercase();
                        return Err(SqlError::new("22023", format!("{upper} must be positive")));
                    }
                    if option == "rows" && !set {
                        return Err(SqlError::new(
                            "22023",
                            "ROWS is not applicable when function does not return a set",
                        ));
                    }
                    tokens.drain(at..at + 2);
                    continue;
                }
            }
            _ => {}
        }
        at += 1;
    }
    Ok(())
}

/// The column name that marks `RETURNS TABLE ("$setof" type)` as
/// `RETURNS SETOF type` (sqlparser reads no SETOF; [`setof_as_table`]).
/// Not a name a client can write unquoted.
pub const SETOF_COLUMN: &str = "$setof";

/// `CREATE [OR REPLACE] FUNCTION ... RETURNS SETOF type ...` (a
/// statement's tokens, without whitespace) rewritten as `RETURNS TABLE
/// ("$setof" type)`, which sqlparser reads and [`definition`] takes back
/// as SETOF. The type ends at the next function option's word.
pub fn setof_as_table(tokens: &mut Vec<sqlparser::tokenizer::TokenWithSpan>) {
    use sqlparser::tokenizer::{Token, TokenWithSpan, Word};
    let word = |t: &TokenWithSpan| match &t.token {
        Token::Word(w) if w.quote_style.is_none() => w.value.to_ascii_lowercase(),
        _ => String::new(),
    };
    let function_at = match tokens
        .iter()
        .take(4)
        .map(word)
        .collect::<Vec<_>>()
        .as_slice()
    {
        [c, f, ..] if c == "create" && f == "function" => 1,
        [c, o, r, f] if c == "create" && o == "or" && r == "replace" && f == "function" => 3,
        _ => return,
    };
    let Some(setof) = (function_at..tokens.len().saturating_sub(1))
        .find(|&i| word(&tokens[i]) == "returns" && word(&tokens[i + 1]) == "setof")
        .map(|i| i + 1)
    else {
        return;
    };
    const OPTIONS: &[&str] = &[
        "language",
        "as",
        "immutable",
        "stable",
        "volatile",
        "strict",
        "called",
        "returns",
        "security",
        "parallel",
        "cost",
        "rows",
        "set",
        "leakproof",
        "not",
        "window",
        "transform",
        "support",
        "external",
    ];
    let mut depth = 0usize;
    let mut end = tokens.len();
    for (i, t) in tokens.iter().enumerate().skip(setof + 1) {
        match t.token {
            Token::LParen => depth += 1,
            Token::RParen => depth = depth.saturating_sub(1),
            _ if depth == 0 && OPTIONS.contains(&word(t).as_str()) => {
                end = i;
                break;
            }
            _ => {}
        }
    }
    tokens.insert(end, TokenWithSpan::wrap(Token::RParen));
    let column = Token::Word(Word {
        value: SETOF_COLUMN.to_string(),
        quote_style: Some('"'),
        keyword: sqlparser::keywords::Keyword::NoKeyword,
    });
    tokens.splice(
        setof..=setof,
        [Token::make_keyword("TABLE"), Token::LParen, column].map(TokenWithSpan::wrap),
    );
}

/// A schema member's catalog name as PostgreSQL's messages show it if it
/// is a function's (`s.f(integer, text)`; folio-catalog `functions.rs`
/// names the row `s.f` NUL `23,25`); `None` for a relation's.
pub fn shown_member(stored: &str) -> Option<String> {
    let (name, signature) = stored.split_once('\0')?;
    let types: Vec<String> = (signature.split(',').filter(|t| !t.is_empty()))
        .map(|t| crate::catalog_functions::format_type(t.parse().unwrap_or(0), None))
        .collect();
    Some(format!("{name}({})", types.join(", ")))
}

/// The functions and procedures in scope (`regproc`'s lookup by name).
pub fn all_in_scope() -> Arc<Vec<FunctionDef>> {
    crate::object_scope::with(|lists| match lists {
        Some(l) if !l.procedures.is_empty() => Arc::new(
            l.functions
                .iter()
                .chain(l.procedures.iter())
                .cloned()
                .collect(),
        ),
        Some(l) => l.functions.clone(),
        None => Arc::default(),
    })
}

/// PL/pgSQL's `shadowed_variables` check of routine `def`'s body
/// `block` as CREATE validates it (`plpgsql::extra_checks`), its warnings
/// sent after the statement's.
fn shadowed_variables(
    cx: &Ctx<'_>,
    def: &FunctionDef,
    block: &crate::plpgsql::parse::Block,
) -> Result<(), SqlError> {
    let mut notices = Vec::new();
    let checked = crate::plpgsql::extra_checks::shadowed(cx, def, block, &mut notices);
    cx.raised.borrow_mut().extend(notices);
    checked
}

/// The function or procedure of oid `oid` in scope, if any
/// (`pg_get_function_*`).
pub fn by_oid(oid: i64) -> Option<FunctionDef> {
    crate::object_scope::with(|lists| {
        let l = lists?;
        (l.functions.iter().chain(l.procedures.iter()))
            .find(|d| d.oid as i64 == oid)
            .cloned()
    })
}

/// `CREATE [OR REPLACE] FUNCTION`, or `PROCEDURE` (`procedure`: the
/// statement read as a CREATE FUNCTION, `procedures.rs`).
pub fn create(
    cx: &Ctx<'_>,
    txn: &mut Transaction,
    create: &CreateFunction,
    procedure: bool,
) -> Result<Output, SqlError> {
    let def = definition(cx, txn, create, procedure)?;
    if procedure {
        crate::procedures::check_definition(&def)?;
    }
    // PostgreSQL finds pg_catalog's functions first: a call of this name
    // would never reach a user's function of it.
    if !procedure && crate::system_proc::is_builtin(names_of(&def.name)) {
        return Err(SqlError::unsupported(format!(
            "a function named as the built-in function \"{}\"",
            names_of(&def.name)
        )));
    }
    // The body is checked as PostgreSQL checks it: planned as a call with
    // NULL arguments, the new definition in scope (so a call of itself is
    // found as a cycle).
    let mut with_new: Vec<FunctionDef> = (in_scope().iter())
        .filter(|d| !(d.name == def.name && d.args.len() == def.args.len()))
        .cloned()
        .collect();
    if !create.or_replace
        && in_scope().iter().any(|d| {
            d.name == def.name && d.args.len() == def.args.len() && d.signature() != def.signature()
        })
    {
        return Err(SqlError::unsupported(format!(
            "a second function \"{}\" with {} arguments of other types (overloading by argument types)",
            names_of(&def.name),
            def.args.len()
        )));
    }
    with_new.push(def.clone());
    if procedure {
        // Parsed only: a procedure's statements are planned when it runs.
        let block = crate::plpgsql::plan_cache::parse_body(&def)?;
        if !def.plpgsql {
            crate::procedures::check_sql_body(&block)?;
        } else {
            shadowed_variables(cx, &def, &block)?;
        }
    } else if def.plpgsql {
        // PostgreSQL's validator parses the body; names in it are
        // resolved when it runs.
        let block = crate::plpgsql::parse::parse(&def.body)?;
        crate::plpgsql::set_returning::check_body(&def, &block)?;
        crate::plpgsql::scalar_targets::check(&def, &block)?;
        shadowed_variables(cx, &def, &block)?;
    } else {
        let lists = crate::object_scope::current().unwrap_or_default();
        let _scope =
            crate::object_scope::enter_lists(Arc::new(lists.with_functions(Arc::new(with_new))));
        check_body(cx, txn, &def)?;
    }
    clear_used();
    let before = crate::routine_privileges::before_create(cx, &def)?;
    let made = (cx.db.catalog()).create_function(txn, &def, create.or_replace)?;
    crate::routine_privileges::own_new(cx, &made, before)?;
    Ok(Output::command(match procedure {
        true => "CREATE PROCEDURE",
        false => "CREATE FUNCTION",
    }))
}

/// The bare name of a catalog name, as messages show it.
pub(crate) fn names_of(name: &str) -> &str {
    folio_catalog::split_schema(name).1
}

/// What `CREATE FUNCTION` defines (oid 0: the catalog chooses it).
fn definition(
    cx: &Ctx<'_>,
    txn: &Transaction,
    create: &CreateFunction,
    procedure: bool,
) -> Result<FunctionDef, SqlError> {
    let language = create.language.as_ref().map(names::ident);
    let plpgsql = language.as_deref() == Some("plpgsql");
    match language.as_deref() {
        Some("sql" | "plpgsql") => {}
        Some(other) => {
            return Err(SqlError::new(
                "42704",
                format!("language \"{other}\" does not exist"),
            ));
        }
        // The SQL-standard body (`RETURN e`) is SQL's.
        None if matches!(create.function_body, Some(CreateFunctionBody::Return(_))) => {}
        None => return Err(SqlError::new("42P13", "no language specified")),
    }
    let name = names::relation(&create.name)?;
    let (mut args, mut outputs) = (Vec::new(), Vec::new());
    let (mut modes, mut defaults) = (Vec::new(), Vec::new());
    // Each parameter's name and mode: `i` IN, `o` OUT, `b` INOUT
    // (PostgreSQL lets an IN and an OUT parameter share a name).
    let mut named: Vec<(String, u8)> = Vec::new();
    for arg in create.args.iter().flatten() {
        let written = arg.name.as_ref().map(names::ident).unwrap_or_default();
        let (arg_name, variadic) = crate::parameter_modes::variadic(&written);
        let kind = match arg.mode {
            Some(ArgMode::Out) => b'o',
            Some(ArgMode::InOut) => b'b',
            _ => b'i',
        };
        let clash = |other: u8| !matches!((other, kind), (b'i', b'o') | (b'o', b'i'));
        if !arg_name.is_empty() && named.iter().any(|(n, k)| n == arg_name && clash(*k)) {
            return Err(SqlError::new(
                "42P13",
                format!("parameter name \"{arg_name}\" used more than once"),
            ));
        }
        named.push((arg_name.to_string(), kind));
        if modes.last() == Some(&b'v') && (procedure || arg.mode != Some(ArgMode::Out)) {
            return Err(SqlError::new(
                "42P13",
                match procedure {
                    true => "VARIADIC parameter must be the last parameter",
                    false => "VARIADIC parameter must be the last input parameter",
                },
            ));
        }
        modes.push(match arg.mode {
            Some(ArgMode::Out) => b'o',
            Some(ArgMode::InOut) => b'b',
            _ if variadic => b'v',
            _ => b'i',
        });
        let output = matches!(arg.mode, Some(ArgMode::Out));
        match &arg.default_expr {
            Some(_) if output => {
                return Err(SqlError::new(
                    "42P13",
                    "only input parameters can have default values",
                ));
            }
            Some(default) => defaults.push(default.to_string()),
            // PostgreSQL's rules for what follows a default.
            // (A function's OUT parameters are its result's columns.)
            None if !defaults.is_empty() && output && !procedure => {}
            None if !defaults.is_empty() && output => {
                return Err(SqlError::new(
                    "42P13",
                    "procedure OUT parameters cannot appear after one with a default value",
                ));
            }
            None if !defaults.is_empty() => {
                return Err(SqlError::new(
                    "42P13",
                    "input parameters after one with a default value must also have defaults",
                ));
            }
            None => {}
        }
        let (oid, typmod) = parameter_type(&arg.data_type)?;
        let array = crate::polymorphic::is_array(oid)
            || crate::user_types::of_oid(oid, typmod).is_some_and(|t| t.element().is_some());
        if variadic && !array {
            return Err(SqlError::new(
                "42P13",
                "VARIADIC parameter must be an array",
            ));
        }
        // A function's OUT and INOUT parameters are its result's columns
        // (`out_parameters.rs`); its arguments are the input ones.
        if !procedure && matches!(arg.mode, Some(ArgMode::Out | ArgMode::InOut)) {
            outputs.push((arg_name.to_string(), oid, typmod));
        }
        if procedure || !matches!(arg.mode, Some(ArgMode::Out)) {
            args.push((arg_name.to_string(), oid, typmod));
        }
    }
    if modes.iter().all(|m| *m == b'i') || !outputs.is_empty() {
        modes.clear();
    }
    let mut returns_set = false;
    let mut columns = Vec::new();
    let mut columns_of_table = false;
    let result = match &create.return_type {
        _ if !outputs.is_empty() => {
            let (declared, set) = match &create.return_type {
                None => (None, false),
                Some(DataType::Table(Some(table))) if matches!(table.as_slice(), [c] if c.name.quote_style.is_some() && c.name.value == SETOF_COLUMN) =>
                {
                    let of = crate::plpgsql::set_returning::result_of(cx, txn, table)?;
                    (Some(of.0), true)
                }
                Some(DataType::Custom(name, m))
                    if m.is_empty() && names::relation(name).is_ok_and(|n| n == "record") =>
                {
                    (Some((folio_row::SqlType::Record.oid(), -1)), false)
                }
                Some(ty) => (Some(declared_type(ty)?), false),
            };
            let inputs: Vec<u32> = args.iter().map(|a| a.1).collect();
            let (result, out_columns) = crate::out_parameters::result(&outputs, &inputs, declared)?;
            returns_set = set;
            columns = out_columns;
            result
        }
        // A procedure's result is its OUT and INOUT arguments' row.
        None if procedure => match modes.iter().any(|m| matches!(m, b'o' | b'b')) {
            true => (folio_row::SqlType::Record.oid(), -1),
            false => (VOID, -1),
        },
        Some(_) if procedure => {
            return Err(SqlError::syntax("syntax error at or near \"RETURNS\""));
        }
        None => {
            return Err(SqlError::new(
                "42P13",
                "function result type must be specified",
            ));
        }
        Some(DataType::Table(table)) => {
            returns_set = true;
            let result = crate::plpgsql::set_returning::result_of(
                cx,
                txn,
                table.as_deref().unwrap_or_default(),
            )?;
            // A SQL function's set is read by its calls in FROM, expanded
            // (`record_functions.rs`).
            (columns, columns_of_table) = (result.1, result.2);
            result.0
        }
        // sqlparser reads `trigger` as a type of its own. A trigger
        // function takes no arguments (PostgreSQL's 42P13).
        Some(DataType::Trigger) if plpgsql => {
            if !args.is_empty() {
                return Err(SqlError::new(
                    "42P13",
                    "trigger functions cannot have declared arguments",
                )
                .with_hint(
                    "The arguments of the trigger can be accessed through TG_NARGS and TG_ARGV instead.",
                ));
            }
            (TRIGGER, -1)
        }
        Some(DataType::Trigger) => {
            return Err(SqlError::new(
                "42P13",
                "SQL functions cannot return type trigger",
            ));
        }
        // `record`: each call's column definition list gives its
        // columns (`record_functions.rs`).
        Some(DataType::Custom(name, m))
            if m.is_empty() && names::relation(name).is_ok_and(|n| n == "record") =>
        {
            (folio_row::SqlType::Record.oid(), -1)
        }
        Some(DataType::Custom(name, _)) if names::relation(name).is_ok_and(|n| n == "void") => {
            if !plpgsql {
                return Err(SqlError::unsupported("SQL functions returning void"));
            }
            (VOID, -1)
        }
        Some(ty) => parameter_type(ty)?,
    };
    let arg_oids: Vec<u32> = args.iter().map(|a| a.1).collect();
    crate::polymorphic::check_result(&arg_oids, result.0)?;
    let body = match &create.function_body {
        Some(CreateFunctionBody::AsBeforeOptions(e) | CreateFunctionBody::AsAfterOptions(e)) => {
            match e {
                Expr::Value(ValueWithSpan {
                    value:
                        Value::SingleQuotedString(s)
                        | Value::DollarQuotedString(sqlparser::ast::DollarQuotedString {
                            value: s, ..
                        }),
                    ..
                }) => s.clone(),
                other => {
                    return Err(SqlError::syntax(format!(
                        "syntax error at or near \"{other}\""
                    )));
                }
            }
        }
        Some(CreateFunctionBody::Return(_)) if plpgsql => {
            return Err(SqlError::syntax("syntax error at or near \"RETURN\""));
        }
        Some(CreateFunctionBody::Return(e)) => format!("{RETURN_PREFIX}{e}"),
        Some(_) => return Err(SqlError::unsupported("this form of function body")),
        None => return Err(SqlError::new("42P13", "no function body specified")),
    };
    let volatility = match create.behavior {
        Some(FunctionBehavior::Immutable) => b'i',
        Some(FunctionBehavior::Stable) => b's',
        Some(FunctionBehavior::Volatile) | None => b'v',
    };
    let strict = matches!(
        create.called_on_null,
        Some(FunctionCalledOnNull::Strict | FunctionCalledOnNull::ReturnsNullOnNullInput)
    );
    Ok(FunctionDef {
        oid: 0,
        name,
        args,
        result,
        returns_set,
        columns,
        columns_of_table,
        volatility,
        strict,
        plpgsql,
        body,
        procedure,
        modes,
        defaults,
    })
}

/// The oid and modifier of a declared argument or result type: a
/// column's type or a polymorphic pseudo-type (`polymorphic.rs`). The
/// modifier is always -1: PostgreSQL drops a function's declared lengths
/// and precisions (`char(3)` is `bpchar`, `varchar(2)` `varchar`).
pub(crate) fn declared_type(ty: &DataType) -> Result<(u32, i32), SqlError> {
    if let Some(oid) = crate::polymorphic::pseudo_type(ty) {
        return Ok((oid, -1));
    }
    let ty = crate::types::column_type(ty)?;
    Ok((ty.oid(), -1))
}

/// The oid and modifier a routine's declared parameter or result type
/// is kept as: a domain's own oid (or its array type's) (PostgreSQL's `proargtypes` and
/// `prorettype` name the domain; each call casts its arguments and its
/// result to it, so the domain's rules hold), else [`declared_type`]'s.
pub(crate) fn parameter_type(ty: &DataType) -> Result<(u32, i32), SqlError> {
    if let Some(d) = crate::domains::of_type(ty) {
        return Ok((d.oid, -1));
    }
    match crate::domains::of_array_type(ty) {
        Some(d) => Ok((d.array_oid, -1)),
        None => declared_type(ty),
    }
}

/// How the body of a SQL-standard `RETURN e` function is stored: its
/// expression after this prefix (`pg_proc.prosrc` shows it empty, as
/// PostgreSQL's, which keeps such bodies parsed).
pub const RETURN_PREFIX: &str = "RETURN ";

/// Whether `def`'s body is the SQL-standard form.
pub fn is_standard_body(def: &FunctionDef) -> bool {
    def.body.starts_with(RETURN_PREFIX) || def.body.starts_with(crate::procedures::ATOMIC_PREFIX)
}

/// The body's one query: a single SELECT (0A000 for more statements or
/// for statements that change rows).
/// `def`'s body as a query, the names of the session's temporary tables
/// in it resolved (`temp_tables.rs`): its calls are placed in statements
/// whose own names are resolved already.
fn body_query(cx: &Ctx<'_>, txn: &Transaction, def: &FunctionDef) -> Result<Query, SqlError> {
    let query = Statement::Query(Box::new(parsed_body(def)?));
    let resolved = crate::temp_tables::resolve_names(cx, txn, &query)?;
    match resolved.unwrap_or(query) {
        Statement::Query(query) => Ok(*query),
        _ => unreachable!("a query resolves to a query"),
    }
}

/// `def`'s body parsed: a query, with no data-modifying WITH.
fn parsed_body(def: &FunctionDef) -> Result<Query, SqlError> {
    let dialect = PostgreSqlDialect {};
    let parse =
        |text: &str| Parser::parse_sql(&dialect, text).map_err(|e| SqlError::syntax(e.to_string()));
    let mut statements = match def.body.strip_prefix(RETURN_PREFIX) {
        Some(expr) => parse(&format!("SELECT {expr}"))?,
        None => parse(&def.body)?,
    };
    let name = names_of(&def.name);
    match (statements.len(), statements.pop()) {
        (1, Some(Statement::Query(q))) => {
            if crate::modifying_cte::has_any(&q) {
                return Err(side_effects(name));
            }
            Ok(*q)
        }
        (1, Some(Statement::Insert(_) | Statement::Update { .. } | Statement::Delete(_))) => {
            Err(side_effects(name))
        }
        (0, _) => Err(SqlError::unsupported(format!(
            "SQL function \"{name}\" with an empty body"
        ))),
        (1, _) => Err(SqlError::unsupported(format!(
            "SQL function \"{name}\" whose body is not a SELECT"
        ))),
        _ => Err(SqlError::unsupported(format!(
            "SQL function \"{name}\" with more than one statement"
        ))),
    }
}

fn side_effects(name: &str) -> SqlError {
    SqlError::unsupported(format!(
        "SQL function \"{name}\" that changes rows (INSERT, UPDATE or DELETE in its body)"
    ))
}

/// Plans a call of `def` with NULL arguments of its types: the body's
/// errors (unknown columns, types, too many columns, a result type that
/// does not assign to the declared one) are CREATE's.
fn check_body(cx: &Ctx<'_>, txn: &Transaction, def: &FunctionDef) -> Result<(), SqlError> {
    let query = body_query(cx, txn, def)?;
    let polymorphic = (def.args.iter().map(|a| a.1))
        .chain([def.result.0])
        .any(crate::polymorphic::is_polymorphic);
    if polymorphic {
        // The types are each call's: the body is parsed only.
        return Ok(());
    }
    let args = null_args(def)?;
    let mut stack = vec![def.oid];
    if crate::record_functions::returns_record(def) {
        // Each call's column definition list gives its columns
        // (`record_functions.rs`): the body is planned for its errors.
        let rows = body_rows(cx, txn, def, &args, &mut stack)?;
        crate::query::plan_query(cx, txn, &rows)?;
        return Ok(());
    }
    if let Some(types) = crate::record_functions::own_types(def)? {
        // A set of its own rows: the body's columns must assign to them.
        let rows = body_rows(cx, txn, def, &args, &mut stack)?;
        let found = crate::query::plan_query(cx, txn, &rows)?.types;
        if !def.returns_set && crate::record_functions::gives_row_whole(&found, types.len()) {
            // The row as one value: a call casts it.
            return Ok(());
        }
        return crate::record_functions::check_declared_columns(&found, &types, def.result.0);
    }
    let bare = body_expression(cx, txn, def, &query, &args, &mut stack)?;
    let select = Query {
        body: Box::new(SetExpr::Select(Box::new(select_of(bare.clone())))),
        ..empty_query()
    };
    let planned = crate::query::plan_query(cx, txn, &select)?;
    let inner = match &bare {
        Expr::Subquery(q) => crate::query::plan_query(cx, txn, q)?,
        _ => planned,
    };
    if inner.types.len() != 1 {
        return Err(SqlError::new(
            "42P13",
            format!(
                "return type mismatch in function declared to return {}",
                crate::catalog_functions::format_type(i64::from(def.result.0), None)
            ),
        )
        .with_detail("Final statement must return exactly one column."));
    }
    let found = inner.types[0];
    let wanted = crate::user_types::of_oid(def.result.0, def.result.1).ok_or_else(|| {
        SqlError::new(
            "42704",
            format!("type with oid {} does not exist", def.result.0),
        )
    })?;
    let literal = matches!(
        &query.body.as_ref(),
        SetExpr::Select(s) if matches!(s.projection.as_slice(),
            [SelectItem::UnnamedExpr(Expr::Value(_)) | SelectItem::ExprWithAlias { expr: Expr::Value(_), .. }])
    );
    // A row (`SELECT ROW(r, i)`) becomes a composite result field by
    // field when called (the call's cast checks the fields).
    let row =
        found == folio_row::SqlType::Record && matches!(wanted, folio_row::SqlType::Composite(_));
    if found.oid() != wanted.oid()
        && !crate::types::assignment_cast(found, wanted)
        && !literal
        && !row
    {
        return Err(SqlError::new(
            "42P13",
            format!(
                "return type mismatch in function declared to return {}",
                crate::catalog_functions::format_type(i64::from(def.result.0), None)
            ),
        )
        .with_detail(format!(
            "Actual return type is {}.",
            crate::catalog_functions::format_type(i64::from(found.oid()), None)
        )));
    }
    Ok(())
}

/// A NULL of each of `def`'s argument types: a call that plans its body
/// alone.
pub(crate) fn null_args(def: &FunctionDef) -> Result<Vec<Expr>, SqlError> {
    (def.args.iter())
        .map(|a| typed(Expr::Value(Value::Null.into()), a.1, a.2))
        .collect()
}

fn empty_query() -> Query {
    match Parser::parse_sql(&PostgreSqlDialect {}, "SELECT 1")
        .ok()
        .and_then(|mut s| s.pop())
    {
        Some(Statement::Query(q)) => *q,
        _ => unreachable!("SELECT 1 parses"),
    }
}

fn select_of(expr: Expr) -> sqlparser::ast::Select {
    let Query { body, .. } = empty_query();
    let SetExpr::Select(mut select) = *body else {
        unreachable!("SELECT 1 is a select")
    };
    select.projection = vec![SelectItem::UnnamedExpr(expr)];
    *select
}

/// `expr::type` for type oid `oid` with modifier `typmod`.
pub(crate) fn typed(expr: Expr, oid: u32, typmod: i32) -> Result<Expr, SqlError> {
    if crate::polymorphic::is_polymorphic(oid) {
        // The call's own type (`polymorphic.rs`).
        return Ok(Expr::Nested(Box::new(expr)));
    }
    let text = crate::catalog_functions::format_type(i64::from(oid), Some(typmod));
    let data_type = Parser::new(&PostgreSqlDialect {})
        .try_with_sql(&text)
        .and_then(|mut p| p.parse_data_type())
        .map_err(|e| SqlError::new("XX000", format!("type {text}: {e}")))?;
    Ok(Expr::Cast {
        kind: CastKind::DoubleColon,
        expr: Box::new(Expr::Nested(Box::new(expr))),
        data_type,
        format: None,
    })
}

/// `DROP FUNCTION [IF EXISTS] name[(types)], ...`.
pub fn drop(
    cx: &Ctx<'_>,
    txn: &mut Transaction,
    notices: &mut Vec<Notice>,
    (if_exists, procedure): (bool, bool),
    functions: &[FunctionDesc],
    cascade: bool,
) -> Result<Output, SqlError> {
    let catalog = cx.db.catalog();
    let kind = crate::procedures::kind_word(procedure);
    let mut dropping = Vec::with_capacity(functions.len());
    for desc in functions {
        let Some(def) = find(cx, txn, desc, kind)? else {
            if if_exists {
                notices.push(Notice::info(format!(
                    "{kind} {} does not exist, skipping",
                    shown(desc)?
                )));
                continue;
            }
            return Err(missing(desc, kind)?);
        };
        let def = &def;
        crate::procedures::check_kind(def, procedure)?;
        crate::routine_privileges::check_owner(cx, def)?;
        dropping.push(def.clone());
    }
    // The triggers that run them go first, or refuse the drop.
    let oids: Vec<u64> = dropping.iter().map(|d| d.oid).collect();
    let single = functions.len() == 1;
    crate::trigger_statements::drop_of_functions(cx, txn, notices, &oids, single, cascade)?;
    for def in dropping {
        catalog.drop_function(txn, &def.name, &def.signature())?;
    }
    Ok(Output::command(match procedure {
        true => "DROP PROCEDURE",
        false => "DROP FUNCTION",
    }))
}

/// The routine `desc` names (`name` alone when it is the one of its
/// name, else `name(types)`), as DROP and GRANT find it: 42725 for a
/// name of several without types (`kind`: the word the statement names,
/// `function` or `procedure`); `None` when there is none ([`missing`]).
pub fn find(
    cx: &Ctx<'_>,
    txn: &Transaction,
    desc: &FunctionDesc,
    kind: &str,
) -> Result<Option<FunctionDef>, SqlError> {
    let name = names::relation(&desc.name)?;
    let all = cx.db.catalog().functions(txn)?;
    let of_name: Vec<&FunctionDef> = all.iter().filter(|d| d.name == name).collect();
    let target = match &desc.args {
        None => match of_name.as_slice() {
            [one] => Some(*one),
            [] => None,
            _ => {
                return Err(SqlError::new(
                    "42725",
                    format!("{kind} name \"{}\" is not unique", names_of(&name)),
                )
                .with_hint("Specify the argument list to select the function unambiguously."));
            }
        },
        Some(args) => {
            // (A routine made before its domain parameters kept the
            // domain's oid has the base type's in its signature.)
            let mut found = None;
            for typing in [parameter_type, declared_type] {
                let mut oids = Vec::new();
                for a in args
                    .iter()
                    .filter(|a| !matches!(a.mode, Some(ArgMode::Out)))
                {
                    oids.push(typing(&a.data_type)?.0.to_string());
                }
                let signature = oids.join(",");
                // A procedure's list may name its OUT arguments too.
                let all: Vec<String> = (args.iter())
                    .map(|a| typing(&a.data_type).map(|t| t.0.to_string()))
                    .collect::<Result<_, _>>()?;
                found = found.or_else(|| {
                    of_name.iter().copied().find(|d| {
                        d.signature() == signature
                            || (d.procedure
                                && d.args
                                    .iter()
                                    .map(|a| a.1.to_string())
                                    .eq(all.iter().cloned()))
                    })
                });
            }
            found
        }
    };
    Ok(target.cloned())
}

/// `desc` as messages show it: `name(type, ...)`, `name()` without a
/// list.
fn shown(desc: &FunctionDesc) -> Result<String, SqlError> {
    let name = names::relation(&desc.name)?;
    let types: Vec<String> = (desc.args.iter().flatten())
        .map(|a| {
            parameter_type(&a.data_type)
                .map(|t| crate::catalog_functions::format_type(i64::from(t.0), None))
        })
        .collect::<Result<_, _>>()?;
    Ok(format!("{}({})", names_of(&name), types.join(", ")))
}

/// PostgreSQL's 42883 for a routine `desc` that [`find`] did not find.
pub fn missing(desc: &FunctionDesc, kind: &str) -> Result<SqlError, SqlError> {
    Ok(match desc.args {
        None => SqlError::new(
            "42883",
            format!(
                "could not find a {kind} named \"{}\"",
                names_of(&names::relation(&desc.name)?)
            ),
        ),
        Some(_) => SqlError::new("42883", format!("{kind} {} does not exist", shown(desc)?)),
    })
}

/// `statement` with its calls of SQL functions expanded; `None` when it
/// calls none (or no function exists).
pub fn expand_statement(
    cx: &Ctx<'_>,
    txn: &Transaction,
    statement: &Statement,
) -> Result<Option<Statement>, SqlError> {
    if in_scope().is_empty() {
        return Ok(None);
    }
    let mut out = statement.clone();
    let mut expand = Expand::new(cx, txn);
    let _ = out.visit(&mut expand);
    if let Some(e) = expand.error {
        return Err(e);
    }
    Ok(expand.changed.then_some(out))
}

/// [`expand_statement`] of a query (a view's).
pub fn expand_query(cx: &Ctx<'_>, txn: &Transaction, query: &mut Query) -> Result<(), SqlError> {
    if in_scope().is_empty() {
        return Ok(());
    }
    let mut expand = Expand::new(cx, txn);
    let _ = query.visit(&mut expand);
    match expand.error {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// [`expand_statement`] of an expression outside a statement (a column's
/// stored default, bound for the row changes that take it).
pub fn expand_expr(cx: &Ctx<'_>, txn: &Transaction, expr: &mut Expr) -> Result<(), SqlError> {
    if in_scope().is_empty() {
        return Ok(());
    }
    let mut expand = Expand::new(cx, txn);
    let _ = expr.visit(&mut expand);
    match expand.error {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// Replaces calls of SQL functions, innermost first.
struct Expand<'a, 'b> {
    cx: &'a Ctx<'b>,
    txn: &'a Transaction,
    /// The functions being expanded (a cycle's check).
    stack: Vec<u64>,
    changed: bool,
    error: Option<SqlError>,
}

impl<'a, 'b> Expand<'a, 'b> {
    fn new(cx: &'a Ctx<'b>, txn: &'a Transaction) -> Expand<'a, 'b> {
        Expand {
            cx,
            txn,
            stack: Vec::new(),
            changed: false,
            error: None,
        }
    }
}

impl VisitorMut for Expand<'_, '_> {
    type Break = ();

    /// Names a query's calls of SQL functions ([`name_items`]) and moves
    /// its set-returning SQL calls to FROM (`sql_select_sets.rs`).
    fn pre_visit_query(&mut self, query: &mut Query) -> ControlFlow<()> {
        name_items(query);
        // A set-returning SQL call of the select list runs from FROM.
        let moved = crate::sql_select_sets::move_to_from(query);
        self.took(moved.map(|()| Vec::new()))
    }

    fn pre_visit_table_factor(&mut self, factor: &mut TableFactor) -> ControlFlow<()> {
        // A ROWS FROM with SQL functions' calls (`sql_rows_from.rs`).
        let joined = crate::sql_rows_from::expand(self.cx, self.txn, factor);
        if matches!(&joined, Ok(used) if !used.is_empty()) || joined.is_err() {
            return self.took(joined);
        }
        // A select list's call moved to FROM (`sql_select_sets.rs`).
        let outcome =
            crate::sql_select_sets::expand_rows_from(self.cx, self.txn, factor, &mut self.stack);
        self.took(outcome.map(|def| def.into_iter().collect()))
    }

    fn post_visit_table_factor(&mut self, factor: &mut TableFactor) -> ControlFlow<()> {
        self.expand_factor(factor)
    }

    fn post_visit_expr(&mut self, expr: &mut Expr) -> ControlFlow<()> {
        if let Expr::CompoundFieldAccess { root, access_chain } = expr
            && let Some(sqlparser::ast::AccessExpr::Dot(Expr::Identifier(field))) =
                access_chain.first()
            && let Some(taken) = row_field(root, &names::ident(field))
        {
            // `(call).field` of a call expanded below.
            let taken = match taken {
                Ok(taken) => taken,
                Err(e) => return self.took(Err(e)),
            };
            access_chain.remove(0);
            *expr = match access_chain.is_empty() {
                true => taken,
                false => Expr::CompoundFieldAccess {
                    root: Box::new(Expr::Nested(Box::new(taken))),
                    access_chain: std::mem::take(access_chain),
                },
            };
            return Continue(());
        }
        let Expr::Function(call) = expr else {
            return Continue(());
        };
        if let Some(aggregate) =
            crate::user_aggregates::named(&call.name, crate::user_aggregates::arity(&call.args))
        {
            // Its functions, made ready for the call's binding.
            let prepared =
                crate::user_aggregates::prepare(self.cx, self.txn, &aggregate, &mut self.stack);
            return self.took(prepared.map(|()| Vec::new()));
        }
        let def = match resolve_call(&call.name, &call.args, Some((self.cx, self.txn))) {
            Named::One(def) => def,
            Named::None => return Continue(()),
            // (A call no definition fits, written by places only, is
            // the binder's 42883.)
            named @ (Named::Unfit | Named::Ambiguous) => {
                let by_places = matches!(named, Named::Unfit)
                    && !matches!(&call.args, FunctionArguments::List(l)
                        if l.args.iter().any(|a| !matches!(a, FunctionArg::Unnamed(_))));
                if by_places {
                    return Continue(());
                }
                return match unresolved_error(self.cx, self.txn, &call.name, &call.args, &named) {
                    Some(e) => self.took(Err(e)),
                    None => Continue(()),
                };
            }
        };
        if def.plpgsql {
            // Bound as a call run per row (`plpgsql/row_calls.rs`).
            return Continue(());
        }
        if crate::record_functions::returns_record(&def) {
            // PostgreSQL gives a record value (a set of them for SETOF).
            return self.took(Err(SqlError::unsupported(format!(
                "a call of SQL function \"{}\" returning record outside FROM (call it in FROM with a column definition list)",
                names_of(&def.name)
            ))));
        }
        if def.returns_set {
            return self.took(Err(SqlError::unsupported(format!(
                "a call of set-returning SQL function \"{}\" outside FROM (call it in FROM)",
                names_of(&def.name)
            ))));
        }
        let args = match call_args(&call.args, &def) {
            Ok(args) => args,
            Err(e) => return self.took(Err(e)),
        };
        let concrete = match resolved(self.cx, self.txn, &def, &args) {
            Ok(concrete) => concrete,
            Err(e) => return self.took(Err(e)),
        };
        match expand_call(self.cx, self.txn, &concrete, args, &mut self.stack) {
            Ok(expanded) => {
                *expr = expanded;
                self.took(Ok(vec![def]))
            }
            Err(e) => self.took(Err(e)),
        }
    }
}

impl Expand<'_, '_> {
    /// A call of a SQL function returning `record` in FROM, made the
    /// query it stands for (`record_functions.rs`).
    fn expand_factor(&mut self, factor: &mut TableFactor) -> ControlFlow<()> {
        let outcome =
            crate::record_functions::expand_factor(self.cx, self.txn, factor, &mut self.stack);
        self.took(outcome.map(|def| def.into_iter().collect()))
    }

    /// The one owner of an expansion's outcome: the SQL functions it used
    /// (none: nothing changed), or the error that stops the walk.
    fn took(&mut self, outcome: Result<Vec<FunctionDef>, SqlError>) -> ControlFlow<()> {
        match outcome {
            Ok(used) => {
                if !used.is_empty() {
                    self.changed = true;
                    USED.with(|u| u.borrow_mut().extend(used));
                }
                Continue(())
            }
            Err(e) => {
                self.error = Some(e);
                Break(())
            }
        }
    }
}

/// Names each select item of `query` that is a call of a SQL function by
/// the function, as PostgreSQL names it, not by what it expands to.
fn name_items(query: &mut Query) {
    let SetExpr::Select(select) = query.body.as_mut() else {
        return;
    };
    for item in &mut select.projection {
        let SelectItem::UnnamedExpr(Expr::Function(call)) = item else {
            continue;
        };
        let Named::One(def) = resolve_call(&call.name, &call.args, None) else {
            continue;
        };
        if !def.plpgsql {
            *item = SelectItem::ExprWithAlias {
                expr: Expr::Function(call.clone()),
                alias: Ident::with_quote('"', names_of(&def.name)),
            };
        }
    }
}

pub(crate) fn call_arity(args: &FunctionArguments) -> Option<usize> {
    match args {
        FunctionArguments::None => Some(0),
        FunctionArguments::List(list) => Some(list.args.len()),
        FunctionArguments::Subquery(_) => None,
    }
}

/// The SQL function a call of `name` with `arity` positional arguments
/// names, if any (a name of the catalog, bare in `public` or
/// schema-qualified; `call_arguments::choose`: none when several fit
/// alike).
pub(crate) fn resolve(name: &ObjectName, arity: Option<usize>) -> Option<FunctionDef> {
    let names = vec![None; arity?];
    let name = names::relation(name).ok()?;
    let all = in_scope();
    crate::call_arguments::choose(of_name(&all, &name), &names, false, || None)
        .ok()
        .flatten()
        .cloned()
}

/// The functions (not aggregates) of catalog name `name` among `all`.
fn of_name<'d>(all: &'d [FunctionDef], name: &str) -> impl Iterator<Item = &'d FunctionDef> {
    let name = name.to_string();
    all.iter()
        .filter(move |d| d.name == name && !crate::user_aggregates::is_aggregate(d))
}

/// What a call `name(args)` names among the functions in scope.
pub(crate) enum Named {
    /// No function in scope has the name.
    None,
    /// Functions have it, but the call fits none (by its arguments'
    /// places and names).
    Unfit,
    /// Several fit alike (PostgreSQL's 42725).
    Ambiguous,
    One(FunctionDef),
}

/// The function a call `name(args)` names: by its arguments' places and
/// names, defaults and VARIADIC, and their types where several fit
/// (`call_arguments.rs`; `typing`: the statement's, to plan the
/// arguments alone, `None` where there is none).
pub(crate) fn resolve_call(
    name: &ObjectName,
    args: &FunctionArguments,
    typing: Option<(&Ctx<'_>, &Transaction)>,
) -> Named {
    let Ok(name) = names::relation(name) else {
        return Named::None;
    };
    let all = in_scope();
    if of_name(&all, &name).next().is_none() {
        return Named::None;
    }
    let Ok(listed) = crate::call_arguments::listed(args) else {
        // The call's own error is its binding's.
        return Named::Unfit;
    };
    let names = crate::call_arguments::names_of(&listed);
    let types = || {
        let (cx, txn) = typing?;
        let exprs: Vec<Expr> = listed.args.iter().map(|(_, e)| (*e).clone()).collect();
        argument_types(cx, txn, &exprs)
    };
    match crate::call_arguments::choose(of_name(&all, &name), &names, listed.variadic, types) {
        Ok(Some(def)) => Named::One(def.clone()),
        Ok(None) => Named::Unfit,
        Err(()) => Named::Ambiguous,
    }
}

/// The 42883 or 42725 of a call `name(args)` that [`resolve_call`] found
/// no one function for, worded as PostgreSQL's (`function f(integer, b =>
/// text) does not exist`); `None` when its arguments cannot be typed
/// here (they read columns) or it has no name in scope.
pub(crate) fn unresolved_error(
    cx: &Ctx<'_>,
    txn: &Transaction,
    name: &ObjectName,
    args: &FunctionArguments,
    named: &Named,
) -> Option<SqlError> {
    // (A list PostgreSQL's grammar refuses: its 42601.)
    let listed = match crate::call_arguments::listed(args) {
        Ok(listed) => listed,
        Err(e) => return Some(e),
    };
    let exprs: Vec<Expr> = listed.args.iter().map(|(_, e)| (*e).clone()).collect();
    let types = argument_types(cx, txn, &exprs)?;
    let shown: Vec<String> = (listed.args.iter().zip(types))
        .map(|((n, _), t)| {
            let ty = t.map_or_else(|| "unknown".to_string(), crate::set_types::name);
            match n {
                Some(n) => format!("{n} => {ty}"),
                None => ty,
            }
        })
        .collect();
    let bare = names_of(&names::relation(name).ok()?).to_string();
    let shown = format!("{bare}({})", shown.join(", "));
    match named {
        Named::Ambiguous => Some(crate::functions::not_unique(format!(
            "function {shown} is not unique"
        ))),
        Named::Unfit => Some(crate::functions::no_match(format!(
            "function {shown} does not exist"
        ))),
        _ => None,
    }
}

/// The PL/pgSQL function a call of `name` with `arity` arguments names,
/// if any (`plpgsql/calls.rs`).
pub fn resolve_plpgsql(name: &ObjectName, arity: Option<usize>) -> Option<FunctionDef> {
    resolve(name, arity).filter(|d| d.plpgsql)
}

/// Whether any PL/pgSQL function is in scope.
pub fn any_plpgsql() -> bool {
    in_scope().iter().any(|d| d.plpgsql)
}

/// The argument list a call with arguments `args` of `def` expands to:
/// one expression per input parameter (`call_arguments::arguments`:
/// written, named, defaults, VARIADIC gathered).
pub(crate) fn call_args(
    args: &FunctionArguments,
    def: &FunctionDef,
) -> Result<Vec<Expr>, SqlError> {
    if let FunctionArguments::List(list) = args
        && (list.duplicate_treatment.is_some() || !list.clauses.is_empty())
    {
        return Err(SqlError::unsupported(format!(
            "DISTINCT or ORDER BY in a call of SQL function \"{}\"",
            names_of(&def.name)
        )));
    }
    let listed = crate::call_arguments::listed(args)?;
    let names = crate::call_arguments::names_of(&listed);
    let Some(places) = crate::call_arguments::fit(def, &names, listed.variadic) else {
        return Err(crate::functions::no_match(format!(
            "function {}() does not exist",
            names_of(&def.name)
        )));
    };
    crate::call_arguments::arguments(def, &listed, &places)
}

/// The expression a call of `def` with `args` stands for.
pub(crate) fn expand_call(
    cx: &Ctx<'_>,
    txn: &Transaction,
    def: &FunctionDef,
    args: Vec<Expr>,
    stack: &mut Vec<u64>,
) -> Result<Expr, SqlError> {
    let typed_args = typed_args(def, &args)?;
    let query = body_query(cx, txn, def)?;
    enter(def, stack)?;
    let whole = |stack: &mut Vec<u64>, width: usize| {
        crate::record_functions::body_columns(cx, txn, def, stack)
            .map(|found| crate::record_functions::gives_row_whole(&found, width))
    };
    let body = match crate::record_functions::row_width(def) {
        Some(width) if !whole(stack, width)? => {
            body_row(cx, txn, def, query, &typed_args, stack, width)
        }
        _ => body_expression(cx, txn, def, &query, &typed_args, stack),
    };
    stack.pop();
    let result = result_typed(body?, def)?;
    if !def.strict || args.is_empty() {
        return Ok(result);
    }
    // STRICT: NULL for any NULL argument, the body not run. An argument
    // of a domain is tested as cast to it, so that it meets the domain's
    // rules first, as PostgreSQL's (`plpgsql::strict_null`).
    let tested =
        (args.into_iter().zip(typed_args).zip(&def.args)).map(|((raw, typed), (_, oid, _))| {
            match crate::domains::value_type_of(*oid) {
                Some(_) => typed,
                None => raw,
            }
        });
    let any_null = tested
        .map(|a| Expr::IsNull(Box::new(Expr::Nested(Box::new(a)))))
        .reduce(|a, b| Expr::BinaryOp {
            left: Box::new(a),
            op: sqlparser::ast::BinaryOperator::Or,
            right: Box::new(b),
        })
        .expect("at least one argument");
    Ok(Expr::Case {
        case_token: sqlparser::ast::helpers::attached_token::AttachedToken::empty(),
        end_token: sqlparser::ast::helpers::attached_token::AttachedToken::empty(),
        operand: None,
        conditions: vec![sqlparser::ast::CaseWhen {
            condition: any_null,
            result: result_typed(Expr::Value(Value::Null.into()), def)?,
        }],
        else_result: Some(Box::new(result)),
    })
}

/// `expr`, a call's value, cast to `def`'s result type (a `record` is
/// left as it is: it has no type to cast to).
fn result_typed(expr: Expr, def: &FunctionDef) -> Result<Expr, SqlError> {
    match def.result.0 == folio_row::SqlType::Record.oid() {
        true => Ok(expr),
        false => typed(expr, def.result.0, def.result.1),
    }
}

/// The name of the derived table whose whole row is [`body_row`]'s value
/// (not a name a client can write unquoted).
const ROW: &str = "$row";

/// The body of `def`, a function giving a row of `width` columns, as the
/// expression of its first row's value over the (typed) arguments `args`:
/// `(SELECT "$row" FROM (body) AS "$row"("a", ...) LIMIT 1)`, NULL when
/// the body gives no row, as PostgreSQL's. The columns are named as the
/// function's output parameters (`"1"`, ... for a composite type's), so
/// that [`row_field`] can take one.
fn body_row(
    cx: &Ctx<'_>,
    txn: &Transaction,
    def: &FunctionDef,
    mut query: Query,
    args: &[Expr],
    stack: &mut Vec<u64>,
    width: usize,
) -> Result<Expr, SqlError> {
    substitute(cx, txn, def, &mut query, args, false)?;
    expand_nested(cx, txn, &mut query, stack)?;
    let names: Vec<String> = match def.columns.len() == width {
        true => (def.columns.iter())
            .map(|(name, _, _)| format!("\"{}\"", name.replace('"', "\"\"")))
            .collect(),
        false => (1..=width).map(|i| format!("\"{i}\"")).collect(),
    };
    let mut row = crate::parse::query(&format!(
        "SELECT \"{ROW}\" FROM (SELECT 1) AS \"{ROW}\"({}) LIMIT 1",
        names.join(", ")
    ))?;
    if let SetExpr::Select(select) = row.body.as_mut()
        && let TableFactor::Derived { subquery, .. } = &mut select.from[0].relation
    {
        **subquery = query;
    }
    Ok(Expr::Subquery(Box::new(row)))
}

/// `(call).field` of an expanded call of a function with output
/// parameters (`root`, [`body_row`]'s subquery, or a STRICT call's `CASE`
/// over it): the subquery taking that column, the call's row never
/// made; a field it does not have is PostgreSQL's 42703. `None`: `root`
/// is no such call.
pub(crate) fn row_field(root: &Expr, field: &str) -> Option<Result<Expr, SqlError>> {
    match root {
        Expr::Nested(inner) => row_field(inner, field),
        Expr::Subquery(query) => {
            let columns = body_row_columns(query)?;
            let Some(column) = columns.iter().find(|c| names::ident(c) == field) else {
                return Some(Err(crate::row_values::no_record_field(field)));
            };
            let mut taken = query.clone();
            if let SetExpr::Select(select) = taken.body.as_mut() {
                select.projection = vec![SelectItem::UnnamedExpr(Expr::CompoundIdentifier(vec![
                    Ident::with_quote('"', ROW),
                    column.clone(),
                ]))];
            }
            Some(Ok(Expr::Subquery(taken)))
        }
        Expr::Case {
            case_token,
            end_token,
            operand: None,
            conditions,
            else_result: Some(otherwise),
        } if strict_guard(conditions) => {
            let otherwise = match row_field(otherwise, field)? {
                Ok(e) => e,
                Err(e) => return Some(Err(e)),
            };
            Some(Ok(Expr::Case {
                case_token: case_token.clone(),
                end_token: end_token.clone(),
                operand: None,
                conditions: conditions.clone(),
                else_result: Some(Box::new(otherwise)),
            }))
        }
        _ => None,
    }
}

/// The columns of the row `root` is, if it is an expanded call of a
/// function with output parameters ([`row_field`]'s forms): what
/// `(call).*` stands for.
pub(crate) fn row_columns(root: &Expr) -> Option<Vec<Ident>> {
    match root {
        Expr::Nested(inner) => row_columns(inner),
        Expr::Subquery(query) => body_row_columns(query),
        Expr::Case {
            operand: None,
            conditions,
            else_result: Some(otherwise),
            ..
        } if strict_guard(conditions) => row_columns(otherwise),
        _ => None,
    }
}

/// The column names of [`body_row`]'s subquery, if `query` is one.
fn body_row_columns(query: &Query) -> Option<Vec<Ident>> {
    let SetExpr::Select(select) = query.body.as_ref() else {
        return None;
    };
    let is_row = |id: &Ident| id.value == ROW && id.quote_style.is_some();
    let [SelectItem::UnnamedExpr(Expr::Identifier(id))] = select.projection.as_slice() else {
        return None;
    };
    let TableFactor::Derived {
        alias: Some(alias), ..
    } = &select.from.first()?.relation
    else {
        return None;
    };
    (is_row(id) && is_row(&alias.name))
        .then(|| alias.columns.iter().map(|c| c.name.clone()).collect())
}

/// Whether `conditions` are a STRICT call's guard: each gives NULL.
fn strict_guard(conditions: &[sqlparser::ast::CaseWhen]) -> bool {
    (conditions.iter()).all(|when| matches!(&when.result, Expr::Value(v) if v.value == Value::Null))
}

/// `def` as a call with arguments `args` sees it: its polymorphic types
/// made the call's (`polymorphic::resolve_def`: 42883 when the arguments
/// do not fit, 42804 when a type is not determined). The arguments are
/// typed by planning `SELECT args` when none reads a column; a call whose
/// arguments read columns keeps `def` as it is (each argument placed
/// uncast, as written).
pub(crate) fn resolved(
    cx: &Ctx<'_>,
    txn: &Transaction,
    def: &FunctionDef,
    args: &[Expr],
) -> Result<FunctionDef, SqlError> {
    let polymorphic = (def.args.iter().map(|a| a.1))
        .chain(def.columns.iter().map(|c| c.1))
        .chain([def.result.0])
        .any(crate::polymorphic::is_polymorphic);
    if !polymorphic {
        return Ok(def.clone());
    }
    match argument_types(cx, txn, args) {
        Some(actual) => crate::polymorphic::resolve_def(def, &actual),
        None => Ok(def.clone()),
    }
}

/// The types of a call's arguments `args` (`None` for an untyped literal
/// or NULL: PostgreSQL's `unknown`), when they read no column nor
/// parameter and plan.
pub(crate) fn argument_types(
    cx: &Ctx<'_>,
    txn: &Transaction,
    args: &[Expr],
) -> Option<Vec<crate::polymorphic::Actual>> {
    if args.is_empty() {
        return Some(Vec::new());
    }
    // A parameter's type is where it is used (a prepared statement's
    // `$1`); such a call is left unresolved, as one reading columns.
    let parameter = |a: &Expr| {
        let mut found = false;
        let _ = sqlparser::ast::visit_expressions(a, |e| {
            found |= matches!(e, Expr::Value(v) if matches!(v.value, Value::Placeholder(_)));
            ControlFlow::<()>::Continue(())
        });
        found
    };
    if args.iter().any(|a| reads_columns(a) || parameter(a)) {
        return None;
    }
    let mut select = select_of(Expr::Value(Value::Null.into()));
    select.projection = (args.iter().cloned())
        .map(SelectItem::UnnamedExpr)
        .collect();
    let query = Query {
        body: Box::new(SetExpr::Select(Box::new(select))),
        ..empty_query()
    };
    let types = crate::query::plan_query(cx, txn, &query).ok()?.types;
    Some(
        (args.iter().zip(types))
            .map(|(a, t)| (!crate::polymorphic::is_untyped(a)).then_some(t))
            .collect(),
    )
}

/// `args`, a call's arguments, each cast to its parameter's type.
pub(crate) fn typed_args(def: &FunctionDef, args: &[Expr]) -> Result<Vec<Expr>, SqlError> {
    (args.iter().zip(&def.args))
        .map(|(a, (_, oid, typmod))| typed(a.clone(), *oid, *typmod))
        .collect()
}

/// Pushes `def` on the stack of functions being expanded: 0A000 if it is
/// on it already (a cycle), 54001 past [`MAX_DEPTH`].
pub(crate) fn enter(def: &FunctionDef, stack: &mut Vec<u64>) -> Result<(), SqlError> {
    if stack.contains(&def.oid) {
        return Err(SqlError::unsupported(format!(
            "recursive SQL function \"{}\" (it calls itself)",
            names_of(&def.name)
        )));
    }
    if stack.len() >= MAX_DEPTH {
        return Err(SqlError::new("54001", "stack depth limit exceeded"));
    }
    stack.push(def.oid);
    Ok(())
}

/// The body of `def` as the query of its rows over the (typed) arguments
/// `args`, calls in it expanded: what a call of a function returning
/// `record` in FROM reads (`record_functions.rs`). A column an argument
/// reads is marked as the caller's, as in a scalar subquery: the query
/// is a LATERAL item's then.
pub(crate) fn body_rows(
    cx: &Ctx<'_>,
    txn: &Transaction,
    def: &FunctionDef,
    args: &[Expr],
    stack: &mut Vec<u64>,
) -> Result<Query, SqlError> {
    let mut query = body_query(cx, txn, def)?;
    substitute(cx, txn, def, &mut query, args, false)?;
    expand_nested(cx, txn, &mut query, stack)?;
    Ok(query)
}

/// Replaces the argument references of `node` (a part of `def`'s body)
/// by `args`; `inline`: it is placed in the caller's query, so an
/// argument is placed as written (else a column it reads is marked as
/// the caller's).
fn substitute(
    cx: &Ctx<'_>,
    txn: &Transaction,
    def: &FunctionDef,
    node: &mut impl VisitMut,
    args: &[Expr],
    inline: bool,
) -> Result<(), SqlError> {
    let mut substitute = Substitute {
        cx,
        txn,
        def,
        args,
        scopes: Vec::new(),
        depth: 0,
        inline,
        error: None,
    };
    let _ = node.visit(&mut substitute);
    match substitute.error {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// Expands the calls of SQL functions in `node` (a body), `stack` the
/// functions being expanded around it.
fn expand_nested(
    cx: &Ctx<'_>,
    txn: &Transaction,
    node: &mut impl VisitMut,
    stack: &mut Vec<u64>,
) -> Result<(), SqlError> {
    let mut expand = Expand {
        cx,
        txn,
        stack: std::mem::take(stack),
        changed: false,
        error: None,
    };
    let _ = node.visit(&mut expand);
    *stack = expand.stack;
    match expand.error {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// The body of `def` as an expression over the (typed) arguments `args`:
/// inlined, or a scalar subquery (module comment). Calls in the body are
/// expanded too.
fn body_expression(
    cx: &Ctx<'_>,
    txn: &Transaction,
    def: &FunctionDef,
    query: &Query,
    args: &[Expr],
    stack: &mut Vec<u64>,
) -> Result<Expr, SqlError> {
    let mut query = query.clone();
    let inline = match query.body.as_ref() {
        SetExpr::Select(s)
            if s.from.is_empty()
                && s.selection.is_none()
                && s.having.is_none()
                && s.distinct.is_none()
                && matches!(s.group_by, sqlparser::ast::GroupByExpr::Expressions(ref e, _) if e.is_empty())
                && query.with.is_none()
                && query.order_by.is_none()
                && query.limit_clause.is_none()
                && !has_subquery(&s.projection) =>
        {
            match s.projection.as_slice() {
                // (An aggregate of the arguments aggregates the body's one
                // row, not the caller's rows: not placed in the caller.)
                [SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. }]
                    if !crate::aggregate::contains_aggregate(e) =>
                {
                    Some(e.clone())
                }
                _ => None,
            }
        }
        _ => None,
    };
    let mut out = match inline {
        Some(mut e) => {
            substitute(cx, txn, def, &mut e, args, true)?;
            e
        }
        None => {
            substitute(cx, txn, def, &mut query, args, false)?;
            first_row(&mut query);
            Expr::Subquery(Box::new(query))
        }
    };
    // Calls in the body.
    expand_nested(cx, txn, &mut out, stack)?;
    Ok(Expr::Nested(Box::new(out)))
}

/// `query` with `LIMIT 1` unless it has a LIMIT: a function not
/// returning a set returns its body's first row, as PostgreSQL's.
pub(crate) fn first_row(query: &mut Query) {
    if query.limit_clause.is_none() {
        query.limit_clause = Some(LimitClause::LimitOffset {
            limit: Some(Expr::Value(Value::Number("1".into(), false).into())),
            offset: None,
            limit_by: Vec::new(),
        });
    }
}

fn has_subquery(items: &[SelectItem]) -> bool {
    struct Find;
    impl sqlparser::ast::Visitor for Find {
        type Break = ();
        fn pre_visit_query(&mut self, _: &Query) -> ControlFlow<()> {
            Break(())
        }
    }
    items
        .iter()
        .any(|i| sqlparser::ast::Visit::visit(i, &mut Find).is_break())
}

/// Replaces a body's references to its arguments by the call's
/// arguments.
struct Substitute<'a, 'b> {
    cx: &'a Ctx<'b>,
    txn: &'a Transaction,
    def: &'a FunctionDef,
    args: &'a [Expr],
    /// The FROM scopes of the body's query levels around the expression.
    scopes: Vec<crate::from::Scope>,
    /// How many query levels deep (the body's own query is 1).
    depth: usize,
    /// The body is an expression alone, placed in the caller's query.
    inline: bool,
    error: Option<SqlError>,
}

impl Substitute<'_, '_> {
    /// The argument a reference denotes, if it is one.
    fn argument(&self, expr: &Expr) -> Option<usize> {
        let by_name = |name: &str| {
            self.def
                .args
                .iter()
                .position(|a| !a.0.is_empty() && a.0 == name)
        };
        match expr {
            Expr::Value(ValueWithSpan {
                value: Value::Placeholder(p),
                ..
            }) => {
                let n: usize = p.strip_prefix('$')?.parse().ok()?;
                (1..=self.args.len()).contains(&n).then(|| n - 1)
            }
            Expr::Identifier(id) => {
                let name = names::ident(id);
                // A column of the body takes precedence.
                if self.scopes.iter().any(|s| scalar::bind(expr, s).is_ok()) {
                    return None;
                }
                by_name(&name)
            }
            Expr::CompoundIdentifier(parts) if parts.len() == 2 => {
                let function = names::ident(&parts[0]);
                (function == names_of(&self.def.name))
                    .then(|| by_name(&names::ident(&parts[1])))
                    .flatten()
            }
            _ => None,
        }
    }

    /// Argument `n` as placed in the body.
    fn placed(&self, n: usize) -> Result<Expr, SqlError> {
        let arg = self.args[n].clone();
        if self.inline || !reads_columns(&arg) {
            return Ok(arg);
        }
        if self.depth > 1 {
            return Err(SqlError::unsupported(format!(
                "an argument of SQL function \"{}\" that reads columns, used inside a subquery of its body",
                names_of(&self.def.name)
            )));
        }
        let mut arg = arg;
        let _ = arg.visit(&mut MarkCaller);
        Ok(arg)
    }
}

impl VisitorMut for Substitute<'_, '_> {
    type Break = ();

    fn pre_visit_query(&mut self, query: &mut Query) -> ControlFlow<()> {
        self.depth += 1;
        let scope = match query.body.as_ref() {
            SetExpr::Select(s) if !s.from.is_empty() => {
                let system = crate::system_columns::mentioned(&**s);
                crate::from::resolve(self.cx, self.txn, &s.from, None, system)
                    .map(|f| f.scope)
                    .unwrap_or_default()
            }
            _ => crate::from::Scope::default(),
        };
        self.scopes.push(scope);
        Continue(())
    }

    fn post_visit_query(&mut self, _: &mut Query) -> ControlFlow<()> {
        self.depth -= 1;
        self.scopes.pop();
        Continue(())
    }

    // After the children: a placed argument is not visited again (its
    // own `$1` is the caller's).
    fn post_visit_expr(&mut self, expr: &mut Expr) -> ControlFlow<()> {
        let Some(n) = self.argument(expr) else {
            return Continue(());
        };
        match self.placed(n) {
            Ok(arg) => {
                *expr = Expr::Nested(Box::new(arg));
                Continue(())
            }
            Err(e) => {
                self.error = Some(e);
                Break(())
            }
        }
    }
}

/// Whether `expr` names a column (of whatever scope).
pub(crate) fn reads_columns(expr: &Expr) -> bool {
    struct Find;
    impl sqlparser::ast::Visitor for Find {
        type Break = ();
        fn pre_visit_expr(&mut self, e: &Expr) -> ControlFlow<()> {
            match e {
                Expr::Identifier(_) | Expr::CompoundIdentifier(_) => Break(()),
                _ => Continue(()),
            }
        }
    }
    sqlparser::ast::Visit::visit(expr, &mut Find).is_break()
}

/// Marks each column name of a call's argument as the caller's
/// ([`CALLER`]): `x` becomes `"$caller".x`, `t.x` `"$caller:t".x`.
struct MarkCaller;

impl VisitorMut for MarkCaller {
    type Break = ();

    fn pre_visit_expr(&mut self, expr: &mut Expr) -> ControlFlow<()> {
        match expr {
            Expr::Identifier(id) => {
                *expr = Expr::CompoundIdentifier(vec![Ident::new(CALLER), id.clone()]);
            }
            Expr::CompoundIdentifier(parts) if parts.len() == 2 => {
                let qualifier = format!("{CALLER}:{}", parts[0].value);
                let quoted = parts[0].quote_style;
                parts[0] = Ident {
                    value: qualifier,
                    quote_style: quoted,
                    span: parts[0].span,
                };
            }
            _ => {}
        }
        Continue(())
    }
}

/// The caller's column reference a [`MarkCaller`] mark stands for, if
/// `expr` is one.
pub fn caller_reference(expr: &Expr) -> Option<Expr> {
    let Expr::CompoundIdentifier(parts) = expr else {
        return None;
    };
    let [qualifier, column] = parts.as_slice() else {
        return None;
    };
    if qualifier.value == CALLER && qualifier.quote_style.is_none() {
        return Some(Expr::Identifier(column.clone()));
    }
    let table = qualifier.value.strip_prefix(CALLER)?.strip_prefix(':')?;
    Some(Expr::CompoundIdentifier(vec![
        Ident {
            value: table.to_string(),
            quote_style: qualifier.quote_style,
            span: qualifier.span,
        },
        column.clone(),
    ]))
}
