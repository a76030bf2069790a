//! PostgreSQL 15's built-in range types (`int4range`, `int8range`,
//! `numrange`, `daterange`, `tsrange`, `tstzrange`): the value, the one
//! constructor every range passes through ([`Range::new`], PostgreSQL's
//! `make_range`: bound order check, then canonical form), the order of
//! bounds and of ranges (PostgreSQL's `range_cmp_bounds` and `range_cmp`),
//! and the set operations the SQL operators use. Text input and output
//! are `range_text.rs`; the stored form is `row_format.rs`'s, the key
//! form `key.rs`'s, the binary wire form folio-sql's `types.rs`.
//!
//! Invariants of a [`Range`] made by [`Range::new`] (every one is):
//! 1. an infinite bound is exclusive;
//! 2. lower <= upper as values, and equal values only with both bounds
//!    inclusive (anything else is the empty range, `bounds == None`);
//! 3. a discrete range (int4, int8, date) is canonical: a finite lower
//!    bound inclusive, a finite upper bound exclusive (`[1,5)`).
//!
//! So two equal ranges have equal bounds and flags, and the order of
//! [`Range::range_cmp`] is PostgreSQL's btree order: the empty range first,
//! then by lower bound, then by upper bound.

use crate::error::RowError;
use crate::types::SqlType;
use crate::value::Value;
use std::cmp::Ordering;

/// Which built-in range type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RangeKind {
    Int4,
    Int8,
    Num,
    Date,
    Ts,
    Tstz,
}

impl RangeKind {
    /// Every built-in range type, in PostgreSQL's oid order.
    pub const ALL: [RangeKind; 6] = [
        RangeKind::Int4,
        RangeKind::Num,
        RangeKind::Ts,
        RangeKind::Tstz,
        RangeKind::Date,
        RangeKind::Int8,
    ];

    /// The type of its bounds (PostgreSQL's subtype).
    pub fn element(self) -> SqlType {
        match self {
            RangeKind::Int4 => SqlType::Int4,
            RangeKind::Int8 => SqlType::Int8,
            RangeKind::Num => SqlType::Numeric(None),
            RangeKind::Date => SqlType::Date,
            RangeKind::Ts => SqlType::Timestamp(None),
            RangeKind::Tstz => SqlType::TimestampTz(None),
        }
    }

    /// Its name (also its constructor's).
    pub fn name(self) -> &'static str {
        match self {
            RangeKind::Int4 => "int4range",
            RangeKind::Int8 => "int8range",
            RangeKind::Num => "numrange",
            RangeKind::Date => "daterange",
            RangeKind::Ts => "tsrange",
            RangeKind::Tstz => "tstzrange",
        }
    }

    /// The range type named `name`.
    pub fn of_name(name: &str) -> Option<RangeKind> {
        RangeKind::ALL.into_iter().find(|k| k.name() == name)
    }

    /// PostgreSQL's type oid.
    pub fn oid(self) -> u32 {
        match self {
            RangeKind::Int4 => 3904,
            RangeKind::Num => 3906,
            RangeKind::Ts => 3908,
            RangeKind::Tstz => 3910,
            RangeKind::Date => 3912,
            RangeKind::Int8 => 3926,
        }
    }

    /// The oid of its array type.
    pub fn array_oid(self) -> u32 {
        self.oid() + 1
    }

    /// Whether the type is discrete (has a canonical form): a bound's
    /// next value is the element plus one.
    pub fn is_discrete(self) -> bool {
        matches!(self, RangeKind::Int4 | RangeKind::Int8 | RangeKind::Date)
    }
}

/// One bound of a range: its value (`None`: infinite) and whether the
/// value is in the range.
#[derive(Debug, Clone, PartialEq)]
pub struct Bound {
    pub value: Option<Value>,
    pub inclusive: bool,
}

impl Bound {
    /// A finite bound.
    pub fn at(value: Value, inclusive: bool) -> Bound {
        Bound {
            value: Some(value),
            inclusive,
        }
    }

    /// An infinite bound.
    pub const INFINITE: Bound = Bound {
        value: None,
        inclusive: false,
    };
}

/// A range value. `bounds` is `None` for the empty range.
#[derive(Debug, Clone, PartialEq)]
pub struct Range {
    pub kind: RangeKind,
    pub bounds: Option<(Bound, Bound)>,
}

/// Which side a bound is on, for comparing bounds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Side {
    Lower,
    Upper,
}

/// Where a bound sits relative to its value, PostgreSQL's
/// `range_cmp_bounds` as a number: an exclusive lower bound is just after
/// its value (+1), an exclusive upper bound just before (-1), an
/// inclusive one at it (0); an infinite lower bound is below every value,
/// an infinite upper bound above.
fn cmp_bounds(a: &Bound, a_side: Side, b: &Bound, b_side: Side) -> Ordering {
    let infinity = |side: Side| match side {
        Side::Lower => Ordering::Less,
        Side::Upper => Ordering::Greater,
    };
    let offset = |bound: &Bound, side: Side| match (bound.inclusive, side) {
        (true, _) => 0,
        (false, Side::Lower) => 1,
        (false, Side::Upper) => -1,
    };
    match (&a.value, &b.value) {
        (None, None) => infinity(a_side).cmp(&infinity(b_side)),
        (None, Some(_)) => infinity(a_side),
        (Some(_), None) => infinity(b_side).reverse(),
        (Some(x), Some(y)) => element_cmp(x, y).then(offset(a, a_side).cmp(&offset(b, b_side))),
    }
}

/// The order of two bound values of one range type.
fn element_cmp(x: &Value, y: &Value) -> Ordering {
    x.sql_cmp(y)
        .expect("the bounds of one range type are of one element type")
}

/// Whether a discrete range's bound at `value` takes the canonical form:
/// not an infinite date, which keeps its inclusivity (PostgreSQL's
/// `daterange_canonical`: `[-infinity,infinity]` stays so).
fn canonicalized(value: &Value) -> bool {
    match value {
        Value::Date(d) => crate::infinite_datetime::Infinity::of_date(*d).is_none(),
        _ => true,
    }
}

/// The element after `value` in a discrete range type (canonical form),
/// with the element type's overflow error.
fn next(value: &Value) -> Result<Value, RowError> {
    debug_assert!(canonicalized(value), "an infinite date has no next");
    Ok(match value {
        Value::Int4(x) => Value::Int4(
            x.checked_add(1)
                .ok_or_else(|| RowError::IntegerOutOfRange("integer".into()))?,
        ),
        Value::Int8(x) => Value::Int8(
            x.checked_add(1)
                .ok_or_else(|| RowError::IntegerOutOfRange("bigint".into()))?,
        ),
        Value::Date(d) if !crate::calendar::is_valid_date(i64::from(*d) + 1) => {
            return Err(RowError::DateOutOfRange);
        }
        Value::Date(d) => Value::Date(d + 1),
        other => unreachable!("no canonical form for a range of {}", other.type_name()),
    })
}

impl Range {
    /// The empty range of a type.
    pub fn empty(kind: RangeKind) -> Range {
        Range { kind, bounds: None }
    }

    /// The range from `lower` to `upper` (PostgreSQL's `make_range`): a
    /// lower bound above the upper one is 22000; equal bounds not both
    /// inclusive are the empty range; a discrete type's range is made
    /// canonical (`[a,b)`), which may make it empty (`(1,2)`). The one
    /// owner of the module's invariants.
    pub fn new(kind: RangeKind, mut lower: Bound, mut upper: Bound) -> Result<Range, RowError> {
        for bound in [&mut lower, &mut upper] {
            if bound.value.is_none() {
                bound.inclusive = false;
            }
        }
        if let (Some(l), Some(u)) = (&lower.value, &upper.value) {
            match element_cmp(l, u) {
                Ordering::Greater => {
                    return Err(RowError::DataException(
                        "range lower bound must be less than or equal to range upper bound".into(),
                    ));
                }
                Ordering::Equal if !(lower.inclusive && upper.inclusive) => {
                    return Ok(Range::empty(kind));
                }
                _ => {}
            }
        }
        if kind.is_discrete() {
            if let (Some(l), false) = (&lower.value, lower.inclusive)
                && canonicalized(l)
            {
                lower = Bound::at(next(l)?, true);
            }
            if let (Some(u), true) = (&upper.value, upper.inclusive)
                && canonicalized(u)
            {
                upper = Bound::at(next(u)?, false);
            }
            if let (Some(l), Some(u)) = (&lower.value, &upper.value)
                && element_cmp(l, u).is_eq()
            {
                return Ok(Range::empty(kind));
            }
        }
        Ok(Range {
            kind,
            bounds: Some((lower, upper)),
        })
    }

    pub fn is_empty(&self) -> bool {
        self.bounds.is_none()
    }

    /// Its lower bound (`None` when empty).
    pub fn lower(&self) -> Option<&Bound> {
        self.bounds.as_ref().map(|(l, _)| l)
    }

    /// Its upper bound (`None` when empty).
    pub fn upper(&self) -> Option<&Bound> {
        self.bounds.as_ref().map(|(_, u)| u)
    }

    /// PostgreSQL's `range_cmp`, the btree order of ranges of one type:
    /// the empty range first, then by lower bound, then by upper bound.
    pub fn range_cmp(&self, other: &Range) -> Ordering {
        match (&self.bounds, &other.bounds) {
            (None, None) => Ordering::Equal,
            (None, Some(_)) => Ordering::Less,
            (Some(_), None) => Ordering::Greater,
            (Some((l1, u1)), Some((l2, u2))) => cmp_bounds(l1, Side::Lower, l2, Side::Lower)
                .then_with(|| cmp_bounds(u1, Side::Upper, u2, Side::Upper)),
        }
    }

    /// `@>` of an element: whether `value` is in the range.
    pub fn contains_element(&self, value: &Value) -> bool {
        let Some((lower, upper)) = &self.bounds else {
            return false;
        };
        let point = Bound::at(value.clone(), true);
        cmp_bounds(lower, Side::Lower, &point, Side::Lower).is_le()
            && cmp_bounds(upper, Side::Upper, &point, Side::Upper).is_ge()
    }

    /// `@>` of a range: whether every element of `other` is in this one
    /// (the empty range is in every range).
    pub fn contains(&self, other: &Range) -> bool {
        match (&self.bounds, &other.bounds) {
            (_, None) => true,
            (None, Some(_)) => false,
            (Some((l1, u1)), Some((l2, u2))) => {
                cmp_bounds(l1, Side::Lower, l2, Side::Lower).is_le()
                    && cmp_bounds(u1, Side::Upper, u2, Side::Upper).is_ge()
            }
        }
    }

    /// `&&`: whether the ranges share an element.
    pub fn overlaps(&self, other: &Range) -> bool {
        let (Some((l1, u1)), Some((l2, u2))) = (&self.bounds, &other.bounds) else {
            return false;
        };
        let starts_within = |l: &Bound, lo: &Bound, hi: &Bound| {
            cmp_bounds(l, Side::Lower, lo, Side::Lower).is_ge()
                && cmp_bounds(l, Side::Lower, hi, Side::Upper).is_le()
        };
        starts_within(l1, l2, u2) || starts_within(l2, l1, u1)
    }

    /// `<<`: whether every element is below every element of `other`
    /// (false when either is empty).
    pub fn before(&self, other: &Range) -> bool {
        match (&self.bounds, &other.bounds) {
            (Some((_, u1)), Some((l2, _))) => cmp_bounds(u1, Side::Upper, l2, Side::Lower).is_lt(),
            _ => false,
        }
    }

    /// `&<`: whether the range does not extend to the right of `other`.
    pub fn not_extends_right(&self, other: &Range) -> bool {
        match (&self.bounds, &other.bounds) {
            (Some((_, u1)), Some((_, u2))) => cmp_bounds(u1, Side::Upper, u2, Side::Upper).is_le(),
            _ => false,
        }
    }

    /// `&>`: whether the range does not extend to the left of `other`.
    pub fn not_extends_left(&self, other: &Range) -> bool {
        match (&self.bounds, &other.bounds) {
            (Some((l1, _)), Some((l2, _))) => cmp_bounds(l1, Side::Lower, l2, Side::Lower).is_ge(),
            _ => false,
        }
    }

    /// `-|-`: whether the ranges touch without sharing an element.
    pub fn adjacent(&self, other: &Range) -> Result<bool, RowError> {
        let (Some((l1, u1)), Some((l2, u2))) = (&self.bounds, &other.bounds) else {
            return Ok(false);
        };
        Ok(self.bounds_adjacent(u1, l2)? || self.bounds_adjacent(u2, l1)?)
    }

    /// Whether an upper bound meets a lower bound with nothing between
    /// (PostgreSQL's `bounds_adjacent`): the same value, one side
    /// inclusive; or, in a discrete type, no element between the values.
    fn bounds_adjacent(&self, upper: &Bound, lower: &Bound) -> Result<bool, RowError> {
        let (Some(u), Some(l)) = (&upper.value, &lower.value) else {
            return Ok(false);
        };
        Ok(match element_cmp(u, l) {
            Ordering::Equal => upper.inclusive != lower.inclusive,
            Ordering::Greater => false,
            Ordering::Less if !self.kind.is_discrete() => false,
            Ordering::Less => Range::new(
                self.kind,
                Bound::at(u.clone(), !upper.inclusive),
                Bound::at(l.clone(), !lower.inclusive),
            )?
            .is_empty(),
        })
    }

    /// `+` (`strict`) and `range_merge`: the smallest range holding both;
    /// with `strict`, ranges that neither overlap nor touch are 22000.
    pub fn union(&self, other: &Range, strict: bool) -> Result<Range, RowError> {
        let (Some((l1, u1)), Some((l2, u2))) = (&self.bounds, &other.bounds) else {
            return Ok(if self.is_empty() { other } else { self }.clone());
        };
        if strict && !self.overlaps(other) && !self.adjacent(other)? {
            return Err(RowError::DataException(
                "result of range union would not be contiguous".into(),
            ));
        }
        let lower = std::cmp::min_by(l1, l2, |a, b| cmp_bounds(a, Side::Lower, b, Side::Lower));
        let upper = std::cmp::max_by(u1, u2, |a, b| cmp_bounds(a, Side::Upper, b, Side::Upper));
        Range::new(self.kind, lower.clone(), upper.clone())
    }

    /// `*`: the elements in both ranges.
    pub fn intersection(&self, other: &Range) -> Result<Range, RowError> {
        let (Some((l1, u1)), Some((l2, u2))) = (&self.bounds, &other.bounds) else {
            return Ok(Range::empty(self.kind));
        };
        if !self.overlaps(other) {
            return Ok(Range::empty(self.kind));
        }
        let lower = std::cmp::max_by(l1, l2, |a, b| cmp_bounds(a, Side::Lower, b, Side::Lower));
        let upper = std::cmp::min_by(u1, u2, |a, b| cmp_bounds(a, Side::Upper, b, Side::Upper));
        Range::new(self.kind, lower.clone(), upper.clone())
    }

    /// `-`: the elements of this range not in `other`; a result in two
    /// pieces is 22000 (PostgreSQL's `range_minus`).
    pub fn difference(&self, other: &Range) -> Result<Range, RowError> {
        let (below, above) = self.split_by(other)?;
        match (below.is_empty(), above.is_empty()) {
            (false, false) => Err(RowError::DataException(
                "result of range difference would not be contiguous".into(),
            )),
            (true, _) => Ok(above),
            (false, true) => Ok(below),
        }
    }

    /// The elements of this range below every element of `other` and
    /// those above every one: the two pieces `other` leaves (either may
    /// be empty; an empty `other` leaves the range whole, below). The one
    /// owner of subtraction, for `-` of ranges and of multiranges.
    pub fn split_by(&self, other: &Range) -> Result<(Range, Range), RowError> {
        let (Some((l1, u1)), Some((l2, u2))) = (&self.bounds, &other.bounds) else {
            return Ok((self.clone(), Range::empty(self.kind)));
        };
        // A bound of `other`, flipped, ends the piece below it or starts
        // the piece above it.
        let flipped = |b: &Bound| Bound {
            value: b.value.clone(),
            inclusive: !b.inclusive,
        };
        let below = if l2.value.is_some() && cmp_bounds(l1, Side::Lower, l2, Side::Lower).is_lt() {
            let end = flipped(l2);
            let upper =
                std::cmp::min_by(u1, &end, |a, b| cmp_bounds(a, Side::Upper, b, Side::Upper));
            Range::new(self.kind, l1.clone(), upper.clone())?
        } else {
            Range::empty(self.kind)
        };
        let above = if u2.value.is_some() && cmp_bounds(u1, Side::Upper, u2, Side::Upper).is_gt() {
            let start = flipped(u2);
            let lower = std::cmp::max_by(l1, &start, |a, b| {
                cmp_bounds(a, Side::Lower, b, Side::Lower)
            });
            Range::new(self.kind, lower.clone(), u1.clone())?
        } else {
            Range::empty(self.kind)
        };
        Ok((below, above))
    }

    /// The range from this one's lower bound to `last`'s upper bound
    /// (`last` not below this one; both non-empty): a multirange's span.
    pub fn spanning_to(&self, last: &Range) -> Range {
        match (&self.bounds, &last.bounds) {
            (Some((lower, _)), Some((_, upper))) => Range {
                kind: self.kind,
                bounds: Some((lower.clone(), upper.clone())),
            },
            _ => unreachable!("the span of non-empty ranges"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn int4(lower: Option<i32>, upper: Option<i32>, flags: &str) -> Range {
        let bound = |v: Option<i32>, inc: bool| Bound {
            value: v.map(Value::Int4),
            inclusive: inc,
        };
        let f = flags.as_bytes();
        Range::new(
            RangeKind::Int4,
            bound(lower, f[0] == b'['),
            bound(upper, f[1] == b']'),
        )
        .unwrap()
    }

    // Proves the constructor's invariants: canonical form of a discrete
    // type, empty ranges from equal bounds, 22000 for reversed bounds.
    #[test]
    fn ranges_are_made_canonical() {
        assert_eq!(int4(Some(1), Some(5), "(]"), int4(Some(2), Some(6), "[)"));
        assert!(int4(Some(1), Some(2), "()").is_empty());
        assert!(int4(Some(3), Some(3), "[)").is_empty());
        assert!(!int4(Some(3), Some(3), "[]").is_empty());
        let reversed = Range::new(
            RangeKind::Int4,
            Bound::at(Value::Int4(2), true),
            Bound::at(Value::Int4(1), true),
        );
        assert_eq!(reversed.unwrap_err().sqlstate(), "22000");
        let inf = int4(None, None, "[]");
        assert!(!inf.lower().unwrap().inclusive && !inf.upper().unwrap().inclusive);
    }

    // Proves the order and the set operations on a few ranges whose
    // answers PostgreSQL 15 gives.
    #[test]
    fn ranges_order_and_combine_as_postgresql() {
        let empty = Range::empty(RangeKind::Int4);
        let a = int4(Some(1), Some(5), "[)");
        let b = int4(Some(3), Some(8), "[)");
        let c = int4(Some(5), Some(9), "[)");
        assert!(empty.range_cmp(&a).is_lt());
        assert!(int4(None, Some(1), "()").range_cmp(&a).is_lt());
        assert!(a.range_cmp(&int4(Some(1), None, "[)")).is_lt());
        assert!(a.overlaps(&b) && !a.overlaps(&c));
        assert!(a.adjacent(&c).unwrap() && !a.adjacent(&b).unwrap());
        assert!(a.before(&c) && !a.before(&b));
        assert_eq!(a.union(&b, true).unwrap(), int4(Some(1), Some(8), "[)"));
        assert_eq!(
            a.union(&int4(Some(7), Some(9), "[)"), true)
                .unwrap_err()
                .sqlstate(),
            "22000"
        );
        assert_eq!(a.intersection(&b).unwrap(), int4(Some(3), Some(5), "[)"));
        assert_eq!(a.difference(&b).unwrap(), int4(Some(1), Some(3), "[)"));
        assert_eq!(
            int4(Some(1), Some(9), "[)")
                .difference(&b)
                .unwrap_err()
                .sqlstate(),
            "22000"
        );
        assert!(a.contains_element(&Value::Int4(4)) && !a.contains_element(&Value::Int4(5)));
        assert!(a.contains(&empty) && !empty.contains(&a));
    }
}
