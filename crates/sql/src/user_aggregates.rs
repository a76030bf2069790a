//! User-defined aggregates: `CREATE [OR REPLACE] AGGREGATE name (types)
//! (SFUNC = f, STYPE = t, ...)` (and the old `name (BASETYPE = t, ...)`
//! form), `DROP AGGREGATE`, and their calls (README "User-defined
//! aggregates").
//!
//! - **Stored** as a function row (folio-catalog `functions.rs`) whose
//!   body is [`MARK`] then the option list, one `name=value` a line: its
//!   name and argument types are the aggregate's, its result type the
//!   final function's (else the state type). [`is_aggregate`] tells such
//!   a row; `sql_functions::resolve` never expands one as a function.
//! - **Prepared** when a statement's SQL function calls are expanded
//!   (`sql_functions.rs` `Expand`, which has the transaction): the call
//!   `sfunc("$state", "$arg1", ...)` (and the final, moving and inverse
//!   ones) is expanded as any call of a SQL function is, or made the
//!   operator a built-in transition function stands for (`int4pl`: `+`),
//!   and kept in this thread for the statement's binding ([`prepare`]).
//! - **Bound** per call ([`bind_call`]) over a row of the state and the
//!   arguments ([`Inputs`]): polymorphic state types take the first
//!   argument's type (`polymorphic.rs`).
//! - **Run** by `aggregate.rs` as any aggregate's state ([`UserState`]):
//!   PostgreSQL's rules of a strict transition function (NULL inputs
//!   skipped; without INITCOND the first input is the state; a NULL state
//!   stays NULL) and a strict final function (NULL for a NULL state).

use crate::aggregate::{Call, Kind};
use crate::context::Ctx;
use crate::error::SqlError;
use crate::names;
use crate::output::{Notice, Output};
use crate::polymorphic;
use crate::scalar::{self, Columns, Env, Scalar};
use folio_catalog::FunctionDef;
use folio_db::Transaction;
use folio_row::{SqlType, Value};
use sqlparser::ast::{
    BinaryOperator, DataType, DuplicateTreatment, Expr, FunctionArg, FunctionArgExpr,
    FunctionArguments, Ident, ObjectName,
};
use sqlparser::dialect::PostgreSqlDialect;
use sqlparser::parser::Parser;
use sqlparser::tokenizer::{Token, TokenWithSpan};
use std::cell::RefCell;
use std::sync::Arc;

/// The start of an aggregate's function row body.
pub const MARK: &str = "$aggregate\n";

/// The state's column in a transition call's row.
const STATE: &str = "$state";

/// Whether a function row is an aggregate's.
pub fn is_aggregate(def: &FunctionDef) -> bool {
    def.body.starts_with(MARK)
}

/// `CREATE [OR REPLACE] AGGREGATE`, as read.
#[derive(Debug, Clone, PartialEq)]
pub struct Create {
    pub or_replace: bool,
    pub name: ObjectName,
    /// The argument types; `None` for the old form (its BASETYPE option).
    pub args: Option<Vec<DataType>>,
    /// The options, names lower-case, values as written (a string's text).
    pub options: Vec<(String, String)>,
}

/// `DROP AGGREGATE [IF EXISTS] name (types) [, ...] [CASCADE | RESTRICT]`.
#[derive(Debug, Clone, PartialEq)]
pub struct Drop {
    pub if_exists: bool,
    pub aggregates: Vec<(ObjectName, Vec<DataType>)>,
}

fn parser(tokens: &[TokenWithSpan]) -> Parser<'static> {
    static DIALECT: PostgreSqlDialect = PostgreSqlDialect {};
    Parser::new(&DIALECT).with_tokens_with_locations(tokens.to_vec())
}

fn syntax(e: sqlparser::parser::ParserError) -> SqlError {
    SqlError::syntax(e.to_string())
}

fn near(token: &Token) -> SqlError {
    SqlError::syntax(format!("syntax error at or near \"{token}\""))
}

/// Reads the tokens after `CREATE [OR REPLACE] AGGREGATE`.
pub fn parse_create(tokens: &[TokenWithSpan], or_replace: bool) -> Result<Create, SqlError> {
    let mut p = parser(tokens);
    let name = p.parse_object_name(false).map_err(syntax)?;
    p.expect_token(&Token::LParen).map_err(syntax)?;
    let old_form = matches!(
        (&p.peek_nth_token(0).token, &p.peek_nth_token(1).token),
        (Token::Word(_), Token::Eq)
    );
    let args = match old_form {
        true => None,
        false => {
            let args = argument_types(&mut p)?;
            p.expect_token(&Token::LParen).map_err(syntax)?;
            Some(args)
        }
    };
    let mut options = Vec::new();
    loop {
        let key = names::ident(&p.parse_identifier().map_err(syntax)?);
        // (`HYPOTHETICAL` and the like take no value.)
        let value = match p.consume_token(&Token::Eq) {
            true => option_value(&mut p)?,
            false => String::new(),
        };
        options.push((key, value));
        if p.consume_token(&Token::Comma) {
            continue;
        }
        p.expect_token(&Token::RParen).map_err(syntax)?;
        break;
    }
    match p.peek_token().token {
        Token::EOF | Token::SemiColon => {}
        other => return Err(near(&other)),
    }
    Ok(Create {
        or_replace,
        name,
        args,
        options,
    })
}

/// `type, ...)` or `*)`: an aggregate's argument types (after its `(`).
fn argument_types(p: &mut Parser<'_>) -> Result<Vec<DataType>, SqlError> {
    let mut args = Vec::new();
    if p.consume_token(&Token::Mul) || p.peek_token().token == Token::RParen {
        p.expect_token(&Token::RParen).map_err(syntax)?;
        return Ok(args);
    }
    loop {
        let next = p.peek_token().token;
        if let Token::Word(w) = &next
            && matches!(
                w.value.to_ascii_lowercase().as_str(),
                "order" | "variadic" | "in" | "out" | "inout"
            )
        {
            return Err(SqlError::unsupported(format!(
                "{} in the argument list of an aggregate (ordered-set and variadic aggregates)",
                w.value
            )));
        }
        // An argument's name before its type (`a int4`).
        if matches!(
            (&p.peek_nth_token(0).token, &p.peek_nth_token(1).token),
            (Token::Word(_), Token::Word(second)) if !second.value.eq_ignore_ascii_case("precision")
                && !second.value.eq_ignore_ascii_case("varying")
                && !second.value.eq_ignore_ascii_case("with")
                && !second.value.eq_ignore_ascii_case("without")
        ) {
            p.next_token();
        }
        args.push(p.parse_data_type().map_err(syntax)?);
        if p.consume_token(&Token::Comma) {
            continue;
        }
        p.expect_token(&Token::RParen).map_err(syntax)?;
        return Ok(args);
    }
}

/// An option's value, up to the `,` or `)` after it: a string constant's
/// text, else its tokens as written (a name, a type, a number).
fn option_value(p: &mut Parser<'_>) -> Result<String, SqlError> {
    let mut out = String::new();
    let mut depth = 0usize;
    let mut last_word = false;
    loop {
        let token = p.peek_token().token;
        match &token {
            Token::Comma | Token::RParen if depth == 0 => break,
            Token::EOF | Token::SemiColon => return Err(near(&token)),
            Token::LParen | Token::LBracket => depth += 1,
            Token::RParen | Token::RBracket => depth -= 1,
            _ => {}
        }
        p.next_token();
        let word = matches!(token, Token::Word(_) | Token::Number(..));
        match token {
            Token::SingleQuotedString(s) | Token::EscapedStringLiteral(s) if out.is_empty() => {
                out = s;
            }
            other => {
                if word && last_word {
                    out.push(' ');
                }
                out.push_str(&other.to_string());
            }
        }
        last_word = word;
    }
    if out.is_empty() {
        return Err(near(&p.peek_token().token));
    }
    Ok(out)
}

/// Reads the tokens after `DROP AGGREGATE`.
pub fn parse_drop(tokens: &[TokenWithSpan]) -> Result<Drop, SqlError> {
    let mut p = parser(tokens);
    let if_exists = p.parse_keywords(&[
        sqlparser::keywords::Keyword::IF,
        sqlparser::keywords::Keyword::EXISTS,
    ]);
    let mut aggregates = Vec::new();
    loop {
        let name = p.parse_object_name(false).map_err(syntax)?;
        p.expect_token(&Token::LParen).map_err(syntax)?;
        aggregates.push((name, argument_types(&mut p)?));
        if !p.consume_token(&Token::Comma) {
            break;
        }
    }
    let _ = p.parse_one_of_keywords(&[
        sqlparser::keywords::Keyword::CASCADE,
        sqlparser::keywords::Keyword::RESTRICT,
    ]);
    match p.peek_token().token {
        Token::EOF | Token::SemiColon => Ok(Drop {
            if_exists,
            aggregates,
        }),
        other => Err(near(&other)),
    }
}

/// An aggregate's options as its row's body keeps them.
fn encode(options: &[(String, String)]) -> String {
    let mut out = String::from(MARK);
    for (k, v) in options {
        let v = v.replace('\\', "\\\\").replace('\n', "\\n");
        out.push_str(&format!("{k}={v}\n"));
    }
    out
}

/// The options of an aggregate's row.
fn decode(def: &FunctionDef) -> Vec<(String, String)> {
    let body = def.body.strip_prefix(MARK).unwrap_or_default();
    (body.lines())
        .filter_map(|line| {
            let (k, v) = line.split_once('=')?;
            let mut value = String::new();
            let mut chars = v.chars();
            while let Some(c) = chars.next() {
                match (c, c == '\\') {
                    (_, true) => match chars.next() {
                        Some('n') => value.push('\n'),
                        Some(other) => value.push(other),
                        None => {}
                    },
                    (c, false) => value.push(c),
                }
            }
            Some((k.to_string(), value))
        })
        .collect()
}

fn option<'o>(options: &'o [(String, String)], key: &str) -> Option<&'o str> {
    (options.iter())
        .find(|(k, _)| k == key)
        .map(|(_, v)| v.as_str())
}

/// The `"any"` pseudo-type's oid: an argument of any type (`newcnt("any")`).
const ANY: u32 = 2276;

/// An aggregate's argument type: a function's, or `"any"`.
fn argument_type(ty: &DataType) -> Result<(u32, i32), SqlError> {
    if let DataType::Custom(name, m) = ty
        && m.is_empty()
        && names::relation(name).is_ok_and(|n| n == "any")
    {
        return Ok((ANY, -1));
    }
    crate::sql_functions::declared_type(ty)
}

/// A type written as an option's value (`int4`, `int4[]`, `anyarray`).
fn type_of_text(text: &str) -> Result<(u32, i32), SqlError> {
    let ty = Parser::new(&PostgreSqlDialect {})
        .try_with_sql(text)
        .and_then(|mut p| p.parse_data_type())
        .map_err(syntax)?;
    crate::sql_functions::declared_type(&ty)
}

/// A function written as an option's value.
fn function_name(text: &str) -> Result<ObjectName, SqlError> {
    Parser::new(&PostgreSqlDialect {})
        .try_with_sql(text)
        .and_then(|mut p| p.parse_object_name(false))
        .map_err(syntax)
}

/// The options PostgreSQL 15 knows (others are its warning, ignored).
const KNOWN: [&str; 21] = [
    "sfunc",
    "stype",
    "finalfunc",
    "initcond",
    "msfunc",
    "minvfunc",
    "mstype",
    "minitcond",
    "mfinalfunc",
    "combinefunc",
    "serialfunc",
    "deserialfunc",
    "sspace",
    "msspace",
    "finalfunc_extra",
    "mfinalfunc_extra",
    "finalfunc_modify",
    "mfinalfunc_modify",
    "parallel",
    "sortop",
    "basetype",
];

/// `CREATE [OR REPLACE] AGGREGATE`.
pub fn create(
    cx: &Ctx<'_>,
    txn: &mut Transaction,
    notices: &mut Vec<Notice>,
    create: &Create,
) -> Result<Output, SqlError> {
    let name = names::relation(&create.name)?;
    let mut options: Vec<(String, String)> = Vec::new();
    for (k, v) in &create.options {
        // The old form's spellings.
        let k = &match k.as_str() {
            "sfunc1" => "sfunc".to_string(),
            "stype1" => "stype".to_string(),
            "initcond1" => "initcond".to_string(),
            _ => k.clone(),
        };
        if !KNOWN.contains(&k.as_str()) {
            notices.push(Notice::warning(
                "42601",
                &format!("aggregate attribute \"{k}\" not recognized"),
            ));
            continue;
        }
        if matches!(k.as_str(), "finalfunc_extra" | "mfinalfunc_extra") {
            return Err(SqlError::unsupported("FINALFUNC_EXTRA of an aggregate"));
        }
        options.push((k.clone(), v.clone()));
    }
    let args: Vec<(String, u32, i32)> = match &create.args {
        Some(types) => (types.iter())
            .map(|t| argument_type(t).map(|(o, m)| (String::new(), o, m)))
            .collect::<Result<_, _>>()?,
        None => match option(&options, "basetype") {
            None => {
                return Err(SqlError::new(
                    "42P13",
                    "aggregate input type must be specified",
                ));
            }
            Some(t) if t.eq_ignore_ascii_case("any") || t.eq_ignore_ascii_case("\"any\"") => {
                Vec::new()
            }
            Some(t) => {
                let (oid, typmod) = type_of_text(t)?;
                vec![(String::new(), oid, typmod)]
            }
        },
    };
    if create.args.is_some() && option(&options, "basetype").is_some() {
        return Err(SqlError::syntax(
            "basetype is redundant with aggregate input type specification",
        ));
    }
    let Some(sfunc) = option(&options, "sfunc") else {
        return Err(SqlError::new("42P13", "aggregate sfunc must be specified"));
    };
    let Some(stype) = option(&options, "stype") else {
        return Err(SqlError::new("42P13", "aggregate stype must be specified"));
    };
    let (stype, _) = type_of_text(stype)?;
    // PostgreSQL's checks of the moving-mode options, in its order.
    let has = |k: &str| option(&options, k).is_some();
    let moving_error = match has("mstype") {
        true if !has("msfunc") => {
            Some("aggregate msfunc must be specified when mstype is specified")
        }
        true if !has("minvfunc") => {
            Some("aggregate minvfunc must be specified when mstype is specified")
        }
        true => None,
        false if has("msfunc") => Some("aggregate msfunc must not be specified without mstype"),
        false if has("minvfunc") => Some("aggregate minvfunc must not be specified without mstype"),
        false if has("mfinalfunc") => {
            Some("aggregate mfinalfunc must not be specified without mstype")
        }
        false if has("minitcond") => {
            Some("aggregate minitcond must not be specified without mstype")
        }
        false => None,
    };
    if let Some(message) = moving_error {
        return Err(SqlError::new("42P13", message));
    }
    let arg_oids: Vec<u32> = args.iter().map(|a| a.1).collect();
    if polymorphic::is_polymorphic(stype)
        && !arg_oids.iter().any(|o| polymorphic::is_polymorphic(*o))
    {
        return Err(
            SqlError::new("42P13", "cannot determine transition data type").with_detail(
                "An aggregate using a polymorphic transition type must have at least one polymorphic argument.",
            ),
        );
    }
    // The transition function must exist for (stype, args...).
    let mut inputs = vec![stype];
    inputs.extend(&arg_oids);
    function_exists(sfunc, &inputs)?;
    for key in ["msfunc", "minvfunc"] {
        if let Some(f) = option(&options, key) {
            let (mstype, _) = type_of_text(option(&options, "mstype").unwrap_or_default())?;
            let mut inputs = vec![mstype];
            inputs.extend(&arg_oids);
            function_exists(f, &inputs)?;
            let returns = user_function(&function_name(f)?, inputs.len()).map(|d| d.result.0);
            if key == "minvfunc"
                && let Some(returns) = returns
                && returns != mstype
                && !polymorphic::is_polymorphic(mstype)
            {
                return Err(SqlError::new(
                    "42804",
                    format!(
                        "return type of inverse transition function {f} is not {}",
                        crate::catalog_functions::format_type(i64::from(mstype), None)
                    ),
                ));
            }
        }
    }
    if let (Some(forward), Some(inverse)) =
        (option(&options, "msfunc"), option(&options, "minvfunc"))
        && strict(forward, 1 + arg_oids.len())? != strict(inverse, 1 + arg_oids.len())?
    {
        return Err(SqlError::new(
            "42P13",
            "strictness of aggregate's forward and inverse transition functions must match",
        ));
    }
    if let Some(parallel) = option(&options, "parallel")
        && !["safe", "restricted", "unsafe"].contains(&parallel.to_ascii_lowercase().as_str())
    {
        return Err(SqlError::syntax(
            "parameter \"parallel\" must be SAFE, RESTRICTED, or UNSAFE",
        ));
    }
    let result = match option(&options, "finalfunc") {
        Some(f) => {
            function_exists(f, &[stype])?;
            user_function(&function_name(f)?, 1).map_or((stype, -1), |d| d.result)
        }
        None => (stype, -1),
    };
    let result = match polymorphic::is_polymorphic(result.0) && !polymorphic::is_polymorphic(stype)
    {
        // A polymorphic final function's result, from the state type.
        true if polymorphic::is_array(result.0) => (stype, -1),
        true => crate::user_types::of_oid(stype, -1)
            .and_then(|t| t.element())
            .map_or((stype, -1), |e| (e.oid(), -1)),
        false => result,
    };
    let def = FunctionDef {
        oid: 0,
        name,
        args,
        result,
        returns_set: false,
        columns: Vec::new(),
        columns_of_table: false,
        volatility: b'i',
        strict: false,
        plpgsql: false,
        body: encode(&options),
        ..Default::default()
    };
    if crate::system_proc::is_builtin(crate::sql_functions::names_of(&def.name)) {
        return Err(SqlError::unsupported(format!(
            "an aggregate named as the built-in function \"{}\"",
            crate::sql_functions::names_of(&def.name)
        )));
    }
    // OR REPLACE of a function that is not an aggregate (PostgreSQL's
    // 42809).
    if create.or_replace
        && crate::sql_functions::all_in_scope()
            .iter()
            .any(|d| d.name == def.name && d.signature() == def.signature() && !is_aggregate(d))
    {
        return Err(
            SqlError::new("42809", "cannot change routine kind").with_detail(format!(
                "\"{}\" is a function.",
                crate::sql_functions::names_of(&def.name)
            )),
        );
    }
    crate::sql_functions::clear_used();
    let before = crate::routine_privileges::before_create(cx, &def)?;
    let made = (cx.db.catalog()).create_function(txn, &def, create.or_replace)?;
    crate::routine_privileges::own_new(cx, &made, before)?;
    Ok(Output::command("CREATE AGGREGATE"))
}

/// A user's function (not an aggregate) `name` of `arity` arguments.
fn user_function(name: &ObjectName, arity: usize) -> Option<FunctionDef> {
    crate::sql_functions::resolve(name, Some(arity))
}

/// 42883 unless a function `text` takes `inputs` (a user's function of
/// that many arguments, or a built-in one).
fn function_exists(text: &str, inputs: &[u32]) -> Result<(), SqlError> {
    let name = function_name(text)?;
    if let Some(def) = user_function(&name, inputs.len())
        && (def.args.iter())
            .zip(inputs)
            .all(|(declared, given)| fits(declared.1, *given))
        && consistent(&def, inputs)
    {
        // A plain argument of another type than the aggregate gives it
        // (PostgreSQL's 42804).
        let plain = |o: u32| !polymorphic::is_polymorphic(o);
        if (def.args.iter())
            .zip(inputs)
            .any(|(declared, given)| plain(declared.1) && declared.1 != *given)
        {
            let types: Vec<String> = (def.args.iter())
                .map(|a| crate::catalog_functions::format_type(i64::from(a.1), None))
                .collect();
            return Err(SqlError::new(
                "42804",
                format!(
                    "function {text}({}) requires run-time type coercion",
                    types.join(", ")
                ),
            ));
        }
        return Ok(());
    }
    let bare = names::function(&name);
    if builtin_operator(&bare, inputs.len()).is_some() || crate::functions::exists(&bare) {
        return Ok(());
    }
    let types: Vec<String> = (inputs.iter())
        .map(|o| crate::catalog_functions::format_type(i64::from(*o), None))
        .collect();
    Err(SqlError::new(
        "42883",
        format!("function {text}({}) does not exist", types.join(", ")),
    ))
}

/// Whether function `text` of `arity` arguments is strict (a user's as
/// declared; a built-in one unless [`NOT_STRICT`]).
fn strict(text: &str, arity: usize) -> Result<bool, SqlError> {
    let name = function_name(text)?;
    Ok(match user_function(&name, arity) {
        Some(def) => def.strict,
        None => !NOT_STRICT.contains(&names::function(&name).as_str()),
    })
}

/// Whether `inputs` agree with each other as `def`'s polymorphic
/// arguments: all polymorphic themselves (the aggregate's own), or all
/// plain and resolving (`polymorphic::resolve`: `(anyarray, anyelement)`
/// does not take `(smallint[], bigint)`); a mix does not (PostgreSQL's
/// `tfp(integer[], anyelement)` is 42883).
fn consistent(def: &FunctionDef, inputs: &[u32]) -> bool {
    let pairs: Vec<(u32, u32)> = (def.args.iter().map(|a| a.1))
        .zip(inputs.iter().copied())
        .filter(|(declared, _)| polymorphic::is_polymorphic(*declared))
        .collect();
    let given = pairs
        .iter()
        .filter(|(_, g)| polymorphic::is_polymorphic(*g));
    match given.count() {
        0 => {
            let declared: Vec<u32> = def.args.iter().map(|a| a.1).collect();
            let actual: Vec<polymorphic::Actual> = (inputs.iter())
                .map(|o| crate::user_types::of_oid(*o, -1))
                .collect();
            !matches!(polymorphic::resolve(&declared, &actual, &[]), Ok(None))
        }
        n => n == pairs.len(),
    }
}

/// Whether an argument declared of type `declared` takes one of type
/// `given` (both maybe polymorphic), as far as CREATE AGGREGATE checks:
/// a polymorphic type does not reach a plain one, and an array one needs
/// an array.
fn fits(declared: u32, given: u32) -> bool {
    use polymorphic::{is_array, is_polymorphic};
    let array = |oid: u32| {
        is_array(oid) || crate::user_types::of_oid(oid, -1).is_some_and(|t| t.element().is_some())
    };
    match (is_polymorphic(declared), is_polymorphic(given)) {
        (false, false) => true,
        (false, true) => false,
        (true, _) => !is_array(declared) || array(given),
    }
}

/// What a built-in transition function of two (or one) inputs stands for:
/// an operator (`int4pl`: `+`), or `None` for a function to call by name.
fn builtin_operator(name: &str, arity: usize) -> Option<Operation> {
    use BinaryOperator::*;
    let op = match (name, arity) {
        ("int2pl" | "int4pl" | "int8pl" | "float4pl" | "float8pl" | "numeric_add", 2) => {
            Operation::Binary(Plus)
        }
        ("int2mi" | "int4mi" | "int8mi" | "float4mi" | "float8mi" | "numeric_sub", 2) => {
            Operation::Binary(Minus)
        }
        ("int2mul" | "int4mul" | "int8mul" | "float4mul" | "float8mul" | "numeric_mul", 2) => {
            Operation::Binary(Multiply)
        }
        ("textcat", 2) => Operation::Binary(StringConcat),
        ("int4larger" | "int8larger" | "float8larger" | "numeric_larger", 2) => {
            Operation::Call("greatest")
        }
        ("int4smaller" | "int8smaller" | "float8smaller" | "numeric_smaller", 2) => {
            Operation::Call("least")
        }
        ("int8inc" | "int8inc_any", 1 | 2) => Operation::Increment(Plus),
        ("int8dec" | "int8dec_any", 1 | 2) => Operation::Increment(Minus),
        _ => return None,
    };
    Some(op)
}

/// A built-in transition function as an expression.
#[derive(Debug, Clone)]
enum Operation {
    Binary(BinaryOperator),
    Call(&'static str),
    /// The state plus or minus one (`int8inc`).
    Increment(BinaryOperator),
}

/// The functions of a built-in set that are not strict (a NULL input
/// reaches them).
const NOT_STRICT: [&str; 4] = ["array_append", "array_prepend", "array_cat", "concat"];

/// A column of a transition call's row ([`Inputs`]).
fn column(name: &str) -> Expr {
    Expr::Identifier(Ident::with_quote('"', name))
}

/// The name of argument `n`'s column (from 1).
fn argument_column(n: usize) -> String {
    format!("$arg{n}")
}

/// A call of function `text` with `inputs`, as the expression it stands
/// for (a user's function expanded) and whether it is strict.
fn call_expr(
    cx: &Ctx<'_>,
    txn: &Transaction,
    text: &str,
    inputs: Vec<Expr>,
    stack: &mut Vec<u64>,
) -> Result<(Expr, bool), SqlError> {
    let name = function_name(text)?;
    if let Some(def) = user_function(&name, inputs.len()) {
        if def.plpgsql {
            return Err(SqlError::unsupported(format!(
                "an aggregate whose function \"{text}\" is a PL/pgSQL function"
            )));
        }
        let expanded = crate::sql_functions::expand_call(cx, txn, &def, inputs, stack)?;
        crate::sql_functions::note_used(&def);
        return Ok((expanded, def.strict));
    }
    let bare = names::function(&name);
    let binary = |op: BinaryOperator, left: Expr, right: Expr| Expr::BinaryOp {
        left: Box::new(Expr::Nested(Box::new(left))),
        op,
        right: Box::new(Expr::Nested(Box::new(right))),
    };
    let call = |name: &str, inputs: Vec<Expr>| {
        crate::call_expr::call_of(ObjectName::from(vec![Ident::new(name)]), inputs)
    };
    let mut inputs = inputs;
    let expr = match builtin_operator(&bare, inputs.len()) {
        Some(Operation::Binary(op)) => {
            let right = inputs.pop().expect("two inputs");
            let left = inputs.pop().expect("two inputs");
            binary(op, left, right)
        }
        Some(Operation::Call(f)) => call(f, inputs),
        Some(Operation::Increment(op)) => {
            let state = inputs.swap_remove(0);
            binary(
                op,
                state,
                Expr::value(sqlparser::ast::Value::Number("1".into(), false)),
            )
        }
        None => call(&bare, inputs),
    };
    Ok((expr, !NOT_STRICT.contains(&bare.as_str())))
}

/// One mode's functions (the plain one, or the moving one a window with
/// a moving frame start uses) as expressions over the state and the
/// arguments (module comment).
#[derive(Debug, Clone)]
struct Functions {
    state: (u32, i32),
    init: Option<String>,
    transition: (Expr, bool),
    /// The inverse transition function's call (moving mode only).
    inverse: Option<(Expr, bool)>,
    /// The final function's call over `"$state"`.
    finish: Option<(Expr, bool)>,
}

/// An aggregate prepared for the statement being planned.
#[derive(Debug, Clone)]
struct Prepared {
    /// The aggregate's row, as it was when prepared.
    def: FunctionDef,
    plain: Functions,
    moving: Option<Functions>,
}

thread_local! {
    /// The aggregates the statement being planned calls, prepared.
    static PREPARED: RefCell<Vec<Arc<Prepared>>> = const { RefCell::new(Vec::new()) };
}

/// The aggregate a call of `name` with `arity` arguments names, if a
/// user-defined one in scope does.
pub fn named(name: &ObjectName, arity: Option<usize>) -> Option<FunctionDef> {
    let arity = arity?;
    let name = names::relation(name).ok()?;
    crate::sql_functions::all_in_scope()
        .iter()
        .find(|d| is_aggregate(d) && d.name == name && d.args.len() == arity)
        .cloned()
}

/// How many arguments a call passes an aggregate (`agg(*)`: none).
pub fn arity(args: &FunctionArguments) -> Option<usize> {
    match args {
        FunctionArguments::List(list)
            if matches!(
                list.args.as_slice(),
                [FunctionArg::Unnamed(FunctionArgExpr::Wildcard)]
            ) =>
        {
            Some(0)
        }
        other => crate::sql_functions::call_arity(other),
    }
}

/// Forgets the aggregates prepared for an earlier statement (with
/// `sql_functions::clear_used`, as a statement's planning starts).
pub fn clear() {
    PREPARED.with(|p| p.borrow_mut().clear());
}

/// Whether a user-defined aggregate in scope is called `name` (a bare
/// name in `public`, or schema-qualified as the catalog names it).
pub fn is_named(name: &str) -> bool {
    let all = crate::sql_functions::all_in_scope();
    all.iter().any(|d| is_aggregate(d) && d.name == name)
}

/// Prepares the aggregate `def` for the statement being planned (its
/// calls expanded with `cx` and `txn`).
pub fn prepare(
    cx: &Ctx<'_>,
    txn: &Transaction,
    def: &FunctionDef,
    stack: &mut Vec<u64>,
) -> Result<(), SqlError> {
    if PREPARED.with(|p| p.borrow().iter().any(|p| p.def == *def)) {
        return Ok(());
    }
    let options = decode(def);
    let get = |k: &str| option(&options, k);
    let mut functions = |prefix: &str| -> Result<Option<Functions>, SqlError> {
        let Some(sfunc) = get(&format!("{prefix}sfunc")) else {
            return Ok(None);
        };
        let mut inputs = vec![column(STATE)];
        inputs.extend((1..=def.args.len()).map(|n| column(&argument_column(n))));
        let transition = call_expr(cx, txn, sfunc, inputs.clone(), stack)?;
        let inverse = match get(&format!("{prefix}invfunc")) {
            Some(f) => Some(call_expr(cx, txn, f, inputs, stack)?),
            None => None,
        };
        let finish = match get(&format!("{prefix}finalfunc")) {
            Some(f) => Some(call_expr(cx, txn, f, vec![column(STATE)], stack)?),
            None => None,
        };
        Ok(Some(Functions {
            state: type_of_text(get(&format!("{prefix}stype")).unwrap_or_default())?,
            init: get(&format!("{prefix}initcond")).map(str::to_string),
            transition,
            inverse,
            finish,
        }))
    };
    let Some(plain) = functions("")? else {
        return Err(SqlError::new("42P13", "aggregate sfunc must be specified"));
    };
    let moving = functions("m")?;
    let prepared = Prepared {
        def: def.clone(),
        plain,
        moving,
    };
    crate::sql_functions::note_used(def);
    PREPARED.with(|p| {
        let mut p = p.borrow_mut();
        p.retain(|q| q.def.oid != def.oid);
        p.push(Arc::new(prepared));
    });
    Ok(())
}

/// The row a transition call is bound over: the state, then each
/// argument (`"$state"`, `"$arg1"`, ...).
struct Inputs(Vec<SqlType>);

impl Columns for Inputs {
    fn resolve(&self, name: &str) -> Result<(usize, SqlType), SqlError> {
        let at = match name {
            STATE => Some(0),
            _ => (name.strip_prefix("$arg"))
                .and_then(|n| n.parse::<usize>().ok())
                .filter(|n| (1..self.0.len()).contains(n)),
        };
        at.map(|i| (i, self.0[i]))
            .ok_or_else(|| SqlError::undefined_column(name))
    }

    fn type_at(&self, position: usize) -> SqlType {
        self.0[position]
    }
}

/// Whether every input of a call is immutable (`immutable.rs`): the
/// moving mode's condition, as PostgreSQL keeps to the plain functions
/// when an argument or the FILTER calls a volatile function.
fn steady(inputs: &[Scalar], source: &(impl Columns + ?Sized)) -> bool {
    let mut read = Vec::new();
    for a in inputs {
        a.columns(&mut read);
    }
    let width = read.iter().max().map_or(0, |m| m + 1);
    let row: Vec<SqlType> = (0..width).map(|p| source.type_at(p)).collect();
    inputs.iter().all(|a| crate::immutable::immutable(a, &row))
}

/// A window aggregate's FILTER set on its call; a user-defined
/// aggregate keeps its moving mode only when the filter is immutable.
pub fn filtered(call: &mut Call, filter: Scalar, source: &(impl Columns + ?Sized)) {
    if let Some(user) = &mut call.user
        && user.moving.is_some()
        && !steady(std::slice::from_ref(&filter), source)
    {
        Arc::make_mut(user).moving = None;
    }
    call.filter = Some(filter);
}

/// A call's aggregate, bound: what `aggregate.rs` runs.
#[derive(Debug, Clone, PartialEq)]
pub struct Bound {
    arity: usize,
    state: SqlType,
    init: Option<Value>,
    transition: Scalar,
    strict: bool,
    inverse: Option<(Scalar, bool)>,
    finish: Option<(Scalar, bool)>,
    /// The moving mode's functions (`MSFUNC`, `MINVFUNC`, ...), if any.
    moving: Option<Box<Bound>>,
}

/// A group's (or a window frame's) transition value.
#[derive(Debug, Clone)]
pub struct UserState {
    value: Value,
    /// How many inputs it holds (PostgreSQL's `transValueCount`): with
    /// none and a NULL value, a strict transition function's next input
    /// becomes the state.
    count: usize,
}

/// The SQL type of a declared (maybe polymorphic) type oid, given the
/// call's first argument's type.
fn resolved(oid: (u32, i32), first: Option<SqlType>) -> Result<SqlType, SqlError> {
    use crate::polymorphic::is_array;
    if crate::polymorphic::is_polymorphic(oid.0) {
        let Some(first) = first else {
            return Err(SqlError::new(
                "42804",
                "could not determine polymorphic type because input has type unknown",
            ));
        };
        return match is_array(oid.0) {
            true if first.element().is_some() => Ok(first),
            true => first
                .array_of()
                .ok_or_else(|| SqlError::unsupported(format!("an array of type {}", first.name()))),
            false => Ok(first),
        };
    }
    crate::user_types::of_oid(oid.0, oid.1)
        .ok_or_else(|| SqlError::new("42704", format!("type with oid {} does not exist", oid.0)))
}

/// One mode's functions bound for a call's argument types.
fn bind_functions(functions: &Functions, types: &[SqlType]) -> Result<Bound, SqlError> {
    let state = resolved(functions.state, types.first().copied())?;
    let mut row = vec![state];
    row.extend(types);
    let inputs = Inputs(row);
    let over_state = Inputs(vec![state]);
    let bind = |f: &Option<(Expr, bool)>, columns: &Inputs| -> Result<_, SqlError> {
        match f {
            Some((e, strict)) => Ok(Some((scalar::bind(e, columns)?, *strict))),
            None => Ok(None),
        }
    };
    let init = match &functions.init {
        Some(text) => Some(crate::types::cast(Value::Text(text.clone()), state)?),
        None => None,
    };
    Ok(Bound {
        arity: types.len(),
        state,
        init,
        transition: scalar::bind(&functions.transition.0, &inputs)?,
        strict: functions.transition.1,
        inverse: bind(&functions.inverse, &inputs)?,
        finish: bind(&functions.finish, &over_state)?,
        moving: None,
    })
}

/// Binds a call of a user-defined aggregate over `source` (`aggregate.rs`
/// `bind_call`, whose rule found it).
pub fn bind_call<C: Columns + ?Sized>(
    f: &sqlparser::ast::Function,
    source: &C,
) -> Result<Call, SqlError> {
    let name = names::function(&f.name);
    let FunctionArguments::List(list) = &f.args else {
        return Err(SqlError::unsupported(format!("{f}")));
    };
    let mut exprs = Vec::new();
    for arg in &list.args {
        match arg {
            FunctionArg::Unnamed(FunctionArgExpr::Expr(e)) => exprs.push(e.clone()),
            FunctionArg::Unnamed(FunctionArgExpr::Wildcard) if list.args.len() == 1 => {}
            _ => return Err(crate::aggregate::no_such_call(&name, &list.args, source)),
        }
    }
    let Some(def) = named(&f.name, Some(exprs.len())) else {
        return Err(crate::aggregate::no_such_call(&name, &list.args, source));
    };
    if exprs.len() > 2 {
        return Err(SqlError::unsupported(
            "a user-defined aggregate of more than two arguments",
        ));
    }
    let Some(prepared) = PREPARED.with(|p| p.borrow().iter().find(|p| p.def == def).cloned())
    else {
        return Err(SqlError::unsupported(format!(
            "a call of aggregate \"{name}\" here"
        )));
    };
    // Each argument as its declared type (a polymorphic one as written).
    let mut args = Vec::with_capacity(exprs.len());
    for (e, (_, oid, typmod)) in exprs.iter().zip(&def.args) {
        let typed = match crate::polymorphic::is_polymorphic(*oid) || *oid == ANY {
            true => e.clone(),
            false => crate::sql_functions::typed(e.clone(), *oid, *typmod)?,
        };
        args.push(scalar::bind(&typed, source)?);
    }
    let types: Vec<SqlType> = args.iter().map(|a| a.ty_in(source)).collect();
    let mut bound = bind_functions(&prepared.plain, &types)?;
    // PostgreSQL keeps to the plain functions when an argument calls a
    // volatile function (restarting would show); folio asks whether
    // each argument is immutable (`immutable.rs`).
    if let Some(moving) = prepared.moving.as_ref().filter(|_| steady(&args, source)) {
        bound.moving = Some(Box::new(bind_functions(moving, &types)?));
    }
    let ty = match &bound.finish {
        Some((s, _)) => s.ty_in(&Inputs(vec![bound.state])),
        None => bound.state,
    };
    let mut args = args.into_iter();
    Ok(Call {
        kind: Kind::User,
        arg: args.next(),
        delimiter: args.next(),
        distinct: matches!(list.duplicate_treatment, Some(DuplicateTreatment::Distinct)),
        ty,
        order: Vec::new(),
        filter: None,
        direct: Vec::new(),
        user: Some(Arc::new(bound)),
    })
}

/// The environment transition functions run in: their bodies are
/// expressions over the state and arguments alone.
fn env() -> Env<'static> {
    Env::at(0)
}

impl Bound {
    /// The state before any input: INITCOND's value, else NULL.
    pub fn start(&self) -> UserState {
        UserState {
            value: self.init.clone().unwrap_or(Value::Null),
            count: 0,
        }
    }

    /// The moving mode's functions, when the aggregate has them.
    pub fn moving(&self) -> Option<&Bound> {
        self.moving.as_deref()
    }

    /// The inputs of a row: `first`, and `second` of a two-argument one.
    fn inputs(&self, first: Value, second: Value) -> Vec<Value> {
        [first, second].into_iter().take(self.arity).collect()
    }

    /// Takes a row's inputs, PostgreSQL's way for a strict transition
    /// function (module comment).
    pub fn add(&self, state: &mut UserState, first: Value, second: Value) -> Result<(), SqlError> {
        let inputs = self.inputs(first, second);
        if self.strict {
            if inputs.contains(&Value::Null) {
                return Ok(());
            }
            if state.count == 0 && state.value == Value::Null {
                let first = inputs.into_iter().next().unwrap_or(Value::Null);
                state.value = self.as_state(first)?;
                state.count = 1;
                return Ok(());
            }
            if state.value == Value::Null {
                return Ok(());
            }
        }
        let mut row = Vec::with_capacity(1 + inputs.len());
        row.push(std::mem::replace(&mut state.value, Value::Null));
        row.extend(inputs);
        state.value = self.as_state(self.transition.eval(&row, &env())?)?;
        state.count += 1;
        if self.inverse.is_some() && state.value == Value::Null {
            return Err(SqlError::new(
                "XX000",
                "moving-aggregate transition function must not return null",
            ));
        }
        Ok(())
    }

    /// Takes a row's inputs out with the inverse transition function;
    /// `false` when it cannot (it returned NULL: the frame is aggregated
    /// again). The last input is taken out by starting afresh, as
    /// PostgreSQL's.
    pub fn remove(
        &self,
        state: &mut UserState,
        first: Value,
        second: Value,
    ) -> Result<bool, SqlError> {
        let Some((inverse, strict)) = &self.inverse else {
            return Ok(false);
        };
        let inputs = self.inputs(first, second);
        if *strict && inputs.contains(&Value::Null) {
            return Ok(true);
        }
        if state.count <= 1 {
            *state = self.start();
            return Ok(true);
        }
        let mut row = Vec::with_capacity(1 + inputs.len());
        row.push(state.value.clone());
        row.extend(inputs);
        let value = inverse.eval(&row, &env())?;
        if value == Value::Null {
            return Ok(false);
        }
        state.value = self.as_state(value)?;
        state.count -= 1;
        Ok(true)
    }

    /// A value as the state's type.
    fn as_state(&self, value: Value) -> Result<Value, SqlError> {
        if value == Value::Null || scalar::value_type(&value) == self.state {
            return Ok(value);
        }
        crate::types::cast(value, self.state)
    }

    /// The aggregate's result for `state`.
    pub fn result(&self, state: &UserState) -> Result<Value, SqlError> {
        match &self.finish {
            Some((_, true)) if state.value == Value::Null => Ok(Value::Null),
            Some((finish, _)) => finish.eval(std::slice::from_ref(&state.value), &env()),
            None => Ok(state.value.clone()),
        }
    }
}

/// A row's window frame `[start, end)` and its parts without the rows it
/// excludes (`window_frame.rs` `Exclude::segments`).
pub type Frame = ((usize, usize), [(usize, usize); 3]);

/// A window aggregate over each row's frame in moving mode, PostgreSQL's
/// way (so the calls its functions see are PostgreSQL's): the rows that
/// left the frame's head are taken out by the inverse function, the rows
/// that entered its end added; it starts afresh at the partition's
/// first row, when the frame was empty, when rows are excluded, or when
/// the inverse function cannot take a row out. `frames`: each row's
/// frame `[start, end)` and the rows it excludes; `inputs`: each row's
/// (none for a row the FILTER does not take).
pub fn moving_window(
    bound: &Bound,
    inputs: &[Option<(Value, Value)>],
    frames: &[Frame],
) -> Result<Vec<Value>, SqlError> {
    let mut out = Vec::with_capacity(frames.len());
    let mut state = bound.start();
    // The rows aggregated are `[base, upto)`.
    let (mut base, mut upto) = (0, 0);
    let mut last: Option<(Frame, Value)> = None;
    for (current, frame) in frames.iter().enumerate() {
        if let Some((previous, value)) = &last
            && previous == frame
        {
            out.push(value.clone());
            continue;
        }
        let ((head, end), segments) = *frame;
        let excludes = segments[1..].iter().any(|(a, b)| a < b) || segments[0] != (head, end);
        let mut restart = current == 0 || upto <= head || excludes;
        while !restart && base < head {
            if let Some((v, d)) = inputs[base].clone() {
                restart = !bound.remove(&mut state, v, d)?;
            }
            base += 1;
        }
        base = head;
        if restart {
            state = bound.start();
            upto = head;
        }
        while upto < end {
            let inside = segments.iter().any(|(a, b)| (*a..*b).contains(&upto));
            if inside && let Some((v, d)) = inputs[upto].clone() {
                bound.add(&mut state, v, d)?;
            }
            upto += 1;
        }
        let value = bound.result(&state)?;
        last = Some((*frame, value.clone()));
        out.push(value);
    }
    Ok(out)
}

/// `DROP AGGREGATE`.
pub fn drop(
    cx: &Ctx<'_>,
    txn: &mut Transaction,
    notices: &mut Vec<Notice>,
    drop: &Drop,
) -> Result<Output, SqlError> {
    let catalog = cx.db.catalog();
    let mut dropping = Vec::new();
    for (name, types) in &drop.aggregates {
        let name = names::relation(name)?;
        let oids = (types.iter())
            .map(|t| argument_type(t).map(|t| t.0))
            .collect::<Result<Vec<_>, _>>()?;
        let signature: Vec<String> = oids.iter().map(u32::to_string).collect();
        let all = catalog.functions(txn)?;
        let found = (all.iter()).find(|d| d.name == name && d.signature() == signature.join(","));
        let shown: Vec<String> = (oids.iter())
            .map(|o| crate::catalog_functions::format_type(i64::from(*o), None))
            .collect();
        let shown = match shown.is_empty() {
            true => format!("{}(*)", crate::sql_functions::names_of(&name)),
            false => format!(
                "{}({})",
                crate::sql_functions::names_of(&name),
                shown.join(", ")
            ),
        };
        match found {
            Some(def) if is_aggregate(def) => {
                crate::routine_privileges::check_owner(cx, def)?;
                dropping.push(def.clone());
            }
            Some(_) => {
                return Err(SqlError::new(
                    "42809",
                    format!("function {shown} is not an aggregate"),
                ));
            }
            None if drop.if_exists => notices.push(Notice::info(format!(
                "aggregate {shown} does not exist, skipping"
            ))),
            None => {
                return Err(SqlError::new(
                    "42883",
                    format!("aggregate {shown} does not exist"),
                ));
            }
        }
    }
    for def in dropping {
        catalog.drop_function(txn, &def.name, &def.signature())?;
    }
    Ok(Output::command("DROP AGGREGATE"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_survive_their_row() {
        // A value with a newline and a backslash comes back as written.
        let options = vec![
            ("sfunc".to_string(), "int4pl".to_string()),
            ("initcond".to_string(), "a\\b\nc".to_string()),
        ];
        let def = FunctionDef {
            oid: 1,
            name: "a".into(),
            args: Vec::new(),
            result: (23, -1),
            returns_set: false,
            columns: Vec::new(),
            columns_of_table: false,
            volatility: b'i',
            strict: false,
            plpgsql: false,
            body: encode(&options),
            ..Default::default()
        };
        assert!(is_aggregate(&def));
        assert_eq!(decode(&def), options);
    }
}
