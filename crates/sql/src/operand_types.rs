//! Whether the operands of a comparison, and the arms of a CASE or
//! COALESCE, fit together, as PostgreSQL's operator and common-type
//! resolution decide it for folio's types, at bind time.
//!
//! An *untyped* operand (a quoted literal, NULL, a parameter: PostgreSQL's
//! `unknown`) adapts to the other side, so `'1' = 1` and `i = '1'`
//! compare. A *typed* string (a text, varchar or char column, a cast to
//! one, a string function's result, a subquery's text column) never meets
//! a number: `t = 1`, `'1'::text < i`, `t in (1, 2)`, `case t when 1` are
//! 42883 `operator does not exist: text = integer` with PostgreSQL's hint
//! (no position: folio's bound operators keep none). The arms of CASE,
//! COALESCE, GREATEST and LEAST resolve as a set operation's column does
//! (`set_types::common`: `COALESCE types text and integer cannot be
//! matched`, 42804) when a typed string meets a typed number among them.
//! Other pairs of categories (a string and a date) are
//! left to run time as before.

use crate::error::SqlError;
use crate::functions;
use crate::scalar::{Columns, Scalar};
use crate::set_types::{self, Input};
use folio_row::{SqlType, Value};

/// The type of an operand, `None` when it is untyped.
fn typed(operand: &Scalar, columns: &(impl Columns + ?Sized)) -> Option<SqlType> {
    match operand {
        Scalar::Const(Value::Text(_) | Value::Null) | Scalar::Param(_) => None,
        typed => Some(typed.ty_in(columns)),
    }
}

fn string(ty: SqlType) -> bool {
    matches!(ty, SqlType::Text | SqlType::Varchar(_) | SqlType::Char(_))
}

/// `a symbol b` (`=`, `<`, ...): 42883 when a typed string meets a typed
/// number, or an enum a typed operand of another type.
pub fn compared(
    symbol: &str,
    a: &Scalar,
    b: &Scalar,
    columns: &(impl Columns + ?Sized),
) -> Result<(), SqlError> {
    operator(symbol, typed(a, columns), typed(b, columns))
}

/// `a symbol ANY/ALL (array)` of elements of type `element`.
pub fn compared_with_elements(
    symbol: &str,
    a: &Scalar,
    element: SqlType,
    columns: &(impl Columns + ?Sized),
) -> Result<(), SqlError> {
    operator(symbol, typed(a, columns), Some(element))
}

fn operator(symbol: &str, x: Option<SqlType>, y: Option<SqlType>) -> Result<(), SqlError> {
    let (Some(x), Some(y)) = (x, y) else {
        return Ok(());
    };
    // An enum meets only its own type (PostgreSQL's enum operators are
    // `anyenum` against the same type).
    let enum_mismatch =
        (matches!(x, SqlType::Enum(_)) || matches!(y, SqlType::Enum(_))) && x.oid() != y.oid();
    // So does a range (PostgreSQL's range comparisons are `anyrange`).
    let ranged = |t: SqlType| matches!(t, SqlType::Range(_) | SqlType::Multirange(_));
    let range_mismatch = (ranged(x) || ranged(y)) && x.oid() != y.oid();
    if (string(x) && y.is_number())
        || (x.is_number() && string(y))
        || enum_mismatch
        || range_mismatch
        || !crate::xid_functions::compares(symbol, x, y)
    {
        return Err(functions::no_operator(format!(
            "operator does not exist: {} {symbol} {}",
            set_types::name(x),
            set_types::name(y)
        )));
    }
    Ok(())
}

/// The arms of `context` (`CASE`: the ELSE first, then each THEN, as
/// PostgreSQL lists them; `COALESCE`, `GREATEST`, `LEAST`: the arguments)
/// resolved to one type, or the error PostgreSQL gives.
pub fn arms<'s>(
    context: &str,
    arms: impl IntoIterator<Item = &'s Scalar>,
    columns: &(impl Columns + ?Sized),
) -> Result<(), SqlError> {
    let arms: Vec<&Scalar> = arms.into_iter().collect();
    let types: Vec<SqlType> = arms.iter().filter_map(|a| typed(a, columns)).collect();
    // Only a string meeting a number is refused here; other mixes are
    // left to run time as before.
    if !(types.iter().any(|&t| string(t)) && types.iter().any(|t| t.is_number())) {
        return Ok(());
    }
    let inputs: Vec<Input> = arms
        .into_iter()
        .map(|arm| match (arm, typed(arm, columns)) {
            (Scalar::Const(Value::Text(t)), None) => Input {
                ty: SqlType::Text,
                untyped: Some(Some(t.clone())),
                at: None,
            },
            (_, None) => Input {
                ty: SqlType::Text,
                untyped: Some(None),
                at: None,
            },
            (_, Some(ty)) => Input::typed(ty, None),
        })
        .collect();
    set_types::common(context, &inputs).map(|_| ())
}

/// Arms that are numbers of several types (`coalesce(i4, i8)`, `CASE ...
/// THEN 1 ELSE 2.5 END`) cast to the type PostgreSQL's common-type
/// resolution gives them (`set_types::common`: the type every other one
/// casts to implicitly, int2 < int4 < int8 < numeric < float4 < float8),
/// so every value the construct gives is of its type. Untyped arms are
/// left to adapt as before.
pub fn unify_numbers<'s>(
    context: &str,
    arms: impl IntoIterator<Item = &'s mut Scalar>,
    columns: &(impl Columns + ?Sized),
) {
    let mut arms: Vec<&mut Scalar> = arms.into_iter().collect();
    let types: Vec<Option<SqlType>> = arms.iter().map(|a| typed(a, columns)).collect();
    let numbers: Vec<Input> = (types.iter().flatten())
        .map(|&ty| Input::typed(ty, None))
        .collect();
    if numbers.is_empty() || !numbers.iter().all(|i| i.ty.is_number()) {
        return;
    }
    let Ok(Input { ty: common, .. }) = set_types::common(context, &numbers) else {
        return;
    };
    for (arm, ty) in arms.iter_mut().zip(types) {
        if ty.is_some_and(|ty| ty != common) {
            let value = std::mem::replace(&mut **arm, Scalar::Const(Value::Null));
            **arm = Scalar::Cast(Box::new(value), common);
        }
    }
}
