//! User-defined enum types (`CREATE TYPE mood AS ENUM (...)`): a type's
//! labels with their sort orders, and a value of one.
//!
//! A label's *sort order* is a float fixed when the label is made and
//! never changed after (as PostgreSQL's `pg_enum.enumsortorder`; folio
//! never renumbers): a row stores it (8 bytes) and an index key encodes
//! it, so `ALTER TYPE ... ADD VALUE ... BEFORE/AFTER` puts the new label's
//! order between its neighbours' without changing any stored value or
//! key, and `RENAME VALUE` changes only the catalog. A value is decoded
//! back to its label through the type's definition, which
//! `SqlType::Enum` carries (README "Enum types").

use crate::error::RowError;
use crate::types::SqlType;
use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::sync::Mutex;

/// One label of an enum type.
#[derive(Debug, Clone)]
pub struct EnumLabel {
    /// Its `pg_enum` oid.
    pub oid: u32,
    /// Its place in the type's order (never changes).
    pub sort: f64,
    pub name: String,
}

/// An enum type as one catalog version defines it: its labels in their
/// order (ascending `sort`).
#[derive(Debug, Clone)]
pub struct EnumType {
    /// Its `pg_type` oid.
    pub oid: u32,
    /// The oid of its array type (`_name`).
    pub array_oid: u32,
    pub name: String,
    pub labels: Vec<EnumLabel>,
}

// Equal and hashed by content, the sort orders by their bits (never NaN).
impl PartialEq for EnumType {
    fn eq(&self, other: &EnumType) -> bool {
        self.oid == other.oid
            && self.array_oid == other.array_oid
            && self.name == other.name
            && self.labels.len() == other.labels.len()
            && (self.labels.iter().zip(&other.labels)).all(|(a, b)| {
                a.oid == b.oid && a.sort.to_bits() == b.sort.to_bits() && a.name == b.name
            })
    }
}

impl Eq for EnumType {}

impl Hash for EnumType {
    fn hash<H: Hasher>(&self, state: &mut H) {
        (self.oid, self.array_oid).hash(state);
        self.name.hash(state);
        for l in &self.labels {
            (l.oid, l.sort.to_bits(), &l.name).hash(state);
        }
    }
}

/// Every definition interned so far, with its `SqlType` (an array
/// type's element is a `&'static SqlType`): `SqlType` is `Copy`, so it
/// carries a `&'static` definition; each distinct one (a CREATE TYPE,
/// each ALTER) is kept once for the process's life (a few bytes per
/// label).
type Interned = HashMap<&'static EnumType, &'static SqlType>;
static INTERNED: Mutex<Option<Interned>> = Mutex::new(None);

impl EnumType {
    /// The process's one copy of `def`.
    pub fn intern(def: EnumType) -> &'static EnumType {
        assert!(
            def.labels.windows(2).all(|w| w[0].sort < w[1].sort),
            "enum {} labels out of order",
            def.name
        );
        let mut map = INTERNED.lock().unwrap_or_else(|e| e.into_inner());
        let map = map.get_or_insert_with(HashMap::new);
        if let Some((known, _)) = map.get_key_value(&def) {
            return known;
        }
        let leaked: &'static EnumType = Box::leak(Box::new(def));
        map.insert(leaked, Box::leak(Box::new(SqlType::Enum(leaked))));
        leaked
    }

    /// The type `SqlType::Enum(self)`, as a `&'static` (an array's
    /// element type).
    pub fn sql_type(&'static self) -> &'static SqlType {
        let mut map = INTERNED.lock().unwrap_or_else(|e| e.into_inner());
        let map = map.get_or_insert_with(HashMap::new);
        map.entry(self)
            .or_insert_with(|| Box::leak(Box::new(SqlType::Enum(self))))
    }

    /// The label named `name` (exactly: PostgreSQL's enum input neither
    /// trims nor folds case), else PostgreSQL's 22P02.
    pub fn value_of(&'static self, name: &str) -> Result<EnumValue, RowError> {
        match self.labels.iter().position(|l| l.name == name) {
            Some(index) => Ok(EnumValue { ty: self, index }),
            None => Err(RowError::InvalidInput(format!(
                "invalid input value for enum {}: \"{name}\"",
                self.name
            ))),
        }
    }

    /// The label whose sort order is `sort` (a stored value or key).
    pub fn value_at(&'static self, sort: f64) -> Result<EnumValue, RowError> {
        let found = self
            .labels
            .binary_search_by(|l| l.sort.total_cmp(&sort))
            .map_err(|_| {
                RowError::Corrupt(format!("no label of enum {} has order {sort}", self.name))
            })?;
        Ok(EnumValue {
            ty: self,
            index: found,
        })
    }
}

/// A value of an enum type: a label of one version of its definition.
#[derive(Debug, Clone, Copy)]
pub struct EnumValue {
    pub ty: &'static EnumType,
    index: usize,
}

impl EnumValue {
    pub fn label(&self) -> &'static EnumLabel {
        &self.ty.labels[self.index]
    }

    /// Its sort order: what a row stores and a key encodes.
    pub fn sort(&self) -> f64 {
        self.label().sort
    }
}

/// Values of one type are equal when their labels are (whatever version
/// of the definition each was read with: sort orders never change).
impl PartialEq for EnumValue {
    fn eq(&self, other: &EnumValue) -> bool {
        self.ty.oid == other.ty.oid && self.sort().to_bits() == other.sort().to_bits()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mood(labels: &[(&str, f64)]) -> &'static EnumType {
        EnumType::intern(EnumType {
            oid: 16400,
            array_oid: 16399,
            name: "mood".into(),
            labels: labels
                .iter()
                .enumerate()
                .map(|(i, (name, sort))| EnumLabel {
                    oid: 16401 + i as u32,
                    sort: *sort,
                    name: name.to_string(),
                })
                .collect(),
        })
    }

    // Proves labels are found by name (exactly) and by sort order,
    // equal definitions intern to one copy, and a value read with an
    // older definition equals the same label read with a newer one.
    #[test]
    fn labels_by_name_and_order() {
        let v1 = mood(&[("sad", 1.0), ("happy", 2.0)]);
        assert!(std::ptr::eq(v1, mood(&[("sad", 1.0), ("happy", 2.0)])));
        let v2 = mood(&[("sad", 1.0), ("ok", 1.5), ("happy", 2.0)]);
        assert_eq!(v2.value_of("ok").unwrap().sort(), 1.5);
        let err = v1.value_of("Sad").unwrap_err();
        assert_eq!(err.sqlstate(), "22P02");
        assert_eq!(
            err.to_string(),
            "invalid input value for enum mood: \"Sad\""
        );
        assert_eq!(v2.value_at(2.0).unwrap().label().name, "happy");
        assert!(v1.value_at(1.5).is_err());
        assert_eq!(v1.value_of("happy").unwrap(), v2.value_of("happy").unwrap());
    }
}
