//! PostgreSQL 15's multirange types (`int4multirange`, ..., one per
//! built-in range type): a set of ranges of one range type, kept as its
//! disjoint pieces. The value, the one constructor every multirange
//! passes through ([`Multirange::new`], PostgreSQL's
//! `multirange_canonicalize`), the order of multiranges (PostgreSQL's
//! `multirange_cmp`) and the set operations the SQL operators use. The
//! rules of single ranges (bound order, canonical form, union,
//! intersection, adjacency) are `range.rs`'s: a multirange only combines
//! them. Text input and output are `multirange_text.rs`; the stored form
//! is `row_format.rs`'s, the key form `key.rs`'s, the binary wire form
//! folio-sql's `types.rs`.
//!
//! Invariants of a [`Multirange`] made by [`Multirange::new`] (every one
//! is):
//! 1. every range is of the multirange's kind and not empty;
//! 2. the ranges are in range order, and no two overlap or touch
//!    (`-|-`): touching or overlapping ranges are merged.
//!
//! So equal multiranges have equal ranges, and the positional operators
//! (`<<`, `&<`, `-|-`, ...) are those of the span from the first range's
//! lower bound to the last range's upper bound, as in PostgreSQL.

use crate::error::RowError;
use crate::range::{Range, RangeKind};
use crate::value::Value;
use std::cmp::Ordering;

impl RangeKind {
    /// Its multirange type's name (also its constructor's).
    pub fn multirange_name(self) -> &'static str {
        match self {
            RangeKind::Int4 => "int4multirange",
            RangeKind::Int8 => "int8multirange",
            RangeKind::Num => "nummultirange",
            RangeKind::Date => "datemultirange",
            RangeKind::Ts => "tsmultirange",
            RangeKind::Tstz => "tstzmultirange",
        }
    }

    /// The range type whose multirange type is named `name`.
    pub fn of_multirange_name(name: &str) -> Option<RangeKind> {
        RangeKind::ALL
            .into_iter()
            .find(|k| k.multirange_name() == name)
    }

    /// PostgreSQL's oid of its multirange type (`pg_range.rngmultitypid`).
    pub fn multirange_oid(self) -> u32 {
        match self {
            RangeKind::Int4 => 4451,
            RangeKind::Num => 4532,
            RangeKind::Ts => 4533,
            RangeKind::Tstz => 4534,
            RangeKind::Date => 4535,
            RangeKind::Int8 => 4536,
        }
    }

    /// The oid of its multirange type's array type.
    pub fn multirange_array_oid(self) -> u32 {
        match self {
            RangeKind::Int4 => 6150,
            RangeKind::Num => 6151,
            RangeKind::Ts => 6152,
            RangeKind::Tstz => 6153,
            RangeKind::Date => 6155,
            RangeKind::Int8 => 6157,
        }
    }
}

/// A multirange value: its disjoint, ordered, non-empty ranges (none for
/// the empty multirange).
#[derive(Debug, Clone, PartialEq)]
pub struct Multirange {
    pub kind: RangeKind,
    ranges: Vec<Range>,
}

impl Multirange {
    /// The empty multirange of a type.
    pub fn empty(kind: RangeKind) -> Multirange {
        Multirange {
            kind,
            ranges: Vec::new(),
        }
    }

    /// The multirange of `ranges` (PostgreSQL's `make_multirange` and
    /// `multirange_canonicalize`): empty ranges dropped, the rest sorted
    /// and those that overlap or touch merged. The one owner of the
    /// module's invariants.
    pub fn new(kind: RangeKind, ranges: Vec<Range>) -> Result<Multirange, RowError> {
        debug_assert!(ranges.iter().all(|r| r.kind == kind));
        let mut sorted: Vec<Range> = ranges.into_iter().filter(|r| !r.is_empty()).collect();
        sorted.sort_by(Range::range_cmp);
        let mut merged: Vec<Range> = Vec::with_capacity(sorted.len());
        for range in sorted {
            match merged.last_mut() {
                Some(last) if last.overlaps(&range) || last.adjacent(&range)? => {
                    *last = last.union(&range, false)?;
                }
                _ => merged.push(range),
            }
        }
        Ok(Multirange {
            kind,
            ranges: merged,
        })
    }

    /// Its ranges, in order (`unnest`).
    pub fn ranges(&self) -> &[Range] {
        &self.ranges
    }

    pub fn is_empty(&self) -> bool {
        self.ranges.is_empty()
    }

    /// The smallest range holding it (`range_merge`, and the bounds
    /// `lower`, `upper`, `lower_inc`, ... read): empty for the empty
    /// multirange.
    pub fn span(&self) -> Range {
        match (self.ranges.first(), self.ranges.last()) {
            (Some(first), Some(last)) => first.spanning_to(last),
            _ => Range::empty(self.kind),
        }
    }

    /// PostgreSQL's `multirange_cmp`, the btree order: range by range,
    /// then the one with fewer ranges first (so the empty multirange is
    /// least).
    pub fn multirange_cmp(&self, other: &Multirange) -> Ordering {
        for (a, b) in self.ranges.iter().zip(&other.ranges) {
            match a.range_cmp(b) {
                Ordering::Equal => {}
                unequal => return unequal,
            }
        }
        self.ranges.len().cmp(&other.ranges.len())
    }

    /// `@>` of an element.
    pub fn contains_element(&self, value: &Value) -> bool {
        self.ranges.iter().any(|r| r.contains_element(value))
    }

    /// `@>` of a range: whether one of its ranges holds all of `range`
    /// (the empty range is in every multirange).
    pub fn contains_range(&self, range: &Range) -> bool {
        range.is_empty() || self.ranges.iter().any(|r| r.contains(range))
    }

    /// `@>` of a multirange: whether each of `other`'s ranges is in this.
    pub fn contains(&self, other: &Multirange) -> bool {
        other.ranges.iter().all(|r| self.contains_range(r))
    }

    /// `range @> multirange`: whether `range` holds all of this.
    pub fn is_within_range(&self, range: &Range) -> bool {
        self.is_empty() || range.contains(&self.span())
    }

    /// `&&` with a range.
    pub fn overlaps_range(&self, range: &Range) -> bool {
        self.ranges.iter().any(|r| r.overlaps(range))
    }

    /// `&&` with a multirange.
    pub fn overlaps(&self, other: &Multirange) -> bool {
        other.ranges.iter().any(|r| self.overlaps_range(r))
    }

    /// `+`: the elements in either.
    pub fn union(&self, other: &Multirange) -> Result<Multirange, RowError> {
        let all = self.ranges.iter().chain(&other.ranges).cloned().collect();
        Multirange::new(self.kind, all)
    }

    /// `*`: the elements in both.
    pub fn intersection(&self, other: &Multirange) -> Result<Multirange, RowError> {
        let mut pieces = Vec::new();
        for a in &self.ranges {
            for b in &other.ranges {
                if a.overlaps(b) {
                    pieces.push(a.intersection(b)?);
                }
            }
        }
        Multirange::new(self.kind, pieces)
    }

    /// `-`: the elements of this not in `other`, each range cut by the
    /// ranges of `other` it meets (`Range::split_by`).
    pub fn difference(&self, other: &Multirange) -> Result<Multirange, RowError> {
        let mut pieces = Vec::new();
        for range in &self.ranges {
            let mut rest = range.clone();
            for cut in &other.ranges {
                if rest.is_empty() {
                    break;
                }
                if rest.overlaps(cut) {
                    let (below, above) = rest.split_by(cut)?;
                    pieces.push(below);
                    rest = above;
                }
            }
            pieces.push(rest);
        }
        Multirange::new(self.kind, pieces)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::range::Bound;

    fn int4(lower: i32, upper: i32) -> Range {
        Range::new(
            RangeKind::Int4,
            Bound::at(Value::Int4(lower), true),
            Bound::at(Value::Int4(upper), false),
        )
        .unwrap()
    }

    fn multi(ranges: &[(i32, i32)]) -> Multirange {
        let ranges = ranges.iter().map(|&(l, u)| int4(l, u)).collect();
        Multirange::new(RangeKind::Int4, ranges).unwrap()
    }

    // Proves the constructor's invariants: empties dropped, sorted,
    // overlapping and touching ranges merged.
    #[test]
    fn multiranges_are_made_canonical() {
        let m = multi(&[(5, 6), (1, 2), (2, 3), (8, 8), (10, 12), (11, 15)]);
        assert_eq!(m.ranges(), &[int4(1, 3), int4(5, 6), int4(10, 15)]);
        assert!(multi(&[(3, 3)]).is_empty());
        assert_eq!(m.span(), int4(1, 15));
    }

    // Proves the order and the set operations on values PostgreSQL 15
    // answers.
    #[test]
    fn multiranges_order_and_combine_as_postgresql() {
        let empty = multi(&[]);
        let a = multi(&[(1, 5), (8, 10)]);
        let b = multi(&[(3, 9)]);
        assert!(empty.multirange_cmp(&a).is_lt());
        assert!(multi(&[(1, 5)]).multirange_cmp(&a).is_lt());
        assert!(a.multirange_cmp(&multi(&[(1, 6)])).is_lt());
        assert_eq!(a.union(&b).unwrap(), multi(&[(1, 10)]));
        assert_eq!(a.intersection(&b).unwrap(), multi(&[(3, 5), (8, 9)]));
        assert_eq!(a.difference(&b).unwrap(), multi(&[(1, 3), (9, 10)]));
        assert_eq!(
            multi(&[(1, 20)]).difference(&a).unwrap(),
            multi(&[(5, 8), (10, 20)])
        );
        assert!(a.contains_range(&int4(8, 9)) && !a.contains_range(&int4(4, 9)));
        assert!(a.contains(&multi(&[(2, 3), (8, 9)])) && a.contains(&empty));
        assert!(a.overlaps(&b) && !a.overlaps(&multi(&[(5, 8)])));
        assert!(a.contains_element(&Value::Int4(9)) && !a.contains_element(&Value::Int4(5)));
    }
}
