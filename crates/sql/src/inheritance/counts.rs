//! Where a child's column or CHECK constraint came from (README "Table
//! inheritance", "Local and inherited"): PostgreSQL's `attislocal` /
//! `attinhcount` and `conislocal` / `coninhcount`.
//!
//! The local mark is stored (folio-catalog `ColumnDef::local`,
//! `ConstraintDef::local`); the count is not: it is the number of the
//! table's direct parents that have a column of the name, or an
//! inheritable (not `NO INHERIT`) CHECK of the name. Every statement that
//! would change PostgreSQL's count changes exactly that number (a parent
//! gains or loses the column or constraint, a link is made or removed), so
//! the two agree, and no stored count can drift from the catalog rows.
//! [`fate`] is the one owner of what happens to a child's column or
//! CHECK when a parent loses it.

use folio_catalog::{ConstraintKind, TableDef};

/// The direct parents of `def` among `tables`, in `INHERITS` order; a
/// partition's, its partitioned table.
pub fn parents_among<'t>(def: &TableDef, tables: &'t [TableDef]) -> Vec<&'t TableDef> {
    let partitioned = def.partition_of().map(|(oid, _)| oid);
    (def.parents().into_iter().map(|(oid, _)| oid))
        .chain(partitioned)
        .filter_map(|oid| tables.iter().find(|t| t.oid == oid))
        .collect()
}

/// How many of `parents` give a column named `column` (`attinhcount`).
pub fn column_count<'a>(parents: impl IntoIterator<Item = &'a TableDef>, column: &str) -> u16 {
    (parents.into_iter())
        .filter(|p| p.column(column).is_some())
        .count() as u16
}

/// How many of `parents` give a CHECK named `name` (`coninhcount`).
pub fn check_count<'a>(parents: impl IntoIterator<Item = &'a TableDef>, name: &str) -> u16 {
    (parents.into_iter())
        .filter(|p| inheritable_check(p, name))
        .count() as u16
}

/// Whether `def` has a CHECK named `name` that its children receive (not
/// `NO INHERIT`).
pub fn inheritable_check(def: &TableDef, name: &str) -> bool {
    (def.constraints.iter())
        .any(|c| c.name == name && !c.no_inherit && matches!(c.kind, ConstraintKind::Check { .. }))
}

/// How a parent loses a column or CHECK constraint its child has.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Loss {
    /// `ALTER TABLE parent DROP ...` (reaching the children).
    Dropped,
    /// `ALTER TABLE ONLY parent DROP ...`.
    DroppedOnly,
    /// `ALTER TABLE child NO INHERIT parent`.
    Unlinked,
}

/// What becomes of a child's column or CHECK constraint.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fate {
    /// It goes too (and on down to the child's own children).
    Drop,
    /// It stays, declared by the child (`local`) or not.
    Keep { local: bool },
}

/// The one rule for a child's column or CHECK when a parent loses it, as
/// PostgreSQL 15's: `local` is the child's mark, `remaining` how many of
/// its parents still give it afterwards. A drop reaching the child takes
/// it only when the child did not declare it and no other parent gives
/// it; with ONLY the child keeps it as its own; when the link goes, the
/// child keeps it, its own once no parent gives it.
pub fn fate(loss: Loss, local: bool, remaining: u16) -> Fate {
    match loss {
        Loss::Dropped if !local && remaining == 0 => Fate::Drop,
        Loss::Dropped => Fate::Keep { local },
        Loss::DroppedOnly => Fate::Keep { local: true },
        Loss::Unlinked => Fate::Keep {
            local: local || remaining == 0,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Proves the rule for a child's column when a parent loses it: a
    // drop takes only what the child did not declare and nobody else
    // gives; ONLY and NO INHERIT leave it, local where nobody gives it.
    #[test]
    fn fate_follows_postgresql() {
        assert_eq!(fate(Loss::Dropped, false, 0), Fate::Drop);
        assert_eq!(fate(Loss::Dropped, true, 0), Fate::Keep { local: true });
        assert_eq!(fate(Loss::Dropped, false, 1), Fate::Keep { local: false });
        assert_eq!(
            fate(Loss::DroppedOnly, false, 0),
            Fate::Keep { local: true }
        );
        assert_eq!(
            fate(Loss::DroppedOnly, false, 1),
            Fate::Keep { local: true }
        );
        assert_eq!(fate(Loss::Unlinked, false, 0), Fate::Keep { local: true });
        assert_eq!(fate(Loss::Unlinked, false, 1), Fate::Keep { local: false });
        assert_eq!(fate(Loss::Unlinked, true, 1), Fate::Keep { local: true });
    }
}
