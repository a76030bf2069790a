//! SQL values as JSON, as PostgreSQL 15 makes them: `to_json`,
//! `to_jsonb`, `json_build_object`, `jsonb_build_object`,
//! `json_build_array`, `jsonb_build_array`, and the elements of the
//! aggregates `json_agg`, `jsonb_agg`, `json_object_agg`,
//! `jsonb_object_agg` (`aggregate.rs` calls [`json_text`] and
//! [`to_jsonb`]).
//!
//! A number is a JSON number (a float's NaN or infinity a string), a
//! boolean `true`/`false`, an array a JSON array, json and jsonb
//! themselves; a date is its ISO text, a timestamp ISO 8601 with a `T`
//! (`2020-01-01T10:00:00`, with `+00:00` for timestamptz: the session is
//! UTC); anything else its text output as a string. The json forms keep
//! PostgreSQL's spacing: `[1,2]` for an array value, `{"a" : 1}` and
//! `[1, 2]` for the build functions. A row value carries no field
//! names: `to_json`, `to_jsonb` and `row_to_json` of a whole-row reference
//! (`to_jsonb(t)`, named by its FROM item's columns) or of a row
//! constructor (`f1`, `f2`, ...) are rewritten by the binder into
//! [`BuildFunc::Fields`] ([`bind_record`]); any other row value is 0A000.

use crate::error::SqlError;
use crate::types;
use folio_row::{Jsonb, SqlType, Value, json_escape_into, json_number_text};

/// A function making JSON of SQL values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BuildFunc {
    To {
        jsonb: bool,
    },
    /// `row_to_json(record [, pretty])`: `to_json` of a record.
    RowToJson,
    /// `array_to_json(array [, pretty])`: `to_json` of an array, its
    /// outer elements a line each when `pretty`.
    ArrayToJson,
    Object {
        jsonb: bool,
    },
    Array {
        jsonb: bool,
    },
    /// `to_json(r)`, `to_jsonb(r)`, `row_to_json(r)` of a row whose field
    /// names the binder knows ([`bind_record`]): its arguments are the
    /// names and values, alternately, then `row_to_json`'s `pretty` (a
    /// field a line when true).
    Fields {
        jsonb: bool,
    },
}

const NAMES: [(&str, BuildFunc); 10] = [
    ("to_json", BuildFunc::To { jsonb: false }),
    ("to_jsonb", BuildFunc::To { jsonb: true }),
    ("row_to_json", BuildFunc::RowToJson),
    ("array_to_json", BuildFunc::ArrayToJson),
    ("to_json", BuildFunc::Fields { jsonb: false }),
    ("to_jsonb", BuildFunc::Fields { jsonb: true }),
    ("json_build_object", BuildFunc::Object { jsonb: false }),
    ("jsonb_build_object", BuildFunc::Object { jsonb: true }),
    ("json_build_array", BuildFunc::Array { jsonb: false }),
    ("jsonb_build_array", BuildFunc::Array { jsonb: true }),
];

impl BuildFunc {
    pub fn of(name: &str) -> Option<BuildFunc> {
        crate::names::lookup(&NAMES, name)
    }

    pub fn name(self) -> &'static str {
        crate::names::name_in(&NAMES, &self).expect("every form is named")
    }

    pub fn takes(self, count: usize) -> bool {
        match self {
            BuildFunc::To { .. } => count == 1,
            BuildFunc::RowToJson | BuildFunc::ArrayToJson => (1..=2).contains(&count),
            _ => true,
        }
    }

    /// `to_json` of NULL is NULL; the build functions take NULL as null.
    pub fn is_strict(self) -> bool {
        matches!(
            self,
            BuildFunc::To { .. } | BuildFunc::RowToJson | BuildFunc::ArrayToJson
        )
    }

    pub fn ty(self) -> SqlType {
        match self {
            BuildFunc::RowToJson | BuildFunc::ArrayToJson => SqlType::Json,
            BuildFunc::To { jsonb }
            | BuildFunc::Object { jsonb }
            | BuildFunc::Array { jsonb }
            | BuildFunc::Fields { jsonb } => {
                if jsonb {
                    SqlType::Jsonb
                } else {
                    SqlType::Json
                }
            }
        }
    }

    pub fn eval(self, args: Vec<Value>) -> Result<Value, SqlError> {
        Ok(match self {
            BuildFunc::To { jsonb: false } | BuildFunc::RowToJson => {
                let mut out = String::new();
                json_text(&args[0], &mut out)?;
                Value::Json(out)
            }
            BuildFunc::To { jsonb: true } => jsonb_value(to_jsonb(&args[0])?),
            BuildFunc::ArrayToJson => {
                let Value::Array(array) = &args[0] else {
                    return Err(SqlError::new(
                        "XX000",
                        "unexpected array_to_json of a non-array",
                    ));
                };
                let mut out = String::new();
                let pretty = args.get(1) == Some(&Value::Bool(true));
                nested_text(&array.dims(), array.items(), pretty, &mut out)?;
                Value::Json(out)
            }
            BuildFunc::Array { jsonb: false } => {
                let mut out = String::from("[");
                for (i, v) in args.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    json_text(v, &mut out)?;
                }
                out.push(']');
                Value::Json(out)
            }
            BuildFunc::Array { jsonb: true } => jsonb_value(Jsonb::Array(
                args.iter().map(to_jsonb).collect::<Result<_, _>>()?,
            )),
            BuildFunc::Fields { jsonb: true } => jsonb_value(Jsonb::object(
                (args.chunks_exact(2))
                    .map(|pair| {
                        Ok((
                            types::text_output(&pair[0]).unwrap_or_default(),
                            to_jsonb(&pair[1])?,
                        ))
                    })
                    .collect::<Result<_, SqlError>>()?,
            )),
            // PostgreSQL's record form: no spaces.
            BuildFunc::Fields { jsonb: false } => {
                let mut out = String::from("{");
                let pretty = args.len() % 2 == 1 && args.last() == Some(&Value::Bool(true));
                for (i, pair) in args.chunks_exact(2).enumerate() {
                    if i > 0 {
                        out.push_str(if pretty { ",\n " } else { "," });
                    }
                    json_escape_into(&mut out, &types::text_output(&pair[0]).unwrap_or_default());
                    out.push(':');
                    json_text(&pair[1], &mut out)?;
                }
                out.push('}');
                Value::Json(out)
            }
            BuildFunc::Object { jsonb } => {
                let name = self.name();
                if !args.len().is_multiple_of(2) {
                    return Err(SqlError::new(
                        "22023",
                        "argument list must have even number of elements",
                    )
                    .with_hint(format!(
                        "The arguments of {name}() must consist of alternating keys and values."
                    )));
                }
                let mut members = Vec::with_capacity(args.len() / 2);
                for (i, pair) in args.chunks(2).enumerate() {
                    members.push((object_key(&pair[0], Some(2 * i + 1), jsonb)?, &pair[1]));
                }
                if jsonb {
                    jsonb_value(Jsonb::object(
                        members
                            .into_iter()
                            .map(|(k, v)| Ok((k, to_jsonb(v)?)))
                            .collect::<Result<_, SqlError>>()?,
                    ))
                } else {
                    let mut out = String::from("{");
                    for (i, (k, v)) in members.into_iter().enumerate() {
                        if i > 0 {
                            out.push_str(", ");
                        }
                        json_escape_into(&mut out, &k);
                        out.push_str(" : ");
                        json_text(v, &mut out)?;
                    }
                    out.push('}');
                    Value::Json(out)
                }
            }
        })
    }
}

/// `json_agg` / `jsonb_agg` of its values (NULLs as nulls); json puts
/// an array or a row (`rows`: the values are rows' json) after the first
/// item on a line of its own, as PostgreSQL's.
pub fn agg(jsonb: bool, rows: bool, items: &[Value]) -> Result<Value, SqlError> {
    if jsonb {
        return Ok(jsonb_value(Jsonb::Array(
            items.iter().map(to_jsonb).collect::<Result<_, _>>()?,
        )));
    }
    let mut out = String::from("[");
    for (i, v) in items.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
            if *v != Value::Null && (rows || matches!(v, Value::Array(_))) {
                out.push_str("\n ");
            }
        }
        json_text(v, &mut out)?;
    }
    out.push(']');
    Ok(Value::Json(out))
}

/// `json_object_agg` / `jsonb_object_agg` of its keys (none NULL) and
/// values: json keeps every pair as given, jsonb the last of a key.
pub fn object_agg(jsonb: bool, pairs: &[(Value, Value)]) -> Result<Value, SqlError> {
    let key = |k: &Value| types::text_output(k).unwrap_or_default();
    if jsonb {
        return Ok(jsonb_value(Jsonb::object(
            pairs
                .iter()
                .map(|(k, v)| Ok((key(k), to_jsonb(v)?)))
                .collect::<Result<_, SqlError>>()?,
        )));
    }
    let mut out = String::from("{ ");
    for (i, (k, v)) in pairs.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        json_escape_into(&mut out, &key(k));
        out.push_str(" : ");
        json_text(v, &mut out)?;
    }
    out.push_str(" }");
    Ok(Value::Json(out))
}

fn jsonb_value(j: Jsonb) -> Value {
    Value::Jsonb(Box::new(j))
}

/// An object key of a build function (`position`: the argument's,
/// from 1) or of an object aggregate (`None`): the value's text. NULL is
/// 22023 (jsonb's message differs), as is an array, a row or json.
pub fn object_key(key: &Value, position: Option<usize>, jsonb: bool) -> Result<String, SqlError> {
    match (key, position) {
        (Value::Null, None) => Err(SqlError::new("22023", "field name must not be null")),
        (Value::Null, Some(position)) if jsonb => Err(SqlError::new(
            "22023",
            format!("argument {position}: key must not be null"),
        )),
        (Value::Null, Some(position)) => Err(SqlError::new(
            "22023",
            format!("argument {position} cannot be null"),
        )
        .with_hint("Object keys should be text.")),
        (Value::Array(_) | Value::Record(_) | Value::Json(_) | Value::Jsonb(_), _) => {
            Err(SqlError::new(
                "22023",
                "key value must be scalar, not array, composite, or json",
            ))
        }
        (other, _) => Ok(types::text_output(other).unwrap_or_default()),
    }
}

/// Appends `v` as json text (`to_json`'s form).
pub fn json_text(v: &Value, out: &mut String) -> Result<(), SqlError> {
    match v {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Json(text) => out.push_str(text),
        Value::Jsonb(j) => out.push_str(&j.to_text()),
        Value::Array(array) => nested_text(&array.dims(), array.items(), false, out)?,
        other => match scalar(other)? {
            Scalar::Number(text) => out.push_str(&text),
            Scalar::String(text) => json_escape_into(out, &text),
        },
    }
    Ok(())
}

/// `v` as jsonb (`to_jsonb`'s value).
pub fn to_jsonb(v: &Value) -> Result<Jsonb, SqlError> {
    Ok(match v {
        Value::Null => Jsonb::Null,
        Value::Bool(b) => Jsonb::Bool(*b),
        Value::Json(text) => Jsonb::parse(text)?,
        Value::Jsonb(j) => (**j).clone(),
        Value::Array(array) => nested_jsonb(&array.dims(), array.items())?,
        other => match scalar(other)? {
            Scalar::Number(text) => Jsonb::Number(json_number_text(&text)?),
            Scalar::String(text) => Jsonb::String(text),
        },
    })
}

/// An array's elements (`items`, row-major) of dimensions `dims` as
/// nested JSON arrays (`[]` for none); `pretty`: the outer elements a
/// line each (`array_to_json`'s).
fn nested_text(
    dims: &[folio_row::Dim],
    items: &[Value],
    pretty: bool,
    out: &mut String,
) -> Result<(), SqlError> {
    out.push('[');
    if let Some((dim, inner)) = dims.split_first() {
        let per = items.len() / (dim.len as usize).max(1);
        for (i, chunk) in items.chunks(per.max(1)).enumerate() {
            if i > 0 {
                out.push_str(if pretty { ",\n " } else { "," });
            }
            match inner.is_empty() {
                true => json_text(&chunk[0], out)?,
                false => nested_text(inner, chunk, false, out)?,
            }
        }
    }
    out.push(']');
    Ok(())
}

/// [`nested_text`] as jsonb.
fn nested_jsonb(dims: &[folio_row::Dim], items: &[Value]) -> Result<Jsonb, SqlError> {
    let Some((dim, inner)) = dims.split_first() else {
        return Ok(Jsonb::Array(Vec::new()));
    };
    let per = (items.len() / (dim.len as usize).max(1)).max(1);
    Ok(Jsonb::Array(
        items
            .chunks(per)
            .map(|chunk| match inner.is_empty() {
                true => to_jsonb(&chunk[0]),
                false => nested_jsonb(inner, chunk),
            })
            .collect::<Result<_, _>>()?,
    ))
}

enum Scalar {
    /// A JSON number's text (a float's or numeric's output).
    Number(String),
    String(String),
}

/// A value that is neither a container nor a boolean as a JSON number
/// or string.
fn scalar(v: &Value) -> Result<Scalar, SqlError> {
    let text = types::text_output(v).unwrap_or_default();
    Ok(match v {
        Value::Int2(_) | Value::Int4(_) | Value::Int8(_) => Scalar::Number(text),
        Value::Float4(x) if !x.is_finite() => Scalar::String(text),
        Value::Float8(x) if !x.is_finite() => Scalar::String(text),
        Value::Float4(_) | Value::Float8(_) => Scalar::Number(text),
        Value::Numeric(_) if text.parse::<f64>().is_ok_and(f64::is_finite) => Scalar::Number(text),
        // An infinity is its word (`infinite_datetime.rs`).
        Value::Timestamp(t) | Value::TimestampTz(t)
            if folio_row::Infinity::of_timestamp(*t).is_some() =>
        {
            Scalar::String(text)
        }
        Value::Timestamp(_) => Scalar::String(text.replacen(' ', "T", 1)),
        // ISO 8601's offset has minutes: `+02` is written `+02:00`.
        Value::TimestampTz(_) => {
            let iso = text.replacen(' ', "T", 1);
            let offset_at = iso.rfind(['+', '-']).unwrap_or(iso.len());
            if iso[offset_at..].contains(':') {
                Scalar::String(iso)
            } else {
                Scalar::String(format!("{iso}:00"))
            }
        }
        Value::Record(_) => {
            return Err(SqlError::unsupported(
                "a row value as json (folio's row values carry no field names)",
            ));
        }
        _ => Scalar::String(text),
    })
}

/// `to_json(r)`, `to_jsonb(r)` or `row_to_json(r)` (`f`) of a row whose
/// field names are known when binding: a whole-row reference (its FROM
/// item's column names) or a row constructor (`f1`, `f2`, ...), as a
/// [`BuildFunc::Fields`] call. `None` for another argument (a record of
/// unknown names stays 0A000 when it runs); 42883 for `row_to_json` of
/// what is not a record.
pub fn bind_record(
    f: BuildFunc,
    args: &[crate::scalar::Scalar],
    columns: &(impl crate::scalar::Columns + ?Sized),
) -> Result<Option<crate::scalar::Scalar>, SqlError> {
    use crate::functions::Func;
    use crate::row_values::RowFunc;
    use crate::scalar::Scalar as Expr;
    let jsonb = match f {
        BuildFunc::To { jsonb } => jsonb,
        BuildFunc::RowToJson => false,
        BuildFunc::ArrayToJson => {
            return match args.first().map(|a| (a, a.ty_in(columns))) {
                Some((a, ty)) if ty.element().is_none() && !crate::scalar::is_unknown(a) => {
                    Err(crate::functions::no_match(format!(
                        "function array_to_json({}) does not exist",
                        crate::scalar::argument_types(args, columns)
                    )))
                }
                _ => Ok(None),
            };
        }
        _ => return Ok(None),
    };
    let Some((arg, pretty)) = args.split_first() else {
        return Ok(None);
    };
    let names: Vec<Option<String>> = match arg {
        // A table's whole row: its type's field names (an alias's column
        // names do not rename them, as PostgreSQL's).
        Expr::Func(Func::Row(RowFunc::WholeRow(Some(def))), _) => {
            (def.fields.iter()).map(|(n, _)| Some(n.clone())).collect()
        }
        Expr::Func(Func::Row(RowFunc::WholeRow(None)), fields) => (fields.iter())
            .map(|c| match c {
                Expr::Column(position) => columns.column_name(*position),
                _ => None,
            })
            .collect(),
        Expr::Func(Func::Row(RowFunc::Construct), fields) => {
            (1..=fields.len()).map(|i| Some(format!("f{i}"))).collect()
        }
        _ if f == BuildFunc::RowToJson && arg.ty_in(columns) != SqlType::Record => {
            return Err(crate::functions::no_match(format!(
                "function row_to_json({}) does not exist",
                crate::scalar::argument_types(args, columns)
            )));
        }
        _ => return Ok(None),
    };
    let (Expr::Func(_, fields), Some(names)) = (arg, names.into_iter().collect::<Option<Vec<_>>>())
    else {
        return Ok(None);
    };
    let pairs = names
        .into_iter()
        .zip(fields.iter().cloned())
        .flat_map(|(name, value)| [Expr::Const(Value::Text(name)), value])
        .chain(pretty.iter().cloned())
        .collect();
    Ok(Some(Expr::Func(
        Func::Json(crate::json_functions::JsonFunc::Build(BuildFunc::Fields {
            jsonb,
        })),
        pairs,
    )))
}
