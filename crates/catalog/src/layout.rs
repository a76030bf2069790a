//! Where a table's columns are in its stored rows: the one owner of the
//! map between a column's *position* (its rank among the table's columns
//! not dropped: what the SQL layer sees, and what every position in a
//! definition names) and its *slot* (where a stored row holds its value:
//! the `folio.attribute` number, PostgreSQL's `attnum` - 1, never reused).
//! Design: the README's "Dropped columns".

use crate::defs::{AttributeRow, ColumnDef};
use crate::error::CatalogError;
use folio_row::{SqlType, Value};

/// A column dropped from a table (`ALTER TABLE ... DROP COLUMN`): its
/// slot, and its type, which rows written before the drop still hold a
/// value of.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DroppedColumn {
    pub slot: u16,
    pub type_oid: u32,
    pub typmod: i32,
}

/// The slots of a table's columns.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Layout {
    /// Each column's slot, by position (ascending).
    slots: Vec<u16>,
    /// The dropped columns, by slot.
    dropped: Vec<DroppedColumn>,
}

/// The name a dropped column's attribute row takes (PostgreSQL's): no SQL
/// name finds it, and its own is free again.
pub fn dropped_name(slot: u16) -> String {
    format!("........pg.dropped.{}........", u32::from(slot) + 1)
}

impl Layout {
    /// A table of `columns` columns, none dropped: slot = position.
    pub fn dense(columns: usize) -> Layout {
        Layout {
            slots: (0..columns as u16).collect(),
            dropped: Vec::new(),
        }
    }

    /// A table's columns, by position, and its layout, from its attribute
    /// rows (in any order).
    pub(crate) fn of(mut rows: Vec<AttributeRow>) -> (Vec<ColumnDef>, Layout) {
        rows.sort_by_key(|a| a.number);
        let mut columns = Vec::with_capacity(rows.len());
        let mut layout = Layout::default();
        for row in rows {
            if row.dropped {
                layout.dropped.push(DroppedColumn {
                    slot: row.number,
                    type_oid: row.column.type_oid,
                    typmod: row.column.typmod,
                });
            } else {
                layout.slots.push(row.number);
                columns.push(row.column);
            }
        }
        (columns, layout)
    }

    /// The slot of the column at `position`.
    pub fn slot(&self, position: usize) -> u16 {
        self.slots[position]
    }

    /// PostgreSQL's `attnum` of the column at `position` (its slot + 1):
    /// what `pg_attribute`, `pg_index.indkey` and the like show.
    pub fn attnum(&self, position: usize) -> i16 {
        self.slot(position) as i16 + 1
    }

    /// The slots of a stored row: the columns', the dropped ones' too
    /// (PostgreSQL's `relnatts`).
    pub fn width(&self) -> usize {
        self.slots.len() + self.dropped.len()
    }

    /// The dropped columns, by slot.
    pub fn dropped(&self) -> &[DroppedColumn] {
        &self.dropped
    }
}

/// How a relation of a table with dropped columns maps its values (by
/// position) to stored rows (by slot) and back. A table without dropped
/// columns has none: its values are its rows' as they are.
#[derive(Debug)]
pub(crate) struct StoredLayout {
    /// Every slot's type.
    types: Vec<SqlType>,
    /// Each position's slot.
    slots: Vec<usize>,
}

impl StoredLayout {
    /// The map of a table with `layout` and its columns' `types` (by
    /// position), if it has dropped columns.
    pub(crate) fn of(
        layout: &Layout,
        types: &[SqlType],
    ) -> Result<Option<StoredLayout>, CatalogError> {
        if layout.dropped.is_empty() {
            return Ok(None);
        }
        let mut all = vec![SqlType::Int4; layout.width()];
        for (&slot, ty) in layout.slots.iter().zip(types) {
            all[usize::from(slot)] = *ty;
        }
        for d in &layout.dropped {
            // A dropped column is skipped, never read: one of an enum type
            // (the only types with oids past the built-in ones), which may
            // be dropped too, is skipped as the 8 bytes it is stored in.
            all[usize::from(d.slot)] = SqlType::from_oid(d.type_oid, d.typmod)
                .or_else(|| (u64::from(d.type_oid) >= crate::FIRST_OID).then_some(SqlType::Float8))
                .ok_or_else(|| CatalogError::UnsupportedType {
                    column: dropped_name(d.slot),
                    type_oid: d.type_oid,
                })?;
        }
        Ok(Some(StoredLayout {
            types: all,
            slots: layout.slots.iter().map(|&s| usize::from(s)).collect(),
        }))
    }

    /// Every slot's type, as a stored row is encoded and decoded.
    pub(crate) fn types(&self) -> &[SqlType] {
        &self.types
    }

    /// The slot of the column at `position`.
    pub(crate) fn slot(&self, position: usize) -> usize {
        self.slots[position]
    }

    /// A row's values (by position) as the slots hold them: NULL in the
    /// dropped ones.
    pub(crate) fn to_slots(&self, values: Vec<Value>) -> Vec<Value> {
        let mut out = vec![Value::Null; self.types.len()];
        for (value, &slot) in values.into_iter().zip(&self.slots) {
            out[slot] = value;
        }
        out
    }

    /// The columns' cells (by position) among a stored row's (by slot).
    pub(crate) fn columns_of<T>(&self, cells: Vec<T>) -> Vec<T> {
        let mut cells: Vec<Option<T>> = cells.into_iter().map(Some).collect();
        (self.slots.iter())
            .map(|&slot| cells[slot].take().expect("a slot of the row"))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn attribute(number: u16, name: &str, type_oid: u32, dropped: bool) -> AttributeRow {
        AttributeRow {
            table_oid: 16384,
            number,
            column: ColumnDef {
                local: true,
                collation: None,
                name: name.into(),
                type_oid,
                typmod: -1,
                not_null: false,
            },
            dropped,
        }
    }

    // Proves a layout maps positions to the slots of the columns not
    // dropped, keeps the dropped ones' types for decoding, and moves
    // values between positions and slots both ways.
    #[test]
    fn positions_map_to_slots_around_dropped_columns() {
        let rows = vec![
            attribute(2, "c", 25, false),
            attribute(0, "a", 23, false),
            attribute(1, &dropped_name(1), 20, true),
            attribute(3, &dropped_name(3), 16, true),
        ];
        let (columns, layout) = Layout::of(rows);
        let names: Vec<&str> = columns.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["a", "c"]);
        assert_eq!(
            (layout.slot(1), layout.attnum(1), layout.width()),
            (2, 3, 4)
        );
        assert_eq!(dropped_name(1), "........pg.dropped.2........");
        let stored = StoredLayout::of(&layout, &[SqlType::Int4, SqlType::Text])
            .unwrap()
            .unwrap();
        assert_eq!(
            stored.types(),
            [SqlType::Int4, SqlType::Int8, SqlType::Text, SqlType::Bool]
        );
        let slots = stored.to_slots(vec![Value::Int4(1), Value::Text("x".into())]);
        assert_eq!(
            slots,
            [
                Value::Int4(1),
                Value::Null,
                Value::Text("x".into()),
                Value::Null
            ]
        );
        assert_eq!(
            stored.columns_of(slots),
            [Value::Int4(1), Value::Text("x".into())]
        );
        // Without drops there is nothing to map.
        assert!(
            StoredLayout::of(&Layout::dense(2), &[SqlType::Int4; 2])
                .unwrap()
                .is_none()
        );
    }
}
