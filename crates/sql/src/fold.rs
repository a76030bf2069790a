//! Constant folding when a statement is planned, as PostgreSQL's
//! `eval_const_expressions`: the one owner of which subexpression is
//! evaluated once, while planning, instead of per row.
//!
//! `scalar::bind` hands each node it builds to [`node`], its children
//! already folded, so folding is bottom-up in the order PostgreSQL's
//! recursion folds. A node all of whose operands are constants and which
//! is immutable (no column, parameter, `now()`, subquery or PL/pgSQL
//! call; only immutable functions and casts: `immutable.rs`, and a
//! cast's own `types::cast_immutable`; not a domain's check) becomes its
//! value. A parameter is never a constant: a prepared statement's plan is
//! generic (PostgreSQL folds `$1` in a custom plan; folio keeps one plan).
//!
//! Simplifications that drop operands, as PostgreSQL's: `false AND x` and
//! `x AND false` are false, `true AND x` is `x` (OR the same with true),
//! CASE drops an arm whose WHEN is a constant false or NULL and ends at
//! one whose WHEN is a constant true, COALESCE drops NULL constants and
//! every argument after the first other constant. An operand dropped so
//! is not evaluated, and its error (`1/0`) is not raised.
//!
//! A constant node whose evaluation fails is left as it was, and the
//! failure is raised when the plan runs: PostgreSQL raises it while
//! planning, whether or not a row reaches it (`select 1/0 from
//! empty_table` is 22012), but not while preparing or defining a view.
//! [`enter`] / [`leave`] bracket each outermost `bind`: on leaving one
//! whose folding failed, the first failing constant subexpression still
//! in the tree, operands before the node (as PostgreSQL's recursion
//! meets them), gives the error, noted for the statement being planned
//! ([`begin`] / [`end`]).

use crate::error::SqlError;
use crate::functions::Func;
use crate::row_values::RowFunc;
use crate::scalar::{Columns, Env, Scalar, value_type};
use crate::types;
use folio_row::{SqlType, Value};
use std::cell::{Cell, RefCell};

thread_local! {
    /// How deep `bind` calls are nested.
    static DEPTH: Cell<usize> = const { Cell::new(0) };
    /// A fold failed inside the outermost `bind` under way.
    static FAILED: Cell<bool> = const { Cell::new(false) };
    /// The statement being planned: `None` when none is, else its first
    /// folding error so far.
    static PLANNING: RefCell<Option<Option<SqlError>>> = const { RefCell::new(None) };
}

/// What [`begin`] set aside: the folding of a statement whose planning
/// this one's is nested in.
pub struct Outer(Option<Option<SqlError>>);

/// Starts noting folding errors for a statement being planned.
pub fn begin() -> Outer {
    Outer(PLANNING.with(|p| p.replace(Some(None))))
}

/// The first folding error of the statement whose planning [`begin`]
/// started (raised when its plan runs), restoring the outer one's.
pub fn end(outer: Outer) -> Option<SqlError> {
    PLANNING.with(|p| p.replace(outer.0)).flatten()
}

/// `f`'s result, its folding errors not noted for the statement being
/// planned: a table's stored defaults and CHECK constraints, bound whole
/// with a row change's plan, fail as PostgreSQL's when a row uses them
/// (a failing constant stays in place, evaluated per row).
pub fn unnoted<T>(f: impl FnOnce() -> T) -> T {
    let outer = PLANNING.with(|p| p.replace(None));
    let out = f();
    PLANNING.with(|p| *p.borrow_mut() = outer);
    out
}

/// Whether no `bind` is under way (the next starts a whole expression).
pub fn outermost() -> bool {
    DEPTH.with(|d| d.get() == 0)
}

/// Notes the start of a `bind`.
pub fn enter() {
    DEPTH.with(|d| d.set(d.get() + 1));
}

/// Notes the end of a `bind` that built `bound`: at the outermost, the
/// error of its first failing constant subexpression is noted for the
/// statement being planned.
pub fn leave(bound: Option<&Scalar>) {
    let depth = DEPTH.with(|d| {
        d.set(d.get() - 1);
        d.get()
    });
    if depth > 0 || !FAILED.with(|f| f.replace(false)) {
        return;
    }
    let Some(error) = bound.and_then(first_error) else {
        return;
    };
    PLANNING.with(|p| {
        if let Some(noted @ None) = p.borrow_mut().as_mut() {
            *noted = Some(error);
        }
    });
}

/// The first error of a constant subexpression of `e` that fails,
/// operands first.
fn first_error(e: &Scalar) -> Option<SqlError> {
    if let Some(error) = e.children().into_iter().find_map(first_error) {
        return Some(error);
    }
    if matches!(e, Scalar::Const(_)) || !constant(e) {
        return None;
    }
    e.eval(&[], &Env::at(0)).err()
}

/// `e`, whose children are folded, folded; `columns` are the row's it
/// is bound over.
pub fn node(e: Scalar, columns: &(impl Columns + ?Sized)) -> Scalar {
    if let Scalar::Column(_) | Scalar::Const(_) | Scalar::Param(_) = e {
        return e;
    }
    let e = match e {
        e @ (Scalar::And(..)
        | Scalar::Or(..)
        | Scalar::Case { .. }
        | Scalar::Func(Func::Coalesce, _)) => {
            let ty = e.ty_in(columns);
            // What is left keeps the type the whole had (a bare string
            // or NULL would be an untyped literal).
            match simplified(e) {
                Scalar::Const(v @ (Value::Text(_) | Value::Null)) => {
                    Scalar::Cast(Box::new(Scalar::Const(v)), ty)
                }
                // A row constructor left is the CASE's record value, which
                // compares as a record (`row_values::compare`), not field
                // by field as a constructor written there would.
                Scalar::Func(Func::Row(RowFunc::Construct), fields) => {
                    Scalar::Func(Func::Row(RowFunc::WholeRow(None)), fields)
                }
                kept if kept.ty_in(columns) == ty => kept,
                other => Scalar::Cast(Box::new(other), ty),
            }
        }
        e => e,
    };
    let literals = e.children().into_iter().all(literal_like);
    if literal_like(&e) || !literals || !own_constant(&e) {
        return e;
    }
    let ty = e.ty(&[]);
    match e.eval(&[], &Env::at(0)) {
        Ok(value) => literal(value, ty),
        Err(_) => {
            FAILED.with(|f| f.set(true));
            e
        }
    }
}

/// The value of a constant as folding leaves one ([`literal_like`]).
fn constant_value(e: &Scalar) -> Option<Value> {
    match literal_like(e) {
        true => e.eval(&[], &Env::at(0)).ok(),
        false => None,
    }
}

/// A constant as folding leaves one: bare, or cast or typed.
fn literal_like(e: &Scalar) -> bool {
    match e {
        Scalar::Const(_) => true,
        Scalar::Cast(inner, _) | Scalar::Typed(inner, _) => matches!(**inner, Scalar::Const(_)),
        _ => false,
    }
}

/// `value` as a constant of type `ty`: a bare constant where its value
/// says its type, else cast to it (a NULL, a string, which bare is an
/// untyped literal, an array, a value of another type than the node's).
fn literal(value: Value, ty: SqlType) -> Scalar {
    let bare = !matches!(value, Value::Null | Value::Text(_) | Value::Array(_))
        && value_type(&value) == ty;
    match bare {
        true => Scalar::Const(value),
        false => Scalar::Cast(Box::new(Scalar::Const(value)), ty),
    }
}

/// Its value is a constant: a constant, or an immutable node over
/// constants.
fn constant(e: &Scalar) -> bool {
    // Operands first: a column has no type to ask here.
    e.children().into_iter().all(constant) && own_constant(e)
}

/// Its kind is evaluated while planning when its operands are constants.
fn own_constant(e: &Scalar) -> bool {
    let own = match e {
        Scalar::Const(_) => return true,
        // (Parameters, `now()`, subqueries and calls are not immutable:
        // `immutable.rs`, asked below, is the one owner of that.)
        Scalar::Column(_) | Scalar::Domain(..) => false,
        Scalar::Cast(inner, to) => types::cast_immutable(inner.ty(&[]), *to),
        // (Those reading the session or the catalog are not immutable;
        // these are kept out whatever their class says.)
        Scalar::Func(
            Func::Backend(_)
            | Func::Advisory(_)
            | Func::Xact(_)
            | Func::Catalog(_)
            | Func::Setting(_)
            | Func::EnumRange
            // A row constructor is read by its shape (`row_values.rs`).
            | Func::Row(_),
            _,
        ) => false,
        Scalar::Func(f, _) => !f.is_sequence(),
        _ => true,
    };
    // Operands are constants here, so no column's type is asked for.
    own && crate::immutable::immutable(e, &[])
}

/// `e` with the operands PostgreSQL's simplification drops dropped.
fn simplified(e: Scalar) -> Scalar {
    let truth = |e: &Scalar| match e {
        Scalar::Const(Value::Bool(b)) => Some(Some(*b)),
        Scalar::Const(Value::Null) => Some(None),
        Scalar::Cast(inner, SqlType::Bool) if matches!(**inner, Scalar::Const(Value::Null)) => {
            Some(None)
        }
        _ => None,
    };
    // An operand that stays in PostgreSQL's list (it is folded before
    // the constant that ends the list is met) keeps its error.
    let failing = |e: &Scalar| FAILED.with(Cell::get) && first_error(e).is_some();
    match e {
        Scalar::And(a, b) => match (truth(&a), truth(&b)) {
            (Some(Some(false)), _) => Scalar::Const(Value::Bool(false)),
            (_, Some(Some(false))) if !failing(&a) => Scalar::Const(Value::Bool(false)),
            (Some(Some(true)), _) => *b,
            (_, Some(Some(true))) => *a,
            _ => Scalar::And(a, b),
        },
        Scalar::Or(a, b) => match (truth(&a), truth(&b)) {
            (Some(Some(true)), _) => Scalar::Const(Value::Bool(true)),
            (_, Some(Some(true))) if !failing(&a) => Scalar::Const(Value::Bool(true)),
            (Some(Some(false)), _) => *b,
            (_, Some(Some(false))) => *a,
            _ => Scalar::Or(a, b),
        },
        Scalar::Case {
            operand: Some(operand),
            branches,
            otherwise,
        } => {
            // A constant subject: an arm whose constant value differs (or
            // is NULL) is dropped, one equal to it ends the CASE, as
            // PostgreSQL's simplification of `CASE x WHEN ...` does (so
            // `CASE 1 WHEN 0 THEN 1/0 WHEN 1 THEN 1 END` is 1).
            let subject = constant_value(&operand);
            let matches = |when: &Scalar| {
                let (subject, when) = (subject.as_ref()?, constant_value(when)?);
                match crate::scalar::compare(subject, &when) {
                    Ok(Some(order)) => Some(Some(order.is_eq())),
                    Ok(None) => Some(None),
                    Err(_) => None,
                }
            };
            let mut kept = Vec::with_capacity(branches.len());
            let mut otherwise = otherwise;
            for (when, then) in branches {
                match matches(&when) {
                    Some(Some(false) | None) => {}
                    Some(Some(true)) => {
                        otherwise = Some(Box::new(then));
                        break;
                    }
                    _ => kept.push((when, then)),
                }
            }
            match (kept.is_empty(), otherwise) {
                (true, Some(result)) => *result,
                (true, None) => Scalar::Const(Value::Null),
                (_, otherwise) => Scalar::Case {
                    operand: Some(operand),
                    branches: kept,
                    otherwise,
                },
            }
        }
        Scalar::Case {
            operand: None,
            branches,
            otherwise,
        } => {
            let (mut kept, mut dropped) = (Vec::with_capacity(branches.len()), Vec::new());
            let mut otherwise = otherwise;
            for (when, then) in branches {
                match truth(&when) {
                    Some(Some(false) | None) => dropped.push((when, then)),
                    Some(Some(true)) => {
                        otherwise = Some(Box::new(then));
                        break;
                    }
                    _ => kept.push((when, then)),
                }
            }
            match (kept.is_empty(), otherwise) {
                (true, Some(result)) => *result,
                // No arm left: kept as written (its type is its arms').
                (true, None) => Scalar::Case {
                    operand: None,
                    branches: dropped,
                    otherwise: None,
                },
                (_, otherwise) => Scalar::Case {
                    operand: None,
                    branches: kept,
                    otherwise,
                },
            }
        }
        Scalar::Func(Func::Coalesce, args) => {
            let mut kept = Vec::with_capacity(args.len());
            let mut null = None;
            for arg in args {
                match &arg {
                    Scalar::Const(Value::Null) => null = Some(arg),
                    Scalar::Cast(inner, _) if matches!(**inner, Scalar::Const(Value::Null)) => {
                        null = Some(arg);
                    }
                    Scalar::Const(_) => {
                        kept.push(arg);
                        break;
                    }
                    _ => kept.push(arg),
                }
            }
            // All NULL: one NULL.
            kept.extend(null.filter(|_| kept.is_empty()));
            Scalar::Func(Func::Coalesce, kept)
        }
        e => e,
    }
}
