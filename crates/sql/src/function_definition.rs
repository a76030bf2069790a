//! `pg_get_functiondef(oid)`: a function's `CREATE OR REPLACE FUNCTION`
//! command as PostgreSQL 15 prints it (psql's `\sf` and `\ef`): the
//! qualified name and arguments, `RETURNS`, `LANGUAGE`, the attributes
//! that differ from the defaults (volatility, `PARALLEL`, `STRICT`), and
//! the body between `$function$` quotes, or a SQL-standard body as
//! `RETURN (expression)`; NULL for an oid that is not a function's.
//!
//! A built-in function (`system_proc.rs`) reads as PostgreSQL's: `LANGUAGE
//! internal` and its own name as the body (PostgreSQL's is its C
//! function's name, which differs for some: `pi`'s is `dpi`). A standard body's expression
//! is printed with PostgreSQL's parentheses (`deparse::parenthesized`),
//! not with its constants labelled by type as PostgreSQL's analysed
//! expression is (`'a'` where PostgreSQL prints `'a'::text`).

use crate::sql_functions::RETURN_PREFIX;
use folio_catalog::FunctionDef;

/// The definition of function `oid`, if it is one.
pub fn definition(oid: i64) -> Option<String> {
    if let Some(def) = crate::sql_functions::by_oid(oid) {
        return Some(user_definition(&def));
    }
    let builtin = crate::system_proc::builtin(oid)?;
    let mut attributes = Vec::new();
    match builtin.volatility {
        'i' => attributes.push("IMMUTABLE"),
        's' => attributes.push("STABLE"),
        _ => {}
    }
    match builtin.parallel {
        's' => attributes.push("PARALLEL SAFE"),
        'r' => attributes.push("PARALLEL RESTRICTED"),
        _ => {}
    }
    if builtin.strict {
        attributes.push("STRICT");
    }
    let head = format!(
        "CREATE OR REPLACE FUNCTION pg_catalog.{}({})\n RETURNS {}\n",
        builtin.name,
        crate::system_proc::arguments(oid).unwrap_or_default(),
        crate::system_proc::result(oid).unwrap_or_default(),
    );
    Some(text(
        &head,
        "internal",
        &attributes,
        &quoted("function", builtin.name),
    ))
}

/// A user's function's definition.
fn user_definition(def: &FunctionDef) -> String {
    let (schema, name) = folio_catalog::split_schema(&def.name);
    let name = format!(
        "{}.{}",
        crate::names::written(schema),
        crate::names::written(name)
    );
    let arguments = crate::system_proc::arguments(def.oid as i64).unwrap_or_default();
    let result = crate::system_proc::result(def.oid as i64).unwrap_or_default();
    let mut attributes = Vec::new();
    match def.volatility {
        b'i' => attributes.push("IMMUTABLE"),
        b's' => attributes.push("STABLE"),
        _ => {}
    }
    if def.strict {
        attributes.push("STRICT");
    }
    let kind = match def.procedure {
        true => "procedure",
        false => "function",
    };
    let body = match def.body.strip_prefix(RETURN_PREFIX) {
        Some(expression) => format!(
            "{RETURN_PREFIX}{}\n",
            crate::deparse::parenthesized(expression)
        ),
        None => match def.body.strip_prefix(crate::procedures::ATOMIC_PREFIX) {
            // The statements as written (PostgreSQL prints its parse of
            // them, a statement a line).
            Some("") => "BEGIN ATOMIC\nEND\n".to_string(),
            Some(statements) => format!("BEGIN ATOMIC\n {}\nEND\n", statements.trim()),
            None => quoted(kind, &def.body),
        },
    };
    let language = if def.plpgsql { "plpgsql" } else { "sql" };
    let head = match def.procedure {
        true => format!("CREATE OR REPLACE PROCEDURE {name}({arguments})\n"),
        false => format!("CREATE OR REPLACE FUNCTION {name}({arguments})\n RETURNS {result}\n"),
    };
    text(&head, language, &attributes, &body)
}

/// `body` between `$function$` quotes (`$procedure$` for a procedure's:
/// `kind`; a longer tag if the body holds that one, as PostgreSQL
/// chooses), and the line's end.
fn quoted(kind: &str, body: &str) -> String {
    let mut tag = format!("${kind}");
    while body.contains(&tag) {
        tag.push('x');
    }
    format!("AS {tag}${body}{tag}$\n")
}

/// The command's text from its parts (`head`: the CREATE line and the
/// RETURNS line, `body` with its line's end).
fn text(head: &str, language: &str, attributes: &[&str], body: &str) -> String {
    let mut out = format!("{head} LANGUAGE {language}\n");
    if !attributes.is_empty() {
        out.push_str(&format!(" {}\n", attributes.join(" ")));
    }
    out.push_str(body);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bodies_are_quoted_with_a_tag_they_do_not_hold() {
        assert_eq!(
            quoted("function", "select 1"),
            "AS $function$select 1$function$\n"
        );
        assert_eq!(
            quoted("procedure", "select 1"),
            "AS $procedure$select 1$procedure$\n"
        );
        assert_eq!(
            quoted("function", "select '$function$'"),
            "AS $functionx$select '$function$'$functionx$\n"
        );
    }
}
