//! Array values: PostgreSQL's arrays of up to six dimensions, each with a
//! lower bound and a length, their elements in row-major order (the last
//! subscript varies fastest).
//!
//! Invariants (checked by [`Array::check_invariants`]):
//! 1. `shape` is `None` for the common shapes, an empty array (no
//!    dimension) and a one-dimensional array of lower bound 1; a value
//!    of one of these shapes never holds `Some`, so the derived equality
//!    (elements, then shape) is PostgreSQL's `array_eq`.
//! 2. Otherwise the product of the dimensions' lengths is the element
//!    count (never 0: an array without elements has no dimension),
//!    there are 1 to [`MAX_DIMS`] dimensions, and each dimension's
//!    `lower + len` (one past its upper bound) fits an `i32`.
//!
//! [`Array::new`] is the one place a shape is checked: every array of a
//! given shape is made through it (text input, `ARRAY[...]` of arrays,
//! `array_agg` of arrays, assignment to subscripts, stored rows).

use crate::error::RowError;
use crate::value::Value;
use std::cmp::Ordering;

/// Most dimensions (PostgreSQL's `MAXDIM`).
pub const MAX_DIMS: usize = 6;

/// Most elements (PostgreSQL's `MaxArraySize`: `MaxAllocSize` / 8).
pub const MAX_ITEMS: usize = 0x3fff_ffff / 8;

/// One dimension: its lower bound and its length.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Dim {
    pub lower: i32,
    pub len: u32,
}

impl Dim {
    /// The upper bound (`lower + len - 1`; fits an `i32` by invariant 2).
    pub fn upper(self) -> i32 {
        (i64::from(self.lower) + i64::from(self.len) - 1) as i32
    }
}

/// An array value (module comment).
#[derive(Debug, Clone, PartialEq)]
pub struct Array(Repr);

/// An array's two forms: a plain one (empty, or one dimension of lower
/// bound 1: the common case) is its `Vec` alone, so `Value` stays 32
/// bytes; a shaped one keeps its elements and dimensions behind one
/// pointer.
#[derive(Debug, Clone, PartialEq)]
enum Repr {
    Plain(Vec<Value>),
    Shaped(Box<(Vec<Value>, Box<[Dim]>)>),
}

impl Default for Array {
    fn default() -> Array {
        Array(Repr::Plain(Vec::new()))
    }
}

impl Array {
    /// A one-dimensional array of lower bound 1 (empty when `items` is).
    pub fn from_items(items: Vec<Value>) -> Array {
        Array(Repr::Plain(items))
    }

    /// The elements (private: [`Array::items`] lends a slice).
    fn vec(&self) -> &Vec<Value> {
        match &self.0 {
            Repr::Plain(items) => items,
            Repr::Shaped(shaped) => &shaped.0,
        }
    }

    /// The dimensions of a shaped array.
    fn shape(&self) -> Option<&[Dim]> {
        match &self.0 {
            Repr::Plain(_) => None,
            Repr::Shaped(shaped) => Some(&shaped.1),
        }
    }

    /// The elements and the dimensions of a shaped array.
    fn split(self) -> (Vec<Value>, Option<Box<[Dim]>>) {
        match self.0 {
            Repr::Plain(items) => (items, None),
            Repr::Shaped(shaped) => {
                let (items, dims) = *shaped;
                (items, Some(dims))
            }
        }
    }

    /// The array of `items` and `shape` (none: plain), already checked.
    fn join(items: Vec<Value>, shape: Option<Box<[Dim]>>) -> Array {
        match shape {
            None => Array(Repr::Plain(items)),
            Some(dims) => Array(Repr::Shaped(Box::new((items, dims)))),
        }
    }

    /// The array of shape `dims` holding `items` in row-major order: the
    /// one owner of the shape rules (2202E when the lengths' product is
    /// not the element count, 54000 past PostgreSQL's limits). No
    /// elements make the empty array whatever `dims` say.
    pub fn new(dims: Vec<Dim>, items: Vec<Value>) -> Result<Array, RowError> {
        if items.is_empty() {
            return Ok(Array::default());
        }
        if dims.len() > MAX_DIMS {
            return Err(too_many_dims(dims.len()));
        }
        let mut count: u64 = 1;
        for d in &dims {
            count = count.saturating_mul(u64::from(d.len));
            // PostgreSQL's `ArrayCheckBounds`: one past the upper bound
            // must fit.
            if i64::from(d.lower) + i64::from(d.len) > i64::from(i32::MAX) {
                return Err(RowError::ArrayLimit(format!(
                    "array lower bound is too large: {}",
                    d.lower
                )));
            }
        }
        if count > MAX_ITEMS as u64 {
            return Err(RowError::ArrayLimit(format!(
                "array size exceeds the maximum allowed ({MAX_ITEMS})"
            )));
        }
        if dims.is_empty() || count != items.len() as u64 {
            return Err(RowError::ArrayShape(
                "multidimensional arrays must have array expressions with matching dimensions"
                    .into(),
            ));
        }
        let standard = dims.len() == 1 && dims[0].lower == 1;
        Ok(Array::join(
            items,
            (!standard).then(|| dims.into_boxed_slice()),
        ))
    }

    /// The elements in row-major order.
    pub fn items(&self) -> &[Value] {
        self.vec()
    }

    /// The elements, to change in place (the shape stays).
    pub fn items_mut(&mut self) -> &mut [Value] {
        match &mut self.0 {
            Repr::Plain(items) => items,
            Repr::Shaped(shaped) => &mut shaped.0,
        }
    }

    /// The elements, the shape dropped.
    pub fn into_items(self) -> Vec<Value> {
        self.split().0
    }

    /// The elements and the dimensions.
    pub fn into_parts(self) -> (Vec<Dim>, Vec<Value>) {
        let dims = self.dims();
        (dims, self.into_items())
    }

    /// The number of dimensions (0 for the empty array).
    pub fn ndims(&self) -> usize {
        match self.shape() {
            Some(dims) => dims.len(),
            None => usize::from(!self.vec().is_empty()),
        }
    }

    /// Dimension `d` (from 0), if the array has it.
    pub fn dim(&self, d: usize) -> Option<Dim> {
        match self.shape() {
            Some(dims) => dims.get(d).copied(),
            None if d == 0 && !self.vec().is_empty() => Some(Dim {
                lower: 1,
                len: self.vec().len() as u32,
            }),
            None => None,
        }
    }

    /// The dimensions (none for the empty array).
    pub fn dims(&self) -> Vec<Dim> {
        (0..self.ndims()).filter_map(|d| self.dim(d)).collect()
    }

    /// Whether the array is empty or one-dimensional of lower bound 1
    /// (what folio handled before several dimensions).
    pub fn is_plain(&self) -> bool {
        matches!(self.0, Repr::Plain(_))
    }

    /// The same shape with each element mapped.
    pub fn try_map<E>(self, f: impl FnMut(Value) -> Result<Value, E>) -> Result<Array, E> {
        let (items, shape) = self.split();
        let items = items.into_iter().map(f).collect::<Result<_, _>>()?;
        Ok(Array::join(items, shape))
    }

    /// PostgreSQL's `array_cmp` of two arrays whose elements compare
    /// with `cmp`: element by element in row-major order up to the
    /// shorter's end, then fewer elements first, then fewer dimensions,
    /// then the dimensions' lengths, then their lower bounds.
    pub fn cmp_by(
        &self,
        other: &Array,
        cmp: impl Fn(&Value, &Value) -> Option<Ordering>,
    ) -> Option<Ordering> {
        for (x, y) in self.vec().iter().zip(other.vec()) {
            let order = cmp(x, y)?;
            if order.is_ne() {
                return Some(order);
            }
        }
        let (a, b) = (self.dims(), other.dims());
        let lens = |d: &[Dim]| d.iter().map(|d| d.len).collect::<Vec<_>>();
        let lowers = |d: &[Dim]| d.iter().map(|d| d.lower).collect::<Vec<_>>();
        Some(
            (self.vec().len().cmp(&other.vec().len()))
                .then(a.len().cmp(&b.len()))
                .then(lens(&a).cmp(&lens(&b)))
                .then(lowers(&a).cmp(&lowers(&b))),
        )
    }

    /// Panics when an invariant of the module comment is broken.
    pub fn check_invariants(&self) {
        let Some(dims) = self.shape() else { return };
        assert!(!self.vec().is_empty(), "an empty array has no shape");
        assert!((1..=MAX_DIMS).contains(&dims.len()));
        assert!(!(dims.len() == 1 && dims[0].lower == 1), "plain shape kept");
        let count = dims.iter().map(|d| d.len as usize).product::<usize>();
        assert_eq!(count, self.vec().len());
        for d in dims.iter() {
            assert!(i64::from(d.lower) + i64::from(d.len) <= i64::from(i32::MAX));
        }
    }
}

/// 54000 for an array of more than [`MAX_DIMS`] dimensions.
pub fn too_many_dims(ndims: usize) -> RowError {
    RowError::ArrayLimit(format!(
        "number of array dimensions ({ndims}) exceeds the maximum allowed ({MAX_DIMS})"
    ))
}

impl From<Vec<Value>> for Array {
    fn from(items: Vec<Value>) -> Array {
        Array::from_items(items)
    }
}

impl FromIterator<Value> for Array {
    fn from_iter<I: IntoIterator<Item = Value>>(iter: I) -> Array {
        Array::from_items(iter.into_iter().collect())
    }
}

impl std::ops::Deref for Array {
    type Target = [Value];
    fn deref(&self) -> &[Value] {
        self.vec()
    }
}

impl IntoIterator for Array {
    type Item = Value;
    type IntoIter = std::vec::IntoIter<Value>;
    fn into_iter(self) -> Self::IntoIter {
        self.into_items().into_iter()
    }
}

impl<'a> IntoIterator for &'a Array {
    type Item = &'a Value;
    type IntoIter = std::slice::Iter<'a, Value>;
    fn into_iter(self) -> Self::IntoIter {
        self.vec().iter()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ints(n: i32) -> Vec<Value> {
        (1..=n).map(Value::Int4).collect()
    }

    #[test]
    fn plain_shapes_have_no_stored_shape() {
        // Proves invariant 1: however made, a plain array compares equal
        // to the one `from_items` makes.
        let made = Array::new(vec![Dim { lower: 1, len: 3 }], ints(3)).unwrap();
        assert!(made.is_plain());
        assert_eq!(made, Array::from_items(ints(3)));
        let empty = Array::new(vec![Dim { lower: 5, len: 0 }], vec![]).unwrap();
        assert_eq!(empty, Array::default());
        assert_eq!(empty.ndims(), 0);
        made.check_invariants();
    }

    #[test]
    fn shapes_are_checked() {
        // Proves `new` refuses a count that is not the lengths' product
        // (2202E) and shapes past PostgreSQL's limits (54000).
        let two_by_two = vec![Dim { lower: 1, len: 2 }, Dim { lower: 1, len: 2 }];
        let a = Array::new(two_by_two.clone(), ints(4)).unwrap();
        a.check_invariants();
        assert_eq!(a.dims(), two_by_two);
        let e = Array::new(two_by_two, ints(3)).unwrap_err();
        assert_eq!(e.sqlstate(), "2202E");
        let e = Array::new(vec![Dim { lower: 1, len: 1 }; 7], ints(1)).unwrap_err();
        assert_eq!(e.sqlstate(), "54000");
        let e = Array::new(
            vec![Dim {
                lower: i32::MAX,
                len: 2,
            }],
            ints(2),
        )
        .unwrap_err();
        assert_eq!(e.sqlstate(), "54000");
    }

    #[test]
    fn order_is_elements_then_shape() {
        // Proves PostgreSQL's array_cmp: elements decide first, then the
        // count, the dimensions' number, lengths and lower bounds.
        let cmp = |a: &Array, b: &Array| a.cmp_by(b, |x, y| x.sql_cmp(y)).unwrap();
        let plain = Array::from_items(ints(2));
        let lower0 = Array::new(vec![Dim { lower: 0, len: 2 }], ints(2)).unwrap();
        let row = Array::new(
            vec![Dim { lower: 1, len: 1 }, Dim { lower: 1, len: 2 }],
            ints(2),
        )
        .unwrap();
        let col = Array::new(
            vec![Dim { lower: 1, len: 2 }, Dim { lower: 1, len: 1 }],
            ints(2),
        )
        .unwrap();
        assert_eq!(cmp(&lower0, &plain), Ordering::Less);
        assert_eq!(cmp(&row, &plain), Ordering::Greater);
        assert_eq!(cmp(&col, &row), Ordering::Greater);
        assert_eq!(cmp(&Array::from_items(ints(1)), &lower0), Ordering::Less);
        assert_ne!(lower0, plain);
    }
}

#[cfg(test)]
mod size {
    /// A plain array costs what a `Vec` does: `Value` stays 32 bytes.
    #[test]
    fn values_stay_small() {
        assert_eq!(std::mem::size_of::<super::Array>(), 24);
        assert_eq!(std::mem::size_of::<crate::Value>(), 32);
    }
}
