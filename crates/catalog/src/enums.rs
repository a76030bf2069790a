//! Enum types: a `folio.class` row of kind `e` (types and relations share
//! one namespace here; PostgreSQL's relations each have a row type of
//! their name, so its names clash alike) whose tail holds the labels:
//! each label's `pg_enum` oid, sort order (an f64, fixed when the label
//! is made) and name, in order. Stored values and index keys are sort
//! orders (folio-row `enums.rs`), so a label added between two others
//! takes the midpoint of theirs and nothing stored changes; renaming a
//! label or the type changes this row alone (README "Enum types").

use crate::catalog::{Catalog, check_name, corrupt};
use crate::codec::{Reader, Writer};
use crate::defs::{ClassRow, KIND_ENUM, TableDef};
use crate::error::CatalogError;
use folio_heap::Tid;
use folio_page::PageId;
use folio_row::{EnumLabel, EnumType, SqlType};
use folio_txn::Transaction;

/// What an enum type's class row holds after its columns.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct EnumBody {
    /// The oid of the type's array type.
    pub array_oid: u32,
    /// Each label's oid, sort order (its f64 bits) and name, in order.
    pub labels: Vec<(u32, u64, String)>,
}

impl EnumBody {
    pub(crate) fn encode(&self, w: &mut Writer) {
        w.u32(self.array_oid).u32(self.labels.len() as u32);
        for (oid, sort, name) in &self.labels {
            w.u32(*oid).u64(*sort).str(name);
        }
    }

    pub(crate) fn decode(r: &mut Reader<'_>) -> Result<EnumBody, String> {
        let array_oid = r.u32()?;
        let n = r.u32()?;
        let labels = (0..n)
            .map(|_| Ok((r.u32()?, r.u64()?, r.str()?)))
            .collect::<Result<Vec<_>, String>>()?;
        if !labels
            .windows(2)
            .all(|w| f64::from_bits(w[0].1) < f64::from_bits(w[1].1))
        {
            return Err("enum labels out of order".into());
        }
        Ok(EnumBody { array_oid, labels })
    }

    fn of(def: &EnumType) -> EnumBody {
        EnumBody {
            array_oid: def.array_oid,
            labels: (def.labels.iter())
                .map(|l| (l.oid, l.sort.to_bits(), l.name.clone()))
                .collect(),
        }
    }
}

/// The type a class row of kind `e` defines.
fn enum_type(class: &ClassRow) -> Option<&'static EnumType> {
    let body = class.enum_body.as_ref()?;
    Some(EnumType::intern(EnumType {
        oid: class.oid as u32,
        array_oid: body.array_oid,
        name: class.name.clone(),
        labels: (body.labels.iter())
            .map(|(oid, sort, name)| EnumLabel {
                oid: *oid,
                sort: f64::from_bits(*sort),
                name: name.clone(),
            })
            .collect(),
    }))
}

/// A label's length limit (PostgreSQL's NAMEDATALEN - 1 bytes).
const MAX_LABEL_LEN: usize = 63;

/// Where `ALTER TYPE ... ADD VALUE` puts its label.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LabelPlace<'a> {
    Last,
    Before(&'a str),
    After(&'a str),
}

/// The sort order of a label put at `place` among `labels` (PostgreSQL's
/// rule: after the last, one more; before the first, one less; else the
/// midpoint of its neighbours', which never moves them). 0A000 when the
/// neighbours' orders have no float between them (PostgreSQL would
/// renumber the labels; folio's stored values are the orders).
fn sort_at(def: &EnumType, place: LabelPlace<'_>) -> Result<f64, CatalogError> {
    let at = |name: &str| {
        def.labels
            .iter()
            .position(|l| l.name == name)
            .ok_or_else(|| CatalogError::EnumLabel {
                sqlstate: "22023",
                message: format!("\"{name}\" is not an existing enum label"),
            })
    };
    let (below, above) = match place {
        LabelPlace::Last => (def.labels.last().map(|l| l.sort), None),
        LabelPlace::Before(name) => {
            let i = at(name)?;
            (
                i.checked_sub(1).map(|j| def.labels[j].sort),
                Some(def.labels[i].sort),
            )
        }
        LabelPlace::After(name) => {
            let i = at(name)?;
            (
                Some(def.labels[i].sort),
                def.labels.get(i + 1).map(|l| l.sort),
            )
        }
    };
    let sort = match (below, above) {
        (None, None) => 1.0,
        (Some(b), None) => b + 1.0,
        (None, Some(a)) => a - 1.0,
        (Some(b), Some(a)) => b + (a - b) / 2.0,
    };
    if below.is_some_and(|b| sort <= b) || above.is_some_and(|a| sort >= a) {
        return Err(CatalogError::EnumLabel {
            sqlstate: "0A000",
            message: format!(
                "no room for another label of enum {} at this place (folio does not renumber labels)",
                def.name
            ),
        });
    }
    Ok(sort)
}

fn check_label(label: &str) -> Result<(), CatalogError> {
    if label.is_empty() || label.len() > MAX_LABEL_LEN {
        return Err(CatalogError::EnumLabel {
            sqlstate: "42602",
            message: format!("invalid enum label \"{label}\""),
        });
    }
    Ok(())
}

/// The type of a column of type `oid` (with `typmod`) in table `def`: a
/// built-in type, one of the enum or composite types its definition
/// carries, or a domain's base type or the array type of that (any of
/// those: the definition carries the types its domains are made over
/// too).
pub(crate) fn column_type(def: &TableDef, oid: u32, typmod: i32) -> Option<SqlType> {
    if let Some(d) = def.domains.iter().find(|d| d.oid == oid) {
        // A domain's column is of its base type (`domains.rs`), never
        // itself a domain.
        return type_among(def, d.base_oid, d.base_typmod);
    }
    if let Some(d) = (def.domains.iter()).find(|d| d.array_oid == oid && oid != 0) {
        // An array of a domain is an array of its base type.
        let base = type_among(def, d.base_oid, d.base_typmod)?;
        return match base.element() {
            Some(_) => Some(base),
            None => base.array_keeping_modifier(),
        };
    }
    type_among(def, oid, typmod)
}

/// The built-in type, or enum or composite type (or its array type)
/// `def` carries, of oid `oid`.
fn type_among(def: &TableDef, oid: u32, typmod: i32) -> Option<SqlType> {
    SqlType::from_oid(oid, typmod).or_else(|| {
        (def.enums.iter())
            .find(|e| e.oid == oid)
            .map(|e| SqlType::Enum(e))
            .or_else(|| {
                (def.composites.iter()).find_map(|c| match oid {
                    _ if oid == c.oid => Some(SqlType::Composite(c)),
                    _ if oid == c.array_oid => Some(SqlType::Array(c.sql_type())),
                    _ => None,
                })
            })
    })
}

/// The enum types among class rows `classes`, by name.
pub(crate) fn enums_among(classes: &[(Tid, ClassRow)]) -> Vec<&'static EnumType> {
    let mut out: Vec<&'static EnumType> = (classes.iter())
        .filter(|(_, c)| c.kind == KIND_ENUM)
        .filter_map(|(_, c)| enum_type(c))
        .collect();
    out.sort_by(|a, b| a.name.cmp(&b.name));
    out
}

impl Catalog {
    /// Every enum type `txn` sees, by name.
    pub fn enum_types(&self, txn: &Transaction) -> Result<Vec<&'static EnumType>, CatalogError> {
        Ok(enums_among(&self.class_rows(txn)?))
    }

    /// The enum types among `classes` that columns of type `oids` use.
    pub(crate) fn enums_of(
        classes: &[(Tid, ClassRow)],
        oids: impl Iterator<Item = u32> + Clone,
    ) -> Vec<&'static EnumType> {
        (classes.iter())
            .filter(|(_, c)| c.kind == KIND_ENUM && oids.clone().any(|o| u64::from(o) == c.oid))
            .filter_map(|(_, c)| enum_type(c))
            .collect()
    }

    /// The enum types and domains of `columns`, their class rows locked
    /// `FOR SHARE` until `txn` ends (a DROP TYPE or DROP DOMAIN waits,
    /// then sees the columns).
    #[allow(clippy::type_complexity)]
    pub(crate) fn lock_types_of(
        &self,
        txn: &mut Transaction,
        columns: &[crate::ColumnDef],
    ) -> Result<
        (
            Vec<&'static EnumType>,
            Vec<std::sync::Arc<crate::domains::DomainType>>,
            Vec<&'static folio_row::CompositeType>,
        ),
        CatalogError,
    > {
        if columns
            .iter()
            .all(|c| SqlType::from_oid(c.type_oid, c.typmod).is_some())
        {
            return Ok((Vec::new(), Vec::new(), Vec::new()));
        }
        let classes = self.class_rows(txn)?;
        for (tid, class) in &classes {
            if (matches!(class.kind, KIND_ENUM | crate::defs::KIND_DOMAIN)
                && columns.iter().any(|c| u64::from(c.type_oid) == class.oid))
                || (class.kind == crate::defs::KIND_COMPOSITE
                    && (columns.iter()).any(|c| crate::composites::is_of(class, c.type_oid)))
                || (crate::composites::has_row_type(class)
                    && columns.iter().any(|c| u64::from(c.type_oid) == class.oid))
            {
                let missing = || CatalogError::NoSuchType(class.name.clone());
                self.lock_class_row_as(txn, *tid, missing, true)?;
            }
        }
        let domains = crate::domains::domains_of(&classes, columns.iter().map(|c| c.type_oid));
        // The types of the columns and those the domains are made over.
        let bases: Vec<u32> = domains.iter().map(|d| d.base_oid).collect();
        let oids = (columns.iter().map(|c| c.type_oid)).chain(bases.iter().copied());
        let relation_columns = self.relation_columns_of(txn, &classes, oids.clone())?;
        Ok((
            Catalog::enums_of(&classes, oids.clone()),
            domains,
            crate::composites::composites_of(&classes, &relation_columns, oids),
        ))
    }

    /// The enum type `name` as `txn` sees it (`None`: no such type).
    pub fn enum_type(
        &self,
        txn: &Transaction,
        name: &str,
    ) -> Result<Option<&'static EnumType>, CatalogError> {
        Ok(match self.class(txn, name)? {
            Some((_, class)) if class.kind == KIND_ENUM => enum_type(&class),
            _ => None,
        })
    }

    /// `CREATE TYPE name AS ENUM (labels)`: 42710 if a type or relation
    /// has the name.
    pub fn create_enum(
        &self,
        txn: &mut Transaction,
        name: &str,
        labels: &[String],
    ) -> Result<&'static EnumType, CatalogError> {
        check_name(name)?;
        for (i, label) in labels.iter().enumerate() {
            check_label(label)?;
            if labels[..i].contains(label) {
                return Err(CatalogError::EnumLabel {
                    sqlstate: "23505",
                    message: format!("enum label \"{label}\" already exists"),
                });
            }
        }
        if self.class(txn, name)?.is_some() {
            return Err(CatalogError::TypeExists(name.to_string()));
        }
        let oid = self.next_oid()?;
        let mut body = EnumBody {
            array_oid: self.next_oid()? as u32,
            labels: Vec::new(),
        };
        for (i, label) in labels.iter().enumerate() {
            let sort = (i + 1) as f64;
            body.labels
                .push((self.next_oid()? as u32, sort.to_bits(), label.clone()));
        }
        let class = ClassRow {
            enum_body: Some(body),
            ..ClassRow::new(oid, name, KIND_ENUM, PageId(0))
        };
        self.in_savepoint(txn, |txn| self.insert_class(txn, &class))
            .map_err(|e| match e {
                CatalogError::Exists(n) => CatalogError::TypeExists(n),
                other => other,
            })?;
        enum_type(&class).ok_or_else(|| corrupt("enum row without labels".to_string()))
    }

    /// Locks the enum type's class row (DDL on it waits until `txn`
    /// ends) and reads it again: its tid, row and definition.
    fn lock_enum(
        &self,
        txn: &mut Transaction,
        name: &str,
    ) -> Result<(Tid, ClassRow, &'static EnumType), CatalogError> {
        let missing = || CatalogError::NoSuchType(name.to_string());
        let (tid, class) = self.class(txn, name)?.ok_or_else(missing)?;
        if class.kind != KIND_ENUM {
            return Err(missing());
        }
        let (tid, class) = self.relock_class(txn, tid, name, missing)?;
        let def = enum_type(&class).ok_or_else(missing)?;
        Ok((tid, class, def))
    }

    /// The tables with a column of type `oid`, with the newest committed
    /// catalog, and those columns' names.
    pub fn columns_of_type(
        &self,
        txn: &mut Transaction,
        oid: u32,
    ) -> Result<Vec<(String, String)>, CatalogError> {
        let found = self.columns_of_type_in(txn, oid)?;
        Ok(found.into_iter().map(|(_, t, c)| (t, c)).collect())
    }

    /// [`Catalog::columns_of_type`] with each table's oid.
    pub(crate) fn columns_of_type_in(
        &self,
        txn: &mut Transaction,
        oid: u32,
    ) -> Result<Vec<(u64, String, String)>, CatalogError> {
        // One scan of each catalog table (not every table's definition:
        // DROP TABLE asks this of its row type).
        let (classes, columns) = txn.with_latest_snapshot(|txn| {
            Ok::<_, CatalogError>((self.class_rows(txn)?, self.all_columns(txn)?))
        })?;
        let mut out: Vec<(u64, String, String)> = (classes.iter())
            .filter(|(_, t)| t.has_heap())
            .flat_map(|(_, t)| {
                (columns.get(&t.oid).into_iter().flatten())
                    .filter(|(_, o, _)| *o == oid)
                    .map(|(c, _, _)| (t.oid, t.name.clone(), c.clone()))
            })
            .collect();
        out.sort_by(|a, b| a.1.cmp(&b.1));
        Ok(out)
    }

    /// `DROP TYPE name`: 2BP01 while a column has the type (the SQL layer
    /// drops those columns first under CASCADE).
    pub fn drop_enum(&self, txn: &mut Transaction, name: &str) -> Result<(), CatalogError> {
        let (_, _, def) = self.lock_enum(txn, name)?;
        self.drop_type_row(txn, name, def.oid)
    }

    /// 2BP01 (`cannot drop {object} ...`) while a column or a composite
    /// type's field has type `oid` (named `type_name` in the DETAIL): the
    /// rule DROP TYPE, DROP DOMAIN and DROP TABLE (of a table's row
    /// type) share.
    pub(crate) fn check_type_unused(
        &self,
        txn: &mut Transaction,
        oid: u32,
        object: &str,
        type_name: &str,
    ) -> Result<(), CatalogError> {
        let users = self.columns_of_type(txn, oid)?;
        let classes = txn.with_latest_snapshot(|txn| self.class_rows(txn))?;
        let fields = crate::composites::fields_of_type(&classes, oid);
        let mut domains = crate::domains::domains_among(&classes);
        domains.retain(|d| d.parent == 0 && d.base_oid == oid);
        if users.is_empty() && fields.is_empty() && domains.is_empty() {
            return Ok(());
        }
        let fields = (fields.iter()).map(|(t, f)| format!("column {f} of composite type {t}"));
        let columns = (users.iter()).map(|(t, c)| format!("column {c} of table {t}"));
        let domains = domains.iter().map(|d| format!("type {}", d.name));
        Err(CatalogError::DependedOn {
            dependents: (fields.chain(columns).chain(domains))
                .map(|d| (d, type_name.to_string()))
                .collect(),
            object: object.to_string(),
        })
    }

    /// Deletes user type `name`'s (oid `oid`) class row, locked by the
    /// caller: 2BP01 while a column has the type. Owns the rule for
    /// `DROP TYPE` and `DROP DOMAIN` alike.
    pub(crate) fn drop_type_row(
        &self,
        txn: &mut Transaction,
        name: &str,
        oid: u32,
    ) -> Result<(), CatalogError> {
        let object = format!("type {name}");
        self.check_type_unused(txn, oid, &object, &object)?;
        let (tid, _) = self
            .class(txn, name)?
            .ok_or_else(|| CatalogError::NoSuchType(name.to_string()))?;
        self.delete_class_row(txn, tid)
    }

    /// Writes `def`'s labels as type `name`'s, and notes DDL on every
    /// table with a column of it, so relations and plans read with the
    /// old labels are read again.
    fn update_enum(
        &self,
        txn: &mut Transaction,
        tid: Tid,
        class: ClassRow,
        def: &EnumType,
    ) -> Result<(), CatalogError> {
        let row = ClassRow {
            enum_body: Some(EnumBody::of(def)),
            ..class
        };
        self.update_class(txn, tid, &row)?;
        let me = txn.existing_xid().expect("an update gives an xid");
        for t in txn.with_latest_snapshot(|txn| self.tables(txn))? {
            if t.columns.iter().any(|c| c.type_oid == def.oid) {
                self.ddl_marks.of(t.oid).note(txn.manager(), me)?;
            }
        }
        Ok(())
    }

    /// `ALTER TYPE name ADD VALUE [IF NOT EXISTS] label [BEFORE | AFTER
    /// neighbour]`: false if the label existed and `if_not_exists` (42710
    /// without it).
    pub fn add_enum_label(
        &self,
        txn: &mut Transaction,
        name: &str,
        label: &str,
        place: LabelPlace<'_>,
        if_not_exists: bool,
    ) -> Result<bool, CatalogError> {
        check_label(label)?;
        let (tid, class, def) = self.lock_enum(txn, name)?;
        if def.labels.iter().any(|l| l.name == label) {
            if if_not_exists {
                return Ok(false);
            }
            return Err(CatalogError::EnumLabel {
                sqlstate: "42710",
                message: format!("enum label \"{label}\" already exists"),
            });
        }
        let sort = sort_at(def, place)?;
        let mut new = def.clone();
        let at = new.labels.partition_point(|l| l.sort < sort);
        new.labels.insert(
            at,
            EnumLabel {
                oid: self.next_oid()? as u32,
                sort,
                name: label.to_string(),
            },
        );
        self.update_enum(txn, tid, class, &new)?;
        Ok(true)
    }

    /// `ALTER TYPE name RENAME VALUE from TO to`.
    pub fn rename_enum_label(
        &self,
        txn: &mut Transaction,
        name: &str,
        from: &str,
        to: &str,
    ) -> Result<(), CatalogError> {
        check_label(to)?;
        let (tid, class, def) = self.lock_enum(txn, name)?;
        if def.labels.iter().any(|l| l.name == to) {
            return Err(CatalogError::EnumLabel {
                sqlstate: "42710",
                message: format!("enum label \"{to}\" already exists"),
            });
        }
        let mut new = def.clone();
        let label = (new.labels.iter_mut())
            .find(|l| l.name == from)
            .ok_or_else(|| CatalogError::EnumLabel {
                sqlstate: "22023",
                message: format!("\"{from}\" is not an existing enum label"),
            })?;
        label.name = to.to_string();
        self.update_enum(txn, tid, class, &new)
    }

    /// `ALTER TYPE name RENAME TO new`.
    pub fn rename_enum(
        &self,
        txn: &mut Transaction,
        name: &str,
        new: &str,
    ) -> Result<(), CatalogError> {
        check_name(new)?;
        let (tid, class, def) = self.lock_enum(txn, name)?;
        if self.class(txn, new)?.is_some() {
            return Err(CatalogError::TypeExists(new.to_string()));
        }
        let renamed = EnumType {
            name: new.to_string(),
            ..def.clone()
        };
        self.rename_class_row(txn, tid, class, new)?;
        let (tid, class) = self
            .class(txn, new)?
            .ok_or_else(|| corrupt("renamed enum type".to_string()))?;
        self.update_enum(txn, tid, class, &renamed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mood(sorts: &[f64]) -> EnumType {
        EnumType {
            oid: 1,
            array_oid: 2,
            name: "mood".into(),
            labels: (sorts.iter().enumerate())
                .map(|(i, s)| EnumLabel {
                    oid: 10 + i as u32,
                    sort: *s,
                    name: format!("l{i}"),
                })
                .collect(),
        }
    }

    // Proves a label's place gives PostgreSQL's sort orders (after the
    // last +1, before the first -1, else the midpoint) and that no place
    // without a float between its neighbours is accepted.
    #[test]
    fn labels_go_between_their_neighbours() {
        let def = mood(&[1.0, 2.0, 3.0]);
        assert_eq!(sort_at(&def, LabelPlace::Last).unwrap(), 4.0);
        assert_eq!(sort_at(&def, LabelPlace::Before("l0")).unwrap(), 0.0);
        assert_eq!(sort_at(&def, LabelPlace::After("l0")).unwrap(), 1.5);
        assert_eq!(sort_at(&def, LabelPlace::Before("l2")).unwrap(), 2.5);
        assert_eq!(
            sort_at(&def, LabelPlace::After("x"))
                .unwrap_err()
                .sqlstate(),
            Some("22023")
        );
        let tight = mood(&[1.0, f64::from_bits(1.0f64.to_bits() + 1)]);
        assert_eq!(
            sort_at(&tight, LabelPlace::After("l0"))
                .unwrap_err()
                .sqlstate(),
            Some("0A000")
        );
        assert_eq!(sort_at(&mood(&[]), LabelPlace::Last).unwrap(), 1.0);
    }
}
