//! PL/pgSQL's extra checks, PostgreSQL's `plpgsql.extra_warnings` and
//! `plpgsql.extra_errors` (each `none`, `all`, or a list of the checks
//! below; `tunables.rs` takes and shows them): a check named in
//! `extra_errors` is an error, else one named in `extra_warnings` a
//! WARNING, else nothing. [`level`] is the one owner of that rule.
//!
//! - `shadowed_variables`: a DECLARE'd name that an enclosing block, the
//!   routine's parameters, `FOUND`, a trigger's variables or an integer
//!   FOR loop's variable already has, or a bound cursor's argument
//!   (42712), checked when CREATE
//!   FUNCTION or CREATE PROCEDURE validates the body, as PostgreSQL's
//!   validator does (a DO block is not checked) ([`shadowed`]);
//! - `too_many_rows`: `SELECT ... INTO` (not STRICT) of more than one row
//!   (P0003), when it runs;
//! - `strict_multi_assignment`: a row put into targets of another number
//!   of fields (42804): INTO, FETCH INTO and FOR over a query, when it
//!   runs ([`fields_differ`]).
//!
//! A warning is the same error sent as a WARNING notice.

use super::body_scopes::{self, Scopes, Var, Visitor};
use super::parse::{Block, Decl, DeclType};
use crate::context::Ctx;
use crate::error::SqlError;
use crate::output::Notice;
use folio_catalog::FunctionDef;

/// One extra check.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Check {
    ShadowedVariables,
    TooManyRows,
    StrictMultiAssignment,
}

impl Check {
    /// Its name in the settings.
    pub fn name(self) -> &'static str {
        match self {
            Check::ShadowedVariables => "shadowed_variables",
            Check::TooManyRows => "too_many_rows",
            Check::StrictMultiAssignment => "strict_multi_assignment",
        }
    }
}

/// The names the settings take, besides `all` and `none`.
pub const CHECKS: &[&str] = &[
    "shadowed_variables",
    "too_many_rows",
    "strict_multi_assignment",
];

/// What a check that finds something does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Level {
    Warning,
    Error,
}

impl Level {
    /// The setting that made it so.
    pub fn setting(self) -> &'static str {
        match self {
            Level::Warning => "extra_warnings",
            Level::Error => "extra_errors",
        }
    }
}

/// Whether setting `value` (as shown) names `check`.
fn names(value: &str, check: Check) -> bool {
    match crate::tunables::key_words(value) {
        Ok(None) => value.trim().eq_ignore_ascii_case("all"),
        Ok(Some(words)) => words.iter().any(|w| w.eq_ignore_ascii_case(check.name())),
        Err(_) => false,
    }
}

/// What `check` does in the session now: an error if
/// `plpgsql.extra_errors` names it, else a warning if
/// `plpgsql.extra_warnings` does, else nothing.
pub fn level(cx: &Ctx<'_>, check: Check) -> Option<Level> {
    let named = |setting: &str| {
        let value = cx.settings.show(&format!("plpgsql.{setting}"), None);
        value.is_ok_and(|v| names(&v, check))
    };
    if named(Level::Error.setting()) {
        Some(Level::Error)
    } else if named(Level::Warning.setting()) {
        Some(Level::Warning)
    } else {
        None
    }
}

/// `error` as `level` has it: returned for an error, sent to `notices`
/// as a WARNING otherwise.
pub fn report(level: Level, error: SqlError, notices: &mut Vec<Notice>) -> Result<(), SqlError> {
    match level {
        Level::Error => Err(error),
        Level::Warning => {
            notices.push(Notice {
                severity: "WARNING",
                code: error.code,
                message: error.message,
                detail: error.detail,
                hint: error.hint,
            });
            Ok(())
        }
    }
}

/// `strict_multi_assignment`'s finding, at `level`: a row of another
/// number of fields than its targets.
pub fn fields_differ(level: Level) -> SqlError {
    SqlError::new(
        "42804",
        "number of source and target fields in assignment does not match",
    )
    .with_detail(format!(
        "strict_multi_assignment check of {} is active.",
        level.setting()
    ))
    .with_hint("Make sure the query returns the exact list of columns.")
}

/// `too_many_rows`' finding (and STRICT's).
pub fn too_many_rows() -> SqlError {
    SqlError::new("P0003", "query returned more than one row")
        .with_hint("Make sure the query returns a single row, or use LIMIT 1.")
}

/// `shadowed_variables` over routine `def`'s body `block`, when CREATE
/// validates it: each DECLARE'd name an enclosing scope has, reported
/// at the session's level (the first error ends it).
pub fn shadowed(
    cx: &Ctx<'_>,
    def: &FunctionDef,
    block: &Block,
    notices: &mut Vec<Notice>,
) -> Result<(), SqlError> {
    let Some(level) = level(cx, Check::ShadowedVariables) else {
        return Ok(());
    };
    let mut shadows = Shadows(Vec::new());
    body_scopes::walk(def, block, &mut shadows)?;
    for name in shadows.0 {
        let error = SqlError::new(
            "42712",
            format!("variable \"{name}\" shadows a previously defined variable"),
        );
        report(level, error, notices)?;
    }
    Ok(())
}

/// The names declared where an enclosing scope has them, in order.
struct Shadows(Vec<String>);

impl<'b> Visitor<'b> for Shadows {
    fn declare(
        &mut self,
        enclosing: &Scopes<'b>,
        own: &[Var<'b>],
        decl: &'b Decl,
    ) -> Result<(), SqlError> {
        let enclosed = |name: &str| enclosing.iter().flatten().any(|v| v.name == name);
        if enclosed(&decl.name) {
            self.0.push(decl.name.clone());
        }
        // A bound cursor's arguments are names of its query's, inside
        // the block's (the cursor's own name among them).
        if let DeclType::Cursor(cursor) = &decl.ty {
            for (arg, _) in &cursor.args {
                if enclosed(arg) || *arg == decl.name || own.iter().any(|v| v.name == *arg) {
                    self.0.push(arg.clone());
                }
            }
        }
        Ok(())
    }
}
