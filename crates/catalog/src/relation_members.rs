//! Objects named within one relation: a relation's rules (`rules.rs`)
//! and triggers (`triggers.rs`). Each is a `folio.class` row of its own
//! kind (no storage) named `{relation oid}\0{tag}\0{name}`, so the unique
//! index on names keeps one of a name per relation, and no relation (no
//! NUL in its name) or function (`name\0{oids}`: only digits and commas
//! after the NUL) can hold it. This module owns that naming and the steps
//! both kinds share: create or replace, find under a lock, rename, drop, and drop
//! with the relation.

use crate::catalog::Catalog;
use crate::defs::{ClassRow, KIND_RULE, KIND_TRIGGER};
use crate::error::CatalogError;
use folio_heap::Tid;
use folio_page::PageId;
use folio_txn::Transaction;

/// One kind of object named within a relation.
pub(crate) struct Members {
    /// The word between the NULs of a row's name.
    tag: &'static str,
    /// The class rows' kind.
    kind: u8,
}

/// A relation's rewrite rules.
pub(crate) const RULES: Members = Members {
    tag: "rule",
    kind: KIND_RULE,
};

/// A table's (or view's) triggers.
pub(crate) const TRIGGERS: Members = Members {
    tag: "trigger",
    kind: KIND_TRIGGER,
};

impl Members {
    /// The class row name of member `name` of relation `relation`.
    pub(crate) fn row_name(&self, relation: u64, name: &str) -> String {
        format!("{relation}\0{}\0{name}", self.tag)
    }

    /// The relation oid and member name of `class`, if it is one of these.
    fn parts<'a>(&self, class: &'a ClassRow) -> Option<(u64, &'a str)> {
        if class.kind != self.kind {
            return None;
        }
        let (relation, rest) = class.name.split_once('\0')?;
        let name = rest.strip_prefix(self.tag)?.strip_prefix('\0')?;
        Some((relation.parse().ok()?, name))
    }

    /// These members among class rows `classes`, each made into a
    /// definition by `def` (given its row and name), by relation oid then
    /// name: the order triggers fire and rules apply in.
    pub(crate) fn among<T>(
        &self,
        classes: &[(Tid, ClassRow)],
        def: impl Fn(&ClassRow, &str) -> Option<T>,
    ) -> Vec<T> {
        let mut out: Vec<(u64, &str, T)> = (classes.iter())
            .filter_map(|(_, c)| {
                let (relation, name) = self.parts(c)?;
                Some((relation, name, def(c, name)?))
            })
            .collect();
        out.sort_by(|a, b| (a.0, a.1).cmp(&(b.0, b.1)));
        out.into_iter().map(|(_, _, d)| d).collect()
    }
}

impl Catalog {
    /// Creates member `name` of `relation` as the row `body` makes of a
    /// new class row, or, if there is one of that name and `replace`, and
    /// `replaceable` allows it, gives the existing row (its oid kept) what
    /// `body` makes of it; one there without `replace` is `exists()`.
    /// Returns the member's oid.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn put_member(
        &self,
        txn: &mut Transaction,
        members: &Members,
        relation: u64,
        name: &str,
        replace: bool,
        exists: impl Fn() -> CatalogError,
        replaceable: impl Fn(&ClassRow) -> Result<(), CatalogError>,
        body: impl Fn(ClassRow) -> ClassRow,
    ) -> Result<u64, CatalogError> {
        let row = members.row_name(relation, name);
        if let Some((tid, class)) = self.class(txn, &row)? {
            if !replace {
                return Err(exists());
            }
            replaceable(&class)?;
            let (tid, class) = self.relock_class(txn, tid, &row, exists)?;
            let class = body(class);
            self.update_class(txn, tid, &class)?;
            return Ok(class.oid);
        }
        let oid = self.next_oid()?;
        let class = body(ClassRow::new(oid, &row, members.kind, PageId(0)));
        self.in_savepoint(txn, |txn| self.insert_class(txn, &class))
            .map_err(|e| match e {
                CatalogError::Exists(_) => exists(),
                other => other,
            })?;
        Ok(oid)
    }

    /// Member `name` of `relation`, locked FOR UPDATE and read again under
    /// the lock (other DDL on it waits until `txn` ends): its tid and row,
    /// or `missing()` if there is none (or it went meanwhile).
    pub(crate) fn locked_member(
        &self,
        txn: &mut Transaction,
        members: &Members,
        relation: u64,
        name: &str,
        missing: impl Fn() -> CatalogError,
    ) -> Result<(Tid, ClassRow), CatalogError> {
        let row = members.row_name(relation, name);
        let (tid, _) = self.class(txn, &row)?.ok_or_else(&missing)?;
        self.relock_class(txn, tid, &row, missing)
    }

    /// Drops member `name` of `relation`; `missing()` if there is none.
    pub(crate) fn drop_member(
        &self,
        txn: &mut Transaction,
        members: &Members,
        relation: u64,
        name: &str,
        missing: impl Fn() -> CatalogError,
    ) -> Result<(), CatalogError> {
        let (tid, _) = self.locked_member(txn, members, relation, name, missing)?;
        self.delete_class_row(txn, tid)
    }

    /// Renames member `name` of `relation` to `new`: `missing()` if there
    /// is none, then `taken()` if `new` is already one (PostgreSQL's order).
    pub(crate) fn rename_member(
        &self,
        txn: &mut Transaction,
        members: &Members,
        relation: u64,
        (name, new): (&str, &str),
        missing: impl Fn() -> CatalogError,
        taken: impl Fn() -> CatalogError,
    ) -> Result<(), CatalogError> {
        let (tid, class) = self.locked_member(txn, members, relation, name, missing)?;
        let new_row = members.row_name(relation, new);
        if self.class(txn, &new_row)?.is_some() {
            return Err(taken());
        }
        self.rename_class_row(txn, tid, class, &new_row)
            .map_err(|e| match e {
                CatalogError::Exists(_) => taken(),
                other => other,
            })
    }

    /// Drops every member of relation `relation` (it is being dropped).
    pub(crate) fn drop_members_of(
        &self,
        txn: &mut Transaction,
        members: &Members,
        relation: u64,
    ) -> Result<(), CatalogError> {
        for (tid, class) in self.class_rows(txn)? {
            if members.parts(&class).is_some_and(|(r, _)| r == relation) {
                self.classes.delete(txn, tid)?;
            }
        }
        Ok(())
    }
}

/// A relation's name as messages about its members show it (bare in
/// `public`).
pub(crate) fn display(name: &str) -> &str {
    crate::schemas::split_schema(name).1
}

#[cfg(test)]
mod tests {
    use super::*;

    // Proves a member's row name reads back as its relation and name, the
    // name may hold a NUL (the foreign keys' trigger row), and another
    // kind's row or a relation's is not taken for one.
    #[test]
    fn row_names_read_back() {
        let row = |name: &str, kind| ClassRow::new(7, name, kind, PageId(0));
        let name = TRIGGERS.row_name(16384, "\0foreign keys");
        assert_eq!(
            TRIGGERS.parts(&row(&name, KIND_TRIGGER)),
            Some((16384, "\0foreign keys"))
        );
        assert_eq!(RULES.parts(&row(&name, KIND_RULE)), None);
        let rule = RULES.row_name(5, "r");
        assert_eq!(RULES.parts(&row(&rule, KIND_RULE)), Some((5, "r")));
        assert_eq!(TRIGGERS.parts(&row(&rule, KIND_TRIGGER)), None);
        assert_eq!(RULES.parts(&row("public.t", KIND_RULE)), None);
    }
}
