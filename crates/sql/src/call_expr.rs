//! Function calls that rewrites build: `name(args)` with no DISTINCT,
//! FILTER, OVER or other clause, the one place that spells out
//! sqlparser's call node (`OVERLAPS` as `pg_catalog.overlaps(...)`, a
//! user aggregate's state function calls, a set-returning SQL function's
//! row calls).

use sqlparser::ast::{
    Expr, Function, FunctionArg, FunctionArgExpr, FunctionArgumentList, FunctionArguments,
    ObjectName,
};

/// `name(args)`.
pub fn plain_call(name: ObjectName, args: Vec<FunctionArg>) -> Expr {
    Expr::Function(Function {
        name,
        uses_odbc_syntax: false,
        parameters: FunctionArguments::None,
        args: FunctionArguments::List(FunctionArgumentList {
            duplicate_treatment: None,
            args,
            clauses: Vec::new(),
        }),
        filter: None,
        null_treatment: None,
        over: None,
        within_group: Vec::new(),
    })
}

/// `name(exprs)`: each expression an unnamed argument.
pub fn call_of(name: ObjectName, exprs: impl IntoIterator<Item = Expr>) -> Expr {
    let args = (exprs.into_iter())
        .map(|e| FunctionArg::Unnamed(FunctionArgExpr::Expr(e)))
        .collect();
    plain_call(name, args)
}
