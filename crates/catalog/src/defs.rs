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
    /// Per indexed column: `DESC`, and `NULLS FIRST` (PostgreSQL's
    /// defaults: ASC NULLS LAST, DESC NULLS FIRST).
    pub order: Vec<KeyOrder>,
    pub unique: bool,
    /// Its tree's keys are folio-row's encoded keys as they are (no escape:
    /// they are prefix-free; folio-btree `KeyForm::PrefixFree`). False for
    /// indexes made before this existed.
    pub prefix_free: bool,
    /// Root of its B+tree.
    pub root: PageId,
}

/// The order of one index column.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct KeyOrder {
    pub descending: bool,
    pub nulls_first: bool,
}

impl KeyOrder {
    /// PostgreSQL's default for the direction.
    pub fn new(descending: bool) -> KeyOrder {
        KeyOrder {
            descending,
            nulls_first: descending,
        }
    }

    /// The high bits of a stored column number.
    fn bits(self) -> u16 {
        (u16::from(self.descending) << 15) | (u16::from(self.nulls_first) << 14)
    }

    fn from_bits(word: u16) -> KeyOrder {
        KeyOrder {
            descending: word & (1 << 15) != 0,
            nulls_first: word & (1 << 14) != 0,
        }
    }
}

/// Stored column numbers keep the order in their top two bits.
const POSITION_MASK: u16 = (1 << 14) - 1;

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
    /// Stored as bit 1 of the byte whose bit 0 is `unique`.
    pub prefix_free: bool,
    pub columns: Vec<u16>,
    pub order: Vec<KeyOrder>,
}

impl ClassRow {
    pub(crate) fn encode(&self) -> Vec<u8> {
        let mut w = Writer::default();
        w.u64(self.oid)
            .str(&self.name)
            .u8(self.kind)
            .u64(self.root.0)
            .u64(self.table_oid)
            .u8(self.unique as u8 | (self.prefix_free as u8) << 1)
            .u16(self.columns.len() as u16);
        for (c, o) in self.columns.iter().zip(&self.order) {
            w.u16(*c | o.bits());
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
        let flags = r.u8()?;
        if flags > 3 {
            return Err(format!("index flags {flags:#04x}"));
        }
        let (unique, prefix_free) = (flags & 1 != 0, flags & 2 != 0);
        let n = r.u16()?;
        let words: Vec<u16> = (0..n).map(|_| r.u16()).collect::<Result<_, _>>()?;
        let columns = words.iter().map(|w| w & POSITION_MASK).collect();
        let order = words.iter().map(|w| KeyOrder::from_bits(*w)).collect();
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
            prefix_free,
            columns,
            order,
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
            prefix_free: true,
            columns: vec![0, 2],
            order: vec![KeyOrder::new(false), KeyOrder::new(true)],
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
