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
use crate::defs::AttributeRow;
use crate::defs::{
    ClassRow, KIND_COMPOSITE, KIND_DOMAIN, KIND_ENUM, KIND_MATVIEW, KIND_TABLE, KIND_VIEW,
};
use crate::error::CatalogError;
use folio_heap::Tid;
use folio_page::PageId;
use folio_row::{CompositeType, SqlType};
use folio_txn::Transaction;
use std::collections::HashMap;

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
/// field types are made before it; a table's row type refuses a column
/// of itself, 42P16).
const MAX_DEPTH: usize = 64;

/// Each relation's live columns (name, type oid, typmod) in order, by
/// the relation's oid: what a table's, view's or materialized view's row
/// type is made of ([`Catalog::relation_columns`]).
pub(crate) type RelationColumns = HashMap<u64, Vec<(String, u32, i32)>>;

/// Whether class `class` is a relation with a row type (PostgreSQL's
/// `reltype`): a table, a view or a materialized view. Its type's oid is
/// the relation's own (folio keeps no second oid for it).
pub(crate) fn has_row_type(class: &ClassRow) -> bool {
    matches!(class.kind, KIND_TABLE | KIND_VIEW | KIND_MATVIEW)
}

/// The type of oid `oid` (with `typmod`) among `classes`: a built-in
/// type, an enum type, a domain's base type, a composite type or a
/// relation's row type (its fields from `columns`).
fn resolve(
    classes: &[(Tid, ClassRow)],
    columns: &RelationColumns,
    oid: u32,
    typmod: i32,
    depth: usize,
) -> Option<SqlType> {
    if let Some(ty) = SqlType::from_oid(oid, typmod) {
        return Some(ty);
    }
    if let Some((_, class)) = (classes.iter())
        .find(|(_, c)| c.kind == KIND_COMPOSITE && c.oid != u64::from(oid) && is_of(c, oid))
    {
        // An array of a composite type.
        let def = composite_type(classes, columns, class, depth + 1)?;
        return Some(SqlType::Array(def.sql_type()));
    }
    let (_, class) = classes.iter().find(|(_, c)| c.oid == u64::from(oid))?;
    match class.kind {
        KIND_ENUM => Catalog::enums_of(classes, [oid].into_iter())
            .first()
            .map(|e| SqlType::Enum(e)),
        // A domain's base type is never a domain: the depth is bounded
        // anyway.
        KIND_DOMAIN if depth < MAX_DEPTH => {
            let d = class.domain.as_ref()?;
            resolve(classes, columns, d.base_oid, d.base_typmod, depth + 1)
        }
        KIND_COMPOSITE if depth < MAX_DEPTH => {
            composite_type(classes, columns, class, depth + 1).map(SqlType::Composite)
        }
        _ if has_row_type(class) && depth < MAX_DEPTH => {
            row_type(classes, columns, class, depth + 1).map(SqlType::Composite)
        }
        _ => None,
    }
}

/// The type a class row of kind `c` defines, its fields resolved among
/// `classes`.
fn composite_type(
    classes: &[(Tid, ClassRow)],
    columns: &RelationColumns,
    class: &ClassRow,
    depth: usize,
) -> Option<&'static CompositeType> {
    let body = class.composite.as_ref()?;
    made_of(classes, columns, class, body.array_oid, &body.fields, depth)
}

/// The row type of relation `class` ([`has_row_type`]): its columns as
/// `columns` has them, as fields. It has no array type (array oid 0).
fn row_type(
    classes: &[(Tid, ClassRow)],
    columns: &RelationColumns,
    class: &ClassRow,
    depth: usize,
) -> Option<&'static CompositeType> {
    let fields = columns.get(&class.oid).map_or(&[][..], |c| &c[..]);
    made_of(classes, columns, class, 0, fields, depth)
}

/// The composite type of class `class` with fields `fields` (name, type
/// oid, typmod), each resolved among `classes`. A temporary table's type
/// is named bare, as PostgreSQL's messages name it.
fn made_of(
    classes: &[(Tid, ClassRow)],
    columns: &RelationColumns,
    class: &ClassRow,
    array_oid: u32,
    fields: &[(String, u32, i32)],
    depth: usize,
) -> Option<&'static CompositeType> {
    let fields = (fields.iter())
        .map(|(name, oid, typmod)| {
            Some((
                name.clone(),
                resolve(classes, columns, *oid, *typmod, depth)?,
            ))
        })
        .collect::<Option<Vec<_>>>()?;
    Some(CompositeType::intern(CompositeType {
        oid: class.oid as u32,
        array_oid,
        name: crate::temp::unqualified(&class.name).to_string(),
        fields,
    }))
}

/// The composite types among class rows `classes`, by name.
pub(crate) fn composites_among(
    classes: &[(Tid, ClassRow)],
    columns: &RelationColumns,
) -> Vec<&'static CompositeType> {
    let mut out: Vec<&'static CompositeType> = (classes.iter())
        .filter(|(_, c)| c.kind == KIND_COMPOSITE)
        .filter_map(|(_, c)| composite_type(classes, columns, c, 0))
        .collect();
    out.sort_by(|a, b| a.name.cmp(&b.name));
    out
}

/// The row types of the relations among `classes`, each with its
/// relation's catalog name, by that name.
pub(crate) fn relation_types_among(
    classes: &[(Tid, ClassRow)],
    columns: &RelationColumns,
) -> Vec<(String, &'static CompositeType)> {
    let mut out: Vec<(String, &'static CompositeType)> = (classes.iter())
        .filter(|(_, c)| has_row_type(c))
        .filter_map(|(_, c)| Some((c.name.clone(), row_type(classes, columns, c, 0)?)))
        .collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

/// The composite types among `classes` that columns of type `oids` (or
/// of their array types) use.
pub(crate) fn composites_of(
    classes: &[(Tid, ClassRow)],
    columns: &RelationColumns,
    oids: impl Iterator<Item = u32> + Clone,
) -> Vec<&'static CompositeType> {
    (classes.iter())
        .filter_map(|(_, c)| match c.kind {
            KIND_COMPOSITE if oids.clone().any(|o| is_of(c, o)) => {
                composite_type(classes, columns, c, 0)
            }
            _ if has_row_type(c) && oids.clone().any(|o| u64::from(o) == c.oid) => {
                row_type(classes, columns, c, 0)
            }
            _ => None,
        })
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
    /// Every relation's live columns ([`RelationColumns`]): one scan of
    /// `folio.attribute`.
    pub(crate) fn all_columns(&self, txn: &Transaction) -> Result<RelationColumns, CatalogError> {
        let mut rows: Vec<AttributeRow> = (self.attributes.scan(txn)?.into_iter())
            .map(|(_, bytes)| AttributeRow::decode(&bytes).map_err(crate::catalog::corrupt))
            .collect::<Result<_, _>>()?;
        rows.sort_by_key(|a| (a.table_oid, a.number));
        let mut out = RelationColumns::new();
        for a in rows.into_iter().filter(|a| !a.dropped) {
            (out.entry(a.table_oid).or_default()).push((
                a.column.name,
                a.column.type_oid,
                a.column.typmod,
            ));
        }
        Ok(out)
    }

    /// The relations' columns types of `oids` need: none unless one is a
    /// relation's row type (a rare column type: then every relation's,
    /// as its columns may be of other relations' types).
    pub(crate) fn relation_columns_of(
        &self,
        txn: &Transaction,
        classes: &[(Tid, ClassRow)],
        mut oids: impl Iterator<Item = u32>,
    ) -> Result<RelationColumns, CatalogError> {
        let row_typed = |oid: u32| {
            SqlType::from_oid(oid, -1).is_none()
                && (classes.iter()).any(|(_, c)| has_row_type(c) && c.oid == u64::from(oid))
        };
        match oids.any(row_typed) {
            true => self.all_columns(txn),
            false => Ok(RelationColumns::new()),
        }
    }

    /// The relations' columns composite type `class`'s fields need
    /// ([`Catalog::relation_columns_of`]).
    fn relation_columns(
        &self,
        txn: &Transaction,
        classes: &[(Tid, ClassRow)],
        class: &ClassRow,
    ) -> Result<RelationColumns, CatalogError> {
        let fields = class.composite.as_ref().map_or(&[][..], |b| &b.fields[..]);
        self.relation_columns_of(txn, classes, fields.iter().map(|(_, o, _)| *o))
    }

    /// ALTER TABLE `table_name` (oid `oid`) may change its columns'
    /// types or drop one only while no stored column has its row type
    /// (0A000, PostgreSQL's for ALTER COLUMN TYPE; PostgreSQL drops a
    /// column of a used row type, folio's stored values would not
    /// decode); adding a column (`add`) is allowed (a stored value with
    /// fewer fields reads the new ones as NULL, folio-row), and the
    /// tables using the type read their definitions again.
    pub(crate) fn alter_row_type(
        &self,
        txn: &mut Transaction,
        table_name: &str,
        oid: u64,
        add: bool,
    ) -> Result<(), CatalogError> {
        let users = self.columns_of_type_in(txn, oid as u32)?;
        if let Some((_, table, column)) = users.first().filter(|_| !add) {
            return Err(CatalogError::RowTypeUsed {
                table: crate::temp::unqualified(table_name).to_string(),
                user: format!("{}.{column}", crate::temp::unqualified(table)),
            });
        }
        for (user, _, _) in users {
            self.lock_for_ddl(txn, user, folio_txn::LockMode::Share)?;
        }
        Ok(())
    }

    /// 0A000 while a stored column has table `table_name`'s row type
    /// ([`Catalog::alter_row_type`]): what ADD COLUMN with a value other
    /// than NULL asks before it fills the rows.
    pub fn check_row_type_unused(
        &self,
        txn: &mut Transaction,
        table_name: &str,
    ) -> Result<(), CatalogError> {
        let missing = || CatalogError::NoSuchRelation(table_name.to_string());
        let (_, class) = self.class(txn, table_name)?.ok_or_else(missing)?;
        self.alter_row_type(txn, table_name, class.oid, false)
    }

    /// The composite type `name` as `txn` sees it (`None`: no such type).
    pub fn composite_type(
        &self,
        txn: &Transaction,
        name: &str,
    ) -> Result<Option<&'static CompositeType>, CatalogError> {
        Ok(match self.class(txn, name)? {
            Some((_, class)) if class.kind == KIND_COMPOSITE => {
                let classes = self.class_rows(txn)?;
                let columns = self.relation_columns(txn, &classes, &class)?;
                composite_type(&classes, &columns, &class, 0)
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
        let oids = fields.iter().map(|(_, oid, _)| *oid);
        let columns = self.relation_columns_of(txn, &classes, oids)?;
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
        composite_type(&classes, &columns, &class, 0)
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
        let domains = self.domains_over(txn, array_oid)?;
        if !arrays.is_empty() || !domains.is_empty() {
            let domains = domains.iter().map(|d| format!("type {}", d.name));
            return Err(CatalogError::DependedOn {
                object: format!("type {name}"),
                dependents: (arrays.iter())
                    .map(|(t, c)| format!("column {c} of table {t}"))
                    .chain(domains)
                    .map(|d| (d, format!("type {name}[]")))
                    .collect(),
            });
        }
        self.drop_type_row(txn, name, class.oid as u32)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn class(oid: u64, name: &str, kind: u8) -> (Tid, ClassRow) {
        (
            Tid {
                page: PageId(0),
                item: folio_page::ItemId(0),
            },
            ClassRow::new(oid, name, kind, PageId(0)),
        )
    }

    // Proves a relation's row type is made of its live columns (its oid
    // the relation's, its temporary name bare), and that a column of
    // another table's type resolves to that table's type.
    #[test]
    fn relations_row_types_follow_their_columns() {
        let classes = vec![
            class(20_001, "pg_temp_1.fullname", KIND_TABLE),
            class(20_002, "people", KIND_TABLE),
            class(20_003, "v", KIND_VIEW),
        ];
        let text = SqlType::Text.oid();
        let mut columns = RelationColumns::new();
        columns.insert(
            20_001,
            vec![("first".into(), text, -1), ("last".into(), text, -1)],
        );
        columns.insert(20_002, vec![("fn".into(), 20_001, -1)]);
        let types = relation_types_among(&classes, &columns);
        let names: Vec<&str> = types.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["people", "pg_temp_1.fullname", "v"]);
        let fullname = types[1].1;
        assert_eq!((fullname.oid, fullname.name.as_str()), (20_001, "fullname"));
        assert_eq!(
            fullname.fields,
            vec![
                ("first".into(), SqlType::Text),
                ("last".into(), SqlType::Text)
            ]
        );
        assert_eq!(
            types[0].1.fields,
            vec![("fn".into(), SqlType::Composite(fullname))]
        );
        assert!(types[2].1.fields.is_empty());
        let used = composites_of(&classes, &columns, [20_001].into_iter());
        assert_eq!(used, vec![fullname]);
    }
}
