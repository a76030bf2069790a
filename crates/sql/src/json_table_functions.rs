//! The json functions that return rows (FROM items, `table_functions.rs`):
//! `jsonb_array_elements` / `json_array_elements` (a column `value`),
//! their `_text` forms (strings as their text, null as NULL),
//! `jsonb_each` / `json_each` (`key`, `value`), their `_text` forms, and
//! `jsonb_object_keys` / `json_object_keys`, with PostgreSQL 15's errors
//! for a value of the wrong kind. The json forms answer with the parts'
//! text as written and keep duplicate keys, in the order written; the
//! jsonb forms in jsonb's key order.

use crate::error::SqlError;
use crate::scalar::Scalar;
use folio_row::{JsonNode, JsonNodeKind, Jsonb, SqlType, Value, parse_json};

/// A json function in FROM.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JsonTableFunc {
    Elements { jsonb: bool, text: bool },
    Each { jsonb: bool, text: bool },
    Keys { jsonb: bool },
}

const NAMES: [(&str, JsonTableFunc); 10] = [
    (
        "jsonb_array_elements",
        JsonTableFunc::Elements {
            jsonb: true,
            text: false,
        },
    ),
    (
        "jsonb_array_elements_text",
        JsonTableFunc::Elements {
            jsonb: true,
            text: true,
        },
    ),
    (
        "json_array_elements",
        JsonTableFunc::Elements {
            jsonb: false,
            text: false,
        },
    ),
    (
        "json_array_elements_text",
        JsonTableFunc::Elements {
            jsonb: false,
            text: true,
        },
    ),
    (
        "jsonb_each",
        JsonTableFunc::Each {
            jsonb: true,
            text: false,
        },
    ),
    (
        "jsonb_each_text",
        JsonTableFunc::Each {
            jsonb: true,
            text: true,
        },
    ),
    (
        "json_each",
        JsonTableFunc::Each {
            jsonb: false,
            text: false,
        },
    ),
    (
        "json_each_text",
        JsonTableFunc::Each {
            jsonb: false,
            text: true,
        },
    ),
    ("jsonb_object_keys", JsonTableFunc::Keys { jsonb: true }),
    ("json_object_keys", JsonTableFunc::Keys { jsonb: false }),
];

/// The document argument of the json function `name`, whose type is `ty`
/// (json or jsonb), bound over `columns`: a quoted literal is read as
/// `ty`; another type is 42883.
pub fn bind_document(
    name: &str,
    arg: Scalar,
    ty: SqlType,
    columns: &(impl crate::scalar::Columns + ?Sized),
) -> Result<Scalar, SqlError> {
    match arg {
        s if crate::scalar::is_unknown(&s) => crate::scalar::fit_unknown(s, ty),
        Scalar::Const(Value::Null) => Ok(Scalar::Const(Value::Null)),
        other => {
            let got = other.ty_in(columns);
            if got != ty {
                return Err(crate::functions::no_match(format!(
                    "function {name}({}) does not exist",
                    got.name()
                )));
            }
            Ok(other)
        }
    }
}

impl JsonTableFunc {
    pub fn of(name: &str) -> Option<JsonTableFunc> {
        crate::names::lookup(&NAMES, name)
    }

    pub fn name(self) -> &'static str {
        crate::names::name_in(&NAMES, &self).expect("every form is named")
    }

    fn jsonb(self) -> bool {
        match self {
            JsonTableFunc::Elements { jsonb, .. }
            | JsonTableFunc::Each { jsonb, .. }
            | JsonTableFunc::Keys { jsonb } => jsonb,
        }
    }

    fn doc_type(self) -> SqlType {
        if self.jsonb() {
            SqlType::Jsonb
        } else {
            SqlType::Json
        }
    }

    /// Its columns: names and types.
    pub fn columns(self) -> Vec<(&'static str, SqlType)> {
        let value = match self {
            JsonTableFunc::Elements { text: true, .. } | JsonTableFunc::Each { text: true, .. } => {
                SqlType::Text
            }
            _ => self.doc_type(),
        };
        match self {
            JsonTableFunc::Elements { .. } => vec![("value", value)],
            JsonTableFunc::Each { .. } => vec![("key", SqlType::Text), ("value", value)],
            JsonTableFunc::Keys { .. } => vec![(self.name(), SqlType::Text)],
        }
    }

    /// The argument, a quoted literal read as json or jsonb; another
    /// type is 42883.
    pub fn bind_arg(self, name: &str, arg: Scalar) -> Result<Scalar, SqlError> {
        bind_document(name, arg, self.doc_type(), &[] as &[SqlType])
    }

    /// The rows of `doc` (a json or jsonb value; NULL gives none, before
    /// this is called).
    pub fn rows(self, doc: &Value) -> Result<Vec<Vec<Value>>, SqlError> {
        match doc {
            Value::Jsonb(j) => self.jsonb_rows(j),
            Value::Json(text) => self.json_rows(text),
            other => Err(SqlError::new(
                "XX000",
                format!(
                    "unexpected {} argument of {}",
                    other.type_name(),
                    self.name()
                ),
            )),
        }
    }

    fn jsonb_rows(self, doc: &Jsonb) -> Result<Vec<Vec<Value>>, SqlError> {
        let value = |j: &Jsonb, text: bool| match (j, text) {
            (Jsonb::Null, true) => Value::Null,
            (Jsonb::String(s), true) => Value::Text(s.clone()),
            (j, true) => Value::Text(j.to_text()),
            (j, false) => Value::Jsonb(Box::new(j.clone())),
        };
        let kind = |j: &Jsonb| match j {
            Jsonb::Object(_) => "an object",
            Jsonb::Array(_) => "an array",
            _ => "a scalar",
        };
        Ok(match (self, doc) {
            (JsonTableFunc::Elements { text, .. }, Jsonb::Array(items)) => {
                items.iter().map(|i| vec![value(i, text)]).collect()
            }
            (JsonTableFunc::Elements { .. }, other) => {
                return Err(SqlError::new(
                    "22023",
                    format!("cannot extract elements from {}", kind(other)),
                ));
            }
            (JsonTableFunc::Each { text, .. }, Jsonb::Object(members)) => members
                .iter()
                .map(|(k, v)| vec![Value::Text(k.clone()), value(v, text)])
                .collect(),
            (JsonTableFunc::Each { .. }, _) => {
                return Err(SqlError::new(
                    "22023",
                    format!("cannot call {} on a non-object", self.name()),
                ));
            }
            (JsonTableFunc::Keys { .. }, Jsonb::Object(members)) => members
                .iter()
                .map(|(k, _)| vec![Value::Text(k.clone())])
                .collect(),
            (JsonTableFunc::Keys { .. }, other) => {
                return Err(SqlError::new(
                    "22023",
                    format!("cannot call {} on {}", self.name(), kind(other)),
                ));
            }
        })
    }

    fn json_rows(self, text: &str) -> Result<Vec<Vec<Value>>, SqlError> {
        let doc = parse_json(text)?;
        let part = |n: &JsonNode<'_>| text[n.start..n.end].to_string();
        let value = |n: &JsonNode<'_>, as_text: bool| -> Result<Value, SqlError> {
            Ok(match (&n.kind, as_text) {
                (JsonNodeKind::Null, true) => Value::Null,
                (JsonNodeKind::String(s), true) => Value::Text(s.clone()?),
                (_, true) => Value::Text(part(n)),
                (_, false) => Value::Json(part(n)),
            })
        };
        let scalar = !matches!(doc.kind, JsonNodeKind::Array(_) | JsonNodeKind::Object(_));
        let error = |message: String| Err(SqlError::new("22023", message));
        match (self, &doc.kind) {
            (JsonTableFunc::Elements { text: as_text, .. }, JsonNodeKind::Array(items)) => {
                items.iter().map(|i| Ok(vec![value(i, as_text)?])).collect()
            }
            (JsonTableFunc::Elements { text: false, .. }, _) if scalar => {
                error(format!("cannot call {} on a scalar", self.name()))
            }
            (JsonTableFunc::Elements { text: true, .. }, _) if scalar => {
                error("cannot extract elements from a scalar".into())
            }
            (JsonTableFunc::Elements { .. }, _) => {
                error(format!("cannot call {} on a non-array", self.name()))
            }
            (JsonTableFunc::Each { text: as_text, .. }, JsonNodeKind::Object(members)) => members
                .iter()
                .map(|(k, v)| Ok(vec![Value::Text(k.clone()?), value(v, as_text)?]))
                .collect(),
            (JsonTableFunc::Each { .. }, _) if scalar => {
                error("cannot deconstruct a scalar".into())
            }
            (JsonTableFunc::Each { .. }, _) => {
                error("cannot deconstruct an array as an object".into())
            }
            (JsonTableFunc::Keys { .. }, JsonNodeKind::Object(members)) => members
                .iter()
                .map(|(k, _)| Ok(vec![Value::Text(k.clone()?)]))
                .collect(),
            (JsonTableFunc::Keys { .. }, _) if scalar => {
                error(format!("cannot call {} on a scalar", self.name()))
            }
            (JsonTableFunc::Keys { .. }, _) => {
                error(format!("cannot call {} on an array", self.name()))
            }
        }
    }
}
