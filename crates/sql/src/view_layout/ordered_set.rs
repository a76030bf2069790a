//! Ordered-set and hypothetical-set aggregate calls
//! (`percentile_cont(0.5) WITHIN GROUP (ORDER BY a)`, `rank(3) WITHIN
//! GROUP (ORDER BY a)`) as PostgreSQL's `get_agg_expr` prints them: the
//! direct arguments, then `WITHIN GROUP (ORDER BY ...)` with each key as
//! a sort clause (`get_rule_sortgroupclause`). Every argument shows the
//! coercion parse analysis gave it, to the aggregate's declared type:
//!
//! - `percentile_cont` / `percentile_disc`: the fraction is `double
//!   precision` (an array of fractions `double precision[]`);
//!   `percentile_cont` sorts `double precision` or `interval`, anything
//!   else cast to `double precision`; `percentile_disc` and `mode` sort
//!   any type as it is.
//! - The hypothetical-set aggregates (`rank`, `dense_rank`,
//!   `percent_rank`, `cume_dist`): each direct argument and its sort key
//!   take their common type (an untyped literal the other's; of two
//!   numbers the wider: `rank(3.5) WITHIN GROUP (ORDER BY (a::numeric))`).
//!
//! A type the printer cannot tell (a function's result) is left as
//! written.

use super::exprs::{cast_literal, constant_of, is_string};
use super::*;

/// The aggregates whose calls take WITHIN GROUP, by the coercions of
/// their arguments.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Aggregate {
    PercentileCont,
    PercentileDisc,
    Mode,
    Hypothetical,
    /// Not one folio knows: printed as written.
    Other,
}

impl Printer<'_> {
    /// `f(direct) WITHIN GROUP (ORDER BY keys)`, then FILTER (`f` has a
    /// WITHIN GROUP clause).
    pub(super) fn ordered_set_call(&mut self, f: &sqlparser::ast::Function, name: &str) {
        let which = match name {
            "percentile_cont" => Aggregate::PercentileCont,
            "percentile_disc" => Aggregate::PercentileDisc,
            "mode" => Aggregate::Mode,
            "rank" | "dense_rank" | "percent_rank" | "cume_dist" => Aggregate::Hypothetical,
            _ => Aggregate::Other,
        };
        let direct: Vec<&Expr> = match &f.args {
            FunctionArguments::List(list) => (list.args.iter())
                .filter_map(|a| match a {
                    FunctionArg::Unnamed(FunctionArgExpr::Expr(e)) => Some(e),
                    _ => None,
                })
                .collect(),
            _ => Vec::new(),
        };
        let keys: Vec<&Expr> = f.within_group.iter().map(|o| &o.expr).collect();
        // The type each direct argument and each key is coerced to.
        let mut direct_types: Vec<Option<SqlType>> = vec![None; direct.len()];
        let mut key_types: Vec<Option<SqlType>> = vec![None; keys.len()];
        match which {
            Aggregate::PercentileCont | Aggregate::PercentileDisc => {
                for (e, t) in direct.iter().zip(direct_types.iter_mut()) {
                    let array = matches!(e, Expr::Array(_))
                        || matches!(self.type_of(e), Some(SqlType::Array(_)));
                    *t = match array {
                        true => SqlType::Float8.array_of(),
                        false => Some(SqlType::Float8),
                    };
                }
                if which == Aggregate::PercentileCont {
                    for (k, t) in keys.iter().zip(key_types.iter_mut()) {
                        *t = match self.type_of(k) {
                            Some(SqlType::Interval(_)) | None => None,
                            Some(_) => Some(SqlType::Float8),
                        };
                    }
                }
            }
            Aggregate::Hypothetical => {
                for (i, (d, k)) in direct.iter().zip(&keys).enumerate() {
                    let common = self.common_type(d, k);
                    direct_types[i] = common;
                    key_types[i] = common;
                }
            }
            Aggregate::Mode | Aggregate::Other => {}
        }
        self.out.push_str(&function_name(name));
        self.out.push('(');
        for (i, (e, ty)) in direct.iter().zip(&direct_types).enumerate() {
            if i > 0 {
                self.out.push_str(", ");
            }
            match ty {
                Some(ty) => self.coerced(e, *ty),
                None => self.expr(e, Parent::Free),
            }
        }
        self.out.push_str(") WITHIN GROUP (ORDER BY ");
        for (i, (o, ty)) in f.within_group.iter().zip(&key_types).enumerate() {
            if i > 0 {
                self.out.push_str(", ");
            }
            match ty {
                // (A cast is a function call: parenthesized in both forms.)
                Some(ty) if !self.has_type(&o.expr, *ty) => {
                    self.out.push('(');
                    self.coerced(&o.expr, *ty);
                    self.out.push(')');
                }
                _ => self.sort_group_expr(&o.expr),
            }
            self.out.push_str(super::windows::sort_words(
                o.options.asc,
                o.options.nulls_first,
            ));
        }
        self.out.push(')');
        if let Some(filter) = &f.filter {
            self.out.push_str(" FILTER (WHERE ");
            self.expr(filter, Parent::Free);
            self.out.push(')');
        }
    }

    /// Whether `e` is of type `ty` already (a literal in quotes is not:
    /// it is untyped).
    fn has_type(&self, e: &Expr, ty: SqlType) -> bool {
        !is_string(e) && self.type_of(e).is_some_and(|t| t.oid() == ty.oid())
    }

    /// `e` as coerced to `ty`: as it is when of that type (or of a type
    /// not known), a literal as a constant of it, else cast.
    pub(super) fn coerced(&mut self, e: &Expr, ty: SqlType) {
        if self.has_type(e, ty) {
            return self.expr(e, Parent::Free);
        }
        if let Some(literal) = constant_of(e) {
            let text = cast_literal(literal, ty, self.form.pretty);
            return self.out.push_str(&text);
        }
        if self.type_of(e).is_none() && !matches!(e, Expr::Array(_)) {
            return self.expr(e, Parent::Free);
        }
        self.own_open();
        self.expr(e, Parent::Tight);
        self.own_close();
        self.out.push_str("::");
        self.out.push_str(&crate::catalog_functions::type_name(
            ty.oid() as i64,
            ty.typmod(),
        ));
    }

    /// The common type of a hypothetical-set aggregate's direct argument
    /// and its sort key: an untyped literal takes the other's type, of
    /// two numbers the wider wins; `None` when not known.
    fn common_type(&self, direct: &Expr, key: &Expr) -> Option<SqlType> {
        let of = |e: &Expr| match is_string(e) {
            true => None,
            false => self.type_of(e).map(|t| match t {
                SqlType::Numeric(_) => SqlType::Numeric(None),
                t => t,
            }),
        };
        match (of(direct), of(key)) {
            (Some(d), Some(k)) if d == k => Some(d),
            (Some(d), Some(k)) if numeric_rank(d) > 0 && numeric_rank(k) > 0 => {
                Some(if numeric_rank(d) > numeric_rank(k) {
                    d
                } else {
                    k
                })
            }
            (Some(_), Some(_)) => None,
            (None, Some(k)) if is_string(direct) => Some(k),
            (Some(d), None) if is_string(key) => Some(d),
            (None, None) if is_string(direct) && is_string(key) => Some(SqlType::Text),
            _ => None,
        }
    }
}

/// The order of the numeric types in PostgreSQL's implicit casts (0: not
/// a number).
fn numeric_rank(t: SqlType) -> u8 {
    match t {
        SqlType::Int2 => 1,
        SqlType::Int4 => 2,
        SqlType::Int8 => 3,
        SqlType::Numeric(_) => 4,
        SqlType::Float4 => 5,
        SqlType::Float8 => 6,
        _ => 0,
    }
}
