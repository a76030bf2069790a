//! Polymorphic pseudo-types of user functions' arguments and results
//! (`anyelement`, `anyarray`, `anynonarray`, `anyrange`,
//! `anymultirange`, `anycompatible`, `anycompatiblearray`,
//! `anycompatiblenonarray`, `anycompatiblerange`,
//! `anycompatiblemultirange`; README "Polymorphic functions").
//!
//! CREATE checks PostgreSQL's definition-time rule ([`check_result`]);
//! the body of a polymorphic function is parsed but not planned at
//! CREATE, as PostgreSQL's validator does not plan it either. Each call
//! resolves the types ([`resolve`], PostgreSQL's
//! `check_generic_type_consistency` and
//! `enforce_generic_type_consistency`): 42883 when its arguments do not
//! fit, 42804 when a family's type is not determined, else the concrete
//! type of each polymorphic one ([`Resolved::concrete`]), which
//! [`resolve_def`] puts into the definition a SQL call expands
//! (`sql_functions.rs`) and a PL/pgSQL call runs (`plpgsql/row_calls.rs`).
//!
//! This module is the one owner of which type oids are polymorphic and of
//! how a call resolves them.

use crate::error::SqlError;
use folio_catalog::FunctionDef;
use folio_row::{RangeKind, SqlType};
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

/// A call's argument as the resolution reads it: its type, or `None`
/// for an untyped literal or NULL (PostgreSQL's `unknown`).
pub type Actual = Option<SqlType>;

/// The types a call gives each polymorphic family (PostgreSQL's
/// `enforce_generic_type_consistency`): the `anyelement` family's
/// element, array, range and multirange, the `anycompatible` family's
/// common type and range.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Resolved {
    element: Option<SqlType>,
    array: Option<SqlType>,
    range: Option<RangeKind>,
    compatible: Option<SqlType>,
    compatible_range: Option<RangeKind>,
}

impl Resolved {
    /// The concrete type polymorphic `oid` stands for in this call; a
    /// plain type's own. 42704 for an element without an array type.
    pub fn concrete(&self, oid: u32, typmod: i32) -> Result<(u32, i32), SqlError> {
        let array_of = |t: Option<SqlType>| match t {
            Some(t) => t.array_of().ok_or_else(|| {
                SqlError::new(
                    "42704",
                    format!(
                        "could not find array type for data type {}",
                        crate::set_types::name(t)
                    ),
                )
            }),
            None => Err(undetermined("")),
        };
        let ty = match oid {
            ANYELEMENT | ANYNONARRAY => self.element.ok_or_else(|| undetermined(""))?,
            ANYARRAY => match self.array {
                Some(a) => a,
                None => array_of(self.element)?,
            },
            ANYRANGE => SqlType::Range(self.range.ok_or_else(|| undetermined("anyrange"))?),
            ANYMULTIRANGE => {
                SqlType::Multirange(self.range.ok_or_else(|| undetermined("anymultirange"))?)
            }
            ANYCOMPATIBLE | ANYCOMPATIBLENONARRAY => self.compatible.unwrap_or(SqlType::Text),
            ANYCOMPATIBLEARRAY => array_of(Some(self.compatible.unwrap_or(SqlType::Text)))?,
            ANYCOMPATIBLERANGE => SqlType::Range(
                (self.compatible_range).ok_or_else(|| undetermined("anycompatiblerange"))?,
            ),
            ANYCOMPATIBLEMULTIRANGE => SqlType::Multirange(
                (self.compatible_range).ok_or_else(|| undetermined("anycompatiblemultirange"))?,
            ),
            _ => return Ok((oid, typmod)),
        };
        Ok((ty.oid(), ty.typmod()))
    }
}

/// 42804 for a polymorphic type no argument determines (`family`: the
/// pseudo-type named in the message, empty for the `anyelement` family's
/// generic one).
fn undetermined(family: &str) -> SqlError {
    let family = match family {
        "" => String::new(),
        f => format!(" {f}"),
    };
    SqlError::new(
        "42804",
        format!("could not determine polymorphic type{family} because input has type unknown"),
    )
}

/// A type without its length or precision, as a polymorphic argument
/// takes it (PostgreSQL resolves type oids).
fn plain(ty: SqlType) -> SqlType {
    SqlType::from_oid(ty.oid(), -1).unwrap_or(ty)
}

/// Whether a call's argument `expr` is untyped (PostgreSQL's `unknown`):
/// a quoted string or NULL, perhaps in parentheses.
pub fn is_untyped(expr: &sqlparser::ast::Expr) -> bool {
    use sqlparser::ast::{Expr, Value};
    match expr {
        Expr::Nested(inner) => is_untyped(inner),
        Expr::Value(v) => matches!(
            v.value,
            Value::SingleQuotedString(_) | Value::EscapedStringLiteral(_) | Value::Null
        ),
        _ => false,
    }
}

/// Resolves a call's polymorphic types: `declared`, the function's input
/// types, `actual` the call's arguments, `outputs` its result's types
/// (the result, or its OUT parameters). `Ok(None)`: the arguments do not
/// fit the declared types (PostgreSQL's function lookup fails, 42883;
/// [`check_generic_type_consistency`]); 42804 when a family's type is not
/// determined. A function without polymorphic types gives an empty
/// resolution.
///
/// [`check_generic_type_consistency`]: https://github.com/postgres/postgres/blob/REL_15_STABLE/src/backend/parser/parse_coerce.c
pub fn resolve(
    declared: &[u32],
    actual: &[Actual],
    outputs: &[u32],
) -> Result<Option<Resolved>, SqlError> {
    let mut r = Resolved::default();
    let mut multirange: Option<RangeKind> = None;
    let mut compatible: Vec<SqlType> = Vec::new();
    let mut nonarray = false;
    let mut compatible_nonarray = false;
    // Two arguments of one family member must have one type.
    fn agree<T: PartialEq + Copy>(slot: &mut Option<T>, ty: T) -> bool {
        match slot {
            Some(t) => *t == ty,
            None => {
                *slot = Some(ty);
                true
            }
        }
    }
    for (&decl, &act) in declared.iter().zip(actual) {
        nonarray |= decl == ANYNONARRAY;
        compatible_nonarray |= decl == ANYCOMPATIBLENONARRAY;
        let Some(ty) = act.map(plain) else {
            continue;
        };
        let fits = match decl {
            ANYELEMENT | ANYNONARRAY => agree(&mut r.element, ty),
            ANYARRAY => ty.element().is_some() && agree(&mut r.array, ty),
            ANYRANGE => matches!(ty, SqlType::Range(k) if agree(&mut r.range, k)),
            ANYMULTIRANGE => matches!(ty, SqlType::Multirange(k) if agree(&mut multirange, k)),
            ANYCOMPATIBLE | ANYCOMPATIBLENONARRAY => {
                compatible.push(ty);
                true
            }
            ANYCOMPATIBLEARRAY => match ty.element() {
                Some(e) => {
                    compatible.push(plain(e));
                    true
                }
                None => false,
            },
            ANYCOMPATIBLERANGE | ANYCOMPATIBLEMULTIRANGE => {
                let kind = match (decl, ty) {
                    (ANYCOMPATIBLERANGE, SqlType::Range(k)) => k,
                    (ANYCOMPATIBLEMULTIRANGE, SqlType::Multirange(k)) => k,
                    _ => return Ok(None),
                };
                let first = r.compatible_range.is_none();
                if !agree(&mut r.compatible_range, kind) {
                    return Ok(None);
                }
                if first {
                    compatible.push(kind.element());
                }
                true
            }
            _ => true,
        };
        if !fits {
            return Ok(None);
        }
    }
    // The element agrees with the array's, the range's and the
    // multirange's.
    if let Some(array) = r.array {
        let element = array.element().map(plain).expect("an array");
        if !agree(&mut r.element, element) {
            return Ok(None);
        }
    }
    if let Some(m) = multirange
        && !agree(&mut r.range, m)
    {
        return Ok(None);
    }
    if let Some(range) = r.range
        && (r.element).is_some_and(|e| e.oid() != range.element().oid())
    {
        return Ok(None);
    }
    if let Some(range) = r.range {
        r.element.get_or_insert(range.element());
    }
    if nonarray && r.element.is_some_and(|e| e.element().is_some()) {
        return Ok(None);
    }
    if !compatible.is_empty() {
        let inputs: Vec<_> = (compatible.iter())
            .map(|t| crate::set_types::Input::typed(*t, None))
            .collect();
        let Ok(common) = crate::set_types::common("", &inputs) else {
            return Ok(None);
        };
        let common = plain(common.ty);
        if !(compatible.iter()).all(|t| crate::set_types::implicit_cast(*t, common.oid()))
            || (compatible_nonarray && common.element().is_some())
            || (r.compatible_range).is_some_and(|k| k.element().oid() != common.oid())
        {
            return Ok(None);
        }
        r.compatible = Some(common);
    }
    // What stays undetermined: PostgreSQL's 42804s, inputs first.
    let all: Vec<u32> = declared.iter().chain(outputs).copied().collect();
    let element_family = |o: &u32| {
        matches!(
            *o,
            ANYELEMENT | ANYARRAY | ANYNONARRAY | ANYRANGE | ANYMULTIRANGE
        )
    };
    if all.iter().any(element_family) && r.element.is_none() {
        return Err(undetermined(""));
    }
    if all.iter().any(|o| matches!(*o, ANYRANGE | ANYMULTIRANGE)) && r.range.is_none() {
        return Err(undetermined(match all.contains(&ANYRANGE) {
            true => "anyrange",
            false => "anymultirange",
        }));
    }
    if r.compatible_range.is_none() {
        for o in declared.iter().chain(outputs) {
            if matches!(*o, ANYCOMPATIBLERANGE | ANYCOMPATIBLEMULTIRANGE) {
                let name = crate::catalog_functions::format_type(i64::from(*o), None);
                return Err(undetermined(&name));
            }
        }
    }
    Ok(Some(r))
}

/// `def` with its polymorphic argument, result and column types made the
/// concrete ones of a call with arguments `actual` (`def` itself when it
/// has none): 42883 naming the call when they do not fit, 42804 when a
/// type is not determined.
pub fn resolve_def(def: &FunctionDef, actual: &[Actual]) -> Result<FunctionDef, SqlError> {
    let declared: Vec<u32> = def.args.iter().map(|a| a.1).collect();
    let outputs: Vec<u32> = (def.columns.iter().map(|c| c.1))
        .chain([def.result.0])
        .collect();
    if !declared.iter().chain(&outputs).any(|o| is_polymorphic(*o)) {
        return Ok(def.clone());
    }
    let Some(resolved) = resolve(&declared, actual, &outputs)? else {
        let shown: Vec<String> = (actual.iter())
            .map(|a| match a {
                Some(t) => crate::set_types::name(*t),
                None => "unknown".to_string(),
            })
            .collect();
        let name = crate::sql_functions::names_of(&def.name);
        return Err(crate::functions::no_match(format!(
            "function {name}({}) does not exist",
            shown.join(", ")
        )));
    };
    let mut out = def.clone();
    for a in &mut out.args {
        (a.1, a.2) = resolved.concrete(a.1, a.2)?;
    }
    for c in &mut out.columns {
        (c.1, c.2) = resolved.concrete(c.1, c.2)?;
    }
    out.result = resolved.concrete(def.result.0, def.result.1)?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calls_resolve_as_postgresql_resolves_them() {
        let int4 = Some(SqlType::Int4);
        let num = Some(SqlType::Numeric(None));
        let int4_range = Some(SqlType::Range(RangeKind::Int4));
        let concrete = |r: &Resolved, o: u32| r.concrete(o, -1).unwrap().0;
        // anyelement from an array: its element.
        let r = resolve(&[ANYARRAY], &[SqlType::Int4.array_of()], &[ANYELEMENT])
            .unwrap()
            .unwrap();
        assert_eq!(concrete(&r, ANYELEMENT), SqlType::Int4.oid());
        // Two anyelement arguments of other types do not fit (42883).
        assert_eq!(
            resolve(&[ANYELEMENT, ANYELEMENT], &[int4, num], &[]),
            Ok(None)
        );
        // anycompatible: the common type.
        let r = resolve(
            &[ANYCOMPATIBLE, ANYCOMPATIBLE],
            &[int4, num],
            &[ANYCOMPATIBLEARRAY],
        )
        .unwrap()
        .unwrap();
        assert_eq!(concrete(&r, ANYCOMPATIBLE), SqlType::Numeric(None).oid());
        // anycompatiblerange: the common type must be the range's subtype.
        let range_args = [ANYCOMPATIBLERANGE, ANYCOMPATIBLE, ANYCOMPATIBLE];
        assert_eq!(
            resolve(&range_args, &[int4_range, int4, num], &[]),
            Ok(None)
        );
        assert!(
            resolve(&range_args, &[int4_range, int4, int4], &[])
                .unwrap()
                .is_some()
        );
        // All unknown: undetermined (42804), but anycompatible is text.
        assert_eq!(
            resolve(&[ANYELEMENT], &[None], &[]).unwrap_err().code,
            "42804"
        );
        let r = resolve(&[ANYCOMPATIBLE], &[None], &[]).unwrap().unwrap();
        assert_eq!(concrete(&r, ANYCOMPATIBLE), SqlType::Text.oid());
        let err = resolve(&[ANYCOMPATIBLERANGE], &[None], &[ANYCOMPATIBLEMULTIRANGE]).unwrap_err();
        assert!(err.message.contains("anycompatiblerange"), "{err:?}");
    }

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
