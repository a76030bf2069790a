//! PostgreSQL's `IMMUTABLE` rule for an expression: what an index
//! expression or predicate (`index_exprs.rs`) and a generation
//! expression (`generated.rs`) may be. The one owner of that rule.

use crate::scalar::Scalar;
use crate::types;
use folio_row::SqlType;

/// Whether `e` (over a row of `types`) gives the same value for the same
/// row in every session and transaction: no `now()`, no parameter, no
/// subquery, only immutable calls (`Func::immutable`: pg_proc's
/// volatility) and casts (`types::cast_immutable`; a constant's cast is
/// folded, as PostgreSQL folds it), and no comparison or arithmetic that
/// turns on the TimeZone (a timestamptz with a date or timestamp, or
/// plus or minus an interval).
pub fn immutable(e: &Scalar, types: &[SqlType]) -> bool {
    let zoned = |a: &Scalar, b: &Scalar| {
        let (a, b) = (a.ty(types), b.ty(types));
        let zoned = |t| matches!(t, SqlType::TimestampTz(_));
        a.oid() != b.oid() && (zoned(a) || zoned(b))
    };
    let own = match e {
        Scalar::Now
        | Scalar::Param(_)
        | Scalar::Subquery(..)
        | Scalar::ArraySubquery(..)
        | Scalar::Exists(_)
        | Scalar::InSubquery { .. }
        | Scalar::Outer(..)
        | Scalar::Call(_) => false,
        Scalar::Func(f, args) => {
            let arg_types: Vec<SqlType> = args.iter().map(|a| a.ty(types)).collect();
            f.immutable(&arg_types)
        }
        Scalar::Cast(inner, to) => {
            let mut read = Vec::new();
            inner.columns(&mut read);
            read.is_empty() || types::cast_immutable(inner.ty(types), *to)
        }
        Scalar::Compare(_, a, b) | Scalar::Arith(_, a, b) => !zoned(a, b),
        _ => true,
    };
    own && e.children().into_iter().all(|c| immutable(c, types))
}
