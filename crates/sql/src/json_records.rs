//! The json functions that return rows of the caller's shape, FROM items
//! with a column definition list (`table_functions.rs`):
//! `json_to_record` / `jsonb_to_record` (one row, from an object) and
//! `json_to_recordset` / `jsonb_to_recordset` (a row per object of an
//! array), with PostgreSQL 15's errors for a document of another kind.
//!
//! A column takes the member of its name (the last one, in a json object
//! that repeats it), NULL if there is none, by PostgreSQL's rules
//! (`populate_record_field`):
//!
//! - json `null` is NULL;
//! - a json or jsonb column takes the member as json: its text as written
//!   (jsonb: in jsonb's form);
//! - an array column takes a json array's elements, each by these rules,
//!   or a string's text as an array literal; another member is 22P02
//!   `expected JSON array`;
//! - any other column takes a string's text, or another member's json
//!   text, by its type's input syntax, checked as an assignment is (a
//!   too long `varchar(n)` is 22001, not cut).

use crate::error::SqlError;
use crate::scalar::{self, Scalar};
use folio_row::{JsonNode, JsonNodeKind, Jsonb, SqlType, Value, parse_json};
use sqlparser::ast::{DataType, Expr, ObjectName};

/// A json function returning records.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RecordFunc {
    pub jsonb: bool,
    /// A row per element of an array (`_recordset`), else one row.
    pub set: bool,
    /// `_populate_`: a first argument of a row type gives the columns
    /// and, when not NULL, the values of the keys the document lacks
    /// ([`RecordFunc::bind_base`]).
    pub populate: bool,
}

const fn func(jsonb: bool, set: bool, populate: bool) -> RecordFunc {
    RecordFunc {
        jsonb,
        set,
        populate,
    }
}

const NAMES: [(&str, RecordFunc); 8] = [
    ("json_to_record", func(false, false, false)),
    ("jsonb_to_record", func(true, false, false)),
    ("json_to_recordset", func(false, true, false)),
    ("jsonb_to_recordset", func(true, true, false)),
    ("json_populate_record", func(false, false, true)),
    ("jsonb_populate_record", func(true, false, true)),
    ("json_populate_recordset", func(false, true, true)),
    ("jsonb_populate_recordset", func(true, true, true)),
];

/// A row type: its columns' names and types.
pub type RowType = Vec<(String, SqlType)>;

/// A relation's row type by its name (an error if there is no such
/// relation). The binder's caller supplies it (`from.rs`).
pub type RowTypes<'a> = &'a dyn Fn(&ObjectName) -> Result<RowType, SqlError>;

/// A member of the document, whichever its type.
#[derive(Clone, Copy)]
enum Member<'a> {
    /// A json node and the document's text it spans.
    Json(&'a JsonNode<'a>, &'a str),
    Jsonb(&'a Jsonb),
}

impl<'a> Member<'a> {
    fn is_null(self) -> bool {
        matches!(
            self,
            Member::Json(
                JsonNode {
                    kind: JsonNodeKind::Null,
                    ..
                },
                _
            ) | Member::Jsonb(Jsonb::Null)
        )
    }

    /// Its json text: as written, or in jsonb's form.
    fn text(self) -> String {
        match self {
            Member::Json(node, text) => text[node.start..node.end].to_string(),
            Member::Jsonb(j) => j.to_text(),
        }
    }

    /// A string's value (None for another kind of member).
    fn string(self) -> Result<Option<String>, SqlError> {
        Ok(match self {
            Member::Json(
                JsonNode {
                    kind: JsonNodeKind::String(s),
                    ..
                },
                _,
            ) => Some(s.clone()?),
            Member::Jsonb(Jsonb::String(s)) => Some(s.clone()),
            _ => None,
        })
    }

    /// An array's elements (None for another kind of member).
    fn elements(self) -> Option<Vec<Member<'a>>> {
        match self {
            Member::Json(
                JsonNode {
                    kind: JsonNodeKind::Array(items),
                    ..
                },
                text,
            ) => Some(items.iter().map(|i| Member::Json(i, text)).collect()),
            Member::Jsonb(Jsonb::Array(items)) => Some(items.iter().map(Member::Jsonb).collect()),
            _ => None,
        }
    }

    /// An object's member named `key`, the last if the object repeats it
    /// (None if it has none; an error for another kind of member).
    fn member(self, key: &str) -> Result<Option<Member<'a>>, SqlError> {
        Ok(match self {
            Member::Json(
                JsonNode {
                    kind: JsonNodeKind::Object(members),
                    ..
                },
                text,
            ) => {
                let mut found = None;
                for (k, v) in members {
                    if k.as_ref().map_err(|e| SqlError::from(e.clone()))? == key {
                        found = Some(Member::Json(v, text));
                    }
                }
                found
            }
            Member::Jsonb(j) => j.get(key).map(Member::Jsonb),
            _ => None,
        })
    }

    /// `an array`, `an object` or `a scalar`, as messages name it.
    fn kind(self) -> &'static str {
        match self {
            Member::Json(
                JsonNode {
                    kind: JsonNodeKind::Array(_),
                    ..
                },
                _,
            )
            | Member::Jsonb(Jsonb::Array(_)) => "an array",
            Member::Json(
                JsonNode {
                    kind: JsonNodeKind::Object(_),
                    ..
                },
                _,
            )
            | Member::Jsonb(Jsonb::Object(_)) => "an object",
            _ => "a scalar",
        }
    }
}

impl RecordFunc {
    pub fn of(name: &str) -> Option<RecordFunc> {
        crate::names::lookup(&NAMES, name)
    }

    pub fn name(self) -> &'static str {
        crate::names::name_in(&NAMES, &self).expect("every form is named")
    }

    /// The document's type.
    pub fn doc_type(self) -> SqlType {
        if self.jsonb {
            SqlType::Jsonb
        } else {
            SqlType::Json
        }
    }

    /// A `_populate_` call's first argument `arg`, which must be of a row
    /// type: `CAST(NULL AS t)` or `ROW(...)::t`, `t` a relation
    /// (`row_type`), gives its columns and the base row (NULL, or the
    /// record of the fields cast to the columns' types); `NULL::record`
    /// gives no columns (the call's column definition list gives them,
    /// as for a `_to_record`). PostgreSQL's errors for an argument of
    /// another type; a value of a row type written otherwise (`'(1,x)'::t`,
    /// a whole row) is 0A000.
    pub fn bind_base(
        self,
        arg: &Expr,
        row_type: RowTypes<'_>,
    ) -> Result<(Scalar, Option<RowType>), SqlError> {
        let none: &[SqlType] = &[];
        let not_row = || {
            SqlError::new(
                "42804",
                format!("first argument of {} must be a row type", self.name()),
            )
        };
        let is_null =
            |e: &Expr| matches!(e, Expr::Value(v) if v.value == sqlparser::ast::Value::Null);
        let Expr::Cast {
            expr, data_type, ..
        } = arg
        else {
            return Err(match scalar::bind(arg, none)? {
                s if is_null(arg) || scalar::is_unknown(&s) => SqlError::new(
                    "42804",
                    "could not determine polymorphic type because input has type unknown",
                ),
                s if s.ty_in(none) == SqlType::Record => {
                    SqlError::unsupported(format!("a row value of type record in {}", self.name()))
                }
                _ => not_row(),
            });
        };
        let record = matches!(data_type, DataType::Custom(name, modifiers)
            if modifiers.is_empty() && crate::names::relation(name).is_ok_and(|n| n == "record"));
        if record {
            return match is_null(expr) {
                true => Ok((Scalar::Const(Value::Null), None)),
                false => Err(SqlError::unsupported(format!(
                    "a row value of type record in {}",
                    self.name()
                ))),
            };
        }
        // A composite type's value (`NULL::t`, `ROW(...)::t`): its fields.
        if let Ok(SqlType::Composite(def)) = crate::types::column_type(data_type) {
            let base = scalar::bind(arg, none)?;
            if matches!(base.ty_in(none), SqlType::Composite(_)) {
                return Ok((base, Some(def.fields.clone())));
            }
        }
        let columns = match crate::types::column_type(data_type) {
            // A relation's row type: its columns, as the relation has them.
            Ok(SqlType::Composite(_)) => match data_type {
                DataType::Custom(name, modifiers) if modifiers.is_empty() => {
                    row_type(name).map_err(|_| not_row())?
                }
                _ => return Err(not_row()),
            },
            Ok(_) => return Err(not_row()),
            Err(e) => match data_type {
                DataType::Custom(name, modifiers) if modifiers.is_empty() => {
                    let at = sqlparser::ast::Spanned::span(name).start;
                    row_type(name).map_err(|_| e.near(Some(at)))?
                }
                _ => return Err(e),
            },
        };
        if is_null(expr) {
            return Ok((Scalar::Const(Value::Null), Some(columns)));
        }
        let fields = match scalar::bind(expr, none)? {
            Scalar::Func(crate::functions::Func::Row(crate::row_values::RowFunc::Construct), f) => {
                f
            }
            _ => {
                return Err(SqlError::unsupported(format!(
                    "a value of type {data_type} other than NULL or ROW(...) in {}",
                    self.name()
                )));
            }
        };
        if fields.len() != columns.len() {
            let fewer = fields.len() < columns.len();
            return Err(
                SqlError::new("42846", format!("cannot cast type record to {data_type}"))
                    .with_detail(match fewer {
                        true => "Input has too few columns.",
                        false => "Input has too many columns.",
                    }),
            );
        }
        let cast = (fields.into_iter().zip(&columns))
            .map(|(f, (_, ty))| Scalar::Cast(Box::new(f), *ty))
            .collect();
        let base = Scalar::Func(
            crate::functions::Func::Row(crate::row_values::RowFunc::Construct),
            cast,
        );
        Ok((base, Some(columns)))
    }

    /// The rows of `doc` (a json or jsonb value, or NULL: no rows from a
    /// `_recordset`, one row, the base row, from a `_record`, as
    /// PostgreSQL's) with `columns`, a key the document lacks taking the
    /// base row's value (`base`: a record of the columns' types, or NULL
    /// for a row of NULLs).
    pub fn rows(
        self,
        doc: &Value,
        base: &Value,
        columns: &[(String, SqlType)],
    ) -> Result<Vec<Vec<Value>>, SqlError> {
        let base = match base {
            Value::Record(fields) => fields.clone(),
            _ => vec![Value::Null; columns.len()],
        };
        let parsed;
        let member = match doc {
            Value::Null if self.set => return Ok(Vec::new()),
            Value::Null => return Ok(vec![base]),
            Value::Jsonb(j) => Member::Jsonb(j),
            Value::Json(text) => {
                parsed = parse_json(text)?;
                Member::Json(&parsed, text)
            }
            other => {
                return Err(SqlError::new(
                    "XX000",
                    format!(
                        "unexpected {} argument of {}",
                        other.type_name(),
                        self.name()
                    ),
                ));
            }
        };
        let error = |message: String| SqlError::new("22023", message);
        if !self.set {
            return match member.kind() {
                "an object" => Ok(vec![row(member, &base, columns)?]),
                kind => Err(error(format!("cannot call populate_composite on {kind}"))),
            };
        }
        let Some(items) = member.elements() else {
            return match (self.jsonb, member.kind()) {
                (true, _) => Err(error(format!("cannot call {} on a non-array", self.name()))),
                (false, kind) => Err(error(format!("cannot call {} on {kind}", self.name()))),
            };
        };
        items
            .into_iter()
            .map(|item| match item.kind() {
                "an object" => row(item, &base, columns),
                _ => Err(error(format!(
                    "argument of {} must be an array of objects",
                    self.name()
                ))),
            })
            .collect()
    }
}

/// `json[b]_populate_record(base, doc)` outside FROM: a value of the
/// base's composite type (`JsonFunc::Populate`). A `_recordset` call or
/// a base of another type (an anonymous `ROW(...)`) is 0A000 here.
pub fn bind_scalar(
    f: RecordFunc,
    call: &sqlparser::ast::Function,
    columns: &(impl scalar::Columns + ?Sized),
) -> Result<Scalar, SqlError> {
    use sqlparser::ast::{FunctionArg, FunctionArgExpr, FunctionArguments};
    let unsupported =
        |what: &str| SqlError::unsupported(format!("{} {what} outside FROM", f.name()));
    if f.set {
        return Err(unsupported("(rows in a select list)"));
    }
    let FunctionArguments::List(list) = &call.args else {
        return Err(unsupported("without arguments"));
    };
    let [
        FunctionArg::Unnamed(FunctionArgExpr::Expr(base)),
        FunctionArg::Unnamed(FunctionArgExpr::Expr(doc)),
    ] = list.args.as_slice()
    else {
        return Err(SqlError::new(
            "42883",
            format!("function {}() does not exist", f.name()),
        ));
    };
    // (`NULL::record` names no type folio binds: PostgreSQL's error.)
    if matches!(base, Expr::Cast { data_type: DataType::Custom(name, _), .. }
        if crate::names::relation(name).is_ok_and(|n| n == "record"))
    {
        return Err(SqlError::new(
            "0A000",
            format!("could not determine row type for result of {}", f.name()),
        )
        .with_hint("Provide a non-null record argument, or call the function in the FROM clause using a column definition list."));
    }
    let base = scalar::bind(base, columns)?;
    let SqlType::Composite(def) = base.ty_in(columns) else {
        return Err(unsupported("of a base row of an anonymous record type"));
    };
    let doc = scalar::bind(doc, columns)?;
    let doc = crate::json_table_functions::bind_document(f.name(), doc, f.doc_type(), columns)?;
    Ok(Scalar::Func(
        crate::functions::Func::Json(crate::json_functions::JsonFunc::Populate { f, def }),
        vec![doc, base],
    ))
}

/// The row `object` gives `columns`, `base`'s value for a missing key.
fn row(
    object: Member<'_>,
    base: &[Value],
    columns: &[(String, SqlType)],
) -> Result<Vec<Value>, SqlError> {
    (columns.iter().zip(base))
        .map(|((name, ty), base)| match object.member(name)? {
            Some(m) => field(m, *ty, name, base),
            None => Ok(base.clone()),
        })
        .collect()
}

/// `member` as a value of `ty`, the value of key `key` (module comment);
/// `base` the base row's value, which a composite field starts from.
fn field(member: Member<'_>, ty: SqlType, key: &str, base: &Value) -> Result<Value, SqlError> {
    if member.is_null() {
        return Ok(Value::Null);
    }
    let input = |text: String| crate::types::coerce(Value::Text(text), ty);
    match ty {
        SqlType::Json | SqlType::Jsonb => input(member.text()),
        SqlType::Array(element) => {
            if member.elements().is_some() {
                let mut nest = Nest {
                    key,
                    element: *element,
                    ndims: None,
                    dims: Vec::new(),
                    sizes: Vec::new(),
                    items: Vec::new(),
                };
                nest.dim(member, 1)?;
                let dims = (nest.dims.iter().zip(&nest.sizes).enumerate())
                    .map(|(d, (len, size))| folio_row::Dim {
                        lower: 1,
                        len: match d {
                            0 => *size as u32,
                            _ => len.unwrap_or(0) as u32,
                        },
                    })
                    .collect();
                return Ok(Value::Array(
                    folio_row::Array::new(dims, nest.items).map_err(SqlError::from)?,
                ));
            }
            match member.string()? {
                Some(literal) => input(literal),
                None => Err(SqlError::new("22P02", "expected JSON array")
                    .with_hint(format!("See the value of key \"{key}\"."))),
            }
        }
        SqlType::Composite(def) => match (member.kind(), member.string()?) {
            ("an object", _) => {
                let base = match base {
                    Value::Record(fields) => fields.clone(),
                    _ => vec![Value::Null; def.fields.len()],
                };
                Ok(Value::Record(row(member, &base, &def.fields)?))
            }
            (_, Some(literal)) => input(literal),
            (kind, None) => Err(SqlError::new(
                "22023",
                format!("cannot call populate_composite on {kind}"),
            )),
        },
        _ => input(match member.string()? {
            Some(s) => s,
            None => member.text(),
        }),
    }
}

/// A JSON array read into an array value of several dimensions, as
/// PostgreSQL's `populate_array`: the first innermost element fixes the
/// number of dimensions; every sub-array of a dimension must have one
/// length.
struct Nest<'k> {
    key: &'k str,
    element: SqlType,
    ndims: Option<usize>,
    /// Each dimension's length, once known.
    dims: Vec<Option<usize>>,
    /// Each dimension's elements so far (the position errors name).
    sizes: Vec<usize>,
    items: Vec<Value>,
}

impl Nest<'_> {
    /// Reads `member`, an array of dimension `ndim` (from 1).
    fn dim(&mut self, member: Member<'_>, ndim: usize) -> Result<(), SqlError> {
        let Some(items) = member.elements() else {
            return Err(self.expected_array(ndim - 1));
        };
        if self.sizes.len() < ndim {
            self.sizes.resize(ndim, 0);
            self.dims.resize(ndim, None);
        }
        if self.ndims.is_none() && items.first().is_none_or(|i| i.elements().is_none()) {
            if ndim > folio_row::MAX_DIMS {
                return Err(SqlError::new(
                    "54000",
                    format!(
                        "number of array dimensions ({ndim}) exceeds the maximum allowed ({})",
                        folio_row::MAX_DIMS
                    ),
                ));
            }
            self.ndims = Some(ndim);
        }
        for item in items {
            if self.ndims.is_some_and(|n| ndim >= n) {
                self.items
                    .push(field(item, self.element, self.key, &Value::Null)?);
                self.sizes[ndim - 1] += 1;
            } else {
                self.dim(item, ndim + 1)?;
                // The sub-array just read: its length must be its
                // dimension's.
                let len = self.sizes[ndim];
                match self.dims[ndim] {
                    None => self.dims[ndim] = Some(len),
                    Some(known) if known != len => {
                        return Err(SqlError::new("22P02", "malformed JSON array").with_detail(
                            "Multidimensional arrays must have sub-arrays with matching dimensions.",
                        ));
                    }
                    Some(_) => {}
                }
                self.sizes[ndim] = 0;
                self.sizes[ndim - 1] += 1;
            }
        }
        Ok(())
    }

    /// 22P02 `expected JSON array` at the element the first `ndim`
    /// positions name.
    fn expected_array(&self, ndim: usize) -> SqlError {
        let error = SqlError::new("22P02", "expected JSON array");
        if ndim == 0 {
            return error.with_hint(format!("See the value of key \"{}\".", self.key));
        }
        let at: String = self.sizes[..ndim]
            .iter()
            .map(|i| format!("[{i}]"))
            .collect();
        error.with_hint(format!(
            "See the array element {at} of key \"{}\".",
            self.key
        ))
    }
}
