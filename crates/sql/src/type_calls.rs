//! Calls named after a type: `date(ts)`, `int4(x)`, `text(n)`,
//! `timestamp(d, t)`, `timestamptz(d, t)`.
//!
//! PostgreSQL has a function for most casts, named after the target
//! type (`date(timestamptz)`, `int4(numeric)`, ...), and reads any other
//! call of one argument whose name is a type's as a cast to it
//! (`text(1)`, `date('2020-01-01')`). folio has the casts, so a call of
//! one argument named after a built-in type that no function has is
//! bound as `CAST(arg AS name)`, giving the cast's value and errors. The
//! two-argument forms are PostgreSQL's date-and-time constructors:
//! `timestamp(date, time)` is `date + time`, `timestamptz(date, time)`
//! the same read on the session's clock, `timestamptz(date, timetz)`
//! `date + timetz`.

use crate::error::SqlError;
use folio_row::SqlType;
use sqlparser::ast::{
    BinaryOperator, CastKind, DataType, Expr, Function, FunctionArg, FunctionArgExpr,
    FunctionArguments,
};

/// The built-in types a one-argument call may be a cast to.
const CAST_NAMES: [&str; 32] = [
    "int2",
    "int4",
    "int8",
    "float4",
    "float8",
    "numeric",
    "text",
    "varchar",
    "name",
    "bool",
    "date",
    "time",
    "timetz",
    "timestamp",
    "timestamptz",
    "interval",
    "uuid",
    "inet",
    "cidr",
    "macaddr",
    "macaddr8",
    "regclass",
    "regtype",
    "regproc",
    "regprocedure",
    "regoper",
    "regoperator",
    "regnamespace",
    "regrole",
    "regconfig",
    "regdictionary",
    "regcollation",
];

/// The expression a call of `name` (a function name no function has)
/// stands for, if it is named after a type; `None` for any other call.
/// `type_of` gives an argument's type (`None`: a quoted literal, NULL or
/// a parameter, which fits), for the two-argument forms' check.
pub fn expand(
    name: &str,
    f: &Function,
    type_of: impl Fn(&Expr) -> Result<Option<SqlType>, SqlError>,
) -> Option<Result<Expr, SqlError>> {
    if !CAST_NAMES.contains(&name) || f.over.is_some() || f.filter.is_some() {
        return None;
    }
    let FunctionArguments::List(list) = &f.args else {
        return None;
    };
    if list.duplicate_treatment.is_some() || !list.clauses.is_empty() {
        return None;
    }
    let args: Option<Vec<&Expr>> = (list.args.iter())
        .map(|a| match a {
            FunctionArg::Unnamed(FunctionArgExpr::Expr(e)) => Some(e),
            _ => None,
        })
        .collect();
    match (name, args?.as_slice()) {
        (_, [arg]) => Some(Ok(cast((*arg).clone(), name))),
        ("timestamp" | "timestamptz", [date, time]) => Some((|| {
            check_pair(name, [type_of(date)?, type_of(time)?])?;
            let sum = Expr::Nested(Box::new(Expr::BinaryOp {
                left: Box::new(cast((*date).clone(), "date")),
                op: BinaryOperator::Plus,
                right: Box::new((*time).clone()),
            }));
            Ok(cast(sum, name))
        })()),
        _ => None,
    }
}

fn cast(expr: Expr, ty: &str) -> Expr {
    Expr::Cast {
        kind: CastKind::DoubleColon,
        expr: Box::new(expr),
        data_type: DataType::Custom(vec![sqlparser::ast::Ident::new(ty)].into(), Vec::new()),
        format: None,
    }
}

/// The error of a two-argument constructor whose arguments have no form
/// of it (`timestamp(date, timetz)`): PostgreSQL's 42883.
fn check_pair(name: &str, types: [Option<SqlType>; 2]) -> Result<(), SqlError> {
    use SqlType::*;
    let fits = matches!(
        (name, types),
        (_, [None | Some(Date), None])
            | ("timestamp", [None | Some(Date), Some(Time(_))])
            | (
                "timestamptz",
                [None | Some(Date), Some(Time(_) | TimeTz(_))]
            )
    );
    let shown = |t: Option<SqlType>| t.map_or_else(|| "unknown".to_string(), |t| t.name());
    match fits {
        true => Ok(()),
        false => Err(crate::functions::no_match(format!(
            "function {name}({}, {}) does not exist",
            shown(types[0]),
            shown(types[1])
        ))),
    }
}
