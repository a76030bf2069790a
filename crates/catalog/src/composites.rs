//! Composite types (`CREATE TYPE complex AS (r float8, i float8)`): a
//! `folio.class` row of kind `c` (PostgreSQL's relkind for a composite
//! type; types and relations share one namespace here, as enum types do:
//! `enums.rs`) whose tail holds its array type's oid and each field's
//! name, type oid and typmod, in order.
//!
//! A field's type is a built-in type, an enum type, a domain (its base
//! type, as a column of one) or another composite type, resolved against
//! the same catalog version when the type is read, so folio-row's
//! `CompositeType` carries every field's `SqlType` and a stored value
//! decodes with no catalog at hand (folio-sql README "Composite types").
//! A type with a field or column of it cannot be dropped (2BP01); a
//! table's definition carries the composite types of its columns
//! (`TableDef::composites`).

use crate::catalog::{Catalog, check_name};
use crate::codec::{Reader, Writer};
use crate::defs::{ClassRow, KIND_COMPOSITE, KIND_DOMAIN, KIND_ENUM};
use crate::error::CatalogError;
use folio_heap::Tid;
use folio_page::PageId;
use folio_row::{CompositeType, SqlType};
use folio_txn::Transaction;

/// What a composite type's class row holds after its columns.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct CompositeBody {
    /// The oid of the type's array type.
    pub array_oid: u32,
    /// Each field's name, type oid and typmod, in order.
    pub fields: Vec<(String, u32, i32)>,
}

impl CompositeBody {
    pub(crate) fn encode(&self, w: &mut Writer) {
        w.u32(self.array_oid).u32(self.fields.len() as u32);
        for (name, oid, typmod) in &self.fields {
            w.str(name).u32(*oid).i32(*typmod);
        }
    }

    pub(crate) fn decode(r: &mut Reader<'_>) -> Result<CompositeBody, String> {
        let array_oid = r.u32()?;
        let n = r.u32()?;
        let fields = (0..n)
            .map(|_| Ok((r.str()?, r.u32()?, r.i32()?)))
            .collect::<Result<Vec<_>, String>>()?;
        Ok(CompositeBody { array_oid, fields })
    }
}

/// A type's nesting deeper than this is corrupt (a composite type's
/// field types are made before it, so there is no cycle to follow).
const MAX_DEPTH: usize = 64;

/// The type of oid `oid` (with `typmod`) among `classes`: a built-in
/// type, an enum type, a domain's base type or a composite type.
fn resolve(classes: &[(Tid, ClassRow)], oid: u32, typmod: i32, depth: usize) -> Option<SqlType> {
    if let Some(ty) = SqlType::from_oid(oid, typmod) {
        return Some(ty);
    }
    if let Some((_, class)) = (classes.iter())
        .find(|(_, c)| c.kind == KIND_COMPOSITE && c.oid != u64::from(oid) && is_of(c, oid))
    {
        // An array of a composite type.
        let def = composite_type(classes, class, depth + 1)?;
        return Some(SqlType::Array(def.sql_type()));
    }
    let (_, class) = classes.iter().find(|(_, c)| c.oid == u64::from(oid))?;
    match class.kind {
        KIND_ENUM => Catalog::enums_of(classes, [oid].into_iter())
            .first()
            .map(|e| SqlType::Enum(e)),
        KIND_DOMAIN => {
            let d = class.domain.as_ref()?;
            SqlType::from_oid(d.base_oid, d.base_typmod)
        }
        KIND_COMPOSITE if depth < MAX_DEPTH => {
            composite_type(classes, class, depth + 1).map(SqlType::Composite)
        }
        _ => None,
    }
}

/// The type a class row of kind `c` defines, its fields resolved among
/// `classes`.
fn composite_type(
    classes: &[(Tid, ClassRow)],
    class: &ClassRow,
    depth: usize,
) -> Option<&'static CompositeType> {
    let body = class.composite.as_ref()?;
    let fields = (body.fields.iter())
        .map(|(name, oid, typmod)| Some((name.clone(), resolve(classes, *oid, *typmod, depth)?)))
        .collect::<Option<Vec<_>>>()?;
    Some(CompositeType::intern(CompositeType {
        oid: class.oid as u32,
        array_oid: body.array_oid,
        name: class.name.clone(),
        fields,
    }))
}

/// The composite types among class rows `classes`, by name.
pub(crate) fn composites_among(classes: &[(Tid, ClassRow)]) -> Vec<&'static CompositeType> {
    let mut out: Vec<&'static CompositeType> = (classes.iter())
        .filter(|(_, c)| c.kind == KIND_COMPOSITE)
        .filter_map(|(_, c)| composite_type(classes, c, 0))
        .collect();
    out.sort_by(|a, b| a.name.cmp(&b.name));
    out
}

/// The composite types among `classes` that columns of type `oids` (or
/// of their array types) use.
pub(crate) fn composites_of(
    classes: &[(Tid, ClassRow)],
    oids: impl Iterator<Item = u32> + Clone,
) -> Vec<&'static CompositeType> {
    (classes.iter())
        .filter(|(_, c)| c.kind == KIND_COMPOSITE && oids.clone().any(|o| is_of(c, o)))
        .filter_map(|(_, c)| composite_type(classes, c, 0))
        .collect()
}

/// Whether `oid` is composite type `class`'s oid or its array type's.
pub(crate) fn is_of(class: &ClassRow, oid: u32) -> bool {
    u64::from(oid) == class.oid || (class.composite.as_ref()).is_some_and(|b| b.array_oid == oid)
}

/// The composite types among `classes` with a field of type `oid`, and
/// those fields' names (PostgreSQL's dependents `column f of composite
/// type t`).
pub(crate) fn fields_of_type(classes: &[(Tid, ClassRow)], oid: u32) -> Vec<(String, String)> {
    (classes.iter())
        .filter(|(_, c)| c.kind == KIND_COMPOSITE)
        .flat_map(|(_, c)| {
            let fields = c.composite.as_ref().map_or(&[][..], |b| &b.fields[..]);
            (fields.iter())
                .filter(|(_, o, _)| *o == oid)
                .map(|(f, _, _)| (c.name.clone(), f.clone()))
                .collect::<Vec<_>>()
        })
        .collect()
}

impl Catalog {
    /// The composite type `name` as `txn` sees it (`None`: no such type).
    pub fn composite_type(
        &self,
        txn: &Transaction,
        name: &str,
    ) -> Result<Option<&'static CompositeType>, CatalogError> {
        Ok(match self.class(txn, name)? {
            Some((_, class)) if class.kind == KIND_COMPOSITE => {
                composite_type(&self.class_rows(txn)?, &class, 0)
            }
            _ => None,
        })
    }

    /// `CREATE TYPE name AS (field type, ...)`, each field's type as its
    /// oid and typmod: 42710 if a type or relation has the name, 42701
    /// for a field named twice, 42704 for a field type `txn` does not
    /// see. The field types' class rows are locked `FOR SHARE` until
    /// `txn` ends (a DROP TYPE of one waits, then sees this type).
    pub fn create_composite(
        &self,
        txn: &mut Transaction,
        name: &str,
        fields: &[(String, u32, i32)],
    ) -> Result<&'static CompositeType, CatalogError> {
        check_name(name)?;
        for (i, (field, _, _)) in fields.iter().enumerate() {
            check_name(field)?;
            if fields[..i].iter().any(|(f, _, _)| f == field) {
                return Err(CatalogError::DuplicateColumn(field.clone()));
            }
        }
        if self.class(txn, name)?.is_some() {
            return Err(CatalogError::TypeExists(name.to_string()));
        }
        let classes = self.class_rows(txn)?;
        for (_, oid, typmod) in fields {
            if SqlType::from_oid(*oid, *typmod).is_some() {
                continue;
            }
            let missing = || CatalogError::NoSuchType(oid.to_string());
            // A user type, or an array of a composite type.
            let (tid, _) = (classes.iter())
                .find(|(_, c)| {
                    c.oid == u64::from(*oid) || (c.kind == KIND_COMPOSITE && is_of(c, *oid))
                })
                .ok_or_else(missing)?;
            self.lock_class_row_as(txn, *tid, missing, true)?;
        }
        let oid = self.next_oid()?;
        let class = ClassRow {
            composite: Some(CompositeBody {
                array_oid: self.next_oid()? as u32,
                fields: fields.to_vec(),
            }),
            ..ClassRow::new(oid, name, KIND_COMPOSITE, PageId(0))
        };
        self.in_savepoint(txn, |txn| self.insert_class(txn, &class))
            .map_err(|e| match e {
                CatalogError::Exists(n) => CatalogError::TypeExists(n),
                other => other,
            })?;
        composite_type(&classes, &class, 0)
            .ok_or_else(|| CatalogError::NoSuchType(format!("a field type of {name}")))
    }

    /// `DROP TYPE name` of a composite type: 2BP01 while a column or
    /// another composite type's field has the type (the SQL layer drops
    /// the columns first under CASCADE).
    pub fn drop_composite(&self, txn: &mut Transaction, name: &str) -> Result<(), CatalogError> {
        let missing = || CatalogError::NoSuchType(name.to_string());
        let (tid, class) = self.class(txn, name)?.ok_or_else(missing)?;
        if class.kind != KIND_COMPOSITE {
            return Err(missing());
        }
        let (_, class) = self.relock_class(txn, tid, name, missing)?;
        let array_oid = class.composite.as_ref().map_or(0, |b| b.array_oid);
        let arrays = self.columns_of_type(txn, array_oid)?;
        if !arrays.is_empty() {
            return Err(CatalogError::DependedOn {
                object: format!("type {name}"),
                dependents: (arrays.iter())
                    .map(|(t, c)| (format!("column {c} of table {t}"), format!("type {name}[]")))
                    .collect(),
            });
        }
        self.drop_type_row(txn, name, class.oid as u32)
    }
}
