//! `ALTER TABLE ... DROP COLUMN`: the column marked dropped in its
//! `folio.attribute` row (its slot stays in the row layout: `layout.rs`),
//! what uses it dropped with it, and every stored position past it moved
//! down by one. Design: the README's "Dropped columns".

use crate::catalog::{Catalog, attribute_named};
use crate::defs::{ClassRow, ConstraintDef, ConstraintKind, IndexDef, KIND_INDEX, KIND_SEQUENCE};
use crate::error::CatalogError;
use crate::layout::dropped_name;
use folio_txn::{LockMode, Transaction};

/// The positions `columns` after column `dropped` goes (none is it; an
/// index's expression keys stay [`IndexDef::EXPRESSION`]).
fn shifted(columns: &[u16], dropped: u16) -> Vec<u16> {
    (columns.iter())
        .map(|&c| match c {
            IndexDef::EXPRESSION => c,
            c if c > dropped => c - 1,
            c => c,
        })
        .collect()
}

/// What becomes of a `folio.constraint` row of the table (or naming it).
enum Fate {
    Keeps,
    Goes,
    /// A foreign key referencing the column: goes with CASCADE only.
    Depends,
    Changes(ConstraintKind),
}

/// The fate of constraint `def` when column `position` of table `table`
/// goes; `uses`: whether a CHECK expression names the column.
fn fate(def: &ConstraintDef, table: u64, position: u16, uses: &dyn Fn(&str) -> bool) -> Fate {
    match &def.kind {
        ConstraintKind::Default { column, .. } if *column == position => Fate::Goes,
        ConstraintKind::Default { column, expr } if *column > position => {
            Fate::Changes(ConstraintKind::Default {
                column: column - 1,
                expr: expr.clone(),
            })
        }
        ConstraintKind::Default { .. } => Fate::Keeps,
        // The SQL layer refuses to drop a column a generation expression
        // reads (2BP01) before it comes here.
        ConstraintKind::Generated { column, .. } if *column == position => Fate::Goes,
        ConstraintKind::Generated { column, expr } if *column > position => {
            Fate::Changes(ConstraintKind::Generated {
                column: column - 1,
                expr: expr.clone(),
            })
        }
        ConstraintKind::Generated { .. } => Fate::Keeps,
        ConstraintKind::Check { expr } if def.table_oid == table && uses(expr) => Fate::Goes,
        ConstraintKind::Check { .. } => Fate::Keeps,
        ConstraintKind::ForeignKey(fk) => {
            let (own, referenced) = (def.table_oid == table, fk.ref_table_oid == table);
            if referenced && fk.ref_columns.contains(&position) {
                return Fate::Depends;
            }
            if own && fk.columns.contains(&position) {
                return Fate::Goes;
            }
            let mut moved = fk.clone();
            if own {
                moved.columns = shifted(&fk.columns, position);
                moved.set_columns = shifted(&fk.set_columns, position);
            }
            if referenced {
                moved.ref_columns = shifted(&fk.ref_columns, position);
            }
            match moved == *fk {
                true => Fate::Keeps,
                false => Fate::Changes(ConstraintKind::ForeignKey(moved)),
            }
        }
        // (The SQL layer refuses to drop a partition key's column.)
        ConstraintKind::Partition(crate::defs::Partition::Key {
            strategy,
            columns,
            exprs,
        }) => {
            let expression = crate::defs::Partition::EXPRESSION;
            match (columns.iter()).any(|&c| c > position && c != expression) {
                true => Fate::Changes(ConstraintKind::Partition(crate::defs::Partition::Key {
                    strategy: *strategy,
                    columns: (columns.iter())
                        .map(|&c| match c == expression {
                            true => c,
                            false => shifted(&[c], position)[0],
                        })
                        .collect(),
                    exprs: exprs.clone(),
                })),
                false => Fate::Keeps,
            }
        }
        ConstraintKind::Partition(_) => Fate::Keeps,
    }
}

impl Catalog {
    /// `ALTER TABLE table_name DROP [COLUMN] column [CASCADE]`, under the
    /// table's DDL lock and `ACCESS EXCLUSIVE`: the column is marked
    /// dropped (no row is rewritten; its values stay in the rows, unread),
    /// and with it go its indexes (so PRIMARY KEY and UNIQUE constraints
    /// over it), its default, the CHECK constraints whose expression
    /// names it (`uses`: the SQL layer's reading of a stored expression),
    /// the table's foreign keys over it and the sequences it owns. A
    /// foreign key referencing the column is 2BP01 without `cascade`, and
    /// dropped with it: those are returned, in creation order, with their
    /// tables' names (PostgreSQL's NOTICE). 42703 if there is no such
    /// column. The last column may go (a table of no columns, as
    /// PostgreSQL's).
    pub fn drop_column(
        &self,
        txn: &mut Transaction,
        table_name: &str,
        column: &str,
        cascade: bool,
        uses: &dyn Fn(&str) -> bool,
    ) -> Result<Vec<ConstraintDef>, CatalogError> {
        let locked = self.lock_table(txn, table_name)?;
        self.lock_for_ddl(txn, locked.oid, LockMode::AccessExclusive)?;
        self.alter_row_type(txn, table_name, locked.oid, false)?;
        // Read with a snapshot taken once the table is locked, whatever
        // the transaction's isolation: what committed while this waited
        // is seen (a foreign key another table added meanwhile), and no
        // key naming the table can come or go now (that locks it too).
        txn.with_latest_snapshot(|txn| self.drop_locked(txn, table_name, column, cascade, uses))
    }

    /// [`Catalog::drop_column`] once the table is locked.
    fn drop_locked(
        &self,
        txn: &mut Transaction,
        table_name: &str,
        column: &str,
        cascade: bool,
        uses: &dyn Fn(&str) -> bool,
    ) -> Result<Vec<ConstraintDef>, CatalogError> {
        let missing = || CatalogError::NoSuchRelation(table_name.to_string());
        let table = self.table(txn, table_name)?.ok_or_else(missing)?;
        let (attribute_tid, mut attribute) =
            attribute_named(self.attribute_rows(txn, table.oid)?, table_name, column)?;
        let position = table.column(column).ok_or_else(|| {
            CatalogError::Corrupt(format!(
                "column \"{column}\" of \"{table_name}\" has an attribute row and no position"
            ))
        })? as u16;
        let constraints: Vec<_> = (self.constraint_rows(txn, table.oid)?.into_iter())
            .map(|(tid, def)| {
                let fate = fate(&def, table.oid, position, uses);
                (tid, def, fate)
            })
            .collect();
        // The dependents, named as the table's definition names them.
        let dependents: Vec<ConstraintDef> = (table.referenced_by.iter())
            .filter(|key| {
                constraints
                    .iter()
                    .any(|(_, c, fate)| c.oid == key.oid && matches!(fate, Fate::Depends))
            })
            .cloned()
            .collect();
        if !dependents.is_empty() && !cascade {
            return Err(CatalogError::ColumnReferenced {
                table: table_name.to_string(),
                column: column.to_string(),
                dependents: dependents
                    .iter()
                    .map(|d| (d.name.clone(), d.table.clone()))
                    .collect(),
            });
        }
        // The other tables whose foreign keys change or go must be read
        // again by their writers (`drop_constraint`'s rule).
        for (_, def, fate) in &constraints {
            if matches!(fate, Fate::Keeps) {
                continue;
            }
            let mut others = vec![def.table_oid];
            others.extend(def.references());
            for other in others.into_iter().filter(|&o| o != table.oid) {
                self.lock_for_ddl(txn, other, LockMode::Share)?;
            }
        }
        // Its indexes and the sequences its columns own: the sequences'
        // rows locked (ALTER SEQUENCE changes them under that lock alone),
        // then read again.
        let owned = |c: &ClassRow| {
            (c.kind == KIND_INDEX || c.kind == KIND_SEQUENCE) && c.table_oid == table.oid
        };
        for (tid, class) in self.class_rows(txn)? {
            if class.kind == KIND_SEQUENCE && owned(&class) {
                self.lock_class_row(txn, tid, missing)?;
            }
        }
        let classes: Vec<(folio_heap::Tid, ClassRow)> = (self.class_rows(txn)?.into_iter())
            .filter(|(_, c)| owned(c))
            .collect();
        self.in_savepoint(txn, |txn| {
            self.drop_descriptions(txn, table.oid, |d| {
                d == crate::Described::Column(attribute.number)
            })?;
            attribute.dropped = true;
            // A dropped domain column is read as its base type (the
            // domain may go next: the layout must not need it).
            if let Some(d) = table
                .domains
                .iter()
                .find(|d| d.oid == attribute.column.type_oid)
            {
                attribute.column.type_oid = d.base_oid;
                attribute.column.typmod = d.base_typmod;
            }
            attribute.column.name = dropped_name(attribute.number);
            attribute.column.not_null = false;
            self.update_attribute(txn, attribute_tid, &attribute, table_name)?;
            for (tid, def, fate) in &constraints {
                match fate {
                    Fate::Keeps => {}
                    Fate::Goes | Fate::Depends => self.constraints.delete(txn, *tid).map(drop)?,
                    Fate::Changes(kind) => {
                        let moved = ConstraintDef {
                            kind: kind.clone(),
                            ..def.clone()
                        };
                        self.update_constraint(txn, *tid, &moved)?;
                    }
                }
            }
            for (tid, class) in &classes {
                // (An index whose expressions or predicate read it goes
                // too, as PostgreSQL's.)
                if class.columns.contains(&position)
                    || class.exprs.reads.contains(&position)
                    || class.exprs.include.contains(&position)
                {
                    // Its index (its pages come back once this commits:
                    // `reclaim.rs`), or the sequence it owns.
                    self.classes.delete(txn, *tid)?;
                    if class.kind == KIND_INDEX {
                        self.note_dropped(txn, class.oid, KIND_INDEX, class.root)?;
                    }
                } else if shifted(&class.columns, position) != class.columns
                    || shifted(&class.exprs.reads, position) != class.exprs.reads
                    || shifted(&class.exprs.include, position) != class.exprs.include
                {
                    let moved = ClassRow {
                        columns: shifted(&class.columns, position),
                        exprs: crate::index_exprs::IndexExprs {
                            reads: shifted(&class.exprs.reads, position),
                            include: shifted(&class.exprs.include, position),
                            ..class.exprs.clone()
                        },
                        ..class.clone()
                    };
                    self.update_class(txn, *tid, &moved)?;
                }
            }
            Ok(())
        })?;
        // Kept by position, which this shifts: gathered again by ANALYZE.
        self.forget_statistics(table.oid);
        Ok(dependents)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::defs::{ForeignKey, RefAction};

    fn constraint(table_oid: u64, kind: ConstraintKind) -> ConstraintDef {
        ConstraintDef {
            local: true,
            no_inherit: false,
            oid: 16400,
            name: "c".into(),
            table_oid,
            table: String::new(),
            kind,
            validated: true,
            deferrable: crate::defs::Deferrable::No,
        }
    }

    fn key(columns: Vec<u16>, ref_table_oid: u64, ref_columns: Vec<u16>) -> ConstraintKind {
        ConstraintKind::ForeignKey(ForeignKey {
            columns,
            ref_table_oid,
            ref_table: String::new(),
            ref_columns,
            on_delete: RefAction::NoAction,
            on_update: RefAction::NoAction,
            match_full: false,
            set_columns: Vec::new(),
        })
    }

    // Proves what becomes of each kind of constraint when column 1 of
    // table 1 goes: its default and the CHECKs naming it go, later
    // defaults and key columns move down, a key over it goes, a key
    // referencing it (another table's or the table's own) depends on it.
    #[test]
    fn constraints_go_move_or_depend() {
        let never = |_: &str| false;
        let default = |column| ConstraintKind::Default {
            column,
            expr: "0".into(),
        };
        let check = ConstraintKind::Check {
            expr: "b > 0".into(),
        };
        assert!(matches!(
            fate(&constraint(1, default(1)), 1, 1, &never),
            Fate::Goes
        ));
        assert!(matches!(
            fate(&constraint(1, default(0)), 1, 1, &never),
            Fate::Keeps
        ));
        assert!(matches!(
            fate(&constraint(1, default(3)), 1, 1, &never),
            Fate::Changes(ConstraintKind::Default { column: 2, .. })
        ));
        assert!(matches!(
            fate(&constraint(1, check.clone()), 1, 1, &|e| e.contains('b')),
            Fate::Goes
        ));
        assert!(matches!(
            fate(&constraint(1, check), 1, 1, &never),
            Fate::Keeps
        ));
        // The table's own key over the column; another over later ones.
        assert!(matches!(
            fate(&constraint(1, key(vec![1], 2, vec![0])), 1, 1, &never),
            Fate::Goes
        ));
        let Fate::Changes(ConstraintKind::ForeignKey(moved)) =
            fate(&constraint(1, key(vec![2, 0], 2, vec![1, 2])), 1, 1, &never)
        else {
            panic!("moved");
        };
        assert_eq!((moved.columns, moved.ref_columns), (vec![1, 0], vec![1, 2]));
        // Another table's key referencing it, or past it.
        assert!(matches!(
            fate(&constraint(2, key(vec![0], 1, vec![1])), 1, 1, &never),
            Fate::Depends
        ));
        let Fate::Changes(ConstraintKind::ForeignKey(moved)) =
            fate(&constraint(2, key(vec![3], 1, vec![2])), 1, 1, &never)
        else {
            panic!("moved");
        };
        assert_eq!((moved.columns, moved.ref_columns), (vec![3], vec![1]));
        // The table's own key referencing it depends on it even when it
        // is over the column too (PostgreSQL's self-reference).
        assert!(matches!(
            fate(&constraint(1, key(vec![1], 1, vec![1])), 1, 1, &never),
            Fate::Depends
        ));
        assert!(matches!(
            fate(&constraint(1, key(vec![0], 1, vec![0])), 1, 1, &never),
            Fate::Keeps
        ));
    }
}
