//! Hypothetical-set aggregates: `rank(args) WITHIN GROUP (ORDER BY
//! keys)`, `dense_rank`, `percent_rank` and `cume_dist`, as PostgreSQL 15
//! has them: where a hypothetical row made of the direct arguments would
//! stand among the group's rows sorted by the WITHIN GROUP's keys.
//!
//! There is one direct argument per key (else 42883 with PostgreSQL's
//! hint); they are evaluated once per group over the aggregate row, so
//! they read group keys only (`ordered_set::bind_direct`, the rule of all
//! ordered-set aggregates). Each direct argument and its key take their
//! common type (`set_types::common`: `WITHIN GROUP types text and integer
//! cannot be matched`), and their explicit collations must agree (42P21).
//! No row is skipped for a NULL: a NULL sorts where
//! its key's NULLS FIRST/LAST puts it, in the hypothetical row too.
//!
//! The keys are the call's ORDER BY, so `aggregate.rs` keeps a group's
//! rows (those its FILTER passes) and sorts them (`query::row_order`, the
//! one owner of row order); [`result`] finds the hypothetical row's place
//! in them:
//!
//! - `rank`: 1 + the rows sorting before it (bigint);
//! - `dense_rank`: 1 + the distinct key values sorting before it (bigint);
//! - `percent_rank`: (rank - 1) / rows, 0 over no rows (double precision);
//! - `cume_dist`: (rows before it or its peers + 1) / (rows + 1) (double
//!   precision).
//!
//! Without WITHIN GROUP the names are the window functions'
//! (`window.rs`).

use crate::aggregate::{Call, Kind};
use crate::error::SqlError;
use crate::names;
use crate::plan::SortKey;
use crate::scalar::{self, Columns, Scalar};
use crate::set_types::{self, Input};
use folio_row::{SqlType, Value};
use sqlparser::ast::Function;
use std::cmp::Ordering;

/// A hypothetical-set aggregate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Hypothetical {
    Rank,
    DenseRank,
    PercentRank,
    CumeDist,
}

impl Hypothetical {
    pub fn of(name: &str) -> Option<Hypothetical> {
        Some(match name {
            "rank" => Hypothetical::Rank,
            "dense_rank" => Hypothetical::DenseRank,
            "percent_rank" => Hypothetical::PercentRank,
            "cume_dist" => Hypothetical::CumeDist,
            _ => return None,
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            Hypothetical::Rank => "rank",
            Hypothetical::DenseRank => "dense_rank",
            Hypothetical::PercentRank => "percent_rank",
            Hypothetical::CumeDist => "cume_dist",
        }
    }

    pub fn ty(self) -> SqlType {
        match self {
            Hypothetical::Rank | Hypothetical::DenseRank => SqlType::Int8,
            Hypothetical::PercentRank | Hypothetical::CumeDist => SqlType::Float8,
        }
    }
}

/// The hypothetical-set aggregate call `f` is, if it is one: one of their
/// names with a WITHIN GROUP.
pub fn of_call(f: &Function) -> Option<Hypothetical> {
    match f.within_group.is_empty() {
        true => None,
        false => Hypothetical::of(&names::function(&f.name)),
    }
}

/// Binds the call `f` of `which`: its keys over `source`, its direct
/// arguments over the aggregate row (`grouped`, whose first `keys`
/// columns are the group keys). The caller binds its FILTER.
pub fn bind<G: Columns + ?Sized, C: Columns + ?Sized>(
    which: Hypothetical,
    f: &Function,
    grouped: &G,
    keys: usize,
    source: &C,
) -> Result<Call, SqlError> {
    let direct_exprs = crate::ordered_set::direct_arguments(f)?;
    let direct = crate::ordered_set::bind_direct(&direct_exprs, grouped, keys)?;
    let ordered = (f.within_group.iter())
        .map(|o| scalar::bind(&o.expr, source))
        .collect::<Result<Vec<_>, _>>()?;
    if direct.len() != ordered.len() {
        let types = [
            scalar::argument_types(&direct, grouped),
            scalar::argument_types(&ordered, source),
        ];
        let types: Vec<String> = types.into_iter().filter(|t| !t.is_empty()).collect();
        let name = which.name();
        return Err(crate::functions::no_match(format!(
            "function {name}({}) does not exist",
            types.join(", ")
        ))
        .with_hint(format!(
            "To use the hypothetical-set aggregate {name}, the number of hypothetical direct \
             arguments (here {}) must match the number of ordering columns (here {}).",
            direct.len(),
            ordered.len()
        )));
    }
    // Each pair in its common type.
    let mut order = Vec::with_capacity(ordered.len());
    let mut hypothetical = Vec::with_capacity(direct.len());
    let pairs = ordered.into_iter().zip(direct).zip(&f.within_group);
    for (i, ((key, value), item)) in pairs.enumerate() {
        crate::collations::common(&[direct_exprs[i], &item.expr])?;
        let (key_type, value_type) = (key.ty_in(source), value.ty_in(grouped));
        let ty = set_types::common(
            "WITHIN GROUP",
            &[
                Input::of(&item.expr, key_type),
                Input::of(direct_exprs[i], value_type),
            ],
        )?
        .ty;
        let cast = |s: Scalar, from: SqlType| match from == ty {
            true => s,
            false => Scalar::Cast(Box::new(s), ty),
        };
        order.push((cast(key, key_type), SortKey::of(i, &item.options)));
        hypothetical.push(cast(value, value_type));
    }
    Ok(Call {
        kind: Kind::Hypothetical(which),
        arg: None,
        delimiter: None,
        distinct: false,
        ty: which.ty(),
        order,
        filter: None,
        direct: hypothetical,
        user: None,
    })
}

/// The result of `which` for the hypothetical row `row` (its values in
/// the keys' order) among a group's `rows` (each a row of key values
/// first), sorted by `keys`.
pub fn result(
    which: Hypothetical,
    row: &[Value],
    rows: &[Vec<Value>],
    keys: &[SortKey],
) -> Result<Value, SqlError> {
    let mut failed = None;
    let mut order = |r: &[Value]| crate::query::row_order(keys, r, row, &mut failed);
    let before = rows.partition_point(|r| order(r) == Ordering::Less);
    let through = rows.partition_point(|r| order(r) != Ordering::Greater);
    let distinct_before = match before {
        0 => 0,
        n => {
            1 + (rows[..n].windows(2))
                .filter(|w| crate::query::row_order(keys, &w[0], &w[1], &mut failed).is_ne())
                .count()
        }
    };
    if let Some(e) = failed {
        return Err(e);
    }
    let count = rows.len() as f64;
    Ok(match which {
        Hypothetical::Rank => Value::Int8(before as i64 + 1),
        Hypothetical::DenseRank => Value::Int8(distinct_before as i64 + 1),
        Hypothetical::PercentRank if rows.is_empty() => Value::Float8(0.0),
        Hypothetical::PercentRank => Value::Float8(before as f64 / count),
        Hypothetical::CumeDist => Value::Float8((through as f64 + 1.0) / (count + 1.0)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows(values: &[i32]) -> Vec<Vec<Value>> {
        values.iter().map(|&v| vec![Value::Int4(v)]).collect()
    }

    // Proves each result against PostgreSQL 15's answers over
    // (1,1,2,2,3,3,4) for the hypothetical 3, ascending and descending.
    #[test]
    fn places_the_hypothetical_row() {
        let asc = [SortKey {
            column: 0,
            descending: false,
            nulls_first: false,
        }];
        let group = rows(&[1, 1, 2, 2, 3, 3, 4]);
        let three = [Value::Int4(3)];
        let of = |which| result(which, &three, &group, &asc).unwrap();
        assert_eq!(of(Hypothetical::Rank), Value::Int8(5));
        assert_eq!(of(Hypothetical::DenseRank), Value::Int8(3));
        assert_eq!(of(Hypothetical::CumeDist), Value::Float8(0.875));
        assert_eq!(of(Hypothetical::PercentRank), Value::Float8(4.0 / 7.0));
        let desc = [SortKey {
            column: 0,
            descending: true,
            nulls_first: true,
        }];
        let group = rows(&[4, 3, 3, 2, 2, 1, 1]);
        assert_eq!(
            result(Hypothetical::Rank, &three, &group, &desc).unwrap(),
            Value::Int8(2)
        );
        let none: Vec<Vec<Value>> = Vec::new();
        assert_eq!(
            result(Hypothetical::PercentRank, &three, &none, &asc).unwrap(),
            Value::Float8(0.0)
        );
        assert_eq!(
            result(Hypothetical::CumeDist, &three, &none, &asc).unwrap(),
            Value::Float8(1.0)
        );
    }
}
