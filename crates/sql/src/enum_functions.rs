//! `enum_first`, `enum_last` and `enum_range` of an enum type. Their
//! argument is often a typed NULL (`null::mood`) that only says which
//! type, so they are bound with the type's labels in hand: the one-
//! argument forms become constants, and `enum_range(a, b)` a call of
//! [`Func::EnumRange`] given the type's labels as a third argument.

use crate::error::SqlError;
use crate::functions::Func;
use crate::scalar::{Columns, Scalar};
use folio_row::{SqlType, Value};

/// The call `name(args)` if it is one of these functions (`None`: it is
/// not), with PostgreSQL's 42883 for arguments not of one enum type.
pub fn bind(
    name: &str,
    args: &[Scalar],
    columns: &(impl Columns + ?Sized),
) -> Result<Option<Scalar>, SqlError> {
    if !matches!(name, "enum_first" | "enum_last" | "enum_range") {
        return Ok(None);
    }
    let typed = |a: &Scalar| match a {
        Scalar::Const(Value::Text(_) | Value::Null) | Scalar::Param(_) => None,
        a => match a.ty_in(columns) {
            SqlType::Enum(def) => Some(def),
            _ => None,
        },
    };
    let def = match (name, args) {
        ("enum_first" | "enum_last", [a]) | ("enum_range", [a]) => typed(a),
        ("enum_range", [a, b]) => match (typed(a), typed(b)) {
            (Some(x), Some(y)) if x.oid == y.oid => Some(x),
            (Some(x), None) if matches!(b, Scalar::Const(Value::Null)) => Some(x),
            (None, Some(y)) if matches!(a, Scalar::Const(Value::Null)) => Some(y),
            _ => None,
        },
        _ => None,
    };
    let Some(def) = def else {
        return Err(crate::functions::no_match(format!(
            "function {name}({}) does not exist",
            crate::scalar::argument_types(args, columns)
        )));
    };
    let labels: Vec<Value> = (0..def.labels.len())
        .map(|i| Value::Enum(def.value_at(def.labels[i].sort).expect("its own label")))
        .collect();
    let edge = |v: Option<&Value>| v.cloned().unwrap_or(Value::Null);
    Ok(Some(match (name, args) {
        ("enum_first", _) => Scalar::Const(edge(labels.first())),
        ("enum_last", _) => Scalar::Const(edge(labels.last())),
        ("enum_range", [_]) => Scalar::Const(Value::array(labels)),
        _ => Scalar::Func(
            Func::EnumRange,
            vec![
                args[0].clone(),
                args[1].clone(),
                Scalar::Const(Value::array(labels)),
            ],
        ),
    }))
}

/// `enum_range(from, to)`: the labels of `all` from `from` to `to` in
/// order (a NULL bound: from the first, to the last).
pub fn range(args: &[Value]) -> Value {
    let [from, to, Value::Array(all)] = args else {
        return Value::Null;
    };
    let within = |v: &Value| {
        (*from == Value::Null || from.sql_cmp(v).is_some_and(|o| o.is_le()))
            && (*to == Value::Null || v.sql_cmp(to).is_some_and(|o| o.is_le()))
    };
    Value::Array(all.iter().filter(|v| within(v)).cloned().collect())
}
