//! Polymorphic pseudo-types of SQL functions' arguments and results
//! (`anyelement`, `anyarray`, `anynonarray`, `anyrange`,
//! `anymultirange`, `anycompatible`, `anycompatiblearray`,
//! `anycompatiblenonarray`, `anycompatiblerange`,
//! `anycompatiblemultirange`).
//!
//! A SQL function's call is expanded into its body (`sql_functions.rs`),
//! so a polymorphic argument is placed as the call wrote it, without a
//! cast, and a polymorphic result is the body's own type: a call's types
//! follow from its arguments as the body's expression types them. CREATE
//! checks PostgreSQL's definition-time rule ([`check_result`]); the body
//! of a polymorphic function is parsed but not planned at CREATE, as
//! PostgreSQL's validator does not plan it either.
//!
//! This module is the one owner of which type oids are polymorphic.

use crate::error::SqlError;
use sqlparser::ast::DataType;

/// `anyelement`.
pub const ANYELEMENT: u32 = 2283;
/// `anyarray`.
pub const ANYARRAY: u32 = 2277;
/// `anynonarray`.
pub const ANYNONARRAY: u32 = 2776;
/// `anyrange`.
pub const ANYRANGE: u32 = 3831;
/// `anymultirange`.
pub const ANYMULTIRANGE: u32 = 4537;
/// `anycompatible`.
pub const ANYCOMPATIBLE: u32 = 5077;
/// `anycompatiblearray`.
pub const ANYCOMPATIBLEARRAY: u32 = 5078;
/// `anycompatiblenonarray`.
pub const ANYCOMPATIBLENONARRAY: u32 = 5079;
/// `anycompatiblerange`.
pub const ANYCOMPATIBLERANGE: u32 = 5080;
/// `anycompatiblemultirange`.
pub const ANYCOMPATIBLEMULTIRANGE: u32 = 4538;

/// The polymorphic pseudo-types by name (the names `format_type` gives).
const NAMES: [(&str, u32); 10] = [
    ("anyelement", ANYELEMENT),
    ("anyarray", ANYARRAY),
    ("anynonarray", ANYNONARRAY),
    ("anyrange", ANYRANGE),
    ("anymultirange", ANYMULTIRANGE),
    ("anycompatible", ANYCOMPATIBLE),
    ("anycompatiblearray", ANYCOMPATIBLEARRAY),
    ("anycompatiblenonarray", ANYCOMPATIBLENONARRAY),
    ("anycompatiblerange", ANYCOMPATIBLERANGE),
    ("anycompatiblemultirange", ANYCOMPATIBLEMULTIRANGE),
];

/// The oid of the polymorphic pseudo-type `ty` names, if it names one.
pub fn pseudo_type(ty: &DataType) -> Option<u32> {
    let DataType::Custom(name, modifiers) = ty else {
        return None;
    };
    let name = crate::names::relation(name).ok()?;
    let bare = name.strip_prefix("pg_catalog.").unwrap_or(&name);
    let oid = NAMES.iter().find(|(n, _)| *n == bare)?.1;
    modifiers.is_empty().then_some(oid)
}

/// Whether `oid` is a polymorphic pseudo-type's.
pub fn is_polymorphic(oid: u32) -> bool {
    NAMES.iter().any(|(_, o)| *o == oid)
}

/// Whether `oid` is an array member of either family.
pub fn is_array(oid: u32) -> bool {
    matches!(oid, ANYARRAY | ANYCOMPATIBLEARRAY)
}

/// Whether `oid` is one of the `anycompatible` family's.
fn is_compatible_family(oid: u32) -> bool {
    matches!(
        oid,
        ANYCOMPATIBLE
            | ANYCOMPATIBLEARRAY
            | ANYCOMPATIBLENONARRAY
            | ANYCOMPATIBLERANGE
            | ANYCOMPATIBLEMULTIRANGE
    )
}

/// Whether `oid` is a range or multirange member of either family.
fn is_ranged(oid: u32) -> bool {
    matches!(
        oid,
        ANYRANGE | ANYMULTIRANGE | ANYCOMPATIBLERANGE | ANYCOMPATIBLEMULTIRANGE
    )
}

/// PostgreSQL's CREATE-time rule: a polymorphic result needs an argument
/// of the same family to be determined from, a range or multirange one
/// a range or multirange argument (42P13).
pub fn check_result(args: &[u32], result: u32) -> Result<(), SqlError> {
    if !is_polymorphic(result) {
        return Ok(());
    }
    let compatible = is_compatible_family(result);
    let ranged = is_ranged(result);
    let found = (args.iter()).any(|a| {
        is_polymorphic(*a) && is_compatible_family(*a) == compatible && (!ranged || is_ranged(*a))
    });
    if found {
        return Ok(());
    }
    let name = crate::catalog_functions::format_type(i64::from(result), None);
    let detail = match (compatible, ranged) {
        (false, true) => format!(
            "A result of type {name} requires at least one input of type anyrange or anymultirange."
        ),
        (true, true) => format!(
            "A result of type {name} requires at least one input of type anycompatiblerange or anycompatiblemultirange."
        ),
        (true, false) => format!(
            "A result of type {name} requires at least one input of type anycompatible, anycompatiblearray, anycompatiblenonarray, or anycompatiblerange."
        ),
        (false, false) => format!(
            "A result of type {name} requires at least one input of type anyelement, anyarray, anynonarray, anyenum, anyrange, or anymultirange."
        ),
    };
    Err(SqlError::new("42P13", "cannot determine result data type").with_detail(detail))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_polymorphic_result_needs_an_argument_of_its_family() {
        // anyelement from anyarray: determined.
        assert!(check_result(&[ANYARRAY], ANYELEMENT).is_ok());
        // anycompatible from anyelement: not (PostgreSQL's 42P13).
        assert!(check_result(&[ANYELEMENT, 23], ANYCOMPATIBLE).is_err());
        // No polymorphic argument at all.
        assert!(check_result(&[23], ANYARRAY).is_err());
        // A plain result needs nothing.
        assert!(check_result(&[], 23).is_ok());
    }
}
