//! Comments (`COMMENT ON ... IS 'text'`): `folio.description` rows,
//! changed by transactions like every catalog row, indexed by the oid of
//! the relation they belong to (`folio.description_relation`), so a
//! relation's comments are found, and dropped with it, by one lookup.
//!
//! | field | size | meaning |
//! |---|---|---|
//! | relation oid | 8 | the table, index, view or sequence the comment is on or under |
//! | kind | 1 | `r` the relation itself, `a` one of its columns, `c` one of its constraints |
//! | sub | 8 | `a`: the column's slot (`layout.rs`, never reused); `c`: the constraint's oid; `r`: 0 |
//! | text | rest | the comment, UTF-8 (never empty: an empty comment is none) |
//!
//! PostgreSQL keys `pg_description` by (catalog, object oid, column
//! number); the relation oid here is the key PostgreSQL's object oid is
//! for a relation or a column, and the constrained table's for a
//! constraint (whose own oid is `sub`).
//!
//! Setting a comment locks the relation's `folio.class` row (`FOR
//! UPDATE`, as other DDL on it), then replaces its row under the latest
//! snapshot, so two concurrent COMMENTs leave one row. A dropped relation
//! (`note_dropped`, `drop_view`, `drop_sequence`), column
//! (`drop_column`) or constraint (`drop_constraint`) drops its comments
//! in the same transaction.

use crate::catalog::Catalog;
use crate::codec::{Reader, Writer};
use crate::error::CatalogError;
use folio_heap::Tid;
use folio_txn::Transaction;

/// Longest comment, in bytes: a catalog row lives on one page.
pub const MAX_COMMENT_BYTES: usize = 4000;

/// What a comment is on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Described {
    /// The relation itself (PostgreSQL's `objsubid` 0).
    Relation,
    /// Its column of this slot.
    Column(u16),
    /// Its constraint of this oid.
    Constraint(u64),
}

/// A `folio.description` row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Description {
    pub relation: u64,
    pub on: Described,
    pub text: String,
}

impl Description {
    fn encode(&self) -> Vec<u8> {
        let mut w = Writer::default();
        w.u64(self.relation);
        match self.on {
            Described::Relation => w.u8(b'r').u64(0),
            Described::Column(slot) => w.u8(b'a').u64(u64::from(slot)),
            Described::Constraint(oid) => w.u8(b'c').u64(oid),
        };
        w.0.extend_from_slice(self.text.as_bytes());
        w.0
    }

    fn decode(bytes: &[u8]) -> Result<Description, String> {
        let mut r = Reader(bytes);
        let relation = r.u64()?;
        let (kind, sub) = (r.u8()?, r.u64()?);
        let on = match kind {
            b'r' => Described::Relation,
            b'a' => Described::Column(u16::try_from(sub).map_err(|e| e.to_string())?),
            b'c' => Described::Constraint(sub),
            other => return Err(format!("description kind {other}")),
        };
        let text = String::from_utf8(r.0.to_vec()).map_err(|e| e.to_string())?;
        Ok(Description { relation, on, text })
    }
}

impl Catalog {
    /// `COMMENT ON ... IS text` (`None` or an empty text: `IS NULL`, the
    /// comment removed) of `on` under relation `relation` (its oid), whose
    /// `folio.class` row is locked first (42P01 if it went meanwhile).
    pub fn set_description(
        &self,
        txn: &mut Transaction,
        relation: u64,
        on: Described,
        text: Option<&str>,
    ) -> Result<(), CatalogError> {
        if let Some(text) = text
            && text.len() > MAX_COMMENT_BYTES
        {
            return Err(CatalogError::CommentTooLong(MAX_COMMENT_BYTES));
        }
        let missing = || CatalogError::NoSuchRelation(relation.to_string());
        let (tid, _) = (self.class_rows(txn)?.into_iter())
            .find(|(_, c)| c.oid == relation)
            .ok_or_else(missing)?;
        self.lock_class_row(txn, tid, missing)?;
        let old = txn.with_latest_snapshot(|txn| self.description_rows(txn, relation))?;
        self.in_savepoint(txn, |txn| {
            for (tid, d) in &old {
                if d.on == on {
                    self.descriptions.delete(txn, *tid)?;
                }
            }
            match text.filter(|t| !t.is_empty()) {
                Some(text) => self.put_description(txn, relation, on, text),
                None => Ok(()),
            }
        })
    }

    /// Inserts a `folio.description` row (the caller holds the relation's
    /// DDL lock and has removed the one it replaces).
    pub(crate) fn put_description(
        &self,
        txn: &mut Transaction,
        relation: u64,
        on: Described,
        text: &str,
    ) -> Result<(), CatalogError> {
        let row = Description {
            relation,
            on,
            text: text.to_string(),
        };
        let tid = self.descriptions.insert(txn, &row.encode())?;
        self.description_relations
            .insert(txn, &self.descriptions, &relation.to_be_bytes(), tid)?;
        Ok(())
    }

    /// The oid and kind (`r` table, `i` index, `S` sequence, `v` view) of
    /// relation `name`, if there is one.
    pub fn relation_oid(
        &self,
        txn: &Transaction,
        name: &str,
    ) -> Result<Option<(u64, char)>, CatalogError> {
        Ok(self
            .class(txn, name)?
            .map(|(_, c)| (c.oid, char::from(c.kind))))
    }

    /// Every comment `txn` sees (`pg_description`, `obj_description`).
    pub fn descriptions(&self, txn: &Transaction) -> Result<Vec<Description>, CatalogError> {
        (self.descriptions.scan(txn)?.into_iter())
            .map(|(_, bytes)| Description::decode(&bytes).map_err(CatalogError::Corrupt))
            .collect()
    }

    /// The comments under relation `relation`.
    fn description_rows(
        &self,
        txn: &Transaction,
        relation: u64,
    ) -> Result<Vec<(Tid, Description)>, CatalogError> {
        (self.description_relations)
            .get(txn, &self.descriptions, &relation.to_be_bytes())?
            .into_iter()
            .map(|(tid, bytes)| {
                Ok((
                    tid,
                    Description::decode(&bytes).map_err(CatalogError::Corrupt)?,
                ))
            })
            .collect()
    }

    /// Drops the comments under relation `relation` that `which` picks
    /// (every one when the relation goes), inside the caller's DDL.
    pub(crate) fn drop_descriptions(
        &self,
        txn: &mut Transaction,
        relation: u64,
        which: impl Fn(Described) -> bool,
    ) -> Result<(), CatalogError> {
        for (tid, d) in self.description_rows(txn, relation)? {
            if which(d.on) {
                self.descriptions.delete(txn, tid)?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Proves description rows round-trip, long texts included, and
    // garbage is an error.
    #[test]
    fn description_rows_round_trip() {
        for on in [
            Described::Relation,
            Described::Column(3),
            Described::Constraint(16400),
        ] {
            let d = Description {
                relation: 16384,
                on,
                text: "é".repeat(MAX_COMMENT_BYTES / 2),
            };
            assert_eq!(Description::decode(&d.encode()), Ok(d));
        }
        assert!(Description::decode(&[0; 9]).is_err());
        let mut bad = vec![0; 8];
        bad.push(b'x');
        bad.extend([0; 8]);
        assert!(Description::decode(&bad).is_err());
    }
}
