//! `EXECUTE name(arguments)`: the arguments of a SQL EXECUTE are
//! expressions, evaluated when it runs and given to the prepared
//! statement as a Bind gives its parameters (text; `None` is NULL).
//!
//! As PostgreSQL's EXECUTE, each argument takes its parameter's declared
//! type: a quoted literal is read by that type's input, any other
//! expression must have an assignment cast to it (else 42804, "parameter
//! $n of type X cannot be coerced to the expected type Y"). A parameter
//! without a declared type takes the argument as it is.

use crate::context::Ctx;
use crate::error::SqlError;
use crate::scalar::{self, Env};
use crate::types;
use folio_row::{SqlType, Value};
use sqlparser::ast::Expr;

/// The arguments `arguments` of parameters declared `declared`, as text.
pub fn values(
    arguments: &[Expr],
    declared: &[Option<SqlType>],
    cx: &Ctx<'_>,
) -> Result<Vec<Option<String>>, SqlError> {
    let env = Env::of(cx);
    (arguments.iter().enumerate())
        .map(|(i, argument)| {
            let bound = scalar::bind(argument, &[] as &[SqlType])?;
            let declared = declared.get(i).copied().flatten();
            let bound = match declared {
                // A NULL literal is `unknown` too.
                Some(ty) if scalar::is_unknown(&bound) || is_null(&bound) => {
                    scalar::fit_unknown(bound, ty)?
                }
                Some(ty) => {
                    let from = bound.ty_in(&[] as &[SqlType]);
                    if !types::assignment_cast(from, ty) {
                        return Err(not_coercible(i + 1, from, ty));
                    }
                    bound
                }
                None => bound,
            };
            let value = bound.eval(&[], &env)?;
            let value = match declared {
                Some(ty) => types::assign(value, ty)?,
                None => value,
            };
            Ok(types::text_output(&value))
        })
        .collect()
}

fn is_null(s: &scalar::Scalar) -> bool {
    matches!(s, scalar::Scalar::Const(Value::Null))
}

/// 42804: argument `n` of type `from` has no assignment cast to its
/// parameter's type `to`.
fn not_coercible(n: usize, from: SqlType, to: SqlType) -> SqlError {
    SqlError::new(
        "42804",
        format!(
            "parameter ${n} of type {} cannot be coerced to the expected type {}",
            from.name(),
            to.name()
        ),
    )
    .with_hint("You will need to rewrite or cast the expression.")
}
