//! Calls of built-in functions with named arguments (`f(x, b => y)`):
//! the one owner of putting each written argument in its parameter's
//! place, for the built-ins that take names (`make_interval`, the path
//! functions, `jsonb_set` and its kin). User functions match names
//! against their own definitions (`procedures.rs` `sources`).

use sqlparser::ast::{Expr, FunctionArg, FunctionArgExpr};

/// `args` in the places of `params` (PostgreSQL's parameter names, in
/// order): positional ones first, each `name => value` at its
/// parameter's position, places not given `None`. `None` when the call
/// does not fit: a name no parameter has, a place given twice, more
/// arguments than parameters, or an argument that is not an expression.
pub fn slots<'a>(params: &[&str], args: &'a [FunctionArg]) -> Option<Vec<Option<&'a Expr>>> {
    let mut slots: Vec<Option<&Expr>> = vec![None; params.len()];
    for (i, arg) in args.iter().enumerate() {
        let (slot, expr) = match arg {
            FunctionArg::Unnamed(FunctionArgExpr::Expr(e)) => (i, e),
            FunctionArg::Named {
                name,
                arg: FunctionArgExpr::Expr(e),
                ..
            }
            | FunctionArg::ExprNamed {
                name: Expr::Identifier(name),
                arg: FunctionArgExpr::Expr(e),
                ..
            } => {
                let name = crate::names::ident(name);
                (params.iter().position(|p| *p == name)?, e)
            }
            _ => return None,
        };
        if slots.get(slot)?.is_some() {
            return None;
        }
        slots[slot] = Some(expr);
    }
    Some(slots)
}

/// Whether any of `args` is written `name => value`.
pub fn any_named(args: &[FunctionArg]) -> bool {
    args.iter().any(|a| !matches!(a, FunctionArg::Unnamed(_)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(sql: &str) -> Vec<FunctionArg> {
        let expr = crate::parse::expression(sql).unwrap();
        let Expr::Function(f) = expr else {
            panic!("not a call")
        };
        let sqlparser::ast::FunctionArguments::List(list) = f.args else {
            panic!("no list")
        };
        list.args
    }

    fn texts(slots: Option<Vec<Option<&Expr>>>) -> Option<Vec<String>> {
        slots.map(|s| {
            s.iter()
                .map(|e| e.map_or("-".into(), ToString::to_string))
                .collect()
        })
    }

    #[test]
    fn named_arguments_take_their_parameters_places() {
        let params = ["a", "b", "c"];
        let call = args("f(1, c => 3)");
        assert_eq!(texts(slots(&params, &call)).unwrap(), ["1", "-", "3"]);
        let call = args("f(B => 2)");
        assert_eq!(texts(slots(&params, &call)).unwrap(), ["-", "2", "-"]);
    }

    #[test]
    fn a_call_that_does_not_fit_is_none() {
        let params = ["a", "b"];
        assert!(slots(&params, &args("f(1, a => 2)")).is_none());
        assert!(slots(&params, &args("f(z => 2)")).is_none());
        assert!(slots(&params, &args("f(1, 2, 3)")).is_none());
    }
}
