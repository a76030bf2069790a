//! A partition whose columns are in another order than its parent's
//! (README "Partitioned tables", column order): PostgreSQL converts a
//! row crossing the boundary by column name (its TupleConversionMap).
//! [`ColumnMap::between`] is the one owner of that correspondence: made
//! from the two tables' definitions, `None` when the orders agree (the
//! common case, which then costs nothing), and every path a row or a
//! column position takes between a partitioned table and a partition
//! asks it ([`down`], [`up`], [`positions_in`]).

use folio_catalog::TableDef;
use folio_row::Value;

/// Where each column of a parent lies in a partition (at any depth
/// below it) and back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ColumnMap {
    /// For each of the partition's positions, the parent's holding the
    /// same column.
    from_parent: Vec<usize>,
    /// For each of the parent's positions, the partition's.
    to_child: Vec<usize>,
}

impl ColumnMap {
    /// The map between `parent` and `child` (the same columns, by name):
    /// `None` when they are in the same order (or, in a table not yet
    /// checked as a partition, do not match).
    pub fn between(parent: &TableDef, child: &TableDef) -> Option<ColumnMap> {
        let same = parent.columns.len() == child.columns.len()
            && (parent.columns.iter().zip(&child.columns)).all(|(a, b)| a.name == b.name);
        if same {
            return None;
        }
        let to_child = (parent.columns.iter())
            .map(|c| child.column(&c.name))
            .collect::<Option<Vec<usize>>>()?;
        let from_parent = (child.columns.iter())
            .map(|c| parent.column(&c.name))
            .collect::<Option<Vec<usize>>>()?;
        Some(ColumnMap {
            from_parent,
            to_child,
        })
    }

    /// `outer` (a table to its partition) then `inner` (that partition
    /// to one of its own): the map from the first table to the last.
    pub fn then(outer: Option<&ColumnMap>, inner: Option<&ColumnMap>) -> Option<ColumnMap> {
        match (outer, inner) {
            (None, None) => None,
            (Some(m), None) | (None, Some(m)) => Some(m.clone()),
            (Some(o), Some(i)) => {
                let map = ColumnMap {
                    from_parent: (i.from_parent.iter()).map(|&p| o.from_parent[p]).collect(),
                    to_child: (o.to_child.iter()).map(|&c| i.to_child[c]).collect(),
                };
                let identity = map.to_child.iter().enumerate().all(|(n, &c)| n == c);
                (!identity).then_some(map)
            }
        }
    }

    /// The partition's position of the parent's column `parent`.
    pub fn child_position(&self, parent: usize) -> usize {
        self.to_child.get(parent).copied().unwrap_or(parent)
    }

    /// The parent's position of the partition's column `child`.
    pub fn parent_position(&self, child: usize) -> usize {
        self.from_parent.get(child).copied().unwrap_or(child)
    }

    /// The partition's `items` (one per column: its types) in the
    /// parent's order.
    pub fn in_parent_order<T: Clone>(&self, items: &[T]) -> Vec<T> {
        self.to_child.iter().map(|&c| items[c].clone()).collect()
    }

    /// Reorders `row` by `order` (each output position's input one);
    /// values after the table's columns (system columns) stay last.
    fn reorder(order: &[usize], mut row: Vec<Value>) -> Vec<Value> {
        let width = order.len().min(row.len());
        let tail = row.split_off(width);
        let mut out: Vec<Value> = order
            .iter()
            .map(|&p| row.get(p).cloned().unwrap_or(Value::Null))
            .collect();
        out.extend(tail);
        out
    }
}

/// A row of the parent as the partition's (`map`: [`ColumnMap::between`]).
pub fn down(map: Option<&ColumnMap>, row: Vec<Value>) -> Vec<Value> {
    match map {
        None => row,
        Some(m) => ColumnMap::reorder(&m.from_parent, row),
    }
}

/// A row of the partition as the parent's.
pub fn up(map: Option<&ColumnMap>, row: Vec<Value>) -> Vec<Value> {
    match map {
        None => row,
        Some(m) => ColumnMap::reorder(&m.to_child, row),
    }
}

/// The positions `columns` of the parent, as the partition's.
pub fn positions_in<T: Copy + Into<usize> + TryFrom<usize>>(
    map: Option<&ColumnMap>,
    columns: &[T],
) -> Vec<T> {
    match map {
        None => columns.to_vec(),
        Some(m) => (columns.iter())
            .map(|&c| {
                let at = m.child_position(c.into());
                T::try_from(at).unwrap_or(c)
            })
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map(from_parent: &[usize]) -> ColumnMap {
        let mut to_child = vec![0; from_parent.len()];
        for (c, &p) in from_parent.iter().enumerate() {
            to_child[p] = c;
        }
        ColumnMap {
            from_parent: from_parent.to_vec(),
            to_child,
        }
    }

    #[test]
    fn rows_cross_both_ways() {
        // Parent (a, b, c); partition (c, a, b).
        let m = map(&[2, 0, 1]);
        let row = vec![Value::Int4(1), Value::Int4(2), Value::Int4(3)];
        let child = down(Some(&m), row.clone());
        assert_eq!(child, vec![Value::Int4(3), Value::Int4(1), Value::Int4(2)]);
        assert_eq!(up(Some(&m), child), row);
        assert_eq!(positions_in(Some(&m), &[0u16, 2]), vec![1u16, 0]);
    }

    #[test]
    fn maps_compose_to_none_when_orders_agree_again() {
        let m = map(&[1, 0]);
        assert_eq!(ColumnMap::then(Some(&m), Some(&m)), None);
        let n = map(&[2, 0, 1]);
        let both = ColumnMap::then(Some(&n), Some(&n)).unwrap();
        // (a, b, c) -> (c, a, b) -> (b, c, a)
        assert_eq!(both.from_parent, vec![1, 2, 0]);
    }
}
