//! Assignment to a field of a composite column (README "Composite
//! types"): `UPDATE t SET c.f1 = x`, `SET q.c1.r = x, q.c2.i = y`, and an
//! INSERT's column list `INSERT INTO t (c.f1, c.f2) VALUES ...`
//! (`insert_targets.rs` reads that list; a field target is one more kind
//! of its targets). The rule is PostgreSQL's:
//!
//! - The field path is resolved against the column's type while binding
//!   ([`Path::of`]): a field the type does not have is 42703 `cannot
//!   assign to field "x" of column "c" because there is no such column
//!   in data type t`; a field of a type that is not composite is 42804
//!   (`... because its type integer is not a composite type`).
//! - The value must take the last field's type in assignment, else 42804
//!   `subfield "f" is of type t but expression is of type u`; `DEFAULT`
//!   for a field is 0A000 `cannot set a subfield to DEFAULT`.
//! - The new value is the old one with that field replaced
//!   ([`set_field`]); a NULL composite value is first a row of NULLs.
//!   In UPDATE the old value is the column's; in INSERT it is NULL (not
//!   the column's default).
//! - Several field targets of one column apply in the order written, each
//!   to the value the one before made; a column also assigned whole is
//!   42601 `multiple assignments to same column` (UPDATE) or 42701
//!   `specified more than once` (INSERT).
//!
//! Fields are stored in their own types by the column's assignment
//! (`types::assign` of the whole composite value, field by field), so
//! [`fit`] only checks a value's type and gives a quoted literal its
//! field's type.

use crate::error::SqlError;
use crate::functions::Func;
use crate::row_values::RowFunc;
use crate::scalar::{Columns, Scalar, fit_unknown, is_unknown};
use crate::types;
use folio_catalog::Relation;
use folio_row::{SqlType, Value};
use sqlparser::ast::{Expr, Ident, ObjectName, ObjectNamePart, Spanned};
use sqlparser::tokenizer::Location;

/// The fields a target names inside its column: each step's field place
/// and its composite type's field count, outermost first, and the last
/// field's name and type.
#[derive(Debug, Clone, PartialEq)]
pub struct Path {
    steps: Vec<(u16, u16)>,
    name: String,
    ty: SqlType,
}

impl Path {
    /// The path `fields` of column `column` of type `ty`: PostgreSQL's
    /// 42703 / 42804 for a field that is not there.
    pub fn of(column: &str, mut ty: SqlType, fields: &[String]) -> Result<Path, SqlError> {
        let mut steps = Vec::with_capacity(fields.len());
        for field in fields {
            let SqlType::Composite(def) = ty else {
                return Err(SqlError::new(
                    "42804",
                    format!(
                        "cannot assign to field \"{field}\" of column \"{column}\" because its type {} is not a composite type",
                        type_name(ty)
                    ),
                ));
            };
            let at = def.field(field).ok_or_else(|| {
                SqlError::new(
                    "42703",
                    format!(
                        "cannot assign to field \"{field}\" of column \"{column}\" because there is no such column in data type {}",
                        def.name
                    ),
                )
            })?;
            steps.push((at as u16, def.fields.len() as u16));
            ty = def.fields[at].1;
        }
        let name = fields.last().cloned().unwrap_or_default();
        assert!(!steps.is_empty(), "a field path names a field");
        Ok(Path { steps, name, ty })
    }

    /// The type its value takes (the last field's).
    pub fn ty(&self) -> SqlType {
        self.ty
    }

    /// The value `base` (of the column's type) with the path's field set
    /// to `value`, as an expression: nested [`RowFunc::SetField`]s, each
    /// over the field of the one outside it.
    pub fn bind(&self, base: Scalar, value: Scalar) -> Scalar {
        self.bind_from(0, base, value)
    }

    fn bind_from(&self, step: usize, base: Scalar, value: Scalar) -> Scalar {
        let (at, of) = self.steps[step];
        let inner = match step + 1 < self.steps.len() {
            false => value,
            true => {
                let field = Scalar::Func(Func::Row(RowFunc::Field(at)), vec![base.clone()]);
                self.bind_from(step + 1, field, value)
            }
        };
        Scalar::Func(Func::Row(RowFunc::SetField { at, of }), vec![base, inner])
    }

    /// [`Path::bind`] of values: `base` with the path's field set to
    /// `value`.
    pub fn set(&self, base: Value, value: Value) -> Result<Value, SqlError> {
        self.set_from(0, base, value)
    }

    fn set_from(&self, step: usize, base: Value, value: Value) -> Result<Value, SqlError> {
        let (at, of) = self.steps[step];
        let inner = match step + 1 < self.steps.len() {
            false => value,
            true => {
                let field = RowFunc::Field(at).eval(vec![base.clone()])?;
                self.set_from(step + 1, field, value)?
            }
        };
        set_field(base, at, of, inner)
    }

    /// `value` (bound over `columns`) as the path's value: a quoted
    /// literal read as the field's type, anything else checked
    /// ([`Path::check`]; a row constructor against a composite field's
    /// type).
    pub fn fit(
        &self,
        value: Scalar,
        columns: &(impl Columns + ?Sized),
    ) -> Result<Scalar, SqlError> {
        if value == Scalar::Const(Value::Null) {
            return Ok(value);
        }
        if is_unknown(&value) {
            return fit_unknown(value, self.ty);
        }
        let from = value.ty_in(columns);
        if let (SqlType::Record, SqlType::Composite(def)) = (from, self.ty)
            && matches!(value, Scalar::Func(Func::Row(RowFunc::Construct), _))
        {
            crate::composite_values::check_row(&value, def, columns, false)?;
            return Ok(value);
        }
        self.check(from)?;
        Ok(value)
    }

    /// 42804 (42846 for a record of unknown fields into a composite
    /// field) unless a value of type `from` may be given to the path.
    pub fn check(&self, from: SqlType) -> Result<(), SqlError> {
        if from == self.ty || types::assignment_cast(from, self.ty) {
            return Ok(());
        }
        if let (SqlType::Record, SqlType::Composite(def)) = (from, self.ty) {
            return Err(SqlError::new(
                "42846",
                format!("cannot cast type record to {}", def.name),
            ));
        }
        Err(SqlError::new(
            "42804",
            format!(
                "subfield \"{}\" is of type {} but expression is of type {}",
                self.name,
                type_name(self.ty),
                type_name(from)
            ),
        )
        .with_hint("You will need to rewrite or cast the expression."))
    }
}

/// 0A000: `DEFAULT` given to a field target.
pub fn default_refused() -> SqlError {
    SqlError::new("0A000", "cannot set a subfield to DEFAULT")
}

/// The columns of a SET list (UPDATE's, MERGE's, ON CONFLICT DO
/// UPDATE's) assigned field by field so far.
#[derive(Debug, Default)]
pub struct FieldTargets(Vec<usize>);

impl FieldTargets {
    /// Adds SET's `column.fields = value` (column `c` of `relation`,
    /// written at `at`; `base` its value before the statement, `value`
    /// bound over `columns`) to the SET list's `targets`: a column's
    /// first field target is a new target over `base`, a later one sets
    /// its field in the value the one before made; a column also
    /// assigned whole is 42601 (`dml::refuse_repeated`).
    pub fn add(
        &mut self,
        relation: &Relation,
        (c, fields, at): (usize, &[String], Location),
        value: &Expr,
        base: Scalar,
        columns: &(impl Columns + ?Sized),
        targets: &mut Vec<(usize, Scalar)>,
    ) -> Result<(), SqlError> {
        let near = |e: SqlError| e.near(Some(at));
        let column = &relation.def.columns[c].name;
        let path = Path::of(column, relation.types[c], fields).map_err(near)?;
        if crate::dml::is_default(value) {
            return Err(near(default_refused()));
        }
        let previous = targets.iter().position(|(done, _)| *done == c);
        if previous.is_some() && !self.0.contains(&c) {
            crate::dml::refuse_repeated(relation, c, targets)?;
        }
        let bound = crate::scalar::bind(value, columns)?;
        // (PostgreSQL points at the target for a type it refuses, at the
        // value for a row that does not become the field's type.)
        let bound = path.fit(bound, columns).map_err(|e| match e.code {
            "42804" => near(e),
            _ => e.near(Some(value.span().start)),
        })?;
        match previous {
            Some(p) => {
                let base = std::mem::replace(&mut targets[p].1, Scalar::Const(Value::Null));
                targets[p].1 = path.bind(base, bound);
            }
            None => {
                targets.push((c, path.bind(base, bound)));
                self.0.push(c);
            }
        }
        Ok(())
    }
}

/// A SET target's column name and the fields written after it (`c.f1.f2`:
/// `c`, `[f1, f2]`; a plain name has none).
pub fn split(target: &ObjectName) -> Result<(String, Vec<String>, &Ident), SqlError> {
    let idents: Vec<&Ident> = (target.0.iter())
        .map(|p| match p {
            ObjectNamePart::Identifier(id) => Ok(id),
            other => Err(SqlError::unsupported(format!("the name {other}"))),
        })
        .collect::<Result<_, _>>()?;
    let (first, fields) = idents.split_first().expect("a name has a part");
    let column = match fields.is_empty() {
        true => crate::names::relation(target)?,
        false => crate::names::ident(first),
    };
    let fields = fields.iter().map(|f| crate::names::ident(f)).collect();
    Ok((column, fields, first))
}

/// The composite value `base` (a record of `of` fields; NULL: a row of
/// NULLs) with its field `at` replaced by `value` (PostgreSQL's
/// FieldStore).
pub fn set_field(base: Value, at: u16, of: u16, value: Value) -> Result<Value, SqlError> {
    let mut fields = match base {
        Value::Record(fields) => fields,
        Value::Null => vec![Value::Null; usize::from(of)],
        other => {
            return Err(SqlError::new(
                "XX000",
                format!("a field assigned in a value that is not a record: {other:?}"),
            ));
        }
    };
    let slot = (fields.get_mut(usize::from(at)))
        .ok_or_else(|| SqlError::new("XX000", "a field assigned past a record's end"))?;
    *slot = value;
    Ok(Value::Record(fields))
}

fn type_name(ty: SqlType) -> String {
    match ty {
        // (Named by its definition: the session's list of types may not
        // hold it.)
        SqlType::Composite(def) => def.name.clone(),
        _ => crate::catalog_functions::format_type(i64::from(ty.oid()), None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use folio_row::CompositeType;

    fn quad() -> SqlType {
        let complex = CompositeType::intern(CompositeType {
            oid: 16700,
            array_oid: 16699,
            name: "complex".into(),
            fields: vec![("r".into(), SqlType::Float8), ("i".into(), SqlType::Float8)],
        });
        SqlType::Composite(CompositeType::intern(CompositeType {
            oid: 16702,
            array_oid: 16701,
            name: "quad".into(),
            fields: vec![
                ("c1".into(), SqlType::Composite(complex)),
                ("c2".into(), SqlType::Composite(complex)),
            ],
        }))
    }

    // Proves a nested field is set inside the value outside it, a NULL
    // value first a row of NULLs, and the fields around it kept.
    #[test]
    fn sets_nested_fields() {
        let path = Path::of("q", quad(), &["c2".into(), "i".into()]).unwrap();
        assert_eq!(path.ty(), SqlType::Float8);
        let v = path.set(Value::Null, Value::Int4(66)).unwrap();
        assert_eq!(
            v,
            Value::Record(vec![
                Value::Null,
                Value::Record(vec![Value::Null, Value::Int4(66)])
            ])
        );
        let first = Path::of("q", quad(), &["c1".into(), "r".into()]).unwrap();
        let v = first.set(v, Value::Int4(55)).unwrap();
        assert_eq!(
            v,
            Value::Record(vec![
                Value::Record(vec![Value::Int4(55), Value::Null]),
                Value::Record(vec![Value::Null, Value::Int4(66)])
            ])
        );
    }

    // Proves PostgreSQL's errors for a missing field, a field of a type
    // that is not composite and a value of the wrong type.
    #[test]
    fn refuses_as_postgres() {
        let e = Path::of("q", quad(), &["nosuch".into()]).unwrap_err();
        assert_eq!(e.code, "42703");
        assert_eq!(
            e.message,
            "cannot assign to field \"nosuch\" of column \"q\" because there is no such column in data type quad"
        );
        let e = Path::of("f1", SqlType::Int4, &["x".into()]).unwrap_err();
        assert_eq!(e.code, "42804");
        let c1 = Path::of("q", quad(), &["c1".into()]).unwrap();
        let e = c1.check(SqlType::Int4).unwrap_err();
        assert_eq!(
            e.message,
            "subfield \"c1\" is of type complex but expression is of type integer"
        );
        assert_eq!(c1.check(SqlType::Record).unwrap_err().code, "42846");
    }
}
