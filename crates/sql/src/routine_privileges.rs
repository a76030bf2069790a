//! Privileges on functions, procedures and aggregates (PostgreSQL's
//! `pg_proc.proowner` / `proacl`): who owns one, and EXECUTE, kept as a
//! relation's are (`privileges.rs`, under the routine's oid, of
//! [`ObjectKind::Function`]: the NULL ACL lets PUBLIC EXECUTE, as
//! PostgreSQL's `acldefault`). Design: README "Roles and privileges".
//!
//! - A routine a role that is not a superuser makes is its
//!   ([`own_new`]); one a superuser makes has no entry (`postgres`'s).
//! - DROP and CREATE OR REPLACE take its owner ([`check_owner`], 42501
//!   `must be owner of function f`).
//! - A call takes EXECUTE ([`check_execute`]), asked when the plan that
//!   calls it runs (`Plan::check_privileges`, over the routines the plan
//!   expanded or binds: `sql_functions::take_used`), and when a
//!   PL/pgSQL function or a procedure is run. Only user routines are
//!   checked: PUBLIC keeps EXECUTE on the built-in ones.

use crate::context::Ctx;
use crate::error::SqlError;
use crate::privileges::{self, EXECUTE, ObjectKind};
use folio_catalog::FunctionDef;

/// The word PostgreSQL's messages name `def`'s kind by.
pub fn kind_word(def: &FunctionDef) -> &'static str {
    if crate::user_aggregates::is_aggregate(def) {
        "aggregate"
    } else {
        crate::procedures::kind_word(def.procedure)
    }
}

/// 42501 `must be owner of function f` unless the session's role owns
/// `def` (or holds its owner's privileges, or is a superuser).
pub fn check_owner(cx: &Ctx<'_>, def: &FunctionDef) -> Result<(), SqlError> {
    privileges::check_owner(cx, def.oid, &def.name, kind_word(def))
}

/// Before a CREATE [OR REPLACE] of `def`: the routine of the same name
/// and argument types it replaces, if any, must be the session role's.
/// Its oid (`None`: a new routine).
pub fn before_create(cx: &Ctx<'_>, def: &FunctionDef) -> Result<Option<u64>, SqlError> {
    let all = crate::sql_functions::all_in_scope();
    let Some(old) = (all.iter()).find(|d| d.name == def.name && d.signature() == def.signature())
    else {
        return Ok(None);
    };
    check_owner(cx, old)?;
    Ok(Some(old.oid))
}

/// Records the session's role as the owner of `made`, which a CREATE
/// just stored (`before`: the oid of the routine it replaced).
pub fn own_new(cx: &Ctx<'_>, made: &FunctionDef, before: Option<u64>) -> Result<(), SqlError> {
    if before == Some(made.oid) {
        return Ok(());
    }
    privileges::set_owner(cx.db, made.oid, cx.role)
}

/// 42501 `permission denied for function f` unless the session's role
/// may EXECUTE `def`.
pub fn check_execute(cx: &Ctx<'_>, def: &FunctionDef) -> Result<(), SqlError> {
    if privileges::allowed(cx.db, cx.role, def.oid, ObjectKind::Function, EXECUTE)? {
        return Ok(());
    }
    Err(privileges::denied(kind_word(def), &def.name))
}

/// The routines a GRANT or REVOKE names.
#[derive(Debug, Clone, PartialEq)]
pub enum Routines {
    /// `name [(types)], ...`.
    Named(Vec<sqlparser::ast::FunctionDesc>),
    /// `ALL FUNCTIONS | PROCEDURES | ROUTINES IN SCHEMA s, ...`.
    AllInSchemas(Vec<String>),
    /// The types of `ON TYPE | DOMAIN name, ...` (the grant's kind is
    /// `type` or `domain`: `type_privileges.rs`), catalog names.
    Types(Vec<String>),
}

/// `GRANT | REVOKE ... ON FUNCTION | PROCEDURE | ROUTINE ...`, as
/// `parse.rs` reads it.
#[derive(Debug, Clone, PartialEq)]
pub struct RoutineGrant {
    pub grant: bool,
    /// WITH GRANT OPTION; for a REVOKE, GRANT OPTION FOR.
    pub grant_option: bool,
    /// A REVOKE's CASCADE (`privileges::Change`).
    pub cascade: bool,
    /// The privilege words, in capitals (empty: ALL).
    pub privileges: Vec<String>,
    /// `function`, `procedure` or `routine`: what ON names.
    pub kind: &'static str,
    pub routines: Routines,
    pub grantees: Vec<crate::role_statements::RoleSpec>,
}

/// Runs a [`RoutineGrant`]: EXECUTE is the one privilege a routine has
/// (0LP01 for another), given or taken by the rules of a relation's
/// (`privileges::apply`: the owner or a holder of the grant option).
pub fn grant_or_revoke(
    cx: &Ctx<'_>,
    txn: &folio_db::Transaction,
    notices: &mut Vec<crate::output::Notice>,
    grant: &RoutineGrant,
) -> Result<crate::output::Output, SqlError> {
    if let Routines::Types(names) = &grant.routines {
        return crate::type_privileges::grant_or_revoke(cx, notices, grant, names);
    }
    for word in &grant.privileges {
        if word != "EXECUTE" {
            return Err(SqlError::new(
                "0LP01",
                format!("invalid privilege type {word} for {}", grant.kind),
            ));
        }
    }
    let mut targets = Vec::new();
    match &grant.routines {
        Routines::Named(descs) => {
            for desc in descs {
                let lookup = match grant.kind {
                    "procedure" => "procedure",
                    _ => "function",
                };
                let def = crate::sql_functions::find(cx, txn, desc, lookup)?
                    .ok_or(crate::sql_functions::missing(desc, lookup)?)?;
                if grant.kind != "routine" {
                    crate::procedures::check_kind(&def, grant.kind == "procedure")?;
                }
                targets.push(def);
            }
        }
        Routines::Types(_) => unreachable!("taken above"),
        Routines::AllInSchemas(schemas) => {
            let all = cx.db.catalog().functions(txn)?;
            for schema in schemas {
                if schema != "public" && cx.db.catalog().schema(txn, schema)?.is_none() {
                    return Err(SqlError::new(
                        "3F000",
                        format!("schema \"{schema}\" does not exist"),
                    ));
                }
                let mut of_schema: Vec<&FunctionDef> = (all.iter())
                    .filter(|d| folio_catalog::split_schema(&d.name).0 == schema)
                    .filter(|d| match grant.kind {
                        "function" => !d.procedure,
                        "procedure" => d.procedure,
                        _ => true,
                    })
                    .collect();
                of_schema.sort_by_key(|d| d.oid);
                targets.extend(of_schema.into_iter().cloned());
            }
        }
    }
    let grantees = (grant.grantees.iter())
        .map(|spec| crate::role_statements::grantee_oid(cx.db, cx.role, spec))
        .collect::<Result<Vec<_>, _>>()?;
    let change = privileges::Change {
        grant: grant.grant,
        privileges: EXECUTE,
        grantees: &grantees,
        grant_option: grant.grant_option,
        cascade: grant.cascade,
    };
    for def in targets {
        if !privileges::apply(cx, def.oid, None, &def.name, kind_word(&def), &change)? {
            let name = crate::sql_functions::names_of(&def.name);
            notices.push(crate::role_statements::unchanged(grant.grant, name));
        }
    }
    Ok(crate::output::Output::command(match grant.grant {
        true => "GRANT",
        false => "REVOKE",
    }))
}

/// A routine as `has_function_privilege` names it.
pub enum FunctionArg<'a> {
    /// `name(types)` (or `name` alone).
    Text(&'a str),
    Oid(i64),
}

/// `has_function_privilege([role,] function, privileges)`: whether role
/// `role` (by name) holds any of the comma-separated privileges
/// (`EXECUTE`, which may add `WITH GRANT OPTION`) on the routine;
/// `None` (NULL) for an oid that is no routine. A built-in function is
/// PUBLIC's to EXECUTE.
pub fn has_function_privilege(
    role: &str,
    function: FunctionArg<'_>,
    privileges: &str,
) -> Result<Option<bool>, SqlError> {
    let mut wanted = Vec::new();
    for (given, word, grant) in privileges::privilege_words(privileges) {
        if word != "EXECUTE" {
            return Err(SqlError::new(
                "22023",
                format!("unrecognized privilege type: \"{given}\""),
            ));
        }
        wanted.push((EXECUTE, grant));
    }
    let def = match function {
        FunctionArg::Oid(oid) => match crate::sql_functions::by_oid(oid) {
            Some(def) => def,
            None => return Ok(None),
        },
        FunctionArg::Text(text) => match named(text)? {
            Some(def) => def,
            None => return Ok(Some(wanted.iter().any(|&(_, grant)| !grant))),
        },
    };
    let Some(db) = crate::roles::scoped_database() else {
        return Ok(Some(true));
    };
    let role = crate::roles::get(&db, role)?.ok_or_else(|| crate::roles::undefined(role))?;
    privileges::holds_any(&db, &role, (def.oid, ObjectKind::Function), &wanted).map(Some)
}

/// The user routine `text` (`name(types)`, PostgreSQL's
/// `regprocedure` input) names; `None` for a built-in function; 42883
/// for neither.
fn named(text: &str) -> Result<Option<FunctionDef>, SqlError> {
    use sqlparser::ast::Statement;
    let sql = format!("DROP FUNCTION {text}");
    let parsed =
        sqlparser::parser::Parser::parse_sql(&sqlparser::dialect::PostgreSqlDialect {}, &sql);
    let desc = match parsed.ok().and_then(|mut p| p.pop()) {
        Some(Statement::DropFunction { mut func_desc, .. }) if func_desc.len() == 1 => {
            func_desc.pop()
        }
        _ => None,
    }
    .ok_or_else(|| SqlError::syntax(format!("invalid name syntax: \"{text}\"")))?;
    let name = crate::names::relation(&desc.name)?;
    let types: Vec<String> = (desc.args.iter().flatten())
        .map(|a| crate::sql_functions::declared_type(&a.data_type).map(|t| t.0.to_string()))
        .collect::<Result<_, _>>()?;
    let all = crate::sql_functions::all_in_scope();
    if let Some(def) = (all.iter()).find(|d| d.name == name && d.signature() == types.join(",")) {
        return Ok(Some(def.clone()));
    }
    if crate::system_proc::is_builtin(crate::sql_functions::names_of(&name)) {
        return Ok(None);
    }
    Err(crate::sql_functions::missing(&desc, "function")?)
}
