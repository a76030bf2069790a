//! What the catalog describes — tables, their columns, their indexes —
//! and the rows that store them (`codec.rs`).
//!
//! | catalog table | row |
//! |---|---|
//! | `folio.class` | oid, name, kind (`r` table / `i` index), tree root, table oid (indexes), unique, key columns |
//! | `folio.attribute` | table oid, column number, name, type oid, type modifier, not null |

use crate::codec::{Reader, Writer};
use folio_page::PageId;

/// A column: its name and its type, as PostgreSQL's type oid and type
/// modifier (the row format maps them to values).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ColumnDef {
    pub name: String,
    pub type_oid: u32,
    /// `varchar(n)`/`char(n)`: n + 4, `numeric(p, s)`: ((p << 16) | s) + 4,
    /// else -1 (PostgreSQL's `atttypmod`).
    pub typmod: i32,
    pub not_null: bool,
}

/// An index of a table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IndexDef {
    pub oid: u64,
    pub name: String,
    pub table_oid: u64,
    /// Indexed columns, by position in the table (0-based).
    pub columns: Vec<u16>,
    pub unique: bool,
    /// Root of its B+tree.
    pub root: PageId,
}

/// A table: its columns and where its pages are listed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableDef {
    pub oid: u64,
    pub name: String,
    pub columns: Vec<ColumnDef>,
    /// Root of its page list (folio-heap).
    pub root: PageId,
    pub indexes: Vec<IndexDef>,
}

impl TableDef {
    /// The position of column `name`.
    pub fn column(&self, name: &str) -> Option<usize> {
        self.columns.iter().position(|c| c.name == name)
    }
}

pub(crate) const KIND_TABLE: u8 = b'r';
pub(crate) const KIND_INDEX: u8 = b'i';

/// A `folio.class` row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ClassRow {
    pub oid: u64,
    pub name: String,
    pub kind: u8,
    pub root: PageId,
    pub table_oid: u64,
    pub unique: bool,
    pub columns: Vec<u16>,
}

impl ClassRow {
    pub(crate) fn encode(&self) -> Vec<u8> {
        let mut w = Writer::default();
        w.u64(self.oid)
            .str(&self.name)
            .u8(self.kind)
            .u64(self.root.0)
            .u64(self.table_oid)
            .u8(self.unique as u8)
            .u16(self.columns.len() as u16);
        for c in &self.columns {
            w.u16(*c);
        }
        w.0
    }

    pub(crate) fn decode(bytes: &[u8]) -> Result<ClassRow, String> {
        let mut r = Reader(bytes);
        let oid = r.u64()?;
        let name = r.str()?;
        let kind = r.u8()?;
        let root = PageId(r.u64()?);
        let table_oid = r.u64()?;
        let unique = r.u8()? != 0;
        let n = r.u16()?;
        let columns = (0..n).map(|_| r.u16()).collect::<Result<_, _>>()?;
        r.end()?;
        if kind != KIND_TABLE && kind != KIND_INDEX {
            return Err(format!("relation kind {kind}"));
        }
        Ok(ClassRow {
            oid,
            name,
            kind,
            root,
            table_oid,
            unique,
            columns,
        })
    }
}

/// A `folio.attribute` row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct AttributeRow {
    pub table_oid: u64,
    pub number: u16,
    pub column: ColumnDef,
}

impl AttributeRow {
    pub(crate) fn encode(&self) -> Vec<u8> {
        let mut w = Writer::default();
        w.u64(self.table_oid)
            .u16(self.number)
            .str(&self.column.name)
            .u32(self.column.type_oid)
            .i32(self.column.typmod)
            .u8(self.column.not_null as u8);
        w.0
    }

    pub(crate) fn decode(bytes: &[u8]) -> Result<AttributeRow, String> {
        let mut r = Reader(bytes);
        let row = AttributeRow {
            table_oid: r.u64()?,
            number: r.u16()?,
            column: ColumnDef {
                name: r.str()?,
                type_oid: r.u32()?,
                typmod: r.i32()?,
                not_null: r.u8()? != 0,
            },
        };
        r.end()?;
        Ok(row)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Proves catalog rows round-trip and garbage is an error.
    #[test]
    fn catalog_rows_round_trip() {
        let class = ClassRow {
            oid: 16384,
            name: "accounts_pkey".into(),
            kind: KIND_INDEX,
            root: PageId(9),
            table_oid: 16383,
            unique: true,
            columns: vec![0, 2],
        };
        assert_eq!(ClassRow::decode(&class.encode()), Ok(class));
        let attr = AttributeRow {
            table_oid: 16383,
            number: 1,
            column: ColumnDef {
                name: "abalance".into(),
                type_oid: 23,
                typmod: -1,
                not_null: false,
            },
        };
        assert_eq!(AttributeRow::decode(&attr.encode()), Ok(attr));
        assert!(ClassRow::decode(&[1, 2, 3]).is_err());
    }
}
