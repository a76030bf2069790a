//! What the catalog describes — tables, their columns, their indexes —
//! and the rows that store them (`codec.rs`).
//!
//! | catalog table | row |
//! |---|---|
//! | `folio.class` | oid, name, kind (`r` table / `i` index / `S` sequence / `v` view / `m` materialized view / `e` enum), tree root, table oid (indexes; a sequence's owner), unique, key columns (a sequence's owning column), then a sequence's options |
//! | `folio.attribute` | table oid, column number (its slot: `layout.rs`), name, type oid, type modifier, flags (bit 0 not null, bit 1 dropped) |
//! | `folio.constraint` | oid, table oid, name, kind, then by kind: `d` column, expression; `g` column, expression; `c` expression; `f` columns, referenced table oid, referenced columns, ON DELETE / ON UPDATE actions; `k` partition strategy, key columns; `o` parent oid, bound; `i` inheritance parent oid, seqno |

use crate::codec::{Reader, Writer};
use crate::index_exprs::IndexExprs;
use crate::layout::Layout;
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
    /// Declared by the table itself, not only received from inheritance
    /// parents (PostgreSQL's `attislocal`; folio-sql README "Table
    /// inheritance"). How many parents give it (`attinhcount`) is not
    /// stored: it is the number of parents with a column of the name.
    pub local: bool,
    /// The collation's oid a `COLLATE` clause gave the column; `None`: its
    /// type's own (PostgreSQL's `attcollation` is then `typcollation`).
    pub collation: Option<u32>,
}

/// An index of a table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IndexDef {
    pub oid: u64,
    pub name: String,
    pub table_oid: u64,
    /// Indexed columns, by position in the table (0-based);
    /// [`IndexDef::EXPRESSION`] where the key is an expression's value.
    pub columns: Vec<u16>,
    /// Per indexed column: `DESC`, and `NULLS FIRST` (PostgreSQL's
    /// defaults: ASC NULLS LAST, DESC NULLS FIRST).
    pub order: Vec<KeyOrder>,
    pub unique: bool,
    /// Its tree's keys are folio-row's encoded keys as they are (no escape:
    /// they are prefix-free; folio-btree `KeyForm::PrefixFree`). False for
    /// indexes made before this existed.
    pub prefix_free: bool,
    /// The table's primary key (its constraint, whatever the index's
    /// name; PostgreSQL's `indisprimary`).
    pub primary: bool,
    /// Made by a PRIMARY KEY or UNIQUE constraint, which it is: dropped
    /// with `ALTER TABLE ... DROP CONSTRAINT`, never by DROP INDEX
    /// (PostgreSQL's dependency of the index on its constraint).
    pub constraint: bool,
    /// The index `CLUSTER` last ordered the table by (PostgreSQL's
    /// `indisclustered`; at most one per table: `rewrite.rs`).
    pub clustered: bool,
    /// Root of its B+tree.
    pub root: PageId,
    /// Its expressions and predicate (none: plain columns, every row).
    pub exprs: IndexExprs,
    /// A PRIMARY KEY or UNIQUE constraint declared `DEFERRABLE`: its
    /// index takes a duplicate key and the key is checked again later
    /// (folio-sql README "Deferred constraints"; PostgreSQL's
    /// `indimmediate` false).
    pub deferrable: Deferrable,
    /// How a unique index compares keys with NULLs (`NULLS [NOT]
    /// DISTINCT`; PostgreSQL's `indnullsnotdistinct`).
    pub nulls: Nulls,
}

impl IndexDef {
    /// The column number of a key position computed by an expression
    /// (PostgreSQL's 0 in `indkey`): no column's position.
    pub const EXPRESSION: u16 = POSITION_MASK;

    /// Over plain columns, holding every row: what foreign keys, ON
    /// CONFLICT's column lists and column-based plans may use.
    pub fn is_plain(&self) -> bool {
        self.exprs.is_empty()
    }

    /// Whether a foreign key onto `columns` may use this index: a unique
    /// index over plain columns, holding every row, over exactly these
    /// columns in any order (PostgreSQL's rule; a partial or expression
    /// index does not serve). The one owner of that rule in the catalog.
    pub fn serves_key(&self, columns: &[u16]) -> bool {
        let (mut have, mut wanted) = (self.columns.clone(), columns.to_vec());
        have.sort_unstable();
        wanted.sort_unstable();
        self.unique && self.is_plain() && !self.deferrable.is_deferrable() && have == wanted
    }

    /// Whether the index reads column `position` (a key column, in an
    /// expression or the predicate, or an included column).
    pub fn reads_column(&self, position: u16) -> bool {
        self.columns.contains(&position)
            || self.exprs.reads.contains(&position)
            || self.exprs.include.contains(&position)
    }

    /// Its included columns (`INCLUDE`), by position.
    pub fn include(&self) -> &[u16] {
        &self.exprs.include
    }
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
    /// Its columns, dropped ones left out: a column's index here is its
    /// position, which every position in a definition names.
    pub columns: Vec<ColumnDef>,
    /// Where each column's value is in a stored row, and the columns
    /// dropped from it (`layout.rs`).
    pub layout: Layout,
    /// Root of its page list (folio-heap).
    pub root: PageId,
    pub indexes: Vec<IndexDef>,
    /// Its column defaults, CHECK constraints and foreign keys.
    pub constraints: Vec<ConstraintDef>,
    /// The foreign keys of other tables (or of itself) that reference it.
    pub referenced_by: Vec<ConstraintDef>,
    /// A partitioned table's partitions (oid, name), in the order they
    /// were made ([`Partition::Of`] rows that name it).
    pub partitions: Vec<(u64, String)>,
    /// Its inheritance children (oid, name), in the order they became
    /// its children ([`Partition::Inherits`] rows that name it; folio-sql
    /// README "Table inheritance").
    pub children: Vec<(u64, String)>,
    /// The enum types of its columns (dropped ones' too), as the catalog
    /// it was read from defines them (`enums.rs`).
    pub enums: Vec<&'static folio_row::EnumType>,
    /// The domains of its columns, as the catalog it was read from
    /// defines them (`domains.rs`).
    pub domains: Vec<std::sync::Arc<crate::domains::DomainType>>,
    /// The composite types of its columns, as the catalog it was read
    /// from defines them (`composites.rs`).
    pub composites: Vec<&'static folio_row::CompositeType>,
    /// A materialized view's query and state (`matviews.rs`); `None`
    /// for an ordinary table.
    pub matview: Option<Matview>,
    /// Its storage options (`storage_options.rs`).
    pub storage: crate::storage_options::StorageOptions,
}

/// What a materialized view is beyond its table: the query that fills
/// it, the relations that query reads, and whether it holds the query's
/// rows (PostgreSQL's `relispopulated`: false after `WITH NO DATA`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Matview {
    pub query: String,
    pub depends_on: Vec<u64>,
    pub populated: bool,
}

impl TableDef {
    /// The table's primary key, if it has one.
    pub fn primary_key(&self) -> Option<&IndexDef> {
        self.indexes.iter().find(|i| i.primary)
    }

    /// The type of column `position`: a built-in type, or one of the
    /// enum types the definition carries (`None`: neither).
    pub fn column_type(&self, position: usize) -> Option<folio_row::SqlType> {
        let c = &self.columns[position];
        crate::enums::column_type(self, c.type_oid, c.typmod)
    }

    /// The position of column `name`.
    pub fn column(&self, name: &str) -> Option<usize> {
        self.columns.iter().position(|c| c.name == name)
    }

    /// Its partition key, if it is a partitioned table: PostgreSQL's
    /// `partstrat` and the key's column positions
    /// ([`Partition::EXPRESSION`] for an expression, PostgreSQL's
    /// `partattrs` 0).
    pub fn partition_key(&self) -> Option<(u8, &[u16])> {
        self.constraints.iter().find_map(|c| match &c.kind {
            ConstraintKind::Partition(Partition::Key {
                strategy, columns, ..
            }) => Some((*strategy, columns.as_slice())),
            _ => None,
        })
    }

    /// The expressions of its partition key (SQL text), one per
    /// [`Partition::EXPRESSION`] position, in key order.
    pub fn partition_key_exprs(&self) -> &[String] {
        (self.constraints.iter())
            .find_map(|c| match &c.kind {
                ConstraintKind::Partition(Partition::Key { exprs, .. }) => Some(exprs.as_slice()),
                _ => None,
            })
            .unwrap_or(&[])
    }

    /// Its parent's oid and its bound's text, if it is a partition.
    pub fn partition_of(&self) -> Option<(u64, &str)> {
        self.constraints.iter().find_map(|c| match &c.kind {
            ConstraintKind::Partition(Partition::Of {
                parent_oid, bound, ..
            }) => Some((*parent_oid, bound.as_str())),
            _ => None,
        })
    }

    /// Its parent's name, if it is a partition.
    pub fn partition_parent(&self) -> Option<&str> {
        self.constraints.iter().find_map(|c| match &c.kind {
            ConstraintKind::Partition(Partition::Of { parent, .. }) => Some(parent.as_str()),
            _ => None,
        })
    }

    /// Its inheritance parents (oid, name), in `INHERITS` order
    /// (PostgreSQL's `inhseqno`).
    pub fn parents(&self) -> Vec<(u64, &str)> {
        let mut parents: Vec<(u16, u64, &str)> = (self.constraints.iter())
            .filter_map(|c| match &c.kind {
                ConstraintKind::Partition(Partition::Inherits {
                    parent_oid,
                    parent,
                    seqno,
                }) => Some((*seqno, *parent_oid, parent.as_str())),
                _ => None,
            })
            .collect();
        parents.sort_by_key(|p| p.0);
        parents.into_iter().map(|(_, o, n)| (o, n)).collect()
    }

    /// The default expression of column `column`, as SQL text.
    pub fn default_of(&self, column: usize) -> Option<&str> {
        self.constraints.iter().find_map(|c| match &c.kind {
            ConstraintKind::Default { column: d, expr } if usize::from(*d) == column => {
                Some(expr.as_str())
            }
            _ => None,
        })
    }

    /// The generation expression of column `column` (`GENERATED ALWAYS
    /// AS (expr) STORED`), as SQL text.
    pub fn generated_of(&self, column: usize) -> Option<&str> {
        self.constraints.iter().find_map(|c| match &c.kind {
            ConstraintKind::Generated { column: g, expr } if usize::from(*g) == column => {
                Some(expr.as_str())
            }
            _ => None,
        })
    }
}

/// A column default, a CHECK constraint or a foreign key of a table (a
/// `folio.constraint` row). Defaults live here too, unnamed (PostgreSQL
/// keeps them apart, in `pg_attrdef`): one catalog table for everything
/// that constrains or fills a table's rows by expression or reference.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConstraintDef {
    pub oid: u64,
    /// Unique among the table's constraints (empty for a default).
    pub name: String,
    pub table_oid: u64,
    /// The constrained table's name as the reader saw it (not stored).
    pub table: String,
    pub kind: ConstraintKind,
    /// False for a CHECK or foreign key added `NOT VALID` and not yet
    /// validated: new rows meet it, rows before it were not checked
    /// (PostgreSQL's `convalidated`). Stored as a trailing byte only when
    /// false, so rows written before it read as validated.
    pub validated: bool,
    /// Whether its check may wait for the end of the transaction
    /// (`DEFERRABLE`, foreign keys only; PostgreSQL's `condeferrable` and
    /// `condeferred`). Stored in the same trailing byte.
    pub deferrable: Deferrable,
    /// A CHECK declared by the table itself, not only received from
    /// inheritance parents (PostgreSQL's `conislocal`); `coninhcount` is
    /// not stored: it is the number of parents with an inheritable CHECK
    /// of the name. Stored in the trailing flags byte (clear: local).
    pub local: bool,
    /// A CHECK declared `NO INHERIT`: children do not receive it
    /// (PostgreSQL's `connoinherit`). In the trailing flags byte.
    pub no_inherit: bool,
}

/// `[NOT] DEFERRABLE [INITIALLY DEFERRED | INITIALLY IMMEDIATE]` of a
/// constraint: whether `SET CONSTRAINTS` may move its check to the end of
/// the transaction, and where a transaction starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Deferrable {
    /// `NOT DEFERRABLE` (the default): checked when the statement ends.
    #[default]
    No,
    /// `DEFERRABLE [INITIALLY IMMEDIATE]`.
    InitiallyImmediate,
    /// `DEFERRABLE INITIALLY DEFERRED`.
    InitiallyDeferred,
}

/// How a unique index (or UNIQUE constraint) treats keys holding a NULL:
/// PostgreSQL 15's `NULLS [NOT] DISTINCT`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Nulls {
    /// Each NULL differs from every value and every other NULL: a key
    /// with one is never a duplicate (SQL's and PostgreSQL's default).
    #[default]
    Distinct,
    /// NULLs equal each other: `(1, NULL)` twice is a duplicate.
    NotDistinct,
}

impl Deferrable {
    pub fn is_deferrable(self) -> bool {
        self != Deferrable::No
    }

    pub fn initially_deferred(self) -> bool {
        self == Deferrable::InitiallyDeferred
    }
}

/// The bits of a constraint row's trailing flags byte. A row without the
/// byte is validated and not deferrable; the byte is written only when
/// one of those differs (the first such rows, `NOT VALID` ones, hold 0).
const FLAG_VALIDATED: u8 = 1;
const FLAG_DEFERRABLE: u8 = 2;
const FLAG_INITIALLY_DEFERRED: u8 = 4;
/// A foreign key's `MATCH FULL`.
const FLAG_MATCH_FULL: u8 = 8;
/// A foreign key's `ON DELETE SET NULL / SET DEFAULT (columns)`: the
/// columns follow the flags byte (count, then each).
const FLAG_SET_COLUMNS: u8 = 16;
/// A CHECK only inherited, not declared by its table (`!local`).
const FLAG_INHERITED: u8 = 32;
/// A CHECK declared `NO INHERIT`.
const FLAG_NO_INHERIT: u8 = 64;

/// What a constraint is. Expressions are SQL text (the SQL layer parses
/// and binds them; the catalog does not evaluate them).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ConstraintKind {
    /// `DEFAULT expr` of column `column` (position, 0-based).
    Default { column: u16, expr: String },
    /// `GENERATED ALWAYS AS (expr) STORED` of column `column`: the value
    /// every written row gets (PostgreSQL keeps it in `pg_attrdef` too,
    /// with `attgenerated = 's'`).
    Generated { column: u16, expr: String },
    /// `CHECK (expr)`.
    Check { expr: String },
    /// `FOREIGN KEY (columns) REFERENCES table (ref_columns)`.
    ForeignKey(ForeignKey),
    /// A partitioned table's key, or a partition's parent and bound
    /// (folio-sql README "Partitioned tables"); unnamed, as a default.
    Partition(Partition),
}

/// The partitioning facts of a table (PostgreSQL's `pg_partitioned_table`
/// and `pg_inherits` with `relpartbound`), one `folio.constraint` row
/// each, so they are as durable and transactional as any constraint.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Partition {
    /// `PARTITION BY strategy (columns)`: `strategy` is PostgreSQL's
    /// `partstrat` (`r` range, `l` list, `h` hash); a key part that is an
    /// expression is [`Partition::EXPRESSION`] in `columns` and its SQL
    /// text in `exprs` (PostgreSQL's `partexprs`, in key order).
    Key {
        strategy: u8,
        columns: Vec<u16>,
        exprs: Vec<String>,
    },
    /// `PARTITION OF parent FOR VALUES ...`: `bound` is the bound as
    /// PostgreSQL's `pg_get_expr(relpartbound, oid)` prints it.
    Of {
        parent_oid: u64,
        /// The parent's name as the reader saw it (not stored: filled in
        /// when the definition is read, as a foreign key's `ref_table`).
        parent: String,
        bound: String,
    },
    /// `INHERITS (parent, ...)` (or `ALTER TABLE ... INHERIT parent`):
    /// one row per parent, `seqno` its place in the list from 1
    /// (PostgreSQL's `pg_inherits` row: `inhparent`, `inhseqno`).
    Inherits {
        parent_oid: u64,
        /// The parent's name as the reader saw it (not stored).
        parent: String,
        seqno: u16,
    },
}

impl Partition {
    /// A partition key's column position standing for an expression.
    pub const EXPRESSION: u16 = u16::MAX;
}

/// A foreign key: `columns` of the constrained table reference
/// `ref_columns` of table `ref_table_oid`, which a unique index covers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ForeignKey {
    pub columns: Vec<u16>,
    pub ref_table_oid: u64,
    /// The referenced table's name as the reader saw it (not stored:
    /// filled in when the definition is read, so renames follow).
    pub ref_table: String,
    pub ref_columns: Vec<u16>,
    pub on_delete: RefAction,
    pub on_update: RefAction,
    /// `MATCH FULL` (else `MATCH SIMPLE`, the default): a key is all NULL
    /// or all not NULL. Stored as flags bit 3 (rows written before it
    /// have it clear).
    pub match_full: bool,
    /// `ON DELETE SET NULL (columns)` / `SET DEFAULT (columns)`: the key
    /// columns the action sets (a subset of `columns`; empty: all of
    /// them). Stored after the flags byte when flags bit 4 is set.
    pub set_columns: Vec<u16>,
}

/// `ON DELETE` / `ON UPDATE` of a foreign key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RefAction {
    /// `NO ACTION` (the default) and `RESTRICT`: a referenced key may
    /// not go (PostgreSQL checks NO ACTION at the end of the statement and
    /// RESTRICT at once; folio checks both at once).
    NoAction,
    Restrict,
    /// `CASCADE`: the referencing rows are deleted too (ON DELETE), or
    /// take the new key (ON UPDATE).
    Cascade,
    /// `SET NULL`: the referencing rows' key columns become NULL.
    SetNull,
    /// `SET DEFAULT`: they take their columns' defaults.
    SetDefault,
}

impl RefAction {
    fn code(self) -> u8 {
        match self {
            RefAction::NoAction => b'a',
            RefAction::Restrict => b'r',
            RefAction::Cascade => b'c',
            RefAction::SetNull => b'n',
            RefAction::SetDefault => b'd',
        }
    }

    /// PostgreSQL's code for it (`pg_constraint.confdeltype`).
    pub fn pg_code(self) -> char {
        char::from(self.code())
    }

    /// Whether the referencing rows are changed by it (CASCADE, SET NULL,
    /// SET DEFAULT), rather than the change checked (NO ACTION, RESTRICT).
    pub fn acts(self) -> bool {
        matches!(
            self,
            RefAction::Cascade | RefAction::SetNull | RefAction::SetDefault
        )
    }

    /// Its SQL words.
    pub fn words(self) -> &'static str {
        match self {
            RefAction::NoAction => "NO ACTION",
            RefAction::Restrict => "RESTRICT",
            RefAction::Cascade => "CASCADE",
            RefAction::SetNull => "SET NULL",
            RefAction::SetDefault => "SET DEFAULT",
        }
    }

    fn from_code(code: u8) -> Result<RefAction, String> {
        match code {
            b'a' => Ok(RefAction::NoAction),
            b'r' => Ok(RefAction::Restrict),
            b'c' => Ok(RefAction::Cascade),
            b'n' => Ok(RefAction::SetNull),
            b'd' => Ok(RefAction::SetDefault),
            other => Err(format!("foreign key action {other}")),
        }
    }
}

const CONSTRAINT_DEFAULT: u8 = b'd';
const CONSTRAINT_GENERATED: u8 = b'g';
const CONSTRAINT_CHECK: u8 = b'c';
const CONSTRAINT_FOREIGN_KEY: u8 = b'f';
const CONSTRAINT_PARTITION_KEY: u8 = b'k';
const CONSTRAINT_PARTITION_OF: u8 = b'o';
const CONSTRAINT_INHERITS: u8 = b'i';

impl ConstraintDef {
    /// The referenced table's oid, for a foreign key.
    pub fn references(&self) -> Option<u64> {
        match &self.kind {
            ConstraintKind::ForeignKey(fk) => Some(fk.ref_table_oid),
            _ => None,
        }
    }

    /// The other table `folio.constraint_table` finds the row under: a
    /// foreign key's referenced table, a partition's parent.
    pub(crate) fn indexed_under(&self) -> Option<u64> {
        match &self.kind {
            ConstraintKind::Partition(
                Partition::Of { parent_oid, .. } | Partition::Inherits { parent_oid, .. },
            ) => Some(*parent_oid),
            _ => self.references(),
        }
    }

    pub(crate) fn encode(&self) -> Vec<u8> {
        let mut w = Writer::default();
        w.u64(self.oid).u64(self.table_oid).str(&self.name);
        match &self.kind {
            ConstraintKind::Default { column, expr } => {
                w.u8(CONSTRAINT_DEFAULT).u16(*column).str(expr);
            }
            ConstraintKind::Generated { column, expr } => {
                w.u8(CONSTRAINT_GENERATED).u16(*column).str(expr);
            }
            ConstraintKind::Check { expr } => {
                w.u8(CONSTRAINT_CHECK).str(expr);
            }
            ConstraintKind::ForeignKey(fk) => {
                w.u8(CONSTRAINT_FOREIGN_KEY).u16(fk.columns.len() as u16);
                for c in &fk.columns {
                    w.u16(*c);
                }
                w.u64(fk.ref_table_oid).u16(fk.ref_columns.len() as u16);
                for c in &fk.ref_columns {
                    w.u16(*c);
                }
                w.u8(fk.on_delete.code()).u8(fk.on_update.code());
            }
            ConstraintKind::Partition(Partition::Key {
                strategy,
                columns,
                exprs,
            }) => {
                w.u8(CONSTRAINT_PARTITION_KEY)
                    .u8(*strategy)
                    .u16(columns.len() as u16);
                for c in columns {
                    w.u16(*c);
                }
                // One text per expression position (none in a key of
                // columns only, so older rows read the same).
                for e in exprs {
                    w.str(e);
                }
            }
            ConstraintKind::Partition(Partition::Of {
                parent_oid, bound, ..
            }) => {
                w.u8(CONSTRAINT_PARTITION_OF).u64(*parent_oid).str(bound);
            }
            ConstraintKind::Partition(Partition::Inherits {
                parent_oid, seqno, ..
            }) => {
                w.u8(CONSTRAINT_INHERITS).u64(*parent_oid).u16(*seqno);
            }
        }
        let (match_full, set_columns) = match &self.kind {
            ConstraintKind::ForeignKey(fk) => (fk.match_full, &fk.set_columns[..]),
            _ => (false, &[][..]),
        };
        if !self.validated
            || self.deferrable.is_deferrable()
            || match_full
            || !set_columns.is_empty()
            || !self.local
            || self.no_inherit
        {
            let mut flags = 0;
            if !self.local {
                flags |= FLAG_INHERITED;
            }
            if self.no_inherit {
                flags |= FLAG_NO_INHERIT;
            }
            if match_full {
                flags |= FLAG_MATCH_FULL;
            }
            if !set_columns.is_empty() {
                flags |= FLAG_SET_COLUMNS;
            }
            if self.validated {
                flags |= FLAG_VALIDATED;
            }
            if self.deferrable.is_deferrable() {
                flags |= FLAG_DEFERRABLE;
            }
            if self.deferrable.initially_deferred() {
                flags |= FLAG_INITIALLY_DEFERRED;
            }
            w.u8(flags);
            if !set_columns.is_empty() {
                w.u16(set_columns.len() as u16);
                for c in set_columns {
                    w.u16(*c);
                }
            }
        }
        w.0
    }

    /// Decodes a row (`table` and a foreign key's `ref_table` are left
    /// empty: the reader fills them in).
    pub(crate) fn decode(bytes: &[u8]) -> Result<ConstraintDef, String> {
        let mut r = Reader(bytes);
        let oid = r.u64()?;
        let table_oid = r.u64()?;
        let name = r.str()?;
        let kind = match r.u8()? {
            CONSTRAINT_DEFAULT => ConstraintKind::Default {
                column: r.u16()?,
                expr: r.str()?,
            },
            CONSTRAINT_GENERATED => ConstraintKind::Generated {
                column: r.u16()?,
                expr: r.str()?,
            },
            CONSTRAINT_CHECK => ConstraintKind::Check { expr: r.str()? },
            CONSTRAINT_FOREIGN_KEY => {
                let n = r.u16()?;
                let columns = (0..n).map(|_| r.u16()).collect::<Result<_, _>>()?;
                let ref_table_oid = r.u64()?;
                let m = r.u16()?;
                let ref_columns = (0..m).map(|_| r.u16()).collect::<Result<_, _>>()?;
                ConstraintKind::ForeignKey(ForeignKey {
                    columns,
                    ref_table_oid,
                    ref_table: String::new(),
                    ref_columns,
                    on_delete: RefAction::from_code(r.u8()?)?,
                    on_update: RefAction::from_code(r.u8()?)?,
                    match_full: false,
                    set_columns: Vec::new(),
                })
            }
            CONSTRAINT_PARTITION_KEY => {
                let strategy = r.u8()?;
                let n = r.u16()?;
                let columns: Vec<u16> = (0..n).map(|_| r.u16()).collect::<Result<_, _>>()?;
                let exprs = (columns.iter())
                    .filter(|&&c| c == Partition::EXPRESSION)
                    .map(|_| r.str())
                    .collect::<Result<_, _>>()?;
                ConstraintKind::Partition(Partition::Key {
                    strategy,
                    columns,
                    exprs,
                })
            }
            CONSTRAINT_PARTITION_OF => ConstraintKind::Partition(Partition::Of {
                parent_oid: r.u64()?,
                parent: String::new(),
                bound: r.str()?,
            }),
            CONSTRAINT_INHERITS => ConstraintKind::Partition(Partition::Inherits {
                parent_oid: r.u64()?,
                parent: String::new(),
                seqno: r.u16()?,
            }),
            other => return Err(format!("constraint kind {other}")),
        };
        let mut kind = kind;
        let flags = match r.0.is_empty() {
            true => FLAG_VALIDATED,
            false => r.u8()?,
        };
        if flags & (FLAG_MATCH_FULL | FLAG_SET_COLUMNS) != 0 {
            let ConstraintKind::ForeignKey(fk) = &mut kind else {
                return Err(format!("constraint flags {flags}"));
            };
            fk.match_full = flags & FLAG_MATCH_FULL != 0;
            if flags & FLAG_SET_COLUMNS != 0 {
                let n = r.u16()?;
                fk.set_columns = (0..n).map(|_| r.u16()).collect::<Result<_, _>>()?;
            }
        }
        let deferrable = match (flags & FLAG_DEFERRABLE, flags & FLAG_INITIALLY_DEFERRED) {
            (0, 0) => Deferrable::No,
            (0, _) => return Err(format!("constraint flags {flags}")),
            (_, 0) => Deferrable::InitiallyImmediate,
            _ => Deferrable::InitiallyDeferred,
        };
        r.end()?;
        Ok(ConstraintDef {
            oid,
            name,
            table_oid,
            table: String::new(),
            kind,
            validated: flags & FLAG_VALIDATED != 0,
            deferrable,
            local: flags & FLAG_INHERITED == 0,
            no_inherit: flags & FLAG_NO_INHERIT != 0,
        })
    }
}

pub(crate) const KIND_TABLE: u8 = b'r';
pub(crate) const KIND_INDEX: u8 = b'i';
pub(crate) const KIND_SEQUENCE: u8 = b'S';
pub(crate) const KIND_VIEW: u8 = b'v';
/// A materialized view (`matviews.rs`): a table whose class row also
/// holds a view's body and a populated byte after the columns.
pub(crate) const KIND_MATVIEW: u8 = b'm';
/// An enum type (`enums.rs`): no storage, its labels after the columns.
pub(crate) const KIND_ENUM: u8 = b'e';
/// A domain (`domains.rs`): no storage, its base type and constraints
/// after the columns.
pub(crate) const KIND_DOMAIN: u8 = b'd';
/// A composite type (`composites.rs`): no storage, its fields after the
/// columns.
pub(crate) const KIND_COMPOSITE: u8 = b'c';
/// A schema (`schemas.rs`): no storage, named `schema.`.
pub(crate) const KIND_SCHEMA: u8 = b'n';
/// An extension (`extensions.rs`): no storage, named `.extension`.
pub(crate) const KIND_EXTENSION: u8 = b'x';
/// A SQL function (`functions.rs`): no storage, its signature and body
/// after the columns.
pub(crate) const KIND_FUNCTION: u8 = b'f';
/// A row trigger (`triggers.rs`): no storage, its definition after the
/// columns.
pub(crate) const KIND_TRIGGER: u8 = b'g';
/// A rewrite rule (`rules.rs`): no storage, its definition after the
/// columns.
pub(crate) const KIND_RULE: u8 = b'w';

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
    /// An index that is its table's primary key: bit 2 of that byte.
    /// Indexes made before it existed have it clear (their table's
    /// definition recognises them by name: `Catalog::table_def`).
    pub primary: bool,
    /// An index a PRIMARY KEY or UNIQUE constraint made: bit 3.
    pub constraint: bool,
    /// The table's clustered index (`CLUSTER`, `rewrite.rs`): bit 4.
    pub clustered: bool,
    /// A deferrable key constraint's index: bit 5 `DEFERRABLE`, bit 6
    /// `INITIALLY DEFERRED` (clear in rows written before them: not
    /// deferrable).
    pub deferrable: Deferrable,
    /// A unique index's `NULLS NOT DISTINCT`: bit 7 (clear in rows
    /// written before it: NULLs distinct).
    pub nulls: Nulls,
    pub columns: Vec<u16>,
    pub order: Vec<KeyOrder>,
    /// A sequence's options (kind `S` only), after the columns.
    pub sequence: Option<crate::sequences::SequenceOptions>,
    /// A sequence of a `GENERATED ALWAYS AS IDENTITY` column (after the
    /// options, kind `S` only).
    pub always: bool,
    /// The sequence of an identity column (`GENERATED ... AS IDENTITY`),
    /// not a `serial`'s: bit 1 of the byte whose bit 0 is `always` (rows
    /// written before it have it clear: an `always` one is an identity's
    /// all the same).
    pub identity: bool,
    /// A sequence's restart generation (after `always`, kind `S` only;
    /// absent in rows written before restarts were transactional: 0):
    /// which of its values in `folio.oid` is current
    /// (`sequences.rs`, "Transactional restarts").
    pub generation: u32,
    /// A view's query and dependencies (kinds `v` and `m`, after the
    /// columns: `views.rs`).
    pub view: Option<crate::views::ViewBody>,
    /// A materialized view holds its query's rows (kind `m` only, a byte
    /// after the view's body: `matviews.rs`).
    pub populated: bool,
    /// An index's expressions and predicate (kind `i` only, after the
    /// columns; absent when empty: `index_exprs.rs`).
    pub exprs: IndexExprs,
    /// An enum type's labels (kind `e` only, after the columns:
    /// `enums.rs`).
    pub enum_body: Option<crate::enums::EnumBody>,
    /// A domain's definition (kind `d` only, after the columns:
    /// `domains.rs`; its oid and name are the row's).
    pub domain: Option<crate::domains::DomainType>,
    /// A composite type's fields (kind `c` only, after the columns:
    /// `composites.rs`).
    pub composite: Option<crate::composites::CompositeBody>,
    /// A SQL function's signature and body (kind `f` only, after the
    /// columns: `functions.rs`).
    pub function: Option<crate::functions::FunctionBody>,
    /// A trigger's definition (kind `g` only, after the columns:
    /// `triggers.rs`; its oid and name are the row's).
    pub trigger: Option<crate::triggers::TriggerDef>,
    /// A table's or materialized view's storage options (kinds `r` and
    /// `m`, last; absent when there are none: `storage_options.rs`).
    pub storage: crate::storage_options::StorageOptions,
    /// A rule's definition (kind `w` only, after the columns: `rules.rs`;
    /// its oid and name are the row's).
    pub rule: Option<crate::rules::RuleDef>,
}

impl ClassRow {
    /// A row of `kind` with no index, sequence or view parts.
    pub(crate) fn new(oid: u64, name: &str, kind: u8, root: PageId) -> ClassRow {
        ClassRow {
            oid,
            name: name.to_string(),
            kind,
            root,
            table_oid: 0,
            unique: false,
            prefix_free: false,
            primary: false,
            constraint: false,
            clustered: false,
            deferrable: Deferrable::No,
            nulls: Nulls::Distinct,
            columns: Vec::new(),
            order: Vec::new(),
            sequence: None,
            always: false,
            identity: false,
            generation: 0,
            view: None,
            populated: false,
            exprs: IndexExprs::default(),
            enum_body: None,
            domain: None,
            composite: None,
            function: None,
            trigger: None,
            storage: Default::default(),
            rule: None,
        }
    }

    /// Whether it is a relation with a heap: a table, or a materialized
    /// view (the kinds [`TableDef`] describes).
    pub(crate) fn has_heap(&self) -> bool {
        self.kind == KIND_TABLE || self.kind == KIND_MATVIEW
    }

    pub(crate) fn encode(&self) -> Vec<u8> {
        let mut w = Writer::default();
        w.u64(self.oid)
            .str(&self.name)
            .u8(self.kind)
            .u64(self.root.0)
            .u64(self.table_oid)
            .u8(self.unique as u8
                | (self.prefix_free as u8) << 1
                | (self.primary as u8) << 2
                | (self.constraint as u8) << 3
                | (self.clustered as u8) << 4
                | (self.deferrable.is_deferrable() as u8) << 5
                | (self.deferrable.initially_deferred() as u8) << 6
                | ((self.nulls == Nulls::NotDistinct) as u8) << 7)
            .u16(self.columns.len() as u16);
        for (c, o) in self.columns.iter().zip(&self.order) {
            w.u16(*c | o.bits());
        }
        if let Some(options) = &self.sequence {
            options.encode(&mut w);
            w.u8(self.always as u8 | (self.identity as u8) << 1)
                .u32(self.generation);
        }
        if let Some(view) = &self.view {
            view.encode(&mut w);
            if self.kind == KIND_VIEW {
                view.encode_view_options(&mut w);
            }
        }
        if self.kind == KIND_MATVIEW {
            w.u8(self.populated as u8);
        }
        if self.kind == KIND_INDEX && self.exprs.is_stored() {
            self.exprs.encode(&mut w);
        }
        if let Some(body) = &self.enum_body {
            body.encode(&mut w);
        }
        if let Some(body) = &self.domain {
            body.encode(&mut w);
        }
        if let Some(body) = &self.composite {
            body.encode(&mut w);
        }
        if let Some(body) = &self.function {
            body.encode(&mut w);
        }
        if let Some(def) = &self.trigger {
            def.encode(&mut w);
        }
        if self.has_heap() && !self.storage.is_empty() {
            self.storage.encode(&mut w);
        }
        if let Some(def) = &self.rule {
            def.encode(&mut w);
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
        let deferrable = match (flags & 32 != 0, flags & 64 != 0) {
            (false, false) => Deferrable::No,
            (true, false) => Deferrable::InitiallyImmediate,
            (true, true) => Deferrable::InitiallyDeferred,
            (false, true) => return Err(format!("index flags {flags:#04x}")),
        };
        let nulls = match flags & 128 != 0 {
            true => Nulls::NotDistinct,
            false => Nulls::Distinct,
        };
        let (unique, prefix_free) = (flags & 1 != 0, flags & 2 != 0);
        let (primary, constraint) = (flags & 4 != 0, flags & 8 != 0);
        let clustered = flags & 16 != 0;
        let n = r.u16()?;
        let words: Vec<u16> = (0..n).map(|_| r.u16()).collect::<Result<_, _>>()?;
        let columns = words.iter().map(|w| w & POSITION_MASK).collect();
        let order = words.iter().map(|w| KeyOrder::from_bits(*w)).collect();
        let (sequence, generated, generation) = match kind {
            KIND_SEQUENCE => (
                Some(crate::sequences::SequenceOptions::decode(&mut r)?),
                r.u8()?,
                match r.0.is_empty() {
                    true => 0,
                    false => r.u32()?,
                },
            ),
            _ => (None, 0, 0),
        };
        let view = match kind {
            KIND_VIEW | KIND_MATVIEW => Some(crate::views::ViewBody::decode(&mut r)?),
            _ => None,
        };
        let view = match (view, kind) {
            (Some(mut body), KIND_VIEW) => {
                body.decode_view_options(&mut r)?;
                Some(body)
            }
            (view, _) => view,
        };
        let populated = match kind {
            KIND_MATVIEW => match r.u8()? {
                0 => false,
                1 => true,
                other => return Err(format!("populated byte {other}")),
            },
            _ => false,
        };
        let exprs = match kind {
            KIND_INDEX => IndexExprs::decode(&mut r)?,
            _ => IndexExprs::default(),
        };
        let enum_body = match kind {
            KIND_ENUM => Some(crate::enums::EnumBody::decode(&mut r)?),
            _ => None,
        };
        let domain = match kind {
            KIND_DOMAIN => Some(crate::domains::DomainType::decode(&mut r)?),
            _ => None,
        };
        let composite = match kind {
            KIND_COMPOSITE => Some(crate::composites::CompositeBody::decode(&mut r)?),
            _ => None,
        };
        let function = match kind {
            KIND_FUNCTION => Some(crate::functions::FunctionBody::decode(&mut r)?),
            _ => None,
        };
        let trigger = match kind {
            KIND_TRIGGER => Some(crate::triggers::TriggerDef::decode(&mut r)?),
            _ => None,
        };
        let storage = match kind {
            KIND_TABLE | KIND_MATVIEW if !r.0.is_empty() => {
                crate::storage_options::StorageOptions::decode(&mut r)?
            }
            _ => Default::default(),
        };
        let rule = match kind {
            KIND_RULE => Some(crate::rules::RuleDef::decode(&mut r)?),
            _ => None,
        };
        let (always, identity) = (generated & 1 != 0, generated != 0);
        r.end()?;
        if ![
            KIND_TABLE,
            KIND_INDEX,
            KIND_SEQUENCE,
            KIND_VIEW,
            KIND_MATVIEW,
            KIND_ENUM,
            KIND_DOMAIN,
            KIND_COMPOSITE,
            KIND_SCHEMA,
            KIND_EXTENSION,
            KIND_FUNCTION,
            KIND_TRIGGER,
            KIND_RULE,
        ]
        .contains(&kind)
        {
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
            primary,
            constraint,
            clustered,
            deferrable,
            nulls,
            columns,
            order,
            sequence,
            always,
            identity,
            generation,
            view,
            populated,
            exprs,
            enum_body,
            domain,
            composite,
            function,
            trigger,
            storage,
            rule,
        })
    }
}

/// A `folio.attribute` row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct AttributeRow {
    pub table_oid: u64,
    /// The column's slot in stored rows (`layout.rs`): never reused.
    pub number: u16,
    pub column: ColumnDef,
    /// Dropped (`ALTER TABLE ... DROP COLUMN`): bit 1 of the byte whose
    /// bit 0 is `not_null` (rows written before drops existed have it
    /// clear). Bit 2 is set when the column is not `local` (so rows
    /// written before inheritance read as local).
    pub dropped: bool,
}

// After the flags byte, a column with a `COLLATE` clause has the
// collation's oid (4 bytes); rows without it (and rows written before
// column collations existed) end at the flags.

impl AttributeRow {
    pub(crate) fn encode(&self) -> Vec<u8> {
        let mut w = Writer::default();
        w.u64(self.table_oid)
            .u16(self.number)
            .str(&self.column.name)
            .u32(self.column.type_oid)
            .i32(self.column.typmod)
            .u8(self.column.not_null as u8
                | (self.dropped as u8) << 1
                | (!self.column.local as u8) << 2);
        if let Some(collation) = self.column.collation {
            w.u32(collation);
        }
        w.0
    }

    pub(crate) fn decode(bytes: &[u8]) -> Result<AttributeRow, String> {
        let mut r = Reader(bytes);
        let (table_oid, number) = (r.u64()?, r.u16()?);
        let (name, type_oid, typmod) = (r.str()?, r.u32()?, r.i32()?);
        let flags = r.u8()?;
        if flags > 7 {
            return Err(format!("column flags {flags:#04x}"));
        }
        let collation = match r.0.is_empty() {
            true => None,
            false => Some(r.u32()?),
        };
        r.end()?;
        Ok(AttributeRow {
            table_oid,
            number,
            column: ColumnDef {
                name,
                type_oid,
                typmod,
                not_null: flags & 1 != 0,
                local: flags & 4 == 0,
                collation,
            },
            dropped: flags & 2 != 0,
        })
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
            primary: true,
            constraint: true,
            clustered: true,
            deferrable: Deferrable::No,
            nulls: Nulls::Distinct,
            columns: vec![0, 2],
            order: vec![KeyOrder::new(false), KeyOrder::new(true)],
            sequence: None,
            always: false,
            identity: false,
            generation: 0,
            view: None,
            populated: false,
            exprs: IndexExprs::default(),
            enum_body: None,
            function: None,
            trigger: None,
            rule: None,
            domain: None,
            composite: None,
            storage: Default::default(),
        };
        assert_eq!(ClassRow::decode(&class.encode()), Ok(class.clone()));
        // A table's storage options follow its columns; none: no bytes.
        let plain = ClassRow::new(16390, "t", KIND_TABLE, PageId(4));
        let tuned = ClassRow {
            storage: crate::storage_options::StorageOptions(vec![
                ("fillfactor".into(), "70".into()),
                ("autovacuum_enabled".into(), "off".into()),
            ]),
            ..plain.clone()
        };
        assert_eq!(ClassRow::decode(&tuned.encode()), Ok(tuned.clone()));
        assert!(tuned.encode().len() > plain.encode().len());
        assert_eq!(ClassRow::decode(&plain.encode()), Ok(plain));
        let complex = ClassRow {
            composite: Some(crate::composites::CompositeBody {
                array_oid: 16410,
                fields: vec![("r".into(), 701, -1), ("c".into(), 1043, 14)],
            }),
            ..ClassRow::new(16409, "complex", KIND_COMPOSITE, PageId(0))
        };
        assert_eq!(ClassRow::decode(&complex.encode()), Ok(complex));
        for deferrable in [
            Deferrable::InitiallyImmediate,
            Deferrable::InitiallyDeferred,
        ] {
            let key = ClassRow {
                deferrable,
                ..class.clone()
            };
            assert_eq!(ClassRow::decode(&key.encode()), Ok(key));
        }
        // NULLS NOT DISTINCT takes the flag byte's last bit.
        let not_distinct = ClassRow {
            deferrable: Deferrable::InitiallyDeferred,
            nulls: Nulls::NotDistinct,
            ..class.clone()
        };
        assert_eq!(ClassRow::decode(&not_distinct.encode()), Ok(not_distinct));
        let expression = ClassRow {
            columns: vec![IndexDef::EXPRESSION, 1],
            exprs: IndexExprs {
                keys: vec![crate::index_exprs::KeyExpr {
                    sql: "lower(name)".into(),
                    type_oid: 25,
                    typmod: -1,
                }],
                predicate: Some("done = false".into()),
                reads: vec![0, 3],
                include: vec![2],
            },
            ..class.clone()
        };
        assert_eq!(ClassRow::decode(&expression.encode()), Ok(expression));
        let mood = ClassRow {
            enum_body: Some(crate::enums::EnumBody {
                array_oid: 16402,
                labels: vec![
                    (16403, 1.0f64.to_bits(), "sad".into()),
                    (16404, 1.5f64.to_bits(), "ok".into()),
                ],
            }),
            ..ClassRow::new(16401, "mood", KIND_ENUM, PageId(0))
        };
        assert_eq!(ClassRow::decode(&mood.encode()), Ok(mood));
        let view = ClassRow {
            view: Some(crate::views::ViewBody {
                query: "SELECT a FROM t".into(),
                depends_on: vec![16383, 16390],
                check_option: crate::views::CheckOption::None,
                defaults: Vec::new(),
                options: Vec::new(),
            }),
            ..ClassRow::new(16401, "v", KIND_VIEW, PageId(0))
        };
        assert_eq!(ClassRow::decode(&view.encode()), Ok(view.clone()));
        // A check option is a byte after a view's body.
        let checked = ClassRow {
            view: Some(crate::views::ViewBody {
                query: "SELECT a FROM t WHERE a > 0".into(),
                depends_on: vec![16383],
                check_option: crate::views::CheckOption::Cascaded,
                defaults: Vec::new(),
                options: vec![("check_option".into(), "cascaded".into())],
            }),
            ..ClassRow::new(16402, "w", KIND_VIEW, PageId(0))
        };
        assert_eq!(ClassRow::decode(&checked.encode()), Ok(checked.clone()));
        // Column defaults follow the check option's byte (0 for none).
        for check_option in [
            crate::views::CheckOption::None,
            crate::views::CheckOption::Local,
        ] {
            let defaulted = ClassRow {
                view: Some(crate::views::ViewBody {
                    query: "SELECT a, b FROM t".into(),
                    depends_on: vec![16383],
                    check_option,
                    defaults: vec![
                        crate::views::ViewDefault {
                            column: 0,
                            expr: "42".into(),
                        },
                        crate::views::ViewDefault {
                            column: 1,
                            expr: "'x' || 'y'".into(),
                        },
                    ],
                    options: match check_option {
                        crate::views::CheckOption::None => Vec::new(),
                        _ => vec![("check_option".into(), "local".into())],
                    },
                }),
                ..ClassRow::new(16403, "d", KIND_VIEW, PageId(0))
            };
            assert_eq!(ClassRow::decode(&defaulted.encode()), Ok(defaulted));
        }
        // Options follow the defaults (a count of 0 when there are none),
        // in the order given.
        let barrier = ClassRow {
            view: Some(crate::views::ViewBody {
                query: "SELECT a FROM t".into(),
                depends_on: vec![16383],
                check_option: crate::views::CheckOption::Local,
                defaults: Vec::new(),
                options: vec![
                    ("security_barrier".into(), "true".into()),
                    ("check_option".into(), "local".into()),
                ],
            }),
            ..ClassRow::new(16404, "b", KIND_VIEW, PageId(0))
        };
        assert_eq!(ClassRow::decode(&barrier.encode()), Ok(barrier));
        for populated in [false, true] {
            let matview = ClassRow {
                kind: KIND_MATVIEW,
                root: PageId(12),
                populated,
                ..view.clone()
            };
            assert_eq!(ClassRow::decode(&matview.encode()), Ok(matview));
        }
        let sequence = ClassRow {
            kind: KIND_SEQUENCE,
            columns: vec![1],
            order: vec![KeyOrder::default()],
            sequence: Some(crate::sequences::SequenceOptions {
                type_oid: 23,
                increment: -3,
                min: i64::from(i32::MIN),
                max: -1,
                start: -1,
                cache: 1,
                cycle: true,
            }),
            always: true,
            identity: true,
            generation: 7,
            ..class
        };
        assert_eq!(ClassRow::decode(&sequence.encode()), Ok(sequence.clone()));
        // A sequence row written before generations: generation 0.
        let bytes = sequence.encode();
        let old = ClassRow::decode(&bytes[..bytes.len() - 4]).unwrap();
        assert_eq!(old.generation, 0);
        let attr = AttributeRow {
            table_oid: 16383,
            number: 1,
            column: ColumnDef {
                local: true,
                collation: None,
                name: "abalance".into(),
                type_oid: 23,
                typmod: -1,
                not_null: false,
            },
            dropped: false,
        };
        assert_eq!(AttributeRow::decode(&attr.encode()), Ok(attr.clone()));
        let collated = AttributeRow {
            column: ColumnDef {
                collation: Some(950),
                ..attr.column.clone()
            },
            ..attr.clone()
        };
        assert_eq!(AttributeRow::decode(&collated.encode()), Ok(collated));
        let dropped = AttributeRow {
            dropped: true,
            column: ColumnDef {
                not_null: true,
                ..attr.column
            },
            ..attr
        };
        assert_eq!(AttributeRow::decode(&dropped.encode()), Ok(dropped));
        assert!(ClassRow::decode(&[1, 2, 3]).is_err());
        let kinds = [
            ConstraintKind::Default {
                column: 3,
                expr: "now()".into(),
            },
            ConstraintKind::Check {
                expr: "a > 0".into(),
            },
            ConstraintKind::Generated {
                column: 2,
                expr: "a * 2".into(),
            },
            ConstraintKind::ForeignKey(ForeignKey {
                columns: vec![1, 2],
                ref_table_oid: 16390,
                ref_table: String::new(),
                ref_columns: vec![0, 1],
                on_delete: RefAction::Cascade,
                on_update: RefAction::NoAction,
                match_full: false,
                set_columns: Vec::new(),
            }),
            ConstraintKind::ForeignKey(ForeignKey {
                columns: vec![1, 2],
                ref_table_oid: 16390,
                ref_table: String::new(),
                ref_columns: vec![0, 1],
                on_delete: RefAction::SetDefault,
                on_update: RefAction::SetNull,
                match_full: true,
                set_columns: vec![2],
            }),
        ];
        for kind in kinds {
            let deferrables = [
                Deferrable::No,
                Deferrable::InitiallyImmediate,
                Deferrable::InitiallyDeferred,
            ];
            for validated in [true, false] {
                for deferrable in deferrables {
                    for (local, no_inherit) in [(true, false), (false, false), (true, true)] {
                        let c = ConstraintDef {
                            oid: 16400,
                            name: "t_a_check".into(),
                            table_oid: 16383,
                            table: String::new(),
                            kind: kind.clone(),
                            validated,
                            deferrable,
                            local,
                            no_inherit,
                        };
                        assert_eq!(ConstraintDef::decode(&c.encode()), Ok(c));
                    }
                }
            }
        }
        assert!(ConstraintDef::decode(&[0; 17]).is_err());
        // Rows before the flags byte (none, or a `NOT VALID` one's 0) read
        // as not deferrable.
        let c = ConstraintDef {
            local: true,
            no_inherit: false,
            oid: 16400,
            name: "t_fkey".into(),
            table_oid: 16383,
            table: String::new(),
            kind: ConstraintKind::Check {
                expr: "a > 0".into(),
            },
            validated: true,
            deferrable: Deferrable::No,
        };
        let mut bytes = c.encode();
        assert_eq!(ConstraintDef::decode(&bytes), Ok(c.clone()));
        bytes.push(0);
        let not_valid = ConstraintDef::decode(&bytes).unwrap();
        assert!(!not_valid.validated && not_valid.deferrable == Deferrable::No);
    }

    // Proves an inheritance row keeps its parent and place, is found
    // under the parent, and reads back with the parent's name left empty.
    #[test]
    fn inherits_rows_round_trip() {
        let row = ConstraintDef {
            local: true,
            no_inherit: false,
            oid: 7,
            name: String::new(),
            table_oid: 16390,
            table: String::new(),
            kind: ConstraintKind::Partition(Partition::Inherits {
                parent_oid: 16384,
                parent: String::new(),
                seqno: 2,
            }),
            validated: true,
            deferrable: Deferrable::No,
        };
        assert_eq!(row.indexed_under(), Some(16384));
        assert_eq!(ConstraintDef::decode(&row.encode()).unwrap(), row);
    }

    // Proves a partition key with expression parts keeps each text in
    // key order, and a key of columns only encodes as before (no text).
    #[test]
    fn partition_key_expressions_round_trip() {
        let key = |columns: Vec<u16>, exprs: Vec<&str>| ConstraintDef {
            local: true,
            no_inherit: false,
            oid: 9,
            name: String::new(),
            table_oid: 16400,
            table: String::new(),
            kind: ConstraintKind::Partition(Partition::Key {
                strategy: b'r',
                columns,
                exprs: exprs.into_iter().map(String::from).collect(),
            }),
            validated: true,
            deferrable: Deferrable::No,
        };
        let mixed = key(
            vec![0, Partition::EXPRESSION, 2, Partition::EXPRESSION],
            vec!["b + 0", "abs(c)"],
        );
        assert_eq!(ConstraintDef::decode(&mixed.encode()).unwrap(), mixed);
        let plain = key(vec![1, 0], vec![]);
        let bytes = plain.encode();
        assert_eq!(ConstraintDef::decode(&bytes).unwrap(), plain);
        assert!(bytes.len() < mixed.encode().len());
    }
}
